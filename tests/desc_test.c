/* desc_test.c: block pointers and tensor descriptors, numerically, on
 * whatever device the context gets (tests/desc.sh runs it in the interpreter,
 * tests/gpu.sh on the GPU).
 *
 * Every case runs at ragged sizes (M and N prime or one, tiles hanging over
 * both edges, loads shifted before the first row and past the last) against
 * a C reference of what Triton's semantics say: a block pointer's checked
 * dims read the padding out of bounds, a descriptor reads zero (or NaN) there
 * and drops the writes. Outputs start at a sentinel and carry a guard zone
 * past their end, so a store that lands out of bounds shows. Then the launch
 * checks of descriptors from the host (TL_ARG_TENSORDESC), each refused with
 * its message, and what tl_kernel_param says of such a parameter.
 *
 * Prints "[PASS] desc/NAME" or "[FAIL] desc/NAME" per case; exits 0 only if
 * all pass. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tl.h"

#define SENT 7.0
#define GUARD 1024

static TlContext *ctx;
static int failures;

static void report(const char *name, int ok, const char *detail) {
    printf("[%s] desc/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
    fflush(stdout);
}

/* ---- host data ---- */

/* bf16: the top half of the fp32 bits, rounded to nearest even */
static uint16_t f2bf(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
static float bf2f(uint16_t h) {
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double stored(TlDType dt, double v) {
    switch (dt) {
    case TL_F16: return ex_h2f(ex_f2h((float)v));
    case TL_BF16: return bf2f(f2bf((float)v));
    case TL_F32: return (float)v;
    case TL_I32: return (double)(int32_t)v;
    default: return v;
    }
}

static void to_raw(TlDType dt, const double *v, size_t n, void *raw) {
    for (size_t i = 0; i < n; i++) {
        if (dt == TL_F16)
            ((uint16_t *)raw)[i] = ex_f2h((float)v[i]);
        else if (dt == TL_BF16)
            ((uint16_t *)raw)[i] = f2bf((float)v[i]);
        else if (dt == TL_F32)
            ((float *)raw)[i] = (float)v[i];
        else
            ((int32_t *)raw)[i] = (int32_t)v[i];
    }
}

static void from_raw(TlDType dt, const void *raw, size_t n, double *v) {
    for (size_t i = 0; i < n; i++)
        v[i] = dt == TL_F16    ? ex_h2f(((const uint16_t *)raw)[i])
               : dt == TL_BF16 ? bf2f(((const uint16_t *)raw)[i])
               : dt == TL_F32 ? ((const float *)raw)[i]
                              : ((const int32_t *)raw)[i];
}

/* n random values as dt stores them (integers in [-50, 50], never 0). */
static double *random_values(TlDType dt, size_t n) {
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++) {
        double u = ex_uniform();
        v[i] = dt == TL_I32 ? (double)((int)(u * 50) ? (int)(u * 50) : 1) : stored(dt, u * 4);
    }
    return v;
}

static TlBuffer *upload(TlDType dt, const double *v, size_t n) {
    void *raw = malloc(n * tl_dtype_size(dt));
    to_raw(dt, v, n, raw);
    TlBuffer *b;
    tl_buffer_create(ctx, dt, n, &b);
    tl_buffer_write(b, 0, raw, n * tl_dtype_size(dt));
    free(raw);
    return b;
}

static TlBuffer *sentinel_buffer(TlDType dt, size_t n) {
    double *v = malloc(n * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = SENT;
    TlBuffer *b = upload(dt, v, n);
    free(v);
    return b;
}

static double *download(TlBuffer *b) {
    size_t n = tl_buffer_count(b);
    TlDType dt = tl_buffer_dtype(b);
    void *raw = malloc(n * tl_dtype_size(dt));
    tl_buffer_read(b, 0, raw, n * tl_dtype_size(dt));
    double *v = malloc(n * sizeof *v);
    from_raw(dt, raw, n, v);
    free(raw);
    return v;
}

/* got against want over n elements: NaN matches NaN, integers exactly,
 * floats within tol (relative and absolute). */
static int same(const double *got, const double *want, size_t n, double tol, char *msg, size_t len) {
    for (size_t i = 0; i < n; i++) {
        bool ok = isnan(want[i]) ? isnan(got[i]) : fabs(got[i] - want[i]) <= tol * (1 + fabs(want[i]));
        if (!ok) {
            snprintf(msg, len, "element %zu is %.9g, want %.9g", i, got[i], want[i]);
            return 0;
        }
    }
    return 1;
}

static TlKernel *kernel(const char *src, const char *opts, char *msg, size_t len) {
    TlKernel *k = NULL;
    if (tl_kernel_from_string(ctx, src, opts, &k) != TL_SUCCESS)
        snprintf(msg, len, "compile (%s): %s", opts, tl_last_error(ctx));
    return k;
}

#define PRE "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"

typedef struct Size {
    int m, n;
} Size;
static const Size SIZES[] = {{37, 45}, {1, 1}, {16, 32}, {33, 17}, {200, 100}, {64, 96}};
enum { NSIZES = sizeof SIZES / sizeof SIZES[0] };
/* load shifts: none, before the first row / column, past the end */
static const int SHIFTS[][2] = {{0, 0}, {-3, -5}, {5, 2}};

static size_t ld_of(int n, TlDType dt) { /* a row stride 16-byte aligned, and wider than the row */
    size_t per = 16 / tl_dtype_size(dt);
    return ((size_t)n + 3 + per - 1) / per * per;
}

/* ---- block pointers: a shifted copy ----
 * y[i][j] = 2 * x[i + dm][j + dn] + 1 over M x N; x rows ld apart. Out of
 * bounds the padding (zero: 1 after the arithmetic; nan: NaN). CHECK
 * picks the checked dims: unchecked dims must be in bounds (the sizes make
 * them so). */
static const char k_bp_copy[] =
    PRE "def k(x_ptr, y_ptr, M, N, sxm, sym, dm, dn, BM: tl.constexpr, BN: tl.constexpr, PAD: tl.constexpr,\n"
        "      CHECK: tl.constexpr):\n"
        "    pm = tl.program_id(0) * BM\n"
        "    pn = tl.program_id(1) * BN\n"
        "    src = tl.make_block_ptr(x_ptr, (M, N), (sxm, 1), (pm + dm, pn + dn), (BM, BN), (1, 0))\n"
        "    x = tl.load(src, boundary_check=CHECK, padding_option=PAD)\n"
        "    dst = tl.make_block_ptr(base=y_ptr, shape=(M, N), strides=(sym, 1), offsets=(pm, pn),\n"
        "                            block_shape=(BM, BN), order=(1, 0))\n"
        "    tl.store(dst, x * 2 + 1, boundary_check=CHECK)\n";

static void bp_copy(const char *name, TlDType dt, const char *pad, const char *check, const Size *sizes, int nsizes,
                    int shifts) {
    char msg[512] = "", opts[256];
    snprintf(opts, sizeof opts, "-D BM=16 -D BN=32 -D \"PAD='%s'\" -D CHECK=%s", pad, check);
    TlKernel *k = kernel(k_bp_copy, opts, msg, sizeof msg);
    int ok = k != NULL;
    for (int si = 0; ok && si < nsizes; si++)
        for (int sh = 0; ok && sh < shifts; sh++) {
            int M = sizes[si].m, N = sizes[si].n, dm = SHIFTS[sh][0], dn = SHIFTS[sh][1];
            size_t ld = ld_of(N, dt);
            double *x = random_values(dt, (size_t)M * ld);
            TlBuffer *bx = upload(dt, x, (size_t)M * ld), *by = sentinel_buffer(dt, (size_t)M * N + GUARD);
            TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(M),  tl_arg_i32(N),
                            tl_arg_i32((int)ld), tl_arg_i32(N), tl_arg_i32(dm), tl_arg_i32(dn)};
            unsigned grid[3] = {ex_cdiv((size_t)M, 16), ex_cdiv((size_t)N, 32), 1};
            if (tl_launch(k, grid, args, 8) != TL_SUCCESS) {
                snprintf(msg, sizeof msg, "M=%d N=%d shift (%d, %d): %s", M, N, dm, dn, tl_last_error(ctx));
                ok = 0;
            } else {
                double *got = download(by), *want = malloc(((size_t)M * N + GUARD) * sizeof *want);
                for (size_t i = 0; i < (size_t)M * N + GUARD; i++)
                    want[i] = SENT;
                for (int i = 0; i < M; i++)
                    for (int j = 0; j < N; j++) {
                        int si2 = i + dm, sj = j + dn;
                        bool in = si2 >= 0 && si2 < M && sj >= 0 && sj < N;
                        double v = in ? x[(size_t)si2 * ld + sj] : !strcmp(pad, "nan") ? NAN : 0;
                        want[(size_t)i * N + j] = stored(dt, 2 * v + 1);
                    }
                ok = same(got, want, (size_t)M * N + GUARD, dt == TL_F16 ? 1e-3 : 1e-6, msg, sizeof msg);
                if (!ok) {
                    char m2[512];
                    snprintf(m2, sizeof m2, "M=%d N=%d shift (%d, %d): %s", M, N, dm, dn, msg);
                    strcpy(msg, m2);
                }
                free(got);
                free(want);
            }
            free(x);
            tl_buffer_destroy(bx);
            tl_buffer_destroy(by);
        }
    report(name, ok, msg);
    tl_kernel_destroy(k);
}

/* ---- block pointers: a matmul advancing along K ---- */
static const char k_bp_matmul[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn,\n"
        "      BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
        "    a_bp = tl.make_block_ptr(a_ptr, (M, K), (sam, sak), (tl.program_id(0) * BM, 0), (BM, BK), (1, 0))\n"
        "    b_bp = tl.make_block_ptr(b_ptr, (K, N), (sbk, sbn), (0, tl.program_id(1) * BN), (BK, BN), (1, 0))\n"
        "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
        "    for k in range(0, K, BK):\n"
        "        a = tl.load(a_bp, boundary_check=(0, 1), padding_option=\"zero\")\n"
        "        b = tl.load(b_bp, boundary_check=(0, 1), padding_option=\"zero\")\n"
        "        acc = tl.dot(a, b, acc)\n"
        "        a_bp = tl.advance(a_bp, (0, BK))\n"
        "        b_bp = tl.advance(b_bp, (BK, 0))\n"
        "    c_bp = tl.make_block_ptr(c_ptr, (M, N), (scm, scn), (tl.program_id(0) * BM, tl.program_id(1) * BN),\n"
        "                             (BM, BN), (1, 0))\n"
        "    tl.store(c_bp, acc, boundary_check=(0, 1))\n";

static void bp_matmul(void) {
    static const int sizes[][3] = {{37, 45, 50}, {16, 16, 16}, {64, 33, 20}, {1, 1, 1}};
    char msg[512] = "";
    TlKernel *k = kernel(k_bp_matmul, "-D BM=32 -D BN=32 -D BK=16", msg, sizeof msg);
    int ok = k != NULL;
    for (size_t si = 0; ok && si < sizeof sizes / sizeof sizes[0]; si++) {
        int M = sizes[si][0], N = sizes[si][1], K = sizes[si][2];
        double *a = random_values(TL_F16, (size_t)M * K), *b = random_values(TL_F16, (size_t)K * N);
        TlBuffer *ba = upload(TL_F16, a, (size_t)M * K), *bb = upload(TL_F16, b, (size_t)K * N);
        TlBuffer *bc = sentinel_buffer(TL_F32, (size_t)M * N + GUARD);
        TlArg args[] = {tl_arg_buffer(ba), tl_arg_buffer(bb), tl_arg_buffer(bc), tl_arg_i32(M), tl_arg_i32(N),
                        tl_arg_i32(K), tl_arg_i32(K), tl_arg_i32(1), tl_arg_i32(N), tl_arg_i32(1), tl_arg_i32(N),
                        tl_arg_i32(1)};
        unsigned grid[3] = {ex_cdiv((size_t)M, 32), ex_cdiv((size_t)N, 32), 1};
        if (tl_launch(k, grid, args, 12) != TL_SUCCESS) {
            snprintf(msg, sizeof msg, "%dx%dx%d: %s", M, N, K, tl_last_error(ctx));
            ok = 0;
        } else {
            double *got = download(bc), *want = malloc(((size_t)M * N + GUARD) * sizeof *want);
            for (size_t i = 0; i < (size_t)M * N + GUARD; i++)
                want[i] = SENT;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++) {
                    double s = 0;
                    for (int kk = 0; kk < K; kk++)
                        s += a[(size_t)i * K + kk] * b[(size_t)kk * N + j];
                    want[(size_t)i * N + j] = s;
                }
            ok = same(got, want, (size_t)M * N + GUARD, 1e-4, msg, sizeof msg);
            free(got);
            free(want);
        }
        free(a), free(b);
        tl_buffer_destroy(ba), tl_buffer_destroy(bb), tl_buffer_destroy(bc);
    }
    report("blockptr_matmul_advance", ok, msg);
    tl_kernel_destroy(k);
}

/* ---- block pointers carried by a while loop and merged by runtime ifs ----
 * Column sums of the BM-row tiles, even tiles added, odd ones subtracted
 * (p.advance, Triton's method form, on the odd ones). */
static const char k_bp_loops[] =
    PRE "def k(x_ptr, y_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
        "    p = tl.make_block_ptr(x_ptr, (M, N), (N, 1), (0, tl.program_id(0) * BN), (BM, BN), (1, 0))\n"
        "    acc = tl.zeros((BN,), dtype=tl.float32)\n"
        "    t = 0\n"
        "    while t * BM < M:\n"
        "        x = tl.load(p, boundary_check=(0, 1), padding_option=\"zero\")\n"
        "        if t % 2 == 0:\n"
        "            acc += tl.sum(x, axis=0)\n"
        "            p = tl.advance(p, (BM, 0))\n"
        "        else:\n"
        "            acc -= tl.sum(x, axis=0)\n"
        "            p = p.advance([BM // 2, 0])\n"
        "            p = p.advance(offsets=(BM // 2, 0))\n"
        "        t += 1\n"
        "    q = tl.make_block_ptr(y_ptr, (N,), (1,), (tl.program_id(0) * BN,), (BN,), (0,))\n"
        "    tl.store(q, acc, boundary_check=(0,))\n";

static void bp_loops(void) {
    char msg[512] = "";
    TlKernel *k = kernel(k_bp_loops, "-D BM=8 -D BN=16", msg, sizeof msg);
    int ok = k != NULL;
    for (int si = 0; ok && si < NSIZES; si++) {
        int M = SIZES[si].m, N = SIZES[si].n;
        double *x = random_values(TL_F32, (size_t)M * N);
        TlBuffer *bx = upload(TL_F32, x, (size_t)M * N), *by = sentinel_buffer(TL_F32, (size_t)N + GUARD);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(M), tl_arg_i32(N)};
        unsigned grid[3] = {ex_cdiv((size_t)N, 16), 1, 1};
        if (tl_launch(k, grid, args, 4) != TL_SUCCESS) {
            snprintf(msg, sizeof msg, "M=%d N=%d: %s", M, N, tl_last_error(ctx));
            ok = 0;
        } else {
            double *got = download(by), *want = malloc(((size_t)N + GUARD) * sizeof *want);
            for (size_t i = 0; i < (size_t)N + GUARD; i++)
                want[i] = i < (size_t)N ? 0 : SENT;
            for (int i = 0; i < M; i++)
                for (int j = 0; j < N; j++)
                    want[j] += (i / 8) % 2 ? -x[(size_t)i * N + j] : x[(size_t)i * N + j];
            ok = same(got, want, (size_t)N + GUARD, 1e-5, msg, sizeof msg);
            free(got), free(want);
        }
        free(x);
        tl_buffer_destroy(bx), tl_buffer_destroy(by);
    }
    report("blockptr_while_if_carried", ok, msg);
    tl_kernel_destroy(k);
}

/* ---- tensor descriptors: a shifted copy, reads and writes out of bounds ----
 * Program (a, b) reads the tile at (a*BM + dm, b*BN + dn) and writes 2x+1 at
 * (a*BM + em, b*BN + en): reads out of bounds give zero (or NaN), writes
 * there are dropped; elements no tile covers keep the sentinel. */
static void shift_ref(TlDType dt, const double *x, size_t ldx, int M, int N, const int *s, int gm, int gn, int nan,
                      double *want) {
    int dm = s[0], dn = s[1], em = s[2], en = s[3];
    for (size_t i = 0; i < (size_t)M * N + GUARD; i++)
        want[i] = SENT;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            int ti = i - em, tj = j - en; /* the position in the grid of tiles */
            if (ti < 0 || tj < 0 || ti >= gm * 16 || tj >= gn * 32)
                continue;
            int si = ti + dm, sj = tj + dn;
            bool in = si >= 0 && si < M && sj >= 0 && sj < N;
            double v = in ? x[(size_t)si * ldx + sj] : nan ? NAN : 0;
            want[(size_t)i * N + j] = stored(dt, 2 * v + 1);
        }
}
static const int DSHIFTS[][4] = {{0, 0, 0, 0}, {-3, -5, 0, 0}, {5, 2, -7, 3}, {0, 0, 4, -9}};
enum { NDSHIFTS = sizeof DSHIFTS / sizeof DSHIFTS[0] };

/* Device-made descriptors; FN=1 uses tl.load/store_tensor_descriptor. Their
 * row strides are multiples of 16 bytes, as Triton requires. */
static const char k_td_dev[] =
    PRE "def k(x_ptr, y_ptr, M, N, sx, sy, dm, dn, em, en, BM: tl.constexpr, BN: tl.constexpr, FN: tl.constexpr):\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, shape=[M, N], strides=[sx, 1], block_shape=[BM, BN])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [M, N], [sy, 1], [BM, BN])\n"
        "    pm = tl.program_id(0) * BM\n"
        "    pn = tl.program_id(1) * BN\n"
        "    if FN:\n"
        "        v = tl.load_tensor_descriptor(xd, [pm + dm, pn + dn])\n"
        "        tl.store_tensor_descriptor(yd, [pm + em, pn + en], v * 2 + 1)\n"
        "    else:\n"
        "        v = xd.load([pm + dm, pn + dn])\n"
        "        yd.store([pm + em, pn + en], v * 2 + 1)\n";

/* Host descriptors: the block shape comes with the descriptor. */
static const char k_td_host[] =
    PRE "def k(xd, yd, dm, dn, em, en):\n"
        "    BM: tl.constexpr = xd.block_shape[0]\n"
        "    BN: tl.constexpr = xd.block_shape[1]\n"
        "    pm = tl.program_id(0) * BM\n"
        "    pn = tl.program_id(1) * BN\n"
        "    v = xd.load([pm + dm, pn + dn])\n"
        "    yd.store([pm + em, pn + en], v * 2 + 1)\n";

/* host: 0 device-made, 1 host buffers, 2 host pointers (device or host memory) */
static void td_shift(const char *name, TlDType dt, int host, int fn, int nan, const char *opts) {
    char msg[512] = "", o[256];
    if (host)
        snprintf(o, sizeof o, "%s", opts);
    else
        snprintf(o, sizeof o, "-D BM=16 -D BN=32 -D FN=%d", fn);
    TlKernel *k = kernel(host ? k_td_host : k_td_dev, o, msg, sizeof msg);
    int ok = k != NULL;
    for (int si = 0; ok && si < NSIZES; si++)
        for (int sh = 0; ok && sh < NDSHIFTS; sh++) {
            int M = SIZES[si].m, N = SIZES[si].n;
            const int *s = DSHIFTS[sh];
            size_t ldx = ld_of(N, dt), ldy = ld_of(N, dt);
            size_t ny = (size_t)M * ldy + GUARD;
            double *x = random_values(dt, (size_t)M * ldx);
            TlBuffer *bx = upload(dt, x, (size_t)M * ldx), *by = sentinel_buffer(dt, ny);
            void *hx = NULL, *hy = NULL; /* host pointers on the CPU device */
            TlTensorDesc dx, dy;
            int64_t shape[2] = {M, N}, sx[2] = {(int64_t)ldx, 1}, sy[2] = {(int64_t)ldy, 1};
            int32_t block[2] = {16, 32};
            TlArg args[10];
            int nargs = 0;
            if (!host) {
                args[nargs++] = tl_arg_buffer(bx);
                args[nargs++] = tl_arg_buffer(by);
                args[nargs++] = tl_arg_i32(M);
                args[nargs++] = tl_arg_i32(N);
                args[nargs++] = tl_arg_i32((int)ldx);
                args[nargs++] = tl_arg_i32((int)ldy);
            } else if (host == 1) {
                args[nargs++] = tl_arg_tensordesc(&dx, bx, 2, shape, sx, block);
                args[nargs++] = tl_arg_tensordesc(&dy, by, 2, shape, sy, block);
            } else {
                uint64_t ax = tl_buffer_device_ptr(bx), ay = tl_buffer_device_ptr(by);
                if (tl_context_device(ctx) == TL_DEVICE_CPU) {
                    size_t es = tl_dtype_size(dt);
                    hx = aligned_alloc(64, ((size_t)M * ldx * es + 63) / 64 * 64);
                    hy = aligned_alloc(64, (ny * es + 63) / 64 * 64);
                    tl_buffer_read(bx, 0, hx, (size_t)M * ldx * es);
                    tl_buffer_read(by, 0, hy, ny * es);
                    ax = (uint64_t)(uintptr_t)hx, ay = (uint64_t)(uintptr_t)hy;
                }
                args[nargs++] = tl_arg_tensordesc_ptr(&dx, NULL, ax, dt, (size_t)M * ldx, 2, shape, sx, block);
                args[nargs++] = tl_arg_tensordesc_ptr(&dy, NULL, ay, dt, ny, 2, shape, NULL, block);
                dy.strides[0] = (int64_t)ldy; /* NULL strides gave N: the row stride is ldy */
            }
            dx.padding_nan = nan;
            for (int i = 0; i < 4; i++)
                args[nargs++] = tl_arg_i32(s[i]);
            unsigned gm = ex_cdiv((size_t)M, 16), gn = ex_cdiv((size_t)N, 32), grid[3] = {gm, gn, 1};
            if (tl_launch(k, grid, args, nargs) != TL_SUCCESS) {
                snprintf(msg, sizeof msg, "M=%d N=%d shifts (%d, %d, %d, %d): %s", M, N, s[0], s[1], s[2], s[3],
                         tl_last_error(ctx));
                ok = 0;
            } else {
                double *got = hy ? malloc(ny * sizeof *got) : download(by);
                if (hy)
                    from_raw(dt, hy, ny, got);
                double *want = malloc(((size_t)M * N + GUARD) * sizeof *want), *g = got;
                shift_ref(dt, x, ldx, M, N, s, (int)gm, (int)gn, nan, want);
                if (ldy != (size_t)N) { /* compare the M x N part, then the guard */
                    g = malloc(((size_t)M * N + GUARD) * sizeof *g);
                    for (int i = 0; i < M; i++)
                        memcpy(g + (size_t)i * N, got + (size_t)i * ldy, sizeof *g * (size_t)N);
                    memcpy(g + (size_t)M * N, got + (size_t)M * ldy, sizeof *g * GUARD);
                    for (int i = 0; i < M; i++) /* the row padding is never written */
                        for (size_t j = (size_t)N; j < ldy; j++)
                            if (got[(size_t)i * ldy + j] != SENT)
                                ok = 0;
                    if (!ok)
                        snprintf(msg, sizeof msg, "M=%d N=%d: a store landed in the row padding", M, N);
                }
                if (ok && !same(g, want, (size_t)M * N + GUARD, dt == TL_F16 ? 1e-3 : 1e-6, msg, sizeof msg)) {
                    char m2[512];
                    snprintf(m2, sizeof m2, "M=%d N=%d shifts (%d, %d, %d, %d): %s", M, N, s[0], s[1], s[2], s[3],
                             msg);
                    strcpy(msg, m2);
                    ok = 0;
                }
                if (g != got)
                    free(g);
                free(got), free(want);
            }
            free(x), free(hx), free(hy);
            tl_buffer_destroy(bx), tl_buffer_destroy(by);
        }
    report(name, ok, msg);
    tl_kernel_destroy(k);
}

/* ---- descriptors of rank 1 and 3 ---- */
static const char k_td_rank1[] =
    PRE "def k(x_ptr, y_ptr, n, d, B: tl.constexpr):\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, [n], [1], [B])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [n], [1], [B])\n"
        "    yd.store([tl.program_id(0) * B], xd.load([tl.program_id(0) * B + d]) - 1)\n";

static void td_rank1(void) {
    static const int ns[] = {1, 127, 129, 1000};
    char msg[512] = "";
    TlKernel *k = kernel(k_td_rank1, "-D B=128", msg, sizeof msg);
    int ok = k != NULL;
    for (size_t si = 0; ok && si < sizeof ns / sizeof ns[0]; si++)
        for (int d = -70; ok && d <= 70; d += 35) {
            int n = ns[si];
            double *x = random_values(TL_F32, (size_t)n);
            TlBuffer *bx = upload(TL_F32, x, (size_t)n), *by = sentinel_buffer(TL_F32, (size_t)n + GUARD);
            TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(n), tl_arg_i32(d)};
            unsigned grid[3] = {ex_cdiv((size_t)n, 128), 1, 1};
            if (tl_launch(k, grid, args, 4) != TL_SUCCESS) {
                snprintf(msg, sizeof msg, "n=%d: %s", n, tl_last_error(ctx));
                ok = 0;
                break;
            }
            double *got = download(by), *want = malloc(((size_t)n + GUARD) * sizeof *want);
            for (int i = 0; i < n + GUARD; i++)
                want[i] = i >= n ? SENT : i + d >= 0 && i + d < n ? stored(TL_F32, x[i + d] - 1) : -1;
            ok = same(got, want, (size_t)n + GUARD, 1e-6, msg, sizeof msg);
            free(got), free(want), free(x);
            tl_buffer_destroy(bx), tl_buffer_destroy(by);
        }
    report("descriptor_rank1", ok, msg);
    tl_kernel_destroy(k);
}

/* A x B x C, strides (B*L, L, 1) with L = C rounded up to 16 bytes' worth,
 * blocks (2, 4, 8) shifted by (0, -1, 3). */
static const char k_td_rank3[] =
    PRE "def k(x_ptr, y_ptr, A, B, C, L):\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, [A, B, C], [B * L, L, 1], [2, 4, 8])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [A, B, C], [B * L, L, 1], [2, 4, 8])\n"
        "    i = tl.program_id(0) * 2\n"
        "    j = tl.program_id(1) * 4\n"
        "    k = tl.program_id(2) * 8\n"
        "    yd.store([i, j, k], xd.load([i, j - 1, k + 3]))\n";

static void td_rank3(void) {
    static const int sizes[][3] = {{3, 5, 7}, {1, 1, 1}, {4, 9, 17}};
    char msg[512] = "";
    TlKernel *k = kernel(k_td_rank3, "", msg, sizeof msg);
    int ok = k != NULL;
    for (size_t si = 0; ok && si < sizeof sizes / sizeof sizes[0]; si++) {
        int A = sizes[si][0], B = sizes[si][1], C = sizes[si][2], L = (C + 3) / 4 * 4;
        size_t n = (size_t)A * B * L;
        double *x = random_values(TL_I32, n);
        TlBuffer *bx = upload(TL_I32, x, n), *by = sentinel_buffer(TL_I32, n + GUARD);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(A), tl_arg_i32(B), tl_arg_i32(C),
                        tl_arg_i32(L)};
        unsigned grid[3] = {ex_cdiv((size_t)A, 2), ex_cdiv((size_t)B, 4), ex_cdiv((size_t)C, 8)};
        if (tl_launch(k, grid, args, 6) != TL_SUCCESS) {
            snprintf(msg, sizeof msg, "%dx%dx%d: %s", A, B, C, tl_last_error(ctx));
            ok = 0;
            break;
        }
        double *got = download(by), *want = malloc((n + GUARD) * sizeof *want);
        for (size_t i = 0; i < n + GUARD; i++)
            want[i] = SENT;
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++)
                for (int c = 0; c < C; c++) {
                    int sb = b - 1, sc = c + 3;
                    want[((size_t)a * B + b) * L + c] = sb >= 0 && sc < C ? x[((size_t)a * B + sb) * L + sc] : 0;
                }
        ok = same(got, want, n + GUARD, 0, msg, sizeof msg);
        free(got), free(want), free(x);
        tl_buffer_destroy(bx), tl_buffer_destroy(by);
    }
    report("descriptor_rank3", ok, msg);
    tl_kernel_destroy(k);
}

/* Rank 5, TMA's most (and Triton's): A x B x C x D x E, the last dim padded
 * to 16 bytes (L), blocks (2, 2, 2, 4, 8) at (i, j, k - 1, 1, e + 3): D <= 4,
 * so one block spans that dim, shifted by one. */
static const char k_td_rank5[] =
    PRE "def k(x_ptr, y_ptr, A, B, C, D, E, L):\n"
        "    st = [B * C * D * L, C * D * L, D * L, L, 1]\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, [A, B, C, D, E], st, [2, 2, 2, 4, 8])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [A, B, C, D, E], st, [2, 2, 2, 4, 8])\n"
        "    nc = tl.cdiv(C, 2)\n"
        "    i = tl.program_id(0) * 2\n"
        "    j = tl.program_id(1) // nc * 2\n"
        "    k = tl.program_id(1) % nc * 2\n"
        "    e = tl.program_id(2) * 8\n"
        "    yd.store([i, j, k, 0, e], xd.load([i, j, k - 1, 1, e + 3]))\n";

static void td_rank5(void) {
    static const int sizes[][5] = {{3, 2, 5, 4, 9}, {1, 1, 1, 1, 1}, {2, 3, 3, 3, 17}};
    char msg[512] = "";
    TlKernel *k = kernel(k_td_rank5, "", msg, sizeof msg);
    int ok = k != NULL;
    for (size_t si = 0; ok && si < sizeof sizes / sizeof sizes[0]; si++) {
        const int *z = sizes[si];
        int A = z[0], B = z[1], C = z[2], D = z[3], E = z[4], L = (E + 3) / 4 * 4;
        size_t n = (size_t)A * B * C * D * L;
        double *x = random_values(TL_I32, n);
        TlBuffer *bx = upload(TL_I32, x, n), *by = sentinel_buffer(TL_I32, n + GUARD);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(A), tl_arg_i32(B), tl_arg_i32(C),
                        tl_arg_i32(D), tl_arg_i32(E), tl_arg_i32(L)};
        unsigned grid[3] = {ex_cdiv((size_t)A, 2), ex_cdiv((size_t)B, 2) * ex_cdiv((size_t)C, 2), ex_cdiv((size_t)E, 8)};
        if (tl_launch(k, grid, args, 8) != TL_SUCCESS) {
            snprintf(msg, sizeof msg, "%dx%dx%dx%dx%d: %s", A, B, C, D, E, tl_last_error(ctx));
            ok = 0;
            break;
        }
        double *got = download(by), *want = malloc((n + GUARD) * sizeof *want);
        for (size_t i = 0; i < n + GUARD; i++)
            want[i] = SENT;
#define AT(a, b, c, d, e) ((((((size_t)(a) * B + (b)) * C + (c)) * D + (d)) * L) + (e))
        for (int a = 0; a < A; a++)
            for (int b = 0; b < B; b++)
                for (int c = 0; c < C; c++)
                    for (int d = 0; d < D; d++)
                        for (int e = 0; e < E; e++) {
                            int sc = c - 1, sd = d + 1, se = e + 3;
                            /* the block at dim 3 starts at 0 and spans 4: D <= 4 */
                            want[AT(a, b, c, d, e)] = sc >= 0 && sd < D && se < E ? x[AT(a, b, sc, sd, se)] : 0;
                        }
#undef AT
        ok = same(got, want, n + GUARD, 0, msg, sizeof msg);
        free(got), free(want), free(x);
        tl_buffer_destroy(bx), tl_buffer_destroy(by);
    }
    report("descriptor_rank5", ok, msg);
    tl_kernel_destroy(k);
}

/* ---- desc.atomic_add: G programs add one tile at (em, en); out of bounds dropped ---- */
static const char k_td_atomic[] =
    PRE "def k(x_ptr, y_ptr, M, N, L, em, en):\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, [M, N], [L, 1], [16, 16])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [M, N], [L, 1], [16, 16])\n"
        "    yd.atomic_add([em, en], xd.load([0, 0]))\n";

static void td_atomic(void) {
    static const int cases[][4] = {{37, 45, 0, 0}, {9, 13, 3, -2}, {20, 20, -5, 7}};
    char msg[512] = "";
    TlKernel *k = kernel(k_td_atomic, "", msg, sizeof msg);
    int ok = k != NULL;
    const int G = 5;
    for (size_t ci = 0; ok && ci < sizeof cases / sizeof cases[0]; ci++) {
        int M = cases[ci][0], N = cases[ci][1], em = cases[ci][2], en = cases[ci][3], L = (N + 3) / 4 * 4;
        size_t n = (size_t)M * L;
        double *x = random_values(TL_I32, n), *y0 = random_values(TL_I32, n + GUARD);
        TlBuffer *bx = upload(TL_I32, x, n), *by = upload(TL_I32, y0, n + GUARD);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(M), tl_arg_i32(N), tl_arg_i32(L),
                        tl_arg_i32(em), tl_arg_i32(en)};
        unsigned grid[3] = {(unsigned)G, 1, 1};
        if (tl_launch(k, grid, args, 7) != TL_SUCCESS) {
            snprintf(msg, sizeof msg, "%dx%d: %s", M, N, tl_last_error(ctx));
            ok = 0;
            break;
        }
        double *got = download(by);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int ti = i - em, tj = j - en;
                if (ti >= 0 && ti < 16 && tj >= 0 && tj < 16 && ti < M && tj < N)
                    y0[(size_t)i * L + j] += G * x[(size_t)ti * L + tj];
            }
        ok = same(got, y0, n + GUARD, 0, msg, sizeof msg);
        free(got), free(x), free(y0);
        tl_buffer_destroy(bx), tl_buffer_destroy(by);
    }
    report("descriptor_atomic_add", ok, msg);
    /* a row stride that is not a multiple of 16 bytes breaks Triton's rule:
     * the launch fails naming it. On a GPU that is a device assert (the
     * compiled check before llvm.assume), which leaves the context unusable,
     * so only the interpreter runs it. */
    if (k && tl_context_device(ctx) != TL_DEVICE_CUDA) {
        double *x = random_values(TL_I32, 64 * 64);
        TlBuffer *bx = upload(TL_I32, x, 64 * 64), *by = upload(TL_I32, x, 64 * 64);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_i32(20), tl_arg_i32(21), tl_arg_i32(21),
                        tl_arg_i32(0), tl_arg_i32(0)};
        unsigned grid[3] = {1, 1, 1};
        TlStatus s = tl_launch(k, grid, args, 7);
        const char *want = "tl.make_tensor_descriptor: strides[0] is not a multiple of 16 bytes (4 elements)";
        snprintf(msg, sizeof msg, "status %s, message: %s (want a failure naming '%s')", tl_status_name(s),
                 tl_last_error(ctx), want);
        report("descriptor_stride_unaligned", s != TL_SUCCESS && strstr(tl_last_error(ctx), want), msg);
        free(x);
        tl_buffer_destroy(bx), tl_buffer_destroy(by);
    }
    tl_kernel_destroy(k);
}

/* ---- desc.atomic_max / atomic_min of 16-bit floats (Triton: native TMA's
 * cp.reduce.async.bulk .max / .min; here CAS loops): program p reduces the
 * tile x * (p - 2) at (em, en), x read at [0, 0] (zero past M, N); the
 * products are exact, so max and min are in any order. ---- */
static const char k_td_minmax[] =
    PRE "def k(x_ptr, y_ptr, z_ptr, M, N, L, em, en):\n"
        "    xd = tl.make_tensor_descriptor(x_ptr, [M, N], [L, 1], [16, 16])\n"
        "    yd = tl.make_tensor_descriptor(y_ptr, [M, N], [L, 1], [16, 16])\n"
        "    zd = tl.make_tensor_descriptor(z_ptr, [M, N], [L, 1], [16, 16])\n"
        "    v = xd.load([0, 0]) * (tl.program_id(0) - 2)\n"
        "    yd.atomic_max([em, en], v)\n"
        "    zd.atomic_min([em, en], v)\n";

static void td_minmax(const char *name, TlDType dt) {
    static const int cases[][4] = {{37, 45, 0, 0}, {9, 13, 3, -2}, {20, 20, -5, 7}};
    char msg[512] = "";
    TlKernel *k = kernel(k_td_minmax, "", msg, sizeof msg);
    int ok = k != NULL;
    const int G = 5;
    for (size_t ci = 0; ok && ci < sizeof cases / sizeof cases[0]; ci++) {
        int M = cases[ci][0], N = cases[ci][1], em = cases[ci][2], en = cases[ci][3], L = (int)ld_of(N, dt);
        size_t n = (size_t)M * L;
        double *x = random_values(dt, n), *y = random_values(dt, n + GUARD), *z = random_values(dt, n + GUARD);
        TlBuffer *bx = upload(dt, x, n), *by = upload(dt, y, n + GUARD), *bz = upload(dt, z, n + GUARD);
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(by), tl_arg_buffer(bz), tl_arg_i32(M), tl_arg_i32(N),
                        tl_arg_i32(L), tl_arg_i32(em), tl_arg_i32(en)};
        unsigned grid[3] = {(unsigned)G, 1, 1};
        if (tl_launch(k, grid, args, 8) != TL_SUCCESS) {
            /* before sm_90 Triton refuses these, and so does tl */
            ok = strstr(tl_last_error(ctx), "needs native TMA (sm_90 or later)") != NULL;
            snprintf(msg, sizeof msg, "%dx%d: %s", M, N, tl_last_error(ctx));
            free(x), free(y), free(z);
            tl_buffer_destroy(bx), tl_buffer_destroy(by), tl_buffer_destroy(bz);
            break;
        }
        double *gy = download(by), *gz = download(bz);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                int ti = i - em, tj = j - en;
                if (ti < 0 || ti >= 16 || tj < 0 || tj >= 16)
                    continue;
                double t = ti < M && tj < N ? x[(size_t)ti * L + tj] : 0;
                for (int p = 0; p < G; p++) {
                    y[(size_t)i * L + j] = fmax(y[(size_t)i * L + j], t * (p - 2));
                    z[(size_t)i * L + j] = fmin(z[(size_t)i * L + j], t * (p - 2));
                }
            }
        ok = same(gy, y, n + GUARD, 0, msg, sizeof msg) && same(gz, z, n + GUARD, 0, msg, sizeof msg);
        free(gy), free(gz), free(x), free(y), free(z);
        tl_buffer_destroy(bx), tl_buffer_destroy(by), tl_buffer_destroy(bz);
    }
    report(name, ok, msg);
    tl_kernel_destroy(k);
}

/* ---- launch checks of host descriptors ---- */

static void refused(const char *name, TlKernel *k, TlArg *args, int nargs, const char *want) {
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, args, nargs);
    char msg[1024];
    snprintf(msg, sizeof msg, "status %s, message: %s (want TL_ERROR_LAUNCH and '%s')", tl_status_name(s),
             tl_last_error(ctx), want);
    report(name, s == TL_ERROR_LAUNCH && strstr(tl_last_error(ctx), want), msg);
}

static void launch_checks(void) {
    char msg[512] = "";
    TlKernel *k = kernel(k_td_host, "--signature \"tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>, i32, i32, i32, "
                                    "i32\"",
                         msg, sizeof msg);
    report("signature_compiles", k != NULL, msg);
    if (!k)
        return;
    TlParamInfo pi;
    int ok = tl_kernel_num_params(k) == 6 && tl_kernel_param(k, 0, &pi) == TL_SUCCESS && pi.tensordesc_rank == 2 &&
             pi.block_shape[0] == 16 && pi.block_shape[1] == 32 && pi.dtype == TL_F32 && !pi.is_pointer &&
             !strcmp(pi.name, "xd");
    report("kernel_param_tensordesc", ok, "tl_kernel_param does not describe parameter 0 as tensordesc<fp32[16, 32]>");

    TlBuffer *b, *bi;
    tl_buffer_create(ctx, TL_F32, 64 * 64, &b);
    tl_buffer_create(ctx, TL_I32, 64 * 64, &bi);
    int64_t shape[2] = {64, 64}, strides[2] = {64, 1};
    int32_t block[2] = {16, 32};
    TlTensorDesc d0, d1;
    TlArg a[6] = {tl_arg_tensordesc(&d0, b, 2, shape, strides, block), tl_arg_tensordesc(&d1, b, 2, shape, strides,
                                                                                          block),
                  tl_arg_i32(0), tl_arg_i32(0), tl_arg_i32(0), tl_arg_i32(0)};
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, a, 6);
    report("accepted", s == TL_SUCCESS, tl_last_error(ctx));
    if (tl_context_device(ctx) == TL_DEVICE_CUDA) {
        TlStats st;
        tl_context_stats(ctx, &st);
        report("tensor_maps_encoded", st.tensor_maps >= 2, "no CUtensorMap was encoded (see tl_kernel_log)");
    }

    d1.strides[1] = 2;
    refused("refuses_last_stride", k, a, 6, "last stride is 2; it must be 1");
    d1.strides[1] = 1, d1.strides[0] = 66;
    refused("refuses_unaligned_stride", k, a, 6, "strides[0] = 66 elements (264 bytes) is not a positive multiple");
    d1.strides[0] = 64, d1.shape[0] = 65;
    refused("refuses_past_buffer", k, a, 6, "reaching element 4159, past the 4096 elements of its buffer");
    d1.shape[0] = 64, d1.block_shape[0] = 12;
    refused("refuses_block_not_pow2", k, a, 6, "block_shape[0] is 12");
    d1.block_shape[0] = 16;
    a[1] = tl_arg_tensordesc(&d1, b, 2, shape, strides, (int32_t[]){32, 32});
    refused("refuses_other_block", k, a, 6, "is a tensordesc<fp32[32, 32]>, but the parameter is tensordesc<fp32[16, 32]>");
    a[1] = tl_arg_tensordesc(&d1, bi, 2, shape, strides, block);
    refused("refuses_other_dtype", k, a, 6, "is a tensordesc<i32[16, 32]>, but the parameter is tensordesc<fp32[16, 32]>");
    d1.padding_nan = 1;
    refused("refuses_nan_padding_of_ints", k, a, 6, "of integers with NaN padding");
    a[1] = tl_arg_buffer(b);
    refused("refuses_buffer_for_descriptor", k, a, 6, "is a buffer, but the parameter is tensordesc<fp32[16, 32]>");
    a[1] = tl_arg_tensordesc(&d1, b, 2, shape, strides, block);
    a[2] = a[1];
    refused("refuses_descriptor_for_int", k, a, 6, "is a tensor descriptor, but the parameter is i32");
    a[2] = tl_arg_i32(0);
    d1.rank = 6;
    refused("refuses_rank6", k, a, 6, "of rank 6 (1 to 5)");
    a[1] = tl_arg_tensordesc(&d1, b, 2, shape, strides, (int32_t[]){16, 2});
    refused("refuses_narrow_block", k, a, 6, "has 8 bytes in the last dimension; at least 16");
    a[1] = tl_arg_tensordesc_ptr(&d1, NULL, tl_buffer_device_ptr(b) + 4, TL_F32, 1000, 2, shape, strides, block);
    if (tl_context_device(ctx) == TL_DEVICE_CUDA)
        refused("refuses_unaligned_base", k, a, 6, "is not 16-byte aligned");
    else
        refused("refuses_pointer_without_count", k,
                (a[1] = tl_arg_tensordesc_ptr(&d1, NULL, 4096, TL_F32, 0, 2, shape, strides, block), a), 6,
                "over a pointer without its element count");
    a[1].v.desc = NULL;
    refused("refuses_null_descriptor", k, a, 6, "is a null tensor descriptor");
    tl_kernel_destroy(k);

    /* ":16" promises shapes that are multiples of 16 (what a launch specialises on) */
    k = kernel(k_td_host, "--signature \"tensordesc<fp32[16, 32]>:16, tensordesc<fp32[16, 32]>, i32, i32, i32, i32\"",
               msg, sizeof msg);
    report("signature_hint_compiles", k != NULL, msg);
    if (k) {
        ok = tl_kernel_param(k, 0, &pi) == TL_SUCCESS && pi.hint == 16 && tl_kernel_param(k, 1, &pi) == TL_SUCCESS &&
             pi.hint == 0;
        report("kernel_param_tensordesc_hint", ok, "tl_kernel_param does not report the :16 of parameter 0 only");
        a[0] = tl_arg_tensordesc(&d0, b, 2, shape, strides, block);
        a[1] = tl_arg_tensordesc(&d1, b, 2, shape, strides, block);
        s = tl_launch(k, grid, a, 6);
        report("hint_accepted", s == TL_SUCCESS, tl_last_error(ctx));
        a[0] = tl_arg_tensordesc(&d0, b, 2, (int64_t[]){37, 64}, strides, block);
        refused("refuses_broken_hint", k, a, 6, "promises shapes that are multiples of 16 (:16), but shape[0] is 37");
    }
    tl_buffer_destroy(b);
    tl_buffer_destroy(bi);
    tl_kernel_destroy(k);
}

int main(void) {
    ctx = ex_context();
    static const Size exact[] = {{37, 64}, {1, 32}, {100, 96}}; /* N a multiple of BN: dim 1 needs no check */
    bp_copy("blockptr_copy_f32", TL_F32, "zero", "(0,1)", SIZES, NSIZES, 3);
    bp_copy("blockptr_copy_f16_nan", TL_F16, "nan", "(1,0)", SIZES, NSIZES, 3);
    bp_copy("blockptr_copy_i32", TL_I32, "zero", "(0,1)", SIZES, NSIZES, 3);
    bp_copy("blockptr_check_dim0_only", TL_F32, "zero", "(0,)", exact, 3, 1);
    bp_matmul();
    bp_loops();
    td_shift("descriptor_device_f32", TL_F32, 0, 0, 0, NULL);
    td_shift("descriptor_device_fn_f16", TL_F16, 0, 1, 0, NULL);
    td_shift("descriptor_host_buffer_f32", TL_F32, 1, 0, 0, "");
    td_shift("descriptor_host_buffer_i32", TL_I32, 1, 0, 0, "");
    td_shift("descriptor_host_pointer_f16_nan", TL_F16, 2, 0, 1, "");
    td_shift("descriptor_host_signature_f32", TL_F32, 1, 0, 0,
             "--signature \"tensordesc<fp32[16, 32]>, tensordesc<fp32[16, 32]>, i32, i32, i32, i32\"");
    td_rank1();
    td_rank3();
    td_rank5();
    td_atomic();
    td_minmax("descriptor_atomic_max_min_f16", TL_F16);
    td_minmax("descriptor_atomic_max_min_bf16", TL_BF16);
    launch_checks();
    tl_context_destroy(ctx);
    printf("%s\n", failures ? "FAILED" : "all passed");
    return failures ? 1 : 0;
}
