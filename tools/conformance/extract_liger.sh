#!/usr/bin/env bash
# extract_liger.sh GITDIR [COMMIT]: writes Liger-Kernel's Triton ops beside this script, verbatim, for
# liger_bench.py (the same source on both compilers, LLM-training kernels: RMSNorm, LayerNorm, fused add +
# RMSNorm, RoPE, SwiGLU, GeGLU, cross entropy):
#   liger/src/liger_kernel/ops/*.py, liger/src/liger_kernel/utils.py   (src/liger_kernel/... upstream)
#   liger/MANIFEST                                                     commit, and each file's git blob id
# GITDIR: a git directory holding linkedin/Liger-Kernel (`fetch` of github:linkedin/Liger-Kernel gives one).
# COMMIT: default ead96b61 (2026-11, the one measured in docs/performance.md).
# Upstream code: .gitignore keeps liger/ out of git; carry it to the GPU machine with the harness.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ] || [ -z "$1" ]; then
    sed -n '2,9p' "$0" >&2
    exit 2
fi
GITDIR=$1
COMMIT=${2:-ead96b61}
git -C "$GITDIR" cat-file -e "$COMMIT^{commit}" || { echo "no commit $COMMIT in $GITDIR" >&2; exit 2; }
OUT="$HERE/liger"
rm -rf "$OUT.tmp"
mkdir -p "$OUT.tmp/src/liger_kernel/ops"
{
    echo "upstream: linkedin/Liger-Kernel src/liger_kernel"
    echo "commit: $(git -C "$GITDIR" rev-parse "$COMMIT^{commit}")"
} > "$OUT.tmp/MANIFEST"
git -C "$GITDIR" ls-tree "$COMMIT" src/liger_kernel/ops/ src/liger_kernel/utils.py | while read -r mode type blob path; do
    [ "$type" = blob ] || continue
    case "$path" in *.py) ;; *) continue ;; esac
    git -C "$GITDIR" cat-file blob "$blob" > "$OUT.tmp/$path"
    echo "$blob ${path#src/}" >> "$OUT.tmp/MANIFEST"
done
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "liger: $(($(wc -l < "$OUT/MANIFEST") - 2)) files at $COMMIT"
