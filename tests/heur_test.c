/* heur_test.c: @triton.heuristics and autotune pruning through the C API, on
 * whatever device the context gets (tests/api.sh runs it in the
 * interpreter, tests/gpu.sh on the GPU). Heuristics that read a runtime
 * argument are evaluated at each launch and choose the variant: the kernels
 * below fold the heuristics' values into their output, so each launch is
 * checked against a C reference computed with the values Python would give,
 * at n = 1, 17, 64, 1000 (and again, to see the memoised results reused). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

static int failures;
static TlContext *ctx;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] heur/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* y = 2x + BLOCK + 1000 * EVEN + 100 * SIGN over n elements, with
 * BLOCK = next_power_of_2(n), EVEN = n % BLOCK == 0 (then no mask at all),
 * SIGN = -1 if alpha < 0 else 1; one program (BLOCK >= n), the grid an
 * expression over the heuristic's value. */
static const char *fill_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.heuristics({'BLOCK': lambda args: triton.next_power_of_2(args['n']),\n"
    "                    'EVEN': lambda args: args['n'] % args['BLOCK'] == 0,\n"
    "                    'SIGN': lambda args: -1 if args['alpha'] < 0 else 1})\n"
    "@triton.jit\n"
    "def fill(X, Y, n, alpha, BLOCK: tl.constexpr, EVEN: tl.constexpr, SIGN: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    if EVEN:\n"
    "        tl.store(Y + o, tl.load(X + o) * 2 + BLOCK + 1000 + SIGN * 100)\n"
    "    else:\n"
    "        x = tl.load(X + o, mask=o < n)\n"
    "        tl.store(Y + o, x * 2 + BLOCK + SIGN * 100, mask=o < n)\n";

/* A heuristic over constexprs only: known before any launch. */
static const char *static_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.heuristics({'TWICE': lambda args: args['BS'] * 2})\n"
    "@triton.jit\n"
    "def twice(X, n, BS: tl.constexpr = 16, TWICE: tl.constexpr = 0):\n"
    "    o = tl.program_id(0) * TWICE + tl.arange(0, TWICE)\n"
    "    tl.store(X + o, tl.load(X + o, mask=o < n) + TWICE, mask=o < n)\n";

/* Tuned, with a heuristic inside the autotuner that sees the config's SPLIT. */
static const char *tuned_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'SPLIT': 1}), triton.Config({'SPLIT': 4}, num_warps=2)], key=['n'])\n"
    "@triton.heuristics({'BLOCK': lambda args: max(triton.next_power_of_2(args['n']) // args['SPLIT'], 16)})\n"
    "@triton.jit\n"
    "def tuned(X, Y, n, SPLIT: tl.constexpr, BLOCK: tl.constexpr):\n"
    "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(Y + o, tl.load(X + o, mask=o < n) + BLOCK, mask=o < n)\n";

/* Tuned over three block sizes, pruned from C; prune_configs_by in the
 * source names Python functions tl does not run. */
static const char *prune_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'BS': 32}, num_warps=1), triton.Config({'BS': 64}, num_warps=2),\n"
    "                          triton.Config({'BS': 256}, num_warps=4, num_stages=2)], key=['n'],\n"
    "                 prune_configs_by={'early_config_prune': keep_big, 'perf_model': None, 'top_k': 1})\n"
    "@triton.jit\n"
    "def prune_k(X, Y, n, BS: tl.constexpr):\n"
    "    o = tl.program_id(0) * BS + tl.arange(0, BS)\n"
    "    tl.store(Y + o, tl.load(X + o, mask=o < n) * 3 + BS, mask=o < n)\n";

/* Two identical configs of a loop long enough (~0.1 ms on a GPU) that
 * launch noise does not decide: both are finalists, timed again in turns
 * (autotune.c), which tests/gpu.sh checks in the trace. acc = acc / 2 + x
 * from x reaches 2x exactly (acc / 2 is exact, then one rounding a step). */
static const char *twin_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'BS': 64}), triton.Config({'BS': 64})], key=['n'])\n"
    "@triton.jit\n"
    "def twin(X, Y, n, iters, BS: tl.constexpr):\n"
    "    o = tl.program_id(0) * BS + tl.arange(0, BS)\n"
    "    x = tl.load(X + o, mask=o < n)\n"
    "    acc = x\n"
    "    for i in range(iters):\n"
    "        acc = acc * 0.5 + x\n"
    "    tl.store(Y + o, acc, mask=o < n)\n";

enum { N = 1031 };
static float xs[N];

static int next_pow2(int n) {
    int p = 1;
    while (p < n)
        p *= 2;
    return p;
}

/* y == ref(i) for i < n and the sentinel -7 past it. */
static int compare(TlBuffer *y, int n, float (*ref)(int i, const void *), const void *ctxp, const char *name) {
    float out[N];
    tl_buffer_read(y, 0, out, sizeof out);
    for (int i = 0; i < N; i++) {
        float want = i < n ? ref(i, ctxp) : -7.0f;
        if (out[i] != want) {
            char msg[160];
            snprintf(msg, sizeof msg, "y[%d] = %g, want %g (n = %d)", i, out[i], want, n);
            check(name, 0, msg);
            return 0;
        }
    }
    return 1;
}

static void reset(TlBuffer *y) {
    float s[N];
    for (int i = 0; i < N; i++)
        s[i] = -7.0f;
    tl_buffer_write(y, 0, s, sizeof s);
}

typedef struct FillRef { int block, even, sign; } FillRef;
static float fill_ref(int i, const void *p) {
    const FillRef *r = p;
    return xs[i] * 2 + (float)r->block + (r->even ? 1000.0f : 0.0f) + 100.0f * (float)r->sign;
}

static void test_fill(TlBuffer *x, TlBuffer *y) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, fill_src, "", &k);
    check("fill_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    check("fill_params", tl_kernel_num_params(k) == 4, NULL);
    int64_t v;
    check("fill_block_unknown_before_launch",
          tl_kernel_constant_int(k, "BLOCK", &v) != TL_SUCCESS && contains(tl_last_error(ctx), "heuristic"),
          tl_last_error(ctx));
    TlStats st0, st1;
    tl_context_stats(ctx, &st0);
    static const int ns[] = {1, 17, 64, 1000, 18, 17, 1000};
    static const float alphas[] = {0.5f, -0.25f, 2.0f, 0.5f, 0.5f, -0.25f, -3.0f};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int n = ns[t];
        FillRef r = {next_pow2(n), n % next_pow2(n) == 0, alphas[t] < 0 ? -1 : 1};
        char name[64];
        snprintf(name, sizeof name, "fill_n%d_alpha%g", n, alphas[t]);
        reset(y);
        TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(n), tl_arg_f32(alphas[t])};
        s = tl_launch_grid(k, "cdiv(n, BLOCK)", args, 4);
        if (s != TL_SUCCESS) {
            check(name, 0, tl_last_error(ctx));
            continue;
        }
        int64_t block = -1, even = -1, sign = 0;
        tl_kernel_constant_int(k, "BLOCK", &block);
        tl_kernel_constant_int(k, "EVEN", &even);
        tl_kernel_constant_int(k, "SIGN", &sign);
        char msg[128];
        snprintf(msg, sizeof msg, "BLOCK=%lld EVEN=%lld SIGN=%lld, want %d %d %d", (long long)block, (long long)even,
                 (long long)sign, r.block, r.even, r.sign);
        if (block != r.block || even != r.even || sign != r.sign)
            check(name, 0, msg);
        else if (compare(y, n, fill_ref, &r, name))
            check(name, 1, NULL);
    }
    tl_context_stats(ctx, &st1);
    /* variants: (1, True, 1), (32, False, -1), (64, True, 1), (1024, False, 1),
     * (32, False, 1) for n = 18, (1024, False, -1): six, each compiled (or
     * loaded from the disk cache) once */
    unsigned long built = (st1.compiles - st0.compiles) + (st1.cache_hits - st0.cache_hits);
    char msg[96];
    snprintf(msg, sizeof msg, "%lu variants built, want 6", built);
    check("fill_one_variant_per_result", built == 6, msg);
    /* the same values again: nothing more is built */
    reset(y);
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(17), tl_arg_f32(1.0f)};
    unsigned grid[3] = {1, 1, 1};
    s = tl_launch(k, grid, args, 4);
    FillRef r = {32, 0, 1};
    tl_context_stats(ctx, &st0);
    check("fill_fixed_grid_reuses", s == TL_SUCCESS && compare(y, 17, fill_ref, &r, "fill_fixed_grid_reuses") &&
                                        st0.compiles + st0.cache_hits == st1.compiles + st1.cache_hits,
          tl_last_error(ctx));
    tl_kernel_destroy(k);
    /* With a --signature: nothing compiles before the first launch (the
     * heuristics need n), then each launch's results choose the variant. */
    s = tl_kernel_from_string(ctx, fill_src, "--signature '*fp32, *fp32, i32, fp32'", &k);
    check("fill_signature_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    for (int n = 63; n <= 64; n++) {
        reset(y);
        TlArg sargs[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(n), tl_arg_f32(-1.0f)};
        FillRef sr = {64, n == 64, -1};
        char name[64];
        snprintf(name, sizeof name, "fill_signature_n%d", n);
        s = tl_launch(k, grid, sargs, 4);
        if (s != TL_SUCCESS)
            check(name, 0, tl_last_error(ctx));
        else if (compare(y, n, fill_ref, &sr, name))
            check(name, 1, NULL);
    }
    tl_kernel_destroy(k);
}

static void test_static(TlBuffer *x) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, static_src, "", &k);
    check("static_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    int64_t v = 0;
    check("static_known_before_launch", tl_kernel_constant_int(k, "TWICE", &v) == TL_SUCCESS && v == 32,
          tl_last_error(ctx));
    float before[N], after[N];
    tl_buffer_read(x, 0, before, sizeof before);
    TlArg args[] = {tl_arg_buffer(x), tl_arg_i32(45)};
    s = tl_launch_grid(k, "cdiv(n, TWICE)", args, 2);
    tl_buffer_read(x, 0, after, sizeof after);
    int ok = s == TL_SUCCESS;
    for (int i = 0; ok && i < N; i++)
        ok = after[i] == (i < 45 ? before[i] + 32 : before[i]);
    check("static_launch", ok, tl_last_error(ctx));
    tl_buffer_write(x, 0, xs, sizeof xs);
    tl_kernel_destroy(k);
}

static float tuned_ref(int i, const void *p) { return xs[i] + (float)*(const int *)p; }

static void test_tuned(TlBuffer *x, TlBuffer *y) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, tuned_src, "", &k);
    check("tuned_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    static const int ns[] = {1, 17, 64, 1000};
    for (size_t t = 0; t < sizeof ns / sizeof ns[0]; t++) {
        int n = ns[t];
        char name[64];
        snprintf(name, sizeof name, "tuned_n%d", n);
        reset(y);
        TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(n)};
        s = tl_launch_grid(k, "cdiv(n, BLOCK)", args, 3);
        TlKernelConfig cfg;
        if (s != TL_SUCCESS || tl_kernel_config(k, &cfg) != TL_SUCCESS || cfg.autotune_config < 0) {
            check(name, 0, tl_last_error(ctx));
            continue;
        }
        int split = cfg.autotune_config == 0 ? 1 : 4, block = next_pow2(n) / split;
        if (block < 16)
            block = 16;
        if (tl_kernel_config(k, &cfg), compare(y, n, tuned_ref, &block, name))
            check(name, 1, NULL);
    }
    tl_kernel_destroy(k);
}

static float twin_ref(int i, const void *p) { return (void)p, 2 * xs[i]; }

static void test_twin(TlBuffer *x, TlBuffer *y) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, twin_src, "", &k);
    check("twin_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    int n = 131, iters = tl_context_device(ctx) == TL_DEVICE_CUDA ? 20000 : 64;
    reset(y);
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(n), tl_arg_i32(iters)};
    s = tl_launch_grid(k, "cdiv(n, BS)", args, 4);
    if (s != TL_SUCCESS)
        check("twin_n131", 0, tl_last_error(ctx));
    else if (compare(y, n, twin_ref, NULL, "twin_n131"))
        check("twin_n131", 1, NULL);
    tl_kernel_destroy(k);
}

typedef struct PruneSeen { int calls, nconfigs, nargs, n, keep_none; int64_t bs[3]; } PruneSeen;

/* Keep the configs with BS >= 256 (the one of config 2). */
static TlStatus keep_big(void *user, const TlKernel *const *configs, int nconfigs, const TlArg *args, int nargs,
                         int *keep) {
    PruneSeen *p = user;
    p->calls++;
    p->nconfigs = nconfigs;
    p->nargs = nargs;
    p->n = nargs == 3 ? (int)args[2].v.i : -1;
    for (int i = 0; i < nconfigs; i++) {
        int64_t bs = 0;
        TlKernelConfig c;
        if (tl_kernel_constant_int(configs[i], "BS", &bs) != TL_SUCCESS || tl_kernel_config(configs[i], &c))
            return TL_ERROR_INVALID_ARGUMENT;
        if (i < 3)
            p->bs[i] = bs * 100 + c.num_warps; /* what the callback saw: BS and num_warps */
        keep[i] = !p->keep_none && bs >= 256;
    }
    return TL_SUCCESS;
}

static float prune_ref(int i, const void *p) {
    (void)p;
    return xs[i] * 3 + 256;
}

static void test_prune(TlBuffer *x, TlBuffer *y) {
    TlKernel *k, *plain;
    TlStatus s = tl_kernel_from_string(ctx, prune_src, "", &k);
    check("prune_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    check("prune_note_in_log", contains(tl_kernel_log(k), "note: prune_configs_by names Python functions") &&
                                   contains(tl_kernel_log(k), "tl_kernel_set_prune()"),
          tl_kernel_log(k));
    PruneSeen seen = {0};
    check("prune_set", tl_kernel_set_prune(k, keep_big, &seen) == TL_SUCCESS, tl_last_error(ctx));
    int n = 777;
    reset(y);
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(y), tl_arg_i32(n)};
    s = tl_launch_grid(k, "cdiv(n, BS)", args, 3);
    TlKernelConfig cfg = {0};
    tl_kernel_config(k, &cfg);
    char msg[160];
    snprintf(msg, sizeof msg, "%s; config %d, calls %d, nconfigs %d, nargs %d, n %d, seen %lld %lld %lld",
             tl_last_error(ctx), cfg.autotune_config, seen.calls, seen.nconfigs, seen.nargs, seen.n,
             (long long)seen.bs[0], (long long)seen.bs[1], (long long)seen.bs[2]);
    check("prune_callback_called", seen.calls == 1 && seen.nconfigs == 3 && seen.nargs == 3 && seen.n == n &&
                                       seen.bs[0] == 3201 && seen.bs[1] == 6402 && seen.bs[2] == 25604,
          msg);
    check("prune_first_launch_uses_kept_config", s == TL_SUCCESS && cfg.autotune_config == 2 && cfg.num_warps == 4 &&
                                                     cfg.num_stages == 2 && compare(y, n, prune_ref, NULL, "prune_result"),
          msg);
    printf("prune chose config %d\n", cfg.autotune_config);
    s = tl_launch_grid(k, "cdiv(n, BS)", args, 3);
    check("prune_once_per_key", s == TL_SUCCESS && seen.calls == 1, tl_last_error(ctx));
    /* a new key, and a callback that keeps nothing: the launch fails and says why */
    seen.keep_none = 1;
    args[2] = tl_arg_i32(100);
    s = tl_launch_grid(k, "cdiv(n, BS)", args, 3);
    check("prune_keep_none_fails", s == TL_ERROR_LAUNCH && contains(tl_last_error(ctx), "kept none of the 3 configs"),
          tl_last_error(ctx));
    /* without the callback every config is a candidate again (the CPU device takes config 0) */
    check("prune_unset", tl_kernel_set_prune(k, NULL, NULL) == TL_SUCCESS, tl_last_error(ctx));
    s = tl_launch_grid(k, "cdiv(n, BS)", args, 3);
    tl_kernel_config(k, &cfg);
    check("prune_unset_launch", s == TL_SUCCESS && cfg.autotune_config >= 0 &&
                                    (tl_context_device(ctx) == TL_DEVICE_CUDA || cfg.autotune_config == 0),
          tl_last_error(ctx));
    tl_kernel_destroy(k);
    /* a kernel that is not tuned has nothing to prune */
    s = tl_kernel_from_string(ctx, prune_src, "--autotune-config 1", &plain);
    check("prune_untuned_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s == TL_SUCCESS) {
        check("prune_untuned_refused", tl_kernel_set_prune(plain, keep_big, &seen) == TL_ERROR_INVALID_ARGUMENT &&
                                           contains(tl_last_error(ctx), "not tuned"),
              tl_last_error(ctx));
        check("prune_untuned_no_note", !contains(tl_kernel_log(plain), "prune_configs_by"), tl_kernel_log(plain));
        tl_kernel_destroy(plain);
    }
}

/* Errors found only at a launch: a heuristic that reads a pointer. */
static void test_errors(TlBuffer *x) {
    static const char *src =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.heuristics({'B': lambda args: args['X'] if args['n'] > 0 else 16})\n"
        "@triton.jit\n"
        "def bad(X, n, B: tl.constexpr):\n"
        "    tl.store(X + tl.arange(0, B), 1.0)\n";
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, src, "", &k);
    check("error_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return;
    TlArg args[] = {tl_arg_buffer(x), tl_arg_i32(5)};
    unsigned grid[3] = {1, 1, 1};
    s = tl_launch(k, grid, args, 2);
    check("error_pointer_read", s == TL_ERROR_COMPILE && contains(tl_last_error(ctx), "<string>:3:39: error: "
                                                                   "heuristic 'B' reads 'X', a pointer argument"),
          tl_last_error(ctx));
    tl_kernel_destroy(k);
}

int main(void) {
    TlStatus s = tl_context_create(TL_DEVICE_AUTO, &ctx);
    if (s != TL_SUCCESS) {
        printf("no context: %s\n", tl_status_name(s));
        return 2;
    }
    printf("device: %s\n", tl_context_device_name(ctx));
    for (int i = 0; i < N; i++)
        xs[i] = (float)((i * 37) % 101) - 50.0f;
    TlBuffer *x, *y;
    if (tl_buffer_create(ctx, TL_F32, N, &x) || tl_buffer_create(ctx, TL_F32, N, &y)) {
        printf("no buffers: %s\n", tl_last_error(ctx));
        return 2;
    }
    tl_buffer_write(x, 0, xs, sizeof xs);
    test_fill(x, y);
    test_static(x);
    test_tuned(x, y);
    test_twin(x, y);
    test_prune(x, y);
    test_errors(x);
    tl_buffer_destroy(x);
    tl_buffer_destroy(y);
    tl_context_destroy(ctx);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
