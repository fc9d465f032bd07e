/* smem.c: shared memory: where every buffer and scratch area goes
 * (smem_alloc_pass), and where the threads must meet (barrier_pass).
 *
 * ---- smem-alloc ----
 * Requires: laid-out IR (after the layout and pipeline passes).
 * Ensures:  every local_alloc has its byte offset (attr.offset); every op
 *           whose lowering needs shared scratch (a convert_layout or reshape
 *           that moves data between threads, a reduction across warps, a dot
 *           staging its operands, an atomic whose old values are replicated)
 *           has Inst.scratch_off / scratch_size; Function.shared_bytes is
 *           the dynamic shared memory of a launch, checked here, and only
 *           here, against the arch's limit (a source error at the op that
 *           needs the most).
 * Algorithm: number the ops in program order; a buffer lives from its
 * local_alloc to its last use (through memdesc_index views), and a use inside
 * a loop that the buffer was made outside of keeps it alive to the loop's end
 * (the next iteration reads it again); an op's scratch lives at that op
 * alone. Then first fit in program order: each item takes the lowest offset
 * (16-byte aligned, buffers 128) that overlaps no item alive at the same
 * time. Buffers of a pipelined loop are dead after the loop, so the
 * epilogue's convert reuses their bytes.
 * The scratch sizes here are bounds on what the lowering uses (the element
 * bytes of the block, plus 16 bytes per row of padding); the lowering checks
 * its exact figure against them (an internal error if it were larger), so
 * the launch's figure has one owner.
 *
 * ---- barriers ----
 * Requires: smem-alloc ran.
 * Ensures:  a `barrier` (bar.sync) between any two accesses of overlapping
 *           shared memory by different threads where one of them writes,
 *           and none elsewhere: a `barrier` op goes before an access only
 *           when an earlier one is pending; scratch ops keep the barrier
 *           between their own writes and reads, in their lowering.
 * Algorithm (Triton's Membar): walk the ops in order with the set of
 * accesses since the last barrier (ranges, read or write); an op whose
 * access conflicts with the set gets a barrier first, which empties it.
 * Loops run their body to a fixed point from the union of the entry state
 * and the state at the end of the body; if-branches start from the same
 * state and join. Async copies write in the background: their ranges stay
 * "in flight" until an async_wait, and only then does a barrier make them
 * visible. A warp_specialize gets one barrier before it when anything is
 * pending (its producer's warps meet the others only there) and its region
 * none: the producer's copies and the consumers' reads are ordered by
 * mbarriers. (A local_load of a stage whose copy is still in flight is the
 * pipeliner's to prevent, by its async_wait; with whole-buffer ranges this
 * pass could not tell stages apart.) */
#include "passes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"

/* ---- scratch bounds ---- */

static int64_t align_up(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

static int mem_bytes(DType dt) { return dt == DT_I1 ? 1 : dt_bits(dt) / 8; }

int64_t smem_small_mma_bytes(int M, int N, int K, int64_t *boff, int64_t *doff) {
    *boff = align_up((int64_t)M * K * 2, 16);
    *doff = *boff + align_up((int64_t)K * N * 2, 16);
    return *doff + (int64_t)M * N * 4;
}

/* The slots llvm_scan.c's step 3 stores for each operand of a scan: one per
 * (row, repetition, warp along the axis), in the result's thread map.
 * Repetitions x warps = S / (C * nl) <= S / nl (the chunk C >= 1, nl the
 * lanes along the axis); none when one warp holds the whole axis (no step
 * 3). Not laid out: rows x max(S, num_warps). */
static int64_t scan_slots(const Function *f, const Inst *in) {
    ValueId v = in->results[0];
    Type t = f->values[v].type;
    int axis = in->attr.axis, li = f->values[v].layout, S = t.shape[axis];
    int64_t rows = ir_numel(t) / S;
    if (S <= 1)
        return 0;
    const ThreadMap *tm = li > 0 && li < f->nlayouts && !layout_is_shared(f->layouts[li].kind)
                              ? layout_thread_map(f, li, t, f->num_warps)
                              : NULL;
    if (!tm)
        return rows * (S > f->num_warps ? S : f->num_warps);
    int nl = layout_distinct(tm->dim[axis].lmod, tm->dim[axis].lmul, S);
    int nw = layout_distinct(tm->dim[axis].wmod, tm->dim[axis].wmul, S);
    return nw > 1 ? rows * (S / nl) : 0;
}

/* A block moved between thread maps through shared memory: its elements and
 * at most 16 bytes of padding per row where rows are padded (layout_row_padded:
 * they span the 32 banks a whole number of times). (A row of two fp32, as
 * an epilogue's split of the accumulator makes, is never padded: counting
 * 16 bytes for it tripled the bound and cost a matmul its pipeline.) */
static int64_t move_bound(Type t) {
    int64_t numel = ir_numel(t), last = t.rank ? t.shape[t.rank - 1] : 1;
    int bytes = mem_bytes((DType)t.dtype);
    bool padded = layout_row_padded(t.rank, (int)last, bytes);
    return align_up(numel * bytes + (padded ? numel / last * 16 : 0), 16);
}

/* A dot operand staged for ldmatrix (llvm_dot.c's ld_bytes): 16 bytes of
 * padding on every row whose bytes are a multiple of 32. Bounded by 16 a
 * row. */
static int64_t ldmatrix_bound(Type t) {
    int64_t numel = ir_numel(t), rows = t.rank >= 2 ? numel / t.shape[t.rank - 1] : 1;
    return align_up(numel * mem_bytes((DType)t.dtype) + (t.rank >= 2 ? rows * 16 : 0), 16);
}

/* How many warps a reduction of v along axis combines (llvm_reduce.c's step
 * 3 needs shared memory only above 1); num_warps where v is not laid out. */
static int warps_along(const Function *f, ValueId v, int axis) {
    Type t = f->values[v].type;
    int li = f->values[v].layout;
    if (li <= 0 || li >= f->nlayouts || layout_is_shared(f->layouts[li].kind) || axis < 0 || axis >= t.rank)
        return f->num_warps;
    const ThreadMap *tm = layout_thread_map(f, li, t, f->num_warps);
    return tm ? layout_distinct(tm->dim[axis].wmod, tm->dim[axis].wmul, t.shape[axis]) : f->num_warps;
}

/* The largest layout move an op with several operands or results makes
 * (llvm_regs_like, llvm_move): its operands from first_arg on moved into
 * layout l0, where the lowering computes, and its results moved out of it.
 * A reduction's result (axis >= 0) is computed in l0's slice along the axis
 * and moves only when laid out otherwise. */
static int64_t moves_bound(const Function *f, const Inst *in, int l0, int first_arg, int axis) {
    int64_t m = 0;
    for (int k = first_arg; k < in->nargs + in->nresults; k++) {
        bool res = k >= in->nargs;
        ValueId v = res ? in->results[k - in->nargs] : in->args[k];
        int lk = f->values[v].layout;
        Type t = f->values[v].type;
        bool moves;
        if (res && axis >= 0) /* against the slice of l0 along the axis */
            moves = !(lk > 0 && lk < f->nlayouts && f->layouts[lk].kind == LAYOUT_SLICE &&
                      f->layouts[lk].parent == l0 && f->layouts[lk].dim == axis);
        else
            moves = lk != l0 && !layout_same_map(f, lk, l0, t, f->num_warps);
        if (t.rank && moves) {
            int64_t b = move_bound(t);
            m = b > m ? b : m;
        }
    }
    return m;
}

int64_t smem_scratch_bound(const Function *f, const Inst *in) {
    switch (in->op) {
    case IR_TMAP_CREATE: /* the map is written here, then copied out (llvm_shared.c) */
        return 128;
    case IR_CONVERT_LAYOUT: {
        ValueId s = in->args[0], r = in->results[0];
        Type t = f->values[s].type;
        if (!t.rank || layout_same_map(f, f->values[s].layout, f->values[r].layout, t, f->num_warps))
            return 0;
        int rl = f->values[r].layout; /* into a dot operand: perhaps staged for ldmatrix (llvm_dot.c) */
        bool op = rl > 0 && rl < f->nlayouts && f->layouts[rl].kind == LAYOUT_DOT_OPERAND;
        return op ? ldmatrix_bound(t) : move_bound(t);
    }
    case IR_TRANS: { /* the permuted blocked layout keeps every register where it is */
        int a = f->values[in->args[0]].layout, r = f->values[in->results[0]].layout;
        if (a > 0 && r > 0 && a < f->nlayouts && r < f->nlayouts && f->layouts[a].kind == LAYOUT_BLOCKED &&
            f->layouts[r].kind == LAYOUT_BLOCKED) {
            const Layout *x = &f->layouts[a], *y = &f->layouts[r];
            bool same = x->rank == y->rank;
            int inv[IR_MAX_RANK] = {0};
            for (int d = 0; d < x->rank; d++)
                if (in->attr.perm[d] >= 0 && in->attr.perm[d] < IR_MAX_RANK)
                    inv[in->attr.perm[d]] = d;
            for (int d = 0; d < x->rank && same; d++) {
                int p = in->attr.perm[d];
                same &= y->order[d] == inv[x->order[d]];
                same &= y->size_per_thread[d] == x->size_per_thread[p] && y->threads_per_warp[d] == x->threads_per_warp[p] &&
                        y->warps_per_cta[d] == x->warps_per_cta[p];
            }
            if (same)
                return 0;
        }
        return f->values[in->args[0]].type.rank ? move_bound(f->values[in->args[0]].type) : 0;
    }
    case IR_RESHAPE:
        return f->values[in->args[0]].type.rank ? move_bound(f->values[in->args[0]].type) : 0;
    case IR_EXTRACT: { /* renamed, or through shared memory as a convert (llvm_move_at) */
        Type t = f->values[in->args[0]].type;
        int a = f->values[in->args[0]].layout, r = f->values[in->results[0]].layout;
        if (a == r && layout_extract_renames(f, a, t, f->values[in->results[0]].type, in->attr.axis, in->attr.start,
                                             f->num_warps))
            return 0;
        return move_bound(t);
    }
    case IR_REDUCE: {
        Type t = f->values[in->args[0]].type;
        if (!t.rank)
            return 0;
        if (warps_along(f, in->args[0], in->attr.axis) == 1) { /* lanes and registers only */
            Type rt = f->values[in->results[0]].type;
            int rl = f->values[in->results[0]].layout;
            /* into the input's slice along the axis: where the shuffles left
             * the values (llvm_reduce.c's step 4 renames them) */
            if (!in->attr.keep_dims && rl > 0 && rl < f->nlayouts && f->layouts[rl].kind == LAYOUT_SLICE &&
                f->layouts[rl].parent == f->values[in->args[0]].layout && f->layouts[rl].dim == in->attr.axis)
                return 0;
            return rt.rank ? align_up(move_bound(ir_with_dtype(rt, mem_bytes((DType)t.dtype) > 4 ? DT_F64 : DT_F32)), 16) : 0;
        }
        int64_t rest = ir_numel(t) / t.shape[in->attr.axis], ct = mem_bytes((DType)t.dtype) > 4 ? 8 : 4;
        int64_t across = align_up(rest * f->num_warps * ct, 4) + rest * f->num_warps * 4;
        Type rt = f->values[in->results[0]].type;
        int64_t out = rt.rank ? move_bound(ir_with_dtype(rt, ct == 8 ? DT_F64 : DT_F32)) : 0;
        return align_up(across > out ? across : out, 16);
    }
    case IR_DOT: {
        Type a = f->values[in->args[0]].type, b = f->values[in->args[1]].type, c = f->values[in->args[2]].type;
        if (a.rank != 2 && a.rank != 3)
            return 0;
        int64_t ops = 0;
        for (int k = 0; k < 2; k++) { /* operand converts the dot does itself (ldmatrix) */
            const Inst *def = f->values[in->args[k]].def;
            if (def && def->op == IR_CONVERT_LAYOUT)
                ops += ldmatrix_bound(f->values[in->args[k]].type);
        }
        /* a dot whose operands are not both laid out for it runs as the FMA
         * loop that stages them (llvm_lower_dot): an FMA dot, and an mma one
         * whose operand is another dot's accumulator in its mma layout (the
         * layout pass leaves that in place); wgmma reads its own buffers, and
         * an FMA dot from the pipeliner's rings (DOT_OPERAND both) reads those */
        int rl = f->values[in->results[0]].layout, al = f->values[in->args[0]].layout;
        int bl = f->values[in->args[1]].layout;
        bool wgmma = layout_is_wgmma(f, rl);
        bool regs = al > 0 && al < f->nlayouts && f->layouts[al].kind == LAYOUT_DOT_OPERAND && bl > 0 &&
                    bl < f->nlayouts && f->layouts[bl].kind == LAYOUT_DOT_OPERAND;
        int64_t ct = mem_bytes((DType)c.dtype) > 4 ? 8 : 4, fma = 0;
        /* (e4m3 / e5m2 dots on an mma layout are mma.sync on every arch:
         * native, or converted to fp16; e4b15 never gets one) */
        bool fp8 = a.dtype == DT_F8E4NV || a.dtype == DT_F8E5 || a.dtype == DT_F8E4B15;
        if ((!wgmma && !regs) || a.rank == 3) /* a batched dot is always that loop */
            fma = align_up(ir_numel(a) * ct, 16) + ir_numel(b) * ct;
        /* a 16-bit or fp8 dot below one mma tile: the tensor cores through
         * shared memory (lower_mma_small), where the arch has them */
        int M = a.shape[a.rank - 2], K = a.shape[a.rank - 1], N = b.shape[b.rank - 1];
        if (a.rank == 2 && (M < 16 || N < 8) && K % 16 == 0 && (dt_bits(a.dtype) == 16 || fp8)) {
            int64_t bo, dof, small = smem_small_mma_bytes(M, N, K, &bo, &dof);
            fma = small > fma ? small : fma;
        }
        int64_t acc = f->values[in->args[2]].layout != f->values[in->results[0]].layout ? move_bound(c) : 0;
        int64_t m = ops > fma ? ops : fma;
        return align_up(m > acc ? m : acc, 16);
    }
    case IR_SCAN: case IR_REDUCE_FN: {
        /* llvm_scan.c / llvm_reduce.c: each warp's partial of every row (for
         * a scan, of each repeat along the axis too), one array per operand,
         * values in at most 8 bytes */
        Type t = f->values[in->args[0]].type;
        if (!t.rank)
            return 0;
        int64_t moves = moves_bound(f, in, f->values[in->args[0]].layout, 1,
                                    in->op == IR_REDUCE_FN ? in->attr.axis : -1);
        if (in->op == IR_REDUCE_FN && warps_along(f, in->args[0], in->attr.axis) == 1)
            return moves; /* a reduction inside each warp needs no partials */
        int64_t slots = in->op == IR_SCAN ? scan_slots(f, in) : ir_numel(t) / t.shape[in->attr.axis] * f->num_warps;
        int64_t partials = align_up(in->nargs * align_up(slots * 8, 8), 16);
        return partials > moves ? partials : moves;
    }
    case IR_INLINE_ASM: case IR_MAP_FN: case IR_EXTERN: /* llvm_extern.c: all in the first result's layout */
        return in->nresults ? moves_bound(f, in, f->values[in->results[0]].layout, 0, -1) : 0;
    case IR_GATHER: { /* the whole source, row-major; none for partners in registers or lanes */
        int *plan = malloc(sizeof(int) * LAYOUT_MAX_REGS), m; /* 32 KB: not the stack */
        bool xor = plan && layout_gather_xor(f, in, plan, &m);
        free(plan);
        if (xor)
            return 0;
        Type t = f->values[in->args[0]].type;
        return align_up(ir_numel(t) * mem_bytes((DType)t.dtype), 16);
    }
    case IR_HISTOGRAM: /* one i32 counter per bin */
        return align_up(ir_numel(f->values[in->results[0]].type) * 4, 16);
    case IR_ATOMIC_RMW: case IR_ATOMIC_CAS: {
        Type t = f->values[in->results[0]].type;
        return align_up(ir_numel(t) * mem_bytes((DType)t.dtype), 16);
    }
    default:
        return 0;
    }
}

/* ---- liveness ---- */

typedef struct Item {
    Inst *in;          /* the local_alloc, or the op with scratch */
    int start, end;    /* program positions, inclusive */
    int64_t size, off;
    int align;
} Item;

typedef struct Alloc {
    Function *f;
    int pos;
    int *def_pos, *last;   /* per value */
    ValueId *root;         /* per value: the local_alloc a buffer view comes from */
    Inst **loop_of;        /* per value: the last outermost loop a use is in that the def is not */
    int *loop_start;       /* per value: that loop's start */
    struct { Inst *in; int start, end; } *loops;
    int nloops, cap_loops;
    Item *items;
    int nitems, cap_items;
    bool oom;
} Alloc;

typedef struct LoopCtx {
    Inst *in;
    int start;
    const struct LoopCtx *up;
} LoopCtx;

static void add_item(Alloc *A, Item it) {
    if (A->nitems == A->cap_items) {
        A->cap_items = A->cap_items ? 2 * A->cap_items : 16;
        Item *n = realloc(A->items, sizeof *n * (size_t)A->cap_items);
        if (!n) {
            A->oom = true;
            return;
        }
        A->items = n;
    }
    A->items[A->nitems++] = it;
}

/* A local_load into a wgmma operand's layout is the buffer's address, which
 * the dot reads (llvm_shared.c): its uses keep the buffer alive. */
static bool wgmma_operand(const Function *f, const Inst *in) {
    return in->op == IR_LOCAL_LOAD && layout_is_wgmma(f, f->values[in->results[0]].layout);
}

static void use(Alloc *A, ValueId v, int p, const LoopCtx *lc) {
    ValueId b = A->root[v];
    if (!b)
        return;
    if (p > A->last[b])
        A->last[b] = p;
    const LoopCtx *outer = NULL; /* the outermost loop around this use entered after the buffer was made */
    for (const LoopCtx *l = lc; l && l->start > A->def_pos[b]; l = l->up)
        outer = l;
    /* of two such loops the later (a producer's loop, then its consumers'):
     * they are disjoint, so the later ends later */
    if (outer && (!A->loop_of[b] || outer->start > A->loop_start[b])) {
        A->loop_of[b] = outer->in;
        A->loop_start[b] = outer->start;
    }
}

static void walk(Alloc *A, Block *blk, const LoopCtx *lc) {
    Function *f = A->f;
    for (int i = 0; blk && i < blk->ninsts; i++) {
        Inst *in = blk->insts[i];
        int p = A->pos++;
        for (int k = 0; k < in->nargs; k++)
            use(A, in->args[k], p, lc);
        if (in->op == IR_LOCAL_ALLOC) {
            ValueId r = in->results[0];
            A->root[r] = r;
            A->def_pos[r] = A->last[r] = p;
        } else if (in->op == IR_MEMDESC_INDEX || in->op == IR_MEMDESC_TRANS || wgmma_operand(f, in)) {
            A->root[in->results[0]] = A->root[in->args[0]];
        }
        int64_t s = smem_scratch_bound(f, in);
        in->scratch_off = 0;
        in->scratch_size = 0;
        if (s > 0)
            add_item(A, (Item){.in = in, .start = p, .end = p, .size = s, .align = in->op == IR_TMAP_CREATE ? 128 : 16});
        if (in->nregions) {
            bool loop = in->op == IR_FOR || in->op == IR_WHILE;
            LoopCtx here = {in, p, lc};
            for (int r = 0; r < in->nregions; r++)
                walk(A, in->regions[r], loop ? &here : lc);
            if (loop) {
                if (A->nloops == A->cap_loops) {
                    A->cap_loops = A->cap_loops ? 2 * A->cap_loops : 8;
                    void *n = realloc(A->loops, sizeof *A->loops * (size_t)A->cap_loops);
                    if (!n) {
                        A->oom = true;
                        return;
                    }
                    A->loops = n;
                }
                A->loops[A->nloops].in = in;
                A->loops[A->nloops].start = p;
                A->loops[A->nloops++].end = A->pos - 1;
            }
        }
    }
}

static int loop_end(const Alloc *A, const Inst *loop) {
    for (int i = 0; i < A->nloops; i++)
        if (A->loops[i].in == loop)
            return A->loops[i].end;
    return 0;
}

static int by_start(const void *a, const void *b) {
    const Item *x = a, *y = b;
    return x->start != y->start ? (x->start > y->start) - (x->start < y->start) : (x->size < y->size) - (x->size > y->size);
}

/* The lowest offset (aligned) where [off, off+size) misses every placed item
 * alive at the same time as it. */
static int64_t first_fit(const Item *items, int n, const Item *it) {
    int64_t off = 0;
    for (bool moved = true; moved;) {
        moved = false;
        for (int j = 0; j < n; j++) {
            const Item *o = &items[j];
            if (o->end < it->start || o->start > it->end)
                continue;
            if (off < o->off + o->size && o->off < off + it->size) {
                off = align_up(o->off + o->size, it->align);
                moved = true;
            }
        }
    }
    return off;
}

bool smem_alloc_pass(Diag *d, Function *f, int max_shared) {
    Alloc A = {.f = f};
    size_t n = (size_t)f->nvalues + 1;
    A.def_pos = calloc(n, sizeof *A.def_pos);
    A.last = calloc(n, sizeof *A.last);
    A.root = calloc(n, sizeof *A.root);
    A.loop_of = calloc(n, sizeof *A.loop_of);
    A.loop_start = calloc(n, sizeof *A.loop_start);
    bool ok = A.def_pos && A.last && A.root && A.loop_of && A.loop_start;
    if (ok)
        walk(&A, f->body, NULL);
    for (ValueId v = 1; ok && v < f->nvalues; v++) {
        if (A.root[v] != v)
            continue;
        Inst *al = f->values[v].def;
        Type t = f->values[v].type;
        int end = A.last[v];
        if (A.loop_of[v] && loop_end(&A, A.loop_of[v]) > end)
            end = loop_end(&A, A.loop_of[v]);
        int li = f->values[v].layout;
        bool nvmma = li > 0 && li < f->nlayouts && f->layouts[li].kind == LAYOUT_NVMMA;
        add_item(&A, (Item){.in = al, .start = A.def_pos[v], .end = end,
                            .size = align_up(ir_numel(t) * mem_bytes((DType)t.dtype), 16), .align = nvmma ? 1024 : 128});
    }
    ok = ok && !A.oom;
    int64_t total = 0;
    Inst *worst = NULL;
    if (ok) {
        if (A.nitems)
            qsort(A.items, (size_t)A.nitems, sizeof *A.items, by_start);
        for (int i = 0; i < A.nitems; i++) {
            Item *it = &A.items[i];
            it->off = first_fit(A.items, i, it);
            if (it->off + it->size > total) {
                total = it->off + it->size;
                worst = it->in;
            }
            if (it->in->op == IR_LOCAL_ALLOC) {
                it->in->attr.offset = (int)it->off;
            } else {
                it->in->scratch_off = (int)it->off;
                it->in->scratch_size = (int)it->size;
            }
        }
    } else {
        diag_internal(d, "smem-alloc: out of memory");
    }
    free(A.def_pos), free(A.last), free(A.root), free(A.loop_of), free(A.loop_start), free(A.loops), free(A.items);
    if (!ok)
        return false;
    f->shared_bytes = (int)(total > 0x7fffffff ? 0x7fffffff : align_up(total, 16));
    f->smem_allocated = true;
    if (max_shared > 0 && total > max_shared) {
        if (worst->op == IR_LOCAL_ALLOC)
            diag_error(d, f->src, worst->span,
                       "the pipelined loads need %lld bytes of shared memory, more than the %d available; "
                       "use fewer stages or smaller blocks", (long long)total, max_shared);
        else
            diag_error(d, f->src, worst->span,
                       "%s needs %lld bytes of shared memory, more than the %d available; use a smaller block",
                       ir_ops[worst->op].name, (long long)total, max_shared);
        return false;
    }
    return true;
}

/* ---- barriers ---- */

/* An access of a range: a thread's read or write; a copy in flight, from
 * cp.async (ACC_ASYNC) or TMA (ACC_TMA); or a cp.async copy its own thread
 * waited for, which the others see after a barrier (ACC_WAITED). A TMA copy
 * waited for through its mbarrier is seen by every thread that waited: it
 * leaves the state (PTX ISA, mbarrier's complete-tx: the async proxy's writes
 * tracked by the phase are visible to the threads that observe its
 * completion). */
enum { ACC_READ, ACC_WRITE, ACC_ASYNC, ACC_TMA, ACC_WAITED };

typedef struct Access {
    int64_t lo, hi;
    int kind;
} Access;

typedef struct State {
    Access *a;
    int n, cap;
} State;

typedef struct Bar {
    Function *f;
    int64_t *base, *size; /* per value: a buffer's (root's) range */
    int inserted;
    bool oom;
} Bar;

static void st_add(Bar *B, State *s, int64_t lo, int64_t hi, int kind) {
    for (int i = 0; i < s->n; i++)
        if (s->a[i].lo == lo && s->a[i].hi == hi && s->a[i].kind == kind)
            return;
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 8;
        Access *n = realloc(s->a, sizeof *n * (size_t)s->cap);
        if (!n) {
            B->oom = true;
            return;
        }
        s->a = n;
    }
    s->a[s->n++] = (Access){lo, hi, kind};
}

static void st_union(Bar *B, State *into, const State *from) {
    for (int i = 0; i < from->n; i++)
        st_add(B, into, from->a[i].lo, from->a[i].hi, from->a[i].kind);
}

static void st_copy(Bar *B, State *to, const State *from) {
    to->n = 0;
    st_union(B, to, from);
}

static bool st_equal(const State *x, const State *y) {
    if (x->n != y->n)
        return false;
    for (int i = 0; i < x->n; i++) {
        bool found = false;
        for (int j = 0; j < y->n && !found; j++)
            found = !memcmp(&x->a[i], &y->a[j], sizeof x->a[i]);
        if (!found)
            return false;
    }
    return true;
}

/* A barrier: what the threads did is now visible to all; copies still in
 * flight stay so. */
static void st_sync(State *s) {
    int k = 0;
    for (int i = 0; i < s->n; i++)
        if (s->a[i].kind == ACC_ASYNC || s->a[i].kind == ACC_TMA)
            s->a[k++] = s->a[i];
    s->n = k;
}

/* Would an access of [lo, hi) (writing or not) race with the pending ones? */
static bool conflicts(const State *s, int64_t lo, int64_t hi, bool write) {
    for (int i = 0; i < s->n; i++) {
        const Access *a = &s->a[i];
        if (a->hi <= lo || hi <= a->lo || a->kind == ACC_ASYNC || a->kind == ACC_TMA)
            continue;
        if (write || a->kind != ACC_READ)
            return true;
    }
    return false;
}

static void bar_block(Bar *B, Block *blk, State *s);

/* Insert a barrier op before index i of blk. */
static void put_barrier(Bar *B, Block *blk, int i, Span sp) {
    Function *f = B->f;
    Inst *b = ir_inst_new(f, NULL, IR_BARRIER, NULL, 0, NULL, 0, sp);
    if (blk->ninsts == blk->cap) {
        int cap = blk->cap ? 2 * blk->cap : 8;
        Inst **ni = arena_alloc(f->arena, sizeof *ni * (size_t)cap);
        if (blk->ninsts)
            memcpy(ni, blk->insts, sizeof *ni * (size_t)blk->ninsts);
        blk->insts = ni;
        blk->cap = cap;
    }
    memmove(blk->insts + i + 1, blk->insts + i, sizeof *blk->insts * (size_t)(blk->ninsts - i));
    blk->insts[i] = b;
    blk->ninsts++;
    B->inserted++;
}

/* The state after a loop body run from `entry` until it settles; the body
 * may run zero times, so the exit state joins the entry's. */
static void bar_loop(Bar *B, Block *const *regions, int nregions, State *s) {
    State head = {0}, cur = {0};
    st_copy(B, &head, s);
    for (int iter = 0; iter < 8; iter++) {
        st_copy(B, &cur, &head);
        for (int r = 0; r < nregions; r++)
            bar_block(B, regions[r], &cur);
        State next = {0};
        st_copy(B, &next, &head);
        st_union(B, &next, &cur);
        bool same = st_equal(&next, &head);
        free(head.a);
        head = next;
        if (same)
            break;
    }
    st_copy(B, s, &head);
    free(head.a);
    free(cur.a);
}

static void bar_block(Bar *B, Block *blk, State *s) {
    Function *f = B->f;
    for (int i = 0; blk && i < blk->ninsts; i++) {
        Inst *in = blk->insts[i];
        switch (in->op) {
        case IR_BARRIER:
            st_sync(s);
            continue;
        case IR_WARP_SPEC:
            /* every warp meets here, once, so the producer sees the inits;
             * after it, its accesses are ordered by the mbarriers alone */
            if (s->n) {
                put_barrier(B, blk, i, in->span);
                st_sync(s);
                i++;
            }
            continue;
        case IR_ASYNC_WAIT:
        case IR_MBAR_WAIT: { /* and, as a read of its barrier, below */
            /* the buffers stand for whole rings, so a wait is taken to end
             * every copy; the pipeliner waits for a stage before reading it.
             * Past an mbarrier wait, every thread sees the TMA copies (so a
             * wgmma reading the stage needs no bar.sync after the wait:
             * Triton's and CUTLASS's mainloops have none); an async_wait
             * (cp.async.wait_group) shows a thread its own copies alone */
            int k = 0;
            for (int j = 0; j < s->n; j++) {
                Access a = s->a[j];
                if (a.kind == ACC_TMA && in->op == IR_MBAR_WAIT)
                    continue;
                if (a.kind == ACC_ASYNC || a.kind == ACC_TMA)
                    a.kind = ACC_WAITED;
                s->a[k++] = a;
            }
            s->n = k;
            if (in->op == IR_ASYNC_WAIT)
                continue;
        }
            /* fall through */
        case IR_LOCAL_LOAD: case IR_LOCAL_STORE: case IR_ASYNC_COPY: case IR_TMA_LOAD: case IR_TMA_STORE:
        case IR_MBAR_INIT: case IR_MBAR_INVAL: case IR_MBAR_EXPECT: case IR_MBAR_ARRIVE: {
            /* a TMA copy writes in the background like an async copy (a TMA
             * store reads, done when the op is: its thread waits); an
             * mbarrier is written by its init and inval (so every thread
             * meets between an init and the first wait, and between the last
             * wait and the reuse of its bytes) and otherwise only touched
             * atomically, which counts as reading it */
            ValueId b = in->args[0];
            int64_t lo = B->base[b], hi = lo + B->size[b];
            bool write = in->op == IR_LOCAL_STORE || in->op == IR_ASYNC_COPY || in->op == IR_TMA_LOAD ||
                         in->op == IR_MBAR_INIT || in->op == IR_MBAR_INVAL;
            int kind = in->op == IR_LOCAL_STORE || in->op == IR_MBAR_INIT || in->op == IR_MBAR_INVAL ? ACC_WRITE
                       : in->op == IR_ASYNC_COPY                                              ? ACC_ASYNC
                       : in->op == IR_TMA_LOAD                                                ? ACC_TMA
                                                                                              : ACC_READ;
            if (conflicts(s, lo, hi, write)) {
                put_barrier(B, blk, i, in->span);
                st_sync(s);
                i++; /* in moved one down */
            }
            st_add(B, s, lo, hi, kind);
            continue;
        }
        case IR_FOR:
            bar_loop(B, in->regions, 1, s);
            continue;
        case IR_WHILE:
            bar_loop(B, in->regions, 2, s);
            bar_block(B, in->regions[0], s); /* the loop leaves from its before region */
            continue;
        case IR_IF: {
            State e = {0};
            st_copy(B, &e, s);
            bar_block(B, in->regions[0], s);
            if (in->nregions > 1)
                bar_block(B, in->regions[1], &e);
            st_union(B, s, &e);
            free(e.a);
            continue;
        }
        case IR_DOT: /* wgmma reads its operands' buffers here, not at their local_loads */
            for (int k = 0; k < 2 && k < in->nargs; k++) {
                const Inst *ld = f->values[in->args[k]].def;
                if (!ld || !wgmma_operand(f, ld))
                    continue;
                int64_t lo = B->base[ld->args[0]], hi = lo + B->size[ld->args[0]];
                if (conflicts(s, lo, hi, false)) {
                    put_barrier(B, blk, i, in->span);
                    st_sync(s);
                    i++;
                }
                st_add(B, s, lo, hi, ACC_READ);
            }
            break;
        default:
            break;
        }
        if (in->scratch_size > 0) { /* writes, its own barrier, reads */
            int64_t lo = in->scratch_off, hi = lo + in->scratch_size;
            if (conflicts(s, lo, hi, true)) {
                put_barrier(B, blk, i, in->span);
                i++;
            }
            st_sync(s);
            if (in->op != IR_TMAP_CREATE) /* which ends in a barrier of its own (llvm_shared.c) */
                st_add(B, s, lo, hi, ACC_READ);
        }
    }
    (void)f;
}

bool barrier_pass(Diag *d, Function *f) {
    if (!f->smem_allocated) {
        diag_internal(d, "barriers: smem-alloc has not run on @%s", f->name);
        return false;
    }
    Bar B = {.f = f};
    size_t n = (size_t)f->nvalues + 1;
    B.base = calloc(n, sizeof *B.base);
    B.size = calloc(n, sizeof *B.size);
    if (!B.base || !B.size) {
        free(B.base), free(B.size);
        diag_internal(d, "barriers: out of memory");
        return false;
    }
    /* each buffer view stands for its whole ring: stages are chosen at run time */
    for (ValueId v = 1; v < f->nvalues; v++) {
        const Inst *def = f->values[v].def;
        if (def && def->op == IR_LOCAL_ALLOC && def->results[0] == v) {
            Type t = f->values[v].type;
            B.base[v] = def->attr.offset;
            B.size[v] = ir_numel(t) * mem_bytes((DType)t.dtype);
        }
    }
    for (int changed = 1; changed;) { /* views of views, in any order */
        changed = 0;
        for (ValueId v = 1; v < f->nvalues; v++) {
            const Inst *def = f->values[v].def;
            if (def && (def->op == IR_MEMDESC_INDEX || def->op == IR_MEMDESC_TRANS) && def->results[0] == v &&
                B.size[def->args[0]] &&
                (B.base[v] != B.base[def->args[0]] || B.size[v] != B.size[def->args[0]])) {
                B.base[v] = B.base[def->args[0]];
                B.size[v] = B.size[def->args[0]];
                changed = 1;
            }
        }
    }
    State s = {0};
    bar_block(&B, f->body, &s);
    free(s.a), free(B.base), free(B.size);
    if (B.oom) {
        diag_internal(d, "barriers: out of memory");
        return false;
    }
    return true;
}
