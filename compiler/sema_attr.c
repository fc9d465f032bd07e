/* sema_attr.c: attributes of compile-time and runtime values: a tensor's
 * dtype, shape, T, a dtype's names and predicates (x.dtype.is_floating(),
 * tl.float16.primitive_bitwidth), as Triton's core.py defines them; Python's
 * isinstance, hasattr and getattr over them. */
#include <string.h>

#include "sema_int.h"

#define T(t) sema_type_str(s, (t))

/* ---- attributes ---- */

static const char *triton_dtype_names[DT__COUNT] = {
    [DT_I1] = "int1",    [DT_I8] = "int8",      [DT_I16] = "int16",   [DT_I32] = "int32",
    [DT_I64] = "int64",  [DT_U8] = "uint8",     [DT_U16] = "uint16",  [DT_U32] = "uint32",
    [DT_U64] = "uint64", [DT_F16] = "float16",  [DT_BF16] = "bfloat16", [DT_F32] = "float32",
    [DT_F64] = "float64", [DT_F8E4NV] = "float8e4nv", [DT_F8E5] = "float8e5", [DT_F8E4B15] = "float8e4b15",
};

static const char *triton_short_names[DT__COUNT] = {
    [DT_I1] = "int1",   [DT_I8] = "int8",   [DT_I16] = "int16", [DT_I32] = "int32", [DT_I64] = "int64",
    [DT_U8] = "uint8",  [DT_U16] = "uint16", [DT_U32] = "uint32", [DT_U64] = "uint64", [DT_F16] = "fp16",
    [DT_BF16] = "bf16", [DT_F32] = "fp32",  [DT_F64] = "fp64",  [DT_F8E4NV] = "fp8e4nv", [DT_F8E5] = "fp8e5",
    [DT_F8E4B15] = "fp8e4b15",
};

const char *sema_dtype_name(DType d) {
    return d > DT_VOID && d < DT__COUNT && triton_short_names[d] ? triton_short_names[d] : "void";
}

bool sema_tl_dtype(const char *name, Type *out) {
    for (int d = DT_I1; d < DT_PTR; d++)
        if (triton_dtype_names[d] && !strcmp(triton_dtype_names[d], name)) {
            *out = ir_scalar((DType)d);
            return true;
        }
    return false;
}

void sema_suggest_dtypes(Suggest *sg) {
    for (int d = DT_I1; d < DT_PTR; d++)
        suggest_add(sg, triton_dtype_names[d]);
}

/* dtype.is_floating() and friends */
bool sema_dtype_pred(Type t, const char *name, bool *res) {
    DType d = (DType)t.dtype;
    static const struct { const char *name; DType dt; } exact[] = {
        {"is_int1", DT_I1},   {"is_bool", DT_I1},    {"is_int8", DT_I8},     {"is_int16", DT_I16},
        {"is_int32", DT_I32}, {"is_int64", DT_I64},  {"is_uint8", DT_U8},    {"is_uint16", DT_U16},
        {"is_uint32", DT_U32}, {"is_uint64", DT_U64}, {"is_fp16", DT_F16},   {"is_bf16", DT_BF16},
        {"is_fp32", DT_F32},  {"is_fp64", DT_F64},   {"is_fp8e4nv", DT_F8E4NV}, {"is_fp8e5", DT_F8E5},
        {"is_fp8e4b15", DT_F8E4B15},
    };
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (!strcmp(name, exact[i].name)) {
            *res = d == exact[i].dt;
            return true;
        }
    if (!strcmp(name, "is_floating"))
        *res = dt_is_fp(d);
    else if (!strcmp(name, "is_standard_floating"))
        *res = dt_is_float(d);
    else if (!strcmp(name, "is_int") || !strcmp(name, "is_integer_type"))
        *res = dt_is_int(d);
    else if (!strcmp(name, "is_int_signed"))
        *res = dt_is_signed(d);
    else if (!strcmp(name, "is_int_unsigned"))
        *res = dt_is_int(d) && !dt_is_signed(d);
    else if (!strcmp(name, "is_ptr"))
        *res = d == DT_PTR && !t.rank;
    else if (!strcmp(name, "is_block"))
        *res = t.rank > 0;
    else if (!strcmp(name, "is_fp8"))
        *res = dt_is_fp8(d);
    else
        return false;
    return true;
}

/* A value Triton holds as a tl.constexpr: a Python number (not one assigned
 * to a name, which is a tensor), str or None, or a tuple of them. */
static bool is_constexpr_value(Val v) {
    if (v.k == V_TUPLE) {
        for (int i = 0; i < v.n; i++)
            if (!is_constexpr_value(v.items[i]))
                return false;
        return true;
    }
    return (sema_is_number(v) && !v.as_tensor) || v.k == V_STR || v.k == V_NONE;
}

/* Triton's constexpr_type(v) (core.py): the type of the constexpr v. */
Val sema_constexpr_type(Sema *s, Val v) {
    Val t = {.k = V_DICT, .i = SEMA_DICT_CTYPE, .n = 1};
    t.keys = arena_alloc(s->a, sizeof(char *));
    t.items = arena_alloc(s->a, sizeof(Val));
    t.keys[0] = "value";
    t.items[0] = v;
    return t;
}

Val sema_h_constexpr_type(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (!is_constexpr_value(a[0]))
        sema_fail(s, sp[0], "constexpr_type takes a compile-time value, got %s", sema_describe(s, a[0]));
    return sema_constexpr_type(s, a[0]);
}

bool sema_value_attr(Sema *s, Val x, const char *name, Span sp, Val *out) {
    x = sema_materialize(s, x, sp);
    if (sema_is_struct(x))
        return sema_desc_attr(s, x, name, sp, out);
    if (x.k == V_TENSOR) {
        if (!strcmp(name, "dtype")) {
            *out = sema_dtype(ir_elem(x.ty));
        } else if (!strcmp(name, "shape")) {
            Val items[IR_MAX_RANK];
            for (int i = 0; i < x.ty.rank; i++)
                items[i] = sema_int(x.ty.shape[i]);
            *out = sema_tuple(s, items, x.ty.rank);
        } else if (!strcmp(name, "type")) { /* Triton's x.type: the dtype of a scalar, a block_type of a block */
            *out = sema_dtype(x.ty);
        } else if (!strcmp(name, "numel")) {
            *out = sema_int(ir_numel(x.ty));
        } else if (!strcmp(name, "T")) {
            if (x.ty.rank != 2)
                sema_fail(s, sp, ".T needs a 2D block, got %s", T(x.ty));
            int perm[2] = {1, 0};
            *out = sema_tensor(s, sema_permute(s, x.id, perm, 2, sp));
        } else {
            return false;
        }
        return true;
    }
    if (x.k == V_DTYPE && x.ty.rank) { /* a block_type, from x.type */
        if (!strcmp(name, "element_ty") || !strcmp(name, "scalar")) {
            *out = sema_dtype(ir_elem(x.ty));
        } else if (!strcmp(name, "shape")) {
            Val items[IR_MAX_RANK];
            for (int i = 0; i < x.ty.rank; i++)
                items[i] = sema_int(x.ty.shape[i]);
            *out = sema_tuple(s, items, x.ty.rank);
        } else if (!strcmp(name, "numel")) {
            *out = sema_int(ir_numel(x.ty));
        } else {
            return false;
        }
        return true;
    }
    if (x.k == V_TUPLE && x.keys) { /* a named tuple's field */
        for (int i = 0; i < x.n; i++)
            if (!strcmp(x.keys[i], name)) {
                *out = x.items[i];
                return true;
            }
    }
    if (!strcmp(name, "type") && is_constexpr_value(x)) { /* constexpr.type */
        *out = sema_constexpr_type(s, x);
        return true;
    }
    if (x.k == V_DICT && x.i == SEMA_DICT_CTYPE && !strcmp(name, "value")) {
        *out = x.items[0];
        return true;
    }
    if (x.k == V_DTYPE) {
        DType d = (DType)x.ty.dtype;
        if (!strcmp(name, "scalar")) {
            *out = x;
        } else if (!strcmp(name, "element_ty")) {
            if (d != DT_PTR)
                sema_fail(s, sp, "dtype %s has no attribute 'element_ty' (it is not a pointer type)", T(x.ty));
            *out = sema_dtype(ir_scalar((DType)x.ty.pointee));
        } else if (!strcmp(name, "primitive_bitwidth")) {
            *out = sema_int(dt_bits(d));
        } else if (!strcmp(name, "int_bitwidth") && dt_is_int(d)) {
            *out = sema_int(dt_bits(d));
        } else if (!strcmp(name, "name")) {
            const char *n = d == DT_PTR ? "pointer" : triton_short_names[d];
            *out = sema_str(s, n, (int)strlen(n));
        } else {
            return false;
        }
        return true;
    }
    return false;
}


/* ---- isinstance, hasattr, getattr ----
 *
 * Triton's code generator calls Python's own isinstance / hasattr / getattr
 * with the values inside constexprs unwrapped: isinstance(BLOCK, int) is
 * True for a constexpr int, isinstance(x, tl.constexpr) is False for every
 * x, a name assigned a number (`v = 1`) is a tl.tensor. The classes a kernel
 * can name: int, float, bool, tl.tensor, tl.dtype, tl.pointer_type,
 * tl.constexpr, tl.constexpr_type (a compile-time value's .type),
 * tl.tensor_descriptor. */

static bool is_instance(Sema *s, Val x, Val c, Span sp) {
    if (c.k == V_TUPLE) {
        for (int i = 0; i < c.n; i++)
            if (is_instance(s, x, c.items[i], sp))
                return true;
        return false;
    }
    const char *n = c.k == V_BUILTIN ? c.bi->name : NULL;
    bool num = sema_is_number(x) && !x.as_tensor;
    if (n && !strcmp(n, "int") && c.bi->flags & B_PY)
        return num && x.k != V_FLOAT; /* bool is an int, as in Python */
    if (n && !strcmp(n, "float") && c.bi->flags & B_PY)
        return num && x.k == V_FLOAT;
    if (n && !strcmp(n, "bool") && c.bi->flags & B_PY)
        return num && x.k == V_BOOL;
    if (n && !strcmp(n, "tensor") && c.bi->flags & B_TL)
        return x.k == V_TENSOR || (sema_is_number(x) && x.as_tensor);
    if (n && !strcmp(n, "dtype") && c.bi->flags & B_TL)
        return x.k == V_DTYPE;
    if (n && !strcmp(n, "constexpr") && c.bi->flags & B_TL)
        return false;
    if (n && !strcmp(n, "pointer_type") && c.bi->flags & B_TL) /* a pointer's dtype, as Triton's pointer_type */
        return x.k == V_DTYPE && x.ty.dtype == DT_PTR && !x.ty.rank;
    if (n && !strcmp(n, "tensor_descriptor") && c.bi->flags & B_TL) /* tutorial 06: a descriptor or a pointer */
        return x.k == V_TENSORDESC;
    if (n && !strcmp(n, "constexpr_type") && c.bi->flags & B_TL) /* a compile-time value's .type */
        return x.k == V_DICT && x.i == SEMA_DICT_CTYPE;
    sema_fail(s, sp, "isinstance's second argument must be a class (int, float, bool, tl.tensor, tl.dtype, "
                     "tl.pointer_type, tl.constexpr, tl.constexpr_type, tl.tensor_descriptor) or a tuple of them, "
                     "got %s",
              sema_describe(s, c));
}

Val sema_h_isinstance(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    return sema_bool(is_instance(s, a[0], a[1], sp[1]));
}

Val sema_h_hasattr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    const char *name = sema_need_str(s, a[1], sp[1], "hasattr(): attribute name");
    Val out;
    Val x = sema_materialize(s, a[0], sp[0]);
    if (x.k == V_TENSOR && sema_is_tensor_method(name))
        return sema_bool(true);
    if (x.k == V_DTYPE) { /* its predicates are methods (dtype.is_floating) */
        bool r;
        if (sema_dtype_pred(x.ty, name, &r))
            return sema_bool(true);
    }
    return sema_bool(sema_try_attr(s, x, name, call, &out));
}

Val sema_h_getattr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    const char *name = sema_need_str(s, a[1], sp[1], "getattr(): attribute name");
    Val out, x = sema_materialize(s, a[0], sp[0]);
    if (x.k == V_TENSOR && sema_is_tensor_method(name))
        sema_fail(s, sp[1], "getattr(x, '%s') of a tensor method is not supported; call x.%s(...)", name, name);
    if (a[2].k == V_UNDEF)
        return sema_eval_attr(s, x, name, call);
    return sema_try_attr(s, x, name, call, &out) ? out : a[2];
}
