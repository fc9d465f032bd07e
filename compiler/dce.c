/* dce.c: dead code elimination, before the GPU passes.
 *
 * Sema emits every expression a kernel writes, used or not (`w = a[:, None]
 * + a[None, :]` that nothing reads). The layout pass gives layouts to the
 * values it reaches from the anchors (loads, stores, dots, reductions), so a
 * block nobody reads would reach the lowering without one. Rather than teach
 * every pass about values that do not matter, they are removed first.
 *
 * Algorithm: count the uses of every value (operands anywhere in the
 * function, terminators of regions included), then walk the blocks innermost
 * first and backwards, deleting each pure op (OPF_PURE) none of whose results
 * is used; deleting an op releases the uses of its operands and of the ops in
 * its regions, so one backward walk removes whole dead chains. The walk
 * repeats until nothing changes (an op in a region may become dead only after
 * a later op of the enclosing block was removed).
 *
 * Ops with effects (memory, atomics, prints, asserts, barriers, inline asm
 * not marked is_pure) and control flow stay, even when their results are unused.
 *
 * ir_dce_loop, for the passes that rewrite a loop (pipeline.c, warpspec.c),
 * also removes the loop's carried values nothing needs: a value whose only
 * reader is the op computing its own next value is dead, which the use
 * counts above cannot see. */
#include "ir.h"

#include <stdlib.h>
#include <string.h>

/* The uses an op and its regions hold go away with it. */
static void release(const Inst *in, int *uses) {
    for (int a = 0; a < in->nargs; a++)
        uses[in->args[a]]--;
    for (int r = 0; r < in->nregions; r++) {
        const Block *b = in->regions[r];
        for (int i = 0; b && i < b->ninsts; i++)
            release(b->insts[i], uses);
    }
}

static bool dead(const Inst *in, const int *uses) {
    bool pure = in->op == IR_INLINE_ASM ? in->attr.pure : ir_ops[in->op].flags & OPF_PURE;
    if (!pure || !in->nresults)
        return false;
    for (int i = 0; i < in->nresults; i++)
        if (uses[in->results[i]])
            return false;
    return true;
}

/* One backward walk of b (regions first); returns the number of ops removed. */
static int sweep(Function *f, Block *b, int *uses) {
    int removed = 0;
    for (int i = b->ninsts - 1; i >= 0; i--) {
        Inst *in = b->insts[i];
        if (dead(in, uses)) {
            release(in, uses);
            for (int r = 0; r < in->nresults; r++)
                f->values[in->results[r]].def = NULL;
            b->insts[i] = NULL;
            removed++;
            continue;
        }
        for (int r = 0; r < in->nregions; r++)
            if (in->regions[r])
                removed += sweep(f, in->regions[r], uses);
    }
    int n = 0;
    for (int i = 0; i < b->ninsts; i++)
        if (b->insts[i])
            b->insts[n++] = b->insts[i];
    b->ninsts = n;
    return removed;
}

int ir_dce(Function *f) {
    int *uses = calloc((size_t)f->nvalues + 1, sizeof(int));
    if (!uses)
        return 0;
    ir_count_uses(f->body, uses);
    int total = 0, n;
    while ((n = sweep(f, f->body, uses)))
        total += n;
    free(uses);
    return total;
}

/* The values of b's op `in` and of the ops of its regions a live op reads:
 * everything a nested region reads from around it is live (false: out of
 * memory, nothing marked). */
static bool live_region_reads(const Function *f, const Inst *in, uint8_t *live, bool *changed) {
    int *u = calloc((size_t)f->nvalues, sizeof *u);
    if (!u)
        return false;
    for (int r = 0; r < in->nregions; r++)
        ir_count_uses(in->regions[r], u);
    for (ValueId v = 1; v < f->nvalues; v++)
        if (u[v] && !live[v])
            live[v] = 1, *changed = true;
    free(u);
    return true;
}

/* Liveness in loop's body B to a fixed point: ops with effects or regions
 * are live, and so is what a live op or a live carried value (car_live, its
 * result read after the loop or its block argument read by a live op)
 * needs; the yield itself makes nothing live. */
static void loop_liveness(const Function *f, const Inst *loop, uint8_t *live, uint8_t *car_live) {
    const Block *B = loop->regions[0];
    const Inst *y = B->insts[B->ninsts - 1];
    for (bool changed = true; changed;) {
        changed = false;
        for (int i = B->ninsts - 1; i >= 0; i--) {
            const Inst *in = B->insts[i];
            bool l = in == y ? false : !(ir_ops[in->op].flags & OPF_PURE) || in->nregions;
            for (int r = 0; r < in->nresults && !l; r++)
                l = live[in->results[r]];
            if (!l)
                continue;
            for (int a = 0; a < in->nargs; a++)
                if (!live[in->args[a]])
                    live[in->args[a]] = 1, changed = true;
            if (in->nregions)
                live_region_reads(f, in, live, &changed);
        }
        for (int k = 0; k < loop->nresults; k++) {
            if (!car_live[k] && live[B->args[k + 1]])
                car_live[k] = 1, changed = true;
            if (car_live[k] && k < y->nargs && !live[y->args[k]])
                live[y->args[k]] = 1, changed = true;
        }
    }
}

void ir_dce_loop(Function *f, Inst *loop) {
    Block *B = loop->regions[0];
    Inst *y = B->insts[B->ninsts - 1];
    int n = f->nvalues, ncar = loop->nresults;
    uint8_t *live = calloc((size_t)n, 1), *car_live = calloc((size_t)ncar + 1, 1);
    int *uses = calloc((size_t)n, sizeof *uses);
    if (!live || !car_live || !uses)
        goto out; /* nothing removed: the IR stays correct */
    ir_count_uses(f->body, uses);
    for (int k = 0; k < ncar; k++)
        car_live[k] = uses[loop->results[k]] > 0;
    loop_liveness(f, loop, live, car_live);
    /* drop dead carried values (from the end so indices stay valid) */
    for (int k = ncar - 1; k >= 0; k--) {
        if (car_live[k])
            continue;
        memmove(loop->args + 3 + k, loop->args + 4 + k, sizeof *loop->args * (size_t)(loop->nargs - 4 - k));
        loop->nargs--;
        memmove(loop->results + k, loop->results + k + 1, sizeof *loop->results * (size_t)(loop->nresults - 1 - k));
        loop->nresults--;
        memmove(B->args + 1 + k, B->args + 2 + k, sizeof *B->args * (size_t)(B->nargs - 2 - k));
        B->nargs--;
        memmove(y->args + k, y->args + k + 1, sizeof *y->args * (size_t)(y->nargs - 1 - k));
        y->nargs--;
    }
    for (int i = B->ninsts - 1; i >= 0; i--) {
        Inst *in = B->insts[i];
        if (in == y || !(ir_ops[in->op].flags & OPF_PURE) || in->nregions || in->nresults != 1 || live[in->results[0]])
            continue;
        memmove(B->insts + i, B->insts + i + 1, sizeof *B->insts * (size_t)(B->ninsts - i - 1));
        B->ninsts--;
    }
out:
    free(live), free(car_live), free(uses);
}
