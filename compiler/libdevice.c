/* libdevice.c: the table of libdevice functions tl supports (libdevice.h):
 * every function of Triton's language/extra/cuda/libdevice.py.
 *
 * Names, argument types and symbols are those of that file: an fp32 variant
 * usually calls __nv_NAMEf, an fp64 one __nv_NAME; predicates (isinf, isnan,
 * signbit, finite) and ilogb return int32, and the conversions return the
 * dtypes Triton declares (float2uint_rn: int32, float2ull_rn: int64).
 *
 * The host side (the interpreter) computes in double / int64 and the
 * interpreter rounds an fp32 result once:
 *  - the C library where it has the function, fp32 variants included (a
 *    float is exact in double, the result is rounded once to fp32);
 *  - the _rn/_rz/_rd/_ru arithmetic and conversions in the variant's own
 *    precision under fesetround (directed32/64), so they round as the GPU does;
 *  - float-to-integer conversions round, then saturate as the GPU's cvt does
 *    (CUDA leaves out-of-range results undefined; see to_int for NaN);
 *  - our own code where the C library has nothing: erfinv, erfcinv,
 *    normcdfinv (Newton steps on erf / erfc), cyl_bessel_i0/i1 (series and
 *    asymptotic expansion), byte_perm, sad, mul24, hadd, rcp64h, ...;
 *  - the fast_* functions as their accurate fp32 counterparts: the GPU's
 *    approximations (sin.approx, ex2.approx, ...) are less accurate, by the
 *    bounds CUDA documents for __sinf, __expf, __fdividef, ... */
#include "libdevice.h"

#include <fenv.h>
#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#define X0 a[0].f
#define X1 a[1].f
#define H1(fn, expr) static LdVal fn(const LdVal *a) { return (LdVal){.f = (expr)}; }
#define HI(fn, expr) static LdVal fn(const LdVal *a) { return (LdVal){.i = (expr)}; }

H1(h_acos, acos(X0)) H1(h_acosh, acosh(X0)) H1(h_asin, asin(X0)) H1(h_asinh, asinh(X0))
H1(h_atan, atan(X0)) H1(h_atanh, atanh(X0)) H1(h_cbrt, cbrt(X0)) H1(h_ceil, ceil(X0))
H1(h_cos, cos(X0)) H1(h_cosh, cosh(X0)) H1(h_erf, erf(X0)) H1(h_erfc, erfc(X0))
H1(h_exp, exp(X0)) H1(h_exp10, pow(10.0, X0)) H1(h_exp2, exp2(X0)) H1(h_expm1, expm1(X0))
H1(h_fabs, fabs(X0)) H1(h_floor, floor(X0)) H1(h_j0, j0(X0)) H1(h_j1, j1(X0))
H1(h_lgamma, lgamma(X0)) H1(h_log, log(X0)) H1(h_log10, log10(X0)) H1(h_log1p, log1p(X0))
H1(h_log2, log2(X0)) H1(h_logb, logb(X0)) H1(h_nearbyint, nearbyint(X0)) H1(h_rint, rint(X0))
H1(h_round, round(X0)) H1(h_rsqrt, 1.0 / sqrt(X0)) H1(h_rcbrt, 1.0 / cbrt(X0))
H1(h_sin, sin(X0)) H1(h_sinh, sinh(X0)) H1(h_sqrt, sqrt(X0)) H1(h_tan, tan(X0))
H1(h_tanh, tanh(X0)) H1(h_tgamma, tgamma(X0)) H1(h_trunc, trunc(X0)) H1(h_y0, y0(X0)) H1(h_y1, y1(X0))
H1(h_normcdf, 0.5 * erfc(-X0 / sqrt(2.0))) H1(h_erfcx, exp(X0 * X0) * erfc(X0))
/* sin(pi x) and cos(pi x) exactly at integers and halves: reduce x mod 2 first */
static double pi_reduce(double x) { return x - 2.0 * rint(x / 2.0); }
H1(h_sinpi, isinf(X0) ? NAN : X0 == rint(X0) ? copysign(0.0, X0) : sin(M_PI * pi_reduce(X0)))
H1(h_cospi, isinf(X0) ? NAN : fabs(pi_reduce(X0)) == 0.5 ? 0.0 : cos(M_PI * pi_reduce(X0)))
H1(h_saturate, isnan(X0) ? 0.0 : X0 < 0 ? 0.0 : X0 > 1 ? 1.0 : X0)
H1(h_atan2, atan2(X0, X1)) H1(h_copysign, copysign(X0, X1)) H1(h_fdim, fdim(X0, X1))
H1(h_fmax, fmax(X0, X1)) H1(h_fmin, fmin(X0, X1)) H1(h_fmod, fmod(X0, X1)) H1(h_hypot, hypot(X0, X1))
H1(h_nextafter, nextafter(X0, X1)) H1(h_pow, pow(X0, X1)) H1(h_remainder, remainder(X0, X1))
H1(h_fma, fma(X0, X1, a[2].f)) H1(h_ldexp, ldexp(X0, (int)a[1].i)) H1(h_powi, pow(X0, (double)a[1].i))
HI(h_ilogb, ilogb(X0)) HI(h_isinf, isinf(X0) ? 1 : 0) HI(h_isnan, isnan(X0) ? 1 : 0)
HI(h_signbit, signbit(X0) ? 1 : 0) HI(h_finite, isfinite(X0) ? 1 : 0)
/* integers: arguments arrive sign- or zero-extended by their kind */
HI(h_clz32, a[0].i & 0xffffffff ? __builtin_clz((unsigned)a[0].i) : 32)
HI(h_clz64, a[0].i ? __builtin_clzll((unsigned long long)a[0].i) : 64)
HI(h_popc32, __builtin_popcount((unsigned)a[0].i)) HI(h_popc64, __builtin_popcountll((unsigned long long)a[0].i))
HI(h_mulhi32, (int64_t)(((int64_t)(int32_t)a[0].i * (int32_t)a[1].i) >> 32))
HI(h_umulhi32, (int64_t)(((uint64_t)(uint32_t)a[0].i * (uint32_t)a[1].i) >> 32))
HI(h_mulhi64, (int64_t)(((__int128)a[0].i * a[1].i) >> 64))
HI(h_umulhi64, (int64_t)(uint64_t)(((unsigned __int128)(uint64_t)a[0].i * (uint64_t)a[1].i) >> 64))
HI(h_abs, a[0].i < 0 ? (int64_t)(0 - (uint64_t)a[0].i) : a[0].i)
static LdVal h_brev32(const LdVal *a) {
    uint32_t x = (uint32_t)a[0].i, r = 0;
    for (int k = 0; k < 32; k++)
        r |= ((x >> k) & 1u) << (31 - k);
    return (LdVal){.i = (int32_t)r};
}
static LdVal h_brev64(const LdVal *a) {
    uint64_t x = (uint64_t)a[0].i, r = 0;
    for (int k = 0; k < 64; k++)
        r |= ((x >> k) & 1u) << (63 - k);
    return (LdVal){.i = (int64_t)r};
}
HI(h_ffs32, __builtin_ffs((int)a[0].i)) HI(h_ffs64, __builtin_ffsll((long long)a[0].i))

H1(h_div, X0 / X1) H1(h_scalbn, scalbn(X0, (int)a[1].i))
/* jn, yn: NaN for a negative order, as CUDA documents (the C library
 * would give (-1)^n J_-n) */
H1(h_jn, a[0].i < 0 ? NAN : jn((int)a[0].i, X1)) H1(h_yn, a[0].i < 0 ? NAN : yn((int)a[0].i, X1))
H1(h_i2d, (double)a[0].i) /* exact: int32 and uint32 fit a double */

/* ---- bits ---- */

static uint64_t bits64(double x) {
    uint64_t u;
    memcpy(&u, &x, 8);
    return u;
}
static double from_bits64(uint64_t u) {
    double x;
    memcpy(&x, &u, 8);
    return x;
}
static uint32_t bits32(double x) {
    float f = (float)x; /* exact: x holds an fp32 value */
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static double from_bits32(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}
static int64_t u2i(uint64_t u) {
    int64_t r;
    memcpy(&r, &u, 8);
    return r;
}

/* (int results come back as int64: the interpreter wraps them to the
 * result's width, so an unsigned 32-bit value needs no sign fix-up here) */
HI(h_float_as_int, bits32(X0)) H1(h_int_as_float, from_bits32((uint32_t)a[0].i))
HI(h_double_as_ll, u2i(bits64(X0))) H1(h_ll_as_double, from_bits64((uint64_t)a[0].i))
HI(h_double2loint, (int32_t)(uint32_t)bits64(X0)) HI(h_double2hiint, (int32_t)(uint32_t)(bits64(X0) >> 32))
H1(h_hiloint2double, from_bits64((uint64_t)(uint32_t)a[0].i << 32 | (uint32_t)a[1].i))

/* ---- integer functions (arguments sign- or zero-extended by their kind) ---- */

/* __hadd / __rhadd: the average without overflow, rounded down / up; the
 * sum of two extended 32-bit values fits int64 (>> floors: GCC shifts
 * arithmetically) */
HI(h_hadd, (a[0].i + a[1].i) >> 1) HI(h_rhadd, (a[0].i + a[1].i + 1) >> 1)
/* __mul24: the low 32 bits of the product of the low 24 bits of each
 * argument, sign-extended from bit 23 (mul24.lo.s32) or not (.u32) */
static int64_t sext24(int64_t x) { return ((x & 0xffffff) ^ 0x800000) - 0x800000; }
HI(h_mul24, sext24(a[0].i) * sext24(a[1].i)) HI(h_umul24, (a[0].i & 0xffffff) * (a[1].i & 0xffffff))
/* __sad / __usad: |x - y| + z, modulo 2^32 */
HI(h_sad, (a[0].i > a[1].i ? a[0].i - a[1].i : a[1].i - a[0].i) + (a[2].i & 0xffffffff))
/* __byte_perm(x, y, s): byte n of the result is byte (s >> 4n) & 7 of the
 * 8 bytes y:x (x the low four), as CUDA documents it: the fourth bit of each
 * selector nibble, which PTX prmt reads as "replicate the sign", is
 * ignored, as are the high 16 bits of s */
static LdVal h_byte_perm(const LdVal *a) {
    uint64_t in = (uint64_t)(uint32_t)a[0].i | (uint64_t)(uint32_t)a[1].i << 32;
    uint32_t s = (uint32_t)a[2].i, r = 0;
    for (int n = 0; n < 4; n++)
        r |= (uint32_t)((in >> (8 * ((s >> (4 * n)) & 7))) & 0xff) << (8 * n);
    return (LdVal){.i = (int32_t)r};
}

/* ---- directed rounding ---- */

/* The _rn/_rz/_rd/_ru functions compute in the variant's own precision with
 * the host's rounding mode set for the one operation: volatile operands and
 * results keep the compiler from folding the operation or moving it past
 * fesetround. An fp32 result is exact in double, so the interpreter's
 * rounding of it to fp32 changes nothing. */
#define MODE_rn FE_TONEAREST
#define MODE_rz FE_TOWARDZERO
#define MODE_rd FE_DOWNWARD
#define MODE_ru FE_UPWARD
#define MODE_AWAY (-1) /* llround: to nearest, ties away from zero */

enum { OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FMA, OP_RCP, OP_SQRT, OP_F2F };

static double directed32(int op, int mode, const LdVal *a) {
    volatile float x = (float)a[0].f, y = op <= OP_FMA ? (float)a[1].f : 0, z = op == OP_FMA ? (float)a[2].f : 0;
    volatile double xd = a[0].f;
    volatile float r;
    int old = fegetround();
    fesetround(mode);
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    case OP_FMA: r = fmaf(x, y, z); break;
    case OP_RCP: r = 1.0f / x; break;
    case OP_SQRT: r = sqrtf(x); break;
    default: r = (float)xd; break; /* double2float */
    }
    fesetround(old);
    return r;
}

static double directed64(int op, int mode, const LdVal *a) {
    volatile double x = a[0].f, y = op <= OP_FMA ? a[1].f : 0, z = op == OP_FMA ? a[2].f : 0;
    volatile double r;
    int old = fegetround();
    fesetround(mode);
    switch (op) {
    case OP_ADD: r = x + y; break;
    case OP_SUB: r = x - y; break;
    case OP_MUL: r = x * y; break;
    case OP_DIV: r = x / y; break;
    case OP_FMA: r = fma(x, y, z); break;
    case OP_RCP: r = 1.0 / x; break;
    default: r = sqrt(x); break;
    }
    fesetround(old);
    return r;
}

/* An integer (sign- or zero-extended in an int64, or a uint64's bits) to
 * fp32 or fp64 in a rounding mode: one hardware conversion (GCC converts a
 * uint64 with its top bit set by halving it with a sticky bit, converting
 * and doubling: still rounded once). */
static double int_to_float(int64_t v, bool uns, bool single, int mode) {
    volatile int64_t s = v;
    volatile uint64_t u = (uint64_t)v;
    volatile float f;
    volatile double d;
    int old = fegetround();
    fesetround(mode);
    if (single)
        f = uns ? (float)u : (float)s;
    else
        d = uns ? (double)u : (double)s;
    fesetround(old);
    return single ? (double)f : d;
}

/* Ties to even, whatever the host's mode. */
static double round_even(double x) {
    double r = round(x);
    if (fabs(x - trunc(x)) == 0.5)
        r = 2.0 * round(x / 2.0);
    return r;
}

/* A float to a `bits`-wide integer: rounded to an integer in `mode`, then
 * saturated to the integer type's range as the GPU's cvt does. NaN has no
 * range end; the GPU gives 0 from fp32 to a 32-bit integer but the sign bit
 * alone (0x80000000, 0x8000000000000000) from fp64 or into 64 bits (as
 * PyTorch's casts of NaN on CUDA show; CUDA documents none of it), and so
 * does this, unsigned results included. */
static int64_t to_int(double x, int mode, int bits, bool uns, bool from_double) {
    if (isnan(x))
        return bits == 32 && !from_double ? 0 : bits == 32 ? (int64_t)0x80000000u : INT64_MIN;
    double t = mode == MODE_rn ? round_even(x) : mode == MODE_rz ? trunc(x) : mode == MODE_rd ? floor(x)
             : mode == MODE_ru ? ceil(x) : round(x);
    double top = ldexp(1.0, uns ? bits : bits - 1);
    if (uns) {
        if (t <= 0)
            return 0;
        if (t >= top)
            return u2i(bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1);
        return u2i((uint64_t)t);
    }
    if (t < -top)
        return u2i(0 - (UINT64_C(1) << (bits - 1)));
    if (t >= top)
        return (int64_t)((UINT64_C(1) << (bits - 1)) - 1);
    return (int64_t)t;
}

/* the four rounding modes of one host function family */
#define FOUR(M, ...) M(rn, __VA_ARGS__) M(rz, __VA_ARGS__) M(rd, __VA_ARGS__) M(ru, __VA_ARGS__)
#define ARITH_HOSTS(m, op, OP)                                                                            \
    static LdVal h_f##op##_##m(const LdVal *a) { return (LdVal){.f = directed32(OP, MODE_##m, a)}; } \
    static LdVal h_d##op##_##m(const LdVal *a) { return (LdVal){.f = directed64(OP, MODE_##m, a)}; }
FOUR(ARITH_HOSTS, add, OP_ADD) FOUR(ARITH_HOSTS, sub, OP_SUB) FOUR(ARITH_HOSTS, mul, OP_MUL)
FOUR(ARITH_HOSTS, div, OP_DIV) FOUR(ARITH_HOSTS, fma, OP_FMA) FOUR(ARITH_HOSTS, rcp, OP_RCP)
FOUR(ARITH_HOSTS, sqrt, OP_SQRT)
#define D2F_HOST(m, _) \
    static LdVal h_double2float_##m(const LdVal *a) { return (LdVal){.f = directed32(OP_F2F, MODE_##m, a)}; }
FOUR(D2F_HOST, 0)
#define TO_INT_HOST(m, name, bits, uns, from_double) \
    static LdVal h_##name##_##m(const LdVal *a) { return (LdVal){.i = to_int(a[0].f, MODE_##m, bits, uns, from_double)}; }
FOUR(TO_INT_HOST, double2int, 32, false, true) FOUR(TO_INT_HOST, double2uint, 32, true, true)
FOUR(TO_INT_HOST, float2int, 32, false, false) FOUR(TO_INT_HOST, float2uint, 32, true, false)
FOUR(TO_INT_HOST, double2ll, 64, false, true) FOUR(TO_INT_HOST, double2ull, 64, true, true)
FOUR(TO_INT_HOST, float2ll, 64, false, false) FOUR(TO_INT_HOST, float2ull, 64, true, false)
#define TO_FLOAT_HOST(m, name, uns, single) \
    static LdVal h_##name##_##m(const LdVal *a) { return (LdVal){.f = int_to_float(a[0].i, uns, single, MODE_##m)}; }
FOUR(TO_FLOAT_HOST, int2float, false, true) FOUR(TO_FLOAT_HOST, uint2float, false, true)
FOUR(TO_FLOAT_HOST, ll2float, false, true) FOUR(TO_FLOAT_HOST, ull2float, true, true)
FOUR(TO_FLOAT_HOST, ll2double, false, false) FOUR(TO_FLOAT_HOST, ull2double, true, false)
HI(h_llrintf, to_int(X0, MODE_rn, 64, false, false)) HI(h_llrint, to_int(X0, MODE_rn, 64, false, true))
HI(h_llroundf, to_int(X0, MODE_AWAY, 64, false, false)) HI(h_llround, to_int(X0, MODE_AWAY, 64, false, true))

/* __frsqrt_rn: 1/sqrt(x) rounded once to fp32. The double estimate is
 * rounded three times, so settle the rounding exactly: the true value t lies
 * above the midpoint m between r and its upper neighbour iff m^2 x < 1;
 * m^2 is exact in double (2 x 25 bits) and fma gives the sign of m^2 x - 1
 * exactly. */
static LdVal h_rsqrt_rn(const LdVal *a) {
    float x = (float)X0;
    if (!(x > 0) || isinf(x))
        return (LdVal){.f = 1.0 / sqrt(X0)}; /* NaN, -x, +-0 -> +-inf, inf -> 0: exact */
    float r = (float)(1.0 / sqrt((double)x));
    for (int k = 0; k < 2; k++) { /* at most one step either way */
        double up = ((double)r + nextafterf(r, INFINITY)) / 2, down = ((double)r + nextafterf(r, 0)) / 2;
        if (fma(up * up, x, -1.0) < 0)
            r = nextafterf(r, INFINITY);
        else if (fma(down * down, x, -1.0) > 0)
            r = nextafterf(r, 0);
        else
            break;
    }
    return (LdVal){.f = r};
}

/* __nv_rcp64h: MUFU.RCP64H, the reciprocal from the high word of x to the
 * high word of the result (the low words zero), denormals flushed. The GPU's
 * approximation may differ from this exact reciprocal in the last bits of
 * the 20-bit fraction it keeps. */
static LdVal h_rcp64h(const LdVal *a) {
    double x = from_bits64(bits64(X0) & ~UINT64_C(0xffffffff));
    if (fabs(x) < DBL_MIN)
        x = copysign(0.0, x);
    double r = 1.0 / x;
    if (fabs(r) < DBL_MIN)
        r = copysign(0.0, r);
    return (LdVal){.f = isnan(r) ? r : from_bits64(bits64(r) & ~UINT64_C(0xffffffff))};
}

/* ---- norms ---- */

/* sqrt(sum x_i^2) and its reciprocal: the squares in long double (64 bits,
 * a 15-bit exponent) neither overflow nor underflow; an infinity wins over a
 * NaN, as in hypot. */
static double norm(const LdVal *a, int n, bool recip) {
    long double s = 0;
    bool inf = false, nan = false;
    for (int i = 0; i < n; i++) {
        if (isinf(a[i].f))
            inf = true;
        else if (isnan(a[i].f))
            nan = true;
        else
            s += (long double)a[i].f * a[i].f;
    }
    if (inf)
        return recip ? 0.0 : INFINITY;
    if (nan)
        return NAN;
    long double r = sqrtl(s);
    return (double)(recip ? 1.0L / r : r);
}
H1(h_rhypot, norm(a, 2, true)) H1(h_norm3d, norm(a, 3, false)) H1(h_rnorm3d, norm(a, 3, true))
H1(h_norm4d, norm(a, 4, false)) H1(h_rnorm4d, norm(a, 4, true))

/* ---- modified Bessel functions I0, I1 ---- */

/* The power series (x/2)^nu sum (x^2/4)^k / (k! (k+nu)!) has only positive
 * terms, so it is accurate wherever it converges quickly (|x| <= 30, some 60
 * terms); beyond, the asymptotic expansion e^x / sqrt(2 pi x) sum_k (-1)^k
 * prod_{j<=k} (4 nu^2 - (2j-1)^2) / (k! (8x)^k), stopped at its smallest
 * term (below 1e-26 there). Both in long double (64-bit significand), so the
 * double result is within about an ulp. e^x is taken as e^(x/2) twice so
 * that the product does not overflow early. */
static double bessel_i(int nu, double x) {
    double ax = fabs(x), r;
    if (isnan(x))
        return x;
    if (ax > 720) /* past the overflow of both (and of the expansion's e^x) */
        return nu && x < 0 ? -INFINITY : INFINITY;
    if (ax <= 30) { /* in long double: some 30 rounded products feed the largest terms */
        long double q = (long double)ax * ax / 4, term = nu ? ax / 2.0L : 1, s = term;
        for (int k = 1; k < 200 && term > s * 0x1p-70L; k++) {
            term *= q / (k * (long double)(k + nu));
            s += term;
        }
        r = (double)s;
    } else {
        long double mu = 4.0L * nu * nu, term = 1, s = 1;
        for (int k = 1; k < 100; k++) {
            long double next = term * -(mu - (2.0L * k - 1) * (2.0L * k - 1)) / (k * 8.0L * ax);
            if (fabsl(next) >= fabsl(term) || fabsl(next) < s * 0x1p-70L)
                break;
            term = next;
            s += term;
        }
        long double e = expl(ax / 2.0L);
        r = (double)(e * (e * s / sqrtl(2 * 3.14159265358979323846264338327950288L * ax)));
    }
    return nu && x < 0 ? -r : r;
}
H1(h_bessel_i0, bessel_i(0, X0)) H1(h_bessel_i1, bessel_i(1, X0))

/* ---- inverse error functions ---- */

#define SQRT_PI 1.77245385090551602730

/* x >= 0 with erf(x) = y, for 0 < y <= 0.5. erf is concave on x >= 0, so
 * Newton from x0 = y sqrt(pi)/2 (where the tangent at 0 reaches y) stays
 * below the root and climbs to it. Below 1e-8 the first term is the answer
 * (the next is pi y^2 / 12 relative, under 2^-53). */
static double erf_solve(double y) {
    double x = y * (SQRT_PI / 2);
    if (y < 1e-8)
        return x;
    for (int k = 0; k < 60; k++) {
        double dx = (y - erf(x)) * (SQRT_PI / 2) * exp(x * x);
        x += dx;
        if (fabs(dx) <= 0x1p-55 * x)
            break;
    }
    return x;
}

/* log erfc(x) and its derivative, for x >= 0; past x = 10 (erfc below 2e-45
 * and on to denormals and 0 near x = 27.2) from the asymptotic series
 * erfc(x) = e^(-x^2) / (x sqrt(pi)) S(x), S = sum_k (-1)^k (2k-1)!! / (2x^2)^k. */
static double log_erfc(double x, double *deriv) {
    if (x < 10) {
        double e = erfc(x);
        *deriv = -2 / SQRT_PI * exp(-x * x) / e;
        return log(e);
    }
    double t = 1 / (2 * x * x), term = 1, s = 1;
    for (int k = 1; k < 60 && fabs(term) > 0x1p-60; k++) {
        term *= -(2 * k - 1) * t;
        s += term;
    }
    *deriv = -2 * x / s;
    return -x * x - log(x * SQRT_PI) + log(s);
}

/* x >= 0 with erfc(x) = c, for 0 < c < 0.5 (denormal c included): Newton on
 * log erfc, which is concave, from x0 = sqrt(-log c) (at or past the root,
 * as erfc(x) <= e^(-x^2)): the steps descend monotonically to the root. */
static double erfc_solve(double c) {
    double lc = log(c), x = sqrt(-lc), d;
    for (int k = 0; k < 100; k++) {
        double dx = (log_erfc(x, &d) - lc) / d;
        x -= dx;
        if (fabs(dx) <= 0x1p-55 * x)
            break;
    }
    return x;
}

/* Each argument is split where the subtraction that feeds the solver is
 * exact (Sterbenz: 1 - |y| for |y| >= 0.5, 1 - c for c in [0.5, 1.5], 2 - c
 * for c >= 1), so the solvers see their argument without rounding error. */
static double erfinv_host(double y) {
    if (isnan(y) || fabs(y) > 1)
        return NAN;
    if (fabs(y) == 1)
        return copysign(INFINITY, y);
    if (y == 0)
        return y;
    double m = fabs(y);
    return copysign(m <= 0.5 ? erf_solve(m) : erfc_solve(1 - m), y);
}
static double erfcinv_host(double c) {
    if (isnan(c) || c < 0 || c > 2)
        return NAN;
    if (c == 0 || c == 2)
        return c == 0 ? INFINITY : -INFINITY;
    if (c < 0.5)
        return erfc_solve(c);
    if (c > 1.5)
        return -erfc_solve(2 - c);
    double y = 1 - c;
    return y == 0 ? 0.0 : copysign(erf_solve(fabs(y)), y);
}
H1(h_erfinv, erfinv_host(X0)) H1(h_erfcinv, erfcinv_host(X0))
/* Phi^-1(p) = -sqrt(2) erfcinv(2p) (2p is exact) */
H1(h_normcdfinv, -M_SQRT2 * erfcinv_host(2 * X0))

/* fp32 and fp64 variants of NAME with arguments ARGS ("f", "ff", "fi"...) */
#define FD(name, fa, da, fr, dr, fsym, dsym, h) {name, {{fa, fr, fsym}, {da, dr, dsym}}, h}
#define U(name, h) FD(#name, "f", "d", 'f', 'd', "__nv_" #name "f", "__nv_" #name, h)
#define B(name, h) FD(#name, "ff", "dd", 'f', 'd', "__nv_" #name "f", "__nv_" #name, h)
/* NAME_rn, _rz, _rd, _ru of the rounded arithmetic (fp32 symbols FS##MODE,
 * fp64 DS##MODE) and of the conversions (__nv_NAME_MODE) */
#define ARITH1(m, op, fa, da, fs, ds) {#op "_" #m, {{fa, 'f', fs #m}, {da, 'd', ds #m}}, NULL},
#define ARITH(op, fa, da, fs, ds) FOUR(ARITH1, op, fa, da, fs, ds)
#define CVT1(m, name, arg, ret) {#name "_" #m, {{arg, ret, "__nv_" #name "_" #m}}, h_##name##_##m},
#define CVT(name, arg, ret) FOUR(CVT1, name, arg, ret)
/* integer -> float: the cvt of the mode itself (PTX spells rd / ru rm / rp) */
#define PTX_rn "rn"
#define PTX_rz "rz"
#define PTX_rd "rm"
#define PTX_ru "rp"
#define I2F1(m, name, arg, ret, to, from)                                                                  \
    {#name "_" #m, {{arg, ret, "__nv_" #name "_" #m, "cvt." PTX_##m "." to "." from " $0, $1;"}}, h_##name##_##m},
#define I2F(name, arg, ret, to, from) FOUR(I2F1, name, arg, ret, to, from)

/* variants leave .ptx out: NULL, a call of the symbol */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
static const LibdeviceFn table[] = {
    U(acos, h_acos), U(acosh, h_acosh), U(asin, h_asin), U(asinh, h_asinh), U(atan, h_atan),
    U(atanh, h_atanh), U(cbrt, h_cbrt), U(ceil, h_ceil), U(cos, h_cos), U(cosh, h_cosh),
    U(cospi, h_cospi), U(erf, h_erf), U(erfc, h_erfc), U(erfcx, h_erfcx), U(exp, h_exp),
    U(exp10, h_exp10), U(exp2, h_exp2), U(expm1, h_expm1), U(floor, h_floor), U(j0, h_j0), U(j1, h_j1),
    U(lgamma, h_lgamma), U(log, h_log), U(log10, h_log10), U(log1p, h_log1p), U(log2, h_log2),
    U(logb, h_logb), U(nearbyint, h_nearbyint), U(normcdf, h_normcdf), U(rcbrt, h_rcbrt), U(rint, h_rint),
    U(round, h_round), U(rsqrt, h_rsqrt), U(sin, h_sin), U(sinh, h_sinh), U(sinpi, h_sinpi),
    U(sqrt, h_sqrt), U(tan, h_tan), U(tanh, h_tanh), U(tgamma, h_tgamma), U(trunc, h_trunc),
    U(y0, h_y0), U(y1, h_y1),
    B(atan2, h_atan2), B(copysign, h_copysign), B(fdim, h_fdim), B(fmax, h_fmax), B(fmin, h_fmin),
    B(fmod, h_fmod), B(hypot, h_hypot), B(nextafter, h_nextafter), B(remainder, h_remainder),
    {"pow", {{"ff", 'f', "__nv_powf"}, {"dd", 'd', "__nv_pow"}, {"fi", 'f', "__nv_powif"}, {"di", 'd', "__nv_powi"}},
     h_pow},
    FD("fma", "fff", "ddd", 'f', 'd', "__nv_fmaf", "__nv_fma", h_fma),
    FD("ldexp", "fi", "di", 'f', 'd', "__nv_ldexpf", "__nv_ldexp", h_ldexp),
    FD("ilogb", "f", "d", 'i', 'i', "__nv_ilogbf", "__nv_ilogb", h_ilogb),
    FD("isinf", "f", "d", 'i', 'i', "__nv_isinff", "__nv_isinfd", h_isinf),
    FD("isnan", "f", "d", 'i', 'i', "__nv_isnanf", "__nv_isnand", h_isnan),
    FD("signbit", "f", "d", 'i', 'i', "__nv_signbitf", "__nv_signbitd", h_signbit),
    FD("finitef", "f", NULL, 'i', 0, "__nv_finitef", NULL, h_finite),
    FD("isfinited", "d", NULL, 'i', 0, "__nv_isfinited", NULL, h_finite),
    {"fabs", {{"f", 'f', "__nv_fabsf"}, {"d", 'd', "__nv_fabs"}}, h_fabs},
    {"saturatef", {{"f", 'f', "__nv_saturatef"}}, h_saturate},
    {"abs", {{"i", 'i', "__nv_abs"}, {"l", 'l', "__nv_llabs"}, {"f", 'f', "__nv_fabsf"}, {"d", 'd', "__nv_fabs"}}, h_abs},
    {"clz", {{"i", 'i', "__nv_clz"}, {"l", 'i', "__nv_clzll"}}, NULL},
    {"popc", {{"i", 'i', "__nv_popc"}, {"l", 'i', "__nv_popcll"}}, NULL},
    {"ffs", {{"i", 'i', "__nv_ffs"}, {"l", 'i', "__nv_ffsll"}}, NULL},
    {"brev", {{"i", 'i', "__nv_brev"}, {"l", 'l', "__nv_brevll"}}, NULL},
    {"mulhi", {{"ii", 'i', "__nv_mulhi"}, {"uu", 'u', "__nv_umulhi"}, {"ll", 'l', "__nv_mul64hi"},
               {"UU", 'U', "__nv_umul64hi"}}, NULL},
    {"umulhi", {{"uu", 'u', "__nv_umulhi"}, {"UU", 'U', "__nv_umul64hi"}}, NULL},
    {"byte_perm", {{"iii", 'i', "__nv_byte_perm"}}, h_byte_perm},
    {"mul24", {{"ii", 'i', "__nv_mul24"}, {"uu", 'u', "__nv_umul24"}}, NULL},
    {"sad", {{"iiu", 'i', "__nv_sad"}, {"uuu", 'u', "__nv_usad"}}, h_sad},
    {"hadd", {{"ii", 'i', "__nv_hadd"}, {"uu", 'u', "__nv_uhadd"}}, h_hadd},
    {"rhadd", {{"ii", 'i', "__nv_rhadd"}, {"uu", 'u', "__nv_urhadd"}}, h_rhadd},
    /* rounded arithmetic: NAME_rn / _rz / _rd / _ru */
    ARITH(add, "ff", "dd", "__nv_fadd_", "__nv_dadd_") ARITH(sub, "ff", "dd", "__nv_fsub_", "__nv_dsub_")
    ARITH(mul, "ff", "dd", "__nv_fmul_", "__nv_dmul_") ARITH(div, "ff", "dd", "__nv_fdiv_", "__nv_ddiv_")
    ARITH(fma, "fff", "ddd", "__nv_fmaf_", "__nv_fma_") ARITH(rcp, "f", "d", "__nv_frcp_", "__nv_drcp_")
    ARITH(sqrt, "f", "d", "__nv_fsqrt_", "__nv_dsqrt_")
    {"rsqrt_rn", {{"f", 'f', "__nv_frsqrt_rn"}}, h_rsqrt_rn},
    {"rcp64h", {{"d", 'd', "__nv_rcp64h"}}, h_rcp64h},
    {"fast_dividef", {{"ff", 'f', "__nv_fast_fdividef"}}, h_div},
    /* conversions */
    CVT(double2float, "d", 'f') CVT(double2int, "d", 'i') CVT(double2uint, "d", 'i')
    CVT(float2int, "f", 'i') CVT(float2uint, "f", 'i') I2F(int2float, "i", 'f', "f32", "s32") I2F(uint2float, "u", 'f', "f32", "u32")
    CVT(float2ll, "f", 'l') CVT(float2ull, "f", 'l') CVT(double2ll, "d", 'l') CVT(double2ull, "d", 'l')
    I2F(ll2float, "l", 'f', "f32", "s64") I2F(ull2float, "U", 'f', "f32", "u64")
    I2F(ll2double, "l", 'd', "f64", "s64") I2F(ull2double, "U", 'd', "f64", "u64")
    {"int2double_rn", {{"i", 'd', "__nv_int2double_rn"}}, h_i2d},
    {"uint2double_rn", {{"u", 'd', "__nv_uint2double_rn"}}, h_i2d},
    {"hiloint2double", {{"ii", 'd', "__nv_hiloint2double"}}, h_hiloint2double},
    {"double2loint", {{"d", 'i', "__nv_double2loint"}}, h_double2loint},
    {"double2hiint", {{"d", 'i', "__nv_double2hiint"}}, h_double2hiint},
    {"int_as_float", {{"i", 'f', "__nv_int_as_float"}}, h_int_as_float},
    {"uint_as_float", {{"u", 'f', "__nv_uint_as_float"}}, h_int_as_float},
    {"float_as_int", {{"f", 'i', "__nv_float_as_int"}}, h_float_as_int},
    {"float_as_uint", {{"f", 'i', "__nv_float_as_uint"}}, h_float_as_int},
    {"longlong_as_double", {{"l", 'd', "__nv_longlong_as_double"}}, h_ll_as_double},
    {"double_as_longlong", {{"d", 'l', "__nv_double_as_longlong"}}, h_double_as_ll},
    {"llrint", {{"f", 'l', "__nv_llrintf"}, {"d", 'l', "__nv_llrint"}}, NULL},
    {"llround", {{"f", 'l', "__nv_llroundf"}, {"d", 'l', "__nv_llround"}}, NULL},
    /* the fast (approximate on the GPU) fp32 functions */
    {"fast_sinf", {{"f", 'f', "__nv_fast_sinf"}}, h_sin}, {"fast_cosf", {{"f", 'f', "__nv_fast_cosf"}}, h_cos},
    {"fast_tanf", {{"f", 'f', "__nv_fast_tanf"}}, h_tan}, {"fast_expf", {{"f", 'f', "__nv_fast_expf"}}, h_exp},
    {"fast_exp10f", {{"f", 'f', "__nv_fast_exp10f"}}, h_exp10},
    {"fast_logf", {{"f", 'f', "__nv_fast_logf"}}, h_log}, {"fast_log2f", {{"f", 'f', "__nv_fast_log2f"}}, h_log2},
    {"fast_log10f", {{"f", 'f', "__nv_fast_log10f"}}, h_log10},
    {"fast_powf", {{"ff", 'f', "__nv_fast_powf"}}, h_pow},
    /* special functions */
    B(rhypot, h_rhypot), FD("norm3d", "fff", "ddd", 'f', 'd', "__nv_norm3df", "__nv_norm3d", h_norm3d),
    FD("rnorm3d", "fff", "ddd", 'f', 'd', "__nv_rnorm3df", "__nv_rnorm3d", h_rnorm3d),
    FD("norm4d", "ffff", "dddd", 'f', 'd', "__nv_norm4df", "__nv_norm4d", h_norm4d),
    FD("rnorm4d", "ffff", "dddd", 'f', 'd', "__nv_rnorm4df", "__nv_rnorm4d", h_rnorm4d),
    FD("jn", "if", "id", 'f', 'd', "__nv_jnf", "__nv_jn", h_jn), FD("yn", "if", "id", 'f', 'd', "__nv_ynf", "__nv_yn", h_yn),
    U(cyl_bessel_i0, h_bessel_i0), U(cyl_bessel_i1, h_bessel_i1), U(erfinv, h_erfinv), U(erfcinv, h_erfcinv),
    U(normcdfinv, h_normcdfinv),
    FD("scalbn", "fi", "di", 'f', 'd', "__nv_scalbnf", "__nv_scalbn", h_scalbn),
};
#pragma GCC diagnostic pop
enum { NTABLE = sizeof table / sizeof table[0] };

/* Symbols whose host function is not their entry's: the integer functions
 * have one per width, pow one for an int exponent, the rounded arithmetic
 * one per precision and mode, abs one for floats. (A symbol may be in two
 * entries, fabsf in fabs and abs: each has the same host function here.) */
#define ARITH_SYMS(m, op, fs, ds) {fs #m, h_f##op##_##m}, {ds #m, h_d##op##_##m},
static const struct { const char *sym; LdVal (*host)(const LdVal *); } by_width[] = {
    FOUR(ARITH_SYMS, add, "__nv_fadd_", "__nv_dadd_") FOUR(ARITH_SYMS, sub, "__nv_fsub_", "__nv_dsub_")
    FOUR(ARITH_SYMS, mul, "__nv_fmul_", "__nv_dmul_") FOUR(ARITH_SYMS, div, "__nv_fdiv_", "__nv_ddiv_")
    FOUR(ARITH_SYMS, fma, "__nv_fmaf_", "__nv_fma_") FOUR(ARITH_SYMS, rcp, "__nv_frcp_", "__nv_drcp_")
    FOUR(ARITH_SYMS, sqrt, "__nv_fsqrt_", "__nv_dsqrt_")
    {"__nv_mul24", h_mul24}, {"__nv_umul24", h_umul24}, {"__nv_llrintf", h_llrintf}, {"__nv_llrint", h_llrint},
    {"__nv_llroundf", h_llroundf}, {"__nv_llround", h_llround}, {"__nv_fabsf", h_fabs}, {"__nv_fabs", h_fabs},
    {"__nv_powif", h_powi}, {"__nv_powi", h_powi},
    {"__nv_clz", h_clz32}, {"__nv_clzll", h_clz64}, {"__nv_popc", h_popc32}, {"__nv_popcll", h_popc64},
    {"__nv_ffs", h_ffs32}, {"__nv_ffsll", h_ffs64}, {"__nv_brev", h_brev32}, {"__nv_brevll", h_brev64},
    {"__nv_mulhi", h_mulhi32}, {"__nv_umulhi", h_umulhi32}, {"__nv_mul64hi", h_mulhi64},
    {"__nv_umul64hi", h_umulhi64},
};

const LibdeviceFn *libdevice_fn(const char *name) {
    for (int i = 0; i < NTABLE; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

/* The host function of a symbol: the entry's, or the per-width one. */
static LdVal (*host_of(const LibdeviceFn *f, const char *sym))(const LdVal *) {
    for (size_t i = 0; i < sizeof by_width / sizeof by_width[0]; i++)
        if (!strcmp(by_width[i].sym, sym))
            return by_width[i].host;
    return f->host;
}

const LibdeviceFn *libdevice_by_symbol(const char *sym, const LibdeviceVariant **var) {
    for (int i = 0; i < NTABLE; i++)
        for (int k = 0; k < 4 && table[i].v[k].args; k++)
            if (!strcmp(table[i].v[k].sym, sym)) {
                *var = &table[i].v[k];
                return &table[i];
            }
    return NULL;
}

LibdeviceHost libdevice_host(const LibdeviceFn *f, const char *sym) { return host_of(f, sym); }

LdVal libdevice_eval(const LibdeviceFn *f, const char *sym, const LdVal *args) {
    LdVal (*h)(const LdVal *) = host_of(f, sym);
    return h ? h(args) : (LdVal){.i = 0};
}

const char *libdevice_path(void) {
    static const char *const places[] = {
        "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
        "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
        "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc",
        "/opt/cuda/nvvm/libdevice/libdevice.10.bc",
    };
    static char buf[4096];
    const char *env = getenv("TL_LIBDEVICE");
    if (env && *env)
        return access(env, R_OK) == 0 ? env : NULL;
    const char *home[] = {getenv("CUDA_HOME"), getenv("CUDA_PATH")};
    for (int i = 0; i < 2; i++)
        if (home[i] && *home[i] && strlen(home[i]) < sizeof buf - 64) {
            strcpy(buf, home[i]);
            strcat(buf, "/nvvm/libdevice/libdevice.10.bc");
            if (access(buf, R_OK) == 0)
                return buf;
        }
    for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
        if (access(places[i], R_OK) == 0)
            return places[i];
    return NULL;
}
