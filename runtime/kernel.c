/* kernel.c: what the library's face (api.c) calls down to, and what
 * autotune.c, heuristics.c and gpu.c share: a kernel made from its source and
 * options, its launches' arguments checked against its parameters, their
 * specialisation (a variant per launch signature, compiled once: by the
 * interpreter's path on the CPU device, by gpu.c on CUDA), TL_DUMP, and the
 * context's error and statistics. Nothing here is a tl_* entry point. */
#include <errno.h>
#include <stdarg.h>
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

/* ---- the context's error and statistics ---- */

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

void ctx_add_times(TlContext *ctx, const CompileTimes *t) {
    pthread_mutex_lock(&ctx->lock);
    for (int i = 0; i < STAGE__COUNT; i++)
        ctx->times.seconds[i] += t->seconds[i];
    pthread_mutex_unlock(&ctx->lock);
}

void ctx_stat_add(TlContext *ctx, unsigned long *counter, double seconds, double *total) {
    pthread_mutex_lock(&ctx->lock);
    if (counter)
        (*counter)++;
    if (total)
        *total += seconds;
    pthread_mutex_unlock(&ctx->lock);
}

/* ---- element types ---- */

const KernelDType kernel_dtypes[TL_DTYPE_LAST + 1] = {
    [TL_I1] = {DT_I1, "i1", 1},     [TL_I8] = {DT_I8, "i8", 1},       [TL_I16] = {DT_I16, "i16", 2},
    [TL_I32] = {DT_I32, "i32", 4},  [TL_I64] = {DT_I64, "i64", 8},    [TL_U8] = {DT_U8, "u8", 1},
    [TL_U16] = {DT_U16, "u16", 2},  [TL_U32] = {DT_U32, "u32", 4},    [TL_U64] = {DT_U64, "u64", 8},
    [TL_F16] = {DT_F16, "fp16", 2}, [TL_BF16] = {DT_BF16, "bf16", 2}, [TL_F32] = {DT_F32, "fp32", 4},
    [TL_F64] = {DT_F64, "fp64", 8}, [TL_F8E4M3] = {DT_F8E4NV, "fp8e4nv", 1}, [TL_F8E5M2] = {DT_F8E5, "fp8e5", 1},
    [TL_F8E4B15] = {DT_F8E4B15, "fp8e4b15", 1},
};

/* ---- kernels ---- */

/* The compiler says what the kernel is: which function (--kernel, or the one
 * whose parameters are all determined), which parameters are runtime ones,
 * their types when a --signature gives them, the constexprs' values. With a
 * --signature the kernel is compiled at once, so its errors come back here. */
TlStatus kernel_create(TlContext *ctx, char *text, size_t len, const char *name, const char *options,
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
    ctx_add_times(ctx, &times);
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
            s = kernel_create(ctx, copy, len, name, o.data, &k->configs[i]);
            if (s == TL_SUCCESS)
                k->configs[i]->parent = k;
            buf_free(&o);
        }
    }
    if (s == TL_SUCCESS && !k->opts.signature)
        k->opts.runtime_signature = true; /* launches build one from their arguments */
    else if (s == TL_SUCCESS && !k->info.tuned && !k->info.heur_per_launch) { /* else: at the first launch */
        Variant *v;
        s = kernel_get_variant(k, k->opts.signature, &v);
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


/* TlDType of an IR element type; 0 if none matches. */
TlDType kernel_dtype_of(DType dt) {
    for (int i = TL_I1; i <= TL_DTYPE_LAST; i++)
        if (kernel_dtypes[i].dt == dt)
            return (TlDType)i;
    return (TlDType)0;
}

/* ---- TL_DUMP ---- */

bool kernel_dump_enabled(void) {
    const char *v = getenv("TL_DUMP");
    return (v && *v && strcmp(v, "0")) || getenv("TL_DUMP_DIR");
}

bool kernel_occupancy_on(void) {
    const char *v = getenv("TL_OCCUPANCY");
    return !v || strcmp(v, "0");
}

void kernel_options_key(const TlKernel *k, Buf *b) {
    const CompileOptions *o = &k->opts;
    buf_printf(b, "warps %d stages %d config %d auto-tma %d ws %d fpf %d debug %d maxnreg %d occupancy %d\n",
               o->num_warps, o->num_stages, o->autotune_config, o->auto_tma, o->warp_specialize, o->fp_fusion,
               o->debug_info, o->maxnreg, kernel_occupancy_on());
    for (int i = 0; i < o->ndefines; i++)
        buf_printf(b, "define %s=%s\n", o->defines[i].name, o->defines[i].value);
}

void kernel_dump(const TlKernel *k, const Variant *v, const char *ext, const Buf *text) {
    const char *dir = getenv("TL_DUMP_DIR") ? getenv("TL_DUMP_DIR") : ".";
    Buf path = {0}, id = {0};
    /* The hash of the specialisation and the options keeps apart the
     * variants of one kernel and the kernels one source makes (-D, configs). */
    buf_printf(&id, "%s\n", v->key);
    kernel_options_key(k, &id);
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
    buf_printf(b, "tensordesc<%s[", kernel_dtypes[dt].sig);
    for (int d = 0; d < rank; d++)
        buf_printf(b, "%s%d", d ? ", " : "", (int)block[d]);
    buf_puts(b, "]>");
}

/* A parameter's type as messages spell it (a descriptor's as its signature). */
static const char *param_type_name(const KernelParam *p, char *out, size_t n) {
    Buf b = {0};
    if (p->desc_rank)
        desc_type(&b, kernel_dtype_of((DType)p->type.pointee), p->desc_rank, p->desc_block);
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
    /* the dtype first: every message below spells it through kernel_dtypes[] */
    if (d->dtype && !tl_dtype_size(d->dtype))
        return snprintf(why, len, "is a tensor descriptor with an invalid dtype %d", (int)d->dtype), why;
    TlDType dt = desc_dtype(d);
    size_t es = tl_dtype_size(dt);
    if (d->buffer) {
        if (d->buffer->ctx != ctx)
            return "is a tensor descriptor over a buffer of another context";
        if (d->dtype && d->dtype != d->buffer->dtype)
            return snprintf(why, len, "is a tensor descriptor of %s over a buffer of %s", kernel_dtypes[d->dtype].sig,
                            kernel_dtypes[d->buffer->dtype].sig), why;
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
        if (kernel_dtypes[et].dt != (DType)p->type.pointee)
            return BAD("%s: argument %d ('%s') points to %s elements, but the parameter is %s", k->name, i + 1, pn,
                       kernel_dtypes[et].sig, w);
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
                   k->name, i + 1, pn, kind_name(a), kernel_dtypes[a->dtype].sig, w);
    out->dtype = kernel_dtype_of(pdt);
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
void kernel_launch_signature(const TlArg *args, int nargs, Buf *sig) {
    for (int i = 0; i < nargs; i++) {
        const TlArg *a = &args[i];
        bool spec = !(a->flags & TL_ARG_NO_SPECIALIZE);
        if (i)
            buf_puts(sig, ", ");
        switch (a->kind) {
        case TL_ARG_BUFFER: /* buffers are at least 128-byte aligned */
            buf_printf(sig, "*%s%s", kernel_dtypes[a->v.buffer->dtype].sig, spec ? ":16" : "");
            break;
        case TL_ARG_POINTER:
            buf_printf(sig, "*%s%s", kernel_dtypes[a->dtype].sig, spec && a->v.p.addr % 16 == 0 ? ":16" : "");
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
            buf_puts(sig, kernel_dtypes[a->dtype].sig);
            if (spec && a->dtype != TL_I1 && a->v.i == 1)
                buf_puts(sig, ":1");
            else if (spec && a->dtype != TL_I1 && a->v.i % 16 == 0)
                buf_puts(sig, ":16");
            break;
        default:
            buf_puts(sig, kernel_dtypes[a->dtype].sig);
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

TlStatus kernel_get_variant(TlKernel *k, const char *key, Variant **out) {
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
    if (k->ctx->kind == TL_DEVICE_CUDA && !kernel_dump_enabled()) {
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
    const char *passes = getenv("TL_INTERPRET_PASSES");
    if (v->fn && k->ctx->kind != TL_DEVICE_CUDA && passes && *passes && !compile_interp_passes(&d, v->fn, passes))
        v->fn = NULL;
    ctx_add_times(k->ctx, &times);
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
    if (kernel_dump_enabled()) {
        Buf ast = {0};
        ast_print(&ast, k->info.def);
        kernel_dump(k, v, "ast", &ast);
        kernel_dump(k, v, "ir", &k->ir);
        buf_free(&ast);
    }
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_build(k, v, &o);
        if (s != TL_SUCCESS)
            return variant_drop(k, v, s);
    }
    ctx_stat_add(k->ctx, &k->ctx->stats.compiles, now_seconds() - t0, &k->ctx->stats.compile_seconds);
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

bool kernel_check_args(TlKernel *k, const TlArg *args, int nargs) {
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
    if (k->ctx->kind == TL_DEVICE_CUDA) /* once for every pointer's check (gpu_pointer_known) */
        gpu_bind(k->ctx);
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

TlStatus kernel_launch(TlKernel *k, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream, bool sync) {
    if (!grid)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: null grid", k->name);
    if (!grid[0] || !grid[1] || !grid[2])
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) has a zero dimension", k->name, grid[0],
                    grid[1], grid[2]);
    if (grid[0] > 2147483647u || grid[1] > 65535 || grid[2] > 65535)
        return fail(k->ctx, TL_ERROR_LAUNCH, "%s: grid (%u, %u, %u) exceeds the limits (2^31-1, 65535, 65535)",
                    k->name, grid[0], grid[1], grid[2]);
    if (!kernel_check_args(k, args, nargs))
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
        TlStatus s = kernel_get_variant(k, key, &v);
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
            s = key.data ? kernel_get_variant(k, key.data, &v) : fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
            buf_free(&key);
            if (s != TL_SUCCESS)
                return s;
        }
    }
    int want = k->ctx->kind == TL_DEVICE_CUDA ? v->nparams - v->nauto - (v->scratch > 0) : v->fn->nparams;
    if (nflat != want)
        return fail(k->ctx, TL_ERROR_INTERNAL, "%s: the launch has %d kernel parameters, the kernel %d", k->name, nflat,
                    want);
    if (k->ctx->kind == TL_DEVICE_CUDA) {
        TlStatus s = gpu_encode_tensor_maps(k, k->norm, nargs);
        return s != TL_SUCCESS ? s : gpu_launch(k, v, grid, flat, nflat, stream, sync);
    }
    return launch_cpu(k, v->fn, grid, flat, nflat);
}

