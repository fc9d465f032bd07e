/* pipeline.c: software pipelining of the loads in a loop (Triton's
 * SoftwarePipeliner, the cp.async form of sm_80 and later).
 *
 * Requires: laid-out, verified IR (after the layout pass); an arch with
 *           cp.async (sm_80+) and its shared-memory limit.
 * Ensures:  in each `for` whose top-level loads feed a dot (every top-level
 *           load when the loop says {num_stages = N}, tl.range's; and a row
 *           loop's, behind an alias check or none where it stores nothing:
 *           row_loop, pipeline_rows.c), with S
 *           stages (the loop's num_stages, else the function's; S >= 2):
 *             - each such load has a ring of S shared buffers
 *               (local_alloc !smem<S x shape>, a swizzled #shared layout);
 *             - before the loop, a prologue issues the copies of iterations
 *               0 .. S-2 (async_copy into stage j, one async_commit each);
 *             - in the loop, iteration i waits for its own copies
 *               (async_wait {num = S-2}), issues the copies of iteration
 *               i+S-1 into stage (i+S-1) mod S (the one iteration i-1 read)
 *               and commits them, then reads stage i mod S (local_load into
 *               the layout its convert_layout produced, which it replaces),
 *               so one barrier per iteration orders both;
 *             - after the loop, async_wait {num = 0} drains the ring.
 *           Copies of iterations past the loop's end are masked off entirely
 *           (`iv < ub` in the mask): cp.async writes zeros and reads nothing,
 *           so K tails and masks keep their meaning. The interpreter never
 *           sees this IR: it ignores num_stages.
 *           An FMA dot (BLOCKED result) whose A and B are both loads of
 *           the body gets rings for both (layout_fma_shared) and reads them
 *           into its DOT_OPERAND layouts; the lowering leaves those in
 *           shared memory and the dot reads them in its K loop (llvm_dot.c,
 *           lower_fma_smem), so the dot's own staging is gone too.
 *           On sm_90a (wgmma), a fp16 / bf16 dot of the loop whose A and B
 *           both come from rings (wgmma_dot says which; e4m3 / e5m2 too when
 *           both are K-major, as wgmma reads 8-bit operands) gets #nvmma rings of
 *           S + 1 slots, still filled S-1 iterations ahead, so the wgmma
 *           group the dot leaves in flight reads a slot no copy refills (a
 *           loop of one such dot not left to a producer: S slots, its copies
 *           after the dot, into the slot of the group the dot's wait_group 1
 *           retired, as Triton orders them: plan_late); its
 *           accumulator becomes MMA v3 (make_wgmma); a B written `b.T` of
 *           an [N, K] tile is ringed as loaded and read through
 *           memdesc_trans, K-major; every use of the dot's result but the
 *           loop's yield gets a wgmma_wait before it (a flattened loop's
 *           epilogue), so the dot may still leave its group in flight. When
 *           even two stages and the extra slot do not fit, two slots with
 *           the wgmma waited for in its iteration do. A wgmma's A the loop
 *           does not change and that would stay in registers (attention's
 *           Q) goes to an #nvmma buffer before the loop instead (stage_a:
 *           local_store, then a local_load wgmma reads as an address),
 *           where two stages still fit beside it; a later loop of the same
 *           block over the same registers reads the same buffer. wgmma
 *           reads no 8-bit A from registers: an e4m3 / e5m2 one is staged
 *           so whatever it leaves the rings (fewer stages, or none), and
 *           one the loop computes (attention's P) is stored each iteration
 *           into an #nvmma buffer the dot reads (restage_a).
 *           An e4m3 / e5m2 dot of the loop whose B is stored along N (an
 *           [K, N] tile, N contiguous) keeps B's ring as an mma.sync's and
 *           becomes a wgmma all the same: each iteration reads the tile into
 *           registers and stores it K-major into a staging #nvmma buffer
 *           the dot reads, waiting for its group at once (restage_b).
 *           On sm_90a, an e4m3 / e5m2 dot of the function's body (outside
 *           loops) becomes wgmma too, its A and B stored to #nvmma buffers
 *           (B transposed: K-major) and read back as descriptors
 *           (fp8_wgmma), as Triton gives such a dot MMA v3.
 *           On sm_90a, such a ring fed by a host descriptor's load (its
 *           pointers come from desc_tile, sema_desc.c) is filled by TMA
 *           instead: a ring of R mbarriers (local_alloc !smem<R x 1 x i64>,
 *           mbarrier_init before the prologue, mbarrier_inval after the
 *           drain), and each iteration's copies are one mbarrier_expect of
 *           their bytes and one tma_load per such load into slot s, both on
 *           barrier s and predicated on the iteration being in the loop;
 *           iteration i waits with mbarrier_wait on the barrier of its slot
 *           with parity (i / R) & 1, a carried bit that flips when the read
 *           index wraps. TMA zero-fills (or NaN-fills, as the map says) out
 *           of the tensor, which is the descriptor load's mask and other, so
 *           those and the pointers are not needed. Left to a producer
 *           warpgroup (a loop at the top of the body, or of the then-branch
 *           of an if there (ir_ws_block), whose rings are all
 *           TMA's and feed its wgmma dots, where warpspec_loop_ok says the
 *           loop wants one and the producer can compute the coordinates,
 *           and the rings fit beside a ring of empty barriers from the
 *           kernel's start): nothing runs ahead (D = 0): no prologue, and
 *           iteration i copies into its own slot i mod R (the slice
 *           cloned as for a prefetch, the copies predicated on true) just
 *           before its wait; the loop carries {ws_hold = 1 + extra}, the
 *           iterations that read a slot, and the warp-spec pass
 *           (warpspec.c) moves the copies to the producer.
 *           The ring's #nvmma swizzle
 *           and the launch's CUtensorMap come from one rule,
 *           arch_tma_swizzle (arch.h). A store through a map the kernel
 *           made, which pointers could not write in 16-byte vectors, goes
 *           out by TMA behind a per-tile check (tma_stores, below); other
 *           descriptor stores stay masked pointer stores (on a matmul
 *           epilogue in vectors TMA stores gained nothing: 546 vs 554
 *           TFLOP/s at 4096, H100).
 *
 * Which loads: a top-level `load` of the loop body feeding a dot through a
 * convert_layout into its operand layout (on sm_90a up to two dots, one
 * through a trans: attention backward's qT, kept only if they all become
 * wgmmas), or feeding an FMA dot directly
 * together with the dot's other operand (a lone one is not pipelined: the
 * dot would stage it again), (any load in a tl.range loop with
 * num_stages), with no `other` or a zero
 * one (masked elements become zeros), whose vector is 4, 8 or 16 bytes (what
 * cp.async copies; layout_vector_width), and whose pointer and mask the body
 * computes from the induction variable, loop invariants and carried values
 * that are themselves updated only by pure ops of the body (the usual
 * `ptrs += BLOCK_K * stride`), or by a pure `if` (a flattened loop's next
 * tile, flatten.c), cloned with its branches. That "address slice" is cloned for each
 * prologue iteration and once in the body, where it runs S-1 iterations
 * ahead on carried copies of those values; the originals are left to
 * themselves, and a dead-code sweep of the loop removes what only the old
 * loads used. The buffers are sized and S lowered until the rings fit the
 * arch's shared memory (beside what the loop's other ops need: the dot and
 * the operand converts the rings replace need none); barriers are
 * barrier_pass's business (smem.c).
 *
 * Algorithm per loop: collect candidates -> address slice -> allocate rings
 * -> prologue -> rewrite the body (wait, local_loads, prefetch, ring indices)
 * -> drain -> sweep dead carried values. */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "layout.h"
#include "pipeline_int.h"

enum { MAX_LOADS = 8 };

enum { MAX_USES = 2 }; /* dot operands one ring feeds (attention backward's qT: k @ qT and dsT @ qT.T) */
typedef struct Cand {
    Inst *load;     /* the load */
    int nuse;       /* the dot operands it feeds, each through a convert_layout (0: read as loaded) */
    Inst *convert[MAX_USES]; /* per use: the convert_layout into the dot operand */
    Inst *trans[MAX_USES];   /* per use: a trans before that convert (B = x.T), else NULL */
    Inst *user[MAX_USES];    /* per use: the dot */
    ValueId out[MAX_USES];   /* per use: the value the loop reads (out[0]: the load's when nuse is 0) */
    ValueId buf;    /* the ring */
    int bytes;      /* of one stage */
    int nvmma;      /* a wgmma operand: its ring's NVMMA swizzle in bytes (0: not one) */
    Inst *dot;      /* an FMA dot reading the load directly as operand fma - 1, else NULL */
    int fma;        /* 1 (A) or 2 (B) while both of that dot's operands are rings; else 0 */
    Inst *tile;     /* a host descriptor's tile (desc_tile) TMA may copy, else NULL */
    bool cp_ok;     /* cp.async can copy it (else only TMA can) */
    bool ragged;    /* ... in vectors its mask cuts (a prefix of each: copy_bytes) */
    int vec;        /* ragged: the elements of a copy's vector */
    const Inst *bound;      /* ragged: the comparison that cuts them (x < R ...), reached from the mask
                               through ands and shape ops only (bound_path), else NULL */
    const Inst *bpath[8];   /* those shape ops, from the comparison up */
    int nbpath;
} Cand;

/* ---- small helpers ---- */

static void count_uses(const Block *b, int *uses, Block **home) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int k = 0; k < in->nargs; k++)
            uses[in->args[k]]++;
        for (int r = 0; r < in->nresults; r++)
            home[in->results[r]] = (Block *)b;
        for (int r = 0; r < in->nregions; r++) {
            const Block *rb = in->regions[r];
            for (int a = 0; rb && a < rb->nargs; a++)
                home[rb->args[a]] = (Block *)rb;
            count_uses(rb, uses, home);
        }
    }
}

/* The one op of b (at any depth) reading v, and which operand. */
static Inst *sole_user(const Block *b, ValueId v, int *k) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int a = 0; a < in->nargs; a++)
            if (in->args[a] == v) {
                *k = a;
                return in;
            }
        for (int r = 0; r < in->nregions; r++) {
            Inst *u = sole_user(in->regions[r], v, k);
            if (u)
                return u;
        }
    }
    return NULL;
}


/* ---- which loads ---- */

/* The address slice of v in loop body B: mark the body's ops (and carried
 * values) that v depends on; false when one cannot run ahead (not pure, owns
 * regions, a dot, or a carried value updated otherwise). */
/* An if whose branches only compute (pure ops, no regions) and yield. */
static bool pure_if(const Inst *in) {
    for (int k = 0; k < in->nregions; k++)
        for (int i = 0; i < in->regions[k]->ninsts; i++) {
            const Inst *x = in->regions[k]->insts[i];
            if (x->op != IR_YIELD && (x->nregions || !(ir_ops[x->op].flags & OPF_PURE)))
                return false;
        }
    return true;
}

static bool slice_of(Pipe *P, Block *B, Inst *loop, ValueId v, uint8_t *carried) {
    if (v >= P->n0 || P->in_slice[v])
        return true;
    Function *f = P->f;
    if (P->home[v] != B) /* a loop invariant (or a parameter) */
        return true;
    P->in_slice[v] = 1;
    Inst *def = f->values[v].def;
    if (!def) { /* an argument of the body: the induction variable or a carried value */
        int k = 0;
        while (k < B->nargs && B->args[k] != v)
            k++;
        if (k == 0 || k >= B->nargs)
            return k == 0;
        carried[k - 1] = 1;
        const Inst *y = B->insts[B->ninsts - 1];
        return y->op == IR_YIELD && k - 1 < y->nargs && slice_of(P, B, loop, y->args[k - 1], carried);
    }
    if (def->op == IR_IF && pure_if(def)) { /* a flattened loop's next-tile values (flatten.c) */
        for (int r = 0; r < def->nresults; r++)
            P->in_slice[def->results[r]] = 1;
        if (!slice_of(P, B, loop, def->args[0], carried))
            return false;
        for (int k = 0; k < def->nregions; k++) /* what its branches read from the body */
            for (int i = 0; i < def->regions[k]->ninsts; i++)
                for (int a = 0; a < def->regions[k]->insts[i]->nargs; a++)
                    if (!slice_of(P, B, loop, def->regions[k]->insts[i]->args[a], carried))
                        return false;
        return true;
    }
    if (!(ir_ops[def->op].flags & OPF_PURE) || def->nregions || def->op == IR_DOT || def->nresults != 1)
        return false;
    for (int a = 0; a < def->nargs; a++)
        if (!slice_of(P, B, loop, def->args[a], carried))
            return false;
    return true;
}

static int64_t gcd_i64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b, b = t;
    }
    return a;
}

/* The runs of mask v along dim d that are true for a prefix of their
 * elements: the largest group size g (of aligned groups of g elements along
 * d) over which v is always true-then-false. A value constant over a group
 * is one (axis constancy); `x < R` and `x <= R` (or `R > x`, `R >= x`) with
 * x a run of consecutive integers along d and R one value along it are
 * (tutorial 08's descriptor bound `k + j < gk`, gk loaded: constancy 1);
 * and, or, broadcasts and converts of such masks are. */
static int64_t mask_prefix(const Pipe *P, ValueId v, int d, int depth) {
    int64_t k = P->axis[v].constancy[d];
    const Inst *in = v < P->n0 ? P->f->values[v].def : NULL;
    Type t = vtype(P, v);
    if (!in || depth > 32 || d >= t.rank)
        return k;
    int64_t g = k;
    switch (in->op) {
    case IR_AND: case IR_OR:
        g = gcd_i64(mask_prefix(P, in->args[0], d, depth + 1), mask_prefix(P, in->args[1], d, depth + 1));
        break;
    case IR_BROADCAST:
        g = vtype(P, in->args[0]).shape[d] == 1 ? t.shape[d] : mask_prefix(P, in->args[0], d, depth + 1);
        break;
    case IR_EXPAND_DIMS:
        g = d == in->attr.axis ? t.shape[d] : mask_prefix(P, in->args[0], d < in->attr.axis ? d : d - 1, depth + 1);
        break;
    case IR_CONVERT_LAYOUT:
        g = mask_prefix(P, in->args[0], d, depth + 1);
        break;
    case IR_CMP: {
        const AxisInfo *l = &P->axis[in->args[0]], *r = &P->axis[in->args[1]];
        int p = in->attr.pred;
        if ((p == CMP_LT || p == CMP_LE) && r->constancy[d] >= t.shape[d])
            g = l->contiguity[d];
        else if ((p == CMP_GT || p == CMP_GE) && l->constancy[d] >= t.shape[d])
            g = r->contiguity[d];
        break;
    }
    default:
        break;
    }
    return g > k ? g : k;
}

/* The one comparison that cuts mask v's vectors of vp elements along d (a
 * prefix one, as mask_prefix takes it), reached from v through ands (whose
 * other terms are constant over a vector) and shape ops only; those ops, from
 * the comparison up, in c->bpath. Then issue() hands the copy R - x, the
 * elements a vector keeps from its first one, and the lowering needs no more
 * than that and the mask's first element (an or, or two comparisons: NULL,
 * and the lowering counts the mask's elements). */
static const Inst *bound_path(const Pipe *P, ValueId v, int d, int64_t vp, Cand *c, int depth) {
    const Inst *in = v < P->n0 ? P->f->values[v].def : NULL;
    Type t = vtype(P, v);
    if (!in || depth > 16 || d >= t.rank || P->axis[v].constancy[d] >= vp)
        return NULL;
    const Inst *b = NULL;
    switch (in->op) {
    case IR_AND: {
        bool cut0 = P->axis[in->args[0]].constancy[d] < vp, cut1 = P->axis[in->args[1]].constancy[d] < vp;
        return cut0 == cut1 ? NULL : bound_path(P, in->args[cut0 ? 0 : 1], d, vp, c, depth + 1);
    }
    case IR_BROADCAST: case IR_CONVERT_LAYOUT:
        b = bound_path(P, in->args[0], d, vp, c, depth + 1);
        break;
    case IR_EXPAND_DIMS:
        b = d == in->attr.axis ? NULL : bound_path(P, in->args[0], d < in->attr.axis ? d : d - 1, vp, c, depth + 1);
        break;
    case IR_CMP: {
        const AxisInfo *l = &P->axis[in->args[0]], *r = &P->axis[in->args[1]];
        int p = in->attr.pred;
        bool lt = (p == CMP_LT || p == CMP_LE) && r->constancy[d] >= t.shape[d] && l->contiguity[d] % vp == 0;
        bool gt = (p == CMP_GT || p == CMP_GE) && l->constancy[d] >= t.shape[d] && r->contiguity[d] % vp == 0;
        Type xt = vtype(P, in->args[0]);
        return (lt || gt) && dt_is_int((DType)xt.dtype) && xt.rank ? in : NULL;
    }
    default:
        return NULL;
    }
    if (b && c->nbpath < (int)(sizeof c->bpath / sizeof c->bpath[0]))
        c->bpath[c->nbpath++] = in;
    else
        b = NULL;
    return b;
}

/* Bytes per copy: the load's vector (cp.async moves 4, 8 or 16). A mask
 * that cuts the pointers' vectors only as a prefix of each (*ragged) leaves
 * them whole: the copy moves the elements it keeps (src_size, llvm_shared.c)
 * and zero-fills the rest. */
int copy_bytes(Pipe *P, const Inst *ld, bool *ragged) {
    ValueId ptr = ld->args[0], mask = ld->nargs > 1 ? ld->args[1] : 0;
    Type t = vtype(P, ptr);
    *ragged = false;
    if (ptr >= P->n0 || (mask && mask >= P->n0))
        return 0;
    const ThreadMap *tm = layout_thread_map(P->f, P->f->values[ptr].layout, t, P->f->num_warps);
    int bytes = dt_bits(t.pointee) / 8;
    if (!tm || bytes < 1)
        return 0;
    const AxisInfo *m = mask && vtype(P, mask).rank ? &P->axis[mask] : NULL;
    int v = layout_vector_width(tm, &P->axis[ptr], m, bytes);
    int vp = m ? layout_vector_width(tm, &P->axis[ptr], NULL, bytes) : v;
    if (vp > v && tm->contig_dim >= 0 && mask_prefix(P, mask, tm->contig_dim, 0) % vp == 0) {
        *ragged = true;
        return vp * bytes;
    }
    return v * bytes;
}

/* An FMA dot: a BLOCKED result (the layout pass found no MMA for it). */
static bool is_fma_dot(const Pipe *P, const Inst *d) {
    const Function *f = P->f;
    int rl = d->nresults ? f->values[d->results[0]].layout : 0;
    return d->op == IR_DOT && d->nargs >= 3 && rl > 0 && rl < f->nlayouts && f->layouts[rl].kind == LAYOUT_BLOCKED &&
           vtype(P, d->args[0]).rank == 2 && vtype(P, d->args[0]).dtype != DT_I1 && vtype(P, d->args[1]).dtype != DT_I1;
}

static bool load_ok(Pipe *P, Block *B, Inst *ld, bool tma);
static Inst *tma_tile(Pipe *P, Inst *ld);
static bool cp_ok(Pipe *P, Inst *ld);

/* Load ld feeds an FMA dot directly (as operand *k), and so does the dot's
 * other operand, a load of this body that could be pipelined too: the dot
 * can then read both rings (llvm_dot.c, lower_fma_smem). */
static Inst *fma_user(Pipe *P, Block *B, Inst *ld, int *k) {
    ValueId r = ld->results[0];
    Inst *u = P->uses[r] == 1 ? sole_user(B, r, k) : NULL;
    if (!u || *k >= 2 || !is_fma_dot(P, u) || ir_inst_index(B, u) < 0 || u->args[0] == u->args[1])
        return NULL;
    ValueId o = u->args[1 - *k];
    Inst *od = o < P->n0 ? P->f->values[o].def : NULL;
    int ok2 = 0;
    if (!od || od->op != IR_LOAD || P->home[o] != B || P->uses[o] != 1 || !load_ok(P, B, od, false) ||
        sole_user(B, o, &ok2) != u)
        return NULL;
    return u;
}

/* Use u of load result r in B as a dot operand, recorded in c: load ->
 * convert -> dot (the operand layout read from the ring directly), or load
 * -> trans -> convert -> dot B, `b.T` of an [N, K] tile, which wgmma reads
 * from the ring as loaded, K-major (kept only if the dot becomes one:
 * wgmma_dots). */
static bool dot_use(Pipe *P, Block *B, ValueId r, Inst *u, Cand *c) {
    int k = 0;
    Inst *tr = NULL;
    if (u && u->op == IR_TRANS && P->uses[u->results[0]] == 1 && P->home[u->results[0]] == B && vtype(P, r).rank == 2) {
        tr = u;
        u = sole_user(B, u->results[0], &k);
    }
    if (!u || u->op != IR_CONVERT_LAYOUT || P->uses[u->results[0]] != 1 || P->home[u->results[0]] != B)
        return false;
    Inst *d = sole_user(B, u->results[0], &k);
    if (!d || d->op != IR_DOT || (tr ? k != 1 : k > 1) || c->nuse == MAX_USES)
        return false;
    c->trans[c->nuse] = tr, c->convert[c->nuse] = u, c->user[c->nuse] = d, c->out[c->nuse] = u->results[0];
    c->nuse++;
    return true;
}

/* The instructions of b reading v (each once), up to max; -1: more, or one
 * reading it twice or from a nested region. */
static int users_of(const Block *b, ValueId v, Inst **us, int max) {
    int n = 0;
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        int reads = 0;
        for (int a = 0; a < in->nargs; a++)
            reads += in->args[a] == v;
        int k = 0;
        for (int r = 0; r < in->nregions; r++)
            if (sole_user(in->regions[r], v, &k))
                return -1;
        if (reads > 1 || (reads && n == max))
            return -1;
        if (reads)
            us[n++] = in;
    }
    return n;
}

/* v is an argument of b or a result of an op in b, or so in the blocks of
 * its ops. */
static bool defined_in(const Block *b, ValueId v) {
    for (int i = 0; b && i < b->nargs; i++)
        if (b->args[i] == v)
            return true;
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        for (int r = 0; r < in->nresults; r++)
            if (in->results[r] == v)
                return true;
        for (int r = 0; r < in->nregions; r++)
            if (defined_in(in->regions[r], v))
                return true;
    }
    return false;
}

/* A tile of a map the kernel makes in a loop that reads it is its pointers
 * again: the map does not exist where a prologue would copy, and the
 * address slice cannot take the op that makes it (a host descriptor's map
 * is a parameter). b: the body of the loop holding it, or NULL. */
static void strip_inner_maps(Function *f, Block *blk, Block *b) {
    for (int i = 0; blk && i < blk->ninsts; i++) {
        Inst *in = blk->insts[i];
        for (int r = 0; r < in->nregions; r++)
            strip_inner_maps(f, in->regions[r], in->op == IR_FOR || in->op == IR_WHILE ? in->regions[r] : b);
        if (in->op == IR_DESC_TILE && ir_kernel_map(f, in->args[1]) && b && defined_in(b, in->args[1])) {
            ir_replace_uses(f->body, in->results[0], in->args[0]);
            ir_remove_inst(blk, in);
            i--;
        }
    }
}

/* A load this loop can pipeline; fills c. */
static bool candidate(Pipe *P, Block *B, Inst *loop, Inst *ld, bool any_use, Cand *c) {
    if (!load_ok(P, B, ld, true))
        return false;
    *c = (Cand){.load = ld, .out = {ld->results[0]}, .tile = tma_tile(P, ld), .cp_ok = cp_ok(P, ld)};
    int cb = copy_bytes(P, ld, &c->ragged);
    if (c->ragged) {
        Type pt = vtype(P, ld->args[0]);
        const ThreadMap *tm = layout_thread_map(P->f, P->f->values[ld->args[0]].layout, pt, P->f->num_warps);
        c->vec = cb / (dt_bits(pt.pointee) / 8);
        c->bound = tm ? bound_path(P, ld->args[1], tm->contig_dim, c->vec, c, 0) : NULL;
        if (!c->bound)
            c->nbpath = 0;
    }
    ValueId r = ld->results[0];
    int k = 0;
    Inst *u = P->uses[r] == 1 ? sole_user(B, r, &k) : NULL;
    if (u && dot_use(P, B, r, u, c))
        return true;
    /* on sm_90a a tile several dots read (attention backward's qT as B of
     * k @ qT and, transposed, of dsT @ qT.T): one ring, a local_load per
     * use (kept only if every one of those dots becomes a wgmma) */
    Inst *us[MAX_USES];
    int nu = P->wgmma && P->uses[r] > 1 && P->uses[r] <= MAX_USES ? users_of(B, r, us, MAX_USES) : 0;
    if (nu == P->uses[r] && nu > 1) {
        Cand m = *c;
        bool all = true;
        for (int i = 0; i < nu && all; i++)
            all = dot_use(P, B, r, us[i], &m);
        if (all) {
            *c = m;
            return true;
        }
    }
    /* An FMA dot reading two loads: both become rings the dot reads in its
     * K loop (a ring in front of an FMA dot that staged its operands again
     * cost more than it hid: 27 -> 19 TFLOP/s on the fp32 puzzle kernel) */
    if (c->cp_ok && (c->dot = fma_user(P, B, ld, &k)) != NULL) {
        c->fma = k + 1;
        return true;
    }
    return any_use; /* in a tl.range(..., num_stages=N) loop any load is worth it */
}

/* A 2-D tile of a host descriptor of at most 256 rows (a TMA box's limit),
 * on sm_90a: TMA may copy it. */
static Inst *tma_tile(Pipe *P, Inst *ld) {
    Inst *tile = P->wgmma ? P->f->values[ld->args[0]].def : NULL;
    if (tile && (tile->op != IR_DESC_TILE || vtype(P, ld->results[0]).rank != 2 ||
                 vtype(P, ld->results[0]).shape[0] > 256))
        tile = NULL;
    return tile;
}

/* cp.async can copy it: no `other` but zero, 4, 8 or 16 bytes a copy. */
static bool cp_ok(Pipe *P, Inst *ld) {
    bool ragged;
    int cb = copy_bytes(P, ld, &ragged);
    return (ld->nargs <= 2 || ir_is_zero(P->f, ld->args[2])) && (cb == 4 || cb == 8 || cb == 16);
}

/* The checks on the load itself; tma: a copy TMA alone can make will do. */
static bool load_ok(Pipe *P, Block *B, Inst *ld, bool tma) {
    Function *f = P->f;
    if (ld->op != IR_LOAD || !ld->nresults || !vtype(P, ld->results[0]).rank || ld->results[0] >= P->n0)
        return false;
    if (!cp_ok(P, ld) && !(tma && tma_tile(P, ld)))
        return false;
    const Layout *lay = &f->layouts[f->values[ld->results[0]].layout];
    if (lay->kind != LAYOUT_BLOCKED)
        return false;
    /* a load that does not change from one iteration to the next has nothing to prefetch */
    return P->home[ld->args[0]] == B || (ld->nargs >= 2 && P->home[ld->args[1]] == B);
}

/* ---- the rewrite ---- */

/* Copy the slice's ops (body order) at c with the map's substitutions. */
static void clone_slice(Pipe *P, Block *B, Cursor *c) {
    Function *f = P->f;
    int n = 0;
    Inst **todo = malloc(sizeof *todo * (size_t)(B->ninsts + 1)); /* the cursor may be in B: snapshot it */
    if (!todo)
        return;
    for (int i = 0; i < B->ninsts; i++) {
        Inst *in = B->insts[i];
        if (in->nresults && in->results[0] < P->n0 && P->in_slice[in->results[0]] && in->op != IR_LOAD)
            todo[n++] = in;
    }
    for (int i = 0; i < n; i++) {
        Inst *in = todo[i];
        if (in->nregions) { /* a pure if (slice_of): its branches too */
            Inst *cl = ir_clone_inst(f, NULL, in, P->map, P->n0);
            ir_insert_insts(f, c->b, c->at++, &cl, 1);
            continue;
        }
        ValueId args[8], *ap = in->nargs <= 8 ? args : arena_alloc(f->arena, sizeof *ap * (size_t)in->nargs);
        for (int a = 0; a < in->nargs; a++)
            ap[a] = P->map[in->args[a]] ? P->map[in->args[a]] : in->args[a];
        ValueId r = in->results[0];
        Inst *cl = put(P, c, in->op, ap, in->nargs, &f->values[r].type, f->values[r].layout, in->span);
        cl->attr = in->attr;
        f->values[cl->results[0]].name = f->values[r].name;
        P->map[r] = cl->results[0];
    }
    free(todo);
}

static ValueId mapped(const Pipe *P, ValueId v) { return P->map[v] ? P->map[v] : v; }

/* The view of stage `stage` of ring buf. */
static ValueId stage_view(Pipe *P, Cursor *c, ValueId buf, ValueId stage, Span sp) {
    Type vt = vtype(P, buf);
    vt.rank--;
    memmove(vt.shape, vt.shape + 1, sizeof vt.shape[0] * (size_t)vt.rank);
    vt.shape[vt.rank] = 0;
    return put1(P, c, IR_MEMDESC_INDEX, (ValueId[]){buf, stage}, 2, vt, P->f->values[buf].layout, sp);
}

/* A ragged copy's elements kept from each element on, as its bound says
 * (bound_path): min(R - x (+1 for <=), vector), in i32, through the map (the
 * iteration's x), carried to the mask's shape by the same shape ops; the
 * copy reads it at each vector's first element. */
static ValueId bound_count(Pipe *P, Cursor *c, const Cand *cd, Span sp) {
    Function *f = P->f;
    const Inst *cmp = cd->bound;
    int p = cmp->attr.pred;
    bool lt = p == CMP_LT || p == CMP_LE;
    ValueId x = cmp->args[lt ? 0 : 1], r = cmp->args[lt ? 1 : 0];
    Type xt = vtype(P, x);
    int xl = f->values[x].layout;
    ValueId n = put1(P, c, IR_SUB, (ValueId[]){mapped(P, r), mapped(P, x)}, 2, xt, xl, sp);
    if (p == CMP_LE || p == CMP_GE) {
        ValueId one = put_const(P, c, xt, 1, sp);
        f->values[one].layout = xl;
        n = put1(P, c, IR_ADD, (ValueId[]){n, one}, 2, xt, xl, sp);
    }
    ValueId k = put_const(P, c, xt, cd->vec, sp);
    f->values[k].layout = xl;
    n = put1(P, c, IR_MIN, (ValueId[]){n, k}, 2, xt, xl, sp);
    if (xt.dtype != DT_I32)
        n = put1(P, c, IR_CAST, &n, 1, ir_with_dtype(xt, DT_I32), xl, sp);
    for (int i = 0; i < cd->nbpath; i++) {
        const Inst *op = cd->bpath[i];
        ValueId res = op->results[0];
        Inst *cl = put(P, c, op->op, &n, 1, (Type[]){ir_with_dtype(vtype(P, res), DT_I32)}, f->values[res].layout, sp);
        cl->attr = op->attr;
        n = cl->results[0];
    }
    return n;
}

/* The copies of one iteration: each load's pointer and mask through the map,
 * the mask and-ed with `valid` (is the iteration in the loop?), into stage
 * `stage` of its ring, each load its own commit group as Triton's (so the
 * loop's wait counts cp_groups() a iteration). TMA loads instead: one expect of
 * their bytes on mbarrier `stage` of bars and a tma_load each, at their
 * coordinates through the map, all predicated on `valid`. */
static void issue(Pipe *P, Cursor *c, Cand *cs, int n, ValueId valid, ValueId stage, ValueId bars, Span sp) {
    Function *f = P->f;
    int tma_bytes = 0;
    for (int i = 0; i < n; i++)
        tma_bytes += cs[i].tile ? cs[i].bytes : 0;
    if (tma_bytes) {
        ValueId bar = stage_view(P, c, bars, stage, sp);
        put(P, c, IR_MBAR_EXPECT, (ValueId[]){bar, valid}, 2, NULL, 0, sp)->attr.num = tma_bytes;
        for (int i = 0; i < n; i++) {
            Inst *t = cs[i].tile;
            if (!t)
                continue;
            ValueId view = stage_view(P, c, cs[i].buf, stage, sp);
            put(P, c, IR_TMA_LOAD, (ValueId[]){view, t->args[1], mapped(P, t->args[2]), mapped(P, t->args[3]), bar, valid},
                6, NULL, 0, cs[i].load->span);
        }
    }
    for (int i = 0; i < n; i++) {
        if (cs[i].tile)
            continue;
        Inst *ld = cs[i].load;
        ValueId ptr = mapped(P, ld->args[0]);
        Type pt = vtype(P, ptr);
        int pl = f->values[ptr].layout;
        ValueId m = put1(P, c, IR_SPLAT, &valid, 1, ir_with_dtype(pt, DT_I1), pl, sp);
        if (ld->nargs > 1) {
            ValueId lm = mapped(P, ld->args[1]);
            m = put1(P, c, IR_AND, (ValueId[]){lm, m}, 2, ir_with_dtype(pt, DT_I1), f->values[lm].layout, sp);
        }
        ValueId view = stage_view(P, c, cs[i].buf, stage, sp);
        ValueId cnt = cs[i].bound ? bound_count(P, c, &cs[i], sp) : 0;
        Inst *cp = put(P, c, IR_ASYNC_COPY, (ValueId[]){view, ptr, m, cnt}, cnt ? 4 : 3, NULL, 0, sp);
        cp->attr.has_mask = true;
        cp->attr.num = cs[i].ragged;
        put(P, c, IR_ASYNC_COMMIT, NULL, 0, NULL, 0, sp);
    }
}

/* The cp.async commit groups issue() makes per iteration: one a load that
 * TMA does not copy. */
static int cp_groups(const Cand *cs, int n) {
    int g = 0;
    for (int i = 0; i < n; i++)
        g += !cs[i].tile;
    return g;
}

/* A ring stored as its column-major load is (qT = Q + m[None, :] * S + k[:, None]):
 * an #nvmma transposed ring, the inner dim 0. */
static bool ring_colmajor(Pipe *P, const Cand *c) {
    const Layout *ll = &P->f->layouts[P->f->values[c->load->results[0]].layout];
    return ll->kind == LAYOUT_BLOCKED && ll->rank == 2 && ll->order[0] == 0;
}

/* The shared layout of a ring: the load's order, swizzled for 16-byte reads;
 * for a wgmma operand (nvmma > 0) the NVMMA layout of that swizzle, along
 * the load's contiguous dim. */
static int ring_layout(Pipe *P, const Cand *c) {
    Function *f = P->f;
    const Inst *ld = c->load;
    int nvmma = c->nvmma, fma = c->fma;
    if (nvmma) {
        Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = nvmma, .elem_bits = dt_bits(vtype(P, ld->results[0]).dtype),
                     .transposed = ring_colmajor(P, c)};
        return layout_intern(f, &nl);
    }
    Type t = vtype(P, ld->results[0]);
    const Layout *bl = &f->layouts[f->values[ld->results[0]].layout];
    int bytes = dt_bits(t.dtype) / 8;
    Layout l;
    if (fma && t.rank == 2 && bl->order[0] == 1) { /* an FMA dot's operand, row-major as loaded */
        l = layout_fma_shared(t.shape[0], t.shape[1], bytes, fma - 1);
    } else if (t.rank >= 2) {
        int o0 = bl->order[0], o1 = bl->order[1];
        l = layout_swizzled_for(t.shape[o1], t.shape[o0], bytes);
        l.rank = t.rank;
        for (int d = 0; d < t.rank; d++)
            l.order[d] = bl->order[d];
    } else {
        l = (Layout){.kind = LAYOUT_SHARED, .rank = 1, .vec = 16 / bytes, .per_phase = 1, .max_phase = 1};
    }
    return layout_intern(f, &l);
}

static int64_t region_scratch(const Function *f, const Block *b);

/* The most scratch op `in` needs at once: its own (when `own`) or that of
 * an op of its regions. */
static int64_t op_scratch(const Function *f, const Inst *in, bool own) {
    int64_t s = own ? smem_scratch_bound(f, in) : 0;
    for (int r = 0; r < in->nregions; r++) {
        int64_t sr = region_scratch(f, in->regions[r]);
        s = sr > s ? sr : s;
    }
    return s;
}

/* The most scratch any op of b (its regions too) needs at once. */
static int64_t region_scratch(const Function *f, const Block *b) {
    int64_t m = 0;
    for (int i = 0; b && i < b->ninsts; i++) {
        int64_t s = op_scratch(f, b->insts[i], true);
        m = s > m ? s : m;
    }
    return m;
}

/* The NVMMA swizzle (128, 64, 32 bytes) of a ring whose rows hold `elems`
 * elements of type dt; 0: none fits. TMA's tensor maps use the same (arch.h). */
static int nvmma_swizzle(DType dt, int elems) { return arch_tma_swizzle(dt_bits(dt) / 8, elems); }

/* The candidate whose use *u (when u is not NULL) gives dot operand v, or -1. */
static int cand_use(Cand *cs, int n, ValueId v, int *u) {
    for (int i = 0; i < n; i++)
        for (int k = 0; k < cs[i].nuse; k++)
            if (cs[i].out[k] == v) {
                if (u)
                    *u = k;
                return i;
            }
    return -1;
}

static int cand_of(Cand *cs, int n, ValueId v) { return cand_use(cs, n, v, NULL); }

/* Is v, a dot's A operand, one wgmma can read from registers: fp16 / bf16
 * in the accumulator's MMA layout rl (attention's P, cast from the scores'
 * accumulator) or a DOT_OPERAND of it (attention's Q, converted once before
 * the loop)? Their thread maps are the mma.sync A fragment's, which is
 * wgmma's register A (llvm_dot.c). */
static bool wgmma_reg_a(const Function *f, ValueId v, int rl) {
    int l = f->values[v].layout;
    const Layout *ll = l > 0 && l < f->nlayouts ? &f->layouts[l] : NULL;
    return ll && (l == rl || (ll->kind == LAYOUT_DOT_OPERAND && ll->parent == rl && ll->op_idx == 0 && ll->k_width == 2));
}

/* wgmma (Triton's MMAv3) for the dots of this loop whose B comes from a ring
 * and A from a ring or registers (wgmma_reg_a): fp16 / bf16 into fp32 (or
 * e4m3 / e5m2, K-major, K a multiple of 32, an A in registers read from
 * shared memory: plan_stages),
 * num_warps 4 or 8 stacked along M (one warpgroup per 64 rows, so M a
 * multiple of 16 * num_warps), N a multiple of 16 up to 256, K of 16, A
 * K-major in its ring, B N-major or K-major (a ring stored along its last
 * dim or, ring_colmajor, its first; read as loaded or through a trans), and
 * at most WGMMA_MAX_ACC_REGS accumulator registers a thread. Every dot whose accumulator
 * shares a layout with one of them must qualify too (the layout becomes v3
 * everywhere): attention's two dots go together, its backward's four; and
 * every dot a ring feeds. Marks the candidates' swizzles, puts the dots in
 * wg[] (at most MAX_WG) and returns how many. */
enum { MAX_WG = 4 };
static int wgmma_dots(Pipe *P, Block *B, Cand *cs, int n, Inst **wg, int *restage) {
    Function *f = P->f;
    int nw = f->num_warps ? f->num_warps : 4, nwg = 0;
    if (!P->wgmma || (nw != 4 && nw != 8))
        return 0;
    int sw[MAX_WG][2] = {{0}}, ci[MAX_WG][2] = {{0}};
    for (int i = 0; i < B->ninsts; i++) {
        Inst *d = B->insts[i];
        if (d->op != IR_DOT || d->nargs < 3)
            continue;
        int ua = 0, ub = 0, ia = cand_use(cs, n, d->args[0], &ua), ib = cand_use(cs, n, d->args[1], &ub);
        Type ta = vtype(P, d->args[0]), tb = vtype(P, d->args[1]), tc = vtype(P, d->results[0]);
        int rl = f->values[d->results[0]].layout;
        /* 8-bit operands (k32 steps) must both come from rings, K-major:
         * wgmma transposes only 16-bit ones (Triton's MMAv3 too) */
        bool f16 = ta.dtype == tb.dtype && (ta.dtype == DT_F16 || ta.dtype == DT_BF16);
        bool f8 = dt_is_nv_fp8(ta.dtype) && dt_is_nv_fp8(tb.dtype);
        /* an 8-bit A the loop does not load (attention's Q and P): wgmma
         * reads it from shared memory, staged (stage_a, restage_a) */
        if (ib < 0 || !(f16 || f8) || tc.dtype != DT_F32 || tc.rank != 2 || rl <= 0 ||
            f->layouts[rl].kind != LAYOUT_MMA || (ia < 0 && !wgmma_reg_a(f, d->args[0], rl)))
            continue;
        int M = tc.shape[0], N = tc.shape[1], K = ta.shape[1];
        if (M % (16 * nw) || N % 16 || N > 256 || K % (f8 ? 32 : 16) || (int64_t)M * N / (32 * nw) > WGMMA_MAX_ACC_REGS)
            continue;
        /* each ring's swizzle: of its contiguous dim; A must be K-major (B
         * too for 8 bits: stored along K and read as loaded, or stored along
         * N of an [N, K] tile read through a trans) */
        int sws[2] = {-1, 0}, rs = 0;
        bool ok = true;
        for (int k = ia < 0; k < 2; k++) {
            const Cand *c = &cs[k ? ib : ia];
            const Layout *ll = &f->layouts[f->values[c->load->results[0]].layout];
            Type lt = vtype(P, c->load->results[0]);
            bool col = ring_colmajor(P, c), kmajor = k ? col != (c->trans[ub] != NULL) : !col;
            /* an 8-bit B stored along N (read as loaded, one use): its ring
             * stays as an mma.sync's, and each iteration stores the tile
             * K-major into a staging buffer wgmma reads (restage_b) */
            if (f8 && k && !kmajor && !col && !c->trans[ub] && c->nuse == 1)
                rs = nvmma_swizzle(tb.dtype, K);
            ok = ok && ll->kind == LAYOUT_BLOCKED && lt.rank == 2 && (k || !col) && (k || !c->trans[ua]) &&
                 (!f8 || !k || kmajor || rs);
            sws[k] = ok ? nvmma_swizzle(lt.dtype, lt.shape[col ? 0 : 1]) : 0;
        }
        int sa = sws[0], sb = rs ? 0 : sws[1];
        if (!ok || !sa || !(sb || rs))
            continue;
        if (nwg == MAX_WG)
            return 0;
        sw[nwg][0] = sa, sw[nwg][1] = sb, ci[nwg][0] = ia, ci[nwg][1] = ib, restage[nwg] = rs;
        wg[nwg++] = d;
    }
    /* the accumulators' layouts become v3 everywhere: no other dot of this
     * loop may share them; one elsewhere (causal attention's second loop)
     * becomes a wgmma there or an mma.sync on the same thread maps, which
     * takes whole 16-row warp tiles (M a multiple of 16 * num_warps) */
    for (ValueId v = 1; v < f->nvalues; v++) {
        const Inst *d = f->values[v].def;
        if (!d || d->op != IR_DOT || d->results[0] != v)
            continue;
        bool shares = false, mine = false, here = false;
        for (int w = 0; w < nwg; w++) {
            shares |= f->values[v].layout == f->values[wg[w]->results[0]].layout;
            mine |= d == wg[w];
        }
        for (int i = 0; i < B->ninsts; i++)
            here |= B->insts[i] == d;
        Type t = vtype(P, v);
        if (shares && !mine && (here || t.rank != 2 || t.shape[0] % (16 * nw) || t.shape[1] % 8))
            return 0;
    }
    /* a ring read by several dots: all of them wgmmas */
    for (int w = 0; w < nwg; w++)
        for (int k = 0; k < 2; k++)
            for (int u = 0; ci[w][k] >= 0 && u < cs[ci[w][k]].nuse; u++) {
                bool in = false;
                for (int x = 0; x < nwg; x++)
                    in |= cs[ci[w][k]].user[u] == wg[x];
                if (!in)
                    return 0;
            }
    for (int w = 0; w < nwg; w++)
        for (int k = 0; k < 2; k++)
            if (ci[w][k] >= 0)
                cs[ci[w][k]].nvmma = sw[w][k];
    return nwg;
}

/* Make dot `d` a wgmma: its accumulator layout (and every value of that
 * layout: the initial value, the loop's carried one, the epilogue's input)
 * becomes MMA v3 with warps stacked along M, whose thread map is v2's with
 * the same warps, and its operands (local_loads of the rings) DOT_OPERANDs
 * of it, which the lowering reads as shared-memory descriptors. */
/* Layout li with `old` replaced by `nl`, in its parents too (a slice of the
 * accumulator, reduced after the loop, follows it); memo: per layout of the
 * first n0, its answer (0: not yet). */
static int remap_layout(Function *f, int li, int old, int nl, int *memo, int n0) {
    if (li == old)
        return nl;
    if (li <= 0 || li >= n0)
        return li;
    if (memo[li])
        return memo[li];
    Layout l = f->layouts[li]; /* a copy: interning may move the table */
    int r = li;
    if (l.kind == LAYOUT_SLICE || l.kind == LAYOUT_DOT_OPERAND) {
        int p = remap_layout(f, l.parent, old, nl, memo, n0);
        if (p != l.parent) {
            l.parent = p;
            r = layout_intern(f, &l);
        }
    }
    memo[li] = r;
    return r;
}

/* Every use of the wgmma result r but the loop's yield first waits for the
 * groups in flight (wgmma_wait), so the dot may keep one (llvm_dot.c) even
 * where an epilogue reads it inside the loop (a flattened loop, flatten.c). */
static void wait_before_uses(Pipe *P, Block *b, ValueId r, const Inst *yield) {
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int k = 0; k < in->nregions; k++)
            wait_before_uses(P, in->regions[k], r, yield);
        bool uses = false;
        for (int a = 0; a < in->nargs; a++)
            uses |= in->args[a] == r;
        if (!uses || in == yield)
            continue;
        Cursor c = {b, i};
        ValueId w = put1(P, &c, IR_WGMMA_WAIT, &r, 1, vtype(P, r), P->f->values[r].layout, in->span);
        for (int a = 0; a < in->nargs; a++)
            if (in->args[a] == r)
                in->args[a] = w;
        i++;
    }
}

static void make_wgmma(Pipe *P, Block *B, Inst *d) {
    Function *f = P->f;
    int old = f->values[d->results[0]].layout;
    Layout v3 = {.kind = LAYOUT_MMA, .rank = 2, .version = 3, .warps_per_cta = {f->num_warps ? f->num_warps : 4, 1}};
    int nl = layout_intern(f, &v3), n0 = f->nlayouts;
    int *memo = calloc((size_t)n0, sizeof *memo);
    if (!memo)
        return; /* cannot happen in practice; the dot then stays an mma.sync */
    for (int v = 1; v < f->nvalues; v++)
        f->values[v].layout = remap_layout(f, f->values[v].layout, old, nl, memo, n0);
    free(memo);
    for (int k = 0; k < 2; k++) {
        const Inst *ld = f->values[d->args[k]].def;
        if (!ld || ld->op != IR_LOCAL_LOAD)
            continue; /* A in registers: its layout, remapped above, is the fragment's */
        Layout op = {.kind = LAYOUT_DOT_OPERAND, .rank = 2, .parent = nl, .op_idx = k, .k_width = 2};
        f->values[d->args[k]].layout = layout_intern(f, &op);
    }
    wait_before_uses(P, B, d->results[0], B->insts[B->ninsts - 1]);
}

/* A wgmma whose operands are ready before an earlier wgmma's result is
 * waited for goes before that wait, with the constants it reads (attention
 * backward's dpT = v @ do.T ahead of the scores' wait): the tensor cores run
 * both while the first one's consumers wait for it alone (llvm_dot.c's
 * wait_group counts the later group). */
static void hoist_wgmmas(Pipe *P, Block *B, Inst **wg, int nwg) {
    /* all their accumulators live at once then: not where they take more
     * than 192 registers a thread (attention backward at HEAD_DIM 128,
     * whose dK and dV take 256, measured 7% slower hoisted) */
    int64_t regs = 0, nw = P->f->num_warps ? P->f->num_warps : 4;
    for (int w = 0; w < nwg; w++)
        regs += ir_numel(vtype(P, wg[w]->results[0])) / (32 * nw);
    if (regs > 192)
        return;
    for (int w = 1; w < nwg; w++) {
        Inst *y = wg[w], *consts[3];
        int iy = ir_inst_index(B, y), lo = 0, nc = 0;
        bool ok = iy >= 0;
        for (int a = 0; a < y->nargs && ok; a++) { /* block arguments and values from outside have no index */
            Inst *d = P->f->values[y->args[a]].def;
            int id = d ? ir_inst_index(B, d) : -1;
            if (id >= 0 && d->op == IR_CONST && !d->nargs && nc < 3)
                consts[nc++] = d;
            else if (id >= lo)
                lo = id + 1;
        }
        Inst *wait = NULL; /* the first wait of an earlier wgmma after y's operands */
        for (int i = lo; ok && i < iy && !wait; i++)
            for (int x = 0; x < w && B->insts[i]->op == IR_WGMMA_WAIT; x++)
                if (B->insts[i]->args[0] == wg[x]->results[0])
                    wait = B->insts[i];
        if (!wait)
            continue;
        for (int c = 0; c < nc; c++)
            if (ir_inst_index(B, consts[c]) > ir_inst_index(B, wait))
                remove_at(B, ir_inst_index(B, consts[c]));
            else
                consts[c--] = consts[--nc];
        remove_at(B, ir_inst_index(B, y));
        int at = ir_inst_index(B, wait); /* the removals came after it */
        ir_insert_insts(P->f, B, at, consts, nc);
        ir_insert_insts(P->f, B, at + nc, &y, 1);
    }
}

/* A wgmma dot's A the loop does not change (attention's Q, loaded once
 * before it) that wgmma_dots left in registers: the bytes of an #nvmma
 * buffer to hold it, which wgmma then reads as it reads a ring, as Triton
 * keeps Q (the 64 registers a thread of a 4-warp 128 x 128 fp16 Q takes go
 * to the softmax); 0 when it stays in registers (a ring's A, P computed in
 * the loop, no swizzle for its rows). */
static int64_t staged_a_bytes(Pipe *P, Block *B, Cand *cs, int n, const Inst *d) {
    ValueId a = d->args[0];
    Type t = vtype(P, a);
    if (cand_of(cs, n, a) >= 0 || a >= P->n0 || !P->home[a] || P->home[a] == B || !P->f->values[a].def ||
        P->f->layouts[P->f->values[a].layout].kind != LAYOUT_DOT_OPERAND || !nvmma_swizzle(t.dtype, t.shape[1]))
        return 0;
    return (ir_numel(t) * (dt_bits(t.dtype) / 8) + 127) & ~127;
}

/* Before the loop (cursor c): a's buffer, filled from the registers a was
 * converted from (a row-major load's vectors store whole), and its
 * local_load, which make_wgmma turns into the dot's A operand: the
 * lowering reads the buffer's address only (llvm_shared.c), and the dot's
 * use in the loop keeps the buffer alive through it (smem.c). */
static ValueId stage_a(Pipe *P, Cursor *c, ValueId a, Span sp) {
    Function *f = P->f;
    const Inst *cv = f->values[a].def;
    ValueId src = cv->op == IR_CONVERT_LAYOUT ? cv->args[0] : a;
    /* the same registers staged before an earlier loop of this block (the
     * causal attention's two loops over one Q): its buffer still holds
     * them, nothing else writes it, and storing them again would keep the
     * registers live through that loop (64 a thread, ptxas spilling) */
    for (int i = 0; i < P->nstg; i++)
        if (P->stg[i].b == c->b && P->stg[i].src == src && f->values[P->stg[i].load].layout == f->values[a].layout &&
            ir_type_eq(vtype(P, P->stg[i].load), vtype(P, a)))
            return P->stg[i].load;
    Type t = vtype(P, a), bt = t;
    bt.mem = IR_MEM_SHARED;
    Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = nvmma_swizzle(t.dtype, t.shape[1]),
                 .elem_bits = dt_bits(t.dtype)};
    Inst *al = put(P, c, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &nl), sp);
    al->attr.offset = -1;
    put(P, c, IR_LOCAL_STORE, (ValueId[]){al->results[0], src}, 2, NULL, 0, sp);
    ValueId load = put1(P, c, IR_LOCAL_LOAD, &al->results[0], 1, t, f->values[a].layout, sp);
    if (P->nstg < (int)(sizeof P->stg / sizeof P->stg[0]))
        P->stg[P->nstg++] = (struct Staged){c->b, src, load};
    return load;
}

/* ---- fp8 dots outside loops: wgmma ---- */

/* Triton gives an fp8 dot on Hopper MMA v3 with both operands in shared
 * memory (test_dot's fp8 cases look for wgmma ... k32.f32.e5m2.e5m2); the
 * rings above serve only loops, so a dot of the function's own body is
 * staged here: A into an #nvmma buffer [M, K] (K-major), B into a
 * transposed one [K, N] (K-major too: wgmma transposes no 8-bit operand),
 * each filled by a local_store of the registers its convert read and read
 * back by a local_load make_wgmma turns into a descriptor. The conditions
 * are wgmma_dots' (num_warps 4 or 8, M a multiple of 16 * num_warps, N of
 * 16 up to 256, at most WGMMA_MAX_ACC_REGS accumulator registers a thread), K a multiple
 * of 32, fp32 accumulation with no imprecise partial sums below K, and no
 * other dot of the block on the accumulator's layout but ones an mma.sync
 * on v3's thread maps can do (whole 16-row warp tiles). */
static bool fp8_wgmma_dot(Pipe *P, const Block *B, const Inst *d, int *sa, int *sb) {
    Function *f = P->f;
    int nw = f->num_warps ? f->num_warps : 4;
    if (d->op != IR_DOT || d->nargs < 3 || (nw != 4 && nw != 8))
        return false;
    Type ta = vtype(P, d->args[0]), tb = vtype(P, d->args[1]), tc = vtype(P, d->results[0]);
    int rl = f->values[d->results[0]].layout;
    if (!dt_is_nv_fp8(ta.dtype) || !dt_is_nv_fp8(tb.dtype) || tc.dtype != DT_F32 || tc.rank != 2 || rl <= 0 ||
        f->layouts[rl].kind != LAYOUT_MMA || layout_is_wgmma(f, rl))
        return false;
    int M = tc.shape[0], N = tc.shape[1], K = ta.shape[1];
    if (M % (16 * nw) || N % 16 || N > 256 || K % 32 || (int64_t)M * N / (32 * nw) > WGMMA_MAX_ACC_REGS ||
        (d->attr.num > 0 && d->attr.num < K))
        return false;
    for (int i = 0; i < B->ninsts; i++) {
        const Inst *o = B->insts[i];
        Type t = o->nresults ? vtype(P, o->results[0]) : ta;
        if (o != d && o->op == IR_DOT && f->values[o->results[0]].layout == rl &&
            (t.rank != 2 || t.shape[0] % (16 * nw) || t.shape[1] % 8))
            return false;
    }
    *sa = nvmma_swizzle(ta.dtype, K), *sb = *sa;
    return *sa > 0;
}

/* Operand k of d into an #nvmma buffer (before d, at cursor c): the value
 * the dot reads is a local_load of it in d's operand layout. */
static ValueId stage_operand(Pipe *P, Cursor *c, Inst *d, int k, int swizzle) {
    Function *f = P->f;
    ValueId v = d->args[k];
    const Inst *cv = f->values[v].def;
    ValueId src = cv && cv->op == IR_CONVERT_LAYOUT ? cv->args[0] : v;
    Type t = vtype(P, v), bt = t;
    bt.mem = IR_MEM_SHARED;
    Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = swizzle, .elem_bits = 8, .transposed = k == 1};
    Inst *al = put(P, c, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &nl), d->span);
    al->attr.offset = -1;
    put(P, c, IR_LOCAL_STORE, (ValueId[]){al->results[0], src}, 2, NULL, 0, d->span);
    return put1(P, c, IR_LOCAL_LOAD, &al->results[0], 1, t, f->values[v].layout, d->span);
}

static void fp8_wgmma(Pipe *P, Block *B) {
    for (int i = 0; i < B->ninsts; i++) {
        Inst *d = B->insts[i];
        int sa, sb;
        if (!fp8_wgmma_dot(P, B, d, &sa, &sb))
            continue;
        Cursor c = {B, i};
        ValueId a = stage_operand(P, &c, d, 0, sa), b = stage_operand(P, &c, d, 1, sb);
        d->args[0] = a, d->args[1] = b;
        make_wgmma(P, B, d);
        P->staged = true;
        i = ir_inst_index(B, d);
    }
}

/* ---- one loop: the plan ---- */

/* What pipeline_loop decides for a loop before it rewrites anything: which
 * loads get rings (cs, with the loop-carried values their address slices
 * read), which dots become wgmma, which rings TMA fills, how deep the rings
 * are (S stages, R slots, copies D iterations ahead) and whether a producer
 * warpgroup runs the copies. */
typedef struct Plan {
    Cand cs[MAX_LOADS];
    int n, ncar;
    uint8_t *carried; /* per carried value (ncar): read by an address slice */
    Inst *wg[MAX_WG];
    int nwg, ntma;
    int64_t per_stage, scratch, staged[MAX_WG];
    int restage[MAX_WG]; /* fp8 B stored along N: its staging buffer's swizzle (restage_b), else 0 */
    int restage_a[MAX_WG]; /* fp8 A computed in the loop (attention's P): its buffer's swizzle (restage_a) */
    int S, R, D, extra;
    bool ws;   /* left to a producer warpgroup (warpspec.c): no copies ahead */
    bool late; /* the copies after the wgmma dot, into the slot it retired (plan_late) */
} Plan;

static void plan_free(Plan *pl) { free(pl->carried); }

/* Try one candidate's address slices; undo their marks if they cannot run
 * ahead. False only when out of memory. */
static bool try_slices(Pipe *P, Block *B, Inst *loop, Inst *in, Plan *pl, bool *ok) {
    uint8_t *save = malloc((size_t)P->n0), *csave = malloc((size_t)pl->ncar + 1);
    if (!save || !csave) {
        free(save), free(csave);
        return false;
    }
    memcpy(save, P->in_slice, (size_t)P->n0);
    memcpy(csave, pl->carried, (size_t)pl->ncar + 1);
    *ok = slice_of(P, B, loop, in->args[0], pl->carried) &&
          (in->nargs < 2 || slice_of(P, B, loop, in->args[1], pl->carried));
    if (!*ok) {
        memcpy(P->in_slice, save, (size_t)P->n0);
        memcpy(pl->carried, csave, (size_t)pl->ncar + 1);
    }
    free(save), free(csave);
    return true;
}

/* The loads that get rings: candidates whose address slices can run ahead.
 * An FMA dot reads its rings only in pairs: a lone one is a plain ring in a
 * tl.range loop, else it is skipped and the slices start over. */
static void plan_loads(Pipe *P, Block *B, Inst *loop, Plan *pl) {
    Inst *skip[MAX_LOADS]; /* FMA operands whose partner's address slice cannot run ahead */
    int nskip = 0;
    bool again = true;
    while (again) {
        again = false;
        pl->n = 0;
        memset(pl->carried, 0, (size_t)pl->ncar + 1);
        memset(P->in_slice, 0, (size_t)P->n0);
        for (int i = 0; i < B->ninsts && pl->n < MAX_LOADS; i++) {
            Inst *in = B->insts[i];
            bool skipped = false, ok;
            for (int q = 0; q < nskip; q++)
                skipped |= skip[q] == in;
            if (skipped || !candidate(P, B, loop, in, loop->attr.num_stages > 0, &pl->cs[pl->n]))
                continue;
            if (!try_slices(P, B, loop, in, pl, &ok))
                break;
            pl->n += ok;
        }
        Cand *cs = pl->cs;
        for (int i = 0; i < pl->n && !again; i++) {
            bool pair = false;
            for (int j = 0; j < pl->n && cs[i].fma; j++)
                pair |= j != i && cs[j].dot == cs[i].dot && cs[j].fma == 3 - cs[i].fma;
            if (!cs[i].fma || pair)
                continue;
            if (loop->attr.num_stages > 0 || nskip == MAX_LOADS) {
                cs[i].fma = 0;
                cs[i].dot = NULL;
            } else {
                skip[nskip++] = cs[i].load;
                again = true;
            }
        }
    }
}

/* Which dots become wgmma and which rings TMA fills. A transposed or shared
 * operand other than wgmma's stays as it was; TMA fills a descriptor's ring
 * only when it is a wgmma operand's (#nvmma of the map's swizzle), and a
 * load only TMA could copy is left to itself otherwise (its address slice,
 * already marked, dies unused). When an operand's ring goes, the dots stay
 * mma.sync. False when no ring is left. */
static bool plan_operands(Pipe *P, Block *B, Plan *pl) {
    Function *f = P->f;
    Cand *cs = pl->cs;
    for (int i = 0; i < pl->n; i++)
        cs[i].nvmma = 0;
    pl->nwg = wgmma_dots(P, B, cs, pl->n, pl->wg, pl->restage);
    for (;;) {
        int n = pl->n;
        for (int i = 0; i < n; i++)
            if ((cs[i].trans[0] || cs[i].nuse > 1) && !cs[i].nvmma)
                cs[i--] = cs[--n];
        pl->ntma = 0;
        for (int i = 0; i < n; i++) {
            Cand *c = &cs[i];
            Type lt = vtype(P, c->load->results[0]);
            if (c->tile && (!c->nvmma || ring_colmajor(P, c) || c->nvmma != nvmma_swizzle(lt.dtype, lt.shape[1])))
                c->tile = NULL;
            if (!c->tile && !c->cp_ok) {
                cs[i--] = cs[--n];
                continue;
            }
            pl->ntma += c->tile != NULL;
        }
        pl->n = n;
        bool gone = false;
        for (int w = 0; w < pl->nwg; w++) {
            Inst *d = pl->wg[w];
            gone |= cand_of(cs, n, d->args[1]) < 0 ||
                    (cand_of(cs, n, d->args[0]) < 0 && !wgmma_reg_a(f, d->args[0], f->values[d->results[0]].layout));
        }
        if (!gone)
            return n > 0;
        pl->nwg = 0;
        for (int i = 0; i < n; i++)
            cs[i].nvmma = 0;
    }
}

/* Shared memory the loop's own ops need beside the rings. An FMA dot that
 * reads its operands from the rings, the wgmma dots (they read them from
 * there too), and the loads' operand converts, which the local_loads
 * replace, need none. */
static int64_t loop_scratch(Pipe *P, const Block *B, const Plan *pl) {
    int64_t scratch = 0;
    for (int i = 0; i < B->ninsts; i++) {
        const Inst *in = B->insts[i];
        bool reads_rings = false;
        for (int w = 0; w < pl->nwg; w++)
            reads_rings |= in == pl->wg[w];
        for (int j = 0; j < pl->n; j++) {
            reads_rings |= pl->cs[j].fma && pl->cs[j].dot == in;
            for (int u = 0; u < pl->cs[j].nuse; u++)
                reads_rings |= pl->cs[j].convert[u] == in || pl->cs[j].trans[u] == in;
        }
        int64_t s = op_scratch(P->f, in, !reads_rings); /* regions: a flattened loop's epilogue, under its if */
        scratch = s > scratch ? s : scratch;
    }
    return scratch;
}

/* Rings that fit: fewer stages until they do. A wgmma dot keeps one group
 * in flight past its iteration (llvm_dot.c), still reading its stage: its
 * rings get one slot more than the stages (R = S + 1), so the copies still
 * run D = S - 1 iterations ahead and refill the slot read two iterations ago
 * (R - 2 ahead: the invariant the lowering relies on for rings of 3+
 * slots); a dot with A in registers waits for its group at once. A
 * loop-invariant A goes to shared memory where two stages still fit beside
 * it. False when not even two stages fit. */
static bool plan_stages(Pipe *P, Block *B, Plan *pl, int S) {
    pl->per_stage = pl->ntma ? 8 : 0; /* and an mbarrier per slot */
    for (int i = 0; i < pl->n; i++) {
        Type t = vtype(P, pl->cs[i].load->results[0]);
        pl->cs[i].bytes = (int)(ir_numel(t) * (dt_bits(t.dtype) / 8));
        pl->per_stage += (pl->cs[i].bytes + 127) & ~127;
    }
    pl->scratch = loop_scratch(P, B, pl);
    pl->extra = 0;
    for (int w = 0; w < pl->nwg; w++)
        pl->extra |= cand_of(pl->cs, pl->n, pl->wg[w]->args[0]) >= 0;
    int64_t nstaged = 0;
    for (int w = 0; w < pl->nwg; w++) {
        /* wgmma reads no 8-bit A from registers: such an A is staged where
         * it fits or not at all (then the rings get fewer stages, or none) */
        const Inst *d = pl->wg[w];
        bool f8_reg = dt_is_nv_fp8(vtype(P, d->args[0]).dtype) && cand_of(pl->cs, pl->n, d->args[0]) < 0;
        pl->staged[w] = staged_a_bytes(P, B, pl->cs, pl->n, d);
        if (pl->staged[w] && !f8_reg &&
            pl->per_stage * (2 + pl->extra) + pl->scratch + nstaged + pl->staged[w] > P->max_shared)
            pl->staged[w] = 0;
        nstaged += pl->staged[w];
        Type ta = vtype(P, d->args[0]);
        pl->restage_a[w] = f8_reg && !pl->staged[w] ? nvmma_swizzle(ta.dtype, ta.shape[1]) : 0;
        nstaged += pl->restage_a[w] ? (ir_numel(ta) + 127) & ~127 : 0;
    }
    pl->scratch += nstaged;
    for (int w = 0; w < pl->nwg; w++) /* restage_b's buffers, 8-bit */
        pl->scratch += pl->restage[w] ? (ir_numel(vtype(P, pl->wg[w]->args[1])) + 127) & ~127 : 0;
    while (S >= 2 && pl->per_stage * (S + pl->extra) + pl->scratch > P->max_shared)
        S--;
    if (S < 2 && pl->extra && 2 * pl->per_stage + pl->scratch <= P->max_shared)
        S = 2, pl->extra = 0; /* two slots, the wgmma waited for in its iteration, beat none */
    pl->S = S, pl->R = S + pl->extra, pl->D = S - 1;
    return S >= 2;
}

/* Triton's order for a loop of one wgmma dot whose A comes from a ring:
 * the iteration's copies go after the dot, whose wait_group 1 has retired
 * the previous iteration's group, into the slot that group read. Then the
 * rings need S slots, not S + 1 (the copies still D = S - 1 ahead), and S
 * is the config's again where those fit: 128x256x64 at 3 stages in 144 KB,
 * not 192, so a persistent tile loop flattens beside its epilogue (tutorial
 * 09), and smaller blocks fit more CTAs an SM. Not for a producer warpgroup
 * (its consumers release slots, ws_hold) nor several dots (attention). */
static void plan_late(Pipe *P, Plan *pl, int S) {
    if (pl->ws || !pl->extra || pl->nwg != 1)
        return;
    while (S >= 2 && pl->per_stage * S + pl->scratch > P->max_shared)
        S--;
    if (S < pl->S)
        return;
    pl->late = true, pl->extra = 0;
    pl->S = S, pl->R = S, pl->D = S - 1;
}

/* The most shared scratch an op of b before `end` needs (its regions'
 * too); *rings when one of them allocates a buffer. */
static int64_t scratch_before(const Function *f, const Block *b, const Inst *end, bool *rings) {
    int64_t before = 0;
    for (int i = 0; i < b->ninsts && b->insts[i] != end; i++) {
        *rings |= b->insts[i]->op == IR_LOCAL_ALLOC;
        int64_t sb = op_scratch(f, b->insts[i], true);
        before = sb > before ? sb : before;
    }
    return before;
}

/* Warp specialisation: when every ring is TMA's and feeds the wgmma dots,
 * the loop may be left to a producer warpgroup (warpspec.c decides whether
 * it is wanted and the producer can compute the coordinates). Its rings
 * then live from the kernel's start, with a second ring of barriers (the
 * empty ones, 8 bytes a slot), beside what the ops before the loop need
 * (the function's body's and, for a loop in an if's then-branch, those
 * before it there; not beside an earlier loop's rings, for which no room
 * was counted). */
static void plan_ws(Pipe *P, Block *parent, Inst *loop, Plan *pl) {
    pl->ws = false;
    Inst *guard;
    if (!pl->nwg || pl->ntma != pl->n || ir_ws_block(P->f, loop, &guard) != parent)
        return;
    bool rings = false;
    int64_t before = scratch_before(P->f, P->f->body, guard ? guard : loop, &rings);
    if (guard) {
        int64_t bp = scratch_before(P->f, parent, loop, &rings);
        before = bp > before ? bp : before;
    }
    ValueId coords[2 * MAX_LOADS];
    for (int i = 0; i < pl->n; i++) {
        coords[2 * i] = pl->cs[i].tile->args[2], coords[2 * i + 1] = pl->cs[i].tile->args[3];
        if (ir_kernel_map(P->f, pl->cs[i].tile->args[1]))
            return; /* a map the kernel makes: the producer starts before the code that makes it */
    }
    pl->ws = !rings && (pl->per_stage + 8) * pl->R + (before > pl->scratch ? before : pl->scratch) <= P->max_shared &&
             warpspec_loop_ok(P->f, loop, coords, 2 * pl->n);
}

/* ---- one loop: the rewrite ---- */

/* The rings (R slots of each load's tile), the staged wgmma A operands, and
 * TMA's mbarriers (one per slot), before the loop. */
static ValueId alloc_rings(Pipe *P, Block *parent, Inst *loop, Plan *pl) {
    Function *f = P->f;
    Span sp = loop->span;
    int R = pl->R;
    for (int w = 0; w < pl->nwg; w++) {
        if (!pl->staged[w])
            continue;
        Cursor sc = {parent, ir_inst_index(parent, loop)};
        pl->wg[w]->args[0] = stage_a(P, &sc, pl->wg[w]->args[0], sp);
        P->staged = true;
    }
    Cursor top = {parent, ir_inst_index(parent, loop)};
    for (int i = 0; i < pl->n; i++) {
        Type t = vtype(P, pl->cs[i].load->results[0]);
        Type bt = t;
        bt.mem = IR_MEM_SHARED;
        bt.rank++;
        memmove(bt.shape + 1, t.shape, sizeof t.shape[0] * (size_t)t.rank);
        bt.shape[0] = R;
        Inst *al = put(P, &top, IR_LOCAL_ALLOC, NULL, 0, &bt, ring_layout(P, &pl->cs[i]), sp);
        al->attr.offset = -1;
        pl->cs[i].buf = al->results[0];
    }
    if (!pl->ntma)
        return 0;
    Type bt = ir_block(ir_scalar(DT_I64), 2, (int32_t[]){R, 1});
    bt.mem = IR_MEM_SHARED;
    Layout bl = {.kind = LAYOUT_SHARED, .rank = 1, .vec = 1, .per_phase = 1, .max_phase = 1};
    Inst *al = put(P, &top, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &bl), sp);
    al->attr.offset = -1;
    put(P, &top, IR_MBAR_INIT, &al->results[0], 1, NULL, 0, sp);
    return al->results[0];
}

/* Iterations 0 .. D-1's copies before the loop; cur[] ends as the carried
 * values the address slices reach at iteration D. */
static void emit_prologue(Pipe *P, Block *parent, Inst *loop, Plan *pl, ValueId bars, ValueId *cur) {
    Block *B = loop->regions[0];
    Span sp = loop->span;
    ValueId lb = loop->args[0], ub = loop->args[1], step = loop->args[2];
    Type ivt = vtype(P, lb), i32 = ir_scalar(DT_I32);
    Cursor pre = {parent, ir_inst_index(parent, loop)};
    Inst *y = B->insts[B->ninsts - 1];
    for (int k = 0; k < pl->ncar; k++)
        cur[k] = loop->args[3 + k];
    for (int j = 0; j < pl->D; j++) {
        memset(P->map, 0, sizeof *P->map * (size_t)P->n0);
        ValueId iv = lb;
        if (j) {
            ValueId cj = put_const(P, &pre, ivt, j, sp);
            ValueId off = put1(P, &pre, IR_MUL, (ValueId[]){cj, step}, 2, ivt, 0, sp);
            iv = put1(P, &pre, IR_ADD, (ValueId[]){lb, off}, 2, ivt, 0, sp);
        }
        ValueId valid = put_cmp(P, &pre, CMP_LT, iv, ub, sp);
        P->map[B->args[0]] = iv;
        for (int k = 0; k < pl->ncar; k++)
            if (pl->carried[k])
                P->map[B->args[k + 1]] = cur[k];
        clone_slice(P, B, &pre);
        issue(P, &pre, pl->cs, pl->n, valid, put_const(P, &pre, i32, j, sp), bars, sp);
        for (int k = 0; k < pl->ncar; k++)
            if (pl->carried[k])
                cur[k] = mapped(P, y->args[k]);
    }
}

/* The loop carries the running-ahead values (from cur[]; ahead[] gets their
 * block arguments) and the ring indices: the slot read (idx[0]), the slot
 * filled (idx[1]) and, with TMA, the phase bit (idx[2]). Returns how many
 * indices. The drain goes after the loop. */
static int extend_loop(Pipe *P, Block *parent, Inst *loop, Plan *pl, const ValueId *cur, ValueId *ahead,
                       ValueId idx[3], ValueId bars) {
    Function *f = P->f;
    Block *B = loop->regions[0];
    Span sp = loop->span;
    Type i32 = ir_scalar(DT_I32);
    Cursor pre = {parent, ir_inst_index(parent, loop)};
    int nextra = 0;
    for (int k = 0; k < pl->ncar; k++)
        nextra += pl->carried[k];
    int nidx = pl->ntma ? 3 : 2;
    int nargs = loop->nargs + nextra + nidx, nres = loop->nresults + nextra + nidx;
    ValueId *args = arena_alloc(f->arena, sizeof *args * (size_t)nargs);
    ValueId *res = arena_alloc(f->arena, sizeof *res * (size_t)nres);
    memcpy(args, loop->args, sizeof *args * (size_t)loop->nargs);
    memcpy(res, loop->results, sizeof *res * (size_t)loop->nresults);
    int a = loop->nargs, r = loop->nresults;
    for (int k = 0; k < pl->ncar; k++) {
        if (!pl->carried[k])
            continue;
        ValueId orig = B->args[k + 1];
        args[a++] = cur[k];
        ahead[k] = ir_block_arg(f, B, vtype(P, orig));
        f->values[ahead[k]].layout = f->values[orig].layout;
        f->values[ahead[k]].name = f->values[orig].name;
        res[r] = ir_value_new(f, vtype(P, orig));
        f->values[res[r]].layout = f->values[orig].layout;
        f->values[res[r++]].def = loop;
    }
    args[a++] = put_const(P, &pre, i32, 0, sp);
    args[a++] = put_const(P, &pre, i32, pl->D % pl->R, sp);
    if (pl->ntma)
        args[a++] = put_const(P, &pre, i32, 0, sp);
    idx[0] = ir_block_arg(f, B, i32), idx[1] = ir_block_arg(f, B, i32);
    idx[2] = pl->ntma ? ir_block_arg(f, B, i32) : 0;
    for (int q = 0; q < nidx; q++) {
        res[r] = ir_value_new(f, i32);
        f->values[res[r++]].def = loop;
    }
    loop->args = args, loop->nargs = nargs, loop->results = res, loop->nresults = nres;
    Cursor post = {parent, ir_inst_index(parent, loop) + 1};
    put(P, &post, IR_ASYNC_WAIT, NULL, 0, NULL, 0, sp)->attr.num = 0; /* also drains wgmma (llvm_shared.c) */
    if (bars)
        put(P, &post, IR_MBAR_INVAL, &bars, 1, NULL, 0, sp);
    return nidx;
}

/* A stage's tile as one use reads it: transposed for B = x.T (the other
 * major-ness), in the dot's DOT_OPERAND layout for an FMA dot (which the
 * lowering leaves in shared memory for the dot to read). */
static void read_stage(Pipe *P, Cursor *c, Cand *cd, int u, ValueId stage, Span sp) {
    Function *f = P->f;
    Block *B = c->b;
    ValueId view = stage;
    if (cd->trans[u]) {
        Type tt = vtype(P, view);
        int32_t s0 = tt.shape[0];
        tt.shape[0] = tt.shape[1], tt.shape[1] = s0;
        Layout tl_ = f->layouts[f->values[view].layout];
        tl_.transposed = !tl_.transposed;
        view = put1(P, c, IR_MEMDESC_TRANS, &view, 1, tt, layout_intern(f, &tl_), sp);
    }
    ValueId out = cd->out[u];
    int ll = f->values[out].layout;
    if (cd->fma) {
        Layout op = {.kind = LAYOUT_DOT_OPERAND, .rank = 2, .parent = f->values[cd->dot->results[0]].layout,
                     .op_idx = cd->fma - 1};
        ll = layout_intern(f, &op);
    }
    ValueId v = put1(P, c, IR_LOCAL_LOAD, &view, 1, vtype(P, out), ll, cd->load->span);
    f->values[v].name = f->values[out].name;
    ir_replace_uses(B, out, v);
}

/* The copies of iteration iv + D into the write slot, at c (where the
 * address slice is cloned on the values running ahead). */
static void prefetch(Pipe *P, Inst *loop, Plan *pl, const ValueId *ahead, const ValueId idx[3], ValueId bars,
                     Cursor *c) {
    Block *B = loop->regions[0];
    Span sp = loop->span;
    Type ivt = vtype(P, loop->args[0]);
    memset(P->map, 0, sizeof *P->map * (size_t)P->n0);
    ValueId cd = put_const(P, c, ivt, pl->D, sp);
    ValueId off = put1(P, c, IR_MUL, (ValueId[]){cd, loop->args[2]}, 2, ivt, 0, sp);
    ValueId ivn = put1(P, c, IR_ADD, (ValueId[]){B->args[0], off}, 2, ivt, 0, sp);
    ValueId valid = put_cmp(P, c, CMP_LT, ivn, loop->args[1], sp);
    P->map[B->args[0]] = ivn;
    for (int k = 0; k < pl->ncar; k++)
        if (pl->carried[k])
            P->map[B->args[k + 1]] = ahead[k];
    clone_slice(P, B, c);
    issue(P, c, pl->cs, pl->n, valid, idx[1], bars, sp);
}

/* The body: wait for this iteration's stage, prefetch D ahead (into the
 * stage the last iteration read; plan_late: after the dot, into the one the
 * dot before it read), then read this iteration's. Left to a producer
 * (D = 0): the iteration's own copies into its own slot (at coordinates
 * computed again here: a later tile's come later in the body), then the
 * wait for them, which the warp-spec pass splits between the producer and
 * the loop (a loop correct, if slow, without it). */
static void emit_body(Pipe *P, Inst *loop, Plan *pl, const ValueId *ahead, const ValueId idx[3], ValueId bars) {
    Block *B = loop->regions[0];
    Span sp = loop->span;
    int first = B->ninsts;
    for (int i = 0; i < pl->n; i++)
        first = ir_inst_index(B, pl->cs[i].load) < first ? ir_inst_index(B, pl->cs[i].load) : first;
    Cursor c = {B, first};
    if (pl->n > pl->ntma)
        put(P, &c, IR_ASYNC_WAIT, NULL, 0, NULL, 0, sp)->attr.num = (pl->D - 1) * cp_groups(pl->cs, pl->n);
    if (pl->ws) { /* the prefetch of the iteration itself: its slice as it is (an empty map), here */
        memset(P->map, 0, sizeof *P->map * (size_t)P->n0);
        clone_slice(P, B, &c);
        issue(P, &c, pl->cs, pl->n, put_const(P, &c, ir_scalar(DT_I1), 1, sp), idx[0], bars, sp);
    }
    if (pl->ntma) {
        ValueId bar = stage_view(P, &c, bars, idx[0], sp);
        put(P, &c, IR_MBAR_WAIT, (ValueId[]){bar, idx[2]}, 2, NULL, 0, sp);
    }
    if (!pl->ws && !pl->late)
        prefetch(P, loop, pl, ahead, idx, bars, &c);
    for (int i = 0; i < pl->n; i++) {
        ValueId stage = stage_view(P, &c, pl->cs[i].buf, idx[0], sp);
        for (int u = 0; u < (pl->cs[i].nuse ? pl->cs[i].nuse : 1); u++)
            read_stage(P, &c, &pl->cs[i], u, stage, sp);
    }
    if (pl->late) {
        Cursor after = {B, ir_inst_index(B, pl->wg[0]) + 1};
        prefetch(P, loop, pl, ahead, idx, bars, &after);
    }
}

/* The yield: the next ring indices (the phase flips each time the read
 * index wraps) and the running-ahead values. */
static void emit_yield(Pipe *P, Inst *loop, Plan *pl, const ValueId idx[3], int nidx) {
    Function *f = P->f;
    Block *B = loop->regions[0];
    Span sp = loop->span;
    Type i32 = ir_scalar(DT_I32);
    Inst *y = B->insts[B->ninsts - 1];
    Cursor yc = {B, B->ninsts - 1};
    ValueId one = put_const(P, &yc, i32, 1, sp), slots = put_const(P, &yc, i32, pl->R, sp);
    ValueId zero = put_const(P, &yc, i32, 0, sp);
    ValueId nxt[3], wrap0 = 0;
    for (int q = 0; q < 2; q++) {
        ValueId x1 = put1(P, &yc, IR_ADD, (ValueId[]){idx[q], one}, 2, i32, 0, sp);
        ValueId wrap = put_cmp(P, &yc, CMP_EQ, x1, slots, sp);
        wrap0 = q ? wrap0 : wrap;
        nxt[q] = put1(P, &yc, IR_SELECT, (ValueId[]){wrap, zero, x1}, 3, i32, 0, sp);
    }
    if (pl->ntma) {
        ValueId flip = put1(P, &yc, IR_SELECT, (ValueId[]){wrap0, one, zero}, 3, i32, 0, sp);
        nxt[2] = put1(P, &yc, IR_XOR, (ValueId[]){idx[2], flip}, 2, i32, 0, sp);
    }
    int nextra = 0;
    for (int k = 0; k < pl->ncar; k++)
        nextra += pl->carried[k];
    ValueId *yargs = arena_alloc(f->arena, sizeof *yargs * (size_t)(y->nargs + nextra + nidx));
    memcpy(yargs, y->args, sizeof *yargs * (size_t)y->nargs);
    int ya = y->nargs;
    for (int k = 0; k < pl->ncar; k++)
        if (pl->carried[k])
            yargs[ya++] = mapped(P, y->args[k]);
    for (int q = 0; q < nidx; q++)
        yargs[ya++] = nxt[q];
    y->args = yargs, y->nargs = ya;
}

/* An e4m3 / e5m2 dot's B stored along N (wgmma_dots' restage): wgmma reads
 * 8-bit operands K-major only, so each iteration reads the tile from its
 * ring (filled as an mma.sync's) into registers, in the layout it was
 * loaded in, and stores it K-major into a staging #nvmma buffer allocated
 * before the loop, as fp8_wgmma stages a dot outside loops; the dot reads
 * that. Triton stores such a B from the registers of a plain load, with no
 * pipelining ("poor performance is expected"); here its copies still run
 * ahead. The buffer is no ring, so the dot waits for its group at once
 * (llvm_dot.c, wgmma_keeps_one), and the barrier pass orders the next
 * iteration's store after every warp's read (smem.c: a dot reads its
 * buffers where it is). */
static void restage_b(Pipe *P, Block *parent, Inst *loop, Inst *d, int swizzle, int layout) {
    Function *f = P->f;
    Block *B = loop->regions[0];
    Inst *ld = f->values[d->args[1]].def;
    if (!ld || ld->op != IR_LOCAL_LOAD || ir_inst_index(B, ld) < 0)
        return; /* cannot happen: read_stage made it */
    int op = f->values[ld->results[0]].layout;
    f->values[ld->results[0]].layout = layout;
    Type t = vtype(P, ld->results[0]), bt = t;
    bt.mem = IR_MEM_SHARED;
    Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = swizzle, .elem_bits = 8, .transposed = true};
    Cursor top = {parent, ir_inst_index(parent, loop)};
    Inst *al = put(P, &top, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &nl), d->span);
    al->attr.offset = -1;
    Cursor c = {B, ir_inst_index(B, ld) + 1};
    put(P, &c, IR_LOCAL_STORE, (ValueId[]){al->results[0], ld->results[0]}, 2, NULL, 0, d->span);
    d->args[1] = put1(P, &c, IR_LOCAL_LOAD, &al->results[0], 1, t, op, d->span);
}

/* An e4m3 / e5m2 dot's A computed in the loop (attention's P, cast from the
 * scores): wgmma reads 8-bit operands from shared memory only, so each
 * iteration stores the registers it was converted from into an #nvmma
 * buffer allocated before the loop, K-major as a ring's A, and the dot reads
 * that (make_wgmma then makes the local_load a descriptor). As restage_b's
 * buffer, it is no ring: the dot waits for its group before the next
 * iteration's store (llvm_dot.c, wgmma_keeps_one), which the barrier pass
 * orders after every warp's read. */
static void restage_a(Pipe *P, Block *parent, Inst *loop, Inst *d, int swizzle) {
    Function *f = P->f;
    Block *B = loop->regions[0];
    ValueId a = d->args[0];
    const Inst *cv = f->values[a].def;
    ValueId src = cv && cv->op == IR_CONVERT_LAYOUT ? cv->args[0] : a;
    Type t = vtype(P, a), bt = t;
    bt.mem = IR_MEM_SHARED;
    Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = swizzle, .elem_bits = dt_bits(t.dtype)};
    Cursor top = {parent, ir_inst_index(parent, loop)};
    Inst *al = put(P, &top, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &nl), d->span);
    al->attr.offset = -1;
    Cursor c = {B, ir_inst_index(B, d)};
    put(P, &c, IR_LOCAL_STORE, (ValueId[]){al->results[0], src}, 2, NULL, 0, d->span);
    d->args[0] = put1(P, &c, IR_LOCAL_LOAD, &al->results[0], 1, t, f->values[a].layout, d->span);
}

/* The old loads and converts go; the dots chosen become wgmma. */
static void retire_loads(Pipe *P, Block *B, Plan *pl) {
    for (int i = 0; i < pl->n; i++) {
        for (int u = 0; u < pl->cs[i].nuse; u++) {
            remove_at(B, ir_inst_index(B, pl->cs[i].convert[u]));
            if (pl->cs[i].trans[u])
                remove_at(B, ir_inst_index(B, pl->cs[i].trans[u]));
        }
        remove_at(B, ir_inst_index(B, pl->cs[i].load));
    }
    for (int w = 0; w < pl->nwg; w++)
        make_wgmma(P, B, pl->wg[w]);
    hoist_wgmmas(P, B, pl->wg, pl->nwg);
}

/* One loop: plan (loads, operands, stages, warp specialisation), then
 * rewrite (rings, prologue, the loop's new carried values and drain, body,
 * yield, the old loads gone). */
void pipeline_loop(Pipe *P, Block *parent, Inst *loop) {
    Block *B = loop->regions[0];
    int S = loop->attr.num_stages > 0 ? loop->attr.num_stages : P->f->num_stages;
    if (S < 2 || !B || B->ninsts < 1 || B->insts[B->ninsts - 1]->op != IR_YIELD)
        return;
    Plan pl = {.ncar = loop->nresults};
    pl.carried = calloc((size_t)pl.ncar + 1, 1);
    if (!pl.carried)
        return;
    plan_loads(P, B, loop, &pl);
    if (!pl.n || !plan_operands(P, B, &pl) || !plan_stages(P, B, &pl, S)) {
        plan_free(&pl);
        return;
    }
    plan_ws(P, parent, loop, &pl);
    plan_late(P, &pl, S);
    int rsl[MAX_WG] = {0}; /* a restaged B's layout as loaded */
    for (int w = 0; w < pl.nwg; w++) {
        int i = pl.restage[w] ? cand_of(pl.cs, pl.n, pl.wg[w]->args[1]) : -1;
        rsl[w] = i >= 0 ? P->f->values[pl.cs[i].load->results[0]].layout : 0;
    }
    ValueId bars = alloc_rings(P, parent, loop, &pl);
    if (pl.ws) {
        pl.D = 0; /* no prologue, nothing runs ahead: the producer will */
        loop->attr.ws_hold = 1 + pl.extra; /* the handoff to warpspec.c: whose slot a consumer releases */
    }
    ValueId *cur = calloc((size_t)pl.ncar + 1, sizeof *cur), *ahead = calloc((size_t)pl.ncar + 1, sizeof *ahead);
    if (!cur || !ahead) {
        free(cur), free(ahead), plan_free(&pl);
        return;
    }
    emit_prologue(P, parent, loop, &pl, bars, cur);
    if (pl.ws)
        memset(pl.carried, 0, (size_t)pl.ncar + 1); /* the loop runs nothing ahead */
    ValueId idx[3];
    int nidx = extend_loop(P, parent, loop, &pl, cur, ahead, idx, bars);
    emit_body(P, loop, &pl, ahead, idx, bars);
    emit_yield(P, loop, &pl, idx, nidx);
    for (int w = 0; w < pl.nwg; w++)
        if (pl.restage_a[w])
            restage_a(P, parent, loop, pl.wg[w], pl.restage_a[w]);
    retire_loads(P, B, &pl);
    for (int w = 0; w < pl.nwg; w++)
        if (rsl[w])
            restage_b(P, parent, loop, pl.wg[w], pl.restage[w], rsl[w]);
    free(cur), free(ahead), plan_free(&pl);
    ir_dce_loop(P->f, loop);
}

/* ---- TMA stores ----
 * On sm_90a a store of a 2-D tile through a tensor map the kernel made
 * (tensormap_create: tutorial 08's c_desc.store) goes out as Triton's does:
 * the value into an #nvmma buffer of the map's swizzle (local_store, each
 * thread fenced for the async proxy; from the mma fragment itself where the
 * store's value is a convert_layout of one: stmatrix), bar.sync (the barrier
 * pass), then one thread's bulk tensor copies (tma_store). TMA drops the
 * rows outside the map and columns before its first, as the store's mask
 * does; but it writes whole 16-byte chunks, so past the last column, when a
 * row's bytes are not a multiple of 16, it writes the rest of the chunk
 * (the H100 and H200 did: tutorial 08's ragged groups and desc_test's rows
 * showed it in their padding; Triton's issue 11583, whose kernels do it).
 * A copy that starts inside a chunk (a column start not a multiple of 16
 * bytes) died with an illegal instruction (desc_test's shifted stores, H200
 * 2026-11-29; on the H100 2026-11-24 too, where negative coordinates were
 * blamed: those too are left to pointers, untested). So the TMA store runs
 * behind a check made per tile at run time,
 *     r >= 0  &&  c >= 0  &&  c % (16 / bytes) == 0  &&
 *     (c + BN <= cols  ||  cols % (16 / bytes) == 0)
 * ((r, c) the tile's first element), and a tile it refuses (the last column
 * of tiles of a ragged C) takes the masked pointer store as written.
 * Where a pointer store could not be in 16-byte vectors (its column bound of
 * unknown divisibility: one masked element at a time) this is the gain.
 * Not where it is in 16-byte vectors anyway (the bounds divisible by 16:
 * tutorial 09's descriptor kernel at :16 shapes), nor for host descriptors
 * (vectorised where the launch specialises the shape to :16): on a matmul
 * epilogue of those TMA stores gained nothing (H100, 2026-11-24); nor in a
 * kernel that hands a loop to a producer warpgroup (thread 0 may be the
 * producer's). */
static void tma_store_at(Pipe *P, Block *b, int i, const Inst *t, int sw, int bytes) {
    Function *f = P->f;
    Inst *st = b->insts[i];
    Type vt = vtype(P, st->args[1]), i32 = ir_scalar(DT_I32);
    /* a convert_layout only the store reads goes into the else branch with it */
    Inst *cv = f->values[st->args[1]].def, *moved = NULL;
    bool alone = cv && cv->op == IR_CONVERT_LAYOUT && st->args[1] < P->n0 && P->uses[st->args[1]] == 1;
    for (int j = i - 1; alone && j >= 0 && !moved; j--)
        if (b->insts[j] == cv) {
            remove_at(b, j);
            moved = cv, i--;
        }
    Cursor c = {b, i};
    /* the check: the tile starts at a chunk, at row and column >= 0, and
     * ends by the last column or rows are whole chunks */
    ValueId cols = f->values[t->args[1]].def->args[2], row = t->args[2], col = t->args[3];
    ValueId chunk = put_const(P, &c, i32, 16 / bytes - 1, st->span), zero = put_const(P, &c, i32, 0, st->span);
    Type i1 = ir_scalar(DT_I1);
    ValueId end = put1(P, &c, IR_ADD, (ValueId[]){col, put_const(P, &c, i32, vt.shape[1], st->span)}, 2, i32, 0,
                       st->span);
    ValueId inside = put_cmp(P, &c, CMP_LE, end, cols, st->span);
    ValueId part = put1(P, &c, IR_AND, (ValueId[]){cols, chunk}, 2, i32, 0, st->span);
    ValueId whole = put_cmp(P, &c, CMP_EQ, part, zero, st->span);
    ValueId ok = put1(P, &c, IR_OR, (ValueId[]){inside, whole}, 2, i1, 0, st->span);
    ValueId at = put1(P, &c, IR_AND, (ValueId[]){col, chunk}, 2, i32, 0, st->span);
    ok = put1(P, &c, IR_AND, (ValueId[]){ok, put_cmp(P, &c, CMP_EQ, at, zero, st->span)}, 2, i1, 0, st->span);
    ValueId sign = put1(P, &c, IR_OR, (ValueId[]){row, col}, 2, i32, 0, st->span);
    ok = put1(P, &c, IR_AND, (ValueId[]){ok, put_cmp(P, &c, CMP_GE, sign, zero, st->span)}, 2, i1, 0, st->span);
    /* then: the buffer and the bulk copies */
    ValueId v = st->args[1];
    if (cv && cv->op == IR_CONVERT_LAYOUT && f->layouts[f->values[cv->args[0]].layout].kind == LAYOUT_MMA)
        v = cv->args[0]; /* the fragment itself: no trip through a convert's scratch */
    Layout nl = {.kind = LAYOUT_NVMMA, .rank = 2, .swizzle = sw, .elem_bits = 8 * bytes};
    Type bt = vt;
    bt.mem = IR_MEM_SHARED;
    Block *tb = ir_block_new(f), *eb = ir_block_new(f);
    Cursor tc = {tb, 0};
    Inst *al = put(P, &tc, IR_LOCAL_ALLOC, NULL, 0, &bt, layout_intern(f, &nl), st->span);
    al->attr.offset = -1;
    put(P, &tc, IR_LOCAL_STORE, (ValueId[]){al->results[0], v}, 2, NULL, 0, st->span);
    put(P, &tc, IR_TMA_STORE, (ValueId[]){al->results[0], t->args[1], t->args[2], col}, 4, NULL, 0, st->span);
    ir_inst_new(f, tb, IR_YIELD, NULL, 0, NULL, 0, st->span);
    /* else: the store as written */
    remove_at(b, c.at);
    ir_insert_insts(f, eb, 0, &st, 1);
    if (moved)
        ir_insert_insts(f, eb, 0, &moved, 1);
    ir_inst_new(f, eb, IR_YIELD, NULL, 0, NULL, 0, st->span);
    Inst *in = ir_inst_at(f, b, &c.at, IR_IF, &ok, 1, NULL, 0, st->span);
    ir_set_regions(in, tb, eb);
}

static void tma_stores(Pipe *P, Block *b) {
    Function *f = P->f;
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            tma_stores(P, in->regions[r]);
        if (in->op != IR_STORE || in->nargs < 2 || f->values[in->args[0]].def == NULL)
            continue;
        Inst *t = f->values[in->args[0]].def;
        Type vt = vtype(P, in->args[1]);
        int bytes = dt_bits((DType)vt.dtype) / 8;
        if (t->op != IR_DESC_TILE || !ir_kernel_map(f, t->args[1]) || vt.rank != 2 || vt.shape[0] > 256 ||
            vt.dtype == DT_I1 || (bytes != 1 && bytes != 2 && bytes != 4))
            continue;
        int sw = arch_tma_swizzle(bytes, vt.shape[1]);
        if (!sw || vt.shape[1] % (sw / bytes))
            continue;
        ValueId ptr = in->args[0], mask = in->nargs > 2 ? in->args[2] : 0;
        const ThreadMap *tm = layout_thread_map(f, f->values[ptr].layout, vtype(P, ptr), f->num_warps);
        if (tm && ptr < P->n0 && mask < P->n0 &&
            layout_vector_width(tm, &P->axis[ptr], mask ? &P->axis[mask] : NULL, bytes) * bytes >= 16)
            continue; /* 16-byte vectors already */
        int n = b->ninsts;
        tma_store_at(P, b, i, t, sw, bytes);
        i += b->ninsts - n; /* onto the if */
    }
}

/* Does a loop of f wait for a producer warpgroup (ws_hold)? */
static bool ws_planned(const Function *f) {
    for (const Inst *l = ir_ws_next(f, NULL); l; l = ir_ws_next(f, l))
        if (l->attr.ws_hold)
            return true;
    return false;
}

static void walk(Pipe *P, Block *b) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            walk(P, in->regions[r]);
        if (in->op == IR_FOR) {
            int before = b->ninsts;
            pipeline_loop(P, b, in);
            if (b->ninsts != before)
                i += b->ninsts - before; /* skip the prologue and drain put around it */
            else
                row_loop(P, b, &i); /* i: the if it became */
        }
    }
}

bool pipeline_pass(Diag *d, Function *f, bool async_copy, int max_shared, bool wgmma) {
    if (!async_copy || f->nlayouts <= 1)
        return true; /* no cp.async before sm_80; nothing laid out, nothing to do */
    strip_inner_maps(f, f->body, NULL);
    Pipe P = {.d = d, .f = f, .n0 = f->nvalues, .max_shared = max_shared, .wgmma = wgmma};
    P.axis = axis_analyze(f);
    P.uses = calloc((size_t)P.n0, sizeof *P.uses);
    P.home = calloc((size_t)P.n0, sizeof *P.home);
    P.map = calloc((size_t)P.n0, sizeof *P.map);
    P.in_slice = calloc((size_t)P.n0, 1);
    bool ok = P.axis && P.uses && P.home && P.map && P.in_slice;
    if (ok) {
        count_uses(f->body, P.uses, P.home);
        walk(&P, f->body);
        if (P.wgmma)
            fp8_wgmma(&P, f->body);
        int n = f->nvalues;
        if (P.wgmma && !ws_planned(f))
            tma_stores(&P, f->body);
        /* what the rewrites left dead: the register copies staged operands
         * were converted into; where TMA stores were made, also the
         * pointers and masks of the loads a TMA ring fills (LLVM keeps some
         * of those; for every kernel it would change the PTX of tutorial
         * 09's descriptor kernel, not yet run on a GPU) */
        if (P.staged || f->nvalues != n)
            ir_dce(f);
    } else {
        diag_internal(d, "pipeline: out of memory");
    }
    free(P.uses), free(P.home), free(P.map), free(P.in_slice);
    return ok;
}
