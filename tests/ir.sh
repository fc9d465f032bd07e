# tests/ir.sh: the IR text form, its parser and the verifier (sourced by tests/run.sh).
#
#   tests/ir/*.tir   each runs through the harness tests/ir_roundtrip.c (parse, verify, print,
#       and the print parsed and printed again must give the same bytes) and through
#       `tlc --ir-in --emit=ir`, both checked by tt_check (tests/lib.sh): exactly the
#       "# expect:" lines' diagnostics (a parse error: exit 1; the verifier's internal
#       errors: exit 4), none for good IR. Good IR's print must equal NAME.out when there
#       is one, else the file itself less its full-line comments (each file is its own
#       golden, written in the printer's form), and tlc must print the same.
#   $T/ir_gen/*: inputs too big or too odd to keep in git.

ir_rt=$HB/ir_roundtrip

ir_gen_inputs() {
    local g=$T/ir_gen i
    rm -rf $g && mkdir -p $g
    # 100 nested ifs: the parser refuses region 65 instead of recursing on.
    { echo '# expect: 67:7: error: regions nested more than 64 deep'
      echo 'func @deep(%1: i1) {'
      for i in $(seq 100); do echo 'if %1 {'; done
      for i in $(seq 100); do echo 'yield'; echo '} else {'; echo 'yield'; echo '}'; done
      echo 'return'; echo '}'; } > $g/deep.tir
    # Random bytes (seeded: every run the same) end in a diagnostic.
    perl -e 'srand(2); print map { chr int rand 256 } 1..4096' > $g/random.tir
    echo "1:1: error: unexpected byte 0xe9" > $g/random.err
    # 30000 ops, each using the one before: nothing quadratic.
    { echo 'func @large(%1: i32) {num_warps = 4, num_stages = 3} {'
      for i in $(seq 2 30001); do echo "  %$i = add %$((i - 1)), %1 : i32"; done
      echo '  return'; echo '}'; } > $g/large.tir
}

ir_file() { # file
    local f=$1 n=${1##*/} log=$T/ir_${1##*/}.log ok=0
    n=ir/${n%.tir}
    : > $log
    tt_check $log "$f" out $ir_rt || ok=1
    cp $tt_base.out $tt_base.rt
    if [ $tt_rc = 0 ] && [ ! -f "${f%.tir}.out" ]; then
        grep -v '^#' "$f" | diff -u - $tt_base.rt >> $log || ok=1
    fi
    tt_check $log "$f" "" $TLC --ir-in --emit=ir || ok=1
    if [ $tt_rc = 0 ] && ! cmp -s $tt_base.rt $tt_base.out; then
        echo "tlc --ir-in prints otherwise:" >> $log; diff -u $tt_base.rt $tt_base.out >> $log; ok=1
    fi
    report "$n" $ok $log
}

ir_files=""
for ir_f in tests/ir/*.tir ir_gen/deep ir_gen/random ir_gen/large; do
    ir_b=${ir_f##*/}; want "ir/${ir_b%.tir}" && ir_files+=" $ir_f"
done
if [ -n "$ir_files" ]; then
    if [ -x $ir_rt ]; then
        ir_gen_inputs
        for ir_f in $ir_files; do
            case $ir_f in ir_gen/*) ir_f=$T/$ir_f.tir ;; esac
            ir_file "$ir_f"
        done
    else
        report ir/build 1 $T/harness_build.log
    fi
fi
