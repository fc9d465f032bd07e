/* fp8.h: the 8-bit float formats, as Triton names them, and their exact
 * conversions (compiler/fp8.c). The interpreter and the constant folding of
 * the GPU lowering call these; llvm_fp8.c emits the same algorithm in LLVM IR.
 *
 *   format      Triton             bits       bias  largest finite   inf  NaN
 *   f8e4nv      tl.float8e4nv      s eeee mmm   7   448 (0x7E)       no   s 1111 111
 *   f8e5        tl.float8e5        s eeeee mm  15   57344 (0x7B)     yes  s 11111 mm (mm != 0)
 *   f8e4b15     tl.float8e4b15     s eeee mmm  15   1.875 (0x7F)     no   no
 *
 * Conversion to fp8 rounds to nearest, ties to even, and saturates as PTX's
 * cvt.rn.satfinite does: a value (or infinity) beyond the largest finite
 * value becomes that value with its sign; NaN becomes 0x7F (NaN for f8e4nv
 * and f8e5; f8e4b15 has none, so NaN gives its largest value). Subnormals are
 * kept. Conversion from fp8 is exact (to f16, bf16, f32 or f64). */
#ifndef TL_FP8_H
#define TL_FP8_H

#include <stdint.h>

#include "ir.h"

typedef struct Fp8Format {
    int ebits, mbits, bias;
    uint8_t max_bits;  /* the largest finite value's bits */
    uint8_t nan_bits;  /* what NaN converts to */
    int has_inf;       /* f8e5: exponent all ones, mantissa 0 */
    int nan_all_ones;  /* f8e4nv: s 1111 111 is NaN */
} Fp8Format;

const Fp8Format *fp8_format(DType dt); /* NULL if dt is not an fp8 type */
uint8_t fp8_from_double(DType dt, double x);
double fp8_to_double(DType dt, uint8_t bits);

#endif
