/* aot.h: ahead-of-time C source for compiled kernels (tlc --emit=c).
 *
 * The driver compiles every specialisation of a kernel for every
 * architecture asked for; this stage plans which specialisations to build
 * (aot_plan) and writes them, with a launcher, as one C file and its header
 * (aot_emit). It sees no AST and no LLVM: only the data below. docs/aot.md
 * describes the generated files. */
#ifndef TL_AOT_H
#define TL_AOT_H

#include "ir.h"

/* Above this many, a kernel gets three specialisations instead of all of
 * them: every hint, pointers aligned only, none (see aot_plan). */
enum { AOT_MAX_VARIANTS = 16 };

/* One compiled image: a specialisation for one architecture. */
typedef struct AotImage {
    const char *arch;  /* "sm_90a": ptx_arch's name */
    int sm;            /* 90 */
    bool cubin;        /* data is a cubin for arch, else PTX text */
    const char *data;  /* the bytes (PTX: text without a NUL) */
    size_t len;
    const char *symbol; /* the kernel's name in the image */
    int num_warps;     /* block = 32 * num_warps threads */
    int shared_bytes;  /* dynamic shared memory per block */
} AotImage;

/* One specialisation: what the user's signature says, with hints added. */
typedef struct AotVariant {
    const char *signature; /* full signature text to compile it with */
    int *hints;            /* per runtime parameter: 0 none, 16 (aligned or divisible by 16), 1 (== 1) */
    int nhints;            /* how many hints are set: the launcher tries the most specialised first */
    AotImage *images;      /* one per architecture, in the order of the arch list; filled by the driver */
    bool failed;           /* did not compile: left out of the output */
} AotVariant;

typedef struct AotParam {
    const char *name;
    Type type;             /* scalar or pointer (ir.h) */
} AotParam;

typedef struct AotKernel {
    const char *name;
    const AotParam *params; /* the runtime parameters, in launch order */
    int nparams;
    const char *signature;  /* the user's, for the comment in the header */
    AotVariant *variants;   /* most specialised first */
    int nvariants;
    int narchs;
} AotKernel;

/* The specialisations of a kernel that `signature` compiled into `base`: for
 * every runtime parameter without a hint in the signature, Triton's choices
 * (a pointer 16-byte aligned or not; an integer other than i1 equal to 1,
 * divisible by 16, or neither), all combinations when there are at most
 * AOT_MAX_VARIANTS of them, else the three listed above. Hints the user
 * wrote are kept in every variant. Sorted most specialised first; the last
 * is the user's signature itself. Returns the count, or -1 with a reason in
 * err (the signature's types do not line up with base's parameters). */
int aot_plan(Arena *a, const char *signature, const Function *base, AotVariant **out, Buf *err);

/* Write the C source into c and its header into h for the kernels ks (each
 * with its variants' images filled). header_name is the header's file name
 * as the source #includes it; source_name the .tl file, for comments. */
void aot_emit(const AotKernel *ks, int nk, const char *header_name, const char *source_name, Buf *c, Buf *h);

#endif
