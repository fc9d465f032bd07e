/* sema.c: semantic analysis, the AST of one kernel -> typed tile IR.
 *
 * The algorithm is Triton's code generator (compiler/code_generator.py),
 * written as an interpreter of the kernel's syntax tree:
 *
 *  1. Specialise. Each parameter of the kernel gets either a compile-time
 *     value (a tl.constexpr from -D, a signature literal, the autotune config
 *     or its default; a ":1" integer) or becomes a runtime parameter of the IR
 *     function with the type its signature entry gives ("*fp16:16", "i32").
 *  2. Execute the body. Every name maps to a Val (sema_int.h): a compile-time
 *     value or an SSA value. Expressions on compile-time values fold; anything
 *     involving a runtime value emits IR into the current block.
 *     - `if` on a compile-time condition runs one branch only; on a runtime
 *       condition both branches run into the two regions of an IF op, and the
 *       names they (re)define become its results (types must agree).
 *     - `for ... in range(...)` / `tl.range(...)` and `while` become FOR /
 *       WHILE ops; the names the body assigns that were defined before the
 *       loop are loop-carried block arguments (their type must not change).
 *       tl.static_range loops are unrolled.
 *     - A runtime `if` with a `return` inside runs, in each branch, the rest
 *       of the function after it (the early-return idiom: `if c: return; S`
 *       is `if c: pass else: S`); `return` in a runtime loop is an error.
 *     - Calls of @jit functions are inlined: a new frame of names, arguments
 *       bound like Python does (positional, keyword, defaults); the values
 *       returned on the paths of runtime ifs merge into the IF op's results.
 *  3. Verify the IR.
 *
 * An error skips the statement of the kernel's body it happened in, and
 * analysis goes on with the next one (see "recovery" below), so one run
 * reports every error that does not follow from another; notes name the
 * chain of inlined calls. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "sema_int.h"

static Val eval(Sema *s, const Node *n);
static void assign(Sema *s, const Node *t, Val v);
void sema_exec_block(Sema *s, const NodeList *l);

/* What runs after a statement, up to the end of its function: the rest of
 * each enclosing statement list, or the remaining iterations of an enclosing
 * static_range loop, innermost first (up). A runtime `if` with a `return`
 * inside runs it at the end of both of its branches (runtime_if_return). */
typedef struct Cont {
    const NodeList *l; /* the statements l->items[from..] */
    int from;
    const Node *loop;  /* or (loop != NULL): iterations next..count-1 of this static_range loop */
    int64_t next, count, lb, step;
    const struct Cont *up;
} Cont;

#define TS(t) sema_type_str(s, (t))

/* ---- errors ---- */

/* Was this error shown already? A statement after a runtime `if` with a
 * `return` inside is analysed once per branch: its error is shown once. */
static bool seen_before(Sema *s, Span sp, const char *msg) {
    char *key = arena_printf(s->a, "%d:%d:%s", sp.line, sp.col, msg);
    for (int i = 0; i < s->nreported; i++)
        if (!strcmp(s->reported[i], key))
            return true;
    const char **r = arena_alloc(s->a, sizeof(char *) * (size_t)(s->nreported + 1));
    if (s->nreported)
        memcpy(r, s->reported, sizeof(char *) * (size_t)s->nreported);
    r[s->nreported++] = key;
    s->reported = r;
    return false;
}

static void report(Sema *s, Span sp, const char *fmt, va_list ap) {
    Buf b = {0};
    buf_vprintf(&b, fmt, ap);
    const char *msg = b.data ? b.data : "";
    if (!s->quiet && !seen_before(s, sp, msg)) {
        diag_error(s->d, s->src, sp, "%s", msg);
        /* the chain of inlined calls, innermost first; repeats (recursion) collapse */
        int shown = 0;
        for (Frame *f = s->fr; f && f->caller; f = f->caller) {
            int times = 1;
            while (f->caller && f->caller->caller && f->caller->fn == f->fn &&
                   f->caller->call_span.line == f->call_span.line && f->caller->call_span.col == f->call_span.col) {
                f = f->caller;
                times++;
            }
            if (shown++ == 8) {
                diag_note(s->d, s->src, f->call_span, "... and further calls");
                break;
            }
            if (times > 1)
                diag_note(s->d, s->src, f->call_span, "in the call to '%s' here (%d times nested)", f->fn->name, times);
            else
                diag_note(s->d, s->src, f->call_span, "in the call to '%s' here", f->fn->name);
        }
    }
    buf_free(&b);
}

void sema_fail(Sema *s, Span sp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(s, sp, fmt, ap);
    va_end(ap);
    longjmp(*s->jb, 1);
}

/* An error after which analysis can go on as it is: reported, and the kernel
 * yields no IR; where nothing recovers, the same as sema_fail. */
void sema_soft_fail(Sema *s, Span sp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    report(s, sp, fmt, ap);
    va_end(ap);
    if (!s->recover || s->quiet)
        longjmp(*s->jb, 1);
    s->failed = true;
}

const char *sema_did_you_mean(Sema *s, const Suggest *sg) {
    const char *best = suggest_best(sg);
    return best ? arena_printf(s->a, "; did you mean '%s'?", best) : "";
}

static void enter(Sema *s, Span sp) {
    s->cur = sp;
    if (++s->nest > SEMA_MAX_NEST)
        sema_fail(s, sp, "expression or statement nested too deeply (more than %d levels)", SEMA_MAX_NEST);
}

static void leave(Sema *s) { s->nest--; }

/* ---- scopes ---- */

/* The hash index: open addressing, slot = position in b + 1 (0: empty). A
 * slot whose position is past n or holds another name is stale (the scope was
 * restored to a snapshot, or the index is shared with one) and is probed past;
 * stale slots count toward the load, so they go at the next rebuild. */
struct ScopeIndex {
    int cap, used;
    int slot[];
};

enum { SCOPE_LINEAR = 8 }; /* scopes this small are searched without an index */

static unsigned name_hash(const char *p) {
    unsigned h = 2166136261u;
    for (; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h;
}

static void index_add(ScopeIndex *ix, const char *name, int pos) {
    unsigned m = (unsigned)ix->cap - 1, i = name_hash(name) & m;
    while (ix->slot[i])
        i = (i + 1) & m;
    ix->slot[i] = pos + 1;
    ix->used++;
}

/* A fresh index of sc's names, a quarter full; the old one (which a snapshot
 * may still use) is left as it is. */
static void scope_reindex(Sema *s, Scope *sc) {
    int cap = 64;
    while (cap < 4 * sc->n)
        cap *= 2;
    ScopeIndex *ix = arena_alloc(s->a, sizeof(ScopeIndex) + sizeof(int) * (size_t)cap);
    ix->cap = cap;
    for (int i = 0; i < sc->n; i++)
        index_add(ix, sc->b[i].name, i);
    sc->ix = ix;
}

static Binding *scope_find(Sema *s, Scope *sc, const char *name) {
    if (sc->n <= SCOPE_LINEAR && !sc->ix) {
        for (int i = 0; i < sc->n; i++)
            if (!strcmp(sc->b[i].name, name))
                return &sc->b[i];
        return NULL;
    }
    if (!sc->ix)
        scope_reindex(s, sc);
    unsigned m = (unsigned)sc->ix->cap - 1;
    for (unsigned i = name_hash(name) & m; sc->ix->slot[i]; i = (i + 1) & m) {
        int pos = sc->ix->slot[i] - 1;
        if (pos < sc->n && !strcmp(sc->b[pos].name, name))
            return &sc->b[pos];
    }
    return NULL;
}

Val *sema_scope_get(Sema *s, Scope *sc, const char *name) {
    Binding *b = scope_find(s, sc, name);
    return b ? &b->v : NULL;
}

void sema_scope_set(Sema *s, Scope *sc, const char *name, Val v) {
    Binding *b = scope_find(s, sc, name);
    if (b) {
        if (s->recovering) { /* taken back if the statement fails (exec_stmt_recovering) */
            s->undo = arena_grow(s->a, s->undo, s->nundo, &s->cap_undo, sizeof(ScopeUndo));
            s->undo[s->nundo++] = (ScopeUndo){b, b->v};
        }
        b->v = v;
        return;
    }
    sc->b = arena_grow(s->a, sc->b, sc->n, &sc->cap, sizeof(Binding));
    sc->b[sc->n++] = (Binding){name, v};
    if (sc->ix && 2 * (sc->ix->used + 1) > sc->ix->cap)
        scope_reindex(s, sc);
    else if (sc->ix)
        index_add(sc->ix, name, sc->n - 1);
}

/* Into a new array (positions move, and a snapshot may share the old one). */
static void scope_remove(Sema *s, Scope *sc, const char *name) {
    Binding *b = scope_find(s, sc, name);
    if (!b)
        return;
    int i = (int)(b - sc->b);
    Binding *nb = arena_alloc(s->a, sizeof(Binding) * (size_t)sc->cap);
    memcpy(nb, sc->b, sizeof(Binding) * (size_t)i);
    memcpy(nb + i, sc->b + i + 1, sizeof(Binding) * (size_t)(sc->n - i - 1));
    sc->b = nb;
    sc->n--;
    sc->ix = NULL;
}

/* A point of the current frame's scope to come back to, in O(1): the Scope
 * struct (names bound later lie past its n) and the undo log's length (values
 * replaced later are logged while a mark is open). Runtime if/for/while run
 * their bodies from a mark instead of a copy of every name. */
typedef struct ScopeMark {
    Scope sc;
    int undo;
} ScopeMark;

static ScopeMark scope_mark(Sema *s) {
    s->recovering++;
    return (ScopeMark){s->fr->scope, s->nundo};
}

/* Back to the mark: the writes since undone, the names since dropped. */
static void scope_rollback(Sema *s, const ScopeMark *m) {
    while (s->nundo > m->undo) {
        s->nundo--;
        s->undo[s->nundo].b->v = s->undo[s->nundo].old;
    }
    s->fr->scope = m->sc;
}

static void scope_release(Sema *s) {
    if (--s->recovering == 0)
        s->nundo = 0; /* nothing left to roll back to */
}

static void bind(Sema *s, const char *name, Val v) {
    if (v.k == V_TENSOR && !s->f->values[v.id].name)
        s->f->values[v.id].name = name;
    sema_scope_set(s, &s->fr->scope, name, v);
}

/* Same value: identical SSA value or equal compile-time values of one kind. */
static bool same_val(Val a, Val b) { return a.k == b.k && sema_const_eq(a, b); }

/* ---- module-level names ---- */

static void add_global(Sema *s, const char *name, const Node *def, const char *from_mod) {
    if (s->nglobals == s->cap_globals) { /* doubling: a file of 10,000 kernels was quadratic here */
        int cap = s->cap_globals ? 2 * s->cap_globals : 32;
        Global *g = arena_alloc(s->a, sizeof(Global) * (size_t)cap);
        if (s->nglobals)
            memcpy(g, s->globals, sizeof(Global) * (size_t)s->nglobals);
        s->globals = g;
        s->cap_globals = cap;
    }
    s->globals[s->nglobals++] = (Global){.name = name, .def = def, .from_mod = from_mod};
}

void sema_collect_globals(Sema *s) {
    const NodeList *l = &s->module->l0;
    for (int i = 0; i < l->len; i++) {
        const Node *st = l->items[i];
        switch (st->kind) {
        case N_FUNCDEF:
        case N_CLASSDEF: add_global(s, st->name, st, NULL); break;
        case N_IMPORT:
            for (int j = 0; j < st->l0.len; j++) {
                const Node *al = st->l0.items[j];
                if (al->str2) {
                    add_global(s, al->str2, al, NULL);
                } else { /* `import triton.language` binds `triton` */
                    const char *dot = strchr(al->name, '.');
                    const char *first = dot ? arena_strndup(s->a, al->name, (size_t)(dot - al->name)) : al->name;
                    add_global(s, first, al, NULL);
                }
            }
            break;
        case N_IMPORT_FROM:
            for (int j = 0; j < st->l0.len; j++) {
                const Node *al = st->l0.items[j];
                if (strcmp(al->name, "*"))
                    add_global(s, al->str2 ? al->str2 : al->name, al, st->name ? st->name : "");
            }
            break;
        case N_ASSIGN:
            for (int j = 0; j < st->l0.len; j++)
                if (st->l0.items[j]->kind == N_NAME)
                    add_global(s, st->l0.items[j]->name, st->a, NULL);
            break;
        case N_ANNASSIGN:
            if (st->a && st->a->kind == N_NAME && st->c)
                add_global(s, st->a->name, st->c, NULL);
            break;
        default: break;
        }
    }
    /* name -> index of its last definition, which wins as in Python */
    for (int i = 0; i < s->nglobals; i++)
        sema_scope_set(s, &s->global_index, s->globals[i].name, sema_int(i));
}

static const char *const known_mods[] = {"triton", "triton.language", "triton.language.math", "triton.language.core",
                                         "triton.language.standard", "triton.language.random", "triton.language.extra",
                                         "triton.language.extra.cuda", "triton.language.semantic",
                                         "triton.language.extra.libdevice", "triton.language.extra.cuda.libdevice",
                                         "triton.language.PropagateNan", "triton.language.core.PropagateNan",
                                         "triton.runtime", "triton.runtime.driver", "triton.runtime.driver.active"};

static bool known_module(const char *path) {
    for (size_t i = 0; i < sizeof known_mods / sizeof known_mods[0]; i++)
        if (!strcmp(known_mods[i], path))
            return true;
    return false;
}

static bool is_tl_module(const char *mod) { return !strncmp(mod, "triton.language", 15) && (!mod[15] || mod[15] == '.'); }

static bool module_attr_try(Sema *s, const char *mod, const char *name, Val *out) {
    char *full = arena_printf(s->a, "%s.%s", mod, name);
    if (known_module(full)) {
        *out = (Val){.k = V_MODULE, .s = full};
        return true;
    }
    const Builtin *bi = NULL;
    Type t;
    const char *tail = strrchr(mod, '.');
    if (is_tl_module(mod) && !strcmp(tail, ".libdevice")) {
        bi = sema_libdevice_builtin(s, name);
    } else if (!strcmp(mod, "triton.language.extra.cuda") && sema_builtin_cuda(name)) {
        bi = sema_builtin_cuda(name);
    } else if (is_tl_module(mod) && !strcmp(tail, ".PropagateNan")) { /* core.PropagateNan's values */
        if (strcmp(name, "ALL") && strcmp(name, "NONE"))
            return false;
        *out = sema_int(!strcmp(name, "ALL") ? 0xFFFF : 0);
        return true;
    } else if (!strncmp(mod, "triton.language", 15)) {
        if (!strcmp(name, "TRITON_MAX_TENSOR_NUMEL")) { /* the IR's limit is Triton's */
            *out = sema_int(IR_MAX_NUMEL);
            return true;
        }
        if (sema_tl_dtype(name, &t)) {
            *out = sema_dtype(t);
            return true;
        }
        if (!strcmp(name, "pi32_t")) { /* core.py: pi32_t = pointer_type(int32) */
            *out = sema_dtype((Type){.dtype = DT_PTR, .pointee = DT_I32});
            return true;
        }
        bi = sema_builtin_tl(name);
    } else if (!strcmp(mod, "triton")) {
        bi = sema_builtin_triton(name);
    } else if (!strcmp(mod, "triton.runtime.driver.active")) {
        bi = sema_builtin_driver(name);
    }
    if (!bi)
        return false;
    *out = (Val){.k = V_BUILTIN, .bi = bi};
    return true;
}

Val sema_module_attr(Sema *s, const char *mod, const char *name, Span sp) {
    Val v;
    if (module_attr_try(s, mod, name, &v))
        return v;
    if (is_tl_module(mod) && sema_amd_fp8(name))
        sema_amd_fp8_fail(s, sp, name);
    /* a Triton function tl lacks is not a typo: say so, as users write it */
    if ((is_tl_module(mod) && sema_builtin_unsupported(name)) || !strncmp(mod, "triton.language.extra", 21))
        sema_fail(s, sp, "'tl%s.%s' is not supported by tl yet", mod + 15, name);
    Suggest sg;
    suggest_init(&sg, name);
    size_t n = strlen(mod);
    for (size_t i = 0; i < sizeof known_mods / sizeof known_mods[0]; i++) /* submodules */
        if (!strncmp(known_mods[i], mod, n) && known_mods[i][n] == '.' && !strchr(known_mods[i] + n + 1, '.'))
            suggest_add(&sg, known_mods[i] + n + 1);
    if (is_tl_module(mod))
        sema_suggest_builtins(&sg, B_TL);
    else if (!strcmp(mod, "triton"))
        sema_suggest_builtins(&sg, B_TRITON);
    const char *dym = sema_did_you_mean(s, &sg);
    if (!dym[0] && is_tl_module(mod)) { /* tl.cumsun: close to a function tl lacks */
        suggest_init(&sg, name);
        sema_suggest_unsupported(&sg);
        if (suggest_best(&sg))
            dym = arena_printf(s->a, "; did you mean '%s'? (not supported by tl yet)", suggest_best(&sg));
    }
    sema_fail(s, sp, "module '%s' has no attribute '%s'%s%s", mod, name,
              strncmp(mod, "triton", 6) ? " (only triton and triton.language can be used in a kernel)" : "", dym);
}

/* A dotted name of the module's scope ("tl.extra.cuda.globaltimer",
 * "triton.language.sum"): a module's attributes, as the kernel would read
 * them (a signature or -D value naming a builtin). False if it names none. */
bool sema_dotted_value(Sema *s, const char *dotted, Val *out) {
    const char *dot = strchr(dotted, '.');
    if (!dot)
        return false;
    bool found;
    Val v = sema_lookup_global(s, arena_strndup(s->a, dotted, (size_t)(dot - dotted)), &found);
    while (found && v.k == V_MODULE && dot) {
        const char *name = dot + 1, *next = strchr(name, '.');
        char *part = arena_strndup(s->a, name, next ? (size_t)(next - name) : strlen(name));
        found = module_attr_try(s, v.s, part, &v);
        dot = next;
    }
    if (!found || dot || v.k == V_MODULE)
        return false;
    *out = v;
    return true;
}

/* Evaluate a module-level expression (a constant, a default value, a
 * decorator argument): no local names, no runtime values. */
Val sema_eval_in_module(Sema *s, const Node *n) { return sema_eval_with(s, n, NULL, (Val){0}); }

/* The same with one local name bound (a heuristic's lambda parameter). */
Val sema_eval_expr(Sema *s, const Node *n) { return eval(s, n); }

Val sema_eval_with(Sema *s, const Node *n, const char *name, Val v) {
    Frame mod = {0};
    Frame *saved = s->fr;
    Block *blk = s->blk;
    mod.fn = saved ? saved->fn : NULL;
    if (name)
        sema_scope_set(s, &mod.scope, name, v);
    s->fr = &mod;
    s->blk = NULL;
    Val r = eval(s, n);
    s->fr = saved;
    s->blk = blk;
    return r;
}

static Val global_value(Sema *s, Global *g) {
    if (g->state == 2)
        return g->v;
    if (g->state == 1)
        sema_fail(s, g->def->span, "circular definition of '%s'", g->name);
    g->state = 1;
    Val v;
    const Node *d = g->def;
    if (d->kind == N_FUNCDEF || d->kind == N_CLASSDEF) {
        v = (Val){.k = d->kind == N_FUNCDEF ? V_FUNC : V_CLASS, .fn = d};
    } else if (d->kind == N_ALIAS && !g->from_mod) {
        const char *path = d->str2 ? d->name : g->name;
        v = (Val){.k = V_MODULE, .s = path};
    } else if (d->kind == N_ALIAS) {
        const char *full = g->from_mod[0] ? arena_printf(s->a, "%s.%s", g->from_mod, d->name) : d->name;
        if (known_module(full) || strncmp(full, "triton", 6))
            v = (Val){.k = V_MODULE, .s = full};
        else
            v = sema_module_attr(s, g->from_mod, d->name, d->span);
    } else {
        v = sema_eval_in_module(s, d);
        if (sema_has_tensor(v))
            sema_fail(s, d->span, "module-level value '%s' must be a compile-time constant", g->name);
    }
    g->v = v;
    g->state = 2;
    return v;
}

Val sema_lookup_global(Sema *s, const char *name, bool *found) {
    *found = true;
    Binding *b = scope_find(s, &s->global_index, name);
    if (b)
        return global_value(s, &s->globals[b->v.i]);
    /* `tl` and `triton` work even without the imports */
    if (!strcmp(name, "tl"))
        return (Val){.k = V_MODULE, .s = "triton.language"};
    if (!strcmp(name, "triton"))
        return (Val){.k = V_MODULE, .s = "triton"};
    const Builtin *bi = sema_builtin_bare(name);
    if (bi)
        return (Val){.k = V_BUILTIN, .bi = bi};
    Type t;
    if (sema_tl_dtype(name, &t))
        return sema_dtype(t);
    *found = false;
    return sema_none();
}

/* A name defined nowhere: the closest local, global, builtin or keyword
 * (a statement of one name may be a misspelt `pass` or `return`). */
static _Noreturn void undefined_name(Sema *s, const char *name, Span sp, bool whole_stmt) {
    for (int i = 0; s->module && i < s->module->l1.len; i++) { /* host code set aside by the parser */
        const Node *h = s->module->l1.items[i];
        if (h->kind == N_HOST && h->name && h->str2 && !strcmp(h->name, name))
            sema_fail(s, sp, "'%s' is host code (line %d), which tl does not compile: %s", name, h->span.line,
                      h->str2);
    }
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; i < s->fr->scope.n; i++)
        suggest_add(&sg, s->fr->scope.b[i].name);
    for (int i = 0; i < s->nglobals; i++)
        suggest_add(&sg, s->globals[i].name);
    sema_suggest_builtins(&sg, B_PY);
    static const char *const words[] = {"tl", "triton", "True", "False", "None"};
    static const char *const stmts[] = {"pass", "return", "break", "continue"};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        suggest_add(&sg, words[i]);
    for (size_t i = 0; whole_stmt && i < sizeof stmts / sizeof stmts[0]; i++)
        suggest_add(&sg, stmts[i]);
    if (!s->fr->caller && s->recover) { /* each undefined name of the kernel is reported once */
        const char **u = arena_alloc(s->a, sizeof(char *) * (size_t)(s->nundef + 1));
        if (s->nundef)
            memcpy(u, s->undef, sizeof(char *) * (size_t)s->nundef);
        u[s->nundef++] = name;
        s->undef = u;
    }
    sema_fail(s, sp, "name '%s' is not defined%s", name, sema_did_you_mean(s, &sg));
}

/* A name whose statement failed: skip the statement that reads it, quietly
 * (its error was reported; anything more would follow from it). */
static _Noreturn void poisoned(Sema *s) { longjmp(*s->jb, 1); }

/* Triton's rule for globals a @jit function reads (code_generator's
 * global_lookup): values made with tl.constexpr(...), dtypes, modules, @jit
 * functions and builtins; not plain numbers, strings or containers, nor a
 * `X: tl.constexpr = 42` annotation. Host code (heuristics, configs, default
 * values, the signature) reads any. TRITON_ALLOW_NON_CONSTEXPR_GLOBALS=1
 * lifts the rule, as in Triton. */
static bool global_readable(Sema *s, const char *name, Val v) {
    const Global *g = NULL;
    for (int i = s->nglobals - 1; i >= 0 && !g; i--)
        if (!strcmp(s->globals[i].name, name))
            g = &s->globals[i];
    if (!g || g->def->kind == N_FUNCDEF || g->def->kind == N_CLASSDEF || g->def->kind == N_ALIAS)
        return true;
    if (v.k == V_DTYPE || v.k == V_MODULE || v.k == V_FUNC || v.k == V_BUILTIN)
        return true;
    const Node *d = g->def, *f = d->kind == N_CALL ? d->a : NULL;
    if (f && ((f->kind == N_NAME || f->kind == N_ATTR) && f->name && !strcmp(f->name, "constexpr")))
        return true;
    const char *allow = getenv("TRITON_ALLOW_NON_CONSTEXPR_GLOBALS");
    return allow && !strcmp(allow, "1");
}

/* whole_stmt: the name is a statement by itself (undefined_name) */
static Val lookup_name(Sema *s, const char *name, Span sp, bool whole_stmt) {
    Binding *b = scope_find(s, &s->fr->scope, name);
    if (b && b->v.k == V_POISON)
        poisoned(s);
    if (b)
        return b->v;
    bool found;
    Val v = sema_lookup_global(s, name, &found);
    for (int i = 0; !found && !s->fr->caller && i < s->nundef; i++)
        if (!strcmp(s->undef[i], name))
            poisoned(s);
    if (!found)
        undefined_name(s, name, sp, whole_stmt);
    if (s->blk && !global_readable(s, name, v))
        sema_fail(s, sp, "Cannot access global variable %s from within a @jit function: a kernel reads globals made "
                         "with tl.constexpr(...) (`%s = tl.constexpr(...)`; an annotation `%s: tl.constexpr = ...` "
                         "is not enough), dtypes, modules and @jit functions, as in Triton",
                  name, name, name);
    return v;
}

static Val lookup(Sema *s, const char *name, Span sp) { return lookup_name(s, name, sp, false); }

/* ---- expressions ---- */

static Val eval_subscript(Sema *s, const Node *n) {
    Val x = eval(s, n->a);
    const Node *ix = n->b;
    if (x.k == V_TENSOR) {
        int cnt = ix->kind == N_TUPLE && !ix->paren ? ix->l0.len : 1;
        const Node *const *items = ix->kind == N_TUPLE && !ix->paren ? (const Node *const *)ix->l0.items : &ix;
        Val *idx = arena_alloc(s->a, sizeof(Val) * (size_t)(cnt + 1));
        Span *isp = arena_alloc(s->a, sizeof(Span) * (size_t)(cnt + 1));
        for (int i = 0; i < cnt; i++) {
            const Node *it = items[i];
            isp[i] = it->span;
            if (it->kind == N_SLICE) { /* Triton: x[None:], x[::None] are x[:] (each part is evaluated) */
                const Node *part[3] = {it->a, it->b, it->c};
                static const char *const what[3] = {"start", "stop", "step"};
                for (int p = 0; p < 3; p++) {
                    if (!part[p])
                        continue;
                    Val pv = eval(s, part[p]);
                    if (pv.k != V_NONE)
                        sema_fail(s, part[p]->span,
                                  "unsupported tensor index: slicing with bounds is not supported: only ':' (its start, stop and "
                                  "step absent or None) and None are; the %s is %s",
                                  what[p], sema_describe(s, pv));
                }
                idx[i] = (Val){.k = V_SLICE};
            } else {
                idx[i] = eval(s, it);
            }
        }
        return sema_tensor_index(s, x, idx, isp, cnt, n->span);
    }
    if (ix->kind == N_SLICE)
        sema_fail(s, ix->span, "slicing %s is not supported", sema_describe(s, x));
    Val i = eval(s, ix);
    if (x.k == V_TUPLE || x.k == V_STR) {
        if (i.k != V_INT && i.k != V_BOOL)
            sema_fail(s, ix->span, "%s indices must be integers, not %s", sema_kind_name(x), sema_describe(s, i));
        int64_t k = i.i < 0 ? i.i + x.n : i.i;
        if (k < 0 || k >= x.n)
            sema_fail(s, ix->span, "%s index %lld out of range (length %d)", sema_kind_name(x), (long long)i.i, x.n);
        return x.k == V_TUPLE ? x.items[k] : sema_str(s, x.s + k, 1);
    }
    if (x.k == V_DICT) {
        if (i.k != V_STR)
            sema_fail(s, ix->span, "dict keys are strings, got %s", sema_describe(s, i));
        for (int k = 0; k < x.n; k++)
            if (!strcmp(x.keys[k], i.s))
                return x.i == SEMA_DICT_ARGS ? sema_heur_arg(s, x, k, n->span) : x.items[k];
        if (x.i == SEMA_DICT_ARGS)
            sema_heur_missing(s, x, i.s, ix->span);
        if (x.i)
            sema_fail(s, ix->span, "meta-parameter '%s' is not set (give it with -D %s=VALUE or an autotune config)",
                      i.s, i.s);
        sema_fail(s, ix->span, "key '%s' is not in the dict", i.s);
    }
    sema_fail(s, n->span, "%s is not subscriptable", sema_describe(s, x));
}

static bool is_comparison(Op op) { return op >= OP_LT && op <= OP_NOTIN; }

static Val eval_binary(Sema *s, const Node *n) {
    if (is_comparison(n->op) && n->a->kind == N_BINARY && is_comparison(n->a->op) && !n->a->paren)
        sema_fail(s, n->span, "chained comparisons (a < b < c) are not supported; use (a < b) & (b < c)");
    Val a = eval(s, n->a);
    Val b = eval(s, n->b);
    return sema_binop(s, n->op, a, b, n->span);
}

static Val eval_boolop(Sema *s, const Node *n) {
    Val a = eval(s, n->a);
    if (a.k != V_TENSOR) {
        /* Python's short circuit on a compile-time left side */
        bool t = sema_truthy(s, a, n->a->span);
        if ((n->op == OP_AND && !t) || (n->op == OP_OR && t))
            return a;
        Val b = eval(s, n->b);
        if (b.k != V_TENSOR)
            return b;
        return sema_tensor(s, sema_to_i1(s, b.id, n->b->span));
    }
    Val b = eval(s, n->b);
    return sema_logical(s, n->op, a, b, n->span);
}

static ValueId scalar_cond(Sema *s, Val c, Span sp, const char *what) {
    if (c.ty.rank && ir_numel(c.ty) == 1) { /* Triton unsplats a one-element block, with a warning */
        diag_warning(s->d, s->src, sp, "the condition of %s is a block of one element (%s); use .item()", what,
                     TS(c.ty));
        Val one[1] = {c};
        Span osp[1] = {sp};
        c = sema_h_item(s, NULL, one, osp, sp);
    }
    if (c.ty.rank)
        sema_fail(s, sp, "the condition of %s must be a scalar, got %s", what, TS(c.ty));
    if (c.ty.dtype == DT_PTR)
        sema_fail(s, sp, "the condition of %s cannot be a pointer", what);
    return sema_to_i1(s, c.id, sp);
}

/* The type two values merge to (runtime if / ternary): a tensor's type, or the
 * tensor type of a number. Numbers then become constants of that type. */
static Type merge_type(Sema *s, Val a, Val b, Span sp, const char *name) {
    Type ta, tb;
    bool na = sema_is_number(a), nb = sema_is_number(b);
    if (a.k == V_TENSOR)
        ta = a.ty;
    else if (!na || !sema_number_type(s, a, &ta, sp))
        goto bad;
    if (b.k == V_TENSOR)
        tb = b.ty;
    else if (!nb || !sema_number_type(s, b, &tb, sp))
        goto bad;
    if (na && !nb)
        return tb;
    if (nb && !na)
        return ta;
    /* in Triton's words (its tests match them); a const pointer is a type of its own */
    const char *ca = sema_const_word(s, a), *cb = sema_const_word(s, b);
    if (!ir_type_eq(ta, tb) || strcmp(ca, cb)) {
        if (name)
            sema_fail(s, sp, "Mismatched type for %s between then block (%s%s) and else block (%s%s)", name, TS(ta),
                      ca, TS(tb), cb);
        sema_fail(s, sp, "Ternary expression with dynamic condition has inconsistent types %s%s and %s%s", TS(ta), ca,
                  TS(tb), cb);
    }
    return ta;
bad:
    if (name)
        sema_fail(s, sp, "'%s' is %s in the then block and %s in the else block of a runtime 'if'; "
                         "a name defined in both branches must hold tensors or numbers",
                  name, sema_describe(s, a), sema_describe(s, b));
    sema_fail(s, sp, "the branches of a ternary expression with a runtime condition must be tensors or numbers, got "
                     "%s and %s", sema_describe(s, a), sema_describe(s, b));
}

static ValueId as_type(Sema *s, Val v, Type t, Span sp) {
    return v.k == V_TENSOR ? v.id : sema_const_of(s, v, t, sp);
}

/* The IF op of a runtime if / ternary whose branches end in their yields:
 * a result is a const pointer where the then branch yields one (merge_type
 * made both branches agree). */
static Inst *emit_if(Sema *s, ValueId cond, Block *tb, Block *eb, const Type *rt, int nres, Span sp) {
    Inst *in = sema_emit_inst(s, IR_IF, &cond, 1, rt, nres, sp);
    ir_set_regions(in, tb, eb);
    const Inst *y = tb->ninsts ? tb->insts[tb->ninsts - 1] : NULL;
    for (int i = 0; y && y->op == IR_YIELD && i < nres && i < y->nargs; i++)
        if (sema_is_const_ptr(s, y->args[i]))
            sema_mark_const_ptr(s, in->results[i]);
    return in;
}

static Val eval_ifexp(Sema *s, const Node *n) {
    Val c = eval(s, n->b);
    if (c.k != V_TENSOR)
        return sema_truthy(s, c, n->b->span) ? eval(s, n->a) : eval(s, n->c);
    ValueId cond = scalar_cond(s, c, n->b->span, "a ternary expression");
    Block *outer = s->blk, *tb = ir_block_new(s->f), *eb = ir_block_new(s->f);
    s->blk = tb;
    Val tv = eval(s, n->a);
    s->blk = eb;
    Val ev = eval(s, n->c);
    if (tv.k == V_NONE && ev.k == V_NONE) { /* None either way (Triton's void: `tl.store(..) if c else
                                              tl.store(..)`): the branches run for their effects */
        s->blk = tb;
        sema_emit_inst(s, IR_YIELD, NULL, 0, NULL, 0, n->a->span);
        s->blk = eb;
        sema_emit_inst(s, IR_YIELD, NULL, 0, NULL, 0, n->c->span);
        s->blk = outer;
        emit_if(s, cond, tb, eb, NULL, 0, n->span);
        return sema_none();
    }
    if ((tv.k == V_NONE) != (ev.k == V_NONE)) {
        const Node *nn = tv.k == V_NONE ? n->a : n->c;
        sema_fail(s, nn->span,
                  "this branch is None and the other is %s: with a runtime condition a ternary cannot choose "
                  "None (as in Triton); make the condition a compile-time constant (tl.constexpr)",
                  sema_describe(s, tv.k == V_NONE ? ev : tv));
    }
    Type t = merge_type(s, tv, ev, n->span, NULL);
    s->blk = tb;
    ValueId y = as_type(s, tv, t, n->a->span);
    sema_emit_inst(s, IR_YIELD, &y, 1, NULL, 0, n->a->span);
    s->blk = eb;
    y = as_type(s, ev, t, n->c->span);
    sema_emit_inst(s, IR_YIELD, &y, 1, NULL, 0, n->c->span);
    s->blk = outer;
    Inst *in = emit_if(s, cond, tb, eb, &t, 1, n->span);
    return sema_tensor(s, in->results[0]);
}

/* The items a comprehension's `for` runs over: a list or tuple, a dict's
 * keys, or range() of compile-time ints (host code, evaluated here). */
static Val comp_items(Sema *s, const Node *it) {
    Val callee = it->kind == N_CALL ? eval(s, it->a) : sema_none();
    if (callee.k == V_BUILTIN && (sema_builtin_is(callee.bi, "range") || sema_builtin_is(callee.bi, "static_range"))) {
        Args args = sema_eval_args(s, it);
        Val v[B_MAX_PARAMS];
        Span sp[B_MAX_PARAMS];
        sema_bind_args(s, callee.bi, &args, it->span, v, sp);
        Val lb = v[1].k == V_UNDEF ? sema_int(0) : v[0], ub = v[1].k == V_UNDEF ? v[0] : v[1];
        Val st = v[2].k == V_UNDEF ? sema_int(1) : v[2];
        if (lb.k != V_INT || ub.k != V_INT || st.k != V_INT || !st.i)
            sema_fail(s, it->span, "range() in a comprehension needs compile-time ints and a step other than 0");
        int64_t count = st.i > 0 ? (ub.i > lb.i ? (ub.i - lb.i + st.i - 1) / st.i : 0)
                                 : (lb.i > ub.i ? (lb.i - ub.i - st.i - 1) / -st.i : 0);
        if (count > SEMA_MAX_UNROLL)
            sema_fail(s, it->span, "range() in a comprehension has more than %d items", SEMA_MAX_UNROLL);
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(count + 1));
        for (int64_t i = 0; i < count; i++)
            items[i] = sema_int(lb.i + i * st.i);
        return sema_tuple(s, items, (int)count);
    }
    Val v = eval(s, it);
    if (v.k == V_DICT && v.i != SEMA_DICT_OBJECT) {
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(v.n + 1));
        for (int i = 0; i < v.n; i++)
            items[i] = sema_str(s, v.keys[i], (int)strlen(v.keys[i]));
        return sema_tuple(s, items, v.n);
    }
    if (v.k != V_TUPLE)
        sema_fail(s, it->span, "a comprehension can run over a list, tuple, dict or range() here, not %s",
                  sema_describe(s, v));
    return v;
}

/* Clause ci of [elt for ... if ...] onward, appending to out (host code that
 * builds autotune configs, e.g. tutorial 09's matmul_get_configs()). */
static void comp_clause(Sema *s, const Node *n, int ci, Val **out, int *len, int *cap) {
    if (ci == n->l0.len) {
        if (*len == *cap) {
            Val *g = arena_alloc(s->a, sizeof(Val) * (size_t)(*cap * 2 + 8));
            if (*len)
                memcpy(g, *out, sizeof(Val) * (size_t)*len);
            *out = g, *cap = *cap * 2 + 8;
        }
        (*out)[(*len)++] = eval(s, n->a);
        return;
    }
    const Node *c = n->l0.items[ci];
    if (c->kind == N_IF) {
        Val t = eval(s, c->a);
        if (t.k == V_TENSOR)
            sema_fail(s, c->a->span, "a comprehension's condition must be known at compile time");
        if (sema_truthy(s, t, c->a->span))
            comp_clause(s, n, ci + 1, out, len, cap);
        return;
    }
    Val items = comp_items(s, c->b);
    for (int i = 0; i < items.n; i++) {
        if (++s->work > SEMA_MAX_WORK)
            sema_fail(s, n->span, "the comprehension is too large (more than %d items evaluated)", SEMA_MAX_WORK);
        assign(s, c->a, items.items[i]);
        comp_clause(s, n, ci + 1, out, len, cap);
    }
}

/* The names a comprehension's targets bind, at most `max` (Python 3 gives
 * them their own scope: they must not outlive it). */
static int comp_targets(const Node *t, const char **names, int n, int max) {
    if (t->kind == N_NAME && n < max)
        names[n++] = t->name;
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->l0.len; i++)
            n = comp_targets(t->l0.items[i], names, n, max);
    return n;
}

/* [elt for x in it if c ...]: over compile-time iterables, in host code and
 * in kernels (Triton's visit_ListComp: a tuple whose items may be runtime
 * values). The targets' bindings are put back afterwards. */
static Val eval_listcomp(Sema *s, const Node *n) {
    enum { MAX_TARGETS = 32 };
    const char *names[MAX_TARGETS];
    Val saved[MAX_TARGETS];
    bool had[MAX_TARGETS];
    int nn = 0;
    for (int i = 0; i < n->l0.len; i++)
        if (n->l0.items[i]->kind == N_FOR)
            nn = comp_targets(n->l0.items[i]->a, names, nn, MAX_TARGETS);
    for (int i = 0; i < nn; i++) {
        Binding *b = scope_find(s, &s->fr->scope, names[i]);
        had[i] = b != NULL;
        saved[i] = b ? b->v : (Val){0};
    }
    Val *out = NULL;
    int len = 0, cap = 0;
    comp_clause(s, n, 0, &out, &len, &cap);
    for (int i = nn - 1; i >= 0; i--) {
        if (had[i])
            sema_scope_set(s, &s->fr->scope, names[i], saved[i]);
        else
            scope_remove(s, &s->fr->scope, names[i]);
    }
    return sema_tuple(s, out, len);
}

static Val eval_inner(Sema *s, const Node *n) {
    switch (n->kind) {
    case N_NAME: return lookup(s, n->name, n->span);
    case N_INT:
        if (n->ival < 0)
            sema_fail(s, n->span, "integer literal is too large (more than 63 bits)");
        return sema_int(n->ival);
    case N_FLOAT: return sema_float(n->fval);
    case N_STR: return n->op == OP_MOD ? sema_fstring(s, n) : sema_str(s, n->name ? n->name : "", (int)n->ival);
    case N_NONE: return sema_none();
    case N_TRUE: return sema_bool(true);
    case N_FALSE: return sema_bool(false);
    case N_ATTR: return sema_eval_attr(s, eval(s, n->a), n->name, n->span);
    case N_CALL: return sema_eval_call(s, n);
    case N_SUBSCRIPT: return eval_subscript(s, n);
    case N_TUPLE:
    case N_LIST: {
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(n->l0.len + 1));
        for (int i = 0; i < n->l0.len; i++) {
            if (n->l0.items[i]->kind == N_KWARG)
                sema_fail(s, n->l0.items[i]->span, "starred expressions are not supported here");
            items[i] = eval(s, n->l0.items[i]);
        }
        return sema_tuple(s, items, n->l0.len);
    }
    case N_DICT: {
        Val d = {.k = V_DICT, .n = n->l0.len};
        d.keys = arena_alloc(s->a, sizeof(char *) * (size_t)(d.n + 1));
        d.items = arena_alloc(s->a, sizeof(Val) * (size_t)(d.n + 1));
        for (int i = 0; i < d.n; i++) {
            if (!n->l0.items[i] || i >= n->l1.len)
                sema_fail(s, n->span, "'**' in a dict literal is not supported");
            Val k = eval(s, n->l0.items[i]);
            if (k.k != V_STR)
                sema_fail(s, n->l0.items[i]->span, "dict keys must be strings, got %s", sema_describe(s, k));
            d.keys[i] = k.s;
            d.items[i] = eval(s, n->l1.items[i]);
        }
        return d;
    }
    case N_UNARY: return sema_unop(s, n->op, eval(s, n->a), n->span);
    case N_BINARY: return eval_binary(s, n);
    case N_BOOLOP: return eval_boolop(s, n);
    case N_IFEXP: return eval_ifexp(s, n);
    case N_LISTCOMP: return eval_listcomp(s, n);
    case N_SLICE: sema_fail(s, n->span, "a slice can only be used as an index");
    case N_KWARG: sema_fail(s, n->span, "unexpected keyword or starred argument");
    default: sema_fail(s, n->span, "this expression is not supported in the kernel language");
    }
}

static Val eval(Sema *s, const Node *n) {
    enter(s, n->span);
    Val v = eval_inner(s, n);
    leave(s);
    return v;
}

/* ---- statements ---- */

static void assign(Sema *s, const Node *t, Val v) {
    switch (t->kind) {
    case N_NAME: /* Triton: `v = 1` makes v a scalar tensor (sema_number_as_tensor) */
        bind(s, t->name, s->blk ? sema_number_as_tensor(s, v, t->span) : v);
        return;
    case N_TUPLE:
    case N_LIST:
        if (v.k != V_TUPLE)
            sema_fail(s, t->span, "cannot unpack %s into %d names", sema_describe(s, v), t->l0.len);
        if (v.n != t->l0.len)
            sema_fail(s, t->span, "cannot unpack %d values into %d names", v.n, t->l0.len);
        for (int i = 0; i < v.n; i++)
            assign(s, t->l0.items[i], v.items[i]);
        return;
    case N_SUBSCRIPT:
        sema_fail(s, t->span, "assignment to a subscript is not supported (tensors are immutable; use tl.where)");
    case N_ATTR: sema_fail(s, t->span, "assignment to an attribute is not supported");
    default: sema_fail(s, t->span, "cannot assign to this expression");
    }
}

/* Names a statement list assigns (syntactically): the candidates for
 * loop-carried values, in order of first assignment, gathered in a Scope used
 * as a set (its hash index keeps a body of many names linear). */
static void assigned_names(Sema *s, const NodeList *l, Scope *set);

static void add_name(Sema *s, const char *name, Scope *set) {
    if (!scope_find(s, set, name))
        sema_scope_set(s, set, name, sema_none());
}

static void target_names(Sema *s, const Node *t, Scope *set) {
    if (t->kind == N_NAME)
        add_name(s, t->name, set);
    else if (t->kind == N_TUPLE || t->kind == N_LIST)
        for (int i = 0; i < t->l0.len; i++)
            target_names(s, t->l0.items[i], set);
}

static void assigned_names(Sema *s, const NodeList *l, Scope *set) {
    for (int i = 0; i < l->len; i++) {
        const Node *st = l->items[i];
        switch (st->kind) {
        case N_ASSIGN:
            for (int j = 0; j < st->l0.len; j++)
                target_names(s, st->l0.items[j], set);
            break;
        case N_ANNASSIGN:
        case N_AUGASSIGN: target_names(s, st->a, set); break;
        case N_FOR:
            target_names(s, st->a, set);
            /* fallthrough */
        case N_IF:
        case N_WHILE:
            assigned_names(s, &st->l0, set);
            assigned_names(s, &st->l1, set);
            break;
        default: break;
        }
    }
}

typedef struct Merge {
    const char *name;
    Val tv, ev;
    bool live;
    Val lv;
    Type t;
    int pos; /* where the name was first bound: the order of the IF's results */
} Merge;

static int merge_order(const void *a, const void *b) {
    int x = ((const Merge *)a)->pos, y = ((const Merge *)b)->pos;
    return (x > y) - (x < y);
}

/* A runtime `if`: both branches into the regions of an IF op; names either
 * branch redefined (and that were live before) and names both define become
 * its results (code_generator.visit_then_else_blocks). */
static void runtime_if(Sema *s, ValueId cond, const NodeList *then_l, const NodeList *else_l, Span sp) {
    Frame *fr = s->fr;
    /* Only the names the branches assign can differ after them: each branch
     * runs from a mark of the scope, and these names are read after it. */
    Scope set = {0};
    assigned_names(s, then_l, &set);
    assigned_names(s, else_l, &set);
    int nn = set.n;
    const char **names = arena_alloc(s->a, sizeof(char *) * (size_t)(nn + 1));
    for (int i = 0; i < nn; i++)
        names[i] = set.b[i].name;
    Merge *m = arena_alloc(s->a, sizeof(Merge) * (size_t)(nn + 1));
    bool *in_t = arena_alloc(s->a, sizeof(bool) * (size_t)(2 * nn + 1)), *in_e = in_t + nn;
    for (int i = 0; i < nn; i++) {
        Binding *b = scope_find(s, &fr->scope, names[i]);
        m[i] = (Merge){names[i], {0}, {0}, b != NULL, b ? b->v : sema_none(), {0}, b ? (int)(b - fr->scope.b) : 0};
    }
    ScopeMark mark = scope_mark(s);
    Block *outer = s->blk, *tb = ir_block_new(s->f), *eb = ir_block_new(s->f);
    for (int side = 0; side < 2; side++) {
        s->blk = side ? eb : tb;
        sema_exec_block(s, side ? else_l : then_l);
        for (int i = 0; i < nn; i++) {
            Binding *b = scope_find(s, &fr->scope, names[i]);
            *(side ? &m[i].ev : &m[i].tv) = b ? b->v : m[i].lv;
            (side ? in_e : in_t)[i] = b != NULL;
            if (!side && b && !m[i].live) /* a new name: ordered where the then block bound it */
                m[i].pos = (int)(b - fr->scope.b);
        }
        scope_rollback(s, &mark);
    }
    scope_release(s);
    /* the names that change, in order of first binding (the IF's results) */
    int nm = 0;
    for (int i = 0; i < nn; i++) {
        Merge g = m[i];
        bool keep = g.live ? !((same_val(g.tv, g.lv) && same_val(g.ev, g.lv)) ||
                               (g.lv.k == V_POISON && g.tv.k == V_POISON && g.ev.k == V_POISON))
                           : in_t[i] && in_e[i];
        if (keep)
            m[nm++] = g;
    }
    qsort(m, (size_t)nm, sizeof(Merge), merge_order);
    int cap = 1; /* a block pointer or descriptor takes one result per runtime field */
    for (int i = 0; i < nm; i++)
        cap += sema_is_struct(m[i].tv) ? sema_struct_leaves(m[i].tv, NULL) : 1;
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)cap);
    ValueId *ty = arena_alloc(s->a, sizeof(ValueId) * (size_t)cap);
    ValueId *ey = arena_alloc(s->a, sizeof(ValueId) * (size_t)cap);
    int nres = 0;
    for (int i = 0; i < nm; i++) {
        Merge *g = &m[i];
        if (same_val(g->tv, g->ev) || g->tv.k == V_POISON || g->ev.k == V_POISON)
            continue; /* both branches agree: no result needed; or a branch failed (recovery) */
        if (sema_is_struct(g->tv) || sema_is_struct(g->ev)) {
            const char *why = sema_is_struct(g->tv) ? sema_struct_mismatch(s, g->tv, g->ev) : "";
            if (why)
                sema_fail(s, sp, "'%s' is %s in the then block and %s in the else block of a runtime 'if'%s%s", g->name,
                          sema_describe(s, g->tv), sema_describe(s, g->ev), *why ? ": " : "", why);
            /* one result per field that differs between the branches */
            int nl = sema_struct_leaves(g->tv, NULL);
            ValueId *tl = arena_alloc(s->a, sizeof(ValueId) * (size_t)(2 * nl + 1)), *el = tl + nl;
            sema_struct_leaves(g->tv, tl);
            sema_struct_leaves(g->ev, el);
            for (int k = 0; k < nl; k++)
                if (tl[k] != el[k]) {
                    ty[nres] = tl[k], ey[nres] = el[k];
                    rt[nres++] = s->f->values[tl[k]].type;
                }
            continue;
        }
        if (g->live && g->lv.k == V_TENSOR) {
            /* a live-in tensor keeps its type in both branches */
            for (int side = 0; side < 2; side++) {
                Val v = side ? g->ev : g->tv;
                if (v.k == V_TENSOR && !ir_type_eq(v.ty, g->lv.ty))
                    sema_fail(s, sp, "initial value for '%s' is of type %s, but the %s block redefines it as %s",
                              g->name, TS(g->lv.ty), side ? "else" : "then", TS(v.ty));
            }
        }
        g->t = merge_type(s, g->tv, g->ev, sp, g->name);
        rt[nres] = g->t;
        s->blk = tb;
        ty[nres] = as_type(s, g->tv, g->t, sp);
        s->blk = eb;
        ey[nres] = as_type(s, g->ev, g->t, sp);
        nres++;
    }
    s->blk = tb;
    sema_emit_inst(s, IR_YIELD, ty, nres, NULL, 0, sp);
    s->blk = eb;
    sema_emit_inst(s, IR_YIELD, ey, nres, NULL, 0, sp);
    s->blk = outer;
    Inst *in = emit_if(s, cond, tb, eb, rt, nres, sp);
    for (int i = 0, r = 0; i < nm; i++) {
        if (m[i].tv.k == V_POISON || m[i].ev.k == V_POISON)
            bind(s, m[i].name, (Val){.k = V_POISON});
        else if (same_val(m[i].tv, m[i].ev))
            bind(s, m[i].name, m[i].tv);
        else if (sema_is_struct(m[i].tv)) {
            int nl = sema_struct_leaves(m[i].tv, NULL);
            ValueId *tl = arena_alloc(s->a, sizeof(ValueId) * (size_t)(2 * nl + 1)), *el = tl + nl;
            sema_struct_leaves(m[i].tv, tl);
            sema_struct_leaves(m[i].ev, el);
            for (int k = 0; k < nl; k++)
                if (tl[k] != el[k])
                    tl[k] = in->results[r++];
            bind(s, m[i].name, sema_struct_with(s, m[i].tv, tl));
        } else
            bind(s, m[i].name, sema_tensor(s, in->results[r++]));
    }
}

static void exec_seq(Sema *s, const NodeList *l, int from, const Cont *up);
static void run_cont(Sema *s, const Cont *k);

/* Does a statement list contain a `return` (syntactically, at any depth)? */
static bool has_return(const NodeList *l) {
    for (int i = 0; i < l->len; i++) {
        const Node *st = l->items[i];
        if (st->kind == N_RETURN)
            return true;
        bool nested = st->kind == N_IF || st->kind == N_FOR || st->kind == N_WHILE;
        if (nested && (has_return(&st->l0) || has_return(&st->l1)))
            return true;
    }
    return false;
}

/* Does every path through l end in a `return` (syntactically)? */
static bool always_returns(const NodeList *l) {
    if (!l->len)
        return false;
    const Node *st = l->items[l->len - 1];
    return st->kind == N_RETURN || (st->kind == N_IF && always_returns(&st->l0) && always_returns(&st->l1));
}

/* Is there no statement left in k? */
static bool cont_empty(const Cont *k) {
    for (; k; k = k->up)
        if (k->loop ? k->next < k->count : k->from < k->l->len)
            return false;
    return true;
}

/* The values two paths return, merged: equal values stay, tuples of one
 * length merge item by item, tensors and numbers become results of the IF
 * op (their yields go into tb / eb). The first pass (in = NULL) emits the
 * yields into y[0] / y[1] and the result types into rt; the second (in = the
 * IF op) builds the merged value. */
static Val merge_ret(Sema *s, Val tv, Val ev, ValueId **y, Type *rt, int *n, Inst *in, Block *tb, Block *eb,
                     Span tsp, Span esp) {
    if (same_val(tv, ev))
        return tv;
    if (tv.k == V_TUPLE && ev.k == V_TUPLE && tv.n == ev.n) {
        Val *items = in ? arena_alloc(s->a, sizeof(Val) * (size_t)(tv.n + 1)) : NULL;
        for (int i = 0; i < tv.n; i++) {
            Val v = merge_ret(s, tv.items[i], ev.items[i], y, rt, n, in, tb, eb, tsp, esp);
            if (in)
                items[i] = v;
        }
        return in ? sema_tuple(s, items, tv.n) : tv;
    }
    if (sema_is_struct(tv) && sema_is_struct(ev) && !sema_struct_mismatch(s, tv, ev)) {
        /* a block pointer or descriptor: field by field, like a tuple */
        Val r = tv;
        r.items = arena_alloc(s->a, sizeof(Val) * (size_t)tv.i);
        for (int i = 0; i < tv.i; i++)
            r.items[i] = merge_ret(s, tv.items[i], ev.items[i], y, rt, n, in, tb, eb, tsp, esp);
        return in ? r : tv;
    }
    if (in)
        return sema_tensor(s, in->results[(*n)++]);
    bool tn = sema_is_number(tv), en = sema_is_number(ev);
    bool tok = tv.k == V_TENSOR || tn, eok = ev.k == V_TENSOR || en;
    Type tt = tv.ty, et = ev.ty;
    if (tn)
        tok = sema_number_type(s, tv, &tt, tsp);
    if (en)
        eok = sema_number_type(s, ev, &et, esp);
    /* a number takes the other side's type, as for names (merge_type) */
    const char *tc = sema_const_word(s, tv), *ec = sema_const_word(s, ev);
    if (!tok || !eok || (tn == en && !ir_type_eq(tt, et)) || strcmp(tc, ec)) {
        /* at the later `return` in the source, as Triton (which checks each
         * against those before it); at the value where the other is None */
        bool later_then = tsp.line > esp.line || (tsp.line == esp.line && tsp.col > esp.col);
        bool here_then = tv.k == V_NONE || ev.k == V_NONE ? tv.k != V_NONE : later_then;
        sema_fail(s, here_then ? tsp : esp,
                  "Inconsistent return types: '%s' returns %s%s here but %s%s on another path (a 'return' inside a "
                  "runtime 'if'); the values a function returns from inside a runtime 'if' must have one type on "
                  "every path",
                  s->fr->fn->name, sema_describe(s, here_then ? tv : ev), here_then ? tc : ec,
                  sema_describe(s, here_then ? ev : tv), here_then ? ec : tc);
    }
    Type t = merge_type(s, tv, ev, tsp, NULL);
    Block *outer = s->blk;
    rt[*n] = t;
    s->blk = tb;
    y[0][*n] = as_type(s, tv, t, tsp);
    s->blk = eb;
    y[1][*n] = as_type(s, ev, t, esp);
    s->blk = outer;
    (*n)++;
    return tv;
}

/* Leaves of a returned value that may need an IF result. */
static int ret_leaves(Val v) {
    if (sema_is_struct(v))
        return (int)v.i;
    if (v.k != V_TUPLE)
        return 1;
    int n = 0;
    for (int i = 0; i < v.n; i++)
        n += ret_leaves(v.items[i]);
    return n;
}

/* What a path that ran off the end of a helper gives where another path
 * returns v: zeros of each tensor's type (Triton's poison: any value will
 * do), compile-time values as they are (Triton's constexpr return types). */
static Val undefined_like(Sema *s, Val v, Span sp) {
    if (v.k == V_TUPLE) {
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(v.n + 1));
        for (int i = 0; i < v.n; i++)
            items[i] = undefined_like(s, v.items[i], sp);
        Val t = v;
        t.items = items;
        return t;
    }
    if (sema_is_struct(v)) { /* block pointers, descriptors: their runtime fields */
        int n = sema_struct_leaves(v, NULL);
        ValueId *l = arena_alloc(s->a, sizeof(ValueId) * (size_t)(n + 1));
        sema_struct_leaves(v, l);
        for (int i = 0; i < n; i++)
            l[i] = undefined_like(s, sema_tensor(s, l[i]), sp).id;
        return sema_struct_with(s, v, l);
    }
    if (v.k != V_TENSOR)
        return v;
    if (v.ty.dtype == DT_PTR) {
        ValueId z = sema_const_of(s, sema_int(0), ir_with_dtype(v.ty, DT_I64), sp);
        return sema_tensor(s, sema_cast(s, z, ir_elem(v.ty), sp));
    }
    return sema_tensor(s, sema_const_of(s, dt_is_fp((DType)v.ty.dtype) ? sema_float(0) : sema_int(0), v.ty, sp));
}

/* A runtime `if` with a `return` inside (Triton's visit_if_top_level, in
 * structured form): each branch runs its own statements and then everything
 * that follows the `if` up to the end of the function (k), unless it
 * returned first. So `if c: return` followed by S is `if c: pass else: S`,
 * and names assigned in S are seen only there. The function is then done:
 * the IF op's results are only the merged return value of a helper (its
 * paths must return values of one type), none in a kernel. */
static void runtime_if_return(Sema *s, ValueId cond, const Node *n, const Cont *k) {
    Frame *fr = s->fr;
    ScopeMark live = scope_mark(s);
    Block *outer = s->blk, *bl[2] = {ir_block_new(s->f), ir_block_new(s->f)};
    Val rv[2];
    Span rsp[2];
    bool fell[2];
    /* a branch that returns on some paths only, with the other branch, runs
     * what follows twice over: bound the copies */
    int dup = s->dup;
    if (!always_returns(&n->l0) && !always_returns(&n->l1) && !cont_empty(k) && ++s->dup > SEMA_MAX_DUP)
        sema_fail(s, n->span, "more than %d runtime 'if's, one after or inside another, that return on some of "
                              "their paths only: each compiles the statements after it in both of its branches",
                  SEMA_MAX_DUP);
    for (int side = 0; side < 2; side++) {
        if (side)
            scope_rollback(s, &live);
        fr->returned = false;
        fr->ret = sema_none();
        fr->ret_span = n->span;
        s->blk = bl[side];
        exec_seq(s, side ? &n->l1 : &n->l0, 0, k);
        fr->fell_off = false;
        run_cont(s, k); /* falls off the end of the function: returns None */
        rv[side] = fr->returned ? fr->ret : sema_none();
        rsp[side] = fr->ret_span;
        fell[side] = !fr->returned || fr->fell_off;
    }
    s->dup = dup;
    /* Triton: a path that runs off the end of a helper returns an undefined
     * value of the type the `return`s give (poison); tl gives zeros. An
     * explicit `return` / `return None` beside a value stays an error. */
    for (int side = 0; side < 2; side++)
        if (fell[side] && !fell[!side] && rv[!side].k != V_NONE) {
            s->blk = bl[side];
            rv[side] = undefined_like(s, rv[!side], rsp[!side]);
            rsp[side] = rsp[!side];
        }
    int cap = ret_leaves(rv[0]) + 1, nres = 0;
    ValueId *y[2] = {arena_alloc(s->a, sizeof(ValueId) * (size_t)cap),
                     arena_alloc(s->a, sizeof(ValueId) * (size_t)cap)};
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)cap);
    s->blk = outer;
    (void)merge_ret(s, rv[0], rv[1], y, rt, &nres, NULL, bl[0], bl[1], rsp[0], rsp[1]);
    for (int side = 0; side < 2; side++) {
        s->blk = bl[side];
        sema_emit_inst(s, IR_YIELD, y[side], nres, NULL, 0, n->span);
    }
    s->blk = outer;
    Inst *in = emit_if(s, cond, bl[0], bl[1], rt, nres, n->span);
    int r = 0;
    scope_rollback(s, &live);
    scope_release(s);
    fr->ret = merge_ret(s, rv[0], rv[1], y, rt, &r, in, bl[0], bl[1], rsp[0], rsp[1]);
    fr->ret_span = rv[0].k != V_NONE ? rsp[0] : rsp[1];
    fr->returned = true; /* the rest of the function ran in the branches */
    fr->fell_off = fell[0] && fell[1];
}

static void exec_if(Sema *s, const Node *n, const Cont *k) {
    Val c = eval(s, n->a);
    /* A name assigned a number (`a = False`) is a tensor to Triton, so its
     * `if` is a runtime one: in a helper, a `return` in the branch not taken
     * still gives the function its return type (the other path returns
     * poison). A kernel returns nothing: its `if` folds. */
    bool returns = !s->fr->loop_nest && (has_return(&n->l0) || has_return(&n->l1));
    if (c.as_tensor && returns && s->fr->caller)
        c = sema_materialize(s, c, n->a->span);
    if (c.k != V_TENSOR) {
        exec_seq(s, sema_truthy(s, c, n->a->span) ? &n->l0 : &n->l1, 0, k);
        return;
    }
    ValueId cond = scalar_cond(s, c, n->a->span, "an 'if'");
    /* in a runtime loop a `return` is an error (exec_return) */
    if (returns)
        runtime_if_return(s, cond, n, k);
    else
        runtime_if(s, cond, &n->l0, &n->l1, n->span);
}

typedef struct Carried {
    const char *name;
    Val live;
    Type t;
    ValueId init;
    bool deferred; /* a compile-time value: must not change in the loop */
    bool poisoned; /* a statement of the body that assigns it failed (recovery) */
    int nleaf;     /* a block pointer or descriptor (live): each runtime field is carried */
    ValueId *leaves; /* their initial values */
} Carried;

/* The loop slots (carried values) of c[0..nc). */
static int carried_slots(const Carried *c, int nc) {
    int n = 0;
    for (int i = 0; i < nc; i++)
        n += c[i].deferred ? 0 : c[i].nleaf ? c[i].nleaf : 1;
    return n;
}

/* A loop's results are const pointers where their initial values are. */
static void carry_const(Sema *s, const Inst *loop, const ValueId *inits) {
    for (int i = 0; i < loop->nresults; i++)
        if (sema_is_const_ptr(s, inits[i]))
            sema_mark_const_ptr(s, loop->results[i]);
}

/* Block arguments of blk for one carried value (one per field of a struct),
 * bound to its name; their initial values, types and ids are appended at *n
 * to inits, rt and argv (each may be NULL). */
static void bind_carried(Sema *s, const Carried *c, Block *blk, ValueId *inits, Type *rt, ValueId *argv, int *n) {
    int k = c->nleaf ? c->nleaf : 1;
    ValueId *args = arena_alloc(s->a, sizeof(ValueId) * (size_t)k);
    for (int j = 0; j < k; j++, (*n)++) {
        ValueId init = c->nleaf ? c->leaves[j] : c->init;
        Type t = s->f->values[init].type;
        args[j] = ir_block_arg(s->f, blk, t);
        if (sema_is_const_ptr(s, init)) /* a const pointer carried stays const */
            sema_mark_const_ptr(s, args[j]);
        if (inits)
            inits[*n] = init;
        if (rt)
            rt[*n] = t;
        if (argv)
            argv[*n] = args[j];
    }
    bind(s, c->name, c->nleaf ? sema_struct_with(s, c->live, args) : sema_tensor(s, args[0]));
}

/* The loop-carried names of a loop body: assigned in it and live before it
 * (code_generator.visit_For / visit_While). Numbers become tensors. */
static int loop_carried(Sema *s, const NodeList *body, const char *skip, Carried **out, Span sp) {
    Scope set = {0};
    assigned_names(s, body, &set);
    int n = set.n;
    const char **names = arena_alloc(s->a, sizeof(char *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        names[i] = set.b[i].name;
    Carried *c = arena_alloc(s->a, sizeof(Carried) * (size_t)(n + 1));
    int nc = 0;
    for (int i = 0; i < n; i++) {
        if (skip && !strcmp(names[i], skip))
            continue;
        Binding *b = scope_find(s, &s->fr->scope, names[i]);
        if (!b || b->v.k == V_POISON)
            continue; /* poisoned stays poisoned after the loop */
        Carried *k = &c[nc++];
        *k = (Carried){.name = names[i], .live = b->v};
        if (b->v.k == V_TENSOR) {
            k->t = b->v.ty;
            k->init = b->v.id;
        } else if (sema_is_number(b->v)) {
            k->init = sema_to_tensor(s, b->v, sp);
            k->t = s->f->values[k->init].type;
        } else if (sema_is_struct(b->v)) {
            k->nleaf = sema_struct_leaves(b->v, NULL);
            k->leaves = arena_alloc(s->a, sizeof(ValueId) * (size_t)k->nleaf);
            sema_struct_leaves(b->v, k->leaves);
        } else {
            k->deferred = true;
        }
    }
    *out = c;
    return nc;
}

/* The yields of a loop body: each carried name's value at the end, in its type. */
static ValueId *loop_yields(Sema *s, Carried *c, int nc, int *ny, Span sp) {
    ValueId *y = arena_alloc(s->a, sizeof(ValueId) * (size_t)(carried_slots(c, nc) + 1));
    int n = 0;
    for (int i = 0; i < nc; i++) {
        Binding *b = scope_find(s, &s->fr->scope, c[i].name);
        Val v = b ? b->v : c[i].live;
        if (v.k == V_POISON) {
            c[i].poisoned = true;
            if (c[i].nleaf)
                n += sema_struct_leaves(c[i].live, y + n);
            else if (!c[i].deferred)
                y[n++] = c[i].init; /* any value of its type: the kernel fails anyway */
            continue;
        }
        if (c[i].nleaf) {
            const char *why = sema_struct_mismatch(s, c[i].live, v);
            if (why && !*why)
                sema_fail(s, sp, "loop-carried variable '%s' is %s but is re-assigned to %s in the loop", c[i].name,
                          sema_describe(s, c[i].live), sema_describe(s, v));
            if (why)
                sema_fail(s, sp, "loop-carried variable '%s' is %s, but in the loop %s", c[i].name,
                          sema_describe(s, c[i].live), why);
            n += sema_struct_leaves(v, y + n);
            continue;
        }
        if (c[i].deferred) {
            if (same_val(v, c[i].live))
                continue;
            if (sema_has_tensor(c[i].live) || sema_has_tensor(v))
                sema_fail(s, sp, "'%s' holds a tuple and is reassigned in the loop; loop-carried tuples are not "
                                 "supported (unpack it into names)", c[i].name);
            sema_fail(s, sp, "cannot reassign the compile-time value '%s' (%s) inside a loop", c[i].name,
                      sema_describe(s, c[i].live));
        }
        if (v.k == V_TENSOR) {
            if (!ir_type_eq(v.ty, c[i].t))
                sema_fail(s, sp,
                          "loop-carried variable '%s' has initial type %s but is re-assigned to %s in the loop; "
                          "make sure that the type stays consistent",
                          c[i].name, TS(c[i].t), TS(v.ty));
            y[n++] = v.id;
        } else if (sema_is_number(v)) {
            y[n++] = sema_const_of(s, v, c[i].t, sp);
        } else {
            sema_fail(s, sp, "loop-carried variable '%s' of type %s is re-assigned to %s in the loop", c[i].name,
                      TS(c[i].t), sema_describe(s, v));
        }
    }
    *ny = n;
    return y;
}

/* outs: each loop slot's value after the loop (the loop's results). */
static void rebind_after_loop(Sema *s, const ScopeMark *live, Carried *c, int nc, const ValueId *outs,
                              const char *target, Val *tgt_live) {
    scope_rollback(s, live);
    scope_release(s);
    for (int i = 0, r = 0; i < nc; i++) {
        if (c[i].nleaf) {
            bind(s, c[i].name, sema_struct_with(s, c[i].live, outs + r));
            r += c[i].nleaf;
        } else if (!c[i].deferred)
            bind(s, c[i].name, sema_tensor(s, outs[r++]));
        if (c[i].poisoned)
            bind(s, c[i].name, (Val){.k = V_POISON});
    }
    if (target) {
        if (tgt_live)
            bind(s, target, *tgt_live);
        else
            scope_remove(s, &s->fr->scope, target);
    }
}

/* A loop's body, in the current block, ended by the yield of the carried values. */
static void exec_loop_body(Sema *s, const Node *n, Carried *c, int nc) {
    s->fr->loop_nest++;
    sema_exec_block(s, &n->l0);
    s->fr->loop_nest--;
    int ny;
    ValueId *y = loop_yields(s, c, nc, &ny, n->span);
    sema_emit_inst(s, IR_YIELD, y, ny, NULL, 0, n->span);
}

/* Iterations from..count-1 of a static_range loop, each followed (for a
 * runtime `if` with a `return` inside) by the remaining ones and then k. */
static void unroll(Sema *s, const Node *n, int64_t lb, int64_t step, int64_t from, int64_t count, const Cont *k) {
    s->no_recover++; /* an error in one iteration would be one in each: it ends the whole loop */
    for (int64_t i = from; i < count && !s->fr->returned; i++) {
        bind(s, n->a->name, sema_int(lb + i * step));
        Cont c = {.loop = n, .next = i + 1, .count = count, .lb = lb, .step = step, .up = k};
        exec_seq(s, &n->l0, 0, &c);
    }
    s->no_recover--;
}


/* A for loop carries every runtime field of a block pointer or descriptor
 * (tl.advance changes only the offsets, but the body may rebuild it): the
 * fields the body yields unchanged are dropped from the loop again, their
 * uses inside and after it reading the initial value. outs[slot] is each
 * slot's value after the loop. */
static void prune_struct_slots(Sema *s, Inst *in, const Carried *c, int nc, ValueId *outs) {
    Block *body = in->regions[0];
    Inst *y = body->insts[body->ninsts - 1];
    for (int i = 0, slot = 0, kept = 0; i < nc; i++) {
        int k = c[i].deferred ? 0 : c[i].nleaf ? c[i].nleaf : 1;
        for (int j = 0; j < k; j++, slot++) {
            ValueId arg = body->args[1 + kept], init = in->args[3 + kept];
            if (!c[i].nleaf || y->args[kept] != arg) {
                outs[slot] = in->results[kept++];
                continue;
            }
            ir_replace_uses(body, arg, init);
            outs[slot] = init;
            int rest = in->nresults - kept - 1;
            memmove(&body->args[1 + kept], &body->args[2 + kept], sizeof(ValueId) * (size_t)rest);
            memmove(&in->args[3 + kept], &in->args[4 + kept], sizeof(ValueId) * (size_t)rest);
            memmove(&y->args[kept], &y->args[kept + 1], sizeof(ValueId) * (size_t)rest);
            memmove(&in->results[kept], &in->results[kept + 1], sizeof(ValueId) * (size_t)rest);
            body->nargs--, in->nargs--, y->nargs--, in->nresults--;
        }
    }
    (void)s;
}

/* tl.range's num_stages against the options table's range, the bound
 * --num-stages and triton.Config's num_stages also check (one owner): a value
 * the pipeliner cannot honour is an error at the argument, not dropped. */
static int range_stages(Sema *s, Val v, Span sp) {
    if (!sema_given(v))
        return 0;
    int64_t n = sema_need_int(s, v, sp, "num_stages");
    Buf why = {0};
    if (!options_check_int("num-stages", (long)n, &why)) {
        const char *msg = arena_strdup(s->a, why.data ? why.data : "");
        buf_free(&why);
        sema_fail(s, sp, "tl.range's num_stages %s", msg);
    }
    return (int)n;
}

static void exec_for(Sema *s, const Node *n, const Cont *k) {
    const Node *it = n->b, *target = n->a;
    if (n->l1.len)
        sema_fail(s, n->l1.items[0]->span, "'else' after a 'for' loop is not supported");
    if (target->kind != N_NAME)
        sema_fail(s, target->span, "the target of a 'for' loop must be a single name");
    Val callee = it->kind == N_CALL ? eval(s, it->a) : sema_none();
    bool is_static = sema_builtin_is(callee.bi, "static_range");
    if (callee.k != V_BUILTIN || (!is_static && !sema_builtin_is(callee.bi, "range")))
        sema_fail(s, it->span, "only 'range', 'tl.range' and 'tl.static_range' loops are supported");
    Args args = sema_eval_args(s, it);
    /* zeroed: Python's range binds 3 parameters, tl.range's options read below stay V_UNDEF */
    Val v[B_MAX_PARAMS] = {0};
    Span sp[B_MAX_PARAMS] = {0};
    sema_bind_args(s, callee.bi, &args, it->span, v, sp);
    Val lb = v[1].k == V_UNDEF ? sema_int(0) : v[0];
    Val ub = v[1].k == V_UNDEF ? v[0] : v[1];
    Val st = v[2].k == V_UNDEF || v[2].k == V_NONE ? sema_int(1) : v[2];
    Span lsp = v[1].k == V_UNDEF ? it->span : sp[0], usp = v[1].k == V_UNDEF ? sp[0] : sp[1], ssp = sp[2];
    if (is_static) {
        Val b3[3] = {lb, ub, st};
        Span s3[3] = {lsp, usp, ssp};
        for (int i = 0; i < 3; i++)
            if (b3[i].k != V_INT && b3[i].k != V_BOOL)
                sema_fail(s, s3[i], "static_range's bounds must be compile-time ints, got %s",
                          sema_describe(s, b3[i]));
        if (!st.i)
            sema_fail(s, ssp, "static_range() step must not be zero");
        __int128 span = st.i > 0 ? (__int128)ub.i - lb.i : (__int128)lb.i - ub.i;
        __int128 step = st.i > 0 ? (__int128)st.i : -(__int128)st.i;
        __int128 iters = span <= 0 ? 0 : (span + step - 1) / step;
        int64_t count = iters > SEMA_MAX_UNROLL ? SEMA_MAX_UNROLL + 1 : (int64_t)iters;
        if (count > SEMA_MAX_UNROLL)
            sema_fail(s, it->span, "static_range has more than %d iterations, too many to unroll", SEMA_MAX_UNROLL);
        unroll(s, n, lb.i, st.i, 0, count, k);
        return;
    }
    bool negative = false;
    if (st.k == V_INT || st.k == V_BOOL) {
        if (!st.i)
            sema_fail(s, ssp, "range() step must not be zero");
        if (st.i < 0) { /* scf.for needs a positive step: iterate upward and mirror */
            negative = true;
            st = sema_int(-st.i);
            Val t = lb;
            lb = ub;
            ub = t;
        }
    }
    ValueId l = sema_to_tensor(s, lb, lsp), u = sema_to_tensor(s, ub, usp), t = sema_to_tensor(s, st, ssp);
    Type tl_ = s->f->values[l].type, tu = s->f->values[u].type, tt = s->f->values[t].type;
    if (tl_.rank || tu.rank || tt.rank)
        sema_fail(s, it->span, "range bounds and step must be scalars, got %s, %s and %s", TS(tl_), TS(tu), TS(tt));
    if (!dt_is_int((DType)tl_.dtype) || !dt_is_int((DType)tu.dtype) || !dt_is_int((DType)tt.dtype))
        sema_fail(s, it->span, "for loop bounds and step must all be ints, got (%s, %s, %s)", TS(tl_), TS(tu), TS(tt));
    DType ivt = sema_int_promote(sema_int_promote((DType)tl_.dtype, (DType)tu.dtype), (DType)tt.dtype);
    l = sema_cast(s, l, ir_scalar(ivt), lsp);
    u = sema_cast(s, u, ir_scalar(ivt), usp);
    t = sema_cast(s, t, ir_scalar(ivt), ssp);

    Carried *c;
    int nc = loop_carried(s, &n->l0, target->name, &c, n->span);
    Binding *tb = scope_find(s, &s->fr->scope, target->name);
    Val tgt_live = tb ? tb->v : sema_none();
    ScopeMark live = scope_mark(s);
    Block *outer = s->blk, *body = ir_block_new(s->f);
    ValueId iv = ir_block_arg(s->f, body, ir_scalar(ivt));
    int slots = carried_slots(c, nc);
    ValueId *inits = arena_alloc(s->a, sizeof(ValueId) * (size_t)(slots + 4));
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)(slots + 1));
    int ni = 0;
    inits[ni++] = l;
    inits[ni++] = u;
    inits[ni++] = t;
    s->blk = body;
    ValueId ivv = iv;
    if (negative) {
        ValueId d = sema_emit(s, IR_SUB, ir_scalar(ivt), (ValueId[]){u, iv}, 2, it->span);
        ivv = sema_emit(s, IR_ADD, ir_scalar(ivt), (ValueId[]){d, l}, 2, it->span);
    }
    bind(s, target->name, sema_tensor(s, ivv));
    int nr = 0;
    for (int i = 0; i < nc; i++)
        if (!c[i].deferred)
            bind_carried(s, &c[i], body, inits + 3, rt, NULL, &nr);
    ni += nr;
    exec_loop_body(s, n, c, nc);
    s->blk = outer;
    Inst *in = sema_emit_inst(s, IR_FOR, inits, ni, rt, nr, n->span);
    ir_set_regions(in, body, NULL);
    carry_const(s, in, inits + 3);
    in->attr.num_stages = range_stages(s, v[3], sp[3]); /* tl.range(..., num_stages=N): this loop's pipelining */
    in->attr.flatten = (v[6].k == V_INT || v[6].k == V_BOOL) && v[6].i; /* tl.range(..., flatten=True) */
    if (v[7].k == V_INT || v[7].k == V_BOOL) /* tl.range(..., warp_specialize=...): pipeline.c */
        in->attr.warp_spec = v[7].i ? 1 : -1;
    in->attr.no_licm = sema_opt_bool(s, v[8], sp[8], false, "disable_licm"); /* LLVM's loop metadata (llvm.c) */
    ValueId *outs = arena_alloc(s->a, sizeof(ValueId) * (size_t)(nr + 1));
    memcpy(outs, in->results, sizeof(ValueId) * (size_t)nr);
    prune_struct_slots(s, in, c, nc, outs);
    rebind_after_loop(s, &live, c, nc, outs, target->name, tb ? &tgt_live : NULL);
}

/* A while loop's condition: the value, or tl.condition(value,
 * disable_licm=...)'s (Triton's while-loop analogue of tl.range's options). */
static Val while_condition(Sema *s, const Node *e, bool *no_licm) {
    Val callee = e->kind == N_CALL ? eval(s, e->a) : sema_none();
    if (callee.k != V_BUILTIN || !sema_builtin_is(callee.bi, "condition"))
        return eval(s, e);
    Args args = sema_eval_args(s, e);
    Val v[B_MAX_PARAMS] = {0};
    Span sp[B_MAX_PARAMS] = {0};
    sema_bind_args(s, callee.bi, &args, e->span, v, sp);
    *no_licm = sema_opt_bool(s, v[1], sp[1], false, "disable_licm");
    return v[0];
}

static void exec_while(Sema *s, const Node *n) {
    if (n->l1.len)
        sema_fail(s, n->l1.items[0]->span, "'else' after a 'while' loop is not supported");
    Carried *c;
    int nc = loop_carried(s, &n->l0, NULL, &c, n->span);
    ScopeMark live = scope_mark(s);
    Block *outer = s->blk, *before = ir_block_new(s->f), *after = ir_block_new(s->f);
    int slots = carried_slots(c, nc);
    ValueId *inits = arena_alloc(s->a, sizeof(ValueId) * (size_t)(slots + 1));
    ValueId *fwd = arena_alloc(s->a, sizeof(ValueId) * (size_t)(slots + 2));
    Type *rt = arena_alloc(s->a, sizeof(Type) * (size_t)(slots + 1));
    int nr = 0;
    for (int i = 0; i < nc; i++)
        if (!c[i].deferred)
            bind_carried(s, &c[i], before, inits, rt, fwd + 1, &nr);
    s->blk = before;
    bool no_licm = false;
    Val cv = while_condition(s, n->a, &no_licm);
    ValueId cond = cv.k == V_TENSOR ? scalar_cond(s, cv, n->a->span, "a 'while'")
                                    : sema_const_of(s, sema_bool(sema_truthy(s, cv, n->a->span)),
                                                    ir_scalar(DT_I1), n->a->span);
    fwd[0] = cond;
    sema_emit_inst(s, IR_CONDITION, fwd, nr + 1, NULL, 0, n->a->span);
    scope_rollback(s, &live);
    s->blk = after;
    for (int i = 0, na = 0; i < nc; i++)
        if (!c[i].deferred)
            bind_carried(s, &c[i], after, NULL, NULL, NULL, &na);
    exec_loop_body(s, n, c, nc);
    s->blk = outer;
    Inst *in = sema_emit_inst(s, IR_WHILE, inits, nr, rt, nr, n->span);
    ir_set_regions(in, before, after);
    in->attr.no_licm = no_licm;
    carry_const(s, in, inits);
    rebind_after_loop(s, &live, c, nc, in->results, NULL, NULL);
}

static void exec_return(Sema *s, const Node *n) {
    if (s->fr->loop_nest)
        sema_fail(s, n->span, "Cannot have `return` statements inside `while` or `for` statements in triton (a "
                              "runtime loop; 'return' may be in a runtime or compile-time 'if' or a static_range loop)");
    Val v = n->a ? eval(s, n->a) : sema_none();
    if (!s->fr->caller && v.k != V_NONE)
        sema_fail(s, n->span, "a kernel cannot return a value");
    s->fr->ret = v;
    s->fr->ret_span = n->span;
    s->fr->returned = true;
}

static void exec_assert(Sema *s, const Node *n) {
    Args a = {0};
    Val vals[2];
    Span sps[2] = {n->a->span, n->b ? n->b->span : n->span};
    vals[0] = eval(s, n->a);
    a.npos = 1;
    if (n->b) {
        vals[1] = eval(s, n->b);
        a.npos = 2;
    }
    a.pos = vals;
    a.pos_sp = sps;
    sema_call_builtin(s, sema_builtin_tl("device_assert"), &a, n->span);
}

/* `raise E(...)` reached while compiling (Triton's code generator visits only
 * the taken branch of a compile-time `if`, so a raise elsewhere is harmless):
 * the kernel cannot be compiled, and the error says what it raised. */
static void exec_raise(Sema *s, const Node *n) {
    const Node *e = n->a;
    const Node *callee = e && e->kind == N_CALL ? e->a : e;
    const char *cls = callee && callee->kind == N_NAME ? callee->name : NULL;
    const Node *msg = e && e->kind == N_CALL && e->l0.len ? e->l0.items[0] : NULL;
    if (cls && msg && msg->kind == N_STR)
        sema_fail(s, n->span, "the kernel raised %s: %s", cls, msg->name);
    if (cls)
        sema_fail(s, n->span, "the kernel raised %s", cls);
    sema_fail(s, n->span, "the kernel raised an exception");
}

/* n, with k what follows it in its function (for runtime_if_return). */
static void exec_stmt(Sema *s, const Node *n, const Cont *k) {
    enter(s, n->span);
    if (++s->work > SEMA_MAX_WORK)
        sema_fail(s, n->span, "the kernel is too large: more than %d statements executed while unrolling and "
                              "inlining (an unbounded static_range or recursion?)", SEMA_MAX_WORK);
    switch (n->kind) {
    case N_EXPR_STMT:
        if (n->a->kind == N_NAME)
            (void)lookup_name(s, n->a->name, n->a->span, true);
        else if (n->a->kind != N_STR) { /* docstrings */
            if (n->a->kind == N_CALL)
                sema_check_result_used(s, n->a);
            (void)eval(s, n->a);
        }
        break;
    case N_ASSIGN: {
        Val v = eval(s, n->a);
        for (int i = 0; i < n->l0.len; i++)
            assign(s, n->l0.items[i], v);
        break;
    }
    case N_ANNASSIGN: {
        if (!n->c)
            break; /* a bare annotation declares nothing */
        Val v = eval(s, n->c);
        if (sema_is_constexpr_annotation(n->b)) {
            if (sema_has_tensor(v))
                sema_fail(s, n->c->span,
                          "'%s' is annotated tl.constexpr but its value is not a compile-time constant (%s)",
                          n->a->kind == N_NAME ? n->a->name : "this", sema_describe(s, v));
            v.as_tensor = false; /* `v: tl.constexpr = 1` stays a Python number */
            if (n->a->kind == N_NAME) {
                bind(s, n->a->name, v);
                break;
            }
        }
        assign(s, n->a, v);
        break;
    }
    case N_AUGASSIGN: {
        if (n->a->kind != N_NAME)
            sema_fail(s, n->a->span, "augmented assignment is only supported to a name");
        Val cur = lookup(s, n->a->name, n->a->span);
        Val rhs = eval(s, n->b);
        bind(s, n->a->name, sema_number_as_tensor(s, sema_binop(s, n->op, cur, rhs, n->span), n->span));
        break;
    }
    case N_IF: exec_if(s, n, k); break;
    case N_FOR: exec_for(s, n, k); break;
    case N_WHILE: exec_while(s, n); break;
    case N_BREAK: sema_fail(s, n->span, "'break' is not supported in the kernel language");
    case N_CONTINUE: sema_fail(s, n->span, "'continue' is not supported in the kernel language");
    case N_RETURN: exec_return(s, n); break;
    case N_PASS: break;
    case N_ASSERT: exec_assert(s, n); break;
    case N_RAISE: exec_raise(s, n); break;
    case N_FUNCDEF: sema_fail(s, n->span, "nested function definitions are not supported in the kernel language");
    case N_IMPORT:
    case N_IMPORT_FROM: sema_fail(s, n->span, "import statements are not supported inside a kernel");
    default: sema_fail(s, n->span, "this statement is not supported in the kernel language");
    }
    leave(s);
}

/* ---- recovery ----
 *
 * Each statement of the kernel's own body (at any depth of runtime if / for
 * / while, and after a runtime `if` with a `return` inside) is a recovery
 * point: on an error, the state the statement may have changed is put back,
 * the names it assigns become V_POISON, and the next statement runs. Reading
 * a poisoned name skips that statement too, without a message: the one
 * error is reported, not what follows from it. The IR the failed statement
 * left behind is never used: a kernel with an error yields none.
 *
 * Not recovered: statements of inlined @jit helpers and of static_range
 * loops being unrolled (an error there ends the kernel statement around
 * them, as the same error would come again per call or per iteration), and
 * the quiet probes of choose_kernel. */

typedef struct Saved {
    int nest, depth, dup, no_recover, loop_nest;
    Block *blk;
    Frame *fr;
    Scope scope;
    bool returned;
    Val ret;
    Span ret_span;
} Saved;

static bool can_recover(Sema *s) { return s->recover && !s->quiet && !s->fr->caller && !s->no_recover; }

static void poison_targets(Sema *s, const Node *n) {
    Scope set = {0};
    Node *one[1] = {(Node *)n};
    NodeList l = {.items = one, .len = 1, .cap = 1};
    assigned_names(s, &l, &set);
    for (int i = 0; i < set.n; i++)
        sema_scope_set(s, &s->fr->scope, set.b[i].name, (Val){.k = V_POISON});
}

static void exec_stmt_recovering(Sema *s, const Node *n, const Cont *k) {
    if (!can_recover(s)) {
        exec_stmt(s, n, k);
        return;
    }
    Frame *fr = s->fr;
    /* The scope is saved as its struct (O(1)): names the statement adds lie
     * past sv.scope.n, values it replaces are in the undo log from mark on. */
    const Saved sv = {s->nest, s->depth, s->dup,    s->no_recover, fr->loop_nest, s->blk,
                      fr,      fr->scope, fr->returned, fr->ret,   fr->ret_span};
    const int mark = s->nundo, marks = s->recovering; /* marks a failure leaves open are closed here */
    jmp_buf jb, *outer = s->jb;
    s->jb = &jb;
    s->recovering++;
    if (!setjmp(jb)) {
        exec_stmt(s, n, k);
        s->jb = outer;
        if (--s->recovering == 0)
            s->nundo = 0; /* no recovery point left to take the writes back to */
        return;
    }
    s->jb = outer;
    s->recovering = marks;
    s->failed = true;
    if (s->d->too_many) /* --max-errors reached: stop */
        longjmp(*outer, 1);
    while (s->nundo > mark) {
        s->nundo--;
        s->undo[s->nundo].b->v = s->undo[s->nundo].old;
    }
    s->nest = sv.nest, s->depth = sv.depth, s->dup = sv.dup, s->no_recover = sv.no_recover;
    s->blk = sv.blk;
    s->fr = sv.fr;
    s->fr->loop_nest = sv.loop_nest;
    s->fr->scope = sv.scope;
    s->fr->returned = sv.returned, s->fr->ret = sv.ret, s->fr->ret_span = sv.ret_span;
    for (int i = 0; i < s->nglobals; i++) /* a global whose evaluation failed: evaluate it again when used */
        if (s->globals[i].state == 1)
            s->globals[i].state = 0;
    poison_targets(s, n);
}

/* l->items[from..]; up is what follows l in the function. */
static void exec_seq(Sema *s, const NodeList *l, int from, const Cont *up) {
    for (int i = from; i < l->len && !s->fr->returned; i++) {
        Cont k = {.l = l, .from = i + 1, .up = up};
        exec_stmt_recovering(s, l->items[i], &k);
    }
}

/* What follows a statement: the rest of the function from k on. */
static void run_cont(Sema *s, const Cont *k) {
    for (; k && !s->fr->returned; k = k->up) {
        if (k->loop)
            unroll(s, k->loop, k->lb, k->step, k->next, k->count, k->up);
        else
            exec_seq(s, k->l, k->from, k->up);
    }
}

/* A statement list by itself: a function body or the body of a runtime loop
 * or of a runtime `if` without a `return` inside. */
void sema_exec_block(Sema *s, const NodeList *l) { exec_seq(s, l, 0, NULL); }
