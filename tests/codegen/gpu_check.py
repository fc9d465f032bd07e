#!/usr/bin/env python3
"""gpu_check.py: launch the PTX of tests/codegen/tir/*.tir (and examples) on a GPU (CuPy) and compare
with numpy references computed another way.

    bash tests/codegen/gpu_ptx.sh DIR          # where tlc builds: writes DIR/*.ptx
    python3 tests/codegen/gpu_check.py DIR     # where a GPU and CuPy are

Each PTX carries its launch facts: `.maxntid T` (threads per program) and
`// tl.shared_bytes NAME N` (dynamic shared memory). Prints one [PASS]/[FAIL] line per
kernel and a closing count; exits 1 on any failure.
"""
import os
import re
import sys

import cupy as cp
import numpy as np

rng = np.random.default_rng(1234)
DIR = sys.argv[1] if len(sys.argv) > 1 else "."
results = []


def load(name, kernel=None):
    """The kernel in DIR/name.ptx (named `kernel`, default `name`)."""
    kernel = kernel or name
    path = os.path.join(DIR, name + ".ptx")
    text = open(path).read()
    threads = int(re.search(r"\.maxntid (\d+)", text).group(1))
    smem = int(re.search(r"tl\.shared_bytes " + kernel + r" (\d+)", text).group(1))
    fn = cp.RawModule(path=path).get_function(kernel)
    if smem > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = smem
    return fn, threads, smem


def launch(name, grid, args, kernel=None):
    fn, threads, smem = load(name, kernel)
    fn(grid, (threads,), args, shared_mem=smem)
    cp.cuda.runtime.deviceSynchronize()


def report(name, ok, detail=""):
    results.append(ok)
    print(("[PASS] " if ok else "[FAIL] ") + name + ("" if ok else "  " + detail), flush=True)


def rel_err(out, ref):
    ref = np.asarray(ref, np.float64)
    return float(np.linalg.norm(np.asarray(out, np.float64) - ref) / max(np.linalg.norm(ref), 1e-30))


def check(name, fn):
    if not os.path.exists(os.path.join(DIR, name + ".ptx")):
        return
    try:
        fn(name)
    except Exception as e:  # a launch or compile failure is a failed check
        report(name, False, repr(e))


def t_copy(name, n):
    x = rng.standard_normal(n + 64).astype(np.float32)
    z = cp.full(n + 64, np.float32(-7.0))
    launch(name, ((n + 1023) // 1024,), (cp.asarray(x), z, np.int32(n)))
    z = z.get()
    ok = np.array_equal(z[:n], x[:n]) and np.all(z[n:] == -7.0)
    report(name, ok, "copy mismatch or write past n")


def t_offs64(name):
    stride = 600_000_000  # pid 1 reads 2.4 GB past x: needs 64-bit addresses
    x = cp.empty(stride + 256, cp.float32)
    x[:256] = cp.arange(256, dtype=cp.float32)
    x[stride:] = cp.arange(256, dtype=cp.float32) + 1000
    z = cp.full(512, np.float32(-1))
    launch(name, (2,), (x, z, np.int32(stride)))
    ref = np.concatenate([np.arange(256), np.arange(256) + 1000]).astype(np.float32)
    report(name, np.array_equal(z.get(), ref), "wrong elements")
    del x


def t_reduce(name, kind, axis, R, C):
    x = rng.standard_normal((R, C)).astype(np.float32)
    if kind in ("argmax", "argmin"):  # ties: the smaller index wins
        x[3, :] = 1.0
        x[:, 5] = 2.5
    n = R if axis == 1 else C
    out = cp.full(n, -99, dtype=np.int32 if kind.startswith("arg") else np.float32)
    launch(name, (1,), (cp.asarray(x), out))
    ref = {"sum": x.sum(axis, dtype=np.float64), "max": x.max(axis), "argmax": x.argmax(axis),
           "argmin": x.argmin(axis)}[kind]
    o = out.get()
    if kind.startswith("arg"):
        report(name, np.array_equal(o, ref), f"got {o[:8]} want {ref[:8]}")
    else:
        e = rel_err(o, ref)
        report(name, e < 1e-6, f"rel err {e:.3g}")


def t_mm(name, dt, M, N, BK, ksteps, tol):
    K = BK * ksteps
    if dt == "i8":
        a = rng.integers(-128, 128, (M, K), dtype=np.int8)
        b = rng.integers(-128, 128, (K, N), dtype=np.int8)
        ref = a.astype(np.int64) @ b.astype(np.int64)
        c = cp.full((M, N), -1, cp.int32)
    else:
        a = rng.standard_normal((M, K)).astype(np.float32)
        b = rng.standard_normal((K, N)).astype(np.float32)
        if dt == "f16":
            a, b = a.astype(np.float16), b.astype(np.float16)
        c = cp.full((M, N), np.nan, cp.float32)
        ref = a.astype(np.float64) @ b.astype(np.float64)
    if dt == "bf16":  # round to bf16 on the host; upload the 16-bit patterns
        ab = (a.view(np.uint32) + 0x7FFF + ((a.view(np.uint32) >> 16) & 1)) >> 16
        bb = (b.view(np.uint32) + 0x7FFF + ((b.view(np.uint32) >> 16) & 1)) >> 16
        ref = ((ab.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
               @ (bb.astype(np.uint32) << 16).view(np.float32).astype(np.float64))
        da, db = cp.asarray(ab.astype(np.uint16)), cp.asarray(bb.astype(np.uint16))
    else:
        da, db = cp.asarray(a), cp.asarray(b)
    launch(name, (1,), (da, db, c, np.int32(K)))
    o = c.get()
    if dt == "i8":
        report(name, np.array_equal(o, ref), f"{np.sum(o != ref)} wrong of {o.size}")
    else:
        e = rel_err(o, ref)
        report(name, e < tol and not np.isnan(o).any(), f"rel err {e:.3g} (tol {tol})")


def t_ctrl(name):
    x = rng.integers(-1000, 1000, 256, dtype=np.int32)
    z = cp.zeros(256, cp.int32)
    launch(name, (2,), (cp.asarray(x), z))
    ref = 32 * x + 26 + 3 + np.where(np.arange(256) < 128, 1, -5)
    report(name, np.array_equal(z.get(), ref), "wrong values")


def t_atomics(name):
    G = 64
    cnt = cp.zeros(32, cp.float32)
    tickets = cp.full(2 * G, -1, cp.int32)
    flags = cp.zeros(G, cp.int32)
    counter = cp.zeros(1, cp.int32)
    launch(name, (G,), (cnt, tickets, flags, counter, np.int32(G)))
    t = tickets.get()
    ok = (np.all(cnt.get() == G) and sorted(t[:G]) == list(range(G)) and np.all(t[G:] == 0)
          and np.array_equal(flags.get(), np.arange(G) + 1) and counter.get()[0] == G)
    report(name, ok, f"cnt {cnt.get()[:4]} tickets {t[:8]} cas {t[G:G + 4]} flags {flags.get()[:4]}")


def t_math(name):
    x = rng.uniform(0.1, 2.0, 512).astype(np.float32)
    x[::7] *= -1
    out = cp.zeros(21 * 512, cp.float32)
    launch(name, (1,), (cp.asarray(x), out))
    o = out.get().reshape(-1, 256)
    v = x[:256].astype(np.float64)
    bf = (x[:256].view(np.uint32) + 0x7FFF + ((x[:256].view(np.uint32) >> 16) & 1)) >> 16 << 16
    with np.errstate(invalid="ignore", divide="ignore"):
        refs = [np.exp(v), np.log(v), np.sqrt(v), 1 / np.sqrt(v), np.sin(v), np.cos(v), np.floor(v), np.ceil(v),
                np.abs(v), np.exp2(v), np.log2(v), -v, v * v + v, v / (v + 1), np.fmod(v * 7, 1.5),
                np.maximum(v, 1), x[:256].astype(np.float16).astype(np.float64),
                bf.astype(np.uint32).view(np.float32).astype(np.float64), np.trunc((x[:256] * np.float32(-10))),
                np.exp(x[:256].astype(np.float16).astype(np.float64)).astype(np.float16)]
    names = ["exp", "log", "sqrt", "rsqrt", "sin", "cos", "floor", "ceil", "abs", "exp2", "log2", "neg", "fma",
             "div", "rem", "max", "f16", "bf16", "f2i", "exp16"]
    bad = []
    for k, (nm, r) in enumerate(zip(names, refs)):
        fin = np.isfinite(r)
        got = o[k].astype(np.float64)
        if nm in ("log", "log2", "sqrt", "rsqrt"):
            if not np.all(np.isnan(got[~fin & ~np.isinf(r)])):
                bad.append(nm + "(nan)")
        tol = 2e-3 if nm == "exp16" else 2e-6
        err = np.abs(got[fin] - r[fin]) / np.maximum(np.abs(r[fin]), 1)
        if err.max(initial=0) > tol:
            bad.append(f"{nm} err {err.max():.2g}")
    report(name, not bad, ", ".join(bad))


def t_tconv(name):
    x = rng.standard_normal((32, 64)).astype(np.float32)
    z = cp.zeros((64, 32), cp.float32)
    launch(name, (1,), (cp.asarray(x), z))
    report(name, np.array_equal(z.get(), x.T), "not the transpose")


def t_sum_all(name):
    x = rng.standard_normal(3 * 1024).astype(np.float32)
    out = cp.zeros(3, cp.float32)
    launch(name, (3,), (cp.asarray(x), out))
    e = rel_err(out.get(), x.reshape(3, -1).astype(np.float64).sum(1))
    report(name, e < 1e-6, f"rel err {e:.3g}")


def t_print(name):
    x = cp.asarray(np.array([10, 11, 12, 13], np.int32))
    print("---- device_print output (expect 4 x lines + 1 pid line) ----", flush=True)
    launch(name, (1,), (x,))
    print("----", flush=True)
    report(name, True)


check("copy_v4", lambda n: t_copy(n, 4096 + 16 * 7))
check("copy_v1", lambda n: t_copy(n, 5001))
check("offs64", t_offs64)
check("sum_rows", lambda n: t_reduce(n, "sum", 1, 32, 64))
check("max_cols", lambda n: t_reduce(n, "max", 0, 64, 32))
check("argmax_rows", lambda n: t_reduce(n, "argmax", 1, 32, 64))
check("argmin_cols", lambda n: t_reduce(n, "argmin", 0, 64, 32))
check("mm_f16", lambda n: t_mm(n, "f16", 64, 64, 32, 3, 1e-5))
check("mm_bf16", lambda n: t_mm(n, "bf16", 32, 64, 16, 4, 1e-5))
check("mm_tf32", lambda n: t_mm(n, "f32", 64, 32, 16, 3, 2e-3))
check("mm_tf32x3", lambda n: t_mm(n, "f32", 32, 32, 8, 5, 1e-5))
check("mm_i8", lambda n: t_mm(n, "i8", 32, 32, 32, 3, 0))
check("mm_ieee", lambda n: t_mm(n, "f32", 32, 32, 16, 3, 1e-6))
check("mm_fma", lambda n: t_mm(n, "f32", 32, 64, 8, 3, 1e-6))
check("ctrl", t_ctrl)
check("atomics", t_atomics)
check("math", t_math)
check("tconv", t_tconv)
check("sum_all", t_sum_all)
check("prt", t_print)


# ---- the examples, compiled by tlc (tests/codegen.sh: gpu_ptx) ----

def t_ex_copy(name, n, dtype, grid_bs):
    x = (rng.standard_normal(n + 64) * 100).astype(dtype)
    z = cp.zeros(n + 64, dtype)
    launch(name, ((n + grid_bs - 1) // grid_bs,), (cp.asarray(x), z, np.int32(n)), "copy_k")
    z = z.get()
    report(name, np.array_equal(z[:n], x[:n]) and not z[n:].any(), "copy mismatch")


def t_ex_gray(name):
    h, w = 150, 225
    x = rng.integers(0, 256, (3, h, w), dtype=np.uint8)
    out = cp.zeros((h, w), cp.uint8)
    launch(name, ((h + 31) // 32, (w + 31) // 32), (cp.asarray(x), out, np.int32(h), np.int32(w)), "rgb2grey_k")
    f = x.astype(np.float32)
    ref = (f[0] * np.float32(0.2989) + f[1] * np.float32(0.5870) + f[2] * np.float32(0.1140)).astype(np.uint8)
    d = np.abs(out.get().astype(int) - ref.astype(int))
    report(name, d.max() <= 1 and (d > 0).mean() < 0.01, f"max diff {d.max()}, {(d > 0).sum()} differ")


def t_ex_mm(name, kernel, dt, M, N, K, bm, bn, grid, args_fn, tol, relu=False, pad=0):
    a = rng.standard_normal((M, K)).astype(dt)
    b = rng.standard_normal((K, N)).astype(dt)
    da = cp.zeros(M * K + pad, dt)
    da[:M * K] = cp.asarray(a.ravel())
    db = cp.zeros(K * N + pad, dt)
    db[:K * N] = cp.asarray(b.ravel())
    c = cp.full((M, N), np.nan, cp.float16)
    launch(name, grid, (da, db, c) + args_fn(M, N, K), kernel)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    if relu:
        ref = np.maximum(ref.astype(np.float16), 0)
    o = c.get().astype(np.float64)
    e = rel_err(o, ref)
    report(name, e < tol and not np.isnan(o).any(), f"rel err {e:.3g}")


def strides(M, N, K):
    return tuple(np.int32(v) for v in (M, N, K, K, 1, N, 1, N, 1))


def t_ex_swizzle(name):
    x = cp.arange(20, dtype=cp.int64)
    z = cp.full(20, -1, cp.int64)
    launch(name, (5, 4), (x, z), "swizzle_k")
    ref = np.array([[0, 3, 6, 9], [1, 4, 7, 10], [2, 5, 8, 11], [12, 14, 16, 18], [13, 15, 17, 19]])
    report(name, np.array_equal(z.get().reshape(5, 4), ref), f"got {z.get()}")


pad_a = 128 * 64
check("ex_copy16", lambda n: t_ex_copy(n, 4096 + 48, np.float32, 1024))
check("ex_copy1", lambda n: t_ex_copy(n, 5001, np.float32, 1024))
check("ex_copy_i64", lambda n: t_ex_copy(n, 6, np.int64, 2))
check("ex_gray", t_ex_gray)
check("ex_naive16", lambda n: t_ex_mm(n, "naive_matmul_k", np.float16, 512, 512, 512, 16, 16, (32, 32), strides, 2e-3))
check("ex_naive32", lambda n: t_ex_mm(n, "naive_matmul_k", np.float32, 100, 70, 64, 32, 32, (4, 3), strides, 2e-3,
                                      pad=pad_a))
check("ex_tutorial", lambda n: t_ex_mm(n, "matmul_kernel", np.float16, 512, 512, 512, 128, 128, (16,), strides, 2e-3))
check("ex_fwd", lambda n: t_ex_mm(n, "matmul_fwd_kernel", np.float16, 256, 384, 200, 128, 128, (6,),
                                  lambda M, N, K: (np.int32(M), np.int32(K), np.int32(K), np.int32(N)), 2e-3, True))
check("ex_swizzle", t_ex_swizzle)


# ---- tests/codegen/*.tl kernels with numeric checks ----

def t_softmax(name):
    R, C = 37, 1000
    x = cp.zeros((R, 1024), cp.float32)
    xs = rng.standard_normal((R, C)).astype(np.float32) * 4
    x[:, :C] = cp.asarray(xs)
    out = cp.full((R, 1024), 7.0, cp.float32)
    launch(name, (R,), (out, x, np.int32(1024), np.int32(1024), np.int32(C)), "softmax_k")
    e = np.exp(xs.astype(np.float64) - xs.max(1, keepdims=True))
    ref = e / e.sum(1, keepdims=True)
    o = out.get()
    err = rel_err(o[:, :C], ref)
    report(name, err < 1e-5 and np.all(o[:, C:] == 7.0), f"rel err {err:.3g}")


def t_dot_reduce(name):
    M, N, K = 64, 64, 32
    a = rng.standard_normal((M, K)).astype(np.float16)
    b = rng.standard_normal((K, N)).astype(np.float16)
    out = cp.zeros(M + N + M * N, cp.float32)
    idx = cp.full(M, -1, cp.int32)
    launch(name, (1,), (cp.asarray(a), cp.asarray(b), out, idx), "dot_reduce_k")
    c = a.astype(np.float64) @ b.astype(np.float64)
    o = out.get()
    bad = []
    if rel_err(o[:M], c.sum(1)) > 1e-5:
        bad.append("row sums")
    if rel_err(o[M:M + N], c.max(0)) > 1e-5:
        bad.append("col max")
    if rel_err(o[M + N:].reshape(N, M), c.T) > 1e-5:
        bad.append("trans")
    if not np.array_equal(idx.get(), c.argmax(1)):
        bad.append(f"argmax {idx.get()[:6]} vs {c.argmax(1)[:6]}")
    report(name, not bad, ", ".join(bad))


def t_shapes(name):
    A, B, C = 4, 8, 16
    x = rng.standard_normal((A, B, C)).astype(np.float32)
    out = cp.zeros((C, A * B), cp.float32)
    launch(name, (1,), (cp.asarray(x), out), "shapes_k")
    y = x.astype(np.float64) - x.astype(np.float64).sum(1, keepdims=True)
    r = y.transpose(2, 0, 1).reshape(C, A * B)
    m = r.max(1)
    ref = np.where(r > m[:, None] * 0.5, r, m[:, None])
    e = rel_err(out.get(), ref)
    report(name, e < 1e-5, f"rel err {e:.3g}")


def t_perf(name):
    """Time the tutorial kernel (128x128x32 tiles, 4 warps) at 4096^3 fp16 against cuBLAS."""
    M = N = K = 4096
    a = cp.asarray(rng.standard_normal((M, K)).astype(np.float16))
    b = cp.asarray(rng.standard_normal((K, N)).astype(np.float16))
    c = cp.empty((M, N), cp.float16)
    fn, threads, smem = load(name, "matmul_kernel")
    args = (a, b, c) + strides(M, N, K)
    grid = ((M // 128) * (N // 128),)

    def timed(f, reps=20):
        f()
        cp.cuda.runtime.deviceSynchronize()
        t0, t1 = cp.cuda.Event(), cp.cuda.Event()
        ts = []
        for _ in range(reps):
            t0.record()
            f()
            t1.record()
            t1.synchronize()
            ts.append(cp.cuda.get_elapsed_time(t0, t1))
        return float(np.median(ts))

    ms = timed(lambda: fn(grid, (threads,), args, shared_mem=smem))
    ref = timed(lambda: cp.matmul(a, b))
    e = rel_err(c.get()[:256, :256].astype(np.float64),
                (a[:256].get().astype(np.float64) @ b[:, :256].get().astype(np.float64)))
    tf = 2 * M * N * K / 1e9
    print(f"    perf: tutorial kernel {ms:.3f} ms ({tf / ms:.0f} TFLOP/s), cuBLAS {ref:.3f} ms ({tf / ref:.0f} TFLOP/s)")
    report(name + " (4096^3 timing)", e < 2e-3, f"rel err {e:.3g}")


check("softmax", t_softmax)
check("dot_reduce", t_dot_reduce)
check("shapes", t_shapes)
check("ex_tutorial", t_perf)

print(f"{sum(results)} passed, {len(results) - sum(results)} failed")
sys.exit(0 if all(results) else 1)
