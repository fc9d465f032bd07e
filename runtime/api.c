/* api.c: the public C API (tl.h): contexts, buffers, kernels, launches.
 *
 * A TlKernel holds the parsed file and its options; launches specialise it on
 * the arguments (types, divisibility by 16, equality to 1, as Triton does),
 * and each specialisation is compiled once and kept in the kernel's variant
 * list, keyed by the runtime signature string. The CPU device runs variants in
 * the interpreter. */
#include "tl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api_int.h"
#include "cache.h"
#include "interp.h"

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
    ctx->err.len = 0;
    buf_puts(&ctx->err, "");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&ctx->err, fmt, ap);
    va_end(ap);
    return s;
}

/* Why the last attempt to open the CUDA device failed (per process). */
static char no_device_reason[512];

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

void tl_context_destroy(TlContext *ctx) {
    if (!ctx)
        return;
    if (ctx->kind == TL_DEVICE_CUDA)
        gpu_close(ctx);
    buf_free(&ctx->err);
    free(ctx);
}

TlDeviceKind tl_context_device(const TlContext *ctx) { return ctx ? ctx->kind : TL_DEVICE_AUTO; }

const char *tl_context_device_name(const TlContext *ctx) {
    if (!ctx)
        return "";
    return ctx->kind == TL_DEVICE_CUDA ? ctx->name : "cpu (interpreter)";
}

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
    [TL_F64] = {DT_F64, "fp64", 8},
};

size_t tl_dtype_size(TlDType dt) {
    return dt >= TL_I1 && dt <= TL_F64 ? dtypes[dt].size : 0;
}

TlStatus tl_buffer_create(TlContext *ctx, TlDType dtype, size_t count, TlBuffer **out) {
    if (!ctx || !out)
        return TL_ERROR_INVALID_ARGUMENT;
    *out = NULL;
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
        *out = b;
        return TL_SUCCESS;
    }
    /* 128-byte alignment like cudaMalloc's guarantee, so ":16" specialisation holds. */
    b->host = aligned_alloc(128, (b->bytes + 127) & ~(size_t)127);
    if (!b->host) {
        free(b);
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "tl_buffer_create: cannot allocate %zu bytes", count * es);
    }
    memset(b->host, 0, b->bytes);
    *out = b;
    return TL_SUCCESS;
}

void tl_buffer_destroy(TlBuffer *b) {
    if (!b)
        return;
    if (b->ctx->kind == TL_DEVICE_CUDA)
        gpu_free(b);
    free(b->host);
    free(b);
}

size_t tl_buffer_count(const TlBuffer *b) { return b ? b->count : 0; }
TlDType tl_buffer_dtype(const TlBuffer *b) { return b ? b->dtype : (TlDType)0; }
uint64_t tl_buffer_device_ptr(const TlBuffer *b) { return b ? b->dptr : 0; }

static TlStatus check_range(const TlBuffer *b, size_t offset, const void *p, size_t bytes, const char *fn) {
    if (!b)
        return TL_ERROR_INVALID_ARGUMENT;
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

/* True when a parameter is annotated tl.constexpr / constexpr. */
static bool is_constexpr_param(const Node *p) {
    const Node *ann = p->a;
    if (!ann)
        return false;
    if (ann->kind == N_NAME)
        return !strcmp(ann->name, "constexpr");
    return ann->kind == N_ATTR && !strcmp(ann->name, "constexpr");
}

static bool has_decorator(const Node *fn) { return fn->l2.len > 0; }

/* Does the subtree call a function named `name` directly? */
static bool calls(const Node *n, const char *name) {
    if (!n)
        return false;
    if (n->kind == N_CALL && n->a && n->a->kind == N_NAME && !strcmp(n->a->name, name))
        return true;
    if (calls(n->a, name) || calls(n->b, name) || calls(n->c, name))
        return true;
    const NodeList *lists[] = {&n->l0, &n->l1, &n->l2};
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < lists[i]->len; j++)
            if (calls(lists[i]->items[j], name))
                return true;
    return false;
}

/* A launchable kernel: a decorated function no other function calls (the
 * called ones are helpers that get inlined). */
static bool is_entry(const Node *module, const Node *fn) {
    if (fn->kind != N_FUNCDEF || !has_decorator(fn))
        return false;
    for (int i = 0; i < module->l0.len; i++) {
        const Node *other = module->l0.items[i];
        if (other != fn && other->kind == N_FUNCDEF && calls(other, fn->name))
            return false;
    }
    return true;
}

/* --kernel NAME, or the file's only entry; with several, ask for --kernel. */
static const Node *find_kernel(TlKernel *k, Buf *err) {
    const Node *found = NULL;
    int nentries = 0;
    for (int i = 0; i < k->module->l0.len; i++) {
        const Node *n = k->module->l0.items[i];
        if (n->kind != N_FUNCDEF)
            continue;
        if (k->opts.kernel && !strcmp(n->name, k->opts.kernel))
            return n;
        if (!k->opts.kernel && is_entry(k->module, n)) {
            nentries++;
            found = n;
        }
    }
    if (k->opts.kernel) {
        buf_printf(err, "%s: no function named '%s'", k->src.name, k->opts.kernel);
        return NULL;
    }
    if (nentries == 1)
        return found;
    buf_printf(err, "%s: %s; choose one with --kernel NAME:", k->src.name,
               nentries ? "several kernels" : "no @triton.jit kernel");
    for (int i = 0; i < k->module->l0.len; i++)
        if (is_entry(k->module, k->module->l0.items[i]))
            buf_printf(err, " %s", k->module->l0.items[i]->name);
    return NULL;
}

static TlStatus kernel_create(TlContext *ctx, char *text, size_t len, const char *name,
                              const char *options, TlKernel **out) {
    TlKernel *k = calloc(1, sizeof *k);
    if (!k) {
        free(text);
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    k->ctx = ctx;
    k->text = text;
    k->src = (Source){.name = arena_strdup(&k->arena, name), .text = text, .len = len};
    options_init(&k->opts);
    Buf err = {0};
    TlStatus s = TL_SUCCESS;
    if (!options_parse_string(&k->opts, &k->arena, options, &err)) {
        s = fail(ctx, TL_ERROR_INVALID_ARGUMENT, "invalid options: %s", err.data);
        goto out;
    }
    Diag d = {.max_errors = k->opts.max_errors};
    k->module = parse_source(&k->arena, &d, &k->src);
    if (d.out.data)
        buf_puts(&k->log, d.out.data);
    if (!k->module) {
        s = fail(ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s", d.out.data ? d.out.data : "");
        buf_free(&d.out);
        goto out;
    }
    buf_free(&d.out);
    if (!(k->def = find_kernel(k, &err))) {
        s = fail(ctx, TL_ERROR_COMPILE, "%s", err.data);
        goto out;
    }
    k->name = k->def->name;
    k->opts.kernel = k->name;
    for (int i = 0; i < k->def->l0.len; i++) {
        const Node *p = k->def->l0.items[i];
        if (p->op == OP_NONE && !is_constexpr_param(p))
            k->nparams++;
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

TlStatus tl_kernel_from_file(TlContext *ctx, const char *path, const char *options, TlKernel **out) {
    if (!ctx || !path || !out)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_from_file: null argument");
    *out = NULL;
    size_t len;
    char *text = read_file(path, &len);
    if (!text)
        return fail(ctx, TL_ERROR_IO, "cannot read '%s'", path);
    return kernel_create(ctx, text, len, path, options, out);
}

TlStatus tl_kernel_from_string(TlContext *ctx, const char *source, const char *options, TlKernel **out) {
    if (!ctx || !source || !out)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "tl_kernel_from_string: null argument");
    *out = NULL;
    char *text = strdup(source);
    if (!text)
        return fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    return kernel_create(ctx, text, strlen(text), "<string>", options, out);
}

void tl_kernel_destroy(TlKernel *k) {
    if (!k)
        return;
    for (Variant *v = k->variants, *next; v; v = next) {
        next = v->next;
        gpu_unload(k->ctx, v);
        arena_free(&v->arena);
        free(v->key);
        free(v);
    }
    buf_free(&k->log);
    buf_free(&k->ir);
    buf_free(&k->sig);
    arena_free(&k->arena);
    free(k->text);
    free(k);
}

const char *tl_kernel_name(const TlKernel *k) { return k && k->name ? k->name : ""; }
int tl_kernel_num_params(const TlKernel *k) { return k ? k->nparams : 0; }
const char *tl_kernel_log(const TlKernel *k) { return k && k->log.data ? k->log.data : ""; }
const char *tl_kernel_ir(const TlKernel *k) { return k && k->ir.data ? k->ir.data : ""; }

/* ---- TL_DUMP ---- */

bool api_dump_enabled(void) {
    const char *v = getenv("TL_DUMP");
    return (v && *v && strcmp(v, "0")) || getenv("TL_DUMP_DIR");
}

void api_dump(const TlKernel *k, const Variant *v, const char *ext, const Buf *text) {
    const char *dir = getenv("TL_DUMP_DIR") ? getenv("TL_DUMP_DIR") : ".";
    Buf path = {0};
    /* The hash of the specialisation keeps the variants of one kernel apart. */
    buf_printf(&path, "%s/%s-%016llx.%s", dir, k->name,
               (unsigned long long)cache_hash(v->key, strlen(v->key), 0), ext);
    FILE *f = fopen(path.data, "wb");
    if (f) {
        if (text->len)
            fwrite(text->data, 1, text->len, f);
        fclose(f);
    }
    buf_free(&path);
}

/* ---- launch ---- */

/* The runtime signature of a launch: Triton's AOT spelling of each argument,
 * with ":16" for 16-divisible integers and aligned buffers, ":1" for ones. */
static bool launch_signature(TlKernel *k, const TlArg *args, int nargs, Buf *sig) {
    for (int i = 0; i < nargs; i++) {
        const TlArg *a = &args[i];
        bool spec = !(a->flags & TL_ARG_NO_SPECIALIZE);
        if (i)
            buf_puts(sig, ", ");
        switch (a->kind) {
        case TL_ARG_BUFFER:
            if (!a->v.buffer) {
                fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d is a null buffer", k->name, i + 1);
                return false;
            }
            if (a->v.buffer->ctx != k->ctx) {
                fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d is a buffer of another context", k->name, i + 1);
                return false;
            }
            buf_printf(sig, "*%s%s", dtypes[a->v.buffer->dtype].sig, spec ? ":16" : "");
            break;
        case TL_ARG_INT:
            if (a->dtype < TL_I1 || a->dtype > TL_U64) {
                fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d: invalid integer dtype %d", k->name, i + 1, (int)a->dtype);
                return false;
            }
            buf_puts(sig, dtypes[a->dtype].sig);
            if (spec && a->dtype != TL_I1 && a->v.i == 1)
                buf_puts(sig, ":1");
            else if (spec && a->dtype != TL_I1 && a->v.i % 16 == 0)
                buf_puts(sig, ":16");
            break;
        case TL_ARG_FLOAT:
            if (a->dtype != TL_F16 && a->dtype != TL_BF16 && a->dtype != TL_F32 && a->dtype != TL_F64) {
                fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d: invalid float dtype %d", k->name, i + 1, (int)a->dtype);
                return false;
            }
            buf_puts(sig, dtypes[a->dtype].sig);
            break;
        default:
            fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d has an invalid kind %d", k->name, i + 1, (int)a->kind);
            return false;
        }
    }
    buf_puts(sig, "");
    return true;
}

static TlStatus get_variant(TlKernel *k, const char *key, Variant **out) {
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
    CompileOptions o = k->opts;
    o.signature = v->key; /* the launch signature, or the user's --signature */
    SemaOptions so = options_to_sema(&o);
    /* An explicit --signature lists every parameter, constexprs included;
     * a launch-built one only the runtime parameters. */
    so.runtime_signature = !k->opts.signature;
    Diag d = {.max_errors = o.max_errors};
    v->fn = sema_kernel(&v->arena, &d, &k->src, k->module, &so);
    if (v->fn && !ir_verify(&d, v->fn))
        v->fn = NULL;
    if (d.out.data)
        buf_puts(&k->log, d.out.data);
    if (!v->fn) {
        TlStatus s = fail(k->ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s",
                          d.out.data ? d.out.data : "compilation failed");
        buf_free(&d.out);
        arena_free(&v->arena);
        free(v->key);
        free(v);
        return s;
    }
    buf_free(&d.out);
    k->ir.len = 0;
    ir_print_func(&k->ir, v->fn);
    if (api_dump_enabled()) {
        Buf ast = {0};
        ast_print(&ast, k->def);
        api_dump(k, v, "ast", &ast);
        api_dump(k, v, "ir", &k->ir);
        buf_free(&ast);
    }
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_build(k, v);
        if (s != TL_SUCCESS) {
            gpu_unload(k->ctx, v);
            arena_free(&v->arena);
            free(v->key);
            free(v);
            return s;
        }
    }
    k->ctx->stats.compiles++;
    k->ctx->stats.compile_seconds += now_seconds() - t0;
    v->next = k->variants;
    k->variants = v;
    *out = v;
    return TL_SUCCESS;
}

static TlStatus launch_cpu(TlKernel *k, const Function *fn, const unsigned grid[3], const TlArg *args, int nargs) {
    InterpArg *iargs = calloc((size_t)nargs + 1, sizeof *iargs);
    InterpBuffer *bufs = calloc((size_t)nargs + 1, sizeof *bufs);
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
        } else if (args[i].kind == TL_ARG_INT) {
            iargs[i].i = args[i].v.i;
        } else {
            iargs[i].f = args[i].v.f;
        }
    }
    Buf out = {0};
    Diag d = {0};
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

static TlStatus launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, bool sync) {
    if (!k)
        return TL_ERROR_INVALID_ARGUMENT;
    if (!grid)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: null grid", k->name);
    if (!grid[0] || !grid[1] || !grid[2])
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) has a zero dimension", k->name, grid[0],
                    grid[1], grid[2]);
    if (grid[0] > 2147483647u || grid[1] > 65535 || grid[2] > 65535)
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) exceeds the limits (2^31-1, 65535, 65535)",
                    k->name, grid[0], grid[1], grid[2]);
    if (nargs != k->nparams || (nargs && !args))
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: expected %d arguments, got %d", k->name, k->nparams, nargs);
    k->sig.len = 0;
    if (!launch_signature(k, args, nargs, &k->sig))
        return TL_ERROR_LAUNCH;
    Variant *v;
    TlStatus s = get_variant(k, k->opts.signature ? k->opts.signature : k->sig.data, &v);
    if (s != TL_SUCCESS)
        return s;
    if (k->ctx->kind == TL_DEVICE_CUDA)
        return gpu_launch(k, v, grid, args, nargs, sync);
    return launch_cpu(k, v->fn, grid, args, nargs);
}

TlStatus tl_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs) {
    return launch(k, grid, args, nargs, true);
}

TlStatus tl_launch_async(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs) {
    return launch(k, grid, args, nargs, false);
}

TlStatus tl_context_synchronize(TlContext *ctx) {
    if (!ctx)
        return TL_ERROR_INVALID_ARGUMENT;
    return ctx->kind == TL_DEVICE_CUDA ? gpu_synchronize(ctx) : TL_SUCCESS;
}

void tl_context_stats(const TlContext *ctx, TlStats *out) {
    if (!out)
        return;
    memset(out, 0, sizeof *out);
    if (ctx)
        *out = ctx->stats;
}
