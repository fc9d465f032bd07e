/* ops_std.h: the numeric cases of Triton's standard-library ops (scans,
 * reductions with a combine function, histogram, gather, sort, topk, flip),
 * included by ops_test.c, whose table takes STD_CASES. The references are
 * computed here sequentially, element by element. */

/* ------------------------------------------------------------- scans, 1-D */

/* One BLOCK = 1024 program over the whole array: masked lanes load the
 * combine's identity, so they change nothing in either direction. */
static void r_cumsum1d(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    double s = 0;
    for (long i = 0; i < n; i++)
        want[0][i] = s += in[0][i];
    s = 0;
    for (long i = n - 1; i >= 0; i--)
        want[1][i] = s += in[0][i];
    uint32_t p = 1;
    for (long i = 0; i < n; i++)
        want[2][i] = (int32_t)(p *= (uint32_t)(int32_t)in[1][i]);
    int64_t t = 0;
    for (long i = 0; i < n; i++)
        want[3][i] = (double)(t += (int64_t)in[2][i]);
}
static const char k_cumsum1d[] =
    PRE "def k(x_ptr, b_ptr, c_ptr, f_ptr, r_ptr, p_ptr, s_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask, other=0.0)\n"
    "    b = tl.load(b_ptr + offs, mask=mask, other=1)\n"
    "    c = tl.load(c_ptr + offs, mask=mask, other=0)\n"
    "    s = tl.cumsum(c, 0)\n"
    "    tl.static_assert(s.dtype == tl.int32)\n"
    "    tl.store(f_ptr + offs, tl.cumsum(x), mask=mask)\n"
    "    tl.store(r_ptr + offs, x.cumsum(axis=0, reverse=True), mask=mask)\n"
    "    tl.store(p_ptr + offs, tl.cumprod(b, 0), mask=mask)\n"
    "    tl.store(s_ptr + offs, s, mask=mask)\n";

/* fp8 (a storage type: the IR has no fp8 arithmetic): minimum and maximum
 * pick one of the two exactly; cumsum runs in fp32 and rounds each result
 * back once. The inputs are fp8e4nv values in [-4, 4]: at most 1024 of them
 * sum exactly in fp32 in any order, so the reference is exact. */
static void r_f8_scan(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    double s = 0;
    for (long i = 0; i < n; i++) {
        double a = in[0][i], b = in[1][i];
        want[0][i] = a < b ? a : b;
        want[1][i] = a > b ? a : b;
        want[2][i] = f8(E4NV, s += a);
    }
}
static const char k_f8_scan[] =
    PRE "def k(a_ptr, b_ptr, lo_ptr, hi_ptr, c_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask, other=0.0)\n"
    "    b = tl.load(b_ptr + offs, mask=mask, other=0.0)\n"
    "    lo = tl.minimum(a, b)\n"
    "    c = tl.cumsum(a, 0)\n"
    "    tl.static_assert(lo.dtype == tl.float8e4nv and c.dtype == tl.float8e4nv)\n"
    "    tl.store(lo_ptr + offs, lo.to(tl.float32), mask=mask)\n"
    "    tl.store(hi_ptr + offs, tl.maximum(a, b).to(tl.float32), mask=mask)\n"
    "    tl.store(c_ptr + offs, c.to(tl.float32), mask=mask)\n";

/* h[k] = a[k] * h[k-1] + b[k] as a scan of (a, b) pairs: the combine is
 * associative but not commutative, so the order of the operands counts. */
static void r_linrec(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    int64_t A = 1, H = 0;
    for (long i = 0; i < n; i++) {
        A *= (int64_t)in[0][i];
        H = H * (int64_t)in[0][i] + (int64_t)in[1][i];
        want[0][i] = (double)A, want[1][i] = (double)H;
    }
    H = 0;
    for (long i = n - 1; i >= 0; i--) {
        H = H * (int64_t)in[0][i] + (int64_t)in[1][i];
        want[2][i] = (double)H;
    }
}
static const char k_linrec[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def lin(a1, b1, a2, b2):\n"
    "    return a1 * a2, b1 * a2 + b2\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, pa_ptr, h_ptr, hr_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask, other=1)\n"
    "    b = tl.load(b_ptr + offs, mask=mask, other=0)\n"
    "    pa, h = tl.associative_scan((a, b), 0, lin)\n"
    "    tl.store(pa_ptr + offs, pa, mask=mask)\n"
    "    tl.store(h_ptr + offs, h, mask=mask)\n"
    "    _, hr = tl.associative_scan((a, b), axis=0, combine_fn=lin, reverse=True)\n"
    "    tl.store(hr_ptr + offs, hr, mask=mask)\n";

/* ------------------------------------------------------------- scans, 2-D */

/* the linear recurrence along the rows (axis 1) or down the columns (axis 0)
 * of one tile: program p covers rows p * BM .. (AX = 1) or is the only one */
static void linrec_2d(const long *d, double *const *in, double *const *want, int axis) {
    long M = d[0], N = d[1], outer = axis ? M : N, len = axis ? N : M;
    for (long o = 0; o < outer; o++) {
        int64_t H = 0;
        for (long k = 0; k < len; k++) {
            long i = axis ? o * N + k : k * N + o;
            H = H * (int64_t)in[0][i] + (int64_t)in[1][i];
            want[0][i] = (double)H;
        }
    }
}
static void r_linrec_rows(const long *d, double *const *in, double *const *want) { linrec_2d(d, in, want, 1); }
static void r_linrec_cols(const long *d, double *const *in, double *const *want) { linrec_2d(d, in, want, 0); }
static const char k_linrec_rows[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def lin(a1, b1, a2, b2):\n"
    "    return a1 * a2, b1 * a2 + b2\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, h_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr, AX: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.program_id(1) * BN + tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    idx = rm[:, None] * N + rn[None, :]\n"
    "    a = tl.load(a_ptr + idx, mask=mask, other=1)\n"
    "    b = tl.load(b_ptr + idx, mask=mask, other=0)\n"
    "    _, h = tl.associative_scan((a, b), AX, lin)\n"
    "    tl.store(h_ptr + idx, h, mask=mask)\n";

/* Along the rows (axis 1, one tile covers N) and down the columns (axis 0,
 * one tile covers M); masked elements load 0. */
static void r_scan_rows(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long i = 0; i < M; i++) {
        double s = 0;
        int64_t t = 0;
        for (long j = 0; j < N; j++) {
            want[0][i * N + j] = s += in[0][i * N + j];
            want[1][i * N + j] = (double)(t += (int64_t)in[1][i * N + j]);
        }
    }
}
static void r_scan_cols(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long j = 0; j < N; j++) {
        double s = 0;
        int64_t t = 0;
        for (long i = M - 1; i >= 0; i--) { /* the float scan runs in reverse */
            want[0][i * N + j] = s += in[0][i * N + j];
        }
        for (long i = 0; i < M; i++)
            want[1][i * N + j] = (double)(t += (int64_t)in[1][i * N + j]);
    }
}
#define SCAN2D(AX, REV, MI, NI)                                                                  \
    PRE "def k(x_ptr, c_ptr, f_ptr, s_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"       \
    "    rm = " MI " + tl.arange(0, BM)\n"                                                          \
    "    rn = " NI " + tl.arange(0, BN)\n"                                                          \
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"                                            \
    "    idx = rm[:, None] * N + rn[None, :]\n"                                                     \
    "    x = tl.load(x_ptr + idx, mask=mask, other=0.0)\n"                                          \
    "    c = tl.load(c_ptr + idx, mask=mask, other=0)\n"                                            \
    "    tl.store(f_ptr + idx, tl.cumsum(x, " AX ", reverse=" REV "), mask=mask)\n"                 \
    "    tl.store(s_ptr + idx, tl.cumsum(c, axis=" AX "), mask=mask)\n"
/* rows of at most 2 (one BN = 2 tile), and single rows (BM = 1) */
static const Dims S2D_N2[] = {{{1000, 2}}, {{1, 1}}, {{1025, 2}}, {{37, 1}}, {{0}}};
static const Dims S2D_M1[] = {{{1, 1000}}, {{1, 1}}, {{1, 2049}}, {{0}}};
static const char k_scan_rows[] = SCAN2D("1", "False", "tl.program_id(0) * BM", "0");
static const char k_scan_cols[] = SCAN2D("0", "True", "0", "tl.program_id(1) * BN");

/* ------------------------------------------------ reductions with combine */

/* argmax with the first index on ties through tl.reduce of (value, index)
 * pairs along the rows; xor_sum and reduce_or down the columns. */
static void r_reduce_fn(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    for (long i = 0; i < M; i++) {
        double best = -INFINITY;
        long bi = 0;
        for (long j = 0; j < N; j++)
            if (in[0][i * N + j] > best)
                best = in[0][i * N + j], bi = j;
        want[0][i] = best, want[1][i] = bi;
    }
    for (long j = 0; j < N; j++) {
        uint32_t x = 0, o = 0;
        for (long i = 0; i < M; i++)
            x ^= (uint32_t)(int32_t)in[1][i * N + j], o |= (uint32_t)(int32_t)in[1][i * N + j];
        want[2][j] = (int32_t)x, want[3][j] = (int32_t)o;
    }
}
static const char k_reduce_fn[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def amax(v1, i1, v2, i2):\n"
    "    gt = (v1 > v2) | ((v1 == v2) & (i1 < i2))\n"
    "    return tl.where(gt, v1, v2), tl.where(gt, i1, i2)\n\n\n"
    "@triton.jit\n"
    "def k(x_ptr, c_ptr, v_ptr, i_ptr, x_out, o_out, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    idx = rm[:, None] * N + rn[None, :]\n"
    "    x = tl.load(x_ptr + idx, mask=mask, other=-float('inf'))\n"
    "    c = tl.load(c_ptr + idx, mask=mask, other=0)\n"
    "    cols = tl.broadcast_to(rn[None, :], (BM, BN))\n"
    "    v, i = tl.reduce((x, cols), 1, amax)\n"
    "    tl.store(v_ptr + rm, v, mask=rm < M)\n"
    "    tl.store(i_ptr + rm, i, mask=rm < M)\n"
    "    xs = tl.xor_sum(c, axis=0, keep_dims=True)\n"
    "    tl.static_assert(xs.shape == (1, BN))\n"
    "    tl.store(x_out + rn[None, :], xs, mask=rn[None, :] < N)\n"
    "    tl.store(o_out + rn, c.reduce_or(0), mask=rn < N)\n";

/* ------------------------------------------------------------- histogram */

static void r_histogram(const long *d, double *const *in, double *const *want) {
    for (int b = 0; b < 32; b++)
        want[0][b] = want[1][b] = 0;
    for (long i = 0; i < d[0]; i++) {
        long v = (long)in[0][i];
        if (v >= 0 && v < 32) {
            want[0][v]++;
            if (v % 3)
                want[1][v]++;
        }
    }
}
static const char k_histogram[] =
    PRE "def k(x_ptr, h_ptr, m_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n, other=-1)\n"
    "    h = tl.histogram(x, 32)\n"
    "    tl.static_assert(h.shape == (32,) and h.dtype == tl.int32)\n"
    "    tl.store(h_ptr + tl.arange(0, 32), h)\n"
    "    tl.store(m_ptr + tl.arange(0, 32), x.histogram(32, mask=(offs < n) & (x % 3 != 0)))\n";

/* ------------------------------------------------- gather, flip, sort, topk */

/* Rows of a tile: gather at (j * 5 + 3) mod BN, flip along each axis. */
static void r_gather_flip(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    const long BM = 16, BN = 64;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            long g = (j * 5 + 3) % BN, fi = i / BM * BM + (BM - 1 - i % BM), fj = BN - 1 - j;
            want[0][i * N + j] = g < N ? in[0][i * N + g] : -1;
            want[1][i * N + j] = fj < N ? in[0][i * N + fj] : -1;
            want[2][i * N + j] = fi < M ? in[0][fi * N + j] : -1;
        }
}
static const char k_gather_flip[] =
    PRE "def k(x_ptr, g_ptr, f1_ptr, f0_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    idx = rm[:, None] * N + rn[None, :]\n"
    "    x = tl.load(x_ptr + idx, mask=mask, other=-1.0)\n"
    "    j = tl.broadcast_to(((rn * 5 + 3) % BN)[None, :], (BM, BN))\n"
    "    tl.store(g_ptr + idx, tl.gather(x, j, 1), mask=mask)\n"
    "    tl.store(f1_ptr + idx, tl.flip(x), mask=mask)\n"
    "    tl.store(f0_ptr + idx, x.flip(0), mask=mask)\n";

/* Triton's subtiled epilogue: split(permute(reshape(x, (BM, 2, BN/2)), (0, 2,
 * 1))) gives x's column halves (tl's extract op); stored back in place
 * and swapped. */
static void r_split_halves(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    const long BN = 64;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            long sw = (j + BN / 2) % BN;
            want[0][i * N + j] = in[0][i * N + j];
            want[1][i * N + j] = sw < N ? in[0][i * N + sw] : -1;
        }
}
static const char k_split_halves[] =
    PRE "def k(x_ptr, y_ptr, w_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    x = tl.load(x_ptr + rm[:, None] * N + rn[None, :], mask=(rm[:, None] < M) & (rn[None, :] < N), other=-1.0)\n"
    "    h = tl.permute(tl.reshape(x, (BM, 2, BN // 2)), (0, 2, 1))\n"
    "    lo, hi = tl.split(h)\n"
    "    tl.static_assert(lo.shape == (BM, BN // 2))\n"
    "    c = tl.arange(0, BN // 2)[None, :]\n"
    "    row = rm[:, None] * N\n"
    "    ok = rm[:, None] < M\n"
    "    tl.store(y_ptr + row + c, lo, mask=ok & (c < N))\n"
    "    tl.store(y_ptr + row + c + BN // 2, hi, mask=ok & (c + BN // 2 < N))\n"
    "    tl.store(w_ptr + row + c, hi, mask=ok & (c < N))\n"
    "    tl.store(w_ptr + row + c + BN // 2, lo, mask=ok & (c + BN // 2 < N))\n";

static int cmp_up(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
/* Each row sorted ascending (masked elements +inf, at the end) and
 * descending (-inf), and its top 8. */
static void r_sort_rows(const long *d, double *const *in, double *const *want) {
    long M = d[0], N = d[1];
    const long BN = 64;
    double row[64];
    for (long i = 0; i < M; i++) {
        for (long j = 0; j < BN; j++)
            row[j] = j < N ? in[0][i * N + j] : INFINITY;
        qsort(row, BN, sizeof row[0], cmp_up);
        for (long j = 0; j < N; j++)
            want[0][i * N + j] = row[j];
        for (long j = 0; j < BN; j++)
            row[j] = j < N ? in[0][i * N + j] : -INFINITY;
        qsort(row, BN, sizeof row[0], cmp_up);
        for (long j = 0; j < N; j++)
            want[1][i * N + j] = row[BN - 1 - j];
        for (long j = 0; j < 8; j++)
            want[2][i * 8 + j] = row[BN - 1 - j];
    }
}
static const char k_sort_rows[] =
    PRE "def k(x_ptr, a_ptr, d_ptr, t_ptr, M, N, BM: tl.constexpr, BN: tl.constexpr):\n"
    "    rm = tl.program_id(0) * BM + tl.arange(0, BM)\n"
    "    rn = tl.arange(0, BN)\n"
    "    mask = (rm[:, None] < M) & (rn[None, :] < N)\n"
    "    idx = rm[:, None] * N + rn[None, :]\n"
    "    up = tl.sort(tl.load(x_ptr + idx, mask=mask, other=float('inf')))\n"
    "    tl.store(a_ptr + idx, up, mask=mask)\n"
    "    x = tl.load(x_ptr + idx, mask=mask, other=-float('inf'))\n"
    "    tl.store(d_ptr + idx, tl.sort(x, dim=1, descending=True), mask=mask)\n"
    "    t = tl.topk(x, 8)\n"
    "    tl.static_assert(t.shape == (BM, 8))\n"
    "    tl.store(t_ptr + rm[:, None] * 8 + tl.arange(0, 8)[None, :], t, mask=rm[:, None] < M)\n";

/* 1-D ints with many ties, whole array in one program. */
static int cmp_i(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static void r_sort1d(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    double *v = malloc(sizeof(double) * 1024);
    for (long i = 0; i < 1024; i++)
        v[i] = i < n ? in[0][i] : 1000;
    qsort(v, 1024, sizeof v[0], cmp_i);
    for (long i = 0; i < n; i++)
        want[0][i] = v[i];
    free(v);
}
static const char k_sort1d[] =
    PRE "def k(x_ptr, s_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    x = tl.load(x_ptr + offs, mask=offs < n, other=1000)\n"
    "    tl.store(s_ptr + offs, x.sort(), mask=offs < n)\n";

/* --------------------------------------------------------- random numbers */

/* Philox4x32 with `rounds` rounds (Salmon et al., Random123), written from
 * the paper's definition: the key is raised between rounds. */
static void philox4x32(uint32_t c[4], uint32_t k0, uint32_t k1, int rounds) {
    for (int r = 0; r < rounds; r++) {
        if (r)
            k0 += 0x9E3779B9u, k1 += 0xBB67AE85u;
        uint64_t p0 = (uint64_t)0xD2511F53u * c[0], p1 = (uint64_t)0xCD9E8D57u * c[2];
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c[1] ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0, c[1] = (uint32_t)p1, c[2] = n2, c[3] = (uint32_t)p0;
    }
}

/* The reference itself against Random123's known-answer vectors for
 * Philox4x32-10 (kat_vectors). */
static int philox_kat(char *msg, size_t len) {
    static const uint32_t kat[3][10] = {
        {0, 0, 0, 0, 0, 0, 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8},
        {0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
         0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd},
        {0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344, 0xa4093822, 0x299f31d0,
         0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1},
    };
    for (int v = 0; v < 3; v++) {
        uint32_t c[4] = {kat[v][0], kat[v][1], kat[v][2], kat[v][3]};
        philox4x32(c, kat[v][4], kat[v][5], 10);
        for (int i = 0; i < 4; i++)
            if (c[i] != kat[v][6 + i]) {
                snprintf(msg, len, "the C Philox reference fails known-answer vector %d", v);
                return 0;
            }
    }
    return 1;
}

/* random.uint_to_uniform_float, in fp32 as Triton computes it */
static double uniform(uint32_t u) {
    int32_t x = (int32_t)u;
    x = x < 0 ? -(x + 1) : x;
    return (float)x * 4.6566127342e-10f;
}

static int check_value(const char *what, long i, double got, double want, double tol, char *msg, size_t len) {
    if (fabs(got - want) <= tol)
        return 1;
    snprintf(msg, len, "%s[%ld] = %.9g, want %.9g", what, i, got, want);
    return 0;
}

/* randint4x with a 64-bit constant seed (key 0x567890AB, 0x1234) and int64
 * offsets offs + 2^33 (counters offs, 2, 0, 0). */
static int c_randint4x(const long *d, double *const *in, double *const *got, char *msg, size_t len) {
    (void)in;
    if (!philox_kat(msg, len))
        return 0;
    for (long i = 0; i < d[0]; i++) {
        uint32_t c[4] = {(uint32_t)i, 2, 0, 0};
        philox4x32(c, 0x567890ABu, 0x1234u, 10);
        for (int k = 0; k < 4; k++)
            if (!check_value("r", i, got[k][i], c[k], 0, msg, len))
                return 0;
    }
    return 1;
}
static const char k_randint4x[] =
    PRE "def k(a_ptr, b_ptr, c_ptr, d_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    a, b, c, d = tl.randint4x(0x1234567890AB, offs.to(tl.int64) + (1 << 33))\n"
    "    tl.static_assert(a.dtype == tl.uint32 and d.shape == (BLOCK,))\n"
    ST(a, "a") ST(b, "b") ST(c, "c") ST(d, "d");

/* philox_impl on explicit keys: counters (x, x ^ 0x5bd1e995, n, 7) from the
 * loaded data, key (0xDEADBEEF, x * 3), 10 rounds and 5 */
static int c_philox_impl(const long *d, double *const *in, double *const *got, char *msg, size_t len) {
    if (!philox_kat(msg, len))
        return 0;
    for (long i = 0; i < d[0]; i++) {
        uint32_t x = (uint32_t)(int64_t)in[0][i];
        uint32_t c[4] = {x, x ^ 0x5bd1e995u, (uint32_t)d[0], 7}, c5[4] = {x, x ^ 0x5bd1e995u, (uint32_t)d[0], 7};
        philox4x32(c, 0xDEADBEEFu, x * 3u, 10);
        philox4x32(c5, 0xDEADBEEFu, x * 3u, 5);
        if (!check_value("a", i, got[0][i], c[0], 0, msg, len) || !check_value("d", i, got[1][i], c[3], 0, msg, len) ||
            !check_value("a5", i, got[2][i], c5[0], 0, msg, len))
            return 0;
    }
    return 1;
}
static const char k_philox_impl[] =
    PRE "def k(x_ptr, a_ptr, d_ptr, e_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    x = tl.load(x_ptr + offs, mask=mask).to(tl.uint32)\n"
    "    k1 = x * 3\n"
    "    k0 = (k1 * 0 + 0xDEADBEEF).to(tl.uint32)\n"
    "    c2 = (x * 0 + n).to(tl.uint32)\n"
    "    c3 = (x * 0 + 7).to(tl.uint32)\n"
    "    a, b, c, d = tl.philox_impl(x, x ^ 0x5bd1e995, c2, c3, k0, k1)\n"
    "    e, f, g, h = tl.philox_impl(x, x ^ 0x5bd1e995, c2, c3, k0, k1, n_rounds=5)\n"
    ST(a, "a") ST(d, "d") ST(e, "e");

/* rand, randn, randint with 7 rounds and the last of rand4x, from a runtime
 * seed n * 7919 + 5. randn goes through the GPU's approximate log / cos. */
static int c_rand(const long *d, double *const *in, double *const *got, char *msg, size_t len) {
    (void)in;
    uint32_t seed = (uint32_t)(int32_t)(d[0] * 7919 + 5);
    for (long i = 0; i < d[0]; i++) {
        uint32_t c[4] = {(uint32_t)i, 0, 0, 0}, c7[4] = {(uint32_t)i, 0, 0, 0};
        philox4x32(c, seed, 0, 10);
        philox4x32(c7, seed, 0, 7);
        double u1 = uniform(c[0]), u2 = uniform(c[1]);
        double n1 = sqrt(-2.0 * log(fmax(1.0e-7, u1))) * cos((float)(6.283185307179586 * u2));
        if (!check_value("rand", i, got[0][i], u1, 0, msg, len) ||
            !check_value("randn", i, got[1][i], n1, 2e-5 + 2e-5 * fabs(n1), msg, len) ||
            !check_value("randint(n_rounds=7)", i, got[2][i], c7[0], 0, msg, len) ||
            !check_value("rand4x[3]", i, got[3][i], uniform(c[3]), 0, msg, len))
            return 0;
    }
    return 1;
}
static const char k_rand[] =
    PRE "def k(u_ptr, g_ptr, i_ptr, w_ptr, n, BLOCK: tl.constexpr):\n" OFFS
    "    seed = n * 7919 + 5\n"
    "    u = tl.rand(seed, offs)\n"
    "    tl.static_assert(u.dtype == tl.float32)\n"
    ST(u, "u") ST(g, "tl.randn(seed, offs)") ST(i, "tl.randint(seed, offs, n_rounds=7)")
    "    _, _, _, w = tl.rand4x(seed, offs)\n" ST(w, "w");

/* ------------------------------------------------------------ shape ops */

/* One BLOCK = 1024 program: join and interleave give a0 b0 a1 b1 ..., cat
 * gives a then b (stored as out[0..n) and out[n..2n)). */
static void r_join(const long *d, double *const *in, double *const *want) {
    long n = d[0];
    for (long i = 0; i < n; i++) {
        want[0][2 * i] = want[1][2 * i] = in[0][i];
        want[0][2 * i + 1] = want[1][2 * i + 1] = in[1][i];
        want[2][i] = in[0][i];
        want[2][n + i] = in[1][i];
    }
}
static const char k_join[] =
    PRE "def k(a_ptr, b_ptr, j_ptr, i_ptr, c_ptr, n, BLOCK: tl.constexpr):\n"
    "    offs = tl.arange(0, BLOCK)\n"
    "    mask = offs < n\n"
    "    a = tl.load(a_ptr + offs, mask=mask)\n"
    "    b = tl.load(b_ptr + offs, mask=mask)\n"
    "    j = tl.join(a, b)\n"
    "    tl.static_assert(j.shape == (BLOCK, 2))\n"
    "    tl.store(j_ptr + 2 * offs[:, None] + tl.arange(0, 2)[None, :], j, mask=mask[:, None])\n"
    "    w = tl.arange(0, 2 * BLOCK)\n"
    "    tl.store(i_ptr + w, tl.interleave(a, b), mask=w < 2 * n)\n"
    "    c = tl.cat(a, b, can_reorder=True)\n"
    "    tl.store(c_ptr + tl.where(w < BLOCK, w, w - BLOCK + n), c, mask=(w < n) | ((w >= BLOCK) & (w - BLOCK < n)))\n";

/* split undoes join bit for bit (the xor of the bits); broadcast of two. */
static void r_split(const long *d, double *const *in, double *const *want) {
    for (long i = 0; i < d[0]; i++) {
        want[0][i] = in[1][i];
        want[1][i] = in[0][i];
        want[2][i] = f32(in[0][i] + 1.5);
    }
}
static const char k_split[] =
    PRE "def k(a_ptr, b_ptr, s_ptr, t_ptr, u_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    s, t = tl.split(tl.join(b, a))\n"
    "    x, y = tl.broadcast(a, 1.5)\n"
    "    tl.static_assert(y.shape == (BLOCK,))\n"
    ST(s, "s") ST(t, "t") ST(u, "x + y");

/* ------------------------------------------- core.add / sub / mul, to_tensor */

/* what x + y, x - y, x * y call in Triton, with Triton's promotion (an int
 * tensor times a Python float is fp32); to_tensor(2) is an int32 scalar */
REF(r_core_arith, want[0][i] = f32(f32(a * 3) + f32(a - 1.5)); want[1][i] = (int32_t)((int32_t)b * 7 - 5);
    want[2][i] = f32((int32_t)b * 0.5f) + 2.5f)
/* the same kernel with --fp-fusion on (the default): on the GPU a * 3 + (a -
 * 1.5) is one fma, rounded once; the interpreter rounds each op (one ulp
 * apart at most, which EXACT sees: the reference says which) */
REF(r_core_arith_fused,
    want[0][i] = on_gpu ? fmaf((float)a, 3.0f, (float)(a - 1.5)) : f32(f32(a * 3) + f32(a - 1.5));
    want[1][i] = (int32_t)((int32_t)b * 7 - 5); want[2][i] = f32((int32_t)b * 0.5f) + 2.5f)
static const char k_core_arith[] =
    PRE "def k(a_ptr, b_ptr, x_ptr, y_ptr, z_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    tl.static_assert(BLOCK <= tl.TRITON_MAX_TENSOR_NUMEL)\n"
    "    two = tl.to_tensor(2)\n"
    "    tl.static_assert(two.dtype == tl.int32)\n"
    ST(x, "tl.add(tl.mul(a, 3), tl.sub(a, 1.5), sanitize_overflow=False)")
    ST(y, "tl.sub(tl.mul(b, 7), 5)") ST(z, "tl.mul(b, 0.5) + two + tl.to_tensor(0.5)");

/* ------------------------------------------------------ map_elementwise */

/* core.map_elementwise: a three-way compare with early returns (test_core's
 * test_map_elementwise), divmod with two results and pack = 2 / 3 (pack = 3:
 * a last group short in the interpreter, one register per thread on a GPU),
 * and a scalar while loop (Collatz steps) with n broadcast from a scalar. */
static int collatz(long x) {
    int k = 0;
    for (; x > 1; k++)
        x = x % 2 == 0 ? x / 2 : 3 * x + 1;
    return k;
}
REF(r_map_cmp, want[0][i] = (a > b) - (a < b))
REF(r_map_divmod, want[0][i] = (uint32_t)a / (uint32_t)b; want[1][i] = (uint32_t)a % (uint32_t)b;
    want[2][i] = (uint32_t)a / (uint32_t)b; want[3][i] = (uint32_t)a % (uint32_t)b)
REF(r_map_collatz, want[0][i] = collatz(labs((long)a)) + (d[0] > 100 ? 1.5f : 0.0f))
static const char k_map_cmp[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def compare(x, y):\n"
    "    if x < y:\n"
    "        return -1\n"
    "    elif x == y:\n"
    "        return 0\n"
    "    else:\n"
    "        return 1\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    z = tl.map_elementwise(compare, a, b)\n"
    "    tl.static_assert(z.dtype == tl.int32)\n" ST(out, "z");
static const char k_map_divmod[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def divmod(a, b):\n"
    "    return a // b, a % b\n\n\n"
    "@triton.jit\n"
    "def divmod3(a0, a1, a2, b0, b1, b2):\n"
    "    return a0 // b0, a1 // b1, a2 // b2, a0 % b0, a1 % b1, a2 % b2\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, b_ptr, q_ptr, r_ptr, q3_ptr, r3_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a) LD(b)
    "    q, r = tl.map_elementwise(divmod, a, b)\n" ST(q, "q") ST(r, "r")
    "    q3, r3 = tl.map_elementwise(divmod3, a, b, pack=3)\n" ST(q3, "q3") ST(r3, "r3");
static const char k_map_collatz[] =
    "import triton\nimport triton.language as tl\n\n\n"
    "@triton.jit\n"
    "def steps(x, n):\n"
    "    k = 0\n"
    "    x = tl.abs(x)\n"
    "    while x > 1:\n"
    "        if x % 2 == 0:\n"
    "            x = x // 2\n"
    "        else:\n"
    "            x = 3 * x + 1\n"
    "        k += 1\n"
    "    if n > 100:\n"
    "        return k + 1.5\n"
    "    return k.to(tl.float32)\n\n\n"
    "@triton.jit\n"
    "def k(a_ptr, out_ptr, n, BLOCK: tl.constexpr):\n" OFFS LD(a)
    "    z = tl.map_elementwise(steps, a, n)\n" ST(out, "z");

#define STD_CASES                                                                                                    \
    {"map_elementwise_compare", k_map_cmp, B128, S1D, G1D, 1, 0, {I1D(-3, 3), I1D(-3, 3)}, {OUT(TL_I32, D0)},       \
     r_map_cmp, NULL, EXACT},                                                                                        \
    {"map_elementwise_divmod_pack", k_map_divmod, B128, S1D, G1D, 1, 0,                                              \
     {IN(TL_U32, D0, 1, 4000000000.0), IN(TL_U32, D0, 1, 100000)},                                                   \
     {OUT(TL_U32, D0), OUT(TL_U32, D0), OUT(TL_U32, D0), OUT(TL_U32, D0)}, r_map_divmod, NULL, EXACT},               \
    {"map_elementwise_while", k_map_collatz, B128, S1D, G1D, 1, 0, {I1D(-100, 100)}, {OUT(TL_F32, D0)},             \
     r_map_collatz, NULL, EXACT},                                                                                    \
    {"core_add_sub_mul_to_tensor", k_core_arith, B128 " --fp-fusion off", S1D, G1D, 1, 0,                           \
     {F1D(-100, 100), I1D(-100000, 100000)}, {OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_core_arith,    \
     NULL, EXACT},                                                                                                   \
    {"core_add_sub_mul_fused", k_core_arith, B128, S1D, G1D, 1, 0, {F1D(-100, 100), I1D(-100000, 100000)},          \
     {OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_F32, D0)}, r_core_arith_fused, NULL, EXACT},                         \
    {"cumsum_cumprod_1d", k_cumsum1d, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0,                                      \
     {F1D(-1, 1), I1D(-2, 2), IN(TL_I8, D0, -100, 100)},                                                           \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_cumsum1d, NULL, 1e-4, 1e-5},          \
    {"cumsum_cumprod_1d_w1", k_cumsum1d, "-D BLOCK=1024 --num-warps 1", S1D_SMALL, {0, 0}, 1, 0,                     \
     {F1D(-1, 1), I1D(-2, 2), IN(TL_I8, D0, -100, 100)},                                                           \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_cumsum1d, NULL, 1e-4, 1e-5},          \
    {"fp8_minmax_cumsum", k_f8_scan, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0,                                      \
     {IN(TL_F8E4M3, D0, -4, 4), IN(TL_F8E4M3, D0, -4, 4)}, {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)},    \
     r_f8_scan, NULL, EXACT},                                                                                        \
    {"associative_scan_linrec", k_linrec, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {I1D(-1, 1), I1D(-100, 100)},     \
     {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_linrec, NULL, EXACT},                                    \
    {"associative_scan_linrec_w8", k_linrec, "-D BLOCK=1024 --num-warps 8", S1D_SMALL, {0, 0}, 1, 0,                \
     {I1D(-1, 1), I1D(-100, 100)}, {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_linrec, NULL, EXACT},      \
    {"associative_scan_linrec_b32", k_linrec, "-D BLOCK=32 --num-warps 2", S1D_TINY, {0, 0}, 1, 0,                   \
     {I1D(-1, 1), I1D(-100, 100)}, {OUT(TL_I32, D0), OUT(TL_I32, D0), OUT(TL_I32, D0)}, r_linrec, NULL, EXACT},      \
    {"cumsum_axis1", k_scan_rows, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0,                                    \
     {IN(TL_F32, D0 | D1, -1, 1), IN(TL_I32, D0 | D1, -1000, 1000)}, {OUT(TL_F32, D0 | D1), OUT(TL_I32, D0 | D1)},  \
     r_scan_rows, NULL, SUMS},                                                                                       \
    {"cumsum_axis0_reverse", k_scan_cols, "-D BM=64 -D BN=32", S2D_SMALL, {0, 32}, 2, 0,                            \
     {IN(TL_F32, D0 | D1, -1, 1), IN(TL_I32, D0 | D1, -1000, 1000)}, {OUT(TL_F32, D0 | D1), OUT(TL_I32, D0 | D1)},  \
     r_scan_cols, NULL, SUMS},                                                                                       \
    /* a pair scanned along a short axis over many warps (Triton's test_scan2d, 16 warps) */                       \
    {"linrec_axis1_n2_w16", k_linrec_rows, "-D BM=1024 -D BN=2 -D AX=1 --num-warps 16", S2D_N2, {1024, 0}, 2, 0,     \
     {IN(TL_I32, D0 | D1, -1, 1), IN(TL_I32, D0 | D1, -100, 100)}, {OUT(TL_I32, D0 | D1)}, r_linrec_rows, NULL,      \
     EXACT},                                                                                                         \
    {"linrec_axis0_m1_w16", k_linrec_rows, "-D BM=1 -D BN=1024 -D AX=0 --num-warps 16", S2D_M1, {1, 1024}, 2, 0,     \
     {IN(TL_I32, D0 | D1, -1, 1), IN(TL_I32, D0 | D1, -100, 100)}, {OUT(TL_I32, D0 | D1)}, r_linrec_cols, NULL,      \
     EXACT},                                                                                                         \
    {"cumsum_axis0_reverse_w8", k_scan_cols, "-D BM=64 -D BN=32 --num-warps 8", S2D_SMALL, {0, 32}, 2, 0,           \
     {IN(TL_F32, D0 | D1, -1, 1), IN(TL_I32, D0 | D1, -1000, 1000)}, {OUT(TL_F32, D0 | D1), OUT(TL_I32, D0 | D1)},  \
     r_scan_cols, NULL, SUMS},                                                                                       \
    {"reduce_combine_xor_sum", k_reduce_fn, "-D BM=64 -D BN=64", S2D_SMALL, {0, 0}, 2, 0,                           \
     {TIES(D0 | D1), IN(TL_I32, D0 | D1, -100000, 100000)},                                                        \
     {OUT(TL_F32, D0), OUT(TL_I32, D0), OUT(TL_I32, D1), OUT(TL_I32, D1)}, r_reduce_fn, NULL, EXACT},                \
    {"histogram", k_histogram, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {I1D(-3, 40)},                             \
     {OUTC(TL_I32, 32, SENT), OUTC(TL_I32, 32, SENT)}, r_histogram, NULL, EXACT},                                    \
    {"gather_flip", k_gather_flip, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},     \
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1)}, r_gather_flip, NULL, EXACT},                \
    {"split_column_halves", k_split_halves, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0,                         \
     {IN(TL_F32, D0 | D1, -1, 1)}, {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1)}, r_split_halves, NULL, EXACT},        \
    {"sort_topk_rows", k_sort_rows, "-D BM=16 -D BN=64", S2D_SMALL, {16, 0}, 2, 0, {IN(TL_F32, D0 | D1, -1, 1)},    \
     {OUT(TL_F32, D0 | D1), OUT(TL_F32, D0 | D1), {TL_F32, D0, 8, SENT, SENT, 0}}, r_sort_rows, NULL, EXACT},        \
    {"philox_impl", k_philox_impl, B128, S1D, G1D, 1, 0, {IN(TL_I32, D0, 0, 2000000000)},                           \
     {OUT(TL_U32, D0), OUT(TL_U32, D0), OUT(TL_U32, D0)}, NULL, c_philox_impl, EXACT},                                \
    {"randint4x_philox", k_randint4x, B128, S1D, G1D, 1, 0, {{0}},                                                   \
     {OUT(TL_U32, D0), OUT(TL_U32, D0), OUT(TL_U32, D0), OUT(TL_U32, D0)}, NULL, c_randint4x, EXACT},               \
    {"rand_randn_randint", k_rand, B128, S1D, G1D, 1, 0, {{0}},                                                     \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_U32, D0), OUT(TL_F32, D0)}, NULL, c_rand, EXACT},                     \
    {"join_interleave_cat", k_join, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {F1D(-1, 1), F1D(-1, 1)},           \
     {{TL_F32, D0, 2, SENT, SENT, 0}, {TL_F32, D0, 2, SENT, SENT, 0}, {TL_F32, D0, 2, SENT, SENT, 0}}, r_join, NULL, \
     EXACT},                                                                                                         \
    {"split_broadcast", k_split, B128, S1D, G1D, 1, 0, {F1D(-1, 1), IN(TL_F32, D0, -1e30, 1e30)},                  \
     {OUT(TL_F32, D0), OUT(TL_F32, D0), OUT(TL_F32, D0)}, r_split, NULL, EXACT},                                     \
    {"sort_1d_ties", k_sort1d, "-D BLOCK=1024", S1D_SMALL, {0, 0}, 1, 0, {I1D(-20, 20)}, {OUT(TL_I32, D0)},         \
     r_sort1d, NULL, EXACT},
