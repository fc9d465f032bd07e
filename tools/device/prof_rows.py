"""prof_rows.py triton|tl: tutorial 05's layer norm forward and backward (fp16 4096x8192) and Liger's rms_norm and
layer_norm forwards (bf16 8192x4096) and RoPE (q 2x32x4096x128, k 8 heads) through their own host code
(ROWS=t04s,t05,t05b,rms,ln,rope,t08,t08t,t09f8 picks some; t04s: tutorial 04's seeded dropout, fp32 2^26; t08: tutorial 08's
grouped GEMM, 4 x 4096^3 fp16, a negative nbytes counting flops; t08t: its TMA kernel (descriptors made in the
kernel) on the same sizes through triton_tma_perf_fn, T08T_CONFIG="BM,BN,BK,stages,warps" pinning one config; t09f8: tutorial 09's matmul_tma_persistent, fp8e4
8192^3, its autotuning pinned to one config, T09_CONFIG="BN,BK,stages,warps,subtile", default 256,64,4,8,1; t09d:
matmul_descriptor_persistent ws=0 8192^3 in T09D_DTYPE (fp16, or fp8: e4m3 in and out), checked against torch, a
row for each of T09D_CONFIGS, default "128,128,2,8,0"), with
Triton or (tl) every launch through libtl; each row warmed up, then timed over 20 calls by CUDA events. PROF=1: one
call of each between cudaProfilerStart and Stop, for `ncu --profile-from-start off` (tools/device/session.sh prof).
Needs tools/conformance/tutorials and liger (extract_suite.sh, extract_liger.sh) and
PYTHONPATH=tools/conformance/pylib."""
import os, sys
import devenv
mode = devenv.setup()
import torch
from samesrc_bench import load
t05 = load("05-layer-norm.py")
t04 = load("04-low-memory-dropout.py")
t08 = load("08-grouped-gemm.py")
t09 = load("09-persistent-matmul.py")
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
from liger_kernel.ops.rope import LigerRopeFunction
torch.manual_seed(0)
x = -2.3 + 0.5 * torch.randn(4096, 8192, device="cuda", dtype=torch.float16)
w = torch.rand(8192, device="cuda", dtype=torch.float16); b = torch.rand(8192, device="cuda", dtype=torch.float16)
xb = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
wb = torch.rand(4096, device="cuda", dtype=torch.bfloat16); bbf = torch.rand(4096, device="cuda", dtype=torch.bfloat16)
xg = x.clone().requires_grad_(True); wg = w.clone().requires_grad_(True); bg = b.clone().requires_grad_(True)
yg = t05.layer_norm(xg, (8192,), wg, bg, 1e-5); dy = 0.1 * torch.randn_like(yg)
rq = torch.randn(2, 32, 4096, 128, device="cuda", dtype=torch.bfloat16)
rk = torch.randn(2, 8, 4096, 128, device="cuda", dtype=torch.bfloat16)
inv = 1.0 / (10000 ** (torch.arange(0, 128, 2, device="cuda").float() / 128))
emb = torch.outer(torch.arange(4096, device="cuda").float(), inv).repeat(1, 2)
rcos, rsin = emb.cos()[None].to(torch.bfloat16), emb.sin()[None].to(torch.bfloat16)
xd = torch.randn(1 << 26, device="cuda")
g8 = [torch.rand((4096, 4096), device="cuda", dtype=torch.float16) for _ in range(8)]
rows = [("t04s", lambda: t04.seeded_dropout(xd, 0.5, 123), 2 * xd.numel() * 4),
        ("t05", lambda: t05.layer_norm(x, (8192,), w, b, 1e-5), 2 * x.numel() * 2),
        ("t05b", lambda: yg.backward(dy, retain_graph=True), 3 * x.numel() * 2),
        ("rms", lambda: LigerRMSNormFunction.apply(xb, wb, 1e-6), 2 * xb.numel() * 2),
        ("ln", lambda: LigerLayerNormFunction.apply(xb, wb, bbf, 1e-6), 2 * xb.numel() * 2),
        ("rope", lambda: LigerRopeFunction.apply(rq, rk, rcos, rsin), 2 * (rq.numel() + rk.numel()) * 2),
        ("t08", lambda: t08.group_gemm_fn(g8[:4], g8[4:]), -4 * 2 * 4096 ** 3)]
pick = os.environ.get("ROWS", "t05,rms,ln").split(",")


def pinned(at, cfg):
    """The one config of the tutorial's that cfg = "BN,BK,stages,warps,subtile" names, as a list: assigned to the
    autotuner's configs, it leaves one to choose from (then it times nothing)."""
    bn, bk, st, nw, sub = (int(v) for v in cfg.split(","))
    one = [c for c in at.all_configs if (c.kwargs["BLOCK_SIZE_N"], c.kwargs["BLOCK_SIZE_K"], c.num_stages,
                                         c.num_warps, int(c.kwargs["EPILOGUE_SUBTILE"])) == (bn, bk, st, nw, sub)]
    assert len(one) == 1, f"{cfg} names no config of the tutorial's"
    return one


for at in (t09.matmul_kernel_tma_persistent, t09.matmul_kernel_descriptor_persistent):
    at.all_configs = list(at.configs)
if "t09f8" in pick:  # both compilers at one config
    a9 = torch.randn(8192, 8192, device="cuda", dtype=torch.float16).to(torch.float8_e4m3fn)
    b9 = torch.randn(8192, 8192, device="cuda", dtype=torch.float16).to(torch.float8_e4m3fn)
    t09.matmul_kernel_tma_persistent.configs = pinned(t09.matmul_kernel_tma_persistent,
                                                      os.environ.get("T09_CONFIG", "256,64,4,8,1"))
    rows.append(("t09f8", lambda: t09.matmul_tma_persistent(a9, b9, False), -2 * 8192 ** 3))
if "t08t" in pick:  # tutorial 08's TMA kernel, 4 x 4096^3 fp16, as its bench's triton_tma_perf_fn; T08T_CONFIG pins one
    ga, gb = g8[:4], [q.T.contiguous() for q in g8[4:]]
    gc = [torch.empty((4096, 4096), device="cuda", dtype=torch.float16) for _ in range(4)]
    tens = lambda xs: torch.tensor([x.data_ptr() for x in xs], device="cuda")
    mmm = torch.tensor([4096] * 12, dtype=torch.int32, device="cuda")
    import triton
    triton.set_allocator(lambda size, align, stream: torch.empty(size, device="cuda", dtype=torch.int8))
    at8 = t08.grouped_matmul_tma_kernel
    if os.environ.get("T08T_CONFIG"):  # "BM,BN,BK,stages,warps"
        want = tuple(int(v) for v in os.environ["T08T_CONFIG"].split(","))
        at8.configs = [c for c in at8.configs if (c.kwargs["BLOCK_SIZE_M"], c.kwargs["BLOCK_SIZE_N"],
                                                  c.kwargs["BLOCK_SIZE_K"], c.num_stages, c.num_warps) == want]
        assert len(at8.configs) == 1, f"{want} names no config of the tutorial's"
    t08args = (tens(ga), tens(gb), tens(gc), mmm, mmm, 4)
    t08.triton_tma_perf_fn(*t08args, dtype=torch.float16)
    err = max(((c.float() - torch.matmul(a_, b_.T).float()).abs().max().item()) for a_, b_, c in zip(ga, gb, gc))
    assert err < 1.0, f"t08t: max error {err} against torch"
    rows.append(("t08t", lambda: t08.triton_tma_perf_fn(*t08args, dtype=torch.float16), -4 * 2 * 4096 ** 3))
if "t09d" in pick:  # matmul_descriptor_persistent ws=0, T09D_DTYPE (fp16 or fp8), at each of T09D_CONFIGS
    f8 = os.environ.get("T09D_DTYPE", "fp16") == "fp8"
    a16 = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    b16 = torch.randn(8192, 8192, device="cuda", dtype=torch.float16)
    if f8:  # the inputs rounded to e4m3 and the reference from the rounded values; the output is e4m3 too
        a16, b16 = a16.to(torch.float8_e4m3fn), b16.to(torch.float8_e4m3fn)
    ref = torch.matmul(a16.half(), b16.half().T).float()
    if f8:  # the kernels' e4m3 conversion saturates at +-448
        ref = ref.clamp(-448, 448)
    for cfg in os.environ.get("T09D_CONFIGS", "128,128,2,8,0").split():
        def run(one=pinned(t09.matmul_kernel_descriptor_persistent, cfg)):  # the rows share one autotuner
            t09.matmul_kernel_descriptor_persistent.configs = one
            return t09.matmul_descriptor_persistent(a16, b16, False)
        # the error in units of the output's step: e4m3 keeps 3 bits (1/8 of a value), fp16 here steps below 1
        err = ((run().float() - ref).abs() / (ref.abs() / 8 if f8 else 1.0).clamp(min=1.0)).max().item()
        # fp8: Hopper's fp8 wgmma accumulates with fewer bits than fp32 (both compilers read 1.42 at 256,128,3,8,0)
        assert err < (4.0 if f8 else 1.0), f"t09d {cfg}: max error {err} against torch"
        rows.append((f"t09d{'8' if f8 else ''}_{cfg.replace(',', '_')}", run, -2 * 8192 ** 3))
        pick.append(rows[-1][0])
for name, fn, nbytes in rows:
    if name not in pick: continue
    for _ in range(5): fn()
    torch.cuda.synchronize()
    if os.environ.get("PROF"):
        torch.cuda.profiler.start(); fn(); torch.cuda.synchronize(); torch.cuda.profiler.stop()
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(20): fn()
    e1.record(); torch.cuda.synchronize()
    us = e0.elapsed_time(e1) / 20 * 1e3
    rate = f"{-nbytes / us / 1e6:.1f} TFLOP/s" if nbytes < 0 else f"{nbytes / us / 1e3:.0f} GB/s"
    print(f"{mode} {name}: {us:.1f} us a call, {rate}", flush=True)
