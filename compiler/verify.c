/* verify.c: the IR verifier: the invariants of ir.h and docs/ir.md.
 *
 * One walk over the function in text order. A per-value state says which
 * values are in scope: a block's arguments and its ops' results become LIVE
 * as the walk reaches them and DEAD when it leaves the block, so an operand is
 * visible exactly when it is LIVE, which is dominance for structured regions.
 * An op's results become LIVE only after its regions, so a for's body cannot
 * use the for's own results.
 *
 * Each op is checked for its counts (operands against ir_ops[].nargs,
 * results, regions), the visibility of its operands, the placement of
 * terminators, and then by its own typing rule (check_op), which runs only
 * when every value it reads exists and has a sound type, so that the rules
 * can index shapes freely. Every violation is an internal error (a pass made
 * bad IR) in the form "verifier: in @f: %5 = add: message". */
#include "ir.h"
#include "layout.h"
#include "libdevice.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Defined in irprint.c with the text form. */

enum { UNSEEN, LIVE, DEAD };
enum {
    MAX_DEPTH = 256,  /* deeper nesting is a cycle among blocks, not a kernel */
    MAX_REPORTS = 20, /* messages per function; one bug often breaks many ops */
};

typedef struct Verifier {
    Diag *d;
    const Function *f;
    uint8_t *state;      /* per value: UNSEEN, LIVE or DEAD */
    int nerrors;
    char types[4][64];   /* formatted types for the message being built */
    int next_type;
} Verifier;

/* Dtype classes, for the ops that take only some element types. */
enum { C_BOOL = 1, C_INT = 2, C_FLOAT = 4, C_FP8 = 8 /* storage only: no arithmetic */ };

static int dtype_class(int dt) {
    return dt == DT_I1 ? C_BOOL : dt_is_int(dt) ? C_INT : dt_is_float(dt) ? C_FLOAT : dt_is_fp8(dt) ? C_FP8 : 0;
}

/* ---- reporting ---- */

static const char *op_name(int op) { return op >= 0 && op < IR__NUM ? ir_ops[op].name : "?"; }

/* A type for a message; a nonsense rank prints as such instead of being read. */
static const char *ty(Verifier *V, Type t) {
    char *s = V->types[V->next_type++ % 4];
    if (t.rank > IR_MAX_RANK) {
        snprintf(s, sizeof V->types[0], "<rank %d>", t.rank);
        return s;
    }
    Buf b = {0};
    ir_type_print(&b, t);
    snprintf(s, sizeof V->types[0], "%s", b.data ? b.data : "?");
    buf_free(&b);
    return s;
}

/* Reports a violation at op `in` (NULL: the function itself); returns false. */
__attribute__((format(printf, 3, 4))) static bool fail(Verifier *V, const Inst *in, const char *fmt, ...) {
    if (++V->nerrors > MAX_REPORTS) {
        if (V->nerrors == MAX_REPORTS + 1)
            diag_internal(V->d, "verifier: in @%s: more errors not shown", V->f->name);
        return false;
    }
    Buf msg = {0};
    buf_printf(&msg, "verifier: in @%s: ", V->f->name);
    if (in) {
        for (int i = 0; i < in->nresults; i++)
            buf_printf(&msg, "%s%%%d", i ? ", " : "", in->results[i]);
        buf_printf(&msg, "%s%s: ", in->nresults > 0 ? " = " : "", op_name(in->op));
    }
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    diag_internal(V->d, "%s", msg.data);
    buf_free(&msg);
    return false;
}

/* ---- values ---- */

static bool valid_id(const Verifier *V, ValueId v) { return v >= 1 && v < V->f->nvalues; }

static Type type_of(const Verifier *V, ValueId v) { return V->f->values[v].type; }
static Type arg(const Verifier *V, const Inst *in, int i) { return type_of(V, in->args[i]); }
static Type res(const Verifier *V, const Inst *in, int i) { return type_of(V, in->results[i]); }

/* Why t cannot be a value's type, or NULL. */
static const char *type_problem(Type t) {
    if (t.dtype == DT_VOID || t.dtype >= DT__COUNT)
        return "has no element type";
    if (t.dtype == DT_PTR && (t.pointee == DT_VOID || t.pointee >= DT_PTR))
        return "points to no element type";
    if (t.rank > IR_MAX_RANK)
        return "has more than 4 dimensions";
    int64_t n = 1;
    if (ir_is_smem(t) && !t.rank)
        return "is a buffer without dimensions";
    for (int i = 0; i < t.rank; i++) {
        bool stages = ir_is_smem(t) && i == 0 && t.rank >= 2; /* a buffer's first dim counts stages */
        if (t.shape[i] < 1 || (!stages && (t.shape[i] & (t.shape[i] - 1))))
            return stages ? "has no stages" : "has a dimension that is not a power of two";
        if ((n *= t.shape[i]) > IR_MAX_NUMEL)
            return "has more than 1048576 elements";
    }
    return NULL;
}

/* Do these values exist with sound types? Then an op's rule may read them. */
static bool values_sound(const Verifier *V, const ValueId *vs, int n) {
    for (int i = 0; i < n; i++)
        if (!valid_id(V, vs[i]) || type_problem(type_of(V, vs[i])))
            return false;
    return true;
}

/* Value v comes into scope: defined once, recorded as defined by `def` (an op
 * result) or in `blk` (an argument), with a sound type. `at` names the op in
 * messages. */
static void define(Verifier *V, const Inst *at, ValueId v, const Inst *def, const Block *blk) {
    if (!valid_id(V, v)) {
        fail(V, at, "defines %%%d, which is not a value of the function", v);
        return;
    }
    if (V->state[v] != UNSEEN) {
        fail(V, at, "defines %%%d a second time", v);
        return;
    }
    V->state[v] = LIVE;
    const Value *val = &V->f->values[v];
    if (val->def != def || (blk && val->block != blk))
        fail(V, at, "%%%d does not record where it is defined", v);
    const char *why = type_problem(val->type);
    if (why)
        fail(V, at, "%s %%%d has type %s, which %s", def ? "result" : at ? "region argument" : "parameter", v,
             ty(V, val->type), why);
}

static void leave(Verifier *V, ValueId v) {
    if (valid_id(V, v) && V->state[v] == LIVE)
        V->state[v] = DEAD;
}

/* Reports operands not in scope; returns false only when an operand is not a
 * value at all (its type cannot be read). */
static bool check_operands(Verifier *V, const Inst *in) {
    bool exist = true;
    for (int i = 0; i < in->nargs; i++) {
        ValueId v = in->args[i];
        if (!valid_id(V, v))
            exist = fail(V, in, "operand %d is %%%d, which is not a value of the function", i + 1, v);
        else if (V->state[v] == UNSEEN)
            fail(V, in, "operand %%%d is not defined before this use", v);
        else if (V->state[v] == DEAD)
            fail(V, in, "operand %%%d is defined in a region that does not enclose this use", v);
    }
    return exist;
}

/* ---- counts ---- */

static int region_count(int op) {
    return !ir_region_labels[op][0] ? 0 : !ir_region_labels[op][1] ? 1 : 2;
}

/* -1: as many as the op carries (checked by its rule). */
static int want_results(int op) {
    switch (op) {
    case IR_FOR: case IR_IF: case IR_WHILE: case IR_SCAN: case IR_REDUCE_FN: case IR_INLINE_ASM: case IR_MAP_FN:
    case IR_INTRINSIC:
        return -1;
    case IR_STORE: case IR_PRINT: case IR_ASSERT: case IR_BARRIER: case IR_ASSUME:
    case IR_CONDITION: case IR_YIELD: case IR_RETURN:
    case IR_LOCAL_STORE: case IR_ASYNC_COPY: case IR_ASYNC_COMMIT: case IR_ASYNC_WAIT:
    case IR_MBAR_INIT: case IR_MBAR_INVAL: case IR_MBAR_EXPECT: case IR_MBAR_WAIT: case IR_TMA_LOAD:
    case IR_TMA_STORE: case IR_MBAR_ARRIVE: case IR_WARP_SPEC:
        return 0;
    default:
        return 1;
    }
}

/* Operand bounds; the variadic ops (ir_ops[].nargs = -1) have their own. */
static void nargs_range(int op, int *lo, int *hi) {
    *lo = *hi = ir_ops[op].nargs;
    switch (op) {
    case IR_LOAD: *lo = 1; *hi = 3; break;
    case IR_STORE: case IR_ATOMIC_RMW: *lo = 2; *hi = 3; break;
    case IR_ASYNC_COPY: *lo = 2; *hi = 4; break; /* a ragged copy's count last */
    case IR_IF: *lo = *hi = 1; break;
    case IR_FOR: *lo = 3; *hi = INT_MAX; break;
    case IR_CONDITION: *lo = 1; *hi = INT_MAX; break;
    case IR_WHILE: case IR_YIELD: case IR_PRINT: *lo = 0; *hi = INT_MAX; break;
    case IR_SCAN: case IR_REDUCE_FN: case IR_MAP_FN: *lo = 1; *hi = INT_MAX; break;
    case IR_HISTOGRAM: *lo = 1; *hi = 2; break;
    case IR_EXTERN: *lo = 1; *hi = LIBDEVICE_MAX_ARGS; break;
    case IR_INLINE_ASM: *lo = 0; *hi = INT_MAX; break;
    default: break;
    }
}

static bool check_counts(Verifier *V, const Inst *in) {
    int lo, hi, want = want_results(in->op), nreg = region_count(in->op);
    bool ok = true;
    nargs_range(in->op, &lo, &hi);
    if (in->nargs < lo || in->nargs > hi) {
        if (lo == hi)
            ok = fail(V, in, "takes %d operands, has %d", lo, in->nargs);
        else if (hi == INT_MAX)
            ok = fail(V, in, "takes at least %d operands, has %d", lo, in->nargs);
        else
            ok = fail(V, in, "takes %d to %d operands, has %d", lo, hi, in->nargs);
    }
    if (want >= 0 && in->nresults != want)
        ok = fail(V, in, "has %d result%s, want %d", in->nresults, in->nresults == 1 ? "" : "s", want);
    if (in->nregions != nreg)
        ok = fail(V, in, "has %d regions, want %d", in->nregions, nreg);
    for (int r = 0; r < nreg && r < in->nregions; r++)
        if (!in->regions[r])
            ok = fail(V, in, "region %d is missing", r + 1);
    return ok;
}

/* ---- typing rules ---- */

static bool want_type(Verifier *V, const Inst *in, const char *what, Type got, Type want) {
    if (ir_type_eq(got, want))
        return true;
    return fail(V, in, "%s has type %s, want %s", what, ty(V, got), ty(V, want));
}

static bool same_shape(Type a, Type b) {
    return ir_type_eq(ir_with_dtype(a, DT_I32), ir_with_dtype(b, DT_I32));
}

/* Pairwise, got[i] must have the type of want[i] (ids are checked elsewhere). */
static void same_types(Verifier *V, const Inst *in, const char *what, const ValueId *got, const ValueId *want,
                       int n) {
    for (int i = 0; i < n; i++)
        if (valid_id(V, got[i]) && valid_id(V, want[i]) &&
            !ir_type_eq(type_of(V, got[i]), type_of(V, want[i])))
            fail(V, in, "%s %d (%%%d) has type %s, want %s", what, i + 1, got[i], ty(V, type_of(V, got[i])),
                 ty(V, type_of(V, want[i])));
}

/* Which element classes an elementwise op takes. */
static int elem_classes(int op) {
    switch (op) {
    case IR_AND: case IR_OR: case IR_XOR: case IR_NOT:
        return C_BOOL | C_INT;
    case IR_SHL: case IR_SHR: case IR_UMULHI:
        return C_INT;
    case IR_ADD: case IR_SUB: case IR_MUL: case IR_DIV: case IR_REM:
    case IR_MIN: case IR_MAX: case IR_NEG: case IR_ABS:
        return C_INT | C_FLOAT;
    default: /* exp .. ceil, fma */
        return C_FLOAT;
    }
}

/* Elementwise: every operand has the result's type, of a class the op takes. */
static void check_elementwise(Verifier *V, const Inst *in) {
    Type t = res(V, in, 0);
    for (int i = 0; i < in->nargs; i++)
        if (!ir_type_eq(arg(V, in, i), t)) {
            fail(V, in, "operand %d has type %s, want the result type %s", i + 1, ty(V, arg(V, in, i)), ty(V, t));
            return;
        }
    if (!(elem_classes(in->op) & dtype_class(t.dtype)))
        fail(V, in, "does not apply to %s", dt_name(t.dtype));
    else if (in->op == IR_DIV && in->attr.rn && t.dtype != DT_F32)
        fail(V, in, "rn applies to f32 only, not %s", dt_name(t.dtype));
}

/* extern, inline_asm: every operand and result has the shape of the first
 * result; numbers (or i1) only; the strings are there. */
static void check_map(Verifier *V, const Inst *in) {
    if (!in->nresults) {
        fail(V, in, "has no result");
        return;
    }
    Type r = res(V, in, 0);
    if (in->op == IR_INLINE_ASM && (!in->nresults || in->attr.pack < 1 || !in->attr.str2))
        fail(V, in, "needs a result, constraints and pack >= 1 (pack = %d)", in->attr.pack);
    if (!in->attr.str)
        fail(V, in, "has no %s", in->op == IR_EXTERN ? "function name" : "asm text");
    for (int i = 0; i < in->nargs + in->nresults; i++) {
        Type t = i < in->nargs ? arg(V, in, i) : res(V, in, i - in->nargs);
        bool same = t.rank == r.rank && !memcmp(t.shape, r.shape, sizeof(int32_t) * (size_t)t.rank);
        if (!same || t.dtype == DT_PTR) {
            fail(V, in, "%s %d has type %s; want numbers of the shape of %s", i < in->nargs ? "operand" : "result",
                 (i < in->nargs ? i : i - in->nargs) + 1, ty(V, t), ty(V, r));
            return;
        }
    }
}

/* Integer constants hold the value in the dtype's range: sign-extended for
 * signed types, zero-extended for unsigned ones, u64 as its bit pattern. */
static bool int_fits(int dt, int64_t v) {
    int bits = dt_bits(dt);
    if (dt == DT_I1)
        return v == 0 || v == 1;
    if (bits == 64)
        return true;
    if (dt_is_signed(dt))
        return v >= -(INT64_C(1) << (bits - 1)) && v < (INT64_C(1) << (bits - 1));
    return v >= 0 && v < (INT64_C(1) << bits);
}

static void check_const(Verifier *V, const Inst *in) {
    Type t = res(V, in, 0);
    if (t.dtype == DT_PTR)
        fail(V, in, "a constant cannot be a pointer");
    else if (dt_is_int(t.dtype) && !int_fits(t.dtype, in->attr.i))
        fail(V, in, "value %lld does not fit %s", (long long)in->attr.i, dt_name(t.dtype));
}

static void check_program_id(Verifier *V, const Inst *in) {
    if (in->attr.axis < 0 || in->attr.axis > 2)
        fail(V, in, "axis %d is not 0, 1 or 2", in->attr.axis);
    want_type(V, in, "the result", res(V, in, 0), ir_scalar(DT_I32));
}

static void check_arange(Verifier *V, const Inst *in) {
    int64_t s = in->attr.start, e = in->attr.end;
    Type r = res(V, in, 0);
    if (s < INT32_MIN || e > INT32_MAX || s >= e)
        fail(V, in, "range [%lld, %lld) is empty or not within i32", (long long)s, (long long)e);
    else
        want_type(V, in, "the result", r, ir_block(ir_scalar(DT_I32), 1, (int32_t[]){(int32_t)(e - s)}));
}

static void check_splat(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0);
    if (a.rank || !r.rank)
        fail(V, in, "splat makes a block of a scalar, not %s of %s", ty(V, r), ty(V, a));
    else
        want_type(V, in, "the operand", a, ir_elem(r));
}

static void check_broadcast(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0);
    if (!a.rank || a.rank != r.rank) {
        fail(V, in, "broadcast keeps the rank of a block: %s to %s", ty(V, a), ty(V, r));
        return;
    }
    want_type(V, in, "the result's element", ir_elem(r), ir_elem(a));
    for (int d = 0; d < a.rank; d++)
        if (a.shape[d] != r.shape[d] && a.shape[d] != 1)
            fail(V, in, "dimension %d of size %d cannot broadcast to %d", d, a.shape[d], r.shape[d]);
}

static void check_expand_dims(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), want = a;
    int axis = in->attr.axis;
    if (axis < 0 || axis > a.rank || a.rank == IR_MAX_RANK) {
        fail(V, in, "axis %d is out of range for %s", axis, ty(V, a));
        return;
    }
    for (int d = a.rank; d > axis; d--)
        want.shape[d] = a.shape[d - 1];
    want.shape[axis] = 1;
    want.rank++;
    want_type(V, in, "the result", res(V, in, 0), want);
}

static void check_reshape(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0);
    if (!a.rank || !r.rank || ir_numel(a) != ir_numel(r))
        fail(V, in, "cannot reshape %s to %s", ty(V, a), ty(V, r));
    else
        want_type(V, in, "the result's element", ir_elem(r), ir_elem(a));
}

static void check_trans(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), want = a;
    const int *perm = in->attr.perm;
    bool used[IR_MAX_RANK] = {false};
    for (int i = 0; i < IR_MAX_RANK; i++) {
        bool ok = i < a.rank ? perm[i] >= 0 && perm[i] < a.rank && !used[perm[i]] : perm[i] == 0;
        if (!ok) {
            fail(V, in, "perm is not a permutation of the %d dimensions", a.rank);
            return;
        }
        if (i < a.rank) {
            used[perm[i]] = true;
            want.shape[i] = a.shape[perm[i]];
        }
    }
    want_type(V, in, "the result", res(V, in, 0), want);
}

/* extract: the result's extent along axis from start, within the operand;
 * every other dim the operand's. */
static void check_extract(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0), want = a;
    int axis = in->attr.axis;
    if (axis < 0 || axis >= a.rank || a.rank != r.rank) {
        fail(V, in, "axis %d is out of range for %s", axis, ty(V, a));
        return;
    }
    if (in->attr.start < 0 || in->attr.start + r.shape[axis] > a.shape[axis]) {
        fail(V, in, "elements %lld..%lld along axis %d are not in %s", (long long)in->attr.start,
             (long long)(in->attr.start + r.shape[axis] - 1), axis, ty(V, a));
        return;
    }
    want.shape[axis] = r.shape[axis];
    want_type(V, in, "the result", r, want);
}

static void check_cmp(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0);
    if (in->attr.pred < CMP_LT || in->attr.pred > CMP_NE)
        fail(V, in, "unknown predicate %d", in->attr.pred);
    if (dtype_class(a.dtype) == C_FP8)
        fail(V, in, "does not apply to %s", dt_name(a.dtype));
    if (dtype_class(a.dtype) == C_BOOL && in->attr.pred != CMP_EQ && in->attr.pred != CMP_NE)
        fail(V, in, "i1 compares only for eq / ne");
    if (want_type(V, in, "operand 2", arg(V, in, 1), a))
        want_type(V, in, "the result", res(V, in, 0), ir_with_dtype(a, DT_I1));
}

static void check_select(Verifier *V, const Inst *in) {
    Type r = res(V, in, 0);
    want_type(V, in, "the condition", arg(V, in, 0), ir_with_dtype(r, DT_I1));
    want_type(V, in, "operand 2", arg(V, in, 1), r);
    want_type(V, in, "operand 3", arg(V, in, 2), r);
}

static void check_addptr(Verifier *V, const Inst *in) {
    Type p = arg(V, in, 0), off = arg(V, in, 1);
    if (p.dtype != DT_PTR)
        fail(V, in, "operand 1 has type %s, want a pointer", ty(V, p));
    else if (dtype_class(off.dtype) != C_INT || !same_shape(p, off))
        fail(V, in, "the offset has type %s, want integers shaped like %s", ty(V, off), ty(V, p));
    else
        want_type(V, in, "the result", res(V, in, 0), p);
}

static void check_cast(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0);
    bool numeric = dtype_class(a.dtype) && dtype_class(r.dtype);
    bool ptr_int = (a.dtype == DT_PTR && r.dtype == DT_I64) || (a.dtype == DT_I64 && r.dtype == DT_PTR);
    if (!same_shape(a, r))
        fail(V, in, "a cast keeps the shape: %s to %s", ty(V, a), ty(V, r));
    else if (!numeric && !ptr_int)
        fail(V, in, "cannot cast %s to %s (pointers convert to and from i64 only)", ty(V, a), ty(V, r));
    else if (a.dtype == DT_F64 && dtype_class(r.dtype) == C_FP8)
        fail(V, in, "cannot cast %s to %s (cast to f32 first)", ty(V, a), ty(V, r));
    else if (in->attr.rtz && !(a.dtype == DT_F32 && (r.dtype == DT_F16 || r.dtype == DT_BF16 || r.dtype == DT_F8E5)))
        fail(V, in, "rtz applies to f32 -> f16, bf16 or f8e5 only, not %s -> %s", dt_name(a.dtype), dt_name(r.dtype));
}

static void check_bitcast(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), r = res(V, in, 0);
    if (!same_shape(a, r) || dt_bits(a.dtype) != dt_bits(r.dtype))
        fail(V, in, "a bitcast keeps the shape and the bit width: %s to %s", ty(V, a), ty(V, r));
}

/* multiple_of / max_contiguous: identity on integers or pointers, one value
 * >= 1 per dimension (one for a scalar), zeros beyond. */
/* The names of INTRINSIC and their result (DT_VOID: none). */
static const struct { const char *name; DType res; } intrinsics[] = {
    {"smid", DT_I32}, {"globaltimer", DT_I64}, {"gdc_wait", DT_VOID}, {"gdc_launch_dependents", DT_VOID},
};

static void check_intrinsic(Verifier *V, const Inst *in) {
    for (size_t i = 0; i < sizeof intrinsics / sizeof intrinsics[0]; i++) {
        if (!in->attr.str || strcmp(in->attr.str, intrinsics[i].name))
            continue;
        if (in->nresults != (intrinsics[i].res != DT_VOID))
            fail(V, in, "'%s' has %d results", in->attr.str, in->nresults);
        else if (in->nresults)
            want_type(V, in, "the result", res(V, in, 0), ir_scalar(intrinsics[i].res));
        return;
    }
    fail(V, in, "unknown intrinsic '%s'", in->attr.str ? in->attr.str : "");
}

static void check_hint(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0);
    int n = a.rank ? a.rank : 1;
    if (dtype_class(a.dtype) != C_INT && a.dtype != DT_PTR && !(in->op == IR_MAX_CONSTANCY && a.dtype == DT_I1))
        fail(V, in, "applies to integers and pointers, not %s", ty(V, a));
    for (int i = 0; i < IR_MAX_RANK; i++)
        if (i < n ? in->attr.vals[i] < 1 : in->attr.vals[i] != 0) {
            fail(V, in, "vals needs %d value%s >= 1", n, n > 1 ? "s" : "");
            break;
        }
    want_type(V, in, "the result", res(V, in, 0), a);
}

/* ---- TMA ---- */

/* Operand i is a scalar of dtype dt. */
static void want_scalar(Verifier *V, const Inst *in, int i, const char *what, DType dt) {
    want_type(V, in, what, arg(V, in, i), ir_scalar(dt));
}

/* Operand i is a tensor map: a parameter standing for a host descriptor's,
 * or an i64 the kernel made (a tensormap_create, or what carries one
 * through a loop or an if). */
static void want_tensormap(Verifier *V, const Inst *in, int i) {
    ValueId v = in->args[i];
    bool param = v >= 1 && !ir_kernel_map(V->f, v);
    if (param ? !V->f->params[v - 1].tensormap : !ir_type_eq(arg(V, in, i), ir_scalar(DT_I64)))
        fail(V, in, "operand %d is not a tensor map (a parameter marked {tensormap = true}, or an i64 that "
                    "tensormap_create made)", i + 1);
}

/* tensormap_create: base, rows, cols, row stride -> i64; a box TMA takes, an
 * element TMA copies, and a place in the program's global scratch. */
static void check_tmap_create(Verifier *V, const Inst *in) {
    Type b = arg(V, in, 0);
    if (b.rank || b.dtype != DT_PTR)
        fail(V, in, "operand 1 has type %s, want a scalar pointer (the tensor's base)", ty(V, b));
    int bytes = b.dtype == DT_PTR ? dt_bits((DType)b.pointee) / 8 : 0;
    if (b.dtype == DT_PTR && bytes != 1 && bytes != 2 && bytes != 4)
        fail(V, in, "a tensor map of %s elements: TMA here copies 1, 2 or 4 bytes an element",
             ty(V, ir_scalar((DType)b.pointee)));
    want_scalar(V, in, 1, "the row count", DT_I32);
    want_scalar(V, in, 2, "the column count", DT_I32);
    want_scalar(V, in, 3, "the row stride", DT_I64);
    want_type(V, in, "the result", res(V, in, 0), ir_scalar(DT_I64));
    const int64_t *box = in->attr.vals;
    if (box[0] < 1 || box[0] > 256 || box[1] < 1 || box[1] > 256 || (bytes && box[1] * bytes % 16))
        fail(V, in, "box [%lld, %lld] is not a TMA box (each 1 .. 256, rows of 16-byte multiples)", (long long)box[0],
             (long long)box[1]);
    int off = in->attr.offset;
    bool scratch = V->f->nparams && V->f->params[V->f->nparams - 1].scratch;
    if (off < -1 || (off >= 0 && (off % 128 || off + 128 > V->f->global_scratch || !scratch)))
        fail(V, in, "offset %d is not a 128-byte place in the %d bytes of global scratch%s", off,
             V->f->global_scratch, scratch ? "" : " (no parameter is marked scratch)");
}

/* desc_tile: ptrs (a 2-D pointer block), tmap, c0, c1; the result is ptrs. */
static void check_desc_tile(Verifier *V, const Inst *in) {
    Type p = arg(V, in, 0);
    if (p.dtype != DT_PTR || p.rank != 2)
        fail(V, in, "operand 1 has type %s, want a 2-D block of pointers", ty(V, p));
    want_tensormap(V, in, 1);
    want_scalar(V, in, 2, "the row coordinate", DT_I32);
    want_scalar(V, in, 3, "the column coordinate", DT_I32);
    want_type(V, in, "the result", res(V, in, 0), p);
}

/* A ring of mbarriers (R x 1 x i64) or one of them (1 x i64). */
static void want_barriers(Verifier *V, const Inst *in, int i, bool ring) {
    Type b = arg(V, in, i);
    bool ok = ir_is_smem(b) && b.dtype == DT_I64 && b.rank == (ring ? 2 : 1) && b.shape[b.rank - 1] == 1;
    if (!ok)
        fail(V, in, "operand %d has type %s, want %s", i + 1, ty(V, b), ring ? "!smem<R x 1 x i64> (mbarriers)"
                                                                               : "!smem<1xi64> (one mbarrier)");
}

/* tma_load and tma_store: a 2-D #nvmma buffer, a tensor map, coordinates. */
static void check_tma_load(Verifier *V, const Inst *in) {
    Type t = arg(V, in, 0);
    const Layout *l = V->f->values[in->args[0]].layout > 0 && V->f->values[in->args[0]].layout < V->f->nlayouts
                          ? &V->f->layouts[V->f->values[in->args[0]].layout] : NULL;
    if (!ir_is_smem(t) || t.rank != 2)
        fail(V, in, "operand 1 has type %s, want a 2-D shared-memory buffer", ty(V, t));
    else if (!l || l->kind != LAYOUT_NVMMA || l->transposed)
        fail(V, in, "the buffer's layout must be #nvmma (not transposed): TMA writes its swizzle");
    want_tensormap(V, in, 1);
    want_scalar(V, in, 2, "the row coordinate", DT_I32);
    want_scalar(V, in, 3, "the column coordinate", DT_I32);
    if (in->op == IR_TMA_STORE)
        return;
    want_barriers(V, in, 4, false);
    want_scalar(V, in, 5, "the predicate", DT_I1);
}

/* The first operand of a memory op is a pointer (block); *val is the type of
 * what it points to, shaped like it. */
static bool pointer_operand(Verifier *V, const Inst *in, Type *val) {
    Type p = arg(V, in, 0);
    if (p.dtype != DT_PTR)
        return fail(V, in, "operand 1 has type %s, want a pointer", ty(V, p));
    *val = ir_with_dtype(p, p.pointee);
    return true;
}

static void check_mask(Verifier *V, const Inst *in, int i) {
    want_type(V, in, "the mask", arg(V, in, i), ir_with_dtype(arg(V, in, 0), DT_I1));
}

static void check_load(Verifier *V, const Inst *in) {
    Type val;
    if (!pointer_operand(V, in, &val))
        return;
    want_type(V, in, "the result", res(V, in, 0), val);
    if (in->nargs >= 2)
        check_mask(V, in, 1);
    if (in->nargs >= 3)
        want_type(V, in, "other", arg(V, in, 2), val);
    if (in->attr.has_mask != (in->nargs >= 2) || in->attr.has_other != (in->nargs >= 3))
        fail(V, in, "has_mask / has_other disagree with the %d operands", in->nargs);
}

/* store and atomic_rmw: ptr, value [, mask]. */
static bool check_store(Verifier *V, const Inst *in, Type *val) {
    if (!pointer_operand(V, in, val))
        return false;
    want_type(V, in, "the value", arg(V, in, 1), *val);
    if (in->nargs == 3)
        check_mask(V, in, 2);
    if (in->attr.has_mask != (in->nargs == 3))
        return fail(V, in, "has_mask disagrees with the %d operands", in->nargs);
    return true;
}

static void check_atomic_rmw(Verifier *V, const Inst *in) {
    Type val;
    int rmw = in->attr.rmw;
    if (!check_store(V, in, &val))
        return;
    want_type(V, in, "the result", res(V, in, 0), val);
    int takes = rmw == RMW_XCHG ? C_BOOL | C_INT | C_FLOAT
              : rmw == RMW_AND || rmw == RMW_OR || rmw == RMW_XOR ? C_INT
              : C_INT | C_FLOAT;
    if (rmw < RMW_ADD || rmw > RMW_XOR)
        fail(V, in, "unknown kind %d", rmw);
    else if (!(takes & dtype_class(val.dtype)))
        fail(V, in, "this kind does not apply to %s", dt_name(val.dtype));
}

static void check_atomic_cas(Verifier *V, const Inst *in) {
    Type val;
    if (!pointer_operand(V, in, &val))
        return;
    if (dtype_class(val.dtype) == C_FP8)
        fail(V, in, "does not apply to %s", dt_name(val.dtype));
    want_type(V, in, "the compare value", arg(V, in, 1), val);
    want_type(V, in, "the new value", arg(V, in, 2), val);
    want_type(V, in, "the result", res(V, in, 0), val);
}

/* The input / accumulator pairs the tensor cores (and Triton) support. */
static bool dot_accumulates(int in, int acc) {
    switch (in) {
    case DT_I8: return acc == DT_I32;
    case DT_F16: return acc == DT_F32 || acc == DT_F16;
    case DT_BF16: case DT_F32: return acc == DT_F32;
    case DT_F64: return acc == DT_F64;
    case DT_F8E4NV: case DT_F8E5: case DT_F8E4B15: return acc == DT_F32 || acc == DT_F16;
    default: return false;
    }
}

static void check_dot(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0), b = arg(V, in, 1), c = arg(V, in, 2);
    int r = a.rank; /* 2, or 3 with a leading batch dim shared by all three */
    if ((r != 2 && r != 3) || b.rank != r || c.rank != r) {
        fail(V, in, "operands must be 2-D or 3-D blocks of one rank: %s, %s, %s", ty(V, a), ty(V, b), ty(V, c));
        return;
    }
    if (a.shape[r - 1] != b.shape[r - 2] || c.shape[r - 2] != a.shape[r - 2] || c.shape[r - 1] != b.shape[r - 1] ||
        (r == 3 && (b.shape[0] != a.shape[0] || c.shape[0] != a.shape[0])))
        fail(V, in, "shapes do not chain: a %s, b %s, acc %s", ty(V, a), ty(V, b), ty(V, c));
    if (a.dtype != b.dtype && !(dt_is_fp8(a.dtype) && dt_is_fp8(b.dtype))) /* e4nv x e5 is one mma */
        fail(V, in, "a and b differ in element type: %s, %s", dt_name(a.dtype), dt_name(b.dtype));
    else if (!dot_accumulates(a.dtype, c.dtype))
        fail(V, in, "%s inputs cannot accumulate in %s", dt_name(a.dtype), dt_name(c.dtype));
    if (in->attr.precision < PREC_IEEE || in->attr.precision > PREC_TF32X3)
        fail(V, in, "unknown precision %d", in->attr.precision);
    if (in->attr.num && (!dt_is_fp8(a.dtype) || in->attr.num < 0 || in->attr.num > a.shape[r - 1]))
        fail(V, in, "imprecise %d needs fp8 operands and 1 .. K (%d)", in->attr.num, a.shape[r - 1]);
    want_type(V, in, "the result", res(V, in, 0), c);
}

static void check_reduce(Verifier *V, const Inst *in) {
    Type a = arg(V, in, 0);
    int axis = in->attr.axis, kind = in->attr.reduce;
    if (!a.rank || axis < 0 || axis >= a.rank) {
        fail(V, in, "axis %d is out of range for %s", axis, ty(V, a));
        return;
    }
    if (kind < RED_SUM || kind > RED_ARGMIN) {
        fail(V, in, "unknown kind %d", kind);
        return;
    }
    if (!(dtype_class(a.dtype) & (C_INT | C_FLOAT)))
        fail(V, in, "does not apply to %s", dt_name(a.dtype));
    Type want = ir_scalar(kind == RED_ARGMAX || kind == RED_ARGMIN ? DT_I32 : (DType)a.dtype);
    for (int d = 0; d < a.rank; d++)
        if (d != axis || in->attr.keep_dims)
            want.shape[want.rank++] = d == axis ? 1 : a.shape[d];
    want_type(V, in, "the result", res(V, in, 0), want);
}

/* scan / reduce_fn: operands are blocks of one shape (numbers or i1) with
 * the axis in range; the combine region takes two scalars per operand (the
 * earlier elements a1..an, then the later b1..bn) and yields one per
 * operand, of the operands' element types. */
static bool check_combine(Verifier *V, const Inst *in) {
    int n = in->nargs;
    Type x = arg(V, in, 0);
    if (!x.rank || in->attr.axis < 0 || in->attr.axis >= x.rank)
        return fail(V, in, "axis %d is out of range for %s", in->attr.axis, ty(V, x));
    for (int i = 0; i < n; i++) {
        Type t = arg(V, in, i);
        if (!same_shape(t, x))
            return fail(V, in, "operand %d has type %s, not the shape of %s", i + 1, ty(V, t), ty(V, x));
        if (!(dtype_class(t.dtype) & (C_BOOL | C_INT | C_FLOAT)))
            return fail(V, in, "does not apply to %s", dt_name(t.dtype));
    }
    const Block *blk = in->regions[0];
    if (blk->nargs != 2 * n)
        return fail(V, in, "region combine has %d arguments, want %d", blk->nargs, 2 * n);
    for (int i = 0; i < 2 * n; i++)
        if (valid_id(V, blk->args[i]))
            want_type(V, in, "a combine argument", type_of(V, blk->args[i]), ir_elem(arg(V, in, i % n)));
    const Inst *t = blk->ninsts > 0 ? blk->insts[blk->ninsts - 1] : NULL;
    if (t && t->op == IR_YIELD) {
        if (t->nargs != n)
            return fail(V, in, "combine yields %d values, want %d", t->nargs, n);
        for (int i = 0; i < n; i++)
            if (valid_id(V, t->args[i]))
                want_type(V, in, "a combined value", type_of(V, t->args[i]), ir_elem(arg(V, in, i)));
    }
    return true;
}

static void check_scan(Verifier *V, const Inst *in) {
    if (!check_combine(V, in))
        return;
    if (in->nresults != in->nargs) {
        fail(V, in, "has %d results for %d operands", in->nresults, in->nargs);
        return;
    }
    for (int i = 0; i < in->nargs; i++)
        want_type(V, in, "a result", res(V, in, i), arg(V, in, i));
}

static void check_reduce_fn(Verifier *V, const Inst *in) {
    if (!check_combine(V, in))
        return;
    if (in->nresults != in->nargs) {
        fail(V, in, "has %d results for %d operands", in->nresults, in->nargs);
        return;
    }
    for (int i = 0; i < in->nargs; i++) {
        Type a = arg(V, in, i), want = ir_elem(a);
        for (int d = 0; d < a.rank; d++)
            if (d != in->attr.axis || in->attr.keep_dims)
                want.shape[want.rank++] = d == in->attr.axis ? 1 : a.shape[d];
        want_type(V, in, "a result", res(V, in, i), want);
    }
}

/* map_fn: operands of one shape (numbers or i1); the region fn takes pack
 * scalars per operand (operand 1's, then 2's ...) and yields pack per
 * result, result-major; each result has the operands' shape and the element
 * type of its yields. */
static void check_map_fn(Verifier *V, const Inst *in) {
    int n = in->nargs, m = in->nresults, pack = in->attr.pack;
    Type x = arg(V, in, 0);
    if (pack < 1 || pack > 64 || !m) {
        fail(V, in, "needs a result and pack in 1..64 (pack = %d)", pack);
        return;
    }
    for (int i = 0; i < n; i++) {
        Type t = arg(V, in, i);
        if (!same_shape(t, x) || !(dtype_class(t.dtype) & (C_BOOL | C_INT | C_FLOAT))) {
            fail(V, in, "operand %d has type %s; want numbers of the shape of %s", i + 1, ty(V, t), ty(V, x));
            return;
        }
    }
    const Block *blk = in->regions[0];
    if (blk->nargs != n * pack) {
        fail(V, in, "region fn has %d arguments, want %d", blk->nargs, n * pack);
        return;
    }
    for (int i = 0; i < n * pack; i++)
        if (valid_id(V, blk->args[i]))
            want_type(V, in, "an fn argument", type_of(V, blk->args[i]), ir_elem(arg(V, in, i / pack)));
    const Inst *t = blk->ninsts > 0 ? blk->insts[blk->ninsts - 1] : NULL;
    if (!t || t->op != IR_YIELD || t->nargs != m * pack) {
        fail(V, in, "fn must end in a yield of %d values", m * pack);
        return;
    }
    for (int r = 0; r < m; r++) {
        Type rt = res(V, in, r);
        if (!same_shape(rt, x) || !(dtype_class(rt.dtype) & (C_BOOL | C_INT | C_FLOAT)))
            fail(V, in, "result %d has type %s; want numbers of the shape of %s", r + 1, ty(V, rt), ty(V, x));
        for (int j = 0; j < pack; j++)
            if (valid_id(V, t->args[r * pack + j]))
                want_type(V, in, "a yielded value", type_of(V, t->args[r * pack + j]), ir_elem(rt));
    }
}

/* gather: out[i] = src[i with i[axis] replaced by index[i]]; index has src's
 * rank and its dims off the axis. */
static void check_gather(Verifier *V, const Inst *in) {
    Type s = arg(V, in, 0), x = arg(V, in, 1);
    int axis = in->attr.axis;
    if (!s.rank || x.rank != s.rank || axis < 0 || axis >= s.rank) {
        fail(V, in, "needs blocks of one rank and an axis in range: %s, %s, axis %d", ty(V, s), ty(V, x), axis);
        return;
    }
    if (dtype_class(x.dtype) != C_INT)
        fail(V, in, "the index must have integer elements, not %s", dt_name(x.dtype));
    for (int d = 0; d < s.rank; d++)
        if (d != axis && s.shape[d] != x.shape[d])
            fail(V, in, "index %s and source %s differ off the axis", ty(V, x), ty(V, s));
    want_type(V, in, "the result", res(V, in, 0), ir_with_dtype(x, (DType)s.dtype));
    /* xor: each element's partner along the axis, in the source's range */
    if (in->attr.num && (in->attr.num < 0 || in->attr.num >= s.shape[axis] || x.shape[axis] != s.shape[axis]))
        fail(V, in, "xor %d is not below the axis's length, or index and source differ along it: %s, %s",
             in->attr.num, ty(V, x), ty(V, s));
}

static void check_histogram(Verifier *V, const Inst *in) {
    Type x = arg(V, in, 0), r = res(V, in, 0);
    if (x.rank != 1 || dtype_class(x.dtype) != C_INT)
        fail(V, in, "needs a 1-D block of integers, not %s", ty(V, x));
    if (in->nargs == 2)
        want_type(V, in, "the mask", arg(V, in, 1), ir_with_dtype(x, DT_I1));
    if (r.rank != 1 || r.dtype != DT_I32)
        fail(V, in, "the result has type %s, want a 1-D block of i32", ty(V, r));
}

/* ---- shared memory ---- */

/* A buffer operand: operand i is !smem<...>; *tile is its shape as a value. */
static bool buffer_operand(Verifier *V, const Inst *in, int i, Type *tile) {
    Type b = arg(V, in, i);
    if (!ir_is_smem(b))
        return fail(V, in, "operand %d has type %s, want a shared-memory buffer !smem<...>", i + 1, ty(V, b));
    *tile = b;
    tile->mem = IR_MEM_REGS;
    return true;
}

static void check_local_alloc(Verifier *V, const Inst *in) {
    Type r = res(V, in, 0);
    if (!ir_is_smem(r) || !r.rank || r.dtype == DT_PTR || r.dtype == DT_I1)
        fail(V, in, "allocates !smem<...> of numbers, not %s", ty(V, r));
    if (in->attr.offset < -1)
        fail(V, in, "offset %d is negative", in->attr.offset);
}

static void check_memdesc_index(Verifier *V, const Inst *in) {
    Type b, want;
    if (!buffer_operand(V, in, 0, &b))
        return;
    Type i = arg(V, in, 1);
    if (i.rank || dtype_class(i.dtype) != C_INT)
        fail(V, in, "the stage index has type %s, want an integer scalar", ty(V, i));
    if (b.rank < 2) {
        fail(V, in, "indexes a buffer of rank 2 or more, not %s", ty(V, arg(V, in, 0)));
        return;
    }
    want = arg(V, in, 0);
    want.rank--;
    for (int d = 0; d < want.rank; d++)
        want.shape[d] = b.shape[d + 1];
    want.shape[want.rank] = 0;
    want_type(V, in, "the result", res(V, in, 0), want);
}

/* The same bytes with the dims swapped: rank 2, and an #nvmma buffer's view
 * says its inner dim is the other one (the only kind that says it). */
static void check_memdesc_trans(Verifier *V, const Inst *in) {
    Type b, want;
    if (!buffer_operand(V, in, 0, &b))
        return;
    if (b.rank != 2) {
        fail(V, in, "transposes a buffer of rank 2, not %s", ty(V, arg(V, in, 0)));
        return;
    }
    want = arg(V, in, 0);
    want.shape[0] = b.shape[1], want.shape[1] = b.shape[0];
    want_type(V, in, "the result", res(V, in, 0), want);
    const Function *f = V->f;
    int la = f->values[in->args[0]].layout, lr = f->values[in->results[0]].layout;
    if (la <= 0 || lr <= 0 || la >= f->nlayouts || lr >= f->nlayouts)
        return; /* check_layout reports it */
    const Layout *a = &f->layouts[la], *r = &f->layouts[lr];
    if (a->kind != LAYOUT_NVMMA || r->kind != LAYOUT_NVMMA || a->swizzle != r->swizzle ||
        a->elem_bits != r->elem_bits || a->transposed == r->transposed)
        fail(V, in, "the view's layout must be the buffer's #nvmma with transposed flipped");
}

static void check_async_copy(Verifier *V, const Inst *in) {
    Type tile, p = arg(V, in, 1);
    if (!buffer_operand(V, in, 0, &tile))
        return;
    if (p.dtype != DT_PTR || !p.rank) {
        fail(V, in, "operand 2 has type %s, want a block of pointers", ty(V, p));
        return;
    }
    want_type(V, in, "the buffer", tile, ir_with_dtype(p, p.pointee));
    if (in->nargs >= 3)
        want_type(V, in, "the mask", arg(V, in, 2), ir_with_dtype(p, DT_I1));
    if (in->attr.has_mask != (in->nargs >= 3))
        fail(V, in, "has_mask disagrees with the %d operands", in->nargs);
    if (in->attr.num && in->nargs < 3)
        fail(V, in, "ragged needs a mask");
    if (in->nargs == 4 && !in->attr.num)
        fail(V, in, "only a ragged copy takes a count");
    if (in->nargs == 4)
        want_type(V, in, "the count", arg(V, in, 3), ir_with_dtype(p, DT_I32));
}

/* Buffers are places: only these ops take them, and only as their first operand. */
static bool takes_buffer(const Inst *in, int k) {
    switch (in->op) {
    case IR_MEMDESC_INDEX: case IR_MEMDESC_TRANS: case IR_LOCAL_STORE: case IR_LOCAL_LOAD: case IR_ASYNC_COPY:
    case IR_MBAR_INIT: case IR_MBAR_INVAL: case IR_MBAR_EXPECT: case IR_MBAR_WAIT: case IR_TMA_STORE:
    case IR_MBAR_ARRIVE:
        return k == 0;
    case IR_TMA_LOAD:
        return k == 0 || k == 4;
    default:
        return false;
    }
}

static void check_buffers(Verifier *V, const Inst *in) {
    for (int k = 0; k < in->nargs; k++)
        if (ir_is_smem(arg(V, in, k)) != takes_buffer(in, k))
            fail(V, in, ir_is_smem(arg(V, in, k)) ? "operand %d is a shared-memory buffer, which this op does not take"
                                                  : "operand %d is not a shared-memory buffer", k + 1);
    bool makes = in->op == IR_LOCAL_ALLOC || in->op == IR_MEMDESC_INDEX || in->op == IR_MEMDESC_TRANS;
    for (int r = 0; r < in->nresults; r++)
        if (ir_is_smem(res(V, in, r)) != makes)
            fail(V, in, makes ? "makes %s, want a shared-memory buffer" : "makes a shared-memory buffer %s",
                 ty(V, res(V, in, r)));
}

/* After the layout pass: a value's layout is in the table, of a kind that
 * fits where the value lives (registers or shared memory) and its rank. */
static void check_layout(Verifier *V, const Inst *in, ValueId v) {
    const Function *f = V->f;
    int li = f->values[v].layout;
    Type t = f->values[v].type;
    if (!li)
        return;
    if (li < 0 || li >= f->nlayouts || !t.rank) {
        fail(V, in, "%%%d has layout %d, which %s", v, li, t.rank ? "is not in the table" : "a scalar cannot have");
        return;
    }
    const Layout *l = &f->layouts[li];
    if (layout_is_shared(l->kind) != ir_is_smem(t))
        fail(V, in, "%%%d %s has a %s layout", v, ty(V, t), layout_is_shared(l->kind) ? "shared-memory" : "register");
    else if (l->kind == LAYOUT_NVMMA ? t.rank < 2 : l->kind == LAYOUT_SHARED ? l->rank > t.rank : l->rank != t.rank)
        fail(V, in, "%%%d %s has a layout of rank %d", v, ty(V, t), l->rank);
}

/* The terminator of blk (if it is `term`; verify_block reports otherwise)
 * passes its operands from `first` on, which must match want[0..n). */
static void check_passes(Verifier *V, const Inst *in, const Block *blk, int term, int first, const ValueId *want,
                         int n) {
    const Inst *t = blk->ninsts > 0 ? blk->insts[blk->ninsts - 1] : NULL;
    if (!t || t->op != (OpCode)term || t->nargs < first)
        return;
    if (t->nargs - first != n)
        fail(V, in, "%s passes %d values, want %d", op_name(term), t->nargs - first, n);
    else if (n) /* args may be NULL when there are none */
        same_types(V, in, op_name(term), t->args + first, want, n);
}

/* The arguments of region r must have the types of want[0..n). */
static void check_block_args(Verifier *V, const Inst *in, int r, const ValueId *want, int n) {
    const Block *blk = in->regions[r];
    if (blk->nargs != n)
        fail(V, in, "region %s has %d arguments, want %d", ir_region_labels[in->op][r], blk->nargs, n);
    else if (n) /* args may be NULL when there are none */
        same_types(V, in, "region argument", blk->args, want, n);
}

/* for %lb, %ub, %step iter(inits): integer bounds of one type; the body takes
 * the induction variable and the carried values, and yields the carried
 * values, which are the results. */
static void check_for(Verifier *V, const Inst *in) {
    Type lb = arg(V, in, 0);
    const Block *body = in->regions[0];
    int n = in->nargs - 3;
    if (lb.rank || dtype_class(lb.dtype) != C_INT)
        fail(V, in, "the bounds must be integer scalars, not %s", ty(V, lb));
    want_type(V, in, "the upper bound", arg(V, in, 1), lb);
    want_type(V, in, "the step", arg(V, in, 2), lb);
    if (in->nresults != n) {
        fail(V, in, "carries %d values but has %d results", n, in->nresults);
        return;
    }
    same_types(V, in, "initial value", in->args + 3, in->results, n);
    if (body->nargs != n + 1) {
        fail(V, in, "body has %d arguments, want %d (the induction variable and %d carried)", body->nargs, n + 1,
             n);
    } else {
        same_types(V, in, "induction variable", body->args, in->args, 1);
        same_types(V, in, "body argument", body->args + 1, in->results, n);
    }
    check_passes(V, in, body, IR_YIELD, 0, in->results, n);
    if (in->attr.ws_hold < 0 || in->attr.ws_hold > 2)
        fail(V, in, "ws_hold %d: a ring slot is read in 1 or 2 iterations", in->attr.ws_hold);
}

/* if %cond: both branches take no arguments and yield the results. */
static void check_if(Verifier *V, const Inst *in) {
    want_type(V, in, "the condition", arg(V, in, 0), ir_scalar(DT_I1));
    for (int r = 0; r < 2; r++) {
        check_block_args(V, in, r, NULL, 0);
        check_passes(V, in, in->regions[r], IR_YIELD, 0, in->results, in->nresults);
    }
}

/* while inits: `before` takes the carried values and ends in condition
 * %c, forwarded...; the forwarded values are the results and `do`'s
 * arguments; `do` yields the next carried values. */
static void check_while(Verifier *V, const Inst *in) {
    const Block *before = in->regions[0], *after = in->regions[1];
    check_block_args(V, in, 0, in->args, in->nargs);
    check_block_args(V, in, 1, in->results, in->nresults);
    check_passes(V, in, before, IR_CONDITION, 1, in->results, in->nresults);
    check_passes(V, in, after, IR_YIELD, 0, in->args, in->nargs);
    const Inst *t = before->ninsts > 0 ? before->insts[before->ninsts - 1] : NULL;
    if (t && t->op == IR_CONDITION && t->nargs >= 1 && valid_id(V, t->args[0]))
        want_type(V, in, "the condition", type_of(V, t->args[0]), ir_scalar(DT_I1));
}

/* ---- warp specialisation ---- */

static void check_producer(Verifier *V, const Block *b) {
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        if ((int)in->op < 0 || in->op >= IR__NUM || !ir_producer_op(in->op)) {
            fail(V, in, "a warp_specialize producer may not hold '%s' (its warps share no barrier or block with the "
                        "others)", op_name(in->op));
            continue;
        }
        for (int r = 0; r < in->nregions && r < 2; r++)
            check_producer(V, in->regions[r]);
    }
}

static void check_warp_spec(Verifier *V, const Inst *in) {
    const Function *f = V->f;
    if (in->attr.num != f->producer_warps || in->attr.num <= 0 || in->attr.num % 4)
        fail(V, in, "warps %d must be the function's producer_warps (%d), a positive multiple of 4", in->attr.num,
             f->producer_warps);
    const Block *b = in->nregions ? in->regions[0] : NULL;
    if (b && b->ninsts && b->insts[b->ninsts - 1]->nargs)
        fail(V, in, "the producer's yield carries values; it has no results");
    check_producer(V, b);
}

/* A loop the pipeliner handed to the warp-spec pass (ws_hold) copies by
 * TMA in its own body, where the pass finds the copies to move, and the
 * function has no producer yet: the pass makes the one it may have. */
static void check_ws_hold(Verifier *V, const Inst *loop) {
    bool tma = false;
    for (int i = 0; i < loop->regions[0]->ninsts; i++)
        tma |= loop->regions[0]->insts[i]->op == IR_TMA_LOAD;
    if (!tma)
        fail(V, loop, "ws_hold hands the warp-spec pass a loop that copies nothing by TMA in its body");
    if (V->f->producer_warps)
        fail(V, loop, "ws_hold hands the warp-spec pass a loop of a function that has its producer already");
}

/* The warp_specialize op stands in the function's body before everything
 * but buffers, their mbarriers and barriers: the producer's warps leave at
 * its end, so they may only have run what every warp runs. */
static void check_warp_spec_place(Verifier *V) {
    const Block *b = V->f->body;
    int n = 0;
    bool early = true;
    for (const Inst *l = ir_ws_next(V->f, NULL); l; l = ir_ws_next(V->f, l))
        if (l->attr.ws_hold && l->nregions && l->regions[0])
            check_ws_hold(V, l);
    for (int i = 0; b && i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        if (in->op == IR_WARP_SPEC) {
            if (n++)
                fail(V, in, "a function has at most one warp_specialize");
            else if (!early)
                fail(V, in, "warp_specialize must come before every op but local_alloc, mbarrier_init and barrier");
        }
        early &= in->op == IR_LOCAL_ALLOC || in->op == IR_MBAR_INIT || in->op == IR_BARRIER;
    }
    if (!n && V->f->producer_warps)
        fail(V, NULL, "producer_warps = %d without a warp_specialize op", V->f->producer_warps);
}

/* The op's own typing rule; counts, ids and types are sound here. */
static void check_op(Verifier *V, const Inst *in) {
    if (ir_ops[in->op].flags & OPF_ELEM) {
        check_elementwise(V, in);
        return;
    }
    switch (in->op) {
    case IR_CONST: check_const(V, in); break;
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: check_program_id(V, in); break;
    case IR_ARANGE: check_arange(V, in); break;
    case IR_SPLAT: check_splat(V, in); break;
    case IR_BROADCAST: check_broadcast(V, in); break;
    case IR_EXPAND_DIMS: check_expand_dims(V, in); break;
    case IR_RESHAPE: check_reshape(V, in); break;
    case IR_TRANS: check_trans(V, in); break;
    case IR_EXTRACT: check_extract(V, in); break;
    case IR_CMP: check_cmp(V, in); break;
    case IR_SELECT: check_select(V, in); break;
    case IR_ADDPTR: check_addptr(V, in); break;
    case IR_CAST: check_cast(V, in); break;
    case IR_BITCAST: check_bitcast(V, in); break;
    case IR_MULTIPLE_OF: case IR_MAX_CONTIGUOUS: case IR_MAX_CONSTANCY: check_hint(V, in); break;
    case IR_ASSUME: want_type(V, in, "the condition", arg(V, in, 0), ir_scalar(DT_I1)); break;
    case IR_INTRINSIC: check_intrinsic(V, in); break;
    case IR_CONVERT_LAYOUT: want_type(V, in, "the result", res(V, in, 0), arg(V, in, 0)); break;
    case IR_LOAD: check_load(V, in); break;
    case IR_STORE: { Type val; check_store(V, in, &val); break; }
    case IR_ATOMIC_RMW: check_atomic_rmw(V, in); break;
    case IR_ATOMIC_CAS: check_atomic_cas(V, in); break;
    case IR_DOT: check_dot(V, in); break;
    case IR_REDUCE: check_reduce(V, in); break;
    case IR_SCAN: check_scan(V, in); break;
    case IR_REDUCE_FN: check_reduce_fn(V, in); break;
    case IR_MAP_FN: check_map_fn(V, in); break;
    case IR_GATHER: check_gather(V, in); break;
    case IR_HISTOGRAM: check_histogram(V, in); break;
    case IR_EXTERN: case IR_INLINE_ASM: check_map(V, in); break;
    case IR_ASSERT: want_type(V, in, "the condition", ir_elem(arg(V, in, 0)), ir_scalar(DT_I1)); break;
    case IR_FOR: check_for(V, in); break;
    case IR_IF: check_if(V, in); break;
    case IR_WHILE: check_while(V, in); break;
    case IR_LOCAL_ALLOC: check_local_alloc(V, in); break;
    case IR_MEMDESC_INDEX: check_memdesc_index(V, in); break;
    case IR_MEMDESC_TRANS: check_memdesc_trans(V, in); break;
    case IR_WGMMA_WAIT: want_type(V, in, "the result", res(V, in, 0), arg(V, in, 0)); break;
    case IR_LOCAL_STORE: {
        Type tile;
        if (buffer_operand(V, in, 0, &tile))
            want_type(V, in, "the value", arg(V, in, 1), tile);
        break;
    }
    case IR_LOCAL_LOAD: {
        Type tile;
        if (buffer_operand(V, in, 0, &tile))
            want_type(V, in, "the result", res(V, in, 0), tile);
        break;
    }
    case IR_ASYNC_COPY: check_async_copy(V, in); break;
    case IR_DESC_TILE: check_desc_tile(V, in); break;
    case IR_TMAP_CREATE: check_tmap_create(V, in); break;
    case IR_TMA_LOAD: case IR_TMA_STORE: check_tma_load(V, in); break;
    case IR_MBAR_INIT: case IR_MBAR_INVAL:
        want_barriers(V, in, 0, true);
        if (in->attr.num < 0 || in->attr.num >= 1 << 20)
            fail(V, in, "count %d is not in 0 .. 2^20-1 (an mbarrier's arrivals)", in->attr.num);
        break;
    case IR_MBAR_ARRIVE:
        want_barriers(V, in, 0, false);
        want_scalar(V, in, 1, "the predicate", DT_I1);
        break;
    case IR_WARP_SPEC: check_warp_spec(V, in); break;
    case IR_MBAR_EXPECT:
        want_barriers(V, in, 0, false);
        want_scalar(V, in, 1, "the predicate", DT_I1);
        if (in->attr.num <= 0 || in->attr.num >= 1 << 20)
            fail(V, in, "bytes %d is not in 1 .. 2^20-1 (an mbarrier's transaction count)", in->attr.num);
        break;
    case IR_MBAR_WAIT:
        want_barriers(V, in, 0, false);
        want_scalar(V, in, 1, "the phase", DT_I32);
        break;
    case IR_ASYNC_WAIT:
        if (in->attr.num < 0)
            fail(V, in, "num %d is negative", in->attr.num);
        break;
    default: break; /* print, barrier, terminators: nothing beyond counts and placement */
    }
}

/* ---- the walk ---- */

static void verify_block(Verifier *V, const Block *blk, const Inst *parent, int region, int depth);

static void verify_inst(Verifier *V, const Inst *in, int depth) {
    if ((int)in->op < 0 || in->op >= IR__NUM) {
        fail(V, in, "unknown opcode %d", (int)in->op);
        return;
    }
    bool counts = check_counts(V, in);
    bool exist = check_operands(V, in);
    if (counts && exist && values_sound(V, in->args, in->nargs) && values_sound(V, in->results, in->nresults)) {
        check_buffers(V, in);
        check_op(V, in);
        for (int r = 0; r < in->nresults; r++)
            check_layout(V, in, in->results[r]);
    }
    if (in->scratch_size && (!V->f->smem_allocated || (int64_t)in->scratch_off + in->scratch_size > V->f->shared_bytes))
        fail(V, in, "its shared scratch [%d, %d) lies outside the function's %d bytes of shared memory", in->scratch_off,
             in->scratch_off + in->scratch_size, V->f->smem_allocated ? V->f->shared_bytes : 0);
    Inst *guard;
    if (in->op == IR_FOR && in->attr.ws_hold && depth && !ir_ws_block(V->f, in, &guard))
        fail(V, in, "ws_hold marks only a loop of the function's body or of an if's then-branch there (its "
                    "producer runs before everything)");
    for (int r = 0; r < in->nregions && r < 2; r++) {
        if (!in->regions[r])
            continue;
        if (depth >= MAX_DEPTH)
            fail(V, in, "regions nested more than %d deep (a cycle?)", MAX_DEPTH);
        else if (in->op == IR_WARP_SPEC && depth)
            fail(V, in, "warp_specialize stands only in the function's body");
        else
            verify_block(V, in->regions[r], in, r, depth + 1);
    }
    for (int i = 0; i < in->nresults; i++)
        define(V, in, in->results[i], in, NULL);
}

static bool is_terminator(int op) { return op == IR_YIELD || op == IR_CONDITION || op == IR_RETURN; }

/* Where each terminator may stand, for messages. */
static const char *terminator_home(int term) {
    return term == IR_RETURN      ? "the function body"
           : term == IR_CONDITION ? "a while's before region"
                                  : "a for body, an if branch, a while's do region or a combine region";
}

/* A block: its arguments come into scope, its ops are checked in order, it
 * ends with the terminator its owner wants, and its values leave scope. */
static void verify_block(Verifier *V, const Block *blk, const Inst *parent, int region, int depth) {
    int term = !parent ? IR_RETURN : parent->op == IR_WHILE && region == 0 ? IR_CONDITION : IR_YIELD;
    const char *label = parent && (int)parent->op >= 0 && parent->op < IR__NUM ? ir_region_labels[parent->op][region] : NULL;
    if (blk->parent != parent)
        fail(V, parent, "region %s does not point back to its op", label ? label : "(body)");
    for (int i = 0; i < blk->nargs; i++) {
        define(V, parent, blk->args[i], NULL, blk);
        if (valid_id(V, blk->args[i]) && !type_problem(type_of(V, blk->args[i]))) {
            if (ir_is_smem(type_of(V, blk->args[i])))
                fail(V, parent, "region argument %%%d is a shared-memory buffer; loops carry values", blk->args[i]);
            check_layout(V, parent, blk->args[i]);
        }
    }
    for (int i = 0; i < blk->ninsts; i++) {
        const Inst *in = blk->insts[i];
        if (is_terminator(in->op) && (in->op != (OpCode)term || i != blk->ninsts - 1))
            fail(V, in, "may only end %s", terminator_home(in->op));
        verify_inst(V, in, depth);
    }
    const Inst *last = blk->ninsts > 0 ? blk->insts[blk->ninsts - 1] : NULL;
    if (!last || last->op != (OpCode)term) {
        if (parent)
            fail(V, parent, "region %s does not end with %s", label ? label : "?", op_name(term));
        else
            fail(V, NULL, "the function body does not end with return");
    }
    for (int i = 0; i < blk->nargs; i++)
        leave(V, blk->args[i]);
    for (int i = 0; i < blk->ninsts; i++)
        for (int j = 0; j < blk->insts[i]->nresults; j++)
            leave(V, blk->insts[i]->results[j]);
}

/* Parameters are values 1..nparams, scalars or pointers, in the body's scope. */
static void verify_params(Verifier *V) {
    const Function *f = V->f;
    if (f->nparams >= f->nvalues) {
        fail(V, NULL, "%d parameters but only %d values", f->nparams, f->nvalues - 1);
        return;
    }
    for (int i = 0; i < f->nparams; i++) {
        const Param *p = &f->params[i];
        Type t = type_of(V, i + 1);
        define(V, NULL, i + 1, NULL, f->body);
        if (t.rank)
            fail(V, NULL, "parameter %d (%%%d) is a block %s; parameters are scalars or pointers", i + 1, i + 1,
                 ty(V, t));
        else if (!ir_type_eq(t, p->type))
            fail(V, NULL, "parameter %d (%%%d) has type %s but its Param says %s", i + 1, i + 1, ty(V, t),
                 ty(V, p->type));
        if (p->divisibility < 1)
            fail(V, NULL, "parameter %d has divisibility %d", i + 1, p->divisibility);
        if (p->equal_to_1 && dtype_class(t.dtype) != C_INT)
            fail(V, NULL, "parameter %d is equal_to_1 but not an integer", i + 1);
        if (p->scratch && (i != f->nparams - 1 || t.dtype != DT_PTR || f->global_scratch < 1))
            fail(V, NULL, "parameter %d is marked scratch: only the last, a pointer, with global_scratch > 0", i + 1);
        if ((p->nonneg || p->above1) && (dtype_class(t.dtype) != C_INT || p->tensormap))
            fail(V, NULL, "parameter %d is %s but not an integer argument", i + 1, p->nonneg ? "nonneg" : "above1");
        if (p->tma.base) { /* its base, bounds and stride: earlier parameters (or constants) */
            if (!p->tensormap)
                fail(V, NULL, "parameter %d has a tma source but is not a tensor map", i + 1);
            TmaSource t = p->tma;
            int32_t *refs[8];
            ir_tma_refs(&t, refs);
            static const char *const what[8] = {"base", "rows", "rows x", "rows x", "cols", "cols x", "cols x", "stride"};
            for (int k = 0; k < 8; k++) {
                int r = *refs[k];
                bool factor = k == 2 || k == 3 || k == 5 || k == 6;
                if (factor && !r)
                    continue; /* a factor that is not there */
                bool ok = k ? (r < 0 || (r > 0 && r <= i && dtype_class(f->params[r - 1].type.dtype) == C_INT &&
                                         !f->params[r - 1].tensormap))
                            : r > 0 && r <= i && f->params[r - 1].type.dtype == DT_PTR;
                if (!ok)
                    fail(V, NULL, "parameter %d: tma %s (%d) is not %s", i + 1, what[k], r,
                         k ? "an earlier integer parameter or a constant" : "an earlier pointer parameter");
            }
            if (t.box[0] < 1 || t.box[0] > 256 || t.box[1] < 1)
                fail(V, NULL, "parameter %d: box [%d, %d] is not a TMA box", i + 1, t.box[0], t.box[1]);
        }
    }
}

bool ir_verify(Diag *d, const Function *f) {
    Verifier V = {.d = d, .f = f};
    if (!f->body || !f->values || f->nvalues < 1) {
        fail(&V, NULL, "the function has no body or no value table");
        return false;
    }
    if (!(V.state = calloc((size_t)f->nvalues, 1))) {
        diag_internal(d, "verifier: out of memory");
        return false;
    }
    if (f->num_warps < 1 || f->num_warps > 32 || (f->num_warps & (f->num_warps - 1)))
        fail(&V, NULL, "num_warps %d is not a power of two from 1 to 32", f->num_warps);
    if (f->num_stages < 0)
        fail(&V, NULL, "num_stages %d is negative", f->num_stages);
    if (f->body->nargs)
        fail(&V, NULL, "the function body has block arguments (parameters are values 1..n)");
    verify_params(&V);
    check_warp_spec_place(&V);
    verify_block(&V, f->body, NULL, 0, 0);
    free(V.state);
    return V.nerrors == 0;
}
