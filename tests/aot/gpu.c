/* gpu.c: AOT launchers on a real GPU (tests/gpu.sh, from the files 'make
 * gpu-prep' writes into build/aot, compiled on the GPU machine with cc).
 *
 * Device memory comes from libtl (tl_buffer_create + tl_buffer_device_ptr);
 * the kernels run only through the generated launchers, on the default
 * stream of the context libtl made current. Each result is checked against
 * a C reference at ragged sizes, with aligned and unaligned pointers so that
 * different specialisations run. Exit 3: no GPU. */
#include "common.h"

#include "copy.h"
#include "mm.h"
#include "scalars.h"

static void launch_status(TlContext *ctx, const char *name, int r, int (*ok_out)) {
    TlStatus s = r ? TL_SUCCESS : tl_context_synchronize(ctx);
    *ok_out = r == 0 && s == TL_SUCCESS;
    if (!*ok_out)
        ex_result(name, 0, "launch status %d (%s); synchronize: %s", r, copy_k_strerror(r),
                  s ? tl_last_error(ctx) : "ok");
}

/* z = x for n elements at an offset of `off` floats (off = 1: not 16-byte aligned). */
static void copy_case(TlContext *ctx, size_t n, int off) {
    char name[160];
    size_t total = n + (size_t)off + 7;
    float *x = malloc(total * sizeof *x), *z = malloc(total * sizeof *z);
    for (size_t i = 0; i < total; i++)
        x[i] = (float)ex_uniform(), z[i] = -7.25f;
    TlBuffer *bx = ex_buffer(ctx, TL_F32, total, x), *bz = ex_buffer(ctx, TL_F32, total, z);
    uint64_t xp = tl_buffer_device_ptr(bx) + 4u * (unsigned)off, zp = tl_buffer_device_ptr(bz) + 4u * (unsigned)off;
    int v = copy_k_select(xp, zp, (int32_t)n);
    snprintf(name, sizeof name, "copy n=%zu%s [%s]", n, off ? " +4 bytes" : "",
             v >= 0 ? copy_k_images[v * 2].signature : "none");
    int ok;
    launch_status(ctx, name, copy_k_launch(NULL, ex_cdiv(n, 1024), 1, 1, xp, zp, (int32_t)n), &ok);
    if (ok) {
        ex_check_status(ctx, tl_buffer_read(bz, 0, z, total * sizeof *z), "tl_buffer_read");
        size_t bad = total;
        for (size_t i = 0; i < total && bad == total; i++) {
            float want = i >= (size_t)off && i < (size_t)off + n ? x[i] : -7.25f; /* untouched outside */
            if (memcmp(&z[i], &want, 4))
                bad = i;
        }
        ex_result(name, bad == total, "z[%zu] = %g, want %g", bad, bad < total ? z[bad] : 0.f,
                  bad < total ? (bad >= (size_t)off && bad < (size_t)off + n ? x[bad] : -7.25f) : 0.f);
    }
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bz);
    free(x);
    free(z);
}

static void scalars_case(TlContext *ctx) {
    double out[10];
    for (int i = 0; i < 10; i++)
        out[i] = -999;
    TlBuffer *b = ex_buffer(ctx, TL_F64, 10, out);
    int ok;
    launch_status(ctx, "scalars of every type",
                  scalars_k_launch(NULL, 1, 1, 1, tl_buffer_device_ptr(b), true, -3, -300, -70000, -5000000000ll,
                                   4000000000u, 1.5f, -2.75f, 0.1f, 1e300),
                  &ok);
    if (!ok)
        return;
    ex_check_status(ctx, tl_buffer_read(b, 0, out, sizeof out), "tl_buffer_read");
    const double want[10] = {1, -3, -300, -70000, -5000000000.0, 4000000000.0, 1.5, -2.75, (double)0.1f, 1e300};
    int bad = -1;
    for (int i = 0; i < 10 && bad < 0; i++)
        if (out[i] != want[i])
            bad = i;
    ex_result("scalars of every type", bad < 0, "out[%d] = %.17g, want %.17g", bad, bad >= 0 ? out[bad] : 0,
              bad >= 0 ? want[bad] : 0);
    tl_buffer_destroy(b);
}

/* relu(x @ y) in fp16 with 69632 bytes of dynamic shared memory per block. */
static void mm_case(TlContext *ctx, int M, int N, int K) {
    char name[128];
    snprintf(name, sizeof name, "matmul fp16 %dx%dx%d relu, %u B shared", M, N, K,
             matmul_fwd_kernel_images[0].shared_bytes);
    uint16_t *a = malloc(sizeof *a * (size_t)M * K), *b = malloc(sizeof *b * (size_t)K * N),
             *c = malloc(sizeof *c * (size_t)M * N);
    for (size_t i = 0; i < (size_t)M * K; i++)
        a[i] = ex_f2h((float)ex_uniform());
    for (size_t i = 0; i < (size_t)K * N; i++)
        b[i] = ex_f2h((float)ex_uniform());
    TlBuffer *ba = ex_buffer(ctx, TL_F16, (size_t)M * K, a), *bb = ex_buffer(ctx, TL_F16, (size_t)K * N, b),
             *bc = ex_buffer(ctx, TL_F16, (size_t)M * N, NULL);
    int ok;
    launch_status(ctx, name,
                  matmul_fwd_kernel_launch(NULL, ex_cdiv(M, 128) * ex_cdiv(N, 128), 1, 1, tl_buffer_device_ptr(ba),
                                           tl_buffer_device_ptr(bb), tl_buffer_device_ptr(bc), M, K, K, N),
                  &ok);
    if (ok) {
        ex_check_status(ctx, tl_buffer_read(bc, 0, c, sizeof *c * (size_t)M * N), "tl_buffer_read");
        double *got = malloc(sizeof *got * (size_t)M * N), *want = malloc(sizeof *want * (size_t)M * N);
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                double acc = 0;
                for (int k = 0; k < K; k++)
                    acc += (double)ex_h2f(a[(size_t)i * K + k]) * ex_h2f(b[(size_t)k * N + j]);
                want[(size_t)i * N + j] = acc < 0 ? 0 : acc;
                got[(size_t)i * N + j] = ex_h2f(c[(size_t)i * N + j]);
            }
        size_t where;
        double worst = ex_compare(got, want, (size_t)M * N, 1e-2, 1e-2, &where);
        ex_result(name, worst <= 1, "C[%zu][%zu] = %.6g, want %.6g (%.2fx the tolerance)", where / (size_t)N,
                  where % (size_t)N, got[where], want[where], worst);
        free(got);
        free(want);
    }
    tl_buffer_destroy(ba);
    tl_buffer_destroy(bb);
    tl_buffer_destroy(bc);
    free(a);
    free(b);
    free(c);
}

int main(void) {
    TlContext *ctx = NULL;
    TlStatus s = tl_context_create(TL_DEVICE_CUDA, &ctx);
    if (s) {
        printf("no GPU: %s\n", ctx ? tl_last_error(ctx) : tl_status_name(s));
        return 3;
    }
    printf("device: %s\n", tl_context_device_name(ctx));
    const size_t ns[] = {1, 1023, 1024, 1025, 1000003};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        for (int off = 0; off < 2; off++)
            copy_case(ctx, ns[i], off);
    scalars_case(ctx);
    mm_case(ctx, 256, 384, 208);
    /* a hint the signature fixed that does not hold: refused, nothing launched */
    int r = matmul_fwd_kernel_launch(NULL, 1, 1, 1, 0, 0, 0, 256, 200, 200, 384);
    ex_result("matmul refuses K=200 (signature says i32:16)", r == TL_AOT_ERROR_NO_VARIANT, "status %d", r);
    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
