#!/usr/bin/env python3
"""Same source, two compilers, on LLM-training kernels: Liger-Kernel's own ops (liger/ beside this file, written
verbatim from linkedin/Liger-Kernel by extract_liger.sh, never committed) through their own autograd functions, once
with Triton and once with every launch compiled and run by tl (TL_SHIM=1, pylib/tlshim.py). bf16 at LLM shapes
(8192 tokens, hidden 4096, intermediate 14336, vocab 32000; RoPE 2 x 32/8 heads x 4096 x 128); every row is checked
against torch before it is timed (triton.testing.do_bench, median, L2 cleared), in GB/s of the bytes it must move;
beside it the host's time per call and the GPU's alone (the calls replayed from a CUDA graph; not the backward rows).
usage (GPU machine, from the project root):
  PYTHONPATH=tools/conformance/pylib python3 tools/conformance/liger_bench.py triton A.json
  PYTHONPATH=tools/conformance/pylib TL_SHIM=1 python3 tools/conformance/liger_bench.py tl B.json
  python3 tools/conformance/samesrc_bench.py compare A.json B.json
or, both compilers in one process in turns (`ab`: tlshim.install / uninstall around each compiler's turn; each
row checked on both, then timed ROUNDS times a compiler, alternating, into DIR/triton1.json .. DIR/tlN.json, and
the compare table printed): the host-bound rows (Python's launch path and autograd under ~100 us of GPU work a
call) move by up to 2x between two processes and much less within one:
  PYTHONPATH=tools/conformance/pylib ROUNDS=3 python3 tools/conformance/liger_bench.py ab DIR
Env: ONLY=regex (rows whose name it matches, re.search), as samesrc_bench.py's; ROUNDS=N (ab: turns a compiler,
default 3)."""
import os, re, sys, time, types, traceback
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "liger", "src")
sys.path.insert(0, SRC)
mode, out_path = sys.argv[1], sys.argv[2]
if mode == "tl":
    import tlshim
    tlshim.install()
import torch
from triton.testing import do_bench
# the host's time per call and the GPU's alone (a CUDA graph); mode ab's turns
from samesrc_bench import Turns, ab_rounds, compare, host_and_gpu, note_unguarded, record, run_files, turns
COMPILERS = ("triton", "tl") if mode == "ab" else (mode,)
ROUNDS = ab_rounds() if mode == "ab" else 1
FILES = run_files(out_path, COMPILERS, ROUNDS)
use = Turns().use if mode == "ab" else (lambda c: None)  # before Liger's modules make their autotuners
for name, path in (("liger_kernel", "liger_kernel"), ("liger_kernel.ops", "liger_kernel/ops")):
    m = types.ModuleType(name); m.__path__ = [os.path.join(SRC, path)]; sys.modules[name] = m  # no package __init__
only = os.environ.get("ONLY", "")
torch.manual_seed(0)
dev, bf = "cuda", torch.bfloat16
rows = {c: [[] for _ in range(ROUNDS)] for c in COMPILERS}


def relerr(o, r):
    o, r = o.float(), r.float()
    return ((o - r).norm() / r.norm().clamp_min(1e-30)).item()


def first_call(setup, fn, check):
    """The row's state, first call (compile) and check, under the compiler in use: (state, record)."""
    t0 = time.time()
    state = setup()
    out = fn(state)
    torch.cuda.synchronize()
    first = time.time() - t0
    return state, {"status": "ok", "err": check(state, out), "first_s": first}


def timed(name, r, fn, state, nbytes):
    """r with the row's timing under the compiler in use."""
    ms = do_bench(lambda: fn(state), warmup=25, rep=100, return_mode="median")
    r = dict(r, ms=ms, value=nbytes / (ms * 1e-3) / 1e9, unit="GB/s")
    r.update(host_and_gpu(lambda: fn(state), nbytes, "GB/s", graph=" bwd " not in name))
    print(f"{name:45s} {r['value']:9.1f} GB/s {ms * 1e3:9.1f} us  err {r['err']:.2e}  first {r['first_s']:.1f} s  "
          f"host {r['host_us']:6.1f} us/call  graph {r.get('gpu_value', -1):9.1f}", flush=True)
    return r


def row(name, setup, fn, check, nbytes):
    if only and not re.search(only, name):
        return

    def failed(e):
        print(f"{name:45s} ERROR {type(e).__name__}: {str(e)[:400]}", flush=True)
        traceback.print_exc(limit=2)
        return {"status": "error", "error": f"{type(e).__name__}: {str(e)[:600]}"}
    # each compiler on its own inputs (the state first_call makes): some rows write into theirs
    record(rows, FILES, name, turns(COMPILERS, ROUNDS, use, lambda: first_call(setup, fn, check),
                                    lambda st: timed(name, st[1], fn, st[0], nbytes), failed))
    torch.cuda.empty_cache()


T, H = 8192, 4096
E = T * H * 2  # bytes of one bf16 (T, H) tensor

# RMSNorm (Llama casting), forward and backward
from liger_kernel.ops.rms_norm import LigerRMSNormFunction
def rms_ref(x, w, eps=1e-6):
    xf = x.float(); return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + eps)).to(bf) * w
def rms_setup():
    x = torch.randn(T, H, device=dev, dtype=bf); w = torch.rand(H, device=dev, dtype=bf) + 0.5
    return {"x": x, "w": w}
row("liger rms_norm fwd bf16 8192x4096", rms_setup, lambda s: LigerRMSNormFunction.apply(s["x"], s["w"], 1e-6),
    lambda s, o: relerr(o, rms_ref(s["x"], s["w"])), 2 * E)
def rms_bwd_setup():
    s = rms_setup(); s["x"].requires_grad_(True); s["w"].requires_grad_(True)
    s["y"] = LigerRMSNormFunction.apply(s["x"], s["w"], 1e-6, 0.0, "llama", False)
    s["dy"] = torch.randn_like(s["x"])
    xr = s["x"].detach().clone().requires_grad_(True)
    rms_ref(xr, s["w"].detach()).backward(s["dy"]); s["dx_ref"] = xr.grad
    return s
def rms_bwd(s):
    s["x"].grad = None; s["w"].grad = None; s["y"].backward(s["dy"], retain_graph=True); return s["x"].grad
row("liger rms_norm bwd bf16 8192x4096", rms_bwd_setup, rms_bwd, lambda s, o: relerr(o, s["dx_ref"]), 3 * E)

# LayerNorm, forward and backward
from liger_kernel.ops.layer_norm import LigerLayerNormFunction
def ln_setup():
    x = torch.randn(T, H, device=dev, dtype=bf); w = torch.rand(H, device=dev, dtype=bf); b = torch.rand(H, device=dev, dtype=bf)
    return {"x": x, "w": w, "b": b}
row("liger layer_norm fwd bf16 8192x4096", ln_setup, lambda s: LigerLayerNormFunction.apply(s["x"], s["w"], s["b"], 1e-6),
    lambda s, o: relerr(o, torch.nn.functional.layer_norm(s["x"].float(), (H,), s["w"].float(), s["b"].float(), 1e-6)), 2 * E)
def ln_bwd_setup():
    s = ln_setup()
    for k in ("x", "w", "b"): s[k].requires_grad_(True)
    s["y"] = LigerLayerNormFunction.apply(s["x"], s["w"], s["b"], 1e-6); s["dy"] = torch.randn_like(s["x"])
    xr = s["x"].detach().float().requires_grad_(True)
    torch.nn.functional.layer_norm(xr, (H,), s["w"].detach().float(), s["b"].detach().float(), 1e-6).backward(s["dy"].float())
    s["dx_ref"] = xr.grad
    return s
def ln_bwd(s):
    for k in ("x", "w", "b"): s[k].grad = None
    s["y"].backward(s["dy"], retain_graph=True); return s["x"].grad
row("liger layer_norm bwd bf16 8192x4096", ln_bwd_setup, ln_bwd, lambda s, o: relerr(o, s["dx_ref"]), 3 * E)

# fused add + RMSNorm
from liger_kernel.ops.fused_add_rms_norm import LigerFusedAddRMSNormFunction
def far_setup():
    s = rms_setup(); s["r"] = torch.randn(T, H, device=dev, dtype=bf); return s
row("liger fused_add_rms_norm fwd bf16 8192x4096", far_setup,
    lambda s: LigerFusedAddRMSNormFunction.apply(s["x"], s["r"], s["w"], 1e-6)[0],
    lambda s, o: relerr(o, rms_ref(s["x"] + s["r"], s["w"])), 4 * E)
def far_bwd_setup():
    s = far_setup(); s["x"].requires_grad_(True); s["r"].requires_grad_(True); s["w"].requires_grad_(True)
    y, res = LigerFusedAddRMSNormFunction.apply(s["x"], s["r"], s["w"], 1e-6)
    s["y"] = y; s["dy"] = torch.randn_like(y)
    xr = s["x"].detach().clone().requires_grad_(True)
    rms_ref(xr + s["r"].detach(), s["w"].detach()).backward(s["dy"]); s["dx_ref"] = xr.grad
    return s
def far_bwd(s):
    for k in ("x", "r", "w"): s[k].grad = None
    s["y"].backward(s["dy"], retain_graph=True); return s["x"].grad
row("liger fused_add_rms_norm bwd bf16 8192x4096", far_bwd_setup, far_bwd, lambda s, o: relerr(o, s["dx_ref"]), 4 * E)

# RoPE (HF Llama), q 32 heads, k 8 heads, seq 4096, head_dim 128: Liger rotates q and k in place, so the
# first row times repeated rotations (no check) and the second checks a rotation of copies
from liger_kernel.ops.rope import LigerRopeFunction
B, HQ, HK, S, D = 2, 32, 8, 4096, 128
def rot_half(x):
    x1, x2 = x[..., : D // 2], x[..., D // 2:]; return torch.cat((-x2, x1), dim=-1)
def rope_setup():
    q = torch.randn(B, HQ, S, D, device=dev, dtype=bf); k = torch.randn(B, HK, S, D, device=dev, dtype=bf)
    inv = 1.0 / (10000 ** (torch.arange(0, D, 2, device=dev).float() / D))
    f = torch.outer(torch.arange(S, device=dev).float(), inv); emb = torch.cat((f, f), dim=-1)
    return {"q": q, "k": k, "cos": emb.cos()[None].to(bf), "sin": emb.sin()[None].to(bf)}
def rope_ref(s, q, k):
    c, sn = s["cos"][:, None], s["sin"][:, None]
    return q * c + rot_half(q) * sn, k * c + rot_half(k) * sn
RB = (B * HQ * S * D + B * HK * S * D) * 2 * 2
def rope_fwd(s):
    return LigerRopeFunction.apply(s["q"].clone(), s["k"].clone(), s["cos"], s["sin"])[0]
row("liger rope fwd bf16 q32/k8 x 4096 x 128", rope_setup, lambda s: LigerRopeFunction.apply(s["q"], s["k"], s["cos"], s["sin"])[0],
    lambda s, o: 0.0, RB)
row("liger rope fwd (checked on copies)", rope_setup, rope_fwd,
    lambda s, o: relerr(o, rope_ref(s, s["q"], s["k"])[0]), RB)

# SwiGLU / GeGLU, (8192, 14336)
from liger_kernel.ops.swiglu import LigerSiLUMulFunction
from liger_kernel.ops.geglu import LigerGELUMulFunction
I = 14336
def glu_setup():
    return {"a": torch.randn(T, I, device=dev, dtype=bf), "b": torch.randn(T, I, device=dev, dtype=bf)}
GB = 3 * T * I * 2
row("liger swiglu fwd bf16 8192x14336", glu_setup, lambda s: LigerSiLUMulFunction.apply(s["a"], s["b"]),
    lambda s, o: relerr(o, torch.nn.functional.silu(s["a"].float()) * s["b"].float()), GB)
row("liger geglu fwd bf16 8192x14336", glu_setup, lambda s: LigerGELUMulFunction.apply(s["a"], s["b"]),
    lambda s, o: relerr(o, torch.nn.functional.gelu(s["a"].float(), approximate="tanh") * s["b"].float()), GB)

# cross entropy forward + backward (8192 tokens, vocab 32000)
from liger_kernel.ops.cross_entropy import LigerCrossEntropyFunction
V = 32000
def ce_setup():
    x = torch.randn(T, V, device=dev, dtype=bf).requires_grad_(True); t = torch.randint(0, V, (T,), device=dev)
    return {"x": x, "t": t, "ref": torch.nn.functional.cross_entropy(x.detach().float(), t)}
def ce(s):  # Liger writes the gradient into the input: later calls run on it (timing only)
    r = LigerCrossEntropyFunction.apply(s["x"], s["t"], None)
    return r[0] if isinstance(r, tuple) else r
row("liger cross_entropy fwd bf16 8192x32000", ce_setup, ce, lambda s, o: relerr(o, s["ref"]), 2 * T * V * 2)
print("done", flush=True)
note_unguarded()
if mode == "ab":
    compare(",".join(FILES["triton"]), ",".join(FILES["tl"]))
