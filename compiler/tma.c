/* tma.c: TMA for plain pointer tiles (the `tma` pass), which no peer does:
 * Triton gives TMA only to kernels rewritten with tensor descriptors.
 *
 * Requires: laid-out, verified IR (after the layout pass, before pipeline),
 *           sm_90a, and a function marked auto_tma (the C API's default;
 *           tlc's --auto-tma on).
 * Ensures:  a 2-D fp16 / bf16 / e4m3 / e5m2 load (wgmma's ring types) at the top level of a `for` body that
 *           feeds a dot (load -> convert_layout -> dot, or load -> trans ->
 *           convert_layout -> dot B), with no `other` or a zero one, whose
 *           pointers the pass proves to be, for each element (i, j) of its
 *           [BM, BK] tile,
 *               ptr(i, j)  = base + (r + i) * S + (c + j)
 *           (base a pointer parameter whose address is a multiple of 16; S an
 *           integer parameter that is a multiple of 16 bytes; BM <= 256), and
 *           each of whose axes is one of
 *             - masked: the mask's terms on it are exactly `r + i < R` (R an
 *               integer parameter or a constant), and `r + i >= 0` or none;
 *             - unmasked: no term; its extent is TMA_UNBOUNDED, so the box
 *               reads every address the pointers form (seed 000's kernel);
 *             - wrapped: the index is `(r + i) % R` (tutorial 03 as
 *               written) or `where(r + i < R, r + i, 0)` (tutorial 09's
 *               matmul) and no term; its extent is R, so where r + i >= R
 *               TMA reads zeros and the pointers rows from the top, which is
 *               correct when nothing made from those rows is kept
 *               (wrap_dropped: they reach only stores whose masks drop them);
 *           and whose start r (or c) is >= 0: proved, stated by a `>= 0`
 *           term, or implied by the other axis starting at 0 in the loop's
 *           first iteration (starts_at_zero), reads through desc_tile(ptrs,
 *           %map, r, c). %map is a new tensor-map parameter {tensormap =
 *           true, tma = [base, R, C, S], box = [BM, BK]} that the launch
 *           encodes from the kernel's own arguments (runtime/gpu.c).
 *           desc_tile is the identity on its pointers, so the IR means what
 *           it meant; the pipeliner may then fill the load's ring by TMA,
 *           whose zero fill outside [R, C] is the mask and the zero `other`.
 *           tma_prune (the pass after the pipeliner) takes back each such
 *           desc_tile it did not use, and the parameter with it. A load the
 *           pass cannot prove keeps its pointers and cp.async.
 *           Where the base is not a parameter but a pointer the kernel
 *           computes, the same before and in every iteration of the loop
 *           (tutorial 08's pointer kernel loads each problem's A and B, and
 *           their row strides), with its stride an integer of the same kind
 *           or a parameter, and the user's multiple_of hint on the pointers
 *           making base and stride multiples of 16 bytes (kernel_map_ok),
 *           the map is one the kernel makes: a tensormap_create put before
 *           the loop (make_map) of the base, the bounds (the masks' bounds,
 *           if they are computed before the loop, else INT32_MAX) and the
 *           stride, as a 2-D tl.make_tensor_descriptor's (sema_desc.c), so
 *           no proof that needs the launch to check a parameter is taken
 *           for it.
 *
 * How: each integer or pointer value the address and the mask are made of
 * gets an affine form v(i, j) = [ptr +] s + i*k0 + j*k1, where s, k0, k1 are
 * polynomials of degree <= 2 over scalar atoms (parameters, program ids, loop
 * indices, opaque scalars such as a division's result); a scalar that is not
 * a sum of products of atoms is an atom itself. A value the loop carries and
 * advances by a loop-invariant step (`ptrs += BK * stride`) is its initial
 * form plus trip * step, trip = (iv - lb) / step of the loop. The tile's row
 * start r is the terms of s that hold S, divided by S; the column start c is
 * the rest. r, c >= 0 is proved from program ids, loop indices and integer
 * parameters taken as >= 0 (tutorial 03's grouped order divides by
 * cdiv(N, BN)): each such parameter is marked {nonneg = true}, and a launch
 * where one is negative runs the variant without maps (runtime/api.c), as
 * does one whose bounds or stride TMA cannot take. Like Triton's own
 * analyses, integer offsets are taken not to wrap, and a load not to read
 * before its tensor (what makes starts_at_zero's rule hold: tutorial 03's
 * column start pid_n * BN divides by a group size only a grid no larger than
 * the tiles keeps positive). */
#include "passes.h"

#include <stdlib.h>
#include <string.h>

#include "arch.h"
#include "layout.h"

/* TMA_UNBOUNDED: the extent of an unmasked axis: TMA's coordinates are
 * int32, so no coordinate the kernel forms reaches past it. */
enum { MAXT = 12, MAXC = 8, MAX_MAPS = 8, TMA_UNBOUNDED = INT32_MAX };

/* c * x * y for atoms x <= y (0: none; a negative atom -v is the trip count
 * of the loop whose induction variable is v). */
typedef struct Term {
    int x, y;
    int64_t c;
} Term;

typedef struct Poly {
    Term t[MAXT];
    int n;
} Poly;

/* An index that wraps: along axis `axis - 1` the form's index is really
 * (start + idx) % mod, which equals start + idx where 0 <= start + idx < mod
 * (tutorial 03's `(pid_m * BM + arange) % M`). */
typedef struct Wrap {
    int axis; /* 0: none */
    Poly start, mod;
} Wrap;

typedef struct Form {
    bool ok;
    ValueId ptr; /* a pointer's base: a parameter, or a scalar pointer the kernel computes; else 0 */
    Poly s, k[2];
    Wrap w;
} Form;

/* One term of a mask: dir * idx[axis] + e < 0. */
typedef struct Cons {
    int axis, dir;
    Poly e;
} Cons;

typedef struct Tma {
    Function *f;
    int n0;          /* values the pass saw: the tables cover these */
    Form **memo;     /* per value: its form, once computed */
    Block **home;    /* per value: the block defining it */
    Block **blocks, **ups; /* each block below the body, and the block enclosing it */
    int nblocks, capblocks;
    ValueId *trail;  /* values memoised while a carried value's form is provisional */
    int ntrail, prov;
    ValueId assumed[MAXC]; /* integer parameters the proof of the current load took as >= 0 */
    int nassumed;
    const AxisInfo *axis; /* the user's multiple_of hints among what it holds (kernel maps' alignment) */
} Tma;

/* A load the pass proved, and what its map and coordinates are. */
typedef struct Proof {
    Inst *load;
    Block *body;
    ValueId base, stride;
    ValueId assumed[MAXC]; /* parameters the proof needs >= 0 */
    int nassumed;
    Poly r, c;
    int32_t dims[2][3]; /* rows, cols: a product of parameters' values or -constants (0: none) */
    Wrap wrap;       /* a wrapped axis, read as a box bounded by its modulus */
    ValueId above1;  /* a parameter the proof needs >= 2 (starts_at_zero on a wrapped axis) */
    bool kmap;       /* a map the kernel makes before the loop (base or stride computed in the kernel) */
    bool bounded[2]; /* kmap: rows, cols masked by bound[d] (else unbounded) */
    Poly bound[2];
    Block *outer;    /* the block holding the loop */
} Proof;

/* ---- polynomials ---- */

static Term term(int a, int b, int64_t c) {
    return a <= b ? (Term){a, b, c} : (Term){b, a, c};
}

static int cmp_term(const Term *a, const Term *b) { return a->x != b->x ? (a->x < b->x ? -1 : 1) : (a->y > b->y) - (a->y < b->y); }

/* Add c * t into p, keeping it sorted and without zero terms. */
static bool poly_put(Poly *p, Term t) {
    if (!t.c)
        return true;
    int i = 0;
    while (i < p->n && cmp_term(&p->t[i], &t) < 0)
        i++;
    if (i < p->n && !cmp_term(&p->t[i], &t)) {
        p->t[i].c += t.c;
        if (!p->t[i].c) {
            memmove(&p->t[i], &p->t[i + 1], sizeof(Term) * (size_t)(p->n - i - 1));
            p->n--;
        }
        return true;
    }
    if (p->n == MAXT)
        return false;
    memmove(&p->t[i + 1], &p->t[i], sizeof(Term) * (size_t)(p->n - i));
    p->t[i] = t;
    p->n++;
    return true;
}

static Poly poly_const(int64_t c) {
    Poly p = {0};
    poly_put(&p, term(0, 0, c));
    return p;
}

static Poly poly_atom(int a) {
    Poly p = {0};
    poly_put(&p, term(0, a, 1));
    return p;
}

static bool poly_add(Poly *out, const Poly *a, const Poly *b, int64_t sign) {
    Poly r = *a;
    for (int i = 0; i < b->n; i++)
        if (!poly_put(&r, term(b->t[i].x, b->t[i].y, sign * b->t[i].c)))
            return false;
    *out = r;
    return true;
}

static int degree(const Term *t) { return (t->x != 0) + (t->y != 0); }

static bool poly_mul(Poly *out, const Poly *a, const Poly *b) {
    Poly r = {0};
    for (int i = 0; i < a->n; i++)
        for (int j = 0; j < b->n; j++) {
            const Term *p = &a->t[i], *q = &b->t[j];
            if (degree(p) + degree(q) > 2)
                return false;
            int at[4] = {p->x, p->y, q->x, q->y}, x = 0, y = 0;
            for (int k = 0; k < 4; k++)
                if (at[k] && !x)
                    x = at[k];
                else if (at[k])
                    y = at[k];
            if (!poly_put(&r, term(x, y, p->c * q->c)))
                return false;
        }
    *out = r;
    return true;
}

static bool poly_is_const(const Poly *p, int64_t *c) {
    if (p->n > 1 || (p->n == 1 && degree(&p->t[0])))
        return false;
    *c = p->n ? p->t[0].c : 0;
    return true;
}

static bool poly_eq(const Poly *a, const Poly *b) {
    Poly d;
    return poly_add(&d, a, b, -1) && d.n == 0;
}

static bool wrap_eq(const Wrap *a, const Wrap *b) {
    return a->axis == b->axis && (!a->axis || (poly_eq(&a->start, &b->start) && poly_eq(&a->mod, &b->mod)));
}

static bool poly_has(const Poly *p, int a) {
    for (int i = 0; i < p->n; i++)
        if (p->t[i].x == a || p->t[i].y == a)
            return true;
    return false;
}

/* ---- forms ---- */

static Form *eval(Tma *T, ValueId v);

static Type vt(const Tma *T, ValueId v) { return T->f->values[v].type; }

static bool is_int(DType d) { return d == DT_I32 || d == DT_I64; }

static bool is_param(const Tma *T, ValueId v) { return v >= 1 && v <= T->f->nparams; }

/* The loop whose body is b, if it is a `for`'s. */
static Inst *for_of(const Block *b) { return b && b->parent && b->parent->op == IR_FOR ? b->parent : NULL; }

/* The block enclosing b (NULL for the body). */
static Block *block_up(const Tma *T, const Block *b) {
    for (int i = 0; i < T->nblocks; i++)
        if (T->blocks[i] == b)
            return T->ups[i];
    return NULL;
}

/* Is atom a defined outside loop L (the same in every iteration)? */
static bool invariant(const Tma *T, int a, const Inst *L) {
    ValueId v = a < 0 ? -a : a;
    for (Block *b = v < T->n0 ? T->home[v] : NULL; b; b = block_up(T, b))
        if (b == L->regions[0])
            return false;
    return true;
}

/* The trip-count atom of loop L: its induction variable when it counts 0, 1, 2, ... */
static int trip_atom(const Tma *T, const Inst *L) {
    ValueId iv = L->regions[0]->args[0];
    const Inst *lb = T->f->values[L->args[0]].def, *st = T->f->values[L->args[2]].def;
    bool plain = lb && lb->op == IR_CONST && lb->attr.i == 0 && st && st->op == IR_CONST && st->attr.i == 1;
    return plain ? iv : -iv;
}

static void form_zero_units(Tma *T, ValueId v, Form *F) {
    Type t = vt(T, v);
    for (int d = 0; d < 2; d++)
        if (d >= t.rank || t.shape[d] == 1)
            F->k[d].n = 0; /* an index that is always 0 has no coefficient */
}

/* The form of a value the loop L carries (body argument v, carried slot k):
 * its initial form, advanced by a loop-invariant step each iteration. */
static Form carried(Tma *T, ValueId v, const Inst *L, int k) {
    Form r = {0};
    Block *B = L->regions[0];
    const Inst *y = B->ninsts ? B->insts[B->ninsts - 1] : NULL;
    if (!y || y->op != IR_YIELD || k >= y->nargs || 3 + k >= L->nargs)
        return r;
    Form init = *eval(T, L->args[3 + k]);
    if (!init.ok)
        return r;
    /* provisionally v = its initial form with s an atom of its own */
    Form *pv = T->memo[v];
    *pv = init;
    pv->s = poly_atom(v);
    int mark = T->ntrail;
    T->prov++;
    Form next = *eval(T, y->args[k]);
    T->prov--;
    for (int i = mark; i < T->ntrail; i++) { /* forms that saw the provisional one go */
        free(T->memo[T->trail[i]]);
        T->memo[T->trail[i]] = NULL;
    }
    T->ntrail = mark;
    Poly step;
    if (!next.ok || next.ptr != init.ptr || !poly_eq(&next.k[0], &init.k[0]) || !poly_eq(&next.k[1], &init.k[1]) ||
        !wrap_eq(&next.w, &init.w) ||
        !poly_add(&step, &next.s, &pv->s, -1) || poly_has(&step, v))
        return r;
    for (int i = 0; i < step.n; i++)
        if ((step.t[i].x && !invariant(T, step.t[i].x, L)) || (step.t[i].y && !invariant(T, step.t[i].y, L)))
            return r;
    Poly trip = poly_atom(trip_atom(T, L)), adv;
    if (!poly_mul(&adv, &trip, &step) || !poly_add(&init.s, &init.s, &adv, 1))
        return r;
    return init;
}

/* x (an index along one axis, start + i) read modulo R (the same
 * everywhere): *r is x's form with the wrap, or stays as it is when x or R
 * is not of that shape. */
static void wrapped(const Form *x, const Form *R, Form *r) {
    int64_t one = 0;
    int d = x->k[0].n ? 0 : 1;
    if (x->ok && R->ok && !x->ptr && !R->ptr && !x->w.axis && !R->w.axis && !R->k[0].n && !R->k[1].n &&
        !x->k[1 - d].n && poly_is_const(&x->k[d], &one) && one == 1) {
        *r = *x;
        r->w = (Wrap){.axis = d + 1, .start = x->s, .mod = R->s};
    }
}

/* The form of v, from its definition. */
static Form compute(Tma *T, ValueId v) {
    Function *f = T->f;
    Type t = vt(T, v);
    Form r = {0};
    bool scalar = t.rank == 0, ints = is_int(t.dtype);
    if (t.rank > 2 || (!ints && t.dtype != DT_PTR))
        return r;
    if (is_param(T, v)) {
        const Param *p = &f->params[v - 1];
        if (t.dtype == DT_PTR)
            r.ptr = v;
        else
            r.s = p->equal_to_1 ? poly_const(1) : poly_atom(v);
        r.ok = !p->tensormap;
        return r;
    }
    const Inst *in = f->values[v].def;
    if (!in) { /* a block argument */
        Block *b = f->values[v].block;
        Inst *L = for_of(b);
        if (!L || !b->nargs)
            return r;
        if (b->args[0] == v) { /* the induction variable */
            r.s = poly_atom(v);
            r.ok = true;
            return r;
        }
        for (int k = 1; k < b->nargs && !r.ok; k++)
            if (b->args[k] == v)
                r = carried(T, v, L, k - 1);
        /* a scalar the loop sets otherwise (a flattened loop's tile start,
         * chosen by an `if` once a tile) is an atom, as any scalar */
        if (!r.ok && scalar && ints)
            r = (Form){.ok = true, .s = poly_atom(v)};
        return r;
    }
    const Form *a = in->nargs > 0 && in->args[0] < T->n0 ? eval(T, in->args[0]) : NULL;
    const Form *b = in->nargs > 1 && in->args[1] < T->n0 ? eval(T, in->args[1]) : NULL;
    switch (in->op) {
    case IR_CONST:
        if (ints) {
            r.s = poly_const(in->attr.i);
            r.ok = true;
        }
        break;
    case IR_SPLAT:
        if (a && a->ok) {
            r.ptr = a->ptr, r.s = a->s;
            r.ok = true;
        }
        break;
    case IR_ARANGE:
        r.s = poly_const(in->attr.start);
        r.k[0] = poly_const(1);
        r.ok = true;
        break;
    case IR_EXPAND_DIMS: /* a 1-D form's index moves to the new rank's axis */
        if (a && a->ok && vt(T, in->args[0]).rank == 1) {
            r = *a;
            r.k[0] = in->attr.axis == 0 ? (Poly){0} : a->k[0];
            r.k[1] = in->attr.axis == 0 ? a->k[0] : (Poly){0};
            if (a->w.axis)
                r.w.axis = in->attr.axis == 0 ? 2 : 1;
        }
        break;
    case IR_DESC_TILE: /* a tile of a map the kernel makes: a map the launch encodes costs it nothing */
        if (!ir_kernel_map(T->f, in->args[1]))
            break;
        /* fall through */
    case IR_BROADCAST: case IR_CONVERT_LAYOUT: case IR_MULTIPLE_OF: case IR_MAX_CONTIGUOUS: case IR_MAX_CONSTANCY:
        if (a && a->ok)
            r = *a;
        break;
    case IR_CAST: /* widening an integer keeps its value (no wrap: the file comment) */
        if (a && a->ok && ints && is_int(vt(T, in->args[0]).dtype) &&
            dt_bits(vt(T, in->args[0]).dtype) <= dt_bits(t.dtype))
            r = *a;
        break;
    case IR_ADD: case IR_SUB: case IR_ADDPTR:
        if (a && b && a->ok && b->ok && !b->ptr && (in->op == IR_ADDPTR) == (a->ptr != 0) &&
            !(a->w.axis && b->w.axis) && !(in->op == IR_SUB && b->w.axis)) {
            int64_t sg = in->op == IR_SUB ? -1 : 1;
            r.ptr = a->ptr;
            r.w = a->w.axis ? a->w : b->w;
            r.ok = poly_add(&r.s, &a->s, &b->s, sg) && poly_add(&r.k[0], &a->k[0], &b->k[0], sg) &&
                   poly_add(&r.k[1], &a->k[1], &b->k[1], sg);
        }
        break;
    case IR_MUL: /* one side the same everywhere: it scales the other */
        if (a && b && a->ok && b->ok && !a->ptr && !b->ptr) {
            const Form *u = !a->k[0].n && !a->k[1].n ? a : b, *o = u == a ? b : a;
            r.w = o->w;
            if (!u->k[0].n && !u->k[1].n && !u->w.axis)
                r.ok = poly_mul(&r.s, &u->s, &o->s) && poly_mul(&r.k[0], &u->s, &o->k[0]) &&
                       poly_mul(&r.k[1], &u->s, &o->k[1]);
        }
        break;
    case IR_REM: /* (start + idx) % mod along one axis: the form without the %, and the wrap */
        if (a && b)
            wrapped(a, b, &r);
        break;
    case IR_SELECT: { /* where(x < R, x, 0): x clamped, read as a wrap as x % R is */
        const Inst *c = f->values[in->args[0]].def;
        const Form *z = eval(T, in->args[2]);
        int64_t zero = 1;
        if (c && c->op == IR_CMP && c->attr.pred == CMP_LT && c->args[0] == in->args[1] && z->ok && !z->ptr &&
            !z->k[0].n && !z->k[1].n && poly_is_const(&z->s, &zero) && zero == 0)
            wrapped(eval(T, in->args[1]), eval(T, c->args[1]), &r);
        break;
    }
    default:
        break;
    }
    if (!r.ok && scalar && ints) { /* any other integer scalar is an atom */
        r = (Form){.ok = true, .s = poly_atom(v)};
    }
    if (!r.ok && scalar && t.dtype == DT_PTR && in) /* a pointer the kernel computes (loads): a base */
        r = (Form){.ok = true, .ptr = v};
    return r;
}

static Form *eval(Tma *T, ValueId v) {
    static Form bad;
    if (v <= 0 || v >= T->n0)
        return &bad;
    if (T->memo[v])
        return T->memo[v]; /* (a cycle meets a form not yet ok) */
    Form *F = calloc(1, sizeof *F);
    if (!F)
        return &bad;
    T->memo[v] = F;
    if (T->prov)
        T->trail[T->ntrail++] = v;
    Form r = compute(T, v);
    form_zero_units(T, v, &r);
    *T->memo[v] = r; /* (carried() may have replaced nothing: memo[v] is still F) */
    return T->memo[v];
}

/* ---- the mask ---- */

/* Is every value of atom a >= 0? */
static bool nonneg_atom(Tma *T, int a, int depth);

static bool nonneg_poly(Tma *T, const Poly *p, int depth) {
    for (int i = 0; i < p->n; i++)
        if (p->t[i].c < 0 || (p->t[i].x && !nonneg_atom(T, p->t[i].x, depth)) ||
            (p->t[i].y && !nonneg_atom(T, p->t[i].y, depth)))
            return false;
    return true;
}

static bool nonneg_value(Tma *T, ValueId v, int depth) {
    const Form *F = eval(T, v);
    if (!F->ok || F->ptr || F->k[0].n || F->k[1].n)
        return false;
    if (F->s.n == 1 && F->s.t[0].x == 0 && F->s.t[0].y == v && F->s.t[0].c == 1)
        return nonneg_atom(T, v, depth); /* v is an atom itself */
    return nonneg_poly(T, &F->s, depth);
}

static bool nonneg_atom(Tma *T, int a, int depth) {
    if (a < 0)
        return true; /* a trip count */
    if (depth > 16)
        return false;
    if (is_param(T, a)) { /* an integer parameter: taken >= 0, which the launch checks (Param.nonneg) */
        if (T->nassumed < MAXC && !T->f->params[a - 1].tensormap)
            T->assumed[T->nassumed++] = a;
        return T->nassumed <= MAXC && !T->f->params[a - 1].tensormap;
    }
    const Inst *in = T->f->values[a].def;
    if (!in) { /* an induction variable: from lb >= 0 by a positive step */
        Inst *L = for_of(T->f->values[a].block);
        const Inst *st = L ? T->f->values[L->args[2]].def : NULL;
        return L && L->regions[0]->args[0] == a && st && st->op == IR_CONST && st->attr.i > 0 &&
               nonneg_value(T, L->args[0], depth + 1);
    }
    switch (in->op) {
    case IR_PROGRAM_ID: case IR_NUM_PROGRAMS: return true;
    case IR_REM: return nonneg_value(T, in->args[0], depth + 1); /* the dividend's sign */
    case IR_DIV: case IR_MIN:
        return nonneg_value(T, in->args[0], depth + 1) && nonneg_value(T, in->args[1], depth + 1);
    case IR_MAX: return nonneg_value(T, in->args[0], depth + 1) || nonneg_value(T, in->args[1], depth + 1);
    default: return false;
    }
}

/* The terms of mask m (rank `rank`): each `dir * idx[axis] + e < 0`. */
static bool mask_terms(Tma *T, ValueId m, Cons *cs, int *n) {
    const Inst *in = m < T->n0 ? T->f->values[m].def : NULL;
    if (!in)
        return false;
    switch (in->op) {
    case IR_AND: return mask_terms(T, in->args[0], cs, n) && mask_terms(T, in->args[1], cs, n);
    case IR_BROADCAST: case IR_CONVERT_LAYOUT: return mask_terms(T, in->args[0], cs, n);
    case IR_EXPAND_DIMS: {
        int first = *n;
        if (vt(T, in->args[0]).rank != 1 || !mask_terms(T, in->args[0], cs, n))
            return false;
        for (int i = first; i < *n; i++)
            cs[i].axis = in->attr.axis == 0 ? 1 : 0;
        return true;
    }
    case IR_SPLAT: {
        const Inst *c = T->f->values[in->args[0]].def;
        return c && c->op == IR_CONST && c->attr.i != 0; /* all true */
    }
    case IR_CMP: {
        if (!is_int(vt(T, in->args[0]).dtype) || *n == MAXC)
            return false;
        const Form *a = eval(T, in->args[0]), *b = eval(T, in->args[1]);
        if (!a->ok || !b->ok || a->ptr || b->ptr || a->w.axis || b->w.axis)
            return false;
        /* a < b: a - b < 0; a <= b: a - b - 1 < 0; a > b, a >= b: the same with b - a */
        int p = in->attr.pred;
        if (p != CMP_LT && p != CMP_LE && p != CMP_GT && p != CMP_GE)
            return false;
        const Form *x = p == CMP_LT || p == CMP_LE ? a : b, *y = x == a ? b : a;
        Form e;
        Poly one = poly_const(p == CMP_LE || p == CMP_GE ? 1 : 0);
        if (!poly_add(&e.s, &x->s, &y->s, -1) || !poly_add(&e.s, &e.s, &one, -1) ||
            !poly_add(&e.k[0], &x->k[0], &y->k[0], -1) || !poly_add(&e.k[1], &x->k[1], &y->k[1], -1))
            return false;
        int64_t c0 = 0, c1 = 0;
        if (!poly_is_const(&e.k[0], &c0) || !poly_is_const(&e.k[1], &c1) || (c0 != 0) == (c1 != 0) ||
            (c0 + c1 != 1 && c0 + c1 != -1))
            return false; /* one index, with coefficient +-1 */
        cs[(*n)++] = (Cons){.axis = c0 ? 0 : 1, .dir = (int)(c0 + c1), .e = e.s};
        return true;
    }
    default: return false;
    }
}

/* The factors of scalar v the launch can read into out[*n..] (at most 3):
 * integer parameters, constants >= 1 (as -c), and products of those
 * (attention's rows, Z * H * N_CTX). */
static bool factors(const Tma *T, ValueId v, int32_t *out, int *n) {
    if (*n == 3 || v <= 0 || v >= T->n0 || vt(T, v).rank)
        return false;
    if (is_param(T, v)) {
        const Param *p = &T->f->params[v - 1];
        if (!is_int(p->type.dtype) || p->tensormap)
            return false;
        out[(*n)++] = p->equal_to_1 ? -1 : v;
        return true;
    }
    const Inst *in = T->f->values[v].def;
    if (in && in->op == IR_CONST && is_int(vt(T, v).dtype) && in->attr.i >= 1 && in->attr.i <= INT32_MAX) {
        out[(*n)++] = (int32_t)-in->attr.i;
        return true;
    }
    if (in && in->op == IR_MUL && is_int(vt(T, v).dtype))
        return factors(T, in->args[0], out, n) && factors(T, in->args[1], out, n);
    if (in && in->op == IR_CAST && is_int(vt(T, v).dtype) && is_int(vt(T, in->args[0]).dtype) &&
        dt_bits(vt(T, in->args[0]).dtype) <= dt_bits(vt(T, v).dtype))
        return factors(T, in->args[0], out, n);
    return false;
}

/* A bound (R or C) the launch can read into out[3]: a constant >= 1, or one
 * product term of parameters (or atoms that are such products). */
static bool launch_value(const Tma *T, const Poly *p, int32_t out[3]) {
    int64_t c;
    out[0] = out[1] = out[2] = 0;
    if (poly_is_const(p, &c)) {
        if (c < 1 || c > INT32_MAX)
            return false;
        out[0] = (int32_t)-c;
        return true;
    }
    int n = 0;
    if (p->n != 1 || p->t[0].c < 1 || p->t[0].c > INT32_MAX)
        return false;
    if (p->t[0].c > 1)
        out[n++] = (int32_t)-p->t[0].c;
    return (!p->t[0].x || factors(T, p->t[0].x, out, &n)) && factors(T, p->t[0].y, out, &n);
}

/* ---- which loads ---- */

/* ld's only use is a convert into a dot operand, or a trans then such a convert (B). */
static bool feeds_dot(const Block *B, const Inst *ld, const int *uses) {
    ValueId v = ld->results[0];
    for (int hop = 0; hop < 3; hop++) {
        if (uses[v] != 1)
            return false;
        const Inst *u = NULL;
        for (int i = 0; i < B->ninsts && !u; i++)
            for (int k = 0; k < B->insts[i]->nargs; k++)
                if (B->insts[i]->args[k] == v)
                    u = B->insts[i];
        if (!u)
            return false;
        if (u->op == IR_DOT)
            return hop > 0 && u->args[2] != v;
        if ((u->op != IR_CONVERT_LAYOUT && u->op != IR_TRANS) || (u->op == IR_TRANS && hop))
            return false;
        v = u->results[0];
    }
    return false;
}

/* Split s at the row stride: a parameter S (the terms holding S, divided by
 * it, are the row start) or, S 0, the constant sc (the terms whose
 * coefficients sc divides: the address is the same however the split falls,
 * and the mask's bounds, computed from these starts, must still come out
 * launch values). */
static bool split_rows(const Poly *s, int S, int64_t sc, Poly *r, Poly *c) {
    *r = (Poly){0}, *c = (Poly){0};
    for (int i = 0; i < s->n; i++) {
        Term t = s->t[i];
        bool row = sc ? t.c % sc == 0 : t.x == S || t.y == S;
        if (row)
            t = sc ? term(t.x, t.y, t.c / sc) : term(0, t.x == S ? t.y : t.x, t.c);
        if (!poly_put(row ? r : c, t))
            return false;
    }
    return sc || (!poly_has(r, S) && !poly_has(c, S));
}

/* Is p zero in loop L's first iteration (each of its terms a multiple of L's
 * trip count)? Then a tile whose other start is p and whose start is
 * negative reads before its base there, which no load may: element (0, 0)
 * is read (unmasked, or masked by upper bounds the launch makes >= 1) at a
 * negative offset; a wrapped axis reads (start + i) % R, negative for i = 0
 * or 1 when R > 1 (C's remainder keeps the dividend's sign). */
static bool starts_at_zero(const Tma *T, const Poly *p, const Inst *L) {
    int a = L ? trip_atom(T, L) : 0;
    for (int i = 0; i < p->n; i++)
        if (!a || (p->t[i].x != a && p->t[i].y != a))
            return false;
    return true;
}

/* A map the kernel makes (tensormap_create before the loop), where the
 * tile's base is a pointer the kernel computes (tutorial 08's pointer kernel
 * loads it, per problem), not a parameter the launch can encode a map from:
 * the base a pointer to the load's elements and the stride an integer (or a
 * constant), both the same in every iteration of the loop, and both
 * multiples of 16 bytes, which the axis analysis knows only from the user's
 * multiple_of hint on the pointers (each row's first address a multiple of
 * 16 bytes, so the stride's bytes are, and with a column start of such
 * multiples, chunk_poly, the base): what the vector loads rely on too. */
static bool kernel_map_ok(Tma *T, const Inst *ld, const Inst *L, ValueId base, int S, int64_t sc) {
    Type bt = vt(T, base);
    if (!T->axis || !L || bt.rank || bt.pointee != vt(T, ld->results[0]).dtype || !invariant(T, base, L))
        return false;
    if (!sc && (S <= 0 || !is_int(vt(T, S).dtype) || vt(T, S).rank || !invariant(T, S, L)))
        return false;
    return T->axis[ld->args[0]].divisibility[0] >= 16;
}

/* Is every term of p a multiple of 16 bytes of eb-byte elements? */
static bool chunk_poly(const Poly *p, int eb) {
    for (int i = 0; i < p->n; i++)
        if ((p->t[i].c * eb) % 16)
            return false;
    return true;
}

/* A bound a kernel map reads, computed before loop L: atoms the same in
 * every iteration, none of them a trip count. */
static bool kernel_value(const Tma *T, const Poly *p, const Inst *L) {
    for (int i = 0; i < p->n; i++) {
        const int at[2] = {p->t[i].x, p->t[i].y};
        for (int k = 0; k < 2; k++)
            if (at[k] && (at[k] < 0 || !invariant(T, at[k], L)))
                return false;
    }
    return p->n > 0;
}

/* Load ld of loop body B: is its tile a TMA box of a row-major tensor? */
static bool prove(Tma *T, Block *B, Inst *ld, Proof *pf) {
    Function *f = T->f;
    Type t = vt(T, ld->results[0]);
    int eb = dt_bits(t.dtype) / 8; /* the types of wgmma's rings: 16-bit and fp8 */
    bool ring = t.dtype == DT_F16 || t.dtype == DT_BF16 || dt_is_nv_fp8(t.dtype);
    if (t.rank != 2 || !ring || t.shape[0] > 256 || !arch_tma_swizzle(eb, t.shape[1]) ||
        (ld->nargs > 2 && !ir_is_zero(f, ld->args[2])))
        return false;
    /* the loop's carried values first: a pointer the loop advances through
     * the load's own (a multiple_of of it: tutorial 08's hint) would meet
     * the load's form in the making */
    for (int k = 1; k < B->nargs; k++)
        eval(T, B->args[k]);
    const Form *P = eval(T, ld->args[0]);
    int64_t one = 0;
    int64_t sc = 0; /* a constant row stride (attention's HEAD_DIM) */
    if (!P->ok || !P->ptr || !poly_is_const(&P->k[1], &one) || one != 1 || P->k[0].n != 1 ||
        (!poly_is_const(&P->k[0], &sc) && (P->k[0].t[0].x || P->k[0].t[0].c != 1)))
        return false;
    int S = sc ? 0 : P->k[0].t[0].y;
    bool kmap = !is_param(T, P->ptr); /* (a parameter's tile with a computed stride keeps cp.async) */
    if (sc && (sc < 1 || sc > INT32_MAX))
        return false;
    if (kmap ? !kernel_map_ok(T, ld, for_of(B), P->ptr, S, sc)
             : f->params[P->ptr - 1].divisibility % 16 ||
                   (sc ? (sc * eb) % 16
                       : !is_param(T, S) || f->params[S - 1].equal_to_1 || f->params[S - 1].tensormap ||
                             (f->params[S - 1].divisibility * eb) % 16))
        return false; /* a base and a row stride TMA takes: multiples of 16 bytes */
    *pf = (Proof){.load = ld, .body = B, .base = P->ptr, .stride = sc ? (int32_t)-sc : S, .kmap = kmap};
    if (!split_rows(&P->s, S, sc, &pf->r, &pf->c) || (kmap && !chunk_poly(&pf->c, eb)))
        return false;
    Cons cs[MAXC];
    int n = 0;
    if (ld->nargs > 1 && !mask_terms(T, ld->args[1], cs, &n))
        return false;
    for (int d = 0; d < 2; d++) {
        const Poly *start = d ? &pf->c : &pf->r, *other = d ? &pf->r : &pf->c;
        Poly bound = {0};
        bool upper = false, lower = false, wrapped = P->w.axis == d + 1;
        for (int i = 0; i < n; i++) {
            if (cs[i].axis != d)
                continue;
            Poly q;
            if (cs[i].dir > 0) { /* start + idx < start - e */
                if (!poly_add(&q, start, &cs[i].e, -1) || (upper && !poly_eq(&q, &bound)))
                    return false;
                bound = q, upper = true;
            } else { /* start + idx >= start + e + 1, which must be 0 */
                Poly e1 = cs[i].e, one1 = poly_const(1);
                if (!poly_add(&q, start, &e1, 1) || !poly_add(&q, &q, &one1, 1) || q.n)
                    return false;
                lower = true;
            }
        }
        T->nassumed = 0;
        if (wrapped) { /* (start + idx) % mod: the box [0, mod), if what it reads past mod is never kept */
            if (kmap || upper || !poly_eq(&P->w.start, start) || !launch_value(T, &P->w.mod, pf->dims[d]))
                return false;
            pf->wrap = P->w;
        } else if (!upper) { /* unmasked: every address the pointers form, as TMA forms them */
            pf->dims[d][0] = -TMA_UNBOUNDED;
        } else if (kmap) { /* the kernel computes the bound before the loop */
            if (!kernel_value(T, &bound, for_of(B)))
                return false;
            pf->bounded[d] = true, pf->bound[d] = bound;
        } else if (!launch_value(T, &bound, pf->dims[d])) {
            return false;
        }
        if (!lower && !nonneg_poly(T, start, 0)) {
            T->nassumed = 0; /* (what the failed proof took) */
            int64_t mod = 2;
            if (!starts_at_zero(T, other, for_of(B)) || (wrapped && poly_is_const(&P->w.mod, &mod) && mod < 2))
                return false;
            if (wrapped && (pf->dims[d][1] || pf->dims[d][2]))
                return false; /* (one parameter the launch checks >= 2, not a product) */
            if (wrapped && pf->dims[d][0] > 0)
                pf->above1 = pf->dims[d][0];
        }
        for (int i = 0; i < T->nassumed && pf->nassumed < MAXC; i++)
            pf->assumed[pf->nassumed++] = T->assumed[i];
    }
    return !kmap || (!pf->nassumed && !pf->above1); /* no launch checks what a kernel map takes */
}

/* ---- wrapped axes: what the kernel keeps of them ---- */

/* Through TMA a wrapped axis reads zeros where start + idx >= mod, where the
 * pointers read wrapped rows: a different tile, which is correct if no value
 * made from those rows reaches memory. Tutorial 03's A rows go into the dot's
 * rows and out through a store masked by `offs_cm < M`: each value derived
 * from the load carries the axes (bit 0 rows, bit 1 columns) along which it
 * may differ, through elementwise ops, layouts, transposes, a dot's M and N
 * axes (never its K axis: that sums into every element), loop-carried and
 * `if` values, into stores whose masks drop start + idx >= mod on each of
 * them. Anything else (a reduction, a reshape, an atomic, an address, a
 * branch condition) refuses the proof. */
typedef struct Taint {
    Tma *T;
    const Wrap *w;
    uint8_t *axes; /* per value */
} Taint;

static bool taint(Taint *D, ValueId v, int axes);

/* Does store st's mask drop, along each of the axes, start + idx >= mod? */
static bool store_drops(Taint *D, const Inst *st, int axes) {
    Cons cs[MAXC];
    int n = 0;
    Poly want;
    if (st->nargs < 3 || !mask_terms(D->T, st->args[2], cs, &n) || !poly_add(&want, &D->w->start, &D->w->mod, -1))
        return false;
    for (int a = 0; a < 2; a++) {
        bool ok = !(axes >> a & 1);
        for (int i = 0; i < n && !ok; i++)
            ok = cs[i].axis == a && cs[i].dir > 0 && poly_eq(&cs[i].e, &want);
        if (!ok)
            return false;
    }
    return true;
}

static bool same_tile(const Tma *T, ValueId a, ValueId b) {
    Type x = vt(T, a), y = vt(T, b);
    return x.rank == 2 && y.rank == 2 && x.shape[0] == y.shape[0] && x.shape[1] == y.shape[1];
}

/* Use u (in block b) of v, which differs along `axes`. */
static bool taint_use(Taint *D, Block *b, Inst *u, ValueId v, int axes) {
    const Tma *T = D->T;
    Inst *P = b->parent;
    switch (u->op) {
    case IR_DOT: {
        int out = 0;
        for (int k = 0; k < 3; k++)
            if (u->args[k] == v) {
                if ((k == 0 && (axes & 2)) || (k == 1 && (axes & 1)))
                    return false;
                out |= axes;
            }
        return taint(D, u->results[0], out);
    }
    case IR_TRANS:
        return vt(T, v).rank == 2 && u->attr.perm[0] == 1 && taint(D, u->results[0], (axes & 1) << 1 | axes >> 1);
    case IR_YIELD:
        for (int k = 0; k < u->nargs; k++)
            if (u->args[k] == v) {
                if (!P || (P->op != IR_FOR && P->op != IR_IF) || k >= P->nresults ||
                    !taint(D, P->results[k], axes) || (P->op == IR_FOR && !taint(D, b->args[k + 1], axes)))
                    return false;
            }
        return true;
    case IR_FOR:
        for (int k = 0; k < u->nargs; k++)
            if (u->args[k] == v && (k < 3 || !taint(D, u->results[k - 3], axes) ||
                                    !taint(D, u->regions[0]->args[k - 2], axes)))
                return false;
        return true;
    case IR_STORE:
        return u->args[0] != v && (u->nargs < 3 || u->args[2] != v) && store_drops(D, u, axes);
    case IR_CMP: case IR_SELECT: case IR_CAST: case IR_BITCAST: case IR_CONVERT_LAYOUT: case IR_EXTERN:
        break;
    default:
        if (!(ir_ops[u->op].flags & OPF_ELEM))
            return false;
    }
    return u->nresults == 1 && same_tile(T, v, u->results[0]) && taint(D, u->results[0], axes);
}

static bool taint_block(Taint *D, Block *b, ValueId v, int axes) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int k = 0; k < in->nargs; k++)
            if (in->args[k] == v) {
                if (!taint_use(D, b, in, v, axes))
                    return false;
                break;
            }
        for (int r = 0; r < in->nregions; r++)
            if (!taint_block(D, in->regions[r], v, axes))
                return false;
    }
    return true;
}

static bool taint(Taint *D, ValueId v, int axes) {
    if (v <= 0 || v >= D->T->n0)
        return false;
    if ((D->axes[v] | axes) == D->axes[v])
        return true;
    D->axes[v] |= (uint8_t)axes;
    return taint_block(D, D->T->f->body, v, D->axes[v]);
}

/* Is what pf's wrapped axis reads past its modulus never kept? */
static bool wrap_dropped(Tma *T, const Proof *pf) {
    Taint D = {T, &pf->wrap, calloc((size_t)T->n0, 1)};
    bool ok = D.axes && taint(&D, pf->load->results[0], 1 << (pf->wrap.axis - 1));
    free(D.axes);
    return ok;
}

/* ---- the rewrite ---- */

typedef struct Emit {
    Function *f;
    Block *b;
    int at;
    Span sp;
} Emit;

static ValueId emit(Emit *e, OpCode op, const ValueId *args, int n, Type t) {
    return ir_inst_at(e->f, e->b, &e->at, op, args, n, &t, 1, e->sp)->results[0];
}

static ValueId emit_i32(Emit *e, int64_t c) {
    ValueId v = emit(e, IR_CONST, NULL, 0, ir_scalar(DT_I32));
    e->f->values[v].def->attr.i = c;
    return v;
}

/* Atom a as an i32 scalar. */
static ValueId emit_atom(Emit *e, int a) {
    Function *f = e->f;
    ValueId v = a < 0 ? -a : a;
    Type t = f->values[v].type;
    if (a < 0) { /* the trip count (iv - lb) / step */
        const Inst *L = f->values[v].block->parent;
        v = emit(e, IR_SUB, (ValueId[]){v, L->args[0]}, 2, t);
        v = emit(e, IR_DIV, (ValueId[]){v, L->args[2]}, 2, t);
    }
    return t.dtype == DT_I32 ? v : emit(e, IR_CAST, &v, 1, ir_scalar(DT_I32));
}

static ValueId emit_poly(Emit *e, const Poly *p) {
    ValueId sum = 0;
    Type i32 = ir_scalar(DT_I32);
    for (int i = 0; i < p->n; i++) {
        const Term *t = &p->t[i];
        ValueId v = 0;
        if (t->x)
            v = emit_atom(e, t->x);
        if (t->y) {
            ValueId y = emit_atom(e, t->y);
            v = v ? emit(e, IR_MUL, (ValueId[]){v, y}, 2, i32) : y;
        }
        if (!v || t->c != 1) {
            ValueId c = emit_i32(e, t->c);
            v = v ? emit(e, IR_MUL, (ValueId[]){v, c}, 2, i32) : c;
        }
        sum = sum ? emit(e, IR_ADD, (ValueId[]){sum, v}, 2, i32) : v;
    }
    return sum ? sum : emit_i32(e, 0);
}

static void shift_poly(Poly *p, int nparams) {
    for (int i = 0; i < p->n; i++) {
        int *at[2] = {&p->t[i].x, &p->t[i].y};
        for (int k = 0; k < 2; k++)
            if (*at[k])
                *at[k] = *at[k] < 0 ? -ir_param_shift(-*at[k], nparams) : ir_param_shift(*at[k], nparams);
    }
}

static void note_blocks(Tma *T, Block *b, Block *up) {
    for (int i = 0; b && i < b->nargs; i++)
        T->home[b->args[i]] = b;
    if (up) {
        if (T->nblocks == T->capblocks) {
            int cap = T->capblocks ? 2 * T->capblocks : 16;
            Block **nb = realloc(T->blocks, sizeof *nb * (size_t)cap), **nu = nb ? realloc(T->ups, sizeof *nu * (size_t)cap) : NULL;
            if (nb)
                T->blocks = nb;
            if (!nb || !nu)
                return;
            T->ups = nu, T->capblocks = cap;
        }
        T->blocks[T->nblocks] = b, T->ups[T->nblocks++] = up;
    }
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int k = 0; k < in->nresults; k++)
            T->home[in->results[k]] = b;
        for (int r = 0; r < in->nregions; r++)
            note_blocks(T, in->regions[r], b);
    }
}

/* A kernel map's tensormap_create, put before its loop: the base, the bounds
 * (INT32_MAX where unmasked), the row stride in elements, the tile's box. */
static ValueId make_map(Function *f, const Proof *pf) {
    Inst *L = pf->body->parent;
    Emit e = {f, pf->outer, 0, L->span};
    while (e.b->insts[e.at] != L)
        e.at++;
    ValueId dims[2];
    for (int d = 0; d < 2; d++)
        dims[d] = pf->bounded[d] ? emit_poly(&e, &pf->bound[d]) : emit_i32(&e, TMA_UNBOUNDED);
    ValueId stride;
    if (pf->stride < 0) {
        stride = emit(&e, IR_CONST, NULL, 0, ir_scalar(DT_I64));
        f->values[stride].def->attr.i = -(int64_t)pf->stride;
    } else {
        stride = pf->stride;
        if (f->values[stride].type.dtype != DT_I64)
            stride = emit(&e, IR_CAST, &stride, 1, ir_scalar(DT_I64));
    }
    ValueId m = emit(&e, IR_TMAP_CREATE, (ValueId[]){pf->base, dims[0], dims[1], stride}, 4, ir_scalar(DT_I64));
    Inst *in = f->values[m].def;
    Type lt = f->values[pf->load->results[0]].type;
    in->attr.vals[0] = lt.shape[0], in->attr.vals[1] = lt.shape[1];
    in->attr.offset = -1;
    return m;
}

/* The loads of each `for` body that feed a dot, proved. */
static void find(Tma *T, Block *b, const int *uses, Proof *ps, int *n) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            find(T, in->regions[r], uses, ps, n);
        if (in->op != IR_FOR)
            continue;
        Block *B = in->regions[0];
        for (int j = 0; B && j < B->ninsts && *n < MAX_MAPS; j++) {
            Inst *ld = B->insts[j];
            if (ld->op == IR_LOAD && ld->nresults == 1 && feeds_dot(B, ld, uses) && prove(T, B, ld, &ps[*n]) &&
                (!ps[*n].wrap.axis || wrap_dropped(T, &ps[*n]))) {
                ps[*n].outer = b;
                (*n)++;
            }
        }
    }
}

bool tma_pass(Diag *d, Function *f, bool wgmma) {
    if (!wgmma || !f->auto_tma || f->nlayouts <= 1)
        return true;
    Tma T = {.f = f, .n0 = f->nvalues};
    T.memo = calloc((size_t)T.n0, sizeof *T.memo);
    T.home = calloc((size_t)T.n0, sizeof *T.home);
    T.trail = calloc((size_t)T.n0, sizeof *T.trail);
    int *uses = calloc((size_t)T.n0, sizeof *uses);
    Proof ps[MAX_MAPS];
    int n = 0;
    bool ok = T.memo && T.home && T.trail && uses;
    if (ok) {
        note_blocks(&T, f->body, NULL);
        ir_count_uses(f->body, uses);
        T.axis = axis_analyze(f);
        find(&T, f->body, uses, ps, &n);
    } else {
        diag_internal(d, "tma: out of memory");
    }
    for (int v = 0; T.memo && v < T.n0; v++)
        free(T.memo[v]);
    free(T.memo), free(T.home), free(T.trail), free(uses), free(T.blocks), free(T.ups);
    /* one map parameter per proved load the launch encodes (value ids move:
     * shift what we hold) */
    ValueId maps[MAX_MAPS];
    for (int i = 0; i < n; i++) {
        if (ps[i].kmap)
            continue;
        int np = f->nparams;
        maps[i] = ir_param_late(f, arena_printf(f->arena, "%s_tma", f->params[ps[i].base - 1].name), ir_scalar(DT_I64));
        Param *p = &f->params[f->nparams - 1];
        Type lt = f->values[ps[i].load->results[0]].type;
        p->tensormap = true;
        p->tma.base = ps[i].base, p->tma.stride = ps[i].stride;
        memcpy(p->tma.dim, ps[i].dims, sizeof p->tma.dim);
        p->tma.box[0] = lt.shape[0], p->tma.box[1] = lt.shape[1];
        for (int k = 0; k < ps[i].nassumed; k++)
            f->params[ps[i].assumed[k] - 1].nonneg = true;
        if (ps[i].above1)
            f->params[ps[i].above1 - 1].above1 = true;
        for (int j = 0; j < n; j++) {
            shift_poly(&ps[j].r, np);
            shift_poly(&ps[j].c, np);
            maps[j] = j < i && !ps[j].kmap ? ir_param_shift(maps[j], np) : maps[j];
            if (ps[j].kmap) { /* what its map is made of */
                ps[j].base = ir_param_shift(ps[j].base, np);
                ps[j].stride = ps[j].stride > 0 ? ir_param_shift(ps[j].stride, np) : ps[j].stride;
                shift_poly(&ps[j].bound[0], np);
                shift_poly(&ps[j].bound[1], np);
            }
        }
    }
    for (int i = 0; i < n; i++)
        if (ps[i].kmap)
            maps[i] = make_map(f, &ps[i]);
    for (int i = 0; i < n; i++) {
        Inst *ld = ps[i].load;
        Block *B = ps[i].body;
        int at = 0;
        while (B->insts[at] != ld)
            at++;
        Emit e = {f, B, at, ld->span};
        ValueId r = emit_poly(&e, &ps[i].r), c = emit_poly(&e, &ps[i].c), ptrs = ld->args[0];
        ValueId tile = emit(&e, IR_DESC_TILE, (ValueId[]){ptrs, maps[i], r, c}, 4, f->values[ptrs].type);
        f->values[tile].layout = f->values[ptrs].layout;
        ld->args[0] = tile;
    }
    return ok;
}

/* What the pipeliner left of the tma pass and of the maps the kernel makes:
 * a desc_tile it did not read through TMA is its pointers again, and a map
 * nothing reads goes. */
static void prune_tiles(Function *f, Block *b) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            prune_tiles(f, in->regions[r]);
        if (in->op == IR_DESC_TILE && (ir_kernel_map(f, in->args[1]) || f->params[in->args[1] - 1].tma.base)) {
            ir_replace_uses(f->body, in->results[0], in->args[0]);
            ir_remove_inst(b, in);
            i--;
        }
    }
}

/* The maps the kernel makes that TMA reads keep a 128-byte place each in
 * the program's global scratch (in order); the others go. */
static int place_maps(Function *f, Block *b, const int *uses, int at) {
    for (int i = 0; b && i < b->ninsts; i++) {
        Inst *in = b->insts[i];
        for (int r = 0; r < in->nregions; r++)
            at = place_maps(f, in->regions[r], uses, at);
        if (in->op != IR_TMAP_CREATE)
            continue;
        if (!uses[in->results[0]]) {
            ir_remove_inst(b, in);
            i--;
        } else {
            in->attr.offset = at;
            at += 128;
        }
    }
    return at;
}

void tma_prune(Function *f) {
    bool any = false;
    for (int i = 0; i < f->nparams; i++)
        any |= f->params[i].tma.base != 0;
    prune_tiles(f, f->body);
    int *uses = calloc((size_t)f->nvalues, sizeof *uses);
    if (!uses)
        return; /* the maps stay: still correct */
    ir_count_uses(f->body, uses);
    int scratch = place_maps(f, f->body, uses, 0);
    int left = 0;
    for (int i = f->nparams - 1; i >= 0 && any; i--) {
        if (f->params[i].tma.base && !uses[i + 1])
            ir_param_remove(f, i);
        else
            left += f->params[i].tma.base != 0;
    }
    for (int i = 0; i < f->nparams && any && !left; i++)
        f->params[i].nonneg = f->params[i].above1 = false; /* no map, no launch-time condition */
    free(uses);
    if (scratch && !f->global_scratch) { /* the launch's global scratch, behind the last parameter */
        ir_param_late(f, "global_scratch", ir_ptr(DT_I8));
        f->params[f->nparams - 1].scratch = true;
        f->global_scratch = scratch;
    }
}
