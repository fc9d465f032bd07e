/* irprint.c: the IR as text (docs/ir.md has the grammar).
 *
 *   func @add(%x.1: !ptr<f32> {div = 16}, %n.2: i32) {num_warps = 4, num_stages = 3} {
 *     %3 = program_id {axis = 0} : i32
 *     %4, %5 = for %a.6, %b.7, %c.8 iter(%9, %10) : i32, <4xf32> {
 *     ^body(%11: i32, %12: i32, %13: <4xf32>):
 *       ...
 *       yield %12, %13
 *     }
 *     return
 *   }
 *
 * Values print with their own ValueIds (no renumbering), so a dump, a verifier
 * message and an interpreter error name a value alike; the parser keeps the
 * numbers it reads, which is what makes print(parse(print(f))) == print(f)
 * hold byte for byte. A value with a source name prints as %name.N: the name
 * is for the reader, the number is the identity.
 *
 * The tables below are the one description of the text form's attribute keys,
 * enum spellings and region labels; irparse.c and verify.c declare them. */
#include "ir.h"
#include "layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Enum spellings, indexed by the enum value (CmpPred, ReduceKind, RmwKind,
 * DotPrecision), NULL-terminated. */
const char *const ir_cmp_names[] = {"lt", "le", "gt", "ge", "eq", "ne", NULL};
const char *const ir_reduce_names[] = {"sum", "max", "min", "argmax", "argmin", NULL};
const char *const ir_rmw_names[] = {"add", "max", "min", "xchg", "and", "or", "xor", NULL};
const char *const ir_precision_names[] = {"ieee", "tf32", "tf32x3", NULL};
const char *const ir_cache_names[] = {"none", "ca", "cg", "cv", "wb", "cs", "wt", NULL};
const char *const ir_evict_names[] = {"normal", "evict_first", "evict_last", NULL};
const char *const ir_sem_names[] = {"acq_rel", "acquire", "release", "relaxed", NULL};
const char *const ir_scope_names[] = {"gpu", "cta", "sys", NULL};

/* The attributes each op carries in the text, space-separated, in print order.
 * LOAD/STORE/ATOMIC_RMW's has_mask/has_other are not here: the operand count
 * says them. */
const char *const ir_attr_keys[IR__NUM] = {
    [IR_CONST] = "value",
    [IR_PROGRAM_ID] = "axis",
    [IR_NUM_PROGRAMS] = "axis",
    [IR_ARANGE] = "start end",
    [IR_EXPAND_DIMS] = "axis",
    [IR_TRANS] = "perm",
    [IR_EXTRACT] = "axis start",
    [IR_MULTIPLE_OF] = "vals",
    [IR_MAX_CONTIGUOUS] = "vals",
    [IR_MAX_CONSTANCY] = "vals",
    [IR_INTRINSIC] = "fn",
    [IR_CMP] = "pred",
    [IR_LOAD] = "cache evict volatile", /* each printed only when set */
    [IR_STORE] = "cache evict",
    [IR_ATOMIC_RMW] = "kind sem scope", /* sem and scope printed only when not the default */
    [IR_ATOMIC_CAS] = "sem scope",
    [IR_DOT] = "precision imprecise", /* imprecise printed only when set */
    [IR_REDUCE] = "kind axis keep_dims",
    [IR_PRINT] = "prefix hex",
    [IR_ASSERT] = "msg",
    [IR_ASSUME] = "msg", /* printed only when set: a fact sema states for the user (a descriptor's alignment) */
    [IR_SCAN] = "axis reverse",
    [IR_REDUCE_FN] = "axis keep_dims",
    [IR_GATHER] = "axis xor", /* xor printed only when set */
    [IR_LOCAL_ALLOC] = "offset",
    [IR_TMAP_CREATE] = "box nan offset", /* nan printed only when set */
    [IR_ASYNC_COPY] = "ragged",      /* printed only when set */
    [IR_ASYNC_WAIT] = "num",
    [IR_MBAR_EXPECT] = "bytes",
    [IR_MBAR_INIT] = "count",        /* printed only when set: more than one arrival */
    [IR_WARP_SPEC] = "warps",
    [IR_FOR] = "num_stages flatten warp_specialize disable_licm ws_hold", /* each printed only when set */
                                                                          /* (tl.range's; ws_hold the pipeliner's) */
    [IR_WHILE] = "disable_licm",                                  /* printed only when set (tl.condition's) */
    [IR_EXTERN] = "fn",
    [IR_INLINE_ASM] = "asm constraints pure pack",
    [IR_MAP_FN] = "pack",
    [IR_DIV] = "rn", /* printed only when set: tl.div_rn */
    [IR_CAST] = "rtz", /* printed only when set: fp_downcast_rounding='rtz' */
};

/* Region labels of the ops that own regions; their number is the op's number
 * of regions. A region's label names its header line (^body(...):) and, for
 * every region after the first, is the keyword between regions (} else {). */
const char *const ir_region_labels[IR__NUM][2] = {
    [IR_FOR] = {"body"},
    [IR_IF] = {"then", "else"},
    [IR_WHILE] = {"before", "do"},
    [IR_SCAN] = {"combine"},
    [IR_WARP_SPEC] = {"producer"},
    [IR_REDUCE_FN] = {"combine"},
    [IR_MAP_FN] = {"fn"},
};

/* Names print only when the parser can read them back. */
static bool is_ident(const char *s) {
    if (!s || !(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

static void put_value(Buf *b, const Function *f, ValueId v) {
    const char *name = v > 0 && v < f->nvalues ? f->values[v].name : NULL;
    if (is_ident(name))
        buf_printf(b, "%%%s.%d", name, v);
    else
        buf_printf(b, "%%%d", v);
}

static void put_values(Buf *b, const Function *f, const ValueId *vs, int n) {
    for (int i = 0; i < n; i++) {
        if (i)
            buf_puts(b, ", ");
        put_value(b, f, vs[i]);
    }
}

static Type type_of(const Function *f, ValueId v) {
    return v > 0 && v < f->nvalues ? f->values[v].type : (Type){0};
}

/* After the layout pass a block type shows its layout: <128x64xf16, #blocked1>
 * (layout.c). */
static void put_type(Buf *b, const Function *f, ValueId v) {
    if (f->nlayouts > 0)
        layout_print_type(b, f, v);
    else
        ir_type_print(b, type_of(f, v));
}

/* "%3: i32", as parameters and block arguments declare values. */
static void put_decl(Buf *b, const Function *f, ValueId v) {
    put_value(b, f, v);
    buf_puts(b, ": ");
    put_type(b, f, v);
}

/* An enum attribute; a value out of range (bad IR) prints as its number so
 * the dump still shows it and the parser rejects it. */
static void put_enum(Buf *b, const char *const *names, int v) {
    int n = 0;
    while (names[n])
        n++;
    if (v >= 0 && v < n)
        buf_puts(b, names[v]);
    else
        buf_printf(b, "%d", v);
}

static void put_list(Buf *b, const int64_t *v, int n) {
    buf_putc(b, '[');
    for (int i = 0; i < n; i++)
        buf_printf(b, "%s%lld", i ? ", " : "", (long long)v[i]);
    buf_putc(b, ']');
}

static void put_const(Buf *b, const Function *f, const Inst *in) {
    DType dt = in->nresults ? (DType)type_of(f, in->results[0]).dtype : DT_I64;
    if (dt_is_fp(dt))
        buf_put_double(b, in->attr.f);
    else if (dt == DT_U64)
        buf_printf(b, "%llu", (unsigned long long)in->attr.i);
    else
        buf_printf(b, "%lld", (long long)in->attr.i);
}

/* The number of entries TRANS's perm and the hints' vals print: one per
 * dimension of the operand (a hint on a scalar still has one). */
static int list_len(const Function *f, const Inst *in) {
    int rank = in->nargs ? type_of(f, in->args[0]).rank : 0;
    return in->op == IR_TRANS || rank ? rank : 1;
}

static void put_attr(Buf *b, const Function *f, const Inst *in, const char *key, size_t n) {
    const Attr *a = &in->attr;
#define IS(k) (n == sizeof k - 1 && !memcmp(key, k, n))
    if (IS("value")) {
        put_const(b, f, in);
    } else if (IS("axis")) {
        buf_printf(b, "%d", a->axis);
    } else if (IS("start")) {
        buf_printf(b, "%lld", (long long)a->start);
    } else if (IS("end")) {
        buf_printf(b, "%lld", (long long)a->end);
    } else if (IS("perm")) {
        int64_t perm[IR_MAX_RANK];
        for (int i = 0; i < IR_MAX_RANK; i++)
            perm[i] = a->perm[i];
        put_list(b, perm, list_len(f, in));
    } else if (IS("vals")) {
        put_list(b, a->vals, list_len(f, in));
    } else if (IS("box")) {
        put_list(b, a->vals, 2);
    } else if (IS("nan")) {
        buf_puts(b, a->nan ? "true" : "false");
    } else if (IS("pred")) {
        put_enum(b, ir_cmp_names, a->pred);
    } else if (IS("kind")) {
        put_enum(b, in->op == IR_REDUCE ? ir_reduce_names : ir_rmw_names,
                 in->op == IR_REDUCE ? a->reduce : a->rmw);
    } else if (IS("keep_dims")) {
        buf_puts(b, a->keep_dims ? "true" : "false");
    } else if (IS("precision")) {
        put_enum(b, ir_precision_names, a->precision);
    } else if (IS("prefix") || IS("msg") || IS("fn") || IS("asm")) {
        buf_put_quoted(b, a->str, a->str ? strlen(a->str) : 0, true);
    } else if (IS("constraints")) {
        buf_put_quoted(b, a->str2, a->str2 ? strlen(a->str2) : 0, true);
    } else if (IS("pure")) {
        buf_puts(b, a->pure ? "true" : "false");
    } else if (IS("pack")) {
        buf_printf(b, "%d", a->pack);
    } else if (IS("hex")) {
        buf_puts(b, a->hex ? "true" : "false");
    } else if (IS("reverse")) {
        buf_puts(b, a->reverse ? "true" : "false");
    } else if (IS("rn")) {
        buf_puts(b, a->rn ? "true" : "false");
    } else if (IS("rtz")) {
        buf_puts(b, a->rtz ? "true" : "false");
    } else if (IS("ragged")) {
        buf_puts(b, a->num ? "true" : "false");
    } else if (IS("offset")) {
        buf_printf(b, "%d", a->offset);
    } else if (IS("num") || IS("bytes") || IS("count") || IS("warps") || IS("imprecise") || IS("xor")) {
        buf_printf(b, "%d", a->num);
    } else if (IS("num_stages")) {
        buf_printf(b, "%d", a->num_stages);
    } else if (IS("ws_hold")) {
        buf_printf(b, "%d", a->ws_hold);
    } else if (IS("flatten")) {
        buf_puts(b, a->flatten ? "true" : "false");
    } else if (IS("warp_specialize")) {
        buf_puts(b, a->warp_spec > 0 ? "true" : "false");
    } else if (IS("disable_licm")) {
        buf_puts(b, a->no_licm ? "true" : "false");
    } else if (IS("cache")) {
        put_enum(b, ir_cache_names, a->cache);
    } else if (IS("evict")) {
        put_enum(b, ir_evict_names, a->evict);
    } else if (IS("volatile")) {
        buf_puts(b, a->is_volatile ? "true" : "false");
    } else if (IS("sem")) {
        put_enum(b, ir_sem_names, a->sem);
    } else if (IS("scope")) {
        put_enum(b, ir_scope_names, a->scope);
    }
#undef IS
}

/* tl.range's attributes (and the pipeliner's ws_hold), an mbarrier's count,
 * a dot's imprecise and the memory ops' hints print only when set. */
static bool attr_unset(const Inst *in, const char *key, size_t n) {
    const Attr *a = &in->attr;
#define IS(k) (n == sizeof k - 1 && !memcmp(key, k, n))
    if (IS("cache"))
        return !a->cache;
    if (IS("evict"))
        return !a->evict;
    if (IS("volatile"))
        return !a->is_volatile;
    if (IS("sem"))
        return !a->sem;
    if (IS("scope"))
        return !a->scope;
    if (IS("imprecise") || IS("xor") || IS("ragged"))
        return !a->num;
    if (IS("nan"))
        return !a->nan;
    if (IS("disable_licm"))
        return !a->no_licm;
    if (IS("flatten"))
        return !a->flatten;
    if (IS("warp_specialize"))
        return !a->warp_spec;
    if (IS("num_stages"))
        return !a->num_stages;
    if (IS("ws_hold"))
        return !a->ws_hold;
#undef IS
    if (in->op == IR_MBAR_INIT)
        return !in->attr.num;
    if (in->op == IR_DIV)
        return !in->attr.rn;
    if (in->op == IR_CAST)
        return !in->attr.rtz;
    return false;
}

/* The op's attributes, then, on any op of allocated IR that smem-alloc gave
 * shared scratch (a convert, a reduction, a dot staging its operands), that
 * area as `scratch = [offset, bytes]`: IR text from after smem-alloc
 * compiles on (tlc --ir-in continues at the barriers pass) only with it. */
static void put_attrs(Buf *b, const Function *f, const Inst *in) {
    const char *k = in->op < IR__NUM ? ir_attr_keys[in->op] : NULL;
    bool scratch = f->smem_allocated && in->scratch_size > 0;
    if (!k || (in->op == IR_FOR && !in->attr.num_stages && !in->attr.flatten && !in->attr.warp_spec &&
               !in->attr.no_licm && !in->attr.ws_hold) ||
        (in->op == IR_WHILE && !in->attr.no_licm) ||
        (in->op == IR_ASSUME && !in->attr.str) || (in->op == IR_MBAR_INIT && !in->attr.num) ||
        (in->op == IR_DIV && !in->attr.rn) || (in->op == IR_CAST && !in->attr.rtz))
        k = "";
    bool any = scratch;
    for (const char *q = k; *q;) {
        size_t n = strcspn(q, " ");
        any |= !attr_unset(in, q, n);
        q += n + (q[n] == ' ');
    }
    if (!any)
        return;
    buf_puts(b, " {");
    bool first = true;
    while (*k) {
        size_t n = strcspn(k, " ");
        bool unset = attr_unset(in, k, n);
        if (!unset) {
            buf_printf(b, "%s%.*s = ", first ? "" : ", ", (int)n, k);
            put_attr(b, f, in, k, n);
            first = false;
        }
        k += n + (k[n] == ' ');
    }
    if (scratch)
        buf_printf(b, "%sscratch = [%d, %d]", first ? "" : ", ", in->scratch_off, in->scratch_size);
    buf_putc(b, '}');
}

static void indent(Buf *b, int depth) {
    for (int i = 0; i < depth; i++)
        buf_puts(b, "  ");
}

static void print_inst(Buf *b, const Function *f, const Inst *in, int depth);

/* A region: '{', a header line when the block has arguments, the ops, '}'. */
static void print_region(Buf *b, const Function *f, const Block *blk, const char *label, int depth) {
    buf_puts(b, " {\n");
    if (blk && blk->nargs) {
        indent(b, depth);
        buf_printf(b, "^%s(", label ? label : "region");
        for (int i = 0; i < blk->nargs; i++) {
            if (i)
                buf_puts(b, ", ");
            put_decl(b, f, blk->args[i]);
        }
        buf_puts(b, "):\n");
    }
    for (int i = 0; blk && i < blk->ninsts; i++)
        print_inst(b, f, blk->insts[i], depth + 1);
    indent(b, depth);
    buf_putc(b, '}');
}

/* %r = op %a, %b {attrs} : types regions */
static void print_inst(Buf *b, const Function *f, const Inst *in, int depth) {
    bool known = in->op < IR__NUM;
    indent(b, depth);
    if (in->nresults) {
        put_values(b, f, in->results, in->nresults);
        buf_puts(b, " = ");
    }
    buf_puts(b, known ? ir_ops[in->op].name : "?");
    /* A for's carried values read better apart from its bounds. */
    int plain = in->op == IR_FOR && in->nargs > 3 ? 3 : in->nargs;
    if (plain) {
        buf_putc(b, ' ');
        put_values(b, f, in->args, plain);
    }
    if (plain < in->nargs) {
        buf_puts(b, " iter(");
        put_values(b, f, in->args + plain, in->nargs - plain);
        buf_putc(b, ')');
    }
    put_attrs(b, f, in);
    for (int i = 0; i < in->nresults; i++) {
        buf_puts(b, i ? ", " : " : ");
        put_type(b, f, in->results[i]);
    }
    for (int i = 0; i < in->nregions; i++) {
        const char *label = known ? ir_region_labels[in->op][i] : NULL;
        if (i)
            buf_printf(b, " %s", label ? label : "region");
        print_region(b, f, in->regions[i], label, depth);
    }
    buf_putc(b, '\n');
}

void ir_print_func(Buf *out, const Function *f) {
    if (f->nlayouts > 0)
        layout_print_aliases(out, f);
    buf_printf(out, "func @%s(", f->name);
    for (int i = 0; i < f->nparams; i++) {
        if (i)
            buf_puts(out, ", ");
        put_decl(out, f, i + 1);
        const Param *p = &f->params[i];
        const char *sep = " {";
        if (p->divisibility != 1) {
            buf_printf(out, "%sdiv = %d", sep, p->divisibility);
            sep = ", ";
        }
        if (p->equal_to_1) {
            buf_printf(out, "%sequal_to_1 = true", sep);
            sep = ", ";
        }
        if (p->tensormap) {
            buf_printf(out, "%stensormap = true", sep);
            sep = ", ";
        }
        if (p->nonneg) {
            buf_printf(out, "%snonneg = true", sep);
            sep = ", ";
        }
        if (p->above1) {
            buf_printf(out, "%sabove1 = true", sep);
            sep = ", ";
        }
        if (p->scratch) {
            buf_printf(out, "%sscratch = true", sep);
            sep = ", ";
        }
        const TmaSource *t = &p->tma;
        if (t->base)
            buf_printf(out, ", tma = [%d, %d, %d, %d], box = [%d, %d]", t->base, t->dim[0][0], t->dim[1][0], t->stride,
                       t->box[0], t->box[1]);
        if (t->base && (t->dim[0][1] || t->dim[0][2] || t->dim[1][1] || t->dim[1][2]))
            buf_printf(out, ", tma_mul = [%d, %d, %d, %d]", t->dim[0][1], t->dim[0][2], t->dim[1][1], t->dim[1][2]);
        if (*sep == ',')
            buf_putc(out, '}');
    }
    buf_printf(out, ") {num_warps = %d, num_stages = %d", f->num_warps, f->num_stages);
    if (f->auto_tma)
        buf_puts(out, ", auto_tma = true");
    if (f->warp_spec)
        buf_puts(out, ", warp_specialize = true");
    if (f->no_fp_fusion)
        buf_puts(out, ", no_fp_fusion = true");
    if (f->maxnreg)
        buf_printf(out, ", maxnreg = %d", f->maxnreg);
    if (f->producer_warps)
        buf_printf(out, ", producer_warps = %d", f->producer_warps);
    if (f->smem_allocated)
        buf_printf(out, ", shared = %d", f->shared_bytes);
    if (f->global_scratch)
        buf_printf(out, ", global_scratch = %d", f->global_scratch);
    buf_puts(out, "} {\n");
    for (int i = 0; f->body && i < f->body->ninsts; i++)
        print_inst(out, f, f->body->insts[i], 1);
    buf_puts(out, "}\n");
}

void ir_print_module(Buf *out, const Module *m) {
    for (int i = 0; i < m->nfuncs; i++) {
        if (i)
            buf_putc(out, '\n');
        ir_print_func(out, m->funcs[i]);
    }
}
