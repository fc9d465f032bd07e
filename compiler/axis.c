/* axis.c: axis analysis, Triton's AxisInfo (lib/Analysis/AxisInfo.cpp).
 *
 * For every value and dimension d, three powers of two (layout.h):
 *   contiguity C[d]   runs of C consecutive integers along d,
 *   divisibility D[d] the first element of each run is a multiple of D
 *                     (pointers: the byte address),
 *   constancy K[d]    runs of K equal elements along d,
 * plus the value itself when every element is one known integer. The layout
 * pass reads them at loads and stores: C and D of the pointer say how many
 * elements a thread can move with one vector access, K of the mask says
 * whether the mask is uniform over such a vector.
 *
 * Algorithm: one walk in program order. Parameters are seeded from the
 * signature (`:16` -> D = 16, `:1` -> the constant 1); every op computes its
 * results from its operands by the rule below that names it (Triton's
 * visitors, with the same comments on why each is sound). Loops are a fixed
 * point: a for's carried arguments start as the init values, the body is
 * walked, and each argument is joined (gcd per field) with the value the
 * body yields, until nothing changes. Joining only lowers the powers of two,
 * so this ends; a cap on rounds falls back to the pessimistic (1, 1, 1).
 *
 * Where Triton's rule is unsound for a value whose contiguity changes (a run
 * split into shorter runs starts at elements that need not be multiples of
 * D), regroup() narrows D to what the shorter runs guarantee. */
#include "layout.h"

#include <string.h>

enum {
    MAX_ROUNDS = 256, /* fixed-point rounds for one loop before giving up */
};
static const int64_t MAX_DIV = (int64_t)1 << 62; /* the divisibility of 0 */

typedef struct Axis {
    Function *f;
    AxisInfo *ai;
    int64_t *assumed; /* per value: a power of two that tl.assume says divides it (0: none) */
    int64_t *proven;  /* per assumed value: the divisibility the code shows without the assume */
} Axis;

/* ---- arithmetic on powers of two ---- */

static int64_t gcd64(int64_t a, int64_t b) {
    while (b) {
        int64_t t = a % b;
        a = b;
        b = t;
    }
    return a < 0 ? -a : a;
}
static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

/* The largest power of two dividing v (0 is divisible by everything). */
static int64_t pow2_div(int64_t v) {
    if (v == 0 || v == INT64_MIN)
        return MAX_DIV;
    uint64_t u = (uint64_t)(v < 0 ? -v : v);
    return min64((int64_t)(u & -u), MAX_DIV);
}

static int64_t mul_div(int64_t a, int64_t b) { return a > MAX_DIV / b ? MAX_DIV : a * b; }

/* D for runs of length c cut out of runs of length C with divisibility D:
 * the cut runs start at D*k + j*c, multiples of gcd(D, c). (c >= C: every
 * run of c starts where one of C does.) */
static int64_t regroup(int64_t D, int64_t C, int64_t c) { return c >= C ? D : gcd64(D, c); }

/* ---- values ---- */

static int ndims(Type t) { return t.rank ? t.rank : 1; }
static int64_t dim_size(Type t, int d) { return t.rank ? t.shape[d] : 1; }
static Type type_of(const Axis *A, ValueId v) { return A->f->values[v].type; }
static bool intlike(Type t) { return dt_is_int(t.dtype) || t.dtype == DT_PTR; }

static AxisInfo pessimistic(Type t) {
    AxisInfo a = {0};
    for (int d = 0; d < ndims(t); d++)
        a.contiguity[d] = a.divisibility[d] = a.constancy[d] = 1;
    return a;
}

static AxisInfo constant(Type t, int64_t v) {
    AxisInfo a = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        a.divisibility[d] = pow2_div(v);
        a.constancy[d] = dim_size(t, d);
    }
    a.has_value = true;
    a.value = v;
    return a;
}

/* Store a result, keeping the fields in range whatever a rule computed. */
static void set(Axis *A, ValueId v, AxisInfo a) {
    Type t = type_of(A, v);
    for (int d = 0; d < ndims(t); d++) {
        int64_t n = dim_size(t, d);
        a.contiguity[d] = a.contiguity[d] < 1 ? 1 : min64(a.contiguity[d], n);
        a.constancy[d] = a.constancy[d] < 1 ? 1 : min64(a.constancy[d], n);
        a.divisibility[d] = a.divisibility[d] < 1 ? 1 : min64(a.divisibility[d], MAX_DIV);
    }
    for (int d = ndims(t); d < IR_MAX_RANK; d++)
        a.contiguity[d] = a.divisibility[d] = a.constancy[d] = 0;
    if (!intlike(t))
        a.has_value = false;
    if (A->assumed && A->assumed[v] && intlike(t) && !t.rank) {
        A->proven[v] = a.divisibility[0];
        a.divisibility[0] = max64(a.divisibility[0], A->assumed[v]);
    }
    A->ai[v] = a;
}

static AxisInfo join(Type t, const AxisInfo *a, const AxisInfo *b) {
    AxisInfo j = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        j.contiguity[d] = gcd64(a->contiguity[d], b->contiguity[d]);
        j.divisibility[d] = gcd64(a->divisibility[d], b->divisibility[d]);
        j.constancy[d] = gcd64(a->constancy[d], b->constancy[d]);
    }
    j.has_value = a->has_value && b->has_value && a->value == b->value;
    j.value = j.has_value ? a->value : 0;
    return j;
}

static bool same(const AxisInfo *a, const AxisInfo *b) { return !memcmp(a, b, sizeof *a); }

static bool is_const(const AxisInfo *a, int64_t v) { return a->has_value && a->value == v; }

/* ---- rules for one op (each returns the result's info) ---- */

/* Any elementwise op keeps runs of equal operands equal. */
static AxisInfo elementwise(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    AxisInfo r = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        r.constancy[d] = dim_size(t, d);
        for (int i = 0; i < in->nargs; i++)
            if (type_of(A, in->args[i]).rank == t.rank)
                r.constancy[d] = gcd64(r.constancy[d], A->ai[in->args[i]].constancy[d]);
    }
    return r;
}

static AxisInfo rule_const(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    if (intlike(t))
        return constant(t, t.dtype == DT_I1 ? in->attr.i != 0 : in->attr.i);
    AxisInfo r = pessimistic(t);
    for (int d = 0; d < ndims(t); d++)
        r.constancy[d] = dim_size(t, d);
    return r;
}

static AxisInfo rule_arange(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    AxisInfo r = pessimistic(t);
    r.contiguity[0] = in->attr.end - in->attr.start;
    r.divisibility[0] = pow2_div(in->attr.start);
    if (in->attr.end - in->attr.start == 1) {
        r.has_value = true;
        r.value = in->attr.start;
    }
    return r;
}

static AxisInfo rule_splat(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *s = &A->ai[in->args[0]];
    AxisInfo r = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        r.divisibility[d] = s->divisibility[0];
        r.constancy[d] = dim_size(t, d);
    }
    r.has_value = s->has_value;
    r.value = s->value;
    return r;
}

/* A dim of size 1 broadcast to n: constant over n, same divisibility. */
static AxisInfo rule_broadcast(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]), it = type_of(A, in->args[0]);
    AxisInfo r = A->ai[in->args[0]];
    for (int d = 0; d < t.rank; d++)
        if (it.shape[d] == 1 && t.shape[d] > 1) {
            r.contiguity[d] = 1;
            r.constancy[d] = t.shape[d];
        }
    return r;
}

/* The new size-1 dim: divisibility of the elements themselves, which is D
 * only along dims without runs (a run [2^n, 2^n+1, ...] is not divisible). */
static AxisInfo rule_expand_dims(Axis *A, const Inst *in) {
    Type it = type_of(A, in->args[0]);
    const AxisInfo *s = &A->ai[in->args[0]];
    int ax = in->attr.axis;
    int64_t div = MAX_DIV;
    if (s->has_value)
        div = pow2_div(s->value);
    else
        for (int d = 0; d < ndims(it); d++)
            div = gcd64(div, s->contiguity[d] > 1 ? 1 : s->divisibility[d]);
    AxisInfo r = *s;
    for (int d = ndims(it); d > ax; d--) {
        r.contiguity[d] = s->contiguity[d - 1];
        r.divisibility[d] = s->divisibility[d - 1];
        r.constancy[d] = s->constancy[d - 1];
    }
    r.contiguity[ax] = r.constancy[ax] = 1;
    r.divisibility[ax] = div;
    return r;
}

static AxisInfo rule_trans(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *s = &A->ai[in->args[0]];
    AxisInfo r = *s;
    for (int d = 0; d < t.rank; d++) {
        int p = in->attr.perm[d];
        r.contiguity[d] = s->contiguity[p];
        r.divisibility[d] = s->divisibility[p];
        r.constancy[d] = s->constancy[p];
    }
    return r;
}

/* extract from start along axis: runs and equal stretches stay whole where
 * start falls on their boundaries (a multiple of their length); the
 * other dims are the operand's. */
static AxisInfo rule_extract(Axis *A, const Inst *in) {
    AxisInfo r = A->ai[in->args[0]];
    int d = in->attr.axis;
    int64_t st = in->attr.start;
    if (st % r.contiguity[d]) {
        r.contiguity[d] = gcd64(r.contiguity[d], st);
        r.divisibility[d] = 1;
    }
    if (st % r.constancy[d])
        r.constancy[d] = gcd64(r.constancy[d], st);
    return r;
}

/* add, sub, addptr: lhs + rhs stays a run where one side runs and the other
 * is constant; the sum of multiples of g is a multiple of g. addptr adds
 * rhs * sizeof(pointee) bytes: runs of elements, divisibility in bytes. */
static AxisInfo rule_add(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    int64_t scale = in->op == IR_ADDPTR ? max64(1, dt_bits(t.pointee) / 8) : 1;
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t c = gcd64(l->contiguity[d], r->constancy[d]);
        if (in->op != IR_SUB) /* const - run decreases: not a run */
            c = max64(c, gcd64(l->constancy[d], r->contiguity[d]));
        o.contiguity[d] = c;
        o.divisibility[d] = gcd64(regroup(l->divisibility[d], l->contiguity[d], c),
                                  mul_div(regroup(r->divisibility[d], r->contiguity[d], c), scale));
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
    }
    if (l->has_value && r->has_value && in->op != IR_ADDPTR) {
        o.has_value = true;
        o.value = in->op == IR_SUB ? l->value - r->value : l->value + r->value;
    }
    return o;
}

/* x * 1 keeps runs; otherwise a run's elements are not multiples of D. */
static AxisInfo rule_mul(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t ld = l->contiguity[d] > 1 && !is_const(r, 1) ? 1 : l->divisibility[d];
        int64_t rd = r->contiguity[d] > 1 && !is_const(l, 1) ? 1 : r->divisibility[d];
        o.contiguity[d] = max64(is_const(r, 1) ? l->contiguity[d] : 1, is_const(l, 1) ? r->contiguity[d] : 1);
        o.divisibility[d] = mul_div(ld, rd);
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
    }
    if (l->has_value && r->has_value) {
        o.has_value = true;
        o.value = (int64_t)((uint64_t)l->value * (uint64_t)r->value);
    }
    return o;
}

/* A run divided by a constant is constant over runs of gcd(C, D_l, D_r). */
static AxisInfo rule_div(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t n = dim_size(t, d);
        o.contiguity[d] = is_const(r, 1) ? l->contiguity[d] : 1;
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
        if (l->contiguity[d] == n && r->constancy[d] == n)
            o.constancy[d] = max64(o.constancy[d], gcd64(l->contiguity[d], gcd64(l->divisibility[d], r->divisibility[d])));
        o.divisibility[d] = is_const(l, 0) || is_const(r, 1) ? l->divisibility[d] : 1;
    }
    if (l->has_value && r->has_value && r->value != 0 && !(l->value == INT64_MIN && r->value == -1)) {
        o.has_value = true;
        o.value = l->value / r->value;
    }
    return o;
}

/* What divides scalar v by the code alone: an assume's own condition
 * (x % c == 0) must not fold to true through the fact it states, or the
 * check of a rule sema states (a descriptor's stride) would vanish. */
static int64_t proven_div(const Axis *A, ValueId v) {
    return A->assumed && A->assumed[v] ? A->proven[v] : A->ai[v].divisibility[0];
}

/* A run mod a constant stays a run for gcd(C, D_l, D_r) elements; a scalar
 * its divisor divides is 0. */
static AxisInfo rule_rem(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t n = dim_size(t, d);
        if (l->contiguity[d] == n && r->constancy[d] == n)
            o.contiguity[d] = gcd64(l->contiguity[d], gcd64(l->divisibility[d], r->divisibility[d]));
        int64_t c = o.contiguity[d];
        o.divisibility[d] = gcd64(regroup(l->divisibility[d], l->contiguity[d], c), regroup(r->divisibility[d], r->contiguity[d], c));
        o.constancy[d] = is_const(r, 1) ? n : gcd64(l->constancy[d], r->constancy[d]);
    }
    if (l->has_value && r->has_value && r->value != 0 && !(l->value == INT64_MIN && r->value == -1)) {
        o.has_value = true;
        o.value = l->value % r->value;
    } else if (!t.rank && r->has_value && r->value > 0 && proven_div(A, in->args[0]) % r->value == 0) {
        o.has_value = true; /* x % c where c divides x: a descriptor's stride check that the signature's :16 proves */
        o.value = 0;
    }
    return o;
}

/* Shifts by a known amount: x << s multiplies D by 2^s; x >> s divides it
 * and, on a run, is constant over runs of gcd(C, D, 2^s). */
static AxisInfo rule_shift(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    bool known = r->has_value && r->value >= 0 && r->value < 62;
    int64_t s = known ? r->value : 0;
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t c = is_const(r, 0) ? l->contiguity[d] : 1;
        int64_t ld = regroup(l->divisibility[d], l->contiguity[d], c);
        o.contiguity[d] = c;
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
        if (in->op == IR_SHL) {
            o.divisibility[d] = mul_div(ld, (int64_t)1 << s);
        } else {
            o.divisibility[d] = known ? max64(1, ld >> s) : 1;
            if (known && r->constancy[d] == dim_size(t, d))
                o.constancy[d] = max64(o.constancy[d], gcd64(l->contiguity[d], gcd64(l->divisibility[d], (int64_t)1 << s)));
        }
    }
    if (l->has_value && known) {
        o.has_value = true;
        o.value = in->op == IR_SHL ? (int64_t)((uint64_t)l->value << s) : l->value >> s;
    }
    return o;
}

/* Bitwise ops: x & y has the low zero bits of either; x | y and x ^ y those
 * of both. No runs survive. */
static AxisInfo rule_bitwise(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t ld = regroup(l->divisibility[d], l->contiguity[d], 1);
        int64_t rd = regroup(r->divisibility[d], r->contiguity[d], 1);
        o.divisibility[d] = in->op == IR_AND ? max64(ld, rd) : gcd64(ld, rd);
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
    }
    if (l->has_value && r->has_value) {
        o.has_value = true;
        o.value = in->op == IR_AND ? l->value & r->value : in->op == IR_OR ? l->value | r->value : l->value ^ r->value;
    }
    return o;
}

/* min/max of two runs that both climb by 1 is a run; of anything, one of
 * the operands, so the common divisibility. */
static AxisInfo rule_minmax(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t c = min64(l->contiguity[d], r->contiguity[d]);
        o.contiguity[d] = c;
        o.divisibility[d] = gcd64(regroup(l->divisibility[d], l->contiguity[d], c), regroup(r->divisibility[d], r->contiguity[d], c));
        o.constancy[d] = gcd64(l->constancy[d], r->constancy[d]);
    }
    if (l->has_value && r->has_value) {
        bool mx = in->op == IR_MAX;
        o.has_value = true;
        o.value = (l->value > r->value) == mx ? l->value : r->value;
    }
    return o;
}

static bool cmp_const(int pred, int64_t a, int64_t b) {
    switch (pred) {
    case CMP_LT: return a < b;
    case CMP_LE: return a <= b;
    case CMP_GT: return a > b;
    case CMP_GE: return a >= b;
    case CMP_EQ: return a == b;
    default: return a != b;
    }
}

/* A run compared with a constant flips at most once, at an index that is a
 * multiple of gcd(D_l, D_r) for lt/ge (run on the left) and gt/le (run on
 * the right): the mask is constant over runs of that length. This is what
 * makes `offs < n` uniform over a vector when n is a multiple of 16. */
static AxisInfo rule_cmp(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *l = &A->ai[in->args[0]], *r = &A->ai[in->args[1]];
    int p = in->attr.pred;
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t k = gcd64(l->constancy[d], r->constancy[d]);
        int64_t g = gcd64(l->divisibility[d], r->divisibility[d]);
        if ((p == CMP_LT || p == CMP_GE) && r->constancy[d] == dim_size(t, d))
            k = max64(k, gcd64(l->contiguity[d], g));
        if ((p == CMP_GT || p == CMP_LE) && l->constancy[d] == dim_size(t, d))
            k = max64(k, gcd64(r->contiguity[d], g));
        o.constancy[d] = k;
    }
    if (l->has_value && r->has_value) {
        o.has_value = true;
        o.value = cmp_const(p, l->value, r->value);
        for (int d = 0; d < ndims(t); d++)
            o.constancy[d] = dim_size(t, d);
    }
    return o;
}

/* select(c, a, b): a known condition picks one side; a block condition cuts
 * runs where it changes. */
static AxisInfo rule_select(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    const AxisInfo *c = &A->ai[in->args[0]], *a = &A->ai[in->args[1]], *b = &A->ai[in->args[2]];
    if (c->has_value)
        return c->value ? *a : *b;
    bool scalar_cond = type_of(A, in->args[0]).rank == 0;
    AxisInfo o = pessimistic(t);
    for (int d = 0; d < ndims(t); d++) {
        int64_t ck = scalar_cond ? dim_size(t, d) : c->constancy[d];
        int64_t run = min64(gcd64(a->contiguity[d], ck), gcd64(b->contiguity[d], ck));
        o.contiguity[d] = run;
        o.constancy[d] = min64(gcd64(a->constancy[d], ck), gcd64(b->constancy[d], ck));
        o.divisibility[d] = gcd64(regroup(a->divisibility[d], a->contiguity[d], run), regroup(b->divisibility[d], b->contiguity[d], run));
    }
    if (a->has_value && b->has_value && a->value == b->value) {
        o.has_value = true;
        o.value = a->value;
    }
    return o;
}

/* Integer <-> integer and pointer <-> integer conversions keep the values
 * (Triton assumes no wrap-around); others keep only constancy. */
static AxisInfo rule_cast(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]), it = type_of(A, in->args[0]);
    bool keeps = intlike(t) && intlike(it) && t.dtype != DT_I1 &&
                 (in->op == IR_CAST || dt_bits(t.dtype) == dt_bits(it.dtype));
    return keeps ? A->ai[in->args[0]] : elementwise(A, in);
}

/* multiple_of / max_contiguous / max_constancy: the user's promise joins what is proven. */
static AxisInfo rule_hint(Axis *A, const Inst *in) {
    Type t = type_of(A, in->results[0]);
    AxisInfo r = A->ai[in->args[0]];
    for (int d = 0; d < ndims(t); d++) {
        int64_t v = in->attr.vals[d];
        if (v <= 0)
            continue;
        if (in->op == IR_MULTIPLE_OF)
            r.divisibility[d] = max64(r.divisibility[d], pow2_div(v));
        else if (in->op == IR_MAX_CONSTANCY)
            r.constancy[d] = max64(r.constancy[d], min64(pow2_div(v), dim_size(t, d)));
        else
            r.contiguity[d] = max64(r.contiguity[d], min64(pow2_div(v), dim_size(t, d)));
    }
    return r;
}

/* ---- control flow ---- */

static void visit_block(Axis *A, Block *b);

static Inst *terminator(Block *b) { return b && b->ninsts ? b->insts[b->ninsts - 1] : NULL; }

/* Join `from[i]` into the block arguments `args[i]`; true if any changed. */
static bool join_into(Axis *A, const ValueId *args, const ValueId *from, int n) {
    bool changed = false;
    for (int i = 0; i < n; i++) {
        AxisInfo j = join(type_of(A, args[i]), &A->ai[args[i]], &A->ai[from[i]]);
        if (!same(&j, &A->ai[args[i]])) {
            set(A, args[i], j);
            changed = true;
        }
    }
    return changed;
}

static void pessimize(Axis *A, const ValueId *vs, int n) {
    for (int i = 0; i < n; i++)
        set(A, vs[i], pessimistic(type_of(A, vs[i])));
}

/* for: the iv is a multiple of gcd(lb, step); carried values to a fixed point. */
static void visit_for(Axis *A, Inst *in) {
    Block *body = in->regions[0];
    int n = in->nargs - 3;
    if (!body || body->nargs != n + 1 || n != in->nresults) {
        pessimize(A, in->results, in->nresults);
        return;
    }
    AxisInfo iv = pessimistic(type_of(A, body->args[0]));
    iv.divisibility[0] = gcd64(A->ai[in->args[0]].divisibility[0], A->ai[in->args[2]].divisibility[0]);
    set(A, body->args[0], iv);
    for (int i = 0; i < n; i++)
        set(A, body->args[i + 1], A->ai[in->args[3 + i]]);
    int round = 0;
    for (;; round++) {
        visit_block(A, body);
        Inst *y = terminator(body);
        if (!y || y->op != IR_YIELD || y->nargs != n)
            break;
        if (!join_into(A, body->args + 1, y->args, n))
            break;
        if (round == MAX_ROUNDS) {
            pessimize(A, body->args + 1, n);
            visit_block(A, body);
            break;
        }
    }
    for (int i = 0; i < n; i++)
        set(A, in->results[i], A->ai[body->args[i + 1]]);
}

static void visit_if(Axis *A, Inst *in) {
    Inst *y[2] = {NULL, NULL};
    for (int r = 0; r < in->nregions && r < 2; r++) {
        visit_block(A, in->regions[r]);
        y[r] = terminator(in->regions[r]);
    }
    for (int i = 0; i < in->nresults; i++) {
        bool ok = y[0] && y[1] && y[0]->nargs > i && y[1]->nargs > i;
        Type t = type_of(A, in->results[i]);
        set(A, in->results[i], ok ? join(t, &A->ai[y[0]->args[i]], &A->ai[y[1]->args[i]]) : pessimistic(t));
    }
}

/* while: the before-block's arguments join the inits and the after-block's
 * yields; the after-block's arguments and the results are what the
 * condition forwards. */
static void visit_while(Axis *A, Inst *in) {
    Block *before = in->nregions > 0 ? in->regions[0] : NULL, *after = in->nregions > 1 ? in->regions[1] : NULL;
    int n = in->nargs;
    if (!before || !after || before->nargs != n) {
        pessimize(A, in->results, in->nresults);
        return;
    }
    for (int i = 0; i < n; i++)
        set(A, before->args[i], A->ai[in->args[i]]);
    for (int round = 0;; round++) {
        visit_block(A, before);
        Inst *c = terminator(before);
        bool fwd_ok = c && c->op == IR_CONDITION && c->nargs - 1 == after->nargs && after->nargs == in->nresults;
        for (int i = 0; i < after->nargs; i++)
            set(A, after->args[i], fwd_ok ? A->ai[c->args[i + 1]] : pessimistic(type_of(A, after->args[i])));
        for (int i = 0; i < in->nresults; i++)
            set(A, in->results[i], fwd_ok ? A->ai[c->args[i + 1]] : pessimistic(type_of(A, in->results[i])));
        visit_block(A, after);
        Inst *y = terminator(after);
        if (!y || y->op != IR_YIELD || y->nargs != n || !join_into(A, before->args, y->args, n))
            break;
        if (round == MAX_ROUNDS) {
            pessimize(A, before->args, n);
            pessimize(A, after->args, after->nargs);
            pessimize(A, in->results, in->nresults);
            visit_block(A, before);
            visit_block(A, after);
            break;
        }
    }
}

/* ---- the walk ---- */

static void visit(Axis *A, Inst *in) {
    switch (in->op) {
    case IR_FOR: visit_for(A, in); return;
    case IR_IF: visit_if(A, in); return;
    case IR_WHILE: visit_while(A, in); return;
    default: break;
    }
    if (in->nresults != 1) {
        pessimize(A, in->results, in->nresults);
        return;
    }
    ValueId res = in->results[0];
    Type t = type_of(A, res);
    AxisInfo r;
    switch (in->op) {
    case IR_CONST: r = rule_const(A, in); break;
    case IR_ARANGE: r = rule_arange(A, in); break;
    case IR_SPLAT: r = rule_splat(A, in); break;
    case IR_BROADCAST: r = rule_broadcast(A, in); break;
    case IR_EXPAND_DIMS: r = rule_expand_dims(A, in); break;
    case IR_TRANS: r = rule_trans(A, in); break;
    case IR_EXTRACT: r = rule_extract(A, in); break;
    case IR_CONVERT_LAYOUT:
    case IR_DESC_TILE: r = A->ai[in->args[0]]; break;
    case IR_MULTIPLE_OF:
    case IR_MAX_CONTIGUOUS:
    case IR_MAX_CONSTANCY: r = rule_hint(A, in); break;
    case IR_CAST:
    case IR_BITCAST: r = rule_cast(A, in); break;
    case IR_CMP: r = rule_cmp(A, in); break;
    case IR_SELECT: r = rule_select(A, in); break;
    case IR_ADDPTR: r = rule_add(A, in); break;
    case IR_ADD:
    case IR_SUB: r = intlike(t) ? rule_add(A, in) : elementwise(A, in); break;
    case IR_MUL: r = intlike(t) ? rule_mul(A, in) : elementwise(A, in); break;
    case IR_DIV: r = intlike(t) ? rule_div(A, in) : elementwise(A, in); break;
    case IR_REM: r = intlike(t) ? rule_rem(A, in) : elementwise(A, in); break;
    case IR_SHL:
    case IR_SHR: r = rule_shift(A, in); break;
    case IR_AND:
    case IR_OR:
    case IR_XOR: r = rule_bitwise(A, in); break;
    case IR_MIN:
    case IR_MAX: r = intlike(t) ? rule_minmax(A, in) : elementwise(A, in); break;
    default:
        /* Other elementwise ops (math, neg, not, ...) keep constancy only;
         * loads, reductions, dots and ids know nothing. */
        r = ir_ops[in->op].flags & OPF_ELEM ? elementwise(A, in) : pessimistic(t);
        break;
    }
    set(A, res, r);
}

static void visit_block(Axis *A, Block *b) {
    for (int i = 0; b && i < b->ninsts; i++)
        visit(A, b->insts[i]);
}

/* Parameters: `:16` promises a multiple of 16 (a pointer: a 16-byte aligned
 * address), `:1` the value 1. */
static void seed_params(Axis *A) {
    for (int i = 0; i < A->f->nparams; i++) {
        const Param *p = &A->f->params[i];
        ValueId v = i + 1;
        Type t = type_of(A, v);
        AxisInfo a = pessimistic(t);
        if (intlike(t) && p->equal_to_1)
            a = constant(t, 1);
        else if (intlike(t) && p->divisibility > 1)
            a.divisibility[0] = pow2_div(p->divisibility);
        set(A, v, a);
    }
}

/* The constant an operand holds, if it is a scalar CONST. */
static bool const_int(const Function *f, ValueId v, int64_t *out) {
    const Inst *d = f->values[v].def;
    if (!d || d->op != IR_CONST || f->values[v].type.rank || !intlike(f->values[v].type))
        return false;
    *out = d->attr.i;
    return true;
}

/* tl.assume(x % c == 0) or tl.assume((x & (c - 1)) == 0) in the function's
 * own body (not under an if or a loop, so every run reaches it): x is a
 * multiple of c's largest power-of-two divisor wherever x is used, since x
 * is one SSA value. Other conditions (x > 0) tell this analysis nothing. */
static void collect_assumes(Axis *A) {
    const Function *f = A->f;
    for (int i = 0; i < f->body->ninsts; i++) {
        const Inst *in = f->body->insts[i];
        const Inst *cmp = in->op == IR_ASSUME ? f->values[in->args[0]].def : NULL;
        if (!cmp || cmp->op != IR_CMP || cmp->attr.pred != CMP_EQ)
            continue;
        int64_t z, c;
        for (int side = 0; side < 2; side++) {
            const Inst *op = f->values[cmp->args[side]].def;
            if (!const_int(f, cmp->args[!side], &z) || z != 0 || !op || op->nargs != 2 ||
                !const_int(f, op->args[1], &c) || c <= 0 || f->values[op->args[0]].type.rank)
                continue;
            int64_t d = 0;
            if (op->op == IR_REM)
                d = pow2_div(c);
            else if (op->op == IR_AND && ((uint64_t)c & ((uint64_t)c + 1)) == 0) /* c = 2^k - 1 */
                d = c + 1;
            if (d > 1) {
                if (!A->assumed) {
                    A->assumed = arena_alloc(f->arena, sizeof(int64_t) * (size_t)f->nvalues);
                    A->proven = arena_alloc(f->arena, sizeof(int64_t) * (size_t)f->nvalues);
                }
                if (A->assumed && A->proven)
                    A->assumed[op->args[0]] = max64(A->assumed[op->args[0]], min64(d, MAX_DIV));
            }
        }
    }
}

AxisInfo *axis_analyze(Function *f) {
    Axis A = {f, arena_alloc(f->arena, sizeof(AxisInfo) * (size_t)f->nvalues), NULL, NULL};
    if (!A.ai)
        return NULL;
    collect_assumes(&A);
    for (ValueId v = 1; v < f->nvalues; v++)
        A.ai[v] = pessimistic(f->values[v].type);
    seed_params(&A);
    visit_block(&A, f->body);
    return A.ai;
}
