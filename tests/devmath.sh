# tests/devmath.sh: tl's device math library (compiler/device/math.c: fp64
# exp/exp2/log/log2/sin/cos, erf), compiled for the host and checked against
# the C library over random inputs (tests/devmath_test.c; sourced by
# tests/run.sh). The GPU runs the same source, linked as bitcode.
if want devmath; then
    log=$T/devmath.log
    if [ -x $HB/devmath_test ]; then
        $HB/devmath_test > $T/devmath.out 2>&1
        count_lines $T/devmath.out devmath
    else
        report devmath/build 1 $T/harness_build.log
    fi
fi
