/* interop: tl inside an existing CUDA program. The program owns the CUDA
 * context, a stream and some device memory (cuMemAlloc); tl adopts the
 * context, launches on the program's stream with raw device pointers, and a
 * cuBLAS SGEMM runs between two tl kernels on the same stream, with one
 * synchronisation at the end:
 *
 *     a = s * x          (tl: scale)
 *     c = a @ w          (cuBLAS: cublasSgemm, row-major through the transpose)
 *     c = relu(c + bias) (tl: bias_relu)
 *
 * Checked against a C reference at ragged sizes. CUDA and cuBLAS are opened
 * with dlopen, so this builds without the CUDA toolkit; without a GPU (or
 * without cuBLAS) the tl kernels run as usual and the GEMM runs on the host. */
#include <dlfcn.h>

#include "common.h"

static struct {
    void *lib;
    int (*cuCtxGetCurrent)(void **);
    int (*cuDevicePrimaryCtxRetain)(void **, int);
    int (*cuCtxSetCurrent)(void *);
    int (*cuStreamCreate)(void **, unsigned);
    int (*cuStreamDestroy)(void *);
    int (*cuMemAlloc)(uint64_t *, size_t);
    int (*cuMemFree)(uint64_t);
    int (*cuMemcpyHtoD)(uint64_t, const void *, size_t);
    int (*cuMemcpyDtoH)(void *, uint64_t, size_t);
    int (*cuInit)(unsigned);
} cu;

static struct {
    void *handle;
    int (*setStream)(void *, void *);
    int (*sgemm)(void *, int, int, int, int, int, const float *, const float *, int, const float *, int,
                 const float *, float *, int);
} blas;

#define LOAD(lib, s, name) (*(void **)&s = dlsym(lib, name))

static int open_cuda(void) {
    if (!(cu.lib = dlopen("libcuda.so.1", RTLD_NOW)))
        return 0;
    return LOAD(cu.lib, cu.cuInit, "cuInit") && LOAD(cu.lib, cu.cuCtxGetCurrent, "cuCtxGetCurrent") &&
           LOAD(cu.lib, cu.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
           LOAD(cu.lib, cu.cuCtxSetCurrent, "cuCtxSetCurrent") && LOAD(cu.lib, cu.cuStreamCreate, "cuStreamCreate") &&
           LOAD(cu.lib, cu.cuStreamDestroy, "cuStreamDestroy_v2") && LOAD(cu.lib, cu.cuMemAlloc, "cuMemAlloc_v2") &&
           LOAD(cu.lib, cu.cuMemFree, "cuMemFree_v2") && LOAD(cu.lib, cu.cuMemcpyHtoD, "cuMemcpyHtoD_v2") &&
           LOAD(cu.lib, cu.cuMemcpyDtoH, "cuMemcpyDtoH_v2");
}

static int open_cublas(void) {
    const char *names[] = {getenv("TL_CUBLAS"), "libcublas.so", "libcublas.so.13", "libcublas.so.12"};
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        if (names[i])
            lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    int (*create)(void **);
    if (!lib || !LOAD(lib, create, "cublasCreate_v2") || !LOAD(lib, blas.setStream, "cublasSetStream_v2") ||
        !LOAD(lib, blas.sgemm, "cublasSgemm_v2"))
        return 0;
    return create(&blas.handle) == 0;
}

static void host_gemm(const float *a, const float *w, float *c, int m, int n, int k) {
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            float acc = 0;
            for (int p = 0; p < k; p++)
                acc += a[i * k + p] * w[p * n + j];
            c[i * n + j] = acc;
        }
}

static void run(TlContext *ctx, TlKernel *kscale, TlKernel *kbias, void *stream, int gpu, int m, int n, int k) {
    size_t xa = (size_t)m * k, wn = (size_t)k * n, cn = (size_t)m * n;
    float *x = malloc(xa * 4), *w = malloc(wn * 4), *bias = malloc((size_t)n * 4), *c = malloc(cn * 4);
    float *a = malloc(xa * 4), *want = malloc(cn * 4);
    for (size_t i = 0; i < xa; i++)
        x[i] = (float)ex_uniform();
    for (size_t i = 0; i < wn; i++)
        w[i] = (float)ex_uniform();
    for (int i = 0; i < n; i++)
        bias[i] = (float)ex_uniform() * 0.5f;
    const float s = 0.75f;
    /* The reference: the same three steps on the host, in double for the GEMM. */
    for (size_t i = 0; i < xa; i++)
        a[i] = x[i] * s;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double acc = 0;
            for (int p = 0; p < k; p++)
                acc += (double)a[(size_t)i * k + p] * w[(size_t)p * n + j];
            double v = acc + bias[j];
            want[(size_t)i * n + j] = v > 0 ? (float)v : 0.0f;
        }

    /* Device memory the program owns (on the CPU device: host memory). */
    uint64_t dx = 0, da = 0, dw = 0, dc = 0;
    TlBuffer *bbias = ex_buffer(ctx, TL_F32, (size_t)n, bias);
    float *ha = NULL, *hc = NULL;
    if (gpu) {
        cu.cuMemAlloc(&dx, xa * 4), cu.cuMemAlloc(&da, xa * 4), cu.cuMemAlloc(&dw, wn * 4), cu.cuMemAlloc(&dc, cn * 4);
        cu.cuMemcpyHtoD(dx, x, xa * 4), cu.cuMemcpyHtoD(dw, w, wn * 4);
    } else {
        ha = malloc(xa * 4), hc = malloc(cn * 4);
        dx = (uint64_t)(uintptr_t)x, da = (uint64_t)(uintptr_t)ha, dw = (uint64_t)(uintptr_t)w;
        dc = (uint64_t)(uintptr_t)hc;
    }
    TlArg sargs[] = {tl_arg_ptr(dx, TL_F32, xa), tl_arg_ptr(da, TL_F32, xa), tl_arg_f32(s), tl_arg_i32((int)xa)};
    unsigned g1[3] = {ex_cdiv(xa, 256), 1, 1};
    TlStatus st = tl_launch_async(kscale, g1, sargs, 4);
    const char *gemm = "host GEMM";
    if (st == TL_SUCCESS && gpu && blas.handle) {
        /* Row-major C = A W is column-major C^T = W^T A^T. */
        const float one = 1, zero = 0;
        blas.setStream(blas.handle, stream);
        if (blas.sgemm(blas.handle, 0, 0, n, m, k, &one, (const float *)(uintptr_t)dw, n,
                       (const float *)(uintptr_t)da, k, &zero, (float *)(uintptr_t)dc, n))
            st = TL_ERROR_DEVICE;
        gemm = "cuBLAS SGEMM";
    } else if (st == TL_SUCCESS) {
        if (gpu) { /* no cuBLAS: through the host, after the stream's work */
            tl_context_synchronize(ctx);
            float *tmp = malloc(xa * 4), *out = malloc(cn * 4);
            cu.cuMemcpyDtoH(tmp, da, xa * 4);
            host_gemm(tmp, w, out, m, n, k);
            cu.cuMemcpyHtoD(dc, out, cn * 4);
            free(tmp), free(out);
        } else {
            host_gemm(ha, w, hc, m, n, k);
        }
    }
    TlArg bargs[] = {tl_arg_ptr(dc, TL_F32, cn), tl_arg_buffer(bbias), tl_arg_i32(m), tl_arg_i32(n)};
    unsigned g2[3] = {(unsigned)m, ex_cdiv((size_t)n, 64), 1};
    if (st == TL_SUCCESS)
        st = tl_launch_async(kbias, g2, bargs, 4);
    if (st == TL_SUCCESS)
        st = tl_context_synchronize(ctx); /* the one wait, for all three steps */
    char name[96];
    snprintf(name, sizeof name, "scale + %s + bias_relu %dx%dx%d", gemm, m, n, k);
    if (st != TL_SUCCESS) {
        ex_result(name, 0, "%s: %s", tl_status_name(st), tl_last_error(ctx));
    } else {
        if (gpu)
            cu.cuMemcpyDtoH(c, dc, cn * 4);
        else
            memcpy(c, hc, cn * 4);
        double got[1], ref[1];
        size_t bad = cn;
        for (size_t i = 0; i < cn && bad == cn; i++) {
            got[0] = c[i], ref[0] = want[i];
            if (fabs(got[0] - ref[0]) > 1e-4 + 1e-4 * fabs(ref[0]))
                bad = i;
        }
        ex_result(name, bad == cn, "c[%zu] = %g, want %g", bad, bad < cn ? c[bad] : 0, bad < cn ? want[bad] : 0);
    }
    if (gpu)
        cu.cuMemFree(dx), cu.cuMemFree(da), cu.cuMemFree(dw), cu.cuMemFree(dc);
    tl_buffer_destroy(bbias);
    free(x), free(w), free(bias), free(c), free(a), free(want), free(ha), free(hc);
}

int main(void) {
    /* The program's own CUDA setup, before tl is involved: its context is
     * current, its stream made. tl then adopts both. */
    void *stream = NULL;
    const char *interp = getenv("TL_INTERPRET");
    int want_gpu = !(interp && *interp && strcmp(interp, "0")) && open_cuda() && cu.cuInit(0) == 0;
    if (want_gpu) {
        void *c = NULL;
        want_gpu = cu.cuDevicePrimaryCtxRetain(&c, 0) == 0 && cu.cuCtxSetCurrent(c) == 0 &&
                   cu.cuStreamCreate(&stream, 1 /* CU_STREAM_NON_BLOCKING */) == 0;
    }
    TlContext *ctx = ex_context();
    int gpu = tl_context_device(ctx) == TL_DEVICE_CUDA && want_gpu;
    if (gpu) {
        void *current = NULL;
        cu.cuCtxGetCurrent(&current);
        ex_result("tl adopts the program's CUDA context", tl_context_cuda_context(ctx) == current, "%p vs %p",
                  tl_context_cuda_context(ctx), current);
        ex_check_status(ctx, tl_context_set_stream(ctx, stream), "tl_context_set_stream");
        if (!open_cublas())
            printf("(cuBLAS not found: set TL_CUBLAS to libcublas.so's path; the GEMM runs on the host)\n");
    }
    TlKernel *kscale = ex_kernel(ctx, "interop.tl", "--kernel scale -D BLOCK=256");
    TlKernel *kbias = ex_kernel(ctx, "interop.tl", "--kernel bias_relu -D BLOCK_N=64");
    int sizes[][3] = {{1, 1, 1}, {37, 53, 29}, {64, 65, 63}, {257, 131, 97}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        run(ctx, kscale, kbias, stream, gpu, sizes[i][0], sizes[i][1], sizes[i][2]);
    tl_kernel_destroy(kscale);
    tl_kernel_destroy(kbias);
    tl_context_destroy(ctx);
    if (stream)
        cu.cuStreamDestroy(stream);
    return ex_failures ? 1 : 0;
}
