/* layout.c: layouts as data: the interned table, thread maps, printing and
 * drawing. See layout.h for the model; the pass that picks layouts is
 * layout_pass.c.
 *
 * Every kind builds its map in two steps: a "raw" map straight from the
 * kind's definition (register offsets may run past the block where the tile
 * is larger), then finish() reduces the offsets mod shape, drops registers
 * that repeat an element, and derives contig, lane_dup/warp_dup and
 * replicated from the result, so those rules live in one place. */
#include "layout.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef __typeof__(((ThreadMap *)0)->dim[0]) MapDim;

/* ---- the table ---- */

/* Only the fields `kind` uses, so equal layouts are equal byte for byte. */
static Layout normalize(const Layout *l) {
    Layout n = {.kind = l->kind, .rank = l->rank};
    int r = l->rank < 0 ? 0 : l->rank > IR_MAX_RANK ? IR_MAX_RANK : l->rank;
    switch (l->kind) {
    case LAYOUT_BLOCKED:
        for (int d = 0; d < r; d++) {
            n.size_per_thread[d] = l->size_per_thread[d];
            n.threads_per_warp[d] = l->threads_per_warp[d];
            n.warps_per_cta[d] = l->warps_per_cta[d];
            n.order[d] = l->order[d];
        }
        break;
    case LAYOUT_SLICE:
        n.parent = l->parent;
        n.dim = l->dim;
        break;
    case LAYOUT_MMA:
        for (int d = 0; d < r; d++)
            n.warps_per_cta[d] = l->warps_per_cta[d];
        n.version = l->version ? l->version : 2;
        break;
    case LAYOUT_DOT_OPERAND:
        n.parent = l->parent;
        n.op_idx = l->op_idx;
        n.k_width = l->k_width;
        break;
    case LAYOUT_SHARED:
        for (int d = 0; d < r; d++)
            n.order[d] = l->order[d];
        n.vec = l->vec;
        n.per_phase = l->per_phase;
        n.max_phase = l->max_phase;
        break;
    case LAYOUT_NVMMA:
        n.swizzle = l->swizzle;
        n.elem_bits = l->elem_bits;
        n.transposed = l->transposed;
        break;
    case LAYOUT_NONE:
        break;
    }
    return n;
}

/* The table has no capacity field: it holds 8 slots, then doubles whenever
 * nlayouts reaches a power of two, so the capacity follows from nlayouts. */
static bool table_full(const Function *f) {
    int n = f->nlayouts;
    return !f->layouts || (n >= 8 && (n & (n - 1)) == 0);
}

int layout_intern(Function *f, const Layout *l) {
    Layout n = normalize(l);
    for (int i = 1; i < f->nlayouts; i++)
        if (!memcmp(&f->layouts[i], &n, sizeof n))
            return i;
    if (f->nlayouts == 0)
        f->nlayouts = 1; /* slot 0 is "no layout" */
    if (table_full(f)) {
        int cap = f->nlayouts < 8 ? 8 : 2 * f->nlayouts;
        Layout *t = arena_alloc(f->arena, sizeof(Layout) * (size_t)cap);
        if (!t)
            return 0;
        if (f->layouts)
            memcpy(t, f->layouts, sizeof(Layout) * (size_t)f->nlayouts);
        f->layouts = t;
    }
    f->layouts[f->nlayouts] = n;
    return f->nlayouts++;
}

static const Layout *get(const Function *f, int li) {
    return li > 0 && li < f->nlayouts ? &f->layouts[li] : NULL;
}

/* ---- thread maps ---- */

static ThreadMap *map_new(const Function *f, int rank, const int32_t *shape, int64_t nregs) {
    ThreadMap *tm = arena_alloc(f->arena, sizeof *tm);
    if (!tm)
        return NULL;
    tm->rank = rank;
    for (int d = 0; d < rank; d++)
        tm->shape[d] = shape[d];
    tm->nregs = (int)nregs;
    tm->reg_off = arena_alloc(f->arena, sizeof *tm->reg_off * (size_t)(nregs ? nregs : 1));
    return tm->reg_off ? tm : NULL;
}

static int imax(int a, int b) { return a > b ? a : b; }

/* Row-major index of a register's element when the thread's base is 0. */
static int64_t row_key(const ThreadMap *tm, int r) {
    int64_t k = 0;
    for (int d = 0; d < tm->rank; d++)
        k = k * tm->shape[d] + tm->reg_off[r][d];
    return k;
}

typedef struct KeyReg {
    int64_t key;
    int reg;
} KeyReg;

static int cmp_keyreg(const void *a, const void *b) {
    const KeyReg *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->reg - y->reg;
}

/* Reduce offsets mod shape and keep the first register of each element:
 * offsets that differ by a multiple of the shape name the same element in
 * every thread. */
static void dedupe(const Function *f, ThreadMap *tm) {
    for (int r = 0; r < tm->nregs; r++)
        for (int d = 0; d < tm->rank; d++)
            tm->reg_off[r][d] %= tm->shape[d];
    KeyReg *kr = malloc(sizeof *kr * (size_t)(tm->nregs ? tm->nregs : 1));
    bool *drop = calloc((size_t)(tm->nregs ? tm->nregs : 1), 1);
    if (!kr || !drop) {
        free(kr);
        free(drop);
        return;
    }
    for (int r = 0; r < tm->nregs; r++)
        kr[r] = (KeyReg){row_key(tm, r), r};
    qsort(kr, (size_t)tm->nregs, sizeof *kr, cmp_keyreg);
    for (int i = 1; i < tm->nregs; i++)
        if (kr[i].key == kr[i - 1].key)
            drop[kr[i].reg] = true;
    int n = 0;
    for (int r = 0; r < tm->nregs; r++)
        if (!drop[r])
            memmove(tm->reg_off[n++], tm->reg_off[r], sizeof tm->reg_off[0]);
    tm->nregs = n;
    free(kr);
    free(drop);
    (void)f;
}

/* The largest power of two c such that registers come in aligned runs of c
 * consecutive elements along d, and every thread's base along d is a
 * multiple of c (so a run never wraps and can be one vector access). */
static int contig_along(const ThreadMap *tm, int d) {
    const MapDim *m = &tm->dim[d];
    int best = 1;
    for (int c = 2; c <= tm->nregs && c <= tm->shape[d]; c *= 2) {
        if (tm->nregs % c || (m->lmod > 1 && m->lmul % c) || (m->wmod > 1 && m->wmul % c))
            break;
        for (int r = 0; r < tm->nregs; r += c) {
            if (tm->reg_off[r][d] % c)
                return best;
            for (int i = 1; i < c; i++)
                for (int e = 0; e < tm->rank; e++)
                    if (tm->reg_off[r + i][e] != tm->reg_off[r][e] + (e == d ? i : 0))
                        return best;
        }
        best = c;
    }
    return best;
}

/* Does a lane (or warp) id bit of value `bit` move the element along any
 * dim? A bit whose step along d is a multiple of shape_d wraps onto the same
 * element: the threads differing in it hold copies. */
static bool bit_moves(const ThreadMap *tm, int bit, bool warp) {
    for (int d = 0; d < tm->rank; d++) {
        const MapDim *m = &tm->dim[d];
        int div = warp ? m->wdiv : m->ldiv, mod = warp ? m->wmod : m->lmod, mul = warp ? m->wmul : m->lmul;
        if (bit >= div && bit < (int64_t)div * mod && ((int64_t)(bit / div) * mul) % tm->shape[d])
            return true;
    }
    return false;
}

static void finish(const Function *f, ThreadMap *tm, int num_warps) {
    dedupe(f, tm);
    tm->contig = 1;
    tm->contig_dim = tm->rank ? tm->rank - 1 : -1;
    for (int d = tm->rank - 1; d >= 0; d--) {
        int c = contig_along(tm, d);
        if (c > tm->contig) {
            tm->contig = c;
            tm->contig_dim = d;
        }
    }
    tm->lane_dup = tm->warp_dup = 0;
    for (int b = 1; b < 32; b *= 2)
        if (!bit_moves(tm, b, false))
            tm->lane_dup |= (uint32_t)b;
    for (int b = 1; b < num_warps; b *= 2)
        if (!bit_moves(tm, b, true))
            tm->warp_dup |= (uint32_t)b;
    for (int d = 0; d < tm->rank; d++) {
        const MapDim *m = &tm->dim[d];
        tm->replicated[d] = (m->lmod > 1 && (int64_t)m->lmod * m->lmul > tm->shape[d]) ||
                            (m->wmod > 1 && (int64_t)m->wmod * m->wmul > tm->shape[d]);
    }
}

/* BLOCKED: lanes and warps are numbered along `order`; registers are the
 * sizePerThread elements then the repetitions, both fastest dim first. */
static ThreadMap *blocked_map(const Function *f, const Layout *l, int rank, const int32_t *shape) {
    int tile[IR_MAX_RANK], reps[IR_MAX_RANK];
    int64_t nspt = 1, nrep = 1;
    for (int d = 0; d < rank; d++) {
        tile[d] = l->size_per_thread[d] * l->threads_per_warp[d] * l->warps_per_cta[d];
        reps[d] = imax(1, shape[d] / imax(1, tile[d]));
        nspt *= l->size_per_thread[d];
        nrep *= reps[d];
    }
    ThreadMap *tm = map_new(f, rank, shape, nspt * nrep);
    if (!tm)
        return NULL;
    int ldiv = 1, wdiv = 1;
    for (int k = 0; k < rank; k++) {
        int d = l->order[k], spt = l->size_per_thread[d];
        tm->dim[d] = (MapDim){ldiv, l->threads_per_warp[d], spt, wdiv, l->warps_per_cta[d],
                              spt * l->threads_per_warp[d]};
        ldiv *= l->threads_per_warp[d];
        wdiv *= l->warps_per_cta[d];
    }
    for (int64_t r = 0; r < nspt * nrep; r++) {
        int64_t s = r % nspt, q = r / nspt;
        for (int k = 0; k < rank; k++) {
            int d = l->order[k];
            tm->reg_off[r][d] = (int32_t)((q % reps[d]) * tile[d] + s % l->size_per_thread[d]);
            s /= l->size_per_thread[d];
            q /= reps[d];
        }
    }
    return tm;
}

/* The warp id of an MMA layout is row-major over warpsPerCTA (dim 1 fastest),
 * as Triton numbers it; the dot operands use the same numbering so warp w's
 * A rows and B columns are the ones its accumulator tile needs. */
static MapDim mma_rows(const Layout *mma) { return (MapDim){4, 8, 1, mma->warps_per_cta[1], mma->warps_per_cta[0], 16}; }
static MapDim mma_cols(const Layout *mma) { return (MapDim){1, 4, 2, 1, mma->warps_per_cta[1], 8}; }

static ThreadMap *mma_map(const Function *f, const Layout *l, const int32_t *shape) {
    int wm = l->warps_per_cta[0], wn = l->warps_per_cta[1];
    int repm = imax(1, shape[0] / (16 * wm)), repn = imax(1, shape[1] / (8 * wn));
    ThreadMap *tm = map_new(f, 2, shape, (int64_t)repm * repn * 4);
    if (!tm)
        return NULL;
    tm->dim[0] = mma_rows(l);
    tm->dim[1] = mma_cols(l);
    int r = 0;
    for (int m = 0; m < repm; m++)
        for (int n = 0; n < repn; n++)
            for (int i = 0; i < 4; i++, r++) { /* c0..c3: (0,0) (0,1) (8,0) (8,1) */
                tm->reg_off[r][0] = m * 16 * wm + (i / 2) * 8;
                tm->reg_off[r][1] = n * 8 * wn + i % 2;
            }
    return tm;
}

/* DOT_OPERAND of an MMA parent: one mma.sync m16n8k(8*kw) fragment per
 * repetition; k_width elements share a 32-bit register. */
static ThreadMap *dot_mma_map(const Function *f, const Layout *l, const Layout *mma, const int32_t *shape) {
    int kw = imax(1, l->k_width), ik = 8 * kw;
    int wm = mma->warps_per_cta[0], wn = mma->warps_per_cta[1];
    bool a = l->op_idx == 0;
    int kdim = a ? 1 : 0, odim = a ? 0 : 1;
    int repk = imax(1, shape[kdim] / ik);
    int repo = a ? imax(1, shape[0] / (16 * wm)) : imax(1, shape[1] / (8 * wn));
    int frag = a ? 4 * kw : 2 * kw;
    ThreadMap *tm = map_new(f, 2, shape, (int64_t)repo * repk * frag);
    if (!tm)
        return NULL;
    tm->dim[kdim] = (MapDim){1, 4, kw, 1, 1, 0};
    tm->dim[odim] = a ? mma_rows(mma) : (MapDim){4, 8, 1, 1, wn, 8};
    int r = 0;
    for (int o = 0; o < repo; o++)
        for (int k = 0; k < repk; k++)
            for (int kh = 0; kh < 2; kh++)
                for (int oh = 0; oh < (a ? 2 : 1); oh++)
                    for (int e = 0; e < kw; e++, r++) {
                        tm->reg_off[r][kdim] = k * ik + kh * 4 * kw + e;
                        tm->reg_off[r][odim] = a ? o * 16 * wm + oh * 8 : o * 8 * wn;
                    }
    return tm;
}

static const ThreadMap *map_of(const Function *f, int li, int rank, const int32_t *shape, int num_warps);

/* DOT_OPERAND of a BLOCKED parent (FMA dot): A keeps the parent's rows with
 * every k, B the parent's columns with every k. */
static ThreadMap *dot_fma_map(const Function *f, const Layout *l, int num_warps, const int32_t *shape) {
    bool a = l->op_idx == 0;
    int kdim = a ? 1 : 0, odim = a ? 0 : 1;
    int32_t pshape[2] = {a ? shape[0] : 1, a ? 1 : shape[1]};
    const ThreadMap *pm = map_of(f, l->parent, 2, pshape, num_warps);
    if (!pm)
        return NULL;
    int K = shape[kdim];
    ThreadMap *tm = map_new(f, 2, shape, (int64_t)pm->nregs * K);
    if (!tm)
        return NULL;
    tm->dim[odim] = pm->dim[odim];
    tm->dim[kdim] = (MapDim){1, 1, 0, 1, 1, 0};
    int r = 0;
    for (int i = 0; i < pm->nregs * K; i++, r++) {
        int k = a ? i % K : i / pm->nregs, p = a ? i / K : i % pm->nregs;
        tm->reg_off[r][kdim] = k;
        tm->reg_off[r][odim] = pm->reg_off[p][odim];
    }
    return tm;
}

/* SLICE: the parent's map with a 1 inserted at dim, that column dropped. */
static ThreadMap *slice_map(const Function *f, const Layout *l, int rank, const int32_t *shape, int num_warps) {
    int32_t pshape[IR_MAX_RANK];
    if (rank + 1 > IR_MAX_RANK || l->dim < 0 || l->dim > rank)
        return NULL;
    for (int d = 0, s = 0; d <= rank; d++)
        pshape[d] = d == l->dim ? 1 : shape[s++];
    const ThreadMap *pm = map_of(f, l->parent, rank + 1, pshape, num_warps);
    if (!pm)
        return NULL;
    ThreadMap *tm = map_new(f, rank, shape, pm->nregs);
    if (!tm)
        return NULL;
    for (int d = 0, s = 0; d <= rank; d++) {
        if (d == l->dim)
            continue;
        tm->dim[s] = pm->dim[d];
        for (int r = 0; r < pm->nregs; r++)
            tm->reg_off[r][s] = pm->reg_off[r][d];
        s++;
    }
    return tm;
}

static const ThreadMap *map_of(const Function *f, int li, int rank, const int32_t *shape, int num_warps) {
    const Layout *l = get(f, li);
    if (!l || l->rank != rank || rank < 1)
        return NULL;
    for (int d = 0; d < rank; d++)
        if (shape[d] < 1)
            return NULL;
    ThreadMap *tm = NULL;
    switch (l->kind) {
    case LAYOUT_BLOCKED:
        tm = blocked_map(f, l, rank, shape);
        break;
    case LAYOUT_SLICE:
        tm = slice_map(f, l, rank, shape, num_warps);
        break;
    case LAYOUT_MMA:
        tm = rank == 2 ? mma_map(f, l, shape) : NULL;
        break;
    case LAYOUT_DOT_OPERAND: {
        const Layout *p = get(f, l->parent);
        if (rank != 2 || !p || p->rank != 2)
            return NULL;
        if (p->kind == LAYOUT_MMA)
            tm = dot_mma_map(f, l, p, shape);
        else if (p->kind == LAYOUT_BLOCKED)
            tm = dot_fma_map(f, l, num_warps, shape);
        break;
    }
    case LAYOUT_SHARED:
    case LAYOUT_NVMMA:
    case LAYOUT_NONE:
        return NULL;
    }
    if (tm)
        finish(f, tm, num_warps);
    return tm;
}

const ThreadMap *layout_thread_map(const Function *f, int li, Type t, int num_warps) {
    return map_of(f, li, t.rank, t.shape, num_warps);
}

int64_t layout_warp_base(const ThreadMap *tm, int d, int warp) {
    const MapDim *m = &tm->dim[d];
    return (int64_t)((warp / m->wdiv) % m->wmod) * m->wmul;
}

void layout_elem_index(const ThreadMap *tm, int lane, int warp, int r, int32_t *idx) {
    for (int d = 0; d < tm->rank; d++) {
        const MapDim *m = &tm->dim[d];
        int64_t base = (int64_t)((lane / m->ldiv) % m->lmod) * m->lmul + layout_warp_base(tm, d, warp);
        idx[d] = (int32_t)((base + tm->reg_off[r][d]) % tm->shape[d]);
    }
}

bool layout_is_wgmma(const Function *f, int li) {
    if (li <= 0 || li >= f->nlayouts)
        return false;
    const Layout *l = &f->layouts[li];
    if (l->kind == LAYOUT_DOT_OPERAND)
        return layout_is_wgmma(f, l->parent);
    return l->kind == LAYOUT_MMA && l->version == 3;
}

bool layout_same_map(const Function *f, int a, int b, Type t, int num_warps) {
    if (a == b)
        return true;
    const ThreadMap *x = layout_thread_map(f, a, t, num_warps), *y = layout_thread_map(f, b, t, num_warps);
    if (!x || !y || x->nregs != y->nregs)
        return false;
    for (int w = 0; w < num_warps; w++)
        for (int l = 0; l < 32; l++)
            for (int r = 0; r < x->nregs; r++) {
                int32_t i[IR_MAX_RANK], j[IR_MAX_RANK];
                layout_elem_index(x, l, w, r, i);
                layout_elem_index(y, l, w, r, j);
                if (memcmp(i, j, sizeof i[0] * (size_t)t.rank))
                    return false;
            }
    return true;
}

/* The element register r of thread (lane, warp) holds in tm, as a linear
 * index with coefficients coef. */
static int64_t elem_linear(const ThreadMap *tm, int lane, int warp, int r, const int64_t *coef) {
    int32_t i[IR_MAX_RANK];
    layout_elem_index(tm, lane, warp, r, i);
    int64_t lin = 0;
    for (int k = 0; k < tm->rank; k++)
        lin += i[k] * coef[k];
    return lin;
}

bool layout_rename_plan(const ThreadMap *src, const ThreadMap *dst, const int64_t *coef, int64_t base, int num_warps,
                        int *plan) {
    int64_t numel = 1, strides[IR_MAX_RANK];
    for (int k = src->rank - 1; k >= 0; k--)
        strides[k] = numel, numel *= src->shape[k];
    int *slot = malloc(sizeof(int) * (size_t)numel);
    if (!slot)
        return false;
    for (int64_t i = 0; i < numel; i++)
        slot[i] = -1;
    for (int r = 0; r < dst->nregs; r++)
        plan[r] = -1;
    bool ok = true;
    for (int t = 0; t < 32 * num_warps && ok; t++) {
        int lane = t % 32, warp = t / 32;
        for (int r = src->nregs - 1; r >= 0; r--) /* the lowest register wins */
            slot[elem_linear(src, lane, warp, r, strides)] = r;
        for (int r = 0; r < dst->nregs && ok; r++) {
            int64_t lin = elem_linear(dst, lane, warp, r, coef) + base;
            if (lin < 0 || lin >= numel || slot[lin] < 0)
                ok = false;
            else if (plan[r] < 0)
                plan[r] = slot[lin];
            else if (plan[r] != slot[lin] && elem_linear(src, lane, warp, plan[r], strides) != lin)
                ok = false;
        }
        for (int r = 0; r < src->nregs; r++)
            slot[elem_linear(src, lane, warp, r, strides)] = -1;
    }
    free(slot);
    return ok;
}

/* Try each lane xor m, the thread itself first: for every thread, the
 * registers of lane ^ m (slot: element -> register) must hold each of its
 * elements' partners, and in one register for all threads (or one that
 * holds the same element, as layout_rename_plan allows). */
bool layout_xor_plan(const ThreadMap *tm, int axis, int c, int num_warps, int *plan, int *lane_xor) {
    int64_t numel = 1, strides[IR_MAX_RANK];
    for (int k = tm->rank - 1; k >= 0; k--)
        strides[k] = numel, numel *= tm->shape[k];
    if (axis < 0 || axis >= tm->rank || c <= 0 || c >= tm->shape[axis])
        return false;
    int *slot = malloc(sizeof(int) * (size_t)numel);
    if (!slot)
        return false;
    for (int64_t i = 0; i < numel; i++)
        slot[i] = -1;
    bool ok = false;
    for (int m = 0; m < 32 && !ok; m++) {
        ok = true;
        for (int r = 0; r < tm->nregs; r++)
            plan[r] = -1;
        for (int t = 0; t < 32 * num_warps && ok; t++) {
            int lane = t % 32, warp = t / 32, other = lane ^ m;
            for (int r = tm->nregs - 1; r >= 0; r--) /* the lowest register wins */
                slot[elem_linear(tm, other, warp, r, strides)] = r;
            for (int r = 0; r < tm->nregs && ok; r++) {
                int32_t i[IR_MAX_RANK];
                layout_elem_index(tm, lane, warp, r, i);
                i[axis] ^= c; /* in range for a power-of-two length, which every block dim is */
                int64_t lin = 0;
                for (int k = 0; k < tm->rank; k++)
                    lin += i[k] * strides[k];
                int held = i[axis] < tm->shape[axis] ? slot[lin] : -1;
                if (held < 0)
                    ok = false;
                else if (plan[r] < 0)
                    plan[r] = held;
                else if (plan[r] != held && elem_linear(tm, other, warp, plan[r], strides) != lin)
                    ok = false;
            }
            for (int r = 0; r < tm->nregs; r++)
                slot[elem_linear(tm, other, warp, r, strides)] = -1;
        }
        if (ok)
            *lane_xor = m;
    }
    free(slot);
    return ok;
}

bool layout_gather_xor(const Function *f, const Inst *in, int *plan, int *lane_xor) {
    if (in->op != IR_GATHER || !in->attr.num)
        return false;
    const Value *src = &f->values[in->args[0]], *res = &f->values[in->results[0]];
    const ThreadMap *ts = layout_thread_map(f, src->layout, src->type, f->num_warps),
                    *tr = layout_thread_map(f, res->layout, res->type, f->num_warps);
    return ts && tr && ts->nregs <= LAYOUT_MAX_REGS && layout_tm_equal(ts, tr) &&
           layout_xor_plan(ts, in->attr.axis, in->attr.num, f->num_warps, plan, lane_xor);
}

bool layout_tm_equal(const ThreadMap *a, const ThreadMap *b) {
    if (a == b)
        return true;
    if (!a || !b || a->rank != b->rank || a->nregs != b->nregs)
        return false;
    for (int d = 0; d < a->rank; d++)
        if (a->shape[d] != b->shape[d] || memcmp(&a->dim[d], &b->dim[d], sizeof a->dim[d]))
            return false;
    return !a->nregs || !memcmp(a->reg_off, b->reg_off, sizeof a->reg_off[0] * (size_t)a->nregs);
}

bool layout_extract_renames(const Function *f, int li, Type src, Type res, int axis, int64_t start, int num_warps) {
    const ThreadMap *s = layout_thread_map(f, li, src, num_warps), *d = layout_thread_map(f, li, res, num_warps);
    if (!s || !d || axis < 0 || axis >= src.rank)
        return false;
    int64_t strides[IR_MAX_RANK], acc = 1;
    for (int k = src.rank - 1; k >= 0; k--)
        strides[k] = acc, acc *= src.shape[k];
    int *plan = malloc(sizeof(int) * (size_t)(d->nregs ? d->nregs : 1));
    bool ok = plan && layout_rename_plan(s, d, strides, start * strides[axis], num_warps, plan);
    free(plan);
    return ok;
}

bool layout_reg_runs(const ThreadMap *tm, int fd, int v) {
    for (int r = 0; r < tm->nregs; r += v) {
        if (tm->reg_off[r][fd] % v)
            return false;
        for (int i = 1; i < v; i++)
            for (int d = 0; d < tm->rank; d++)
                if (tm->reg_off[r + i][d] != tm->reg_off[r][d] + (d == fd ? i : 0))
                    return false;
    }
    return true;
}

bool layout_runs_aligned(const ThreadMap *tm, int fd, int v) {
    const MapDim *m = &tm->dim[fd];
    return (m->lmod <= 1 || m->lmul % v == 0) && (m->wmod <= 1 || m->wmul % v == 0) && layout_reg_runs(tm, fd, v);
}

int layout_vector_width(const ThreadMap *tm, const AxisInfo *p, const AxisInfo *mask, int bytes) {
    if (!tm || tm->contig_dim < 0)
        return 1;
    int fd = tm->contig_dim, v = tm->contig;
    if (p) {
        if (p->contiguity[fd] < v)
            v = (int)p->contiguity[fd];
        while (v > 1 && p->divisibility[fd] < (int64_t)v * bytes)
            v /= 2;
    }
    if (mask && mask->constancy[fd] < v)
        v = (int)mask->constancy[fd];
    while (v > 1 && (v * bytes > 16 || tm->nregs % v || tm->shape[fd] < v))
        v /= 2;
    for (; v > 1; v /= 2)
        if (layout_reg_runs(tm, fd, v))
            return v;
    return v < 1 ? 1 : v;
}

/* ---- shared layouts ---- */

Layout layout_swizzled_for(int rows, int cols, int bytes) {
    Layout l = {.kind = LAYOUT_SHARED, .rank = 2, .order = {1, 0}};
    int vec = 16 / bytes > 0 ? 16 / bytes : 1, row_bytes = cols * bytes;
    if (vec > cols)
        vec = cols;
    l.vec = vec;
    l.per_phase = row_bytes >= 128 ? 1 : 128 / row_bytes;
    int groups = cols / vec;
    l.max_phase = groups < 8 ? groups : 8;
    if (l.per_phase * l.max_phase > rows) /* fewer rows than one full pattern: it still permutes */
        l.max_phase = rows / l.per_phase > 1 ? rows / l.per_phase : 1;
    if (l.max_phase < 1)
        l.max_phase = 1;
    return l;
}

Layout layout_fma_shared(int rows, int cols, int bytes, int op_idx) {
    if (op_idx == 0)
        return layout_swizzled_for(rows, cols, bytes);
    int vec = 16 / bytes > 0 ? 16 / bytes : 1;
    return (Layout){.kind = LAYOUT_SHARED, .rank = 2, .order = {1, 0}, .vec = vec < cols ? vec : cols, .per_phase = 1,
                    .max_phase = 1};
}

/* SHARED: the tile dims (the last l->rank of t) row-major along order, the
 * vec groups of each row XOR-ed with its phase; stage dims outermost. */
static int64_t swizzled_offset(const Layout *l, Type t, const int32_t *idx) {
    int lead = t.rank - l->rank;
    int64_t off = 0;
    for (int d = 0; d < lead; d++)
        off = off * t.shape[d] + idx[d];
    const int32_t *ti = idx + lead, *ts = t.shape + lead;
    int64_t tile = 0, numel = 1;
    for (int k = l->rank - 1; k >= 1; k--) { /* all but the fastest dim, slowest first */
        int d = l->order[k];
        tile = tile * ts[d] + ti[d];
        numel *= ts[d];
    }
    int inner = l->order[0], cols = ts[inner], col = ti[inner];
    int64_t row = tile; /* rows are the slower dims, linearised */
    if (l->vec > 0 && l->per_phase > 0 && l->max_phase > 0 && l->rank >= 2) {
        int phase = (int)((row / l->per_phase) % l->max_phase);
        col = ((col / l->vec) ^ phase) * l->vec + col % l->vec;
    }
    return (off * numel + row) * cols + col;
}

/* NVMMA: atoms of `swizzle` bytes along the inner dim, each atom column a
 * row-major stack of rows; inside an atom, CUTLASS's Swizzle<B, 4, 3> on the
 * byte offset: bits [4, 4+B) ^= bits [7, 7+B), B = log2(swizzle / 16). */
static int64_t nvmma_offset(const Layout *l, Type t, const int32_t *idx) {
    if (t.rank < 2 || l->elem_bits < 8)
        return -1;
    int bytes = l->elem_bits / 8;
    int lead = t.rank - 2, id = l->transposed ? t.rank - 2 : t.rank - 1, od = l->transposed ? t.rank - 1 : t.rank - 2;
    int64_t stage = 0;
    for (int d = 0; d < lead; d++)
        stage = stage * t.shape[d] + idx[d];
    int atom_bytes = l->swizzle ? l->swizzle : 16, atom = atom_bytes / bytes;
    if (atom < 1 || t.shape[id] % atom)
        return -1;
    int64_t rows = t.shape[od], inner = t.shape[id];
    int64_t byte = ((int64_t)(idx[id] / atom) * rows + idx[od]) * atom_bytes + (int64_t)(idx[id] % atom) * bytes;
    int b = l->swizzle == 128 ? 3 : l->swizzle == 64 ? 2 : l->swizzle == 32 ? 1 : 0;
    byte ^= ((byte >> 7) & ((1 << b) - 1)) << 4;
    return stage * rows * inner + byte / bytes;
}

int64_t layout_shared_offset(const Function *f, int li, Type t, const int32_t *idx) {
    const Layout *l = get(f, li);
    if (!l || !layout_is_shared(l->kind))
        return -1;
    if (l->kind == LAYOUT_NVMMA)
        return nvmma_offset(l, t, idx);
    if (l->rank < 1 || l->rank > t.rank)
        return -1;
    return swizzled_offset(l, t, idx);
}

void layout_draw_shared(Buf *out, const Function *f, int li, Type t) {
    buf_puts(out, "layout ");
    layout_print(out, f, li);
    buf_puts(out, " on ");
    ir_type_print(out, t);
    int bytes = dt_bits(t.dtype) / 8 > 0 ? dt_bits(t.dtype) / 8 : 1, per_chunk = 16 / bytes > 0 ? 16 / bytes : 1;
    buf_printf(out, "\n(each cell: 16-byte chunk:element within it, of the element's place in the buffer)\n");
    if (t.rank != 2)
        return;
    char s[32];
    int width = snprintf(s, sizeof s, "%lld:%d", (long long)(ir_numel(t) / per_chunk), per_chunk - 1);
    buf_printf(out, "%5s", "");
    for (int c = 0; c < t.shape[1]; c++)
        buf_printf(out, " %*d", width, c);
    buf_putc(out, '\n');
    for (int r = 0; r < t.shape[0]; r++) {
        buf_printf(out, "%5d", r);
        for (int c = 0; c < t.shape[1]; c++) {
            int64_t o = layout_shared_offset(f, li, t, (int32_t[]){r, c});
            snprintf(s, sizeof s, "%lld:%lld", (long long)(o / per_chunk), (long long)(o % per_chunk));
            buf_printf(out, " %*s", width, s);
        }
        buf_putc(out, '\n');
    }
}

/* ---- printing ---- */

static void put_ints(Buf *b, const int *v, int n) {
    buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        buf_printf(b, "%s%d", i ? ", " : "", v[i]);
    buf_putc(b, ']');
}

static const char *alias_base(LayoutKind k) {
    return k == LAYOUT_BLOCKED ? "#blocked" : k == LAYOUT_MMA ? "#mma" : k == LAYOUT_SHARED ? "#shared"
           : k == LAYOUT_NVMMA ? "#nvmma" : NULL;
}

/* Parents print through `parent` so the same code serves the inline form
 * and the aliased one. */
static void print_layout(Buf *b, const Function *f, int li, void (*parent)(Buf *, const Function *, int)) {
    const Layout *l = get(f, li);
    if (!l) {
        buf_printf(b, "#invalid<%d>", li);
        return;
    }
    switch (l->kind) {
    case LAYOUT_BLOCKED:
        buf_puts(b, "#blocked<{spt = ");
        put_ints(b, l->size_per_thread, l->rank);
        buf_puts(b, ", tpw = ");
        put_ints(b, l->threads_per_warp, l->rank);
        buf_puts(b, ", wpc = ");
        put_ints(b, l->warps_per_cta, l->rank);
        buf_puts(b, ", order = ");
        put_ints(b, l->order, l->rank);
        buf_puts(b, "}>");
        break;
    case LAYOUT_SLICE:
        buf_printf(b, "#slice<{dim = %d, parent = ", l->dim);
        parent(b, f, l->parent);
        buf_puts(b, "}>");
        break;
    case LAYOUT_MMA:
        buf_printf(b, "#mma<{version = %d, wpc = ", l->version ? l->version : 2);
        put_ints(b, l->warps_per_cta, l->rank);
        buf_puts(b, ", instr = [16, 8]}>");
        break;
    case LAYOUT_DOT_OPERAND:
        buf_printf(b, "#dot_op<{op_idx = %d, k_width = %d, parent = ", l->op_idx, l->k_width);
        parent(b, f, l->parent);
        buf_puts(b, "}>");
        break;
    case LAYOUT_SHARED:
        buf_printf(b, "#shared<{vec = %d, per_phase = %d, max_phase = %d, order = ", l->vec, l->per_phase,
                   l->max_phase);
        put_ints(b, l->order, l->rank);
        buf_puts(b, "}>");
        break;
    case LAYOUT_NVMMA:
        buf_printf(b, "#nvmma<{swizzle = %d, elem_bits = %d, transposed = %s}>", l->swizzle, l->elem_bits,
                   l->transposed ? "true" : "false");
        break;
    case LAYOUT_NONE:
        buf_puts(b, "#none");
        break;
    }
}

void layout_print(Buf *out, const Function *f, int li) { print_layout(out, f, li, layout_print); }

void layout_print_ref(Buf *out, const Function *f, int li) {
    const Layout *l = get(f, li);
    const char *base = l ? alias_base(l->kind) : NULL;
    if (!base) {
        print_layout(out, f, li, layout_print_ref);
        return;
    }
    int n = 0; /* Triton's numbering: #blocked, #blocked1, #blocked2, ... */
    for (int i = 1; i < li; i++)
        n += f->layouts[i].kind == l->kind;
    if (n)
        buf_printf(out, "%s%d", base, n);
    else
        buf_puts(out, base);
}

void layout_print_aliases(Buf *out, const Function *f) {
    for (int i = 1; i < f->nlayouts; i++) {
        if (!alias_base(f->layouts[i].kind))
            continue;
        layout_print_ref(out, f, i);
        buf_puts(out, " = ");
        layout_print(out, f, i);
        buf_putc(out, '\n');
    }
}

void layout_print_type(Buf *out, const Function *f, ValueId v) {
    Type t = v > 0 && v < f->nvalues ? f->values[v].type : (Type){0};
    int li = v > 0 && v < f->nvalues ? f->values[v].layout : 0;
    if (!t.rank || !get(f, li)) {
        ir_type_print(out, t);
        return;
    }
    Buf tb = {0};
    ir_type_print(&tb, t);
    if (tb.len && tb.data[tb.len - 1] == '>')
        tb.len--; /* reopen "<128x64xf16>" to add the layout */
    buf_putn(out, tb.data, tb.len);
    buf_puts(out, ", ");
    layout_print_ref(out, f, li);
    buf_putc(out, '>');
    buf_free(&tb);
}

/* ---- drawing ---- */

typedef struct Owner {
    int thread, reg, copies;
} Owner;

/* For each element (row-major) its lowest (thread, register) and the number
 * of (thread, register) pairs holding it. */
static Owner *owners(const ThreadMap *tm, int num_warps, int64_t numel) {
    Owner *o = calloc((size_t)numel, sizeof *o);
    if (!o)
        return NULL;
    for (int64_t e = 0; e < numel; e++)
        o[e].thread = -1;
    for (int t = 0; t < 32 * num_warps; t++)
        for (int r = 0; r < tm->nregs; r++) {
            int32_t idx[IR_MAX_RANK];
            layout_elem_index(tm, t % 32, t / 32, r, idx);
            int64_t e = 0;
            for (int d = 0; d < tm->rank; d++)
                e = e * tm->shape[d] + idx[d];
            if (o[e].thread < 0)
                o[e] = (Owner){t, r, 0};
            o[e].copies++;
        }
    return o;
}

static void put_cell(Buf *b, const Owner *o, bool regs, int width) {
    char s[32];
    if (o->thread < 0)
        snprintf(s, sizeof s, "?");
    else if (regs)
        snprintf(s, sizeof s, "T%d:%d", o->thread, o->reg);
    else
        snprintf(s, sizeof s, "T%d", o->thread);
    buf_printf(b, " %*s", width, s);
}

/* One 2-D section (rows x cols) of the owner table starting at element `at`. */
static void draw_section(Buf *b, const Owner *o, int64_t at, int rows, int cols, bool regs, int width) {
    buf_printf(b, "%5s", "");
    for (int c = 0; c < cols; c++)
        buf_printf(b, " %*d", width, c);
    buf_putc(b, '\n');
    for (int r = 0; r < rows; r++) {
        buf_printf(b, "%5d", r);
        for (int c = 0; c < cols; c++)
            put_cell(b, &o[at + (int64_t)r * cols + c], regs, width);
        buf_putc(b, '\n');
    }
}

void layout_draw(Buf *out, const Function *f, int li, Type t, int num_warps) {
    const ThreadMap *tm = layout_thread_map(f, li, t, num_warps);
    buf_puts(out, "layout ");
    layout_print(out, f, li);
    buf_puts(out, " on ");
    ir_type_print(out, t);
    buf_printf(out, ", num_warps = %d\n", num_warps);
    if (!tm) {
        buf_puts(out, "  (not held in registers)\n");
        return;
    }
    int64_t numel = ir_numel(t);
    Owner *o = owners(tm, num_warps, numel);
    if (!o)
        return;
    bool regs = tm->nregs > 1;
    char s[32];
    int width = regs ? snprintf(s, sizeof s, "T%d:%d", 32 * num_warps - 1, tm->nregs - 1)
                     : snprintf(s, sizeof s, "T%d", 32 * num_warps - 1);
    int cols = t.rank >= 2 ? t.shape[t.rank - 1] : (int)(numel < 16 ? numel : 16);
    int rows = t.rank >= 2 ? t.shape[t.rank - 2] : (int)((numel + cols - 1) / cols);
    int64_t plane = (int64_t)rows * cols;
    for (int64_t at = 0; at < numel; at += plane) {
        if (t.rank > 2) {
            buf_puts(out, "[");
            for (int d = 0, rem = (int)(at / plane); d < t.rank - 2; d++) {
                int64_t inner = 1;
                for (int e = d + 1; e < t.rank - 2; e++)
                    inner *= t.shape[e];
                buf_printf(out, "%lld, ", (long long)(rem / inner));
                rem %= (int)inner;
            }
            buf_puts(out, ":, :]\n");
        }
        if (t.rank == 1)
            buf_printf(out, "(element = row * %d + column)\n", cols);
        draw_section(out, o, at, rows, cols, regs, width);
    }
    if (tm->lane_dup || tm->warp_dup)
        buf_printf(out, "each element is held by %d threads (lane bits 0x%x, warp bits 0x%x do not matter); "
                        "the lowest thread is shown\n", o[0].copies, tm->lane_dup, tm->warp_dup);
    free(o);
}

int layout_distinct(int mod, int mul, int S) {
    if (mul <= 0 || mod <= 1 || mul >= S)
        return 1;
    return mod < S / mul ? mod : S / mul;
}
