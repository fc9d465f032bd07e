"""launch_host.py triton|tl [profile]: the host time of a launch through Triton's launcher or (tl) the shim over
libtl, on small problems where it is what a call costs: tutorial 01's add (one launch, a grid lambda), tutorial 05's
layer norm forward and backward (fp16 64 x 1024: the backward's two launches and torch's sum), Liger's rms_norm
backward (bf16 64 x 1024), each the median over 2000 calls of the enqueue time (no synchronisation; the GPU keeps
up). `profile`: cProfile's top functions over the add calls. Needs tools/conformance/tutorials and liger."""
import statistics, sys, time
import devenv
mode = devenv.setup()
import torch
from samesrc_bench import load
t01 = load("01-vector-add.py")
t05 = load("05-layer-norm.py")
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
torch.manual_seed(0)
x = torch.rand(4096, device="cuda"); y = torch.rand(4096, device="cuda"); out = torch.empty_like(x)
xs = torch.randn(64, 1024, device="cuda", dtype=torch.float16, requires_grad=True)
w = torch.rand(1024, device="cuda", dtype=torch.float16, requires_grad=True)
b = torch.rand(1024, device="cuda", dtype=torch.float16, requires_grad=True)
yl = t05.layer_norm(xs, (1024,), w, b, 1e-5); dy = torch.randn_like(yl)
xr = torch.randn(64, 1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
wr = torch.rand(1024, device="cuda", dtype=torch.bfloat16, requires_grad=True)
yr = LigerRMSNormFunction.apply(xr, wr, 1e-6); dyr = torch.randn_like(yr)
grid = lambda meta: (triton_cdiv(4096, meta["BLOCK_SIZE"]), )
triton_cdiv = lambda a, b: (a + b - 1) // b
rows = [("t01 add()", lambda: t01.add(x, y)),
        ("t01 kernel[grid]", lambda: t01.add_kernel[grid](x, y, out, 4096, BLOCK_SIZE=1024)),
        ("t05 fwd", lambda: t05.layer_norm(xs, (1024,), w, b, 1e-5)),
        ("t05 bwd", lambda: yl.backward(dy, retain_graph=True)),
        ("rms bwd", lambda: yr.backward(dyr, retain_graph=True))]
for name, fn in rows:
    for _ in range(20):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(2000):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        if len(ts) % 200 == 0:
            torch.cuda.synchronize()
    torch.cuda.synchronize()
    print(f"{mode} {name:18s} {statistics.median(ts) * 1e6:7.1f} us", flush=True)
if len(sys.argv) > 2:
    import cProfile, pstats
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(2000):
        t01.add_kernel[grid](x, y, out, 4096, BLOCK_SIZE=1024)
        yr.backward(dyr, retain_graph=True)
    pr.disable()
    torch.cuda.synchronize()
    pstats.Stats(pr).sort_stats("tottime").print_stats(18)
from samesrc_bench import note_unguarded
note_unguarded()
