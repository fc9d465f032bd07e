/* sema.h: semantic analysis: AST of one kernel + specialisation -> typed tile IR. */
#ifndef TL_SEMA_H
#define TL_SEMA_H

#include "ast.h"
#include "ir.h"

typedef struct SemaDefine {
    const char *name;  /* constexpr parameter (or **meta key) */
    const char *value; /* literal as written: 128, 1.5, 'relu', "relu", True, None, or the
                          name of a @jit function in the file (leaky_relu) */
} SemaDefine;

typedef struct SemaOptions {
    const char *kernel;    /* kernel to compile; NULL: the only @jit kernel whose
                              parameters are all determined (or an error naming the choices) */
    const char *signature; /* Triton AOT format, one entry per parameter:
                              "*fp16:16, i32, i32:16, 128, 'relu'"; NULL = derive from defines +
                              defaults, with runtime params typed by the launch */
    const SemaDefine *defines; /* -D NAME=VALUE, override signature literals and defaults */
    int ndefines;
    int num_warps, num_stages; /* 0: from the autotune config picked, else 4 and 3 */
    int autotune_config;   /* -1: none; else index into @triton.autotune configs: its
                              constexprs, num_warps and num_stages apply */
    bool runtime_signature; /* the signature lists only the runtime (non-constexpr)
                              parameters, in order; every constexpr then comes from
                              defines, the autotune config or its default (the C API
                              builds such a signature from the launch arguments) */
} SemaOptions;

/* Names of every @triton.jit function in a parsed module, in file order
 * (helpers are @jit too; callers pick with --kernel). */
int sema_kernel_names(const Node *module, const char **names, int max);

/* Compile one kernel. Returns NULL (with diagnostics in d) on error. The IR is
 * allocated in arena and has been verified. */
Function *sema_kernel(Arena *arena, Diag *d, const Source *src, const Node *module,
                      const SemaOptions *opt);

#endif
