/* llvm_fp8.c: conversions between the fp8 formats (compiler/fp8.h) and fp32
 * in LLVM IR, on the bits, for every architecture: the same rounding as
 * fp8.c (to nearest, ties to even; saturating to the largest finite value;
 * NaN to 0x7F) so the GPU and the interpreter agree bit for bit.
 *
 * fp8 -> fp32 is exact: a normal fp8 value moves its exponent and mantissa
 * into fp32's fields (mag << (23 - mbits), plus the bias difference), a
 * subnormal one is its integer mantissa times the subnormal quantum.
 *
 * fp32 -> fp8: at or above fp8's smallest normal, round the fp32 bits to
 * mbits mantissa bits (add half an ulp minus one plus the kept lsb, shift:
 * a carry moves into the exponent by itself) and rebias the exponent;
 * below it, scale |x| by 2^(bias - 1 + mbits), exactly, and round to an
 * integer with rint (ties to even): that integer is the subnormal's
 * mantissa, or 1 << mbits when it rounds up to the smallest normal, which is
 * that normal's encoding too. Codes above the largest finite one (fp8e5's
 * infinity, fp8e4nv's NaN, or past the top binade) saturate.
 *
 * On sm_89+ fp32 -> e4m3 / e5m2 is cvt.rn.satfinite, the same rounding in
 * one instruction; fp8 -> fp16 (and so fp32) is one instruction or none where it can be:
 * e5m2 is fp16's top byte on every arch (infinities, NaNs, subnormals
 * included), and sm_89+ widens two e4m3 codes at once (cvt.rn.f16x2.e4m3x2,
 * as Triton does on Hopper): the same values as the bit path, in a dozenth of
 * the instructions, which matters where an mma.sync's fp8 operands become
 * fp16 element by element (llvm_dot.c). */
#include <math.h>

#include "fp8.h"
#include "llvm_int.h"

static LLVMValueRef c32(Lower *L, uint32_t x) { return LLVMConstInt(L->t_i32, x, 0); }

static bool f16_direct(Lower *L, DType dt) {
    return dt == DT_F8E5 || (dt == DT_F8E4NV && ptx_arch_has(L->arch, ARCH_FP8_CVT));
}

/* Two codes (i8; hi NULL: a zero code) as f16x2 bits (i32, lo in the low
 * half), where f16_direct. */
static LLVMValueRef f16x2_direct(Lower *L, LLVMValueRef lo, LLVMValueRef hi, DType dt) {
    LLVMBuilderRef b = L->b;
    LLVMValueRef x = LLVMBuildZExt(b, lo, L->t_i32, "");
    if (hi)
        x = LLVMBuildOr(b, x, LLVMBuildShl(b, LLVMBuildZExt(b, hi, L->t_i32, ""), c32(L, 8), ""), "");
    if (dt == DT_F8E5) /* each byte to the top of its half */
        return LLVMBuildOr(b, LLVMBuildShl(b, LLVMBuildAnd(b, x, c32(L, 0xFF), ""), c32(L, 8), ""),
                           LLVMBuildShl(b, LLVMBuildAnd(b, x, c32(L, 0xFF00), ""), c32(L, 16), ""), "");
    LLVMValueRef w = LLVMBuildTrunc(b, x, L->t_i16, "");
    return llvm_asm(L, "cvt.rn.f16x2.e4m3x2 $0, $1;", "=r,h", L->t_i32, &w, 1, true);
}

LLVMValueRef llvm_fp8_to_f16(Lower *L, LLVMValueRef v, DType dt) {
    if (!f16_direct(L, dt)) /* exact: every fp8 value is an fp16 one */
        return LLVMBuildFPTrunc(L->b, llvm_fp8_to_f32(L, v, dt), L->t_f16, "");
    LLVMValueRef h = LLVMBuildTrunc(L->b, f16x2_direct(L, v, NULL, dt), L->t_i16, "");
    return LLVMBuildBitCast(L->b, h, L->t_f16, "");
}

LLVMValueRef llvm_fp8x2_to_f16x2(Lower *L, LLVMValueRef lo, LLVMValueRef hi, DType dt) {
    if (f16_direct(L, dt))
        return f16x2_direct(L, lo, hi, dt);
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(L->t_f16, 2));
    v = LLVMBuildInsertElement(L->b, v, llvm_fp8_to_f16(L, lo, dt), c32(L, 0), "");
    v = LLVMBuildInsertElement(L->b, v, llvm_fp8_to_f16(L, hi, dt), c32(L, 1), "");
    return LLVMBuildBitCast(L->b, v, L->t_i32, "");
}

LLVMValueRef llvm_fp8_to_f32(Lower *L, LLVMValueRef v, DType dt) {
    if (f16_direct(L, dt))
        return LLVMBuildFPExt(L->b, llvm_fp8_to_f16(L, v, dt), L->t_f32, "");
    const Fp8Format *f = fp8_format(dt);
    LLVMBuilderRef b = L->b;
    LLVMValueRef x = LLVMBuildZExt(b, v, L->t_i32, "");
    LLVMValueRef sign = LLVMBuildShl(b, LLVMBuildAnd(b, x, c32(L, 0x80), ""), c32(L, 24), "");
    LLVMValueRef mag = LLVMBuildAnd(b, x, c32(L, 0x7F), "");
    LLVMValueRef normal = LLVMBuildAdd(b, LLVMBuildShl(b, mag, c32(L, (uint32_t)(23 - f->mbits)), ""),
                                       c32(L, (uint32_t)(127 - f->bias) << 23), "");
    LLVMValueRef subf = LLVMBuildFMul(b, LLVMBuildUIToFP(b, mag, L->t_f32, ""),
                                      LLVMConstReal(L->t_f32, ldexp(1.0, 1 - f->bias - f->mbits)), "");
    LLVMValueRef is_sub = LLVMBuildICmp(b, LLVMIntULT, mag, c32(L, 1u << f->mbits), "");
    LLVMValueRef bits = LLVMBuildSelect(b, is_sub, LLVMBuildBitCast(b, subf, L->t_i32, ""), normal, "");
    if (f->nan_all_ones) {
        LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntEQ, mag, c32(L, 0x7F), "");
        bits = LLVMBuildSelect(b, nan, c32(L, 0x7FC00000), bits, "");
    }
    if (f->has_inf) { /* exponent all ones: infinity (mantissa 0) or NaN */
        uint32_t inf = ((1u << f->ebits) - 1) << f->mbits;
        LLVMValueRef special = LLVMBuildICmp(b, LLVMIntUGE, mag, c32(L, inf), "");
        LLVMValueRef is_inf = LLVMBuildICmp(b, LLVMIntEQ, mag, c32(L, inf), "");
        LLVMValueRef sv = LLVMBuildSelect(b, is_inf, c32(L, 0x7F800000), c32(L, 0x7FC00000), "");
        bits = LLVMBuildSelect(b, special, sv, bits, "");
    }
    return LLVMBuildBitCast(b, LLVMBuildOr(b, bits, sign, ""), L->t_f32, "");
}

LLVMValueRef llvm_f32_to_fp8(Lower *L, LLVMValueRef v, DType dt) {
    LLVMBuilderRef b = L->b;
    if (dt_is_nv_fp8(dt) && ptx_arch_has(L->arch, ARCH_FP8_CVT)) {
        /* sm_89+: the same rounding in one instruction (Triton's on Hopper):
         * to nearest even, saturating to the largest finite magnitude, NaN
         * to 0x7F; the code of b (here both) lands in the low byte */
        const char *t = dt == DT_F8E5 ? "cvt.rn.satfinite.e5m2x2.f32 $0, $1, $1;"
                                      : "cvt.rn.satfinite.e4m3x2.f32 $0, $1, $1;";
        return LLVMBuildTrunc(b, llvm_asm(L, t, "=h,f", L->t_i16, &v, 1, true), L->t_i8, "");
    }
    const Fp8Format *f = fp8_format(dt);
    uint32_t sh = (uint32_t)(23 - f->mbits);
    LLVMValueRef u = LLVMBuildBitCast(b, v, L->t_i32, "");
    LLVMValueRef sign = LLVMBuildAnd(b, LLVMBuildLShr(b, u, c32(L, 24), ""), c32(L, 0x80), "");
    LLVMValueRef a = LLVMBuildAnd(b, u, c32(L, 0x7FFFFFFF), "");
    /* normal: round the mantissa to mbits bits, ties to even, then rebias */
    LLVMValueRef lsb = LLVMBuildAnd(b, LLVMBuildLShr(b, a, c32(L, sh), ""), c32(L, 1), "");
    LLVMValueRef r = LLVMBuildAdd(b, LLVMBuildAdd(b, a, c32(L, (1u << (sh - 1)) - 1), ""), lsb, "");
    r = LLVMBuildLShr(b, r, c32(L, sh), "");
    LLVMValueRef normal = LLVMBuildSub(b, r, c32(L, (uint32_t)(127 - f->bias) << f->mbits), "");
    /* subnormal: the mantissa is rint(|x| * 2^(bias - 1 + mbits)) */
    LLVMValueRef af = LLVMBuildBitCast(b, a, L->t_f32, "");
    LLVMValueRef scaled = LLVMBuildFMul(b, af, LLVMConstReal(L->t_f32, ldexp(1.0, f->bias - 1 + f->mbits)), "");
    LLVMValueRef q = llvm_call(L, "llvm.rint.f32", L->t_f32, &scaled, 1);
    LLVMValueRef sub = LLVMBuildFPToUI(b, q, L->t_i32, "");
    LLVMValueRef is_sub = LLVMBuildICmp(b, LLVMIntULT, a, c32(L, (uint32_t)(127 + 1 - f->bias) << 23), "");
    LLVMValueRef res = LLVMBuildSelect(b, is_sub, sub, normal, "");
    LLVMValueRef over = LLVMBuildICmp(b, LLVMIntUGT, res, c32(L, f->max_bits), "");
    res = LLVMBuildOr(b, LLVMBuildSelect(b, over, c32(L, f->max_bits), res, ""), sign, "");
    LLVMValueRef nan = LLVMBuildICmp(b, LLVMIntUGT, a, c32(L, 0x7F800000), "");
    res = LLVMBuildSelect(b, nan, c32(L, f->nan_bits), res, "");
    return LLVMBuildTrunc(b, res, L->t_i8, "");
}
