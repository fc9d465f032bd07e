# tests/robust.sh (sourced by tests/run.sh): libtl on inputs meant to break it
# (tests/robust_test.c, in the interpreter).
if want robust/; then
    TL_INTERPRET=1 timeout 300 build/tests/robust_test > $T/robust.log 2>&1
    rc=$?
    count_lines $T/robust.log robust
    [ $rc -gt 1 ] && report "robust/exit ($rc)" 1 $T/robust.log
fi
