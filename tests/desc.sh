# tests/desc.sh: block pointers and tensor descriptors (desc_test.c), in the
# interpreter (sourced by tests/run.sh; tests/gpu.sh runs it on the GPU).
if want desc/; then
    TL_INTERPRET=1 timeout 300 build/tests/desc_test > $T/desc.log 2>&1
    rc=$?
    count_lines $T/desc.log desc
    [ $rc -gt 1 ] && report "desc/exit ($rc)" 1 $T/desc.log
    grep -q "^all passed\|^FAILED" $T/desc.log || report "desc/finished" 1 $T/desc.log
fi
