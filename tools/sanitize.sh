#!/bin/sh
# tools/sanitize.sh: compute-sanitizer's memcheck and racecheck over the
# pipelined matmul kernels (cp.async rings, wgmma on sm_90a, mma.sync with
# --arch sm_80, num_stages 1 to 4), on the GPU machine from a carried build.
# Small ragged shapes only: every launch under the sanitizer is slow.
set -u
cs=${COMPUTE_SANITIZER:-compute-sanitizer}
command -v "$cs" > /dev/null || { echo "sanitize: compute-sanitizer not found" >&2; exit 2; }
bin=build/examples/matmul
export LD_LIBRARY_PATH=build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fail=0
for tool in memcheck racecheck; do
    for only in "tutorial fp16 300x200x128" "puzzle fp32 37x42x73" "block_ptr fp16 257x131x67" \
                "descriptor (from the host) fp16 257x131x67" "persistent flattened fp16 300x200x160"; do
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
