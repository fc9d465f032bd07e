/* sink.c: under a register cap, values computed before a reduction and read
 * only after it are computed after it (before the layout pass).
 *
 * Row kernels (Liger's layer_norm and rms_norm forwards, Triton's layer-norm
 * tutorial) load the weight row first, then the input row, reduce it to its
 * statistics and only then read the weights. Loaded first, the weights are
 * live across both reductions: Liger's layer_norm forward (bf16, 4096
 * columns, 8 warps) takes 48 registers a thread that way, five CTAs an SM.
 * Loaded after the statistics and capped at 40 (`.maxnreg`), it runs six CTAs
 * an SM without a spill, 3.7% faster (H200, 2026-11-29: 37.6 against 39.0 us;
 * tools/device/lnx_bench.py). Either change alone gains nothing: ptxas takes
 * 48 registers for either order, and the cap alone spills. Without a cap the
 * order is the source's, as Triton keeps it: a load issued later waits longer
 * where nothing else runs on the SM.
 *
 * The cap is the user's (--maxnreg, to tlc or in the library's options) or the
 * runtime's (runtime/gpu.c raise_occupancy: a kernel with a reduction and no
 * dot whose registers limit its CTAs an SM is compiled again at the next
 * occupancy's register count, and kept where this pass moved a load and the
 * driver reports more CTAs an SM and no more local memory).
 *
 * Requires: verified IR before the layout pass; f->maxnreg (else nothing).
 * Ensures:  in every block, an op X that is pure (OPF_PURE, no regions, not
 *           itself a reduction, scan or dot) or a load that is not volatile moves
 *           down to just before the first op of its block reading one of its
 *           results (reading it in a region counts as the op owning the
 *           region), a load no further than the first op after it that may
 *           write memory (stores, atomics, inline asm that is not pure,
 *           barriers, intrinsics, prints, asserts, assumes, any op with
 *           regions), and only where a reduction or scan lies between X and
 *           that place.
 *           Operands still dominate X (they were defined before it); X still
 *           dominates its readers. A load moved past no write reads what it
 *           read before. f->sunk_loads counts the loads moved.
 *
 * Algorithm: the blocks innermost first, each walked backwards, so that an op
 * is placed after every op reading it has been: a load and the casts of its
 * value move as one chain. */
#include "passes.h"

#include <string.h>

static bool is_reduction(const Inst *in) {
    return in->op == IR_REDUCE || in->op == IR_REDUCE_FN || in->op == IR_SCAN;
}

/* A dot stays where it is written: the pipeliner and the wgmma waits place
 * the work around it. */
static bool movable(const Inst *in) {
    if (in->op == IR_LOAD)
        return !in->attr.is_volatile && in->nresults == 1;
    return (ir_ops[in->op].flags & OPF_PURE) && !in->nregions && in->nresults && !is_reduction(in) &&
           in->op != IR_DOT;
}

/* Might a load moved past `in` read something else? Anything but a pure op
 * or a load may write memory; an op with regions counts as writing, whatever
 * they hold. */
static bool may_write(const Inst *in) {
    if (in->op == IR_LOAD)
        return false;
    if (in->op == IR_INLINE_ASM)
        return !in->attr.pure;
    return !(ir_ops[in->op].flags & OPF_PURE) || in->nregions;
}

static bool reads_block(const Block *b, const Inst *x);

/* Does `in` (or an op in its regions) read a result of x? */
static bool reads(const Inst *in, const Inst *x) {
    for (int a = 0; a < in->nargs; a++)
        for (int r = 0; r < x->nresults; r++)
            if (in->args[a] == x->results[r])
                return true;
    for (int g = 0; g < in->nregions; g++)
        if (in->regions[g] && reads_block(in->regions[g], x))
            return true;
    return false;
}

static bool reads_block(const Block *b, const Inst *x) {
    for (int i = 0; i < b->ninsts; i++)
        if (reads(b->insts[i], x))
            return true;
    return false;
}

/* Where b's op at index i moves to (the index it will be inserted before), or
 * i + 1 to stay. */
static int place(const Block *b, int i) {
    const Inst *x = b->insts[i];
    int to = i + 1;
    bool crossed = false, found = false;
    for (; to < b->ninsts && !found; to++) {
        const Inst *in = b->insts[to];
        found = reads(in, x) || (x->op == IR_LOAD && may_write(in));
        if (!found && is_reduction(in))
            crossed = true;
    }
    return crossed && found ? to - 1 : i + 1;
}

static void sink_block(Function *f, Block *b) {
    for (int i = 0; i < b->ninsts; i++)
        for (int g = 0; g < b->insts[i]->nregions; g++)
            if (b->insts[i]->regions[g])
                sink_block(f, b->insts[i]->regions[g]);
    for (int i = b->ninsts - 1; i >= 0; i--) {
        Inst *x = b->insts[i];
        if (!movable(x))
            continue;
        int to = place(b, i);
        if (to == i + 1)
            continue;
        memmove(&b->insts[i], &b->insts[i + 1], sizeof *b->insts * (size_t)(to - 1 - i));
        b->insts[to - 1] = x;
        f->sunk_loads += x->op == IR_LOAD;
    }
}

bool sink_pass(Diag *d, Function *f) {
    (void)d;
    if (f->maxnreg > 0)
        sink_block(f, f->body);
    return true;
}
