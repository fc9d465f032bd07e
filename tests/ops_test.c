/* ops_test.c: numeric tests of the kernel language, one small kernel per case.
 *
 * Each case compiles a kernel from a string, runs it over ragged sizes (blocks
 * that straddle the end, n = 1 which the launcher specialises to a constant,
 * 2-D tiles cut by both edges) on random non-zero inputs, and compares every
 * output element with a reference computed here in double (or exact integer
 * arithmetic). Outputs start filled with a sentinel and have a guard zone past
 * their end, so a masked store that writes too much or too little shows up as
 * well, on the GPU too.
 *
 * The same binary runs on the CPU interpreter (TL_INTERPRET=1) and on a GPU
 * (TL_DEVICE_AUTO), so tolerances allow what the GPU legitimately does
 * differently: approximate exp/log/sin/cos/rsqrt and `/`, FMA contraction of
 * a * b + c, another order of summation in reductions and dots. Integer
 * results, and float results of one correctly rounded operation, are exact.
 *
 * Prints "[PASS] ops/NAME" or "[FAIL] ops/NAME: detail" per case (tests/api.sh
 * and tests/gpu.sh count them); exits 0 only if every case passes. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "tl.h"

#define SENT 7    /* initial value of output buffers (fits every dtype) */
#define ALPHA 0.375f /* the runtime f32 scalar of cases with .alpha */
#define MAXIO 4   /* inputs / outputs per case */
/* Output buffers get this many extra elements past their end, holding the
 * sentinel: on a GPU a store past the end would otherwise go unnoticed. (A
 * tile hanging over the last row reaches up to BM * N elements further.) */
#define GUARD 4096

/* ---------------------------------------------------------------- the table */

/* A buffer's element count: the product of the dims selected by the bit mask
 * (D0 = n or M, D1 = N or m, D2 = K) times c (c = 0: 1). Inputs are filled
 * uniformly in [lo, hi] (integers for integer dtypes; never 0; multiples of q
 * when q > 0; with q = EDGES every third element is an edge value of the
 * dtype instead: edge()); outputs start at the constant lo. */
enum { D0 = 1, D1 = 2, D2 = 4 };
typedef struct Buf {
    TlDType dt;
    unsigned dims;
    int c;
    double lo, hi, q;
} Buf;
#define IN(dt, dims, lo, hi) {dt, dims, 0, lo, hi, 0}
#define OUT(dt, dims) {dt, dims, 0, SENT, SENT, 0}
#define OUTC(dt, count, init) {dt, 0, count, init, init, 0}
#define OUTI(dt, dims, init) {dt, dims, 0, init, init, 0}
#define EDGES (-1)
#define EDGE(dt, dims, lo, hi) {dt, dims, 0, lo, hi, EDGES}

typedef struct Dims {
    long d[3];
} Dims;

/* want[k][i] comes in as output k's initial value; the reference overwrites
 * what the kernel stores. Integer outputs must match exactly, float ones
 * within atol + rtol * |want|. */
typedef void (*RefFn)(const long *d, double *const *in, double *const *want);
/* Cases whose result is not one fixed array (contended atomics) check the
 * outputs themselves; they return 1 if fine, else 0 with msg filled. */
typedef int (*CheckFn)(const long *d, double *const *in, double *const *got, char *msg, size_t len);

typedef struct Case {
    const char *name;
    const char *src;
    const char *opts;     /* tlc flags: -D for the block sizes */
    const Dims *sizes;    /* runs, ended by {0} */
    unsigned g[2];        /* grid = cdiv(d0, g[0]) x cdiv(d1, g[1]); 0: one program */
    int nscal;            /* d0.. d(nscal-1) follow the buffers as i32 arguments */
    int alpha;            /* then ALPHA as an f32 argument */
    Buf in[MAXIO], out[MAXIO];
    RefFn ref;
    CheckFn check;
    double atol, rtol;
} Case;

/* ------------------------------------------------------------ sizes, blocks */

/* 1-D: one element (n == 1 is specialised to the constant 1), a block's
 * worth minus and plus one, several blocks, more programs than the GPU has SMs */
static const Dims S1D[] = {{{1}}, {{127}}, {{129}}, {{1000}}, {{70001}}, {{0}}};
/* what one BLOCK = 1024 program covers */
static const Dims S1D_SMALL[] = {{{1}}, {{127}}, {{129}}, {{1000}}, {{0}}};
/* multiple_of / max_contiguous: also whole blocks, where hints may vectorise */
static const Dims S1D_HINT[] = {{{1}}, {{127}}, {{128}}, {{129}}, {{256}}, {{1000}}, {{0}}};
static const Dims S2D[] = {{{37, 45}}, {{1, 1}}, {{16, 32}}, {{33, 17}}, {{200, 100}}, {{0}}};
/* A, B, C of a 32^3 block (k_index_new_*): whole, ragged, one */
static const Dims S3D_32[] = {{{32, 32, 32}}, {{31, 17, 29}}, {{1, 1, 1}}, {{32, 1, 3}}, {{0}}};
/* reductions over a whole row or column in one tile: M, N <= 64 */
static const Dims S2D_SMALL[] = {{{37, 45}}, {{1, 1}}, {{16, 32}}, {{33, 17}}, {{64, 64}}, {{0}}};
/* runtime loops: n and a trip count m (m = 1 is specialised to a constant) */
static const Dims SLOOP[] = {{{1, 5}}, {{127, 3}}, {{129, 1}}, {{1000, 4}}, {{0}}};
/* M rows of N in chunks of BLOCK = 64: one chunk (N = 1, 63, 64), two (65),
 * more (129, 200); a row of one program each */
static const Dims SLNORM[] = {{{1, 1}}, {{3, 63}}, {{2, 64}}, {{5, 65}}, {{4, 127}}, {{2, 128}}, {{0}}};
static const Dims SPEEL[] = {{{3, 1}}, {{4, 63}}, {{5, 64}}, {{3, 65}}, {{2, 129}}, {{7, 200}}, {{0}}};
/* one program per element, for contended scalar atomics */
static const Dims SPROG[] = {{{1}}, {{7}}, {{300}}, {{0}}};
static const Dims SMM_COLS[] = {{{1, 129, 16}}, {{130, 129, 70}}, {{257, 131, 33}}, {{0}}};
static const Dims SDOT32[] = {{{32, 32, 32}}, {{0}}};
static const Dims SDOT64[] = {{{64, 32, 16}}, {{0}}};
static const Dims SDOT32_64[] = {{{64, 32, 32}}, {{0}}};
/* Triton's min_dot_size: M and N below the tensor cores' tiles (an FMA loop) */
static const Dims SDOT_SMALL_MN[] = {{{2, 4, 16}}, {{0}}};
static const Dims SDOT_ONE_ROW[] = {{{1, 16, 32}}, {{0}}};
/* below one mma tile (Triton's small_dots: 1 x 2 x 32, 2 x 4 x 32) */
static const Dims SDOT_TINY[] = {{{1, 2, 32}}, {{0}}};
static const Dims SDOT_8x4[] = {{{8, 4, 64}}, {{0}}};
/* fp8 dots wgmma takes outside loops on sm_90a (64-row warpgroups) */
static const Dims SDOT_WG[] = {{{128, 128, 64}}, {{0}}};
static const Dims SDOT_WG_MIX[] = {{{64, 64, 128}}, {{0}}};
static const Dims SMM[] = {{{37, 45, 50}}, {{16, 16, 16}}, {{64, 33, 20}}, {{0}}};

#define B128 "-D BLOCK=128"
#define G1D {128, 0}
#define T2D "-D BM=16 -D BN=32"
#define G2D {16, 32}

/* ------------------------------------------------------------- kernel text */

#define PRE "import triton\nimport triton.language as tl\n\n\n@triton.jit\n"
/* 1-D: program pid covers BLOCK elements; lanes at or past n are masked. */
#define OFFS "    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n    mask = offs < n\n"
#define LD(v) "    " #v " = tl.load(" #v "_ptr + offs, mask=mask)\n"
#define ST(p, v) "    tl.store(" #p "_ptr + offs, " v ", mask=mask)\n"
/* Elementwise kernels on one, two or three inputs: BODY sets z. */
#define EW1(body) PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) body ST(out, "z")
#define EW2(body) PRE "def k(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b) body ST(out, "z")
#define EW3(body) \
    PRE "def k(a_ptr, b_ptr, c_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b) LD(c) body ST(out, "z")
/* 2-D: a BM x BN tile of an M x N row-major array, cut by both edges. */
#define TILE \
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n" \
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n" \
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n" \
    "    idx = rm[:, None] * N + rn[None, :]\n"

/* ---------------------------------------------------------- reference help */

static double f32(double x) { return (float)x; }
/* the device the cases run on (where a reference depends on it: fp fusion) */
static int on_gpu;
static double h16(double x) { return ex_h2f(ex_f2h((float)x)); }
/* tf32 as the GPU rounds it (cvt.rna: to nearest, ties away from zero) */
static double tf32(double x) {
    float f = (float)x;
    uint32_t u;
    memcpy(&u, &f, 4);
    u = (u + 0x1000u) & ~0x1fffu;
    memcpy(&f, &u, 4);
    return f;
}
static double bits_f2i(double x) {
    float f = (float)x;
    int32_t i;
    memcpy(&i, &f, 4);
    return i;
}
static double bits_i2f(double x) {
    int32_t i = (int32_t)x;
    float f;
    memcpy(&f, &i, 4);
    return f;
}

/* Elementwise references over d[0] elements: a, b, c are the inputs at i. */
#define EW_LOOP(...) \
    for (long i = 0; i < d[0]; i++) { \
        double a = in[0] ? in[0][i] : 0, b = in[1] ? in[1][i] : 0, c = in[2] ? in[2][i] : 0; \
        (void)a, (void)b, (void)c; \
        __VA_ARGS__; \
    }
#define REF(fn, ...) \
    static void fn(const long *d, double *const *in, double *const *want) { EW_LOOP(__VA_ARGS__) }
#define EWREF(fn, expr) REF(fn, want[0][i] = (expr))

/* ------------------------------------------------------- type promotion */

EWREF(r_i32_i32, a * b + a - 7)
EWREF(r_b_a_a, b + a + a)
EWREF(r_i8_i32, a * b + a)
EWREF(r_u32_i32, (double)(((uint32_t)(int64_t)a + (uint32_t)(int32_t)b) / 3u))
EWREF(r_add_f32, f32(a + b))
EWREF(r_h_mul, h16(a * 1.5))
EWREF(r_mul15, f32(a * 1.5))
EWREF(r_div, a / b)
REF(r_divmod, want[0][i] = (int)a / (int)b; want[1][i] = (int)a % (int)b;
    want[2][i] = ((int)a / -2) * 100 + (int)a % 3)
REF(r_bool, int p = a > 0; int q = b < a; int r = (p && q) || (!p != (b > 50));
    want[0][i] = r + 2 * (p != q) + 4 * (p || q); want[1][i] = p != q)

/* f32 ops on f16 values stored as f16: combine computes them in f16 (one
 * rounding either way); the sum under an if moves its cast into the
 * branches. a reaches 2000 (an f16 ulp of 1 or 2) so sums and products round. */
REF(r_narrow, want[0][i] = h16(a + ((i / 128) % 2 == 0 ? b : 0)); want[1][i] = h16(a - b); want[2][i] = h16(a * b))
static const char k_narrow[] =
    PRE "def k(a_ptr, b_ptr, s_ptr, d_ptr, p_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    a = tl.load(a_ptr + offs, mask=mask).to(tl.float32)\n"
    "    b = tl.load(b_ptr + offs, mask=mask).to(tl.float32)\n"
    "    s = a\n"
    "    if tl.program_id(0) % 2 == 0:\n"
    "        s += b\n"
    ST(s, "s") ST(d, "(a - b).to(tl.float16)") ST(p, "a * b");

/* Sums of M rows of N in blocks of 32 rows (tutorial 05's dwdb): a loop
 * that stores nothing, its loads pipelined where N % 16 == 0 (pipeline.c);
 * M of one block, one row past it, three blocks, a ragged fourth. */
static const Dims SROWSUM[] = {{{1, 128}}, {{31, 256}}, {{33, 128}}, {{96, 384}}, {{100, 16}}, {{70, 300}}, {{0}}};
static void r_rowsum(const long *d, double *const *in, double *const *want) {
    for (long c = 0; c < d[1]; c++) {
        double t = 0;
        for (long r = 0; r < d[0]; r++)
            t += in[0][r * d[1] + c];
        want[0][c] = t;
    }
}
static const char k_rowsum[] =
    PRE "def k(x_ptr, s_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    cols = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for i in range(0, M, BM):\n"
    "        rows = i + tl.arange(0, BM)\n"
    "        mask = (rows[:, None] < M) & (cols[None, :] < N)\n"
    "        acc += tl.load(x_ptr + rows[:, None] * N + cols[None, :], mask=mask, other=0.)\n"
    "    tl.store(s_ptr + cols, tl.sum(acc, axis=0), mask=cols < N)\n";

/* RoPE as Liger-Kernel writes it: a row of cos and of sin (N <= H = 32 of
 * them, fewer than the 128 threads) rotates the two halves of BQ = 8 q heads
 * and BK = 2 k heads, tiles of several layouts. Each small row is loaded
 * again in the slices its users want (layout_pass.c, cheap_load: here the
 * first load stays for the users in its own layout); N of 1, ragged, whole. */
static const Dims SROPE[] = {{{1, 1}}, {{3, 31}}, {{5, 32}}, {{17, 7}}, {{0}}};
static void r_rope(const long *d, double *const *in, double *const *want) {
    long N = d[1];
    for (long r = 0; r < d[0]; r++)
        for (int t = 0; t < 2; t++) /* q (8 heads), k (2) */
            for (long h = 0; h < (t ? 2 : 8); h++)
                for (long j = 0; j < N; j++) {
                    long o = (r * (t ? 2 : 8) + h) * 2 * N + j;
                    double c = in[2][r * N + j], sn = in[3][r * N + j], x1 = in[t][o], x2 = in[t][o + N];
                    want[t][o] = x1 * c - x2 * sn;
                    want[t][o + N] = x2 * c + x1 * sn;
                }
}
static const char k_rope[] =
    PRE "def k(x_ptr, k_ptr, c_ptr, s_ptr, y_ptr, z_ptr, M, N, BQ: tl.constexpr, BK: tl.constexpr, H: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    offs = tl.arange(0, H)\n"
    "    cm = offs < N\n"
    "    c = tl.load(c_ptr + row * N + offs, mask=cm, other=0.)\n"
    "    s = tl.load(s_ptr + row * N + offs, mask=cm, other=0.)\n"
    "    qo = row * BQ * 2 * N + tl.arange(0, BQ)[:, None] * (2 * N) + offs[None, :]\n"
    "    ko = row * BK * 2 * N + tl.arange(0, BK)[:, None] * (2 * N) + offs[None, :]\n"
    "    qm = (tl.arange(0, BQ)[:, None] < BQ) & cm[None, :]\n"
    "    km = (tl.arange(0, BK)[:, None] < BK) & cm[None, :]\n"
    "    q1 = tl.load(x_ptr + qo, mask=qm)\n"
    "    q2 = tl.load(x_ptr + qo + N, mask=qm)\n"
    "    k1 = tl.load(k_ptr + ko, mask=km)\n"
    "    k2 = tl.load(k_ptr + ko + N, mask=km)\n"
    "    tl.store(y_ptr + qo, q1 * c - q2 * s, mask=qm)\n"
    "    tl.store(y_ptr + qo + N, q2 * c + q1 * s, mask=qm)\n"
    "    tl.store(z_ptr + ko, k1 * c - k2 * s, mask=km)\n"
    "    tl.store(z_ptr + ko + N, k2 * c + k1 * s, mask=km)\n";

/* bf16 tiles of 8 x 64 at 4 warps, unmasked: 4 elements (8 bytes) a thread,
 * one ld.global.v2.u32 and one st.global.v2.u32 each (llvm_mem.c by_words;
 * LLVM 19 splits a <4 x bfloat> access in two); M whole tiles of 8 rows. */
static const Dims SBF16V4[] = {{{8, 64}}, {{24, 64}}, {{0}}};
static void r_bf16v4(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0] * d[1]; i++)
        want[0][i] = in[0][i], want[1][i] = 2 * in[0][i];
}
static const char k_bf16v4[] =
    PRE "def k(x_ptr, y_ptr, z_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BM * BN + tl.arange(0, BM)[:, None] * BN + tl.arange(0, BN)[None, :]\n"
    "    x = tl.load(x_ptr + offs)\n"
    "    tl.static_assert(x.dtype == tl.bfloat16)\n"
    "    tl.store(y_ptr + offs, x)\n"
    "    tl.store(z_ptr + offs, x * 2)\n";

static const char k_divmod[] =
    PRE "def k(a_ptr, b_ptr, q_ptr, r_ptr, s_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert((a // b).dtype == tl.int32 and (a % b).dtype == tl.int32)\n"
    ST(q, "a // b") ST(r, "a % b") ST(s, "(a // -2) * 100 + a % 3");

REF(r_divmod64, want[0][i] = (double)((int64_t)a / (int64_t)b); want[1][i] = (double)((int64_t)a % (int64_t)b))
static const char k_divmod64[] =
    PRE "def k(a_ptr, b_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert((a // b).dtype == tl.int64)\n" ST(q, "a // b") ST(r, "a % b");
EWREF(r_fmod, fmodf((float)a, (float)b))
EWREF(r_ucmp, ((uint32_t)a > (uint32_t)(int32_t)b) + 2 * ((uint32_t)a < 3000000000u) + 4 * (b < 0))

static const char k_bool[] =
    PRE "def k(a_ptr, b_ptr, out_ptr, m_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    p = a > 0\n"
    "    q = b < a\n"
    "    r = (p & q) | (~p ^ (b > 50))\n"
    "    tl.static_assert(r.dtype == tl.int1 and ((p | q) * 4).dtype == tl.int32)\n"
    ST(out, "r.to(tl.int32) + (p ^ q).to(tl.int32) * 2 + (p | q) * 4")
    ST(m, "p ^ q");

/* & | ^ ~ and unary minus; << and >> (arithmetic on signed, logical on
 * unsigned, as Triton) */
REF(r_bits, int32_t x = (int32_t)a; uint32_t u = (uint32_t)b;
    want[0][i] = (x & 0x0ff0f0) | (x ^ 0x5555);
    want[1][i] = (int32_t)((uint32_t)x << 3) >> 2;
    want[2][i] = u >> 3;
    want[3][i] = -x + ~x)
static const char k_bits[] =
    PRE "def k(a_ptr, b_ptr, o_ptr, s_ptr, u_ptr, n_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(o, "(a & 0x0ff0f0) | (a ^ 0x5555)") ST(s, "(a << 3) >> 2") ST(u, "b >> 3") ST(n, "-a + ~a");

/* ------------------------------------------------------------ broadcasting */

static void r_outer(const long *d, double *const *in, double *const *want, int op) {
    for (long i = 0; i < d[0]; i++)
        for (long j = 0; j < d[1]; j++)
            want[0][i * d[1] + j] = f32(op == 0 ? in[0][i] + in[1][j] : op == 1 ? in[0][i] * in[1][j]
                                                                                : in[0][i] - in[1][j]);
}
static void r_outer_sum(const long *d, double *const *in, double *const *want) {
    r_outer(d, in, want, 0);
}
static void r_outer_mul(const long *d, double *const *in, double *const *want) {
    r_outer(d, in, want, 1);
}
static void r_outer_sub(const long *d, double *const *in, double *const *want) {
    r_outer(d, in, want, 2);
}

/* x is M long, y is N long: the result z is a BM x BN tile. */
#define OUTER(body) \
    PRE "def k(x_ptr, y_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n" TILE \
    "    x = tl.load(x_ptr + rm, mask=rm < M, other=0.0)\n" \
    "    y = tl.load(y_ptr + rn, mask=rn < N, other=0.0)\n" body \
    "    tl.store(out_ptr + idx, z, mask=mask)\n"

/* a runtime f32 scalar, a Python number, a runtime i32 scalar and a scalar
 * loaded from memory, with a block */
EWREF(r_scalar, f32(f32(f32(f32(a + ALPHA) * 2) + d[0]) + in[1][0]))
static const char k_scalar[] =
    PRE "def k(a_ptr, s_ptr, out_ptr, n, alpha, BLOCK: tl.constexpr):\n" OFFS LD(a)
    ST(out, "(a + alpha) * 2 + n + tl.load(s_ptr)");

static void r_mask2d(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i += 2) /* odd rows keep the sentinel */
        for (long j = 0; j < d[1]; j++)
            want[0][i * d[1] + j] = i >= j ? in[0][i * d[1] + j] : -1.0;
}



/* ------------------------------------------------------------ elementwise */

/* Each element of a tile records its program's ids and the grid. */
static void r_pids(const long *d, double *const *in, double *const *want) {
    (void)in;
    for (long i = 0; i < d[0]; i++)
        for (long j = 0; j < d[1]; j++) {
            want[0][i * d[1] + j] = i / 16 + 100 * (j / 32);
            want[1][i * d[1] + j] = (d[0] + 15) / 16 + 100 * ((d[1] + 31) / 32);
        }
}
static const char k_pids[] =
    PRE "def k(p_ptr, g_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n" TILE
    "    zero = tl.zeros((BM, BN), tl.int32)\n"
    "    tl.store(p_ptr + idx, zero + tl.program_id(0) + 100 * tl.program_id(axis=1), mask=mask)\n"
    "    tl.store(g_ptr + idx, zero + tl.num_programs(0) + 100 * tl.num_programs(1), mask=mask)\n";

REF(r_arange, want[0][i] = i; want[1][i] = 3)
REF(r_gather, want[0][i] = in[0][i * 7919 % d[0]])
EWREF(r_f64, a * b + a / b - sqrt(fabs(b)))
REF(r_zeros_full, want[0][i] = f32(2.5 * a); want[1][i] = 7)
REF(r_load_other, want[0][i] = i % 3 ? a : -2.0)
REF(r_store_mask, if (a > 0) want[0][i] = a)
REF(r_where, want[0][i] = a > b ? a : f32(b * 2); want[1][i] = a < 0 ? 1.0 : 0.0)
REF(r_cdiv, want[0][i] = ((int)a + (int)b - 1) / (int)b; want[1][i] = a + (d[0] + 15) / 16)
REF(r_minmax_f, want[0][i] = fmin(a, b); want[1][i] = fmax(a, b); want[2][i] = fmin(fmax(a, -0.5), 0.5);
    want[3][i] = fabs(a))
REF(r_minmax_i, want[0][i] = fmin(a, b); want[1][i] = fmax(a, b); want[2][i] = fabs(a))
EWREF(r_exp, exp(a))
EWREF(r_exp2, exp2(a))
EWREF(r_log, log(a))
EWREF(r_log2, log2(a))
EWREF(r_sqrt, sqrt(a))
EWREF(r_rsqrt, 1 / sqrt(a))
EWREF(r_sin, sin(a))
EWREF(r_cos, cos(a))
EWREF(r_sigmoid, 1 / (1 + exp(-a)))
EWREF(r_fma, fmaf((float)a, (float)b, (float)c))
REF(r_floor_ceil, want[0][i] = floor(a); want[1][i] = ceil(a))
REF(r_casts_f, want[0][i] = h16(a); want[1][i] = trunc(a); want[2][i] = bits_f2i(a);
    want[3][i] = bits_i2f(bits_f2i(a) + 1))
REF(r_casts_i, want[0][i] = f32(a); want[1][i] = (int8_t)(int32_t)a; want[2][i] = h16(b))
EWREF(r_twice, 2 * a)

static const char k_zeros_full[] =
    PRE "def k(a_ptr, z_ptr, t_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    z = tl.zeros([BLOCK], dtype=tl.float32) + tl.zeros_like(a) + tl.full([BLOCK], 2.5, tl.float32) * a\n"
    "    t = tl.full((BLOCK,), 7, tl.int32) + tl.zeros_like(offs)\n"
    "    tl.static_assert(t.dtype == tl.int32)\n" ST(z, "z") ST(t, "t");

static const char k_where[] =
    PRE "def k(a_ptr, b_ptr, w_ptr, s_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(w, "tl.where(a > b, a, b * 2)") ST(s, "tl.where(a < 0, 1.0, 0.0)");

static const char k_cdiv[] =
    PRE "def k(a_ptr, b_ptr, q_ptr, s_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(q, "tl.cdiv(a, b)") ST(s, "a + tl.cdiv(n, 16)");

static const char k_minmax[] =
    PRE "def k(a_ptr, b_ptr, lo_ptr, hi_ptr, c_ptr, abs_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(lo, "tl.minimum(a, b)") ST(hi, "tl.maximum(a, b)") ST(c, "tl.clamp(a, -0.5, 0.5)") ST(abs, "tl.abs(a)");

static const char k_minmax_i[] =
    PRE "def k(a_ptr, b_ptr, lo_ptr, hi_ptr, abs_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    ST(lo, "tl.minimum(a, b)") ST(hi, "tl.maximum(a, b)") ST(abs, "tl.abs(a)");

static const char k_floor_ceil[] =
    PRE "def k(a_ptr, f_ptr, c_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) ST(f, "tl.floor(a)") ST(c, "tl.ceil(a)");

static const char k_casts_f[] =
    PRE "def k(a_ptr, h_ptr, t_ptr, i_ptr, u_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    h = a.to(tl.float16)\n"
    "    tl.static_assert(h.dtype == tl.float16)\n"
    "    i = a.to(tl.int32, bitcast=True)\n"
    ST(h, "h.to(tl.float32)") ST(t, "a.to(tl.int32)") ST(i, "i")
    ST(u, "(i + 1).to(tl.float32, bitcast=True)");

static const char k_casts_i[] =
    PRE "def k(b_ptr, a_ptr, f_ptr, i8_ptr, h_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b) LD(a)
    ST(f, "b.to(tl.float32)") ST(i8, "b.to(tl.int8)") ST(h, "a.to(tl.float16)");

/* The hints claim only what is true (blocks start at multiples of BLOCK and
 * are contiguous), so they may change the code but never the result. */
static const char k_hints[] =
    PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n"
    "    start = tl.multiple_of(tl.program_id(0) * BLOCK, BLOCK)\n"
    "    offs = tl.max_contiguous(tl.multiple_of(start + tl.arange(0, BLOCK), BLOCK), BLOCK)\n"
    "    mask = offs < n\n" LD(a) ST(out, "a * 2");

/* --------------------------------------------------------------- shapes */

static void r_reshape(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        double s = 0;
        for (long j = i / 16 * 16; j < i / 16 * 16 + 16 && j < d[0]; j++)
            s += in[0][j];
        want[0][i] = 2 * in[0][i] + s;
    }
}

/* (2, 4, 16) permuted to (16, 2, 4): out (c, a, b) is in (a, b, c); lanes
 * past n read 0. */
static void r_permute(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        long l = i % 128, base = i - l, c = l / 8, a = l % 8 / 4, b = l % 4;
        long src = base + a * 64 + b * 16 + c;
        want[0][i] = src < d[0] ? in[0][src] : 0;
    }
}

static void r_trans(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        for (long j = 0; j < d[1]; j++) {
            want[0][j * d[0] + i] = in[0][i * d[1] + j];
            want[1][j * d[0] + i] = 0.5 * in[0][i * d[1] + j];
        }
}

/* z over the [A, B] tile x with a new axis of C first, then last (k_index_new_*). */
static void r_index_new_first(const long *d, double *const *in, double *const *want) {
    for (long c = 0; c < d[2]; c++)
        for (long ab = 0; ab < d[0] * d[1]; ab++)
            want[0][c * d[0] * d[1] + ab] = in[0][ab];
}

static void r_index_new_last(const long *d, double *const *in, double *const *want) {
    for (long ab = 0; ab < d[0] * d[1]; ab++)
        for (long c = 0; c < d[2]; c++)
            want[0][ab * d[2] + c] = in[0][ab];
}

/* Triton's swizzle2d (language/standard.py), in integers. */
static void r_swizzle(const long *d, double *const *in, double *const *want) {
    (void)in;
    long M = d[0], N = d[1], G = 4;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            long ij = i * N + j, gj = G * N, off = ij / gj * G, g = M - off < G ? M - off : G;
            ij %= gj;
            want[0][i * N + j] = off + ij % g;
            want[1][i * N + j] = ij / g;
        }
}

static const char k_reshape[] =
    PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    a = tl.load(a_ptr + offs, mask=mask, other=0.0)\n"
    "    a2 = tl.reshape(a, (BLOCK // 16, 16))\n"
    "    s = tl.sum(a2, axis=1, keep_dims=True)\n"
    "    tl.static_assert(s.shape == (BLOCK // 16, 1))\n"
    ST(out, "(a2 * 2 + s).reshape(BLOCK)");

static const char k_permute[] =
    PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    a = tl.load(a_ptr + offs, mask=mask, other=0.0)\n"
    "    p = tl.permute(tl.reshape(a, (2, 4, 16)), (2, 0, 1))\n"
    "    tl.static_assert(p.shape == (16, 2, 4))\n" ST(out, "tl.reshape(p, (BLOCK,))");

static const char k_trans[] =
    PRE "def k(x_ptr, t_ptr, p_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n" TILE
    "    x = tl.load(x_ptr + idx, mask=mask)\n"
    "    t = tl.trans(x)\n"
    "    tl.static_assert(t.shape == (BN, BM))\n"
    "    tidx = rn[:, None] * M + rm[None, :]\n"
    "    tl.store(t_ptr + tidx, t, mask=(rn[:, None] < N) & (rm[None, :] < M))\n"
    "    tl.store(p_ptr + tidx, tl.permute(x, (1, 0)) - x.T * 0.5, mask=tl.trans(mask))\n";

/* Triton's test_index1d at one warp: an [A, B] tile grown by a new leading or
 * trailing axis of S into S^3 elements, 1024 a thread, through S^3 pointers
 * (2048 words a thread: past 255 registers ptxas spills, as for Triton's). */
#define INDEX3(expr, zidx, zmask)                                                                    \
    PRE "def k(x_ptr, z_ptr, A, B, C, S: tl.constexpr):\n"                                          \
        "    r = tl.arange(0, S)\n"                                                                 \
        "    x = tl.load(x_ptr + r[:, None] * B + r[None, :], mask=(r[:, None] < A) & (r[None, :] < B))\n" \
        "    z = " expr "\n"                                                                         \
        "    i, j, k = r[:, None, None], r[None, :, None], r[None, None, :]\n"                      \
        "    tl.store(z_ptr + " zidx ", z, mask=" zmask ")\n"
/* z[c][a][b] = x[a][b], the new axis first (c < C), then last: z[a][b][c]; z is
 * [1, S, S] or [S, S, 1], broadcast to S^3 by the store, as in Triton's test. */
static const char k_index_new_first[] =
    INDEX3("x[None, :, :]", "(i * A + j) * B + k", "(i < C) & (j < A) & (k < B)");
static const char k_index_new_last[] =
    INDEX3("x[:, :, None]", "(i * B + j) * C + k", "(i < A) & (j < B) & (k < C)");

/* One program of 65536 elements at one warp: 2048 a thread, 4096 words of
 * pointers, spilled (tl once refused past 1024). */
static const char k_big_block[] = EW1("    z = a * 2\n");
static const Dims S1D_BIG[] = {{{65536}}, {{65537}}, {{1}}, {{131071}}, {{0}}};

static const char k_swizzle[] =
    PRE "def k(i_ptr, j_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, G: tl.constexpr):\n" TILE
    "    ni, nj = tl.swizzle2d(rm[:, None], rn[None, :], M, N, G)\n"
    "    tl.store(i_ptr + idx, ni, mask=mask)\n"
    "    tl.store(j_ptr + idx, nj, mask=mask)\n";

/* ------------------------------------------------------------ reductions */

/* Rows (axis 1) or columns (axis 0) of an M x N array: one tile covers the
 * whole reduced dimension (BN = 64 >= N, or BM = 64 >= M). */
static void r_reduce2d(const long *d, double *const *in, double *const *want, int axis, int arg) {
    long M = d[0], N = d[1], outer = axis ? M : N, inner = axis ? N : M;
    for (long o = 0; o < outer; o++) {
        double s = 0, mx = -INFINITY, mn = INFINITY;
        long amx = 0, amn = 0;
        for (long k = 0; k < inner; k++) {
            double v = in[0][axis ? o * N + k : k * N + o];
            s += v;
            if (v > mx)
                mx = v, amx = k;
            if (v < mn)
                mn = v, amn = k;
        }
        if (arg) {
            want[0][o] = amx, want[1][o] = amn, want[2][o] = amx;
        } else {
            want[0][o] = s, want[1][o] = mx, want[2][o] = mn;
        }
    }
}
static void r_rows(const long *d, double *const *in, double *const *want) {
    r_reduce2d(d, in, want, 1, 0);
}
static void r_cols(const long *d, double *const *in, double *const *want) {
    r_reduce2d(d, in, want, 0, 0);
}
static void r_argrows(const long *d, double *const *in, double *const *want) {
    r_reduce2d(d, in, want, 1, 1);
}
static void r_argcols(const long *d, double *const *in, double *const *want) {
    r_reduce2d(d, in, want, 0, 1);
}

/* Sum with keep_dims stored through its (BM, 1) shape; max / min of masked
 * lanes set to -inf / +inf. */
static const char k_rows[] =
    PRE "def k(x_ptr, s_ptr, mx_ptr, mn_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)\n"
    "    s = tl.sum(x, axis=1, keep_dims=True)\n"
    "    tl.static_assert(s.shape == (BM, 1))\n"
    "    tl.store(s_ptr + rm[:, None], s, mask=rm[:, None] < M)\n"
    "    tl.store(mx_ptr + rm, tl.max(tl.where(mask, x, -float('inf')), axis=1), mask=rm < M)\n"
    "    tl.store(mn_ptr + rm, tl.where(mask, x, float('inf')).min(axis=1), mask=rm < M)\n";

static const char k_cols[] =
    PRE "def k(x_ptr, s_ptr, mx_ptr, mn_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=mask, other=0.0)\n"
    "    s = tl.sum(x, axis=0, keep_dims=True)\n"
    "    tl.static_assert(s.shape == (1, BN))\n"
    "    tl.store(s_ptr + rn[None, :], s, mask=rn[None, :] < N)\n"
    "    tl.store(mx_ptr + rn, tl.max(tl.where(mask, x, -float('inf')), axis=0), mask=rn < N)\n"
    "    tl.store(mn_ptr + rn, tl.min(tl.where(mask, x, float('inf')), 0), mask=rn < N)\n";

/* argmax / argmin, and the indices of max(return_indices=True). */
static const char k_argrows[] =
    PRE "def k(x_ptr, amx_ptr, amn_ptr, ix_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    p = x_ptr + rm[:, None] * N + rn[None, :]\n"
    "    lo = tl.load(p, mask=mask, other=-float('inf'))\n"
    "    hi = tl.load(p, mask=mask, other=float('inf'))\n"
    "    tl.store(amx_ptr + rm, tl.argmax(lo, axis=1), mask=rm < M)\n"
    "    am = tl.argmin(hi, 1, keep_dims=True)\n"
    "    tl.static_assert(am.shape == (BM, 1) and am.dtype == tl.int32)\n"
    "    tl.store(amn_ptr + rm[:, None], am, mask=rm[:, None] < M)\n"
    "    v, i = tl.max(lo, axis=1, return_indices=True)\n"
    "    tl.store(ix_ptr + rm, i, mask=rm < M)\n";

static const char k_argcols[] =
    PRE "def k(x_ptr, amx_ptr, amn_ptr, ix_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    p = x_ptr + rm[:, None] * N + rn[None, :]\n"
    "    lo = tl.load(p, mask=mask, other=-float('inf'))\n"
    "    hi = tl.load(p, mask=mask, other=float('inf'))\n"
    "    tl.store(amx_ptr + rn, tl.argmax(lo, axis=0), mask=rn < N)\n"
    "    tl.store(amn_ptr + rn, tl.argmin(hi, axis=0), mask=rn < N)\n"
    "    v, i = tl.min(-lo, axis=0, return_indices=True)\n"
    "    tl.store(ix_ptr + rn, i, mask=rn < N)\n";

/* A whole 1-D array in one BLOCK = 1024 program, to scalars. */
static void r_reduce1d(const long *d, double *const *in, double *const *want) {
    double s = 0, mx = -INFINITY, mn = INFINITY, is = 0, imx = -INFINITY;
    long amx = 0, amn = 0;
    for (long i = 0; i < d[0]; i++) {
        double v = in[0][i];
        s += v;
        if (v > mx)
            mx = v, amx = i;
        if (v < mn)
            mn = v, amn = i;
        is += in[1][i];
        imx = fmax(imx, in[1][i]);
    }
    want[0][0] = s, want[0][1] = mx, want[0][2] = mn, want[0][3] = s;
    want[1][0] = amx, want[1][1] = amn, want[1][2] = is, want[1][3] = imx;
}

static const char k_reduce1d[] =
    PRE "def k(a_ptr, b_ptr, f_ptr, i_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask, other=0.0)\n"
    "    b = tl.load(b_ptr + offs, mask=mask, other=0)\n"
    "    lo = tl.where(mask, a, -float('inf'))\n"
    "    hi = tl.where(mask, a, float('inf'))\n"
    "    tl.store(f_ptr, tl.sum(a, axis=0))\n"
    "    tl.store(f_ptr + 1, tl.max(lo, axis=0))\n"
    "    tl.store(f_ptr + 2, hi.min())\n"
    "    s = tl.sum(a, axis=0, keep_dims=True)\n"
    "    tl.static_assert(s.shape == (1,))\n"
    "    tl.store(f_ptr + 3 + tl.arange(0, 1), s)\n"
    "    tl.store(i_ptr, tl.argmax(lo, axis=0))\n"
    "    tl.store(i_ptr + 1, tl.argmin(hi, axis=0))\n"
    "    tl.store(i_ptr + 2, tl.sum(b))\n"
    "    tl.store(i_ptr + 3, tl.max(tl.where(mask, b, -2147483648), axis=0))\n";

/* Row softmax: max and sum with keep_dims broadcast back over the row. */
static void r_softmax(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long i = 0; i < M; i++) {
        double mx = -INFINITY, s = 0;
        for (long j = 0; j < N; j++)
            mx = fmax(mx, in[0][i * N + j]);
        for (long j = 0; j < N; j++)
            s += exp(in[0][i * N + j] - mx);
        for (long j = 0; j < N; j++)
            want[0][i * N + j] = exp(in[0][i * N + j] - mx) / s;
    }
}

static const char k_softmax[] =
    PRE "def k(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    idx = rm[:, None] * N + rn[None, :]\n"
    "    x = tl.load(x_ptr + idx, mask=mask, other=-float('inf'))\n"
    "    e = tl.exp(x - tl.max(x, axis=1, keep_dims=True))\n"
    "    tl.store(out_ptr + idx, e / tl.sum(e, axis=1, keep_dims=True), mask=mask)\n";

/* ---------------------------------------------------------------- atomics */

/* Many programs (BLOCK = 16) add into 4 counters; plus one scalar atomic per
 * program, which must happen once per program, not once per thread. */
static void r_atomic_add(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i % 4] += in[0][i];
    want[1][0] += (d[0] + 15) / 16;
}

static const char k_atomic_add[] =
    PRE "def k(b_ptr, cnt_ptr, prog_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b)
    "    tl.atomic_add(cnt_ptr + offs % 4, b, mask=mask)\n"
    "    tl.atomic_add(prog_ptr, 1)\n";

static void r_atomic_minmax(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        want[0][i % 4] = fmax(want[0][i % 4], in[0][i]);
        want[1][i % 4] = fmin(want[1][i % 4], in[0][i]);
        want[2][i % 4] = fmax(want[2][i % 4], in[1][i]);
        want[3][i % 4] = fmin(want[3][i % 4], in[1][i]);
    }
}

static const char k_atomic_minmax[] =
    PRE "def k(b_ptr, a_ptr, imax_ptr, imin_ptr, fmax_ptr, fmin_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b) LD(a)
    "    tl.atomic_max(imax_ptr + offs % 4, b, mask=mask)\n"
    "    tl.atomic_min(imin_ptr + offs % 4, b, mask=mask)\n"
    "    tl.atomic_max(fmax_ptr + offs % 4, a, mask=mask)\n"
    "    tl.atomic_min(fmin_ptr + offs % 4, a, mask=mask)\n";

/* -0.0 against +-3e38: Triton's integer pair must send -0.0 down the
 * unsigned path by its sign bit (test_atomic_min_max_neg_zero). */
static void r_atomic_negzero(const long *d, double *const *in, double *const *want) {
    (void)in;
    for (long i = 0; i < d[0] && i < 4; i++)
        want[0][i] = want[1][i] = -0.0;
}

static const char k_atomic_negzero[] =
    PRE "def k(a_ptr, fmax_ptr, fmin_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    z = -tl.abs(a) * 0.0\n"
    "    tl.atomic_max(fmax_ptr + offs % 4, z, mask=mask)\n"
    "    tl.atomic_min(fmin_ptr + offs % 4, z, mask=mask)\n";

static void r_atomic_bits(const long *d, double *const *in, double *const *want) {
    int32_t v[3][4];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++)
            v[k][j] = (int32_t)want[k][j];
    for (long i = 0; i < d[0]; i++) {
        int32_t b = (int32_t)in[0][i];
        v[0][i % 4] &= b, v[1][i % 4] |= b, v[2][i % 4] ^= b;
    }
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 4; j++)
            want[k][j] = v[k][j];
}

static const char k_atomic_bits[] =
    PRE "def k(b_ptr, and_ptr, or_ptr, xor_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b)
    "    tl.atomic_and(and_ptr + offs % 4, b, mask=mask)\n"
    "    tl.atomic_or(or_ptr + offs % 4, b, mask=mask)\n"
    "    tl.atomic_xor(xor_ptr + offs % 4, b, mask=mask)\n";

/* One slot per element: xchg returns the old value (SENT), leaves a. */
REF(r_xchg, want[0][i] = a; want[1][i] = SENT)
static const char k_xchg[] =
    PRE "def k(a_ptr, slot_ptr, old_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    old = tl.atomic_xchg(slot_ptr + offs, a, mask=mask)\n" ST(old, "old");

/* atomic_cas has no mask: lanes past n aim at slot 0 with a compare value
 * (-1) that never matches, so they change nothing. Even lanes compare with
 * the sentinel and swap; odd lanes compare with 0 and do not. */
REF(r_cas, if (i % 2 == 0) want[0][i] = a; want[1][i] = SENT)
static const char k_cas[] =
    PRE "def k(b_ptr, slot_ptr, old_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(b)
    "    cmp = tl.where(mask, tl.where(offs % 2 == 0, 7, 0), -1)\n"
    "    old = tl.atomic_cas(slot_ptr + tl.where(mask, offs, 0), cmp, b)\n" ST(old, "old");

/* n programs race on 4 slots with scalar atomics: per slot, cas(-7 -> pid)
 * lets exactly one program win and every other one sees the winner; xchg
 * chains the values: the olds plus the final value are the initial -7 plus
 * every pid of the slot. */
static const char k_contended[] =
    PRE "def k(cas_ptr, cold_ptr, xchg_ptr, xold_ptr):\n"
    "    pid = tl.program_id(0)\n"
    "    tl.store(cold_ptr + pid, tl.atomic_cas(cas_ptr + pid % 4, -7, pid))\n"
    "    tl.store(xold_ptr + pid, tl.atomic_xchg(xchg_ptr + pid % 4, pid))\n";

static int c_contended(const long *d, double *const *in, double *const *got, char *msg, size_t len) {
    (void)in;
    long n = d[0];
    int *seen = calloc((size_t)n + 1, sizeof *seen);
    int ok = 1;
    for (long s = 0; s < 4 && ok; s++) {
        double w = got[0][s];
        if (s >= n) {
            ok = w == -7 && got[2][s] == -7;
            if (!ok)
                snprintf(msg, len, "slot %ld is used by no program but holds cas %g, xchg %g", s, w, got[2][s]);
            continue;
        }
        if (w < 0 || w >= n || (long)w % 4 != s || got[1][(long)w] != -7) {
            snprintf(msg, len, "cas slot %ld = %g: not a program that saw -7", s, w);
            ok = 0;
        }
        for (long p = s; p < n && ok; p += 4)
            if (p != (long)w && got[1][p] != w) {
                snprintf(msg, len, "cas: program %ld saw %g, the winner is %g", p, got[1][p], w);
                ok = 0;
            }
        /* xchg: count -7 as n, pid p as p */
        memset(seen, 0, ((size_t)n + 1) * sizeof *seen);
        for (long p = s; p < n; p += 4) {
            double v = got[3][p];
            long key = v == -7 ? n : (long)v;
            if (key >= 0 && key <= n)
                seen[key]++;
        }
        double fin = got[2][s];
        if (fin >= 0 && fin < n)
            seen[(long)fin]++;
        for (long p = s; p < n && ok; p += 4)
            if (seen[p] != 1) {
                snprintf(msg, len, "xchg slot %ld: pid %ld appears %d times among olds and final %g", s, p, seen[p],
                         fin);
                ok = 0;
            }
        if (ok && seen[n] != 1) {
            snprintf(msg, len, "xchg slot %ld: the initial -7 came back %d times", s, seen[n]);
            ok = 0;
        }
    }
    free(seen);
    return ok;
}

/* -------------------------------------------------------------------- dot */

/* c = a @ b for a M x K, b K x N (row-major), in double from the inputs as
 * stored (optionally rounded to tf32 first). */
static void matmul(const long *d, double *const *in, double *out, int round_tf32) {
    long M = d[0], N = d[1], K = d[2];
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double s = 0;
            for (long k = 0; k < K; k++) {
                double a = in[0][i * K + k], b = in[1][k * N + j];
                s += round_tf32 ? tf32(a) * tf32(b) : a * b;
            }
            out[i * N + j] = s;
        }
}
static void r_dot(const long *d, double *const *in, double *const *want) {
    matmul(d, in, want[0], 0);
}
static void r_dot_tf32(const long *d, double *const *in, double *const *want) {
    matmul(d, in, want[0], 1);
}
/* a @ b + 0.5 */
static void r_dot_half(const long *d, double *const *in, double *const *want) {
    matmul(d, in, want[0], 0);
    for (long i = 0; i < d[0] * d[1]; i++)
        want[0][i] += 0.5;
}

/* A whole M x K by K x N product in one program (M, N, K from -D). */
#define DOTK(expr) \
    PRE "def k(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr):\n" \
    "    rm = tl.arange(0, M)\n" \
    "    rn = tl.arange(0, N)\n" \
    "    rk = tl.arange(0, K)\n" \
    "    a = tl.load(a_ptr + rm[:, None] * K + rk[None, :])\n" \
    "    b = tl.load(b_ptr + rk[:, None] * N + rn[None, :])\n" \
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], " expr ")\n"

/* The tutorial's loop: BM x BN tiles, K in BK steps, masked at every edge,
 * the accumulator (of type ACC) carried through tl.dot's acc argument. */
#define K_MATMUL(ACC, DOT_EXTRA) \
    PRE "def k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n" \
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n" \
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n" \
    "    rk = tl.arange(0, BK)\n" \
    "    acc = tl.zeros((BM, BN), dtype=" ACC ")\n" \
    "    for k0 in range(0, K, BK):\n" \
    "        ka = k0 + rk\n" \
    "        a_mask = (rm[:, None] < M) & (ka[None, :] < K)\n" \
    "        b_mask = (ka[:, None] < K) & (rn[None, :] < N)\n" \
    "        a = tl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=a_mask, other=0.0)\n" \
    "        b = tl.load(b_ptr + ka[:, None] * N + rn[None, :], mask=b_mask, other=0.0)\n" \
    "        acc = tl.dot(a, b, acc" DOT_EXTRA ")\n" \
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n"
static const char k_matmul[] = K_MATMUL("tl.float32", "");
/* Descriptors made in the kernel (tutorial 08's TMA kernel) whose K bound
 * is not the row stride: K = LD - 3, a multiple of nothing, with rows LD
 * apart (a multiple of 8 elements, the descriptors' 16-byte rule). The
 * tiles' rows load as 16-byte vectors and the mask cuts the last one short:
 * the pipeliner's copies move a prefix of such a vector and zero-fill the
 * rest (pipeline.c `ragged`, cp.async's src_size). c = a @ b.T over K. */
static void r_dot_ld(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1], LD = d[2], K = LD - 3;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double s = 0;
            for (long k = 0; k < K; k++)
                s += in[0][i * LD + k] * in[1][j * LD + k];
            want[0][i * N + j] = s;
        }
}
static const char k_dot_ragged_k[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, M, N, LD, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    K = LD - 3\n"
    "    a_desc = tl.make_tensor_descriptor(a_ptr, [M, K], [LD, 1], [BM, BK])\n"
    "    b_desc = tl.make_tensor_descriptor(b_ptr, [N, K], [LD, 1], [BN, BK])\n"
    "    om = tl.program_id(0) * BM\n"
    "    on = tl.program_id(1) * BN\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k0 in range(0, K, BK):\n"
    "        acc = tl.dot(a_desc.load([om, k0]), b_desc.load([on, k0]).T, acc)\n"
    "    rm = om + tl.arange(0, BM)\n"
    "    rn = on + tl.arange(0, BN)\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n";
static const Dims SMM_LD[] = {{{37, 45, 56}}, {{16, 16, 16}}, {{130, 67, 72}}, {{0}}};

/* Tutorial 08's epilogue: fp16 out through a row stride N not known to be
 * aligned (N odd: no divisibility), one column a thread in the store's
 * layout; on sm_90 the convert goes through a column-major scratch
 * (llvm.c move_columns). */
static const char k_matmul_cols[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    rk = tl.arange(0, BK)\n"
    "    acc = tl.zeros((BM, BN), dtype=tl.float32)\n"
    "    for k0 in range(0, K, BK):\n"
    "        ka = k0 + rk\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)\n"
    "        b = tl.load(b_ptr + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
    "        acc += tl.dot(a, b)\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc.to(tl.float16), mask=(rm[:, None] < M) & (rn[None, :] < N))\n";
/* fp16 accumulation (mma.sync .f16.f16.f16.f16) */
static const char k_matmul_f16acc[] = K_MATMUL("tl.float16", ", out_dtype=tl.float16");
/* Triton's test_dot_mulbroadcasted: a sum of a broadcast product, which the
 * combine pass makes a dot (the 3-D product never formed) */
static const char k_mulbcast[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    acc = tl.full((BM, BN), 0.0, tl.float32)\n"
    "    for k0 in range(0, K, BK):\n"
    "        ka = k0 + tl.arange(0, BK)\n"
    "        a = tl.load(a_ptr + rm[:, None] * K + ka[None, :], mask=(rm[:, None] < M) & (ka[None, :] < K), other=0.0)\n"
    "        b = tl.load(b_ptr + ka[:, None] * N + rn[None, :], mask=(ka[:, None] < K) & (rn[None, :] < N), other=0.0)\n"
    "        acc = tl.sum(tl.expand_dims(a, axis=2) * tl.expand_dims(b, axis=0), axis=1) + acc\n"
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], acc, mask=(rm[:, None] < M) & (rn[None, :] < N))\n";
/* fp64: an fp64 accumulator (FMA on the GPU) */
static const char k_matmul_f64[] = K_MATMUL("tl.float64", "");
/* fp8 partial sums added to the accumulator every 32 of K (two per BK = 64) */
static const char k_matmul_imprecise[] = K_MATMUL("tl.float32", ", max_num_imprecise_acc=32");

/* ------------------------------------------------------------------ fp8 */

/* The fp8 formats, decoded from their definitions, and the nearest code found
 * by trying all 256 (ties to the even code, beyond the largest finite value
 * that value, NaN to 0x7F): another way than compiler/fp8.c's, which rounds. */
enum { E4NV, E5, E4B15 };
static const struct { int ebits, mbits, bias; } f8fmt[3] = {{4, 3, 7}, {5, 2, 15}, {4, 3, 15}};

static double f8_decode(int f, unsigned code) {
    int eb = f8fmt[f].ebits, mb = f8fmt[f].mbits, bias = f8fmt[f].bias;
    unsigned e = (code >> mb) & ((1u << eb) - 1), m = code & ((1u << mb) - 1);
    double v;
    if (f == E4NV && (code & 0x7F) == 0x7F)
        return NAN;
    if (f == E5 && e == 31)
        v = m ? NAN : INFINITY;
    else
        v = e ? ldexp(1.0 + m / (double)(1u << mb), (int)e - bias) : ldexp(m / (double)(1u << mb), 1 - bias);
    return code & 0x80 ? -v : v;
}

static unsigned f8_nearest(int f, double x) {
    if (isnan(x))
        return 0x7F;
    unsigned best = 0;
    double bd = INFINITY;
    for (unsigned c = 0; c < 0x80; c++) { /* magnitudes; the sign goes on after */
        double v = f8_decode(f, c);
        if (!isfinite(v))
            continue;
        double dist = fabs(v - fabs(x));
        if (dist < bd || (dist == bd && !(c & 1))) /* ties: the even code */
            bd = dist, best = c;
    }
    if (isinf(x)) { /* the largest finite magnitude */
        for (unsigned c = 0; c < 0x80; c++)
            if (isfinite(f8_decode(f, c)))
                best = c;
    }
    return best | (signbit(x) ? 0x80 : 0);
}
static double f8(int f, double x) { return f8_decode(f, f8_nearest(f, x)); }

/* fp32 -> each fp8 format: the bits, and the value back in fp32 */
REF(r_f8_cast, want[0][i] = f8_nearest(E4NV, f32(a)); want[1][i] = f8_nearest(E5, f32(a));
    want[2][i] = f8_nearest(E4B15, f32(a)); want[3][i] = f8(E5, f32(a)))
static const char k_f8_cast[] =
    PRE "def k(a_ptr, p_ptr, q_ptr, r_ptr, s_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    x = a.to(tl.float8e4nv)\n"
    "    tl.static_assert(x.dtype == tl.float8e4nv and x.dtype.is_fp8() and x.dtype.is_floating())\n"
    ST(p, "x.to(tl.uint8, bitcast=True)") ST(q, "a.to(tl.float8e5).to(tl.uint8, bitcast=True)")
    ST(r, "a.to(tl.float8e4b15).to(tl.uint8, bitcast=True)") ST(s, "a.to(tl.float8e5).to(tl.float32)");

/* infinities, NaN and -0.0 (a > 0.5: inf, < -0.5: -inf, else NaN or -0.0) */
REF(r_f8_special, double v = a > 0.5 ? INFINITY : a < -0.5 ? -INFINITY : a > 0 ? NAN : -0.0;
    want[0][i] = f8_nearest(E4NV, v); want[1][i] = f8_nearest(E5, v); want[2][i] = f8_nearest(E4B15, v))
static const char k_f8_special[] =
    PRE "def k(a_ptr, p_ptr, q_ptr, r_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    zero = a * 0.0\n"
    "    inf = 1.0 / (zero * zero)\n"
    "    v = tl.where(a > 0.5, inf, tl.where(a < -0.5, -inf, tl.where(a > 0, inf - inf, -(zero * zero))))\n"
    ST(p, "v.to(tl.float8e4nv).to(tl.uint8, bitcast=True)") ST(q, "v.to(tl.float8e5).to(tl.uint8, bitcast=True)")
    ST(r, "v.to(tl.float8e4b15).to(tl.uint8, bitcast=True)");

/* fp8 buffers: loads widened exactly, fp8 arithmetic (each op in fp32, rounded back),
 * a store of fp8, and the bits of -x */
REF(r_f8_mem, want[0][i] = f32(a + b); want[1][i] = f8(E4NV, f32(f8(E4NV, f32(a * 2.5)) - a));
    want[2][i] = f8_nearest(E5, -b))
static const char k_f8_mem[] =
    PRE "def k(a_ptr, b_ptr, s_ptr, t_ptr, u_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert(a.dtype == tl.float8e4nv and b.dtype == tl.float8e5)\n"
    "    t = a * 2.5 - a\n"
    "    tl.static_assert(t.dtype == tl.float8e4nv and (a + b).dtype == tl.float16)\n"
    ST(s, "a.to(tl.float32) + b.to(tl.float32)") ST(t, "t") ST(u, "(-b).to(tl.uint8, bitcast=True)");

/* fp8e4b15 buffers (TL_F8E4B15, as upstream's test_typeconvert_upcast gives
 * them): loads, arithmetic in fp32 rounded back, stores */
REF(r_f8_e4b15_mem, want[0][i] = f32(a * 3); want[1][i] = f8(E4B15, f8(E4B15, a * 0.5) + 0.25))
static const char k_f8_e4b15_mem[] =
    PRE "def k(a_ptr, s_ptr, t_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    tl.static_assert(a.dtype == tl.float8e4b15)\n"
    ST(s, "a.to(tl.float32) * 3") ST(t, "a * 0.5 + 0.25");

/* dot of fp8e4b15 operands converted in the kernel (no tensor-core form) */
static void r_dot_e4b15(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1], K = d[2];
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double acc = 0;
            for (long k = 0; k < K; k++)
                acc += f8(E4B15, f32(in[0][i * K + k])) * f8(E4B15, f32(in[1][k * N + j]));
            want[0][i * N + j] = acc;
        }
}

/* Attention's two fp8 dots in one loop (tutorial 06's fp8 forward without
 * the softmax): s = q @ k.T, p = s as e5m2, o += p @ v, V stored [D, L] and
 * read through .T (K-major, as wgmma takes 8 bits). On sm_90a both are
 * wgmma: Q staged once, P stored to shared memory each iteration
 * (pipeline.c, restage_a). Inputs of +-1 keep s an exact integer, so p's
 * rounding is the reference's. */
static void r_attn_fp8(const long *d, double *const *in, double *const *want) {
    long M = d[0], L = d[1], D = d[2];
    for (long i = 0; i < M * D; i++)
        want[0][i] = 0;
    for (long i = 0; i < M; i++)
        for (long n = 0; n < L; n++) {
            double s = 0;
            for (long c = 0; c < D; c++)
                s += in[0][i * D + c] * in[1][n * D + c];
            double p = f8(E5, s);
            for (long j = 0; j < D; j++)
                want[0][i * D + j] += p * in[2][j * L + n];
        }
}
static const char k_attn_fp8[] =
    PRE "def k(q_ptr, k_ptr, v_ptr, o_ptr, M, L, BM: tl.constexpr, BN: tl.constexpr, D: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rd = tl.arange(0, D)\n"
    "    q = tl.load(q_ptr + rm[:, None] * D + rd[None, :], mask=rm[:, None] < M, other=0.0)\n"
    "    acc = tl.zeros((BM, D), dtype=tl.float32)\n"
    "    for n0 in range(0, L, BN):\n"
    "        rn = n0 + tl.arange(0, BN)\n"
    "        kt = tl.load(k_ptr + rn[:, None] * D + rd[None, :], mask=rn[:, None] < L, other=0.0)\n"
    "        p = tl.dot(q, kt.T).to(tl.float8e5)\n"
    "        vt = tl.load(v_ptr + rd[:, None] * L + rn[None, :], mask=rn[None, :] < L, other=0.0)\n"
    "        acc = tl.dot(p, vt.T, acc)\n"
    "    tl.store(o_ptr + rm[:, None] * D + rd[None, :], acc, mask=rm[:, None] < M)\n";
static const Dims SATTN8[] = {{{37, 45, 64}}, {{1, 1, 64}}, {{130, 129, 64}}, {{128, 64, 64}}, {{0}}};

/* ----------------------------------------------------------- control flow */

/* x holds m rows of n; sum them in a runtime loop, and Horner them in a loop
 * with a negative constant step (order matters there). */
static void r_for(const long *d, double *const *in, double *const *want) {
    long n = d[0], m = d[1];
    for (long i = 0; i < n; i++) {
        float s = 0, h = 0;
        for (long j = 0; j < m; j++)
            s += (float)in[0][j * n + i];
        for (long j = m - 1; j >= 0; j--)
            h = h * 0.5f + (float)in[0][j * n + i];
        want[0][i] = s, want[1][i] = h;
    }
}

static const char k_for[] =
    PRE "def k(x_ptr, s_ptr, h_ptr, n, m, BLOCK: tl.constexpr):\n" OFFS
    "    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n"
    "    for j in tl.range(0, m):\n"
    "        acc += tl.load(x_ptr + j * n + offs, mask=mask, other=0.0)\n"
    "    h = tl.zeros_like(acc)\n"
    "    for j in range(m - 1, -1, -1):\n"
    "        h = h * 0.5 + tl.load(x_ptr + j * n + offs, mask=mask, other=0.0)\n"
    ST(s, "acc") ST(h, "h");

/* Rows of x (M x N) walked in chunks of BLOCK, as tutorial 05 does: a sum,
 * then y = 2x - sum and a running max carried out of the second loop, then
 * (even rows) + max in chunks of BLOCK / 2 under an if. Where N <= BLOCK the
 * loops run once and compile straight-line (peel.c); N = 0 runs none. */
static void r_peel(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long r = 0; r < M; r++) {
        double t = 0, big = -1.0e30;
        for (long c = 0; c < N; c++)
            t += in[0][r * N + c], big = fmax(big, in[0][r * N + c]);
        t = (float)t;
        want[1][r] = t;
        for (long c = 0; c < N; c++)
            want[0][r * N + c] = (float)(2 * in[0][r * N + c] - t) + (r % 2 == 0 ? (float)big : 0);
    }
}

static const char k_peel[] =
    PRE "def k(x_ptr, y_ptr, s_ptr, M, N, BLOCK: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    x_ptr += row * N\n"
    "    y_ptr += row * N\n"
    "    acc = tl.zeros((BLOCK,), dtype=tl.float32)\n"
    "    for off in range(0, N, BLOCK):\n"
    "        cols = off + tl.arange(0, BLOCK)\n"
    "        acc += tl.load(x_ptr + cols, mask=cols < N, other=0.0)\n"
    "    total = tl.sum(acc, axis=0)\n"
    "    tl.store(s_ptr + row, total)\n"
    "    big = -1.0e30\n"
    "    for off in range(0, N, BLOCK):\n"
    "        cols = off + tl.arange(0, BLOCK)\n"
    "        x = tl.load(x_ptr + cols, mask=cols < N, other=0.0)\n"
    "        big = tl.maximum(big, tl.max(tl.where(cols < N, x, -1.0e30), axis=0))\n"
    "        tl.store(y_ptr + cols, x * 2.0 - total, mask=cols < N)\n"
    "    if row % 2 == 0:\n"
    "        for off in range(0, N, BLOCK // 2):\n"
    "            cols = off + tl.arange(0, BLOCK // 2)\n"
    "            y = tl.load(y_ptr + cols, mask=cols < N, other=0.0)\n"
    "            tl.store(y_ptr + cols, y + big, mask=cols < N)\n";

/* Liger's layer_norm forward (W and B loaded first, read after the
 * statistics) under --maxnreg: the sink pass loads them after the
 * reductions, before the statistics' stores (sink.c). */
static void r_lnorm(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long r = 0; r < M; r++) {
        const double *x = in[0] + r * N;
        double mean = 0, var = 0;
        for (long c = 0; c < N; c++)
            mean += x[c];
        mean /= N;
        for (long c = 0; c < N; c++)
            var += (x[c] - mean) * (x[c] - mean);
        double rstd = 1 / sqrt(var / N + 1e-5);
        want[1][r] = mean, want[2][r] = rstd;
        for (long c = 0; c < N; c++)
            want[0][r * N + c] = (x[c] - mean) * rstd * in[1][c] + in[2][c];
    }
}

static const char k_lnorm[] =
    PRE "def k(x_ptr, w_ptr, b_ptr, y_ptr, mean_ptr, rstd_ptr, M, N, BLOCK: tl.constexpr):\n"
    "    row = tl.program_id(0)\n"
    "    cols = tl.arange(0, BLOCK)\n"
    "    mask = cols < N\n"
    "    w = tl.load(w_ptr + cols, mask=mask, other=0.0)\n"
    "    b = tl.load(b_ptr + cols, mask=mask, other=0.0)\n"
    "    x = tl.load(x_ptr + row * N + cols, mask=mask, other=0.0)\n"
    "    mean = tl.sum(x, axis=0) / N\n"
    "    xc = tl.where(mask, x - mean, 0.0)\n"
    "    rstd = 1.0 / tl.sqrt(tl.sum(xc * xc, axis=0) / N + 1e-5)\n"
    "    tl.store(mean_ptr + row, mean)\n"
    "    tl.store(rstd_ptr + row, rstd)\n"
    "    tl.store(y_ptr + row * N + cols, xc * rstd * w + b, mask=mask)\n";

static void r_while(const long *d, double *const *in, double *const *want) {
    long c = 0;
    for (long s = 1; s < d[0]; s *= 2)
        c++;
    for (long i = 0; i < d[0]; i++) {
        float acc = (float)in[0][i];
        for (long j = 0; j < d[1]; j++)
            acc = acc * 0.5f + 1.0f;
        want[0][i] = acc, want[1][i] = in[1][i] + c;
    }
}

/* A block carried through a counted while, and a scalar one (s doubles until
 * it reaches n: c = ceil(log2 n)) whose carried values start as numbers. */
static const char k_while[] =
    PRE "def k(a_ptr, b_ptr, out_ptr, cnt_ptr, n, m, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    acc = a\n"
    "    i = 0\n"
    "    while i < m:\n"
    "        acc = acc * 0.5 + 1.0\n"
    "        i += 1\n"
    "    s = 1\n"
    "    c = 0\n"
    "    while s < n:\n"
    "        s *= 2\n"
    "        c += 1\n"
    ST(out, "acc") ST(cnt, "b + c");

static void r_if(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        double a = in[0][i], y = d[0] > 128 ? f32(a * 2) : f32(a - 1);
        want[0][i] = (i / 128) % 2 == 0 ? f32(y + 10) : f32(y * 3);
        want[1][i] = d[0] % 2 == 0 ? 1.0 : -1.0;
    }
}

/* if on a runtime scalar argument, on the program id, and a ternary. */
static const char k_if[] =
    PRE "def k(a_ptr, out_ptr, t_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    if n > 128:\n"
    "        y = a * 2\n"
    "    else:\n"
    "        y = a - 1\n"
    "    pid = tl.program_id(0)\n"
    "    if pid % 2 == 0:\n"
    "        w = y + 10\n"
    "    else:\n"
    "        w = y * 3\n"
    "    t = 1.0 if n % 2 == 0 else -1.0\n" ST(out, "w") ST(t, "tl.zeros_like(a) + t");

/* Multipliers are powers of two, so the float reference is exact even when
 * the GPU fuses the multiply-add. */
REF(r_static_range, float acc = (float)a; for (int k = 1; k < 4; k++) acc = acc + (float)a * (float)(1 << k);
    want[0][i] = acc)
static const char k_static_range[] =
    EW1("    z = a\n"
        "    for k in tl.static_range(1, 4):\n"
        "        z = z + a * (2 ** k)\n");

REF(r_helper, double y1 = a * 2 + 1, y2 = (a * 0.5 - 1) * (a * 0.5 - 1); want[0][i] = y1 + y2;
    want[1][i] = (a * 2 + 1) * (a - 2))
static const char k_helper[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def scale_shift(x, scale, shift=1.0, square: tl.constexpr = False):\n"
    "    y = x * scale + shift\n"
    "    if square:\n"
    "        y = y * y\n"
    "    return y\n\n\n"
    "@triton.jit\n"
    "def pair(x, k=3):\n"
    "    return scale_shift(x, k), x - k\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, out_ptr, out2_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    y = scale_shift(a, 2.0) + scale_shift(a, shift=-1.0, scale=0.5, square=True)\n"
    "    p, q = pair(a, k=2)\n" ST(out, "y") ST(out2, "p * q");

/* Early returns. The grid has four times the programs needed (g = 32 with
 * BLOCK = 128): those past the end return at once; the others record pid + 1
 * in p[pid], which must stay the sentinel for the rest. */
static void r_early_return(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++)
        want[0][i] = in[0][i];
    for (long p = 0; p * 128 < d[0]; p++)
        want[1][p] = p + 1;
}
static const char k_early_return[] =
    PRE "def k(x_ptr, z_ptr, p_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    if pid * BLOCK >= n:\n"
    "        return\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=offs < n), mask=offs < n)\n"
    "    tl.store(p_ptr + pid, pid + 1)\n";

/* Returns two ifs deep: odd programs double y and, if pid % 4 == 3, store
 * y + 100 and return before the common tail (which stores y and p[pid]). */
static void r_early_nested(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        long p = i / 128;
        want[0][i] = p % 4 == 3 ? f32(2 * in[0][i] + 100) : p % 2 ? 2 * in[0][i] : in[0][i];
    }
    for (long p = 0; p * 128 < d[0]; p++)
        if (p % 4 != 3)
            want[1][p] = p + 1;
}
static const char k_early_nested[] =
    PRE "def k(x_ptr, z_ptr, p_ptr, n, BLOCK: tl.constexpr):\n"
    "    pid = tl.program_id(0)\n"
    "    offs = pid * BLOCK + tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    y = tl.load(x_ptr + offs, mask=mask)\n"
    "    if pid % 2 == 1:\n"
    "        if pid * BLOCK >= n:\n"
    "            return\n"
    "        y = y * 2\n"
    "        if pid % 4 == 3:\n"
    "            tl.store(z_ptr + offs, y + 100, mask=mask)\n"
    "            return\n"
    "    elif pid * BLOCK >= n:\n"
    "        return\n"
    "    tl.store(z_ptr + offs, y, mask=mask)\n"
    "    tl.store(p_ptr + pid, pid + 1)\n";

/* A helper returning from inside runtime ifs: the paths' values merge. */
REF(r_early_helper, long p = i / 128; want[0][i] = p % 2 == 0 ? 2 * a : p % 3 == 0 ? f32(a - 1) : f32(a + 0.5))
static const char k_early_helper[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def pick(x, pid):\n"
    "    if pid % 2 == 0:\n"
    "        return x * 2\n"
    "    if pid % 3 == 0:\n"
    "        return x - 1\n"
    "    return x + 0.5\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) ST(out, "pick(a, tl.program_id(0))");

/* -------------------------------------------------------------- the cases */

#define EXACT 0, 0
#define APPROX 1e-6, 2e-6 /* approx exp/log/sin/cos/rsqrt, `/`, fused a * b + c */
#define SUMS 1e-5, 1e-5
#define F1D(lo, hi) IN(TL_F32, D0, lo, hi)
#define I1D(lo, hi) IN(TL_I32, D0, lo, hi)
#define TIES(dims) {TL_F32, dims, 0, -2, 2, 1}
#define MATH(name, call, lo, hi, ref) \
    {name, EW1("    z = " call "\n"), B128, S1D, G1D, 1, 0, {F1D(lo, hi)}, {OUT(TL_F32, D0)}, ref, NULL, APPROX}

/* 1-D blocks smaller than a warp's tile */
static const Dims S1D_TINY[] = {{{1}}, {{17}}, {{31}}, {{32}}, {{0}}};
#include "ops_std.h"
#include "ops_math.h"
#include "ops_rank5.h"
#include "ops_libdevice.h"
#include "ops_py.h"
#include "ops_scaled.h"

static const Case cases[] = {
    /* type promotion: the static_asserts pin the dtype, the values the arithmetic */
    {"promote_i32_i32", EW2("    z = a * b + a - 7\n    tl.static_assert(z.dtype == tl.int32)\n"), B128, S1D, G1D, 1,
     0, {I1D(-1000, 1000), I1D(-1000, 1000)}, {OUT(TL_I32, D0)}, r_i32_i32, NULL, EXACT},
    {"promote_i32_i64", EW2("    z = b + a + a\n    tl.static_assert(z.dtype == tl.int64)\n"), B128, S1D, G1D, 1, 0,
     {I1D(-2e9, 2e9), IN(TL_I64, D0, -1e12, 1e12)}, {OUT(TL_I64, D0)}, r_b_a_a, NULL, EXACT},
    {"promote_i8_i32", EW2("    z = a * b + a\n    tl.static_assert(z.dtype == tl.int32)\n"), B128, S1D, G1D, 1, 0,
     {IN(TL_I8, D0, -100, 100), I1D(-100000, 100000)}, {OUT(TL_I32, D0)}, r_i8_i32, NULL, EXACT},
    /* u32 + i32 is u32 (unsigned wins at equal width): a + b < 0 wraps, and
     * // 3 then divides the wrapped value */
    {"promote_u32_i32", EW2("    z = (a + b) // 3\n    tl.static_assert(z.dtype == tl.uint32)\n"), B128, S1D, G1D, 1,
     0, {IN(TL_U32, D0, 1, 1000), I1D(-1000, 1000)}, {OUT(TL_U32, D0)}, r_u32_i32, NULL, EXACT},
    {"promote_i32_f32", EW2("    z = a + b\n    tl.static_assert(z.dtype == tl.float32)\n"), B128, S1D, G1D, 1, 0,
     {I1D(-1e6, 1e6), F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_add_f32, NULL, EXACT},
    {"promote_f16_f32", EW2("    z = a + b\n    tl.static_assert(z.dtype == tl.float32)\n"), B128, S1D, G1D, 1, 0,
     {IN(TL_F16, D0, -1, 1), F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_add_f32, NULL, EXACT},
    {"promote_f16_pyfloat", EW1("    z = a * 1.5\n    tl.static_assert(z.dtype == tl.float16)\n"), B128, S1D, G1D, 1,
     0, {IN(TL_F16, D0, -2, 2)}, {OUT(TL_F16, D0)}, r_h_mul, NULL, EXACT},
    {"narrow_f16_ops", k_narrow, B128, S1D, G1D, 1, 0, {IN(TL_F16, D0, -2000, 2000), IN(TL_F16, D0, -3, 3)},
     {OUT(TL_F16, D0), OUT(TL_F16, D0), OUT(TL_F16, D0)}, r_narrow, NULL, EXACT},
    {"promote_i32_pyfloat", EW1("    z = a * 1.5\n    tl.static_assert(z.dtype == tl.float32)\n"), B128, S1D, G1D, 1,
     0, {I1D(-1000, 1000)}, {OUT(TL_F32, D0)}, r_mul15, NULL, EXACT},
    {"promote_truediv_i32", EW2("    z = a / b\n    tl.static_assert(z.dtype == tl.float32)\n"), B128, S1D, G1D, 1, 0,
     {I1D(-1000, 1000), I1D(-9, 9)}, {OUT(TL_F32, D0)}, r_div, NULL, APPROX},
    /* // and % truncate toward zero on runtime ints (C, as Triton) */
    {"floordiv_mod_negative", k_divmod, B128, S1D, G1D, 1, 0, {I1D(-100, 100), I1D(-9, 9)},
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_divmod, NULL, EXACT},
    {"int64_floordiv_mod", k_divmod64, B128, S1D, G1D, 1, 0, {IN(TL_I64, D0, -1e12, 1e12), I1D(-9, 9)},
     {OUT(TL_I64, D0), OUT(TL_I64, D0)}, r_divmod64, NULL, EXACT},
    /* % on floats is C's fmod (sign of the dividend), as Triton's frem */
    {"fmod_f32", EW2("    z = a % b\n"), B128, S1D, G1D, 1, 0, {F1D(-10, 10), F1D(-3, 3)}, {OUT(TL_F32, D0)}, r_fmod,
     NULL, APPROX},
    /* u32 against i32 compares unsigned: negative b is huge */
    {"unsigned_compare",
     EW2("    z = (a > b).to(tl.int32) + (a < 3000000000).to(tl.int32) * 2 + (b < 0).to(tl.int32) * 4\n"), B128, S1D,
     G1D, 1, 0, {IN(TL_U32, D0, 1, 4e9), I1D(-1000, 1000)}, {OUT(TL_I32, D0)}, r_ucmp, NULL, EXACT},
    {"bool_ops", k_bool, B128, S1D, G1D, 1, 0, {I1D(-100, 100), I1D(-100, 100)}, {OUT(TL_I32, D0), OUT(TL_I1, D0)},
     r_bool, NULL, EXACT},
    {"int_bitwise_shift", k_bits, B128, S1D, G1D, 1, 0, {I1D(-1000000, 1000000), IN(TL_U32, D0, 1, 4e9)},
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_U32, D0), OUT(TL_I32, D0)}, r_bits, NULL, EXACT},

    /* broadcasting */
    {"bcast_outer_sum", OUTER("    z = x[:, None] + y[None, :]\n"), T2D, S2D, G2D, 2, 0,
     {IN(TL_F32, D0, -1, 1), IN(TL_F32, D1, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_outer_sum, NULL, EXACT},
    {"bcast_expand_dims", OUTER("    z = tl.expand_dims(x, 1) * y.expand_dims(0)\n"), T2D, S2D, G2D, 2, 0,
     {IN(TL_F32, D0, -1, 1), IN(TL_F32, D1, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_outer_mul, NULL, EXACT},
    {"bcast_broadcast_to",
     OUTER("    z = tl.broadcast_to(x[:, None], (BM, BN)) - tl.broadcast_to(y[None, :], (BM, BN))\n"
           "    tl.static_assert(z.shape == (BM, BN))\n"),
     T2D, S2D, G2D, 2, 0, {IN(TL_F32, D0, -1, 1), IN(TL_F32, D1, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_outer_sub, NULL,
     EXACT},
    {"bcast_scalar_block", k_scalar, B128, S1D, G1D, 1, 1, {F1D(-1, 1), {TL_F32, 0, 1, -1, 1, 0}},
     {OUT(TL_F32, D0)}, r_scalar, NULL, EXACT},
    /* load under in-bounds & lower-triangle (other elsewhere), store under
     * in-bounds & even row */
    {"bcast_mask2d",
     PRE "def k(x_ptr, out_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n" TILE
     "    v = tl.load(x_ptr + idx, mask=mask & (rm[:, None] >= rn[None, :]), other=-1.0)\n"
     "    tl.store(out_ptr + idx, v, mask=mask & (rm[:, None] % 2 == 0))\n",
     T2D, S2D, G2D, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_mask2d, NULL, EXACT},

    /* creation, memory, selection */
    {"program_id_num_programs", k_pids, T2D, S2D, G2D, 2, 0, {{0}}, {OUT(TL_I32, D0 | D1), OUT(TL_I32, D0 | D1)},
     r_pids, NULL, EXACT},
    /* arange with a non-zero start; a Python number stored through a block
     * of pointers */
    {"arange_store_scalar",
     PRE "def k(out_ptr, three_ptr, n, BLOCK: tl.constexpr):\n" OFFS
     ST(out, "tl.arange(32, 32 + BLOCK) + tl.program_id(0) * BLOCK - 32") ST(three, "3"),
     B128, S1D, G1D, 1, 0, {{0}}, {OUT(TL_I32, D0), OUT(TL_I16, D0)}, r_arange, NULL, EXACT},
    {"load_gather", EW1("    z = tl.load(a_ptr + (offs * 7919) % n, mask=mask)\n"), B128, S1D, G1D, 1, 0,
     {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_gather, NULL, EXACT},
    {"zeros_full", k_zeros_full, B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0), OUT(TL_I32, D0)},
     r_zeros_full, NULL, EXACT},
    {"load_mask_other",
     PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS
     "    v = tl.load(a_ptr + offs, mask=mask & (offs % 3 != 0), other=-2.0)\n" ST(out, "v"),
     B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_load_other, NULL, EXACT},
    {"store_mask",
     PRE "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
     "    tl.store(out_ptr + offs, a, mask=mask & (a > 0))\n",
     B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_store_mask, NULL, EXACT},
    {"where", k_where, B128, S1D, G1D, 1, 0, {F1D(-1, 1), F1D(-1, 1)}, {OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_where,
     NULL, EXACT},
    {"cdiv", k_cdiv, B128, S1D, G1D, 1, 0, {I1D(1, 1000), I1D(1, 9)}, {OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_cdiv,
     NULL, EXACT},
    {"minimum_maximum_clamp_abs", k_minmax, B128, S1D, G1D, 1, 0, {F1D(-1, 1), F1D(-1, 1)},
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_minmax_f, NULL, EXACT},
    {"minimum_maximum_abs_i32", k_minmax_i, B128, S1D, G1D, 1, 0, {I1D(-1000, 1000), I1D(-1000, 1000)},
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_minmax_i, NULL, EXACT},

    /* math */
    MATH("exp", "tl.exp(a)", -10, 10, r_exp),
    MATH("exp2", "tl.exp2(a)", -10, 10, r_exp2),
    MATH("log", "tl.log(a)", 0.01, 10, r_log),
    MATH("log2", "tl.log2(a)", 0.01, 10, r_log2),
    MATH("sqrt", "tl.sqrt(a)", 0.01, 100, r_sqrt),
    MATH("rsqrt", "tl.rsqrt(a)", 0.01, 100, r_rsqrt),
    MATH("sin", "tl.sin(a)", -M_PI, M_PI, r_sin),
    MATH("cos", "tl.cos(a)", -M_PI, M_PI, r_cos),
    /* Outside [-pi, pi] the GPU's sin/cos.approx (which tl uses, as Triton
     * does) lose accuracy about linearly in |x|: measured on an H100, max
     * abs error 3.9e-7 in [-pi, pi], 1.3e-6 in [-10, 10], 1e-5 in [-100,
     * 100]. These cases allow 2e-6 absolute in [-10, 10]. */
    {"sin_wide", EW1("    z = tl.sin(a)\n"), B128, S1D, G1D, 1, 0, {F1D(-10, 10)}, {OUT(TL_F32, D0)}, r_sin, NULL,
     2e-6, 2e-6},
    {"cos_wide", EW1("    z = tl.cos(a)\n"), B128, S1D, G1D, 1, 0, {F1D(-10, 10)}, {OUT(TL_F32, D0)}, r_cos, NULL,
     2e-6, 2e-6},
    MATH("sigmoid", "tl.sigmoid(a)", -10, 10, r_sigmoid),
    {"fma", EW3("    z = tl.fma(a, b, c)\n"), B128, S1D, G1D, 1, 0, {F1D(-1, 1), F1D(-1, 1), F1D(-1, 1)},
     {OUT(TL_F32, D0)}, r_fma, NULL, EXACT},
    /* fp64 + - * / sqrt are correctly rounded (no approximations) */
    {"fp64_arith", EW2("    z = a * b + a / b - tl.sqrt(tl.abs(b))\n    tl.static_assert(z.dtype == tl.float64)\n"),
     B128, S1D, G1D, 1, 0, {IN(TL_F64, D0, -1, 1), IN(TL_F64, D0, -1, 1)}, {OUT(TL_F64, D0)}, r_f64, NULL, 1e-15,
     1e-14},
    {"floor_ceil", k_floor_ceil, B128, S1D, G1D, 1, 0, {F1D(-10, 10)}, {OUT(TL_F32, D0), OUT(TL_F32, D0)},
     r_floor_ceil, NULL, EXACT},

    /* casts: fp32 -> fp16 -> fp32 rounds to nearest even, fp32 -> i32
     * truncates, bitcasts keep bits (+1 is the next float away from 0),
     * i32 -> fp32 rounds, i32 -> i8 wraps */
    {"cast_f32", k_casts_f, B128, S1D, G1D, 1, 0, {F1D(-1000, 1000)},
     {OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_casts_f, NULL, EXACT},
    {"cast_i32", k_casts_i, B128, S1D, G1D, 1, 0, {I1D(-67108864, 67108864), F1D(-60000, 60000)},
     {OUT(TL_F32, D0), OUT(TL_I8, D0), OUT(TL_F16, D0)}, r_casts_i, NULL, EXACT},
    {"multiple_of_max_contiguous", k_hints, B128, S1D_HINT, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_twice,
     NULL, EXACT},

    /* shapes */
    {"reshape_keep_dims", k_reshape, B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_reshape, NULL, SUMS},
    {"permute_3d", k_permute, B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_permute, NULL, EXACT},
    {"trans_permute_2d", k_trans, T2D, S2D, G2D, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1)}, r_trans, NULL, EXACT},
    {"trans_permute_2d_w1", k_trans, T2D " --num-warps 1", S2D, G2D, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1)}, r_trans, NULL, EXACT},
    {"trans_permute_2d_w8", k_trans, T2D " --num-warps 8", S2D, G2D, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1)}, r_trans, NULL, EXACT},
    {"index_new_axis_first_w1", k_index_new_first, "-D S=32 --num-warps 1", S3D_32, {0, 0}, 3, 0,
     {IN(TL_I32, D0 | D1, -2e9, 2e9)}, {OUT(TL_I32, D0 | D1 | D2)}, r_index_new_first, NULL, EXACT},
    {"index_new_axis_last_w1", k_index_new_last, "-D S=32 --num-warps 1", S3D_32, {0, 0}, 3, 0,
     {IN(TL_U16, D0 | D1, 1, 65535)}, {OUT(TL_U16, D0 | D1 | D2)}, r_index_new_last, NULL, EXACT},
    {"big_block_4096_words_w1", k_big_block, "-D BLOCK=65536 --num-warps 1", S1D_BIG, {65536, 0}, 1, 0,
     {IN(TL_F32, D0, -1, 1)}, {OUT(TL_F32, D0)}, r_twice, NULL, EXACT},
    {"swizzle2d", k_swizzle, T2D " -D G=4", S2D, G2D, 2, 0, {{0}}, {OUT(TL_I32, D0 | D1), OUT(TL_I32, D0 | D1)},
     r_swizzle, NULL, EXACT},

    /* reductions */
    {"reduce_axis1", k_rows, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_rows, NULL, SUMS},
    {"reduce_axis0", k_cols, "-D BM=64 -D BN=32", S2D_SMALL, {0, 32}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D1), OUT(TL_F32, D1), OUT(TL_F32, D1)}, r_cols, NULL, SUMS},
    {"argmax_argmin_axis1", k_argrows, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_argrows, NULL, EXACT},
    {"argmax_argmin_axis0", k_argcols, "-D BM=64 -D BN=32", S2D_SMALL, {0, 32}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_I32, D1), OUT(TL_I32, D1), OUT(TL_I32, D1)}, r_argcols, NULL, EXACT},
    {"reduce_1d", k_reduce1d, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {F1D(-1, 1), I1D(-100000, 100000)},
     {OUTC(TL_F32, 4, SENT), OUTC(TL_I32, 4, SENT)}, r_reduce1d, NULL, 1e-4, 1e-5},
    /* values in {-2, -1, 1, 2}: ties everywhere, and argmax / argmin /
     * return_indices must give the first index, as Triton's tie_break_left */
    {"reduce_1d_ties", k_reduce1d, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {TIES(D0), I1D(-3, 3)},
     {OUTC(TL_F32, 4, SENT), OUTC(TL_I32, 4, SENT)}, r_reduce1d, NULL, EXACT},
    {"argmax_argmin_ties_axis1", k_argrows, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {TIES(D0 | D1)},
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_argrows, NULL, EXACT},
    {"argmax_argmin_ties_axis0", k_argcols, "-D BM=64 -D BN=32", S2D_SMALL, {0, 32}, 2, 0, {TIES(D0 | D1)},
     {OUT(TL_I32, D1), OUT(TL_I32, D1), OUT(TL_I32, D1)}, r_argcols, NULL, EXACT},
    {"reduce_axis1_w8", k_rows, "-D BM=16 -D BN=64 --num-warps 8", S2D_SMALL, {16, 0}, 2, 0,
     {IN(TL_F32, D0 | D1, -1, 1)}, {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_rows, NULL, SUMS},
    {"reduce_axis0_w1", k_cols, "-D BM=64 -D BN=32 --num-warps 1", S2D_SMALL, {0, 32}, 2, 0,
     {IN(TL_F32, D0 | D1, -1, 1)}, {OUT(TL_F32, D1), OUT(TL_F32, D1), OUT(TL_F32, D1)}, r_cols, NULL, SUMS},
    {"softmax_rows", k_softmax, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {IN(TL_F32, D0 | D1, -5, 5)},
     {OUT(TL_F32, D0 | D1)}, r_softmax, NULL, 1e-6, 1e-5},

    /* scans, reductions with a combine function, sort (ops_std.h) */
    STD_CASES
    /* the rest of math.py, fp64 math, libdevice (ops_math.h) */
    MATH_CASES
    /* rank-5 blocks, batched dots (ops_rank5.h) */
    RANK5_CASES
    /* the rest of libdevice: rounded arithmetic, conversions, special functions (ops_libdevice.h) */
    LIBDEVICE_CASES
    /* Python forms with Triton's meaning, hints and intrinsics (ops_py.h) */
    PY_CASES

    /* atomics (BLOCK = 16: many programs on few addresses) */
    {"atomic_add_i32", k_atomic_add, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {I1D(-100, 100)},
     {OUTC(TL_I32, 4, SENT), OUTC(TL_I32, 1, SENT)}, r_atomic_add, NULL, EXACT},
    /* fp32 values on a 1/1024 grid: every order of additions is exact */
    {"atomic_add_f32", k_atomic_add, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {{TL_F32, D0, 0, -1, 1, 1.0 / 1024}},
     {OUTC(TL_F32, 4, SENT), OUTC(TL_I32, 1, SENT)}, r_atomic_add, NULL, EXACT},
    /* fp16 on a 1/4 grid: partial sums stay exact (|sum| < 512) */
    {"atomic_add_f16", k_atomic_add, "-D BLOCK=16", S1D_SMALL, {16, 0}, 1, 0, {{TL_F16, D0, 0, -1, 1, 0.25}},
     {OUTC(TL_F16, 4, SENT), OUTC(TL_I32, 1, SENT)}, r_atomic_add, NULL, EXACT},
    {"atomic_max_min", k_atomic_minmax, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {I1D(-1000, 1000), F1D(-1, 1)},
     {OUTC(TL_I32, 4, SENT), OUTC(TL_I32, 4, SENT), OUTC(TL_F32, 4, -7), OUTC(TL_F32, 4, SENT)}, r_atomic_minmax,
     NULL, EXACT},
    {"atomic_max_min_neg_zero", k_atomic_negzero, "-D BLOCK=16", S1D_SMALL, {16, 0}, 1, 0, {F1D(-1, 1)},
     {OUTC(TL_F32, 4, -3e38), OUTC(TL_F32, 4, 3e38)}, r_atomic_negzero, NULL, EXACT},
    {"atomic_and_or_xor", k_atomic_bits, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {I1D(1, 1 << 20)},
     {OUTC(TL_I32, 4, -1), OUTC(TL_I32, 4, 0), OUTC(TL_I32, 4, SENT)}, r_atomic_bits, NULL, EXACT},
    {"atomic_xchg", k_xchg, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0), OUTI(TL_F32, D0, -7)},
     r_xchg, NULL, EXACT},
    {"atomic_cas", k_cas, "-D BLOCK=16", S1D, {16, 0}, 1, 0, {I1D(1, 100)}, {OUT(TL_I32, D0), OUTI(TL_I32, D0, -7)},
     r_cas, NULL, EXACT},
    {"atomic_cas_xchg_contended", k_contended, "", SPROG, {1, 0}, 0, 0, {{0}},
     {OUTC(TL_I32, 4, -7), OUTI(TL_I32, D0, SENT), OUTC(TL_I32, 4, -7), OUTI(TL_I32, D0, SENT)}, NULL, c_contended,
     EXACT},

    /* dot */
    {"dot_f16_32x32x32", DOTK("tl.dot(a, b)"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    {"dot_f16_64x32x16_out_f16", DOTK("tl.dot(a, b).to(tl.float16)"), "-D M=64 -D N=32 -D K=16", SDOT64, {0, 0}, 0,
     0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL, 1e-3, 1e-3},
    /* out_dtype=float16: accumulated in fp16 (rounded after every k16 step) */
    {"dot_f16_acc_f16_64x32x32", DOTK("tl.dot(a, b, out_dtype=tl.float16)"), "-D M=64 -D N=32 -D K=32", SDOT32_64,
     {0, 0}, 0, 0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL,
     2e-2, 1e-2},
    {"dot_f16_2x4x16", DOTK("tl.dot(a, b)"), "-D M=2 -D N=4 -D K=16", SDOT_SMALL_MN, {0, 0}, 0, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    /* tl.dot below one mma tile: on the GPU mma.sync through shared memory, as Triton (an fp8 one on fp16) */
    {"dot_fp8_1x2x32", DOTK("tl.dot(a, b)"), "-D M=1 -D N=2 -D K=32 --num-warps 1", SDOT_TINY, {0, 0}, 0, 0,
     {IN(TL_F8E5M2, D0 | D2, -4, 4), IN(TL_F8E5M2, D1 | D2, -4, 4)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-5, 1e-5},
    {"dot_bf16_8x4x64_acc", DOTK("tl.dot(a, b, tl.full((M, N), 0.5, tl.float32))"), "-D M=8 -D N=4 -D K=64 --num-warps 2",
     SDOT_8x4, {0, 0}, 0, 0, {IN(TL_BF16, D0 | D2, -1, 1), IN(TL_BF16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)},
     r_dot_half, NULL, 1e-4, 1e-4},
    {"dot_f16_8x4x64_acc_f16", DOTK("tl.dot(a, b, tl.full((M, N), 0.5, tl.float16))"), "-D M=8 -D N=4 -D K=64",
     SDOT_8x4, {0, 0}, 0, 0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)},
     r_dot_half, NULL, 2e-2, 1e-2},
    {"dot_f16_1x16x32", DOTK("tl.dot(a, b)"), "-D M=1 -D N=16 -D K=32", SDOT_ONE_ROW, {0, 0}, 0, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    {"dot_f32_ieee", DOTK("tl.dot(a, b, allow_tf32=False)"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0, 0,
     {IN(TL_F32, D0 | D2, -1, 1), IN(TL_F32, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    /* default precision is tf32: compared with tf32-rounded inputs */
    {"dot_f32_tf32", DOTK("tl.dot(a, b)"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0, 0,
     {IN(TL_F32, D0 | D2, -1, 1), IN(TL_F32, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot_tf32, NULL, 1e-4, 1e-4},
    {"dot_f32_tf32x3", DOTK("tl.dot(a, b, input_precision='tf32x3')"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0,
     0, {IN(TL_F32, D0 | D2, -1, 1), IN(TL_F32, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    {"dot_f16_out_columns_128x128", k_matmul_cols, "-D BM=128 -D BN=128 -D BK=32", SMM_COLS, {128, 128}, 3, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D2 | D1, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL, 2e-3, 1e-3},
    {"dot_f16_k_loop_ragged", k_matmul, "-D BM=32 -D BN=32 -D BK=16", SMM, {32, 32}, 3, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    {"dot_f16_acc_f16_k_loop_ragged_w8", k_matmul_f16acc, "-D BM=64 -D BN=32 -D BK=32 --num-warps 8", SMM, {64, 32},
     3, 0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL, 2e-2, 1e-2},
    /* other layouts and pipelining of the same loop */
    {"dot_f16_k_loop_ragged_w8_s3", k_matmul, "-D BM=64 -D BN=32 -D BK=32 --num-warps 8 --num-stages 3", SMM,
     {64, 32}, 3, 0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL,
     1e-4, 1e-4},
    {"dot_f16_desc_ragged_k", k_dot_ragged_k, "-D BM=64 -D BN=64 -D BK=32 --num-stages 3", SMM_LD, {64, 64}, 3, 0,
     {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot_ld, NULL, 1e-3, 1e-3},
    {"dot_f16_desc_ragged_k_w8", k_dot_ragged_k, "-D BM=128 -D BN=64 -D BK=64 --num-warps 8 --num-stages 2", SMM_LD,
     {128, 64}, 3, 0, {IN(TL_F16, D0 | D2, -1, 1), IN(TL_F16, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot_ld, NULL,
     1e-3, 1e-3},
    {"dot_f32_k_loop_ragged_w1", k_matmul, "-D BM=16 -D BN=16 -D BK=16 --num-warps 1", SMM, {16, 16}, 3, 0,
     {IN(TL_F32, D0 | D2, -1, 1), IN(TL_F32, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot_tf32, NULL, 1e-4,
     1e-4},
    {"dot_mul_broadcast_sum_ragged", k_mulbcast, "-D BM=128 -D BN=32 -D BK=32", SMM, {128, 32}, 3, 0,
     {IN(TL_F32, D0 | D2, -1, 1), IN(TL_F32, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-4, 1e-4},
    /* fp64 inputs: an fp64 product whatever out_dtype says (Triton) */
    {"dot_f64_64x32x16", DOTK("tl.dot(a, b, out_dtype=tl.float32)"), "-D M=64 -D N=32 -D K=16", SDOT64, {0, 0}, 0, 0,
     {IN(TL_F64, D0 | D2, -1, 1), IN(TL_F64, D1 | D2, -1, 1)}, {OUT(TL_F64, D0 | D1)}, r_dot, NULL, 1e-13, 1e-13},
    {"dot_f64_k_loop_ragged", k_matmul_f64, "-D BM=32 -D BN=32 -D BK=16", SMM, {32, 32}, 3, 0,
     {IN(TL_F64, D0 | D2, -1, 1), IN(TL_F64, D1 | D2, -1, 1)}, {OUT(TL_F64, D0 | D1)}, r_dot, NULL, 1e-13, 1e-13},
    /* fp8: conversions against the brute-force nearest code, fp8 buffers,
     * and dots (mma.sync e4m3/e5m2 on sm_89+, else an FMA loop); the fp8
     * products are exact, the fp32 sums in any order */
    {"fp8_cast_wide", k_f8_cast, B128, S1D, G1D, 1, 0, {{TL_F32, D0, 0, -70000, 70000, 1}},
     {OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_F32, D0)}, r_f8_cast, NULL, EXACT},
    {"fp8_cast_small", k_f8_cast, B128, S1D, G1D, 1, 0, {{TL_F32, D0, 0, -2, 2, 1.0 / 65536}},
     {OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_F32, D0)}, r_f8_cast, NULL, EXACT},
    {"fp8_cast_tiny", k_f8_cast, B128, S1D, G1D, 1, 0, {{TL_F32, D0, 0, -0.01, 0.01, 1.0 / 16777216}},
     {OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_F32, D0)}, r_f8_cast, NULL, EXACT},
    {"fp8_cast_special", k_f8_special, B128, S1D, G1D, 1, 0, {F1D(-1, 1)},
     {OUT(TL_U8, D0), OUT(TL_U8, D0), OUT(TL_U8, D0)}, r_f8_special, NULL, EXACT},
    {"fp8_load_store", k_f8_mem, B128, S1D, G1D, 1, 0, {IN(TL_F8E4M3, D0, -400, 400), IN(TL_F8E5M2, D0, -3, 3)},
     {OUT(TL_F32, D0), OUT(TL_F8E4M3, D0), OUT(TL_U8, D0)}, r_f8_mem, NULL, EXACT},
    {"fp8e4b15_load_store", k_f8_e4b15_mem, B128, S1D, G1D, 1, 0, {IN(TL_F8E4B15, D0, -1.8, 1.8)},
     {OUT(TL_F32, D0), OUT(TL_F8E4B15, D0)}, r_f8_e4b15_mem, NULL, EXACT},
    {"dot_fp8_e4nv_e5", DOTK("tl.dot(a, b)"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0, 0,
     {IN(TL_F8E4M3, D0 | D2, -4, 4), IN(TL_F8E5M2, D1 | D2, -4, 4)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-5,
     1e-5},
    {"dot_fp8_k_loop_ragged", k_matmul, "-D BM=32 -D BN=32 -D BK=32", SMM, {32, 32}, 3, 0,
     {IN(TL_F8E4M3, D0 | D2, -8, 8), IN(TL_F8E4M3, D1 | D2, -8, 8)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-5,
     1e-5},
    {"dot_fp8_k_loop_imprecise", k_matmul_imprecise, "-D BM=64 -D BN=64 -D BK=64 --num-warps 8", SMM, {64, 64}, 3, 0,
     {IN(TL_F8E5M2, D0 | D2, -8, 8), IN(TL_F8E5M2, D1 | D2, -8, 8)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-5,
     1e-5},
    /* out_dtype=tl.float16: fp16 accumulation (the operands converted to
     * fp16 for mma.sync m16n8k16 .f16 where fp8 mma is not native) */
    {"dot_fp8_acc_f16", DOTK("tl.dot(a, b, out_dtype=tl.float16)"), "-D M=64 -D N=32 -D K=32", SDOT32_64, {0, 0}, 0,
     0, {IN(TL_F8E5M2, D0 | D2, -1, 1), IN(TL_F8E4M3, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL, 2e-2,
     1e-2},
    {"dot_fp8_acc_f16_k_loop_ragged_w8", k_matmul_f16acc, "-D BM=64 -D BN=32 -D BK=32 --num-warps 8", SMM, {64, 32},
     3, 0, {IN(TL_F8E5M2, D0 | D2, -1, 1), IN(TL_F8E5M2, D1 | D2, -1, 1)}, {OUT(TL_F16, D0 | D1)}, r_dot, NULL, 2e-2,
     1e-2},
    /* outside a loop, 4 warps: wgmma k32 on sm_90a (e5m2, and e4m3 x e5m2) */
    /* Hopper's fp8 wgmma adds its products with fewer bits than fp32 (Triton's
     * max_num_imprecise_acc, 2^30 by default: every step imprecise): the error
     * follows the running sum, not the result (H200: 4e-3 where terms reach
     * 16 and sums cancel), so these take inputs in [-1, 1] and Triton's own
     * fp8 tolerance (test_dot: rtol 1e-2, atol 1e-3). */
    {"dot_fp8_wgmma_128x128x64", DOTK("tl.dot(a, b)"), "-D M=128 -D N=128 -D K=64", SDOT_WG, {0, 0}, 0, 0,
     {IN(TL_F8E5M2, D0 | D2, -1, 1), IN(TL_F8E5M2, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-3, 1e-2},
    {"dot_fp8_wgmma_mixed_64x64x128", DOTK("tl.dot(a, b)"), "-D M=64 -D N=64 -D K=128", SDOT_WG_MIX, {0, 0}, 0, 0,
     {IN(TL_F8E4M3, D0 | D2, -1, 1), IN(TL_F8E5M2, D1 | D2, -1, 1)}, {OUT(TL_F32, D0 | D1)}, r_dot, NULL, 1e-3, 1e-2},
    /* q, k, v of +-1: s = q @ k.T exact, |o| <= 64 L; fp8 wgmma's narrower sums: the tolerance */
    {"attn_fp8_two_dots", k_attn_fp8, "-D BM=128 -D BN=64 -D D=64 --num-stages 2", SATTN8, {128, 0}, 2, 0,
     {{TL_F8E5M2, D0 | D2, 0, -1, 1, 1}, {TL_F8E5M2, D1 | D2, 0, -1, 1, 1}, {TL_F8E5M2, D1 | D2, 0, -1, 1, 1}},
     {OUT(TL_F32, D0 | D2)}, r_attn_fp8, NULL, 2, 1e-2},
    {"attn_fp8_two_dots_w8", k_attn_fp8, "-D BM=128 -D BN=64 -D D=64 --num-warps 8 --num-stages 3", SATTN8, {128, 0},
     2, 0, {{TL_F8E5M2, D0 | D2, 0, -1, 1, 1}, {TL_F8E5M2, D1 | D2, 0, -1, 1, 1}, {TL_F8E5M2, D1 | D2, 0, -1, 1, 1}},
     {OUT(TL_F32, D0 | D2)}, r_attn_fp8, NULL, 2, 1e-2},
    {"dot_fp8_e4b15", DOTK("tl.dot(a.to(tl.float8e4b15), b.to(tl.float8e4b15))"), "-D M=32 -D N=32 -D K=32", SDOT32,
     {0, 0}, 0, 0, {IN(TL_F32, D0 | D2, -1.8, 1.8), IN(TL_F32, D1 | D2, -1.8, 1.8)}, {OUT(TL_F32, D0 | D1)},
     r_dot_e4b15, NULL, 1e-5, 1e-5},
    /* tl.dot_scaled: microscaled operands upcast to bf16 / fp16 (ops_scaled.h) */
    SCALED_CASES
    /* int8 inputs accumulate exactly in int32 */
    {"dot_i8", DOTK("tl.dot(a, b)"), "-D M=32 -D N=32 -D K=32", SDOT32, {0, 0}, 0, 0,
     {IN(TL_I8, D0 | D2, -100, 100), IN(TL_I8, D1 | D2, -100, 100)}, {OUT(TL_I32, D0 | D1)}, r_dot, NULL, EXACT},

    /* control flow */
    {"for_loop_carried", k_for, B128, SLOOP, G1D, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_for, NULL, EXACT},
    {"row_block_sum", k_rowsum, "-D BM=32 -D BN=128", SROWSUM, {0, 128}, 2, 0, {IN(TL_F16, D0 | D1, -1, 1)},
     {OUT(TL_F32, D1)}, r_rowsum, NULL, 1e-4, 1e-5},
    {"rope_small_rows", k_rope, "-D BQ=8 -D BK=2 -D H=32", SROPE, {1, 0}, 2, 0,
     {{TL_F32, D0 | D1, 16, -1, 1, 0}, {TL_F32, D0 | D1, 4, -1, 1, 0}, IN(TL_F32, D0 | D1, -1, 1),
      IN(TL_F32, D0 | D1, -1, 1)},
     {{TL_F32, D0 | D1, 16, SENT, SENT, 0}, {TL_F32, D0 | D1, 4, SENT, SENT, 0}}, r_rope, NULL, 1e-5, 1e-5},
    {"bf16_tiles_v4", k_bf16v4, "-D BM=8 -D BN=64", SBF16V4, {8, 0}, 2, 0, {IN(TL_BF16, D0 | D1, -4, 4)},
     {OUT(TL_BF16, D0 | D1), OUT(TL_BF16, D0 | D1)}, r_bf16v4, NULL, EXACT},
    {"layer_norm_capped", k_lnorm, "-D BLOCK=128 --num-warps 8 --maxnreg 32", SLNORM, {1, 0}, 2, 0,
     {IN(TL_F32, D0 | D1, -2, 2), IN(TL_F32, D1, -1, 1), IN(TL_F32, D1, -1, 1)},
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_lnorm, NULL, 1e-4, 1e-5},
    {"peel_row_chunks", k_peel, "-D BLOCK=64", SPEEL, {1, 0}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0)}, r_peel, NULL, 1e-4, 1e-5},
    {"while_loop", k_while, B128, SLOOP, G1D, 2, 0, {F1D(-1, 1), I1D(-100, 100)}, {OUT(TL_F32, D0), OUT(TL_I32, D0)},
     r_while, NULL, EXACT},
    {"if_runtime_scalar", k_if, B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_if, NULL,
     EXACT},
    {"static_range", k_static_range, B128, S1D, G1D, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0)}, r_static_range, NULL,
     EXACT},
    {"jit_helper_kwargs_defaults", k_helper, B128 " --kernel k", S1D, G1D, 1, 0, {F1D(-1, 1)},
     {OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_helper, NULL, APPROX},
    {"early_return", k_early_return, B128, S1D, {32, 0}, 1, 0, {F1D(-1, 1)}, {OUT(TL_F32, D0), OUT(TL_I32, D0)},
     r_early_return, NULL, EXACT},
    {"early_return_nested", k_early_nested, B128, S1D, {32, 0}, 1, 0, {F1D(-1, 1)},
     {OUT(TL_F32, D0), OUT(TL_I32, D0)}, r_early_nested, NULL, EXACT},
    {"early_return_helper_values", k_early_helper, B128 " --kernel k", S1D, G1D, 1, 0, {F1D(-1, 1)},
     {OUT(TL_F32, D0)}, r_early_helper, NULL, EXACT},
};

/* ----------------------------------------------------------------- harness */

static int failures;

static void fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *name, const char *fmt, ...) {
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* the first line on the [FAIL] line, the rest (diagnostics) indented */
    char *nl = strchr(msg, '\n');
    if (nl)
        *nl = 0;
    printf("[FAIL] ops/%s: %s\n", name, msg);
    for (char *p = nl ? nl + 1 : NULL; p && *p;) {
        char *e = strchr(p, '\n');
        if (e)
            *e = 0;
        printf("    %s\n", p);
        p = e ? e + 1 : NULL;
    }
    fflush(stdout);
    failures++;
}

static int is_int(TlDType dt) {
    return dt != TL_F16 && dt != TL_BF16 && dt != TL_F32 && dt != TL_F64 && dt != TL_F8E4M3 && dt != TL_F8E5M2 &&
           dt != TL_F8E4B15;
}

/* bf16: the top half of an fp32, rounded to nearest even (NaN kept quiet) */
static uint16_t bf16_bits(double v) {
    float f = (float)v;
    uint32_t u;
    memcpy(&u, &f, 4);
    if (isnan(f))
        return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);
}
static double bf16_value(uint16_t b) {
    uint32_t u = (uint32_t)b << 16;
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double get(TlDType dt, const void *p, size_t i) {
    switch (dt) {
    case TL_I1: case TL_U8: return ((const uint8_t *)p)[i];
    case TL_I8: return ((const int8_t *)p)[i];
    case TL_I16: return ((const int16_t *)p)[i];
    case TL_U16: return ((const uint16_t *)p)[i];
    case TL_I32: return ((const int32_t *)p)[i];
    case TL_U32: return ((const uint32_t *)p)[i];
    case TL_I64: return (double)((const int64_t *)p)[i];
    case TL_U64: return (double)((const uint64_t *)p)[i];
    case TL_F16: return ex_h2f(((const uint16_t *)p)[i]);
    case TL_F32: return ((const float *)p)[i];
    case TL_F64: return ((const double *)p)[i];
    case TL_F8E4M3: return f8_decode(E4NV, ((const uint8_t *)p)[i]);
    case TL_F8E5M2: return f8_decode(E5, ((const uint8_t *)p)[i]);
    case TL_F8E4B15: return f8_decode(E4B15, ((const uint8_t *)p)[i]);
    case TL_BF16: return bf16_value(((const uint16_t *)p)[i]);
    default: return NAN;
    }
}

static void put(TlDType dt, void *p, size_t i, double v) {
    switch (dt) {
    case TL_I1: ((uint8_t *)p)[i] = v != 0; break;
    case TL_U8: ((uint8_t *)p)[i] = (uint8_t)v; break;
    case TL_I8: ((int8_t *)p)[i] = (int8_t)v; break;
    case TL_I16: ((int16_t *)p)[i] = (int16_t)v; break;
    case TL_U16: ((uint16_t *)p)[i] = (uint16_t)v; break;
    case TL_I32: ((int32_t *)p)[i] = (int32_t)v; break;
    case TL_U32: ((uint32_t *)p)[i] = (uint32_t)v; break;
    case TL_I64: ((int64_t *)p)[i] = (int64_t)v; break;
    case TL_U64: ((uint64_t *)p)[i] = (uint64_t)v; break;
    case TL_F16: ((uint16_t *)p)[i] = ex_f2h((float)v); break;
    case TL_F32: ((float *)p)[i] = (float)v; break;
    case TL_F64: ((double *)p)[i] = v; break;
    case TL_F8E4M3: ((uint8_t *)p)[i] = (uint8_t)f8_nearest(E4NV, v); break;
    case TL_F8E5M2: ((uint8_t *)p)[i] = (uint8_t)f8_nearest(E5, v); break;
    case TL_F8E4B15: ((uint8_t *)p)[i] = (uint8_t)f8_nearest(E4B15, v); break;
    case TL_BF16: ((uint16_t *)p)[i] = bf16_bits(v); break;
    default: break;
    }
}

static size_t count(const Buf *b, const long *d) {
    size_t n = b->c ? (size_t)b->c : 1;
    for (int k = 0; k < 3; k++)
        if (b->dims & (1u << k))
            n *= (size_t)d[k];
    return n;
}

static double draw(const Buf *b) {
    for (;;) {
        double u = (ex_uniform() + 1) / 2, v; /* [0, 1) */
        if (is_int(b->dt))
            v = floor(b->lo + u * (b->hi - b->lo + 1));
        else if (b->q > 0)
            v = round((b->lo + u * (b->hi - b->lo)) / b->q) * b->q;
        else
            v = b->lo + u * (b->hi - b->lo);
        if (v != 0 && v >= b->lo && v <= b->hi)
            return v;
    }
}

/* Edge values of dtype dt, the k-th (cycling): NaN, infinities, signed
 * zeros, denormals, range ends, ties, the ends of the integer types for
 * conversions (each as the dtype stores it; fp32 turns the fp64-only ones
 * into inf, 0 or a neighbour). */
static double edge(TlDType dt, size_t k) {
    static const double fl[] = {
        NAN, INFINITY, -INFINITY, 0.0, -0.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.5, -1.0, 0x1p-149, -1e-40, 0x1p-126,
        5e-324, -1e-310, 0x1p-1022, FLT_MAX, -FLT_MAX, DBL_MAX, 2147483647.5, 2147483648.0, -2147483648.0,
        -2147483649.0, 4294967295.0, 4294967296.0, 4294967295.5, 3e9, -3e9, 9.3e18, 0x1p63, -0x1p63, 0x1p64,
        2e19, -1e19, 1e30, 16777217.0, 0.49999999999999994, -0.4, 1.0 / 3, 1e-300};
    static const double i32[] = {INT32_MIN, INT32_MAX, 0, -1, 1, 16777217, -16777217, 16777219, 2147483520,
                                 2147483583, -2147483583, 33554435};
    static const double u32[] = {0, 1, 4294967295.0, 2147483648.0, 16777217, 4294967040.0, 4294967167.0, 33554435};
    switch (dt) {
    case TL_F32: case TL_F64: return fl[k % (sizeof fl / sizeof fl[0])];
    case TL_I32: return i32[k % (sizeof i32 / sizeof i32[0])];
    case TL_U32: return u32[k % (sizeof u32 / sizeof u32[0])];
    default: return 1;
    }
}

typedef struct Data {
    TlBuffer *buf[2 * MAXIO];
    void *host[2 * MAXIO];
    double *val[2 * MAXIO], *want[MAXIO];
    size_t n[2 * MAXIO], total[2 * MAXIO]; /* elements the case uses; with the guard */
} Data;

static void data_free(Data *x) {
    for (int k = 0; k < 2 * MAXIO; k++) {
        tl_buffer_destroy(x->buf[k]);
        free(x->host[k]);
        free(x->val[k]);
    }
    for (int k = 0; k < MAXIO; k++)
        free(x->want[k]);
}

/* One run of a compiled case at sizes d; returns 1 if it passed (else has
 * reported the failure). */
static int run_once(TlContext *ctx, TlKernel *kern, const Case *c, const long *d) {
    char where[64];
    snprintf(where, sizeof where, "%ldx%ldx%ld", d[0], d[1], d[2]);
    Data x = {0};
    TlArg args[2 * MAXIO + 4];
    int nargs = 0, ok = 1;
    /* buffers 0..MAXIO-1 are the inputs, MAXIO.. the outputs */
    for (int k = 0; k < 2 * MAXIO; k++) {
        const Buf *b = k < MAXIO ? &c->in[k] : &c->out[k - MAXIO];
        if (!b->dt)
            continue;
        size_t n = x.n[k] = count(b, d), sz = tl_dtype_size(b->dt);
        size_t total = x.total[k] = n + (k < MAXIO ? 0 : GUARD);
        x.host[k] = calloc(total, sz);
        x.val[k] = calloc(total, sizeof(double));
        for (size_t i = 0; i < total; i++) {
            double v = k >= MAXIO ? b->lo : b->q == EDGES && i % 3 == 0 ? edge(b->dt, i / 3 + 5 * k) : draw(b);
            put(b->dt, x.host[k], i, v);
            x.val[k][i] = get(b->dt, x.host[k], i); /* the values as stored */
        }
        TlStatus s = tl_buffer_create(ctx, b->dt, total, &x.buf[k]);
        if (s == TL_SUCCESS)
            s = tl_buffer_write(x.buf[k], 0, x.host[k], total * sz);
        if (s != TL_SUCCESS) {
            fail(c->name, "%s: buffer: %s: %s", where, tl_status_name(s), tl_last_error(ctx));
            data_free(&x);
            return 0;
        }
        args[nargs++] = tl_arg_buffer(x.buf[k]);
    }
    for (int k = 0; k < c->nscal; k++)
        args[nargs++] = tl_arg_i32((int32_t)d[k]);
    if (c->alpha)
        args[nargs++] = tl_arg_f32(ALPHA);

    unsigned grid[3] = {c->g[0] ? ex_cdiv((size_t)d[0], c->g[0]) : 1, c->g[1] ? ex_cdiv((size_t)d[1], c->g[1]) : 1, 1};
    TlStatus s = tl_launch(kern, grid, args, nargs);
    if (s != TL_SUCCESS) {
        fail(c->name, "%s: launch: %s: %s", where, tl_status_name(s), tl_last_error(ctx));
        data_free(&x);
        return 0;
    }
    double *got[MAXIO] = {0};
    for (int k = 0; k < MAXIO; k++) {
        const Buf *b = &c->out[k];
        if (!b->dt)
            continue;
        size_t total = x.total[MAXIO + k];
        tl_buffer_read(x.buf[MAXIO + k], 0, x.host[MAXIO + k], total * tl_dtype_size(b->dt));
        got[k] = x.val[MAXIO + k];
        for (size_t i = 0; i < total; i++)
            got[k][i] = get(b->dt, x.host[MAXIO + k], i);
    }

    /* expected: the initial contents (also in the guard), then whatever the
     * reference writes */
    for (int k = 0; k < MAXIO; k++) {
        const Buf *b = &c->out[k];
        if (!b->dt)
            continue;
        x.want[k] = malloc(x.total[MAXIO + k] * sizeof(double));
        unsigned char init[8];
        put(b->dt, init, 0, b->lo);
        for (size_t i = 0; i < x.total[MAXIO + k]; i++)
            x.want[k][i] = get(b->dt, init, 0); /* as the buffer holds it */
    }
    if (c->check) {
        char msg[512] = "";
        ok = c->check(d, x.val, got, msg, sizeof msg);
        if (!ok)
            fail(c->name, "%s: %s", where, msg);
    } else {
        c->ref(d, x.val, x.want);
    }

    for (int k = 0; k < MAXIO && ok; k++) {
        const Buf *b = &c->out[k];
        if (!b->dt)
            continue;
        /* a check function has judged the elements in use: only the guard is left */
        size_t n = x.n[MAXIO + k], bad = 0, first = 0;
        double first_tol = 0;
        for (size_t i = c->check ? n : 0; i < x.total[MAXIO + k]; i++) {
            double w = x.want[k][i], t = is_int(b->dt) ? 0 : c->atol + c->rtol * fabs(w);
            /* (the second test lets infinities match, the third a NaN where one is due) */
            if (!(fabs(got[k][i] - w) <= t) && !(isinf(w) && got[k][i] == w) && !(isnan(w) && isnan(got[k][i])) &&
                !bad++)
                first = i, first_tol = t;
        }
        if (bad) {
            fail(c->name, "%s: out%d[%zu]%s = %.9g, want %.9g (tol %.3g); %zu of %zu wrong", where, k, first,
                 first >= n ? " (past the end)" : "", got[k][first], x.want[k][first], first_tol, bad, n);
            ok = 0;
        }
    }
    data_free(&x);
    return ok;
}

static uint64_t hash(const char *s) {
    uint64_t h = 1469598103934665603ull;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return h ? h : 1;
}

static void run_case(TlContext *ctx, const Case *c) {
    TlKernel *kern;
    TlStatus s = tl_kernel_from_string(ctx, c->src, c->opts, &kern);
    if (s != TL_SUCCESS && strstr(tl_last_error(ctx), "needs NVIDIA's libdevice.10.bc")) {
        printf("[SKIP] ops/%s: no libdevice.10.bc here (set TL_LIBDEVICE)\n", c->name);
        return;
    }
    if (s != TL_SUCCESS) {
        fail(c->name, "compile: %s: %s", tl_status_name(s), tl_last_error(ctx));
        return;
    }
    if (tl_context_device(ctx) == TL_DEVICE_CPU && strstr(c->src, "inline_asm_elementwise")) {
        /* inline PTX runs only on a GPU: the interpreter refuses it at launch */
        TlBuffer *b[4] = {0};
        TlArg args[5];
        for (int k = 0; k < 4; k++) {
            tl_buffer_create(ctx, TL_I32, 1024, &b[k]);
            args[k] = tl_arg_buffer(b[k]);
        }
        args[4] = tl_arg_i32(100);
        unsigned grid[3] = {1, 1, 1};
        s = tl_launch(kern, grid, args, 5);
        if (s == TL_SUCCESS || !strstr(tl_last_error(ctx), "which the interpreter cannot run"))
            fail(c->name, "the interpreter should refuse inline asm, got %s: %s", tl_status_name(s),
                 tl_last_error(ctx));
        else
            printf("[PASS] ops/%s (refused by the interpreter)\n", c->name);
        for (int k = 0; k < 4; k++)
            tl_buffer_destroy(b[k]);
        tl_kernel_destroy(kern);
        return;
    }
    ex_rng = hash(c->name); /* each case's data does not depend on the others */
    int ok = 1;
    for (const Dims *z = c->sizes; ok && z->d[0]; z++) {
        long d[3];
        for (int k = 0; k < 3; k++)
            d[k] = z->d[k] ? z->d[k] : 1;
        ok = run_once(ctx, kern, c, d);
    }
    if (ok) {
        printf("[PASS] ops/%s\n", c->name);
        fflush(stdout);
    }
    tl_kernel_destroy(kern);
}

/* device_print through tl_context_set_print. The GPU's printf goes to the
 * process's stdout from the driver and cannot be captured: there only the
 * launch is checked. */
typedef struct Text {
    char data[4096];
    size_t len;
} Text;

static void collect(void *user, const char *text, size_t len) {
    Text *t = user;
    if (len > sizeof t->data - 1 - t->len)
        len = sizeof t->data - 1 - t->len;
    memcpy(t->data + t->len, text, len);
    t->len += len;
    t->data[t->len] = 0;
}

static void device_print_case(TlContext *ctx) {
    static const char src[] =
        PRE "def k(x_ptr, n, BLOCK: tl.constexpr):\n"
        "    offs = tl.arange(0, BLOCK)\n"
        "    x = tl.load(x_ptr + offs, mask=offs < n, other=0)\n"
        "    tl.device_print(\"val\", x)\n";
    const char *name = "device_print";
    TlKernel *kern;
    TlStatus s = tl_kernel_from_string(ctx, src, "-D BLOCK=4", &kern);
    if (s != TL_SUCCESS) {
        fail(name, "compile: %s: %s", tl_status_name(s), tl_last_error(ctx));
        return;
    }
    int32_t host[4] = {11, 22, 33, 44};
    TlBuffer *b;
    tl_buffer_create(ctx, TL_I32, 4, &b);
    tl_buffer_write(b, 0, host, sizeof host);
    Text text = {.len = 0};
    tl_context_set_print(ctx, collect, &text);
    TlArg args[] = {tl_arg_buffer(b), tl_arg_i32(4)};
    unsigned grid[3] = {1, 1, 1};
    s = tl_launch(kern, grid, args, 2);
    if (s == TL_SUCCESS)
        s = tl_context_synchronize(ctx);
    tl_context_set_print(ctx, NULL, NULL);
    if (s != TL_SUCCESS)
        fail(name, "launch: %s: %s", tl_status_name(s), tl_last_error(ctx));
    else if (tl_context_device(ctx) == TL_DEVICE_CPU &&
             !(strstr(text.data, "pid (0, 0, 0) idx (2) val: 33") && strstr(text.data, "val: 44")))
        fail(name, "printed text lacks \"pid (0, 0, 0) idx (2) val: 33\": \"%s\"", text.data);
    else
        printf("[PASS] ops/%s\n", name);
    tl_buffer_destroy(b);
    tl_kernel_destroy(kern);
}

int main(int argc, char **argv) {
    TlContext *ctx;
    TlStatus s = tl_context_create(TL_DEVICE_AUTO, &ctx);
    if (s != TL_SUCCESS) {
        printf("ops_test: no context: %s (%s)\n", tl_status_name(s), tl_last_error(NULL));
        return 2;
    }
    printf("device: %s\n", tl_context_device_name(ctx));
    on_gpu = tl_context_device(ctx) == TL_DEVICE_CUDA;
    /* an optional argument runs only the cases whose name contains it */
    const char *only = argc > 1 ? argv[1] : "";
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strstr(cases[i].name, only))
            run_case(ctx, &cases[i]);
    if (strstr("device_print", only))
        device_print_case(ctx);
    tl_context_destroy(ctx);
    return failures ? 1 : 0;
}
