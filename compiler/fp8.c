/* fp8.c: exact conversions between double and the fp8 formats (fp8.h).
 *
 * To fp8: split |x| into m * 2^e with frexp, pick the quantum of x's binade
 * (2^(e - 1 - mbits) for normals, the subnormal quantum 2^(1 - bias - mbits)
 * below the smallest normal), round |x| / quantum to an integer with rint
 * (ties to even under the default rounding mode), and rebuild the bits from
 * the rounded value, which may have moved up into the next binade. Every
 * step is exact in double: the operands have at most 53 significant bits
 * and the scale factors are powers of two. */
#include "fp8.h"

#include <math.h>

static const Fp8Format formats[] = {
    [DT_F8E4NV - DT_F8E4NV] = {4, 3, 7, 0x7E, 0x7F, 0, 1},
    [DT_F8E5 - DT_F8E4NV] = {5, 2, 15, 0x7B, 0x7F, 1, 0},
    [DT_F8E4B15 - DT_F8E4NV] = {4, 3, 15, 0x7F, 0x7F, 0, 0},
};

const Fp8Format *fp8_format(DType dt) { return dt_is_fp8(dt) ? &formats[dt - DT_F8E4NV] : NULL; }

double fp8_to_double(DType dt, uint8_t bits) {
    const Fp8Format *f = fp8_format(dt);
    if (!f)
        return 0;
    int sign = bits >> 7, mag = bits & 0x7F;
    int e = mag >> f->mbits, m = mag & ((1 << f->mbits) - 1), emax = (1 << f->ebits) - 1;
    double v;
    if (f->nan_all_ones && mag == 0x7F)
        v = NAN;
    else if (f->has_inf && e == emax)
        v = m ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp(m, 1 - f->bias - f->mbits);
    else
        v = ldexp(m + (1 << f->mbits), e - f->bias - f->mbits);
    return sign ? -v : v;
}

uint8_t fp8_from_double(DType dt, double x) {
    const Fp8Format *f = fp8_format(dt);
    if (!f)
        return 0;
    if (isnan(x))
        return f->nan_bits;
    uint8_t sign = signbit(x) ? 0x80 : 0;
    double a = fabs(x), max = fp8_to_double(dt, f->max_bits);
    if (a >= max) /* infinity too; what rounds to max stays max */
        return sign | f->max_bits;
    int e;
    frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1: a's binade starts at 2^(e-1) */
    int qexp = e - 1 - f->mbits, qmin = 1 - f->bias - f->mbits;
    if (qexp < qmin)
        qexp = qmin;
    double q = rint(ldexp(a, -qexp)); /* ties to even */
    double r = ldexp(q, qexp);
    if (r > max)
        return sign | f->max_bits;
    if (r == 0)
        return sign;
    frexp(r, &e);
    int ebits = e - 1 + f->bias; /* biased exponent of the rounded value */
    if (ebits <= 0) /* subnormal: the integer q is the mantissa */
        return sign | (uint8_t)q;
    int m = (int)ldexp(r, f->mbits - (e - 1)) - (1 << f->mbits);
    return sign | (uint8_t)((ebits << f->mbits) | m);
}
