/* fake_libcuda.c: a stand-in libcuda.so.1 for libtl on machines without a
 * GPU (TL_LIBCUDA points libtl at it; tests/fakegpu.sh builds it). It has
 * every entry point runtime/cuda.c loads, one device whose compute
 * capability is $FAKE_CC (87 is 8.7, 120 is 12.0; default 90), memory that
 * is host memory the fake remembers (cuPointerGetAttribute knows nothing
 * else, as the real driver knows no plain host pointer), a linker that
 * keeps the PTX it was given, and launches that run nothing. The test
 * reads `fake` through dlsym. */
#include <stdlib.h>
#include <string.h>

typedef unsigned long long CUdeviceptr;

struct {
    int launches;
    unsigned grid[3];
    char target[32];    /* the .target of the last PTX linked */
    void **params;      /* the last launch's parameters */
    CUdeviceptr async_ptr; /* the last cuMemAllocAsync's memory and size, and */
    size_t async_bytes;    /* the cuMemFreeAsync calls that gave it back */
    int async_frees;
    int pools, pools_destroyed; /* cuMemPoolCreate / Destroy calls */
    int pool_device, pool_allocs;  /* the last pool's device; allocations from it */
    unsigned long long pool_threshold; /* its CU_MEMPOOL_ATTR_RELEASE_THRESHOLD */
} fake;

static int primary, current_set;
static void *current;
static struct { CUdeviceptr p; size_t n; } allocs[4096];

static int cc(void) { return getenv("FAKE_CC") ? atoi(getenv("FAKE_CC")) : 90; }

int cuInit(unsigned f) { (void)f; return 0; }
int cuDriverGetVersion(int *v) { *v = 12040; return 0; }
int cuDeviceGetCount(int *n) { *n = 1; return 0; }
int cuDeviceGet(int *d, int i) { *d = i; return i == 0 ? 0 : 101; }
int cuDeviceGetName(char *name, int n, int d) { (void)d; strncpy(name, "Fake GPU", (size_t)n); return 0; }
int cuDeviceGetAttribute(int *v, int attr, int d) {
    (void)d;
    switch (attr) {
    case 75: *v = cc() / 10; break;
    case 76: *v = cc() % 10; break;
    case 97: *v = 232448; break;
    case 16: *v = 132; break;
    case 39: *v = 2048; break;
    case 82: *v = 65536; break;
    case 5: *v = 2147483647; break;
    case 6: case 7: *v = 65535; break;
    default: *v = 1024; break;
    }
    return 0;
}
int cuDevicePrimaryCtxRetain(void **c, int d) { (void)d; *c = &primary; return 0; }
int cuDevicePrimaryCtxRelease_v2(int d) { (void)d; return 0; }
int cuCtxSetCurrent(void *c) { current = c; current_set = 1; return 0; }
int cuCtxGetCurrent(void **c) { *c = current; return 0; }
int cuCtxGetDevice(int *d) { *d = 0; return current ? 0 : 201; }
int cuCtxSynchronize(void) { return 0; }
int cuStreamSynchronize(void *s) { (void)s; return 0; }

int cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    for (int i = 0; i < 4096; i++)
        if (!allocs[i].p) {
            void *m = aligned_alloc(256, (n + 255) & ~(size_t)255);
            if (!m)
                return 2;
            allocs[i].p = *p = (CUdeviceptr)m, allocs[i].n = n;
            return 0;
        }
    return 2;
}
int cuMemFree_v2(CUdeviceptr p) {
    for (int i = 0; i < 4096; i++)
        if (allocs[i].p == p) {
            free((void *)p);
            allocs[i].p = 0;
            return 0;
        }
    return 1;
}
/* stream-ordered memory: as cuMemAlloc here (FAKE_NO_ASYNC=1: a driver
 * that cannot, CUDA_ERROR_NOT_SUPPORTED) */
int cuMemAllocAsync(CUdeviceptr *p, size_t n, void *s) {
    (void)s;
    if (getenv("FAKE_NO_ASYNC"))
        return 801;
    int r = cuMemAlloc_v2(p, n);
    fake.async_ptr = r ? 0 : *p, fake.async_bytes = n;
    return r;
}
/* a pool (FAKE_NO_POOL=1: a driver that cannot make one): its allocations
 * are cuMemAllocAsync's, counted */
static int the_pool;
int cuMemPoolCreate(void **pool, const int *props) {
    if (getenv("FAKE_NO_POOL"))
        return 801;
    fake.pools++;
    fake.pool_device = props[0] == 1 && props[2] == 1 ? props[3] : -1; /* pinned, on a device: its ordinal */
    *pool = &the_pool;
    return 0;
}
int cuMemPoolDestroy(void *pool) {
    fake.pools_destroyed += pool == &the_pool;
    return pool == &the_pool ? 0 : 1;
}
int cuMemPoolSetAttribute(void *pool, int attr, void *v) {
    if (pool != &the_pool)
        return 1;
    if (attr == 4)
        fake.pool_threshold = *(unsigned long long *)v;
    return 0;
}
int cuMemAllocFromPoolAsync(CUdeviceptr *p, size_t n, void *pool, void *s) {
    if (pool != &the_pool)
        return 1;
    int r = cuMemAllocAsync(p, n, s);
    fake.pool_allocs += r == 0;
    return r;
}
int cuMemFreeAsync(CUdeviceptr p, void *s) {
    (void)s;
    fake.async_frees += p == fake.async_ptr;
    return cuMemFree_v2(p);
}
int cuMemcpyHtoD_v2(CUdeviceptr d, const void *h, size_t n) { memcpy((void *)d, h, n); return 0; }
int cuMemcpyDtoH_v2(void *h, CUdeviceptr d, size_t n) { memcpy(h, (void *)d, n); return 0; }
int cuMemcpyDtoD_v2(CUdeviceptr a, CUdeviceptr b, size_t n) { memmove((void *)a, (void *)b, n); return 0; }
int cuMemsetD8_v2(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)d, v, n); return 0; }
int cuPointerGetAttribute(void *data, int attr, CUdeviceptr p) {
    (void)attr;
    for (int i = 0; i < 4096; i++)
        if (allocs[i].p && p >= allocs[i].p && p < allocs[i].p + allocs[i].n) {
            *(CUdeviceptr *)data = p;
            return 0;
        }
    return 1; /* CUDA_ERROR_INVALID_VALUE: not the driver's */
}

static const char cubin[] = "fake cubin";
int cuLinkCreate_v2(unsigned n, int *o, void **v, void **st) { (void)n, (void)o, (void)v; *st = &fake; return 0; }
/* Records the .target of PTX text (NUL-terminated, as the driver wants it). */
static void record_target(const char *ptx) {
    const char *t = strstr(ptx, ".target ");
    fake.target[0] = 0;
    if (t)
        for (int i = 0; i < 31 && t[8 + i] && t[8 + i] != '\n' && t[8 + i] != ','; i++)
            fake.target[i] = t[8 + i], fake.target[i + 1] = 0;
}
int cuLinkAddData_v2(void *st, int type, void *data, size_t n, const char *name, unsigned no, int *o, void **v) {
    (void)st, (void)type, (void)n, (void)name, (void)no, (void)o, (void)v;
    record_target(data);
    return 0;
}
int cuLinkComplete(void *st, void **out, size_t *n) { (void)st; *out = (void *)cubin; *n = sizeof cubin; return 0; }
int cuLinkDestroy(void *st) { (void)st; return 0; }
int cuModuleLoadData(void **m, const void *img) { *m = (void *)img; return 0; }
/* The image is the library's PTX (no ptxas here) or a fake ptxas' "cubin"
 * (tests/aot/fake_ptxas.sh with FAKE_PTXAS_NUL: a first line, the PTX, a
 * NUL): its .target is the arch the library chose. */
int cuModuleLoadDataEx(void **m, const void *img, unsigned n, int *o, void **v) {
    (void)n, (void)o, (void)v;
    record_target(img);
    *m = (void *)img;
    return 0;
}
int cuModuleUnload(void *m) { (void)m; return 0; }
/* A function's registers and local memory a thread: 40 and 24; with
 * $FAKE_REGS, that many registers and no local memory, or where the image
 * caps them (.maxnreg N), N registers and $FAKE_CAPPED_LOCAL bytes (0). The
 * image may be gone once loaded: the numbers are taken here. */
struct FakeFn { int regs, local; };
int cuModuleGetFunction(void **f, void *m, const char *name) {
    (void)name;
    static struct FakeFn fns[4096];
    static int nfns;
    if (nfns == 4096)
        return 2;
    struct FakeFn *fn = &fns[nfns++];
    const char *cap = strstr((const char *)m, ".maxnreg ");
    fn->regs = 40, fn->local = 24;
    if (getenv("FAKE_REGS")) {
        fn->regs = cap ? atoi(cap + 9) : atoi(getenv("FAKE_REGS"));
        fn->local = cap && getenv("FAKE_CAPPED_LOCAL") ? atoi(getenv("FAKE_CAPPED_LOCAL")) : 0;
    }
    *f = fn;
    return 0;
}
int cuFuncSetAttribute(void *f, int a, int v) { (void)f, (void)a, (void)v; return 0; }
int cuFuncGetAttribute(int *v, int a, void *f) {
    const struct FakeFn *fn = f;
    *v = a == 4 ? fn->regs : a == 3 ? fn->local : 0;
    return 0;
}
/* Only with $FAKE_REGS (else CUDA_ERROR_NOT_SUPPORTED): CTAs an SM by
 * registers (256 a warp at a time, 65536) and threads (2048). */
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int *n, void *f, int threads, size_t shared) {
    (void)shared;
    const struct FakeFn *fn = f;
    if (!getenv("FAKE_REGS") || threads < 32)
        return 801;
    int warps = threads / 32, by_regs = 65536 / ((fn->regs + 7) / 8 * 8 * 32) / warps;
    *n = by_regs < 2048 / threads ? by_regs : 2048 / threads;
    return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned sh, void *s, void **p, void **e) {
    (void)f, (void)bx, (void)by, (void)bz, (void)sh, (void)s, (void)e;
    fake.launches++;
    fake.params = p;
    fake.grid[0] = gx, fake.grid[1] = gy, fake.grid[2] = gz;
    return 0;
}
static int ev;
int cuEventCreate(void **e, unsigned f) { (void)f; *e = &ev; return 0; }
int cuEventRecord(void *e, void *s) { (void)e, (void)s; return 0; }
int cuEventSynchronize(void *e) { (void)e; return 0; }
int cuEventElapsedTime_v2(float *ms, void *a, void *b) { (void)a, (void)b; *ms = 1.0f; return 0; }
int cuEventDestroy_v2(void *e) { (void)e; return 0; }
int cuGetErrorName(int r, const char **s) { *s = r == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE"; return 0; }
int cuGetErrorString(int r, const char **s) { (void)r; *s = "fake error"; return 0; }
