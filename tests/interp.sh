# tests/interp.sh: unit tests of the CPU interpreter (sourced by tests/run.sh).
# Builds tests/interp_test.c against the interpreter's sources alone (no LLVM,
# no libtl) and reports each "[PASS]/[FAIL] interp/NAME" line it prints; then
# runs the same program's quick cases under ASan+UBSan as interp/sanitizers.
interp_src="lang/util.c lang/diag.c compiler/ir.c compiler/fp8.c compiler/libdevice.c runtime/interp*.c tests/interp_test.c"

interp_report_lines() { # output-file exit-code name-for-a-crash
    local out=$1 rc=$2 line n
    while IFS= read -r line; do
        case "$line" in
            "[PASS] "*) report "${line#\[PASS\] }" 0 ;;
            "[FAIL] "*)
                n=${line#\[FAIL\] }; n=${n%%:*}
                printf '%s\n' "$line" > $T/interp_fail.log
                report "$n" 1 $T/interp_fail.log ;;
            "    "*) [ -z "$ONLY" ] && printf '%s\n' "$line" ;; # timings
        esac
    done < "$out"
    # a crash or a timeout: the lines after it never came
    if [ "$rc" != 0 ] && ! grep -q '^\[FAIL\]' "$out"; then
        echo "exit code $rc" >> "$out"
        report "$3" 1 "$out"
    fi
}

if ! want_suite interp/; then
    : # ONLY names no test of this suite: its program is not built
elif cc -std=gnu11 -O2 -Wall -Wextra -Ilang -Icompiler -Iruntime $interp_src -lm -o $T/interp_test \
        > $T/interp_build.log 2>&1; then
    timeout 120 $T/interp_test > $T/interp.out 2>&1
    interp_report_lines $T/interp.out $? interp/run
else
    report interp/build 1 $T/interp_build.log
fi

if want interp/sanitizers; then
    if echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o $T/interp_san_probe - \
            > /dev/null 2>&1; then
        log=$T/interp_san.log
        if cc -std=gnu11 -O1 -g -fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all \
                -Ilang -Icompiler -Iruntime $interp_src -lm -o $T/interp_test_san > $log 2>&1; then
            timeout 120 $T/interp_test_san --quick >> $log 2>&1
            rc=$?
            grep -q '^\[FAIL\]' $log && rc=1
            report interp/sanitizers $rc $log
        else
            report interp/sanitizers 1 $log
        fi
    else
        echo "(interp/sanitizers skipped: cc has no ASan/UBSan runtime)"
    fi
fi
