# tools/attn_anchor.py [DIR]: Triton's own tutorial 06 (upstream
# python/tutorials/06-fused-attention.py, copied as DIR/t06_fused_attention.py;
# DIR defaults to carry/), forward and backward, at tl-bench --attention's shapes:
# Z=4, H=32, N_CTX=4096, HEAD_DIM 64 and 128, causal and not, fp16;
# warp_specialize off and on (the tutorial's own benchmark tries on only
# for non-causal). tests/bench.sh runs it after anchor_bench.py. A
# benchmark helper for the GPU machine (PyTorch and Triton there), not part
# of tl.
import sys, types, os
try:
    import pytest  # noqa: F401
except ImportError:
    sys.modules["pytest"] = types.SimpleNamespace(mark=types.SimpleNamespace(parametrize=lambda *a, **k: (lambda f: f)))
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "carry")
import torch, triton
torch.manual_seed(0)  # the inputs: the same every run
import t06_fused_attention as t06

Z, H, N = 4, 32, 4096
for d in (64, 128):
    for causal in (False, True):
        for ws in (False, True):  # upstream's benchmark skips ws for causal; tried here, beside tl-bench's
            q, k, v = (torch.randn((Z, H, N, d), dtype=torch.float16, device="cuda") for _ in range(3))
            fn = lambda: t06.attention(q, k, v, causal, 1.3, ws)
            name = f"attention fwd triton-t06 fp16 Z={Z} H={H} N_CTX={N} D={d:3d} {'causal' if causal else '      '} ws={int(ws)}"
            try:
                fn()
                ms = triton.testing.do_bench(fn)
            except Exception as e:  # a config Triton cannot compile or run
                print(f"{name}  does not run: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
                continue
            flops = 4.0 * Z * H * N * N * d * (0.5 if causal else 1.0)
            print(f"{name}  {flops / ms * 1e-9:7.1f} TFLOP/s  ({t06._attn_fwd.best_config})", flush=True)

# the backward pass as upstream's benchmark times it (mode "bwd": o.backward,
# which runs _attn_bwd_preprocess and _attn_bwd; 2.5x the forward's FLOPs)
for d in (64, 128):
    for causal in (False, True):
        q, k, v = (torch.randn((Z, H, N, d), dtype=torch.float16, device="cuda", requires_grad=True) for _ in range(3))
        name = f"attention bwd triton-t06 fp16 Z={Z} H={H} N_CTX={N} D={d:3d} {'causal' if causal else '      '}"
        try:
            o = t06.attention(q, k, v, causal, 1.3, False)
            do = torch.randn_like(o)
            fn = lambda: o.backward(do, retain_graph=True)
            fn()
            ms = triton.testing.do_bench(fn)
        except Exception as e:
            print(f"{name}  does not run: {str(e).splitlines()[0] if str(e) else type(e).__name__}", flush=True)
            continue
        flops = 2.5 * 4.0 * Z * H * N * N * d * (0.5 if causal else 1.0)
        print(f"{name}  {flops / ms * 1e-9:7.1f} TFLOP/s", flush=True)
