/* robust_test.c: libtl on inputs meant to break it (issue 23), on the CPU
 * device: each must come back as a status and an exact message, never a
 * signal, a hang or a success with a wrong result. tests/robust.sh runs it
 * with TL_INTERPRET=1 and reports its [PASS]/[FAIL] lines. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

static int failures;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] robust/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static inline int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

static const char *copy_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
    "    offs = tl.program_id(0) * bs + tl.arange(0, bs)\n"
    "    mask = offs < n\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask), mask)\n";

static TlContext *ctx;

/* Launch k over a grid expression; the status, the message checked exactly. */
static void grid_case(const char *name, TlKernel *k, const char *grid, const TlArg *args, TlStatus want,
                      const char *msg) {
    TlStatus s = tl_launch_grid(k, grid, args, 3);
    char detail[512];
    snprintf(detail, sizeof detail, "%s: '%s'", tl_status_name(s), tl_last_error(ctx));
    check(name, s == want && !strcmp(tl_last_error(ctx), msg), detail);
}

/* Item 1: the grid evaluator is total. */
static void grid_tests(TlBuffer *x, TlBuffer *z) {
    TlKernel *k = NULL;
    if (tl_kernel_from_string(ctx, copy_src, "-D bs=64", &k) != TL_SUCCESS) {
        check("grid/kernel", 0, tl_last_error(ctx));
        return;
    }
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i64(INT64_MIN)};
    const TlStatus BAD = TL_ERROR_INVALID_ARGUMENT;
    grid_case("grid/min_floordiv_minus1", k, "n // -1", args, BAD,
              "copy_k: grid 'n // -1': integer overflow in '-' at column 8");
    grid_case("grid/min_div_minus1", k, "n / -1", args, BAD, "copy_k: grid 'n / -1': integer overflow in '-' at column 7");
    /* Python: -2**63 % -1 == 0, so the grid is 1 and the launch runs (no element is below n). */
    grid_case("grid/min_mod_minus1", k, "n % -1 + 1", args, TL_SUCCESS, "");
    grid_case("grid/div_zero", k, "7 // (n - n)", args, BAD, "copy_k: grid '7 // (n - n)': division by zero at column 13");
    grid_case("grid/mod_zero", k, "7 % 0", args, BAD, "copy_k: grid '7 % 0': modulo by zero at column 6");
    grid_case("grid/cdiv_zero", k, "cdiv(7, 0)", args, BAD, "copy_k: grid 'cdiv(7, 0)': cdiv by zero at column 11");
    grid_case("grid/mul_overflow", k, "4294967296 * 4294967296 + 1", args, BAD,
              "copy_k: grid '4294967296 * 4294967296 + 1': integer overflow in '*' at column 24");
    grid_case("grid/add_overflow", k, "9223372036854775807 + 1", args, BAD,
              "copy_k: grid '9223372036854775807 + 1': integer overflow in '+' at column 24");
    grid_case("grid/sub_overflow", k, "n - 1", args, BAD, "copy_k: grid 'n - 1': integer overflow in '-' at column 6");
    grid_case("grid/neg_overflow", k, "-n", args, BAD, "copy_k: grid '-n': integer overflow in '-' at column 3");
    grid_case("grid/cdiv_overflow", k, "cdiv(9223372036854775807, 2)", args, BAD,
              "copy_k: grid 'cdiv(9223372036854775807, 2)': integer overflow in '+' at column 29");
    grid_case("grid/literal_range", k, "99999999999999999999", args, BAD,
              "copy_k: grid '99999999999999999999': integer literal out of range at column 1");
    grid_case("grid/dim_too_big", k, "4294967296", args, TL_ERROR_LAUNCH,
              "copy_k: grid '4294967296': dimension 0 is 4294967296");
    /* 300k nested parentheses or minus signs: a depth limit, not a stack overflow */
    size_t n = 300000;
    char *deep = malloc(n + 2);
    memset(deep, '(', n);
    strcpy(deep + n, "1");
    grid_case("grid/deep_parens", k, deep, args, BAD,
              "copy_k: grid '(((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((...': "
              "nested more than 64 deep at column 65");
    memset(deep, '-', n);
    grid_case("grid/deep_minus", k, deep, args, BAD,
              "copy_k: grid '-----------------------------------------------------------------------------...': "
              "nested more than 64 deep at column 65");
    free(deep);
    /* within the limits it still computes */
    TlArg ok_args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100)};
    TlStatus s = tl_launch_grid(k, "((((cdiv(n, bs)))))  * --1", ok_args, 3);
    float got[100];
    tl_buffer_read(z, 0, got, sizeof got);
    check("grid/nested_ok", s == TL_SUCCESS && got[99] == 99.0f, tl_last_error(ctx));
    tl_kernel_destroy(k);
}

/* One descriptor parameter: the launch checks it before anything reads it. */
static const char *desc_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def dk(xd):\n"
    "    v = xd.load([0, 0])\n"
    "    xd.store([0, 0], v + 1)\n";

static void desc_case(const char *name, TlKernel *k, const TlTensorDesc *d, const char *msg) {
    TlArg a = {TL_ARG_TENSORDESC, (TlDType)0, 0, {0}};
    a.v.desc = d;
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, &a, 1);
    char detail[512];
    snprintf(detail, sizeof detail, "%s: '%s'", tl_status_name(s), tl_last_error(ctx));
    check(name, s == TL_ERROR_LAUNCH && !strcmp(tl_last_error(ctx), msg), detail);
}

/* Item 2: a descriptor's dtype and extent are checked whatever their values. */
static void desc_tests(void) {
    TlKernel *k = NULL;
    TlBuffer *b = NULL, *b8 = NULL;
    if (tl_kernel_from_string(ctx, desc_src, "", &k) != TL_SUCCESS || tl_buffer_create(ctx, TL_F32, 256, &b) ||
        tl_buffer_create(ctx, TL_F8E4M3, 64, &b8)) {
        check("desc/setup", 0, tl_last_error(ctx));
        return;
    }
    TlTensorDesc d;
    int64_t shape[2] = {16, 16};
    int32_t block[2] = {16, 16};
    tl_arg_tensordesc(&d, b, 2, shape, NULL, block);
    d.dtype = (TlDType)-100000;
    desc_case("desc/dtype_negative_buffer", k, &d, "dk: argument 1 ('xd') is a tensor descriptor with an invalid dtype -100000");
    d.dtype = (TlDType)99;
    desc_case("desc/dtype_99_buffer", k, &d, "dk: argument 1 ('xd') is a tensor descriptor with an invalid dtype 99");
    tl_arg_tensordesc_ptr(&d, NULL, tl_buffer_device_ptr(b), (TlDType)-100000, 256, 2, shape, NULL, block);
    desc_case("desc/dtype_negative_ptr", k, &d, "dk: argument 1 ('xd') is a tensor descriptor with an invalid dtype -100000");
    /* (2^24) * 2^40 wraps to 0 in 64 bits: the last element "reached" would be 15, inside 64 bytes */
    int64_t wshape[2] = {((int64_t)1 << 24) + 1, 16}, wstrides[2] = {(int64_t)1 << 40, 1};
    int32_t wblock[2] = {1, 16};
    tl_arg_tensordesc(&d, b8, 2, wshape, wstrides, wblock);
    desc_case("desc/extent_overflow", k, &d,
              "dk: argument 1 ('xd') is a tensor descriptor whose extent overflows 64 bits at dim 0 ((shape - 1) * stride)");
    tl_buffer_destroy(b);
    tl_buffer_destroy(b8);
    tl_kernel_destroy(k);
}

/* What a callback does to the launch it runs in (destroy_tests). */
typedef struct Misdeed {
    int what;           /* 0 destroy the kernel, 1 its config's handle, 2 the context, 3 a buffer, 4 launch again */
    TlKernel *k;
    TlBuffer *b;
    TlStatus inner;     /* what the nested call returned */
    char inner_msg[256];
} Misdeed;

static void misbehave(Misdeed *m, const TlKernel *config, const TlArg *args, int nargs) {
    switch (m->what) {
    case 0: tl_kernel_destroy(m->k); break;
    case 1: tl_kernel_destroy((TlKernel *)config); break;
    case 2: tl_context_destroy(ctx); break;
    case 3: tl_buffer_destroy(m->b); break;
    case 4:
        m->inner = tl_launch_grid(m->k, "1", args, nargs);
        snprintf(m->inner_msg, sizeof m->inner_msg, "%s", tl_last_error(ctx));
        break;
    }
}

static TlStatus bad_grid(void *user, const TlKernel *config, const TlArg *args, int nargs, unsigned grid[3]) {
    misbehave(user, config, args, nargs);
    grid[0] = 2, grid[1] = grid[2] = 1;
    return TL_SUCCESS;
}

static TlStatus bad_prune(void *user, const TlKernel *const *configs, int nconfigs, const TlArg *args, int nargs,
                          int *keep) {
    (void)nconfigs, (void)keep;
    misbehave(user, configs[0], args, nargs);
    return TL_SUCCESS;
}

static const char *tuned_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'bs': 64}), triton.Config({'bs': 128})], key=['n'])\n"
    "@triton.jit\n"
    "def tuned_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
    "    offs = tl.program_id(0) * bs + tl.arange(0, bs)\n"
    "    mask = offs < n\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask), mask)\n";

/* Item 3: callbacks cannot destroy what their launch uses; handles that
 * outlive their context are inert, not dangling. */
static void destroy_tests(TlBuffer *x, TlBuffer *z) {
    TlKernel *k = NULL, *t = NULL;
    TlBuffer *extra = NULL;
    if (tl_kernel_from_string(ctx, copy_src, "-D bs=64", &k) || tl_kernel_from_string(ctx, tuned_src, "", &t) ||
        tl_buffer_create(ctx, TL_F32, 4, &extra)) {
        check("destroy/setup", 0, tl_last_error(ctx));
        return;
    }
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100)};
    static const char *names[] = {"destroy/grid_fn_kernel", "destroy/grid_fn_config", "destroy/grid_fn_context",
                                  "destroy/grid_fn_buffer"};
    const char *kept = "copy_k: a callback of its launch destroyed the kernel; it was kept (destroy it after the "
                       "launch returns)";
    const char *kept_ctx = "copy_k: a callback of its launch destroyed its context or a buffer; they were kept "
                           "(destroy them after the launch returns)";
    for (int what = 0; what < 4; what++) {
        Misdeed m = {.what = what, .k = k, .b = extra};
        tl_buffer_write(z, 0, (float[100]){0}, 400);
        TlStatus s = tl_launch_grid_fn(k, bad_grid, &m, args, 3);
        char detail[512];
        snprintf(detail, sizeof detail, "%s: '%s'", tl_status_name(s), tl_last_error(ctx));
        check(names[what], s == TL_ERROR_INVALID_ARGUMENT && !strcmp(tl_last_error(ctx), what < 2 ? kept : kept_ctx),
              detail);
    }
    /* all still there: the kernel runs, the buffer reads, the context works */
    float got[100];
    TlStatus s = tl_launch_grid(k, "2", args, 3);
    check("destroy/kernel_kept", s == TL_SUCCESS && tl_buffer_read(z, 0, got, sizeof got) == TL_SUCCESS &&
          got[99] == 99.0f && tl_buffer_read(extra, 0, got, 16) == TL_SUCCESS, tl_last_error(ctx));
    Misdeed m = {.what = 4, .k = k};
    s = tl_launch_grid_fn(k, bad_grid, &m, args, 3);
    check("destroy/grid_fn_relaunch", s == TL_SUCCESS && m.inner == TL_ERROR_INVALID_ARGUMENT &&
          !strcmp(m.inner_msg, "copy_k: launched from a callback of its own launch"), m.inner_msg);
    m = (Misdeed){.what = 0, .k = t};
    tl_kernel_set_prune(t, bad_prune, &m);
    s = tl_launch_grid(t, "cdiv(n, bs)", args, 3);
    check("destroy/prune_kernel", s == TL_ERROR_INVALID_ARGUMENT &&
          !strcmp(tl_last_error(ctx), "tuned_k: a callback of its launch destroyed the kernel; it was kept (destroy "
                                      "it after the launch returns)"), tl_last_error(ctx));
    m.what = 1; /* a new tuning key, so the prune callback runs again */
    TlArg args99[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(99)};
    s = tl_launch_grid(t, "cdiv(n, bs)", args99, 3);
    check("destroy/prune_config", s == TL_ERROR_INVALID_ARGUMENT &&
          !strcmp(tl_last_error(ctx), "tuned_k: a callback of its launch destroyed the kernel; it was kept (destroy "
                                      "it after the launch returns)"), tl_last_error(ctx));
    tl_kernel_set_prune(t, NULL, NULL);
    s = tl_launch_grid(t, "cdiv(n, bs)", args, 3);
    check("destroy/tuned_kept", s == TL_SUCCESS, tl_last_error(ctx));
    tl_kernel_destroy(t);
    tl_kernel_destroy(k);
    tl_buffer_destroy(extra);

    /* The wrong order: the context first. Its handles refuse every call and
     * can still be destroyed. */
    TlContext *c2;
    TlBuffer *b2;
    TlKernel *k2;
    if (tl_context_create(TL_DEVICE_CPU, &c2) || tl_buffer_create(c2, TL_F32, 100, &b2) ||
        tl_kernel_from_string(c2, copy_src, "-D bs=64", &k2)) {
        check("destroy/order_setup", 0, NULL);
        return;
    }
    tl_context_destroy(c2);
    TlArg a2[] = {tl_arg_buffer(b2), tl_arg_buffer(b2), tl_arg_i32(100)};
    unsigned grid[3] = {2, 1, 1};
    check("destroy/buffer_after_context", tl_buffer_write(b2, 0, got, 16) == TL_ERROR_INVALID_ARGUMENT &&
          tl_buffer_read(b2, 0, got, 16) == TL_ERROR_INVALID_ARGUMENT && tl_buffer_device_ptr(b2) == 0 &&
          tl_buffer_count(b2) == 100, NULL);
    check("destroy/kernel_after_context", tl_launch(k2, grid, a2, 3) == TL_ERROR_INVALID_ARGUMENT &&
          !strcmp(tl_kernel_name(k2), "copy_k"), NULL);
    TlArg a3[] = {tl_arg_buffer(b2), tl_arg_buffer(z), tl_arg_i32(100)};
    TlKernel *k3;
    tl_kernel_from_string(ctx, copy_src, "-D bs=64", &k3);
    s = tl_launch(k3, grid, a3, 3);
    check("destroy/orphan_buffer_argument", s == TL_ERROR_LAUNCH &&
          !strcmp(tl_last_error(ctx), "copy_k: argument 1 ('x_ptr') is a buffer whose context was destroyed"),
          tl_last_error(ctx));
    tl_kernel_destroy(k3);
    tl_buffer_destroy(b2);
    tl_kernel_destroy(k2);
}

/* Item 7: messages a user reads. */
static void message_tests(TlBuffer *x, TlBuffer *z) {
    TlKernel *k = NULL;
    TlStatus s = tl_kernel_from_string(ctx, "import triton\nx = 1\n", "", &k);
    check("msg/no_tlc_prefix", s == TL_ERROR_COMPILE &&
          !strcmp(tl_last_error(ctx), "error: <string>: no @triton.jit function in the file\n"), tl_last_error(ctx));
    s = tl_kernel_from_string(ctx, copy_src, "-D bs=64 --num-warps 64", &k);
    check("msg/no_tlc_prefix_options", s != TL_SUCCESS && !contains(tl_last_error(ctx), "tlc:"), tl_last_error(ctx));
    if (tl_kernel_from_string(ctx, copy_src, "-D bs=64", &k) != TL_SUCCESS)
        return;
    unsigned grid[3] = {1, 1, 1};
    s = tl_launch(k, grid, NULL, 3);
    check("msg/args_null", s == TL_ERROR_LAUNCH && !strcmp(tl_last_error(ctx), "copy_k: args is NULL but nargs is 3"),
          tl_last_error(ctx));
    s = tl_launch(k, grid, NULL, 4);
    check("msg/args_null_count", s == TL_ERROR_LAUNCH &&
          !strcmp(tl_last_error(ctx), "copy_k: args is NULL but nargs is 4"), tl_last_error(ctx));
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100), tl_arg_i32(1)};
    s = tl_launch(k, grid, args, 4);
    check("msg/args_count", s == TL_ERROR_LAUNCH &&
          !strcmp(tl_last_error(ctx), "copy_k: expected 3 arguments (x_ptr, z_ptr, n), got 4"), tl_last_error(ctx));
    tl_kernel_destroy(k);
}

/* Item 6: tl_last_error(NULL) is the calling thread's. */
typedef struct OpenJob {
    int ok;
    char msg[512];
} OpenJob;

static void *auto_open(void *arg) {
    OpenJob *j = arg;
    TlContext *c = NULL;
    for (int i = 0; i < 50; i++) {
        TlStatus s = tl_context_create(TL_DEVICE_AUTO, &c);
        j->ok += s == TL_SUCCESS && tl_context_device(c) == TL_DEVICE_CPU;
        if (i == 0)
            snprintf(j->msg, sizeof j->msg, "%s", tl_last_error(NULL));
        j->ok -= strcmp(j->msg, tl_last_error(NULL)) != 0; /* another thread's write shows here */
        tl_context_destroy(c);
    }
    return NULL;
}

static void *read_reason(void *arg) {
    snprintf(arg, 512, "%s", tl_last_error(NULL));
    return NULL;
}

static void thread_tests(void) {
    const char *want = "no CUDA device: cannot load the CUDA driver (/nonexistent/libcuda.so.1: cannot open shared "
                       "object file: No such file or directory)";
    unsetenv("TL_INTERPRET");
    setenv("TL_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    enum { N = 8 };
    pthread_t th[N];
    OpenJob jobs[N] = {0};
    for (int i = 0; i < N; i++)
        pthread_create(&th[i], NULL, auto_open, &jobs[i]);
    int ok = 1;
    for (int i = 0; i < N; i++) {
        pthread_join(th[i], NULL);
        ok &= jobs[i].ok == 50 && !strcmp(jobs[i].msg, want);
    }
    check("threads/auto_fallback_reason", ok, jobs[0].msg);
    char other[512] = "unset";
    pthread_create(&th[0], NULL, read_reason, other);
    pthread_join(th[0], NULL);
    check("threads/reason_is_per_thread", !strcmp(other, ""), other);
    setenv("TL_INTERPRET", "1", 1);
}

int main(void) {
    if (tl_context_create(TL_DEVICE_CPU, &ctx) != TL_SUCCESS)
        return 2;
    TlBuffer *x, *z;
    float host[100];
    for (int i = 0; i < 100; i++)
        host[i] = (float)i;
    tl_buffer_create(ctx, TL_F32, 100, &x);
    tl_buffer_create(ctx, TL_F32, 100, &z);
    tl_buffer_write(x, 0, host, sizeof host);
    grid_tests(x, z);
    desc_tests();
    destroy_tests(x, z);
    message_tests(x, z);
    thread_tests();
    tl_buffer_destroy(x);
    tl_buffer_destroy(z);
    tl_context_destroy(ctx);
    return failures != 0;
}
