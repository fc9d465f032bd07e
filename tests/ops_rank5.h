/* ops_rank5.h: the numeric cases of rank-5 and rank-9 blocks and of batched (3-D)
 * tl.dot, included by ops_test.c, whose table takes RANK5_CASES. The
 * references walk the arrays element by element in C.
 *
 * Rank 5: an array of shape [A, 3, C, 5, E] (A, C, E = d0, d1, d2 at run time)
 * in one program whose [4, 4, 8, 8, 8] block covers it, cut by a mask along
 * every dim (3 and 5 against blocks of 4 and 8: always ragged). */

/* ------------------------------------------------------------ rank 5 */

#define R5_OPTS "-D BA=4 -D BB=4 -D BC=8 -D BD=8 -D BE=8"
/* A, C, E: one element, each dim ragged, each dim full */
static const Dims S5D[] = {{{1, 1, 1}}, {{3, 5, 7}}, {{4, 8, 8}}, {{2, 7, 3}}, {{0}}};

/* the block's index arrays, its offsets into [A, 3, C, 5, E] and the mask */
#define R5_IDX \
    "    a = tl.arange(0, BA)[:, None, None, None, None]\n" \
    "    b = tl.arange(0, BB)[None, :, None, None, None]\n" \
    "    c = tl.expand_dims(tl.expand_dims(tl.expand_dims(tl.expand_dims(tl.arange(0, BC), 0), 0), 3), 4)\n" \
    "    d = tl.arange(0, BD)[None, None, None, :, None]\n" \
    "    e = tl.arange(0, BE)[None, None, None, None, :]\n" \
    "    tl.static_assert(c.shape == (1, 1, BC, 1, 1))\n" \
    "    off = (((a * 3 + b) * C + c) * 5 + d) * E + e\n" \
    "    mask = (a < A) & (b < 3) & (c < C) & (d < 5) & (e < E)\n" \
    "    x = tl.load(x_ptr + off, mask=mask, other=0.0)\n" \
    "    tl.static_assert(x.shape == (BA, BB, BC, BD, BE))\n"

static long r5_at(const long *d, long a, long b, long c, long dd, long e) {
    return (((a * 3 + b) * d[1] + c) * 5 + dd) * d[2] + e;
}

/* y = 2x + w[b][d] (a broadcast [1, 4, 1, 8, 1] block); the sums over
 * axis 0 (to [3, C, 5, E]), axis 2 (keep_dims: [A, 3, 1, 5, E]) and axis 4
 * (to [A, 3, C, 5]) */
static void r_r5_sums_a(const long *d, double *const *in, double *const *want) {
    long A = d[0], C = d[1], E = d[2];
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++)
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++) {
                        double v = in[0][r5_at(d, a, b, c, dd, e)];
                        want[0][r5_at(d, a, b, c, dd, e)] = 2 * v + in[1][b * 5 + dd];
                    }
    for (long i = 0; i < 3 * C * 5 * E; i++)
        want[1][i] = 0;
    for (long i = 0; i < A * 3 * 5 * E; i++)
        want[2][i] = 0;
    for (long i = 0; i < A * 3 * C * 5; i++)
        want[3][i] = 0;
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++)
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++) {
                        double v = in[0][r5_at(d, a, b, c, dd, e)];
                        want[1][((b * C + c) * 5 + dd) * E + e] += v;
                        want[2][((a * 3 + b) * 5 + dd) * E + e] += v;
                        want[3][((a * 3 + b) * C + c) * 5 + dd] += v;
                    }
}
static const char k_r5_sums_a[] =
    PRE "def k(x_ptr, w_ptr, y_ptr, s0_ptr, s2_ptr, s4_ptr, A, C, E, BA: tl.constexpr, BB: tl.constexpr,\n"
    "      BC: tl.constexpr, BD: tl.constexpr, BE: tl.constexpr):\n" R5_IDX
    "    w = tl.load(w_ptr + b * 5 + d, mask=(b < 3) & (d < 5), other=0.0)\n"
    "    wb = tl.broadcast_to(w, (BA, BB, BC, BD, BE))\n"
    "    tl.store(y_ptr + off, x * 2 + wb, mask=mask)\n"
    /* axis 0 away: the offsets and mask without a, reshaped to rank 4 */
    "    s0 = tl.sum(x, axis=0)\n"
    "    tl.static_assert(s0.shape == (BB, BC, BD, BE))\n"
    "    o0 = ((b * C + c) * 5 + d) * E + e\n"
    "    m0 = (b < 3) & (c < C) & (d < 5) & (e < E)\n"
    "    tl.store(s0_ptr + tl.reshape(o0, (BB, BC, BD, BE)), s0, mask=tl.reshape(m0, (BB, BC, BD, BE)))\n"
    "    s2 = tl.sum(x, axis=2, keep_dims=True)\n"
    "    tl.static_assert(s2.shape == (BA, BB, 1, BD, BE))\n"
    "    tl.store(s2_ptr + ((a * 3 + b) * 5 + d) * E + e, s2, mask=(a < A) & (b < 3) & (d < 5) & (e < E))\n"
    "    s4 = x.sum(4)\n"
    "    o4 = tl.reshape(((a * 3 + b) * C + c) * 5 + d, (BA, BB, BC, BD))\n"
    "    m4 = tl.reshape((a < A) & (b < 3) & (c < C) & (d < 5), (BA, BB, BC, BD))\n"
    "    tl.store(s4_ptr + o4, s4, mask=m4)\n";

/* the sums over axis 1 (keep_dims: [A, 1, C, 5, E]) and axis 3 (to
 * [A, 3, C, E]), the max over axis 3 (masked lanes at -inf), the sum of all */
static void r_r5_sums_b(const long *d, double *const *in, double *const *want) {
    long A = d[0], C = d[1], E = d[2];
    for (long i = 0; i < A * C * 5 * E; i++)
        want[0][i] = 0;
    for (long i = 0; i < A * 3 * C * E; i++)
        want[1][i] = 0, want[2][i] = -INFINITY;
    want[3][0] = 0;
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++)
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++) {
                        double v = in[0][r5_at(d, a, b, c, dd, e)];
                        long i3 = ((a * 3 + b) * C + c) * E + e;
                        want[0][((a * C + c) * 5 + dd) * E + e] += v;
                        want[1][i3] += v;
                        want[2][i3] = fmax(want[2][i3], v);
                        want[3][0] += v;
                    }
}
static const char k_r5_sums_b[] =
    PRE "def k(x_ptr, s1_ptr, s3_ptr, m3_ptr, t_ptr, A, C, E, BA: tl.constexpr, BB: tl.constexpr,\n"
    "      BC: tl.constexpr, BD: tl.constexpr, BE: tl.constexpr):\n" R5_IDX
    "    s1 = tl.sum(x, axis=1, keep_dims=True)\n"
    "    tl.store(s1_ptr + ((a * C + c) * 5 + d) * E + e, s1, mask=(a < A) & (c < C) & (d < 5) & (e < E))\n"
    "    o3 = tl.reshape(((a * 3 + b) * C + c) * E + e, (BA, BB, BC, BE))\n"
    "    m3 = tl.reshape((a < A) & (b < 3) & (c < C) & (e < E), (BA, BB, BC, BE))\n"
    "    tl.store(s3_ptr + o3, tl.sum(x, axis=3), mask=m3)\n"
    "    tl.store(m3_ptr + o3, tl.max(tl.where(mask, x, float('-inf')), axis=3), mask=m3)\n"
    "    tl.store(t_ptr, tl.sum(x))\n";

/* permute to [E, C, A, 5, 3] (values, offsets and mask permuted alike) and
 * trans to [3, A, C, E, 5] */
static void r_r5_permute(const long *d, double *const *in, double *const *want) {
    long A = d[0], C = d[1], E = d[2];
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++)
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++) {
                        double v = in[0][r5_at(d, a, b, c, dd, e)];
                        want[0][(((e * C + c) * A + a) * 5 + dd) * 3 + b] = v;
                        want[1][(((b * A + a) * C + c) * E + e) * 5 + dd] = -v;
                    }
}
static const char k_r5_permute[] =
    PRE "def k(x_ptr, p_ptr, t_ptr, A, C, E, BA: tl.constexpr, BB: tl.constexpr,\n"
    "      BC: tl.constexpr, BD: tl.constexpr, BE: tl.constexpr):\n" R5_IDX
    "    p = tl.permute(x, (4, 2, 0, 3, 1))\n"
    "    tl.static_assert(p.shape == (BE, BC, BA, BD, BB))\n"
    "    po = tl.permute((((e * C + c) * A + a) * 5 + d) * 3 + b, (4, 2, 0, 3, 1))\n"
    "    tl.store(p_ptr + po, p, mask=tl.permute(mask, 4, 2, 0, 3, 1))\n"
    "    t = tl.trans(-x, (1, 0, 2, 4, 3))\n"
    "    tl.static_assert(t.shape == (BB, BA, BC, BE, BD))\n"
    "    to = (((b * A + a) * C + c) * E + e) * 5 + d\n"
    "    tl.store(t_ptr + to.trans(1, 0, 2, 4, 3), t, mask=mask.trans((1, 0, 2, 4, 3)))\n";

/* 5-D -> 2-D [BA*BB*BC, BD*BE] (rows: (a, b, c); columns: (d, e) of the
 * block), 2x plus the row's sum, back to 5-D; and x minus its sum over axis
 * 2, expanded back to rank 5 and broadcast along that axis */
static void r_r5_reshape(const long *d, double *const *in, double *const *want) {
    long A = d[0], C = d[1], E = d[2];
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++) {
                double row = 0;
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++)
                        row += in[0][r5_at(d, a, b, c, dd, e)];
                for (long dd = 0; dd < 5; dd++)
                    for (long e = 0; e < E; e++) {
                        double col = 0;
                        for (long cc = 0; cc < C; cc++)
                            col += in[0][r5_at(d, a, b, cc, dd, e)];
                        double v = in[0][r5_at(d, a, b, c, dd, e)];
                        want[0][r5_at(d, a, b, c, dd, e)] = 2 * v + row;
                        want[1][r5_at(d, a, b, c, dd, e)] = v - col;
                    }
            }
}
static const char k_r5_reshape[] =
    PRE "def k(x_ptr, y_ptr, z_ptr, A, C, E, BA: tl.constexpr, BB: tl.constexpr,\n"
    "      BC: tl.constexpr, BD: tl.constexpr, BE: tl.constexpr):\n" R5_IDX
    "    r = tl.reshape(x, (BA * BB * BC, BD * BE))\n"
    "    y = tl.reshape(r * 2 + tl.sum(r, axis=1, keep_dims=True), (BA, BB, BC, BD, BE))\n"
    "    tl.store(y_ptr + off, y, mask=mask)\n"
    "    z = x - tl.expand_dims(tl.sum(x, axis=2), 2)\n"
    "    tl.store(z_ptr + off, z, mask=mask)\n";

/* cumsum along axis 2, argmax along axis 1 (to [A, C, 5, E]; masked lanes
 * at -inf), and the join of the sum and max over axis 4 (rank 4 -> rank 5:
 * [A, 3, C, 5, 2]) */
static void r_r5_scan_join(const long *d, double *const *in, double *const *want) {
    long A = d[0], C = d[1], E = d[2];
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long dd = 0; dd < 5; dd++)
                for (long e = 0; e < E; e++) {
                    double s = 0;
                    for (long c = 0; c < C; c++)
                        want[0][r5_at(d, a, b, c, dd, e)] = s += in[0][r5_at(d, a, b, c, dd, e)];
                }
    for (long a = 0; a < A; a++)
        for (long c = 0; c < C; c++)
            for (long dd = 0; dd < 5; dd++)
                for (long e = 0; e < E; e++) {
                    long best = 0;
                    for (long b = 1; b < 3; b++)
                        if (in[0][r5_at(d, a, b, c, dd, e)] > in[0][r5_at(d, a, best, c, dd, e)])
                            best = b;
                    want[1][((a * C + c) * 5 + dd) * E + e] = best;
                }
    for (long a = 0; a < A; a++)
        for (long b = 0; b < 3; b++)
            for (long c = 0; c < C; c++)
                for (long dd = 0; dd < 5; dd++) {
                    double s = 0, m = -INFINITY;
                    for (long e = 0; e < E; e++)
                        s += in[0][r5_at(d, a, b, c, dd, e)], m = fmax(m, in[0][r5_at(d, a, b, c, dd, e)]);
                    long o = (((a * 3 + b) * C + c) * 5 + dd) * 2;
                    want[2][o] = s, want[2][o + 1] = m;
                }
}
static const char k_r5_scan_join[] =
    PRE "def k(x_ptr, h_ptr, am_ptr, j_ptr, A, C, E, BA: tl.constexpr, BB: tl.constexpr,\n"
    "      BC: tl.constexpr, BD: tl.constexpr, BE: tl.constexpr):\n" R5_IDX
    "    tl.store(h_ptr + off, tl.cumsum(x, axis=2), mask=mask)\n"
    "    am = tl.argmax(tl.where(mask, x, float('-inf')), axis=1)\n"
    "    tl.static_assert(am.shape == (BA, BC, BD, BE))\n"
    "    oa = tl.reshape(((a * C + c) * 5 + d) * E + e, (BA, BC, BD, BE))\n"
    "    tl.store(am_ptr + oa, am, mask=tl.reshape((a < A) & (c < C) & (d < 5) & (e < E), (BA, BC, BD, BE)))\n"
    "    j = tl.join(tl.sum(x, axis=4), tl.max(tl.where(mask, x, float('-inf')), axis=4))\n"
    "    tl.static_assert(j.shape == (BA, BB, BC, BD, 2))\n"
    "    t = tl.arange(0, 2)[None, None, None, None, :]\n"
    "    oj = (((a * 3 + b) * C + c) * 5 + d) * 2 + t\n"
    "    tl.store(j_ptr + oj, j, mask=(a < A) & (b < 3) & (c < C) & (d < 5) & (t < 2))\n";

/* ------------------------------------------------------------ batched dot */

/* o[b] = a[b] @ w[b] + c[b] for b < NB (a [NB, M, K], w [NB, K, N], c and o
 * [NB, M, N]; M, N, K = d0, d1, d2 at run time, up to the blocks' BM, BN,
 * BK; the batch block BB >= NB); optionally with the inputs rounded to tf32 */
static void bdot(const long *d, double *const *in, double *const *want, int nb, int round_tf32) {
    long M = d[0], N = d[1], K = d[2];
    for (long b = 0; b < nb; b++)
        for (long i = 0; i < M; i++)
            for (long j = 0; j < N; j++) {
                double s = in[2][(b * M + i) * N + j];
                for (long k = 0; k < K; k++) {
                    double x = in[0][(b * M + i) * K + k], y = in[1][(b * K + k) * N + j];
                    s += round_tf32 ? tf32(x) * tf32(y) : x * y;
                }
                want[0][(b * M + i) * N + j] = s;
            }
}
static void r_bdot1(const long *d, double *const *in, double *const *want) { bdot(d, in, want, 1, 0); }
static void r_bdot2(const long *d, double *const *in, double *const *want) { bdot(d, in, want, 2, 0); }
static void r_bdot3(const long *d, double *const *in, double *const *want) { bdot(d, in, want, 3, 0); }
static void r_bdot3_tf32(const long *d, double *const *in, double *const *want) { bdot(d, in, want, 3, 1); }
static void r_bdot2_tf32(const long *d, double *const *in, double *const *want) { bdot(d, in, want, 2, 1); }

#define BDOT_HEAD \
    PRE "def k(a_ptr, w_ptr, c_ptr, o_ptr, M, N, K, NB: tl.constexpr, BB: tl.constexpr, BM: tl.constexpr,\n" \
    "      BN: tl.constexpr, BK: tl.constexpr):\n" \
    "    rb = tl.arange(0, BB)[:, None, None]\n" \
    "    rm = (tl.program_id(0) * BM + tl.arange(0, BM))[None, :, None]\n" \
    "    rn = (tl.program_id(1) * BN + tl.arange(0, BN))[None, None, :]\n" \
    "    cm = (rb < NB) & (rm < M) & (rn < N)\n" \
    "    acc = tl.load(c_ptr + (rb * M + rm) * N + rn, mask=cm, other=0.0)\n"

/* one K block: the whole product in one tl.dot with acc */
#define BDOT(args) \
    BDOT_HEAD \
    "    rka = tl.arange(0, BK)[None, None, :]\n" \
    "    rkb = tl.arange(0, BK)[None, :, None]\n" \
    "    a = tl.load(a_ptr + (rb * M + rm) * K + rka, mask=(rb < NB) & (rm < M) & (rka < K), other=0.0)\n" \
    "    w = tl.load(w_ptr + (rb * K + rkb) * N + rn, mask=(rb < NB) & (rkb < K) & (rn < N), other=0.0)\n" \
    "    acc = tl.dot(a, w, acc" args ")\n" \
    "    tl.static_assert(acc.shape == (BB, BM, BN))\n" \
    "    tl.store(o_ptr + (rb * M + rm) * N + rn, acc, mask=cm)\n"

/* the tutorial's K loop, batched: BM x BN tiles over a grid, the
 * accumulator carried through tl.dot's acc */
static const char k_bdot_loop[] =
    BDOT_HEAD
    "    for k0 in range(0, K, BK):\n"
    "        rka = k0 + tl.arange(0, BK)[None, None, :]\n"
    "        rkb = k0 + tl.arange(0, BK)[None, :, None]\n"
    "        a = tl.load(a_ptr + (rb * M + rm) * K + rka, mask=(rb < NB) & (rm < M) & (rka < K), other=0.0)\n"
    "        w = tl.load(w_ptr + (rb * K + rkb) * N + rn, mask=(rb < NB) & (rkb < K) & (rn < N), other=0.0)\n"
    "        acc = tl.dot(a, w, acc)\n"
    "    tl.store(o_ptr + (rb * M + rm) * N + rn, acc, mask=cm)\n";

static const Dims SB16[] = {{{16, 16, 16}}, {{13, 7, 11}}, {{1, 1, 1}}, {{0}}};
static const Dims SB32[] = {{{32, 32, 32}}, {{29, 17, 31}}, {{1, 1, 1}}, {{0}}};
static const Dims SB_32_16_32[] = {{{32, 16, 32}}, {{29, 15, 31}}, {{1, 1, 1}}, {{0}}};
static const Dims SB_16_32_64[] = {{{16, 32, 64}}, {{13, 29, 61}}, {{1, 1, 1}}, {{0}}};
static const Dims SB_64_32_16[] = {{{64, 32, 16}}, {{63, 17, 13}}, {{2, 3, 1}}, {{0}}};

/* operands and accumulator of NB batches */
#define BDOT_BUFS(dt, nb) \
    {{dt, D0 | D2, nb, -1, 1, 0}, {dt, D1 | D2, nb, -1, 1, 0}, {TL_F32, D0 | D1, nb, -1, 1, 0}}, \
        {{TL_F32, D0 | D1, nb, SENT, SENT, 0}}

/* fp64 operands, accumulator and result */
#define BDOT_BUFS64(nb) \
    {{TL_F64, D0 | D2, nb, -1, 1, 0}, {TL_F64, D1 | D2, nb, -1, 1, 0}, {TL_F64, D0 | D1, nb, -1, 1, 0}}, \
        {{TL_F64, D0 | D1, nb, SENT, SENT, 0}}

/* ------------------------------------------------------------ rank 9 */

/* IR_MAX_RANK's blocks (upstream's test_reshape to (2,) * 9): x[512] as a
 * [2] * 9 block, every axis reversed by tl.permute (so p[i] = x[i's 9 bits
 * reversed]) and summed over axis 0 (s[j] = x[j] + x[j + 256]); n masks the
 * load and the stores. */
static const Dims S9D[] = {{{1}}, {{300}}, {{512}}, {{0}}};
static long rev9(long i) {
    long r = 0;
    for (int b = 0; b < 9; b++)
        r |= ((i >> b) & 1) << (8 - b);
    return r;
}
static void r_r9(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        want[0][i] = rev9(i) < d[0] ? in[0][rev9(i)] : 0;
        if (i < 256)
            want[1][i] = in[0][i] + (i + 256 < d[0] ? in[0][i + 256] : 0);
    }
}
static const char k_r9[] =
    PRE "def k(x_ptr, p_ptr, s_ptr, n):\n"
    "    offs = tl.arange(0, 512)\n"
    "    x = tl.reshape(tl.load(x_ptr + offs, mask=offs < n, other=0), (2, 2, 2, 2, 2, 2, 2, 2, 2))\n"
    "    tl.static_assert(x.shape == (2, 2, 2, 2, 2, 2, 2, 2, 2))\n"
    "    p = tl.reshape(tl.permute(x, (8, 7, 6, 5, 4, 3, 2, 1, 0)), (512, ))\n"
    "    tl.store(p_ptr + offs, p, mask=offs < n)\n"
    "    o2 = tl.arange(0, 256)\n"
    "    tl.store(s_ptr + o2, tl.reshape(tl.sum(x, axis=0), (256, )), mask=o2 < n)\n";

#define RANK5_CASES \
    {"rank9_reshape_permute_sum", k_r9, "", S9D, {0, 0}, 1, 0, {IN(TL_I32, D0, -1000, 1000)}, \
     {OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_r9, NULL, EXACT}, \
    {"rank5_load_store_broadcast_sums", k_r5_sums_a, R5_OPTS, S5D, {0, 0}, 3, 0, \
     {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}, {TL_F32, 0, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}, {TL_F32, D1 | D2, 15, SENT, SENT, 0}, \
      {TL_F32, D0 | D2, 15, SENT, SENT, 0}, {TL_F32, D0 | D1, 15, SENT, SENT, 0}}, \
     r_r5_sums_a, NULL, SUMS}, \
    {"rank5_sums_max_keep_dims", k_r5_sums_b, R5_OPTS, S5D, {0, 0}, 3, 0, \
     {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 5, SENT, SENT, 0}, {TL_F32, D0 | D1 | D2, 3, SENT, SENT, 0}, \
      {TL_F32, D0 | D1 | D2, 3, SENT, SENT, 0}, OUTC(TL_F32, 1, SENT)}, \
     r_r5_sums_b, NULL, 1e-4, 1e-5}, \
    {"rank5_permute_trans", k_r5_permute, R5_OPTS, S5D, {0, 0}, 3, 0, {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}, {TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}}, r_r5_permute, NULL, \
     EXACT}, \
    {"rank5_permute_trans_w8", k_r5_permute, R5_OPTS " --num-warps 8", S5D, {0, 0}, 3, 0, \
     {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}, {TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}}, r_r5_permute, NULL, \
     EXACT}, \
    {"rank5_reshape_2d_expand_dims", k_r5_reshape, R5_OPTS, S5D, {0, 0}, 3, 0, \
     {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}, {TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}}, r_r5_reshape, NULL, \
     SUMS}, \
    {"rank5_cumsum_argmax_join", k_r5_scan_join, R5_OPTS, S5D, {0, 0}, 3, 0, \
     {{TL_F32, D0 | D1 | D2, 15, -1, 1, 0}}, \
     {{TL_F32, D0 | D1 | D2, 15, SENT, SENT, 0}, {TL_I32, D0 | D1 | D2, 5, SENT, SENT, 0}, \
      {TL_F32, D0 | D1, 30, SENT, SENT, 0}}, \
     r_r5_scan_join, NULL, SUMS}, \
    {"dot3_f32_ieee_b1_16", BDOT(", input_precision='ieee'"), "-D NB=1 -D BB=1 -D BM=16 -D BN=16 -D BK=16", SB16, \
     {16, 16}, 3, 0, BDOT_BUFS(TL_F32, 1), r_bdot1, NULL, 1e-4, 1e-4}, \
    {"dot3_f32_ieee_b2_32", BDOT(", allow_tf32=False"), "-D NB=2 -D BB=2 -D BM=32 -D BN=32 -D BK=32", SB32, \
     {32, 32}, 3, 0, BDOT_BUFS(TL_F32, 2), r_bdot2, NULL, 1e-4, 1e-4}, \
    {"dot3_f32_tf32_b3_16x32x64", BDOT(""), "-D NB=3 -D BB=4 -D BM=16 -D BN=32 -D BK=64", SB_16_32_64, {16, 32}, 3, \
     0, BDOT_BUFS(TL_F32, 3), r_bdot3_tf32, NULL, 1e-4, 1e-4}, \
    {"dot3_f16_b3_64x32x16", BDOT(""), "-D NB=3 -D BB=4 -D BM=64 -D BN=32 -D BK=16", SB_64_32_16, {64, 32}, 3, 0, \
     BDOT_BUFS(TL_F16, 3), r_bdot3, NULL, 1e-4, 1e-4}, \
    {"dot3_i8_b2_32x16x32", BDOT(""), "-D NB=2 -D BB=2 -D BM=32 -D BN=16 -D BK=32", SB_32_16_32, {32, 16}, 3, 0, \
     {{TL_I8, D0 | D2, 2, -100, 100, 0}, {TL_I8, D1 | D2, 2, -100, 100, 0}, {TL_I32, D0 | D1, 2, -1000, 1000, 0}}, \
     {{TL_I32, D0 | D1, 2, SENT, SENT, 0}}, r_bdot2, NULL, EXACT}, \
    {"dot3_f64_b3_32x16x32", BDOT(""), "-D NB=3 -D BB=4 -D BM=32 -D BN=16 -D BK=32", SB_32_16_32, {32, 16}, 3, 0, \
     BDOT_BUFS64(3), r_bdot3, NULL, 1e-13, 1e-13}, \
    {"dot3_f64_k_loop_ragged_w2", k_bdot_loop, "-D NB=2 -D BB=2 -D BM=32 -D BN=16 -D BK=16 --num-warps 2", SMM, \
     {32, 16}, 3, 0, BDOT_BUFS64(2), r_bdot2, NULL, 1e-13, 1e-13}, \
    {"dot3_f32_tf32_k_loop_ragged", k_bdot_loop, "-D NB=2 -D BB=2 -D BM=32 -D BN=16 -D BK=16", SMM, {32, 16}, 3, 0, \
     BDOT_BUFS(TL_F32, 2), r_bdot2_tf32, NULL, 1e-4, 1e-4},
