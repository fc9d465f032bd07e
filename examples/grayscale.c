/* grayscale: seed 001's rgb2grey_k on a planar uint8 RGB image.
 *   grayscale [IN.png|IN.jpg [OUT.png]]
 * With no argument it makes its own test image (and sizes that are not
 * multiples of the block); with one it converts that image and writes the
 * grey PNG (default: grey.png). */
#include "common.h"

#define STB_IMAGE_IMPLEMENTATION
#define STB_IMAGE_WRITE_IMPLEMENTATION
#define STBI_FAILURE_USERMSG
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb/stb_image.h>
#include <stb/stb_image_write.h>
#pragma GCC diagnostic pop

enum { BS0 = 32, BS1 = 32 };

/* The kernel's arithmetic in the same order, in fp32, truncated on store. */
static uint8_t grey_ref(uint8_t r, uint8_t g, uint8_t b) {
    float v = 0.2989f * (float)r + 0.5870f * (float)g;
    v = v + 0.1140f * (float)b;
    return (uint8_t)v;
}

/* planar: 3 x h x w. Returns 1 when every pixel is within 1 of the reference
 * (a fused multiply-add on the GPU may move a value across an integer). */
static int convert(TlContext *ctx, TlKernel *k, const uint8_t *planar, int h, int w, uint8_t *out, char *why,
                   size_t whylen) {
    size_t n = (size_t)h * (size_t)w;
    TlBuffer *bx = ex_buffer(ctx, TL_U8, 3 * n, planar), *bo = ex_buffer(ctx, TL_U8, n, NULL);
    TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bo), tl_arg_i32(h), tl_arg_i32(w)};
    unsigned grid[3] = {ex_cdiv((size_t)h, BS0), ex_cdiv((size_t)w, BS1), 1};
    TlStatus s = tl_launch(k, grid, args, 4);
    int ok = s == TL_SUCCESS;
    if (!ok)
        snprintf(why, whylen, "%s\n%s", tl_status_name(s), tl_last_error(ctx));
    else
        tl_buffer_read(bo, 0, out, n);
    for (size_t i = 0; ok && i < n; i++) {
        int want = grey_ref(planar[i], planar[n + i], planar[2 * n + i]);
        if (abs(out[i] - want) > 1) {
            snprintf(why, whylen, "pixel (%zu, %zu) = %d, want %d", i / (size_t)w, i % (size_t)w, out[i], want);
            ok = 0;
        }
    }
    tl_buffer_destroy(bx);
    tl_buffer_destroy(bo);
    return ok;
}

static uint8_t *to_planar(const uint8_t *rgb, int h, int w) {
    size_t n = (size_t)h * (size_t)w;
    uint8_t *p = malloc(3 * n);
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            p[(size_t)c * n + i] = rgb[3 * i + (size_t)c];
    return p;
}

int main(int argc, char **argv) {
    TlContext *ctx = ex_context();
    TlKernel *k = ex_kernel(ctx, "grayscale.tl", "-D bs0=32 -D bs1=32");
    char why[4096] = "";

    if (argc > 1) {
        int w, h, ch;
        uint8_t *rgb = stbi_load(argv[1], &w, &h, &ch, 3);
        if (!rgb) {
            printf("grayscale: cannot read '%s': %s\n", argv[1], stbi_failure_reason());
            return 1;
        }
        uint8_t *planar = to_planar(rgb, h, w), *out = malloc((size_t)h * (size_t)w);
        char name[256];
        snprintf(name, sizeof name, "grayscale %s (%dx%d)", argv[1], w, h);
        int ok = convert(ctx, k, planar, h, w, out, why, sizeof why);
        const char *dst = argc > 2 ? argv[2] : "grey.png";
        if (ok && !stbi_write_png(dst, w, h, 1, out, w)) {
            snprintf(why, sizeof why, "cannot write '%s'", dst);
            ok = 0;
        }
        /* Read the PNG back: what the user gets is what the kernel computed. */
        int w2, h2, ch2;
        uint8_t *back = ok ? stbi_load(dst, &w2, &h2, &ch2, 1) : NULL;
        if (ok && (!back || w2 != w || h2 != h || memcmp(back, out, (size_t)w * (size_t)h))) {
            snprintf(why, sizeof why, "'%s' does not read back as the grey image", dst);
            ok = 0;
        }
        stbi_image_free(back);
        ex_result(name, ok, "%s", why);
        if (ok)
            printf("wrote %s\n", dst);
        stbi_image_free(rgb);
        free(planar);
        free(out);
    } else {
        /* A made-up image: gradients plus noise, at the seed's size and ragged ones. */
        int sizes[][2] = {{150, 225}, {1, 1}, {31, 33}, {64, 64}, {97, 131}};
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            int h = sizes[s][0], w = sizes[s][1];
            size_t n = (size_t)h * (size_t)w;
            uint8_t *planar = malloc(3 * n), *out = malloc(n);
            for (int c = 0; c < 3; c++)
                for (size_t i = 0; i < n; i++)
                    planar[(size_t)c * n + i] =
                        (uint8_t)((i % (size_t)w) * 255 / (size_t)w / (c + 1) + (ex_uniform() + 1) * 40);
            char name[64];
            snprintf(name, sizeof name, "grayscale %dx%d", h, w);
            ex_result(name, convert(ctx, k, planar, h, w, out, why, sizeof why), "%s", why);
            free(planar);
            free(out);
        }
    }
    tl_kernel_destroy(k);
    tl_context_destroy(ctx);
    return ex_failures ? 1 : 0;
}
