/* ast.h: the syntax tree of a .tl file (the boundary between lang/ and compiler/).
 *
 * One generic node type, chibicc-style: a kind, a source span, and a few slots
 * whose meaning depends on the kind (documented per kind below). Every node
 * carries the span of the source text it came from, for diagnostics. Nodes live
 * in the Arena passed to the parser. */
#ifndef TL_AST_H
#define TL_AST_H

#include "diag.h"

typedef struct Node Node;

typedef struct NodeList {
    Node **items;
    int len, cap;
} NodeList;

/* Operators (unary, binary, comparison, boolean, augmented assignment). */
typedef enum {
    OP_NONE,
    OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD, OP_POW, OP_MATMUL,
    OP_LSHIFT, OP_RSHIFT, OP_BITAND, OP_BITOR, OP_BITXOR,
    OP_NEG, OP_POS, OP_INVERT, OP_NOT,                     /* unary: - + ~ not */
    OP_AND, OP_OR,                                         /* boolean */
    OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE,              /* comparison */
    OP_IS, OP_ISNOT, OP_IN, OP_NOTIN,
    OP__COUNT
} Op;

typedef enum {
    /* ---- expressions ---- */
    N_NAME,      /* name */
    N_INT,       /* ival */
    N_FLOAT,     /* fval; name = literal spelling */
    N_STR,       /* name = decoded contents (NUL-terminated), ival = length; op = OP_MOD for an
                    f-string (sema fills in its replacement fields at compile time) */
    N_NONE,      /* None */
    N_TRUE,      /* True */
    N_FALSE,     /* False */
    N_ATTR,      /* a.name */
    N_CALL,      /* a(l0...); l0 holds positional args then N_KWARG nodes */
    N_KWARG,     /* name=a in a call; name NULL and op=OP_POW for **a, op=OP_MUL for *a */
    N_SUBSCRIPT, /* a[b]; b is an N_TUPLE when there are several indices */
    N_SLICE,     /* a:b:c inside a subscript; absent parts are NULL */
    N_TUPLE,     /* (l0...) or bare a, b */
    N_LIST,      /* [l0...] */
    N_DICT,      /* {l0[i]: l1[i]} */
    N_UNARY,     /* op a */
    N_BINARY,    /* a op b (arithmetic, bitwise, comparison) */
    N_BOOLOP,    /* a op b with op OP_AND / OP_OR */
    N_IFEXP,     /* a if b else c */
    N_LISTCOMP,  /* [a l0...]: l0 the clauses, N_FOR (a target, b iterable) and N_IF (a); host code only */
    N_LAMBDA,    /* lambda l0 (N_PARAM nodes): a; only a value of @triton.heuristics({...}) */

    /* ---- statements ---- */
    N_EXPR_STMT, /* a */
    N_ASSIGN,    /* l0 targets (a = b = value chains) = a value; each target may be an N_TUPLE */
    N_ANNASSIGN, /* a : b (= c)? */
    N_AUGASSIGN, /* a op= b */
    N_IF,        /* if a: l0 else l1 (an elif is an N_IF alone in l1, with ival=1) */
    N_FOR,       /* for a in b: l0 (else l1) */
    N_WHILE,     /* while a: l0 (else l1) */
    N_BREAK,
    N_CONTINUE,
    N_RETURN,    /* return a (a may be NULL) */
    N_PASS,
    N_ASSERT,    /* assert a, b (b may be NULL) */
    N_RAISE,     /* raise a [from b] (a may be NULL: a bare raise) */

    /* ---- module level ---- */
    N_IMPORT,      /* import l0 (N_ALIAS nodes) */
    N_IMPORT_FROM, /* from name import l0 (N_ALIAS nodes); ival = leading dots */
    N_ALIAS,       /* name (as str2) */
    N_FUNCDEF,     /* l2 decorators (expressions), def name(l0 params) -> a: l1 body */
    N_PARAM,       /* name: a = b; op=OP_MUL for *name, OP_POW for **name */
    N_CLASSDEF,    /* class name(a): l0 body; a typing.NamedTuple class (a is its base),
                    * the body its fields (N_ANNASSIGN) */
    N_MODULE,      /* l0 statements; l1 the host code set aside (N_HOST) */
    N_HOST,        /* host code tl does not compile: name = what it defines (or NULL),
                    * str2 = why it is not kernel language (NULL: it is, but runs on the host) */
    N__COUNT
} NodeKind;

struct Node {
    NodeKind kind;
    Span span;
    Op op;
    bool paren;        /* expression was written in parentheses */
    const char *name;  /* identifier / attribute / keyword / string contents */
    const char *str2;  /* N_ALIAS: the "as" name */
    int64_t ival;
    double fval;
    Node *a, *b, *c;
    NodeList l0, l1, l2;
};

/* Parse a whole file. Returns an N_MODULE, or NULL if any error was reported
 * (diagnostics go to d). The source must stay alive as long as the tree. */
Node *parse_source(Arena *arena, Diag *d, const Source *src);

/* The front end's second try at a file that does not parse (host.c): the
 * text with every top-level statement that is neither a kernel nor in the
 * kernel language blanked, each recorded in *host; NULL if none was, or if
 * the file has no kernel at all (then its errors are the ones to show). */
char *host_blank(Arena *a, const Source *src, Node *(*parse)(Arena *, Diag *, const Source *),
                 NodeList *host);

/* Construction helpers used by the parser. */
Node *ast_new(Arena *arena, NodeKind kind, Span sp);
void ast_push(Arena *arena, NodeList *l, Node *n);

/* Names for printing. */
const char *ast_kind_name(NodeKind k);
const char *ast_op_str(Op op); /* "+", "//", "not", "is not", ... */

/* Print the tree in the indented S-expression form of `tlc --emit=ast`. */
void ast_print(Buf *out, const Node *n);

#endif
