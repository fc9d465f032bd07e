/* libdevice.h: the functions of Triton's triton.language.extra.libdevice
 * (tl.extra.cuda.libdevice) that tl supports, in one table (libdevice.c).
 *
 * Sema picks a variant by the argument types and emits an `extern` op naming
 * its NVIDIA libdevice symbol (__nv_asinf); the GPU lowering calls that
 * symbol and links libdevice.10.bc (llvm_link.c); the interpreter evaluates
 * the same symbol on the host (libdevice_eval): the C library where it has the
 * function, else our own code in libdevice.c. */
#ifndef TL_LIBDEVICE_H
#define TL_LIBDEVICE_H

#include <stdbool.h>
#include <stdint.h>

/* The most arguments a libdevice function takes (norm4d). */
#define LIBDEVICE_MAX_ARGS 4

typedef union LdVal {
    double f;
    int64_t i;
} LdVal;

/* Argument and result kinds: 'f' fp32, 'd' fp64, 'i' int32, 'u' uint32,
 * 'l' int64, 'U' uint64. */
typedef struct LibdeviceVariant {
    const char *args; /* one kind per argument */
    char ret;
    const char *sym;  /* the libdevice function */
    const char *ptx;  /* else NULL: one instruction ($0 result, $1.. arguments) the GPU runs instead of
                       * calling sym (libdevice's integer -> float conversions in a rounding mode
                       * reach the H100 rounding to nearest whatever the mode) */
} LibdeviceVariant;

typedef struct LibdeviceFn {
    const char *name;          /* libdevice.NAME */
    LibdeviceVariant v[4];     /* ended by a NULL args */
    LdVal (*host)(const LdVal *a); /* the value, in double / int64, before rounding to the result type
                                    * (an fp32 result rounded once to nearest: a directed-rounding
                                    * variant returns a value fp32 holds exactly) */
} LibdeviceFn;

/* The function called NAME, or NULL. */
const LibdeviceFn *libdevice_fn(const char *name);
/* The function and variant of a symbol (for the interpreter), or NULL. */
const LibdeviceFn *libdevice_by_symbol(const char *sym, const LibdeviceVariant **var);
/* Evaluate symbol sym of f (a variant of it) on the host: floats in .f,
 * ints in .i (extended by their kind); the result before rounding. */
LdVal libdevice_eval(const LibdeviceFn *f, const char *sym, const LdVal *args);
/* The host function libdevice_eval calls for sym (look it up once per op),
 * or NULL. */
typedef LdVal (*LibdeviceHost)(const LdVal *args);
LibdeviceHost libdevice_host(const LibdeviceFn *f, const char *sym);
/* Where libdevice.10.bc is: $TL_LIBDEVICE, else $CUDA_HOME / $CUDA_PATH, else
 * the CUDA toolkit's usual places; NULL if none is readable. */
const char *libdevice_path(void);

#endif
