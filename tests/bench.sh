#!/bin/bash
# tests/bench.sh (make bench): tl-bench, then the reference numbers from
# cuBLAS and Triton (shared/bench/anchor_bench.py) in the same command, so
# every ratio is taken side by side on one machine.
# BENCH="tl anchor attn samesrc liger" picks its parts (default: all), so that
# one device command's time limit can take them in turns; samesrc_bench.py
# takes ONLY= (a regex of row names) and BUDGET= (seconds) too.
cd "$(dirname "$0")/.." || exit 2
BENCH=${BENCH:-tl anchor attn samesrc liger}
for p in $BENCH; do
    case " tl anchor attn samesrc liger " in *" $p "*) ;; *) echo "bench: BENCH part '$p' is none of: tl anchor attn samesrc liger"; exit 2 ;; esac
done
part() { case " $BENCH " in *" $1 "*) return 0 ;; esac; return 1; }
part tl && { [ -x build/bin/tl-bench ] || { echo "bench: build/ is missing: run make first"; exit 2; }; }
if [ -z "$TL_CUBLAS" ]; then
    TL_CUBLAS=$(find /usr/local/cuda*/lib64 /opt /usr/lib /usr/local/lib -name 'libcublas.so*' 2>/dev/null | grep -v Lt | head -1)
    export TL_CUBLAS
    [ -n "$TL_CUBLAS" ] && export LD_LIBRARY_PATH=$(dirname "$TL_CUBLAS")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
date -u
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader 2>/dev/null
# One row per measurement for tools/plot_bench.sh (run where the CSV comes back).
export TL_BENCH_CSV=${TL_BENCH_CSV:-build/bench.csv}
part tl && build/bin/tl-bench "$@"
part anchor && for anchor in shared/bench/anchor_bench.py ../shared/bench/anchor_bench.py carry/anchor_bench.py; do
    if [ -f "$anchor" ]; then
        echo "== $anchor"
        PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d) python3 "$anchor"
        break
    fi
done
# Triton's own tutorial 06 (attention forward and backward) beside tl-bench's attention
# rows, where the checkout carries upstream's 06-fused-attention.py as
# carry/t06_fused_attention.py (tools/attn_anchor.py)
if part attn && [ -f carry/t06_fused_attention.py ]; then
    echo "== tools/attn_anchor.py"
    PYTHONUNBUFFERED=1 TRITON_CACHE_DIR=$(mktemp -d) python3 tools/attn_anchor.py carry
fi
# The same source on both compilers: a benchmark script run once with Triton
# and once with every launch compiled and run by tl (TL_SHIM=1), then the table
# of tl / Triton per row (samesrc_bench.py compare) into build/NAME.txt.
# ROUNDS=N runs the two processes N times in turn (Triton, tl, Triton, ...)
# and compares each compiler's best: one pass's spread (a GPU's clocks as it
# warms, the host's speed) was up to 8%, more than the gaps being measured.
# AB=1 runs one process with both compilers in turns instead (the script's
# `ab` mode, ROUNDS turns each, default 3): the host-bound rows (Python's
# launch path and autograd over ~100 us of GPU work a call) moved by up to 2x
# between two processes, by 6-44% between turns of one.
same_source() { # script name
    local d r a="" b=""
    d=$(mktemp -d)
    if [ -n "$AB" ]; then
        PYTHONUNBUFFERED=1 PYTHONPATH=tools/conformance/pylib TRITON_CACHE_DIR=$d/tc TL_CACHE_DIR=$d/tlc \
            python3 "tools/conformance/$1" ab $d | tee $d/out
        sed -n '/^row /,$p' $d/out > "build/$2.txt"
        return
    fi
    for r in $(seq 1 "${ROUNDS:-1}"); do
        PYTHONUNBUFFERED=1 PYTHONPATH=tools/conformance/pylib TRITON_CACHE_DIR=$d/tc \
            python3 "tools/conformance/$1" triton $d/triton$r.json
        PYTHONUNBUFFERED=1 PYTHONPATH=tools/conformance/pylib TL_SHIM=1 TL_CACHE_DIR=$d/tlc \
            python3 "tools/conformance/$1" tl $d/tl$r.json
        a+="${a:+,}$d/triton$r.json" b+="${b:+,}$d/tl$r.json"
    done
    python3 tools/conformance/samesrc_bench.py compare "$a" "$b" | tee "build/$2.txt"
}
# Upstream's tutorial files (extracted into tools/conformance/tutorials by
# tools/conformance/extract_suite.sh, never committed) through their own host code.
if part samesrc && [ -f tools/conformance/tutorials/MANIFEST ]; then
    echo "== same source (tools/conformance/samesrc_bench.py)"
    same_source samesrc_bench.py samesrc
fi
# LLM-training kernels: Liger-Kernel's ops (extracted into tools/conformance/liger
# by tools/conformance/extract_liger.sh, never committed).
if part liger && [ -f tools/conformance/liger/MANIFEST ]; then
    echo "== same source, Liger-Kernel (tools/conformance/liger_bench.py)"
    same_source liger_bench.py liger
fi
