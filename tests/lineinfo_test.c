/* lineinfo_test.c: a kernel that stores far past its buffer, for
 * compute-sanitizer (tests/gpu.sh, lineinfo/): the library compiles with
 * line information by default, so the sanitizer's report names the .tl
 * file and the line of the store. With --resources it prints what
 * tl_kernel_resources says of the variant it ran instead. The launch is
 * expected to fail or be reported; this program only runs it, the script
 * checks the sanitizer's words. */
#include <stdio.h>
#include <string.h>

#include "tl.h"

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: lineinfo_test FILE.tl [--in-bounds]\n");
        return 2;
    }
    int in_bounds = argc > 2 && !strcmp(argv[2], "--in-bounds");
    TlContext *ctx;
    if (tl_context_create(TL_DEVICE_CUDA, &ctx) != TL_SUCCESS) {
        fprintf(stderr, "lineinfo_test: %s\n", tl_last_error(NULL));
        return 3;
    }
    TlKernel *k;
    TlBuffer *x;
    enum { BLOCK = 64 };
    if (tl_kernel_from_file(ctx, argv[1], "-D BLOCK=64", &k) != TL_SUCCESS ||
        tl_buffer_create(ctx, TL_F32, 2 * BLOCK, &x) != TL_SUCCESS) {
        fprintf(stderr, "lineinfo_test: %s\n", tl_last_error(ctx));
        return 1;
    }
    float h[2 * BLOCK];
    for (int i = 0; i < 2 * BLOCK; i++)
        h[i] = (float)i + 0.5f;
    tl_buffer_write(x, 0, h, sizeof h);
    /* 16 Mi floats past the buffer's start, or just its second half */
    int n = in_bounds ? BLOCK : 1 << 24;
    TlArg args[] = {tl_arg_buffer(x), tl_arg_i32(n)};
    unsigned grid[3] = {1, 1, 1};
    TlStatus s = tl_launch(k, grid, args, 2);
    printf("launch: %s\n", tl_status_name(s));
    if (s == TL_SUCCESS && in_bounds) {
        tl_buffer_read(x, 0, h, sizeof h);
        int bad = 0;
        for (int i = 0; i < BLOCK; i++)
            bad += h[BLOCK + i] != 2.0f * ((float)i + 0.5f);
        TlKernelResources r;
        TlStatus rs = tl_kernel_resources(k, &r);
        printf("in bounds: %d wrong; resources %s: registers %d spill %d shared %d threads %d\n", bad,
               tl_status_name(rs), r.registers, r.spill_bytes, r.shared_bytes, r.threads);
        s = bad || rs != TL_SUCCESS || r.registers <= 0 || r.threads != 128 ? TL_ERROR_LAUNCH : TL_SUCCESS;
    }
    tl_kernel_destroy(k);
    tl_buffer_destroy(x);
    tl_context_destroy(ctx);
    return s == TL_SUCCESS ? 0 : 1;
}
