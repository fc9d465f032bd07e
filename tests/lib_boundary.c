/* lib_boundary.c: a host program whose own functions share names with
 * libtl's internals (read_file, fail, yyparse, buf_free: names any C
 * program may well have). libtl must keep using its own: the kernel file is
 * read, compiled and launched on the CPU device, and computes the right
 * result, while none of the functions below is ever called by the library.
 *
 *   lib_boundary KERNEL.tl      (examples/copy.tl: copy_k(x, z, n, bs))
 *
 * Exit status 0 when every check passes; each check prints [PASS]/[FAIL]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

static int stolen; /* calls that reached our functions instead of libtl's */

/* Deliberately different signatures and behaviour from libtl's. */
char *read_file(const char *path, size_t *len) {
    stolen++;
    if (len)
        *len = 0;
    return NULL;
}

int fail(const char *why) {
    stolen++;
    return 0;
}

int yyparse(void) {
    stolen++;
    return 1;
}

void buf_free(void *b) { stolen++; }

static int failures;

static void check(const char *name, int ok, const char *why) {
    printf("[%s] lib/boundary/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", why ? why : "");
        failures++;
    }
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: lib_boundary KERNEL.tl\n");
        return 2;
    }
    /* The program's own read_file still works for the program. */
    size_t len = 1;
    check("own-read-file-called", read_file(argv[1], &len) == NULL && len == 0 && stolen == 1, "");
    stolen = 0;

    TlContext *ctx = NULL;
    TlStatus s = tl_context_create(TL_DEVICE_CPU, &ctx);
    check("context", s == TL_SUCCESS, tl_status_name(s));
    if (s != TL_SUCCESS)
        return 1;

    TlKernel *k = NULL;
    s = tl_kernel_from_file(ctx, argv[1], "--kernel copy_k -D bs=128", &k);
    check("kernel-from-file", s == TL_SUCCESS && k && !strcmp(tl_kernel_name(k), "copy_k"), tl_last_error(ctx));

    /* A bad option goes through libtl's own error path (its fail()). */
    TlKernel *bad = NULL;
    s = tl_kernel_from_file(ctx, argv[1], "--num-warps 3", &bad);
    check("error-path", s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_last_error(ctx), "--num-warps"),
          tl_last_error(ctx));

    /* 1000 elements: not a multiple of the block, so the mask matters. */
    enum { N = 1000 };
    float *x = malloc(N * sizeof *x), *z = malloc(N * sizeof *z);
    for (int i = 0; i < N; i++)
        x[i] = 0.5f * (float)i - 123.25f;
    TlBuffer *bx = NULL, *bz = NULL;
    int ok = k && x && z && tl_buffer_create(ctx, TL_F32, N, &bx) == TL_SUCCESS &&
             tl_buffer_create(ctx, TL_F32, N, &bz) == TL_SUCCESS &&
             tl_buffer_write(bx, 0, x, N * sizeof *x) == TL_SUCCESS;
    if (ok) {
        TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz), tl_arg_i32(N)};
        unsigned grid[3] = {(N + 127) / 128, 1, 1};
        s = tl_launch(k, grid, args, 3);
        ok = s == TL_SUCCESS && tl_buffer_read(bz, 0, z, N * sizeof *z) == TL_SUCCESS;
        for (int i = 0; ok && i < N; i++)
            ok = z[i] == x[i];
    }
    check("launch-cpu-result", ok, tl_last_error(ctx));
    check("library-never-called-ours", stolen == 0, "libtl called a function of the host program");

    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
    free(x);
    free(z);
    return failures != 0;
}
