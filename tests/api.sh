# tests/api.sh: the C API test program and every example program, in the
# interpreter (sourced by tests/run.sh).
if want api/; then
    TL_INTERPRET=1 timeout 300 build/tests/api_test > $T/api.log 2>&1
    rc=$?
    count_lines $T/api.log api
    [ $rc -gt 1 ] && report "api/exit ($rc)" 1 $T/api.log
fi
for ex in copy grayscale swizzle matmul; do
    run_example $ex TL_INTERPRET=1
done
