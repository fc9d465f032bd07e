"""autotune_configs.py triton|tl OUT.json, then autotune_configs.py join TRITON.json TL.json: every autotune config
of tutorials 03's and 09's matmuls as each compiler's autotuner timed it (what its _bench returned: the median of
do_bench), so that a row whose picks differ between compilers can be read config by config. ROWS (comma-separated)
picks the kernels: t03 (tutorial 03's matmul, its 16 configs), naive, persistent, tma0 (matmul_tma_persistent,
ws=0), desc0, desc1 (matmul_descriptor_persistent, ws=0 / 1); DTYPE fp16 (default) or fp8 (tutorial 09's; t03 stays
fp16); 8192^3 as samesrc_bench.py runs them. Needs tools/conformance/tutorials (extract_suite.sh) and
PYTHONPATH=tools/conformance/pylib."""
import json, os, sys


def describe(c):
    kw = ",".join(f"{k.replace('BLOCK_SIZE_', '')}={v}" for k, v in sorted(c.kwargs.items()))
    return f"{kw} w{c.num_warps} s{c.num_stages}"


def measure(mode, out):
    if mode == "tl":
        import tlshim
        tlshim.install()
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "conformance"))
    from samesrc_bench import load
    t03, t09 = load("03-matrix-multiplication.py"), load("09-persistent-matmul.py")
    s, fp8 = 8192, os.environ.get("DTYPE", "fp16") == "fp8"
    a = torch.randn(s, s, device="cuda", dtype=torch.float16)
    b = torch.randn(s, s, device="cuda", dtype=torch.float16)
    if fp8:
        a, b = a.to(torch.float8_e4m3fn), b.to(torch.float8_e4m3fn)
    bt = b.T.contiguous()
    a16, b16 = a.to(torch.float16), b.to(torch.float16)
    bp = bt.T if fp8 else b  # samesrc_bench's B for the pointer kernels
    desc = t09.matmul_kernel_descriptor_persistent
    variants = {"t03": (t03.matmul_kernel, lambda: t03.matmul(a16, b16)),
                "naive": (t09.matmul_kernel, lambda: t09.matmul(a, bp)),
                "persistent": (t09.matmul_kernel_persistent, lambda: t09.matmul_persistent(a, bp)),
                "tma0": (t09.matmul_kernel_tma_persistent, lambda: t09.matmul_tma_persistent(a, bt, False)),
                "desc0": (desc, lambda: t09.matmul_descriptor_persistent(a, bt, False)),
                "desc1": (desc, lambda: t09.matmul_descriptor_persistent(a, bt, True))}
    res = {}
    for name in os.environ.get("ROWS", "tma0,desc0").split(","):
        at, fn = variants[name]
        at.cache.clear()
        timed = {}

        def bench(*args, config, _orig=type(at)._bench.__get__(at), **kw):
            t = _orig(*args, config=config, **kw)
            timed[describe(config)] = t[0] if isinstance(t, (list, tuple)) else t
            return t
        at._bench = bench  # the instance's attribute, over the class's method: Autotuner.run calls self._bench
        fn()
        torch.cuda.synchronize()
        del at._bench
        res[name] = timed
        print(f"{mode} {name}: {len(res[name])} configs timed", flush=True)
    json.dump(res, open(out, "w"))


def join(tri_path, tl_path):
    tri, tl = json.load(open(tri_path)), json.load(open(tl_path))
    for name in tri:
        print(f"== {name}: ms under Triton, under tl, and their ratio (above 1: tl faster; inf: failed or refused)")
        rows = sorted(tri[name], key=lambda k: tri[name][k])
        for k in rows:
            x, y = tri[name][k], tl.get(name, {}).get(k)
            r = f"{x / y:5.2f}" if y and y != float("inf") and x != float("inf") else "    -"
            print(f"  {k:64s} {x:8.3f} {y if y is not None else float('nan'):8.3f} {r}")
        bx = min(tri[name].values())
        by = min(tl.get(name, {}).values(), default=float("nan"))
        print(f"  best: Triton {bx:.3f} ms, tl {by:.3f} ms, {bx / by:.2f}")


if __name__ == "__main__":
    if sys.argv[1] == "join":
        join(sys.argv[2], sys.argv[3])
    else:
        measure(sys.argv[1], sys.argv[2])
