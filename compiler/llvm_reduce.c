/* llvm_reduce.c: reductions along one axis (sum, max, min, argmax, argmin,
 * and reduce_fn: any combine region over several operands).
 *
 * Algorithm, for the input's ThreadMap and axis a of size S:
 *  1. in a thread: registers whose indices agree off the axis form a group
 *     (same reg_off mod shape off the axis, so the same element row in every
 *     thread); each group's registers, copies of one element counted once,
 *     combine in register order;
 *  2. in a warp: the lane bits that move along the axis (ldiv .. ldiv *
 *     lanes-1) are folded with butterfly shuffles (shfl.sync.bfly), so every
 *     lane ends with its group's warp result;
 *  3. across warps, when warps also split the axis: each warp writes its
 *     partials to shared memory (one slot per warp position); then, as
 *     Triton does, lane l reads slot l mod nw and a butterfly over nw lanes
 *     combines them, where those lanes hold the same groups (a commutative
 *     combine gives every lane the same bits); otherwise every thread reads
 *     and combines the slots in order (the same order everywhere);
 *  4. the groups now form a thread map of the result shape (the input's with
 *     the axis dropped: the SLICE layout); llvm_move renames (or moves) them
 *     into the result's layout.
 * A compile-time check confirms each element along the axis is counted
 * exactly once by steps 1-3.
 * fp16 / bf16 reduce in fp32; argmax / argmin carry (value, index) pairs and
 * break ties toward the smaller index, as Triton does. A reduce_fn carries one
 * value per operand and combines them with its region (llvm_combine), in
 * the operands' types; steps 2 and 3 combine partials in an order that is not
 * the elements' (Triton's too), so its combine must be commutative as well
 * as associative. */
#include <stdlib.h>
#include <string.h>

#include "llvm_int.h"

enum { RED_MAX_VALS = 17 }; /* values one element carries: reduce_fn's operands */

typedef struct Red {
    int kind;      /* ReduceKind (reduce only) */
    Inst *fn;      /* reduce_fn: the op whose combine region combines; else NULL */
    int nv;        /* values per element: 1, 2 for argmax / argmin (value, index), or fn's operands */
    DType ct[RED_MAX_VALS]; /* the type value k combines in */
    bool arg;      /* argmax / argmin: v[1] carries the index */
} Red;

typedef struct Group {
    int *regs;     /* input registers, one per distinct axis index */
    int n;
    LLVMValueRef *v; /* nv values */
} Group;

/* ---- combining ---- */

static LLVMValueRef cmp_vals(Lower *L, const Red *R, bool gt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(R->ct[0]))
        return LLVMBuildFCmp(L->b, gt ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    bool s = dt_is_signed(R->ct[0]);
    return LLVMBuildICmp(L->b, gt ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT), a, b, "");
}

static LLVMValueRef eq_vals(Lower *L, const Red *R, LLVMValueRef a, LLVMValueRef b) {
    return dt_is_float(R->ct[0]) ? LLVMBuildFCmp(L->b, LLVMRealOEQ, a, b, "") : LLVMBuildICmp(L->b, LLVMIntEQ, a, b, "");
}

/* v = combine(v, v2), nv values each */
static void combine(Lower *L, const Red *R, LLVMValueRef *v, const LLVMValueRef *v2) {
    if (R->fn) {
        LLVMValueRef out[RED_MAX_VALS];
        if (llvm_combine(L, R->fn, v, v2, out))
            memcpy(v, out, sizeof(LLVMValueRef) * (size_t)R->nv);
        return;
    }
    switch (R->kind) {
    case RED_SUM: v[0] = llvm_binop(L, IR_ADD, R->ct[0], v[0], v2[0]); return;
    case RED_MAX: v[0] = llvm_binop(L, IR_MAX, R->ct[0], v[0], v2[0]); return;
    case RED_MIN: v[0] = llvm_binop(L, IR_MIN, R->ct[0], v[0], v2[0]); return;
    default: {
        /* take the other pair when its value is strictly better, or equal
         * with a smaller index */
        LLVMValueRef gt = cmp_vals(L, R, R->kind == RED_ARGMAX, v2[0], v[0]);
        LLVMValueRef tie = LLVMBuildAnd(L->b, eq_vals(L, R, v2[0], v[0]),
                                        LLVMBuildICmp(L->b, LLVMIntSLT, v2[1], v[1], ""), "");
        LLVMValueRef take = LLVMBuildOr(L->b, gt, tie, "");
        v[0] = LLVMBuildSelect(L->b, take, v2[0], v[0], "");
        v[1] = LLVMBuildSelect(L->b, take, v2[1], v[1], "");
    }
    }
}

/* ---- shuffles ---- */

/* shfl.sync.MODE of any register type: 32-bit values directly, narrower
 * ones widened, 64-bit ones (and pointers) as two halves. */
LLVMValueRef llvm_shfl(Lower *L, const char *mode, LLVMValueRef v, LLVMValueRef b, int c) {
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (t == L->t_f32 || t == L->t_i32) {
        LLVMValueRef args[4] = {llvm_i32(L, (int32_t)0xffffffff), v, b, llvm_i32(L, c)};
        const char *name = arena_printf(L->f->arena, "llvm.nvvm.shfl.sync.%s.%s", mode, t == L->t_f32 ? "f32" : "i32");
        return llvm_call(L, name, t, args, 4);
    }
    if (k == LLVMPointerTypeKind)
        return LLVMBuildIntToPtr(L->b, llvm_shfl(L, mode, LLVMBuildPtrToInt(L->b, v, L->t_i64, ""), b, c), t, "");
    unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : t == L->t_f64 ? 64 : 16;
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef x = k == LLVMIntegerTypeKind ? v : LLVMBuildBitCast(L->b, v, it, "");
    LLVMValueRef r;
    if (bits == 64) { /* two 32-bit halves */
        LLVMValueRef lo = LLVMBuildTrunc(L->b, x, L->t_i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, x, llvm_i64(L, 32), ""), L->t_i32, "");
        lo = LLVMBuildZExt(L->b, llvm_shfl(L, mode, lo, b, c), L->t_i64, "");
        hi = LLVMBuildZExt(L->b, llvm_shfl(L, mode, hi, b, c), L->t_i64, "");
        r = LLVMBuildOr(L->b, lo, LLVMBuildShl(L->b, hi, llvm_i64(L, 32), ""), "");
    } else {
        r = LLVMBuildTrunc(L->b, llvm_shfl(L, mode, LLVMBuildZExt(L->b, x, L->t_i32, ""), b, c), it, "");
    }
    return k == LLVMIntegerTypeKind ? r : LLVMBuildBitCast(L->b, r, t, "");
}

LLVMValueRef llvm_shfl_xor(Lower *L, LLVMValueRef v, int mask) {
    return llvm_shfl(L, "bfly", v, llvm_i32(L, mask), 0x1f);
}

/* ---- the steps ---- */


static bool check_coverage(const ThreadMap *tm, int axis, const Group *g, int ng, int nl, int lmul, int nw, int wmul) {
    int S = tm->shape[axis];
    char *seen = malloc((size_t)S);
    bool ok = seen != NULL;
    for (int i = 0; i < ng && ok; i++) {
        memset(seen, 0, (size_t)S);
        for (int r = 0; r < g[i].n && ok; r++)
            for (int k = 0; k < nl && ok; k++)
                for (int j = 0; j < nw && ok; j++) {
                    int p = (int)(((int64_t)tm->reg_off[g[i].regs[r]][axis] + (int64_t)k * lmul + (int64_t)j * wmul) & (S - 1));
                    ok = !seen[p];
                    seen[p] = 1;
                }
        for (int p = 0; p < S && ok; p++)
            ok = seen[p];
    }
    free(seen);
    return ok;
}

/* Step 1: group the registers; returns the number of groups. */
static int make_groups(Lower *L, const ThreadMap *tm, int axis, Group *g, int *key_of_group) {
    int ng = 0, S = tm->shape[axis];
    int64_t pstride[IR_MAX_RANK] = {0}, s = 1;
    for (int d = tm->rank - 1; d >= 0; d--)
        if (d != axis) {
            pstride[d] = s;
            s *= tm->shape[d];
        }
    int *group_of_key = malloc(sizeof(int) * (size_t)s);
    if (!group_of_key)
        return -1;
    for (int64_t i = 0; i < s; i++)
        group_of_key[i] = -1;
    for (int r = 0; r < tm->nregs; r++) {
        int64_t key = 0;
        for (int d = 0; d < tm->rank; d++)
            if (d != axis)
                key += (tm->reg_off[r][d] & (tm->shape[d] - 1)) * pstride[d];
        int gi = group_of_key[key];
        if (gi < 0) {
            gi = group_of_key[key] = ng++;
            key_of_group[gi] = r;
            g[gi].regs = arena_alloc(L->f->arena, sizeof(int) * (size_t)tm->nregs);
        }
        bool dup = false; /* a copy of an element this group already has */
        for (int i = 0; i < g[gi].n && !dup; i++)
            dup = ((tm->reg_off[g[gi].regs[i]][axis] - tm->reg_off[r][axis]) & (S - 1)) == 0;
        if (!dup)
            g[gi].regs[g[gi].n++] = r;
    }
    free(group_of_key);
    return ng;
}

static LLVMValueRef to_ct(Lower *L, const Red *R, LLVMValueRef x, DType from) { return llvm_cast(L, x, from, R->ct[0]); }

/* The values of slot p (value k in the array at byte off[k]). */
static void load_slot(Lower *L, const Red *R, LLVMValueRef p, const int64_t *off, LLVMValueRef *x) {
    for (int k = 0; k < R->nv; k++) {
        LLVMTypeRef mt = llvm_mem_type(L, R->ct[k]);
        x[k] = LLVMBuildLoad2(L->b, mt, llvm_smem_ptr(L, mt, p, off[k]), "");
        if (R->ct[k] == DT_I1)
            x[k] = LLVMBuildTrunc(L->b, x[k], L->t_i1, "");
    }
}

/* Do lanes that differ only in their low log2(nw) bits hold the same groups
 * (no dim but the axis moves with those bits)? Then a butterfly over them
 * combines the partials of one group. */
static bool lanes_share_groups(const ThreadMap *tm, int axis, int nw) {
    if (nw > 32)
        return false;
    for (int d = 0; d < tm->rank; d++)
        if (d != axis && tm->shape[d] > 1 && tm->dim[d].lmod > 1 && tm->dim[d].ldiv < nw)
            return false;
    return true;
}

/* Step 3: combine the partials of the warps along the axis in shared memory
 * (value k of every slot in its own array). */
static void across_warps(Lower *L, Inst *in, const Red *R, const ThreadMap *tm, int axis, Group *g, const int *rep,
                         int ng, int nw) {
    int64_t pstride[IR_MAX_RANK] = {0}, s = 1;
    for (int d = tm->rank - 1; d >= 0; d--)
        if (d != axis) {
            pstride[d] = s;
            s *= tm->shape[d];
        }
    int64_t off[RED_MAX_VALS + 1] = {0};
    for (int k = 0; k < R->nv; k++)
        off[k + 1] = (off[k] + s * nw * llvm_dt_bytes(R->ct[k]) + 7) & ~(int64_t)7;
    llvm_smem_use(L, off[R->nv], in->span);
    LLVMValueRef slot = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, L->warp, llvm_i32(L, tm->dim[axis].wdiv), ""),
                                     llvm_i32(L, nw - 1), "");
    LLVMValueRef *at = llvm_new_regs(L, ng);
    for (int i = 0; i < ng; i++) {
        at[i] = LLVMBuildMul(L->b, llvm_linear(L, tm, rep[i], pstride), llvm_i32(L, nw), "");
        LLVMValueRef p = LLVMBuildAdd(L->b, at[i], slot, "");
        for (int k = 0; k < R->nv; k++) {
            LLVMValueRef x = g[i].v[k];
            if (R->ct[k] == DT_I1)
                x = LLVMBuildZExt(L->b, x, L->t_i8, "");
            LLVMBuildStore(L->b, x, llvm_smem_ptr(L, llvm_mem_type(L, R->ct[k]), p, off[k]));
        }
    }
    llvm_barrier(L);
    if (lanes_share_groups(tm, axis, nw)) {
        /* Triton's way: lane l reads slot l mod nw of each of its groups and
         * butterflies over nw lanes, one load a group instead of nw (the nw
         * partials live at once cost Liger's layer norm 16 registers) */
        LLVMValueRef lk = LLVMBuildAnd(L->b, L->lane, llvm_i32(L, nw - 1), "");
        for (int i = 0; i < ng; i++) {
            load_slot(L, R, LLVMBuildAdd(L->b, at[i], lk, ""), off, g[i].v);
            for (int m = 1; m < nw; m *= 2) {
                LLVMValueRef v[RED_MAX_VALS];
                for (int k = 0; k < R->nv; k++)
                    v[k] = llvm_shfl_xor(L, g[i].v[k], m);
                combine(L, R, g[i].v, v);
            }
        }
        return;
    }
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < nw; j++) {
            LLVMValueRef x[RED_MAX_VALS];
            load_slot(L, R, LLVMBuildAdd(L->b, at[i], llvm_i32(L, j), ""), off, x);
            if (j == 0)
                memcpy(g[i].v, x, sizeof(LLVMValueRef) * (size_t)R->nv);
            else
                combine(L, R, g[i].v, x);
        }
}

/* Step 4: the groups as a thread map of the input shape minus the axis. */
static ThreadMap *group_map(Lower *L, const ThreadMap *tm, int axis, const int *rep, int ng) {
    ThreadMap *m = arena_alloc(L->f->arena, sizeof *m);
    m->reg_off = arena_alloc(L->f->arena, sizeof m->reg_off[0] * (size_t)ng);
    m->nregs = ng;
    m->contig = 1;
    for (int d = 0; d < tm->rank; d++) {
        if (d == axis)
            continue;
        m->shape[m->rank] = tm->shape[d];
        m->dim[m->rank] = tm->dim[d];
        for (int i = 0; i < ng; i++)
            m->reg_off[i][m->rank] = tm->reg_off[rep[i]][d];
        m->rank++;
    }
    return m;
}

/* Result k from value k of the groups (reduce: its value, or the index of
 * argmax / argmin). */
static void finish(Lower *L, Inst *in, const Red *R, const ThreadMap *tm, int axis, Group *g, const int *rep, int ng,
                   int k) {
    ValueId res = in->results[k];
    DType rt = (DType)L->f->values[res].type.dtype;
    LLVMValueRef *vals = llvm_new_regs(L, ng);
    for (int i = 0; i < ng; i++)
        vals[i] = R->fn ? g[i].v[k] : R->arg ? g[i].v[1] : llvm_cast(L, g[i].v[0], R->ct[0], rt);
    const ThreadMap *out = llvm_tm(L, res);
    if (tm->rank == 1 || !out) { /* reduced to one value, which every thread holds */
        int n = out ? out->nregs : 1;
        LLVMValueRef *r = llvm_new_regs(L, n);
        for (int i = 0; i < n; i++)
            r[i] = vals[0];
        llvm_set(L, res, r, n);
        return;
    }
    ThreadMap *mid = group_map(L, tm, axis, rep, ng);
    int64_t ms[IR_MAX_RANK], coef[IR_MAX_RANK] = {0};
    llvm_row_major(mid->rank, mid->shape, ms);
    for (int d = 0, j = 0; d < out->rank; d++) {
        if (in->attr.keep_dims && d == axis)
            continue; /* the kept size-1 dim */
        coef[d] = ms[j++];
    }
    LLVMValueRef *r = llvm_new_regs(L, out->nregs);
    llvm_move(L, mid, vals, rt, out, r, coef, in->span);
    llvm_set(L, res, r, out->nregs);
}

void llvm_lower_reduce(Lower *L, Inst *in) {
    ValueId src = in->args[0];
    const ThreadMap *tm = llvm_tm(L, src);
    DType it = (DType)L->f->values[src].type.dtype, rt = (DType)L->f->values[in->results[0]].type.dtype;
    Red R = {.kind = in->attr.reduce, .nv = 1};
    LLVMValueRef **x = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * RED_MAX_VALS);
    if (in->op == IR_REDUCE_FN) {
        R.fn = in;
        R.nv = in->nargs;
        if (R.nv > RED_MAX_VALS - 1) {
            diag_internal(L->d, "reduce_fn with %d operands", R.nv);
            L->failed = true;
            return;
        }
        for (int k = 0; k < R.nv; k++) { /* every operand in the first one's layout */
            R.ct[k] = (DType)L->f->values[in->args[k]].type.dtype;
            x[k] = llvm_regs_like(L, in->args[k], src, in->span);
        }
    } else {
        R.arg = R.kind == RED_ARGMAX || R.kind == RED_ARGMIN;
        R.nv = R.arg ? 2 : 1;
        R.ct[0] = R.arg ? it : rt;
        if (R.ct[0] == DT_F16 || R.ct[0] == DT_BF16)
            R.ct[0] = DT_F32;
        R.ct[1] = DT_I32;
        x[0] = llvm_val(L, src)->r;
    }
    if (!tm) { /* a scalar: nothing to combine */
        for (int k = 0; k < in->nresults; k++) {
            LLVMValueRef *r = llvm_new_regs(L, 1);
            r[0] = R.fn ? x[k][0] : R.arg ? llvm_i32(L, 0) : llvm_cast(L, x[0][0], it, rt);
            llvm_set(L, in->results[k], r, 1);
        }
        return;
    }
    int axis = in->attr.axis, S = tm->shape[axis];
    Group *g = arena_alloc(L->f->arena, sizeof(Group) * (size_t)tm->nregs);
    int *rep = arena_alloc(L->f->arena, sizeof(int) * (size_t)tm->nregs);
    int ng = make_groups(L, tm, axis, g, rep);
    int nl = layout_distinct(tm->dim[axis].lmod, tm->dim[axis].lmul, S);
    int nw = layout_distinct(tm->dim[axis].wmod, tm->dim[axis].wmul, S);
    if (ng < 0 || !check_coverage(tm, axis, g, ng, nl, tm->dim[axis].lmul, nw, tm->dim[axis].wmul)) {
        diag_internal(L->d, "reduction along axis %d: the layout does not cover the axis once", axis);
        L->failed = true;
        return;
    }
    for (int i = 0; i < ng; i++) { /* step 1 */
        g[i].v = arena_alloc(L->f->arena, sizeof(LLVMValueRef) * RED_MAX_VALS);
        for (int j = 0; j < g[i].n; j++) {
            int r = g[i].regs[j];
            LLVMValueRef v[RED_MAX_VALS];
            for (int k = 0; k < R.nv; k++)
                v[k] = R.fn ? x[k][r] : k == 0 ? to_ct(L, &R, x[0][r], it) : llvm_index(L, tm, r, axis);
            if (j == 0)
                memcpy(g[i].v, v, sizeof(LLVMValueRef) * (size_t)R.nv);
            else
                combine(L, &R, g[i].v, v);
        }
    }
    for (int b = 1; b < nl; b *= 2) /* step 2 */
        for (int i = 0; i < ng; i++) {
            int mask = tm->dim[axis].ldiv * b;
            LLVMValueRef v[RED_MAX_VALS];
            for (int k = 0; k < R.nv; k++)
                v[k] = llvm_shfl_xor(L, g[i].v[k], mask);
            combine(L, &R, g[i].v, v);
        }
    if (nw > 1) /* step 3 */
        across_warps(L, in, &R, tm, axis, g, rep, ng, nw);
    for (int k = 0; k < (R.fn ? R.nv : 1) && !L->failed; k++)
        finish(L, in, &R, tm, axis, g, rep, ng, k);
}
