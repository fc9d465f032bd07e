/* api.c: the public C API (tl.h): contexts, buffers, kernels, launches.
 *
 * A TlKernel holds the parsed file and its options; launches specialise it on
 * the arguments (types, divisibility by 16, equality to 1, as Triton does),
 * and each specialisation is compiled once and kept in the kernel's variant
 * list, keyed by the runtime signature string. The CPU device runs variants in
 * the interpreter. */
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

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- errors ---- */

static const char *const status_names[] = {
    "TL_SUCCESS", "TL_ERROR_INVALID_ARGUMENT", "TL_ERROR_IO", "TL_ERROR_COMPILE", "TL_ERROR_LAUNCH",
    "TL_ERROR_OUT_OF_BOUNDS", "TL_ERROR_DEVICE_ASSERT", "TL_ERROR_NO_DEVICE", "TL_ERROR_DEVICE",
    "TL_ERROR_OUT_OF_MEMORY", "TL_ERROR_INTERNAL",
};

const char *tl_status_name(TlStatus s) {
    return (unsigned)s < sizeof status_names / sizeof status_names[0] ? status_names[s] : "TL_ERROR_UNKNOWN";
}

TlStatus fail(TlContext *ctx, TlStatus s, const char *fmt, ...) {
    if (!ctx)
        return s;
    pthread_mutex_lock(&ctx->lock);
    ctx->err.len = 0;
    buf_puts(&ctx->err, "");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&ctx->err, fmt, ap);
    va_end(ap);
    pthread_mutex_unlock(&ctx->lock);
    return s;
}

void api_add_times(TlContext *ctx, const CompileTimes *t) {
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < STAGE__COUNT; i++)
        ctx->times.seconds[i] += t->seconds[i];
    pthread_mutex_unlock(&ctx->lock);
}

void api_stat_add(TlContext *ctx, unsigned long *counter, double seconds, double *total) {
    pthread_mutex_lock(&ctx->lock);
    if (counter)
        (*counter)++;
    if (total)
        *total += seconds;
    pthread_mutex_unlock(&ctx->lock);
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

static const struct { DType dt; const char *sig; size_t size; } dtypes[] = {
    [TL_I1] = {DT_I1, "i1", 1},     [TL_I8] = {DT_I8, "i8", 1},       [TL_I16] = {DT_I16, "i16", 2},
    [TL_I32] = {DT_I32, "i32", 4},  [TL_I64] = {DT_I64, "i64", 8},    [TL_U8] = {DT_U8, "u8", 1},
    [TL_U16] = {DT_U16, "u16", 2},  [TL_U32] = {DT_U32, "u32", 4},    [TL_U64] = {DT_U64, "u64", 8},
    [TL_F16] = {DT_F16, "fp16", 2}, [TL_BF16] = {DT_BF16, "bf16", 2}, [TL_F32] = {DT_F32, "fp32", 4},
    [TL_F64] = {DT_F64, "fp64", 8}, [TL_F8E4M3] = {DT_F8E4NV, "fp8e4nv", 1}, [TL_F8E5M2] = {DT_F8E5, "fp8e5", 1},
    [TL_F8E4B15] = {DT_F8E4B15, "fp8e4b15", 1},
};
enum { TL_DTYPE_LAST = TL_F8E4B15 };

size_t tl_dtype_size(TlDType dt) {
    return (int)dt >= TL_I1 && (int)dt <= TL_DTYPE_LAST ? dtypes[dt].size : 0;
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


/* The compiler says what the kernel is: which function (--kernel, or the one
 * whose parameters are all determined), which parameters are runtime ones,
 * their types when a --signature gives them, the constexprs' values. With a
 * --signature the kernel is compiled at once, so its errors come back here. */
TlStatus api_kernel_create(TlContext *ctx, char *text, size_t len, const char *name, const char *options,
                           TlKernel **out) {
    TlKernel *k = calloc(1, sizeof *k);
    if (!k) {
        free(text);
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    k->ctx = ctx;
    k->last_config = -1;
    k->text = text;
    k->src = (Source){.name = arena_strdup(&k->arena, name), .text = text, .len = len};
    options_init(&k->opts);
    Buf err = {0};
    TlStatus s = TL_SUCCESS;
    if (!options_parse_string(&k->opts, &k->arena, options, &err)) {
        s = fail(ctx, TL_ERROR_INVALID_ARGUMENT, "invalid options: %s", err.data);
        goto out;
    }
    if (k->opts.auto_tma < 0)
        k->opts.auto_tma = 1; /* our launches pass the maps the tma pass asks for */
    if (!k->opts.arch && ctx->kind == TL_DEVICE_CUDA) /* sema sees the device's arch, as Triton's target */
        k->opts.arch = ptx_arch(ctx->arch);
    if (k->opts.debug_info < 0) { /* line tables, as Triton's (and its TRITON_DISABLE_LINE_INFO) */
        const char *off = getenv("TL_DISABLE_LINE_INFO");
        k->opts.debug_info = off && *off && strcmp(off, "0") ? 0 : 1;
    }
    Diag d = {.max_errors = k->opts.max_errors, .library = true};
    CompileTimes times = {0};
    k->module = compile_parse(&k->arena, &d, &k->src, &times);
    if (k->module && !compile_kernel_info(&k->arena, &d, &k->src, k->module, &k->opts, &k->info, &times))
        k->module = NULL;
    api_add_times(ctx, &times);
    if (d.out.data)
        buf_puts(&k->log, d.out.data);
    if (!k->module) {
        s = fail(ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s", d.out.data ? d.out.data : "");
        buf_free(&d.out);
        goto out;
    }
    buf_free(&d.out);
    k->name = k->info.name;
    k->opts.kernel = k->name;
    int n = k->info.nruntime;
    k->rt = arena_alloc(&k->arena, sizeof(KernelParam *) * (size_t)(n + 1));
    k->norm = arena_alloc(&k->arena, sizeof(TlArg) * (size_t)(n + 1));
    k->codes = arena_alloc(&k->arena, sizeof(uint16_t) * (size_t)(n + 1));
    if (!k->rt || !k->norm || !k->codes) {
        s = fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    for (int i = 0, j = 0; i < k->info.nparams; i++)
        if (k->info.params[i].runtime)
            k->rt[j++] = &k->info.params[i];
    if (k->info.tuned) {
        /* One kernel per config, each compiled like --autotune-config I. */
        k->nconfigs = k->info.num_configs;
        k->configs = arena_alloc(&k->arena, sizeof(TlKernel *) * (size_t)k->nconfigs);
        for (int i = 0; i < k->nconfigs && s == TL_SUCCESS; i++) {
            char *copy = malloc(len + 1), opt[64];
            if (!copy) {
                s = fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
                break;
            }
            memcpy(copy, text, len + 1);
            Buf o = {0};
            snprintf(opt, sizeof opt, " --autotune-config %d", i);
            buf_printf(&o, "%s%s", options ? options : "", opt);
            s = api_kernel_create(ctx, copy, len, name, o.data, &k->configs[i]);
            if (s == TL_SUCCESS)
                k->configs[i]->parent = k;
            buf_free(&o);
        }
    }
    if (s == TL_SUCCESS && !k->opts.signature)
        k->opts.runtime_signature = true; /* launches build one from their arguments */
    else if (s == TL_SUCCESS && !k->info.tuned && !k->info.heur_per_launch) { /* else: at the first launch */
        Variant *v;
        s = api_get_variant(k, k->opts.signature, &v);
    }
out:
    buf_free(&err);
    if (s != TL_SUCCESS) {
        tl_kernel_destroy(k);
        return s;
    }
    *out = k;
    return TL_SUCCESS;
}

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
    return listed(ctx, api_kernel_create(ctx, text, len, path, options, out), out);
}

TlStatus tl_kernel_from_string(TlContext *ctx, const char *source, const char *options, TlKernel **out) {
    if (!ctx || !source || !out)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_from_string: null argument");
    *out = NULL;
    clear_error(ctx);
    char *text = strdup(source);
    if (!text)
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    return listed(ctx, api_kernel_create(ctx, text, strlen(text), "<string>", options, out), out);
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

/* TlDType of an IR element type; 0 if none matches. */
TlDType api_dtype_of(DType dt) {
    for (int i = TL_I1; i <= TL_DTYPE_LAST; i++)
        if (dtypes[i].dt == dt)
            return (TlDType)i;
    return (TlDType)0;
}

TlStatus tl_kernel_param(const TlKernel *k, int i, TlParamInfo *out) {
    if (!k || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    if (i < 0 || i >= k->info.nruntime)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: no runtime parameter %d (it has %d)", k->name, i,
                    k->info.nruntime);
    const KernelParam *p = k->rt[i];
    bool ptr = p->type.dtype == DT_PTR;
    *out = (TlParamInfo){.name = p->name, .is_pointer = ptr && !p->desc_rank,
                         .dtype = api_dtype_of((DType)(ptr ? p->type.pointee : p->type.dtype)), .hint = p->hint,
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

/* ---- TL_DUMP ---- */

bool api_dump_enabled(void) {
    const char *v = getenv("TL_DUMP");
    return (v && *v && strcmp(v, "0")) || getenv("TL_DUMP_DIR");
}

void api_options_key(const TlKernel *k, Buf *b) {
    const CompileOptions *o = &k->opts;
    buf_printf(b, "warps %d stages %d config %d auto-tma %d ws %d fpf %d debug %d\n", o->num_warps, o->num_stages,
               o->autotune_config, o->auto_tma, o->warp_specialize, o->fp_fusion, o->debug_info);
    for (int i = 0; i < o->ndefines; i++)
        buf_printf(b, "define %s=%s\n", o->defines[i].name, o->defines[i].value);
}

void api_dump(const TlKernel *k, const Variant *v, const char *ext, const Buf *text) {
    const char *dir = getenv("TL_DUMP_DIR") ? getenv("TL_DUMP_DIR") : ".";
    Buf path = {0}, id = {0};
    /* The hash of the specialisation and the options keeps apart the
     * variants of one kernel and the kernels one source makes (-D, configs). */
    buf_printf(&id, "%s\n", v->key);
    api_options_key(k, &id);
    buf_printf(&path, "%s/%s-%016llx.%s", dir, k->name,
               (unsigned long long)cache_hash(id.data, id.len, 0), ext);
    buf_free(&id);
    FILE *f = fopen(path.data, "wb");
    if (f) {
        if (text->len)
            fwrite(text->data, 1, text->len, f);
        fclose(f);
    } else {
        /* TL_DUMP asked for output: a directory that cannot take it must
         * not look like a kernel that was never compiled. Said once. */
        static _Atomic bool said;
        if (!__atomic_exchange_n(&said, true, __ATOMIC_RELAXED))
            fprintf(stderr, "tl: TL_DUMP_DIR '%s': cannot write %s: %s; nothing is dumped\n", dir, path.data,
                    strerror(errno));
    }
    buf_free(&path);
}

/* ---- launch ---- */

static const char *kind_name(const TlArg *a) {
    switch (a->kind) {
    case TL_ARG_BUFFER: return "a buffer";
    case TL_ARG_POINTER: return "a pointer";
    case TL_ARG_INT: return "an integer";
    case TL_ARG_FLOAT: return "a float";
    case TL_ARG_TENSORDESC: return "a tensor descriptor";
    }
    return "an invalid argument";
}

/* Triton's spelling of a descriptor type: "tensordesc<fp16[64, 32]>". */
static void desc_type(Buf *b, TlDType dt, int rank, const int32_t *block) {
    buf_printf(b, "tensordesc<%s[", dtypes[dt].sig);
    for (int d = 0; d < rank; d++)
        buf_printf(b, "%s%d", d ? ", " : "", (int)block[d]);
    buf_puts(b, "]>");
}

/* A parameter's type as messages spell it (a descriptor's as its signature). */
static const char *param_type_name(const KernelParam *p, char *out, size_t n) {
    Buf b = {0};
    if (p->desc_rank)
        desc_type(&b, api_dtype_of((DType)p->type.pointee), p->desc_rank, p->desc_block);
    else
        ir_type_print(&b, p->type);
    snprintf(out, n, "%s", b.data ? b.data : "?");
    buf_free(&b);
    return out;
}


/* The element type of a descriptor: its own, or its buffer's. */
static TlDType desc_dtype(const TlTensorDesc *d) { return d->buffer && !d->dtype ? d->buffer->dtype : d->dtype; }

/* A descriptor's own validity: what TMA needs (16-byte aligned base and
 * strides, unit last stride, power-of-two blocks with 16 bytes or more in the
 * last dim), and every described element inside its memory. NULL if fine. */
static const char *check_desc(TlContext *ctx, const TlTensorDesc *d, char *why, size_t len) {
    if (!d)
        return "is a null tensor descriptor";
    if (d->rank < 1 || d->rank > TL_TENSORDESC_MAX_RANK)
        return snprintf(why, len, "is a tensor descriptor of rank %d (1 to %d)", d->rank, TL_TENSORDESC_MAX_RANK), why;
    /* the dtype first: every message below spells it through dtypes[] */
    if (d->dtype && !tl_dtype_size(d->dtype))
        return snprintf(why, len, "is a tensor descriptor with an invalid dtype %d", (int)d->dtype), why;
    TlDType dt = desc_dtype(d);
    size_t es = tl_dtype_size(dt);
    if (d->buffer) {
        if (d->buffer->ctx != ctx)
            return "is a tensor descriptor over a buffer of another context";
        if (d->dtype && d->dtype != d->buffer->dtype)
            return snprintf(why, len, "is a tensor descriptor of %s over a buffer of %s", dtypes[d->dtype].sig,
                            dtypes[d->buffer->dtype].sig), why;
    } else {
        if (!es)
            return snprintf(why, len, "is a tensor descriptor with an invalid dtype %d", (int)d->dtype), why;
        if (!d->addr)
            return "is a tensor descriptor over a null pointer";
        if (ctx->kind == TL_DEVICE_CPU && !d->count)
            return "is a tensor descriptor over a pointer without its element count (the interpreter checks bounds)";
        if (d->addr % 16)
            return snprintf(why, len, "is a tensor descriptor whose base 0x%llx is not 16-byte aligned",
                            (unsigned long long)d->addr), why;
        if (ctx->kind == TL_DEVICE_CUDA && !gpu_pointer_known(ctx, d->addr))
            return snprintf(why, len, "is a tensor descriptor over 0x%llx, which is not memory the GPU can reach "
                                      "(the CUDA driver does not know it: a host pointer?)",
                            (unsigned long long)d->addr), why;
    }
    if (d->padding_nan != 0 && d->padding_nan != 1)
        return "is a tensor descriptor whose padding_nan is neither 0 nor 1";
    if (d->padding_nan && dt != TL_F16 && dt != TL_BF16 && dt != TL_F32 && dt != TL_F64)
        return "is a tensor descriptor of integers with NaN padding";
    int64_t numel = 1, last = 0; /* the last element described */
    bool empty = false;
    for (int i = 0; i < d->rank; i++) {
        int32_t b = d->block_shape[i];
        if (b < 1 || (b & (b - 1)) || (numel *= b) > (1 << 20))
            return snprintf(why, len, "is a tensor descriptor whose block dims must be powers of two of at most "
                                      "2^20 elements in all, but block_shape[%d] is %d", i, (int)b), why;
        if (d->shape[i] < 0 || d->shape[i] > INT32_MAX)
            return snprintf(why, len, "is a tensor descriptor whose shape[%d] is %lld (0 to 2^31-1)", i,
                            (long long)d->shape[i]), why;
        int64_t st = d->strides[i];
        if (i == d->rank - 1 && st != 1)
            return snprintf(why, len, "is a tensor descriptor whose last stride is %lld; it must be 1 (the last "
                                      "dimension contiguous)", (long long)st), why;
        if (i < d->rank - 1 && (st < 1 || st > ((int64_t)1 << 40) / (int64_t)es || (st * (int64_t)es) % 16))
            return snprintf(why, len, "is a tensor descriptor whose strides[%d] = %lld elements (%lld bytes) is not a "
                                      "positive multiple of 16 bytes", i, (long long)st, (long long)(st * (int64_t)es)),
                   why;
        empty |= !d->shape[i];
        /* (shape - 1) * stride summed can pass 2^63: such a tensor lies in no buffer */
        int64_t reach;
        if (d->shape[i] && (__builtin_mul_overflow(d->shape[i] - 1, st, &reach) ||
                            __builtin_add_overflow(last, reach, &last)))
            return snprintf(why, len, "is a tensor descriptor whose extent overflows 64 bits at dim %d "
                                      "((shape - 1) * stride)", i), why;
    }
    if ((int64_t)d->block_shape[d->rank - 1] * (int64_t)es < 16)
        return snprintf(why, len, "is a tensor descriptor whose block has %d bytes in the last dimension; at least 16 "
                                  "are needed", (int)(d->block_shape[d->rank - 1] * (int)es)), why;
    size_t count = d->buffer ? d->buffer->count : d->count;
    if (count && !empty && (uint64_t)last >= count)
        return snprintf(why, len, "is a tensor descriptor reaching element %lld, past the %zu elements of its %s",
                        (long long)last, count, d->buffer ? "buffer" : "pointer"), why;
    return NULL;
}

/* Does the integer x fit in dt? */
static bool int_fits(int64_t x, DType dt) {
    switch (dt) {
    case DT_I1: return x == 0 || x == 1;
    case DT_I8: return x >= INT8_MIN && x <= INT8_MAX;
    case DT_I16: return x >= INT16_MIN && x <= INT16_MAX;
    case DT_I32: return x >= INT32_MIN && x <= INT32_MAX;
    case DT_U8: return x >= 0 && x <= UINT8_MAX;
    case DT_U16: return x >= 0 && x <= UINT16_MAX;
    case DT_U32: return x >= 0 && x <= (int64_t)UINT32_MAX;
    default: return true; /* i64, u64: the 64 bits are passed as they are */
    }
}


/* Check argument i against runtime parameter p and write it, converted to
 * the parameter's type, to *out. The argument's own validity (kind, dtype,
 * buffer of this context) is checked whether or not a signature types p. */
static bool check_arg(TlKernel *k, int i, const KernelParam *p, const TlArg *a, TlArg *out) {
    TlContext *ctx = k->ctx;
    *out = *a;
#define BAD(...) (fail(ctx, TL_ERROR_LAUNCH, __VA_ARGS__), false)
    const char *pn = p->name;
    switch (a->kind) {
    case TL_ARG_BUFFER:
        if (!a->v.buffer)
            return BAD("%s: argument %d ('%s') is a null buffer", k->name, i + 1, pn);
        if (!a->v.buffer->ctx)
            return BAD("%s: argument %d ('%s') is a buffer whose context was destroyed", k->name, i + 1, pn);
        if (a->v.buffer->ctx != ctx)
            return BAD("%s: argument %d ('%s') is a buffer of another context", k->name, i + 1, pn);
        break;
    case TL_ARG_POINTER:
        if (!tl_dtype_size(a->dtype))
            return BAD("%s: argument %d ('%s'): invalid pointer element dtype %d", k->name, i + 1, pn, (int)a->dtype);
        if (!a->v.p.addr) /* valid, as in Triton (an empty tensor's data_ptr): the kernel must not use it; the
                           * interpreter reports any access as a null-pointer one */
            break;
        if (ctx->kind == TL_DEVICE_CPU && !a->v.p.count)
            return BAD("%s: argument %d ('%s'): a pointer on the CPU device needs its element count (the "
                       "interpreter checks bounds)",
                       k->name, i + 1, pn);
        if (ctx->kind == TL_DEVICE_CUDA && !gpu_pointer_known(ctx, a->v.p.addr))
            return BAD("%s: argument %d ('%s'): 0x%llx is not memory the GPU can reach (the CUDA driver does not "
                       "know it: a host pointer?)",
                       k->name, i + 1, pn, (unsigned long long)a->v.p.addr);
        break;
    case TL_ARG_INT:
        if (a->dtype < TL_I1 || a->dtype > TL_U64)
            return BAD("%s: argument %d ('%s'): invalid integer dtype %d", k->name, i + 1, pn, (int)a->dtype);
        break;
    case TL_ARG_FLOAT:
        if (a->dtype != TL_F16 && a->dtype != TL_BF16 && a->dtype != TL_F32 && a->dtype != TL_F64)
            return BAD("%s: argument %d ('%s'): invalid float dtype %d", k->name, i + 1, pn, (int)a->dtype);
        break;
    case TL_ARG_TENSORDESC: {
        char why[256];
        const char *bad = check_desc(ctx, a->v.desc, why, sizeof why);
        if (bad)
            return BAD("%s: argument %d ('%s') %s", k->name, i + 1, pn, bad);
        break;
    }
    default:
        return BAD("%s: argument %d ('%s') has an invalid kind %d", k->name, i + 1, pn, (int)a->kind);
    }
    if (p->type.dtype == DT_VOID) /* no signature: the argument gives the type */
        return true;

    char wbuf[128]; /* the parameter's type, spelt only where needed: launches stay allocation-free */
#define w param_type_name(p, wbuf, sizeof wbuf)
    if ((a->kind == TL_ARG_TENSORDESC) != (p->desc_rank > 0))
        return BAD("%s: argument %d ('%s') is %s, but the parameter is %s", k->name, i + 1, pn, kind_name(a), w);
    if (p->desc_rank) {
        const TlTensorDesc *d = a->v.desc;
        Buf got = {0};
        desc_type(&got, desc_dtype(d), d->rank, d->block_shape);
        bool same = !strcmp(got.data, w);
        if (!same)
            fail(ctx, TL_ERROR_LAUNCH, "%s: argument %d ('%s') is a %s, but the parameter is %s", k->name, i + 1, pn,
                 got.data, w);
        buf_free(&got);
        for (int r = 0; same && p->hint == 16 && r < d->rank; r++)
            if (d->shape[r] % 16)
                return BAD("%s: argument %d ('%s'): the signature promises shapes that are multiples of 16 (:16), "
                           "but shape[%d] is %lld",
                           k->name, i + 1, pn, r, (long long)d->shape[r]);
        return same;
    }
    bool is_ptr = a->kind == TL_ARG_BUFFER || a->kind == TL_ARG_POINTER;
    DType pdt = (DType)p->type.dtype;
    if ((pdt == DT_PTR) != is_ptr)
        return BAD("%s: argument %d ('%s') is %s, but the parameter is %s", k->name, i + 1, pn, kind_name(a), w);
    if (is_ptr) {
        TlDType et = a->kind == TL_ARG_BUFFER ? a->v.buffer->dtype : a->dtype;
        if (dtypes[et].dt != (DType)p->type.pointee)
            return BAD("%s: argument %d ('%s') points to %s elements, but the parameter is %s", k->name, i + 1, pn,
                       dtypes[et].sig, w);
        uint64_t addr = a->kind == TL_ARG_POINTER ? a->v.p.addr : 0; /* buffers are 128-byte aligned */
        if (p->hint == 16 && addr % 16)
            return BAD("%s: argument %d ('%s'): the signature promises 16-byte alignment (:16), but the pointer is "
                       "0x%llx",
                       k->name, i + 1, pn, (unsigned long long)addr);
        return true;
    }
    bool arg_int = a->kind == TL_ARG_INT, par_int = dt_is_int(pdt);
    if (arg_int != par_int && !(a->flags & TL_ARG_CONVERT))
        return BAD("%s: argument %d ('%s') is %s (%s), but the parameter is %s; pass it with tl_arg_convert() to "
                   "convert it",
                   k->name, i + 1, pn, kind_name(a), dtypes[a->dtype].sig, w);
    out->dtype = api_dtype_of(pdt);
    if (par_int) {
        int64_t x = a->v.i;
        if (!arg_int) {
            double f = a->v.f;
            if (!(f >= -9.2e18 && f <= 9.2e18) || f != (double)(int64_t)f)
                return BAD("%s: argument %d ('%s'): %g is not an integer, so it cannot convert to %s", k->name, i + 1,
                           pn, f, w);
            x = (int64_t)f;
        }
        if (pdt == DT_I1) /* Triton: its launcher passes an int's low byte unchecked, the kernel reads the bit */
            x &= 1;
        if (!int_fits(x, pdt))
            return BAD("%s: argument %d ('%s'): %lld does not fit in the parameter's type %s", k->name, i + 1, pn,
                       (long long)x, w);
        if (p->hint == 16 && x % 16)
            return BAD("%s: argument %d ('%s') is %lld, but the signature promises a multiple of 16 (:16)", k->name,
                       i + 1, pn, (long long)x);
        if (p->hint == 1 && x != 1)
            return BAD("%s: argument %d ('%s') is %lld, but the signature promises 1 (:1)", k->name, i + 1, pn,
                       (long long)x);
        out->kind = TL_ARG_INT;
        out->v.i = x;
    } else {
        out->kind = TL_ARG_FLOAT;
        out->v.f = arg_int ? (double)a->v.i : a->v.f;
    }
    return true;
#undef w
#undef BAD
}

/* The runtime signature of a launch: Triton's AOT spelling of each argument,
 * with ":16" for 16-divisible integers and aligned pointers, ":1" for ones. */
void api_launch_signature(const TlArg *args, int nargs, Buf *sig) {
    for (int i = 0; i < nargs; i++) {
        const TlArg *a = &args[i];
        bool spec = !(a->flags & TL_ARG_NO_SPECIALIZE);
        if (i)
            buf_puts(sig, ", ");
        switch (a->kind) {
        case TL_ARG_BUFFER: /* buffers are at least 128-byte aligned */
            buf_printf(sig, "*%s%s", dtypes[a->v.buffer->dtype].sig, spec ? ":16" : "");
            break;
        case TL_ARG_POINTER:
            buf_printf(sig, "*%s%s", dtypes[a->dtype].sig, spec && a->v.p.addr % 16 == 0 ? ":16" : "");
            break;
        case TL_ARG_TENSORDESC: { /* ":16": every dim of the shape a multiple of 16 */
            const TlTensorDesc *d = a->v.desc;
            desc_type(sig, desc_dtype(d), d->rank, d->block_shape);
            bool all16 = spec;
            for (int r = 0; r < d->rank; r++)
                all16 &= d->shape[r] % 16 == 0;
            if (all16)
                buf_puts(sig, ":16");
            break;
        }
        case TL_ARG_INT:
            buf_puts(sig, dtypes[a->dtype].sig);
            if (spec && a->dtype != TL_I1 && a->v.i == 1)
                buf_puts(sig, ":1");
            else if (spec && a->dtype != TL_I1 && a->v.i % 16 == 0)
                buf_puts(sig, ":16");
            break;
        default:
            buf_puts(sig, dtypes[a->dtype].sig);
            break;
        }
    }
    buf_puts(sig, "");
}

/* A variant that failed to build: free it, pass the status on. */
static TlStatus variant_drop(TlKernel *k, Variant *v, TlStatus s) {
    gpu_unload(k->ctx, v);
    arena_free(&v->arena);
    free(v->key);
    free(v);
    return s;
}

TlStatus api_get_variant(TlKernel *k, const char *key, Variant **out) {
    for (Variant *v = k->variants; v; v = v->next)
        if (!strcmp(v->key, key)) {
            *out = v;
            return TL_SUCCESS;
        }
    Variant *v = calloc(1, sizeof *v);
    if (!v || !(v->key = strdup(key))) {
        free(v);
        return fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    double t0 = now_seconds();
    if (k->ctx->kind == TL_DEVICE_CUDA && !api_dump_enabled()) {
        /* A warm start: the cubin is in the disk cache, so no sema at all. */
        bool hit;
        TlStatus s = gpu_load_cached(k, v, &hit);
        if (s != TL_SUCCESS || hit) {
            if (s != TL_SUCCESS)
                return variant_drop(k, v, s);
            v->next = k->variants;
            k->variants = v;
            *out = v;
            return TL_SUCCESS;
        }
    }
    CompileOptions o = k->opts;
    o.signature = heur_split_key(&v->arena, v->key, &o); /* the launch signature, or the user's --signature */
    Diag d = {.max_errors = o.max_errors, .library = true};
    CompileTimes times = {0};
    CompileHooks hooks = {.times = &times};
    v->fn = compile_kernel(&v->arena, &d, &k->src, k->module, &o, &hooks);
    /* the CPU never says success where the GPU would refuse the block */
    if (v->fn && k->ctx->kind != TL_DEVICE_CUDA && !compile_check_gpu_limits(&v->arena, &d, &k->src, k->module, &o))
        v->fn = NULL;
    api_add_times(k->ctx, &times);
    if (d.out.data)
        buf_puts(&k->log, d.out.data);
    if (!v->fn) {
        TlStatus s = fail(k->ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s",
                          d.out.data ? d.out.data : "compilation failed");
        buf_free(&d.out);
        return variant_drop(k, v, s);
    }
    buf_free(&d.out);
    k->ir.len = 0;
    ir_print_func(&k->ir, v->fn);
    if (api_dump_enabled()) {
        Buf ast = {0};
        ast_print(&ast, k->info.def);
        api_dump(k, v, "ast", &ast);
        api_dump(k, v, "ir", &k->ir);
        buf_free(&ast);
    }
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_build(k, v);
        if (s != TL_SUCCESS)
            return variant_drop(k, v, s);
    }
    api_stat_add(k->ctx, &k->ctx->stats.compiles, now_seconds() - t0, &k->ctx->stats.compile_seconds);
    v->next = k->variants;
    k->variants = v;
    *out = v;
    return TL_SUCCESS;
}

static TlStatus launch_cpu(TlKernel *k, const Function *fn, const unsigned grid[3], const TlArg *args, int nargs) {
    /* Besides the arguments' buffers, every live buffer of the context, so
     * that an address the kernel loads and casts to a pointer (tutorial 08's
     * arrays of pointers, tl_buffer_device_ptr) reaches its buffer, as many
     * as the interpreter can name. */
    size_t nlive = 0;
    for (const TlBuffer *b = k->ctx->cpu_buffers; b; b = b->next)
        nlive++;
    if (nlive > INTERP_MAX_BUFFERS - (size_t)nargs)
        nlive = INTERP_MAX_BUFFERS - (size_t)nargs;
    InterpArg *iargs = calloc((size_t)nargs + 1, sizeof *iargs);
    InterpBuffer *bufs = calloc((size_t)nargs + nlive + 1, sizeof *bufs);
    if (!iargs || !bufs) {
        free(iargs);
        free(bufs);
        return fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    int nbufs = 0;
    for (int i = 0; i < nargs; i++) {
        iargs[i].buf = -1;
        if (args[i].kind == TL_ARG_BUFFER) {
            bufs[nbufs] = (InterpBuffer){args[i].v.buffer->host, args[i].v.buffer->bytes};
            iargs[i].buf = nbufs++;
        } else if (args[i].kind == TL_ARG_POINTER && args[i].v.p.addr) {
            bufs[nbufs] = (InterpBuffer){(void *)(uintptr_t)args[i].v.p.addr,
                                         args[i].v.p.count * tl_dtype_size(args[i].dtype)};
            iargs[i].buf = nbufs++;
        } else if (args[i].kind == TL_ARG_POINTER) { /* null: buf -1, the interpreter's null pointer */
        } else if (args[i].kind == TL_ARG_INT) {
            iargs[i].i = args[i].v.i;
        } else {
            iargs[i].f = args[i].v.f;
        }
    }
    for (const TlBuffer *b = k->ctx->cpu_buffers; b && nlive; b = b->next, nlive--)
        bufs[nbufs++] = (InterpBuffer){b->host, b->bytes};
    Buf out = {0};
    Diag d = {.library = true};
    InterpLaunch L = {
        .fn = fn, .args = iargs, .bufs = bufs, .nbufs = nbufs,
        .grid = {grid[0], grid[1], grid[2]}, .print_out = &out, .diag = &d,
    };
    InterpStatus st = interp_run(&L);
    if (out.len) {
        if (k->ctx->print)
            k->ctx->print(k->ctx->print_user, out.data, out.len);
        else
            fwrite(out.data, 1, out.len, stdout);
    }
    static const TlStatus map[] = {
        [INTERP_OK] = TL_SUCCESS, [INTERP_OUT_OF_BOUNDS] = TL_ERROR_OUT_OF_BOUNDS,
        [INTERP_ASSERT] = TL_ERROR_DEVICE_ASSERT, [INTERP_BAD_ARGS] = TL_ERROR_LAUNCH,
        [INTERP_NO_MEMORY] = TL_ERROR_OUT_OF_MEMORY, [INTERP_INTERNAL] = TL_ERROR_INTERNAL,
    };
    TlStatus s = (unsigned)st < sizeof map / sizeof map[0] ? map[st] : TL_ERROR_INTERNAL;
    if (s != TL_SUCCESS)
        fail(k->ctx, s, "%s", d.out.data ? d.out.data : "kernel failed");
    buf_free(&out);
    buf_free(&d.out);
    free(iargs);
    free(bufs);
    return s;
}

/* What of an argument its specialisation depends on: kind, dtype, and the
 * :16 / :1 bits launch_signature spells; 0 for a tensor descriptor, whose
 * block shape is spelt in full (such launches always spell the signature). */
static uint16_t arg_code(const TlArg *a) {
    if (a->kind == TL_ARG_TENSORDESC)
        return 0;
    bool spec = !(a->flags & TL_ARG_NO_SPECIALIZE);
    unsigned dt = a->kind == TL_ARG_BUFFER ? a->v.buffer->dtype : a->dtype, bits = 0;
    if (a->kind == TL_ARG_BUFFER)
        bits = spec;
    else if (a->kind == TL_ARG_POINTER)
        bits = spec && a->v.p.addr % 16 == 0;
    else if (a->kind == TL_ARG_INT && spec && a->dtype != TL_I1)
        bits = a->v.i == 1 ? 2 : a->v.i % 16 == 0;
    return (uint16_t)(a->kind | dt << 3 | bits << 8);
}

bool api_check_args(TlKernel *k, const TlArg *args, int nargs) {
    int want = k->info.nruntime;
    if (nargs > 0 && !args) {
        fail(k->ctx, TL_ERROR_LAUNCH, "%s: args is NULL but nargs is %d", k->name, nargs);
        return false;
    }
    if (nargs != want) {
        Buf names = {0};
        for (int i = 0; i < want; i++)
            buf_printf(&names, "%s%s", i ? ", " : "", k->rt[i]->name);
        fail(k->ctx, TL_ERROR_LAUNCH, "%s: expected %d argument%s (%s), got %d", k->name, want, want == 1 ? "" : "s",
             names.data ? names.data : "", nargs);
        buf_free(&names);
        return false;
    }
    for (int i = 0; i < nargs; i++)
        if (!check_arg(k, i, k->rt[i], &args[i], &k->norm[i]))
            return false;
    return true;
}

/* The kernel's own parameters for checked arguments: each tensor descriptor
 * becomes its base pointer, shape (i32), strides but the last (i64), for
 * float elements the NaN-padding flag (i1), and its tensor map (an i64 that
 * is the descriptor's number among the launch's: gpu_launch passes the
 * CUtensorMap gpu_encode_tensor_maps made for it), as sema_desc_param
 * declares them. */
static bool flatten_args(TlKernel *k, const TlArg *args, int nargs, const TlArg **out, int *nout) {
    int n = 0;
    for (int i = 0; i < nargs; i++) {
        const TlTensorDesc *d = args[i].kind == TL_ARG_TENSORDESC ? args[i].v.desc : NULL;
        TlDType dt = d ? desc_dtype(d) : (TlDType)0;
        n += d ? 2 * d->rank + 1 + (dt == TL_F16 || dt == TL_BF16 || dt == TL_F32 || dt == TL_F64) : 1;
    }
    *out = args, *nout = nargs;
    if (n == nargs)
        return true;
    if (n > k->flat_cap) {
        TlArg *f = realloc(k->flat, sizeof(TlArg) * (size_t)n);
        if (!f)
            return fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory"), false;
        k->flat = f, k->flat_cap = n;
    }
    TlArg *f = k->flat;
    int j = 0, maps = 0;
    for (int i = 0; i < nargs; i++) {
        const TlTensorDesc *d = args[i].kind == TL_ARG_TENSORDESC ? args[i].v.desc : NULL;
        if (!d) {
            f[j++] = args[i];
            continue;
        }
        TlDType dt = desc_dtype(d);
        f[j++] = d->buffer ? tl_arg_buffer(d->buffer) : tl_arg_ptr(d->addr, dt, d->count);
        for (int r = 0; r < d->rank; r++)
            f[j++] = tl_arg_i32((int32_t)d->shape[r]);
        for (int r = 0; r < d->rank - 1; r++)
            f[j++] = tl_arg_i64(d->strides[r]);
        if (dt == TL_F16 || dt == TL_BF16 || dt == TL_F32 || dt == TL_F64) {
            TlArg nan = {TL_ARG_INT, TL_I1, 0, {0}};
            nan.v.i = d->padding_nan;
            f[j++] = nan;
        }
        f[j++] = tl_arg_i64(maps++);
    }
    *out = f, *nout = j;
    return true;
}

TlStatus api_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream, bool sync) {
    if (!grid)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: null grid", k->name);
    if (!grid[0] || !grid[1] || !grid[2])
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) has a zero dimension", k->name, grid[0],
                    grid[1], grid[2]);
    if (grid[0] > 2147483647u || grid[1] > 65535 || grid[2] > 65535)
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) exceeds the limits (2^31-1, 65535, 65535)",
                    k->name, grid[0], grid[1], grid[2]);
    if (!api_check_args(k, args, nargs))
        return TL_ERROR_LAUNCH;
    /* A launch whose arguments specialise like the last one's takes the
     * last variant without spelling its signature (the common case: a
     * kernel launched in a loop). */
    bool same = k->last != NULL;
    for (int i = 0; i < nargs; i++) {
        uint16_t c = arg_code(&k->norm[i]);
        same = same && c && k->codes[i] == c;
        k->codes[i] = c;
    }
    Variant *v = k->last;
    if (k->info.heur_per_launch) { /* the heuristics' results choose the variant too */
        TlStatus s = heur_eval(k, k->norm, nargs);
        if (s != TL_SUCCESS)
            return s;
        same = same && k->heur_cur == k->heur_last;
        k->heur_last = k->heur_cur;
    }
    if (!same) {
        const char *key = k->opts.signature;
        if (!key || k->info.heur_per_launch) {
            k->sig.len = 0;
            heur_variant_key(k, k->norm, nargs, &k->sig);
            key = k->sig.data;
        }
        k->last = NULL;
        TlStatus s = api_get_variant(k, key, &v);
        if (s != TL_SUCCESS)
            return s;
        k->last = v;
    }
    const TlArg *flat;
    int nflat;
    if (!flatten_args(k, k->norm, nargs, &flat, &nflat))
        return TL_ERROR_OUT_OF_MEMORY;
    if (k->ctx->kind == TL_DEVICE_CUDA && v->nauto) {
        /* the maps the tma pass asked for, from this launch's values; values
         * TMA cannot take run the variant compiled without them */
        bool ok;
        TlStatus s = gpu_encode_auto_maps(k, v, flat, nflat, &ok);
        if (s != TL_SUCCESS)
            return s;
        if (!ok) {
            Buf key = {0};
            buf_printf(&key, "%s\n%s", v->key, API_NO_AUTO_TMA);
            s = key.data ? api_get_variant(k, key.data, &v) : fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
            buf_free(&key);
            if (s != TL_SUCCESS)
                return s;
        }
    }
    int want = k->ctx->kind == TL_DEVICE_CUDA ? v->nparams - v->nauto : v->fn->nparams;
    if (nflat != want)
        return fail(k->ctx, TL_ERROR_INTERNAL, "%s: the launch has %d kernel parameters, the kernel %d", k->name, nflat,
                    want);
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_encode_tensor_maps(k, k->norm, nargs);
        return s != TL_SUCCESS ? s : gpu_launch(k, v, grid, flat, nflat, stream, sync);
    }
    return launch_cpu(k, v->fn, grid, flat, nflat);
}

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
