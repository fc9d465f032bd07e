/* sema_fstr.c: f-strings, formatted at compile time as Triton does
 * (code_generator.visit_JoinedStr): each replacement field {EXPR[=][!c][:spec]}
 * is an expression of the kernel, evaluated where the f-string stands; its
 * value must be known at compile time (a constexpr, a number, a string, a
 * dtype, a tuple of them) and is formatted as Python would (str, or repr with
 * !r, and the format-spec mini-language for numbers and strings). A runtime
 * value is an error, as in Triton, so static_assert / static_print / print
 * messages never show their braces.
 *
 * Each field's expression is parsed by the front end on its own (as Python
 * does) and every node of it is placed at the f-string, so an error inside
 * points at the literal that holds it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema_int.h"

/* Python's str(): a string as it is, a dtype by Triton's name (fp32,
 * pointer<fp16>), anything else as its repr. */
static void put_str(Buf *b, Val v) {
    if (v.k == V_STR)
        buf_putn(b, v.s, (size_t)v.n);
    else if (v.k == V_DTYPE && !v.ty.rank && v.ty.dtype == DT_PTR)
        buf_printf(b, "pointer<%s>", sema_dtype_name((DType)v.ty.pointee));
    else if (v.k == V_DTYPE && !v.ty.rank)
        buf_puts(b, sema_dtype_name((DType)v.ty.dtype));
    else
        sema_repr(b, v);
}

typedef struct Spec {
    char fill, align, sign, type, group;
    bool alt;
    int width, prec; /* -1: not given */
} Spec;

/* [[fill]align][sign][#][0][width][,|_][.precision][type]; false if malformed. */
static bool parse_spec(const char *p, Spec *f) {
    *f = (Spec){.fill = ' ', .width = -1, .prec = -1};
    if (p[0] && p[1] && strchr("<>=^", p[1]))
        f->fill = p[0], f->align = p[1], p += 2;
    else if (p[0] && strchr("<>=^", p[0]))
        f->align = *p++;
    if (*p && strchr("+- ", *p))
        f->sign = *p++;
    if (*p == '#')
        f->alt = true, p++;
    if (*p == '0' && !f->align)
        f->fill = '0', f->align = '=', p++;
    for (; *p >= '0' && *p <= '9' && f->width < 10000; p++)
        f->width = (f->width < 0 ? 0 : f->width * 10) + (*p - '0');
    if (*p == ',' || *p == '_')
        f->group = *p++;
    if (*p == '.') {
        f->prec = 0;
        if (*++p < '0' || *p > '9')
            return false;
        for (; *p >= '0' && *p <= '9' && f->prec < 10000; p++)
            f->prec = f->prec * 10 + (*p - '0');
    }
    if (*p && strchr("bcdoxXneEfFgG%s", *p))
        f->type = *p++;
    return !*p && f->width < 10000 && f->prec < 1000;
}

/* Digits with a separator every n from the right. */
static void group_digits(Buf *b, const char *d, char sep, int n) {
    size_t len = strcspn(d, ".eE");
    for (size_t i = 0; i < len; i++) {
        buf_putc(b, d[i]);
        if (sep && (len - 1 - i) % (size_t)n == 0 && i + 1 < len)
            buf_putc(b, sep);
    }
    buf_puts(b, d + len);
}

/* The number's text without sign: an integer in base 2/8/10/16, or a float. */
static bool number_body(Buf *b, Val v, const Spec *f, bool *neg) {
    char tmp[2400];
    char t = f->type;
    bool is_float = v.k == V_FLOAT || (t && strchr("eEfFgG%", t));
    if (!is_float) {
        unsigned long long u = v.i < 0 ? 0ULL - (unsigned long long)v.i : (unsigned long long)v.i;
        *neg = v.i < 0;
        int base = t == 'b' ? 2 : t == 'o' ? 8 : t == 'x' || t == 'X' ? 16 : 10;
        if (t == 'c' || (f->prec >= 0))
            return false; /* no precision for an integer (Python's ValueError), 'c' not supported */
        char *p = tmp + sizeof tmp - 1;
        *p = 0;
        do
            *--p = "0123456789abcdef0123456789ABCDEF"[u % (unsigned)base + (t == 'X' ? 16 : 0)];
        while (u /= (unsigned)base);
        if (f->alt && base != 10)
            buf_puts(b, base == 2 ? "0b" : base == 8 ? "0o" : t == 'X' ? "0X" : "0x");
        group_digits(b, p, f->group, base == 10 ? 3 : 4);
        return true;
    }
    double x = v.k == V_FLOAT ? v.f : (double)v.i;
    *neg = x < 0 || (x == 0 && 1 / x < 0);
    x = *neg ? -x : x;
    if (!t && f->prec < 0) { /* Python's repr of a float */
        Buf r = {0};
        buf_put_double(&r, x);
        group_digits(b, r.data, f->group, 3);
        buf_free(&r);
        return true;
    }
    int prec = f->prec < 0 ? 6 : f->prec;
    char ct = !t ? 'g' : t == '%' ? 'f' : t == 'F' ? 'f' : t;
    char fmt[16];
    snprintf(fmt, sizeof fmt, "%%%s.*%c", f->alt ? "#" : "", ct);
    snprintf(tmp, sizeof tmp, fmt, prec, t == '%' ? x * 100 : x);
    if (!t && !strpbrk(tmp, ".eEni")) /* no type: 'g' keeping a digit after the point (1.0) */
        strcat(tmp, ".0");
    if (t == 'F')
        for (char *q = tmp; *q; q++)
            *q = *q == 'i' ? 'I' : *q == 'n' ? 'N' : *q == 'f' ? 'F' : *q == 'a' ? 'A' : *q;
    group_digits(b, tmp, f->group, 3);
    if (t == '%')
        buf_putc(b, '%');
    return true;
}

/* format(v, spec) into out; false when spec does not apply to v. */
static bool format_value(Buf *out, Val v, const char *spec) {
    Spec f;
    if (!*spec) {
        put_str(out, v);
        return true;
    }
    if (!parse_spec(spec, &f))
        return false;
    Buf body = {0};
    const char *sign = "";
    size_t head = 0; /* sign and 0x prefix: '=' pads after them */
    char align = f.align;
    if (v.k == V_STR) {
        if ((f.type && f.type != 's') || f.sign || f.alt || f.group || f.align == '=')
            return false;
        buf_putn(&body, v.s, (size_t)(f.prec >= 0 && f.prec < v.n ? f.prec : v.n));
        align = align ? align : '<';
    } else if (v.k == V_INT || v.k == V_BOOL || v.k == V_FLOAT) {
        bool neg;
        if (f.type == 's' || !number_body(&body, v, &f, &neg)) {
            buf_free(&body);
            return false;
        }
        sign = neg ? "-" : f.sign == '+' ? "+" : f.sign == ' ' ? " " : "";
        head = strlen(sign) + (f.alt && body.len > 1 && body.data[0] == '0' && strchr("bBoOxX", body.data[1]) ? 2 : 0);
        align = align ? align : '>';
    } else {
        return false; /* a dtype, a tuple, ...: only the empty spec, as their __format__ */
    }
    Buf all = {0};
    buf_puts(&all, sign);
    if (body.len)
        buf_putn(&all, body.data, body.len);
    buf_free(&body);
    size_t len = all.len, pad = f.width > 0 && (size_t)f.width > len ? (size_t)f.width - len : 0;
    size_t left = align == '<' ? 0 : align == '^' ? pad / 2 : pad;
    if (align == '=') {
        buf_putn(out, all.data, head);
        for (size_t i = 0; i < pad; i++)
            buf_putc(out, f.fill);
        buf_putn(out, all.data + head, len - head);
    } else {
        for (size_t i = 0; i < left; i++)
            buf_putc(out, f.fill);
        if (len)
            buf_putn(out, all.data, len);
        for (size_t i = left; i < pad; i++)
            buf_putc(out, f.fill);
    }
    buf_free(&all);
    return true;
}

static void place_at(Node *n, Span sp) {
    if (!n)
        return;
    n->span = sp;
    place_at(n->a, sp), place_at(n->b, sp), place_at(n->c, sp);
    const NodeList *ls[3] = {&n->l0, &n->l1, &n->l2};
    for (int k = 0; k < 3; k++)
        for (int i = 0; i < ls[k]->len; i++)
            place_at(ls[k]->items[i], sp);
}

/* The expression of one replacement field, parsed alone. */
static const Node *field_expr(Sema *s, const char *text, size_t n, Span sp) {
    Source *src = arena_alloc(s->a, sizeof(Source));
    /* inside a def: a module-level expression would be host code */
    char *t = arena_printf(s->a, "def f():\n    (%.*s\n)\n", (int)n, text);
    *src = (Source){.name = "<f-string>", .text = t, .len = strlen(t)};
    Diag quiet = {0};
    Node *m = parse_source(s->a, &quiet, src);
    buf_free(&quiet.out);
    const Node *fn = m && m->l0.len == 1 ? m->l0.items[0] : NULL;
    if (!fn || fn->kind != N_FUNCDEF || fn->l0.len || fn->l1.len != 1 || fn->l1.items[0]->kind != N_EXPR_STMT)
        sema_fail(s, sp, "bad expression '%.*s' in an f-string", (int)n, text);
    Node *e = fn->l1.items[0]->a;
    place_at(e, sp);
    return e;
}

/* Where the replacement field starting at p ends ('}' at depth 0), and where
 * its expression ends (a '!' that is not '!=', or a ':', at depth 0). */
static const char *field_end(const char *p, const char **expr_end) {
    int depth = 0;
    char quote = 0;
    *expr_end = NULL;
    for (; *p; p++) {
        if (quote) {
            quote = *p == quote ? 0 : quote;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
        } else if (strchr("([{", *p)) {
            depth++;
        } else if (depth && strchr(")]}", *p)) {
            depth--;
        } else if (!depth && *p == '}') {
            if (!*expr_end)
                *expr_end = p;
            return p;
        } else if (!depth && !*expr_end && (*p == ':' || (*p == '!' && p[1] != '='))) {
            *expr_end = p;
        }
    }
    return NULL;
}

Val sema_fstring(Sema *s, const Node *n) {
    const char *p = n->name ? n->name : "", *end = p + n->ival;
    Buf b = {0};
    while (p < end) {
        if ((*p == '{' && p[1] == '{') || (*p == '}' && p[1] == '}')) {
            buf_putc(&b, *p);
            p += 2;
            continue;
        }
        if (*p == '}')
            sema_fail(s, n->span, "single '}' is not allowed in an f-string (a literal brace is '}}')");
        if (*p != '{') {
            buf_putc(&b, *p++);
            continue;
        }
        const char *ee, *fe = field_end(p + 1, &ee);
        if (!fe)
            sema_fail(s, n->span, "expecting '}' in an f-string");
        const char *ex = p + 1;
        size_t elen = (size_t)(ee - ex);
        while (elen && strchr(" \t", ex[elen - 1]))
            elen--;
        bool self_doc = elen && ex[elen - 1] == '=' && (elen < 2 || !strchr("=!<>", ex[elen - 2]));
        if (self_doc) /* {x=}: the text, then the value (repr unless a conversion or spec says) */
            buf_putn(&b, ex, (size_t)(ee - ex));
        if (elen - self_doc == 0)
            sema_fail(s, n->span, "empty expression in an f-string");
        Val v = sema_eval_expr(s, field_expr(s, ex, elen - self_doc, n->span));
        if (v.k == V_TENSOR || sema_has_tensor(v))
            sema_fail(s, n->span, "the f-string's field {%.*s} is %s, known only when the kernel runs: an f-string "
                      "can format only compile-time values (as in Triton)", (int)(elen - self_doc), ex,
                      sema_describe(s, v));
        char conv = self_doc ? 'r' : 0;
        const char *spec = "";
        if (*ee == '!') {
            conv = ee[1];
            if (!conv || !strchr("rsa", conv) || (ee[2] != ':' && ee[2] != '}'))
                sema_fail(s, n->span, "bad conversion '!%.*s' in an f-string (expected !r, !s or !a)",
                          (int)strcspn(ee + 1, ":}"), ee + 1);
            ee += 2;
        }
        if (*ee == ':') {
            spec = arena_strndup(s->a, ee + 1, (size_t)(fe - ee - 1));
            if (strchr(spec, '{'))
                sema_fail(s, n->span, "nested replacement fields in a format spec ('%s') are not supported", spec);
            conv = conv == 'r' && self_doc && *ee == ':' ? 0 : conv;
        }
        if (conv == 'r' || conv == 'a') {
            Buf r = {0};
            sema_repr(&r, v);
            v = sema_str(s, r.data ? r.data : "", (int)r.len);
            buf_free(&r);
        }
        if (!format_value(&b, v, spec))
            sema_fail(s, n->span, "format spec '%s' does not apply to %s in an f-string", spec, sema_describe(s, v));
        p = fe + 1;
    }
    Val r = sema_str(s, b.data ? b.data : "", (int)b.len);
    buf_free(&b);
    return r;
}
