/* compile.h: the pass pipeline, written out in compile.c. */
#ifndef TL_COMPILE_H
#define TL_COMPILE_H

#include "options.h"

typedef struct CompileHooks {
    const char *dump_after; /* pass name whose output IR is appended to dump, or NULL */
    Buf *dump;
    Buf *ir_gpu;            /* if set: the IR with layouts (--emit=ir-gpu, TL_DUMP) */
    Buf *llvm;              /* if set: the LLVM IR (--emit=llvm, TL_DUMP) */
} CompileHooks;

/* Target-independent part: specialise one kernel of a parsed module into
 * verified typed tile IR. Returns NULL with diagnostics in d. */
Function *compile_kernel(Arena *a, Diag *d, const Source *src, const Node *module,
                         const CompileOptions *o, const CompileHooks *hooks);

/* GPU part, for kernels from compile_kernel: axis analysis and the layout
 * pass on each, then lowering of all of them into one module of PTX for arch
 * (NULL = sm_90). Sets each Function's shared_bytes. */
bool compile_gpu(Diag *d, Function **fs, int n, const char *arch, const CompileHooks *hooks, Buf *ptx);

/* Run the named passes (comma-separated, as --dump-after names them) on one
 * verified function, verifying after each: `tlc --ir-in FILE --passes=...`
 * tests a pass alone on IR text. */
bool compile_run_passes(Diag *d, Function *f, const char *list, const char *arch, const CompileHooks *hooks);

/* Names of the passes, in pipeline order, for --dump-after. */
extern const char *const compile_pass_names[];

#endif
