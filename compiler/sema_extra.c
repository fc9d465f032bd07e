/* sema_extra.c: the rest of triton.language's math (language/math.py,
 * standard.softmax), the libdevice functions of triton.language.extra, and
 * inline assembly (core.inline_asm_elementwise), as in Triton 3.x.
 *
 * math.py's functions map onto the IR's arithmetic where tl's ops already
 * have the precision they ask for: `/` is IEEE division and `sqrt` the IEEE
 * square root on both back ends, so div_rn, fdiv (whose ieee_rounding Triton
 * ignores too) and sqrt_rn are those ops; erf and umulhi are ops of their
 * own. A libdevice call is an `extern` op naming the libdevice symbol of the
 * variant the argument types select (compiler/libdevice.c); inline assembly
 * is an `inline_asm` op, which only the GPU can run. tl.assume is an
 * `assume` op and tl.extra.cuda's special registers and grid dependency
 * controls `intrinsic` ops (the interpreter gives them CPU meanings). */
#include <stdlib.h>
#include <string.h>

#include "libdevice.h"
#include "sema_int.h"

#define T(t) sema_type_str(s, (t))
#define D(dt) sema_type_str(s, ir_scalar(dt))

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }
static DType dt_of(Sema *s, ValueId v) { return (DType)s->f->values[v].type.dtype; }
/* math._check_dtype: the element type must be one of `ok` (DT_VOID-ended). */
static void check_dtype(Sema *s, const char *fn, ValueId x, const DType *ok, Span sp) {
    DType d = dt_of(s, x);
    for (int i = 0; ok[i] != DT_VOID; i++)
        if (ok[i] == d)
            return;
    Buf b = {0};
    for (int i = 0; ok[i] != DT_VOID; i++)
        buf_printf(&b, "%s%s", i ? (ok[i + 1] == DT_VOID ? " or " : ", ") : "", D(ok[i]));
    const char *want = arena_strdup(s->a, b.data ? b.data : "");
    buf_free(&b);
    sema_fail(s, sp, "tl.%s expects %s values, got %s", fn, want, T(ty_of(s, x)));
}

/* ---- math.py ---- */

/* umulhi(x, y): int32 / uint32, the high 32 bits of the unsigned 64-bit product */
Val sema_h_umulhi(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x, y;
    sema_promote_pair(s, a[0], a[1], &x, &y, call);
    static const DType ok[] = {DT_I32, DT_U32, DT_VOID};
    check_dtype(s, bi->name, x, ok, sp[0]);
    ValueId args[2] = {x, y};
    return sema_tensor(s, sema_emit(s, IR_UMULHI, ty_of(s, x), args, 2, call));
}

/* fdiv(x, y, ieee_rounding=False), div_rn(x, y): float division (aux = 1:
 * div_rn, fp32 only, rounded to nearest: div's rn). fdiv is `/`, Triton's
 * fast division (div.full.f32 on the GPU); Triton's fdiv ignores
 * ieee_rounding as well. */
Val sema_h_fdiv(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    for (int i = 0; i < 2; i++)
        if (!(a[i].k == V_FLOAT || (a[i].k == V_TENSOR && dt_is_float((DType)a[i].ty.dtype))))
            sema_fail(s, sp[i], "both operands of %s must have a floating-point type, got %s", bi->name,
                      sema_describe(s, a[i]));
    if (bi->aux == 0)
        sema_opt_bool(s, a[2], sp[2], false, "ieee_rounding");
    ValueId x, y;
    sema_promote_pair(s, a[0], a[1], &x, &y, call);
    if (bi->aux) {
        static const DType ok[] = {DT_F32, DT_VOID};
        check_dtype(s, bi->name, x, ok, sp[0]);
    }
    ValueId args[2] = {x, y};
    ValueId r = sema_emit(s, IR_DIV, ty_of(s, x), args, 2, call);
    if (bi->aux && s->f->values[r].def && s->f->values[r].def->op == IR_DIV) /* (not a folded constant) */
        s->f->values[r].def->attr.rn = true;
    return sema_tensor(s, r);
}

/* sqrt_rn(x): fp32, the IEEE square root (tl.sqrt is one already) */
Val sema_h_sqrt_rn(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId x = sema_to_tensor(s, a[0], sp[0]);
    static const DType ok[] = {DT_F32, DT_VOID};
    check_dtype(s, bi->name, x, ok, sp[0]);
    return sema_tensor(s, sema_emit(s, IR_SQRT, ty_of(s, x), &x, 1, call));
}

/* A tl builtin called with positional arguments and keywords. */
static Val call_tl(Sema *s, const char *name, Val *args, int n, const char **kw, Val *kwv, int nkw, Span sp) {
    Args c = {0};
    Span sps[8] = {sp, sp, sp, sp, sp, sp, sp, sp};
    c.pos = args;
    c.pos_sp = sps;
    c.npos = n;
    c.kw = kw;
    c.kwv = kwv;
    c.kw_sp = sps;
    c.nkw = nkw;
    return sema_call_builtin(s, sema_builtin_tl(name), &c, sp);
}

/* standard.softmax(x, dim=None, keep_dims=False, ieee_rounding=False), line
 * by line: z = x - max(x, dim, keep_dims); num = exp(z); den = sum(num, dim,
 * keep_dims); fdiv(num, den). (As in Triton, dim=None means dim 0, and
 * keep_dims=False broadcasts the reduction against x right-aligned.) */
Val sema_h_softmax(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    Val dim = sema_given(a[1]) ? a[1] : sema_int(0);
    Val keep = sema_given(a[2]) ? a[2] : sema_bool(false);
    const char *kw[1] = {"keep_dims"};
    Val x = a[0], mx_args[2] = {x, dim}, kv[1] = {keep};
    Val mx = call_tl(s, "max", mx_args, 2, kw, kv, 1, call);
    Val z = sema_binop(s, OP_SUB, x, mx, call);
    Val num = call_tl(s, "exp", &z, 1, NULL, NULL, 0, call);
    Val sum_args[2] = {num, dim};
    Val den = call_tl(s, "sum", sum_args, 2, kw, kv, 1, call);
    Val fd[3] = {num, den, sema_given(a[3]) ? a[3] : sema_bool(false)};
    (void)sp;
    return call_tl(s, "fdiv", fd, 3, NULL, NULL, 0, call);
}

/* minimum / maximum / clamp with propagate_nan=tl.PropagateNan.ALL: a NaN
 * operand gives NaN (tl's min / max ignore NaN otherwise). r is the
 * NaN-ignoring result of x and y (one type); each NaN operand replaces it. */
ValueId sema_propagate_nan(Sema *s, ValueId r, const ValueId *xs, int n, Span sp) {
    if (!dt_is_float(dt_of(s, r)))
        return r;
    for (int i = n - 1; i >= 0; i--) {
        ValueId x = sema_broadcast_to(s, xs[i], ty_of(s, r), sp);
        ValueId args[3] = {x, x};
        ValueId nan = sema_emit(s, IR_CMP, ir_with_dtype(ty_of(s, r), DT_I1), args, 2, sp);
        s->f->values[nan].def->attr.pred = CMP_NE; /* true only for NaN */
        args[0] = nan, args[1] = x, args[2] = r;
        r = sema_emit(s, IR_SELECT, ty_of(s, r), args, 3, sp);
    }
    return r;
}

/* ---- libdevice ---- */

/* One Builtin per libdevice function used (its name is the key). */
const Builtin *sema_libdevice_builtin(Sema *s, const char *name) {
    if (!libdevice_fn(name))
        return NULL;
    Builtin *b = arena_alloc(s->a, sizeof *b);
    *b = (Builtin){.name = arena_strdup(s->a, name), .params = "*args", .fn = sema_h_libdevice, .flags = 0};
    return b;
}

static DType kind_dtype(char k) {
    switch (k) {
    case 'f': return DT_F32;
    case 'd': return DT_F64;
    case 'i': return DT_I32;
    case 'u': return DT_U32;
    case 'l': return DT_I64;
    case 'U': return DT_U64;
    default: return DT_VOID;
    }
}

static char dtype_kind(DType d) {
    return d == DT_F32 ? 'f' : d == DT_F64 ? 'd' : d == DT_I32 ? 'i' : d == DT_U32 ? 'u' : d == DT_I64 ? 'l'
         : d == DT_U64 ? 'U' : '?';
}

static const LibdeviceVariant *variant_for(const LibdeviceFn *fn, const char *kinds) {
    for (int k = 0; k < 4 && fn->v[k].args; k++)
        if (!strcmp(fn->v[k].args, kinds))
            return &fn->v[k];
    return NULL;
}

/* core.extern_elementwise: Python numbers become tensors of their own type
 * when that makes a variant (yn(2, x): int32, fp32), else of the first
 * tensor's type unless that would make a float an int; every argument is
 * broadcast to one shape, and the argument types must be one of the
 * function's variants, as given or else after Triton's arithmetic promotion
 * of all of them to one type. */
Val sema_h_libdevice(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    const LibdeviceFn *fn = libdevice_fn(bi->name);
    Val args = a[0];
    int n = args.n;
    if (n < 1 || n > LIBDEVICE_MAX_ARGS)
        sema_fail(s, call, "libdevice.%s takes 1 to %d arguments, got %d", bi->name, LIBDEVICE_MAX_ARGS, n);
    ValueId ids[LIBDEVICE_MAX_ARGS];
    int first = -1;
    for (int i = 0; i < n; i++)
        if (args.items[i].k == V_TENSOR && first < 0)
            first = i;
    char natural[LIBDEVICE_MAX_ARGS + 1] = {0};
    for (int i = 0; i < n; i++) {
        Val v = args.items[i];
        Type t;
        natural[i] = v.k == V_TENSOR ? dtype_kind((DType)v.ty.dtype)
                   : sema_is_number(v) && sema_number_type(s, v, &t, call) ? dtype_kind((DType)t.dtype) : '?';
    }
    bool own_types = variant_for(fn, natural) != NULL;
    for (int i = 0; i < n; i++) {
        Val v = args.items[i];
        Type num;
        if (first >= 0 && !own_types && sema_is_number(v) && sema_number_type(s, v, &num, call) &&
            (dt_is_float((DType)args.items[first].ty.dtype) || !dt_is_float((DType)num.dtype)))
            ids[i] = sema_const_of(s, v, ir_scalar((DType)args.items[first].ty.dtype), call);
        else
            ids[i] = sema_to_tensor(s, v, call);
        if (dt_of(s, ids[i]) == DT_PTR)
            sema_fail(s, call, "libdevice.%s does not take pointers", bi->name);
    }
    Type shape = ty_of(s, ids[0]);
    for (int i = 1; i < n; i++) {
        ValueId x = ids[0], y = ids[i];
        sema_broadcast_pair(s, &x, &y, call);
        shape = ty_of(s, x);
    }
    char kinds[LIBDEVICE_MAX_ARGS + 1] = {0};
    for (int i = 0; i < n; i++) {
        ids[i] = sema_broadcast_to(s, ids[i], shape, call);
        kinds[i] = dtype_kind(dt_of(s, ids[i]));
    }
    const LibdeviceVariant *var = variant_for(fn, kinds);
    DType given[LIBDEVICE_MAX_ARGS];
    for (int i = 0; i < n; i++)
        given[i] = dt_of(s, ids[i]);
    if (!var && n > 1) { /* no variant as given: Triton promotes the arguments to one type (add_rz(f32, f64)) */
        ValueId all = ids[0], x, y;
        for (int i = 1; i < n; i++) {
            sema_promote_pair(s, sema_tensor(s, ids[i]), sema_tensor(s, all), &x, &y, call);
            all = y;
        }
        ValueId promoted[LIBDEVICE_MAX_ARGS];
        for (int i = 0; i < n; i++) {
            sema_promote_pair(s, sema_tensor(s, ids[i]), sema_tensor(s, all), &x, &y, call);
            promoted[i] = x;
            kinds[i] = dtype_kind(dt_of(s, x));
        }
        if ((var = variant_for(fn, kinds)))
            memcpy(ids, promoted, sizeof ids[0] * (size_t)n);
    }
    if (!var) {
        Buf b = {0}, w = {0};
        for (int i = 0; i < n; i++)
            buf_printf(&b, "%s%s", i ? ", " : "", D(given[i]));
        for (int k = 0; k < 4 && fn->v[k].args; k++) {
            buf_printf(&w, "%s(", k ? ", " : "");
            for (const char *c = fn->v[k].args; *c; c++)
                buf_printf(&w, "%s%s", c > fn->v[k].args ? ", " : "", D(kind_dtype(*c)));
            buf_putc(&w, ')');
        }
        const char *got = arena_strdup(s->a, b.data ? b.data : ""), *want = arena_strdup(s->a, w.data ? w.data : "");
        buf_free(&b);
        buf_free(&w);
        sema_fail(s, call, "libdevice.%s has no variant for (%s); it takes %s", bi->name, got, want);
    }
    Type rt = ir_with_dtype(shape, kind_dtype(var->ret));
    Inst *in = sema_emit_inst(s, IR_EXTERN, ids, n, &rt, 1, call);
    in->attr.str = var->sym;
    return sema_tensor(s, in->results[0]);
}

/* ---- inline assembly ---- */

/* LLVM checks the asm string and the constraints only when it lowers them,
 * and then aborts (a bad $N, a trailing $) or reports without a location (a
 * modifier NVPTX does not print, an immediate constraint): so sema checks
 * them first, each error at its argument. */

/* NVPTX's register classes (getRegForInlineAsmConstraint): pred, b8, b16,
 * b32, b64, f32, f64, b128. Every operand of inline_asm_elementwise is one. */
static const char asm_reg_letters[] = "bchrlfdq";

/* The constraints "=r,=r,r,l,0,~{memory}": outputs first, then inputs (a
 * register class or the number of an output it is tied to), then clobbers.
 * Returns how many operands they name, the range of $N. */
static int check_asm_constraints(Sema *s, const char *c, Span sp, const char **norm) {
    int nops = 0, nouts = 0;
    bool input = false;
    /* the entries without their spaces, for LLVM, which takes only some */
    char *out = arena_alloc(s->a, strlen(c) + 1);
    size_t len = 0;
    for (const char *p = c;; p++) {
        int n = (int)strcspn(p, ",");
        const char *e = p, *end = p + n;
        /* LLVM takes "=r,r, r" (Triton's tests write it so): spaces around an entry are not part of it */
        while (n && (*p == ' ' || *p == '\t'))
            p++, e++, n--;
        while (n && (end[-1] == ' ' || end[-1] == '\t'))
            end--, n--;
        if (!n)
            sema_fail(s, sp, "empty constraint in \"%s\" (each operand needs one: =r, r, l, f, ...)", c);
        if (*e == '~') {
            if (n < 4 || e[1] != '{' || end[-1] != '}')
                sema_fail(s, sp, "bad clobber '%.*s' in \"%s\": a clobber is ~{NAME}, ~{memory} for memory", n, p,
                          c);
        } else {
            bool out = *e == '=';
            if (out && input)
                sema_fail(s, sp, "output constraint '%.*s' after an input in \"%s\": outputs come first", n, p, c);
            e += out;
            e += out && *e == '&'; /* early clobber */
            bool digits = e < end && !out;
            for (const char *q = e; q < end; q++)
                digits &= *q >= '0' && *q <= '9';
            if (digits && (end - e > 2 || atoi(e) >= nouts))
                sema_fail(s, sp, "constraint '%.*s' in \"%s\" ties an input to output %.*s, but there %s %d output%s",
                          n, p, c, (int)(end - e), e, nouts == 1 ? "is" : "are", nouts, nouts == 1 ? "" : "s");
            if (!digits && (end - e != 1 || !strchr(asm_reg_letters, *e))) {
                if (end - e == 1 && strchr("inmoIJKLMNOPEFsXgV<>", *e))
                    sema_fail(s, sp, "constraint '%.*s' in \"%s\" asks for %s, but inline_asm_elementwise passes every "
                              "operand in a register (b, c, h, r, l, f, d, q)", n, p, c,
                              strchr("mVo<>", *e) ? "a memory operand" : "an immediate");
                sema_fail(s, sp, "unknown constraint '%.*s' in \"%s\" (NVPTX's registers: b, c, h, r, l, f, d, q; "
                          "an output starts with '=', a clobber is ~{NAME})", n, p, c);
            }
            nouts += out;
            input |= !out;
            nops++;
        }
        if (len)
            out[len++] = ',';
        memcpy(out + len, p, (size_t)n);
        len += (size_t)n;
        p = end + strspn(end, " \t");
        if (!*p) {
            out[len] = 0;
            *norm = out;
            return nops;
        }
    }
}

/* The asm string's operand references: $N, ${N}, ${N:r} with N below nops,
 * $$ a literal dollar, ${:uid} / ${:comment} / ${:private} and $( $| $)
 * as LLVM reads them. */
static void check_asm_text(Sema *s, const char *text, int nops, Span sp) {
    for (const char *p = text; (p = strchr(p, '$'));) {
        const char *at = p++;
        if (*p == '$' || *p == '(' || *p == '|' || *p == ')') {
            p++;
            continue;
        }
        if (!*p)
            sema_fail(s, sp, "'$' at the end of the inline asm (a literal dollar is '$$')");
        bool braced = *p == '{';
        p += braced;
        if (braced && *p == ':') {
            size_t n = strcspn(p + 1, "}");
            bool known = (n == 3 && !strncmp(p + 1, "uid", 3)) || (n == 7 && !strncmp(p + 1, "comment", 7)) ||
                         (n == 7 && !strncmp(p + 1, "private", 7));
            if (!known || !p[1 + n])
                sema_fail(s, sp, "bad '%.*s' in the inline asm (LLVM knows ${:uid}, ${:comment}, ${:private})",
                          (int)(p[1 + n] ? n + 3 : n + 2), at);
            p += n + 2;
            continue;
        }
        if (*p < '0' || *p > '9')
            sema_fail(s, sp, "'$' not followed by an operand number in the inline asm, at '%.*s' (operands are $0 to "
                      "$%d; a literal dollar is '$$')", (int)strcspn(at, " \t\n,;"), at, nops - 1);
        long num = 0;
        for (; *p >= '0' && *p <= '9'; p++)
            num = num > 100000 ? num : num * 10 + (*p - '0');
        if (braced && *p == ':') {
            const char *mod = ++p;
            p += strcspn(p, "}");
            if (p - mod != 1 || *mod != 'r')
                sema_fail(s, sp, "unknown operand modifier '%.*s' in '%.*s' of the inline asm (NVPTX prints 'r' "
                          "only)", (int)(p - mod), mod, (int)(p - at + (*p == '}')), at);
        }
        if (braced && *p++ != '}')
            sema_fail(s, sp, "unterminated '${' in the inline asm, at '%.*s'", (int)strcspn(at, " \t\n;"), at);
        if (num >= nops && !nops)
            sema_fail(s, sp, "operand '%.*s' of the inline asm is out of range: the constraints name no operands",
                      (int)(p - at), at);
        if (num >= nops)
            sema_fail(s, sp, "operand '%.*s' of the inline asm is out of range: the constraints name %d operand%s "
                      "($0 to $%d)", (int)(p - at), at, nops, nops == 1 ? "" : "s", nops - 1);
    }
}

/* inline_asm_elementwise(asm, constraints, args, dtype, is_pure, pack):
 * the arguments keep their types and are broadcast to one shape; one result
 * per dtype (a tuple of dtypes gives a tuple). */
Val sema_h_inline_asm(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    const char *asm_text = sema_need_str(s, a[0], sp[0], "the asm");
    const char *cons = sema_need_str(s, a[1], sp[1], "the constraints");
    check_asm_text(s, asm_text, check_asm_constraints(s, cons, sp[1], &cons), sp[0]);
    Val args = a[2];
    if (args.k != V_TUPLE)
        args = sema_tuple(s, &a[2], 1);
    bool multi = a[3].k == V_TUPLE;
    int nres = multi ? a[3].n : 1;
    if (!nres || nres > 16)
        sema_fail(s, sp[3], "inline_asm_elementwise needs 1 to 16 result dtypes, got %d", nres);
    Type rts[16];
    for (int i = 0; i < nres; i++) {
        Val d = multi ? a[3].items[i] : a[3];
        if (d.k != V_DTYPE || d.ty.dtype == DT_PTR || d.ty.dtype == DT_I1)
            sema_fail(s, sp[3], "inline_asm_elementwise's dtype must be a number type (or a tuple of them), got %s",
                      sema_describe(s, d));
        rts[i] = d.ty;
    }
    if (a[4].k == V_TENSOR || !sema_given(a[4]))
        sema_fail(s, sp[4], "is_pure must be a compile-time bool");
    bool pure = sema_truthy(s, a[4], sp[4]);
    if (a[5].k != V_INT || a[5].i < 1 || a[5].i > 16 || (a[5].i & (a[5].i - 1)))
        sema_fail(s, sp[5], "pack must be a power of two from 1 to 16, got %s", sema_describe(s, a[5]));
    int n = args.n;
    if (n > 64)
        sema_fail(s, sp[2], "inline_asm_elementwise takes at most 64 arguments, got %d", n);
    ValueId *ids = arena_alloc(s->a, sizeof(ValueId) * (size_t)(n + 1));
    Type shape = ir_scalar(DT_I32);
    for (int i = 0; i < n; i++) {
        ids[i] = sema_to_tensor(s, args.items[i], sp[2]);
        DType d = dt_of(s, ids[i]);
        if (d == DT_I1)
            sema_fail(s, sp[2], "inline_asm_elementwise's argument %d has type %s; pass numbers (booleans with "
                                ".to(tl.int8))", i, T(ty_of(s, ids[i])));
        if (d == DT_PTR) /* the address, 64 bits (an "l" operand), as Triton passes a pointer */
            ids[i] = sema_cast(s, ids[i], ir_scalar(DT_I64), sp[2]);
        ValueId x = ids[i], y = i ? ids[0] : ids[i];
        sema_broadcast_pair(s, &x, &y, sp[2]);
        if (ty_of(s, x).rank > shape.rank || (ty_of(s, x).rank && ir_numel(ty_of(s, x)) > ir_numel(shape)))
            shape = ty_of(s, x);
    }
    for (int i = 0; i < n; i++)
        ids[i] = sema_broadcast_to(s, ids[i], shape, sp[2]);
    for (int i = 0; i < nres; i++)
        rts[i] = ir_with_dtype(shape, (DType)rts[i].dtype);
    Inst *in = sema_emit_inst(s, IR_INLINE_ASM, ids, n, rts, nres, call);
    in->attr.str = asm_text;
    in->attr.str2 = cons;
    in->attr.pure = pure;
    in->attr.pack = (int)a[5].i;
    if (!multi)
        return sema_tensor(s, in->results[0]);
    Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)nres);
    for (int i = 0; i < nres; i++)
        items[i] = sema_tensor(s, in->results[i]);
    return sema_tuple(s, items, nres);
}

/* ---- tl.assume and tl.extra.cuda ---- */

/* tl.assume(cond): a scalar condition the program promises (Triton: LLVM's
 * assume on an i1). `x % c == 0` tells axis analysis that c divides x. */
Val sema_h_assume(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (a[0].k != V_TENSOR && !sema_is_number(a[0]))
        sema_fail(s, sp[0], "tl.assume needs a boolean condition, got %s", sema_describe(s, a[0]));
    ValueId c = sema_to_tensor(s, a[0], sp[0]);
    Type t = s->f->values[c].type;
    if (t.rank)
        sema_fail(s, sp[0], "tl.assume needs a scalar condition, got %s", sema_type_str(s, t));
    if (t.dtype != DT_I1)
        sema_fail(s, sp[0], "tl.assume needs a boolean condition (a comparison), got %s", sema_type_str(s, t));
    sema_emit_inst(s, IR_ASSUME, &c, 1, NULL, 0, call);
    return sema_none();
}

/* tl.extra.cuda.num_threads() / num_warps(): compile-time, as in Triton */
Val sema_h_cuda_const(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)a, (void)sp, (void)call;
    return sema_int((int64_t)s->f->num_warps * bi->aux);
}

/* tl.extra.cuda.smid() (i32), globaltimer() (i64 ns), gdc_wait(),
 * gdc_launch_dependents() (aux: the result dtype, DT_VOID for none) */
Val sema_h_intrinsic(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)a, (void)sp;
    Type t = ir_scalar((DType)bi->aux);
    Inst *in = sema_emit_inst(s, IR_INTRINSIC, NULL, 0, &t, bi->aux != DT_VOID, call);
    in->attr.str = bi->name;
    return in->nresults ? sema_tensor(s, in->results[0]) : sema_none();
}
