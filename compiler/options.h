/* options.h: compile options, spelled the same in `tlc` flags and in the C API's
 * option strings ("--kernel matmul -D BLOCK=64 --num-warps 8"). One table of
 * flags serves both, so they cannot drift apart. */
#ifndef TL_OPTIONS_H
#define TL_OPTIONS_H

#include "sema.h"

enum { OPTIONS_MAX_DEFINES = 64 };

typedef struct CompileOptions {
    const char *kernel;
    const char *signature;
    const char *arch;        /* sm_80 .. sm_90a; NULL = sm_90 */
    int num_warps;           /* 0 = default (autotune config or 4) */
    int num_stages;          /* 0 = default (autotune config or 3) */
    int autotune_config;     /* -1 = none */
    int max_errors;          /* 0 = default */
    int opt_level;           /* LLVM optimisation level 0..3 (-O); options_init sets 3 */
    SemaDefine defines[OPTIONS_MAX_DEFINES];
    int ndefines;
} CompileOptions;

typedef struct OptionSpec {
    const char *name;  /* long name without dashes; one letter ("D", "O"): a short flag */
    const char *metavar; /* NULL: takes no argument */
    const char *help;
} OptionSpec;

extern const OptionSpec option_specs[];
extern const int option_nspecs;

void options_init(CompileOptions *o);
/* Apply one flag by name ("kernel", "D", ...). On a bad value, writes one line
 * to err and returns false. Strings are copied into the arena. */
bool options_set(CompileOptions *o, Arena *a, const char *name, const char *arg, Buf *err);
/* Split a string like a shell would (quotes, backslashes) and apply every
 * flag in it. Unknown flags and stray words are errors. */
bool options_parse_string(CompileOptions *o, Arena *a, const char *str, Buf *err);
/* Copy into the sema view. */
SemaOptions options_to_sema(const CompileOptions *o);

#endif
