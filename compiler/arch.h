/* arch.h: the GPU architectures tl compiles for, one table (arch.c) that the
 * options, the compile pipeline, codegen and the runtime all read. No LLVM. */
#ifndef TL_ARCH_H
#define TL_ARCH_H

#include <stdbool.h>
#include <stddef.h>

typedef struct PtxArch {
    const char *name;     /* "sm_70", ..., "sm_120a": the PTX .target and ptxas' -arch */
    int sm;               /* 70, 75, 80, 86, 89, 90, 100, 120 */
    const char *llvm_cpu; /* the CPU LLVM's NVPTX backend compiles for: the name, or
                           * sm_90 where LLVM 19 has none (the Blackwells) */
    int isa;              /* the PTX ISA version the PTX declares at least, major * 10 + minor */
    int max_shared;       /* dynamic shared memory a block may use, in bytes */
} PtxArch;

/* The architecture named `name` (NULL: the default, sm_90), or NULL if unknown. */
const PtxArch *ptx_arch(const char *name);
/* Can a device of compute capability cc (major * 10 + minor) run machine
 * code (a cubin) built for `a`? Within one major version, for the same or a
 * newer minor one; an arch-specific target (sm_90a) on its own device only. */
bool ptx_arch_cubin_runs_on(const PtxArch *a, int cc);
/* Can it run `a`'s PTX (the driver compiles it at load)? Every newer device;
 * an arch-specific target's only its own. A target no device here runs is
 * compile-only: tl builds its PTX and cubin, and a launch is refused. */
bool ptx_arch_ptx_runs_on(const PtxArch *a, int cc);

/* What the code generator may use, by the PTX ISA's "requires sm_XX". */
typedef enum ArchFeature {
    ARCH_AMPERE,   /* sm_80: cp.async, mma.sync m16n8k16 / bf16 / tf32 / int8, bf16 arithmetic and
                    * conversions, cvt.rn.f16x2.f32, min / max .NaN, mbarrier, L2 cache hints */
    ARCH_MMA_FP8,  /* mma.sync with fp8 operands (m16n8k32 e4m3 / e5m2) where the hardware has it:
                    * sm_89 and sm_12x. PTX allows it on sm_90 too, but Hopper runs it as fp16
                    * upcasts, so there (and on sm_80) the operands become fp16 for m16n8k16, as
                    * Triton's mmav2SupportsFp8Operands / decomposeMixedModeDotOp do; read by
                    * the layout pass (the operands' k_width) and the lowering (llvm_dot.c) */
    ARCH_FP8_CVT,  /* sm_89 and newer: cvt between fp8 and fp16 / fp32 (cvt.rn.f16x2.e4m3x2, two
                    * codes widened exactly at once; cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32), as
                    * Triton converts on Hopper; read by llvm_fp8.c */
    ARCH_HOPPER,   /* sm_90: TMA (cp.async.bulk), stmatrix, clusters, bf16 atomics */
    ARCH_WGMMA,    /* sm_90a only: wgmma, setmaxnreg */
} ArchFeature;
bool ptx_arch_has(const PtxArch *a, ArchFeature f);

/* "sm_70, sm_75, ..., sm_120a" into out (n bytes): for error messages. */
void ptx_arch_names(char *out, size_t n);

/* The shared-memory swizzle (bytes: 128, 64 or 32; 0: none fits) of a 2-D
 * tile whose rows hold `inner` elements of `elem_bytes`: the widest whose
 * span divides a row. One owner for both sides of TMA: the pipeliner lays the
 * ring out as #nvmma of this swizzle and copies it in boxes of swizzle /
 * elem_bytes columns (compiler/pipeline.c), and the launch encodes each
 * descriptor's CUtensorMap with this swizzle and that box (runtime/gpu.c). */
int arch_tma_swizzle(int elem_bytes, int inner);


#endif
