/* sema_spec.c: specialisation and the entry points of semantic analysis:
 * the kernel a call names (or the one whose parameters are all determined),
 * its parameters bound from the signature, -D, the autotune config and the
 * defaults, the kernel-info query the C API asks (sema_kernel_info), and
 * sema_kernel itself. The rest of sema is in sema.c (see sema_int.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "options.h"
#include "sema_int.h"

/* ---- specialisation ---- */

static const char *const sig_type_names[] = {"i1",  "i8",  "i16",  "i32",  "i64",  "u8",  "u16",
                                             "u32", "u64", "fp16", "bf16", "fp32", "fp64"};

/* A signature type: *DTYPE or a scalar dtype, each with an optional :16 / :1 hint. */
/* `x: tl.const` (or a string annotation naming const, not constexpr): a
 * pointer parameter the kernel may only read, Triton's KernelParam.is_const. */
static bool is_const_annotation(const Node *a) {
    if (!a || sema_is_constexpr_annotation(a))
        return false;
    if (a->kind == N_NAME || a->kind == N_ATTR)
        return !strcmp(a->name, "const");
    return a->kind == N_STR && strstr(a->name, "const");
}

static bool sig_type(const char *e, Type *t, int *hint, bool *bad_hint) {
    bool ptr = *e == '*';
    if (ptr)
        e++;
    const char *colon = strchr(e, ':');
    char name[32];
    size_t len = colon ? (size_t)(colon - e) : strlen(e);
    if (!len || len >= sizeof name)
        return false;
    memcpy(name, e, len);
    name[len] = 0;
    bool ok = false;
    for (size_t i = 0; i < sizeof sig_type_names / sizeof sig_type_names[0]; i++)
        ok |= !strcmp(sig_type_names[i], name);
    if (!ok && !ptr)
        return false;
    Type d;
    if (!sema_dtype_by_name(name, &d)) {
        if (!ptr)
            return false;
        *t = ir_ptr(DT_VOID);
        return true;
    }
    *t = ptr ? ir_ptr((DType)d.dtype) : d;
    *hint = 0;
    *bad_hint = false;
    if (colon) {
        if (!strcmp(colon + 1, "16"))
            *hint = 16;
        else if (!strcmp(colon + 1, "1"))
            *hint = 1;
        else
            *bad_hint = true;
    }
    return true;
}

/* The signature type a misspelt entry most likely means, its '*' and hint
 * kept: another name of the dtype (f32, float32, int32, tl.float16), a C or
 * Python type name (int, float, double, half, bool), or the closest type
 * name ("fp23"). NULL when nothing is close. */
static const char *sig_type_guess(Sema *s, const char *entry) {
    static const struct { const char *word, *type; } words[] = {
        {"int", "i32"}, {"float", "fp32"}, {"double", "fp64"}, {"half", "fp16"}, {"bool", "i1"}, {"long", "i64"},
    };
    bool ptr = *entry == '*';
    const char *e = ptr ? entry + 1 : entry, *colon = strchr(e, ':');
    char *name = arena_strndup(s->a, e, colon ? (size_t)(colon - e) : strlen(e));
    const char *guess = NULL;
    for (size_t i = 0; i < sizeof words / sizeof words[0] && !guess; i++)
        if (!strcmp(words[i].word, name))
            guess = words[i].type;
    Type d;
    if (!guess && sema_dtype_by_name(name, &d)) /* f32, float32, tl.float16 */
        guess = name;
    if (!guess) { /* the closest of the type names and Triton's dtype names ("flaot16") */
        Suggest sg;
        suggest_init(&sg, name);
        for (size_t i = 0; i < sizeof sig_type_names / sizeof sig_type_names[0]; i++)
            suggest_add(&sg, sig_type_names[i]);
        sema_suggest_dtypes(&sg);
        guess = suggest_best(&sg);
    }
    Type t, u;
    if (guess && sema_dtype_by_name(guess, &t)) /* spelt as a signature type */
        for (size_t i = 0; i < sizeof sig_type_names / sizeof sig_type_names[0]; i++)
            if (sema_dtype_by_name(sig_type_names[i], &u) && u.dtype == t.dtype)
                guess = sig_type_names[i];
    return guess ? arena_printf(s->a, "%s%s%s", ptr ? "*" : "", guess, colon ? colon : "") : NULL;
}

/* May a parameter that is not a tl.constexpr be given this signature
 * constant? Like Triton's AOT compiler, a number (and here also a string,
 * a bool, None, a tuple or a function of the file) specialises it as a
 * constant; a dtype or a builtin there is a misspelt type (f32, int). */
static bool sig_constant_ok(Val v) {
    switch (v.k) {
    case V_INT:
    case V_FLOAT:
    case V_BOOL:
    case V_NONE:
    case V_STR:
    case V_TUPLE:
    case V_FUNC: return true;
    default: return false;
    }
}

static const char *define_of(Sema *s, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < s->opt->ndefines; i++)
        if (s->opt->defines[i].name && !strcmp(s->opt->defines[i].name, name))
            v = s->opt->defines[i].value;
    return v;
}

static bool is_identifier(const char *t) {
    if (!t || !(*t == '_' || ((*t | 32) >= 'a' && (*t | 32) <= 'z')))
        return false;
    for (; *t; t++)
        if (!(*t == '_' || (*t >= '0' && *t <= '9') || ((*t | 32) >= 'a' && (*t | 32) <= 'z')))
            return false;
    return true;
}

/* An entry or -D value naming one of Triton's AMD fp8 types (tl.float8e4b8,
 * *fp8e5b16:16): the error Triton gives where the type is made. */
static void no_amd_fp8(Sema *s, const char *entry, Span sp) {
    if (!entry)
        return;
    char name[32];
    size_t n = strcspn(entry + (*entry == '*'), ":");
    if (n >= sizeof name)
        return;
    memcpy(name, entry + (*entry == '*'), n);
    name[n] = 0;
    if (sema_amd_fp8(name))
        sema_amd_fp8_fail(s, sp, name);
}

static Val parse_define(Sema *s, const char *name, const char *text, Span sp) {
    Val v;
    no_amd_fp8(s, text, sp);
    /* the shell strips quotes: -D ACTIVATION=relu means the string when no
     * function or constant of the file is called relu */
    if (!sema_parse_literal(s, text ? text : "", &v) && is_identifier(text))
        return sema_str(s, text, (int)strlen(text));
    if (!sema_parse_literal(s, text ? text : "", &v))
        sema_fail(s, sp, "bad value '%s' for -D %s: expected a literal (128, 1.5, 'text', True, None), a dtype, "
                         "the name of a @jit function of the file or a builtin's (tl.extra.cuda.globaltimer)",
                  text ? text : "", name);
    return v;
}

static Val config_value(Val cfg, const char *name, bool *found) {
    *found = false;
    if (cfg.k != V_CONFIG)
        return sema_none();
    Val d = cfg.items[0];
    for (int i = 0; i < d.n; i++)
        if (!strcmp(d.keys[i], name)) {
            *found = true;
            return d.items[i];
        }
    return sema_none();
}

/* The list of triton.Config of fn's @triton.autotune (*argp: where it is written). */
static Val autotune_configs(Sema *s, const Node *fn, const Node *dec, const Node **argp) {
    const Node *arg = NULL;
    for (int i = 0; i < dec->l0.len; i++) {
        const Node *it = dec->l0.items[i];
        if (it->kind == N_KWARG && it->name && !strcmp(it->name, "configs"))
            arg = it->a;
        else if (it->kind != N_KWARG && i == 0)
            arg = it;
    }
    if (!arg)
        sema_fail(s, dec->span, "@triton.autotune needs configs=[triton.Config(...), ...]");
    Val cs = sema_eval_in_module(s, arg);
    if (cs.k != V_TUPLE)
        sema_fail(s, arg->span, "autotune configs must be a list of triton.Config, got %s", sema_describe(s, cs));
    *argp = arg;
    return cs;
}

static Val pick_config(Sema *s, const Node *fn) {
    if (s->opt->autotune_config < 0)
        return sema_none();
    const Node *dec = sema_autotune_decorator(fn), *arg;
    if (!dec)
        sema_fail(s, fn->span, "kernel '%s' has no @triton.autotune decorator, so it has no config %d", fn->name,
                  s->opt->autotune_config);
    Val cs = autotune_configs(s, fn, dec, &arg);
    if (s->opt->autotune_config >= cs.n)
        sema_fail(s, dec->span, "autotune config %d is out of range: kernel '%s' has %d config%s",
                  s->opt->autotune_config, fn->name, cs.n, cs.n == 1 ? "" : "s");
    Val c = cs.items[s->opt->autotune_config];
    if (c.k != V_CONFIG)
        sema_fail(s, arg->span, "autotune config %d is not a triton.Config (%s)", s->opt->autotune_config,
                  sema_describe(s, c));
    return c;
}

/* A list of parameter names in an @triton.autotune keyword (key=['M', 'N']). */
static const char **name_list(Sema *s, const Node *fn, const Node *kw, int *n) {
    Val v = sema_eval_in_module(s, kw->a);
    if (v.k == V_STR)
        v = sema_tuple(s, &v, 1);
    if (v.k != V_TUPLE)
        sema_fail(s, kw->a->span, "@triton.autotune's %s must be a list of parameter names, got %s", kw->name,
                  sema_describe(s, v));
    const char **names = arena_alloc(s->a, sizeof(char *) * (size_t)(v.n + 1));
    for (int i = 0; i < v.n; i++) {
        bool param = false;
        if (v.items[i].k == V_STR)
            for (int j = 0; j < fn->l0.len; j++)
                param |= fn->l0.items[j]->name && !strcmp(fn->l0.items[j]->name, v.items[i].s);
        if (!param)
            sema_fail(s, kw->a->span, "@triton.autotune's %s names %s, which is not a parameter of '%s'", kw->name,
                      sema_describe(s, v.items[i]), fn->name);
        names[i] = v.items[i].s;
    }
    *n = v.n;
    return names;
}

/* triton.Config(kwargs, num_warps=, num_stages=, ...): one entry of
 * @triton.autotune's configs, which pick_config chooses from. */
Val sema_h_config(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi, (void)call;
    if (a[0].k != V_DICT)
        sema_fail(s, sp[0], "triton.Config expects a dict of meta-parameters, got %s", sema_describe(s, a[0]));
    Val c = {.k = V_CONFIG, .i = 4, .i2 = 3};
    c.items = arena_alloc(s->a, sizeof(Val));
    c.items[0] = a[0];
    c.n = 1;
    if (sema_given(a[1]))
        c.i = sema_need_int(s, a[1], sp[1], "num_warps");
    if (sema_given(a[2]))
        c.i2 = sema_need_int(s, a[2], sp[2], "num_stages");
    /* Hopper's thread-block clusters and a register cap: tl has neither yet,
     * and neither changes what the kernel computes, so the config runs as if
     * they were not given, and says so */
    if (sema_given(a[3]) && sema_need_int(s, a[3], sp[3], "num_ctas") > 1)
        diag_note(s->d, s->src, sp[3], "num_ctas=%lld: tl launches one CTA a program (no thread-block clusters); the "
                  "results are the same", (long long)a[3].i);
    if (sema_given(a[4]) && a[4].k != V_NONE)
        diag_note(s->d, s->src, sp[4], "maxnreg=%lld: a config's register cap is not applied (tl's --maxnreg "
                  "option is); the results are the same", (long long)sema_need_int(s, a[4], sp[4], "maxnreg"));
    return c;
}

/* key, reset_to_zero, restore_value, warmup and rep of @triton.autotune; the
 * rest (prune_configs_by, pre/post hooks) are Python the launch cannot run
 * (prune_note; tl_kernel_set_prune is the C side of prune_configs_by). */
static void autotune_options(Sema *s, const Node *fn, const Node *dec, KernelInfo *info) {
    for (int i = 0; i < dec->l0.len; i++) {
        const Node *kw = dec->l0.items[i];
        if (kw->kind != N_KWARG || !kw->name)
            continue;
        if (!strcmp(kw->name, "key"))
            info->key = name_list(s, fn, kw, &info->nkey);
        else if (!strcmp(kw->name, "reset_to_zero"))
            info->reset_to_zero = name_list(s, fn, kw, &info->nreset);
        else if (!strcmp(kw->name, "restore_value"))
            info->restore_value = name_list(s, fn, kw, &info->nrestore);
        else if (!strcmp(kw->name, "warmup") || !strcmp(kw->name, "rep")) {
            Val v = sema_eval_in_module(s, kw->a);
            if (v.k != V_INT || v.i < 1 || v.i > 100000)
                sema_fail(s, kw->a->span, "@triton.autotune's %s must be a number of milliseconds, got %s", kw->name,
                          sema_describe(s, v));
            *(kw->name[0] == 'w' ? &info->warmup_ms : &info->rep_ms) = (int)v.i;
        }
    }
}

/* prune_configs_by names Python functions: say that they are not run (when
 * no config is chosen, so that all would be tuned), and what C does instead. */
static void prune_note(Sema *s, const Node *fn) {
    const Node *dec = sema_autotune_decorator(fn);
    for (int i = 0; dec && i < dec->l0.len; i++) {
        const Node *kw = dec->l0.items[i];
        if (kw->kind == N_KWARG && kw->name && !strcmp(kw->name, "prune_configs_by"))
            diag_note(s->d, s->src, kw->span, "prune_configs_by names Python functions, which tl does not run; a C "
                      "program prunes the configs to tune with a callback given to tl_kernel_set_prune()");
    }
}

/* sema_kernel_info: one parameter's disposition. */
static void record_param(Sema *s, const Node *p, bool runtime, Type t, int hint, const Val *v) {
    if (!s->info)
        return;
    KernelParam *kp = &s->info->params[s->info->nparams++];
    *kp = (KernelParam){.name = p->name, .constexpr_ = sema_is_constexpr_annotation(p->a), .runtime = runtime,
                        .type = t, .hint = hint};
    s->info->nruntime += runtime;
    if (v) {
        Buf b = {0};
        sema_repr(&b, *v);
        kp->value = arena_strdup(s->a, b.data ? b.data : "");
        buf_free(&b);
    }
}

/* num_warps / num_stages from a config or an option, against the options
 * table's range (its one owner). */
static void check_option(Sema *s, const Node *fn, const char *option, const char *kwarg, int64_t v) {
    Buf why = {0};
    if (options_check_int(option, (long)v, &why))
        return;
    const char *msg = arena_strdup(s->a, why.data ? why.data : "");
    buf_free(&why);
    sema_fail(s, fn->span, "%s %s", kwarg, msg);
}

/* A runtime parameter that -D sets: a constant, which takes no signature entry. */
static bool runtime_defined(Sema *s, const Node *p) {
    return !p->op && !sema_is_constexpr_annotation(p->a) && define_of(s, p->name);
}

/* When a signature could list every parameter less the -D ones or the
 * runtime ones with a slot for each: does the first reading give a constexpr
 * a type? Then the second is meant ("*fp32, i32" with -D n=17 for k(X, n,
 * BLOCK: tl.constexpr)), and its -D is an error, not BLOCK typed 'i32'. */
static bool types_a_constexpr(Sema *s, const NodeList *ps, const char **entries) {
    int k = 0;
    for (int i = 0; i < ps->len; i++) {
        const Node *p = ps->items[i];
        if (p->op || runtime_defined(s, p))
            continue;
        const char *e = entries[k++];
        Type t;
        int hint;
        bool bad_hint;
        if (sema_is_constexpr_annotation(p->a) && (e[0] == '*' || sig_type(e, &t, &hint, &bad_hint)))
            return true;
    }
    return false;
}

/* A signature of every parameter may stop before trailing constexpr
 * parameters that have defaults, as a Python call leaves them out
 * (Liger's `BLOCK_N: tl.constexpr = 4096`): entries past the first nent
 * are NULL, and those parameters take -D, the config or the default. True
 * when the parameters past nent are all such. */
static bool trailing_defaults(Sema *s, const NodeList *ps, int nent, const char ***entries, int want) {
    int k = 0;
    for (int i = 0; i < ps->len; i++) {
        const Node *p = ps->items[i];
        if (p->op || runtime_defined(s, p))
            continue;
        if (k++ >= nent && !(sema_is_constexpr_annotation(p->a) && p->b))
            return false;
    }
    const char **all = arena_alloc(s->a, sizeof(char *) * (size_t)want);
    for (int i = 0; i < want; i++)
        all[i] = i < nent ? (*entries)[i] : NULL;
    *entries = all;
    return true;
}

/* Split the signature and match its entries to the kernel's parameters. It
 * lists every parameter (trailing defaulted constexprs may be left out:
 * trailing_defaults) or only the runtime ones (always so with
 * SemaOptions.runtime_signature), less the runtime parameters -D makes
 * constants: one rule for tlc, --emit=c and the C API. A -D of a parameter the
 * signature still types is an error (it used to drop the parameter from the
 * entry, shifting every later argument, or be ignored). Returns whether the
 * signature lists the runtime parameters only. */
static bool match_signature(Sema *s, const Node *fn, int nnamed, int nruntime, const char ***entries) {
    const NodeList *ps = &fn->l0;
    int ndef = 0;
    const Node *first_def = NULL;
    for (int i = 0; i < ps->len; i++)
        if (runtime_defined(s, ps->items[i])) {
            first_def = first_def ? first_def : ps->items[i];
            ndef++;
        }
    int nent = options_split_signature(s->a, s->opt->signature, entries);
    bool rt_sig = s->opt->runtime_signature;
    /* A signature with exactly one entry per runtime parameter leaves
     * every constexpr to -D, the autotune config or its default. */
    if (!rt_sig && nent != nnamed - ndef && nent == nruntime - ndef)
        rt_sig = true;
    int want = (rt_sig ? nruntime : nnamed) - ndef;
    if (nent == want && !(ndef && !rt_sig && nent == nruntime && types_a_constexpr(s, ps, *entries)))
        return rt_sig;
    if (ndef && (nent == want + ndef || (!s->opt->runtime_signature && nent == nruntime)))
        sema_fail(s, first_def->span, "-D %s=%s sets runtime parameter '%s', which the signature also gives an "
                  "entry: leave '%s' out of the signature to make it a constant, or drop the -D",
                  first_def->name, define_of(s, first_def->name), first_def->name, first_def->name);
    if (nent < want && !rt_sig && trailing_defaults(s, ps, nent, entries, want))
        return false;
    if (nent < want) {
        /* name the first parameter without an entry */
        int k = 0;
        for (int i = 0; i < ps->len; i++) {
            const Node *p = ps->items[i];
            if (p->op || (rt_sig && sema_is_constexpr_annotation(p->a)) || runtime_defined(s, p))
                continue;
            if (k++ == nent)
                sema_fail(s, p->span, "the signature has %d entr%s but kernel '%s' has %d %sparameters: "
                                      "no entry for '%s'",
                          nent, nent == 1 ? "y" : "ies", fn->name, want, rt_sig ? "runtime " : "", p->name);
        }
    }
    sema_fail(s, fn->span, "the signature has %d entries but kernel '%s' has only %d %sparameter%s", nent, fn->name,
              want, rt_sig ? "runtime " : "", want == 1 ? "" : "s");
}

/* A -D that sets nothing is a typo, as an unknown keyword argument is in
 * Triton (with **meta every -D goes there). */
static void check_defines(Sema *s, const Node *fn) {
    const NodeList *ps = &fn->l0;
    const SemaOptions *o = s->opt;
    for (int i = 0; i < o->ndefines; i++) {
        const char *name = o->defines[i].name;
        if (!name)
            continue;
        Suggest sg;
        suggest_init(&sg, name);
        bool param = false;
        for (int j = 0; j < ps->len; j++) {
            param |= !ps->items[j]->op && !strcmp(ps->items[j]->name, name);
            suggest_add(&sg, ps->items[j]->name);
        }
        if (!param)
            sema_soft_fail(s, fn->span, "-D %s names no parameter of kernel '%s'%s", name, fn->name,
                           sema_did_you_mean(s, &sg));
    }
}

/* A signature entry that is not a type: the constant it spells, or the
 * error saying what it should have been. */
static Val entry_constant(Sema *s, const Node *p, const char *entry, bool cx) {
    Val v;
    if (!entry[0])
        sema_fail(s, p->span, "empty signature entry for parameter '%s'", p->name);
    no_amd_fp8(s, entry, p->span);
    bool lit = sema_parse_literal(s, entry, &v);
    if (!cx && (!lit || !sig_constant_ok(v))) {
        const char *guess = sig_type_guess(s, entry);
        if (guess && !strcmp(guess, entry)) /* a dtype, but not one a scalar may have (fp8) */
            sema_fail(s, p->span, "signature entry '%s' for parameter '%s': %s scalars cannot be kernel "
                      "arguments (pass a pointer, or a wider type)", entry, p->name, entry);
        if (guess)
            sema_fail(s, p->span, "signature entry '%s' for parameter '%s' is not a type; did you mean '%s'?",
                      entry, p->name, guess);
        sema_fail(s, p->span, "signature entry '%s' for parameter '%s' is not a type (*DTYPE or one of i1, "
                              "i8, i16, i32, i64, u8, u16, u32, u64, fp16, bf16, fp32, fp64) nor a constant",
                  entry, p->name);
    }
    if (!lit) {
        Suggest sg;
        suggest_init(&sg, entry);
        for (int g = 0; g < s->nglobals; g++)
            if (s->globals[g].def->kind != N_ALIAS)
                suggest_add(&sg, s->globals[g].name);
        const char *dym = sema_did_you_mean(s, &sg);
        if (!dym[0] && is_identifier(entry))
            dym = arena_printf(s->a, "; a string is quoted: '%s'", entry);
        sema_fail(s, p->span, "bad signature entry '%s' for constexpr parameter '%s': expected a literal "
                              "(128, 1.5, 'text', True, None), a dtype, the name of a @jit function of the "
                              "file or a builtin's (tl.extra.cuda.globaltimer)%s",
                  entry, p->name, dym);
    }
    return v;
}

/* A parameter's compile-time value, if it has one: a -D, a constant in the
 * signature, or for a constexpr the autotune config's value or its
 * default. */
static bool param_value(Sema *s, const Node *fn, const Node *p, const char *entry, bool cx, Val cfg, Val *v) {
    const char *def = define_of(s, p->name); /* a runtime parameter's: match_signature left it no entry */
    Type t;
    int hint = 0;
    bool bad_hint = false, found;
    bool is_type = entry && (entry[0] == '*' || sema_desc_entry(entry) || sig_type(entry, &t, &hint, &bad_hint));
    if (def) {
        *v = parse_define(s, p->name, def, p->span);
        return true;
    }
    if (entry && !is_type) {
        *v = entry_constant(s, p, entry, cx);
        return true;
    }
    if (cx && entry)
        sema_fail(s, p->span, "parameter '%s' is a tl.constexpr: the signature must give its value, not the type "
                              "'%s'",
                  p->name, entry);
    if (!cx)
        return false;
    *v = config_value(cfg, p->name, &found);
    if (!found && p->b) {
        *v = sema_eval_in_module(s, p->b);
        found = true;
    }
    if (!found)
        sema_fail(s, p->span, "constexpr parameter '%s' of kernel '%s' has no value (give it in the "
                              "signature, with -D %s=VALUE, or as a default)",
                  p->name, fn->name, p->name);
    return true;
}

/* A runtime parameter typed by its signature entry: a host descriptor, or
 * a scalar or pointer with its :16 / :1 hint. */
static void bind_typed(Sema *s, const Node *p, const char *entry) {
    if (sema_desc_entry(entry)) { /* a descriptor from the host (sema_desc.c) */
        DType elem;
        int rank, dhint;
        int32_t block[IR_MAX_RANK];
        Val dv = sema_desc_param(s, p->name, entry, p->span, &elem, &rank, block, &dhint);
        record_param(s, p, true, ir_ptr(elem), dhint, NULL);
        if (s->info) {
            KernelParam *kp = &s->info->params[s->info->nparams - 1];
            kp->desc_rank = rank;
            memcpy(kp->desc_block, block, sizeof(int32_t) * (size_t)rank);
        }
        sema_scope_set(s, &s->fr->scope, p->name, dv);
        return;
    }
    Type t;
    int hint = 0;
    bool bad_hint = false;
    no_amd_fp8(s, entry, p->span);
    if (!sig_type(entry, &t, &hint, &bad_hint) || (t.dtype == DT_PTR && t.pointee == DT_VOID)) {
        const char *guess = sig_type_guess(s, entry);
        if (guess)
            sema_fail(s, p->span, "bad type '%s' in the signature for parameter '%s'; did you mean '%s'?", entry,
                      p->name, guess);
        sema_fail(s, p->span, "bad type '%s' in the signature for parameter '%s' (expected *DTYPE or one of i1, "
                              "i8, i16, i32, i64, u8, u16, u32, u64, fp16, bf16, fp32, fp64)",
                  entry, p->name);
    }
    if (bad_hint)
        sema_fail(s, p->span, "bad hint in signature entry '%s' for parameter '%s' (only :16 and :1 are valid)",
                  entry, p->name);
    if (hint && t.dtype != DT_PTR && (!dt_is_int((DType)t.dtype) || t.dtype == DT_I1))
        sema_fail(s, p->span, "hint ':%d' in '%s' is only valid for integer and pointer parameters ('%s')", hint,
                  entry, p->name);
    if (hint == 1 && t.dtype == DT_PTR)
        sema_fail(s, p->span, "hint ':1' in '%s' is only valid for integer parameters ('%s')", entry, p->name);
    ValueId pv = ir_param(s->f, p->name, t);
    if (t.dtype == DT_PTR && is_const_annotation(p->a))
        sema_mark_const_ptr(s, pv);
    Param *pp = &s->f->params[s->f->nparams - 1];
    record_param(s, p, true, t, hint, NULL);
    if (hint == 16)
        pp->divisibility = 16;
    if (hint == 1) {
        pp->equal_to_1 = true; /* specialised like Triton: the value is the constant 1 */
        sema_scope_set(s, &s->fr->scope, p->name, sema_int(1));
    } else {
        sema_scope_set(s, &s->fr->scope, p->name, sema_tensor(s, pv));
    }
}

/* One named parameter: a compile-time value, typed by the launch (the API
 * without a signature), or typed by its signature entry. */
static void bind_param(Sema *s, const Node *fn, const Node *p, const char *entry, bool cx, Val cfg) {
    Val v;
    if (param_value(s, fn, p, entry, cx, cfg, &v)) {
        sema_scope_set(s, &s->fr->scope, p->name, v);
        record_param(s, p, false, ir_scalar(DT_VOID), 0, &v);
        return;
    }
    if (!entry && s->info) { /* typed by the launch */
        record_param(s, p, true, ir_scalar(DT_VOID), 0, NULL);
        return;
    }
    if (!entry)
        sema_fail(s, p->span, "kernel '%s' needs a signature for parameter '%s'", fn->name, p->name);
    bind_typed(s, p, entry);
}

/* The autotune config's keys must be constexpr parameters (without **meta,
 * which takes the others). */
static void check_config_keys(Sema *s, const Node *fn, Val cfg) {
    const NodeList *ps = &fn->l0;
    Val d = cfg.items[0];
    for (int i = 0; i < d.n; i++) {
        bool ok = false;
        for (int j = 0; j < ps->len; j++)
            ok |= !ps->items[j]->op && !strcmp(ps->items[j]->name, d.keys[i]) &&
                  sema_is_constexpr_annotation(ps->items[j]->a);
        if (!ok)
            sema_fail(s, fn->span, "the autotune config sets '%s', which is not a constexpr parameter of kernel "
                                   "'%s'",
                      d.keys[i], fn->name);
    }
}

/* **meta: the autotune config's values, then every -D that names no
 * parameter; its keys are the kernel's constants too (BLOCK_SIZE_M of a
 * config), for the API's grid expressions and queries. */
static void bind_meta(Sema *s, const Node *fn, const Node *meta, Val cfg) {
    const NodeList *ps = &fn->l0;
    const SemaOptions *o = s->opt;
    Val d = {.k = V_DICT, .i = 1};
    int cap = o->ndefines + (cfg.k == V_CONFIG ? cfg.items[0].n : 0) + 1;
    d.keys = arena_alloc(s->a, sizeof(char *) * (size_t)cap);
    d.items = arena_alloc(s->a, sizeof(Val) * (size_t)cap);
    if (cfg.k == V_CONFIG)
        for (int i = 0; i < cfg.items[0].n; i++) {
            d.keys[d.n] = cfg.items[0].keys[i];
            d.items[d.n++] = cfg.items[0].items[i];
        }
    for (int i = 0; i < o->ndefines; i++) {
        const char *name = o->defines[i].name;
        bool param = false;
        for (int j = 0; j < ps->len; j++)
            param |= !ps->items[j]->op && !strcmp(ps->items[j]->name, name);
        if (param || !name)
            continue;
        Val v = parse_define(s, name, o->defines[i].value, meta->span);
        int j;
        for (j = 0; j < d.n && strcmp(d.keys[j], name); j++)
            ;
        d.keys[j] = name;
        d.items[j] = v;
        if (j == d.n)
            d.n++;
    }
    sema_scope_set(s, &s->fr->scope, meta->name, d);
    for (int i = 0; s->info && i < d.n; i++) {
        KernelParam *kp = &s->info->params[s->info->nparams++];
        Buf b = {0};
        sema_repr(&b, d.items[i]);
        *kp = (KernelParam){.name = d.keys[i], .constexpr_ = true, .value = arena_strdup(s->a, b.data ? b.data : "")};
        buf_free(&b);
    }
}

/* Bind every parameter of the kernel (see the comment at the top). */
static void specialize(Sema *s, const Node *fn) {
    const NodeList *ps = &fn->l0;
    const SemaOptions *o = s->opt;
    const Node *volatile meta = NULL; /* volatile quiets -Wclobbered: not changed after the setjmp below */
    int nnamed = 0, nruntime = 0;
    for (int i = 0; i < ps->len; i++) {
        const Node *p = ps->items[i];
        if (p->op == OP_MUL)
            sema_fail(s, p->span, "'*%s' parameters are not supported in kernels", p->name);
        if (p->op == OP_POW) {
            meta = p;
            continue;
        }
        nnamed++;
        nruntime += !sema_is_constexpr_annotation(p->a);
    }
    Val cfg = pick_config(s, fn);
    sema_heur_collect(s, fn);
    if (s->info) {
        int meta_keys = o->ndefines + (cfg.k == V_CONFIG ? cfg.items[0].n : 0) + sema_heur_count(s);
        s->info->params = arena_alloc(s->a, sizeof(KernelParam) * (size_t)(ps->len + meta_keys + 1));
        s->info->nparams = s->info->nruntime = 0;
    }
    const char **entries = NULL;
    bool rt_sig = o->runtime_signature;
    if (o->signature)
        rt_sig = match_signature(s, fn, nnamed, nruntime, &entries);
    if (!meta)
        check_defines(s, fn);
    int k = 0;
    jmp_buf pjb, *outer = s->jb;
    for (int i = 0; i < ps->len; i++) {
        const Node *p = ps->items[i];
        if (p->op)
            continue;
        /* volatile quiets -Wclobbered: cx and entry are not changed after the setjmp below */
        const bool volatile cx = sema_is_constexpr_annotation(p->a);
        const char *volatile entry = o->signature && (!rt_sig || !cx) && !runtime_defined(s, p) ? entries[k++] : NULL;
        if (cx && sema_heur_sets(s, p->name)) { /* bound by sema_heur_run, after the others */
            record_param(s, p, false, ir_scalar(DT_VOID), 0, NULL);
            continue;
        }
        /* recovery: a parameter in error is poisoned, and the next one bound */
        s->jb = outer;
        if (s->recover && !s->quiet) {
            s->jb = &pjb;
            if (setjmp(pjb)) {
                s->jb = outer;
                s->failed = true;
                if (s->d->too_many)
                    longjmp(*outer, 1);
                sema_scope_set(s, &s->fr->scope, p->name, (Val){.k = V_POISON});
                continue;
            }
        }
        bind_param(s, fn, p, entry, cx, cfg);
    }
    s->jb = outer;
    if (cfg.k == V_CONFIG && !meta)
        check_config_keys(s, fn, cfg);
    if (meta)
        bind_meta(s, fn, meta, cfg);
    sema_heur_run(s, fn, meta);
    int64_t warps = o->num_warps > 0 ? o->num_warps : cfg.k == V_CONFIG ? cfg.i : 4;
    int64_t stages = o->num_stages > 0 ? o->num_stages : cfg.k == V_CONFIG ? cfg.i2 : 3;
    check_option(s, fn, "num-warps", "num_warps", warps);
    check_option(s, fn, "num-stages", "num_stages", stages);
    s->f->num_warps = (int)warps;
    s->f->num_stages = (int)stages;
}

/* ---- entry points ---- */

int sema_kernel_names(const Node *module, const char **names, int max) {
    int n = 0;
    if (!module)
        return 0;
    for (int i = 0; i < module->l0.len && n < max; i++) {
        const Node *st = module->l0.items[i];
        if (st->kind == N_FUNCDEF && sema_is_jit(st))
            names[n++] = st->name;
    }
    return n;
}

static void start_function(Sema *s, const Node *fn, Frame *fr) {
    s->f = ir_func_new(s->a, fn->name);
    s->f->src = s->src;
    s->f->span = fn->span;
    s->blk = s->f->body;
    *fr = (Frame){.fn = fn};
    s->fr = fr;
    s->depth = s->nest = 0;
}

/* Can fn's parameters all be determined? (quietly) */
static bool probe(Sema *parent, const Node *fn) {
    Sema s = *parent;
    jmp_buf jb;
    Frame fr;
    KernelInfo scratch;
    s.quiet = true;
    s.jb = &jb;
    if (s.info)
        s.info = &scratch; /* untyped runtime parameters are fine, but record nothing */
    start_function(&s, fn, &fr);
    bool ok = !setjmp(jb);
    if (ok)
        specialize(&s, fn);
    for (int i = 0; i < parent->nglobals; i++)
        if (parent->globals[i].state == 1)
            parent->globals[i].state = 0;
    return ok;
}

static bool referenced_in(const Node *n, const char *name) {
    if (!n)
        return false;
    if ((n->kind == N_NAME || n->kind == N_ATTR) && n->name && !strcmp(n->name, name))
        return true;
    if (referenced_in(n->a, name) || referenced_in(n->b, name) || referenced_in(n->c, name))
        return true;
    const NodeList *ls[3] = {&n->l0, &n->l1, &n->l2};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < ls[k]->len; i++)
            if (referenced_in(ls[k]->items[i], name))
                return true;
    return false;
}

static void list_names(Buf *b, const Node **fns, int n) {
    for (int i = 0; i < n; i++)
        buf_printf(b, "%s%s", i ? ", " : "", fns[i]->name);
}

/* Without --kernel: the one @jit function whose parameters are determined. */
static const Node *choose_kernel(Sema *s) {
    const NodeList *l = &s->module->l0;
    const Node **jit = arena_alloc(s->a, sizeof(Node *) * (size_t)(l->len + 1));
    const Node **ok = arena_alloc(s->a, sizeof(Node *) * (size_t)(l->len + 1));
    const Node **roots = arena_alloc(s->a, sizeof(Node *) * (size_t)(l->len + 1));
    int nj = 0, nok = 0, nroots = 0;
    for (int i = 0; i < l->len; i++)
        if (l->items[i]->kind == N_FUNCDEF && sema_is_jit(l->items[i]))
            jit[nj++] = l->items[i];
    if (!nj) {
        diag_plain(s->d, DIAG_ERROR, "%s: no @triton.jit function in the file", s->src->name);
        return NULL;
    }
    if (nj == 1)
        return jit[0];
    for (int i = 0; i < nj; i++) {
        if (probe(s, jit[i]))
            ok[nok++] = jit[i];
        bool called = false;
        for (int j = 0; j < nj && !called; j++)
            called = j != i && referenced_in(jit[j], jit[i]->name);
        if (!called)
            roots[nroots++] = jit[i];
    }
    if (nok == 1)
        return ok[0];
    /* several fit the signature: helpers are not kernels, prefer the one no one calls */
    const Node *pick = NULL;
    int npick = 0;
    for (int i = 0; i < nok; i++)
        for (int j = 0; j < nroots; j++)
            if (ok[i] == roots[j]) {
                pick = ok[i];
                npick++;
            }
    if (npick == 1)
        return pick;
    if (!nok && nroots == 1)
        return roots[0]; /* its errors say what is missing */
    Buf b = {0};
    if (nok)
        list_names(&b, ok, nok);
    else
        list_names(&b, roots, nroots);
    diag_plain(s->d, DIAG_ERROR, "%s: %s; pick one with --kernel (%s)", s->src->name,
               nok ? "several kernels could be compiled" : "no kernel has all its parameters determined",
               b.data ? b.data : "");
    buf_free(&b);
    return NULL;
}

/* --kernel's function, or the one choose_kernel() finds; NULL with a diagnostic. */
static const Node *find_kernel(Sema *s) {
    const Node *module = s->module, *fn = NULL;
    const SemaOptions *opt = s->opt;
    if (!opt->kernel)
        return choose_kernel(s);
    for (int i = 0; i < module->l0.len; i++) {
        const Node *st = module->l0.items[i];
        if (st->kind == N_FUNCDEF && !strcmp(st->name, opt->kernel))
            fn = st;
    }
    if (!fn || !sema_is_jit(fn)) {
        const char *names[64];
        int n = sema_kernel_names(module, names, 64);
        Buf b = {0};
        for (int i = 0; i < n; i++)
            buf_printf(&b, "%s%s", i ? ", " : "", names[i]);
        diag_plain(s->d, DIAG_ERROR, "%s: %s '%s' (the @triton.jit functions are: %s)", s->src->name,
                   fn ? "not a @triton.jit function:" : "no @triton.jit function named", opt->kernel,
                   n ? b.data : "none");
        buf_free(&b);
        return NULL;
    }
    return fn;
}

/* @triton.jit(launch_metadata=f): Triton calls f on the host at each launch
 * for profilers (proton); tl has no such hook, so it is accepted and noted. */
static void launch_metadata_note(Sema *s, const Node *fn) {
    const Node *kw = sema_jit_kwarg(fn, "launch_metadata");
    if (kw)
        diag_note(s->d, s->src, kw->span, "launch_metadata is ignored: tl has no launch hooks for profilers to call");
}

Function *sema_kernel(Arena *arena, Diag *d, const Source *src, const Node *module, const SemaOptions *opt) {
    if (!module || !opt)
        return NULL;
    Sema s = {.a = arena, .d = d, .src = src, .module = module, .opt = opt};
    jmp_buf jb;
    s.jb = &jb;
    if (setjmp(jb))
        return NULL;
    sema_collect_globals(&s);
    const Node *fn = find_kernel(&s);
    if (!fn)
        return NULL;
    launch_metadata_note(&s, fn);
    Frame fr;
    start_function(&s, fn, &fr);
    s.recover = true;
    if (opt->autotune_config < 0)
        prune_note(&s, fn);
    specialize(&s, fn);
    sema_exec_block(&s, &fn->l1);
    if (s.failed)
        return NULL;
    s.blk = s.f->body;
    sema_emit_inst(&s, IR_RETURN, NULL, 0, NULL, 0, fn->span);
    return s.f;
}

bool sema_kernel_info(Arena *arena, Diag *d, const Source *src, const Node *module, const SemaOptions *opt,
                      KernelInfo *info) {
    if (!module || !opt || !info)
        return false;
    memset(info, 0, sizeof *info);
    Sema s = {.a = arena, .d = d, .src = src, .module = module, .opt = opt, .info = info};
    jmp_buf jb;
    s.jb = &jb;
    if (setjmp(jb))
        return false;
    sema_collect_globals(&s);
    const Node *fn = find_kernel(&s);
    if (!fn)
        return false;
    const Node *dec = sema_autotune_decorator(fn), *arg;
    SemaOptions first = *opt;
    if (dec && opt->autotune_config < 0) {
        /* No config named: the launch tunes over all of them; the parameters
         * are described with the first one's constexprs. */
        info->tuned = true;
        first.autotune_config = 0;
        s.opt = &first;
    }
    Frame fr;
    start_function(&s, fn, &fr);
    specialize(&s, fn);
    info->name = fn->name;
    info->def = fn;
    info->num_warps = s.f->num_warps;
    info->num_stages = s.f->num_stages;
    info->autotune_config = opt->autotune_config;
    info->warmup_ms = 25;
    info->rep_ms = 100;
    if (dec) {
        info->num_configs = autotune_configs(&s, fn, dec, &arg).n;
        autotune_options(&s, fn, dec, info);
        if (info->tuned)
            prune_note(&s, fn);
    }
    return true;
}

bool sema_heuristic_values(Arena *arena, Diag *d, const Source *src, const Node *module, const SemaOptions *opt,
                           Buf *results, const char ***reads, int *nreads) {
    *reads = NULL;
    *nreads = 0;
    if (!module || !opt)
        return false;
    Sema s = {.a = arena, .d = d, .src = src, .module = module, .opt = opt};
    jmp_buf jb;
    s.jb = &jb;
    if (setjmp(jb))
        return false;
    sema_collect_globals(&s);
    const Node *fn = find_kernel(&s);
    if (!fn)
        return false;
    Frame fr;
    start_function(&s, fn, &fr);
    specialize(&s, fn);
    sema_heur_results(&s, results, reads, nreads);
    return true;
}
