/* parser.y: the grammar of the tl kernel language (a Python subset), and
 * parse_source(), the front end's entry point.
 *
 * The grammar follows CPython's (docs/language.md has it in EBNF). Python
 * constructs that are not part of the kernel language either appear as rules
 * that match them and report (comprehensions, set literals, 'import *'), or
 * are keywords that no rule accepts, which yyreport_syntax_error() recognises
 * and names (class, with, try, ...). A lambda parses anywhere, as in Python,
 * and the check pass rejects it except as a value of @triton.heuristics.
 *
 * Error recovery works per statement: 'error NEWLINE' skips the rest of a bad
 * logical line (and an indented block after it), so one run reports several
 * errors. After the parse, a check pass (bottom of this file) enforces what
 * the grammar does not: what may stand at module level, known decorators,
 * assignment targets, 'break' outside loops, and a nesting limit that keeps
 * every later recursive pass safe. */

%define api.pure full
%define parse.error custom
%define parse.lac full
%locations
%param {yyscan_t scanner} {ParseState *ps}
%expect 0

%code requires {
#include <setjmp.h>
#include "ast.h"

#ifndef YY_TYPEDEF_YY_SCANNER_T
#define YY_TYPEDEF_YY_SCANNER_T
typedef void *yyscan_t;
#endif

typedef struct ParseState ParseState;

/* The semantic value of a token. */
typedef struct Tok {
    const char *s; /* NAME: the name; STRING: decoded contents; FLOAT: spelling */
    int64_t n;     /* INT: value (2**63 and up wrap negative); STRING: length */
    bool fmt;      /* STRING: an f-string */
    double f;      /* FLOAT: value */
} Tok;

typedef struct DictItems {
    NodeList keys, vals;
} DictItems;
}

%code provides {
enum {
    TL_MAX_DEPTH = 200,        /* bracket nesting, as CPython */
    TL_MAX_INDENT = 100,       /* indentation levels, as CPython */
    TL_QUEUE = TL_MAX_INDENT + 8,
};

typedef struct QTok {
    int kind;
    YYSTYPE val;
    YYLTYPE loc;
} QTok;

/* Everything the scanner and the parser share; no global state. */
struct ParseState {
    Arena *arena;
    Diag *d;
    const Source *src;
    Node *module;
    jmp_buf fatal; /* out of memory in flex: give up */
    bool stop;     /* a fatal lexical error was reported: only END follows */
    bool eof;

    /* position of the next byte, and of the start of the current match */
    int line, col;
    size_t off, len;
    bool bol;
    int tok_line, tok_col;
    size_t tok_off;
    bool tok_bol;
    int last_line, last_col; /* end of the last real token */

    /* brackets */
    int depth;
    char br_ch[TL_MAX_DEPTH];
    int br_line[TL_MAX_DEPTH], br_col[TL_MAX_DEPTH];

    /* indentation */
    int nind;
    int ind[TL_MAX_INDENT + 1], alt[TL_MAX_INDENT + 1];
    bool orphan[TL_MAX_INDENT + 1]; /* its INDENT was thrown away: no DEDENT either */
    int ind_col, ind_alt; /* the current physical line's leading whitespace */
    bool at_bol;          /* no token yet on this logical line */
    bool joined;          /* after a backslash continuation */

    /* tokens waiting to be handed to the parser */
    int qhead, qlen;
    QTok q[TL_QUEUE];

    /* the string literal being scanned */
    Buf sbuf;
    int str_line, str_col, str_open_len, str_quote_len;
    bool str_raw, str_bytes, str_fmt;
    int bad_string_line;  /* last line with an unterminated string: its closers were swallowed */

    /* first token of the current and of the previous logical line, for
     * "expected an indented block after 'if' statement on line N" */
    int kw, kw_line, prev_kw, prev_kw_line;

    /* parser */
    bool recovered;  /* the last statement was an error: keep quiet about an indented block after it */
    int last_report; /* token of the last unsupported-construct report */
    int lex_err_line; /* line of the last lexical error */
    bool ok;          /* parse_source: the module is good */
    int errors0;      /* d->nerrors when parsing started */
};

int tl_lex(YYSTYPE *val, YYLTYPE *loc, yyscan_t scanner, ParseState *ps);
}

%code {
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"

#define yylex tl_lex

static void yyerror(YYLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg);

static Span SP(YYLTYPE l) { return (Span){l.first_line, l.first_column, l.last_line, l.last_column}; }
/* From the start of a to the end of b. */
static Span SJ(Span a, Span b) { return (Span){a.line, a.col, b.end_line, b.end_col}; }

static Node *mk(ParseState *ps, NodeKind k, Span sp) {
    Node *n = ast_new(ps->arena, k, sp);
    if (!n)
        longjmp(ps->fatal, 1);
    return n;
}
static void push(ParseState *ps, NodeList *l, Node *n) { ast_push(ps->arena, l, n); }
static NodeList list1(ParseState *ps, Node *n) {
    NodeList l = {0};
    push(ps, &l, n);
    return l;
}
static Node *binary(ParseState *ps, NodeKind k, Op op, Node *a, Node *b) {
    Node *n = mk(ps, k, SJ(a->span, b->span));
    n->op = op;
    n->a = a;
    n->b = b;
    return n;
}
static Node *unary(ParseState *ps, Op op, YYLTYPE at, Node *a) {
    Node *n = mk(ps, N_UNARY, SJ(SP(at), a->span));
    n->op = op;
    n->a = a;
    return n;
}
/* A comma list: one item and no comma is the item itself. */
static Node *tuple_or_item(ParseState *ps, NodeList l, bool comma, YYLTYPE at) {
    if (l.len == 1 && !comma)
        return l.items[0];
    Node *t = mk(ps, N_TUPLE, SP(at));
    t->l0 = l;
    return t;
}
static Span list_span(NodeList l, Span dflt) {
    if (l.len == 0)
        return dflt;
    return SJ(l.items[0]->span, l.items[l.len - 1]->span);
}
static Node *dotted(ParseState *ps, NodeList names) {
    size_t len = 0;
    for (int i = 0; i < names.len; i++)
        len += strlen(names.items[i]->name) + 1;
    char *s = arena_alloc(ps->arena, len + 1), *p = s;
    if (!s)
        longjmp(ps->fatal, 1);
    for (int i = 0; i < names.len; i++) {
        size_t k = strlen(names.items[i]->name);
        if (i)
            *p++ = '.';
        memcpy(p, names.items[i]->name, k);
        p += k;
    }
    *p = 0;
    Node *n = mk(ps, N_NAME, list_span(names, (Span){0}));
    n->name = s;
    return n;
}
/* Adjacent literals are one string; with an f-string among them, one
 * f-string, the braces of the plain parts doubled to stay literal. */
static Node *join_strings(ParseState *ps, NodeList l) {
    if (l.len == 1)
        return l.items[0];
    size_t len = 0;
    bool fmt = false;
    for (int i = 0; i < l.len; i++)
        fmt |= l.items[i]->op == OP_MOD;
    for (int i = 0; i < l.len; i++)
        for (int64_t j = 0; j < l.items[i]->ival; j++)
            len += 1 + (fmt && l.items[i]->op != OP_MOD && strchr("{}", l.items[i]->name[j]) && l.items[i]->name[j]);
    char *s = arena_alloc(ps->arena, len + 1), *p = s;
    if (!s)
        longjmp(ps->fatal, 1);
    for (int i = 0; i < l.len; i++)
        for (int64_t j = 0; j < l.items[i]->ival; j++) {
            char c = l.items[i]->name[j];
            if (fmt && l.items[i]->op != OP_MOD && c && strchr("{}", c))
                *p++ = c;
            *p++ = c;
        }
    Node *n = mk(ps, N_STR, list_span(l, (Span){0}));
    n->name = s;
    n->ival = (int64_t)len;
    n->op = fmt ? OP_MOD : OP_NONE;
    return n;
}
static void append(ParseState *ps, NodeList *to, NodeList from) {
    for (int i = 0; i < from.len; i++)
        push(ps, to, from.items[i]);
}
/* Report a construct the grammar matched only to reject it. */
static Node *clause(ParseState *ps, Span sp, NodeKind kind, Node *a, Node *b) {
    Node *n = ast_new(ps->arena, kind, sp);
    n->a = a;
    n->b = b;
    return n;
}
static Node *reject(ParseState *ps, YYLTYPE at, const char *what) {
    diag_error(ps->d, ps->src, SP(at), "%s", what);
    return mk(ps, N_NONE, SP(at));
}
static Node *param(ParseState *ps, YYLTYPE at, Op star, Tok name, Node *annot, Node *dflt) {
    Node *n = mk(ps, N_PARAM, SP(at));
    n->op = star;
    n->name = name.s;
    n->a = annot;
    n->b = dflt;
    return n;
}
static Node *alias(ParseState *ps, YYLTYPE at, const char *name, const char *as) {
    Node *n = mk(ps, N_ALIAS, SP(at));
    n->name = name;
    n->str2 = as;
    return n;
}
/* NamedTuple or typing.NamedTuple: the one base a kernel-language class has. */
static bool is_namedtuple_base(const Node *b) {
    if (b->kind == N_NAME)
        return !strcmp(b->name, "NamedTuple");
    return b->kind == N_ATTR && !strcmp(b->name, "NamedTuple") && b->a->kind == N_NAME && !strcmp(b->a->name, "typing");
}
static Node *compound(ParseState *ps, NodeKind k, YYLTYPE at, Node *a, Node *b, NodeList body,
                      NodeList orelse) {
    Node *n = mk(ps, k, SJ(SP(at), orelse.len ? list_span(orelse, SP(at)) : list_span(body, SP(at))));
    n->a = a;
    n->b = b;
    n->l0 = body;
    n->l1 = orelse;
    return n;
}
}

%union {
    Node *node;
    NodeList list;
    Tok tok;
    Op op;
    DictItems dict;
}

%token END 0 "end of file"
%token <tok> NAME "name" INT "integer" FLOAT "float" STRING "string"
%token NEWLINE "newline" INDENT "indent" DEDENT "unindent"
%token DEF "def" IF "if" ELIF "elif" ELSE "else" FOR "for" IN "in" WHILE "while"
%token BREAK "break" CONTINUE "continue" RETURN "return" PASS "pass" ASSERT "assert"
%token IMPORT "import" FROM "from" AS "as" AND "and" OR "or" NOT "not" IS "is"
%token NONE "None" TRUE "True" FALSE "False"
%token LAMBDA "lambda" CLASS "class" WITH "with" TRY "try" EXCEPT "except" FINALLY "finally"
%token RAISE "raise" YIELD "yield" GLOBAL "global" NONLOCAL "nonlocal" DEL "del"
%token ASYNC "async" AWAIT "await"
%token POW "**" FLOORDIV "//" LSHIFT "<<" RSHIFT ">>" LE "<=" GE ">=" EQ "==" NE "!="
%token ARROW "->" COLONEQ ":=" ELLIPSIS "..."
%token <op> AUGASSIGN "augmented assignment"

%left '|'
%left '^'
%left '&'
%left LSHIFT RSHIFT
%left '+' '-'
%left '*' '/' '%' FLOORDIV '@'
%precedence UNARY
%precedence POW

%type <list> stmts stmts_opt stmt simple_line simple_stmts block elif_tail else_opt
%type <list> decorators params plist tests exprs arglist subs dotted_names strings lambda_params
%type <list> dotted_as_names import_as_names import_targets comp_for class_bases
%type <node> small_stmt expr_stmt compound_stmt if_stmt for_stmt while_stmt funcdef classdef
%type <node> decorator param ret_opt import_stmt from_stmt dotted_as_name import_as_name
%type <node> test or_test and_test not_test comparison expr atom_expr atom
%type <node> testlist exprlist argument subscript subscriptlist opt_test
%type <node> annot_opt default_opt lambda_param
%type <list> assign_targets
%type <op> comp_op
%type <dict> dict_items
%type <tok> from_module
%type <node> dots

%%

file:
    stmts_opt {
        ps->module = mk(ps, N_MODULE, (Span){1, 1, ps->line, ps->col});
        ps->module->l0 = $1;
    }
    ;

stmts_opt:
    %empty          { $$ = (NodeList){0}; }
  | stmts_opt stmt  { $$ = $1; append(ps, &$$, $2); }
  ;

stmts:
    stmt            { $$ = $1; }
  | stmts stmt      { $$ = $1; append(ps, &$$, $2); }
  ;

stmt:
    simple_line     { $$ = $1; ps->recovered = false; }
  | compound_stmt   { $$ = list1(ps, $1); ps->recovered = false; }
  | error NEWLINE   { $$ = (NodeList){0}; ps->recovered = true; yyerrok; }
  | INDENT {
        if (!ps->recovered)
            diag_error(ps->d, ps->src, SP(@1), "unexpected indent");
        ps->recovered = false;
    } stmts DEDENT  { $$ = $3; }
  ;

simple_line:
    simple_stmts NEWLINE        { $$ = $1; }
  | simple_stmts ';' NEWLINE    { $$ = $1; }
  ;

simple_stmts:
    small_stmt                  { $$ = list1(ps, $1); }
  | simple_stmts ';' small_stmt { $$ = $1; push(ps, &$$, $3); }
  ;

small_stmt:
    expr_stmt
  | PASS                    { $$ = mk(ps, N_PASS, SP(@1)); }
  | BREAK                   { $$ = mk(ps, N_BREAK, SP(@1)); }
  | CONTINUE                { $$ = mk(ps, N_CONTINUE, SP(@1)); }
  | RETURN                  { $$ = mk(ps, N_RETURN, SP(@1)); }
  | RETURN testlist         { $$ = mk(ps, N_RETURN, SP(@$)); $$->a = $2; }
  | ASSERT test             { $$ = mk(ps, N_ASSERT, SP(@$)); $$->a = $2; }
  | ASSERT test ',' test    { $$ = mk(ps, N_ASSERT, SP(@$)); $$->a = $2; $$->b = $4; }
  | RAISE                   { $$ = mk(ps, N_RAISE, SP(@$)); }
  | RAISE test              { $$ = mk(ps, N_RAISE, SP(@$)); $$->a = $2; }
  | RAISE test FROM test    { $$ = mk(ps, N_RAISE, SP(@$)); $$->a = $2; $$->b = $4; }
  | import_stmt
  | from_stmt
  ;

expr_stmt:
    testlist                { $$ = mk(ps, N_EXPR_STMT, $1->span); $$->a = $1; }
  | testlist AUGASSIGN testlist {
        $$ = mk(ps, N_AUGASSIGN, SP(@$));
        $$->op = $2;
        $$->a = $1;
        $$->b = $3;
    }
  | testlist ':' test {
        $$ = mk(ps, N_ANNASSIGN, SP(@$));
        $$->a = $1;
        $$->b = $3;
        if ($1->kind == N_TUPLE && !$1->paren)
            diag_error(ps->d, ps->src, $1->span, "only single target (not tuple) can be annotated");
    }
  | testlist ':' test '=' testlist {
        $$ = mk(ps, N_ANNASSIGN, SP(@$));
        $$->a = $1;
        $$->b = $3;
        $$->c = $5;
        if ($1->kind == N_TUPLE && !$1->paren)
            diag_error(ps->d, ps->src, $1->span, "only single target (not tuple) can be annotated");
    }
  | assign_targets testlist {
        $$ = mk(ps, N_ASSIGN, SP(@$));
        $$->l0 = $1;
        $$->a = $2;
    }
  ;

assign_targets:
    testlist '='                { $$ = list1(ps, $1); }
  | assign_targets testlist '=' { $$ = $1; push(ps, &$$, $2); }
  ;

import_stmt:
    IMPORT dotted_as_names      { $$ = mk(ps, N_IMPORT, SP(@$)); $$->l0 = $2; }
  ;

dotted_as_names:
    dotted_as_name                      { $$ = list1(ps, $1); }
  | dotted_as_names ',' dotted_as_name  { $$ = $1; push(ps, &$$, $3); }
  ;

dotted_as_name:
    dotted_names                { $$ = alias(ps, @$, dotted(ps, $1)->name, NULL); }
  | dotted_names AS NAME        { $$ = alias(ps, @$, dotted(ps, $1)->name, $3.s); }
  ;

dotted_names:
    NAME {
        Node *n = mk(ps, N_NAME, SP(@1));
        n->name = $1.s;
        $$ = list1(ps, n);
    }
  | dotted_names '.' NAME {
        Node *n = mk(ps, N_NAME, SP(@3));
        n->name = $3.s;
        $$ = $1;
        push(ps, &$$, n);
    }
  ;

from_stmt:
    FROM from_module IMPORT import_targets {
        $$ = mk(ps, N_IMPORT_FROM, SP(@$));
        $$->name = $2.s;
        $$->ival = $2.n;
        $$->l0 = $4;
    }
  ;

from_module:
    dotted_names        { $$.s = dotted(ps, $1)->name; $$.n = 0; }
  | dots dotted_names   { $$.s = dotted(ps, $2)->name; $$.n = $1->ival; }
  | dots                { $$.s = ""; $$.n = $1->ival; }
  ;

dots:
    '.'                 { $$ = mk(ps, N_INT, SP(@1)); $$->ival = 1; }
  | ELLIPSIS            { $$ = mk(ps, N_INT, SP(@1)); $$->ival = 3; }
  | dots '.'            { $$ = $1; $$->ival += 1; }
  | dots ELLIPSIS       { $$ = $1; $$->ival += 3; }
  ;

import_targets:
    import_as_names                 { $$ = $1; }
  | '(' import_as_names ')'         { $$ = $2; }
  | '(' import_as_names ',' ')'     { $$ = $2; }
  | '*' {
        reject(ps, @1, "'from ... import *' is not part of the kernel language");
        $$ = (NodeList){0};
    }
  ;

import_as_names:
    import_as_name                      { $$ = list1(ps, $1); }
  | import_as_names ',' import_as_name  { $$ = $1; push(ps, &$$, $3); }
  ;

import_as_name:
    NAME            { $$ = alias(ps, @$, $1.s, NULL); }
  | NAME AS NAME    { $$ = alias(ps, @$, $1.s, $3.s); }
  ;

compound_stmt:
    if_stmt
  | for_stmt
  | while_stmt
  | funcdef
  | classdef
  ;

if_stmt:
    IF test ':' block elif_tail { $$ = compound(ps, N_IF, @1, $2, NULL, $4, $5); }
  ;

elif_tail:
    %empty                  { $$ = (NodeList){0}; }
  | ELSE ':' block          { $$ = $3; }
  | ELIF test ':' block elif_tail {
        Node *n = compound(ps, N_IF, @1, $2, NULL, $4, $5);
        n->ival = 1;
        $$ = list1(ps, n);
    }
  ;

for_stmt:
    FOR exprlist IN testlist ':' block else_opt { $$ = compound(ps, N_FOR, @1, $2, $4, $6, $7); }
  ;

while_stmt:
    WHILE test ':' block else_opt { $$ = compound(ps, N_WHILE, @1, $2, NULL, $4, $5); }
  ;

else_opt:
    %empty          { $$ = (NodeList){0}; }
  | ELSE ':' block  { $$ = $3; }
  ;

block:
    simple_line                 { $$ = $1; }
  | NEWLINE INDENT stmts DEDENT { $$ = $3; }
  | NEWLINE error               { $$ = (NodeList){0}; yyerrok; }
  ;

funcdef:
    DEF NAME '(' params ')' ret_opt ':' block {
        $$ = compound(ps, N_FUNCDEF, @1, $6, NULL, $8, (NodeList){0});
        $$->name = $2.s;
        $$->l1 = $8;
        $$->l0 = $4;
    }
  | decorators DEF NAME '(' params ')' ret_opt ':' block {
        $$ = compound(ps, N_FUNCDEF, @2, $7, NULL, $9, (NodeList){0});
        $$->name = $3.s;
        $$->l1 = $9;
        $$->l0 = $5;
        $$->l2 = $1;
    }
  ;

/* class NAME(NamedTuple): fields. Only typing.NamedTuple classes are kernel
 * language (a named tuple type the kernel can construct); the base is checked
 * as soon as it is read, so that a host class is told so before anything in
 * its body (host.c sets it aside with that reason); the body in
 * check_classdef. */
classdef:
    CLASS NAME class_bases ':' {
        if (!($3.len == 1 && is_namedtuple_base($3.items[0])))
            diag_error(ps->d, ps->src, SP(@1), "classes other than typing.NamedTuple ones are not part of the kernel "
                                               "language");
    } block {
        $$ = compound(ps, N_CLASSDEF, @1, $3.len == 1 ? $3.items[0] : NULL, NULL, $6, (NodeList){0});
        $$->name = $2.s;
    }
  ;

class_bases:
    %empty          { $$ = (NodeList){0}; }
  | '(' ')'         { $$ = (NodeList){0}; }
  | '(' exprs ')'   { $$ = $2; }
  ;

decorators:
    decorator               { $$ = list1(ps, $1); }
  | decorators decorator    { $$ = $1; push(ps, &$$, $2); }
  ;

decorator:
    '@' test NEWLINE        { $$ = $2; }
  ;

ret_opt:
    %empty                  { $$ = NULL; }
  | ARROW test              { $$ = $2; }
  ;

params:
    %empty                  { $$ = (NodeList){0}; }
  | plist                   { $$ = $1; }
  | plist ','               { $$ = $1; }
  ;

plist:
    param                   { $$ = list1(ps, $1); }
  | plist ',' param         { $$ = $1; push(ps, &$$, $3); }
  ;

param:
    NAME annot_opt default_opt  { $$ = param(ps, @$, OP_NONE, $1, $2, $3); }
  | '*' NAME annot_opt          { $$ = param(ps, @$, OP_MUL, $2, $3, NULL); }
  | POW NAME annot_opt          { $$ = param(ps, @$, OP_POW, $2, $3, NULL); }
  | '*' {
        $$ = reject(ps, @1, "keyword-only parameter marker '*' is not part of the kernel language");
    }
  | '/' {
        $$ = reject(ps, @1, "positional-only parameter marker '/' is not part of the kernel language");
    }
  ;

annot_opt:
    %empty          { $$ = NULL; }
  | ':' test        { $$ = $2; }
  ;

default_opt:
    %empty          { $$ = NULL; }
  | '=' test        { $$ = $2; }
  ;

/* ---- expressions ---- */

testlist:
    tests           { $$ = tuple_or_item(ps, $1, false, @$); }
  | tests ','       { $$ = tuple_or_item(ps, $1, true, @$); }
  ;

tests:
    test            { $$ = list1(ps, $1); }
  | tests ',' test  { $$ = $1; push(ps, &$$, $3); }
  ;

exprlist:
    exprs           { $$ = tuple_or_item(ps, $1, false, @$); }
  | exprs ','       { $$ = tuple_or_item(ps, $1, true, @$); }
  ;

exprs:
    expr            { $$ = list1(ps, $1); }
  | exprs ',' expr  { $$ = $1; push(ps, &$$, $3); }
  ;

test:
    or_test
  | or_test IF or_test ELSE test {
        $$ = mk(ps, N_IFEXP, SJ($1->span, $5->span));
        $$->a = $1;
        $$->b = $3;
        $$->c = $5;
    }
  | LAMBDA ':' test {
        $$ = mk(ps, N_LAMBDA, SP(@$));
        $$->a = $3;
    }
  | LAMBDA lambda_params ':' test {
        $$ = mk(ps, N_LAMBDA, SP(@$));
        $$->l0 = $2;
        $$->a = $4;
    }
  ;

/* lambda's parameters: no annotations (the ':' ends them) */
lambda_params:
    lambda_param                    { $$ = list1(ps, $1); }
  | lambda_params ',' lambda_param  { $$ = $1; push(ps, &$$, $3); }
  ;

lambda_param:
    NAME                { $$ = param(ps, @$, OP_NONE, $1, NULL, NULL); }
  | NAME '=' test       { $$ = param(ps, @$, OP_NONE, $1, NULL, $3); }
  | '*' NAME            { $$ = param(ps, @$, OP_MUL, $2, NULL, NULL); }
  | POW NAME            { $$ = param(ps, @$, OP_POW, $2, NULL, NULL); }
  ;

or_test:
    and_test
  | or_test OR and_test     { $$ = binary(ps, N_BOOLOP, OP_OR, $1, $3); }
  ;

and_test:
    not_test
  | and_test AND not_test   { $$ = binary(ps, N_BOOLOP, OP_AND, $1, $3); }
  ;

not_test:
    comparison
  | NOT not_test            { $$ = unary(ps, OP_NOT, @1, $2); }
  ;

comparison:
    expr
  | comparison comp_op expr {
        $$ = binary(ps, N_BINARY, $2, $1, $3);
        if ($1->kind == N_BINARY && $1->op >= OP_LT && $1->op <= OP_NOTIN && !$1->paren) {
            if (!$1->ival)
                diag_error(ps->d, ps->src, $$->span,
                           "chained comparisons are not supported in the kernel language");
            $$->ival = 1; /* reported */
        }
    }
  ;

comp_op:
    '<'         { $$ = OP_LT; }
  | '>'         { $$ = OP_GT; }
  | EQ          { $$ = OP_EQ; }
  | GE          { $$ = OP_GE; }
  | LE          { $$ = OP_LE; }
  | NE          { $$ = OP_NE; }
  | IN          { $$ = OP_IN; }
  | NOT IN      { $$ = OP_NOTIN; }
  | IS          { $$ = OP_IS; }
  | IS NOT      { $$ = OP_ISNOT; }
  ;

expr:
    atom_expr
  | atom_expr POW expr          { $$ = binary(ps, N_BINARY, OP_POW, $1, $3); }
  | expr '|' expr               { $$ = binary(ps, N_BINARY, OP_BITOR, $1, $3); }
  | expr '^' expr               { $$ = binary(ps, N_BINARY, OP_BITXOR, $1, $3); }
  | expr '&' expr               { $$ = binary(ps, N_BINARY, OP_BITAND, $1, $3); }
  | expr LSHIFT expr            { $$ = binary(ps, N_BINARY, OP_LSHIFT, $1, $3); }
  | expr RSHIFT expr            { $$ = binary(ps, N_BINARY, OP_RSHIFT, $1, $3); }
  | expr '+' expr               { $$ = binary(ps, N_BINARY, OP_ADD, $1, $3); }
  | expr '-' expr               { $$ = binary(ps, N_BINARY, OP_SUB, $1, $3); }
  | expr '*' expr               { $$ = binary(ps, N_BINARY, OP_MUL, $1, $3); }
  | expr '/' expr               { $$ = binary(ps, N_BINARY, OP_DIV, $1, $3); }
  | expr '%' expr               { $$ = binary(ps, N_BINARY, OP_MOD, $1, $3); }
  | expr FLOORDIV expr          { $$ = binary(ps, N_BINARY, OP_FLOORDIV, $1, $3); }
  | expr '@' expr               { $$ = binary(ps, N_BINARY, OP_MATMUL, $1, $3); }
  | '-' expr %prec UNARY        { $$ = unary(ps, OP_NEG, @1, $2); }
  | '+' expr %prec UNARY        { $$ = unary(ps, OP_POS, @1, $2); }
  | '~' expr %prec UNARY        { $$ = unary(ps, OP_INVERT, @1, $2); }
  ;

atom_expr:
    atom
  | atom_expr '(' ')' {
        $$ = mk(ps, N_CALL, SJ($1->span, SP(@3)));
        $$->a = $1;
    }
  | atom_expr '(' arglist ')' {
        $$ = mk(ps, N_CALL, SJ($1->span, SP(@4)));
        $$->a = $1;
        $$->l0 = $3;
    }
  | atom_expr '(' arglist ',' ')' {
        $$ = mk(ps, N_CALL, SJ($1->span, SP(@5)));
        $$->a = $1;
        $$->l0 = $3;
    }
  | atom_expr '[' subscriptlist ']' {
        $$ = mk(ps, N_SUBSCRIPT, SJ($1->span, SP(@4)));
        $$->a = $1;
        $$->b = $3;
    }
  | atom_expr '.' NAME {
        $$ = mk(ps, N_ATTR, SJ($1->span, SP(@3)));
        $$->a = $1;
        $$->name = $3.s;
    }
  ;

arglist:
    argument                { $$ = list1(ps, $1); }
  | arglist ',' argument    { $$ = $1; push(ps, &$$, $3); }
  ;

argument:
    test
  | test '=' test {
        if ($1->kind != N_NAME || $1->paren)
            diag_error(ps->d, ps->src, $1->span,
                       "expression cannot contain assignment, perhaps you meant \"==\"?");
        $$ = mk(ps, N_KWARG, SP(@$));
        $$->name = $1->name;
        $$->a = $3;
    }
  | '*' test                { $$ = mk(ps, N_KWARG, SP(@$)); $$->op = OP_MUL; $$->a = $2; }
  | POW test                { $$ = mk(ps, N_KWARG, SP(@$)); $$->op = OP_POW; $$->a = $2; }
  | test comp_for {
        $$ = reject(ps, @$, "generator expressions are not part of the kernel language");
    }
  ;

subscriptlist:
    subs            { $$ = tuple_or_item(ps, $1, false, @$); }
  | subs ','        { $$ = tuple_or_item(ps, $1, true, @$); }
  ;

subs:
    subscript           { $$ = list1(ps, $1); }
  | subs ',' subscript  { $$ = $1; push(ps, &$$, $3); }
  ;

subscript:
    test
  | opt_test ':' opt_test {
        Span s = $1 ? $1->span : SP(@2);
        $$ = mk(ps, N_SLICE, SJ(s, $3 ? $3->span : SP(@2)));
        $$->a = $1;
        $$->b = $3;
    }
  | opt_test ':' opt_test ':' opt_test {
        Span s = $1 ? $1->span : SP(@2);
        $$ = mk(ps, N_SLICE, SJ(s, $5 ? $5->span : SP(@4)));
        $$->a = $1;
        $$->b = $3;
        $$->c = $5;
    }
  ;

opt_test:
    %empty      { $$ = NULL; }
  | test
  ;

comp_for: /* the clauses of a comprehension: N_FOR (a target, b iterable) and N_IF (a) */
    FOR exprlist IN or_test { $$ = list1(ps, clause(ps, SP(@$), N_FOR, $2, $4)); }
  | comp_for FOR exprlist IN or_test {
        $$ = $1;
        push(ps, &$$, clause(ps, SJ(SP(@2), $5->span), N_FOR, $3, $5));
    }
  | comp_for IF or_test     { $$ = $1; push(ps, &$$, clause(ps, SJ(SP(@2), $3->span), N_IF, $3, NULL)); }
  ;

atom:
    NAME            { $$ = mk(ps, N_NAME, SP(@1)); $$->name = $1.s; }
  | INT             { $$ = mk(ps, N_INT, SP(@1)); $$->ival = $1.n; }
  | FLOAT           { $$ = mk(ps, N_FLOAT, SP(@1)); $$->fval = $1.f; $$->name = $1.s; }
  | strings         { $$ = join_strings(ps, $1); }
  | NONE            { $$ = mk(ps, N_NONE, SP(@1)); }
  | TRUE            { $$ = mk(ps, N_TRUE, SP(@1)); }
  | FALSE           { $$ = mk(ps, N_FALSE, SP(@1)); }
  | '(' ')'         { $$ = mk(ps, N_TUPLE, SP(@$)); $$->paren = true; }
  | '(' tests ')'   {
        $$ = tuple_or_item(ps, $2, false, @$);
        $$->paren = true;
        $$->span = SP(@$);
    }
  | '(' tests ',' ')' {
        $$ = tuple_or_item(ps, $2, true, @$);
        $$->paren = true;
    }
  | '(' test comp_for ')' {
        $$ = reject(ps, @$, "generator expressions are not part of the kernel language");
    }
  | '[' ']'         { $$ = mk(ps, N_LIST, SP(@$)); }
  | '[' tests ']'   { $$ = mk(ps, N_LIST, SP(@$)); $$->l0 = $2; }
  | '[' tests ',' ']' { $$ = mk(ps, N_LIST, SP(@$)); $$->l0 = $2; }
  | '[' test comp_for ']' { /* host code only: the check below refuses it in a kernel */
        $$ = mk(ps, N_LISTCOMP, SP(@$));
        $$->a = $2;
        $$->l0 = $3;
    }
  | '{' '}'         { $$ = mk(ps, N_DICT, SP(@$)); }
  | '{' dict_items '}' {
        $$ = mk(ps, N_DICT, SP(@$));
        $$->l0 = $2.keys;
        $$->l1 = $2.vals;
    }
  | '{' dict_items ',' '}' {
        $$ = mk(ps, N_DICT, SP(@$));
        $$->l0 = $2.keys;
        $$->l1 = $2.vals;
    }
  | '{' tests '}' {
        $$ = reject(ps, @$, "set literals are not part of the kernel language");
    }
  | '{' tests ',' '}' {
        $$ = reject(ps, @$, "set literals are not part of the kernel language");
    }
  | '{' test comp_for '}' {
        $$ = reject(ps, @$, "set comprehensions are not part of the kernel language");
    }
  | '{' test ':' test comp_for '}' {
        $$ = reject(ps, @$, "dict comprehensions are not part of the kernel language");
    }
  ;

strings:
    STRING {
        Node *n = mk(ps, N_STR, SP(@1));
        n->name = $1.s;
        n->ival = $1.n;
        n->op = $1.fmt ? OP_MOD : OP_NONE;
        $$ = list1(ps, n);
    }
  | strings STRING {
        Node *n = mk(ps, N_STR, SP(@2));
        n->name = $2.s;
        n->ival = $2.n;
        n->op = $2.fmt ? OP_MOD : OP_NONE;
        $$ = $1;
        push(ps, &$$, n);
    }
  ;

dict_items:
    test ':' test {
        $$.keys = list1(ps, $1);
        $$.vals = list1(ps, $3);
    }
  | dict_items ',' test ':' test {
        $$ = $1;
        push(ps, &$$.keys, $3);
        push(ps, &$$.vals, $5);
    }
  ;

%%

/* ------------------------------------------------------------------------ */
/* Syntax error messages                                                     */

static void yyerror(YYLTYPE *loc, yyscan_t scanner, ParseState *ps, const char *msg) {
    (void)scanner;
    if (ps->stop || ps->d->too_many)
        return;
    if (strstr(msg, "exhausted"))
        diag_error(ps->d, ps->src, SP(*loc), "too deeply nested: the parser ran out of stack");
    else
        diag_error(ps->d, ps->src, SP(*loc), "%s", msg);
}

/* The spelling of a token kind for "expected ..." messages. */
static const char *sym_desc(yysymbol_kind_t k, char *buf, size_t n) {
    switch (k) {
    case YYSYMBOL_NAME: return "a name";
    case YYSYMBOL_INT: return "an integer";
    case YYSYMBOL_FLOAT: return "a number";
    case YYSYMBOL_STRING: return "a string";
    case YYSYMBOL_NEWLINE: return "end of line";
    case YYSYMBOL_INDENT: return "an indented block";
    case YYSYMBOL_DEDENT: return "an unindent";
    case YYSYMBOL_YYEOF: return "end of file";
    default: break;
    }
    const char *s = yysymbol_name(k);
    size_t len = strlen(s);
    if (len >= 2 && (s[0] == '"' || s[0] == '\'')) {
        s++;
        len -= 2;
    }
    snprintf(buf, n, "'%.*s'", (int)len, s);
    return buf;
}

static bool is_char_sym(yysymbol_kind_t k, char c) {
    const char *s = yysymbol_name(k);
    return s[0] == '\'' && s[1] == c && s[2] == '\'' && s[3] == 0;
}

static bool starts_expr(yysymbol_kind_t k) {
    switch (k) {
    case YYSYMBOL_NAME: case YYSYMBOL_INT: case YYSYMBOL_FLOAT: case YYSYMBOL_STRING:
    case YYSYMBOL_NONE: case YYSYMBOL_TRUE: case YYSYMBOL_FALSE: case YYSYMBOL_NOT:
        return true;
    default:
        return is_char_sym(k, '(') || is_char_sym(k, '[') || is_char_sym(k, '{') ||
               is_char_sym(k, '-') || is_char_sym(k, '+') || is_char_sym(k, '~');
    }
}

static const char *unsupported(yysymbol_kind_t k) {
    switch (k) {
    case YYSYMBOL_CLASS: return "class definitions are not part of the kernel language";
    case YYSYMBOL_LAMBDA: return "lambda expressions are not part of the kernel language";
    case YYSYMBOL_WITH: return "'with' statements are not part of the kernel language";
    case YYSYMBOL_TRY: return "'try' statements are not part of the kernel language";
    case YYSYMBOL_EXCEPT: return "'except' clauses are not part of the kernel language";
    case YYSYMBOL_FINALLY: return "'finally' clauses are not part of the kernel language";
    case YYSYMBOL_YIELD: return "'yield' is not part of the kernel language";
    case YYSYMBOL_GLOBAL: return "'global' declarations are not part of the kernel language";
    case YYSYMBOL_NONLOCAL: return "'nonlocal' declarations are not part of the kernel language";
    case YYSYMBOL_DEL: return "'del' statements are not part of the kernel language";
    case YYSYMBOL_ASYNC: return "'async' is not part of the kernel language";
    case YYSYMBOL_AWAIT: return "'await' expressions are not part of the kernel language";
    case YYSYMBOL_COLONEQ: return "assignment expressions (':=') are not part of the kernel language";
    case YYSYMBOL_ELLIPSIS: return "'...' (Ellipsis) is not part of the kernel language";
    default: return NULL;
    }
}

/* Whether bracket i of the lexer's stack is closed somewhere in the rest of
 * the source (a rough scan that knows comments and strings). */
static bool bracket_closes(ParseState *ps, int i) {
    const char *s = ps->src->text, *e = s + ps->src->len, *p = s + ps->off;
    int level = ps->depth;
    while (p < e) {
        char c = *p++;
        if (c == '#') {
            while (p < e && *p != '\n')
                p++;
        } else if (c == '\'' || c == '"') {
            bool triple = e - p >= 2 && p[0] == c && p[1] == c;
            if (triple)
                p += 2;
            while (p < e) {
                if (*p == '\\') {
                    p += 2;
                } else if (*p == c && (!triple || (e - p >= 3 && p[1] == c && p[2] == c))) {
                    p += triple ? 3 : 1;
                    break;
                } else if (*p == '\n' && !triple) {
                    break;
                } else {
                    p++;
                }
            }
        } else if (c == '(' || c == '[' || c == '{') {
            level++;
        } else if (c == ')' || c == ']' || c == '}') {
            if (--level <= i)
                return true;
        }
    }
    return false;
}

static int yyreport_syntax_error(const yypcontext_t *ctx, yyscan_t scanner, ParseState *ps) {
    (void)scanner;
    if (ps->stop || ps->d->too_many)
        return 0;
    yysymbol_kind_t la = yypcontext_token(ctx);
    Span sp = SP(*yypcontext_location(ctx));
    /* error recovery throws an unexpected INDENT away: drop its DEDENT too */
    if (la == YYSYMBOL_INDENT)
        ps->orphan[ps->nind] = true;
    /* after an error, a block left open at the end is no news */
    if (la == YYSYMBOL_YYEOF && ps->d->nerrors > ps->errors0)
        return 0;
    /* the lexer already reported a problem on this line */
    if (sp.line == ps->lex_err_line)
        return 0;
    /* inside brackets opened before an unterminated string, the structure is
     * unknowable: the string error already said what is wrong */
    if (ps->depth > 0 && ps->br_line[0] <= ps->bad_string_line)
        return 0;
    /* an error on a later line than an open bracket that is never closed:
     * the bracket is the problem (as CPython reports it) */
    for (int i = ps->depth - 1; i >= 0 && la != YYSYMBOL_YYEOF; i--) {
        if (ps->br_line[i] >= sp.line)
            continue;
        if (bracket_closes(ps, i) || ps->br_line[i] <= ps->bad_string_line)
            break; /* closed, or its closer may be inside an unterminated string */
        Span b = {ps->br_line[i], ps->br_col[i], ps->br_line[i], ps->br_col[i] + 1};
        diag_error(ps->d, ps->src, b, "'%c' was never closed", ps->br_ch[i]);
        ps->stop = true;
        return 0;
    }
    yysymbol_kind_t exp[YYNTOKENS];
    int n = yypcontext_expected_tokens(ctx, exp, YYNTOKENS);
    if (n < 0)
        n = 0;
    bool e_indent = false, e_colon = false, e_else = false, e_elif = false, e_name = false,
         e_pass = false, e_comma = false, e_in = false, e_int = false, e_def = false, e_at = false, e_pow = false;
    for (int i = 0; i < n; i++) {
        e_indent |= exp[i] == YYSYMBOL_INDENT;
        e_colon |= is_char_sym(exp[i], ':');
        e_else |= exp[i] == YYSYMBOL_ELSE;
        e_elif |= exp[i] == YYSYMBOL_ELIF;
        e_name |= exp[i] == YYSYMBOL_NAME;
        e_pass |= exp[i] == YYSYMBOL_PASS;
        e_comma |= is_char_sym(exp[i], ',');
        e_in |= exp[i] == YYSYMBOL_IN;
        e_int |= exp[i] == YYSYMBOL_INT;
        e_def |= exp[i] == YYSYMBOL_DEF;
        e_pow |= exp[i] == YYSYMBOL_POW;
        e_at |= is_char_sym(exp[i], '@');
    }

    /* the clauses of a 'try' already reported stay quiet */
    if ((la == YYSYMBOL_EXCEPT || la == YYSYMBOL_FINALLY || la == YYSYMBOL_ELSE) &&
        ps->last_report == YYSYMBOL_TRY)
        return 0;
    const char *what = unsupported(la);
    ps->last_report = what ? (int)la : 0;
    char buf[64];
    if (what) {
        diag_error(ps->d, ps->src, sp, "%s", what);
    } else if (la == YYSYMBOL_INDENT) {
        diag_error(ps->d, ps->src, sp, "unexpected indent");
    } else if (e_indent && !e_pass) {
        int kw = ps->prev_kw, line = ps->prev_kw_line;
        const char *name = NULL;
        switch (kw) {
        case IF: name = "'if' statement"; break;
        case ELIF: name = "'elif' statement"; break;
        case ELSE: name = "'else' statement"; break;
        case FOR: name = "'for' statement"; break;
        case WHILE: name = "'while' statement"; break;
        case DEF: name = "function definition"; break;
        default: break;
        }
        if (name)
            diag_error(ps->d, ps->src, sp, "expected an indented block after %s on line %d", name, line);
        else
            diag_error(ps->d, ps->src, sp, "expected an indented block");
    } else if (la == YYSYMBOL_YYEOF) {
        diag_error(ps->d, ps->src, sp, "unexpected end of file");
    } else if (la == YYSYMBOL_NEWLINE && e_colon) {
        diag_error(ps->d, ps->src, sp, "expected ':'");
    } else if (e_else && !e_elif && !e_name) {
        diag_error(ps->d, ps->src, sp, "expected 'else' after 'if' expression");
    } else if (e_def && e_at && !e_name) {
        diag_error(ps->d, ps->src, sp, "expected 'def' after decorator");
    } else if (n == 1) {
        diag_error(ps->d, ps->src, sp, "expected %s", sym_desc(exp[0], buf, sizeof buf));
    } else if (e_in && ps->kw == FOR && starts_expr(la)) {
        diag_error(ps->d, ps->src, sp, "expected 'in'");
    } else if (e_name && e_pow && !e_int) {
        diag_error(ps->d, ps->src, sp, "expected a parameter name");
    } else if (e_name && e_int && !e_pass && !starts_expr(la)) {
        diag_error(ps->d, ps->src, sp, "expected an expression");
    } else if (starts_expr(la) && e_comma && ps->depth > 0) {
        diag_error(ps->d, ps->src, sp, "invalid syntax. Perhaps you forgot a comma?");
    } else if (is_char_sym(la, '=')) {
        diag_error(ps->d, ps->src, sp, "invalid syntax (did you mean '=='?)");
    } else {
        diag_error(ps->d, ps->src, sp, "invalid syntax");
    }
    return 0;
}

/* ------------------------------------------------------------------------ */
/* Checks after parsing                                                      */

enum { MAX_NESTING = 1000 };

/* Every later pass recurses over the tree; refuse trees deeper than
 * MAX_NESTING (this walk itself uses an explicit stack). */
static bool check_depth(ParseState *ps, Node *root) {
    typedef struct {
        Node *n;
        int depth;
    } Item;
    size_t cap = 256, len = 0;
    Item *st = malloc(cap * sizeof *st);
    if (!st)
        return false;
    st[len++] = (Item){root, 1};
    bool ok = true;
    while (len > 0 && ok) {
        Item it = st[--len];
        if (it.depth > MAX_NESTING) {
            diag_error(ps->d, ps->src, it.n->span, "too deeply nested (more than %d levels)",
                       MAX_NESTING);
            ok = false;
            break;
        }
        Node *kids[3] = {it.n->a, it.n->b, it.n->c};
        const NodeList *lists[3] = {&it.n->l0, &it.n->l1, &it.n->l2};
        size_t need = 3;
        for (int i = 0; i < 3; i++)
            need += (size_t)lists[i]->len;
        if (len + need > cap) {
            while (len + need > cap)
                cap *= 2;
            Item *ns = realloc(st, cap * sizeof *st);
            if (!ns) {
                ok = false;
                break;
            }
            st = ns;
        }
        for (int i = 0; i < 3; i++)
            if (kids[i])
                st[len++] = (Item){kids[i], it.depth + 1};
        for (int i = 0; i < 3; i++)
            for (int j = 0; j < lists[i]->len; j++)
                if (lists[i]->items[j])
                    st[len++] = (Item){lists[i]->items[j], it.depth + 1};
    }
    free(st);
    return ok;
}

typedef struct Check {
    ParseState *ps;
    int loops;
    bool jit; /* in a decorated function: GPU code, where comprehensions are refused */
} Check;

#define CERR(c, sp, ...) diag_error((c)->ps->d, (c)->ps->src, (sp), __VA_ARGS__)

/* "a.b.c" for a name or attribute chain, else NULL. */
static const char *dotted_name(Arena *a, const Node *n) {
    if (n->kind == N_NAME)
        return n->name;
    if (n->kind == N_ATTR) {
        const char *base = dotted_name(a, n->a);
        return base ? arena_printf(a, "%s.%s", base, n->name) : NULL;
    }
    return NULL;
}

static const char *describe(const Node *e) {
    switch (e->kind) {
    case N_CALL: return "function call";
    case N_INT: case N_FLOAT: case N_STR: return "literal";
    case N_NONE: return "None";
    case N_TRUE: return "True";
    case N_FALSE: return "False";
    case N_BINARY: return e->op >= OP_LT && e->op <= OP_NOTIN ? "comparison" : "expression";
    case N_UNARY: case N_BOOLOP: return "expression";
    case N_IFEXP: return "conditional expression";
    case N_DICT: return "dict literal";
    case N_SLICE: return "slice";
    case N_KWARG: return "keyword argument";
    case N_TUPLE: return "tuple";
    case N_LIST: return "list";
    default: return "expression";
    }
}

static void check_expr(Check *c, Node *e);

static void check_target(Check *c, Node *t) {
    switch (t->kind) {
    case N_NAME:
        return;
    case N_ATTR:
    case N_SUBSCRIPT:
        check_expr(c, t);
        return;
    case N_TUPLE:
    case N_LIST:
        for (int i = 0; i < t->l0.len; i++)
            check_target(c, t->l0.items[i]);
        return;
    default:
        CERR(c, t->span, "cannot assign to %s", describe(t));
    }
}

/* A set of names, to find duplicates in linear time. */
typedef struct NameSet {
    const char **slots;
    size_t cap;
} NameSet;

static void nameset_init(NameSet *s, size_t n) {
    s->cap = 16;
    while (s->cap < 2 * n)
        s->cap *= 2;
    s->slots = calloc(s->cap, sizeof *s->slots);
}

/* Adds name; false if it was there already. */
static bool nameset_add(NameSet *s, const char *name) {
    if (!s->slots)
        return true;
    uint64_t h = 1469598103934665603u;
    for (const char *p = name; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211u;
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (!s->slots[i]) {
            s->slots[i] = name;
            return true;
        }
        if (strcmp(s->slots[i], name) == 0)
            return false;
    }
}

static void check_call(Check *c, Node *e) {
    bool kw = false, kwunpack = false;
    NameSet seen;
    nameset_init(&seen, (size_t)e->l0.len);
    for (int i = 0; i < e->l0.len; i++) {
        Node *a = e->l0.items[i];
        if (a->kind != N_KWARG) {
            if (kwunpack)
                CERR(c, a->span, "positional argument follows keyword argument unpacking");
            else if (kw)
                CERR(c, a->span, "positional argument follows keyword argument");
        } else if (a->op == OP_POW) {
            kwunpack = true;
        } else if (a->op == OP_MUL) {
            if (kwunpack)
                CERR(c, a->span, "iterable argument unpacking follows keyword argument unpacking");
        } else {
            kw = true;
            if (a->name && !nameset_add(&seen, a->name))
                CERR(c, a->span, "keyword argument repeated: %s", a->name);
        }
    }
    free(seen.slots);
}

static void check_expr(Check *c, Node *e) {
    if (!e)
        return;
    if (e->kind == N_CALL)
        check_call(c, e);
    if (e->kind == N_LAMBDA) {
        CERR(c, e->span, "lambda expressions are not part of the kernel language (only the values of "
                         "@triton.heuristics({...}) may be lambdas)");
        return;
    }
    check_expr(c, e->a);
    check_expr(c, e->b);
    check_expr(c, e->c);
    for (int i = 0; i < e->l0.len; i++)
        check_expr(c, e->l0.items[i]);
    for (int i = 0; i < e->l1.len; i++)
        check_expr(c, e->l1.items[i]);
}

static void check_body(Check *c, NodeList body);

static void check_stmt(Check *c, Node *s) {
    switch (s->kind) {
    case N_FUNCDEF:
        CERR(c, s->span, "nested functions are not part of the kernel language");
        return;
    case N_CLASSDEF:
        CERR(c, s->span, "a typing.NamedTuple class is defined at module level in the kernel language");
        return;
    case N_IMPORT:
    case N_IMPORT_FROM:
        CERR(c, s->span, "import statements are only allowed at module level");
        return;
    case N_ASSIGN:
        for (int i = 0; i < s->l0.len; i++)
            check_target(c, s->l0.items[i]);
        check_expr(c, s->a);
        return;
    case N_ANNASSIGN:
        if (s->a->kind != N_NAME && s->a->kind != N_ATTR && s->a->kind != N_SUBSCRIPT)
            CERR(c, s->a->span, "illegal target for annotation");
        check_expr(c, s->a);
        check_expr(c, s->b);
        check_expr(c, s->c);
        return;
    case N_AUGASSIGN:
        if (s->a->kind != N_NAME && s->a->kind != N_ATTR && s->a->kind != N_SUBSCRIPT)
            CERR(c, s->a->span, "'%s' is an illegal expression for augmented assignment",
                 describe(s->a));
        check_expr(c, s->a);
        check_expr(c, s->b);
        return;
    case N_IF:
        check_expr(c, s->a);
        check_body(c, s->l0);
        check_body(c, s->l1);
        return;
    case N_FOR:
        check_target(c, s->a);
        check_expr(c, s->b);
        c->loops++;
        check_body(c, s->l0);
        c->loops--;
        check_body(c, s->l1);
        return;
    case N_WHILE:
        check_expr(c, s->a);
        c->loops++;
        check_body(c, s->l0);
        c->loops--;
        check_body(c, s->l1);
        return;
    case N_BREAK:
        if (!c->loops)
            CERR(c, s->span, "'break' outside loop");
        return;
    case N_CONTINUE:
        if (!c->loops)
            CERR(c, s->span, "'continue' not properly in loop");
        return;
    default:
        check_expr(c, s->a);
        check_expr(c, s->b);
        return;
    }
}

static void check_body(Check *c, NodeList body) {
    for (int i = 0; i < body.len && !c->ps->d->too_many; i++)
        check_stmt(c, body.items[i]);
}

static bool is_jit(const char *s) { return !strcmp(s, "triton.jit") || !strcmp(s, "jit"); }
static bool is_wrapper(const char *s) {
    return !strcmp(s, "triton.autotune") || !strcmp(s, "autotune") ||
           !strcmp(s, "triton.heuristics") || !strcmp(s, "heuristics");
}
/* @triton.must_use_result or @triton.must_use_result("why"): sema checks the calls. */
static bool is_must_use(const char *s) { return !strcmp(s, "triton.must_use_result") || !strcmp(s, "must_use_result"); }

/* @triton.heuristics({'NAME': lambda args: ..., ...}): the one place a
 * lambda may stand, as a value of its dict (sema evaluates it when it
 * specialises the kernel); anything else in the call is checked as usual. */
static void check_heuristics(Check *c, Node *d) {
    check_call(c, d);
    check_expr(c, d->a);
    for (int i = 0; i < d->l0.len; i++) {
        Node *arg = d->l0.items[i];
        Node *dict = arg->kind == N_KWARG && arg->name && !strcmp(arg->name, "values") ? arg->a : arg;
        if (dict->kind != N_DICT) {
            check_expr(c, arg);
            continue;
        }
        for (int j = 0; j < dict->l0.len; j++) {
            Node *v = j < dict->l1.len ? dict->l1.items[j] : NULL;
            check_expr(c, dict->l0.items[j]);
            if (v && v->kind == N_LAMBDA) {
                for (int k = 0; k < v->l0.len; k++)
                    check_expr(c, v->l0.items[k]->b);
                check_expr(c, v->a);
            } else {
                check_expr(c, v);
            }
        }
    }
}

static void check_funcdef(Check *c, Node *f) {
    Arena *a = c->ps->arena;
    c->jit = f->l2.len > 0; /* any other decorator is refused below */
    int njit = 0, jit_at = -1, nknown = 0;
    const char *wrapper = NULL;
    for (int i = 0; i < f->l2.len; i++) {
        Node *d = f->l2.items[i];
        const Node *callee = d->kind == N_CALL ? d->a : d;
        const char *name = dotted_name(a, callee);
        if (!name) {
            CERR(c, d->span, "unknown decorator: a decorator must be a name like '@triton.jit'");
            continue;
        }
        if (is_jit(name)) {
            njit++;
            jit_at = i;
            nknown++;
            if (njit == 2)
                CERR(c, d->span, "duplicate decorator '@%s'", name);
        } else if (is_must_use(name)) {
            nknown++;
        } else if (is_wrapper(name)) {
            nknown++;
            if (!wrapper)
                wrapper = name;
            if (d->kind != N_CALL)
                CERR(c, d->span, "decorator '@%s' must be called with arguments", name);
        } else {
            CERR(c, d->span, "unknown decorator '%s'", name);
        }
        if (d->kind == N_CALL && strstr(name, "heuristics"))
            check_heuristics(c, d);
        else
            check_expr(c, d);
    }
    if (wrapper && njit == 0 && nknown == f->l2.len)
        CERR(c, f->l2.items[0]->span, "'@%s' needs a '@triton.jit' function: add '@triton.jit' below it",
             wrapper);
    if (njit > 0 && jit_at != f->l2.len - 1)
        CERR(c, f->l2.items[jit_at]->span,
             "'@%s' must be the innermost decorator (the last one before 'def')",
             dotted_name(a, f->l2.items[jit_at]->kind == N_CALL ? f->l2.items[jit_at]->a
                                                                 : f->l2.items[jit_at]));
    /* parameters */
    bool dflt = false, star = false, kwstar = false;
    NameSet seen;
    nameset_init(&seen, (size_t)f->l0.len);
    for (int i = 0; i < f->l0.len; i++) {
        Node *p = f->l0.items[i];
        if (p->kind != N_PARAM || !p->name)
            continue;
        if (!nameset_add(&seen, p->name))
            CERR(c, p->span, "duplicate parameter '%s' in function definition", p->name);
        if (kwstar)
            CERR(c, p->span, "parameters cannot follow a '**' parameter");
        if (p->op == OP_POW) {
            kwstar = true;
        } else if (p->op == OP_MUL) {
            if (star)
                CERR(c, p->span, "only one '*' parameter is allowed");
            star = true;
        } else if (p->b) {
            dflt = true;
        } else if (dflt && !star) {
            CERR(c, p->span, "parameter without a default follows parameter with a default");
        }
        check_expr(c, p->a);
        check_expr(c, p->b);
    }
    free(seen.slots);
    check_expr(c, f->a);
    c->loops = 0;
    check_body(c, f->l1);
}

/* A typing.NamedTuple class: its body declares fields (NAME: TYPE, with an
 * optional default), with docstrings and `pass` beside them. The annotations
 * are never evaluated (a named tuple's fields take any value). */
static void check_classdef(Check *c, Node *cls) {
    const Node *with_default = NULL;
    for (int i = 0; i < cls->l0.len; i++) {
        Node *s = cls->l0.items[i];
        if (s->kind == N_PASS || (s->kind == N_EXPR_STMT && s->a->kind == N_STR))
            continue;
        if (s->kind != N_ANNASSIGN || s->a->kind != N_NAME) {
            CERR(c, s->span, "a typing.NamedTuple class declares fields only (NAME: TYPE or NAME: TYPE = DEFAULT)");
            continue;
        }
        if (s->c) {
            check_expr(c, s->c);
            with_default = s;
        } else if (with_default) {
            CERR(c, s->span, "Non-default namedtuple field %s cannot follow default field %s", s->a->name,
                 with_default->a->name);
        }
    }
}

static void check_module(Check *c, Node *m) {
    for (int i = 0; i < m->l0.len && !c->ps->d->too_many; i++) {
        Node *s = m->l0.items[i];
        bool host = false;
        switch (s->kind) {
        case N_IMPORT:
        case N_IMPORT_FROM:
        case N_PASS:
            break;
        case N_FUNCDEF:
            check_funcdef(c, s);
            c->jit = false;
            break;
        case N_CLASSDEF:
            check_classdef(c, s);
            break;
        case N_ASSIGN:
            for (int j = 0; j < s->l0.len; j++) {
                Node *t = s->l0.items[j];
                if (t->kind == N_TUPLE || t->kind == N_LIST) {
                    for (int k = 0; k < t->l0.len; k++)
                        if (t->l0.items[k]->kind != N_NAME)
                            host = true;
                } else if (t->kind != N_NAME) {
                    host = true;
                }
            }
            if (!host)
                check_expr(c, s->a);
            break;
        case N_ANNASSIGN:
            host = s->a->kind != N_NAME;
            if (!host) {
                check_expr(c, s->b);
                check_expr(c, s->c);
            }
            break;
        case N_EXPR_STMT:
            host = s->a->kind != N_STR; /* a docstring is fine */
            break;
        default:
            host = true;
        }
        if (host) { /* set aside: tl never runs host code (host.c) */
            Node *h = ast_new(c->ps->arena, N_HOST, s->span);
            ast_push(c->ps->arena, &m->l1, h);
            memmove(&m->l0.items[i], &m->l0.items[i + 1], sizeof(Node *) * (size_t)(m->l0.len - i - 1));
            m->l0.len--;
            i--;
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Entry point                                                               */

/* NUL bytes and malformed UTF-8 are reported before scanning (flex then only
 * ever sees valid UTF-8). Returns false if any was found. */
static bool check_encoding(Diag *d, const Source *src) {
    const unsigned char *s = (const unsigned char *)src->text;
    size_t n = src->len;
    int line = 1, col = 1;
    bool ok = true;
    for (size_t i = 0; i < n && !d->too_many;) {
        unsigned char c = s[i];
        if (c == '\n') {
            line++;
            col = 1;
            i++;
            continue;
        }
        if (c == 0) {
            diag_error(d, src, (Span){line, col, line, col + 1}, "source contains a NUL byte");
            ok = false;
            i++;
            col++;
            continue;
        }
        if (c < 0x80) {
            i++;
            col++;
            continue;
        }
        size_t len = 0;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c >= 0xC2 && c <= 0xDF)
            len = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            len = 3;
            if (c == 0xE0)
                lo = 0xA0;
            if (c == 0xED)
                hi = 0x9F;
        } else if (c >= 0xF0 && c <= 0xF4) {
            len = 4;
            if (c == 0xF0)
                lo = 0x90;
            if (c == 0xF4)
                hi = 0x8F;
        }
        bool good = len > 0 && i + len <= n;
        for (size_t k = 1; good && k < len; k++) {
            unsigned char cc = s[i + k];
            if (k == 1 ? (cc < lo || cc > hi) : (cc < 0x80 || cc > 0xBF))
                good = false;
        }
        if (!good) {
            diag_error(d, src, (Span){line, col, line, col + 1}, "invalid UTF-8 byte 0x%02X", c);
            ok = false;
            i++;
            col++;
            continue;
        }
        i += len;
        col += (int)len;
    }
    return ok;
}

/* Scan, parse and check; ps->ok says whether the module is good. */
static void run_parse(ParseState *ps, yyscan_t scanner, size_t skip, int errors0) {
    Diag *d = ps->d;
    const Source *src = ps->src;
    yy_scan_bytes(src->text + skip, (int)(src->len - skip), scanner);
    int rc = yyparse(scanner, ps);
    if ((rc != 0 || !ps->module) && d->nerrors == errors0 && !d->too_many)
        diag_error(d, src, (Span){ps->last_line, ps->last_col, 0, 0}, "invalid syntax");
    if (d->nerrors == errors0 && !d->too_many && ps->module && check_depth(ps, ps->module)) {
        Check c = {ps, 0, false};
        check_module(&c, ps->module);
    }
    ps->ok = d->nerrors == errors0 && !d->too_many && ps->module;
}

static Node *parse_one(Arena *arena, Diag *d, const Source *src);

/* Parse; where that fails, set the host code aside (host.c) and parse what is
 * left, so that only the kernels' errors are reported. The first try renders
 * into a scratch log, copied out when it stands. */
Node *parse_source(Arena *arena, Diag *d, const Source *src) {
    if (d->too_many)
        return NULL;
    Diag first = {.color = d->color, .max_errors = d->max_errors};
    Node *m = parse_one(arena, &first, src);
    NodeList host = {0};
    char *text = m ? NULL : host_blank(arena, src, parse_one, &host);
    if (text) {
        Source rest = {src->name, text, src->len};
        m = parse_one(arena, d, &rest);
        for (int i = 0; m && i < host.len; i++)
            ast_push(arena, &m->l1, host.items[i]);
    } else {
        buf_puts(&d->out, first.out.data ? first.out.data : "");
        d->nerrors += first.nerrors;
        d->nwarnings += first.nwarnings;
        d->too_many |= first.too_many;
        d->internal |= first.internal;
    }
    buf_free(&first.out);
    return m;
}

static Node *parse_one(Arena *arena, Diag *d, const Source *src) {
    int errors0 = d->nerrors;
    if (d->too_many)
        return NULL;
    if (src->len > (size_t)1 << 30) {
        diag_error(d, src, (Span){0}, "source file is too large");
        return NULL;
    }
    if (!check_encoding(d, src))
        return NULL;

    ParseState *ps = calloc(1, sizeof *ps);
    if (!ps)
        return NULL;
    ps->arena = arena;
    ps->errors0 = errors0;
    ps->d = d;
    ps->src = src;
    ps->line = 1;
    ps->last_line = 1;
    ps->bol = true;
    ps->at_bol = true;
    ps->len = src->len;
    size_t skip = 0;
    if (src->len >= 3 && memcmp(src->text, "\xEF\xBB\xBF", 3) == 0)
        skip = 3; /* a UTF-8 byte order mark */
    ps->col = ps->last_col = 1 + (int)skip;
    ps->off = skip;

    yyscan_t scanner = NULL;
    if (yylex_init_extra(ps, &scanner) != 0) {
        free(ps);
        return NULL;
    }
    if (setjmp(ps->fatal) == 0)
        run_parse(ps, scanner, skip, errors0);
    else
        diag_error(d, src, (Span){0}, "out of memory while parsing");
    Node *result = ps->ok ? ps->module : NULL;
    yylex_destroy(scanner);
    buf_free(&ps->sbuf);
    free(ps);
    return result;
}
