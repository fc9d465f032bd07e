/* heuristics.c: @triton.heuristics whose lambdas read runtime scalar
 * arguments, decided at each launch (compiler/sema_heur.c evaluates them).
 *
 * sema_kernel_info tells whether a kernel has such heuristics
 * (info.heur_per_launch). For those, every launch needs the heuristics'
 * results for its argument values: they choose the variant (its key is the
 * launch signature followed by the results) and they are the kernel's
 * constants that grid expressions, grid callbacks and tl_kernel_constant
 * read. Evaluating them runs sema's specialisation of the kernel (no body),
 * so the results are memoised: each memo entry holds the runtime arguments
 * the lambdas read on that evaluation and their values; a launch whose
 * values of those arguments are the same has the same results (the lambdas
 * are pure, and the constexprs are fixed per kernel), which costs a few
 * compares. The list keeps the most recently used first and at most
 * HEUR_MEMO entries. Kernels without such heuristics never come here. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"

enum { HEUR_MEMO = 64 };

typedef struct HeurMemo {
    int nread;
    int *idx;           /* runtime parameters read (indices into k->rt) */
    TlArg *vals;        /* ... and their values then */
    char *results;      /* "NAME=VALUE\n" per heuristic, in order */
    SemaDefine *defs;   /* the same split (pointing into text) */
    char *text;
    int ndefs;
    struct HeurMemo *next;
} HeurMemo;

static void memo_free(HeurMemo *m) {
    free(m->idx);
    free(m->vals);
    free(m->results);
    free(m->defs);
    free(m->text);
    free(m);
}

void heur_free(TlKernel *k) {
    for (HeurMemo *m = k->heur_memo, *next; m; m = next) {
        next = m->next;
        memo_free(m);
    }
    k->heur_memo = k->heur_cur = k->heur_last = NULL;
}

static bool same_value(const TlArg *a, const TlArg *b) {
    if (a->kind != b->kind || a->dtype != b->dtype)
        return false;
    return a->kind == TL_ARG_INT ? a->v.i == b->v.i : !memcmp(&a->v.f, &b->v.f, sizeof(double));
}

/* A scalar's value as a Python literal. */
static void put_value(Buf *b, const TlArg *a) {
    if (a->kind == TL_ARG_FLOAT)
        buf_put_double(b, a->v.f);
    else if (a->dtype == TL_I1)
        buf_puts(b, a->v.i ? "True" : "False");
    else if (a->dtype == TL_U64)
        buf_printf(b, "%llu", (unsigned long long)a->v.i);
    else
        buf_printf(b, "%lld", (long long)a->v.i);
}

/* The signature part of a variant key. */
static void signature(TlKernel *k, const TlArg *args, int nargs, Buf *sig) {
    if (k->opts.signature)
        buf_puts(sig, k->opts.signature);
    else
        kernel_launch_signature(args, nargs, sig);
}

/* Evaluate the heuristics for args into a new memo entry (NULL on error,
 * with ctx's error set and *st its status). */
static HeurMemo *evaluate(TlKernel *k, const TlArg *args, int nargs, TlStatus *st) {
    Arena a = {0};
    Buf sig = {0}, vals = {0}, results = {0};
    SemaDefine *defs = arena_alloc(&a, sizeof(SemaDefine) * (size_t)(nargs + 1));
    int ndefs = 0;
    for (int i = 0; i < nargs; i++) {
        if (args[i].kind != TL_ARG_INT && args[i].kind != TL_ARG_FLOAT)
            continue;
        vals.len = 0;
        put_value(&vals, &args[i]);
        defs[ndefs++] = (SemaDefine){k->rt[i]->name, arena_strdup(&a, vals.data)};
    }
    signature(k, args, nargs, &sig);
    CompileOptions o = k->opts;
    o.signature = sig.data;
    o.arg_values = defs;
    o.narg_values = ndefs;
    o.heuristics = NULL;
    o.nheuristics = 0;
    Diag d = {.max_errors = o.max_errors, .library = true};
    const char **reads;
    int nreads;
    HeurMemo *m = NULL;
    if (!compile_heuristic_values(&a, &d, &k->src, k->module, &o, &results, &reads, &nreads)) {
        *st = fail(k->ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s",
                   d.out.data ? d.out.data : "the heuristics failed");
        if (d.out.data)
            buf_puts(&k->log, d.out.data);
        goto out;
    }
    m = calloc(1, sizeof *m);
    if (!m || !(m->idx = calloc((size_t)nreads + 1, sizeof *m->idx)) ||
        !(m->vals = calloc((size_t)nreads + 1, sizeof *m->vals)) || !(m->results = strdup(results.data)) ||
        !(m->text = strdup(results.data)) || !(m->defs = calloc((size_t)k->info.nheur + 1, sizeof *m->defs))) {
        if (m)
            memo_free(m);
        m = NULL;
        *st = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    for (int r = 0; r < nreads; r++)
        for (int i = 0; i < nargs; i++)
            if (!strcmp(k->rt[i]->name, reads[r])) {
                m->idx[m->nread] = i;
                m->vals[m->nread++] = args[i];
            }
    /* "NAME=VALUE\n" lines: VALUE is a repr(), which never holds a newline */
    for (char *p = m->text, *nl; *p && m->ndefs < k->info.nheur; p = nl + 1) {
        nl = strchr(p, '\n');
        char *eq = strchr(p, '=');
        if (!nl || !eq || eq > nl)
            break;
        *eq = *nl = 0;
        m->defs[m->ndefs++] = (SemaDefine){p, eq + 1};
    }
out:
    buf_free(&sig);
    buf_free(&vals);
    buf_free(&results);
    buf_free(&d.out);
    arena_free(&a);
    return m;
}

/* The heuristics' values become k's constants (grid expressions and
 * callbacks, tl_kernel_constant). */
static void publish(TlKernel *k, const HeurMemo *m) {
    for (int j = 0; j < m->ndefs; j++)
        for (int i = 0; i < k->info.nparams; i++)
            if (!k->info.params[i].runtime && !strcmp(k->info.params[i].name, m->defs[j].name))
                k->info.params[i].value = m->defs[j].value;
}

TlStatus heur_eval(TlKernel *k, const TlArg *args, int nargs) {
    HeurMemo *prev = NULL, *m = k->heur_memo;
    int n = 0;
    for (; m; prev = m, m = m->next, n++) {
        bool hit = true;
        for (int j = 0; hit && j < m->nread; j++)
            hit = same_value(&args[m->idx[j]], &m->vals[j]);
        if (hit)
            break;
    }
    if (m && prev) { /* to the front */
        prev->next = m->next;
        m->next = k->heur_memo;
        k->heur_memo = m;
    }
    if (!m) {
        TlStatus st = TL_ERROR_INTERNAL;
        if (!(m = evaluate(k, args, nargs, &st)))
            return st;
        if (n >= HEUR_MEMO) { /* drop the least recently used */
            HeurMemo **pp = &k->heur_memo;
            while ((*pp)->next)
                pp = &(*pp)->next;
            if (*pp == k->heur_last)
                k->heur_last = NULL;
            memo_free(*pp);
            *pp = NULL;
        }
        m->next = k->heur_memo;
        k->heur_memo = m;
    }
    if (k->heur_cur != m)
        publish(k, m);
    k->heur_cur = m;
    return TL_SUCCESS;
}

void heur_variant_key(TlKernel *k, const TlArg *args, int nargs, Buf *key) {
    signature(k, args, nargs, key);
    if (k->info.heur_per_launch && k->heur_cur)
        buf_printf(key, "\n%s", k->heur_cur->results);
}

const char *heur_split_key(Arena *a, const char *key, CompileOptions *o) {
    const char *nl = strchr(key, '\n');
    if (!nl)
        return key;
    int n = 0;
    for (const char *p = nl; *p; p++)
        n += *p == '\n';
    SemaDefine *defs = arena_alloc(a, sizeof(SemaDefine) * (size_t)(n + 1));
    int nd = 0;
    for (const char *p = nl + 1; *p;) {
        const char *e = strchr(p, '\n'), *eq = strchr(p, '=');
        if (!e)
            e = p + strlen(p);
        if ((size_t)(e - p) == strlen(API_NO_AUTO_TMA) && !strncmp(p, API_NO_AUTO_TMA, (size_t)(e - p)))
            o->auto_tma = 0;
        else if (eq && eq < e)
            defs[nd++] = (SemaDefine){arena_strndup(a, p, (size_t)(eq - p)), arena_strndup(a, eq + 1,
                                                                                         (size_t)(e - eq - 1))};
        p = *e ? e + 1 : e;
    }
    o->heuristics = defs;
    o->nheuristics = nd;
    return arena_strndup(a, key, (size_t)(nl - key));
}
