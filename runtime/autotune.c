/* autotune.c: grids that depend on the config, and @triton.autotune at
 * launch (tl.h explains the user's side).
 *
 * A tuned kernel (kernel_create: an autotune decorator and no
 * --autotune-config) holds one kernel per config. A launch checks its
 * arguments against the parent, computes the tuning key (the launch
 * signature, so the argument types and their :16 / :1 specialisation, plus
 * the values of the decorator's `key` arguments) and looks the key up:
 *   1. in the kernel's own list of choices;
 *   2. in the disk cache (the choice persists per source, options, device and
 *      key, like the cubins);
 *   3. else it tunes (after tl_kernel_set_prune's callback, if any, chose
 *      the configs to keep: the others are neither compiled nor timed, and
 *      the cache key of the choice names those kept): every config's
 *      variant is compiled, several at a time
 *      (the compiler has no shared state: each compilation has its own arena
 *      and LLVM context), then each is timed on the real arguments with CUDA
 *      events and the median kept (Triton's do_bench budget, warmup / rep
 *      milliseconds, caps the runs; see time_config). reset_to_zero buffers are zeroed
 *      before every run and restore_value buffers copied back after each
 *      config, so the launch that follows sees the caller's data. A config
 *      that fails to compile or to launch (too much shared memory, say) is
 *      skipped, as Triton prunes it.
 * The chosen config's kernel then runs with the grid evaluated for it (its
 * @triton.heuristics read at launch evaluated first: heuristics.c). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api_int.h"
#include "cache.h"

typedef struct TuneChoice {
    char *key;
    int config;
    struct TuneChoice *next;
} TuneChoice;

void tune_free(TlKernel *k) {
    for (TuneChoice *c = k->choices, *next; c; c = next) {
        next = c->next;
        free(c->key);
        free(c);
    }
    k->choices = NULL;
}

/* ---- grid expressions ----
 * grid   := expr (',' expr){0,2}
 * expr   := term (('+' | '-') term)*
 * term   := unary (('*' | '//' | '/' | '%') unary)*
 * unary  := '-' unary | atom
 * atom   := INT | NAME | NAME '(' expr ',' expr ')' | '(' expr ')'
 * Names: the runtime integer arguments by parameter name, the config's
 * integer constants, num_warps, num_stages. Division floors, as Python's.
 * The evaluator is total: a result outside int64 (Python's integers would
 * not wrap, and a wrapped product could launch a grid of 1), division by
 * zero and nesting deeper than GRID_MAX_DEPTH are errors, never a signal or
 * a stack overflow. */
enum { GRID_MAX_DEPTH = 64 };
typedef struct GridParser {
    const char *p, *src;
    const TlKernel *cfg;
    const TlArg *args;
    Buf *err;
    int depth;          /* unary operators and parentheses open */
} GridParser;

static void gp_space(GridParser *g) {
    while (*g->p == ' ' || *g->p == '\t')
        g->p++;
}

/* "grid 'EXPR': " with a long expression cut short (300k parentheses make
 * no readable message). */
static void gp_prefix(Buf *err, const char *src) {
    size_t n = strlen(src);
    buf_printf(err, "grid '%.*s%s': ", n > 80 ? 77 : (int)n, src, n > 80 ? "..." : "");
}

static bool gp_fail(GridParser *g, const char *what) {
    if (!g->err->len) {
        gp_prefix(g->err, g->src);
        buf_printf(g->err, "%s at column %d", what, (int)(g->p - g->src) + 1);
    }
    return false;
}

static bool gp_expr(GridParser *g, int64_t *v);

static bool gp_name(GridParser *g, const char *name, int64_t *v) {
    const TlKernel *c = g->cfg;
    for (int i = 0; i < c->info.nruntime; i++)
        if (!strcmp(c->rt[i]->name, name)) {
            if (g->args[i].kind != TL_ARG_INT)
                return gp_fail(g, "a grid can only use integer parameters");
            *v = g->args[i].v.i;
            return true;
        }
    if (!strcmp(name, "num_warps") || !strcmp(name, "num_stages")) {
        *v = name[4] == 'w' ? c->info.num_warps : c->info.num_stages;
        return true;
    }
    for (int i = 0; i < c->info.nparams; i++) {
        const KernelParam *p = &c->info.params[i];
        if (p->runtime || strcmp(p->name, name))
            continue;
        char *end;
        if (!p->value)
            return gp_fail(g, "a heuristic's value is not known before the launch");
        long long x = strtoll(p->value, &end, 10);
        if (end == p->value || *end)
            return gp_fail(g, "a grid can only use integer constants");
        *v = x;
        return true;
    }
    gp_prefix(g->err, g->src);
    buf_printf(g->err, "unknown name '%s' (not a parameter, a constant of the config, num_warps or num_stages)", name);
    return false;
}

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* a op b as Python computes it, false when the result leaves int64
 * (INT64_MIN // -1 included) or b is zero for '/' and '%'. */
static bool gp_arith(GridParser *g, char op, int64_t a, int64_t b, int64_t *v) {
    bool over = false;
    switch (op) {
    case '+': over = __builtin_add_overflow(a, b, v); break;
    case '-': over = __builtin_sub_overflow(a, b, v); break;
    case '*': over = __builtin_mul_overflow(a, b, v); break;
    default:
        if (b == 0)
            return gp_fail(g, op == '/' ? "division by zero" : "modulo by zero");
        if (b == -1) /* a // -1 is -a (INT64_MIN's overflows); a % -1 is 0 */
            return op == '%' ? (*v = 0, true) : gp_arith(g, '-', 0, a, v);
        *v = op == '/' ? floordiv(a, b) : a - floordiv(a, b) * b;
        return true;
    }
    if (over) {
        char what[64];
        snprintf(what, sizeof what, "integer overflow in '%c'", op);
        return gp_fail(g, what);
    }
    return true;
}

static bool gp_atom(GridParser *g, int64_t *v) {
    gp_space(g);
    if (*g->p == '(') {
        g->p++;
        if (!gp_expr(g, v))
            return false;
        gp_space(g);
        if (*g->p != ')')
            return gp_fail(g, "expected ')'");
        g->p++;
        return true;
    }
    if (*g->p >= '0' && *g->p <= '9') {
        char *end;
        errno = 0;
        *v = strtoll(g->p, &end, 10);
        if (errno == ERANGE)
            return gp_fail(g, "integer literal out of range");
        g->p = end;
        return true;
    }
    const char *start = g->p;
    while (*g->p == '_' || ((*g->p | 32) >= 'a' && (*g->p | 32) <= 'z') ||
           (g->p > start && ((*g->p >= '0' && *g->p <= '9') || *g->p == '.')))
        g->p++;
    if (g->p == start)
        return gp_fail(g, "expected a number, a name or '('");
    char name[128];
    if (g->p - start >= (ptrdiff_t)sizeof name) /* no parameter has such a name: say so, not a truncated one */
        return gp_fail(g, "name too long");
    snprintf(name, sizeof name, "%.*s", (int)(g->p - start), start);
    gp_space(g);
    if (*g->p != '(')
        return gp_name(g, name, v);
    bool cdiv = !strcmp(name, "cdiv") || !strcmp(name, "triton.cdiv");
    if (!cdiv && strcmp(name, "min") && strcmp(name, "max"))
        return gp_fail(g, "unknown function (cdiv, min and max are known)");
    int64_t a, b;
    g->p++;
    if (!gp_expr(g, &a))
        return false;
    gp_space(g);
    if (*g->p != ',')
        return gp_fail(g, "expected ','");
    g->p++;
    if (!gp_expr(g, &b))
        return false;
    gp_space(g);
    if (*g->p != ')')
        return gp_fail(g, "expected ')'");
    g->p++;
    if (cdiv && b == 0)
        return gp_fail(g, "cdiv by zero");
    if (cdiv) /* Triton's cdiv(a, b) = (a + b - 1) // b */
        return gp_arith(g, '+', a, b, v) && gp_arith(g, '-', *v, 1, v) && gp_arith(g, '/', *v, b, v);
    *v = name[1] == 'i' ? (a < b ? a : b) : (a > b ? a : b);
    return true;
}

/* Every nesting (a '(', a call, a unary '-') passes here, so the depth
 * limit bounds the recursion. */
static bool gp_unary(GridParser *g, int64_t *v) {
    gp_space(g);
    if (++g->depth > GRID_MAX_DEPTH) {
        char what[64];
        snprintf(what, sizeof what, "nested more than %d deep", GRID_MAX_DEPTH);
        return gp_fail(g, what);
    }
    bool ok;
    if (*g->p == '-') {
        g->p++;
        ok = gp_unary(g, v) && gp_arith(g, '-', 0, *v, v);
    } else {
        ok = gp_atom(g, v);
    }
    g->depth--;
    return ok;
}

static bool gp_term(GridParser *g, int64_t *v) {
    if (!gp_unary(g, v))
        return false;
    for (;;) {
        gp_space(g);
        char op = *g->p;
        if (op != '*' && op != '/' && op != '%')
            return true;
        g->p += op == '/' && g->p[1] == '/' ? 2 : 1;
        int64_t r;
        if (!gp_unary(g, &r) || !gp_arith(g, op, *v, r, v))
            return false;
    }
}

static bool gp_expr(GridParser *g, int64_t *v) {
    if (!gp_term(g, v))
        return false;
    for (;;) {
        gp_space(g);
        char op = *g->p;
        if (op != '+' && op != '-')
            return true;
        g->p++;
        int64_t r;
        if (!gp_term(g, &r) || !gp_arith(g, op, *v, r, v))
            return false;
    }
}

/* The grid of a launch of config cfg (the kernel itself when not tuned) on
 * checked arguments args. */
static TlStatus eval_grid(TlKernel *k, const TlKernel *cfg, const GridSpec *gs, const TlArg *args, int nargs,
                          unsigned grid[3]) {
    grid[0] = grid[1] = grid[2] = 1;
    if (gs->fixed) {
        memcpy(grid, gs->fixed, sizeof(unsigned) * 3);
        return TL_SUCCESS;
    }
    if (gs->fn) {
        TlStatus s = gs->fn(gs->user, cfg, args, nargs, grid);
        if (s != TL_SUCCESS && !tl_last_error(k->ctx)[0])
            fail(k->ctx, s, "%s: the grid callback returned %s", k->name, tl_status_name(s));
        return s;
    }
    Buf err = {0};
    GridParser g = {.p = gs->expr, .src = gs->expr, .cfg = cfg, .args = args, .err = &err};
    TlStatus s = TL_SUCCESS;
    for (int d = 0; d < 3; d++) {
        int64_t v;
        if (!gp_expr(&g, &v)) {
            s = TL_ERROR_INVALID_ARGUMENT;
            break;
        }
        if (v < 0 || v > 0xffffffffLL) {
            gp_prefix(&err, gs->expr);
            buf_printf(&err, "dimension %d is %lld", d, (long long)v);
            s = TL_ERROR_LAUNCH;
            break;
        }
        grid[d] = (unsigned)v;
        gp_space(&g);
        if (!*g.p)
            break;
        if (*g.p != ',' || d == 2) {
            gp_fail(&g, d == 2 ? "a grid has at most 3 dimensions" : "expected ',' or the end");
            s = TL_ERROR_INVALID_ARGUMENT;
            break;
        }
        g.p++;
    }
    if (s != TL_SUCCESS)
        fail(k->ctx, s, "%s: %s", k->name, err.data ? err.data : "bad grid");
    buf_free(&err);
    return s;
}

/* ---- choosing a config ---- */

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

/* "key" printed for TL_PRINT_AUTOTUNING and the cache: the launch signature
 * and the key arguments' values. */
static void tuning_key(TlKernel *k, const TlArg *args, int nargs, Buf *key) {
    kernel_launch_signature(args, nargs, key);
    for (int j = 0; j < k->info.nkey; j++)
        for (int i = 0; i < nargs; i++) {
            if (strcmp(k->rt[i]->name, k->info.key[j]))
                continue;
            if (args[i].kind == TL_ARG_INT)
                buf_printf(key, "; %s=%lld", k->info.key[j], (long long)args[i].v.i);
            else if (args[i].kind == TL_ARG_FLOAT)
                buf_printf(key, "; %s=%.17g", k->info.key[j], args[i].v.f);
        }
}

static void describe_config(const TlKernel *c, Buf *b) {
    for (int i = 0; i < c->info.nparams; i++)
        if (!c->info.params[i].runtime && c->info.params[i].constexpr_)
            buf_printf(b, "%s=%s, ", c->info.params[i].name,
                       c->info.params[i].value ? c->info.params[i].value : "(per launch)");
    buf_printf(b, "num_warps=%d, num_stages=%d", c->info.num_warps, c->info.num_stages);
}

static void disk_key(TlKernel *k, const char *tkey, const int *keep, Buf *key) {
    buf_printf(key, "autotune v2\ndevice %s\nconfigs %d\ntuning key %s\n", k->ctx->name, k->nconfigs, tkey);
    if (k->prune) { /* a choice among the configs kept */
        buf_puts(key, "kept");
        for (int i = 0; i < k->nconfigs; i++)
            if (keep[i])
                buf_printf(key, " %d", i);
        buf_puts(key, "\n");
    }
    gpu_cache_key(k, "", key);
}

typedef struct Job {
    TlKernel *k;
    char **keys;        /* each config's variant key; NULL: not compiled */
    TlStatus *status;
    int next;
    pthread_mutex_t lock;
} Job;

static void *compile_worker(void *p) {
    Job *j = p;
    for (;;) {
        pthread_mutex_lock(&j->lock);
        int i = j->next++;
        pthread_mutex_unlock(&j->lock);
        if (i >= j->k->nconfigs)
            return NULL;
        Variant *v;
        if (j->keys[i])
            j->status[i] = kernel_get_variant(j->k->configs[i], j->keys[i], &v);
    }
}

/* Compile every config's variant with a key, on up to one thread per core. */
static void compile_all(TlKernel *k, char **keys, TlStatus *status) {
    Job j = {.k = k, .keys = keys, .status = status};
    pthread_mutex_init(&j.lock, NULL);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int n = (int)(cores < 1 ? 1 : cores > 16 ? 16 : cores);
    if (n > k->nconfigs)
        n = k->nconfigs;
    pthread_t th[16];
    int started = 0;
    for (int i = 1; i < n; i++)
        if (!pthread_create(&th[started], NULL, compile_worker, &j))
            started++;
    compile_worker(&j); /* this thread works too */
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&j.lock);
}

/* A device region named by a parameter: its address and size. */
static bool arg_region(TlKernel *k, const TlArg *args, int nargs, const char *name, CUdeviceptr *p, size_t *bytes) {
    for (int i = 0; i < nargs; i++) {
        if (strcmp(k->rt[i]->name, name))
            continue;
        if (args[i].kind == TL_ARG_BUFFER) {
            *p = args[i].v.buffer->dptr;
            *bytes = args[i].v.buffer->bytes;
            return true;
        }
        if (args[i].kind == TL_ARG_POINTER && args[i].v.p.count) {
            *p = args[i].v.p.addr;
            *bytes = args[i].v.p.count * tl_dtype_size(args[i].dtype);
            return true;
        }
        const TlTensorDesc *d = args[i].kind == TL_ARG_TENSORDESC ? args[i].v.desc : NULL;
        if (d && (d->buffer || d->count)) { /* the memory under a descriptor */
            *p = d->buffer ? d->buffer->dptr : d->addr;
            *bytes = d->buffer ? d->buffer->bytes : d->count * tl_dtype_size(d->dtype);
            return true;
        }
        fail(k->ctx, TL_ERROR_LAUNCH, "%s: autotuning resets or restores '%s', which needs a buffer or a pointer with "
                                      "its element count",
             k->name, name);
        return false;
    }
    return true; /* not a runtime parameter: nothing to do */
}

/* Zero the reset_to_zero buffers (before every timed run, and once more
 * before the launch that follows tuning, as Triton's autotuner does). */
static bool reset(TlKernel *k, const TlArg *args, int nargs) {
    CUdeviceptr p;
    size_t bytes;
    for (int j = 0; j < k->info.nreset; j++)
        if (!arg_region(k, args, nargs, k->info.reset_to_zero[j], &p, &bytes) ||
            (bytes && gpu_zero(k->ctx, p, bytes) != TL_SUCCESS))
            return false;
    return true;
}

/* One launch of c, after the resets; its time in ms through ev if given. */
static bool run_once(TlKernel *k, TlKernel *c, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream,
                     CUevent ev[2], float *ms) {
    if (!reset(k, args, nargs))
        return false;
    if (!ev)
        return kernel_launch(c, grid, args, nargs, stream, false) == TL_SUCCESS;
    return !gpu_record(k->ctx, ev[0], stream) && !kernel_launch(c, grid, args, nargs, stream, false) &&
           !gpu_record(k->ctx, ev[1], stream) && !gpu_elapsed_ms(k->ctx, ev, ms);
}

/* Median time of config c, or +inf if it fails. Triton's do_bench spends
 * its whole budget (warmup and rep milliseconds) on every config; a median
 * settles long before that, so the budget is a cap here: at most 5 warm-up
 * runs and 20 timed ones, and a config whose first timed runs are clearly
 * slower than the best so far (best_ms) stops there. */
static double time_config(TlKernel *k, TlKernel *c, const unsigned grid[3], const TlArg *args, int nargs,
                          CUstream stream, CUevent ev[2], double best_ms) {
    float ms;
    /* One run to see that it launches, then an estimate of its time. */
    if (!reset(k, args, nargs) || kernel_launch(c, grid, args, nargs, stream, true) != TL_SUCCESS ||
        !run_once(k, c, grid, args, nargs, stream, ev, &ms))
        return INFINITY;
    double est = ms > 1e-3 ? ms : 1e-3;
    int warm = (int)fmin(fmax(k->info.warmup_ms / est, 1), 5), reps = (int)fmin(fmax(k->info.rep_ms / est, 3), 20);
    for (int i = 0; i < warm; i++)
        if (!run_once(k, c, grid, args, nargs, stream, NULL, NULL))
            return INFINITY;
    double t[20];
    int r;
    for (r = 0; r < reps; r++) {
        if (!run_once(k, c, grid, args, nargs, stream, ev, &ms))
            return INFINITY;
        t[r] = ms;
        for (int i = r; i > 0 && t[i] < t[i - 1]; i--) {
            double x = t[i];
            t[i] = t[i - 1];
            t[i - 1] = x;
        }
        if (r == 2 && t[1] > 1.3 * best_ms) /* its median of three loses by 30% */
            return t[1];
    }
    return t[r / 2];
}

/* The variant key of config c for checked args (its heuristics evaluated
 * first when they read the arguments); NULL with ctx's error set. */
static char *config_key(TlKernel *c, const TlArg *args, int nargs) {
    if (c->info.heur_per_launch && heur_eval(c, args, nargs) != TL_SUCCESS)
        return NULL;
    Buf key = {0};
    heur_variant_key(c, args, nargs, &key);
    return key.data;
}

/* Copy the restore_value buffers back from their saved copies. */
static void restore(TlKernel *k, const CUdeviceptr *where, const CUdeviceptr *saved, const size_t *sizes) {
    for (int j = 0; j < k->info.nrestore; j++)
        if (sizes[j])
            gpu_memcpy(k->ctx, where[j], saved[j], sizes[j]);
}

/* The configs within 10% of the best (at most FINALISTS), timed again in
 * turns, one run of each a round: the configs' first timings come one
 * after another, so whatever drifts meanwhile (the clock of a GPU heating
 * up under seconds of attention kernels, which made the later configs look
 * 5-10% slower than they run alone) falls on them all alike here. The
 * lowest median of the rounds wins; runs of the same config with the
 * same inputs as before, so the restores and resets stay as they were. */
enum { FINALISTS = 4, ROUNDS = 10 };
static int final_round(TlKernel *k, const char *tkey, const GridSpec *gs, const TlArg *args, int nargs,
                       CUstream stream, CUevent ev[2], const double *ms, int best, bool trace) {
    int fin[FINALISTS], nf = 0;
    unsigned grid[FINALISTS][3];
    for (int i = 0; i < k->nconfigs; i++) { /* the fastest few, fastest first */
        if (!(ms[i] <= 1.1 * ms[best]) || (nf == FINALISTS && ms[fin[nf - 1]] <= ms[i]))
            continue;
        int at = nf < FINALISTS ? nf++ : FINALISTS - 1;
        for (; at > 0 && ms[fin[at - 1]] > ms[i]; at--)
            fin[at] = fin[at - 1];
        fin[at] = i;
    }
    if (nf < 2)
        return best;
    double t[FINALISTS][ROUNDS];
    for (int f = 0; f < nf; f++)
        if (eval_grid(k, k->configs[fin[f]], gs, args, nargs, grid[f]) != TL_SUCCESS)
            return best;
    for (int r = 0; r < ROUNDS; r++)
        for (int f = 0; f < nf; f++) {
            float x;
            if (!run_once(k, k->configs[fin[f]], grid[f], args, nargs, stream, ev, &x))
                return best; /* it ran before: keep the first pass's pick */
            int j = r;
            for (; j > 0 && t[f][j - 1] > x; j--) /* sorted as they come */
                t[f][j] = t[f][j - 1];
            t[f][j] = x;
        }
    int pick = fin[0];
    double pick_ms = t[0][ROUNDS / 2];
    for (int f = 0; f < nf; f++) {
        if (trace)
            fprintf(stderr, "tl autotune: %s [%s] config %d: %.4f ms in turns with the other finalists\n", k->name,
                    tkey, fin[f], t[f][ROUNDS / 2]);
        if (t[f][ROUNDS / 2] < pick_ms)
            pick = fin[f], pick_ms = t[f][ROUNDS / 2];
    }
    return pick;
}

/* Tune k for these (checked) arguments over the configs kept (keep[i]);
 * returns the config index or -1. */
static int tune(TlKernel *k, const char *tkey, const GridSpec *gs, const TlArg *args, int nargs, CUstream stream,
                const int *keep) {
    TlContext *ctx = k->ctx;
    bool trace = env_on("TL_PRINT_AUTOTUNING");
    char **keys = calloc((size_t)k->nconfigs, sizeof *keys);
    TlStatus *status = calloc((size_t)k->nconfigs, sizeof *status);
    CUdeviceptr *saved = calloc((size_t)k->info.nrestore + 1, sizeof *saved);
    size_t *sizes = calloc((size_t)k->info.nrestore + 1, sizeof *sizes);
    CUdeviceptr *where = calloc((size_t)k->info.nrestore + 1, sizeof *where);
    double *msv = malloc(sizeof *msv * (size_t)k->nconfigs);
    CUevent ev[2] = {NULL, NULL};
    int best = -1;
    double best_ms = INFINITY;
    if (!keys || !status || !saved || !sizes || !where || !msv) {
        fail(ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    for (int i = 0; i < k->nconfigs; i++) {
        msv[i] = INFINITY;
        status[i] = TL_ERROR_LAUNCH;
        if (keep[i] && !(keys[i] = config_key(k->configs[i], args, nargs)))
            buf_printf(&k->log, "autotune: config %d skipped: %s\n", i, tl_last_error(ctx));
    }
    compile_all(k, keys, status);
    if (gpu_event_pair(ctx, ev, true))
        goto out;
    for (int j = 0; j < k->info.nrestore; j++)
        if (!arg_region(k, args, nargs, k->info.restore_value[j], &where[j], &sizes[j]) ||
            (sizes[j] && (gpu_mem(ctx, &saved[j], sizes[j], true) || gpu_memcpy(ctx, saved[j], where[j], sizes[j]))))
            goto out;
    for (int i = 0; i < k->nconfigs; i++) {
        TlKernel *c = k->configs[i];
        unsigned grid[3];
        double ms = INFINITY;
        if (!keep[i]) {
            if (trace)
                fprintf(stderr, "tl autotune: %s [%s] config %d: pruned\n", k->name, tkey, i);
            continue;
        }
        if (status[i] == TL_SUCCESS && eval_grid(k, c, gs, args, nargs, grid) == TL_SUCCESS)
            ms = time_config(k, c, grid, args, nargs, stream, ev, best_ms);
        restore(k, where, saved, sizes);
        if (trace) {
            Buf d = {0};
            describe_config(c, &d);
            if (isinf(ms))
                fprintf(stderr, "tl autotune: %s [%s] config %d (%s): failed: %s\n", k->name, tkey, i, d.data,
                        tl_last_error(ctx));
            else
                fprintf(stderr, "tl autotune: %s [%s] config %d (%s): %.4f ms\n", k->name, tkey, i, d.data, ms);
            buf_free(&d);
        }
        if (isinf(ms))
            buf_printf(&k->log, "autotune: config %d skipped: %s\n", i, tl_last_error(ctx));
        if (ms < best_ms)
            best_ms = ms, best = i;
        msv[i] = ms;
    }
    if (best >= 0) {
        best = final_round(k, tkey, gs, args, nargs, stream, ev, msv, best, trace);
        restore(k, where, saved, sizes);
    }
    if (best < 0)
        fail(ctx, TL_ERROR_LAUNCH, "%s: no autotune config could run (see tl_kernel_log)", k->name);
    else if (!reset(k, args, nargs))
        best = -1;
out:
    for (int j = 0; saved && j < k->info.nrestore; j++)
        gpu_mem(ctx, &saved[j], 0, false);
    if (ev[0] || ev[1])
        gpu_event_pair(ctx, ev, false);
    for (int i = 0; keys && i < k->nconfigs; i++)
        free(keys[i]);
    free(keys);
    free(status);
    free(msv);
    free(saved);
    free(sizes);
    free(where);
    return best;
}

/* Which configs to tune: the prune callback's choice, or all (1 each);
 * NULL with ctx's error set. */
static int *prune(TlKernel *k, const TlArg *args, int nargs) {
    int *keep = malloc(sizeof(int) * (size_t)k->nconfigs), n = 0;
    if (!keep) {
        fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        return NULL;
    }
    for (int i = 0; i < k->nconfigs; i++)
        keep[i] = 1;
    if (!k->prune)
        return keep;
    TlStatus s = k->prune(k->prune_user, (const TlKernel *const *)k->configs, k->nconfigs, args, nargs, keep);
    for (int i = 0; i < k->nconfigs; i++)
        n += keep[i] = keep[i] != 0;
    if (s != TL_SUCCESS || !n) {
        if (s != TL_SUCCESS && !tl_last_error(k->ctx)[0])
            fail(k->ctx, s, "%s: the prune callback returned %s", k->name, tl_status_name(s));
        else if (s == TL_SUCCESS)
            fail(k->ctx, TL_ERROR_LAUNCH, "%s: the prune callback kept none of the %d configs", k->name,
                 k->nconfigs);
        free(keep);
        return NULL;
    }
    return keep;
}

TlStatus tl_kernel_set_prune(TlKernel *k, TlPruneFn fn, void *user) {
    if (!k || !k->ctx)
        return TL_ERROR_INVALID_ARGUMENT;
    if (!k->info.tuned)
        return fail(k->ctx, TL_ERROR_INVALID_ARGUMENT, "%s: tl_kernel_set_prune: the kernel is not tuned (it has no "
                    "@triton.autotune, or --autotune-config chose a config)", k->name);
    k->ctx->err.len = 0;
    if (k->ctx->err.data)
        k->ctx->err.data[0] = 0;
    k->prune = fn;
    k->prune_user = user;
    return TL_SUCCESS;
}

static int choose(TlKernel *k, const GridSpec *gs, const TlArg *args, int nargs, CUstream stream) {
    Buf key = {0};
    tuning_key(k, args, nargs, &key);
    for (TuneChoice *c = k->choices; c; c = c->next)
        if (!strcmp(c->key, key.data)) {
            buf_free(&key);
            return c->config;
        }
    bool trace = env_on("TL_PRINT_AUTOTUNING");
    int pick = -1;
    const char *how = "tuned";
    int *keep = prune(k, args, nargs);
    if (!keep) {
        buf_free(&key);
        return -1;
    }
    if (k->ctx->kind != TL_DEVICE_CUDA) {
        while (!keep[++pick])
            ;
        how = "the interpreter does not tune: the first config";
        buf_printf(&k->log, "note: %s runs its first autotune config%s on the CPU device (tuning needs a GPU)\n",
                   k->name, k->prune ? " kept by the prune callback" : "");
    } else {
        Buf dir = {0}, dk = {0};
        bool use_cache = gpu_cache_dir(k, &dir);
        void *blob = NULL;
        size_t len = 0;
        bool corrupt = false;
        if (use_cache) {
            disk_key(k, key.data, keep, &dk);
            if (cache_get(dir.data, dk.data, &blob, &len, &corrupt) && len == sizeof(int32_t)) {
                int32_t i;
                memcpy(&i, blob, sizeof i);
                if (i >= 0 && i < k->nconfigs)
                    pick = i, how = "from the disk cache";
            }
            free(blob);
        }
        if (pick < 0 && (pick = tune(k, key.data, gs, args, nargs, stream, keep)) >= 0 && use_cache) {
            int32_t i = pick;
            cache_put(dir.data, dk.data, &i, sizeof i);
        }
        buf_free(&dir);
        buf_free(&dk);
    }
    free(keep);
    if (pick >= 0) {
        TuneChoice *c = calloc(1, sizeof *c);
        if (c && (c->key = strdup(key.data))) {
            c->config = pick;
            c->next = k->choices;
            k->choices = c;
        } else {
            free(c);
        }
        if (trace) {
            Buf d = {0};
            describe_config(k->configs[pick], &d);
            fprintf(stderr, "tl autotune: %s [%s]: config %d (%s), %s\n", k->name, key.data, pick, d.data, how);
            buf_free(&d);
        }
    }
    buf_free(&key);
    return pick;
}

TlStatus tune_launch(TlKernel *k, const GridSpec *gs, const TlArg *args, int nargs, CUstream stream, bool sync) {
    unsigned grid[3];
    if (!k->info.tuned) {
        if (!gs->fixed && !kernel_check_args(k, args, nargs))
            return TL_ERROR_LAUNCH;
        if (!gs->fixed && k->info.heur_per_launch) { /* the grid may read the heuristics' values */
            TlStatus s = heur_eval(k, k->norm, nargs);
            if (s != TL_SUCCESS)
                return s;
        }
        TlStatus s = eval_grid(k, k, gs, gs->fixed ? args : k->norm, nargs, grid);
        return s != TL_SUCCESS ? s : kernel_launch(k, grid, args, nargs, stream, sync);
    }
    if (!kernel_check_args(k, args, nargs))
        return TL_ERROR_LAUNCH;
    /* k->norm is overwritten by the configs' own checks: tune on a copy. */
    TlArg *checked = malloc(sizeof(TlArg) * (size_t)(nargs + 1));
    if (!checked)
        return fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(checked, k->norm, sizeof(TlArg) * (size_t)nargs);
    int pick = choose(k, gs, checked, nargs, stream);
    TlStatus s = TL_ERROR_LAUNCH;
    if (pick >= 0) {
        k->last_config = pick;
        TlKernel *c = k->configs[pick];
        s = c->info.heur_per_launch ? heur_eval(c, checked, nargs) : TL_SUCCESS;
        if (s == TL_SUCCESS)
            s = eval_grid(k, c, gs, checked, nargs, grid);
        if (s == TL_SUCCESS)
            s = kernel_launch(c, grid, args, nargs, stream, sync);
        if (c->log.len) { /* the config's diagnostics belong to the kernel the user holds */
            buf_putn(&k->log, c->log.data, c->log.len);
            c->log.len = 0;
        }
    }
    free(checked);
    return s;
}
