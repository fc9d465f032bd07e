#!/bin/bash
# examples/demo.sh: run every example program (make demo). Each prints one
# line per case, "name ... OK" or "FAIL"; the script fails if any does.
cd "$(dirname "$0")/.." || exit 1
status=0
for ex in copy grayscale swizzle matmul interop tutorials; do
    echo "== $ex"
    build/examples/$ex || status=1
done
exit $status
