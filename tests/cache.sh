# tests/cache.sh (sourced by tests/run.sh): the disk cache on its own
# (tests/cache_test.c with runtime/cache.c and lang/util.c: the Makefile's $HB/cache_test).
if want cache/; then
    if [ -x $HB/cache_test ]; then
        timeout 120 $HB/cache_test > $T/cache.log 2>&1
        rc=$?
        count_lines $T/cache.log cache
        [ $rc -gt 1 ] && report "cache/exit ($rc)" 1 $T/cache.log
    else
        report cache/build 1 $T/harness_build.log
    fi
fi
