/* llvm_scan.c: scan (cumsum, associative_scan), gather and histogram, and the
 * lowering of combine regions that scan and reduce_fn share.
 *
 * A combine region is lowered like any other code, once per combination,
 * on scalar registers: its arguments are bound to the two partial results
 * and its yield gives the combined one. The code is straight-line (or the
 * region's own structured control flow), so every thread runs it; where a
 * partial may be empty (a lane with no predecessor) the result is chosen
 * with selects, never with branches around shuffles.
 *
 * Scan along axis a of size S, in the result's ThreadMap, which the layout
 * pass makes BLOCKED. Along a, register r of thread (lane, warp) holds
 *
 *     position = c + Lr * C + Wr * C * nl + k * T,   T = C * nl * nw
 *
 * with c < C consecutive elements in the thread (a chunk), Lr < nl the
 * lane's place along a ((lane / ldiv) mod nl), Wr < nw the warp's, k < K =
 * S / T the repetition of the layout's tile. (Where the tile is larger than
 * the block, lanes or warps beyond nl / nw hold copies: the mod.) The steps,
 * for each row (registers that agree off the axis) and each k:
 *  1. in a thread: an inclusive scan of the chunk, in order;
 *  2. in a warp: an inclusive Hillis-Steele scan of the chunk totals over
 *     the nl lanes (shfl.up by ldiv, 2 ldiv, 4 ldiv ...; a lane combines what
 *     it receives only when there is a lane that far before it); the lane's
 *     exclusive prefix is then its predecessor's value, the warp's total the
 *     last lane's (shfl.idx);
 *  3. across warps (nw > 1): each warp's total goes to shared memory, one
 *     slot per (row, k, warp); every thread combines the slots of the warps
 *     before its own (its prefix) and all of them (the total of repetition
 *     k), in warp order;
 *  4. repetitions: the totals of k' < k, in order, are the prefix of k;
 * and each element is prefix(k) . prefix(warp) . prefix(lane) . chunk scan,
 * combined left to right: the combine function sees its operands in element
 * order everywhere, so it need only be associative (Triton's contract), not
 * commutative. `reverse` runs the same steps with the order mirrored (chunks
 * from their end, shfl.down, the last warp and repetition first): a scan of
 * the reversed sequence, mapped back.
 *
 * gather stages the source in shared memory (row-major) and every thread
 * loads the elements its result registers name. histogram zeroes one i32
 * counter per bin in shared memory, adds 1 with a shared atomic for every
 * element (one copy of each: llvm_owner) that is in range and not masked,
 * and reads the counters back in the result's layout. */
#include <stdlib.h>
#include <string.h>

#include "llvm_int.h"

enum { SCAN_MAX = 16 }; /* operands of one scan (sema allows 16) */

/* ---- combine regions ---- */

bool llvm_combine(Lower *L, Inst *in, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out) {
    Block *blk = in->regions[0];
    int n = in->nargs;
    if (L->failed)
        return false;
    for (int i = 0; i < n; i++) {
        LLVMValueRef *ra = llvm_new_regs(L, 1), *rb = llvm_new_regs(L, 1);
        ra[0] = a[i];
        rb[0] = b[i];
        llvm_set(L, blk->args[i], ra, 1);
        llvm_set(L, blk->args[n + i], rb, 1);
    }
    Inst *y = llvm_lower_inline(L, blk);
    if (L->failed)
        return false;
    if (!y || y->op != IR_YIELD || y->nargs != n) {
        diag_internal(L->d, "the combine region of %s does not yield %d values", ir_ops[in->op].name, n);
        L->failed = true;
        return false;
    }
    for (int i = 0; i < n; i++)
        out[i] = llvm_val(L, y->args[i])->r[0];
    return true;
}

/* A partial result of a scan: n values, `known` false while empty; when
 * known, `valid` says at run time whether it holds anything (NULL: yes). */
typedef struct Part {
    LLVMValueRef v[SCAN_MAX];
    bool known;
    LLVMValueRef valid;
} Part;

/* The elements of p followed by those of q. */
static Part join(Lower *L, Inst *in, const Part *p, const Part *q) {
    int n = in->nargs;
    if (!p->known)
        return *q;
    if (!q->known)
        return *p;
    Part r = {.known = true};
    LLVMValueRef c[SCAN_MAX];
    if (!llvm_combine(L, in, p->v, q->v, c))
        return *p;
    for (int i = 0; i < n; i++) {
        LLVMValueRef x = c[i];
        if (q->valid) /* q empty: p */
            x = LLVMBuildSelect(L->b, q->valid, x, p->v[i], "");
        if (p->valid) /* p empty: q */
            x = LLVMBuildSelect(L->b, p->valid, x, q->v[i], "");
        r.v[i] = x;
    }
    r.valid = p->valid && q->valid ? LLVMBuildOr(L->b, p->valid, q->valid, "") : NULL;
    return r;
}

static Part part_of(const LLVMValueRef *v, int n, LLVMValueRef valid) {
    Part p = {.known = true, .valid = valid};
    memcpy(p.v, v, sizeof(LLVMValueRef) * (size_t)n);
    return p;
}

/* ---- scan ---- */


typedef struct ScanShape {
    int C, K, T, nl, nw;
    int ng;          /* rows */
    int *regs;       /* ng * C * K registers: row g, repetition k, chunk c at [(g * K + k) * C + c] */
} ScanShape;

typedef struct RegPos {
    int reg, row, pos;
} RegPos;

static int by_row_pos(const void *a, const void *b) {
    const RegPos *x = a, *y = b;
    return x->row != y->row ? (x->row > y->row) - (x->row < y->row) : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Group the registers into rows and check the decomposition above. */
static bool scan_shape(Lower *L, const ThreadMap *tm, int axis, ScanShape *sh) {
    int S = tm->shape[axis], n = tm->nregs;
    sh->nl = layout_distinct(tm->dim[axis].lmod, tm->dim[axis].lmul, S);
    sh->nw = layout_distinct(tm->dim[axis].wmod, tm->dim[axis].wmul, S);
    int64_t key_stride[IR_MAX_RANK] = {0}, keys = 1;
    for (int d = tm->rank - 1; d >= 0; d--)
        if (d != axis) {
            key_stride[d] = keys;
            keys *= tm->shape[d];
        }
    int *row_of_key = malloc(sizeof(int) * (size_t)keys);
    RegPos *rp = malloc(sizeof(RegPos) * (size_t)n);
    bool ok = row_of_key && rp && n > 0;
    for (int64_t i = 0; ok && i < keys; i++)
        row_of_key[i] = -1;
    sh->ng = 0;
    for (int r = 0; ok && r < n; r++) {
        int64_t key = 0;
        for (int d = 0; d < tm->rank; d++)
            if (d != axis)
                key += (tm->reg_off[r][d] & (tm->shape[d] - 1)) * key_stride[d];
        if (row_of_key[key] < 0)
            row_of_key[key] = sh->ng++;
        rp[r] = (RegPos){r, row_of_key[key], tm->reg_off[r][axis] & (S - 1)};
    }
    if (ok)
        qsort(rp, (size_t)n, sizeof *rp, by_row_pos);
    /* C: the run of consecutive positions from 0 in row 0 */
    int C = 0;
    while (ok && C < n && rp[C].row == 0 && rp[C].pos == C)
        C++;
    sh->C = C;
    sh->T = C * sh->nl * sh->nw;
    ok = ok && C > 0 && sh->T <= S && S % sh->T == 0;
    sh->K = ok ? S / sh->T : 0;
    ok = ok && (sh->nl == 1 || tm->dim[axis].lmul == C) && (sh->nw == 1 || tm->dim[axis].wmul == C * sh->nl);
    ok = ok && n == sh->ng * C * sh->K;
    sh->regs = ok ? arena_alloc(L->f->arena, sizeof(int) * (size_t)n) : NULL;
    for (int i = 0; ok && i < n; i++) { /* row g, repetition k, chunk c at i = (g * K + k) * C + c */
        int g = i / (C * sh->K), k = i / C % sh->K, c = i % C;
        ok = rp[i].row == g && rp[i].pos == c + k * sh->T;
        sh->regs[i] = rp[i].reg;
    }
    free(row_of_key);
    free(rp);
    return ok;
}

/* Step 3: the warps' totals of each (row, k) through shared memory; returns
 * the prefix of this thread's warp in pre[(g * K + k)] and the totals in
 * tot[...]. */
static void scan_warps(Lower *L, Inst *in, const ThreadMap *tm, int axis, const ScanShape *sh, const Part *wt,
                       LLVMValueRef lw, Part *pre, Part *tot) {
    int n = in->nargs, nw = sh->nw, K = sh->K;
    bool rev = in->attr.reverse;
    int64_t pstride[IR_MAX_RANK] = {0}, rows = 1;
    for (int d = tm->rank - 1; d >= 0; d--)
        if (d != axis) {
            pstride[d] = rows;
            rows *= tm->shape[d];
        }
    int64_t off[SCAN_MAX + 1] = {0};
    DType dt[SCAN_MAX];
    for (int i = 0; i < n; i++) {
        dt[i] = (DType)L->f->values[in->args[i]].type.dtype;
        off[i + 1] = (off[i] + rows * K * nw * llvm_dt_bytes(dt[i]) + 7) & ~(int64_t)7;
    }
    llvm_smem_use(L, off[n], in->span);
    LLVMValueRef wr = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, L->warp, llvm_i32(L, tm->dim[axis].wdiv), ""),
                                   llvm_i32(L, nw - 1), "");
    LLVMValueRef *at = llvm_new_regs(L, sh->ng * K);
    llvm_barrier(L);
    for (int g = 0; g < sh->ng; g++)
        for (int k = 0; k < K; k++) {
            LLVMValueRef row = llvm_linear(L, tm, sh->regs[(g * K + k) * sh->C], pstride);
            at[g * K + k] = LLVMBuildMul(L->b, LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, llvm_i32(L, K), ""),
                                                            llvm_i32(L, k), ""), llvm_i32(L, nw), "");
            LLVMValueRef p = LLVMBuildAdd(L->b, at[g * K + k], wr, "");
            for (int i = 0; i < n; i++) {
                LLVMValueRef x = wt[g * K + k].v[i];
                if (dt[i] == DT_I1)
                    x = LLVMBuildZExt(L->b, x, L->t_i8, "");
                LLVMBuildStore(L->b, x, llvm_smem_ptr(L, llvm_mem_type(L, dt[i]), p, off[i]));
            }
        }
    llvm_barrier(L);
    for (int gk = 0; gk < sh->ng * K; gk++) {
        Part acc = {.known = false}, mine = {.known = false};
        for (int jl = 0; jl < nw; jl++) { /* warps in element order */
            int j = rev ? nw - 1 - jl : jl;
            LLVMValueRef p = LLVMBuildAdd(L->b, at[gk], llvm_i32(L, j), ""), v[SCAN_MAX];
            for (int i = 0; i < n; i++) {
                LLVMTypeRef mt = llvm_mem_type(L, dt[i]);
                v[i] = LLVMBuildLoad2(L->b, mt, llvm_smem_ptr(L, mt, p, off[i]), "");
                if (dt[i] == DT_I1)
                    v[i] = LLVMBuildTrunc(L->b, v[i], L->t_i1, "");
            }
            Part s = part_of(v, n, NULL);
            acc = join(L, in, &acc, &s);
            if (jl == nw - 1)
                continue;
            /* the prefix of warp lw is acc after warps 0 .. lw-1 */
            LLVMValueRef here = LLVMBuildICmp(L->b, LLVMIntEQ, lw, llvm_i32(L, jl + 1), "");
            if (!mine.known) {
                mine = acc;
                mine.valid = here;
            } else {
                for (int i = 0; i < n; i++)
                    mine.v[i] = LLVMBuildSelect(L->b, here, acc.v[i], mine.v[i], "");
                mine.valid = LLVMBuildOr(L->b, mine.valid, here, "");
            }
        }
        tot[gk] = acc;
        pre[gk] = mine;
    }
}

void llvm_lower_scan(Lower *L, Inst *in) {
    int n = in->nargs, axis = in->attr.axis;
    bool rev = in->attr.reverse;
    ValueId r0 = in->results[0];
    const ThreadMap *tm = llvm_tm(L, r0);
    if (!tm || n > SCAN_MAX) {
        diag_internal(L->d, "scan of %d operands without a thread map", n);
        L->failed = true;
        return;
    }
    LLVMValueRef *x[SCAN_MAX], *out[SCAN_MAX];
    for (int i = 0; i < n; i++) {
        x[i] = llvm_regs_like(L, in->args[i], r0, in->span);
        out[i] = llvm_new_regs(L, tm->nregs);
        memcpy(out[i], x[i], sizeof(LLVMValueRef) * (size_t)tm->nregs);
    }
    ScanShape sh;
    if (tm->shape[axis] > 1 && !scan_shape(L, tm, axis, &sh)) {
        diag_internal(L->d, "scan along axis %d: the layout is not a blocked one", axis);
        L->failed = true;
        return;
    }
    if (tm->shape[axis] > 1) {
        int C = sh.C, K = sh.K, nl = sh.nl, nw = sh.nw, gks = sh.ng * K;
        Part *chunk = arena_alloc(L->f->arena, sizeof(Part) * (size_t)(gks * C));
        Part *tot = arena_alloc(L->f->arena, sizeof(Part) * (size_t)gks);
        Part *lpre = arena_alloc(L->f->arena, sizeof(Part) * (size_t)gks);
        Part *wpre = arena_alloc(L->f->arena, sizeof(Part) * (size_t)gks);
        /* step 1: the chunks, in element order */
        for (int gk = 0; gk < gks; gk++) {
            Part acc = {.known = false};
            for (int cl = 0; cl < C; cl++) {
                int c = rev ? C - 1 - cl : cl, r = sh.regs[gk * C + c];
                LLVMValueRef v[SCAN_MAX];
                for (int i = 0; i < n; i++)
                    v[i] = x[i][r];
                Part e = part_of(v, n, NULL);
                acc = join(L, in, &acc, &e);
                chunk[gk * C + c] = acc;
            }
            tot[gk] = acc;
            lpre[gk] = wpre[gk] = (Part){.known = false};
        }
        /* step 2: over the lanes */
        if (nl > 1) {
            int ldiv = tm->dim[axis].ldiv;
            LLVMValueRef lr = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, L->lane, llvm_i32(L, ldiv), ""),
                                           llvm_i32(L, nl - 1), "");
            LLVMValueRef ll = rev ? LLVMBuildSub(L->b, llvm_i32(L, nl - 1), lr, "") : lr;
            const char *mode = rev ? "down" : "up";
            int clamp = rev ? 0x1f : 0;
            /* the lane holding the last (first, reversed) position of the row */
            LLVMValueRef last = rev ? LLVMBuildSub(L->b, L->lane, LLVMBuildMul(L->b, lr, llvm_i32(L, ldiv), ""), "")
                                    : LLVMBuildAdd(L->b, L->lane,
                                                   LLVMBuildMul(L->b, LLVMBuildSub(L->b, llvm_i32(L, nl - 1), lr, ""),
                                                                llvm_i32(L, ldiv), ""), "");
            for (int gk = 0; gk < gks && !L->failed; gk++) {
                Part v = tot[gk];
                for (int d = 1; d < nl; d *= 2) {
                    LLVMValueRef y[SCAN_MAX];
                    for (int i = 0; i < n; i++)
                        y[i] = llvm_shfl(L, mode, v.v[i], llvm_i32(L, d * ldiv), clamp);
                    Part before = part_of(y, n, LLVMBuildICmp(L->b, LLVMIntUGE, ll, llvm_i32(L, d), ""));
                    v = join(L, in, &before, &v);
                }
                LLVMValueRef y[SCAN_MAX], t[SCAN_MAX];
                for (int i = 0; i < n; i++) {
                    y[i] = llvm_shfl(L, mode, v.v[i], llvm_i32(L, ldiv), clamp);
                    t[i] = llvm_shfl(L, "idx", v.v[i], last, 0x1f);
                }
                lpre[gk] = part_of(y, n, LLVMBuildICmp(L->b, LLVMIntUGE, ll, llvm_i32(L, 1), ""));
                tot[gk] = part_of(t, n, NULL);
            }
        }
        /* step 3: over the warps */
        if (nw > 1 && !L->failed) {
            LLVMValueRef wr = LLVMBuildAnd(L->b, LLVMBuildUDiv(L->b, L->warp, llvm_i32(L, tm->dim[axis].wdiv), ""),
                                           llvm_i32(L, nw - 1), "");
            LLVMValueRef lw = rev ? LLVMBuildSub(L->b, llvm_i32(L, nw - 1), wr, "") : wr;
            Part *wt = arena_alloc(L->f->arena, sizeof(Part) * (size_t)gks);
            memcpy(wt, tot, sizeof(Part) * (size_t)gks);
            scan_warps(L, in, tm, axis, &sh, wt, lw, wpre, tot);
        }
        /* step 4: the repetitions, then every element */
        for (int g = 0; g < sh.ng && !L->failed; g++) {
            Part rp = {.known = false};
            for (int kl = 0; kl < K; kl++) {
                int k = rev ? K - 1 - kl : kl, gk = g * K + k;
                Part p = join(L, in, &rp, &wpre[gk]);
                p = join(L, in, &p, &lpre[gk]);
                for (int c = 0; c < C; c++) {
                    Part e = join(L, in, &p, &chunk[gk * C + c]);
                    for (int i = 0; i < n; i++)
                        out[i][sh.regs[gk * C + c]] = e.v[i];
                }
                rp = join(L, in, &rp, &tot[gk]);
            }
        }
    }
    if (L->failed)
        return;
    for (int i = 0; i < n; i++) {
        ValueId res = in->results[i];
        const ThreadMap *t = llvm_tm(L, res);
        if (layout_tm_equal(t, tm)) {
            llvm_set(L, res, out[i], tm->nregs);
            continue;
        }
        int64_t coef[IR_MAX_RANK];
        llvm_row_major(tm->rank, tm->shape, coef);
        LLVMValueRef *r = llvm_new_regs(L, t->nregs);
        llvm_move(L, tm, out[i], (DType)L->f->values[res].type.dtype, t, r, coef, in->span);
        llvm_set(L, res, r, t->nregs);
    }
}

/* ---- gather ---- */

/* An integer register as an i32 index into a dim of size S (a power of two):
 * index mod S, as the interpreter takes it. */
static LLVMValueRef wrap_index(Lower *L, LLVMValueRef v, int S) {
    LLVMTypeRef t = LLVMTypeOf(v);
    v = LLVMBuildAnd(L->b, v, LLVMConstInt(t, (unsigned long long)(S - 1), 0), "");
    unsigned w = LLVMGetIntTypeWidth(t);
    return w > 32 ? LLVMBuildTrunc(L->b, v, L->t_i32, "") : w < 32 ? LLVMBuildZExt(L->b, v, L->t_i32, "") : v;
}

/* A gather of partners (the op's xor: sort's steps, flip) whose every
 * partner one lane xor m holds, in a register the same for all threads
 * (layout_xor_plan): those registers, through a butterfly shuffle when m is
 * not 0. No shared memory and no barrier: a bitonic step whose distance
 * stays within a thread's registers costs nothing. */
static bool gather_xor(Lower *L, Inst *in, const ThreadMap *tm) {
    int *plan = arena_alloc(L->f->arena, sizeof(int) * LAYOUT_MAX_REGS), m = 0;
    if (!plan || !layout_gather_xor(L->f, in, plan, &m))
        return false;
    LLVMValueRef *src = llvm_val(L, in->args[0])->r, *r = llvm_new_regs(L, tm->nregs);
    for (int k = 0; k < tm->nregs; k++)
        r[k] = m ? llvm_shfl_xor(L, src[plan[k]], m) : src[plan[k]];
    llvm_set(L, in->results[0], r, tm->nregs);
    return true;
}

void llvm_lower_gather(Lower *L, Inst *in) {
    ValueId src = in->args[0], res = in->results[0];
    const ThreadMap *ts = llvm_tm(L, src), *tr = llvm_tm(L, res);
    Type st = L->f->values[src].type;
    DType dt = (DType)st.dtype;
    int axis = in->attr.axis;
    if (!ts || !tr) {
        diag_internal(L->d, "gather of a scalar");
        L->failed = true;
        return;
    }
    if (gather_xor(L, in, ts))
        return;
    int64_t strides[IR_MAX_RANK];
    llvm_row_major(st.rank, st.shape, strides);
    llvm_smem_use(L, ir_numel(st) * llvm_dt_bytes(dt), in->span);
    llvm_barrier(L);
    llvm_smem_stage(L, ts, llvm_val(L, src)->r, dt, 0, 0);
    llvm_barrier(L);
    LLVMValueRef *idx = llvm_regs_like(L, in->args[1], res, in->span), *r = llvm_new_regs(L, tr->nregs);
    LLVMTypeRef mt = llvm_mem_type(L, dt);
    for (int k = 0; k < tr->nregs; k++) {
        LLVMValueRef lin = LLVMBuildMul(L->b, wrap_index(L, idx[k], st.shape[axis]), llvm_i32(L, strides[axis]), "");
        for (int d = 0; d < st.rank; d++)
            if (d != axis && st.shape[d] > 1)
                lin = LLVMBuildAdd(L->b, lin, LLVMBuildMul(L->b, llvm_index(L, tr, k, d), llvm_i32(L, strides[d]), ""),
                                   "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, mt, llvm_smem_ptr(L, mt, lin, 0), "");
        r[k] = dt == DT_I1 ? LLVMBuildTrunc(L->b, v, L->t_i1, "") : v;
    }
    llvm_set(L, res, r, tr->nregs);
}

/* ---- histogram ---- */

void llvm_lower_histogram(Lower *L, Inst *in) {
    ValueId x = in->args[0], res = in->results[0];
    const ThreadMap *tx = llvm_tm(L, x), *tr = llvm_tm(L, res);
    DType dt = (DType)L->f->values[x].type.dtype;
    int bins = L->f->values[res].type.shape[0], threads = 32 * L->f->num_warps;
    if (!tx || !tr) {
        diag_internal(L->d, "histogram of a scalar");
        L->failed = true;
        return;
    }
    llvm_smem_use(L, (int64_t)bins * 4, in->span);
    llvm_barrier(L);
    for (int j = 0; j * threads < bins; j++) { /* zero the counters */
        LLVMValueRef i = LLVMBuildAdd(L->b, L->tid, llvm_i32(L, j * threads), "");
        LLVMBasicBlockRef cont = llvm_guard_begin(
            L, (j + 1) * threads > bins ? LLVMBuildICmp(L->b, LLVMIntULT, i, llvm_i32(L, bins), "") : NULL);
        LLVMBuildStore(L->b, llvm_i32(L, 0), llvm_smem_ptr(L, L->t_i32, i, 0));
        llvm_guard_end(L, cont);
    }
    llvm_barrier(L);
    LLVMValueRef *xv = llvm_val(L, x)->r, *mv = in->nargs > 1 ? llvm_regs_like(L, in->args[1], x, in->span) : NULL;
    for (int k = 0; k < tx->nregs; k++) {
        LLVMValueRef v = xv[k];
        unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(v));
        if (w < 64)
            v = dt_is_signed(dt) ? LLVMBuildSExt(L->b, v, L->t_i64, "") : LLVMBuildZExt(L->b, v, L->t_i64, "");
        LLVMValueRef pred = LLVMBuildICmp(L->b, LLVMIntULT, v, llvm_i64(L, bins), ""); /* negatives are huge */
        LLVMValueRef own = llvm_owner(L, tx, k);
        if (own)
            pred = LLVMBuildAnd(L->b, pred, own, "");
        if (mv)
            pred = LLVMBuildAnd(L->b, pred, mv[k], "");
        LLVMBasicBlockRef cont = llvm_guard_begin(L, pred);
        LLVMValueRef p = llvm_smem_ptr(L, L->t_i32, LLVMBuildTrunc(L->b, v, L->t_i32, ""), 0);
        LLVMBuildAtomicRMW(L->b, LLVMAtomicRMWBinOpAdd, p, llvm_i32(L, 1), LLVMAtomicOrderingMonotonic, 0);
        llvm_guard_end(L, cont);
    }
    llvm_barrier(L);
    LLVMValueRef *r = llvm_new_regs(L, tr->nregs);
    for (int k = 0; k < tr->nregs; k++)
        r[k] = LLVMBuildLoad2(L->b, L->t_i32, llvm_smem_ptr(L, L->t_i32, llvm_index(L, tr, k, 0), 0), "");
    llvm_set(L, res, r, tr->nregs);
}
