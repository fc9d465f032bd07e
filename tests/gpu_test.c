/* gpu_test.c: runtime tests on a real GPU (make gpu-test): the disk cache
 * (miss, hit, corrupted entry rebuilt), PTX the driver rejects, launch errors
 * and a kernel needing more shared memory than the device has; a flattened
 * persistent loop (flatten.c) without a dot, whose epilogue reduces and
 * whose tile loop carries a sum, against a C reference; a row loop whose
 * loads run ahead of its stores (pipeline.c row_loop) in place and apart.
 * Prints
 * [PASS]/[FAIL] lines; exits 3 with a message when there is no GPU. */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda.h"
#include "tl.h"

static int failures;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] gpu/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
    fflush(stdout);
}

static const char *copy_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
    "    offs = tl.program_id(0) * bs + tl.arange(0, bs)\n"
    "    mask = offs < n\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask), mask)\n";

/* A 256x256 fp32 transpose: its layout change needs 256 KiB of shared memory. */
static const char *big_smem_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def trans_k(x_ptr, z_ptr):\n"
    "    r = tl.arange(0, 256)\n"
    "    x = tl.load(x_ptr + r[:, None] * 256 + r[None, :])\n"
    "    tl.store(z_ptr + r[:, None] * 256 + r[None, :], tl.trans(x))\n";

/* tl.range(..., flatten=True) over row tiles, a K loop summing columns into
 * a carried block, an epilogue that reduces it and a running total carried
 * by the tile loop (program pid's sum at out[M + pid]). */
static const char *flat_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def flat_k(a_ptr, c_ptr, M, K, NUM_SMS: tl.constexpr, BM: tl.constexpr, BK: tl.constexpr):\n"
    "    total = 0.0\n"
    "    for t in tl.range(tl.program_id(0), tl.cdiv(M, BM), NUM_SMS, flatten=True):\n"
    "        rm = t * BM + tl.arange(0, BM)\n"
    "        acc = tl.zeros((BM, BK), dtype=tl.float32)\n"
    "        for k in range(0, tl.cdiv(K, BK)):\n"
    "            rk = k * BK + tl.arange(0, BK)\n"
    "            acc += tl.load(a_ptr + rm[:, None] * K + rk[None, :], mask=(rm[:, None] < M) & (rk[None, :] < K),\n"
    "                           other=0.0)\n"
    "        s = tl.sum(acc, axis=1)\n"
    "        tl.store(c_ptr + rm, s, mask=rm < M)\n"
    "        total += tl.sum(s, axis=0)\n"
    "    tl.store(c_ptr + M + tl.program_id(0), total)\n";

/* flat_k at M x K (rows of BM = 64 over 4 programs, K steps of 32). */
static void run_flat(TlContext *ctx, int M, int K) {
    char name[64], why[160] = "";
    snprintf(name, sizeof name, "flatten_reduce_epilogue_%dx%d", M, K);
    TlKernel *k;
    if (tl_kernel_from_string(ctx, flat_src, "-D NUM_SMS=4 -D BM=64 -D BK=32", &k) != TL_SUCCESS) {
        check(name, 0, tl_last_error(ctx));
        return;
    }
    size_t n = (size_t)M * (size_t)K;
    float *a = malloc(sizeof(float) * (n ? n : 1)), *c = malloc(sizeof(float) * (size_t)(M + 4));
    for (size_t i = 0; i < n; i++)
        a[i] = (float)((i * 2654435761u) % 1000) / 500.0f - 1.0f;
    TlBuffer *ba, *bc;
    tl_buffer_create(ctx, TL_F32, n ? n : 1, &ba);
    tl_buffer_create(ctx, TL_F32, (size_t)M + 4, &bc);
    if (n)
        tl_buffer_write(ba, 0, a, sizeof(float) * n);
    TlArg args[] = {tl_arg_buffer(ba), tl_arg_buffer(bc), tl_arg_i32(M), tl_arg_i32(K)};
    unsigned grid[3] = {4, 1, 1};
    TlStatus s = tl_launch(k, grid, args, 4);
    tl_buffer_read(bc, 0, c, sizeof(float) * (size_t)(M + 4));
    int ok = s == TL_SUCCESS;
    double tot[4] = {0, 0, 0, 0};
    for (int r = 0; r < M && ok; r++) {
        double want = 0;
        for (int q = 0; q < K; q++)
            want += a[(size_t)r * K + q];
        tot[(r / 64) % 4] += want;
        if (!(fabs(c[r] - want) <= 1e-4 * (1 + fabs(want)))) {
            snprintf(why, sizeof why, "c[%d] = %g, want %g", r, c[r], want);
            ok = 0;
        }
    }
    for (int p = 0; p < 4 && ok; p++)
        if (!(fabs(c[M + p] - tot[p]) <= 1e-3 * (1 + fabs(tot[p])))) {
            snprintf(why, sizeof why, "program %d's total %g, want %g", p, c[M + p], tot[p]);
            ok = 0;
        }
    check(name, ok, s != TL_SUCCESS ? tl_last_error(ctx) : why);
    tl_buffer_destroy(ba), tl_buffer_destroy(bc);
    tl_kernel_destroy(k);
    free(a), free(c);
}

/* A row loop (pipeline.c row_loop): row r + SHIFT = 2 * row r + 1 for r =
 * 0, STEP, 2 STEP, ..., in place (Y is X: a store writes the row an
 * iteration SHIFT / STEP on reads, which the loads running ahead must not
 * have fetched yet) or into another buffer (no store meets a load:
 * pipelined). */
static const char *rows_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def rows_k(x_ptr, y_ptr, stride, n_rows, BLOCK: tl.constexpr, SHIFT: tl.constexpr, STEP: tl.constexpr):\n"
    "    cols = tl.arange(0, BLOCK)\n"
    "    for r in range(0, n_rows - SHIFT, STEP):\n"
    "        x = tl.load(x_ptr + r * stride + cols)\n"
    "        tl.store(y_ptr + (r + SHIFT) * stride + cols, x * 2.0 + 1.0)\n";

static void run_rows(TlContext *ctx, int in_place, int shift, int n, int step) {
    enum { BLOCK = 2048, STRIDE = 2064 };
    char name[80], opts[64], why[160] = "";
    snprintf(name, sizeof name, "row_loop_%s_shift%d_rows%d%s", in_place ? "in_place" : "apart", shift, n,
             step > 1 ? "_step2" : "");
    snprintf(opts, sizeof opts, "-D BLOCK=%d -D SHIFT=%d -D STEP=%d", BLOCK, shift, step);
    TlKernel *k;
    if (tl_kernel_from_string(ctx, rows_src, opts, &k) != TL_SUCCESS) {
        check(name, 0, tl_last_error(ctx));
        return;
    }
    size_t len = (size_t)n * STRIDE;
    float *x = malloc(sizeof(float) * len), *y = malloc(sizeof(float) * len), *want = malloc(sizeof(float) * len);
    for (size_t i = 0; i < len; i++)
        x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f;
    if (in_place) {
        memcpy(want, x, sizeof(float) * len);
    } else {
        memset(want, 0, sizeof(float) * len);
        memset(y, 0, sizeof(float) * len);
    }
    for (int r = 0; r + shift < n; r += step) /* the loop as written, one row after the other */
        for (int c = 0; c < BLOCK; c++)
            want[(size_t)(r + shift) * STRIDE + c] = (in_place ? want : x)[(size_t)r * STRIDE + c] * 2.0f + 1.0f;
    TlBuffer *bx, *by = NULL;
    tl_buffer_create(ctx, TL_F32, len, &bx);
    tl_buffer_write(bx, 0, x, sizeof(float) * len);
    if (!in_place) {
        tl_buffer_create(ctx, TL_F32, len, &by);
        tl_buffer_write(by, 0, y, sizeof(float) * len);
    }
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(in_place ? bx : by), tl_arg_i32(STRIDE), tl_arg_i32(n)};
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, args, 4);
    tl_buffer_read(in_place ? bx : by, 0, y, sizeof(float) * len);
    int ok = s == TL_SUCCESS;
    for (size_t i = 0; i < len && ok; i++)
        if (y[i] != want[i] && (i % STRIDE) < BLOCK) {
            snprintf(why, sizeof why, "row %zu col %zu: %g, want %g", i / STRIDE, i % STRIDE, y[i], want[i]);
            ok = 0;
        }
    check(name, ok, s != TL_SUCCESS ? tl_last_error(ctx) : why);
    tl_buffer_destroy(bx);
    if (by)
        tl_buffer_destroy(by);
    tl_kernel_destroy(k);
    free(x), free(y), free(want);
}

/* A row loop storing a row and then loading it back (y = 2x + 1, z = 3y):
 * the load comes after the store in the body, so it may not run ahead of
 * its own iteration's store even where both move by one row an iteration. */
static const char *rows_back_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def rows_back_k(x_ptr, y_ptr, z_ptr, stride, n_rows, BLOCK: tl.constexpr):\n"
    "    cols = tl.arange(0, BLOCK)\n"
    "    for r in range(0, n_rows):\n"
    "        tl.store(y_ptr + r * stride + cols, tl.load(x_ptr + r * stride + cols) * 2.0 + 1.0)\n"
    "        y = tl.load(y_ptr + r * stride + cols)\n"
    "        tl.store(z_ptr + r * stride + cols, y * 3.0)\n";

static void run_rows_back(TlContext *ctx, int n) {
    enum { BLOCK = 2048, STRIDE = 2064 };
    char name[80], why[160] = "";
    snprintf(name, sizeof name, "row_loop_store_then_load_rows%d", n);
    TlKernel *k;
    if (tl_kernel_from_string(ctx, rows_back_src, "-D BLOCK=2048", &k) != TL_SUCCESS) {
        check(name, 0, tl_last_error(ctx));
        return;
    }
    size_t len = (size_t)n * STRIDE;
    float *x = malloc(sizeof(float) * len), *z = malloc(sizeof(float) * len);
    for (size_t i = 0; i < len; i++)
        x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f, z[i] = -1.0f;
    TlBuffer *b[3];
    for (int i = 0; i < 3; i++) {
        tl_buffer_create(ctx, TL_F32, len, &b[i]);
        tl_buffer_write(b[i], 0, i ? z : x, sizeof(float) * len); /* y and z start at -1 */
    }
    TlArg args[] = {tl_arg_buffer(b[0]), tl_arg_buffer(b[1]), tl_arg_buffer(b[2]), tl_arg_i32(STRIDE), tl_arg_i32(n)};
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, args, 5);
    tl_buffer_read(b[2], 0, z, sizeof(float) * len);
    int ok = s == TL_SUCCESS;
    for (size_t i = 0; i < len && ok; i++) {
        float want = (i % STRIDE) < BLOCK ? (x[i] * 2.0f + 1.0f) * 3.0f : -1.0f;
        if (z[i] != want) {
            snprintf(why, sizeof why, "row %zu col %zu: %g, want %g", i / STRIDE, i % STRIDE, z[i], want);
            ok = 0;
        }
    }
    check(name, ok, s != TL_SUCCESS ? tl_last_error(ctx) : why);
    for (int i = 0; i < 3; i++)
        tl_buffer_destroy(b[i]);
    tl_kernel_destroy(k);
    free(x), free(z);
}

/* Copy n floats through copy_k with a fresh kernel; returns the status. */
static TlStatus run_copy(TlContext *ctx, int n, int *correct) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, copy_src, "-D bs=256", &k);
    if (s != TL_SUCCESS)
        return s;
    float *x = malloc(sizeof(float) * (size_t)n), *z = calloc((size_t)n, sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = (float)i * 0.25f - 3.0f;
    TlBuffer *bx, *bz;
    tl_buffer_create(ctx, TL_F32, (size_t)n, &bx);
    tl_buffer_create(ctx, TL_F32, (size_t)n, &bz);
    tl_buffer_write(bx, 0, x, sizeof(float) * (size_t)n);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz), tl_arg_i32(n)};
    unsigned grid[3] = {(unsigned)(n + 255) / 256, 1, 1};
    s = tl_launch(k, grid, args, 3);
    tl_buffer_read(bz, 0, z, sizeof(float) * (size_t)n);
    *correct = s == TL_SUCCESS && !memcmp(x, z, sizeof(float) * (size_t)n);
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    tl_kernel_destroy(k);
    free(x);
    free(z);
    return s;
}

static int find_entry(const char *dir, char *path, size_t len) {
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;
    while (d && (e = readdir(d)))
        if (strstr(e->d_name, ".tlc") && !strstr(e->d_name, ".tmp")) {
            snprintf(path, len, "%s/%s", dir, e->d_name);
            found = 1;
        }
    if (d)
        closedir(d);
    return found;
}

int main(void) {
    TlContext *ctx;
    TlStatus s = tl_context_create(TL_DEVICE_CUDA, &ctx);
    if (s != TL_SUCCESS) {
        printf("gpu_test: no GPU: %s (%s)\n", tl_status_name(s), tl_last_error(NULL));
        return 3;
    }
    printf("device: %s\n", tl_context_device_name(ctx));

    char dir[] = "/tmp/tl-cache-test-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    setenv("TL_CACHE_DIR", dir, 1);
    unsetenv("TL_ALWAYS_COMPILE");

    TlStats st;
    int ok;
    s = run_copy(ctx, 1000, &ok);
    tl_context_stats(ctx, &st);
    check("cache_miss_compiles", s == TL_SUCCESS && ok && st.cache_misses == 1 && st.cache_hits == 0,
          tl_last_error(ctx));
    s = run_copy(ctx, 1000, &ok);
    tl_context_stats(ctx, &st);
    check("cache_hit_loads", s == TL_SUCCESS && ok && st.cache_hits == 1 && st.cache_misses == 1, tl_last_error(ctx));

    char entry[4096];
    if (find_entry(dir, entry, sizeof entry)) {
        /* Flip bytes in the middle of the cubin. */
        FILE *f = fopen(entry, "r+b");
        fseek(f, 0, SEEK_END);
        long size = ftell(f);
        fseek(f, size / 2, SEEK_SET);
        fputs("garbage-garbage", f);
        fclose(f);
        s = run_copy(ctx, 1000, &ok);
        tl_context_stats(ctx, &st);
        check("cache_corrupt_rebuilt", s == TL_SUCCESS && ok && st.cache_corrupt == 1 && st.cache_misses == 2,
              tl_last_error(ctx));
        /* Truncated entry. */
        truncate(entry, 20);
        s = run_copy(ctx, 1000, &ok);
        tl_context_stats(ctx, &st);
        check("cache_truncated_rebuilt", s == TL_SUCCESS && ok && st.cache_corrupt == 2, tl_last_error(ctx));
        s = run_copy(ctx, 1000, &ok);
        tl_context_stats(ctx, &st);
        check("cache_hit_after_rebuild", s == TL_SUCCESS && ok && st.cache_hits == 2, tl_last_error(ctx));
    } else {
        check("cache_entry_written", 0, dir);
    }
    setenv("TL_ALWAYS_COMPILE", "1", 1);
    unsigned long hits = st.cache_hits;
    s = run_copy(ctx, 1000, &ok);
    tl_context_stats(ctx, &st);
    check("always_compile_bypasses_cache", s == TL_SUCCESS && ok && st.cache_hits == hits, tl_last_error(ctx));
    unsetenv("TL_ALWAYS_COMPILE");

    /* Ragged sizes on the device. */
    int sizes[] = {1, 255, 256, 257, 1000003};
    for (int i = 0; i < 5; i++) {
        char name[64];
        snprintf(name, sizeof name, "copy_n=%d", sizes[i]);
        s = run_copy(ctx, sizes[i], &ok);
        check(name, s == TL_SUCCESS && ok, tl_last_error(ctx));
    }

    /* ptxas rejects bad PTX with its own messages; without a ptxas (none,
     * or one that cannot run) the driver compiles the PTX, the same copy
     * runs, and a ptxas that cannot run leaves a note. */
    Buf ptxas = {0}, log = {0}, cubin = {0};
    if (cuda_find_ptxas(&ptxas)) {
        const char *bad = ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k() { bogus.instruction; }\n";
        PtxasResult r = cuda_run_ptxas(ptxas.data, "sm_90", false, bad, strlen(bad), &cubin, &log);
        check("bad_ptx_rejected_with_log", r == PTXAS_REJECTED && log.data && strstr(log.data, "bogus") &&
              strstr(log.data, "rejected the PTX for sm_90"), log.data);
    }
    buf_free(&ptxas), buf_free(&log), buf_free(&cubin);
    setenv("TL_ALWAYS_COMPILE", "1", 1);
    const char *no_ptxas[] = {"none", "/nonexistent/ptxas"};
    for (int i = 0; i < 2; i++) {
        setenv("TL_PTXAS", no_ptxas[i], 1);
        TlKernel *kc = NULL;
        TlBuffer *xb = NULL, *yb = NULL;
        unsigned g4[3] = {4, 1, 1};
        float hx[1000], hy[1000];
        for (int j = 0; j < 1000; j++)
            hx[j] = (float)j * 0.25f - 7.0f;
        s = tl_kernel_from_string(ctx, copy_src, "-D bs=256", &kc);
        s = s ? s : tl_buffer_create(ctx, TL_F32, 1000, &xb);
        s = s ? s : tl_buffer_create(ctx, TL_F32, 1000, &yb);
        s = s ? s : tl_buffer_write(xb, 0, hx, sizeof hx);
        TlArg ca[] = {tl_arg_buffer(xb), tl_arg_buffer(yb), tl_arg_i32(1000)};
        s = s ? s : tl_launch(kc, g4, ca, 3);
        s = s ? s : tl_buffer_read(yb, 0, hy, sizeof hy);
        bool same = s == TL_SUCCESS && !memcmp(hx, hy, sizeof hx);
        bool note = i == 0 || (tl_kernel_log(kc) && strstr(tl_kernel_log(kc), "the CUDA driver compiles the PTX"));
        check(i ? "ptxas_cannot_run_driver_compiles" : "ptxas_none_driver_compiles", same && note,
              s ? tl_last_error(ctx) : tl_kernel_log(kc));
        tl_kernel_destroy(kc);
        tl_buffer_destroy(xb);
        tl_buffer_destroy(yb);
    }
    unsetenv("TL_PTXAS");
    unsetenv("TL_ALWAYS_COMPILE");

    /* Launch errors. */
    TlKernel *k;
    tl_kernel_from_string(ctx, copy_src, "-D bs=256", &k);
    TlBuffer *b, *foreign = NULL;
    TlContext *other = NULL;
    tl_buffer_create(ctx, TL_F32, 256, &b);
    if (tl_context_create(TL_DEVICE_CUDA, &other) == TL_SUCCESS)
        tl_buffer_create(other, TL_F32, 256, &foreign);
    TlArg args[] = {tl_arg_buffer(b), tl_arg_buffer(b), tl_arg_i32(256)};
    unsigned g1[3] = {1, 1, 1}, g0[3] = {0, 1, 1}, gbig[3] = {1, 1, 65536};
    check("launch_wrong_arg_count", tl_launch(k, g1, args, 2) == TL_ERROR_LAUNCH, tl_last_error(ctx));
    check("launch_zero_grid", tl_launch(k, g0, args, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
    check("launch_grid_over_limit", tl_launch(k, gbig, args, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
    TlArg nullb[] = {tl_arg_buffer(NULL), tl_arg_buffer(b), tl_arg_i32(256)};
    check("launch_null_buffer", tl_launch(k, g1, nullb, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
    if (foreign) {
        TlArg fa[] = {tl_arg_buffer(foreign), tl_arg_buffer(b), tl_arg_i32(256)};
        check("launch_foreign_buffer", tl_launch(k, g1, fa, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
    }
    /* Without a signature the launch types n: a float n compiles `offs < n`
     * as Triton does (the offsets promoted to fp32), so n = 2.5 copies 3. */
    TlBuffer *dst = NULL;
    float src_h[256], dst_h[256] = {0};
    for (int i = 0; i < 256; i++)
        src_h[i] = (float)i * 0.5f + 1.0f;
    bool copied = false;
    if (tl_buffer_create(ctx, TL_F32, 256, &dst) == TL_SUCCESS && tl_buffer_write(b, 0, src_h, sizeof src_h) == TL_SUCCESS &&
        tl_buffer_write(dst, 0, dst_h, sizeof dst_h) == TL_SUCCESS) {
        TlArg floats[] = {tl_arg_buffer(b), tl_arg_buffer(dst), tl_arg_f32(2.5f)};
        s = tl_launch(k, g1, floats, 3);
        copied = s == TL_SUCCESS && tl_buffer_read(dst, 0, dst_h, sizeof dst_h) == TL_SUCCESS;
        for (int i = 0; copied && i < 256; i++)
            copied = dst_h[i] == (i < 3 ? src_h[i] : 0.0f);
    }
    check("launch_float_for_int_param_typed_by_the_launch", copied, tl_last_error(ctx));
    tl_buffer_destroy(dst);
    tl_kernel_destroy(k);

    /* Too much shared memory: a source-located compile error, not a crash. */
    s = tl_kernel_from_string(ctx, big_smem_src, "--num-warps 32", &k);
    if (s == TL_SUCCESS) {
        TlBuffer *big;
        tl_buffer_create(ctx, TL_F32, 65536, &big);
        TlArg ba[] = {tl_arg_buffer(big), tl_arg_buffer(big)};
        s = tl_launch(k, g1, ba, 2);
        check("too_much_shared_memory", s == TL_ERROR_COMPILE && strstr(tl_last_error(ctx), "shared memory") &&
              strstr(tl_last_error(ctx), "<string>:"), tl_last_error(ctx));
        tl_buffer_destroy(big);
        tl_kernel_destroy(k);
    } else {
        check("too_much_shared_memory", 0, tl_last_error(ctx));
    }

    /* five row tiles over four programs (one takes two), K ragged, one K
     * step, and no K step at all (the loop as written: totals of zeros) */
    run_flat(ctx, 300, 77);
    run_flat(ctx, 130, 5);
    run_flat(ctx, 70, 0);
    /* {in place, shift, rows, step}: at step 2, shift 4 meets the load two
     * iterations on, shift 3 no load */
    static const int row_cases[][4] = {{0, 1, 2, 1},  {0, 1, 37, 1}, {1, 0, 37, 1}, {1, 1, 2, 1},
                                       {1, 1, 37, 1}, {1, 2, 37, 1}, {1, 3, 37, 1}, {1, 4, 37, 1},
                                       {1, 3, 4, 1},  {1, 4, 37, 2}, {1, 3, 37, 2}};
    for (size_t i = 0; i < sizeof row_cases / sizeof *row_cases; i++)
        run_rows(ctx, row_cases[i][0], row_cases[i][1], row_cases[i][2], row_cases[i][3]);
    run_rows_back(ctx, 1);
    run_rows_back(ctx, 37);

    tl_buffer_destroy(b);
    tl_buffer_destroy(foreign);
    tl_context_destroy(other);
    tl_context_destroy(ctx);
    return failures ? 1 : 0;
}
