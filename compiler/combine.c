/* combine.c: peephole rewrites on the tile IR before layouts (Triton's
 * Combine pass).
 *
 * Requires: verified IR (layouts or not).
 * Ensures:  the same values computed with fewer ops:
 *             add(acc, dot(a, b, 0))  ->  dot(a, b, acc)
 *             add(dot(a, b, 0), acc)  ->  dot(a, b, acc)
 *           when the dot's accumulator is a zero constant (a `const` block or
 *           a `splat` of a zero scalar `const`) and the add is the dot's only
 *           user. The add becomes the dot (same result value, same place), so
 *           every operand still dominates it; the old dot is removed. The
 *           dot keeps its own source line (the line tables name the dot).
 *
 * Why: `acc += tl.dot(a, b)` reaches the IR as a dot into a fresh zero block
 * followed by an elementwise add. Lowered literally, that keeps two
 * accumulators live (twice the registers of the MMA tile) and adds every
 * element once more per K step. The dot's own accumulator operand does the
 * add for free. The summation order of a dot is unspecified (docs/ir.md), so
 * adding acc first is within its meaning; for integers the result is exact.
 *
 * Second rewrite: a hint names a value, not a new one. Triton's
 * tl.multiple_of / max_contiguous / max_constancy set an attribute on the
 * op defining their operand (semantic.py: x.handle.set_attr), so the hint
 * holds at every use of x, before or after the call, even when its result is
 * dropped (`tl.max_contiguous(tl.multiple_of(offs, 1024), 1024)` as a
 * statement: test_vectorization_hints). Here each hint op moves to just after
 * its operand's definition (the start of the block whose argument it is) and
 * every other use of the operand reads the hint's result, which is the same
 * value. A hint on a kernel parameter stays where it is: Triton drops those
 * (set_attr does nothing on a function's arguments; the signature says
 * divisibility).
 *
 * Third rewrite, Triton's CombineBroadcastMulReducePattern:
 *             sum(broadcast(expand_dims(x, 2)) * broadcast(expand_dims(y, 0)), axis=1)
 *               ->  dot(x, y, 0)   (IEEE precision)
 *           for x <MxK>, y <KxN> of f32 or f16 (the sum's f32 / f16 add),
 *           each broadcast only along its expanded dim, M and N >= 16. Why:
 *           the product is an M x K x N block (512 KiB for test_core.py's
 *           test_dot_mulbroadcasted), which the layouts would have to move
 *           through shared memory; the dot never forms it. Runs first, so the
 *           dot can then absorb an add as above; the expand / broadcast /
 *           multiply left without users are removed (ir_dce). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

/* The dot that operand k of `add` is, when it can absorb the other operand. */
static Inst *foldable_dot(const Function *f, const Inst *add, int k, const int *uses) {
    ValueId v = add->args[k];
    Inst *dot = f->values[v].def;
    if (!dot || dot->op != IR_DOT || uses[v] != 1 || !ir_is_zero(f, dot->args[2]))
        return NULL;
    return ir_type_eq(f->values[v].type, f->values[add->args[1 - k]].type) ? dot : NULL;
}

/* Fold in block b and below. The dot dominates the add, so it sits earlier
 * in b or in an enclosing block: remove it from wherever it is. */
static int fold_block(Function *f, Block *b, int *uses, Block **home) {
    int n = 0;
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            n += fold_block(f, in->regions[r], uses, home);
        if (in->op != IR_ADD)
            continue;
        for (int k = 0; k < 2; k++) {
            Inst *dot = foldable_dot(f, in, k, uses);
            if (!dot)
                continue;
            ValueId acc = in->args[1 - k];
            ValueId *args = arena_alloc(f->arena, sizeof *args * 3);
            args[0] = dot->args[0];
            args[1] = dot->args[1];
            args[2] = acc;
            uses[dot->args[2]]--;
            uses[dot->results[0]] = 0;
            in->op = IR_DOT;
            in->args = args;
            in->nargs = 3;
            in->attr = dot->attr;
            in->span = dot->span; /* the dot's line, as Triton's combine keeps the dot's location */
            Block *db = home[dot->results[0]];
            if (db) {
                ir_remove_inst(db, dot);
                if (db == b) /* it preceded the add in this block: the add moved up */
                    i--;
            }
            n++;
            break;
        }
    }
    return n;
}

static void record_homes(const Block *b, Block **home) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nresults; r++)
            home[in->results[r]] = (Block *)b;
        for (int r = 0; r < in->nregions; r++)
            record_homes(in->regions[r], home);
    }
}

/* x when v is broadcast(expand_dims(x, axis)) broadcast only along axis. */
static ValueId expanded_along(const Function *f, ValueId v, int axis) {
    const Inst *b = f->values[v].def;
    if (!b || b->op != IR_BROADCAST)
        return 0;
    const Inst *e = f->values[b->args[0]].def;
    if (!e || e->op != IR_EXPAND_DIMS || e->attr.axis != axis)
        return 0;
    Type s = f->values[b->args[0]].type, d = f->values[v].type;
    for (int i = 0; i < d.rank; i++)
        if ((s.shape[i] != d.shape[i]) != (i == axis))
            return 0;
    return e->args[0];
}

/* The reduce `in` as dot(x, y, zero), the zero a const put before it at *at. */
static bool mul_reduce_to_dot(Function *f, Block *b, int *at, Inst *in) {
    Type t = f->values[in->args[0]].type;
    const Inst *mul = f->values[in->args[0]].def;
    if (in->op != IR_REDUCE || in->attr.reduce != RED_SUM || in->attr.axis != 1 || in->attr.keep_dims ||
        t.rank != 3 || (t.dtype != DT_F32 && t.dtype != DT_F16) || !mul || mul->op != IR_MUL)
        return false;
    ValueId x = 0, y = 0;
    for (int k = 0; k < 2 && !(x && y); k++) { /* the product either way round: it commutes */
        x = expanded_along(f, mul->args[k], 2);
        y = expanded_along(f, mul->args[1 - k], 0);
    }
    if (!x || !y || t.shape[0] < 16 || t.shape[2] < 16)
        return false;
    Type rt = f->values[in->results[0]].type;
    Inst *z = ir_inst_at(f, b, at, IR_CONST, NULL, 0, &rt, 1, in->span);
    ValueId *args = arena_alloc(f->arena, sizeof *args * 3);
    if (!z || !args)
        return false;
    z->attr.f = 0.0;
    args[0] = x, args[1] = y, args[2] = z->results[0];
    in->op = IR_DOT;
    in->args = args;
    in->nargs = 3;
    in->attr = (Attr){.precision = PREC_IEEE};
    return true;
}

static int mul_reduce_block(Function *f, Block *b) {
    int n = 0;
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            n += mul_reduce_block(f, in->regions[r]);
        n += mul_reduce_to_dot(f, b, &i, in); /* i moves past the new const onto in */
    }
    return n;
}

static bool is_hint(OpCode op) { return op == IR_MULTIPLE_OF || op == IR_MAX_CONTIGUOUS || op == IR_MAX_CONSTANCY; }

/* The hint ops in b and below, in program order. */
static void collect_hints(Block *b, Inst ***hs, int *n, int *cap) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        if (is_hint(in->op) && in->nresults == 1) {
            if (*n == *cap) {
                *cap = *cap ? *cap * 2 : 16;
                Inst **g = realloc(*hs, sizeof *g * (size_t)*cap);
                if (!g)
                    return;
                *hs = g;
            }
            (*hs)[(*n)++] = in;
        }
        for (int r = 0; r < in->nregions; r++)
            collect_hints(in->regions[r], hs, n, cap);
    }
}

/* Move each hint to its operand's definition; see the header. Hints on the
 * same value chain in program order (the second's operand becomes the
 * first's result), so each one still applies. */
static void hoist_hints(Function *f, Block **home) {
    Inst **hs = NULL;
    int n = 0, cap = 0;
    collect_hints(f->body, &hs, &n, &cap);
    for (int k = 0; k < n; k++) {
        Inst *h = hs[k];
        ValueId x = h->args[0], r = h->results[0];
        const Value *xv = &f->values[x];
        if (x <= f->nparams || (!xv->def && !xv->block))
            continue;
        ir_remove_inst(home[r], h);
        Block *tb = xv->def ? home[x] : xv->block;
        int at = xv->def ? ir_inst_index(tb, xv->def) + 1 : 0;
        if (!tb || (xv->def && at == 0)) { /* not found: leave it (never for verified IR) */
            free(hs);
            return;
        }
        ir_insert_insts(f, tb, at, &h, 1);
        home[r] = tb;
        ir_replace_uses(f->body, x, r);
        h->args[0] = x;
    }
    free(hs);
}

static DType dtype_of(const Function *f, ValueId v) { return f->values[v].type.dtype; }

/* Is `in` a conversion between floats to a narrower one? */
static bool narrowing_cast(const Function *f, const Inst *in) {
    if (in->op != IR_CAST)
        return false;
    DType s = dtype_of(f, in->args[0]), t = dtype_of(f, in->results[0]);
    return dt_is_float(s) && dt_is_float(t) && dt_bits(s) > dt_bits(t);
}

/* x when v is cast<wider float>(x) with x of dtype t. */
static ValueId widened_from(const Function *f, ValueId v, DType t) {
    const Inst *c = f->values[v].def;
    if (!c || c->op != IR_CAST || dtype_of(f, c->args[0]) != t)
        return 0;
    DType w = dtype_of(f, v);
    return dt_is_float(t) && dt_is_float(w) && dt_bits(w) > dt_bits(t) ? c->args[0] : 0;
}

/* The f32 add / sub / mul of two f16 values widened, used once (by the cast
 * to f16 to nearest that would fold it), or NULL. */
static const Inst *f16_op_widened(const Function *f, ValueId v, const int *uses) {
    const Inst *op = f->values[v].def;
    if (!op || (op->op != IR_ADD && op->op != IR_SUB && op->op != IR_MUL) || dtype_of(f, v) != DT_F32 ||
        uses[v] != 1)
        return NULL;
    return widened_from(f, op->args[0], DT_F16) && widened_from(f, op->args[1], DT_F16) ? op : NULL;
}

static bool cast_folds(const Function *f, ValueId v, DType t, bool rtz, const int *uses) {
    return widened_from(f, v, t) || (t == DT_F16 && !rtz && f16_op_widened(f, v, uses));
}

/* A walk's replacements, made once at its end (not a walk of the function
 * each, nor a removal from its block each: ir_dce sweeps the ops left
 * without users once): the uses of v read repl[v], followed to its end. */
static ValueId resolved(const ValueId *repl, ValueId n, ValueId v) {
    while (v < n && repl[v])
        v = repl[v];
    return v;
}

static void apply_repl(Block *b, const ValueId *repl, ValueId n) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int a = 0; a < in->nargs; a++)
            in->args[a] = resolved(repl, n, in->args[a]);
        for (int r = 0; r < in->nregions; r++)
            apply_repl(in->regions[r], repl, n);
    }
}

/* The index of v among the results of if-op ifi, both of whose branches
 * end in a yield (y[0], y[1]); -1 if not so. */
static int yield_slot(const Inst *ifi, ValueId v, Inst *y[2]) {
    if (!ifi || ifi->op != IR_IF || ifi->nregions != 2)
        return -1;
    int k = 0;
    while (k < ifi->nresults && ifi->results[k] != v)
        k++;
    for (int r = 0; r < 2; r++) {
        const Block *rb = ifi->regions[r];
        y[r] = rb && rb->ninsts ? rb->insts[rb->ninsts - 1] : NULL;
        if (k == ifi->nresults || !y[r] || y[r]->op != IR_YIELD || k >= y[r]->nargs)
            return -1;
    }
    return k;
}

/* A narrowing cast of an if's result, its only use, put in both branches
 * before their yields when one of them then folds; the if yields the
 * narrow type (repl: the cast's result is the if's). Both new casts are made
 * before either yield changes, so running out of memory leaves the IR as it
 * was (less an unused cast). 1: sunk, 0: not, -1: out of memory. */
static int sink_cast(Function *f, Inst *in, const int *uses, ValueId *repl) {
    ValueId v = in->args[0];
    if (uses[v] != 1)
        return 0;
    Inst *ifi = f->values[v].def, *y[2];
    int k = yield_slot(ifi, v, y);
    DType t = dtype_of(f, in->results[0]);
    if (k < 0 || !(cast_folds(f, y[0]->args[k], t, in->attr.rtz, uses) ||
                   cast_folds(f, y[1]->args[k], t, in->attr.rtz, uses)))
        return 0;
    Type rt = f->values[in->results[0]].type;
    Inst *c[2];
    for (int r = 0; r < 2; r++) {
        Block *rb = ifi->regions[r];
        int at = rb->ninsts - 1;
        if (!(c[r] = ir_inst_at(f, rb, &at, IR_CAST, &y[r]->args[k], 1, &rt, 1, in->span)))
            return -1;
        c[r]->attr = in->attr;
    }
    for (int r = 0; r < 2; r++)
        y[r]->args[k] = c[r]->results[0];
    f->values[v].type = rt;
    repl[in->results[0]] = v; /* the cast, left without users, goes with ir_dce */
    return 1;
}

/* A narrowing cast that folds (see the header): a round trip's result is x
 * (repl); an f16 add / sub / mul of two widened values is done in f16.
 * 1: folded, 0: not. */
static int fold_cast(Function *f, Inst *in, const int *uses, ValueId *repl) {
    ValueId v = in->args[0], res = in->results[0];
    DType t = dtype_of(f, res);
    ValueId x = widened_from(f, v, t);
    if (x) {
        repl[res] = x; /* the cast, left without users, goes with ir_dce */
        return 1;
    }
    const Inst *op = t == DT_F16 && !in->attr.rtz ? f16_op_widened(f, v, uses) : NULL;
    ValueId *args = op ? arena_alloc(f->arena, sizeof *args * 2) : NULL;
    if (!args)
        return 0;
    args[0] = widened_from(f, op->args[0], DT_F16);
    args[1] = widened_from(f, op->args[1], DT_F16);
    in->op = op->op;
    in->args = args;
    in->nargs = 2;
    in->attr = (Attr){0};
    return 1;
}

typedef int (*CastRule)(Function *f, Inst *cast, const int *uses, ValueId *repl);

/* rule applied to each narrowing cast in b and below: how many it rewrote,
 * -1 when it ran out of memory. */
static int each_cast(Function *f, Block *b, CastRule rule, const int *uses, ValueId *repl) {
    int n = 0;
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++) {
            int m = each_cast(f, in->regions[r], rule, uses, repl);
            if (m < 0)
                return -1;
            n += m;
        }
        int m = narrowing_cast(f, in) ? rule(f, in, uses, repl) : 0;
        if (m < 0)
            return -1;
        n += m;
    }
    return n;
}

/* One walk of the narrowing over f with its use counts, its replacements
 * made at the end. -1: out of memory. */
static int narrow_walk(Function *f, CastRule rule) {
    ValueId nv = (ValueId)f->nvalues + 1;
    int *uses = calloc((size_t)nv, sizeof *uses), n = -1;
    ValueId *repl = calloc((size_t)nv, sizeof *repl);
    if (uses && repl) {
        ir_count_uses(f->body, uses);
        n = each_cast(f, f->body, rule, uses, repl);
        apply_repl(f->body, repl, nv);
    }
    free(uses);
    free(repl);
    return n;
}

/* The narrowing rewrite: casts sunk into ifs, then folded (the sunk casts
 * are new values: the second walk counts anew). -1: out of memory. */
static int narrow_casts(Function *f) {
    int sunk = narrow_walk(f, sink_cast), folded = sunk < 0 ? -1 : narrow_walk(f, fold_cast);
    return folded < 0 ? -1 : sunk + folded;
}

bool combine_pass(Diag *d, Function *f) {
    int dots = mul_reduce_block(f, f->body);
    int *uses = calloc((size_t)f->nvalues + 1, sizeof *uses);
    Block **home = calloc((size_t)f->nvalues + 1, sizeof *home);
    if (!uses || !home) {
        free(uses);
        free(home);
        diag_internal(d, "combine: out of memory");
        return false;
    }
    ir_count_uses(f->body, uses);
    record_homes(f->body, home);
    fold_block(f, f->body, uses, home);
    hoist_hints(f, home);
    free(uses);
    free(home);
    int narrowed = narrow_casts(f);
    if (narrowed < 0) {
        diag_internal(d, "combine: out of memory");
        return false;
    }
    if (dots || narrowed)
        ir_dce(f); /* the products the dots replaced, their zeros once folded, the wide ops narrowed */
    return true;
}
