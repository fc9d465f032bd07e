/* llvm.c: laid-out tile IR -> LLVM IR for NVPTX, and the codegen_module driver.
 *
 * Algorithm. One LLVM module (in its own LLVMContext) per compilation; each
 * Function becomes a kernel (PTX kernel calling convention, nvvm.annotations
 * "kernel" and "maxntidx" = 32 * the launch's warps, ir_launch_warps). The
 * lowering is per-thread SIMT:
 *
 *  1. check: every block value has a layout; its ThreadMap (layout.h) gives
 *     the registers one thread holds; too many registers is a source error.
 *  2. lower: walk the body in order. A value becomes `nregs` LLVM scalars per
 *     thread (register r holds element (base(lane, warp) + reg_off[r]) mod
 *     shape); elementwise ops apply per register, shape ops and
 *     convert_layout rename registers when every thread already holds what it
 *     needs and otherwise go through the shared scratch array
 *     (@global_smem, extern dynamic shared memory, reused by every op that
 *     needs it, with barriers around each use); for / if / while become basic
 *     blocks with one phi per register of each carried value.
 *  3. verify (LLVMVerifyModule; a failure is a bug in tl: the module is dumped
 *     to a file), run default<On>, print the IR and emit PTX (ptx.c).
 *
 * The op families live in llvm_ops.c (elementwise, shape, math, debugging),
 * llvm_mem.c (loads, stores, atomics), llvm_reduce.c and llvm_dot.c. */
#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "llvm_int.h"

/* ---- types and constants ---- */

LLVMTypeRef llvm_type(Lower *L, DType dt) {
    switch (dt) {
    case DT_I1: return L->t_i1;
    case DT_I8: case DT_U8: return L->t_i8;
    case DT_I16: case DT_U16: return L->t_i16;
    case DT_I32: case DT_U32: return L->t_i32;
    case DT_I64: case DT_U64: return L->t_i64;
    case DT_F16: return L->t_f16;
    case DT_BF16: return L->t_bf16;
    case DT_F32: return L->t_f32;
    case DT_F64: return L->t_f64;
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: return L->t_i8; /* the bits (llvm_fp8.c) */
    case DT_PTR: return L->t_ptr1;
    default: return L->t_i32;
    }
}

LLVMTypeRef llvm_mem_type(Lower *L, DType dt) { return dt == DT_I1 ? L->t_i8 : llvm_type(L, dt); }

int llvm_dt_bytes(DType dt) { return dt == DT_I1 ? 1 : dt_bits(dt) / 8; }

LLVMValueRef llvm_i32(Lower *L, int64_t c) { return LLVMConstInt(L->t_i32, (unsigned long long)c, 1); }
LLVMValueRef llvm_i64(Lower *L, int64_t c) { return LLVMConstInt(L->t_i64, (unsigned long long)c, 1); }

/* ---- calls ---- */

LLVMValueRef llvm_call(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n) {
    LLVMValueRef fn = LLVMGetNamedFunction(L->mod, name);
    if (!fn) {
        LLVMTypeRef pt[16];
        for (int i = 0; i < n && i < 16; i++)
            pt[i] = LLVMTypeOf(args[i]);
        fn = LLVMAddFunction(L->mod, name, LLVMFunctionType(ret, pt, (unsigned)n, 0));
    }
    return LLVMBuildCall2(L->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)n, "");
}

const char *llvm_intr_name(Lower *L, const char *base, LLVMTypeRef t) {
    const char *suffix = t == L->t_f16 ? "f16" : t == L->t_bf16 ? "bf16" : t == L->t_f32 ? "f32"
                       : t == L->t_f64 ? "f64" : t == L->t_i8 ? "i8" : t == L->t_i16 ? "i16"
                       : t == L->t_i64 ? "i64" : t == L->t_i1 ? "i1" : "i32";
    return arena_printf(L->f->arena, "%s.%s", base, suffix);
}

LLVMValueRef llvm_sreg(Lower *L, const char *name) {
    char buf[64];
    snprintf(buf, sizeof buf, "llvm.nvvm.read.ptx.sreg.%s", name);
    return llvm_call(L, buf, L->t_i32, NULL, 0);
}

/* bar.sync 0 (past a warp_specialize, barrier 1 of the consumers): every
 * scratch use is bracketed by these, so one op's reads of @global_smem
 * finish before the next op overwrites it. */
void llvm_barrier(Lower *L) {
    if (!L->split) {
        llvm_call(L, "llvm.nvvm.barrier0", L->t_void, NULL, 0);
        return;
    }
    /* barrier 1 of the consumers alone: a producer that left never arrives */
    LLVMValueRef a[2] = {llvm_i32(L, 1), llvm_i32(L, 32 * L->f->num_warps)};
    llvm_call(L, "llvm.nvvm.barrier.sync.cnt", L->t_void, a, 2);
}

LLVMValueRef llvm_cstring(Lower *L, const char *s) {
    size_t n = strlen(s);
    LLVMValueRef init = LLVMConstStringInContext(L->ctx, s, (unsigned)n, 0);
    LLVMValueRef g = LLVMAddGlobalInAddressSpace(L->mod, LLVMTypeOf(init), "str", 1);
    LLVMSetInitializer(g, init);
    LLVMSetGlobalConstant(g, 1);
    LLVMSetLinkage(g, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
    return LLVMConstAddrSpaceCast(g, L->t_ptr0);
}

/* ---- values ---- */

LVal *llvm_val(Lower *L, ValueId v) { return &L->vals[v]; }

LLVMValueRef *llvm_new_regs(Lower *L, int n) {
    return arena_alloc(L->f->arena, sizeof(LLVMValueRef) * (size_t)(n > 0 ? n : 1));
}

void llvm_set(Lower *L, ValueId v, LLVMValueRef *regs, int n) {
    L->vals[v].r = regs;
    L->vals[v].n = n;
}

const ThreadMap *llvm_tm(Lower *L, ValueId v) { return L->tms[v]; }


/* ---- ThreadMap arithmetic ---- */

/* base_d(lane, warp) is computed once per distinct formula, in the entry
 * block, so it dominates every use and costs nothing inside loops. */

static LLVMValueRef id_term(Lower *L, LLVMValueRef id, int div, int mod, int mul) {
    if (mul == 0 || mod <= 1)
        return NULL;
    LLVMValueRef x = id;
    if (div > 1)
        x = LLVMBuildUDiv(L->eb, x, llvm_i32(L, div), "");
    x = LLVMBuildURem(L->eb, x, llvm_i32(L, mod), "");
    if (mul > 1)
        x = LLVMBuildMul(L->eb, x, llvm_i32(L, mul), "");
    return x;
}

LLVMValueRef llvm_base(Lower *L, const ThreadMap *tm, int d) {
    const int p[6] = {tm->dim[d].ldiv, tm->dim[d].lmod, tm->dim[d].lmul,
                      tm->dim[d].wdiv, tm->dim[d].wmod, tm->dim[d].wmul};
    for (int i = 0; i < L->nbases; i++)
        if (!memcmp(L->bases[i].p, p, sizeof p))
            return L->bases[i].v;
    LLVMValueRef a = id_term(L, L->lane, p[0], p[1], p[2]);
    LLVMValueRef w = id_term(L, L->warp, p[3], p[4], p[5]);
    LLVMValueRef v = a && w ? LLVMBuildAdd(L->eb, a, w, "") : a ? a : w ? w : llvm_i32(L, 0);
    if (L->nbases == L->cap_bases) {
        int cap = L->cap_bases ? 2 * L->cap_bases : 16;
        BaseKey *nb = arena_alloc(L->f->arena, sizeof *nb * (size_t)cap);
        if (!nb)
            return v;
        if (L->nbases)
            memcpy(nb, L->bases, sizeof *nb * (size_t)L->nbases);
        L->bases = nb;
        L->cap_bases = cap;
    }
    L->bases[L->nbases].v = v;
    memcpy(L->bases[L->nbases++].p, p, sizeof p);
    return v;
}

LLVMValueRef llvm_index(Lower *L, const ThreadMap *tm, int r, int d) {
    if (tm->shape[d] == 1)
        return llvm_i32(L, 0);
    LLVMValueRef v = LLVMBuildAdd(L->b, llvm_base(L, tm, d), llvm_i32(L, tm->reg_off[r][d]), "");
    return LLVMBuildAnd(L->b, v, llvm_i32(L, tm->shape[d] - 1), "");
}

LLVMValueRef llvm_linear(Lower *L, const ThreadMap *tm, int r, const int64_t *coef) {
    LLVMValueRef acc = llvm_i32(L, 0);
    for (int d = 0; d < tm->rank; d++) {
        if (!coef[d] || tm->shape[d] == 1)
            continue;
        LLVMValueRef t = LLVMBuildMul(L->b, llvm_index(L, tm, r, d), llvm_i32(L, coef[d]), "");
        acc = LLVMBuildAdd(L->b, acc, t, "");
    }
    return acc;
}

int64_t *llvm_const_steps(Lower *L, int n, int64_t (*at)(const void *c, int lane, int warp, int g), const void *c) {
    int64_t *delta = n > 1 ? arena_alloc(L->f->arena, sizeof *delta * (size_t)n) : NULL;
    if (!delta)
        return NULL;
    for (int warp = 0; warp < L->f->num_warps; warp++)
        for (int lane = 0; lane < 32; lane++) {
            int64_t o0 = at(c, lane, warp, 0);
            if (o0 < 0)
                return NULL;
            for (int g = 1; g < n; g++) {
                int64_t d = at(c, lane, warp, g) - o0;
                if (d < INT32_MIN || d > INT32_MAX || ((warp || lane) && d != delta[g]))
                    return NULL;
                delta[g] = d;
            }
        }
    return delta;
}

void llvm_row_major(int rank, const int32_t *shape, int64_t *strides) {
    int64_t s = 1;
    for (int d = rank - 1; d >= 0; d--) {
        strides[d] = s;
        s *= shape[d];
    }
}

/* Largest base_d any thread of the program gets. */
static int64_t max_base(const ThreadMap *tm, int d, int nwarps) {
    int lanes = tm->dim[d].lmod, warps = tm->dim[d].wmod;
    if (tm->dim[d].ldiv * lanes > 32)
        lanes = 32 / (tm->dim[d].ldiv ? tm->dim[d].ldiv : 1);
    if (tm->dim[d].wdiv * warps > nwarps)
        warps = nwarps / (tm->dim[d].wdiv ? tm->dim[d].wdiv : 1);
    return (int64_t)(lanes > 0 ? lanes - 1 : 0) * tm->dim[d].lmul +
           (int64_t)(warps > 0 ? warps - 1 : 0) * tm->dim[d].wmul;
}

/* Copies of an element come from lane / warp bits no dimension reads (the
 * layout is a slice, or the tile has more threads than the block) and from
 * indices that wrap around the shape. The owner is the copy with those bits
 * zero and an index that did not wrap. */
LLVMValueRef llvm_owner(Lower *L, const ThreadMap *tm, int r) {
    if (!tm)
        return NULL;
    int nw = L->f->num_warps, used_lane = 0, used_warp = 0;
    for (int d = 0; d < tm->rank; d++) {
        if (tm->dim[d].lmul && tm->dim[d].lmod > 1)
            used_lane |= (tm->dim[d].lmod - 1) * tm->dim[d].ldiv;
        if (tm->dim[d].wmul && tm->dim[d].wmod > 1)
            used_warp |= (tm->dim[d].wmod - 1) * tm->dim[d].wdiv;
    }
    LLVMValueRef c = NULL;
    int ul = 31 & ~used_lane, uw = (nw - 1) & ~used_warp;
    if (ul) {
        LLVMValueRef m = LLVMBuildAnd(L->b, L->lane, llvm_i32(L, ul), "");
        c = LLVMBuildICmp(L->b, LLVMIntEQ, m, llvm_i32(L, 0), "");
    }
    if (uw) {
        LLVMValueRef m = LLVMBuildAnd(L->b, L->warp, llvm_i32(L, uw), "");
        LLVMValueRef e = LLVMBuildICmp(L->b, LLVMIntEQ, m, llvm_i32(L, 0), "");
        c = c ? LLVMBuildAnd(L->b, c, e, "") : e;
    }
    for (int d = 0; d < tm->rank; d++) {
        if (max_base(tm, d, nw) + tm->reg_off[r][d] < tm->shape[d])
            continue;
        LLVMValueRef i = LLVMBuildAdd(L->b, llvm_base(L, tm, d), llvm_i32(L, tm->reg_off[r][d]), "");
        LLVMValueRef e = LLVMBuildICmp(L->b, LLVMIntULT, i, llvm_i32(L, tm->shape[d]), "");
        c = c ? LLVMBuildAnd(L->b, c, e, "") : e;
    }
    return c;
}

/* ---- shared memory and moving values between thread maps ---- */

/* The op's scratch is the area smem_alloc_pass gave it; barrier_pass put a
 * barrier op before it where others used the area; a second use within the
 * op waits for the op's own first. */
void llvm_smem_use(Lower *L, int64_t bytes, Span sp) {
    (void)sp;
    if (!L->f->smem_allocated || bytes > L->scratch_cap) {
        if (!L->failed)
            diag_internal(L->d, "in @%s: an op needs %lld bytes of shared scratch, smem-alloc gave it %d",
                          L->f->name, (long long)bytes, L->scratch_cap);
        L->failed = true;
        return;
    }
    if (L->scratch_used)
        llvm_barrier(L);
    L->scratch_used = true;
}

LLVMValueRef llvm_smem_ptr(Lower *L, LLVMTypeRef elty, LLVMValueRef idx, int64_t byte_off) {
    LLVMValueRef p = L->smem;
    byte_off += L->scratch_off;
    if (byte_off) {
        LLVMValueRef o = llvm_i32(L, byte_off);
        p = LLVMBuildGEP2(L->b, L->t_i8, p, &o, 1, "");
    }
    return LLVMBuildGEP2(L->b, elty, p, &idx, 1, "");
}

/* The scratch copy of a block is row-major. Registers r..r+v-1 move as one
 * shared access when they are consecutive along the map's contig_dim and that
 * dim is the one with coefficient 1 (consecutive in the scratch), v aligned,
 * at most 16 bytes, and every other coefficient a multiple of v (so the run's
 * start stays aligned). */
static int smem_vec(const ThreadMap *tm, const int64_t *coef, int bytes) {
    int d = tm->contig_dim, v = tm->contig;
    if (d < 0 || d >= tm->rank || coef[d] != 1)
        return 1;
    while (v > 1 && (v * bytes > 16 || tm->nregs % v))
        v /= 2;
    for (int e = 0; e < tm->rank; e++)
        while (v > 1 && e != d && coef[e] % v)
            v /= 2;
    return v < 1 ? 1 : v;
}

/* Rows are padded when a row spans all 32 banks a whole number of times, so
 * threads reading down a column hit different banks: by 4 bytes, or by 16
 * when 16-byte vectors must stay aligned (rows then start 4 banks apart,
 * still 8 distinct starts for 8 consecutive rows). Returns the padding in
 * elements and narrows the vector widths to what it keeps aligned. */
static int smem_pad(const ThreadMap *src, int bytes, int *row_log2, int *sv, int *dv) {
    int last = src->rank ? src->shape[src->rank - 1] : 1;
    *row_log2 = __builtin_ctz((unsigned)last);
    while (*sv > last)
        *sv /= 2;
    while (*dv > last)
        *dv /= 2;
    if (!layout_row_padded(src->rank, last, bytes))
        return 0;
    int wide = (*sv > *dv ? *sv : *dv) * bytes;
    int pad_bytes = wide > 4 ? 16 : 4;
    int pad = pad_bytes >= bytes ? pad_bytes / bytes : 1;
    while (*sv > 1 && pad % *sv)
        *sv /= 2;
    while (*dv > 1 && pad % *dv)
        *dv /= 2;
    return pad;
}

LLVMValueRef llvm_smem_index(Lower *L, LLVMValueRef lin, int pad, int row_log2) {
    if (!pad)
        return lin;
    LLVMValueRef row = LLVMBuildLShr(L->b, lin, llvm_i32(L, row_log2), "");
    return LLVMBuildAdd(L->b, lin, LLVMBuildMul(L->b, row, llvm_i32(L, pad), ""), "");
}

/* The scratch copy's places: element e of a block at llvm_smem_index of
 * base + sum_d e_d coef[d]. ScratchAt is what scratch_at, their
 * compile-time twin for llvm_const_steps, reads. */
typedef struct ScratchAt {
    const ThreadMap *tm;
    int v; /* registers an access */
    const int64_t *coef;
    int64_t base;
    int pad, row_log2;
} ScratchAt;

static int64_t scratch_at(const void *c, int lane, int warp, int g) {
    const ScratchAt *s = c;
    int32_t e[IR_MAX_RANK];
    layout_elem_index(s->tm, lane, warp, g * s->v, e);
    int64_t lin = s->base;
    for (int d = 0; d < s->tm->rank; d++)
        lin += (int64_t)e[d] * s->coef[d];
    return llvm_smem_index_at(lin, s->pad, s->row_log2);
}

void llvm_scratch_indices(Lower *L, const ThreadMap *tm, int v, const int64_t *coef, int64_t base, int pad,
                          int row_log2, LLVMValueRef *idx) {
    ScratchAt s = {tm, v, coef, base, pad, row_log2};
    int n = tm->nregs / v;
    int64_t *delta = llvm_const_steps(L, n, scratch_at, &s);
    for (int g = 0; g < n; g++) {
        if (g > 0 && delta) {
            idx[g] = LLVMBuildAdd(L->b, idx[0], llvm_i32(L, (int32_t)delta[g]), "");
            continue;
        }
        LLVMValueRef lin = llvm_linear(L, tm, g * v, coef);
        if (base)
            lin = LLVMBuildAdd(L->b, lin, llvm_i32(L, (int)base), "");
        idx[g] = llvm_smem_index(L, lin, pad, row_log2);
    }
}

/* Store registers r..r+v-1 (i1 as bytes) at scratch element idx. */
static void smem_store(Lower *L, DType dt, const LLVMValueRef *regs, int v, LLVMValueRef idx, int64_t byte_off) {
    LLVMTypeRef ty = llvm_mem_type(L, dt);
    LLVMValueRef x = NULL;
    if (v > 1)
        x = LLVMGetUndef(LLVMVectorType(ty, (unsigned)v));
    for (int i = 0; i < v; i++) {
        LLVMValueRef e = dt == DT_I1 ? LLVMBuildZExt(L->b, regs[i], L->t_i8, "") : regs[i];
        x = v > 1 ? LLVMBuildInsertElement(L->b, x, e, llvm_i32(L, i), "") : e;
    }
    LLVMValueRef st = LLVMBuildStore(L->b, x, llvm_smem_ptr(L, ty, idx, byte_off));
    LLVMSetAlignment(st, (unsigned)(v * llvm_dt_bytes(dt)));
}

static void smem_load(Lower *L, DType dt, LLVMValueRef *regs, int v, LLVMValueRef idx) {
    LLVMTypeRef ty = llvm_mem_type(L, dt);
    LLVMTypeRef at = v > 1 ? LLVMVectorType(ty, (unsigned)v) : ty;
    LLVMValueRef x = LLVMBuildLoad2(L->b, at, llvm_smem_ptr(L, ty, idx, 0), "");
    LLVMSetAlignment(x, (unsigned)(v * llvm_dt_bytes(dt)));
    for (int i = 0; i < v; i++) {
        LLVMValueRef e = v > 1 ? LLVMBuildExtractElement(L->b, x, llvm_i32(L, i), "") : x;
        regs[i] = dt == DT_I1 ? LLVMBuildTrunc(L->b, e, L->t_i1, "") : e;
    }
}

/* Store with vectors of sv registers (sv as smem_vec and smem_pad allow). */
static void stage(Lower *L, const ThreadMap *tm, const LLVMValueRef *regs, DType dt, int sv, int pad,
                  int64_t byte_off) {
    int64_t strides[IR_MAX_RANK];
    llvm_row_major(tm->rank, tm->shape, strides);
    int row_log2 = tm->rank ? __builtin_ctz((unsigned)tm->shape[tm->rank - 1]) : 0;
    LLVMValueRef *idx = llvm_new_regs(L, tm->nregs / sv);
    llvm_scratch_indices(L, tm, sv, strides, 0, pad, row_log2, idx);
    for (int r = 0; r < tm->nregs; r += sv)
        smem_store(L, dt, &regs[r], sv, idx[r / sv], byte_off);
}

void llvm_smem_stage(Lower *L, const ThreadMap *tm, const LLVMValueRef *regs, DType dt, int pad, int64_t byte_off) {
    if (llvm_stmatrix_stage(L, tm, regs, dt, 1, pad, byte_off))
        return;
    int64_t strides[IR_MAX_RANK];
    llvm_row_major(tm->rank, tm->shape, strides);
    int sv = smem_vec(tm, strides, llvm_dt_bytes(dt)), last = tm->rank ? tm->shape[tm->rank - 1] : 1;
    while (sv > 1 && (sv > last || (pad && pad % sv)))
        sv /= 2;
    stage(L, tm, regs, dt, sv, pad, byte_off);
}

/* The widest run (power of two, at most 16 bytes, dividing nregs) of tm's
 * registers that are consecutive elements along dim d, each run starting
 * at a multiple of its length in every thread. */
static int run_along(const ThreadMap *tm, int d, int bytes) {
    int v = 16 / bytes;
    while (v > 1 && (tm->nregs % v || tm->shape[d] % v))
        v /= 2;
    while (v > 1 && !layout_runs_aligned(tm, d, v))
        v /= 2;
    return v;
}

/* A 16-bit rank-2 block whose destination holds columns (runs along dim 0)
 * where the source's mma fragments hold row pairs (tutorial 08's epilogue:
 * a 128x128 accumulator stored through a layout of one column a thread, as
 * its c_ptr's alignment is not known): through a column-major scratch, the
 * fragments stored transposed with stmatrix and each column read back 16
 * bytes at a time, as Triton's convert does, where the row-major scratch
 * took an st.shared.b32 a pair (4-way bank conflicts) and an ld.shared.b16
 * an element. Each column is padded by 16 bytes when it spans the banks a
 * whole number of times: the 8 columns of a stmatrix matrix, or of a
 * quarter warp's loads, then start 4 banks apart. False (nothing emitted)
 * where it does not apply or would not read wider than `dv`, the row-major
 * scratch's read width. */
static bool move_columns(Lower *L, const ThreadMap *src, const LLVMValueRef *sregs, DType dt, const ThreadMap *dst,
                         LLVMValueRef *dregs, const int64_t *coef, int64_t base, int dv, Span sp) {
    int bytes = llvm_dt_bytes(dt);
    if (src->rank != 2 || base || bytes != 2 || coef[0] != src->shape[1] || coef[1] != 1)
        return false;
    int S0 = src->shape[0], S1 = src->shape[1], cv = run_along(dst, 0, bytes);
    int pad = layout_row_padded(2, S0, bytes) ? 16 / bytes : 0;
    int64_t need = ((int64_t)S0 * S1 + (int64_t)S1 * pad) * bytes;
    if (cv <= dv || need > L->scratch_cap || !llvm_stmatrix_plan_ok(L, src, dt, 0))
        return false;
    llvm_smem_use(L, need, sp);
    llvm_stmatrix_stage(L, src, sregs, dt, 0, pad, 0);
    llvm_barrier(L);
    int64_t cm[2] = {1, S0};
    LLVMValueRef *idx = llvm_new_regs(L, dst->nregs / cv);
    llvm_scratch_indices(L, dst, cv, cm, 0, pad, __builtin_ctz((unsigned)S0), idx);
    for (int r = 0; r < dst->nregs; r += cv)
        smem_load(L, dt, &dregs[r], cv, idx[r / cv]);
    return true;
}

void llvm_move(Lower *L, const ThreadMap *src, const LLVMValueRef *sregs, DType dt,
               const ThreadMap *dst, LLVMValueRef *dregs, const int64_t *coef, Span sp) {
    llvm_move_at(L, src, sregs, dt, dst, dregs, coef, 0, sp);
}

void llvm_move_at(Lower *L, const ThreadMap *src, const LLVMValueRef *sregs, DType dt, const ThreadMap *dst,
                  LLVMValueRef *dregs, const int64_t *coef, int64_t base, Span sp) {
    int *plan = malloc(sizeof(int) * (size_t)(dst->nregs ? dst->nregs : 1));
    if (plan && layout_rename_plan(src, dst, coef, base, L->f->num_warps, plan)) {
        for (int r = 0; r < dst->nregs; r++)
            dregs[r] = sregs[plan[r]];
        free(plan);
        return;
    }
    free(plan);
    /* Through shared memory: every thread stores its registers at their
     * element's (padded) row-major index, then loads the ones it needs. */
    int bytes = llvm_dt_bytes(dt), row_log2;
    int64_t numel = 1, strides[IR_MAX_RANK] = {0};
    for (int d = 0; d < src->rank; d++)
        numel *= src->shape[d];
    llvm_row_major(src->rank, src->shape, strides);
    int sv = smem_vec(src, strides, bytes), dv = smem_vec(dst, coef, bytes);
    while (dv > 1 && base % dv) /* a run's start stays aligned */
        dv /= 2;
    int pad = smem_pad(src, bytes, &row_log2, &sv, &dv);
    if (move_columns(L, src, sregs, dt, dst, dregs, coef, base, dv, sp))
        return;
    llvm_smem_use(L, (numel + (numel >> row_log2) * pad) * bytes, sp);
    /* an mma fragment of 16-bit elements on sm_90: stmatrix, where the
     * padding keeps rows 16-byte aligned (not under the 4-byte padding that
     * column-wise reads want: their bank conflicts would cost more) */
    if (!llvm_stmatrix_stage(L, src, sregs, dt, 1, pad, 0))
        stage(L, src, sregs, dt, sv, pad, 0);
    llvm_barrier(L);
    LLVMValueRef *idx = llvm_new_regs(L, dst->nregs / dv);
    llvm_scratch_indices(L, dst, dv, coef, base, pad, row_log2, idx);
    for (int r = 0; r < dst->nregs; r += dv)
        smem_load(L, dt, &dregs[r], dv, idx[r / dv]);
}

/* The registers of operand v laid out like value `like` (same shape). */
LLVMValueRef *llvm_regs_like(Lower *L, ValueId v, ValueId like, Span sp) {
    const ThreadMap *tv = llvm_tm(L, v), *tl = llvm_tm(L, like);
    if (!tv || !tl || layout_tm_equal(tv, tl))
        return llvm_val(L, v)->r;
    int64_t coef[IR_MAX_RANK];
    llvm_row_major(tv->rank, tv->shape, coef);
    LLVMValueRef *r = llvm_new_regs(L, tl->nregs);
    llvm_move(L, tv, llvm_val(L, v)->r, (DType)L->f->values[v].type.dtype, tl, r, coef, sp);
    return r;
}

LLVMBasicBlockRef llvm_guard_begin(Lower *L, LLVMValueRef pred) {
    if (!pred)
        return NULL;
    LLVMBasicBlockRef then = llvm_new_bb(L, "guard"), cont = llvm_new_bb(L, "guard.end");
    LLVMBuildCondBr(L->b, pred, then, cont);
    LLVMPositionBuilderAtEnd(L->b, then);
    return cont;
}

void llvm_guard_end(Lower *L, LLVMBasicBlockRef cont) {
    if (!cont)
        return;
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

/* ---- structured control flow ---- */

LLVMBasicBlockRef llvm_new_bb(Lower *L, const char *name) {
    return LLVMAppendBasicBlockInContext(L->ctx, L->fn, name);
}

/* The values a region passes on (yield / condition operands, loop inits)
 * are moved into the layout of the value they become, so a layout that
 * differs on one edge (the layout pass avoids it) costs a convert, not a
 * wrong answer. */
static LVal carried(Lower *L, ValueId v, ValueId as, Span sp) {
    const ThreadMap *tm = llvm_tm(L, as);
    LVal r = {llvm_regs_like(L, v, as, sp), tm ? tm->nregs : 1};
    return r;
}

/* One phi per register of `init`, with init coming from `from`. */
static LLVMValueRef *phis_for(Lower *L, LVal init, LLVMBasicBlockRef from) {
    LLVMValueRef *r = llvm_new_regs(L, init.n);
    for (int i = 0; i < init.n; i++) {
        r[i] = LLVMBuildPhi(L->b, LLVMTypeOf(init.r[i]), "");
        LLVMValueRef in = init.r[i];
        LLVMAddIncoming(r[i], &in, &from, 1);
    }
    return r;
}

static void add_incoming(LLVMValueRef *phis, LVal x, LLVMBasicBlockRef from) {
    for (int i = 0; i < x.n; i++) {
        LLVMValueRef in = x.r[i];
        LLVMAddIncoming(phis[i], &in, &from, 1);
    }
}

/* Loop bounds of mixed widths (i32 lb, i64 ub) iterate in the widest. */
static LLVMValueRef widen(Lower *L, LLVMValueRef v, LLVMTypeRef t) {
    return LLVMTypeOf(v) == t ? v : LLVMBuildSExt(L->b, v, t, "");
}

static bool is_negative_const(Lower *L, ValueId v) {
    Inst *def = L->f->values[v].def;
    return def && def->op == IR_CONST && def->attr.i < 0;
}

static Inst *region_end(Lower *L, Block *blk, OpCode want) {
    L->term = NULL;
    llvm_lower_block(L, blk);
    if (L->failed)
        return NULL;
    if (L->term && L->term->op == want)
        return L->term;
    diag_internal(L->d, "a region of %s does not end in %s", ir_ops[blk->parent ? blk->parent->op : IR_FOR].name,
                  ir_ops[want].name);
    L->failed = true;
    return NULL;
}

/*   pre -> header: iv, carried = phi(init, next) ; iv < ub ? body : exit
 *   body ... yield -> latch: iv += step -> header */
/* The loop's backedge `br` carries its LLVM loop metadata: llvm.licm.disable
 * for tl.range / tl.condition's disable_licm (Triton's
 * llvm.loop_annotation), so LLVM's LICM leaves the loop's invariants in it.
 * A loop ID is a distinct node whose first operand is itself: a temporary
 * node replaced by the node that holds it (LLVM makes such a cycle distinct). */
static void loop_metadata(Lower *L, LLVMValueRef br, const Inst *in) {
    if (!in->attr.no_licm)
        return;
    LLVMMetadataRef name = LLVMMDStringInContext2(L->ctx, "llvm.licm.disable", 17);
    LLVMMetadataRef tmp = LLVMTemporaryMDNode(L->ctx, NULL, 0);
    LLVMMetadataRef ops[2] = {tmp, LLVMMDNodeInContext2(L->ctx, &name, 1)};
    LLVMMetadataRef id = LLVMMDNodeInContext2(L->ctx, ops, 2);
    LLVMMetadataReplaceAllUsesWith(tmp, id);
    LLVMSetMetadata(br, LLVMGetMDKindIDInContext(L->ctx, "llvm.loop", 9), LLVMMetadataAsValue(L->ctx, id));
}

static void lower_for(Lower *L, Inst *in) {
    Block *body = in->regions[0];
    int ncar = in->nargs - 3;
    LLVMValueRef lb = llvm_val(L, in->args[0])->r[0], ub = llvm_val(L, in->args[1])->r[0],
                 step = llvm_val(L, in->args[2])->r[0];
    LLVMTypeRef ivt = LLVMGetIntTypeWidth(LLVMTypeOf(ub)) > LLVMGetIntTypeWidth(LLVMTypeOf(lb)) ? LLVMTypeOf(ub)
                                                                                               : LLVMTypeOf(lb);
    lb = widen(L, lb, ivt), ub = widen(L, ub, ivt), step = widen(L, step, ivt);
    LVal *init = arena_alloc(L->f->arena, sizeof(LVal) * (size_t)(ncar + 1));
    for (int i = 0; i < ncar; i++)
        init[i] = carried(L, in->args[3 + i], body->args[1 + i], in->span);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef header = llvm_new_bb(L, "for.header"), bodybb = llvm_new_bb(L, "for.body"),
                      exit = llvm_new_bb(L, "for.exit");
    LLVMBuildBr(L->b, header);
    LLVMPositionBuilderAtEnd(L->b, header);
    LLVMValueRef *iv = phis_for(L, (LVal){&lb, 1}, pre);
    llvm_set(L, body->args[0], iv, 1);
    LLVMValueRef **car = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)(ncar + 1));
    for (int i = 0; i < ncar; i++) {
        car[i] = phis_for(L, init[i], pre);
        llvm_set(L, body->args[1 + i], car[i], init[i].n);
    }
    /* scf.for semantics: a positive step runs while iv < ub; a constant
     * negative step (range(hi, lo, -1)) while iv > ub. */
    LLVMIntPredicate pred = is_negative_const(L, in->args[2]) ? LLVMIntSGT : LLVMIntSLT;
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, pred, iv[0], ub, ""), bodybb, exit);
    LLVMPositionBuilderAtEnd(L->b, bodybb);
    Inst *y = region_end(L, body, IR_YIELD);
    if (!y)
        return;
    LVal *next = arena_alloc(L->f->arena, sizeof(LVal) * (size_t)(ncar + 1));
    for (int i = 0; i < ncar && i < y->nargs; i++)
        next[i] = carried(L, y->args[i], body->args[1 + i], y->span);
    LLVMValueRef ivn = LLVMBuildAdd(L->b, iv[0], step, "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    loop_metadata(L, LLVMBuildBr(L->b, header), in);
    add_incoming(iv, (LVal){&ivn, 1}, latch);
    for (int i = 0; i < ncar && i < y->nargs; i++)
        add_incoming(car[i], next[i], latch);
    LLVMPositionBuilderAtEnd(L->b, exit);
    for (int i = 0; i < in->nresults && i < ncar; i++) {
        LVal r = carried(L, body->args[1 + i], in->results[i], in->span);
        llvm_set(L, in->results[i], r.r, r.n);
    }
}

/* Lower an if branch; its yielded values, in the results' layouts, come
 * from *end. */
static LVal *if_branch(Lower *L, Inst *in, Block *blk, LLVMBasicBlockRef merge, LLVMBasicBlockRef *end) {
    LVal *vals = arena_alloc(L->f->arena, sizeof(LVal) * (size_t)(in->nresults + 1));
    Inst *y = NULL;
    if (blk && !(y = region_end(L, blk, IR_YIELD)))
        return NULL;
    if (in->nresults && (!y || y->nargs < in->nresults)) {
        diag_internal(L->d, "if with results lacks a yield in a branch");
        L->failed = true;
        return NULL;
    }
    for (int i = 0; i < in->nresults; i++)
        vals[i] = carried(L, y->args[i], in->results[i], y->span);
    *end = LLVMGetInsertBlock(L->b);
    LLVMBuildBr(L->b, merge);
    return vals;
}

static void lower_if(Lower *L, Inst *in) {
    LLVMValueRef c = llvm_val(L, in->args[0])->r[0];
    LLVMBasicBlockRef thenbb = llvm_new_bb(L, "if.then"), elsebb = llvm_new_bb(L, "if.else"),
                      merge = llvm_new_bb(L, "if.end");
    LLVMBuildCondBr(L->b, c, thenbb, elsebb);
    LLVMBasicBlockRef tend, eend;
    LLVMPositionBuilderAtEnd(L->b, thenbb);
    LVal *tv = if_branch(L, in, in->regions[0], merge, &tend);
    if (!tv)
        return;
    LLVMPositionBuilderAtEnd(L->b, elsebb);
    LVal *ev = if_branch(L, in, in->nregions > 1 ? in->regions[1] : NULL, merge, &eend);
    if (!ev)
        return;
    LLVMPositionBuilderAtEnd(L->b, merge);
    for (int i = 0; i < in->nresults; i++) {
        LLVMValueRef *r = phis_for(L, tv[i], tend);
        add_incoming(r, ev[i], eend);
        llvm_set(L, in->results[i], r, tv[i].n);
    }
}

/*   pre -> before: carried = phi(init, yield) ... condition(c, fwd) ? after : exit
 *   after(args = fwd) ... yield -> before;   exit: results = fwd */
static void lower_while(Lower *L, Inst *in) {
    Block *before = in->regions[0], *after = in->regions[1];
    int n = in->nargs < before->nargs ? in->nargs : before->nargs;
    LVal *init = arena_alloc(L->f->arena, sizeof(LVal) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        init[i] = carried(L, in->args[i], before->args[i], in->span);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef bb = llvm_new_bb(L, "while.before"), ab = llvm_new_bb(L, "while.after"),
                      exit = llvm_new_bb(L, "while.exit");
    LLVMBuildBr(L->b, bb);
    LLVMPositionBuilderAtEnd(L->b, bb);
    LLVMValueRef **car = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
        car[i] = phis_for(L, init[i], pre);
        llvm_set(L, before->args[i], car[i], init[i].n);
    }
    Inst *cond = region_end(L, before, IR_CONDITION);
    if (!cond)
        return;
    /* the forwarded values, for the after-region's arguments and for the
     * results (computed here: this block dominates both) */
    for (int i = 0; i < after->nargs && i + 1 < cond->nargs; i++) {
        LVal a = carried(L, cond->args[i + 1], after->args[i], cond->span);
        llvm_set(L, after->args[i], a.r, a.n);
    }
    for (int i = 0; i < in->nresults && i + 1 < cond->nargs; i++) {
        LVal r = carried(L, cond->args[i + 1], in->results[i], cond->span);
        llvm_set(L, in->results[i], r.r, r.n);
    }
    LLVMBuildCondBr(L->b, llvm_val(L, cond->args[0])->r[0], ab, exit);
    LLVMPositionBuilderAtEnd(L->b, ab);
    Inst *y = region_end(L, after, IR_YIELD);
    if (!y)
        return;
    LVal *next = arena_alloc(L->f->arena, sizeof(LVal) * (size_t)(n + 1));
    for (int i = 0; i < n && i < y->nargs; i++)
        next[i] = carried(L, y->args[i], before->args[i], y->span);
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    loop_metadata(L, LLVMBuildBr(L->b, bb), in);
    for (int i = 0; i < n && i < y->nargs; i++)
        add_incoming(car[i], next[i], latch);
    LLVMPositionBuilderAtEnd(L->b, exit);
}

/* ---- dispatch ---- */

static void lower_convert(Lower *L, Inst *in) {
    if (llvm_convert_ldmatrix(L, in))
        return;
    ValueId s = in->args[0], d = in->results[0];
    const ThreadMap *st = llvm_tm(L, s), *dt = llvm_tm(L, d);
    if (!st || !dt) { /* scalars have one layout */
        *llvm_val(L, d) = *llvm_val(L, s);
        return;
    }
    int64_t coef[IR_MAX_RANK];
    llvm_row_major(st->rank, st->shape, coef);
    LLVMValueRef *r = llvm_new_regs(L, dt->nregs);
    llvm_move(L, st, llvm_val(L, s)->r, (DType)L->f->values[s].type.dtype, dt, r, coef, in->span);
    llvm_set(L, d, r, dt->nregs);
}

static void lower_op(Lower *L, Inst *in);

/* Each op lowers with its own scratch (smem.c), restored after an op with
 * regions lowered its body. */
static void lower_inst(Lower *L, Inst *in) {
    int off = L->scratch_off, cap = L->scratch_cap;
    bool used = L->scratch_used;
    L->scratch_off = in->scratch_off;
    L->scratch_cap = in->scratch_size;
    L->scratch_used = false;
    lower_op(L, in);
    L->scratch_off = off, L->scratch_cap = cap, L->scratch_used = used;
}

static void lower_op(Lower *L, Inst *in) {
    switch (in->op) {
    case IR_FOR: lower_for(L, in); return;
    case IR_IF: lower_if(L, in); return;
    case IR_WHILE: lower_while(L, in); return;
    case IR_YIELD:
        llvm_wgmma_retire_all(L);
        L->term = in;
        return;
    case IR_CONDITION: L->term = in; return;
    case IR_RETURN:
        /* Later ops (dead code) still need a block to go into. */
        LLVMBuildRetVoid(L->b);
        LLVMPositionBuilderAtEnd(L->b, llvm_new_bb(L, "dead"));
        return;
    case IR_LOAD: llvm_lower_load(L, in); return;
    case IR_STORE: llvm_lower_store(L, in); return;
    case IR_ATOMIC_RMW:
    case IR_ATOMIC_CAS: llvm_lower_atomic(L, in); return;
    case IR_REDUCE:
    case IR_REDUCE_FN: llvm_lower_reduce(L, in); return;
    case IR_SCAN: llvm_lower_scan(L, in); return;
    case IR_GATHER: llvm_lower_gather(L, in); return;
    case IR_HISTOGRAM: llvm_lower_histogram(L, in); return;
    case IR_DOT: llvm_lower_dot(L, in); return;
    case IR_WGMMA_WAIT: llvm_lower_wgmma_wait(L, in); return;
    case IR_CONVERT_LAYOUT: lower_convert(L, in); return;
    case IR_LOCAL_ALLOC: case IR_MEMDESC_INDEX: case IR_MEMDESC_TRANS: case IR_LOCAL_STORE: case IR_LOCAL_LOAD:
    case IR_ASYNC_COPY: case IR_ASYNC_COMMIT: case IR_ASYNC_WAIT:
    case IR_MBAR_INIT: case IR_MBAR_INVAL: case IR_MBAR_EXPECT: case IR_MBAR_WAIT: case IR_TMA_LOAD: case IR_TMA_STORE:
    case IR_MBAR_ARRIVE: case IR_WARP_SPEC: case IR_TMAP_CREATE:
        llvm_lower_shared(L, in);
        return;
    default:
        if (!llvm_lower_simple(L, in)) {
            diag_internal(L->d, "op '%s' has no GPU lowering", ir_ops[in->op].name);
            L->failed = true;
        }
    }
}

/* Each op's instructions carry its source line (llvm_debug.c); the code an
 * op emits after its regions (phis, branches) carries the op's again. */
void llvm_lower_block(Lower *L, Block *blk) {
    LLVMMetadataRef outer = llvm_debug_here(L);
    for (int i = 0; i < blk->ninsts && !L->failed; i++) {
        llvm_debug_at(L, blk->insts[i]->span, outer);
        lower_inst(L, blk->insts[i]);
    }
    llvm_debug_set(L, outer);
}

Inst *llvm_lower_inline(Lower *L, Block *blk) {
    Inst *saved = L->term;
    L->term = NULL;
    llvm_lower_block(L, blk);
    Inst *y = L->term;
    L->term = saved;
    return y;
}

/* ---- checks before lowering ---- */

/* A block argument or parameter has no defining op: use the owner's span. */
static Span value_span(const Function *f, ValueId v) {
    const Value *x = &f->values[v];
    if (x->def)
        return x->def->span;
    if (x->block && x->block->parent)
        return x->block->parent->span;
    return (Span){0};
}

static void mark_uses(Lower *L, const Block *b) {
    for (int a = 0; a < b->nargs; a++)
        L->def_block[b->args[a]] = (Block *)b;
    for (int i = 0; i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int a = 0; a < in->nargs; a++) {
            ValueId v = in->args[a];
            L->used[v] = true;
            L->nuses[v]++;
            L->user[v] = in;
            L->use_block[v] = b;
        }
        for (int r = 0; r < in->nresults; r++)
            L->def_block[in->results[r]] = b;
        for (int r = 0; r < in->nregions; r++)
            if (in->regions[r])
                mark_uses(L, in->regions[r]);
    }
}

static bool map_values(Lower *L) {
    Function *f = L->f;
    mark_uses(L, f->body);
    for (ValueId v = 1; v < f->nvalues; v++) {
        const Value *x = &f->values[v];
        if (!x->type.rank || !L->def_block[v]) /* a scalar, or no op or reachable block defines it now */
            continue;
        if (!x->layout || x->layout >= f->nlayouts) {
            diag_internal(L->d, "block value %%%d has no layout (the layout pass did not run?)", v);
            return false;
        }
        if (layout_is_shared(f->layouts[x->layout].kind) != ir_is_smem(x->type)) {
            diag_internal(L->d, "value %%%d: a %s layout on a %s", v,
                          ir_is_smem(x->type) ? "register" : "shared-memory", ir_is_smem(x->type) ? "buffer" : "value");
            return false;
        }
        if (ir_is_smem(x->type))
            continue; /* a buffer is one register: its shared-memory address */
        const ThreadMap *tm = layout_thread_map(f, x->layout, x->type, f->num_warps);
        if (!tm) {
            diag_internal(L->d, "no thread map for value %%%d", v);
            return false;
        }
        if (tm->nregs > LAYOUT_MAX_REGS) {
            diag_error(L->d, f->src, value_span(f, v),
                       "a block of %lld elements is too large for num_warps=%d: each thread would hold "
                       "%d of them (at most %d); use more warps or a smaller block",
                       (long long)ir_numel(x->type), f->num_warps, tm->nregs, LAYOUT_MAX_REGS);
            return false;
        }
        L->tms[v] = tm;
    }
    return true;
}

/* ---- kernels ---- */

static void add_annotation(Lower *L, const char *key, int value) {
    LLVMMetadataRef md[3] = {
        LLVMValueAsMetadata(L->fn),
        LLVMMDStringInContext2(L->ctx, key, strlen(key)),
        LLVMValueAsMetadata(llvm_i32(L, value)),
    };
    LLVMValueRef node = LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 3));
    LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations", node);
}

static LLVMTypeRef param_type(Lower *L, const Param *p) {
    if (p->tensormap)
        return L->t_ptr0; /* byval: a pointer to the param space's copy (declare_kernel) */
    if (p->type.dtype == DT_PTR)
        return L->t_ptr1;
    return llvm_mem_type(L, (DType)p->type.dtype); /* i1 travels as a byte */
}

static void declare_kernel(Lower *L) {
    Function *f = L->f;
    LLVMTypeRef *pt = arena_alloc(f->arena, sizeof(LLVMTypeRef) * (size_t)(f->nparams + 1));
    for (int i = 0; i < f->nparams; i++)
        pt[i] = param_type(L, &f->params[i]);
    L->fn = LLVMAddFunction(L->mod, f->name, LLVMFunctionType(L->t_void, pt, (unsigned)f->nparams, 0));
    LLVMSetFunctionCallConv(L->fn, LLVMPTXKernelCallConv);
    add_annotation(L, "kernel", 1);
    add_annotation(L, "maxntidx", 32 * ir_launch_warps(f));
    if (llvm_ws_regs(f)) /* setmaxnreg moves registers from this even split: it wins over --maxnreg */
        add_annotation(L, "maxnreg", LLVM_WS_MAXNREG);
    else if (f->maxnreg) /* on the entry only: noinline helpers are .func, capped by their caller */
        add_annotation(L, "maxnreg", f->maxnreg);
    unsigned align_kind = LLVMGetEnumAttributeKindForName("align", 5);
    for (int i = 0; i < f->nparams; i++) {
        LLVMValueRef p = LLVMGetParam(L->fn, (unsigned)i);
        const char *name = f->params[i].name ? f->params[i].name : "";
        LLVMSetValueName2(p, name, strlen(name));
        /* ":16" on a pointer promises 16-byte alignment: tell LLVM too. */
        if (f->params[i].type.dtype == DT_PTR && f->params[i].divisibility >= 16)
            LLVMAddAttributeAtIndex(L->fn, (unsigned)i + 1,
                                    LLVMCreateEnumAttribute(L->ctx, align_kind, 16));
    }
    /* A tensor map is a `.param .align 64 .b8 [128]` by value; marked grid
     * constant, its address is the param space's own (cvta.param) rather than
     * a local copy's, which TMA needs (PTX ISA, "Tensor-map"). */
    LLVMMetadataRef gc[64];
    int ngc = 0;
    unsigned byval_kind = LLVMGetEnumAttributeKindForName("byval", 5);
    for (int i = 0; i < f->nparams && ngc < 64; i++) {
        if (!f->params[i].tensormap)
            continue;
        LLVMAddAttributeAtIndex(L->fn, (unsigned)i + 1,
                                LLVMCreateTypeAttribute(L->ctx, byval_kind, LLVMArrayType2(L->t_i8, 128)));
        LLVMAddAttributeAtIndex(L->fn, (unsigned)i + 1, LLVMCreateEnumAttribute(L->ctx, align_kind, 64));
        gc[ngc++] = LLVMValueAsMetadata(llvm_i32(L, i + 1));
    }
    if (ngc) {
        LLVMMetadataRef md[3] = {LLVMValueAsMetadata(L->fn), LLVMMDStringInContext2(L->ctx, "grid_constant", 13),
                                 LLVMMDNodeInContext2(L->ctx, gc, (size_t)ngc)};
        LLVMAddNamedMetadataOperand(L->mod, "nvvm.annotations",
                                    LLVMMetadataAsValue(L->ctx, LLVMMDNodeInContext2(L->ctx, md, 3)));
    }
}

static void setup_entry(Lower *L) {
    Function *f = L->f;
    LLVMBasicBlockRef entry = llvm_new_bb(L, "entry");
    LLVMPositionBuilderAtEnd(L->eb, entry);
    LLVMPositionBuilderAtEnd(L->b, entry);
    L->tid = llvm_sreg(L, "tid.x");
    L->lane = LLVMBuildAnd(L->b, L->tid, llvm_i32(L, 31), "");
    /* the warp index through a shuffle from lane 0: the same in every lane,
     * which ptxas can then see (uniform registers for wgmma descriptors
     * and TMA operands computed from it, branches on it undivided) */
    LLVMValueRef sh[4] = {llvm_i32(L, -1), LLVMBuildLShr(L->b, L->tid, llvm_i32(L, 5), ""), llvm_i32(L, 0),
                          llvm_i32(L, 31)};
    L->warp = llvm_call(L, "llvm.nvvm.shfl.sync.idx.i32", L->t_i32, sh, 4);
    for (int i = 0; i < f->nparams; i++) {
        const Param *p = &f->params[i];
        LLVMValueRef v = LLVMGetParam(L->fn, (unsigned)i);
        if (p->tensormap) /* the map's generic address */
            v = LLVMBuildPtrToInt(L->b, v, L->t_i64, "");
        else if (p->equal_to_1) /* specialised to 1: fold it (the argument is still passed) */
            v = p->type.dtype == DT_PTR ? v : llvm_const(L, (DType)p->type.dtype, 1, 1.0);
        else if (p->type.dtype == DT_I1)
            v = LLVMBuildTrunc(L->b, v, L->t_i1, "");
        LLVMValueRef *r = llvm_new_regs(L, 1);
        r[0] = v;
        llvm_set(L, (ValueId)(i + 1), r, 1);
    }
    /* Ops go into their own block; the entry block only computes ids and
     * allocas (through L->eb) and branches to it at the end. */
    LLVMPositionBuilderAtEnd(L->b, llvm_new_bb(L, "body"));
}

static void finish_kernel(Lower *L) {
    if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(L->b)))
        LLVMBuildRetVoid(L->b);
    LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(L->fn);
    LLVMPositionBuilderAtEnd(L->eb, entry);
    LLVMBuildBr(L->eb, LLVMGetNextBasicBlock(entry));
}

static void align_smem(Lower *L, const Function *f);

/* Triton's enable_fp_fusion (on by default): the contract flag on the
 * kernel's own float multiplies, adds and subtracts lets the NVPTX backend
 * fuse a multiply feeding an add into one fma (attention's `qk * scale -
 * m`). Without it every such op is printed `.rn`, which ptxas never fuses.
 * Run before libdevice is linked, whose functions keep their own flags. */
static void allow_contract(LLVMValueRef fn) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
        for (LLVMValueRef in = LLVMGetFirstInstruction(bb); in; in = LLVMGetNextInstruction(in)) {
            LLVMOpcode op = LLVMGetInstructionOpcode(in);
            if ((op == LLVMFMul || op == LLVMFAdd || op == LLVMFSub) && LLVMCanValueUseFastMathFlags(in))
                LLVMSetFastMathFlags(in, LLVMGetFastMathFlags(in) | LLVMFastMathAllowContract);
        }
}

static bool lower_function(Lower *L, Function *f) {
    L->f = f;
    align_smem(L, f);
    L->failed = false;
    L->scratch_off = L->scratch_cap = 0;
    L->scratch_used = false;
    L->leader = 0;
    L->split = false;
    if (!f->smem_allocated) {
        diag_internal(L->d, "@%s: smem-alloc has not run (the lowering needs its offsets)", f->name);
        return false;
    }
    L->bases = NULL;
    L->nbases = L->cap_bases = 0;
    L->vals = arena_alloc(f->arena, sizeof(LVal) * (size_t)f->nvalues);
    L->tms = arena_alloc(f->arena, sizeof(ThreadMap *) * (size_t)f->nvalues);
    L->used = arena_alloc(f->arena, sizeof(bool) * (size_t)f->nvalues);
    L->deferred = arena_alloc(f->arena, sizeof(bool) * (size_t)f->nvalues);
    L->drained = arena_alloc(f->arena, sizeof(bool) * (size_t)f->nvalues);
    L->nuses = arena_alloc(f->arena, sizeof(int) * (size_t)f->nvalues);
    L->user = arena_alloc(f->arena, sizeof(Inst *) * (size_t)f->nvalues);
    L->def_block = arena_alloc(f->arena, sizeof(Block *) * (size_t)f->nvalues);
    L->use_block = arena_alloc(f->arena, sizeof(Block *) * (size_t)f->nvalues);
    if (!L->vals || !L->tms || !L->used || !L->deferred || !L->drained || !L->nuses || !L->user || !L->def_block ||
        !L->use_block || !map_values(L))
        return false;
    L->axis = axis_analyze(f);
    declare_kernel(L);
    llvm_debug_function(L);
    setup_entry(L);
    llvm_lower_block(L, f->body);
    if (L->failed)
        return false;
    finish_kernel(L);
    llvm_debug_end_function(L);
    if (!f->no_fp_fusion)
        allow_contract(L->fn);
    /* The PTX names what the launch must pass, for readers of a .ptx file
     * (the runtime itself takes Function.shared_bytes, from smem-alloc). */
    char note[256];
    snprintf(note, sizeof note, "// tl.shared_bytes %s %d", f->name, f->shared_bytes);
    LLVMAppendModuleInlineAsm(L->mod, note, strlen(note));
    return true;
}

/* ---- the module ---- */

static void init_types(Lower *L) {
    LLVMContextRef c = L->ctx;
    L->t_void = LLVMVoidTypeInContext(c);
    L->t_i1 = LLVMInt1TypeInContext(c);
    L->t_i8 = LLVMInt8TypeInContext(c);
    L->t_i16 = LLVMInt16TypeInContext(c);
    L->t_i32 = LLVMInt32TypeInContext(c);
    L->t_i64 = LLVMInt64TypeInContext(c);
    L->t_f16 = LLVMHalfTypeInContext(c);
    L->t_bf16 = LLVMBFloatTypeInContext(c);
    L->t_f32 = LLVMFloatTypeInContext(c);
    L->t_f64 = LLVMDoubleTypeInContext(c);
    L->t_ptr0 = LLVMPointerTypeInContext(c, 0);
    L->t_ptr1 = LLVMPointerTypeInContext(c, 1);
    L->t_ptr3 = LLVMPointerTypeInContext(c, 3);
}

/* extern __shared__ char global_smem[] __align__(16): sized at launch. */
static void declare_smem(Lower *L) {
    L->smem = LLVMAddGlobalInAddressSpace(L->mod, LLVMArrayType2(L->t_i8, 0), "global_smem", 3);
    LLVMSetLinkage(L->smem, LLVMExternalLinkage);
    LLVMSetAlignment(L->smem, 16);
}

/* wgmma's swizzled operands repeat their pattern every 1024 bytes from the
 * buffer's start (smem_alloc_pass aligns NVMMA buffers to 1024 within the
 * array), so the array itself is aligned so for a kernel that has them. */
static void align_smem(Lower *L, const Function *f) {
    for (int i = 1; i < f->nlayouts; i++)
        if (f->layouts[i].kind == LAYOUT_NVMMA && LLVMGetAlignment(L->smem) < 1024)
            LLVMSetAlignment(L->smem, 1024);
}

/* The verifier failed: keep the module for the bug report. */
static void dump_module(Diag *d, LLVMModuleRef mod, const char *why) {
    const char *dir = getenv("TMPDIR");
    char path[512];
    snprintf(path, sizeof path, "%s/tl-llvm-XXXXXX.ll", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 3);
    char *text = LLVMPrintModuleToString(mod);
    bool ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0)
        close(fd);
    LLVMDisposeMessage(text);
    diag_internal(d, "the generated LLVM IR does not verify: %s (module written to %s)", why,
                  ok ? path : "<nowhere: cannot write a temporary file>");
}

static bool finish_module(Diag *d, LLVMModuleRef mod, const PtxArch *a, LLVMTargetMachineRef tm, int opt,
                          int debug_info, Buf *llvm_ir, Buf *ptx, CompileTimes *times, double *t0) {
    char *err = NULL;
    if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &err)) {
        dump_module(d, mod, err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    LLVMDisposeMessage(err);
    err = NULL;
    compile_time(times, STAGE_LOWER, t0);
    bool ok = ptx_optimize(mod, tm, opt, &err);
    compile_time(times, STAGE_OPTIMIZE, t0);
    ok = ok && (!ptx || ptx_emit(mod, tm, a, debug_info, ptx, &err));
    compile_time(times, STAGE_EMIT, t0);
    if (!ok) {
        diag_internal(d, "LLVM failed on the %s kernel: %s", a->name, err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    if (llvm_ir) {
        char *text = LLVMPrintModuleToString(mod);
        buf_puts(llvm_ir, text);
        LLVMDisposeMessage(text);
    }
    return true;
}

bool codegen_module(Diag *d, Function **fs, int n, const PtxArch *a, int opt_level, int debug_info, Buf *llvm_ir,
                    Buf *ptx, CompileTimes *times) {
    double t0 = compile_clock();
    char *err = NULL;
    LLVMTargetMachineRef tm = ptx_target_machine(a, opt_level, &err);
    if (!tm) {
        diag_internal(d, "cannot set up LLVM's NVPTX target for %s: %s", a->name, err ? err : "?");
        LLVMDisposeMessage(err);
        return false;
    }
    Lower L = {.d = d, .arch = a};
    L.ctx = LLVMContextCreate();
    L.mod = LLVMModuleCreateWithNameInContext(n > 0 ? fs[0]->name : "tl", L.ctx);
    LLVMSetTarget(L.mod, "nvptx64-nvidia-cuda");
    LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
    LLVMSetModuleDataLayout(L.mod, dl);
    L.b = LLVMCreateBuilderInContext(L.ctx);
    L.eb = LLVMCreateBuilderInContext(L.ctx);
    init_types(&L);
    declare_smem(&L);
    llvm_debug_begin(&L, debug_info, n > 0 ? fs[0]->src : NULL, opt_level > 0);
    bool ok = true;
    for (int i = 0; i < n && ok; i++)
        ok = lower_function(&L, fs[i]);
    llvm_debug_finish(&L);
    ok = ok && llvm_link_libraries(&L);
    if (ok)
        ok = finish_module(d, L.mod, a, tm, opt_level, debug_info, llvm_ir, ptx, times, &t0);
    LLVMDisposeBuilder(L.b);
    LLVMDisposeBuilder(L.eb);
    LLVMDisposeModule(L.mod);
    LLVMDisposeTargetData(dl);
    LLVMContextDispose(L.ctx);
    LLVMDisposeTargetMachine(tm);
    return ok;
}
