# tests/passes.sh: each pass alone on IR text (sourced by tests/run.sh).
#
#   tests/passes/*.tir   "# RUN-ARGS: --passes=P1,P2 ..." runs
#                        `tlc --ir-in FILE --emit=ir ARGS`; its output (stdout and
#                        stderr) is checked by FileCheck against the file's
#                        "# CHECK" lines, and the printed IR must parse back and
#                        print the same bytes (tlc --ir-in on the output). The exit
#                        status must be the "# RUN-RC:" line's (default 0).
ps_fc=${FILECHECK:-/usr/lib/llvm-19/bin/FileCheck}

ps_check() { # file
    local f=$1 name=passes/$(basename "$1" .tir) base=$T/passes_$(basename "$1" .tir) ok=0 rc want_rc args
    want "$name" || return 0
    args=$(sed -n 's/^# RUN-ARGS: //p' "$f")
    want_rc=$(sed -n 's/^# RUN-RC: //p' "$f")
    eval "set -- $args"
    : > $base.log
    NO_COLOR=1 timeout 60 $TLC --ir-in "$f" --emit=ir "$@" > $base.out 2> $base.err
    rc=$?
    [ "$rc" = "${want_rc:-0}" ] || { echo "exit $rc, want ${want_rc:-0}" >> $base.log; ok=1; }
    cat $base.out $base.err > $base.all
    "$ps_fc" "$f" --input-file $base.all >> $base.log 2>&1 || { sed 's/^/  | /' $base.all >> $base.log; ok=1; }
    if [ "$rc" = 0 ]; then # what a pass prints is IR the parser reads back
        NO_COLOR=1 timeout 60 $TLC --ir-in $base.out --emit=ir > $base.again 2>> $base.log
        cmp -s $base.out $base.again || { echo "the output does not round-trip:" >> $base.log
                                         diff -u $base.out $base.again >> $base.log; ok=1; }
    fi
    report "$name" $ok $base.log
}

if [ -x "$ps_fc" ]; then
    for ps_f in tests/passes/*.tir; do [ -f "$ps_f" ] && ps_check "$ps_f"; done
else
    report "passes/FileCheck (install llvm-19-tools)" 1
fi
