/* ptx.h: PTX emission through LLVM's NVPTX backend (the only stage besides the
 * LLVM lowering that includes llvm-c; this header itself stays LLVM-free so the
 * driver and the runtime can include it). */
#ifndef TL_PTX_H
#define TL_PTX_H

/* A GPU architecture tl compiles for. */
typedef struct PtxArch {
    const char *name;     /* "sm_80", ..., "sm_90a": LLVM's CPU name and ptxas' -arch */
    int sm;               /* 80, 86, 89, 90 */
    const char *features; /* PTX ISA version LLVM emits: "+ptx70" ... */
    int max_shared;       /* dynamic shared memory a block may use, in bytes */
} PtxArch;

/* The architecture named `name` (NULL: the default, sm_90), or NULL if unknown. */
const PtxArch *ptx_arch(const char *name);
/* "sm_80, sm_86, sm_89, sm_90, sm_90a": for error messages. */
const char *ptx_arch_names(void);

/* "19.1.7": the LLVM version linked into libtl. */
const char *ptx_llvm_version(void);
/* True when the NVPTX target is registered and can create a target machine. */
int ptx_target_available(void);

#endif
