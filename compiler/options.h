/* options.h: compile options, spelled the same in `tlc` flags and in the C API's
 * option strings ("--kernel matmul -D BLOCK=64 --num-warps 8"). One table of
 * flags serves both, so they cannot drift apart. */
#ifndef TL_OPTIONS_H
#define TL_OPTIONS_H

#include "arch.h"
#include "sema.h"

enum { OPTIONS_MAX_DEFINES = 64 };

typedef struct CompileOptions {
    const char *kernel;
    const char *signature;
    const PtxArch *arch;     /* --arch; NULL: the device's (API) or sm_90 (tlc) */
    int opt_level;           /* LLVM optimisation level, 0..3 */
    int num_warps;           /* 0 = default (autotune config or 4) */
    int num_stages;          /* 0 = default (autotune config or 3) */
    int autotune_config;     /* -1 = none */
    int max_errors;          /* 0 = default */
    int auto_tma;            /* --auto-tma on|off: 1 / 0; -1: the default, on for the C API
                                (whose launches pass the maps tma.c asks for), off for tlc */
    int warp_specialize;     /* --warp-specialize on|off: 1 / 0; -1: the default (on) */
    int fp_fusion;           /* --fp-fusion on|off: 1 / 0; -1: the default (on) */
    int maxnreg;             /* --maxnreg N: the kernel's register cap; 0: none */
    int debug_info;          /* 0 none (--no-lineinfo), 1 line tables (--lineinfo), 2 full (-g);
                                -1: the default, line tables in the C API (unless
                                TL_DISABLE_LINE_INFO), none in tlc */
    bool runtime_signature;  /* the signature lists the runtime parameters only (API launches) */
    SemaDefine defines[OPTIONS_MAX_DEFINES];
    int ndefines;
    /* @triton.heuristics at a launch (the API; SemaOptions says more) */
    const SemaDefine *arg_values, *heuristics;
    int narg_values, nheuristics;
} CompileOptions;

typedef struct OptionSpec {
    const char *name;  /* long name without dashes; one letter ("D", "O"): a short flag */
    const char *metavar; /* NULL: takes no argument */
    const char *help;
    long lo, hi;       /* integer options: the valid range */
    bool pow2;         /* ... and only powers of two */
} OptionSpec;

extern const OptionSpec option_specs[];
extern const int option_nspecs;

void options_init(CompileOptions *o);
/* Apply one flag by name ("kernel", "D", ...); arg is NULL for a flag that
 * takes none (its spec has no metavar). On a bad value, writes one line
 * to err and returns false. Strings are copied into the arena. */
bool options_set(CompileOptions *o, Arena *a, const char *name, const char *arg, Buf *err);
/* Is v valid for the integer option `name` ("num-warps")? If not, err gets
 * "must be a power of two from 1 to 32, got 3" for the caller to prefix. */
bool options_check_int(const char *name, long v, Buf *err);
/* Split a string like a shell would (quotes, backslashes) and apply every
 * flag in it. Unknown flags and stray words are errors. */
bool options_parse_string(CompileOptions *o, Arena *a, const char *str, Buf *err);
/* Split a Triton AOT signature at the commas outside quotes and brackets,
 * each entry trimmed ("a," has two entries, the second empty). */
int options_split_signature(Arena *a, const char *sig, const char ***out);
/* Copy into the sema view. */
SemaOptions options_to_sema(const CompileOptions *o);

#endif
