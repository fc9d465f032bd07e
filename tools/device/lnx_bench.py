"""lnx_bench.py DIR: Liger-Kernel's layer_norm forward kernel (bf16 8192 x 4096, one program a row, 8 warps) in the
PTX variants DIR/*.ptx (tlc's, the W and B loads moved after the statistics, .maxnreg caps: occupancy against
spills), launched through CuPy, each checked against numpy, then timed: CUDA events over 200 launches, best of 5,
beside a device copy of the same bytes. Parameters: Y, Y stride, X, X stride, W, B, Mean, RSTD, n_cols, eps."""
import glob, os, re, sys
import cupy as cp, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cptime import best_us
M, N = 8192, 4096
rng = np.random.default_rng(0)
xf = rng.standard_normal((M, N)).astype(np.float32)
wf = rng.random(N).astype(np.float32); bf = rng.random(N).astype(np.float32)
def bf16(a):  # float32 -> bf16 bits (round to nearest even), as uint16
    u = a.view(np.uint32).astype(np.uint64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)
def unbf16(h): return (h.astype(np.uint32) << 16).view(np.float32)
xh, wh, bh = bf16(xf), bf16(wf), bf16(bf)
x64 = unbf16(xh).astype(np.float64); mu = x64.mean(1, keepdims=True)
rs = 1 / np.sqrt(((x64 - mu) ** 2).mean(1, keepdims=True) + 1e-6)
ref = (x64 - mu) * rs * unbf16(wh) + unbf16(bh)
X, W, B = cp.asarray(xh), cp.asarray(wh), cp.asarray(bh)
Z = cp.empty_like(X)
c = best_us(lambda: cp.copyto(Z, X))
print(f"copy {X.nbytes >> 20} MiB: {c:.1f} us, {2 * X.nbytes / c / 1e6:.2f} TB/s")
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.ptx"))):
    text = open(path).read()
    name = re.search(r"\.entry (\w+)", text).group(1)
    threads = int(re.search(r"\.maxntid (\d+)", text).group(1))
    m = re.search(r"tl\.shared_bytes \S+ (\d+)", text); smem = int(m.group(1)) if m else 0
    mod = cp.RawModule(path=path); fn = mod.get_function(name)
    Y = cp.zeros_like(X); Mean = cp.zeros(M, cp.uint16); Rstd = cp.zeros(M, cp.uint16)
    args = (Y, np.int32(N), X, np.int32(N), W, B, Mean, Rstd, np.int32(N), np.float32(1e-6))
    go = lambda: fn((M,), (threads,), args, shared_mem=smem)
    go(); cp.cuda.runtime.deviceSynchronize()
    err = np.abs(unbf16(cp.asnumpy(Y)).astype(np.float64) - ref).max()
    merr = np.abs(unbf16(cp.asnumpy(Mean)) - mu[:, 0]).max()
    t = best_us(go)
    print(f"{os.path.basename(path)[:-4]:10s} regs {fn.num_regs:3d} local {fn.local_size_bytes:3d}: {t:.1f} us, "
          f"{2 * X.nbytes / t / 1e6:.2f} TB/s ({t / c:.2f} x copy time), max err y {err:.3g} mean {merr:.3g}", flush=True)
