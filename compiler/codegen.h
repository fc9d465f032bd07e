/* codegen.h: the back end's boundary: laid-out tile IR -> LLVM IR -> PTX.
 * No LLVM types here; llvm*.c and ptx.c are the only files that see llvm-c. */
#ifndef TL_CODEGEN_H
#define TL_CODEGEN_H

#include "arch.h"
#include "timing.h"
#include "ir.h"

/* Lower every function of fs (after the layout pass: each block value has a
 * layout) into one LLVM module for `arch` (a record of arch.c's table), run
 * LLVM's default<O{opt_level}> pipeline (opt_level 0..3), and write the
 * textual LLVM IR (after optimisation) into llvm_ir and the PTX into ptx; either
 * may be NULL. Each function becomes a kernel named like the function.
 *
 * Sets fs[i]->shared_bytes to the dynamic shared memory the kernel needs (the
 * runtime passes it at launch; above 48 KB it must also raise
 * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES). Kernel parameters are the
 * Function's params in order: pointers as 64-bit global addresses, scalars by
 * type (i1 as an 8-bit integer), `:1` params included.
 *
 * Errors in the kernel (shared memory over the arch's limit, a block too large
 * for num_warps, an op the GPU does not support) are reported at the op's
 * source span; LLVM verifier failures are internal errors with the module
 * dumped to a file named in the message. Returns false on any error. The same
 * input gives byte-identical output. times (if not NULL) gets the lowering,
 * optimisation and emission times added.
 *
 * debug_info (llvm_debug.c): 0 none; 1 line tables (`.file` naming fs[0]'s
 * source, `.loc` of each op's line); 2 full debug info. Only the directives
 * differ: the instructions are the same at every level. */
bool codegen_module(Diag *d, Function **fs, int n, const PtxArch *arch, int opt_level, int debug_info,
                    Buf *llvm_ir, Buf *ptx, CompileTimes *times);

#endif
