/* interp_ops.c: the arithmetic of the interpreter. Rounding to fp16 / bf16 /
 * tf32, element conversions, and every op that reads only its operands:
 * constants, shape ops, elementwise arithmetic and math, casts, dot and
 * reduce. The driver (interp.c) owns memory, control flow and errors.
 *
 * Rounding: an op computes in int64 / double and rounds the result to its
 * element type. For f32 that is (double)(float)x; for + - * / and sqrt of
 * floats the double intermediate is wide enough (53 >= 2*24+2 bits) that the
 * double rounding is harmless, so results match the GPU's single rounding.
 * fp16 and bf16 are rounded by round_fmt, which rounds a double to a given
 * precision and exponent range exactly (no intermediate float).
 *
 * Dot: each output element accumulates its K products in k order, rounding
 * to f32 after every add. For fp16 / bf16 / tf32 inputs the products are
 * exact in f32, so `c += a * b` rounds once per step, as the tensor cores'
 * f32 accumulators do; IEEE fp32 inputs use fmaf, as the GPU's FMA loop does. */
#include "interp_impl.h"
#include "fp8.h"

#include "libdevice.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- rounding ---- */

/* Round x to the nearest value (ties to even) with p significand bits, normal
 * exponents down to emin (below that, subnormals with a fixed quantum), and
 * largest finite value maxval (above it, infinity). Every step is exact in
 * double: q is a power of two and r has at most p + 1 integer bits. */
static double round_fmt(double x, int p, int emin, double maxval) {
    if (x == 0 || !isfinite(x))
        return x;
    double a = fabs(x);
    int e;
    frexp(a, &e); /* a in [2^(e-1), 2^e) */
    int E = e - 1 < emin ? emin : e - 1;
    double q = ldexp(1.0, E - (p - 1));
    double r = a / q, fl = floor(r), diff = r - fl;
    if (diff > 0.5 || (diff == 0.5 && fmod(fl, 2.0) != 0))
        fl += 1;
    double res = fl * q;
    if (res > maxval)
        res = INFINITY;
    return copysign(res, x);
}

float interp_round_f16(double x) { return (float)round_fmt(x, 11, -14, 65504.0); }
float interp_round_bf16(double x) { return (float)round_fmt(x, 8, -126, 0x1.FEp127); }
float interp_round_tf32(float x) { return (float)round_fmt(x, 11, -126, 0x1.FFCp127); }

uint16_t interp_f32_to_f16_bits(float x) {
    uint16_t sign = signbit(x) ? 0x8000 : 0;
    if (isnan(x))
        return sign | 0x7E00;
    double r = fabs((double)interp_round_f16(x));
    if (isinf(r))
        return sign | 0x7C00;
    if (r < 0x1p-14) /* subnormal (or zero): an exact multiple of 2^-24 */
        return sign | (uint16_t)(r * 0x1p24);
    int e;
    double m = frexp(r, &e); /* r = (2m) * 2^(e-1), 2m in [1, 2) */
    unsigned exp = (unsigned)(e - 1 + 15), frac = (unsigned)((2 * m - 1) * 1024);
    return (uint16_t)(sign | exp << 10 | frac);
}

float interp_f16_bits_to_f32(uint16_t h) {
    unsigned exp = (h >> 10) & 0x1F, frac = h & 0x3FF;
    double v;
    if (exp == 0)
        v = ldexp(frac, -24);
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp(1024 + frac, (int)exp - 25);
    return (float)((h & 0x8000) ? -v : v);
}

uint16_t interp_f32_to_bf16_bits(float x) {
    if (isnan(x))
        return signbit(x) ? 0xFFC0 : 0x7FC0;
    float r = interp_round_bf16(x);
    uint32_t u;
    memcpy(&u, &r, 4);
    return (uint16_t)(u >> 16);
}

float interp_bf16_bits_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static inline double fround(double x, DType dt) {
    switch (dt) {
    case DT_F16: return interp_round_f16(x);
    case DT_BF16: return interp_round_bf16(x);
    case DT_F32: return (double)(float)x;
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: return fp8_to_double(dt, fp8_from_double(dt, x));
    default: return x;
    }
}

/* ---- integers ---- */

static inline int64_t u2i(uint64_t u) {
    int64_t r;
    memcpy(&r, &u, sizeof r);
    return r;
}

/* Sign-extend the low `bits` bits of u without implementation-defined casts. */
static inline int64_t sext(uint64_t u, int bits) {
    uint64_t m = UINT64_C(1) << (bits - 1);
    u &= (m << 1) - 1;
    return u2i((u ^ m) - m);
}

int64_t interp_wrap(int64_t x, DType dt) {
    uint64_t u = (uint64_t)x;
    switch (dt) {
    case DT_I1: return (int64_t)(u & 1);
    case DT_I8: return sext(u, 8);
    case DT_I16: return sext(u, 16);
    case DT_I32: return sext(u, 32);
    case DT_U8: return (int64_t)(u & 0xFF);
    case DT_U16: return (int64_t)(u & 0xFFFF);
    case DT_U32: return (int64_t)(u & 0xFFFFFFFF);
    default: return x;
    }
}

void interp_norm(Elem *d, int64_t n, DType dt) {
    switch (dt) {
    case DT_I64: case DT_U64: case DT_F64: case DT_PTR:
        return;
    case DT_F16:
        for (int64_t k = 0; k < n; k++)
            d[k].f = interp_round_f16(d[k].f);
        return;
    case DT_BF16:
        for (int64_t k = 0; k < n; k++)
            d[k].f = interp_round_bf16(d[k].f);
        return;
    case DT_F32:
        for (int64_t k = 0; k < n; k++)
            d[k].f = (float)d[k].f;
        return;
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15:
        for (int64_t k = 0; k < n; k++)
            d[k].f = fround(d[k].f, dt);
        return;
    default:
        for (int64_t k = 0; k < n; k++)
            d[k].i = interp_wrap(d[k].i, dt);
    }
}

/* Significand bits of each float type, hidden bit included. */
static int precision(DType dt) {
    switch (dt) {
    case DT_F16: return 11;
    case DT_BF16: return 8;
    case DT_F32: return 24;
    default: return 53;
    }
}

/* m rounded to p significant bits (ties to even), exactly, as a double. */
static double round_u64(uint64_t m, int p) {
    if (m < (UINT64_C(1) << p))
        return (double)m;
    int sh = 64 - __builtin_clzll(m) - p;
    uint64_t q = m >> sh, rem = m & ((UINT64_C(1) << sh) - 1), half = UINT64_C(1) << (sh - 1);
    if (rem > half || (rem == half && (q & 1)))
        q++;
    return ldexp((double)q, sh);
}

static double int_to_float(int64_t x, bool is_unsigned, DType to) {
    bool neg = !is_unsigned && x < 0;
    uint64_t m = neg ? 0 - (uint64_t)x : (uint64_t)x;
    double v = round_u64(m, precision(to));
    return fround(neg ? -v : v, to); /* only overflow to inf remains */
}

/* Truncate toward zero; NaN gives 0, out-of-range values clamp (as PTX cvt.rzi.sat). */
static int64_t float_to_int(double f, DType to) {
    if (isnan(f))
        return 0;
    double t = trunc(f);
    int w = dt_bits(to);
    if (dt_is_signed(to)) {
        double lim = ldexp(1.0, w - 1);
        if (t <= -lim)
            return u2i(0 - (UINT64_C(1) << (w - 1)));
        if (t >= lim)
            return (int64_t)((UINT64_C(1) << (w - 1)) - 1);
        return (int64_t)t;
    }
    if (t <= 0)
        return 0;
    if (t >= ldexp(1.0, w))
        return u2i(w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1);
    return u2i((uint64_t)t);
}

Elem interp_convert(Elem x, DType from, DType to) {
    Elem r = {0};
    if (to == DT_PTR) {
        r.p = from == DT_PTR ? x.p : (uint64_t)x.i;
    } else if (from == DT_PTR) {
        r = interp_convert((Elem){.i = u2i(x.p)}, DT_I64, to);
    } else if (to == DT_I1) {
        r.i = dt_is_fp(from) ? x.f != 0 : x.i != 0;
    } else if (dt_is_int(from) && dt_is_int(to)) {
        r.i = interp_wrap(x.i, to);
    } else if (dt_is_int(from)) {
        r.f = int_to_float(x.i, !dt_is_signed(from), to);
    } else if (dt_is_int(to)) {
        r.i = float_to_int(x.f, to);
    } else {
        r.f = fround(x.f, to);
    }
    return r;
}

uint64_t interp_bits_of(Elem x, DType dt) {
    switch (dt) {
    case DT_F16: return interp_f32_to_f16_bits((float)x.f);
    case DT_BF16: return interp_f32_to_bf16_bits((float)x.f);
    case DT_F32: {
        float f = (float)x.f;
        uint32_t u;
        memcpy(&u, &f, 4);
        return u;
    }
    case DT_F64: {
        uint64_t u;
        memcpy(&u, &x.f, 8);
        return u;
    }
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: return fp8_from_double(dt, x.f);
    case DT_PTR: return x.p;
    case DT_I1: return (uint64_t)x.i & 1;
    default: {
        int w = dt_bits(dt);
        return w == 64 ? (uint64_t)x.i : (uint64_t)x.i & ((UINT64_C(1) << w) - 1);
    }
    }
}

Elem interp_from_bits(uint64_t bits, DType dt) {
    Elem r = {0};
    switch (dt) {
    case DT_F16: r.f = interp_f16_bits_to_f32((uint16_t)bits); break;
    case DT_BF16: r.f = interp_bf16_bits_to_f32((uint16_t)bits); break;
    case DT_F32: {
        uint32_t u = (uint32_t)bits;
        float f;
        memcpy(&f, &u, 4);
        r.f = f;
        break;
    }
    case DT_F64: memcpy(&r.f, &bits, 8); break;
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: r.f = fp8_to_double(dt, (uint8_t)bits); break;
    case DT_PTR: r.p = bits; break;
    default: r.i = interp_wrap(u2i(bits), dt);
    }
    return r;
}

/* fp_downcast_rounding='rtz': the nearest value, one step toward zero where
 * it landed beyond x (an overflow to inf becomes the largest finite value,
 * as PTX's cvt.rz); NaN and infinities stay. The encodings are sign and
 * magnitude, so a step toward zero is the magnitude's bits minus one. */
static Elem convert_rtz(Elem x, DType to) {
    Elem r = {.f = fround(x.f, to)};
    if (isnan(x.f) || isinf(x.f) || !(fabs(r.f) > fabs(x.f)))
        return r;
    return interp_from_bits(interp_bits_of(r, to) - 1, to);
}

void *interp_scratch(Scratch *s, size_t bytes) {
    if (bytes > s->cap) {
        void *p = realloc(s->p, bytes);
        if (!p)
            return NULL;
        s->p = p;
        s->cap = bytes;
    }
    return s->p;
}

/* ---- shape ops ---- */

/* out[idx] = src[sum idx[d] * stride[d]] over the row-major index space of shape. */
static void gather(Elem *out, const Elem *src, int rank, const int32_t *shape, const int64_t *stride) {
    int64_t idx[IR_MAX_RANK] = {0}, n = 1, at = 0;
    for (int d = 0; d < rank; d++)
        n *= shape[d];
    for (int64_t k = 0; k < n; k++) {
        out[k] = src[at];
        for (int d = rank - 1; d >= 0; d--) {
            at += stride[d];
            if (++idx[d] < shape[d])
                break;
            at -= stride[d] * shape[d];
            idx[d] = 0;
        }
    }
}

static void row_major_strides(Type t, int64_t *stride) {
    int64_t s = 1;
    for (int d = t.rank - 1; d >= 0; d--) {
        stride[d] = s;
        s *= t.shape[d];
    }
}

static InterpStatus broadcast(Type src, Type dst, const Elem *a, Elem *out) {
    int64_t n = ir_numel(dst), stride[IR_MAX_RANK] = {0};
    if (ir_numel(src) == 1) {
        for (int64_t k = 0; k < n; k++)
            out[k] = a[0];
        return INTERP_OK;
    }
    if (src.rank != dst.rank)
        return INTERP_INTERNAL;
    row_major_strides(src, stride);
    for (int d = 0; d < dst.rank; d++) {
        if (src.shape[d] == 1)
            stride[d] = 0;
        else if (src.shape[d] != dst.shape[d])
            return INTERP_INTERNAL;
    }
    gather(out, a, dst.rank, dst.shape, stride);
    return INTERP_OK;
}

static InterpStatus transpose(Type src, Type dst, const int *perm, const Elem *a, Elem *out) {
    int64_t sstride[IR_MAX_RANK], stride[IR_MAX_RANK];
    if (src.rank != dst.rank)
        return INTERP_INTERNAL;
    row_major_strides(src, sstride);
    for (int d = 0; d < dst.rank; d++) {
        if (perm[d] < 0 || perm[d] >= src.rank || src.shape[perm[d]] != dst.shape[d])
            return INTERP_INTERNAL;
        stride[d] = sstride[perm[d]];
    }
    gather(out, a, dst.rank, dst.shape, stride);
    return INTERP_OK;
}

/* The dst-shaped part of src from index start along axis. */
static InterpStatus extract(Type src, Type dst, int axis, int64_t start, const Elem *a, Elem *out) {
    int64_t stride[IR_MAX_RANK];
    if (src.rank != dst.rank || axis < 0 || axis >= src.rank || start < 0 ||
        start + dst.shape[axis] > src.shape[axis])
        return INTERP_INTERNAL;
    row_major_strides(src, stride);
    gather(out, a + start * stride[axis], dst.rank, dst.shape, stride);
    return INTERP_OK;
}

/* ---- elementwise ---- */

#define LOOP(field, expr)                                                                          \
    for (int64_t k = 0; k < n; k++) {                                                              \
        Elem x = a[k * sa], y = b[k * sb];                                                         \
        (void)x, (void)y;                                                                          \
        out[k].field = (expr);                                                                     \
    }                                                                                              \
    break

static InterpStatus binary(OpCode op, DType dt, const Elem *a, int64_t sa, const Elem *b, int64_t sb,
                           Elem *out, int64_t n) {
    if (dt_is_float(dt)) {
        switch (op) {
        case IR_ADD: LOOP(f, x.f + y.f);
        case IR_SUB: LOOP(f, x.f - y.f);
        case IR_MUL: LOOP(f, x.f * y.f);
        case IR_DIV: LOOP(f, x.f / y.f);
        case IR_REM: LOOP(f, fmod(x.f, y.f));
        case IR_MIN: LOOP(f, fmin(x.f, y.f));
        case IR_MAX: LOOP(f, fmax(x.f, y.f));
        default: return INTERP_INTERNAL;
        }
        interp_norm(out, n, dt);
        return INTERP_OK;
    }
    if (!dt_is_int(dt))
        return INTERP_INTERNAL;
    bool uns = !dt_is_signed(dt);
    uint64_t w = (uint64_t)dt_bits(dt);
    switch (op) {
    case IR_ADD: LOOP(i, u2i((uint64_t)x.i + (uint64_t)y.i));
    case IR_SUB: LOOP(i, u2i((uint64_t)x.i - (uint64_t)y.i));
    case IR_MUL: LOOP(i, u2i((uint64_t)x.i * (uint64_t)y.i));
    case IR_UMULHI: /* the high half of the unsigned product of the w-bit patterns */
        if (w == 64) {
            LOOP(i, u2i((uint64_t)(((unsigned __int128)(uint64_t)x.i * (uint64_t)y.i) >> 64)));
        } else {
            uint64_t m = (UINT64_C(1) << w) - 1;
            LOOP(i, u2i((((uint64_t)x.i & m) * ((uint64_t)y.i & m)) >> w));
        }
    case IR_DIV:
    case IR_REM:
        for (int64_t k = 0; k < n; k++) {
            int64_t x = a[k * sa].i, y = b[k * sb].i;
            if (y == 0) {
                /* The GPU does not trap and kernels divide in lanes that a
                 * tl.where later discards; like Triton's interpreter (numpy),
                 * give 0 rather than stop a valid kernel. */
                out[k].i = 0;
                continue;
            }
            if (uns)
                out[k].i = u2i(op == IR_DIV ? (uint64_t)x / (uint64_t)y : (uint64_t)x % (uint64_t)y);
            else if (y == -1) /* INT64_MIN / -1 wraps to INT64_MIN; the remainder is 0 */
                out[k].i = op == IR_DIV ? u2i(0 - (uint64_t)x) : 0;
            else
                out[k].i = op == IR_DIV ? x / y : x % y;
        }
        break;
    case IR_AND: LOOP(i, x.i & y.i);
    case IR_OR: LOOP(i, x.i | y.i);
    case IR_XOR: LOOP(i, x.i ^ y.i);
    case IR_SHL: LOOP(i, (uint64_t)y.i >= w ? 0 : u2i((uint64_t)x.i << y.i));
    case IR_SHR:
        if (uns) {
            LOOP(i, (uint64_t)y.i >= w ? 0 : u2i((uint64_t)x.i >> y.i));
        } else {
            /* arithmetic shift written without implementation-defined >> of negatives */
            LOOP(i, (uint64_t)y.i >= w ? (x.i < 0 ? -1 : 0)
                    : x.i < 0      ? ~u2i(~(uint64_t)x.i >> y.i)
                                   : x.i >> y.i);
        }
    case IR_MIN:
        if (uns) {
            LOOP(i, (uint64_t)x.i < (uint64_t)y.i ? x.i : y.i);
        } else {
            LOOP(i, x.i < y.i ? x.i : y.i);
        }
    case IR_MAX:
        if (uns) {
            LOOP(i, (uint64_t)x.i > (uint64_t)y.i ? x.i : y.i);
        } else {
            LOOP(i, x.i > y.i ? x.i : y.i);
        }
    default: return INTERP_INTERNAL;
    }
    interp_norm(out, n, dt);
    return INTERP_OK;
}
#undef LOOP

#define LOOP(field, expr)                                                                          \
    for (int64_t k = 0; k < n; k++) {                                                              \
        Elem x = a[k * sa];                                                                        \
        out[k].field = (expr);                                                                     \
    }                                                                                              \
    break

static InterpStatus unary(OpCode op, DType dt, const Elem *a, int64_t sa, Elem *out, int64_t n) {
    if (dt_is_float(dt)) {
        switch (op) {
        case IR_NEG: LOOP(f, -x.f);
        case IR_EXP: LOOP(f, exp(x.f));
        case IR_EXP2: LOOP(f, exp2(x.f));
        case IR_LOG: LOOP(f, log(x.f));
        case IR_LOG2: LOOP(f, log2(x.f));
        case IR_SQRT: LOOP(f, sqrt(x.f));
        case IR_RSQRT: LOOP(f, 1.0 / sqrt(x.f));
        case IR_SIN: LOOP(f, sin(x.f));
        case IR_COS: LOOP(f, cos(x.f));
        case IR_ABS: LOOP(f, fabs(x.f));
        case IR_FLOOR: LOOP(f, floor(x.f));
        case IR_CEIL: LOOP(f, ceil(x.f));
        case IR_ERF: LOOP(f, erf(x.f));
        default: return INTERP_INTERNAL;
        }
    } else if (dt_is_int(dt)) {
        bool uns = !dt_is_signed(dt);
        switch (op) {
        case IR_NEG: LOOP(i, u2i(0 - (uint64_t)x.i));
        case IR_NOT: LOOP(i, ~x.i);
        case IR_ABS: LOOP(i, !uns && x.i < 0 ? u2i(0 - (uint64_t)x.i) : x.i);
        case IR_FLOOR: case IR_CEIL: LOOP(i, x.i);
        default: return INTERP_INTERNAL;
        }
    } else {
        return INTERP_INTERNAL;
    }
    interp_norm(out, n, dt);
    return INTERP_OK;
}
#undef LOOP

static bool cmp_result(int pred, int c) { /* c: -1, 0, 1 */
    switch (pred) {
    case CMP_LT: return c < 0;
    case CMP_LE: return c <= 0;
    case CMP_GT: return c > 0;
    case CMP_GE: return c >= 0;
    case CMP_EQ: return c == 0;
    default: return c != 0;
    }
}

static InterpStatus compare(int pred, DType dt, const Elem *a, int64_t sa, const Elem *b, int64_t sb,
                            Elem *out, int64_t n) {
    if (pred < CMP_LT || pred > CMP_NE)
        return INTERP_INTERNAL;
    if (dt_is_float(dt)) {
        for (int64_t k = 0; k < n; k++) {
            double x = a[k * sa].f, y = b[k * sb].f;
            bool r;
            switch (pred) { /* C semantics: ordered, except != */
            case CMP_LT: r = x < y; break;
            case CMP_LE: r = x <= y; break;
            case CMP_GT: r = x > y; break;
            case CMP_GE: r = x >= y; break;
            case CMP_EQ: r = x == y; break;
            default: r = x != y; break;
            }
            out[k].i = r;
        }
    } else if (dt == DT_PTR) { /* same buffer: by offset; else by buffer */
        for (int64_t k = 0; k < n; k++) {
            uint64_t x = a[k * sa].p, y = b[k * sb].p;
            unsigned tx = ptr_tag(x), ty = ptr_tag(y);
            int64_t ox = ptr_off(x), oy = ptr_off(y);
            int c = tx != ty ? (tx < ty ? -1 : 1) : ox < oy ? -1 : ox > oy;
            out[k].i = cmp_result(pred, c);
        }
    } else if (dt_is_signed(dt)) {
        for (int64_t k = 0; k < n; k++) {
            int64_t x = a[k * sa].i, y = b[k * sb].i;
            out[k].i = cmp_result(pred, x < y ? -1 : x > y);
        }
    } else {
        for (int64_t k = 0; k < n; k++) {
            uint64_t x = (uint64_t)a[k * sa].i, y = (uint64_t)b[k * sb].i;
            out[k].i = cmp_result(pred, x < y ? -1 : x > y);
        }
    }
    return INTERP_OK;
}

static void addptr(const Elem *a, int64_t sa, const Elem *b, int64_t sb, int esize, Elem *out, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        uint64_t p = a[k * sa].p;
        unsigned tag = ptr_tag(p);
        int64_t off, bytes;
        if (tag == PTR_WILD || __builtin_mul_overflow(b[k * sb].i, (int64_t)esize, &bytes) ||
            __builtin_add_overflow(ptr_off(p), bytes, &off))
            out[k].p = (uint64_t)PTR_WILD << 48;
        else
            out[k].p = ptr_pack(tag, off);
    }
}

/* ---- dot ---- */

static InterpStatus dot(const Inst *in, Type ta, Type tb, Type tc, Type tr, Elem *const *args, Elem *out,
                        Scratch *s) {
    int r = ta.rank;
    if ((r != 2 && r != 3) || tb.rank != r || tc.rank != r || tr.rank != r)
        return INTERP_INTERNAL;
    int64_t B = r == 3 ? ta.shape[0] : 1, M = ta.shape[r - 2], K = ta.shape[r - 1], N = tb.shape[r - 1];
    if (tb.shape[r - 2] != K || tc.shape[r - 2] != M || tc.shape[r - 1] != N || ir_numel(tc) != B * M * N ||
        ir_numel(tr) != B * M * N || ir_numel(tb) != B * K * N)
        return INTERP_INTERNAL;
    DType adt = ta.dtype, bdt = tb.dtype, cdt = tc.dtype, rdt = tr.dtype;
    const Elem *A = args[0], *Bm = args[1], *C = args[2];

    if (dt_is_int(adt) && dt_is_int(bdt)) { /* int8 -> int32: wrap-around accumulation */
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    uint64_t acc = (uint64_t)interp_convert(C[(bb * M + i) * N + j], cdt, DT_I64).i;
                    for (int64_t k = 0; k < K; k++)
                        acc += (uint64_t)A[(bb * M + i) * K + k].i * (uint64_t)Bm[(bb * K + k) * N + j].i;
                    out[(bb * M + i) * N + j].i = interp_wrap(u2i(acc), rdt);
                }
        return INTERP_OK;
    }
    if (!dt_is_fp(adt) || !dt_is_fp(bdt) || !dt_is_float(cdt) || !dt_is_float(rdt))
        return INTERP_INTERNAL;
    if (adt == DT_F64 || bdt == DT_F64 || rdt == DT_F64) {
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    double acc = C[(bb * M + i) * N + j].f;
                    for (int64_t k = 0; k < K; k++)
                        acc = fma(A[(bb * M + i) * K + k].f, Bm[(bb * K + k) * N + j].f, acc);
                    out[(bb * M + i) * N + j].f = fround(acc, rdt);
                }
        return INTERP_OK;
    }
    bool half_in = (adt == DT_F16 || adt == DT_BF16 || dt_is_fp8(adt)) && (bdt == DT_F16 || bdt == DT_BF16 || dt_is_fp8(bdt));
    bool tf32 = !half_in && in->attr.precision == PREC_TF32;
    bool exact = half_in || tf32; /* products exact in f32 */
    float *fa = interp_scratch(s, sizeof(float) * (size_t)(M * K + K * N + M * N));
    if (!fa)
        return INTERP_NO_MEMORY;
    float *fb = fa + M * K, *fc = fb + K * N;
    for (int64_t bb = 0; bb < B; bb++) {
        for (int64_t k = 0; k < M * K; k++) {
            float v = (float)A[bb * M * K + k].f;
            fa[k] = tf32 ? interp_round_tf32(v) : v;
        }
        for (int64_t k = 0; k < K * N; k++) {
            float v = (float)Bm[bb * K * N + k].f;
            fb[k] = tf32 ? interp_round_tf32(v) : v;
        }
        for (int64_t k = 0; k < M * N; k++)
            fc[k] = (float)C[bb * M * N + k].f;
        /* i, k, j order: each fc[i][j] still sees its products in k order */
        for (int64_t i = 0; i < M; i++) {
            float *crow = fc + i * N;
            for (int64_t k = 0; k < K; k++) {
                float av = fa[i * K + k];
                const float *brow = fb + k * N;
                if (exact)
                    for (int64_t j = 0; j < N; j++)
                        crow[j] += av * brow[j];
                else
                    for (int64_t j = 0; j < N; j++)
                        crow[j] = fmaf(av, brow[j], crow[j]);
            }
        }
        for (int64_t k = 0; k < M * N; k++)
            out[bb * M * N + k].f = fround(fc[k], rdt);
    }
    return INTERP_OK;
}

/* ---- reduce ---- */

/* Is x a better argmax (want_max) / argmin candidate than best? NaNs never win
 * but are replaced; ties keep the first index. */
static bool better(Elem x, Elem best, DType dt, bool want_max) {
    if (dt_is_float(dt)) {
        if (isnan(x.f))
            return false;
        if (isnan(best.f))
            return true;
        return want_max ? x.f > best.f : x.f < best.f;
    }
    if (dt_is_signed(dt))
        return want_max ? x.i > best.i : x.i < best.i;
    return want_max ? (uint64_t)x.i > (uint64_t)best.i : (uint64_t)x.i < (uint64_t)best.i;
}

static Elem combine(int kind, Elem acc, Elem x, DType dt) {
    Elem r = acc;
    if (dt_is_float(dt)) {
        if (kind == RED_SUM)
            r.f = fround(acc.f + x.f, dt);
        else
            r.f = kind == RED_MAX ? fmax(acc.f, x.f) : fmin(acc.f, x.f);
    } else if (kind == RED_SUM) {
        r.i = interp_wrap(u2i((uint64_t)acc.i + (uint64_t)x.i), dt);
    } else if (better(x, acc, dt, kind == RED_MAX)) {
        r = x;
    }
    return r;
}

static InterpStatus reduce(const Inst *in, Type ta, Type tr, const Elem *a, Elem *out) {
    int axis = in->attr.axis, kind = in->attr.reduce;
    if (axis < 0 || axis >= ta.rank || kind < RED_SUM || kind > RED_ARGMIN)
        return INTERP_INTERNAL;
    int64_t outer = 1, len = ta.shape[axis], inner = 1;
    for (int d = 0; d < axis; d++)
        outer *= ta.shape[d];
    for (int d = axis + 1; d < ta.rank; d++)
        inner *= ta.shape[d];
    if (ir_numel(tr) != outer * inner)
        return INTERP_INTERNAL;
    DType idt = ta.dtype, rdt = tr.dtype;
    for (int64_t o = 0; o < outer; o++)
        for (int64_t i = 0; i < inner; i++) {
            const Elem *p = a + o * len * inner + i;
            Elem *dst = out + o * inner + i;
            if (kind == RED_ARGMAX || kind == RED_ARGMIN) {
                Elem best = p[0];
                int64_t bi = 0;
                for (int64_t j = 1; j < len; j++)
                    if (better(p[j * inner], best, idt, kind == RED_ARGMAX)) {
                        best = p[j * inner];
                        bi = j;
                    }
                dst->i = interp_wrap(bi, rdt);
            } else { /* accumulate in the result type */
                Elem acc = interp_convert(p[0], idt, rdt);
                for (int64_t j = 1; j < len; j++)
                    acc = combine(kind, acc, interp_convert(p[j * inner], idt, rdt), rdt);
                *dst = acc;
            }
        }
    return INTERP_OK;
}

/* ---- gather, histogram ---- */

/* out[i] = src[i with i[axis] = index[i]]. An index outside the axis gives
 * an unspecified value (here: the element at index mod size). */
static InterpStatus gather_axis(const Inst *in, Type ts, Type ti, const Elem *src, const Elem *idx, Elem *out) {
    int axis = in->attr.axis;
    if (axis < 0 || axis >= ts.rank || ti.rank != ts.rank)
        return INTERP_INTERNAL;
    int64_t inner = 1, n = ir_numel(ti), S = ts.shape[axis], L = ti.shape[axis];
    for (int d = axis + 1; d < ts.rank; d++)
        inner *= ts.shape[d];
    for (int64_t k = 0; k < n; k++) {
        int64_t j = k % inner, o = k / inner / L;
        int64_t at = (int64_t)((uint64_t)idx[k].i & (uint64_t)(S - 1)); /* S is a power of two */
        out[k] = src[(o * S + at) * inner + j];
    }
    return INTERP_OK;
}

/* Counts of the values 0 .. bins-1 (others, and masked lanes, are not counted). */
static InterpStatus histogram(Type tx, Type tr, const Elem *x, const Elem *mask, Elem *out) {
    int64_t n = ir_numel(tx), bins = ir_numel(tr);
    bool uns = !dt_is_signed(tx.dtype);
    for (int64_t b = 0; b < bins; b++)
        out[b].i = 0;
    for (int64_t k = 0; k < n; k++) {
        if (mask && !mask[k].i)
            continue;
        int64_t v = x[k].i;
        if ((uns ? (uint64_t)v < (uint64_t)bins : v >= 0 && v < bins))
            out[v].i = interp_wrap(out[v].i + 1, DT_I32);
    }
    return INTERP_OK;
}

/* ---- dispatch ---- */

InterpStatus interp_eval(const Function *fn, const Inst *in, Elem *const *args, Elem *out, Scratch *s) {
    if (in->nresults != 1)
        return INTERP_INTERNAL;
    Type tr = fn->values[in->results[0]].type, t[INTERP_MAX_ARGS] = {{0}};
    int64_t n = ir_numel(tr), na[INTERP_MAX_ARGS] = {0}, st[INTERP_MAX_ARGS] = {0};
    int nargs = in->op == IR_HISTOGRAM || in->op == IR_EXTERN ? in->nargs : ir_ops[in->op].nargs;
    if (in->op == IR_DESC_TILE) /* the identity on its pointers; the rest is for TMA */
        nargs = 1;
    if (nargs < 0 || nargs > INTERP_MAX_ARGS || (in->nargs != nargs && in->op != IR_DESC_TILE))
        return INTERP_INTERNAL;
    for (int k = 0; k < nargs; k++) {
        t[k] = fn->values[in->args[k]].type;
        na[k] = ir_numel(t[k]);
        st[k] = na[k] == n ? 1 : 0; /* a scalar operand of a block op acts as a splat */
    }
    DType dt = tr.dtype;
    switch (in->op) {
    case IR_CONST: {
        Elem v = {0};
        if (dt_is_fp(dt))
            v.f = fround(in->attr.f, dt);
        else if (dt == DT_PTR)
            v.p = (uint64_t)in->attr.i;
        else if (dt == DT_I1)
            v.i = in->attr.i != 0;
        else
            v.i = interp_wrap(in->attr.i, dt);
        for (int64_t k = 0; k < n; k++)
            out[k] = v;
        return INTERP_OK;
    }
    case IR_ARANGE:
        if (in->attr.end - in->attr.start != n)
            return INTERP_INTERNAL;
        for (int64_t k = 0; k < n; k++)
            out[k].i = interp_wrap(in->attr.start + k, dt);
        return INTERP_OK;
    case IR_SPLAT:
    case IR_BROADCAST:
        return broadcast(t[0], tr, args[0], out);
    case IR_EXPAND_DIMS:
    case IR_RESHAPE:
    case IR_MULTIPLE_OF:
    case IR_MAX_CONTIGUOUS:
    case IR_MAX_CONSTANCY:
    case IR_DESC_TILE:
    case IR_CONVERT_LAYOUT:
        if (na[0] != n)
            return INTERP_INTERNAL;
        memcpy(out, args[0], sizeof(Elem) * (size_t)n);
        return INTERP_OK;
    case IR_TMAP_CREATE: /* the map only TMA reads: desc_tile, its one user here, is the identity */
        out[0].i = 0;
        return INTERP_OK;
    case IR_TRANS:
        return transpose(t[0], tr, in->attr.perm, args[0], out);
    case IR_EXTRACT:
        return extract(t[0], tr, in->attr.axis, in->attr.start, args[0], out);
    case IR_DOT:
        return dot(in, t[0], t[1], t[2], tr, args, out, s);
    case IR_REDUCE:
        return reduce(in, t[0], tr, args[0], out);
    case IR_GATHER:
        return gather_axis(in, t[0], t[1], args[0], args[1], out);
    case IR_HISTOGRAM:
        return t[0].rank != 1 ? INTERP_INTERNAL : histogram(t[0], tr, args[0], nargs > 1 ? args[1] : NULL, out);
    default:
        break;
    }
    for (int k = 0; k < nargs; k++)
        if (na[k] != n && na[k] != 1)
            return INTERP_INTERNAL;
    switch (in->op) {
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM: case IR_AND: case IR_OR:
    case IR_XOR: case IR_SHL: case IR_SHR: case IR_MIN: case IR_MAX: case IR_UMULHI:
        return binary(in->op, dt, args[0], st[0], args[1], st[1], out, n);
    case IR_NEG: case IR_NOT: case IR_EXP: case IR_EXP2: case IR_LOG: case IR_LOG2: case IR_SQRT:
    case IR_RSQRT: case IR_SIN: case IR_COS: case IR_ABS: case IR_FLOOR: case IR_CEIL: case IR_ERF:
        return unary(in->op, dt, args[0], st[0], out, n);
    case IR_FMA:
        if (!dt_is_float(dt))
            return INTERP_INTERNAL;
        for (int64_t k = 0; k < n; k++)
            out[k].f = fround(fma(args[0][k * st[0]].f, args[1][k * st[1]].f, args[2][k * st[2]].f), dt);
        return INTERP_OK;
    case IR_CMP:
        return compare(in->attr.pred, t[0].dtype, args[0], st[0], args[1], st[1], out, n);
    case IR_SELECT:
        for (int64_t k = 0; k < n; k++)
            out[k] = args[0][k * st[0]].i ? args[1][k * st[1]] : args[2][k * st[2]];
        return INTERP_OK;
    case IR_ADDPTR:
        if (t[0].dtype != DT_PTR || !dt_is_int(t[1].dtype))
            return INTERP_INTERNAL;
        addptr(args[0], st[0], args[1], st[1], dt_size(t[0].pointee), out, n);
        return INTERP_OK;
    case IR_CAST:
        for (int64_t k = 0; k < n; k++)
            out[k] = in->attr.rtz ? convert_rtz(args[0][k * st[0]], dt)
                                  : interp_convert(args[0][k * st[0]], t[0].dtype, dt);
        return INTERP_OK;
    case IR_EXTERN: { /* a libdevice function, by the C library (compiler/libdevice.c) */
        const LibdeviceVariant *var;
        const LibdeviceFn *fn = in->attr.str ? libdevice_by_symbol(in->attr.str, &var) : NULL;
        LibdeviceHost host = fn ? libdevice_host(fn, in->attr.str) : NULL;
        if (!host || (int)strlen(var->args) != nargs)
            return INTERP_INTERNAL;
        for (int64_t k = 0; k < n; k++) {
            LdVal x[LIBDEVICE_MAX_ARGS];
            for (int j = 0; j < nargs; j++) {
                Elem e = args[j][k * st[j]];
                if (dt_is_float(t[j].dtype))
                    x[j].f = e.f;
                else
                    x[j].i = e.i;
            }
            LdVal r = host(x);
            if (dt_is_float(dt))
                out[k].f = r.f;
            else
                out[k].i = r.i;
        }
        interp_norm(out, n, dt);
        return INTERP_OK;
    }
    case IR_BITCAST:
        if (dt_bits(t[0].dtype) != dt_bits(dt))
            return INTERP_INTERNAL;
        for (int64_t k = 0; k < n; k++)
            out[k] = interp_from_bits(interp_bits_of(args[0][k * st[0]], t[0].dtype), dt);
        return INTERP_OK;
    default:
        return INTERP_INTERNAL;
    }
}
