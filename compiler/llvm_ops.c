/* llvm_ops.c: lowering of the register-local ops: constants and ids,
 * elementwise arithmetic, comparisons, casts, math, shape ops (register
 * renaming or a trip through shared memory, see llvm_move), and the debugging
 * ops (print via vprintf, assert via __assertfail, barrier).
 *
 * Elementwise ops apply per register: operands share the result's layout
 * (the layout pass guarantees it; an operand that arrives in another layout is
 * moved first). fp16 / bf16 math runs in fp32; the transcendental functions
 * use the NVVM approximations Triton uses (ex2/lg2/sin/cos/rsqrt.approx). */
#include <string.h>

#include "fp8.h"
#include "libdevice.h"
#include "llvm_int.h"

static int nregs_of(Lower *L, ValueId v) {
    const ThreadMap *tm = llvm_tm(L, v);
    return tm ? tm->nregs : 1;
}

static DType dtype_of(Lower *L, ValueId v) { return (DType)L->f->values[v].type.dtype; }

/* Element types in messages, spelled the way the source spells them. */
static const char *user_dtype(DType dt) {
    switch (dt) {
    case DT_F16: return "fp16";
    case DT_F32: return "fp32";
    case DT_F64: return "fp64";
    default: return dt_name(dt);
    }
}

static bool is_half(DType dt) { return dt == DT_F16 || dt == DT_BF16; }

/* ---- constants and ids ---- */

LLVMValueRef llvm_const(Lower *L, DType dt, int64_t i, double f) {
    LLVMTypeRef t = llvm_type(L, dt);
    if (dt_is_fp8(dt))
        return LLVMConstInt(t, fp8_from_double(dt, f), 0);
    if (dt_is_float(dt))
        return LLVMConstReal(t, f);
    if (dt == DT_PTR)
        return LLVMConstNull(t);
    return LLVMConstInt(t, (unsigned long long)i, dt_is_signed(dt));
}

static void set_all(Lower *L, ValueId res, LLVMValueRef v) {
    int n = nregs_of(L, res);
    LLVMValueRef *r = llvm_new_regs(L, n);
    for (int i = 0; i < n; i++)
        r[i] = v;
    llvm_set(L, res, r, n);
}

static void lower_arange(Lower *L, Inst *in) {
    const ThreadMap *tm = llvm_tm(L, in->results[0]);
    LLVMValueRef *r = llvm_new_regs(L, tm->nregs);
    for (int i = 0; i < tm->nregs; i++)
        r[i] = LLVMBuildAdd(L->b, llvm_index(L, tm, i, 0), llvm_i32(L, in->attr.start), "");
    llvm_set(L, in->results[0], r, tm->nregs);
}

static void lower_pid(Lower *L, Inst *in) {
    static const char *const ids[2][3] = {{"ctaid.x", "ctaid.y", "ctaid.z"}, {"nctaid.x", "nctaid.y", "nctaid.z"}};
    int axis = in->attr.axis < 0 || in->attr.axis > 2 ? 0 : in->attr.axis;
    set_all(L, in->results[0], llvm_sreg(L, ids[in->op == IR_NUM_PROGRAMS][axis]));
}

/* ---- shape ops ---- */

/* Destination index e -> source linear index sum_d e_d * coef[d]. */
static void shape_coef(Lower *L, Inst *in, int64_t *coef) {
    Type st = L->f->values[in->args[0]].type, dt = L->f->values[in->results[0]].type;
    int64_t s[IR_MAX_RANK];
    llvm_row_major(st.rank, st.shape, s);
    for (int d = 0; d < dt.rank; d++) {
        switch (in->op) {
        case IR_BROADCAST: coef[d] = st.shape[d] == 1 ? 0 : s[d]; break;
        case IR_EXPAND_DIMS: coef[d] = d < in->attr.axis ? s[d] : d == in->attr.axis ? 0 : s[d - 1]; break;
        case IR_TRANS: coef[d] = s[in->attr.perm[d]]; break;
        default: break;
        }
    }
    if (in->op == IR_RESHAPE)
        llvm_row_major(dt.rank, dt.shape, coef); /* both sides row-major: same linear index */
    if (in->op == IR_MULTIPLE_OF || in->op == IR_MAX_CONTIGUOUS || in->op == IR_MAX_CONSTANCY ||
        in->op == IR_DESC_TILE)
        memcpy(coef, s, sizeof s);
}

static void lower_shape(Lower *L, Inst *in) {
    ValueId src = in->args[0], res = in->results[0];
    const ThreadMap *st = llvm_tm(L, src), *dt = llvm_tm(L, res);
    if (!st) { /* from a scalar: every register is it */
        set_all(L, res, llvm_val(L, src)->r[0]);
        return;
    }
    if (!dt) { /* to a scalar (a one-element block): register 0 holds it */
        set_all(L, res, llvm_val(L, src)->r[0]);
        return;
    }
    /* (trans of a square block may keep the thread map yet move elements,
     * so even equal maps go through llvm_move, which renames when it can) */
    int64_t coef[IR_MAX_RANK] = {0};
    shape_coef(L, in, coef);
    LLVMValueRef *r = llvm_new_regs(L, dt->nregs);
    llvm_move(L, st, llvm_val(L, src)->r, dtype_of(L, src), dt, r, coef, in->span);
    llvm_set(L, res, r, dt->nregs);
}

/* extract: element e of the result is element e + start (along axis) of the
 * operand; registers renamed where the layout keeps them in their threads
 * (layout_extract_renames), else through shared memory. */
static void lower_extract(Lower *L, Inst *in) {
    ValueId src = in->args[0], res = in->results[0];
    const ThreadMap *st = llvm_tm(L, src), *dt = llvm_tm(L, res);
    int64_t coef[IR_MAX_RANK];
    llvm_row_major(st->rank, st->shape, coef);
    LLVMValueRef *r = llvm_new_regs(L, dt->nregs);
    llvm_move_at(L, st, llvm_val(L, src)->r, dtype_of(L, src), dt, r, coef, in->attr.start * coef[in->attr.axis],
                 in->span);
    llvm_set(L, res, r, dt->nregs);
}

/* ---- arithmetic ---- */

static LLVMValueRef intr2(Lower *L, const char *base, LLVMValueRef a, LLVMValueRef b) {
    LLVMValueRef args[2] = {a, b};
    return llvm_call(L, llvm_intr_name(L, base, LLVMTypeOf(a)), LLVMTypeOf(a), args, 2);
}

static LLVMValueRef intr1(Lower *L, const char *base, LLVMValueRef a) {
    return llvm_call(L, llvm_intr_name(L, base, LLVMTypeOf(a)), LLVMTypeOf(a), &a, 1);
}

static LLVMValueRef float_binop(Lower *L, OpCode op, LLVMValueRef a, LLVMValueRef b) {
    switch (op) {
    case IR_ADD: return LLVMBuildFAdd(L->b, a, b, "");
    case IR_SUB: return LLVMBuildFSub(L->b, a, b, "");
    case IR_MUL: return LLVMBuildFMul(L->b, a, b, "");
    case IR_DIV: return LLVMBuildFDiv(L->b, a, b, "");
    case IR_REM: return LLVMBuildFRem(L->b, a, b, "");
    case IR_MIN: return intr2(L, "llvm.minnum", a, b);
    case IR_MAX: return intr2(L, "llvm.maxnum", a, b);
    default: return NULL;
    }
}

LLVMValueRef llvm_binop(Lower *L, OpCode op, DType dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt)) {
        /* fp16 add/sub/mul are native; bf16 (native only on sm_90) and the
         * rest go through fp32 and round once at the end. */
        bool via32 = dt == DT_BF16 || (dt == DT_F16 && op != IR_ADD && op != IR_SUB && op != IR_MUL);
        if (!via32)
            return float_binop(L, op, a, b);
        LLVMValueRef r = float_binop(L, op, LLVMBuildFPExt(L->b, a, L->t_f32, ""), LLVMBuildFPExt(L->b, b, L->t_f32, ""));
        return r ? LLVMBuildFPTrunc(L->b, r, llvm_type(L, dt), "") : NULL;
    }
    bool s = dt_is_signed(dt);
    switch (op) {
    case IR_ADD: return LLVMBuildAdd(L->b, a, b, "");
    case IR_SUB: return LLVMBuildSub(L->b, a, b, "");
    case IR_MUL: return LLVMBuildMul(L->b, a, b, "");
    case IR_DIV: return s ? LLVMBuildSDiv(L->b, a, b, "") : LLVMBuildUDiv(L->b, a, b, "");
    case IR_REM: return s ? LLVMBuildSRem(L->b, a, b, "") : LLVMBuildURem(L->b, a, b, "");
    case IR_AND: return LLVMBuildAnd(L->b, a, b, "");
    case IR_OR: return LLVMBuildOr(L->b, a, b, "");
    case IR_XOR: return LLVMBuildXor(L->b, a, b, "");
    case IR_SHL: return LLVMBuildShl(L->b, a, b, "");
    case IR_SHR: return s ? LLVMBuildAShr(L->b, a, b, "") : LLVMBuildLShr(L->b, a, b, "");
    case IR_MIN: return intr2(L, s ? "llvm.smin" : "llvm.umin", a, b);
    case IR_MAX: return intr2(L, s ? "llvm.smax" : "llvm.umax", a, b);
    case IR_UMULHI: { /* the unsigned product in twice the width, shifted (NVPTX: mul.hi.u32/u64) */
        unsigned w = LLVMGetIntTypeWidth(LLVMTypeOf(a));
        LLVMTypeRef wide = LLVMIntTypeInContext(L->ctx, 2 * w);
        LLVMValueRef p = LLVMBuildMul(L->b, LLVMBuildZExt(L->b, a, wide, ""), LLVMBuildZExt(L->b, b, wide, ""), "");
        return LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, p, LLVMConstInt(wide, w, 0), ""), LLVMTypeOf(a), "");
    }
    default: return NULL;
    }
}

/* fp32 `/` as Triton lowers it: div.full.f32, within 2 ulp and without
 * div.rn's subnormal and range fix-ups (a branch and a slow path per
 * element in SASS); tl.div_rn (attr.rn) stays IEEE. */
static LLVMValueRef div_full(Lower *L, LLVMValueRef a, LLVMValueRef b) {
    static const char text[] = "div.full.f32 $0, $1, $2;";
    LLVMTypeRef pt[2] = {L->t_f32, L->t_f32};
    LLVMTypeRef fty = LLVMFunctionType(L->t_f32, pt, 2, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, sizeof text - 1, "=f,f,f", 6, 0, 0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef args[2] = {a, b};
    return LLVMBuildCall2(L->b, fty, fn, args, 2, "");
}

static LLVMValueRef cmp(Lower *L, int pred, DType dt, LLVMValueRef a, LLVMValueRef b) {
    if (dt_is_float(dt)) {
        /* ordered compares, except != which is true for NaN (Python's rules) */
        static const LLVMRealPredicate fp[] = {
            [CMP_LT] = LLVMRealOLT, [CMP_LE] = LLVMRealOLE, [CMP_GT] = LLVMRealOGT,
            [CMP_GE] = LLVMRealOGE, [CMP_EQ] = LLVMRealOEQ, [CMP_NE] = LLVMRealUNE,
        };
        return LLVMBuildFCmp(L->b, fp[pred], a, b, "");
    }
    static const LLVMIntPredicate sp[] = {
        [CMP_LT] = LLVMIntSLT, [CMP_LE] = LLVMIntSLE, [CMP_GT] = LLVMIntSGT,
        [CMP_GE] = LLVMIntSGE, [CMP_EQ] = LLVMIntEQ, [CMP_NE] = LLVMIntNE,
    };
    static const LLVMIntPredicate up[] = {
        [CMP_LT] = LLVMIntULT, [CMP_LE] = LLVMIntULE, [CMP_GT] = LLVMIntUGT,
        [CMP_GE] = LLVMIntUGE, [CMP_EQ] = LLVMIntEQ, [CMP_NE] = LLVMIntNE,
    };
    return LLVMBuildICmp(L->b, dt_is_signed(dt) ? sp[pred] : up[pred], a, b, "");
}

/* ---- casts ---- */

static LLVMValueRef int_resize(Lower *L, LLVMValueRef v, DType from, LLVMTypeRef to) {
    unsigned fw = LLVMGetIntTypeWidth(LLVMTypeOf(v)), tw = LLVMGetIntTypeWidth(to);
    if (fw == tw)
        return v;
    if (fw > tw)
        return LLVMBuildTrunc(L->b, v, to, "");
    return dt_is_signed(from) ? LLVMBuildSExt(L->b, v, to, "") : LLVMBuildZExt(L->b, v, to, "");
}

LLVMValueRef llvm_cast(Lower *L, LLVMValueRef v, DType from, DType to) {
    LLVMTypeRef tt = llvm_type(L, to);
    if (from == to)
        return v;
    if (dt_is_fp8(from) && to == DT_F16)
        return llvm_fp8_to_f16(L, v, from);
    if (dt_is_fp8(from)) /* exactly through fp32 */
        return llvm_cast(L, llvm_fp8_to_f32(L, v, from), DT_F32, to);
    if (dt_is_fp8(to)) /* one rounding from fp32 (sema refuses fp64; ints past 2^24 saturate anyway) */
        return llvm_f32_to_fp8(L, llvm_cast(L, v, from, DT_F32), to);
    if (from == DT_PTR)
        return llvm_cast(L, LLVMBuildPtrToInt(L->b, v, L->t_i64, ""), DT_I64, to);
    if (to == DT_PTR)
        return LLVMBuildIntToPtr(L->b, llvm_cast(L, v, from, DT_I64), tt, "");
    if (to == DT_I1) /* x != 0 */
        return dt_is_float(from) ? LLVMBuildFCmp(L->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "")
                                 : LLVMBuildICmp(L->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
    if (dt_is_int(from) && dt_is_int(to))
        return int_resize(L, v, from, tt);
    if (dt_is_int(from)) { /* to a float; to fp16/bf16 through fp32 (one rounding of an int < 2^24 is exact) */
        LLVMTypeRef mid = is_half(to) ? L->t_f32 : tt;
        LLVMValueRef f = dt_is_signed(from) ? LLVMBuildSIToFP(L->b, v, mid, "") : LLVMBuildUIToFP(L->b, v, mid, "");
        return mid == tt ? f : LLVMBuildFPTrunc(L->b, f, tt, "");
    }
    if (dt_is_int(to)) { /* float -> int truncates toward zero */
        if (is_half(from))
            v = LLVMBuildFPExt(L->b, v, L->t_f32, "");
        return dt_is_signed(to) ? LLVMBuildFPToSI(L->b, v, tt, "") : LLVMBuildFPToUI(L->b, v, tt, "");
    }
    if (is_half(from) && is_half(to)) /* fp16 <-> bf16 through fp32 */
        return LLVMBuildFPTrunc(L->b, LLVMBuildFPExt(L->b, v, L->t_f32, ""), tt, "");
    return dt_bits(from) < dt_bits(to) ? LLVMBuildFPExt(L->b, v, tt, "") : LLVMBuildFPTrunc(L->b, v, tt, "");
}

/* fp32 to fp16 / bf16 / fp8e5 rounded toward zero (fp_downcast_rounding='rtz'):
 * cvt.rz to 16 bits; e5m2 is fp16's upper byte, so truncating the rz fp16
 * rounds toward zero too (as Triton's FpToFp does). */
static LLVMValueRef cast_rtz(Lower *L, LLVMValueRef v, DType to) {
    if (to == DT_BF16 && !ptx_arch_has(L->arch, ARCH_AMPERE)) {
        /* no cvt to bf16 before sm_80: bf16 is f32's upper half, so dropping
         * the lower one rounds toward zero; a NaN stays one (quiet) */
        LLVMValueRef bits = LLVMBuildBitCast(L->b, v, L->t_i32, "");
        LLVMValueRef hi = LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, bits, llvm_i32(L, 16), ""), L->t_i16, "");
        LLVMValueRef nan = LLVMBuildFCmp(L->b, LLVMRealUNO, v, v, "");
        hi = LLVMBuildSelect(L->b, nan, LLVMBuildOr(L->b, hi, LLVMConstInt(L->t_i16, 0x40, 0), ""), hi, "");
        return LLVMBuildBitCast(L->b, hi, llvm_type(L, to), "");
    }
    const char *text = to == DT_BF16 ? "cvt.rz.bf16.f32 $0, $1;" : "cvt.rz.f16.f32 $0, $1;";
    LLVMValueRef h = llvm_asm(L, text, "=h,f", L->t_i16, &v, 1, true);
    if (to == DT_F8E5)
        return LLVMBuildTrunc(L->b, LLVMBuildLShr(L->b, h, LLVMConstInt(L->t_i16, 8, 0), ""), L->t_i8, "");
    return LLVMBuildBitCast(L->b, h, llvm_type(L, to), "");
}

static LLVMValueRef bitcast(Lower *L, LLVMValueRef v, DType from, DType to) {
    if (from == DT_PTR && to == DT_PTR) /* pointers are opaque: a new pointee changes nothing */
        return v;
    if (from == DT_PTR)
        return LLVMBuildBitCast(L->b, LLVMBuildPtrToInt(L->b, v, L->t_i64, ""), llvm_type(L, to), "");
    if (to == DT_PTR)
        return LLVMBuildIntToPtr(L->b, LLVMBuildBitCast(L->b, v, L->t_i64, ""), L->t_ptr1, "");
    return LLVMBuildBitCast(L->b, v, llvm_type(L, to), "");
}

/* ---- math ---- */

static LLVMValueRef nvvm1(Lower *L, const char *name, LLVMValueRef x) {
    return llvm_call(L, name, LLVMTypeOf(x), &x, 1);
}

/* fp64 exp, exp2, log, log2, sin, cos and erf of any type have no PTX
 * instruction: they call tl's device math library (compiler/device/math.c,
 * linked by llvm_extern.c). fp32 erf calls libdevice's __nv_erff where
 * libdevice is installed, as Triton does, else tl's own fp32 erf (same 2 ulp
 * bound): neither goes through fp64. */
static LLVMValueRef devmath(Lower *L, OpCode op, LLVMValueRef x, bool f64) {
    const char *name = NULL;
    switch (op) {
    case IR_EXP: name = "__tl_exp_f64"; break;
    case IR_EXP2: name = "__tl_exp2_f64"; break;
    case IR_LOG: name = "__tl_log_f64"; break;
    case IR_LOG2: name = "__tl_log2_f64"; break;
    case IR_SIN: name = "__tl_sin_f64"; break;
    case IR_COS: name = "__tl_cos_f64"; break;
    case IR_ERF: name = f64 ? "__tl_erf_f64" : libdevice_path() ? "__nv_erff" : "__tl_erf_f32"; break;
    default: return NULL;
    }
    return llvm_call(L, name, LLVMTypeOf(x), &x, 1);
}

/* An fp32 or fp64 unary function. */
static LLVMValueRef math32(Lower *L, OpCode op, LLVMValueRef x, bool f64) {
    LLVMTypeRef t = LLVMTypeOf(x);
    if (f64 || op == IR_ERF) {
        LLVMValueRef r = devmath(L, op, x, f64);
        if (r)
            return r;
    }
    switch (op) {
    case IR_EXP: /* e^x = 2^(x * log2(e)) */
        return f64 ? NULL : nvvm1(L, "llvm.nvvm.ex2.approx.f", LLVMBuildFMul(L->b, x, LLVMConstReal(t, 1.4426950408889634), ""));
    /* Triton's exp2 is libdevice's __nv_exp2f with ftz reflected on
     * (enable_reflect_ftz): ex2.approx.ftz; results below 2^-126 flush to
     * zero, and ptxas needs no subnormal fix-up around MUFU.EX2 */
    case IR_EXP2: return f64 ? NULL : nvvm1(L, "llvm.nvvm.ex2.approx.ftz.f", x);
    case IR_LOG: /* ln x = log2(x) * ln(2) */
        return f64 ? NULL : LLVMBuildFMul(L->b, nvvm1(L, "llvm.nvvm.lg2.approx.f", x), LLVMConstReal(t, 0.6931471805599453), "");
    case IR_LOG2: return f64 ? NULL : nvvm1(L, "llvm.nvvm.lg2.approx.f", x);
    case IR_SIN: return f64 ? NULL : nvvm1(L, "llvm.nvvm.sin.approx.f", x);
    case IR_COS: return f64 ? NULL : nvvm1(L, "llvm.nvvm.cos.approx.f", x);
    case IR_RSQRT: return nvvm1(L, f64 ? "llvm.nvvm.rsqrt.approx.d" : "llvm.nvvm.rsqrt.approx.f", x);
    case IR_SQRT: return intr1(L, "llvm.sqrt", x);
    case IR_ABS: return intr1(L, "llvm.fabs", x);
    case IR_FLOOR: return intr1(L, "llvm.floor", x);
    case IR_CEIL: return intr1(L, "llvm.ceil", x);
    default: return NULL;
    }
}

static LLVMValueRef math1(Lower *L, Inst *in, DType dt, LLVMValueRef x) {
    if (in->op == IR_ABS && dt_is_int(dt)) {
        if (!dt_is_signed(dt))
            return x;
        LLVMValueRef args[2] = {x, LLVMConstInt(L->t_i1, 0, 0)};
        return llvm_call(L, llvm_intr_name(L, "llvm.abs", LLVMTypeOf(x)), LLVMTypeOf(x), args, 2);
    }
    if (in->op == IR_ABS && is_half(dt)) /* clear the sign bit: exact, no fp32 trip */
        return intr1(L, "llvm.fabs", x);
    LLVMValueRef v = is_half(dt) ? LLVMBuildFPExt(L->b, x, L->t_f32, "") : x;
    LLVMValueRef r = math32(L, in->op, v, dt == DT_F64);
    if (!r)
        return NULL;
    return is_half(dt) ? LLVMBuildFPTrunc(L->b, r, llvm_type(L, dt), "") : r;
}

static LLVMValueRef fma3(Lower *L, DType dt, LLVMValueRef a, LLVMValueRef b, LLVMValueRef c) {
    if (dt_is_int(dt))
        return LLVMBuildAdd(L->b, LLVMBuildMul(L->b, a, b, ""), c, "");
    bool h = is_half(dt);
    LLVMValueRef args[3] = {a, b, c};
    for (int i = 0; h && i < 3; i++)
        args[i] = LLVMBuildFPExt(L->b, args[i], L->t_f32, "");
    LLVMTypeRef t = LLVMTypeOf(args[0]);
    LLVMValueRef r = llvm_call(L, llvm_intr_name(L, "llvm.fma", t), t, args, 3);
    return h ? LLVMBuildFPTrunc(L->b, r, llvm_type(L, dt), "") : r;
}

/* ---- the per-register ops ---- */

static LLVMValueRef addptr(Lower *L, ValueId ptr, LLVMValueRef p, LLVMValueRef off, DType odt) {
    /* 64-bit offsets: an i32 offset is extended before the GEP, so element
     * offsets past 2^31 bytes address correctly. */
    LLVMValueRef o = LLVMTypeOf(off) == L->t_i64 ? off
                     : dt_is_signed(odt) ? LLVMBuildSExt(L->b, off, L->t_i64, "")
                                         : LLVMBuildZExt(L->b, off, L->t_i64, "");
    LLVMTypeRef et = llvm_mem_type(L, (DType)L->f->values[ptr].type.pointee);
    return LLVMBuildGEP2(L->b, et, p, &o, 1, "");
}

/* Triton's maybeDeduplicate: where the axis analysis says the result is
 * constant over runs of K elements along the thread's contiguous dim and the
 * thread holds whole aligned runs, register i equals the run's first one,
 * leader[i] (NULL: no run longer than 1). A mask `cols < n` with n a multiple
 * of 16 is then one predicate per vector, not one per element: 16 live
 * predicates of a 4096-wide row kernel cost ptxas 16 registers (64 against
 * Triton's 48, Liger's layer norm at 4 CTAs an SM instead of 5). */
static int *run_leaders(Lower *L, ValueId res, const ThreadMap *tm) {
    if (!tm || !L->axis || tm->contig_dim < 0)
        return NULL;
    int fd = tm->contig_dim;
    int64_t K = L->axis[res].constancy[fd];
    if (K > tm->shape[fd])
        K = tm->shape[fd];
    /* runs of K aligned to K are runs of K/2 aligned to K/2: shorten them
     * until the thread's first element along fd (its lane and warp terms)
     * starts one */
    while (K > 1 && ((tm->dim[fd].lmod > 1 && tm->dim[fd].lmul % K) || (tm->dim[fd].wmod > 1 && tm->dim[fd].wmul % K)))
        K /= 2;
    if (K < 2)
        return NULL;
    int *leader = arena_alloc(L->f->arena, sizeof(int) * (size_t)tm->nregs), any = 0;
    for (int i = 0; i < tm->nregs; i++) {
        int j = i - (int)(tm->reg_off[i][fd] % K);
        bool same = j >= 0;
        for (int d = 0; same && d < tm->rank; d++)
            same = tm->reg_off[j][d] == tm->reg_off[i][d] - (d == fd ? tm->reg_off[i][fd] % K : 0);
        leader[i] = same ? j : i;
        any |= leader[i] != i;
    }
    return any ? leader : NULL;
}

/* Per-register lowering of an op whose result register r depends only on
 * register r of each operand. */
static bool lower_map(Lower *L, Inst *in) {
    ValueId res = in->results[0];
    int n = nregs_of(L, res);
    /* operands in the result's layout; a scalar operand of a block op
     * (select's condition) applies to every register */
    LLVMValueRef *ops[3] = {0};
    int nops[3] = {0};
    for (int a = 0; a < in->nargs && a < 3; a++) {
        if (llvm_tm(L, in->args[a]) && !llvm_tm(L, res)) {
            diag_internal(L->d, "%s has a block operand and a scalar result", ir_ops[in->op].name);
            L->failed = true;
            return true;
        }
        ops[a] = llvm_regs_like(L, in->args[a], res, in->span);
        nops[a] = llvm_tm(L, in->args[a]) ? n : 1;
    }
    DType rt = dtype_of(L, res), at = in->nargs ? dtype_of(L, in->args[0]) : rt;
    LLVMValueRef *r = llvm_new_regs(L, n);
    if (in->op == IR_CAST && at == DT_F32 && is_half(rt) && nops[0] == n && n % 2 == 0 &&
        ptx_arch_has(L->arch, ARCH_AMPERE)) {
        /* fp32 -> fp16 / bf16 two at a time: one cvt.{rn,rz}.{f16,bf16}x2.f32
         * a pair (LLVM 19's NVPTX splits a <2 x float> fptrunc into two); the
         * first operand goes to the upper half */
        static const char *const texts[2][2] = {{"cvt.rn.f16x2.f32 $0, $2, $1;", "cvt.rn.bf16x2.f32 $0, $2, $1;"},
                                                {"cvt.rz.f16x2.f32 $0, $2, $1;", "cvt.rz.bf16x2.f32 $0, $2, $1;"}};
        const char *text = texts[in->attr.rtz][rt != DT_F16];
        LLVMTypeRef pt[2] = {L->t_f32, L->t_f32}, h2 = LLVMVectorType(llvm_type(L, rt), 2);
        LLVMTypeRef fty = LLVMFunctionType(L->t_i32, pt, 2, 0);
        LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), "=r,f,f", 6, 0, 0, LLVMInlineAsmDialectATT, 0);
        for (int i = 0; i < n; i += 2) {
            LLVMValueRef args[2] = {ops[0][i], ops[0][i + 1]};
            LLVMValueRef h = LLVMBuildBitCast(L->b, LLVMBuildCall2(L->b, fty, fn, args, 2, ""), h2, "");
            for (int e = 0; e < 2; e++)
                r[i + e] = LLVMBuildExtractElement(L->b, h, llvm_i32(L, e), "");
        }
        llvm_set(L, res, r, n);
        return true;
    }
    const int *leader = run_leaders(L, res, llvm_tm(L, res));
    for (int i = 0; i < n; i++) {
        if (leader && leader[i] != i) {
            r[i] = r[leader[i]];
            continue;
        }
        LLVMValueRef x = ops[0] ? ops[0][nops[0] > 1 ? i : 0] : NULL;
        LLVMValueRef y = ops[1] ? ops[1][nops[1] > 1 ? i : 0] : NULL;
        LLVMValueRef z = ops[2] ? ops[2][nops[2] > 1 ? i : 0] : NULL;
        switch (in->op) {
        case IR_NEG: r[i] = dt_is_float(rt) ? LLVMBuildFNeg(L->b, x, "") : LLVMBuildNeg(L->b, x, ""); break;
        case IR_NOT: r[i] = LLVMBuildNot(L->b, x, ""); break;
        case IR_CMP: r[i] = cmp(L, in->attr.pred, at, x, y); break;
        case IR_SELECT: r[i] = LLVMBuildSelect(L->b, x, y, z, ""); break;
        case IR_ADDPTR: r[i] = addptr(L, in->args[0], x, y, dtype_of(L, in->args[1])); break;
        case IR_CAST: r[i] = in->attr.rtz ? cast_rtz(L, x, rt) : llvm_cast(L, x, at, rt); break;
        case IR_BITCAST: r[i] = bitcast(L, x, at, rt); break;
        case IR_FMA: r[i] = fma3(L, rt, x, y, z); break;
        case IR_DIV:
            r[i] = rt == DT_F32 && !in->attr.rn ? div_full(L, x, y) : llvm_binop(L, in->op, rt, x, y);
            break;
        default:
            if (ir_ops[in->op].nargs == 2) {
                r[i] = llvm_binop(L, in->op, rt, x, y);
            } else {
                r[i] = math1(L, in, rt, x);
                if (!r[i]) {
                    diag_error(L->d, L->f->src, in->span, "%s on %s is not supported on the GPU yet",
                               ir_ops[in->op].name, user_dtype(rt));
                    L->failed = true;
                    return true;
                }
            }
        }
        if (!r[i]) {
            diag_internal(L->d, "no lowering of %s on %s", ir_ops[in->op].name, dt_name(rt));
            L->failed = true;
            return true;
        }
    }
    llvm_set(L, res, r, n);
    return true;
}

/* ---- debugging ---- */

/* The prefix the way Triton's front end munges it (" x: " from "x"); the
 * interpreter prints the same lines (runtime/interp.c). */
static void print_prefix(Buf *pre, const char *raw, int nargs) {
    Buf p = {0};
    buf_puts(&p, raw ? raw : "");
    if (nargs && (p.len == 0 || p.data[p.len - 1] != ' '))
        buf_putc(&p, ' ');
    if (nargs && !(p.len >= 2 && p.data[p.len - 2] == ':' && p.data[p.len - 1] == ' ')) {
        p.data[--p.len] = 0;
        buf_puts(&p, ": ");
    }
    if (p.len > 2 && p.data[0] != ' ')
        buf_putc(pre, ' ');
    for (size_t i = 0; i < p.len; i++) { /* it becomes part of a printf format */
        if (p.data[i] == '%')
            buf_putc(pre, '%');
        buf_putc(pre, p.data[i]);
    }
    buf_free(&p);
}

static int digits(long long v) {
    int d = 1;
    for (; v >= 10; v /= 10)
        d++;
    return d;
}

/* printf conversion and the promoted argument for one value. */
static const char *print_conv(Lower *L, DType dt, bool hex, LLVMValueRef *v) {
    if (dt == DT_PTR) {
        *v = LLVMBuildPtrToInt(L->b, *v, L->t_i64, "");
        return "0x%llx";
    }
    if (dt_is_fp8(dt) && !hex) {
        *v = LLVMBuildFPExt(L->b, llvm_fp8_to_f32(L, *v, dt), L->t_f64, "");
        return "%f";
    }
    if (hex) {
        int bits = dt_bits(dt);
        LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)bits);
        *v = LLVMBuildZExt(L->b, dt_is_float(dt) ? LLVMBuildBitCast(L->b, *v, it, "") : *v, L->t_i64, "");
        return arena_printf(L->f->arena, "0x%%0%dllx", bits / 4 ? bits / 4 : 1);
    }
    if (dt_is_float(dt)) {
        *v = LLVMBuildFPExt(L->b, *v, L->t_f64, ""); /* C varargs promote to double */
        return "%f";
    }
    if (LLVMGetIntTypeWidth(LLVMTypeOf(*v)) < 64)
        *v = dt_is_signed(dt) ? LLVMBuildSExt(L->b, *v, L->t_i64, "") : LLVMBuildZExt(L->b, *v, L->t_i64, "");
    return dt_is_signed(dt) ? "%lld" : "%llu";
}

/* vprintf(fmt, args): the arguments are laid out like a C struct in a local
 * buffer (allocated once in the entry block). */
static void vprintf_call(Lower *L, const char *fmt, LLVMValueRef *args, int n) {
    LLVMTypeRef ft[IR_MAX_RANK + 8];
    for (int i = 0; i < n; i++)
        ft[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef st = LLVMStructTypeInContext(L->ctx, ft, (unsigned)n, 0);
    LLVMValueRef buf = LLVMBuildAlloca(L->eb, st, "printf.args");
    for (int i = 0; i < n; i++)
        LLVMBuildStore(L->b, args[i], LLVMBuildStructGEP2(L->b, st, buf, (unsigned)i, ""));
    LLVMValueRef cargs[2] = {llvm_cstring(L, fmt), buf};
    llvm_call(L, "vprintf", L->t_i32, cargs, 2);
}

static void print_operand(Lower *L, Inst *in, int a, LLVMValueRef pid[3], const char *prefix) {
    ValueId v = in->args[a];
    Type t = L->f->values[v].type;
    const ThreadMap *tm = llvm_tm(L, v);
    LVal *x = llvm_val(L, v);
    for (int r = 0; r < x->n; r++) {
        /* a block prints each element once (from its owner); a scalar once per
         * thread, as Triton's printf in every thread does (its tests count them) */
        LLVMBasicBlockRef cont = tm ? llvm_guard_begin(L, llvm_owner(L, tm, r)) : NULL;
        Buf fmt = {0};
        LLVMValueRef args[IR_MAX_RANK + 8];
        int n = 0;
        buf_puts(&fmt, "pid (%u, %u, %u) idx (");
        for (int i = 0; i < 3; i++)
            args[n++] = pid[i];
        for (int d = 0; d < t.rank; d++) {
            buf_printf(&fmt, "%s%%%dd", d ? ", " : "", t.shape[d] > 1 ? digits(t.shape[d] - 1) : 0);
            args[n++] = llvm_index(L, tm, r, d);
        }
        buf_printf(&fmt, ")%s", prefix);
        if (in->nargs > 1)
            buf_printf(&fmt, "(operand %d) ", a);
        LLVMValueRef val = x->r[r];
        buf_puts(&fmt, print_conv(L, (DType)t.dtype, in->attr.hex, &val));
        buf_putc(&fmt, '\n');
        args[n++] = val;
        vprintf_call(L, fmt.data, args, n);
        buf_free(&fmt);
        if (cont)
            llvm_guard_end(L, cont);
    }
}

static void lower_print(Lower *L, Inst *in) {
    LLVMValueRef pid[3] = {llvm_sreg(L, "ctaid.x"), llvm_sreg(L, "ctaid.y"), llvm_sreg(L, "ctaid.z")};
    Buf pre = {0};
    print_prefix(&pre, in->attr.str, in->nargs);
    const char *prefix = arena_strdup(L->f->arena, pre.data ? pre.data : "");
    buf_free(&pre);
    if (in->nargs == 0) /* every thread, as Triton */
        vprintf_call(L, arena_printf(L->f->arena, "pid (%%u, %%u, %%u)%s\n", prefix), pid, 3);
    for (int a = 0; a < in->nargs; a++)
        print_operand(L, in, a, pid, prefix);
}

/* device_assert: if any element of the condition is false, __assertfail
 * (which traps after printing file:line, the kernel and the message). */
static void lower_assert(Lower *L, Inst *in) {
    LVal *c = llvm_val(L, in->args[0]);
    LLVMValueRef all = c->r[0];
    for (int r = 1; r < c->n; r++)
        all = LLVMBuildAnd(L->b, all, c->r[r], "");
    LLVMBasicBlockRef fail = llvm_new_bb(L, "assert.fail"), cont = llvm_new_bb(L, "assert.ok");
    LLVMBuildCondBr(L->b, all, cont, fail);
    LLVMPositionBuilderAtEnd(L->b, fail);
    const char *file = L->f->src && L->f->src->name ? L->f->src->name : "<unknown>";
    LLVMValueRef args[5] = {
        llvm_cstring(L, in->attr.str ? in->attr.str : ""), llvm_cstring(L, file),
        llvm_i32(L, in->span.line), llvm_cstring(L, L->f->name), llvm_i64(L, 1),
    };
    llvm_call(L, "__assertfail", L->t_void, args, 5);
    LLVMBuildBr(L->b, cont);
    LLVMPositionBuilderAtEnd(L->b, cont);
}

/* tl.extra.cuda: %smid and %globaltimer through NVVM's sreg intrinsics;
 * griddepcontrol (programmatic dependent launch) exists from sm_90 on and
 * is nothing before, as there is no dependent launch to wait for. */
static void lower_intrinsic(Lower *L, Inst *in) {
    const char *n = in->attr.str;
    if (!strcmp(n, "smid")) {
        set_all(L, in->results[0], llvm_sreg(L, "smid"));
    } else if (!strcmp(n, "globaltimer")) {
        set_all(L, in->results[0], llvm_call(L, "llvm.nvvm.read.ptx.sreg.globaltimer", L->t_i64, NULL, 0));
    } else if (ptx_arch_has(L->arch, ARCH_HOPPER)) {
        const char *text = !strcmp(n, "gdc_wait") ? "griddepcontrol.wait;" : "griddepcontrol.launch_dependents;";
        LLVMTypeRef fty = LLVMFunctionType(L->t_void, NULL, 0, 0);
        LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), "~{memory}", 9, 1, 0,
                                           LLVMInlineAsmDialectATT, 0);
        LLVMBuildCall2(L->b, fty, fn, NULL, 0, "");
    }
}

bool llvm_lower_simple(Lower *L, Inst *in) {
    ValueId res = in->nresults ? in->results[0] : 0;
    switch (in->op) {
    case IR_CONST:
        set_all(L, res, llvm_const(L, dtype_of(L, res), in->attr.i, in->attr.f));
        return true;
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: lower_pid(L, in); return true;
    case IR_ARANGE: lower_arange(L, in); return true;
    case IR_SPLAT: set_all(L, res, llvm_val(L, in->args[0])->r[0]); return true;
    case IR_BROADCAST:
    case IR_EXPAND_DIMS:
    case IR_RESHAPE:
    case IR_TRANS:
    case IR_MULTIPLE_OF:
    case IR_MAX_CONTIGUOUS:
    case IR_MAX_CONSTANCY:
    case IR_DESC_TILE: lower_shape(L, in); return true;
    case IR_EXTRACT: lower_extract(L, in); return true;
    case IR_ASSUME: /* a scalar i1: every register holds it */
        /* A rule sema states for the user (a descriptor's alignment): checked,
         * then known; not checked where axis analysis proves it (a :16
         * stride), since a kernel calling __assertfail has ptxas serialise
         * every wgmma (each waited for before the next issues). */
        if (in->attr.str && !(L->axis && L->axis[in->args[0]].has_value && L->axis[in->args[0]].value))
            lower_assert(L, in);
        llvm_call(L, "llvm.assume", L->t_void, &llvm_val(L, in->args[0])->r[0], 1);
        return true;
    case IR_INTRINSIC: lower_intrinsic(L, in); return true;
    case IR_PRINT: lower_print(L, in); return true;
    case IR_ASSERT: lower_assert(L, in); return true;
    case IR_BARRIER: llvm_barrier(L); return true;
    case IR_EXTERN: llvm_lower_extern(L, in); return true;
    case IR_INLINE_ASM: llvm_lower_inline_asm(L, in); return true;
    case IR_MAP_FN: llvm_lower_map_fn(L, in); return true;
    default: break;
    }
    if ((ir_ops[in->op].flags & OPF_ELEM) || in->op == IR_CMP || in->op == IR_SELECT || in->op == IR_ADDPTR ||
        in->op == IR_CAST || in->op == IR_BITCAST)
        return lower_map(L, in);
    return false;
}
