/* swizzle: seed 001's swizzle_k, which moves x[i][j] to its tl.swizzle2d
 * position, checked against the seed's printed 5x4 result and against a C
 * version of swizzle2d at other grid sizes. */
#include "common.h"

/* triton/language/standard.py's swizzle2d, in C. */
static void swizzle2d(int64_t i, int64_t j, int64_t size_i, int64_t size_j, int64_t size_g, int64_t *oi,
                      int64_t *oj) {
    int64_t ij = i * size_j + j;
    int64_t size_gj = size_g * size_j;
    int64_t group_id = ij / size_gj;
    int64_t off_i = group_id * size_g;
    if (size_i - off_i < size_g)
        size_g = size_i - off_i;
    ij %= size_gj;
    *oi = off_i + ij % size_g;
    *oj = ij / size_g;
}

static void run(TlContext *ctx, int rows, int cols, int group, const int64_t *expect) {
    char opts[64], name[64];
    snprintf(opts, sizeof opts, "--kernel swizzle_k -D group_sz=%d", group);
    snprintf(name, sizeof name, "swizzle int64 %dx%d group=%d%s", rows, cols, group, expect ? " (seed)" : "");
    TlKernel *k = ex_kernel(ctx, "swizzle.tl", opts);
    size_t n = (size_t)rows * (size_t)cols;
    int64_t *x = malloc(n * 8), *z = malloc(n * 8), *want = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
        x[i] = (int64_t)i;
        z[i] = -1;
    }
    for (int i = 0; i < rows; i++)
        for (int j = 0; j < cols; j++) {
            int64_t si, sj;
            swizzle2d(i, j, rows, cols, group, &si, &sj);
            want[si * cols + sj] = x[(size_t)i * cols + j];
        }
    if (expect && memcmp(want, expect, n * 8))
        ex_result(name, 0, "the C reference disagrees with the seed's printed result");
    TlBuffer *bx = ex_buffer(ctx, TL_I64, n, x), *bz = ex_buffer(ctx, TL_I64, n, z);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz)};
    unsigned grid[3] = {(unsigned)rows, (unsigned)cols, 1};
    TlStatus s = tl_launch(k, grid, args, 2);
    tl_buffer_read(bz, 0, z, n * 8);
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (z[i] != want[i])
            bad = i;
    if (s != TL_SUCCESS)
        ex_result(name, 0, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
    else
        ex_result(name, bad == n, "z[%zu] = %lld, want %lld", bad, bad < n ? (long long)z[bad] : 0,
                  bad < n ? (long long)want[bad] : 0);
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    tl_kernel_destroy(k);
    free(x), free(z), free(want);
}

int main(void) {
    TlContext *ctx = ex_context();
    static const int64_t seed[20] = {0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11, 12, 14, 16, 18, 13, 15, 17, 19};
    run(ctx, 5, 4, 3, seed);
    run(ctx, 13, 7, 4, NULL);
    run(ctx, 1, 1, 2, NULL);
    run(ctx, 31, 17, 8, NULL);
    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
