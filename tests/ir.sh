# tests/ir.sh: the IR text form, its parser and the verifier (sourced by tests/run.sh).
#
#   tests/ir/*.tir without "# expect" lines: good IR. It must parse, verify and
#       print, and printing the parse of that print must give the same bytes
#       (tests/ir_roundtrip.c checks both). The print must equal NAME.out when
#       there is one, else the file itself less its full-line comments: each
#       file is its own golden, written in the printer's form.
#   tests/ir/*.tir with "# expect: LINE:COL: error: MESSAGE" (a parse error) or
#       "# expect-verify: TEXT" lines (verifier errors): must fail (exit 1) and
#       print every expected line.
#   $T/ir_gen/*: inputs too big or too odd to keep in git.
# When tlc has --ir-in, `tlc --ir-in FILE --emit=ir` must agree on every file.

ir_rt=$HB/ir_roundtrip
ir_tlc=0

# The harness (the Makefile's, with sanitizers where the toolchain has them):
# bad input must give a diagnostic, never a memory error.
ir_build() {
    [ -x $ir_rt ] && return 0
    report ir/build 1 $T/harness_build.log
    return 1
}

# Every "# expect" line of $1 must appear in log $2; missing ones are added to it.
ir_expect() {
    local f=$1 log=$2 e missing=""
    local exp
    exp=$(sed -n 's/^# expect: /P/p; s/^# expect-verify: /V/p' "$f")
    while IFS= read -r e; do
        case "$e" in
            P*) grep -qF -- "$f:${e#P}" "$log" || missing+="missing: $f:${e#P}"$'\n' ;;
            V*) grep -qF -- "${e#V}" "$log" || missing+="missing: ${e#V}"$'\n' ;;
        esac
    done <<< "$exp"
    [ -z "$missing" ] && return 0
    printf '%s' "$missing" >> "$log"
    return 1
}

ir_good() { # file
    local f=$1 name=ir/$(basename "$1" .tir) base=$T/ir_$(basename "$1")
    local golden=${1%.tir}.out ok=0
    NO_COLOR=1 timeout 20 $ir_rt "$f" > $base.out 2> $base.log || { echo "harness exit $?" >> $base.log; ok=1; }
    if [ -f "$golden" ]; then
        diff -u "$golden" $base.out >> $base.log || ok=1
    else
        grep -v '^#' "$f" | diff -u - $base.out >> $base.log || ok=1
    fi
    if [ $ir_tlc = 1 ]; then
        NO_COLOR=1 timeout 20 $TLC --ir-in "$f" --emit=ir > $base.tlc 2>> $base.log
        cmp -s $base.out $base.tlc || { echo "tlc --ir-in prints otherwise:" >> $base.log
                                       diff -u $base.out $base.tlc >> $base.log; ok=1; }
    fi
    report "$name" $ok $base.log
}

ir_bad() { # file
    local f=$1 name=ir/$(basename "$1" .tir) base=$T/ir_$(basename "$1") ok=0 rc
    NO_COLOR=1 timeout 20 $ir_rt "$f" > /dev/null 2> $base.log
    rc=$?
    [ $rc = 1 ] || { echo "harness exit $rc, want 1" >> $base.log; ok=1; }
    ir_expect "$f" $base.log || ok=1
    if [ $ir_tlc = 1 ]; then
        NO_COLOR=1 timeout 20 $TLC --ir-in "$f" --emit=ir > /dev/null 2> $base.tlc
        rc=$?
        case $rc in 1|4) ;; *) echo "tlc --ir-in exit $rc, want 1 or 4" >> $base.log; ok=1 ;; esac
        ir_expect "$f" $base.tlc || { echo "tlc --ir-in:" >> $base.log; cat $base.tlc >> $base.log; ok=1; }
    fi
    report "$name" $ok $base.log
}

ir_gen_inputs() {
    local g=$T/ir_gen i
    rm -rf $g && mkdir -p $g
    # 100 nested ifs: the parser refuses region 65 instead of recursing on.
    { echo '# expect: 67:7: error: regions nested more than 64 deep'
      echo 'func @deep(%1: i1) {'
      for i in $(seq 100); do echo 'if %1 {'; done
      for i in $(seq 100); do echo 'yield'; echo '} else {'; echo 'yield'; echo '}'; done
      echo 'return'; echo '}'; } > $g/deep.tir
    # Random bytes end in a diagnostic.
    { echo '# expect-verify: error:'; perl -e 'srand(2); print map { chr int rand 256 } 1..4096'; } > $g/random.tir
    # 30000 ops, each using the one before: nothing quadratic.
    { echo 'func @large(%1: i32) {num_warps = 4, num_stages = 3} {'
      for i in $(seq 2 30001); do echo "  %$i = add %$((i - 1)), %1 : i32"; done
      echo '  return'; echo '}'; } > $g/large.tir
}

ir_files=""
for ir_f in tests/ir/*.tir ir_gen/deep ir_gen/random ir_gen/large; do
    want "ir/$(basename "$ir_f" .tir)" && ir_files+=" $ir_f"
done
if [ -n "$ir_files" ] && ir_build; then
    $TLC --help 2>/dev/null | grep -q -- '--ir-in' && ir_tlc=1
    ir_gen_inputs
    for ir_f in $ir_files; do
        case $ir_f in ir_gen/*) ir_f=$T/$ir_f.tir ;; esac
        if grep -q '^# expect' "$ir_f"; then ir_bad "$ir_f"; else ir_good "$ir_f"; fi
    done
fi
