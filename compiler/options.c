/* options.c: the compile-option table shared by tlc and the C API. */
#include "options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Integer options carry their range here, and only here: sema checks the
 * values of a triton.Config against the same entries (options_check_int). */
const OptionSpec option_specs[] = {
    {.name = "kernel", .metavar = "NAME",
     .help = "kernel to compile (default: every kernel whose parameters are all known)"},
    {.name = "signature", .metavar = "SIG",
     .help = "Triton AOT signature, one entry per parameter: \"*fp16:16, i32, 128\""},
    {.name = "D", .metavar = "NAME=VALUE",
     .help = "set a constexpr parameter or **meta key (repeatable); a runtime parameter set so is a constant and takes no signature entry"},
    {.name = "arch", .metavar = "SM",
     .help = "GPU architecture: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90 (default), sm_90a, sm_100, sm_100a, "
             "sm_120, sm_120a"},
    {.name = "num-warps", .metavar = "N",
     .help = "warps per program (1, 2, 4, 8, 16, 32; default 4 or the autotune config's)", .lo = 1, .hi = 32, .pow2 = true},
    {.name = "num-stages", .metavar = "N",
     .help = "software pipelining stages (default 3 or the autotune config's)", .lo = 0, .hi = 8},
    {.name = "autotune-config", .metavar = "I",
     .help = "use the I-th config (from 0) of the kernel's @triton.autotune", .lo = 0, .hi = 1000},
    {.name = "max-errors", .metavar = "N",
     .help = "stop after N errors (default 20)", .lo = 1, .hi = 100000},
    {.name = "auto-tma", .metavar = "on|off",
     .help = "sm_90a: TMA for pointer tiles proved to be boxes of a tensor, the launch encoding their maps, and for in-kernel descriptors' tiles through maps the kernel makes in global scratch the launch passes last (default: on in the C API, off in tlc, whose kernels other launchers call)"},
    {.name = "warp-specialize", .metavar = "on|off",
     .help = "sm_90a: a dot loop whose operands TMA copies runs its copies in a producer warpgroup, beside num_warps consumer warps (default: on; tl.range(..., warp_specialize=) decides per loop)"},
    {.name = "maxnreg", .metavar = "N",
     .help = "at most N registers a thread (the PTX entry's .maxnreg, Triton's maxnreg; default: ptxas chooses)",
     .lo = 16, .hi = 255},
    {.name = "fp-fusion", .metavar = "on|off",
     .help = "let LLVM fuse a float multiply and an add into one fma (Triton's enable_fp_fusion; default: on)"},
    {.name = "lineinfo",
     .help = "source lines in the PTX (.file/.loc: ncu's source view, compute-sanitizer) without changing the code; also "
             "spelled -lineinfo (default: on in the C API, off in tlc)"},
    {.name = "no-lineinfo", .help = "no source lines in the PTX (the C API: also TL_DISABLE_LINE_INFO=1)"},
    {.name = "g", .help = "full debug info: the line tables, the kernels' DWARF entries (no variables) and .target "
                          "debug, for which ptxas builds unoptimised device-debug code (nvcc -G)"},
    {.name = "O", .metavar = "N", .help = "optimisation: -O0, -O1, -O3 (default) run LLVM's pipelines, -O2 tl's own (faster)", .lo = 0, .hi = 3},
};
const int option_nspecs = sizeof option_specs / sizeof option_specs[0];

void options_init(CompileOptions *o) {
    memset(o, 0, sizeof *o);
    o->autotune_config = -1;
    o->opt_level = 3;
    o->auto_tma = -1;
    o->warp_specialize = -1;
    o->fp_fusion = -1;
    o->debug_info = -1;
}

bool options_check_int(const char *name, long v, Buf *err) {
    for (int i = 0; i < option_nspecs; i++) {
        const OptionSpec *o = &option_specs[i];
        if (strcmp(o->name, name))
            continue;
        if (v < o->lo || v > o->hi || (o->pow2 && (v & (v - 1)))) {
            buf_printf(err, "must be %s from %ld to %ld, got %ld", o->pow2 ? "a power of two" : "a number", o->lo,
                       o->hi, v);
            return false;
        }
        return true;
    }
    buf_printf(err, "unknown option '--%s'", name);
    return false;
}

static bool is_ident_start(char c) { return c == '_' || ((c | 32) >= 'a' && (c | 32) <= 'z'); }

static bool is_identifier(const char *s, size_t n) {
    if (n == 0 || !is_ident_start(s[0]))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!is_ident_start(s[i]) && !(s[i] >= '0' && s[i] <= '9'))
            return false;
    return true;
}

bool options_set(CompileOptions *o, Arena *a, const char *name, const char *arg, Buf *err) {
    long v;
    if (!strcmp(name, "kernel")) {
        o->kernel = arena_strdup(a, arg);
    } else if (!strcmp(name, "signature")) {
        o->signature = arena_strdup(a, arg);
    } else if (!strcmp(name, "D")) {
        const char *eq = strchr(arg, '=');
        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
        if (!is_identifier(arg, n)) {
            buf_printf(err, "-D expects NAME=VALUE with NAME an identifier, got '%s'", arg);
            return false;
        }
        if (o->ndefines == OPTIONS_MAX_DEFINES) {
            buf_printf(err, "too many -D definitions (at most %d)", OPTIONS_MAX_DEFINES);
            return false;
        }
        /* -D NAME alone means NAME=True, as with a C compiler's -D. */
        o->defines[o->ndefines++] = (SemaDefine){arena_strndup(a, arg, n), eq ? arena_strdup(a, eq + 1) : "True"};
    } else if (!strcmp(name, "arch")) {
        const PtxArch *arch = ptx_arch(arg);
        if (!arch) {
            char names[160];
            ptx_arch_names(names, sizeof names);
            buf_printf(err, "unsupported --arch '%s' (expected %s)", arg, names);
            return false;
        }
        o->arch = arch;
    } else if (!strcmp(name, "auto-tma") || !strcmp(name, "warp-specialize") || !strcmp(name, "fp-fusion")) {
        if (strcmp(arg, "on") && strcmp(arg, "off")) {
            buf_printf(err, "--%s expects on or off, got '%s'", name, arg);
            return false;
        }
        *(name[0] == 'a' ? &o->auto_tma : name[0] == 'w' ? &o->warp_specialize : &o->fp_fusion) = !strcmp(arg, "on");
    } else if (!strcmp(name, "lineinfo") || !strcmp(name, "no-lineinfo") || !strcmp(name, "g")) {
        /* the last of them wins, as with a C compiler's -g / -g0 */
        o->debug_info = name[0] == 'l' ? 1 : name[0] == 'n' ? 0 : 2;
    } else if (!strcmp(name, "num-warps") || !strcmp(name, "num-stages") || !strcmp(name, "autotune-config") ||
               !strcmp(name, "max-errors") || !strcmp(name, "O") || !strcmp(name, "maxnreg")) {
        const char *dash = name[1] ? "--" : "-";
        char *end;
        errno = 0;
        v = strtol(arg, &end, 10);
        if (errno || end == arg || *end) {
            buf_printf(err, "%s%s expects a number, got '%s'", dash, name, arg);
            return false;
        }
        Buf why = {0};
        bool ok = options_check_int(name, v, &why);
        if (!ok)
            buf_printf(err, "%s%s %s", dash, name, why.data ? why.data : "");
        buf_free(&why);
        if (!ok)
            return false;
        int *field = !strcmp(name, "num-warps")         ? &o->num_warps
                     : !strcmp(name, "num-stages")      ? &o->num_stages
                     : !strcmp(name, "autotune-config") ? &o->autotune_config
                     : !strcmp(name, "O")               ? &o->opt_level
                     : !strcmp(name, "maxnreg")         ? &o->maxnreg
                                                        : &o->max_errors;
        *field = (int)v;
    } else {
        buf_printf(err, "unknown option '%s%s'", strlen(name) == 1 ? "-" : "--", name);
        return false;
    }
    return true;
}

/* Shell-like word splitting: whitespace separates, '...' is literal, "..."
 * allows \" and \\, a backslash outside quotes escapes the next character. */
static char *next_word(Arena *a, const char **sp, Buf *err, bool *ok) {
    const char *s = *sp;
    while (*s == ' ' || *s == '\t' || *s == '\n')
        s++;
    if (!*s) {
        *sp = s;
        return NULL;
    }
    Buf w = {0};
    buf_puts(&w, "");
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
        if (*s == '\'' || *s == '"') {
            char q = *s++;
            while (*s && *s != q) {
                if (q == '"' && *s == '\\' && (s[1] == '"' || s[1] == '\\'))
                    s++;
                buf_putc(&w, *s++);
            }
            if (!*s) {
                buf_printf(err, "unterminated %c-quote in options", q);
                *ok = false;
                buf_free(&w);
                *sp = s;
                return NULL;
            }
            s++;
        } else if (*s == '\\' && s[1]) {
            buf_putc(&w, s[1]);
            s += 2;
        } else {
            buf_putc(&w, *s++);
        }
    }
    *sp = s;
    char *r = arena_strdup(a, w.data);
    buf_free(&w);
    return r;
}

static const OptionSpec *find_spec(const char *name, size_t n) {
    for (int i = 0; i < option_nspecs; i++)
        if (strlen(option_specs[i].name) == n && !strncmp(option_specs[i].name, name, n))
            return &option_specs[i];
    return NULL;
}

bool options_parse_string(CompileOptions *o, Arena *a, const char *str, Buf *err) {
    bool ok = true;
    const char *s = str ? str : "";
    char *w;
    while ((w = next_word(a, &s, err, &ok))) {
        const char *name, *arg = NULL;
        size_t n;
        const OptionSpec *single = w[0] == '-' && w[1] && w[1] != '-' ? find_spec(w + 1, strlen(w + 1)) : NULL;
        if (single && !single->metavar && single->name[1]) { /* -lineinfo, as nvcc spells it */
            name = w + 1;
            n = strlen(name);
        } else if (w[0] == '-' && w[1] && w[1] != '-') { /* a short flag: -DNAME=V, -D NAME=V, -O3 */
            name = w + 1;
            n = 1;
            if (w[2])
                arg = w + 2;
        } else if (w[0] == '-' && w[1] == '-' && w[2]) {
            name = w + 2;
            const char *eq = strchr(name, '=');
            n = eq ? (size_t)(eq - name) : strlen(name);
            if (eq)
                arg = eq + 1;
        } else {
            buf_printf(err, "unexpected '%s' in options (flags look like --kernel NAME)", w);
            return false;
        }
        const OptionSpec *spec = find_spec(name, n);
        if (!spec) { /* a short flag is named without what follows it, as tlc does */
            buf_printf(err, "unknown option '%.*s'", w[1] == '-' ? (int)(n + 2) : 2, w);
            return false;
        }
        if (!spec->metavar) {
            if (arg) {
                buf_printf(err, "option '%.*s' takes no argument", w[1] == '-' ? (int)(n + 2) : 2, w);
                return false;
            }
        } else if (!arg) {
            arg = next_word(a, &s, err, &ok);
            if (!ok)
                return false;
            if (!arg) {
                buf_printf(err, "option '%s' needs an argument", w);
                return false;
            }
        }
        if (!options_set(o, a, spec->name, arg, err))
            return false;
    }
    return ok;
}

SemaOptions options_to_sema(const CompileOptions *o) {
    return (SemaOptions){
        .kernel = o->kernel,
        .signature = o->signature,
        .defines = o->defines,
        .ndefines = o->ndefines,
        .num_warps = o->num_warps,
        .num_stages = o->num_stages,
        .autotune_config = o->autotune_config,
        .arch = o->arch ? o->arch->sm : 0,
        .tensormaps = o->auto_tma > 0 && o->arch && ptx_arch_has(o->arch, ARCH_WGMMA),
        .runtime_signature = o->runtime_signature,
        .arg_values = o->arg_values,
        .narg_values = o->narg_values,
        .heuristics = o->heuristics,
        .nheuristics = o->nheuristics,
    };
}

/* One owner for how a signature splits: sema specialises with it, the AOT
 * planner (aot.c) reads the same entries. */
int options_split_signature(Arena *arena, const char *sig, const char ***out) {
    int n = 0, cap = 8;
    const char **e = arena_alloc(arena, sizeof(char *) * (size_t)cap);
    const char *p = sig;
    while (*p == ' ' || *p == '\t')
        p++;
    if (!*p) {
        *out = e;
        return 0;
    }
    for (;;) {
        const char *start = p;
        int depth = 0;
        char q = 0;
        for (; *p; p++) {
            if (q) {
                if (*p == '\\' && p[1])
                    p++;
                else if (*p == q)
                    q = 0;
            } else if (*p == '\'' || *p == '"') {
                q = *p;
            } else if (*p == '(' || *p == '[') {
                depth++;
            } else if (*p == ')' || *p == ']') {
                depth--;
            } else if (*p == ',' && depth <= 0) {
                break;
            }
        }
        const char *a = start, *b = p;
        while (a < b && (*a == ' ' || *a == '\t'))
            a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
            b--;
        if (n == cap) {
            const char **ne = arena_alloc(arena, sizeof(char *) * (size_t)cap * 2);
            memcpy(ne, e, sizeof(char *) * (size_t)cap);
            e = ne;
            cap *= 2;
        }
        e[n++] = arena_strndup(arena, a, (size_t)(b - a));
        if (!*p)
            break;
        p++;
    }
    *out = e;
    return n;
}
