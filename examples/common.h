/* common.h: helpers shared by the example programs (public API only).
 * Each example checks its kernel against a plain C reference and prints one
 * line per case: "name ... OK" or "name ... FAIL: why". */
#ifndef TL_EXAMPLES_COMMON_H
#define TL_EXAMPLES_COMMON_H

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tl.h"

static int ex_failures;

/* Where the .tl files are: $TL_EXAMPLES_DIR, ./examples, or beside the binary
 * (build/examples/NAME -> ../../examples). */
static inline const char *ex_path(const char *file) {
    static char buf[4096];
    const char *dir = getenv("TL_EXAMPLES_DIR");
    if (dir) {
        snprintf(buf, sizeof buf, "%s/%s", dir, file);
        return buf;
    }
    snprintf(buf, sizeof buf, "examples/%s", file);
    if (access(buf, R_OK) == 0)
        return buf;
    char exe[2048];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *slash = strrchr(exe, '/');
        if (slash)
            *slash = 0;
        snprintf(buf, sizeof buf, "%s/../../examples/%s", exe, file);
    }
    return buf;
}

/* $EX_ONLY: run only the cases whose name contains it (e.g. under
 * compute-sanitizer, where every launch is slow: tools/sanitize.sh). */
static inline int ex_skipped(const char *name) {
    const char *only = getenv("EX_ONLY");
    return only && !strstr(name, only);
}

static inline void ex_result(const char *name, int ok, const char *fmt, ...) {
    printf("%-48s ... %s", name, ok ? "OK" : "FAIL");
    if (!ok && fmt) {
        va_list ap;
        va_start(ap, fmt);
        printf(": ");
        vprintf(fmt, ap);
        va_end(ap);
        ex_failures++;
    } else if (!ok) {
        ex_failures++;
    }
    printf("\n");
    fflush(stdout);
}

/* Stop the program on an API failure: examples have nothing to recover. */
static inline void ex_check_status(TlContext *ctx, TlStatus s, const char *what) {
    if (s == TL_SUCCESS)
        return;
    printf("%-48s ... FAIL: %s: %s\n%s\n", what, what, tl_status_name(s), tl_last_error(ctx));
    exit(1);
}

/* A context on the GPU when there is one (TL_INTERPRET=1 forces the CPU). */
static inline TlContext *ex_context(void) {
    TlContext *ctx;
    TlStatus s = tl_context_create(TL_DEVICE_AUTO, &ctx);
    if (s != TL_SUCCESS) {
        printf("cannot create a context: %s\n", tl_status_name(s));
        exit(1);
    }
    const char *why = tl_last_error(NULL);
    if (tl_context_device(ctx) == TL_DEVICE_CPU && !getenv("TL_INTERPRET") && *why)
        printf("(%s: the kernels run in the CPU interpreter)\n", why);
    printf("device: %s\n", tl_context_device_name(ctx));
    return ctx;
}

static inline TlKernel *ex_kernel(TlContext *ctx, const char *file, const char *options) {
    TlKernel *k;
    TlStatus s = tl_kernel_from_file(ctx, ex_path(file), options, &k);
    if (s != TL_SUCCESS) {
        printf("%s (%s) ... FAIL: %s\n%s\n", file, options, tl_status_name(s), tl_last_error(ctx));
        exit(1);
    }
    return k;
}

static inline TlBuffer *ex_buffer(TlContext *ctx, TlDType dt, size_t count, const void *init) {
    TlBuffer *b;
    ex_check_status(ctx, tl_buffer_create(ctx, dt, count, &b), "tl_buffer_create");
    if (init)
        ex_check_status(ctx, tl_buffer_write(b, 0, init, count * tl_dtype_size(dt)), "tl_buffer_write");
    return b;
}

/* xorshift: reproducible data without zeros. */
static uint64_t ex_rng = 0x9E3779B97F4A7C15ull;
static inline double ex_uniform(void) { /* in [-1, 1), never exactly 0 */
    ex_rng ^= ex_rng << 13;
    ex_rng ^= ex_rng >> 7;
    ex_rng ^= ex_rng << 17;
    double u = (double)(ex_rng >> 11) / 9007199254740992.0 * 2.0 - 1.0;
    return u == 0 ? 0.5 : u;
}

/* fp16 <-> float on the host, round-to-nearest-even. */
static inline uint16_t ex_f2h(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
    if (e == 0xff)
        return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
    int ne = (int)e - 127 + 15;
    if (ne >= 31)
        return (uint16_t)(sign | 0x7c00);
    if (ne <= 0) {
        if (ne < -10)
            return (uint16_t)sign;
        m |= 0x800000;
        int shift = 14 - ne;
        uint32_t h = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1)))
            h++;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((uint32_t)ne << 10) | (m >> 13), rem = m & 0x1fff;
    if (rem > 0x1000 || (rem == 0x1000 && (h & 1)))
        h++;
    return (uint16_t)(sign | h);
}

static inline float ex_h2f(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ff, x;
    if (e == 0) {
        if (!m) {
            x = sign;
        } else {
            e = 127 - 15 + 1;
            while (!(m & 0x400)) {
                m <<= 1;
                e--;
            }
            x = sign | (e << 23) | ((m & 0x3ff) << 13);
        }
    } else if (e == 31) {
        x = sign | 0x7f800000 | (m << 13);
    } else {
        x = sign | ((e + 127 - 15) << 23) | (m << 13);
    }
    float f;
    memcpy(&f, &x, 4);
    return f;
}

/* Largest |got - want| relative to tol = atol + rtol * |want|; returns the
 * worst ratio (<= 1 passes) and where it happened. */
static inline double ex_compare(const double *got, const double *want, size_t n, double atol, double rtol, size_t *where) {
    double worst = 0;
    *where = 0;
    for (size_t i = 0; i < n; i++) {
        double r = fabs(got[i] - want[i]) / (atol + rtol * fabs(want[i]));
        if (!(r <= worst)) { /* catches NaN too */
            worst = isnan(r) ? INFINITY : r;
            *where = i;
        }
    }
    return worst;
}

static inline unsigned ex_cdiv(size_t a, size_t b) { return (unsigned)((a + b - 1) / b); }

#endif
