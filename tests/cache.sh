# tests/cache.sh (sourced by tests/run.sh): the disk cache on its own
# (tests/cache_test.c, built from runtime/cache.c and lang/util.c).
if want cache/; then
    if cc -std=gnu11 -O1 -g -Wall -Wextra -Ilang -Iruntime runtime/cache.c lang/util.c tests/cache_test.c -lpthread \
            -o $T/cache_test > $T/cache_build.log 2>&1; then
        timeout 120 $T/cache_test > $T/cache.log 2>&1
        rc=$?
        count_lines $T/cache.log cache
        [ $rc -gt 1 ] && report "cache/exit ($rc)" 1 $T/cache.log
    else
        report cache/build 1 $T/cache_build.log
    fi
fi
