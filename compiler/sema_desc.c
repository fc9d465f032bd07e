/* sema_desc.c: block pointers and tensor descriptors, lowered to pointer
 * blocks and masks.
 *
 * Triton has two ways to name a tile of a strided tensor instead of building
 * its pointers by hand:
 *
 *   p = tl.make_block_ptr(base, shape, strides, offsets, block_shape, order)
 *   x = tl.load(p, boundary_check=(0, 1), padding_option="zero")
 *   p = tl.advance(p, (0, BK))
 *
 *   d = tl.make_tensor_descriptor(base, shape, strides, block_shape)
 *   x = d.load([i, j])          # out of bounds: zero (TMA semantics)
 *   d.store([i, j], x)          # out of bounds: dropped
 *
 * plus descriptors made on the host (a `tensordesc<fp16[64, 32]>` parameter).
 * Here both are compile-time structs of runtime scalars, like tuples: a Val
 * of kind V_BLOCKPTR or V_TENSORDESC whose items are the fields below, each a
 * compile-time int or a runtime integer scalar (the base is always a runtime
 * pointer). Nothing of them exists in the IR; an access lowers at once to
 *
 *   ptrs = base + sum_d (off_d + arange(0, B_d)) * stride_d      (i64)
 *   mask = AND over checked d of (0 <= off_d + arange(0, B_d) < shape_d)
 *
 * with the scalar part (base + sum off_d * stride_d) computed once and the
 * per-element part (arange * stride, loop-invariant) beside it, so the
 * existing load / store ops, their vectorisation and the interpreter's bounds
 * checks apply unchanged. TMA comes later (docs/codegen.md).
 *
 * In loops and runtime ifs (sema.c), each runtime field of a struct is one
 * loop-carried value or one if result (sema_struct_leaves); compile-time
 * fields must stay the same. tl.advance changes only the offsets.
 *
 * Field layout (rank r = Val.n, items = Val.items, Val.i = number of items,
 * Val.ty = the pointer type of the elements):
 *   block pointer:     base, shape[r], strides[r], offsets[r] (i32 tensors),
 *                      block_shape[r] (ints), order[r] (ints)
 *   tensor descriptor: base, shape[r] (i32 or ints), strides[r] (the last the
 *                      int 1), block_shape[r] (ints), padding (int 0 = zero,
 *                      1 = nan, or an i1 tensor: a host descriptor's flag),
 *                      tmap (an int: the value number of a host descriptor's
 *                      tensor-map parameter; for one made in the kernel the i64
 *                      of its tensormap_create where TMA may copy its tiles
 *                      (SemaOptions.tensormaps), else 0) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema_int.h"
#include "tl.h"

/* Tensor descriptors have at most as many dims as the host's TlTensorDesc
 * holds (runtime/tl.h owns that number); blocks may have more. */
enum { DESC_MAX_RANK = (int)TL_TENSORDESC_MAX_RANK < (int)IR_MAX_RANK ? (int)TL_TENSORDESC_MAX_RANK : (int)IR_MAX_RANK };

#define T(t) sema_type_str(s, (t))
#define D(dt) sema_type_str(s, ir_scalar(dt))

#define BASE(v) ((v).items[0])
#define SHAPE(v, d) ((v).items[1 + (d)])
#define STRIDE(v, d) ((v).items[1 + (v).n + (d)])
#define OFFSET(v, d) ((v).items[1 + 2 * (v).n + (d)])      /* block pointers */
#define BP_BLOCK(v, d) ((v).items[1 + 3 * (v).n + (d)])
#define BP_ORDER(v, d) ((v).items[1 + 4 * (v).n + (d)])
#define TD_BLOCK(v, d) ((v).items[1 + 2 * (v).n + (d)])    /* tensor descriptors */
#define TD_PADDING(v) ((v).items[1 + 3 * (v).n])
#define TD_TMAP(v) ((v).items[2 + 3 * (v).n])       /* int: the tensor-map parameter's value, 0: none; or
                                                        an i64: the map the kernel made (make_map) */

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }
static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

static ValueId emit1(Sema *s, OpCode op, Type t, ValueId a, Span sp) { return sema_emit(s, op, t, &a, 1, sp); }
static ValueId emit2(Sema *s, OpCode op, Type t, ValueId a, ValueId b, Span sp) {
    ValueId args[2] = {a, b};
    return sema_emit(s, op, t, args, 2, sp);
}

static Val new_struct(Sema *s, VKind k, Type ptr, int rank) {
    Val v = {.k = k, .ty = ptr, .n = rank};
    v.i = k == V_BLOCKPTR ? 5 * rank + 1 : 3 * rank + 3;
    v.items = arena_alloc(s->a, sizeof(Val) * (size_t)v.i);
    memset(v.items, 0, sizeof(Val) * (size_t)v.i);
    return v;
}

static int block_dim(Val v, int d) { return (int)(v.k == V_BLOCKPTR ? BP_BLOCK(v, d) : TD_BLOCK(v, d)).i; }

/* The block type of the values a struct loads and stores. */
static Type block_type(Val v) {
    int32_t dims[IR_MAX_RANK];
    for (int d = 0; d < v.n; d++)
        dims[d] = block_dim(v, d);
    return ir_block(ir_scalar((DType)v.ty.pointee), v.n, dims);
}

/* ---- generic: the runtime fields of a struct (sema.c's loops and ifs) ---- */

bool sema_is_struct(Val v) { return v.k == V_BLOCKPTR || v.k == V_TENSORDESC; }

int sema_struct_leaves(Val v, ValueId *out) {
    int n = 0;
    for (int i = 0; i < v.i; i++)
        if (v.items[i].k == V_TENSOR) {
            if (out)
                out[n] = v.items[i].id;
            n++;
        }
    return n;
}

Val sema_struct_with(Sema *s, Val v, const ValueId *leaves) {
    Val r = v;
    r.items = arena_alloc(s->a, sizeof(Val) * (size_t)v.i);
    for (int i = 0, n = 0; i < v.i; i++)
        r.items[i] = v.items[i].k == V_TENSOR ? sema_tensor(s, leaves[n++]) : v.items[i];
    return r;
}

const char *sema_struct_mismatch(Sema *s, Val a, Val b) {
    if (!sema_is_struct(b) || a.k != b.k || a.n != b.n || a.ty.pointee != b.ty.pointee ||
        !ir_type_eq(block_type(a), block_type(b)))
        return "";
    for (int i = 0; i < a.i; i++) {
        Val x = a.items[i], y = b.items[i];
        if (x.k == V_TENSOR && y.k == V_TENSOR && ir_type_eq(x.ty, y.ty))
            continue;
        if (x.k != V_TENSOR && y.k != V_TENSOR && sema_const_eq(x, y))
            continue;
        return arena_printf(s->a, "a field changes from %s to %s (compile-time fields must stay the same, runtime "
                                  "ones keep their type)",
                            sema_describe(s, x), sema_describe(s, y));
    }
    return NULL;
}

void sema_struct_describe(Buf *b, Val v) {
    buf_puts(b, v.k == V_BLOCKPTR ? "block pointer to " : "tensor descriptor of ");
    Type t = block_type(v);
    ir_type_print(b, t);
    buf_puts(b, v.k == V_BLOCKPTR ? "" : " blocks");
}

/* ---- arguments ---- */

/* A list argument (tuple, list, or one value), of rank `want` unless it is -1. */
static const Val *list_arg(Sema *s, Val v, Span sp, const char *fn, const char *what, int want, int *n) {
    const Val *items = v.k == V_TUPLE ? v.items : arena_alloc(s->a, sizeof(Val));
    if (v.k != V_TUPLE)
        ((Val *)items)[0] = v;
    *n = v.k == V_TUPLE ? v.n : 1;
    if (want >= 0 && *n != want)
        sema_fail(s, sp, "%s: expected %d %s (one per dimension), got %d", fn, want, what, *n);
    return items;
}

/* shape / strides: a compile-time int stays one; a runtime value must be an
 * integer scalar and keeps its type (widened to i64 where it is used), one
 * narrower than 32 bits (a bool, an int8 argument) becoming an i32 first, as
 * Triton widens shapes and strides before any arithmetic on them. */
static Val int_field(Sema *s, Val v, Span sp, const char *fn, const char *what, int d) {
    if (v.k == V_INT || v.k == V_BOOL)
        return sema_int(v.i);
    if (v.k == V_TENSOR && !v.ty.rank && dt_is_int((DType)v.ty.dtype))
        return dt_bits((DType)v.ty.dtype) >= 32 ? v : sema_tensor(s, sema_cast(s, v.id, ir_scalar(DT_I32), sp));
    sema_fail(s, sp, "%s: %s[%d] must be an integer scalar, got %s", fn, what, d, sema_describe(s, v));
}

/* offsets: 32-bit, as in Triton: an int in range, or an integer tensor of at
 * most 32 bits (cast to i32). With `materialize`, ints become i32 constants
 * (a block pointer's offsets are always runtime: tl.advance changes them). */
static Val offset_field(Sema *s, Val v, Span sp, const char *fn, int d, bool materialize) {
    if (v.k == V_INT || v.k == V_BOOL) {
        if (v.i < INT32_MIN || v.i > INT32_MAX)
            sema_fail(s, sp, "%s: offset %lld is out of the 32-bit range block pointers and descriptors support", fn,
                      (long long)v.i);
        return materialize ? sema_tensor(s, sema_const_of(s, sema_int(v.i), ir_scalar(DT_I32), sp)) : sema_int(v.i);
    }
    if (v.k == V_TENSOR && !v.ty.rank && dt_is_int((DType)v.ty.dtype)) {
        if (dt_bits((DType)v.ty.dtype) > 32)
            sema_fail(s, sp, "%s: offsets are 32-bit, but offsets[%d] is %s; add a `.to(tl.int32)` or use regular "
                             "indexing for 64-bit offsets",
                      fn, d, sema_describe(s, v));
        return sema_tensor(s, sema_cast(s, v.id, ir_scalar(DT_I32), sp));
    }
    sema_fail(s, sp, "%s: offsets[%d] must be an integer scalar, got %s", fn, d, sema_describe(s, v));
}

/* block_shape: compile-time powers of two, within the block limits. */
static void block_shape_arg(Sema *s, const Val *items, int n, Span sp, const char *fn, int32_t *dims) {
    int64_t numel = 1;
    for (int d = 0; d < n; d++) {
        if (items[d].k != V_INT)
            sema_fail(s, sp, "%s: block_shape[%d] must be a compile-time int, got %s", fn, d,
                      sema_describe(s, items[d]));
        if (!is_pow2(items[d].i))
            sema_fail(s, sp, "%s: block_shape[%d] must be a power of 2, got %lld", fn, d, (long long)items[d].i);
        numel *= items[d].i > IR_MAX_NUMEL ? (int64_t)IR_MAX_NUMEL + 1 : items[d].i;
        if (numel > IR_MAX_NUMEL)
            sema_fail(s, sp, "%s: a block of %lld elements exceeds the maximum block size (%d)", fn,
                      (long long)numel, IR_MAX_NUMEL);
        dims[d] = (int32_t)items[d].i;
    }
}

static Val scalar_pointer(Sema *s, Val v, Span sp, const char *fn) {
    if (v.k != V_TENSOR || v.ty.dtype != DT_PTR || v.ty.rank)
        sema_fail(s, sp, "%s: `base` must be a scalar pointer (not a block of pointers, a block pointer or a "
                         "descriptor), got %s",
                  fn, sema_describe(s, v));
    return v;
}

/* Triton's padding_option: "" (nothing), "zero" or "nan"; -1 for "". */
static int padding_arg(Sema *s, Val v, Span sp, DType elem, const char *what) {
    if (!sema_given(v))
        return -1;
    sema_need_str(s, v, sp, "padding_option");
    if (!v.n)
        return -1;
    if (strcmp(v.s, "zero") && strcmp(v.s, "nan"))
        sema_fail(s, sp, "padding option '%s' is not supported (use \"zero\" or \"nan\")", v.s);
    if (!strcmp(v.s, "nan") && !dt_is_float(elem))
        sema_fail(s, sp, "padding option `nan` is not supported for integer %s", what);
    return v.s[0] == 'n';
}

/* boundary_check: distinct dims of the block, as Triton canonicalises it. */
static void boundary_check_arg(Sema *s, Val v, Span sp, int rank, bool *check) {
    for (int d = 0; d < rank; d++)
        check[d] = false;
    if (!sema_given(v) || (v.k == V_TUPLE && !v.n))
        return;
    int n;
    const Val *items = list_arg(s, v, sp, "boundary_check", "dims", -1, &n);
    for (int i = 0; i < n; i++) {
        if (items[i].k != V_INT || items[i].i < 0 || items[i].i >= rank)
            sema_fail(s, sp, "boundary_check: %s is not a dimension of a block of rank %d (0 to %d)",
                      sema_describe(s, items[i]), rank, rank - 1);
        if (check[items[i].i])
            sema_fail(s, sp, "duplicate dimension %lld in `boundary_check`", (long long)items[i].i);
        check[items[i].i] = true;
    }
}

/* ---- lowering an access ---- */

/* A scalar of i64 from an int or an integer scalar tensor (extended by its signedness). */
static ValueId as_i64(Sema *s, Val v, Span sp) {
    if (v.k != V_TENSOR)
        return sema_const_of(s, sema_int(v.i), ir_scalar(DT_I64), sp);
    return sema_cast(s, v.id, ir_scalar(DT_I64), sp);
}

static ValueId add_i64(Sema *s, ValueId acc, ValueId x, Span sp) {
    return acc ? emit2(s, IR_ADD, ir_scalar(DT_I64), acc, x, sp) : x;
}

/* Bring a 1-D block along dim d of a rank-r block to the full block type t. */
static ValueId along(Sema *s, ValueId v, int d, Type t, Span sp) {
    for (int k = 0; k < t.rank; k++)
        if (k != d)
            v = sema_expand_dims(s, v, k, sp);
    Type vt = ty_of(s, v);
    return sema_broadcast_to(s, v, ir_with_dtype(t, (DType)vt.dtype), sp);
}

typedef struct Access {
    int rank;
    Val base;                    /* scalar pointer */
    const Val *shape, *stride;   /* ints or integer scalar tensors, one per dim */
    Val off[IR_MAX_RANK];        /* ints or i32 scalar tensors */
    int32_t block[IR_MAX_RANK];
    bool check[IR_MAX_RANK];
} Access;

/* The pointer block of an access and, where a dim is checked, its mask (0
 * when none is). */
static void lower(Sema *s, const Access *a, ValueId *ptrs, ValueId *mask, Span sp) {
    Type pt = ir_block(a->base.ty, a->rank, a->block);
    Type it = ir_with_dtype(pt, DT_I64);
    /* the scalar part: base + sum off_d * stride_d, folded where both are ints */
    int64_t cst = 0;
    ValueId acc = 0;
    for (int d = 0; d < a->rank; d++) {
        Val o = a->off[d], st = a->stride[d];
        if (o.k != V_TENSOR && (o.i == 0 || (st.k != V_TENSOR && st.i == 0)))
            continue;
        if (o.k != V_TENSOR && st.k != V_TENSOR) {
            cst += o.i * st.i;
            continue;
        }
        ValueId x = as_i64(s, o, sp);
        if (st.k == V_TENSOR || st.i != 1)
            x = emit2(s, IR_MUL, ir_scalar(DT_I64), x, as_i64(s, st, sp), sp);
        acc = add_i64(s, acc, x, sp);
    }
    if (cst)
        acc = add_i64(s, acc, sema_const_of(s, sema_int(cst), ir_scalar(DT_I64), sp), sp);
    ValueId base = a->base.id;
    if (acc)
        base = emit2(s, IR_ADDPTR, a->base.ty, base, acc, sp);
    /* the per-element part: sum arange_d * stride_d */
    ValueId offs = 0;
    *mask = 0;
    for (int d = 0; d < a->rank; d++) {
        Type rt = ir_block(ir_scalar(DT_I32), 1, &a->block[d]);
        Inst *ar = sema_emit_inst(s, IR_ARANGE, NULL, 0, &rt, 1, sp);
        ar->attr.start = 0;
        ar->attr.end = a->block[d];
        ValueId r = ar->results[0];
        Val st = a->stride[d];
        if (a->block[d] > 1 && (st.k == V_TENSOR || st.i != 0)) {
            Type r64 = ir_with_dtype(rt, DT_I64);
            ValueId x = sema_cast(s, r, ir_scalar(DT_I64), sp);
            if (st.k == V_TENSOR || st.i != 1)
                x = emit2(s, IR_MUL, r64, x, emit1(s, IR_SPLAT, r64, as_i64(s, st, sp), sp), sp);
            x = along(s, x, d, it, sp);
            offs = offs ? emit2(s, IR_ADD, it, offs, x, sp) : x;
        }
        if (!a->check[d])
            continue;
        /* 0 <= off + i < shape, in i32 when the shape is 32-bit, else i64 */
        Val sh = a->shape[d], o = a->off[d];
        bool wide = sh.k == V_TENSOR ? !(sh.ty.dtype == DT_I32) : sh.i < INT32_MIN || sh.i > INT32_MAX;
        DType ct = wide ? DT_I64 : DT_I32;
        Type bt = ir_with_dtype(rt, ct);
        ValueId idx = sema_cast(s, r, ir_scalar(ct), sp);
        if (o.k == V_TENSOR || o.i) {
            ValueId ov = o.k == V_TENSOR ? sema_cast(s, o.id, ir_scalar(ct), sp)
                                         : sema_const_of(s, sema_int(o.i), ir_scalar(ct), sp);
            idx = emit2(s, IR_ADD, bt, idx, emit1(s, IR_SPLAT, bt, ov, sp), sp);
        }
        ValueId shv = sh.k == V_TENSOR ? sema_cast(s, sh.id, ir_scalar(ct), sp)
                                       : sema_const_of(s, sema_int(sh.i), ir_scalar(ct), sp);
        Type mt = ir_with_dtype(rt, DT_I1);
        ValueId m = emit2(s, IR_CMP, mt, idx, emit1(s, IR_SPLAT, bt, shv, sp), sp);
        s->f->values[m].def->attr.pred = CMP_LT;
        if (o.k == V_TENSOR || o.i < 0) { /* a compile-time offset >= 0 needs no lower bound */
            ValueId z = emit1(s, IR_SPLAT, bt, sema_const_of(s, sema_int(0), ir_scalar(ct), sp), sp);
            ValueId lo = emit2(s, IR_CMP, mt, idx, z, sp);
            s->f->values[lo].def->attr.pred = CMP_GE;
            m = emit2(s, IR_AND, mt, lo, m, sp);
        }
        m = along(s, m, d, ir_with_dtype(pt, DT_I1), sp);
        *mask = *mask ? emit2(s, IR_AND, ir_with_dtype(pt, DT_I1), *mask, m, sp) : m;
    }
    *ptrs = emit1(s, IR_SPLAT, pt, base, sp);
    if (offs)
        *ptrs = emit2(s, IR_ADDPTR, pt, *ptrs, offs, sp);
}

/* The value of out-of-bounds elements: 0, NaN, or (a host descriptor's
 * runtime flag) either. */
static ValueId padding_value(Sema *s, Val pad, DType elem, Span sp) {
    Type et = ir_scalar(elem);
    ValueId zero = sema_const_of(s, sema_int(0), et, sp);
    if (pad.k != V_TENSOR)
        return pad.i == 1 ? sema_const_of(s, sema_float(NAN), et, sp) : zero;
    ValueId nan = sema_const_of(s, sema_float(NAN), et, sp);
    ValueId args[3] = {pad.id, nan, zero};
    return sema_emit(s, IR_SELECT, et, args, 3, sp);
}

/* A 2-D tile of a host descriptor: its pointers go through desc_tile, which
 * tells the pipeliner which tensor map and coordinates they are (TMA on
 * sm_90, compiler/pipeline.c); everywhere else it is the identity. */
static ValueId tile_of_map(Sema *s, const Access *a, ValueId ptrs, int tmap, Span sp) {
    if (!tmap || a->rank != 2)
        return ptrs;
    ValueId args[4] = {ptrs, (ValueId)tmap, 0, 0};
    for (int d = 0; d < 2; d++) {
        Val o = a->off[d];
        args[2 + d] = o.k == V_TENSOR ? sema_cast(s, o.id, ir_scalar(DT_I32), sp)
                                      : sema_const_of(s, sema_int(o.i), ir_scalar(DT_I32), sp);
    }
    return sema_emit(s, IR_DESC_TILE, ty_of(s, ptrs), args, 4, sp);
}

static ValueId emit_load(Sema *s, const Access *a, int padding, Val pad, int tmap, Span sp) {
    ValueId ptrs, mask;
    lower(s, a, &ptrs, &mask, sp);
    ptrs = tile_of_map(s, a, ptrs, tmap, sp);
    DType elem = (DType)a->base.ty.pointee;
    ValueId args[3] = {ptrs, mask, 0};
    int nargs = 1 + (mask != 0);
    bool has_other = mask && (padding >= 0 || pad.k == V_TENSOR);
    if (has_other) {
        ValueId o = padding_value(s, padding >= 0 ? sema_int(padding) : pad, elem, sp);
        args[nargs++] = emit1(s, IR_SPLAT, ir_with_dtype(ty_of(s, ptrs), elem), o, sp);
    }
    Type rt = ir_with_dtype(ty_of(s, ptrs), elem);
    Inst *in = sema_emit_inst(s, IR_LOAD, args, nargs, &rt, 1, sp);
    in->attr.has_mask = mask != 0;
    in->attr.has_other = has_other;
    return in->results[0];
}

static Inst *emit_store(Sema *s, const Access *a, ValueId val, int tmap, Span sp) {
    ValueId ptrs, mask;
    lower(s, a, &ptrs, &mask, sp);
    ptrs = tile_of_map(s, a, ptrs, tmap, sp);
    ValueId args[3] = {ptrs, val, mask};
    Inst *in = sema_emit_inst(s, IR_STORE, args, 2 + (mask != 0), NULL, 0, sp);
    in->attr.has_mask = mask != 0;
    return in;
}

/* ---- block pointers ---- */

Val sema_h_make_block_ptr(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    const char *fn = "tl.make_block_ptr";
    Val base = scalar_pointer(s, a[0], sp[0], fn);
    int r, n;
    const Val *bs = list_arg(s, a[4], sp[4], fn, "block dims", -1, &r);
    if (r < 1 || r > IR_MAX_RANK)
        sema_fail(s, sp[4], "%s: block pointers of rank %d are not supported (1 to %d dimensions)", fn, r,
                  IR_MAX_RANK);
    const Val *shape = list_arg(s, a[1], sp[1], fn, "shape entries", r, &n);
    const Val *strides = list_arg(s, a[2], sp[2], fn, "strides", r, &n);
    const Val *offs = list_arg(s, a[3], sp[3], fn, "offsets", r, &n);
    const Val *order = list_arg(s, a[5], sp[5], fn, "order entries", r, &n);
    int32_t dims[IR_MAX_RANK];
    block_shape_arg(s, bs, r, sp[4], fn, dims);
    bool seen[IR_MAX_RANK] = {false};
    for (int d = 0; d < r; d++) {
        if (order[d].k != V_INT || order[d].i < 0 || order[d].i >= r || seen[order[d].i])
            sema_fail(s, sp[5], "%s: order must be a permutation of 0 .. %d, got %s", fn, r - 1,
                      sema_describe(s, a[5]));
        seen[order[d].i] = true;
    }
    /* pointers to int1 address bytes: the block is int8 (as in Triton) */
    if (base.ty.pointee == DT_I1)
        base = sema_tensor(s, sema_cast(s, base.id, ir_ptr(DT_I8), sp[0]));
    Val p = new_struct(s, V_BLOCKPTR, base.ty, r);
    BASE(p) = base;
    for (int d = 0; d < r; d++) {
        SHAPE(p, d) = int_field(s, shape[d], sp[1], fn, "shape", d);
        STRIDE(p, d) = int_field(s, strides[d], sp[2], fn, "strides", d);
        OFFSET(p, d) = offset_field(s, offs[d], sp[3], fn, d, true);
        BP_BLOCK(p, d) = sema_int(dims[d]);
        BP_ORDER(p, d) = sema_int(order[d].i);
    }
    return p;
}

Val sema_h_advance(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (a[0].k != V_BLOCKPTR)
        sema_fail(s, sp[0], "tl.advance expects a block pointer (made by tl.make_block_ptr), got %s",
                  sema_describe(s, a[0]));
    Val p = a[0];
    int n;
    const Val *offs = list_arg(s, a[1], sp[1], "tl.advance", "offsets", p.n, &n);
    Val q = p;
    q.items = arena_alloc(s->a, sizeof(Val) * (size_t)p.i);
    memcpy(q.items, p.items, sizeof(Val) * (size_t)p.i);
    for (int d = 0; d < p.n; d++) {
        Val o = offset_field(s, offs[d], sp[1], "tl.advance", d, false);
        if (o.k != V_TENSOR && o.i == 0)
            continue;
        ValueId ov = o.k == V_TENSOR ? o.id : sema_const_of(s, o, ir_scalar(DT_I32), sp[1]);
        OFFSET(q, d) = sema_tensor(s, emit2(s, IR_ADD, ir_scalar(DT_I32), OFFSET(p, d).id, ov, sp[1]));
    }
    return q;
}

static Access bp_access(Val p) {
    Access a = {.rank = p.n, .base = BASE(p), .shape = &SHAPE(p, 0), .stride = &STRIDE(p, 0)};
    for (int d = 0; d < p.n; d++) {
        a.off[d] = OFFSET(p, d);
        a.block[d] = (int32_t)BP_BLOCK(p, d).i;
    }
    return a;
}

/* tl.load(p, boundary_check=..., padding_option=...) on a block pointer (the
 * arguments of h_load in sema_ops.c). */
Val sema_blockptr_load(Sema *s, Val *a, const Span *sp, Span call) {
    if (sema_given(a[1]) || sema_given(a[2]))
        sema_fail(s, sema_given(a[1]) ? sp[1] : sp[2], "`mask` and `other` arguments cannot be specified for loading "
                                                  "block pointers (use boundary_check and padding_option)");
    Val p = a[0];
    DType elem = (DType)p.ty.pointee;
    int padding = padding_arg(s, a[4], sp[4], elem, "block pointers");
    Access acc = bp_access(p);
    boundary_check_arg(s, a[3], sp[3], p.n, acc.check);
    ValueId r = emit_load(s, &acc, padding, sema_int(0), 0, call);
    Inst *in = s->f->values[r].def;
    in->attr.is_volatile = sema_opt_bool(s, a[7], sp[7], false, "volatile");
    sema_mem_hints(s, in, a[5], sp[5], a[6], sp[6], true);
    return sema_tensor(s, r);
}

/* A value to store into a block of type bt: a number takes the element type,
 * a scalar is splat; a block must have the block's shape. */
static ValueId store_value(Sema *s, Val v, Type bt, Span sp, const char *what, bool exact_dtype) {
    DType elem = (DType)bt.dtype;
    if (sema_is_number(v))
        return emit1(s, IR_SPLAT, bt, sema_const_of(s, v, ir_scalar(elem), sp), sp);
    if (v.k != V_TENSOR)
        sema_fail(s, sp, "%s: the value must be a tensor or a number, got %s", what, sema_describe(s, v));
    if (v.ty.rank && (v.ty.rank != bt.rank || memcmp(v.ty.shape, bt.shape, sizeof(int32_t) * (size_t)bt.rank)))
        sema_fail(s, sp, "%s: the value %s does not have the block's shape %s", what, T(v.ty), T(bt));
    if (exact_dtype && v.ty.dtype != elem)
        sema_fail(s, sp, "%s: the value's element type %s is not the block's %s (convert it with .to())", what,
                  D(v.ty.dtype), D(elem));
    ValueId x = sema_cast(s, v.id, ir_scalar(elem), sp);
    return v.ty.rank ? x : emit1(s, IR_SPLAT, bt, x, sp);
}

Val sema_blockptr_store(Sema *s, Val *a, const Span *sp, Span call) {
    if (sema_given(a[2]))
        sema_fail(s, sp[2], "the `mask` argument cannot be specified for storing to block pointers (use "
                            "boundary_check)");
    Val p = a[0];
    Access acc = bp_access(p);
    boundary_check_arg(s, a[3], sp[3], p.n, acc.check);
    ValueId v = store_value(s, a[1], block_type(p), sp[1], "tl.store to a block pointer", true);
    sema_mem_hints(s, emit_store(s, &acc, v, 0, call), a[4], sp[4], a[5], sp[5], false);
    return sema_none();
}

/* ---- tensor descriptors ---- */

/* Triton requires a descriptor's strides but the last to be multiples of 16
 * bytes (TMA's rule, which its host descriptors check). A runtime stride
 * states it twice: an assume the interpreter checks (an error naming the
 * rule, not a wrong tile) and a multiple_of the axis analysis reads, so the
 * rows of a tile load as 16-byte vectors and the pipeliner can ring them. A
 * compile-time stride that breaks the rule is a source error. */
static Val aligned_stride(Sema *s, Val st, int k, int d, Span sp, const char *fn) {
    if (st.k != V_TENSOR) {
        if (st.i % k)
            sema_fail(s, sp, "%s: strides[%d] = %lld is not a multiple of 16 bytes (%d elements)", fn, d,
                      (long long)st.i, k);
        return st;
    }
    Type t = ty_of(s, st.id), i1 = ir_scalar(DT_I1);
    ValueId rem = emit2(s, IR_REM, t, st.id, sema_const_of(s, sema_int(k), t, sp), sp);
    ValueId ok = emit2(s, IR_CMP, i1, rem, sema_const_of(s, sema_int(0), t, sp), sp);
    s->f->values[ok].def->attr.pred = CMP_EQ;
    Inst *as = sema_emit_inst(s, IR_ASSUME, &ok, 1, NULL, 0, sp);
    Buf msg = {0};
    buf_printf(&msg, "%s: strides[%d] is not a multiple of 16 bytes (%d elements)", fn, d, k);
    as->attr.str = arena_strdup(s->f->arena, msg.data ? msg.data : "");
    buf_free(&msg);
    ValueId m = emit1(s, IR_MULTIPLE_OF, t, st.id, sp);
    s->f->values[m].def->attr.vals[0] = k;
    return sema_tensor(s, m);
}

/* A scalar field (an int or a runtime integer) as a value of dtype dt. */
static ValueId field_as(Sema *s, Val v, DType dt, Span sp) {
    return v.k == V_TENSOR ? sema_cast(s, v.id, ir_scalar(dt), sp) : sema_const_of(s, sema_int(v.i), ir_scalar(dt), sp);
}

/* The TMA map of 2-D descriptor t, made by the program (tensormap_create):
 * its tiles' loads may then be TMA copies as a host descriptor's are
 * (pipeline.c); one nothing copies through goes again (tma.c tma_prune). */
static ValueId make_map(Sema *s, Val t, bool nan, Span sp) {
    ValueId args[4] = {BASE(t).id, field_as(s, SHAPE(t, 0), DT_I32, sp), field_as(s, SHAPE(t, 1), DT_I32, sp),
                       field_as(s, STRIDE(t, 0), DT_I64, sp)};
    ValueId m = sema_emit(s, IR_TMAP_CREATE, ir_scalar(DT_I64), args, 4, sp);
    Inst *in = s->f->values[m].def;
    in->attr.vals[0] = TD_BLOCK(t, 0).i, in->attr.vals[1] = TD_BLOCK(t, 1).i;
    in->attr.nan = nan;
    in->attr.offset = -1;
    return m;
}

/* The tensor map a descriptor's tiles go through: a host descriptor's
 * parameter, the one the kernel made, or 0 (none). */
static int map_of(Val t) { return TD_TMAP(t).k == V_TENSOR ? TD_TMAP(t).id : (int)TD_TMAP(t).i; }

Val sema_h_make_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    const char *fn = "tl.make_tensor_descriptor";
    Val base = scalar_pointer(s, a[0], sp[0], fn);
    int r, n;
    const Val *shape = list_arg(s, a[1], sp[1], fn, "shape entries", -1, &r);
    if (r < 1 || r > DESC_MAX_RANK)
        sema_fail(s, sp[1], "%s: descriptors of rank %d are not supported (1 to %d dimensions)", fn, r, DESC_MAX_RANK);
    const Val *strides = list_arg(s, a[2], sp[2], fn, "strides", r, &n);
    const Val *bs = list_arg(s, a[3], sp[3], fn, "block dims", r, &n);
    int32_t dims[IR_MAX_RANK];
    block_shape_arg(s, bs, r, sp[3], fn, dims);
    DType elem = (DType)base.ty.pointee;
    int esize = elem == DT_I1 ? 1 : dt_bits(elem) / 8;
    if ((int64_t)dims[r - 1] * esize < 16)
        sema_fail(s, sp[3], "Descriptor block shape must have at least 16 bytes in the last dimension, but got "
                            "%d * %d = %d bytes (%s)", /* Triton's words */
                  dims[r - 1], esize, dims[r - 1] * esize, fn);
    if (strides[r - 1].k != V_INT || strides[r - 1].i != 1)
        sema_fail(s, sp[2], "%s: the last stride must be the constant 1 (the last dimension contiguous), got %s", fn,
                  sema_describe(s, strides[r - 1]));
    int padding = padding_arg(s, a[4], sp[4], elem, "blocks");
    if (elem == DT_I1)
        base = sema_tensor(s, sema_cast(s, base.id, ir_ptr(DT_I8), sp[0]));
    Val t = new_struct(s, V_TENSORDESC, base.ty, r);
    BASE(t) = base;
    for (int d = 0; d < r; d++) {
        Val sh = int_field(s, shape[d], sp[1], fn, "shape", d);
        if (sh.k == V_TENSOR)
            sh = sema_tensor(s, sema_cast(s, sh.id, ir_scalar(DT_I32), sp[1]));
        else if (sh.i < INT32_MIN || sh.i > INT32_MAX)
            sema_fail(s, sp[1], "%s: shape[%d] = %lld is out of the 32-bit range", fn, d, (long long)sh.i);
        SHAPE(t, d) = sh;
        STRIDE(t, d) = int_field(s, strides[d], sp[2], fn, "strides", d);
        TD_BLOCK(t, d) = sema_int(dims[d]);
        if (d < r - 1)
            STRIDE(t, d) = aligned_stride(s, STRIDE(t, d), 16 / esize, d, sp[2], fn);
    }
    /* the base too is 16-byte aligned (Triton's rule; a descriptor made
     * here reads as a host one does, in 16-byte vectors) */
    ValueId b16 = emit1(s, IR_MULTIPLE_OF, base.ty, base.id, sp[0]);
    s->f->values[b16].def->attr.vals[0] = 16;
    BASE(t) = sema_tensor(s, b16);
    TD_PADDING(t) = sema_int(padding == 1);
    TD_TMAP(t) = sema_int(0);
    if (s->opt->tensormaps && r == 2 && (esize == 1 || esize == 2 || esize == 4) && dims[0] <= 256 && dims[1] <= 256)
        TD_TMAP(t) = sema_tensor(s, make_map(s, t, padding == 1, sp[0]));
    return t;
}

static Access td_access(Sema *s, Val t, Val offsets, Span sp, const char *fn) {
    int n;
    const Val *offs = list_arg(s, offsets, sp, fn, "offsets", t.n, &n);
    Access a = {.rank = t.n, .base = BASE(t), .shape = &SHAPE(t, 0), .stride = &STRIDE(t, 0)};
    for (int d = 0; d < t.n; d++) {
        a.off[d] = offset_field(s, offs[d], sp, fn, d, false);
        a.block[d] = (int32_t)TD_BLOCK(t, d).i;
        a.check[d] = true; /* TMA: reads out of bounds give the padding, writes there are dropped */
    }
    return a;
}

static Val need_desc(Sema *s, Val v, Span sp, const char *fn) {
    if (v.k != V_TENSORDESC)
        sema_fail(s, sp, "%s expects a tensor descriptor, got %s", fn, sema_describe(s, v));
    return v;
}

static Val desc_load(Sema *s, Val t, Val offsets, Span osp, Span call, const char *fn) {
    Access acc = td_access(s, t, offsets, osp, fn);
    return sema_tensor(s, emit_load(s, &acc, -1, TD_PADDING(t), map_of(t), call));
}

static Val desc_store(Sema *s, Val t, Val offsets, Val value, Span osp, Span vsp, Span call, const char *fn) {
    Access acc = td_access(s, t, offsets, osp, fn);
    Type bt = block_type(t);
    if (value.k != V_TENSOR || !value.ty.rank)
        sema_fail(s, vsp, "%s: the value must be a block of the descriptor's block shape %s, got %s", fn, T(bt),
                  sema_describe(s, value));
    ValueId v = store_value(s, value, bt, vsp, fn, false);
    emit_store(s, &acc, v, map_of(t), call);
    return sema_none();
}

Val sema_h_load_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val t = need_desc(s, a[0], sp[0], "tl.load_tensor_descriptor");
    return desc_load(s, t, a[1], sp[1], call, "tl.load_tensor_descriptor");
}

Val sema_h_store_tensor_descriptor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val t = need_desc(s, a[0], sp[0], "tl.store_tensor_descriptor");
    return desc_store(s, t, a[1], a[2], sp[1], sp[2], call, "tl.store_tensor_descriptor");
}

/* desc.atomic_add(offsets, value) and friends: TMA's reductions, here
 * masked atomics whose old values are dropped. The dtypes are Triton's:
 * f16 / bf16 max and min only with native TMA (sm_90 and later, when the
 * arch is known), as Triton's _descriptor_atomic_min_max_supported. */
static void desc_atomic(Sema *s, Val t, int kind, const char *name, Args *args, Span call) {
    DType elem = (DType)t.ty.pointee;
    bool ints = elem == DT_I32 || elem == DT_U32 || elem == DT_I64 || elem == DT_U64;
    bool half = elem == DT_F16 || elem == DT_BF16;
    bool ok = kind == RMW_ADD                    ? (ints && elem != DT_I64) || elem == DT_F32 || half
              : kind == RMW_MAX || kind == RMW_MIN ? ints || half
                                                   : ints;
    if (!ok)
        sema_fail(s, call, "desc.%s does not support %s elements", name, D(elem));
    if (half && kind != RMW_ADD && s->opt->arch && s->opt->arch < 90)
        sema_fail(s, call, "desc.%s of %s elements needs native TMA (sm_90 or later)", name, D(elem));
    if (args->npos != 2 || args->nkw)
        sema_fail(s, call, "desc.%s takes the offsets and the value", name);
    Access acc = td_access(s, t, args->pos[0], args->pos_sp[0], name);
    Type bt = block_type(t);
    Val value = args->pos[1];
    if (value.k != V_TENSOR || !value.ty.rank)
        sema_fail(s, args->pos_sp[1], "desc.%s: the value must be a block of the descriptor's block shape %s, got %s",
                  name, T(bt), sema_describe(s, value));
    ValueId v = store_value(s, value, bt, args->pos_sp[1], name, false);
    ValueId ptrs, mask;
    lower(s, &acc, &ptrs, &mask, call);
    ValueId ops[3] = {ptrs, v, mask};
    Inst *in = sema_emit_inst(s, IR_ATOMIC_RMW, ops, 3, &bt, 1, call);
    in->attr.rmw = kind;
    in->attr.has_mask = true;
}

bool sema_desc_method(Sema *s, Val recv, const char *name, Args *args, Span call, Val *out) {
    if (recv.k == V_BLOCKPTR && !strcmp(name, "advance")) { /* Triton's p.advance(offsets) */
        if (args->npos + args->nkw != 1 || (args->nkw && strcmp(args->kw[0], "offsets")))
            sema_fail(s, call, "advance() takes the offsets");
        Val a[2] = {recv, args->npos ? args->pos[0] : args->kwv[0]};
        Span sp[2] = {call, args->npos ? args->pos_sp[0] : args->kw_sp[0]};
        *out = sema_h_advance(s, NULL, a, sp, call);
        return true;
    }
    if (recv.k != V_TENSORDESC)
        return false;
    static const struct { const char *name; int kind; } atomics[] = {
        {"atomic_add", RMW_ADD}, {"atomic_min", RMW_MIN}, {"atomic_max", RMW_MAX},
        {"atomic_and", RMW_AND}, {"atomic_or", RMW_OR},   {"atomic_xor", RMW_XOR},
    };
    if (!strcmp(name, "load") || !strcmp(name, "store")) {
        bool st = name[0] == 's';
        /* desc.load(offsets), desc.store(offsets, value); keywords as Triton names them */
        Val pos[2] = {{.k = V_UNDEF}, {.k = V_UNDEF}};
        Span psp[2] = {call, call};
        for (int i = 0; i < args->npos; i++) {
            if (i >= 1 + st)
                sema_fail(s, call, "desc.%s takes %s", name, st ? "the offsets and the value" : "the offsets");
            pos[i] = args->pos[i], psp[i] = args->pos_sp[i];
        }
        for (int i = 0; i < args->nkw; i++) {
            int k = !strcmp(args->kw[i], "offsets") ? 0 : st && !strcmp(args->kw[i], "value") ? 1 : -1;
            if (k < 0 && (!strcmp(args->kw[i], "cache_modifier") || !strcmp(args->kw[i], "eviction_policy")))
                continue; /* hints, ignored as for tl.load */
            if (k < 0 || pos[k].k != V_UNDEF)
                sema_fail(s, args->kw_sp[i], "desc.%s got an unexpected keyword argument '%s'", name, args->kw[i]);
            pos[k] = args->kwv[i], psp[k] = args->kw_sp[i];
        }
        if (pos[0].k == V_UNDEF || (st && pos[1].k == V_UNDEF))
            sema_fail(s, call, "desc.%s takes %s", name, st ? "the offsets and the value" : "the offsets");
        *out = st ? desc_store(s, recv, pos[0], pos[1], psp[0], psp[1], call, "desc.store")
                  : desc_load(s, recv, pos[0], psp[0], call, "desc.load");
        return true;
    }
    for (size_t i = 0; i < sizeof atomics / sizeof atomics[0]; i++)
        if (!strcmp(name, atomics[i].name)) {
            desc_atomic(s, recv, atomics[i].kind, name, args, call);
            *out = sema_none();
            return true;
        }
    if (!strcmp(name, "gather") || !strcmp(name, "scatter"))
        sema_fail(s, call, "desc.%s (TMA gather/scatter) is not supported by tl yet", name);
    return false;
}

/* A descriptor's attributes (Triton's tensor_descriptor has them; a block
 * pointer is a pointer tensor there, with no useful ones). */
bool sema_desc_attr(Sema *s, Val x, const char *name, Span sp, Val *out) {
    (void)sp;
    if (x.k != V_TENSORDESC)
        return false;
    Val items[IR_MAX_RANK];
    if (!strcmp(name, "dtype")) {
        *out = sema_dtype(ir_scalar((DType)x.ty.pointee));
        return true;
    }
    if (!strcmp(name, "block_shape")) {
        for (int d = 0; d < x.n; d++)
            items[d] = sema_int(block_dim(x, d));
        *out = sema_tuple(s, items, x.n);
        return true;
    }
    if (!strcmp(name, "shape") || !strcmp(name, "strides")) {
        for (int d = 0; d < x.n; d++)
            items[d] = name[1] == 'h' ? SHAPE(x, d) : STRIDE(x, d);
        *out = sema_tuple(s, items, x.n);
        return true;
    }
    return false;
}

/* ---- descriptors from the host: a `tensordesc<fp16[64, 32]>` parameter ---- */

bool sema_desc_entry(const char *entry) { return entry && !strncmp(entry, "tensordesc<", 11); }

/* Parse "tensordesc<DTYPE[B0, B1, ...]>" with tl's optional ":16" (every
 * shape dim a multiple of 16, as the launch specialises); false if malformed. */
static bool parse_entry(const char *e, DType *elem, int *rank, int32_t *block, int *hint) {
    const char *p = e + 11, *lb = strchr(p, '[');
    if (!lb)
        return false;
    char name[16];
    size_t len = (size_t)(lb - p);
    while (len && p[len - 1] == ' ')
        len--;
    if (!len || len >= sizeof name)
        return false;
    memcpy(name, p, len);
    name[len] = 0;
    Type t;
    if (!sema_dtype_by_name(name, &t) || t.dtype == DT_PTR || t.dtype == DT_VOID)
        return false;
    *elem = (DType)t.dtype;
    *rank = 0;
    p = lb + 1;
    for (;;) {
        while (*p == ' ')
            p++;
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p || *rank >= DESC_MAX_RANK || v < 1 || v > IR_MAX_NUMEL)
            return false;
        block[(*rank)++] = (int32_t)v;
        p = end;
        while (*p == ' ')
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p != ']')
            return false;
        p++;
        break;
    }
    while (*p == ' ')
        p++;
    *hint = p[0] == '>' && !strcmp(p + 1, ":16") ? 16 : 0;
    return p[0] == '>' && (!p[1] || *hint);
}

Val sema_desc_param(Sema *s, const char *pname, const char *entry, Span sp, DType *elem, int *rank, int32_t *block,
                    int *hint) {
    if (!parse_entry(entry, elem, rank, block, hint))
        sema_fail(s, sp, "bad tensor descriptor type '%s' in the signature for parameter '%s' (expected "
                         "tensordesc<DTYPE[B0, B1, ...]>, 1 to %d block dims, as in tensordesc<fp16[64, 32]>)",
                  entry, pname, DESC_MAX_RANK);
    Val bs[IR_MAX_RANK];
    for (int d = 0; d < *rank; d++)
        bs[d] = sema_int(block[d]);
    int32_t dims[IR_MAX_RANK];
    block_shape_arg(s, bs, *rank, sp, arena_printf(s->a, "tensordesc for parameter '%s'", pname), dims);
    int esize = *elem == DT_I1 ? 1 : dt_bits(*elem) / 8;
    if ((int64_t)block[*rank - 1] * esize < 16)
        sema_fail(s, sp, "Descriptor block shape must have at least 16 bytes in the last dimension, but got %d * %d "
                         "= %d bytes (tensordesc for parameter '%s')",
                  block[*rank - 1], esize, block[*rank - 1] * esize, pname);
    /* The launch flattens the descriptor into these parameters (runtime/api.c):
     * the base (16-byte aligned, as TMA needs), the shape (multiples of 16
     * with ":16"), the strides but the last (which is 1; the others are
     * multiples of 16 bytes, as TMA needs), and for floats the padding flag
     * (1: NaN). The divisibilities let masked accesses vectorise. */
    DType ld = *elem == DT_I1 ? DT_I8 : *elem;
    Val t = new_struct(s, V_TENSORDESC, ir_ptr(ld), *rank);
    ValueId b = ir_param(s->f, arena_printf(s->a, "%s_base", pname), ir_ptr(ld));
    s->f->params[s->f->nparams - 1].divisibility = 16;
    BASE(t) = sema_tensor(s, b);
    for (int d = 0; d < *rank; d++) {
        SHAPE(t, d) = sema_tensor(s, ir_param(s->f, arena_printf(s->a, "%s_shape%d", pname, d), ir_scalar(DT_I32)));
        s->f->params[s->f->nparams - 1].divisibility = *hint ? 16 : 1;
        TD_BLOCK(t, d) = sema_int(block[d]);
    }
    for (int d = 0; d < *rank - 1; d++) {
        STRIDE(t, d) = sema_tensor(s, ir_param(s->f, arena_printf(s->a, "%s_stride%d", pname, d), ir_scalar(DT_I64)));
        s->f->params[s->f->nparams - 1].divisibility = 16 / esize;
    }
    STRIDE(t, *rank - 1) = sema_int(1);
    TD_PADDING(t) = dt_is_float(ld) ? sema_tensor(s, ir_param(s->f, arena_printf(s->a, "%s_nan", pname),
                                                              ir_scalar(DT_I1)))
                                    : sema_int(0);
    /* last, the CUtensorMap the launch encodes for TMA (runtime/gpu.c) */
    ValueId tm = ir_param(s->f, arena_printf(s->a, "%s_tmap", pname), ir_scalar(DT_I64));
    s->f->params[s->f->nparams - 1].tensormap = true;
    s->f->params[s->f->nparams - 1].divisibility = *hint ? 16 : 1; /* the shape's, as ":16" says */
    TD_TMAP(t) = sema_int(tm);
    return t;
}
