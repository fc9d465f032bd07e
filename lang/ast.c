/* ast.c: syntax tree construction helpers and the `tlc --emit=ast` printer.
 *
 * The printed form is an indented S-expression, one node per line, two spaces
 * per level:
 *
 *   (Kind key-fields [paren] @line:col-endline:endcol
 *     child ...
 *     (label
 *       child ...))
 *
 * Children appear in slot order (a, b, c, then the lists). Lists, and slots
 * whose meaning is not clear from their position, sit under a label line
 * ("(body", "(params", "(annotation" ...); empty lists and absent optional
 * slots are left out. docs/language.md documents the form per kind. */
#include "ast.h"

#include <inttypes.h>
#include <string.h>

Node *ast_new(Arena *arena, NodeKind kind, Span sp) {
    Node *n = arena_alloc(arena, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->span = sp;
    return n;
}

void ast_push(Arena *arena, NodeList *l, Node *n) {
    Node **items = arena_grow(arena, l->items, l->len, &l->cap, sizeof *items);
    if (!items)
        return;
    l->items = items;
    l->items[l->len++] = n;
}

static const char *kind_names[N__COUNT] = {
    [N_NAME] = "Name",         [N_INT] = "Int",
    [N_FLOAT] = "Float",       [N_STR] = "Str",
    [N_NONE] = "None",         [N_TRUE] = "True",
    [N_FALSE] = "False",       [N_ATTR] = "Attr",
    [N_CALL] = "Call",         [N_KWARG] = "Kwarg",
    [N_SUBSCRIPT] = "Subscript", [N_SLICE] = "Slice",
    [N_TUPLE] = "Tuple",       [N_LIST] = "List",
    [N_DICT] = "Dict",         [N_UNARY] = "Unary",
    [N_BINARY] = "Binary",     [N_BOOLOP] = "BoolOp",
    [N_IFEXP] = "IfExp",       [N_LISTCOMP] = "ListComp",
    [N_LAMBDA] = "Lambda",     [N_EXPR_STMT] = "ExprStmt",
    [N_ASSIGN] = "Assign",     [N_ANNASSIGN] = "AnnAssign",
    [N_AUGASSIGN] = "AugAssign", [N_IF] = "If",
    [N_FOR] = "For",           [N_WHILE] = "While",
    [N_BREAK] = "Break",       [N_CONTINUE] = "Continue",
    [N_RETURN] = "Return",     [N_PASS] = "Pass",
    [N_ASSERT] = "Assert",     [N_RAISE] = "Raise",     [N_IMPORT] = "Import",
    [N_IMPORT_FROM] = "ImportFrom", [N_ALIAS] = "Alias",
    [N_FUNCDEF] = "FuncDef",   [N_PARAM] = "Param",     [N_CLASSDEF] = "ClassDef",
    [N_MODULE] = "Module", [N_HOST] = "Host",
};

const char *ast_kind_name(NodeKind k) {
    if ((unsigned)k < N__COUNT && kind_names[k])
        return kind_names[k];
    return "?";
}

static const char *op_names[OP__COUNT] = {
    [OP_NONE] = "",     [OP_ADD] = "+",      [OP_SUB] = "-",     [OP_MUL] = "*",
    [OP_DIV] = "/",     [OP_FLOORDIV] = "//", [OP_MOD] = "%",    [OP_POW] = "**",
    [OP_MATMUL] = "@",  [OP_LSHIFT] = "<<",  [OP_RSHIFT] = ">>", [OP_BITAND] = "&",
    [OP_BITOR] = "|",   [OP_BITXOR] = "^",   [OP_NEG] = "-",     [OP_POS] = "+",
    [OP_INVERT] = "~",  [OP_NOT] = "not",    [OP_AND] = "and",   [OP_OR] = "or",
    [OP_LT] = "<",      [OP_LE] = "<=",      [OP_GT] = ">",      [OP_GE] = ">=",
    [OP_EQ] = "==",     [OP_NE] = "!=",      [OP_IS] = "is",     [OP_ISNOT] = "is not",
    [OP_IN] = "in",     [OP_NOTIN] = "not in",
};

const char *ast_op_str(Op op) {
    if ((unsigned)op < OP__COUNT && op_names[op])
        return op_names[op];
    return "?";
}

/* ------------------------------------------------------------------------ */
/* Printing                                                                  */

static void put_indent(Buf *b, int level) {
    buf_putc(b, '\n');
    for (int i = 0; i < level; i++)
        buf_puts(b, "  ");
}

static void put_span(Buf *b, Span s) {
    buf_printf(b, " @%d:%d-%d:%d", s.line, s.col, s.end_line, s.end_col);
}

static void print_node(Buf *b, const Node *n, int level);

static void print_list(Buf *b, const char *label, const NodeList *l, int level) {
    if (l->len == 0)
        return;
    put_indent(b, level);
    buf_printf(b, "(%s", label);
    for (int i = 0; i < l->len; i++) {
        put_indent(b, level + 1);
        print_node(b, l->items[i], level + 1);
    }
    buf_putc(b, ')');
}

static void print_child(Buf *b, const Node *n, int level) {
    if (!n)
        return;
    put_indent(b, level);
    print_node(b, n, level);
}

static void print_labelled(Buf *b, const char *label, const Node *n, int level) {
    if (!n)
        return;
    put_indent(b, level);
    buf_printf(b, "(%s", label);
    print_child(b, n, level + 1);
    buf_putc(b, ')');
}

static void print_items(Buf *b, const NodeList *l, int level) {
    for (int i = 0; i < l->len; i++)
        print_child(b, l->items[i], level);
}

/* A node's own fields, after its kind: its name, value or operator. */
static void print_fields(Buf *b, const Node *n) {
    switch (n->kind) {
    case N_NAME:
    case N_ATTR:
        buf_printf(b, " %s", n->name ? n->name : "?");
        break;
    case N_INT:
        buf_printf(b, " %" PRIu64, (uint64_t)n->ival);
        break;
    case N_FLOAT:
        buf_printf(b, " %.17g", n->fval);
        if (n->name)
            buf_printf(b, " text=%s", n->name);
        break;
    case N_STR:
        buf_puts(b, n->op == OP_MOD ? " f" : " ");
        buf_put_quoted(b, n->name, n->ival, false);
        break;
    case N_KWARG:
        if (n->op == OP_MUL)
            buf_puts(b, " *");
        else if (n->op == OP_POW)
            buf_puts(b, " **");
        else
            buf_printf(b, " %s", n->name ? n->name : "?");
        break;
    case N_UNARY:
    case N_BINARY:
    case N_BOOLOP:
        buf_printf(b, " %s", ast_op_str(n->op));
        break;
    case N_AUGASSIGN:
        buf_printf(b, " %s=", ast_op_str(n->op));
        break;
    case N_IF:
        if (n->ival)
            buf_puts(b, " elif");
        break;
    case N_IMPORT_FROM:
        buf_putc(b, ' ');
        for (int64_t i = 0; i < n->ival && i < 1000; i++)
            buf_putc(b, '.');
        buf_puts(b, n->name ? n->name : "");
        break;
    case N_ALIAS:
        buf_printf(b, " %s", n->name ? n->name : "?");
        if (n->str2)
            buf_printf(b, " as %s", n->str2);
        break;
    case N_FUNCDEF:
    case N_CLASSDEF:
        buf_printf(b, " %s", n->name ? n->name : "?");
        break;
    case N_HOST:
        if (n->name)
            buf_printf(b, " %s", n->name);
        if (n->str2) {
            buf_putc(b, ' ');
            buf_put_quoted(b, n->str2, strlen(n->str2), true);
        }
        break;
    case N_PARAM:
        buf_printf(b, " %s%s", n->op == OP_MUL ? "*" : n->op == OP_POW ? "**" : "",
                   n->name ? n->name : "?");
        break;
    default:
        break;
    }
}

static void print_node(Buf *b, const Node *n, int level) {
    if (!n) {
        buf_puts(b, "(null)");
        return;
    }
    int k = level + 1;
    buf_printf(b, "(%s", ast_kind_name(n->kind));
    print_fields(b, n);
    if (n->paren)
        buf_puts(b, " paren");
    put_span(b, n->span);

    /* children */
    switch (n->kind) {
    case N_NAME: case N_INT: case N_FLOAT: case N_STR: case N_NONE: case N_TRUE: case N_FALSE:
    case N_BREAK: case N_CONTINUE: case N_PASS: case N_ALIAS:
        break;
    case N_CALL:
        print_child(b, n->a, k);
        print_list(b, "args", &n->l0, k);
        break;
    case N_SLICE:
        print_labelled(b, "lower", n->a, k);
        print_labelled(b, "upper", n->b, k);
        print_labelled(b, "step", n->c, k);
        break;
    case N_DICT:
        for (int i = 0; i < n->l0.len; i++) {
            put_indent(b, k);
            buf_puts(b, "(item");
            print_child(b, n->l0.items[i], k + 1);
            print_child(b, i < n->l1.len ? n->l1.items[i] : NULL, k + 1);
            buf_putc(b, ')');
        }
        break;
    case N_ASSIGN:
        print_list(b, "targets", &n->l0, k);
        print_child(b, n->a, k);
        break;
    case N_IF:
    case N_WHILE:
        print_child(b, n->a, k);
        print_list(b, "body", &n->l0, k);
        print_list(b, "else", &n->l1, k);
        break;
    case N_FOR:
        print_child(b, n->a, k);
        print_child(b, n->b, k);
        print_list(b, "body", &n->l0, k);
        print_list(b, "else", &n->l1, k);
        break;
    case N_FUNCDEF:
        print_list(b, "decorators", &n->l2, k);
        print_list(b, "params", &n->l0, k);
        print_labelled(b, "returns", n->a, k);
        print_list(b, "body", &n->l1, k);
        break;
    case N_CLASSDEF:
        print_labelled(b, "base", n->a, k);
        print_list(b, "body", &n->l0, k);
        break;
    case N_LAMBDA:
        print_list(b, "params", &n->l0, k);
        print_child(b, n->a, k);
        break;
    case N_PARAM:
        print_labelled(b, "annotation", n->a, k);
        print_labelled(b, "default", n->b, k);
        break;
    case N_TUPLE: case N_LIST: case N_IMPORT: case N_IMPORT_FROM:
        print_items(b, &n->l0, k);
        break;
    case N_MODULE:
        print_items(b, &n->l0, k);
        print_list(b, "host", &n->l1, k);
        break;
    case N_HOST:
        break;
    default:
        /* a, b, c in order: Attr value; Subscript value index; Kwarg value;
         * Unary operand; Binary/BoolOp left right; IfExp value cond orelse;
         * ExprStmt; AnnAssign target annotation [value]; AugAssign target
         * value; Return [value]; Assert cond [msg] */
        print_child(b, n->a, k);
        print_child(b, n->b, k);
        print_child(b, n->c, k);
        print_list(b, "l0", &n->l0, k);
        print_list(b, "l1", &n->l1, k);
        print_list(b, "l2", &n->l2, k);
        break;
    }
    buf_putc(b, ')');
}

void ast_print(Buf *out, const Node *n) {
    print_node(out, n, 0);
    buf_putc(out, '\n');
}
