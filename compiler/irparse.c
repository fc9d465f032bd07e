/* irparse.c: the IR text form (irprint.c, docs/ir.md) back into a Module.
 *
 * A hand-written lexer and a recursive-descent parser; the grammar rule of
 * each construct is the comment above its function. The parser checks what it
 * needs to build sound data structures: the syntax, the names of ops, types,
 * attributes and enum values, and that every %N it reads as an operand was
 * defined earlier in the text. Everything else (operand types, dominance,
 * region arity, terminators) is the verifier's job, so that bad IR can be
 * written as text to test the verifier.
 *
 * Values keep the numbers the text gives them (see irprint.c): the value table
 * grows to the largest %N, with undefined slots between. The first error stops
 * the parse. Any input must end in a Module or a diagnostic: regions nest at
 * most MAX_DEPTH deep, value numbers are bounded, and the lexer relies only on
 * the source ending in a NUL (Source's contract), so every scan stops there. */
#include "ir.h"
#include "layout.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined in irprint.c, next to the code that prints them. */

enum {
    MAX_DEPTH = 64,      /* nested regions; real kernels use a handful */
    MAX_VALUE = 1 << 20, /* largest %N: values[] is sized by it */
    MAX_ATTRS = 8,       /* entries in one {...}: more than any op has */
    MAX_ALIASES = 64,    /* #name = #kind<...> lines before one function */
};

typedef enum { T_EOF = 256, T_IDENT, T_INT, T_FLOAT, T_VALUE, T_GLOBAL, T_LABEL, T_STRING, T_HASH } TokKind;

typedef struct Tok {
    int kind;          /* a TokKind, or the character of a punctuation token */
    const char *start; /* the token's text (not NUL-terminated) */
    size_t len;
    Span span;
    uint64_t u;        /* T_INT: the literal; T_VALUE: the number N */
    bool big;          /* T_INT: did not fit 64 bits */
    double f;          /* T_FLOAT */
    const char *name;  /* T_VALUE: the name before ".N" or NULL; T_GLOBAL, T_LABEL, T_HASH: after the sigil */
    size_t name_len;
    const char *str;   /* T_STRING: the decoded contents, in the arena */
} Tok;

typedef struct Parser {
    Arena *arena;
    Diag *d;
    const Source *src;
    const char *p, *end;    /* the next byte to lex; the end of the text */
    const char *line_start; /* start of the line p is on */
    int line;
    Tok tok;                /* the current token */
    bool failed;            /* an error was reported: unwind */
    Function *f;            /* the function being parsed (made at its first alias line) */
    struct { const char *name; size_t len; int layout; } alias[MAX_ALIASES];
    int nalias;             /* the layout aliases of f */
    char what[48];          /* scratch for describing a token in a message */
} Parser;

/* A %N as written: its number, its name and where. */
typedef struct Ref {
    int id;
    const char *name;
    size_t name_len;
    Span span;
} Ref;

/* An attribute value as written; its meaning depends on the key and the op. */
typedef enum { L_INT, L_FLOAT, L_BOOL, L_NAME, L_STRING, L_LIST } LitKind;

typedef struct Lit {
    LitKind kind;
    bool neg;          /* L_INT: written with '-' */
    uint64_t u;        /* L_INT: the magnitude */
    double f;          /* L_FLOAT, sign included */
    bool b;            /* L_BOOL */
    const char *s;     /* L_NAME, L_STRING (arena) */
    int64_t list[IR_MAX_RANK];
    int nlist;         /* L_LIST */
    Span span;
} Lit;

typedef struct AttrEntry {
    const char *key;
    Lit val;
    Span span;
} AttrEntry;

/* ---- diagnostics ---- */

/* Reports the first error only (the parse stops there) and returns false so
 * callers can `return error_at(...)`. */
__attribute__((format(printf, 3, 4))) static bool error_at(Parser *P, Span sp, const char *fmt, ...) {
    if (!P->failed) {
        Buf msg = {0};
        va_list ap;
        va_start(ap, fmt);
        buf_vprintf(&msg, fmt, ap);
        va_end(ap);
        diag_error(P->d, P->src, sp, "%s", msg.data);
        buf_free(&msg);
    }
    P->failed = true;
    P->tok.kind = T_EOF;
    return false;
}

/* The current token, quoted, for "expected X, found Y". */
static const char *found(Parser *P) {
    if (P->tok.kind == T_EOF)
        return "end of input";
    int n = P->tok.len > 24 ? 24 : (int)P->tok.len;
    snprintf(P->what, sizeof P->what, "'%.*s%s'", n, P->tok.start, P->tok.len > 24 ? "..." : "");
    return P->what;
}

/* ---- lexer ---- */

static bool is_digit(int c) { return c >= '0' && c <= '9'; }
static bool is_alpha(int c) { return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
static bool is_alnum(int c) { return is_alpha(c) || is_digit(c); }
static int hex_val(int c) {
    return is_digit(c) ? c - '0' : (c | 32) >= 'a' && (c | 32) <= 'f' ? (c | 32) - 'a' + 10 : -1;
}

/* Blanks and '#' comments (to the end of the line). A '#' right before a
 * letter is a layout name (#blocked1), not a comment. */
static const char *skip_blank(const char *q, const char *end) {
    while (q < end) {
        if (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\n')
            q++;
        else if (*q == '#' && !(q + 1 < end && is_alpha(q[1])))
            while (q < end && *q != '\n')
                q++;
        else
            break;
    }
    return q;
}

/* Every move through the text goes here, so the line count stays right. */
static void advance_to(Parser *P, const char *q) {
    for (; P->p < q; P->p++)
        if (*P->p == '\n') {
            P->line++;
            P->line_start = P->p + 1;
        }
}

/* The span of n bytes at q, which is on the current line. */
static Span span_from(const Parser *P, const char *q, size_t n) {
    int col = (int)(q - P->line_start) + 1;
    return (Span){P->line, col, P->line, col + (int)n};
}

/* INT = DIGITS | '0x' HEXDIGITS
 * FLOAT = DIGITS ('.' DIGITS* [EXP] | EXP),  EXP = ('e'|'E') ['+'|'-'] DIGITS */
static const char *lex_number(Parser *P, Tok *t, const char *q) {
    const char *s = q;
    t->kind = T_INT;
    if (q[0] == '0' && (q[1] | 32) == 'x' && hex_val(q[2]) >= 0) {
        for (q += 2; hex_val(*q) >= 0; q++) {
            t->big |= t->u >> 60 != 0;
            t->u = t->u << 4 | (uint64_t)hex_val(*q);
        }
    } else {
        for (; is_digit(*q); q++) {
            uint64_t d = (uint64_t)(*q - '0');
            t->big |= t->u > (UINT64_MAX - d) / 10;
            t->u = t->u * 10 + d;
        }
        if (*q == '.') {
            t->kind = T_FLOAT;
            while (is_digit(*++q))
                ;
        }
        if ((*q | 32) == 'e' && (is_digit(q[1]) || ((q[1] == '+' || q[1] == '-') && is_digit(q[2])))) {
            t->kind = T_FLOAT;
            for (q += 2; is_digit(*q); q++)
                ;
        }
    }
    if (is_alnum(*q) || *q == '.') {
        error_at(P, span_from(P, s, (size_t)(q - s) + 1), "invalid number");
        return NULL;
    }
    if (t->kind == T_FLOAT) {
        char buf[64];
        if ((size_t)(q - s) >= sizeof buf) {
            error_at(P, span_from(P, s, (size_t)(q - s)), "number too long");
            return NULL;
        }
        memcpy(buf, s, (size_t)(q - s));
        buf[q - s] = 0;
        t->f = strtod(buf, NULL);
    }
    return q;
}

/* VALUE = '%' [NAME '.'] DIGITS */
static const char *lex_value(Parser *P, Tok *t, const char *q) {
    const char *s = q++;
    t->kind = T_VALUE;
    if (is_alpha(*q)) {
        t->name = q;
        while (is_alnum(*q))
            q++;
        t->name_len = (size_t)(q - t->name);
        if (*q != '.' || !is_digit(q[1])) {
            error_at(P, span_from(P, s, (size_t)(q - s)), "a value needs a number: %%NAME.N or %%N");
            return NULL;
        }
        q++;
    }
    if (!is_digit(*q)) {
        error_at(P, span_from(P, s, 1), "expected a value number after '%%'");
        return NULL;
    }
    for (; is_digit(*q); q++)
        if (t->u <= MAX_VALUE)
            t->u = t->u * 10 + (uint64_t)(*q - '0');
    if (is_alnum(*q) || t->u < 1 || t->u > MAX_VALUE) {
        error_at(P, span_from(P, s, (size_t)(q - s)), "value numbers are 1 to %d", MAX_VALUE);
        return NULL;
    }
    return q;
}

/* GLOBAL = '@' NAME,  LABEL = '^' NAME,  HASH = '#' NAME */
static const char *lex_sigil(Parser *P, Tok *t, const char *q) {
    t->kind = *q == '@' ? T_GLOBAL : *q == '^' ? T_LABEL : T_HASH;
    t->name = ++q;
    while (is_alnum(*q))
        q++;
    t->name_len = (size_t)(q - t->name);
    if (!t->name_len) {
        error_at(P, span_from(P, q - 1, 1), "expected a name after '%c'", q[-1]);
        return NULL;
    }
    return q;
}

/* STRING = '"' {char | '\' ('n' | 't' | 'r' | '\' | '"' | 'x' HEX HEX)} '"'
 * NUL is refused: attribute strings are C strings. */
static const char *lex_string(Parser *P, Tok *t, const char *q) {
    const char *s = q++;
    Buf b = {0};
    t->kind = T_STRING;
    for (; *q != '"'; q++) {
        const char *e = q;
        int c = (unsigned char)*q;
        if (q >= P->end || c == '\n' || c == 0) {
            buf_free(&b);
            error_at(P, span_from(P, s, 1), c == 0 && q < P->end ? "NUL byte in string" : "unterminated string");
            return NULL;
        }
        if (c == '\\') {
            switch (*++q) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case '\\': c = '\\'; break;
            case '"': c = '"'; break;
            case 'x':
                c = hex_val(q[1]) >= 0 && hex_val(q[2]) >= 0 ? hex_val(q[1]) * 16 + hex_val(q[2]) : 0;
                q += 2;
                if (c)
                    break;
                __attribute__((fallthrough)); /* a bad or NUL \x */
            default:
                buf_free(&b);
                error_at(P, span_from(P, e, 2), "invalid escape in string");
                return NULL;
            }
        }
        buf_putc(&b, (char)c);
    }
    t->str = b.data ? arena_strdup(P->arena, b.data) : "";
    buf_free(&b);
    return q + 1;
}

static void next(Parser *P) {
    if (P->failed)
        return;
    advance_to(P, skip_blank(P->p, P->end));
    const char *q = P->p;
    Tok t = {.start = q};
    if (q >= P->end) {
        t.kind = T_EOF;
    } else if (is_alpha(*q)) {
        while (is_alnum(*q))
            q++;
        t.kind = T_IDENT;
    } else if (is_digit(*q)) {
        q = lex_number(P, &t, q);
    } else if (*q == '%') {
        q = lex_value(P, &t, q);
    } else if (*q == '@' || *q == '^' || *q == '#') {
        q = lex_sigil(P, &t, q);
    } else if (*q == '"') {
        q = lex_string(P, &t, q);
    } else if (*q && strchr("(){}[]<>,:=-!", *q)) {
        t.kind = *q++;
    } else {
        unsigned char c = (unsigned char)*q;
        if (c > 0x20 && c < 0x7f)
            error_at(P, span_from(P, q, 1), "unexpected character '%c'", c);
        else
            error_at(P, span_from(P, q, 1), "unexpected byte 0x%02x", c);
        return;
    }
    if (!q)
        return;
    t.len = (size_t)(q - t.start);
    t.span = span_from(P, t.start, t.len);
    P->tok = t;
    advance_to(P, q);
}

/* ---- small parsing helpers ---- */

static bool accept(Parser *P, int kind) {
    if (P->tok.kind != kind)
        return false;
    next(P);
    return !P->failed;
}

static bool expect(Parser *P, int kind) {
    if (accept(P, kind))
        return true;
    return error_at(P, P->tok.span, "expected '%c', found %s", kind, found(P));
}

static bool is_word(const Parser *P, const char *w) {
    return P->tok.kind == T_IDENT && P->tok.len == strlen(w) && !memcmp(P->tok.start, w, P->tok.len);
}

static bool expect_word(Parser *P, const char *w) {
    if (!is_word(P, w))
        return error_at(P, P->tok.span, "expected '%s', found %s", w, found(P));
    next(P);
    return !P->failed;
}

/* At '{': is this an attribute dictionary ('{' NAME '=') rather than a region,
 * whose first line is an op, a %N or a ^label? */
static bool at_attr_dict(const Parser *P) {
    if (P->tok.kind != '{')
        return false;
    const char *q = skip_blank(P->p, P->end);
    if (!is_alpha(*q))
        return false;
    while (is_alnum(*q))
        q++;
    return *skip_blank(q, P->end) == '=';
}

/* ---- types ---- */

/* elem = DTYPE | '!ptr<' DTYPE '>'; returns the byte after it, or NULL. */
static const char *scan_elem(Parser *P, const char *q, Type *t) {
    bool ptr = !strncmp(q, "!ptr<", 5);
    if (ptr)
        q += 5;
    const char *s = q;
    while (is_alnum(*q))
        q++;
    char name[16];
    size_t n = (size_t)(q - s);
    DType dt = DT_VOID;
    if (n && n < sizeof name) {
        memcpy(name, s, n);
        name[n] = 0;
        dt = dt_from_name(name);
    }
    if (dt == DT_VOID) {
        if (n)
            error_at(P, span_from(P, s, n), "unknown element type '%.*s'", n > 16 ? 16 : (int)n, s);
        else
            error_at(P, span_from(P, s, 1), "expected a type");
        return NULL;
    }
    if (ptr && *q != '>') {
        error_at(P, span_from(P, q, 1), "expected '>' after the pointee type");
        return NULL;
    }
    t->dtype = ptr ? DT_PTR : dt;
    t->pointee = ptr ? dt : 0;
    return q + ptr;
}

/* ---- layouts ---- */

static bool parse_lit(Parser *P, Lit *l, bool in_list);
static bool int_of(Parser *P, const Lit *l, int64_t lo, int64_t hi, int64_t *out);
static bool parse_layout(Parser *P, int *li);

static Function *current_func(Parser *P) {
    if (!P->f) {
        P->f = ir_func_new(P->arena, "");
        P->f->src = P->src;
        P->nalias = 0;
    }
    return P->f;
}

/* One key = value of a layout: its literal, or a nested layout (parent). */
typedef struct LayoutEntry {
    const char *key;
    size_t len;
    Lit lit;
    int layout;
    Span span;
} LayoutEntry;

static const LayoutEntry *entry(const LayoutEntry *es, int n, const char *key) {
    for (int i = 0; i < n; i++)
        if (strlen(key) == es[i].len && !memcmp(es[i].key, key, es[i].len))
            return &es[i];
    return NULL;
}

static bool pow2(int64_t v) { return v >= 1 && !(v & (v - 1)); }

/* An integer key, within [lo, hi]. */
static bool key_int(Parser *P, const LayoutEntry *es, int n, const char *key, int64_t lo, int64_t hi, Span sp,
                    int *out) {
    const LayoutEntry *e = entry(es, n, key);
    int64_t v;
    if (!e)
        return error_at(P, sp, "the layout needs '%s'", key);
    if (e->lit.kind == L_BOOL && lo == 0 && hi == 1) {
        *out = e->lit.b;
        return true;
    }
    if (!int_of(P, &e->lit, lo, hi, &v))
        return false;
    *out = (int)v;
    return true;
}

/* A list key of 1..IR_MAX_RANK entries; *rank is set by the first list read, later ones
 * must have as many. */
static bool key_list(Parser *P, const LayoutEntry *es, int n, const char *key, Span sp, int *rank, int *out,
                     bool need_pow2) {
    const LayoutEntry *e = entry(es, n, key);
    if (!e)
        return error_at(P, sp, "the layout needs '%s'", key);
    if (e->lit.kind != L_LIST || e->lit.nlist < 1)
        return error_at(P, e->span, "'%s' needs a list of 1 to %d integers", key, IR_MAX_RANK);
    if (*rank && e->lit.nlist != *rank)
        return error_at(P, e->span, "'%s' has %d entries, the layout's other lists %d", key, e->lit.nlist, *rank);
    *rank = e->lit.nlist;
    for (int i = 0; i < *rank; i++) {
        int64_t v = e->lit.list[i];
        if (v < 0 || v > 1 << 20 || (need_pow2 && !pow2(v)))
            return error_at(P, e->span, "'%s' needs %s", key, need_pow2 ? "powers of two" : "small integers");
        out[i] = (int)v;
    }
    return true;
}

static bool is_permutation(const int *v, int n) {
    bool seen[IR_MAX_RANK] = {false};
    for (int i = 0; i < n; i++) {
        if (v[i] < 0 || v[i] >= n || seen[v[i]])
            return false;
        seen[v[i]] = true;
    }
    return true;
}

static bool key_parent(Parser *P, const LayoutEntry *es, int n, Span sp, int *out) {
    const LayoutEntry *e = entry(es, n, "parent");
    if (!e || !e->layout)
        return error_at(P, e ? e->span : sp, "the layout needs a parent layout (parent = #name)");
    *out = e->layout;
    return true;
}

/* The keys each kind takes, in its printed order. */
static const struct { const char *kind; LayoutKind k; const char *keys; } layout_kinds[] = {
    {"blocked", LAYOUT_BLOCKED, "spt tpw wpc order"},
    {"slice", LAYOUT_SLICE, "dim parent"},
    {"mma", LAYOUT_MMA, "version wpc instr"},
    {"dot_op", LAYOUT_DOT_OPERAND, "op_idx k_width parent"},
    {"shared", LAYOUT_SHARED, "vec per_phase max_phase order"},
    {"nvmma", LAYOUT_NVMMA, "swizzle elem_bits transposed"},
};

/* Build the layout of kind k from its entries, checking what a thread map
 * relies on (so no later pass divides by a zero read from the text). */
static bool build_layout(Parser *P, LayoutKind k, const LayoutEntry *es, int n, Span sp, Layout *l) {
    *l = (Layout){.kind = k};
    const Function *f = P->f;
    switch (k) {
    case LAYOUT_BLOCKED: {
        int tp = 1;
        if (!key_list(P, es, n, "spt", sp, &l->rank, l->size_per_thread, true) ||
            !key_list(P, es, n, "tpw", sp, &l->rank, l->threads_per_warp, true) ||
            !key_list(P, es, n, "wpc", sp, &l->rank, l->warps_per_cta, true) ||
            !key_list(P, es, n, "order", sp, &l->rank, l->order, false))
            return false;
        for (int d = 0; d < l->rank; d++)
            tp *= l->threads_per_warp[d];
        if (tp != 32)
            return error_at(P, sp, "tpw must multiply to 32 lanes, not %d", tp);
        if (!is_permutation(l->order, l->rank))
            return error_at(P, sp, "order must be a permutation of the %d dimensions", l->rank);
        return true;
    }
    case LAYOUT_SLICE: {
        if (!key_parent(P, es, n, sp, &l->parent))
            return false;
        const Layout *p = &f->layouts[l->parent];
        if (layout_is_shared(p->kind) || p->rank < 2)
            return error_at(P, sp, "a slice's parent must be a distributed layout of rank 2 or more");
        l->rank = p->rank - 1;
        return key_int(P, es, n, "dim", 0, p->rank - 1, sp, &l->dim);
    }
    case LAYOUT_MMA: {
        int instr[IR_MAX_RANK] = {0}, ir = 0;
        if (!key_int(P, es, n, "version", 2, 3, sp, &l->version) ||
            !key_list(P, es, n, "wpc", sp, &l->rank, l->warps_per_cta, true) ||
            !key_list(P, es, n, "instr", sp, &ir, instr, false))
            return false;
        if (l->rank != 2 || ir != 2 || instr[0] != 16 || instr[1] != 8)
            return error_at(P, sp, "mma version 2 is 2-D with instr = [16, 8]");
        if (l->version == 3 && l->warps_per_cta[1] != 1)
            return error_at(P, sp, "mma version 3 stacks its warps along M: wpc = [num_warps, 1]");
        return true;
    }
    case LAYOUT_DOT_OPERAND: {
        if (!key_parent(P, es, n, sp, &l->parent) || !key_int(P, es, n, "op_idx", 0, 1, sp, &l->op_idx) ||
            !key_int(P, es, n, "k_width", 0, 8, sp, &l->k_width))
            return false;
        const Layout *p = &f->layouts[l->parent];
        if ((p->kind != LAYOUT_MMA && p->kind != LAYOUT_BLOCKED) || p->rank != 2)
            return error_at(P, sp, "a dot operand's parent must be a 2-D mma or blocked layout");
        if (p->kind == LAYOUT_MMA && l->k_width != 1 && l->k_width != 2 && l->k_width != 4)
            return error_at(P, sp, "an mma operand has k_width 1, 2 or 4");
        l->rank = 2;
        return true;
    }
    case LAYOUT_SHARED:
        if (!key_list(P, es, n, "order", sp, &l->rank, l->order, false) ||
            !key_int(P, es, n, "vec", 1, 1 << 10, sp, &l->vec) ||
            !key_int(P, es, n, "per_phase", 1, 1 << 10, sp, &l->per_phase) ||
            !key_int(P, es, n, "max_phase", 1, 1 << 10, sp, &l->max_phase))
            return false;
        if (!is_permutation(l->order, l->rank))
            return error_at(P, sp, "order must be a permutation of the %d dimensions", l->rank);
        if (!pow2(l->vec) || !pow2(l->max_phase))
            return error_at(P, sp, "vec and max_phase must be powers of two");
        return true;
    case LAYOUT_NVMMA:
        if (!key_int(P, es, n, "swizzle", 0, 128, sp, &l->swizzle) ||
            !key_int(P, es, n, "elem_bits", 8, 64, sp, &l->elem_bits))
            return false;
        {
            int tr = 0;
            if (!key_int(P, es, n, "transposed", 0, 1, sp, &tr))
                return false;
            l->transposed = tr;
        }
        if (l->swizzle != 0 && l->swizzle != 32 && l->swizzle != 64 && l->swizzle != 128)
            return error_at(P, sp, "swizzle is 0, 32, 64 or 128 (bytes)");
        if (!pow2(l->elem_bits))
            return error_at(P, sp, "elem_bits must be 8, 16, 32 or 64");
        l->rank = 2;
        return true;
    case LAYOUT_NONE:
        break;
    }
    return error_at(P, sp, "unknown layout kind");
}

/* '#' KIND '<' '{' NAME '=' (value | layout) {',' ...} '}' '>'   (the current token is #KIND) */
static bool parse_layout_def(Parser *P, int *li) {
    Span sp = P->tok.span;
    size_t nk = sizeof layout_kinds / sizeof layout_kinds[0], k = 0;
    while (k < nk && (strlen(layout_kinds[k].kind) != P->tok.name_len ||
                      memcmp(layout_kinds[k].kind, P->tok.name, P->tok.name_len)))
        k++;
    if (k == nk)
        return error_at(P, sp, "unknown layout kind '#%.*s' (expected blocked, slice, mma, dot_op, shared, nvmma)",
                        (int)(P->tok.name_len > 24 ? 24 : P->tok.name_len), P->tok.name);
    next(P);
    LayoutEntry es[8];
    int n = 0;
    if (!expect(P, '<') || !expect(P, '{'))
        return false;
    do {
        if (P->tok.kind != T_IDENT)
            return error_at(P, P->tok.span, "expected a layout key, found %s", found(P));
        if (n == 8)
            return error_at(P, P->tok.span, "too many layout keys");
        LayoutEntry *e = &es[n++];
        *e = (LayoutEntry){.key = P->tok.start, .len = P->tok.len, .span = P->tok.span};
        char key[24];
        snprintf(key, sizeof key, "%.*s", (int)(e->len < 23 ? e->len : 23), e->key);
        bool known = false;
        for (const char *q = layout_kinds[k].keys; *q;) {
            size_t m = strcspn(q, " ");
            known |= m == e->len && !memcmp(q, e->key, m);
            q += m + (q[m] == ' ');
        }
        if (!known || entry(es, n - 1, key))
            return error_at(P, e->span, known ? "'%s' is given twice" : "#%s has no key '%s'",
                            known ? key : layout_kinds[k].kind, key);
        next(P);
        if (!expect(P, '='))
            return false;
        if (P->tok.kind == T_HASH) {
            if (!parse_layout(P, &e->layout))
                return false;
        } else if (!parse_lit(P, &e->lit, false)) {
            return false;
        }
    } while (accept(P, ','));
    if (!expect(P, '}') || P->failed)
        return false;
    if (P->tok.kind != '>')
        return error_at(P, P->tok.span, "expected '>' to close the layout, found %s", found(P));
    Layout l;
    if (!build_layout(P, layout_kinds[k].k, es, n, sp, &l))
        return false;
    next(P);
    *li = layout_intern(current_func(P), &l);
    return *li > 0 || error_at(P, sp, "out of memory");
}

/* layout = '#' NAME (an alias of this function) | layout-def */
static bool parse_layout(Parser *P, int *li) {
    if (P->tok.kind != T_HASH)
        return error_at(P, P->tok.span, "expected a layout (#name), found %s", found(P));
    const char *q = P->tok.start + P->tok.len;
    if (*q == '<')
        return parse_layout_def(P, li);
    for (int i = 0; i < P->nalias; i++)
        if (P->alias[i].len == P->tok.name_len && !memcmp(P->alias[i].name, P->tok.name, P->tok.name_len)) {
            *li = P->alias[i].layout;
            next(P);
            return !P->failed;
        }
    return error_at(P, P->tok.span, "undefined layout '#%.*s'", (int)(P->tok.name_len > 24 ? 24 : P->tok.name_len),
                    P->tok.name);
}

/* alias = '#' NAME '=' layout-def      (before the func that uses it) */
static bool parse_alias(Parser *P) {
    current_func(P);
    Tok name = P->tok;
    for (int i = 0; i < P->nalias; i++)
        if (P->alias[i].len == name.name_len && !memcmp(P->alias[i].name, name.name, name.name_len))
            return error_at(P, name.span, "layout '#%.*s' is defined twice", (int)name.name_len, name.name);
    if (P->nalias == MAX_ALIASES)
        return error_at(P, name.span, "more than %d layout aliases", MAX_ALIASES);
    next(P);
    int li;
    if (!expect(P, '=') || P->tok.kind != T_HASH || P->tok.start[P->tok.len] != '<')
        return P->failed || error_at(P, P->tok.span, "expected a layout definition (#kind<{...}>), found %s", found(P));
    if (!parse_layout_def(P, &li))
        return false;
    P->alias[P->nalias].name = name.name;
    P->alias[P->nalias].len = name.name_len;
    P->alias[P->nalias++].layout = li;
    return true;
}

/* type = elem | '<' DIM 'x' {DIM 'x'} elem [',' layout] '>'
 *      | '!smem<' DIM 'x' {DIM 'x'} elem [',' layout] '>'
 * (no blanks inside, up to the layout.) The current token is the type's
 * first; the type is scanned byte by byte because "4xf32" is not a sequence
 * of ordinary tokens. *layout (when not NULL) gets the layout, 0 if none. */
static bool parse_type(Parser *P, Type *out, int *layout) {
    const char *q = P->tok.start;
    Type t = {0};
    bool smem = !strncmp(q, "!smem<", 6);
    if (smem) {
        q += 5;
        t.mem = IR_MEM_SHARED;
    }
    if (*q == '<') {
        for (q++; is_digit(*q);) {
            const char *d = q;
            int64_t n = 0;
            for (; is_digit(*q); q++)
                if (n <= INT32_MAX)
                    n = n * 10 + (*q - '0');
            if (n < 1 || n > INT32_MAX)
                return error_at(P, span_from(P, d, (size_t)(q - d)), "dimension out of range");
            if (t.rank == IR_MAX_RANK)
                return error_at(P, span_from(P, d, (size_t)(q - d)), "a block has at most %d dimensions",
                                IR_MAX_RANK);
            t.shape[t.rank++] = (int32_t)n;
            if (*q != 'x')
                return error_at(P, span_from(P, q, 1), "expected 'x' after a dimension");
            q++;
        }
        if (!t.rank)
            return error_at(P, span_from(P, q, 1), "expected a dimension after '<'");
    }
    if (!(q = scan_elem(P, q, &t)))
        return false;
    if (layout)
        *layout = 0;
    if (t.rank && *q == ',') { /* ", #layout>": tokens from here */
        if (!layout)
            return error_at(P, span_from(P, q, 1), "a parameter has no layout");
        advance_to(P, q + 1);
        next(P);
        if (!parse_layout(P, layout))
            return false;
        if (P->tok.kind != '>')
            return error_at(P, P->tok.span, "expected '>' to close the block type, found %s", found(P));
        q = P->tok.start + 1;
    } else if (t.rank && *q++ != '>') {
        return error_at(P, span_from(P, q - 1, 1), "expected '>' to close the block type");
    }
    advance_to(P, q);
    next(P);
    *out = t;
    return !P->failed;
}

/* types = type {',' type} */
static bool parse_types(Parser *P, Type **out, int **layouts, int *n) {
    int cap = 0, lcap = 0;
    do {
        *out = arena_grow(P->arena, *out, *n, &cap, sizeof **out);
        *layouts = arena_grow(P->arena, *layouts, *n, &lcap, sizeof **layouts);
        if (!*out || !*layouts || !parse_type(P, &(*out)[*n], &(*layouts)[*n]))
            return false;
        (*n)++;
    } while (accept(P, ','));
    return !P->failed;
}

/* ---- values ---- */

static bool parse_ref(Parser *P, Ref *out) {
    if (P->tok.kind != T_VALUE)
        return error_at(P, P->tok.span, "expected a value (%%N), found %s", found(P));
    *out = (Ref){(int)P->tok.u, P->tok.name, P->tok.name_len, P->tok.span};
    next(P);
    return !P->failed;
}

/* refs = VALUE {',' VALUE} */
static bool parse_refs(Parser *P, Ref **out, int *n, int *cap) {
    do {
        *out = arena_grow(P->arena, *out, *n, cap, sizeof **out);
        if (!parse_ref(P, &(*out)[*n]))
            return false;
        (*n)++;
    } while (accept(P, ','));
    return !P->failed;
}

static bool is_defined(const Function *f, int id) {
    return id < f->nvalues && (f->values[id].def || f->values[id].block);
}

/* operands = refs, each defined earlier in the text; appended to *ids. */
static bool parse_operands(Parser *P, ValueId **ids, int *n, int *cap) {
    Ref *refs = NULL;
    int nrefs = 0, rcap = 0;
    if (!parse_refs(P, &refs, &nrefs, &rcap))
        return false;
    for (int i = 0; i < nrefs; i++) {
        if (!is_defined(P->f, refs[i].id))
            return error_at(P, refs[i].span, "use of undefined value %%%d", refs[i].id);
        *ids = arena_grow(P->arena, *ids, *n, cap, sizeof **ids);
        (*ids)[(*n)++] = refs[i].id;
    }
    return true;
}

/* Gives %N its type and definer: the table grows to hold N, and the slots
 * below that the text never defines stay empty. */
static bool define_value(Parser *P, const Ref *r, Type t, int layout, Inst *def, Block *blk) {
    Function *f = P->f;
    while (f->nvalues <= r->id)
        ir_value_new(f, (Type){0});
    if (is_defined(f, r->id))
        return error_at(P, r->span, "%%%d is defined twice", r->id);
    Value *v = &f->values[r->id];
    v->type = t;
    v->layout = layout;
    v->def = def;
    v->block = blk;
    v->name = r->name ? arena_strndup(P->arena, r->name, r->name_len) : NULL;
    return true;
}

/* ---- attributes ---- */

/* The integer a literal holds, if it lies in [lo, hi]. */
static bool int_of(Parser *P, const Lit *l, int64_t lo, int64_t hi, int64_t *out) {
    if (l->kind != L_INT)
        return error_at(P, l->span, "expected an integer");
    bool fits = l->neg ? l->u <= (uint64_t)INT64_MAX + 1 : l->u <= INT64_MAX;
    int64_t v = l->neg ? (int64_t)(0 - l->u) : (int64_t)l->u;
    if (!fits || v < lo || v > hi)
        return error_at(P, l->span, "integer out of range");
    *out = v;
    return true;
}

static bool parse_lit(Parser *P, Lit *l, bool in_list);

/* list = '[' [int {',' int}] ']',  int = ['-'] INT */
static bool parse_list(Parser *P, Lit *l) {
    l->kind = L_LIST;
    next(P);
    if (accept(P, ']'))
        return true;
    do {
        Lit e;
        if (!parse_lit(P, &e, true))
            return false;
        if (l->nlist == IR_MAX_RANK)
            return error_at(P, e.span, "a list has at most %d entries", IR_MAX_RANK);
        if (!int_of(P, &e, INT64_MIN, INT64_MAX, &l->list[l->nlist++]))
            return false;
    } while (accept(P, ','));
    return expect(P, ']');
}

/* value = ['-'] (INT | FLOAT | 'inf' | 'nan') | 'true' | 'false' | NAME | STRING | list */
static bool parse_lit(Parser *P, Lit *l, bool in_list) {
    *l = (Lit){.span = P->tok.span};
    if (P->tok.kind == '[' && !in_list)
        return parse_list(P, l);
    if (P->tok.kind == T_STRING) {
        l->kind = L_STRING;
        l->s = P->tok.str;
        next(P);
        return !P->failed;
    }
    l->neg = accept(P, '-');
    if (P->tok.kind == T_INT && !P->tok.big) {
        l->kind = L_INT;
        l->u = P->tok.u;
    } else if (P->tok.kind == T_FLOAT || is_word(P, "inf") || is_word(P, "nan")) {
        l->kind = L_FLOAT;
        l->f = P->tok.kind == T_FLOAT ? P->tok.f : is_word(P, "inf") ? HUGE_VAL : NAN;
        l->f = l->neg ? -l->f : l->f;
    } else if (!l->neg && (is_word(P, "true") || is_word(P, "false"))) {
        l->kind = L_BOOL;
        l->b = is_word(P, "true");
    } else if (!l->neg && P->tok.kind == T_IDENT) {
        l->kind = L_NAME;
        l->s = arena_strndup(P->arena, P->tok.start, P->tok.len);
    } else if (P->tok.kind == T_INT) {
        return error_at(P, P->tok.span, "integer literal too large");
    } else {
        return error_at(P, P->tok.span, "expected an attribute value, found %s", found(P));
    }
    next(P);
    return !P->failed;
}

/* attr-dict = '{' NAME '=' value {',' NAME '=' value} '}' */
static bool parse_attr_dict(Parser *P, AttrEntry *es, int *n) {
    next(P);
    do {
        if (P->tok.kind != T_IDENT)
            return error_at(P, P->tok.span, "expected an attribute name, found %s", found(P));
        if (*n == MAX_ATTRS)
            return error_at(P, P->tok.span, "too many attributes");
        AttrEntry *e = &es[(*n)++];
        e->key = arena_strndup(P->arena, P->tok.start, P->tok.len);
        e->span = P->tok.span;
        next(P);
        if (!expect(P, '=') || !parse_lit(P, &e->val, false))
            return false;
    } while (accept(P, ','));
    return expect(P, '}');
}

static bool int32_of(Parser *P, const Lit *l, int *out) {
    int64_t v = 0;
    if (!int_of(P, l, INT_MIN, INT_MAX, &v))
        return false;
    *out = (int)v;
    return true;
}

static bool bool_of(Parser *P, const Lit *l, bool *out) {
    if (l->kind != L_BOOL)
        return error_at(P, l->span, "expected true or false");
    *out = l->b;
    return true;
}

static bool enum_of(Parser *P, const Lit *l, const char *const *names, int *out) {
    char all[96] = "";
    for (int i = 0; names[i]; i++) {
        if (l->kind == L_NAME && !strcmp(names[i], l->s)) {
            *out = i;
            return true;
        }
        snprintf(all + strlen(all), sizeof all - strlen(all), "%s%s", i ? ", " : "", names[i]);
    }
    return error_at(P, l->span, "expected one of: %s", all);
}

/* CONST's value: a number for a float result, else an integer (true/false
 * for i1); u64 reads up to 2^64-1 and keeps the bit pattern. */
static bool set_const(Parser *P, Inst *in, const Lit *l) {
    DType dt = in->nresults ? (DType)P->f->values[in->results[0]].type.dtype : DT_I64;
    if (dt_is_fp(dt) && (l->kind == L_FLOAT || l->kind == L_INT)) {
        in->attr.f = l->kind == L_FLOAT ? l->f : l->neg ? -(double)l->u : (double)l->u;
        return true;
    }
    if (dt_is_fp(dt))
        return error_at(P, l->span, "expected a number");
    if (l->kind == L_BOOL) {
        in->attr.i = l->b;
        return true;
    }
    if (dt == DT_U64 && l->kind == L_INT && !l->neg) {
        in->attr.i = (int64_t)l->u;
        return true;
    }
    return int_of(P, l, INT64_MIN, INT64_MAX, &in->attr.i);
}

static bool key_allowed(const char *keys, const char *key) {
    size_t n = strlen(key);
    while (keys && *keys) {
        size_t m = strcspn(keys, " ");
        if (m == n && !memcmp(keys, key, n))
            return true;
        keys += m + (keys[m] == ' ');
    }
    return false;
}

/* One attribute of an op, after its results exist (CONST's value reads by
 * the result type). */
static bool apply_attr(Parser *P, Inst *in, const AttrEntry *e) {
    Attr *a = &in->attr;
    const Lit *l = &e->val;
    const char *k = e->key;
    if (!strcmp(k, "scratch")) { /* any op: its shared scratch from smem-alloc (irprint.c put_attrs) */
        if (l->kind != L_LIST || l->nlist != 2 || l->list[0] < 0 || l->list[1] <= 0 || l->list[0] > INT_MAX ||
            l->list[1] > INT_MAX)
            return error_at(P, l->span, "scratch must be [offset, bytes], bytes > 0");
        in->scratch_off = (int)l->list[0], in->scratch_size = (int)l->list[1];
        return true;
    }
    if (!key_allowed(ir_attr_keys[in->op], k))
        return error_at(P, e->span, "'%s' has no attribute '%s'", ir_ops[in->op].name, k);
    if (!strcmp(k, "value"))
        return set_const(P, in, l);
    if (!strcmp(k, "axis"))
        return int32_of(P, l, &a->axis);
    if (!strcmp(k, "offset"))
        return int32_of(P, l, &a->offset);
    if (!strcmp(k, "num") || !strcmp(k, "bytes") || !strcmp(k, "count") || !strcmp(k, "warps") ||
        !strcmp(k, "imprecise") || !strcmp(k, "xor"))
        return int32_of(P, l, &a->num);
    if (!strcmp(k, "warp_specialize")) {
        bool on = false;
        if (!bool_of(P, l, &on))
            return false;
        a->warp_spec = on ? 1 : -1;
        return true;
    }
    if (!strcmp(k, "num_stages"))
        return int32_of(P, l, &a->num_stages);
    if (!strcmp(k, "ws_hold"))
        return int32_of(P, l, &a->ws_hold);
    if (!strcmp(k, "flatten"))
        return bool_of(P, l, &a->flatten);
    if (!strcmp(k, "disable_licm"))
        return bool_of(P, l, &a->no_licm);
    if (!strcmp(k, "start"))
        return int_of(P, l, INT64_MIN, INT64_MAX, &a->start);
    if (!strcmp(k, "end"))
        return int_of(P, l, INT64_MIN, INT64_MAX, &a->end);
    if (!strcmp(k, "box")) { /* a tensor map's box: [rows, cols], each 1 .. 256 (TMA's limit) */
        if (l->kind != L_LIST || l->nlist != 2 || l->list[0] < 1 || l->list[0] > 256 || l->list[1] < 1 ||
            l->list[1] > 256)
            return error_at(P, l->span, "box must be [rows, cols], each 1 .. 256");
        a->vals[0] = l->list[0], a->vals[1] = l->list[1];
        return true;
    }
    if (!strcmp(k, "nan"))
        return bool_of(P, l, &a->nan);
    if (!strcmp(k, "vals") || !strcmp(k, "perm")) {
        if (l->kind != L_LIST)
            return error_at(P, l->span, "expected a list [...]");
        for (int i = 0; i < l->nlist; i++) {
            if (k[0] == 'v')
                a->vals[i] = l->list[i];
            else if (l->list[i] >= INT_MIN && l->list[i] <= INT_MAX)
                a->perm[i] = (int)l->list[i];
            else
                return error_at(P, l->span, "integer out of range");
        }
        return true;
    }
    if (!strcmp(k, "pred"))
        return enum_of(P, l, ir_cmp_names, &a->pred);
    if (!strcmp(k, "kind"))
        return in->op == IR_REDUCE ? enum_of(P, l, ir_reduce_names, &a->reduce)
                                   : enum_of(P, l, ir_rmw_names, &a->rmw);
    if (!strcmp(k, "precision"))
        return enum_of(P, l, ir_precision_names, &a->precision);
    if (!strcmp(k, "cache"))
        return enum_of(P, l, ir_cache_names, &a->cache);
    if (!strcmp(k, "evict"))
        return enum_of(P, l, ir_evict_names, &a->evict);
    if (!strcmp(k, "volatile"))
        return bool_of(P, l, &a->is_volatile);
    if (!strcmp(k, "sem"))
        return enum_of(P, l, ir_sem_names, &a->sem);
    if (!strcmp(k, "scope"))
        return enum_of(P, l, ir_scope_names, &a->scope);
    if (!strcmp(k, "keep_dims"))
        return bool_of(P, l, &a->keep_dims);
    if (!strcmp(k, "hex"))
        return bool_of(P, l, &a->hex);
    if (!strcmp(k, "reverse"))
        return bool_of(P, l, &a->reverse);
    if (!strcmp(k, "rn"))
        return bool_of(P, l, &a->rn);
    if (!strcmp(k, "rtz"))
        return bool_of(P, l, &a->rtz);
    if (!strcmp(k, "ragged")) {
        bool on = false;
        if (!bool_of(P, l, &on))
            return false;
        a->num = on;
        return true;
    }
    if (!strcmp(k, "prefix") || !strcmp(k, "msg") || !strcmp(k, "fn") || !strcmp(k, "asm")) {
        a->str = l->s;
        return l->kind == L_STRING || error_at(P, l->span, "expected a string");
    }
    if (!strcmp(k, "constraints")) {
        a->str2 = l->s;
        return l->kind == L_STRING || error_at(P, l->span, "expected a string");
    }
    if (!strcmp(k, "pure"))
        return bool_of(P, l, &a->pure);
    if (!strcmp(k, "pack"))
        return int32_of(P, l, &a->pack);
    return error_at(P, e->span, "attribute '%s' is listed for '%s' but not parsed", k, ir_ops[in->op].name);
}

/* ---- ops and regions ---- */

static bool parse_insts(Parser *P, Block *b, int depth);

static int region_count(OpCode op) {
    return !ir_region_labels[op][0] ? 0 : !ir_region_labels[op][1] ? 1 : 2;
}

/* region = '{' [LABEL '(' [decl {',' decl}] ')' ':'] inst* '}',  decl = VALUE ':' type */
static Block *parse_region(Parser *P, Inst *parent, int depth) {
    if (depth > MAX_DEPTH) {
        error_at(P, P->tok.span, "regions nested more than %d deep", MAX_DEPTH);
        return NULL;
    }
    if (!expect(P, '{'))
        return NULL;
    Block *blk = ir_block_new(P->f);
    blk->parent = parent;
    if (accept(P, T_LABEL)) {
        Ref *refs = NULL;
        int n = 0, cap = 0;
        if (!expect(P, '('))
            return NULL;
        if (P->tok.kind != ')') {
            do {
                Type t;
                int li;
                refs = arena_grow(P->arena, refs, n, &cap, sizeof *refs);
                if (!parse_ref(P, &refs[n]) || !expect(P, ':') || !parse_type(P, &t, &li) ||
                    !define_value(P, &refs[n], t, li, NULL, blk))
                    return NULL;
                n++;
            } while (accept(P, ','));
        }
        if (!expect(P, ')') || !expect(P, ':'))
            return NULL;
        blk->args = arena_alloc(P->arena, sizeof(ValueId) * (size_t)(n ? n : 1));
        for (int i = 0; i < n; i++)
            blk->args[i] = refs[i].id;
        blk->nargs = n;
    }
    return parse_insts(P, blk, depth) ? blk : NULL;
}

static bool op_named(const Tok *t, OpCode *op) {
    for (int i = 0; i < IR__NUM; i++)
        if (strlen(ir_ops[i].name) == t->len && !memcmp(ir_ops[i].name, t->start, t->len)) {
            *op = (OpCode)i;
            return true;
        }
    return false;
}

/* inst = [refs '='] OPNAME [operands] ['iter' '(' [operands] ')'] [attr-dict]
 *        [':' types] {region-keyword region}
 * 'iter' is for's carried values; the number of regions is the op's; the
 * operands begin on the line of OPNAME. */
static bool parse_inst(Parser *P, Block *b, int depth) {
    Function *f = P->f;
    Ref *res = NULL;
    int nres = 0, rescap = 0;
    if (P->tok.kind == T_VALUE && (!parse_refs(P, &res, &nres, &rescap) || !expect(P, '=')))
        return false;

    OpCode op;
    Span opspan = P->tok.span;
    if (P->tok.kind != T_IDENT)
        return error_at(P, P->tok.span, "expected an op, found %s", found(P));
    if (!op_named(&P->tok, &op))
        return error_at(P, P->tok.span, "unknown op %s", found(P));
    next(P);

    /* Operands start on the op's line: otherwise "barrier" followed by a
     * line "%5 = ..." would take %5 as an operand. */
    ValueId *args = NULL;
    int nargs = 0, argcap = 0;
    if (P->tok.kind == T_VALUE && P->tok.span.line == opspan.line && !parse_operands(P, &args, &nargs, &argcap))
        return false;
    if (op == IR_FOR && is_word(P, "iter")) {
        next(P);
        if (!expect(P, '(') || (P->tok.kind != ')' && !parse_operands(P, &args, &nargs, &argcap)) ||
            !expect(P, ')'))
            return false;
    }
    AttrEntry attrs[MAX_ATTRS];
    int nattrs = 0;
    if (at_attr_dict(P) && !parse_attr_dict(P, attrs, &nattrs))
        return false;
    Type *types = NULL;
    int *layouts = NULL, ntypes = 0;
    if (nres && P->tok.kind != ':')
        return error_at(P, P->tok.span, "expected ':' and the result types, found %s", found(P));
    if (accept(P, ':') && !parse_types(P, &types, &layouts, &ntypes))
        return false;
    if (P->failed)
        return false;
    if (ntypes != nres)
        return error_at(P, opspan, "%d result%s but %d result type%s", nres, nres == 1 ? "" : "s", ntypes,
                        ntypes == 1 ? "" : "s");

    Inst *in = ir_inst_new(f, b, op, args, nargs, NULL, 0, opspan);
    in->results = arena_alloc(P->arena, sizeof(ValueId) * (size_t)(nres ? nres : 1));
    for (int i = 0; i < nres; i++) {
        if (!define_value(P, &res[i], types[i], layouts[i], in, NULL))
            return false;
        in->results[in->nresults++] = res[i].id;
    }
    /* The operand count is how the text says whether there is a mask / other. */
    in->attr.has_mask = op == IR_LOAD ? nargs >= 2 : (op == IR_STORE || op == IR_ATOMIC_RMW || op == IR_ASYNC_COPY) && nargs >= 3;
    in->attr.has_other = op == IR_LOAD && nargs >= 3;
    for (int i = 0; i < nattrs; i++)
        if (!apply_attr(P, in, &attrs[i]))
            return false;

    for (int i = 0; i < region_count(op); i++) {
        if (i && !expect_word(P, ir_region_labels[op][i]))
            return false;
        if (!(in->regions[i] = parse_region(P, in, depth + 1)))
            return false;
        in->nregions++;
    }
    return true;
}

/* insts = inst* '}' */
static bool parse_insts(Parser *P, Block *b, int depth) {
    while (!accept(P, '}')) {
        if (P->tok.kind == T_EOF)
            return error_at(P, P->tok.span, "expected '}' before the end of the input");
        if (!parse_inst(P, b, depth))
            return false;
    }
    return !P->failed;
}

/* ---- functions ---- */

/* param = VALUE ':' type [attr-dict]      (attributes: div, equal_to_1, nonneg, above1, tensormap, tma, box,
 *                                         tma_mul, scratch)
 * Parameters are %1, %2, ... in order: Function.params[i] is value i+1. */
static bool parse_param(Parser *P) {
    Function *f = P->f;
    Tok v = P->tok;
    Type t;
    if (v.kind != T_VALUE)
        return error_at(P, v.span, "expected a parameter (%%N), found %s", found(P));
    if (v.u != (uint64_t)f->nparams + 1)
        return error_at(P, v.span, "parameters are numbered %%1, %%2, ... in order: expected %%%d",
                        f->nparams + 1);
    next(P);
    if (!expect(P, ':') || !parse_type(P, &t, NULL))
        return false;
    ir_param(f, v.name ? arena_strndup(P->arena, v.name, v.name_len) : "", t);
    Param *p = &f->params[f->nparams - 1];
    AttrEntry es[MAX_ATTRS];
    int n = 0;
    if (at_attr_dict(P) && !parse_attr_dict(P, es, &n))
        return false;
    for (int i = 0; i < n; i++) {
        if (!strcmp(es[i].key, "div")) {
            if (!int32_of(P, &es[i].val, &p->divisibility))
                return false;
        } else if (!strcmp(es[i].key, "equal_to_1")) {
            if (!bool_of(P, &es[i].val, &p->equal_to_1))
                return false;
        } else if (!strcmp(es[i].key, "tensormap")) {
            if (!bool_of(P, &es[i].val, &p->tensormap))
                return false;
        } else if (!strcmp(es[i].key, "nonneg")) {
            if (!bool_of(P, &es[i].val, &p->nonneg))
                return false;
        } else if (!strcmp(es[i].key, "above1")) {
            if (!bool_of(P, &es[i].val, &p->above1))
                return false;
        } else if (!strcmp(es[i].key, "scratch")) {
            if (!bool_of(P, &es[i].val, &p->scratch))
                return false;
        } else if (!strcmp(es[i].key, "tma") || !strcmp(es[i].key, "box") || !strcmp(es[i].key, "tma_mul")) {
            /* tma = [base, rows, cols, row stride], box = [rows, cols], tma_mul = [rows x, rows x,
             * cols x, cols x] (ir.h TmaSource) */
            bool box = es[i].key[0] == 'b', mul = !strcmp(es[i].key, "tma_mul");
            const Lit *l = &es[i].val;
            if (l->kind != L_LIST || l->nlist != (box ? 2 : 4))
                return error_at(P, es[i].span, "'%s' needs a list of %d integers", es[i].key, box ? 2 : 4);
            for (int k = 0; k < l->nlist; k++) {
                if (l->list[k] < INT32_MIN || l->list[k] > INT32_MAX || (box && (l->list[k] < 1 || l->list[k] > 256)) ||
                    (!box && !mul && ((k == 0 && l->list[k] < 1) || l->list[k] == 0)))
                    return error_at(P, es[i].span, "'%s' entry %d is out of range", es[i].key, k + 1);
                int32_t x = (int32_t)l->list[k];
                TmaSource *t = &p->tma;
                *(box ? &t->box[k] : mul ? &t->dim[k / 2][1 + k % 2] : k == 3 ? &t->stride : k ? &t->dim[k - 1][0]
                                                                                          : &t->base) = x;
            }
        } else {
            return error_at(P, es[i].span, "unknown parameter attribute '%s'", es[i].key);
        }
    }
    return true;
}

/* func = 'func' GLOBAL '(' [param {',' param}] ')' [attr-dict] '{' insts
 * (attributes: num_warps, num_stages, auto_tma, warp_specialize, no_fp_fusion, maxnreg, producer_warps,
 * global_scratch; shared: the bytes smem_alloc_pass gave) */
static Function *parse_func(Parser *P) {
    if (!expect_word(P, "func"))
        return NULL;
    if (P->tok.kind != T_GLOBAL) {
        error_at(P, P->tok.span, "expected a function name (@name), found %s", found(P));
        return NULL;
    }
    Function *f = current_func(P); /* made already if layout aliases came first */
    f->name = arena_strndup(P->arena, P->tok.name, P->tok.name_len);
    next(P);
    if (!expect(P, '('))
        return NULL;
    if (P->tok.kind != ')') {
        do {
            if (!parse_param(P))
                return NULL;
        } while (accept(P, ','));
    }
    if (!expect(P, ')'))
        return NULL;
    AttrEntry es[MAX_ATTRS];
    int n = 0;
    if (at_attr_dict(P) && !parse_attr_dict(P, es, &n))
        return NULL;
    for (int i = 0; i < n; i++) {
        bool warps = !strcmp(es[i].key, "num_warps"), shared = !strcmp(es[i].key, "shared");
        if (!strcmp(es[i].key, "auto_tma") || !strcmp(es[i].key, "warp_specialize") ||
            !strcmp(es[i].key, "no_fp_fusion")) {
            if (!bool_of(P, &es[i].val, es[i].key[0] == 'a' ? &f->auto_tma : es[i].key[0] == 'w' ? &f->warp_spec
                                                                                                  : &f->no_fp_fusion))
                return NULL;
            continue;
        }
        if (!strcmp(es[i].key, "producer_warps") || !strcmp(es[i].key, "maxnreg") ||
            !strcmp(es[i].key, "global_scratch")) {
            if (!int32_of(P, &es[i].val, es[i].key[0] == 'p' ? &f->producer_warps : es[i].key[0] == 'm'
                                                                                      ? &f->maxnreg
                                                                                      : &f->global_scratch))
                return NULL;
            continue;
        }
        if (!warps && !shared && strcmp(es[i].key, "num_stages")) {
            error_at(P, es[i].span, "unknown function attribute '%s'", es[i].key);
            return NULL;
        }
        if (!int32_of(P, &es[i].val, warps ? &f->num_warps : shared ? &f->shared_bytes : &f->num_stages))
            return NULL;
        f->smem_allocated |= shared;
    }
    if (!expect(P, '{') || !parse_insts(P, f->body, 0))
        return NULL;
    return f;
}

/* module = { {alias} func } */
Module *ir_parse(Arena *a, Diag *d, const Source *src) {
    Parser P = {
        .arena = a, .d = d, .src = src,
        .p = src->text, .end = src->text + src->len, .line_start = src->text, .line = 1,
    };
    Module *m = ir_module_new(a);
    next(&P);
    while (P.tok.kind != T_EOF) {
        while (P.tok.kind == T_HASH)
            if (!parse_alias(&P))
                return NULL;
        Function *f = parse_func(&P);
        if (!f)
            break;
        ir_module_add(m, f);
        P.f = NULL;
    }
    return P.failed ? NULL : m;
}
