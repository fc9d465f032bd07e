/* peel.c: loops that run once, as straight-line code (before the layout pass).
 *
 * Row kernels written as Triton's layer-norm tutorial walk a row in chunks,
 * `for off in range(0, N, BLOCK_SIZE)`, three times, and their host code
 * picks BLOCK_SIZE >= N: each loop runs once. Inside a loop ptxas gives the
 * chunk's loads registers the loop body reuses (tutorial 05's forward at
 * 4096 x 8192 fp16: four 16-byte loads a thread, two in flight at a time);
 * as straight-line code all four are in flight and the kernel runs 1.39x
 * faster (H200, 2026-11-29: 53.6 against 38.6 us, 0.90 of a device copy;
 * the same kernel with the row loaded once, 37.7). Triton compiles the
 * loops as written.
 *
 * Requires: verified IR before the layout pass.
 * Ensures:  in the function's body (and in the branches of its ifs that hold
 *           no such loop above them), from the first loop L0 that is a
 *           candidate to the block's end, the ops T are versioned:
 *
 *               g = AND over the candidate loops `for lb, ub, step` of T:
 *                   0 < ub - lb <= step  and  lb + step <= INT32_MAX  (in i64)
 *               if g: T with each candidate loop replaced by its body for
 *                     iv = lb, carried = inits (its results: what the body
 *                     yields)
 *               else: T as written
 *
 *           with the block's yield (an if branch's results) taken from the
 *           if. A candidate: a `for` whose lb, ub and step are i32 scalars
 *           (so is its iv), step a constant > 1, lb and ub defined
 *           outside T (before L0, or around B) or constants, no flatten or
 *           warp_specialize asked of it. lb + step must not overflow: the
 *           loop as lowered (llvm.c) steps its iv in i32, and one that wraps
 *           runs again. Nothing is versioned where T holds a dot (the loops
 *           the pipeliner, warp specialisation and TMA passes take stay
 *           where they are: warp_specialize must sit in the function's
 *           body) or more than PEEL_MAX_OPS ops (code size and compile
 *           time double for T). A loop of step 1 is left: it counts rows or
 *           K steps, which the host sizes for many iterations.
 *           The interpreter never sees this pass unless asked
 *           (TL_INTERPRET_PASSES=peel, which tests the pass by execution).
 *
 * Algorithm: find L0 and the candidates -> the guard before L0 -> clone T
 * into the then branch with a value map, inlining the candidates' bodies ->
 * move T into the else branch. */
#include "passes.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PEEL_MAX_OPS = 4000 };

typedef struct Peel {
    Function *f;
    Block *B;      /* the block being versioned */
    int at;        /* L0's index in B */
    int n0;        /* values before the rewrite: the map covers these */
    ValueId *map;  /* original -> clone (0: itself) */
    uint8_t *in_t; /* values T defines (n0 of them) */
    Span sp;
} Peel;

static ValueId mapped(const Peel *P, ValueId v) { return v < P->n0 && P->map[v] ? P->map[v] : v; }

static ValueId emit(Peel *P, Block *b, OpCode op, Type t, ValueId x, ValueId y) {
    return ir_emit(P->f, b, op, t, (ValueId[]){x, y}, op == IR_CAST ? 1 : 2, P->sp);
}

static ValueId cnst(Peel *P, Block *b, Type t, int64_t v) { return ir_emit_const(P->f, b, t, v, P->sp); }

static ValueId cmp(Peel *P, Block *b, int pred, ValueId x, ValueId y) {
    return ir_emit_cmp(P->f, b, pred, x, y, P->sp);
}

static bool is_i32(const Function *f, ValueId v) {
    Type t = f->values[v].type;
    return !t.rank && t.dtype == DT_I32;
}

static const Inst *const_def(const Function *f, ValueId v) {
    const Inst *d = f->values[v].def;
    return d && d->op == IR_CONST ? d : NULL;
}

/* Ops in `in`, its regions' too; -1 once a dot or a loop asked for flatten
 * or warp_specialize is among them. */
static int inst_ops(const Inst *in) {
    if (in->op == IR_DOT || (in->op == IR_FOR && (in->attr.flatten || in->attr.warp_spec > 0)))
        return -1;
    int n = 1;
    for (int r = 0; r < in->nregions; r++)
        for (int i = 0; i < in->regions[r]->ninsts; i++) {
            int k = inst_ops(in->regions[r]->insts[i]);
            if (k < 0)
                return -1;
            n += k;
        }
    return n;
}

/* Is v known before L0: defined outside T (before L0 in B, or in a block
 * around B), or a constant (cloned before the guard)? */
static bool before_l0(const Peel *P, ValueId v) { return !P->in_t[v] || const_def(P->f, v); }

static bool candidate(const Peel *P, const Inst *in) {
    const Function *f = P->f;
    if (in->op != IR_FOR || in->nargs < 3 || in->attr.flatten || in->attr.warp_spec > 0)
        return false;
    const Inst *st = const_def(f, in->args[2]);
    const Block *body = in->regions[0];
    return is_i32(f, in->args[0]) && is_i32(f, in->args[1]) && is_i32(f, in->args[2]) && body->nargs >= 1 &&
           is_i32(f, body->args[0]) && st && st->attr.i > 1 && before_l0(P, in->args[0]) &&
           before_l0(P, in->args[1]);
}

/* v before the guard: a constant cloned there, anything else as it is. */
static ValueId avail(Peel *P, Block *pre, ValueId v) {
    const Inst *d = const_def(P->f, v);
    return d ? cnst(P, pre, P->f->values[v].type, d->attr.i) : v;
}

/* Do loops a and b run over the same range: the same ub and step, lb the
 * same value or equal constants? */
static bool same_range(const Function *f, const Inst *a, const Inst *b) {
    const Inst *la = const_def(f, a->args[0]), *lb = const_def(f, b->args[0]);
    return a->args[1] == b->args[1] && const_def(f, a->args[2])->attr.i == const_def(f, b->args[2])->attr.i &&
           (a->args[0] == b->args[0] || (la && lb && la->attr.i == lb->attr.i));
}

/* g and `loop runs exactly once, its iv never wrapping`, in pre; the loop's
 * lb as the guard's block has it goes to *lb. */
static ValueId guard_one(Peel *P, Block *pre, const Inst *loop, ValueId g, ValueId *lb) {
    Type i64 = ir_scalar(DT_I64), i1 = ir_scalar(DT_I1);
    int64_t step = const_def(P->f, loop->args[2])->attr.i;
    *lb = avail(P, pre, loop->args[0]);
    ValueId l = emit(P, pre, IR_CAST, i64, *lb, 0);
    ValueId u = emit(P, pre, IR_CAST, i64, avail(P, pre, loop->args[1]), 0);
    ValueId d = emit(P, pre, IR_SUB, i64, u, l);
    ValueId some = cmp(P, pre, CMP_GT, d, cnst(P, pre, i64, 0));
    ValueId one = cmp(P, pre, CMP_LE, d, cnst(P, pre, i64, step));
    ValueId nowrap = cmp(P, pre, CMP_LE, l, cnst(P, pre, i64, INT32_MAX - step));
    ValueId ok = emit(P, pre, IR_AND, i1, emit(P, pre, IR_AND, i1, some, one), nowrap);
    return g ? emit(P, pre, IR_AND, i1, g, ok) : ok;
}

/* Append loop's body to b for iv = lb and its inits, through the map; its
 * results become what the body yields. */
static void inline_body(Peel *P, Block *b, const Inst *loop, ValueId lb) {
    const Block *body = loop->regions[0];
    P->map[body->args[0]] = lb;
    for (int j = 1; j < body->nargs; j++)
        P->map[body->args[j]] = mapped(P, loop->args[2 + j]);
    const Inst *y = body->ninsts ? body->insts[body->ninsts - 1] : NULL;
    int n = body->ninsts - (y && y->op == IR_YIELD);
    for (int i = 0; i < n; i++)
        ir_clone_inst(P->f, b, body->insts[i], P->map, P->n0);
    for (int j = 0; j < loop->nresults && y && j < y->nargs; j++)
        P->map[loop->results[j]] = mapped(P, y->args[j]);
}

/* Version B's ops from P->at to its last (a return or yield, kept). */
static void version(Peel *P) {
    Function *f = P->f;
    Block *B = P->B, *pre = ir_block_new(f), *tb = ir_block_new(f), *eb = ir_block_new(f);
    Inst *term = B->insts[B->ninsts - 1];
    int end = B->ninsts - 1;
    ValueId g = 0, *lbs = calloc((size_t)(end - P->at + 1), sizeof *lbs);
    if (!lbs)
        return;
    for (int i = P->at; i < end; i++) {
        if (!candidate(P, B->insts[i]))
            continue;
        int k = P->at;
        while (k < i && !(lbs[k - P->at] && same_range(f, B->insts[k], B->insts[i])))
            k++;
        if (k < i)
            lbs[i - P->at] = lbs[k - P->at]; /* its guard is there already */
        else
            g = guard_one(P, pre, B->insts[i], g, &lbs[i - P->at]);
    }
    for (int i = P->at; i < end; i++) {
        if (lbs[i - P->at])
            inline_body(P, tb, B->insts[i], lbs[i - P->at]);
        else
            ir_clone_inst(f, tb, B->insts[i], P->map, P->n0);
    }
    free(lbs);
    /* The block's results (an if branch's yield) come out of the new if. */
    int nr = term->nargs;
    Type *rt = malloc(sizeof *rt * (size_t)(nr + 1));
    ValueId *ty = malloc(sizeof *ty * (size_t)(nr + 1));
    if (!rt || !ty) {
        free(rt), free(ty);
        return;
    }
    for (int j = 0; j < nr; j++)
        rt[j] = f->values[term->args[j]].type, ty[j] = mapped(P, term->args[j]);
    ir_inst_new(f, tb, IR_YIELD, ty, nr, NULL, 0, P->sp);
    ir_insert_insts(f, eb, 0, B->insts + P->at, end - P->at);
    ir_inst_new(f, eb, IR_YIELD, term->args, nr, NULL, 0, P->sp);
    Inst *v = ir_inst_new(f, pre, IR_IF, &g, 1, rt, nr, P->sp);
    ir_set_regions(v, tb, eb);
    for (int j = 0; j < nr; j++)
        term->args[j] = v->results[j];
    B->ninsts = P->at; /* the ops moved into eb */
    ir_insert_insts(f, B, P->at, pre->insts, pre->ninsts);
    ir_insert_insts(f, B, B->ninsts, &term, 1);
    free(rt), free(ty);
}

/* Version B if it holds a candidate; else look into its ifs' branches. */
static void walk(Function *f, Block *B, ValueId *map, uint8_t *in_t, int n0) {
    int last = B->ninsts - 1;
    if (last < 0 || (B->insts[last]->op != IR_RETURN && B->insts[last]->op != IR_YIELD))
        return;
    Peel P = {.f = f, .B = B, .n0 = n0, .map = map, .in_t = in_t};
    for (P.at = 0; P.at < last; P.at++) {
        Inst *in = B->insts[P.at];
        if (!candidate(&P, in)) /* in_t is all zeros: L0's bounds come before it */
            continue;
        int ops = 0;
        for (int i = P.at; i < last && ops >= 0; i++) {
            int k = inst_ops(B->insts[i]);
            ops = k < 0 ? -1 : ops + k;
        }
        if (ops >= 0 && ops <= PEEL_MAX_OPS) {
            ir_mark_defs(B, P.at, in_t);
            P.sp = in->span;
            version(&P);
            memset(in_t, 0, (size_t)n0);
        }
        return;
    }
    for (int i = 0; i < last; i++)
        if (B->insts[i]->op == IR_IF)
            for (int r = 0; r < B->insts[i]->nregions; r++)
                walk(f, B->insts[i]->regions[r], map, in_t, n0);
}

bool peel_pass(Diag *d, Function *f) {
    int n0 = f->nvalues;
    ValueId *map = calloc((size_t)n0 + 1, sizeof *map);
    uint8_t *in_t = calloc((size_t)n0 + 1, 1);
    if (!map || !in_t) {
        free(map), free(in_t);
        diag_internal(d, "peel: out of memory");
        return false;
    }
    walk(f, f->body, map, in_t, n0);
    free(map), free(in_t);
    return true;
}
