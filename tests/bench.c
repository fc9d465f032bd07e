/* bench.c (tl-bench, make bench): our kernels on the GPU next to cuBLAS and
 * the device's own copy bandwidth, measured in one process.
 *
 * Method (docs/performance.md): CUDA events around each launch, warm-up
 * first, the median of many runs, random inputs, L2 flushed before each
 * timed run by writing a buffer larger than it, and results checked against
 * cuBLAS (matmul) or the inputs (copy) so a fast wrong kernel cannot win. */
#include <dlfcn.h>
#include <time.h>

#include "common.h"
#include "cuda.h"

static const CudaApi *cu;
static TlContext *ctx;
static FILE *csv; /* $TL_BENCH_CSV: one row per measurement, for plots */
static CUdeviceptr flush_buf;
enum { FLUSH_BYTES = 256 << 20 };

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef void (*RunFn)(void *);

/* $TL_BENCH_PROFILE: one launch of each timed kernel between
 * cuProfilerStart and cuProfilerStop, so `ncu --profile-from-start off
 * build/bin/tl-bench --tf32` profiles the chosen config and cuBLAS's kernel
 * beside it, and nothing of the tuning. */
static void profile_one(void (*fn)(void *), void *arg) {
    static int (*start)(void), (*stop)(void);
    if (!getenv("TL_BENCH_PROFILE"))
        return;
    if (!start) {
        void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
        start = lib ? (int (*)(void))dlsym(lib, "cuProfilerStart") : NULL;
        stop = lib ? (int (*)(void))dlsym(lib, "cuProfilerStop") : NULL;
        if (!start || !stop) {
            printf("TL_BENCH_PROFILE: no cuProfilerStart in the driver\n");
            return;
        }
    }
    start();
    fn(arg);
    cu->cuCtxSynchronize();
    stop();
}

/* Median device time of fn in ms. */
static double time_ms(RunFn fn, void *arg, int warmup, int reps) {
    for (int i = 0; i < warmup; i++)
        fn(arg);
    CUevent e0, e1;
    cu->cuEventCreate(&e0, CU_EVENT_DEFAULT);
    cu->cuEventCreate(&e1, CU_EVENT_DEFAULT);
    double t[256];
    if (reps > 256)
        reps = 256;
    for (int i = 0; i < reps; i++) {
        cu->cuMemsetD8(flush_buf, (unsigned char)i, FLUSH_BYTES);
        cu->cuEventRecord(e0, NULL);
        fn(arg);
        cu->cuEventRecord(e1, NULL);
        cu->cuEventSynchronize(e1);
        float ms = 0;
        cu->cuEventElapsedTime(&ms, e0, e1);
        t[i] = ms;
    }
    cu->cuEventDestroy(e0);
    cu->cuEventDestroy(e1);
    qsort(t, (size_t)reps, sizeof t[0], cmp_double);
    return t[reps / 2];
}

/* $TL_BENCH_OPTS (e.g. "-O2") is appended to every kernel's options: one
 * binary compares compile pipelines. */
static const char *with_extra(const char *opts) {
    static char buf[1024];
    const char *extra = getenv("TL_BENCH_OPTS");
    snprintf(buf, sizeof buf, "%s %s", opts, extra ? extra : "");
    return buf;
}

/* ---- our kernels ---- */

typedef struct Launch {
    TlKernel *k;
    unsigned grid[3];
    TlArg args[16];
    int nargs;
} Launch;

static void run_launch(void *p) {
    Launch *l = p;
    TlStatus s = tl_launch_async(l->k, l->grid, l->args, l->nargs);
    if (s != TL_SUCCESS) {
        printf("launch failed: %s\n%s\n", tl_status_name(s), tl_last_error(ctx));
        exit(1);
    }
}

/* ---- cuBLAS through dlopen ---- */

typedef int (*CublasCreate)(void **);
typedef int (*CublasGemmEx)(void *, int, int, int, int, int, const void *, const void *, int, int, const void *, int,
                            int, const void *, void *, int, int, int, int);
static void *cublas;
static CublasGemmEx gemm_ex;

static void open_cublas(void) {
    const char *names[] = {getenv("TL_CUBLAS"), "libcublas.so", "libcublas.so.13", "libcublas.so.12"};
    void *lib = NULL;
    for (int i = 0; i < 4 && !lib; i++)
        if (names[i])
            lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        printf("cuBLAS: not found (set TL_CUBLAS to libcublas.so's path): %s\n", dlerror());
        return;
    }
    CublasCreate create = (CublasCreate)dlsym(lib, "cublasCreate_v2");
    gemm_ex = (CublasGemmEx)dlsym(lib, "cublasGemmEx");
    if (!create || !gemm_ex || create(&cublas)) {
        printf("cuBLAS: cannot create a handle\n");
        cublas = NULL;
    }
}

typedef struct Gemm {
    int m, n, k, type, compute;
    CUdeviceptr a, b, c;
} Gemm;

enum { CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_32F_FAST_TF32 = 77 };

static void run_cublas(void *p) {
    Gemm *g = p;
    float one = 1, zero = 0;
    /* Row-major C = A B is column-major C^T = B^T A^T. */
    int r = gemm_ex(cublas, 0, 0, g->n, g->m, g->k, &one, (void *)g->b, g->type, g->n, (void *)g->a, g->type, g->k,
                    &zero, (void *)g->c, g->type, g->n, g->compute, -1);
    if (r)
        printf("cublasGemmEx failed: %d\n", r);
}

/* ---- device buffers through the API (tl buffers carry the device pointer) ---- */

static TlBuffer *random_buffer(TlDType dt, size_t n) {
    size_t es = tl_dtype_size(dt);
    unsigned char *h = malloc(n * es);
    for (size_t i = 0; i < n; i++) {
        float v = (float)ex_uniform();
        if (dt == TL_F16) {
            uint16_t x = ex_f2h(v);
            memcpy(h + i * 2, &x, 2);
        } else if (dt == TL_BF16) {
            uint32_t x;
            memcpy(&x, &v, 4);
            uint16_t y = (uint16_t)(x >> 16);
            memcpy(h + i * 2, &y, 2);
        } else if (dt == TL_U8) {
            h[i] = (unsigned char)((v + 1) * 127);
        } else {
            memcpy(h + i * 4, &v, 4);
        }
    }
    TlBuffer *b = ex_buffer(ctx, dt, n, h);
    free(h);
    return b;
}

static CUdeviceptr dptr(TlBuffer *b) { return tl_buffer_device_ptr(b); }

static double to_double(TlDType dt, const unsigned char *p, size_t i) {
    if (dt == TL_F16) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        return ex_h2f(h);
    }
    if (dt == TL_BF16) {
        uint16_t h;
        memcpy(&h, p + 2 * i, 2);
        uint32_t x = (uint32_t)h << 16;
        float f;
        memcpy(&f, &x, 4);
        return f;
    }
    float f;
    memcpy(&f, p + 4 * i, 4);
    return f;
}

/* ||ours - cublas|| / ||cublas|| */
/* ||ours - ref|| / ||ref||; a read that fails, or an all-zero result on
 * either side, says so instead of passing as a perfect match. */
static double rel_error(TlBuffer *ours, TlBuffer *ref, TlDType dt, size_t n) {
    size_t es = tl_dtype_size(dt);
    unsigned char *a = malloc(n * es), *b = malloc(n * es);
    TlStatus s1 = tl_buffer_read(ours, 0, a, n * es), s2 = tl_buffer_read(ref, 0, b, n * es);
    if (s1 != TL_SUCCESS || s2 != TL_SUCCESS)
        printf("(reading the results failed: %s)\n", tl_last_error(ctx));
    double num = 0, den = 0, ours2 = 0;
    for (size_t i = 0; i < n; i++) {
        double x = to_double(dt, a, i), y = to_double(dt, b, i);
        num += (x - y) * (x - y);
        den += y * y;
        ours2 += x * x;
    }
    if (den == 0 || ours2 == 0)
        printf("(a result is all zeros: |ours| %g, |cuBLAS| %g)\n", sqrt(ours2), sqrt(den));
    free(a);
    free(b);
    return den > 0 ? sqrt(num / den) : INFINITY;
}

typedef struct MatmulKernel {
    const char *name, *file, *opts;
    int nconfigs;      /* autotune configs to try (0: the options fix the tiles) */
    int bm[10], bn[10];
    int grid_2d;
    int whole_tiles;   /* loads are unmasked: M, N multiples of the tile, K of 32 */
    int no_strides;    /* seed 003: (x, y, out, x_rows, x_cols, y_rows, y_cols) */
    int tf32;          /* its tl.dot has the default precision: fp32 inputs run as TF32 */
} MatmulKernel;

static const MatmulKernel tutorial = {
    "tutorial", "matmul_tutorial.tl", "--kernel matmul_kernel -D ACTIVATION=None", 10,
    {128, 256, 256, 64, 128, 128, 64, 128, 64, 32}, {256, 128, 64, 256, 128, 64, 128, 32, 32, 64}, 0, 1, 0, 1};
static const MatmulKernel puzzle = {
    "puzzle", "matmul_puzzle.tl", "--kernel matmul_kernel", 5, {128, 64, 128, 128, 64}, {256, 256, 128, 64, 128},
    1, 0, 0, 0};
/* Triton's tutorial 03 as it is written today (examples/tutorial_03_matmul.tl:
 * rows and columns wrapped with `% M` / `% N`, only K masked, its 8 configs):
 * on sm_90a the tma pass gives its pointer tiles TMA, so its loop is
 * warp-specialised. anchor_bench.py's Triton kernel is this one (rows not
 * wrapped). */
static const MatmulKernel tutorial03 = {
    "tutorial-03", "tutorial_03_matmul.tl", "--kernel matmul_kernel -D \"ACTIVATION=''\"", 8,
    {128, 64, 128, 128, 64, 128, 64, 32}, {256, 256, 128, 64, 128, 32, 32, 64}, 0, 0, 0, 0};
/* Tutorial 03 written with in-kernel tensor descriptors (examples/matmul_descriptor.tl):
 * on sm_90a its tiles are TMA boxes and its loop is warp-specialised (docs/codegen.md). */
static const MatmulKernel make_desc = {
    "make-desc", "matmul_descriptor.tl",
    "--kernel matmul_kernel_make_desc -D BLOCK_SIZE_M=128 -D BLOCK_SIZE_N=256 -D BLOCK_SIZE_K=64 -D GROUP_SIZE_M=8 "
    "--num-warps 8 --num-stages 3", 0, {128}, {256}, 0, 0, 0, 0};
/* Every other seed kernel, once each, at 8192: they must run correctly there. */
static const MatmulKernel others[] = {
    {"naive", "matmul_naive.tl", "--kernel naive_matmul_k -D bm=64 -D bn=64 -D bk=64", 0, {64}, {64}, 1, 1, 0, 0},
    {"grouped", "matmul_grouped.tl", "--kernel grouped_matmul_k -D bm=64 -D bn=64 -D bk=64 -D group_sz=8", 0,
     {64}, {64}, 1, 1, 0, 0},
    {"autotuned", "matmul_autotuned.tl", "--kernel grouped_autotuned_matmul_k", 8,
     {128, 64, 128, 128, 64, 128, 64, 32}, {256, 256, 128, 64, 128, 32, 32, 64}, 1, 1, 0, 0},
    {"puzzle-grouped", "matmul_puzzle.tl", "--kernel matmul_kernel_grouped", 5, {128, 64, 128, 128, 64},
     {256, 256, 128, 64, 128}, 0, 0, 0, 0},
    {"fwd(seed003)", "matmul_fwd.tl",
     "-D BLOCK_SIZE_X=128 -D BLOCK_SIZE_Y=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_X=8 -D \"ACTIVATION='none'\"", 0,
     {128}, {128}, 0, 1, 1, 0},
};

/* Returns tl's TFLOP/s (0 when no config ran). */
static double bench_matmul(const MatmulKernel *mk, TlDType dt, int M, int N, int K) {
    TlBuffer *a = random_buffer(dt, (size_t)M * K), *b = random_buffer(dt, (size_t)K * N);
    TlBuffer *c = ex_buffer(ctx, dt, (size_t)M * N, NULL), *cref = ex_buffer(ctx, dt, (size_t)M * N, NULL);
    double best = 1e30, cold_ms = 0;
    int best_cfg = -1;
    Launch best_l = {0};
    int nconfigs = mk->nconfigs ? mk->nconfigs : 1;
    for (int cfg = 0; cfg < nconfigs; cfg++) {
        if (mk->whole_tiles && (M % mk->bm[cfg] || N % mk->bn[cfg] || K % 64))
            continue;
        char opts[512];
        if (mk->nconfigs)
            snprintf(opts, sizeof opts, "%s --autotune-config %d", mk->opts, cfg);
        else
            snprintf(opts, sizeof opts, "%s", mk->opts);
        Launch l = {.k = ex_kernel(ctx, mk->file, with_extra(opts))};
        unsigned gm = ex_cdiv((size_t)M, (size_t)mk->bm[cfg]), gn = ex_cdiv((size_t)N, (size_t)mk->bn[cfg]);
        l.grid[0] = mk->grid_2d ? gm : gm * gn, l.grid[1] = mk->grid_2d ? gn : 1, l.grid[2] = 1;
        l.args[0] = tl_arg_buffer(a), l.args[1] = tl_arg_buffer(b), l.args[2] = tl_arg_buffer(c);
        int strided[] = {M, N, K, K, 1, N, 1, N, 1}, fwd[] = {M, K, K, N};
        const int *v = mk->no_strides ? fwd : strided;
        l.nargs = 3;
        for (int i = 0; i < (mk->no_strides ? 4 : 9); i++)
            l.args[l.nargs++] = tl_arg_i32(v[i]);
        double t0 = now_ms();
        if (tl_launch_async(l.k, l.grid, l.args, l.nargs) != TL_SUCCESS) { /* e.g. fp32 tiles past shared memory */
            printf("  (%s config %d does not run: %s)\n", mk->name, cfg, tl_last_error(ctx));
            tl_kernel_destroy(l.k);
            continue;
        }
        tl_context_synchronize(ctx);
        if (cfg == 0)
            cold_ms = now_ms() - t0;
        double t = time_ms(run_launch, &l, 1, 5);
        if (t < best) {
            if (best_l.k)
                tl_kernel_destroy(best_l.k);
            best = t, best_cfg = cfg, best_l = l;
        } else {
            tl_kernel_destroy(l.k);
        }
    }
    const char *dn = dt == TL_F16 ? "fp16" : dt == TL_BF16 ? "bf16" : mk->tf32 ? "tf32" : "fp32";
    double flops = 2.0 * M * N * K;
    if (best_cfg < 0) {
        printf("matmul %-14s %-5s %5d %5d %5d   (no config fits this shape)\n", mk->name, dn, M, N, K);
        goto out;
    }
    best = time_ms(run_launch, &best_l, 2, 20);
    profile_one(run_launch, &best_l);
    double ours = flops / best * 1e-9, theirs = 0, err = -1;
    if (cublas) {
        Gemm g = {M, N, K, dt == TL_F16 ? CUDA_R_16F : dt == TL_BF16 ? CUDA_R_16BF : CUDA_R_32F,
                  dt == TL_F32 && mk->tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F, dptr(a), dptr(b),
                  dptr(cref)};
        theirs = flops / time_ms(run_cublas, &g, 2, 20) * 1e-9;
        profile_one(run_cublas, &g);
        tl_context_synchronize(ctx);
        err = rel_error(c, cref, dt, (size_t)M * N);
    }
    printf("matmul %-14s %-5s %5d %5d %5d  tl %6.1f TFLOP/s (cfg %d)  cuBLAS %6.1f  ratio %5.2f  relerr %.1e  "
           "first-call %.0f ms\n",
           mk->name, dn, M, N, K, ours, best_cfg, theirs, theirs > 0 ? ours / theirs : 0, err, cold_ms);
    if (csv)
        fprintf(csv, "matmul,%s,%s,%d,%d,%d,%.2f,%.2f,%d\n", mk->name, dn, M, N, K, ours, theirs, best_cfg);
    tl_kernel_destroy(best_l.k);
out:
    tl_buffer_destroy(a), tl_buffer_destroy(b), tl_buffer_destroy(c), tl_buffer_destroy(cref);
    return best_cfg < 0 ? 0 : flops / best * 1e-9;
}

typedef struct Copy {
    CUdeviceptr src, dst;
    size_t bytes;
} Copy;

static void run_dtod(void *p) {
    Copy *c = p;
    cu->cuMemcpyDtoD(c->dst, c->src, c->bytes);
}

/* Read back both buffers and compare bytes: a fast wrong kernel must not win. */
static const char *same_bytes(TlBuffer *a, TlBuffer *b, size_t bytes) {
    unsigned char *x = malloc(bytes), *y = malloc(bytes);
    tl_buffer_read(a, 0, x, bytes);
    tl_buffer_read(b, 0, y, bytes);
    int same = !memcmp(x, y, bytes);
    free(x);
    free(y);
    return same ? "checked" : "WRONG";
}

static void bench_copy(size_t n) {
    TlBuffer *x = random_buffer(TL_F32, n), *z = ex_buffer(ctx, TL_F32, n, NULL);
    Launch l = {.k = ex_kernel(ctx, "copy.tl", "-D bs=1024")};
    l.grid[0] = ex_cdiv(n, 1024), l.grid[1] = l.grid[2] = 1;
    l.args[0] = tl_arg_buffer(x), l.args[1] = tl_arg_buffer(z), l.args[2] = tl_arg_i32((int32_t)n);
    l.nargs = 3;
    double t = time_ms(run_launch, &l, 3, 20);
    const char *check = same_bytes(x, z, n * 4);
    TlBuffer *z2 = ex_buffer(ctx, TL_F32, n, NULL);
    Copy c = {dptr(x), dptr(z2), n * 4};
    double td = time_ms(run_dtod, &c, 3, 20);
    double bytes = 2.0 * (double)n * 4;
    printf("copy   fp32 n=%zu  tl %7.0f GB/s (%s)   cuMemcpyDtoD %7.0f GB/s   ratio %.2f\n", n, bytes / t * 1e-6,
           check, bytes / td * 1e-6, td / t);
    tl_buffer_destroy(z2);
    tl_kernel_destroy(l.k);
    tl_buffer_destroy(x), tl_buffer_destroy(z);
}

static double bench_grey_warps(int h, int w, int bs0, int bs1, int warps);
static void bench_grey(int h, int w, int bs0, int bs1) { bench_grey_warps(h, w, bs0, bs1, 0); }

/* warps: num_warps (0: the default) */
static double bench_grey_warps(int h, int w, int bs0, int bs1, int warps) {
    size_t n = (size_t)h * (size_t)w;
    TlBuffer *x = random_buffer(TL_U8, 3 * n), *o = ex_buffer(ctx, TL_U8, n, NULL);
    char opts[64];
    int k = snprintf(opts, sizeof opts, "-D bs0=%d -D bs1=%d", bs0, bs1);
    if (warps)
        snprintf(opts + k, sizeof opts - (size_t)k, " --num-warps %d", warps);
    Launch l = {.k = ex_kernel(ctx, "grayscale.tl", opts)};
    l.grid[0] = ex_cdiv((size_t)h, (size_t)bs0), l.grid[1] = ex_cdiv((size_t)w, (size_t)bs1), l.grid[2] = 1;
    l.args[0] = tl_arg_buffer(x), l.args[1] = tl_arg_buffer(o), l.args[2] = tl_arg_i32(h), l.args[3] = tl_arg_i32(w);
    l.nargs = 4;
    double t = time_ms(run_launch, &l, 3, 20);
    /* Check against the C formula (within 1: the GPU may fuse a multiply-add). */
    unsigned char *in = malloc(3 * n), *out = malloc(n);
    tl_buffer_read(x, 0, in, 3 * n);
    tl_buffer_read(o, 0, out, n);
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        float v = 0.2989f * in[i] + 0.5870f * in[n + i];
        v = v + 0.1140f * in[2 * n + i];
        bad += abs((int)out[i] - (int)(unsigned char)v) > 1;
    }
    double gbs = 4.0 * (double)n / t * 1e-6;
    printf("grey   u8 %dx%d tile %dx%d%s  tl %7.0f GB/s (3 planes read + 1 written; %s)\n", h, w, bs0, bs1,
           warps == 8 ? " w8" : "", gbs, bad ? "WRONG" : "checked");
    free(in);
    free(out);
    tl_kernel_destroy(l.k);
    tl_buffer_destroy(x), tl_buffer_destroy(o);
    return bad ? 0 : gbs;
}

static void bench_launch(void) {
    TlBuffer *x = random_buffer(TL_F32, 16), *z = ex_buffer(ctx, TL_F32, 16, NULL);
    Launch l = {.k = ex_kernel(ctx, "copy.tl", "-D bs=16")};
    l.grid[0] = l.grid[1] = l.grid[2] = 1;
    l.args[0] = tl_arg_buffer(x), l.args[1] = tl_arg_buffer(z), l.args[2] = tl_arg_i32(16);
    l.nargs = 3;
    enum { N = 20000 };
    run_launch(&l);
    tl_context_synchronize(ctx);
    double t0 = now_ms();
    for (int i = 0; i < N; i++)
        run_launch(&l);
    tl_context_synchronize(ctx);
    double ours = (now_ms() - t0) * 1e3 / N;
    /* The floor: cuLaunchKernel of an empty kernel. */
    const char *ptx = ".version 8.0\n.target sm_80\n.address_size 64\n.visible .entry noop() { ret; }\n";
    CUmodule mod;
    CUfunction fn;
    double raw = -1;
    if (!cu->cuModuleLoadData(&mod, ptx) && !cu->cuModuleGetFunction(&fn, mod, "noop")) {
        t0 = now_ms();
        for (int i = 0; i < N; i++)
            cu->cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL, NULL);
        cu->cuCtxSynchronize();
        raw = (now_ms() - t0) * 1e3 / N;
        cu->cuModuleUnload(mod);
    }
    printf("launch overhead  tl_launch_async %.2f us/call   raw cuLaunchKernel %.2f us/call\n", ours, raw);
    tl_kernel_destroy(l.k);
    tl_buffer_destroy(x), tl_buffer_destroy(z);
}

/* Cold: empty cache, first launch compiles; warm: a new kernel object with
 * the cache filled. The arguments are what the examples really pass (so the
 * :16 / :1 specialisation users get): ints[] as given, -1 for a buffer. */
static void bench_compile(const char *file, const char *opts, TlDType dt, const int *argv_, int nargs) {
    char dir[] = "/tmp/tl-bench-cache-XXXXXX";
    if (!mkdtemp(dir))
        return;
    setenv("TL_CACHE_DIR", dir, 1);
    /* One buffer large enough for every shape below (a 4320x7680 RGB image,
     * 4096^2 matrices), of the element type the example passes. */
    TlBuffer *b = ex_buffer(ctx, dt, (size_t)128 << 20, NULL);
    double ms[2];
    TlStats before, after;
    tl_context_stats(ctx, &before);
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1)
            tl_context_stats(ctx, &after);
        Launch l = {.k = ex_kernel(ctx, file, with_extra(opts))};
        l.grid[0] = l.grid[1] = l.grid[2] = 1;
        for (int i = 0; i < nargs; i++)
            l.args[l.nargs++] = argv_[i] < 0 ? tl_arg_buffer(b) : tl_arg_i32(argv_[i]);
        double t0 = now_ms();
        run_launch(&l);
        tl_context_synchronize(ctx);
        ms[pass] = now_ms() - t0;
        tl_kernel_destroy(l.k);
    }
    printf("compile %-20s %-60s cold %7.1f ms   warm (disk cache) %6.2f ms\n", file, opts, ms[0], ms[1]);
    printf("        stages of the cold one (ms): parse %.2f  sema %.2f  combine %.2f  layout %.2f  pipeline %.2f  "
           "smem %.2f  llvm-ir %.2f  "
           "llvm-opt %.1f  ptx-emit %.1f  link %.1f\n",
           (after.parse_seconds - before.parse_seconds) * 1e3, (after.sema_seconds - before.sema_seconds) * 1e3,
           (after.combine_seconds - before.combine_seconds) * 1e3, (after.layout_seconds - before.layout_seconds) * 1e3,
           (after.pipeline_seconds - before.pipeline_seconds) * 1e3, (after.smem_seconds - before.smem_seconds) * 1e3,
           (after.llvm_ir_seconds - before.llvm_ir_seconds) * 1e3,
           (after.llvm_opt_seconds - before.llvm_opt_seconds) * 1e3,
           (after.ptx_emit_seconds - before.ptx_emit_seconds) * 1e3, (after.link_seconds - before.link_seconds) * 1e3);
    if (csv)
        fprintf(csv, "compile,%s,%s,0,0,0,%.2f,%.3f,0\n", file, opts[0] == '-' ? "opts" : opts, ms[0], ms[1]);
    tl_buffer_destroy(b);
    unsetenv("TL_CACHE_DIR");
}

/* Triton's users launch the tutorial kernel without naming a config: the
 * first call compiles every config (in parallel) and times them; a second
 * process finds the choice and the cubins in the disk cache. */
static void bench_first_tuned_call(int n) {
    char dir[] = "/tmp/tl-bench-tune-XXXXXX";
    if (!mkdtemp(dir))
        return;
    setenv("TL_CACHE_DIR", dir, 1);
    TlBuffer *a = random_buffer(TL_F16, (size_t)n * n), *b = random_buffer(TL_F16, (size_t)n * n);
    TlBuffer *c = ex_buffer(ctx, TL_F16, (size_t)n * n, NULL);
    double ms[2];
    int chosen = -1, nconfigs = 0;
    for (int pass = 0; pass < 2; pass++) {
        TlKernel *k = ex_kernel(ctx, "matmul_tutorial.tl", "--kernel matmul_kernel -D ACTIVATION=None");
        TlArg args[12] = {tl_arg_buffer(a), tl_arg_buffer(b), tl_arg_buffer(c)};
        int v[] = {n, n, n, n, 1, n, 1, n, 1};
        for (int i = 0; i < 9; i++)
            args[3 + i] = tl_arg_i32(v[i]);
        double t0 = now_ms();
        TlStatus s = tl_launch_grid(k, "cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N)", args, 12);
        ms[pass] = now_ms() - t0;
        TlKernelConfig cfg;
        tl_kernel_config(k, &cfg);
        chosen = cfg.autotune_config, nconfigs = cfg.num_configs;
        if (s != TL_SUCCESS)
            printf("tuned launch failed: %s\n", tl_last_error(ctx));
        tl_kernel_destroy(k);
    }
    printf("autotune tutorial fp16 %d^3, %d configs: first call (compile all + tune) %.0f ms, chose config %d;"
           "   next process (disk cache) %.1f ms\n",
           n, nconfigs, ms[0], chosen, ms[1]);
    if (csv)
        fprintf(csv, "autotune,tutorial,fp16,%d,%d,%d,%.1f,%.2f,%d\n", n, n, n, ms[0], ms[1], chosen);
    tl_buffer_destroy(a), tl_buffer_destroy(b), tl_buffer_destroy(c);
    unsetenv("TL_CACHE_DIR");
}

/* Tutorials 09 and 08 (examples/tutorial_0[89]_*.tl), tuned at launch as
 * Triton's users run them: the chosen config is then reloaded on its own
 * (its grid known) and timed. desc: matmul_kernel_descriptor_persistent (B
 * stored as (N, K); cuBLAS is timed on the same shape, no error compared). */
static void bench_tutorial09(int desc, int n) {
    const char *kname = desc ? "matmul_kernel_descriptor_persistent" : "matmul_kernel_persistent";
    char opts[256];
    int sms = tl_context_num_sms(ctx);
    snprintf(opts, sizeof opts, "--kernel %s -D NUM_SMS=%d%s", kname, sms,
             desc ? " -D WARP_SPECIALIZE=0 -D FLATTEN=1" : "");
    TlBuffer *a = random_buffer(TL_F16, (size_t)n * n), *b = random_buffer(TL_F16, (size_t)n * n);
    TlBuffer *c = ex_buffer(ctx, TL_F16, (size_t)n * n, NULL), *cref = ex_buffer(ctx, TL_F16, (size_t)n * n, NULL);
    Launch l = {.k = ex_kernel(ctx, "tutorial_09_persistent_matmul.tl", with_extra(opts))};
    l.args[0] = tl_arg_buffer(a), l.args[1] = tl_arg_buffer(b), l.args[2] = tl_arg_buffer(c);
    int v[] = {n, n, n, n, 1, n, 1, n, 1};
    l.nargs = desc ? 6 : 12;
    for (int i = 0; i < l.nargs - 3; i++)
        l.args[3 + i] = tl_arg_i32(v[i]);
    const char *grid = "min(NUM_SMS, cdiv(M, BLOCK_SIZE_M) * cdiv(N, BLOCK_SIZE_N))";
    double t0 = now_ms();
    TlStatus s = tl_launch_grid(l.k, grid, l.args, l.nargs);
    double tune_ms = now_ms() - t0;
    TlKernelConfig cfg;
    tl_kernel_config(l.k, &cfg);
    tl_kernel_destroy(l.k);
    if (s != TL_SUCCESS) {
        printf("matmul %-14s fp16  %5d: does not run: %s\n", desc ? "t09-desc-pers" : "t09-persistent", n,
               tl_last_error(ctx));
        goto out;
    }
    snprintf(opts + strlen(opts), sizeof opts - strlen(opts), " --autotune-config %d", cfg.autotune_config);
    l.k = ex_kernel(ctx, "tutorial_09_persistent_matmul.tl", with_extra(opts));
    int64_t bm = 1, bn = 1;
    tl_kernel_constant_int(l.k, "BLOCK_SIZE_M", &bm), tl_kernel_constant_int(l.k, "BLOCK_SIZE_N", &bn);
    unsigned tiles = ex_cdiv((size_t)n, (size_t)bm) * ex_cdiv((size_t)n, (size_t)bn);
    l.grid[0] = tiles < (unsigned)sms ? tiles : (unsigned)sms, l.grid[1] = l.grid[2] = 1;
    double flops = 2.0 * n * n * n, ours = flops / time_ms(run_launch, &l, 2, 20) * 1e-9, theirs = 0, err = -1;
    if (cublas) {
        Gemm g = {n, n, n, CUDA_R_16F, CUBLAS_COMPUTE_32F, dptr(a), dptr(b), dptr(cref)};
        theirs = flops / time_ms(run_cublas, &g, 2, 20) * 1e-9;
        profile_one(run_cublas, &g);
        tl_context_synchronize(ctx);
        if (!desc)
            err = rel_error(c, cref, TL_F16, (size_t)n * n);
    }
    char errs[32] = "-"; /* not compared: B is (N, K) for the descriptor kernel */
    if (err >= 0)
        snprintf(errs, sizeof errs, "%.1e", err);
    printf("matmul %-14s fp16  %5d %5d %5d  tl %6.1f TFLOP/s (cfg %d)  cuBLAS %6.1f  ratio %5.2f  relerr %s  "
           "first-call (tune %d configs) %.0f ms\n",
           desc ? "t09-desc-pers" : "t09-persistent", n, n, n, ours, cfg.autotune_config, theirs,
           theirs > 0 ? ours / theirs : 0, errs, cfg.num_configs, tune_ms);
    if (csv)
        fprintf(csv, "matmul,%s,fp16,%d,%d,%d,%.2f,%.2f,%d\n", desc ? "t09-desc-pers" : "t09-persistent", n, n, n,
                ours, theirs, cfg.autotune_config);
    tl_kernel_destroy(l.k);
out:
    tl_buffer_destroy(a), tl_buffer_destroy(b), tl_buffer_destroy(c), tl_buffer_destroy(cref);
}

/* Tutorial 08's group (1024^3, 512^3, 256^3, 128^3, fp16) in one launch of
 * grouped_matmul_kernel, tuned; cuBLAS runs the four one after another. */
static void bench_grouped(void) {
    enum { G = 4 };
    static const int sz[G] = {1024, 512, 256, 128};
    int sms = tl_context_num_sms(ctx);
    TlBuffer *m[3 * G];
    int64_t addrs[3 * G];
    int32_t sizes[3 * G], lds[3 * G];
    double flops = 0;
    for (int g = 0; g < G; g++) {
        for (int i = 0; i < 3; i++) {
            m[3 * g + i] = random_buffer(TL_F16, (size_t)sz[g] * sz[g]);
            addrs[i * G + g] = (int64_t)tl_buffer_device_ptr(m[3 * g + i]);
            sizes[3 * g + i] = lds[3 * g + i] = sz[g];
        }
        flops += 2.0 * sz[g] * sz[g] * sz[g];
    }
    TlBuffer *bp[3], *bs = ex_buffer(ctx, TL_I32, 3 * G, sizes), *bl = ex_buffer(ctx, TL_I32, 3 * G, lds);
    for (int i = 0; i < 3; i++)
        bp[i] = ex_buffer(ctx, TL_I64, G, addrs + i * G);
    char opts[128];
    snprintf(opts, sizeof opts, "--kernel grouped_matmul_kernel -D NUM_SM=%d", sms);
    Launch l = {.k = ex_kernel(ctx, "tutorial_08_grouped_gemm.tl", with_extra(opts)), .grid = {(unsigned)sms, 1, 1},
                .args = {tl_arg_buffer(bp[0]), tl_arg_buffer(bp[1]), tl_arg_buffer(bp[2]), tl_arg_buffer(bs),
                         tl_arg_buffer(bl), tl_arg_i32(G)},
                .nargs = 6};
    if (tl_launch(l.k, l.grid, l.args, l.nargs) != TL_SUCCESS) {
        printf("grouped gemm: does not run: %s\n", tl_last_error(ctx));
    } else {
        double ours = flops / time_ms(run_launch, &l, 2, 20) * 1e-9, theirs = 0;
        if (cublas) {
            Gemm gs[G];
            for (int g = 0; g < G; g++)
                gs[g] = (Gemm){sz[g], sz[g], sz[g], CUDA_R_16F, CUBLAS_COMPUTE_32F, dptr(m[3 * g]), dptr(m[3 * g + 1]),
                               dptr(m[3 * g + 2])};
            double t = 0;
            for (int g = 0; g < G; g++)
                t += time_ms(run_cublas, &gs[g], 2, 20);
            theirs = flops / t * 1e-9;
        }
        TlKernelConfig cfg;
        tl_kernel_config(l.k, &cfg);
        printf("grouped gemm t08 fp16 1024..128^3 (4 problems)  tl %6.1f TFLOP/s (cfg %d)  cuBLAS one by one %6.1f  "
               "ratio %5.2f\n", ours, cfg.autotune_config, theirs, theirs > 0 ? ours / theirs : 0);
        if (csv)
            fprintf(csv, "grouped,t08,fp16,1024,1024,1024,%.2f,%.2f,%d\n", ours, theirs, cfg.autotune_config);
    }
    tl_kernel_destroy(l.k);
    for (int i = 0; i < 3 * G; i++)
        tl_buffer_destroy(m[i]);
    for (int i = 0; i < 3; i++)
        tl_buffer_destroy(bp[i]);
    tl_buffer_destroy(bs), tl_buffer_destroy(bl);
}

/* Tutorial 06's forward kernel at its benchmark's shape (batch 4, 32 heads,
 * fp16), tuned at launch with pointers (descriptors made in the kernel),
 * the chosen config then timed alone. No reference here: tutorials.c checks
 * the results. */
static void bench_attention(int n_ctx, int d, int causal, int ws) {
    enum { Z = 4, H = 32 };
    size_t n = (size_t)Z * H * n_ctx * d;
    TlBuffer *q = random_buffer(TL_F16, n), *k = random_buffer(TL_F16, n), *v = random_buffer(TL_F16, n);
    TlBuffer *o = ex_buffer(ctx, TL_F16, n, NULL), *m = ex_buffer(ctx, TL_F32, (size_t)Z * H * n_ctx, NULL);
    char opts[256];
    int len = snprintf(opts, sizeof opts, "--kernel _attn_fwd -D HEAD_DIM=%d -D FP8_OUTPUT=0 -D STAGE=%d "
                       "-D warp_specialize=%d -D IS_HOPPER=1", d, causal ? 3 : 1, ws);
    Launch l = {.k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", with_extra(opts)),
                .args = {tl_arg_f32(0.5f), tl_arg_buffer(m), tl_arg_i32(Z), tl_arg_i32(H), tl_arg_buffer(q),
                         tl_arg_buffer(k), tl_arg_buffer(v), tl_arg_buffer(o), tl_arg_i32(n_ctx)},
                .nargs = 9};
    TlStatus s = tl_launch_grid(l.k, "cdiv(N_CTX, BLOCK_M), Z * H", l.args, l.nargs);
    TlKernelConfig cfg;
    tl_kernel_config(l.k, &cfg);
    tl_kernel_destroy(l.k);
    if (s != TL_SUCCESS) {
        printf("attention fwd t06 N_CTX=%d D=%d%s: does not run: %s\n", n_ctx, d, causal ? " causal" : "",
               tl_last_error(ctx));
    } else {
        snprintf(opts + len, sizeof opts - (size_t)len, " --autotune-config %d", cfg.autotune_config);
        l.k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", with_extra(opts));
        int64_t bm = 128;
        tl_kernel_constant_int(l.k, "BLOCK_M", &bm);
        l.grid[0] = ex_cdiv((size_t)n_ctx, (size_t)bm), l.grid[1] = Z * H, l.grid[2] = 1;
        double flops = 4.0 * Z * H * (double)n_ctx * n_ctx * d * (causal ? 0.5 : 1);
        double ours = flops / time_ms(run_launch, &l, 2, 20) * 1e-9;
        profile_one(run_launch, &l);
        printf("attention fwd t06 fp16 Z=%d H=%d N_CTX=%5d D=%3d%s ws=%d  tl %6.1f TFLOP/s (cfg %d)\n", Z, H, n_ctx,
               d, causal ? " causal" : "       ", ws, ours, cfg.autotune_config);
        if (csv)
            fprintf(csv, "attention,t06%s%s,fp16,%d,%d,%d,%.2f,,%d\n", causal ? "-causal" : "", ws ? "-ws" : "", n_ctx,
                    n_ctx, d, ours, cfg.autotune_config);
        tl_kernel_destroy(l.k);
    }
    tl_buffer_destroy(q), tl_buffer_destroy(k), tl_buffer_destroy(v), tl_buffer_destroy(o), tl_buffer_destroy(m);
}

/* Launches one after another (tutorial 06's backward: preprocess, then the
 * dK / dV / dQ kernel). */
static void run_launches(void *p) {
    for (Launch *l = p; l->k; l++)
        run_launch(l);
}

/* Tutorial 06's backward pass as its host runs it (Delta from
 * _attn_bwd_preprocess, then _attn_bwd with BLOCK 32 / 128 / 128 / 32, 4
 * warps, 5 stages), after our forward kernel (config 26) gives O and M; the
 * two launches timed together. Timing only (K is not pre-scaled here as
 * the tutorial's host scales it; tutorials.c checks the values). FLOPs as
 * upstream's benchmark counts them: 2.5x the forward's (2 for the
 * backward, 0.5 for recomputing P). The kernels are fixed configs:
 * TL_BENCH_OPTS (an --autotune-config, say) is not applied to them. */
static void bench_attention_bwd(int n_ctx, int d, int causal) {
    enum { Z = 4, H = 32 };
    size_t n = (size_t)Z * H * n_ctx * d, rows = (size_t)Z * H * n_ctx;
    TlBuffer *q = random_buffer(TL_F16, n), *k = random_buffer(TL_F16, n), *v = random_buffer(TL_F16, n);
    TlBuffer *dout = random_buffer(TL_F16, n), *o = ex_buffer(ctx, TL_F16, n, NULL);
    TlBuffer *m = ex_buffer(ctx, TL_F32, rows, NULL), *delta = ex_buffer(ctx, TL_F32, rows, NULL);
    TlBuffer *dq = ex_buffer(ctx, TL_F16, n, NULL), *dk = ex_buffer(ctx, TL_F16, n, NULL);
    TlBuffer *dv = ex_buffer(ctx, TL_F16, n, NULL);
    char opts[256];
    snprintf(opts, sizeof opts, "--kernel _attn_fwd -D HEAD_DIM=%d -D FP8_OUTPUT=0 -D STAGE=%d -D warp_specialize=0 "
             "-D IS_HOPPER=1 --autotune-config 26", d, causal ? 3 : 1);
    Launch fwd = {.k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts),
                  .grid = {(unsigned)(n_ctx / 128), Z * H, 1},
                  .args = {tl_arg_f32(0.5f), tl_arg_buffer(m), tl_arg_i32(Z), tl_arg_i32(H), tl_arg_buffer(q),
                           tl_arg_buffer(k), tl_arg_buffer(v), tl_arg_buffer(o), tl_arg_i32(n_ctx)},
                  .nargs = 9};
    Launch bwd[3] = {
        {.k = NULL, .grid = {(unsigned)(n_ctx / 128), Z * H, 1},
         .args = {tl_arg_buffer(o), tl_arg_buffer(dout), tl_arg_buffer(delta), tl_arg_i32(Z), tl_arg_i32(H),
                  tl_arg_i32(n_ctx)},
         .nargs = 6},
        {.k = NULL, .grid = {(unsigned)(n_ctx / 128), 1, Z * H},
         .args = {tl_arg_buffer(q), tl_arg_buffer(k), tl_arg_buffer(v), tl_arg_f32(0.5f), tl_arg_buffer(dout),
                  tl_arg_buffer(dq), tl_arg_buffer(dk), tl_arg_buffer(dv), tl_arg_buffer(m), tl_arg_buffer(delta),
                  tl_arg_i32(H * n_ctx * d), tl_arg_i32(n_ctx * d), tl_arg_i32(d), tl_arg_i32(1), tl_arg_i32(H),
                  tl_arg_i32(n_ctx)},
         .nargs = 16},
        {0}};
    snprintf(opts, sizeof opts, "--kernel _attn_bwd_preprocess -D BLOCK_M=128 -D HEAD_DIM=%d", d);
    bwd[0].k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);
    snprintf(opts, sizeof opts, "--kernel _attn_bwd -D BLOCK_M1=32 -D BLOCK_N1=128 -D BLOCK_M2=128 -D BLOCK_N2=32 "
             "-D BLK_SLICE_FACTOR=2 -D HEAD_DIM=%d -D CAUSAL=%d --num-warps 4 --num-stages 5", d, causal);
    bwd[1].k = ex_kernel(ctx, "tutorial_06_fused_attention.tl", opts);
    TlStatus s = tl_launch(fwd.k, fwd.grid, fwd.args, fwd.nargs);
    for (int i = 0; i < 2 && s == TL_SUCCESS; i++)
        s = tl_launch(bwd[i].k, bwd[i].grid, bwd[i].args, bwd[i].nargs);
    if (s != TL_SUCCESS) {
        printf("attention bwd t06 N_CTX=%d D=%d%s: does not run: %s\n", n_ctx, d, causal ? " causal" : "",
               tl_last_error(ctx));
    } else {
        double flops = 2.5 * 4.0 * Z * H * (double)n_ctx * n_ctx * d * (causal ? 0.5 : 1);
        double ours = flops / time_ms(run_launches, bwd, 2, 20) * 1e-9;
        profile_one(run_launches, bwd);
        printf("attention bwd t06 fp16 Z=%d H=%d N_CTX=%5d D=%3d%s       tl %6.1f TFLOP/s\n", Z, H, n_ctx, d,
               causal ? " causal" : "       ", ours);
        if (csv)
            fprintf(csv, "attention,t06-bwd%s,fp16,%d,%d,%d,%.2f,,\n", causal ? "-causal" : "", n_ctx, n_ctx, d, ours);
    }
    tl_kernel_destroy(fwd.k), tl_kernel_destroy(bwd[0].k), tl_kernel_destroy(bwd[1].k);
    TlBuffer *bufs[] = {q, k, v, dout, o, m, delta, dq, dk, dv};
    for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
        tl_buffer_destroy(bufs[i]);
}

int main(int argc, char **argv) {
    int quick = argc > 1 && !strcmp(argv[1], "--quick");
    /* --matmul: only the tutorial kernel at 4096 and 8192, to compare compile
     * options side by side (TL_BENCH_OPTS=-O2 build/bin/tl-bench --matmul) */
    int matmul_only = argc > 1 && !strcmp(argv[1], "--matmul");
    /* --puzzle: only the fp32 IEEE puzzle kernel (FMA dot) at 1024, 4096,
     * 8192 and the seeds' odd shapes */
    int puzzle_only = argc > 1 && !strcmp(argv[1], "--puzzle");
    /* --persistent: tutorial 09's persistent kernels (pointers, in-kernel
     * descriptors) beside the tutorial kernel, fp16 at 4096 and 8192 */
    int persistent_only = argc > 1 && !strcmp(argv[1], "--persistent");
    if (tl_context_create(TL_DEVICE_CUDA, &ctx) != TL_SUCCESS) {
        printf("tl-bench: no GPU: %s\n", tl_last_error(NULL));
        return 1;
    }
    Buf err = {0};
    cu = cuda_open(&err);
    printf("tl-bench on %s\n", tl_context_device_name(ctx));
    cu->cuMemAlloc(&flush_buf, FLUSH_BYTES);
    open_cublas();

    if (matmul_only) {
        for (int d = 0; d < 2; d++)
            for (int n = 4096; n <= 8192; n *= 2) {
                bench_matmul(&tutorial, d ? TL_BF16 : TL_F16, n, n, n);
                bench_matmul(&tutorial03, d ? TL_BF16 : TL_F16, n, n, n);
                bench_matmul(&make_desc, d ? TL_BF16 : TL_F16, n, n, n);
            }
        tl_context_destroy(ctx);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--grey")) { /* wide-row tiles against the copy */
        bench_copy((size_t)1 << 28);
        static const int tiles[][2] = {{8, 512}, {16, 512}, {4, 1024}, {8, 1024}, {16, 1024}, {2, 2048}, {4, 2048}, {1, 4096}};
        for (size_t i = 0; i < sizeof tiles / sizeof tiles[0]; i++)
            for (int w = 4; w <= 8; w += 4)
                bench_grey_warps(4320, 7680, tiles[i][0], tiles[i][1], w);
        tl_context_destroy(ctx);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--tf32")) { /* the tutorial kernel on fp32 (tl.dot's tf32) */
        for (int n = 4096; n <= 8192; n *= 2)
            bench_matmul(&tutorial, TL_F32, n, n, n);
        tl_context_destroy(ctx);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--sm80")) { /* the mma.sync path (--arch sm_80) on its own */
        MatmulKernel sm80 = tutorial;
        sm80.name = "tutorial-sm80";
        sm80.opts = "--kernel matmul_kernel -D ACTIVATION=None --arch sm_80";
        bench_matmul(&sm80, TL_F16, 8192, 8192, 8192);
        tl_context_destroy(ctx);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--attention")) { /* tutorial 06's forward kernel alone */
        for (int causal = 0; causal < 2; causal++)
            for (int d = 64; d <= 128; d *= 2)
                for (int ws = 0; ws <= 1; ws++) /* Triton's benchmark: warp-specialised when not causal */
                    bench_attention(4096, d, causal, ws);
        for (int causal = 0; causal < 2; causal++)
            for (int d = 64; d <= 128; d *= 2)
                bench_attention_bwd(4096, d, causal);
        tl_context_destroy(ctx);
        return 0;
    }
    if (persistent_only) {
        for (int n = 4096; n <= 8192; n *= 2) {
            bench_matmul(&tutorial, TL_F16, n, n, n);
            bench_tutorial09(0, n);
            bench_tutorial09(1, n);
        }
        tl_context_destroy(ctx);
        return 0;
    }
    if (puzzle_only) {
        int ps[] = {1024, 4096, 8192};
        for (int i = 0; i < 3; i++)
            bench_matmul(&puzzle, TL_F32, ps[i], ps[i], ps[i]);
        bench_matmul(&puzzle, TL_F32, 37, 42, 73);
        bench_matmul(&puzzle, TL_F32, 128, 256, 64);
        tl_context_destroy(ctx);
        return 0;
    }
    if (getenv("TL_BENCH_CSV") && (csv = fopen(getenv("TL_BENCH_CSV"), "w")))
        fprintf(csv, "what,kernel,dtype,M,N,K,tl,reference,config\n");
    /* Every seed kernel family: cold (empty cache) and warm compile, with
     * the arguments its example passes (B = a buffer). */
    enum { B = -1 };
    static const struct { const char *file, *opts; TlDType dt; int args[13], nargs; } kernels[] = {
        {"copy.tl", "-D bs=1024", TL_F32, {B, B, 1000003}, 3},
        {"copy.tl", "-D bs=1024", TL_F32, {B, B, 1 << 20}, 3},
        {"grayscale.tl", "-D bs0=32 -D bs1=32", TL_U8, {B, B, 4320, 7680}, 4},
        {"swizzle.tl", "--kernel swizzle_k -D group_sz=3", TL_I32, {B, B}, 2},
        {"matmul_naive.tl", "--kernel naive_matmul_k -D bm=64 -D bn=64 -D bk=64", TL_F16, {B, B, B, 512, 512, 512, 512, 1, 512, 1, 512, 1}, 12},
        {"matmul_grouped.tl", "--kernel grouped_matmul_k -D bm=64 -D bn=64 -D bk=64 -D group_sz=8", TL_F16, {B, B, B, 512, 512, 512, 512, 1, 512, 1, 512, 1}, 12},
        {"matmul_autotuned.tl", "--kernel grouped_autotuned_matmul_k --autotune-config 2", TL_F16, {B, B, B, 512, 512, 512, 512, 1, 512, 1, 512, 1}, 12},
        {"matmul_tutorial.tl", "--kernel matmul_kernel -D ACTIVATION=leaky_relu --autotune-config 4", TL_F16, {B, B, B, 4096, 4096, 4096, 4096, 1, 4096, 1, 4096, 1}, 12},
        {"matmul_tutorial.tl", "--kernel matmul_kernel -D ACTIVATION=None --autotune-config 4", TL_F16, {B, B, B, 300, 200, 128, 128, 1, 200, 1, 200, 1}, 12},
        {"matmul_puzzle.tl", "--kernel matmul_kernel --autotune-config 2", TL_F32, {B, B, B, 37, 42, 73, 73, 1, 42, 1, 42, 1}, 12},
        {"matmul_puzzle.tl", "--kernel matmul_kernel_grouped --autotune-config 2", TL_F32, {B, B, B, 512, 512, 512, 512, 1, 512, 1, 512, 1}, 12},
        {"matmul_fwd.tl", "-D BLOCK_SIZE_X=128 -D BLOCK_SIZE_Y=128 -D BLOCK_SIZE_K=32 -D GROUP_SIZE_X=8 "
                          "-D \"ACTIVATION='relu'\"", TL_F16, {B, B, B, 256, 200, 200, 384}, 7},
    };
    for (size_t i = 0; i < sizeof kernels / sizeof kernels[0]; i++)
        bench_compile(kernels[i].file, kernels[i].opts, kernels[i].dt, kernels[i].args, kernels[i].nargs);
    bench_first_tuned_call(4096);
    bench_launch();
    bench_copy((size_t)1 << 28);
    bench_grey(4320, 7680, 32, 32);   /* the seed's tile, as anchor_bench.py's Triton kernel */
    bench_grey(4320, 7680, 8, 512);   /* a host that picks wide rows: 16-byte accesses */

    int sizes[] = {256, 512, 1024, 2048, 4096, 8192};
    int nsizes = quick ? 3 : 6;
    TlDType dts[] = {TL_F16, TL_BF16};
    for (int d = 0; d < 2; d++)
        for (int i = 0; i < nsizes; i++)
            bench_matmul(&tutorial, dts[d], sizes[i], sizes[i], sizes[i]);
    /* today's tutorial 03, and the same matmul through in-kernel descriptors */
    for (int d = 0; d < 2; d++)
        for (int i = nsizes - 2; i < nsizes; i++) {
            bench_matmul(&tutorial03, dts[d], sizes[i], sizes[i], sizes[i]);
            bench_matmul(&make_desc, dts[d], sizes[i], sizes[i], sizes[i]);
        }
    /* seed 000's fused leaky_relu against none, measured back to back */
    MatmulKernel tutorial_act = tutorial;
    tutorial_act.name = "tutorial+leaky";
    tutorial_act.opts = "--kernel matmul_kernel -D ACTIVATION=leaky_relu";
    for (int i = nsizes - 2; i < nsizes; i++) {
        double plain = bench_matmul(&tutorial, TL_F16, sizes[i], sizes[i], sizes[i]);
        double act = bench_matmul(&tutorial_act, TL_F16, sizes[i], sizes[i], sizes[i]);
        if (plain > 0 && act > 0) {
            printf("matmul fp16 %d activation cost: plain %.1f, +leaky_relu %.1f TFLOP/s: %+.1f%%\n", sizes[i],
                   plain, act, (plain / act - 1) * 100);
            if (csv)
                fprintf(csv, "activation-cost,tutorial,fp16,%d,%d,%d,%.2f,%.2f,\n", sizes[i], sizes[i], sizes[i],
                        act, plain);
        }
    }
    /* the mma.sync path on the same GPU (--arch sm_80: cp.async rings,
     * ldmatrix, mma.sync), beside the wgmma rows above */
    MatmulKernel tutorial_sm80 = tutorial;
    tutorial_sm80.name = "tutorial-sm80";
    tutorial_sm80.opts = "--kernel matmul_kernel -D ACTIVATION=None --arch sm_80";
    for (int d = 0; d < 2; d++)
        for (int i = nsizes - 2; i < nsizes; i++)
            bench_matmul(&tutorial_sm80, dts[d], sizes[i], sizes[i], sizes[i]);
    /* tutorial 09's persistent kernels beside the tutorial kernel, tutorial 08's group */
    for (int i = nsizes - 2; i < nsizes; i++) {
        bench_tutorial09(0, sizes[i]);
        bench_tutorial09(1, sizes[i]);
    }
    bench_grouped();
    /* warp_specialize off and on, causal too: upstream's benchmark tries on
     * for the non-causal shapes only, since Triton 3.6 cannot compile the
     * causal kernel's two loops with it (tools/attn_anchor.py says so) */
    for (int causal = 0; causal < 2; causal++)
        for (int d = 64; d <= 128; d *= 2)
            for (int ws = 0; ws <= 1; ws++)
                bench_attention(quick ? 1024 : 4096, d, causal, ws);
    for (int causal = 0; causal < 2; causal++)
        for (int d = 64; d <= 128; d *= 2)
            bench_attention_bwd(quick ? 1024 : 4096, d, causal);
    /* tf32: the tutorial kernel on fp32 inputs (tl.dot's default precision) against cuBLAS's TF32 */
    for (int i = nsizes - 2; i < nsizes; i++)
        bench_matmul(&tutorial, TL_F32, sizes[i], sizes[i], sizes[i]);
    for (int i = 0; i < (quick ? 2 : 5); i++)
        bench_matmul(&puzzle, TL_F32, sizes[i], sizes[i], sizes[i]);
    /* The seeds' odd shapes (puzzle checks) through the masked kernel. */
    bench_matmul(&puzzle, TL_F32, 37, 42, 73);
    bench_matmul(&puzzle, TL_F32, 128, 256, 64);
    bench_matmul(&puzzle, TL_F32, 8192, 8192, 8192);
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++)
        bench_matmul(&others[i], strstr(others[i].name, "puzzle") ? TL_F32 : TL_F16, 8192, 8192, 8192);
    buf_free(&err);
    tl_context_destroy(ctx);
    if (csv)
        fclose(csv);
    return 0;
}
