# tests/lib.sh: helpers shared by the test drivers (tests/run.sh, tests/gpu.sh).
TLC=${TLC:-build/bin/tlc}
T=build/tests
HB=build/harness # the suites' own programs (the Makefile's `harness`)
mkdir -p "$T"
pass=0 fail=0

want_suite() { # prefix ("interp/"): could ONLY want a test named PREFIX...? (so the suite's program is built)
    local o
    [ -z "$ONLY" ] && return 0
    for o in $ONLY; do
        case "$o" in */*) ;; *) return 0 ;; esac # a bare word may match inside any name
        case "$o" in *"$1"*) return 0 ;; esac
        case "$1" in *"$o"*) return 0 ;; esac
    done
    return 1
}

want() { # name: run it? ONLY holds one or more space-separated patterns
    local o
    for o in ${ONLY:-""}; do case "$1" in *"$o"*) return 0 ;; esac; done
    [ -z "$ONLY" ]
}

report() { # name rc [detail-file]
    want "$1" || return 0
    if [ "$2" = 0 ]; then
        pass=$((pass + 1)); echo "[PASS] $1"
    else
        fail=$((fail + 1)); echo "[FAIL] $1"
        [ -n "$3" ] && [ -f "$3" ] && sed 's/^/    /' "$3" | head -40
    fi
}

# Turn a program's "[PASS] name" / "[FAIL] name" lines and the examples'
# "name ... OK" / "name ... FAIL: why" lines into results.
count_lines() { # log prefix-for-example-lines
    local line name
    while IFS= read -r line; do
        case "$line" in
            "[PASS] "*) report "${line#\[PASS\] }" 0 ;;
            "[FAIL] "*) report "${line#\[FAIL\] }" 1 ;;
            *" ... OK") name=${line% ... OK}; report "$2/$(echo $name)" 0 ;;
            *" ... FAIL"*) name=${line%% ... FAIL*}; echo "$line" > $T/line.log
                           report "$2/$(echo $name)" 1 $T/line.log ;;
            "    "*) echo "$line" ;;
        esac
    done < "$1"
}

# Run an example program; every case line counts. A program that prints no
# case line at all (crashed, could not start) is one failure.
run_example() { # name [env...]
    local ex=$1 log=$T/example_$1.log; shift
    want "example/$ex" || return 0
    env "$@" timeout 900 build/examples/$ex > $log 2>&1
    local rc=$?
    count_lines $log example/$ex
    grep -q " \.\.\. " $log || report "example/$ex (exit $rc)" 1 $log
}

# ---- File tests: one directive syntax, one reader (tt_read), one runner (tt_check) ----
# A test file carries its checks in comment lines (# is a comment in .tl and .tir):
#   # RUN: ARGS           one run of the suite's command: CMD ARGS FILE (ARGS are shell words);
#                         several RUN lines, several runs; none, one run with no ARGS
#   # RUN(PREFIX): ARGS   the same, and FileCheck --check-prefix=PREFIX must accept its output
#                         (stdout, then stderr); a plain RUN's output is checked against the
#                         file's "# CHECK" lines when it has some
#   # expect: DIAG        each run prints exactly these diagnostics, in this order, and no other:
#                         DIAG is the diagnostic's line less the leading "FILE:" (L:C: error:
#                         MSG, L:C: warning: MSG, L:C: note: MSG, error: MSG, tlc: error: MSG,
#                         fatal error: MSG, internal error: MSG less its "(compiler/FILE.c:N)")
#   NAME.err              beside the file: more expect lines (without "# expect: "), for an
#                         input that cannot carry comments
#   NAME.EXT              the golden output the suite names (.ast, .ir, .out): stdout, exactly;
#                         UPDATE=1 rewrites it (read the diff before committing)
# The exit status follows: 4 when an internal error is expected, else 1 when an error is,
# else 0. Old directive forms (RUN-ARGS, RUN-RC, expect-verify, expect-warning, signature,
# kernel, defines, options) fail the test, so a stale test cannot pass by being ignored.
FILECHECK=${FILECHECK:-/usr/lib/llvm-19/bin/FileCheck}

# FILE's directives: tt_runs ("PREFIX ARGS" each; PREFIX "-" for a plain RUN), tt_want (the
# expectations, one a line), tt_rc (the exit status they imply), tt_bad (old forms found).
tt_read() { # file
    local f=$1 line
    tt_runs=() tt_want="" tt_rc=0 tt_bad=""
    while IFS= read -r line; do
        case "$line" in
            "# RUN: "*) tt_runs+=("- ${line#\# RUN: }") ;;
            "# RUN("*"): "*) line=${line#\# RUN(}; tt_runs+=("${line%%): *} ${line#*): }") ;;
            "# expect: "*) tt_want+="${line#\# expect: }"$'\n' ;;
            *) tt_bad+="old directive: $line"$'\n' ;;
        esac
    done < <(LC_ALL=C grep -aE '^# (RUN|RUN\([A-Za-z0-9_]+\)|expect|RUN-ARGS|RUN-RC|expect-[a-z]+|signature|kernel|defines|options): ' "$f")
    [ -s "${f%.*}.err" ] && tt_want+=$(cat "${f%.*}.err")$'\n'
    if LC_ALL=C grep -qE '^([^ ]+: )?internal error: ' <<< "$tt_want"; then tt_rc=4
    elif LC_ALL=C grep -qE '^([^ ]+: )?(fatal )?error: ' <<< "$tt_want"; then tt_rc=1; fi
}

tt_diags() { # file < stderr: its diagnostics, one a line, in the form of an expect line
    LC_ALL=C awk -v f="$1" '/^([^ \t]+: )?(fatal error|internal error|error|warning|note): / {
        if (index($0, f ":") == 1) { $0 = substr($0, length(f) + 2); sub(/^ /, "") }
        if ($0 ~ /^internal error: /) sub(/ \((compiler|lang|runtime)\/[^ ]*\.c:[0-9]+\)$/, "")
        print }'
}

# Run FILE through CMD once per RUN line and check all of the above; problems go to LOG.
# GOLDEN is the golden file's extension, "EXT!" when the file must exist, or "" for none.
# TT_HOOK, when set, names a function run after each run as HOOK LOG OUT RC ARGS (OUT: the
# run's stdout), failing the test when it fails. Afterwards $tt_base.out is the last run's
# stdout and $tt_rc the status expected. Returns 0 when all holds.
tt_check() { # log file golden cmd...
    local log=$1 f=$2 golden=$3 ok=0 r prefix args rc base gf req=0
    shift 3
    local -a cmd=("$@") a
    base=$T/tt_${f//\//_}; tt_base=$base
    case "$golden" in *!) req=1; golden=${golden%!} ;; esac
    gf=""; [ -n "$golden" ] && gf=${f%.*}.$golden
    tt_read "$f"
    [ -z "$tt_bad" ] || { printf '%s' "$tt_bad" >> "$log"; ok=1; }
    [ ${#tt_runs[@]} = 0 ] && tt_runs=("- ")
    printf '%s' "$tt_want" > $base.want
    for r in "${tt_runs[@]}"; do
        prefix=${r%% *} args=${r#* }
        eval "a=($args)"
        NO_COLOR=1 timeout 120 "${cmd[@]}" "${a[@]}" "$f" > $base.out 2> $base.err
        rc=$?
        [ $rc = $tt_rc ] || { echo "RUN $args: exit $rc, want $tt_rc" >> "$log"; ok=1; }
        tt_diags "$f" < $base.err > $base.diags
        if ! cmp -s $base.want $base.diags; then
            echo "RUN $args: the diagnostics differ from the expected ones (-expected +printed):" >> "$log"
            diff -u $base.want $base.diags | tail -n +3 >> "$log"
            sed 's/^/  | /' $base.err | head -40 >> "$log"; ok=1
        fi
        [ "$prefix" = - ] && grep -q '^# CHECK[-A-Z]*:' "$f" && prefix=CHECK
        if [ "$prefix" != - ]; then
            cat $base.out $base.err > $base.all
            if [ ! -x "$FILECHECK" ]; then echo "no FileCheck at $FILECHECK (install llvm-19-tools)" >> "$log"; ok=1
            elif ! "$FILECHECK" --check-prefix="$prefix" --input-file=$base.all "$f" >> "$log" 2>&1; then
                echo "RUN($prefix) $args: FileCheck failed (output in $base.all)" >> "$log"; ok=1
            fi
        fi
        if [ -n "$gf" ]; then
            [ "${UPDATE:-0}" = 1 ] && [ $rc = $tt_rc ] && { [ $req = 1 ] || [ -f "$gf" ]; } && cp $base.out "$gf"
            if [ -f "$gf" ]; then
                cmp -s "$gf" $base.out || { echo "the output differs from $gf:" >> "$log"; diff -u "$gf" $base.out | tail -n +3 | head -40 >> "$log"; ok=1; }
            elif [ $req = 1 ]; then
                echo "no $gf (UPDATE=1 writes it)" >> "$log"; ok=1
            fi
        fi
        [ -z "$TT_HOOK" ] || $TT_HOOK "$log" $base.out $rc "${a[@]}" || ok=1
    done
    return $ok
}

finish() {
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
}
