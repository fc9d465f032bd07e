#!/usr/bin/env python3
"""Same source, two compilers: upstream Triton's own tutorial files (tutorials/ beside this file, written verbatim
from triton-lang/triton @ 2ac060b8 by extract_suite.sh) timed through their own host functions, once with Triton and
once with every launch compiled and run by tl (TL_SHIM=1, pylib/tlshim.py). Each row checks its output against torch
first.

usage (GPU machine, from the project root, with the harness carried as carry/conformance):
  PYTHONPATH=carry/conformance/pylib python3 carry/conformance/samesrc_bench.py triton OUT.json
  PYTHONPATH=carry/conformance/pylib TL_SHIM=1 python3 carry/conformance/samesrc_bench.py tl OUT.json
  python3 carry/conformance/samesrc_bench.py compare triton.json tl.json
or both compilers in one process in turns (each row checked on both, then timed ROUNDS turns a compiler,
alternating; DIR/triton1.json .. DIR/tlN.json and the compare table):
  PYTHONPATH=carry/conformance/pylib ROUNDS=3 python3 carry/conformance/samesrc_bench.py ab DIR
tl loads $TL_LIB, else the project's build/lib/libtl.so (pylib/tlapi.py says where it looks).
Env: ONLY=regex (rows whose name it matches, re.search), BUDGET=seconds (rows that would start later are skipped),
ROUNDS=N (ab: turns a compiler, default 3).
"""
import ast, json, math, os, re, statistics, sys, time, traceback

HERE = os.path.dirname(os.path.abspath(__file__))
TUT = os.path.join(HERE, "tutorials")
# The first top-level statement of each file that is no longer definitions (tests, benchmarks, demo runs).
CUT = {
    "01-vector-add.py": r"^torch\.manual_seed",
    "02-fused-softmax.py": r"^torch\.manual_seed",
    "04-low-memory-dropout.py": None,  # demo statements between the definitions: keep the definitions only
    "03-matrix-multiplication.py": r"^a = torch\.rand",
    "05-layer-norm.py": r"^def test_layer_norm",
    "06-fused-attention.py": r"^TORCH_HAS_FP8 = ",
    "08-grouped-gemm.py": r"^group_m = ",
    "09-persistent-matmul.py": r"^def cublas_matmul",
}


def load(name):
    """Executes the definitions of a tutorial file (imports, functions, classes, configs) as module `name`."""
    import types
    path = os.path.join(TUT, name)
    src = open(path).read()
    tree = ast.parse(src, path)
    if CUT[name] is None:  # imports, defs and UPPER_CASE constants (DEVICE = ...)
        tree.body = [n for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef))
                     or (isinstance(n, ast.Assign) and all(isinstance(t, ast.Name) and t.id.isupper()
                                                           for t in n.targets))]
    else:
        m = re.search(CUT[name], src, re.M)
        cut_line = src[:m.start()].count("\n") + 1 if m else 10 ** 9
        # and the plain functions after it (08's triton_tma_perf_fn: the launch its bench times); decorated ones
        # (perf_report benchmarks) may name what the cut statements made
        tree.body = [n for n in tree.body if n.lineno < cut_line
                     or (isinstance(n, ast.FunctionDef) and not n.decorator_list)]
    mod = types.ModuleType(name.replace("-", "_").replace(".py", ""))
    mod.__file__ = path
    sys.modules[mod.__name__] = mod
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


class Turns:
    """Both compilers in one process (mode `ab`): use(c) patches Triton for tl (tlshim.install) or gives it back
    (tlshim.uninstall), and gives each compiler its own autotuning results (each Autotuner's cache is swapped), so
    that each picks its own configs. Autotuners are found as they are made: create this before the kernels'
    modules are loaded."""

    def __init__(self):
        import tlshim
        from triton.runtime import autotuner as at
        self.tlshim, self.current, self.tuners = tlshim, None, []
        init, tuners = at.Autotuner.__init__, self.tuners

        def register(tuner, *a, **k):
            init(tuner, *a, **k)
            tuners.append(tuner)
        at.Autotuner.__init__ = register

    def use(self, c):
        if c == self.current:
            return
        for t in self.tuners:
            caches = t.__dict__.setdefault("_samesrc_caches", {})
            caches[self.current] = t.cache
            t.cache = caches.get(c, {})
        (self.tlshim.install if c == "tl" else self.tlshim.uninstall)()
        self.current = c


def turns(compilers, rounds, use, first, timed, failed):
    """One row under each compiler: its first call (compile, autotune, check: first() gives a state), then `rounds`
    timed turns each (timed(state) gives a record), alternating (Triton, tl; then tl, Triton; ...). Returns
    {compiler: [a record a turn]}; a compiler whose calls fail gets failed(exception) for the turns left."""
    states, recs = {}, {c: [] for c in compilers}
    for c in compilers:
        try:
            use(c)
            states[c] = first()
        except Exception as e:
            recs[c] = [failed(e)] * rounds
    for k in range(rounds):
        for c in (compilers if k % 2 == 0 else compilers[::-1]):
            if c not in states or len(recs[c]) > k:
                continue
            try:
                use(c)
                if len(compilers) > 1:
                    print(f"[{c} {k + 1}] ", end="")
                recs[c].append(timed(states[c]))
            except Exception as e:
                recs[c] += [failed(e)] * (rounds - k)
    return recs


def ab_rounds():
    """Mode ab's turns a compiler: $ROUNDS, default 3."""
    return max(1, int(os.environ.get("ROUNDS", "3")))


def run_files(out_path, compilers, rounds):
    """Where each compiler's turns are written: out_path itself for one compiler's one turn, else DIR/CN.json."""
    if len(compilers) == 1 and rounds == 1:
        return {compilers[0]: [out_path]}
    os.makedirs(out_path, exist_ok=True)
    return {c: [os.path.join(out_path, f"{c}{k + 1}.json") for k in range(rounds)] for c in compilers}


def record(rows, files, name, recs):
    """Appends each compiler's record a turn (recs: turns()) to rows[compiler][turn] and rewrites that turn's file
    (files: run_files()), so that a run cut short keeps the rows before it."""
    import torch
    device = torch.cuda.get_device_name()
    for c, per_turn in recs.items():
        for k, r in enumerate(per_turn):
            rows[c][k].append(dict(r, name=name))
            with open(files[c][k], "w") as f:
                json.dump({"mode": c, "device": device, "rows": rows[c][k]}, f, indent=1)


def main_run(mode, out_path):
    os.environ.setdefault("PYTEST_VERSION", "1")  # tutorial 06: one fixed forward config for both compilers
    if mode == "tl":
        import tlshim
        tlshim.install()
    import torch, triton
    torch.manual_seed(0)  # the rows' inputs: the same every run
    from triton.testing import do_bench
    budget = float(os.environ.get("BUDGET", "1e9"))
    only = os.environ.get("ONLY", "")
    compilers = ("triton", "tl") if mode == "ab" else (mode,)
    rounds = ab_rounds() if mode == "ab" else 1
    use = Turns().use if mode == "ab" else (lambda c: None)
    files = run_files(out_path, compilers, rounds)
    t_start = time.time()
    rows = {c: [[] for _ in range(rounds)] for c in compilers}
    dev = "cuda"

    def row(name, fn, check, work, unit, graph=True):
        if only and not re.search(only, name):
            return
        if time.time() - t_start > budget:
            record(rows, files, name, {c: [{"status": "not run (budget)"}] * rounds for c in compilers})
            print(f"{name:55s} not run (budget)", flush=True)
            return

        def first():  # compile + autotune, and the check
            t0 = time.time()
            out = fn()
            torch.cuda.synchronize()
            first_s = time.time() - t0
            return {"status": "ok", "unit": unit, "err": check(out), "first_s": first_s}

        def timed(r):
            ms = do_bench(fn, warmup=25, rep=100, return_mode="median")
            val = work / (ms * 1e-3) / 1e12 if unit == "TFLOP/s" else work / (ms * 1e-3) / 1e9
            r = dict(r, ms=ms, value=val)
            r.update(host_and_gpu(fn, work, unit, graph))
            print(f"{name:55s} {val:9.1f} {unit:7s} {ms:9.4f} ms  err {r['err']:.2e}  first call {r['first_s']:6.1f} s  "
                  f"host {r.get('host_us', -1):7.1f} us/call  graph {r.get('gpu_value', -1):9.1f}", flush=True)
            return r

        def failed(e):  # one row's failure leaves the others
            print(f"{name:55s} ERROR {type(e).__name__}: {str(e)[:300]}", flush=True)
            traceback.print_exc(limit=3)
            return {"status": "error", "error": f"{type(e).__name__}: {str(e)[:400]}"}
        record(rows, files, name, turns(compilers, rounds, use, first, timed, failed))

    def relerr(out, ref):
        out, ref = out.float(), ref.float()
        return ((out - ref).norm() / ref.norm().clamp_min(1e-30)).item()

    def rows_error(name, e):
        record(rows, files, name,
               {c: [{"status": "error", "error": f"{type(e).__name__}: {str(e)[:400]}"}] * rounds for c in compilers})
        print(f"{name:55s} ERROR loading: {type(e).__name__}: {str(e)[:300]}", flush=True)

    def t02_rows(t02):
        x = torch.randn(4096, 8192, device=dev)
        row("t02 softmax fp32 4096x8192", lambda: t02.softmax(x), lambda o: relerr(o, torch.softmax(x, axis=1)),
            2 * x.numel() * 4, "GB/s")

    def t04_rows(t04):
        n, p = 1 << 26, 0.5
        x = torch.randn(n, device=dev)
        keep = (torch.rand(n, device=dev) > p).to(torch.int32)
        row("t04 dropout fp32 2^26", lambda: t04.dropout(x, keep, p),
            lambda o: relerr(o, torch.where(keep.bool(), x / (1 - p), 0.0)), 3 * n * 4, "GB/s")

        def seeded_check(o):
            kept = o != 0
            frac = kept.float().mean().item()
            err = relerr(torch.where(kept, o, 0.0), torch.where(kept, x / (1 - p), 0.0))
            return err if 0.45 < frac < 0.55 else 1.0
        row("t04 seeded dropout fp32 2^26", lambda: t04.seeded_dropout(x, p, 123), seeded_check, 2 * n * 4, "GB/s")

    torch.manual_seed(0)
    # 01: vector add
    t01 = load("01-vector-add.py")
    n = 1 << 27
    x = torch.rand(n, device=dev); y = torch.rand(n, device=dev)
    row("t01 add fp32 n=2^27", lambda: t01.add(x, y), lambda o: relerr(o, x + y), 12 * n, "GB/s")
    del x, y

    # 02: fused softmax, fp32 rows of 8192 (its host code asks n_regs and metadata.shared: tl_kernel_resources)
    # 04: low-memory dropout with a keep mask, and seeded (checked: each element 0 or x / (1 - p), about half kept)
    for name, add_rows in (("02-fused-softmax.py", t02_rows), ("04-low-memory-dropout.py", t04_rows)):
        try:
            add_rows(load(name))
        except Exception as e:  # the file's own module-level code failed: its rows are errors, the others run
            rows_error(name, e)

    # 03: the tutorial's autotuned matmul (its CUDA configs), fp16, with and without leaky_relu
    t03 = load("03-matrix-multiplication.py")
    for s in (4096, 8192):
        a = torch.randn(s, s, device=dev, dtype=torch.float16); b = torch.randn(s, s, device=dev, dtype=torch.float16)
        ref = torch.matmul(a, b)
        row(f"ref torch.matmul fp16 {s}", lambda: torch.matmul(a, b), lambda o: relerr(o, ref), 2 * s ** 3, "TFLOP/s")
        row(f"t03 matmul fp16 {s}", lambda: t03.matmul(a, b), lambda o: relerr(o, ref), 2 * s ** 3, "TFLOP/s")
        if s == 8192:
            row(f"t03 matmul fp16 {s} leaky_relu", lambda: t03.matmul(a, b, activation="leaky_relu"),
                lambda o: relerr(o, torch.nn.functional.leaky_relu(ref.float(), 0.01)), 2 * s ** 3, "TFLOP/s")
        del a, b, ref
    # 03 with fp8 (e5m2) inputs, made as the tutorial's benchmark makes them: B passed as b.T (a column-major view)
    if hasattr(torch, "float8_e5m2"):
        s = 4096
        a8 = torch.randn(s, s, device=dev, dtype=torch.float16).to(torch.float8_e5m2)
        b8 = torch.randn(s, s, device=dev, dtype=torch.float16).T.to(torch.float8_e5m2)
        ref = torch.matmul(a8.to(torch.float16), b8.to(torch.float16))
        row(f"t03 matmul fp8e5 {s}", lambda: t03.matmul(a8, b8), lambda o: relerr(o, ref), 2 * s ** 3, "TFLOP/s")
        del a8, b8, ref

    # 05: layer norm forward + backward, fp16, M=4096 N=8192 (the tutorial's bench shape family)
    t05 = load("05-layer-norm.py")
    M, N = 4096, 8192
    xs = (M, N); w_shape = (N,)
    w = torch.rand(w_shape, device=dev, dtype=torch.float16, requires_grad=True)
    bb = torch.rand(w_shape, device=dev, dtype=torch.float16, requires_grad=True)
    x = -2.3 + 0.5 * torch.randn(xs, device=dev, dtype=torch.float16)
    dy = .1 * torch.randn_like(x)
    x.requires_grad_(True)
    ref = torch.nn.functional.layer_norm(x, w_shape, w, bb, 1e-5)
    row(f"t05 layernorm fwd fp16 {M}x{N}", lambda: t05.layer_norm(x, w_shape, w, bb, 1e-5),
        lambda o: relerr(o, ref), 2 * x.numel() * x.element_size(), "GB/s")
    ref.backward(dy, retain_graph=True)
    dx_ref = x.grad.clone(); x.grad = None; w.grad = None; bb.grad = None
    yt = t05.layer_norm(x, w_shape, w, bb, 1e-5)

    def bwd():
        x.grad = None
        yt.backward(dy, retain_graph=True)
        return x.grad
    row(f"t05 layernorm bwd fp16 {M}x{N}", bwd, lambda o: relerr(o, dx_ref), 3 * x.numel() * x.element_size(), "GB/s",
        graph=False)
    del x, dy, w, bb, ref, yt

    # 06: fused attention forward and backward (with PYTEST_VERSION set, as here, the tutorial uses its one test config), fp16, Z=4 H=32 N_CTX=4096 (the tutorial's bench shape)
    t06 = load("06-fused-attention.py")
    Z, H, NC = 4, 32, 4096
    for D in (64, 128):
        for causal in (False, True):
            q = torch.randn((Z, H, NC, D), dtype=torch.float16, device=dev).requires_grad_()
            k = torch.randn((Z, H, NC, D), dtype=torch.float16, device=dev).requires_grad_()
            v = torch.randn((Z, H, NC, D), dtype=torch.float16, device=dev).requires_grad_()
            sm = 0.5
            ref = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm)
            flops = 4 * Z * H * NC * NC * D * (0.5 if causal else 1.0)
            row(f"ref torch SDPA fwd D={D} causal={int(causal)}",
                lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=sm),
                lambda o: relerr(o, ref), flops, "TFLOP/s")
            for ws in ((False, True) if not causal else (False,)):
                row(f"t06 attn fwd D={D} causal={int(causal)} ws={int(ws)}",
                    lambda: t06.attention(q, k, v, causal, sm, ws), lambda o: relerr(o, ref), flops, "TFLOP/s")
            # fp8 (e5m2) forward, as the tutorial's test and bench make it ("triton-fp8"): V stored transposed
            if hasattr(torch, "float8_e5m2"):
                q8, k8 = q.detach().to(torch.float8_e5m2), k.detach().to(torch.float8_e5m2)
                v8 = v.detach().permute(0, 1, 3, 2).contiguous().permute(0, 1, 3, 2).to(torch.float8_e5m2)
                # the tutorial reads that V through one descriptor of shape [D, Z*H*N_CTX], strides [N_CTX, 1], at
                # column (head * N_CTX) * D + n for head's row n: past the descriptor's Z*H*N_CTX columns, that is for
                # all but the first Z*H/D heads, the loads are zeros (as on both compilers; its test's fp8 tolerance
                # is atol=3). The reference is attention on the fp8 Q, K and that V: what is left is e5m2 rounding
                col = (torch.arange(Z * H, device=dev)[:, None] * D * NC + torch.arange(NC, device=dev)[None, :])
                veff = v8.half().reshape(Z * H, NC, D) * (col < Z * H * NC)[..., None]
                ref8 = torch.nn.functional.scaled_dot_product_attention(q8.half(), k8.half(), veff.view(Z, H, NC, D),
                                                                        is_causal=causal, scale=sm)
                del col, veff
                row(f"t06 attn fwd fp8e5 D={D} causal={int(causal)} ws=0",
                    lambda: t06.attention(q8, k8, v8, causal, sm, False), lambda o: relerr(o.half(), ref8), flops,
                    "TFLOP/s")
                del q8, k8, v8, ref8
            dout = torch.randn_like(q)
            ref.backward(dout)
            dq_ref = q.grad.clone(); q.grad = k.grad = v.grad = None
            o = t06.attention(q, k, v, causal, sm, False)

            def bwd6():
                q.grad = None
                o.backward(dout, retain_graph=True)
                return q.grad
            row(f"t06 attn bwd D={D} causal={int(causal)}", bwd6, lambda g: relerr(g, dq_ref), 2.5 * flops, "TFLOP/s",
                graph=False)
            del q, k, v, ref, dout, o

    # 08: grouped gemm, the tutorial's group (4 problems of 1024/512/256/128), fp16, and 4 x 8192^2
    t08 = load("08-grouped-gemm.py")
    for label, sizes in (("tutorial group", (1024, 512, 256, 128)), ("4 x 4096", (4096,) * 4)):
        gA = [torch.rand((m, m), device=dev, dtype=torch.float16) for m in sizes]
        gB = [torch.rand((m, m), device=dev, dtype=torch.float16) for m in sizes]
        refs = [torch.matmul(p, q_) for p, q_ in zip(gA, gB)]
        fl = sum(2 * m ** 3 for m in sizes)
        # its host code makes the pointer and size tensors each call: no graph holds that (kernel times instead)
        row(f"t08 grouped gemm {label}", lambda: t08.group_gemm_fn(gA, gB),
            lambda outs: max(relerr(o_, r_) for o_, r_ in zip(outs, refs)), fl, "TFLOP/s", graph=False)
        # the tutorial's TMA kernel, as its bench's "Triton + TMA" times it (triton_tma_perf_fn on pointer and
        # size tensors made once: group_gemm_tma_fn makes them each call, and the autotuner's key holds those
        # tensors, so every call of it retunes, 0.9 s a call under Triton, 11-29); descriptors made in the kernel
        # from the loaded pointers (tl.make_tensor_descriptor), B as (N, K)
        if getattr(t08, "triton_tma_perf_fn", None) is not None and t08.supports_tma():
            gBT = [q_.T.contiguous() for q_ in gB]
            gC = [torch.empty((m, m), device=dev, dtype=torch.float16) for m in sizes]
            tens = lambda xs: torch.tensor([x.data_ptr() for x in xs], device=dev)
            # square problems: each one's (M, N, K) and its leading dimensions (lda, ldb, ldc) are all m
            mmm = torch.tensor([m for m in sizes for _ in range(3)], dtype=torch.int32, device=dev)
            tp = (tens(gA), tens(gBT), tens(gC), mmm, mmm)
            triton.set_allocator(lambda size, align, stream: torch.empty(size, device=dev, dtype=torch.int8))

            def tma8(tp=tp, gC=gC):
                t08.triton_tma_perf_fn(*tp, len(sizes), dtype=torch.float16)
                return gC
            row(f"t08 grouped gemm TMA {label}", tma8,
                lambda outs: max(relerr(o_, r_) for o_, r_ in zip(outs, refs)), fl, "TFLOP/s", graph=False)

    # 09: persistent, TMA and descriptor variants at 8192^3, fp16, then fp8 (e4m3fn in and, for the descriptor
    # kernels, out: FP8_OUTPUT) as its `--prec fp8` runs it; last, as its first calls (compile + autotune of 48
    # configs) are the longest and a time limit should cut them, not the rows above
    t09 = load("09-persistent-matmul.py")
    s = 8192
    dtypes = [(torch.float16, "fp16")] + ([(torch.float8_e4m3fn, "fp8e4")] if hasattr(torch, "float8_e4m3fn") else [])
    for dt, name in dtypes:
        # each precision autotunes afresh, as the tutorial's own runs do (`--prec fp8` is a process of its own):
        # the kernels' keys (M, N, K, WARP_SPECIALIZE) name no dtype, so the fp8 rows ran at the config the fp16
        # rows had picked, which under one compiler or the other could be a poor one for fp8 (11-29: tl's fp16
        # pick ran fp8 at 0.75 of Triton's, both compilers at 0.99 of each other when given the same config)
        for at in vars(t09).values():
            if isinstance(getattr(at, "cache", None), dict) and hasattr(at, "configs"):
                at.cache.clear()
        a = torch.randn(s, s, device=dev, dtype=torch.float16).to(dt)
        b = torch.randn(s, s, device=dev, dtype=torch.float16).to(dt)
        ref = torch.matmul(a.to(torch.float16), b.to(torch.float16))
        bt = b.T.contiguous()  # the tutorial's kernels take B as (N, K)
        # the pointer kernels' B: fp16 row-major (K, N), as these rows always ran; fp8 as the tutorial's own
        # bench passes it, bt.T (K-major), since Triton gives an 8-bit B stored along N no pipelined load
        # (it transposes it in registers each iteration: "poor performance is expected", AccelerateMatmul)
        bp = b if dt == torch.float16 else bt.T
        variants = [("naive", lambda: t09.matmul(a, bp)),
                    ("persistent", lambda: t09.matmul_persistent(a, bp)),
                    ("tma_persistent ws=0", lambda: t09.matmul_tma_persistent(a, bt, False)),
                    ("descriptor_persistent ws=0", lambda: t09.matmul_descriptor_persistent(a, bt, False)),
                    ("descriptor_persistent ws=1", lambda: t09.matmul_descriptor_persistent(a, bt, True))]
        if dt != torch.float16:  # the same kernel on B as stored, along N (not in the tutorial's bench; last:
            variants.append(("naive B along N", lambda: t09.matmul(a, b)))  # its first call is the longest)
        if dt == torch.float16 and getattr(t09, "cublas", None) is not None:
            c_lt = torch.empty((s, s), device=dev, dtype=torch.float16)
            row(f"ref cuBLASLt direct fp16 {s}", lambda: (t09.cublas.matmul(a, bt, c_lt), c_lt)[1],
                lambda o: relerr(o, ref), 2 * s ** 3, "TFLOP/s")
        for label, fn in variants:
            row(f"t09 {label} {name} {s}", fn, lambda o: relerr(o, ref), 2 * s ** 3, "TFLOP/s")
        del a, b, bt, bp, ref
    print(f"done in {time.time() - t_start:.0f} s", flush=True)


def kernel_ms(fn, calls=10):
    """The GPU's time of one call where no graph can hold it (autograd's backward): the device time of its
    kernels and copies as the profiler (CUPTI) records them over `calls` calls, summed, per call; the gaps the
    host leaves between them are not counted. None where the profiler records nothing."""
    import torch
    try:
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as p:
            for _ in range(calls):
                fn()
            torch.cuda.synchronize()
        us = sum(e.device_time_total for e in p.events() if e.device_type == torch.autograd.DeviceType.CUDA)
    except Exception:
        torch.cuda.synchronize()
        return None
    return us / calls * 1e-3 if us > 0 else None


def host_and_gpu(fn, work, unit, graph=True):
    """The host's time per call (enqueue only: the launch path, Python and library) and the GPU's alone
    (do_bench_cudagraph: one graph replays the calls, no host in the loop; without a graph, the profiler's
    kernel times: kernel_ms), to tell a slow kernel from a slow launch path."""
    import torch
    out = {}
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(20):
        fn()
    out["host_us"] = (time.perf_counter() - t0) / 20 * 1e6
    torch.cuda.synchronize()
    if not graph:  # autograd's backward in a capture upsets torch's RNG state for the rows after it; a launch
        #            path that copies host data each call (tutorial 08's) cannot be captured
        g = kernel_ms(fn)
        if g:
            out["gpu_ms"], out["gpu_how"] = g, "kernels"
            out["gpu_value"] = work / (g * 1e-3) / (1e12 if unit == "TFLOP/s" else 1e9)
        return out
    try:
        from triton.testing import do_bench_cudagraph
        g = do_bench_cudagraph(fn, rep=100, return_mode="median")
        out["gpu_ms"] = g
        out["gpu_value"] = work / (g * 1e-3) / (1e12 if unit == "TFLOP/s" else 1e9)
    except Exception as e:  # capture refused (a sync or an allocation in the launch path)
        out["gpu_error"] = f"{type(e).__name__}: {str(e)[:200]}"
        torch.cuda.synchronize()
    return out


def load_runs(paths):
    """Rows of one compiler's runs (paths: comma-separated JSON files, from alternating processes: ROUNDS in
    tests/bench.sh), by name: each row's best throughput and best GPU-only figure over the runs that measured it,
    its first run's first-call time, its least host time, `spread`, (best - worst) / best of the values, and
    `turns`, each run's value in the order of paths (None where a run has none)."""
    rows = {}
    paths = paths.split(",")
    for k, path in enumerate(paths):
        for r in json.load(open(path))["rows"]:
            m = rows.setdefault(r["name"], dict(r, runs=0, worst=r.get("value"), turns=[None] * len(paths)))
            m["turns"][k] = r.get("value")
            if not r.get("value"):
                continue
            m["runs"] += 1
            if not m.get("value") or r["value"] > m["value"]:
                m.update({key: r[key] for key in ("value", "ms", "err", "status") if key in r})
            m["worst"] = min(m.get("worst") or r["value"], r["value"])
            if r.get("gpu_value") and r["gpu_value"] > m.get("gpu_value", 0):
                m["gpu_value"], m["gpu_how"] = r["gpu_value"], r.get("gpu_how")
            if r.get("host_us"):
                m["host_us"] = min(m.get("host_us") or r["host_us"], r["host_us"])
    for m in rows.values():
        m["spread"] = (m["value"] - m["worst"]) / m["value"] if m.get("value") and m.get("worst") else 0.0
    return rows


def note_unguarded():
    """Prints the call shapes tl launched without a guard (tlshim.unguarded): each launch of one builds its key, host
    time that a host-bound row shows."""
    tlshim = sys.modules.get("tlshim")
    if tlshim is not None:
        print(f"tl: call shapes launched without a guard: {tlshim.unguarded() or 'none'}", flush=True)


def paired(a, b):
    """The median over turns k of b's value / a's value in turn k (load_runs' `turns`), None without two pairs. In
    one process (ab) turn k of each compiler ran next to the other's (Triton, tl; then tl, Triton ...), so a
    drift of the host's speed over the run, which the best of each compiler's turns keeps, cancels in each pair."""
    r = [y / x for x, y in zip(a.get("turns", ()), b.get("turns", ())) if x and y]
    return statistics.median(r) if len(r) >= 2 else None


def compare(a_path, b_path):
    A, B = load_runs(a_path), load_runs(b_path)
    print(f"{'row':55s} {'Triton':>9s} {'tl':>9s} {'tl/Triton':>9s}  unit      err(Triton / tl)   first call s"
          "   graph: tl/Triton of the GPU time alone (CUDA graph; k: the profiler's kernel times)   host us: enqueue time per call, Triton / tl")
    for name in list(A) + [n for n in B if n not in A]:
        a, b = A.get(name, {}), B.get(name, {})
        va = a.get("value"); vb = b.get("value")
        ratio = f"{vb / va:9.2f}" if va and vb else "        -"
        fa = f"{va:9.1f}" if va else f"{a.get('status', '-')[:9]:>9s}"
        fb = f"{vb:9.1f}" if vb else f"{b.get('status', '-')[:9]:>9s}"
        unit = (a.get("unit") or b.get("unit") or "")
        ea = f"{a['err']:.1e}" if "err" in a else "-"
        eb = f"{b['err']:.1e}" if "err" in b else "-"
        ga, gb = a.get("gpu_value"), b.get("gpu_value")
        gratio = f"{gb / ga:6.2f}" if ga and gb else "     -"
        if ga and gb and "kernels" in (a.get("gpu_how"), b.get("gpu_how")):
            gratio += "k"  # from the profiler's kernel times, not a graph
        host = f"{a.get('host_us', 0):6.1f} / {b.get('host_us', 0):6.1f}"
        runs = ""
        if max(a.get("runs", 0), b.get("runs", 0)) > 1:  # best of N alternating runs, and how far apart they were
            runs = f"   best of {a.get('runs', 0)} / {b.get('runs', 0)}, spread {a['spread']:.0%} / {b['spread']:.0%}" \
                if "spread" in a and "spread" in b else ""
            pm = paired(a, b)
            runs += f", paired median {pm:.2f}" if pm else ""
        print(f"{name:55s} {fa} {fb} {ratio}  {unit:8s}  {ea} / {eb}   {a.get('first_s', 0):.1f} / {b.get('first_s', 0):.1f}"
              f"   graph {gratio}   host us {host}{runs}")
        for r, who in ((a, "Triton"), (b, "tl")):
            if r.get("status") == "error":
                print(f"      {who}: {r['error'][:300]}")
    print(geomeans(A, B))


def geomeans(A, B):
    """The issue's yardstick over the compared rows (not the `ref` rows, which time torch in both processes): the
    geometric mean of tl / Triton, and of the GPU-only ratios where both have one."""
    def gm(xs):
        return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
    names = [n for n in A if n in B and not n.startswith("ref ")]
    r = [B[n]["value"] / A[n]["value"] for n in names if A[n].get("value") and B[n].get("value")]
    g = [B[n]["gpu_value"] / A[n]["gpu_value"] for n in names if A[n].get("gpu_value") and B[n].get("gpu_value")]
    p = [x for x in (paired(A[n], B[n]) for n in names) if x]
    return (f"geometric mean tl / Triton over {len(r)} rows: {gm(r):.3f} (lowest {min(r, default=float('nan')):.2f}); "
            f"GPU only, {len(g)} rows: {gm(g):.3f}" + (f"; paired medians, {len(p)} rows: {gm(p):.3f} (lowest "
                                                      f"{min(p):.2f})" if p else ""))


if __name__ == "__main__":
    if sys.argv[1] == "compare":
        compare(sys.argv[2], sys.argv[3])
    else:
        main_run(sys.argv[1], sys.argv[2])
        note_unguarded()
        if sys.argv[1] == "ab":
            files = run_files(sys.argv[2], ("triton", "tl"), ab_rounds())
            compare(",".join(files["triton"]), ",".join(files["tl"]))
