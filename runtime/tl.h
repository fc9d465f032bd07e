/* tl.h: the public C API of libtl.
 *
 * Compile Triton-style .tl kernels at run time and launch them on a device:
 * the CPU interpreter today, CUDA GPUs through the same calls.
 *
 *   TlContext *ctx;   tl_context_create(TL_DEVICE_AUTO, &ctx);
 *   TlBuffer *x, *z;  tl_buffer_create(ctx, TL_F32, n, &x); ... tl_buffer_write(x, 0, host, n * 4);
 *   TlKernel *k;      tl_kernel_from_file(ctx, "copy.tl", "--kernel copy_k -D bs=1024", &k);
 *   TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(n)};
 *   unsigned grid[3] = {(n + 1023) / 1024, 1, 1};
 *   if (tl_launch(k, grid, args, 3) != TL_SUCCESS) fprintf(stderr, "%s\n", tl_last_error(ctx));
 *
 * Conventions: every call returns a TlStatus; on failure tl_last_error(ctx)
 * holds a message (for compile errors, the rendered diagnostics), and a call
 * that succeeds clears it. The library never prints (except a kernel's own
 * print/device_print output, which goes to stdout unless redirected, and
 * what the TL_PRINT_* and TL_DUMP variables ask for) and never
 * exits. Handles are opaque; every handle has a destroy call, and using a
 * handle after destroying it (destroying it twice included) is undefined, as
 * with free(). Destroy buffers and kernels before their context (one
 * destroyed after it is inert: docs/api.md); a callback may not destroy the
 * kernel, context or buffers of the launch it runs in (refused: the launch
 * returns TL_ERROR_INVALID_ARGUMENT). A context must be used from one thread
 * at a time.
 * Design notes: docs/api.md. */
#ifndef TL_H
#define TL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TL_API __attribute__((visibility("default")))

typedef enum TlStatus {
    TL_SUCCESS = 0,
    TL_ERROR_INVALID_ARGUMENT, /* a null handle, a bad size, a malformed option */
    TL_ERROR_IO,               /* a file could not be read */
    TL_ERROR_COMPILE,          /* the kernel source has errors (see tl_last_error) */
    TL_ERROR_LAUNCH,           /* arguments or grid do not fit the kernel */
    TL_ERROR_OUT_OF_BOUNDS,    /* the kernel accessed memory outside a buffer */
    TL_ERROR_DEVICE_ASSERT,    /* a device_assert failed */
    TL_ERROR_NO_DEVICE,        /* no device of the requested kind */
    TL_ERROR_DEVICE,           /* the device or its driver reported an error */
    TL_ERROR_OUT_OF_MEMORY,
    TL_ERROR_INTERNAL,         /* a bug in tl: please report it */
} TlStatus;

typedef enum TlDeviceKind {
    TL_DEVICE_AUTO, /* CUDA when a GPU is usable and TL_INTERPRET is unset, else CPU */
    TL_DEVICE_CPU,  /* the interpreter */
    TL_DEVICE_CUDA,
} TlDeviceKind;

typedef enum TlDType {
    TL_I1 = 1, TL_I8, TL_I16, TL_I32, TL_I64, TL_U8, TL_U16, TL_U32, TL_U64,
    TL_F16, TL_BF16, TL_F32, TL_F64,
    TL_F8E4M3, /* tl.float8e4nv (E4M3FN: bias 7, no inf, max 448), 1 byte */
    TL_F8E5M2, /* tl.float8e5 (E5M2: bias 15, IEEE-like), 1 byte */
    TL_F8E4B15, /* tl.float8e4b15 (E4M3, bias 15: no inf, no NaN, max 1.875), 1 byte */
} TlDType;

enum { TL_TENSORDESC_MAX_RANK = 5 }; /* dims of a tensor descriptor (TlTensorDesc), as a CUtensorMap */

typedef struct TlContext TlContext;
typedef struct TlBuffer TlBuffer;
typedef struct TlKernel TlKernel;

/* ---- contexts ---- */
TL_API TlStatus tl_context_create(TlDeviceKind kind, TlContext **out);
TL_API void tl_context_destroy(TlContext *ctx);
TL_API TlDeviceKind tl_context_device(const TlContext *ctx);
/* "cpu (interpreter)" or the GPU's name. */
TL_API const char *tl_context_device_name(const TlContext *ctx);
/* The GPU's streaming multiprocessors (what a persistent kernel's NUM_SMS
 * wants); 0 on the CPU device. */
TL_API int tl_context_num_sms(const TlContext *ctx);
/* Message of the last failed call on ctx (or on one of its handles); "" if none.
 * With ctx NULL: why the CUDA device could not be opened by the calling
 * thread's last tl_context_create (TL_DEVICE_CUDA failing, or TL_DEVICE_AUTO
 * falling back); each thread has its own, "" on a thread that had none. */
TL_API const char *tl_last_error(const TlContext *ctx);
TL_API const char *tl_status_name(TlStatus s); /* "TL_ERROR_COMPILE" */
/* Where kernel print/device_print output goes: a callback receiving each
 * chunk of text, or NULL for stdout. */
typedef void (*TlPrintFn)(void *user, const char *text, size_t len);
TL_API void tl_context_set_print(TlContext *ctx, TlPrintFn fn, void *user);

/* ---- CUDA interop ----
 * A CUDA context is created on the calling thread's current CUDA context
 * when there is one (your program's, made by the runtime API or the driver
 * API), else on the device's primary context (device $TL_DEVICE, default 0);
 * tl makes it current again on a thread where another one is. */
/* The CUcontext tl uses; NULL on the CPU device. */
TL_API void *tl_context_cuda_context(const TlContext *ctx);
/* The CUstream (cudaStream_t) that tl_launch and tl_launch_async use from now
 * on; NULL: the legacy default stream. tl does not own it. */
TL_API TlStatus tl_context_set_stream(TlContext *ctx, void *stream);

/* ---- buffers: count elements of dtype on the context's device ---- */
TL_API TlStatus tl_buffer_create(TlContext *ctx, TlDType dtype, size_t count, TlBuffer **out);
TL_API void tl_buffer_destroy(TlBuffer *buf);
TL_API size_t tl_buffer_count(const TlBuffer *buf);
TL_API TlDType tl_buffer_dtype(const TlBuffer *buf);
/* Copies in bytes; offset + bytes must lie inside the buffer. */
TL_API TlStatus tl_buffer_write(TlBuffer *buf, size_t offset, const void *src, size_t bytes);
TL_API TlStatus tl_buffer_read(const TlBuffer *buf, size_t offset, void *dst, size_t bytes);
TL_API size_t tl_dtype_size(TlDType dtype); /* 0 for an invalid dtype */
/* The buffer's CUDA device address, for interop with other CUDA code (cuBLAS,
 * your own kernels). On the CPU device, the address of its memory, as
 * tl_arg_ptr takes it there; a kernel that loads such an address (an int64)
 * and casts it to a pointer reaches the buffer on either device (Triton's
 * tutorial 08 passes arrays of pointers so). */
TL_API uint64_t tl_buffer_device_ptr(const TlBuffer *buf);

/* ---- kernels ----
 * options use tlc's flags: --kernel NAME, --signature SIG, -D NAME=VALUE,
 * --num-warps N, --num-stages N, --autotune-config I, --arch SM. A kernel is
 * specialised at launch on its arguments' types (and, for integers and
 * buffers, divisibility by 16 and equality to 1, like Triton); each
 * specialisation is compiled once and kept. With --signature the kernel is
 * compiled at once and errors come back here. A file larger than 64 MiB is
 * refused (TL_ERROR_IO). */
TL_API TlStatus tl_kernel_from_file(TlContext *ctx, const char *path, const char *options, TlKernel **out);
TL_API TlStatus tl_kernel_from_string(TlContext *ctx, const char *source, const char *options, TlKernel **out);
TL_API void tl_kernel_destroy(TlKernel *k);
TL_API const char *tl_kernel_name(const TlKernel *k);
/* Number of runtime parameters launch expects: the parameters that are not
 * constexprs and that the --signature (if any) does not bind to a value. */
TL_API int tl_kernel_num_params(const TlKernel *k);

/* What the kernel expects, from the compiler itself (not a guess from the
 * syntax). Strings live as long as the kernel. */
typedef struct TlParamInfo {
    const char *name;
    int is_pointer;     /* 1 for a pointer parameter */
    TlDType dtype;      /* its type (a pointer's element type); 0: typed by each launch (no --signature) */
    int hint;           /* the signature's ":16" (16) or ":1" (1), else 0 */
    int tensordesc_rank; /* a `tensordesc<...>` parameter (tl_arg_tensordesc): its rank, else 0 */
    int32_t block_shape[TL_TENSORDESC_MAX_RANK]; /* ... and its block shape */
} TlParamInfo;
/* The i-th runtime parameter (0 .. tl_kernel_num_params - 1). */
TL_API TlStatus tl_kernel_param(const TlKernel *k, int i, TlParamInfo *out);
/* Parameters bound at compile time (constexprs, signature literals, **meta keys):
 * their count, and the i-th one's name and value as Python prints it ("128",
 * "'relu'", "True"). */
TL_API int tl_kernel_num_constants(const TlKernel *k);
TL_API TlStatus tl_kernel_constant(const TlKernel *k, int i, const char **name, const char **value);
typedef struct TlKernelConfig {
    int num_warps, num_stages;
    int autotune_config; /* the @triton.autotune config used (--autotune-config, or the one the last launch
                            of a tuned kernel chose), or -1 */
    int num_configs;     /* configs of the kernel's @triton.autotune; 0 without one */
    int tuned;           /* 1: launches tune (see tl_launch_grid) */
} TlKernelConfig;
TL_API TlStatus tl_kernel_config(const TlKernel *k, TlKernelConfig *out);
/* What the compiled kernel takes of the GPU (Triton's CompiledKernel.n_regs,
 * n_spills, metadata.shared): of the variant the last launch ran, else the one
 * a full signature compiled at creation. TL_ERROR_INVALID_ARGUMENT, with a
 * message, before any variant exists. On the CPU device registers and
 * spill_bytes are 0. */
typedef struct TlKernelResources {
    int registers;    /* 32-bit registers per thread */
    int spill_bytes;  /* local memory per thread (spills and stack), bytes */
    int shared_bytes; /* shared memory per program, bytes */
    int threads;      /* threads per program */
} TlKernelResources;
TL_API TlStatus tl_kernel_resources(const TlKernel *k, TlKernelResources *out);
/* Warnings and errors of every compilation of this kernel so far. */
TL_API const char *tl_kernel_log(const TlKernel *k);
/* The typed IR of the most recent specialisation compiled from source (for
 * debugging); "" if none. A GPU variant loaded from the disk cache skips the
 * front end and sema, so it has none (TL_DUMP=1 or TL_ALWAYS_COMPILE=1 compile). */
TL_API const char *tl_kernel_ir(const TlKernel *k);

/* ---- launch ----
 * Every launch is checked against what the kernel expects: the number of
 * arguments, and with a --signature the kind and type of each one (a buffer's
 * element type against the pointer's, a scalar's type against the
 * parameter's, ":16" and ":1" hints against the values). An integer for a
 * float parameter, or the reverse, is an error unless the argument asks for
 * the conversion with tl_arg_convert(); an integer is narrowed to a smaller
 * integer parameter only when its value fits. */
typedef enum TlArgKind { TL_ARG_BUFFER = 1, TL_ARG_INT, TL_ARG_FLOAT, TL_ARG_POINTER, TL_ARG_TENSORDESC } TlArgKind;
enum { /* TlArg.flags */
    TL_ARG_NO_SPECIALIZE = 1, /* do not specialise on this value */
    TL_ARG_CONVERT = 2,       /* convert an int to a float parameter, or a float to an int one */
};

/* A tensor descriptor (Triton's TensorDescriptor), for a parameter with the
 * signature entry `tensordesc<DTYPE[B0, B1, ...]>` (the launch signature spells
 * it so): a strided tensor in a buffer or at a pointer, which the kernel reads
 * and writes in blocks of block_shape with desc.load([i, j]) /
 * desc.store([i, j], x). Reads out of bounds give zero (NaN with padding_nan),
 * writes there are dropped, as with TMA. Like TMA, the launch requires a
 * 16-byte aligned base, strides (but the last, which is 1) that are multiples
 * of 16 bytes, power-of-two block dims and at least 16 bytes of block in the
 * last dim; the described elements must lie inside the buffer (or count).
 * The struct is the caller's and must live until the launch call returns.
 * On a GPU the launch also encodes the CUtensorMap TMA will use
 * (cuTensorMapEncodeTiled); TlStats.tensor_maps counts them. */
typedef struct TlTensorDesc {
    TlBuffer *buffer;   /* the memory: a buffer, or NULL and addr */
    uint64_t addr;      /* CUdeviceptr (a host address on the CPU device) when buffer is NULL */
    size_t count;       /* elements at addr; 0 = unknown (refused by the interpreter) */
    TlDType dtype;      /* the elements' type (a buffer's own when 0) */
    int rank;           /* 1 .. TL_TENSORDESC_MAX_RANK */
    int64_t shape[TL_TENSORDESC_MAX_RANK];       /* in elements, outermost dim first */
    int64_t strides[TL_TENSORDESC_MAX_RANK];     /* in elements; strides[rank-1] must be 1 */
    int32_t block_shape[TL_TENSORDESC_MAX_RANK]; /* the tile one load or store moves */
    int padding_nan;    /* 1: out-of-bounds reads give NaN (float elements only) */
} TlTensorDesc;

typedef struct TlArg {
    TlArgKind kind;
    TlDType dtype;  /* scalars: the value's type (TL_I32, TL_I64, TL_F32, ...); pointers: the element type */
    unsigned flags;
    union {
        TlBuffer *buffer;
        int64_t i;
        double f;
        struct {
            uint64_t addr;  /* CUdeviceptr on a CUDA context; a host address on the CPU device */
            size_t count;   /* elements it holds; 0 = unknown (refused by the interpreter, which checks bounds) */
        } p;
        const TlTensorDesc *desc; /* TL_ARG_TENSORDESC: the caller's */
    } v;
} TlArg;

static inline TlArg tl_arg_buffer(TlBuffer *b) { TlArg a = {TL_ARG_BUFFER, (TlDType)0, 0, {0}}; a.v.buffer = b; return a; }
static inline TlArg tl_arg_i32(int32_t x) { TlArg a = {TL_ARG_INT, TL_I32, 0, {0}}; a.v.i = x; return a; }
static inline TlArg tl_arg_i64(int64_t x) { TlArg a = {TL_ARG_INT, TL_I64, 0, {0}}; a.v.i = x; return a; }
static inline TlArg tl_arg_u32(uint32_t x) { TlArg a = {TL_ARG_INT, TL_U32, 0, {0}}; a.v.i = x; return a; }
static inline TlArg tl_arg_f32(float x) { TlArg a = {TL_ARG_FLOAT, TL_F32, 0, {0}}; a.v.f = x; return a; }
static inline TlArg tl_arg_f64(double x) { TlArg a = {TL_ARG_FLOAT, TL_F64, 0, {0}}; a.v.f = x; return a; }
/* Memory tl did not allocate: a CUDA device pointer (cudaMalloc, cuMemAlloc,
 * another library's tensor) of count elements of dtype, or on the CPU device
 * a host pointer (count required there). */
static inline TlArg tl_arg_ptr(uint64_t addr, TlDType dtype, size_t count) {
    TlArg a = {TL_ARG_POINTER, dtype, 0, {0}}; a.v.p.addr = addr; a.v.p.count = count; return a;
}
static inline TlArg tl_arg_host_ptr(void *p, TlDType dtype, size_t count) {
    return tl_arg_ptr((uint64_t)(uintptr_t)p, dtype, count);
}
/* A tensor descriptor over buffer b (or, _ptr, over count elements of dtype
 * at addr): fills the caller's *d (strides NULL: row-major, contiguous) and
 * returns the argument that refers to it. */
static inline TlArg tl_arg_tensordesc_ptr(TlTensorDesc *d, TlBuffer *b, uint64_t addr, TlDType dtype, size_t count,
                                          int rank, const int64_t *shape, const int64_t *strides,
                                          const int32_t *block_shape) {
    TlArg a = {TL_ARG_TENSORDESC, dtype, 0, {0}};
    TlTensorDesc z = {0};
    *d = z;
    d->buffer = b, d->addr = addr, d->dtype = dtype, d->count = count, d->rank = rank;
    for (int i = rank - 1; i >= 0 && i < TL_TENSORDESC_MAX_RANK; i--) {
        d->shape[i] = shape[i];
        d->strides[i] = strides ? strides[i] : i == rank - 1 ? 1 : d->strides[i + 1] * shape[i + 1];
        d->block_shape[i] = block_shape[i];
    }
    a.v.desc = d;
    return a;
}
static inline TlArg tl_arg_tensordesc(TlTensorDesc *d, TlBuffer *b, int rank, const int64_t *shape,
                                      const int64_t *strides, const int32_t *block_shape) {
    return tl_arg_tensordesc_ptr(d, b, 0, (TlDType)0, 0, rank, shape, strides, block_shape);
}
static inline TlArg tl_arg_nospec(TlArg a) { a.flags |= TL_ARG_NO_SPECIALIZE; return a; }
static inline TlArg tl_arg_convert(TlArg a) { a.flags |= TL_ARG_CONVERT; return a; }

/* Run k over grid[0] x grid[1] x grid[2] programs; args holds one entry per
 * runtime parameter, in order. Returns when the kernel has finished. */
TL_API TlStatus tl_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs);
/* The same, but on a GPU returns once the kernel is queued on the context's
 * stream; errors of the kernel's execution surface at the next
 * tl_context_synchronize. (On the CPU device it is tl_launch.) */
TL_API TlStatus tl_launch_async(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs);
/* tl_launch_async on the given CUstream (NULL: the legacy default stream),
 * whatever the context's stream is. */
TL_API TlStatus tl_launch_stream(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, void *stream);
/* Wait for every queued launch of ctx (its stream, or the whole CUDA
 * context when it has none). */
TL_API TlStatus tl_context_synchronize(TlContext *ctx);

/* ---- grids that depend on the config, and autotuning ----
 * A kernel with @triton.autotune loaded without --autotune-config is tuned at
 * launch, as in Triton: on the first launch for each value of the autotune
 * key (the values of the `key=[...]` arguments, and the arguments' types),
 * every config is compiled (on a thread pool), timed on the real arguments
 * with CUDA events (the median of up to 20 runs within the decorator's
 * warmup/rep budget; a config clearly slower than the best so far stops
 * early), (`reset_to_zero` buffers zeroed before each run,
 * `restore_value` buffers restored after), and the fastest is used from then
 * on; the choice persists in the disk cache, so the next process skips the
 * search. TL_PRINT_AUTOTUNING=1 prints the timings and the choice to stderr.
 * On the CPU device the first config is used (a note goes to the kernel's
 * log). tl_kernel_config() then reports the config in use.
 *
 * As the grid usually depends on the config's block sizes, give it as an
 * expression over the runtime integer parameters, the config's constexprs and
 * num_warps / num_stages, one to three comma-separated dimensions with
 * + - * // % ( ), cdiv(a, b), min(a, b) and max(a, b):
 *     tl_launch_grid(k, "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", args, n)
 * or as a callback that reads the config's values from `config` (a kernel
 * handle: tl_kernel_constant_int, tl_kernel_config) and fills grid. Both work
 * for kernels that are not tuned too. A fixed grid (tl_launch) also tunes. */
typedef TlStatus (*TlGridFn)(void *user, const TlKernel *config, const TlArg *args, int nargs, unsigned grid[3]);
TL_API TlStatus tl_launch_grid(TlKernel *k, const char *grid, const TlArg *args, int nargs);
TL_API TlStatus tl_launch_grid_fn(TlKernel *k, TlGridFn grid, void *user, const TlArg *args, int nargs);
/* A compile-time parameter's value as an integer (bools count). */
TL_API TlStatus tl_kernel_constant_int(const TlKernel *k, const char *name, int64_t *out);

/* Triton's prune_configs_by={'early_config_prune': f, 'perf_model': g,
 * 'top_k': n} names Python functions, which tl does not run (the kernel log
 * and tlc say so in a note). A C program registers the equivalent here: when
 * a tuned kernel meets a new tuning key, fn is called before any config is
 * compiled, with one kernel handle per config (read each one's constexprs,
 * num_warps and num_stages with tl_kernel_constant_int / tl_kernel_constant
 * and tl_kernel_config) and the launch's arguments (checked and converted to
 * the parameters' types); it clears keep[i] (all 1 on entry) for each config
 * not to compile and time. Keeping none, or returning other than
 * TL_SUCCESS, fails the launch. On the CPU device the first config kept is
 * used. The persisted choice is keyed by the configs kept too. fn NULL
 * removes the callback; a kernel that is not tuned is TL_ERROR_INVALID_ARGUMENT. */
typedef TlStatus (*TlPruneFn)(void *user, const TlKernel *const *configs, int nconfigs, const TlArg *args, int nargs,
                              int *keep);
TL_API TlStatus tl_kernel_set_prune(TlKernel *k, TlPruneFn fn, void *user);

/* ---- statistics (for tests, benchmarks and the curious) ---- */
typedef struct TlStats {
    unsigned long compiles;       /* specialisations compiled from source */
    unsigned long cache_hits;     /* cubins loaded from the disk cache */
    unsigned long cache_misses;   /* cubins compiled and stored */
    unsigned long cache_corrupt;  /* cache entries found damaged, dropped and rebuilt */
    double compile_seconds;       /* time spent compiling (front end to cubin or IR) */
    /* The same time by stage (tlc --time-passes shows these): the front end,
     * semantic analysis, the passes (combine, axis analysis + layouts,
     * pipelining, shared-memory allocation and barriers), building the LLVM
     * IR, LLVM's optimisation, PTX emission, and the driver's link + load. */
    double parse_seconds, sema_seconds, combine_seconds, layout_seconds, pipeline_seconds, smem_seconds;
    double llvm_ir_seconds, llvm_opt_seconds, ptx_emit_seconds, link_seconds;
    unsigned long tensor_maps;    /* CUtensorMaps encoded for tensor descriptor arguments (GPU) */
} TlStats;
TL_API void tl_context_stats(const TlContext *ctx, TlStats *out);

#ifdef __cplusplus
}
#endif
#endif
