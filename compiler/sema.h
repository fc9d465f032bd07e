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
    int arch;              /* --arch's SM number (90), 0 when not given */
    bool tensormaps;       /* a 2-D tl.make_tensor_descriptor makes its TMA map in the kernel
                              (tensormap_create): an arch with wgmma, and a launch that passes
                              the global scratch (the C API; tlc --auto-tma on) */
    int autotune_config;   /* -1: none; else index into @triton.autotune configs: its
                              constexprs, num_warps and num_stages apply */
    bool runtime_signature; /* the signature lists only the runtime (non-constexpr)
                              parameters, in order; every constexpr then comes from
                              defines, the autotune config or its default (the C API
                              builds such a signature from the launch arguments) */
    /* @triton.heuristics at a launch (the C API, sema_heur.c): the values of
     * the runtime scalar parameters the lambdas may read ("17", "2.5",
     * "True"), and the heuristics' results already computed for the variant
     * being compiled (then used as they are, not evaluated again) */
    const SemaDefine *arg_values, *heuristics;
    int narg_values, nheuristics;
} SemaOptions;

/* What a kernel expects, before any launch: sema_kernel_info() runs the
 * kernel lookup and the specialisation of its parameters (signature, -D,
 * autotune config, defaults) without compiling the body. The C API asks this
 * instead of guessing from the syntax which parameters are constexprs. */
typedef struct KernelParam {
    const char *name;
    bool constexpr_;   /* annotated tl.constexpr (in any spelling sema accepts) */
    bool runtime;      /* passed at launch; otherwise bound at compile time */
    Type type;         /* runtime, with a signature entry: its type; DT_VOID: from the launch */
    int hint;          /* the entry's :16 or :1, else 0 */
    const char *value; /* bound at compile time: repr() of its value */
    /* a `tensordesc<fp16[64, 32]>` entry: its rank and block shape (type is
     * then the element pointer type); 0 for other parameters */
    int desc_rank;
    int32_t desc_block[IR_MAX_RANK];
} KernelParam;

typedef struct KernelInfo {
    const char *name;
    const Node *def;      /* the kernel's N_FUNCDEF */
    KernelParam *params;  /* every named parameter, in order (**meta excluded) */
    int nparams, nruntime;
    int num_warps, num_stages;
    int autotune_config;  /* the config used, or -1 */
    int num_configs;      /* configs of its @triton.autotune, 0 without one */
    /* @triton.autotune without a config chosen (no --autotune-config): the
     * launch tunes. The parameters above are then config 0's. */
    bool tuned;
    const char **key, **reset_to_zero, **restore_value; /* parameter names */
    int nkey, nreset, nrestore;
    int warmup_ms, rep_ms;  /* do_bench's budget per config: 25 and 100 by default */
    /* @triton.heuristics: the names they set, in order; heur_per_launch when
     * one reads a runtime scalar, so its value (params[i].value is then NULL
     * here) and the variant are decided at each launch */
    const char **heur_names;
    int nheur;
    bool heur_per_launch;
} KernelInfo;

/* Fill info (allocated in arena). Runtime parameters without a signature
 * entry are allowed here: the launch types them. False with diagnostics. */
bool sema_kernel_info(Arena *arena, Diag *d, const Source *src, const Node *module, const SemaOptions *opt,
                      KernelInfo *info);

/* @triton.heuristics at a launch whose runtime scalars opt->arg_values gives
 * (opt->signature: the launch signature): "NAME=VALUE\n" for each heuristic
 * into results (repr() values, in order), and the runtime parameters the
 * lambdas read (*reads, arena). False with diagnostics. */
bool sema_heuristic_values(Arena *arena, Diag *d, const Source *src, const Node *module, const SemaOptions *opt,
                           Buf *results, const char ***reads, int *nreads);

/* Names of every @triton.jit function in a parsed module, in file order
 * (helpers are @jit too; callers pick with --kernel). */
int sema_kernel_names(const Node *module, const char **names, int max);

/* Compile one kernel. Returns NULL (with diagnostics in d) on error. The IR is
 * allocated in arena and has been verified. */
Function *sema_kernel(Arena *arena, Diag *d, const Source *src, const Node *module,
                      const SemaOptions *opt);

#endif
