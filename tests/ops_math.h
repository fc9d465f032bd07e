/* ops_math.h: the numeric cases of the rest of Triton's math (language/math.py:
 * erf, umulhi, fdiv, div_rn, sqrt_rn; standard.softmax; minimum / maximum /
 * clamp with propagate_nan; fp64 exp, exp2, log, log2, sin, cos), the
 * libdevice functions and inline assembly, included by ops_test.c, whose
 * table takes MATH_CASES. References come from the C library in double. */

/* ------------------------------------------------------------------ fp64 */

/* the GPU's fp64 functions are tl's device math library (within 5 ulp) */
#define F64_TOL 1e-15, 1e-14
REF(r_f64_exp, want[0][i] = exp(a); want[1][i] = exp2(a); want[2][i] = log(b); want[3][i] = log2(b))
static const char k_f64_exp[] =
    PRE "def k(a_ptr, b_ptr, e_ptr, e2_ptr, l_ptr, l2_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert(tl.exp(a).dtype == tl.float64)\n"
    ST(e, "tl.exp(a)") ST(e2, "tl.exp2(a)") ST(l, "tl.log(b)") ST(l2, "b.log2()");
REF(r_f64_trig, want[0][i] = sin(a); want[1][i] = cos(a); want[2][i] = erf(b); want[3][i] = erf(a / 20))
static const char k_f64_trig[] =
    PRE "def k(a_ptr, b_ptr, s_ptr, c_ptr, e_ptr, f_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(s, "tl.sin(a)") ST(c, "tl.cos(a)") ST(e, "tl.math.erf(b)") ST(f, "tl.erf(a / 20)");

/* ------------------------------------------------------- math.py on fp32 */

static double erf32(double x) { return f32(erf(f32(x))); }
REF(r_math32, want[0][i] = erf32(a); want[1][i] = f32(a / b); want[2][i] = f32(f32(a) / f32(b + 1.5));
    want[3][i] = f32(sqrt(fabs(a))))
static const char k_math32[] =
    PRE "def k(a_ptr, b_ptr, e_ptr, d_ptr, r_ptr, s_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(e, "tl.erf(a)") ST(d, "tl.fdiv(a, b)") ST(r, "tl.math.div_rn(a, b + 1.5)") ST(s, "tl.sqrt_rn(tl.abs(a))");

/* umulhi: the high 32 bits of the unsigned 64-bit product, for int32 and uint32 */
static double umulhi(double a, double b) {
    return (double)(uint32_t)(((uint64_t)(uint32_t)(int32_t)a * (uint32_t)(int32_t)b) >> 32);
}
REF(r_umulhi, want[0][i] = (int32_t)(uint32_t)umulhi(a, b); want[1][i] = umulhi(a, 1000003);
    want[2][i] = (int32_t)(uint32_t)umulhi(a, -7))
static const char k_umulhi[] =
    PRE "def k(a_ptr, b_ptr, x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert(tl.umulhi(a, b).dtype == tl.int32)\n"
    ST(x, "tl.umulhi(a, b)") ST(y, "tl.umulhi(a.to(tl.uint32), 1000003)") ST(z, "tl.math.umulhi(a, -7)");

/* ------------------------------------------------- softmax, propagate_nan */

/* a row-wise softmax of a BM x BN tile, one program per row block: softmax
 * over dim 1 with keep_dims (masked lanes load -inf and contribute 0) */
static void r_softmax_std(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long i = 0; i < M; i++) {
        double mx = -INFINITY, sum = 0;
        for (long j = 0; j < N; j++)
            mx = fmax(mx, in[0][i * N + j]);
        for (long j = 0; j < N; j++)
            sum += exp(in[0][i * N + j] - mx);
        for (long j = 0; j < N; j++)
            want[0][i * N + j] = exp(in[0][i * N + j] - mx) / sum;
    }
}
static const char k_softmax_std[] =
    PRE "def k(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=-float('inf'))\n"
    "    y = tl.softmax(x, dim=1, keep_dims=True)\n"
    "    tl.store(out_ptr + rm[:, None] * N + rn[None, :], y, mask=mask)\n";

/* NaNs made in the kernel (0/0 where b > 0.5); propagate_nan=ALL keeps them
 * (stored as -100), the default ignores them */
static double nanify(double x, double b) { return b > 0.5 ? NAN : x; }
static double nan_out(double r) { return isnan(r) ? -100 : r; }
REF(r_nan_minmax, double x = nanify(a, b), y = nanify(b, a);
    want[0][i] = nan_out(isnan(x) || isnan(y) ? NAN : fmin(x, y)); want[1][i] = nan_out(fmax(x, y));
    want[2][i] = nan_out(isnan(x) ? NAN : fmin(fmax(x, -0.25), 0.25));
    want[3][i] = nan_out(isnan(x) || isnan(y) ? NAN : fmax(x, y)))
static const char k_nan_minmax[] =
    PRE "def k(a_ptr, b_ptr, p_ptr, q_ptr, c_ptr, r_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    z = a - a\n"
    "    x = tl.where(b > 0.5, z / z, a)\n"
    "    y = tl.where(a > 0.5, z / z, b)\n"
    "    p = tl.minimum(x, y, propagate_nan=tl.PropagateNan.ALL)\n"
    "    q = tl.maximum(x, y)\n"
    "    c = tl.clamp(x, -0.25, 0.25, propagate_nan=tl.PropagateNan.ALL)\n"
    "    r = tl.maximum(x, y, tl.PropagateNan.ALL)\n"
    ST(p, "tl.where(p != p, -100.0, p)") ST(q, "tl.where(q != q, -100.0, q)")
    ST(c, "tl.where(c != c, -100.0, c)") ST(r, "tl.where(r != r, -100.0, r)");

/* -------------------------------------------------------------- libdevice */

/* Run on the GPU only where libdevice.10.bc is found (TL_LIBDEVICE or the
 * CUDA toolkit); elsewhere the compile error says so and the case is skipped. */
REF(r_libdevice, want[0][i] = f32(asin(f32(a))) + f32(atan2(f32(a), f32(b)));
    want[1][i] = f32(pow(f32(b), 3)) + f32(cbrt(f32(b))); want[2][i] = ilogb(b) + (int)isnan(log(a)) * 100;
    want[3][i] = __builtin_popcount((unsigned)(int)f32(b * 1000)) + __builtin_clz((unsigned)(int)f32(b * 1000)))
static const char k_libdevice[] =
    "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n@triton.jit\n"
    "def k(a_ptr, b_ptr, x_ptr, y_ptr, i_ptr, j_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(x, "libdevice.asin(a) + tl.extra.cuda.libdevice.atan2(a, b)")
    ST(y, "libdevice.pow(b, 3) + libdevice.cbrt(b)")
    ST(i, "libdevice.ilogb(b) + libdevice.isnan(tl.log(a)) * 100")
    "    bi = (b * 1000).to(tl.int32)\n"
    ST(j, "libdevice.popc(bi) + libdevice.clz(bi)");

/* ------------------------------------------------------------ inline asm */

/* GPU only (the interpreter refuses inline PTX; run_case checks that): a
 * pack=1 add and Triton's documented pack=4 example (four uint8 in one
 * register in, an int32 and a float32 result out). */
REF(r_inline_asm, want[0][i] = a + 7 + (int)b * 2; want[1][i] = fmax(a, b))
static const char k_inline_asm[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, d_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    s = tl.inline_asm_elementwise('add.s32 $0, $1, $2;', '=r,r,r', [a.to(tl.int32), 7], dtype=tl.int32,\n"
    "                                  is_pure=True, pack=1)\n"
    "    t = tl.inline_asm_elementwise('cvt.rzi.s32.f32 $0, $1; shl.b32 $0, $0, 1;', '=r,r', [b], tl.int32, False, 1)\n"
    "    (c, d) = tl.inline_asm_elementwise(\n"
    "        asm='''{ .reg .b8 tmp<4>; mov.b32 {tmp0, tmp1, tmp2, tmp3}, $8;\n"
    "        cvt.u32.u8 $0, tmp0; cvt.u32.u8 $1, tmp1; cvt.u32.u8 $2, tmp2; cvt.u32.u8 $3, tmp3; }\n"
    "        cvt.rn.f32.s32 $4, $0; cvt.rn.f32.s32 $5, $1; cvt.rn.f32.s32 $6, $2; cvt.rn.f32.s32 $7, $3;\n"
    "        max.f32 $4, $4, $9; max.f32 $5, $5, $10; max.f32 $6, $6, $11; max.f32 $7, $7, $12;''',\n"
    "        constraints='=r,=r,=r,=r,=r,=r,=r,=r,r,r,r,r,r', args=[a, b], dtype=(tl.int32, tl.float32),\n"
    "        is_pure=True, pack=4)\n"
    ST(c, "c + s - a + t") ST(d, "d");

/* Pointer operands ("l": the 64-bit address), as upstream's
 * test_inline_asm_with_pointers: the asm loads and stores through them
 * itself, under the mask it is given as an int (is_pure=False keeps it). */
REF(r_inline_asm_ptr, want[0][i] = (double)(((int)a << 3) & 0xff); want[1][i] = a * 8 + b)
static const char k_inline_asm_ptr[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, d_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b)
    "    t = tl.inline_asm_elementwise('{ .reg .pred p; setp.ne.s32 p, $3, 0; mov.b32 $0, 0; '\n"
    "                                  '@p ld.global.b8 $0, [$1]; shl.b32 $0, $0, 3; @p st.global.b8 [$2], $0; }',\n"
    "                                  '=r,l,l,r', [a_ptr + offs, c_ptr + offs, mask.to(tl.int32)], dtype=tl.int32,\n"
    "                                  is_pure=False, pack=1)\n"
    ST(d, "t + b");

#define MATH_CASES                                                                                                   \
    {"math_f64_exp_log", k_f64_exp, B128, S1D, G1D, 1, 0, {IN(TL_F64, D0, -30, 30), IN(TL_F64, D0, 1e-3, 1e3)},       \
     {OUT(TL_F64, D0), OUT(TL_F64, D0), OUT(TL_F64, D0), OUT(TL_F64, D0)}, r_f64_exp, NULL, F64_TOL},                \
    {"math_f64_sin_cos_erf", k_f64_trig, B128, S1D, G1D, 1, 0, {IN(TL_F64, D0, -100, 100), IN(TL_F64, D0, -7, 7)},  \
     {OUT(TL_F64, D0), OUT(TL_F64, D0), OUT(TL_F64, D0), OUT(TL_F64, D0)}, r_f64_trig, NULL, F64_TOL},               \
    {"math_erf_fdiv_div_rn_sqrt_rn", k_math32, B128, S1D, G1D, 1, 0, {F1D(-4, 4), F1D(0.5, 3)},                      \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_math32, NULL, 1e-7, 2e-7},              \
    {"math_umulhi", k_umulhi, B128, S1D, G1D, 1, 0, {I1D(-2000000000, 2000000000), I1D(-2000000000, 2000000000)},     \
     {OUT(TL_I32, D0), OUT(TL_U32, D0), OUT(TL_I32, D0)}, r_umulhi, NULL, EXACT},                                     \
    {"math_softmax", k_softmax_std, "-D BM=4 -D BN=64", S2D_SMALL, {4, 0}, 2, 0, {IN(TL_F32, D0 | D1, -5, 5)},     \
     {OUT(TL_F32, D0 | D1)}, r_softmax_std, NULL, 1e-6, 1e-5},                                                        \
    {"math_propagate_nan", k_nan_minmax, B128, S1D, G1D, 1, 0, {F1D(-1, 1), F1D(-1, 1)},                            \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_nan_minmax, NULL, EXACT},                \
    {"libdevice_asin_pow_ilogb_popc", k_libdevice, B128, S1D, G1D, 1, 0, {F1D(-1, 1), F1D(0.001, 4)},               \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_libdevice, NULL, 1e-6, 1e-5},         \
    {"inline_asm_pack1_pack4", k_inline_asm, "-D BLOCK=512", S1D, {512, 0}, 1, 0,                                   \
     {IN(TL_U8, D0, 1, 255), F1D(-300, 300)}, {OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_inline_asm, NULL, EXACT},       \
    {"inline_asm_pointers", k_inline_asm_ptr, "-D BLOCK=512", S1D, {512, 0}, 1, 0,                                  \
     {IN(TL_U8, D0, 1, 255), I1D(-1000, 1000)}, {OUT(TL_U8, D0), OUT(TL_I32, D0)}, r_inline_asm_ptr, NULL, EXACT},
