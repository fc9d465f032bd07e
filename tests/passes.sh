# tests/passes.sh: each pass alone on IR text (sourced by tests/run.sh).
#
#   tests/passes/*.tir   "# RUN: --passes=P1,P2 ..." runs `tlc --ir-in --emit=ir ARGS FILE`;
#                        its output (stdout, then stderr) is checked by FileCheck against the
#                        file's "# CHECK" lines, and the printed IR must parse back and print
#                        the same bytes (tlc --ir-in on the output). tt_check (tests/lib.sh)
#                        reads the directives and runs the checks.

ps_roundtrip() { # log out rc args...: what a pass prints is IR the parser reads back
    [ "$3" = 0 ] || return 0
    NO_COLOR=1 timeout 60 $TLC --ir-in $2 --emit=ir > $2.again 2>> $1
    cmp -s $2 $2.again || { echo "the output does not round-trip:" >> $1; diff -u $2 $2.again >> $1; return 1; }
}

for ps_f in tests/passes/*.tir; do
    [ -f "$ps_f" ] || continue
    n=${ps_f##*/}; n=passes/${n%.tir}
    want "$n" || continue
    log=$T/${n/\//_}.log; : > $log
    TT_HOOK=ps_roundtrip tt_check $log "$ps_f" "" $TLC --ir-in --emit=ir
    report "$n" $? $log
done
