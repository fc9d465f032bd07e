#!/bin/bash
# tests/gpu.sh (make gpu-test): every example on the GPU, checked against its
# C reference, plus the GPU runtime tests. Runs from a prebuilt build/: no
# LLVM, flex or bison needed on this machine.
cd "$(dirname "$0")/.." || exit 2
. tests/lib.sh
if [ ! -x build/lib/libtl.so ] || [ ! -x build/tests/gpu_test ]; then
    echo "gpu-test: build/ is missing or incomplete: run 'make' on a build machine and copy build/ here"
    exit 2
fi
export TL_CACHE_DIR=${TL_CACHE_DIR:-$T/cache}
unset TL_INTERPRET
build/tests/gpu_test > $T/gpu.log 2>&1
rc=$?
if [ $rc = 3 ]; then
    cat $T/gpu.log
    echo "gpu-test: no usable GPU on this machine; nothing ran"
    exit 1
fi
head -1 $T/gpu.log
count_lines $T/gpu.log gpu
[ $rc -gt 1 ] && report "gpu/exit ($rc)" 1 $T/gpu.log
# The launch checks of tests/api.sh, on the GPU.
if want launch/; then
    TL_PRINT_AUTOTUNING=1 timeout 300 build/tests/launch_test > $T/launch.log 2> $T/launch.err
    rc=$?
    count_lines $T/launch.log launch
    [ $rc -gt 1 ] && report "launch/exit ($rc)" 1 $T/launch.log
    grep -m1 "^device:" $T/launch.log | grep -qv "cpu" || report "launch/ran on the GPU" 1 $T/launch.log
    # A second process reuses the first one's autotuning choice from the disk cache.
    grep -q "acc .*: config [0-9] (.*), tuned" $T/launch.err
    report "launch/autotune_tuned_first" $? $T/launch.err
    TL_PRINT_AUTOTUNING=1 timeout 300 build/tests/launch_test > $T/launch2.log 2> $T/launch2.err
    grep -q "acc .*, from the disk cache" $T/launch2.err && ! grep -q "ms$" $T/launch2.err &&
        [ "$(grep 'autotune chose' $T/launch.log)" = "$(grep 'autotune chose' $T/launch2.log)" ]
    report "launch/autotune_second_process_cached" $? $T/launch2.err
fi
# The same numeric op checks as tests/api.sh runs in the interpreter.
if want ops/; then
    timeout 600 build/tests/ops_test > $T/ops.log 2>&1
    rc=$?
    count_lines $T/ops.log ops
    [ $rc -gt 1 ] && report "ops/exit ($rc)" 1 $T/ops.log
    grep -m1 "^device:" $T/ops.log | grep -qv "cpu" || report "ops/ran on the GPU" 1 $T/ops.log
fi
for ex in copy grayscale swizzle matmul interop; do
    run_example $ex
    grep -m1 "^device:" $T/example_$ex.log | grep -qv "cpu" || report "example/$ex ran on the GPU" 1 $T/example_$ex.log
done
# The codegen numeric checks (PTX from 'make gpu-prep', launched through CuPy).
if [ -d build/gpu-ptx ] && want codegen/gpu; then
    if python3 -c "import cupy" 2>/dev/null; then
        python3 tests/codegen/gpu_check.py build/gpu-ptx > $T/gpu_check.log 2>&1
        rc=$?
        sed -i 's/^\[\(PASS\|FAIL\)\] /[\1] codegen\/gpu\//' $T/gpu_check.log
        count_lines $T/gpu_check.log codegen/gpu
        [ $rc -gt 1 ] && report "codegen/gpu (exit $rc)" 1 $T/gpu_check.log
    else
        echo "(codegen numeric checks skipped: no CuPy here)"
    fi
fi
build/examples/grayscale tests/data/rgb_203x137.png $T/grey.png > $T/grey_png.log 2>&1
grep -q "rgb_203x137.png (203x137) *\.\.\. OK" $T/grey_png.log
report "example/grayscale-png" $? $T/grey_png.log
# TL_DUMP on the GPU: every stage, down to the PTX.
rm -rf $T/dump && mkdir -p $T/dump
TL_ALWAYS_COMPILE=1 TL_DUMP=1 TL_DUMP_DIR=$T/dump build/examples/copy > $T/dump.log 2>&1
ls $T/dump >> $T/dump.log
ok=0
for ext in ast ir ir-gpu ll ptx; do ls $T/dump/copy_k-*.$ext > /dev/null 2>&1 || ok=1; done
grep -q "ld.global.v4" $T/dump/copy_k-*.ptx || ok=1
report "gpu/tl_dump_all_stages" $ok $T/dump.log
# A second run of an example loads every kernel from the disk cache.
TL_PRINT_CACHE=1 build/examples/copy > $T/warm.log 2>&1
grep -q "tl cache: hit" $T/warm.log && ! grep -q "tl cache: miss" $T/warm.log
report "cache/second-run-all-hits" $? $T/warm.log
finish
