/* harness.c: kernels built by hand (IR + layouts, no front end, no layout
 * pass) and run through codegen_module, so the back end is tested alone.
 *
 *   harness KERNEL [--arch=sm_80] [--emit=llvm|ptx] [-O0..-O3]
 *   harness --all [...]     every kernel but big_convert, in one module
 *   harness --list
 *
 * prints the LLVM IR or the PTX (default) of one kernel (or of all). The kernels here are
 * the ones tests/codegen.sh checks with FileCheck and ptxas, and the ones
 * tests/codegen/gpu_check.py launches on a GPU against numpy references (see
 * each kernel's comment for its launch). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen.h"
#include "layout.h"
#include "passes.h"
#include "ptx.h"

static Arena arena;
static Function *F;
static Block *B; /* where emit() appends */
static const Span SP = {1, 1, 0, 0};

static ValueId emit(OpCode op, Type t, const ValueId *args, int n) { return ir_emit(F, B, op, t, args, n, SP); }
static Type i32(void) { return ir_scalar(DT_I32); }
static Type blk(DType dt, int rank, int d0, int d1) {
    int32_t s[2] = {d0, d1};
    return ir_block(ir_scalar(dt), rank, s);
}
static Type pblk(DType pointee, int rank, int d0, int d1) {
    int32_t s[2] = {d0, d1};
    return ir_block(ir_ptr(pointee), rank, s);
}
static ValueId lay(ValueId v, int li) {
    F->values[v].layout = li;
    return v;
}
static ValueId ci32(int64_t v) {
    Inst *in = ir_inst_new(F, B, IR_CONST, NULL, 0, (Type[]){i32()}, 1, SP);
    in->attr.i = v;
    return in->results[0];
}
static ValueId cblk(Type t, int li, int64_t i, double f) {
    Inst *in = ir_inst_new(F, B, IR_CONST, NULL, 0, &t, 1, SP);
    in->attr.i = i;
    in->attr.f = f;
    return lay(in->results[0], li);
}
static ValueId op1(OpCode op, Type t, ValueId a, int li) { return lay(emit(op, t, &a, 1), li); }
static ValueId op2(OpCode op, Type t, ValueId a, ValueId b, int li) {
    ValueId args[2] = {a, b};
    return lay(emit(op, t, args, 2), li);
}
static ValueId cmp(int pred, Type t, ValueId a, ValueId b, int li) {
    ValueId v = op2(IR_CMP, ir_with_dtype(t, DT_I1), a, b, li);
    F->values[v].def->attr.pred = pred;
    return v;
}
static ValueId arange(int n, int li) {
    Inst *in = ir_inst_new(F, B, IR_ARANGE, NULL, 0, (Type[]){blk(DT_I32, 1, n, 0)}, 1, SP);
    in->attr.start = 0;
    in->attr.end = n;
    return lay(in->results[0], li);
}
static ValueId expand(ValueId v, int axis, Type t, int li) {
    ValueId r = op1(IR_EXPAND_DIMS, t, v, li);
    F->values[r].def->attr.axis = axis;
    return r;
}
static ValueId load(Type t, ValueId ptr, ValueId mask, ValueId other, int li) {
    ValueId args[3] = {ptr, mask, other};
    int n = other ? 3 : mask ? 2 : 1;
    ValueId r = lay(emit(IR_LOAD, t, args, n), li);
    F->values[r].def->attr.has_mask = mask != 0;
    F->values[r].def->attr.has_other = other != 0;
    return r;
}
static void store(ValueId ptr, ValueId val, ValueId mask) {
    ValueId args[3] = {ptr, val, mask};
    Inst *in = ir_inst_new(F, B, IR_STORE, args, mask ? 3 : 2, NULL, 0, SP);
    in->attr.has_mask = mask != 0;
}
static ValueId pid(int axis) {
    ValueId v = emit(IR_PROGRAM_ID, i32(), NULL, 0);
    F->values[v].def->attr.axis = axis;
    return v;
}

static int blocked(int rank, const int *spt, const int *tpw, const int *wpc, const int *order) {
    Layout l = {.kind = LAYOUT_BLOCKED, .rank = rank};
    for (int d = 0; d < rank; d++) {
        l.size_per_thread[d] = spt[d];
        l.threads_per_warp[d] = tpw[d];
        l.warps_per_cta[d] = wpc[d];
        l.order[d] = order[d];
    }
    return layout_intern(F, &l);
}
static int blocked1(int spt, int tpw, int wpc) { return blocked(1, &spt, &tpw, &wpc, (int[]){0}); }
static int slice(int parent, int dim) {
    Layout l = {.kind = LAYOUT_SLICE, .rank = F->layouts[parent].rank - 1, .parent = parent, .dim = dim};
    return layout_intern(F, &l);
}
static int mma(int wm, int wn) {
    Layout l = {.kind = LAYOUT_MMA, .rank = 2, .warps_per_cta = {wm, wn}};
    return layout_intern(F, &l);
}
static int dot_op(int parent, int idx, int kw) {
    Layout l = {.kind = LAYOUT_DOT_OPERAND, .rank = 2, .parent = parent, .op_idx = idx, .k_width = kw};
    return layout_intern(F, &l);
}

static Function *new_func(const char *name, int num_warps) {
    F = ir_func_new(&arena, name);
    F->num_warps = num_warps;
    B = F->body;
    return F;
}
static ValueId param(const char *name, Type t, int div) {
    ValueId v = ir_param(F, name, t);
    F->params[F->nparams - 1].divisibility = div;
    return v;
}
static void ret(void) { ir_inst_new(F, B, IR_RETURN, NULL, 0, NULL, 0, SP); }

/* Row and column index blocks of an R x C block in layout li: (rows[:, None], cols[None, :]). */
static void grid2(int R, int C, int li, ValueId *rows, ValueId *cols) {
    int s0 = slice(li, 1), s1 = slice(li, 0);
    ValueId r = arange(R, s0), c = arange(C, s1);
    ValueId re = expand(r, 1, blk(DT_I32, 2, R, 1), li), ce = expand(c, 0, blk(DT_I32, 2, 1, C), li);
    *rows = op1(IR_BROADCAST, blk(DT_I32, 2, R, C), re, li);
    *cols = op1(IR_BROADCAST, blk(DT_I32, 2, R, C), ce, li);
}

/* ptr + rows * stride + cols, a block of pointers */
static ValueId ptrs2(ValueId base, DType dt, ValueId rows, ValueId cols, int stride, int li, int R, int C) {
    ValueId s = op1(IR_SPLAT, blk(DT_I32, 2, R, C), ci32(stride), li);
    ValueId off = op2(IR_ADD, blk(DT_I32, 2, R, C), op2(IR_MUL, blk(DT_I32, 2, R, C), rows, s, li), cols, li);
    ValueId p = op1(IR_SPLAT, pblk(dt, 2, R, C), base, li);
    return op2(IR_ADDPTR, pblk(dt, 2, R, C), p, off, li);
}

/* ---- kernels ---- */

/* copy(x, z, n): z[i] = x[i] for i < n, BLOCK = 1024 per program, 4 warps,
 * 4 elements per thread. `hints`: x, z and n are ":16" (vector width 4). */
static Function *k_copy(bool hints) {
    new_func(hints ? "copy_v4" : "copy_v1", 4);
    int l = blocked1(4, 32, 4);
    ValueId x = param("x", ir_ptr(DT_F32), hints ? 16 : 1), z = param("z", ir_ptr(DT_F32), hints ? 16 : 1);
    ValueId n = param("n", i32(), hints ? 16 : 1);
    Type ti = blk(DT_I32, 1, 1024, 0), tp = pblk(DT_F32, 1, 1024, 0);
    ValueId off = op2(IR_MUL, i32(), pid(0), ci32(1024), 0);
    ValueId offs = op2(IR_ADD, ti, op1(IR_SPLAT, ti, off, l), arange(1024, l), l);
    ValueId mask = cmp(CMP_LT, ti, offs, op1(IR_SPLAT, ti, n, l), l);
    ValueId v = load(blk(DT_F32, 1, 1024, 0), op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), offs, l), mask, 0, l);
    store(op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, z, l), offs, l), v, mask);
    ret();
    return F;
}

/* offs64(x, z, stride): z[pid * 256 + i] = x[pid * stride + i] (i < 256):
 * stride * pid can pass 2^31 / 4 elements, so addresses need 64 bits. */
static Function *k_offs64(void) {
    new_func("offs64", 2);
    int l = blocked1(4, 32, 2);
    ValueId x = param("x", ir_ptr(DT_F32), 16), z = param("z", ir_ptr(DT_F32), 16), st = param("stride", i32(), 16);
    Type ti = blk(DT_I32, 1, 256, 0), tp = pblk(DT_F32, 1, 256, 0);
    ValueId p = pid(0), ar = arange(256, l);
    ValueId src = op2(IR_ADD, ti, op1(IR_SPLAT, ti, op2(IR_MUL, i32(), p, st, 0), l), ar, l);
    ValueId v = load(blk(DT_F32, 1, 256, 0), op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), src, l), 0, 0, l);
    ValueId dst = op2(IR_ADD, ti, op1(IR_SPLAT, ti, op2(IR_MUL, i32(), p, ci32(256), 0), l), ar, l);
    store(op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, z, l), dst, l), v, 0);
    ret();
    return F;
}

/* reduce(x, out): one program; x is R x C fp32 row-major; out[0:R] = kind over
 * axis 1 of x (axis 0 with `cols`: out[0:C]). */
static Function *k_reduce(const char *name, int kind, int axis, int R, int C, int nw) {
    new_func(name, nw);
    int l = blocked(2, (int[]){1, 4}, (int[]){2, 16}, (int[]){nw, 1}, (int[]){1, 0});
    if (axis == 0) /* warps split the reduced axis: partials meet in shared memory */
        l = blocked(2, (int[]){1, 4}, (int[]){4, 8}, (int[]){nw, 1}, (int[]){1, 0});
    ValueId x = param("x", ir_ptr(DT_F32), 16), out = param("out", ir_ptr(kind >= RED_ARGMAX ? DT_I32 : DT_F32), 16);
    ValueId rows, cols;
    grid2(R, C, l, &rows, &cols);
    ValueId v = load(blk(DT_F32, 2, R, C), ptrs2(x, DT_F32, rows, cols, C, l, R, C), 0, 0, l);
    int n = axis ? R : C, sl = slice(l, axis);
    DType rt = kind >= RED_ARGMAX ? DT_I32 : DT_F32;
    ValueId r = op1(IR_REDUCE, blk(rt, 1, n, 0), v, sl);
    F->values[r].def->attr.reduce = kind;
    F->values[r].def->attr.axis = axis;
    Type tp = pblk(rt, 1, n, 0);
    store(op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, out, sl), arange(n, sl), sl), r, 0);
    ret();
    return F;
}

/* matmul(a, b, c, K): one program computes C[M x N] = A[M x K] @ B[K x N]
 * (row-major, fp32 C) in a loop over K in steps of BK: loads in blocked
 * layouts, converts to the dot operand layouts, dot on an MMA accumulator
 * carried by the loop, convert back, store. */
static Function *k_matmul(const char *name, DType in, DType acc_t, int prec, int M, int N, int BK, int wm, int wn,
                          bool fma_layouts) {
    int nw = wm * wn;
    new_func(name, nw);
    int kw = dt_bits(in) == 16 ? 2 : dt_bits(in) == 8 ? 4 : 1;
    int la = blocked(2, (int[]){1, 4}, (int[]){4, 8}, (int[]){nw, 1}, (int[]){1, 0});
    int lc = blocked(2, (int[]){1, 4}, (int[]){8, 4}, (int[]){nw, 1}, (int[]){1, 0});
    int mm = fma_layouts ? blocked(2, (int[]){2, 2}, (int[]){4, 8}, (int[]){wm, wn}, (int[]){1, 0}) : mma(wm, wn);
    int da = dot_op(mm, 0, kw), db = dot_op(mm, 1, kw);
    ValueId a = param("a", ir_ptr(in), 16), b = param("b", ir_ptr(in), 16), c = param("c", ir_ptr(acc_t), 16);
    ValueId K = param("K", i32(), 16);
    ValueId ar, ac, br, bc;
    grid2(M, BK, la, &ar, &ac);
    grid2(BK, N, la, &br, &bc);
    ValueId ap0 = ptrs2(a, in, ar, ac, 0, la, M, BK); /* stride K applied below */
    /* a_ptrs = a + rows * K + cols */
    ValueId ks = op1(IR_SPLAT, blk(DT_I32, 2, M, BK), K, la);
    ValueId aoff = op2(IR_ADD, blk(DT_I32, 2, M, BK), op2(IR_MUL, blk(DT_I32, 2, M, BK), ar, ks, la), ac, la);
    ap0 = op2(IR_ADDPTR, pblk(in, 2, M, BK), op1(IR_SPLAT, pblk(in, 2, M, BK), a, la), aoff, la);
    ValueId bp0 = ptrs2(b, in, br, bc, N, la, BK, N);
    ValueId acc0 = cblk(blk(acc_t, 2, M, N), mm, 0, 0.0);
    /* for k in range(0, K, BK): acc += dot(a, b); a_ptrs += BK; b_ptrs += BK * N */
    ValueId fargs[6] = {ci32(0), K, ci32(BK), acc0, ap0, bp0};
    Type rts[3] = {blk(acc_t, 2, M, N), pblk(in, 2, M, BK), pblk(in, 2, BK, N)};
    Inst *loop = ir_inst_new(F, B, IR_FOR, fargs, 6, rts, 3, SP);
    Block *body = ir_block_new(F);
    body->parent = loop;
    loop->regions[0] = body;
    loop->nregions = 1;
    ir_block_arg(F, body, i32());
    ValueId cacc = lay(ir_block_arg(F, body, rts[0]), mm);
    ValueId cap = lay(ir_block_arg(F, body, rts[1]), la), cbp = lay(ir_block_arg(F, body, rts[2]), la);
    lay(loop->results[0], mm);
    lay(loop->results[1], la);
    lay(loop->results[2], la);
    Block *outer = B;
    B = body;
    ValueId av = load(blk(in, 2, M, BK), cap, 0, 0, la), bv = load(blk(in, 2, BK, N), cbp, 0, 0, la);
    ValueId ad = op1(IR_CONVERT_LAYOUT, blk(in, 2, M, BK), av, da), bd = op1(IR_CONVERT_LAYOUT, blk(in, 2, BK, N), bv, db);
    ValueId dargs[3] = {ad, bd, cacc};
    ValueId d = lay(emit(IR_DOT, rts[0], dargs, 3), mm);
    F->values[d].def->attr.precision = prec;
    ValueId na = op2(IR_ADDPTR, rts[1], cap, op1(IR_SPLAT, blk(DT_I32, 2, M, BK), ci32(BK), la), la);
    ValueId nb = op2(IR_ADDPTR, rts[2], cbp, op1(IR_SPLAT, blk(DT_I32, 2, BK, N), ci32(BK * N), la), la);
    ir_inst_new(F, B, IR_YIELD, (ValueId[]){d, na, nb}, 3, NULL, 0, SP);
    B = outer;
    ValueId res = op1(IR_CONVERT_LAYOUT, rts[0], loop->results[0], lc);
    ValueId cr, cc;
    grid2(M, N, lc, &cr, &cc);
    store(ptrs2(c, acc_t, cr, cc, N, lc, M, N), res, 0);
    ret();
    return F;
}

/* Regions: for / while / if bodies are built through these. */
static Block *region(Inst *owner, int i) {
    Block *b = ir_block_new(F);
    b->parent = owner;
    owner->regions[i] = b;
    if (owner->nregions < i + 1)
        owner->nregions = i + 1;
    return b;
}
static void yield(OpCode op, const ValueId *vals, int n) { ir_inst_new(F, B, op, vals, n, NULL, 0, SP); }

/* ctrl(x, z): two programs of 128 int32. while i < 5: acc = acc * 2 + i;
 * then pid 0 adds 1, pid 1 subtracts i (5); then for j in 0..2: acc += j.
 * z[pid * 128 + e] = 32 x + 26 + (pid ? -5 : 1) + 3. */
static Function *k_ctrl(void) {
    new_func("ctrl", 4);
    int l = blocked1(1, 32, 4);
    Type tb = blk(DT_I32, 1, 128, 0), tp = pblk(DT_I32, 1, 128, 0);
    ValueId x = param("x", ir_ptr(DT_I32), 16), z = param("z", ir_ptr(DT_I32), 16);
    ValueId p = pid(0), ar = arange(128, l);
    ValueId offs = op2(IR_ADD, tb, op1(IR_SPLAT, tb, op2(IR_MUL, i32(), p, ci32(128), 0), l), ar, l);
    ValueId v = load(tb, op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), offs, l), 0, 0, l);
    Type wt[2] = {i32(), tb};
    Inst *w = ir_inst_new(F, B, IR_WHILE, (ValueId[]){ci32(0), v}, 2, wt, 2, SP);
    lay(w->results[1], l);
    Block *outer = B;
    B = region(w, 0);
    ValueId bi = ir_block_arg(F, B, i32()), bacc = lay(ir_block_arg(F, B, tb), l);
    yield(IR_CONDITION, (ValueId[]){cmp(CMP_LT, i32(), bi, ci32(5), 0), bi, bacc}, 3);
    B = region(w, 1);
    ValueId ai = ir_block_arg(F, B, i32()), aacc = lay(ir_block_arg(F, B, tb), l);
    ValueId two = op1(IR_SPLAT, tb, ci32(2), l);
    ValueId nacc = op2(IR_ADD, tb, op2(IR_MUL, tb, aacc, two, l), op1(IR_SPLAT, tb, ai, l), l);
    yield(IR_YIELD, (ValueId[]){op2(IR_ADD, i32(), ai, ci32(1), 0), nacc}, 2);
    B = outer;
    Inst *c = ir_inst_new(F, B, IR_IF, (ValueId[]){cmp(CMP_EQ, i32(), p, ci32(0), 0)}, 1, &tb, 1, SP);
    lay(c->results[0], l);
    B = region(c, 0);
    yield(IR_YIELD, (ValueId[]){op2(IR_ADD, tb, w->results[1], op1(IR_SPLAT, tb, ci32(1), l), l)}, 1);
    B = region(c, 1);
    yield(IR_YIELD, (ValueId[]){op2(IR_SUB, tb, w->results[1], op1(IR_SPLAT, tb, w->results[0], l), l)}, 1);
    B = outer;
    Inst *fl = ir_inst_new(F, B, IR_FOR, (ValueId[]){ci32(0), ci32(3), ci32(1), c->results[0]}, 4, &tb, 1, SP);
    lay(fl->results[0], l);
    B = region(fl, 0);
    ValueId j = ir_block_arg(F, B, i32()), facc = lay(ir_block_arg(F, B, tb), l);
    yield(IR_YIELD, (ValueId[]){op2(IR_ADD, tb, facc, op1(IR_SPLAT, tb, j, l), l)}, 1);
    B = outer;
    store(op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, z, l), offs, l), fl->results[0], 0);
    ret();
    return F;
}

static ValueId rmw(int kind, Type t, ValueId ptr, ValueId val, int li) {
    ValueId r = op2(IR_ATOMIC_RMW, t, ptr, val, li);
    F->values[r].def->attr.rmw = kind;
    return r;
}

/* atomics(cnt, tickets, flags, counter): a 32-element block in a 128-thread
 * layout (each element in 4 threads): cnt[e] += 1 must count once per program;
 * tickets[pid] = atomic_add(counter, 1) (a permutation of 0..G-1);
 * flags[pid] = atomic_cas(&flags[pid], 0, pid + 1) old value (0) stored to
 * tickets[G + pid] and the new value stays in flags. */
static Function *k_atomics(void) {
    new_func("atomics", 4);
    int l = blocked1(1, 32, 4);
    ValueId cnt = param("cnt", ir_ptr(DT_F32), 16), tk = param("tickets", ir_ptr(DT_I32), 16);
    ValueId fl = param("flags", ir_ptr(DT_I32), 16), counter = param("counter", ir_ptr(DT_I32), 16);
    ValueId G = param("G", i32(), 1);
    Type tp = pblk(DT_F32, 1, 32, 0), tf = blk(DT_F32, 1, 32, 0);
    ValueId ptrs = op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, cnt, l), arange(32, l), l);
    ValueId one = cblk(tf, l, 0, 1.0);
    ValueId old = rmw(RMW_ADD, tf, ptrs, one, l);
    (void)old;
    ValueId p = pid(0);
    ValueId t = rmw(RMW_ADD, i32(), counter, ci32(1), 0);
    store(op2(IR_ADDPTR, ir_ptr(DT_I32), tk, p, 0), t, 0);
    ValueId fp = op2(IR_ADDPTR, ir_ptr(DT_I32), fl, p, 0);
    ValueId cas = lay(emit(IR_ATOMIC_CAS, i32(), (ValueId[]){fp, ci32(0), op2(IR_ADD, i32(), p, ci32(1), 0)}, 3), 0);
    store(op2(IR_ADDPTR, ir_ptr(DT_I32), tk, op2(IR_ADD, i32(), G, p, 0), 0), cas, 0);
    ret();
    return F;
}

/* math(x, out): 256 fp32 per program; out[k * 256 + e] = op_k(x[e]). */
static const OpCode math_ops[] = {IR_EXP, IR_LOG, IR_SQRT, IR_RSQRT, IR_SIN, IR_COS, IR_FLOOR, IR_CEIL,
                                  IR_ABS, IR_EXP2, IR_LOG2, IR_NEG};
enum { NMATH = sizeof math_ops / sizeof math_ops[0] };
static Function *k_math(void) {
    new_func("math", 4);
    int l = blocked1(2, 32, 4);
    Type tf = blk(DT_F32, 1, 256, 0), tp = pblk(DT_F32, 1, 256, 0), ti = blk(DT_I32, 1, 256, 0);
    ValueId x = param("x", ir_ptr(DT_F32), 16), out = param("out", ir_ptr(DT_F32), 16);
    ValueId ar = arange(256, l);
    ValueId v = load(tf, op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), ar, l), 0, 0, l);
    ValueId res[NMATH + 8];
    int n = 0;
    for (int k = 0; k < NMATH; k++)
        res[n++] = op1(math_ops[k], tf, v, l);
    ValueId fargs[3] = {v, v, v};
    res[n++] = lay(emit(IR_FMA, tf, fargs, 3), l);
    res[n++] = op2(IR_DIV, tf, v, op2(IR_ADD, tf, v, cblk(tf, l, 0, 1.0), l), l);
    res[n++] = op2(IR_REM, tf, op2(IR_MUL, tf, v, cblk(tf, l, 0, 7.0), l), cblk(tf, l, 0, 1.5), l);
    res[n++] = op2(IR_MAX, tf, v, cblk(tf, l, 0, 1.0), l);
    res[n++] = op1(IR_CAST, tf, op1(IR_CAST, blk(DT_F16, 1, 256, 0), v, l), l);
    res[n++] = op1(IR_CAST, tf, op1(IR_CAST, blk(DT_BF16, 1, 256, 0), v, l), l);
    ValueId ten = op2(IR_MUL, tf, v, cblk(tf, l, 0, -10.0), l);
    res[n++] = op1(IR_CAST, tf, op1(IR_CAST, ti, ten, l), l); /* trunc toward zero */
    ValueId h = op1(IR_CAST, blk(DT_F16, 1, 256, 0), v, l);   /* fp16 math through fp32 */
    res[n++] = op1(IR_CAST, tf, op1(IR_EXP, blk(DT_F16, 1, 256, 0), h, l), l);
    for (int k = 0; k < n; k++) {
        ValueId off = op2(IR_ADD, ti, ar, op1(IR_SPLAT, ti, ci32(k * 256), l), l);
        store(op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, out, l), off, l), res[k], 0);
    }
    ret();
    return F;
}

/* tconv(x, z): z = x.T for a 32 x 64 fp32 block: trans into the permuted
 * layout (register renaming), then a convert to a row-major blocked layout
 * (through shared memory), then store. */
static Function *k_tconv(void) {
    new_func("tconv", 4);
    int la = blocked(2, (int[]){1, 4}, (int[]){4, 8}, (int[]){4, 1}, (int[]){1, 0});
    int lt = blocked(2, (int[]){4, 1}, (int[]){8, 4}, (int[]){1, 4}, (int[]){0, 1});
    int lc = blocked(2, (int[]){1, 2}, (int[]){2, 16}, (int[]){4, 1}, (int[]){1, 0});
    ValueId x = param("x", ir_ptr(DT_F32), 16), z = param("z", ir_ptr(DT_F32), 16);
    ValueId r, c;
    grid2(32, 64, la, &r, &c);
    ValueId v = load(blk(DT_F32, 2, 32, 64), ptrs2(x, DT_F32, r, c, 64, la, 32, 64), 0, 0, la);
    ValueId t = op1(IR_TRANS, blk(DT_F32, 2, 64, 32), v, lt);
    F->values[t].def->attr.perm[0] = 1;
    F->values[t].def->attr.perm[1] = 0;
    ValueId cv = op1(IR_CONVERT_LAYOUT, blk(DT_F32, 2, 64, 32), t, lc);
    grid2(64, 32, lc, &r, &c);
    store(ptrs2(z, DT_F32, r, c, 32, lc, 64, 32), cv, 0);
    ret();
    return F;
}

/* sum_all(x, out): out[pid] = sum of x[pid * 1024 : +1024] (reduce to a
 * scalar across 4 warps, stored by one thread). */
static Function *k_sum_all(void) {
    new_func("sum_all", 4);
    int l = blocked1(4, 32, 4);
    Type tf = blk(DT_F32, 1, 1024, 0), tp = pblk(DT_F32, 1, 1024, 0), ti = blk(DT_I32, 1, 1024, 0);
    ValueId x = param("x", ir_ptr(DT_F32), 16), out = param("out", ir_ptr(DT_F32), 16);
    ValueId p = pid(0);
    ValueId offs = op2(IR_ADD, ti, op1(IR_SPLAT, ti, op2(IR_MUL, i32(), p, ci32(1024), 0), l), arange(1024, l), l);
    ValueId v = load(tf, op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), offs, l), 0, 0, l);
    ValueId s = op1(IR_REDUCE, ir_scalar(DT_F32), v, 0);
    F->values[s].def->attr.reduce = RED_SUM;
    store(op2(IR_ADDPTR, ir_ptr(DT_F32), out, p, 0), s, 0);
    ret();
    return F;
}

/* prt(x): device_print("x", v) of 4 int32 held by 32 threads (replicated:
 * each element prints once) and of the program id. */
static Function *k_print(void) {
    new_func("prt", 1);
    int l = blocked1(1, 32, 1);
    ValueId x = param("x", ir_ptr(DT_I32), 16);
    Type tp = pblk(DT_I32, 1, 4, 0);
    ValueId v = load(blk(DT_I32, 1, 4, 0), op2(IR_ADDPTR, tp, op1(IR_SPLAT, tp, x, l), arange(4, l), l), 0, 0, l);
    Inst *pr = ir_inst_new(F, B, IR_PRINT, (ValueId[]){v, pid(0)}, 2, NULL, 0, SP);
    pr->attr.str = "x";
    ret();
    return F;
}

/* big_convert(x, z): a 128 x 256 fp32 block converted between layouts needs
 * 128 KB of shared memory: over sm_86's limit, under sm_90's. */
static Function *k_big_convert(void) {
    new_func("big_convert", 4);
    int la = blocked(2, (int[]){1, 4}, (int[]){4, 8}, (int[]){4, 1}, (int[]){1, 0});
    int lb = blocked(2, (int[]){4, 1}, (int[]){8, 4}, (int[]){1, 4}, (int[]){0, 1});
    ValueId x = param("x", ir_ptr(DT_F32), 16), z = param("z", ir_ptr(DT_F32), 16);
    ValueId r, c;
    grid2(128, 256, la, &r, &c);
    ValueId v = load(blk(DT_F32, 2, 128, 256), ptrs2(x, DT_F32, r, c, 256, la, 128, 256), 0, 0, la);
    ValueId cv = op1(IR_CONVERT_LAYOUT, blk(DT_F32, 2, 128, 256), v, lb);
    grid2(128, 256, lb, &r, &c);
    store(ptrs2(z, DT_F32, r, c, 256, lb, 128, 256), cv, 0);
    ret();
    return F;
}

typedef struct Kernel {
    const char *name;
    Function *(*make)(void);
} Kernel;

static Function *mk_copy_v4(void) { return k_copy(true); }
static Function *mk_copy_v1(void) { return k_copy(false); }
static Function *mk_sum_rows(void) { return k_reduce("sum_rows", RED_SUM, 1, 32, 64, 4); }
static Function *mk_max_cols(void) { return k_reduce("max_cols", RED_MAX, 0, 64, 32, 4); }
static Function *mk_argmax_rows(void) { return k_reduce("argmax_rows", RED_ARGMAX, 1, 32, 64, 4); }
static Function *mk_argmin_cols(void) { return k_reduce("argmin_cols", RED_ARGMIN, 0, 64, 32, 4); }
static Function *mk_mm_f16(void) { return k_matmul("mm_f16", DT_F16, DT_F32, PREC_TF32, 64, 64, 32, 2, 2, false); }
static Function *mk_mm_bf16(void) { return k_matmul("mm_bf16", DT_BF16, DT_F32, PREC_TF32, 32, 64, 16, 1, 2, false); }
static Function *mk_mm_tf32(void) { return k_matmul("mm_tf32", DT_F32, DT_F32, PREC_TF32, 64, 32, 16, 2, 2, false); }
static Function *mk_mm_tf32x3(void) { return k_matmul("mm_tf32x3", DT_F32, DT_F32, PREC_TF32X3, 32, 32, 8, 2, 1, false); }
static Function *mk_mm_i8(void) { return k_matmul("mm_i8", DT_I8, DT_I32, PREC_IEEE, 32, 32, 32, 1, 1, false); }
static Function *mk_mm_ieee(void) { return k_matmul("mm_ieee", DT_F32, DT_F32, PREC_IEEE, 32, 32, 16, 2, 2, false); }
static Function *mk_mm_fma(void) { return k_matmul("mm_fma", DT_F32, DT_F32, PREC_IEEE, 32, 64, 8, 2, 2, true); }

static const Kernel kernels[] = {
    {"copy_v4", mk_copy_v4},         {"copy_v1", mk_copy_v1},         {"offs64", k_offs64},
    {"sum_rows", mk_sum_rows},       {"max_cols", mk_max_cols},       {"argmax_rows", mk_argmax_rows},
    {"argmin_cols", mk_argmin_cols}, {"mm_f16", mk_mm_f16},           {"mm_bf16", mk_mm_bf16},
    {"mm_tf32", mk_mm_tf32},         {"mm_tf32x3", mk_mm_tf32x3},     {"mm_i8", mk_mm_i8},
    {"mm_ieee", mk_mm_ieee},         {"mm_fma", mk_mm_fma},           {"ctrl", k_ctrl},
    {"atomics", k_atomics},          {"math", k_math},                {"tconv", k_tconv},
    {"sum_all", k_sum_all},          {"prt", k_print},                {"big_convert", k_big_convert},
};
enum { NKERNELS = sizeof kernels / sizeof kernels[0] };

int main(int argc, char **argv) {
    const char *name = NULL, *arch = "sm_80", *emit_form = "ptx";
    int opt = 3;
    bool all = false;
    for (int i = 1; i < argc; i++) {
        if (!strncmp(argv[i], "--arch=", 7))
            arch = argv[i] + 7;
        else if (!strncmp(argv[i], "--emit=", 7))
            emit_form = argv[i] + 7;
        else if (argv[i][0] == '-' && argv[i][1] == 'O' && argv[i][2] >= '0' && argv[i][2] <= '3')
            opt = argv[i][2] - '0';
        else if (!strcmp(argv[i], "--all"))
            all = true;
        else if (!strcmp(argv[i], "--list")) {
            for (int k = 0; k < NKERNELS; k++)
                puts(kernels[k].name);
            return 0;
        } else
            name = argv[i];
    }
    Function *fs[NKERNELS];
    int n = 0;
    for (int k = 0; k < NKERNELS; k++)
        if (all ? strcmp(kernels[k].name, "big_convert") != 0 : name && !strcmp(kernels[k].name, name))
            fs[n++] = kernels[k].make();
    if (!n) {
        fprintf(stderr, "usage: harness KERNEL|--all [--arch=sm_80] [--emit=llvm|ptx] [-O3] (--list for the kernels)\n");
        return 2;
    }
    Diag d = {0};
    Buf ir = {0}, ptx = {0};
    /* shared memory is placed by its pass, as in the compiler's pipeline */
    const PtxArch *pa = ptx_arch(arch);
    if (!pa) {
        fprintf(stderr, "harness: unknown arch '%s' (expected %s)\n", arch, ptx_arch_names());
        return 2;
    }
    bool ok = true;
    for (int i = 0; ok && i < n; i++)
        ok = smem_alloc_pass(&d, fs[i], pa->max_shared) && barrier_pass(&d, fs[i]);
    ok = ok && codegen_module(&d, fs, n, pa, opt, 0, &ir, &ptx, NULL);
    if (d.out.len)
        fputs(d.out.data, stderr);
    if (!ok)
        return d.internal ? 4 : 1;
    Buf *out = !strcmp(emit_form, "llvm") ? &ir : &ptx;
    fwrite(out->data, 1, out->len, stdout);
    return 0;
}
