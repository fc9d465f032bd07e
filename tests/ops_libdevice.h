/* ops_libdevice.h: numeric cases of the libdevice functions beyond the C
 * library's (compiler/libdevice.c): the _rn/_rz/_rd/_ru arithmetic and
 * conversions, bit reinterpretations, the integer functions, the fast_*
 * functions, norms, Bessel functions, erfinv / erfcinv / normcdfinv.
 * Included by ops_test.c, whose table takes LIBDEVICE_CASES.
 *
 * References are computed another way than libdevice.c computes them:
 * directed rounding from the round-to-nearest result and the exact sign of
 * the rounding error (error-free sums, fma and binary128 remainders,
 * __int128), never under fesetround; Bessel I0 / I1 and Jn by the
 * trapezoidal rule on their integral over [0, pi] (spectrally accurate for
 * these periodic integrands), Yn by upward recurrence from y0 / y1, the
 * inverse error functions by bisection over the bit patterns of doubles.
 * Inputs marked EDGE carry NaN, infinities, signed zeros, denormals, ties
 * and the ends of the integer ranges every third element. */

#define LPRE "import triton\nimport triton.language as tl\nfrom triton.language.extra import libdevice\n\n\n@triton.jit\n"
#define OUT4 "w_ptr, x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):\n" OFFS
/* libdevice.F_rn / _rz / _rd / _ru (ARGS) to the outputs w, x, y, z */
#define MODES(f, args)                                                                                \
    ST(w, "libdevice." f "_rn(" args ")") ST(x, "libdevice." f "_rz(" args ")")                     \
    ST(y, "libdevice." f "_rd(" args ")") ST(z, "libdevice." f "_ru(" args ")")
#define O4(dt) {OUT(dt, D0), OUT(dt, D0), OUT(dt, D0), OUT(dt, D0)}

/* ------------------------------------------------------ directed rounding */

enum { RN, RZ, RD, RU };
static int sgn(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
typedef __float128 Quad;
static int sgnq(Quad x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }

/* The result in mode m of an operation whose round-to-nearest result is rn
 * (an fp32 value when single) and whose exact value minus rn has sign sg:
 * rn itself, or its neighbour on the exact value's side. */
static double directed(double rn, int sg, int m, int single) {
    if (sg == 0 || m == RN || isnan(rn))
        return rn;
    if (m == RZ) /* toward zero: down for a positive exact value */
        m = rn > 0 || (rn == 0 && sg > 0) ? RD : RU;
    if ((m == RD && sg > 0) || (m == RU && sg < 0))
        return rn;
    double to = m == RD ? -INFINITY : INFINITY;
    return single ? nextafterf((float)rn, (float)to) : nextafter(rn, to);
}

/* a + b - s exactly, for s = a + b rounded (Knuth's TwoSum); 0 if s is not finite */
static double two_sum_err(double a, double b, double s) {
    if (!isfinite(s))
        return 0;
    double bb = s - a;
    return (a - (s - bb)) + (b - bb);
}
static Quad two_sum_errq(Quad a, Quad b, Quad s) {
    Quad bb = s - a;
    return (a - (s - bb)) + (b - bb);
}

/* fp32 rounding of an exact value s + e, s a double, |e| under half an ulp of
 * s and of sign es: rn and the sign of exact - rn. (float)s is right unless
 * s is the midpoint of two floats and e is not 0: then e picks the side. */
static void round_f32(double s, int es, double *rn, int *sg) {
    float r = (float)s;
    *rn = r;
    if (!isfinite(s)) {
        *sg = 0;
        return;
    }
    double d = s - r; /* exact; -inf when r overflowed */
    if (d == 0) {
        *sg = es;
        return;
    }
    float other = nextafterf(r, d > 0 ? INFINITY : -INFINITY);
    *sg = sgn(d);
    if (!isinf(r) && es != 0 && (double)r + other == 2 * s && (es > 0) == (d > 0)) {
        *rn = other;
        *sg = -sgn(d);
    }
}

/* fp32 operations: the exact value as a double plus the sign of what it lacks */
#define X32(name, ...) \
    static void name(double a, double b, double c, double *rn, int *sg) { (void)b, (void)c; __VA_ARGS__; }
X32(x32_add, double s = a + b; round_f32(s, sgn(two_sum_err(a, b, s)), rn, sg))
X32(x32_sub, double s = a - b; round_f32(s, sgn(two_sum_err(a, -b, s)), rn, sg))
X32(x32_mul, round_f32(a * b, 0, rn, sg)) /* exact: 48 bits */
X32(x32_div, double s = a / b; round_f32(s, sgn(fma(-s, b, a)) * sgn(b), rn, sg))
X32(x32_fma, double p = a * b, s = p + c; round_f32(s, sgn(two_sum_err(p, c, s)), rn, sg))
X32(x32_rcp, double s = 1 / a; round_f32(s, sgn(fma(-s, a, 1)) * sgn(a), rn, sg))
X32(x32_sqrt, double s = sqrt(a); round_f32(s, sgn(fma(-s, s, a)), rn, sg))

/* fp64 operations: rn in double, the sign of the error in binary128 or by
 * TwoSum (an overflow to inf from finite operands lies above the exact value) */
#define X64(name, ...) \
    static void name(double a, double b, double c, double *rn, int *sg) { (void)b, (void)c; __VA_ARGS__; }
static int overflow_sign(double s) { return -sgn(s); }
X64(x64_add, double s = a + b; *rn = s;
    *sg = isinf(s) && isfinite(a) && isfinite(b) ? overflow_sign(s) : sgn(two_sum_err(a, b, s)))
X64(x64_sub, double s = a - b; *rn = s;
    *sg = isinf(s) && isfinite(a) && isfinite(b) ? overflow_sign(s) : sgn(two_sum_err(a, -b, s)))
X64(x64_mul, double s = a * b; *rn = s; *sg = sgnq((Quad)a * b - s))
X64(x64_div, double s = a / b; *rn = s;
    *sg = !isfinite(a) || !isfinite(b) || b == 0 ? 0 : sgnq((Quad)a - (Quad)s * b) * sgn(b))
X64(x64_rcp, double s = 1 / a; *rn = s; *sg = !isfinite(a) || a == 0 ? 0 : sgnq(1 - (Quad)s * a) * sgn(a))
X64(x64_sqrt, double s = sqrt(a); *rn = s; *sg = sgnq((Quad)a - (Quad)s * s))
X64(x64_fma, double s = fma(a, b, c); *rn = s; Quad t = (Quad)a * b, hi = t + c, lo = two_sum_errq(t, c, hi);
    Quad d = hi - s; *sg = sgnq(d) ? sgnq(d) : sgnq(lo))

#define MODE_REF(fn, single, exact)                                                   \
    REF(fn, double rn; int sg; exact(a, b, c, &rn, &sg);                             \
        for (int m = 0; m < 4; m++) want[m][i] = directed(rn, sg, m, single))
MODE_REF(r_add32, 1, x32_add) MODE_REF(r_sub32, 1, x32_sub) MODE_REF(r_mul32, 1, x32_mul)
MODE_REF(r_div32, 1, x32_div) MODE_REF(r_fma32, 1, x32_fma) MODE_REF(r_rcp32, 1, x32_rcp)
MODE_REF(r_sqrt32, 1, x32_sqrt)
MODE_REF(r_add64, 0, x64_add) MODE_REF(r_sub64, 0, x64_sub) MODE_REF(r_mul64, 0, x64_mul)
MODE_REF(r_div64, 0, x64_div) MODE_REF(r_fma64, 0, x64_fma) MODE_REF(r_rcp64, 0, x64_rcp)
MODE_REF(r_sqrt64, 0, x64_sqrt)

static const char k_add[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) MODES("add", "a, b");
static const char k_sub[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) MODES("sub", "a, b");
static const char k_mul[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) MODES("mul", "a, b");
static const char k_div[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) MODES("div", "a, b");
static const char k_fma[] = LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) MODES("fma", "a, b, c");
static const char k_rcp[] = LPRE "def k(a_ptr, " OUT4 LD(a) MODES("rcp", "a");
static const char k_sqrt[] = LPRE "def k(a_ptr, " OUT4 LD(a) MODES("sqrt", "a");

/* ------------------------------------------------------------ conversions */

/* x = ldexp(a, e): fractions, ties, overflow and denormal results */
#define CVT_KERNEL(f)                                                                                   \
    LPRE "def k(a_ptr, e_ptr, " OUT4 LD(a) LD(e) "    x = libdevice.ldexp(a, e.to(tl.int32))\n" MODES(f, "x")
static const char k_d2f[] = CVT_KERNEL("double2float");
static const char k_d2i[] = CVT_KERNEL("double2int");
static const char k_d2u[] = CVT_KERNEL("double2uint");
static const char k_f2i[] = CVT_KERNEL("float2int");
static const char k_f2u[] = CVT_KERNEL("float2uint");
static const char k_f2ll[] = CVT_KERNEL("float2ll");
static const char k_f2ull[] = CVT_KERNEL("float2ull");
static const char k_d2ll[] = CVT_KERNEL("double2ll");
static const char k_d2ull[] = CVT_KERNEL("double2ull");

REF(r_d2f, double rn; int sg; round_f32(ldexp(a, (int)b), 0, &rn, &sg);
    for (int m = 0; m < 4; m++) want[m][i] = directed(rn, sg, m, 1))

/* Float to integer: round in mode m, saturate to the type's range; NaN is 0
 * from fp32 into 32 bits, else the sign bit alone (what the GPU's cvt gives;
 * libdevice.c to_int) */
static double ref_int(double x, int m, int bits, int uns, int from_double) {
    if (isnan(x))
        return bits == 32 && !from_double ? 0 : uns ? ldexp(1, bits - 1) : -ldexp(1, bits - 1);
    double t = m == RN ? rint(x) : m == RZ ? trunc(x) : m == RD ? floor(x) : ceil(x);
    double lo = uns ? 0 : -ldexp(1, bits - 1), hi = uns ? ldexp(1, bits) - 1 : ldexp(1, bits - 1) - 1;
    return t < lo ? lo : t > hi ? hi : t;
}
#define INT_REF(fn, single, bits, uns, dbl)                                            \
    REF(fn, double x = single ? f32(ldexp(a, (int)b)) : ldexp(a, (int)b);             \
        for (int m = 0; m < 4; m++) want[m][i] = ref_int(x, m, bits, uns, dbl))
INT_REF(r_d2i, 0, 32, 0, 1) INT_REF(r_d2u, 0, 32, 1, 1) INT_REF(r_f2i, 1, 32, 0, 0) INT_REF(r_f2u, 1, 32, 1, 0)
INT_REF(r_f2ll, 1, 64, 0, 0) INT_REF(r_f2ull, 1, 64, 1, 0) INT_REF(r_d2ll, 0, 64, 0, 1)
INT_REF(r_d2ull, 0, 64, 1, 1)

/* Integer to float: the exact value in __int128 */
static double ref_from_int(__int128 v, int single, int m) {
    double rn = single ? (double)(float)v : (double)v;
    int sg = v > (__int128)rn ? 1 : v < (__int128)rn ? -1 : 0;
    return directed(rn, sg, m, single);
}
/* 64-bit integers from two int32 inputs (every bit random), their low half
 * alone at every fourth element */
static __int128 ll_of(long i, double a, double b) {
    uint64_t hi = (uint32_t)(int32_t)a, lo = (uint32_t)(int32_t)b;
    return i % 4 == 1 ? (__int128)(int32_t)b : (__int128)(int64_t)(hi << 32 | lo);
}
#define LL "    v = tl.where(offs % 4 == 1, b.to(tl.int64), (a.to(tl.int64) << 32) | (b.to(tl.int64) & 0xffffffff))\n"
static const char k_i2f[] = LPRE "def k(a_ptr, " OUT4 LD(a) MODES("int2float", "a");
static const char k_u2f[] = LPRE "def k(a_ptr, " OUT4 LD(a) MODES("uint2float", "a.to(tl.uint32)");
static const char k_ll2f[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) LL MODES("ll2float", "v");
static const char k_ull2f[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) LL MODES("ull2float", "v.to(tl.uint64)");
static const char k_ll2d[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) LL MODES("ll2double", "v");
static const char k_ull2d[] = LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) LL MODES("ull2double", "v.to(tl.uint64)");
REF(r_i2f, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int((int32_t)a, 1, m))
REF(r_u2f, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int((uint32_t)(int32_t)a, 1, m))
REF(r_ll2f, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int(ll_of(i, a, b), 1, m))
REF(r_ull2f, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int((uint64_t)(int64_t)ll_of(i, a, b), 1, m))
REF(r_ll2d, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int(ll_of(i, a, b), 0, m))
REF(r_ull2d, for (int m = 0; m < 4; m++) want[m][i] = ref_from_int((uint64_t)(int64_t)ll_of(i, a, b), 0, m))

/* int2double_rn, uint2double_rn (exact); llrint (ties to even), llround
 * (ties away from zero) from fp64 and fp32 */
static const char k_i2d[] =
    LPRE "def k(a_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    ST(x, "libdevice.int2double_rn(a)") ST(y, "libdevice.uint2double_rn(a.to(tl.uint32))");
REF(r_i2d, want[0][i] = (int32_t)a; want[1][i] = (uint32_t)(int32_t)a)
static double ref_llround(double x) { return isnan(x) ? -0x1p63 : fmax(fmin(round(x), 0x1p63), -0x1p63); }
static const char k_llrint[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.llrint(a)") ST(x, "libdevice.llround(a)")
    ST(y, "libdevice.llrint(a.to(tl.float32))") ST(z, "libdevice.llround(a.to(tl.float32))");
REF(r_llrint, want[0][i] = ref_int(a, RN, 64, 0, 1); want[1][i] = ref_llround(a);
    want[2][i] = ref_int(f32(a), RN, 64, 0, 0); want[3][i] = ref_llround(f32(a)))

/* ---------------------------------------------------------------- bits */

static double bits_d_hi(double x) { uint64_t u; memcpy(&u, &x, 8); return (int32_t)(uint32_t)(u >> 32); }
static double bits_d_lo(double x) { uint64_t u; memcpy(&u, &x, 8); return (int32_t)(uint32_t)u; }
static double bits_to_d(uint64_t u) { double x; memcpy(&x, &u, 8); return x; }
static const char k_bits32[] =
    LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) ST(w, "libdevice.float_as_int(a)") ST(x, "libdevice.float_as_uint(a)")
    ST(y, "libdevice.int_as_float(b)") ST(z, "libdevice.uint_as_float(b.to(tl.uint32))");
REF(r_bits32, want[0][i] = bits_f2i(a); want[1][i] = (uint32_t)(int32_t)bits_f2i(a); want[2][i] = bits_i2f(b);
    want[3][i] = bits_i2f(b))
static const char k_bits64[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c)
    ST(w, "libdevice.double2hiint(a)") ST(x, "libdevice.double2loint(a)")
    ST(y, "libdevice.hiloint2double(b, c)")
    ST(z, "libdevice.longlong_as_double((c.to(tl.int64) << 32) | (b.to(tl.int64) & 0xffffffff))");
REF(r_bits64, want[0][i] = bits_d_hi(a); want[1][i] = bits_d_lo(a);
    want[2][i] = bits_to_d((uint64_t)(uint32_t)(int32_t)b << 32 | (uint32_t)(int32_t)c);
    want[3][i] = bits_to_d((uint64_t)(uint32_t)(int32_t)c << 32 | (uint32_t)(int32_t)b))
static const char k_bits64b[] =
    LPRE "def k(a_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    v = libdevice.double_as_longlong(a)\n" ST(x, "(v >> 32).to(tl.int32)") ST(y, "v.to(tl.int32)");
REF(r_bits64b, want[0][i] = bits_d_hi(a); want[1][i] = bits_d_lo(a))

/* ------------------------------------------------------ integer functions */

/* hadd / rhadd: floor and ceiling of the average; mul24: the low 32 bits of
 * the product of the low 24 bits (sign-extended for int32); sad: |a - b| + c */
static double wrap32(int64_t v, int uns) { return uns ? (double)(uint32_t)v : (double)(int32_t)(uint32_t)v; }
static int64_t low24(int64_t v, int uns) { return uns ? v & 0xffffff : (int32_t)((uint32_t)v << 8) >> 8; }
#define INT_OPS_REF(fn, uns)                                                                               \
    REF(fn, int64_t x = uns ? (int64_t)(uint32_t)a : (int32_t)a, y = uns ? (int64_t)(uint32_t)b : (int32_t)b; \
        want[0][i] = floor((x + y) / 2.0); want[1][i] = ceil((x + y) / 2.0);                            \
        want[2][i] = wrap32(low24(x, uns) * low24(y, uns), uns);                                          \
        want[3][i] = wrap32((x > y ? x - y : y - x) + (uint32_t)(int64_t)c, uns))
INT_OPS_REF(r_int_ops, 0) INT_OPS_REF(r_uint_ops, 1)
static const char k_int_ops[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) ST(w, "libdevice.hadd(a, b)") ST(x, "libdevice.rhadd(a, b)")
    ST(y, "libdevice.mul24(a, b)") ST(z, "libdevice.sad(a, b, c.to(tl.uint32))");
static const char k_uint_ops[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) ST(w, "libdevice.hadd(a, b)") ST(x, "libdevice.rhadd(a, b)")
    ST(y, "libdevice.mul24(a, b)") ST(z, "libdevice.sad(a, b, c)");

/* byte_perm with selectors whose nibbles' fourth bits are clear (CUDA
 * documents only the low three; the high 16 bits are ignored) */
static double byte_perm_ref(double x, double y, double s) {
    unsigned char in[8], out[4];
    uint32_t ux = (uint32_t)(int32_t)x, uy = (uint32_t)(int32_t)y, us = (uint32_t)(int32_t)s, r;
    memcpy(in, &ux, 4); /* little-endian: byte 0 is the low byte */
    memcpy(in + 4, &uy, 4);
    for (int k = 0; k < 4; k++)
        out[k] = in[(us >> (4 * k)) & 7];
    memcpy(&r, out, 4);
    return (int32_t)r;
}
static const char k_byte_perm[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) ST(w, "libdevice.byte_perm(a, b, c & -34953)")
    ST(x, "libdevice.byte_perm(a, b, 0x3210)") ST(y, "libdevice.byte_perm(a, b, 0x7654)")
    ST(z, "libdevice.byte_perm(a, b, 0x0527)");
REF(r_byte_perm, want[0][i] = byte_perm_ref(a, b, (double)((int32_t)c & -34953)); want[1][i] = (int32_t)a;
    want[2][i] = (int32_t)b; want[3][i] = byte_perm_ref(a, b, 0x0527))

/* ------------------------------------------------------------ fast_* */

/* the GPU's approximations (CUDA's bounds: __sinf / __cosf 2^-21.4 absolute
 * on [-pi, pi], __expf 2 + 1.16|x| ulp, __logf 2^-21.4 absolute on [0.5, 2],
 * __powf from __exp2f(y __log2f(x)), __fdividef 2 ulp): compared within 1e-5 */
static const char k_fast_trig[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.fast_sinf(a)") ST(x, "libdevice.fast_cosf(a)")
    ST(y, "libdevice.fast_tanf(a * 0.4)") ST(z, "libdevice.fast_expf(a)");
REF(r_fast_trig, want[0][i] = sin(a); want[1][i] = cos(a); want[2][i] = tan(f32(a * f32(0.4))); want[3][i] = exp(a))
static const char k_fast_log[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.fast_logf(a)") ST(x, "libdevice.fast_log2f(a)")
    ST(y, "libdevice.fast_log10f(a)") ST(z, "libdevice.fast_exp10f(a * 0.03)");
REF(r_fast_log, want[0][i] = log(a); want[1][i] = log2(a); want[2][i] = log10(a); want[3][i] = pow(10, f32(a * f32(0.03))))
static const char k_fast_pow[] =
    LPRE "def k(a_ptr, b_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(x, "libdevice.fast_powf(a, b)") ST(y, "libdevice.fast_dividef(b, a)");
REF(r_fast_pow, want[0][i] = pow(a, b); want[1][i] = b / a)

/* ----------------------------------------------- rsqrt_rn, rcp64h, scalbn */

/* rsqrt_rn is correctly rounded: the reference in long double (64 bits)
 * rounded once more to fp32 */
static double rsqrt_ref(double x) { return isnan(x) || x < 0 ? NAN : (float)(1.0L / sqrtl(x)); }
static const char k_ld_rsqrt[] =
    LPRE "def k(a_ptr, e_ptr, " OUT4 LD(a) LD(e) ST(w, "libdevice.rsqrt_rn(a)")
    ST(x, "libdevice.rsqrt_rn(a * a * 0.001)") ST(y, "libdevice.scalbn(a, e.to(tl.int32))")
    ST(z, "libdevice.scalbn(a.to(tl.float64), e.to(tl.int32) * 8)");
REF(r_ld_rsqrt, want[0][i] = rsqrt_ref(a); want[1][i] = rsqrt_ref(f32(f32(a * a) * f32(0.001)));
    want[2][i] = f32(ldexp(a, (int)b)); want[3][i] = ldexp(a, (int)b * 8))
/* rcp64h: an approximate reciprocal with a 20-bit fraction (within 2^-19) */
static const char k_rcp64h[] =
    LPRE "def k(a_ptr, x_ptr, y_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    ST(x, "libdevice.rcp64h(a)") ST(y, "libdevice.rcp64h(a * 1e-300)");
REF(r_rcp64h, want[0][i] = 1 / a; want[1][i] = 1 / (a * 1e-300))

/* --------------------------------------------------------------- norms */

static double norm_ref(int n, const double *v, int recip) {
    double s = 0;
    for (int k = 0; k < n; k++)
        if (isinf(v[k]))
            return recip ? 0 : INFINITY;
    for (int k = 0; k < n; k++)
        s = hypot(s, v[k]); /* another way: hypot folded over the arguments */
    return recip ? 1 / s : s;
}
#define NORM(n, recip, ...) norm_ref(n, (const double[]){__VA_ARGS__}, recip)
static const char k_norms[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) ST(w, "libdevice.rhypot(a, b)")
    ST(x, "libdevice.norm3d(a, b, c)") ST(y, "libdevice.rnorm3d(a, b, c)") ST(z, "libdevice.norm4d(a, b, c, a)");
static const char k_norms2[] =
    LPRE "def k(a_ptr, b_ptr, c_ptr, " OUT4 LD(a) LD(b) LD(c) ST(w, "libdevice.rnorm4d(a, b, c, b)")
    ST(x, "libdevice.norm4d(c, c, a, b)") ST(y, "libdevice.rhypot(c, a)") ST(z, "libdevice.rnorm3d(c, b, a)");
#define NORM_REFS(fn, round)                                                                                         \
    REF(fn, want[0][i] = round(NORM(2, 1, a, b)); want[1][i] = round(NORM(3, 0, a, b, c));                      \
        want[2][i] = round(NORM(3, 1, a, b, c)); want[3][i] = round(NORM(4, 0, a, b, c, a)))                     \
    REF(fn##2, want[0][i] = round(NORM(4, 1, a, b, c, b)); want[1][i] = round(NORM(4, 0, c, c, a, b));          \
        want[2][i] = round(NORM(2, 1, c, a)); want[3][i] = round(NORM(3, 1, c, b, a)))
static double same(double x) { return x; }
NORM_REFS(r_norms32, f32) NORM_REFS(r_norms64, same)

/* ------------------------------------------------------------- Bessel */

/* (1/pi) int_0^pi f(t) dt by the trapezoidal rule: the integrands are
 * smooth and periodic, so 128 panels are exact to rounding for |x| <= 40 */
static double trapezoid(double (*f)(double t, int n, double x), int n, double x) {
    double s = 0;
    for (int j = 0; j <= 128; j++) {
        double v = f(M_PI * j / 128, n, x);
        s += j == 0 || j == 128 ? v / 2 : v;
    }
    return s / 128;
}
static double i_integrand(double t, int n, double x) { return exp(x * cos(t)) * (n ? cos(t) : 1); }
static double j_integrand(double t, int n, double x) { return cos(n * t - x * sin(t)); }
static double bessel_i_ref(int n, double x) {
    if (isinf(x) || fabs(x) > 800)
        return n && x < 0 ? -INFINITY : INFINITY;
    if (fabs(x) < 1e-3) /* the integral of I1 cancels to its rounding: three terms of the series */
        return n ? x / 2 * (1 + x * x / 8 + x * x * x * x / 192) : 1 + x * x / 4 + x * x * x * x / 64;
    return trapezoid(i_integrand, n, x);
}
static double jn_ref(int n, double x) { return n < 0 ? NAN : trapezoid(j_integrand, n, x); }
static double yn_ref(int n, double x) {
    if (n < 0)
        return NAN;
    double y0v = y0(x), y1v = y1(x);
    for (int k = 1; k < n; k++) {
        double t = 2 * k / x * y1v - y0v;
        y0v = y1v, y1v = t;
    }
    return n == 0 ? y0v : y1v;
}
static const char k_bessel_i[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.cyl_bessel_i0(a)") ST(x, "libdevice.cyl_bessel_i1(a)")
    ST(y, "libdevice.cyl_bessel_i0(a * 0.125)") ST(z, "libdevice.cyl_bessel_i1(a * 0.125)");
#define BESSEL_I_REF(fn, round)                                                                             \
    REF(fn, want[0][i] = round(bessel_i_ref(0, a)); want[1][i] = round(bessel_i_ref(1, a));               \
        want[2][i] = round(bessel_i_ref(0, round(a * 0.125))); want[3][i] = round(bessel_i_ref(1, round(a * 0.125))))
BESSEL_I_REF(r_bessel_i32, f32) BESSEL_I_REF(r_bessel_i64, same)
static const char k_jn_yn[] =
    LPRE "def k(a_ptr, b_ptr, " OUT4 LD(a) LD(b) ST(w, "libdevice.jn(a, b)") ST(x, "libdevice.yn(a, b)")
    ST(y, "libdevice.jn(2, b)") ST(z, "libdevice.yn(3, b)");
#define JN_REF(fn, round)                                                                              \
    REF(fn, want[0][i] = round(jn_ref((int)a, b)); want[1][i] = round(yn_ref((int)a, b));            \
        want[2][i] = round(jn_ref(2, b)); want[3][i] = round(yn_ref(3, b)))
JN_REF(r_jn32, f32) JN_REF(r_jn64, same)

/* ------------------------------------------------ inverse error functions */

static uint64_t dbits(double x) { uint64_t u; memcpy(&u, &x, 8); return u; }
/* The largest double x in [0, 28] with f(x) <= target (f increasing) or
 * f(x) >= target (decreasing): bisection over the ordered bit patterns. */
static double bisect(double (*f)(double), double target, int increasing) {
    uint64_t lo = 0, hi = dbits(28.0);
    while (hi - lo > 1) {
        uint64_t mid = lo + (hi - lo) / 2;
        double v = f(bits_to_d(mid));
        if (increasing ? v <= target : v >= target)
            lo = mid;
        else
            hi = mid;
    }
    return bits_to_d(lo);
}
static double erfinv_ref(double y) {
    if (isnan(y) || fabs(y) > 1)
        return NAN;
    if (fabs(y) == 1)
        return copysign(INFINITY, y);
    double m = fabs(y);
    return copysign(m <= 0.5 ? bisect(erf, m, 1) : bisect(erfc, 1 - m, 0), y);
}
static double erfcinv_ref(double c) {
    if (isnan(c) || c < 0 || c > 2)
        return NAN;
    if (c == 0)
        return INFINITY;
    if (c > 1)
        return -erfcinv_ref(2 - c);
    return c >= 0.5 ? bisect(erf, 1 - c, 1) : bisect(erfc, c, 0);
}
static double normcdfinv_ref(double p) { return -M_SQRT2 * erfcinv_ref(2 * p); }
static const char k_erfinv64[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.erfinv(a)") ST(x, "libdevice.erfcinv(a + 1.0)")
    ST(y, "libdevice.normcdfinv(a * 0.5 + 0.5)") ST(z, "libdevice.erfcinv(tl.exp(-700.0 * a * a))");
REF(r_erfinv64, want[0][i] = erfinv_ref(a); want[1][i] = erfcinv_ref(a + 1.0);
    want[2][i] = normcdfinv_ref(a * 0.5 + 0.5); want[3][i] = erfcinv_ref(exp(-700.0 * a * a)))
static const char k_erfinv32[] =
    LPRE "def k(a_ptr, " OUT4 LD(a) ST(w, "libdevice.erfinv(a)") ST(x, "libdevice.erfcinv(a + 1.0)")
    ST(y, "libdevice.normcdfinv(a * 0.5 + 0.5)") ST(z, "libdevice.erfcinv(a * a * 1e-30)");
REF(r_erfinv32, want[0][i] = f32(erfinv_ref(a)); want[1][i] = f32(erfcinv_ref(f32(a + 1.0)));
    want[2][i] = f32(normcdfinv_ref(f32(a * 0.5 + 0.5))); want[3][i] = f32(erfcinv_ref(f32(f32(a * a) * f32(1e-30)))))

#define LD_ARITH(name, k, dt, ref, ...) {"libdevice_" name, k, B128, S1D, G1D, 1, 0, {__VA_ARGS__}, O4(dt), ref, NULL, EXACT}
#define E32 EDGE(TL_F32, D0, -4, 4)
#define E64 EDGE(TL_F64, D0, -4, 4)
#define LD_CVT(name, k, dt, elo, ehi, odt, ref) \
    {"libdevice_" name, k, B128, S1D, G1D, 1, 0, {EDGE(dt, D0, -4, 4), IN(dt, D0, elo, ehi)}, O4(odt), ref, NULL, EXACT}

#define LIBDEVICE_CASES                                                                                           \
    LD_ARITH("add_rn_rz_rd_ru_f32", k_add, TL_F32, r_add32, E32, E32),                                           \
    LD_ARITH("sub_modes_f32", k_sub, TL_F32, r_sub32, E32, E32),                                                 \
    LD_ARITH("mul_modes_f32", k_mul, TL_F32, r_mul32, E32, E32),                                                 \
    LD_ARITH("div_modes_f32", k_div, TL_F32, r_div32, E32, E32),                                                 \
    LD_ARITH("fma_modes_f32", k_fma, TL_F32, r_fma32, E32, E32, E32),                                                 \
    LD_ARITH("rcp_modes_f32", k_rcp, TL_F32, r_rcp32, E32),                                                 \
    LD_ARITH("sqrt_modes_f32", k_sqrt, TL_F32, r_sqrt32, EDGE(TL_F32, D0, 0, 100)),                                             \
    LD_ARITH("add_modes_f64", k_add, TL_F64, r_add64, E64, E64),                                                 \
    LD_ARITH("sub_modes_f64", k_sub, TL_F64, r_sub64, E64, E64),                                                 \
    LD_ARITH("mul_modes_f64", k_mul, TL_F64, r_mul64, E64, E64),                                                 \
    LD_ARITH("div_modes_f64", k_div, TL_F64, r_div64, E64, E64),                                                 \
    LD_ARITH("fma_modes_f64", k_fma, TL_F64, r_fma64, E64, E64, E64),                                                 \
    LD_ARITH("rcp_modes_f64", k_rcp, TL_F64, r_rcp64, E64),                                                 \
    LD_ARITH("sqrt_modes_f64", k_sqrt, TL_F64, r_sqrt64, EDGE(TL_F64, D0, 0, 100)),                                             \
    LD_CVT("double2float_modes", k_d2f, TL_F64, -160, 130, TL_F32, r_d2f),                                      \
    LD_CVT("double2int_modes", k_d2i, TL_F64, -3, 34, TL_I32, r_d2i),                                           \
    LD_CVT("double2uint_modes", k_d2u, TL_F64, -3, 34, TL_U32, r_d2u),                                          \
    LD_CVT("float2int_modes", k_f2i, TL_F32, -3, 34, TL_I32, r_f2i),                                            \
    LD_CVT("float2uint_modes", k_f2u, TL_F32, -3, 34, TL_U32, r_f2u),                                           \
    LD_CVT("float2ll_modes", k_f2ll, TL_F32, -3, 66, TL_I64, r_f2ll),                                           \
    LD_CVT("float2ull_modes", k_f2ull, TL_F32, -3, 66, TL_U64, r_f2ull),                                        \
    LD_CVT("double2ll_modes", k_d2ll, TL_F64, -3, 66, TL_I64, r_d2ll),                                          \
    LD_CVT("double2ull_modes", k_d2ull, TL_F64, -3, 66, TL_U64, r_d2ull),                                       \
    {"libdevice_int2float_modes", k_i2f, B128, S1D, G1D, 1, 0, {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)},          \
     O4(TL_F32), r_i2f, NULL, EXACT},                                                                             \
    {"libdevice_uint2float_modes", k_u2f, B128, S1D, G1D, 1, 0, {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)},         \
     O4(TL_F32), r_u2f, NULL, EXACT},                                                                             \
    {"libdevice_ll2float_modes", k_ll2f, B128, S1D, G1D, 1, 0,                                                    \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_F32), r_ll2f, NULL,  \
     EXACT},                                                                                                       \
    {"libdevice_ull2float_modes", k_ull2f, B128, S1D, G1D, 1, 0,                                                  \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_F32), r_ull2f, NULL, \
     EXACT},                                                                                                       \
    {"libdevice_ll2double_modes", k_ll2d, B128, S1D, G1D, 1, 0,                                                   \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_F64), r_ll2d, NULL,  \
     EXACT},                                                                                                       \
    {"libdevice_ull2double_modes", k_ull2d, B128, S1D, G1D, 1, 0,                                                 \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_F64), r_ull2d, NULL, \
     EXACT},                                                                                                       \
    {"libdevice_int2double_uint2double", k_i2d, B128, S1D, G1D, 1, 0, {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)},   \
     {OUT(TL_F64, D0), OUT(TL_F64, D0)}, r_i2d, NULL, EXACT},                                                     \
    {"libdevice_llrint_llround", k_llrint, B128, S1D, G1D, 1, 0, {EDGE(TL_F64, D0, -20, 20)}, O4(TL_I64),         \
     r_llrint, NULL, EXACT},                                                                                       \
    {"libdevice_float_as_int_int_as_float", k_bits32, B128, S1D, G1D, 1, 0,                                       \
     {EDGE(TL_F32, D0, -4, 4), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)},                                           \
     {OUT(TL_I32, D0), OUT(TL_U32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_bits32, NULL, EXACT},                \
    {"libdevice_double2hiint_hiloint2double", k_bits64, B128, S1D, G1D, 1, 0,                                     \
     {EDGE(TL_F64, D0, -1e6, 1e6), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, \
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_F64, D0), OUT(TL_F64, D0)}, r_bits64, NULL, EXACT},                \
    {"libdevice_double_as_longlong", k_bits64b, B128, S1D, G1D, 1, 0, {EDGE(TL_F64, D0, -1e6, 1e6)},              \
     {OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_bits64b, NULL, EXACT},                                                 \
    {"libdevice_hadd_rhadd_mul24_sad", k_int_ops, B128, S1D, G1D, 1, 0,                                           \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX),                             \
      EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_I32), r_int_ops, NULL, EXACT},                               \
    {"libdevice_hadd_rhadd_mul24_sad_u32", k_uint_ops, B128, S1D, G1D, 1, 0,                                      \
     {EDGE(TL_U32, D0, 0, 4294967295.0), EDGE(TL_U32, D0, 0, 4294967295.0), EDGE(TL_U32, D0, 0, 4294967295.0)},  \
     O4(TL_U32), r_uint_ops, NULL, EXACT},                                                                        \
    {"libdevice_byte_perm", k_byte_perm, B128, S1D, G1D, 1, 0,                                                    \
     {EDGE(TL_I32, D0, INT32_MIN, INT32_MAX), EDGE(TL_I32, D0, INT32_MIN, INT32_MAX),                             \
      EDGE(TL_I32, D0, INT32_MIN, INT32_MAX)}, O4(TL_I32), r_byte_perm, NULL, EXACT},                             \
    {"libdevice_fast_sinf_cosf_tanf_expf", k_fast_trig, B128, S1D, G1D, 1, 0, {F1D(-3, 3)}, O4(TL_F32),          \
     r_fast_trig, NULL, 1e-5, 1e-5},                                                                              \
    {"libdevice_fast_logf_log2f_log10f_exp10f", k_fast_log, B128, S1D, G1D, 1, 0, {F1D(0.01, 100)}, O4(TL_F32),  \
     r_fast_log, NULL, 1e-5, 2e-5},                                                                               \
    {"libdevice_fast_powf_dividef", k_fast_pow, B128, S1D, G1D, 1, 0, {F1D(0.5, 4), F1D(-3, 3)},                 \
     {OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_fast_pow, NULL, 1e-5, 1e-4},                                           \
    {"libdevice_rsqrt_rn_scalbn", k_ld_rsqrt, B128, S1D, G1D, 1, 0, {EDGE(TL_F32, D0, 1e-3, 1e3), F1D(-20, 20)},     \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F64, D0)}, r_ld_rsqrt, NULL, EXACT},                 \
    {"libdevice_rcp64h", k_rcp64h, B128, S1D, G1D, 1, 0, {IN(TL_F64, D0, -1e3, 1e3)},                            \
     {OUT(TL_F64, D0), OUT(TL_F64, D0)}, r_rcp64h, NULL, 0, 4e-6},                                                \
    {"libdevice_rhypot_norm3d_norm4d_f32", k_norms, B128, S1D, G1D, 1, 0,                                         \
     {EDGE(TL_F32, D0, -1e3, 1e3), F1D(-1e3, 1e3), F1D(-1e3, 1e3)}, O4(TL_F32), r_norms32, NULL, 1e-30, 6e-7},    \
    {"libdevice_rnorm4d_f32", k_norms2, B128, S1D, G1D, 1, 0,                                                     \
     {EDGE(TL_F32, D0, -1e3, 1e3), F1D(-1e3, 1e3), F1D(-1e3, 1e3)}, O4(TL_F32), r_norms322, NULL, 1e-30, 6e-7},   \
    {"libdevice_rhypot_norm3d_norm4d_f64", k_norms, B128, S1D, G1D, 1, 0,                                         \
     {EDGE(TL_F64, D0, -1e3, 1e3), IN(TL_F64, D0, -1e3, 1e3), IN(TL_F64, D0, -1e3, 1e3)}, O4(TL_F64), r_norms64,  \
     NULL, 1e-300, 1e-15},                                                                                        \
    {"libdevice_rnorm4d_f64", k_norms2, B128, S1D, G1D, 1, 0,                                                     \
     {EDGE(TL_F64, D0, -1e3, 1e3), IN(TL_F64, D0, -1e3, 1e3), IN(TL_F64, D0, -1e3, 1e3)}, O4(TL_F64), r_norms642, \
     NULL, 1e-300, 1e-15},                                                                                        \
    {"libdevice_cyl_bessel_i0_i1_f32", k_bessel_i, B128, S1D, G1D, 1, 0, {EDGE(TL_F32, D0, -40, 40)},            \
     O4(TL_F32), r_bessel_i32, NULL, 1e-30, 2e-6},                                                                \
    {"libdevice_cyl_bessel_i0_i1_f64", k_bessel_i, B128, S1D, G1D, 1, 0, {EDGE(TL_F64, D0, -40, 40)},            \
     O4(TL_F64), r_bessel_i64, NULL, 1e-14, 1e-14},                                                               \
    {"libdevice_jn_yn_f32", k_jn_yn, B128, S1D, G1D, 1, 0, {I1D(-1, 6), F1D(0.1, 30)}, O4(TL_F32), r_jn32, NULL,  \
     3e-6, 1e-5},                                                                                                  \
    {"libdevice_jn_yn_f64", k_jn_yn, B128, S1D, G1D, 1, 0, {I1D(-1, 6), IN(TL_F64, D0, 0.1, 30)}, O4(TL_F64),     \
     r_jn64, NULL, 1e-12, 1e-11},                                                                                 \
    {"libdevice_erfinv_erfcinv_normcdfinv_f64", k_erfinv64, B128, S1D, G1D, 1, 0, {EDGE(TL_F64, D0, -1, 1)},     \
     O4(TL_F64), r_erfinv64, NULL, 1e-300, 1e-14},                                                                \
    {"libdevice_erfinv_erfcinv_normcdfinv_f32", k_erfinv32, B128, S1D, G1D, 1, 0, {EDGE(TL_F32, D0, -1, 1)},     \
     O4(TL_F32), r_erfinv32, NULL, 1e-37, 1e-6},
