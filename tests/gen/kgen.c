/* kgen.c: a generator-driven differential test of the whole language.
 *
 * From a seed it builds a random well-typed kernel as a DAG of nodes (loads
 * of 0-D, 1-D and 2-D blocks with masks, data-dependent masks and `other`,
 * ranges, runtime scalars, Python literals, elementwise arithmetic, shifts
 * and bitwise ops with Triton's promotion over int32/fp32/fp16, comparisons,
 * `tl.where`, casts, `[:, None]` expansion, implicit and explicit
 * broadcasting, `tl.trans`, sum/max/min/argmax/argmin/xor_sum and `tl.reduce`
 * over an axis, with keep_dims or over everything, `tl.cumsum` and
 * `tl.associative_scan` (also reversed), `tl.sort`, small `tl.dot`s (fp32 "ieee" and
 * fp16 into fp32, with acc=), loops carrying a value, K loops of dots over
 * masked loads as in a matmul; block sizes, num_warps and the stored dtype
 * at random), prints it as a .tl kernel, runs it through libtl at ragged
 * sizes and checks every output element (and a guard zone past the end)
 * against the same DAG evaluated here in C, program by program, lane by lane.
 *
 * The evaluation carries, for each lane, a value computed as the reference
 * rounds it (fp16 through ex_f2h/ex_h2f after each op, fp32 through float),
 * an absolute error bound and a "bad" flag. The bound grows by what a
 * correct implementation may do differently (FMA contraction, another
 * summation order, an approximate `/`, a different rounding of an inexact
 * intermediate); a lane whose value is not determined (a masked load without
 * `other`, a comparison whose operands' bounds overlap, a division by an
 * interval holding 0, an fp16 overflow) is bad and not compared. So integer
 * results and exact float results must match exactly, and no comparison
 * flips on a rounding difference.
 *
 * Modes (tests/gen.sh runs the first two in `make test`, tests/gpu.sh the
 * GPU one, `make fuzz-gen` the long run):
 *   kgen [--seed S] [--count N]   N kernels from seed S in the interpreter,
 *        [--tlc P [--ptxas P]]    each in a child process; with --tlc, tlc compiles
 *                                 each to PTX and must not fail (exit 4 above all),
 *                                 and with --ptxas ptxas must accept that PTX
 *   kgen --seconds T [--out DIR]  random seeds until T seconds pass; each failure
 *                                 is reduced and written to DIR (seed in the name)
 *   kgen --file F.tl ...          regression kernels (tests/gen/NAME.tl): their
 *                                 "# kgen" header lines are the DAG; the text
 *                                 below must be what the DAG prints
 *   kgen --gpu [...]              the same kernels on the GPU against the interpreter
 *                                 (--gpu-sim: that path with a second interpreter)
 *   kgen --print KSEED            print the kernel of one kernel seed
 *   kgen --maxnreg N ...          every kernel under that register cap (the sink pass)
 *   kgen --no-fork ...            everything in one process, for a debugger
 * Prints "[PASS] gen/..." / "[FAIL] gen/...: why" lines; exits 0 if all pass. */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "tl.h"

/* ------------------------------------------------------------ the DAG */

enum { G_I1, G_I32, G_F16, G_F32 };
static const char *const dt_tl[] = {"tl.int1", "tl.int32", "tl.float16", "tl.float32"};
static const char *const dt_sig[] = {"i1", "i32", "fp16", "fp32"};
static const TlDType dt_api[] = {TL_I8, TL_I32, TL_F16, TL_F32};

/* Axes of a block: M and N are tiled by the program ids (pid 0 and 1), K is
 * one tile from 0. A 1-D kernel uses N only, tiled by pid 0. */
enum { AX_1, AX_M, AX_N, AX_K, NAX };
static const char *const ax_range[] = {"", "rm", "rn", "rk"};
static const char *const ax_size[] = {"1", "M", "N", "K"};

typedef struct Shape {
    int rank, d[2];
} Shape;

enum {
    N_LOAD,   /* of input `input`: rank 0 (element `lit`), 1 or 2; mask cond `c` (-1: none); other: has_other */
    N_RANGE,  /* rm / rn / rk (int32) */
    N_SARG,   /* op 0: s (i32), 1: alpha (f32) */
    N_LIT,    /* a Python number (inlined): dt G_I32 or G_F32, value lit */
    N_BIN,    /* op: BIN_* on a, b */
    N_CMP,    /* op: CMP_* on a, b */
    N_NEG, N_ABS,
    N_CAST,   /* a.to(dt) */
    N_WHERE,  /* where(c, a, b) */
    N_EXP0,   /* a[None, :] */
    N_EXP1,   /* a[:, None] */
    N_BCAST,  /* broadcast_to(a, shape) */
    N_TRANS,
    N_RED,    /* op: RED_*, axis */
    N_CUMSUM, /* along axis; op: bit 0 reverse, op >> 1: SCAN_* */
    N_DOT,    /* a @ b (+ c when c >= 0: acc=) */
    N_LOOP,   /* t = a; for i in range(lit): t = t op b (+ i when axis); or in chunks of 4 */
    N_SORT,   /* tl.sort along the last dim; op: descending */
    N_KDOT,   /* matmul over K: t = a; for i in range(cdiv(K, BK)): t = dot(load A, load B, t);
                 inputs `input` (sh[0] x K) and input + 1 (K x sh[1]) of dtype op, `other` */
    N_KINDS
};
static const char *const kind_name[] = {"load", "range", "sarg", "lit", "bin", "cmp", "neg", "abs", "cast",
                                        "where", "exp0", "exp1", "bcast", "trans", "red", "cumsum", "dot", "loop", "sort", "kdot"};
enum { B_ADD, B_SUB, B_MUL, B_DIV, B_FDIV, B_MOD, B_AND, B_OR, B_XOR, B_SHL, B_SHR, B_MAX, B_MIN, NBIN };
static const char *const bin_src[] = {"+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "tl.maximum", "tl.minimum"};
enum { C_LT, C_LE, C_GT, C_GE, C_EQ, C_NE };
static const char *const cmp_src[] = {"<", "<=", ">", ">=", "==", "!="};
/* N_RED's op: R_* | R_KEEP (keep_dims); R_FSUM / R_FMAX: tl.reduce with the
 * _kadd / _kmax combine functions of the file */
enum { R_SUM, R_MAX, R_MIN, R_ARGMAX, R_ARGMIN, R_XOR, R_FSUM, R_FMAX, R_KEEP = 8 };
static const char *const red_src[] = {"tl.sum", "tl.max", "tl.min", "tl.argmax", "tl.argmin", "tl.xor_sum", "_kadd",
                                      "_kmax"};
/* N_CUMSUM's op >> 1: tl.cumsum, tl.associative_scan with _kadd, with _kmax */
enum { SCAN_CUMSUM, SCAN_ADD, SCAN_MAX };
/* how lanes combine */
enum { CK_SUM, CK_MAX, CK_MIN, CK_ARGMAX, CK_ARGMIN, CK_XOR };
static int red_ck(int redop) {
    static const int ck[] = {CK_SUM, CK_MAX, CK_MIN, CK_ARGMAX, CK_ARGMIN, CK_XOR, CK_SUM, CK_MAX};
    return ck[redop & 7];
}

typedef struct Node {
    int kind, op, dt;
    Shape sh;
    int a, b, c; /* operands (node ids, -1: none) */
    int axis, input, has_other;
    double lit, other;
} Node;

#define MAXN 96
#define MAXIN 16
typedef struct Kernel {
    int form;       /* 1 or 2 dims of output */
    int bm, bn, bk; /* block sizes */
    int n;
    Node nodes[MAXN];
    int root, store_cond; /* the stored value; an extra store mask (-1: none) */
    int out_dt;           /* the output's element type (the store converts the root to it) */
    int num_warps;
    int ninputs;
    int in_dt[MAXIN];
    Shape in_sh[MAXIN];
} Kernel;

static int dims_of(const Kernel *k, int ax) {
    return ax == AX_M ? k->bm : ax == AX_N ? k->bn : ax == AX_K ? k->bk : 1;
}
static int numel(const Kernel *k, Shape s) {
    int n = 1;
    for (int i = 0; i < s.rank; i++)
        n *= dims_of(k, s.d[i]);
    return n;
}
static Shape sh0(void) { return (Shape){0, {0, 0}}; }
static Shape sh1(int a) { return (Shape){1, {a, 0}}; }
static Shape sh2(int a, int b) { return (Shape){2, {a, b}}; }
static int sh_eq(Shape x, Shape y) {
    return x.rank == y.rank && (x.rank < 1 || x.d[0] == y.d[0]) && (x.rank < 2 || x.d[1] == y.d[1]);
}
/* numpy broadcasting of two shapes (right-aligned); ok = 0 if they do not fit */
static Shape sh_bcast(Shape x, Shape y, int *ok) {
    Shape r = x.rank >= y.rank ? x : y;
    for (int i = 0; i < r.rank; i++) {
        int xi = x.rank - r.rank + i, yi = y.rank - r.rank + i;
        int dx = xi >= 0 ? x.d[xi] : AX_1, dy = yi >= 0 ? y.d[yi] : AX_1;
        if (dx != dy && dx != AX_1 && dy != AX_1)
            *ok = 0;
        r.d[i] = dx == AX_1 ? dy : dx;
    }
    return r;
}

/* ------------------------------------------------------------ random */

static uint64_t rng;
static uint64_t next_u64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int rnd(int n) { return (int)(next_u64() % (uint64_t)n); }
static int chance(int pct) { return rnd(100) < pct; }
static uint64_t mix(uint64_t a, uint64_t b) {
    uint64_t z = a * 0x9E3779B97F4A7C15ull + b + 0x632BE59BD9B4E019ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    return z ? z : 1;
}

/* ------------------------------------------------------------ typing */

static int is_fp(int dt) { return dt == G_F16 || dt == G_F32; }
/* semantic.computation_type_impl for our dtypes; a_lit / b_lit: a Python number */
static int promote(int a, int a_lit, int b, int b_lit, int divmod) {
    if (a_lit != b_lit) {
        int sc = a_lit ? a : b, te = a_lit ? b : a;
        int ksc = is_fp(sc) ? 2 : 1, kte = is_fp(te) ? 2 : te == G_I1 ? 0 : 1;
        if (ksc <= kte)
            return divmod && te == G_F16 ? G_F32 : te;
    }
    if (a == G_F32 || b == G_F32)
        return G_F32;
    if (a == G_F16 || b == G_F16)
        return divmod ? G_F32 : G_F16;
    if (a == G_I32 || b == G_I32)
        return G_I32;
    return G_I1;
}

/* Numbers the inputs in node order: a load reads one, a K loop of dots two. */
static void register_inputs(Kernel *k) {
    k->ninputs = 0;
    for (int i = 0; i < k->n; i++) {
        Node *n = &k->nodes[i];
        if (k->ninputs + (n->kind == N_KDOT ? 2 : 1) > MAXIN) /* never from the generator */
            break;
        if (n->kind == N_LOAD) {
            n->input = k->ninputs;
            k->in_dt[k->ninputs] = n->dt;
            k->in_sh[k->ninputs++] = n->sh;
        } else if (n->kind == N_KDOT) {
            n->input = k->ninputs;
            k->in_dt[k->ninputs] = k->in_dt[k->ninputs + 1] = n->op;
            k->in_sh[k->ninputs++] = (Shape){2, {n->sh.d[0], AX_K}};
            k->in_sh[k->ninputs++] = (Shape){2, {AX_K, n->sh.d[1]}};
        }
    }
}

/* ------------------------------------------------------------ the generator */

typedef struct Gen {
    Kernel *k;
    int budget;
} Gen;

static int add(Gen *g, Node n) {
    Kernel *k = g->k;
    if (k->n >= MAXN)
        return -1;
    k->nodes[k->n] = n;
    g->budget--;
    return k->n++;
}
static Node mk(int kind, int dt, Shape s) {
    Node n = {kind, 0, dt, s, -1, -1, -1, 0, -1, 0, 0, 0};
    return n;
}
static int dt_of(Gen *g, int id) { return g->k->nodes[id].dt; }
static Shape sh_of(Gen *g, int id) { return g->k->nodes[id].sh; }
static int is_lit(Gen *g, int id) { return g->k->nodes[id].kind == N_LIT; }

static int cast(Gen *g, int a, int dt) {
    if (dt_of(g, a) == dt)
        return a;
    Node n = mk(N_CAST, dt, sh_of(g, a));
    n.a = a;
    return add(g, n);
}
static int lit_int(Gen *g, int lo, int hi) {
    Node n = mk(N_LIT, G_I32, sh0());
    do
        n.lit = lo + rnd(hi - lo + 1);
    while (n.lit == 0);
    return add(g, n);
}
/* floats that fp16 holds exactly */
static double nice_float(void) {
    static const double v[] = {0.5, 1.5, 2.0, -0.75, 3.0, -1.25, 0.375, -2.5, 1.0, 4.0, -0.125, 0.625};
    return v[rnd(sizeof v / sizeof v[0])];
}
static int literal(Gen *g) {
    if (chance(50))
        return lit_int(g, -5, 7);
    Node n = mk(N_LIT, G_F32, sh0());
    n.lit = nice_float();
    return add(g, n);
}

static int gen(Gen *g, Shape s, int depth);
static int gen_bool(Gen *g, Shape s, int depth);

/* a reduction's op (axis=None: not argmax/argmin) */
static int pick_redop(int all) {
    for (;;) {
        int op = chance(50) ? rnd(3) : rnd(8);
        if (!all || (op != R_ARGMAX && op != R_ARGMIN))
            return op;
    }
}
/* its operand (xor_sum takes ints) and its result type */
static int red_operand(Gen *g, int a, int redop) {
    if (a >= 0 && (dt_of(g, a) == G_I1 || redop == R_XOR))
        a = cast(g, a, G_I32);
    return a;
}
static int red_dt(int redop, int dt) {
    redop &= 7;
    if (redop == R_ARGMAX || redop == R_ARGMIN)
        return G_I32;
    if ((redop == R_MAX || redop == R_MIN) && dt == G_F16) /* max/min of fp16 run in fp32 */
        return G_F32;
    return dt;
}

/* a node of shape s, or an earlier one */
static int reuse(Gen *g, Shape s) {
    Kernel *k = g->k;
    int cand[MAXN], nc = 0;
    for (int i = 0; i < k->n; i++)
        if (k->nodes[i].kind != N_LIT && sh_eq(k->nodes[i].sh, s) && k->nodes[i].dt != G_I1)
            cand[nc++] = i;
    return nc ? cand[rnd(nc)] : -1;
}

/* a node whose shape broadcasts to s (s itself, a lower rank, size-1 dims) */
static int gen_bcast(Gen *g, Shape s, int depth) {
    int r = rnd(10);
    if (s.rank == 2 && s.d[0] != AX_1 && s.d[1] != AX_1) {
        if (r == 0)
            return gen(g, sh2(s.d[0], AX_1), depth);
        if (r == 1)
            return gen(g, sh2(AX_1, s.d[1]), depth);
        if (r == 2)
            return gen(g, sh1(s.d[1]), depth); /* right-aligned */
    }
    if (s.rank >= 1 && (r == 3 || r == 4))
        return gen(g, sh0(), depth);
    return gen(g, s, depth);
}

static int leaf(Gen *g, Shape s) {
    Kernel *k = g->k;
    if (s.rank == 0 && chance(50)) {
        Node n = mk(N_SARG, G_I32, s);
        n.op = rnd(2);
        n.dt = n.op ? G_F32 : G_I32;
        return add(g, n);
    }
    if (s.rank == 1 && chance(20)) {
        Node n = mk(N_RANGE, G_I32, s);
        return add(g, n);
    }
    if (k->ninputs >= MAXIN || (s.rank == 2 && (s.d[0] == AX_1 || s.d[1] == AX_1))) {
        if (s.rank == 2) { /* a size-1 dim: expand a 1-D leaf */
            int one = s.d[0] == AX_1, full = s.d[0] != AX_1 && s.d[1] != AX_1;
            /* no input left for a full tile: the expanded leaf broadcast to it
             * (a loop's carried value or a dot's operand takes no smaller one) */
            Node n = mk(one ? N_EXP0 : N_EXP1, 0, full ? sh2(s.d[0], AX_1) : s);
            n.a = leaf(g, sh1(s.d[one ? 1 : 0]));
            if (n.a < 0)
                return -1;
            n.dt = dt_of(g, n.a);
            int e = add(g, n);
            if (!full || e < 0)
                return e;
            Node b = mk(N_BCAST, 0, s);
            b.a = e, b.dt = n.dt;
            return add(g, b);
        }
        if (s.rank == 1)
            return add(g, mk(N_RANGE, G_I32, s));
        Node n = mk(N_SARG, G_I32, sh0());
        n.op = rnd(2);
        n.dt = n.op ? G_F32 : G_I32;
        return add(g, n);
    }
    Node n = mk(N_LOAD, G_I32 + rnd(3), s);
    if (s.rank == 0) {
        n.lit = rnd(4);
    } else {
        n.has_other = !chance(15);
        n.other = n.dt == G_I32 ? (double)(rnd(9) - 4) : nice_float();
        if (chance(15) && g->budget > 4 && (n.c = gen_bool(g, s, 1)) < 0)
            return -1;
    }
    if (k->ninputs >= MAXIN)
        return -1;
    n.input = k->ninputs;
    k->in_dt[k->ninputs] = n.dt;
    k->in_sh[k->ninputs++] = s;
    return add(g, n);
}

static int gen_binary(Gen *g, Shape s, int depth) {
    int op = rnd(NBIN);
    int a = gen(g, s, depth - 1), b;
    if (a < 0)
        return -1;
    if (op == B_FDIV || op == B_MOD) {
        a = cast(g, a, G_I32);
        b = lit_int(g, -7, 7);
    } else if (op == B_SHL || op == B_SHR) {
        a = cast(g, a, G_I32);
        b = lit_int(g, 1, 31);
    } else {
        b = chance(25) ? literal(g) : gen_bcast(g, s, depth - 1);
    }
    if (b < 0)
        return -1;
    if (op == B_AND || op == B_OR || op == B_XOR) {
        a = cast(g, a, G_I32);
        if (is_lit(g, b))
            g->k->nodes[b].dt = G_I32, g->k->nodes[b].lit = (int)g->k->nodes[b].lit ? (int)g->k->nodes[b].lit : 3;
        else
            b = cast(g, b, G_I32);
    }
    if (dt_of(g, a) == G_I1)
        a = cast(g, a, G_I32);
    if (dt_of(g, b) == G_I1)
        b = cast(g, b, G_I32);
    if (chance(50) && !is_lit(g, b) && op != B_FDIV && op != B_MOD && op != B_SHL && op != B_SHR) { /* either order */
        int t = a;
        a = b, b = t;
    }
    Node n = mk(N_BIN, 0, s);
    n.op = op, n.a = a, n.b = b;
    /* tl.maximum / tl.minimum make tensors of Python numbers first (core._to_tensor):
     * a float literal is fp32 there, not the other operand's type */
    int weak = op != B_MAX && op != B_MIN;
    n.dt = promote(dt_of(g, a), weak && is_lit(g, a), dt_of(g, b), weak && is_lit(g, b),
                   op == B_DIV || op == B_FDIV || op == B_MOD);
    if (op == B_DIV)
        n.dt = G_F32;
    int ok = 1;
    n.sh = sh_bcast(sh_of(g, a), sh_of(g, b), &ok);
    return add(g, n);
}

static int gen_bool(Gen *g, Shape s, int depth) {
    if (depth > 0 && chance(20)) {
        Node n = mk(N_BIN, G_I1, s);
        n.op = B_AND + rnd(3);
        n.a = gen_bool(g, s, depth - 1);
        n.b = gen_bool(g, s, depth - 1);
        if (n.a < 0 || n.b < 0)
            return -1;
        int ok = 1;
        n.sh = sh_bcast(sh_of(g, n.a), sh_of(g, n.b), &ok);
        return add(g, n);
    }
    Node n = mk(N_CMP, G_I1, s);
    n.op = rnd(6);
    n.a = gen(g, s, depth - 1);
    if (n.a < 0)
        return -1;
    if (dt_of(g, n.a) == G_I1)
        n.a = cast(g, n.a, G_I32);
    n.b = chance(40) ? literal(g) : gen_bcast(g, s, depth - 1);
    if (n.b < 0)
        return -1;
    if (dt_of(g, n.b) == G_I1)
        n.b = cast(g, n.b, G_I32);
    int ok = 1;
    n.sh = sh_bcast(sh_of(g, n.a), sh_of(g, n.b), &ok);
    return add(g, n);
}

/* a node of exactly shape s */
static int gen(Gen *g, Shape s, int depth) {
    Kernel *k = g->k;
    if (k->n >= MAXN - 12)
        return -1;
    if (chance(12)) {
        int r = reuse(g, s);
        if (r >= 0)
            return r;
    }
    if (depth <= 0 || g->budget <= 0)
        return leaf(g, s);
    int two = k->form == 2;
    int dotok = two && k->bm >= 16 && k->bn >= 16 && k->bk >= 16;
    for (;;) {
        int r = rnd(100);
        if (s.rank == 2 && (s.d[0] == AX_1 || s.d[1] == AX_1) && two && r < 25 && s.d[0] != s.d[1]) {
            /* keep_dims: reduce the size-1 dim of a tile */
            int one = s.d[0] == AX_1;
            Node n = mk(N_RED, 0, s);
            n.op = pick_redop(0) | R_KEEP;
            n.axis = one ? 0 : 1;
            int other = AX_M + rnd(3);
            n.a = red_operand(g, gen(g, one ? sh2(other, s.d[1]) : sh2(s.d[0], other), depth - 1), n.op & 7);
            if (n.a < 0)
                return -1;
            n.dt = red_dt(n.op, dt_of(g, n.a));
            return add(g, n);
        }
        if (s.rank == 2 && (s.d[0] == AX_1 || s.d[1] == AX_1)) {
            int one = s.d[0] == AX_1;
            Node n = mk(one ? N_EXP0 : N_EXP1, 0, s);
            n.a = gen(g, sh1(s.d[one ? 1 : 0]), depth - 1);
            if (n.a < 0)
                return -1;
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        if (r < 30)
            return gen_binary(g, s, depth);
        if (r < 38) { /* where */
            Node n = mk(N_WHERE, 0, s);
            n.c = gen_bool(g, chance(70) ? s : s.rank == 2 && chance(66) ? sh1(s.d[1]) : sh0(), depth - 1);
            n.a = gen(g, s, depth - 1);
            n.b = chance(30) ? literal(g) : gen_bcast(g, s, depth - 1);
            if (n.a < 0 || n.b < 0 || n.c < 0)
                return -1;
            if (dt_of(g, n.a) == G_I1)
                n.a = cast(g, n.a, G_I32);
            if (dt_of(g, n.b) == G_I1)
                n.b = cast(g, n.b, G_I32);
            if (chance(50) && !is_lit(g, n.b)) {
                int t = n.a;
                n.a = n.b, n.b = t;
            }
            n.dt = promote(dt_of(g, n.a), is_lit(g, n.a), dt_of(g, n.b), is_lit(g, n.b), 0);
            int ok = 1;
            n.sh = sh_bcast(sh_bcast(sh_of(g, n.a), sh_of(g, n.b), &ok), sh_of(g, n.c), &ok);
            return add(g, n);
        }
        if (r < 44) { /* unary */
            Node n = mk(chance(50) ? N_NEG : N_ABS, 0, s);
            n.a = gen(g, s, depth - 1);
            if (n.a < 0)
                return -1;
            if (dt_of(g, n.a) == G_I1)
                n.a = cast(g, n.a, G_I32);
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        if (r < 52) { /* cast */
            int a = gen(g, s, depth - 1);
            if (a < 0)
                return -1;
            int to = G_I32 + rnd(3);
            if (to == dt_of(g, a))
                to = to == G_F32 ? G_F16 : G_F32;
            return cast(g, a, to);
        }
        if (r < 58 && s.rank >= 1 && chance(20)) { /* sort */
            Node n = mk(N_SORT, 0, s);
            n.op = chance(50);
            n.a = gen(g, s, depth - 1);
            if (n.a < 0)
                return -1;
            if (dt_of(g, n.a) == G_I1)
                n.a = cast(g, n.a, G_I32);
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        if (r < 58 && s.rank >= 1) { /* cumsum, associative_scan */
            Node n = mk(N_CUMSUM, 0, s);
            n.axis = rnd(s.rank);
            n.op = chance(25) | (chance(50) ? 0 : 1 + rnd(2)) << 1;
            n.a = gen(g, s, depth - 1);
            if (n.a < 0)
                return -1;
            if (dt_of(g, n.a) == G_I1)
                n.a = cast(g, n.a, G_I32);
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        int red_here = s.rank == 0 ? chance(35) : s.rank == 1 && two && chance(15);
        if ((red_here || (r >= 58 && r < 70)) && (s.rank < 2 ? (two || s.rank == 0) : 0)) { /* reduce one more dim */
            Node n = mk(N_RED, 0, s);
            int other = two ? AX_M + rnd(3) : AX_N;
            Shape in;
            if (s.rank == 0 && two && chance(40)) {
                in = sh2(other, AX_M + rnd(3));
                n.axis = 2; /* axis=None */
            } else if (s.rank == 0) {
                in = sh1(two ? other : AX_N);
                n.axis = 0;
            } else {
                n.axis = rnd(2);
                in = n.axis == 0 ? sh2(other, s.d[0]) : sh2(s.d[0], other);
            }
            n.op = pick_redop(n.axis == 2);
            n.a = red_operand(g, gen(g, in, depth - 1), n.op);
            if (n.a < 0)
                return -1;
            n.dt = red_dt(n.op, dt_of(g, n.a));
            return add(g, n);
        }
        if (r >= 70 && r < 76 && s.rank == 2) { /* trans */
            Node n = mk(N_TRANS, 0, s);
            n.a = gen(g, sh2(s.d[1], s.d[0]), depth - 1);
            if (n.a < 0)
                return -1;
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        if (r >= 76 && r < 80 && s.rank == 2) { /* broadcast_to */
            Node n = mk(N_BCAST, 0, s);
            n.a = gen(g, chance(50) ? sh2(s.d[0], AX_1) : sh2(AX_1, s.d[1]), depth - 1);
            if (n.a < 0)
                return -1;
            n.dt = dt_of(g, n.a);
            return add(g, n);
        }
        if (r >= 80 && r < 88 && s.rank == 2 && dotok) {
            Node n = mk(N_DOT, G_F32, s);
            int inner = AX_M + rnd(3), fp = chance(50) ? G_F16 : G_F32;
            n.a = gen(g, sh2(s.d[0], inner), depth - 1);
            n.b = n.a < 0 ? -1 : gen(g, sh2(inner, s.d[1]), depth - 1);
            if (n.a < 0 || n.b < 0)
                return -1;
            n.a = cast(g, n.a, fp);
            n.b = cast(g, n.b, fp);
            if (n.a < 0 || n.b < 0)
                return -1;
            if (chance(30)) { /* acc= */
                n.c = gen(g, s, depth - 1);
                if (n.c < 0 || (n.c = cast(g, n.c, G_F32)) < 0)
                    return -1;
            }
            return add(g, n);
        }
        if (r >= 88 && r < 90 && s.rank == 2 && dotok && s.d[0] != AX_K && s.d[1] != AX_K && k->ninputs < MAXIN - 2) {
            Node n = mk(N_KDOT, G_F32, s);
            n.op = chance(50) ? G_F16 : G_F32;
            n.has_other = 1;
            n.other = chance(70) ? 0 : nice_float();
            n.a = gen(g, s, depth - 1);
            if (n.a < 0 || (n.a = cast(g, n.a, G_F32)) < 0 || k->ninputs > MAXIN - 2) /* n.a's loads took them */
                return -1;
            n.input = k->ninputs;
            k->ninputs += 2;
            return add(g, n);
        }
        if (r >= 90 && r < 93) { /* a loop carrying a value */
            Node n = mk(N_LOOP, 0, s);
            static const int ops[] = {B_ADD, B_SUB, B_MUL, B_MAX, B_MIN};
            n.op = ops[rnd(5)];
            n.lit = rnd(5);
            n.axis = chance(50);
            n.a = gen(g, s, depth - 1);
            n.b = n.a < 0 ? -1 : gen_bcast(g, s, depth - 1);
            if (n.a < 0 || n.b < 0)
                return -1;
            if (dt_of(g, n.a) == G_I1)
                n.a = cast(g, n.a, G_I32);
            n.dt = dt_of(g, n.a);
            if ((n.b = cast(g, n.b, n.dt)) < 0)
                return -1;
            return add(g, n);
        }
        if (r >= 93)
            return leaf(g, s);
    }
}

static void gen_kernel(Kernel *k, uint64_t seed) {
    memset(k, 0, sizeof *k);
    rng = mix(seed, 7);
    k->form = chance(40) ? 1 : 2;
    static const int b1[] = {1, 2, 8, 16, 32, 64, 128, 256, 1024};
    static const int b2[] = {2, 4, 8, 16, 16, 32, 32, 64};
    if (k->form == 1) {
        k->bn = b1[rnd(9)];
        k->bm = k->bk = 16;
    } else {
        do {
            k->bm = b2[rnd(8)], k->bn = b2[rnd(8)], k->bk = b2[rnd(8)];
        } while (k->bm * k->bn > 4096 || k->bm * k->bk > 4096 || k->bk * k->bn > 4096);
    }
    Gen g = {k, 6 + rnd(22)};
    Shape out = k->form == 2 ? sh2(AX_M, AX_N) : sh1(AX_N);
    int depth = 2 + rnd(chance(20) ? 6 : 4);
    for (int tries = 0;; tries++) {
        k->n = k->ninputs = 0;
        g.budget = 6 + rnd(chance(20) ? 60 : 22);
        int r = gen(&g, out, depth);
        if (r >= 0 && chance(15) && k->n < MAXN - 20)
            gen(&g, out, 2); /* a dead value */
        if (r >= 0 && dt_of(&g, r) == G_I1)
            r = cast(&g, r, G_I32);
        k->store_cond = -1;
        if (r >= 0 && chance(15) && k->n < MAXN - 20)
            k->store_cond = gen_bool(&g, out, 1);
        if (r >= 0 && k->n < MAXN - 1) {
            register_inputs(k);
            k->root = r;
            k->out_dt = chance(25) ? G_I32 + rnd(3) : dt_of(&g, r);
            k->num_warps = 1 << rnd(4);
            /* at most 32 elements of a tile per thread: larger tiles need
             * more warps (else the GPU may refuse them for their registers) */
            int most = k->form == 1 ? k->bn : k->bm * k->bn;
            if (k->form == 2 && k->bm * k->bk > most)
                most = k->bm * k->bk;
            if (k->form == 2 && k->bk * k->bn > most)
                most = k->bk * k->bn;
            while (most > 1024 * k->num_warps && k->num_warps < 8)
                k->num_warps *= 2;
            return;
        }
    }
}

/* ------------------------------------------------------------ printing */

static char *name(const Kernel *k, int id, char *buf) {
    const Node *n = &k->nodes[id];
    if (n->kind != N_LIT) {
        sprintf(buf, "t%d", id);
        return buf;
    }
    char num[40];
    snprintf(num, sizeof num, n->dt == G_I32 ? "%.0f" : "%.17g", n->lit);
    if (n->dt == G_F32 && !strpbrk(num, ".e"))
        strcat(num, ".0");
    sprintf(buf, n->lit < 0 ? "(%s)" : "%s", num);
    return buf;
}

typedef struct Str {
    char *p;
    size_t len, cap;
} Str;
static void sput(Str *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sput(Str *s, const char *fmt, ...) {
    va_list ap;
    for (;;) {
        va_start(ap, fmt);
        int n = vsnprintf(s->p ? s->p + s->len : NULL, s->p ? s->cap - s->len : 0, fmt, ap);
        va_end(ap);
        if (s->p && s->len + n < s->cap) {
            s->len += n;
            return;
        }
        s->cap = (s->cap + n + 1) * 2;
        s->p = realloc(s->p, s->cap);
    }
}

static void mask_src(Str *s, Shape sh) {
    if (sh.rank == 1)
        sput(s, "%s < %s", ax_range[sh.d[0]], ax_size[sh.d[0]]);
    else
        sput(s, "(%s[:, None] < %s) & (%s[None, :] < %s)", ax_range[sh.d[0]], ax_size[sh.d[0]], ax_range[sh.d[1]],
             ax_size[sh.d[1]]);
}

/* The kernel's .tl text (without the "# kgen" header). */
static char *kernel_src(const Kernel *k) {
    Str s = {0};
    char x[64], y[64], z[64];
    sput(&s, "import triton\nimport triton.language as tl\n\n\n");
    /* the combine functions of tl.reduce / tl.associative_scan, when used */
    int uses[2] = {0, 0};
    for (int i = 0; i < k->n; i++) {
        const Node *n = &k->nodes[i];
        if (n->kind == N_RED && (n->op & 7) >= R_FSUM)
            uses[(n->op & 7) - R_FSUM] = 1;
        if (n->kind == N_CUMSUM && n->op >> 1 != SCAN_CUMSUM)
            uses[(n->op >> 1) - SCAN_ADD] = 1;
    }
    if (uses[0])
        sput(&s, "@triton.jit\ndef _kadd(a, b):\n    return a + b\n\n\n");
    if (uses[1])
        sput(&s, "@triton.jit\ndef _kmax(a, b):\n    return tl.maximum(a, b)\n\n\n");
    sput(&s, "@triton.jit\ndef kgen(");
    for (int i = 0; i < k->ninputs; i++)
        sput(&s, "X%d, ", i);
    sput(&s, "OUT, M, N, K, s, alpha, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n");
    if (k->form == 2)
        sput(&s, "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
                 "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
                 "    rk = tl.arange(0, BK)\n");
    else
        sput(&s, "    rn = tl.program_id(0) * BN + tl.arange(0, BN)\n");
    for (int i = 0; i < k->n; i++) {
        const Node *n = &k->nodes[i];
        if (n->kind == N_LIT)
            continue;
        sput(&s, "    t%d = ", i);
        switch (n->kind) {
        case N_LOAD:
            if (n->sh.rank == 0) {
                sput(&s, "tl.load(X%d + %d)\n", n->input, (int)n->lit);
                continue;
            }
            if (n->sh.rank == 1)
                sput(&s, "tl.load(X%d + %s, mask=", n->input, ax_range[n->sh.d[0]]);
            else
                sput(&s, "tl.load(X%d + %s[:, None] * %s + %s[None, :], mask=", n->input, ax_range[n->sh.d[0]],
                     ax_size[n->sh.d[1]], ax_range[n->sh.d[1]]);
            if (n->c >= 0)
                sput(&s, "(");
            mask_src(&s, n->sh);
            if (n->c >= 0)
                sput(&s, ") & %s", name(k, n->c, x));
            if (n->has_other) {
                if (n->dt == G_I32)
                    sput(&s, ", other=%d", (int)n->other);
                else
                    sput(&s, ", other=%.17g%s", n->other, n->other == (int)n->other ? ".0" : "");
            }
            sput(&s, ")\n");
            break;
        case N_RANGE: sput(&s, "%s\n", ax_range[n->sh.d[0]]); break;
        case N_SARG: sput(&s, "%s\n", n->op ? "alpha" : "s"); break;
        case N_BIN:
            if (n->op >= B_MAX)
                sput(&s, "%s(%s, %s)\n", bin_src[n->op], name(k, n->a, x), name(k, n->b, y));
            else
                sput(&s, "%s %s %s\n", name(k, n->a, x), bin_src[n->op], name(k, n->b, y));
            break;
        case N_CMP: sput(&s, "%s %s %s\n", name(k, n->a, x), cmp_src[n->op], name(k, n->b, y)); break;
        case N_NEG: sput(&s, "-%s\n", name(k, n->a, x)); break;
        case N_ABS: sput(&s, "tl.abs(%s)\n", name(k, n->a, x)); break;
        case N_CAST: sput(&s, "%s.to(%s)\n", name(k, n->a, x), dt_tl[n->dt]); break;
        case N_WHERE:
            sput(&s, "tl.where(%s, %s, %s)\n", name(k, n->c, z), name(k, n->a, x), name(k, n->b, y));
            break;
        case N_EXP0: sput(&s, "%s[None, :]\n", name(k, n->a, x)); break;
        case N_EXP1: sput(&s, "%s[:, None]\n", name(k, n->a, x)); break;
        case N_BCAST:
            sput(&s, "tl.broadcast_to(%s, (B%s, B%s))\n", name(k, n->a, x), ax_size[n->sh.d[0]], ax_size[n->sh.d[1]]);
            break;
        case N_TRANS: sput(&s, "tl.trans(%s)\n", name(k, n->a, x)); break;
        case N_RED: {
            int rop = n->op & 7;
            const char *keep = n->op & R_KEEP ? ", keep_dims=True" : "";
            if (rop >= R_FSUM && n->axis == 2)
                sput(&s, "tl.reduce(%s, None, %s)\n", name(k, n->a, x), red_src[rop]);
            else if (rop >= R_FSUM)
                sput(&s, "tl.reduce(%s, %d, %s%s)\n", name(k, n->a, x), n->axis, red_src[rop], keep);
            else if (n->axis == 2)
                sput(&s, "%s(%s)\n", red_src[rop], name(k, n->a, x));
            else
                sput(&s, "%s(%s, axis=%d%s)\n", red_src[rop], name(k, n->a, x), n->axis, keep);
            break;
        }
        case N_SORT: sput(&s, "tl.sort(%s%s)\n", name(k, n->a, x), n->op ? ", descending=True" : ""); break;
        case N_CUMSUM:
            if (n->op >> 1 == SCAN_CUMSUM)
                sput(&s, "tl.cumsum(%s, axis=%d%s)\n", name(k, n->a, x), n->axis, n->op & 1 ? ", reverse=True" : "");
            else
                sput(&s, "tl.associative_scan(%s, %d, %s%s)\n", name(k, n->a, x), n->axis,
                     n->op >> 1 == SCAN_ADD ? "_kadd" : "_kmax", n->op & 1 ? ", reverse=True" : "");
            break;
        case N_DOT:
            sput(&s, "tl.dot(%s, %s", name(k, n->a, x), name(k, n->b, y));
            if (n->c >= 0)
                sput(&s, ", acc=%s", name(k, n->c, z));
            sput(&s, "%s)\n", k->nodes[n->a].dt == G_F32 ? ", input_precision=\"ieee\"" : "");
            break;
        case N_KDOT: {
            const char *ra = ax_range[n->sh.d[0]], *rb = ax_range[n->sh.d[1]];
            const char *sa = ax_size[n->sh.d[0]], *sb = ax_size[n->sh.d[1]];
            char oth[48];
            snprintf(oth, sizeof oth, "%.17g%s", n->other, n->other == (int)n->other ? ".0" : "");
            sput(&s, "%s\n    for i%d in range(0, tl.cdiv(K, BK)):\n", name(k, n->a, x), i);
            sput(&s, "        kk%d = i%d * BK + rk\n", i, i);
            sput(&s, "        a%d = tl.load(X%d + %s[:, None] * K + kk%d[None, :], mask=(%s[:, None] < %s) & (kk%d[None, :] < K), other=%s)\n",
                 i, n->input, ra, i, ra, sa, i, oth);
            sput(&s, "        b%d = tl.load(X%d + kk%d[:, None] * %s + %s[None, :], mask=(kk%d[:, None] < K) & (%s[None, :] < %s), other=%s)\n",
                 i, n->input + 1, i, sb, rb, i, rb, sb, oth);
            sput(&s, "        t%d = tl.dot(a%d, b%d, t%d%s)\n", i, i, i, i, n->op == G_F32 ? ", input_precision=\"ieee\"" : "");
            break;
        }
        case N_LOOP:
            /* every other loop in chunks, `range(0, lit * 4, 4)` (peel.c's loops that may run once) */
            if (i % 2)
                sput(&s, "%s\n    for j%d in range(0, %d, 4):\n        i%d = j%d // 4\n        t%d = ", name(k, n->a, x), i,
                     4 * (int)n->lit, i, i, i);
            else
                sput(&s, "%s\n    for i%d in range(%d):\n        t%d = ", name(k, n->a, x), i, (int)n->lit, i);
            if (n->op >= B_MAX)
                sput(&s, "%s(t%d, ", bin_src[n->op], i);
            else
                sput(&s, "t%d %s ", i, bin_src[n->op]);
            if (n->axis)
                sput(&s, "(%s + i%d)", name(k, n->b, y), i);
            else
                sput(&s, "%s", name(k, n->b, y));
            sput(&s, "%s\n", n->op >= B_MAX ? ")" : "");
            break;
        }
    }
    Shape out = k->form == 2 ? sh2(AX_M, AX_N) : sh1(AX_N);
    if (k->form == 2)
        sput(&s, "    tl.store(OUT + rm[:, None] * N + rn[None, :], %s, mask=", name(k, k->root, x));
    else
        sput(&s, "    tl.store(OUT + rn, %s, mask=", name(k, k->root, x));
    if (k->store_cond >= 0)
        sput(&s, "(");
    mask_src(&s, out);
    if (k->store_cond >= 0)
        sput(&s, ") & %s", name(k, k->store_cond, x));
    sput(&s, ")\n");
    return s.p;
}

/* The DAG as "# kgen ..." lines (the header of a regression file). */
static char *kernel_header(const Kernel *k) {
    Str s = {0};
    sput(&s, "# kgen v1 form=%d bm=%d bn=%d bk=%d root=%d store_cond=%d out_dt=%d num_warps=%d\n", k->form, k->bm,
         k->bn, k->bk, k->root, k->store_cond, k->out_dt, k->num_warps);
    for (int i = 0; i < k->n; i++) {
        const Node *n = &k->nodes[i];
        sput(&s, "# kgen %d %s op=%d dt=%d sh=%d,%d,%d a=%d b=%d c=%d axis=%d input=%d other=%d,%.17g lit=%.17g\n", i,
             kind_name[n->kind], n->op, n->dt, n->sh.rank, n->sh.d[0], n->sh.d[1], n->a, n->b, n->c, n->axis, n->input,
             n->has_other, n->other, n->lit);
    }
    return s.p;
}

static int parse_header(const char *text, Kernel *k, char *err, size_t errlen) {
    memset(k, 0, sizeof *k);
    const char *p = strstr(text, "# kgen v1 ");
    if (!p || sscanf(p, "# kgen v1 form=%d bm=%d bn=%d bk=%d root=%d store_cond=%d out_dt=%d num_warps=%d", &k->form,
                     &k->bm, &k->bn, &k->bk, &k->root, &k->store_cond, &k->out_dt, &k->num_warps) != 8) {
        snprintf(err, errlen, "no \"# kgen v1\" header line");
        return 0;
    }
    while ((p = strstr(p + 1, "\n# kgen ")) != NULL) {
        Node n;
        int i;
        char kind[16];
        if (sscanf(p, "\n# kgen %d %15s op=%d dt=%d sh=%d,%d,%d a=%d b=%d c=%d axis=%d input=%d other=%d,%lg lit=%lg", &i,
                   kind, &n.op, &n.dt, &n.sh.rank, &n.sh.d[0], &n.sh.d[1], &n.a, &n.b, &n.c, &n.axis, &n.input,
                   &n.has_other, &n.other, &n.lit) != 15 ||
            i != k->n || k->n >= MAXN) {
            snprintf(err, errlen, "bad \"# kgen\" line for node %d", k->n);
            return 0;
        }
        for (n.kind = 0; n.kind < N_KINDS && strcmp(kind_name[n.kind], kind); n.kind++)
            ;
        if (n.kind == N_KINDS) {
            snprintf(err, errlen, "unknown node kind %s", kind);
            return 0;
        }
        k->nodes[k->n++] = n;
    }
    register_inputs(k);
    if (k->root < 0 || k->root >= k->n) {
        snprintf(err, errlen, "root out of range");
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------ the reference */

typedef struct Lane {
    double v, e;
    int bad;
} Lane;

static double h16(double x) { return ex_h2f(ex_f2h((float)x)); }
static double wrap32(double x) { return (double)(int32_t)(uint32_t)(uint64_t)(int64_t)x; }
static double round_to(int dt, double x) {
    switch (dt) {
    case G_I1: return x != 0;
    case G_I32: return wrap32(x);
    case G_F16: return h16(x);
    default: return (float)x;
    }
}
/* an ulp's worth of rounding error of a result near x */
static double uerr(int dt, double x) {
    return dt == G_F16 ? fabs(x) * 0x1p-10 + 0x1p-24 : dt == G_F32 ? fabs(x) * 0x1p-23 + 0x1p-149 : 0;
}
static Lane bad_lane(void) { return (Lane){0, 0, 1}; }
/* a value with error bound e in dtype dt: overflow makes it bad */
static Lane fin(int dt, double v, double e) {
    double lim = dt == G_F16 ? 60000 : dt == G_F32 ? 1e37 : 2147483647.0;
    if (!isfinite(v) || !isfinite(e) || fabs(v) + e > lim)
        return bad_lane();
    return (Lane){v, e, 0};
}

static Lane conv(Lane a, int from, int to) {
    if (a.bad || from == to)
        return a;
    if (from == G_I1)
        return a;
    if (to == G_I1)
        return a.e > 0 && fabs(a.v) <= a.e ? bad_lane() : (Lane){a.v != 0, 0, 0};
    if (to == G_I32) {
        if (fabs(a.v) + a.e >= 2147483647.0)
            return bad_lane();
        double v = trunc(a.v), e = fmax(fabs(trunc(a.v + a.e) - v), fabs(trunc(a.v - a.e) - v));
        return (Lane){v, e, 0};
    }
    double v = round_to(to, a.v);
    double e = fmax(fabs(round_to(to, a.v + a.e) - v), fabs(round_to(to, a.v - a.e) - v));
    return fin(to, v, e);
}

static Lane arith(int op, int dt, Lane a, Lane b) {
    if (a.bad || b.bad)
        return bad_lane();
    double x, e;
    if (dt == G_I32 && a.e == 0 && b.e == 0 && op <= B_MUL && op != B_DIV) { /* exact, wrapping */
        uint32_t p = (uint32_t)(int32_t)a.v, q = (uint32_t)(int32_t)b.v;
        return (Lane){(int32_t)(op == B_ADD ? p + q : op == B_SUB ? p - q : p * q), 0, 0};
    }
    switch (op) {
    case B_ADD: case B_SUB:
        x = op == B_ADD ? a.v + b.v : a.v - b.v;
        e = a.e + b.e;
        break;
    case B_MUL:
        x = a.v * b.v;
        e = fabs(a.v) * b.e + fabs(b.v) * a.e + a.e * b.e;
        break;
    case B_DIV: {
        if (fabs(b.v) <= b.e * 1.0001 || b.v == 0)
            return bad_lane();
        x = a.v / b.v;
        e = 0;
        for (int i = -1; i <= 1; i += 2)
            for (int j = -1; j <= 1; j += 2)
                e = fmax(e, fabs((a.v + i * a.e) / (b.v + j * b.e) - x));
        double v = round_to(dt, x);
        /* the GPU's `/` may be off by 2 ulp (div.full), even where the quotient is exact */
        return fin(dt, v, e * 1.0001 + 4 * uerr(dt, v));
    }
    case B_FDIV: /* by a constant; C truncation */
        if (b.v == -1 && a.v - a.e <= INT32_MIN) /* INT_MIN // -1 overflows: undefined (LLVM's sdiv) */
            return bad_lane();
        x = trunc(a.v / b.v);
        e = fmax(fabs(trunc((a.v + a.e) / b.v) - x), fabs(trunc((a.v - a.e) / b.v) - x));
        return (Lane){x, e, 0};
    case B_MOD:
        if (a.e > 0 || (b.v == -1 && a.v <= INT32_MIN))
            return bad_lane();
        return (Lane){fmod(a.v, b.v), 0, 0};
    case B_SHL: case B_SHR: /* by a constant in 1..31; >> of a signed int is arithmetic */
        if (a.e > 0)
            return bad_lane();
        if (op == B_SHL)
            return (Lane){(int32_t)((uint32_t)(int32_t)a.v << (int)b.v), 0, 0};
        return (Lane){(int32_t)a.v >> (int)b.v, 0, 0};
    case B_AND: case B_OR: case B_XOR: {
        if (a.e > 0 || b.e > 0)
            return bad_lane();
        int32_t p = (int32_t)a.v, q = (int32_t)b.v;
        return (Lane){op == B_AND ? p & q : op == B_OR ? p | q : p ^ q, 0, 0};
    }
    case B_MAX: return (Lane){fmax(a.v, b.v), fmax(a.e, b.e), 0};
    default: return (Lane){fmin(a.v, b.v), fmax(a.e, b.e), 0};
    }
    if (dt == G_I32) {
        if (e == 0)
            return (Lane){wrap32(x), 0, 0};
        return fin(dt, x, e);
    }
    double v = round_to(dt, x);
    return fin(dt, v, e > 0 || v != x ? e * 1.0001 + uerr(dt, v) : 0);
}

static Lane compare(int op, Lane a, Lane b) {
    if (a.bad || b.bad)
        return bad_lane();
    if ((a.e > 0 || b.e > 0) && fabs(a.v - b.v) <= (a.e + b.e) * 1.001)
        return bad_lane();
    int r;
    switch (op) {
    case C_LT: r = a.v < b.v; break;
    case C_LE: r = a.v <= b.v; break;
    case C_GT: r = a.v > b.v; break;
    case C_GE: r = a.v >= b.v; break;
    case C_EQ: r = a.v == b.v; break;
    default: r = a.v != b.v; break;
    }
    return (Lane){r, 0, 0};
}

typedef struct Run {
    int64_t size[NAX]; /* M, N, K (index by axis); size[AX_1] = 1 */
    int pid[2];
    int32_t s;
    float alpha;
    double *in[MAXIN];
} Run;

static int offset(const Kernel *k, const Run *r, int ax, int i) {
    if (ax == AX_M)
        return r->pid[0] * k->bm + i;
    if (ax == AX_N)
        return r->pid[k->form == 2 ? 1 : 0] * k->bn + i;
    return i;
}

/* lane index of a node of shape from, read at element (i, j) of shape to */
static int bidx(const Kernel *k, Shape from, Shape to, int i, int j) {
    if (from.rank == 0)
        return 0;
    if (from.rank == 1) {
        int last = to.rank == 2 ? j : i;
        return from.d[0] == AX_1 ? 0 : last;
    }
    int ii = from.d[0] == AX_1 ? 0 : i, jj = from.d[1] == AX_1 ? 0 : j;
    return ii * dims_of(k, from.d[1]) + jj;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Evaluates every node for one program; L[i] holds node i's lanes. */
static void eval_program(const Kernel *k, const Run *r, Lane **L) {
    for (int id = 0; id < k->n; id++) {
        const Node *n = &k->nodes[id];
        Lane *o = L[id];
        Shape s = n->sh;
        int d0 = s.rank >= 1 ? dims_of(k, s.d[0]) : 1, d1 = s.rank == 2 ? dims_of(k, s.d[1]) : 1;
        const Node *na = n->a >= 0 ? &k->nodes[n->a] : NULL, *nb = n->b >= 0 ? &k->nodes[n->b] : NULL;
        for (int i = 0; i < d0; i++)
            for (int j = 0; j < d1; j++) {
                int at = i * d1 + j;
                /* elementwise operands, broadcast to s */
                int ew = n->kind == N_BIN || n->kind == N_CMP || n->kind == N_NEG || n->kind == N_ABS ||
                         n->kind == N_CAST || n->kind == N_WHERE || n->kind == N_BCAST || n->kind == N_LOOP;
                Lane ra = ew && na ? L[n->a][bidx(k, na->sh, s, i, j)] : bad_lane();
                Lane rb = ew && nb ? L[n->b][bidx(k, nb->sh, s, i, j)] : bad_lane();
                switch (n->kind) {
                case N_LOAD: {
                    if (s.rank == 0) {
                        o[at] = (Lane){r->in[n->input][(int)n->lit], 0, 0};
                        break;
                    }
                    int oa = offset(k, r, s.d[0], i), ob = s.rank == 2 ? offset(k, r, s.d[1], j) : 0;
                    int inb = oa < r->size[s.d[0]] && (s.rank < 2 || ob < r->size[s.d[1]]);
                    Lane c = n->c >= 0 ? L[n->c][bidx(k, k->nodes[n->c].sh, s, i, j)] : (Lane){1, 0, 0};
                    if (inb && c.bad)
                        o[at] = bad_lane();
                    else if (inb && c.v != 0)
                        o[at] = (Lane){r->in[n->input][s.rank == 2 ? (int64_t)oa * r->size[s.d[1]] + ob : oa], 0, 0};
                    else
                        o[at] = n->has_other ? (Lane){round_to(n->dt, n->other), 0, 0} : bad_lane();
                    break;
                }
                case N_RANGE: o[at] = (Lane){offset(k, r, s.d[0], i), 0, 0}; break;
                case N_SARG: o[at] = n->op ? (Lane){r->alpha, 0, 0} : (Lane){r->s, 0, 0}; break;
                case N_LIT: o[at] = (Lane){n->lit, 0, 0}; break;
                case N_BIN:
                    if (n->dt == G_I1) {
                        o[at] = ra.bad || rb.bad ? bad_lane() : arith(n->op, G_I32, ra, rb);
                    } else {
                        int cdt = n->op == B_DIV ? G_F32 : n->dt;
                        /* a Python literal takes the other operand's type as it is */
                        Lane x = na->kind == N_LIT ? (Lane){round_to(cdt, na->lit), 0, 0} : conv(ra, na->dt, cdt);
                        Lane y = nb->kind == N_LIT ? (Lane){round_to(cdt, nb->lit), 0, 0} : conv(rb, nb->dt, cdt);
                        o[at] = arith(n->op, cdt, x, y);
                    }
                    break;
                case N_CMP: {
                    int cdt = promote(na->dt, na->kind == N_LIT, nb->dt, nb->kind == N_LIT, 0);
                    Lane x = na->kind == N_LIT ? (Lane){round_to(cdt, na->lit), 0, 0} : conv(ra, na->dt, cdt);
                    Lane y = nb->kind == N_LIT ? (Lane){round_to(cdt, nb->lit), 0, 0} : conv(rb, nb->dt, cdt);
                    o[at] = compare(n->op, x, y);
                    break;
                }
                case N_NEG:
                    o[at] = ra.bad ? ra : (Lane){n->dt == G_I32 ? wrap32(-ra.v) : -ra.v, ra.e, 0};
                    break;
                case N_ABS:
                    o[at] = ra.bad ? ra : (Lane){n->dt == G_I32 ? wrap32(fabs(ra.v)) : fabs(ra.v), ra.e, 0};
                    break;
                case N_CAST: o[at] = conv(ra, na->dt, n->dt); break;
                case N_WHERE: {
                    Lane c = L[n->c][bidx(k, k->nodes[n->c].sh, s, i, j)];
                    if (c.bad) {
                        o[at] = bad_lane();
                        break;
                    }
                    const Node *pick = c.v != 0 ? na : nb;
                    Lane v = c.v != 0 ? ra : rb;
                    o[at] = pick->kind == N_LIT ? (Lane){round_to(n->dt, pick->lit), 0, 0} : conv(v, pick->dt, n->dt);
                    break;
                }
                case N_EXP0: o[at] = L[n->a][j]; break;
                case N_EXP1: o[at] = L[n->a][i]; break;
                case N_BCAST: o[at] = ra; break;
                case N_KDOT: {
                    Lane c = L[n->a][at];
                    double sum = c.v, mag = fabs(c.v), err = c.e, oth = round_to(n->op, n->other);
                    int64_t K = r->size[AX_K], trips = (K + k->bk - 1) / k->bk;
                    int oa = offset(k, r, s.d[0], i), ob = offset(k, r, s.d[1], j);
                    const double *A = r->in[n->input], *B = r->in[n->input + 1];
                    for (int64_t kk = 0; kk < trips * k->bk; kk++) {
                        double p = oa < r->size[s.d[0]] && kk < K ? A[oa * K + kk] : oth;
                        double q = ob < r->size[s.d[1]] && kk < K ? B[kk * r->size[s.d[1]] + ob] : oth;
                        sum += p * q, mag += fabs(p * q);
                    }
                    o[at] = c.bad ? bad_lane()
                                  : fin(G_F32, (float)sum, err * 1.0001 + 4 * (trips * k->bk + 1) * 0x1p-24 * mag +
                                                               uerr(G_F32, sum));
                    break;
                }
                case N_LOOP: {
                    Lane acc = ra;
                    for (int it = 0; it < (int)n->lit; it++)
                        acc = arith(n->op, n->dt, acc, n->axis ? arith(B_ADD, n->dt, rb, (Lane){it, 0, 0}) : rb);
                    o[at] = acc;
                    break;
                }
                case N_TRANS: o[at] = L[n->a][j * d0 + i]; break;
                case N_SORT: {
                    /* a sort moves each value by at most the largest error bound of its row */
                    /* (the whole row at its first lane) */
                    double row[1024], e = 0;
                    int bad = 0, len = s.rank == 2 ? d1 : d0, base = s.rank == 2 ? i * d1 : 0;
                    if ((s.rank == 2 ? j : i) != 0)
                        break;
                    for (int t = 0; t < len; t++) {
                        Lane x = L[n->a][base + t];
                        bad |= x.bad;
                        row[t] = x.v, e = fmax(e, x.e);
                    }
                    qsort(row, len, sizeof row[0], cmp_double);
                    for (int t = 0; t < len; t++)
                        o[base + t] = bad ? bad_lane() : (Lane){row[n->op ? len - 1 - t : t], e, 0};
                    break;
                }
                case N_RED: case N_CUMSUM: case N_DOT: {
                    /* the lanes summed: along the axis of a (and of b for dot) */
                    Shape as = na->sh;
                    int ck = n->kind == N_RED ? red_ck(n->op) : n->kind == N_CUMSUM && n->op >> 1 == SCAN_MAX ? CK_MAX : CK_SUM;
                    int len, cdt = n->kind == N_RED && ck != CK_ARGMAX && ck != CK_ARGMIN ? n->dt : na->dt;
                    int ad0 = dims_of(k, as.d[0]), ad1 = as.rank == 2 ? dims_of(k, as.d[1]) : 1;
                    int all = n->kind == N_RED && n->axis == 2;
                    /* the surviving index of a reduction (keep_dims: the non-1 one) */
                    int oi = n->kind == N_RED && s.rank == 2 && n->axis == 0 ? j : i;
                    if (n->kind == N_DOT)
                        len = ad1, cdt = G_F32;
                    else if (all)
                        len = ad0 * ad1;
                    else
                        len = as.rank == 1 ? ad0 : n->axis == 0 ? ad0 : ad1;
                    int lo = 0, hi = len;
                    if (n->kind == N_CUMSUM) {
                        int pos = n->axis == 0 ? i : j;
                        if (n->op & 1)
                            lo = pos;
                        else
                            hi = pos + 1;
                    }
                    double sum = 0, mag = 0, err = 0, best = 0, beste = 0;
                    int bad = 0, first = 1, bestat = 0, ambiguous = 0;
                    uint32_t xr = 0;
                    for (int t = lo; t < hi; t++) {
                        Lane x;
                        if (n->kind == N_DOT) {
                            Lane p = L[n->a][i * ad1 + t], q = L[n->b][t * dims_of(k, nb->sh.d[1]) + j];
                            if (p.bad || q.bad) {
                                bad = 1;
                                break;
                            }
                            x = (Lane){p.v * q.v, fabs(p.v) * q.e + fabs(q.v) * p.e + p.e * q.e, 0};
                        } else {
                            int ai, aj;
                            if (as.rank == 1)
                                ai = t, aj = 0;
                            else if (all)
                                ai = t / ad1, aj = t % ad1;
                            else if (n->kind == N_RED)
                                ai = n->axis == 0 ? t : oi, aj = n->axis == 0 ? oi : t;
                            else
                                ai = n->axis == 0 ? t : i, aj = n->axis == 0 ? j : t;
                            x = conv(L[n->a][ai * ad1 + aj], na->dt, cdt);
                        }
                        if (x.bad) {
                            bad = 1;
                            break;
                        }
                        if (ck == CK_XOR) {
                            if (x.e > 0)
                                bad = 1;
                            xr ^= (uint32_t)(int32_t)x.v;
                            continue;
                        }
                        if (ck != CK_SUM) {
                            int up = ck == CK_MAX || ck == CK_ARGMAX;
                            if (first || (up ? x.v > best : x.v < best))
                                best = x.v, bestat = t - lo;
                            beste = fmax(beste, x.e);
                            first = 0;
                            continue;
                        }
                        sum += x.v, mag += fabs(x.v), err += x.e;
                    }
                    if (n->kind == N_DOT && n->c >= 0 && !bad) { /* acc= */
                        Lane c = L[n->c][at];
                        bad = c.bad;
                        sum += c.v, mag += fabs(c.v), err += c.e;
                    }
                    if (bad) {
                        o[at] = bad_lane();
                    } else if (ck == CK_XOR) {
                        o[at] = (Lane){(int32_t)xr, 0, 0};
                    } else if (ck == CK_ARGMAX || ck == CK_ARGMIN) {
                        /* the first index of the extreme value; another lane within
                         * the error bounds could be it too: not determined */
                        for (int t = lo; t < hi && beste > 0; t++) {
                            int ai = as.rank == 1 ? t : n->axis == 0 ? t : oi, aj = as.rank == 1 ? 0 : n->axis == 0 ? oi : t;
                            Lane x = L[n->a][ai * ad1 + aj];
                            if (t - lo != bestat && fabs(x.v - best) <= (x.e + beste) * 1.001)
                                ambiguous = 1;
                        }
                        o[at] = ambiguous ? bad_lane() : (Lane){bestat, 0, 0};
                    } else if (ck != CK_SUM) {
                        o[at] = (Lane){best, beste, 0};
                    } else if (cdt == G_I32) {
                        o[at] = err == 0 ? (Lane){wrap32(sum), 0, 0} : fin(cdt, sum, err);
                    } else {
                        double v = round_to(cdt, sum), u = cdt == G_F16 ? 0x1p-11 : 0x1p-24;
                        if (mag > (cdt == G_F16 ? 60000 : 1e37))
                            o[at] = bad_lane();
                        else
                            /* (tensor cores may truncate while they accumulate: 4 ulp a term for dots) */
                            o[at] = fin(cdt, v, err * 1.0001 + (n->kind == N_DOT ? 4 : 2) * (hi - lo + 1) * u * mag +
                                                    uerr(cdt, v));
                    }
                    break;
                }
                }
            }
    }
}

/* ------------------------------------------------------------ running */

#define GUARD 64
#define SENT 7

static double get(int dt, const void *p, size_t i) {
    switch (dt) {
    case G_I1: return ((const int8_t *)p)[i];
    case G_I32: return ((const int32_t *)p)[i];
    case G_F16: return ex_h2f(((const uint16_t *)p)[i]);
    default: return ((const float *)p)[i];
    }
}
static void put(int dt, void *p, size_t i, double v) {
    switch (dt) {
    case G_I1: ((int8_t *)p)[i] = (int8_t)v; break;
    case G_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case G_F16: ((uint16_t *)p)[i] = ex_f2h((float)v); break;
    default: ((float *)p)[i] = (float)v; break;
    }
}
static size_t dsize(int dt) { return dt == G_I1 ? 1 : dt == G_F16 ? 2 : 4; }

static size_t in_count(const Kernel *k, const Run *r, int j) {
    Shape s = k->in_sh[j];
    size_t n = s.rank == 0 ? 4 : 1;
    for (int i = 0; i < s.rank; i++)
        n *= (size_t)r->size[s.d[i]];
    return n;
}

static double draw(int dt) {
    int r = rnd(10);
    if (dt == G_I32)
        return r < 7 ? rnd(19) - 9 : rnd(601) - 300;
    double v = r < 6 ? (rnd(81) - 40) / 8.0 : (double)(float)(ex_uniform() * 4);
    if (v == 0)
        v = 0.25;
    return round_to(dt, v);
}

typedef struct Outcome {
    int fail;       /* 0 ok, else a FAIL_* */
    char msg[600];
    long compared, skipped; /* output elements checked; not determined (bad lanes) */
} Outcome;
enum { FAIL_NONE, FAIL_COMPILE, FAIL_LAUNCH, FAIL_WRONG, FAIL_TLC, FAIL_CRASH, FAIL_MISMATCH_GPU };
static const char *const fail_name[] = {"ok", "compile error", "launch error", "wrong result", "tlc failed",
                                        "crash or timeout", "GPU differs from the interpreter"};

static void outcome(Outcome *o, int kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void outcome(Outcome *o, int kind, const char *fmt, ...) {
    if (o->fail)
        return;
    o->fail = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(o->msg, sizeof o->msg, fmt, ap);
    va_end(ap);
}

/* Runs k on ctx with the sizes and inputs of r; out gets the output's
 * values (count elements and the guard). Returns 0 on an API failure (o says why). */
static int launch(TlContext *ctx, TlKernel *kern, const Kernel *k, const Run *r, double *out, size_t count,
                  Outcome *o, const char *where) {
    TlBuffer *buf[MAXIN + 1] = {0};
    void *host[MAXIN + 1] = {0};
    TlArg args[MAXIN + 8];
    int na = 0, ok = 1;
    int odt = k->out_dt;
    for (int j = 0; j <= k->ninputs && ok; j++) {
        int dt = j < k->ninputs ? k->in_dt[j] : odt;
        size_t n = j < k->ninputs ? in_count(k, r, j) : count + GUARD;
        host[j] = calloc(n, dsize(dt));
        for (size_t i = 0; i < n; i++)
            put(dt, host[j], i, j < k->ninputs ? r->in[j][i] : SENT);
        TlStatus s = tl_buffer_create(ctx, dt_api[dt], n, &buf[j]);
        if (s == TL_SUCCESS)
            s = tl_buffer_write(buf[j], 0, host[j], n * dsize(dt));
        if (s != TL_SUCCESS) {
            outcome(o, FAIL_LAUNCH, "%s: buffer: %s: %s", where, tl_status_name(s), tl_last_error(ctx));
            ok = 0;
        }
        args[na++] = tl_arg_buffer(buf[j]);
    }
    if (ok) {
        args[na++] = tl_arg_i32((int32_t)r->size[AX_M]);
        args[na++] = tl_arg_i32((int32_t)r->size[AX_N]);
        args[na++] = tl_arg_i32((int32_t)r->size[AX_K]);
        args[na++] = tl_arg_i32(r->s);
        args[na++] = tl_arg_f32(r->alpha);
        unsigned grid[3] = {1, 1, 1};
        if (k->form == 2)
            grid[0] = ex_cdiv(r->size[AX_M], k->bm), grid[1] = ex_cdiv(r->size[AX_N], k->bn);
        else
            grid[0] = ex_cdiv(r->size[AX_N], k->bn);
        TlStatus s = tl_launch(kern, grid, args, na);
        if (s != TL_SUCCESS) {
            outcome(o, FAIL_LAUNCH, "%s: launch: %s: %s", where, tl_status_name(s), tl_last_error(ctx));
            ok = 0;
        } else {
            int j = k->ninputs;
            tl_buffer_read(buf[j], 0, host[j], (count + GUARD) * dsize(odt));
            for (size_t i = 0; i < count + GUARD; i++)
                out[i] = get(odt, host[j], i);
        }
    }
    for (int j = 0; j <= k->ninputs; j++) {
        tl_buffer_destroy(buf[j]);
        free(host[j]);
    }
    return ok;
}

/* The reference for the whole output: want / tol / skip per element. */
static void reference(const Kernel *k, Run *r, size_t count, double *want, double *tol, char *skip) {
    int odt = k->out_dt;
    for (size_t i = 0; i < count + GUARD; i++)
        want[i] = round_to(odt, SENT), tol[i] = 0, skip[i] = 0;
    Lane *L[MAXN];
    for (int i = 0; i < k->n; i++)
        L[i] = malloc(sizeof(Lane) * numel(k, k->nodes[i].sh));
    int g0 = k->form == 2 ? ex_cdiv(r->size[AX_M], k->bm) : ex_cdiv(r->size[AX_N], k->bn);
    int g1 = k->form == 2 ? ex_cdiv(r->size[AX_N], k->bn) : 1;
    for (int p0 = 0; p0 < g0; p0++)
        for (int p1 = 0; p1 < g1; p1++) {
            r->pid[0] = p0, r->pid[1] = p1;
            eval_program(k, r, L);
            int rows = k->form == 2 ? k->bm : 1;
            for (int i = 0; i < rows; i++)
                for (int j = 0; j < k->bn; j++) {
                    int om = k->form == 2 ? offset(k, r, AX_M, i) : 0, on = offset(k, r, AX_N, j);
                    if (om >= r->size[AX_M] || on >= r->size[AX_N])
                        continue;
                    size_t at = (size_t)om * r->size[AX_N] + on;
                    Shape os = k->form == 2 ? sh2(AX_M, AX_N) : sh1(AX_N);
                    if (k->store_cond >= 0) {
                        Lane c = L[k->store_cond][bidx(k, k->nodes[k->store_cond].sh, os, k->form == 2 ? i : j, j)];
                        if (c.bad) {
                            skip[at] = 1;
                            continue;
                        }
                        if (c.v == 0)
                            continue;
                    }
                    Lane v = conv(L[k->root][k->form == 2 ? i * k->bn + j : j], k->nodes[k->root].dt, odt);
                    if (v.bad) {
                        skip[at] = 1;
                        continue;
                    }
                    want[at] = v.v;
                    tol[at] = v.e > 0 ? v.e * 1.001 + 2 * uerr(odt, fabs(v.v) + v.e) : 0;
                }
        }
    for (int i = 0; i < k->n; i++)
        free(L[i]);
}

static void describe_at(const Kernel *k, const Run *r, size_t at, size_t count, char *buf, size_t len) {
    if (at >= count)
        snprintf(buf, len, "[%zu] (past the end)", at);
    else if (k->form == 2)
        snprintf(buf, len, "[%zu, %zu]", at / r->size[AX_N], at % r->size[AX_N]);
    else
        snprintf(buf, len, "[%zu]", at);
}

/* Sizes of the i-th run of k (ragged: 1, a block +- 1, primes, random). */
static void pick_sizes(const Kernel *k, Run *r, int i) {
    r->size[AX_1] = 1;
    for (int ax = AX_M; ax < NAX; ax++) {
        int b = dims_of(k, ax);
        int64_t v;
        switch ((i + ax) % 4) {
        case 0: v = 1 + rnd(b > 1 ? b - 1 : 1); break;
        case 1: v = b + 1; break;
        case 2: v = 2 * b + 1 + rnd(3 * b); break;
        default: v = i == 0 ? 1 : b * (1 + rnd(3)) - (rnd(2)); break;
        }
        if (ax == AX_K)
            v = 1 + rnd(2 * b);
        r->size[ax] = v < 1 ? 1 : v;
    }
    if (k->form == 1) {
        r->size[AX_M] = r->size[AX_K] = 1 + rnd(20);
        static const int64_t n1[] = {1, 3, 17, 100};
        if (i < 4 && k->bn > 1)
            r->size[AX_N] = i == 0 ? n1[rnd(4)] : i == 1 ? k->bn - 1 : i == 2 ? k->bn + 1 : k->bn * 3 + 7;
        if (r->size[AX_N] < 1)
            r->size[AX_N] = 1;
    }
    /* never 1: the launcher specialises an int argument of 1 to the Python
     * number 1 as Triton does, and `s % -6` or `s // -4` then fold with
     * Python's floor semantics instead of C's truncation */
    do
        r->s = rnd(3) == 0 ? 16 * (rnd(5) - 2) : rnd(21) - 10;
    while (r->s == 1);
    r->alpha = (float)nice_float();
}

#define RUNS 3

/* --maxnreg N: every kernel compiled under that register cap, which turns on
 * the sink pass (compiler/sink.c); tests/gen.sh runs the interpreter after it
 * (TL_INTERPRET_PASSES) so that the reordering is checked by execution. */
static int maxnreg;

/* Compiles and runs k on ctx (and on ref_ctx when given: GPU against the
 * interpreter); o gets the first failure. */
static void test_kernel(TlContext *ctx, TlContext *cpu, const Kernel *k, uint64_t data_seed, Outcome *o) {
    char *src = kernel_src(k);
    char opts[160];
    int n = snprintf(opts, sizeof opts, "--kernel kgen -D BM=%d -D BN=%d -D BK=%d --num-warps %d", k->bm, k->bn, k->bk,
                     k->num_warps);
    if (maxnreg)
        snprintf(opts + n, sizeof opts - (size_t)n, " --maxnreg %d", maxnreg);
    TlKernel *kern = NULL, *kcpu = NULL;
    TlStatus s = tl_kernel_from_string(ctx, src, opts, &kern);
    if (s != TL_SUCCESS)
        outcome(o, FAIL_COMPILE, "compile: %s: %s", tl_status_name(s), tl_last_error(ctx));
    if (!o->fail && cpu) {
        s = tl_kernel_from_string(cpu, src, opts, &kcpu);
        if (s != TL_SUCCESS)
            outcome(o, FAIL_COMPILE, "compile (interpreter): %s: %s", tl_status_name(s), tl_last_error(cpu));
    }
    rng = mix(data_seed, 11);
    for (int run = 0; run < RUNS && !o->fail; run++) {
        Run r;
        memset(&r, 0, sizeof r);
        pick_sizes(k, &r, run);
        for (int j = 0; j < k->ninputs; j++) {
            size_t n = in_count(k, &r, j);
            r.in[j] = malloc(n * sizeof(double));
            for (size_t i = 0; i < n; i++)
                r.in[j][i] = draw(k->in_dt[j]);
        }
        size_t count = (size_t)r.size[AX_N] * (k->form == 2 ? r.size[AX_M] : 1);
        double *got = malloc((count + GUARD) * sizeof(double)), *want = malloc((count + GUARD) * sizeof(double));
        double *tol = malloc((count + GUARD) * sizeof(double)), *gcpu = malloc((count + GUARD) * sizeof(double));
        char *skip = malloc(count + GUARD), where[96], at[64];
        snprintf(where, sizeof where, "M=%lld N=%lld K=%lld s=%d alpha=%g", (long long)r.size[AX_M],
                 (long long)r.size[AX_N], (long long)r.size[AX_K], r.s, r.alpha);
        int ok = launch(ctx, kern, k, &r, got, count, o, where);
        if (ok && cpu)
            ok = launch(cpu, kcpu, k, &r, gcpu, count, o, where);
        if (ok) {
            reference(k, &r, count, want, tol, skip);
            /* got: this device; gcpu: the interpreter beside the GPU. An
             * interpreter off the reference is a wrong result; a GPU off the
             * reference or the interpreter (by more than both bounds) a mismatch. */
            size_t nbad = 0, first = 0, nskip = 0;
            int first_kind = 0;
            for (size_t i = 0; i < count + GUARD; i++) {
                if (skip[i]) {
                    nskip++;
                    continue;
                }
                o->compared++;
                double interp = cpu ? gcpu[i] : got[i];
                int kind = !(fabs(interp - want[i]) <= tol[i]) ? FAIL_WRONG
                           : cpu && (!(fabs(got[i] - want[i]) <= tol[i]) || !(fabs(got[i] - gcpu[i]) <= 2 * tol[i]))
                               ? FAIL_MISMATCH_GPU
                               : 0;
                if (kind && !nbad++)
                    first = i, first_kind = kind;
            }
            o->skipped += nskip;
            if (nbad) {
                describe_at(k, &r, first, count, at, sizeof at);
                if (first_kind == FAIL_MISMATCH_GPU)
                    outcome(o, FAIL_MISMATCH_GPU,
                            "%s: out%s = %.9g on the GPU, %.9g in the interpreter (reference %.9g, tol %.3g); %zu of %zu wrong",
                            where, at, got[first], gcpu[first], want[first], tol[first], nbad, count);
                else
                    outcome(o, FAIL_WRONG, "%s: out%s = %.9g%s, want %.9g (tol %.3g); %zu of %zu wrong", where, at,
                            cpu ? gcpu[first] : got[first], cpu ? " in the interpreter" : "", want[first], tol[first],
                            nbad, count);
            }
        }
        for (int j = 0; j < k->ninputs; j++)
            free(r.in[j]);
        free(got), free(want), free(tol), free(gcpu), free(skip);
    }
    tl_kernel_destroy(kern);
    tl_kernel_destroy(kcpu);
    free(src);
}

/* tlc compiles the kernel to PTX (layouts, LLVM, NVPTX) for sm_80, sm_90 or
 * sm_90a (wgmma), by the kernel: it must succeed; exit 4 is an internal error.
 * With ptxas, ptxas must accept the PTX. */

/* The start of PATH.log (what tlc or ptxas said), for a failure message. */
static void read_log(const char *path, char *log, size_t n) {
    char logpath[600];
    snprintf(logpath, sizeof logpath, "%s.log", path);
    log[0] = 0;
    FILE *l = fopen(logpath, "r");
    if (l) {
        size_t m = fread(log, 1, n - 1, l);
        log[m] = 0;
        fclose(l);
    }
}
static void test_tlc(const char *tlc, const char *ptxas, const Kernel *k, const char *dir, Outcome *o) {
    char path[512], sig[1024], cmd[4096];
    snprintf(path, sizeof path, "%s/kgen-%d.tl", dir, (int)getpid());
    FILE *f = fopen(path, "w");
    if (!f) {
        outcome(o, FAIL_TLC, "cannot write %s", path);
        return;
    }
    char *src = kernel_src(k);
    fputs(src, f);
    fclose(f);
    free(src);
    static const char *const archs[] = {"sm_90a", "sm_80", "sm_90"};
    const char *arch = archs[(k->n + k->root) % 3];
    int n = 0;
    for (int j = 0; j < k->ninputs; j++)
        n += snprintf(sig + n, sizeof sig - n, "*%s, ", dt_sig[k->in_dt[j]]);
    snprintf(sig + n, sizeof sig - n, "*%s, i32, i32, i32, i32, fp32, %d, %d, %d", dt_sig[k->out_dt], k->bm, k->bn,
             k->bk);
    snprintf(cmd, sizeof cmd,
             "NO_COLOR=1 timeout 60 '%s' '%s' --kernel kgen --signature '%s' --num-warps %d --arch %s%s%.0d -o '%s.ptx' "
             "> '%s.log' 2>&1",
             tlc, path, sig, k->num_warps, arch, maxnreg ? " --maxnreg " : "", maxnreg, path, path);
    int rc = system(cmd);
    rc = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
    if (rc == 0 && ptxas) {
        snprintf(cmd, sizeof cmd, "timeout 60 '%s' -arch=%s '%s.ptx' -o /dev/null > '%s.log' 2>&1", ptxas, arch, path, path);
        int prc = system(cmd);
        prc = WIFEXITED(prc) ? WEXITSTATUS(prc) : 128;
        if (prc != 0) {
            char log[400];
            read_log(path, log, sizeof log);
            outcome(o, FAIL_TLC, "ptxas -arch=%s rejects tlc's PTX (--num-warps %d), exit %d: %s", arch, k->num_warps, prc,
                    log);
        }
    }
    if (rc != 0) {
        char log[400];
        read_log(path, log, sizeof log);
        outcome(o, FAIL_TLC, "tlc --signature '%s' --num-warps %d --arch %s exited %d: %s", sig, k->num_warps, arch, rc,
                log);
    }
    remove(path);
    char logpath[600];
    snprintf(logpath, sizeof logpath, "%s.log", path);
    remove(logpath);
    snprintf(logpath, sizeof logpath, "%s.ptx", path);
    remove(logpath);
}

typedef struct Opts {
    const char *tlc, *ptxas, *tmpdir;
    int gpu, timeout, nofork;
} Opts;

/* One kernel, in a child process on the CPU (a crash or a hang is a
 * failure, not the end of the run); on the GPU in this process. */
static void check(const Opts *op, TlContext *gctx, TlContext *cpu, const Kernel *k, uint64_t seed, Outcome *o) {
    memset(o, 0, sizeof *o);
    if (op->gpu) {
        test_kernel(gctx, cpu, k, seed, o);
        return;
    }
    if (op->nofork) { /* for a debugger */
        TlContext *ctx;
        if (tl_context_create(TL_DEVICE_CPU, &ctx) != TL_SUCCESS)
            outcome(o, FAIL_LAUNCH, "no interpreter context");
        else
            test_kernel(ctx, NULL, k, seed, o);
        tl_context_destroy(ctx);
        if (!o->fail && op->tlc)
            test_tlc(op->tlc, op->ptxas, k, op->tmpdir, o);
        return;
    }
    int fd[2];
    if (pipe(fd) != 0) {
        outcome(o, FAIL_CRASH, "pipe: %s", strerror(errno));
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(fd[0]);
        alarm(op->timeout);
        TlContext *ctx;
        Outcome c = {0};
        if (tl_context_create(TL_DEVICE_CPU, &ctx) != TL_SUCCESS)
            outcome(&c, FAIL_LAUNCH, "no interpreter context");
        else
            test_kernel(ctx, NULL, k, seed, &c);
        if (!c.fail && op->tlc)
            test_tlc(op->tlc, op->ptxas, k, op->tmpdir, &c);
        if (write(fd[1], &c, sizeof c) != (ssize_t)sizeof c)
            _exit(3);
        _exit(0);
    }
    close(fd[1]);
    Outcome c;
    ssize_t got = read(fd[0], &c, sizeof c);
    close(fd[0]);
    int st;
    waitpid(pid, &st, 0);
    if (got == (ssize_t)sizeof c)
        *o = c;
    else if (WIFSIGNALED(st))
        outcome(o, FAIL_CRASH, "killed by signal %d (%s)", WTERMSIG(st), WTERMSIG(st) == SIGALRM ? "timeout" : "crash");
    else
        outcome(o, FAIL_CRASH, "the test process exited %d", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

/* ------------------------------------------------------------ reduction */

/* Node ids above `from` shift down by one; uses of `from` become `to`. */
static void delete_node(Kernel *k, int id) {
    for (int i = id; i + 1 < k->n; i++)
        k->nodes[i] = k->nodes[i + 1];
    k->n--;
    int *refs[3];
    for (int i = 0; i < k->n; i++) {
        Node *n = &k->nodes[i];
        refs[0] = &n->a, refs[1] = &n->b, refs[2] = &n->c;
        for (int r = 0; r < 3; r++)
            if (*refs[r] > id)
                (*refs[r])--;
    }
    if (k->root > id)
        k->root--;
    if (k->store_cond > id)
        k->store_cond--;
    register_inputs(k);
}
static int used(const Kernel *k, int id) {
    if (k->root == id || k->store_cond == id)
        return 1;
    for (int i = id + 1; i < k->n; i++)
        if (k->nodes[i].a == id || k->nodes[i].b == id || k->nodes[i].c == id)
            return 1;
    return 0;
}

/* Greedy reduction: drop unused nodes, replace a node by its operand (or a
 * cast of it) or by a fresh load, drop masks, conditions and `other`, while
 * the kernel still fails the same way. */
static void reduce_kernel(const Opts *op, TlContext *g, TlContext *cpu, Kernel *k, uint64_t seed, int kind) {
    Outcome o;
    for (int changed = 1, rounds = 0; changed && rounds < 20; rounds++) {
        changed = 0;
        for (int id = k->n - 1; id >= 0; id--) {
            Kernel t = *k;
            if (id >= t.n)
                continue;
            if (!used(&t, id)) {
                delete_node(&t, id);
                check(op, g, cpu, &t, seed, &o);
                if (o.fail == kind) {
                    *k = t, changed = 1;
                    continue;
                }
            }
            Node *n = &k->nodes[id];
            int opnd[3] = {n->a, n->b, n->c};
            for (int r = 0; r < 3; r++) {
                int c = opnd[r];
                if (c < 0 || !sh_eq(k->nodes[c].sh, n->sh) || k->nodes[c].kind == N_LIT)
                    continue;
                t = *k;
                if (k->nodes[c].dt == n->dt) {
                    t.nodes[id] = t.nodes[c];
                } else {
                    Node m = mk(N_CAST, n->dt, n->sh);
                    m.a = c;
                    t.nodes[id] = m;
                }
                /* a load copied: a new input (renumbered by delete_node) */
                if (t.nodes[id].kind == N_LOAD && t.n < MAXN) {
                    t.nodes[t.n++] = mk(N_LIT, G_I32, sh0());
                    delete_node(&t, t.n - 1);
                }
                if (t.ninputs > MAXIN)
                    continue;
                check(op, g, cpu, &t, seed, &o);
                if (o.fail == kind) {
                    *k = t, changed = 1;
                    break;
                }
            }
            if (changed)
                continue;
            n = &k->nodes[id];
            if (n->kind == N_LOAD && (n->c >= 0 || !n->has_other)) {
                t = *k;
                t.nodes[id].c = -1;
                t.nodes[id].has_other = 1;
                t.nodes[id].other = 1;
                check(op, g, cpu, &t, seed, &o);
                if (o.fail == kind) {
                    *k = t, changed = 1;
                    continue;
                }
            }
            if (n->kind != N_LOAD && n->kind != N_LIT && n->dt != G_I1 && k->ninputs < MAXIN &&
                !(n->sh.rank == 2 && (n->sh.d[0] == AX_1 || n->sh.d[1] == AX_1))) {
                t = *k;
                Node m = mk(N_LOAD, n->dt, n->sh);
                m.has_other = 1, m.other = 1;
                t.nodes[id] = m;
                t.nodes[t.n++] = mk(N_LIT, G_I32, sh0());
                delete_node(&t, t.n - 1);
                check(op, g, cpu, &t, seed, &o);
                if (o.fail == kind) {
                    *k = t, changed = 1;
                    continue;
                }
            }
        }
        if (k->store_cond >= 0) {
            Kernel t = *k;
            t.store_cond = -1;
            check(op, g, cpu, &t, seed, &o);
            if (o.fail == kind)
                *k = t, changed = 1;
        }
    }
}

/* ------------------------------------------------------------ driver */

static int failures;
static long total_compared, total_skipped;

static void save(const char *dir, const char *stem, const Kernel *k, uint64_t seed, const Outcome *o) {
    char path[600];
    snprintf(path, sizeof path, "%s/%s.tl", dir, stem);
    FILE *f = fopen(path, "w");
    if (!f) {
        printf("    (cannot write %s: %s)\n", path, strerror(errno));
        return;
    }
    char *h = kernel_header(k), *s = kernel_src(k);
    fprintf(f, "# kgen data seed %llu: %s\n# ", (unsigned long long)seed, fail_name[o->fail]);
    for (const char *m = o->msg; *m; m++) /* a diagnostic's lines stay comments */
        fputs(*m == '\n' ? (m[1] ? "\n# " : "") : (char[]){*m, 0}, f);
    fprintf(f, "\n%s%s", h, s);
    fclose(f);
    free(h), free(s);
    printf("    wrote %s\n", path);
}

static void one(const Opts *op, TlContext *g, TlContext *cpu, uint64_t kseed, const char *outdir, int do_reduce,
                const char *label) {
    Kernel k;
    gen_kernel(&k, kseed);
    Outcome o;
    check(op, g, cpu, &k, kseed, &o);
    total_compared += o.compared, total_skipped += o.skipped;
    if (!o.fail)
        return;
    failures++;
    printf("[FAIL] %s (kernel seed %llu): %s: %s\n", label, (unsigned long long)kseed, fail_name[o.fail], o.msg);
    fflush(stdout);
    if (!outdir)
        return;
    mkdir(outdir, 0777);
    char stem[64];
    snprintf(stem, sizeof stem, "fail-%llu", (unsigned long long)kseed);
    save(outdir, stem, &k, kseed, &o);
    if (do_reduce) {
        int kind = o.fail;
        reduce_kernel(op, g, cpu, &k, kseed, kind);
        check(op, g, cpu, &k, kseed, &o);
        strcat(stem, "-min");
        if (o.fail)
            save(outdir, stem, &k, kseed, &o);
    }
}

static char *slurp(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *p = malloc(n + 1);
    if (fread(p, 1, n, f) != (size_t)n)
        n = 0;
    p[n] = 0;
    fclose(f);
    return p;
}

/* A regression file: the DAG from its header must print as its body. */
static void run_file(const Opts *op, TlContext *g, TlContext *cpu, const char *path) {
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    char label[300];
    snprintf(label, sizeof label, "gen/file/%.*s", (int)(strlen(base) > 3 ? strlen(base) - 3 : strlen(base)), base);
    char *text = slurp(path), err[200];
    Kernel k;
    if (!text) {
        printf("[FAIL] %s: cannot read %s\n", label, path);
        failures++;
        return;
    }
    if (!parse_header(text, &k, err, sizeof err)) {
        printf("[FAIL] %s: %s\n", label, err);
        failures++;
        free(text);
        return;
    }
    char *src = kernel_src(&k), *body = strstr(text, "import triton\n");
    if (!body || strcmp(body, src) != 0) {
        printf("[FAIL] %s: the kernel text is not what its \"# kgen\" lines print:\n%s", label, src);
        failures++;
    } else {
        uint64_t seed = 1;
        const char *d = strstr(text, "# kgen data seed ");
        if (d)
            seed = strtoull(d + 17, NULL, 10);
        Outcome o;
        check(op, g, cpu, &k, seed, &o);
        if (o.fail) {
            printf("[FAIL] %s: %s: %s\n", label, fail_name[o.fail], o.msg);
            failures++;
        } else {
            printf("[PASS] %s\n", label);
        }
    }
    free(src);
    free(text);
}

int main(int argc, char **argv) {
    Opts op = {NULL, NULL, NULL, 0, 60, 0};
    uint64_t seed = 1, print_seed = 0;
    long count = 40;
    int count_given = 0;
    double seconds = 0;
    const char *outdir = NULL;
    int nfiles = 0, do_print = 0, random_seed = 0;
    const char *files[256];
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--seed") && v)
            seed = strtoull(v, NULL, 0), i++;
        else if (!strcmp(a, "--count") && v)
            count = atol(v), count_given = 1, i++;
        else if (!strcmp(a, "--seconds") && v)
            seconds = atof(v), i++, random_seed = 1;
        else if (!strcmp(a, "--out") && v)
            outdir = v, i++;
        else if (!strcmp(a, "--tlc") && v)
            op.tlc = v, i++;
        else if (!strcmp(a, "--ptxas") && v)
            op.ptxas = v, i++;
        else if (!strcmp(a, "--print") && v)
            print_seed = strtoull(v, NULL, 0), do_print = 1, i++;
        else if (!strcmp(a, "--maxnreg") && v)
            maxnreg = atoi(v), i++;
        else if (!strcmp(a, "--no-fork"))
            op.nofork = 1;
        else if (!strcmp(a, "--gpu"))
            op.gpu = 1;
        else if (!strcmp(a, "--gpu-sim")) /* the --gpu code path with a second interpreter as the "GPU" */
            op.gpu = 2;
        else if (!strcmp(a, "--file")) {
            while (i + 1 < argc && argv[i + 1][0] != '-' && nfiles < 256)
                files[nfiles++] = argv[++i];
        } else {
            fprintf(stderr,
                    "usage: kgen [--seed S] [--count N] [--seconds T] [--out DIR] [--tlc PATH [--ptxas PATH]] [--gpu]\n"
                    "            [--maxnreg N] [--file F.tl ...] [--print KERNEL_SEED]\n");
            return 2;
        }
    }
    if (do_print) {
        Kernel k;
        gen_kernel(&k, print_seed);
        char *h = kernel_header(&k), *s = kernel_src(&k);
        printf("# kgen data seed %llu\n%s%s", (unsigned long long)print_seed, h, s);
        free(h), free(s);
        return 0;
    }
    const char *tmp = getenv("TMPDIR");
    op.tmpdir = tmp && *tmp ? tmp : "/tmp";
    TlContext *g = NULL, *cpu = NULL;
    if (op.gpu) {
        if (tl_context_create(op.gpu == 2 ? TL_DEVICE_CPU : TL_DEVICE_CUDA, &g) != TL_SUCCESS) {
            printf("kgen: no GPU: %s\n", tl_last_error(NULL));
            return 3;
        }
        if (tl_context_create(TL_DEVICE_CPU, &cpu) != TL_SUCCESS) {
            printf("kgen: no interpreter context\n");
            return 2;
        }
        printf("device: %s\n", tl_context_device_name(g));
    }
    const char *mode = op.gpu ? (maxnreg ? "gpu_capped" : "gpu") : maxnreg ? "interp_capped" : "interp";
    if (nfiles) {
        for (int i = 0; i < nfiles; i++)
            run_file(&op, g, cpu, files[i]);
    } else {
        if (random_seed)
            seed = mix((uint64_t)time(NULL), (uint64_t)getpid());
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        long done = 0;
        char label[64];
        snprintf(label, sizeof label, "gen/%s", mode);
        for (;; done++) {
            if (seconds > 0) {
                clock_gettime(CLOCK_MONOTONIC, &t1);
                if (t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) * 1e-9 > seconds)
                    break;
            }
            if ((seconds <= 0 || count_given) && done >= count)
                break;
            one(&op, g, cpu, mix(seed, (uint64_t)done), outdir, outdir != NULL, label);
        }
        if (!failures) {
            printf("[PASS] gen/%s (%ld kernels from seed %llu%s)\n", mode, done, (unsigned long long)seed,
                   op.tlc ? op.ptxas ? ", each through tlc and ptxas" : ", each through tlc to PTX" : "");
        printf("    %ld output elements checked, %ld left undetermined by the reference\n", total_compared,
               total_skipped);
        } else {
            printf("%d of %ld generated kernels failed (seed %llu)\n", failures, done, (unsigned long long)seed);
        }
    }
    tl_context_destroy(g);
    tl_context_destroy(cpu);
    return failures ? 1 : 0;
}
