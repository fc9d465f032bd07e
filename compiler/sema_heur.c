/* sema_heur.c: @triton.heuristics({'NAME': lambda args: EXPR, ...}).
 *
 * As in Triton, each lambda is called with a dict of the kernel's arguments
 * and its result becomes the constexpr NAME; heuristics run in decorator
 * order, top to bottom and in dict order, after the parameters are bound (so
 * after the autotune config's values: the autotuner is the outer decorator),
 * and each sees the results of the ones before it. A lambda body is an
 * ordinary compile-time expression: sema's own evaluator folds it with
 * Python's rules (sema_eval_with), with `args` bound to a V_DICT whose
 * runtime parameters are markers that sema_heur_arg resolves when read:
 *   - a runtime scalar gives its value at the launch (the C API passes the
 *     values in SemaOptions.arg_values); each read is recorded, so the API
 *     knows which arguments decide the variant;
 *   - without a launch (tlc), -D NAME=VALUE gives it (the parameter stays
 *     a runtime one), else reading it is an error that says how to give it; while the API only describes the kernel (sema_kernel_info),
 *     the heuristic is left to be computed at each launch instead;
 *   - a pointer or a tensor descriptor is an error naming the argument.
 * When SemaOptions.heuristics carries a result (the API compiling a variant
 * whose heuristics it has already evaluated), it is used as it is. */
#include <stdio.h>
#include <string.h>

#include "sema_int.h"

/* The markers of the args dict: V_UNDEF items, i = their kind, i2 = index in
 * rt, s = "pointer" or "tensor descriptor" for MARK_POINTER. */
enum { MARK_RUNTIME = 1, MARK_POINTER, MARK_UNTYPED, MARK_LATER };

typedef struct HeurRun {
    int n;
    const char **names;
    const Node **lambdas; /* N_LAMBDA */
    Span *key_sp;
    int current;          /* the heuristic being evaluated */
    /* runtime parameters, by marker index */
    const char **rt_names;
    Val *rt_vals;         /* V_UNDEF: value unknown */
    Type *rt_types;
    int nrt;
    bool *read;           /* rt[i] was read */
    Val *results;         /* V_UNDEF: computed at each launch */
    jmp_buf later;        /* sema_kernel_info: a value known only at a launch was read */
    bool per_launch;
} HeurRun;

static bool is_heuristics(const Node *d) {
    if (d->kind != N_CALL)
        return false;
    const Node *c = d->a;
    return (c->kind == N_NAME || c->kind == N_ATTR) && c->name && !strcmp(c->name, "heuristics");
}

static const Node *find_param(const Node *fn, const char *name) {
    for (int i = 0; i < fn->l0.len; i++) {
        const Node *p = fn->l0.items[i];
        if (!p->op && p->name && !strcmp(p->name, name))
            return p;
    }
    return NULL;
}

static void add(Sema *s, HeurRun *h, const char *name, const Node *lam, Span sp) {
    const char **nn = arena_alloc(s->a, sizeof(char *) * (size_t)(h->n + 1));
    const Node **nl = arena_alloc(s->a, sizeof(Node *) * (size_t)(h->n + 1));
    Span *ns = arena_alloc(s->a, sizeof(Span) * (size_t)(h->n + 1));
    if (h->n) {
        memcpy(nn, h->names, sizeof(char *) * (size_t)h->n);
        memcpy(nl, h->lambdas, sizeof(Node *) * (size_t)h->n);
        memcpy(ns, h->key_sp, sizeof(Span) * (size_t)h->n);
    }
    nn[h->n] = name, nl[h->n] = lam, ns[h->n] = sp;
    h->names = nn, h->lambdas = nl, h->key_sp = ns;
    h->n++;
}

void sema_heur_collect(Sema *s, const Node *fn) {
    s->heur = NULL;
    HeurRun *h = NULL;
    const Node *meta = NULL;
    for (int i = 0; i < fn->l0.len; i++)
        if (fn->l0.items[i]->op == OP_POW)
            meta = fn->l0.items[i];
    for (int i = 0; i < fn->l2.len; i++) {
        const Node *d = fn->l2.items[i], *dict = NULL;
        if (!is_heuristics(d))
            continue;
        for (int j = 0; j < d->l0.len; j++) {
            const Node *a = d->l0.items[j];
            if (j == 0 && a->kind != N_KWARG)
                dict = a;
            else if (a->kind == N_KWARG && a->name && !strcmp(a->name, "values") && !dict)
                dict = a->a;
            else
                sema_fail(s, a->span, "@triton.heuristics takes one argument, the dict of heuristics");
        }
        if (!dict)
            sema_fail(s, d->span, "@triton.heuristics needs a dict of heuristics: "
                                  "@triton.heuristics({'NAME': lambda args: ...})");
        if (dict->kind != N_DICT)
            sema_fail(s, dict->span, "@triton.heuristics takes a dict literal {'NAME': lambda args: ...}");
        if (!h) {
            h = arena_alloc(s->a, sizeof *h);
            memset(h, 0, sizeof *h);
        }
        for (int j = 0; j < dict->l0.len; j++) {
            const Node *kn = dict->l0.items[j], *v = j < dict->l1.len ? dict->l1.items[j] : NULL;
            if (!kn || !v)
                sema_fail(s, dict->span, "'**' in the dict of @triton.heuristics is not supported");
            Val k = sema_eval_in_module(s, kn);
            sema_need_str(s, k, kn->span, "a heuristic's name");
            if (v->kind != N_LAMBDA)
                sema_fail(s, v->span, "heuristic '%s' must be a lambda over the kernel's arguments "
                                      "(lambda args: ...)", k.s);
            if (v->l0.len != 1 || v->l0.items[0]->op || v->l0.items[0]->b)
                sema_fail(s, v->span, "heuristic '%s' must be a lambda of one parameter, the dict of the kernel's "
                                      "arguments (lambda args: ...); this one has %d", k.s, v->l0.len);
            const Node *p = find_param(fn, k.s);
            if (p && !sema_is_constexpr_annotation(p->a))
                sema_fail(s, kn->span, "heuristic '%s' sets parameter '%s' of kernel '%s', which is not a "
                                       "tl.constexpr: annotate it '%s: tl.constexpr'", k.s, k.s, fn->name, k.s);
            if (!p && !meta) {
                Suggest sg;
                suggest_init(&sg, k.s);
                for (int q = 0; q < fn->l0.len; q++)
                    suggest_add(&sg, fn->l0.items[q]->name);
                sema_fail(s, kn->span, "heuristic '%s' sets no parameter of kernel '%s'%s", k.s, fn->name,
                          sema_did_you_mean(s, &sg));
            }
            add(s, h, k.s, v, kn->span);
        }
    }
    s->heur = h;
}

bool sema_heur_sets(Sema *s, const char *name) {
    for (int i = 0; s->heur && i < s->heur->n; i++)
        if (!strcmp(s->heur->names[i], name))
            return true;
    return false;
}

int sema_heur_count(Sema *s) { return s->heur ? s->heur->n : 0; }

static const char *define_value(const SemaDefine *d, int n, const char *name) {
    const char *v = NULL;
    for (int i = 0; i < n; i++)
        if (d[i].name && !strcmp(d[i].name, name))
            v = d[i].value;
    return v;
}

/* Append name -> v to the dict d (its arrays have room). */
static void dict_put(Val *d, const char *name, Val v) {
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->keys[i], name)) {
            d->items[i] = v;
            return;
        }
    d->keys[d->n] = name;
    d->items[d->n++] = v;
}

/* The args dict: every named parameter (runtime ones as markers), then the
 * **meta values; heuristics add their results as they run. */
static Val build_args(Sema *s, HeurRun *h, const Node *fn, const Node *meta) {
    Val *mv = meta ? sema_scope_get(s, &s->fr->scope, meta->name) : NULL;
    int cap = fn->l0.len + h->n + (mv && mv->k == V_DICT ? mv->n : 0) + 1;
    Val d = {.k = V_DICT, .i = SEMA_DICT_ARGS};
    d.keys = arena_alloc(s->a, sizeof(char *) * (size_t)cap);
    d.items = arena_alloc(s->a, sizeof(Val) * (size_t)cap);
    h->rt_names = arena_alloc(s->a, sizeof(char *) * (size_t)cap);
    h->rt_vals = arena_alloc(s->a, sizeof(Val) * (size_t)cap);
    h->rt_types = arena_alloc(s->a, sizeof(Type) * (size_t)cap);
    h->read = arena_alloc(s->a, sizeof(bool) * (size_t)cap);
    for (int i = 0; i < fn->l0.len; i++) {
        const Node *p = fn->l0.items[i];
        if (p->op || sema_heur_sets(s, p->name))
            continue;
        Val *b = sema_scope_get(s, &s->fr->scope, p->name);
        bool one = false; /* a runtime integer specialised as 1 (":1"): still read as an argument */
        for (int j = 0; s->f && j < s->f->nparams; j++)
            one |= s->f->params[j].equal_to_1 && !strcmp(s->f->params[j].name, p->name);
        if (b && !one && b->k != V_TENSOR && !sema_is_struct(*b) && b->k != V_POISON) {
            dict_put(&d, p->name, *b); /* a constexpr, or a value the signature or -D gives */
            continue;
        }
        int r = h->nrt++;
        h->rt_names[r] = p->name;
        h->rt_vals[r] = (Val){.k = V_UNDEF};
        h->rt_types[r] = b && b->k == V_TENSOR ? b->ty : ir_scalar(DT_VOID);
        h->read[r] = false;
        int kind = one ? MARK_RUNTIME : !b ? MARK_UNTYPED : b->k != V_TENSOR || b->ty.dtype == DT_PTR ? MARK_POINTER
                                                                                                : MARK_RUNTIME;
        const char *what = b && b->k != V_TENSOR ? "tensor descriptor" : "pointer";
        /* the launch's value (a -D makes the parameter a constant, read above) */
        const char *text = define_value(s->opt->arg_values, s->opt->narg_values, p->name);
        Val v;
        if (one)
            h->rt_vals[r] = *b;
        else if (kind == MARK_RUNTIME && text && sema_parse_literal(s, text, &v) && sema_is_number(v))
            h->rt_vals[r] = v;
        dict_put(&d, p->name, (Val){.k = V_UNDEF, .i = kind, .i2 = r, .s = what});
    }
    for (int i = 0; mv && mv->k == V_DICT && i < mv->n; i++)
        dict_put(&d, mv->keys[i], mv->items[i]);
    return d;
}

Val sema_heur_arg(Sema *s, Val args, int k, Span sp) {
    Val it = args.items[k];
    HeurRun *h = s->heur;
    if (it.k != V_UNDEF || !h)
        return it;
    const char *who = h->names[h->current], *name = args.keys[k];
    if (it.i == MARK_LATER) /* a heuristic computed at each launch: so is this one */
        longjmp(h->later, 1);
    if (it.i == MARK_POINTER)
        sema_fail(s, sp, "heuristic '%s' reads '%s', a %s argument: heuristics can read constexprs and the values "
                         "of integer, float and bool arguments",
                  who, name, it.s);
    int r = (int)it.i2;
    h->read[r] = true;
    if (h->rt_vals[r].k != V_UNDEF)
        return h->rt_vals[r];
    if (s->info) /* described before any launch: this heuristic is the launch's to compute */
        longjmp(h->later, 1);
    const char *ty = sema_type_str(s, h->rt_types[r]);
    sema_fail(s, sp, "heuristic '%s' reads runtime parameter '%s', whose value is known only at a launch: to compile "
                     "here, give it in the signature (a value such as 1024 in place of its type '%s') or with -D %s=VALUE",
              who, name, ty, name);
}

_Noreturn void sema_heur_missing(Sema *s, Val args, const char *name, Span sp) {
    HeurRun *h = s->heur;
    const char *who = h ? h->names[h->current] : "?";
    for (int i = 0; h && i < h->n; i++)
        if (!strcmp(h->names[i], name))
            sema_fail(s, sp, "heuristic '%s' reads '%s', which a later heuristic sets (heuristics run in order, "
                             "each seeing the ones before it)", who, name);
    Suggest sg;
    suggest_init(&sg, name);
    for (int i = 0; i < args.n; i++)
        suggest_add(&sg, args.keys[i]);
    const Node *fn = s->fr && s->fr->fn ? s->fr->fn : NULL;
    sema_fail(s, sp, "heuristic '%s' reads args['%s'], but kernel '%s' has no such argument%s", who, name,
              fn ? fn->name : "?", sema_did_you_mean(s, &sg));
}

/* Evaluate heuristic i over args; false if it must wait for a launch. */
static bool evaluate(Sema *s, HeurRun *h, int i, Val args, Val *out) {
    const Node *lam = h->lambdas[i];
    h->current = i;
    /* the state a longjmp out of the evaluator skips restoring */
    Frame *fr = s->fr;
    Block *blk = s->blk;
    int nest = s->nest, depth = s->depth;
    if (setjmp(h->later)) {
        s->fr = fr, s->blk = blk, s->nest = nest, s->depth = depth;
        return false;
    }
    Val v = sema_eval_with(s, lam->a, lam->l0.items[0]->name, args);
    if (sema_has_tensor(v) || v.k == V_UNDEF)
        sema_fail(s, lam->a->span, "heuristic '%s' must give a compile-time value, got %s", h->names[i],
                  sema_describe(s, v));
    *out = v;
    return true;
}

void sema_heur_run(Sema *s, const Node *fn, const Node *meta) {
    HeurRun *h = s->heur;
    if (!h)
        return;
    h->results = arena_alloc(s->a, sizeof(Val) * (size_t)h->n);
    Val args = build_args(s, h, fn, meta);
    Val *mv = meta ? sema_scope_get(s, &s->fr->scope, meta->name) : NULL;
    for (int i = 0; i < h->n; i++) {
        const char *name = h->names[i], *given = define_value(s->opt->heuristics, s->opt->nheuristics, name);
        Val v;
        if (given) {
            if (!sema_parse_literal(s, given, &v))
                sema_fail(s, h->key_sp[i], "bad value '%s' given for heuristic '%s'", given, name);
        } else if (!evaluate(s, h, i, args, &v)) {
            h->per_launch = true;
            v = (Val){.k = V_UNDEF, .i = MARK_LATER};
        }
        h->results[i] = v;
        dict_put(&args, name, v);
        bool known = v.k != V_UNDEF;
        if (find_param(fn, name)) {
            if (known)
                sema_scope_set(s, &s->fr->scope, name, v);
        } else if (mv && mv->k == V_DICT && known) { /* **meta takes it (its arrays are the arena's: grow) */
            Val d = *mv;
            d.keys = arena_alloc(s->a, sizeof(char *) * (size_t)(mv->n + 1));
            d.items = arena_alloc(s->a, sizeof(Val) * (size_t)(mv->n + 1));
            memcpy(d.keys, mv->keys, sizeof(char *) * (size_t)mv->n);
            memcpy(d.items, mv->items, sizeof(Val) * (size_t)mv->n);
            dict_put(&d, name, v);
            *mv = d;
        }
        if (!s->info)
            continue;
        /* the kernel's constants: the value, or NULL until a launch decides it */
        const char *text = NULL;
        if (known) {
            Buf b = {0};
            sema_repr(&b, v);
            text = arena_strdup(s->a, b.data ? b.data : "");
            buf_free(&b);
        }
        bool found = false;
        for (int j = 0; j < s->info->nparams; j++)
            if (!s->info->params[j].runtime && !strcmp(s->info->params[j].name, name)) {
                s->info->params[j].value = text;
                found = true;
            }
        if (!found)
            s->info->params[s->info->nparams++] = (KernelParam){.name = name, .constexpr_ = true, .value = text};
    }
    if (s->info) {
        s->info->heur_names = h->names;
        s->info->nheur = h->n;
        s->info->heur_per_launch = h->per_launch;
    }
}

void sema_heur_results(Sema *s, Buf *results, const char ***reads, int *nreads) {
    HeurRun *h = s->heur;
    *reads = NULL;
    *nreads = 0;
    if (!h || !h->results)
        return;
    for (int i = 0; i < h->n; i++) {
        buf_printf(results, "%s=", h->names[i]);
        sema_repr(results, h->results[i]);
        buf_putc(results, '\n');
    }
    *reads = arena_alloc(s->a, sizeof(char *) * (size_t)(h->nrt + 1));
    for (int i = 0; i < h->nrt; i++)
        if (h->read[i])
            (*reads)[(*nreads)++] = h->rt_names[i];
}
