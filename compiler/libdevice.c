/* libdevice.c: the table of libdevice functions tl supports (libdevice.h).
 *
 * Names, argument types and symbols are those of Triton's
 * language/extra/cuda/libdevice.py: an fp32 variant calls __nv_NAMEf, an
 * fp64 one __nv_NAME; predicates (isinf, isnan, signbit, finite) and ilogb
 * return int32. The host side is the C library, in double (an fp32 result is
 * rounded once by the interpreter); functions the C library lacks
 * (erfinv, normcdfinv, ...) are left out, so they stay "not supported". */
#include "libdevice.h"

#include <math.h>
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

/* fp32 and fp64 variants of NAME with arguments ARGS ("f", "ff", "fi"...) */
#define FD(name, fa, da, fr, dr, fsym, dsym, h) {name, {{fa, fr, fsym}, {da, dr, dsym}}, h}
#define U(name, h) FD(#name, "f", "d", 'f', 'd', "__nv_" #name "f", "__nv_" #name, h)
#define B(name, h) FD(#name, "ff", "dd", 'f', 'd', "__nv_" #name "f", "__nv_" #name, h)

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
    {"abs", {{"i", 'i', "__nv_abs"}, {"l", 'l', "__nv_llabs"}}, h_abs},
    {"clz", {{"i", 'i', "__nv_clz"}, {"l", 'i', "__nv_clzll"}}, NULL},
    {"popc", {{"i", 'i', "__nv_popc"}, {"l", 'i', "__nv_popcll"}}, NULL},
    {"ffs", {{"i", 'i', "__nv_ffs"}, {"l", 'i', "__nv_ffsll"}}, NULL},
    {"brev", {{"i", 'i', "__nv_brev"}, {"l", 'l', "__nv_brevll"}}, NULL},
    {"mulhi", {{"ii", 'i', "__nv_mulhi"}, {"uu", 'u', "__nv_umulhi"}, {"ll", 'l', "__nv_mul64hi"},
               {"UU", 'U', "__nv_umul64hi"}}, NULL},
    {"umulhi", {{"uu", 'u', "__nv_umulhi"}, {"UU", 'U', "__nv_umul64hi"}}, NULL},
};
enum { NTABLE = sizeof table / sizeof table[0] };

/* Symbols whose host function is not their entry's: the integer functions
 * have one per width, pow one for an int exponent. */
static const struct { const char *sym; LdVal (*host)(const LdVal *); } by_width[] = {
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
