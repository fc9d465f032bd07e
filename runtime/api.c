/* api.c: the public C API (tl.h), and only it: every tl_* entry point for
 * contexts, buffers, kernels and launches, checking its arguments and
 * calling down (as Lua's lapi.c over its core): kernel.c makes kernels and
 * launches them, autotune.c tunes, gpu.c and interp.c run.
 *
 * A TlKernel holds the parsed file and its options; launches specialise it on
 * the arguments (types, divisibility by 16, equality to 1, as Triton does),
 * and each specialisation is compiled once and kept in the kernel's variant
 * list, keyed by the runtime signature string (kernel.c). */
#include "tl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_int.h"
#include "cache.h"
#include "interp.h"
#include "ptx.h"

/* ---- errors ---- */

static const char *const status_names[] = {
    "TL_SUCCESS", "TL_ERROR_INVALID_ARGUMENT", "TL_ERROR_IO", "TL_ERROR_COMPILE", "TL_ERROR_LAUNCH",
    "TL_ERROR_OUT_OF_BOUNDS", "TL_ERROR_DEVICE_ASSERT", "TL_ERROR_NO_DEVICE", "TL_ERROR_DEVICE",
    "TL_ERROR_OUT_OF_MEMORY", "TL_ERROR_INTERNAL",
};

const char *tl_status_name(TlStatus s) {
    return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "TL_ERROR_UNKNOWN";
}

/* A call that succeeds leaves no message behind: each public call clears it
 * first, and only a failure writes a new one. */
static void clear_error(TlContext *ctx) {
    if (ctx && ctx->err.data) {
        ctx->err.len = 0;
        ctx->err.data[0] = 0;
    }
}

/* Why the last attempt of this thread to open the CUDA device failed: per
 * thread, as contexts are created on several threads at once (and a
 * thread's message then stays its own while it reads it). */
static _Thread_local char no_device_reason[512];

const char *tl_last_error(const TlContext *ctx) {
    if (!ctx)
        return no_device_reason;
    return ctx->err.data ? ctx->err.data : "";
}

/* ---- contexts ---- */

TlStatus tl_context_create(TlDeviceKind kind, TlContext **out) {
    if (!out)
        return TL_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    if (kind != TL_DEVICE_AUTO && kind != TL_DEVICE_CPU && kind != TL_DEVICE_CUDA)
        return TL_ERROR_INVALID_ARGUMENT;
    TlContext *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return TL_ERROR_OUT_OF_MEMORY;
    ctx->kind = TL_DEVICE_CPU;
    pthread_mutex_init(&ctx->lock, NULL);
    /* AUTO: the GPU when there is one, unless TL_INTERPRET=1 asks for the interpreter. */
    const char *interp = getenv("TL_INTERPRET");
    bool want_cpu = kind == TL_DEVICE_CPU || (kind == TL_DEVICE_AUTO && interp && *interp && strcmp(interp, "0"));
    if (!want_cpu) {
        TlStatus s = gpu_open(ctx);
        if (s != TL_SUCCESS) {
            /* No context holds the reason for a failed (or AUTO's fallen-back)
             * CUDA open, so tl_last_error(NULL) reads it from here. */
            snprintf(no_device_reason, sizeof no_device_reason, "%s", ctx->err.data ? ctx->err.data : "");
            if (kind == TL_DEVICE_CUDA) {
                buf_free(&ctx->err);
                pthread_mutex_destroy(&ctx->lock);
                free(ctx);
                return s;
            }
            ctx->err.len = 0;
            if (ctx->err.data)
                ctx->err.data[0] = 0;
        }
    }
    *out = ctx;
    return TL_SUCCESS;
}

static void orphan_kernel(TlKernel *k);

void tl_context_destroy(TlContext *ctx) {
    if (!ctx)
        return;
    if (ctx->busy) { /* from a callback of one of its launches: the launch still uses it */
        ctx->destroy_refused = true;
        return;
    }
    /* Handles that outlive their context (destroyed in the wrong order)
     * lose their memory and code now, and keep no pointer to it. */
    for (TlBuffer *b = ctx->cpu_buffers, *next; b; b = next) {
        next = b->next;
        if (ctx->kind == TL_DEVICE_CUDA)
            gpu_free(b);
        free(b->host);
        b->host = NULL, b->ctx = NULL, b->prev = b->next = NULL;
    }
    for (TlKernel *k = ctx->kernels, *next; k; k = next) {
        next = k->ctx_next;
        orphan_kernel(k);
    }
    if (ctx->kind == TL_DEVICE_CUDA)
        gpu_close(ctx);
    buf_free(&ctx->err);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

TlDeviceKind tl_context_device(const TlContext *ctx) { return ctx ? ctx->kind : TL_DEVICE_AUTO; }

const char *tl_context_device_name(const TlContext *ctx) {
    if (!ctx)
        return "";
    return ctx->kind == TL_DEVICE_CUDA ? ctx->name : "cpu (interpreter)";
}

int tl_context_num_sms(const TlContext *ctx) { return ctx && ctx->kind == TL_DEVICE_CUDA ? ctx->num_sms : 0; }

void tl_context_set_print(TlContext *ctx, TlPrintFn fn, void *user) {
    if (!ctx)
        return;
    ctx->print = fn;
    ctx->print_user = user;
}

/* ---- buffers ---- */


size_t tl_dtype_size(TlDType dt) {
    return (int)dt >= TL_I1 && (int)dt <= TL_DTYPE_LAST ? kernel_dtypes[dt].size : 0;
}

TlStatus tl_buffer_create(TlContext *ctx, TlDType dtype, size_t count, TlBuffer **out) {
    if (!ctx || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    *out = NULL;
    clear_error(ctx);
    size_t es = tl_dtype_size(dtype);
    if (!es)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_buffer_create: invalid dtype %d", (int)dtype);
    if (count == 0 || count > SIZE_MAX / es / 2)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_buffer_create: invalid element count %zu", count);
    TlBuffer *b = calloc(1, sizeof *b);
    if (!b)
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "tl_buffer_create: out of host memory");
    b->ctx = ctx;
    b->dtype = dtype;
    b->count = count;
    b->bytes = count * es;
    if (ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_alloc(b);
        if (s != TL_SUCCESS) {
            free(b);
            return s;
        }
    }
    /* 128-byte alignment like cudaMalloc's guarantee, so ":16" specialisation holds. */
    b->host = ctx->kind == TL_DEVICE_CUDA ? NULL : aligned_alloc(128, (b->bytes + 127) & ~(size_t)127);
    if (ctx->kind != TL_DEVICE_CUDA && !b->host) {
        free(b);
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "tl_buffer_create: cannot allocate %zu bytes", count * es);
    }
    b->next = ctx->cpu_buffers;
    if (b->next)
        b->next->prev = b;
    ctx->cpu_buffers = b;
    if (b->host)
        memset(b->host, 0, b->bytes);
    *out = b;
    return TL_SUCCESS;
}

void tl_buffer_destroy(TlBuffer *b) {
    if (!b)
        return;
    TlContext *ctx = b->ctx;
    if (ctx && ctx->busy) { /* from a launch's callback: that launch may use it */
        ctx->destroy_refused = true;
        return;
    }
    if (ctx) { /* NULL: its context is gone and freed its memory */
        if (ctx->kind == TL_DEVICE_CUDA)
            gpu_free(b);
        if (b->prev)
            b->prev->next = b->next;
        else
            ctx->cpu_buffers = b->next;
        if (b->next)
            b->next->prev = b->prev;
    }
    free(b->host);
    free(b);
}

size_t tl_buffer_count(const TlBuffer *b) { return b ? b->count : 0; }
TlDType tl_buffer_dtype(const TlBuffer *b) { return b ? b->dtype : (TlDType)0; }
uint64_t tl_buffer_device_ptr(const TlBuffer *b) {
    if (!b || !b->ctx)
        return 0;
    return b->ctx->kind == TL_DEVICE_CUDA ? b->dptr : (uint64_t)(uintptr_t)b->host;
}

static TlStatus check_range(const TlBuffer *b, size_t offset, const void *p, size_t bytes, const char *fn) {
    if (!b || !b->ctx) /* no context: destroyed before the buffer */
        return TL_ERROR_INVALID_ARGUMENT;
    clear_error(b->ctx);
    if (!p && bytes)
        return fail(b->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: null host pointer", fn);
    if (offset > b->bytes || bytes > b->bytes - offset)
        return fail(b->ctx, TL_ERROR_INVALID_ARGUMENT,
                    "%s: range [%zu, %zu) is outside the buffer's %zu bytes", fn, offset, offset + bytes, b->bytes);
    return TL_SUCCESS;
}

TlStatus tl_buffer_write(TlBuffer *b, size_t offset, const void *src, size_t bytes) {
    TlStatus s = check_range(b, offset, src, bytes, "tl_buffer_write");
    if (s != TL_SUCCESS || !bytes)
        return s;
    if (b->ctx->kind == TL_DEVICE_CUDA)
        return gpu_copy(b, offset, (void *)src, bytes, true);
    memcpy((char *)b->host + offset, src, bytes);
    return s;
}

TlStatus tl_buffer_read(const TlBuffer *b, size_t offset, void *dst, size_t bytes) {
    TlStatus s = check_range(b, offset, dst, bytes, "tl_buffer_read");
    if (s != TL_SUCCESS || !bytes)
        return s;
    if (b->ctx->kind == TL_DEVICE_CUDA)
        return gpu_copy((TlBuffer *)b, offset, dst, bytes, false);
    memcpy(dst, (char *)b->host + offset, bytes);
    return s;
}

/* ---- kernels ---- */


/* A kernel the user made joins its context's list (tl_context_destroy). */
static TlStatus listed(TlContext *ctx, TlStatus s, TlKernel **out) {
    TlKernel *k = s == TL_SUCCESS ? *out : NULL;
    if (k) {
        k->ctx_next = ctx->kernels;
        if (k->ctx_next)
            k->ctx_next->ctx_prev = k;
        ctx->kernels = k;
        k->listed = true;
    }
    return s;
}

TlStatus tl_kernel_from_file(TlContext *ctx, const char *path, const char *options, TlKernel **out) {
    if (!ctx || !path || !out)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_from_file: null argument");
    *out = NULL;
    clear_error(ctx);
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return fail(ctx, errno == ENOMEM ? TL_ERROR_OUT_OF_MEMORY : TL_ERROR_IO, "cannot read '%s': %s", path,
                    errno == EFBIG ? "larger than the 64 MiB a source file may have" : strerror(errno));
    return listed(ctx, kernel_create(ctx, text, len, path, options, out), out);
}

TlStatus tl_kernel_from_string(TlContext *ctx, const char *source, const char *options, TlKernel **out) {
    if (!ctx || !source || !out)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_from_string: null argument");
    *out = NULL;
    clear_error(ctx);
    char *text = strdup(source);
    if (!text)
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    return listed(ctx, kernel_create(ctx, text, strlen(text), "<string>", options, out), out);
}

/* Its context is being destroyed: unload its code (and its configs') while
 * the CUDA context lives, and forget the context. */
static void orphan_kernel(TlKernel *k) {
    for (int i = 0; i < k->nconfigs; i++)
        if (k->configs[i])
            orphan_kernel(k->configs[i]);
    for (Variant *v = k->variants; v; v = v->next)
        gpu_unload(k->ctx, v);
    k->ctx = NULL;
    k->listed = false;
    k->ctx_prev = k->ctx_next = NULL;
}

void tl_kernel_destroy(TlKernel *k) {
    if (!k)
        return;
    TlKernel *root = k->parent ? k->parent : k;
    if (root->busy) { /* from a callback of its own launch, which still uses it */
        root->destroy_refused = true;
        return;
    }
    if (k->parent && k->parent->configs) /* a config's handle, given to a callback: its kernel owns it */
        for (int i = 0; i < k->parent->nconfigs; i++)
            if (k->parent->configs[i] == k)
                return;
    if (k->listed) {
        if (k->ctx_prev)
            k->ctx_prev->ctx_next = k->ctx_next;
        else
            k->ctx->kernels = k->ctx_next;
        if (k->ctx_next)
            k->ctx_next->ctx_prev = k->ctx_prev;
    }
    tune_free(k);
    heur_free(k);
    for (int i = 0; i < k->nconfigs; i++)
        if (k->configs[i]) {
            k->configs[i]->parent = NULL; /* its owner frees it */
            tl_kernel_destroy(k->configs[i]);
        }
    for (Variant *v = k->variants, *next; v; v = next) {
        next = v->next;
        if (k->ctx) /* else unloaded with its context */
            gpu_unload(k->ctx, v);
        arena_free(&v->arena);
        free(v->key);
        free(v);
    }
    buf_free(&k->log);
    buf_free(&k->ir);
    buf_free(&k->sig);
    free(k->flat);
    free(k->tensor_maps);
    arena_free(&k->arena);
    free(k->text);
    free(k);
}

const char *tl_kernel_name(const TlKernel *k) { return k && k->name ? k->name : ""; }
int tl_kernel_num_params(const TlKernel *k) { return k ? k->info.nruntime : 0; }

TlStatus tl_kernel_param(const TlKernel *k, int i, TlParamInfo *out) {
    if (!k || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    if (i < 0 || i >= k->info.nruntime)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: no runtime parameter %d (it has %d)", k->name, i,
                    k->info.nruntime);
    const KernelParam *p = k->rt[i];
    bool ptr = p->type.dtype == DT_PTR;
    *out = (TlParamInfo){.name = p->name, .is_pointer = ptr && !p->desc_rank,
                         .dtype = kernel_dtype_of((DType)(ptr ? p->type.pointee : p->type.dtype)), .hint = p->hint,
                         .tensordesc_rank = p->desc_rank};
    for (int d = 0; d < p->desc_rank; d++)
        out->block_shape[d] = p->desc_block[d];
    return TL_SUCCESS;
}

int tl_kernel_num_constants(const TlKernel *k) { return k ? k->info.nparams - k->info.nruntime : 0; }

TlStatus tl_kernel_constant(const TlKernel *k, int i, const char **name, const char **value) {
    if (!k || !name || !value)
        return TL_ERROR_INVALID_ARGUMENT;
    for (int j = 0, c = 0; j < k->info.nparams; j++) {
        if (k->info.params[j].runtime || c++ != i)
            continue;
        *name = k->info.params[j].name;
        *value = k->info.params[j].value ? k->info.params[j].value : "";
        return TL_SUCCESS;
    }
    return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: no constant parameter %d (it has %d)", k->name, i,
                tl_kernel_num_constants(k));
}

TlStatus tl_kernel_config(const TlKernel *k, TlKernelConfig *out) {
    if (!k || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    const TlKernel *c = k->info.tuned && k->last_config >= 0 ? k->configs[k->last_config] : k;
    *out = (TlKernelConfig){c->info.num_warps, c->info.num_stages, k->info.tuned ? k->last_config
                                                                                : k->info.autotune_config,
                            k->info.num_configs, k->info.tuned};
    return TL_SUCCESS;
}

TlStatus tl_kernel_resources(const TlKernel *k, TlKernelResources *out) {
    if (!k || !out || !k->ctx) /* no context: its code was unloaded with it */
        return TL_ERROR_INVALID_ARGUMENT;
    const TlKernel *c = k->info.tuned && k->last_config >= 0 ? k->configs[k->last_config] : k;
    const Variant *v = c->last ? c->last : c->variants;
    if (!v)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: no variant is compiled yet (launch the kernel, or give "
                    "it a full signature)", k->name);
    *out = (TlKernelResources){0};
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        out->shared_bytes = v->shared_bytes;
        out->threads = 32 * v->num_warps;
        return gpu_func_attrs(k->ctx, v, &out->registers, &out->spill_bytes);
    }
    out->shared_bytes = v->fn ? v->fn->shared_bytes : 0;
    out->threads = v->fn ? 32 * ir_launch_warps(v->fn) : 0;
    return TL_SUCCESS;
}

TlStatus tl_kernel_constant_int(const TlKernel *k, const char *name, int64_t *out) {
    if (!k || !name || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < k->info.nparams; i++) {
        const KernelParam *p = &k->info.params[i];
        if (p->runtime || strcmp(p->name, name))
            continue;
        char *end;
        if (!p->value)
            return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: constant '%s' is set by a heuristic at each launch, "
                        "and the kernel has not been launched yet", k->name, name);
        if (!strcmp(p->value, "True") || !strcmp(p->value, "False")) {
            *out = p->value[0] == 'T';
            return TL_SUCCESS;
        }
        long long v = strtoll(p->value, &end, 10);
        if (end == p->value || *end)
            return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: constant '%s' is %s, not an integer", k->name, name,
                        p->value);
        *out = v;
        return TL_SUCCESS;
    }
    return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: no compile-time parameter named '%s'", k->name, name);
}
const char *tl_kernel_log(const TlKernel *k) { return k && k->log.data ? k->log.data : ""; }
const char *tl_kernel_ir(const TlKernel *k) { return k && k->ir.data ? k->ir.data : ""; }

/* The grid, prune and print callbacks run inside a launch, which still uses
 * the kernel, its context and their buffers after they return: destroying
 * any of them there is refused (busy), and so is launching the same kernel
 * again from inside (it would overwrite the arguments the launch holds). */
static TlStatus launch(TlKernel *k, GridSpec g, const TlArg *args, int nargs, CUstream stream, bool sync) {
    if (!k || !k->ctx) /* no context: destroyed before the kernel */
        return TL_ERROR_INVALID_ARGUMENT;
    TlContext *ctx = k->ctx;
    if (k->busy)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "%s: launched from a callback of its own launch", k->name);
    clear_error(ctx);
    if (!g.fixed && !g.expr && !g.fn)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "%s: null grid", k->name);
    k->busy++, ctx->busy++;
    TlStatus s = tune_launch(k, &g, args, nargs, stream, sync);
    k->busy--, ctx->busy--;
    if (k->destroy_refused)
        s = fail(ctx, TL_ERROR_INVALID_ARGUMENT, "%s: a callback of its launch destroyed the kernel; it was kept "
                 "(destroy it after the launch returns)", k->name);
    else if (ctx->destroy_refused && !ctx->busy)
        s = fail(ctx, TL_ERROR_INVALID_ARGUMENT, "%s: a callback of its launch destroyed its context or a buffer; "
                 "they were kept (destroy them after the launch returns)", k->name);
    k->destroy_refused = false;
    if (!ctx->busy)
        ctx->destroy_refused = false;
    return s;
}

TlStatus tl_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs) {
    return launch(k, (GridSpec){.fixed = grid}, args, nargs, k && k->ctx ? k->ctx->stream : NULL, true);
}

TlStatus tl_launch_async(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs) {
    return launch(k, (GridSpec){.fixed = grid}, args, nargs, k && k->ctx ? k->ctx->stream : NULL, false);
}

TlStatus tl_launch_stream(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, void *stream) {
    return launch(k, (GridSpec){.fixed = grid}, args, nargs, (CUstream)stream, false);
}

TlStatus tl_launch_grid(TlKernel *k, const char *grid, const TlArg *args, int nargs) {
    return launch(k, (GridSpec){.expr = grid}, args, nargs, k && k->ctx ? k->ctx->stream : NULL, true);
}

TlStatus tl_launch_grid_fn(TlKernel *k, TlGridFn grid, void *user, const TlArg *args, int nargs) {
    return launch(k, (GridSpec){.fn = grid, .user = user}, args, nargs, k && k->ctx ? k->ctx->stream : NULL, true);
}

TlStatus tl_context_synchronize(TlContext *ctx) {
    if (!ctx)
        return TL_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    return ctx->kind == TL_DEVICE_CUDA ? gpu_synchronize(ctx) : TL_SUCCESS;
}

void *tl_context_cuda_context(const TlContext *ctx) { return ctx && ctx->kind == TL_DEVICE_CUDA ? ctx->cuctx : NULL; }

TlStatus tl_context_set_stream(TlContext *ctx, void *stream) {
    if (!ctx)
        return TL_ERROR_INVALID_ARGUMENT;
    clear_error(ctx);
    if (ctx->kind != TL_DEVICE_CUDA && stream)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_context_set_stream: the CPU device has no streams");
    ctx->stream = (CUstream)stream;
    return TL_SUCCESS;
}

void tl_context_stats(const TlContext *ctx, TlStats *out) {
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (!ctx)
        return;
    pthread_mutex_lock((pthread_mutex_t *)&ctx->lock);
    *out = ctx->stats;
    const double *t = ctx->times.seconds;
    out->parse_seconds = t[STAGE_PARSE], out->sema_seconds = t[STAGE_SEMA], out->combine_seconds = t[STAGE_COMBINE];
    out->pipeline_seconds = t[STAGE_PIPELINE], out->smem_seconds = t[STAGE_SMEM] + t[STAGE_BARRIERS];
    out->layout_seconds = t[STAGE_LAYOUT], out->llvm_ir_seconds = t[STAGE_LOWER];
    out->llvm_opt_seconds = t[STAGE_OPTIMIZE], out->ptx_emit_seconds = t[STAGE_EMIT], out->link_seconds = t[STAGE_LINK];
    pthread_mutex_unlock((pthread_mutex_t *)&ctx->lock);
}
