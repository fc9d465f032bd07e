/* diag.c: rendering of diagnostics with the source line and a caret.
 *
 * Why render into a buffer: libtl must not print unless asked, so the compile log
 * is a string the API hands back; tlc writes it to stderr. */
#include "diag.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SHOW_MAX = 160 }; /* widest source excerpt shown, in bytes */

static const char *lvl_name[] = {"error", "warning", "note"};
static const char *lvl_color[] = {"\033[1;31m", "\033[1;35m", "\033[1;36m"};

Span span_join(Span a, Span b) {
    Span s = a;
    if (b.end_line) {
        s.end_line = b.end_line;
        s.end_col = b.end_col;
    } else {
        s.end_line = b.line;
        s.end_col = b.col + 1;
    }
    return s;
}

/* A `# line N "FILE"` directive at p (a line of n bytes)? */
static bool line_directive(const char *p, size_t n, int *line, const char **file, int *file_len) {
    static const char kw[] = "# line ";
    if (n < sizeof kw || memcmp(p, kw, sizeof kw - 1))
        return false;
    const char *q = p + sizeof kw - 1, *end = p + n;
    long v = 0;
    if (q >= end || *q < '0' || *q > '9')
        return false;
    while (q < end && *q >= '0' && *q <= '9' && v < 100000000)
        v = v * 10 + (*q++ - '0');
    if (q + 2 >= end || *q != ' ' || q[1] != '"')
        return false;
    const char *f = q + 2, *close = memchr(f, '"', (size_t)(end - f));
    if (!close || close == f)
        return false;
    *line = (int)v, *file = f, *file_len = (int)(close - f);
    return true;
}

/* Positions of lines 1 .. upto (upto < 0: all): into all[line] and/or, for
 * line upto, *one. Returns how many directives it passed. */
static int walk_positions(const Source *src, int upto, SourcePos *all, SourcePos *one) {
    const char *p = src->text, *end = src->text + src->len;
    const char *name = src->name ? src->name : "<string>";
    SourcePos cur = {name, (int)strlen(name), 1};
    int directives = 0;
    for (int l = 1; p <= end && (upto < 0 || l <= upto); l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
        if (all)
            all[l] = cur;
        if (one && l == upto)
            *one = cur;
        int dl, fl;
        const char *f;
        if (line_directive(p, n, &dl, &f, &fl))
            cur = (SourcePos){f, fl, dl}, directives++;
        else
            cur.line++;
        if (!nl)
            break;
        p = nl + 1;
    }
    return directives;
}

SourcePos source_pos(const Source *src, int line) {
    const char *name = src && src->name ? src->name : "<string>";
    SourcePos pos = {name, (int)strlen(name), line};
    if (src && src->text)
        walk_positions(src, line, NULL, &pos); /* without directives: the line itself */
    return pos;
}

SourcePos *source_pos_all(const Source *src, int *n) {
    *n = 0;
    if (!src || !src->text)
        return NULL;
    int lines = 1;
    for (size_t i = 0; i < src->len; i++)
        lines += src->text[i] == '\n';
    SourcePos *all = calloc((size_t)lines + 2, sizeof *all);
    if (all && !walk_positions(src, -1, all, NULL)) { /* no directive: positions are the lines */
        free(all);
        all = NULL;
    }
    *n = all ? lines : 0;
    return all;
}

/* Find the start of 1-based line `line` in src, or NULL. */
static const char *line_start(const Source *src, int line, size_t *len) {
    const char *p = src->text, *end = src->text + src->len;
    for (int l = 1; l < line && p < end; l++) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl)
            return NULL;
        p = nl + 1;
    }
    if (p > end)
        return NULL;
    const char *e = p;
    while (e < end && *e != '\n' && *e != '\r')
        e++;
    *len = (size_t)(e - p);
    return p;
}

static bool is_utf8_cont(unsigned char c) { return (c & 0xC0) == 0x80; }

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *p, size_t n) {
    size_t len = p[0] < 0x80 ? 1 : (p[0] & 0xE0) == 0xC0 ? 2 : (p[0] & 0xF0) == 0xE0 ? 3 : (p[0] & 0xF8) == 0xF0 ? 4 : 0;
    if (!len || len > n || (len == 2 && p[0] < 0xC2))
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!is_utf8_cont(p[i]))
            return 0;
    return len;
}

/* Copy the source line to the excerpt in a form safe for a terminal: control
 * bytes become spaces and bytes that are not UTF-8 become '?', one column
 * each, so the caret still lines up (tabs stay tabs). Returns bytes consumed. */
static size_t put_shown(Buf *b, const unsigned char *p, size_t n) {
    if (p[0] == '\t' || (p[0] >= 0x20 && p[0] < 0x7f)) {
        buf_putc(b, (char)p[0]);
        return 1;
    }
    if (p[0] < 0x80) {
        buf_putc(b, ' ');
        return 1;
    }
    size_t len = utf8_len(p, n);
    if (!len) {
        buf_putc(b, '?');
        return 1;
    }
    buf_putn(b, (const char *)p, len);
    return len;
}

static void render_excerpt(Diag *d, const Source *src, Span sp) {
    size_t len;
    const char *ln = line_start(src, sp.line, &len);
    if (!ln)
        return;
    size_t col0 = sp.col > 0 ? (size_t)(sp.col - 1) : 0;
    if (col0 > len)
        col0 = len;
    size_t colend = col0 + 1;
    if (sp.end_line == sp.line && sp.end_col > sp.col)
        colend = (size_t)(sp.end_col - 1);
    else if (sp.end_line > sp.line)
        colend = len;
    if (colend > len)
        colend = len > col0 ? len : col0 + 1;
    /* Window long lines around the caret. */
    size_t from = 0, to = len;
    if (len > SHOW_MAX) {
        from = col0 > SHOW_MAX / 2 ? col0 - SHOW_MAX / 2 : 0;
        to = from + SHOW_MAX < len ? from + SHOW_MAX : len;
        while (from > 0 && is_utf8_cont((unsigned char)ln[from]))
            from--;
        while (to < len && is_utf8_cont((unsigned char)ln[to]))
            to++;
    }
    Buf line = {0}, caret = {0};
    if (from > 0)
        buf_puts(&line, "...");
    for (size_t i = from; i < to;)
        i += put_shown(&line, (const unsigned char *)ln + i, to - i);
    if (to < len)
        buf_puts(&line, "...");
    if (from > 0)
        buf_puts(&caret, "   ");
    for (size_t i = from; i < col0 && i < to; i++) {
        unsigned char c = (unsigned char)ln[i];
        if (is_utf8_cont(c))
            continue; /* one column per UTF-8 character */
        buf_putc(&caret, c == '\t' ? '\t' : ' ');
    }
    if (d->color)
        buf_puts(&caret, "\033[1;32m");
    buf_putc(&caret, '^');
    size_t tildes_end = colend < to ? colend : to;
    for (size_t i = col0 + 1; i < tildes_end; i++)
        if (!is_utf8_cont((unsigned char)ln[i]))
            buf_putc(&caret, '~');
    if (d->color)
        buf_puts(&caret, "\033[0m");
    buf_printf(&d->out, "%s\n%s\n", line.data ? line.data : "", caret.data);
    buf_free(&line);
    buf_free(&caret);
}

static void header(Diag *d, DiagLevel lvl, const char *where) {
    const char *sep = *where ? ": " : "";
    if (d->color)
        buf_printf(&d->out, "\033[1m%s%s%s%s:\033[0m\033[1m ", where, sep, lvl_color[lvl], lvl_name[lvl]);
    else
        buf_printf(&d->out, "%s%s%s: ", where, sep, lvl_name[lvl]);
}

static void message_end(Diag *d) {
    if (d->color)
        buf_puts(&d->out, "\033[0m");
    buf_putc(&d->out, '\n');
}

/* Counts the diagnostic; returns false when it must be suppressed. */
static bool count(Diag *d, DiagLevel lvl) {
    int max = d->max_errors > 0 ? d->max_errors : 20;
    if (d->too_many)
        return false;
    if (lvl == DIAG_ERROR) {
        if (d->nerrors >= max) {
            d->too_many = true;
            buf_printf(&d->out, "fatal error: too many errors emitted, stopping now\n");
            return false;
        }
        d->nerrors++;
    } else if (lvl == DIAG_WARNING) {
        d->nwarnings++;
    }
    return true;
}

static void vreport(Diag *d, DiagLevel lvl, const Source *src, Span sp, const char *fmt, va_list ap) {
    if (!count(d, lvl))
        return;
    char where[512];
    if (sp.line > 0 && src) {
        SourcePos pos = source_pos(src, sp.line); /* a `# line` directive's file and line, else the source's */
        snprintf(where, sizeof where, "%.*s:%d:%d", pos.file_len, pos.file, pos.line, sp.col);
    } else if (sp.line > 0)
        snprintf(where, sizeof where, "<input>:%d:%d", sp.line, sp.col);
    else
        snprintf(where, sizeof where, "%s", src ? src->name : d->library ? "" : "tlc");
    header(d, lvl, where);
    buf_vprintf(&d->out, fmt, ap);
    message_end(d);
    if (src && sp.line > 0)
        render_excerpt(d, src, sp);
}

void diag_report(Diag *d, DiagLevel lvl, const Source *src, Span sp, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(d, lvl, src, sp, fmt, ap);
    va_end(ap);
}

#define DEFINE_LEVEL(fn, lvl)                                                  \
    void fn(Diag *d, const Source *src, Span sp, const char *fmt, ...) {       \
        va_list ap;                                                            \
        va_start(ap, fmt);                                                     \
        vreport(d, lvl, src, sp, fmt, ap);                                     \
        va_end(ap);                                                            \
    }
DEFINE_LEVEL(diag_error, DIAG_ERROR)
DEFINE_LEVEL(diag_warning, DIAG_WARNING)
DEFINE_LEVEL(diag_note, DIAG_NOTE)

void diag_plain(Diag *d, DiagLevel lvl, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vreport(d, lvl, NULL, span_at(0, 0), fmt, ap);
    va_end(ap);
}

void diag_internal_at(Diag *d, const char *file, int line, const char *fmt, ...) {
    d->nerrors++;
    d->internal = true;
    buf_puts(&d->out, "internal error: ");
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&d->out, fmt, ap);
    va_end(ap);
    buf_printf(&d->out, " (%s:%d)\n", file, line);
}
