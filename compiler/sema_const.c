/* sema_const.c: compile-time values (Triton's constexprs).
 *
 * Inside a kernel, Python numbers, strings, None, dtypes, tuples and
 * functions are compile-time values: arithmetic on them folds here with
 * Python's rules (floor division and modulo round toward -inf, `/` gives a
 * float, ints are unbounded in Python; we keep 64 bits and report overflow
 * instead of wrapping silently). Only when a runtime value takes part do
 * Triton's tensor rules (sema_ops.c) apply.
 *
 * Also here: printing values for messages and static_print, and the literal
 * syntax of signature entries and -D values. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema_int.h"

Val sema_str(Sema *s, const char *p, int n) {
    char *c = arena_strndup(s->a, p, (size_t)n);
    return (Val){.k = V_STR, .s = c, .n = n};
}

Val sema_tuple(Sema *s, const Val *items, int n) {
    Val t = {.k = V_TUPLE, .n = n, .i2 = 1};
    for (int i = 0; i < n; i++)
        if (items[i].k == V_TUPLE && items[i].i2 + 1 > t.i2)
            t.i2 = items[i].i2 + 1;
    if (t.i2 > SEMA_MAX_TUPLE_DEPTH)
        sema_fail(s, s->cur, "tuples nested more than %d deep are not supported", SEMA_MAX_TUPLE_DEPTH);
    if (n) {
        t.items = arena_alloc(s->a, sizeof(Val) * (size_t)n);
        memcpy(t.items, items, sizeof(Val) * (size_t)n);
    }
    return t;
}

bool sema_has_tensor(Val v) {
    if (v.k == V_TENSOR || sema_is_struct(v))
        return true;
    if (v.k == V_TUPLE || v.k == V_DICT)
        for (int i = 0; i < v.n; i++)
            if (sema_has_tensor(v.items[i]))
                return true;
    return false;
}

bool sema_truthy(Sema *s, Val v, Span sp) {
    switch (v.k) {
    case V_UNDEF:
    case V_NONE: return false;
    case V_BOOL:
    case V_INT: return v.i != 0;
    case V_FLOAT: return v.f != 0;
    case V_STR:
    case V_TUPLE:
    case V_DICT: return v.n > 0;
    case V_TENSOR:
        sema_fail(s, sp, "a runtime value of type %s has no compile-time truth value",
                  sema_type_str(s, v.ty));
    default: return true; /* functions, dtypes, modules, configs */
    }
}

static double num_f(Val v) { return v.k == V_FLOAT ? v.f : (double)v.i; }

/* A function named by -D ACTIVATION=leaky_relu also equals the string
 * "leaky_relu", so kernels may test `ACTIVATION == "leaky_relu"` as well as
 * call ACTIVATION (Triton's tutorials do both). */
static bool fn_named(Val f, Val str) {
    const char *name = f.k == V_FUNC ? f.fn->name : f.k == V_BUILTIN ? f.bi->name : NULL;
    return name && str.k == V_STR && !strcmp(name, str.s);
}

bool sema_const_eq(Val a, Val b) {
    if (fn_named(a, b) || fn_named(b, a))
        return true;
    if (sema_is_number(a) && sema_is_number(b)) {
        if (a.k != V_FLOAT && b.k != V_FLOAT)
            return a.i == b.i;
        return num_f(a) == num_f(b);
    }
    if (a.k != b.k)
        return false;
    switch (a.k) {
    case V_NONE:
    case V_UNDEF:
    case V_SLICE: return true;
    case V_STR: return a.n == b.n && !memcmp(a.s, b.s, (size_t)a.n);
    case V_DTYPE: return a.ty.dtype == b.ty.dtype && a.ty.pointee == b.ty.pointee;
    case V_TUPLE:
        if (a.n != b.n)
            return false;
        for (int i = 0; i < a.n; i++)
            if (!sema_const_eq(a.items[i], b.items[i]))
                return false;
        return true;
    case V_FUNC:
    case V_CLASS: return a.fn == b.fn;
    case V_BUILTIN: return a.bi == b.bi;
    case V_MODULE: return !strcmp(a.s, b.s);
    case V_TENSOR: return a.id == b.id;
    case V_BLOCKPTR:
    case V_TENSORDESC: /* the same fields */
        if (a.i != b.i || a.n != b.n || a.ty.pointee != b.ty.pointee)
            return false;
        for (int i = 0; i < a.i; i++)
            if (!sema_const_eq(a.items[i], b.items[i]))
                return false;
        return true;
    case V_DICT: /* constexpr_type: by value; other dicts, identity unknown, never equal */
        return a.i == SEMA_DICT_CTYPE && b.i == SEMA_DICT_CTYPE && sema_const_eq(a.items[0], b.items[0]);
    default: return false; /* configs: identity unknown, never equal */
    }
}

const char *sema_kind_name(Val v) {
    switch (v.k) {
    case V_UNDEF: return "nothing";
    case V_NONE: return "NoneType";
    case V_BOOL: return "bool";
    case V_INT: return "int";
    case V_FLOAT: return "float";
    case V_STR: return "str";
    case V_DTYPE: return "dtype";
    case V_TUPLE: return "tuple";
    case V_DICT: return "dict";
    case V_FUNC: return "function";
    case V_BUILTIN: return "builtin";
    case V_MODULE: return "module";
    case V_CONFIG: return "Config";
    case V_SLICE: return "slice";
    case V_TENSOR: return "tensor";
    case V_POISON: return "error"; /* never shown: reading a poisoned name says nothing */
    case V_BLOCKPTR: return "block pointer";
    case V_TENSORDESC: return "tensor descriptor";
    case V_CLASS: return "type";
    }
    return "?";
}

const char *sema_type_str(Sema *s, Type t) {
    Buf b = {0};
    ir_type_print(&b, t);
    char *r = arena_strdup(s->a, b.data ? b.data : "?");
    buf_free(&b);
    return r;
}

void sema_repr(Buf *b, Val v) {
    switch (v.k) {
    case V_UNDEF: buf_puts(b, "<nothing>"); break;
    case V_NONE: buf_puts(b, "None"); break;
    case V_BOOL: buf_puts(b, v.i ? "True" : "False"); break;
    case V_INT: buf_printf(b, "%lld", (long long)v.i); break;
    case V_FLOAT: buf_put_double(b, v.f); break;
    case V_STR:
        buf_putc(b, '\'');
        for (int i = 0; i < v.n; i++) {
            unsigned char c = (unsigned char)v.s[i];
            if (c == '\'' || c == '\\')
                buf_printf(b, "\\%c", c);
            else if (c == '\n')
                buf_puts(b, "\\n");
            else if (c < 0x20 || c == 0x7f)
                buf_printf(b, "\\x%02x", c);
            else
                buf_putc(b, (char)c);
        }
        buf_putc(b, '\'');
        break;
    case V_DTYPE: ir_type_print(b, v.ty); break;
    case V_TUPLE:
        if (v.keys) { /* a named tuple */
            buf_printf(b, "%s(", v.s ? v.s : "");
            for (int i = 0; i < v.n; i++) {
                buf_printf(b, "%s%s=", i ? ", " : "", v.keys[i]);
                sema_repr(b, v.items[i]);
            }
            buf_putc(b, ')');
            break;
        }
        buf_putc(b, '(');
        for (int i = 0; i < v.n; i++) {
            if (i)
                buf_puts(b, ", ");
            sema_repr(b, v.items[i]);
        }
        buf_puts(b, v.n == 1 ? ",)" : ")");
        break;
    case V_DICT:
        if (v.i == SEMA_DICT_CTYPE) { /* Triton's repr */
            buf_puts(b, "constexpr_type[");
            sema_repr(b, v.items[0]);
            buf_putc(b, ']');
            break;
        }
        buf_putc(b, '{');
        for (int i = 0; i < v.n; i++) {
            buf_printf(b, "%s'%s': ", i ? ", " : "", v.keys[i]);
            sema_repr(b, v.items[i]);
        }
        buf_putc(b, '}');
        break;
    case V_FUNC: buf_printf(b, "<function %s>", v.fn->name); break;
    case V_CLASS: buf_printf(b, "<class '%s'>", v.fn->name); break;
    case V_BUILTIN: buf_printf(b, "<builtin %s>", v.bi->name); break;
    case V_MODULE: buf_printf(b, "<module '%s'>", v.s); break;
    case V_CONFIG:
        buf_puts(b, "Config(");
        sema_repr(b, v.items[0]);
        buf_printf(b, ", num_warps=%lld, num_stages=%lld)", (long long)v.i, (long long)v.i2);
        break;
    case V_SLICE: buf_puts(b, ":"); break;
    case V_TENSOR: ir_type_print(b, v.ty); break;
    case V_POISON: buf_puts(b, "<error>"); break;
    case V_BLOCKPTR:
    case V_TENSORDESC:
        buf_putc(b, '<');
        sema_struct_describe(b, v);
        buf_putc(b, '>');
        break;
    }
}

const char *sema_describe(Sema *s, Val v) {
    Buf b = {0};
    switch (v.k) {
    case V_TENSOR:
        buf_puts(&b, v.ty.rank ? "a block of type " : "a scalar of type ");
        ir_type_print(&b, v.ty);
        break;
    case V_NONE: buf_puts(&b, "None"); break;
    case V_DTYPE:
        buf_puts(&b, "dtype ");
        ir_type_print(&b, v.ty);
        break;
    case V_FUNC:
    case V_CLASS:
    case V_BUILTIN:
    case V_MODULE:
    case V_SLICE:
    case V_UNDEF: sema_repr(&b, v); break;
    case V_BLOCKPTR:
    case V_TENSORDESC:
        buf_puts(&b, "a ");
        sema_struct_describe(&b, v);
        break;
    default:
        buf_printf(&b, "%s ", sema_kind_name(v));
        sema_repr(&b, v);
    }
    char *r = arena_strdup(s->a, b.data ? b.data : "");
    buf_free(&b);
    return r;
}

/* ---- operators ---- */

static _Noreturn void bad_operands(Sema *s, Op op, Val a, Val b, Span sp) {
    sema_fail(s, sp, "unsupported operand types for '%s': '%s' and '%s'", ast_op_str(op),
              sema_kind_name(a), sema_kind_name(b));
}

/* Python's floor division and modulo on ints (round toward -inf). */
static int64_t floordiv_i(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0)))
        q--;
    return q;
}

static int64_t mod_i(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

static double mod_f(double a, double b) {
    double r = fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0)))
        r += b;
    return r;
}

static Val int_op(Sema *s, Op op, int64_t a, int64_t b, Span sp) {
    int64_t r = 0;
    bool ovf = false;
    switch (op) {
    case OP_ADD: ovf = __builtin_add_overflow(a, b, &r); break;
    case OP_SUB: ovf = __builtin_sub_overflow(a, b, &r); break;
    case OP_MUL: ovf = __builtin_mul_overflow(a, b, &r); break;
    case OP_DIV:
        if (b == 0)
            sema_fail(s, sp, "division by zero in a constant expression");
        return sema_float((double)a / (double)b);
    case OP_FLOORDIV:
    case OP_MOD:
        if (b == 0)
            sema_fail(s, sp, "integer division or modulo by zero in a constant expression");
        if (a == INT64_MIN && b == -1) {
            if (op == OP_MOD)
                return sema_int(0);
            ovf = true;
            break;
        }
        r = op == OP_FLOORDIV ? floordiv_i(a, b) : mod_i(a, b);
        break;
    case OP_POW:
        if (b < 0)
            return sema_float(pow((double)a, (double)b));
        r = 1;
        for (int64_t i = 0; i < b && !ovf; i++) {
            ovf = __builtin_mul_overflow(r, a, &r);
            if (r == 0 || r == 1)
                break;
            if (r == -1) {
                r = (b % 2) ? -1 : 1;
                break;
            }
        }
        break;
    case OP_LSHIFT:
        if (b < 0)
            sema_fail(s, sp, "negative shift count in a constant expression");
        if (b >= 63 && a != 0)
            ovf = true;
        else {
            r = (int64_t)((uint64_t)a << b);
            if ((r >> b) != a)
                ovf = true;
        }
        break;
    case OP_RSHIFT:
        if (b < 0)
            sema_fail(s, sp, "negative shift count in a constant expression");
        r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
        break;
    case OP_BITAND: r = a & b; break;
    case OP_BITOR: r = a | b; break;
    case OP_BITXOR: r = a ^ b; break;
    default: return (Val){.k = V_UNDEF};
    }
    if (ovf)
        sema_fail(s, sp, "integer overflow in a constant expression ('%s' on %lld and %lld)",
                  ast_op_str(op), (long long)a, (long long)b);
    return sema_int(r);
}

static Val float_op(Sema *s, Op op, double a, double b, Span sp) {
    switch (op) {
    case OP_ADD: return sema_float(a + b);
    case OP_SUB: return sema_float(a - b);
    case OP_MUL: return sema_float(a * b);
    case OP_DIV:
        if (b == 0)
            sema_fail(s, sp, "float division by zero in a constant expression");
        return sema_float(a / b);
    case OP_FLOORDIV:
        if (b == 0)
            sema_fail(s, sp, "float floor division by zero in a constant expression");
        return sema_float(floor(a / b));
    case OP_MOD:
        if (b == 0)
            sema_fail(s, sp, "float modulo by zero in a constant expression");
        return sema_float(mod_f(a, b));
    case OP_POW: return sema_float(pow(a, b));
    default: return (Val){.k = V_UNDEF};
    }
}

static Val compare(Sema *s, Op op, Val a, Val b, Span sp) {
    switch (op) {
    case OP_EQ:
    case OP_IS: return sema_bool(sema_const_eq(a, b));
    case OP_NE:
    case OP_ISNOT: return sema_bool(!sema_const_eq(a, b));
    case OP_IN:
    case OP_NOTIN: {
        bool in = false;
        if (b.k == V_TUPLE) {
            for (int i = 0; i < b.n && !in; i++)
                in = sema_const_eq(a, b.items[i]);
        } else if (b.k == V_DICT && a.k == V_STR) {
            for (int i = 0; i < b.n && !in; i++)
                in = !strcmp(a.s, b.keys[i]);
        } else if (b.k == V_STR && a.k == V_STR) {
            in = strstr(b.s, a.s) != NULL;
        } else {
            sema_fail(s, sp, "'in' needs a tuple, list, dict or str on its right, not '%s'",
                      sema_kind_name(b));
        }
        return sema_bool(op == OP_IN ? in : !in);
    }
    default: break;
    }
    int c;
    if (sema_is_number(a) && sema_is_number(b)) {
        if (a.k != V_FLOAT && b.k != V_FLOAT)
            c = (a.i > b.i) - (a.i < b.i);
        else {
            double x = num_f(a), y = num_f(b);
            if (isnan(x) || isnan(y))
                return sema_bool(false);
            c = (x > y) - (x < y);
        }
    } else if (a.k == V_STR && b.k == V_STR) {
        c = strcmp(a.s, b.s);
    } else {
        bad_operands(s, op, a, b, sp);
    }
    switch (op) {
    case OP_LT: return sema_bool(c < 0);
    case OP_LE: return sema_bool(c <= 0);
    case OP_GT: return sema_bool(c > 0);
    case OP_GE: return sema_bool(c >= 0);
    default: bad_operands(s, op, a, b, sp);
    }
}

Val sema_const_binop(Sema *s, Op op, Val a, Val b, Span sp) {
    if (op >= OP_LT && op <= OP_NOTIN)
        return compare(s, op, a, b, sp);
    if (sema_is_number(a) && sema_is_number(b)) {
        /* bool op bool stays bool for the bitwise operators, as in Python */
        if (a.k == V_BOOL && b.k == V_BOOL && (op == OP_BITAND || op == OP_BITOR || op == OP_BITXOR)) {
            Val r = int_op(s, op, a.i, b.i, sp);
            return sema_bool(r.i != 0);
        }
        Val r;
        if (a.k != V_FLOAT && b.k != V_FLOAT)
            r = int_op(s, op, a.i, b.i, sp);
        else
            r = float_op(s, op, num_f(a), num_f(b), sp);
        if (r.k == V_UNDEF)
            bad_operands(s, op, a, b, sp);
        return r;
    }
    if (op == OP_ADD && a.k == V_STR && b.k == V_STR) {
        if ((int64_t)a.n + b.n > SEMA_MAX_STR)
            sema_fail(s, sp, "string too long (more than %d bytes)", SEMA_MAX_STR);
        char *c = arena_alloc(s->a, (size_t)(a.n + b.n + 1));
        memcpy(c, a.s, (size_t)a.n);
        memcpy(c + a.n, b.s, (size_t)b.n);
        return (Val){.k = V_STR, .s = c, .n = a.n + b.n};
    }
    if (op == OP_ADD && a.k == V_TUPLE && b.k == V_TUPLE) {
        if ((int64_t)a.n + b.n > SEMA_MAX_TUPLE)
            sema_fail(s, sp, "tuple too long (more than %d items)", SEMA_MAX_TUPLE);
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(a.n + b.n + 1));
        for (int i = 0; i < a.n; i++)
            items[i] = a.items[i];
        for (int i = 0; i < b.n; i++)
            items[a.n + i] = b.items[i];
        return sema_tuple(s, items, a.n + b.n);
    }
    if (op == OP_MUL && a.k == V_TUPLE && (b.k == V_INT || b.k == V_BOOL)) {
        int64_t times = b.i < 0 ? 0 : b.i;
        if (times > SEMA_MAX_TUPLE || times * (int64_t)a.n > SEMA_MAX_TUPLE)
            sema_fail(s, sp, "tuple too long (more than %d items)", SEMA_MAX_TUPLE);
        Val *items = arena_alloc(s->a, sizeof(Val) * (size_t)(times * a.n + 1));
        for (int64_t t = 0; t < times; t++)
            for (int i = 0; i < a.n; i++)
                items[t * a.n + i] = a.items[i];
        return sema_tuple(s, items, (int)(times * a.n));
    }
    bad_operands(s, op, a, b, sp);
}

/* ---- numbers that Triton holds as tensors ----
 *
 * In Triton, `v = 1` inside a @jit function makes v a scalar tensor (its
 * code generator sends every assigned non-tensor through to_tensor), so
 * v.dtype is int32 and `x_i8 + v` is int32. tl keeps the number (it is known
 * at compile time, and tl's own kernels use such names as sizes) but marks it
 * as_tensor with Triton's type; arithmetic on it emits the tensor ops and
 * folds them back here, so the value is the GPU's, wrap-around included. */

Val sema_number_as_tensor(Sema *s, Val v, Span sp) {
    if (!sema_is_number(v) || v.as_tensor)
        return v;
    Type t;
    sema_number_type(s, v, &t, sp);
    v.ty = t;
    v.as_tensor = true;
    return v;
}

Val sema_materialize(Sema *s, Val v, Span sp) {
    if (!v.as_tensor || !sema_is_number(v) || !s->blk)
        return v;
    return sema_tensor(s, sema_const_of(s, v, v.ty, sp));
}

/* Integers are held as the bit pattern of their type, sign- or zero-extended
 * to 64 bits (as the interpreter holds them). */
static int64_t fold_wrap(uint64_t u, DType dt) {
    int b = dt_bits(dt);
    if (dt == DT_I1)
        return (int64_t)(u & 1);
    if (b >= 64)
        return (int64_t)u;
    uint64_t m = (UINT64_C(1) << b) - 1;
    u &= m;
    if (dt_is_signed(dt) && (u >> (b - 1)))
        u |= ~m;
    return (int64_t)u;
}

static bool foldable_type(Type t) {
    DType dt = (DType)t.dtype;
    return t.rank == 0 && (dt_is_int(dt) || dt == DT_F32 || dt == DT_F64);
}

typedef struct { int64_t i; double f; } FoldV;

static bool fold(Sema *s, ValueId id, FoldV *r, int depth) {
    const Value *val = &s->f->values[id];
    const Inst *in = val->def;
    if (!in || depth > 64 || !foldable_type(val->type))
        return false;
    DType dt = (DType)val->type.dtype;
    FoldV a = {0}, b = {0};
    if (in->op == IR_CONST) {
        r->i = fold_wrap((uint64_t)in->attr.i, dt);
        r->f = dt == DT_F32 ? (double)(float)in->attr.f : in->attr.f;
        return true;
    }
    if (in->nargs < 1 || in->nargs > 2 || !fold(s, in->args[0], &a, depth + 1))
        return false;
    if (in->nargs == 2 && !fold(s, in->args[1], &b, depth + 1))
        return false;
    DType at = (DType)s->f->values[in->args[0]].type.dtype;
    bool fl = dt_is_float(dt), uns = !dt_is_signed(dt);
    uint64_t x = (uint64_t)a.i, y = (uint64_t)b.i;
    switch (in->op) {
    case IR_CAST:
        if (in->attr.rtz) /* folded with round to nearest below */
            return false;
        if (dt_is_float(at) && dt_is_int(dt)) { /* fptosi / fptoui: only in range */
            double t = trunc(a.f);
            if (dt == DT_I1 || !(t >= -0x1p63 && t < 0x1p63) || (uns && t < 0))
                return false;
            r->i = fold_wrap((uint64_t)(int64_t)t, dt);
            if ((double)r->i != t)
                return false;
        } else if (dt_is_int(at) && fl) {
            if (dt == DT_F32) /* one rounding, not two through double */
                r->f = dt_is_signed(at) ? (double)(float)a.i : (double)(float)x;
            else
                r->f = dt_is_signed(at) ? (double)a.i : (double)x; /* unsigned: held zero-extended */
        } else if (fl) {
            r->f = a.f;
        } else {
            r->i = dt == DT_I1 ? a.i != 0 : fold_wrap(x, dt);
        }
        break;
    case IR_ADD: if (fl) r->f = a.f + b.f; else r->i = fold_wrap(x + y, dt); break;
    case IR_SUB: if (fl) r->f = a.f - b.f; else r->i = fold_wrap(x - y, dt); break;
    case IR_MUL: if (fl) r->f = a.f * b.f; else r->i = fold_wrap(x * y, dt); break;
    case IR_DIV:
    case IR_REM:
        if (fl) {
            r->f = in->op == IR_DIV ? a.f / b.f : fmod(a.f, b.f);
        } else { /* truncating, as the GPU; 0 and INT_MIN / -1 are left to it */
            if (b.i == 0 || (!uns && b.i == -1))
                return false;
            if (uns && dt_bits(dt) == 64)
                r->i = (int64_t)(in->op == IR_DIV ? x / y : x % y);
            else
                r->i = fold_wrap((uint64_t)(in->op == IR_DIV ? a.i / b.i : a.i % b.i), dt);
        }
        break;
    case IR_AND: r->i = a.i & b.i; break;
    case IR_OR: r->i = a.i | b.i; break;
    case IR_XOR: r->i = fold_wrap(x ^ y, dt); break;
    case IR_SHL:
    case IR_SHR:
        if (y >= (uint64_t)dt_bits(dt))
            return false;
        if (in->op == IR_SHL)
            r->i = fold_wrap(x << y, dt);
        else if (uns)
            r->i = fold_wrap((dt_bits(dt) < 64 ? x & ((UINT64_C(1) << dt_bits(dt)) - 1) : x) >> y, dt);
        else
            r->i = a.i < 0 ? (int64_t) ~(~x >> y) : (int64_t)(x >> y);
        break;
    case IR_NEG: if (fl) r->f = -a.f; else r->i = fold_wrap(0 - x, dt); break;
    case IR_NOT: r->i = fold_wrap(~x, dt); break;
    case IR_CMP: {
        int c;
        if (dt_is_float(at)) {
            if (isnan(a.f) || isnan(b.f)) {
                r->i = in->attr.pred == CMP_NE;
                break;
            }
            c = a.f < b.f ? -1 : a.f > b.f;
        } else if (dt_is_signed(at)) {
            c = a.i < b.i ? -1 : a.i > b.i;
        } else {
            uint64_t m = dt_bits(at) < 64 ? (UINT64_C(1) << dt_bits(at)) - 1 : ~UINT64_C(0);
            c = (x & m) < (y & m) ? -1 : (x & m) > (y & m);
        }
        switch (in->attr.pred) {
        case CMP_LT: r->i = c < 0; break;
        case CMP_LE: r->i = c <= 0; break;
        case CMP_GT: r->i = c > 0; break;
        case CMP_GE: r->i = c >= 0; break;
        case CMP_EQ: r->i = c == 0; break;
        default: r->i = c != 0; break;
        }
        break;
    }
    default: return false;
    }
    if (dt == DT_F32)
        r->f = (double)(float)r->f;
    return true;
}

bool sema_fold_scalar(Sema *s, ValueId v, Val *out) {
    FoldV r;
    if (!s->f || !fold(s, v, &r, 0))
        return false;
    Type t = s->f->values[v].type;
    DType dt = (DType)t.dtype;
    if (dt == DT_I1)
        *out = sema_bool(r.i != 0);
    else if (dt_is_float(dt))
        *out = sema_float(r.f);
    else if (dt == DT_U64 && r.i < 0) /* past what a compile-time int holds */
        return false;
    else
        *out = sema_int(dt_is_signed(dt) || dt_bits(dt) == 64 ? r.i
                                        : (int64_t)((uint64_t)r.i & ((UINT64_C(1) << dt_bits(dt)) - 1)));
    out->ty = t;
    out->as_tensor = true;
    return true;
}

Val sema_const_unop(Sema *s, Op op, Val a, Span sp) {
    /* Triton 3.6 evaluates `not x` of a non-tensor as x.__not__(), which its
     * tuple lacks (a ValueError at the `not`); host code is plain Python */
    if (op == OP_NOT && a.k == V_TUPLE && s->blk)
        sema_fail(s, sp, "bad operand type for unary 'not' in a @jit function: 'tuple'");
    if (op == OP_NOT)
        return sema_bool(!sema_truthy(s, a, sp));
    if (!sema_is_number(a))
        sema_fail(s, sp, "bad operand type for unary '%s': '%s'", ast_op_str(op), sema_kind_name(a));
    switch (op) {
    case OP_POS: return a.k == V_BOOL ? sema_int(a.i) : a;
    case OP_NEG:
        if (a.k == V_FLOAT)
            return sema_float(-a.f);
        if (a.i == INT64_MIN)
            sema_fail(s, sp, "integer overflow in a constant expression (-%lld)", (long long)a.i);
        return sema_int(-a.i);
    case OP_INVERT:
        if (a.k == V_FLOAT)
            sema_fail(s, sp, "bad operand type for unary '~': 'float'");
        return sema_int(~a.i);
    default: sema_fail(s, sp, "unsupported unary operator '%s'", ast_op_str(op));
    }
}

/* ---- literals of signatures and -D values ---- */

bool sema_dtype_by_name(const char *name, Type *out) {
    if (!strncmp(name, "tl.", 3))
        name += 3;
    else if (!strncmp(name, "triton.language.", 16))
        name += 16;
    DType dt = dt_from_name(name);
    if (dt == DT_VOID || dt == DT_PTR)
        return false;
    *out = ir_scalar(dt);
    return true;
}

/* Triton's AMD-only fp8 types (float8e4b8, float8e5b16, with or without a
 * tl. prefix): their names, which no CUDA target supports. Triton refuses
 * them where they become a type; tl, which has no such dtype, where they
 * are named. NULL for any other name. */
const char *sema_amd_fp8(const char *name) {
    if (!strncmp(name, "tl.", 3))
        name += 3;
    else if (!strncmp(name, "triton.language.", 16))
        name += 16;
    if (!strcmp(name, "fp8e4b8") || !strcmp(name, "float8e4b8"))
        return "fp8e4b8";
    if (!strcmp(name, "fp8e5b16") || !strcmp(name, "float8e5b16"))
        return "fp8e5b16";
    return NULL;
}

_Noreturn void sema_amd_fp8_fail(Sema *s, Span sp, const char *name) {
    sema_fail(s, sp, "type %s not supported in this architecture (an AMD fp8 type). The supported fp8 dtypes are "
                     "('fp8e4b15', 'fp8e4nv', 'fp8e5')",
              sema_amd_fp8(name));
}

typedef struct LitParser {
    Sema *s;
    const char *p;
} LitParser;

static void lit_space(LitParser *lp) {
    while (*lp->p == ' ' || *lp->p == '\t')
        lp->p++;
}

static bool lit_value(LitParser *lp, Val *out, int depth);

static bool lit_string(LitParser *lp, Val *out) {
    char q = *lp->p++;
    Buf b = {0};
    while (*lp->p && *lp->p != q) {
        char c = *lp->p++;
        if (c == '\\' && *lp->p) {
            c = *lp->p++;
            c = c == 'n' ? '\n' : c == 't' ? '\t' : c;
        }
        buf_putc(&b, c);
    }
    if (*lp->p != q) {
        buf_free(&b);
        return false;
    }
    lp->p++;
    *out = sema_str(lp->s, b.data ? b.data : "", (int)b.len);
    buf_free(&b);
    return true;
}

static bool lit_number(LitParser *lp, Val *out) {
    const char *start = lp->p;
    const char *q = start;
    if (*q == '+' || *q == '-')
        q++;
    /* Python integers: 0x / 0o / 0b prefixes, no leading zeros, '_' separators */
    int base = 10;
    if (q[0] == '0' && (q[1] == 'x' || q[1] == 'X'))
        base = 16;
    else if (q[0] == '0' && (q[1] == 'o' || q[1] == 'O'))
        base = 8;
    else if (q[0] == '0' && (q[1] == 'b' || q[1] == 'B'))
        base = 2;
    const char *d = base == 10 ? q : q + 2;
    const char *e = d;
    uint64_t v = 0;
    bool ovf = false, any = false;
    for (;; e++) {
        int c = *e, dv;
        if (c == '_' && any)
            continue;
        if (c >= '0' && c <= '9')
            dv = c - '0';
        else if (c >= 'a' && c <= 'f')
            dv = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            dv = c - 'A' + 10;
        else
            break;
        if (dv >= base)
            break;
        if (v > (UINT64_MAX - (uint64_t)dv) / (uint64_t)base)
            ovf = true;
        v = v * (uint64_t)base + (uint64_t)dv;
        any = true;
    }
    bool is_float = base == 10 && (*e == '.' || *e == 'e' || *e == 'E' || !any);
    if (!is_float) {
        if (!any || ovf || v > (uint64_t)INT64_MAX + (*start == '-'))
            return false;
        *out = sema_int(*start == '-' ? (int64_t)(0 - v) : (int64_t)v);
        lp->p = e;
        return true;
    }
    char *end;
    double f = strtod(start, &end);
    if (end == start)
        return false;
    /* strtod accepts hex floats and "infinity"; Python spells these differently */
    for (const char *c = start; c < end; c++)
        if (*c == 'x' || *c == 'X')
            return false;
    *out = sema_float(f);
    lp->p = end;
    return true;
}

/* Name(field=value, ...): a typing.NamedTuple instance (the conformance
 * shim spells one so). A tuple whose items also have names: keys[i] is
 * item i's field, s the class name. */
static bool lit_named_tuple(LitParser *lp, const char *cls, Val *out, int depth) {
    Val items[64];
    const char *keys[64];
    int n = 0;
    lp->p++;
    for (;;) {
        lit_space(lp);
        if (*lp->p == ')') {
            lp->p++;
            break;
        }
        const char *k = lp->p;
        while (isalnum((unsigned char)*lp->p) || *lp->p == '_')
            lp->p++;
        if (n == 64 || lp->p == k || isdigit((unsigned char)*k))
            return false;
        keys[n] = arena_strndup(lp->s->a, k, (size_t)(lp->p - k));
        lit_space(lp);
        if (*lp->p != '=')
            return false;
        lp->p++;
        if (!lit_value(lp, &items[n++], depth + 1))
            return false;
        lit_space(lp);
        if (*lp->p == ',')
            lp->p++;
        else if (*lp->p != ')')
            return false;
    }
    *out = sema_tuple(lp->s, items, n);
    out->keys = arena_alloc(lp->s->a, sizeof(char *) * (size_t)(n + 1));
    memcpy(out->keys, keys, sizeof(char *) * (size_t)n);
    out->s = cls;
    return true;
}

static bool lit_value(LitParser *lp, Val *out, int depth) {
    lit_space(lp);
    char c = *lp->p;
    if (depth > 16)
        return false;
    if (c == '(' || c == '[') {
        char close = c == '(' ? ')' : ']';
        lp->p++;
        Val items[64];
        int n = 0;
        for (;;) {
            lit_space(lp);
            if (*lp->p == close) {
                lp->p++;
                break;
            }
            if (n == 64 || !lit_value(lp, &items[n++], depth + 1))
                return false;
            lit_space(lp);
            if (*lp->p == ',')
                lp->p++;
            else if (*lp->p != close)
                return false;
        }
        *out = sema_tuple(lp->s, items, n);
        return true;
    }
    if (c == '\'' || c == '"')
        return lit_string(lp, out);
    if (isdigit((unsigned char)c) || c == '.' || ((c == '-' || c == '+') && lp->p[1] != 'i' && lp->p[1] != 'n'))
        return lit_number(lp, out);
    const char *start = lp->p;
    if (c == '-' || c == '+')
        lp->p++;
    while (isalnum((unsigned char)*lp->p) || *lp->p == '_' || *lp->p == '.')
        lp->p++;
    if (lp->p == start)
        return false;
    char *word = arena_strndup(lp->s->a, start, (size_t)(lp->p - start));
    const char *w = word[0] == '-' || word[0] == '+' ? word + 1 : word;
    double sign = word[0] == '-' ? -1 : 1;
    if (!strcmp(w, "inf")) {
        *out = sema_float(sign * INFINITY);
        return true;
    }
    if (!strcmp(w, "nan")) {
        *out = sema_float(NAN);
        return true;
    }
    if (w != word)
        return false;
    if (*lp->p == '(' && !strchr(word, '.'))
        return lit_named_tuple(lp, word, out, depth);
    if (!strcmp(word, "True") || !strcmp(word, "False")) {
        *out = sema_bool(word[0] == 'T');
        return true;
    }
    if (!strcmp(word, "None")) {
        *out = sema_none();
        return true;
    }
    Type t;
    if (sema_dtype_by_name(word, &t)) {
        *out = sema_dtype(t);
        return true;
    }
    if (strchr(word, '.')) /* a builtin by its module path: tl.extra.cuda.globaltimer */
        return sema_dotted_value(lp->s, word, out);
    bool found;
    Val g = sema_lookup_global(lp->s, word, &found);
    if (!found || g.k == V_MODULE)
        return false;
    *out = g;
    return true;
}

bool sema_parse_literal(Sema *s, const char *text, Val *out) {
    LitParser lp = {s, text};
    if (!lit_value(&lp, out, 0))
        return false;
    lit_space(&lp);
    return *lp.p == 0;
}
