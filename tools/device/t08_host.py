"""t08_host.py triton|tl: where tutorial 08's group row (its group_gemm_fn on the tutorial's group, 1024^3 .. 128^3)
spends a call's host time, with Triton or (tl) every launch through libtl: the whole call, its five
torch.tensor(list, device=) copies alone, and the kernel's launch alone (arguments made once), each the median
of 200 calls, synchronised after each (as the bench's turns are) and not (enqueue only).
Needs tools/conformance/tutorials."""
import statistics, sys, time
import devenv
mode = devenv.setup()
import torch
from samesrc_bench import load
t08 = load("08-grouped-gemm.py")
torch.manual_seed(0)
sizes = [1024, 512, 256, 128]
A = [torch.rand((n, n), device="cuda", dtype=torch.float16) for n in sizes]
B = [torch.rand((n, n), device="cuda", dtype=torch.float16) for n in sizes]
for _ in range(3):
    t08.group_gemm_fn(A, B)
torch.cuda.synchronize()
addrs = [torch.tensor([x.data_ptr() for x in xs], device="cuda") for xs in (A, B, A)]
meta = torch.tensor([s for n in sizes for s in (n, n, n)], dtype=torch.int32, device="cuda")
grid = lambda META: (META['NUM_SM'], )
launch = lambda: t08.grouped_matmul_kernel[grid](addrs[0], addrs[1], addrs[2], meta, meta, 4)
copies = lambda: [torch.tensor(v, device="cuda") for v in ([1, 2, 3, 4], [5, 6, 7, 8], [9, 1, 2, 3], [4] * 12, [5] * 12)]
whole = lambda: t08.group_gemm_fn(A, B)


def med(fn, sync):
    ts = []
    for _ in range(200):
        t0 = time.perf_counter()
        fn()
        if sync:
            torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    return statistics.median(ts) * 1e6


for name, fn in (("whole", whole), ("copies", copies), ("launch", launch)):
    print(f"{mode} {name:7s} synced {med(fn, True):8.1f} us   enqueue {med(fn, False):8.1f} us", flush=True)
    torch.cuda.synchronize()
from samesrc_bench import note_unguarded
note_unguarded()
