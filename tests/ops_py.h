/* ops_py.h: the numeric cases of Python semantics that Triton gives its own
 * meaning (a name assigned a number is a scalar tensor; slices written with
 * None; ternaries of None; helpers that return on one path only) and of the
 * hints and intrinsics (tl.assume, tl.max_constancy, tl.extra.cuda, .item()),
 * included by ops_test.c, whose table takes PY_CASES. */

/* ------------------------------------------- `v = 1` is Triton's i32 tensor */

/* a is int8, h fp16. With Python literals, a * 1000 would be int8 (and out of
 * range) and h * 0.1 fp16; with names assigned them, both promote to the
 * named tensor's int32 / fp32. big + 1 wraps in int32, -7 // 2 and -7 % 2
 * truncate as the GPU does (Python would give -4 and 1). */
static void r_assigned(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        int64_t z = (int64_t)in[0][i] * 1000 + INT32_MIN + (-3) * 7 + (-1) * 11 + 4;
        want[0][i] = (int32_t)(uint32_t)z;
        want[1][i] = (float)(in[1][i] * (double)0.1f);
    }
}
static const char k_assigned[] =
    PRE "def k(a_ptr, h_ptr, o_ptr, f_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(h)
    "    v = 1000\n"
    "    w = 0.1\n"
    "    big = 2 ** 31 - 1\n"
    "    q = -7\n"
    "    e = 2 ** 40\n"
    "    t = True\n"
    "    g = 3000000000\n"
    "    tl.static_assert(v.dtype == tl.int32)\n"
    "    tl.static_assert(w.dtype == tl.float32)\n"
    "    tl.static_assert(e.dtype == tl.int64)\n"
    "    tl.static_assert(t.dtype == tl.int1)\n"
    "    tl.static_assert(g.dtype == tl.uint32)\n"
    "    z = a * v\n"
    "    tl.static_assert(z.dtype == tl.int32)\n"
    "    y = h * w\n"
    "    tl.static_assert(y.dtype == tl.float32)\n"
    "    s = big + 1\n"
    "    tl.static_assert(s == -2147483648)\n"
    "    tl.static_assert(q // 2 == -3)\n"
    "    tl.static_assert(q % 2 == -1)\n"
    "    c: tl.constexpr = 100\n"
    "    tl.static_assert((h * 2.0).dtype == tl.float16)\n"
    "    tl.static_assert((a + c - c).dtype == tl.int8)\n"
    "    m = 4\n"
    "    m += 4\n"
    "    tl.static_assert(m.dtype == tl.int32)\n"
    "    x = tl.zeros((m,), tl.int32) + tl.arange(0, m)\n"
    "    tl.static_assert(x.shape == (8,))\n"
    "    tl.store(o_ptr + offs, z + s + (q // 2) * 7 + (q % 2) * 11 + (e >> 38), mask=mask)\n"
    "    tl.store(f_ptr + offs, y, mask=mask)\n";

/* The folding of names assigned numbers against the same ops at run time:
 * q, g, w are -7 (int32), 3000000000 (uint32), 0.1 (fp32) both as names
 * (folded at compile time) and as loads of buffers holding them; both must
 * give the GPU's int32 / uint32 wrap-around, truncating // and %, logical
 * >> of unsigned, fp32 rounding. */
static void r_fold_runtime(const long *d, double *const *in, double *const *want) {
    (void)in;
    uint32_t i32 = (uint32_t)INT32_MIN; /* big + 1 */
    i32 += (uint32_t)(-3 * 1000);       /* -7 // 2 */
    i32 += (uint32_t)(-1 * 100);        /* -7 % 2 */
    i32 += (uint32_t)(-7 * (1 << 28));  /* -7 << 28 */
    uint32_t g = 3000000000u;
    int64_t z = (int64_t)(int32_t)i32 + (int64_t)(uint32_t)(g + g) + g / 7 + (g >> 3);
    float w = 0.1f, f = (w * 4 + 1024.0f) + w / 3; /* w * 4 is exact: no FMA can change it */
    for (long i = 0; i < d[0]; i++) {
        want[0][i] = want[1][i] = (double)z;
        want[2][i] = want[3][i] = f;
    }
}
static const char k_fold_runtime[] =
    PRE "def k(q_ptr, g_ptr, w_ptr, ci_ptr, ri_ptr, cf_ptr, rf_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    qr = tl.load(q_ptr + offs, mask=mask)\n"
    "    gr = tl.load(g_ptr + offs, mask=mask)\n"
    "    wr = tl.load(w_ptr + offs, mask=mask)\n"
    "    q = -7\n"
    "    g = 3000000000\n"
    "    w = 0.1\n"
    "    big = 2 ** 31 - 1\n"
    "    bigr = qr * 0 + big\n"
    "    ci = (big + 1) + q // 2 * 1000 + q % 2 * 100 + (q << 28)\n"
    "    cg = (g + g).to(tl.int64) + (g // 7).to(tl.int64) + (g >> 3).to(tl.int64)\n"
    "    cf = (w * 4 + 1024.0) + w / 3\n"
    "    tl.static_assert(ci == 268432356 and cf > 1024)\n"
    "    ri = (bigr + 1) + qr // 2 * 1000 + qr % 2 * 100 + (qr << 28)\n"
    "    rg = (gr + gr).to(tl.int64) + (gr // 7).to(tl.int64) + (gr >> 3).to(tl.int64)\n"
    "    rf = (wr * 4 + 1024.0) + wr / 3\n"
    "    tl.store(ci_ptr + offs, ci.to(tl.int64) + cg, mask=mask)\n"
    "    tl.store(ri_ptr + offs, ri.to(tl.int64) + rg, mask=mask)\n"
    "    tl.store(cf_ptr + offs, cf, mask=mask)\n"
    "    tl.store(rf_ptr + offs, rf, mask=mask)\n";

/* ------------------- slices with None, ternaries of None, a helper's paths */

/* p = a + b + a through x[None:], x[::None], x[lo:lo:lo] (lo = None); the
 * new-axis forms give a * b + b; the void ternary stores a * 3 or a * 5 by n;
 * twice_if returns on the n > 0 path only (every n here) and runs off the
 * end on the other, which Triton allows. */
static void r_none_forms(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        double a = in[0][i], b = in[1][i];
        want[0][i] = 2 * (a + b + a) + a * b + b;
        want[1][i] = d[0] > 100 ? a * 3 : a * 5;
    }
}
static const char k_none_forms[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def twice_if(x, c):\n"
    "    if c > 0:\n"
    "        return x * 2\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, out_ptr, t_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    lo = None\n"
    "    p = a[None:] + b[::None] + a[lo:lo:lo]\n"
    "    r = tl.sum(a[:None, None] * b[:, None], axis=1) + tl.sum(b[None, None:None:None], axis=0)\n"
    "    z = None if n > 3 else None\n"
    "    tl.static_assert(z is None)\n"
    "    tl.store(t_ptr + offs, a * 3, mask=mask) if n > 100 else tl.store(t_ptr + offs, a * 5, mask=mask)\n"
    "    tl.store(out_ptr + offs, twice_if(p, n) + r, mask=mask)\n";

/* ------------------ hints, isinstance / hasattr / getattr, .item() */

/* tl.assume and tl.max_constancy change no value (their promises hold);
 * the compile-time builtins pick z * 2 in float32; item() gives the last
 * valid index of the program, subtracted from each index. */
static void r_hints_item(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    for (long i = 0; i < n; i++) {
        double a = in[0][i];
        want[0][i] = (float)(((i / 4) % 2 == 0 ? a : -a) * 2);
        long last = (i / 128) * 128 + 127;
        want[1][i] = (double)(i - (last < n - 1 ? last : n - 1));
    }
}
static const char k_hints_item[] =
    PRE "def k(a_ptr, out_ptr, idx_ptr, n, BLOCK: tl.constexpr):\n"
    "    tl.assume(n > 0)\n"
    "    tl.assume(BLOCK % 16 == 0)\n"
    "    start = tl.program_id(0) * BLOCK\n"
    "    tl.assume(start % BLOCK == 0)\n"
    "    offs = start + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask)\n"
    "    even = tl.max_constancy((offs // 4) % 2 == 0, 4)\n"
    "    g = tl.max_constancy(offs // 8, (8,))\n"
    "    z = tl.where(even, a, -a) + (g - g)\n"
    "    dt = getattr(tl, 'float32')\n"
    "    if isinstance(BLOCK, int) and hasattr(tl, 'assume') and not hasattr(tl, 'no_such_op'):\n"
    "        z = z.to(dt) * 2\n"
    "    tl.static_assert(isinstance(z, tl.tensor) and not isinstance(BLOCK, tl.constexpr))\n"
    "    last = tl.max(tl.where(mask, offs, 0), axis=0, keep_dims=True)\n"
    "    tl.store(out_ptr + offs, z, mask=mask)\n"
    "    tl.store(idx_ptr + offs, offs - last.item(), mask=mask)\n";

/* --------------------------------------------------- tl.extra.cuda */

/* Per program: smid (an SM index: 0 on the interpreter), globaltimer before
 * and after a loop (a nanosecond clock that does not go back), num_threads()
 * (num_warps * 32 = 128). gdc_wait / gdc_launch_dependents run without a
 * dependent launch: they must not hang or change anything. */
static int c_cuda_intrinsics(const long *d, double *const *in, double *const *got, char *msg, size_t len) {
    (void)in;
    for (long p = 0; p < d[0]; p++) {
        const double *g = got[0] + 4 * p;
        if (!(g[0] >= 0 && g[0] < 1024) || !(g[1] > 0 && g[2] >= g[1]) || g[3] != 128) {
            snprintf(msg, len, "program %ld: smid %g, globaltimer %g then %g, num_threads %g", p, g[0], g[1], g[2],
                     g[3]);
            return 0;
        }
    }
    return 1;
}
static const char k_cuda_intrinsics[] =
    "import triton\nimport triton.language as tl\nfrom triton.language.extra import cuda\n\n\n"
    "@triton.jit\n"
    "def k(out_ptr, n):\n"
    "    cuda.gdc_wait()\n"
    "    p = out_ptr + tl.program_id(0) * 4\n"
    "    t0 = tl.extra.cuda.globaltimer()\n"
    "    acc = 0\n"
    "    for i in range(n):\n"
    "        acc += i\n"
    "    t1 = cuda.globaltimer()\n"
    "    tl.store(p, cuda.smid().to(tl.int64) + acc * 0)\n"
    "    tl.store(p + 1, t0)\n"
    "    tl.store(p + 2, t1)\n"
    "    tl.store(p + 3, cuda.num_threads())\n"
    "    cuda.gdc_launch_dependents()\n";

/* ------------------------------------ `>>` keeps its tensor operand's sign */

/* Triton's x.__rshift__ picks ashr or lshr by x's own dtype before the usual
 * promotion: int16 >> uint16 is computed in uint16 but shifts arithmetically,
 * int8 >> uint64 sign-extends, then shifts arithmetically; uint32 >> int8
 * (promoted to uint32) shifts logically; `k >> u` (u.__rrshift__) follows u. */
static void r_shift_sign(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        int16_t a = (int16_t)in[0][i];
        int8_t b = (int8_t)in[1][i];
        uint32_t c = (uint32_t)in[2][i];
        unsigned s = (unsigned)in[3][i];
        want[0][i] = (uint16_t)(a >> s);
        want[1][i] = (double)(uint64_t)((int64_t)b >> (s + 40));
        want[2][i] = c >> (s & 7);
        want[3][i] = (uint16_t)(60000u >> s);
    }
}
static const char k_shift_sign[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, s_ptr, x_ptr, y_ptr, z_ptr, w_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    LD(a) LD(b) LD(c) LD(s)
    "    s8 = (s & 7).to(tl.int8)\n"
    "    tl.static_assert((a >> s).dtype == tl.uint16)\n"
    ST(x, "a >> s") ST(y, "b >> (s.to(tl.uint64) + 40)") ST(z, "c >> s8") ST(w, "60000 >> s")
    ;

/* ------------------------------------------- tl.tensor's methods as Triton's */

/* x.cast (as tl.cast, bitcast too), x.logical_and / x.logical_or, x.sqrt_rn:
 * methods of Triton's tl.tensor that kernels call as methods. */
static void r_methods(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        float x = (float)in[0][i];
        int32_t v = (int32_t)in[1][i];
        union { float f; int32_t i; } u = {.f = x};
        int b = (x > 0 && x < 4) || v == 3;
        want[0][i] = (double)(_Float16)x + (double)b;
        want[1][i] = u.i + (int32_t)(int8_t)v;
        want[2][i] = sqrtf(fabsf(x));
    }
}
static const char k_methods[] =
    PRE "def k(x_ptr, v_ptr, a_ptr, b_ptr, c_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(x) LD(v)
    "    flag = (x > 0).logical_and(x < 4).logical_or(v == 3)\n"
    ST(a, "x.cast(tl.float16).cast(tl.float32) + flag.cast(tl.float32)")
    ST(b, "x.cast(tl.int32, bitcast=True) + v.cast(tl.int8).cast(tl.int32)")
    ST(c, "tl.abs(x).sqrt_rn()");

/* ------------------------------- reductions of booleans stay booleans */

/* tl.sum(b, dtype=tl.int1) adds in i1, so it wraps: the parity of the count
 * (Triton's test_sum_dtype); tl.max of booleans is a boolean; the default
 * sum of booleans is uint32 (Triton counts int1 as unsigned). */
static void r_bool_reduce(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        long b0 = i / 128 * 128, cnt = 0;
        for (long j = b0; j < b0 + 128 && j < d[0]; j++)
            cnt += in[0][j] > 0;
        want[0][i] = cnt & 1;
        want[1][i] = cnt > 0;
    }
}
static const char k_bool_reduce[] =
    PRE "def k(x_ptr, p_ptr, m_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(x)
    "    b = x > 0\n"
    "    p = tl.sum(b, axis=0, dtype=tl.int1)\n"
    "    m = tl.max(b, axis=0)\n"
    "    tl.static_assert(p.dtype == tl.int1)\n"
    "    tl.static_assert(tl.sum(b, axis=0).dtype == tl.uint32)\n"
    ST(p, "p.to(tl.int32) + tl.zeros([BLOCK], tl.int32)") ST(m, "m.to(tl.int32) + tl.zeros([BLOCK], tl.int32)");

/* ------------------------------ a one-element block as an if condition */

/* Triton unsplats it (with a warning), as x.item() would: test_unsplat. */
static void r_unsplat(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i] = in[0][0] > 0 ? 7 : -7;
}
static const char k_unsplat[] =
    PRE "def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    c = tl.load(x_ptr + tl.arange(0, 1)) > 0\n"
    "    v = -7\n"
    "    if c:\n"
    "        v = 7\n"
    ST(o, "v + tl.zeros([BLOCK], tl.int32)");

/* --------------------- isinstance(p.dtype, tl.pointer_type), short-circuit */

/* Triton's test_short_circuiting: compile-time tests of the pointer's type
 * before a runtime one, in one `and` chain. */
static void r_short_circuit(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i] = in[0][0] > 0 ? 1 : 2;
}
static const char k_short_circuit[] =
    PRE "def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    tl.static_assert(isinstance(x_ptr.dtype, tl.pointer_type) and not isinstance(n, tl.pointer_type))\n"
    "    w = 2\n"
    "    if isinstance(x_ptr.dtype, tl.pointer_type) and (x_ptr.dtype.element_ty == tl.int32) and (tl.load(x_ptr) > 0):\n"
    "        w = 1\n"
    ST(o, "w + tl.zeros([BLOCK], tl.int32)");

/* ---------------------------- tl.pi32_t, tl.random (Triton's test_where) */

/* int64 values through pointers and back (x.to(tl.pi32_t), a pointer select,
 * the store's cast to int64); tl.random names the random module. */
static void r_pi32(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i] = in[0][i] > 0 ? in[1][i] : in[2][i];
}
static const char k_pi32[] =
    PRE "def k(c_ptr, a_ptr, b_ptr, o_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(c) LD(a) LD(b)
    "    tl.static_assert(tl.pi32_t == tl.pointer_type(tl.int32))\n"
    "    tl.static_assert(tl.random.uint_to_uniform_float(tl.zeros([4], tl.uint32)).dtype == tl.float32)\n"
    ST(o, "tl.where(c > 0, a.to(tl.pi32_t), b.to(tl.pi32_t))");

/* ----------------------------------- fp_downcast_rounding='rtz' (Triton's) */

/* fp32 -> fp16 rounded toward zero, by hand from the bits: overflow gives the
 * largest finite value, below fp16's normals the subnormal truncated. */
static uint16_t f16_rz_bits(float x) {
    uint32_t u;
    memcpy(&u, &x, 4);
    uint16_t s = (uint16_t)((u >> 16) & 0x8000);
    uint32_t a = u & 0x7fffffff, m = (a & 0x7fffff) | 0x800000;
    int e = (int)(a >> 23) - 127;
    if (a >= 0x7f800000)
        return s | (a == 0x7f800000 ? 0x7c00 : 0x7e00);
    if (a < 0x00800000 || e < -25)
        return s;
    if (e > 15)
        return s | 0x7bff;
    if (e >= -14)
        return s | (uint16_t)(((e + 15) << 10) | ((m >> 13) & 0x3ff));
    return s | (uint16_t)(m >> -(e + 1)); /* units of 2^-24 */
}
static double f16_value(uint16_t h) {
    int e = (h >> 10) & 31, m = h & 0x3ff;
    double v = e ? ldexp(1024 + m, e - 25) : ldexp(m, -24);
    return h & 0x8000 ? -v : v;
}
static void r_rtz(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        float x = (float)in[0][i], y = (float)in[1][i];
        uint32_t u;
        memcpy(&u, &x, 4);
        union { uint32_t u; float f; } b = {.u = u & 0xffff0000u}; /* bf16: the upper half */
        want[0][i] = f16_value(f16_rz_bits(x));
        want[1][i] = b.f;
        want[2][i] = f16_value(f16_rz_bits(x) & 0xff00); /* e5m2: fp16's upper byte */
        want[3][i] = f16_value(f16_rz_bits(y));
    }
}
static const char k_rtz[] =
    PRE "def k(x_ptr, y_ptr, h_ptr, b_ptr, e_ptr, g_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(x) LD(y)
    ST(h, "x.to(tl.float16, fp_downcast_rounding='rtz')") ST(b, "tl.cast(x, tl.bfloat16, fp_downcast_rounding='rtz')")
    ST(e, "x.to(tl.float8e5, fp_downcast_rounding='rtz')") ST(g, "y.to(tl.float16, fp_downcast_rounding='rtz')");

/* -------------------------------------------------------------- tl.tuple */

/* tl.tuple((...)) / tl.tuple([...]) is the tuple: == and + as Python's
 * (upstream's test_tuple.py test_eq and test_add). */
static void c_tl_tuple_ref(const long *d, double *const *in, double *const *want) {
    (void)d, (void)in;
    static const double v[8] = {1, 0, 1, 0, 4, 5, 6, 7};
    for (int i = 0; i < 8; i++)
        want[0][i] = v[i];
}
static const char k_tl_tuple[] =
    PRE "def k(o_ptr):\n"
    "    tl.store(o_ptr + 0, (1, 2) == (1, 2))\n"
    "    tl.store(o_ptr + 1, (1, 2) == (1, 1))\n"
    "    tl.store(o_ptr + 2, tl.tuple((1, 2)) == (1, 2))\n"
    "    tl.store(o_ptr + 3, tl.tuple([1, 2]) == (1, 3))\n"
    "    t = tl.tuple((4, 5)) + (6, 7)\n"
    "    for i in tl.static_range(4):\n"
    "        tl.store(o_ptr + 4 + i, t[i])\n";

/* ------------------------------------- list comprehensions in a kernel */

/* [expr for x in t if c] over compile-time iterables, runtime items allowed
 * (Triton's visit_ListComp; upstream's test_tuple.py _tuple_increment): four
 * rows' loads summed; the target name does not leak (v stays 3). */
static void r_listcomp(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i] = in[0][i] + 2 * in[0][i] + 3 * in[0][i] + 3;
}
static const char k_listcomp[] =
    PRE "def k(x_ptr, o_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(x)
    "    v = 3\n"
    "    rows = [x * v for v in (1, 2, 3, 4) if v < 4]\n"
    "    tl.static_assert(len(rows) == 3)\n"
    "    t = tl.tuple([r + 0 for r in rows])\n"
    ST(o, "t[0] + t[1] + t[2] + v");

#define PY_CASES                                                                                                   \
    {"py_assigned_numbers", k_assigned, B128, S1D, G1D, 1, 0, {IN(TL_I8, D0, -100, 100), IN(TL_F16, D0, -4, 4)},   \
     {OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_assigned, NULL, EXACT},                                                 \
    {"py_fold_matches_runtime", k_fold_runtime, B128, S1D_SMALL, G1D, 1, 0,                                        \
     {IN(TL_I32, D0, -7, -7), IN(TL_U32, D0, 3e9, 3e9), IN(TL_F32, D0, 0.1, 0.1)},                                \
     {OUT(TL_I64, D0), OUT(TL_I64, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_fold_runtime, NULL, EXACT},                                                 \
    {"py_none_slices_ternary_fall_off", k_none_forms, B128, S1D, G1D, 1, 0, {I1D(-1000, 1000), I1D(-1000, 1000)}, \
     {OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_none_forms, NULL, EXACT},                                              \
    {"py_hints_isinstance_item", k_hints_item, B128, S1D, G1D, 1, 0, {F1D(-1, 1)},                                 \
     {OUT(TL_F32, D0), OUT(TL_I32, D0)}, r_hints_item, NULL, EXACT},                                               \
    {"py_shift_keeps_tensor_sign", k_shift_sign, B128, S1D, G1D, 1, 0,                                           \
     {IN(TL_I16, D0, -32768, 32767), IN(TL_I8, D0, -128, 127), IN(TL_U32, D0, 0, 4294967295.0), IN(TL_U16, D0, 0, 15)}, \
     {OUT(TL_U16, D0), OUT(TL_U64, D0), OUT(TL_U32, D0), OUT(TL_U16, D0)}, r_shift_sign, NULL, EXACT},             \
    {"py_tensor_methods", k_methods, B128, S1D, G1D, 1, 0, {IN(TL_F32, D0, -8, 8), IN(TL_I32, D0, -300, 300)},       \
     {OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_methods, NULL, EXACT},                                  \
    {"py_bool_reductions", k_bool_reduce, B128, S1D, G1D, 1, 0, {IN(TL_I32, D0, -3, 2)},                           \
     {OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_bool_reduce, NULL, EXACT},                                              \
    {"py_if_one_element_block", k_unsplat, B128, S1D, G1D, 1, 0, {IN(TL_I32, D0, -5, 5)}, {OUT(TL_I32, D0)},       \
     r_unsplat, NULL, EXACT},                                                                                       \
    {"py_isinstance_pointer_short_circuit", k_short_circuit, B128, S1D, G1D, 1, 0, {IN(TL_I32, D0, -5, 5)},          \
     {OUT(TL_I32, D0)}, r_short_circuit, NULL, EXACT},                                                              \
    {"py_pi32_t_and_tl_random", k_pi32, B128, S1D, G1D, 1, 0,                                                     \
     {IN(TL_I32, D0, -5, 5), IN(TL_I64, D0, -1e12, 1e12), IN(TL_I64, D0, -1e12, 1e12)}, {OUT(TL_I64, D0)}, r_pi32,   \
     NULL, EXACT},                                                                                                  \
    {"py_downcast_rtz", k_rtz, B128, S1D, G1D, 1, 0, {IN(TL_F32, D0, -7e4, 7e4), IN(TL_F32, D0, -1e-4, 1e-4)},       \
     {OUT(TL_F16, D0), OUT(TL_BF16, D0), OUT(TL_F8E5M2, D0), OUT(TL_F16, D0)}, r_rtz, NULL, EXACT},                \
    {"py_tl_tuple", k_tl_tuple, "", SPROG, {1, 0}, 0, 0, {{0}}, {OUTC(TL_I32, 8, SENT)}, c_tl_tuple_ref, NULL,     \
     EXACT},                                                                                                        \
    {"py_list_comprehension", k_listcomp, B128, S1D, G1D, 1, 0, {IN(TL_I32, D0, -1000, 1000)}, {OUT(TL_I32, D0)},    \
     r_listcomp, NULL, EXACT},                                                                                      \
    {"py_cuda_intrinsics", k_cuda_intrinsics, "", SPROG, {1, 0}, 1, 0, {{0}}, {{TL_I64, D0, 4, SENT, SENT, 0}},   \
     NULL, c_cuda_intrinsics, EXACT},
