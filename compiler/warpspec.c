/* warpspec.c: warp specialisation, a producer warpgroup that runs a loop's
 * TMA copies (Triton's AutomaticWarpSpecialization, for the one loop shape
 * the pipeliner hands over).
 *
 * Requires: the pipeliner's IR (pipeline.c). A loop it left to a producer,
 *           in the function's body or in the then-branch of an if there
 *           (flatten.c's guard around a flat loop: ir_ws_block), carries
 *           {ws_hold = H}: before it in its block, its
 *           rings (local_alloc of R slots, one per TMA-copied tile) and a
 *           ring of R full mbarriers (mbarrier_init; mbarrier_inval after
 *           the loop); in its body, iteration i copies into slot i mod R
 *           (an mbarrier_expect of the tiles' bytes and a tma_load each,
 *           predicated on true, at coordinates the body computes) just
 *           before its mbarrier_wait on that slot's full barrier. H: the
 *           iterations that read a slot (2: the wgmma group a dot leaves in
 *           flight still reads it in the next).
 * Ensures:  the rings and full barriers go to the top of the body, then a
 *           ring of empty mbarriers (num_warps arrivals) and a
 *           warp_specialize op of WS_WARPS warps (Function.producer_warps)
 *           whose producer recomputes what the copies' coordinates need
 *           from before the loop (a guarded loop's: the guard's condition
 *           too, its upper bound the lower where it is false), then runs
 *           the loop's iterations itself:
 *           wait on the slot's empty barrier (parity starting at 1: a fresh
 *           mbarrier counts the phase before its first as complete, so the
 *           first round passes), then the slot's copies. The loop keeps its
 *           waits on the full barriers, loses its copies (and what only they
 *           read), and ends each iteration with an mbarrier_arrive of every
 *           consumer warp on the empty barrier of its own slot (H = 1) or,
 *           from the second iteration on, of the slot the iteration before
 *           read (H = 2: that wgmma group is retired by then, llvm_dot.c);
 *           the empty barriers are invalidated after the loop. No loop
 *           keeps ws_hold: one whose producer cannot be built (IR text
 *           only: the pipeliner asks warpspec_loop_ok first) stays as it
 *           is, correct, its copies its own.
 *
 * Which loops (warpspec_loop_ok, which the pipeliner asks before it builds
 * a loop's rings): its warp specialisation is wanted (tl.range's
 * warp_specialize, else Function.warp_spec), it stands where ir_ws_block
 * allows, num_warps is 4 or 8, no other loop has a producer, and every
 * value the coordinates (and a guard's condition) need is computed in the
 * loop from its induction variable and carried values, or before it in the
 * function's body or its own block, by pure ops a producer may hold
 * (ir_producer_op: no load, dot, reduction or convert). A flat loop's next
 * tile (flatten.c's pure if) is among them: its producer carries the tile's
 * coordinates itself and fills the rings ahead across tiles.
 *
 * Algorithm: find the copies -> plan the producer (the coordinates' slice,
 * what it needs from before the loop) -> rings and barriers to the top, the
 * empty barriers -> the producer -> the loop without its copies, with its
 * releases -> sweep what only the copies read. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* The producer's warps (a warpgroup: setmaxnreg acts on warpgroups). */
enum { WS_WARPS = 4, MAX_COPIES = 16 };

typedef struct Ws {
    Function *f;
    Inst *loop;
    Block *B;        /* the loop's body */
    Block *P;        /* the block holding the loop: the function's body, or the then-branch of guard */
    Inst *guard;     /* the if of the function's body whose then-branch holds the loop, or NULL */
    int n0;          /* values before the pass: the tables cover these */
    Block **home;    /* per value: the block defining it */
    uint8_t *mark;   /* per value: the producer computes it in its loop (the coordinates' slice) */
    uint8_t *pre;    /* per value: the producer computes it before its loop */
    uint8_t *car;    /* per carried value of the loop: the slice reads it */
    ValueId *map;    /* clone map: a value -> the producer's copy */
} Ws;

static void find_homes(Block *b, Block **home) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nresults; r++)
            home[in->results[r]] = b;
        for (int r = 0; r < in->nregions; r++) {
            Block *rb = in->regions[r];
            for (int a = 0; rb && a < rb->nargs; a++)
                home[rb->args[a]] = rb;
            find_homes(rb, home);
        }
    }
}

static bool ws_init(Ws *W, Function *f, Inst *loop) {
    *W = (Ws){.f = f, .loop = loop, .B = loop->regions[0], .n0 = f->nvalues};
    W->P = ir_ws_block(f, loop, &W->guard);
    W->home = calloc((size_t)W->n0, sizeof *W->home);
    W->mark = calloc((size_t)W->n0, 1), W->pre = calloc((size_t)W->n0, 1);
    W->car = calloc((size_t)loop->nresults + 1, 1);
    W->map = calloc((size_t)W->n0, sizeof *W->map);
    if (!W->home || !W->mark || !W->pre || !W->car || !W->map || !W->P)
        return false;
    find_homes(f->body, W->home);
    return true;
}

static void ws_free(Ws *W) { free(W->home), free(W->mark), free(W->pre), free(W->car), free(W->map); }

/* ---- the plan: what the producer computes ---- */

/* May the producer run op `in`? An if only where its branches just compute
 * and yield (a flattened loop's next tile, flatten.c). */
static bool op_ok(const Inst *in) {
    if (in->op == IR_IF) {
        for (int r = 0; r < in->nregions; r++)
            for (int i = 0; i < in->regions[r]->ninsts; i++) {
                const Inst *x = in->regions[r]->insts[i];
                if (x->op != IR_YIELD && (x->nregions || !op_ok(x)))
                    return false;
            }
        return true;
    }
    return in->op == IR_YIELD || (ir_producer_op(in->op) && (ir_ops[in->op].flags & OPF_PURE) && !in->nregions);
}

/* Mark what v, a value of the loop body, depends on there: the ops of the
 * body (an if's branches read what they read) and, through the yield, the
 * carried values the slice reads (car). Values from outside the body are
 * read_ok's business. */
static void slice(Ws *W, ValueId v) {
    if (W->mark[v] || W->home[v] != W->B)
        return;
    W->mark[v] = 1;
    const Inst *def = W->f->values[v].def;
    if (!def) { /* the induction variable or a carried value, from the yield */
        int k = 1;
        while (k < W->B->nargs && W->B->args[k] != v)
            k++;
        const Inst *y = W->B->insts[W->B->ninsts - 1];
        if (k < W->B->nargs && y->op == IR_YIELD && k - 1 < y->nargs) {
            W->car[k - 1] = 1;
            slice(W, y->args[k - 1]);
        }
        return;
    }
    for (int r = 0; r < def->nresults; r++)
        W->mark[def->results[r]] = 1;
    for (int a = 0; a < def->nargs; a++)
        slice(W, def->args[a]);
    for (int r = 0; r < def->nregions; r++)
        for (int i = 0; i < def->regions[r]->ninsts; i++)
            for (int a = 0; a < def->regions[r]->insts[i]->nargs; a++)
                slice(W, def->regions[r]->insts[i]->args[a]);
}

/* Is v computed before the loop where it stands: in the function's body
 * or, for a loop in an if's then-branch, there? */
static bool before_loop(const Ws *W, ValueId v) {
    return v < W->n0 && (W->home[v] == W->f->body || W->home[v] == W->P);
}

/* Mark in pre what the producer must compute before its loop to have v:
 * parameters are there already; ops before the loop must be ones it may
 * run. */
static bool outside(Ws *W, ValueId v) {
    Function *f = W->f;
    if (v <= f->nparams || W->pre[v])
        return true;
    if (!before_loop(W, v) || !f->values[v].def)
        return false;
    const Inst *def = f->values[v].def;
    if (def->nresults != 1 || def->op == IR_IF || !op_ok(def))
        return false;
    W->pre[v] = 1;
    for (int a = 0; a < def->nargs; a++)
        if (!outside(W, def->args[a]))
            return false;
    return true;
}

/* A value the producer reads: one of the loop's body is in the slice (or
 * local to a branch of an if there); one from before the loop must be
 * computable before the producer's loop. */
static bool read_ok(Ws *W, ValueId v) {
    return !(v <= W->f->nparams || before_loop(W, v)) || outside(W, v);
}

/* ... and every value op `in` of the slice (its regions too) reads. */
static bool reads_ok(Ws *W, const Inst *in) {
    for (int a = 0; a < in->nargs; a++)
        if (!read_ok(W, in->args[a]))
            return false;
    for (int r = 0; r < in->nregions; r++)
        for (int i = 0; i < in->regions[r]->ninsts; i++)
            if (!reads_ok(W, in->regions[r]->insts[i]))
                return false;
    return true;
}

/* The producer's program for coordinates coords[n] of the loop: the slice
 * (mark, car), what it reads from before the loop (pre), and that each op
 * is one it may run, the loop's bounds, the carried values' initial values
 * and the guard's condition included. */
static bool plan(Ws *W, const ValueId *coords, int n) {
    for (int i = 0; i < n; i++)
        slice(W, coords[i]);
    bool ok = true;
    for (int i = 0; i < W->B->ninsts && ok; i++) {
        const Inst *in = W->B->insts[i];
        if (in->nresults && in->results[0] < W->n0 && W->mark[in->results[0]])
            ok = op_ok(in) && reads_ok(W, in);
    }
    for (int i = 0; i < n && ok; i++) /* coordinates computed before the loop */
        ok = read_ok(W, coords[i]);
    for (int a = 0; a < 3 && ok; a++)
        ok = outside(W, W->loop->args[a]);
    for (int k = 0; k < W->loop->nresults && ok; k++)
        ok = !W->car[k] || outside(W, W->loop->args[3 + k]);
    return ok && (!W->guard || outside(W, W->guard->args[0]));
}

/* Is the loop's warp specialisation wanted, and may it have it: where
 * ir_ws_block allows, 4 or 8 consumer warps (one or two warpgroups), and the
 * function's one producer not given to another loop already? */
static bool wanted(const Function *f, const Inst *loop) {
    Inst *guard;
    bool other = false;
    for (const Inst *l = ir_ws_next(f, NULL); l; l = ir_ws_next(f, l))
        other |= l != loop && l->attr.ws_hold;
    return ir_warp_spec_on(f, loop->attr.warp_spec) && ir_ws_block(f, loop, &guard) && !other &&
           !f->producer_warps && (f->num_warps == 4 || f->num_warps == 8);
}

bool warpspec_loop_ok(Function *f, Inst *loop, const ValueId *coords, int ncoords) {
    if (!wanted(f, loop))
        return false;
    Ws W;
    bool ok = ws_init(&W, f, loop) && plan(&W, coords, ncoords);
    ws_free(&W);
    return ok;
}

/* ---- the rewrite ---- */

/* The loop's copies, as the pipeliner left them: the expects and tma_loads
 * of its body, predicated on true, every barrier a view of one full-barrier
 * ring `bars` and every buffer a view of a ring, each view at the slot the
 * iteration reads (`slot`, a block argument), the rings allocated and the
 * barriers initialised before the loop in its block (W->P). */
typedef struct Copies {
    Inst *ops[MAX_COPIES]; /* the expects and tma_loads, in body order */
    int n;
    Inst *moved[MAX_COPIES + 2]; /* the rings' allocs, the barriers' alloc and init, in body order */
    int nmoved;
    ValueId bars, slot;
} Copies;

/* The allocation of the ring a view (memdesc_index of the loop's body at
 * the slot) indexes, in the function's body; NULL if it is not one. */
static Inst *ring_of(Ws *W, ValueId view, ValueId *slot) {
    const Inst *ix = W->f->values[view].def;
    if (!ix || ix->op != IR_MEMDESC_INDEX || W->home[view] != W->B || (*slot && ix->args[1] != *slot))
        return NULL;
    *slot = ix->args[1];
    Inst *al = W->f->values[ix->args[0]].def;
    return al && al->op == IR_LOCAL_ALLOC && W->home[ix->args[0]] == W->P ? al : NULL;
}

static bool find_copies(Ws *W, Copies *c) {
    Function *f = W->f;
    *c = (Copies){0};
    Inst *al[MAX_COPIES + 1];
    int nal = 0;
    for (int i = 0; i < W->B->ninsts; i++) {
        Inst *in = W->B->insts[i];
        if (in->op != IR_MBAR_EXPECT && in->op != IR_TMA_LOAD)
            continue;
        Inst *bar = ring_of(W, in->args[in->op == IR_TMA_LOAD ? 4 : 0], &c->slot);
        Inst *buf = in->op == IR_TMA_LOAD ? ring_of(W, in->args[0], &c->slot) : NULL;
        const Inst *pred = f->values[in->args[in->op == IR_TMA_LOAD ? 5 : 1]].def;
        if (c->n == MAX_COPIES || !bar || (c->bars && bar->results[0] != c->bars) || (in->op == IR_TMA_LOAD && !buf) ||
            !pred || pred->op != IR_CONST || pred->attr.i != 1) /* every iteration copies: so will the producer */
            return false;
        c->bars = bar->results[0];
        c->ops[c->n++] = in;
        if (buf)
            al[nal++] = buf;
    }
    if (!c->n || W->home[c->slot] != W->B || !f->values[c->bars].def)
        return false;
    al[nal++] = f->values[c->bars].def;
    for (int i = 0; i < W->P->ninsts && W->P->insts[i] != W->loop; i++) {
        Inst *in = W->P->insts[i];
        bool take = in->op == IR_MBAR_INIT && in->args[0] == c->bars;
        for (int k = 0; k < nal; k++)
            take |= in == al[k];
        if (take && c->nmoved < MAX_COPIES + 2)
            c->moved[c->nmoved++] = in;
    }
    return c->nmoved == nal + 1; /* each alloc once, and the init */
}

/* A new op at *at of b (which advances), one result of type t and layout l. */
static ValueId put1(Function *f, Block *b, int *at, OpCode op, const ValueId *args, int n, Type t, int l, Span sp) {
    Inst *in = ir_inst_at(f, b, at, op, args, n, &t, 1, sp);
    f->values[in->results[0]].layout = l;
    return in->results[0];
}

static ValueId put_const(Function *f, Block *b, int *at, Type t, int64_t v, Span sp) {
    ValueId r = put1(f, b, at, IR_CONST, NULL, 0, t, 0, sp);
    f->values[r].def->attr.i = v;
    return r;
}

static ValueId put_cmp(Function *f, Block *b, int *at, int pred, ValueId x, ValueId y, Span sp) {
    ValueId r = put1(f, b, at, IR_CMP, (ValueId[]){x, y}, 2, ir_scalar(DT_I1), 0, sp);
    f->values[r].def->attr.pred = pred;
    return r;
}

/* The view of slot `slot` of ring `buf`, like the pipeliner's. */
static ValueId slot_view(Function *f, Block *b, int *at, ValueId buf, ValueId slot, Span sp) {
    Type t = f->values[buf].type;
    t.rank--;
    memmove(t.shape, t.shape + 1, sizeof t.shape[0] * (size_t)t.rank);
    t.shape[t.rank] = 0;
    return put1(f, b, at, IR_MEMDESC_INDEX, (ValueId[]){buf, slot}, 2, t, f->values[buf].layout, sp);
}

/* Copy the ops of b in [from, to) that keep[] marks (by their first result)
 * to *at of dst, through the map. */
static void clone_marked(Ws *W, const Block *b, int from, int to, const uint8_t *keep, Block *dst, int *at) {
    for (int i = from; i < to; i++) {
        const Inst *in = b->insts[i];
        if (!in->nresults || in->results[0] >= W->n0 || !keep[in->results[0]])
            continue;
        Inst *cl = ir_clone_inst(W->f, NULL, in, W->map, W->n0);
        ir_insert_insts(W->f, dst, (*at)++, &cl, 1);
    }
}

/* The producer's loop body at *at of pb: the slice, the wait for the
 * consumers to release the slot, the copies into it (their views again, at
 * the producer's slot, predicated on true), the next slot and phase. */
static void producer_body(Ws *W, const Copies *c, Inst *pl, ValueId slot, ValueId ph, ValueId empties) {
    Function *f = W->f;
    Block *body = pl->regions[0];
    Span sp = W->loop->span;
    Type i32 = ir_scalar(DT_I32);
    int at = 0;
    clone_marked(W, W->B, 0, W->B->ninsts, W->mark, body, &at);
    ir_inst_at(f, body, &at, IR_MBAR_WAIT, (ValueId[]){slot_view(f, body, &at, empties, slot, sp), ph}, 2, NULL, 0, sp);
    ValueId yes = put_const(f, body, &at, ir_scalar(DT_I1), 1, sp);
    W->map[c->slot] = slot;
    for (int i = 0; i < c->n; i++) {
        Inst *x = c->ops[i];
        for (int a = 0; a < x->nargs; a++) { /* the views it reads, once each */
            const Inst *v = f->values[x->args[a]].def;
            if (v && v->op == IR_MEMDESC_INDEX && W->home[x->args[a]] == W->B && !W->map[x->args[a]]) {
                Inst *cl = ir_clone_inst(f, NULL, v, W->map, W->n0);
                ir_insert_insts(f, body, at++, &cl, 1);
            }
        }
        W->map[x->args[x->op == IR_TMA_LOAD ? 5 : 1]] = yes;
        Inst *cl = ir_clone_inst(f, NULL, x, W->map, W->n0);
        ir_insert_insts(f, body, at++, &cl, 1);
    }
    int R = f->values[c->bars].type.shape[0];
    ValueId one = put_const(f, body, &at, i32, 1, sp), zero = put_const(f, body, &at, i32, 0, sp);
    ValueId s1 = put1(f, body, &at, IR_ADD, (ValueId[]){slot, one}, 2, i32, 0, sp);
    ValueId wrap = put_cmp(f, body, &at, CMP_EQ, s1, put_const(f, body, &at, i32, R, sp), sp);
    const Inst *y = W->B->insts[W->B->ninsts - 1];
    ValueId *yargs = arena_alloc(f->arena, sizeof *yargs * (size_t)(W->loop->nresults + 2));
    int ny = 0;
    for (int k = 0; k < W->loop->nresults; k++)
        if (W->car[k])
            yargs[ny++] = W->map[y->args[k]] ? W->map[y->args[k]] : y->args[k];
    yargs[ny++] = put1(f, body, &at, IR_SELECT, (ValueId[]){wrap, zero, s1}, 3, i32, 0, sp);
    ValueId flip = put1(f, body, &at, IR_SELECT, (ValueId[]){wrap, one, zero}, 3, i32, 0, sp);
    yargs[ny++] = put1(f, body, &at, IR_XOR, (ValueId[]){ph, flip}, 2, i32, 0, sp);
    ir_inst_at(f, body, &at, IR_YIELD, yargs, ny, NULL, 0, sp);
}

/* The producer: a warp_specialize op at *at of the function's body (after
 * the rings and barriers), whose region computes what the slice needs from
 * before the loop (the function's body's ops, then those of the guard's
 * then-branch), then runs the loop's iterations: the induction variable,
 * the carried values the slice reads, its own slot and the parity of the
 * empty barrier it waits for (starting at 1). A guarded loop's producer
 * runs none where the guard's condition is false (its upper bound is then
 * the lower). */
static void build_producer(Ws *W, const Copies *c, int *at, ValueId empties) {
    Function *f = W->f;
    Block *B = W->B;
    Inst *loop = W->loop;
    Span sp = loop->span;
    Type i32 = ir_scalar(DT_I32);
    Inst *ws = ir_inst_at(f, f->body, at, IR_WARP_SPEC, NULL, 0, NULL, 0, sp);
    ws->attr.num = WS_WARPS;
    f->producer_warps = WS_WARPS;
    Block *pb = ir_block_new(f);
    ir_set_regions(ws, pb, NULL);
    int pat = 0;
    clone_marked(W, f->body, *at, ir_inst_index(f->body, W->guard ? W->guard : loop), W->pre, pb, &pat);
    if (W->guard)
        clone_marked(W, W->P, 0, ir_inst_index(W->P, loop), W->pre, pb, &pat);
    int ncar = loop->nresults, na = 3, nr = 0;
    ValueId *args = arena_alloc(f->arena, sizeof *args * (size_t)(ncar + 5));
    Type *rt = arena_alloc(f->arena, sizeof *rt * (size_t)(ncar + 2));
    for (int a = 0; a < 3; a++)
        args[a] = W->map[loop->args[a]] ? W->map[loop->args[a]] : loop->args[a];
    if (W->guard) {
        ValueId c = W->map[W->guard->args[0]] ? W->map[W->guard->args[0]] : W->guard->args[0];
        args[1] = put1(f, pb, &pat, IR_SELECT, (ValueId[]){c, args[1], args[0]}, 3, f->values[args[1]].type, 0, sp);
    }
    for (int k = 0; k < ncar; k++)
        if (W->car[k]) {
            args[na++] = W->map[loop->args[3 + k]] ? W->map[loop->args[3 + k]] : loop->args[3 + k];
            rt[nr++] = f->values[B->args[k + 1]].type;
        }
    args[na++] = put_const(f, pb, &pat, i32, 0, sp);
    args[na++] = put_const(f, pb, &pat, i32, 1, sp);
    rt[nr++] = i32, rt[nr++] = i32;
    Inst *pl = ir_inst_at(f, pb, &pat, IR_FOR, args, na, rt, nr, sp);
    Block *body = ir_block_new(f);
    ir_set_regions(pl, body, NULL);
    W->map[B->args[0]] = ir_block_arg(f, body, f->values[loop->args[0]].type);
    for (int k = 0, q = 0; k < ncar; k++)
        if (W->car[k]) {
            ValueId a = ir_block_arg(f, body, f->values[B->args[k + 1]].type);
            f->values[a].layout = f->values[B->args[k + 1]].layout;
            f->values[pl->results[q++]].layout = f->values[a].layout;
            W->map[B->args[k + 1]] = a;
        }
    ValueId slot = ir_block_arg(f, body, i32), ph = ir_block_arg(f, body, i32);
    producer_body(W, c, pl, slot, ph, empties);
    ir_inst_at(f, pb, &pat, IR_YIELD, NULL, 0, NULL, 0, sp);
    ir_dce_loop(f, pl);
}

/* The consumers' release at the end of each iteration, where the loop
 * advances its read slot (after every read of it): one thread of each warp
 * arrives on the empty barrier of the slot read `hold` - 1 iterations ago. */
static void add_release(Ws *W, const Copies *c, ValueId empties, int hold) {
    Function *f = W->f;
    Block *B = W->B;
    Span sp = W->loop->span;
    Type i32 = ir_scalar(DT_I32);
    int at = B->ninsts - 1;
    for (int i = 0; i < B->ninsts - 1; i++) {
        const Inst *in = B->insts[i];
        bool reads = false;
        for (int a = 0; a < in->nargs; a++)
            reads |= in->args[a] == c->slot;
        if (reads && in->op != IR_MEMDESC_INDEX) {
            at = i;
            break;
        }
    }
    ValueId slot = c->slot, when;
    if (hold == 2) { /* the slot before, whose wgmma group the dot's wait_group 1 has retired */
        ValueId one = put_const(f, B, &at, i32, 1, sp), zero = put_const(f, B, &at, i32, 0, sp);
        ValueId last = put1(f, B, &at, IR_SUB, (ValueId[]){slot, one}, 2, i32, 0, sp);
        ValueId at0 = put_cmp(f, B, &at, CMP_EQ, slot, zero, sp);
        int R = f->values[c->bars].type.shape[0];
        slot = put1(f, B, &at, IR_SELECT, (ValueId[]){at0, put_const(f, B, &at, i32, R - 1, sp), last}, 3, i32, 0, sp);
        when = put_cmp(f, B, &at, CMP_NE, B->args[0], W->loop->args[0], sp); /* from the second iteration on */
    } else { /* no dot keeps a group past the iteration: its own slot is free */
        when = put_const(f, B, &at, ir_scalar(DT_I1), 1, sp);
    }
    ir_inst_at(f, B, &at, IR_MBAR_ARRIVE, (ValueId[]){slot_view(f, B, &at, empties, slot, sp), when}, 2, NULL, 0, sp);
}

/* The ops of b that `marks` marks (by their first result) and nothing
 * reads, last first: with the copies gone, the loop's slice (the
 * pipeliner's copy of it, a pure if of a flattened loop among them, which
 * the loop's sweep keeps) and before the loop what the producer computes
 * again for itself. Marked ops are pure (plan), so they may go. */
static void drop_unread(Ws *W, Block *b, const uint8_t *marks) {
    int *uses = calloc((size_t)W->f->nvalues, sizeof *uses);
    if (!uses)
        return; /* they stay, unread: correct */
    ir_count_uses(W->f->body, uses);
    for (int i = b->ninsts - 1; i >= 0; i--) {
        Inst *in = b->insts[i];
        bool dead = in->nresults && in->results[0] < W->n0 && marks[in->results[0]];
        for (int r = 0; r < in->nresults && dead; r++)
            dead = !uses[in->results[r]];
        if (!dead)
            continue;
        for (int a = 0; a < in->nargs; a++)
            uses[in->args[a]]--;
        for (int r = 0; r < in->nregions; r++) /* a pure if: its branches' reads go too */
            for (int k = 0; k < in->regions[r]->ninsts; k++)
                for (int a = 0; a < in->regions[r]->insts[k]->nargs; a++)
                    uses[in->regions[r]->insts[k]->args[a]]--;
        ir_remove_inst(b, in);
    }
    free(uses);
}

/* One handed-over loop: its rings and barriers to the top of the body, the
 * empty barriers, the producer, then the loop's own part. */
static void specialise(Ws *W, const Copies *c, int hold) {
    Function *f = W->f;
    Block *body = f->body;
    Span sp = W->loop->span;
    for (int k = 0; k < c->nmoved; k++)
        ir_remove_inst(W->P, c->moved[k]);
    ir_insert_insts(f, body, 0, c->moved, c->nmoved);
    int at = c->nmoved;
    Type bt = f->values[c->bars].type;
    Inst *al = ir_inst_at(f, body, &at, IR_LOCAL_ALLOC, NULL, 0, &bt, 1, sp);
    al->attr.offset = -1;
    ValueId empties = al->results[0];
    f->values[empties].layout = f->values[c->bars].layout;
    ir_inst_at(f, body, &at, IR_MBAR_INIT, &empties, 1, NULL, 0, sp)->attr.num = f->num_warps; /* a thread a warp */
    build_producer(W, c, &at, empties);
    for (int i = 0; i < c->n; i++)
        ir_remove_inst(W->B, c->ops[i]);
    drop_unread(W, W->B, W->mark);
    add_release(W, c, empties, hold);
    Block *P = W->P; /* the empty barriers' inval after the full ones' (else after the loop) */
    int after = ir_inst_index(P, W->loop) + 1;
    for (int i = after; i < P->ninsts; i++)
        if (P->insts[i]->op == IR_MBAR_INVAL && P->insts[i]->args[0] == c->bars) {
            after = i + 1;
            break;
        }
    ir_inst_at(f, P, &after, IR_MBAR_INVAL, &empties, 1, NULL, 0, sp);
    ir_dce_loop(f, W->loop);
    if (P != body)
        drop_unread(W, P, W->pre);
    drop_unread(W, body, W->pre);
}

/* Specialise a loop handed over, if its producer can be built. */
static bool warpspec_loop(Diag *d, Function *f, Inst *loop) {
    int hold = loop->attr.ws_hold;
    loop->attr.ws_hold = 0; /* the handoff is taken, whatever comes of it */
    Ws W;
    Copies c;
    if (!ws_init(&W, f, loop)) {
        ws_free(&W);
        diag_internal(d, "warp-spec: out of memory");
        return false;
    }
    ValueId coords[2 * MAX_COPIES];
    int n = 0;
    bool ok = find_copies(&W, &c) && !f->producer_warps;
    for (int i = 0; ok && i < c.n; i++)
        if (c.ops[i]->op == IR_TMA_LOAD)
            coords[n++] = c.ops[i]->args[2], coords[n++] = c.ops[i]->args[3];
    if (ok && plan(&W, coords, n))
        specialise(&W, &c, hold);
    ws_free(&W);
    return true;
}

bool warpspec_pass(Diag *d, Function *f) {
    for (Inst *l = ir_ws_next(f, NULL); l; l = ir_ws_next(f, l))
        if (l->attr.ws_hold && !warpspec_loop(d, f, l))
            return false;
    return true;
}
