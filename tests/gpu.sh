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
rc=0; : > $T/gpu.log
want gpu/ && { build/tests/gpu_test > $T/gpu.log 2>&1; rc=$?; }
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
# Heuristics decided at each launch, and tuning pruned by a C callback (heur_test.c), on the GPU.
if want heur/; then
    TL_PRINT_AUTOTUNING=1 timeout 300 build/tests/heur_test > $T/heur.log 2> $T/heur.err
    rc=$?
    count_lines $T/heur.log heur
    [ $rc -gt 1 ] && report "heur/exit ($rc)" 1 $T/heur.log
    grep -m1 "^device:" $T/heur.log | grep -qv "cpu" || report "heur/ran on the GPU" 1 $T/heur.log
    # the pruned configs are neither compiled nor timed (or a previous run's choice is reused)
    { grep -q "prune_k .*config 0: pruned" $T/heur.err && grep -q "prune_k .*config 1: pruned" $T/heur.err &&
        grep -q "prune_k .*config 2 (.*): [0-9.]* ms" $T/heur.err; } ||
        grep -q "prune_k .*: config 2 (.*), from the disk cache" $T/heur.err
    report "heur/pruned_tuning_on_gpu" $? $T/heur.err
    # twin's two identical configs are within 10% of each other: both timed
    # again in turns (autotune.c's final round)
    { grep -q "twin \[.*\] config 0: [0-9.]* ms in turns" $T/heur.err &&
        grep -q "twin \[.*\] config 1: [0-9.]* ms in turns" $T/heur.err; } ||
        grep -q "twin \[.*\]: config [01] (.*), from the disk cache" $T/heur.err
    report "heur/finalists_timed_in_turns" $? $T/heur.err
fi
# The same numeric op checks as tests/api.sh runs in the interpreter.
if want ops/; then
    timeout 600 build/tests/ops_test > $T/ops.log 2>&1
    rc=$?
    count_lines $T/ops.log ops
    [ $rc -gt 1 ] && report "ops/exit ($rc)" 1 $T/ops.log
    grep -m1 "^device:" $T/ops.log | grep -qv "cpu" || report "ops/ran on the GPU" 1 $T/ops.log
fi
# Line information (the library's default): the cubin's line table names the
# .tl file, and compute-sanitizer points at the line of a store far past its
# buffer (tests/data/oob_store.tl, line 10); tl_kernel_resources of the
# variant that ran.
if want lineinfo/; then
    timeout 120 build/tests/lineinfo_test tests/data/oob_store.tl --in-bounds > $T/li.log 2>&1
    report "lineinfo/in_bounds_and_resources" $? $T/li.log
    rm -rf $T/lidump; mkdir -p $T/lidump
    TL_CACHE_DIR=$T/licache TL_DUMP_DIR=$T/lidump timeout 120 build/tests/lineinfo_test tests/data/oob_store.tl --in-bounds > $T/li2.log 2>&1
    cubin=$(ls $T/lidump/*.cubin 2>/dev/null | head -1)
    if command -v nvdisasm > /dev/null && [ -n "$cubin" ]; then
        nvdisasm -g "$cubin" > $T/li.sass 2>&1
        grep -q 'File ".*oob_store.tl", line 10' $T/li.sass
        report "lineinfo/cubin_line_table" $? $T/li.sass
    else
        echo "lineinfo: no nvdisasm or no dumped cubin ($(ls $T/lidump)); line table not checked" >> $T/li2.log
        report "lineinfo/cubin_line_table" 1 $T/li2.log
    fi
    if command -v compute-sanitizer > /dev/null; then
        TL_CACHE_DIR=$T/licache timeout 300 compute-sanitizer --tool memcheck \
            build/tests/lineinfo_test tests/data/oob_store.tl > $T/li3.log 2>&1
        grep -q "Invalid __global__ write" $T/li3.log && grep -q "oob_store.tl:10" $T/li3.log
        report "lineinfo/sanitizer_names_the_line" $? $T/li3.log
    fi
fi
# Block pointers and tensor descriptors (host descriptors' CUtensorMaps too).
if want desc/; then
    timeout 600 build/tests/desc_test > $T/desc.log 2>&1
    rc=$?
    count_lines $T/desc.log desc
    [ $rc -gt 1 ] && report "desc/exit ($rc)" 1 $T/desc.log
    grep -m1 "^device:" $T/desc.log | grep -qv "cpu" || report "desc/ran on the GPU" 1 $T/desc.log
fi
# TMA: host-descriptor matmuls at ragged sizes, fp16 / bf16, 2-4 stages; on
# a Hopper their PTX must use bulk tensor copies; then their time next to the
# same matmul through pointer loads (TL_TMA_TIMING=0 skips it).
if want tma/; then
    timeout 600 build/tests/tma_test > $T/tma.log 2>&1
    rc=$?
    count_lines $T/tma.log tma
    [ $rc -gt 1 ] && report "tma/exit ($rc)" 1 $T/tma.log
    grep -A6 "^size " $T/tma.log
fi
# The generator's random kernels (tests/gen.sh) and its regression kernels on
# the GPU, each checked against the interpreter and kgen's own evaluation.
if want gen/; then
    timeout 900 build/tests/kgen --gpu --seed 1 --count ${GEN_COUNT:-300} --out $T/kgen-fail-gpu > $T/gen_gpu.log 2>&1
    rc=$?
    count_lines $T/gen_gpu.log gen
    [ $rc -gt 1 ] && report "gen/gpu exit ($rc)" 1 $T/gen_gpu.log
    grep -m1 "^device:" $T/gen_gpu.log | grep -qv "cpu" || report "gen/ran on the GPU" 1 $T/gen_gpu.log
    timeout 600 build/tests/kgen --gpu --file tests/gen/*.tl > $T/gen_gpu_files.log 2>&1
    rc=$?
    count_lines $T/gen_gpu_files.log gen
    [ $rc -gt 1 ] && report "gen/gpu files exit ($rc)" 1 $T/gen_gpu_files.log
fi
for ex in copy grayscale swizzle matmul interop tutorials; do
    run_example $ex
    want "example/$ex" || continue # not run: no log to read
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
# Ahead-of-time C (tlc --emit=c, written by 'make gpu-prep' into build/aot):
# compiled here with cc, launched through the generated launchers only.
if [ -d build/aot ] && want aot/; then
    cc -std=gnu11 -O2 -Wall -Wextra -Werror -Iexamples -Iruntime -Ibuild/aot -o $T/aot_gpu tests/aot/gpu.c \
        build/aot/copy.c build/aot/scalars.c build/aot/mm.c -Lbuild/lib -ltl -ldl -lpthread -lm \
        -Wl,-rpath,$PWD/build/lib > $T/aot_gpu.log 2>&1
    report "aot/gpu build (cc)" $? $T/aot_gpu.log
    if [ -x $T/aot_gpu ]; then
        timeout 300 $T/aot_gpu >> $T/aot_gpu.log 2>&1
        rc=$?
        count_lines $T/aot_gpu.log aot/gpu
        [ $rc -gt 1 ] && report "aot/gpu (exit $rc)" 1 $T/aot_gpu.log
    fi
    # tlc runs here too (LLVM is inside libtl.so): --emit=cubin through ptxas
    # if there is one, else the driver's linker, for this GPU's arch and another;
    # then the copy AOT file with cubins instead of PTX, on the GPU.
    if [ -x build/bin/tlc ]; then
        for arch in sm_90 sm_80; do
            log=$T/aot_cubin_$arch.log
            build/bin/tlc --emit=cubin examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024" --arch $arch \
                -o $T/aot_copy_$arch.cubin > $log 2>&1
            rc=$?
            [ $rc = 0 ] && [ "$(head -c 4 $T/aot_copy_$arch.cubin | od -An -tx1 | tr -d ' ')" = 7f454c46 ]
            report "aot/emit_cubin_$arch (an ELF file)" $? $log
        done
        mkdir -p $T/aot_cubin && cp build/aot/scalars.* build/aot/mm.* $T/aot_cubin/
        log=$T/aot_gpu_cubin.log
        build/bin/tlc --emit=c --embed=cubin examples/copy.tl --signature "*fp32, *fp32, i32, 1024" \
            --arch sm_80,sm_90 -o $T/aot_cubin/copy.c > $log 2>&1 &&
            cc -std=gnu11 -O2 -Wall -Wextra -Werror -Iexamples -Iruntime -I$T/aot_cubin -o $T/aot_gpu_cubin \
                tests/aot/gpu.c $T/aot_cubin/*.c -Lbuild/lib -ltl -ldl -lpthread -lm -Wl,-rpath,$PWD/build/lib >> $log 2>&1
        report "aot/gpu_cubin build" $? $log
        if [ -x $T/aot_gpu_cubin ]; then
            timeout 300 $T/aot_gpu_cubin > $T/aot_gpu_cubin_run.log 2>&1
            rc=$?
            count_lines $T/aot_gpu_cubin_run.log aot/gpu_cubin
            [ $rc -gt 1 ] && report "aot/gpu_cubin (exit $rc)" 1 $T/aot_gpu_cubin_run.log
        fi
    fi
elif want aot/; then
    echo "(AOT checks skipped: run 'make gpu-prep' before carrying build/ here)"
fi
build/examples/grayscale tests/data/rgb_203x137.png $T/grey.png > $T/grey_png.log 2>&1
grep -q "rgb_203x137.png (203x137) *\.\.\. OK" $T/grey_png.log
report "example/grayscale-png" $? $T/grey_png.log
# TL_DUMP on the GPU: every stage, down to the PTX and the driver's cubin.
rm -rf $T/dump && mkdir -p $T/dump
TL_ALWAYS_COMPILE=1 TL_DUMP=1 TL_DUMP_DIR=$T/dump build/examples/copy > $T/dump.log 2>&1
ls $T/dump >> $T/dump.log
ok=0
for ext in ast ir ir-gpu ll ptx cubin; do ls $T/dump/copy_k-*.$ext > /dev/null 2>&1 || ok=1; done
grep -qs "ld.global.v4" $T/dump/copy_k-*.ptx || ok=1
report "gpu/tl_dump_all_stages" $ok $T/dump.log
# A second run of an example loads every kernel from the disk cache (the
# first may be the example/ part's, or this one when ONLY leaves that out).
build/examples/copy > /dev/null 2>&1
TL_PRINT_CACHE=1 build/examples/copy > $T/warm.log 2>&1
grep -q "tl cache: hit" $T/warm.log && ! grep -q "tl cache: miss" $T/warm.log
report "cache/second-run-all-hits" $? $T/warm.log
finish
