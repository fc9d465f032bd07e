#!/bin/bash
# gpu_ptx.sh: write the PTX that tests/codegen/gpu_check.py launches.
#
#   bash tests/codegen/gpu_ptx.sh DIR [ARCH]      (ARCH: sm_90 by default)
#
# DIR gets the hand-laid-out kernels (tests/codegen/tir/*.tir through tlc --ir-in), the
# examples compiled with the example programs' signatures, and the numeric
# .tl kernels of tests/codegen. Then, where a GPU and CuPy are:
#   python3 tests/codegen/gpu_check.py DIR
cd "$(dirname "$0")/../.." || exit 2
D=${1:?usage: gpu_ptx.sh DIR [ARCH]} A=${2:-sm_90} TLC=${TLC:-build/bin/tlc}
mkdir -p "$D"
for f in tests/codegen/tir/*.tir; do
    $TLC --ir-in "$f" --emit=ptx --arch $A -o $D/$(basename "$f" .tir).ptx || exit 1
done
mm16='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
mm32='*fp32:16, *fp32:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1'
t() { local out=$1 f=$2; shift 2; $TLC "$f" "$@" --arch $A -o $D/$out.ptx || exit 1; }
t ex_copy16 examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024"
t ex_copy1 examples/copy.tl --signature "*fp32, *fp32, i32, 1024"
t ex_copy_i64 examples/copy.tl --signature "*i64, *i64, i32, 2"
t ex_gray examples/grayscale.tl --signature "*u8:16, *u8:16, i32, i32, 32, 32"
t ex_naive16 examples/matmul_naive.tl --signature "$mm16, 16, 16, 16"
t ex_naive32 examples/matmul_naive.tl --signature "$mm32, 32, 32, 32"
t ex_tutorial examples/matmul_tutorial.tl --autotune-config 4 -D ACTIVATION=None --signature "$mm16"
t ex_fwd examples/matmul_fwd.tl --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, i32, i32:16, 128, 128, 32, 8, 'relu'"
t ex_swizzle examples/swizzle.tl --signature "*i64:16, *i64:16, 3"
for f in softmax dot_reduce shapes; do
    eval "t $f tests/codegen/$f.tl $(sed -n 's/^# RUN(PTX): //p' tests/codegen/$f.tl)"
done
echo "$(ls $D/*.ptx | wc -l) PTX files in $D"
