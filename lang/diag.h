/* diag.h: diagnostics shared by every stage.
 *
 *   file:line:col: error: message
 *       x = foo(1, 2
 *           ^~~~~~~~
 *
 * Diagnostics are rendered into a buffer (the compile log), never printed by the
 * library itself; tlc copies the buffer to stderr. Lines and columns are 1-based,
 * columns count bytes (as clang does). */
#ifndef TL_DIAG_H
#define TL_DIAG_H

#include "util.h"

typedef struct Source {
    const char *name; /* file name as the user gave it, or "<string>" */
    const char *text; /* NUL-terminated; may hold NUL bytes before len */
    size_t len;
} Source;

/* Where a line of a source stands in the files it was made from: a comment
 * line `# line N "FILE"` (C's #line, spelt as a Python comment: the Triton
 * shim puts one before each function it assembles) makes the next line
 * FILE's line N, and the lines after it follow. Without one: the source's
 * own name and line. file points into the source text or its name. */
typedef struct SourcePos {
    const char *file;
    int file_len;
    int line;
} SourcePos;
/* The position of 1-based line `line` of src. */
SourcePos source_pos(const Source *src, int line);
/* Each line's position at once (lines 1 .. *n, [0] unused), for code that
 * asks for many: NULL when there is no directive (positions are the lines). */
SourcePos *source_pos_all(const Source *src, int *n);

/* A source range. end_col is exclusive; a zero end means "just the caret". */
typedef struct Span {
    int line, col;
    int end_line, end_col;
} Span;

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;

typedef struct Diag {
    Buf out;        /* rendered diagnostics */
    bool color;     /* ANSI colours (tlc sets it for a TTY without NO_COLOR) */
    int max_errors; /* errors shown before stopping; 0 means 20 */
    int nerrors, nwarnings;
    bool too_many;  /* the limit was hit: stages should stop soon */
    bool internal;  /* an internal error was reported (tlc exits 4) */
    bool library;   /* libtl's: a diagnostic without a position says "error:", not "tlc: error:" */
} Diag;

void diag_report(Diag *d, DiagLevel lvl, const Source *src, Span sp, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void diag_error(Diag *d, const Source *src, Span sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_warning(Diag *d, const Source *src, Span sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
void diag_note(Diag *d, const Source *src, Span sp, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* An error without a source position: "tlc: error: message" ("error:
 * message" in the library, Diag.library). */
void diag_plain(Diag *d, DiagLevel lvl, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A bug in tl itself: "internal error: message (file.c:line)". */
#define diag_internal(d, ...) diag_internal_at((d), __FILE__, __LINE__, __VA_ARGS__)
void diag_internal_at(Diag *d, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Span helpers. */
Span span_join(Span a, Span b); /* from the start of a to the end of b */
static inline Span span_at(int line, int col) { return (Span){line, col, 0, 0}; }

#endif
