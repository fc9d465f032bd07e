/* flatten.c: tl.range(..., flatten=True), one loop over a loop nest (Triton's
 * loop flattening, which its persistent matmul relies on).
 *
 * Requires: verified IR before the layout pass (no layouts yet; they come
 *           after, for the new ops too).
 * Ensures:  each `for {flatten = true}` F whose body is
 *
 *               P (pure ops without regions: the tile's indices, zeros)
 *               inner `for` I (bounds and step loop-invariant, step a
 *                              positive constant)
 *               Q (the epilogue: anything)
 *               yield
 *
 *           and whose own step is a positive constant becomes
 *
 *               Ti = trip count of I, To = trip count of F
 *               if Ti > 0:
 *                 S (P's scalar ops that follow the tile) for tile 0
 *                 for it in [0, To * Ti) carrying F's values, I's values,
 *                                         ki (I's index), o (F's) and the
 *                                         results of S others read:
 *                   the rest of P for F's iv lb + o * step
 *                   each value I carries: ki == 0 ? its init (from P) : carried
 *                   I's body for I's iv lb' + ki * step'
 *                   if ki == Ti - 1: Q, yield F's next values   else: F's values
 *                   ki, o <- the next pair
 *                   if ki wrapped: S for the next tile   else: S's carried
 *               else:
 *                 F with I removed (I's results are its inits: no iteration)
 *
 *           so the pipeliner sees one loop and prefetches the next tile's
 *           first K steps while this tile's epilogue runs, with no prologue
 *           and drain per tile. An accumulator chosen by `ki == 0 ? zeros :
 *           acc` costs nothing on wgmma, whose scale-d flag is that
 *           condition (llvm_dot.c). S runs once per tile (its divisions
 *           cost 20% when every K step ran them), in a pure `if` the
 *           pipeliner's address slice clones to run ahead. A loop that does
 *           not have this shape, or whose rings at the stages asked for and
 *           epilogue would not fit shared memory together (in one loop they
 *           cannot share bytes; a stage lost cost more than flattening
 *           gained), is left as written (the flag is a hint, as in Triton).
 *           The interpreter never sees this pass: it runs the loops as
 *           written.
 *
 * Algorithm: find the shape -> trip counts before F -> build the flat loop
 * by cloning P, I's body and Q with a value map -> the versioning if, F
 * (minus I) in its else branch. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

typedef struct Flat {
    Function *f;
    int n0;        /* values before this loop's rewrite: the map covers these */
    ValueId *map;  /* original -> clone (0: itself) */
    Span sp;
} Flat;

static ValueId mapped(const Flat *F, ValueId v) { return v < F->n0 && F->map[v] ? F->map[v] : v; }
static Type vt(const Flat *F, ValueId v) { return F->f->values[v].type; }

static ValueId emit(Flat *F, Block *b, OpCode op, Type t, const ValueId *args, int n) {
    return ir_emit(F->f, b, op, t, args, n, F->sp);
}

static ValueId cnst(Flat *F, Block *b, Type t, int64_t v) { return ir_emit_const(F->f, b, t, v, F->sp); }

static ValueId cmp(Flat *F, Block *b, int pred, ValueId x, ValueId y) {
    return ir_emit_cmp(F->f, b, pred, x, y, F->sp);
}

/* Append a copy of `in` (its regions too) to b, operands through the map;
 * its results and block arguments join the map. */
static void clone_into(Flat *F, Block *b, const Inst *in) { ir_clone_inst(F->f, b, in, F->map, F->n0); }

/* Can the flat loop have a value of type t before its first iteration sets
 * it (a block or scalar of numbers: zeros)? */
static bool zero_ok(Type t) { return t.dtype != DT_PTR; }

/* Trip count of `for lb, ub, st` (st > 0), in t, before the loop: cdiv(ub -
 * lb, st), 0 when ub <= lb. */
static ValueId trips(Flat *F, Block *b, ValueId lb, ValueId ub, ValueId st, Type t) {
    ValueId d = emit(F, b, IR_SUB, t, (ValueId[]){ub, lb}, 2);
    ValueId one = cnst(F, b, t, 1);
    ValueId n = emit(F, b, IR_ADD, t, (ValueId[]){d, emit(F, b, IR_SUB, t, (ValueId[]){st, one}, 2)}, 2);
    n = emit(F, b, IR_DIV, t, (ValueId[]){n, st}, 2);
    ValueId pos = cmp(F, b, CMP_GT, d, cnst(F, b, t, 0));
    return emit(F, b, IR_SELECT, t, (ValueId[]){pos, n, cnst(F, b, t, 0)}, 3);
}

static ValueId widen(Flat *F, Block *b, ValueId v, Type t) {
    return vt(F, v).dtype == t.dtype ? v : emit(F, b, IR_CAST, t, &v, 1);
}

static int64_t const_of(const Function *f, ValueId v, bool *ok) {
    const Inst *d = f->values[v].def;
    *ok = d && d->op == IR_CONST && !f->values[v].type.rank && dt_is_int((DType)f->values[v].type.dtype);
    return *ok ? d->attr.i : 0;
}

/* Is v the same in every iteration of the outer loop: defined outside it,
 * or computed in P (the first `at` ops of Bo) from such values alone? */
static bool invariant(const Function *f, const Block *Bo, int at, const uint8_t *inside, ValueId v) {
    if (!inside[v])
        return true;
    const Inst *d = f->values[v].def;
    int i = 0;
    while (i < at && Bo->insts[i] != d)
        i++;
    if (!d || i == at)
        return false; /* a block argument, or not P's */
    for (int a = 0; a < d->nargs; a++)
        if (!invariant(f, Bo, at, inside, d->args[a]))
            return false;
    return true;
}

/* Clone v's computation (invariant) into b, before the loop. */
static ValueId hoist(Flat *F, Block *b, const uint8_t *inside, ValueId v) {
    if (!inside[v] || (F->map[v] && F->map[v] != v))
        return mapped(F, v);
    const Inst *d = F->f->values[v].def;
    for (int a = 0; a < d->nargs; a++)
        hoist(F, b, inside, d->args[a]);
    clone_into(F, b, d);
    return mapped(F, v);
}

static int64_t block_bytes(Type t) {
    return t.rank ? ir_numel(t) * (t.dtype == DT_I1 ? 1 : dt_bits((DType)t.dtype) / 8) : 0;
}

/* The largest block the n ops (their regions too) store: an epilogue's
 * staging through shared memory (the convert before a coalesced store) is
 * about that. */
static int64_t stored_bytes(const Function *f, Inst *const *ins, int n) {
    int64_t m = 0;
    for (int i = 0; i < n; i++) {
        const Inst *x = ins[i];
        int64_t s = x->op == IR_STORE && x->nargs > 1 ? block_bytes(f->values[x->args[1]].type) : 0;
        for (int k = 0; k < x->nregions; k++) {
            int64_t r = stored_bytes(f, x->regions[k]->insts, x->regions[k]->ninsts);
            s = r > s ? r : s;
        }
        m = s > m ? s : m;
    }
    return m;
}

/* Clone S (the ops of P marked in inS) into b, with the invariant values of
 * P they read (constants) where the map has none yet. */
static void clone_s(Flat *F, Block *b, const Block *Bo, int at, const uint8_t *inS, const uint8_t *inside) {
    for (int i = 0; i < at; i++) {
        const Inst *x = Bo->insts[i];
        if (!inS[i])
            continue;
        for (int a = 0; a < x->nargs; a++) {
            const Inst *d = F->f->values[x->args[a]].def;
            int k = 0;
            while (k < at && Bo->insts[k] != d)
                k++;
            if (k < at && !inS[k])
                hoist(F, b, inside, x->args[a]);
        }
        clone_into(F, b, x);
    }
}

/* One loop's flattening: F (L, body Bo) around I (body Bi, Bo's op at),
 * and what the steps below share. */
typedef struct Nest {
    Flat F;
    Inst *L, *I;
    Block *Bo, *Bi;
    int at, no, ni;      /* I's index in Bo; F's and I's carried values */
    uint8_t *inside;     /* per value: defined in Bo */
    uint8_t *inS;        /* per op of P: in S */
    ValueId *front;      /* S's results something else reads (nf) */
    int nf;
    Type to, ti;         /* F's and I's index types */
    ValueId ib[3], Ti, ti_last, any;
    Type *rts;           /* the flat loop's results: F's, I's, ki, o, the frontier */
    ValueId *oc, *ic, *fc, ki, o; /* the flat body's arguments */
} Nest;

/* F's shape (above), I's stages' rings and the epilogue fitting together:
 * I's index in Bo, else -1. In one loop the epilogue's staging cannot reuse
 * the rings' bytes, as it does after a K loop: flatten only when both fit
 * at the stages asked for, so flattening never costs pipeline depth
 * (measured on an H100: a descriptor kernel whose rings lost a stage to its
 * epilogue ran 20% slower flattened). A wgmma ring's extra slot is counted
 * where a producer warpgroup may take the loop (its consumers hold a slot
 * one iteration longer); otherwise the copies come after the dot and S
 * slots do (pipeline.c, plan_late). */
static int nest_shape(Function *f, Inst *L, int max_shared) {
    Block *Bo = L->regions[0];
    if (!Bo || !Bo->ninsts || Bo->insts[Bo->ninsts - 1]->op != IR_YIELD)
        return -1;
    int at = -1;
    for (int i = 0; i < Bo->ninsts; i++)
        if (Bo->insts[i]->op == IR_FOR) {
            if (at >= 0)
                return -1; /* two inner loops */
            at = i;
        }
    if (at < 0)
        return -1;
    for (int i = 0; i < at; i++) { /* P is recomputed every iteration: pure and flat */
        const Inst *x = Bo->insts[i];
        if (x->nregions || !(ir_ops[x->op].flags & OPF_PURE))
            return -1;
    }
    Inst *I = Bo->insts[at];
    Block *Bi = I->regions[0];
    if (!Bi || !Bi->ninsts || Bi->insts[Bi->ninsts - 1]->op != IR_YIELD)
        return -1;
    int S = I->attr.num_stages ? I->attr.num_stages : L->attr.num_stages ? L->attr.num_stages : f->num_stages;
    int64_t ring = 0;
    for (int i = 0; i < Bi->ninsts; i++)
        if (Bi->insts[i]->op == IR_LOAD)
            ring += block_bytes(f->values[Bi->insts[i]->results[0]].type);
    int extra = ir_warp_spec_on(f, I->attr.warp_spec ? I->attr.warp_spec : L->attr.warp_spec); /* the flat loop's */
    if (ring * (S + extra) + stored_bytes(f, Bo->insts + at + 1, Bo->ninsts - at - 1) > max_shared)
        return -1;
    return at;
}

/* The steps positive constants, I's bounds the same for every tile
 * (computed before F or in P from such values: `range(tl.cdiv(K, BK))` in
 * the body), and the flat loop able to start with zeros where I's init is
 * P's. */
static bool nest_ok(Nest *N) {
    Function *f = N->F.f;
    bool ok_o, ok_i;
    int64_t st_o = const_of(f, N->L->args[2], &ok_o), st_i = const_of(f, N->I->args[2], &ok_i);
    bool ok = ok_o && ok_i && st_o > 0 && st_i > 0;
    for (int k = 0; k < 3 && ok; k++)
        ok = invariant(f, N->Bo, N->at, N->inside, N->I->args[k]);
    for (int j = 0; j < N->ni && ok; j++)
        ok = !N->inside[N->I->args[3 + j]] || zero_ok(f->values[N->I->results[j]].type);
    return ok;
}

/* S: P's scalar ops that follow the tile (its index, F's carried values),
 * computed once per tile instead of every step; the frontier: those of
 * their results something else reads, carried by the flat loop. False when
 * out of memory. */
static bool plan_s(Nest *N) {
    Function *f = N->F.f;
    Block *Bo = N->Bo;
    int n0 = N->F.n0, at = N->at;
    uint8_t *dep = calloc((size_t)n0, 1);
    int *uses = calloc((size_t)n0, sizeof *uses), *suses = calloc((size_t)n0, sizeof *suses);
    N->inS = calloc((size_t)at + 1, 1);
    N->front = malloc(sizeof *N->front * (size_t)n0);
    bool ok = dep && uses && suses && N->inS && N->front;
    if (ok) {
        for (int a = 0; a < Bo->nargs; a++)
            dep[Bo->args[a]] = 2; /* 2: a value S may read */
        for (int i = 0; i < at; i++) {
            const Inst *x = Bo->insts[i];
            bool d = false, s = x->nresults == 1 && !vt(&N->F, x->results[0]).rank;
            for (int a = 0; a < x->nargs; a++) {
                d |= dep[x->args[a]] != 0;
                s &= dep[x->args[a]] != 1; /* not from a tile-dependent block */
            }
            N->inS[i] = d && s;
            for (int r = 0; r < x->nresults; r++)
                dep[x->results[r]] = d ? (N->inS[i] ? 2 : 1) : 0;
        }
        ir_count_uses(f->body, uses);
        for (int i = 0; i < at; i++)
            for (int a = 0; N->inS[i] && a < Bo->insts[i]->nargs; a++)
                suses[Bo->insts[i]->args[a]]++;
        for (int i = 0; i < at; i++)
            if (N->inS[i] && uses[Bo->insts[i]->results[0]] > suses[Bo->insts[i]->results[0]])
                N->front[N->nf++] = Bo->insts[i]->results[0];
    }
    free(uses), free(suses), free(dep);
    return ok;
}

/* Before F (in pre): the trip counts, I's bounds cloned where P has them.
 * In tb (the versioning if's then branch): S for tile 0 and the flat loop,
 * whose operands are 0, total, 1, F's inits, I's (or zeros), ki, o, the
 * frontier of the first tile. */
static Inst *flat_loop(Nest *N, Block *pre, Block *tb) {
    Flat *F = &N->F;
    Function *f = F->f;
    Inst *L = N->L, *I = N->I;
    int no = N->no, ni = N->ni, nf = N->nf;
    Type to = N->to, ti = N->ti, i64 = ir_scalar(DT_I64);
    for (int k = 0; k < 3; k++)
        N->ib[k] = hoist(F, pre, N->inside, I->args[k]);
    ValueId To = trips(F, pre, L->args[0], L->args[1], L->args[2], to);
    N->Ti = trips(F, pre, N->ib[0], N->ib[1], N->ib[2], ti);
    ValueId total = emit(F, pre, IR_MUL, i64, (ValueId[]){widen(F, pre, To, i64), widen(F, pre, N->Ti, i64)}, 2);
    N->ti_last = emit(F, pre, IR_SUB, ti, (ValueId[]){N->Ti, cnst(F, pre, ti, 1)}, 2);
    N->any = cmp(F, pre, CMP_GT, N->Ti, cnst(F, pre, ti, 0));
    int na = 3 + no + ni + 2 + nf;
    ValueId *inits = malloc(sizeof *inits * (size_t)na);
    Type *rts = N->rts;
    inits[0] = cnst(F, tb, i64, 0), inits[1] = total, inits[2] = cnst(F, tb, i64, 1);
    for (int j = 0; j < no; j++)
        inits[3 + j] = L->args[3 + j], rts[j] = vt(F, L->results[j]);
    for (int j = 0; j < ni; j++) {
        ValueId init = I->args[3 + j];
        Type t = vt(F, I->results[j]);
        inits[3 + no + j] = N->inside[init] ? cnst(F, tb, t, 0) : init; /* P's (or F's arguments) */
        rts[no + j] = t;
    }
    inits[3 + no + ni] = cnst(F, tb, ti, 0), inits[3 + no + ni + 1] = cnst(F, tb, to, 0);
    rts[no + ni] = ti, rts[no + ni + 1] = to;
    F->map[N->Bo->args[0]] = L->args[0];
    for (int j = 0; j < no; j++)
        F->map[N->Bo->args[1 + j]] = L->args[3 + j];
    clone_s(F, tb, N->Bo, N->at, N->inS, N->inside);
    for (int k = 0; k < nf; k++)
        inits[3 + no + ni + 2 + k] = mapped(F, N->front[k]), rts[no + ni + 2 + k] = vt(F, N->front[k]);
    Inst *flat = ir_inst_new(f, tb, IR_FOR, inits, na, rts, no + ni + 2 + nf, L->span);
    flat->attr.num_stages = I->attr.num_stages ? I->attr.num_stages : L->attr.num_stages;
    flat->attr.warp_spec = I->attr.warp_spec ? I->attr.warp_spec : L->attr.warp_spec;
    free(inits);
    return flat;
}

/* The flat body's arguments (the index, F's values, I's, ki, o, the
 * frontier), the rest of P for F's iv lb + o * step, each value I carries
 * (ki == 0 ? its init : carried), and I's body for I's iv lb' + ki * step'
 * (next[] gets I's yielded values). */
static void flat_body_start(Nest *N, Block *B, ValueId *next) {
    Flat *F = &N->F;
    Function *f = F->f;
    Inst *L = N->L, *I = N->I;
    Block *Bo = N->Bo, *Bi = N->Bi;
    int no = N->no, ni = N->ni, nf = N->nf;
    Type *rts = N->rts, to = N->to, ti = N->ti;
    ir_block_arg(f, B, ir_scalar(DT_I64));
    for (int j = 0; j < no; j++) {
        N->oc[j] = ir_block_arg(f, B, rts[j]);
        f->values[N->oc[j]].name = f->values[Bo->args[1 + j]].name;
        F->map[Bo->args[1 + j]] = N->oc[j];
    }
    for (int j = 0; j < ni; j++) {
        N->ic[j] = ir_block_arg(f, B, rts[no + j]);
        f->values[N->ic[j]].name = f->values[Bi->args[1 + j]].name;
    }
    N->ki = ir_block_arg(f, B, ti), N->o = ir_block_arg(f, B, to);
    for (int k = 0; k < nf; k++) {
        N->fc[k] = ir_block_arg(f, B, rts[no + ni + 2 + k]);
        f->values[N->fc[k]].name = f->values[N->front[k]].name;
    }
    ValueId ov = emit(F, B, IR_ADD, to, (ValueId[]){L->args[0], emit(F, B, IR_MUL, to, (ValueId[]){N->o, L->args[2]}, 2)}, 2);
    f->values[ov].name = f->values[Bo->args[0]].name;
    F->map[Bo->args[0]] = ov;
    for (int k = 0; k < nf; k++)
        F->map[N->front[k]] = N->fc[k];
    for (int i = 0; i < N->at; i++)
        if (!N->inS[i])
            clone_into(F, B, Bo->insts[i]);
    ValueId first = cmp(F, B, CMP_EQ, N->ki, cnst(F, B, ti, 0));
    for (int j = 0; j < ni; j++) {
        Type t = rts[no + j];
        ValueId c = t.rank ? emit(F, B, IR_SPLAT, ir_with_dtype(t, DT_I1), &first, 1) : first;
        ValueId cur = emit(F, B, IR_SELECT, t, (ValueId[]){c, mapped(F, I->args[3 + j]), N->ic[j]}, 3);
        f->values[cur].name = f->values[Bi->args[1 + j]].name;
        F->map[Bi->args[1 + j]] = cur;
    }
    ValueId kv = emit(F, B, IR_ADD, ti, (ValueId[]){N->ib[0], emit(F, B, IR_MUL, ti, (ValueId[]){N->ki, N->ib[2]}, 2)}, 2);
    f->values[kv].name = f->values[Bi->args[0]].name;
    F->map[Bi->args[0]] = kv;
    for (int i = 0; i + 1 < Bi->ninsts; i++)
        clone_into(F, B, Bi->insts[i]);
    const Inst *yi = Bi->insts[Bi->ninsts - 1];
    for (int j = 0; j < ni; j++) {
        next[no + j] = mapped(F, yi->args[j]);
        F->map[I->results[j]] = next[no + j];
    }
}

/* The flat body's end: the epilogue once per tile (if ki == Ti - 1: Q,
 * yield F's next values; else F's values), the next (ki, o), and the next
 * tile's frontier when the tile changes: S for o + 1 and F's values the
 * epilogue just yielded (a pure if the pipeliner can run ahead,
 * pipeline.c). */
static void flat_body_end(Nest *N, Block *B, ValueId *next) {
    Flat *F = &N->F;
    Function *f = F->f;
    Inst *L = N->L;
    Block *Bo = N->Bo;
    int no = N->no, ni = N->ni, nf = N->nf;
    Type *rts = N->rts, to = N->to, ti = N->ti;
    ValueId last = cmp(F, B, CMP_EQ, N->ki, N->ti_last);
    Block *qt = ir_block_new(f), *qe = ir_block_new(f);
    for (int i = N->at + 1; i + 1 < Bo->ninsts; i++)
        clone_into(F, qt, Bo->insts[i]);
    const Inst *yo = Bo->insts[Bo->ninsts - 1];
    ValueId *ys = malloc(sizeof *ys * (size_t)(no + 1));
    for (int j = 0; j < no; j++)
        ys[j] = mapped(F, yo->args[j]);
    ir_inst_new(f, qt, IR_YIELD, ys, no, NULL, 0, F->sp);
    ir_inst_new(f, qe, IR_YIELD, N->oc, no, NULL, 0, F->sp);
    free(ys);
    Inst *q = ir_inst_new(f, B, IR_IF, &last, 1, rts, no, F->sp);
    ir_set_regions(q, qt, qe);
    for (int j = 0; j < no; j++) {
        next[j] = q->results[j];
        f->values[next[j]].name = f->values[L->results[j]].name;
    }
    ValueId k1 = emit(F, B, IR_ADD, ti, (ValueId[]){N->ki, cnst(F, B, ti, 1)}, 2);
    ValueId wrap = cmp(F, B, CMP_EQ, k1, N->Ti);
    next[no + ni] = emit(F, B, IR_SELECT, ti, (ValueId[]){wrap, cnst(F, B, ti, 0), k1}, 3);
    ValueId step = emit(F, B, IR_SELECT, to, (ValueId[]){wrap, cnst(F, B, to, 1), cnst(F, B, to, 0)}, 3);
    next[no + ni + 1] = emit(F, B, IR_ADD, to, (ValueId[]){N->o, step}, 2);
    if (!nf)
        return;
    Block *st = ir_block_new(f), *se = ir_block_new(f);
    ValueId on = next[no + ni + 1];
    F->map[Bo->args[0]] = emit(F, st, IR_ADD, to, (ValueId[]){L->args[0], emit(F, st, IR_MUL, to, (ValueId[]){on, L->args[2]}, 2)}, 2);
    for (int j = 0; j < no; j++)
        F->map[Bo->args[1 + j]] = next[j];
    clone_s(F, st, Bo, N->at, N->inS, N->inside);
    ValueId *fy = malloc(sizeof *fy * (size_t)nf);
    for (int k = 0; k < nf; k++)
        fy[k] = mapped(F, N->front[k]);
    ir_inst_new(f, st, IR_YIELD, fy, nf, NULL, 0, F->sp);
    ir_inst_new(f, se, IR_YIELD, N->fc, nf, NULL, 0, F->sp);
    free(fy);
    Inst *u = ir_inst_new(f, B, IR_IF, &wrap, 1, rts + no + ni + 2, nf, F->sp);
    ir_set_regions(u, st, se);
    for (int k = 0; k < nf; k++) {
        next[no + ni + 2 + k] = u->results[k];
        f->values[u->results[k]].name = f->values[N->front[k]].name;
    }
}

/* The versioning if replaces F (parent->insts[pos]): the flat loop when I
 * runs at all, else F with I gone (I's results are its inits). */
static void replace_nest(Nest *N, Block *parent, int pos, Block *pre, Block *tb, Block *eb) {
    Flat *F = &N->F;
    Function *f = F->f;
    Inst *L = N->L, *I = N->I;
    Inst *v = ir_inst_new(f, pre, IR_IF, &N->any, 1, N->rts, N->no, F->sp);
    ir_set_regions(v, tb, eb);
    for (int j = 0; j < N->no; j++) {
        f->values[v->results[j]].name = f->values[L->results[j]].name;
        ir_replace_uses(f->body, L->results[j], v->results[j]);
    }
    for (int j = 0; j < N->ni; j++)
        ir_replace_uses(N->Bo, I->results[j], I->args[3 + j]);
    ir_remove_inst(N->Bo, I);
    ir_remove_inst(parent, L);
    L->attr.flatten = false; /* nothing left to flatten in it */
    ir_insert_insts(f, eb, 0, &L, 1);
    ir_inst_new(f, eb, IR_YIELD, L->results, N->no, NULL, 0, F->sp);
    ir_insert_insts(f, parent, pos, pre->insts, pre->ninsts); /* the trip counts and the if, where F was */
}

static void nest_free(Nest *N) {
    free(N->inside), free(N->inS), free(N->front), free(N->rts), free(N->oc), free(N->ic), free(N->fc);
    free(N->F.map);
}

/* Flatten F (parent->insts[pos]) if it has the shape above; true if done. */
static bool flatten_loop(Function *f, Block *parent, int pos, int max_shared) {
    Inst *L = parent->insts[pos];
    int at = nest_shape(f, L, max_shared);
    if (at < 0)
        return false;
    Nest N = {.F = {.f = f, .n0 = f->nvalues, .sp = L->span}, .L = L, .Bo = L->regions[0], .at = at};
    N.I = N.Bo->insts[at], N.Bi = N.I->regions[0];
    N.no = L->nresults, N.ni = N.I->nresults;
    N.inside = calloc((size_t)f->nvalues, 1);
    if (!N.inside)
        return false;
    for (int a = 0; a < N.Bo->nargs; a++) /* the body's arguments, and all it defines */
        N.inside[N.Bo->args[a]] = 1;
    ir_mark_defs(N.Bo, 0, N.inside);
    N.F.map = nest_ok(&N) ? calloc((size_t)N.F.n0, sizeof *N.F.map) : NULL;
    if (!N.F.map || !plan_s(&N)) {
        nest_free(&N);
        return false;
    }
    N.to = vt(&N.F, L->args[0]), N.ti = vt(&N.F, N.I->args[0]);
    int nres = N.no + N.ni + 2 + N.nf;
    N.rts = malloc(sizeof *N.rts * (size_t)nres);
    N.oc = malloc(sizeof *N.oc * (size_t)(N.no + 1)), N.ic = malloc(sizeof *N.ic * (size_t)(N.ni + 1));
    N.fc = malloc(sizeof *N.fc * (size_t)(N.nf + 1));
    ValueId *next = malloc(sizeof *next * (size_t)(nres + 1));
    Block *pre = ir_block_new(f), *tb = ir_block_new(f), *eb = ir_block_new(f), *B = ir_block_new(f);
    Inst *flat = flat_loop(&N, pre, tb);
    flat_body_start(&N, B, next);
    flat_body_end(&N, B, next);
    ir_inst_new(f, B, IR_YIELD, next, nres, NULL, 0, N.F.sp);
    ir_set_regions(flat, B, NULL);
    ir_inst_new(f, tb, IR_YIELD, flat->results, N.no, NULL, 0, N.F.sp);
    free(next);
    replace_nest(&N, parent, pos, pre, tb, eb);
    nest_free(&N);
    return true;
}

/* Flatten this loop? As asked (flatten=True), or, on a target with tl's
 * warp specialisation (wgmma), a loop nest asked to be warp-specialised:
 * Triton turns flatten off there only because its Hopper warp
 * specialisation cannot take a flattened loop; tl gives a producer one loop
 * (warpspec.c) and without one the flat loop still prefetches the next
 * tile's first K steps during this tile's epilogue, which the nest cannot. */
static bool wants_flat(const Inst *in, bool wgmma) {
    return in->op == IR_FOR && (in->attr.flatten || (wgmma && in->attr.warp_spec > 0));
}

static void walk(Function *f, Block *b, int max_shared, bool wgmma) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            walk(f, in->regions[r], max_shared, wgmma);
        if (wants_flat(in, wgmma)) {
            int before = b->ninsts;
            if (flatten_loop(f, b, i, max_shared))
                i += b->ninsts - before; /* past the trip counts and the if */
        }
    }
}

bool flatten_pass(Diag *d, Function *f, bool async_copy, bool wgmma, int max_shared) {
    (void)d;
    if (async_copy) /* only a pipelined loop gains from it */
        walk(f, f->body, max_shared, wgmma);
    return true;
}
