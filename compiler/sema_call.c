/* sema_call.c: calls, as Triton's code generator makes them: a call's
 * arguments (positional and keyword, *args and **kwargs unpacked), the callee (a
 * builtin, a @jit function inlined in a frame of its own, a namedtuple
 * class), attributes of compile-time values, and the decorators that say
 * what a function is (@jit, @autotune, must_use_result). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "sema_int.h"

/* ---- decorators ---- */

static const char *decorator_name(const Node *d) {
    if (d->kind == N_CALL)
        d = d->a;
    return d->kind == N_ATTR || d->kind == N_NAME ? d->name : NULL;
}

bool sema_is_jit(const Node *fn) {
    for (int i = 0; i < fn->l2.len; i++) {
        const char *n = decorator_name(fn->l2.items[i]);
        if (n && !strcmp(n, "jit"))
            return true;
    }
    return false;
}

const Node *sema_autotune_decorator(const Node *fn) {
    for (int i = 0; i < fn->l2.len; i++) {
        const Node *d = fn->l2.items[i];
        const char *n = decorator_name(d);
        if (d->kind == N_CALL && n && !strcmp(n, "autotune"))
            return d;
    }
    return NULL;
}

/* @triton.must_use_result(msg): a call whose result is dropped (an
 * expression statement) is an error, in Triton's words. */
void sema_check_result_used(Sema *s, const Node *call) {
    const Node *f = call->a;
    if (f->kind != N_NAME) /* a method call (x.store(...)) names no decorated function */
        return;
    Val fv = sema_eval_expr(s, f);
    if (fv.k != V_FUNC)
        return;
    for (int i = 0; i < fv.fn->l2.len; i++) {
        const Node *d = fv.fn->l2.items[i];
        const char *n = decorator_name(d);
        if (!n || strcmp(n, "must_use_result"))
            continue;
        const Node *msg = d->kind == N_CALL && d->l0.len ? d->l0.items[0] : NULL;
        sema_fail(s, call->span, "The result of %s is not being used.%s%s", f->name, msg && msg->kind == N_STR ? " " : "",
                  msg && msg->kind == N_STR ? msg->name : "");
    }
}

bool sema_is_constexpr_annotation(const Node *a) {
    if (!a)
        return false;
    if (a->kind == N_NAME || a->kind == N_ATTR)
        return !strcmp(a->name, "constexpr");
    if (a->kind == N_STR) {
        size_t n = strlen(a->name);
        return n >= 9 && !strcmp(a->name + n - 9, "constexpr");
    }
    return false;
}

/* ---- calls ---- */

Args sema_eval_args(Sema *s, const Node *call) {
    Args a = {0};
    int cap = call->l0.len + 1;
    a.pos = arena_alloc(s->a, sizeof(Val) * (size_t)cap);
    a.pos_sp = arena_alloc(s->a, sizeof(Span) * (size_t)cap);
    a.kw = arena_alloc(s->a, sizeof(char *) * (size_t)cap);
    a.kwv = arena_alloc(s->a, sizeof(Val) * (size_t)cap);
    a.kw_sp = arena_alloc(s->a, sizeof(Span) * (size_t)cap);
    int kcap = cap, pcap = cap;
    bool seen_kw = false;
    for (int i = 0; i < call->l0.len; i++) {
        const Node *n = call->l0.items[i];
        if (n->kind == N_KWARG && n->name) {
            seen_kw = true;
            for (int k = 0; k < a.nkw; k++)
                if (!strcmp(a.kw[k], n->name))
                    sema_fail(s, n->span, "keyword argument repeated: %s", n->name);
            a.kw[a.nkw] = n->name;
            a.kwv[a.nkw] = sema_eval_expr(s, n->a);
            a.kw_sp[a.nkw++] = n->span;
            continue;
        }
        if (n->kind == N_KWARG) { /* *args or **kwargs at the call */
            Val v = sema_eval_expr(s, n->a);
            bool star2 = n->op == OP_POW;
            if (seen_kw && !star2)
                sema_fail(s, n->span, "iterable argument unpacking follows keyword argument unpacking");
            seen_kw |= star2;
            if ((star2 && v.k != V_DICT) || (!star2 && v.k != V_TUPLE))
                sema_fail(s, n->span, "argument after %s must be a %s, not %s", star2 ? "**" : "*",
                          star2 ? "dict" : "tuple or list", sema_describe(s, v));
            int need = star2 ? a.nkw + v.n : a.npos + v.n;
            int *capp = star2 ? &kcap : &pcap;
            if (need > *capp) {
                int nc = need + 8;
                if (star2) {
                    const char **k2 = arena_alloc(s->a, sizeof(char *) * (size_t)nc);
                    Val *v2 = arena_alloc(s->a, sizeof(Val) * (size_t)nc);
                    Span *s2 = arena_alloc(s->a, sizeof(Span) * (size_t)nc);
                    memcpy(k2, a.kw, sizeof(char *) * (size_t)a.nkw);
                    memcpy(v2, a.kwv, sizeof(Val) * (size_t)a.nkw);
                    memcpy(s2, a.kw_sp, sizeof(Span) * (size_t)a.nkw);
                    a.kw = k2, a.kwv = v2, a.kw_sp = s2;
                } else {
                    Val *v2 = arena_alloc(s->a, sizeof(Val) * (size_t)nc);
                    Span *s2 = arena_alloc(s->a, sizeof(Span) * (size_t)nc);
                    memcpy(v2, a.pos, sizeof(Val) * (size_t)a.npos);
                    memcpy(s2, a.pos_sp, sizeof(Span) * (size_t)a.npos);
                    a.pos = v2, a.pos_sp = s2;
                }
                *capp = nc;
            }
            for (int j = 0; j < v.n; j++) {
                if (star2) {
                    a.kw[a.nkw] = v.keys[j];
                    a.kwv[a.nkw] = v.items[j];
                    a.kw_sp[a.nkw++] = n->span;
                } else {
                    a.pos[a.npos] = v.items[j];
                    a.pos_sp[a.npos++] = n->span;
                }
            }
            continue;
        }
        if (seen_kw)
            sema_fail(s, n->span, "positional argument follows keyword argument");
        a.pos[a.npos] = sema_eval_expr(s, n);
        a.pos_sp[a.npos++] = n->span;
    }
    return a;
}

/* The keyword argument `name` of fn's @triton.jit(...) decorator, or NULL. */
const Node *sema_jit_kwarg(const Node *fn, const char *name) {
    for (int i = 0; i < fn->l2.len; i++) {
        const Node *d = fn->l2.items[i];
        const char *n = decorator_name(d);
        if (d->kind != N_CALL || !n || strcmp(n, "jit"))
            continue;
        for (int k = 0; k < d->l0.len; k++) {
            const Node *kw = d->l0.items[k];
            if (kw->kind == N_KWARG && kw->name && !strcmp(kw->name, name))
                return kw;
        }
    }
    return NULL;
}

/* @triton.jit(noinline=True)? */
static bool is_noinline(Sema *s, const Node *fn) {
    const Node *kw = sema_jit_kwarg(fn, "noinline");
    Val v = kw ? sema_eval_in_module(s, kw->a) : (Val){0};
    return v.k == V_BOOL && v.i;
}

/* Triton's str() of a block: "fp32[constexpr[128]]", "pointer<fp16>[constexpr[64], constexpr[64]]"
 * (static_print and Triton's messages show blocks so). */
void sema_triton_str(Buf *b, Type t) {
    buf_puts(b, t.dtype == DT_PTR ? "pointer<" : "");
    buf_puts(b, sema_dtype_name(t.dtype == DT_PTR ? (DType)t.pointee : (DType)t.dtype));
    buf_puts(b, t.dtype == DT_PTR ? ">[" : "[");
    for (int d = 0; d < t.rank; d++)
        buf_printf(b, "%sconstexpr[%lld]", d ? ", " : "", (long long)t.shape[d]);
    buf_putc(b, ']');
}

static const char *tensor_str(Sema *s, Type t) {
    Buf b = {0};
    sema_triton_str(&b, t);
    const char *r = arena_strdup(s->a, b.data);
    buf_free(&b);
    return r;
}

/* A noinline function takes scalars only, as Triton's code generator says
 * (its _check_fn_args: the positional arguments, constexprs aside). tl
 * inlines every call, so this is Triton's rule, not a limit of tl's. */
static void check_noinline_args(Sema *s, const Node *fn, const Args *args, Span call) {
    if (!is_noinline(s, fn))
        return;
    for (int i = 0; i < args->npos && i < fn->l0.len; i++) {
        Val v = args->pos[i];
        if (v.k == V_TENSOR && v.ty.rank > 0 && ir_numel(v.ty) != 1)
            sema_fail(s, call, "Function %s is marked noinline, but was called with non-scalar argument %s:%s",
                      fn->name, fn->l0.items[i]->name, tensor_str(s, v.ty));
    }
}

/* Inline a call of a def of the file. */
static Val call_func(Sema *s, const Node *fn, Args *args, Span call) {
    if (s->depth >= SEMA_MAX_INLINE)
        sema_fail(s, call, "recursion too deep: more than %d nested calls of @jit functions", SEMA_MAX_INLINE);
    const NodeList *ps = &fn->l0;
    Frame fr = {.fn = fn, .call_span = call, .caller = s->fr};
    bool *set = arena_alloc(s->a, sizeof(bool) * (size_t)(ps->len + 1));
    Val *vals = arena_alloc(s->a, sizeof(Val) * (size_t)(ps->len + 1));
    Span *sps = arena_alloc(s->a, sizeof(Span) * (size_t)(ps->len + 1));
    for (int i = 0; i < ps->len; i++)
        if (ps->items[i]->op == OP_MUL || ps->items[i]->op == OP_POW)
            sema_fail(s, ps->items[i]->span, "'%s%s' parameters are only supported in kernels, not in called functions",
                      ps->items[i]->op == OP_MUL ? "*" : "**", ps->items[i]->name);
    if (args->npos > ps->len)
        sema_fail(s, args->pos_sp[ps->len], "%s() takes %d positional argument%s but %d were given", fn->name,
                  ps->len, ps->len == 1 ? "" : "s", args->npos);
    check_noinline_args(s, fn, args, call);
    for (int i = 0; i < args->npos; i++) {
        vals[i] = args->pos[i];
        sps[i] = args->pos_sp[i];
        set[i] = true;
    }
    for (int k = 0; k < args->nkw; k++) {
        int j;
        for (j = 0; j < ps->len && strcmp(ps->items[j]->name, args->kw[k]); j++)
            ;
        if (j == ps->len) {
            Suggest sg;
            suggest_init(&sg, args->kw[k]);
            for (j = 0; j < ps->len; j++)
                suggest_add(&sg, ps->items[j]->name);
            sema_fail(s, args->kw_sp[k], "%s() got an unexpected keyword argument '%s'%s", fn->name, args->kw[k],
                      sema_did_you_mean(s, &sg));
        }
        if (set[j])
            sema_fail(s, args->kw_sp[k], "%s() got multiple values for argument '%s'", fn->name, args->kw[k]);
        vals[j] = args->kwv[k];
        sps[j] = args->kw_sp[k];
        set[j] = true;
    }
    for (int i = 0; i < ps->len; i++) {
        const Node *p = ps->items[i];
        if (!set[i]) {
            if (!p->b)
                sema_fail(s, call, "%s() missing required argument '%s'", fn->name, p->name);
            vals[i] = sema_eval_in_module(s, p->b);
            sps[i] = p->b->span;
        }
        /* A helper's tl.constexpr annotation does not make a runtime value
         * constant: Triton passes it on as it is (tutorial 06 hands blocks
         * and runtime sizes to such parameters); a use that needs a constant
         * reports it there. */
        sema_scope_set(s, &fr.scope, p->name, vals[i]);
    }
    s->fr = &fr;
    s->depth++;
    sema_exec_block(s, &fn->l1);
    s->depth--;
    s->fr = fr.caller;
    return fr.returned ? fr.ret : sema_none();
}

/* A typing.NamedTuple class called: the named tuple of its fields, bound as
 * Python binds the arguments of the class's __new__ (defaults evaluated in
 * the module, as the class body was), with Python's messages. */
static Val make_namedtuple(Sema *s, const Node *cls, Args *args, Span call) {
    const NodeList *fs = &cls->l0;
    int n = 0;
    const char **keys = arena_alloc(s->a, sizeof(char *) * (size_t)(fs->len + 1));
    const Node **defs = arena_alloc(s->a, sizeof(Node *) * (size_t)(fs->len + 1));
    for (int i = 0; i < fs->len; i++)
        if (fs->items[i]->kind == N_ANNASSIGN) {
            defs[n] = fs->items[i]->c;
            keys[n++] = fs->items[i]->a->name;
        }
    Val *vals = arena_alloc(s->a, sizeof(Val) * (size_t)(n + 1));
    bool *set = arena_alloc(s->a, sizeof(bool) * (size_t)(n + 1));
    if (args->npos > n) { /* Python counts the class itself */
        int required = 0;
        while (required < n && !defs[required])
            required++;
        const char *takes = required < n ? arena_printf(s->a, "from %d to %d", required + 1, n + 1)
                                         : arena_printf(s->a, "%d", n + 1);
        sema_fail(s, args->pos_sp[n], "%s.__new__() takes %s positional argument%s but %d were given", cls->name,
                  takes, n ? "s" : "", args->npos + 1);
    }
    for (int i = 0; i < args->npos; i++)
        vals[i] = args->pos[i], set[i] = true;
    for (int k = 0; k < args->nkw; k++) {
        int j = 0;
        while (j < n && strcmp(keys[j], args->kw[k]))
            j++;
        if (j == n)
            sema_fail(s, args->kw_sp[k], "%s.__new__() got an unexpected keyword argument '%s'", cls->name,
                      args->kw[k]);
        if (set[j])
            sema_fail(s, args->kw_sp[k], "%s.__new__() got multiple values for argument '%s'", cls->name,
                      args->kw[k]);
        vals[j] = args->kwv[k], set[j] = true;
    }
    Buf missing = {0};
    int nmissing = 0;
    for (int i = 0; i < n; i++)
        nmissing += !set[i] && !defs[i];
    for (int i = 0, m = 0; i < n; i++)
        if (!set[i] && !defs[i]) {
            m++;
            buf_printf(&missing, "%s'%s'", m == 1 ? "" : m == nmissing ? (nmissing > 2 ? ", and " : " and ") : ", ",
                       keys[i]);
        }
    if (nmissing) {
        const char *names = arena_strdup(s->a, missing.data);
        buf_free(&missing);
        sema_fail(s, call, "%s.__new__() missing %d required positional argument%s: %s", cls->name, nmissing,
                  nmissing == 1 ? "" : "s", names);
    }
    for (int i = 0; i < n; i++)
        if (!set[i])
            vals[i] = sema_eval_in_module(s, defs[i]);
    Val t = sema_tuple(s, vals, n);
    t.keys = keys;
    t.s = cls->name;
    return t;
}

Val sema_call(Sema *s, Val callee, Args *args, Span call, const char *what) {
    switch (callee.k) {
    case V_BUILTIN: return sema_call_builtin(s, callee.bi, args, call);
    case V_FUNC: return call_func(s, callee.fn, args, call);
    case V_CLASS: return make_namedtuple(s, callee.fn, args, call);
    default:
        if (what)
            sema_fail(s, call, "'%s' is not callable: it is %s", what, sema_describe(s, callee));
        sema_fail(s, call, "%s is not callable", sema_describe(s, callee));
    }
}

static Val eval_attr(Sema *s, Val x, const char *name, Span sp) {
    Val out;
    if (x.k == V_MODULE)
        return sema_module_attr(s, x.s, name, sp);
    if (sema_value_attr(s, x, name, sp, &out))
        return out;
    if (x.k == V_DICT && x.i == SEMA_DICT_OBJECT) { /* get_current_target()'s GPUTarget */
        for (int i = 0; i < x.n; i++)
            if (!strcmp(x.keys[i], name))
                return x.items[i];
        if (!strcmp(name, "arch"))
            sema_fail(s, sp, "the target's arch is known only when --arch names it");
    }
    if (x.k == V_CONFIG) {
        if (!strcmp(name, "kwargs"))
            return x.items[0];
        if (!strcmp(name, "num_warps"))
            return sema_int(x.i);
        if (!strcmp(name, "num_stages"))
            return sema_int(x.i2);
    }
    if (x.k == V_TENSOR && sema_is_tensor_method(name))
        sema_fail(s, sp, "'%s' is a method: call it as x.%s(...)", name, name);
    if (x.k == V_TENSOR && sema_builtin_tl(name))
        sema_fail(s, sp, "a tensor has no method '%s'; call tl.%s(x, ...)", name, name);
    if (x.k == V_TENSOR && sema_builtin_unsupported(name))
        sema_fail(s, sp, "the tensor method '%s' is not supported by tl yet", name);
    Suggest sg;
    suggest_init(&sg, name);
    if (x.k == V_TENSOR) {
        static const char *const attrs[] = {"dtype", "shape", "numel", "T"};
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
            suggest_add(&sg, attrs[i]);
        sema_suggest_builtins(&sg, B_METHOD);
    }
    for (int i = 0; x.k == V_TUPLE && x.keys && i < x.n; i++) /* a named tuple's fields */
        suggest_add(&sg, x.keys[i]);
    if (x.k == V_TENSORDESC) {
        static const char *const attrs[] = {"load",       "store",      "atomic_add", "atomic_min", "atomic_max",
                                            "atomic_and", "atomic_or",  "atomic_xor", "shape",      "strides",
                                            "block_shape", "dtype"};
        for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++)
            suggest_add(&sg, attrs[i]);
    }
    sema_fail(s, sp, "%s has no attribute '%s'%s", sema_describe(s, x), name, sema_did_you_mean(s, &sg));
}

Val sema_eval_attr(Sema *s, Val x, const char *name, Span sp) { return eval_attr(s, x, name, sp); }

bool sema_try_attr(Sema *s, Val x, const char *name, Span sp, Val *out) {
    jmp_buf jb, *saved = s->jb;
    bool quiet = s->quiet;
    int nest = s->nest;
    Span cur = s->cur;
    volatile bool ok = false;
    s->quiet = true; /* a probe: its failure is the answer, not an error */
    s->jb = &jb;
    if (!setjmp(jb)) {
        *out = eval_attr(s, x, name, sp);
        ok = true;
    }
    s->jb = saved, s->quiet = quiet, s->nest = nest, s->cur = cur;
    return ok;
}

Val sema_eval_call(Sema *s, const Node *n) {
    const Node *callee = n->a;
    const char *what = callee->kind == N_NAME || callee->kind == N_ATTR ? callee->name : NULL;
    if (callee->kind == N_ATTR) {
        Val recv = sema_eval_expr(s, callee->a);
        if (recv.k != V_MODULE) {
            Args args = sema_eval_args(s, n);
            Val out;
            if (sema_method(s, recv, callee->name, &args, n->span, &out))
                return out;
            Val f = eval_attr(s, recv, callee->name, callee->span);
            return sema_call(s, f, &args, n->span, what);
        }
        Val f = sema_module_attr(s, recv.s, callee->name, callee->span);
        Args args = sema_eval_args(s, n);
        return sema_call(s, f, &args, n->span, what);
    }
    Val f = sema_eval_expr(s, callee);
    Args args = sema_eval_args(s, n);
    return sema_call(s, f, &args, n->span, what);
}

