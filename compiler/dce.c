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
 * not marked is_pure) and control flow stay, even when their results are unused. */
#include "ir.h"

#include <stdlib.h>

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
