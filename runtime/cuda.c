/* cuda.c: opening the CUDA driver with dlopen, and the PTX -> cubin link. */
#include "cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static CudaApi api;
static Buf open_err;
static bool opened;
static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Driver entry points, with the versioned names the headers map them to. */
#define CUDA_SYMBOLS(X)                                                                          \
    X(cuInit, "cuInit") X(cuDriverGetVersion, "cuDriverGetVersion")                              \
    X(cuDeviceGetCount, "cuDeviceGetCount") X(cuDeviceGet, "cuDeviceGet")                        \
    X(cuDeviceGetName, "cuDeviceGetName") X(cuDeviceGetAttribute, "cuDeviceGetAttribute")        \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain")                                      \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2")                                 \
    X(cuCtxSetCurrent, "cuCtxSetCurrent") X(cuCtxSynchronize, "cuCtxSynchronize")                \
    X(cuCtxGetCurrent, "cuCtxGetCurrent") X(cuCtxGetDevice, "cuCtxGetDevice")                    \
    X(cuStreamSynchronize, "cuStreamSynchronize")                                                \
    X(cuMemAlloc, "cuMemAlloc_v2") X(cuMemFree, "cuMemFree_v2")                                  \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2") X(cuMemcpyDtoH, "cuMemcpyDtoH_v2")                        \
    X(cuMemcpyDtoD, "cuMemcpyDtoD_v2") X(cuMemsetD8, "cuMemsetD8_v2")                            \
    X(cuModuleLoadData, "cuModuleLoadData") X(cuModuleLoadDataEx, "cuModuleLoadDataEx")          \
    X(cuModuleUnload, "cuModuleUnload") X(cuModuleGetFunction, "cuModuleGetFunction")            \
    X(cuFuncSetAttribute, "cuFuncSetAttribute") X(cuLaunchKernel, "cuLaunchKernel")              \
    X(cuFuncGetAttribute, "cuFuncGetAttribute")                                                  \
    X(cuLinkCreate, "cuLinkCreate_v2") X(cuLinkAddData, "cuLinkAddData_v2")                      \
    X(cuLinkComplete, "cuLinkComplete") X(cuLinkDestroy, "cuLinkDestroy")                        \
    X(cuEventCreate, "cuEventCreate") X(cuEventRecord, "cuEventRecord")                          \
    X(cuEventSynchronize, "cuEventSynchronize") X(cuEventElapsedTime, "cuEventElapsedTime_v2")   \
    X(cuEventDestroy, "cuEventDestroy_v2") X(cuGetErrorName, "cuGetErrorName")                   \
    X(cuGetErrorString, "cuGetErrorString")

/* dlsym by the versioned name; older drivers only have the plain one. */
static void *sym(void *lib, const char *name) {
    void *p = dlsym(lib, name);
    const char *v2 = strstr(name, "_v2");
    if (!p && v2) {
        char plain[64];
        snprintf(plain, sizeof plain, "%.*s", (int)(v2 - name), name);
        p = dlsym(lib, plain);
    }
    return p;
}

static void do_open(void) {
    const char *path = getenv("TL_LIBCUDA") ? getenv("TL_LIBCUDA") : "libcuda.so.1";
    api.lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!api.lib) {
        const char *e = dlerror();
        buf_printf(&open_err, "cannot load the CUDA driver (%s)", e ? e : path);
        return;
    }
#define X(field, name)                                            \
    if (!(*(void **)&api.field = sym(api.lib, name))) {           \
        buf_printf(&open_err, "the CUDA driver lacks %s", name);  \
        return;                                                   \
    }
    CUDA_SYMBOLS(X)
#undef X
    /* optional entry points: tl works without them */
    *(void **)&api.cuTensorMapEncodeTiled = dlsym(api.lib, "cuTensorMapEncodeTiled");
    *(void **)&api.cuPointerGetAttribute = dlsym(api.lib, "cuPointerGetAttribute");
    CUresult r = api.cuInit(0);
    if (r) {
        const char *name = "?", *str = "";
        api.cuGetErrorName(r, &name);
        api.cuGetErrorString(r, &str);
        buf_printf(&open_err, "cuInit failed: %s: %s", name, str);
        return;
    }
    int n = 0;
    if (api.cuDeviceGetCount(&n) || n == 0) {
        buf_printf(&open_err, "the CUDA driver found no GPU");
        return;
    }
    opened = true;
}

const CudaApi *cuda_open(Buf *err) {
    pthread_once(&once, do_open);
    if (!opened) {
        buf_puts(err, open_err.data ? open_err.data : "CUDA unavailable");
        return NULL;
    }
    return &api;
}

void cuda_describe(const CudaApi *cu, CUresult r, Buf *out) {
    const char *name = NULL, *str = NULL;
    if (cu) {
        cu->cuGetErrorName(r, &name);
        cu->cuGetErrorString(r, &str);
    }
    buf_printf(out, "%s: %s", name ? name : "CUDA_ERROR", str ? str : "unknown error");
}

CUresult cuda_link_ptx(const CudaApi *cu, const char *ptx, size_t ptx_len, void **cubin, size_t *cubin_len,
                       Buf *log) {
    char errlog[16384] = "";
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {errlog, (void *)(uintptr_t)sizeof errlog};
    CUlinkState st;
    CUresult r = cu->cuLinkCreate(2, opts, vals, &st);
    if (r)
        return r;
    /* The driver wants the PTX NUL-terminated and the size to include the NUL. */
    char *copy = malloc(ptx_len + 1);
    if (!copy) {
        cu->cuLinkDestroy(st);
        return 2; /* CUDA_ERROR_OUT_OF_MEMORY */
    }
    memcpy(copy, ptx, ptx_len);
    copy[ptx_len] = 0;
    r = cu->cuLinkAddData(st, CU_JIT_INPUT_PTX, copy, ptx_len + 1, "kernel.ptx", 0, NULL, NULL);
    void *out = NULL;
    size_t out_len = 0;
    if (!r)
        r = cu->cuLinkComplete(st, &out, &out_len);
    if (!r) {
        *cubin = malloc(out_len);
        if (*cubin) {
            memcpy(*cubin, out, out_len);
            *cubin_len = out_len;
        } else {
            r = 2;
        }
    }
    if (r && errlog[0])
        buf_printf(log, "%s\n", errlog);
    cu->cuLinkDestroy(st);
    free(copy);
    return r;
}
