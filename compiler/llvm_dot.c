/* llvm_dot.c: dot(a <MxK>, b <KxN>, acc <MxN>).
 *
 * Tensor cores (mma.sync, sm_80+), when the layout pass gave the operands
 * DOT_OPERAND layouts and the accumulator the MMA layout:
 *   fp16 / bf16:  mma.sync.aligned.m16n8k16.row.col.f32.{f16,bf16}.{f16,bf16}.f32
 *   fp16 -> fp16: mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 (out_dtype=tl.float16;
 *                 C and D are two .f16x2 registers: c0,c1 and c2,c3 packed)
 *   fp32 (tf32):  mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32, operands
 *                 rounded with cvt.rna.tf32.f32 (tf32x3: three mmas on hi/lo parts)
 *   int8:         mma.sync.aligned.m16n8k32.row.col.satfinite.s32.{s8,u8}.{s8,u8}.s32
 *                 (as Triton: a sum past the s32 range clamps instead of wrapping)
 *   fp8 (sm_89):  mma.sync.aligned.m16n8k32.row.col.f32.{e4m3,e5m2}.{e4m3,e5m2}.f32
 *   fp8 (else):   the fp16 forms above (out_dtype=tl.float32 or tl.float16), each
 *                 element converted to fp16 as its fragment is packed (ARCH_MMA_FP8)
 * PTX ISA "Matrix Fragments for mma.m16n8kK" (g = lane / 4, t = lane % 4,
 * kw = elements per 32-bit register, K16 = the instruction's K / 2):
 *   A  a0: (g, kw*t + j)   a1: (g+8, kw*t + j)   a2: (g, K16 + kw*t + j)   a3: (g+8, K16 + kw*t + j)
 *   B  b0: (kw*t + j, g)   b1: (K16 + kw*t + j, g)
 *   C  c0,c1: (g, 2t + {0,1})   c2,c3: (g+8, 2t + {0,1})
 * with j < kw packed low element first. The 16-bit operands come out of their
 * convert_layout through ldmatrix (llvm_convert_ldmatrix, below), which
 * delivers exactly these fragments; when both converts feed only the dot, the
 * dot does them in one staging round (half the barriers). The registers are found through the
 * ThreadMaps, not assumed: each thread's lane part must be exactly the
 * fragment's (checked), and a register's reg_off then names its instruction
 * tile (reg_off / tile size) and its slot (reg_off mod tile size). Anything
 * else (IEEE fp32, other types, shapes under one instruction, non-MMA
 * layouts) is an FMA dot: reading A and B straight from the pipeliner's
 * rings when both operands are local_loads of them (lower_fma_smem); in
 * registers when each thread already holds the A
 * rows and B columns of its accumulator elements (DOT_OPERAND of a BLOCKED
 * parent), else with A and B staged in shared memory and a K loop of fmas on
 * the accumulator's registers (operands in any layout). A batched dot
 * (a <BxMxK>, b <BxKxN>, acc <BxMxN>) is always that staged loop, over the
 * whole 3-D accumulator in a BLOCKED layout (layout_pass.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "llvm_int.h"
#include "passes.h"

typedef struct Mma {
    const char *asm_name; /* "m16n8k16.row.col.f32.f16.f16.f32" */
    int kw, kk;           /* elements per 32-bit register, instruction K */
    bool tf32, acc_int, acc_f16; /* acc_f16: C / D packed two halves to a .b32 */
    bool fp8_f16;         /* fp8 operands converted to fp16 (no ARCH_MMA_FP8) */
    int M, N, K, nmt, nnt, nkt; /* block sizes and tile counts */
    int *c;               /* [mt][nt][4] accumulator registers (-1: not here) */
    int *a;               /* [mt][kt][4][kw] */
    int *b;               /* [kt][nt][2][kw] */
} Mma;

static DType dtype_of(Lower *L, ValueId v) { return (DType)L->f->values[v].type.dtype; }
static void convergent(Lower *L, LLVMValueRef call);
static void stage(Lower *L, ValueId v, DType ct, int64_t byte_off, bool tf32);

static bool pick_instr(Lower *L, Inst *in, Mma *m) {
    DType at = dtype_of(L, in->args[0]), bt = dtype_of(L, in->args[1]), ct = dtype_of(L, in->args[2]);
    if (!ptx_arch_has(L->arch, ARCH_AMPERE))
        return false;
    if (dt_is_nv_fp8(at) && dt_is_nv_fp8(bt)) {
        if (ptx_arch_has(L->arch, ARCH_MMA_FP8) && ct == DT_F32) { /* the int8 fragments, e4m3 / e5m2 bits */
            static const char *const names[2][2] = {
                {"m16n8k32.row.col.f32.e4m3.e4m3.f32", "m16n8k32.row.col.f32.e4m3.e5m2.f32"},
                {"m16n8k32.row.col.f32.e5m2.e4m3.f32", "m16n8k32.row.col.f32.e5m2.e5m2.f32"}};
            m->asm_name = names[at == DT_F8E5][bt == DT_F8E5];
            m->kw = 4, m->kk = 32;
            return true;
        }
        if (ct != DT_F32 && ct != DT_F16)
            return false;
        /* the fp16 fragments, each fp8 element converted (exactly) */
        m->asm_name = ct == DT_F16 ? "m16n8k16.row.col.f16.f16.f16.f16" : "m16n8k16.row.col.f32.f16.f16.f32";
        m->kw = 2, m->kk = 16, m->acc_f16 = ct == DT_F16, m->fp8_f16 = true;
        return true;
    }
    if (at != bt)
        return false;
    if (at == DT_F16 && ct == DT_F16) {
        m->asm_name = "m16n8k16.row.col.f16.f16.f16.f16";
        m->kw = 2, m->kk = 16, m->acc_f16 = true;
        return true;
    }
    if ((at == DT_F16 || at == DT_BF16) && ct == DT_F32) {
        m->asm_name = at == DT_F16 ? "m16n8k16.row.col.f32.f16.f16.f32" : "m16n8k16.row.col.f32.bf16.bf16.f32";
        m->kw = 2, m->kk = 16;
        return true;
    }
    if (at == DT_F32 && ct == DT_F32 && in->attr.precision != PREC_IEEE) {
        m->asm_name = "m16n8k8.row.col.f32.tf32.tf32.f32";
        m->kw = 1, m->kk = 8, m->tf32 = true;
        return true;
    }
    if ((at == DT_I8 || at == DT_U8) && ct == DT_I32) {
        m->asm_name =
            at == DT_I8 ? "m16n8k32.row.col.satfinite.s32.s8.s8.s32" : "m16n8k32.row.col.satfinite.s32.u8.u8.s32";
        m->kw = 4, m->kk = 32, m->acc_int = true;
        return true;
    }
    return false;
}

/* ---- the fragment plan ---- */

static bool lane_is(const ThreadMap *tm, int d, int ldiv, int lmod, int lmul) {
    return tm->dim[d].ldiv == ldiv && tm->dim[d].lmod == lmod && tm->dim[d].lmul == lmul;
}

static bool warp_same(const ThreadMap *x, int dx, const ThreadMap *y, int dy) {
    return x->dim[dx].wdiv == y->dim[dy].wdiv && x->dim[dx].wmod == y->dim[dy].wmod &&
           x->dim[dx].wmul == y->dim[dy].wmul;
}

/* The warps do not move along this dimension (mod its size). */
static bool warp_none(const ThreadMap *tm, int d) {
    return tm->dim[d].wmod <= 1 || tm->dim[d].wmul == 0 || tm->dim[d].wmul % tm->shape[d] == 0;
}

static int *new_table(Lower *L, int n) {
    int *t = arena_alloc(L->f->arena, sizeof(int) * (size_t)n);
    for (int i = 0; t && i < n; i++)
        t[i] = -1;
    return t;
}

/* Fill m->c / m->a / m->b from the thread maps; false if they are not
 * mma fragments. */
static bool plan_tiles(Lower *L, Mma *m, const ThreadMap *ta, const ThreadMap *tb, const ThreadMap *tc) {
    int kw = m->kw, kk = m->kk, h = kk / 2;
    m->nmt = m->M / 16, m->nnt = m->N / 8, m->nkt = m->K / kk;
    m->c = new_table(L, m->nmt * m->nnt * 4);
    m->a = new_table(L, m->nmt * m->nkt * 4 * kw);
    m->b = new_table(L, m->nkt * m->nnt * 2 * kw);
    if (!m->c || !m->a || !m->b)
        return false;
    for (int r = 0; r < tc->nregs; r++) {
        int ro = tc->reg_off[r][0] & (m->M - 1), co = tc->reg_off[r][1] & (m->N - 1);
        if (ro % 8 || co % 8 > 1)
            return false;
        m->c[((ro / 16) * m->nnt + co / 8) * 4 + (ro % 16) / 8 * 2 + co % 2] = r;
    }
    for (int r = 0; r < ta->nregs; r++) {
        int ro = ta->reg_off[r][0] & (m->M - 1), co = ta->reg_off[r][1] & (m->K - 1);
        if (ro % 8 || co % h >= kw)
            return false;
        int slot = (ro % 16) / 8 + 2 * ((co % kk) / h);
        m->a[(((ro / 16) * m->nkt + co / kk) * 4 + slot) * kw + co % h] = r;
    }
    for (int r = 0; r < tb->nregs; r++) {
        int ro = tb->reg_off[r][0] & (m->K - 1), co = tb->reg_off[r][1] & (m->N - 1);
        if (co % 8 || ro % h >= kw)
            return false;
        m->b[(((ro / kk) * m->nnt + co / 8) * 2 + (ro % kk) / h) * kw + ro % h] = r;
    }
    /* every accumulator tile here needs all its A and B fragments here */
    for (int mt = 0; mt < m->nmt; mt++)
        for (int nt = 0; nt < m->nnt; nt++) {
            const int *c = &m->c[(mt * m->nnt + nt) * 4];
            if (c[0] < 0 && c[1] < 0 && c[2] < 0 && c[3] < 0)
                continue;
            for (int i = 0; i < 4; i++)
                if (c[i] < 0)
                    return false;
            for (int kt = 0; kt < m->nkt; kt++) {
                for (int i = 0; i < 4 * kw; i++)
                    if (m->a[(mt * m->nkt + kt) * 4 * kw + i] < 0)
                        return false;
                for (int i = 0; i < 2 * kw; i++)
                    if (m->b[(kt * m->nnt + nt) * 2 * kw + i] < 0)
                        return false;
            }
        }
    return true;
}

static bool plan_mma(Lower *L, Inst *in, Mma *m) {
    const ThreadMap *ta = llvm_tm(L, in->args[0]), *tb = llvm_tm(L, in->args[1]), *tc = llvm_tm(L, in->args[2]);
    if (!ta || !tb || !tc || ta->rank != 2 || !pick_instr(L, in, m))
        return false;
    m->M = ta->shape[0], m->K = ta->shape[1], m->N = tb->shape[1];
    if (m->M % 16 || m->N % 8 || m->K % m->kk)
        return false;
    int kw = m->kw;
    if (!lane_is(tc, 0, 4, 8, 1) || !lane_is(tc, 1, 1, 4, 2) || !lane_is(ta, 0, 4, 8, 1) ||
        !lane_is(ta, 1, 1, 4, kw) || !lane_is(tb, 0, 1, 4, kw) || !lane_is(tb, 1, 4, 8, 1))
        return false;
    if (!warp_same(ta, 0, tc, 0) || !warp_same(tb, 1, tc, 1) || !warp_none(ta, 1) || !warp_none(tb, 0))
        return false;
    if ((tc->dim[0].wmul % 16 && !warp_none(tc, 0)) || (tc->dim[1].wmul % 8 && !warp_none(tc, 1)))
        return false;
    return plan_tiles(L, m, ta, tb, tc);
}

/* ---- tensor cores ---- */

/* x (f32) rounded to tf32 as cvt.rna.tf32.f32 does (to nearest, ties away
 * from zero; the low 13 bits zero), as its 32 bits. Before sm_80 (no tf32:
 * the FMA dot's staging) the same in integer ops: add half a tf32 ulp to the
 * magnitude and truncate; infinities and NaN stay as they are. */
static LLVMValueRef f2tf32(Lower *L, LLVMValueRef x) {
    if (ptx_arch_has(L->arch, ARCH_AMPERE))
        return llvm_call(L, "llvm.nvvm.f2tf32.rna", L->t_i32, &x, 1);
    LLVMValueRef bits = LLVMBuildBitCast(L->b, x, L->t_i32, "");
    LLVMValueRef r = LLVMBuildAnd(L->b, LLVMBuildAdd(L->b, bits, llvm_i32(L, 0x1000), ""), llvm_i32(L, ~0x1fff), "");
    LLVMValueRef exp = LLVMBuildAnd(L->b, bits, llvm_i32(L, 0x7f800000), "");
    LLVMValueRef special = LLVMBuildICmp(L->b, LLVMIntEQ, exp, llvm_i32(L, 0x7f800000), "");
    return LLVMBuildSelect(L->b, special, bits, r, "");
}

/* Pack kw registers (low element first) into the 32-bit operand register. */
static LLVMValueRef pack32(Lower *L, const Mma *m, LLVMValueRef *x) {
    if (m->tf32)
        return f2tf32(L, x[0]);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(x[0]), (unsigned)m->kw));
    for (int j = 0; j < m->kw; j++)
        v = LLVMBuildInsertElement(L->b, v, x[j], llvm_i32(L, j), "");
    return LLVMBuildBitCast(L->b, v, L->t_i32, "");
}

/* tf32x3: x = hi + lo with hi = tf32(x), lo = tf32(x - hi). */
static void split_tf32(Lower *L, LLVMValueRef x, LLVMValueRef *hi, LLVMValueRef *lo) {
    *hi = f2tf32(L, x);
    LLVMValueRef rest = LLVMBuildFSub(L->b, x, LLVMBuildBitCast(L->b, *hi, L->t_f32, ""), "");
    *lo = f2tf32(L, rest);
}

/* Two halves (low element first) as one .f16x2 register, and back. */
static LLVMValueRef pack_f16x2(Lower *L, LLVMValueRef lo, LLVMValueRef hi) {
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(lo), 2));
    v = LLVMBuildInsertElement(L->b, v, lo, llvm_i32(L, 0), "");
    v = LLVMBuildInsertElement(L->b, v, hi, llvm_i32(L, 1), "");
    return LLVMBuildBitCast(L->b, v, L->t_i32, "");
}

static void unpack_f16x2(Lower *L, LLVMValueRef x, LLVMValueRef *out) {
    LLVMValueRef v = LLVMBuildBitCast(L->b, x, LLVMVectorType(L->t_f16, 2), "");
    for (int j = 0; j < 2; j++)
        out[j] = LLVMBuildExtractElement(L->b, v, llvm_i32(L, j), "");
}

/* One mma.sync on acc[0..3] (c0..c3) in place; a f16 accumulator goes in
 * and out as the two .f16x2 registers the instruction names. */
static void mma_call(Lower *L, const Mma *m, LLVMValueRef *a, LLVMValueRef *b, LLVMValueRef *acc) {
    LLVMTypeRef et = m->acc_int || m->acc_f16 ? L->t_i32 : L->t_f32;
    int nc = m->acc_f16 ? 2 : 4;
    LLVMValueRef c[4] = {acc[0], acc[1], acc[2], acc[3]};
    if (m->acc_f16)
        c[0] = pack_f16x2(L, acc[0], acc[1]), c[1] = pack_f16x2(L, acc[2], acc[3]);
    LLVMTypeRef rt4[4] = {et, et, et, et};
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, rt4, (unsigned)nc, 0);
    LLVMTypeRef pt[10];
    LLVMValueRef args[10];
    for (int i = 0; i < 4; i++)
        pt[i] = L->t_i32, args[i] = a[i];
    for (int i = 0; i < 2; i++)
        pt[4 + i] = L->t_i32, args[4 + i] = b[i];
    for (int i = 0; i < nc; i++)
        pt[6 + i] = et, args[6 + i] = c[i];
    unsigned nargs = (unsigned)(6 + nc);
    LLVMTypeRef fty = LLVMFunctionType(st, pt, nargs, 0);
    char text[256];
    /* outputs, then A and B, then C tied to the outputs (accumulate in place) */
    const char *cons;
    if (m->acc_f16) {
        snprintf(text, sizeof text, "mma.sync.aligned.%s {$0, $1}, {$2, $3, $4, $5}, {$6, $7}, {$8, $9};",
                 m->asm_name);
        cons = "=r,=r,r,r,r,r,r,r,0,1";
    } else {
        snprintf(text, sizeof text,
                 "mma.sync.aligned.%s {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};",
                 m->asm_name);
        cons = m->acc_int ? "=r,=r,=r,=r,r,r,r,r,r,r,0,1,2,3" : "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3";
    }
    LLVMValueRef fn = LLVMGetInlineAsm(fty, text, strlen(text), (char *)cons, strlen(cons), 0, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef r = LLVMBuildCall2(L->b, fty, fn, args, nargs, "");
    convergent(L, r);
    if (m->acc_f16) {
        unpack_f16x2(L, LLVMBuildExtractValue(L->b, r, 0, ""), acc);
        unpack_f16x2(L, LLVMBuildExtractValue(L->b, r, 1, ""), acc + 2);
        return;
    }
    for (int i = 0; i < 4; i++)
        acc[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

/* The operand registers of one fragment (nslots 32-bit registers) of src,
 * whose elements are of type dt. */
static void fragment(Lower *L, const Mma *m, const int *regs, int nslots, LLVMValueRef *src, DType dt,
                     LLVMValueRef *out, LLVMValueRef *lo) {
    for (int s = 0; s < nslots; s++) {
        LLVMValueRef x[4];
        for (int j = 0; j < m->kw; j++)
            x[j] = src[regs[s * m->kw + j]];
        if (m->fp8_f16) /* kw 2: the pair widened at once (llvm_fp8.c) */
            out[s] = llvm_fp8x2_to_f16x2(L, x[0], x[1], dt);
        else if (lo)
            split_tf32(L, x[0], &out[s], &lo[s]);
        else
            out[s] = pack32(L, m, x);
    }
}

/* x + y as `add.f32`, Triton's text for a partial sum's add: LLVM 19 prints
 * a lone fadd `add.rn.f32` unless the target machine allows fusion, which
 * the C API cannot set (the contract flag only fuses a multiply into it). */
static LLVMValueRef add_f32(Lower *L, LLVMValueRef x, LLVMValueRef y) {
    LLVMTypeRef pt[2] = {L->t_f32, L->t_f32};
    LLVMTypeRef fty = LLVMFunctionType(L->t_f32, pt, 2, 0);
    const char *text = "add.f32 $0, $1, $2;", *cons = "=f,f,f";
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons), 0, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef args[2] = {x, y};
    return LLVMBuildCall2(L->b, fty, fn, args, 2, "");
}

static void lower_mma(Lower *L, Inst *in, Mma *m) {
    LLVMValueRef *A = llvm_val(L, in->args[0])->r, *B = llvm_val(L, in->args[1])->r;
    LVal *C = llvm_val(L, in->args[2]);
    bool x3 = m->tf32 && in->attr.precision == PREC_TF32X3;
    LLVMValueRef *acc = llvm_new_regs(L, C->n);
    memcpy(acc, C->r, sizeof(LLVMValueRef) * (size_t)C->n);
    /* operand fragments, packed once each: [tile][slot], and lo parts for tf32x3 */
    int na = m->nmt * m->nkt * 4, nb = m->nkt * m->nnt * 2;
    LLVMValueRef *fa = llvm_new_regs(L, na), *fb = llvm_new_regs(L, nb);
    LLVMValueRef *la = x3 ? llvm_new_regs(L, na) : NULL, *lb = x3 ? llvm_new_regs(L, nb) : NULL;
    /* an fp8 dot's max_num_imprecise_acc (Triton's rule for Hopper's fp8
     * wgmma, WGMMA.cpp): the mmas of each `chunk` K tiles sum into fresh
     * zeros, and that partial sum is added to the accumulator, one add.f32
     * a register a chunk (test_dot_max_num_imprecise_acc counts them); a
     * zero accumulator is the first chunk's sum, with no add */
    int chunk = in->attr.num > 0 && !m->acc_int && !m->acc_f16 ? (in->attr.num + m->kk - 1) / m->kk : 0;
    bool zero_acc = chunk && ir_is_zero(L->f, in->args[2]);
    LLVMValueRef *part = chunk ? llvm_new_regs(L, C->n) : acc, zero = LLVMConstReal(L->t_f32, 0);
    for (int kt = 0; kt < m->nkt; kt++)
        for (int mt = 0; mt < m->nmt; mt++)
            for (int nt = 0; nt < m->nnt; nt++) {
                int *c = &m->c[(mt * m->nnt + nt) * 4];
                if (c[0] < 0)
                    continue;
                int ia = (mt * m->nkt + kt) * 4, ib = (kt * m->nnt + nt) * 2;
                if (!fa[ia])
                    fragment(L, m, &m->a[ia * m->kw], 4, A, dtype_of(L, in->args[0]), &fa[ia], x3 ? &la[ia] : NULL);
                if (!fb[ib])
                    fragment(L, m, &m->b[ib * m->kw], 2, B, dtype_of(L, in->args[1]), &fb[ib], x3 ? &lb[ib] : NULL);
                LLVMValueRef d[4] = {part[c[0]], part[c[1]], part[c[2]], part[c[3]]};
                if (chunk && kt % chunk == 0)
                    d[0] = d[1] = d[2] = d[3] = zero;
                if (x3) { /* small terms first: lo*hi + hi*lo, then hi*hi */
                    mma_call(L, m, &la[ia], &fb[ib], d);
                    mma_call(L, m, &fa[ia], &lb[ib], d);
                }
                mma_call(L, m, &fa[ia], &fb[ib], d);
                for (int i = 0; i < 4; i++)
                    part[c[i]] = d[i];
                if (chunk && (kt % chunk == chunk - 1 || kt == m->nkt - 1))
                    for (int i = 0; i < 4; i++)
                        acc[c[i]] = zero_acc && kt < chunk ? d[i] : add_f32(L, acc[c[i]], d[i]);
            }
    const ThreadMap *tc = llvm_tm(L, in->args[2]), *tr = llvm_tm(L, in->results[0]);
    if (!layout_tm_equal(tc, tr)) {
        int64_t coef[IR_MAX_RANK];
        llvm_row_major(2, tc->shape, coef);
        LLVMValueRef *r = llvm_new_regs(L, tr->nregs);
        llvm_move(L, tc, acc, dtype_of(L, in->results[0]), tr, r, coef, in->span);
        llvm_set(L, in->results[0], r, tr->nregs);
        return;
    }
    llvm_set(L, in->results[0], acc, C->n);
}

/* ---- operands through ldmatrix ---- */

/* Warp-synchronous inline asm (mma.sync, ldmatrix) must not be moved into
 * divergent code: mark the call convergent. */
static void convergent(Lower *L, LLVMValueRef call) {
    unsigned k = LLVMGetEnumAttributeKindForName("convergent", 10);
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(L->ctx, k, 0));
}

/* A 16-bit DOT_OPERAND block is read from the shared scratch with ldmatrix:
 * for A each 16x16 tile is four 8x8 matrices (a0..a3: rows +0/+8, cols
 * +0/+8), ldmatrix.x4 giving lane l the pair (row l/4, cols 2(l%4)+{0,1}) of
 * each, which is the mma fragment; for B (K x N, row-major) each 16x8 tile is
 * two 8x8 matrices along K read with .trans, giving (k = 2(l%4)+{0,1}, n = l/4).
 * Lane l supplies the address of row l%8 of matrix l/8. Rows are padded by 16
 * bytes when that makes their stride an odd number of 16-byte units, so the
 * 8 rows of one matrix fall in distinct banks. */
typedef struct LdPlan {
    bool a;
    int R, C, ntr, ntc, th, tw, nslot;
    int *map; /* [tile][slot][2] destination register (-1: not held) */
} LdPlan;

static bool plan_ldmatrix(Lower *L, const ThreadMap *tt, bool a, LdPlan *p) {
    p->a = a, p->R = tt->shape[0], p->C = tt->shape[1];
    p->th = 16, p->tw = a ? 16 : 8, p->nslot = a ? 4 : 2;
    if (p->R % p->th || p->C % p->tw || p->C % 8)
        return false;
    if (a ? !(lane_is(tt, 0, 4, 8, 1) && lane_is(tt, 1, 1, 4, 2) && warp_none(tt, 1))
          : !(lane_is(tt, 0, 1, 4, 2) && lane_is(tt, 1, 4, 8, 1) && warp_none(tt, 0)))
        return false;
    p->ntr = p->R / p->th, p->ntc = p->C / p->tw;
    int n = p->ntr * p->ntc;
    if (!(p->map = new_table(L, n * p->nslot * 2)))
        return false;
    for (int r = 0; r < tt->nregs; r++) {
        int ro = tt->reg_off[r][0], co = tt->reg_off[r][1], slot, j;
        if (a) {
            if (ro % 8 || co % 8 >= 2)
                return false;
            slot = (ro % 16) / 8 + 2 * ((co % 16) / 8), j = co % 2;
        } else {
            if (co % 8 || ro % 8 >= 2)
                return false;
            slot = (ro % 16) / 8, j = ro % 2;
        }
        p->map[(((ro / p->th) * p->ntc + co / p->tw) * p->nslot + slot) * 2 + j] = r;
    }
    for (int t = 0; t < n; t++) { /* a tile is held whole or not at all */
        int held = 0;
        for (int i = 0; i < p->nslot * 2; i++)
            held += p->map[t * p->nslot * 2 + i] >= 0;
        if (held && held != p->nslot * 2)
            return false;
    }
    return true;
}

/* The warp's part of base_d (the lane part zeroed). */
static LLVMValueRef warp_base(Lower *L, const ThreadMap *tt, int d) {
    ThreadMap w = *tt;
    w.dim[d].lmod = 1;
    return llvm_base(L, &w, d);
}

enum { LD_A, LD_B, LD_B2 }; /* .x4 (A), .x2.trans (one B tile), .x4.trans (two B tiles) */

/* ldmatrix at addr plus `off` bytes, the offset written into the text (an
 * inline asm operand's immediate is not folded into its address). */
static LLVMValueRef ldmatrix(Lower *L, int mode, LLVMValueRef addr, int64_t off) {
    LLVMTypeRef i32s[4] = {L->t_i32, L->t_i32, L->t_i32, L->t_i32};
    int n = mode == LD_B ? 2 : 4;
    LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, i32s, (unsigned)n, 0);
    LLVMTypeRef fty = LLVMFunctionType(rt, &L->t_i64, 1, 0);
    char at[32], text[128];
    if (off)
        snprintf(at, sizeof at, "$%d+%lld", n, (long long)off);
    else
        snprintf(at, sizeof at, "$%d", n);
    snprintf(text, sizeof text, mode == LD_A   ? "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {$0, $1, $2, $3}, [%s];"
                                : mode == LD_B ? "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {$0, $1}, [%s];"
                                               : "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {$0, $1, $2, $3}, [%s];",
             at);
    const char *cons = n == 4 ? "=r,=r,=r,=r,l" : "=r,=r,l";
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons), 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
    LLVMValueRef call = LLVMBuildCall2(L->b, fty, fn, &addr, 1, "");
    convergent(L, call);
    return call;
}

/* The ldmatrix plan of a convert_layout, if it is one ldmatrix can serve. */
static bool ld_plan_of(Lower *L, Inst *in, LdPlan *p) {
    Function *f = L->f;
    ValueId s = in->args[0], d = in->results[0];
    const Layout *lay = &f->layouts[f->values[d].layout];
    DType dt = (DType)f->values[d].type.dtype;
    return in->op == IR_CONVERT_LAYOUT && llvm_tm(L, s) && llvm_tm(L, d) && lay->kind == LAYOUT_DOT_OPERAND &&
           lay->k_width == 2 && dt_bits(dt) == 16 && f->layouts[lay->parent].kind == LAYOUT_MMA &&
           plan_ldmatrix(L, llvm_tm(L, d), lay->op_idx == 0, p);
}

static int ld_pad(const LdPlan *p) { return (p->C * 2 / 16) % 2 ? 0 : 8; }

static int64_t ld_bytes(const LdPlan *p) { return ((int64_t)p->R * p->C + (int64_t)p->R * ld_pad(p)) * 2; }

/* One ldmatrix of ld_read: tile row tr, tile column tc, and for B the
 * step (in tiles) to the second tile of a pair (0: one tile, .x2). */
typedef struct LdAccess {
    int tr, tc, step;
    bool pair;
} LdAccess;

/* The place (element index) lane's row address of access g names in thread
 * (lane, warp), the compile-time twin of ld_read's, for llvm_const_steps. */
typedef struct LdAt {
    const Function *f;
    const ThreadMap *tt;
    const LdPlan *p;
    const LdAccess *acc;
    ValueId buf;
    int pad;
} LdAt;

static int64_t ld_at(const void *c, int lane, int warp, int g) {
    const LdAt *s = c;
    const LdPlan *p = s->p;
    const LdAccess *a = &s->acc[g];
    int q = lane >> 3, wb = (int)layout_warp_base(s->tt, p->a ? 0 : 1, warp);
    int lrow = (p->a ? wb : 0) + (q & 1) * 8 + (lane & 7);
    int lcol = p->a ? (q >> 1) * 8 : wb + (q >> 1) * 8 * a->step;
    int32_t idx[2] = {(lrow + a->tr * p->th) & (p->R - 1), (lcol + a->tc * p->tw) & (p->C - 1)};
    if (s->buf)
        return layout_shared_offset(s->f, s->f->values[s->buf].layout, s->f->values[s->buf].type, idx);
    int64_t lin = (int64_t)idx[0] * p->C + idx[1];
    return llvm_smem_index_at(lin, s->pad, __builtin_ctz((unsigned)p->C));
}

/* The accesses of plan p, in order, into acc (room for ntr * ntc); their
 * count. A: one .x4 per 16x16 tile. B: two held 16x8 tiles (the next one
 * along N this thread holds, `step` tiles on) with one .x4.trans, matrices
 * 2 and 3 at `step` * 8 columns; a last odd one .x2.trans. */
static int ld_accesses(const LdPlan *p, LdAccess *acc) {
    int n = 0, held[p->ntc + 1];
    for (int tr = 0; tr < p->ntr; tr++) {
        int nh = 0;
        for (int tc = 0; tc < p->ntc; tc++)
            if (p->map[(tr * p->ntc + tc) * p->nslot * 2] >= 0)
                held[nh++] = tc;
        for (int h = 0; h < nh;) {
            bool pair = !p->a && h + 1 < nh;
            acc[n++] = (LdAccess){tr, held[h], pair ? held[h + 1] - held[h] : 0, pair};
            h += 1 + pair;
        }
    }
    return n;
}

/* Read the fragments of value d: from the staged copy at byte_off of the
 * scratch (padded rows), or, when buf is not 0, from that swizzled buffer at
 * base. Accesses a constant apart from the first in every thread read at
 * its address plus an immediate (ld_at, llvm_const_steps). */
static void ld_read(Lower *L, ValueId d, const LdPlan *p, int64_t byte_off, ValueId buf, LLVMValueRef base) {
    DType dt = (DType)L->f->values[d].type.dtype;
    const ThreadMap *tt = llvm_tm(L, d);
    int pad = ld_pad(p), row_log2 = __builtin_ctz((unsigned)p->C);
    LLVMValueRef q = LLVMBuildLShr(L->b, L->lane, llvm_i32(L, 3), ""), r8 = LLVMBuildAnd(L->b, L->lane, llvm_i32(L, 7), "");
    LLVMValueRef qrow = LLVMBuildMul(L->b, LLVMBuildAnd(L->b, q, llvm_i32(L, 1), ""), llvm_i32(L, 8), "");
    LLVMValueRef qhi = LLVMBuildLShr(L->b, q, llvm_i32(L, 1), ""); /* matrices 2, 3 of an .x4 */
    LLVMValueRef wrow = p->a ? warp_base(L, tt, 0) : llvm_i32(L, 0), wcol = p->a ? llvm_i32(L, 0) : warp_base(L, tt, 1);
    LLVMValueRef lrow = LLVMBuildAdd(L->b, LLVMBuildAdd(L->b, wrow, qrow, ""), r8, "");
    LLVMTypeRef vt = LLVMVectorType(llvm_type(L, dt), 2);
    LLVMValueRef *regs = llvm_new_regs(L, tt->nregs), addr0 = NULL;
    LdAccess *acc = arena_alloc(L->f->arena, sizeof *acc * (size_t)(p->ntr * p->ntc));
    if (!regs || !acc) { /* not a block read with no loads */
        diag_internal(L->d, "out of memory");
        L->failed = true;
        return;
    }
    int n = ld_accesses(p, acc);
    LdAt at = {L->f, tt, p, acc, buf, pad};
    int64_t *delta = llvm_const_steps(L, n, ld_at, &at);
    for (int g = 0; g < n; g++) {
        const LdAccess *a = &acc[g];
        int mode = p->a ? LD_A : a->pair ? LD_B2 : LD_B;
        LLVMValueRef res;
        if (g > 0 && delta) {
            res = ldmatrix(L, mode, addr0, delta[g] * llvm_dt_bytes(dt));
        } else {
            LLVMValueRef lcol = p->a ? LLVMBuildMul(L->b, qhi, llvm_i32(L, 8), "")
                                     : LLVMBuildAdd(L->b, wcol, LLVMBuildMul(L->b, qhi, llvm_i32(L, 8 * a->step), ""), "");
            LLVMValueRef row = LLVMBuildAnd(L->b, LLVMBuildAdd(L->b, lrow, llvm_i32(L, a->tr * p->th), ""),
                                            llvm_i32(L, p->R - 1), "");
            LLVMValueRef col = LLVMBuildAnd(L->b, LLVMBuildAdd(L->b, lcol, llvm_i32(L, a->tc * p->tw), ""),
                                            llvm_i32(L, p->C - 1), "");
            LLVMValueRef ptr;
            if (buf) {
                LLVMValueRef idx[2] = {row, col};
                LLVMValueRef off = llvm_shared_offset(L, L->f->values[buf].layout, L->f->values[buf].type, idx);
                ptr = LLVMBuildGEP2(L->b, llvm_type(L, dt), base, &off, 1, "");
            } else {
                LLVMValueRef lin = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, llvm_i32(L, p->C), ""), col, "");
                ptr = llvm_smem_ptr(L, llvm_type(L, dt), llvm_smem_index(L, lin, pad, row_log2), byte_off);
            }
            LLVMValueRef addr = LLVMBuildPtrToInt(L->b, ptr, L->t_i64, "");
            addr0 = g == 0 ? addr : addr0;
            res = ldmatrix(L, mode, addr, 0);
        }
        for (int t = 0; t < 1 + a->pair; t++) {
            const int *m = &p->map[(a->tr * p->ntc + a->tc + t * a->step) * p->nslot * 2];
            for (int slot = 0; slot < p->nslot; slot++) {
                LLVMValueRef x = LLVMBuildExtractValue(L->b, res, (unsigned)(t * p->nslot + slot), "");
                LLVMValueRef v = LLVMBuildBitCast(L->b, x, vt, "");
                for (int j = 0; j < 2; j++)
                    regs[m[slot * 2 + j]] = LLVMBuildExtractElement(L->b, v, llvm_i32(L, j), "");
            }
        }
    }
    llvm_set(L, d, regs, tt->nregs);
}

/* Converts (with their plans) through one staging round: barrier, every
 * block stored at its own offset, barrier, every block read. */
static void ld_round(Lower *L, Inst **cv, LdPlan *p, int n, Span sp) {
    int64_t off[2], total = 0;
    for (int i = 0; i < n; i++) {
        off[i] = total;
        total = (total + ld_bytes(&p[i]) + 15) & ~(int64_t)15;
    }
    llvm_smem_use(L, total, sp);
    for (int i = 0; i < n; i++) {
        ValueId s = cv[i]->args[0];
        llvm_smem_stage(L, llvm_tm(L, s), llvm_val(L, s)->r, (DType)L->f->values[s].type.dtype, ld_pad(&p[i]), off[i]);
    }
    llvm_barrier(L);
    for (int i = 0; i < n; i++)
        ld_read(L, cv[i]->results[0], &p[i], off[i], 0, NULL);
}

/* A local_load of a 16-bit buffer with 16-byte swizzle groups, row-major (as
 * the pipeliner makes them), into an mma operand: ldmatrix straight from the
 * buffer. Each 8x8 matrix row is one 16-byte group, so the XOR keeps it whole
 * and 8 rows land in 8 bank groups. */
bool llvm_local_load_ldmatrix(Lower *L, Inst *in, LLVMValueRef base) {
    Function *f = L->f;
    ValueId buf = in->args[0], d = in->results[0];
    const Layout *dl = &f->layouts[f->values[d].layout], *bl = &f->layouts[f->values[buf].layout];
    Type bt = f->values[buf].type;
    LdPlan p;
    if (dl->kind != LAYOUT_DOT_OPERAND || dl->k_width != 2 || dt_bits((DType)bt.dtype) != 16 ||
        f->layouts[dl->parent].kind != LAYOUT_MMA || bl->kind != LAYOUT_SHARED || bl->rank != 2 || bt.rank != 2 ||
        bl->order[0] != 1 || (bl->max_phase > 1 && bl->vec % 8) || !llvm_tm(L, d) ||
        !plan_ldmatrix(L, llvm_tm(L, d), dl->op_idx == 0, &p))
        return false;
    ld_read(L, d, &p, 0, buf, base);
    return true;
}

/* A convert whose only use is the A or B operand of a dot in the same block
 * is left to the dot (see lower_mma), which stages both operands in one
 * round: half the barriers, and B's stores need not wait for A's reads. */
static bool deferrable(Lower *L, Inst *in) {
    ValueId d = in->results[0];
    Inst *u = L->user[d];
    LdPlan p;
    return L->nuses[d] == 1 && u && u->op == IR_DOT && (u->args[0] == d || u->args[1] == d) &&
           L->def_block[d] == L->use_block[d] && ld_plan_of(L, in, &p);
}

bool llvm_convert_ldmatrix(Lower *L, Inst *in) {
    LdPlan p;
    if (deferrable(L, in)) {
        L->deferred[in->results[0]] = true;
        return true;
    }
    if (!ld_plan_of(L, in, &p))
        return false;
    ld_round(L, &in, &p, 1, in->span);
    return true;
}

/* The dot's deferred operand converts, done now in one round. */
static void undefer(Lower *L, Inst *dot) {
    Inst *cv[2];
    LdPlan p[2];
    int n = 0;
    for (int k = 0; k < 2; k++) {
        ValueId v = dot->args[k];
        if (!L->deferred[v])
            continue;
        cv[n] = L->f->values[v].def;
        if (!ld_plan_of(L, cv[n], &p[n]))
            return; /* cannot happen: deferrable() planned it */
        L->deferred[v] = false;
        n++;
    }
    if (n)
        ld_round(L, cv, p, n, dot->span);
}

/* ---- small dots on the tensor cores ---- */

/* A 16-bit (or fp8, converted) dot with M < 16 or N < 8, which no mma layout
 * tiles: Triton still gives it mma.sync, its MMA layout replicated over the
 * small block (test_dot's small_dots cases look for m16n8k16). Here its
 * layouts are the FMA loop's; the operands go to shared memory as fp16 /
 * bf16 (smem_small_mma_bytes), every warp reads the fragments of each
 * 16 x 8 tile of the block padded with zeros past M and N (g = lane / 4,
 * t = lane % 4: A (g [+8], 2t [+8] + j), B (2t [+8] + j, g)), runs the mmas
 * over K into fresh zeros, warp 0 stores the products (c0..c3 at (g [+8],
 * 2t + j)) inside the block, and each thread adds its accumulator registers
 * to the products it reads back. */
static bool small_mma(Lower *L, Inst *in, Mma *m) {
    Type a = L->f->values[in->args[0]].type, b = L->f->values[in->args[1]].type;
    int M = a.shape[0], K = a.shape[1], N = b.shape[1];
    *m = (Mma){0}; /* plan_mma's attempt may have filled it */
    return a.rank == 2 && (M < 16 || N < 8) && K % 16 == 0 && llvm_tm(L, in->results[0]) && pick_instr(L, in, m) &&
           m->kw == 2 && m->kk == 16 && !m->tf32;
}

/* Element (row, col) of the staged rows x cols block at byte_off, or zero
 * where row is past `rows` or col past `cols`. */
static LLVMValueRef staged_elem(Lower *L, LLVMTypeRef t, int64_t byte_off, LLVMValueRef row, LLVMValueRef col,
                                int rows, int cols) {
    LLVMValueRef in = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntULT, row, llvm_i32(L, rows), ""),
                                   LLVMBuildICmp(L->b, LLVMIntULT, col, llvm_i32(L, cols), ""), "");
    LLVMValueRef idx = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, llvm_i32(L, cols), ""), col, "");
    idx = LLVMBuildSelect(L->b, in, idx, llvm_i32(L, 0), "");
    LLVMValueRef v = LLVMBuildLoad2(L->b, t, llvm_smem_ptr(L, t, idx, byte_off), "");
    return LLVMBuildSelect(L->b, in, v, LLVMConstNull(t), "");
}

/* The products of the 16 x 8 tile (mt, nt) over all of K, stored by warp 0. */
static void small_tile(Lower *L, const Mma *m, DType st, int M, int N, int K, int mt, int nt, int64_t boff,
                       int64_t doff) {
    LLVMTypeRef t = llvm_type(L, st);
    LLVMValueRef g = LLVMBuildUDiv(L->b, L->lane, llvm_i32(L, 4), ""), t2 = LLVMBuildMul(
        L->b, LLVMBuildURem(L->b, L->lane, llvm_i32(L, 4), ""), llvm_i32(L, 2), "");
    LLVMValueRef zero = m->acc_f16 ? LLVMConstNull(L->t_f16) : LLVMConstReal(L->t_f32, 0);
    LLVMValueRef d[4] = {zero, zero, zero, zero};
    for (int kt = 0; kt < K / 16; kt++) {
        LLVMValueRef fa[4], fb[2], x[2];
        for (int s = 0; s < 4; s++) {
            LLVMValueRef row = LLVMBuildAdd(L->b, g, llvm_i32(L, mt * 16 + 8 * (s % 2)), "");
            for (int j = 0; j < 2; j++)
                x[j] = staged_elem(L, t, 0, row, LLVMBuildAdd(L->b, t2, llvm_i32(L, kt * 16 + 8 * (s / 2) + j), ""), M,
                                   K);
            fa[s] = pack32(L, m, x);
        }
        for (int s = 0; s < 2; s++) {
            LLVMValueRef col = LLVMBuildAdd(L->b, g, llvm_i32(L, nt * 8), "");
            for (int j = 0; j < 2; j++)
                x[j] = staged_elem(L, t, boff, LLVMBuildAdd(L->b, t2, llvm_i32(L, kt * 16 + 8 * s + j), ""), col, K,
                                   N);
            fb[s] = pack32(L, m, x);
        }
        mma_call(L, m, fa, fb, d);
    }
    LLVMValueRef w0 = LLVMBuildICmp(L->b, LLVMIntEQ, L->warp, llvm_i32(L, 0), "");
    for (int i = 0; i < 4; i++) {
        LLVMValueRef row = LLVMBuildAdd(L->b, g, llvm_i32(L, mt * 16 + 8 * (i / 2)), "");
        LLVMValueRef col = LLVMBuildAdd(L->b, t2, llvm_i32(L, nt * 8 + i % 2), "");
        LLVMValueRef here = LLVMBuildAnd(L->b, LLVMBuildICmp(L->b, LLVMIntULT, row, llvm_i32(L, M), ""),
                                         LLVMBuildICmp(L->b, LLVMIntULT, col, llvm_i32(L, N), ""), "");
        LLVMBasicBlockRef cont = llvm_guard_begin(L, LLVMBuildAnd(L->b, here, w0, ""));
        LLVMValueRef v = m->acc_f16 ? LLVMBuildFPExt(L->b, d[i], L->t_f32, "") : d[i];
        LLVMValueRef idx = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, row, llvm_i32(L, N), ""), col, "");
        LLVMBuildStore(L->b, v, llvm_smem_ptr(L, L->t_f32, idx, doff));
        llvm_guard_end(L, cont);
    }
}

static void lower_mma_small(Lower *L, Inst *in, const Mma *m) {
    ValueId a = in->args[0], b = in->args[1], res = in->results[0];
    int M = L->f->values[a].type.shape[0], K = L->f->values[a].type.shape[1], N = L->f->values[b].type.shape[1];
    DType rt = dtype_of(L, res), st = dtype_of(L, a) == DT_BF16 ? DT_BF16 : DT_F16;
    bool zero_acc = ir_is_zero(L->f, in->args[2]);
    LLVMValueRef *cr = zero_acc ? NULL : llvm_regs_like(L, in->args[2], res, in->span); /* before the staging */
    int64_t boff, doff;
    llvm_smem_use(L, smem_small_mma_bytes(M, N, K, &boff, &doff), in->span);
    stage(L, a, st, 0, false);
    stage(L, b, st, boff, false);
    llvm_barrier(L);
    for (int mt = 0; mt * 16 < M; mt++)
        for (int nt = 0; nt * 8 < N; nt++)
            small_tile(L, m, st, M, N, K, mt, nt, boff, doff);
    llvm_barrier(L);
    const ThreadMap *tr = llvm_tm(L, res);
    LLVMValueRef *out = llvm_new_regs(L, tr->nregs);
    for (int r = 0; r < tr->nregs; r++) {
        LLVMValueRef idx = LLVMBuildAdd(
            L->b, LLVMBuildMul(L->b, llvm_index(L, tr, r, 0), llvm_i32(L, N), ""), llvm_index(L, tr, r, 1), "");
        LLVMValueRef v = LLVMBuildLoad2(L->b, L->t_f32, llvm_smem_ptr(L, L->t_f32, idx, doff), "");
        if (cr)
            v = LLVMBuildFAdd(L->b, llvm_cast(L, cr[r], rt, DT_F32), v, "");
        out[r] = llvm_cast(L, v, DT_F32, rt);
    }
    llvm_set(L, res, out, tr->nregs);
}

/* ---- FMA ---- */

static bool dim_same(const ThreadMap *x, int dx, const ThreadMap *y, int dy) {
    return !memcmp(&x->dim[dx], &y->dim[dy], sizeof x->dim[0]);
}

/* No lane or warp moves along dim d: every thread holds all of it. */
static bool dim_local(const ThreadMap *tm, int d) {
    return (tm->dim[d].lmod <= 1 || tm->dim[d].lmul == 0) && (tm->dim[d].wmod <= 1 || tm->dim[d].wmul == 0);
}

/* The registers of A[m_r][k] and B[k][n_r] for each result register r and
 * each k, when every thread already holds them (DOT_OPERAND of a BLOCKED
 * parent: A keeps the accumulator's rows with all of K, B its columns). */
static bool plan_fma_regs(Lower *L, Inst *in, int **pa, int **pb) {
    const ThreadMap *ta = llvm_tm(L, in->args[0]), *tb = llvm_tm(L, in->args[1]), *tr = llvm_tm(L, in->results[0]);
    if (!ta || !tb || !tr || !dim_same(ta, 0, tr, 0) || !dim_same(tb, 1, tr, 1) || !dim_local(ta, 1) ||
        !dim_local(tb, 0))
        return false;
    int M = ta->shape[0], K = ta->shape[1], N = tb->shape[1];
    int *ia = new_table(L, M * K), *ib = new_table(L, K * N);
    int *xa = new_table(L, tr->nregs * K), *xb = new_table(L, tr->nregs * K);
    if (!ia || !ib || !xa || !xb)
        return false;
    for (int r = 0; r < ta->nregs; r++)
        ia[ta->reg_off[r][0] * K + ta->reg_off[r][1]] = r;
    for (int r = 0; r < tb->nregs; r++)
        ib[tb->reg_off[r][0] * N + tb->reg_off[r][1]] = r;
    for (int r = 0; r < tr->nregs; r++)
        for (int k = 0; k < K; k++) {
            xa[r * K + k] = ia[tr->reg_off[r][0] * K + k];
            xb[r * K + k] = ib[k * N + tr->reg_off[r][1]];
            if (xa[r * K + k] < 0 || xb[r * K + k] < 0)
                return false;
        }
    *pa = xa;
    *pb = xb;
    return true;
}

static DType fma_type(DType rt) {
    return dt_is_float(rt) ? (rt == DT_F64 ? DT_F64 : DT_F32) : (dt_bits(rt) > 32 ? DT_I64 : DT_I32);
}

static LLVMValueRef fma_step(Lower *L, DType ct, LLVMValueRef x, LLVMValueRef y, LLVMValueRef acc) {
    if (!dt_is_float(ct))
        return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, x, y, ""), acc, "");
    LLVMValueRef args[3] = {x, y, acc};
    return llvm_call(L, llvm_intr_name(L, "llvm.fma", LLVMTypeOf(x)), LLVMTypeOf(x), args, 3);
}

/* acc[r] = fma chain over k, all in registers. */
static void lower_fma_regs(Lower *L, Inst *in, const int *pa, const int *pb) {
    ValueId a = in->args[0], b = in->args[1], res = in->results[0];
    DType rt = dtype_of(L, res), ct = fma_type(rt);
    const ThreadMap *tr = llvm_tm(L, res);
    int K = L->f->values[a].type.shape[1], n = tr->nregs;
    LVal *A = llvm_val(L, a), *B = llvm_val(L, b);
    LLVMValueRef *ca = llvm_new_regs(L, A->n), *cb = llvm_new_regs(L, B->n); /* converted once */
    LLVMValueRef *cr = llvm_regs_like(L, in->args[2], res, in->span), *out = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++) {
        LLVMValueRef acc = llvm_cast(L, cr[r], rt, ct);
        for (int k = 0; k < K; k++) {
            int i = pa[r * K + k], j = pb[r * K + k];
            if (!ca[i])
                ca[i] = llvm_cast(L, A->r[i], dtype_of(L, a), ct);
            if (!cb[j])
                cb[j] = llvm_cast(L, B->r[j], dtype_of(L, b), ct);
            acc = fma_step(L, ct, ca[i], cb[j], acc);
        }
        out[r] = llvm_cast(L, acc, ct, rt);
    }
    llvm_set(L, res, out, n);
}

/* Store a block's registers into scratch at base + row-major index; fp32
 * rounded to tf32 first when the dot asks for tf32 (as mma.sync's operands
 * are, and as the interpreter does). */
static void stage(Lower *L, ValueId v, DType ct, int64_t byte_off, bool tf32) {
    const ThreadMap *tm = llvm_tm(L, v);
    LVal *x = llvm_val(L, v);
    int64_t strides[IR_MAX_RANK];
    llvm_row_major(tm->rank, tm->shape, strides);
    LLVMTypeRef t = llvm_type(L, ct);
    LLVMValueRef *idx = llvm_new_regs(L, tm->nregs);
    llvm_scratch_indices(L, tm, 1, strides, 0, 0, 0, idx);
    for (int r = 0; r < tm->nregs; r++) {
        LLVMValueRef val = llvm_cast(L, x->r[r], dtype_of(L, v), ct);
        if (tf32)
            val = LLVMBuildBitCast(L->b, f2tf32(L, val), t, "");
        LLVMBuildStore(L->b, val, llvm_smem_ptr(L, t, idx[r], byte_off));
    }
}

/* Laid-out IR (tlc --ir-in) keeps the layouts of the target it was laid out
 * for. A tensor-core layout whose instructions this target lacks is the
 * user's error, not ours: wgmma's before sm_90a, and mma.sync's before sm_80
 * where the staged FMA loop then needs more scratch than smem.c reserved
 * for an mma (`need`; 0: not the FMA loop). */
static bool tensor_cores_missing(Lower *L, Inst *in, bool wgmma, int64_t need) {
    int rl = L->f->values[in->results[0]].layout;
    bool mma = rl > 0 && rl < L->f->nlayouts && L->f->layouts[rl].kind == LAYOUT_MMA;
    const char *what = wgmma ? (ptx_arch_has(L->arch, ARCH_WGMMA) ? NULL : "wgmma (sm_90a)")
                       : mma && !ptx_arch_has(L->arch, ARCH_AMPERE) && need > L->scratch_cap
                           ? "mma.sync (sm_80 and newer)"
                           : NULL;
    if (what) {
        diag_error(L->d, L->f->src, in->span, "this dot is laid out for %s, which %s does not have: compile IR from "
                   "before the layout pass (or the source) for %s", what, L->arch->name, L->arch->name);
        L->failed = true;
    }
    return what != NULL;
}

/* acc[r] += sum_k A[m_r][k] * B[k][n_r], as a loop over k with one phi per
 * accumulator register; A and B are read from the shared scratch. A batched
 * dot ([B, M, K] x [B, K, N]) is the same loop over its [B, M, N] result:
 * register r reads the rows of A and the columns of B of its own batch. */
static void lower_fma(Lower *L, Inst *in) {
    ValueId a = in->args[0], b = in->args[1], c = in->args[2], res = in->results[0];
    Type at = L->f->values[a].type, bt = L->f->values[b].type;
    DType rt = dtype_of(L, res), ct = fma_type(rt);
    int nd = at.rank; /* 2, or 3 with the batch dim first */
    int64_t M = at.shape[nd - 2], K = at.shape[nd - 1], N = bt.shape[nd - 1], bytes = llvm_dt_bytes(ct);
    int64_t boff = (ir_numel(at) * bytes + 15) & ~(int64_t)15;
    bool tf32 = in->attr.precision == PREC_TF32 && at.dtype == DT_F32 && bt.dtype == DT_F32 && ct == DT_F32;
    if (tensor_cores_missing(L, in, false, boff + ir_numel(bt) * bytes))
        return;
    llvm_smem_use(L, boff + ir_numel(bt) * bytes, in->span);
    stage(L, a, ct, 0, tf32);
    stage(L, b, ct, boff, tf32);
    llvm_barrier(L);
    LLVMValueRef *cr = llvm_regs_like(L, c, res, in->span);
    const ThreadMap *tr = llvm_tm(L, res);
    int n = tr->nregs;
    LLVMTypeRef t = llvm_type(L, ct);
    /* row offsets (b*M + m)*K and columns b*K*N + n of each register, before the loop */
    LLVMValueRef *arow = llvm_new_regs(L, n), *bcol = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++) {
        LLVMValueRef row = llvm_index(L, tr, r, nd - 2), col = llvm_index(L, tr, r, nd - 1);
        if (nd == 3) {
            LLVMValueRef bi = llvm_index(L, tr, r, 0);
            row = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, bi, llvm_i32(L, M), ""), row, "");
            col = LLVMBuildAdd(L->b, LLVMBuildMul(L->b, bi, llvm_i32(L, K * N), ""), col, "");
        }
        arow[r] = LLVMBuildMul(L->b, row, llvm_i32(L, K), "");
        bcol[r] = col;
    }
    LLVMValueRef *init = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++)
        init[r] = llvm_cast(L, cr[r], rt, ct);
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b), loop = llvm_new_bb(L, "dot.k"), exit = llvm_new_bb(L, "dot.end");
    LLVMBuildBr(L->b, loop);
    LLVMPositionBuilderAtEnd(L->b, loop);
    LLVMValueRef k = LLVMBuildPhi(L->b, L->t_i32, "k"), zero = llvm_i32(L, 0);
    LLVMAddIncoming(k, &zero, &pre, 1);
    LLVMValueRef *acc = llvm_new_regs(L, n), *next = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++) { /* the phis first: they head the block */
        acc[r] = LLVMBuildPhi(L->b, t, "");
        LLVMAddIncoming(acc[r], &init[r], &pre, 1);
    }
    LLVMValueRef kn = LLVMBuildMul(L->b, k, llvm_i32(L, N), "");
    for (int r = 0; r < n; r++) {
        /* registers sharing a row or column share the load (LLVM's CSE) */
        LLVMValueRef x = LLVMBuildLoad2(L->b, t, llvm_smem_ptr(L, t, LLVMBuildAdd(L->b, arow[r], k, ""), 0), "");
        LLVMValueRef y = LLVMBuildLoad2(L->b, t, llvm_smem_ptr(L, t, LLVMBuildAdd(L->b, kn, bcol[r], ""), boff), "");
        next[r] = fma_step(L, ct, x, y, acc[r]);
    }
    LLVMValueRef k1 = LLVMBuildAdd(L->b, k, llvm_i32(L, 1), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(L->b);
    LLVMAddIncoming(k, &k1, &latch, 1);
    for (int r = 0; r < n; r++)
        LLVMAddIncoming(acc[r], &next[r], &latch, 1);
    LLVMBuildCondBr(L->b, LLVMBuildICmp(L->b, LLVMIntSLT, k1, llvm_i32(L, K), ""), loop, exit);
    LLVMPositionBuilderAtEnd(L->b, exit);
    LLVMValueRef *out = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++)
        out[r] = llvm_cast(L, next[r], ct, rt);
    llvm_set(L, res, out, n);
}

/* ---- FMA with both operands in shared memory ---- */

/* A local_load the FMA dot can read itself: into DOT_OPERAND (op_idx k) of
 * the dot's BLOCKED result layout, from a 2-D #shared buffer, its only use
 * operand k of that dot in the same block. */
static bool fma_smem_load(Lower *L, const Inst *ld, const Inst *dot, int k) {
    Function *f = L->f;
    if (!ld || ld->op != IR_LOCAL_LOAD || !ld->nresults)
        return false;
    ValueId d = ld->results[0], buf = ld->args[0];
    int dl = f->values[d].layout, bl = f->values[buf].layout, rl = f->values[dot->results[0]].layout;
    if (dl <= 0 || dl >= f->nlayouts || bl <= 0 || bl >= f->nlayouts || rl <= 0 || rl >= f->nlayouts)
        return false;
    const Layout *l = &f->layouts[dl], *b = &f->layouts[bl];
    Type bt = f->values[buf].type;
    return l->kind == LAYOUT_DOT_OPERAND && l->op_idx == k && l->parent == rl && f->layouts[rl].kind == LAYOUT_BLOCKED &&
           b->kind == LAYOUT_SHARED && b->rank == 2 && bt.rank == 2 && bt.dtype != DT_I1 && dot->args[k] == d &&
           L->nuses[d] == 1 && L->user[d] == dot && L->def_block[d] == L->use_block[d];
}

/* Is local_load ld an operand that the FMA dot reading it reads from shared
 * memory (both operands such loads)? Its value is then the buffer's address. */
bool llvm_fma_smem_operand(Lower *L, const Inst *ld) {
    Function *f = L->f;
    if (ld->op != IR_LOCAL_LOAD || !ld->nresults)
        return false;
    ValueId d = ld->results[0];
    Inst *u = L->user[d];
    if (!u || u->op != IR_DOT || u->nargs < 3 || u->args[0] == u->args[1])
        return false;
    return fma_smem_load(L, f->values[u->args[0]].def, u, 0) && fma_smem_load(L, f->values[u->args[1]].def, u, 1);
}

/* Elements one shared load may take along the buffer's contiguous dim
 * (`along`: the dot's dim that is; n: its length), as the swizzle keeps them
 * together, at most 16 bytes. */
static int smem_vec(const Layout *l, int along, int n, int bytes) {
    if (l->order[0] != along)
        return 1;
    int v = 16 / bytes;
    if (l->max_phase > 1 && l->vec < v)
        v = l->vec;
    while (v > 1 && n % v)
        v /= 2;
    return v > 0 ? v : 1;
}

/* acc[r] += sum_k A[m_r][k] * B[k][n_r] with A (M x K) and B (K x N) read
 * straight from their #shared buffers (the pipeliner's ring stages), in an
 * LLVM loop over K in chunks of up to 8: per chunk each thread reads each of
 * its rows of A as vectors along K and each of its runs of columns of B as
 * vectors along N (16 bytes where the layouts allow: the layout pass spreads
 * the accumulator so that these loads meet no bank conflicts), then does its
 * r x c fmas per k. No staging, no barrier: the rings' barriers are
 * barrier_pass's. */
static void lower_fma_smem(Lower *L, Inst *in) {
    Function *f = L->f;
    ValueId a = in->args[0], b = in->args[1], res = in->results[0];
    ValueId ba = f->values[a].def->args[0], bb = f->values[b].def->args[0];
    Type ta = f->values[ba].type, tb = f->values[bb].type;
    int lia = f->values[ba].layout, lib = f->values[bb].layout;
    DType da = (DType)ta.dtype, db = (DType)tb.dtype, rt = dtype_of(L, res), ct = fma_type(rt);
    const ThreadMap *tr = llvm_tm(L, res);
    int M = ta.shape[0], K = ta.shape[1], N = tb.shape[1], n = tr->nregs;
    int va = smem_vec(&f->layouts[lia], 1, K, llvm_dt_bytes(da)), vb = smem_vec(&f->layouts[lib], 1, N, llvm_dt_bytes(db));
    /* B's runs: vb consecutive columns in every thread, starting aligned */
    for (; vb > 1; vb /= 2) {
        bool ok = (tr->dim[1].lmod <= 1 || tr->dim[1].lmul % vb == 0) && (tr->dim[1].wmod <= 1 || tr->dim[1].wmul % vb == 0);
        for (int r = 0; r < n && ok; r++) {
            int c0 = (tr->reg_off[r][1] & (N - 1)) / vb * vb;
            for (int e = 0; e < vb && ok; e++) {
                bool found = false;
                for (int q = 0; q < n && !found; q++)
                    found = (tr->reg_off[q][1] & (N - 1)) == c0 + e && (tr->reg_off[q][0] & (M - 1)) == (tr->reg_off[r][0] & (M - 1));
                ok = found;
            }
        }
        if (ok)
            break;
    }
    /* the thread's distinct rows and column runs, and each register's */
    int *ri = malloc(sizeof(int) * (size_t)n * 4), *ci = ri + n, *rrep = ri + 2 * n, *crep = ri + 3 * n;
    if (!ri) {
        diag_internal(L->d, "out of memory");
        L->failed = true;
        return;
    }
    int nr = 0, nc = 0;
    for (int r = 0; r < n; r++) {
        int ro = tr->reg_off[r][0] & (M - 1), co = (tr->reg_off[r][1] & (N - 1)) / vb * vb, i = 0, j = 0;
        while (i < nr && (tr->reg_off[rrep[i]][0] & (M - 1)) != ro)
            i++;
        if (i == nr)
            rrep[nr++] = r;
        while (j < nc && (tr->reg_off[crep[j]][1] & (N - 1)) != co)
            j++;
        if (j == nc) { /* the run's first column's register */
            int q = 0;
            while ((tr->reg_off[q][1] & (N - 1)) != co)
                q++;
            crep[nc++] = q;
        }
        ri[r] = i;
        ci[r] = j * vb + (tr->reg_off[r][1] & (N - 1)) % vb;
    }
    LLVMBuilderRef bld = L->b;
    LLVMValueRef pa = llvm_val(L, a)->r[0], pb = llvm_val(L, b)->r[0];
    LLVMTypeRef ea = llvm_mem_type(L, da), eb = llvm_mem_type(L, db), t = llvm_type(L, ct);
    LLVMTypeRef vta = va > 1 ? LLVMVectorType(ea, (unsigned)va) : ea, vtb = vb > 1 ? LLVMVectorType(eb, (unsigned)vb) : eb;
    LLVMValueRef *row = llvm_new_regs(L, nr), *col = llvm_new_regs(L, nc);
    for (int i = 0; i < nr; i++)
        row[i] = llvm_index(L, tr, rrep[i], 0);
    for (int j = 0; j < nc; j++)
        col[j] = llvm_index(L, tr, crep[j], 1);
    LLVMValueRef *cr = llvm_regs_like(L, in->args[2], res, in->span), *init = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++)
        init[r] = llvm_cast(L, cr[r], rt, ct);
    int kc = 8;
    while (kc > 1 && K % kc)
        kc /= 2;
    if (kc < va)
        kc = va;
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(bld), loop = llvm_new_bb(L, "dot.k"), exit = llvm_new_bb(L, "dot.end");
    LLVMBuildBr(bld, loop);
    LLVMPositionBuilderAtEnd(bld, loop);
    LLVMValueRef k = LLVMBuildPhi(bld, L->t_i32, "k"), zero = llvm_i32(L, 0);
    LLVMAddIncoming(k, &zero, &pre, 1);
    LLVMValueRef *acc = llvm_new_regs(L, n), *cur = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++) {
        acc[r] = LLVMBuildPhi(bld, t, "");
        LLVMAddIncoming(acc[r], &init[r], &pre, 1);
        cur[r] = acc[r];
    }
    LLVMValueRef *xa = llvm_new_regs(L, nr * va), *xb = llvm_new_regs(L, nc * vb);
    for (int kk = 0; kk < kc; kk += va) {
        LLVMValueRef kv = LLVMBuildAdd(bld, k, llvm_i32(L, kk), "");
        for (int i = 0; i < nr; i++) { /* A[row_i][k+kk .. +va) */
            LLVMValueRef idx[2] = {row[i], kv};
            LLVMValueRef off = llvm_shared_offset(L, lia, ta, idx);
            LLVMValueRef x = LLVMBuildLoad2(bld, vta, LLVMBuildGEP2(bld, ea, pa, &off, 1, ""), "");
            LLVMSetAlignment(x, (unsigned)(va * llvm_dt_bytes(da)));
            for (int e = 0; e < va; e++)
                xa[i * va + e] = llvm_cast(L, va > 1 ? LLVMBuildExtractElement(bld, x, llvm_i32(L, e), "") : x, da, ct);
        }
        for (int e = 0; e < va; e++) {
            LLVMValueRef ke = LLVMBuildAdd(bld, kv, llvm_i32(L, e), "");
            for (int j = 0; j < nc; j++) { /* B[k][col_j .. +vb) */
                LLVMValueRef idx[2] = {ke, col[j]};
                LLVMValueRef off = llvm_shared_offset(L, lib, tb, idx);
                LLVMValueRef x = LLVMBuildLoad2(bld, vtb, LLVMBuildGEP2(bld, eb, pb, &off, 1, ""), "");
                LLVMSetAlignment(x, (unsigned)(vb * llvm_dt_bytes(db)));
                for (int q = 0; q < vb; q++)
                    xb[j * vb + q] = llvm_cast(L, vb > 1 ? LLVMBuildExtractElement(bld, x, llvm_i32(L, q), "") : x, db, ct);
            }
            for (int r = 0; r < n; r++)
                cur[r] = fma_step(L, ct, xa[ri[r] * va + e], xb[ci[r]], cur[r]);
        }
    }
    LLVMValueRef k1 = LLVMBuildAdd(bld, k, llvm_i32(L, kc), "");
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(bld);
    LLVMAddIncoming(k, &k1, &latch, 1);
    for (int r = 0; r < n; r++)
        LLVMAddIncoming(acc[r], &cur[r], &latch, 1);
    LLVMBuildCondBr(bld, LLVMBuildICmp(bld, LLVMIntSLT, k1, llvm_i32(L, K), ""), loop, exit);
    LLVMPositionBuilderAtEnd(bld, exit);
    LLVMValueRef *out = llvm_new_regs(L, n);
    for (int r = 0; r < n; r++)
        out[r] = llvm_cast(L, cur[r], ct, rt);
    free(ri);
    llvm_set(L, res, out, n);
}

/* ---- wgmma (sm_90a) ---- */

bool llvm_uses_wgmma(const Function *f) {
    for (int i = 1; i < f->nlayouts; i++)
        if (f->layouts[i].kind == LAYOUT_MMA && f->layouts[i].version == 3)
            return true;
    return false;
}

/* A wgmma shared-memory matrix descriptor (PTX ISA, "Matrix Descriptor
 * Format"): bits 0-13 the start address >> 4, 16-29 the leading dimension
 * byte offset >> 4, 32-45 the stride dimension byte offset >> 4, 62-63 the
 * swizzle (1: 128 bytes, 2: 64, 3: 32). The buffers are 1024-aligned, so the
 * base offset (bits 49-51) is 0. */
static LLVMValueRef wg_desc(Lower *L, LLVMValueRef addr, int64_t lbo, int64_t sbo, int swizzle) {
    uint64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    uint64_t k = ((uint64_t)((lbo >> 4) & 0x3fff) << 16) | ((uint64_t)((sbo >> 4) & 0x3fff) << 32) | (mode << 62);
    /* The address field through an opaque bfe (Triton's form): LLVM would
     * otherwise know its low bits zero (the buffer's alignment) and make
     * each k step's `+ offset` an `or`, which ptxas does not rematerialise
     * from one base. It kept every step's descriptor live instead: attention
     * backward's 32 loop-invariant A descriptors (D=128) went to local
     * memory and came back every iteration (14.27 ms against Triton's
     * 12.22, H200; 11.99 with adds). */
    LLVMValueRef a = llvm_asm(L, "bfe.u32 $0, $1, 4, 14;", "=r,r", L->t_i32, &addr, 1, true);
    return LLVMBuildOr(L->b, LLVMBuildZExt(L->b, a, L->t_i64, ""), LLVMConstInt(L->t_i64, k, 0), "");
}

/* An asm with n f32 registers tied through it (a wait: what the wgmma wrote
 * is defined after it) and nkeep i32 registers read by it (a wgmma's A
 * operand, which must live until its group is done). */
static void wg_asm_keep(Lower *L, const char *text, LLVMValueRef *regs, int n, LLVMValueRef *keep, int nkeep) {
    /* four groups in flight (pipeline.c's MAX_WG), each up to
     * WGMMA_MAX_ACC_REGS accumulators, and their register A operands */
    enum { MAX = 4 * WGMMA_MAX_ACC_REGS + 1024 };
    LLVMTypeRef et[MAX];
    LLVMValueRef args[MAX];
    char cons[MAX * 6];
    int o = 0;
    if (n + nkeep > MAX) { /* cannot happen (above) */
        diag_internal(L->d, "in @%s: %d registers through one wgmma wait", L->f->name, n + nkeep);
        L->failed = true;
        return;
    }
    for (int i = 0; i < n; i++)
        et[i] = L->t_f32, args[i] = regs[i], o += snprintf(cons + o, sizeof cons - (size_t)o, "%s=f", i ? "," : "");
    for (int i = 0; i < n; i++)
        o += snprintf(cons + o, sizeof cons - (size_t)o, ",%d", i);
    for (int i = 0; i < nkeep; i++)
        et[n + i] = L->t_i32, args[n + i] = keep[i], o += snprintf(cons + o, sizeof cons - (size_t)o, "%sr", n + i ? "," : "");
    o += snprintf(cons + o, sizeof cons - (size_t)o, "%s~{memory}", n + nkeep ? "," : "");
    LLVMTypeRef rt = n ? LLVMStructTypeInContext(L->ctx, et, (unsigned)n, 0) : L->t_void;
    LLVMTypeRef fty = LLVMFunctionType(rt, et, (unsigned)(n + nkeep), 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), cons, (size_t)o, 1, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef r = LLVMBuildCall2(L->b, fty, fn, args, (unsigned)(n + nkeep), "");
    convergent(L, r);
    for (int i = 0; i < n; i++)
        regs[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
}

static void wg_asm(Lower *L, const char *text, LLVMValueRef *regs, int n) { wg_asm_keep(L, text, regs, n, NULL, 0); }

/* The ring (local_alloc) a view of one of its slots, read as it is or
 * transposed, comes from; NULL if none. */
static const Inst *ring_of_view(const Function *f, ValueId view) {
    const Inst *ix = f->values[view].def;
    if (ix && ix->op == IR_MEMDESC_TRANS)
        ix = f->values[ix->args[0]].def;
    const Inst *al = ix && ix->op == IR_MEMDESC_INDEX ? f->values[ix->args[0]].def : NULL;
    return al && al->op == IR_LOCAL_ALLOC ? al : NULL;
}

/* The stages of the ring a wgmma operand's view comes from (0: unknown). */
static int ring_stages(const Function *f, ValueId op) {
    const Inst *ld = f->values[op].def;
    const Inst *al = ld && ld->nargs ? ring_of_view(f, ld->args[0]) : NULL;
    return al ? f->values[al->results[0]].type.shape[0] : 0;
}

/* Are the copies of the dot's block into its rings all after it (the
 * pipeliner's plan_late), so that they refill the slot its wait_group 1
 * has just retired? None at all is no: a producer warpgroup fills the rings
 * of a consumer loop, and of two slots (ws_hold 1) the consumers release
 * their own slot right after the dot, which must have waited for it. */
static bool refills_after(Lower *L, const Inst *in) {
    const Function *f = L->f;
    const Block *b = L->def_block[in->results[0]];
    const Inst *la = f->values[in->args[0]].def, *lb = f->values[in->args[1]].def;
    const Inst *ra = la && la->op == IR_LOCAL_LOAD ? ring_of_view(f, la->args[0]) : NULL;
    const Inst *rb = lb && lb->op == IR_LOCAL_LOAD ? ring_of_view(f, lb->args[0]) : NULL;
    bool after = false, seen = false;
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *x = b->insts[i];
        after |= x == in;
        if ((x->op == IR_ASYNC_COPY || x->op == IR_TMA_LOAD) && x->nargs) {
            const Inst *r = ring_of_view(f, x->args[0]);
            if (r && (r == ra || r == rb)) {
                if (!after)
                    return false;
                seen = true;
            }
        }
    }
    return seen;
}

/* The accumulator a wgmma dot chains on, and the condition under which it
 * starts from zeros instead: `select(splat(c), zeros, x)` (a flattened
 * loop's first K step of a tile, flatten.c) is x with wgmma's scale-d off
 * when c; anything else is itself, c NULL. */
static ValueId wgmma_acc(const Function *f, ValueId acc, ValueId *zero_if) {
    const Inst *s = f->values[acc].def;
    const Inst *c = s && s->op == IR_SELECT ? f->values[s->args[0]].def : NULL;
    *zero_if = 0;
    if (!c || c->op != IR_SPLAT || f->values[c->args[0]].type.rank || !ir_is_zero(f, s->args[1]))
        return acc;
    *zero_if = c->args[0];
    return s->args[2];
}

/* Does every use of v but one yield wait first (wgmma_wait)? */
static bool only_waits_besides(Lower *L, ValueId v, const Inst *yield) {
    int waits = 0;
    for (ValueId w = 1; w < L->f->nvalues; w++) {
        const Inst *d = L->f->values[w].def;
        waits += d && d->op == IR_WGMMA_WAIT && d->results[0] == w && d->args[0] == v && L->def_block[w];
    }
    return yield && L->nuses[v] == waits + 1;
}

/* May the dot leave its wgmma group in flight (wait_group 1)? Only when its
 * result goes straight to the loop's yield and comes back as its own
 * accumulator (the next wgmma chains on the registers; the drain after the
 * loop waits for the last, llvm_wgmma_drain), any other use being behind a
 * wgmma_wait (a flattened loop's epilogue), and both rings have 3+ slots,
 * which the pipeliner refills (slots - 2) iterations ahead, so the slot an
 * in-flight group reads is not the one being refilled; or 2+ slots refilled
 * only after the dot (refills_after), into the slot of the group it retired. */
static bool wgmma_keeps_one(Lower *L, Inst *in) {
    Function *f = L->f;
    ValueId r = in->results[0], z;
    const Block *b = L->def_block[r]; /* the yield of the dot's own block */
    const Inst *y = b && b->ninsts && b->insts[b->ninsts - 1]->op == IR_YIELD ? b->insts[b->ninsts - 1] : NULL;
    bool yields = false;
    for (int a = 0; y && a < y->nargs; a++)
        yields |= y->args[a] == r;
    int sa = ring_stages(f, in->args[0]), sb = ring_stages(f, in->args[1]), slots = sa < sb ? sa : sb;
    return yields && only_waits_besides(L, r, y) && !f->values[wgmma_acc(f, in->args[2], &z)].def &&
           (slots >= 3 || (slots == 2 && refills_after(L, in)));
}

/* Is d a dot lowered as a wgmma (a v3 accumulator, B from a ring)? */
static bool is_wgmma(Lower *L, const Inst *d) {
    const Inst *lb = d->op == IR_DOT ? L->f->values[d->args[1]].def : NULL;
    return lb && lb->op == IR_LOCAL_LOAD && layout_is_wgmma(L->f, L->f->values[d->results[0]].layout);
}

/* May the dot's group stay in flight past it (a wgmma_pend entry)? When
 * its result is read only by wgmma_waits of its own block and that block's
 * yield, the block has no region after it (whose yield would come first)
 * and no dot of it keeps a group across iterations (wgmma_keeps_one, whose
 * groups wait_group's count would not see): attention backward's
 * dpT = v @ do.T issued before the scores' wait, dv += ppT @ do left for
 * dpT's. A dot only the yield reads waits at once unless a later wgmma of
 * the block will wait for it (attention's P V: leaving it to the yield was
 * no faster). */
static bool wgmma_pends(Lower *L, Inst *in) {
    Function *f = L->f;
    ValueId r = in->results[0];
    const Block *b = L->def_block[r];
    const Inst *y = b && b->ninsts && b->insts[b->ninsts - 1]->op == IR_YIELD ? b->insts[b->ninsts - 1] : NULL;
    if (!y)
        return false;
    int reads = 0, waits = 0;
    for (int a = 0; a < y->nargs; a++)
        reads += y->args[a] == r;
    for (ValueId w = 1; w < f->nvalues; w++) {
        const Inst *d = f->values[w].def;
        if (d && d->op == IR_WGMMA_WAIT && d->results[0] == w && d->args[0] == r && L->def_block[w]) {
            if (L->def_block[w] != b)
                return false;
            waits++;
        }
    }
    if (reads + waits != L->nuses[r])
        return false;
    bool after = false, later = waits > 0;
    for (int i = 0; i < b->ninsts; i++) {
        const Inst *d = b->insts[i];
        if ((is_wgmma(L, d) && wgmma_keeps_one(L, (Inst *)d)) || (after && d->nregions))
            return false;
        later |= after && is_wgmma(L, d);
        after |= d == in;
    }
    return later;
}

/* wgmma.wait_group n retiring pending groups 0 .. k (all but the n after
 * them): their accumulators tied through it, their A registers read by it;
 * each retired dot's value becomes its registers after the wait. */
static void wgmma_retire(Lower *L, int k) {
    int n = 0, nk = 0;
    for (int p = 0; p <= k; p++)
        n += L->vals[L->wg_pend[p].r].n, nk += L->wg_pend[p].nkeep;
    LLVMValueRef *all = llvm_new_regs(L, n ? n : 1), *ks = llvm_new_regs(L, nk ? nk : 1);
    n = nk = 0;
    for (int p = 0; p <= k; p++) {
        const LVal *v = &L->vals[L->wg_pend[p].r];
        memcpy(all + n, v->r, sizeof *all * (size_t)v->n);
        if (L->wg_pend[p].nkeep)
            memcpy(ks + nk, L->wg_pend[p].keep, sizeof *ks * (size_t)L->wg_pend[p].nkeep);
        n += v->n, nk += L->wg_pend[p].nkeep;
    }
    char text[64];
    snprintf(text, sizeof text, "wgmma.wait_group.sync.aligned %d;", L->nwg_pend - 1 - k);
    wg_asm_keep(L, text, all, n, ks, nk);
    n = 0;
    for (int p = 0; p <= k; p++) {
        int pn = L->vals[L->wg_pend[p].r].n;
        llvm_set(L, L->wg_pend[p].r, all + n, pn);
        n += pn;
    }
    memmove(L->wg_pend, L->wg_pend + k + 1, sizeof L->wg_pend[0] * (size_t)(L->nwg_pend - k - 1));
    L->nwg_pend -= k + 1;
}

/* A yield (what its block left in flight: wgmma_pends lets no region follow
 * such a dot, so this is its block's), or an mbarrier arrive, which hands a
 * ring slot back to a producer: the groups in flight, which may still read
 * it, are waited for. */
void llvm_wgmma_retire_all(Lower *L) {
    if (L->nwg_pend)
        wgmma_retire(L, L->nwg_pend - 1);
}

/* wgmma_wait: a dot whose group is in flight retires it (and older ones,
 * wgmma_retire); a dot that keeps one group across iterations has its
 * accumulator tied through wgmma.wait_group 0; else the registers as they
 * are after a dot that waited for its group at once. */
void llvm_lower_wgmma_wait(Lower *L, Inst *in) {
    for (int p = 0; p < L->nwg_pend; p++) /* in flight: retire it and what came before */
        if (L->wg_pend[p].r == in->args[0]) {
            wgmma_retire(L, p);
            break;
        }
    LVal *x = llvm_val(L, in->args[0]);
    Inst *d = L->f->values[in->args[0]].def;
    LLVMValueRef *r = llvm_new_regs(L, x->n);
    memcpy(r, x->r, sizeof(LLVMValueRef) * (size_t)x->n);
    if (d && d->op == IR_DOT && !wgmma_keeps_one(L, d)) {
        llvm_set(L, in->results[0], r, x->n);
        return;
    }
    wg_asm(L, "wgmma.wait_group.sync.aligned 0;", r, x->n);
    llvm_set(L, in->results[0], r, x->n);
}

void llvm_wgmma_drain(Lower *L) {
    Function *f = L->f;
    for (ValueId v = 1; v < f->nvalues; v++) {
        Inst *d = f->values[v].def;
        LVal *x = L->vals ? &L->vals[v] : NULL;
        /* once each, at the first drain after its loop (the one put right
         * after it): a later one may sit in a branch that does not dominate
         * the value's uses (causal attention's second loop) */
        if (!d || d->op != IR_FOR || !layout_is_wgmma(f, f->values[v].layout) || !x || !x->r || !x->n || L->drained[v])
            continue;
        /* a wgmma's accumulators are f32 registers (wg_asm); a carried value
         * of another type in the same layout (an f64 sum of dots' results)
         * is no group's */
        if (LLVMTypeOf(x->r[0]) != L->t_f32)
            continue;
        L->drained[v] = true;
        LLVMValueRef *r = llvm_new_regs(L, x->n);
        memcpy(r, x->r, sizeof(LLVMValueRef) * (size_t)x->n);
        wg_asm(L, "wgmma.wait_group.sync.aligned 0;", r, x->n);
        llvm_set(L, v, r, x->n);
    }
}

/* wgmma's A from registers: for M repetition m and K step k (16 wide), this
 * thread's 8 elements a0..a7 (two to a .b32, PTX ISA "Register Fragments
 * for wgmma": the mma.sync m16n8k16 A fragment of the warp's 16 rows), found
 * through A's thread map as plan_tiles finds mma.sync's: lanes as the
 * fragment's, warps as the accumulator's (v3: warp w, rows 16 w mod 16 *
 * num_warps). A DOT_OPERAND of the v3 layout is that (attention's Q), and so
 * is the accumulator's own layout (attention's P: c0..c3 of two n8 tiles
 * are a0..a7 of one k16 step). Returns [m][k][4][2] register indices. */
static int *plan_wgmma_a(Lower *L, Inst *in, int M, int K, int nw) {
    const ThreadMap *ta = llvm_tm(L, in->args[0]), *tc = llvm_tm(L, in->args[2]);
    if (!ta || !tc || ta->rank != 2 || !lane_is(ta, 0, 4, 8, 1) || !lane_is(ta, 1, 1, 4, 2) ||
        !warp_same(ta, 0, tc, 0) || !warp_none(ta, 1) || tc->dim[0].wmul != 16 || tc->dim[0].wmod != nw)
        return NULL;
    int repm = M / (16 * nw), nk = K / 16;
    int *t = new_table(L, repm * nk * 8);
    for (int r = 0; t && r < ta->nregs; r++) {
        int ro = ta->reg_off[r][0] & (M - 1), co = ta->reg_off[r][1] & (K - 1);
        int within = ro % (16 * nw);
        if (within % 8 || within >= 16 || co % 8 >= 2)
            return NULL;
        int slot = within / 8 + 2 * ((co % 16) / 8);
        t[(((ro / (16 * nw)) * nk + co / 16) * 4 + slot) * 2 + co % 2] = r;
    }
    for (int i = 0; t && i < repm * nk * 8; i++)
        if (t[i] < 0)
            return NULL;
    return t;
}

/* dot on MMA v3 (the pipeliner's make_wgmma): B (K x N) is a stage view of
 * an NVMMA ring, N-major (transposed for wgmma) or, through a memdesc_trans
 * of an [N, K] stage (#nvmma transposed), K-major; A (M x K) is one too,
 * K-major, or registers (plan_wgmma_a: wgmma's register form, which waits
 * for its group at once, the registers being read asynchronously);
 * warpgroup g = warp / 4 of the num_warps / 4 computes, for each M
 * repetition m, rows m * 16 * num_warps + 64 g .. + 63 with one
 * wgmma.m64nNk16 per 16 of K. Its accumulator registers are the v3 map's
 * (v2's with warps along M): repetition m's N / 2 registers in n8 order,
 * c0..c3 each, which is wgmma's D fragment. The group is committed and
 * waited for at once, so the ring stage it read may be refilled by the next
 * iteration's copies; the copies already in flight overlap the MMAs. */
static bool lower_wgmma(Lower *L, Inst *in) {
    Function *f = L->f;
    ValueId va = in->args[0], vb = in->args[1];
    Inst *la = f->values[va].def, *lb = f->values[vb].def;
    bool rs = !la || la->op != IR_LOCAL_LOAD; /* A in registers */
    if (!lb || lb->op != IR_LOCAL_LOAD)
        return false;
    const Layout *nla = rs ? NULL : &f->layouts[f->values[la->args[0]].layout];
    const Layout *nlb = &f->layouts[f->values[lb->args[0]].layout];
    Type ta = f->values[va].type, tb = f->values[vb].type;
    int nw = f->num_warps ? f->num_warps : 4;
    int M = ta.shape[0], K = ta.shape[1], N = tb.shape[1];
    DType dt = dtype_of(L, va), dtb = dtype_of(L, vb);
    ValueId zero_if;
    LVal *C = llvm_val(L, wgmma_acc(f, in->args[2], &zero_if));
    int repm = M / (16 * nw), per = N / 2;
    /* fp8 (pipeline.c's fp8_wgmma): k32 steps of the same 32 bytes, both
     * operands K-major in shared memory (no transposes of 8-bit operands) */
    bool fp8 = dt_is_nv_fp8(dt) && dt_is_nv_fp8(dtb);
    int esz = fp8 ? 1 : 2, ks = 32 / esz; /* element bytes, K per instruction */
    if ((!rs && (nla->kind != LAYOUT_NVMMA || nla->transposed || !nla->swizzle)) || nlb->kind != LAYOUT_NVMMA ||
        (!fp8 && ((dt != DT_F16 && dt != DT_BF16) || dtb != dt)) || (fp8 && (rs || !nlb->transposed)) ||
        M % (16 * nw) || K % ks || N % 16 || N > 256 || C->n != repm * per || !nlb->swizzle)
        return false;
    int *areg = rs ? plan_wgmma_a(L, in, M, K, nw) : NULL;
    if (rs && !areg)
        return false;
    /* a zero accumulator (attention's scores) is wgmma's scale-d 0 */
    bool zero_acc = !zero_if && ir_is_zero(f, in->args[2]);
    int wa = rs ? 0 : nla->swizzle, wb = nlb->swizzle;
    bool kmajor_b = nlb->transposed;
    LLVMBuilderRef b = L->b;
    LLVMValueRef pa = rs ? NULL : LLVMBuildPtrToInt(b, llvm_val(L, va)->r[0], L->t_i32, "");
    LLVMValueRef pb = LLVMBuildPtrToInt(b, llvm_val(L, vb)->r[0], L->t_i32, "");
    /* this warpgroup's first row of A: with one warpgroup the base itself,
     * no warp index in the descriptors */
    LLVMValueRef g = nw <= 4 ? llvm_i32(L, 0) : LLVMBuildUDiv(b, L->warp, llvm_i32(L, 4), "");
    LLVMValueRef arow = LLVMBuildMul(b, g, llvm_i32(L, 64 * wa), "");
    LLVMValueRef *acc = llvm_new_regs(L, C->n);
    memcpy(acc, C->r, sizeof(LLVMValueRef) * (size_t)C->n);
    /* descriptors of the operands' first bytes; a step's is that plus its
     * offset / 16: the address field is the 16-byte shared address, which
     * for a 16-byte aligned offset in the window never carries out */
    LLVMValueRef dbase = kmajor_b ? wg_desc(L, pb, 16, 8 * wb, wb) : wg_desc(L, pb, (int64_t)K * wb, 8 * wb, wb);
    LLVMValueRef dabase = rs ? NULL : wg_desc(L, LLVMBuildAdd(b, pa, arow, ""), 16, 8 * wa, wa);
    wg_asm(L, "wgmma.fence.sync.aligned;", NULL, 0);
    const char *ty = dt == DT_F16 ? "f16" : dt == DT_BF16 ? "bf16" : dt == DT_F8E5 ? "e5m2" : "e4m3";
    const char *tyb = fp8 ? (dtb == DT_F8E5 ? "e5m2" : "e4m3") : ty;
    LLVMValueRef *keep = rs ? llvm_new_regs(L, repm * (K / ks) * 4) : NULL; /* A's registers, read until retired */
    int nkeep = 0;
    char text[4096];
    for (int m = 0; m < repm; m++) {
        LLVMValueRef *d = acc + m * per;
        for (int kk = 0; kk < K; kk += ks) {
            /* A: 8-row groups of one atom column, 8 * wa bytes apart; K steps
             * move the start inside the atom's row (the swizzle is applied by
             * address); B: K steps are 16 rows of wb bytes, atom columns along
             * N K * wb bytes apart */
            int eb = wb / esz; /* elements per atom row */
            /* kmajor_b: as A, N rows, atom columns along K N * wb bytes apart */
            int64_t boff = kmajor_b ? (int64_t)(kk / eb) * N * wb + (kk % eb) * esz : (int64_t)kk * wb;
            LLVMValueRef db = LLVMBuildAdd(b, dbase, LLVMConstInt(L->t_i64, (uint64_t)(boff >> 4), 0), "");
            /* A: a shared-memory descriptor, or four .b32 of register pairs */
            LLVMValueRef aops[4];
            int na = rs ? 4 : 1;
            if (rs) {
                LLVMValueRef *A = llvm_val(L, va)->r;
                const int *t = &areg[(m * (K / ks) + kk / ks) * 8];
                for (int q = 0; q < 4; q++) {
                    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(LLVMTypeOf(A[t[2 * q]]), 2));
                    for (int e = 0; e < 2; e++)
                        v = LLVMBuildInsertElement(b, v, A[t[2 * q + e]], llvm_i32(L, e), "");
                    aops[q] = LLVMBuildBitCast(b, v, L->t_i32, "");
                    keep[nkeep++] = aops[q];
                }
            } else {
                int ea = wa / esz;
                int64_t aoff = ((int64_t)(kk / ea) * M + (int64_t)m * 16 * nw) * wa + (kk % ea) * esz;
                aops[0] = LLVMBuildAdd(b, dabase, LLVMConstInt(L->t_i64, (uint64_t)(aoff >> 4), 0), "");
            }
            int ia = 2 * per, ib = ia + na, isd = ib + 1; /* operand numbers after the outputs and tied inputs */
            int o = snprintf(text, sizeof text, "{\n.reg .pred p;\nsetp.ne.b32 p, $%d, 0;\n"
                             "wgmma.mma_async.sync.aligned.m64n%dk%d.f32.%s.%s {", isd, N, ks, ty, tyb);
            for (int i = 0; i < per; i++)
                o += snprintf(text + o, sizeof text - (size_t)o, "%s$%d", i ? ", " : "", i);
            if (rs)
                o += snprintf(text + o, sizeof text - (size_t)o, "}, {$%d, $%d, $%d, $%d}, $%d, p, 1, 1, %d;\n}", ia,
                              ia + 1, ia + 2, ia + 3, ib, kmajor_b ? 0 : 1);
            else if (fp8) /* no transpose operands for 8-bit types */
                o += snprintf(text + o, sizeof text - (size_t)o, "}, $%d, $%d, p, 1, 1;\n}", ia, ib);
            else
                o += snprintf(text + o, sizeof text - (size_t)o, "}, $%d, $%d, p, 1, 1, 0, %d;\n}", ia, ib,
                              kmajor_b ? 0 : 1);
            /* outputs, the tied accumulator, A (a descriptor or four registers), B's descriptor, scale-d */
            LLVMTypeRef et[256 + 6];
            LLVMValueRef args[256 + 6];
            char cons[4096];
            int c = 0;
            for (int i = 0; i < per; i++)
                c += snprintf(cons + c, sizeof cons - (size_t)c, "%s=f", i ? "," : "");
            for (int i = 0; i < per; i++)
                c += snprintf(cons + c, sizeof cons - (size_t)c, ",%d", i);
            c += snprintf(cons + c, sizeof cons - (size_t)c, "%s,l,r,~{memory}", rs ? ",r,r,r,r" : ",l");
            /* a constant scale-d 0 ignores the accumulator: undefined
             * inputs, so no zeroing moves before the first k step */
            for (int i = 0; i < per; i++)
                et[i] = L->t_f32, args[i] = zero_acc && kk == 0 ? LLVMGetUndef(L->t_f32) : d[i];
            for (int q = 0; q < na; q++)
                et[per + q] = rs ? L->t_i32 : L->t_i64, args[per + q] = aops[q];
            et[per + na] = L->t_i64, et[per + na + 1] = L->t_i32;
            args[per + na] = db, args[per + na + 1] = llvm_i32(L, 1);
            if (zero_if && kk == 0) /* scale-d: 0 starts from zeros */
                args[per + na + 1] = LLVMBuildZExt(b, LLVMBuildNot(b, llvm_val(L, zero_if)->r[0], ""), L->t_i32, "");
            else if (zero_acc && kk == 0)
                args[per + na + 1] = llvm_i32(L, 0);
            unsigned nargs = (unsigned)(per + na + 2);
            LLVMTypeRef rt = LLVMStructTypeInContext(L->ctx, et, (unsigned)per, 0);
            LLVMTypeRef fty = LLVMFunctionType(rt, et, nargs, 0);
            LLVMValueRef fn = LLVMGetInlineAsm(fty, text, strlen(text), cons, (size_t)c, 1, 0, LLVMInlineAsmDialectATT, 0);
            LLVMValueRef r = LLVMBuildCall2(b, fty, fn, args, nargs, "");
            convergent(L, r);
            for (int i = 0; i < per; i++)
                d[i] = LLVMBuildExtractValue(b, r, (unsigned)i, "");
        }
    }
    wg_asm(L, "wgmma.commit_group.sync.aligned;", NULL, 0);
    /* one group stays in flight into the next iteration when only its
     * wgmma reads the result (wgmma_keeps_one); the accumulator goes
     * through the wait, so nothing reads it before */
    if (wgmma_keeps_one(L, in)) {
        wg_asm(L, "wgmma.wait_group.sync.aligned 1;", acc, C->n);
        llvm_set(L, in->results[0], acc, C->n);
        return true;
    }
    /* in flight until its wgmma_wait or the block's yield (wgmma_pends),
     * which ties its registers and reads its A; otherwise waited for now,
     * with any group still in flight */
    int cap = (int)(sizeof L->wg_pend / sizeof L->wg_pend[0]);
    if (L->nwg_pend == cap)
        wgmma_retire(L, cap - 1);
    llvm_set(L, in->results[0], acc, C->n);
    L->wg_pend[L->nwg_pend++] = (struct WgPending){in->results[0], keep, nkeep};
    if (!wgmma_pends(L, in))
        wgmma_retire(L, L->nwg_pend - 1);
    return true;
}

void llvm_lower_dot(Lower *L, Inst *in) {
    Mma m = {0};
    undefer(L, in);
    /* a dot on the wgmma layout whose B is no ring's stage (its loop was not
     * pipelined, the v3 layout came from another loop's dot: pipeline.c) is
     * an mma.sync on the same thread maps, v3's being v2's with warps along M */
    if (is_wgmma(L, in)) {
        if (tensor_cores_missing(L, in, true, 0))
            return;
        if (!lower_wgmma(L, in)) {
            diag_internal(L->d, "in @%s: dot %%%d on the wgmma layout does not fit wgmma", L->f->name, in->results[0]);
            L->failed = true;
        }
        return;
    }
    if (L->f->values[in->args[0]].type.rank == 3) { /* batched: the staged FMA loop (layout_pass.c) */
        lower_fma(L, in);
        return;
    }
    int *pa, *pb;
    if (llvm_fma_smem_operand(L, L->f->values[in->args[0]].def ? L->f->values[in->args[0]].def : in))
        lower_fma_smem(L, in);
    else if (plan_mma(L, in, &m))
        lower_mma(L, in, &m);
    else if (small_mma(L, in, &m))
        lower_mma_small(L, in, &m);
    else if (plan_fma_regs(L, in, &pa, &pb))
        lower_fma_regs(L, in, pa, pb);
    else
        lower_fma(L, in);
}
