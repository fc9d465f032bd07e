/* pipeline_int.h: what the pipeliner's files share (pipeline.c, the loops
 * whose loads feed dots and the pass; pipeline_rows.c, the row loops). */
#ifndef TL_PIPELINE_INT_H
#define TL_PIPELINE_INT_H

#include <string.h>

#include "layout.h"
#include "passes.h"

typedef struct Pipe {
    Diag *d;
    Function *f;
    const AxisInfo *axis;
    int n0;               /* values before the pass: axis and the use counts cover these */
    int *uses;            /* per value: operand slots reading it */
    Block **home;         /* per value: the block defining it */
    ValueId *map;         /* clone map: original -> copy (0: itself) */
    uint8_t *in_slice;    /* per value: computed by the address slice */
    int max_shared;
    bool wgmma;           /* sm_90a: a dot fed by two rings may become wgmma (MMA v3), and */
                          /* a host descriptor's ring may be filled by TMA */
    bool staged;          /* a wgmma's loop-invariant A went to shared memory (stage_a) */
    struct Staged {       /* stage_a's buffers: a later loop of the same block reuses one */
        Block *b;
        ValueId src, load;
    } stg[8];
    int nstg;
} Pipe;

static inline Type vtype(const Pipe *P, ValueId v) { return P->f->values[v].type; }

static inline void remove_at(Block *b, int i) {
    memmove(b->insts + i, b->insts + i + 1, sizeof *b->insts * (size_t)(b->ninsts - i - 1));
    b->ninsts--;
}

/* Where new ops go: block b before index at (which advances). */
typedef struct Cursor {
    Block *b;
    int at;
} Cursor;

static inline Inst *put(Pipe *P, Cursor *c, OpCode op, const ValueId *args, int n, const Type *t, int layout, Span sp) {
    Inst *in = ir_inst_at(P->f, c->b, &c->at, op, args, n, t, t ? 1 : 0, sp);
    if (t)
        P->f->values[in->results[0]].layout = layout;
    return in;
}

static inline ValueId put1(Pipe *P, Cursor *c, OpCode op, const ValueId *args, int n, Type t, int layout, Span sp) {
    return put(P, c, op, args, n, &t, layout, sp)->results[0];
}

static inline ValueId put_const(Pipe *P, Cursor *c, Type t, int64_t v, Span sp) {
    Inst *in = put(P, c, IR_CONST, NULL, 0, &t, 0, sp);
    in->attr.i = v;
    return in->results[0];
}

static inline ValueId put_cmp(Pipe *P, Cursor *c, int pred, ValueId a, ValueId b, Span sp) {
    Inst *in = put(P, c, IR_CMP, (ValueId[]){a, b}, 2, (Type[]){ir_scalar(DT_I1)}, 0, sp);
    in->attr.pred = pred;
    return in->results[0];
}

/* Bytes per copy of a load, *ragged where its mask keeps a prefix of each
 * vector (pipeline.c). */
int copy_bytes(Pipe *P, const Inst *ld, bool *ragged);
/* Pipelines one loop whose loads feed dots, or every load of a tl.range(...,
 * num_stages=N) loop; leaves any other as it is (pipeline.c). */
void pipeline_loop(Pipe *P, Block *parent, Inst *loop);
/* A row loop (no dot), pipelined behind a check that its stores miss its
 * loads; *pos: the index of the if it became (pipeline_rows.c). */
void row_loop(Pipe *P, Block *parent, int *pos);

#endif
