/* api_int.h: the API's objects, shared by api.c (the tl_* entry points),
 * kernel.c (kernels, argument checks, variants, launches), autotune.c,
 * heuristics.c and gpu.c (the CUDA device). Not installed. */
#ifndef TL_API_INT_H
#define TL_API_INT_H

#include "tl.h"

#include <pthread.h>

#include "ast.h"
#include "compile.h"
#include "cuda.h"

struct TlContext {
    TlDeviceKind kind;
    Buf err;            /* message of the last failed call */
    TlPrintFn print;
    void *print_user;
    /* CUDA device */
    const CudaApi *cu;
    CUdevice dev;
    CUcontext cuctx;
    bool own_ctx;       /* cuctx is the primary context tl retained (not the caller's) */
    CUstream stream;    /* tl_context_set_stream; NULL: the legacy default stream */
    CUmemoryPool scratch_pool; /* kernels' global scratch (gpu.c scratch_pool); NULL: none yet, */
    bool scratch_pool_tried;   /* or the driver's default pool where making one failed */
    char name[128];
    char arch[16];      /* sm_80 .. sm_90a: the device's own target (gpu_device_arch) */
    int cc;             /* the device's compute capability, major * 10 + minor */
    int max_shared;     /* opt-in dynamic shared memory per block */
    int num_sms;        /* streaming multiprocessors (tl_context_num_sms) */
    int regs_per_sm, threads_per_sm; /* what an SM holds (gpu.c raise_occupancy) */
    /* Every live buffer: the CPU device's launch reaches one through an
     * address stored in memory (launch_cpu registers them all), and
     * tl_context_destroy frees what is left (api.c orphan) */
    struct TlBuffer *cpu_buffers;
    struct TlKernel *kernels; /* every live kernel the user made, for the same reason */
    int busy;           /* launches in progress: their callbacks run inside */
    bool destroy_refused; /* a callback destroyed the context or a buffer: kept, and the launch fails */
    unsigned max_grid[3];
    TlStats stats;
    CompileTimes times; /* stats by stage */
    /* Guards err and stats while autotuning compiles configs on several
     * threads (the only time tl uses threads). */
    pthread_mutex_t lock;
};

struct TlBuffer {
    TlContext *ctx;
    TlDType dtype;
    size_t count, bytes;
    void *host;         /* CPU device: the memory itself */
    CUdeviceptr dptr;   /* CUDA device */
    struct TlBuffer *prev, *next; /* ctx->cpu_buffers */
};

/* Variant.dtypes of a tensor map's parameter (Param.tensormap): 128 bytes. */
enum { GPU_PARAM_TMAP = DT__COUNT };
/* Or-ed into Variant.dtypes: an integer the tma pass took as >= 0
 * (Param.nonneg), as >= 2 (Param.above1). */
enum { GPU_PARAM_NONNEG = 0x80, GPU_PARAM_ABOVE1 = 0x40, GPU_PARAM_FLAGS = 0xc0 };

/* An automatic map's source: the parameters tma.c named, and the element's TlDType. */
typedef struct AutoMapSource {
    TmaSource tma;
    int32_t dtype;
} AutoMapSource;

typedef struct Variant {
    char *key;          /* runtime signature, e.g. "*fp32:16, *fp32:16, i32" */
    Arena arena;
    Function *fn;       /* its IR; NULL for a GPU variant loaded from the disk cache */
    /* CUDA device: what a launch needs, from fn or from the cache entry */
    const char *func_name;
    int nparams, num_warps, shared_bytes; /* num_warps: what a launch starts (ir_launch_warps) */
    int scratch;        /* global scratch bytes per program (Function.global_scratch): then the
                           last parameter, after the automatic maps, is its pointer */
    uint8_t *dtypes;    /* each parameter's DType, or GPU_PARAM_TMAP; | GPU_PARAM_NONNEG, ABOVE1 */
    /* the maps the tma pass asked for (Param.tma): the last nauto parameters,
     * which the launch encodes from the others (gpu_encode_auto_maps) */
    int nauto;
    AutoMapSource *auto_src; /* where each map's tensor comes from (Param.tma), cached as bytes */
    void *auto_maps;    /* 128 bytes each, 64-aligned */
    int64_t (*auto_last)[4]; /* the base, rows, cols, stride each was last encoded for */
    CUmodule mod;       /* CUDA device: the loaded cubin */
    CUfunction func;
    uint64_t *slots;    /* CUDA device: one 8-byte slot per parameter, reused by every */
    void **params;      /* launch (the driver copies them at cuLaunchKernel) */
    struct Variant *next;
} Variant;

struct TlKernel {
    TlContext *ctx;     /* NULL once the context is destroyed first (api.c orphan) */
    struct TlKernel *parent; /* a config's tuned kernel, which owns it */
    struct TlKernel *ctx_prev, *ctx_next; /* ctx->kernels (user-made kernels only) */
    bool listed;        /* ... in that list */
    int busy;           /* launches in progress: their grid, prune and print callbacks run inside */
    bool destroy_refused; /* a callback destroyed it: kept, and the launch fails */
    const char *name;
    char *text;         /* the source, owned */
    Source src;
    Arena arena;        /* AST, options */
    Node *module;
    CompileOptions opts;
    KernelInfo info;    /* from the compiler: parameters, constants, config */
    KernelParam **rt;   /* info's runtime parameters, in launch order */
    TlArg *norm;        /* scratch: the arguments converted to the parameters' types */
    uint16_t *codes;    /* the last launch's arguments' specialisation codes (api.c arg_code) */
    struct Variant *last; /* ... and the variant it ran */
    Variant *variants;
    Buf log;
    Buf ir;
    Buf sig;            /* scratch for the launch signature, reused across launches */
    TlArg *flat;        /* scratch: the arguments with tensor descriptors flattened (api.c) */
    int flat_cap;
    void *tensor_maps;  /* CUDA device: the CUtensorMaps of the last launch's descriptors */
    int tensor_maps_cap;
    /* @triton.autotune without --autotune-config: one kernel per config, and
     * the config chosen for each tuning key (autotune.c). */
    TlKernel **configs;
    int nconfigs;
    struct TuneChoice *choices;
    int last_config;    /* the config the last launch used; -1 before any */
    TlPruneFn prune;    /* tl_kernel_set_prune: which configs to tune (autotune.c) */
    void *prune_user;
    /* @triton.heuristics read at each launch (heuristics.c): the results
     * memoised by the values they read, most recent first, the one in use,
     * and the one of the variant k->last */
    struct HeurMemo *heur_memo, *heur_cur, *heur_last;
};

/* How a launch's grid is given: fixed, an expression over the parameters and
 * the config's constexprs, or a callback. */
typedef struct GridSpec {
    const unsigned *fixed;
    const char *expr;
    TlGridFn fn;
    void *user;
} GridSpec;


/* ---- kernel.c, under api.c, for autotune.c, heuristics.c and gpu.c ---- */
TlStatus kernel_create(TlContext *ctx, char *text, size_t len, const char *name, const char *options,
                           TlKernel **out);
/* Check args against k's parameters into k->norm; false with ctx's error set. */
bool kernel_check_args(TlKernel *k, const TlArg *args, int nargs);
/* The launch signature of checked arguments (Triton's AOT spelling). */
void kernel_launch_signature(const TlArg *args, int nargs, Buf *sig);
TlStatus kernel_get_variant(TlKernel *k, const char *key, Variant **out);
TlStatus kernel_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream, bool sync);
void ctx_stat_add(TlContext *ctx, unsigned long *counter, double seconds, double *total);
void ctx_add_times(TlContext *ctx, const CompileTimes *t);

/* ---- autotune.c ---- */
/* Launch a kernel with its grid given by g: tunes first when k is tuned. */
TlStatus tune_launch(TlKernel *k, const GridSpec *g, const TlArg *args, int nargs, CUstream stream, bool sync);
void tune_free(TlKernel *k);

/* ---- heuristics.c: @triton.heuristics that read runtime scalars ---- */
/* Their results for these checked arguments (info.heur_per_launch only):
 * memoised, made k's constants, and kept as k->heur_cur. */
TlStatus heur_eval(TlKernel *k, const TlArg *args, int nargs);
/* The variant key of checked arguments: the launch signature (or the
 * --signature), then k->heur_cur's results when the heuristics are read at
 * launch. */
void heur_variant_key(TlKernel *k, const TlArg *args, int nargs, Buf *key);
/* A variant key's signature; its heuristics' results go to o (arena). */
const char *heur_split_key(Arena *a, const char *key, CompileOptions *o);
void heur_free(TlKernel *k);

/* Set ctx's last error; returns s. */
TlStatus fail(TlContext *ctx, TlStatus s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* TL_DUMP=1 (or TL_DUMP_DIR set): every stage of every kernel compiled is
 * written to $TL_DUMP_DIR (default ".") as KERNEL-HASH.{ast,ir,ir-gpu,ll,ptx}. */
bool kernel_dump_enabled(void);
/* TL_OCCUPANCY is not "0": gpu.c may cap a kernel's registers for one more
 * CTA an SM (raise_occupancy); part of the cache key. */
bool kernel_occupancy_on(void);
/* The compile options that change a kernel's code, one owner for the cache key and TL_DUMP's names. */
void kernel_options_key(const TlKernel *k, Buf *b);
void kernel_dump(const TlKernel *k, const Variant *v, const char *ext, const Buf *text);

/* ---- the CUDA device (gpu.c) ---- */
/* A variant key's last line asking for the kernel without automatic TMA
 * maps (heur_split_key reads it): the launches whose values TMA cannot take. */
#define API_NO_AUTO_TMA "!no-auto-tma"
/* The TlDType of an IR element type; 0 if none matches. */
TlDType kernel_dtype_of(DType dt);
/* Each TlDType's IR type, signature spelling and size (kernel.c). */
typedef struct KernelDType {
    DType dt;
    const char *sig;
    size_t size;
} KernelDType;
enum { TL_DTYPE_LAST = TL_F8E4B15 };
extern const KernelDType kernel_dtypes[TL_DTYPE_LAST + 1];
TlStatus gpu_open(TlContext *ctx);
/* The arch a device of compute capability major.minor gets: never none. */
void gpu_device_arch(int major, int minor, char *arch, size_t n);
/* Makes ctx's CUDA context current on the calling thread where it is not. */
void gpu_bind(TlContext *ctx);
/* Does the driver know p as memory a kernel can reach? (no: host memory)
 * ctx must be current (gpu_bind). */
bool gpu_pointer_known(TlContext *ctx, CUdeviceptr p);
void gpu_close(TlContext *ctx);
TlStatus gpu_alloc(TlBuffer *b);
void gpu_free(TlBuffer *b);
TlStatus gpu_copy(TlBuffer *b, size_t offset, void *host, size_t bytes, bool to_device);
/* A warm start: load v from the disk cache without compiling anything (no
 * sema either: the key is the source, signature and options). *hit says
 * whether it was there; TL_SUCCESS with !*hit means compile and gpu_build. */
TlStatus gpu_load_cached(TlKernel *k, Variant *v, bool *hit);
/* Compile the cubin of a variant whose IR is in v->fn (sema under options o),
 * at a register cap where that fits one more CTA an SM without spilling (a
 * kernel with a reduction and no dot: raise_occupancy), store it in the disk
 * cache, and load it. */
TlStatus gpu_build(TlKernel *k, Variant *v, const CompileOptions *o);
TlStatus gpu_launch(TlKernel *k, Variant *v, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream,
                    bool sync);
TlStatus gpu_synchronize(TlContext *ctx);
/* Encode a CUtensorMap (TMA) for each tensor descriptor argument into
 * k->tensor_maps, when the driver has cuTensorMapEncodeTiled (zeros
 * otherwise: such a driver runs no sm_90 kernel, the only ones that read
 * them); a 2-D map (a TMA source) the driver refuses fails the launch. */
TlStatus gpu_encode_tensor_maps(TlKernel *k, const TlArg *args, int nargs);
/* Encode v's automatic maps from the kernel's flattened arguments; *ok false
 * (TL_SUCCESS still) when this launch's values are not a TMA tensor (a bound
 * below 1, a stride TMA cannot take): the caller then launches the variant
 * without them. */
TlStatus gpu_encode_auto_maps(TlKernel *k, Variant *v, const TlArg *args, int nargs, bool *ok);
void gpu_unload(TlContext *ctx, Variant *v);
TlStatus gpu_func_attrs(TlContext *ctx, const Variant *v, int *regs, int *local_bytes);
/* The disk cache directory (cache_dir), false when TL_ALWAYS_COMPILE=1 or
 * it is not safe to use (a note then goes to k's log). */
bool gpu_cache_dir(TlKernel *k, Buf *dir);
/* The disk cache key of k's cubin for signature sig (autotune.c extends it). */
void gpu_cache_key(TlKernel *k, const char *sig, Buf *key);
/* Timing and scratch memory for autotuning. */
TlStatus gpu_event_pair(TlContext *ctx, CUevent ev[2], bool create);
TlStatus gpu_record(TlContext *ctx, CUevent ev, CUstream stream);
TlStatus gpu_elapsed_ms(TlContext *ctx, CUevent ev[2], float *ms);
TlStatus gpu_mem(TlContext *ctx, CUdeviceptr *p, size_t bytes, bool alloc);
TlStatus gpu_memcpy(TlContext *ctx, CUdeviceptr dst, CUdeviceptr src, size_t bytes);
TlStatus gpu_zero(TlContext *ctx, CUdeviceptr p, size_t bytes);

#endif
