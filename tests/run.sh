#!/bin/bash
# tests/run.sh: the test driver. Every test is a file; each prints [PASS]/[FAIL]
# and the run ends with "N passed, N failed".
#
#   tests/errors/*.tl   bad input: `tlc --emit=ast` prints exactly the "# expect:" lines'
#                       diagnostics (NAME.err beside an input that cannot carry them)
#   tests/ast/*.tl      tlc --emit=ast output must equal NAME.ast
#   examples/*.tl       must parse
# The file tests' directives (# RUN, # expect, # CHECK, golden NAME.EXT) are
# read and checked by one runner, tt_check in tests/lib.sh.
#   tests/cli.sh        command-line behaviour
#   tests/*.sh          more suites (IR, sema, interpreter, API, examples, codegen)
#   tests/gen/*.tl      kernels the generator of tests/gen.sh found wrong, reduced:
#                       their "# kgen" lines are the expression DAG kgen checks them with
# ONLY="substring ..." runs the tests whose names hold one of them. The
# libFuzzer run of the front end is `make fuzz` (.ci/run runs it after).
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
# The suites' programs come from the Makefile (up to date: nothing to do);
# a failed build shows as each suite's missing program. Not built when ONLY
# names no test of a suite that runs one.
for s in ir/ layout/ interp/ cache/ devmath/ fakegpu/; do
    want_suite $s || continue
    make --no-print-directory -s harness > $T/harness_build.log 2>&1 || cat $T/harness_build.log
    break
done

# Inputs too big or too odd to keep in git are made here, their expectations
# in NAME.err beside them.
gen_inputs() {
    local g=$T/gen
    mkdir -p $g
    { printf 'import triton\n@triton.jit\ndef k(x):\n    y = '; head -c 1048576 /dev/zero | tr '\0' 'a'; printf ' +\n'; } > $g/long_line.tl
    echo "4:$((1048576 + 11)): error: expected an expression" > $g/long_line.err
    { printf 'import triton\n@triton.jit\ndef k():\n    x = '; head -c 10000 /dev/zero | tr '\0' '('; printf '\n'; } > $g/nested_parens.tl
    echo "4:209: error: too many nested parentheses" > $g/nested_parens.err
    perl -e 'srand(1); print map { chr int rand 256 } 1..4096' > $g/random_bytes.tl # seeded: every run the same bytes
    cat > $g/random_bytes.err <<'EOF'
2:2: error: invalid UTF-8 byte 0xD5
2:4: error: invalid UTF-8 byte 0x90
2:5: error: source contains a NUL byte
2:7: error: invalid UTF-8 byte 0xFD
2:8: error: invalid UTF-8 byte 0xC0
2:11: error: invalid UTF-8 byte 0x92
2:14: error: invalid UTF-8 byte 0xF3
2:16: error: invalid UTF-8 byte 0x95
2:18: error: invalid UTF-8 byte 0xCE
2:20: error: invalid UTF-8 byte 0x9F
2:23: error: invalid UTF-8 byte 0x92
2:24: error: invalid UTF-8 byte 0xEE
2:26: error: invalid UTF-8 byte 0xE4
2:27: error: invalid UTF-8 byte 0x98
2:29: error: invalid UTF-8 byte 0xE6
2:30: error: invalid UTF-8 byte 0xB1
2:32: error: invalid UTF-8 byte 0xF6
2:35: error: invalid UTF-8 byte 0xE2
2:37: error: invalid UTF-8 byte 0xC0
2:39: error: invalid UTF-8 byte 0xA5
fatal error: too many errors emitted, stopping now
EOF
}

# tests/errors/*.tl: bad input; tests/ast/*.tl: the syntax tree, exactly NAME.ast;
# examples/*.tl and tests/kernels/*.tl: must parse.
for n in long_line nested_parens random_bytes; do want errors/$n && { gen_inputs; break; }; done
for f in tests/errors/*.tl $T/gen/*.tl; do
    [ -f "$f" ] || continue
    b=${f##*/} n=errors/${b%.tl}
    want "$n" || continue
    log=$T/$b.log; : > $log
    tt_check $log "$f" "" $TLC --emit=ast
    report "$n" $? $log
done
for f in tests/ast/*.tl examples/*.tl tests/kernels/*.tl; do
    [ -f "$f" ] || continue
    b=${f##*/}; b=${b%.tl}
    case "$f" in tests/ast/*) n=ast/$b g=ast! ;; *) n=parse/$b g="" ;; esac
    want "$n" || continue
    log=$T/${n//\//_}.log; : > $log
    tt_check $log "$f" "$g" $TLC --emit=ast
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
