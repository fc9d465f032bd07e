#!/bin/sh
# tools/sanitize.sh: compute-sanitizer's memcheck and racecheck over the
# pipelined matmul kernels (cp.async rings, wgmma on sm_90a, mma.sync with
# --arch sm_80, num_stages 1 to 4) and attention, on the GPU machine from a
# carried build.
# Small ragged shapes only: every launch under the sanitizer is slow.
set -u
cs=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$cs" > /dev/null || { echo "sanitize: compute-sanitizer not found" >&2; exit 2; }
export LD_LIBRARY_PATH=build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail=0
# each case: the example binary, then the part of a case name it runs
# (tutorials: tutorial 03 as written through TMA and a producer warpgroup,
# tutorial 06's attention on wgmma with Q staged in shared memory and P from
# registers, warp-specialised too: the name matches those configs as well;
# its backward, four wgmmas reading two rings twice each, causal and not)
for tool in memcheck racecheck; do
    for c in "matmul:tutorial fp16 300x200x128" "matmul:puzzle fp32 37x42x73" "matmul:block_ptr fp16 257x131x67" \
             "matmul:descriptor (from the host) fp16 257x131x67" "matmul:persistent flattened fp16 300x200x160" \
             "tutorials:03 matmul_kernel fp16 257x131x67" "tutorials:06 _attn_fwd Z=1 H=2 N_CTX=384 HEAD_DIM=128" \
             "tutorials:06 _attn_bwd Z=1 H=2 N_CTX=384 HEAD_DIM=64"; do
        bin=build/examples/${c%%:*} only=${c#*:}
        log=$(mktemp)
        EX_ONLY=$only "$cs" --tool $tool --error-exitcode 3 "$bin" > "$log" 2>&1
        rc=$?
        n=$(grep -c '\.\.\. OK' "$log")
        summary=$(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)
        if [ $rc = 0 ] && [ "$n" -gt 0 ]; then
            echo "[PASS] $tool: $only ($n cases; $summary)"
        else
            echo "[FAIL] $tool: $only (exit $rc, $n cases OK)"; tail -30 "$log"; fail=1
        fi
        rm -f "$log"
    done
done
exit $fail
