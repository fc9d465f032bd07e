"""t08_ptx.py DIR: tutorial 08's grouped_matmul_kernel (4 x 4096^3 fp16, the 128 x 128 x 64 4-warp 3-stage config,
NUM_SM 132) in the PTX variants DIR/*.ptx, launched through CuPy on the same arrays, each checked against cuBLAS,
then timed in turns: CUDA events over 20 launches, ROUNDS (8) turns, each in another order (the GPU slows the longer
it runs: read the medians). Triton's kernel takes two more pointers (its scratch buffers), passed as 0. Parameters:
the A, B, C pointer arrays, the [g, 3] sizes (M, N, K) and leading dimensions, g.
The variants: `ROWS=t08 session.sh prof` leaves both compilers' PTX in prof.tgz (tl's in dump/, from TL_DUMP_DIR;
Triton's in tc/, its cache); copy the 8-wgmma kernels (K=64) into an ignored folder such as carry/t08, edit copies
by hand, and carry the folder."""
import glob, os, re, sys
import cupy as cp, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cptime import best_us
G, S, NUM_SM, SMEM = 4, 4096, 132, 98304
cp.random.seed(0)
A = [cp.random.standard_normal((S, S), dtype=cp.float32).astype(cp.float16) for _ in range(G)]
B = [cp.random.standard_normal((S, S), dtype=cp.float32).astype(cp.float16) for _ in range(G)]
C = [cp.empty((S, S), dtype=cp.float16) for _ in range(G)]
ref = [cp.matmul(a, b) for a, b in zip(A, B)]
ptrs = lambda xs: cp.asarray([x.data.ptr for x in xs], dtype=cp.int64)
pa, pb, pc = ptrs(A), ptrs(B), ptrs(C)
sizes = cp.asarray([[S, S, S]] * G, dtype=cp.int32)
lds = cp.asarray([[S, S, S]] * G, dtype=cp.int32)
flops = G * 2 * S ** 3
kernels = []
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.ptx"))):
    text = open(path).read()
    name = re.search(r"\.entry (\w+)", text).group(1)
    nparams = len(re.findall(r"\.param ", text.split(".entry", 1)[1].split(")", 1)[0]))
    fn = cp.RawModule(path=path).get_function(name)
    fn.max_dynamic_shared_size_bytes = SMEM
    args = (pa, pb, pc, sizes, lds, np.int32(G)) + (np.uint64(0),) * (nparams - 6)
    go = (lambda f, a: lambda: f((NUM_SM,), (128,), a, shared_mem=SMEM))(fn, args)
    for c in C:
        c.fill(0)
    go(); cp.cuda.runtime.deviceSynchronize()
    err = max(float(cp.abs(c.astype(cp.float32) - r.astype(cp.float32)).max()) for c, r in zip(C, ref))
    kernels.append((os.path.basename(path)[:-4], fn, go, err))
# the variants in turns, each turn in another order (a GPU that heats up slows whatever runs last)
ROUNDS = int(os.environ.get("ROUNDS", "8"))
times = {k[0]: [] for k in kernels}
for r in range(ROUNDS):
    order = kernels[r % len(kernels):] + kernels[:r % len(kernels)]
    for name, fn, go, err in (order if r % 2 == 0 else order[::-1]):
        times[name].append(best_us(go, launches=20, rounds=1))
for name, fn, go, err in kernels:
    t = sorted(times[name])
    print(f"{name:18s} regs {fn.num_regs:3d} local {fn.local_size_bytes:3d}: best {t[0]:8.1f} us, median "
          f"{t[len(t) // 2]:8.1f}, {flops / t[0] / 1e6:6.1f} TFLOP/s best, max err {err:.3g}", flush=True)
