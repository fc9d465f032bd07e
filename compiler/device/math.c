/* device/math.c: the math functions the GPU has no instruction for, in C
 * (fp64, and fp32 erf when libdevice is not installed).
 *
 * The build compiles this file with clang for nvptx64 to LLVM bitcode and
 * embeds it in the library (Makefile: devmath); the LLVM lowering calls
 * these functions by name (__tl_exp_f64, ...) and links the bitcode into the
 * kernel's module, where the optimiser inlines what is used and drops the
 * rest (llvm_link.c). The same source compiled for the host is checked
 * against the C library by tests/devmath_test.c, so the algorithms are tested
 * without a GPU.
 *
 * Freestanding: no headers, only clang builtins, which become LLVM
 * intrinsics (llvm.fma, llvm.rint, llvm.fabs: one PTX instruction each).
 * Compiled with -ffp-contract=off: every fused multiply-add is written out.
 *
 * The constants are digits of ln 2, pi and 2/sqrt(pi) split into doubles
 * (hi + lo), and Taylor coefficients 1/k!; each routine says its accuracy
 * (measured by the host test on random inputs). */

typedef unsigned long long u64;

#define fma __builtin_fma
#define rint __builtin_rint
#define fabs __builtin_fabs

static double from_bits(u64 u) {
    double d;
    __builtin_memcpy(&d, &u, 8);
    return d;
}
static u64 to_bits(double d) {
    u64 u;
    __builtin_memcpy(&u, &d, 8);
    return u;
}

#define INF (__builtin_inf())
#define QNAN (__builtin_nan(""))

static const double LN2_HI = 0x1.62e42fefa39efp-1;  /* ln 2 = LN2_HI + LN2_LO to ~107 bits */
static const double LN2_LO = 0x1.abc9e3b39803fp-56;
static const double LN2_HI33 = 0x1.62e42fefp-1;     /* 33 bits: e * LN2_HI33 is exact for |e| < 2^20 */
static const double LN2_LO33 = 0x1.473de6af278edp-34;
static const double LOG2E = 0x1.71547652b82fep+0;   /* 1 / ln 2 */
static const double SQRT2 = 0x1.6a09e667f3bcdp+0;

/* 2^n for -1022 <= n <= 1023 */
static double pow2i(int n) { return from_bits((u64)(n + 1023) << 52); }

/* p * 2^k for |k| <= 1100, rounded once (subnormal results included): two
 * exact scalings by normal powers of two, the second one rounding. */
static double scale(double p, int k) {
    int k1 = k / 2;
    return p * pow2i(k1) * pow2i(k - k1);
}

/* e^r for |r| <= 0.35 (ln 2 / 2 and a margin): Taylor to r^13 / 13!, whose
 * remainder is below 2^-57. */
static double exp_kernel(double r) {
    static const double c[] = {
        1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
        1.0 / 40320.0,      1.0 / 5040.0,      1.0 / 720.0,      1.0 / 120.0,     1.0 / 24.0,
        1.0 / 6.0,          0.5,               1.0,              1.0,
    };
    double p = c[0];
    for (int i = 1; i < 14; i++)
        p = fma(p, r, c[i]);
    return p;
}

/* e^x within 1 ulp: x = k ln 2 + r with |r| <= ln 2 / 2 (r from two fmas,
 * exact to the last bit), e^x = 2^k e^r. */
double __tl_exp_f64(double x) {
    if (x != x)
        return x;
    if (x > 709.782712893384)
        return INF;
    if (x < -745.1332191019412)
        return 0.0;
    double k = rint(x * LOG2E);
    double r = fma(-k, LN2_HI, x);
    r = fma(-k, LN2_LO, r);
    return scale(exp_kernel(r), (int)k);
}

/* 2^x within 1 ulp: x = k + f exactly, 2^f = e^(f ln 2) with f ln 2 to 2^-106. */
double __tl_exp2_f64(double x) {
    if (x != x)
        return x;
    if (x >= 1024.0)
        return INF;
    if (x < -1075.0)
        return 0.0;
    double k = rint(x), f = x - k;
    double r = fma(f, LN2_HI, f * LN2_LO);
    return scale(exp_kernel(r), (int)k);
}

/* ln m for m in [sqrt(1/2), sqrt(2)]: with f = m - 1 and s = f / (2 + f),
 * ln m = 2 atanh s = f - s (f - R), R = 2 s^2 (1/3 + s^2/5 + ... + s^22/25);
 * |s| <= 0.172, so the series' remainder is below 2^-60. */
static double log_kernel(double m) {
    double f = m - 1.0, s = f / (2.0 + f), z = s * s;
    double p = 1.0 / 25;
    for (int d = 23; d >= 3; d -= 2)
        p = fma(p, z, 1.0 / d);
    double R = 2.0 * z * p;
    return f - s * (f - R);
}

/* x = m 2^e with m in (sqrt(1/2), sqrt(2)]; false for x that is not a
 * positive finite number (the caller handles those). */
static int split_log(double x, double *m, int *e) {
    int adj = 0;
    if (x < 0x1p-1022) { /* subnormal: make it normal first */
        x *= 0x1p54;
        adj = 54;
    }
    u64 b = to_bits(x);
    *e = (int)((b >> 52) & 0x7ff) - 1023 - adj;
    *m = from_bits((b & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);
    if (*m > SQRT2) {
        *m *= 0.5;
        (*e)++;
    }
    return 1;
}

/* The logarithms' special cases (NaN, x < 0, 0, +inf): 1 with *r set. */
static int log_special(double x, double *r) {
    if (x != x || x == INF)
        *r = x;
    else if (x < 0)
        *r = QNAN;
    else if (x == 0)
        *r = -INF;
    else
        return 0;
    return 1;
}

/* ln x within 1 ulp (2 near x = 1): e ln 2 + ln m, e ln 2 exact in two parts. */
double __tl_log_f64(double x) {
    double m, r;
    int e;
    if (log_special(x, &r))
        return r;
    split_log(x, &m, &e);
    double lm = log_kernel(m);
    return e * LN2_HI33 + (e * LN2_LO33 + lm);
}

/* log2 x within 2 ulp; exact for powers of two (m = 1 gives ln m = 0). */
double __tl_log2_f64(double x) {
    double m, r;
    int e;
    if (log_special(x, &r))
        return r;
    split_log(x, &m, &e);
    return e + log_kernel(m) * LOG2E;
}

/* sin and cos of r in [-pi/4, pi/4]: Taylor to r^19 / 19! and r^20 / 20!
 * (remainders below 2^-60). */
static double sin_kernel(double r) {
    double z = r * r, p = -1.0 / 121645100408832000.0;
    static const double c[] = {
        1.0 / 355687428096000.0, -1.0 / 1307674368000.0, 1.0 / 6227020800.0, -1.0 / 39916800.0,
        1.0 / 362880.0,          -1.0 / 5040.0,          1.0 / 120.0,        -1.0 / 6.0,
    };
    for (int i = 0; i < 8; i++)
        p = fma(p, z, c[i]);
    return fma(r * z, p, r);
}
static double cos_kernel(double r) {
    double z = r * r, p = 1.0 / 2432902008176640000.0;
    static const double c[] = {
        -1.0 / 6402373705728000.0, 1.0 / 20922789888000.0, -1.0 / 87178291200.0, 1.0 / 479001600.0,
        -1.0 / 3628800.0,          1.0 / 40320.0,          -1.0 / 720.0,         1.0 / 24.0,
        -0.5,
    };
    for (int i = 0; i < 9; i++)
        p = fma(p, z, c[i]);
    return fma(z, p, 1.0);
}

/* x = k pi/2 + r, |r| <= pi/4 (a little more when x*2/pi rounds), with pi/2
 * in three doubles and fmas: accurate to an ulp of r for |x| < 2^30 except
 * within ~2^-40 of a multiple of pi/2; the error grows beyond. Returns k mod 4. */
static int reduce_pio2(double x, double *r) {
    static const double P1 = 0x1.921fb54442d18p+0, P2 = 0x1.1a62633145c07p-54, P3 = -0x1.f1976b7ed8fbcp-110;
    double k = rint(x * 0x1.45f306dc9c883p-1);
    double t = fma(-k, P1, x);
    t = fma(-k, P2, t);
    *r = fma(-k, P3, t);
    double q = k - 4.0 * rint(k * 0.25); /* k mod 4, exact, in -2..2 */
    return ((int)q) & 3;
}

/* sin x, cos x within 1-2 ulp for |x| < 2^30 (see reduce_pio2); NaN for inf. */
double __tl_sin_f64(double x) {
    if (x != x || fabs(x) == INF)
        return x - x;
    double r;
    int q = reduce_pio2(x, &r);
    double v = q & 1 ? cos_kernel(r) : sin_kernel(r);
    return q & 2 ? -v : v;
}

double __tl_cos_f64(double x) {
    if (x != x || fabs(x) == INF)
        return x - x;
    double r;
    int q = reduce_pio2(x, &r);
    double v = q & 1 ? sin_kernel(r) : cos_kernel(r);
    return (q + 1) & 2 ? -v : v;
}

/* erf x within 5 ulp. Below 2: erf x = 2/sqrt(pi) e^(-x^2) sum_n (2x^2)^n x
 * / (2n+1)!!, a series of positive terms (no cancellation), summed innermost
 * first in Horner form (40 terms). From 2: 1 - erfc x, erfc x = e^(-x^2) /
 * sqrt(pi) / K, K = x + (1/2) / (x + (2/2) / (x + ...)) (Laplace's continued
 * fraction, 100 levels from the bottom: erfc 2 = 5e-3 needs only ~2^-45 of
 * it). e^(-x^2) with x^2 in two parts; |x| >= 6 gives +-1
 * (erf 6 = 1 - 2e-17 rounds to 1). */
double __tl_erf_f64(double x) {
    if (x != x)
        return x;
    double a = fabs(x), r;
    if (a >= 6.0)
        return x > 0 ? 1.0 : -1.0;
    if (a < 0x1p-28) /* erf x = 2x/sqrt(pi) (1 - x^2/3 + ...) */
        return x * 0x1.20dd750429b6dp+0;
    double hi = a * a, lo = fma(a, a, -hi);
    double e = __tl_exp_f64(-hi);
    if (a < 2.0) {
        /* sum = a (1 + t2/3 (1 + t2/5 (1 + ...))), innermost first; both
         * factors use hi, not x^2: erf is flat where e^(-x^2) and the sum
         * are steep, so their errors from the rounding of x^2 cancel */
        double t2 = 2.0 * hi, s = 1.0;
        for (int n = 40; n >= 1; n--)
            s = fma(t2 / (2 * n + 1), s, 1.0);
        r = 0x1.20dd750429b6dp+0 * e * (a * s);
        r = r > 1.0 ? 1.0 : r;
    } else {
        e = fma(-e, lo, e); /* e^(-hi - lo) = e^(-hi) (1 - lo) to 2^-100 */
        double k = a;
        for (int n = 100; n >= 1; n--)
            k = a + 0.5 * n / k;
        r = 1.0 - 0x1.20dd750429b6dp-1 * e / k; /* 1/sqrt(pi) = (2/sqrt(pi)) / 2 */
    }
    return x < 0 ? -r : r;
}

/* erf of an fp32 value in fp32 arithmetic, within 2 ulp as libdevice's
 * __nv_erff (which the lowering calls instead when libdevice is there):
 * no fp64, whose throughput is 1/64 of fp32's on most GPUs.
 * Polynomials interpolating erf at Chebyshev nodes, evaluated in Horner form
 * with fmaf; each leading term is split hi + lo and added last, so the
 * result is rounded about once (the host test measures 1.3 ulp from the
 * true value at most):
 *   |x| < 1     x (c0 + s P(s)), s = x^2 (erf is odd), relative error 1e-12
 *   [1, 2)      Q(|x| - 1.5), absolute error 9e-12
 *   [2, 4)      R(|x| - 3), absolute error 1e-9 (erf > 0.995: 1 ulp is 6e-8)
 *   >= 4        1 (erf 4 = 1 - 1.5e-8 rounds to 1) */
static const float ERF_A[] = {-0x1.812746p-2f, 0x1.ce2f2p-4f, -0x1.b82cbap-6f, 0x1.56588cp-8f, -0x1.bfe15ep-11f,
                              0x1.f57eccp-14f, -0x1.d2b944p-17f, 0x1.1c43a8p-20f};
static const float ERF_B[] = {0x1.e72372p-4f, -0x1.6d5a96p-3f, 0x1.1c2a02p-3f, -0x1.6d5adp-5f, -0x1.e723b2p-7f,
                              0x1.3cabbp-6f, -0x1.36cedap-8f, -0x1.379914p-9f, 0x1.bf35dcp-10f, -0x1.4a87a8p-15f,
                              -0x1.f906ep-13f};
static const float ERF_C[] = {0x1.2408c6p-13f, -0x1.b5fd96p-12f, 0x1.9db9cep-11f, -0x1.11f748p-10f, 0x1.0a6ce6p-10f,
                              -0x1.815206p-11f, 0x1.9a791cp-12f, -0x1.2819ap-13f, 0x1.9d561p-17f, 0x1.73876p-16f,
                              -0x1.42d2eep-17f};

static float horner32(const float *c, int n, float u) {
    float p = c[n - 1];
    for (int i = n - 2; i >= 0; i--)
        p = __builtin_fmaf(p, u, c[i]);
    return p;
}

float __tl_erf_f32(float x) {
    float a = __builtin_fabsf(x), r;
    if (!(a < 4.0f)) /* NaN stays NaN; inf and the rest give +-1 */
        return x != x ? x : __builtin_copysignf(1.0f, x);
    if (a < 1.0f) {
        /* x (c0 + s P(s)), c0 (~2/sqrt(pi)) split hi + lo */
        float s = x * x, t = x * (s * horner32(ERF_A, 8, s));
        return __builtin_fmaf(x, 0x1.20dd76p+0f, __builtin_fmaf(x, -0x1.f7ae68p-25f, t));
    }
    if (a < 2.0f) /* Q(0) (~erf 1.5) split hi + lo; a - 1.5 is exact */
        r = 0x1.eea556p-1f + __builtin_fmaf(a - 1.5f, horner32(ERF_B, 11, a - 1.5f), -0x1.1db41cp-26f);
    else /* R(0) (~erf 3) split hi + lo */
        r = 0x1.fffd1ap-1f + __builtin_fmaf(a - 3.0f, horner32(ERF_C, 11, a - 3.0f), 0x1.7a2ccp-26f);
    r = r > 1.0f ? 1.0f : r;
    return x < 0 ? -r : r;
}
