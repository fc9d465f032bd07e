/* fakegpu_test.c: libtl's CUDA path without a GPU, on tests/fake_libcuda.c
 * (tests/fakegpu.sh runs it once per compute capability):
 *   fakegpu_test CC ARCH   the device is CC (87: 8.7); kernels compile for
 *                          ARCH, a host pointer is refused by name, device
 *                          memory is not, and a cache directory others can
 *                          write is not used (a note says so).
 *   fakegpu_test CC targets  kernels compiled for other arches: sm_70's PTX
 *                          loads (the driver compiles it for any newer
 *                          device); sm_100a, which only a 10.0 device runs,
 *                          compiles and is not loaded anywhere else, and its
 *                          launch is refused by name.
 *   fakegpu_test CC scratch  (a 9.0 device) a kernel making its tensor maps
 *                          (descriptors of loaded pointers) gets grid x 256
 *                          bytes of global scratch on the launch's stream as
 *                          its last parameter, given back after it, from
 *                          the context's own pool (one, keeping its memory,
 *                          destroyed with the context; the default pool
 *                          where the driver makes none); a driver without
 *                          stream-ordered memory fails the launch.
 *   fakegpu_test CC occupancy  a row kernel at 8 warps whose registers
 *                          ($FAKE_REGS, the fake's) limit its CTAs an SM
 *                          is capped where the fake reports no spills at
 *                          the cap, and only there (gpu.c raise_occupancy). */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tl.h"

static int failures;
static const char *label;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] fakegpu/cc%s/%s\n", ok ? "PASS" : "FAIL", label, name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static const char *copy_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
    "    offs = tl.program_id(0) * bs + tl.arange(0, bs)\n"
    "    mask = offs < n\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask), mask)\n";

typedef struct {
    int launches;
    unsigned grid[3];
    char target[32];
    void **params;
    unsigned long long async_ptr;
    size_t async_bytes;
    int async_frees;
    int pools, pools_destroyed;
    int pool_device, pool_allocs;
    unsigned long long pool_threshold;
} FakeRecord;

/* The copy kernel compiled with --arch `arch` on this device (cc): loaded
 * and launched where the device runs its PTX, else built and refused. */
static void other_target(FakeRecord *fake, int cc, const char *arch, bool runs) {
    TlContext *ctx;
    if (tl_context_create(TL_DEVICE_CUDA, &ctx) != TL_SUCCESS)
        return check("context", 0, tl_last_error(NULL));
    char opts[128], name[64], want[256];
    snprintf(opts, sizeof opts, "--signature '*fp32:16, *fp32:16, i32' -D bs=64 --arch %s", arch);
    fake->target[0] = 0;
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, copy_src, opts, &k);
    snprintf(name, sizeof name, "%s_compiles", arch);
    check(name, s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return tl_context_destroy(ctx);
    snprintf(name, sizeof name, runs ? "%s_loaded" : "%s_not_loaded", arch);
    check(name, runs ? !strcmp(fake->target, arch) : !fake->target[0], fake->target);
    TlBuffer *x, *z;
    tl_buffer_create(ctx, TL_F32, 100, &x);
    tl_buffer_create(ctx, TL_F32, 100, &z);
    unsigned grid[3] = {2, 1, 1};
    TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100)};
    int before = fake->launches;
    s = tl_launch(k, grid, args, 3);
    snprintf(want, sizeof want, "copy_k was compiled for %s, which Fake GPU (compute capability %d.%d) cannot run; "
             "compile it for this device's arch to launch it", arch, cc / 10, cc % 10);
    snprintf(name, sizeof name, runs ? "%s_launches" : "%s_launch_refused", arch);
    if (runs)
        check(name, s == TL_SUCCESS && fake->launches == before + 1, tl_last_error(ctx));
    else
        check(name, s == TL_ERROR_LAUNCH && !strcmp(tl_last_error(ctx), want) && fake->launches == before,
              tl_last_error(ctx));
    TlKernelResources res;
    s = tl_kernel_resources(k, &res);
    snprintf(name, sizeof name, "%s_resources", arch);
    check(name, runs ? s == TL_SUCCESS : s == TL_ERROR_INVALID_ARGUMENT && strstr(tl_last_error(ctx), "not loaded"),
          tl_last_error(ctx));
    tl_buffer_destroy(x);
    tl_buffer_destroy(z);
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
}

static const char *rms_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def rms_k(y_ptr, x_ptr, w_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    w = tl.load(w_ptr + offs, mask=mask, other=0.0)\n"
    "    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=mask, other=0.0)\n"
    "    r = tl.rsqrt(tl.sum(x * x, axis=0) / n + 1e-6)\n"
    "    tl.store(y_ptr + tl.program_id(0) * n + offs, x * r * w, mask=mask)\n";

/* The same statistics with nothing read only after them: no load to sink. */
static const char *sum_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def sum_k(y_ptr, x_ptr, w_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + tl.program_id(0) * n + offs, mask=mask, other=0.0)\n"
    "    x = x * tl.load(w_ptr + offs, mask=mask, other=0.0)\n"
    "    r = tl.rsqrt(tl.sum(x * x, axis=0) / n + 1e-6)\n"
    "    tl.store(y_ptr + tl.program_id(0) * n + offs, x * r, mask=mask)\n";

/* An elementwise kernel: no reduction. */
static const char *scale_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def scale_k(y_ptr, x_ptr, w_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n"
    "    tl.store(y_ptr + offs, x * tl.load(w_ptr + offs, mask=mask, other=0.0), mask=mask)\n";

/* src (rms_k unless given) compiled with the fake's registers `regs` (its
 * local memory at a cap: capped_local; TL_OCCUPANCY: occ, NULL unset): the
 * registers the kernel reports and whether its log has the cap's note
 * (want_note: the note expected, or NULL for none). */
static void occupancy_case(const char *name, const char *src, const char *regs, const char *capped_local,
                           const char *occ, const char *opts, int want_regs, const char *want_note) {
    setenv("FAKE_REGS", regs, 1);
    if (capped_local)
        setenv("FAKE_CAPPED_LOCAL", capped_local, 1);
    else
        unsetenv("FAKE_CAPPED_LOCAL");
    if (occ)
        setenv("TL_OCCUPANCY", occ, 1);
    else
        unsetenv("TL_OCCUPANCY");
    TlContext *ctx;
    if (tl_context_create(TL_DEVICE_CUDA, &ctx) != TL_SUCCESS)
        return check(name, 0, tl_last_error(NULL));
    TlKernel *k;
    TlStatus s = tl_kernel_from_string(ctx, src ? src : rms_src, opts, &k);
    if (s != TL_SUCCESS) {
        check(name, 0, tl_last_error(ctx));
        return tl_context_destroy(ctx);
    }
    TlKernelResources res = {-1, -1, -1, -1};
    s = tl_kernel_resources(k, &res);
    const char *log = tl_kernel_log(k);
    bool noted = strstr(log, "registers capped") != NULL;
    char got[1024];
    snprintf(got, sizeof got, "registers %d, spills %d, threads %d, log: %s", res.registers, res.spill_bytes,
             res.threads, log);
    check(name, s == TL_SUCCESS && res.registers == want_regs && res.spill_bytes == 0 && res.threads == 256 &&
                    (want_note ? strstr(log, want_note) != NULL : !noted),
          got);
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
}

static void occupancy(void) {
    const char *opts = "--signature '*fp32:16, *fp32:16, *fp32:16, i32' -D BLOCK=4096 --num-warps 8";
    const char *note = "note: rms_k: registers capped at 40 a thread (48 uncapped) for 6 CTAs an SM instead of 5, "
                       "local memory 0 bytes (0 uncapped) (TL_OCCUPANCY=0: no cap)\n";
    occupancy_case("occupancy_capped", NULL, "48", NULL, NULL, opts, 40, note);
    occupancy_case("occupancy_spills_kept_uncapped", NULL, "48", "16", NULL, opts, 48, NULL);
    occupancy_case("occupancy_off", NULL, "48", NULL, "0", opts, 48, NULL);
    /* 32 registers at 8 warps: 8 CTAs an SM, as many as its threads allow */
    occupancy_case("occupancy_threads_limit", NULL, "32", NULL, NULL, opts, 32, NULL);
    /* a user's cap is theirs (the fake reports it as the registers) */
    char capped[160];
    snprintf(capped, sizeof capped, "%s --maxnreg 56", opts);
    occupancy_case("occupancy_user_cap", NULL, "48", NULL, NULL, capped, 56, NULL);
    /* no load the sink pass moves, no reduction: a cap alone is no gain */
    occupancy_case("occupancy_nothing_sunk", sum_src, "48", NULL, NULL, opts, 48, NULL);
    occupancy_case("occupancy_no_reduction", scale_src, "48", NULL, NULL, opts, 48, NULL);
}

static const char *maps_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def g(ptrs, cs, sizes, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    M = tl.load(sizes)\n"
    "    N = tl.load(sizes + 1)\n"
    "    K = tl.load(sizes + 2)\n"
    "    a = tl.load(ptrs).to(tl.pointer_type(tl.float16))\n"
    "    b = tl.load(ptrs + 1).to(tl.pointer_type(tl.float16))\n"
    "    a_desc = tl.make_tensor_descriptor(a, shape=[M, K], strides=[K, 1], block_shape=[BM, BK])\n"
    "    b_desc = tl.make_tensor_descriptor(b, shape=[N, K], strides=[K, 1], block_shape=[BN, BK])\n"
    "    om = tl.program_id(0) * BM\n"
    "    on = tl.program_id(1) * BN\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for kk in range(0, tl.cdiv(K, BK)):\n"
    "        acc += tl.dot(a_desc.load([om, kk * BK]), b_desc.load([on, kk * BK]).T)\n"
    "    c = tl.load(cs).to(tl.pointer_type(tl.float32))\n"
    "    rm = om + tl.arange(0, BM)\n"
    "    rn = on + tl.arange(0, BN)\n"
    "    tl.store(c + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n";

/* The maps kernel's arguments (the fake runs nothing: their contents do not matter). */
static void maps_args(TlContext *ctx, TlBuffer *b[3], TlArg args[3]) {
    tl_buffer_create(ctx, TL_I64, 2, &b[0]);
    tl_buffer_create(ctx, TL_I64, 1, &b[1]);
    tl_buffer_create(ctx, TL_I32, 3, &b[2]);
    for (int i = 0; i < 3; i++)
        args[i] = tl_arg_buffer(b[i]);
}

/* The maps kernel's launches: its scratch (two maps, 256 bytes a program),
 * and the error where the driver has no stream-ordered memory. */
static void scratch(FakeRecord *fake) {
    TlContext *ctx;
    TlStatus s = tl_context_create(TL_DEVICE_CUDA, &ctx);
    check("scratch_context", s == TL_SUCCESS, tl_last_error(NULL));
    if (s != TL_SUCCESS)
        return;
    TlKernel *k;
    s = tl_kernel_from_string(ctx, maps_src, "-D BM=128 -D BN=128 -D BK=64 --num-stages 3", &k);
    check("scratch_compile", s == TL_SUCCESS, tl_last_error(ctx));
    TlBuffer *b[3];
    TlArg args[3];
    maps_args(ctx, b, args);
    unsigned grid[3] = {3, 2, 1};
    s = k ? tl_launch(k, grid, args, 3) : TL_ERROR_COMPILE;
    bool passed = s == TL_SUCCESS && fake->launches == 1 && fake->async_bytes == 3 * 2 * 256 &&
                  fake->async_frees == 1 && fake->params && *(unsigned long long *)fake->params[3] == fake->async_ptr;
    char got[256];
    snprintf(got, sizeof got, "%s: launches %d, %zu bytes, freed %d", tl_last_error(ctx), fake->launches,
             fake->async_bytes, fake->async_frees);
    check("scratch_per_program", passed, got);
    /* from the context's own pool, which keeps its memory: one pool for
     * every launch, destroyed with the context */
    s = k ? tl_launch(k, grid, args, 3) : TL_ERROR_COMPILE;
    snprintf(got, sizeof got, "%s: pools %d on device %d, threshold %llu, %d allocations", tl_last_error(ctx),
             fake->pools, fake->pool_device, fake->pool_threshold, fake->pool_allocs);
    check("scratch_pool", s == TL_SUCCESS && fake->pools == 1 && fake->pool_device == 0 &&
          fake->pool_threshold == ~0ull && fake->pool_allocs == 2 && fake->async_frees == 2, got);
    setenv("FAKE_NO_ASYNC", "1", 1);
    s = k ? tl_launch(k, grid, args, 3) : TL_ERROR_COMPILE;
    unsetenv("FAKE_NO_ASYNC");
    check("scratch_refused", s != TL_SUCCESS && fake->launches == 2 &&
          strstr(tl_last_error(ctx), "cuMemAllocFromPoolAsync (the kernel's global scratch)") != NULL,
          tl_last_error(ctx));
    for (int i = 0; i < 3; i++)
        tl_buffer_destroy(b[i]);
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
    check("scratch_pool_destroyed", fake->pools_destroyed == 1, NULL);
}

/* A driver that makes no pool: the default one, cuMemAllocAsync. */
static void scratch_no_pool(FakeRecord *fake) {
    setenv("FAKE_NO_POOL", "1", 1);
    TlContext *ctx;
    TlKernel *k = NULL;
    if (tl_context_create(TL_DEVICE_CUDA, &ctx) == TL_SUCCESS &&
        tl_kernel_from_string(ctx, maps_src, "-D BM=128 -D BN=128 -D BK=64 --num-stages 3", &k) == TL_SUCCESS) {
        TlBuffer *b[3];
        TlArg args[3];
        maps_args(ctx, b, args);
        unsigned grid[3] = {5, 1, 1};
        int pools = fake->pools, allocs = fake->pool_allocs;
        TlStatus s = tl_launch(k, grid, args, 3);
        check("scratch_default_pool", s == TL_SUCCESS && fake->pools == pools && fake->pool_allocs == allocs &&
              fake->async_bytes == 5 * 256, tl_last_error(ctx));
        setenv("FAKE_NO_ASYNC", "1", 1);
        s = tl_launch(k, grid, args, 3);
        unsetenv("FAKE_NO_ASYNC");
        check("scratch_default_refused", s != TL_SUCCESS &&
              strstr(tl_last_error(ctx), "cuMemAllocAsync (the kernel's global scratch)") != NULL, tl_last_error(ctx));
        for (int i = 0; i < 3; i++)
            tl_buffer_destroy(b[i]);
        tl_kernel_destroy(k);
        tl_context_destroy(ctx);
    } else {
        check("scratch_default_pool", false, tl_last_error(NULL));
    }
    unsetenv("FAKE_NO_POOL");
}

int main(int argc, char **argv) {
    if (argc != 3)
        return 2;
    label = argv[1];
    FakeRecord *fake = dlsym(dlopen(getenv("TL_LIBCUDA"), RTLD_NOW), "fake");
    if (fake && !strcmp(argv[2], "targets")) {
        int cc = atoi(argv[1]);
        other_target(fake, cc, "sm_70", true);
        other_target(fake, cc, "sm_100a", cc == 100);
        return failures != 0;
    }
    if (fake && !strcmp(argv[2], "scratch")) {
        setenv("TL_ALWAYS_COMPILE", "1", 1);
        scratch(fake);
        scratch_no_pool(fake);
        return failures != 0;
    }
    if (fake && !strcmp(argv[2], "occupancy")) {
        setenv("TL_ALWAYS_COMPILE", "1", 1);
        occupancy();
        return failures != 0;
    }
    char dir[] = "/tmp/tl-fakegpu-XXXXXX";
    if (!fake || !mkdtemp(dir))
        return 2;
    chmod(dir, 0777); /* a directory anyone can write: no cache */
    setenv("TL_CACHE_DIR", dir, 1);
    unsetenv("TL_INTERPRET");
    TlContext *ctx;
    TlStatus s = tl_context_create(TL_DEVICE_CUDA, &ctx);
    check("context", s == TL_SUCCESS, tl_last_error(NULL));
    if (s != TL_SUCCESS)
        return 1;
    TlKernel *k;
    s = tl_kernel_from_string(ctx, copy_src, "--signature '*fp32:16, *fp32:16, i32' -D bs=64", &k);
    check("compile", s == TL_SUCCESS, tl_last_error(ctx));
    if (s != TL_SUCCESS)
        return 1;
    check("arch", !strcmp(fake->target, argv[2]), fake->target);
    /* the driver's registers and local memory (the fake's 40 and 24), the
     * compiled kernel's threads and shared memory (a copy: none) */
    TlKernelResources res = {-1, -1, -1, -1};
    s = tl_kernel_resources(k, &res);
    char got[128];
    snprintf(got, sizeof got, "%d %d %d %d", res.registers, res.spill_bytes, res.shared_bytes, res.threads);
    check("resources", s == TL_SUCCESS && !strcmp(got, "40 24 0 128"), got);
    char note[512];
    snprintf(note, sizeof note, "note: the disk cache is off: '%s' is writable by other users (chmod go-w, or a "
             "TL_CACHE_DIR of your own)\n", dir);
    check("cache_dir_refused_note", strstr(tl_kernel_log(k), note) != NULL, tl_kernel_log(k));

    TlBuffer *x;
    tl_buffer_create(ctx, TL_F32, 100, &x);
    float *host = calloc(128, sizeof(float));
    unsigned grid[3] = {2, 1, 1};
    TlArg args[] = {tl_arg_buffer(x), tl_arg_ptr((uint64_t)(uintptr_t)host, TL_F32, 100), tl_arg_i32(100)};
    s = tl_launch(k, grid, args, 3);
    char want[256];
    snprintf(want, sizeof want, "copy_k: argument 2 ('z_ptr'): %p is not memory the GPU can reach (the CUDA driver "
             "does not know it: a host pointer?)", (void *)host);
    check("host_pointer_refused", s == TL_ERROR_LAUNCH && !strcmp(tl_last_error(ctx), want) && fake->launches == 0,
          tl_last_error(ctx));
    TlBuffer *z;
    tl_buffer_create(ctx, TL_F32, 100, &z);
    args[1] = tl_arg_ptr(tl_buffer_device_ptr(z), TL_F32, 100);
    s = tl_launch(k, grid, args, 3);
    check("device_pointer_accepted", s == TL_SUCCESS && fake->launches == 1 && fake->grid[0] == 2, tl_last_error(ctx));
    tl_buffer_destroy(x);
    tl_buffer_destroy(z);
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
    free(host);
    rmdir(dir);
    return failures != 0;
}
