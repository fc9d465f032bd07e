/* sema_scaled.c: tl.dot_scaled, the product of two blocks in microscaling
 * formats (OCP MX: e2m1 / e4m3 / e5m2 elements, one e8m0 exponent per 32
 * elements along K), decomposed here into ops the IR already has.
 *
 * No GPU before Blackwell multiplies MX formats natively, so Triton emulates
 * tt.dot_scaled on Hopper (DecomposeScaledBlocked.cpp) and tl does the same
 * in sema, op for op, so that the results agree bit for bit up to the dot's
 * own summation order:
 *
 *   1. compute type: fp16 if either operand's format is fp16, else bf16;
 *   2. upcast each operand to it: e2m1 nibbles (two per uint8, the first in
 *      the low nibble, packed along K, or along M / N with k_pack=False) by
 *      bit arithmetic (Fp4ToFpOp); e4m3 / e5m2 / bf16 / fp16 by a cast (given
 *      as uint8 / uint16 they are bitcast to their float type first);
 *   3. with a scale: the uint8 exponent s becomes 2^(s-127) in the compute
 *      type by shifting it into the exponent field (bf16: s << 7; fp16: the
 *      fp32 s << 23 rounded to fp16, so small scales flush to 0 and large ones
 *      overflow to inf; s = 0 gives 0, not 2^-127, as Triton's does), is
 *      broadcast 32-fold along K and multiplied in; where s = 0xFF the product
 *      is NaN unless fast_math (which leaves x * inf);
 *   4. an ordinary dot of the two upcast blocks, accumulating in fp32.
 *
 * The checks and their order are Triton's (core.py and semantic.py
 * dot_scaled); what Triton leaves to its MLIR verifier (the scales' shape and
 * dtype, the dot's minimum size) is checked here with messages of tl's own. */
#include <ctype.h>
#include <math.h>
#include <string.h>

#include "sema_int.h"

#define T(t) sema_type_str(s, (t))
#define D(dt) sema_type_str(s, ir_scalar(dt))

typedef enum { FMT_E2M1, FMT_E4M3, FMT_E5M2, FMT_BF16, FMT_FP16 } Fmt;
static const char *const fmt_name[] = {"e2m1", "e4m3", "e5m2", "bf16", "fp16"};
/* the float type each format is given as (e2m1: none, packed in uint8) and
 * the unsigned integer type of its bits */
static const DType fmt_float[] = {DT_VOID, DT_F8E4NV, DT_F8E5, DT_BF16, DT_F16};
static const DType fmt_bits[] = {DT_U8, DT_U8, DT_U8, DT_U16, DT_U16};
#define FMT_LIST "e2m1, e4m3, e5m2, bf16 or fp16"

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }

/* ---- small emitters: operands of one type, as Triton's arith ops ---- */

static ValueId konst(Sema *s, double v, Type like, DType dt, Span sp) {
    Val num = dt_is_fp(dt) ? sema_float(v) : sema_int((int64_t)v);
    return sema_const_of(s, num, ir_with_dtype(like, dt), sp);
}

static ValueId op2(Sema *s, OpCode op, ValueId a, ValueId b, Span sp) {
    ValueId args[2] = {a, b};
    return sema_emit(s, op, ty_of(s, a), args, 2, sp);
}

/* a op constant c (of a's type) */
static ValueId opc(Sema *s, OpCode op, ValueId a, double c, Span sp) {
    Type t = ty_of(s, a);
    return op2(s, op, a, konst(s, c, t, (DType)t.dtype, sp), sp);
}

static ValueId cmpc(Sema *s, CmpPred pred, ValueId a, double c, Span sp) {
    Type t = ty_of(s, a);
    ValueId args[2] = {a, konst(s, c, t, (DType)t.dtype, sp)};
    ValueId r = sema_emit(s, IR_CMP, ir_with_dtype(t, DT_I1), args, 2, sp);
    s->f->values[r].def->attr.pred = pred;
    return r;
}

static ValueId select3(Sema *s, ValueId c, ValueId a, ValueId b, Span sp) {
    ValueId args[3] = {c, a, b};
    return sema_emit(s, IR_SELECT, ty_of(s, a), args, 3, sp);
}

static ValueId bitcast_to(Sema *s, ValueId v, DType dt, Span sp) {
    return sema_emit(s, IR_BITCAST, ir_with_dtype(ty_of(s, v), dt), &v, 1, sp);
}

static ValueId reshape(Sema *s, ValueId v, int rank, const int32_t *shape, Span sp) {
    return sema_emit(s, IR_RESHAPE, ir_block(ty_of(s, v), rank, shape), &v, 1, sp);
}

/* v <..., n, ...> -> <..., n, f, ...>: each element repeated f times along a
 * new dim after dim d */
static ValueId repeat_after(Sema *s, ValueId v, int d, int f, Span sp) {
    ValueId e = sema_expand_dims(s, v, d + 1, sp);
    Type t = ty_of(s, e);
    t.shape[d + 1] = f;
    return sema_broadcast_to(s, e, t, sp);
}

/* <..., n, f, ...> -> <..., n * f, ...>: merge dim d with the next one */
static ValueId merge_after(Sema *s, ValueId v, int d, Span sp) {
    Type t = ty_of(s, v);
    int32_t sh[IR_MAX_RANK];
    for (int i = 0, j = 0; i < t.rank; i++)
        if (i == d + 1)
            sh[j - 1] *= t.shape[i];
        else
            sh[j++] = t.shape[i];
    return reshape(s, v, t.rank - 1, sh, sp);
}

/* ---- arguments ---- */

/* Triton's _str_to_fp_type (any case of a ScaleDotElemTypeTY name) and then
 * its allowed_formats (lower case, and no e2m3 / e3m2 yet). */
static Fmt get_format(Sema *s, Val v, Span sp, const char *which) {
    const char *f = sema_need_str(s, v, sp, which);
    static const char *const enum_names[] = {"E4M3", "E5M2", "E2M3", "E3M2", "E2M1", "BF16", "FP16"};
    bool known = false;
    for (size_t i = 0; i < sizeof enum_names / sizeof enum_names[0]; i++)
        known |= !strcasecmp(f, enum_names[i]);
    if (!known)
        sema_fail(s, sp, "invalid float format: '%s' (one of " FMT_LIST ")", f);
    for (int i = 0; i <= FMT_FP16; i++)
        if (!strcmp(f, fmt_name[i]))
            return (Fmt)i;
    return (Fmt)-1; /* reported by the caller after both are read, as Triton does */
}

/* Triton's _bitcast_to_fp_type: e2m1 stays packed uint8; the others become
 * their float type (from it, or bitcast from the unsigned type of its bits). */
static ValueId as_format(Sema *s, ValueId v, Fmt f, Span sp) {
    DType dt = (DType)ty_of(s, v).dtype;
    if (f == FMT_E2M1) {
        if (dt != DT_U8)
            sema_fail(s, sp, "e2m1 format must be packed as uint8, got %s", D(dt));
        return v;
    }
    if (dt == fmt_float[f])
        return v;
    if (dt != fmt_bits[f])
        sema_fail(s, sp, "unexpected dtype for %s, got %s (want %s or %s)", fmt_name[f], D(dt), D(fmt_float[f]),
                  D(fmt_bits[f]));
    return bitcast_to(s, v, fmt_float[f], sp);
}

/* ---- the emulation ---- */

/* e2m1 codes packed two to a byte along dim d -> their values in ct (bf16 or
 * fp16), dim d twice as long. Triton's Fp4ToFp: the magnitude bits shifted
 * under the exponent field and rebiased; the subnormal code 1 is 0.5. */
static ValueId unpack_e2m1(Sema *s, ValueId packed, int d, DType ct, Span sp) {
    ValueId v = repeat_after(s, packed, d, 2, sp);
    Type t = ty_of(s, v);
    /* shift 0 for the first element (low nibble), 4 for the second */
    int32_t two[1] = {2};
    Type it = ir_block(ir_scalar(DT_I32), 1, two);
    Inst *ar = sema_emit_inst(s, IR_ARANGE, NULL, 0, &it, 1, sp);
    ar->attr.start = 0;
    ar->attr.end = 2;
    ValueId sh = sema_cast(s, opc(s, IR_MUL, ar->results[0], 4, sp), ir_scalar(DT_U8), sp);
    int32_t ones[IR_MAX_RANK];
    for (int i = 0; i < t.rank; i++)
        ones[i] = i == d + 1 ? 2 : 1;
    sh = sema_broadcast_to(s, reshape(s, sh, t.rank, ones, sp), t, sp);
    ValueId nib = merge_after(s, opc(s, IR_AND, op2(s, IR_SHR, v, sh, sp), 0xF, sp), d, sp);

    int mbits = ct == DT_BF16 ? 7 : 10, bias = ct == DT_BF16 ? 127 : 15;
    int half = ct == DT_BF16 ? 0x3F00 : 0x3800; /* 0.5 */
    ValueId n16 = sema_cast(s, nib, ir_scalar(DT_U16), sp);
    ValueId em = opc(s, IR_AND, n16, 7, sp);
    ValueId sign = opc(s, IR_SHL, opc(s, IR_AND, n16, 8, sp), 12, sp);
    ValueId bits = opc(s, IR_SHL, em, mbits - 1, sp);
    bits = select3(s, cmpc(s, CMP_GE, em, 2, sp), opc(s, IR_ADD, bits, (bias - 1) << mbits, sp), bits, sp);
    bits = select3(s, cmpc(s, CMP_EQ, em, 1, sp), konst(s, half, ty_of(s, bits), DT_U16, sp), bits, sp);
    return bitcast_to(s, op2(s, IR_OR, bits, sign, sp), ct, sp);
}

/* The uint8 exponents 2^(s-127) in ct (Triton's scaleTo16). */
static ValueId scale_value(Sema *s, ValueId sc, DType ct, Span sp) {
    if (ct == DT_BF16)
        return bitcast_to(s, opc(s, IR_SHL, sema_cast(s, sc, ir_scalar(DT_U16), sp), 7, sp), DT_BF16, sp);
    ValueId f = bitcast_to(s, opc(s, IR_SHL, sema_cast(s, sc, ir_scalar(DT_U32), sp), 23, sp), DT_F32, sp);
    return sema_cast(s, f, ir_scalar(DT_F16), sp);
}

/* One operand upcast to ct and scaled (Triton's scaleArg). v is in its
 * format's storage (as_format); sc its scale <..., R, K/32> or -1. For the
 * rhs (K along dim rank-2) the scale is broadcast as the lhs's and then
 * transposed, as Triton takes it. */
static ValueId scale_arg(Sema *s, ValueId v, Fmt f, bool k_pack, ValueId sc, bool rhs, DType ct, bool fast_math,
                         Span sp) {
    int rank = ty_of(s, v).rank;
    int kdim = rhs ? rank - 2 : rank - 1, other = rhs ? rank - 1 : rank - 2;
    if (f == FMT_E2M1)
        v = unpack_e2m1(s, v, k_pack ? kdim : other, ct, sp);
    else
        v = sema_cast(s, v, ir_scalar(ct), sp);
    if (sc < 0)
        return v;
    ValueId b = merge_after(s, repeat_after(s, sc, rank - 1, 32, sp), rank - 1, sp); /* <..., R, K> */
    if (rhs) {
        int perm[IR_MAX_RANK];
        for (int i = 0; i < rank; i++)
            perm[i] = i;
        perm[rank - 2] = rank - 1;
        perm[rank - 1] = rank - 2;
        b = sema_permute(s, b, perm, rank, sp);
    }
    ValueId r = op2(s, IR_MUL, v, scale_value(s, b, ct, sp), sp);
    if (fast_math) /* a NaN scale (0xFF) stays the inf it decodes to */
        return r;
    return select3(s, cmpc(s, CMP_EQ, b, 0xFF, sp), konst(s, NAN, ty_of(s, r), ct, sp), r, sp);
}

/* A scale argument: None, or a uint8 block <[B,] R, K/32>. */
static ValueId get_scale(Sema *s, Val v, Span sp, const char *which, Type op, int R, int K) {
    if (!sema_given(v))
        return -1;
    int rank = op.rank;
    int32_t sh[3] = {op.shape[0], R, K / 32};
    Type want = ir_block(ir_scalar(DT_U8), rank, rank == 3 ? sh : sh + 1);
    if (K % 32)
        sema_fail(s, sp, "a scaled tl.dot_scaled needs K to be a multiple of 32 (one scale per 32 elements), got "
                         "K=%d", K);
    if (v.k != V_TENSOR || !ir_type_eq(v.ty, want))
        sema_fail(s, sp, "%s must be %s (a uint8 e8m0 exponent per 32 elements along K), got %s", which, T(want),
                  sema_describe(s, v));
    return v.id;
}

static bool is_block(Val v) { return v.k == V_TENSOR && v.ty.rank > 0 && v.ty.dtype != DT_PTR; }

/* tl.dot_scaled(lhs, lhs_scale, lhs_format, rhs, rhs_scale, rhs_format,
 *               acc=None, fast_math=False, lhs_k_pack=True, rhs_k_pack=True,
 *               out_dtype=tl.float32) */
Val sema_h_dot_scaled(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (sema_given(a[10]) && (a[10].k != V_DTYPE || a[10].ty.dtype != DT_F32 || a[10].ty.rank))
        sema_fail(s, sp[10], "only float32 is supported for out_dtype at the moment, got %s",
                  sema_describe(s, a[10]));
    if (!is_block(a[0]) || !is_block(a[3]))
        sema_fail(s, call, "tl.dot_scaled needs two blocks, got %s and %s", sema_describe(s, a[0]),
                  sema_describe(s, a[3]));
    Type tl_ = a[0].ty, tr = a[3].ty;
    if (!((tl_.rank == 2 && tr.rank == 2) || (tl_.rank == 3 && tr.rank == 3)))
        sema_fail(s, call, "both inputs must be either 2D or 3D; (lhs: %s vs rhs: %s)", T(tl_), T(tr));
    Fmt fl = get_format(s, a[2], sp[2], "lhs_format"), fr = get_format(s, a[5], sp[5], "rhs_format");
    if ((int)fl < 0 || (int)fr < 0) {
        int i = (int)fl < 0 ? 2 : 5;
        sema_fail(s, sp[i], "NYI: %s %s (the formats are " FMT_LIST ")", i == 2 ? "lhs_format" : "rhs_format",
                  a[i].s);
    }
    ValueId x = as_format(s, a[0].id, fl, sp[0]), y = as_format(s, a[3].id, fr, sp[3]);
    bool fast = sema_opt_bool(s, a[7], sp[7], false, "fast_math");
    bool kpl = sema_opt_bool(s, a[8], sp[8], true, "lhs_k_pack");
    bool kpr = sema_opt_bool(s, a[9], sp[9], true, "rhs_k_pack");
    if ((!kpl && fl != FMT_E2M1) || (!kpr && fr != FMT_E2M1))
        sema_fail(s, sp[!kpl && fl != FMT_E2M1 ? 8 : 9],
                  "only mxfp4 inputs can be packed along a dimension different than K");
    int nd = tl_.rank;
    int M = tl_.shape[nd - 2], KL = tl_.shape[nd - 1], KR = tr.shape[nd - 2], N = tr.shape[nd - 1];
    int pa = fl == FMT_E2M1 ? 2 : 1, pb = fr == FMT_E2M1 ? 2 : 1;
    int K = kpl ? pa * KL : KL;
    if ((kpr ? pb * KR : KR) != K)
        sema_fail(s, call, "reduction dimension should pack the same number of elements; (lhs: %s vs rhs: %s)",
                  T(tl_), T(tr));
    if (nd == 3 && tl_.shape[0] != tr.shape[0])
        sema_fail(s, call, "incompatible shapes for tl.dot_scaled: %s and %s (the batch dims are %d and %d)", T(tl_),
                  T(tr), tl_.shape[0], tr.shape[0]);
    if (!kpl)
        M *= pa;
    if (!kpr)
        N *= pb;
    int32_t sh[3] = {tl_.shape[0], M, N};
    Type rt = ir_block(ir_scalar(DT_F32), nd, nd == 3 ? sh : sh + 1);
    ValueId acc;
    if (sema_given(a[6])) {
        acc = sema_to_tensor(s, a[6], sp[6]);
        if (!ir_type_eq(ty_of(s, acc), rt))
            sema_fail(s, sp[6], "the accumulator of tl.dot_scaled has type %s, but the product has type %s",
                      T(ty_of(s, acc)), T(rt));
    } else {
        acc = sema_const_of(s, sema_int(0), rt, call);
    }
    ValueId sl = get_scale(s, a[1], sp[1], "lhs_scale", tl_, M, K);
    ValueId sr = get_scale(s, a[4], sp[4], "rhs_scale", tr, N, K);
    if (M < 16 || N < 16 || K < 16)
        sema_fail(s, call, "tl.dot_scaled needs M >= 16, N >= 16 and K >= 16, got M=%d, N=%d, K=%d", M, N, K);

    DType ct = fl == FMT_FP16 || fr == FMT_FP16 ? DT_F16 : DT_BF16;
    ValueId args[3] = {scale_arg(s, x, fl, kpl, sl, false, ct, fast, call),
                       scale_arg(s, y, fr, kpr, sr, true, ct, fast, call), acc};
    ValueId r = sema_emit(s, IR_DOT, rt, args, 3, call);
    s->f->values[r].def->attr.precision = PREC_IEEE;
    return sema_tensor(s, r);
}
