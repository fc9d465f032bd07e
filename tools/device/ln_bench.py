"""ln_bench.py DIR: the layer-norm forward kernels DIR/v*.ptx (tools/device/session.sh prep writes them: the
tutorial as tl compiles it, v0, and the hand variants of ln_variants.tl) at 4096 x 8192 fp16, one program a row,
launched through CuPy, each checked against numpy (y and the row means), then timed: CUDA events over 200
launches, the best of 5, beside a device-to-device copy of the same 64 MiB."""
import glob, os, re, sys
import cupy as cp, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cptime import best_us
D = sys.argv[1]
M, N = 4096, 8192
rng = np.random.default_rng(0)
xh = (-2.3 + 0.5 * rng.standard_normal((M, N))).astype(np.float16)
wh = rng.random(N).astype(np.float16); bh = rng.random(N).astype(np.float16)
X, W, B = cp.asarray(xh), cp.asarray(wh), cp.asarray(bh)
xf = xh.astype(np.float64); mu = xf.mean(1, keepdims=True); sd = np.sqrt(((xf - mu) ** 2).mean(1, keepdims=True) + 1e-5)
ref = (xf - mu) / sd * wh.astype(np.float64) + bh.astype(np.float64)

Z = cp.empty_like(X)
c = best_us(lambda: cp.copyto(Z, X))
print(f"copy 64 MiB: {c:.1f} us, {2 * X.nbytes / c / 1e6:.2f} TB/s")
for path in sorted(glob.glob(os.path.join(D, "v*.ptx"))):
    name = os.path.basename(path)[:-4]
    text = open(path).read()
    threads = int(re.search(r"\.maxntid (\d+)", text).group(1))
    m = re.search(r"tl\.shared_bytes \S+ (\d+)", text); smem = int(m.group(1)) if m else 0
    fn = cp.RawModule(path=path).get_function(name)
    Y = cp.zeros_like(X); Mean = cp.zeros(M, cp.float32); Rstd = cp.zeros(M, cp.float32)
    args = (X, Y, W, B, Mean, Rstd, np.int32(N), np.int32(N), np.float32(1e-5))
    go = lambda: fn((M,), (threads,), args, shared_mem=smem)
    go(); cp.cuda.runtime.deviceSynchronize()
    err = np.abs(cp.asnumpy(Y).astype(np.float64) - ref).max()
    merr = np.abs(cp.asnumpy(Mean) - mu[:, 0]).max()
    t = best_us(go)
    print(f"{name}: {t:.1f} us, {2 * X.nbytes / t / 1e6:.2f} TB/s ({t / c:.2f} x copy time), max err y {err:.3g} mean {merr:.3g}")
