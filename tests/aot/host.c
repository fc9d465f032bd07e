/* host.c: a program built against tlc --emit=c output (tests/aot.sh), on a
 * machine without a GPU.
 *
 *   host nodriver            TL_LIBCUDA names no library: every launch says
 *                            "no CUDA driver", nothing crashes
 *   host fake ARCH [LABEL]   TL_LIBCUDA is tests/aot/fake_cuda.c and FAKE_CC
 *                            the device: the launchers pick the image for ARCH
 *                            (or none: "none") and pass what the kernel needs
 *
 * Links copy.c (copy_k for sm_80,sm_90), scalars.c and mm.c (sm_90). The
 * expected specialisation of each launch is worked out here from the
 * arguments, independently of the generated selection code. */
#include <dlfcn.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy.h"
#include "mm.h"
#include "scalars.h"

static int failures;
static const char *label = "";

#define CHECK(name, cond, ...)                             \
    do {                                                   \
        if (cond) {                                        \
            printf("[PASS] aot/%s%s\n", label, name);      \
        } else {                                           \
            printf("[FAIL] aot/%s%s\n    ", label, name);  \
            printf(__VA_ARGS__);                           \
            printf("\n");                                  \
            failures++;                                    \
        }                                                  \
    } while (0)

/* Does image im mention text (PTX: ".target sm_90"; the fake ptxas' cubin:
 * "-arch=sm_90")? Cubins have no NUL at the end, so search by size. */
static bool mentions(const TlAotImage *im, const char *text) {
    size_t n = strlen(text);
    for (size_t i = 0; i + n <= im->size; i++)
        if (!memcmp((const char *)im->data + i, text, n))
            return true;
    return false;
}

/* What Triton's key says for one argument. */
static const char *ptr_sig(uint64_t p) { return p % 16 ? "*fp32" : "*fp32:16"; }
static const char *int_sig(int32_t n) { return n == 1 ? "i32:1" : n % 16 ? "i32" : "i32:16"; }

static void check_selection(void) {
    const uint64_t ptrs[] = {0x7f0000010000ull, 0x7f0000010004ull, 0x7f0000010008ull, 0x7f0000010010ull};
    const int32_t ns[] = {1, 0, 16, 1024, 1023, 1025, 17, -16, -1, 1000003};
    int bad = 0, n_cases = 0;
    char want[128], got[256] = "";
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 4; j++)
            for (size_t k = 0; k < sizeof ns / sizeof ns[0]; k++) {
                int v = copy_k_select(ptrs[i], ptrs[j], ns[k]);
                snprintf(want, sizeof want, "%s, %s, %s, 1024", ptr_sig(ptrs[i]), ptr_sig(ptrs[j]), int_sig(ns[k]));
                n_cases++;
                if (v < 0 || v * 2 >= copy_k_num_images || strcmp(copy_k_images[v * 2].signature, want) ||
                    copy_k_images[v * 2].variant != v || copy_k_images[v * 2 + 1].variant != v) {
                    if (!bad++)
                        snprintf(got, sizeof got, "%s -> variant %d '%s'", want, v,
                                 v >= 0 ? copy_k_images[v * 2].signature : "");
                }
            }
    CHECK("select/copy_exact_specialisation", bad == 0, "%d of %d cases wrong, first: %s", bad, n_cases, got);
    /* every variant: its two images, sm_80 then sm_90, with the metadata of num_warps 4 */
    bad = 0;
    for (int i = 0; i < copy_k_num_images; i++) {
        const TlAotImage *im = &copy_k_images[i];
        bad += strcmp(im->arch, i % 2 ? "sm_90" : "sm_80") || im->sm != (i % 2 ? 90u : 80u) ||
               im->threads != 128 || im->shared_bytes != 0 || strcmp(im->symbol, "copy_k") ||
               !mentions(im, im->arch) || !mentions(im, "copy_k") ||
               (!strcmp(im->format, "ptx") && strlen((const char *)im->data) != im->size);
    }
    CHECK("metadata/copy_images", copy_k_num_images == 24 && bad == 0, "%d images, %d bad", copy_k_num_images, bad);
    /* scalars: too many combinations, so three variants: all hints, pointers only, none */
    int v_all = scalars_k_select(0x1000, 0, 16, 32, 48, 64, 80, 1.f, 1.f, 1.f, 1.);
    int v_ptr = scalars_k_select(0x1000, 0, 3, 32, 48, 64, 80, 1.f, 1.f, 1.f, 1.);
    int v_none = scalars_k_select(0x1004, 0, 16, 32, 48, 64, 80, 1.f, 1.f, 1.f, 1.);
    int v_one = scalars_k_select(0x1000, 1, 1, 1, 1, 1, 1, 1.f, 1.f, 1.f, 1.);
    CHECK("select/scalars_reduced_set",
          scalars_k_num_images == 3 && v_all == 0 && v_ptr == 1 && v_none == 2 && v_one == 1 &&
              !strcmp(scalars_k_images[0].signature, "*fp64:16, i1, i8:16, i16:16, i32:16, i64:16, u32:16, fp16, bf16, "
                                                     "fp32, fp64") &&
              !strcmp(scalars_k_images[2].signature, "*fp64, i1, i8, i16, i32, i64, u32, fp16, bf16, fp32, fp64"),
          "%d images; variants %d %d %d %d", scalars_k_num_images, v_all, v_ptr, v_none, v_one);
    /* mm's signature fixes every hint: one variant, and arguments that break a hint fit none */
    CHECK("select/fixed_hints", matmul_fwd_kernel_num_images == 1 && matmul_fwd_kernel_select(0, 0, 0, 16, 16, 16, 16) == 0 &&
                                     matmul_fwd_kernel_select(0, 0, 0, 16, 17, 16, 16) == -1 &&
                                     matmul_fwd_kernel_select(8, 0, 0, 16, 16, 16, 16) == -1,
          "mm: %d images", matmul_fwd_kernel_num_images);
}

static void check_no_driver(void) {
    int r1 = copy_k_launch(NULL, 1, 1, 1, 0x1000, 0x2000, 1024);
    int r2 = scalars_k_launch(NULL, 1, 1, 1, 0x1000, 1, 2, 3, 4, 5, 6, 1.f, 2.f, 3.f, 4.);
    const char *msg = copy_k_strerror(r1);
    CHECK("nodriver/status", r1 == TL_AOT_ERROR_NO_DRIVER && r2 == TL_AOT_ERROR_NO_DRIVER, "statuses %d %d", r1, r2);
    CHECK("nodriver/message", strstr(msg, "no CUDA driver") && strstr(msg, getenv("TL_LIBCUDA")), "'%s'", msg);
    CHECK("nodriver/no_variant_first", matmul_fwd_kernel_launch(NULL, 1, 1, 1, 0, 0, 0, 16, 17, 16, 16) ==
                                           TL_AOT_ERROR_NO_VARIANT,
          "a launch that fits no variant says so before needing a driver");
}

typedef struct FakeRecord {
    int inits, loads, launches, set_attrs;
    const char *image;
    char function[128];
    int attr, attr_value;
    unsigned grid[3], block[3], shared;
    void *stream, *function_handle;
    int param_sizes[32];
    unsigned char params[32][8];
    int fail_launch;
} FakeRecord;

static FakeRecord *fake;

static void set_sizes(const int *sizes, int n) {
    memset(fake->param_sizes, 0, sizeof fake->param_sizes);
    memcpy(fake->param_sizes, sizes, sizeof(int) * (size_t)n);
}

static uint64_t param(int i, int size) {
    uint64_t v = 0;
    memcpy(&v, fake->params[i], (size_t)size);
    return v;
}

/* f32 -> f16 bits, round to nearest even: by the compiler where it has
 * _Float16, else from the value's exact position between two halves. */
static uint16_t ref_f16(float f) {
#ifdef __FLT16_MAX__
    _Float16 h = (_Float16)f;
    uint16_t u;
    memcpy(&u, &h, 2);
    return u;
#else
    (void)f;
    return 0xffff; /* not checked: the fixed table below still is */
#endif
}

/* f32 -> bf16 bits by choosing the nearer of the two bf16 neighbours in double. */
static uint16_t ref_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if (isnan(f))
        return (uint16_t)((x >> 16) | 0x40);
    uint32_t lo = x & 0xffff0000u, hi = lo + 0x10000u;
    float flo, fhi;
    memcpy(&flo, &lo, 4);
    memcpy(&fhi, &hi, 4);
    double dlo = fabs((double)f - flo), dhi = isinf(fhi) ? fabs((double)f - flo) * 2 + 1 : fabs((double)fhi - f);
    if ((x & 0x7f800000u) == 0x7f800000u)
        return (uint16_t)(x >> 16); /* inf */
    if (dlo < dhi || (dlo == dhi && !((lo >> 16) & 1)))
        return (uint16_t)(lo >> 16);
    return (uint16_t)(hi >> 16);
}

static void check_fake(const char *arch) {
    void *lib = dlopen(getenv("TL_LIBCUDA"), RTLD_NOW);
    fake = lib ? dlsym(lib, "fake") : NULL;
    if (!fake) {
        CHECK("fake/open", 0, "cannot open the fake driver: %s", dlerror());
        return;
    }
    const uint64_t x = 0x7f0000100000ull, z = 0x7f0000200004ull;
    int sizes[] = {8, 8, 4};
    set_sizes(sizes, 3);
    int r = copy_k_launch((void *)0x5678, 7, 2, 3, x, z, 1023);
    if (!strcmp(arch, "none")) {
        CHECK("fake/no_arch", r == TL_AOT_ERROR_NO_ARCH && fake->loads == 0, "status %d (%s), %d loads", r,
              copy_k_strerror(r), fake->loads);
        return;
    }
    int v = copy_k_select(x, z, 1023);
    const TlAotImage *want = &copy_k_images[v * 2 + (strcmp(arch, "sm_80") ? 1 : 0)];
    CHECK("fake/launch_status", r == 0 && fake->launches == 1 && fake->inits == 1, "status %d (%s)", r,
          copy_k_strerror(r));
    CHECK("fake/picks_image", fake->image == want->data && mentions(want, arch) && !strcmp(want->arch, arch),
          "loaded %p, want %s image %p", (const void *)fake->image, arch, want->data);
    CHECK("fake/launch_config",
          !strcmp(fake->function, "copy_k") && fake->grid[0] == 7 && fake->grid[1] == 2 && fake->grid[2] == 3 &&
              fake->block[0] == 128 && fake->block[1] == 1 && fake->block[2] == 1 && fake->shared == 0 &&
              fake->stream == (void *)0x5678,
          "function %s grid %u,%u,%u block %u,%u,%u shared %u stream %p", fake->function, fake->grid[0],
          fake->grid[1], fake->grid[2], fake->block[0], fake->block[1], fake->block[2], fake->shared, fake->stream);
    CHECK("fake/launch_args", param(0, 8) == x && param(1, 8) == z && param(2, 4) == 1023, "args %llx %llx %lld",
          (unsigned long long)param(0, 8), (unsigned long long)param(1, 8), (long long)param(2, 4));
    /* the same variant again: no second module load; another variant: one more */
    r = copy_k_launch(NULL, 1, 1, 1, x + 16, z + 16, 5);
    int loads = fake->loads;
    r |= copy_k_launch(NULL, 1, 1, 1, x, x, 1);
    CHECK("fake/modules_load_once", r == 0 && loads == 1 && fake->loads == 2 && fake->launches == 3,
          "status %d, %d then %d loads", r, loads, fake->loads);
    /* an empty grid launches nothing */
    r = copy_k_launch(NULL, 0, 1, 1, x, z, 0);
    CHECK("fake/empty_grid", r == 0 && fake->launches == 3, "status %d, %d launches", r, fake->launches);
    /* a driver error comes back as it is, with the driver's words */
    fake->fail_launch = 700;
    r = copy_k_launch(NULL, 1, 1, 1, x, z, 7);
    fake->fail_launch = 0;
    CHECK("fake/driver_error", r == 700 && !strcmp(copy_k_strerror(r), "an illegal memory access was encountered"),
          "status %d '%s'", r, copy_k_strerror(r));
    /* another context current than the one loaded into */
    int (*set_current)(void *) = (int (*)(void *))dlsym(lib, "cuCtxSetCurrent");
    int (*get_current)(void **) = (int (*)(void **))dlsym(lib, "cuCtxGetCurrent");
    void *mine = NULL;
    get_current(&mine);
    set_current(dlsym(lib, "fake_other_context"));
    r = copy_k_launch(NULL, 1, 1, 1, x, z, 7);
    set_current(mine);
    CHECK("fake/other_context", r == TL_AOT_ERROR_CONTEXT && strstr(copy_k_strerror(r), "context"), "status %d", r);
    if (strcmp(arch, "sm_90"))
        return; /* scalars and mm are built for sm_90 only */

    /* every scalar type travels in the kernel's own size and encoding */
    int ssizes[] = {8, 1, 1, 2, 4, 8, 4, 2, 2, 4, 8};
    set_sizes(ssizes, 11);
    r = scalars_k_launch(NULL, 1, 1, 1, 0x3000, 1, -3, -300, -70000, -5000000000ll, 4000000000u, 1.5f, -2.75f, 0.1f,
                         1e300);
    float f = 0.1f;
    double d = 1e300;
    uint32_t fbits;
    uint64_t dbits;
    memcpy(&fbits, &f, 4);
    memcpy(&dbits, &d, 8);
    CHECK("fake/scalar_args",
          r == 0 && param(0, 8) == 0x3000 && param(1, 1) == 1 && (int8_t)param(2, 1) == -3 &&
              (int16_t)param(3, 2) == -300 && (int32_t)param(4, 4) == -70000 &&
              (int64_t)param(5, 8) == -5000000000ll && param(6, 4) == 4000000000u && param(7, 2) == 0x3e00 &&
              param(8, 2) == 0xc030 && param(9, 4) == fbits && param(10, 8) == dbits,
          "status %d; i1 %llx i8 %llx i16 %llx i32 %llx u32 %llx f16 %llx bf16 %llx", r,
          (unsigned long long)param(1, 1), (unsigned long long)param(2, 1), (unsigned long long)param(3, 2),
          (unsigned long long)param(4, 4), (unsigned long long)param(6, 4), (unsigned long long)param(7, 2),
          (unsigned long long)param(8, 2));
    /* fp16 / bf16 rounding: a fixed table, then a sweep against the references */
    static const struct { float f; uint16_t h, b; } table[] = {
        {65504.f, 0x7bff, 0x4780}, {65520.f, 0x7c00, 0x4780}, {-1e6f, 0xfc00, 0xc974}, {1e-8f, 0x0000, 0x322c},
        {6e-8f, 0x0001, 0x3381}, {1.f / 3, 0x3555, 0x3eab}, {-0.f, 0x8000, 0x8000}, {6.103515625e-05f, 0x0400, 0x3880},
    };
    int bad = 0;
    char first[160] = "";
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        scalars_k_launch(NULL, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, table[i].f, table[i].f, 0, 0);
        if (param(7, 2) != table[i].h || param(8, 2) != table[i].b) {
            if (!bad++)
                snprintf(first, sizeof first, "%g -> %04llx %04llx, want %04x %04x", table[i].f,
                         (unsigned long long)param(7, 2), (unsigned long long)param(8, 2), table[i].h, table[i].b);
        }
    }
    uint32_t seed = 12345;
    for (int i = 0; i < 20000; i++) {
        seed = seed * 1664525u + 1013904223u;
        uint32_t bits = seed;
        if (i % 4 == 0) /* near the half range: exponents 2^-26 .. 2^16 */
            bits = (seed & 0x807fffffu) | ((101u + (seed >> 8) % 42u) << 23);
        float v;
        memcpy(&v, &bits, 4);
        scalars_k_launch(NULL, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, v, v, 0, 0);
        uint16_t h = ref_f16(v), b = ref_bf16(v);
        bool h_ok = (h == 0xffff && !isnan(v)) || param(7, 2) == h || (isnan(v) && (param(7, 2) & 0x7c00) == 0x7c00 &&
                                                                       (param(7, 2) & 0x3ff));
        if (!h_ok || param(8, 2) != b) {
            if (!bad++)
                snprintf(first, sizeof first, "%a -> %04llx %04llx, want %04x %04x", v, (unsigned long long)param(7, 2),
                         (unsigned long long)param(8, 2), h, b);
        }
    }
    CHECK("fake/f16_bf16_rounding", bad == 0, "%d wrong, first: %s", bad, first);

    /* more than 48 KiB of dynamic shared memory is asked for before the launch */
    int msizes[] = {8, 8, 8, 4, 4, 4, 4};
    set_sizes(msizes, 7);
    int attrs = fake->set_attrs;
    r = matmul_fwd_kernel_launch((void *)0x99, 3, 5, 1, 0x1000, 0x2000, 0x3000, 256, 320, 320, 512);
    CHECK("fake/large_shared", r == 0 && fake->set_attrs == attrs + 1 && fake->attr == 8 &&
                                   fake->attr_value == (int)matmul_fwd_kernel_images[0].shared_bytes && fake->shared == (unsigned)fake->attr_value &&
                                   fake->attr_value > 48 * 1024 && fake->block[0] == 256 &&
                                   !strcmp(fake->function, "matmul_fwd_kernel") && param(4, 4) == 320 && param(6, 4) == 512,
          "status %d, attrs %d, attr %d = %d, shared %u, block %u", r, fake->set_attrs - attrs, fake->attr,
          fake->attr_value, fake->shared, fake->block[0]);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: host nodriver | host fake ARCH [LABEL]\n");
        return 2;
    }
    if (argc > 3)
        label = argv[3];
    if (!*label) /* the same in every run */
        check_selection();
    if (!strcmp(argv[1], "nodriver"))
        check_no_driver();
    else
        check_fake(argc > 2 ? argv[2] : "sm_90");
    return failures ? 1 : 0;
}
