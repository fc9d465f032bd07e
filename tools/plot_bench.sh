#!/bin/bash
# tools/plot_bench.sh CSV PNG: TFLOP/s against matrix size from tl-bench's CSV
# ($TL_BENCH_CSV), like triton.testing.perf_report: tl and cuBLAS for the
# tutorial kernel in fp16, bf16 and tf32, and the fp32 puzzle kernel. Needs gnuplot
# (Debian: gnuplot-nox); run it where the CSV came back to, not on the GPU.
set -e
csv=$1 png=$2
[ -f "$csv" ] && [ -n "$png" ] || { echo "usage: tools/plot_bench.sh BENCH.csv OUT.png" >&2; exit 2; }
command -v gnuplot > /dev/null || { echo "plot_bench: gnuplot is not installed (apt-get install gnuplot-nox)" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# One data file per series: size, tl, cuBLAS (square sizes only).
for s in "tutorial fp16" "tutorial bf16" "tutorial tf32" "puzzle fp32"; do
    set -- $s
    awk -F, -v k="$1" -v d="$2" '$1 == "matmul" && $2 == k && $3 == d && $4 == $5 && $5 == $6 && !seen[$4]++ { print $4, $7, $8 }' \
        "$csv" | sort -n > "$tmp/$1_$2.dat"
done
gnuplot <<GP
set terminal pngcairo size 900,560 noenhanced font ",10"
set output "$png"
set title "matmul, M = N = K (tl-bench, one run)"
set xlabel "size"
set ylabel "TFLOP/s"
set logscale x 2
set key top left
set grid
plot "$tmp/tutorial_fp16.dat" using 1:2 with linespoints title "tl fp16", \
     "$tmp/tutorial_fp16.dat" using 1:3 with linespoints dashtype 2 title "cuBLAS fp16", \
     "$tmp/tutorial_bf16.dat" using 1:2 with linespoints title "tl bf16", \
     "$tmp/tutorial_bf16.dat" using 1:3 with linespoints dashtype 2 title "cuBLAS bf16", \
     "$tmp/tutorial_tf32.dat" using 1:2 with linespoints title "tl tf32", \
     "$tmp/tutorial_tf32.dat" using 1:3 with linespoints dashtype 2 title "cuBLAS tf32", \
     "$tmp/puzzle_fp32.dat" using 1:2 with linespoints title "tl fp32 (IEEE)", \
     "$tmp/puzzle_fp32.dat" using 1:3 with linespoints dashtype 2 title "cuBLAS fp32 (TF32 off)"
GP
echo "wrote $png"
