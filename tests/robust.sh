# tests/robust.sh (sourced by tests/run.sh): libtl on inputs meant to break it
# (tests/robust_test.c, in the interpreter).
if want robust/; then
    TL_INTERPRET=1 timeout 300 build/tests/robust_test > $T/robust.log 2>&1
    rc=$?
    count_lines $T/robust.log robust
    [ $rc -gt 1 ] && report "robust/exit ($rc)" 1 $T/robust.log
fi
# A TL_DUMP_DIR that does not exist: said once on stderr, not silently nothing.
if want robust/dump_dir_missing; then
    log=$T/robust_dump.log
    TL_INTERPRET=1 TL_DUMP=1 TL_DUMP_DIR=$T/no/such/dir build/examples/copy > /dev/null 2> $log
    rc=$?
    want_line="tl: TL_DUMP_DIR '$T/no/such/dir': cannot write $T/no/such/dir/copy_k-"
    [ $rc = 0 ] && [ "$(grep -c "^$want_line[0-9a-f]*\.ast: No such file or directory; nothing is dumped\$" $log)" = 1 ] &&
        [ "$(wc -l < $log)" = 1 ]
    report robust/dump_dir_missing $? $log
fi
