/* util.c: arenas, buffers, file reading. See util.h. */
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct ArenaBlock {
    ArenaBlock *next;
    size_t used, cap;
    max_align_t data[];
};

enum { ARENA_BLOCK = 64 * 1024 };

void *arena_grow(Arena *a, void *old, int len, int *cap, size_t elem) {
    if (len < *cap)
        return old;
    int ncap = *cap ? *cap * 2 : 8;
    void *p = arena_alloc(a, elem * (size_t)ncap);
    if (!p)
        return NULL; /* *cap unchanged: the old array still holds what it held */
    if (old && len)
        memcpy(p, old, elem * (size_t)len);
    *cap = ncap;
    return p;
}

void *arena_alloc(Arena *a, size_t size) {
    size = (size + 15) & ~(size_t)15;
    ArenaBlock *b = a->head;
    if (!b || b->cap - b->used < size) {
        size_t cap = size > ARENA_BLOCK ? size : ARENA_BLOCK;
        b = malloc(sizeof(ArenaBlock) + cap);
        if (!b)
            return NULL;
        b->cap = cap;
        b->used = 0;
        /* A big one-off allocation goes behind the current block so the
         * current block's free tail is not wasted. */
        if (a->head && size > ARENA_BLOCK) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = (char *)b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

char *arena_strdup(Arena *a, const char *s) { return arena_strndup(a, s, strlen(s)); }

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *p = arena_alloc(a, (size_t)n + 1);
    if (p)
        vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

void arena_free(Arena *a) {
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
}

static void buf_reserve(Buf *b, size_t extra) {
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1)
        cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p)
        return; /* keep the old contents; later writes are dropped */
    b->data = p;
    b->cap = cap;
}

void buf_putn(Buf *b, const char *s, size_t n) {
    buf_reserve(b, n);
    if (b->len + n + 1 > b->cap)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(Buf *b, const char *s) { buf_putn(b, s, strlen(s)); }
void buf_putc(Buf *b, char c) { buf_putn(b, &c, 1); }

void buf_vprintf(Buf *b, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n > 0) {
        buf_reserve(b, (size_t)n);
        if (b->len + (size_t)n + 1 <= b->cap) {
            vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
            b->len += (size_t)n;
        }
    }
    va_end(ap2);
}

void buf_printf(Buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_free(Buf *b) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_put_quoted(Buf *b, const char *s, size_t len, bool keep_utf8) {
    buf_putc(b, '"');
    for (size_t i = 0; s && i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': buf_puts(b, "\\\""); break;
        case '\\': buf_puts(b, "\\\\"); break;
        case '\n': buf_puts(b, "\\n"); break;
        case '\t': buf_puts(b, "\\t"); break;
        case '\r': buf_puts(b, "\\r"); break;
        default:
            if ((c >= 0x20 && c < 0x7f) || (c >= 0x80 && keep_utf8))
                buf_putc(b, (char)c);
            else
                buf_printf(b, "\\x%02x", c);
        }
    }
    buf_putc(b, '"');
}

void buf_put_double(Buf *b, double x) {
    if (isnan(x)) {
        buf_puts(b, "nan");
        return;
    }
    if (isinf(x)) {
        buf_puts(b, x < 0 ? "-inf" : "inf");
        return;
    }
    char s[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(s, sizeof s, "%.*g", prec, x);
        if (strtod(s, NULL) == x)
            break;
    }
    buf_puts(b, s);
    if (!strpbrk(s, ".e"))
        buf_puts(b, ".0");
}

char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    Buf b = {0};
    char tmp[65536];
    size_t n;
    int err = 0;
    /* A size limit, and a check that every chunk was kept: reading /dev/zero
     * or a device must end with an error, not loop until memory runs out. */
    while (!err && (n = fread(tmp, 1, sizeof tmp, f)) > 0) {
        size_t before = b.len;
        if (b.len + n > READ_FILE_MAX)
            err = EFBIG;
        else if (buf_putn(&b, tmp, n), b.len != before + n)
            err = ENOMEM;
    }
    if (!err && ferror(f))
        err = EIO;
    fclose(f);
    if (err) {
        buf_free(&b);
        errno = err;
        return NULL;
    }
    if (!b.data) {
        b.data = calloc(1, 1);
        if (!b.data) {
            errno = ENOMEM;
            return NULL;
        }
    }
    *len = b.len;
    return b.data;
}
