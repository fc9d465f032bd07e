# tests/layout.sh: axis analysis and the layout pass (sourced by tests/run.sh).
#
#   tests/layout_test.c   thread maps of every layout kind over many shapes and
#                         warp counts (each element held, by the right number of
#                         threads, in bounds), mma.sync fragments, printing
#   tests/layout/*.tir    IR through axis analysis + the layout pass alone
#                         (layout_test ARGS FILE; --axis prints the axis analysis
#                         instead), checked by FileCheck against the file's "# CHECK" lines
#   tests/layout/*.tl     `tlc --emit=ir-gpu --dump-after=layout -o /dev/null ARGS FILE` (the
#                         IR the layout pass leaves), stdout and stderr checked by FileCheck,
#                         diagnostics by the "# expect:" lines
# ARGS come from the file's "# RUN:" line; tt_check (tests/lib.sh) runs the checks.
lt_bin=$HB/layout_test

lt_any=0
want layout/ && lt_any=1
for f in tests/layout/*.tir tests/layout/*.tl; do
    want "layout/${f##*/}" && lt_any=1
done
if [ $lt_any = 1 ]; then
    if [ ! -x $lt_bin ]; then
        report layout/build 1 $T/harness_build.log
    else
        $lt_bin > $T/layout_unit.log 2>&1
        rc=$?
        count_lines $T/layout_unit.log layout
        [ $rc -gt 1 ] && report "layout/unit (exit $rc)" 1 $T/layout_unit.log
        for f in tests/layout/*.tir tests/layout/*.tl; do
            n=layout/${f##*/}
            want "$n" || continue
            log=$T/layout_${f##*/}.log; : > $log
            case "$f" in
                *.tir) tt_check $log "$f" "" $lt_bin ;;
                *) tt_check $log "$f" "" $TLC --emit=ir-gpu --dump-after=layout -o /dev/null ;;
            esac
            report "$n" $? $log
        done
    fi
fi
