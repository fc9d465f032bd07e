/* pipeline_rows.c: the pipeliner's row loops (pipeline.c pipelines the
 * loops whose loads feed dots, and calls row_loop for the others). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

#include "pipeline_int.h"

/* ---- row loops: a loop without a dot, pipelined behind an alias check ---- */

/* Triton pipelines the loads of a loop without a dot only where the loop
 * asks (tl.range(..., num_stages=N)); elsewhere each iteration waits for its
 * loads. A persistent row loop (Liger-Kernel's norm backwards: one program
 * an SM walking its rows, each a load of x and dy, two row reductions and a
 * store of dx) spends much of its time there, and its loads run ahead only
 * if no iteration's stores write what a later iteration's loads read. tl
 * pipelines such a loop as if it asked, when each tile load and every store
 * of its body has a footprint it can bound from the loop's bounds (a pointer
 * `splat(s) + offsets`, s affine in the induction variable, the offsets a
 * tile of known range; a scalar pointer affine in it), behind a check before
 * the loop that the stores' footprints over all iterations miss the loads':
 * `if disjoint { the loop, pipelined } else { the loop as written }`.
 * A loop that stores nothing needs no check, and its 2-D tiles need no
 * footprint: a sum over blocks of rows (tutorial 05's dwdb, 64 programs of
 * three iterations) waits for each block's loads in turn, two of its eight
 * 16-byte loads in flight as ptxas schedules them (12.9 us; 6.6 pipelined,
 * Triton's unpipelined 9.8). A 1-D tile without a footprint (a row's chunks,
 * `X + (off + arange)`, in a program a row: a norm over a row longer than its
 * block) stays as written: such kernels run many programs, whose occupancy
 * and L1 (re-reading the row) the rings would take, even from a loop that
 * never runs: tutorial 05's forward, whose loops peel.c versions, ran 0.85x
 * as fast with rings for the loops of its multi-block branch. */

enum { ROW_MAX_MEM = 8 };

typedef struct Foot {
    ValueId s;       /* the scalar pointer, affine in the induction variable */
    int64_t lo, hi;  /* bytes from s: [lo, hi) */
    int at;          /* the access's index in the body */
} Foot;

/* 0: v is loop-invariant, 1: affine in iv (add, sub, addptr, mul by an
 * invariant, widening casts), -1: neither (or not a scalar). */
static int iv_affine(const Pipe *P, const Block *B, ValueId v, ValueId iv) {
    if (v == iv)
        return 1;
    if (v >= P->n0 || P->home[v] != B)
        return 0;
    const Inst *d = P->f->values[v].def;
    if (!d || vtype(P, v).rank)
        return -1;
    int a = d->nargs > 0 ? iv_affine(P, B, d->args[0], iv) : 0, b = d->nargs > 1 ? iv_affine(P, B, d->args[1], iv) : 0;
    if (a < 0 || b < 0)
        return -1;
    switch (d->op) {
    case IR_CONST: return 0;
    case IR_ADD: case IR_SUB: case IR_ADDPTR: return a > b ? a : b;
    case IR_MUL: return a && b ? -1 : a > b ? a : b;
    case IR_CAST: {
        Type from = vtype(P, d->args[0]), to = vtype(P, v);
        bool widen = dt_is_int(from.dtype) && dt_is_int(to.dtype) && dt_bits(to.dtype) >= dt_bits(from.dtype);
        return widen || !a ? a : -1;
    }
    default: return -1;
    }
}

/* The range [*lo, *hi] of an integer tile built from aranges and constants. */
static bool tile_range(const Pipe *P, ValueId v, int64_t *lo, int64_t *hi) {
    const Inst *d = P->f->values[v].def;
    if (!d)
        return false;
    int64_t a0, a1, b0, b1;
    switch (d->op) {
    case IR_ARANGE: *lo = d->attr.start, *hi = d->attr.end - 1; return d->attr.end > d->attr.start;
    case IR_CONST: *lo = *hi = d->attr.i; return dt_is_int(vtype(P, v).dtype);
    case IR_SPLAT: case IR_BROADCAST: case IR_EXPAND_DIMS: case IR_CONVERT_LAYOUT: case IR_RESHAPE: case IR_TRANS:
        return tile_range(P, d->args[0], lo, hi);
    case IR_CAST:
        return dt_is_int(vtype(P, d->args[0]).dtype) && dt_is_int(vtype(P, v).dtype) &&
               dt_bits(vtype(P, v).dtype) >= dt_bits(vtype(P, d->args[0]).dtype) && tile_range(P, d->args[0], lo, hi);
    case IR_ADD: case IR_SUB: case IR_MUL:
        break;
    default: return false;
    }
    if (!tile_range(P, d->args[0], &a0, &a1) || !tile_range(P, d->args[1], &b0, &b1))
        return false;
    int64_t c[4];
    bool ov = false;
    if (d->op == IR_ADD)
        ov = __builtin_add_overflow(a0, b0, &c[0]) | __builtin_add_overflow(a1, b1, &c[1]), c[2] = c[0], c[3] = c[1];
    else if (d->op == IR_SUB)
        ov = __builtin_sub_overflow(a0, b1, &c[0]) | __builtin_sub_overflow(a1, b0, &c[1]), c[2] = c[0], c[3] = c[1];
    else
        ov = __builtin_mul_overflow(a0, b0, &c[0]) | __builtin_mul_overflow(a0, b1, &c[1]) |
             __builtin_mul_overflow(a1, b0, &c[2]) | __builtin_mul_overflow(a1, b1, &c[3]);
    *lo = *hi = c[0];
    for (int i = 1; i < 4; i++)
        *lo = c[i] < *lo ? c[i] : *lo, *hi = c[i] > *hi ? c[i] : *hi;
    return !ov && *lo > -((int64_t)1 << 40) && *hi < ((int64_t)1 << 40);
}

/* The footprint of the load or store at B->insts[at], if its pointer has one of the forms above. */
static bool footprint(const Pipe *P, const Block *B, int at, ValueId iv, Foot *ft) {
    const Inst *m = B->insts[at];
    ValueId p = m->args[0];
    Type pt = vtype(P, p);
    if (pt.dtype != DT_PTR)
        return false;
    int64_t es = (dt_bits((DType)pt.pointee) + 7) / 8, lo = 0, hi = 0;
    if (pt.rank) {
        const Inst *d = P->f->values[p].def, *sp = d && d->op == IR_ADDPTR ? P->f->values[d->args[0]].def : NULL;
        if (!sp || sp->op != IR_SPLAT || !tile_range(P, d->args[1], &lo, &hi))
            return false;
        p = sp->args[0];
    }
    *ft = (Foot){p, lo * es, (hi + 1) * es, at};
    return iv_affine(P, B, p, iv) >= 0;
}

/* Is loop (no num_stages, no dot) one to pipeline behind the check? Fills
 * the footprints of its tile loads (lf) and of its stores (sf). */
static bool row_loop_ok(Pipe *P, const Inst *loop, Foot *lf, int *nl, Foot *sf, int *ns) {
    const Block *B = loop->regions[0];
    const Inst *st = loop->nargs > 2 ? P->f->values[loop->args[2]].def : NULL;
    while (st && st->op == IR_CAST) /* range()'s step 1, widened to the bounds' type */
        st = P->f->values[st->args[0]].def;
    if (loop->attr.num_stages || !B || B->nargs < 1 || P->f->num_stages < 2 || !st || st->op != IR_CONST ||
        st->attr.i < 1) /* ub - 1 bounds the last iteration */
        return false;
    ValueId iv = B->args[0];
    bool unbounded = false, row_unbounded = false; /* a load without a footprint; a 1-D one */
    bool ragged; /* row loops copy whole vectors only */
    *nl = *ns = 0;
    for (int i = 0; i < B->ninsts; i++) {
        const Inst *in = B->insts[i];
        switch (in->op) {
        case IR_LOAD:
            if (in->attr.is_volatile)
                return false;
            if (!vtype(P, in->results[0]).rank)
                break; /* a scalar load stays where it is */
            /* rows worth a ring: 2 KB or more a program in 16-byte copies
             * (a small tile's wait for its copy costs what it hides) */
            if (*nl == ROW_MAX_MEM || copy_bytes(P, in, &ragged) != 16 || ragged ||
                ir_numel(vtype(P, in->results[0])) * dt_bits(vtype(P, in->results[0]).dtype) < 2048 * 8)
                return false;
            if (!footprint(P, B, i, iv, &lf[(*nl)++])) { /* needed against a store; see row_loop */
                unbounded = true;
                row_unbounded |= vtype(P, in->results[0]).rank < 2;
            }
            break;
        case IR_STORE:
            if (*ns == ROW_MAX_MEM || !footprint(P, B, i, iv, &sf[(*ns)++]))
                return false;
            break;
        case IR_DOT: case IR_ATOMIC_RMW: case IR_ATOMIC_CAS: case IR_INLINE_ASM: case IR_EXTERN: case IR_BARRIER:
        case IR_PRINT: case IR_ASSERT: case IR_DESC_TILE: case IR_FOR: case IR_IF: case IR_WHILE:
            return false;
        default:
            break;
        }
    }
    return *nl > 0 && !row_unbounded && !(*ns && unbounded);
}

/* v (a scalar of the body, affine in iv) at iv = at: its slice cloned at c. */
static ValueId eval_at(Pipe *P, Cursor *c, const Block *B, ValueId v, ValueId iv, ValueId at, ValueId *map) {
    if (v == iv)
        return at;
    if (v >= P->n0 || P->home[v] != B)
        return v;
    if (map[v])
        return map[v];
    const Inst *d = P->f->values[v].def;
    for (int a = 0; a < d->nargs; a++)
        eval_at(P, c, B, d->args[a], iv, at, map);
    map[iv] = at;
    Inst *cl = ir_clone_inst(P->f, NULL, d, map, P->n0);
    map[iv] = 0;
    ir_insert_insts(P->f, c->b, c->at++, &cl, 1);
    return map[v] = cl->results[0];
}

/* A footprint's bounds as i64 values at c: [lo, hi) over all iterations
 * (its pointer at the first and at ub - 1, with the tile's bytes), its
 * pointer at the first (s0) and its step from one iteration to the next
 * (step). maps[k]: eval_at's clones at at[k], shared by the footprints
 * (their pointers' slices overlap: the row index times the stride). */
typedef struct FootVals {
    ValueId lo, hi, s0, step;
} FootVals;

static FootVals foot_vals(Pipe *P, Cursor *c, const Block *B, const Foot *ft, ValueId iv, const ValueId at[3],
                          ValueId *const maps[3], Span sp) {
    Type i64 = ir_scalar(DT_I64);
    ValueId e[3];
    for (int k = 0; k < 3; k++) {
        ValueId s = eval_at(P, c, B, ft->s, iv, at[k], maps[k]);
        e[k] = put1(P, c, IR_CAST, &s, 1, i64, 0, sp);
    }
    ValueId mn = put1(P, c, IR_MIN, e, 2, i64, 0, sp), mx = put1(P, c, IR_MAX, e, 2, i64, 0, sp);
    ValueId l = put_const(P, c, i64, ft->lo, sp), h = put_const(P, c, i64, ft->hi, sp);
    FootVals fv = {.s0 = e[0]}; /* one statement each: the order the instructions go in */
    fv.lo = put1(P, c, IR_ADD, (ValueId[]){mn, l}, 2, i64, 0, sp);
    fv.hi = put1(P, c, IR_ADD, (ValueId[]){mx, h}, 2, i64, 0, sp);
    fv.step = put1(P, c, IR_SUB, (ValueId[]){e[2], e[0]}, 2, i64, 0, sp);
    return fv;
}

/* a <= b as an i1 at c */
static ValueId at_most(Pipe *P, Cursor *c, ValueId a, ValueId b, Span sp) { return put_cmp(P, c, CMP_LE, a, b, sp); }

/* Can store sf and load lf of a pipelined row loop run out of order? A load
 * runs up to D iterations ahead of the stores before it, so the stores of
 * iteration j must miss the loads of iterations j + 1 .. j + D (and of j
 * itself where the store comes first in the body): true when their
 * footprints over all iterations are apart, or, both pointers moving by one
 * step an iteration (a backward writing dx over dy, row by row), when the
 * load's footprint d iterations on misses the store's for each such d. */
static ValueId pair_apart(Pipe *P, Cursor *c, const Foot *sf, const FootVals *sv, const Foot *lf, const FootVals *lv,
                          int D, Span sp) {
    Type i64 = ir_scalar(DT_I64), i1 = ir_scalar(DT_I1);
    ValueId before = at_most(P, c, sv->hi, lv->lo, sp), after = at_most(P, c, lv->hi, sv->lo, sp);
    ValueId far = put1(P, c, IR_OR, (ValueId[]){before, after}, 2, i1, 0, sp);
    ValueId near = put_cmp(P, c, CMP_EQ, sv->step, lv->step, sp);
    ValueId gap = put1(P, c, IR_SUB, (ValueId[]){lv->s0, sv->s0}, 2, i64, 0, sp); /* load row j against store row j */
    ValueId zero = put_const(P, c, i64, 0, sp);
    for (int d = sf->at < lf->at ? 0 : 1; d <= D; d++) {
        if (d)
            gap = put1(P, c, IR_ADD, (ValueId[]){gap, lv->step}, 2, i64, 0, sp);
        /* the load's [gap + lf->lo, gap + lf->hi) against the store's [sf->lo, sf->hi) */
        ValueId a = put1(P, c, IR_ADD, (ValueId[]){gap, put_const(P, c, i64, lf->lo - sf->hi, sp)}, 2, i64, 0, sp);
        ValueId b = put1(P, c, IR_ADD, (ValueId[]){gap, put_const(P, c, i64, lf->hi - sf->lo, sp)}, 2, i64, 0, sp);
        ValueId above = at_most(P, c, zero, a, sp), under = at_most(P, c, b, zero, sp);
        ValueId ok = put1(P, c, IR_OR, (ValueId[]){above, under}, 2, i1, 0, sp);
        near = put1(P, c, IR_AND, (ValueId[]){near, ok}, 2, i1, 0, sp);
    }
    return put1(P, c, IR_OR, (ValueId[]){far, near}, 2, i1, 0, sp);
}

/* The check before loop (at c): the loop runs no iteration, or no store of
 * an iteration meets a load the pipelined loop issues before it. */
static ValueId row_guard(Pipe *P, Cursor *c, const Inst *loop, const Foot *lf, int nl, const Foot *sf, int ns) {
    const Block *B = loop->regions[0];
    ValueId iv = B->args[0];
    Span sp = loop->span;
    Type it = vtype(P, iv), i1 = ir_scalar(DT_I1);
    ValueId one = put_const(P, c, it, 1, sp);
    /* the first iteration, the last (bounded by ub - 1), the second */
    ValueId at[3] = {loop->args[0]};
    at[1] = put1(P, c, IR_SUB, (ValueId[]){loop->args[1], one}, 2, it, 0, sp);
    at[2] = put1(P, c, IR_ADD, (ValueId[]){loop->args[0], loop->args[2]}, 2, it, 0, sp);
    ValueId none = put_cmp(P, c, CMP_GE, loop->args[0], loop->args[1], sp);
    ValueId *maps[3] = {0};
    for (int k = 0; k < 3; k++)
        maps[k] = calloc((size_t)P->n0, sizeof(ValueId));
    if (!maps[0] || !maps[1] || !maps[2]) {
        free(maps[0]), free(maps[1]), free(maps[2]);
        return none; /* out of memory: pipelined only where the loop runs nothing */
    }
    ValueId apart = put_const(P, c, i1, 1, sp);
    FootVals sv[ROW_MAX_MEM];
    for (int j = 0; j < ns; j++)
        sv[j] = foot_vals(P, c, B, &sf[j], iv, at, maps, sp);
    for (int i = 0; i < nl; i++) {
        FootVals lv = foot_vals(P, c, B, &lf[i], iv, at, maps, sp);
        for (int j = 0; j < ns; j++) {
            ValueId ok = pair_apart(P, c, &sf[j], &sv[j], &lf[i], &lv, P->f->num_stages - 1, sp);
            apart = put1(P, c, IR_AND, (ValueId[]){apart, ok}, 2, i1, 0, sp);
        }
    }
    free(maps[0]), free(maps[1]), free(maps[2]);
    return put1(P, c, IR_OR, (ValueId[]){none, apart}, 2, i1, 0, sp);
}

/* Pipeline loop (parent->insts[*pos]) behind row_guard, the loop as written
 * in the else-branch; *pos moves to the if. */
void row_loop(Pipe *P, Block *parent, int *pos) {
    Function *f = P->f;
    Inst *loop = parent->insts[*pos];
    Foot lf[ROW_MAX_MEM], sf[ROW_MAX_MEM];
    int nl, ns, no = loop->nresults;
    if (!row_loop_ok(P, loop, lf, &nl, sf, &ns))
        return;
    if (ns == 0) { /* nothing stored: no check */
        int before = parent->ninsts;
        loop->attr.num_stages = f->num_stages;
        pipeline_loop(P, parent, loop);
        if (parent->ninsts == before)
            loop->attr.num_stages = 0;
        *pos += parent->ninsts - before; /* past the prologue and drain put around it */
        return;
    }
    ValueId *map = calloc((size_t)f->nvalues, sizeof *map);
    Type *rts = malloc(sizeof *rts * (size_t)(no + 1));
    ValueId *res = malloc(sizeof *res * (size_t)(2 * no + 1)), *ores = res + no; /* the loop's and orig's results */
    if (!map || !rts || !res) {
        free(map), free(rts), free(res);
        return;
    }
    Inst *orig = ir_clone_inst(f, NULL, loop, map, f->nvalues); /* before the pipeliner rewrites it */
    free(map);
    for (int j = 0; j < no; j++)
        res[j] = loop->results[j], ores[j] = orig->results[j];
    Cursor c = {parent, *pos};
    ValueId g = row_guard(P, &c, loop, lf, nl, sf, ns); /* reads the body's address slices as written */
    int first = c.at, before = parent->ninsts;
    loop->attr.num_stages = f->num_stages;
    pipeline_loop(P, parent, loop);
    int last = first + parent->ninsts - before; /* the rings, the prologue, the loop and its drain */
    if (last == first) { /* nothing pipelined: the loop as written, no check */
        loop->attr.num_stages = 0;
        while (c.at > *pos)
            remove_at(parent, --c.at);
        free(rts), free(res);
        return;
    }
    /* the pipeliner drops the carried values nothing reads after the loop
     * (ir_dce_loop): the if yields the results it kept */
    int nk = 0;
    for (int j = 0; j < no; j++) {
        bool kept = false;
        for (int q = 0; q < loop->nresults && !kept; q++)
            kept = loop->results[q] == res[j];
        if (kept)
            rts[nk] = vtype(P, res[j]), res[nk] = res[j], ores[nk++] = ores[j];
    }
    Block *tb = ir_block_new(f), *eb = ir_block_new(f);
    ir_insert_insts(f, tb, 0, parent->insts + first, last - first + 1);
    memmove(parent->insts + first, parent->insts + last + 1, sizeof *parent->insts * (size_t)(parent->ninsts - last - 1));
    parent->ninsts -= last - first + 1;
    ir_insert_insts(f, eb, 0, &orig, 1);
    Inst *v = ir_inst_at(f, parent, &c.at, IR_IF, &g, 1, rts, nk, loop->span);
    ir_set_regions(v, tb, eb);
    for (int j = 0; j < nk; j++) {
        f->values[v->results[j]].name = f->values[res[j]].name;
        f->values[v->results[j]].layout = f->values[res[j]].layout;
        ir_replace_uses(parent, res[j], v->results[j]);
    }
    ir_inst_new(f, tb, IR_YIELD, res, nk, NULL, 0, loop->span);
    ir_inst_new(f, eb, IR_YIELD, ores, nk, NULL, 0, loop->span);
    free(rts), free(res);
    *pos = c.at - 1;
}
