/* util.h: arena allocation, growable buffers and small string helpers.
 * Knows nothing of the compiler; every stage uses it.
 *
 * Memory policy: the compiler allocates from an Arena per compilation and frees
 * it as a whole at the end (no per-node frees); the runtime frees what it owns. */
#ifndef TL_UTIL_H
#define TL_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct Arena {
    ArenaBlock *head;
} Arena;

/* Zeroed memory from the arena. Returns NULL only if malloc fails. */
void *arena_alloc(Arena *a, size_t size);
/* Room for element len of an array of cap elements in the arena: the array
 * itself while len < *cap, else a copy twice as large (8 at first; the old
 * storage stays in the arena). NULL when out of memory. */
void *arena_grow(Arena *a, void *old, int len, int *cap, size_t elem);
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void arena_free(Arena *a);

/* A growable, always NUL-terminated byte buffer (malloc-owned). */
typedef struct Buf {
    char *data;
    size_t len, cap;
} Buf;

void buf_putn(Buf *b, const char *s, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(Buf *b, const char *fmt, va_list ap);
void buf_free(Buf *b);
/* s[0..len) as a double-quoted C literal (\" \\ \n \t \r \xNN); bytes >= 0x80
 * stay raw when keep_utf8, so UTF-8 text stays readable. */
void buf_put_quoted(Buf *b, const char *s, size_t len, bool keep_utf8);
/* The shortest %g form that reads back as the same double (like Python's
 * repr), always with a '.' or an exponent; nan, inf, -inf spelled out. */
void buf_put_double(Buf *b, double x);

/* Read a whole file into a malloc'd, NUL-terminated buffer. Returns NULL and
 * sets errno on failure: EFBIG past READ_FILE_MAX bytes (a source file, never
 * a device like /dev/zero), ENOMEM, EIO. *len gets the size (the file may
 * contain NUL bytes). */
enum { READ_FILE_MAX = 64 << 20 };
char *read_file(const char *path, size_t *len);

#endif
