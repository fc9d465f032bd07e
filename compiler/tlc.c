/* tlc.c: the command-line driver.
 *
 * Exit codes: 0 success, 1 errors in the source, 2 bad usage (or a tool the
 * output needs is missing: ptxas or a CUDA driver for --emit=cubin), 4
 * internal error (including ptxas rejecting our PTX).
 * tlc never ends by a signal: a crash inside the compiler is caught here and
 * reported as an internal error (exit 4), so a bug shows up as a bug report,
 * not as a core dump in the user's build. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "aot.h"
#include "ast.h"
#include "compile.h"
#include "cuda.h"
#include "ptx.h"

enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 4, EXIT_DONE = -1 /* --help, --version: nothing more to do */ };

typedef enum { EMIT_AST, EMIT_IR, EMIT_IR_GPU, EMIT_LLVM, EMIT_PTX, EMIT_CUBIN, EMIT_C } Emit;

static const struct { const char *name; Emit emit; } emits[] = {
    {"ast", EMIT_AST}, {"ir", EMIT_IR},       {"ir-gpu", EMIT_IR_GPU}, {"llvm", EMIT_LLVM},
    {"ptx", EMIT_PTX}, {"cubin", EMIT_CUBIN}, {"c", EMIT_C},
};

enum { MAX_ARCHS = 8 };

static void usage(FILE *f) {
    fputs("usage: tlc [options] FILE.tl       (FILE '-': read standard input)\n"
          "       tlc --ir-in [options] FILE.tir\n"
          "\n"
          "Compiles Triton-style tile kernels (.tl) for NVIDIA GPUs.\n"
          "\n"
          "options:\n"
          "  -o FILE              write the output to FILE (default, or -o -: stdout; --emit=c: FILE.c\n"
          "                       and FILE.h, by default named after the input)\n"
          "  --emit=FORM          what to produce: ast (syntax tree), ir (typed tile IR),\n"
          "                       ir-gpu (IR with layouts), llvm (LLVM IR), ptx (default),\n"
          "                       cubin (through ptxas, or the CUDA driver), c (an ahead-of-\n"
          "                       time C source and header with a launcher: docs/aot.md)\n"
          "  --embed=FORM         for --emit=c: ptx (default) or cubin images\n"
          "  --ir-in              the input is IR text (docs/ir.md): parse and verify it, then print it\n"
          "                       (--emit=ir) or compile it on (ir-gpu, llvm, ptx, cubin)\n"
          "  --passes=P1,P2       with --ir-in: run these passes first (combine, layout, ...)\n"
          "  --dump-after=PASS    also print the IR after PASS to stderr; the passes, in order:\n",
          f);
    Buf passes = {0};
    compile_pass_list(&passes);
    fprintf(f, "  %-20s %s\n", "", passes.data);
    buf_free(&passes);
    fputs("  --time-passes        print the time each compile stage took to stderr\n", f);
    for (int i = 0; i < option_nspecs; i++) {
        const OptionSpec *o = &option_specs[i];
        char flag[64];
        snprintf(flag, sizeof flag, "%s%s%s%s", o->name[1] ? "--" : "-", o->name,
                 o->metavar ? (o->name[1] ? " " : " ") : "", o->metavar ? o->metavar : "");
        fprintf(f, "  %-20s %s\n", flag, o->help);
        if (!strcmp(o->name, "arch"))
            fprintf(f, "  %-20s %s\n", "", "(--emit=c: a list, --arch sm_80,sm_90a; the launcher picks one)");
    }
    fputs("  -h, --help           show this help and exit\n"
          "  --version            show the version and exit\n"
          "\n"
          "environment: TL_PTXAS (the ptxas for --emit=cubin; default: ptxas in PATH)\n"
          "exit status: 0 success, 1 errors in the source, 2 bad usage or no assembler for\n"
          "             --emit=cubin, 4 internal error\n",
          f);
}

static void crash_handler(int sig) {
    static const char msg[] = "internal error: tlc crashed (signal caught); please report this with the input file\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(EXIT_INTERNAL);
}

static void install_crash_handler(void) {
    static char altstack[64 * 1024];
    stack_t ss = {.ss_sp = altstack, .ss_size = sizeof altstack};
    sigaltstack(&ss, NULL);
    struct sigaction sa = {.sa_handler = crash_handler, .sa_flags = SA_ONSTACK};
    sigemptyset(&sa.sa_mask);
    int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        sigaction(sigs[i], &sa, NULL);
}

static int usage_error(const char *fmt, const char *arg) {
    fputs("tlc: error: ", stderr);
    fprintf(stderr, fmt, arg);
    fputs(" (see 'tlc --help')\n", stderr);
    return EXIT_USAGE;
}

/* Write bytes to path (NULL: stdout); returns an exit code. */
static int write_file(const char *path, const char *data, size_t len) {
    FILE *f = path ? fopen(path, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "tlc: error: cannot write '%s': %s\n", path, strerror(errno));
        return EXIT_USAGE;
    }
    if (len)
        fwrite(data, 1, len, f);
    if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
        fprintf(stderr, "tlc: error: cannot write '%s'\n", path ? path : "<stdout>");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* --time-passes: one line per stage, in pipeline order, then the total. */
static void print_times(const CompileTimes *t) {
    double total = 0;
    fputs("tlc: time per stage\n", stderr);
    for (int i = 0; i < STAGE__COUNT; i++) {
        fprintf(stderr, "  %-10s %9.3f ms\n", compile_stage_names[i], t->seconds[i] * 1e3);
        total += t->seconds[i];
    }
    fprintf(stderr, "  %-10s %9.3f ms\n", "total", total * 1e3);
}

typedef struct Driver {
    const char *input;    /* the path given, "-" for standard input */
    const char *out_path;
    const char *c_path, *h_path;  /* --emit=c's two files */
    Emit emit;
    bool ir_in;
    bool embed_cubin;
    const char *dump_after;
    CompileTimes *times;          /* --time-passes */
    const char *archs[MAX_ARCHS]; /* --arch, a list for --emit=c; none: the default */
    int narchs;
    const char *passes;
    CompileOptions opts;
} Driver;

/* ---- PTX -> cubin ---- */

/* ptxas (runtime/cuda.c, the library's own) on the PTX; its messages and
 * ours on stderr. */
static int run_ptxas(const char *ptxas, const char *arch, bool lineinfo, const Buf *ptx, Buf *cubin) {
    Buf log = {0};
    PtxasResult r = cuda_run_ptxas(ptxas, arch, lineinfo, ptx->data, ptx->len, cubin, &log);
    if (r != PTXAS_OK && log.data) { /* ptxas' lines as it wrote them, then ours as tlc's errors */
        const char *ours = strstr(log.data, r == PTXAS_REJECTED ? "ptxas '" : "cannot ");
        fprintf(stderr, "%.*stlc: error: %s", ours ? (int)(ours - log.data) : 0, log.data, ours ? ours : log.data);
    }
    buf_free(&log);
    return r == PTXAS_OK ? EXIT_OK : r == PTXAS_CANNOT_RUN ? EXIT_USAGE : EXIT_INTERNAL;
}

/* The CUDA driver's linker, for the arch asked (CU_JIT_TARGET), not the GPU's. */
static int driver_link(const CudaApi *cu, const PtxArch *arch, const Buf *ptx, Buf *cubin) {
    enum { CU_JIT_TARGET = 9, CU_COMPUTE_ACCELERATED_TARGET_BASE = 0x10000 };
    CUdevice dev;
    CUcontext ctx;
    Buf m = {0};
    const char *what = "cannot open the CUDA device";
    CUresult r = cu->cuDeviceGet(&dev, 0);
    if (!r)
        r = cu->cuDevicePrimaryCtxRetain(&ctx, dev);
    if (!r)
        r = cu->cuCtxSetCurrent(ctx);
    char errlog[16384] = "";
    CUlinkState st = NULL;
    if (!r) {
        what = "the CUDA driver's linker failed";
        bool specific = arch->name[strlen(arch->name) - 1] == 'a';
        unsigned target = (unsigned)arch->sm + (specific ? CU_COMPUTE_ACCELERATED_TARGET_BASE : 0);
        int opts[] = {CU_JIT_TARGET, CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
        void *vals[] = {(void *)(uintptr_t)target, errlog, (void *)(uintptr_t)sizeof errlog};
        r = cu->cuLinkCreate(3, opts, vals, &st);
    }
    Buf text = {0};
    buf_putn(&text, ptx->data, ptx->len); /* the driver wants the NUL counted */
    if (!r)
        r = cu->cuLinkAddData(st, CU_JIT_INPUT_PTX, text.data, text.len + 1, "kernel.ptx", 0, NULL, NULL);
    void *data = NULL;
    size_t len = 0;
    if (!r)
        r = cu->cuLinkComplete(st, &data, &len);
    if (!r)
        buf_putn(cubin, data, len);
    if (st)
        cu->cuLinkDestroy(st);
    buf_free(&text);
    if (!r)
        return EXIT_OK;
    cuda_describe(cu, r, &m);
    fprintf(stderr, "tlc: error: %s for %s: %s\n%s%s", what, arch->name, m.data, errlog,
            errlog[0] ? "\n" : "");
    buf_free(&m);
    return EXIT_INTERNAL;
}

/* PTX -> cubin for arch: ptxas when there is one, else the driver. */
static int assemble(const char *arch_name, bool lineinfo, const Buf *ptx, Buf *cubin) {
    const PtxArch *arch = ptx_arch(arch_name);
    Buf path = {0}, err = {0};
    int rc;
    if (cuda_find_ptxas(&path)) {
        rc = run_ptxas(path.data, arch->name, lineinfo, ptx, cubin);
    } else {
        const CudaApi *cu = cuda_open(&err);
        if (cu) {
            rc = driver_link(cu, arch, ptx, cubin);
        } else {
            fprintf(stderr,
                    "tlc: error: --emit=cubin needs ptxas (in PATH or $TL_PTXAS) or a CUDA driver; neither was found\n"
                    "tlc: note: %s\n",
                    err.data ? err.data : "no CUDA driver");
            rc = EXIT_USAGE;
        }
    }
    buf_free(&path);
    buf_free(&err);
    return rc;
}

/* ---- compiling ---- */

/* --ir-in: parse IR text, verify each function, run --passes; then print
 * it back (--emit=ir) or take it through the rest of the pipeline with
 * compile_gpu, the function source input and the library use, to the form
 * --emit asks for. Returns an exit code for failures outside the input. */
static int run_ir_input(Driver *dr, Arena *a, Diag *d, const Source *src, Buf *out) {
    Module *m = ir_parse(a, d, src);
    if (!m)
        return EXIT_OK;
    const PtxArch *arch = dr->narchs ? ptx_arch(dr->archs[0]) : dr->opts.arch;
    for (int i = 0; i < m->nfuncs; i++)
        if (!ir_verify(d, m->funcs[i]) ||
            (dr->passes && !compile_run_passes(d, m->funcs[i], dr->passes, arch, NULL)))
            return EXIT_OK;
    if (dr->emit == EMIT_IR) {
        ir_print_module(out, m);
        return EXIT_OK;
    }
    Buf dump = {0}, ir_gpu = {0}, llvm = {0}, ptx = {0};
    CompileHooks hooks = {.dump_after = dr->dump_after, .dump = &dump, .ir_gpu = &ir_gpu, .llvm = &llvm,
                          .times = dr->times};
    CompileStop stop = dr->emit == EMIT_IR_GPU ? COMPILE_TO_IR_GPU : COMPILE_TO_PTX;
    int rc = EXIT_OK;
    if (!m->nfuncs) /* as a source file without a kernel: nothing to compile is an error */
        diag_plain(d, DIAG_ERROR, "no function in the IR of '%s' to compile", src->name);
    if (m->nfuncs &&
        compile_gpu(d, m->funcs, m->nfuncs, arch, dr->opts.opt_level, dr->opts.debug_info, stop, &hooks, &ptx)) {
        const Buf *pick = dr->emit == EMIT_IR_GPU ? &ir_gpu : dr->emit == EMIT_LLVM ? &llvm : &ptx;
        if (dr->emit == EMIT_CUBIN)
            rc = assemble(arch ? arch->name : ptx_arch(NULL)->name, dr->opts.debug_info > 0, &ptx, out);
        else if (pick->len)
            buf_putn(out, pick->data, pick->len);
    }
    if (dump.len)
        fwrite(dump.data, 1, dump.len, stderr);
    buf_free(&dump);
    buf_free(&ir_gpu);
    buf_free(&llvm);
    buf_free(&ptx);
    return rc;
}

/* The kernels to compile: --kernel's, or every kernel whose parameters are
 * all determined (the others fail quietly); if none is, report why for the
 * file as a whole. */
static int compile_kernels(Driver *dr, Arena *a, Diag *d, const Source *src, const Node *mod,
                           const CompileHooks *hooks, Function **fs, int max) {
    if (dr->opts.kernel) {
        fs[0] = compile_kernel(a, d, src, mod, &dr->opts, hooks);
        return fs[0] ? 1 : 0;
    }
    const char *names[64];
    int nnames = compile_kernel_names(mod, names, 64), n = 0;
    for (int i = 0; i < nnames && n < max; i++) {
        CompileOptions o = dr->opts;
        o.kernel = names[i];
        Diag quiet = {0};
        Function *f = compile_kernel(a, &quiet, src, mod, &o, hooks);
        if (f)
            fs[n++] = f;
        if (f && quiet.out.data) /* a kernel that compiles: its notes and warnings (static_print) are shown */
            buf_puts(&d->out, quiet.out.data);
        if (quiet.internal) { /* a bug is never quiet */
            buf_puts(&d->out, quiet.out.data);
            d->internal = true;
            d->nerrors++;
        }
        buf_free(&quiet.out);
    }
    if (n == 0 && !d->nerrors)
        compile_kernel(a, d, src, mod, &dr->opts, hooks); /* reports the choices */
    return n;
}

/* A name for a parameter in C: the kernel's, unless C (or the headers the
 * generated source includes) would read it as something else. */
static const char *c_param_name(Arena *a, const char *name) {
    static const char *taken[] = {
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
        "true", "false", "NULL", "EOF", "errno", "stdin", "stdout", "stderr", "offsetof", "stream", "grid_x",
        "grid_y", "grid_z"};
    bool clash = !strncmp(name, "tl_", 3) || !strncmp(name, "TL_", 3) || name[0] == '_';
    for (size_t i = 0; i < sizeof taken / sizeof taken[0] && !clash; i++)
        clash = !strcmp(taken[i], name);
    return clash ? arena_printf(a, "%s_", name) : name;
}

/* --emit=c: every specialisation of every kernel for every arch, then the
 * C source and header. Returns false with diagnostics in d. */
static bool build_aot(Driver *dr, Arena *a, Diag *d, const Source *src, const Node *mod, Function **fs, int n,
                      AotKernel *ks, int *rc) {
    const char *default_arch[1] = {ptx_arch(NULL)->name};
    const char **archs = dr->narchs ? dr->archs : default_arch;
    int narchs = dr->narchs ? dr->narchs : 1;
    for (int k = 0; k < n; k++) {
        Buf err = {0};
        AotVariant *vs;
        int nv = aot_plan(a, dr->opts.signature, fs[k], &vs, &err);
        if (nv < 0) {
            diag_plain(d, DIAG_ERROR, "--emit=c: %s", err.data);
            buf_free(&err);
            *rc = EXIT_USAGE;
            return false;
        }
        AotParam *ps = arena_alloc(a, sizeof(AotParam) * (size_t)(fs[k]->nparams + 1));
        for (int i = 0; i < fs[k]->nparams; i++)
            ps[i] = (AotParam){c_param_name(a, fs[k]->params[i].name), fs[k]->params[i].type};
        int kept = 0;
        for (int v = 0; v < nv; v++) {
            vs[v].images = arena_alloc(a, sizeof(AotImage) * (size_t)narchs);
            for (int j = 0; j < narchs && !vs[v].failed; j++) {
                CompileOptions o = dr->opts;
                o.kernel = fs[k]->name;
                o.signature = vs[v].signature;
                o.arch = ptx_arch(archs[j]);
                Diag vd = {.max_errors = d->max_errors, .color = d->color};
                Function *f = compile_kernel(a, &vd, src, mod, &o, NULL);
                Buf ptx = {0};
                bool ok = f && compile_gpu(&vd, &f, 1, o.arch, o.opt_level, o.debug_info, COMPILE_TO_PTX, NULL, &ptx);
                if (!ok && (vd.internal || v == nv - 1)) {
                    /* the user's own signature (the last) must compile; a bug is never quiet */
                    if (vd.out.data)
                        buf_puts(&d->out, vd.out.data);
                    d->nerrors++;
                    d->internal |= vd.internal;
                } else if (!ok) {
                    diag_plain(d, DIAG_NOTE, "kernel '%s': specialisation '%s' does not compile for %s; left out",
                               fs[k]->name, vs[v].signature, archs[j]);
                    vs[v].failed = true;
                } else {
                    const PtxArch *pa = ptx_arch(archs[j]);
                    AotImage *im = &vs[v].images[j];
                    *im = (AotImage){pa->name, pa->sm, false, arena_strndup(a, ptx.data, ptx.len), ptx.len, f->name,
                                     ir_launch_warps(f), f->shared_bytes};
                    if (dr->embed_cubin) {
                        Buf cubin = {0};
                        if ((*rc = assemble(pa->name, o.debug_info > 0, &ptx, &cubin)) != EXIT_OK) {
                            buf_free(&ptx);
                            buf_free(&vd.out);
                            return false;
                        }
                        im->cubin = true;
                        im->data = arena_alloc(a, cubin.len + 1);
                        memcpy((char *)im->data, cubin.data, cubin.len);
                        im->len = cubin.len;
                        buf_free(&cubin);
                    }
                }
                buf_free(&ptx);
                buf_free(&vd.out);
                if (d->nerrors)
                    return false;
            }
            if (!vs[v].failed)
                vs[kept++] = vs[v];
        }
        ks[k] = (AotKernel){fs[k]->name, ps, fs[k]->nparams, dr->opts.signature, vs, kept, narchs};
    }
    return true;
}

/* Where --emit=c writes: -o's NAME.c and NAME.h, or the input's name with
 * .c and .h in the current directory. */
static int aot_paths(const Driver *dr, const char *input, Arena *a, const char **c_path, const char **h_path) {
    const char *base;
    size_t n;
    if (dr->out_path) {
        n = strlen(dr->out_path);
        if (n < 3 || strcmp(dr->out_path + n - 2, ".c"))
            return usage_error("--emit=c writes NAME.c and NAME.h: -o must name the .c file, not '%s'", dr->out_path);
        base = dr->out_path;
        n -= 2;
    } else {
        if (!strcmp(input, "-"))
            return usage_error("%s", "--emit=c from standard input needs -o NAME.c");
        base = strrchr(input, '/') ? strrchr(input, '/') + 1 : input;
        n = strlen(base);
        if (n > 3 && !strcmp(base + n - 3, ".tl"))
            n -= 3;
    }
    *c_path = arena_printf(a, "%.*s.c", (int)n, base);
    *h_path = arena_printf(a, "%.*s.h", (int)n, base);
    return EXIT_OK;
}

/* Compile the source into out (for --emit=c: into the two files). Returns
 * an exit code for failures outside the source (usage, tools); source errors
 * are in d. */
static int run_source(Driver *dr, Arena *a, Diag *d, const Source *src, Buf *out) {
    Node *mod = compile_parse(a, d, src, dr->times);
    if (!mod)
        return EXIT_OK;
    if (dr->emit == EMIT_AST) {
        ast_print(out, mod);
        return EXIT_OK;
    }
    Buf dump = {0}, ir_gpu = {0}, llvm = {0};
    CompileHooks hooks = {.dump_after = dr->dump_after, .dump = &dump, .ir_gpu = &ir_gpu, .llvm = &llvm,
                          .times = dr->times};
    Function *fs[64];
    int n = compile_kernels(dr, a, d, src, mod, &hooks, fs, 64), rc = EXIT_OK;
    if (n > 0 && dr->emit == EMIT_IR) {
        for (int i = 0; i < n; i++)
            ir_print_func(out, fs[i]);
    } else if (n > 0 && dr->emit == EMIT_C) {
        AotKernel *ks = arena_alloc(a, sizeof(AotKernel) * (size_t)n);
        if (build_aot(dr, a, d, src, mod, fs, n, ks, &rc)) {
            Buf c = {0}, h = {0};
            aot_emit(ks, n, dr->h_path, src->name, &c, &h);
            if ((rc = write_file(dr->h_path, h.data, h.len)) == EXIT_OK)
                rc = write_file(dr->c_path, c.data, c.len);
            buf_free(&c);
            buf_free(&h);
        }
    } else if (n > 0) {
        Buf ptx = {0};
        const PtxArch *arch = dr->narchs ? ptx_arch(dr->archs[0]) : dr->opts.arch;
        CompileStop stop = dr->emit == EMIT_IR_GPU ? COMPILE_TO_IR_GPU : COMPILE_TO_PTX;
        if (compile_gpu(d, fs, n, arch, dr->opts.opt_level, dr->opts.debug_info, stop, &hooks, &ptx)) {
            const Buf *pick = dr->emit == EMIT_IR_GPU ? &ir_gpu : dr->emit == EMIT_LLVM ? &llvm : &ptx;
            if (dr->emit == EMIT_CUBIN)
                rc = assemble(arch ? arch->name : ptx_arch(NULL)->name, dr->opts.debug_info > 0, &ptx, out);
            else if (pick->len)
                buf_putn(out, pick->data, pick->len);
        }
        buf_free(&ptx);
    }
    if (dump.len)
        fwrite(dump.data, 1, dump.len, stderr);
    buf_free(&dump);
    buf_free(&ir_gpu);
    buf_free(&llvm);
    return rc;
}

/* ---- command line ---- */

/* The source: a file, or standard input for "-". */
static char *read_input(const char *path, size_t *len) {
    if (strcmp(path, "-"))
        return read_file(path, len);
    Buf b = {0};
    buf_puts(&b, "");
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        buf_putn(&b, chunk, n);
    if (ferror(stdin)) {
        buf_free(&b);
        return NULL;
    }
    *len = b.len;
    return b.data;
}

/* getopt's complaint about argument `word` (an unknown flag, a missing or
 * unexpected argument), naming the flag as the user wrote it. For a short
 * flag getopt says which in optopt (in "-O3x" the word is not argv[optind-1]);
 * for a long one optopt is 0 or our code. */
static int option_error(int c, char **argv, const struct option *longopts) {
    const char *word = argv[optind - 1];
    bool is_long = !strncmp(word, "--", 2) && word[2];
    if (is_long && optopt > 0 && optopt < 256) {
        /* "--help=x" reports 'h': long only if that word names the flag */
        size_t n = strcspn(word + 2, "=");
        const struct option *o = longopts;
        while (o->name && (strlen(o->name) != n || strncmp(o->name, word + 2, n)))
            o++;
        is_long = o->name && o->val == optopt;
    }
    char name[128];
    if (is_long)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(word, "="), word);
    else
        snprintf(name, sizeof name, "-%c", optopt > 32 && optopt < 127 ? optopt : '?');
    if (c == ':')
        return usage_error("option '%s' needs an argument", name);
    if (is_long && optopt)
        return usage_error("option '%s' takes no argument", name);
    return usage_error("unknown option '%s'", name);
}

/* --arch: one name, or a comma list for --emit=c; each checked by the options table. */
static bool set_archs(Driver *dr, Arena *a, const char *arg, Buf *err) {
    dr->narchs = 0;
    for (const char *p = arg;;) {
        size_t n = strcspn(p, ",");
        char *one = arena_strndup(a, p, n);
        if (dr->narchs == MAX_ARCHS) {
            buf_printf(err, "too many architectures in --arch (at most %d)", MAX_ARCHS);
            return false;
        }
        if (!options_set(&dr->opts, a, "arch", one, err))
            return false;
        for (int i = 0; i < dr->narchs; i++)
            if (!strcmp(dr->archs[i], dr->opts.arch->name)) {
                buf_printf(err, "--arch lists %s twice", one);
                return false;
            }
        dr->archs[dr->narchs++] = dr->opts.arch->name;
        if (!p[n])
            return true;
        p += n + 1;
    }
}

/* The command line into dr: EXIT_OK, a usage error's code, or EXIT_DONE
 * after --help or --version. */
static int parse_args(Driver *dr, Arena *arena, CompileTimes *times, int argc, char **argv) {
    /* Long options: the driver's own, then the shared compile options. */
    enum { OPT_EMIT = 256, OPT_VERSION, OPT_IR_IN, OPT_DUMP_AFTER, OPT_EMBED, OPT_TIME_PASSES, OPT_PASSES,
           OPT_SHARED = 512 };
    struct option longopts[32];
    int n = 0;
    longopts[n++] = (struct option){"emit", required_argument, NULL, OPT_EMIT};
    longopts[n++] = (struct option){"embed", required_argument, NULL, OPT_EMBED};
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    longopts[n++] = (struct option){"ir-in", no_argument, NULL, OPT_IR_IN};
    longopts[n++] = (struct option){"dump-after", required_argument, NULL, OPT_DUMP_AFTER};
    longopts[n++] = (struct option){"time-passes", no_argument, NULL, OPT_TIME_PASSES};
    longopts[n++] = (struct option){"passes", required_argument, NULL, OPT_PASSES};
    for (int i = 0; i < option_nspecs; i++)
        if (option_specs[i].name[1])
            longopts[n++] = (struct option){option_specs[i].name,
                                            option_specs[i].metavar ? required_argument : no_argument, NULL,
                                            OPT_SHARED + i};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    /* nvcc's and ptxas's spelling of --lineinfo, one dash */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-lineinfo"))
            argv[i] = "--lineinfo";
    opterr = 0;
    int c, rc = EXIT_OK;
    Buf err = {0};
    while (rc == EXIT_OK && (c = getopt_long(argc, argv, ":o:hD:O:g", longopts, NULL)) != -1) {
        err.len = 0;
        switch (c) {
        case 'o':
            dr->out_path = strcmp(optarg, "-") ? optarg : NULL; /* -o -: standard output, as with cc */
            break;
        case 'h':
            usage(stdout);
            rc = EXIT_DONE;
            break;
        case OPT_VERSION:
            printf("tlc %s (LLVM %s, NVPTX backend %s)\n", TL_VERSION, ptx_llvm_version(),
                   ptx_target_available() ? "available" : "missing");
            rc = EXIT_DONE;
            break;
        case OPT_EMIT: {
            size_t i, ne = sizeof emits / sizeof emits[0];
            for (i = 0; i < ne && strcmp(emits[i].name, optarg); i++)
                ;
            if (i == ne)
                rc = usage_error("unknown --emit form '%s' (expected: ast, ir, ir-gpu, llvm, ptx, cubin, c)", optarg);
            else
                dr->emit = emits[i].emit;
            break;
        }
        case OPT_EMBED:
            if (strcmp(optarg, "ptx") && strcmp(optarg, "cubin"))
                rc = usage_error("unknown --embed form '%s' (expected: ptx, cubin)", optarg);
            dr->embed_cubin = !strcmp(optarg, "cubin");
            break;
        case OPT_IR_IN:
            dr->ir_in = true;
            break;
        case OPT_TIME_PASSES:
            dr->times = times;
            break;
        case OPT_DUMP_AFTER:
            if (!compile_pass_exists(optarg))
                rc = usage_error("unknown pass '%s' for --dump-after", optarg);
            dr->dump_after = optarg;
            break;
        case OPT_PASSES:
            dr->passes = optarg;
            break;
        case 'g':
            options_set(&dr->opts, arena, "g", NULL, &err);
            break;
        case 'D':
        case 'O':
            if (!options_set(&dr->opts, arena, c == 'D' ? "D" : "O", optarg, &err))
                rc = usage_error("%s", err.data);
            break;
        case ':':
        case '?':
            rc = option_error(c, argv, longopts);
            break;
        default:
            if (c >= OPT_SHARED && !strcmp(option_specs[c - OPT_SHARED].name, "arch")) {
                if (!set_archs(dr, arena, optarg, &err))
                    rc = usage_error("%s", err.data);
            } else if (c >= OPT_SHARED &&
                       !options_set(&dr->opts, arena, option_specs[c - OPT_SHARED].name, optarg, &err)) {
                rc = usage_error("%s", err.data);
            }
            break;
        }
    }
    buf_free(&err);
    return rc;
}

/* What the options cannot be together, and the one input file. */
static int check_args(Driver *dr, int argc, char **argv) {
    if (dr->opts.debug_info < 0)
        dr->opts.debug_info = 0; /* tlc's PTX has no line tables unless asked (the C API's has) */
    if (optind >= argc)
        return usage_error("%s", "no input file");
    if (argc - optind > 1)
        return usage_error("more than one input file ('%s' is extra)", argv[optind + 1]);
    if (dr->passes && !dr->ir_in)
        return usage_error("%s", "--passes runs passes on IR text: use it with --ir-in");
    /* --emit=c specialises each kernel again from its source for every hint
     * variant of the signature: IR text is one specialisation, already made */
    if (dr->ir_in && (dr->emit == EMIT_AST || dr->emit == EMIT_C))
        return usage_error("--ir-in reads IR, which has no %s: use --emit=ir, ir-gpu, llvm, ptx or cubin",
                           dr->emit == EMIT_AST ? "syntax tree (--emit=ast)"
                                               : "source to specialise the launcher's variants from (--emit=c)");
    if (dr->narchs > 1 && dr->emit != EMIT_C)
        return usage_error("%s", "several architectures in --arch need --emit=c (one image each)");
    if (dr->embed_cubin && dr->emit != EMIT_C)
        return usage_error("%s", "--embed is for --emit=c");
    if (dr->opts.auto_tma > 0 && dr->emit == EMIT_C)
        return usage_error("%s", "--auto-tma on is not for --emit=c: its launchers pass no tensor maps");
    if (dr->emit == EMIT_CUBIN && !dr->out_path && isatty(1))
        return usage_error("%s", "not writing a cubin to a terminal: give -o FILE.cubin");
    return EXIT_OK;
}

int main(int argc, char **argv) {
    install_crash_handler();
    Driver dr = {.emit = EMIT_PTX};
    options_init(&dr.opts);
    Arena arena = {0};
    CompileTimes times = {0};
    int rc = parse_args(&dr, &arena, &times, argc, argv);
    if (rc == EXIT_OK)
        rc = check_args(&dr, argc, argv);
    if (rc != EXIT_OK) {
        arena_free(&arena);
        return rc == EXIT_DONE ? EXIT_OK : rc;
    }
    const char *path = dr.input = argv[optind];
    if (dr.emit == EMIT_C && (rc = aot_paths(&dr, path, &arena, &dr.c_path, &dr.h_path)) != EXIT_OK) {
        arena_free(&arena);
        return rc;
    }

    size_t len = 0;
    char *text = read_input(path, &len);
    if (!text) {
        fprintf(stderr, "tlc: error: cannot read '%s': %s\n", path, strerror(errno));
        arena_free(&arena);
        return EXIT_USAGE;
    }
    Source src = {.name = strcmp(path, "-") ? path : "<stdin>", .text = text, .len = len};
    Diag diag = {.max_errors = dr.opts.max_errors};
    diag.color = isatty(2) && !getenv("NO_COLOR");
    Buf out = {0};

    if (dr.ir_in)
        rc = run_ir_input(&dr, &arena, &diag, &src, &out);
    else
        rc = run_source(&dr, &arena, &diag, &src, &out);

    if (rc == EXIT_OK)
        rc = diag.internal ? EXIT_INTERNAL : diag.nerrors ? EXIT_SOURCE : EXIT_OK;
    if (diag.out.len)
        fwrite(diag.out.data, 1, diag.out.len, stderr);
    if (dr.times)
        print_times(dr.times);
    if (rc == EXIT_OK && dr.emit != EMIT_C && (out.len || dr.out_path))
        rc = write_file(dr.out_path, out.data, out.len);
    buf_free(&out);
    buf_free(&diag.out);
    arena_free(&arena);
    free(text);
    return rc;
}
