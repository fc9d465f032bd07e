/* sema_std.c: the builtins of Triton's standard library that need more than
 * one elementwise op: scans and reductions with a combine function, sort,
 * topk, flip, gather and histogram (language/core.py and standard.py, 3.x).
 *
 * Scans and custom reductions become `scan` / `reduce_fn` ops whose combine
 * region is the combine function inlined once on scalars: region arguments
 * a1..an (the earlier elements) and b1..bn (the later ones), a yield of its
 * n results. cumsum, cumprod, xor_sum and reduce_or build the same region
 * from one operator, through Triton's operator rules.
 *
 * sort is the bitonic network of standard.py: log2(N) stages of
 * compare-and-swap steps along the last dim. Triton reshapes the block into a
 * hypercube of 2s to find each element's partner; tl reads the partner with a
 * `gather` at index pos ^ 2^i instead (blocks have at most IR_MAX_RANK dims here). The
 * comparisons and the order of the steps are Triton's, so equal inputs give
 * equal outputs, NaNs included. flip is a gather at S-1-pos, topk a sort
 * followed by an extract of the first k. Sort's and flip's gathers say that
 * their index is the element's own xor a constant (the op's `xor`), so the
 * lowering reads a partner the thread holds from its registers, one in
 * another lane through a shuffle, and only the rest through shared memory. */
#include <string.h>

#include "sema_int.h"

#define T(t) sema_type_str(s, (t))

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }
static int get_axis(Sema *s, Val v, Span sp, int rank) { return sema_get_axis(s, v, sp, rank); }

static ValueId need_block(Sema *s, Val v, Span sp, const char *fn) {
    ValueId x = sema_to_tensor(s, v, sp);
    Type t = ty_of(s, x);
    if (!t.rank)
        sema_fail(s, sp, "%s needs a block, got the scalar %s", fn, T(t));
    if (t.dtype == DT_PTR)
        sema_fail(s, sp, "%s does not apply to pointers (%s)", fn, T(t));
    return x;
}

/* A type with t's shape and like's element type. */
static Type shaped_like(Type t, Type like) { return ir_block(like, t.rank, t.shape); }

static bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }
static int log2i(int64_t v) { return 63 - __builtin_clzll((unsigned long long)v); }

/* ---- combine regions ---- */

/* The combine region of a scan / reduce_fn over xs[0..n): the function fn
 * (a def of the file or a builtin) inlined on scalars, or the operator op
 * when fn is not given. Its results must have the operands' element types
 * (a Python number takes that type). */
static Block *combine_region(Sema *s, Val fn, Op op, const ValueId *xs, int n, Span fsp, Span call) {
    Block *outer = s->blk, *body = ir_block_new(s->f);
    Args args = {0};
    args.npos = 2 * n;
    args.pos = arena_alloc(s->a, sizeof(Val) * (size_t)(2 * n));
    args.pos_sp = arena_alloc(s->a, sizeof(Span) * (size_t)(2 * n));
    for (int i = 0; i < 2 * n; i++) {
        args.pos[i] = sema_tensor(s, ir_block_arg(s->f, body, ir_elem(ty_of(s, xs[i % n]))));
        args.pos_sp[i] = fsp;
    }
    s->blk = body;
    Val r = sema_given(fn) ? sema_call(s, fn, &args, call, "combine_fn") : sema_binop(s, op, args.pos[0], args.pos[1], call);
    const Val *items = r.k == V_TUPLE ? r.items : &r;
    int m = r.k == V_TUPLE ? r.n : 1;
    if (m != n)
        sema_fail(s, call, "the combine function returns %d value%s for %d operand%s", m, m == 1 ? "" : "s", n,
                  n == 1 ? "" : "s");
    ValueId *ys = arena_alloc(s->a, sizeof(ValueId) * (size_t)n);
    for (int i = 0; i < n; i++) {
        Type want = ir_elem(ty_of(s, xs[i]));
        if (sema_is_number(items[i]))
            ys[i] = sema_const_of(s, items[i], want, call);
        else if (items[i].k == V_TENSOR && ir_type_eq(items[i].ty, want))
            ys[i] = items[i].id;
        else
            sema_fail(s, call, "the combine function returns %s for operand %d, which has elements of type %s",
                      sema_describe(s, items[i]), i + 1, T(want));
    }
    sema_emit_inst(s, IR_YIELD, ys, n, NULL, 0, call);
    s->blk = outer;
    return body;
}

/* The operands of a scan / reduce: one block or a tuple of blocks, all of
 * one shape. Returns their number. */
static int operands(Sema *s, Val input, Span sp, const char *fn, ValueId **out) {
    const Val *items = input.k == V_TUPLE ? input.items : &input;
    int n = input.k == V_TUPLE ? input.n : 1;
    if (n < 1 || n > 16)
        sema_fail(s, sp, "%s takes 1 to 16 blocks, got %d", fn, n);
    *out = arena_alloc(s->a, sizeof(ValueId) * (size_t)n);
    for (int i = 0; i < n; i++) {
        (*out)[i] = need_block(s, items[i], sp, fn);
        if (dt_is_fp8((DType)ty_of(s, (*out)[i]).dtype))
            sema_fail(s, sp, "%s of fp8 blocks (%s) is not supported: the combine function would compute in fp8; "
                      "cast to tl.float32 first", fn, T(ty_of(s, (*out)[i])));
        Type a = ty_of(s, (*out)[0]), b = ty_of(s, (*out)[i]);
        if (a.rank != b.rank || memcmp(a.shape, b.shape, sizeof(int32_t) * (size_t)a.rank))
            sema_fail(s, sp, "all inputs of %s must have the same shape, got %s and %s", fn, T(a), T(b));
    }
    return n;
}

/* One value when the input was one block, else a tuple. */
static Val results(Sema *s, Val input, const ValueId *rs, int n) {
    if (input.k != V_TUPLE)
        return sema_tensor(s, rs[0]);
    Val *r = arena_alloc(s->a, sizeof(Val) * (size_t)n);
    for (int i = 0; i < n; i++)
        r[i] = sema_tensor(s, rs[i]);
    return sema_tuple(s, r, n);
}

static Inst *emit_scan(Sema *s, ValueId *xs, int n, int axis, bool reverse, Val fn, Op op, Span fsp, Span call) {
    Block *body = combine_region(s, fn, op, xs, n, fsp, call);
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)n);
    for (int i = 0; i < n; i++)
        rt[i] = ty_of(s, xs[i]);
    Inst *in = sema_emit_inst(s, IR_SCAN, xs, n, rt, n, call);
    in->attr.axis = axis;
    in->attr.reverse = reverse;
    ir_set_regions(in, body, NULL);
    return in;
}

/* core.reduce: axis None reduces every dim (through a reshape to 1-D);
 * keep_dims keeps the reduced dims as 1. The results go to out[0..n). */
static void emit_reduce(Sema *s, ValueId *xs, int n, Val axisv, Span axsp, bool keep, Val fn, Op op, Span fsp,
                        Span call, ValueId *out) {
    Type t = ty_of(s, xs[0]);
    int rank0 = t.rank, axis = 0;
    if (!sema_given(axisv)) {
        if (t.rank > 1) {
            int32_t numel[1] = {(int32_t)ir_numel(t)};
            for (int i = 0; i < n; i++)
                xs[i] = sema_emit(s, IR_RESHAPE, ir_block(ty_of(s, xs[i]), 1, numel), &xs[i], 1, call);
            t = ty_of(s, xs[0]);
        }
    } else {
        axis = get_axis(s, axisv, axsp, t.rank);
    }
    int32_t sh[IR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < t.rank; d++)
        if (d != axis || keep)
            sh[r++] = d == axis ? 1 : t.shape[d];
    Block *body = combine_region(s, fn, op, xs, n, fsp, call);
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)n);
    for (int i = 0; i < n; i++)
        rt[i] = ir_block(ty_of(s, xs[i]), r, sh);
    Inst *in = sema_emit_inst(s, IR_REDUCE_FN, xs, n, rt, n, call);
    in->attr.axis = axis;
    in->attr.keep_dims = keep;
    ir_set_regions(in, body, NULL);
    for (int i = 0; i < n; i++) {
        out[i] = in->results[i];
        if (!sema_given(axisv) && keep && rank0 > 1) { /* back to rank0 dims of 1 */
            int32_t ones[IR_MAX_RANK];
            for (int d = 0; d < IR_MAX_RANK; d++)
                ones[d] = 1;
            out[i] = sema_emit(s, IR_RESHAPE, ir_block(ty_of(s, out[i]), rank0, ones), &out[i], 1, call);
        }
    }
}

/* tl.associative_scan(input, axis, combine_fn, reverse=False) */
Val sema_h_scan(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId *xs;
    int n = operands(s, a[0], sp[0], bi->name, &xs);
    int axis = get_axis(s, a[1], sp[1], ty_of(s, xs[0]).rank);
    bool rev = sema_opt_bool(s, a[3], sp[3], false, "reverse");
    return results(s, a[0], emit_scan(s, xs, n, axis, rev, a[2], OP_NONE, sp[2], call)->results, n);
}

/* ---- map_elementwise ---- */

/* An op in a map_fn region that runs other than as per-element pure code: a
 * store, atomic, print, assert, barrier, inline asm ... (loads may stay). */
static const Inst *region_effect(const Block *b) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        switch (in->op) {
        case IR_IF: case IR_FOR: case IR_WHILE: case IR_YIELD: case IR_CONDITION: case IR_LOAD:
            break;
        default:
            if (!(ir_ops[in->op].flags & OPF_PURE))
                return in;
        }
        for (int r = 0; r < in->nregions; r++) {
            const Inst *e = region_effect(in->regions[r]);
            if (e)
                return e;
        }
    }
    return NULL;
}

/* tl.map_elementwise(scalar_fn, *args, pack=1) (core.map_elementwise): the
 * operands broadcast to one shape; scalar_fn is inlined once into the
 * region of a map_fn op, on pack scalars of each operand (the first
 * operand's pack, then the next one's), and runs per group of pack elements,
 * its own control flow included. It returns one scalar per result, or
 * m * pack of them result-major (Triton's order: results r*pack .. r*pack+
 * pack-1 are result r's); a Python number takes to_tensor's type. One result
 * is a block, several a tuple. */
Val sema_h_map_elementwise(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val fn = a[0], xs = a[1];
    if (fn.k != V_FUNC && fn.k != V_BUILTIN)
        sema_fail(s, sp[0], "map_elementwise's scalar_fn must be a @triton.jit function, got %s",
                  sema_describe(s, fn));
    int pack = 1;
    if (sema_given(a[2])) {
        if (a[2].k != V_INT || a[2].i < 1 || a[2].i > 16)
            sema_fail(s, sp[2], "pack must be an int from 1 to 16, got %s", sema_describe(s, a[2]));
        pack = (int)a[2].i;
    }
    int n = xs.n;
    if (n < 1 || n > 16)
        sema_fail(s, call, "map_elementwise takes 1 to 16 tensors, got %d", n);
    ValueId *ids = arena_alloc(s->a, sizeof(ValueId) * (size_t)n);
    for (int i = 0; i < n; i++) {
        ids[i] = sema_to_tensor(s, xs.items[i], sp[1]);
        Type t = ty_of(s, ids[i]);
        if (t.dtype == DT_PTR)
            sema_fail(s, sp[1], "map_elementwise's argument %d is a pointer (%s); pass numbers", i + 1, T(t));
    }
    /* semantic.broadcast_tensors: the first against each, then each against it */
    for (int i = 1; i < n; i++)
        sema_broadcast_pair(s, &ids[0], &ids[i], sp[1]);
    for (int i = 1; i < n; i++)
        ids[i] = sema_broadcast_to(s, ids[i], ty_of(s, ids[0]), sp[1]);
    Type shape = ty_of(s, ids[0]);
    Block *outer = s->blk, *body = ir_block_new(s->f);
    Args args = {0};
    args.npos = n * pack;
    args.pos = arena_alloc(s->a, sizeof(Val) * (size_t)(n * pack));
    args.pos_sp = arena_alloc(s->a, sizeof(Span) * (size_t)(n * pack));
    for (int i = 0; i < n * pack; i++) {
        args.pos[i] = sema_tensor(s, ir_block_arg(s->f, body, ir_elem(ty_of(s, ids[i / pack]))));
        args.pos_sp[i] = sp[0];
    }
    s->blk = body;
    Val r = sema_call(s, fn, &args, call, "scalar_fn");
    const Val *items = r.k == V_TUPLE ? r.items : &r;
    int ny = r.k == V_TUPLE ? r.n : 1;
    if (!ny || ny % pack)
        sema_fail(s, call, "map_elementwise's scalar_fn returns %d value%s, not a multiple of pack=%d", ny,
                  ny == 1 ? "" : "s", pack);
    int m = ny / pack;
    ValueId *ys = arena_alloc(s->a, sizeof(ValueId) * (size_t)ny);
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)m);
    for (int k = 0; k < ny; k++) {
        if (items[k].k == V_NONE || items[k].k == V_TUPLE || !(sema_is_number(items[k]) || items[k].k == V_TENSOR))
            sema_fail(s, call, "map_elementwise's scalar_fn must return scalars, got %s for value %d",
                      sema_describe(s, items[k]), k + 1);
        ys[k] = sema_to_tensor(s, items[k], call);
        Type t = ty_of(s, ys[k]);
        if (t.rank || t.dtype == DT_PTR)
            sema_fail(s, call, "map_elementwise's scalar_fn must return scalars, got %s for value %d", T(t), k + 1);
        if (k % pack == 0)
            rt[k / pack] = ir_with_dtype(shape, (DType)t.dtype);
        else if (t.dtype != rt[k / pack].dtype) /* core.py's "type mismatch in unpacked results" */
            sema_fail(s, call, "map_elementwise's scalar_fn returns %s and %s for the elements of result %d",
                      T(ir_elem(rt[k / pack])), T(t), k / pack + 1);
    }
    sema_emit_inst(s, IR_YIELD, ys, ny, NULL, 0, call);
    s->blk = outer;
    const Inst *e = region_effect(body);
    if (e)
        sema_fail(s, e->span, "'%s' in the scalar_fn of tl.map_elementwise is not supported by tl: it runs the "
                              "function per element as pure code",
                  ir_ops[e->op].name);
    Inst *in = sema_emit_inst(s, IR_MAP_FN, ids, n, rt, m, call);
    in->attr.pack = pack;
    ir_set_regions(in, body, NULL);
    if (m == 1)
        return sema_tensor(s, in->results[0]);
    Val *out = arena_alloc(s->a, sizeof(Val) * (size_t)m);
    for (int i = 0; i < m; i++)
        out[i] = sema_tensor(s, in->results[i]);
    return sema_tuple(s, out, m);
}

/* tl.reduce(input, axis, combine_fn, keep_dims=False) */
Val sema_h_reduce_fn(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId *xs;
    int n = operands(s, a[0], sp[0], bi->name, &xs);
    bool keep = sema_opt_bool(s, a[3], sp[3], false, "keep_dims");
    ValueId *out = arena_alloc(s->a, sizeof(ValueId) * (size_t)n);
    emit_reduce(s, xs, n, a[1], sp[1], keep, a[2], OP_NONE, sp[2], call, out);
    return results(s, a[0], out, n);
}

/* standard._pick_sum_dtype: ints narrower than 32 bits sum in (u)int32. */
static ValueId sum_dtype(Sema *s, ValueId x, Val dtype, Span dsp, Span call) {
    DType dt = (DType)ty_of(s, x).dtype;
    if (sema_given(dtype)) {
        if (dtype.k != V_DTYPE)
            sema_fail(s, dsp, "dtype must be a dtype such as tl.float32, got %s", sema_describe(s, dtype));
        return sema_cast(s, x, dtype.ty, call);
    }
    if (dt_is_int(dt) && dt_bits(dt) < 32)
        return sema_cast(s, x, ir_scalar(dt_is_signed(dt) ? DT_I32 : DT_U32), call);
    return x;
}

/* tl.cumsum(input, axis=0, reverse=False, dtype=None), tl.cumprod(input, axis=0, reverse=False) */
Val sema_h_cum(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    if (ty_of(s, x).dtype == DT_BF16) /* core._promote_bfloat16_to_float32 */
        x = sema_cast(s, x, ir_scalar(DT_F32), call);
    if (bi->aux == OP_ADD)
        x = sum_dtype(s, x, a[3], sp[3], call);
    /* fp8 (no fp8 arithmetic in the IR): scanned in fp32, each result rounded
     * back once, where Triton's combine rounds every partial (docs/sema.md) */
    DType fp8 = dt_is_fp8((DType)ty_of(s, x).dtype) ? (DType)ty_of(s, x).dtype : DT_VOID;
    if (fp8 != DT_VOID)
        x = sema_cast(s, x, ir_scalar(DT_F32), call);
    int axis = sema_given(a[1]) ? get_axis(s, a[1], sp[1], ty_of(s, x).rank) : 0;
    bool rev = sema_opt_bool(s, a[2], sp[2], false, "reverse");
    ValueId r = emit_scan(s, &x, 1, axis, rev, (Val){.k = V_UNDEF}, (Op)bi->aux, call, call)->results[0];
    return sema_tensor(s, fp8 != DT_VOID ? sema_cast(s, r, ir_scalar(fp8), call) : r);
}

/* tl.xor_sum(input, axis=None, keep_dims=False), tl.reduce_or(input, axis, keep_dims=False) */
Val sema_h_bitreduce(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    if (!dt_is_int((DType)ty_of(s, x).dtype))
        sema_fail(s, sp[0], "%s only supported for integers, got %s", bi->name, T(ty_of(s, x)));
    bool keep = sema_opt_bool(s, a[2], sp[2], false, "keep_dims");
    ValueId r;
    emit_reduce(s, &x, 1, a[1], sp[1], keep, (Val){.k = V_UNDEF}, (Op)bi->aux, call, call, &r);
    return sema_tensor(s, r);
}

/* ---- gather, histogram ---- */

/* xor, when not 0: idx is each element's own index along the axis xor
 * this (sort's partners, flip's mirror), which the lowering may then read
 * from registers or lanes rather than through shared memory. */
static ValueId gather(Sema *s, ValueId src, ValueId idx, int axis, int xor, Span call) {
    Type r = ir_with_dtype(ty_of(s, idx), (DType)ty_of(s, src).dtype);
    r.pointee = ty_of(s, src).pointee;
    ValueId args[2] = {src, idx};
    ValueId g = sema_emit(s, IR_GATHER, r, args, 2, call);
    s->f->values[g].def->attr.axis = axis;
    s->f->values[g].def->attr.num = xor;
    return g;
}

/* tl.gather(src, index, axis) */
Val sema_h_gather(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId src = need_block(s, a[0], sp[0], bi->name), idx = need_block(s, a[1], sp[1], bi->name);
    Type ts = ty_of(s, src), ti = ty_of(s, idx);
    if (!dt_is_int((DType)ti.dtype) || ti.dtype == DT_I1)
        sema_fail(s, sp[1], "the index of gather must have integer elements, got %s", T(ti));
    if (ti.rank != ts.rank)
        sema_fail(s, call, "source and index of gather must have the same rank, got %s and %s", T(ts), T(ti));
    int axis = get_axis(s, a[2], sp[2], ts.rank);
    for (int d = 0; d < ts.rank; d++)
        if (d != axis && ts.shape[d] != ti.shape[d])
            sema_fail(s, call, "index dim %d must match the corresponding source dim: %s and %s", d, T(ti), T(ts));
    return sema_tensor(s, gather(s, src, idx, axis, 0, call));
}

/* tl.histogram(input, num_bins, mask=None): counts of 0 .. num_bins-1 in a
 * 1-D block of ints, as int32; other values and masked elements are not
 * counted. */
Val sema_h_histogram(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    Type t = ty_of(s, x);
    if (t.rank != 1 || !dt_is_int((DType)t.dtype) || t.dtype == DT_I1)
        sema_fail(s, sp[0], "histogram needs a 1-D block of integers, got %s", T(t));
    int64_t bins = sema_need_int(s, a[1], sp[1], "num_bins");
    if (!is_pow2(bins) || bins > IR_MAX_NUMEL)
        sema_fail(s, sp[1], "num_bins must be a power of 2 of at most %d, got %lld", IR_MAX_NUMEL, (long long)bins);
    ValueId args[2] = {x, 0};
    int nargs = 1;
    if (sema_given(a[2])) {
        ValueId m = sema_to_tensor(s, a[2], sp[2]);
        if (ty_of(s, m).dtype != DT_I1)
            sema_fail(s, sp[2], "mask must have boolean (i1) elements, got %s", T(ty_of(s, m)));
        Type mt = ty_of(s, m);
        if (mt.rank > 1 || (mt.rank == 1 && mt.shape[0] != 1 && mt.shape[0] != t.shape[0]))
            sema_fail(s, sp[2], "cannot broadcast the mask %s to the shape of the input %s", T(mt), T(t));
        args[nargs++] = sema_broadcast_to(s, m, ir_with_dtype(t, DT_I1), sp[2]);
    }
    int32_t sh[1] = {(int32_t)bins};
    return sema_tensor(s, sema_emit(s, IR_HISTOGRAM, ir_block(ir_scalar(DT_I32), 1, sh), args, nargs, call));
}

/* ---- sort, topk, flip ---- */

/* The index along dim d of every element of a block of type t (i32). */
static ValueId dim_index(Sema *s, Type t, int d, Span sp) {
    int32_t n[1] = {t.shape[d]};
    Type at = ir_block(ir_scalar(DT_I32), 1, n);
    Inst *in = sema_emit_inst(s, IR_ARANGE, NULL, 0, &at, 1, sp);
    in->attr.start = 0;
    in->attr.end = t.shape[d];
    ValueId v = in->results[0];
    if (t.rank > 1 && t.shape[d] < 32) {
        /* a reshape, not expand_dims: those would keep the arange's layout,
         * its lanes along a short dim, and every thread would hold the whole
         * of the other dims */
        int32_t sh[IR_MAX_RANK];
        for (int k = 0; k < IR_MAX_RANK; k++)
            sh[k] = 1;
        sh[d] = t.shape[d];
        v = sema_emit(s, IR_RESHAPE, ir_block(at, t.rank, sh), &v, 1, sp);
    } else {
        for (int k = 0; k < d; k++)
            v = sema_expand_dims(s, v, 0, sp);
        for (int k = d + 1; k < t.rank; k++)
            v = sema_expand_dims(s, v, k, sp);
    }
    return sema_broadcast_to(s, v, ir_with_dtype(t, DT_I32), sp);
}

/* (v >> bit) & 1 != 0 for an i32 block */
static Val bit_of(Sema *s, Val v, int bit, Span sp) {
    Val b = sema_binop(s, OP_BITAND, sema_binop(s, OP_RSHIFT, v, sema_int(bit), sp), sema_int(1), sp);
    return sema_binop(s, OP_NE, b, sema_int(0), sp);
}

/* Bitonic sort along the last dim (standard.sort_impl's network). */
static ValueId bitonic_sort(Sema *s, ValueId x, bool descending, Span call) {
    Type t = ty_of(s, x);
    int last = t.rank - 1, log_n = log2i(t.shape[last]);
    Val pos = sema_tensor(s, dim_index(s, t, last, call));
    Val xv = sema_tensor(s, x);
    for (int stage = 1; stage <= log_n; stage++) {
        /* the order of each run of 2^stage: alternating until the last stage */
        Val flip = stage < log_n ? bit_of(s, pos, stage, call) : sema_bool(descending);
        for (int i = stage - 1; i >= 0; i--) {
            Val partner = sema_binop(s, OP_BITXOR, pos, sema_int((int64_t)1 << i), call);
            Val y = sema_tensor(s, gather(s, xv.id, partner.id, last, 1 << i, call));
            Val is_right = bit_of(s, pos, i, call);
            Val swap = sema_binop(s, OP_NE, sema_binop(s, OP_GT, xv, y, call),
                                  sema_binop(s, OP_BITXOR, flip, is_right, call), call);
            ValueId c = sema_to_i1(s, swap.id, call);
            ValueId args[3] = {c, y.id, xv.id};
            xv = sema_tensor(s, sema_emit(s, IR_SELECT, ty_of(s, x), args, 3, call));
        }
    }
    return xv.id;
}

static int last_dim(Sema *s, Val dim, Span sp, Type t, const char *fn) {
    int d = sema_given(dim) ? get_axis(s, dim, sp, t.rank) : t.rank - 1;
    if (d != t.rank - 1)
        sema_fail(s, sp, "%s: only the last (minor) dimension is currently supported", fn);
    return d;
}

/* tl.sort(x, dim=None, descending=False) */
Val sema_h_sort(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    last_dim(s, a[1], sp[1], ty_of(s, x), bi->name);
    return sema_tensor(s, bitonic_sort(s, x, sema_opt_bool(s, a[2], sp[2], false, "descending"), call));
}

/* tl.topk(x, k, dim=None): the k largest along the last dim, largest first. */
Val sema_h_topk(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    Type t = ty_of(s, x);
    int d = last_dim(s, a[2], sp[2], t, bi->name);
    int64_t k = sema_need_int(s, a[1], sp[1], "k");
    if (!is_pow2(k) || k > t.shape[d])
        sema_fail(s, sp[1], "topk: k must be a power of two no larger than the dimension (%d), got %lld", t.shape[d],
                  (long long)k);
    ValueId sorted = bitonic_sort(s, x, true, call);
    if (k == t.shape[d])
        return sema_tensor(s, sorted);
    /* the first k along d: an extract, renamed where the layout keeps them
     * in their threads (a gather would stage the whole block) */
    Type it = t;
    it.shape[d] = (int32_t)k;
    ValueId r = sema_emit(s, IR_EXTRACT, it, &sorted, 1, call);
    s->f->values[r].def->attr.axis = d;
    s->f->values[r].def->attr.start = 0;
    return sema_tensor(s, r);
}

/* tl.flip(x, dim=None): reverse the order along dim (the last by default). */
Val sema_h_flip(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    Type t = ty_of(s, x);
    int d = sema_given(a[1]) ? get_axis(s, a[1], sp[1], t.rank) : t.rank - 1;
    if (t.shape[d] == 1)
        return sema_tensor(s, x);
    /* S - 1 - i is i ^ (S - 1): block dims are powers of two */
    Val idx = sema_binop(s, OP_SUB, sema_int(t.shape[d] - 1), sema_tensor(s, dim_index(s, t, d, call)), call);
    return sema_tensor(s, gather(s, x, idx.id, d, t.shape[d] - 1, call));
}

/* ---- random numbers (language/random.py) ----
 *
 * Philox4x32-10 (Salmon et al., Random123) on uint32 blocks, exactly as
 * random.py writes it, so a seed and an offset give Triton's bits: counters
 * (offset_lo, offset_hi, 0, 0), key (seed_lo, seed_hi), 10 rounds of
 *   c0, c1, c2, c3 = hi(B * c2) ^ c1 ^ k0, B * c2, hi(A * c0) ^ c3 ^ k1, A * c0
 * with the key raised by (0x9E3779B9, 0xBB67AE85) after each round. The 64-bit
 * variant (tl.philox on 64-bit counters) uses random.py's 64-bit constants. */

static Val num(int64_t v) { return sema_int(v); }

/* A tl builtin called with positional arguments. */
static Val call_tl(Sema *s, const char *name, Val *args, int n, Span sp) {
    Args a = {0};
    Span sps[4] = {sp, sp, sp, sp};
    a.pos = args;
    a.pos_sp = sps;
    a.npos = n;
    return sema_call_builtin(s, sema_builtin_tl(name), &a, sp);
}

static Val cast_to(Sema *s, Val v, DType dt, Span sp) { return sema_tensor(s, sema_cast(s, sema_to_tensor(s, v, sp), ir_scalar(dt), sp)); }

static Val bitcast_to(Sema *s, Val v, DType dt, Span sp) {
    ValueId x = sema_to_tensor(s, v, sp);
    if (ty_of(s, x).dtype == dt)
        return sema_tensor(s, x);
    return sema_tensor(s, sema_emit(s, IR_BITCAST, ir_with_dtype(ty_of(s, x), dt), &x, 1, sp));
}

/* math.umulhi: the high half of the unsigned product (u32 through u64; u64
 * from 32-bit limbs). */
static Val umulhi(Sema *s, Val a, Val b, Span sp) {
    ValueId x = sema_to_tensor(s, a, sp), y = sema_to_tensor(s, b, sp);
    DType dt = (DType)ty_of(s, y).dtype; /* philox passes operands of one type */
    if (dt_bits(dt) == 32) {
        Val w = sema_binop(s, OP_MUL, cast_to(s, sema_tensor(s, x), DT_U64, sp), cast_to(s, sema_tensor(s, y), DT_U64, sp), sp);
        return cast_to(s, sema_binop(s, OP_RSHIFT, w, num(32), sp), dt, sp);
    }
    Val m = num(0xffffffff);
    Val xa = cast_to(s, sema_tensor(s, x), DT_U64, sp), yb = cast_to(s, sema_tensor(s, y), DT_U64, sp);
    Val al = sema_binop(s, OP_BITAND, xa, m, sp), ah = sema_binop(s, OP_RSHIFT, xa, num(32), sp);
    Val bl = sema_binop(s, OP_BITAND, yb, m, sp), bh = sema_binop(s, OP_RSHIFT, yb, num(32), sp);
    Val ll = sema_binop(s, OP_MUL, al, bl, sp), lh = sema_binop(s, OP_MUL, al, bh, sp);
    Val hl = sema_binop(s, OP_MUL, ah, bl, sp), hh = sema_binop(s, OP_MUL, ah, bh, sp);
    Val mid = sema_binop(s, OP_ADD, sema_binop(s, OP_RSHIFT, ll, num(32), sp),
                         sema_binop(s, OP_ADD, sema_binop(s, OP_BITAND, lh, m, sp), sema_binop(s, OP_BITAND, hl, m, sp), sp),
                         sp);
    Val hi = sema_binop(s, OP_ADD, hh, sema_binop(s, OP_RSHIFT, lh, num(32), sp), sp);
    hi = sema_binop(s, OP_ADD, hi, sema_binop(s, OP_RSHIFT, hl, num(32), sp), sp);
    hi = sema_binop(s, OP_ADD, hi, sema_binop(s, OP_RSHIFT, mid, num(32), sp), sp);
    return cast_to(s, hi, dt, sp);
}

static int64_t rounds_of(Sema *s, Val v, Span sp) {
    int64_t n = sema_given(v) ? sema_need_int(s, v, sp, "n_rounds") : 10;
    if (n < 0 || n > 1000)
        sema_fail(s, sp, "n_rounds must be between 0 and 1000, got %lld", (long long)n);
    return n;
}

/* random.philox_impl on counters c[4] and key k0, k1 (all of one unsigned type). */
static void philox_impl(Sema *s, Val *c, Val k0, Val k1, int64_t rounds, Span sp) {
    bool w32 = dt_bits((DType)c[0].ty.dtype) == 32;
    int64_t key_a = w32 ? 0x9E3779B9 : (int64_t)0x9E3779B97F4A7C15ull, key_b = w32 ? 0xBB67AE85 : (int64_t)0xBB67AE8584CAA73Bull;
    int64_t round_a = w32 ? 0xD2511F53 : (int64_t)0xD2E7470EE14C6C93ull;
    int64_t round_b = w32 ? 0xCD9E8D57 : (int64_t)0xCA5A826395121157ull;
    DType dt = (DType)c[0].ty.dtype;
    Val A = cast_to(s, num(round_a), dt, sp), B = cast_to(s, num(round_b), dt, sp);
    Val KA = cast_to(s, num(key_a), dt, sp), KB = cast_to(s, num(key_b), dt, sp);
    for (int64_t r = 0; r < rounds; r++) {
        Val c0 = c[0], c2 = c[2];
        c[0] = sema_binop(s, OP_BITXOR, sema_binop(s, OP_BITXOR, umulhi(s, B, c2, sp), c[1], sp), k0, sp);
        c[2] = sema_binop(s, OP_BITXOR, sema_binop(s, OP_BITXOR, umulhi(s, A, c0, sp), c[3], sp), k1, sp);
        c[1] = sema_binop(s, OP_MUL, B, c2, sp);
        c[3] = sema_binop(s, OP_MUL, A, c0, sp);
        k0 = sema_binop(s, OP_ADD, k0, KA, sp);
        k1 = sema_binop(s, OP_ADD, k1, KB, sp);
    }
}

/* random.philox: the seed as uint64 split into the key; counters bitcast
 * to the unsigned type of their width. */
static void philox(Sema *s, Val seed, Val *c, int64_t rounds, Span sp) {
    ValueId sd = sema_to_tensor(s, seed, sp);
    if (!dt_is_int((DType)ty_of(s, sd).dtype))
        sema_fail(s, sp, "the seed must be an integer, got %s", T(ty_of(s, sd)));
    Val sd64 = cast_to(s, sema_tensor(s, sd), DT_U64, sp);
    for (int i = 0; i < 4; i++)
        c[i] = sema_tensor(s, sema_to_tensor(s, c[i], sp));
    int bits = dt_bits((DType)c[0].ty.dtype);
    if (bits != 32 && bits != 64)
        sema_fail(s, sp, "philox counters must be 32- or 64-bit integers, got %s", T(c[0].ty));
    DType ut = bits == 32 ? DT_U32 : DT_U64;
    Val lo, hi;
    if (bits == 32) {
        hi = cast_to(s, sema_binop(s, OP_BITAND, sema_binop(s, OP_RSHIFT, sd64, num(32), sp), num(0xffffffff), sp), DT_U32, sp);
        lo = cast_to(s, sema_binop(s, OP_BITAND, sd64, num(0xffffffff), sp), DT_U32, sp);
    } else {
        hi = cast_to(s, num(0), DT_U64, sp);
        lo = sd64;
    }
    for (int i = 0; i < 4; i++) {
        if (dt_bits((DType)c[i].ty.dtype) != bits)
            sema_fail(s, sp, "philox counters must have one width, got %s and %s", T(c[0].ty), T(c[i].ty));
        c[i] = bitcast_to(s, c[i], ut, sp);
    }
    philox_impl(s, c, lo, hi, rounds, sp);
}

/* random.randint4x: counters (offset_lo, offset_hi, 0, 0). */
static void randint4x(Sema *s, Val seed, Val offset, int64_t rounds, Span osp, Span sp, Val *c) {
    ValueId off = sema_to_tensor(s, offset, osp);
    DType od = (DType)ty_of(s, off).dtype;
    if (!dt_is_int(od) || od == DT_I1)
        sema_fail(s, osp, "the offsets must be integers, got %s", T(ty_of(s, off)));
    Val lo = cast_to(s, sema_tensor(s, off), DT_U32, sp);
    Val zero = sema_binop(s, OP_MUL, lo, num(0), sp);
    Val hi = dt_bits(od) > 32 ? cast_to(s, sema_binop(s, OP_RSHIFT, sema_tensor(s, off), num(32), sp), DT_U32, sp) : zero;
    c[0] = lo, c[1] = hi, c[2] = zero, c[3] = zero;
    philox(s, seed, c, rounds, sp);
}

/* random.uint_to_uniform_float: [0, 1) from the bits, as a signed int. */
static Val to_uniform(Sema *s, Val x, Span sp) {
    bool w32 = dt_bits((DType)x.ty.dtype) == 32;
    x = bitcast_to(s, x, w32 ? DT_I32 : DT_I64, sp);
    Val neg = sema_binop(s, OP_SUB, sema_unop(s, OP_NEG, x, sp), num(1), sp);
    Val args[3] = {sema_binop(s, OP_LT, x, num(0), sp), neg, x};
    x = call_tl(s, "where", args, 3, sp);
    return sema_binop(s, OP_MUL, x, sema_float(w32 ? 4.6566127342e-10 : 1.0842020432385337e-19), sp);
}

/* random.pair_uniform_to_normal: Box-Muller. */
static void to_normal(Sema *s, Val u1, Val u2, Val *n1, Val *n2, Span sp) {
    Val mx[2] = {sema_float(1.0e-7), u1};
    u1 = call_tl(s, "maximum", mx, 2, sp);
    Val th = sema_binop(s, OP_MUL, sema_float(6.283185307179586), u2, sp);
    Val lg = call_tl(s, "log", &u1, 1, sp);
    Val r = sema_binop(s, OP_MUL, sema_float(-2.0), lg, sp);
    r = call_tl(s, "sqrt", &r, 1, sp);
    *n1 = sema_binop(s, OP_MUL, r, call_tl(s, "cos", &th, 1, sp), sp);
    if (n2)
        *n2 = sema_binop(s, OP_MUL, r, call_tl(s, "sin", &th, 1, sp), sp);
}

enum { RAND_INT, RAND_INT4X, RAND_UNIFORM, RAND_UNIFORM4X, RAND_NORMAL, RAND_NORMAL4X };

/* tl.randint / randint4x / rand / rand4x / randn / randn4x (seed, offset, n_rounds=10) */
Val sema_h_random(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    Val c[4], r[4];
    randint4x(s, a[0], a[1], rounds_of(s, a[2], sp[2]), sp[1], call, c);
    switch (bi->aux) {
    case RAND_INT: return c[0];
    case RAND_INT4X: return sema_tuple(s, c, 4);
    case RAND_UNIFORM: return to_uniform(s, c[0], call);
    case RAND_UNIFORM4X:
        for (int i = 0; i < 4; i++)
            r[i] = to_uniform(s, c[i], call);
        return sema_tuple(s, r, 4);
    case RAND_NORMAL: to_normal(s, to_uniform(s, c[0], call), to_uniform(s, c[1], call), &r[0], NULL, call); return r[0];
    default:
        for (int i = 0; i < 4; i++)
            c[i] = to_uniform(s, c[i], call);
        to_normal(s, c[0], c[1], &r[0], &r[1], call);
        to_normal(s, c[2], c[3], &r[2], &r[3], call);
        return sema_tuple(s, r, 4);
    }
}

/* tl.philox(seed, c0, c1, c2, c3, n_rounds=10) */
Val sema_h_philox(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val c[4] = {a[1], a[2], a[3], a[4]};
    philox(s, a[0], c, rounds_of(s, a[5], sp[5]), call);
    return sema_tuple(s, c, 4);
}

/* tl.add / tl.sub / tl.mul (core.py: what x + y, x - y, x * y call);
 * sanitize_overflow only matters to Triton's debug mode, which tl has not. */
Val sema_h_arith(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)sp;
    Op op = sema_builtin_is(bi, "add") ? OP_ADD : sema_builtin_is(bi, "sub") ? OP_SUB : OP_MUL;
    return sema_binop(s, op, a[0], a[1], call);
}

/* tl.to_tensor(x): a number becomes a scalar tensor; a tensor stays itself */
Val sema_h_to_tensor(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    return a[0].k == V_TENSOR ? a[0] : sema_tensor(s, sema_to_tensor(s, a[0], sp[0]));
}

/* tl.philox_impl(c0, c1, c2, c3, k0, k1, n_rounds): the rounds themselves on
 * an explicit key; random.py asserts uint32 or uint64 counters. */
Val sema_h_philox_impl(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val c[4];
    for (int i = 0; i < 6; i++) {
        Val v = sema_tensor(s, sema_to_tensor(s, a[i], sp[i]));
        DType dt = (DType)v.ty.dtype, d0 = i ? (DType)c[0].ty.dtype : dt;
        if ((dt != DT_U32 && dt != DT_U64) || dt != d0)
            sema_fail(s, sp[i], "philox_impl needs counters and keys of one type, uint32 or uint64, got %s", T(v.ty));
        if (i < 4)
            c[i] = v;
        else
            a[i] = v;
    }
    philox_impl(s, c, a[4], a[5], rounds_of(s, a[6], sp[6]), call);
    return sema_tuple(s, c, 4);
}

/* tl.uint_to_uniform_float(x), tl.pair_uniform_to_normal(u1, u2) */
Val sema_h_random_map(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    Val x = sema_tensor(s, sema_to_tensor(s, a[0], sp[0]));
    if (!strcmp(bi->name, "uint_to_uniform_float")) {
        int b = dt_bits((DType)x.ty.dtype);
        if (!dt_is_int((DType)x.ty.dtype) || (b != 32 && b != 64))
            sema_fail(s, sp[0], "uint_to_uniform_float needs 32- or 64-bit integers, got %s", T(x.ty));
        return to_uniform(s, x, call);
    }
    Val r[2];
    to_normal(s, x, a[1], &r[0], &r[1], call);
    return sema_tuple(s, r, 2);
}

/* ---- join, split, interleave, cat, broadcast ----
 *
 * Built from ops the IR has: join puts a and b side by side along a new
 * last dim of 2 with a select on the index along it; split takes element k
 * of that dim exactly (any bits, NaN included) as the xor-reduction of the
 * bits where the index is k and 0 elsewhere; interleave and cat reshape a
 * join (cat after moving the new dim to the front: the inputs end to end). */

static Type common_shape(Sema *s, Type a, Type b, Span sp) {
    Type r = a.rank >= b.rank ? a : b;
    for (int i = 0; i < r.rank; i++) {
        int ia = i - (r.rank - a.rank), ib = i - (r.rank - b.rank);
        int da = ia >= 0 ? a.shape[ia] : 1, db = ib >= 0 ? b.shape[ib] : 1;
        if (da != db && da != 1 && db != 1)
            sema_fail(s, sp, "incompatible shapes %s and %s", T(a), T(b));
        r.shape[i] = da == 1 ? db : da;
    }
    return r;
}

/* tl.broadcast(input, other): both to their common shape */
Val sema_h_broadcast2(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId x = sema_to_tensor(s, a[0], sp[0]), y = sema_to_tensor(s, a[1], sp[1]);
    Type c = common_shape(s, ty_of(s, x), ty_of(s, y), call);
    Val r[2] = {sema_tensor(s, sema_broadcast_to(s, x, shaped_like(c, ty_of(s, x)), call)),
                sema_tensor(s, sema_broadcast_to(s, y, shaped_like(c, ty_of(s, y)), call))};
    return sema_tuple(s, r, 2);
}

static ValueId join(Sema *s, Val av, Val bv, Span asp, Span bsp, Span call) {
    ValueId x = sema_to_tensor(s, av, asp), y = sema_to_tensor(s, bv, bsp);
    Type tx = ty_of(s, x), ty = ty_of(s, y);
    if (tx.dtype != ty.dtype || tx.pointee != ty.pointee)
        sema_fail(s, call, "join needs two blocks of one element type, got %s and %s", T(tx), T(ty));
    Type c = common_shape(s, tx, ty, call);
    if (c.rank >= IR_MAX_RANK)
        sema_fail(s, call, "join of %s would have %d dimensions, more than %d", T(c), c.rank + 1, IR_MAX_RANK);
    x = sema_broadcast_to(s, x, shaped_like(c, tx), call);
    y = sema_broadcast_to(s, y, shaped_like(c, ty), call);
    Type r = c;
    r.shape[r.rank++] = 2;
    if (c.rank) {
        x = sema_expand_dims(s, x, c.rank, call);
        y = sema_expand_dims(s, y, c.rank, call);
    }
    x = sema_broadcast_to(s, x, r, call);
    y = sema_broadcast_to(s, y, r, call);
    Val first = sema_binop(s, OP_EQ, sema_tensor(s, dim_index(s, r, c.rank, call)), num(0), call);
    ValueId args[3] = {first.id, x, y};
    return sema_emit(s, IR_SELECT, r, args, 3, call);
}

/* Element k along `axis` of x, that dim removed (exactly: see above). */
static ValueId take(Sema *s, ValueId x, int axis, int k, Span sp) {
    Type t = ty_of(s, x);
    DType dt = (DType)t.dtype, it = dt;
    if (dt == DT_PTR)
        sema_fail(s, sp, "split of a block of pointers is not supported");
    if (dt_is_fp(dt))
        it = dt_bits(dt) == 8 ? DT_I8 : dt_bits(dt) == 16 ? DT_I16 : dt_bits(dt) == 32 ? DT_I32 : DT_I64;
    Val bits = bitcast_to(s, sema_tensor(s, x), it, sp);
    Val at = sema_binop(s, OP_EQ, sema_tensor(s, dim_index(s, t, axis, sp)), num(k), sp);
    ValueId zero = sema_const_of(s, sema_int(0), ir_with_dtype(t, it), sp);
    ValueId args[3] = {at.id, bits.id, zero};
    ValueId v = sema_emit(s, IR_SELECT, ir_with_dtype(t, it), args, 3, sp), r;
    emit_reduce(s, &v, 1, num(axis), sp, false, (Val){.k = V_UNDEF}, OP_BITXOR, sp, sp, &r);
    return bitcast_to(s, sema_tensor(s, r), dt, sp).id;
}

/* tl.item(x) / x.item(): a one-element block's element as a scalar (as
 * take does it: exact for every type); a scalar stays as it is. */
Val sema_h_item(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (a[0].k != V_TENSOR || !a[0].ty.rank) {
        if (a[0].k == V_TENSOR || sema_is_number(a[0]))
            return a[0];
        sema_fail(s, sp[0], "item() needs a tensor, got %s", sema_describe(s, a[0]));
    }
    ValueId x = a[0].id;
    Type t = ty_of(s, x);
    if (ir_numel(t) != 1)
        sema_fail(s, sp[0], "item() needs a block of one element, got %s (%lld elements)", T(t),
                  (long long)ir_numel(t));
    int32_t one = 1;
    Type flat = ir_block(ir_elem(t), 1, &one);
    if (t.rank != 1)
        x = sema_emit(s, IR_RESHAPE, flat, &x, 1, call);
    if (t.dtype == DT_PTR) { /* through int64 */
        ValueId i = sema_cast(s, x, ir_scalar(DT_I64), call);
        return sema_tensor(s, sema_cast(s, take(s, i, 0, 0, call), ir_elem(t), call));
    }
    return sema_tensor(s, take(s, x, 0, 0, call));
}

/* tl.join(a, b) */
Val sema_h_join(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    return sema_tensor(s, join(s, a[0], a[1], sp[0], sp[1], call));
}

/* x = permute(reshape(y, (..., 2, H)), (..., -1, -2)), a block of y's
 * last dim halves side by side (Triton's subtiled epilogues): half k of
 * tl.split(x) is y's columns k*H .. k*H+H-1, an extract of y, which keeps
 * an MMA accumulator's halves in their registers where the reshape and
 * the select would move them. Returns 0 when x is not such a block. */
static ValueId split_half(Sema *s, ValueId x, int k, Span sp) {
    const Inst *tr = s->f->values[x].def;
    Type t = ty_of(s, x);
    int n = t.rank;
    if (!tr || tr->op != IR_TRANS || n < 2 || t.dtype == DT_PTR)
        return 0;
    for (int d = 0; d < n; d++)
        if (tr->attr.perm[d] != (d == n - 1 ? n - 2 : d == n - 2 ? n - 1 : d))
            return 0;
    const Inst *rs = s->f->values[tr->args[0]].def;
    if (!rs || rs->op != IR_RESHAPE)
        return 0;
    ValueId y = rs->args[0];
    Type yt = ty_of(s, y), half = yt;
    if (yt.rank != n - 1 || yt.shape[n - 2] != 2 * t.shape[n - 2])
        return 0;
    for (int d = 0; d < n - 2; d++)
        if (yt.shape[d] != t.shape[d])
            return 0;
    half.shape[n - 2] = t.shape[n - 2];
    ValueId r = sema_emit(s, IR_EXTRACT, half, &y, 1, sp);
    s->f->values[r].def->attr.axis = n - 2;
    s->f->values[r].def->attr.start = (int64_t)k * half.shape[n - 2];
    return r;
}

/* tl.split(a): a's last dim must be 2; the two halves */
Val sema_h_split(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name);
    Type t = ty_of(s, x);
    if (t.shape[t.rank - 1] != 2)
        sema_fail(s, sp[0], "split needs a block whose last dimension is 2, got %s", T(t));
    Val r[2];
    for (int k = 0; k < 2; k++) {
        ValueId h = split_half(s, x, k, call);
        r[k] = sema_tensor(s, h ? h : take(s, x, t.rank - 1, k, call));
    }
    return sema_tuple(s, r, 2);
}

/* tl.interleave(a, b): a0, b0, a1, b1, ... along the last dim */
Val sema_h_interleave(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    ValueId j = join(s, a[0], a[1], sp[0], sp[1], call);
    Type t = ty_of(s, j);
    if (t.rank == 1)
        return sema_tensor(s, j);
    Type r = t;
    r.rank--;
    r.shape[r.rank - 1] *= 2;
    return sema_tensor(s, sema_emit(s, IR_RESHAPE, r, &j, 1, call));
}

/* tl.cat(input, other, can_reorder=False): the inputs end to end along dim
 * 0 (Triton may reorder and insists on can_reorder=True; tl keeps the
 * order, which every caller may rely on or not). */
Val sema_h_cat(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = need_block(s, a[0], sp[0], bi->name), y = need_block(s, a[1], sp[1], bi->name);
    sema_opt_bool(s, a[2], sp[2], false, "can_reorder");
    Type tx = ty_of(s, x), ty = ty_of(s, y);
    if (!ir_type_eq(tx, ty))
        sema_fail(s, call, "cat needs two blocks of one type, got %s and %s", T(tx), T(ty));
    ValueId j = join(s, sema_tensor(s, x), sema_tensor(s, y), sp[0], sp[1], call);
    Type t = ty_of(s, j); /* [..., 2] -> [2, ...] -> [2 * s0, ...] */
    int perm[IR_MAX_RANK] = {0}; /* the verifier wants 0 past the rank */
    Type p = t;
    perm[0] = t.rank - 1;
    p.shape[0] = 2;
    for (int d = 1; d < t.rank; d++) {
        perm[d] = d - 1;
        p.shape[d] = t.shape[d - 1];
    }
    ValueId tr = sema_emit(s, IR_TRANS, p, &j, 1, call);
    memcpy(s->f->values[tr].def->attr.perm, perm, sizeof perm);
    Type r = tx;
    r.shape[0] *= 2;
    if (ir_numel(r) > IR_MAX_NUMEL)
        sema_fail(s, call, "numel (%lld) exceeds the maximum block size (%d)", (long long)ir_numel(r), IR_MAX_NUMEL);
    return sema_tensor(s, sema_emit(s, IR_RESHAPE, r, &tr, 1, call));
}
