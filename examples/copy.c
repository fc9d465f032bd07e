/* copy: seed 001's copy_k (z = x) at ragged sizes, and the seed's own int64 run. */
#include "common.h"

static void run_copy(TlContext *ctx, TlKernel *k, int bs, size_t n) {
    float *x = malloc(n * sizeof *x), *z = malloc(n * sizeof *z);
    for (size_t i = 0; i < n; i++)
        x[i] = (float)ex_uniform() * 100.0f;
    TlBuffer *bx = ex_buffer(ctx, TL_F32, n, x), *bz = ex_buffer(ctx, TL_F32, n, NULL);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz), tl_arg_i32((int32_t)n)};
    unsigned grid[3] = {ex_cdiv(n, (size_t)bs), 1, 1};
    char name[64];
    snprintf(name, sizeof name, "copy fp32 n=%zu bs=%d", n, bs);
    TlStatus s = tl_launch(k, grid, args, 3);
    if (s != TL_SUCCESS) {
        ex_result(name, 0, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
    } else {
        tl_buffer_read(bz, 0, z, n * sizeof *z);
        size_t bad = n;
        for (size_t i = 0; i < n && bad == n; i++)
            if (memcmp(&z[i], &x[i], sizeof *z))
                bad = i;
        ex_result(name, bad == n, "z[%zu] = %g, want %g", bad, bad < n ? z[bad] : 0, bad < n ? x[bad] : 0);
    }
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    free(x);
    free(z);
}

int main(void) {
    TlContext *ctx = ex_context();

    TlKernel *k = ex_kernel(ctx, "copy.tl", "-D bs=1024");
    size_t sizes[] = {1, 1023, 1024, 1025, 1000003};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        run_copy(ctx, k, 1024, sizes[i]);
    tl_kernel_destroy(k);

    /* The seed's run: int64 [1..6] with bs=2, grid (3,). */
    TlKernel *k2 = ex_kernel(ctx, "copy.tl", "-D bs=2");
    int64_t x[6] = {1, 2, 3, 4, 5, 6}, z[6] = {0};
    TlBuffer *bx = ex_buffer(ctx, TL_I64, 6, x), *bz = ex_buffer(ctx, TL_I64, 6, z);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz), tl_arg_i32(6)};
    unsigned grid[3] = {3, 1, 1};
    TlStatus s = tl_launch(k2, grid, args, 3);
    tl_buffer_read(bz, 0, z, sizeof z);
    ex_result("copy int64 [1..6] bs=2 (seed)", s == TL_SUCCESS && !memcmp(x, z, sizeof z), "%s %s",
              tl_status_name(s), tl_last_error(ctx));
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    tl_kernel_destroy(k2);
    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
