#!/bin/bash
# tests/run.sh: the test driver. Every test is a file; each prints [PASS]/[FAIL]
# and the run ends with "N passed, N failed".
#
#   tests/errors/*.tl   bad input: "# expect: LINE:COL: error: MESSAGE" lines (or a
#                       NAME.expect file beside a binary input); tlc must exit 1 and
#                       print every expected diagnostic
#   tests/ast/*.tl      tlc --emit=ast output must equal NAME.ast
#   examples/*.tl       must parse
#   tests/cli.sh        command-line behaviour
#   tests/*.sh          more suites (IR, sema, interpreter, API, examples, codegen)
#   tests/gen/*.tl      kernels the generator of tests/gen.sh found wrong, reduced:
#                       their "# kgen" lines are the expression DAG kgen checks them with
# ONLY="substring ..." runs the tests whose names hold one of them. The
# libFuzzer run of the front end is `make fuzz` (.ci/run runs it after).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
# The suites' programs come from the Makefile (up to date: nothing to do);
# a failed build shows as each suite's missing program.
make --no-print-directory -s harness > $T/harness_build.log 2>&1 || cat $T/harness_build.log

# Inputs too big or too odd to keep in git are made here.
gen_inputs() {
    local g=$T/gen
    mkdir -p $g
    { printf 'import triton\n@triton.jit\ndef k(x):\n    y = '; head -c 1048576 /dev/zero | tr '\0' 'a'; printf ' +\n'; } > $g/long_line.tl
    echo "4:$((1048576 + 11)): error: expected an expression" > $g/long_line.expect
    { printf 'import triton\n@triton.jit\ndef k():\n    x = '; head -c 10000 /dev/zero | tr '\0' '('; printf '\n'; } > $g/nested_parens.tl
    echo "4:209: error: too many nested parentheses" > $g/nested_parens.expect
    perl -e 'srand(1); print map { chr int rand 256 } 1..4096' > $g/random_bytes.tl # seeded: every run the same bytes
    echo "error:" > $g/random_bytes.expect
}

run_error_test() { # file
    local f=$1 name=errors/$(basename "$1" .tl) log=$T/$(basename "$1").log
    want "$name" || return 0
    NO_COLOR=1 timeout 20 $TLC --emit=ast "$f" > /dev/null 2> "$log"
    check_expected "$f" "$log" $?
    report "$name" $? "$log"
}

gen_inputs
for f in tests/errors/*.tl $T/gen/*.tl; do
    [ -f "$f" ] && run_error_test "$f"
done

for f in tests/ast/*.tl; do
    [ -f "$f" ] || continue
    n=$(basename "$f" .tl); log=$T/ast_$n.log
    want "ast/$n" || continue
    NO_COLOR=1 $TLC --emit=ast "$f" > $T/ast_$n.out 2> $log
    rc=$?
    diff -u "${f%.tl}.ast" $T/ast_$n.out >> $log 2>&1
    report "ast/$n" $(( rc != 0 || $? != 0 )) $log
done

for f in examples/*.tl tests/kernels/*.tl; do
    [ -f "$f" ] || continue
    n=parse/$(basename "$f" .tl); log=$T/parse_$(basename "$f").log
    want "$n" || continue
    NO_COLOR=1 $TLC --emit=ast "$f" > /dev/null 2> $log
    report "$n" $? $log
done

# Every other tests/*.sh is a suite sourced here, except the drivers themselves.
for s in tests/*.sh; do
    case "$s" in tests/run.sh | tests/lib.sh | tests/gpu.sh | tests/bench.sh) continue ;; esac
    . "$s"
done

# The suites' own harness programs (some with sanitizers, some with LLVM) are
# only kept for debugging a failure: build/ stays small enough to carry.
if [ $fail = 0 ]; then
    for f in $T/*; do
        [ -f "$f" ] && [ -x "$f" ] || continue
        # kept: the Makefile's TEST_BINS (tests/gpu.sh runs them on the GPU machine)
        case "$f" in */api_test | */robust_test | */fakegpu_test | */launch_test | */gpu_test | */ops_test | */desc_test | \
                     */heur_test | */tma_test | */lineinfo_test | */kgen) ;; *) rm -f "$f" ;; esac
    done
fi
finish
