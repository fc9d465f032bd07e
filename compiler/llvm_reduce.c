/* llvm_reduce.c: reductions along one axis (sum, max, min, argmax, argmin).
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
 *     partials to shared memory (one slot per warp position), and every thread
 *     reads and combines the slots in order (the same order everywhere, so
 *     all copies agree bit for bit);
 *  4. the groups now form a thread map of the result shape (the input's with
 *     the axis dropped: the SLICE layout); llvm_move renames (or moves) them
 *     into the result's layout.
 * A compile-time check confirms each element along the axis is counted
 * exactly once by steps 1-3.
 * fp16 / bf16 reduce in fp32; argmax / argmin carry (value, index) pairs and
 * break ties toward the smaller index, as Triton does. */
#include <stdlib.h>
#include <string.h>

#include "llvm_int.h"

typedef struct Red {
    int kind;      /* ReduceKind */
    DType ct;      /* the type values combine in */
    bool arg;      /* argmax / argmin: idx carries the index */
} Red;

typedef struct Group {
    int *regs;     /* input registers, one per distinct axis index */
    int n;
    LLVMValueRef v, idx;
} Group;

/* ---- combining ---- */

static LLVMValueRef cmp_vals(Lower *L, const Red *R, bool gt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(R->ct))
        return LLVMBuildFCmp(L->b, gt ? LLVMRealOGT : LLVMRealOLT, a, b, "");
    bool s = dt_is_signed(R->ct);
    return LLVMBuildICmp(L->b, gt ? (s ? LLVMIntSGT : LLVMIntUGT) : (s ? LLVMIntSLT : LLVMIntULT), a, b, "");
}

static LLVMValueRef eq_vals(Lower *L, const Red *R, LLVMValueRef a, LLVMValueRef b) {
    return dt_is_float(R->ct) ? LLVMBuildFCmp(L->b, LLVMRealOEQ, a, b, "") : LLVMBuildICmp(L->b, LLVMIntEQ, a, b, "");
}

/* (v, idx) = combine((v, idx), (v2, idx2)) */
static void combine(Lower *L, const Red *R, LLVMValueRef *v, LLVMValueRef *idx, LLVMValueRef v2, LLVMValueRef idx2) {
    switch (R->kind) {
    case RED_SUM: *v = llvm_binop(L, IR_ADD, R->ct, *v, v2); return;
    case RED_MAX: *v = llvm_binop(L, IR_MAX, R->ct, *v, v2); return;
    case RED_MIN: *v = llvm_binop(L, IR_MIN, R->ct, *v, v2); return;
    default: {
        /* take the other pair when its value is strictly better, or equal
         * with a smaller index */
        LLVMValueRef gt = cmp_vals(L, R, R->kind == RED_ARGMAX, v2, *v);
        LLVMValueRef tie = LLVMBuildAnd(L->b, eq_vals(L, R, v2, *v),
                                        LLVMBuildICmp(L->b, LLVMIntSLT, idx2, *idx, ""), "");
        LLVMValueRef take = LLVMBuildOr(L->b, gt, tie, "");
        *v = LLVMBuildSelect(L->b, take, v2, *v, "");
        *idx = LLVMBuildSelect(L->b, take, idx2, *idx, "");
    }
    }
}

/* ---- shuffles ---- */

LLVMValueRef llvm_shfl_xor(Lower *L, LLVMValueRef v, int mask) {
    LLVMTypeRef t = LLVMTypeOf(v);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (t == L->t_f32 || t == L->t_i32) {
        LLVMValueRef args[4] = {llvm_i32(L, (int32_t)0xffffffff), v, llvm_i32(L, mask), llvm_i32(L, 0x1f)};
        return llvm_call(L, t == L->t_f32 ? "llvm.nvvm.shfl.sync.bfly.f32" : "llvm.nvvm.shfl.sync.bfly.i32", t, args, 4);
    }
    if (k == LLVMPointerTypeKind)
        return LLVMBuildIntToPtr(L->b, llvm_shfl_xor(L, LLVMBuildPtrToInt(L->b, v, L->t_i64, ""), mask), t, "");
    unsigned bits = k == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : t == L->t_f64 ? 64 : 16;
    LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, bits);
    LLVMValueRef x = k == LLVMIntegerTypeKind ? v : LLVMBuildBitCast(L->b, v, it, "");
    LLVMValueRef r;
    if (bits == 64) { /* two 32-bit halves */
        LLVMValueRef lo = LLVMBuildTrunc(L->b, x, L->t_i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, x, llvm_i64(L, 32), ""), L->t_i32, "");
        lo = LLVMBuildZExt(L->b, llvm_shfl_xor(L, lo, mask), L->t_i64, "");
        hi = LLVMBuildZExt(L->b, llvm_shfl_xor(L, hi, mask), L->t_i64, "");
        r = LLVMBuildOr(L->b, lo, LLVMBuildShl(L->b, hi, llvm_i64(L, 32), ""), "");
    } else {
        r = LLVMBuildTrunc(L->b, llvm_shfl_xor(L, LLVMBuildZExt(L->b, x, L->t_i32, ""), mask), it, "");
    }
    return k == LLVMIntegerTypeKind ? r : LLVMBuildBitCast(L->b, r, t, "");
}

/* ---- the steps ---- */

/* Distinct positions along the axis that `count` values of an id field
 * multiplied by `mul` reach modulo S. */
static int distinct(int mod, int mul, int S) {
    if (mul <= 0 || mod <= 1 || mul >= S)
        return 1;
    return mod < S / mul ? mod : S / mul;
}

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

static LLVMValueRef to_ct(Lower *L, const Red *R, LLVMValueRef x, DType from) { return llvm_cast(L, x, from, R->ct); }

/* Step 3: combine the partials of the warps along the axis in shared memory. */
static void across_warps(Lower *L, Inst *in, const Red *R, const ThreadMap *tm, int axis, Group *g, const int *rep,
                         int ng, int nw) {
    int64_t pstride[IR_MAX_RANK] = {0}, s = 1;
    for (int d = tm->rank - 1; d >= 0; d--)
        if (d != axis) {
            pstride[d] = s;
            s *= tm->shape[d];
        }
    LLVMTypeRef vt = llvm_mem_type(L, R->ct);
    int vbytes = llvm_dt_bytes(R->ct);
    int64_t idx_off = (s * nw * vbytes + 3) & ~(int64_t)3;
    llvm_smem_use(L, idx_off + (R->arg ? s * nw * 4 : 0), in->span);
    LLVMValueRef slot = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, L->warp, llvm_i32(L, tm->dim[axis].wdiv), ""),
                                     llvm_i32(L, nw - 1), "");
    LLVMValueRef *at = llvm_new_regs(L, ng);
    for (int i = 0; i < ng; i++) {
        at[i] = LLVMBuildMul(L->b, llvm_linear(L, tm, rep[i], pstride), llvm_i32(L, nw), "");
        LLVMValueRef p = LLVMBuildAdd(L->b, at[i], slot, "");
        LLVMBuildStore(L->b, g[i].v, llvm_smem_ptr(L, vt, p, 0));
        if (R->arg)
            LLVMBuildStore(L->b, g[i].idx, llvm_smem_ptr(L, L->t_i32, p, idx_off));
    }
    llvm_barrier(L);
    for (int i = 0; i < ng; i++)
        for (int j = 0; j < nw; j++) {
            LLVMValueRef p = LLVMBuildAdd(L->b, at[i], llvm_i32(L, j), "");
            LLVMValueRef v = LLVMBuildLoad2(L->b, vt, llvm_smem_ptr(L, vt, p, 0), "");
            LLVMValueRef x = R->arg ? LLVMBuildLoad2(L->b, L->t_i32, llvm_smem_ptr(L, L->t_i32, p, idx_off), "") : NULL;
            if (j == 0) {
                g[i].v = v;
                g[i].idx = x;
            } else {
                combine(L, R, &g[i].v, &g[i].idx, v, x);
            }
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

static void finish(Lower *L, Inst *in, const Red *R, const ThreadMap *tm, int axis, Group *g, const int *rep, int ng) {
    ValueId res = in->results[0];
    DType rt = (DType)L->f->values[res].type.dtype;
    LLVMValueRef *vals = llvm_new_regs(L, ng);
    for (int i = 0; i < ng; i++)
        vals[i] = R->arg ? g[i].idx : llvm_cast(L, g[i].v, R->ct, rt);
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
    for (int d = 0, k = 0; d < out->rank; d++) {
        if (in->attr.keep_dims && d == axis)
            continue; /* the kept size-1 dim */
        coef[d] = ms[k++];
    }
    LLVMValueRef *r = llvm_new_regs(L, out->nregs);
    llvm_move(L, mid, vals, rt, out, r, coef, in->span);
    llvm_set(L, res, r, out->nregs);
}

void llvm_lower_reduce(Lower *L, Inst *in) {
    ValueId src = in->args[0];
    const ThreadMap *tm = llvm_tm(L, src);
    DType it = (DType)L->f->values[src].type.dtype, rt = (DType)L->f->values[in->results[0]].type.dtype;
    Red R = {.kind = in->attr.reduce, .arg = in->attr.reduce == RED_ARGMAX || in->attr.reduce == RED_ARGMIN};
    R.ct = R.arg ? it : rt;
    if (R.ct == DT_F16 || R.ct == DT_BF16)
        R.ct = DT_F32;
    if (!tm) { /* a scalar: nothing to combine */
        LLVMValueRef x = llvm_val(L, src)->r[0];
        LLVMValueRef *r = llvm_new_regs(L, 1);
        r[0] = R.arg ? llvm_i32(L, 0) : llvm_cast(L, x, it, rt);
        llvm_set(L, in->results[0], r, 1);
        return;
    }
    int axis = in->attr.axis, S = tm->shape[axis];
    Group *g = arena_alloc(L->f->arena, sizeof(Group) * (size_t)tm->nregs);
    int *rep = arena_alloc(L->f->arena, sizeof(int) * (size_t)tm->nregs);
    int ng = make_groups(L, tm, axis, g, rep);
    int nl = distinct(tm->dim[axis].lmod, tm->dim[axis].lmul, S);
    int nw = distinct(tm->dim[axis].wmod, tm->dim[axis].wmul, S);
    if (ng < 0 || !check_coverage(tm, axis, g, ng, nl, tm->dim[axis].lmul, nw, tm->dim[axis].wmul)) {
        diag_internal(L->d, "reduction along axis %d: the layout does not cover the axis once", axis);
        L->failed = true;
        return;
    }
    LVal *x = llvm_val(L, src);
    for (int i = 0; i < ng; i++) { /* step 1 */
        for (int k = 0; k < g[i].n; k++) {
            int r = g[i].regs[k];
            LLVMValueRef v = to_ct(L, &R, x->r[r], it);
            LLVMValueRef idx = R.arg ? llvm_index(L, tm, r, axis) : NULL;
            if (k == 0) {
                g[i].v = v;
                g[i].idx = idx;
            } else {
                combine(L, &R, &g[i].v, &g[i].idx, v, idx);
            }
        }
    }
    for (int b = 1; b < nl; b *= 2) /* step 2 */
        for (int i = 0; i < ng; i++) {
            int mask = tm->dim[axis].ldiv * b;
            LLVMValueRef v = llvm_shfl_xor(L, g[i].v, mask);
            LLVMValueRef idx = R.arg ? llvm_shfl_xor(L, g[i].idx, mask) : NULL;
            combine(L, &R, &g[i].v, &g[i].idx, v, idx);
        }
    if (nw > 1) /* step 3 */
        across_warps(L, in, &R, tm, axis, g, rep, ng, nw);
    finish(L, in, &R, tm, axis, g, rep, ng);
}
