/* llvm_shared.c: shared-memory buffers and async copies (docs/ir.md, "Shared
 * memory"; docs/codegen.md).
 *
 * A buffer value (!smem<...>) is one register in every thread: its address in
 * shared memory (addrspace 3), @global_smem + the offset smem_alloc_pass gave
 * its local_alloc; memdesc_index adds stage * (bytes of a stage). An element's
 * place inside is its shared layout's (layout_shared_offset, computed here at
 * run time by llvm_shared_offset): the swizzled #shared layout XORs the
 * 16-byte groups of a row with the row's phase, #nvmma the 16-byte chunks of
 * each 128-byte line with the line.
 *
 *   async_copy   cp.async.cg.shared.global [dst], [src], 16, src_size (or .ca
 *                for 4 and 8 bytes): each thread copies its registers' vectors
 *                (layout_vector_width, as a load would read them); a masked
 *                vector copies 0 bytes from global memory and zero-fills the
 *                16 (src_size = 0), so no branch and no access; a `ragged`
 *                copy's mask keeps a prefix of each vector (pipeline.c
 *                proves it), and src_size is the bytes of the elements kept.
 *   async_commit cp.async.commit_group;  async_wait N: cp.async.wait_group N.
 *   local_load   into an mma operand of 16-bit elements from a swizzled
 *                buffer: ldmatrix (llvm_dot.c); otherwise each thread loads
 *                its elements, in vectors along the buffer's contiguous dim
 *                as far as the swizzle keeps them together.
 *   local_store  the same, storing; a 16-bit block in an mma fragment on
 *                sm_90 with stmatrix (below).
 *   tma_load     thread 0's warp, where the predicate holds, issues (one
 *                lane elect.sync picks: tma_asm_elect)
 *                cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::
 *                complete_tx::bytes per box: the #nvmma buffer's atom columns
 *                (swizzle bytes wide, arch_tma_swizzle) are one box each,
 *                rows x swizzle bytes apart, which is how the CUtensorMap's
 *                box and swizzle lay them out (runtime/gpu.c).
 *   tma_store    thread 0 copies each box of the #nvmma buffer out with
 *                cp.async.bulk.tensor.2d.global.shared::cta.bulk_group,
 *                commits and waits until they have read it (wait_group.read
 *                0); out of the tensor nothing is written. The local_store
 *                that filled it fenced each thread's writes for the async
 *                proxy, and the barrier pass put a bar.sync in between.
 *   mbarrier_*   thread 0 inits (count 1, then fence.mbarrier_init) and
 *                invalidates, an elected lane of its warp arrives with
 *                expect_tx (as tma_load issues); every thread waits with
 *                mbarrier.try_wait.parity in a loop.
 * Barriers are ops of their own (barrier_pass, smem.c). */
#include <stdio.h>
#include <string.h>

#include "llvm_int.h"

static DType dtype_of(Lower *L, ValueId v) { return (DType)L->f->values[v].type.dtype; }

LLVMValueRef llvm_shared_offset(Lower *L, int li, Type t, LLVMValueRef *idx) {
    const Layout *l = &L->f->layouts[li];
    LLVMBuilderRef b = L->b;
    if (l->kind == LAYOUT_NVMMA) {
        int bytes = l->elem_bits / 8, lead = t.rank - 2;
        int id = l->transposed ? t.rank - 2 : t.rank - 1, od = l->transposed ? t.rank - 1 : t.rank - 2;
        int atom_bytes = l->swizzle ? l->swizzle : 16, atom = atom_bytes / bytes;
        LLVMValueRef stage = llvm_i32(L, 0);
        for (int d = 0; d < lead; d++)
            stage = LLVMBuildAdd(b, LLVMBuildMul(b, stage, llvm_i32(L, t.shape[d]), ""), idx[d], "");
        LLVMValueRef acol = LLVMBuildUDiv(b, idx[id], llvm_i32(L, atom), "");
        LLVMValueRef ain = LLVMBuildURem(b, idx[id], llvm_i32(L, atom), "");
        LLVMValueRef byte = LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildMul(b, acol, llvm_i32(L, t.shape[od]), ""), idx[od], ""),
                                         llvm_i32(L, atom_bytes), "");
        byte = LLVMBuildAdd(b, byte, LLVMBuildMul(b, ain, llvm_i32(L, bytes), ""), "");
        int bits = l->swizzle == 128 ? 3 : l->swizzle == 64 ? 2 : l->swizzle == 32 ? 1 : 0;
        if (bits) {
            LLVMValueRef x = LLVMBuildAnd(b, LLVMBuildLShr(b, byte, llvm_i32(L, 7), ""), llvm_i32(L, (1 << bits) - 1), "");
            byte = LLVMBuildXor(b, byte, LLVMBuildShl(b, x, llvm_i32(L, 4), ""), "");
        }
        LLVMValueRef el = LLVMBuildUDiv(b, byte, llvm_i32(L, bytes), "");
        int64_t plane = (int64_t)t.shape[od] * t.shape[id];
        return LLVMBuildAdd(b, LLVMBuildMul(b, stage, llvm_i32(L, plane), ""), el, "");
    }
    int lead = t.rank - l->rank;
    LLVMValueRef off = llvm_i32(L, 0);
    for (int d = 0; d < lead; d++)
        off = LLVMBuildAdd(b, LLVMBuildMul(b, off, llvm_i32(L, t.shape[d]), ""), idx[d], "");
    LLVMValueRef *ti = idx + lead;
    const int32_t *ts = t.shape + lead;
    LLVMValueRef row = llvm_i32(L, 0);
    int64_t rows = 1;
    for (int k = l->rank - 1; k >= 1; k--) {
        int d = l->order[k];
        row = LLVMBuildAdd(b, LLVMBuildMul(b, row, llvm_i32(L, ts[d]), ""), ti[d], "");
        rows *= ts[d];
    }
    int inner = l->order[0], cols = ts[inner];
    LLVMValueRef col = ti[inner];
    if (l->rank >= 2 && l->max_phase > 1) {
        LLVMValueRef phase = LLVMBuildURem(b, LLVMBuildUDiv(b, row, llvm_i32(L, l->per_phase), ""),
                                           llvm_i32(L, l->max_phase), "");
        LLVMValueRef grp = LLVMBuildXor(b, LLVMBuildUDiv(b, col, llvm_i32(L, l->vec), ""), phase, "");
        col = LLVMBuildAdd(b, LLVMBuildMul(b, grp, llvm_i32(L, l->vec), ""),
                           LLVMBuildURem(b, col, llvm_i32(L, l->vec), ""), "");
    }
    LLVMValueRef tile = LLVMBuildAdd(b, LLVMBuildMul(b, row, llvm_i32(L, cols), ""), col, "");
    return LLVMBuildAdd(b, LLVMBuildMul(b, off, llvm_i32(L, rows * cols), ""), tile, "");
}

/* The address of element idx of a buffer (base: its register). */
static LLVMValueRef elem_ptr(Lower *L, LLVMValueRef base, ValueId buf, LLVMValueRef *idx) {
    Type t = L->f->values[buf].type;
    LLVMValueRef off = llvm_shared_offset(L, L->f->values[buf].layout, t, idx);
    return LLVMBuildGEP2(L->b, llvm_mem_type(L, (DType)t.dtype), base, &off, 1, "");
}

static void indices(Lower *L, const ThreadMap *tm, int r, LLVMValueRef *idx) {
    for (int d = 0; d < tm->rank; d++)
        idx[d] = llvm_index(L, tm, r, d);
}

/* The place in buf of map tm's register r in thread (lane, warp): the
 * compile-time twin (layout_shared_offset) of elem_ptr's address, for
 * llvm_const_steps. */
typedef struct BufAt {
    const Function *f;
    const ThreadMap *tm;
    int v; /* registers an access */
    int li;
    Type t;
} BufAt;

static int64_t buf_at(const void *c, int lane, int warp, int g) {
    const BufAt *b = c;
    int32_t e[IR_MAX_RANK];
    layout_elem_index(b->tm, lane, warp, g * b->v, e);
    return layout_shared_offset(b->f, b->li, b->t, e);
}

/* The address in buf of each access of map tm's registers, v at a time,
 * into ptrs[r / v]. Where llvm_const_steps finds the distances the same in
 * every thread, access g is access 0 plus a constant, as Triton's are
 * (one register and an immediate offset each); else each is the layout's
 * full expression of its indices, a dozen instructions and, in a loop, a
 * register held across it each (tutorial 08's k loop held four 64-bit ones
 * for A's four cp.async a stage, ptxas 10 registers over Triton's). */
static void access_ptrs(Lower *L, const ThreadMap *tm, ValueId buf, int v, LLVMValueRef *ptrs) {
    Type t = L->f->values[buf].type;
    int n = tm->nregs / v;
    LLVMValueRef base = llvm_val(L, buf)->r[0], idx[IR_MAX_RANK];
    BufAt at = {L->f, tm, v, L->f->values[buf].layout, t};
    int64_t *delta = llvm_const_steps(L, n, buf_at, &at);
    for (int g = 0; g < n; g++) {
        if (g > 0 && delta) {
            LLVMValueRef o = llvm_i32(L, (int32_t)delta[g]);
            ptrs[g] = LLVMBuildGEP2(L->b, llvm_mem_type(L, (DType)t.dtype), ptrs[0], &o, 1, "");
            continue;
        }
        indices(L, tm, g * v, idx);
        ptrs[g] = elem_ptr(L, base, buf, idx);
    }
}

/* Elements per shared access for registers of map tm in buffer buf: a run
 * along the buffer's contiguous dim that the swizzle keeps in one group and
 * every thread starts aligned, at most 16 bytes. */
static int access_width(Lower *L, const ThreadMap *tm, ValueId buf, int bytes) {
    const Layout *l = &L->f->layouts[L->f->values[buf].layout];
    Type t = L->f->values[buf].type;
    int inner = l->kind == LAYOUT_NVMMA ? (l->transposed ? t.rank - 2 : t.rank - 1) : t.rank - l->rank + l->order[0];
    int group = l->kind == LAYOUT_NVMMA ? 16 / bytes : l->rank >= 2 && l->max_phase > 1 ? l->vec : 1 << 30;
    int fd = tm->contig_dim;
    if (fd != inner || fd < 0)
        return 1;
    int v = tm->contig;
    while (v > 1 && (v * bytes > 16 || v > group || tm->nregs % v))
        v /= 2;
    while (v > 1 && !layout_runs_aligned(tm, fd, v)) /* runs start at multiples of v in every thread */
        v /= 2;
    return v < 1 ? 1 : v;
}

static void lower_alloc(Lower *L, Inst *in) {
    if (in->attr.offset < 0) {
        diag_internal(L->d, "in @%s: local_alloc %%%d has no offset (smem-alloc did not place it)", L->f->name,
                      in->results[0]);
        L->failed = true;
        return;
    }
    LLVMValueRef o = llvm_i32(L, in->attr.offset), *r = llvm_new_regs(L, 1);
    r[0] = LLVMBuildGEP2(L->b, L->t_i8, L->smem, &o, 1, "");
    llvm_set(L, in->results[0], r, 1);
}

static void lower_index(Lower *L, Inst *in) {
    Type vt = L->f->values[in->results[0]].type;
    LLVMValueRef i = llvm_val(L, in->args[1])->r[0];
    if (LLVMGetIntTypeWidth(LLVMTypeOf(i)) != 32)
        i = LLVMBuildIntCast2(L->b, i, L->t_i32, dt_is_signed(dtype_of(L, in->args[1])), "");
    LLVMValueRef o = LLVMBuildMul(L->b, i, llvm_i32(L, ir_numel(vt) * llvm_dt_bytes((DType)vt.dtype)), "");
    LLVMValueRef *r = llvm_new_regs(L, 1);
    r[0] = LLVMBuildGEP2(L->b, L->t_i8, llvm_val(L, in->args[0])->r[0], &o, 1, "");
    llvm_set(L, in->results[0], r, 1);
}

static void lower_copy(Lower *L, Inst *in) {
    ValueId buf = in->args[0], ptr = in->args[1], mask = in->nargs > 2 ? in->args[2] : 0;
    const ThreadMap *tm = llvm_tm(L, ptr);
    DType dt = dtype_of(L, buf);
    int bytes = llvm_dt_bytes(dt);
    /* a ragged copy's mask keeps a prefix of each vector (pipeline.c): the
     * vectors are the pointers' own, and each moves the elements kept */
    bool ragged = in->attr.num && mask;
    const AxisInfo *m = mask && llvm_tm(L, mask) && !ragged ? &L->axis[mask] : NULL;
    int v = layout_vector_width(tm, &L->axis[ptr], m, bytes);
    int vb = v * bytes, sw = access_width(L, tm, buf, bytes);
    if ((vb != 4 && vb != 8 && vb != 16) || sw < v) {
        diag_internal(L->d, "in @%s: async_copy of %d-byte vectors (%d elements in shared memory): cp.async moves "
                      "4, 8 or 16 contiguous bytes", L->f->name, vb, sw);
        L->failed = true;
        return;
    }
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.cp.async.%s.shared.global.%d.s", vb == 16 ? "cg" : "ca", vb);
    LLVMValueRef *pm = mask ? llvm_regs_like(L, mask, ptr, in->span) : NULL;
    LLVMValueRef *cnt = ragged && in->nargs > 3 ? llvm_regs_like(L, in->args[3], ptr, in->span) : NULL;
    LLVMValueRef full = llvm_i32(L, vb), none = llvm_i32(L, 0), *to = llvm_new_regs(L, tm->nregs / v);
    access_ptrs(L, tm, buf, v, to);
    for (int r = 0; r < tm->nregs; r += v) {
        LLVMBasicBlockRef cont = llvm_guard_begin(L, llvm_owner(L, tm, r));
        LLVMValueRef src = pm ? LLVMBuildSelect(L->b, pm[r], full, none, "") : full;
        if (cnt) /* the elements kept from the vector's first on (pipeline.c bound_count) */
            src = LLVMBuildSelect(L->b, pm[r], LLVMBuildMul(L->b, cnt[r], llvm_i32(L, bytes), ""), none, "");
        else if (ragged) /* src_size: the bytes before the first element dropped (the kept ones are a prefix) */
            for (int e = v - 1; e >= 0; e--)
                src = LLVMBuildSelect(L->b, pm[r + e], e == v - 1 ? full : src, llvm_i32(L, e * bytes), "");
        LLVMValueRef args[3] = {to[r / v], llvm_val(L, ptr)->r[r], src};
        llvm_call(L, name, L->t_void, args, 3);
        llvm_guard_end(L, cont);
    }
}

/* ---- stmatrix: mma fragments into shared memory (sm_90) ----
 *
 * stmatrix.sync.aligned.m8n8.x4.shared.b16 stores four 8x8 matrices of
 * 16-bit elements, each matrix row 16 contiguous bytes: lane l gives the
 * address of row l%8 of matrix l/8, and register q of every lane holds two
 * elements of matrix q, (row l/4, cols 2(l%4)+{0,1}). That is the fragment
 * of an mma accumulator (v2 and v3: c0,c1 and c2,c3 of each m16n8 tile) and
 * of a 16-bit A operand, so such a block is stored with one instruction per
 * 32 of its elements a thread instead of one st.shared.b32 per pair (Triton
 * does the same for a convert_layout or a local_store of such a block on
 * Hopper). `.trans` stores each register pair down a column, (rows
 * 2(l%4)+{0,1}, col l/4): a fragment whose pairs run along the dim the
 * memory is not contiguous in (a transposed accumulator, or a buffer stored
 * column-major). The places written are exactly the element-wise store's:
 * only the instruction changes.
 *
 * A thread's 8x8 blocks go four to an instruction, in order of (dim 1,
 * dim 0), when the four sit at o, o + d1, o + d2, o + d1 + d2: lane l's
 * address is then that of row l%8 of the block at o + (q&1) d1 + (q>>1) d2,
 * q = l/8. */
typedef struct StPlan {
    int inner;       /* the dim a matrix row's 16 contiguous bytes run along */
    bool trans;      /* the register pairs run along the other dim */
    int n;           /* instructions (groups of four blocks) */
    int (*regs)[8];  /* per group: matrix q's pair in registers 2q, 2q+1 */
    int (*at)[3][2]; /* per group: o, d1, d2 (elements, per dim) */
} StPlan;

static bool lane_term(const ThreadMap *tm, int d, int ldiv, int lmod, int lmul) {
    return tm->dim[d].ldiv == ldiv && tm->dim[d].lmod == lmod && tm->dim[d].lmul == lmul;
}

/* Compile-time twin of emit_stmatrix's addresses, over every thread: by
 * stmatrix's rule each register must land on the element it holds, each
 * lane's row on 8 elements that are 16 aligned, contiguous bytes (in buf's
 * layout when buf is not 0). A plan that fails is not used. */
static bool stmatrix_exact(Lower *L, const ThreadMap *tm, const StPlan *p, ValueId buf) {
    int outer = 1 - p->inner;
    Type bt = buf ? L->f->values[buf].type : (Type){0};
    int bl = buf ? L->f->values[buf].layout : 0;
    for (int warp = 0; warp < L->f->num_warps; warp++) {
        int wb[2] = {(int)layout_warp_base(tm, 0, warp), (int)layout_warp_base(tm, 1, warp)};
        for (int g = 0; g < p->n; g++) {
            int32_t at[32][2];
            for (int lane = 0; lane < 32; lane++) {
                int q = lane / 8;
                for (int d = 0; d < 2; d++)
                    at[lane][d] = (wb[d] + p->at[g][0][d] + (q & 1) * p->at[g][1][d] + (q >> 1) * p->at[g][2][d] +
                                   (d == outer ? lane % 8 : 0)) & (tm->shape[d] - 1);
                if (at[lane][p->inner] % 8)
                    return false;
                int64_t o = buf ? layout_shared_offset(L->f, bl, bt, at[lane]) : 0;
                for (int c = 1; buf && c < 8; c++) {
                    int32_t e[2] = {at[lane][0], at[lane][1]};
                    e[p->inner] += c;
                    if (o % 8 || layout_shared_offset(L->f, bl, bt, e) != o + c)
                        return false;
                }
            }
            for (int lane = 0; lane < 32; lane++)
                for (int k = 0; k < 4; k++)
                    for (int j = 0; j < 2; j++) {
                        /* the element of matrix k this half holds: (row, col) in memory */
                        int row = p->trans ? 2 * (lane % 4) + j : lane / 4;
                        int col = p->trans ? lane / 4 : 2 * (lane % 4) + j;
                        int32_t want[2], held[2];
                        want[outer] = at[8 * k + row][outer], want[p->inner] = at[8 * k + row][p->inner] + col;
                        layout_elem_index(tm, lane, warp, p->regs[g][2 * k + j], held);
                        if (want[0] != held[0] || want[1] != held[1])
                            return false;
                    }
        }
    }
    return true;
}

static bool plan_stmatrix(Lower *L, const ThreadMap *tm, DType dt, int inner, ValueId buf, StPlan *p) {
    if (!ptx_arch_has(L->arch, ARCH_HOPPER) || dt_bits(dt) != 16 || tm->rank != 2 || inner < 0 || inner > 1)
        return false;
    int S[2] = {tm->shape[0], tm->shape[1]}, nb[2] = {S[0] / 8, S[1] / 8};
    /* pd: the dim of the pairs (lane part 2 (l%4)); the other one's is l/4 */
    int pd = lane_term(tm, 1, 1, 4, 2) && lane_term(tm, 0, 4, 8, 1)   ? 1
             : lane_term(tm, 0, 1, 4, 2) && lane_term(tm, 1, 4, 8, 1) ? 0
                                                                      : -1;
    const typeof(tm->dim[0]) *w = &tm->dim[inner];
    if (pd < 0 || S[0] % 8 || S[1] % 8 || (w->wmod > 1 && w->wmul % 8)) /* rows start 16-byte aligned */
        return false;
    int od = 1 - pd, *blk = arena_alloc(L->f->arena, sizeof(int) * 2 * (size_t)(nb[0] * nb[1]));
    if (!blk)
        return false;
    for (int i = 0; i < 2 * nb[0] * nb[1]; i++)
        blk[i] = -1;
    for (int r = 0; r < tm->nregs; r++) {
        int off[2] = {tm->reg_off[r][0] & (S[0] - 1), tm->reg_off[r][1] & (S[1] - 1)}, j = off[pd] % 8;
        if (off[od] % 8 || j > 1)
            return false;
        blk[((off[0] / 8) * nb[1] + off[1] / 8) * 2 + j] = r; /* a copy of a held element overwrites */
    }
    int held = 0;
    for (int b = 0; b < nb[0] * nb[1]; b++) {
        if ((blk[2 * b] < 0) != (blk[2 * b + 1] < 0))
            return false;
        held += blk[2 * b] >= 0;
    }
    if (!held || held % 4)
        return false;
    p->inner = inner, p->trans = pd != inner, p->n = held / 4;
    p->regs = arena_alloc(L->f->arena, sizeof *p->regs * (size_t)p->n);
    p->at = arena_alloc(L->f->arena, sizeof *p->at * (size_t)p->n);
    if (!p->regs || !p->at)
        return false;
    int k = 0, pos[4][2];
    for (int b1 = 0; b1 < nb[1]; b1++)
        for (int b0 = 0; b0 < nb[0]; b0++) {
            int b = b0 * nb[1] + b1, g = k / 4, q = k % 4;
            if (blk[2 * b] < 0)
                continue;
            p->regs[g][2 * q] = blk[2 * b], p->regs[g][2 * q + 1] = blk[2 * b + 1];
            pos[q][0] = 8 * b0, pos[q][1] = 8 * b1;
            if (++k % 4)
                continue;
            for (int d = 0; d < 2; d++) {
                p->at[g][0][d] = pos[0][d], p->at[g][1][d] = pos[1][d] - pos[0][d];
                p->at[g][2][d] = pos[2][d] - pos[0][d];
                if (pos[3][d] - pos[0][d] != p->at[g][1][d] + p->at[g][2][d])
                    return false;
            }
        }
    return stmatrix_exact(L, tm, p, buf);
}

/* Where lanes point: the scratch (row-major, or column-major for a plan of
 * inner 0; rows padded by pad elements, at byte_off of the op's area) or,
 * when buf is not 0, that buffer at base. */
typedef struct StDest {
    ValueId buf;
    LLVMValueRef base;
    int pad;
    int64_t byte_off;
} StDest;

/* The element lane's row address of group g of plan p names in thread
 * (lane, warp): the compile-time twin of emit_stmatrix's, for
 * llvm_const_steps. */
typedef struct StAt {
    const Function *f;
    const ThreadMap *tm;
    const StPlan *p;
    const StDest *to;
} StAt;

static int64_t stmatrix_at(const void *c, int lane, int warp, int g) {
    const StAt *s = c;
    const ThreadMap *tm = s->tm;
    const StPlan *p = s->p;
    int q = lane / 8, in = p->inner, out = 1 - in;
    int32_t idx[2];
    for (int d = 0; d < 2; d++) {
        int wb = (int)layout_warp_base(tm, d, warp);
        idx[d] = (wb + p->at[g][0][d] + (q & 1) * p->at[g][1][d] + (q >> 1) * p->at[g][2][d] +
                  (d == out ? lane % 8 : 0)) & (tm->shape[d] - 1);
    }
    if (s->to->buf)
        return layout_shared_offset(s->f, s->f->values[s->to->buf].layout, s->f->values[s->to->buf].type, idx);
    int64_t lin = (int64_t)idx[out] * tm->shape[in] + idx[in];
    return llvm_smem_index_at(lin, s->to->pad, __builtin_ctz((unsigned)tm->shape[in]));
}

/* The stmatrix instruction, its address the operand plus `off` bytes:
 * written into the text, as an operand's immediate in inline asm is not
 * folded (the other groups' addresses would each be a register, hoisted
 * out of a persistent loop and held through it: tutorial 08's epilogue
 * held 16 of 64 bits). */
static LLVMValueRef stmatrix_asm(bool trans, int64_t off, LLVMTypeRef fty) {
    char text[128], at[32] = "$0";
    if (off)
        snprintf(at, sizeof at, "$0+%lld", (long long)off);
    snprintf(text, sizeof text, "stmatrix.sync.aligned.m8n8.x4%s.shared.b16 [%s], {$1, $2, $3, $4};",
             trans ? ".trans" : "", at);
    const char *cons = "l,r,r,r,r,~{memory}";
    return LLVMGetInlineAsm(fty, text, strlen(text), (char *)cons, strlen(cons), 1, 0, LLVMInlineAsmDialectATT, 0);
}

static void emit_stmatrix(Lower *L, const ThreadMap *tm, const StPlan *p, const LLVMValueRef *regs, DType dt,
                          const StDest *to) {
    LLVMBuilderRef b = L->b;
    LLVMTypeRef et = llvm_type(L, dt), vt = LLVMVectorType(et, 2);
    LLVMValueRef q = LLVMBuildLShr(b, L->lane, llvm_i32(L, 3), ""), r8 = LLVMBuildAnd(b, L->lane, llvm_i32(L, 7), "");
    LLVMValueRef qlo = LLVMBuildAnd(b, q, llvm_i32(L, 1), ""), qhi = LLVMBuildLShr(b, q, llvm_i32(L, 1), "");
    LLVMValueRef wb[2];
    for (int d = 0; d < 2; d++) { /* the warp's part of base_d: the lanes' is the matrix row */
        ThreadMap w = *tm;
        w.dim[d].lmod = 1;
        wb[d] = llvm_base(L, &w, d);
    }
    LLVMTypeRef at[5] = {L->t_i64, L->t_i32, L->t_i32, L->t_i32, L->t_i32};
    LLVMTypeRef fty = LLVMFunctionType(L->t_void, at, 5, 0);
    unsigned conv = LLVMGetEnumAttributeKindForName("convergent", 10);
    StAt sa = {L->f, tm, p, to};
    int64_t *delta = llvm_const_steps(L, p->n, stmatrix_at, &sa);
    LLVMValueRef addr0 = NULL;
    for (int g = 0; g < p->n; g++) {
        LLVMValueRef args[5];
        for (int k = 0; k < 4; k++) {
            LLVMValueRef v = LLVMGetUndef(vt);
            for (int j = 0; j < 2; j++)
                v = LLVMBuildInsertElement(b, v, regs[p->regs[g][2 * k + j]], llvm_i32(L, j), "");
            args[1 + k] = LLVMBuildBitCast(b, v, L->t_i32, "");
        }
        if (g > 0 && delta) {
            args[0] = addr0;
            LLVMValueRef fn = stmatrix_asm(p->trans, delta[g] * llvm_dt_bytes(dt), fty);
            LLVMValueRef call = LLVMBuildCall2(b, fty, fn, args, 5, "");
            LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, conv, 0));
            continue;
        }
        LLVMValueRef idx[2];
        for (int d = 0; d < 2; d++) {
            const int (*a)[2] = p->at[g];
            LLVMValueRef x = LLVMBuildAdd(b, wb[d], llvm_i32(L, a[0][d]), "");
            if (a[1][d])
                x = LLVMBuildAdd(b, x, LLVMBuildMul(b, qlo, llvm_i32(L, a[1][d]), ""), "");
            if (a[2][d])
                x = LLVMBuildAdd(b, x, LLVMBuildMul(b, qhi, llvm_i32(L, a[2][d]), ""), "");
            if (d != p->inner)
                x = LLVMBuildAdd(b, x, r8, "");
            idx[d] = LLVMBuildAnd(b, x, llvm_i32(L, tm->shape[d] - 1), "");
        }
        LLVMValueRef ptr;
        if (to->buf) {
            LLVMValueRef off = llvm_shared_offset(L, L->f->values[to->buf].layout, L->f->values[to->buf].type, idx);
            ptr = LLVMBuildGEP2(b, et, to->base, &off, 1, "");
        } else { /* row-major, or column-major where the rows run along dim 0 (inner 0) */
            int in = p->inner, out = 1 - in;
            LLVMValueRef lin = LLVMBuildAdd(b, LLVMBuildMul(b, idx[out], llvm_i32(L, tm->shape[in]), ""), idx[in], "");
            lin = llvm_smem_index(L, lin, to->pad, __builtin_ctz((unsigned)tm->shape[in]));
            ptr = llvm_smem_ptr(L, et, lin, to->byte_off);
        }
        args[0] = addr0 = LLVMBuildPtrToInt(b, ptr, L->t_i64, "");
        LLVMValueRef call = LLVMBuildCall2(b, fty, stmatrix_asm(p->trans, 0, fty), args, 5, "");
        LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, conv, 0));
    }
}

bool llvm_stmatrix_stage(Lower *L, const ThreadMap *tm, const LLVMValueRef *regs, DType dt, int inner, int pad,
                         int64_t byte_off) {
    StPlan p;
    if (pad % 8 || !plan_stmatrix(L, tm, dt, inner, 0, &p))
        return false;
    StDest to = {.pad = pad, .byte_off = byte_off};
    emit_stmatrix(L, tm, &p, regs, dt, &to);
    return true;
}

bool llvm_stmatrix_plan_ok(Lower *L, const ThreadMap *tm, DType dt, int inner) {
    StPlan p;
    return plan_stmatrix(L, tm, dt, inner, 0, &p);
}

/* A local_store of such a block into a buffer whose layout keeps each run
 * of 8 elements along its contiguous dim in one 16-byte group (the #nvmma
 * swizzles, a #shared one of vec 8 or none). */
static bool store_stmatrix(Lower *L, ValueId buf, ValueId val) {
    const Layout *l = &L->f->layouts[L->f->values[buf].layout];
    Type t = L->f->values[buf].type;
    const ThreadMap *tm = llvm_tm(L, val);
    int inner = -1;
    if (t.rank != 2 || !tm)
        return false;
    if (l->kind == LAYOUT_NVMMA && l->elem_bits == 16)
        inner = l->transposed ? 0 : 1;
    else if (l->kind == LAYOUT_SHARED && l->rank == 2 && (l->max_phase <= 1 || l->vec % 8 == 0))
        inner = l->order[0];
    StPlan p;
    if (!plan_stmatrix(L, tm, dtype_of(L, val), inner, buf, &p))
        return false;
    StDest to = {.buf = buf, .base = llvm_val(L, buf)->r[0]};
    emit_stmatrix(L, tm, &p, llvm_val(L, val)->r, dtype_of(L, val), &to);
    return true;
}

/* local_load / local_store element-wise, in vectors where the swizzle allows. */
static void move_elems(Lower *L, ValueId buf, ValueId val, bool load) {
    const ThreadMap *tm = llvm_tm(L, val);
    DType dt = dtype_of(L, val);
    int bytes = llvm_dt_bytes(dt), v = access_width(L, tm, buf, bytes);
    LLVMTypeRef et = llvm_mem_type(L, dt), at = v > 1 ? LLVMVectorType(et, (unsigned)v) : et;
    LLVMValueRef *regs = load ? llvm_new_regs(L, tm->nregs) : llvm_val(L, val)->r, *ptrs = llvm_new_regs(L, tm->nregs / v);
    access_ptrs(L, tm, buf, v, ptrs);
    for (int r = 0; r < tm->nregs; r += v) {
        LLVMValueRef p = ptrs[r / v];
        if (load) {
            LLVMValueRef x = LLVMBuildLoad2(L->b, at, p, "");
            LLVMSetAlignment(x, (unsigned)(v * bytes));
            for (int i = 0; i < v; i++) {
                LLVMValueRef e = v > 1 ? LLVMBuildExtractElement(L->b, x, llvm_i32(L, i), "") : x;
                regs[r + i] = dt == DT_I1 ? LLVMBuildTrunc(L->b, e, L->t_i1, "") : e;
            }
            continue;
        }
        LLVMBasicBlockRef cont = llvm_guard_begin(L, llvm_owner(L, tm, r));
        LLVMValueRef x = v > 1 ? LLVMGetUndef(at) : NULL;
        for (int i = 0; i < v; i++) {
            LLVMValueRef e = dt == DT_I1 ? LLVMBuildZExt(L->b, regs[r + i], L->t_i8, "") : regs[r + i];
            x = v > 1 ? LLVMBuildInsertElement(L->b, x, e, llvm_i32(L, i), "") : e;
        }
        LLVMSetAlignment(LLVMBuildStore(L->b, x, p), (unsigned)(v * bytes));
        llvm_guard_end(L, cont);
    }
    if (load)
        llvm_set(L, val, regs, tm->nregs);
}

/* ---- TMA and mbarriers ---- */

/* A void inline-asm statement with i32 / i64 operands ("r" / "l"). */
static void tma_asm(Lower *L, const char *text, LLVMValueRef *args, int n) {
    LLVMTypeRef at[8];
    char cons[64];
    int o = 0;
    for (int i = 0; i < n; i++) {
        at[i] = LLVMTypeOf(args[i]);
        o += snprintf(cons + o, sizeof cons - (size_t)o, "%s%s", i ? "," : "",
                      LLVMGetIntTypeWidth(at[i]) == 64 ? "l" : "r");
    }
    o += snprintf(cons + o, sizeof cons - (size_t)o, "%s~{memory}", n ? "," : "");
    LLVMTypeRef fty = LLVMFunctionType(L->t_void, at, (unsigned)n, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), cons, (size_t)o, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMBuildCall2(L->b, fty, fn, args, (unsigned)n, "");
}

/* tma_asm issued by one lane that elect.sync picks in each warp running it
 * (the caller's branch, on warp-uniform values, keeps whole warps): ptxas then
 * knows a single lane issues, and hands the operands to UTMALDG as they are,
 * where under a branch on the thread index it walks the active lanes in a
 * loop around each copy. */
static void tma_asm_elect(Lower *L, const char *text, LLVMValueRef *args, int n) {
    char full[512];
    snprintf(full, sizeof full, "{\n.reg .pred e;\nelect.sync _|e, 0xffffffff;\n@e %s\n}", text);
    tma_asm(L, full, args, n);
}

/* The 32-bit shared-memory address of a buffer value. */
static LLVMValueRef smem_addr(Lower *L, ValueId buf) {
    return LLVMBuildPtrToInt(L->b, llvm_val(L, buf)->r[0], L->t_i32, "");
}

/* A predicate operand as an i1 (an integer one: nonzero). */
static LLVMValueRef truth(Lower *L, ValueId pred) {
    LLVMValueRef p = llvm_val(L, pred)->r[0];
    if (LLVMGetIntTypeWidth(LLVMTypeOf(p)) != 1)
        p = LLVMBuildICmp(L->b, LLVMIntNE, p, LLVMConstInt(LLVMTypeOf(p), 0, 0), "");
    return p;
}

/* The one thread of the warps running this code (thread 0, or a
 * producer's first), or with `warp` its whole warp (a branch every lane of
 * a warp takes alike: L->warp is warp-uniform), and (when given) a
 * predicate operand. */
static LLVMValueRef leader(Lower *L, bool warp, ValueId pred) {
    LLVMValueRef c = warp ? LLVMBuildICmp(L->b, LLVMIntEQ, L->warp, llvm_i32(L, L->leader / 32), "")
                          : LLVMBuildICmp(L->b, LLVMIntEQ, L->tid, llvm_i32(L, L->leader), "");
    if (pred)
        c = LLVMBuildAnd(L->b, c, truth(L, pred), "");
    return c;
}

/* mbarrier_init / mbarrier_inval: every barrier of the ring, by thread 0. */
static void lower_mbar_ring(Lower *L, Inst *in) {
    Type t = L->f->values[in->args[0]].type;
    LLVMValueRef base = smem_addr(L, in->args[0]);
    LLVMBasicBlockRef cont = llvm_guard_begin(L, leader(L, false, 0));
    char init[64];
    snprintf(init, sizeof init, "mbarrier.init.shared::cta.b64 [$0], %d;", in->attr.num > 0 ? in->attr.num : 1);
    for (int s = 0; s < t.shape[0]; s++) {
        LLVMValueRef a = LLVMBuildAdd(L->b, base, llvm_i32(L, 8 * s), "");
        tma_asm(L, in->op == IR_MBAR_INIT ? init : "mbarrier.inval.shared::cta.b64 [$0];", &a, 1);
    }
    if (in->op == IR_MBAR_INIT) /* the inits visible to the async proxy (TMA's complete_tx) */
        tma_asm(L, "fence.mbarrier_init.release.cluster;", NULL, 0);
    llvm_guard_end(L, cont);
}

static void lower_mbar_expect(Lower *L, Inst *in) {
    LLVMValueRef args[2] = {smem_addr(L, in->args[0]), llvm_i32(L, in->attr.num)};
    LLVMBasicBlockRef cont = llvm_guard_begin(L, leader(L, true, in->args[1]));
    tma_asm_elect(L, "mbarrier.arrive.expect_tx.shared::cta.b64 _, [$0], $1;", args, 2);
    llvm_guard_end(L, cont);
}

/* Lane 0 of each warp where the predicate holds arrives (a consumer warp
 * releasing a ring slot: the barrier counts the warps). The warp's threads
 * all passed the wgmma.wait_group that retired the slot's reads, an aligned
 * instruction of the whole warpgroup, so one arrival speaks for them. */
static void lower_mbar_arrive(Lower *L, Inst *in) {
    LLVMValueRef lane0 = LLVMBuildICmp(L->b, LLVMIntEQ, L->lane, llvm_i32(L, 0), "");
    LLVMValueRef p = LLVMBuildAnd(L->b, truth(L, in->args[1]), lane0, "");
    LLVMValueRef bar = smem_addr(L, in->args[0]);
    LLVMBasicBlockRef cont = llvm_guard_begin(L, p);
    tma_asm(L, "mbarrier.arrive.shared::cta.b64 _, [$0];", &bar, 1);
    llvm_guard_end(L, cont);
}

/* warp_specialize: the warps past num_warps give registers back; the first
 * of them runs the producer (one thread issuing, the warp polling) and the
 * rest leave at once, so no idle warp polls for scheduler slots; the
 * consumers take registers and go on, their barriers now counting only
 * them. setmaxnreg acts on whole warpgroups, which the branch on the warp
 * index keeps together. */
static void lower_warp_spec(Lower *L, Inst *in) {
    Function *f = L->f;
    bool regs = llvm_ws_regs(f); /* the 384-thread split llvm.c's maxnreg annotation sets up */
    LLVMBasicBlockRef prod = llvm_new_bb(L, "ws.producer"), cons = llvm_new_bb(L, "ws.consumer");
    LLVMValueRef is_prod = LLVMBuildICmp(L->b, LLVMIntUGE, L->warp, llvm_i32(L, f->num_warps), "");
    LLVMBuildCondBr(L->b, is_prod, prod, cons);
    LLVMPositionBuilderAtEnd(L->b, prod);
    char text[64];
    if (regs) {
        snprintf(text, sizeof text, "setmaxnreg.dec.sync.aligned.u32 %d;", LLVM_WS_PRODUCER_REGS);
        tma_asm(L, text, NULL, 0);
    }
    LLVMBasicBlockRef run = llvm_new_bb(L, "ws.run"), done = llvm_new_bb(L, "ws.done");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntEQ, L->warp, llvm_i32(L, f->num_warps), ""), run, done);
    LLVMPositionBuilderAtEnd(L->b, done);
    LLVMBuildRetVoid(L->b);
    LLVMPositionBuilderAtEnd(L->b, run);
    L->leader = 32 * f->num_warps;
    llvm_lower_block(L, in->regions[0]); /* its yield carries nothing */
    L->leader = 0;
    LLVMBuildRetVoid(L->b);
    LLVMPositionBuilderAtEnd(L->b, cons);
    if (regs) {
        snprintf(text, sizeof text, "setmaxnreg.inc.sync.aligned.u32 %d;", LLVM_WS_CONSUMER_REGS);
        tma_asm(L, text, NULL, 0);
    }
    L->split = true;
}

/* Every thread polls until the phase of the given parity has completed. */
static void lower_mbar_wait(Lower *L, Inst *in) {
    LLVMValueRef bar = smem_addr(L, in->args[0]), ph = llvm_val(L, in->args[1])->r[0];
    if (LLVMGetIntTypeWidth(LLVMTypeOf(ph)) != 32)
        ph = LLVMBuildIntCast2(L->b, ph, L->t_i32, 0, "");
    ph = LLVMBuildAnd(L->b, ph, llvm_i32(L, 1), "");
    LLVMBasicBlockRef loop = llvm_new_bb(L, "mbar.wait"), done = llvm_new_bb(L, "mbar.done");
    LLVMBuildBr(L->b, loop);
    LLVMPositionBuilderAtEnd(L->b, loop);
    const char *text = "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [$1], $2;\nselp.u32 $0, 1, 0, p;\n}";
    LLVMTypeRef at[2] = {L->t_i32, L->t_i32};
    LLVMTypeRef fty = LLVMFunctionType(L->t_i32, at, 2, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), "=r,r,r,~{memory}", 16, 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef args[2] = {bar, ph};
    LLVMValueRef r = LLVMBuildCall2(L->b, fty, fn, args, 2, "");
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntNE, r, llvm_i32(L, 0), ""), done, loop);
    LLVMPositionBuilderAtEnd(L->b, done);
}

#define TMA_LOAD_ASM \
    "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [$0], [$1, {$2, $3}], [$4];"

/* A load's copies (one per atom column), copy c from warp w0 + c, where
 * every warp runs the code and the copies fit in its warps: each warp's
 * copy is one elect.sync and one UTMALDG on addresses of its warp index,
 * and the copies leave at once, not one after another from one thread
 * behind its address arithmetic (Triton spreads them so). The next load
 * starts at the warp after its last. False: one warp issues them all. */
static bool tma_load_spread(Lower *L, LLVMValueRef dst, LLVMValueRef map, LLVMValueRef row, LLVMValueRef col,
                            LLVMValueRef bar, ValueId pred, int ncopies, int col_step, int dst_step) {
    int nw = L->f->num_warps;
    if (L->leader || L->split || ncopies < 2 || ncopies > nw)
        return false;
    int w0 = L->tma_warp + ncopies <= nw ? L->tma_warp : 0;
    L->tma_warp = (w0 + ncopies) % nw;
    LLVMValueRef c = LLVMBuildSub(L->b, L->warp, llvm_i32(L, w0), "tma.copy");
    LLVMValueRef mine = LLVMBuildICmp(L->b, LLVMIntULT, c, llvm_i32(L, ncopies), "");
    if (pred)
        mine = LLVMBuildAnd(L->b, mine, truth(L, pred), "");
    LLVMBasicBlockRef cont = llvm_guard_begin(L, mine);
    LLVMValueRef args[5] = {
        LLVMBuildAdd(L->b, dst, LLVMBuildMul(L->b, c, llvm_i32(L, dst_step), ""), ""), map,
        LLVMBuildAdd(L->b, col, LLVMBuildMul(L->b, c, llvm_i32(L, col_step), ""), ""), row, bar,
    };
    tma_asm_elect(L, TMA_LOAD_ASM, args, 5);
    llvm_guard_end(L, cont);
    return true;
}

/* tma_load / tma_store: one bulk tensor copy per atom column of the #nvmma buffer. */
static void lower_tma_load(Lower *L, Inst *in) {
    Function *f = L->f;
    ValueId buf = in->args[0];
    Type t = f->values[buf].type;
    const Layout *l = &f->layouts[f->values[buf].layout];
    int bytes = llvm_dt_bytes((DType)t.dtype), rows = t.shape[0], cols = t.shape[1];
    int box = l->swizzle ? l->swizzle / bytes : cols;
    if (l->kind != LAYOUT_NVMMA || l->transposed || l->swizzle != arch_tma_swizzle(bytes, cols) || cols % box ||
        rows > 256) {
        diag_internal(L->d, "in @%s: %s of a buffer whose layout is not the #nvmma of the tensor map's "
                      "swizzle (%d bytes for %d columns of %d bytes)", f->name, ir_ops[in->op].name,
                      arch_tma_swizzle(bytes, cols), cols, bytes);
        L->failed = true;
        return;
    }
    bool store = in->op == IR_TMA_STORE;
    LLVMValueRef dst = smem_addr(L, buf), bar = store ? NULL : smem_addr(L, in->args[4]);
    LLVMValueRef map = llvm_val(L, in->args[1])->r[0], row = llvm_val(L, in->args[2])->r[0];
    LLVMValueRef col = llvm_val(L, in->args[3])->r[0];
    if (!store && tma_load_spread(L, dst, map, row, col, bar, in->args[5], cols / box, box, rows * box * bytes))
        return;
    LLVMBasicBlockRef cont = llvm_guard_begin(L, store ? leader(L, false, 0) : leader(L, true, in->args[5]));
    for (int c = 0; c < cols / box && store; c++) {
        LLVMValueRef args[4] = {map, LLVMBuildAdd(L->b, col, llvm_i32(L, c * box), ""), row,
                                LLVMBuildAdd(L->b, dst, llvm_i32(L, (int64_t)c * rows * box * bytes), "")};
        tma_asm(L, "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [$0, {$1, $2}], [$3];", args, 4);
    }
    if (store) {
        tma_asm(L, "cp.async.bulk.commit_group;", NULL, 0);
        tma_asm(L, "cp.async.bulk.wait_group.read 0;", NULL, 0);
    }
    for (int c = 0; c < cols / box && !store; c++) {
        LLVMValueRef args[5] = {
            LLVMBuildAdd(L->b, dst, llvm_i32(L, (int64_t)c * rows * box * bytes), ""), map,
            LLVMBuildAdd(L->b, col, llvm_i32(L, c * box), ""), row, bar,
        };
        tma_asm_elect(L, TMA_LOAD_ASM, args, 5);
    }
    llvm_guard_end(L, cont);
}

/* TMA's code for a map's element type (PTX ISA, tensormap.replace: .u8 0,
 * .u16 1, .u32 2, .s32 3, .f16 6, .f32 7, .bf16 10; fp8 copies as bytes). */
static int tmap_elemtype(DType dt) {
    switch (dt) {
    case DT_F16: return 6;
    case DT_BF16: return 10;
    case DT_F32: return 7;
    case DT_I32: return 3;
    case DT_U32: return 2;
    default: return dt_bits(dt) == 16 ? 1 : 0;
    }
}

/* tensormap_create, as Triton's TMAToLLVM: warp 0 zeroes the op's 128 bytes
 * of shared scratch, its lane 0 writes the fields (tensormap.replace), the
 * warp copies the map to the program's place in the global scratch with the
 * release fence the tensormap proxy needs, then acquires it for the TMA
 * copies that read it (with Triton's bulk-group wait after the fence, a ptxas
 * workaround), and a barrier lets every warp issue them (past a
 * warp_specialize, warp 0 is a consumer and the barrier the consumers').
 * The box and swizzle are the ones lower_tma_load reads the ring with:
 * swizzled atoms (arch_tma_swizzle), one copy each. The result is the map's
 * address. */
static void lower_tmap_create(Lower *L, Inst *in) {
    Function *f = L->f;
    DType et = (DType)f->values[in->args[0]].type.pointee;
    int bytes = llvm_dt_bytes(et), rows = (int)in->attr.vals[0], cols = (int)in->attr.vals[1];
    int sw = arch_tma_swizzle(bytes, cols), box = sw ? sw / bytes : cols;
    if (!f->nparams || !f->params[f->nparams - 1].scratch || in->attr.offset < 0 || L->leader) {
        diag_internal(L->d, "in @%s: a tensormap_create without its place in the global scratch (tma_prune), or "
                      "in a producer's region", f->name);
        L->failed = true;
        return;
    }
    llvm_smem_use(L, 128, in->span);
    LLVMValueRef pid = llvm_sreg(L, "ctaid.x"), nx = llvm_sreg(L, "nctaid.x");
    pid = LLVMBuildAdd(L->b, pid, LLVMBuildMul(L->b, nx, LLVMBuildAdd(L->b, llvm_sreg(L, "ctaid.y"),
                       LLVMBuildMul(L->b, llvm_sreg(L, "nctaid.y"), llvm_sreg(L, "ctaid.z"), ""), ""), ""), "");
    LLVMValueRef slot = LLVMBuildPtrToInt(L->b, llvm_val(L, (ValueId)f->nparams)->r[0], L->t_i64, "");
    slot = LLVMBuildAdd(L->b, slot, LLVMBuildMul(L->b, LLVMBuildZExt(L->b, pid, L->t_i64, ""),
                                                 llvm_i64(L, f->global_scratch), ""), "");
    slot = LLVMBuildAdd(L->b, slot, llvm_i64(L, in->attr.offset), "tmap");
    LLVMValueRef smem = LLVMBuildPtrToInt(L->b, llvm_smem_ptr(L, L->t_i8, llvm_i32(L, 0), 0), L->t_i32, "");
    LLVMBasicBlockRef cont = llvm_guard_begin(L, leader(L, true, 0));
    LLVMBuildStore(L->b, llvm_i32(L, 0), llvm_smem_ptr(L, L->t_i32, L->lane, 0));
    LLVMValueRef all = llvm_i32(L, -1);
    llvm_call(L, "llvm.nvvm.bar.warp.sync", L->t_void, &all, 1);
    LLVMBasicBlockRef lane0 = llvm_guard_begin(L, LLVMBuildICmp(L->b, LLVMIntEQ, L->lane, llvm_i32(L, 0), ""));
    char text[2048];
#define R "tensormap.replace.tile."
#define SB ".shared::cta.b1024."
    snprintf(text, sizeof text,
             R "global_address" SB "b64 [$0], $1;\n" R "rank" SB "b32 [$0], 1;\n"
             R "box_dim" SB "b32 [$0], 0, %d;\n" R "box_dim" SB "b32 [$0], 1, %d;\n"
             R "global_dim" SB "b32 [$0], 0, $3;\n" R "global_dim" SB "b32 [$0], 1, $2;\n"
             R "global_stride" SB "b64 [$0], 0, $4;\n"
             R "element_stride" SB "b32 [$0], 0, 1;\n" R "element_stride" SB "b32 [$0], 1, 1;\n"
             R "elemtype" SB "b32 [$0], %d;\n" R "interleave_layout" SB "b32 [$0], 0;\n"
             R "swizzle_mode" SB "b32 [$0], %d;\n" R "fill_mode" SB "b32 [$0], %d;",
             box, rows, tmap_elemtype(et), sw == 128 ? 3 : sw == 64 ? 2 : sw == 32 ? 1 : 0, in->attr.nan ? 1 : 0);
#undef R
#undef SB
    LLVMValueRef base = LLVMBuildPtrToInt(L->b, llvm_val(L, in->args[0])->r[0], L->t_i64, "");
    LLVMValueRef stride = LLVMBuildMul(L->b, llvm_val(L, in->args[3])->r[0], llvm_i64(L, bytes), "");
    LLVMValueRef fields[5] = {smem, base, llvm_val(L, in->args[1])->r[0], llvm_val(L, in->args[2])->r[0], stride};
    tma_asm(L, text, fields, 5);
    llvm_guard_end(L, lane0);
    llvm_call(L, "llvm.nvvm.bar.warp.sync", L->t_void, &all, 1);
    LLVMValueRef cp[2] = {slot, smem};
    tma_asm(L, "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [$0], [$1], 128;",
            cp, 2);
    tma_asm(L, "fence.proxy.tensormap::generic.acquire.gpu [$0], 128;\ncp.async.bulk.commit_group;\n"
               "cp.async.bulk.wait_group.read 0;", &slot, 1);
    llvm_guard_end(L, cont);
    llvm_barrier(L);
    LLVMValueRef *r = llvm_new_regs(L, 1);
    r[0] = slot;
    llvm_set(L, in->results[0], r, 1);
}

/* The pipeliner's ops need what its target had; laid-out IR (tlc --ir-in)
 * compiled for an older one is the user's error: what the op needs, or NULL. */
static const char *op_needs(const Lower *L, OpCode op) {
    switch (op) {
    case IR_ASYNC_COPY: case IR_ASYNC_COMMIT: case IR_ASYNC_WAIT:
        return ptx_arch_has(L->arch, ARCH_AMPERE) ? NULL : "cp.async (sm_80 and newer)";
    case IR_MBAR_INIT: case IR_MBAR_INVAL: case IR_MBAR_EXPECT: case IR_MBAR_WAIT: case IR_MBAR_ARRIVE:
    case IR_TMA_LOAD: case IR_TMA_STORE:
        return ptx_arch_has(L->arch, ARCH_HOPPER) ? NULL : "TMA and its mbarriers (sm_90 and newer)";
    case IR_WARP_SPEC:
        return ptx_arch_has(L->arch, ARCH_WGMMA) ? NULL : "setmaxnreg (sm_90a)";
    case IR_TMAP_CREATE:
        return ptx_arch_has(L->arch, ARCH_WGMMA) ? NULL : "tensormap.replace (sm_90a)";
    default:
        return NULL;
    }
}

void llvm_lower_shared(Lower *L, Inst *in) {
    const char *need = op_needs(L, in->op);
    if (need) {
        diag_error(L->d, L->f->src, in->span, "'%s' needs %s, which %s does not have: compile IR from before the "
                   "pipeline pass (or the source) for %s", ir_ops[in->op].name, need, L->arch->name, L->arch->name);
        L->failed = true;
        return;
    }
    switch (in->op) {
    case IR_LOCAL_ALLOC:
        lower_alloc(L, in);
        return;
    case IR_MEMDESC_INDEX:
        lower_index(L, in);
        return;
    case IR_MEMDESC_TRANS: { /* a view: the same address */
        LLVMValueRef *r = llvm_new_regs(L, 1);
        r[0] = llvm_val(L, in->args[0])->r[0];
        llvm_set(L, in->results[0], r, 1);
        return;
    }
    case IR_ASYNC_COPY:
        lower_copy(L, in);
        return;
    case IR_ASYNC_COMMIT:
        llvm_call(L, "llvm.nvvm.cp.async.commit.group", L->t_void, NULL, 0);
        return;
    case IR_ASYNC_WAIT: {
        /* inline, in the words newer LLVMs print for the intrinsic (Triton's:
         * `cp.async.wait_group \tN;`, which test_core.py searches for);
         * LLVM 19 writes `cp.async.wait_group N;` */
        char text[64];
        snprintf(text, sizeof text, "cp.async.wait_group \t%d;", in->attr.num);
        LLVMTypeRef wty = LLVMFunctionType(L->t_void, NULL, 0, 0);
        LLVMBuildCall2(L->b, wty,
                       LLVMGetInlineAsm(wty, text, strlen(text), "~{memory}", 9, 1, 0, LLVMInlineAsmDialectATT, 0),
                       NULL, 0, "");
        /* wgmma reads shared memory through the async proxy: each thread's
         * landed copies are made visible to it before the barrier that
         * follows (PTX ISA, "Async proxy") */
        if (llvm_uses_wgmma(L->f)) {
            LLVMTypeRef fty = LLVMFunctionType(L->t_void, NULL, 0, 0);
            const char *text = "fence.proxy.async.shared::cta;";
            LLVMValueRef fn = LLVMGetInlineAsm(fty, text, strlen(text), "~{memory}", 9, 1, 0, LLVMInlineAsmDialectATT, 0);
            LLVMBuildCall2(L->b, fty, fn, NULL, 0, "");
            if (in->attr.num == 0)
                llvm_wgmma_drain(L);
        }
        return;
    }
    case IR_LOCAL_LOAD:
        if (layout_is_wgmma(L->f, L->f->values[in->results[0]].layout)) {
            /* a wgmma operand: the buffer's address, which the dot turns into descriptors */
            LLVMValueRef *r = llvm_new_regs(L, 1);
            r[0] = llvm_val(L, in->args[0])->r[0];
            llvm_set(L, in->results[0], r, 1);
            return;
        }
        if (llvm_fma_smem_operand(L, in)) {
            /* an FMA dot's operand: the buffer's address; the dot reads it */
            LLVMValueRef *r = llvm_new_regs(L, 1);
            r[0] = llvm_val(L, in->args[0])->r[0];
            llvm_set(L, in->results[0], r, 1);
            return;
        }
        if (!llvm_local_load_ldmatrix(L, in, llvm_val(L, in->args[0])->r[0]))
            move_elems(L, in->args[0], in->results[0], true);
        return;
    case IR_LOCAL_STORE:
        if (!store_stmatrix(L, in->args[0], in->args[1]))
            move_elems(L, in->args[0], in->args[1], false);
        /* an #nvmma buffer is read by the async proxy (wgmma, a TMA store):
         * each thread's writes are made visible to it, before the barrier */
        if (L->f->layouts[L->f->values[in->args[0]].layout].kind == LAYOUT_NVMMA)
            tma_asm(L, "fence.proxy.async.shared::cta;", NULL, 0);
        return;
    case IR_MBAR_INIT: case IR_MBAR_INVAL:
        lower_mbar_ring(L, in);
        return;
    case IR_MBAR_EXPECT:
        lower_mbar_expect(L, in);
        return;
    case IR_MBAR_WAIT:
        lower_mbar_wait(L, in);
        return;
    case IR_MBAR_ARRIVE: /* the slot goes back to the producer: no wgmma may still read it */
        llvm_wgmma_retire_all(L);
        lower_mbar_arrive(L, in);
        return;
    case IR_WARP_SPEC:
        lower_warp_spec(L, in);
        return;
    case IR_TMA_LOAD: case IR_TMA_STORE:
        lower_tma_load(L, in);
        return;
    case IR_TMAP_CREATE:
        lower_tmap_create(L, in);
        return;
    default:
        diag_internal(L->d, "op '%s' is not a shared-memory op", ir_ops[in->op].name);
        L->failed = true;
    }
}
