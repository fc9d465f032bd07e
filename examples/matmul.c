/* matmul: every matmul kernel of the seeds, checked against a float64 C
 * reference: naive, grouped (swizzle2d), autotuned (one config, and tuned at
 * launch over all of them with the grid as an expression), the tutorial's
 * **meta kernel with and without leaky_relu, the puzzle (2D and grouped) at the
 * seed's shapes, and seed 003's forward with relu plus its backward pass (two
 * matmuls on transposed operands). Then the tutorial's kernel written with
 * block pointers (matmul_block_ptr.tl) and with tensor descriptors made in
 * the kernel or on the host (matmul_descriptor.tl), at sizes the blocks do
 * not divide.
 *
 * On a GPU each case runs again with num_stages 1 to 4 (the pipeliner's
 * rings of 1 to 4 shared buffers, K tails included).
 *
 * Kernels that load without masks (naive, grouped, autotuned, tutorial, and
 * seed 003 along M/N) read whole tiles: the host pads A's rows and B's columns
 * to tile multiples with zeros, as their seeds' constraints require. */
#include "common.h"

typedef enum { GRID_2D, GRID_1D } GridKind;
typedef enum { ACT_NONE, ACT_LEAKY_RELU, ACT_RELU_FP16 } Act;

typedef struct Case {
    const char *name;
    const char *file, *options;
    TlDType in, out;
    int M, N, K;
    int BM, BN;        /* tile sizes, for the grid and the padding */
    GridKind grid;
    int pad;           /* the kernel reads whole tiles without masks */
    int no_strides;    /* seed 003's kernel: (x, y, out, x_rows, x_cols, y_rows, y_cols) */
    Act act;
    double atol, rtol;
} Case;

static float *random_matrix(size_t n) {
    float *m = malloc(n * sizeof *m);
    for (size_t i = 0; i < n; i++)
        m[i] = (float)ex_uniform();
    return m;
}

/* Round to the storage dtype and upload; rows x cols in a (prow x pcol) zero-padded buffer. */
static TlBuffer *upload(TlContext *ctx, TlDType dt, const float *m, int rows, int cols, int prow, int pcol,
                        size_t extra) {
    size_t n = (size_t)prow * (size_t)pcol + extra;
    size_t es = tl_dtype_size(dt);
    unsigned char *host = calloc(n, es);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            size_t i = (size_t)r * (size_t)pcol + (size_t)c;
            float v = m[(size_t)r * (size_t)cols + (size_t)c];
            if (dt == TL_F16) {
                uint16_t h = ex_f2h(v);
                memcpy(host + i * 2, &h, 2);
            } else {
                memcpy(host + i * 4, &v, 4);
            }
        }
    TlBuffer *b = ex_buffer(ctx, dt, n, host);
    free(host);
    return b;
}

static double stored(TlDType dt, float v) { return dt == TL_F16 ? ex_h2f(ex_f2h(v)) : v; }

#define FP16_TOL 1e-2, 1e-2
#define FP32_TOL 1e-4, 1e-4

static int round_up(int x, int m) { return (x + m - 1) / m * m; }

/* grid_expr: the kernel is tuned at launch (no config named) and its grid is
 * this expression of the chosen config. */
static void run_case(TlContext *ctx, const Case *c, const float *a, const float *b, const char *grid_expr) {
    if (ex_skipped(c->name))
        return;
    int M = c->M, N = c->N, K = c->K;
    int Mp = c->pad ? round_up(M, c->BM) : M, Np = c->pad ? round_up(N, c->BN) : N;
    TlKernel *k = ex_kernel(ctx, c->file, c->options);
    /* seed 003's kernel has B's row stride fixed to N: pad by overhang, not by stride. */
    TlBuffer *ba = upload(ctx, c->in, a, M, K, Mp, K, 0);
    TlBuffer *bb = c->no_strides ? upload(ctx, c->in, b, K, N, K, N, (size_t)(Np - N))
                                 : upload(ctx, c->in, b, K, N, K, Np, 0);
    int ldb = c->no_strides ? N : Np;
    TlBuffer *bc = ex_buffer(ctx, c->out, (size_t)M * (size_t)N, NULL);
    TlArg args[12];
    int nargs = 0;
    args[nargs++] = tl_arg_buffer(ba);
    args[nargs++] = tl_arg_buffer(bb);
    args[nargs++] = tl_arg_buffer(bc);
    if (c->no_strides) {
        int v[] = {M, K, K, N};
        for (int i = 0; i < 4; i++)
            args[nargs++] = tl_arg_i32(v[i]);
    } else {
        int v[] = {M, N, K, K, 1, ldb, 1, N, 1};
        for (int i = 0; i < 9; i++)
            args[nargs++] = tl_arg_i32(v[i]);
    }
    unsigned gm = ex_cdiv((size_t)M, (size_t)c->BM), gn = ex_cdiv((size_t)N, (size_t)c->BN);
    unsigned grid[3] = {c->grid == GRID_2D ? gm : gm * gn, c->grid == GRID_2D ? gn : 1, 1};
    TlStatus s = grid_expr ? tl_launch_grid(k, grid_expr, args, nargs) : tl_launch(k, grid, args, nargs);
    if (s != TL_SUCCESS) {
        ex_result(c->name, 0, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
        goto done;
    }
    if (grid_expr) {
        TlKernelConfig cfg;
        tl_kernel_config(k, &cfg);
        printf("(%s: autotuning chose config %d of %d)\n", c->name, cfg.autotune_config, cfg.num_configs);
        if (!cfg.tuned || cfg.autotune_config < 0 || cfg.autotune_config >= cfg.num_configs) {
            ex_result(c->name, 0, "the kernel is not tuned, or config %d is not one of its %d", cfg.autotune_config,
                      cfg.num_configs);
            goto done;
        }
    }
    size_t n = (size_t)M * (size_t)N;
    double *got = malloc(n * sizeof *got), *want = malloc(n * sizeof *want);
    void *raw = malloc(n * tl_dtype_size(c->out));
    tl_buffer_read(bc, 0, raw, n * tl_dtype_size(c->out));
    for (size_t i = 0; i < n; i++)
        got[i] = c->out == TL_F16 ? ex_h2f(((uint16_t *)raw)[i]) : ((float *)raw)[i];
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double acc = 0;
            for (int kk = 0; kk < K; kk++)
                acc += stored(c->in, a[(size_t)i * K + kk]) * stored(c->in, b[(size_t)kk * N + j]);
            if (c->act == ACT_LEAKY_RELU && acc < 0)
                acc *= 0.01;
            if (c->act == ACT_RELU_FP16 && acc < 0)
                acc = 0;
            want[(size_t)i * N + j] = acc;
        }
    size_t where;
    double worst = ex_compare(got, want, n, c->atol, c->rtol, &where);
    ex_result(c->name, worst <= 1, "C[%zu][%zu] = %.6g, want %.6g (error %.2fx the tolerance)", where / (size_t)N,
              where % (size_t)N, got[where], want[where], worst);
    free(got);
    free(want);
    free(raw);
done:
    tl_buffer_destroy(ba);
    tl_buffer_destroy(bb);
    tl_buffer_destroy(bc);
    tl_kernel_destroy(k);
}

/* matmul_kernel_host_desc: A, B and C as host tensor descriptors over
 * buffers whose rows are padded to 16 bytes (as TMA needs), M, N and K prime.
 * C's padding starts at a sentinel that the dropped out-of-bounds writes of
 * the edge tiles must leave alone. */
static void run_host_desc_case(TlContext *ctx, const char *name, int M, int N, int K) {
    if (ex_skipped(name))
        return;
    int lda = round_up(K, 8), ldb = round_up(N, 8), ldc = round_up(N, 8);
    float *a = random_matrix((size_t)M * K), *b = random_matrix((size_t)K * N);
    float *ap = calloc((size_t)M * lda, sizeof *ap), *bp = calloc((size_t)K * ldb, sizeof *bp);
    float *cp = malloc(sizeof *cp * (size_t)M * ldc);
    for (int i = 0; i < M; i++)
        memcpy(ap + (size_t)i * lda, a + (size_t)i * K, sizeof *ap * (size_t)K);
    for (int i = 0; i < K; i++)
        memcpy(bp + (size_t)i * ldb, b + (size_t)i * N, sizeof *bp * (size_t)N);
    for (size_t i = 0; i < (size_t)M * ldc; i++)
        cp[i] = 7.0f;
    TlBuffer *ba = upload(ctx, TL_F16, ap, M, lda, M, lda, 0), *bb = upload(ctx, TL_F16, bp, K, ldb, K, ldb, 0);
    TlBuffer *bc = upload(ctx, TL_F16, cp, M, ldc, M, ldc, 0);
    TlKernel *k = ex_kernel(ctx, "matmul_descriptor.tl", "--kernel matmul_kernel_host_desc -D GROUP_SIZE_M=4");
    TlTensorDesc da, db, dc;
    TlArg args[] = {
        tl_arg_tensordesc(&da, ba, 2, (int64_t[]){M, K}, (int64_t[]){lda, 1}, (int32_t[]){64, 32}),
        tl_arg_tensordesc(&db, bb, 2, (int64_t[]){K, N}, (int64_t[]){ldb, 1}, (int32_t[]){32, 64}),
        tl_arg_tensordesc(&dc, bc, 2, (int64_t[]){M, N}, (int64_t[]){ldc, 1}, (int32_t[]){64, 64}),
        tl_arg_i32(M), tl_arg_i32(N), tl_arg_i32(K),
    };
    unsigned grid[3] = {ex_cdiv((size_t)M, 64) * ex_cdiv((size_t)N, 64), 1, 1};
    TlStatus s = tl_launch(k, grid, args, 6);
    if (s != TL_SUCCESS) {
        ex_result(name, 0, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
    } else {
        size_t n = (size_t)M * ldc, bad = n;
        uint16_t *raw = malloc(n * 2);
        tl_buffer_read(bc, 0, raw, n * 2);
        double *got = malloc((size_t)M * N * sizeof *got), *want = malloc((size_t)M * N * sizeof *want);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < ldc; j++) {
                double g = ex_h2f(raw[(size_t)i * ldc + j]);
                if (j >= N && g != 7.0 && bad == n)
                    bad = (size_t)i * ldc + j;
                if (j >= N)
                    continue;
                double acc = 0;
                for (int kk = 0; kk < K; kk++)
                    acc += stored(TL_F16, a[(size_t)i * K + kk]) * stored(TL_F16, b[(size_t)kk * N + j]);
                got[(size_t)i * N + j] = g, want[(size_t)i * N + j] = acc;
            }
        size_t where;
        double worst = ex_compare(got, want, (size_t)M * N, FP16_TOL, &where);
        if (bad != n)
            ex_result(name, 0, "C's row padding at [%zu][%zu] was written", bad / (size_t)ldc, bad % (size_t)ldc);
        else
            ex_result(name, worst <= 1, "C[%zu][%zu] = %.6g, want %.6g (error %.2fx the tolerance)",
                      where / (size_t)N, where % (size_t)N, got[where], want[where], worst);
        free(got), free(want), free(raw);
    }
    tl_kernel_destroy(k);
    tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc);
    free(a), free(b), free(ap), free(bp), free(cp);
}

static void transpose(const float *m, int rows, int cols, float *t) {
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++)
            t[(size_t)c * rows + r] = m[(size_t)r * cols + c];
}


int main(void) {
    TlContext *ctx = ex_context();

    static const char *const seed003 =
        "-D BLOCK_SIZE_X=128 -D BLOCK_SIZE_Y=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_X=8";
    char fwd_relu[256], fwd_none[256];
    /* Options split like a shell: the double quotes keep the string literal's own quotes. */
    snprintf(fwd_relu, sizeof fwd_relu, "%s -D \"ACTIVATION='relu'\"", seed003);
    snprintf(fwd_none, sizeof fwd_none, "%s -D \"ACTIVATION='none'\"", seed003);

    const Case cases[] = {
        {"naive fp16 512x512x512 bs=16", "matmul_naive.tl", "--kernel naive_matmul_k -D bm=16 -D bn=16 -D bk=16",
         TL_F16, TL_F16, 512, 512, 512, 16, 16, GRID_2D, 1, 0, ACT_NONE, FP16_TOL},
        {"naive fp32 100x70x64 bs=32", "matmul_naive.tl", "--kernel naive_matmul_k -D bm=32 -D bn=32 -D bk=32",
         TL_F32, TL_F16, 100, 70, 64, 32, 32, GRID_2D, 1, 0, ACT_NONE, FP16_TOL},
        {"grouped fp16 512x512x512 bs=16 group=32", "matmul_grouped.tl", "--kernel grouped_matmul_k -D bm=16 -D bn=16 -D bk=16 -D group_sz=32",
         TL_F16, TL_F16, 512, 512, 512, 16, 16, GRID_2D, 1, 0, ACT_NONE, FP16_TOL},
        {"grouped fp32 37x42x48 bs=16 group=4", "matmul_grouped.tl", "--kernel grouped_matmul_k -D bm=16 -D bn=16 -D bk=16 -D group_sz=4",
         TL_F32, TL_F16, 37, 42, 48, 16, 16, GRID_2D, 1, 0, ACT_NONE, FP16_TOL},
        {"autotuned config 2 fp32 200x130x96", "matmul_autotuned.tl", "--kernel grouped_autotuned_matmul_k --autotune-config 2",
         TL_F32, TL_F16, 200, 130, 96, 128, 128, GRID_2D, 1, 0, ACT_NONE, FP16_TOL},
        {"tutorial fp16 512x512x512", "matmul_tutorial.tl", "--kernel matmul_kernel --autotune-config 4 -D ACTIVATION=None",
         TL_F16, TL_F16, 512, 512, 512, 128, 128, GRID_1D, 1, 0, ACT_NONE, FP16_TOL},
        {"tutorial fp16 300x200x128 leaky_relu", "matmul_tutorial.tl", "--kernel matmul_kernel --autotune-config 4 -D ACTIVATION=leaky_relu",
         TL_F16, TL_F16, 300, 200, 128, 128, 128, GRID_1D, 1, 0, ACT_LEAKY_RELU, FP16_TOL},
        /* tutorial 09's persistent kernel, flattened (flatten.c): NUM_SMS 4,
         * so programs 0 and 1 take two tiles each (the grid covers every tile,
         * so programs 4 and 5 redo tiles 4 and 5: the same values) */
        {"persistent flattened fp16 300x200x160", "tutorial_09_persistent_matmul.tl",
         "--kernel matmul_kernel_persistent --autotune-config 5 -D NUM_SMS=4",
         TL_F16, TL_F16, 300, 200, 160, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP16_TOL},
        /* fp32 inputs: tl.dot's tf32 (on sm_90a a wgmma whose B ring is K-major); K a multiple of BK (no K mask) */
        {"tutorial tf32 300x200x160 config 1", "matmul_tutorial.tl", "--kernel matmul_kernel --autotune-config 1 -D ACTIVATION=None",
         TL_F32, TL_F16, 300, 200, 160, 256, 128, GRID_1D, 1, 0, ACT_NONE, FP16_TOL},
        {"tutorial tf32 257x129x96 config 4", "matmul_tutorial.tl", "--kernel matmul_kernel --autotune-config 4 -D ACTIVATION=None",
         TL_F32, TL_F16, 257, 129, 96, 128, 128, GRID_1D, 1, 0, ACT_NONE, FP16_TOL},
        {"puzzle fp32 512x512x512", "matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2",
         TL_F32, TL_F32, 512, 512, 512, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle fp32 37x42x73", "matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2",
         TL_F32, TL_F32, 37, 42, 73, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle fp32 128x256x64", "matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2",
         TL_F32, TL_F32, 128, 256, 64, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle fp32 1x130x77", "matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2",
         TL_F32, TL_F32, 1, 130, 77, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle fp32 131x1x50", "matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2",
         TL_F32, TL_F32, 131, 1, 50, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle grouped fp32 512x512x512", "matmul_puzzle.tl", "--kernel matmul_kernel_grouped --autotune-config 2",
         TL_F32, TL_F32, 512, 512, 512, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle grouped fp32 37x42x73", "matmul_puzzle.tl", "--kernel matmul_kernel_grouped --autotune-config 2",
         TL_F32, TL_F32, 37, 42, 73, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP32_TOL},
        {"puzzle grouped fp32 128x256x64", "matmul_puzzle.tl", "--kernel matmul_kernel_grouped --autotune-config 2",
         TL_F32, TL_F32, 128, 256, 64, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP32_TOL},
        {"fwd fp16 256x384x200 relu (seed 003)", "matmul_fwd.tl", fwd_relu,
         TL_F16, TL_F16, 256, 384, 200, 128, 128, GRID_1D, 1, 1, ACT_RELU_FP16, FP16_TOL},
        /* block pointers and descriptors clip at the edges: no padding */
        {"block_ptr fp16 257x131x67 (config 1)", "matmul_block_ptr.tl", "--kernel matmul_kernel --autotune-config 1",
         TL_F16, TL_F16, 257, 131, 67, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP16_TOL},
        {"block_ptr fp16 100x37x129 leaky_relu (config 3)", "matmul_block_ptr.tl",
         "--kernel matmul_kernel --autotune-config 3 -D ACTIVATION=leaky_relu",
         TL_F16, TL_F16, 100, 37, 129, 64, 32, GRID_1D, 0, 0, ACT_LEAKY_RELU, FP16_TOL},
        {"descriptor (in kernel) fp16 257x136x72", "matmul_descriptor.tl",
         "--kernel matmul_kernel_make_desc -D BLOCK_SIZE_M=64 -D BLOCK_SIZE_N=64 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_M=8",
         TL_F16, TL_F16, 257, 136, 72, 64, 64, GRID_1D, 0, 0, ACT_NONE, FP16_TOL},
    };
    /* On a GPU every kernel also runs with 1 to 4 pipeline stages (1: no
     * software pipelining; the default is its autotune config's), and once
     * for sm_80 (mma.sync where a Hopper takes wgmma); the interpreter
     * ignores num_stages, so it runs each case once. */
    int max_stages = tl_context_device(ctx) == TL_DEVICE_CPU ? -1 : 4;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int st = 0; st <= max_stages + 1; st++) {
            Case c = cases[i];
            char name[160], options[320];
            if (st) {
                int sm80 = st == max_stages + 1;
                snprintf(name, sizeof name, sm80 ? "%s sm_80" : "%s num_stages=%d", c.name, st);
                snprintf(options, sizeof options, sm80 ? "%s --arch sm_80" : "%s --num-stages %d", c.options, st);
                c.name = name;
                c.options = options;
            }
            float *a = random_matrix((size_t)c.M * c.K), *b = random_matrix((size_t)c.K * c.N);
            run_case(ctx, &c, a, b, NULL);
            free(a);
            free(b);
        }
    }

    /* Autotuned at launch, as Triton's users launch them: no config named,
     * the grid a function of the chosen one (the padding fits every config). */
    const struct { Case c; const char *grid; } tuned[] = {
        {{"tuned tutorial fp16 300x200x128", "matmul_tutorial.tl", "--kernel matmul_kernel -D ACTIVATION=None",
          TL_F16, TL_F16, 300, 200, 128, 256, 256, GRID_1D, 1, 0, ACT_NONE, FP16_TOL},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"},
        {{"tuned puzzle fp32 37x42x73", "matmul_puzzle.tl", "--kernel matmul_kernel",
          TL_F32, TL_F32, 37, 42, 73, 128, 128, GRID_2D, 0, 0, ACT_NONE, FP32_TOL},
         "cdiv(M, BLOCK_SIZE_M), cdiv(N, BLOCK_SIZE_N)"},
        {{"tuned puzzle grouped fp32 257x129x67", "matmul_puzzle.tl", "--kernel matmul_kernel_grouped",
          TL_F32, TL_F32, 257, 129, 67, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP32_TOL},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"},
        {{"tuned block_ptr fp16 199x173x91", "matmul_block_ptr.tl", "--kernel matmul_kernel",
          TL_F16, TL_F16, 199, 173, 91, 128, 128, GRID_1D, 0, 0, ACT_NONE, FP16_TOL},
         "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)"},
    };
    for (size_t i = 0; i < sizeof tuned / sizeof tuned[0]; i++) {
        const Case *c = &tuned[i].c;
        float *a = random_matrix((size_t)c->M * c->K), *b = random_matrix((size_t)c->K * c->N);
        run_case(ctx, c, a, b, tuned[i].grid);
        free(a);
        free(b);
    }

    /* Seed 003's backward pass for z = x @ y: dx = dz @ y^T and dy = x^T @ dz,
     * each a forward matmul on transposed operands (materialised, since the
     * kernel takes no strides). */
    int M = 256, K = 128, N = 256;
    float *x = random_matrix((size_t)M * K), *y = random_matrix((size_t)K * N), *dz = random_matrix((size_t)M * N);
    float *yt = malloc(sizeof(float) * (size_t)K * N), *xt = malloc(sizeof(float) * (size_t)M * K);
    transpose(y, K, N, yt);
    transpose(x, M, K, xt);
    Case dx = {"bwd dx = dz @ y^T fp16 256x128 (K=256)", "matmul_fwd.tl", fwd_none,
               TL_F16, TL_F16, M, K, N, 128, 128, GRID_1D, 1, 1, ACT_NONE, FP16_TOL};
    Case dy = {"bwd dy = x^T @ dz fp16 128x256 (K=256)", "matmul_fwd.tl", fwd_none,
               TL_F16, TL_F16, K, N, M, 128, 128, GRID_1D, 1, 1, ACT_NONE, FP16_TOL};
    run_case(ctx, &dx, dz, yt, NULL);
    run_case(ctx, &dy, xt, dz, NULL);
    free(x), free(y), free(dz), free(yt), free(xt);

    run_host_desc_case(ctx, "descriptor (from the host) fp16 257x131x67", 257, 131, 67);
    run_host_desc_case(ctx, "descriptor (from the host) fp16 1x1x1", 1, 1, 1);
    run_host_desc_case(ctx, "descriptor (from the host, :16) fp16 192x128x96", 192, 128, 96);

    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
