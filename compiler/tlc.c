/* tlc.c: the command-line driver.
 *
 * Exit codes: 0 success, 1 errors in the source, 2 bad usage, 4 internal error.
 * tlc never ends by a signal: a crash inside the compiler is caught here and
 * reported as an internal error (exit 4), so a bug shows up as a bug report,
 * not as a core dump in the user's build. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ast.h"
#include "compile.h"
#include "sema.h"
#include "ptx.h"

enum { EXIT_OK = 0, EXIT_SOURCE = 1, EXIT_USAGE = 2, EXIT_INTERNAL = 4 };

typedef enum { EMIT_AST, EMIT_IR, EMIT_IR_GPU, EMIT_LLVM, EMIT_PTX } Emit;

static const struct { const char *name; Emit emit; } emits[] = {
    {"ast", EMIT_AST}, {"ir", EMIT_IR}, {"ir-gpu", EMIT_IR_GPU}, {"llvm", EMIT_LLVM}, {"ptx", EMIT_PTX},
};

static void usage(FILE *f) {
    fputs("usage: tlc [options] FILE.tl\n"
          "       tlc --ir-in [options] FILE.tir\n"
          "\n"
          "Compiles Triton-style tile kernels (.tl) for NVIDIA GPUs.\n"
          "\n"
          "options:\n"
          "  -o FILE              write the output to FILE (default: stdout)\n"
          "  --emit=FORM          what to produce: ast (syntax tree), ir (typed tile IR),\n"
          "                       ir-gpu (IR with layouts), llvm (LLVM IR), ptx (default)\n"
          "  --ir-in              the input is IR text: parse, verify and print it\n"
          "  --passes=P1,P2       with --ir-in: run these passes first (combine, layout, ...)\n"
          "  --dump-after=PASS    also print the IR after PASS (sema, layout) to stderr\n",
          f);
    for (int i = 0; i < option_nspecs; i++) {
        const OptionSpec *o = &option_specs[i];
        char flag[64];
        snprintf(flag, sizeof flag, "%s%s%s%s", o->name[1] ? "--" : "-", o->name,
                 o->metavar ? (o->name[1] ? " " : " ") : "", o->metavar ? o->metavar : "");
        fprintf(f, "  %-20s %s\n", flag, o->help);
    }
    fputs("  -h, --help           show this help and exit\n"
          "  --version            show the version and exit\n"
          "\n"
          "exit status: 0 success, 1 errors in the source, 2 bad usage, 4 internal error\n",
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

/* Write the output where -o says; returns an exit code. */
static int write_output(const char *out_path, const Buf *out) {
    FILE *f = out_path ? fopen(out_path, "wb") : stdout;
    if (!f) {
        fprintf(stderr, "tlc: error: cannot write '%s': %s\n", out_path, strerror(errno));
        return EXIT_USAGE;
    }
    if (out->len)
        fwrite(out->data, 1, out->len, f);
    if ((f != stdout && fclose(f) != 0) || (f == stdout && fflush(f) != 0)) {
        fprintf(stderr, "tlc: error: cannot write '%s'\n", out_path ? out_path : "<stdout>");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

typedef struct Driver {
    const char *out_path;
    Emit emit;
    bool ir_in;
    const char *dump_after;
    const char *passes;
    CompileOptions opts;
} Driver;

/* --ir-in: parse IR text, verify each function, print it back. */
static void run_ir_input(Driver *dr, Arena *a, Diag *d, const Source *src, Buf *out) {
    Module *m = ir_parse(a, d, src);
    if (!m)
        return;
    for (int i = 0; i < m->nfuncs; i++)
        if (!ir_verify(d, m->funcs[i]) ||
            (dr->passes && !compile_run_passes(d, m->funcs[i], dr->passes, dr->opts.arch, NULL)))
            return;
    ir_print_module(out, m);
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
    int nnames = sema_kernel_names(mod, names, 64), n = 0;
    for (int i = 0; i < nnames && n < max; i++) {
        CompileOptions o = dr->opts;
        o.kernel = names[i];
        Diag quiet = {0};
        Function *f = compile_kernel(a, &quiet, src, mod, &o, hooks);
        if (f)
            fs[n++] = f;
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

static void run_source(Driver *dr, Arena *a, Diag *d, const Source *src, Buf *out) {
    Node *mod = parse_source(a, d, src);
    if (!mod)
        return;
    if (dr->emit == EMIT_AST) {
        ast_print(out, mod);
        return;
    }
    Buf dump = {0}, ir_gpu = {0}, llvm = {0};
    CompileHooks hooks = {.dump_after = dr->dump_after, .dump = &dump, .ir_gpu = &ir_gpu, .llvm = &llvm};
    Function *fs[64];
    int n = compile_kernels(dr, a, d, src, mod, &hooks, fs, 64);
    if (n > 0 && dr->emit == EMIT_IR) {
        for (int i = 0; i < n; i++)
            ir_print_func(out, fs[i]);
    } else if (n > 0) {
        Buf ptx = {0};
        if (compile_gpu(d, fs, n, dr->opts.arch, &hooks, &ptx)) {
            const Buf *pick = dr->emit == EMIT_IR_GPU ? &ir_gpu : dr->emit == EMIT_LLVM ? &llvm : &ptx;
            if (pick->len)
                buf_putn(out, pick->data, pick->len);
        }
        buf_free(&ptx);
    }
    if (dump.len)
        fwrite(dump.data, 1, dump.len, stderr);
    buf_free(&dump);
    buf_free(&ir_gpu);
    buf_free(&llvm);
}

int main(int argc, char **argv) {
    install_crash_handler();
    Driver dr = {.emit = EMIT_PTX};
    options_init(&dr.opts);
    Arena arena = {0};

    /* Long options: the driver's own, then the shared compile options. */
    enum { OPT_EMIT = 256, OPT_VERSION, OPT_IR_IN, OPT_DUMP_AFTER, OPT_PASSES, OPT_SHARED = 512 };
    struct option longopts[32];
    int n = 0;
    longopts[n++] = (struct option){"emit", required_argument, NULL, OPT_EMIT};
    longopts[n++] = (struct option){"help", no_argument, NULL, 'h'};
    longopts[n++] = (struct option){"version", no_argument, NULL, OPT_VERSION};
    longopts[n++] = (struct option){"ir-in", no_argument, NULL, OPT_IR_IN};
    longopts[n++] = (struct option){"dump-after", required_argument, NULL, OPT_DUMP_AFTER};
    longopts[n++] = (struct option){"passes", required_argument, NULL, OPT_PASSES};
    for (int i = 0; i < option_nspecs; i++)
        if (option_specs[i].name[1])
            longopts[n++] = (struct option){option_specs[i].name,
                                            option_specs[i].metavar ? required_argument : no_argument, NULL,
                                            OPT_SHARED + i};
    longopts[n] = (struct option){NULL, 0, NULL, 0};

    opterr = 0;
    int c, rc = EXIT_OK;
    Buf err = {0};
    while (rc == EXIT_OK && (c = getopt_long(argc, argv, ":o:hD:", longopts, NULL)) != -1) {
        switch (c) {
        case 'o':
            dr.out_path = optarg;
            break;
        case 'h':
            usage(stdout);
            return EXIT_OK;
        case OPT_VERSION:
            printf("tlc %s (LLVM %s, NVPTX backend %s)\n", TL_VERSION, ptx_llvm_version(),
                   ptx_target_available() ? "available" : "missing");
            return EXIT_OK;
        case OPT_EMIT: {
            size_t i, ne = sizeof emits / sizeof emits[0];
            for (i = 0; i < ne && strcmp(emits[i].name, optarg); i++)
                ;
            if (i == ne)
                rc = usage_error("unknown --emit form '%s' (expected: ast, ir, ir-gpu, llvm, ptx)", optarg);
            else
                dr.emit = emits[i].emit;
            break;
        }
        case OPT_IR_IN:
            dr.ir_in = true;
            break;
        case OPT_DUMP_AFTER: {
            int i;
            for (i = 0; compile_pass_names[i] && strcmp(compile_pass_names[i], optarg); i++)
                ;
            if (!compile_pass_names[i])
                rc = usage_error("unknown pass '%s' for --dump-after", optarg);
            dr.dump_after = optarg;
            break;
        }
        case OPT_PASSES:
            dr.passes = optarg;
            break;
        case 'D':
            if (!options_set(&dr.opts, &arena, "D", optarg, &err))
                rc = usage_error("%s", err.data);
            break;
        case ':':
            rc = usage_error("option '%s' needs an argument", argv[optind - 1]);
            break;
        case '?':
            rc = usage_error("unknown option '%s'", argv[optind - 1]);
            break;
        default:
            if (c >= OPT_SHARED && !options_set(&dr.opts, &arena, option_specs[c - OPT_SHARED].name, optarg, &err))
                rc = usage_error("%s", err.data);
            break;
        }
    }
    buf_free(&err);
    if (rc != EXIT_OK) {
        arena_free(&arena);
        return rc;
    }
    if (optind >= argc)
        return usage_error("%s", "no input file");
    if (argc - optind > 1)
        return usage_error("more than one input file ('%s' is extra)", argv[optind + 1]);
    if (dr.passes && !dr.ir_in)
        return usage_error("%s", "--passes runs passes on IR text: use it with --ir-in");
    if (dr.ir_in && dr.emit != EMIT_IR && dr.emit != EMIT_PTX)
        return usage_error("%s", "--ir-in prints the IR back: use it with --emit=ir or alone");
    const char *path = argv[optind];

    size_t len;
    char *text = read_file(path, &len);
    if (!text) {
        fprintf(stderr, "tlc: error: cannot read '%s': %s\n", path, strerror(errno));
        arena_free(&arena);
        return EXIT_USAGE;
    }
    Source src = {.name = path, .text = text, .len = len};
    Diag diag = {.max_errors = dr.opts.max_errors};
    diag.color = isatty(2) && !getenv("NO_COLOR");
    Buf out = {0};

    if (dr.ir_in)
        run_ir_input(&dr, &arena, &diag, &src, &out);
    else
        run_source(&dr, &arena, &diag, &src, &out);

    rc = diag.internal ? EXIT_INTERNAL : diag.nerrors ? EXIT_SOURCE : EXIT_OK;
    if (diag.out.len)
        fwrite(diag.out.data, 1, diag.out.len, stderr);
    if (rc == EXIT_OK && (out.len || dr.out_path))
        rc = write_output(dr.out_path, &out);
    buf_free(&out);
    buf_free(&diag.out);
    arena_free(&arena);
    free(text);
    return rc;
}
