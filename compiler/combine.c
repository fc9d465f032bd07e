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
 *           every operand still dominates it; the old dot is removed.
 *
 * Why: `acc += tl.dot(a, b)` reaches the IR as a dot into a fresh zero block
 * followed by an elementwise add. Lowered literally, that keeps two
 * accumulators live (twice the registers of the MMA tile) and adds every
 * element once more per K step. The dot's own accumulator operand does the
 * add for free. The summation order of a dot is unspecified (docs/ir.md), so
 * adding acc first is within its meaning; for integers the result is exact. */
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

bool combine_pass(Diag *d, Function *f) {
    (void)d;
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
    free(uses);
    free(home);
    return true;
}
