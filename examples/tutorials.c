/* tutorials: Triton's tutorials 01 (vector add), 02 (fused softmax), 03
 * (matrix multiplication), 04 (low-memory dropout), 05 (layer norm, forward
 * and backward), 06 (fused attention, forward and backward), 07 (extern functions), 08
 * (grouped GEMM) and 09 (persistent matmul, every variant), their host code in C: each kernel
 * of examples/tutorial_*.tl is launched as the tutorial launches it and
 * checked against a C reference at ragged sizes (1, BLOCK +- 1, primes).
 *
 * The interpreter runs small sizes; on a GPU the tutorials' own sizes are
 * added (1823x781 softmax, 512^3 matmul tuned at launch, 1151x8192 layer
 * norm, ...). The kernels keep the tutorials' names and parameters, so
 * TL_EXAMPLES_DIR=DIR runs the same checks on the upstream files saved in DIR
 * under the same names. */
#include "common.h"

static int on_gpu;

/* ---- data ---- */

static float *random_floats(size_t n, double lo, double hi) {
    float *v = malloc((n ? n : 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = (float)(lo + (hi - lo) * (ex_uniform() + 1) / 2);
    return v;
}

/* Round to fp16 in place (so the reference sees what the kernel reads) and
 * upload as fp16. */
static TlBuffer *upload_f16(TlContext *ctx, float *v, size_t n) {
    uint16_t *h = malloc((n ? n : 1) * 2);
    for (size_t i = 0; i < n; i++) {
        h[i] = ex_f2h(v[i]);
        v[i] = ex_h2f(h[i]);
    }
    TlBuffer *b = ex_buffer(ctx, TL_F16, n, h);
    free(h);
    return b;
}

static double *read_back(TlBuffer *b, size_t n) {
    TlDType dt = tl_buffer_dtype(b);
    void *raw = malloc((n ? n : 1) * tl_dtype_size(dt));
    double *d = malloc((n ? n : 1) * sizeof *d);
    tl_buffer_read(b, 0, raw, n * tl_dtype_size(dt));
    for (size_t i = 0; i < n; i++)
        d[i] = dt == TL_F16 ? ex_h2f(((uint16_t *)raw)[i]) : dt == TL_I32 ? ((int32_t *)raw)[i] : ((float *)raw)[i];
    free(raw);
    return d;
}

static size_t next_pow2(size_t n) {
    size_t p = 1;
    while (p < n)
        p <<= 1;
    return p;
}

/* Compare, print the case's line; returns 1 when it passed. */
static int check(const char *name, const double *got, const double *want, size_t n, double atol, double rtol) {
    size_t where;
    double worst = ex_compare(got, want, n, atol, rtol, &where);
    ex_result(name, worst <= 1, "[%zu] = %.9g, want %.9g (error %.2fx the tolerance)", where, n ? got[where] : 0,
              n ? want[where] : 0, worst);
    return worst <= 1;
}

static int launched(TlContext *ctx, const char *name, TlStatus s) {
    if (s == TL_SUCCESS)
        return 1;
    ex_result(name, 0, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
    return 0;
}

/* ---- 01: vector add ---- */

static void vector_add(TlContext *ctx, TlKernel *k, size_t n) {
    char name[64];
    snprintf(name, sizeof name, "01 add_kernel n=%zu", n);
    if (ex_skipped(name))
        return;
    float *x = random_floats(n, 0, 1), *y = random_floats(n, 0, 1);
    TlBuffer *bx = ex_buffer(ctx, TL_F32, n, x), *by = ex_buffer(ctx, TL_F32, n, y);
    TlBuffer *bo = ex_buffer(ctx, TL_F32, n, NULL);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_buffer(bo), tl_arg_i32((int)n)};
    unsigned grid[3] = {ex_cdiv(n, 1024), 1, 1};
    if (launched(ctx, name, tl_launch(k, grid, args, 4))) {
        double *got = read_back(bo, n), *want = malloc(n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            want[i] = x[i] + y[i]; /* one fp32 rounding, as the kernel's */
        check(name, got, want, n, 1e-30, 0); /* exact */
        free(got), free(want);
    }
    tl_buffer_destroy(bx), tl_buffer_destroy(by), tl_buffer_destroy(bo);
    free(x), free(y);
}

/* ---- 02: fused softmax ---- */

/* The input rows are `pad` elements longer than n_cols (input_row_stride). */
static void softmax(TlContext *ctx, size_t rows, size_t cols, unsigned programs) {
    char name[80], opts[96];
    snprintf(name, sizeof name, "02 softmax_kernel %zux%zu, %u programs", rows, cols, programs);
    if (ex_skipped(name))
        return;
    snprintf(opts, sizeof opts, "-D BLOCK_SIZE=%zu -D num_stages=2 --num-warps 8", next_pow2(cols));
    TlKernel *k = ex_kernel(ctx, "tutorial_02_fused_softmax.tl", opts);
    size_t in_stride = cols + 3;
    float *x = random_floats(rows * in_stride, -4, 4);
    TlBuffer *bx = ex_buffer(ctx, TL_F32, rows * in_stride, x), *by = ex_buffer(ctx, TL_F32, rows * cols, NULL);
    TlArg args[] = {tl_arg_buffer(by), tl_arg_buffer(bx), tl_arg_i32((int)in_stride), tl_arg_i32((int)cols),
                    tl_arg_i32((int)rows), tl_arg_i32((int)cols)};
    unsigned grid[3] = {programs, 1, 1};
    if (launched(ctx, name, tl_launch(k, grid, args, 6))) {
        double *got = read_back(by, rows * cols), *want = malloc(rows * cols * sizeof *want);
        for (size_t r = 0; r < rows; r++) {
            const float *row = x + r * in_stride;
            double mx = -INFINITY, sum = 0;
            for (size_t c = 0; c < cols; c++)
                mx = fmax(mx, row[c]);
            for (size_t c = 0; c < cols; c++)
                sum += exp(row[c] - mx);
            for (size_t c = 0; c < cols; c++)
                want[r * cols + c] = exp(row[c] - mx) / sum;
        }
        check(name, got, want, rows * cols, 1e-7, 1e-4);
        free(got), free(want);
    }
    tl_buffer_destroy(bx), tl_buffer_destroy(by), tl_kernel_destroy(k);
    free(x);
}

/* ---- 03: matrix multiplication ---- */

/* fp8e5 (E5M2) <-> float on the host: the nearest of the 256 codes, ties to
 * the even one, saturating (the kernel's inputs are in range). */
static double e5m2_value(unsigned c) {
    unsigned e = (c >> 2) & 31, m = c & 3;
    double v = e ? ldexp(1 + m / 4.0, (int)e - 15) : ldexp(m / 4.0, -14);
    return c & 0x80 ? -v : v;
}
static uint8_t e5m2_bits(float x) {
    unsigned best = 0;
    for (unsigned c = 1; c < 0x7C; c++)
        if (fabs(e5m2_value(c) - fabs(x)) < fabs(e5m2_value(best) - fabs(x)) ||
            (fabs(e5m2_value(c) - fabs(x)) == fabs(e5m2_value(best) - fabs(x)) && !(c & 1)))
            best = c;
    return (uint8_t)(best | (x < 0 ? 0x80 : 0));
}

/* Round to the inputs' dtype in place (fp16, or fp8e5 as the tutorial's
 * last test does) and upload. */
static TlBuffer *upload_as(TlContext *ctx, TlDType dt, float *v, size_t n) {
    if (dt == TL_F16)
        return upload_f16(ctx, v, n);
    uint8_t *h = malloc(n ? n : 1);
    for (size_t i = 0; i < n; i++) {
        h[i] = e5m2_bits(v[i]);
        v[i] = (float)e5m2_value(h[i]);
    }
    TlBuffer *b = ex_buffer(ctx, TL_F8E5M2, n, h);
    free(h);
    return b;
}

/* C = A x B (fp16 out), A (M, K) row-major; B (K, N) row-major, or stored
 * transposed as (N, K) (the strides say which); inputs fp16 or fp8e5.
 * config < 0: tuned at launch with the grid as an expression of the chosen
 * config. */
static void matmul(TlContext *ctx, TlDType in_dt, int M, int N, int K, int b_transposed, int leaky, int config) {
    char name[96], opts[96];
    snprintf(name, sizeof name, "03 matmul_kernel %s %dx%dx%d%s%s%s", in_dt == TL_F16 ? "fp16" : "fp8e5", M, N, K,
             b_transposed ? " B^T" : "", leaky ? " leaky_relu" : "", config < 0 ? " (tuned)" : "");
    if (ex_skipped(name))
        return;
    int n = snprintf(opts, sizeof opts, "-D \"ACTIVATION=%s\"", leaky ? "'leaky_relu'" : "''");
    if (config >= 0)
        snprintf(opts + n, sizeof opts - (size_t)n, " --autotune-config %d", config);
    TlKernel *k = ex_kernel(ctx, "tutorial_03_matmul.tl", opts);
    size_t mk = (size_t)M * K, kn = (size_t)K * N, mn = (size_t)M * N;
    float *a = random_floats(mk, -1, 1), *b = random_floats(kn, -1, 1); /* b[k * N + n] */
    TlBuffer *ba = upload_as(ctx, in_dt, a, mk), *bc = ex_buffer(ctx, TL_F16, mn, NULL), *bb;
    if (b_transposed) {
        float *t = malloc(kn * sizeof *t);
        for (int i = 0; i < K; i++)
            for (int j = 0; j < N; j++)
                t[(size_t)j * K + i] = b[(size_t)i * N + j];
        bb = upload_as(ctx, in_dt, t, kn);
        for (int i = 0; i < K; i++)
            for (int j = 0; j < N; j++)
                b[(size_t)i * N + j] = t[(size_t)j * K + i];
        free(t);
    } else {
        bb = upload_as(ctx, in_dt, b, kn);
    }
    TlArg args[] = {tl_arg_buffer(ba), tl_arg_buffer(bb), tl_arg_buffer(bc), tl_arg_i32(M), tl_arg_i32(N),
                    tl_arg_i32(K), tl_arg_i32(K), tl_arg_i32(1), tl_arg_i32(b_transposed ? 1 : N),
                    tl_arg_i32(b_transposed ? K : 1), tl_arg_i32(N), tl_arg_i32(1)};
    TlStatus s = tl_launch_grid(k, "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", args, 12);
    if (launched(ctx, name, s)) {
        if (config < 0) {
            TlKernelConfig cfg;
            tl_kernel_config(k, &cfg);
            printf("(%s: config %d of %d)\n", name, cfg.autotune_config, cfg.num_configs);
        }
        double *got = read_back(bc, mn), *want = malloc(mn * sizeof *want);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int kk = 0; kk < K; kk++)
                    acc += (double)a[(size_t)i * K + kk] * b[(size_t)kk * N + j];
                want[(size_t)i * N + j] = leaky && acc < 0 ? 0.01 * acc : acc;
            }
        check(name, got, want, mn, 1e-2, 1e-2);
        free(got), free(want);
    }
    tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc), tl_kernel_destroy(k);
    free(a), free(b);
}

/* ---- 04: low-memory dropout ---- */

/* Philox4x32 (Salmon et al., Random123), written from the paper. */
static void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds) {
    for (int r = 0; r < rounds; r++) {
        if (r)
            k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0, c[1] = (uint32_t)p1, c[2] = n2, c[3] = (uint32_t)p0;
    }
}

/* tl.rand(seed, offset) for an int32 seed >= 0 and offset: the first word of
 * Philox4x32-10 on (offset, 0, 0, 0) with key (seed, 0), as a float in [0, 1)
 * (random.uint_to_uniform_float, in fp32). */
static float triton_rand(uint32_t seed, uint32_t offset) {
    uint32_t c[4] = {offset, 0, 0, 0};
    philox4x32(c, seed, 0, 10);
    int32_t x = (int32_t)c[0];
    x = x < 0 ? -(x + 1) : x;
    return (float)x * 4.6566127342e-10f;
}

/* keep: the mask given (baseline), or NULL for the seeded kernel with seed. */
static double *dropout_ref(const float *x, const int32_t *keep, uint32_t seed, float p, size_t n) {
    double *want = malloc((n ? n : 1) * sizeof *want);
    float scale = 1.0f - p;
    for (size_t i = 0; i < n; i++) {
        int k = keep ? keep[i] != 0 : triton_rand(seed, (uint32_t)i) > p;
        want[i] = k ? x[i] / scale : 0.0;
    }
    return want;
}

static void dropout(TlContext *ctx, TlKernel *base, TlKernel *seeded, size_t n, float p) {
    char name[80];
    if (ex_skipped("04 _dropout"))
        return;
    float *x = random_floats(n, -2, 2);
    int32_t *keep = malloc((n ? n : 1) * sizeof *keep);
    for (size_t i = 0; i < n; i++)
        keep[i] = ex_uniform() > 2 * p - 1;
    TlBuffer *bx = ex_buffer(ctx, TL_F32, n, x), *bk = ex_buffer(ctx, TL_I32, n, keep);
    TlBuffer *bo = ex_buffer(ctx, TL_F32, n, NULL);
    unsigned grid[3] = {ex_cdiv(n, 1024), 1, 1};
    snprintf(name, sizeof name, "04 _dropout n=%zu p=%g", n, p);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bk), tl_arg_buffer(bo), tl_arg_i32((int)n), tl_arg_f32(p)};
    if (launched(ctx, name, tl_launch(base, grid, args, 5))) {
        double *got = read_back(bo, n), *want = dropout_ref(x, keep, 0, p, n);
        check(name, got, want, n, 1e-30, 1e-6);
        free(got), free(want);
    }
    /* Seeded: the same seed gives the same mask twice; another seed another one. */
    double *first = NULL;
    static const int seeds[] = {123, 123, 512};
    for (int s = 0; s < 3; s++) {
        snprintf(name, sizeof name, "04 _seeded_dropout n=%zu p=%g seed=%d%s", n, p, seeds[s], s == 1 ? " again" : "");
        TlArg sargs[] = {tl_arg_buffer(bx), tl_arg_buffer(bo), tl_arg_i32((int)n), tl_arg_f32(p), tl_arg_i32(seeds[s])};
        if (!launched(ctx, name, tl_launch(seeded, grid, sargs, 5)))
            continue;
        double *got = read_back(bo, n), *want = dropout_ref(x, NULL, (uint32_t)seeds[s], p, n);
        int ok = check(name, got, want, n, 1e-30, 1e-6);
        if (ok && s == 1 && first && memcmp(first, got, n * sizeof *got))
            ex_result(name, 0, "seed 123 gave another output the second time");
        if (s == 0)
            first = got;
        else
            free(got);
        free(want);
    }
    free(first);
    tl_buffer_destroy(bx), tl_buffer_destroy(bk), tl_buffer_destroy(bo);
    free(x), free(keep);
}

/* ---- 05: layer norm ---- */

/* The tutorial's LayerNorm.forward and .backward on an (M, N) fp16 input:
 * block = its BLOCK_SIZE choice (0) or a smaller one for the forward kernel's
 * loop; group = its GROUP_SIZE_M heuristic (0) or a smaller one. */
static void layer_norm(TlContext *ctx, int M, int N, int block, int group) {
    char name[96], opts[128], tag[48];
    if (ex_skipped("05 _layer_norm"))
        return;
    const double eps = 1e-5;
    int BLOCK = (int)next_pow2((size_t)N);
    if (BLOCK > 65536 / 2)
        BLOCK = 65536 / 2;
    int warps = BLOCK / 256 < 1 ? 1 : BLOCK / 256 > 8 ? 8 : BLOCK / 256;
    int G = N <= 1024 ? 256 : N <= 4096 ? 128 : N <= 8192 ? 96 : 64;
    if (group)
        G = group;
    snprintf(tag, sizeof tag, "%dx%d%s", M, N, group ? " small group" : block ? " looped" : "");
    size_t mn = (size_t)M * N;
    float *x = random_floats(mn, -3.3, -1.3), *w = random_floats((size_t)N, 0, 1), *b = random_floats((size_t)N, 0, 1);
    float *dy = random_floats(mn, -0.1, 0.1);
    TlBuffer *bx = upload_f16(ctx, x, mn), *bw = upload_f16(ctx, w, (size_t)N), *bb = upload_f16(ctx, b, (size_t)N);
    TlBuffer *bdy = upload_f16(ctx, dy, mn), *by = ex_buffer(ctx, TL_F16, mn, NULL);
    TlBuffer *bmean = ex_buffer(ctx, TL_F32, (size_t)M, NULL), *brstd = ex_buffer(ctx, TL_F32, (size_t)M, NULL);
    /* the reference, in double */
    double *mean = malloc((size_t)M * sizeof *mean), *rstd = malloc((size_t)M * sizeof *rstd);
    double *y = malloc(mn * sizeof *y), *dx = malloc(mn * sizeof *dx);
    double *dw = calloc((size_t)N, sizeof *dw), *db = calloc((size_t)N, sizeof *db);
    for (int r = 0; r < M; r++) {
        const float *xr = x + (size_t)r * N, *dyr = dy + (size_t)r * N;
        double m = 0, v = 0, c1 = 0, c2 = 0;
        for (int c = 0; c < N; c++)
            m += xr[c];
        m /= N;
        for (int c = 0; c < N; c++)
            v += (xr[c] - m) * (xr[c] - m);
        double rs = 1 / sqrt(v / N + eps);
        mean[r] = m, rstd[r] = rs;
        for (int c = 0; c < N; c++) {
            double xhat = (xr[c] - m) * rs, wdy = w[c] * dyr[c];
            y[(size_t)r * N + c] = xhat * w[c] + b[c];
            c1 += xhat * wdy, c2 += wdy;
            dw[c] += dyr[c] * xhat, db[c] += dyr[c];
        }
        c1 /= N, c2 /= N;
        for (int c = 0; c < N; c++)
            dx[(size_t)r * N + c] = (w[c] * dyr[c] - ((xr[c] - m) * rs * c1 + c2)) * rs;
    }
    /* forward */
    snprintf(opts, sizeof opts, "--kernel _layer_norm_fwd_fused -D BLOCK_SIZE=%d --num-warps %d", block ? block : BLOCK,
             warps);
    TlKernel *kf = ex_kernel(ctx, "tutorial_05_layer_norm.tl", opts);
    TlArg fargs[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_buffer(bw), tl_arg_buffer(bb),
                     tl_arg_buffer(bmean), tl_arg_buffer(brstd), tl_arg_i32(N), tl_arg_i32(N), tl_arg_f32((float)eps)};
    unsigned rows_grid[3] = {(unsigned)M, 1, 1};
    snprintf(name, sizeof name, "05 _layer_norm_fwd_fused %s", tag);
    int ok = launched(ctx, name, tl_launch(kf, rows_grid, fargs, 9));
    if (ok) {
        double *got = read_back(by, mn), *gm = read_back(bmean, (size_t)M), *gr = read_back(brstd, (size_t)M);
        char sub[2][112];
        snprintf(sub[0], sizeof sub[0], "%s Mean", name);
        snprintf(sub[1], sizeof sub[1], "%s Rstd", name);
        ok = check(name, got, y, mn, 1e-2, 0) && check(sub[0], gm, mean, (size_t)M, 1e-5, 1e-5) &&
             check(sub[1], gr, rstd, (size_t)M, 1e-5, 1e-4);
        free(got), free(gm), free(gr);
    }
    /* backward: dx and the partial sums under the locks, then their sum */
    if (ok && !block) {
        TlBuffer *bdx = ex_buffer(ctx, TL_F16, mn, NULL);
        int32_t *zeros = calloc((size_t)G * N + 2 * (size_t)G, 4);
        TlBuffer *block_dw = ex_buffer(ctx, TL_F16, (size_t)G * N, zeros), *block_db = ex_buffer(ctx, TL_F16, (size_t)G * N, zeros);
        TlBuffer *locks = ex_buffer(ctx, TL_I32, 2 * (size_t)G, zeros);
        TlBuffer *bdw = ex_buffer(ctx, TL_F16, (size_t)N, NULL), *bdb = ex_buffer(ctx, TL_F16, (size_t)N, NULL);
        snprintf(opts, sizeof opts, "--kernel _layer_norm_bwd_dx_fused -D BLOCK_SIZE_N=%d -D GROUP_SIZE_M=%d --num-warps %d",
                 BLOCK, G, warps);
        TlKernel *kdx = ex_kernel(ctx, "tutorial_05_layer_norm.tl", opts);
        TlArg dargs[] = {tl_arg_buffer(bdx), tl_arg_buffer(bdy), tl_arg_buffer(block_dw), tl_arg_buffer(block_db),
                         tl_arg_buffer(bx), tl_arg_buffer(bw), tl_arg_buffer(bmean), tl_arg_buffer(brstd),
                         tl_arg_buffer(locks), tl_arg_i32(N), tl_arg_i32(N)};
        snprintf(name, sizeof name, "05 _layer_norm_bwd_dx_fused %s", tag);
        if (launched(ctx, name, tl_launch(kdx, rows_grid, dargs, 11))) {
            double *got = read_back(bdx, mn);
            check(name, got, dx, mn, 1e-2, 0);
            free(got);
            TlKernel *kw = ex_kernel(ctx, "tutorial_05_layer_norm.tl",
                                     "--kernel _layer_norm_bwd_dwdb -D BLOCK_SIZE_M=32 -D BLOCK_SIZE_N=128");
            TlArg wargs[] = {tl_arg_buffer(block_dw), tl_arg_buffer(block_db), tl_arg_buffer(bdw), tl_arg_buffer(bdb),
                             tl_arg_i32(G < M ? G : M), tl_arg_i32(N)};
            unsigned grid[3] = {ex_cdiv((size_t)N, 128), 1, 1};
            snprintf(name, sizeof name, "05 _layer_norm_bwd_dwdb %s", tag);
            if (launched(ctx, name, tl_launch(kw, grid, wargs, 6))) {
                /* fp16 partial sums: about M / G roundings each */
                double *gw = read_back(bdw, (size_t)N), *gb = read_back(bdb, (size_t)N);
                char sub[112];
                snprintf(sub, sizeof sub, "%s FINAL_DB", name);
                if (check(name, gw, dw, (size_t)N, 1e-2, 1e-2))
                    check(sub, gb, db, (size_t)N, 1e-2, 1e-2);
                free(gw), free(gb);
            }
            tl_kernel_destroy(kw);
        }
        tl_kernel_destroy(kdx);
        tl_buffer_destroy(bdx), tl_buffer_destroy(block_dw), tl_buffer_destroy(block_db), tl_buffer_destroy(locks);
        tl_buffer_destroy(bdw), tl_buffer_destroy(bdb);
        free(zeros);
    }
    tl_kernel_destroy(kf);
    TlBuffer *bufs[] = {bx, bw, bb, bdy, by, bmean, brstd};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
        tl_buffer_destroy(bufs[i]);
    free(x), free(w), free(b), free(dy), free(mean), free(rstd), free(y), free(dx), free(dw), free(db);
}

/* ---- 06: fused attention, forward ---- */

/* upstream's keep() and prune_invalid_configs(): on the GPU no 8 warps for
 * tiles under 128 x 128; BLOCK_M at most N_CTX; causal needs BLOCK_M >= BLOCK_N */
static TlStatus prune_attention(void *user, const TlKernel *const *configs, int n, const TlArg *args, int nargs,
                                int *keep) {
    (void)user;
    int64_t n_ctx = nargs > 8 ? args[8].v.i : 0;
    for (int i = 0; i < n; i++) {
        int64_t bm = 0, bn = 0, stage = 1;
        TlKernelConfig cfg;
        tl_kernel_constant_int(configs[i], "BLOCK_M", &bm);
        tl_kernel_constant_int(configs[i], "BLOCK_N", &bn);
        tl_kernel_constant_int(configs[i], "STAGE", &stage);
        tl_kernel_config(configs[i], &cfg);
        keep[i] = !(bm * bn < 128 * 128 && cfg.num_warps == 8) && bm <= n_ctx && (bm >= bn || stage == 1);
    }
    return TL_SUCCESS;
}

/* _attn_fwd on Q, K, V of shape (Z, H, N_CTX, D), fp16, against softmax(Q K^T
 * * sm_scale) V in double (the causal one masking keys after the query), and
 * M against each row's log2-sum-exp2. host_desc: descriptors from the host
 * (fixed config), else pointers. blocks "BM,BN" overrides the config's. */
static void attention(TlContext *ctx, int Z, int H, int N_CTX, int D, int causal, int host_desc, int config,
                      const char *blocks, int ws) {
    char name[160], opts[256];
    int BM = 0, BN = 0;
    snprintf(name, sizeof name, "06 _attn_fwd Z=%d H=%d N_CTX=%d HEAD_DIM=%d%s%s%s%s%s", Z, H, N_CTX, D,
             causal ? " causal" : "", host_desc ? " host desc" : "", config < 0 ? " (tuned)" : "", blocks ? " small" : "",
             ws ? " ws" : "");
    if (ex_skipped(name))
        return;
    int n = snprintf(opts, sizeof opts, "--kernel _attn_fwd -D HEAD_DIM=%d -D FP8_OUTPUT=0 -D STAGE=%d "
                     "-D warp_specialize=%d -D IS_HOPPER=%d", D, causal ? 3 : 1, ws, on_gpu);
    if (config >= 0)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " --autotune-config %d", config);
    if (blocks && sscanf(blocks, "%d,%d", &BM, &BN) == 2)
        snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK_M=%d -D BLOCK_N=%d", BM, BN);
    TlKernel *k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);
    if (config < 0)
        tl_kernel_set_prune(k, prune_attention, NULL);
    if (!blocks && config >= 0) {
        int64_t v;
        tl_kernel_constant_int(k, "BLOCK_M", &v), BM = (int)v;
        tl_kernel_constant_int(k, "BLOCK_N", &v), BN = (int)v;
    }
    const double sm_scale = 0.5;
    size_t rows = (size_t)Z * H * N_CTX, n_el = rows * D;
    float *q = random_floats(n_el, -1, 1), *kk = random_floats(n_el, -1, 1), *v = random_floats(n_el, -1, 1);
    TlBuffer *bq = upload_f16(ctx, q, n_el), *bk = upload_f16(ctx, kk, n_el), *bv = upload_f16(ctx, v, n_el);
    TlBuffer *bo = ex_buffer(ctx, TL_F16, n_el, NULL), *bm = ex_buffer(ctx, TL_F32, rows, NULL);
    TlTensorDesc dd[4];
    TlBuffer *mats[4] = {bq, bk, bv, bo};
    TlArg args[9] = {tl_arg_f32((float)sm_scale), tl_arg_buffer(bm), tl_arg_i32(Z), tl_arg_i32(H)};
    for (int i = 0; i < 4; i++)
        args[4 + i] = host_desc ? tl_arg_tensordesc(&dd[i], mats[i], 2, (int64_t[]){(int64_t)rows, D}, NULL,
                                                    (int32_t[]){i == 1 || i == 2 ? BN : BM, D})
                                : tl_arg_buffer(mats[i]);
    args[8] = tl_arg_i32(N_CTX);
    if (launched(ctx, name, tl_launch_grid(k, "cdiv(N_CTX, BLOCK_M), Z * H", args, 9))) {
        if (config < 0) {
            TlKernelConfig cfg;
            tl_kernel_config(k, &cfg);
            printf("(%s: config %d of %d)\n", name, cfg.autotune_config, cfg.num_configs);
        }
        double *got = read_back(bo, n_el), *gm = read_back(bm, rows);
        double *want = calloc(n_el, sizeof *want), *wm = malloc(rows * sizeof *wm), *s = malloc((size_t)N_CTX * sizeof *s);
        for (size_t head = 0; head < (size_t)Z * H; head++) {
            size_t base = head * (size_t)N_CTX;
            for (int i = 0; i < N_CTX; i++) {
                double mx = -INFINITY, sum = 0;
                int keys = causal ? i + 1 : N_CTX;
                for (int j = 0; j < keys; j++) {
                    double dot = 0;
                    for (int d = 0; d < D; d++)
                        dot += (double)q[(base + i) * D + d] * kk[(base + j) * D + d];
                    s[j] = dot * sm_scale;
                    mx = fmax(mx, s[j]);
                }
                for (int j = 0; j < keys; j++)
                    sum += s[j] = exp(s[j] - mx);
                for (int j = 0; j < keys; j++)
                    for (int d = 0; d < D; d++)
                        want[(base + i) * D + d] += s[j] / sum * v[(base + j) * D + d];
                wm[base + i] = (mx + log(sum)) / log(2.0);
            }
        }
        char sub[200];
        snprintf(sub, sizeof sub, "%s M", name);
        if (check(name, got, want, n_el, 1e-2, 1e-2))
            check(sub, gm, wm, rows, 2e-3, 1e-3);
        free(got), free(gm), free(want), free(wm), free(s);
    }
    tl_buffer_destroy(bq), tl_buffer_destroy(bk), tl_buffer_destroy(bv), tl_buffer_destroy(bo), tl_buffer_destroy(bm);
    tl_kernel_destroy(k);
    free(q), free(kk), free(v);
}

/* ---- 06: fused attention, backward ---- */

/* The tutorial's backward pass on Q, K, V, dO of shape (Z, H, N_CTX, D),
 * fp16: _attn_fwd (fixed config fwd_opts) gives O and M, _attn_bwd_preprocess
 * Delta, _attn_bwd dQ, dK, dV with K pre-scaled by sm_scale / ln 2 as the
 * tutorial's host scales it; each checked against the gradients of
 * softmax(Q K^T * sm_scale) V in double. blocks: "BLOCK_M1,BLOCK_N1,
 * BLOCK_M2,BLOCK_N2" (BLK_SLICE_FACTOR 2); pre: _attn_bwd_preprocess's
 * BLOCK_M. */
static void attention_bwd(TlContext *ctx, int Z, int H, int N_CTX, int D, int causal, const char *fwd_opts,
                          const char *blocks, int pre, int warps, int stages) {
    char name[200], opts[320];
    int M1, N1, M2, N2;
    if (sscanf(blocks, "%d,%d,%d,%d", &M1, &N1, &M2, &N2) != 4) {
        ex_result("06 _attn_bwd", 0, "blocks \"%s\" is not BLOCK_M1,BLOCK_N1,BLOCK_M2,BLOCK_N2", blocks);
        return;
    }
    snprintf(name, sizeof name, "06 _attn_bwd Z=%d H=%d N_CTX=%d HEAD_DIM=%d%s blocks %s w%d s%d", Z, H, N_CTX, D,
             causal ? " causal" : "", blocks, warps, stages);
    if (ex_skipped(name))
        return;
    snprintf(opts, sizeof opts, "--kernel _attn_fwd -D HEAD_DIM=%d -D FP8_OUTPUT=0 -D STAGE=%d -D warp_specialize=0 "
             "-D IS_HOPPER=%d %s", D, causal ? 3 : 1, on_gpu, fwd_opts);
    TlKernel *fwd = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);
    snprintf(opts, sizeof opts, "--kernel _attn_bwd_preprocess -D BLOCK_M=%d -D HEAD_DIM=%d", pre, D);
    TlKernel *prep = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);
    snprintf(opts, sizeof opts, "--kernel _attn_bwd -D BLOCK_M1=%d -D BLOCK_N1=%d -D BLOCK_M2=%d -D BLOCK_N2=%d "
             "-D BLK_SLICE_FACTOR=2 -D HEAD_DIM=%d -D CAUSAL=%d --num-warps %d --num-stages %d", M1, N1, M2, N2, D,
             causal, warps, stages);
    TlKernel *bwd = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);

    const double sm_scale = 0.5, rcp_ln2 = 1.4426950408889634;
    size_t rows = (size_t)Z * H * N_CTX, n_el = rows * D;
    float *q = random_floats(n_el, -1, 1), *kk = random_floats(n_el, -1, 1), *v = random_floats(n_el, -1, 1);
    float *dout = random_floats(n_el, -1, 1), *ks = malloc(n_el * sizeof *ks);
    TlBuffer *bq = upload_f16(ctx, q, n_el), *bk = upload_f16(ctx, kk, n_el), *bv = upload_f16(ctx, v, n_el);
    TlBuffer *bdo = upload_f16(ctx, dout, n_el);
    for (size_t i = 0; i < n_el; i++)
        ks[i] = (float)(kk[i] * (sm_scale * rcp_ln2));
    TlBuffer *bks = upload_f16(ctx, ks, n_el);
    TlBuffer *bo = ex_buffer(ctx, TL_F16, n_el, NULL), *bm = ex_buffer(ctx, TL_F32, rows, NULL);
    TlBuffer *bdelta = ex_buffer(ctx, TL_F32, rows, NULL);
    TlBuffer *bdq = ex_buffer(ctx, TL_F16, n_el, NULL), *bdk = ex_buffer(ctx, TL_F16, n_el, NULL);
    TlBuffer *bdv = ex_buffer(ctx, TL_F16, n_el, NULL);
    TlArg fa[9] = {tl_arg_f32((float)sm_scale), tl_arg_buffer(bm), tl_arg_i32(Z), tl_arg_i32(H), tl_arg_buffer(bq),
                   tl_arg_buffer(bk), tl_arg_buffer(bv), tl_arg_buffer(bo), tl_arg_i32(N_CTX)};
    TlArg pa[6] = {tl_arg_buffer(bo), tl_arg_buffer(bdo), tl_arg_buffer(bdelta), tl_arg_i32(Z), tl_arg_i32(H),
                   tl_arg_i32(N_CTX)};
    TlArg ba[16] = {tl_arg_buffer(bq), tl_arg_buffer(bks), tl_arg_buffer(bv), tl_arg_f32((float)sm_scale),
                    tl_arg_buffer(bdo), tl_arg_buffer(bdq), tl_arg_buffer(bdk), tl_arg_buffer(bdv),
                    tl_arg_buffer(bm), tl_arg_buffer(bdelta), tl_arg_i32(H * N_CTX * D), tl_arg_i32(N_CTX * D),
                    tl_arg_i32(D), tl_arg_i32(1), tl_arg_i32(H), tl_arg_i32(N_CTX)};
    unsigned pre_grid[3] = {(unsigned)(N_CTX / pre), (unsigned)(Z * H), 1};
    unsigned bwd_grid[3] = {(unsigned)(N_CTX / N1), 1, (unsigned)(Z * H)};
    if (launched(ctx, name, tl_launch_grid(fwd, "cdiv(N_CTX, BLOCK_M), Z * H", fa, 9)) &&
        launched(ctx, name, tl_launch(prep, pre_grid, pa, 6)) && launched(ctx, name, tl_launch(bwd, bwd_grid, ba, 16))) {
        double *gq = read_back(bdq, n_el), *gk = read_back(bdk, n_el), *gv = read_back(bdv, n_el);
        double *wq = calloc(n_el, sizeof *wq), *wk = calloc(n_el, sizeof *wk), *wv = calloc(n_el, sizeof *wv);
        size_t nn = (size_t)N_CTX * N_CTX;
        double *p = malloc(nn * sizeof *p), *ds = malloc(nn * sizeof *ds), *o = malloc((size_t)N_CTX * D * sizeof *o);
        for (size_t head = 0; head < (size_t)Z * H; head++) {
            const size_t b = head * (size_t)N_CTX * D;
            const float *hq = q + b, *hk = kk + b, *hv = v + b, *hdo = dout + b;
            for (int i = 0; i < N_CTX; i++) { /* P (zero right of the diagonal when causal) and O */
                double mx = -INFINITY, sum = 0;
                int keys = causal ? i + 1 : N_CTX;
                for (int j = 0; j < N_CTX; j++) {
                    double dot = 0;
                    for (int d = 0; d < D && j < keys; d++)
                        dot += (double)hq[i * D + d] * hk[j * D + d];
                    p[i * N_CTX + j] = j < keys ? dot * sm_scale : -INFINITY;
                    mx = fmax(mx, p[i * N_CTX + j]);
                }
                for (int j = 0; j < N_CTX; j++)
                    sum += p[i * N_CTX + j] = exp(p[i * N_CTX + j] - mx);
                for (int j = 0; j < N_CTX; j++)
                    p[i * N_CTX + j] /= sum;
                for (int d = 0; d < D; d++) {
                    double acc = 0;
                    for (int j = 0; j < keys; j++)
                        acc += p[i * N_CTX + j] * hv[j * D + d];
                    o[i * D + d] = acc;
                }
            }
            for (int i = 0; i < N_CTX; i++) { /* dS = P * (dO V^T - rowsum(O * dO)) */
                double delta = 0;
                for (int d = 0; d < D; d++)
                    delta += o[i * D + d] * hdo[i * D + d];
                for (int j = 0; j < N_CTX; j++) {
                    double dp = 0;
                    for (int d = 0; d < D; d++)
                        dp += (double)hdo[i * D + d] * hv[j * D + d];
                    ds[i * N_CTX + j] = p[i * N_CTX + j] * (dp - delta);
                }
            }
            for (int i = 0; i < N_CTX; i++) /* dQ = dS K s, dK = dS^T Q s, dV = P^T dO */
                for (int j = 0; j < N_CTX; j++)
                    for (int d = 0; d < D; d++) {
                        wq[b + (size_t)i * D + d] += ds[i * N_CTX + j] * hk[j * D + d] * sm_scale;
                        wk[b + (size_t)j * D + d] += ds[i * N_CTX + j] * hq[i * D + d] * sm_scale;
                        wv[b + (size_t)j * D + d] += p[i * N_CTX + j] * hdo[i * D + d];
                    }
        }
        char sub[240];
        snprintf(sub, sizeof sub, "%s dV", name);
        if (check(sub, gv, wv, n_el, 1e-2, 1e-2)) {
            snprintf(sub, sizeof sub, "%s dK", name);
            if (check(sub, gk, wk, n_el, 1e-2, 1e-2)) {
                snprintf(sub, sizeof sub, "%s dQ", name);
                check(sub, gq, wq, n_el, 1e-2, 1e-2);
            }
        }
        free(gq), free(gk), free(gv), free(wq), free(wk), free(wv), free(p), free(ds), free(o);
    }
    TlBuffer *bufs[] = {bq, bk, bv, bdo, bks, bo, bm, bdelta, bdq, bdk, bdv};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        tl_buffer_destroy(bufs[i]);
    tl_kernel_destroy(fwd), tl_kernel_destroy(prep), tl_kernel_destroy(bwd);
    free(q), free(kk), free(v), free(dout), free(ks);
}

/* ---- 07: extern functions ---- */

/* libdevice.asin: where tl cannot link libdevice, the compile must fail with
 * a message that says so (and the case passes); otherwise the values are
 * checked against asin. */
static void extern_asin(TlContext *ctx, size_t n) {
    char name[64];
    snprintf(name, sizeof name, "07 asin_kernel n=%zu", n);
    if (ex_skipped(name))
        return;
    TlKernel *k = ex_kernel(ctx, "tutorial_07_extern_functions.tl", "-D BLOCK_SIZE=1024");
    float *x = random_floats(n, -1, 1);
    TlBuffer *bx = ex_buffer(ctx, TL_F32, n, x), *by = ex_buffer(ctx, TL_F32, n, NULL);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32((int)n)};
    unsigned grid[3] = {ex_cdiv(n, 1024), 1, 1};
    TlStatus s = tl_launch(k, grid, args, 3);
    if (s == TL_ERROR_COMPILE && strstr(tl_last_error(ctx), "libdevice")) {
        const char *e = tl_last_error(ctx), *nl = strchr(e, '\n');
        printf("(%s: no libdevice here: %.*s)\n", name, nl ? (int)(nl - e) : (int)strlen(e), e);
        ex_result(name, 1, NULL);
    } else if (launched(ctx, name, s)) {
        double *got = read_back(by, n), *want = malloc(n * sizeof *want);
        for (size_t i = 0; i < n; i++)
            want[i] = asin(x[i]);
        check(name, got, want, n, 1e-7, 1e-6);
        free(got), free(want);
    }
    tl_buffer_destroy(bx), tl_buffer_destroy(by), tl_kernel_destroy(k);
    free(x);
}

/* ---- 08, 09: shared by the matmul variants ---- */

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* fp8e4nv (E4M3FN: bias 7, no infinities, 448 the largest) on the host. */
static double e4m3_value(unsigned c) {
    unsigned e = (c >> 3) & 15, m = c & 7;
    double v = e ? ldexp(1 + m / 8.0, (int)e - 7) : ldexp(m / 8.0, -6);
    return c & 0x80 ? -v : v;
}
static uint8_t e4m3_bits(float x) {
    unsigned best = 0;
    for (unsigned c = 1; c < 0x7F; c++) {
        double d = fabs(e4m3_value(c) - fabs(x)), bd = fabs(e4m3_value(best) - fabs(x));
        if (d < bd || (d == bd && !(c & 1)))
            best = c;
    }
    return (uint8_t)(best | (x < 0 ? 0x80 : 0));
}

/* A rows x cols matrix with leading dimension ld (>= cols) in dtype dt
 * (fp16 or fp8e4nv): v (rows x cols, dense) is rounded in place to what the
 * kernel reads; the padding holds a sentinel the kernel must not write. */
static TlBuffer *upload_matrix(TlContext *ctx, TlDType dt, float *v, int rows, int cols, int ld) {
    size_t n = (size_t)rows * ld;
    uint8_t *h = malloc((n ? n : 1) * 2);
    for (size_t i = 0; i < n; i++) {
        size_t r = i / (size_t)ld, c = i % (size_t)ld;
        float x = c < (size_t)cols ? v[r * (size_t)cols + c] : 7.0f;
        if (dt == TL_F16) {
            ((uint16_t *)h)[i] = ex_f2h(x);
            if (c < (size_t)cols)
                v[r * (size_t)cols + c] = ex_h2f(((uint16_t *)h)[i]);
        } else {
            h[i] = e4m3_bits(x);
            if (c < (size_t)cols)
                v[r * (size_t)cols + c] = (float)e4m3_value(h[i]);
        }
    }
    TlBuffer *b = ex_buffer(ctx, dt, n ? n : 1, h);
    free(h);
    return b;
}

/* C (rows x cols, leading dimension ld) against A x B: fp16 or fp8e4nv,
 * and the padding untouched. bt: B given as (N, K). */
static void check_product(const char *name, TlBuffer *bc, const float *a, const float *b, int bt, int M, int N, int K,
                          int ld) {
    TlDType dt = tl_buffer_dtype(bc);
    size_t n = (size_t)M * ld;
    uint8_t *raw = malloc((n ? n : 1) * 2);
    tl_buffer_read(bc, 0, raw, n * tl_dtype_size(dt));
    double *got = malloc(((size_t)M * N + 1) * sizeof *got), *want = malloc(((size_t)M * N + 1) * sizeof *want);
    int bad = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < ld; j++) {
            size_t at = (size_t)i * ld + j;
            double g = dt == TL_F16 ? ex_h2f(((uint16_t *)raw)[at]) : e4m3_value(raw[at]);
            if (j >= N) {
                if (g != 7.0) {
                    ex_result(name, 0, "C's row padding at [%d][%d] was written", i, j);
                    free(raw), free(got), free(want);
                    return;
                }
                continue;
            }
            double acc = 0, mag = 0;
            for (int kk = 0; kk < K; kk++) {
                double p = (double)a[(size_t)i * K + kk] * (bt ? b[(size_t)j * K + kk] : b[(size_t)kk * N + j]);
                acc += p, mag += fabs(p);
            }
            size_t at2 = (size_t)i * N + j;
            got[at2] = g, want[at2] = acc;
            /* fp8e4nv keeps 3 mantissa bits: half an ulp is 1/16 of the
             * value. Hopper's fp8 wgmma adds into its accumulator with
             * about 14 bits (Triton's default max_num_imprecise_acc on
             * sm_90 is 2^30: no precise partial sums), so a sum that
             * cancels is off by up to a few 2^-13 of the magnitudes
             * summed: the bound is 2^-11 of sum |a b| beside the
             * rounding of C (found at K = 1024: 0.025 off a -0.014) */
            if (dt != TL_F16 && fabs(g - acc) > 2e-2 + 0.07 * fabs(acc) + mag / 2048 && !bad) {
                bad = 1;
                ex_result(name, 0, "[%zu] = %.9g, want %.9g (sum |a b| %.4g)", at2, g, acc, mag);
            }
        }
    if (dt == TL_F16)
        check(name, got, want, (size_t)M * N, 1e-2, 1e-2);
    else if (!bad)
        ex_result(name, 1, NULL);
    free(raw), free(got), free(want);
}

/* ---- 09: persistent matmul ---- */

enum { MM_PLAIN, MM_PERSISTENT, MM_TMA, MM_TMA_PERSISTENT, MM_DESCRIPTOR_PERSISTENT };
static const char *const mm_kernels[] = {"matmul_kernel", "matmul_kernel_persistent", "matmul_kernel_tma",
                                         "matmul_kernel_tma_persistent", "matmul_kernel_descriptor_persistent"};

/* upstream's prune_invalid_configs: no subtiled epilogue without FLATTEN */
static TlStatus prune_subtile(void *user, const TlKernel *const *configs, int n, const TlArg *args, int nargs,
                              int *keep) {
    (void)args, (void)nargs;
    int flatten = *(const int *)user;
    for (int i = 0; i < n; i++) {
        int64_t sub = 1;
        tl_kernel_constant_int(configs[i], "EPILOGUE_SUBTILE", &sub);
        keep[i] = !(sub && !flatten);
    }
    return TL_SUCCESS;
}

/* One case of tutorial 09. config: the autotune config (-1: tuned at launch;
 * the host-descriptor kernels need one, as their descriptors' block shapes
 * follow it); blocks "BM,BN,BK,GROUP" overrides the config's sizes (small
 * tiles for the interpreter), or NULL; subtile, ws, flatten: the kernel's
 * EPILOGUE_SUBTILE, WARP_SPECIALIZE, FLATTEN where it has them. */
static void persistent_matmul(TlContext *ctx, int var, TlDType dt, int M, int N, int K, int config,
                              const char *blocks, int subtile, int ws, int flatten) {
    int desc = var >= MM_TMA, host_desc = var == MM_TMA || var == MM_TMA_PERSISTENT;
    int persistent = var == MM_PERSISTENT || var >= MM_TMA_PERSISTENT;
    int sms = on_gpu ? tl_context_num_sms(ctx) : 4;
    char name[160], opts[256];
    int BM = 128, BN = 0, BK = 0, G = 8;
    if (blocks)
        sscanf(blocks, "%d,%d,%d,%d", &BM, &BN, &BK, &G);
    snprintf(name, sizeof name, "09 %s %s %dx%dx%d%s%s%s%s%s", mm_kernels[var], dt == TL_F16 ? "fp16" : "fp8e4nv", M,
             N, K, subtile ? " subtile" : "", ws ? " ws" : "", var == MM_DESCRIPTOR_PERSISTENT && !flatten ? " unflat" : "",
             config < 0 ? " (tuned)" : "", blocks ? " small" : "");
    if (ex_skipped(name))
        return;
    int n = snprintf(opts, sizeof opts, "--kernel %s", mm_kernels[var]);
    if (config >= 0)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " --autotune-config %d", config);
    if (blocks)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK_SIZE_M=%d -D BLOCK_SIZE_N=%d -D BLOCK_SIZE_K=%d "
                      "-D GROUP_SIZE_M=%d", BM, BN, BK, G);
    if (persistent)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D NUM_SMS=%d", sms);
    if (var == MM_TMA || var == MM_TMA_PERSISTENT)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D FP8_OUTPUT=%d", dt != TL_F16);
    if (var >= MM_TMA_PERSISTENT && config < 0 && !blocks)
        ; /* EPILOGUE_SUBTILE is the config's */
    else if (var >= MM_TMA_PERSISTENT)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D EPILOGUE_SUBTILE=%d", subtile);
    if (var >= MM_TMA)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D WARP_SPECIALIZE=%d", ws);
    if (var == MM_DESCRIPTOR_PERSISTENT)
        snprintf(opts + n, sizeof opts - (size_t)n, " -D FLATTEN=%d", flatten);
    TlKernel *k = ex_kernel(ctx, "tutorial_09_persistent_matmul.tl", opts);
    if (var == MM_DESCRIPTOR_PERSISTENT && config < 0)
        tl_kernel_set_prune(k, prune_subtile, &flatten);
    if (!blocks && config >= 0) { /* the config's block sizes, for the descriptors */
        int64_t v;
        tl_kernel_constant_int(k, "BLOCK_SIZE_N", &v), BN = (int)v;
        tl_kernel_constant_int(k, "BLOCK_SIZE_K", &v), BK = (int)v;
        if (var == MM_TMA_PERSISTENT && tl_kernel_constant_int(k, "EPILOGUE_SUBTILE", &v) == TL_SUCCESS)
            subtile = (int)v;
    }
    /* Leading dimensions: descriptors need 16-byte rows (the in-kernel
     * ones take K and N as theirs, so the host keeps those multiples of 16
     * bytes); C's padding is checked to stay untouched. */
    int align = dt == TL_F16 ? 8 : 16;
    int lda = host_desc ? round_up(K, align) : K, ldb = desc ? (host_desc ? round_up(K, align) : K) : N;
    int ldc = host_desc ? round_up(N, align) : N;
    float *a = random_floats((size_t)M * K, -1, 1), *b = random_floats((size_t)K * N, -1, 1); /* b: (K, N) or (N, K) */
    TlBuffer *ba = upload_matrix(ctx, dt, a, M, K, lda), *bb = upload_matrix(ctx, dt, b, desc ? N : K, desc ? K : N, ldb);
    float *cinit = calloc((size_t)M * N + 1, sizeof *cinit);
    TlBuffer *bc = upload_matrix(ctx, dt, cinit, M, N, ldc);
    TlTensorDesc da, db, dcd;
    TlArg args[12];
    int nargs = 0;
    if (host_desc) {
        args[nargs++] = tl_arg_tensordesc(&da, ba, 2, (int64_t[]){M, K}, (int64_t[]){lda, 1}, (int32_t[]){BM, BK});
        args[nargs++] = tl_arg_tensordesc(&db, bb, 2, (int64_t[]){N, K}, (int64_t[]){ldb, 1}, (int32_t[]){BN, BK});
        args[nargs++] = tl_arg_tensordesc(&dcd, bc, 2, (int64_t[]){M, N}, (int64_t[]){ldc, 1},
                                          (int32_t[]){BM, subtile ? BN / 2 : BN});
    } else {
        args[nargs++] = tl_arg_buffer(ba), args[nargs++] = tl_arg_buffer(bb), args[nargs++] = tl_arg_buffer(bc);
    }
    args[nargs++] = tl_arg_i32(M), args[nargs++] = tl_arg_i32(N), args[nargs++] = tl_arg_i32(K);
    if (!desc) {
        args[nargs++] = tl_arg_i32(lda), args[nargs++] = tl_arg_i32(1), args[nargs++] = tl_arg_i32(ldb);
        args[nargs++] = tl_arg_i32(1), args[nargs++] = tl_arg_i32(ldc), args[nargs++] = tl_arg_i32(1);
    }
    const char *grid = persistent ? "min(NUM_SMS, cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N))"
                                  : "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)";
    if (launched(ctx, name, tl_launch_grid(k, grid, args, nargs))) {
        if (config < 0) {
            TlKernelConfig cfg;
            tl_kernel_config(k, &cfg);
            printf("(%s: config %d of %d)\n", name, cfg.autotune_config, cfg.num_configs);
        }
        check_product(name, bc, a, b, desc, M, N, K, ldc);
    }
    tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc), tl_kernel_destroy(k);
    free(a), free(b), free(cinit);
}

/* ---- 08: grouped GEMM ---- */

/* A group of problems (M, N, K each), run by one launch of NUM_SM programs;
 * tma: grouped_matmul_tma_kernel (B stored (N, K), ragged sizes, 16-byte
 * rows), else grouped_matmul_kernel (full tiles: sizes multiples of the
 * blocks). Every C is checked. dt: fp16, or fp8e4nv (the TMA kernel's FP8).
 * config, blocks: as for tutorial 09 (blocks "BM,BN,BK"). pad: leading
 * dimensions past the widths. */
static void grouped_gemm(TlContext *ctx, int tma, TlDType dt, int ngroups, const int (*mnk)[3], int config,
                         const char *blocks, int pad) {
    char name[160], opts[256];
    int sms = on_gpu ? tl_context_num_sms(ctx) : 4, BM = 0, BN = 0, BK = 0;
    int n = snprintf(name, sizeof name, "08 %s %d problems", tma ? "grouped_matmul_tma_kernel" : "grouped_matmul_kernel",
                     ngroups);
    for (int g = 0; g < ngroups && g < 4; g++)
        n += snprintf(name + n, sizeof name - (size_t)n, "%s%dx%dx%d", g ? "," : " ", mnk[g][0], mnk[g][1], mnk[g][2]);
    snprintf(name + n, sizeof name - (size_t)n, "%s%s%s%s", dt == TL_F16 ? "" : " fp8e4nv", pad ? " padded" : "",
             config < 0 ? " (tuned)" : "", blocks ? " small" : "");
    if (ex_skipped(name))
        return;
    n = snprintf(opts, sizeof opts, "--kernel %s -D NUM_SM=%d", tma ? "grouped_matmul_tma_kernel" : "grouped_matmul_kernel",
                 sms);
    if (tma)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " -D FP8=%d", dt != TL_F16);
    if (config >= 0)
        n += snprintf(opts + n, sizeof opts - (size_t)n, " --autotune-config %d", config);
    if (blocks && sscanf(blocks, "%d,%d,%d", &BM, &BN, &BK) == 3)
        snprintf(opts + n, sizeof opts - (size_t)n, " -D BLOCK_SIZE_M=%d -D BLOCK_SIZE_N=%d -D BLOCK_SIZE_K=%d", BM, BN,
                 BK);
    TlKernel *k = ex_kernel(ctx, "tutorial_08_grouped_gemm.tl", opts);
    float **a = calloc((size_t)ngroups, sizeof *a), **b = calloc((size_t)ngroups, sizeof *b);
    TlBuffer **bufs = calloc(3 * (size_t)ngroups, sizeof *bufs);
    int64_t *addrs = calloc(3 * (size_t)ngroups, sizeof *addrs);
    int32_t *sizes = calloc(3 * (size_t)ngroups, sizeof *sizes), *lds = calloc(3 * (size_t)ngroups, sizeof *lds);
    for (int g = 0; g < ngroups; g++) {
        int M = mnk[g][0], N = mnk[g][1], K = mnk[g][2];
        int al = dt == TL_F16 ? 8 : 16; /* 16-byte rows for the descriptors */
        int lda = round_up(K, al) + pad, ldb = (tma ? round_up(K, al) : N) + pad, ldc = round_up(N, al) + pad;
        a[g] = random_floats((size_t)M * K, -1, 1), b[g] = random_floats((size_t)K * N, -1, 1);
        float *c0 = calloc((size_t)M * N + 1, sizeof *c0);
        bufs[3 * g] = upload_matrix(ctx, dt, a[g], M, K, lda);
        bufs[3 * g + 1] = upload_matrix(ctx, dt, b[g], tma ? N : K, tma ? K : N, ldb);
        bufs[3 * g + 2] = upload_matrix(ctx, dt, c0, M, N, ldc);
        free(c0);
        sizes[3 * g] = M, sizes[3 * g + 1] = N, sizes[3 * g + 2] = K;
        lds[3 * g] = lda, lds[3 * g + 1] = ldb, lds[3 * g + 2] = ldc;
        for (int i = 0; i < 3; i++) /* grouped as the kernel reads them: all A's, all B's, all C's */
            addrs[(size_t)i * ngroups + g] = (int64_t)tl_buffer_device_ptr(bufs[3 * g + i]);
    }
    TlBuffer *bptr[3];
    for (int i = 0; i < 3; i++)
        bptr[i] = ex_buffer(ctx, TL_I64, (size_t)ngroups, addrs + (size_t)i * ngroups);
    TlBuffer *bsizes = ex_buffer(ctx, TL_I32, 3 * (size_t)ngroups, sizes), *blds = ex_buffer(ctx, TL_I32, 3 * (size_t)ngroups, lds);
    TlArg args[] = {tl_arg_buffer(bptr[0]), tl_arg_buffer(bptr[1]), tl_arg_buffer(bptr[2]), tl_arg_buffer(bsizes),
                    tl_arg_buffer(blds), tl_arg_i32(ngroups)};
    if (launched(ctx, name, tl_launch_grid(k, "NUM_SM", args, 6))) {
        if (config < 0) {
            TlKernelConfig cfg;
            tl_kernel_config(k, &cfg);
            printf("(%s: config %d of %d)\n", name, cfg.autotune_config, cfg.num_configs);
        }
        for (int g = 0; g < ngroups; g++) {
            char sub[200];
            snprintf(sub, sizeof sub, "%s [%d]", name, g);
            check_product(sub, bufs[3 * g + 2], a[g], b[g], tma, mnk[g][0], mnk[g][1], mnk[g][2], lds[3 * g + 2]);
        }
    }
    for (int g = 0; g < ngroups; g++) {
        for (int i = 0; i < 3; i++)
            tl_buffer_destroy(bufs[3 * g + i]);
        free(a[g]), free(b[g]);
    }
    for (int i = 0; i < 3; i++)
        tl_buffer_destroy(bptr[i]);
    tl_buffer_destroy(bsizes), tl_buffer_destroy(blds), tl_kernel_destroy(k);
    free(a), free(b), free(bufs), free(addrs), free(sizes), free(lds);
}

int main(void) {
    TlContext *ctx = ex_context();
    on_gpu = tl_context_device(ctx) == TL_DEVICE_CUDA;

    TlKernel *add = ex_kernel(ctx, "tutorial_01_vector_add.tl", "-D BLOCK_SIZE=1024");
    size_t add_sizes[] = {1, 1023, 1025, 4099, 98432, (1u << 20) + 7};
    for (size_t i = 0; i < (on_gpu ? 6u : 4u); i++)
        vector_add(ctx, add, add_sizes[i]);
    tl_kernel_destroy(add);

    softmax(ctx, 1, 1, 1);
    softmax(ctx, 5, 127, 2);
    softmax(ctx, 9, 128, 4);
    softmax(ctx, 13, 781, 4);
    if (on_gpu) {
        softmax(ctx, 1823, 781, 264);
        softmax(ctx, 4096, 1000, 528);
    }

    /* config 7 is the smallest (32x64x32), here and upstream: for the interpreter */
    matmul(ctx, TL_F16, 1, 1, 1, 0, 0, 7);
    matmul(ctx, TL_F16, 33, 65, 47, 0, 0, 7);
    matmul(ctx, TL_F16, 31, 17, 70, 1, 1, 7);
    /* the tutorial's last test: fp8e5 inputs, B transposed */
    matmul(ctx, TL_F8E5M2, 37, 70, 65, 1, 0, 7);
    if (on_gpu) {
        matmul(ctx, TL_F16, 512, 512, 512, 0, 0, -1);
        matmul(ctx, TL_F16, 300, 200, 130, 0, 1, -1);
        matmul(ctx, TL_F16, 257, 129, 511, 1, 0, 2);
        /* config 0 (128x256x64, 8 warps): on sm_90a its wrapped tiles by TMA, warp-specialised */
        matmul(ctx, TL_F16, 257, 131, 67, 0, 0, 0);
        matmul(ctx, TL_F8E5M2, 512, 512, 512, 1, 0, -1);
    }

    TlKernel *base = ex_kernel(ctx, "tutorial_04_low_memory_dropout.tl", "--kernel _dropout -D BLOCK_SIZE=1024");
    TlKernel *seeded = ex_kernel(ctx, "tutorial_04_low_memory_dropout.tl", "--kernel _seeded_dropout -D BLOCK_SIZE=1024");
    size_t drop_sizes[] = {1, 10, 1025, 4099, (1u << 20) + 7};
    for (size_t i = 0; i < (on_gpu ? 5u : 4u); i++)
        dropout(ctx, base, seeded, drop_sizes[i], i == 2 ? 0.3f : 0.5f);
    tl_kernel_destroy(base);
    tl_kernel_destroy(seeded);

    layer_norm(ctx, 1, 1, 0, 0);
    layer_norm(ctx, 37, 129, 0, 0);
    layer_norm(ctx, 37, 129, 0, 4);
    layer_norm(ctx, 3, 781, 128, 0);
    layer_norm(ctx, 300, 781, 0, 0);
    if (on_gpu) {
        layer_norm(ctx, 1151, 8192, 0, 0);
        layer_norm(ctx, 4096, 1000, 0, 0);
        layer_norm(ctx, 1151, 8192, 1024, 0);
    }

    /* 06: N_CTX a multiple of the blocks (the kernel does not mask a head's
     * end); several heads and batches, one block, causal or not. */
    for (int causal = 0; causal < 2; causal++) {
        attention(ctx, 1, 1, 32, 16, causal, 0, 0, "32,16", 0);
        attention(ctx, 2, 3, 96, 32, causal, 0, 0, "32,16", 0);
        attention(ctx, 1, 2, 64, 16, causal, 1, 0, "32,16", 0);
        if (on_gpu) {
            attention(ctx, 2, 4, 1024, 64, causal, 0, -1, NULL, 0);
            attention(ctx, 1, 3, 512, 128, causal, 0, -1, NULL, 0);
            attention(ctx, 2, 2, 384, 64, causal, 1, 6, NULL, 0);
            /* wgmma on sm_90a (Q from shared memory, P from registers, K
             * and V from rings): configs ((BM index * 3 + BN index) * 3 +
             * stages index) * 2 + warps index, with HEAD_DIM: 128x64 s3 w4 (64
             * and 128), 128x64 s3 w8, 64x64 s3 w4, 128x32 s4 w8, 128x64 s2 w4
             * (Triton's pick at D=128), 128x128 s2 w8 (each warp's B the whole
             * 128 x 128 K tile); the last three warp-specialised too (a
             * producer warpgroup's TMA feeding both dots) */
            static const int wg_cfgs[][2] = {{26, 64}, {26, 128}, {27, 128}, {8, 64}, {23, 128}, {24, 128}, {31, 128}};
            for (int c = 0; c < 7; c++)
                attention(ctx, 1, 2, 384, wg_cfgs[c][1], causal, 0, wg_cfgs[c][0], NULL, 0);
            for (int c = 4; c < 7; c++)
                attention(ctx, 1, 2, 384, wg_cfgs[c][1], causal, 0, wg_cfgs[c][0], NULL, 1);
        }
    }

    /* 06 backward: small blocks on the interpreter; on the GPU the
     * tutorial's own (32, 128, 128, 32, 4 warps, 5 stages) */
    for (int causal = 0; causal < 2; causal++) {
        attention_bwd(ctx, 1, 1, 64, 16, causal, "--autotune-config 0 -D BLOCK_M=32 -D BLOCK_N=16", "32,64,64,32", 32, 4, 2);
        attention_bwd(ctx, 2, 3, 128, 32, causal, "--autotune-config 0 -D BLOCK_M=32 -D BLOCK_N=16", "32,64,64,32", 32, 4, 2);
        if (on_gpu) {
            attention_bwd(ctx, 1, 2, 384, 64, causal, "--autotune-config 26", "32,128,128,32", 128, 4, 5);
            attention_bwd(ctx, 2, 3, 1024, 128, causal, "--autotune-config 26", "32,128,128,32", 128, 4, 5);
            attention_bwd(ctx, 1, 1, 128, 64, causal, "--autotune-config 26", "32,64,64,32", 128, 4, 3);
        }
    }

    extern_asin(ctx, 1);
    extern_asin(ctx, 4099);
    if (on_gpu)
        extern_asin(ctx, 98432);

    /* 08: small blocks on the interpreter (and the GPU); the GPU adds the
     * tutorial's group (1024^3 .. 128^3) tuned, and ragged TMA groups. */
    static const int full[][3] = {{32, 64, 48}, {16, 32, 16}, {48, 96, 32}, {16, 96, 64}, {32, 32, 32}};
    grouped_gemm(ctx, 0, TL_F16, 3, full, 2, "16,32,16", 0);
    /* padded rows keep the 16-byte alignment the kernel's tl.multiple_of
     * promises (as in Triton, the hint holds for a_ptrs itself) */
    grouped_gemm(ctx, 0, TL_F16, 5, full, 2, "16,32,16", 8);
    static const int ragged[][3] = {{37, 70, 45}, {1, 1, 1}, {50, 17, 96}};
    grouped_gemm(ctx, 1, TL_F16, 3, ragged, 0, "16,32,16", 0);
    grouped_gemm(ctx, 1, TL_F8E4M3, 3, ragged, 0, "16,32,32", 0);
    if (on_gpu) {
        static const int tut[][3] = {{1024, 1024, 1024}, {512, 512, 512}, {256, 256, 256}, {128, 128, 128}};
        grouped_gemm(ctx, 0, TL_F16, 4, tut, -1, NULL, 0);
        grouped_gemm(ctx, 1, TL_F16, 4, tut, -1, NULL, 0);
        grouped_gemm(ctx, 1, TL_F8E4M3, 4, tut, 3, NULL, 0);
        static const int big_ragged[][3] = {{1000, 700, 300}, {129, 257, 65}, {1, 8, 8}, {300, 1000, 511}};
        grouped_gemm(ctx, 1, TL_F16, 4, big_ragged, 3, NULL, 8);
        grouped_gemm(ctx, 1, TL_F8E4M3, 4, big_ragged, 3, NULL, 16);
    }

    /* 09: every variant at ragged sizes with small blocks (GROUP_SIZE_M 2,
     * NUM_SMS 4 on the interpreter, so programs take several tiles); the
     * descriptor kernels with both epilogues. The GPU adds tuned launches
     * at the tutorial's sizes and the configs' own blocks. */
    persistent_matmul(ctx, MM_PLAIN, TL_F16, 97, 70, 45, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_PLAIN, TL_F16, 1, 1, 1, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_PLAIN, TL_F8E4M3, 33, 65, 47, 0, "32,32,32,2", 0, 0, 1);
    persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 97, 70, 45, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 5, 3, 17, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_TMA, TL_F16, 97, 70, 45, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_TMA, TL_F16, 31, 33, 17, 0, "32,32,16,2", 0, 1, 1);
    persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 97, 70, 45, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 97, 70, 45, 0, "32,32,16,2", 1, 0, 1);
    persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F8E4M3, 61, 33, 40, 0, "32,32,32,2", 0, 0, 1);
    persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 97, 72, 40, 0, "32,32,16,2", 0, 0, 1);
    persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 97, 72, 40, 0, "32,32,16,2", 1, 0, 1);
    persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 97, 72, 40, 0, "32,32,16,2", 0, 1, 0);
    if (on_gpu) {
        persistent_matmul(ctx, MM_PLAIN, TL_F16, 512, 512, 512, -1, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PLAIN, TL_F16, 1000, 700, 300, -1, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PLAIN, TL_F8E4M3, 512, 512, 512, 3, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 512, 512, 512, -1, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 2049, 1000, 300, -1, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PERSISTENT, TL_F8E4M3, 1000, 700, 512, 3, NULL, 0, 0, 1);
        /* the flattened loop (flatten.c): one K step a tile (128x128x64, 4
         * stages, 8 warps), and programs with two tiles (153 of 256x128
         * over the SMs; 128x256x64, 2 stages: three wgmma slots) */
        persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 300, 200, 17, 5, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_PERSISTENT, TL_F16, 2049, 2053, 1000, 13, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA, TL_F16, 1000, 700, 300, 3, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA, TL_F16, 512, 512, 512, 3, NULL, 0, 1, 1);
        persistent_matmul(ctx, MM_TMA, TL_F8E4M3, 512, 512, 512, 3, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 2049, 1000, 300, 7, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 1000, 700, 300, 4, "128,64,64,8", 1, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F8E4M3, 512, 512, 512, 7, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 1000, 704, 304, -1, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 1000, 704, 304, -1, NULL, 0, 1, 0);
        persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 1000, 704, 304, 4, "128,64,64,8", 1, 0, 1);
        /* 128x256 tiles at 4 warps: wgmma with 256 accumulator registers a
         * thread (ptxas spills some), as Triton compiles them; the plain
         * kernel (config 14: BK 64, 3 stages), the host-descriptor one
         * unsubtiled and subtiled (45: BK 128, 4 stages; 24: BK 64, 2
         * stages), the device-descriptor one (29: BK 64, 3 stages) */
        persistent_matmul(ctx, MM_PLAIN, TL_F16, 1000, 700, 300, 14, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 1000, 700, 300, 45, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 2049, 1000, 300, 24, NULL, 1, 0, 1);
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F8E4M3, 1000, 704, 512, 45, NULL, 0, 0, 1);
        persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 1000, 704, 304, 29, NULL, 0, 0, 1);
        /* warp-specialised tile loops, flattened with a producer warpgroup
         * that fills ahead across tiles: 289 tiles, two or three a program */
        persistent_matmul(ctx, MM_TMA_PERSISTENT, TL_F16, 2049, 2053, 300, 4, "128,128,64,8", 0, 1, 1);
        persistent_matmul(ctx, MM_DESCRIPTOR_PERSISTENT, TL_F16, 2049, 2056, 304, 4, "128,128,64,8", 0, 1, 0);
    }

    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
