/* layout_pass.c: give every block value a layout (layout.h), Triton's way
 * (TritonGPU's Coalesce, AccelerateMatmul and RemoveLayoutConversions passes
 * folded into one).
 *
 * Requires: verified IR without layouts; axis_analyze(f) of it.
 * Ensures:  every block value has a layout (Value.layout != 0), scalars have
 *           none; every op's block operands have the layout the op wants, or
 *           one with the same ThreadMap (want(), below); f->layouts holds
 *           only layouts in use. (Shared memory is smem.c's: the scratch of
 *           converts, reshapes and reductions, and its limit.)
 *
 * Algorithm:
 *  1. anchors    Each load, store and atomic gets the BLOCKED layout under
 *                which a warp walks its pointer's contiguous dim and each
 *                thread moves up to 16 bytes: sizePerThread along that dim =
 *                min(16 bytes, contiguity, alignment, numel / threads), lanes
 *                then warps fill that dim first (Coalesce +
 *                getDefaultBlockedEncoding). Each dot gets an MMA v2 result
 *                and DOT_OPERAND operands when mma.sync can do it, else a
 *                BLOCKED result for the FMA loop (AccelerateMatmul,
 *                warpsPerTileV2). Loads, atomics and dots fix their results;
 *                stores and all memory operands only say what they want.
 *  2. propagate  Forward: an op whose operands have layouts gives its result
 *                the matching one (elementwise: the operands', an MMA one
 *                winning conflicts; reduce: a slice; expand_dims of a slice:
 *                the parent; trans: the permuted one); loop-carried values
 *                (block arguments, yields, results) share one layout, taken
 *                from the loop body before the init. A store whose value
 *                came out coalesced already keeps the value's layout.
 *                Backward: a value no anchor reaches (pointer arithmetic,
 *                masks, constants) takes the layout most of its users want.
 *                Forward runs to a fixed point before each backward round;
 *                when neither moves, the values that are still without a
 *                layout but whose operands have one get the default BLOCKED
 *                layout (Triton's starting point for every tensor).
 *  3. resolve    Where an op wants an operand in another layout than the one
 *                it has (and the two maps differ): if the operand is cheap
 *                (constants, aranges, splats and a few integer ops on them;
 *                a small load, one copy a wanted layout: cheap_load),
 *                recompute it in the wanted layout (Triton's
 *                rematerialisation); else convert it once, right after its
 *                definition, so a loop does not convert a loop-invariant
 *                value every iteration and all users share the convert.
 *  4. rewrite    Insert those ops, drop originals the copies left without
 *                users, record Value.layout, keep only the layouts in use,
 *                check registers, and check that every block value has a
 *                layout.
 *
 * docs/layouts.md draws each layout and walks through a matmul. */
#include "layout.h"

#include "arch.h"

#include <stdlib.h>
#include <string.h>

enum {
    REMAT_BUDGET = 8,   /* ops one rematerialisation may copy */
    MAX_CHAIN = 4096,   /* values a chained-dot search may visit */
    FMA_MAX_OPERAND_REGS = 64, /* an FMA dot's operands in registers, per thread, at most */
};

typedef struct Use {
    Inst *in;
    int k;
} Use;

typedef struct Memo {
    ValueId from, to;
    int layout;
} Memo;

typedef struct MapCache {
    int layout;
    Type t;
    const ThreadMap *tm;
} MapCache;

typedef struct Pass {
    Diag *d;
    Function *f;
    const AxisInfo *axis;
    const PtxArch *arch;  /* the target: which mma a dot gets (none before sm_80: every dot is FMA) */
    int nw;
    int n0;               /* values before the pass; the tables below cover these */
    int *lay;             /* per class representative: the layout, 0 while undecided */
    ValueId *rep;         /* union-find of values that must share a layout */
    ValueId *next_member; /* circular list of each class */
    Inst **insts;         /* every op, pre-order */
    Block **iblock;       /* ... and the block holding it */
    int *anchor;          /* ... its anchor layout (memory ops and dots) */
    bool *staged;         /* ... a dot whose operands keep their layouts (FMA via shared memory) */
    int ninsts;
    struct InstAt { const Inst *in; int idx; } *sorted; /* insts by address, for inst_index */
    int *use_start;       /* CSR of the uses of each value */
    Use *uses;
    ValueId *order;       /* block values in definition order (region arguments before
                             the region's ops, an op's results after its regions) */
    int norder;
    Block **vblock;       /* the block defining each value (grows with new values) */
    int cap_vblock;
    Memo *memo;           /* materialize's results */
    int nmemo, cap_memo;
    MapCache *maps;
    int nmaps, cap_maps;
    ValueId worst;        /* the value needing the most registers per thread ... */
    int64_t worst_regs;   /* ... and how many (fits_registers) */
    bool failed;
} Pass;

/* ---- small helpers ---- */

static Type vtype(const Pass *P, ValueId v) { return P->f->values[v].type; }
static bool is_block(const Pass *P, ValueId v) { return vtype(P, v).rank > 0; }
static const Layout *L_(const Pass *P, int li) { return li > 0 && li < P->f->nlayouts ? &P->f->layouts[li] : NULL; }
static LayoutKind kind_of(const Pass *P, int li) { return li > 0 && li < P->f->nlayouts ? P->f->layouts[li].kind : LAYOUT_NONE; }
static int imax(int a, int b) { return a > b ? a : b; }
static int clampi(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }

static ValueId find(Pass *P, ValueId v) {
    while (P->rep[v] != v)
        v = P->rep[v] = P->rep[P->rep[v]];
    return v;
}

static void unite(Pass *P, ValueId a, ValueId b) {
    a = find(P, a);
    b = find(P, b);
    if (a == b)
        return;
    P->rep[b] = a;
    ValueId t = P->next_member[a]; /* splice the two circular lists */
    P->next_member[a] = P->next_member[b];
    P->next_member[b] = t;
}

/* The layout of any value, including those the pass created. */
static int vlay(Pass *P, ValueId v) { return v < P->n0 ? P->lay[find(P, v)] : P->f->values[v].layout; }
static void set_lay(Pass *P, ValueId v, int li) { P->lay[find(P, v)] = li; }

static int cmp_inst_at(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)((const struct InstAt *)a)->in, y = (uintptr_t)((const struct InstAt *)b)->in;
    return x < y ? -1 : x > y;
}

/* The position of an original op in insts[], or -1 (an op the pass made). */
static int inst_index(const Pass *P, const Inst *in) {
    int lo = 0, hi = P->ninsts - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2;
        if (P->sorted[mid].in == in)
            return P->sorted[mid].idx;
        if ((uintptr_t)P->sorted[mid].in < (uintptr_t)in)
            lo = mid + 1;
        else
            hi = mid - 1;
    }
    return -1;
}

static const ThreadMap *map_for(Pass *P, int li, Type t) {
    for (int i = 0; i < P->nmaps; i++)
        if (P->maps[i].layout == li && ir_type_eq(P->maps[i].t, ir_with_dtype(t, DT_I32)))
            return P->maps[i].tm;
    const ThreadMap *tm = layout_thread_map(P->f, li, t, P->nw);
    if (P->nmaps == P->cap_maps) {
        P->cap_maps = P->cap_maps ? 2 * P->cap_maps : 32;
        MapCache *m = arena_alloc(P->f->arena, sizeof *m * (size_t)P->cap_maps);
        if (!m)
            return tm;
        if (P->nmaps)
            memcpy(m, P->maps, sizeof *m * (size_t)P->nmaps);
        P->maps = m;
    }
    P->maps[P->nmaps++] = (MapCache){li, ir_with_dtype(t, DT_I32), tm};
    return tm;
}

/* ---- layout constructors ---- */

/* Triton's getDefaultBlockedEncoding: along `order`, each dim but the last
 * takes as many lanes, then warps, as it has sizePerThread-chunks; the last
 * dim takes the rest. */
static int blocked_for(Pass *P, Type t, const int *spt, const int *order) {
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = t.rank};
    int lanes = 32, threads = 32 * P->nw, warps = P->nw, used_lanes = 1, used_warps = 1;
    for (int k = 0; k < t.rank - 1; k++) {
        int d = order[k];
        int per_cta = clampi(threads, 1, imax(1, t.shape[d] / spt[d]));
        l.threads_per_warp[d] = clampi(per_cta, 1, lanes);
        l.warps_per_cta[d] = clampi(per_cta / l.threads_per_warp[d], 1, warps);
        warps /= l.warps_per_cta[d];
        lanes /= l.threads_per_warp[d];
        threads /= per_cta;
        used_lanes *= l.threads_per_warp[d];
        used_warps *= l.warps_per_cta[d];
    }
    int last = order[t.rank - 1];
    l.threads_per_warp[last] = 32 / used_lanes;
    l.warps_per_cta[last] = imax(1, P->nw / used_warps);
    for (int d = 0; d < t.rank; d++) {
        l.size_per_thread[d] = spt[d];
        l.order[d] = order[d];
    }
    return layout_intern(P->f, &l);
}

/* One element per thread, the last dim fastest. */
static int default_blocked(Pass *P, Type t) {
    int spt[IR_MAX_RANK], order[IR_MAX_RANK];
    for (int d = 0; d < t.rank; d++) {
        spt[d] = 1;
        order[d] = t.rank - 1 - d;
    }
    return blocked_for(P, t, spt, order);
}

static int slice_of(Pass *P, int parent, int dim) {
    Layout l = {.kind = LAYOUT_SLICE, .rank = L_(P, parent)->rank - 1, .parent = parent, .dim = dim};
    return layout_intern(P->f, &l);
}

/* `li` with a size-1 dim inserted at `axis`, slowest in order, so that its
 * slice at axis has li's map (the default for expand_dims of a BLOCKED
 * value). */
static int unslice(Pass *P, int li, int axis) {
    const Layout *s = L_(P, li);
    if (!s || s->kind != LAYOUT_BLOCKED || s->rank + 1 > IR_MAX_RANK)
        return 0;
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = s->rank + 1};
    for (int d = 0, i = 0; d <= s->rank; d++) {
        bool ins = d == axis;
        l.size_per_thread[d] = ins ? 1 : s->size_per_thread[i];
        l.threads_per_warp[d] = ins ? 1 : s->threads_per_warp[i];
        l.warps_per_cta[d] = ins ? 1 : s->warps_per_cta[i];
        i += !ins;
    }
    for (int k = 0; k < s->rank; k++)
        l.order[k] = s->order[k] + (s->order[k] >= axis);
    l.order[s->rank] = axis;
    return layout_intern(P->f, &l);
}

/* trans: result dim i is operand dim perm[i]. A BLOCKED layout permuted the
 * same way keeps every register where it is; `inverse` goes back. */
static int permuted(Pass *P, int li, const int *perm, bool inverse) {
    const Layout *s = L_(P, li);
    if (!s || s->kind != LAYOUT_BLOCKED)
        return 0;
    int p[IR_MAX_RANK], inv[IR_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        inverse ? (p[perm[i]] = i) : (p[i] = perm[i]);
    for (int i = 0; i < s->rank; i++)
        inv[p[i]] = i;
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = s->rank};
    for (int i = 0; i < s->rank; i++) {
        l.size_per_thread[i] = s->size_per_thread[p[i]];
        l.threads_per_warp[i] = s->threads_per_warp[p[i]];
        l.warps_per_cta[i] = s->warps_per_cta[p[i]];
        l.order[i] = inv[s->order[i]];
    }
    return layout_intern(P->f, &l);
}

static int dot_operand(Pass *P, int parent, int idx, int kw) {
    Layout l = {.kind = LAYOUT_DOT_OPERAND, .rank = 2, .parent = parent, .op_idx = idx, .k_width = kw};
    return layout_intern(P->f, &l);
}

/* ---- 1. anchors ---- */

/* Coalesce: order the dims by the pointer's contiguity (ties: the last dim
 * first), then give each thread as many elements of the fastest dim as one
 * 16-byte access can move given the proven contiguity and alignment. */
static int coalesced(Pass *P, ValueId ptr) {
    Type t = vtype(P, ptr);
    AxisInfo none = {0};
    for (int d = 0; d < t.rank; d++)
        none.contiguity[d] = none.divisibility[d] = none.constancy[d] = 1;
    const AxisInfo *ai = ptr < P->n0 ? &P->axis[ptr] : &none;
    int order[IR_MAX_RANK], spt[IR_MAX_RANK];
    for (int k = 0; k < t.rank; k++)
        order[k] = t.rank - 1 - k;
    for (int k = 1; k < t.rank; k++) /* stable insertion sort, descending contiguity */
        for (int j = k; j > 0 && ai->contiguity[order[j]] > ai->contiguity[order[j - 1]]; j--) {
            int x = order[j];
            order[j] = order[j - 1];
            order[j - 1] = x;
        }
    int o = order[0];
    int64_t bytes = imax(1, dt_bits(t.pointee) / 8);
    int64_t multiple = ai->divisibility[o] / bytes > 1 ? ai->divisibility[o] / bytes : 1;
    int64_t contig = ai->contiguity[o] < t.shape[o] ? ai->contiguity[o] : t.shape[o];
    int64_t per = multiple < contig ? multiple : contig;
    per = per < 16 / bytes ? per : imax(1, (int)(16 / bytes));
    int64_t even = ir_numel(t) / (32 * P->nw);
    per = per < (even > 1 ? even : 1) ? per : (even > 1 ? even : 1);
    for (int d = 0; d < t.rank; d++)
        spt[d] = d == o ? (int)per : 1;
    return blocked_for(P, t, spt, order);
}

/* Does a pure-op path connect value v (forward when fwd, else backward) to
 * an operand (result) of another dot? Triton sizes the warps of chained
 * dots (attention) differently. */
static bool reaches_dot(Pass *P, ValueId v, bool fwd, const Inst *self, uint8_t *seen, int *budget) {
    if (v >= P->n0 || seen[v] || --*budget < 0)
        return false;
    seen[v] = 1;
    if (!fwd) {
        Inst *def = P->f->values[v].def;
        if (!def || !(ir_ops[def->op].flags & OPF_PURE))
            return false;
        if (def->op == IR_DOT && def != self)
            return true;
        for (int k = 0; k < def->nargs; k++)
            if (reaches_dot(P, def->args[k], false, self, seen, budget))
                return true;
        return false;
    }
    for (int u = P->use_start[v]; u < P->use_start[v + 1]; u++) {
        Inst *in = P->uses[u].in;
        if (in->op == IR_DOT && in != self && P->uses[u].k < 2)
            return true;
        if (ir_ops[in->op].flags & OPF_PURE && in->nresults == 1 && reaches_dot(P, in->results[0], true, self, seen, budget))
            return true;
    }
    return false;
}

static bool chained_dot(Pass *P, Inst *dot) {
    uint8_t *seen = calloc((size_t)P->n0, 1);
    if (!seen)
        return false;
    int budget = MAX_CHAIN;
    bool c = reaches_dot(P, dot->results[0], true, dot, seen, &budget);
    for (int k = 0; k < 2 && !c; k++) {
        memset(seen, 0, (size_t)P->n0);
        budget = MAX_CHAIN;
        c = reaches_dot(P, dot->args[k], false, dot, seen, &budget);
    }
    free(seen);
    return c;
}

/* Triton's warpsPerTileV2: chained dots put every warp along the longer
 * dim; otherwise double the warps along M while M has more 16-row tiles per
 * warp than N has 8-column ones, else along N. */
static void warps_per_tile(Pass *P, Inst *dot, int M, int N, int *wpc) {
    if (chained_dot(P, dot)) {
        wpc[0] = M >= N ? P->nw : 1;
        wpc[1] = M >= N ? 1 : P->nw;
        return;
    }
    wpc[0] = wpc[1] = 1;
    while (wpc[0] * wpc[1] < P->nw) {
        if (M / 16 / wpc[0] >= N / (8 * wpc[1]) && wpc[0] < M / 16)
            wpc[0] *= 2;
        else
            wpc[1] *= 2;
    }
}

/* mma.sync's k_width (elements per 32-bit register) for a dot's operand
 * types, or 0 when only the FMA loop can do it. */
static int mma_k_width(Pass *P, Inst *dot) {
    if (!ptx_arch_has(P->arch, ARCH_AMPERE))
        return 0;
    DType a = vtype(P, dot->args[0]).dtype, b = vtype(P, dot->args[1]).dtype;
    DType c = vtype(P, dot->results[0]).dtype;
    if (dt_is_nv_fp8(a) && dt_is_nv_fp8(b)) {
        if (ptx_arch_has(P->arch, ARCH_MMA_FP8) && c == DT_F32)
            return 4; /* m16n8k32 e4m3/e5m2 */
        return c == DT_F32 || c == DT_F16 ? 2 : 0; /* converted to fp16 for m16n8k16 */
    }
    if (a != b)
        return 0;
    /* The instructions llvm_dot.c issues: f32 (or s32) accumulators, and
     * f16 for f16 operands (out_dtype=tl.float16: Triton's mma .f16.f16.f16.f16) */
    if (((a == DT_F16 || a == DT_BF16) && c == DT_F32) || (a == DT_F16 && c == DT_F16))
        return 2;
    if (a == DT_F32 && c == DT_F32 && dot->attr.precision != PREC_IEEE)
        return 1; /* tf32 (tf32x3 is three of them) */
    if ((a == DT_I8 || a == DT_U8) && c == DT_I32)
        return 4;
    return 0;
}

/* The FMA loop's accumulator: each thread a near-square r x c patch (c >= r,
 * r * c = its share of the block), so one k step reads r elements of A and c
 * of B for r * c fmas; then lanes and warps as usual. */
static void fma_patch(Pass *P, Type tc, int *rp, int *cp, int *btp) {
    int64_t share = ir_numel(tc) / (32 * P->nw);
    int n = tc.rank, c = 1, r = 1, bt = 1; /* a 3-D dot's batch dim comes last (bt) */
    while ((int64_t)c * r * bt < share) {
        if (c <= r && c < tc.shape[n - 1])
            c *= 2;
        else if (r < tc.shape[n - 2])
            r *= 2;
        else if (n == 3 && bt < tc.shape[0])
            bt *= 2;
        else
            break;
    }
    *rp = r, *cp = c, *btp = bt;
}

static int fma_layout(Pass *P, Type tc) {
    int r, c, bt, n = tc.rank;
    fma_patch(P, tc, &r, &c, &bt);
    int spt[3] = {bt, r, c}, order[3] = {n - 1, n - 2, 0};
    return blocked_for(P, tc, n == 3 ? spt : spt + 1, order);
}

/* The same r x c patch for an FMA dot that reads its 32-bit operands from
 * shared memory (staged, or from the pipeliner's rings: llvm_dot.c's
 * lower_fma_smem), spread the way classic SGEMM spreads it: 4 x 8 lanes,
 * each thread's rows one per 4 * wpc[0] rows, its columns in runs of 4 (16
 * bytes) 32 * wpc[1] apart. The lanes of a warp then read 4 consecutive rows
 * of A (distinct phases of the ring's swizzle) and 8 consecutive 16-byte
 * runs of a row of B: 16-byte shared loads without bank conflicts, where a
 * contiguous r x c patch has 8 lanes read runs 4 bank groups apart. The
 * epilogue still stores 16 bytes a thread, 128 contiguous bytes per 8 lanes.
 * 0 when the block does not split that way. */
static int fma_spread_layout(Pass *P, Type tc) {
    int r, c, bt;
    if (tc.rank != 2)
        return 0; /* a batched dot keeps the plain patch */
    fma_patch(P, tc, &r, &c, &bt);
    int M = tc.shape[0], N = tc.shape[1], v = c < 4 ? c : 4, tm = 4, tn = 8;
    if (r < 1 || M % (r * tm))
        return 0;
    int wm = M / (r * tm);
    if (wm < 1 || P->nw % wm)
        return 0;
    int wn = P->nw / wm;
    if (N % (v * tn * wn) || N / (tn * wn) != c)
        return 0;
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = 2, .size_per_thread = {1, v}, .threads_per_warp = {tm, tn},
                .warps_per_cta = {wm, wn}, .order = {1, 0}};
    return layout_intern(P->f, &l);
}

/* 32-bit registers a value of type t would take in layout li. */
static int64_t words(Pass *P, int li, Type t) {
    const ThreadMap *tm = map_for(P, li, t);
    return tm ? (int64_t)tm->nregs * (dt_bits(t.dtype) > 32 ? 2 : 1) : 0;
}

static void anchor_dot(Pass *P, Inst *in, int idx) {
    Type ta = vtype(P, in->args[0]), tb = vtype(P, in->args[1]), tc = vtype(P, in->results[0]);
    if (tc.rank == 3) {
        /* A batched dot is the FMA loop over the whole [B, M, N] block: its
         * operands stay in their layouts and are staged in shared memory
         * (llvm_dot.c); no mma layout is 3-D. */
        P->anchor[idx] = fma_layout(P, tc);
        set_lay(P, in->results[0], P->anchor[idx]);
        P->staged[idx] = true;
        return;
    }
    if (tc.rank != 2 || ta.rank != 2) {
        diag_error(P->d, P->f->src, in->span, "dot of rank-%d blocks is not supported (only 2-D and 3-D)", tc.rank);
        P->failed = true;
        return;
    }
    int M = tc.shape[0], N = tc.shape[1], K = ta.shape[1], kw = mma_k_width(P, in);
    int res;
    if (kw && M >= 16 && N >= 8 && K >= 8 * kw) {
        Layout mma = {.kind = LAYOUT_MMA, .rank = 2};
        warps_per_tile(P, in, M, N, mma.warps_per_cta);
        res = layout_intern(P->f, &mma);
    } else {
        res = fma_layout(P, tc);
        kw = 0;
    }
    P->anchor[idx] = res;
    set_lay(P, in->results[0], res);
    int a = dot_operand(P, res, 0, kw), b = dot_operand(P, res, 1, kw);
    /* An FMA dot whose operands would crowd the registers (each thread holds
     * its rows of A and columns of B with all of K) leaves them where they
     * are: the lowering stages them in shared memory and loops over K. */
    P->staged[idx] = !kw && (words(P, a, ta) > FMA_MAX_OPERAND_REGS || words(P, b, tb) > FMA_MAX_OPERAND_REGS);
    if (P->staged[idx] && dt_bits(ta.dtype) == 32 && dt_bits(tb.dtype) == 32) {
        int sp = fma_spread_layout(P, tc);
        if (sp) {
            P->anchor[idx] = sp;
            set_lay(P, in->results[0], sp);
        }
    }
}

static void anchors(Pass *P) {
    for (int i = 0; i < P->ninsts; i++) {
        Inst *in = P->insts[i];
        switch (in->op) {
        case IR_LOAD:
        case IR_STORE:
        case IR_ATOMIC_RMW:
        case IR_ATOMIC_CAS:
            if (in->nargs && is_block(P, in->args[0])) {
                P->anchor[i] = coalesced(P, in->args[0]);
                for (int r = 0; r < in->nresults; r++)
                    set_lay(P, in->results[r], P->anchor[i]);
            }
            break;
        case IR_DOT:
            anchor_dot(P, in, i);
            break;
        case IR_RESHAPE:
            /* Data moves through shared memory anyway: any layout will do. */
            set_lay(P, in->results[0], default_blocked(P, vtype(P, in->results[0])));
            break;
        default:
            break;
        }
    }
}

/* ---- what each op wants of its operands ---- */

static bool derives_from_result(OpCode op) {
    switch (op) {
    case IR_BROADCAST: case IR_CMP: case IR_SELECT: case IR_ADDPTR: case IR_CAST: case IR_BITCAST:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIGUOUS: case IR_MAX_CONSTANCY: case IR_EXPAND_DIMS: case IR_REDUCE:
    case IR_TRANS: case IR_DESC_TILE: case IR_EXTRACT:
        return true;
    default:
        return ir_ops[op].flags & (OPF_ELEM | OPF_MAP);
    }
}

/* The layout an op that computes its result from its operands wants its
 * operands in, when its result has layout `res`. */
static int derived_want(Pass *P, const Inst *in, int res) {
    if (!res)
        return 0;
    switch (in->op) {
    case IR_EXPAND_DIMS:
        return slice_of(P, res, in->attr.axis);
    case IR_REDUCE:
    case IR_REDUCE_FN: {
        if (in->attr.keep_dims)
            return res;
        const Layout *l = L_(P, res);
        return l && l->kind == LAYOUT_SLICE && l->dim == in->attr.axis ? l->parent : 0;
    }
    case IR_TRANS:
        return permuted(P, res, in->attr.perm, true);
    default:
        return res;
    }
}

/* The block argument of a loop / if that value k of a yield or condition
 * (or init k of a for / while) flows into. */
static ValueId carried_target(const Inst *in, int k, const Block *blk) {
    if (in->op == IR_FOR)
        return k >= 3 && in->regions[0] && k - 3 + 1 < in->regions[0]->nargs ? in->regions[0]->args[k - 3 + 1] : 0;
    if (in->op == IR_WHILE)
        return in->regions[0] && k < in->regions[0]->nargs ? in->regions[0]->args[k] : 0;
    const Inst *owner = blk ? blk->parent : NULL;
    if (!owner)
        return 0;
    if (in->op == IR_CONDITION)
        return owner->regions[1] && k >= 1 && k - 1 < owner->regions[1]->nargs ? owner->regions[1]->args[k - 1] : 0;
    if (in->op != IR_YIELD)
        return 0;
    if (owner->op == IR_FOR)
        return k + 1 < owner->regions[0]->nargs ? owner->regions[0]->args[k + 1] : 0;
    if (owner->op == IR_IF)
        return k < owner->nresults ? owner->results[k] : 0;
    if (owner->op == IR_WHILE)
        return owner->regions[0] && k < owner->regions[0]->nargs ? owner->regions[0]->args[k] : 0;
    return 0;
}

/* The layout op `in` (at insts[idx]) wants operand k in, given the layouts
 * decided so far; 0 for "no wish (yet)". */
static int want(Pass *P, int idx, int k) {
    Inst *in = P->insts[idx];
    if (!is_block(P, in->args[k]))
        return 0;
    switch (in->op) {
    case IR_LOAD: case IR_STORE: case IR_ATOMIC_RMW: case IR_ATOMIC_CAS:
        return P->anchor[idx];
    case IR_DOT:
        if (!P->anchor[idx] || (k < 2 && P->staged[idx]))
            return 0;
        if (k == 2)
            return P->anchor[idx];
        return dot_operand(P, P->anchor[idx], k, kind_of(P, P->anchor[idx]) == LAYOUT_MMA ? mma_k_width(P, in) : 0);
    case IR_FOR: case IR_WHILE: case IR_YIELD: case IR_CONDITION: {
        ValueId t = carried_target(in, k, P->iblock[idx]);
        return t ? vlay(P, t) : 0;
    }
    /* scan: every operand in the (BLOCKED) layout of the first result;
     * reduce_fn: the first as reduce wants it, the others like the first;
     * gather: the index like the result; histogram: the mask like the input */
    case IR_SCAN:
        return vlay(P, in->results[0]);
    case IR_REDUCE_FN:
        return k ? vlay(P, in->args[0]) : derived_want(P, in, vlay(P, in->results[0]));
    case IR_GATHER:
        return k == 1 ? vlay(P, in->results[0]) : 0;
    case IR_HISTOGRAM:
        return k == 1 ? vlay(P, in->args[0]) : 0;
    default:
        if (derives_from_result(in->op) && in->nresults == 1 && is_block(P, in->results[0]))
            return derived_want(P, in, vlay(P, in->results[0]));
        return 0;
    }
}

/* ---- 2. propagate ---- */

/* The layout an op's result follows from its operands' layouts, or 0. */
static int forward_rule(Pass *P, const Inst *in) {
    switch (in->op) {
    case IR_EXPAND_DIMS: {
        const Layout *l = L_(P, vlay(P, in->args[0]));
        return l && l->kind == LAYOUT_SLICE && l->dim == in->attr.axis ? l->parent : 0;
    }
    case IR_REDUCE: {
        int a = vlay(P, in->args[0]);
        if (!a || in->attr.keep_dims)
            return a;
        return slice_of(P, a, in->attr.axis);
    }
    case IR_TRANS:
        return permuted(P, vlay(P, in->args[0]), in->attr.perm, false);
    case IR_GATHER:
        return vlay(P, in->args[1]);
    case IR_EXTRACT: /* the operand's: an MMA accumulator's column halves stay in registers */
        return vlay(P, in->args[0]);
    case IR_BROADCAST: {
        /* The operand's layout, unless spread over the result it would take
         * a real share of the registers (over a quarter of what a thread may
         * hold) and more than the result's default: a small operand's
         * default layout (lanes left over on its size-1 dims go to the
         * slowest) can hold a rank-5 result many times over. Then the
         * default of the result's shape, and the small operand converts.
         * Below that, replicas cost less than a convert. */
        int a = vlay(P, in->args[0]);
        Type rt = vtype(P, in->results[0]);
        if (!a)
            return 0;
        int64_t w = words(P, a, rt);
        if (w <= LAYOUT_REPLICA_REGS)
            return a;
        int def = default_blocked(P, rt);
        return w > words(P, def, rt) ? def : a;
    }
    default:
        break;
    }
    if (!derives_from_result(in->op))
        return 0;
    /* Elementwise: the operands' layout; an MMA one wins a conflict (the
     * accumulator is the biggest thing to move), else the first. */
    int pick = 0;
    for (int k = 0; k < in->nargs; k++) {
        int l = is_block(P, in->args[k]) ? vlay(P, in->args[k]) : 0;
        if (l && (!pick || (kind_of(P, l) == LAYOUT_MMA && kind_of(P, pick) != LAYOUT_MMA)))
            pick = l;
    }
    return pick;
}

/* Prefer an MMA layout, then the loop body's, then the init's. */
static int prefer(Pass *P, int body, int init) {
    if (kind_of(P, init) == LAYOUT_MMA && kind_of(P, body) != LAYOUT_MMA)
        return init;
    return body ? body : init;
}

/* The layout of operand i of a region's terminator when it is `op`, or 0. */
static int term_lay(Pass *P, const Block *b, OpCode op, int i) {
    const Inst *t = b && b->ninsts ? b->insts[b->ninsts - 1] : NULL;
    return t && t->op == op && i < t->nargs ? vlay(P, t->args[i]) : 0;
}

/* Give a loop-carried class a layout if it has none and l is one. */
static bool decide(Pass *P, ValueId v, int l) {
    if (!is_block(P, v) || vlay(P, v) || !l)
        return false;
    set_lay(P, v, l);
    return true;
}

/* Loop-carried classes are decided from what flows into them. from_init
 * lets a value from outside the loop decide; it waits until the body had
 * its say. */
static bool forward_for(Pass *P, Inst *in, bool from_init) {
    Block *body = in->regions[0];
    bool changed = false;
    for (int i = 0; body && i + 1 < body->nargs && 3 + i < in->nargs; i++) {
        int init = from_init ? vlay(P, in->args[3 + i]) : 0;
        changed |= decide(P, body->args[i + 1], prefer(P, term_lay(P, body, IR_YIELD, i), init));
    }
    return changed;
}

static bool forward_if(Pass *P, Inst *in) {
    bool changed = false;
    for (int i = 0; i < in->nresults; i++) {
        int l = in->nregions > 0 ? term_lay(P, in->regions[0], IR_YIELD, i) : 0;
        int e = in->nregions > 1 ? term_lay(P, in->regions[1], IR_YIELD, i) : 0;
        changed |= decide(P, in->results[i], l ? prefer(P, l, e) : e);
    }
    return changed;
}

/* while: the before-block's arguments from the inits and the after-block's
 * yields; the after-block's arguments (and results) from the condition. */
static bool forward_while(Pass *P, Inst *in, bool from_init) {
    Block *before = in->nregions == 2 ? in->regions[0] : NULL, *after = before ? in->regions[1] : NULL;
    bool changed = false;
    if (!before || !after)
        return false;
    for (int i = 0; i < before->nargs && i < in->nargs; i++) {
        int init = from_init ? vlay(P, in->args[i]) : 0;
        changed |= decide(P, before->args[i], prefer(P, term_lay(P, after, IR_YIELD, i), init));
    }
    for (int i = 0; i < after->nargs; i++)
        changed |= decide(P, after->args[i], term_lay(P, before, IR_CONDITION, i + 1));
    return changed;
}

/* scan: its operand's layout when BLOCKED (the lowering needs one), else the
 * default; reduce_fn: the slice of its first operand's, as reduce. */
static bool forward_combine(Pass *P, Inst *in) {
    bool changed = false;
    int a = vlay(P, in->args[0]);
    for (int i = 0; a && i < in->nresults; i++) {
        ValueId r = in->results[i];
        if (!is_block(P, r) || vlay(P, r))
            continue;
        if (in->op == IR_SCAN)
            set_lay(P, r, kind_of(P, a) == LAYOUT_BLOCKED ? a : default_blocked(P, vtype(P, r)));
        else
            set_lay(P, r, in->attr.keep_dims ? a : slice_of(P, a, in->attr.axis));
        changed = true;
    }
    return changed;
}

static bool forward_sweep(Pass *P, bool from_init) {
    bool changed = false;
    for (int i = 0; i < P->ninsts; i++) {
        Inst *in = P->insts[i];
        if (in->op == IR_FOR || in->op == IR_IF || in->op == IR_WHILE) {
            changed |= in->op == IR_FOR ? forward_for(P, in, from_init)
                       : in->op == IR_IF ? forward_if(P, in)
                                         : forward_while(P, in, from_init);
            continue;
        }
        if (in->op == IR_SCAN || in->op == IR_REDUCE_FN) {
            changed |= forward_combine(P, in);
            continue;
        }
        if (in->nresults != 1 || !is_block(P, in->results[0]) || vlay(P, in->results[0]))
            continue;
        int l = forward_rule(P, in);
        if (l) {
            set_lay(P, in->results[0], l);
            changed = true;
        }
    }
    return changed;
}

static void forward(Pass *P) {
    for (;;) {
        while (forward_sweep(P, false))
            ;
        if (!forward_sweep(P, true))
            return;
    }
}

/* A store keeps the layout its value already has when that is coalesced
 * too: lanes along the pointer's fastest dim, each warp writing whole 32-byte
 * sectors (or as much as the store's own layout would). Wider vectors alone
 * do not pay for a trip through shared memory. An MMA, dot-operand or slice
 * value converts, as Triton converts an accumulator before its store. */
static void adopt_store_layouts(Pass *P) {
    for (int i = 0; i < P->ninsts; i++) {
        Inst *in = P->insts[i];
        if (in->op != IR_STORE || in->nargs < 2 || !P->anchor[i])
            continue;
        int v = vlay(P, in->args[1]);
        const Layout *a = L_(P, P->anchor[i]), *l = L_(P, v);
        if (!l || v == P->anchor[i] || l->kind != LAYOUT_BLOCKED || vlay(P, in->args[0]) ||
            (in->nargs > 2 && is_block(P, in->args[2]) && vlay(P, in->args[2])))
            continue;
        Type t = vtype(P, in->args[1]);
        int o = a->order[0];
        int64_t n = t.shape[o], bytes = imax(1, dt_bits(t.dtype) / 8);
        int64_t have = (int64_t)l->size_per_thread[o] * l->threads_per_warp[o];
        int64_t mine = (int64_t)a->size_per_thread[o] * a->threads_per_warp[o];
        have = (have < n ? have : n) * bytes;
        mine = (mine < n ? mine : n) * bytes;
        if (l->order[0] == o && have >= (mine < 32 ? mine : 32))
            P->anchor[i] = v;
    }
}

/* Whether the op defining a value can produce layout li (its operands then
 * follow from li). Anchored results never change. */
static bool can_take(Pass *P, ValueId v, int li) {
    Inst *def = P->f->values[v].def;
    if (!def)
        return true; /* a loop-carried block argument */
    switch (def->op) {
    case IR_CONST: case IR_ARANGE: case IR_SPLAT:
        return true;
    case IR_REDUCE:
    case IR_REDUCE_FN:
    case IR_TRANS:
        return derived_want(P, def, li) != 0;
    case IR_SCAN:
        return kind_of(P, li) == LAYOUT_BLOCKED;
    case IR_GATHER: case IR_HISTOGRAM:
        return true;
    case IR_FOR: case IR_IF: case IR_WHILE:
        return true;
    default:
        return derives_from_result(def->op);
    }
}

/* The layout most users of v's class want (ties: the first), or 0. */
static int demanded(Pass *P, ValueId v) {
    int cand[64], count[64], n = 0;
    ValueId m = find(P, v);
    ValueId u = m;
    do {
        for (int x = P->use_start[u]; x < P->use_start[u + 1]; x++) {
            int idx = inst_index(P, P->uses[x].in);
            int w = idx >= 0 ? want(P, idx, P->uses[x].k) : 0;
            if (!w)
                continue;
            int j = 0;
            while (j < n && cand[j] != w)
                j++;
            if (j == n && n < 64)
                cand[n] = w, count[n++] = 0;
            if (j < n)
                count[j]++;
        }
        u = P->next_member[u];
    } while (u != m);
    int best = 0;
    for (int j = 0; j < n; j++) {
        bool ok = true;
        ValueId w = m;
        do { /* every member's defining op must be able to produce it */
            ok &= can_take(P, w, cand[j]);
            w = P->next_member[w];
        } while (w != m);
        if (ok && (!best || count[j] > count[best - 1]))
            best = j + 1;
    }
    return best ? cand[best - 1] : 0;
}

/* One backward round, users before definitions so a chain settles at once. */
static bool backward(Pass *P) {
    bool changed = false;
    for (int i = P->norder - 1; i >= 0; i--) {
        ValueId v = P->order[i];
        if (!is_block(P, v) || vlay(P, v))
            continue;
        int l = demanded(P, v);
        if (l) {
            set_lay(P, v, l);
            changed = true;
        }
    }
    return changed;
}

static int default_for(Pass *P, ValueId v) {
    Inst *def = P->f->values[v].def;
    int l = def && def->op == IR_EXPAND_DIMS ? unslice(P, vlay(P, def->args[0]), def->attr.axis) : 0;
    return l ? l : default_blocked(P, vtype(P, v));
}

/* Values nothing decided get a default: for expand_dims of a BLOCKED value,
 * the layout whose slice is that value's (no convert); else Triton's default
 * BLOCKED layout. All sources at once (values whose operands all have
 * layouts: aranges, constants, splats nobody wants in a layout), so forward
 * can carry them on; if there is none (a cycle through a loop), the first
 * value still without one. */
static bool default_some(Pass *P) {
    bool any = false;
    ValueId first = 0;
    for (int i = 0; i < P->norder; i++) {
        ValueId v = P->order[i];
        if (vlay(P, v))
            continue;
        first = first ? first : v;
        Inst *def = P->f->values[v].def;
        bool source = def != NULL;
        for (int k = 0; source && k < def->nargs; k++)
            source = !is_block(P, def->args[k]) || vlay(P, def->args[k]);
        if (source) { /* an operand defaulted just before may carry on */
            int l = def->nresults == 1 ? forward_rule(P, def) : 0;
            set_lay(P, v, l ? l : default_for(P, v));
            any = true;
        }
    }
    if (!any && first)
        set_lay(P, first, default_for(P, first));
    return first != 0;
}

static void propagate(Pass *P) {
    forward(P);
    adopt_store_layouts(P);
    for (;;) {
        forward(P);
        if (backward(P))
            continue;
        if (!default_some(P))
            return;
    }
}

/* ---- 3. resolve and 4. rewrite ---- */

static void record_block(Pass *P, ValueId v, Block *b) {
    if (v >= P->cap_vblock) {
        int cap = imax(2 * P->cap_vblock, v + 64);
        Block **nb = arena_alloc(P->f->arena, sizeof *nb * (size_t)cap);
        if (!nb)
            return;
        if (P->cap_vblock)
            memcpy(nb, P->vblock, sizeof *nb * (size_t)P->cap_vblock);
        P->vblock = nb;
        P->cap_vblock = cap;
    }
    P->vblock[v] = b;
}

/* Insert `in` into b right after `after` (NULL: at the start). */
static void insert_after(Pass *P, Block *b, const Inst *after, Inst *in) {
    int pos = 0;
    if (after)
        for (pos = 0; pos < b->ninsts && b->insts[pos] != after; pos++)
            ;
    ir_insert_insts(P->f, b, pos + (after != NULL), &in, 1);
}

/* A new one-result op right after v's definition (block start for a block
 * argument), so it dominates every use of v. */
static ValueId emit_after_def(Pass *P, ValueId v, OpCode op, const ValueId *args, int nargs, const Attr *attr,
                              Type t, int li, Span sp) {
    Inst *def = P->f->values[v].def;
    Block *b = v < P->cap_vblock ? P->vblock[v] : NULL;
    if (!b)
        b = P->f->values[v].block;
    Inst *in = ir_inst_new(P->f, NULL, op, args, nargs, &t, 1, sp);
    if (attr)
        in->attr = *attr;
    insert_after(P, b, def, in);
    ValueId r = in->results[0];
    P->f->values[r].layout = li;
    P->f->values[r].name = P->f->values[v].name;
    record_block(P, r, b);
    return r;
}

static bool cheap_op(OpCode op) {
    switch (op) {
    case IR_CONST: case IR_ARANGE: case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS:
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM: case IR_AND: case IR_OR:
    case IR_XOR: case IR_SHL: case IR_SHR: case IR_MIN: case IR_MAX: case IR_NEG: case IR_NOT:
    case IR_CMP: case IR_SELECT: case IR_ADDPTR: case IR_CAST: case IR_BITCAST:
    case IR_MULTIPLE_OF: case IR_MAX_CONTIGUOUS: case IR_MAX_CONSTANCY: case IR_DESC_TILE:
        return true;
    default:
        return false;
    }
}

static bool same_map(Pass *P, int a, int b, Type t) {
    if (a == b)
        return true;
    const ThreadMap *x = map_for(P, a, t), *y = map_for(P, b, t);
    if (!x || !y || x->nregs != y->nregs)
        return false;
    return layout_same_map(P->f, a, b, t, P->nw);
}

/* A load of fewer elements than the CTA has threads (attention backward's
 * m and Delta of 32 rows, wanted in the scores' slice; RoPE's cos and sin
 * rows, wanted in the slices of both q's and k's tiles): each thread loading
 * the elements it holds costs no more than the convert through shared memory
 * (and its barriers) it replaces, and the loads of the tiles no longer wait
 * behind those barriers for it; Triton's isExpensiveLoadOrStore. One copy a
 * wanted layout, at the original's place; the original, when no user is
 * left, drop_dead removes. A volatile load is read once, as written. */
static bool cheap_load(Pass *P, const Inst *def) {
    ValueId r = def->nresults == 1 ? def->results[0] : 0;
    return def->op == IR_LOAD && r && r < P->n0 && !def->attr.is_volatile && ir_numel(vtype(P, r)) < 32 * P->nw;
}

/* The ops one rematerialisation would copy, each (value, layout) counted
 * once: clone_in's memo copies a value used twice (a load's arange, in its
 * pointers and its mask) once. */
typedef struct Remat {
    int n;
    ValueId v[REMAT_BUDGET];
    int li[REMAT_BUDGET];
} Remat;

static bool counted(Remat *r, ValueId v, int li) {
    for (int i = 0; i < r->n; i++)
        if (r->v[i] == v && r->li[i] == li)
            return true;
    if (r->n == REMAT_BUDGET)
        return false;
    r->v[r->n] = v, r->li[r->n++] = li;
    return true;
}

/* Can v be recomputed in layout li by copying at most REMAT_BUDGET cheap
 * ops (operands already in the wanted layout cost nothing)? */
static bool cheap(Pass *P, ValueId v, int li, Remat *r) {
    if (!is_block(P, v) || same_map(P, vlay(P, v), li, vtype(P, v)))
        return true;
    Inst *def = P->f->values[v].def;
    if (!def || !(cheap_op(def->op) || cheap_load(P, def)) || def->nresults != 1 || !counted(r, v, li))
        return false;
    int w = derived_want(P, def, li);
    for (int k = 0; k < def->nargs; k++)
        if (is_block(P, def->args[k]) && (!w || !cheap(P, def->args[k], w, r)))
            return false;
    return true;
}

static ValueId materialize(Pass *P, ValueId v, int li, Span sp);

static ValueId clone_in(Pass *P, ValueId v, int li, Span sp) {
    Inst *def = P->f->values[v].def;
    int w = derived_want(P, def, li);
    ValueId args[8], *ap = def->nargs <= 8 ? args : arena_alloc(P->f->arena, sizeof *ap * (size_t)def->nargs);
    for (int k = 0; k < def->nargs; k++)
        ap[k] = is_block(P, def->args[k]) ? materialize(P, def->args[k], w, sp) : def->args[k];
    return emit_after_def(P, v, def->op, ap, def->nargs, &def->attr, vtype(P, v), li, def->span);
}

/* v in layout li: itself when the maps agree, else a copy computed in li
 * when cheap, else a convert_layout; one per (value, layout). */
static ValueId materialize(Pass *P, ValueId v, int li, Span sp) {
    if (!li || same_map(P, vlay(P, v), li, vtype(P, v)))
        return v;
    for (int i = 0; i < P->nmemo; i++)
        if (P->memo[i].from == v && P->memo[i].layout == li)
            return P->memo[i].to;
    Remat seen = {0};
    ValueId r;
    if (cheap(P, v, li, &seen))
        r = clone_in(P, v, li, sp);
    else
        r = emit_after_def(P, v, IR_CONVERT_LAYOUT, &v, 1, NULL, vtype(P, v), li, sp);
    if (P->nmemo == P->cap_memo) {
        P->cap_memo = P->cap_memo ? 2 * P->cap_memo : 32;
        Memo *m = arena_alloc(P->f->arena, sizeof *m * (size_t)P->cap_memo);
        if (!m)
            return r;
        if (P->nmemo)
            memcpy(m, P->memo, sizeof *m * (size_t)P->nmemo);
        P->memo = m;
    }
    P->memo[P->nmemo++] = (Memo){v, r, li};
    return r;
}

static void resolve(Pass *P) {
    for (ValueId v = 1; v < P->n0; v++)
        P->f->values[v].layout = is_block(P, v) ? vlay(P, v) : 0;
    for (int i = 0; i < P->ninsts; i++) {
        Inst *in = P->insts[i];
        for (int k = 0; k < in->nargs; k++) {
            int w = want(P, i, k);
            if (w)
                in->args[k] = materialize(P, in->args[k], w, in->span);
        }
    }
}

/* Rematerialisation can leave the original of a recomputed value without
 * users: drop such pure ops and loads (only those the pass made dead, not
 * dead code the kernel had). */
static void drop_dead(Pass *P) {
    int n = P->f->nvalues;
    int *uses = calloc((size_t)n, sizeof *uses);
    ValueId *stack = malloc(sizeof *stack * (size_t)n);
    if (!uses || !stack) {
        free(uses);
        free(stack);
        return;
    }
    ir_count_uses(P->f->body, uses);
    int top = 0;
    for (ValueId v = 1; v < P->n0; v++)
        if (!uses[v] && P->use_start[v + 1] > P->use_start[v])
            stack[top++] = v;
    while (top > 0) {
        ValueId v = stack[--top];
        Inst *def = P->f->values[v].def;
        if (!def || def->nresults != 1 || def->nregions || !(ir_ops[def->op].flags & OPF_PURE || def->op == IR_LOAD))
            continue;
        ir_remove_inst(P->vblock[v], def);
        for (int k = 0; k < def->nargs; k++) {
            ValueId a = def->args[k];
            if (--uses[a] == 0 && a < P->n0 && top < n)
                stack[top++] = a;
        }
    }
    free(uses);
    free(stack);
}

/* ---- checks ---- */

static Span value_span(const Pass *P, ValueId v) {
    const Value *val = &P->f->values[v];
    if (val->def)
        return val->def->span;
    return val->block && val->block->parent ? val->block->parent->span : (Span){0};
}

/* Each value the IR defines now (region arguments, then results), until
 * fn says stop. */
static bool each_value(Pass *P, const Block *b, bool (*fn)(Pass *, ValueId)) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++) {
            const Block *rb = in->regions[r];
            for (int x = 0; rb && x < rb->nargs; x++)
                if (!fn(P, rb->args[x]))
                    return false;
            if (!each_value(P, rb, fn))
                return false;
        }
        for (int r = 0; r < in->nresults; r++)
            if (!fn(P, in->results[r]))
                return false;
    }
    return true;
}

/* Every block value has a layout, no scalar has one. */
static bool laid_out(Pass *P, ValueId v) {
    bool block = vtype(P, v).rank > 0;
    if (block == (P->f->values[v].layout != 0))
        return true;
    diag_internal(P->d, "layout pass: in @%s: %%%d %s", P->f->name, v,
                  block ? "is a block without a layout" : "is a scalar with a layout");
    return false;
}

/* Registers one value needs per thread: 32-bit words, a 64-bit element two.
 * The largest such value is the one to report: a small value can be past the
 * limit only because it shares the layout of a large one (an arange whose
 * slice layout comes from a huge 2-D load), and pointing there misleads. */
static bool most_registers(Pass *P, ValueId v) {
    Type t = vtype(P, v);
    /* Not B of an mma dot: with a chained dot's warps all along M (attention)
     * every warp's B is the whole [K, N] tile, which wgmma reads from shared
     * memory and never holds (pipeline.c stages it); where it stays in
     * registers (mma.sync) it is as large as the program asked for, as in
     * Triton, and slow, not wrong. */
    const Layout *l = L_(P, P->f->values[v].layout);
    if (l && l->kind == LAYOUT_DOT_OPERAND && l->op_idx == 1 && kind_of(P, l->parent) == LAYOUT_MMA)
        return true;
    int64_t regs = t.rank ? words(P, P->f->values[v].layout, t) : 0;
    if (regs > P->worst_regs || (regs == P->worst_regs && ir_numel(t) > ir_numel(vtype(P, P->worst))))
        P->worst = v, P->worst_regs = regs;
    return true;
}

static bool fits_registers(Pass *P) {
    each_value(P, P->f->body, most_registers);
    if (P->worst_regs <= LAYOUT_MAX_REGS)
        return true;
    ValueId worst = P->worst;
    Type t = vtype(P, worst);
    const Inst *def = P->f->values[worst].def;
    Buf ty = {0};
    ir_type_print(&ty, t);
    diag_error(P->d, P->f->src, value_span(P, worst),
               "block of %lld elements (%s%s%s) needs %lld registers per thread with num_warps=%d, more than "
               "the %d one value may hold; use a smaller block or more warps",
               (long long)ir_numel(t), def ? ir_ops[def->op].name : "", def ? " of " : "", ty.data ? ty.data : "",
               (long long)P->worst_regs, P->nw, LAYOUT_MAX_REGS);
    buf_free(&ty);
    return false;
}

/* Number a layout (its parent first) the first time the printed IR shows it. */
static void number(const Function *f, int li, int *newidx, int *next) {
    if (li <= 0 || li >= f->nlayouts || newidx[li])
        return;
    const Layout *l = &f->layouts[li];
    if (l->kind == LAYOUT_SLICE || l->kind == LAYOUT_DOT_OPERAND)
        number(f, l->parent, newidx, next);
    newidx[li] = (*next)++;
}

static void number_block(const Function *f, const Block *b, int *newidx, int *next) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nresults; r++)
            number(f, f->values[in->results[r]].layout, newidx, next);
        for (int r = 0; r < in->nregions; r++) {
            const Block *rb = in->regions[r];
            for (int a = 0; rb && a < rb->nargs; a++)
                number(f, f->values[rb->args[a]].layout, newidx, next);
            number_block(f, rb, newidx, next);
        }
    }
}

/* Keep only the layouts in use, numbered in the order a reader meets them
 * (parents before the slices and operands that name them). */
static void compact(Pass *P) {
    Function *f = P->f;
    int n = f->nlayouts, next = 1;
    if (n <= 1)
        return;
    int *newidx = calloc((size_t)n, sizeof *newidx);
    Layout *old = arena_alloc(f->arena, sizeof *old * (size_t)n);
    if (!newidx || !old) {
        free(newidx);
        return;
    }
    number_block(f, f->body, newidx, &next);
    memcpy(old, f->layouts, sizeof *old * (size_t)n);
    for (int i = 1; i < n; i++) {
        if (!newidx[i])
            continue;
        Layout l = old[i];
        if (l.kind == LAYOUT_SLICE || l.kind == LAYOUT_DOT_OPERAND)
            l.parent = newidx[l.parent];
        f->layouts[newidx[i]] = l;
    }
    f->nlayouts = next;
    for (ValueId v = 1; v < f->nvalues; v++) {
        int li = f->values[v].layout;
        f->values[v].layout = li > 0 && li < n ? newidx[li] : 0;
    }
    free(newidx);
}

/* ---- setup ---- */

static void add_to_order(Pass *P, ValueId v, Block *b) {
    record_block(P, v, b);
    if (is_block(P, v))
        P->order[P->norder++] = v;
}

static void collect(Pass *P, Block *b, bool count_only) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        if (!count_only) {
            P->insts[P->ninsts] = in;
            P->iblock[P->ninsts] = b;
        }
        P->ninsts++;
        for (int r = 0; r < in->nregions; r++) {
            Block *rb = in->regions[r];
            for (int a = 0; !count_only && rb && a < rb->nargs; a++)
                add_to_order(P, rb->args[a], rb);
            collect(P, rb, count_only);
        }
        for (int r = 0; !count_only && r < in->nresults; r++)
            add_to_order(P, in->results[r], b);
    }
}

static void build_uses(Pass *P) {
    int n = P->n0;
    P->use_start = arena_alloc(P->f->arena, sizeof(int) * (size_t)(n + 1));
    int total = 0;
    for (int i = 0; i < P->ninsts; i++)
        for (int k = 0; k < P->insts[i]->nargs; k++)
            if (P->insts[i]->args[k] > 0 && P->insts[i]->args[k] < n)
                P->use_start[P->insts[i]->args[k] + 1]++, total++;
    for (int v = 0; v < n; v++)
        P->use_start[v + 1] += P->use_start[v];
    P->uses = arena_alloc(P->f->arena, sizeof(Use) * (size_t)(total ? total : 1));
    int *fill = calloc((size_t)n, sizeof *fill);
    for (int i = 0; fill && i < P->ninsts; i++)
        for (int k = 0; k < P->insts[i]->nargs; k++) {
            ValueId a = P->insts[i]->args[k];
            if (a > 0 && a < n)
                P->uses[P->use_start[a] + fill[a]++] = (Use){P->insts[i], k};
        }
    free(fill);
}

/* Values that must share a layout: a for's body argument and result, a
 * while's after-block argument and result. */
static void tie_carried(Pass *P) {
    for (int i = 0; i < P->ninsts; i++) {
        Inst *in = P->insts[i];
        Block *b = in->op == IR_FOR ? in->regions[0] : in->op == IR_WHILE && in->nregions > 1 ? in->regions[1] : NULL;
        int off = in->op == IR_FOR ? 1 : 0;
        for (int r = 0; b && r < in->nresults && r + off < b->nargs; r++)
            unite(P, b->args[r + off], in->results[r]);
    }
}

static bool setup(Pass *P) {
    Function *f = P->f;
    Arena *a = f->arena;
    P->n0 = f->nvalues;
    P->ninsts = 0;
    collect(P, f->body, true);
    int n = P->ninsts;
    P->insts = arena_alloc(a, sizeof *P->insts * (size_t)(n + 1));
    P->iblock = arena_alloc(a, sizeof *P->iblock * (size_t)(n + 1));
    P->anchor = arena_alloc(a, sizeof *P->anchor * (size_t)(n + 1));
    P->staged = arena_alloc(a, sizeof *P->staged * (size_t)(n + 1));
    P->sorted = arena_alloc(a, sizeof *P->sorted * (size_t)(n + 1));
    P->lay = arena_alloc(a, sizeof *P->lay * (size_t)P->n0);
    P->rep = arena_alloc(a, sizeof *P->rep * (size_t)P->n0);
    P->next_member = arena_alloc(a, sizeof *P->next_member * (size_t)P->n0);
    P->order = arena_alloc(a, sizeof *P->order * (size_t)P->n0);
    if (!P->order || !P->staged || !P->insts || !P->iblock || !P->anchor || !P->sorted || !P->lay || !P->rep || !P->next_member)
        return false;
    for (ValueId v = 0; v < P->n0; v++)
        P->rep[v] = P->next_member[v] = v;
    record_block(P, P->n0 - 1, NULL);
    for (int i = 0; i < f->nparams; i++)
        record_block(P, i + 1, f->body);
    P->ninsts = 0;
    collect(P, f->body, false);
    for (int i = 0; i < n; i++)
        P->sorted[i] = (struct InstAt){P->insts[i], i};
    qsort(P->sorted, (size_t)n, sizeof *P->sorted, cmp_inst_at);
    build_uses(P);
    tie_carried(P);
    return P->use_start && P->uses && P->vblock;
}

/* A convert goes in right after its value's def (one per value and layout);
 * when every use of it is inside one branch of a later `if` of the same
 * block, it moves to the start of that branch, so it runs only when the
 * branch does (a flattened loop's epilogue, flatten.c: converting the
 * accumulator every K step would cost a shared-memory round trip each). */
static void sink_converts(Function *f, Block *b, const int *uses) {
    for (int j = 0; j < b->ninsts; j++) {
        Inst *q = b->insts[j];
        for (int r = 0; r < q->nregions; r++)
            sink_converts(f, q->regions[r], uses);
        if (q->op != IR_IF)
            continue;
        int *in_r = calloc((size_t)f->nvalues, sizeof *in_r);
        for (int r = 0; in_r && r < q->nregions; r++) {
            memset(in_r, 0, sizeof *in_r * (size_t)f->nvalues);
            ir_count_uses(q->regions[r], in_r);
            for (int i = j - 1; i >= 0; i--) {
                Inst *c = b->insts[i];
                ValueId v = c->op == IR_CONVERT_LAYOUT ? c->results[0] : 0;
                if (!v || !uses[v] || in_r[v] != uses[v])
                    continue;
                ir_remove_inst(b, c);
                j--;
                ir_insert_insts(f, q->regions[r], 0, &c, 1);
            }
        }
        free(in_r);
    }
}

/* Do the dots of region b (its ifs' too) all split into two warpgroups'
 * wgmma tiles: 16- or 8-bit operands, 128 rows or a multiple? */
static bool dots_split_rows(const Function *f, const Block *b, int *ndots) {
    for (int i = 0; i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            if (!dots_split_rows(f, in->regions[r], ndots))
                return false;
        if (in->op != IR_DOT)
            continue;
        Type a = f->values[in->args[0]].type, c = f->values[in->results[0]].type;
        int bits = dt_bits((DType)a.dtype);
        if (c.rank != 2 || c.shape[0] % 128 || (bits != 16 && bits != 8))
            return false;
        (*ndots)++;
    }
    return true;
}

/* Triton on Hopper gives a loop marked warp_specialize=True three
 * warpgroups: the producer and two consumers that share the rows of its
 * MMA tiles (its data partitioning, each consumer at 232 registers). tl's
 * consumers are the function's warps, so with num_warps=4 and the loop's
 * dots 128 rows or more they become 8: the layouts give each warpgroup half
 * the rows, and llvm.c's 384-thread register split applies. One warpgroup
 * of 128 rows held twice the accumulator a thread, 204 registers for all
 * 256 threads and one CTA an SM: tutorial 06's forward (D=64) ran at 0.75x
 * Triton's. Where the pipeliner then finds no TMA rings to hand a producer,
 * the kernel runs on 8 warps, as correct. */
static int ws_consumer_warps(const Function *f, const PtxArch *arch) {
    if (f->num_warps != 4 || f->producer_warps || !ptx_arch_has(arch, ARCH_WGMMA))
        return f->num_warps;
    for (const Inst *in = ir_ws_next(f, NULL); in; in = ir_ws_next(f, in)) {
        int ndots = 0;
        if (in->attr.warp_spec > 0 && dots_split_rows(f, in->regions[0], &ndots) && ndots)
            return 8;
    }
    return f->num_warps;
}

bool layout_pass(Diag *d, Function *f, const AxisInfo *axis, const PtxArch *arch) {
    f->num_warps = ws_consumer_warps(f, arch);
    int nw = f->num_warps;
    if (nw < 1 || nw > 32 || (nw & (nw - 1))) {
        diag_plain(d, DIAG_ERROR, "num_warps=%d: must be a power of two from 1 to 32", nw);
        return false;
    }
    Pass P = {.d = d, .f = f, .axis = axis, .arch = arch, .nw = nw};
    if (!setup(&P)) {
        diag_internal(d, "layout pass: out of memory");
        return false;
    }
    anchors(&P);
    if (P.failed)
        return false;
    propagate(&P);
    resolve(&P);
    drop_dead(&P);
    int *uses = calloc((size_t)f->nvalues, sizeof *uses);
    if (uses) {
        ir_count_uses(f->body, uses);
        sink_converts(f, f->body, uses);
        free(uses);
    }
    compact(&P);
    P.nmaps = 0; /* indices moved */
    return each_value(&P, f->body, laid_out) && fits_registers(&P);
}
