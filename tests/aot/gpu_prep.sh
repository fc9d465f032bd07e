#!/bin/bash
# gpu_prep.sh: the ahead-of-time C files tests/gpu.sh compiles and runs on a
# GPU machine (which has cc but no LLVM): made here by 'make gpu-prep'.
#
#   bash tests/aot/gpu_prep.sh DIR
cd "$(dirname "$0")/../.." || exit 2
D=${1:?usage: gpu_prep.sh DIR} TLC=${TLC:-build/bin/tlc}
rm -rf "$D" && mkdir -p "$D" || exit 1
set -e
# copy for two archs (the launcher picks sm_90's on an H100/H200) in every specialisation
$TLC --emit=c examples/copy.tl --signature "*fp32, *fp32, i32, 1024" --arch sm_80,sm_90 -o $D/copy.c
$TLC --emit=c tests/aot/scalars.tl --signature "*fp64, i1, i8, i16, i32, i64, u32, fp16, bf16, fp32, fp64" \
    -o $D/scalars.c
# more than 48 KiB of dynamic shared memory
$TLC --emit=c examples/matmul_fwd.tl --num-warps 8 -o $D/mm.c \
    --signature "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 128, 8, 'relu'"
echo "$(ls $D/*.c | wc -l) AOT sources in $D"
