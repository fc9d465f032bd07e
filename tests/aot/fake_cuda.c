/* fake_cuda.c: a stand-in libcuda.so.1 for tests/aot/host.c on machines
 * without a GPU (TL_LIBCUDA points the generated launchers at it). It has
 * the entry points an AOT file loads, a device whose compute capability is
 * $FAKE_CC (default 90), and it records what the launcher asked for in
 * `fake`, which the test reads through dlsym. No kernel runs. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct FakeRecord {
    int inits, loads, launches, set_attrs;
    const char *image;          /* the last image cuModuleLoadData got */
    char function[128];         /* the last name cuModuleGetFunction was asked for */
    int attr, attr_value;       /* the last cuFuncSetAttribute */
    unsigned grid[3], block[3], shared;
    void *stream, *function_handle;
    int param_sizes[32];        /* set by the test: bytes of each kernel parameter */
    unsigned char params[32][8]; /* the bytes of each parameter at the last launch */
    int fail_launch;            /* if nonzero: cuLaunchKernel returns it */
} FakeRecord;

FakeRecord fake;

static __thread void *current; /* the context current on this thread */
static int primary;            /* the primary context's storage */
int fake_other_context;        /* a context the test can make current */

static int cc(void) { return getenv("FAKE_CC") ? atoi(getenv("FAKE_CC")) : 90; }

int cuInit(unsigned flags) { (void)flags; fake.inits++; return 0; }
int cuDeviceGet(int *dev, int ordinal) { *dev = ordinal; return ordinal == 0 ? 0 : 101; }
int cuDeviceGetAttribute(int *v, int attr, int dev) {
    (void)dev;
    if (attr == 75) *v = cc() / 10;
    else if (attr == 76) *v = cc() % 10;
    else return 1;
    return 0;
}
int cuDevicePrimaryCtxRetain(void **ctx, int dev) { (void)dev; *ctx = &primary; return 0; }
int cuCtxGetCurrent(void **ctx) { *ctx = current; return 0; }
int cuCtxSetCurrent(void *ctx) { current = ctx; return 0; }
int cuCtxGetDevice(int *dev) { *dev = 0; return current ? 0 : 201; }
int cuModuleLoadData(void **mod, const void *image) {
    fake.loads++;
    fake.image = image;
    *mod = (void *)image;
    return 0;
}
int cuModuleGetFunction(void **fn, void *mod, const char *name) {
    (void)mod;
    strncpy(fake.function, name, sizeof fake.function - 1);
    *fn = fake.function;
    return 0;
}
int cuFuncSetAttribute(void *fn, int attr, int value) {
    (void)fn;
    fake.set_attrs++;
    fake.attr = attr, fake.attr_value = value;
    return 0;
}
int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                   unsigned shared, void *stream, void **params, void **extra) {
    (void)extra;
    if (fake.fail_launch)
        return fake.fail_launch;
    fake.launches++;
    fake.function_handle = f;
    fake.grid[0] = gx, fake.grid[1] = gy, fake.grid[2] = gz;
    fake.block[0] = bx, fake.block[1] = by, fake.block[2] = bz;
    fake.shared = shared;
    fake.stream = stream;
    for (int i = 0; i < 32 && fake.param_sizes[i]; i++) {
        memset(fake.params[i], 0, 8);
        memcpy(fake.params[i], params[i], (size_t)fake.param_sizes[i]);
    }
    return 0;
}
int cuGetErrorString(int r, const char **s) {
    *s = r == 700 ? "an illegal memory access was encountered" : "fake error";
    return 0;
}
