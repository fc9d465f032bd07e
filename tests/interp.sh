# tests/interp.sh: unit tests of the CPU interpreter (sourced by tests/run.sh).
# Runs tests/interp_test.c, built by the Makefile against the interpreter's
# sources alone (no LLVM, no libtl: $HB/interp_test), and reports each
# "[PASS]/[FAIL] interp/NAME" line it prints; then the same program's quick
# cases under ASan+UBSan ($HB/interp_test_san) as interp/sanitizers.

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
elif [ -x $HB/interp_test ]; then
    timeout 120 $HB/interp_test > $T/interp.out 2>&1
    interp_report_lines $T/interp.out $? interp/run
else
    report interp/build 1 $T/harness_build.log
fi

if want interp/sanitizers; then
    if [ -x $HB/interp_test_san ]; then # the Makefile builds it where cc has ASan and UBSan
        log=$T/interp_san.log
        timeout 120 $HB/interp_test_san --quick > $log 2>&1
        rc=$?
        grep -q '^\[FAIL\]' $log && rc=1
        report interp/sanitizers $rc $log
    else
        echo "(interp/sanitizers skipped: cc has no ASan/UBSan runtime)"
    fi
fi
