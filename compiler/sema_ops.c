/* sema_ops.c: tensor semantics and the builtins (tl.*, Python, triton.*).
 *
 * Each function follows the function of the same name in Triton's
 * language/semantic.py (3.x): binary operators first compute the element type
 * (computation_type_impl: Python numbers do not take part in promotion unless
 * they are of a higher kind, fp16/bf16 are upcast for / and %, integers
 * promote by width then signedness), convert both operands to it, then
 * broadcast them (broadcast_impl_value: right-aligned, size-1 dims stretch,
 * scalars splat). Every conversion and broadcast is an explicit IR op, so the
 * elementwise ops of the IR always see identical types.
 *
 * Composite builtins expand to the IR arithmetic Triton's standard library
 * uses (cdiv, sigmoid, swizzle2d, clamp, zeros, ...), through the same
 * operators, so compile-time arguments fold exactly as they do there.
 *
 * The builtin table at the end binds arguments by name like Python does, so
 * keyword arguments, defaults and argument-count errors are uniform. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sema_int.h"

#define T(t) sema_type_str(s, (t))
#define D(dt) sema_type_str(s, ir_scalar(dt))

/* ---- emission ---- */

bool sema_is_const_ptr(const Sema *s, ValueId v) { return v > 0 && v < s->ncptr && s->cptr[v]; }

void sema_mark_const_ptr(Sema *s, ValueId v) {
    if (v >= s->ncptr) { /* grown by doubling: one flag per SSA value of the kernel */
        int n = s->ncptr ? s->ncptr : 64;
        while (n <= v)
            n *= 2;
        uint8_t *c = arena_alloc(s->a, (size_t)n);
        memset(c, 0, (size_t)n);
        if (s->ncptr)
            memcpy(c, s->cptr, (size_t)s->ncptr);
        s->cptr = c, s->ncptr = n;
    }
    s->cptr[v] = 1;
}

const char *sema_const_word(const Sema *s, Val v) {
    return v.k == V_TENSOR && sema_is_const_ptr(s, v.id) ? " const" : "";
}

/* The ops whose pointer result points where a pointer operand does: a const
 * pointer's stays const (Triton keeps the pointer type, const included).
 * Control flow (if, for, while) carries constness by its own rules (sema.c). */
static bool keeps_const(OpCode op) {
    switch (op) {
    case IR_ADDPTR: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_RESHAPE: case IR_TRANS:
    case IR_SELECT: case IR_MULTIPLE_OF: case IR_MAX_CONTIGUOUS: case IR_MAX_CONSTANCY: case IR_CONVERT_LAYOUT:
        return true;
    default: return false;
    }
}

Inst *sema_emit_inst(Sema *s, OpCode op, const ValueId *args, int nargs, const Type *rt, int nres, Span sp) {
    if (!s->blk)
        sema_fail(s, sp, "this needs a runtime value, which a module-level constant cannot have");
    /* The one check of the block size limit for every value sema makes (an
     * implicit broadcast of <2048x1> and <1x2048> included), at the source.
     * The count is a double: four dims of up to 2^20 overflow an int64. */
    for (int i = 0; i < nres; i++) {
        double numel = 1;
        for (int d = 0; d < rt[i].rank; d++)
            numel *= rt[i].shape[d];
        if (numel > IR_MAX_NUMEL)
            sema_fail(s, sp, "the result %s has %.0f elements, more than the maximum block size (%d)", T(rt[i]),
                      numel, IR_MAX_NUMEL);
    }
    Inst *in = ir_inst_new(s->f, s->blk, op, args, nargs, rt, nres, sp);
    if (nres == 1 && rt[0].dtype == DT_PTR && keeps_const(op))
        for (int i = 0; i < nargs; i++)
            if (sema_is_const_ptr(s, args[i]))
                sema_mark_const_ptr(s, in->results[0]);
    return in;
}

ValueId sema_emit(Sema *s, OpCode op, Type t, const ValueId *args, int nargs, Span sp) {
    return sema_emit_inst(s, op, args, nargs, &t, 1, sp)->results[0];
}

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }
static DType dt_of(Sema *s, ValueId v) { return (DType)s->f->values[v].type.dtype; }
/* A type with the shape of `like` and the element type of `elem`. */
static Type shaped(Type like, Type elem) { return ir_block(elem, like.rank, like.shape); }

static ValueId emit1(Sema *s, OpCode op, Type t, ValueId a, Span sp) { return sema_emit(s, op, t, &a, 1, sp); }
static ValueId emit2(Sema *s, OpCode op, Type t, ValueId a, ValueId b, Span sp) {
    ValueId args[2] = {a, b};
    return sema_emit(s, op, t, args, 2, sp);
}

/* ---- numbers as tensors ---- */

bool sema_number_type(Sema *s, Val v, Type *t, Span sp) {
    (void)s, (void)sp;
    if (v.as_tensor && sema_is_number(v)) {
        *t = v.ty;
        return true;
    }
    switch (v.k) {
    case V_BOOL: *t = ir_scalar(DT_I1); return true;
    case V_INT:
        /* Triton's to_tensor_type: int32, then uint32, then int64 */
        *t = ir_scalar(v.i >= INT32_MIN && v.i <= INT32_MAX ? DT_I32 : v.i >= 0 && v.i <= UINT32_MAX ? DT_U32 : DT_I64);
        return true;
    case V_FLOAT: {
        double a = fabs(v.f);
        bool f32 = isinf(a) || a == 0 || isnan(a) || (a >= 0x1p-126 && a <= 0x1.fffffep127);
        *t = ir_scalar(f32 ? DT_F32 : DT_F64);
        return true;
    }
    default: return false;
    }
}

static int64_t int_min(DType dt) {
    if (!dt_is_signed(dt))
        return 0;
    return dt_bits(dt) == 64 ? INT64_MIN : -((int64_t)1 << (dt_bits(dt) - 1));
}
static int64_t int_max(DType dt) {
    int b = dt_bits(dt);
    if (dt_is_signed(dt))
        return (int64_t)(((uint64_t)1 << (b - 1)) - 1);
    return b >= 64 ? INT64_MAX : (int64_t)(((uint64_t)1 << b) - 1);
}

/* The value v truncated to the width and signedness of dt (as LLVM's constants). */
static int64_t wrap_int(int64_t v, DType dt) {
    switch (dt) {
    case DT_I1: return v != 0;
    case DT_I8: return (int8_t)v;
    case DT_U8: return (uint8_t)v;
    case DT_I16: return (int16_t)v;
    case DT_U16: return (uint16_t)v;
    case DT_I32: return (int32_t)v;
    case DT_U32: return (uint32_t)v;
    default: return v;
    }
}

ValueId sema_const_of(Sema *s, Val num, Type t, Span sp) {
    DType dt = (DType)t.dtype;
    Inst *in;
    if (!sema_is_number(num))
        sema_fail(s, sp, "cannot make a constant of type %s from %s", T(t), sema_describe(s, num));
    if (dt_is_fp(dt)) {
        in = sema_emit_inst(s, IR_CONST, NULL, 0, &t, 1, sp);
        in->attr.f = num.k == V_FLOAT ? num.f : (double)num.i;
    } else if (dt_is_int(dt)) {
        if (num.k == V_FLOAT)
            sema_fail(s, sp, "cannot convert %s to %s", sema_describe(s, num), D(dt));
        in = sema_emit_inst(s, IR_CONST, NULL, 0, &t, 1, sp);
        in->attr.i = wrap_int(num.i, dt);
    } else {
        sema_fail(s, sp, "cannot make a constant of type %s", T(t));
    }
    return in->results[0];
}

ValueId sema_to_tensor(Sema *s, Val v, Span sp) {
    if (v.k == V_TENSOR)
        return v.id;
    Type t;
    if (!sema_number_type(s, v, &t, sp))
        sema_fail(s, sp, "expected a tensor or a number, got %s", sema_describe(s, v));
    return sema_const_of(s, v, t, sp);
}

/* ---- conversions ---- */

ValueId sema_cast(Sema *s, ValueId v, Type elem, Span sp) {
    Type src = ty_of(s, v);
    DType a = (DType)src.dtype, b = (DType)elem.dtype;
    if (a == b && (a != DT_PTR || src.pointee == elem.pointee))
        return v;
    Type dst = shaped(src, ir_elem(elem));
    if (a == DT_PTR && b == DT_PTR)
        return emit1(s, IR_BITCAST, dst, v, sp);
    if (a == DT_PTR) {
        if (b != DT_I64 && b != DT_I1)
            sema_fail(s, sp, "cannot cast a pointer to %s (only to int64 or int1)", D(b));
        ValueId i = emit1(s, IR_CAST, shaped(src, ir_scalar(DT_I64)), v, sp);
        return b == DT_I64 ? i : emit1(s, IR_CAST, dst, i, sp);
    }
    if (dt_is_fp8(b) && a == DT_F64) /* two roundings through fp32 would not be Triton's one */
        sema_fail(s, sp, "cannot cast f64 to %s directly; cast to f32 first", D(b));
    if (b == DT_PTR) {
        if (!dt_is_int(a))
            sema_fail(s, sp, "cannot cast %s to a pointer", D(a));
        if (a != DT_I64)
            v = emit1(s, IR_CAST, shaped(src, ir_scalar(DT_I64)), v, sp);
        return emit1(s, IR_CAST, dst, v, sp);
    }
    return emit1(s, IR_CAST, dst, v, sp);
}

static ValueId bitcast(Sema *s, ValueId v, Type elem, Span sp) {
    Type src = ty_of(s, v);
    if (src.dtype == elem.dtype && src.pointee == elem.pointee)
        return v;
    if (src.dtype == DT_PTR || elem.dtype == DT_PTR)
        return sema_cast(s, v, elem, sp);
    int ba = dt_bits((DType)src.dtype), bb = dt_bits((DType)elem.dtype);
    if (ba != bb)
        sema_fail(s, sp, "cannot bitcast %s to %s: data-type of size %d to data-type of size %d",
                  D(src.dtype), D(elem.dtype), ba, bb);
    return emit1(s, IR_BITCAST, shaped(src, elem), v, sp);
}

ValueId sema_to_i1(Sema *s, ValueId v, Span sp) {
    if (dt_of(s, v) == DT_I1)
        return v;
    return sema_cast(s, v, ir_scalar(DT_I1), sp);
}

/* ---- broadcasting ---- */

/* The shape two operands broadcast to (Triton's broadcast_impl_value). */
static bool common_shape(Type a, Type b, Type *out) {
    if (!a.rank) {
        *out = b;
        return true;
    }
    if (!b.rank) {
        *out = a;
        return true;
    }
    Type r = a.rank >= b.rank ? a : b;
    int rank = r.rank;
    for (int i = 0; i < rank; i++) {
        int ia = i - (rank - a.rank), ib = i - (rank - b.rank);
        int da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
        if (da == 1)
            r.shape[i] = db;
        else if (db == 1 || db == da)
            r.shape[i] = da;
        else
            return false;
    }
    *out = r;
    return true;
}

static Type common_or_fail(Sema *s, Type a, Type b, Span sp) {
    Type c;
    if (!common_shape(a, b, &c))
        sema_fail(s, sp, "incompatible shapes %s and %s", T(a), T(b));
    return c;
}

/* Bring v to the shape of `to` (which it must broadcast to): splat a scalar,
 * add leading size-1 dims, stretch size-1 dims. */
static ValueId broadcast_to(Sema *s, ValueId v, Type to, Span sp) {
    Type t = ty_of(s, v);
    if (!to.rank)
        return v;
    if (!t.rank)
        return emit1(s, IR_SPLAT, shaped(to, t), v, sp);
    while (t.rank < to.rank) {
        int32_t sh[IR_MAX_RANK] = {1};
        for (int i = 0; i < t.rank; i++)
            sh[i + 1] = t.shape[i];
        Type e = ir_block(t, t.rank + 1, sh);
        ValueId x = emit1(s, IR_EXPAND_DIMS, e, v, sp);
        s->f->values[x].def->attr.axis = 0;
        v = x;
        t = e;
    }
    for (int i = 0; i < t.rank; i++)
        if (t.shape[i] != to.shape[i])
            return emit1(s, IR_BROADCAST, shaped(to, t), v, sp);
    return v;
}

ValueId sema_broadcast_to(Sema *s, ValueId v, Type to, Span sp) { return broadcast_to(s, v, to, sp); }

static void broadcast_pair(Sema *s, ValueId *a, ValueId *b, Span sp) {
    Type c = common_or_fail(s, ty_of(s, *a), ty_of(s, *b), sp);
    *a = broadcast_to(s, *a, c, sp);
    *b = broadcast_to(s, *b, c, sp);
}

void sema_broadcast_pair(Sema *s, ValueId *a, ValueId *b, Span sp) { broadcast_pair(s, a, b, sp); }

/* Triton's broadcast_impl_shape: same rank (or a scalar), size-1 dims stretch. */
ValueId sema_broadcast_exact(Sema *s, ValueId v, Type to, Span sp, const char *what) {
    Type t = ty_of(s, v);
    if (!to.rank && t.rank)
        sema_fail(s, sp, "%s cannot be a block (%s) when the pointer is a scalar", what, T(t));
    if (!t.rank)
        return broadcast_to(s, v, to, sp);
    bool ok = t.rank == to.rank;
    for (int i = 0; ok && i < t.rank; i++)
        ok = t.shape[i] == to.shape[i] || t.shape[i] == 1;
    if (!ok)
        sema_fail(s, sp, "cannot broadcast %s of type %s to the shape of %s", what, T(t), T(to));
    return broadcast_to(s, v, to, sp);
}

/* ---- type promotion ---- */

static int kind_of(DType d) { return d == DT_I1 ? 0 : dt_is_int(d) ? 1 : 2; }

DType sema_int_promote(DType a, DType b) {
    int ra = dt_bits(a), rb = dt_bits(b);
    bool sa = dt_is_signed(a), sb = dt_is_signed(b);
    if (sa == sb)
        return ra > rb ? a : b;
    if (!sa)
        return ra >= rb ? a : b;
    return rb >= ra ? b : a;
}

/* semantic.computation_type_impl */
static DType computation_type(Sema *s, DType a, bool a_sc, DType b, bool b_sc, bool div_or_mod, Op op, Span sp) {
    if (a_sc != b_sc) {
        DType sc = a_sc ? a : b, te = a_sc ? b : a;
        if (kind_of(sc) <= kind_of(te)) {
            if (div_or_mod && (te == DT_F16 || te == DT_BF16))
                return DT_F32;
            return te;
        }
    }
    if (a == DT_F64 || b == DT_F64)
        return DT_F64;
    if (a == DT_F32 || b == DT_F32)
        return DT_F32;
    if (a == DT_F16 || b == DT_F16)
        return div_or_mod ? DT_F32 : DT_F16;
    if (a == DT_BF16 && b == DT_BF16)
        return div_or_mod ? DT_F32 : DT_BF16;
    if (a == DT_BF16 || b == DT_BF16)
        return DT_F32;
    if (dt_is_fp8(a) && dt_is_fp8(b))
        return a == b ? a : DT_F16;
    if (dt_is_fp8(a) || dt_is_fp8(b))
        sema_fail(s, sp, "unexpected types %s and %s for '%s'", D(a), D(b), ast_op_str(op));
    if (div_or_mod && dt_is_signed(a) != dt_is_signed(b))
        sema_fail(s, sp, /* Triton's words, which its tests match */
                  "Cannot use '%s' with %s and %s because they have different signedness; this is unlikely to "
                  "result in a useful answer. Cast them to the same signedness.",
                  ast_op_str(op), D(a), D(b));
    return sema_int_promote(a, b);
}

enum { TC_LPTR = 1, TC_RPTR = 2, TC_ARITH = 4, TC_DIVMOD = 8 };

/* semantic.binary_op_type_checking_impl: convert a and b (tensors or Python
 * numbers) to one element type and one shape. */
static void type_check(Sema *s, Val a, Val b, ValueId *ra, ValueId *rb, int flags, Op op, Span sp) {
    a = sema_materialize(s, a, sp); /* `v = 1`: an i32 tensor, not a Python scalar */
    b = sema_materialize(s, b, sp);
    bool a_sc = sema_is_number(a), b_sc = sema_is_number(b);
    Type ta, tb;
    if (a_sc)
        sema_number_type(s, a, &ta, sp);
    else if (a.k == V_TENSOR)
        ta = a.ty;
    else
        sema_fail(s, sp, "unsupported operand types for '%s': '%s' and '%s'", ast_op_str(op),
                  sema_kind_name(a), sema_kind_name(b));
    if (b_sc)
        sema_number_type(s, b, &tb, sp);
    else if (b.k == V_TENSOR)
        tb = b.ty;
    else
        sema_fail(s, sp, "unsupported operand types for '%s': '%s' and '%s'", ast_op_str(op),
                  sema_kind_name(a), sema_kind_name(b));
    DType da = (DType)ta.dtype, db = (DType)tb.dtype;
    /* check_ptr_type_impl, both ways */
    for (int side = 0; side < 2; side++) {
        Type p = side ? tb : ta, o = side ? ta : tb;
        bool allow = flags & (side ? TC_RPTR : TC_LPTR);
        if (p.dtype != DT_PTR)
            continue;
        if (!allow || (o.dtype == DT_PTR && o.pointee != p.pointee) || dt_is_fp((DType)o.dtype))
            sema_fail(s, sp, "invalid operands of type %s and %s for '%s'", T(ir_elem(ta)), T(ir_elem(tb)),
                      ast_op_str(op));
    }
    common_or_fail(s, ta, tb, sp);
    if ((flags & TC_ARITH) && da != DT_PTR && db != DT_PTR) {
        DType r = computation_type(s, da, a_sc, db, b_sc, flags & TC_DIVMOD, op, sp);
        for (int side = 0; side < 2; side++) {
            Val v = side ? b : a;
            bool sc = side ? b_sc : a_sc;
            if (!sc || !dt_is_int(r) || v.k == V_FLOAT)
                continue;
            if (v.i < 0 && !dt_is_signed(r))
                sema_fail(s, sp, "cannot perform a binary operation between an unsigned tensor and a "
                                 "negative scalar; cast one of them explicitly");
            if (v.i < int_min(r) || v.i > int_max(r))
                sema_fail(s, sp, "scalar %lld is out of range for type %s", (long long)v.i, D(r));
        }
        *ra = a_sc ? sema_const_of(s, a, ir_scalar(r), sp) : sema_cast(s, a.id, ir_scalar(r), sp);
        *rb = b_sc ? sema_const_of(s, b, ir_scalar(r), sp) : sema_cast(s, b.id, ir_scalar(r), sp);
    } else {
        *ra = sema_to_tensor(s, a, sp);
        *rb = sema_to_tensor(s, b, sp);
    }
    broadcast_pair(s, ra, rb, sp);
}

void sema_promote_pair(Sema *s, Val a, Val b, ValueId *x, ValueId *y, Span sp) {
    type_check(s, a, b, x, y, TC_ARITH, OP_NONE, sp);
}

/* ---- operators ---- */

static Val tv(Sema *s, ValueId v) { return sema_tensor(s, v); }

static ValueId add_ptr(Sema *s, ValueId ptr, ValueId off, Span sp) {
    DType od = dt_of(s, off);
    if (!dt_is_int(od))
        sema_fail(s, sp, "a pointer offset must be an integer, got %s", T(ty_of(s, off)));
    /* addptr treats offsets as signed: zero-extend narrow unsigned ones */
    if (!dt_is_signed(od) && dt_bits(od) < 64)
        off = sema_cast(s, off, ir_scalar(DT_I64), sp);
    return emit2(s, IR_ADDPTR, ty_of(s, ptr), ptr, off, sp);
}

static int cmp_pred(Op op) {
    switch (op) {
    case OP_LT: return CMP_LT;
    case OP_LE: return CMP_LE;
    case OP_GT: return CMP_GT;
    case OP_GE: return CMP_GE;
    case OP_EQ: return CMP_EQ;
    default: return CMP_NE;
    }
}

/* The integer type of dt's width with the given signedness. */
static DType signed_twin(DType dt, bool want_signed) {
    static const DType sgn[] = {DT_I8, DT_I16, DT_I32, DT_I64}, uns[] = {DT_U8, DT_U16, DT_U32, DT_U64};
    int i = dt_bits(dt) == 8 ? 0 : dt_bits(dt) == 16 ? 1 : dt_bits(dt) == 32 ? 2 : 3;
    return want_signed ? sgn[i] : uns[i];
}

/* The IR does no arithmetic on i1 (Triton would wrap it modulo 2). */
static void no_bool_arith(Sema *s, ValueId x, Op op, Span sp) {
    if (dt_of(s, x) == DT_I1)
        sema_fail(s, sp, "'%s' on boolean (i1) values is not supported; convert them with .to(tl.int32) first",
                  ast_op_str(op));
}

static Val tensor_binop(Sema *s, Op op, Val a, Val b, Span sp);

static bool is_fp8_tensor(Val v) { return v.k == V_TENSOR && dt_is_fp8((DType)v.ty.dtype); }

/* fp8 is a storage type: with Triton's result type (fp8 op fp8 of one kind
 * stays fp8), the op runs in fp32 on the exactly widened operands and an
 * arithmetic result is rounded back to fp8 once. */
static Val fp8_binop(Sema *s, Op op, Val a, Val b, Span sp) {
    bool divmod = op == OP_DIV || op == OP_FLOORDIV || op == OP_MOD;
    if (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR || op == OP_LSHIFT || op == OP_RSHIFT)
        sema_fail(s, sp, "invalid operands of type %s and %s for '%s'", sema_describe(s, a), sema_describe(s, b),
                  ast_op_str(op));
    ValueId x, y;
    type_check(s, a, b, &x, &y, TC_ARITH | (divmod ? TC_DIVMOD : 0), op, sp);
    DType r = dt_of(s, x);
    if (!dt_is_fp8(r))
        return tensor_binop(s, op, tv(s, x), tv(s, y), sp);
    x = sema_cast(s, x, ir_scalar(DT_F32), sp);
    y = sema_cast(s, y, ir_scalar(DT_F32), sp);
    Val v = tensor_binop(s, op, tv(s, x), tv(s, y), sp);
    if (v.k == V_TENSOR && v.ty.dtype == DT_F32)
        v = tv(s, sema_cast(s, v.id, ir_scalar(r), sp));
    return v;
}

static Val tensor_binop(Sema *s, Op op, Val a, Val b, Span sp) {
    ValueId x, y;
    if ((is_fp8_tensor(a) || is_fp8_tensor(b)) && op != OP_IS && op != OP_ISNOT)
        return fp8_binop(s, op, a, b, sp);
    switch (op) {
    case OP_ADD: {
        type_check(s, a, b, &x, &y, TC_LPTR | TC_RPTR | TC_ARITH, op, sp);
        bool px = dt_of(s, x) == DT_PTR, py = dt_of(s, y) == DT_PTR;
        if (px && py)
            sema_fail(s, sp, "cannot add pointers together");
        if (py) {
            ValueId t = x;
            x = y;
            y = t;
            px = true;
        }
        if (px)
            return tv(s, add_ptr(s, x, y, sp));
        no_bool_arith(s, x, op, sp);
        return tv(s, emit2(s, IR_ADD, ty_of(s, x), x, y, sp));
    }
    case OP_SUB:
        type_check(s, a, b, &x, &y, TC_LPTR | TC_ARITH, op, sp);
        if (dt_of(s, x) == DT_PTR) {
            if (!dt_is_int(dt_of(s, y)))
                sema_fail(s, sp, "a pointer offset must be an integer, got %s", T(ty_of(s, y)));
            if (!dt_is_signed(dt_of(s, y)) && dt_bits(dt_of(s, y)) < 64) /* negate in a signed type */
                y = sema_cast(s, y, ir_scalar(DT_I64), sp);
            ValueId n = emit1(s, IR_NEG, ty_of(s, y), y, sp);
            return tv(s, add_ptr(s, x, n, sp));
        }
        no_bool_arith(s, x, op, sp);
        return tv(s, emit2(s, IR_SUB, ty_of(s, x), x, y, sp));
    case OP_MUL:
        type_check(s, a, b, &x, &y, TC_ARITH, op, sp);
        no_bool_arith(s, x, op, sp);
        return tv(s, emit2(s, IR_MUL, ty_of(s, x), x, y, sp));
    case OP_DIV:
        type_check(s, a, b, &x, &y, TC_ARITH | TC_DIVMOD, op, sp);
        if (dt_is_int(dt_of(s, x))) { /* int / int is computed in fp32 */
            x = sema_cast(s, x, ir_scalar(DT_F32), sp);
            y = sema_cast(s, y, ir_scalar(DT_F32), sp);
        }
        return tv(s, emit2(s, IR_DIV, ty_of(s, x), x, y, sp));
    case OP_FLOORDIV:
        type_check(s, a, b, &x, &y, TC_ARITH | TC_DIVMOD, op, sp);
        if (!dt_is_int(dt_of(s, x)))
            sema_fail(s, sp, "'//' needs integer operands, got %s (use '/' for floats)", D(dt_of(s, x)));
        no_bool_arith(s, x, op, sp);
        return tv(s, emit2(s, IR_DIV, ty_of(s, x), x, y, sp));
    case OP_MOD:
        type_check(s, a, b, &x, &y, TC_ARITH | TC_DIVMOD, op, sp);
        no_bool_arith(s, x, op, sp);
        return tv(s, emit2(s, IR_REM, ty_of(s, x), x, y, sp));
    case OP_BITAND:
    case OP_BITOR:
    case OP_BITXOR:
    case OP_LSHIFT:
    case OP_RSHIFT: {
        /* Triton picks ashr or lshr by the tensor operand's own signedness (x.__rshift__ or, for
           `number >> x`, x.__rrshift__), before promotion: int16 >> uint16 shifts arithmetically. */
        a = sema_materialize(s, a, sp);
        b = sema_materialize(s, b, sp);
        Val own = (a.k == V_TENSOR || !sema_is_number(b)) ? a : b;
        bool arith_shr = op == OP_RSHIFT && own.k == V_TENSOR && dt_is_signed((DType)own.ty.dtype);
        type_check(s, a, b, &x, &y, TC_ARITH, op, sp);
        if (!dt_is_int(dt_of(s, x)) || !dt_is_int(dt_of(s, y)))
            sema_fail(s, sp, "invalid operands of type %s and %s for '%s'", D(dt_of(s, x)), D(dt_of(s, y)),
                      ast_op_str(op));
        if ((op == OP_LSHIFT || op == OP_RSHIFT) && dt_of(s, x) == DT_I1)
            no_bool_arith(s, x, op, sp);
        OpCode oc = op == OP_BITAND ? IR_AND : op == OP_BITOR ? IR_OR : op == OP_BITXOR ? IR_XOR
                  : op == OP_LSHIFT ? IR_SHL : IR_SHR;
        if (op == OP_RSHIFT && arith_shr != dt_is_signed(dt_of(s, x))) { /* shr's kind follows its type */
            Type t = ty_of(s, x), other = ir_with_dtype(t, signed_twin(dt_of(s, x), arith_shr));
            ValueId xs = sema_cast(s, x, ir_elem(other), sp), ys = sema_cast(s, y, ir_elem(other), sp);
            return tv(s, sema_cast(s, emit2(s, IR_SHR, other, xs, ys, sp), ir_elem(t), sp));
        }
        return tv(s, emit2(s, oc, ty_of(s, x), x, y, sp));
    }
    case OP_LT:
    case OP_LE:
    case OP_GT:
    case OP_GE:
    case OP_EQ:
    case OP_NE: {
        type_check(s, a, b, &x, &y, TC_ARITH, op, sp);
        if (dt_of(s, x) == DT_I1 && op != OP_EQ && op != OP_NE) { /* order booleans as 0 < 1 */
            x = sema_cast(s, x, ir_scalar(DT_U8), sp);
            y = sema_cast(s, y, ir_scalar(DT_U8), sp);
        }
        ValueId r = emit2(s, IR_CMP, ir_with_dtype(ty_of(s, x), DT_I1), x, y, sp);
        s->f->values[r].def->attr.pred = cmp_pred(op);
        return tv(s, r);
    }
    case OP_IS:
    case OP_ISNOT: {
        /* identity, as Python's `is`: decided at compile time */
        bool same = a.k == b.k && sema_const_eq(a, b);
        return sema_bool(op == OP_IS ? same : !same);
    }
    default:
        sema_fail(s, sp, "operator '%s' is not supported on tensors", ast_op_str(op));
    }
}

/* The tensor op on a number Triton holds as a tensor, folded back to a
 * number where every operand is known (sema_fold_scalar). */
static Val fold_back(Sema *s, Val r) {
    Val f;
    if (r.k == V_TENSOR && sema_fold_scalar(s, r.id, &f))
        return f;
    return r;
}

Val sema_binop(Sema *s, Op op, Val a, Val b, Span sp) {
    if (a.k != V_TENSOR && b.k != V_TENSOR) {
        bool typed = (a.as_tensor && sema_is_number(b)) || (b.as_tensor && sema_is_number(a));
        if (!typed || !s->blk || op == OP_IS || op == OP_ISNOT || op == OP_IN || op == OP_NOTIN)
            return sema_const_binop(s, op, a, b, sp);
        return fold_back(s, tensor_binop(s, op, sema_materialize(s, a, sp), sema_materialize(s, b, sp), sp));
    }
    return tensor_binop(s, op, a, b, sp);
}

Val sema_unop(Sema *s, Op op, Val a, Span sp) {
    if (a.as_tensor && s->blk && sema_is_number(a))
        return fold_back(s, sema_unop(s, op, sema_materialize(s, a, sp), sp));
    if (a.k != V_TENSOR)
        return sema_const_unop(s, op, a, sp);
    DType dt = (DType)a.ty.dtype;
    switch (op) {
    case OP_POS: return a;
    case OP_NEG:
        if (dt == DT_PTR || dt == DT_I1)
            sema_fail(s, sp, "wrong type argument to unary minus (%s)", T(a.ty));
        if (dt_is_fp8(dt)) { /* exact in fp32, and exact back */
            ValueId f = sema_cast(s, a.id, ir_scalar(DT_F32), sp);
            return tv(s, sema_cast(s, emit1(s, IR_NEG, ty_of(s, f), f, sp), ir_scalar(dt), sp));
        }
        return tv(s, emit1(s, IR_NEG, a.ty, a.id, sp));
    case OP_INVERT:
        if (dt == DT_PTR || dt_is_fp(dt))
            sema_fail(s, sp, "wrong type argument to unary invert (%s)", T(a.ty));
        return tv(s, emit1(s, IR_NOT, a.ty, a.id, sp));
    case OP_NOT: {
        if (dt == DT_PTR)
            sema_fail(s, sp, "wrong type argument to 'not' (%s)", T(a.ty));
        ValueId b = sema_to_i1(s, a.id, sp);
        return tv(s, emit1(s, IR_NOT, ty_of(s, b), b, sp));
    }
    default: sema_fail(s, sp, "unsupported unary operator '%s'", ast_op_str(op));
    }
}

Val sema_logical(Sema *s, Op op, Val a, Val b, Span sp) {
    ValueId x = sema_to_i1(s, sema_to_tensor(s, a, sp), sp);
    ValueId y = sema_to_i1(s, sema_to_tensor(s, b, sp), sp);
    broadcast_pair(s, &x, &y, sp);
    return tv(s, emit2(s, op == OP_AND ? IR_AND : IR_OR, ty_of(s, x), x, y, sp));
}

/* ---- shapes ---- */

static ValueId expand_dims(Sema *s, ValueId v, int axis, Span sp) {
    Type t = ty_of(s, v);
    if (t.rank >= IR_MAX_RANK)
        sema_fail(s, sp, "cannot add a dimension to %s: blocks have at most %d dimensions", T(t), IR_MAX_RANK);
    int32_t sh[IR_MAX_RANK];
    for (int i = 0, j = 0; i <= t.rank; i++)
        sh[i] = i == axis ? 1 : t.shape[j++];
    Type r = ir_block(t, t.rank + 1, sh);
    if (!t.rank)
        return emit1(s, IR_SPLAT, r, v, sp);
    ValueId x = emit1(s, IR_EXPAND_DIMS, r, v, sp);
    s->f->values[x].def->attr.axis = axis;
    return x;
}

ValueId sema_expand_dims(Sema *s, ValueId v, int axis, Span sp) { return expand_dims(s, v, axis, sp); }

Val sema_tensor_index(Sema *s, Val x, const Val *idx, const Span *isp, int n, Span sp) {
    ValueId v = x.id;
    for (int i = 0; i < n; i++) {
        if (idx[i].k == V_NONE) {
            if (i > ty_of(s, v).rank)
                sema_fail(s, isp[i], "index %d is out of range for %s", i, T(ty_of(s, v)));
            v = expand_dims(s, v, i, isp[i]);
        } else if (idx[i].k != V_SLICE) {
            sema_fail(s, isp[i], "unsupported tensor index %s: only None and ':' are allowed",
                      sema_describe(s, idx[i]));
        }
    }
    (void)sp;
    return tv(s, v);
}

/* ---- argument helpers ---- */

int64_t sema_need_int(Sema *s, Val v, Span sp, const char *what) {
    if (v.k == V_INT || v.k == V_BOOL)
        return v.i;
    if (v.k == V_TENSOR)
        sema_fail(s, sp, "%s must be a compile-time constant (tl.constexpr), got a runtime value of type %s", what,
                  T(v.ty));
    sema_fail(s, sp, "%s must be an int, got %s", what, sema_describe(s, v));
}

static Type need_dtype(Sema *s, Val v, Span sp, const char *what) {
    if (v.k != V_DTYPE)
        sema_fail(s, sp, "%s must be a dtype such as tl.float32, got %s", what, sema_describe(s, v));
    return ir_elem(v.ty); /* a block_type (x.type) stands for its scalar, as Triton's cast takes .scalar */
}

bool sema_opt_bool(Sema *s, Val v, Span sp, bool dflt, const char *what) {
    if (!sema_given(v))
        return dflt;
    if (v.k == V_TENSOR)
        sema_fail(s, sp, "%s must be a compile-time constant, got a runtime value", what);
    return sema_truthy(s, v, sp);
}

const char *sema_need_str(Sema *s, Val v, Span sp, const char *what) {
    if (v.k != V_STR)
        sema_fail(s, sp, "%s must be a string, got %s", what, sema_describe(s, v));
    return v.s;
}

/* An optional string argument; absent, None and "" all mean "not given". */
const char *sema_opt_str(Sema *s, Val v, Span sp, const char *what) {
    if (!sema_given(v))
        return NULL;
    const char *str = sema_need_str(s, v, sp, what);
    return v.n ? str : NULL;
}

static ValueId need_tensor(Sema *s, Val v, Span sp) { return sema_to_tensor(s, v, sp); }

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

/* A shape: a tuple of compile-time ints (or one int), validated as Triton's
 * validate_block_shape does. Returns the rank. */
static int get_shape(Sema *s, Val v, Span sp, int32_t *dims) {
    Val one = v;
    const Val *items = &one;
    int n = 1;
    if (v.k == V_TUPLE) {
        items = v.items;
        n = v.n;
    }
    if (n > IR_MAX_RANK)
        sema_fail(s, sp, "blocks of rank %d are not supported (at most %d dimensions)", n, IR_MAX_RANK);
    int64_t numel = 1;
    for (int i = 0; i < n; i++) {
        if (items[i].k != V_INT)
            sema_fail(s, sp, "shape element %d must be a compile-time int, got %s", i, sema_describe(s, items[i]));
        if (!is_pow2(items[i].i))
            sema_fail(s, sp, "Shape element %d must be a power of 2", i); /* Triton's words */
        if (items[i].i > IR_MAX_NUMEL)
            sema_fail(s, sp, "numel (%lld) exceeds the maximum block size (%d)", (long long)items[i].i, IR_MAX_NUMEL);
        numel *= items[i].i;
        if (numel > IR_MAX_NUMEL)
            sema_fail(s, sp, "numel (%lld) exceeds the maximum block size (%d)", (long long)numel, IR_MAX_NUMEL);
        dims[i] = (int32_t)items[i].i;
    }
    return n;
}

/* Varargs shapes: f(x, 2, 3), f(x, (2, 3)), f(x, [2, 3]) */
static Val unwrap_varargs(Val t) {
    if (t.k == V_TUPLE && t.n == 1 && t.items[0].k == V_TUPLE)
        return t.items[0];
    return t;
}

/* Triton's _wrap_axis: -rank <= axis < rank, negative ones from the end. */
int sema_get_axis(Sema *s, Val v, Span sp, int rank) {
    int64_t a = sema_need_int(s, v, sp, "axis");
    if (a < -rank || a >= rank)
        sema_fail(s, sp, "invalid axis %lld. Expected %d <= axis < %d", (long long)a, -rank, rank); /* Triton's */
    return (int)(a < 0 ? a + rank : a);
}

static int get_axis(Sema *s, Val v, Span sp, int rank) { return sema_get_axis(s, v, sp, rank); }

/* ---- creation ---- */

static Val do_full(Sema *s, int rank, const int32_t *dims, Val value, Type elem, Span sp) {
    Type t = ir_block(elem, rank, dims);
    if (elem.dtype == DT_PTR)
        sema_fail(s, sp, "cannot fill a block with pointers");
    if (value.k == V_TENSOR) {
        if (value.ty.rank)
            sema_fail(s, sp, "the fill value must be a scalar, got %s", T(value.ty));
        ValueId c = sema_cast(s, value.id, elem, sp);
        return tv(s, rank ? emit1(s, IR_SPLAT, t, c, sp) : c);
    }
    if (!sema_is_number(value))
        sema_fail(s, sp, "the fill value must be a number, got %s", sema_describe(s, value));
    if (value.k == V_FLOAT && value.f == 0.0) /* semantic.scalar_constant: any zero is the type's zero */
        value = sema_int(0);
    return tv(s, sema_const_of(s, value, t, sp));
}

static Val h_full(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    int32_t dims[IR_MAX_RANK];
    int rank = get_shape(s, a[0], sp[0], dims);
    bool zeros = !strcmp(bi->name, "zeros");
    Val value = zeros ? sema_int(0) : a[1];
    Type dt = need_dtype(s, a[zeros ? 1 : 2], sp[zeros ? 1 : 2], "dtype");
    return do_full(s, rank, dims, value, dt, call);
}

static Val h_full_like(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    Type t = ty_of(s, need_tensor(s, a[0], sp[0]));
    bool zeros = !strcmp(bi->name, "zeros_like");
    Val value = zeros ? sema_int(0) : a[1];
    Val dtv = zeros ? (Val){.k = V_UNDEF} : a[2];
    Type dt = sema_given(dtv) ? need_dtype(s, dtv, sp[2], "dtype") : ir_elem(t);
    return do_full(s, t.rank, t.shape, value, dt, call);
}

static Val h_arange(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    int64_t v[2];
    for (int i = 0; i < 2; i++) {
        if (a[i].k == V_TENSOR)
            sema_fail(s, sp[i], "arange's arguments must be compile-time constants (tl.constexpr), got %s",
                      sema_describe(s, a[i]));
        if (a[i].k != V_INT)
            sema_fail(s, sp[i], "arange's arguments must be ints, got %s", sema_describe(s, a[i]));
        v[i] = a[i].i;
    }
    if (v[0] < INT32_MIN || v[0] > INT32_MAX || v[1] < INT32_MIN || v[1] > INT32_MAX)
        sema_fail(s, call, "arange must fit in int32");
    if (v[1] <= v[0])
        sema_fail(s, call, "arange's end argument must be greater than the start argument (got %lld and %lld)",
                  (long long)v[0], (long long)v[1]);
    int64_t n = v[1] - v[0];
    if (!is_pow2(n))
        sema_fail(s, call, "arange's range must be a power of 2"); /* Triton's words: the caret shows the bounds */
    if (n > IR_MAX_NUMEL)
        sema_fail(s, call, "numel (%lld) exceeds the maximum block size (%d)", (long long)n, IR_MAX_NUMEL);
    int32_t sh[1] = {(int32_t)n};
    Type t = ir_block(ir_scalar(DT_I32), 1, sh);
    Inst *in = sema_emit_inst(s, IR_ARANGE, NULL, 0, &t, 1, call);
    in->attr.start = v[0];
    in->attr.end = v[1];
    return tv(s, in->results[0]);
}

static Val h_program_id(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    int64_t axis = sema_need_int(s, a[0], sp[0], "axis");
    if (axis < 0 || axis > 2)
        sema_fail(s, sp[0], "%s axis must be 0, 1, or 2 but got %lld", bi->name, (long long)axis);
    Type t = ir_scalar(DT_I32);
    Inst *in = sema_emit_inst(s, (OpCode)bi->aux, NULL, 0, &t, 1, call);
    in->attr.axis = (int)axis;
    return tv(s, in->results[0]);
}

/* ---- linear algebra ---- */

static Val h_dot(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]), y = need_tensor(s, a[1], sp[1]);
    Type tx = ty_of(s, x), ty = ty_of(s, y);
    DType dx = (DType)tx.dtype, dy = (DType)ty.dtype;
    /* Triton's semantic.dot: both 2-D, or both 3-D with a leading batch dim
     * ([B, M, K] x [B, K, N] -> [B, M, N]) */
    if (!((tx.rank == 2 && ty.rank == 2) || (tx.rank == 3 && ty.rank == 3)))
        sema_fail(s, call, "tl.dot needs two 2D or two 3D (batched) blocks, got %s and %s", T(tx), T(ty));
    if (dx != DT_I8 && dx != DT_F16 && dx != DT_BF16 && dx != DT_F32 && dx != DT_F64 && !dt_is_fp8(dx))
        sema_fail(s, sp[0], "tl.dot does not support inputs of type %s (fp16, bf16, fp32, fp64, fp8 or int8)", D(dx));
    if (dx != dy && !(dt_is_fp8(dx) && dt_is_fp8(dy))) /* fp8e4nv x fp8e5 is allowed */
        sema_fail(s, call, "both operands of tl.dot must have the same type, got %s and %s", T(tx), T(ty));
    /* Triton's deprecated_fp8_dot_operand_dtypes on sm_90 and later (when the
     * arch is known: --arch, or the device in the library) */
    if ((dx == DT_F8E4B15 || dy == DT_F8E4B15) && s->opt->arch >= 90)
        diag_warning(s->d, s->src, call, "the use of fp8e4b15 is deprecated on Hopper and later architectures and can "
                                         "cause significant slow down. It will be removed in a future triton release");
    int nd = tx.rank;
    if (tx.shape[nd - 1] != ty.shape[nd - 2])
        sema_fail(s, call, "incompatible shapes for tl.dot: %s and %s (K is %d and %d)", T(tx), T(ty), tx.shape[nd - 1],
                  ty.shape[nd - 2]);
    if (nd == 3 && tx.shape[0] != ty.shape[0])
        sema_fail(s, call, "incompatible shapes for tl.dot: %s and %s (the batch dims are %d and %d)", T(tx), T(ty),
                  tx.shape[0], ty.shape[0]);
    int M = tx.shape[nd - 2], N = ty.shape[nd - 1], K = tx.shape[nd - 1];
    /* Triton's min_dot_size on NVIDIA: any M and N (small ones are padded for
     * the tensor cores there, an FMA loop here), K >= 32 for 8-bit types */
    int min_k = dt_bits(dx) == 8 ? 32 : 16;
    if (K < min_k)
        sema_fail(s, call, "Input shapes should have M >= 1, N >= 1 and K >= %d (tl.dot got M=%d, N=%d, K=%d)", min_k,
                  M, N, K);
    if (sema_given(a[3]) && sema_given(a[4]))
        sema_fail(s, call, "only one of input_precision and allow_tf32 can be specified");
    int64_t imprecise = 0;
    if (sema_given(a[5]) && dt_is_fp8(dx) && dt_is_fp8(dy)) { /* Triton checks it for fp8 dots (the rest ignore it) */
        imprecise = sema_need_int(s, a[5], sp[5], "max_num_imprecise_acc");
        if (imprecise > K)
            sema_fail(s, sp[5], "max_num_imprecise_acc (%lld) must be <= K (%d)", (long long)imprecise, K);
    }
    int prec = PREC_IEEE;
    if (dx == DT_F32) {
        const char *ip = sema_opt_str(s, a[3], sp[3], "input_precision");
        if (ip) {
            if (!strcasecmp(ip, "tf32"))
                prec = PREC_TF32;
            else if (!strcasecmp(ip, "tf32x3"))
                prec = PREC_TF32X3;
            else if (!strcasecmp(ip, "ieee"))
                prec = PREC_IEEE;
            else
                sema_fail(s, sp[3], "input_precision must be one of 'tf32', 'tf32x3', 'ieee', got '%s'", ip);
        } else {
            prec = sema_opt_bool(s, a[4], sp[4], true, "allow_tf32") ? PREC_TF32 : PREC_IEEE;
        }
    } else {
        sema_opt_str(s, a[3], sp[3], "input_precision");
        sema_opt_bool(s, a[4], sp[4], true, "allow_tf32");
    }
    /* Triton's out_dtype: float32 by default, the accumulator's type when
     * one is given; both given, they must agree */
    bool has_acc = sema_given(a[2]);
    ValueId acc = has_acc ? need_tensor(s, a[2], sp[2]) : 0;
    Type out = sema_given(a[6]) ? need_dtype(s, a[6], sp[6], "out_dtype")
               : has_acc        ? ir_scalar(dt_of(s, acc))
                                : ir_scalar(DT_F32);
    if (has_acc && out.dtype != dt_of(s, acc))
        sema_fail(s, sp[2], "expected accumulator dtype %s, got %s; pass out_dtype=%s to use this accumulator dtype",
                  T(out), D(dt_of(s, acc)), D(dt_of(s, acc)));
    DType rd;
    if (dt_is_int(dx))
        rd = DT_I32;
    else if (out.dtype == DT_BF16)
        sema_fail(s, sp[6], "out_dtype=bfloat16 is unsupported; use out_dtype=float32/float16 and cast with "
                            ".to(tl.bfloat16)");
    else if (dx == DT_F32 || dx == DT_BF16)
        rd = DT_F32;
    else if (dx == DT_F64) /* Triton: an fp64 dot is fp64 whatever out_dtype says */
        rd = DT_F64;
    else if (out.dtype == DT_F16 || out.dtype == DT_F32) /* fp16 and fp8 inputs: out_dtype is the accumulator */
        rd = (DType)out.dtype;
    else
        sema_fail(s, sp[6], "out_dtype must be float32 or float16, got %s", T(out));
    int32_t sh[3] = {tx.shape[0], M, N};
    Type rt = ir_block(ir_scalar(rd), nd, nd == 3 ? sh : sh + 1);
    if (has_acc) {
        if (!ir_type_eq(ty_of(s, acc), rt))
            sema_fail(s, sp[2], "the accumulator of tl.dot has type %s, but the product has type %s",
                      T(ty_of(s, acc)), T(rt));
    } else {
        acc = sema_const_of(s, sema_int(0), rt, call);
    }
    ValueId args[3] = {x, y, acc};
    ValueId r = sema_emit(s, IR_DOT, rt, args, 3, call);
    s->f->values[r].def->attr.precision = prec;
    /* the tensor cores' partial sums go into the accumulator every
     * `imprecise` of K (llvm_dot.c); 0 (Triton: a sum after every
     * instruction) is taken as no limit, mma.sync summing in fp32 */
    s->f->values[r].def->attr.num = imprecise > 0 ? (int)imprecise : 0;
    return tv(s, r);
}

/* ---- elementwise builtins ---- */

static Val h_where(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId c = need_tensor(s, a[0], sp[0]);
    if (dt_of(s, c) != DT_I1) /* Triton's words */
        diag_warning(s->d, s->src, sp[0], "tl.where with a non-boolean condition is deprecated and will error out in "
                                          "a future triton release. Got %s", D(dt_of(s, c)));
    c = sema_to_i1(s, c, sp[0]);
    ValueId x, y;
    type_check(s, a[1], a[2], &x, &y, TC_LPTR | TC_RPTR | TC_ARITH, OP_NONE, call);
    /* type_check lets a pointer meet an integer (for ptr + offset); a select
     * cannot (Triton fails in MLIR's verifier, without a location) */
    if (dt_of(s, x) != dt_of(s, y))
        sema_fail(s, call, "tl.where cannot choose between %s and %s: a pointer can only be chosen against a pointer "
                           "of the same type", T(ir_elem(ty_of(s, x))), T(ir_elem(ty_of(s, y))));
    Type sh = common_or_fail(s, ty_of(s, c), ty_of(s, x), call);
    c = broadcast_to(s, c, sh, call);
    x = broadcast_to(s, x, sh, call);
    y = broadcast_to(s, y, sh, call);
    ValueId args[3] = {c, x, y};
    return tv(s, sema_emit(s, IR_SELECT, ty_of(s, x), args, 3, call));
}

static ValueId promote_bf16(Sema *s, ValueId v, Span sp) {
    return dt_of(s, v) == DT_BF16 ? sema_cast(s, v, ir_scalar(DT_F32), sp) : v;
}

static Val minmax(Sema *s, bool is_max, Val a, Val b, Span sp) {
    ValueId x = promote_bf16(s, sema_to_tensor(s, a, sp), sp);
    ValueId y = promote_bf16(s, sema_to_tensor(s, b, sp), sp);
    ValueId rx, ry;
    type_check(s, tv(s, x), tv(s, y), &rx, &ry, TC_ARITH, OP_NONE, sp);
    if (dt_of(s, rx) == DT_I1)
        sema_fail(s, sp, "%s of boolean (i1) values is not supported", is_max ? "maximum" : "minimum");
    DType fp8 = dt_of(s, rx);
    if (dt_is_fp8(fp8)) { /* the IR has no fp8 arithmetic: exact in fp32, and exact back (one of the two) */
        rx = sema_cast(s, rx, ir_scalar(DT_F32), sp);
        ry = sema_cast(s, ry, ir_scalar(DT_F32), sp);
        ValueId m = emit2(s, is_max ? IR_MAX : IR_MIN, ty_of(s, rx), rx, ry, sp);
        return tv(s, sema_cast(s, m, ir_scalar(fp8), sp));
    }
    return tv(s, emit2(s, is_max ? IR_MAX : IR_MIN, ty_of(s, rx), rx, ry, sp));
}

/* propagate_nan: tl.PropagateNan.ALL (-1 here) or .NONE (0) */
static bool nan_all(Sema *s, Val v, Span sp) {
    if (!sema_given(v))
        return false;
    if (v.k != V_INT)
        sema_fail(s, sp, "propagate_nan must be tl.PropagateNan.NONE or tl.PropagateNan.ALL, got %s",
                  sema_describe(s, v));
    return v.i != 0;
}

static Val h_minmax(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    bool all = nan_all(s, a[2], sp[2]);
    Val r = minmax(s, bi->aux, a[0], a[1], call);
    if (all) {
        ValueId xs[2] = {promote_bf16(s, sema_to_tensor(s, a[0], call), call),
                         promote_bf16(s, sema_to_tensor(s, a[1], call), call)};
        for (int i = 0; i < 2; i++)
            xs[i] = sema_cast(s, xs[i], ir_elem(r.ty), call);
        r = tv(s, sema_propagate_nan(s, r.id, xs, 2, call));
    }
    return r;
}

static Val h_clamp(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]), lo = need_tensor(s, a[1], sp[1]), hi = need_tensor(s, a[2], sp[2]);
    type_check(s, tv(s, lo), tv(s, hi), &lo, &hi, TC_ARITH, OP_NONE, call);
    type_check(s, tv(s, x), tv(s, lo), &x, &lo, TC_ARITH, OP_NONE, call);
    type_check(s, tv(s, x), tv(s, hi), &x, &hi, TC_ARITH, OP_NONE, call);
    if (!dt_is_float(dt_of(s, x)))
        sema_fail(s, call, "clamp only supports floating-point values, got %s", T(ty_of(s, x)));
    lo = broadcast_to(s, lo, ty_of(s, x), call);
    ValueId m = emit2(s, IR_MAX, ty_of(s, x), x, lo, call);
    ValueId r = emit2(s, IR_MIN, ty_of(s, x), m, hi, call);
    return tv(s, nan_all(s, a[3], sp[3]) ? sema_propagate_nan(s, r, &x, 1, call) : r);
}

static Val h_abs(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]);
    DType dt = dt_of(s, x);
    if (dt == DT_PTR)
        sema_fail(s, sp[0], "abs of a pointer");
    if (dt_is_int(dt) && !dt_is_signed(dt)) /* unsigned (and i1): abs is the identity */
        return tv(s, x);
    if (dt_is_fp8(dt)) { /* as Triton: the bits with the sign bit cleared (the IR has no fp8 arithmetic) */
        Type it = ir_with_dtype(ty_of(s, x), DT_I8);
        ValueId bits = emit1(s, IR_BITCAST, it, x, call);
        ValueId r = emit2(s, IR_AND, it, bits, sema_const_of(s, sema_int(0x7f), it, call), call);
        return tv(s, emit1(s, IR_BITCAST, ty_of(s, x), r, call));
    }
    return tv(s, emit1(s, IR_ABS, ty_of(s, x), x, call));
}

/* exp, log, sqrt, ... accept fp32 and fp64 only (Triton's math._check_dtype). */
static Val h_math1(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_tensor(s, a[0], sp[0]);
    DType dt = dt_of(s, x);
    if (dt != DT_F32 && dt != DT_F64)
        sema_fail(s, sp[0], "tl.%s expects fp32 or fp64 values, got %s (convert with .to(tl.float32))", bi->name,
                  T(ty_of(s, x)));
    return tv(s, emit1(s, (OpCode)bi->aux, ty_of(s, x), x, call));
}

static Val h_sigmoid(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    /* standard.sigmoid: 1 / (1 + exp(-x)) */
    Val neg = sema_unop(s, OP_NEG, tv(s, need_tensor(s, a[0], sp[0])), call);
    const Builtin *exp = sema_builtin_tl("exp");
    Val e = h_math1(s, exp, &neg, sp, call);
    (void)bi;
    return sema_binop(s, OP_DIV, sema_int(1), sema_binop(s, OP_ADD, sema_int(1), e, call), call);
}

static Val h_fma(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]), y = need_tensor(s, a[1], sp[1]), z = need_tensor(s, a[2], sp[2]);
    type_check(s, tv(s, x), tv(s, y), &x, &y, TC_ARITH, OP_NONE, call);
    type_check(s, tv(s, z), tv(s, x), &z, &x, TC_ARITH, OP_NONE, call);
    type_check(s, tv(s, z), tv(s, y), &z, &y, TC_ARITH, OP_NONE, call);
    x = broadcast_to(s, x, ty_of(s, z), call);
    if (!dt_is_float(dt_of(s, x)))
        sema_fail(s, call, "tl.fma needs floating-point values, got %s", T(ty_of(s, x)));
    ValueId args[3] = {x, y, z};
    return tv(s, sema_emit(s, IR_FMA, ty_of(s, x), args, 3, call));
}

static Val h_cdiv(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)sp;
    /* standard.cdiv: (x + div - 1) // div; folds when both are constexprs */
    Val t = sema_binop(s, OP_ADD, a[0], a[1], call);
    t = sema_binop(s, OP_SUB, t, sema_int(1), call);
    return sema_binop(s, OP_FLOORDIV, t, a[1], call);
}

static Val h_swizzle2d(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)sp;
    /* standard.swizzle2d, line by line */
    Val i = a[0], j = a[1], size_i = a[2], size_j = a[3], size_g = a[4];
    Val ij = sema_binop(s, OP_ADD, sema_binop(s, OP_MUL, i, size_j, call), j, call);
    Val size_gj = sema_binop(s, OP_MUL, size_g, size_j, call);
    Val group_id = sema_binop(s, OP_FLOORDIV, ij, size_gj, call);
    Val off_i = sema_binop(s, OP_MUL, group_id, size_g, call);
    size_g = minmax(s, false, sema_binop(s, OP_SUB, size_i, off_i, call), size_g, call);
    ij = sema_binop(s, OP_MOD, ij, size_gj, call);
    Val new_i = sema_binop(s, OP_ADD, off_i, sema_binop(s, OP_MOD, ij, size_g, call), call);
    Val new_j = sema_binop(s, OP_FLOORDIV, ij, size_g, call);
    Val r[2] = {new_i, new_j};
    return sema_tuple(s, r, 2);
}

/* ---- reductions ---- */

static ValueId reduce(Sema *s, ValueId v, int kind, Val axisv, Span axsp, bool keep, Span sp) {
    Type t = ty_of(s, v);
    if (!t.rank)
        sema_fail(s, sp, "cannot reduce a scalar (%s)", T(t));
    int axis, rank0 = t.rank;
    if (!sema_given(axisv)) {
        if (t.rank > 1) {
            int32_t n[1] = {(int32_t)ir_numel(t)};
            t = ir_block(t, 1, n);
            v = emit1(s, IR_RESHAPE, t, v, sp);
        }
        axis = 0;
    } else {
        axis = get_axis(s, axisv, axsp, t.rank);
    }
    int32_t sh[IR_MAX_RANK];
    int r = 0;
    for (int i = 0; i < t.rank; i++) {
        if (i != axis)
            sh[r++] = t.shape[i];
        else if (keep)
            sh[r++] = 1;
    }
    bool boolean = t.dtype == DT_I1;
    if (boolean) { /* the IR reduces numbers; booleans count as 0 / 1 */
        v = sema_cast(s, v, ir_scalar(DT_I32), sp);
        t = ty_of(s, v);
    }
    if (t.dtype == DT_PTR)
        sema_fail(s, sp, "cannot reduce pointers (%s)", T(t));
    /* The IR reduces no fp8 (no fp8 arithmetic): in fp32, exact for min, max
     * and the arg forms; a sum rounds once to fp8 at the end, where Triton's
     * combine rounds each partial sum. */
    DType fp8 = dt_is_fp8((DType)t.dtype) ? (DType)t.dtype : DT_VOID;
    if (fp8 != DT_VOID) {
        v = sema_cast(s, v, ir_with_dtype(t, DT_F32), sp);
        t = ty_of(s, v);
    }
    Type elem = kind == RED_ARGMAX || kind == RED_ARGMIN ? ir_scalar(DT_I32) : ir_elem(t);
    Type rt = ir_block(elem, r, sh);
    ValueId res = emit1(s, IR_REDUCE, rt, v, sp);
    Attr *at = &s->f->values[res].def->attr;
    at->reduce = kind;
    at->axis = axis;
    at->keep_dims = keep;
    if (boolean && kind != RED_ARGMAX && kind != RED_ARGMIN) {
        /* back to i1, as Triton reduces in i1: a sum in i1 wraps (its parity) */
        if (kind == RED_SUM) {
            res = emit2(s, IR_AND, rt, res, sema_const_of(s, sema_int(1), rt, sp), sp);
        }
        elem = ir_scalar(DT_I1);
        rt = ir_block(elem, r, sh);
        res = sema_cast(s, res, rt, sp);
    }
    if (fp8 != DT_VOID && kind != RED_ARGMAX && kind != RED_ARGMIN) {
        elem = ir_scalar(fp8);
        rt = ir_block(elem, r, sh);
        res = sema_cast(s, res, rt, sp);
    }
    if (!sema_given(axisv) && keep && rank0 > 1) {
        int32_t ones[IR_MAX_RANK];
        for (int d = 0; d < IR_MAX_RANK; d++)
            ones[d] = 1;
        res = emit1(s, IR_RESHAPE, ir_block(elem, rank0, ones), res, sp);
    }
    return res;
}

static Val h_sum(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]);
    bool keep = sema_opt_bool(s, a[2], sp[2], false, "keep_dims");
    DType dt = dt_of(s, x);
    Type out;
    if (sema_given(a[3]))
        out = need_dtype(s, a[3], sp[3], "dtype");
    else if (dt_is_int(dt) && dt_bits(dt) < 32) /* standard._pick_sum_dtype */
        out = ir_scalar(dt_is_signed(dt) ? DT_I32 : DT_U32);
    else
        out = ir_scalar(dt);
    x = sema_cast(s, x, out, call);
    return tv(s, reduce(s, x, RED_SUM, a[1], sp[1], keep, call));
}

static Val h_maxmin_reduce(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    bool is_max = bi->aux;
    ValueId x = promote_bf16(s, need_tensor(s, a[0], sp[0]), call);
    bool idx = sema_opt_bool(s, a[2], sp[2], false, "return_indices");
    sema_opt_bool(s, a[3], sp[3], true, "return_indices_tie_break_left");
    bool keep = sema_opt_bool(s, a[4], sp[4], false, "keep_dims");
    if (idx) {
        Val r[2];
        r[0] = tv(s, reduce(s, x, is_max ? RED_MAX : RED_MIN, a[1], sp[1], keep, call));
        r[1] = tv(s, reduce(s, x, is_max ? RED_ARGMAX : RED_ARGMIN, a[1], sp[1], keep, call));
        return sema_tuple(s, r, 2);
    }
    DType dt = dt_of(s, x);
    if (dt_bits(dt) < 32)
        x = sema_cast(s, x, ir_scalar(dt_is_fp(dt) ? DT_F32 : DT_I32), call);
    return tv(s, reduce(s, x, is_max ? RED_MAX : RED_MIN, a[1], sp[1], keep, call));
}

static Val h_argmaxmin(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = promote_bf16(s, need_tensor(s, a[0], sp[0]), call);
    sema_opt_bool(s, a[2], sp[2], true, "tie_break_left");
    bool keep = sema_opt_bool(s, a[3], sp[3], false, "keep_dims");
    return tv(s, reduce(s, x, bi->aux, a[1], sp[1], keep, call));
}

/* ---- shape manipulation ---- */

static Val h_expand_dims(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]);
    Val ax = a[1];
    int n = ax.k == V_TUPLE ? ax.n : 1;
    const Val *items = ax.k == V_TUPLE ? ax.items : &ax;
    int rank = ty_of(s, x).rank, new_rank = rank + n;
    bool seen[IR_MAX_RANK + 8] = {0};
    if (new_rank > IR_MAX_RANK)
        sema_fail(s, call, "blocks of rank %d are not supported (at most %d dimensions)", new_rank, IR_MAX_RANK);
    int axes[IR_MAX_RANK];
    bool dup = false;
    for (int i = 0; i < n; i++) {
        axes[i] = get_axis(s, items[i], sp[1], new_rank);
        dup |= seen[axes[i]];
        seen[axes[i]] = true;
    }
    if (dup) { /* Triton's words, with every normalised axis */
        char list[IR_MAX_RANK * 8 + 4] = "[";
        for (int i = 0; i < n; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? ", " : "", axes[i]);
        strcat(list, "]");
        sema_fail(s, sp[1], "expand_dims received duplicate axes, normalized axes = %s", list);
    }
    for (int d = 0; d < new_rank; d++)
        if (seen[d])
            x = expand_dims(s, x, d, call);
    return tv(s, x);
}

static Val h_broadcast_to(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]);
    int32_t dims[IR_MAX_RANK];
    int rank = get_shape(s, unwrap_varargs(a[1]), sp[1], dims);
    Type to = ir_block(ty_of(s, x), rank, dims);
    return tv(s, sema_broadcast_exact(s, x, to, call, "the input"));
}

static Val h_reshape(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_tensor(s, a[0], sp[0]);
    Type t = ty_of(s, x);
    int32_t dims[IR_MAX_RANK];
    int rank;
    if (!strcmp(bi->name, "ravel")) {
        dims[0] = (int32_t)ir_numel(t);
        rank = 1;
    } else {
        rank = get_shape(s, unwrap_varargs(a[1]), sp[1], dims);
        sema_opt_bool(s, a[2], sp[2], false, "can_reorder");
    }
    Type to = ir_block(t, rank, dims);
    if (ir_numel(to) != ir_numel(t))
        sema_fail(s, call, "reshape() cannot change the total number of elements: %s to %s", T(t), T(to));
    if (ir_type_eq(to, t))
        return tv(s, x);
    if (!rank)
        sema_fail(s, call, "reshape to a scalar is not supported");
    if (!t.rank)
        return tv(s, emit1(s, IR_SPLAT, to, x, call));
    return tv(s, emit1(s, IR_RESHAPE, to, x, call));
}

ValueId sema_permute(Sema *s, ValueId x, const int *perm, int n, Span sp) {
    Type t = ty_of(s, x);
    if (n != t.rank)
        sema_fail(s, sp, "permute dims must have the same length as the input shape (%d for %s)", n, T(t));
    bool seen[IR_MAX_RANK] = {0}, identity = true;
    int32_t sh[IR_MAX_RANK];
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n || seen[perm[i]])
            sema_fail(s, sp, "permute dims must be a permutation of 0, 1, ..., n-1");
        seen[perm[i]] = true;
        identity &= perm[i] == i;
        sh[i] = t.shape[perm[i]];
    }
    if (identity)
        return x;
    ValueId r = emit1(s, IR_TRANS, ir_block(t, n, sh), x, sp);
    for (int i = 0; i < n; i++)
        s->f->values[r].def->attr.perm[i] = perm[i];
    return r;
}

static Val h_permute(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_tensor(s, a[0], sp[0]);
    Val dims = unwrap_varargs(a[1]);
    int perm[IR_MAX_RANK], n = dims.n;
    if (!n && !strcmp(bi->name, "trans")) {
        if (ty_of(s, x).rank != 2)
            sema_fail(s, call, "trans() without dims needs a 2D block, got %s", T(ty_of(s, x)));
        perm[0] = 1;
        perm[1] = 0;
        n = 2;
    } else {
        if (n > IR_MAX_RANK)
            sema_fail(s, sp[1], "too many dims for permute (%d)", n);
        for (int i = 0; i < n; i++)
            perm[i] = (int)sema_need_int(s, dims.items[i], sp[1], "a permutation dim");
    }
    return tv(s, sema_permute(s, x, perm, n, call));
}

static Val h_cast(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = need_tensor(s, a[0], sp[0]);
    Type dt = need_dtype(s, a[1], sp[1], "the target type");
    const char *rounding = sema_opt_str(s, a[2], sp[2], "fp_downcast_rounding");
    if (rounding && strcmp(rounding, "rtne") && strcmp(rounding, "rtz"))
        sema_fail(s, sp[2], "fp_downcast_rounding must be 'rtne' or 'rtz', got '%s'", rounding);
    if (sema_opt_bool(s, a[3], sp[3], false, "bitcast"))
        return tv(s, bitcast(s, x, dt, call));
    if (rounding && !strcmp(rounding, "rtz") && dt_of(s, x) != dt.dtype) {
        DType from = dt_of(s, x), to = (DType)dt.dtype;
        if (from != DT_F32 || (to != DT_F16 && to != DT_BF16 && to != DT_F8E5))
            sema_fail(s, sp[2], "fp_downcast_rounding='rtz' converts fp32 to fp16, bf16 or fp8e5, not %s to %s",
                      D(from), D(to));
        ValueId r = emit1(s, IR_CAST, ir_with_dtype(ty_of(s, x), to), x, call);
        s->f->values[r].def->attr.rtz = true;
        return tv(s, r);
    }
    return tv(s, sema_cast(s, x, dt, call));
}

/* x.logical_and(y), x.logical_or(y): tensor methods only in Triton (tl.tensor's). */
static Val h_logical(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)sp;
    return sema_logical(s, (Op)bi->aux, a[0], a[1], call);
}

/* ---- hints and debugging ---- */

static Val h_hint(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_tensor(s, a[0], sp[0]);
    Type t = ty_of(s, x);
    Val vals = a[1];
    int n = vals.k == V_TUPLE ? vals.n : 1;
    const Val *items = vals.k == V_TUPLE ? vals.items : &vals;
    int want = t.rank ? t.rank : 1;
    if (!dt_is_int((DType)t.dtype) && t.dtype != DT_PTR)
        sema_fail(s, sp[0], "%s applies to integers and pointers, not %s", bi->name, T(t));
    if (t.dtype == DT_I1 && bi->aux != IR_MAX_CONSTANCY) /* a mask may be constant in runs */
        sema_fail(s, sp[0], "%s applies to integers and pointers, not %s", bi->name, T(t));
    if (n != want)
        sema_fail(s, sp[1], "shape of input to %s does not match the length of values (%d values for %s)", bi->name,
                  n, T(t));
    ValueId r = emit1(s, (OpCode)bi->aux, t, x, call);
    for (int i = 0; i < n; i++) {
        int64_t v = sema_need_int(s, items[i], sp[1], "a hint value");
        if (v < 1)
            sema_fail(s, sp[1], "%s values must be positive, got %lld", bi->name, (long long)v);
        s->f->values[r].def->attr.vals[i] = v;
    }
    return tv(s, r);
}

static Val h_static_assert(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (a[0].k == V_TENSOR || sema_has_tensor(a[0]))
        sema_fail(s, sp[0], "static_assert's condition could not be determined at compile time; make sure that it "
                            "depends only on constexpr values");
    if (!sema_truthy(s, a[0], sp[0])) {
        if (a[1].k == V_STR)
            sema_fail(s, call, "static assertion failed: %s", a[1].s);
        if (sema_given(a[1])) {
            Buf b = {0};
            sema_repr(&b, a[1]);
            char *m = arena_strdup(s->a, b.data ? b.data : "");
            buf_free(&b);
            sema_fail(s, call, "static assertion failed: %s", m);
        }
        sema_fail(s, call, "static assertion failed");
    }
    return sema_none();
}

static Val h_static_print(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)sp;
    if (s->quiet)
        return sema_none();
    Buf b = {0};
    for (int i = 0; i < a[0].n; i++) {
        if (i)
            buf_putc(&b, ' ');
        Val v = a[0].items[i];
        if (v.k == V_STR) {
            buf_puts(&b, v.s);
        } else if (v.k == V_TENSOR && v.ty.rank) { /* Triton's str(tensor): "int32[constexpr[128]]" */
            sema_triton_str(&b, ty_of(s, v.id));
        } else {
            sema_repr(&b, v);
        }
    }
    /* Triton prints it on standard output at compile time; tl notes it (the
     * library: in the kernel's log) where it is */
    diag_note(s->d, s->src, call, "static_print: %s", b.data ? b.data : "");
    buf_free(&b);
    return sema_none();
}

static Val device_print(Sema *s, const char *prefix, Val args, bool hex, Span call) {
    int n = args.n;
    ValueId *ids = arena_alloc(s->a, sizeof(ValueId) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        ids[i] = sema_to_tensor(s, args.items[i], call);
    /* semantic.device_print: " prefix: " when there are arguments */
    Buf b = {0};
    buf_puts(&b, prefix);
    if (n && (!b.len || b.data[b.len - 1] != ' '))
        buf_putc(&b, ' ');
    if (n && !(b.len >= 2 && b.data[b.len - 2] == ':')) {
        b.data[b.len - 1] = ':';
        buf_putc(&b, ' ');
    }
    char *p = arena_strdup(s->a, b.data ? b.data : "");
    buf_free(&b);
    if (strlen(p) > 2 && p[0] != ' ')
        p = arena_printf(s->a, " %s", p);
    Inst *in = sema_emit_inst(s, IR_PRINT, ids, n, NULL, 0, call);
    in->attr.str = p;
    in->attr.hex = hex;
    return sema_none();
}

static Val h_device_print(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    return device_print(s, sema_need_str(s, a[0], sp[0], "device_print's prefix"), a[1], sema_opt_bool(s, a[2], sp[2], false, "hex"), call);
}

static Val h_py_print(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)sp;
    /* Triton maps print() to device_print: a leading string is the prefix */
    Val args = a[0];
    const char *prefix = "";
    if (args.n && args.items[0].k == V_STR) {
        prefix = args.items[0].s;
        args.items++;
        args.n--;
    }
    return device_print(s, prefix, args, false, call);
}

static Val h_device_assert(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId c = sema_to_i1(s, need_tensor(s, a[0], sp[0]), sp[0]);
    const char *msg = sema_opt_str(s, a[1], sp[1], "the assertion message");
    if (sema_given(a[2])) {
        /* mask: only lanes where it holds are checked */
        Val nm = sema_unop(s, OP_NOT, tv(s, sema_need_mask(s, a[2], sp[2])), sp[2]);
        c = sema_logical(s, OP_OR, tv(s, c), nm, call).id;
    }
    Inst *in = sema_emit_inst(s, IR_ASSERT, &c, 1, NULL, 0, call);
    in->attr.str = msg ? msg : "";
    return sema_none();
}

static Val h_barrier(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)a, (void)sp;
    sema_emit_inst(s, IR_BARRIER, NULL, 0, NULL, 0, call);
    return sema_none();
}

/* ---- compile-time helpers ---- */

static Val h_constexpr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (a[0].k == V_TENSOR)
        sema_fail(s, sp[0], "tl.constexpr() needs a compile-time value, got %s", sema_describe(s, a[0]));
    Val v = a[0];
    v.as_tensor = false;
    return v;
}

static Val h_pointer_type(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    Type t = need_dtype(s, a[0], sp[0], "the element type");
    if (t.dtype == DT_PTR)
        sema_fail(s, sp[0], "pointers to pointers are not supported");
    return sema_dtype(ir_ptr((DType)t.dtype));
}

/* tl.tensor, tl.dtype: classes a kernel names only for isinstance */
static Val h_class(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)a, (void)sp;
    sema_fail(s, call, "tl.%s cannot be called in a kernel; it names a class for isinstance()", bi->name);
}

/* tl.tuple(iterable): Triton's tuple class made from a tuple or a list; tl's
 * tuples are Python's (compile-time sequences of values), so it is the same. */
static Val h_tl_tuple(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (!sema_given(a[0]))
        return sema_tuple(s, NULL, 0);
    if (a[0].k != V_TUPLE)
        sema_fail(s, sp[0], "tl.tuple takes a tuple or a list, got %s", sema_describe(s, a[0]));
    return sema_tuple(s, a[0].items, a[0].n);
}

static Val h_not_here(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)a, (void)sp;
    if (!strcmp(bi->name, "range") || !strcmp(bi->name, "static_range"))
        sema_fail(s, call, "'%s' can only be used as the iterable of a 'for' loop", bi->name);
    if (!strcmp(bi->name, "condition"))
        sema_fail(s, call, "tl.condition can only be used as the condition of a 'while' loop");
    if (!strcmp(bi->name, "tensor_descriptor"))
        sema_fail(s, call, "tl.tensor_descriptor is a type: make a descriptor with tl.make_tensor_descriptor");
    sema_fail(s, call, "'%s' can only be used as a decorator", bi->name);
}

static Val py_minmax(Sema *s, bool is_max, Val *a, const Span *sp, Span call) {
    Val args = unwrap_varargs(a[0]);
    if (args.n == 1 && args.items[0].k == V_TUPLE)
        args = args.items[0];
    if (!args.n)
        sema_fail(s, call, "%s expected at least 1 argument, got 0", is_max ? "max" : "min");
    bool all_const = true;
    for (int i = 0; i < args.n; i++)
        all_const &= sema_is_number(args.items[i]);
    Val r = args.items[0];
    for (int i = 1; i < args.n; i++) {
        if (all_const) { /* Python's min/max on numbers folds */
            Val lt = sema_const_binop(s, is_max ? OP_GT : OP_LT, args.items[i], r, call);
            if (lt.i)
                r = args.items[i];
        } else {
            r = minmax(s, is_max, r, args.items[i], call); /* Triton: tl.minimum / tl.maximum */
        }
    }
    (void)sp;
    return r;
}

static Val h_py_min(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    return py_minmax(s, bi->aux, a, sp, call);
}

static Val h_py_abs(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    if (sema_is_number(a[0])) {
        if (a[0].k == V_FLOAT)
            return sema_float(fabs(a[0].f));
        if (a[0].i == INT64_MIN)
            sema_fail(s, call, "integer overflow in a constant expression");
        return sema_int(a[0].i < 0 ? -a[0].i : a[0].i);
    }
    return h_abs(s, bi, a, sp, call);
}

static Val h_py_conv(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    Val v = a[0];
    const char *to = bi->name;
    if (v.k == V_UNDEF)
        return !strcmp(to, "float") ? sema_float(0) : !strcmp(to, "int") ? sema_int(0) : sema_bool(false);
    if (v.k == V_TENSOR)
        sema_fail(s, sp[0], "%s() of a runtime value is not supported; use .to(...) to convert tensors", to);
    if (!strcmp(to, "bool"))
        return sema_bool(sema_truthy(s, v, sp[0]));
    if (v.k == V_STR) {
        Val lit;
        if (!sema_parse_literal(s, v.s, &lit) || !sema_is_number(lit))
            sema_fail(s, sp[0], "could not convert string to %s: %s", to, sema_describe(s, v));
        v = lit;
    }
    if (!sema_is_number(v))
        sema_fail(s, sp[0], "%s() argument must be a number or a string, not '%s'", to, sema_kind_name(v));
    if (!strcmp(to, "float"))
        return sema_float(v.k == V_FLOAT ? v.f : (double)v.i);
    if (v.k != V_FLOAT)
        return sema_int(v.i);
    if (!isfinite(v.f) || v.f >= 0x1p63 || v.f < -0x1p63)
        sema_fail(s, sp[0], "cannot convert %s to an int", sema_describe(s, v));
    (void)call;
    return sema_int((int64_t)v.f);
}

static Val h_py_len(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (a[0].k == V_TUPLE || a[0].k == V_STR || a[0].k == V_DICT)
        return sema_int(a[0].n);
    if (a[0].k == V_TENSOR && a[0].ty.rank)
        return sema_int(a[0].ty.shape[0]);
    sema_fail(s, sp[0], "object of type '%s' has no len()", sema_kind_name(a[0]));
}

static Val h_next_pow2(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    int64_t n = sema_need_int(s, a[0], sp[0], "next_power_of_2's argument");
    int64_t p = 1;
    while (p < n) {
        if (p > INT64_MAX / 2)
            sema_fail(s, sp[0], "next_power_of_2(%lld) overflows", (long long)n);
        p <<= 1;
    }
    return sema_int(p);
}

/* triton.runtime.driver.active.get_current_target(): the GPUTarget that host
 * code asks for to pick configs by backend (tutorial 03's is_cuda()). tl
 * compiles for CUDA only; arch is known only when --arch names it. */
static Val h_target(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)a, (void)sp, (void)call;
    Val t = {.k = V_DICT, .i = SEMA_DICT_OBJECT};
    static const char *keys[] = {"backend", "warp_size", "is_cuda_backend", "is_hip_backend", "arch"};
    t.n = s->opt->arch ? 5 : 4;
    t.keys = (const char **)keys;
    t.items = arena_alloc(s->a, sizeof(Val) * 5);
    t.items[0] = sema_str(s, "cuda", 4);
    t.items[1] = sema_int(32);
    t.items[2] = (Val){.k = V_BUILTIN, .bi = sema_builtin_driver("is_cuda_backend")};
    t.items[3] = (Val){.k = V_BUILTIN, .bi = sema_builtin_driver("is_hip_backend")};
    t.items[4] = sema_int(s->opt->arch);
    return t;
}

/* GPUTarget.is_cuda_backend() / is_hip_backend(): the methods newer host code
 * asks instead of comparing .backend (tutorial 03's is_cuda()). */
static Val h_target_is(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)s, (void)a, (void)sp, (void)call;
    return sema_bool(sema_builtin_is(bi, "is_cuda_backend"));
}

/* ---- the table ---- */

#define TL B_TL
#define TLM (B_TL | B_METHOD)
static const Builtin builtins[] = {
    /* programming model */
    {"program_id", "axis", h_program_id, IR_PROGRAM_ID, TL},
    {"num_programs", "axis", h_program_id, IR_NUM_PROGRAMS, TL},
    /* creation */
    {"arange", "start end", h_arange, 0, TL},
    {"zeros", "shape dtype", h_full, 0, TL},
    {"full", "shape value dtype", h_full, 0, TL},
    {"zeros_like", "input", h_full_like, 0, TL},
    {"full_like", "input value dtype?", h_full_like, 0, TL},
    /* memory (sema_mem.c) */
    {"load", "pointer mask? other? boundary_check? padding_option? cache_modifier? eviction_policy? volatile?",
     sema_h_load, 0, TL},
    {"store", "pointer value mask? boundary_check? cache_modifier? eviction_policy?", sema_h_store, 0, TLM},
    {"atomic_add", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_ADD, TLM},
    {"atomic_max", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_MAX, TLM},
    {"atomic_min", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_MIN, TLM},
    {"atomic_xchg", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_XCHG, TLM},
    {"atomic_and", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_AND, TLM},
    {"atomic_or", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_OR, TLM},
    {"atomic_xor", "pointer val mask? sem? scope?", sema_h_atomic_rmw, RMW_XOR, TLM},
    {"atomic_cas", "pointer cmp val sem? scope?", sema_h_atomic_cas, 0, TLM},
    /* block pointers and tensor descriptors (sema_desc.c) */
    {"make_block_ptr", "base shape strides offsets block_shape order", sema_h_make_block_ptr, 0, TL},
    {"advance", "base offsets", sema_h_advance, 0, TL},
    {"make_tensor_descriptor", "base shape strides block_shape padding_option?", sema_h_make_tensor_descriptor, 0,
     TL},
    {"load_tensor_descriptor", "desc offsets", sema_h_load_tensor_descriptor, 0, TL},
    {"store_tensor_descriptor", "desc offsets value", sema_h_store_tensor_descriptor, 0, TL},
    /* math */
    {"dot", "input other acc? input_precision? allow_tf32? max_num_imprecise_acc? out_dtype?", h_dot, 0, TL},
    {"dot_scaled", "lhs lhs_scale lhs_format rhs rhs_scale rhs_format acc? fast_math? lhs_k_pack? rhs_k_pack? out_dtype?",
     sema_h_dot_scaled, 0, TL},
    {"where", "condition x y", h_where, 0, TL},
    {"minimum", "x y propagate_nan?", h_minmax, 0, TL},
    {"maximum", "x y propagate_nan?", h_minmax, 1, TL},
    {"clamp", "x min max propagate_nan?", h_clamp, 0, TL},
    {"abs", "x", h_abs, 0, TLM},
    {"exp", "x", h_math1, IR_EXP, TLM},
    {"exp2", "x", h_math1, IR_EXP2, TLM},
    {"log", "x", h_math1, IR_LOG, TLM},
    {"log2", "x", h_math1, IR_LOG2, TLM},
    {"sqrt", "x", h_math1, IR_SQRT, TLM},
    {"rsqrt", "x", h_math1, IR_RSQRT, TLM},
    {"sin", "x", h_math1, IR_SIN, TLM},
    {"cos", "x", h_math1, IR_COS, TLM},
    {"floor", "x", h_math1, IR_FLOOR, TLM},
    {"ceil", "x", h_math1, IR_CEIL, TLM},
    {"sigmoid", "x", h_sigmoid, 0, TLM},
    {"fma", "x y z", h_fma, 0, TL},
    /* math.py and standard.softmax (sema_extra.c) */
    {"erf", "x", h_math1, IR_ERF, TLM},
    {"umulhi", "x y", sema_h_umulhi, 0, TL},
    {"fdiv", "x y ieee_rounding?", sema_h_fdiv, 0, TLM},
    {"div_rn", "x y", sema_h_fdiv, 1, TL},
    {"sqrt_rn", "x", sema_h_sqrt_rn, 0, TLM},
    {"softmax", "x dim? keep_dims? ieee_rounding?", sema_h_softmax, 0, TLM},
    {"inline_asm_elementwise", "asm constraints args dtype is_pure pack", sema_h_inline_asm, 0, TL},
    {"cdiv", "x div", h_cdiv, 0, TLM | B_TRITON},
    {"add", "x y sanitize_overflow?", sema_h_arith, 0, TL},
    {"sub", "x y sanitize_overflow?", sema_h_arith, 0, TL},
    {"mul", "x y sanitize_overflow?", sema_h_arith, 0, TL},
    {"to_tensor", "x", sema_h_to_tensor, 0, TL},
    {"swizzle2d", "i j size_i size_j size_g", h_swizzle2d, 0, TL},
    /* reductions */
    {"sum", "input axis? keep_dims? dtype?", h_sum, 0, TLM},
    {"max", "input axis? return_indices? return_indices_tie_break_left? keep_dims?", h_maxmin_reduce, 1, TLM},
    {"min", "input axis? return_indices? return_indices_tie_break_left? keep_dims?", h_maxmin_reduce, 0, TLM},
    {"argmax", "input axis tie_break_left? keep_dims?", h_argmaxmin, RED_ARGMAX, TLM},
    {"argmin", "input axis tie_break_left? keep_dims?", h_argmaxmin, RED_ARGMIN, TLM},
    /* scans, reductions with a combine function, sorting (sema_std.c) */
    {"associative_scan", "input axis combine_fn reverse?", sema_h_scan, 0, TLM},
    {"reduce", "input axis combine_fn keep_dims?", sema_h_reduce_fn, 0, TLM},
    {"map_elementwise", "scalar_fn *args pack?", sema_h_map_elementwise, 0, TL},
    {"cumsum", "input axis? reverse? dtype?", sema_h_cum, OP_ADD, TLM},
    {"cumprod", "input axis? reverse?", sema_h_cum, OP_MUL, TLM},
    {"xor_sum", "input axis? keep_dims?", sema_h_bitreduce, OP_BITXOR, TLM},
    {"reduce_or", "input axis keep_dims?", sema_h_bitreduce, OP_BITOR, TLM},
    {"histogram", "input num_bins mask?", sema_h_histogram, 0, TLM},
    {"gather", "src index axis", sema_h_gather, 0, TLM},
    {"sort", "x dim? descending?", sema_h_sort, 0, TLM},
    {"topk", "x k dim?", sema_h_topk, 0, TLM},
    {"flip", "x dim?", sema_h_flip, 0, TLM},
    /* random numbers (sema_std.c; aux: the RAND_* kind) */
    {"randint", "seed offset n_rounds?", sema_h_random, 0, TL},
    {"randint4x", "seed offset n_rounds?", sema_h_random, 1, TL},
    {"rand", "seed offset n_rounds?", sema_h_random, 2, TL},
    {"rand4x", "seed offsets n_rounds?", sema_h_random, 3, TL},
    {"randn", "seed offset n_rounds?", sema_h_random, 4, TL},
    {"randn4x", "seed offset n_rounds?", sema_h_random, 5, TL},
    {"philox", "seed c0 c1 c2 c3 n_rounds?", sema_h_philox, 0, TL},
    {"philox_impl", "c0 c1 c2 c3 k0 k1 n_rounds?", sema_h_philox_impl, 0, TL},
    {"uint_to_uniform_float", "x", sema_h_random_map, 0, TL},
    {"pair_uniform_to_normal", "u1 u2", sema_h_random_map, 0, TL},
    /* shape ops built from others (sema_std.c) */
    {"broadcast", "input other", sema_h_broadcast2, 0, TL},
    {"join", "a b", sema_h_join, 0, TL},
    {"split", "a", sema_h_split, 0, TLM},
    {"interleave", "a b", sema_h_interleave, 0, TL},
    {"cat", "input other can_reorder?", sema_h_cat, 0, TL},
    {"item", "input", sema_h_item, 0, TLM},
    /* shapes and types */
    {"broadcast_to", "input *shape", h_broadcast_to, 0, TLM},
    {"expand_dims", "input axis", h_expand_dims, 0, TLM},
    {"reshape", "input *shape can_reorder?", h_reshape, 0, TLM},
    {"view", "input *shape", h_reshape, 0, TLM},
    {"ravel", "input can_reorder?", h_reshape, 0, TLM},
    {"trans", "input *dims", h_permute, 0, TLM},
    {"permute", "input *dims", h_permute, 0, TLM},
    {"cast", "input dtype fp_downcast_rounding? bitcast?", h_cast, 0, TLM},
    {"logical_and", "input other", h_logical, OP_AND, B_METHOD},
    {"logical_or", "input other", h_logical, OP_OR, B_METHOD},
    {"to", "input dtype fp_downcast_rounding? bitcast?", h_cast, 0, B_METHOD},
    /* hints and debugging */
    {"multiple_of", "input values", h_hint, IR_MULTIPLE_OF, TL},
    {"max_contiguous", "input values", h_hint, IR_MAX_CONTIGUOUS, TL},
    {"max_constancy", "input values", h_hint, IR_MAX_CONSTANCY, TL},
    {"assume", "cond", sema_h_assume, 0, TL},
    /* triton.language.extra.cuda */
    {"num_threads", "", sema_h_cuda_const, 32, B_CUDA},
    {"num_warps", "", sema_h_cuda_const, 1, B_CUDA},
    {"smid", "", sema_h_intrinsic, DT_I32, B_CUDA},
    {"globaltimer", "", sema_h_intrinsic, DT_I64, B_CUDA},
    {"gdc_wait", "", sema_h_intrinsic, DT_VOID, B_CUDA},
    {"gdc_launch_dependents", "", sema_h_intrinsic, DT_VOID, B_CUDA},
    {"static_assert", "cond msg?", h_static_assert, 0, TL},
    {"static_print", "*values", h_static_print, 0, TL},
    {"device_print", "prefix *args hex?", h_device_print, 0, TL},
    {"device_assert", "cond msg? mask?", h_device_assert, 0, TL},
    {"debug_barrier", "", h_barrier, 0, TL},
    /* compile-time */
    {"constexpr", "value", h_constexpr, 0, TL},
    {"tensor", "*args", h_class, 0, TL},
    {"tuple", "args?", h_tl_tuple, 0, TL},
    {"constexpr_type", "value", sema_h_constexpr_type, 0, TL},
    {"dtype", "*args", h_class, 0, TL},
    {"pointer_type", "element_ty address_space?", h_pointer_type, 0, TL},
    {"static_range", "arg1 arg2? step?", h_not_here, 0, TL},
    {"range", "arg1 arg2? step? num_stages? loop_unroll_factor? disallow_acc_multi_buffer? flatten? "
              "warp_specialize? disable_licm?", h_not_here, 0, TL},
    {"condition", "arg1 disable_licm?", h_not_here, 0, TL},
    /* Python builtins (bare names only) */
    {"range", "arg1 arg2? arg3?", h_not_here, 0, B_PY},
    {"min", "*args", h_py_min, 0, B_PY},
    {"max", "*args", h_py_min, 1, B_PY},
    {"abs", "x", h_py_abs, 0, B_PY},
    {"tensor_descriptor", "*args", h_not_here, 0, TL},
    {"float", "x?", h_py_conv, 0, B_PY},
    {"int", "x?", h_py_conv, 0, B_PY},
    {"bool", "x?", h_py_conv, 0, B_PY},
    {"len", "x", h_py_len, 0, B_PY},
    {"isinstance", "obj classinfo", sema_h_isinstance, 0, B_PY},
    {"hasattr", "obj name", sema_h_hasattr, 0, B_PY},
    {"getattr", "obj name default?", sema_h_getattr, 0, B_PY},
    {"print", "*args", h_py_print, 0, B_PY},
    /* triton.* */
    {"Config", "kwargs num_warps? num_stages? num_ctas? maxnreg? pre_hook?", sema_h_config, 0, B_TRITON},
    {"next_power_of_2", "n", h_next_pow2, 0, B_TRITON},
    {"jit", "*args", h_not_here, 0, B_TRITON},
    {"autotune", "*args", h_not_here, 0, B_TRITON},
    {"heuristics", "*args", h_not_here, 0, B_TRITON},
    {"get_current_target", "", h_target, 0, B_DRIVER},
    {"is_cuda_backend", "", h_target_is, 0, B_DRIVER},
    {"is_hip_backend", "", h_target_is, 0, B_DRIVER},
};
enum { NBUILTINS = sizeof builtins / sizeof builtins[0] };

/* What Triton's triton.language has and tl does not implement yet (the one
 * list of it: a builtin added to the table above leaves this one). Naming one
 * is "not supported by tl yet", at tl.NAME, tl.math.NAME or as a tensor
 * method; it is never offered as a "did you mean". A libdevice function
 * missing from compiler/libdevice.c is reported the same way (sema.c). */
static const char *const unsupported[] = {
    /* fp8 types of AMD's GPUs */
    "float8e4b8", "float8e5b16",
};

void sema_suggest_unsupported(Suggest *sg) {
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        suggest_add(sg, unsupported[i]);
}

bool sema_builtin_unsupported(const char *name) {
    for (size_t i = 0; i < sizeof unsupported / sizeof unsupported[0]; i++)
        if (!strcmp(unsupported[i], name))
            return true;
    return false;
}

static const Builtin *find(const char *name, unsigned flags) {
    for (int i = 0; i < NBUILTINS; i++)
        if ((builtins[i].flags & flags) && !strcmp(builtins[i].name, name))
            return &builtins[i];
    return NULL;
}

const Builtin *sema_builtin_tl(const char *name) { return find(name, B_TL); }
const Builtin *sema_builtin_triton(const char *name) { return find(name, B_TRITON); }
const Builtin *sema_builtin_driver(const char *name) { return find(name, B_DRIVER); }
const Builtin *sema_builtin_cuda(const char *name) { return find(name, B_CUDA); }
const Builtin *sema_builtin_bare(const char *name) {
    const Builtin *b = find(name, B_PY);
    return b ? b : find(name, B_TL);
}
static const Builtin *builtin_method(const char *name) { return find(name, B_METHOD); }
bool sema_is_tensor_method(const char *name) { return builtin_method(name) || !strcmp(name, "to"); }

bool sema_builtin_is(const Builtin *bi, const char *name) { return bi && !strcmp(bi->name, name); }

void sema_suggest_builtins(Suggest *sg, unsigned flags) {
    for (int i = 0; i < NBUILTINS; i++)
        if (builtins[i].flags & flags)
            suggest_add(sg, builtins[i].name);
    if (flags & B_TL)
        sema_suggest_dtypes(sg);
}

/* ---- binding and calling ---- */

typedef struct BParam {
    char name[48];
    bool optional, varargs;
} BParam;

static int parse_params(const char *spec, BParam *ps) {
    int n = 0;
    const char *p = spec;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        BParam *q = &ps[n++];
        *q = (BParam){0};
        if (*p == '*') {
            q->varargs = true;
            p++;
        }
        size_t len = 0;
        while (p[len] && p[len] != ' ' && p[len] != '?')
            len++;
        memcpy(q->name, p, len < sizeof q->name ? len : sizeof q->name - 1);
        p += len;
        if (*p == '?') {
            q->optional = true;
            p++;
        }
    }
    return n;
}

void sema_bind_args(Sema *s, const Builtin *bi, Args *args, Span call, Val *vals, Span *sps) {
    BParam ps[B_MAX_PARAMS + 2];
    int np = parse_params(bi->params, ps);
    bool set[B_MAX_PARAMS + 2] = {0};
    for (int i = 0; i < np; i++) {
        vals[i] = (Val){.k = V_UNDEF};
        sps[i] = call;
    }
    int p = 0;
    for (int i = 0; i < args->npos;) {
        if (p >= np)
            sema_fail(s, args->pos_sp[i], "%s() takes %d positional argument%s but %d were given", bi->name, np,
                      np == 1 ? "" : "s", args->npos);
        if (ps[p].varargs) { /* collect the rest */
            vals[p] = sema_tuple(s, args->pos + i, args->npos - i);
            sps[p] = args->pos_sp[i];
            set[p++] = true;
            break;
        }
        vals[p] = args->pos[i];
        sps[p] = args->pos_sp[i];
        set[p++] = true;
        i++;
    }
    for (int k = 0; k < args->nkw; k++) {
        int j;
        for (j = 0; j < np && (ps[j].varargs || strcmp(ps[j].name, args->kw[k])); j++)
            ;
        if (j == np) {
            Suggest sg;
            suggest_init(&sg, args->kw[k]);
            for (j = 0; j < np; j++)
                if (!ps[j].varargs)
                    suggest_add(&sg, ps[j].name);
            sema_fail(s, args->kw_sp[k], "%s() got an unexpected keyword argument '%s'%s", bi->name, args->kw[k],
                      sema_did_you_mean(s, &sg));
        }
        if (set[j])
            sema_fail(s, args->kw_sp[k], "%s() got multiple values for argument '%s'", bi->name, args->kw[k]);
        vals[j] = args->kwv[k];
        sps[j] = args->kw_sp[k];
        set[j] = true;
    }
    for (int i = 0; i < np; i++) {
        if (set[i])
            continue;
        if (ps[i].varargs)
            vals[i] = sema_tuple(s, NULL, 0);
        else if (!ps[i].optional)
            sema_fail(s, call, "%s() missing required argument '%s'", bi->name, ps[i].name);
    }
}

Val sema_call_builtin(Sema *s, const Builtin *bi, Args *args, Span call) {
    Val vals[B_MAX_PARAMS + 2];
    Span sps[B_MAX_PARAMS + 2];
    sema_bind_args(s, bi, args, call, vals, sps);
    return bi->fn(s, bi, vals, sps, call);
}

/* x.name(args): dtype predicates, dict.get, tensor methods */
bool sema_method(Sema *s, Val recv, const char *name, Args *args, Span call, Val *out) {
    recv = sema_materialize(s, recv, call);
    if (sema_is_struct(recv))
        return sema_desc_method(s, recv, name, args, call, out);
    if (recv.k == V_DTYPE) {
        bool r;
        if (!sema_dtype_pred(recv.ty, name, &r))
            return false;
        if (args->npos || args->nkw)
            sema_fail(s, call, "dtype.%s() takes no arguments", name);
        *out = sema_bool(r);
        return true;
    }
    if (recv.k == V_DICT && !strcmp(name, "get")) {
        if (args->npos < 1 || args->npos > 2 || args->nkw || args->pos[0].k != V_STR)
            sema_fail(s, call, "dict.get() takes a string key and an optional default");
        for (int i = 0; i < recv.n; i++)
            if (!strcmp(recv.keys[i], args->pos[0].s)) {
                *out = recv.i == SEMA_DICT_ARGS ? sema_heur_arg(s, recv, i, call) : recv.items[i];
                return true;
            }
        *out = args->npos == 2 ? args->pos[1] : sema_none();
        return true;
    }
    if (recv.k == V_TENSOR || (sema_is_number(recv) && !strcmp(name, "to"))) {
        const Builtin *bi = builtin_method(name);
        if (!bi)
            return false;
        Args a = *args;
        a.npos = args->npos + 1;
        a.pos = arena_alloc(s->a, sizeof(Val) * (size_t)a.npos);
        a.pos_sp = arena_alloc(s->a, sizeof(Span) * (size_t)a.npos);
        a.pos[0] = recv;
        a.pos_sp[0] = call;
        for (int i = 0; i < args->npos; i++) {
            a.pos[i + 1] = args->pos[i];
            a.pos_sp[i + 1] = args->pos_sp[i];
        }
        *out = sema_call_builtin(s, bi, &a, call);
        return true;
    }
    return false;
}
