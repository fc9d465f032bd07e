/* devmath_test.c: the device math library (compiler/device/math.c) on the
 * host, against the C library. Each function runs over random inputs drawn
 * uniformly and log-uniformly from its domain, plus the special values, and
 * the largest error in ulps of the C library's result must stay within the
 * bound the source states. Prints "[PASS] devmath/NAME (max N ulp)" or
 * "[FAIL] ..." per function (tests/devmath.sh counts them). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../compiler/device/math.c"

static uint64_t rng = 88172645463325252ull;
static double uniform(void) { /* [0, 1) */
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (double)(rng >> 11) * 0x1p-53;
}

/* The precision ulps measures in: fp64 (53 bits, subnormals from 2^-1074),
 * or fp32 (24, 2^-149) for the fp32 functions. */
static int prec = 53, min_exp = -1074;

/* |got - want| in units of the last place of want (subnormals: of 2^min_exp). */
static double ulps(double got, double want) {
    if (isnan(want))
        return isnan(got) ? 0 : INFINITY;
    if (isinf(want) || isinf(got))
        return got == want ? 0 : INFINITY;
    int e;
    frexp(want, &e);
    double u = ldexp(1.0, (e - prec < min_exp ? min_exp : e - prec));
    return fabs(got - want) / u;
}

static int failures;

typedef double (*F)(double);
static void check(const char *name, F mine, F ref, double lo, double hi, int logscale, double bound,
                  const double *specials, int nspecial) {
    double worst = 0, at = 0;
    for (int i = 0; i < 400000 + nspecial; i++) {
        double x;
        if (i < nspecial)
            x = specials[i];
        else if (logscale) /* sign * 10^[lo, hi] */
            x = (uniform() < 0.5 ? -1 : 1) * pow(10, lo + (hi - lo) * uniform());
        else
            x = lo + (hi - lo) * uniform();
        double u = ulps(mine(x), ref(x));
        if (!(u <= worst)) /* (NaN counts as worst) */
            worst = u, at = x;
    }
    if (worst <= bound) {
        printf("[PASS] devmath/%s (max %.2f ulp)\n", name, worst);
    } else {
        printf("[FAIL] devmath/%s: %.3g ulp at x = %a (got %a, want %a)\n", name, worst, at, mine(at), ref(at));
        failures++;
    }
}

/* fp32 erf against erf of the same fp32 input in fp64 (not rounded: the
 * error is measured from the true value, as libdevice's bounds are) */
static double erf32(double x) { return __tl_erf_f32((float)x); }
static double erf32_ref(double x) { return erf((float)x); }

int main(void) {
    static const double sp[] = {0.0, -0.0, 1.0, -1.0, INFINITY, -INFINITY, NAN, 0x1p-1074, 0x1p-1022,
                                0.5, 709.78, 709.79, -745.13, -745.14, 1e-300, 2.0, 0x1.fffffffffffffp1023};
    int ns = sizeof sp / sizeof sp[0];
    check("exp", __tl_exp_f64, exp, -745.2, 709.8, 0, 1.0, sp, ns);
    check("exp_small", __tl_exp_f64, exp, -20, 2, 1, 1.0, sp, ns);
    check("exp2", __tl_exp2_f64, exp2, -1076, 1024.5, 0, 1.0, sp, ns);
    check("log", __tl_log_f64, log, 0, 700, 0, 1.0, sp, ns);
    check("log_wide", __tl_log_f64, log, -320, 308, 1, 1.0, sp, ns);
    check("log_near1", __tl_log_f64, log, 0.7, 1.45, 0, 1.0, sp, ns);
    check("log2", __tl_log2_f64, log2, -320, 308, 1, 2.0, sp, ns);
    check("log2_near1", __tl_log2_f64, log2, 0.7, 1.45, 0, 2.0, sp, ns);
    /* sin and cos reduce arguments below 2^30 only (the largest special value is left out) */
    check("sin", __tl_sin_f64, sin, -100, 100, 0, 1.5, sp, ns - 8);
    check("sin_wide", __tl_sin_f64, sin, -8, 9, 1, 2.0, sp, ns - 8);
    check("cos", __tl_cos_f64, cos, -100, 100, 0, 1.5, sp, ns - 8);
    check("cos_wide", __tl_cos_f64, cos, -8, 9, 1, 2.0, sp, ns - 8);
    check("erf", __tl_erf_f64, erf, -7, 7, 0, 5.0, sp, ns);
    check("erf_small", __tl_erf_f64, erf, -30, 0, 1, 3.0, sp, ns);
    /* fp32 erf: libdevice's __nv_erff bound (CUDA: 2 ulp), in fp32 ulps */
    prec = 24, min_exp = -149;
    check("erf_f32", erf32, erf32_ref, -5, 5, 0, 2.0, sp, ns);
    check("erf_f32_small", erf32, erf32_ref, -45, 0.7, 1, 2.0, sp, ns);
    check("erf_f32_tail", erf32, erf32_ref, 0.9, 4.1, 0, 2.0, sp, ns);
    return failures ? 1 : 0;
}
