/* tma_test.c (make gpu-test): TMA on the GPU. A matmul whose A and B are
 * host tensor descriptors (tests/kernels/tma_matmul.tl, mm_desc) against a C
 * reference in double precision, fp16 and bf16, at ragged sizes (primes, K
 * no multiple of the block, fewer iterations than stages, 1x1x1), with 2 to
 * 4 stages, 4 and 8 warps and the 64- and 128-byte swizzles; on sm_90a the
 * PTX of every variant (dumped through TL_DUMP_DIR into a fresh directory)
 * must hold cp.async.bulk.tensor, elsewhere not; mm_desc_store also writes
 * C through a descriptor (C's row padding must stay untouched; its
 * accumulator staged by stmatrix on Hopper, from wgmma's and mma.sync's
 * fragments: 64x64 blocks at 4 and 8 warps, 128x128, 128x256); mm_desc_kt
 * reads B^T (N x K) and multiplies by its .T: on sm_90a its PTX must hold
 * wgmma with a K-major B (no transpose bit). fp8 (e4m3, e5m2): mm_desc_kt
 * and mm_ptr_kt (B^T through pointers) at ragged sizes, values exact in
 * both formats; on sm_90a some variant of each must be a wgmma k32 of the
 * type (8-bit operands from the rings, both K-major).
 * Then, unless TL_TMA_TIMING=0, the median time of both and of the same
 * matmul through pointer loads (mm_ptr, cp.async) at 4096^3 and 8192^3 fp16,
 * each result spot-checked. Prints "name ... OK|FAIL" lines and a table;
 * exits 1 when a check fails, 3 without a GPU. */
#include <time.h>

#include "common.h"
#include "cuda.h"

static const CudaApi *cu;
static TlContext *ctx;

static float bf16_round(float f) { /* to nearest even, as the device stores it */
    uint32_t x;
    memcpy(&x, &f, 4);
    x = (x + 0x7fff + ((x >> 16) & 1)) & 0xffff0000u;
    memcpy(&f, &x, 4);
    return f;
}

static double stored(TlDType dt, float v) { return dt == TL_F16 ? ex_h2f(ex_f2h(v)) : bf16_round(v); }

static uint16_t bits(TlDType dt, float v) {
    if (dt == TL_F16)
        return ex_f2h(v);
    float r = bf16_round(v);
    uint32_t x;
    memcpy(&x, &r, 4);
    return (uint16_t)(x >> 16);
}

static double value(TlDType dt, uint16_t h) {
    if (dt == TL_F16)
        return ex_h2f(h);
    uint32_t x = (uint32_t)h << 16;
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* rows x cols of random values in a buffer of rows x ld (ld >= cols). The
 * padding holds 3.0: a copy that read past a row's end (TMA reads out of the
 * tensor must give zeros) would show in C. */
static TlBuffer *matrix(TlDType dt, int rows, int cols, int ld, float **vals) {
    float *m = malloc(sizeof *m * (size_t)rows * (size_t)cols);
    size_t n = (size_t)(rows ? rows : 1) * (size_t)(ld ? ld : 16); /* K = 0: a row of padding */
    uint16_t *h = calloc(n, 2);
    for (size_t i = 0; i < n; i++)
        h[i] = bits(dt, 3.0f);
    for (size_t r = 0; r < (size_t)rows; r++)
        for (size_t c = 0; c < (size_t)ld; c++) {
            float v = c < (size_t)cols ? (float)ex_uniform() : 3.0f;
            if (c < (size_t)cols)
                m[r * (size_t)cols + c] = v;
            h[r * (size_t)ld + c] = bits(dt, v);
        }
    TlBuffer *b = ex_buffer(ctx, dt, n, h);
    free(h);
    *vals = m;
    return b;
}

static int round_up(int v, int m) { return (v + m - 1) / m * m; }

/* Rows of A and B padded to a multiple of this many elements (8: 16 bytes,
 * what a descriptor needs; 16: what the tma pass needs to know, ":16") */
static int ld_align = 8;

typedef struct Mm {
    TlDType dt;
    int M, N, K, lda, ldb, ldc;
    float *a, *b;
    TlBuffer *ba, *bb, *bc;
    TlTensorDesc da, db, dc;
    TlKernel *k;
    TlArg args[13];
    int nargs;
    unsigned grid[3];
} Mm;

/* pad_c: C's rows get 8 more elements, which no write may touch; bt: B is
 * stored transposed (N x K, ldb >= K), m->b still holds B (K x N) */
static void mm_setup(Mm *m, TlDType dt, int M, int N, int K, bool pad_c, bool bt) {
    *m = (Mm){.dt = dt, .M = M, .N = N, .K = K, .lda = round_up(K ? K : 1, ld_align), .ldb = round_up(bt ? K : N, ld_align),
              .ldc = round_up(N, 8) + (pad_c ? 8 : 0)};
    m->ba = matrix(dt, M, K, m->lda, &m->a);
    if (bt) {
        float *t;
        m->bb = matrix(dt, N, K, m->ldb, &t);
        m->b = malloc(sizeof *m->b * (size_t)K * (size_t)N);
        for (size_t k = 0; k < (size_t)K; k++)
            for (size_t n = 0; n < (size_t)N; n++)
                m->b[k * (size_t)N + n] = t[n * (size_t)K + k];
        free(t);
    } else {
        m->bb = matrix(dt, K, N, m->ldb, &m->b);
    }
    /* C starts poisoned: every element must be written */
    size_t nc = (size_t)M * (size_t)m->ldc;
    uint16_t *p = malloc(nc * 2);
    for (size_t i = 0; i < nc; i++)
        p[i] = 0x7e00; /* NaN in fp16; a large number in bf16 (its bits read as 8.4e37) */
    m->bc = ex_buffer(ctx, dt, nc, p);
    free(p);
}

static void mm_free(Mm *m) {
    tl_buffer_destroy(m->ba), tl_buffer_destroy(m->bb), tl_buffer_destroy(m->bc);
    free(m->a), free(m->b);
}

/* mm_ptr, mm_desc, mm_desc_store, mm_desc_kt, mm_auto, mm_auto_le, mm_ptr given TMA (its wrapped tiles) */
enum { PTR, DESC, DESC_STORE, DESC_KT, AUTO, AUTO_LE, WRAPPED, WHERE };

/* The launch of mm_desc / mm_desc_store (BM x BK, BK x BN, BM x BN blocks) or mm_ptr on m. */
static void mm_args(Mm *m, TlKernel *k, int kind, int BM, int BN, int BK) {
    m->k = k;
    int n = 0;
    if (kind == DESC_STORE) {
        m->args[n++] = tl_arg_tensordesc(&m->da, m->ba, 2, (int64_t[]){m->M, m->K}, (int64_t[]){m->lda, 1},
                                         (int32_t[]){BM, BK});
        m->args[n++] = tl_arg_tensordesc(&m->db, m->bb, 2, (int64_t[]){m->K, m->N}, (int64_t[]){m->ldb, 1},
                                         (int32_t[]){BK, BN});
        m->args[n++] = tl_arg_tensordesc(&m->dc, m->bc, 2, (int64_t[]){m->M, m->N}, (int64_t[]){m->ldc, 1},
                                         (int32_t[]){BM, BN});
        m->args[n++] = tl_arg_i32(m->K);
    } else if (kind == DESC || kind == DESC_KT) {
        m->args[n++] = tl_arg_tensordesc(&m->da, m->ba, 2, (int64_t[]){m->M, m->K}, (int64_t[]){m->lda, 1},
                                         (int32_t[]){BM, BK});
        if (kind == DESC_KT)
            m->args[n++] = tl_arg_tensordesc(&m->db, m->bb, 2, (int64_t[]){m->N, m->K}, (int64_t[]){m->ldb, 1},
                                             (int32_t[]){BN, BK});
        else
            m->args[n++] = tl_arg_tensordesc(&m->db, m->bb, 2, (int64_t[]){m->K, m->N}, (int64_t[]){m->ldb, 1},
                                             (int32_t[]){BK, BN});
        m->args[n++] = tl_arg_buffer(m->bc);
        m->args[n++] = tl_arg_i32(m->M), m->args[n++] = tl_arg_i32(m->N), m->args[n++] = tl_arg_i32(m->K);
        m->args[n++] = tl_arg_i32(m->ldc);
    } else { /* mm_ptr, mm_auto */
        m->args[n++] = tl_arg_buffer(m->ba), m->args[n++] = tl_arg_buffer(m->bb), m->args[n++] = tl_arg_buffer(m->bc);
        m->args[n++] = tl_arg_i32(m->M), m->args[n++] = tl_arg_i32(m->N), m->args[n++] = tl_arg_i32(m->K);
        m->args[n++] = tl_arg_i32(m->lda), m->args[n++] = tl_arg_i32(m->ldb), m->args[n++] = tl_arg_i32(m->ldc);
    }
    m->nargs = n;
    m->grid[0] = ex_cdiv((size_t)m->M, (size_t)BM) * ex_cdiv((size_t)m->N, (size_t)BN);
    m->grid[1] = m->grid[2] = 1;
}

/* Compare C with the reference at every element (all) or at 256 spread ones;
 * returns the worst error over the tolerance (<= 1 passes). */
static double mm_check(Mm *m, bool all, char *why, size_t len) {
    size_t nc = (size_t)m->M * (size_t)m->ldc;
    uint16_t *raw = malloc(nc * 2);
    tl_buffer_read(m->bc, 0, raw, nc * 2);
    size_t npts = all ? (size_t)m->M * (size_t)m->N : 256;
    double *got = malloc(npts * sizeof *got), *want = malloc(npts * sizeof *want);
    size_t *at = malloc(npts * sizeof *at);
    for (size_t p = 0; p < npts; p++) {
        size_t i = all ? p / (size_t)m->N : (size_t)(p * 7919u) % (size_t)m->M;
        size_t j = all ? p % (size_t)m->N : (size_t)(p * 104729u) % (size_t)m->N;
        double acc = 0;
        for (size_t kk = 0; kk < (size_t)m->K; kk++)
            acc += stored(m->dt, m->a[i * (size_t)m->K + kk]) * stored(m->dt, m->b[kk * (size_t)m->N + j]);
        want[p] = stored(m->dt, (float)acc);
        got[p] = value(m->dt, raw[i * (size_t)m->ldc + j]);
        at[p] = i * (size_t)m->N + j;
    }
    size_t w, bad = nc;
    for (size_t i = 0; all && i < (size_t)m->M; i++) /* the row padding: never written */
        for (size_t j = (size_t)m->N; j < (size_t)m->ldc && bad == nc; j++)
            if (raw[i * (size_t)m->ldc + j] != 0x7e00)
                bad = i * (size_t)m->ldc + j;
    if (bad != nc) {
        snprintf(why, len, "C's row padding at [%zu][%zu] was written", bad / (size_t)m->ldc, bad % (size_t)m->ldc);
        free(raw), free(got), free(want), free(at);
        return INFINITY;
    }
    /* the output is rounded to 8 (bf16) or 11 (fp16) bits after a K-long sum */
    double rtol = m->dt == TL_F16 ? 4e-3 : 2e-2, atol = (m->dt == TL_F16 ? 2e-3 : 1e-2) * sqrt(m->K ? (double)m->K : 1.0);
    double worst = ex_compare(got, want, npts, atol, rtol, &w);
    snprintf(why, len, "C[%zu][%zu] = %.6g, want %.6g (%.2fx the tolerance)", at[w] / (size_t)m->N,
             at[w] % (size_t)m->N, got[w], want[w], worst);
    free(raw), free(got), free(want), free(at);
    return worst;
}

/* ---- which copies the compiled kernels use: their PTX, dumped by TL_DUMP_DIR ---- */

static char dump_dir[256];

static bool file_has(const char *path, const char *needle) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return false;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    size_t got = fread(text, 1, (size_t)n, f);
    text[got] = 0;
    fclose(f);
    bool has = strstr(text, needle) != NULL;
    free(text);
    return has;
}

/* How many PTX files dumped for kernel `name` (all its variants so far) hold
 * `needle`; *total: how many there are. */
static int ptx_count(const char *name, const char *needle, int *total) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls %s/%s-*.ptx 2>/dev/null", dump_dir, name);
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    char line[512];
    int n = 0, have = 0;
    while (fgets(line, sizeof line, p)) {
        line[strcspn(line, "\n")] = 0;
        n++;
        have += file_has(line, needle);
    }
    pclose(p);
    *total = n;
    return have;
}

/* Forgets the files dumped for kernel `name` so far, so that a later count
 * (auto_tma's mm_ptr) sees its own variants only. */
static void ptx_forget(const char *name) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -f %s/%s-*", dump_dir, name);
    if (dump_dir[0] && system(cmd) != 0)
        fprintf(stderr, "tma_test: %s failed\n", cmd);
}

/* Does every PTX dumped for `name` hold `needle`? -1: none dumped. */
static int all_ptx_have(const char *name, const char *needle) {
    int total, have = ptx_count(name, needle, &total);
    return total ? have == total : -1;
}

static TlKernel *kernel_in(const char *file, const char *opts) {
    TlKernel *k;
    char path[128];
    snprintf(path, sizeof path, "../tests/kernels/%s", file);
    TlStatus s = tl_kernel_from_file(ctx, ex_path(path), opts, &k);
    if (s != TL_SUCCESS) {
        printf("%s (%s) ... FAIL: %s\n%s\n", file, opts, tl_status_name(s), tl_last_error(ctx));
        exit(1);
    }
    return k;
}

static TlKernel *kernel(const char *opts) { return kernel_in("tma_matmul.tl", opts); }

typedef struct Cfg {
    int BM, BN, BK, warps, stages, kind;
    bool no_ws; /* --warp-specialize off: the rings filled by the consumers' own thread 0 */
} Cfg;

/* Do the PTX files dumped for `name` since *seen (files) all hold `needle`
 * (1), none (0), some (2)? -1: no new file. *seen: the count now. */
static int new_ptx_have(const char *name, const char *needle, int *seen_total, int *seen_have) {
    int total, have = ptx_count(name, needle, &total);
    int n = total - *seen_total, h = have - *seen_have;
    *seen_total = total, *seen_have = have;
    return n <= 0 ? -1 : h == n ? 1 : h == 0 ? 0 : 2;
}

static void correctness(bool hopper) {
    static const Cfg cfgs[] = {
        {128, 128, 64, 4, 2, DESC, false}, /* 128-byte swizzle, one box per row of A and two of B */
        {128, 256, 64, 8, 3, DESC, false}, /* four boxes of B */
        {64, 64, 32, 4, 4, DESC, false},   /* A's 32 columns: the 64-byte swizzle */
        {128, 64, 64, 8, 4, DESC, false},
        {128, 128, 64, 4, 3, DESC_STORE, false}, /* C through its descriptor too (a pointer store) */
        {128, 256, 64, 8, 3, DESC_STORE, false},
        {64, 32, 32, 4, 2, DESC_STORE, false},   /* C's 32 columns: the 64-byte swizzle */
        {64, 64, 32, 4, 4, DESC_STORE, false},   /* wgmma m64n64: stmatrix of v3 fragments */
        {64, 64, 32, 8, 3, DESC_STORE, false},   /* mma.sync, warps along N too: v2 fragments; cp.async
                                                  * rings (TMA's swizzle is read by wgmma alone) */
        {128, 128, 64, 8, 3, DESC_STORE, false},
        {128, 128, 64, 4, 3, DESC_KT, false},    /* B^T's rows of 64 fp16: one 128-byte box each */
        {128, 256, 64, 8, 3, DESC_KT, false},
        {64, 64, 32, 4, 4, DESC_KT, false},      /* 32 columns of K: the 64-byte swizzle */
        {128, 64, 128, 8, 2, DESC_KT, false},    /* two atom columns along K */
        {128, 256, 64, 8, 3, DESC, true}, /* the loop filling its own rings (the rest: a producer warpgroup) */
        {128, 128, 64, 4, 2, DESC, true},
        {128, 64, 128, 8, 2, DESC_KT, true}, /* two copies an operand, from warps 0-1 and 2-3 (tutorial 09's) */
    };
    /* the last two are multiples of 16 (the launch specialises :16: a TMA
     * store); 144 ends inside a 64-column box */
    static const int sizes[][3] = {{257, 131, 67}, {1, 1, 1}, {97, 389, 1031}, {192, 128, 96}, {64, 144, 32}};
    static const TlDType dts[] = {TL_F16, TL_BF16};
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const Cfg *g = &cfgs[c];
        char opts[128];
        const char *kname = g->kind == DESC_STORE ? "mm_desc_store" : g->kind == DESC_KT ? "mm_desc_kt" : "mm_desc";
        snprintf(opts, sizeof opts, "--kernel %s -D GROUP_M=4 --num-warps %d --num-stages %d%s", kname, g->warps,
                 g->stages, g->no_ws ? " --warp-specialize off" : "");
        TlKernel *k = kernel(opts);
        /* wgmma (4 warps a warpgroup along M) takes its operands from TMA's rings on Hopper */
        bool want_tma = hopper && g->BM >= 64 * (g->warps / 4);
        int seen_t = 0, seen_h = ptx_count(kname, "cp.async.bulk.tensor.2d.shared::cluster.global", &seen_t);
        for (size_t d = 0; d < 2; d++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                Mm m;
                mm_setup(&m, dts[d], sizes[s][0], sizes[s][1], sizes[s][2], true, g->kind == DESC_KT);
                mm_args(&m, k, g->kind, g->BM, g->BN, g->BK);
                char name[160], why[256] = "";
                snprintf(name, sizeof name, "tma %s %dx%dx%d blocks %dx%dx%d w%d s%d%s%s", dts[d] == TL_F16 ? "fp16" : "bf16",
                         m.M, m.N, m.K, g->BM, g->BN, g->BK, g->warps, g->stages,
                         g->kind == DESC_STORE ? " store" : g->kind == DESC_KT ? " B^T" : "", g->no_ws ? " no-ws" : "");
                TlStatus st = tl_launch(k, m.grid, m.args, m.nargs);
                if (st != TL_SUCCESS) {
                    ex_result(name, 0, "%s\n%s", tl_status_name(st), tl_last_error(ctx));
                } else {
                    double worst = mm_check(&m, true, why, sizeof why);
                    /* the variants this launch compiled, if any (-1: none new) */
                    int tma = new_ptx_have(kname, "cp.async.bulk.tensor.2d.shared::cluster.global", &seen_t, &seen_h);
                    /* a K-major B: wgmma's last immediate, the transpose of B, is 0 */
                    int kmaj = g->kind == DESC_KT ? all_ptx_have(kname, "p, 1, 1, 0, 0;") : (int)hopper;
                    if (dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA && tma >= 0 && tma != (int)want_tma)
                        ex_result(name, 0, "the PTX %s cp.async.bulk.tensor on %s", tma == 1 ? "holds" : "lacks",
                                  tl_context_device_name(ctx));
                    else if (dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA && kmaj != (int)hopper)
                        ex_result(name, 0, "the PTX %s a wgmma with a K-major B on %s", kmaj > 0 ? "holds" : "lacks",
                                  tl_context_device_name(ctx));
                    else
                        ex_result(name, worst <= 1, "%s", why);
                }
                mm_free(&m);
            }
        tl_kernel_destroy(k);
    }
    /* descriptor stores stay pointer stores (pipeline.c: no TMA stores) */
    int total, have = ptx_count("mm_desc_store", "cp.async.bulk.tensor.2d.global.shared::cta", &total);
    if (dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA)
        ex_result("descriptor stores: no variant's PTX stores with bulk tensor copies", have == 0,
                  "%d of %d mm_desc_store variants do", have, total);
    /* the fp16 / bf16 accumulator goes to shared memory by stmatrix on
     * Hopper (the convert before the store), by st.shared elsewhere */
    have = ptx_count("mm_desc_store", "stmatrix.sync.aligned.m8n8.x4.shared.b16", &total);
    if (dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA)
        ex_result("descriptor stores: the epilogue's convert stores with stmatrix on sm_90 only",
                  have == (hopper ? total : 0), "%d of %d mm_desc_store variants do on %s", have, total,
                  tl_context_device_name(ctx));
}

/* ---- fp8 operands: wgmma k32 from rings, both K-major ---- */

/* e4m3 / e5m2 bits of v in {0, +-0.5, +-1, +-1.5, +-2}: exact in both */
static uint8_t fp8_bits(TlDType dt, double v) {
    static const double vals[] = {0.5, 1, 1.5, 2};
    static const uint8_t e4m3[] = {0x30, 0x38, 0x3c, 0x40}, e5m2[] = {0x38, 0x3c, 0x3e, 0x40};
    for (int i = 0; i < 4; i++)
        if (fabs(v) == vals[i])
            return (uint8_t)((v < 0 ? 0x80 : 0) | (dt == TL_F8E4M3 ? e4m3[i] : e5m2[i]));
    return 0;
}

/* rows x cols of such values (vals[r * cols + c]) in a buffer of rows x ld bytes */
static TlBuffer *fp8_matrix(TlDType dt, int rows, int cols, int ld, double **vals) {
    size_t n = (size_t)rows * (size_t)ld;
    uint8_t *h = calloc(n ? n : 1, 1);
    *vals = malloc(sizeof **vals * (size_t)rows * (size_t)cols + 1);
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            double v = floor(ex_uniform() * 4.5) / 2; /* -2.5 .. 2: -2.5 is rare, made -2 */
            v = v < -2 ? -2 : v;
            (*vals)[(size_t)r * (size_t)cols + (size_t)c] = v;
            h[(size_t)r * (size_t)ld + (size_t)c] = fp8_bits(dt, v);
        }
    TlBuffer *b = ex_buffer(ctx, dt, n ? n : 1, h);
    free(h);
    return b;
}

/* C (fp16, M x N) = A (M x K) @ B, B given as B^T (N x K), by mm_desc_kt
 * (TMA) or mm_ptr_kt (pointers), or as B (K x N, stored along N) by mm_ptr
 * (FP8_NMAJOR: restaged K-major for wgmma, pipeline.c); a K-long sum of
 * quarters, exact before C's rounding to fp16. */
enum { FP8_DESC, FP8_PTR, FP8_NMAJOR };
static void fp8_case(TlKernel *k, int kind, TlDType dt, int M, int N, int K, const int *g, const char *label) {
    bool desc = kind == FP8_DESC, nmaj = kind == FP8_NMAJOR;
    int ld = round_up(K ? K : 1, 16), ldb = nmaj ? round_up(N, 16) : ld, ldc = round_up(N, 8);
    double *a, *bt;
    TlBuffer *ba = fp8_matrix(dt, M, K, ld, &a),
             *bb = nmaj ? fp8_matrix(dt, K, N, ldb, &bt) : fp8_matrix(dt, N, K, ld, &bt);
    uint16_t *p = malloc((size_t)M * (size_t)ldc * 2);
    for (size_t i = 0; i < (size_t)M * (size_t)ldc; i++)
        p[i] = 0x7e00;
    TlBuffer *bc = ex_buffer(ctx, TL_F16, (size_t)M * (size_t)ldc, p);
    TlTensorDesc da, db;
    TlArg args[9];
    int n = 0;
    if (desc) {
        args[n++] = tl_arg_tensordesc(&da, ba, 2, (int64_t[]){M, K}, (int64_t[]){ld, 1}, (int32_t[]){g[0], g[2]});
        args[n++] = tl_arg_tensordesc(&db, bb, 2, (int64_t[]){N, K}, (int64_t[]){ld, 1}, (int32_t[]){g[1], g[2]});
        args[n++] = tl_arg_buffer(bc);
        args[n++] = tl_arg_i32(M), args[n++] = tl_arg_i32(N), args[n++] = tl_arg_i32(K), args[n++] = tl_arg_i32(ldc);
    } else {
        args[n++] = tl_arg_buffer(ba), args[n++] = tl_arg_buffer(bb), args[n++] = tl_arg_buffer(bc);
        args[n++] = tl_arg_i32(M), args[n++] = tl_arg_i32(N), args[n++] = tl_arg_i32(K);
        args[n++] = tl_arg_i32(ld), args[n++] = tl_arg_i32(ldb), args[n++] = tl_arg_i32(ldc);
    }
    unsigned grid[3] = {(unsigned)(ex_cdiv((size_t)M, (size_t)g[0]) * ex_cdiv((size_t)N, (size_t)g[1])), 1, 1};
    char name[160];
    snprintf(name, sizeof name, "fp8 %s %s %dx%dx%d blocks %dx%dx%d w%d s%d", label,
             desc ? "desc" : nmaj ? "ptr B along N" : "ptr", M, N, K, g[0], g[1], g[2], g[3], g[4]);
    TlStatus st = tl_launch(k, grid, args, n);
    if (st != TL_SUCCESS) {
        ex_result(name, 0, "%s\n%s", tl_status_name(st), tl_last_error(ctx));
    } else {
        tl_buffer_read(bc, 0, p, (size_t)M * (size_t)ldc * 2);
        size_t npts = (size_t)M * (size_t)N, w;
        double *got = malloc(sizeof *got * npts + 8), *want = malloc(sizeof *want * npts + 8);
        for (size_t i = 0; i < (size_t)M; i++)
            for (size_t j = 0; j < (size_t)N; j++) {
                double acc = 0;
                for (size_t kk = 0; kk < (size_t)K; kk++)
                    acc += a[i * (size_t)K + kk] * (nmaj ? bt[kk * (size_t)N + j] : bt[j * (size_t)K + kk]);
                want[i * (size_t)N + j] = ex_h2f(ex_f2h((float)acc));
                got[i * (size_t)N + j] = ex_h2f(p[i * (size_t)ldc + j]);
            }
        double worst = ex_compare(got, want, npts, 1e-3, 2e-3, &w);
        ex_result(name, worst <= 1, "C[%zu][%zu] = %.6g, want %.6g", w / (size_t)N, w % (size_t)N, got[w], want[w]);
        free(got), free(want);
    }
    tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc);
    free(a), free(bt), free(p);
}

/* Every config through TMA and through pointers, e4m3 and e5m2, at ragged
 * sizes; on Hopper some variant of each kernel must be a wgmma of the type */
static void fp8(bool hopper) {
    static const int cfgs[][5] = {{128, 128, 64, 4, 3}, {128, 256, 128, 8, 3}, {64, 64, 64, 4, 4}, {128, 64, 128, 8, 2}};
    static const int sizes[][3] = {{257, 131, 80}, {1, 1, 1}, {97, 389, 1031}, {192, 128, 96}};
    static const TlDType dts[] = {TL_F8E4M3, TL_F8E5M2};
    static const char *const knames[] = {"mm_desc_kt", "mm_ptr_kt", "mm_ptr"};
    for (int kind = FP8_DESC; kind <= FP8_NMAJOR; kind++)
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
            const int *g = cfgs[c];
            char opts[160];
            /* the descriptors carry mm_desc_kt's blocks; the pointer kernels take them as constants */
            if (kind == FP8_DESC)
                snprintf(opts, sizeof opts, "--kernel %s -D GROUP_M=4 --num-warps %d --num-stages %d", knames[kind],
                         g[3], g[4]);
            else
                snprintf(opts, sizeof opts, "--kernel %s -D GROUP_M=4 --num-warps %d --num-stages %d -D BM=%d -D BN=%d "
                         "-D BK=%d", knames[kind], g[3], g[4], g[0], g[1], g[2]);
            TlKernel *k = kernel(opts);
            for (size_t d = 0; d < 2; d++)
                for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
                    fp8_case(k, kind, dts[d], sizes[s][0], sizes[s][1], sizes[s][2], g, d ? "e5m2" : "e4m3");
            tl_kernel_destroy(k);
        }
    for (int kind = FP8_DESC; kind <= FP8_NMAJOR && dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA; kind++)
        for (size_t d = 0; d < 2; d++) {
            const char *kname = knames[kind];
            const char *want = d ? "k32.f32.e5m2.e5m2" : "k32.f32.e4m3.e4m3";
            int total, have = ptx_count(kname, want, &total);
            char name[128];
            snprintf(name, sizeof name, "fp8 %s: %s variants wgmma on sm_90 only", kname, d ? "e5m2" : "e4m3");
            ex_result(name, hopper ? have > 0 : have == 0, "%d of %d variants hold %s", have, total, want);
        }
    ptx_forget(knames[FP8_NMAJOR]); /* auto_tma counts mm_ptr's fp16 variants */
}

static double time_ms(Mm *m, int reps) {
    for (int i = 0; i < 3; i++)
        if (tl_launch_async(m->k, m->grid, m->args, m->nargs) != TL_SUCCESS)
            return -1;
    tl_context_synchronize(ctx);
    CUevent e0, e1;
    cu->cuEventCreate(&e0, CU_EVENT_DEFAULT);
    cu->cuEventCreate(&e1, CU_EVENT_DEFAULT);
    double t[64];
    for (int i = 0; i < reps && i < 64; i++) {
        cu->cuEventRecord(e0, NULL);
        tl_launch_async(m->k, m->grid, m->args, m->nargs);
        cu->cuEventRecord(e1, NULL);
        cu->cuEventSynchronize(e1);
        float ms = 0;
        cu->cuEventElapsedTime(&ms, e0, e1);
        t[i] = ms;
    }
    cu->cuEventDestroy(e0), cu->cuEventDestroy(e1);
    for (int i = 1; i < reps; i++) /* insertion sort: a handful */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1], t[j - 1] = x;
        }
    return t[reps / 2];
}

/* One launch of a pointer-tile kernel (mm_auto and its kin: maps from the
 * launch) at size mnk, every element of C checked (all) or 256 spread ones;
 * a persistent kernel's grid at most `programs` (0: a program a tile). */
static void auto_case(TlKernel *k, TlDType dt, const int *mnk, int BM, int BN, int BK, bool all, int programs,
                      const char *name) {
    Mm m;
    char why[256] = "";
    mm_setup(&m, dt, mnk[0], mnk[1], mnk[2], true, false);
    mm_args(&m, k, AUTO, BM, BN, BK);
    if (programs && m.grid[0] > (unsigned)programs)
        m.grid[0] = (unsigned)programs;
    TlStatus st = tl_launch(k, m.grid, m.args, m.nargs);
    if (st != TL_SUCCESS)
        ex_result(name, 0, "%s\n%s", tl_status_name(st), tl_last_error(ctx));
    else
        ex_result(name, mm_check(&m, all, why, sizeof why) <= 1, "%s", why);
    mm_free(&m);
}

/* mm_auto: plain pointer tiles, masked at the tensors' bounds, which the
 * tma pass proves to be TMA boxes: on sm_90a every variant's PTX must copy
 * them with cp.async.bulk.tensor (the launch encoding the maps), correct at
 * ragged sizes (and mm_ptr's wrapped, mm_where's clamped tiles likewise);
 * K = 0 (a bound below 1: no map) runs the variant without them, and a
 * kernel whose rows wrap (mm_ptr) keeps cp.async (timing()). */
static void auto_tma(bool hopper) {
    /* each kind's kernel and the suffix of its cases' names */
    static const char *const kname[] = {[AUTO] = "mm_auto", [AUTO_LE] = "mm_auto_le", [WRAPPED] = "mm_ptr",
                                        [WHERE] = "mm_where"};
    static const char *const suffix[] = {[AUTO] = "", [AUTO_LE] = " <=", [WRAPPED] = " wrapped", [WHERE] = " where"};
    static const Cfg cfgs[] = {
        {128, 128, 64, 4, 3, AUTO, false}, {128, 256, 64, 8, 3, AUTO, false}, {64, 64, 32, 4, 4, AUTO, false}, {128, 64, 64, 8, 2, AUTO, false},
        {128, 256, 64, 8, 3, AUTO, true},
        {128, 128, 64, 4, 3, AUTO_LE, false}, /* mm_auto_le: its masks with <= and >= */
        {128, 256, 64, 8, 3, WRAPPED, false}, /* mm_ptr: tutorial 03's wrapped rows, grouped order */
        {64, 64, 32, 4, 4, WRAPPED, false},
        {128, 128, 64, 4, 3, WRAPPED, true},
        {128, 256, 64, 8, 3, WHERE, false}, /* mm_where: tutorial 09's clamped rows, grouped order */
        {64, 64, 32, 4, 4, WHERE, false},
    };
    static const int sizes[][3] = {{257, 131, 67}, {1, 1, 1}, {97, 389, 1031}, {192, 128, 96}, {33, 17, 0}};
    static const TlDType dts[] = {TL_F16, TL_BF16};
    ld_align = 16;
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const Cfg *g = &cfgs[c];
        char opts[128];
        snprintf(opts, sizeof opts, "--kernel %s -D BM=%d -D BN=%d -D BK=%d --num-warps %d --num-stages %d%s%s",
                 kname[g->kind], g->BM, g->BN, g->BK, g->warps, g->stages, g->kind >= WRAPPED ? " -D GROUP_M=4" : "",
                 g->no_ws ? " --warp-specialize off" : "");
        TlKernel *k = kernel(opts);
        for (size_t d = 0; d < 2; d++)
            for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
                char name[160];
                snprintf(name, sizeof name, "auto tma %s %dx%dx%d blocks %dx%dx%d w%d s%d%s%s",
                         dts[d] == TL_F16 ? "fp16" : "bf16", sizes[s][0], sizes[s][1], sizes[s][2], g->BM, g->BN, g->BK,
                         g->warps, g->stages, g->no_ws ? " no-ws" : "", suffix[g->kind]);
                auto_case(k, dts[d], sizes[s], g->BM, g->BN, g->BK, true, 0, name);
            }
        tl_kernel_destroy(k);
    }
    ld_align = 8;
    /* every variant holds TMA loads but the K = 0 launches' fallbacks,
     * compiled without maps: one a dtype and config (TL_DUMP names a file set
     * by the kernel, its specialisation and its options) */
    /* mm_ptr's 1x1x1 variants (N specialised to 1) keep cp.async too: B's
     * wrapped columns need N >= 2 (tma.c, starts_at_zero), and a loop gets
     * TMA only where all its rings do */
    static const int counted[] = {AUTO, WRAPPED, WHERE};
    for (int i = 0; i < 3; i++) {
        int ncfg = 0;
        for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++)
            ncfg += cfgs[c].kind == counted[i];
        int total, have = ptx_count(kname[counted[i]], "cp.async.bulk.tensor.2d.shared::cluster.global", &total);
        int fallbacks = 2 * ncfg * (i ? 2 : 1);
        char what[96];
        snprintf(what, sizeof what, "auto tma: each %s variant with maps copies by TMA, each fallback not",
                 kname[counted[i]]);
        if (dump_dir[0] && tl_context_device(ctx) == TL_DEVICE_CUDA)
            ex_result(what, hopper ? total - have == fallbacks : have == 0, "%d of %d variants do (%d without TMA expected)",
                      have, total, fallbacks);
    }
}

/* fp16 launches of kernel `kname` (`extra`: more options) at each config
 * {BM, BN, BK, warps, stages} and each size, named "LABEL fp16 MxNxK blocks
 * ..."; all, programs: auto_case's. */
static void config_cases(const char *kname, const char *extra, const int (*cfgs)[5], size_t ncfg,
                         const int (*sizes)[3], size_t nsizes, const char *label, bool all, int programs) {
    ld_align = 16;
    for (size_t c = 0; c < ncfg; c++) {
        const int *g = cfgs[c];
        char opts[192];
        snprintf(opts, sizeof opts, "--kernel %s -D BM=%d -D BN=%d -D BK=%d --num-warps %d --num-stages %d%s", kname,
                 g[0], g[1], g[2], g[3], g[4], extra);
        TlKernel *k = kernel(opts);
        for (size_t s = 0; s < nsizes; s++) {
            char name[160];
            snprintf(name, sizeof name, "%s fp16 %dx%dx%d blocks %dx%dx%d w%d s%d", label, sizes[s][0], sizes[s][1],
                     sizes[s][2], g[0], g[1], g[2], g[3], g[4]);
            auto_case(k, TL_F16, sizes[s], g[0], g[1], g[2], all, programs, name);
        }
        tl_kernel_destroy(k);
    }
    ld_align = 8;
}

/* Long K loops of a producer warpgroup (GPU only: the interpreter has no
 * warps to race): 128x256x128 fp16 rings fit two slots only, so the
 * consumers release the slot the dot read right after it and the dot must
 * have waited for its wgmma group (tutorial 09's matmul at K = 8192 read
 * refilled slots: relative error 0.42 before); 128x256x64 gets three and
 * keeps a group in flight, releasing the slot before. Dozens of iterations,
 * so that a race shows; it spoilt a third of C, so 256 spread elements (a
 * K-long sum each on the host) find it. */
static void long_k(void) {
    static const int cfgs[][5] = {{128, 256, 128, 8, 3}, {128, 256, 64, 8, 3}};
    static const int sizes[][3] = {{384, 256, 8192}, {257, 389, 4100}};
    config_cases("mm_auto", "", cfgs, 2, sizes, 2, "long K", false, 0);
}

/* mm_persist_ws, tutorial 09's descriptor kernel with warp_specialize=True
 * on its tile loop (GPU only): the flat loop under the flattening's guard
 * gets a producer warpgroup that fills the rings ahead across tiles, so a
 * program's next tile reads slots its consumers released in the last one.
 * NUM_SMS = 5 programs of several tiles each, ragged M, N and K, 4 warps
 * (made 8 consumers) and 8, two to five slots; every element checked. Each
 * variant's PTX on sm_90a has the producer (setmaxnreg). 128x256 tiles are
 * not here: their rings and epilogue do not fit together, so the nest stays
 * (flatten.c), without a producer. */
static void persist_ws(bool hopper) {
    static const int cfgs[][5] = {{128, 128, 64, 4, 4}, {128, 128, 64, 8, 3}, {128, 64, 64, 4, 2}};
    static const int sizes[][3] = {{1000, 704, 304}, {257, 389, 1031}, {1, 1, 1}, {129, 17, 4100}};
    ptx_forget("mm_persist_ws");
    config_cases("mm_persist_ws", " -D NUM_SMS=5", cfgs, 3, sizes, 4, "persistent ws", true, 5);
    int total, have = ptx_count("mm_persist_ws", "setmaxnreg", &total);
    if (dump_dir[0])
        ex_result("persistent ws: each variant has a producer warpgroup on sm_90a",
                  hopper ? have == total && total : !have, "%d of %d variants", have, total);
}

/* mm_unmasked (seed 000's kernel: no load masks): TMA with unbounded
 * extents must read exactly the addresses the pointers form, past M rows,
 * N and K columns and a row's end included: A's and B's rows are shorter
 * than a K (N) block, so a tile's last columns are the next row's first
 * (lda = 80 < 128 columns read). Every element of both buffers is random,
 * the reference sums A[i * lda + k] * B[k * ldb + j] over the K blocks'
 * columns; on Hopper the launch must have encoded maps (not fallen back). */
static void unbounded(bool hopper) {
    static const int cases[][5] = {/* M, N, K, lda, ldb */
                                   {257, 131, 67, 80, 144}, {1, 1, 1, 16, 16}, {192, 128, 96, 96, 128}, {97, 389, 1031, 1040, 400}};
    static const int cfgs[][5] = {{128, 128, 64, 4, 3}, {128, 256, 64, 8, 3}, {64, 64, 32, 4, 4}};
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        const int *g = cfgs[c];
        char opts[128];
        snprintf(opts, sizeof opts, "--kernel mm_unmasked -D BM=%d -D BN=%d -D BK=%d --num-warps %d --num-stages %d",
                 g[0], g[1], g[2], g[3], g[4]);
        TlKernel *k = kernel_in("mm_auto_tma.tl", opts);
        for (size_t s = 0; s < sizeof cases / sizeof cases[0]; s++) {
            TlDType dt = s % 2 ? TL_BF16 : TL_F16;
            int M = cases[s][0], N = cases[s][1], K = cases[s][2], lda = cases[s][3], ldb = cases[s][4];
            int Mr = round_up(M, g[0]), Nr = round_up(N, g[1]), Kr = round_up(K, g[2]), ldc = round_up(N, 8) + 8;
            size_t na = (size_t)(Mr - 1) * (size_t)lda + (size_t)Kr, nb = (size_t)(Kr - 1) * (size_t)ldb + (size_t)Nr;
            uint16_t *ha = malloc(na * 2), *hb = malloc(nb * 2), *hc = malloc((size_t)M * (size_t)ldc * 2);
            double *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b);
            for (size_t i = 0; i < na; i++)
                ha[i] = bits(dt, (float)ex_uniform()), a[i] = value(dt, ha[i]);
            for (size_t i = 0; i < nb; i++)
                hb[i] = bits(dt, (float)ex_uniform()), b[i] = value(dt, hb[i]);
            for (size_t i = 0; i < (size_t)M * (size_t)ldc; i++)
                hc[i] = 0x7e00;
            TlBuffer *ba = ex_buffer(ctx, dt, na, ha), *bb = ex_buffer(ctx, dt, nb, hb),
                     *bc = ex_buffer(ctx, dt, (size_t)M * (size_t)ldc, hc);
            TlArg args[] = {tl_arg_buffer(ba), tl_arg_buffer(bb), tl_arg_buffer(bc), tl_arg_i32(M), tl_arg_i32(N),
                            tl_arg_i32(K), tl_arg_i32(lda), tl_arg_i32(ldb), tl_arg_i32(ldc)};
            unsigned grid[3] = {(unsigned)(Mr / g[0]), (unsigned)(Nr / g[1]), 1};
            TlStats s0, s1;
            tl_context_stats(ctx, &s0);
            TlStatus st = tl_launch(k, grid, args, 9);
            tl_context_stats(ctx, &s1);
            char name[160], why[256] = "";
            snprintf(name, sizeof name, "unbounded tma %s %dx%dx%d lda %d ldb %d blocks %dx%dx%d",
                     dt == TL_F16 ? "fp16" : "bf16", M, N, K, lda, ldb, g[0], g[1], g[2]);
            if (st != TL_SUCCESS) {
                ex_result(name, 0, "%s\n%s", tl_status_name(st), tl_last_error(ctx));
            } else {
                tl_buffer_read(bc, 0, hc, (size_t)M * (size_t)ldc * 2);
                double worst = 0, rtol = dt == TL_F16 ? 4e-3 : 2e-2, atol = (dt == TL_F16 ? 2e-3 : 1e-2) * sqrt(Kr);
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < ldc; j++) {
                        double acc = 0, got = value(dt, hc[(size_t)i * (size_t)ldc + (size_t)j]);
                        for (int kk = 0; kk < Kr && j < N; kk++)
                            acc += a[(size_t)i * (size_t)lda + (size_t)kk] * b[(size_t)kk * (size_t)ldb + (size_t)j];
                        double want = stored(dt, (float)acc), err = fabs(got - want) / (atol + rtol * fabs(want));
                        if (j >= N ? hc[(size_t)i * (size_t)ldc + (size_t)j] != 0x7e00 : !(err <= worst)) {
                            worst = j >= N ? INFINITY : err;
                            snprintf(why, sizeof why, "C[%d][%d] = %.6g, want %.6g%s", i, j, got, want,
                                     j >= N ? " (row padding written)" : "");
                        }
                    }
                bool maps = s1.tensor_maps > s0.tensor_maps;
                if (hopper && !maps)
                    ex_result(name, 0, "the launch encoded no tensor map (it ran the variant without TMA)");
                else
                    ex_result(name, worst <= 1, "%s", why);
            }
            tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc);
            free(ha), free(hb), free(hc), free(a), free(b);
        }
        tl_kernel_destroy(k);
    }
}

static void timing(void) {
    const int BM = 128, BN = 256, BK = 64;
    TlKernel *kd = kernel("--kernel mm_desc -D GROUP_M=8 --num-warps 8 --num-stages 3");
    TlKernel *kp = kernel("--kernel mm_ptr -D BM=128 -D BN=256 -D BK=64 -D GROUP_M=8 --num-warps 8 --num-stages 3 "
                          "--auto-tma off");
    TlKernel *ks = kernel("--kernel mm_desc_store -D GROUP_M=8 --num-warps 8 --num-stages 3");
    TlKernel *kt = kernel("--kernel mm_desc_kt -D GROUP_M=8 --num-warps 8 --num-stages 3");
    TlKernel *ka = kernel("--kernel mm_auto -D BM=128 -D BN=256 -D BK=64 --num-warps 8 --num-stages 3");
    TlKernel *kdn = kernel("--kernel mm_desc -D GROUP_M=8 --num-warps 8 --num-stages 3 --warp-specialize off");
    TlKernel *kan = kernel("--kernel mm_auto -D BM=128 -D BN=256 -D BK=64 --num-warps 8 --num-stages 3 "
                           "--warp-specialize off");
    TlKernel *kw = kernel("--kernel mm_ptr -D BM=128 -D BN=256 -D BK=64 -D GROUP_M=8 --num-warps 8 --num-stages 3");
    printf("\n%-6s %-30s %10s %10s\n", "size", "kernel", "ms", "TFLOP/s");
    static const int ns[] = {4096, 8192};
    for (size_t i = 0; i < 2; i++) {
        int n = ns[i];
        Mm m, mt;
        mm_setup(&m, TL_F16, n, n, n, false, false);
        mm_setup(&mt, TL_F16, n, n, n, false, true);
        static const int kinds[] = {DESC_STORE, DESC, PTR, DESC_KT, AUTO, WRAPPED, DESC, AUTO};
        static const char *const names[] = {"mm_ptr (cp.async)", "mm_desc (TMA)", "mm_desc_store (TMA loads)",
                                            "mm_desc_kt (TMA, B^T)", "mm_auto (pointers, TMA)", "", "mm_ptr (wrapped, TMA)"};
        for (int q = 0; q < 8; q++) {
            int kind = kinds[q];
            bool no_ws = q >= 6; /* the same kernels, not warp-specialised */
            Mm *mm = kind == DESC_KT ? &mt : &m;
            TlKernel *k = kind == PTR ? kp : kind == DESC ? (no_ws ? kdn : kd) : kind == DESC_KT ? kt
                          : kind == AUTO ? (no_ws ? kan : ka) : kind == WRAPPED ? kw : ks;
            mm_args(mm, k, kind, BM, BN, BK);
            double ms = time_ms(mm, n > 4096 ? 10 : 20);
            char name[96], why[256] = "";
            snprintf(name, sizeof name, "timing %s%s fp16 %d^3 (spot-checked)", names[kind], no_ws ? " no-ws" : "", n);
            ex_result(name, ms > 0 && mm_check(mm, false, why, sizeof why) <= 1, "%s", ms > 0 ? why : tl_last_error(ctx));
            printf("%-6d %-24s%-6s %10.3f %10.1f\n", n, names[kind], no_ws ? " no-ws" : "", ms,
                   2.0 * n * n * (double)n / (ms * 1e-3) / 1e12);
        }
        mm_free(&m), mm_free(&mt);
    }
    if (dump_dir[0]) {
        ex_result("timing kernels: mm_desc's PTX has them", all_ptx_have("mm_desc", "cp.async.bulk.tensor") == 1, NULL);
        int total, have = ptx_count("mm_desc_store", "cp.async.bulk.tensor.2d.global.shared::cta", &total);
        ex_result("timing kernels: mm_desc_store's PTX stores without them", have == 0, NULL);
    }
    tl_kernel_destroy(kd), tl_kernel_destroy(kp), tl_kernel_destroy(ks), tl_kernel_destroy(kt), tl_kernel_destroy(ka);
    tl_kernel_destroy(kdn), tl_kernel_destroy(kan), tl_kernel_destroy(kw);
}

static int finish(void) {
    printf("%s\n", ex_failures ? "tma_test: FAILED" : "tma_test: all passed");
    if (dump_dir[0] && strstr(dump_dir, "/tmp/tl_tma_test_") == dump_dir) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dump_dir);
        (void)!system(cmd);
    }
    return ex_failures ? 1 : 0;
}

int main(void) {
    /* compile every variant here and dump its PTX, to see which copies it uses */
    setenv("TL_ALWAYS_COMPILE", "1", 0);
    snprintf(dump_dir, sizeof dump_dir, "/tmp/tl_tma_test_XXXXXX");
    if (!mkdtemp(dump_dir))
        dump_dir[0] = 0;
    else
        setenv("TL_DUMP_DIR", dump_dir, 1);
    ctx = ex_context();
    if (tl_context_device(ctx) != TL_DEVICE_CUDA) {
        if (!getenv("TL_INTERPRET")) {
            printf("tma_test: no GPU\n");
            return 3;
        }
        correctness(false); /* TL_INTERPRET=1: the same checks on the interpreter (slow) */
        fp8(false);
        auto_tma(false);
        unbounded(false);
        return finish();
    }
    Buf err = {0};
    cu = cuda_open(&err);
    if (!cu) {
        printf("tma_test: %s\n", err.data ? err.data : "no CUDA driver");
        return 3;
    }
    /* the runtime compiles for sm_90a on compute capability 9.0 (runtime/gpu.c) */
    CUdevice dev = 0;
    int major = 0, minor = 0;
    tl_context_synchronize(ctx); /* makes its CUDA context current */
    cu->cuCtxGetDevice(&dev);
    cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    bool hopper = major == 9 && minor == 0;
    printf("compute capability %d.%d: %s\n", major, minor, hopper ? "TMA expected" : "no TMA expected");
    correctness(hopper);
    fp8(hopper);
    auto_tma(hopper);
    unbounded(hopper);
    long_k();
    persist_ws(hopper);
    const char *t = getenv("TL_TMA_TIMING");
    if (!t || strcmp(t, "0"))
        timing();
    return finish();
}
