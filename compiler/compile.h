/* compile.h: the pass pipeline, written out in compile.c. It is the one door
 * into the compiler: tlc and the C API both call these, so the same source
 * and options give the same IR, the same diagnostics and the same PTX. */
#ifndef TL_COMPILE_H
#define TL_COMPILE_H

#include "arch.h"
#include "timing.h"
#include "options.h"

typedef struct CompileHooks {
    const char *dump_after; /* pass name whose output IR is appended to dump, or NULL */
    Buf *dump;
    Buf *ir_gpu;            /* if set: the IR with layouts (--emit=ir-gpu, TL_DUMP) */
    Buf *llvm;              /* if set: the LLVM IR (--emit=llvm, TL_DUMP) */
    CompileTimes *times;    /* if set: each stage's time is added (--time-passes, the API's stats) */
} CompileHooks;

/* How far compile_gpu goes: the laid-out IR (--emit=ir-gpu) or down to PTX. */
typedef enum CompileStop { COMPILE_TO_IR_GPU, COMPILE_TO_PTX } CompileStop;

/* Parse a source file. NULL with diagnostics in d. */
Node *compile_parse(Arena *a, Diag *d, const Source *src, CompileTimes *times);

/* What the kernel chosen by o (--kernel, or the one whose parameters are all
 * determined) expects: its runtime parameters, constexpr values, config. */
bool compile_kernel_info(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o,
                         KernelInfo *info, CompileTimes *times);

/* Target-independent part: specialise one kernel of a parsed module into
 * verified typed tile IR. Returns NULL with diagnostics in d. */
Function *compile_kernel(Arena *a, Diag *d, const Source *src, const Node *module,
                         const CompileOptions *o, const CompileHooks *hooks);

/* GPU part, for kernels from compile_kernel: axis analysis and the layout
 * pass on each (verified after each pass), then, with COMPILE_TO_PTX,
 * lowering of all of them into one module of PTX for target at opt_level.
 * Sets each Function's shared_bytes. debug_info: 0 none, 1 line tables
 * (-lineinfo), 2 full (-g); see codegen_module. A function parsed from IR
 * text (tlc --ir-in) continues where its text stands: with layouts at
 * smem-alloc, with shared offsets at barriers. */
bool compile_gpu(Diag *d, Function **fs, int n, const PtxArch *target, int opt_level, int debug_info,
                 CompileStop stop, const CompileHooks *hooks, Buf *ptx);


/* Run the named passes (comma-separated, as --dump-after names them) on one
 * verified function, verifying after each: `tlc --ir-in FILE --passes=...`
 * tests a pass alone on IR text. target NULL: sm_90. */
bool compile_run_passes(Diag *d, Function *f, const char *list, const PtxArch *target, const CompileHooks *hooks);
/* TL_INTERPRET_PASSES: the passes of `list` (comma-separated, each one before
 * the layout pass, whose IR the interpreter cannot run) on f, so that the
 * interpreter runs a pass's output: how a pass is tested by execution. */
bool compile_interp_passes(Diag *d, Function *f, const char *list);

/* For the interpreter (the CPU device), which runs compile_kernel's IR:
 * would the GPU take this kernel? A second specialisation (its diagnostics
 * dropped: the first one's were shown) goes through the layout pass, the one
 * owner of the per-thread register limit (LAYOUT_MAX_REGS), so a block the
 * GPU refuses is refused on the CPU too, with the GPU's error in d. */
bool compile_check_gpu_limits(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o);

/* @triton.heuristics at a launch (o->arg_values: its runtime scalars; o->signature:
 * its signature): "NAME=VALUE\n" for each into results, and the runtime
 * parameters the lambdas read (*reads, arena). False with diagnostics. */
bool compile_heuristic_values(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o,
                              Buf *results, const char ***reads, int *nreads);
/* Names of every @triton.jit function of a parsed module, in file order. */
int compile_kernel_names(const Node *module, const char **names, int max);

/* Is `name` a pass --dump-after can name (sema, or one of the table's)? */
bool compile_pass_exists(const char *name);
/* The pass names in pipeline order, comma-separated ("sema, combine, ..."). */
void compile_pass_list(Buf *out);

#endif
