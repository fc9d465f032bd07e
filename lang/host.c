/* host.c: the host code of a Python file, set aside before parsing.
 *
 * A Triton program is one Python file: kernels (functions decorated with
 * @triton.jit, @triton.autotune, @triton.heuristics) beside host code that
 * allocates tensors, builds grids with lambdas, defines classes and runs
 * benchmarks. tl compiles the kernels as written and never runs the host code,
 * so a file such as Triton's tutorials compiles unchanged: every top-level
 * statement that is not a kernel and is not in the kernel language is blanked
 * (spaces for its bytes, newlines kept, so every line and column stays where
 * it was) and remembered, with the reason, as an N_HOST node. A kernel that
 * names such a definition is told why it cannot (sema). Kernels themselves are
 * never blanked: their errors are the user's to see.
 *
 * The split works on lines, as Python's own tokenizer would see them: a
 * top-level statement starts at column 1 outside any bracket, string or
 * backslash continuation; decorators belong to the statement that follows. */
#include "ast.h"

#include <ctype.h>
#include <string.h>

typedef struct Chunk {
    size_t start, end; /* byte range: whole lines */
    int line;          /* first line, 1-based */
} Chunk;

/* else / elif / except / finally at column 1 go on the statement before. */
static bool clause(const char *p, size_t left) {
    static const char *const words[] = {"else", "elif", "except", "finally"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t w = strlen(words[k]);
        if (left > w && !memcmp(p, words[k], w) && !isalnum((unsigned char)p[w]) && p[w] != '_')
            return true;
    }
    return false;
}

/* The top-level statements of text, in order. Returns the count; *out is
 * arena-allocated. Blank and comment-only lines at column 1 join the chunk
 * before them (they change nothing). */
static int split_chunks(Arena *a, const char *t, size_t n, Chunk **out) {
    int cap = 16, count = 0;
    Chunk *c = arena_alloc(a, sizeof(Chunk) * (size_t)cap);
    int depth = 0, line = 1;
    char quote = 0;      /* open string's quote character */
    bool triple = false; /* ... and whether it is a triple-quoted one */
    bool cont = false;   /* the previous line ended with a backslash */
    bool decorated = false;
    for (size_t i = 0; i < n;) {
        /* i is at the start of a line */
        bool starts = !quote && depth == 0 && !cont && i < n && t[i] != ' ' && t[i] != '\t' &&
                      t[i] != '\n' && t[i] != '\r' && t[i] != '#' && t[i] != '\f' && !clause(t + i, n - i);
        if (starts && !decorated) {
            if (count == cap) {
                Chunk *g = arena_alloc(a, sizeof(Chunk) * (size_t)cap * 2);
                memcpy(g, c, sizeof(Chunk) * (size_t)cap);
                c = g;
                cap *= 2;
            }
            if (count)
                c[count - 1].end = i;
            c[count++] = (Chunk){i, n, line};
        }
        if (starts)
            decorated = t[i] == '@'; /* the def after a decorator stays in its chunk */
        cont = false;
        /* scan the line */
        for (; i < n && t[i] != '\n'; i++) {
            char ch = t[i];
            if (quote) {
                if (ch == '\\') {
                    if (i + 1 < n && t[i + 1] != '\n')
                        i++;
                    else if (i + 1 < n && !triple) {
                        cont = true; /* a string continued on the next line */
                    }
                } else if (ch == quote) {
                    if (!triple)
                        quote = 0;
                    else if (i + 2 < n && t[i + 1] == quote && t[i + 2] == quote) {
                        quote = 0;
                        i += 2;
                    }
                }
                continue;
            }
            if (ch == '#') {
                while (i < n && t[i] != '\n')
                    i++;
                break;
            }
            if (ch == '"' || ch == '\'') {
                quote = ch;
                triple = i + 2 < n && t[i + 1] == ch && t[i + 2] == ch;
                if (triple)
                    i += 2;
            } else if (ch == '(' || ch == '[' || ch == '{') {
                depth++;
            } else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) {
                depth--;
            } else if (ch == '\\' && (i + 1 == n || t[i + 1] == '\n' ||
                                      (t[i + 1] == '\r' && i + 2 < n && t[i + 2] == '\n'))) {
                cont = true;
            }
        }
        if (quote && !triple && !cont)
            quote = 0; /* an unterminated string ends with its line */
        if (i < n)
            i++; /* the newline */
        line++;
    }
    *out = c;
    return count;
}

/* The dotted name after '@' at p (e.g. "triton.jit"), into buf. */
static void decorator_name(const char *p, const char *end, char *buf, size_t cap) {
    size_t k = 0;
    p++;
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_' || *p == '.') && k + 1 < cap)
        buf[k++] = *p++;
    buf[k] = 0;
}

/* A chunk is a kernel when one of its decorators is Triton's jit, autotune or
 * heuristics (what tl compiles); a decorator such as
 * @triton.testing.perf_report marks host code. */
static bool is_kernel(const char *t, const Chunk *c) {
    static const char *const names[] = {"triton.jit", "jit", "triton.autotune", "autotune",
                                        "triton.heuristics", "heuristics"};
    size_t i = c->start;
    while (i < c->end && t[i] == '@') {
        char name[64];
        decorator_name(t + i, t + c->end, name, sizeof name);
        for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
            if (!strcmp(name, names[k]))
                return true;
        /* the next line that starts at column 1: the next decorator or the def */
        while (i < c->end) {
            while (i < c->end && t[i] != '\n')
                i++;
            i++;
            if (i < c->end && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '#')
                break;
        }
    }
    return false;
}

/* The name a host statement defines: def NAME, class NAME, NAME = / NAME: */
static const char *defined_name(Arena *a, const char *t, const Chunk *c) {
    size_t i = c->start;
    if (t[i] == '@') /* after the decorators: the def or class at column 1 */
        for (i++; i < c->end && !(t[i - 1] == '\n' && (!strncmp(t + i, "def ", 4) || !strncmp(t + i, "class ", 6)));)
            i++;
    const char *p = t + i, *end = t + c->end;
    if (end - p > 4 && !memcmp(p, "def ", 4))
        p += 4;
    else if (end - p > 6 && !memcmp(p, "class ", 6))
        p += 6;
    while (p < end && *p == ' ')
        p++;
    const char *s = p;
    while (p < end && (isalnum((unsigned char)*p) || *p == '_'))
        p++;
    if (p == s || isdigit((unsigned char)*s))
        return NULL;
    size_t len = (size_t)(p - s);
    static const char *const kw[] = {"if", "for", "while", "try", "with", "import", "from", "raise",
                                     "assert", "del", "return", "async", "global"};
    for (size_t k = 0; k < sizeof kw / sizeof kw[0]; k++)
        if (strlen(kw[k]) == len && !memcmp(s, kw[k], len))
            return NULL;
    const char *q = p;
    while (q < end && *q == ' ')
        q++;
    bool def = t + i != s; /* def/class: the name is what follows */
    if (!def && (q >= end || (*q != '=' && *q != ':') || (q + 1 < end && q[1] == '=')))
        return NULL; /* an expression statement, a comparison */
    char *name = arena_alloc(a, len + 1);
    memcpy(name, s, len);
    name[len] = 0;
    return name;
}

/* The message of the first error in a rendered log: "f:l:c: error: MSG\n". */
static const char *first_error(Arena *a, const Buf *log) {
    const char *s = log->data ? strstr(log->data, "error: ") : NULL;
    if (!s)
        return "not part of the kernel language";
    s += 7;
    size_t len = strcspn(s, "\n");
    char *m = arena_alloc(a, len + 1);
    memcpy(m, s, len);
    m[len] = 0;
    return m;
}

char *host_blank(Arena *a, const Source *src, Node *(*parse)(Arena *, Diag *, const Source *),
                 NodeList *host) {
    Chunk *c;
    int n = split_chunks(a, src->text, src->len, &c);
    int kernels = 0;
    for (int k = 0; k < n; k++)
        kernels += is_kernel(src->text, &c[k]);
    if (!kernels)
        return NULL; /* nothing but host code: its errors are all there is to say */
    char *text = NULL;
    for (int k = 0; k < n; k++) {
        const char *first = src->text + c[k].start;
        size_t left = src->len - c[k].start;
        bool import = (left > 7 && !memcmp(first, "import ", 7)) || (left > 5 && !memcmp(first, "from ", 5));
        if (import || is_kernel(src->text, &c[k]))
            continue; /* kernels and imports: their errors are the user's */
        size_t len = c[k].end - c[k].start;
        char *chunk = arena_alloc(a, len + 1);
        memcpy(chunk, src->text + c[k].start, len);
        chunk[len] = 0;
        Source one = {src->name, chunk, len};
        Diag quiet = {0};
        quiet.max_errors = 1;
        Node *m = parse(a, &quiet, &one);
        const char *why = first_error(a, &quiet.out);
        buf_free(&quiet.out);
        if (m)
            continue; /* in the kernel language: kept (host statements are set aside later) */
        if (!text) {
            text = arena_alloc(a, src->len + 1);
            memcpy(text, src->text, src->len);
            text[src->len] = 0;
        }
        for (size_t i = c[k].start; i < c[k].end; i++)
            if (text[i] != '\n' && text[i] != '\r')
                text[i] = ' ';
        Span sp = {c[k].line, 1, c[k].line, 1}; /* to the end of its last line of code */
        size_t e = c[k].end;
        while (e > c[k].start && isspace((unsigned char)src->text[e - 1]))
            e--;
        for (size_t i = c[k].start; i < e; i++)
            if (src->text[i] == '\n')
                sp.end_line++, sp.end_col = 1;
            else
                sp.end_col++;
        Node *h = ast_new(a, N_HOST, sp);
        h->name = defined_name(a, src->text, &c[k]);
        h->str2 = why;
        ast_push(a, host, h);
    }
    return text;
}
