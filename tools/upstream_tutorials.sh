#!/bin/sh
# tools/upstream_tutorials.sh DIR: run examples/tutorials.c's checks on Triton's
# own tutorial files, compiled as written. DIR holds upstream's
# python/tutorials/*.py (a Triton checkout's python/tutorials, or a copy).
# tl sets the host code of those files aside and compiles their kernels
# unchanged; the C host program checks every result against its C reference,
# on the GPU when there is one, else on the interpreter. The files are not part
# of this repository: point DIR at a checkout.
set -eu
dir=${1:?usage: tools/upstream_tutorials.sh TRITON/python/tutorials}
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${TUTORIALS_BIN:-$root/build/examples/tutorials}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for pair in 01_vector_add:01-vector-add 02_fused_softmax:02-fused-softmax 03_matmul:03-matrix-multiplication \
            04_low_memory_dropout:04-low-memory-dropout 05_layer_norm:05-layer-norm \
            07_extern_functions:07-extern-functions 09_persistent_matmul:09-persistent-matmul; do
    src=$dir/${pair#*:}.py
    [ -f "$src" ] || { echo "upstream_tutorials: $src: not found" >&2; exit 2; }
    ln -s "$(cd "$(dirname "$src")" && pwd)/$(basename "$src")" "$tmp/tutorial_${pair%%:*}.tl"
done
# Two tutorials' autotune configs ask torch about the GPU, which tl cannot
# evaluate at compile time: 06 filters them with list(filter(keep, configs)),
# keep reading the device capability, and 08 reads the SM count. Their kernels
# run from this repository's files instead.
for ours in 06_fused_attention:06-fused-attention 08_grouped_gemm:08-grouped-gemm; do
    echo "upstream_tutorials: ${ours#*:}.py: its configs ask torch about the GPU; running examples/tutorial_${ours%%:*}.tl instead"
    ln -s "$root/examples/tutorial_${ours%%:*}.tl" "$tmp/tutorial_${ours%%:*}.tl"
done
TL_EXAMPLES_DIR=$tmp "$bin"
