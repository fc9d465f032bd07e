# tests/layout.sh: axis analysis and the layout pass (sourced by tests/run.sh).
#
#   tests/layout_test.c   thread maps of every layout kind over many shapes and
#                         warp counts (each element held, by the right number of
#                         threads, in bounds), mma.sync fragments, printing
#   tests/layout/*.tir    IR through axis analysis + the layout pass alone
#                         (layout_test [RUN-ARGS] FILE; --axis prints the axis
#                         analysis instead), checked by FileCheck against the
#                         file's "# CHECK" lines
#   tests/layout/*.tl     `tlc --dump-after=layout` (the IR the layout pass
#                         leaves) with the file's "# RUN-ARGS:"
#                         line, stdout and stderr checked by FileCheck; the exit
#                         status must be the "# RUN-RC:" line's (default 0)
lt_bin=$HB/layout_test
FILECHECK=${FILECHECK:-/usr/lib/llvm-19/bin/FileCheck}

# The harness (the Makefile's, with sanitizers where the toolchain has them).
lt_build() {
    [ -x $lt_bin ] && return 0
    report layout/build 1 $T/harness_build.log
    return 1
}

# Run a command, then FileCheck its output against the file's CHECK lines.
lt_check() { # name file cmd...
    local name=$1 f=$2 base=$T/layout_$(basename "$2") ok=0 rc want_rc
    shift 2
    want_rc=$(sed -n 's/^# RUN-RC: //p' "$f")
    NO_COLOR=1 timeout 60 "$@" > $base.out 2>&1
    rc=$?
    [ "$rc" = "${want_rc:-0}" ] || { echo "exit $rc, want ${want_rc:-0}" > $base.log; ok=1; }
    "$FILECHECK" "$f" --input-file $base.out >> $base.log 2>&1 || { sed 's/^/  | /' $base.out >> $base.log; ok=1; }
    report "$name" $ok $base.log
}

lt_tl() { # file
    local f=$1 args
    args=$(sed -n 's/^# RUN-ARGS: //p' "$f")
    eval "set -- $args"
    lt_check "layout/$(basename "$f")" "$f" $TLC --emit=ir-gpu --dump-after=layout -o /dev/null "$@" "$f"
}

lt_any=0
want layout/ && lt_any=1
for f in tests/layout/*.tir tests/layout/*.tl; do
    want "layout/$(basename "$f")" && lt_any=1
done
if [ $lt_any = 1 ]; then
    if [ ! -x "$FILECHECK" ]; then
        report "layout/FileCheck (install llvm-19-tools)" 1
    elif lt_build; then
        $lt_bin > $T/layout_unit.log 2>&1
        rc=$?
        count_lines $T/layout_unit.log layout
        [ $rc -gt 1 ] && report "layout/unit (exit $rc)" 1 $T/layout_unit.log
        for f in tests/layout/*.tir; do
            want "layout/$(basename "$f")" &&
                lt_check "layout/$(basename "$f")" "$f" $lt_bin $(sed -n 's/^# RUN-ARGS: //p' "$f") "$f"
        done
        for f in tests/layout/*.tl; do
            want "layout/$(basename "$f")" && lt_tl "$f"
        done
    fi
fi
