/* cuda.c: opening the CUDA driver with dlopen, and running ptxas (PTX -> cubin). */
#include "cuda.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

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
    *(void **)&api.cuOccupancyMaxActiveBlocksPerMultiprocessor =
        dlsym(api.lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor");
    *(void **)&api.cuMemAllocAsync = dlsym(api.lib, "cuMemAllocAsync");
    *(void **)&api.cuMemFreeAsync = dlsym(api.lib, "cuMemFreeAsync");
    *(void **)&api.cuMemPoolCreate = dlsym(api.lib, "cuMemPoolCreate");
    *(void **)&api.cuMemPoolDestroy = dlsym(api.lib, "cuMemPoolDestroy");
    *(void **)&api.cuMemPoolSetAttribute = dlsym(api.lib, "cuMemPoolSetAttribute");
    *(void **)&api.cuMemAllocFromPoolAsync = dlsym(api.lib, "cuMemAllocFromPoolAsync");
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

bool cuda_find_ptxas(Buf *path) {
    const char *env = getenv("TL_PTXAS");
    path->len = 0;
    if (env && !strcmp(env, "none"))
        return false;
    if (env && *env) {
        buf_puts(path, env);
        return true;
    }
    const char *p = getenv("PATH");
    while (p && *p) {
        size_t n = strcspn(p, ":");
        path->len = 0;
        buf_printf(path, "%.*s/ptxas", (int)n, n ? p : ".");
        struct stat st;
        if (!stat(path->data, &st) && S_ISREG(st.st_mode) && !access(path->data, X_OK))
            return true;
        p += n + (p[n] == ':');
    }
    return false;
}

static bool put_file(const char *path, const char *data, size_t len) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(data, 1, len, f) == len;
    return f && !fclose(f) && ok;
}

/* Appends the file at path to out (util.c's read_file); false if unreadable. */
static bool get_file(const char *path, Buf *out) {
    size_t len;
    char *data = read_file(path, &len);
    if (data)
        buf_putn(out, data, len);
    free(data);
    return data != NULL;
}

/* posix_spawn, not fork: the host may be a large multithreaded process
 * (PyTorch); its stdout and stderr go to a file read back into log. */
static PtxasResult spawn_ptxas(const char *ptxas, char **argv, const char *logpath, Buf *log) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, logpath, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    pid_t pid;
    extern char **environ;
    int e = posix_spawn(&pid, ptxas, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (e) {
        buf_printf(log, "cannot run ptxas '%s': %s\n", ptxas, strerror(e));
        return PTXAS_CANNOT_RUN;
    }
    int status = 0;
    pid_t w;
    while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ;
    get_file(logpath, log);
    if (w < 0) {
        buf_printf(log, "cannot run ptxas '%s': %s\n", ptxas, strerror(errno));
        return PTXAS_CANNOT_RUN;
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
        buf_printf(log, "cannot run ptxas '%s'\n", ptxas);
        return PTXAS_CANNOT_RUN;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status)) {
        buf_printf(log, "ptxas '%s' rejected the PTX for %s (%s %d): a bug in tl, or a ptxas older than the PTX it "
                        "emits\n",
                   ptxas, argv[1] + strlen("-arch="), WIFEXITED(status) ? "exit status" : "signal",
                   WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
        return PTXAS_REJECTED;
    }
    return PTXAS_OK;
}

PtxasResult cuda_run_ptxas(const char *ptxas, const char *arch, bool lineinfo, const char *ptx, size_t ptx_len,
                           Buf *cubin, Buf *log) {
    const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
    Buf dir = {0}, in = {0}, out = {0}, lg = {0}, flag = {0};
    buf_printf(&dir, "%s/tl-ptxas-XXXXXX", tmp);
    if (!dir.data || !mkdtemp(dir.data)) {
        buf_printf(log, "cannot make a temporary directory in '%s' for ptxas: %s\n", tmp, strerror(errno));
        buf_free(&dir);
        return PTXAS_CANNOT_RUN;
    }
    buf_printf(&in, "%s/kernel.ptx", dir.data);
    buf_printf(&out, "%s/kernel.cubin", dir.data);
    buf_printf(&lg, "%s/ptxas.log", dir.data);
    buf_printf(&flag, "-arch=%s", arch);
    PtxasResult r = PTXAS_CANNOT_RUN;
    if (!put_file(in.data, ptx, ptx_len)) {
        buf_printf(log, "cannot write '%s' for ptxas: %s\n", in.data, strerror(errno));
    } else {
        char *argv[7], **a = argv;
        *a++ = (char *)ptxas, *a++ = flag.data;
        if (lineinfo)
            *a++ = "-lineinfo";
        *a++ = "-o", *a++ = out.data, *a++ = in.data, *a = NULL;
        r = spawn_ptxas(ptxas, argv, lg.data, log);
        size_t before = cubin->len;
        if (r == PTXAS_OK && (!get_file(out.data, cubin) || cubin->len == before)) {
            buf_printf(log, "ptxas '%s' wrote no '%s'\n", ptxas, out.data);
            r = PTXAS_REJECTED;
        }
    }
    unlink(in.data), unlink(out.data), unlink(lg.data), rmdir(dir.data);
    buf_free(&dir), buf_free(&in), buf_free(&out), buf_free(&lg), buf_free(&flag);
    return r;
}
