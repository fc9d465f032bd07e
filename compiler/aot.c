/* aot.c: the specialisations an ahead-of-time kernel gets, and the C source
 * and header that hold them (tlc --emit=c; docs/aot.md).
 *
 * Triton's JIT specialises a kernel on its arguments at every launch: a
 * pointer 16-byte aligned or not, an integer divisible by 16, equal to 1, or
 * neither. An AOT file cannot compile at launch time, so it carries the
 * likely specialisations compiled in advance, and its launcher does at run
 * time what the JIT's key does: classify each argument, then take the most
 * specialised variant whose hints all hold. With every combination present
 * that is exactly the one the JIT would have built; with the reduced set it
 * is the best of those present, and the user's own signature (no hints
 * added) always fits.
 *
 * The generated source needs no CUDA headers and no libtl: it declares the
 * dozen driver entry points it calls and loads libcuda.so.1 with dlopen at
 * the first launch, so programs build and start on machines without CUDA. */
#include "aot.h"
#include "options.h"

#include <stdio.h>
#include <string.h>

/* ---- planning ---- */

/* The type an entry names ("*fp16:16" -> pointer, "i32" -> i32), or false
 * for a literal value (a constexpr's). */
static bool entry_type(const char *e, bool *is_ptr, DType *dt) {
    static const char *names[] = {"i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64",
                                  "fp16", "bf16", "fp32", "fp64"};
    *is_ptr = *e == '*';
    if (*is_ptr)
        return true;
    size_t len = strcspn(e, ":");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == len && !strncmp(names[i], e, len)) {
            *dt = dt_from_name(names[i]);
            return true;
        }
    return false;
}

/* Triton's choices for one parameter, most specialised first. */
static int choices(const Param *p, int out[3]) {
    if (p->equal_to_1 || p->divisibility >= 16) { /* the user fixed it */
        out[0] = p->equal_to_1 ? 1 : 16;
        return 1;
    }
    if (p->type.dtype == DT_PTR) {
        out[0] = 16, out[1] = 0;
        return 2;
    }
    if (dt_is_int((DType)p->type.dtype) && p->type.dtype != DT_I1) {
        out[0] = 1, out[1] = 16, out[2] = 0;
        return 3;
    }
    out[0] = 0;
    return 1;
}

static void add_variant(Arena *a, AotVariant *vs, int *nv, const int *hints, int np, const char **entries,
                        int nent, const int *param_of_entry) {
    for (int i = 0; i < *nv; i++)
        if (!memcmp(vs[i].hints, hints, sizeof(int) * (size_t)np))
            return;
    AotVariant *v = &vs[(*nv)++];
    v->hints = arena_alloc(a, sizeof(int) * (size_t)(np + 1));
    memcpy(v->hints, hints, sizeof(int) * (size_t)np);
    for (int i = 0; i < np; i++)
        v->nhints += hints[i] != 0;
    if (!entries) /* no signature: nothing to specialise */
        return;
    Buf s = {0};
    for (int i = 0; i < nent; i++) {
        const char *e = entries[i];
        if (i)
            buf_puts(&s, ", ");
        int p = param_of_entry[i];
        if (p < 0) {
            buf_puts(&s, e);
            continue;
        }
        buf_putn(&s, e, strcspn(e, ":"));
        if (hints[p])
            buf_printf(&s, ":%d", hints[p]);
    }
    v->signature = arena_strdup(a, s.data);
    buf_free(&s);
}

int aot_plan(Arena *a, const char *signature, const Function *base, AotVariant **out, Buf *err) {
    int np = base->nparams;
    const char **entries = NULL;
    int nent = 0;
    int *param_of_entry = NULL;
    if (signature && strstr(signature, "tensordesc<")) {
        buf_printf(err, "tensor descriptor parameters (tensordesc<...>) are not supported by --emit=c yet");
        return -1;
    }
    if (signature) {
        nent = options_split_signature(a, signature, &entries);
        param_of_entry = arena_alloc(a, sizeof(int) * (size_t)(nent + 1));
        int k = 0;
        for (int i = 0; i < nent; i++) {
            bool is_ptr;
            DType dt = DT_VOID;
            param_of_entry[i] = -1;
            if (!entry_type(entries[i], &is_ptr, &dt))
                continue;
            const Type *t = k < np ? &base->params[k].type : NULL;
            if (!t || is_ptr != (t->dtype == DT_PTR) || (!is_ptr && dt != t->dtype)) {
                buf_printf(err, "cannot match the types in the signature to the %d runtime parameter%s of kernel '%s' "
                                "(give -D values for constexprs only)",
                           np, np == 1 ? "" : "s", base->name);
                return -1;
            }
            param_of_entry[i] = k++;
        }
        if (k != np) {
            buf_printf(err, "the signature gives types for %d parameters but kernel '%s' has %d runtime parameter%s", k,
                       base->name, np, np == 1 ? "" : "s");
            return -1;
        }
    } else if (np) {
        buf_printf(err, "kernel '%s' has runtime parameters but no signature", base->name);
        return -1;
    }

    int (*ch)[3] = arena_alloc(a, sizeof *ch * (size_t)(np + 1));
    int *nch = arena_alloc(a, sizeof(int) * (size_t)(np + 1));
    long total = 1;
    for (int i = 0; i < np; i++) {
        nch[i] = choices(&base->params[i], ch[i]);
        if (total <= AOT_MAX_VARIANTS)
            total *= nch[i];
    }
    AotVariant *vs = arena_alloc(a, sizeof(AotVariant) * (AOT_MAX_VARIANTS + 3));
    int nv = 0;
    int *hints = arena_alloc(a, sizeof(int) * (size_t)(np + 1));
    if (total <= AOT_MAX_VARIANTS) {
        /* every combination, counting in mixed radix over the choices */
        int *digit = arena_alloc(a, sizeof(int) * (size_t)(np + 1));
        for (long n = 0; n < total; n++) {
            for (int i = 0; i < np; i++)
                hints[i] = ch[i][digit[i]];
            add_variant(a, vs, &nv, hints, np, entries, nent, param_of_entry);
            for (int i = np - 1; i >= 0 && ++digit[i] == nch[i]; i--)
                digit[i] = 0;
        }
    } else {
        /* every pointer aligned and integer divisible by 16; pointers only; none */
        for (int pass = 0; pass < 3; pass++) {
            for (int i = 0; i < np; i++) {
                int h = ch[i][nch[i] - 1];
                if (nch[i] == 1)
                    h = ch[i][0];
                else if (pass == 0 || (pass == 1 && base->params[i].type.dtype == DT_PTR))
                    h = 16;
                hints[i] = h;
            }
            add_variant(a, vs, &nv, hints, np, entries, nent, param_of_entry);
        }
    }
    /* most specialised first; stable, so equal counts keep the order above */
    for (int i = 1; i < nv; i++)
        for (int j = i; j > 0 && vs[j - 1].nhints < vs[j].nhints; j--) {
            AotVariant t = vs[j];
            vs[j] = vs[j - 1];
            vs[j - 1] = t;
        }
    *out = vs;
    return nv;
}

/* ---- emission ---- */

/* The part of every generated file that does not depend on the kernels:
 * the driver's types and entry points, loading it, the context, the choice
 * of image for the device, module loading. Emitted verbatim. */
static const char runtime_part[] =
    "/* The CUDA driver, loaded with dlopen at the first launch: no CUDA headers or\n"
    " * libraries are needed to build or start the program. */\n"
    "typedef int CUresult;\n"
    "typedef int CUdevice;\n"
    "typedef struct CUctx_st *CUcontext;\n"
    "typedef struct CUmod_st *CUmodule;\n"
    "typedef struct CUfunc_st *CUfunction;\n"
    "typedef struct CUstream_st *CUstream;\n"
    "\n"
    "enum {\n"
    "    TL_CU_COMPUTE_CAPABILITY_MAJOR = 75,\n"
    "    TL_CU_COMPUTE_CAPABILITY_MINOR = 76,\n"
    "    TL_CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,\n"
    "};\n"
    "\n"
    "#define TL_CU_SYMBOLS(X)                                                       \\\n"
    "    X(CUresult, cuInit, (unsigned))                                            \\\n"
    "    X(CUresult, cuDeviceGet, (CUdevice *, int))                                \\\n"
    "    X(CUresult, cuDeviceGetAttribute, (int *, int, CUdevice))                  \\\n"
    "    X(CUresult, cuDevicePrimaryCtxRetain, (CUcontext *, CUdevice))             \\\n"
    "    X(CUresult, cuCtxGetCurrent, (CUcontext *))                                \\\n"
    "    X(CUresult, cuCtxSetCurrent, (CUcontext))                                  \\\n"
    "    X(CUresult, cuCtxGetDevice, (CUdevice *))                                  \\\n"
    "    X(CUresult, cuModuleLoadData, (CUmodule *, const void *))                  \\\n"
    "    X(CUresult, cuModuleGetFunction, (CUfunction *, CUmodule, const char *))   \\\n"
    "    X(CUresult, cuFuncSetAttribute, (CUfunction, int, int))                    \\\n"
    "    X(CUresult, cuLaunchKernel, (CUfunction, unsigned, unsigned, unsigned,     \\\n"
    "                                 unsigned, unsigned, unsigned, unsigned,       \\\n"
    "                                 CUstream, void **, void **))                  \\\n"
    "    X(CUresult, cuGetErrorString, (CUresult, const char **))\n"
    "\n"
    "static struct {\n"
    "#define TL_FIELD(ret, name, args) ret(*name) args;\n"
    "    TL_CU_SYMBOLS(TL_FIELD)\n"
    "#undef TL_FIELD\n"
    "} tl_cu;\n"
    "\n"
    "static pthread_once_t tl_once = PTHREAD_ONCE_INIT;\n"
    "static int tl_open_status;       /* 0, TL_AOT_ERROR_NO_DRIVER or cuInit's result */\n"
    "static char tl_open_error[512];  /* why the driver could not be loaded */\n"
    "static pthread_mutex_t tl_lock = PTHREAD_MUTEX_INITIALIZER;\n"
    "static CUcontext tl_primary;     /* device 0's primary context, once retained */\n"
    "static CUcontext tl_loaded_ctx;  /* the context every module of this file is loaded into */\n"
    "static int tl_sm;                /* its device's compute capability, 10 * major + minor */\n"
    "\n"
    "static void tl_open(void) {\n"
    "    const char *path = getenv(\"TL_LIBCUDA\");\n"
    "    if (!path || !*path)\n"
    "        path = \"libcuda.so.1\";\n"
    "    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);\n"
    "    if (!lib) {\n"
    "        const char *e = dlerror();\n"
    "        snprintf(tl_open_error, sizeof tl_open_error, \"no CUDA driver: %s\", e ? e : path);\n"
    "        tl_open_status = TL_AOT_ERROR_NO_DRIVER;\n"
    "        return;\n"
    "    }\n"
    "#define TL_LOAD(ret, name, args)                                                              \\\n"
    "    if (!(*(void **)&tl_cu.name = dlsym(lib, #name))) {                                       \\\n"
    "        snprintf(tl_open_error, sizeof tl_open_error, \"no CUDA driver: %s lacks \" #name, path); \\\n"
    "        tl_open_status = TL_AOT_ERROR_NO_DRIVER;                                              \\\n"
    "        return;                                                                               \\\n"
    "    }\n"
    "    TL_CU_SYMBOLS(TL_LOAD)\n"
    "#undef TL_LOAD\n"
    "    tl_open_status = tl_cu.cuInit(0);\n"
    "}\n"
    "\n"
    "/* Make sure a context is current on this thread (the one already current, or\n"
    " * device 0's primary context, as the CUDA runtime does) and that it is the one\n"
    " * this file's modules live in. */\n"
    "static int tl_context(void) {\n"
    "    pthread_once(&tl_once, tl_open);\n"
    "    if (tl_open_status)\n"
    "        return tl_open_status;\n"
    "    CUcontext ctx = NULL;\n"
    "    int r = tl_cu.cuCtxGetCurrent(&ctx);\n"
    "    if (r)\n"
    "        return r;\n"
    "    if (!ctx) {\n"
    "        pthread_mutex_lock(&tl_lock);\n"
    "        CUdevice dev = 0;\n"
    "        if (!tl_primary && !(r = tl_cu.cuDeviceGet(&dev, 0)))\n"
    "            r = tl_cu.cuDevicePrimaryCtxRetain(&tl_primary, dev);\n"
    "        ctx = tl_primary;\n"
    "        pthread_mutex_unlock(&tl_lock);\n"
    "        if (r || (r = tl_cu.cuCtxSetCurrent(ctx)))\n"
    "            return r;\n"
    "    }\n"
    "    CUcontext loaded = __atomic_load_n(&tl_loaded_ctx, __ATOMIC_ACQUIRE);\n"
    "    return loaded && loaded != ctx ? TL_AOT_ERROR_CONTEXT : 0;\n"
    "}\n"
    "\n"
    "/* Can image im run on a device of compute capability sm? PTX runs on its own\n"
    " * architecture and every later one (the driver compiles it); a cubin only\n"
    " * within its major version; sm_90a-style images only on exactly that one. */\n"
    "static int tl_runs_on(const TlAotImage *im, int sm) {\n"
    "    size_t n = strlen(im->arch);\n"
    "    if (n && im->arch[n - 1] == 'a' && (int)im->sm != sm)\n"
    "        return 0;\n"
    "    if (im->format[0] == 'c' && (int)im->sm / 10 != sm / 10)\n"
    "        return 0;\n"
    "    return (int)im->sm <= sm;\n"
    "}\n"
    "\n"
    "/* The state of one kernel of this file: its images (narchs per variant) and\n"
    " * the function of each variant once loaded. */\n"
    "typedef struct TlKernel {\n"
    "    const TlAotImage *images;\n"
    "    int narchs;\n"
    "    CUfunction *fns;\n"
    "    const TlAotImage **chosen;\n"
    "} TlKernel;\n"
    "\n"
    "/* The function of variant v, loading its module on first use. Modules are\n"
    " * loaded under a lock, once per process; after that a launch takes no lock. */\n"
    "static int tl_function(const TlKernel *k, int v, CUfunction *fn, const TlAotImage **im) {\n"
    "    int r = tl_context();\n"
    "    if (r)\n"
    "        return r;\n"
    "    if ((*fn = __atomic_load_n(&k->fns[v], __ATOMIC_ACQUIRE))) {\n"
    "        *im = k->chosen[v];\n"
    "        return 0;\n"
    "    }\n"
    "    pthread_mutex_lock(&tl_lock);\n"
    "    if ((*fn = k->fns[v])) {\n"
    "        *im = k->chosen[v];\n"
    "        pthread_mutex_unlock(&tl_lock);\n"
    "        return 0;\n"
    "    }\n"
    "    CUcontext ctx = NULL;\n"
    "    CUdevice dev = 0;\n"
    "    int major = 0, minor = 0;\n"
    "    if (!tl_loaded_ctx) {\n"
    "        if (!(r = tl_cu.cuCtxGetCurrent(&ctx)) && !(r = tl_cu.cuCtxGetDevice(&dev)) &&\n"
    "            !(r = tl_cu.cuDeviceGetAttribute(&major, TL_CU_COMPUTE_CAPABILITY_MAJOR, dev)) &&\n"
    "            !(r = tl_cu.cuDeviceGetAttribute(&minor, TL_CU_COMPUTE_CAPABILITY_MINOR, dev))) {\n"
    "            tl_sm = 10 * major + minor;\n"
    "            __atomic_store_n(&tl_loaded_ctx, ctx, __ATOMIC_RELEASE);\n"
    "        }\n"
    "    }\n"
    "    const TlAotImage *best = NULL;\n"
    "    for (int i = 0; !r && i < k->narchs; i++) {\n"
    "        const TlAotImage *c = &k->images[v * k->narchs + i];\n"
    "        /* the newest that runs here; sm_90a before sm_90 */\n"
    "        int specific = c->arch[strlen(c->arch) - 1] == 'a';\n"
    "        if (tl_runs_on(c, tl_sm) && (!best || c->sm > best->sm || (c->sm == best->sm && specific)))\n"
    "            best = c;\n"
    "    }\n"
    "    if (!r && !best)\n"
    "        r = TL_AOT_ERROR_NO_ARCH;\n"
    "    CUmodule mod = NULL;\n"
    "    CUfunction f = NULL;\n"
    "    if (!r)\n"
    "        r = tl_cu.cuModuleLoadData(&mod, best->data);\n"
    "    if (!r)\n"
    "        r = tl_cu.cuModuleGetFunction(&f, mod, best->symbol);\n"
    "    /* above 48 KiB, dynamic shared memory must be asked for */\n"
    "    if (!r && best->shared_bytes > 48 * 1024)\n"
    "        r = tl_cu.cuFuncSetAttribute(f, TL_CU_FUNC_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)best->shared_bytes);\n"
    "    if (!r) {\n"
    "        k->chosen[v] = best;\n"
    "        __atomic_store_n(&k->fns[v], f, __ATOMIC_RELEASE);\n"
    "        *fn = f;\n"
    "        *im = best;\n"
    "    }\n"
    "    pthread_mutex_unlock(&tl_lock);\n"
    "    return r;\n"
    "}\n"
    "\n"
    "/* The first variant (most specialised first) whose hints all hold for the\n"
    " * arguments' classes (16: aligned or divisible by 16, 1: equal to 1). */\n"
    "static int tl_select(const signed char *hints, int nvariants, int nparams, const int *cls) {\n"
    "    for (int v = 0; v < nvariants; v++) {\n"
    "        int ok = 1;\n"
    "        for (int p = 0; p < nparams && ok; p++)\n"
    "            ok = !hints[v * nparams + p] || hints[v * nparams + p] == cls[p];\n"
    "        if (ok)\n"
    "            return v;\n"
    "    }\n"
    "    return -1;\n"
    "}\n"
    "\n"
    "static const char *tl_strerror(int status) {\n"
    "    const char *s = NULL;\n"
    "    switch (status) {\n"
    "    case 0: return \"success\";\n"
    "    case TL_AOT_ERROR_NO_DRIVER: return tl_open_error[0] ? tl_open_error : \"no CUDA driver\";\n"
    "    case TL_AOT_ERROR_NO_VARIANT:\n"
    "        return \"no specialisation fits the arguments \"\n"
    "               \"(a hint fixed in the signature, :16 or :1, does not hold)\";\n"
    "    case TL_AOT_ERROR_NO_ARCH: return \"no image in this file runs on this GPU (compile for its architecture)\";\n"
    "    case TL_AOT_ERROR_CONTEXT:\n"
    "        return \"the current CUDA context is not the one this file's kernels were loaded into\";\n"
    "    }\n"
    "    if (status > 0 && tl_cu.cuGetErrorString && !tl_cu.cuGetErrorString(status, &s) && s)\n"
    "        return s;\n"
    "    return \"unknown status\";\n"
    "}\n";

static const char f16_part[] =
    "/* fp16 / bf16 scalars: the kernel takes their bits; the launcher takes a float\n"
    " * and rounds it to nearest even, as a cast on the GPU would. */\n"
    "static uint16_t tl_f16_bits(float f) {\n"
    "    uint32_t x;\n"
    "    memcpy(&x, &f, 4);\n"
    "    uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;\n"
    "    if (ax > 0x7f800000)\n"
    "        return (uint16_t)(sign | 0x7e00);             /* NaN */\n"
    "    if (ax >= 0x477ff000)\n"
    "        return (uint16_t)(sign | 0x7c00);             /* >= 65520 rounds to infinity */\n"
    "    if (ax < 0x38800000) {                            /* below 2^-14: a half subnormal */\n"
    "        if (ax <= 0x33000000)\n"
    "            return (uint16_t)sign;                    /* <= 2^-25 rounds to zero */\n"
    "        uint32_t m = (ax & 0x7fffff) | 0x800000, shift = 126 - (ax >> 23);\n"
    "        uint32_t r = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);\n"
    "        r += rem > half || (rem == half && (r & 1));\n"
    "        return (uint16_t)(sign | r);\n"
    "    }\n"
    "    uint32_t r = (ax - 0x38000000) >> 13, rem = ax & 0x1fff;\n"
    "    r += rem > 0x1000 || (rem == 0x1000 && (r & 1));\n"
    "    return (uint16_t)(sign | r);\n"
    "}\n"
    "\n"
    "static uint16_t tl_bf16_bits(float f) {\n"
    "    uint32_t x;\n"
    "    memcpy(&x, &f, 4);\n"
    "    if ((x & 0x7fffffff) > 0x7f800000)\n"
    "        return (uint16_t)((x >> 16) | 0x40);          /* NaN stays NaN */\n"
    "    return (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);\n"
    "}\n"
    "\n";

/* The C type a launcher parameter has, and the type the kernel receives it
 * in when they differ (i1 travels as a byte; fp16/bf16 as their bits). */
static const char *c_type(Type t) {
    switch (t.dtype) {
    case DT_PTR: return "uint64_t";
    case DT_I1: return "bool";
    case DT_I8: return "int8_t";
    case DT_I16: return "int16_t";
    case DT_I32: return "int32_t";
    case DT_I64: return "int64_t";
    case DT_U8: return "uint8_t";
    case DT_U16: return "uint16_t";
    case DT_U32: return "uint32_t";
    case DT_U64: return "uint64_t";
    case DT_F16: case DT_BF16: case DT_F32: return "float";
    case DT_F64: return "double";
    default: return "int";
    }
}

static bool can_hint(Type t) { return t.dtype == DT_PTR || (dt_is_int((DType)t.dtype) && t.dtype != DT_I1); }

/* The kernel's parameters as C: ", uint64_t x_ptr, int32_t n". */
static void put_params(Buf *b, const AotKernel *k) {
    for (int i = 0; i < k->nparams; i++)
        buf_printf(b, ", %s %s", c_type(k->params[i].type), k->params[i].name);
}

static void put_param_names(Buf *b, const AotKernel *k) {
    for (int i = 0; i < k->nparams; i++)
        buf_printf(b, "%s%s", i ? ", " : "", k->params[i].name);
}

/* s as adjacent C string literals, one per line of s, with octal escapes
 * (never \x, whose digits would swallow the next character). */
static void put_literal(Buf *b, const char *s, size_t len, const char *indent) {
    buf_puts(b, indent);
    buf_putc(b, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '\n') {
            buf_puts(b, "\\n\"");
            if (i + 1 < len) {
                buf_putc(b, '\n');
                buf_puts(b, indent);
                buf_putc(b, '"');
            } else {
                return;
            }
        } else if (ch == '"' || ch == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)ch);
        } else if (ch == '\t') {
            buf_puts(b, "\\t");
        } else if (ch < 32 || ch >= 127 || ch == '?') { /* '?': no trigraphs */
            buf_printf(b, "\\%03o", ch);
        } else {
            buf_putc(b, (char)ch);
        }
    }
    buf_putc(b, '"');
}

static void put_bytes(Buf *b, const char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        buf_printf(b, "%s0x%02x,", i % 16 ? " " : "\n    ", (unsigned char)s[i]);
    buf_putc(b, '\n');
}

static void put_comment_text(Buf *b, const char *s) {
    /* a signature inside a comment: keep any '*' '/' pair apart */
    for (; *s; s++) {
        buf_putc(b, *s);
        if (*s == '*' && s[1] == '/')
            buf_putc(b, ' ');
    }
}

static void emit_kernel_header(Buf *h, const AotKernel *k) {
    buf_printf(h, "/* %s(", k->name);
    for (int i = 0; i < k->nparams; i++) {
        Type t = k->params[i].type;
        bool ptr = t.dtype == DT_PTR;
        buf_printf(h, "%s%s: %s%s", i ? ", " : "", k->params[i].name, ptr ? "*" : "",
                   dt_name((DType)(ptr ? t.pointee : t.dtype)));
    }
    buf_puts(h, "), compiled with the signature\n *   ");
    put_comment_text(h, k->signature ? k->signature : "(none)");
    buf_printf(h, "\n * in %d specialisation%s for %d architecture%s.\n", k->nvariants, k->nvariants == 1 ? "" : "s",
               k->narchs, k->narchs == 1 ? "" : "s");
    buf_puts(h, " *\n"
                " * Launches on stream (a CUstream; NULL: the default stream) with a grid of\n"
                " * grid_x * grid_y * grid_z programs. Pointers are device addresses (CUdeviceptr).\n"
                " * Returns 0, a CUresult of the driver (> 0) or a TL_AOT_ERROR_* (< 0). */\n");
    buf_printf(h, "int %s_launch(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z", k->name);
    put_params(h, k);
    buf_puts(h, ");\n\n");
    buf_printf(h, "/* The specialisation %s_launch takes for these arguments (the variant\n"
                  " * field of %s_images), or -1 if none fits. */\n",
               k->name, k->name);
    buf_printf(h, "int %s_select(", k->name);
    for (int i = 0; i < k->nparams; i++)
        buf_printf(h, "%s%s %s", i ? ", " : "", c_type(k->params[i].type), k->params[i].name);
    buf_printf(h, "%s);\n\n", k->nparams ? "" : "void");
    buf_printf(h, "/* What a status of %s_launch means. */\nconst char *%s_strerror(int status);\n\n", k->name,
               k->name);
    buf_printf(h, "/* Every image: variant-major, %d architecture%s per variant, most specialised\n"
                  " * variant first. Threads and shared memory are the launch's block size and\n"
                  " * dynamic shared memory. */\n",
               k->narchs, k->narchs == 1 ? "" : "s");
    buf_printf(h, "extern const TlAotImage %s_images[];\nextern const int %s_num_images;\n\n", k->name, k->name);
}

static void emit_kernel_source(Buf *c, const AotKernel *k) {
    const char *n = k->name;
    int nv = k->nvariants, np = k->nparams;
    buf_printf(c, "/* ---- %s ---- */\n\n", n);
    for (int v = 0; v < nv; v++)
        for (int j = 0; j < k->narchs; j++) {
            const AotImage *im = &k->variants[v].images[j];
            buf_printf(c, "/* %s, ", im->arch);
            put_comment_text(c, k->variants[v].signature ? k->variants[v].signature : "(no parameters)");
            buf_puts(c, " */\n");
            if (im->cubin) {
                buf_printf(c, "static const unsigned char TL_ALIGN8 %s_image_%d_%d[] = {", n, v, j);
                put_bytes(c, im->data, im->len);
                buf_puts(c, "};\n\n");
            } else {
                buf_printf(c, "static const char %s_image_%d_%d[] =\n", n, v, j);
                put_literal(c, im->data, im->len, "    ");
                buf_puts(c, ";\n\n");
            }
        }
    buf_printf(c, "const TlAotImage %s_images[] = {\n", n);
    for (int v = 0; v < nv; v++)
        for (int j = 0; j < k->narchs; j++) {
            const AotImage *im = &k->variants[v].images[j];
            buf_puts(c, "    {");
            const char *sig = k->variants[v].signature ? k->variants[v].signature : "";
            put_literal(c, sig, strlen(sig), "");
            buf_printf(c, ", %d, \"%s\", %d, \"%s\", %s_image_%d_%d, %zu, \"%s\", %d, %d},\n", v, im->arch, im->sm,
                       im->cubin ? "cubin" : "ptx", n, v, j, im->len, im->symbol, 32 * im->num_warps,
                       im->shared_bytes);
        }
    buf_puts(c, "};\n");
    buf_printf(c, "const int %s_num_images = %d;\n\n", n, nv * k->narchs);

    /* per variant: the hint each parameter needs (0: none) */
    buf_printf(c, "static const signed char %s_hints[] = {", n);
    for (int v = 0; v < nv; v++) {
        buf_puts(c, "\n   ");
        for (int i = 0; i < np; i++)
            buf_printf(c, " %d,", k->variants[v].hints[i]);
    }
    buf_puts(c, np ? "\n};\n" : " 0};\n");
    buf_printf(c, "static CUfunction %s_fns[%d];\nstatic const TlAotImage *%s_chosen[%d];\n", n, nv, n, nv);
    buf_printf(c, "static const TlKernel %s_kernel = {%s_images, %d, %s_fns, %s_chosen};\n\n", n, n, k->narchs, n, n);

    buf_printf(c, "int %s_select(", n);
    for (int i = 0; i < np; i++)
        buf_printf(c, "%s%s %s", i ? ", " : "", c_type(k->params[i].type), k->params[i].name);
    buf_printf(c, "%s) {\n    int tl_cls[%d] = {0};\n", np ? "" : "void", np ? np : 1);
    for (int i = 0; i < np; i++) {
        const char *pn = k->params[i].name;
        Type t = k->params[i].type;
        if (t.dtype == DT_PTR)
            buf_printf(c, "    tl_cls[%d] = %s %% 16 == 0 ? 16 : 0;\n", i, pn);
        else if (can_hint(t))
            buf_printf(c, "    tl_cls[%d] = %s == 1 ? 1 : %s %% 16 == 0 ? 16 : 0;\n", i, pn, pn);
        else
            buf_printf(c, "    (void)%s;\n", pn);
    }
    buf_printf(c, "    return tl_select(%s_hints, %d, %d, tl_cls);\n}\n\n", n, nv, np);

    buf_printf(c, "int %s_launch(void *stream, unsigned grid_x, unsigned grid_y, unsigned grid_z", n);
    put_params(c, k);
    buf_printf(c, ") {\n    int tl_v = %s_select(", n);
    put_param_names(c, k);
    buf_puts(c, ");\n    if (tl_v < 0)\n        return TL_AOT_ERROR_NO_VARIANT;\n");
    buf_printf(c, "    CUfunction tl_fn;\n    const TlAotImage *tl_im;\n"
                  "    int tl_r = tl_function(&%s_kernel, tl_v, &tl_fn, &tl_im);\n",
               n);
    buf_puts(c, "    if (tl_r)\n        return tl_r;\n"
                "    if (!grid_x || !grid_y || !grid_z)\n"
                "        return 0; /* an empty grid launches nothing, as in Triton */\n");
    /* the value each parameter travels in */
    for (int i = 0; i < np; i++) {
        const char *pn = k->params[i].name;
        switch (k->params[i].type.dtype) {
        case DT_I1: buf_printf(c, "    uint8_t tl_arg%d = %s;\n", i, pn); break;
        case DT_F16: buf_printf(c, "    uint16_t tl_arg%d = tl_f16_bits(%s);\n", i, pn); break;
        case DT_BF16: buf_printf(c, "    uint16_t tl_arg%d = tl_bf16_bits(%s);\n", i, pn); break;
        default: break;
        }
    }
    buf_puts(c, "    void *tl_args[] = {");
    for (int i = 0; i < np; i++) {
        DType dt = (DType)k->params[i].type.dtype;
        if (dt == DT_I1 || dt == DT_F16 || dt == DT_BF16)
            buf_printf(c, "%s&tl_arg%d", i ? ", " : "", i);
        else
            buf_printf(c, "%s&%s", i ? ", " : "", k->params[i].name);
    }
    buf_puts(c, np ? "};\n" : "NULL};\n");
    buf_puts(c, "    return tl_cu.cuLaunchKernel(tl_fn, grid_x, grid_y, grid_z, tl_im->threads, 1, 1,\n"
                "                                tl_im->shared_bytes, (CUstream)stream, tl_args, NULL);\n}\n\n");
    buf_printf(c, "const char *%s_strerror(int status) { return tl_strerror(status); }\n\n", n);
}

static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

void aot_emit(const AotKernel *ks, int nk, const char *header_name, const char *source_name, Buf *c, Buf *h) {
    const char *hb = base_name(header_name);
    /* header */
    buf_printf(h, "/* %s: generated by tlc %s from ", hb, TL_VERSION);
    put_comment_text(h, source_name);
    buf_puts(h, "; do not edit.\n");
    buf_puts(h, " * Ahead-of-time launchers for tl kernels (docs/aot.md). */\n");
    Buf guard = {0};
    buf_puts(&guard, "TL_AOT_");
    for (const char *p = hb; *p; p++) {
        bool alnum = (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9');
        buf_putc(&guard, (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : alnum ? *p : '_');
    }
    buf_printf(h, "#ifndef %s\n#define %s\n\n#include <stdbool.h>\n#include <stddef.h>\n#include <stdint.h>\n\n",
               guard.data, guard.data);
    buf_free(&guard);
    buf_puts(h, "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
                "#ifndef TL_AOT_COMMON\n#define TL_AOT_COMMON\n"
                "/* Statuses of a launcher: 0 success, > 0 a CUresult of the CUDA driver, < 0: */\n"
                "#define TL_AOT_ERROR_NO_DRIVER (-1)  /* libcuda.so.1 cannot be loaded (or lacks an entry point) */\n"
                "#define TL_AOT_ERROR_NO_VARIANT (-2) /* the arguments break a hint the signature fixed */\n"
                "#define TL_AOT_ERROR_NO_ARCH (-3)    /* no image in the file runs on this GPU */\n"
                "#define TL_AOT_ERROR_CONTEXT (-4)    /* another context is current than the one loaded into */\n"
                "\n"
                "/* One compiled image: a specialisation of a kernel for one architecture. */\n"
                "typedef struct TlAotImage {\n"
                "    const char *signature; /* the specialisation, in Triton's AOT spelling */\n"
                "    int variant;           /* its index (what NAME_select returns) */\n"
                "    const char *arch;      /* \"sm_90\", \"sm_90a\" */\n"
                "    unsigned sm;           /* 90 */\n"
                "    const char *format;    /* \"ptx\" (NUL-terminated text) or \"cubin\" */\n"
                "    const void *data;      /* for cuModuleLoadData */\n"
                "    size_t size;           /* bytes of data (PTX: without the NUL) */\n"
                "    const char *symbol;    /* the kernel's name in the image */\n"
                "    unsigned threads;      /* threads per block (x; y = z = 1): 32 * warps (a producer's too) */\n"
                "    unsigned shared_bytes; /* dynamic shared memory per block, in bytes */\n"
                "} TlAotImage;\n"
                "#endif\n\n");
    for (int i = 0; i < nk; i++)
        emit_kernel_header(h, &ks[i]);
    buf_puts(h, "#ifdef __cplusplus\n}\n#endif\n\n#endif\n");

    /* source */
    bool f16 = false;
    for (int i = 0; i < nk; i++)
        for (int p = 0; p < ks[i].nparams; p++)
            f16 |= ks[i].params[p].type.dtype == DT_F16 || ks[i].params[p].type.dtype == DT_BF16;
    /* the source's name is the header's with .c */
    buf_printf(c, "/* %.*s.c: generated by tlc %s from ", (int)(strlen(hb) - (strlen(hb) > 2 ? 2 : 0)), hb, TL_VERSION);
    put_comment_text(c, source_name);
    buf_puts(c, "; do not edit.\n");
    buf_puts(c, " *\n"
                " * Build with any C99 compiler, no CUDA needed: cc -c this file; link the\n"
                " * program with -ldl -lpthread where libc lacks them (glibc before 2.34).\n"
                " * The CUDA driver is loaded at the first launch; modules are loaded into the\n"
                " * context current then (or device 0's primary context), once per process.\n"
                " * Launchers may be called from several threads. */\n");
    buf_printf(c, "#include \"%s\"\n\n", hb);
    buf_puts(c, "#include <dlfcn.h>\n#include <pthread.h>\n#include <stdio.h>\n"
                "#include <stdlib.h>\n#include <string.h>\n\n"
                "#if defined(__GNUC__)\n"
                "#define TL_ALIGN8 __attribute__((aligned(8)))\n"
                "/* PTX text is longer than the 4095 characters C99 promises in a literal */\n"
                "#pragma GCC diagnostic ignored \"-Woverlength-strings\"\n"
                "#else\n#define TL_ALIGN8\n#endif\n\n");
    buf_puts(c, runtime_part);
    buf_puts(c, "\n");
    if (f16)
        buf_puts(c, f16_part);
    for (int i = 0; i < nk; i++)
        emit_kernel_source(c, &ks[i]);
}
