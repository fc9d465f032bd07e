/* ops_scaled.h: tl.dot_scaled (compiler/sema_scaled.c), included by
 * ops_test.c, whose table takes SCALED_CASES.
 *
 * The reference decodes every format from its definition here (e2m1 as
 * sign, 2 exponent bits, 1 mantissa bit; e4m3 / e5m2 through f8_decode; the
 * e8m0 scale s as 2^(s-127), 0 as Triton's 0, 0xFF as NaN, or inf under
 * fast_math) and sums the products in double. Inputs sit on grids (multiples
 * of 1/4, fp8 codes of a few binades, scales 2^-3..2^3) small enough that
 * every partial sum of the fp32 accumulation is exact in any order: the
 * results must match bit for bit, on the GPU too. */

enum { X_E2M1, X_E4M3, X_E5M2, X_BF16, X_FP16 };

typedef struct DsCfg {
    int fa, fb;         /* formats */
    int raw_a, raw_b;   /* e4m3 / e5m2 given as uint8 codes (else as fp8 values) */
    int kpa, kpb;       /* k_pack (e2m1 only; else 1) */
    int sa, sb;         /* scales given */
    int acc;            /* in[3] is the accumulator (rhs_scale not given) */
    int nan_row, fast;  /* lhs row nan_row's second K block has scale 0xFF (-1: none); fast_math */
} DsCfg;

static double e2m1_decode(unsigned nib) {
    unsigned e = (nib >> 1) & 3, m = nib & 1;
    double v = e ? ldexp(1 + m / 2.0, (int)e - 1) : m * 0.5;
    return nib & 8 ? -v : v;
}

/* element (r, c) of an operand stored row-major with `cols` columns; e2m1
 * bytes hold two elements along K (kpack) or along the other dim */
static double ds_elem(const double *p, int fmt, int raw, int pack_rows, long r, long c, long cols) {
    if (fmt == X_E2M1) {
        unsigned byte = (unsigned)(pack_rows ? p[(r / 2) * cols + c] : p[r * (cols / 2) + c / 2]);
        long half = pack_rows ? r % 2 : c % 2;
        return e2m1_decode(half ? byte >> 4 : byte & 15);
    }
    double v = p[r * cols + c];
    if (raw)
        return f8_decode(fmt == X_E4M3 ? E4NV : E5, (unsigned)v);
    return v;
}

static double ds_scale(unsigned s, int fast) {
    if (s == 0xFF)
        return fast ? INFINITY : NAN;
    return s ? ldexp(1, (int)s - 127) : 0;
}

static void ds_ref(const long *d, double *const *in, double *const *want, const DsCfg *c) {
    long M = d[0], N = d[1], K = d[2], S = K / 32;
    for (long i = 0; i < M; i++)
        for (long j = 0; j < N; j++) {
            double sum = c->acc ? in[3][i * N + j] : 0;
            for (long k = 0; k < K; k++) {
                /* lhs M x K: packed along K (columns) unless !kpa; rhs K x N: packed along K (rows) unless !kpb */
                double a = ds_elem(in[0], c->fa, c->raw_a, !c->kpa, i, k, K);
                double b = ds_elem(in[2], c->fb, c->raw_b, c->kpb, k, j, N);
                if (c->sa) {
                    unsigned s = i == c->nan_row && k / 32 == 1 ? 0xFF : (unsigned)in[1][i * S + k / 32];
                    a *= ds_scale(s, c->fast);
                }
                if (c->sb)
                    b *= ds_scale((unsigned)in[3][j * S + k / 32], c->fast);
                sum += a * b;
            }
            want[0][i * N + j] = sum;
        }
}

#define DSREF(name, ...) \
    static void name(const long *d, double *const *in, double *const *want) { \
        static const DsCfg cfg = {__VA_ARGS__}; \
        ds_ref(d, in, want, &cfg); \
    }
/*           fa      fb      raw   kpack sa sb acc nan_row fast */
DSREF(r_ds_e2m1_e4m3, X_E2M1, X_E4M3, 0, 0, 1, 1, 1, 0, 0, -1, 0)
DSREF(r_ds_bf16_e2m1, X_BF16, X_E2M1, 0, 0, 1, 1, 0, 1, 0, -1, 0)
DSREF(r_ds_u8_u8, X_E4M3, X_E5M2, 1, 1, 1, 1, 1, 1, 0, -1, 0)
DSREF(r_ds_e5m2_e2m1, X_E5M2, X_E2M1, 0, 0, 1, 1, 1, 1, 0, -1, 0)
DSREF(r_ds_mn_pack, X_E2M1, X_E2M1, 0, 0, 0, 0, 1, 1, 0, -1, 0)
DSREF(r_ds_unscaled, X_E2M1, X_E2M1, 0, 0, 1, 1, 0, 0, 0, -1, 0)
DSREF(r_ds_fp16_e2m1, X_FP16, X_E2M1, 0, 0, 1, 1, 0, 1, 0, -1, 0)
DSREF(r_ds_acc, X_E4M3, X_BF16, 1, 0, 1, 1, 1, 0, 1, -1, 0)
DSREF(r_ds_nan, X_E4M3, X_BF16, 0, 0, 1, 1, 1, 0, 0, 5, 0)
DSREF(r_ds_nan_fast, X_E4M3, X_BF16, 0, 0, 1, 1, 1, 0, 0, 5, 1)

/* One M x N product: a stored AR x AC, b BR x BC (e2m1 packs two to a byte),
 * scales M x K/32 and N x K/32 (or the accumulator M x N at q_ptr); PREP may
 * change them before EXPR is stored. */
#define DSK(load_q, prep, expr) \
    PRE "def k(a_ptr, p_ptr, b_ptr, q_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,\n" \
    "      AR: tl.constexpr, AC: tl.constexpr, BR: tl.constexpr, BC: tl.constexpr):\n" \
    "    rm = tl.arange(0, M)\n" \
    "    rn = tl.arange(0, N)\n" \
    "    S: tl.constexpr = K // 32\n" \
    "    a = tl.load(a_ptr + tl.arange(0, AR)[:, None] * AC + tl.arange(0, AC)[None, :])\n" \
    "    b = tl.load(b_ptr + tl.arange(0, BR)[:, None] * BC + tl.arange(0, BC)[None, :])\n" \
    "    sa = tl.load(p_ptr + rm[:, None] * S + tl.arange(0, S)[None, :])\n" \
    load_q prep \
    "    tl.store(c_ptr + rm[:, None] * N + rn[None, :], " expr ")\n"
#define DSQ_SCALE "    sb = tl.load(q_ptr + rn[:, None] * S + tl.arange(0, S)[None, :])\n"
#define DSQ_ACC "    acc = tl.load(q_ptr + rm[:, None] * N + rn[None, :])\n"
#define DS_NAN_ROW "    sa = tl.where((rm[:, None] == 5) & (tl.arange(0, S)[None, :] == 1), 255, sa).to(tl.uint8)\n"

static const Dims SDS_32_64_64[] = {{{32, 64, 64}}, {{0}}};
static const Dims SDS_64_32_128[] = {{{64, 32, 128}}, {{0}}};
static const Dims SDS_16_32_64[] = {{{16, 32, 64}}, {{0}}};
static const Dims SDS_32_16_32[] = {{{32, 16, 32}}, {{0}}};
static const Dims SDS_16_16_32[] = {{{16, 16, 32}}, {{0}}};
static const Dims SDS_32_32_64[] = {{{32, 32, 64}}, {{0}}};
static const Dims SDS_64_16_64[] = {{{64, 16, 64}}, {{0}}};
static const Dims SDS_16_16_64[] = {{{16, 16, 64}}, {{0}}};

/* inputs: e2m1 bytes (any), fp8 / bf16 / fp16 values on a 1/4 grid, uint8
 * codes of e4m3 in [1, 7.5] (0x38..0x4F) and e5m2 in [1, 7] (0x3C..0x47),
 * scales 2^-3..2^3 (124..130) or narrower; the buffers may be
 * larger than what the kernel reads */
#define DS_FP4(dims) IN(TL_U8, dims, 1, 255)
#define DS_GRID(dt, dims, lo, hi) {dt, dims, 0, lo, hi, 0.25}
#define DS_SCALE(dims) IN(TL_U8, dims, 124, 130)
#define DS_SCALE_NARROW(dims) IN(TL_U8, dims, 127, 129)
#define DS_OUT {OUT(TL_F32, D0 | D1)}

#define SCALED_CASES \
    /* mxfp4 x fp8 as Triton's test_scaled_dot: lhs scaled, rhs_scale None */ \
    {"dot_scaled_e2m1_e4m3", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, sa, 'e2m1', b, None, 'e4m3')"), \
     "-D M=32 -D N=64 -D K=64 -D AR=32 -D AC=32 -D BR=64 -D BC=64", SDS_32_64_64, {0, 0}, 0, 0, \
     {DS_FP4(D0 | D2), DS_SCALE(D0 | D2), DS_GRID(TL_F8E4M3, D1 | D2, -8, 8), DS_SCALE(D1 | D2)}, DS_OUT, \
     r_ds_e2m1_e4m3, NULL, EXACT}, \
    {"dot_scaled_bf16_e2m1", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, None, 'bf16', b, sb, 'e2m1')"), \
     "-D M=64 -D N=32 -D K=128 -D AR=64 -D AC=128 -D BR=64 -D BC=32", SDS_64_32_128, {0, 0}, 0, 0, \
     {DS_GRID(TL_BF16, D0 | D2, -2, 2), DS_SCALE(D0 | D2), DS_FP4(D1 | D2), DS_SCALE(D1 | D2)}, DS_OUT, \
     r_ds_bf16_e2m1, NULL, EXACT}, \
    /* fp8 given as uint8 codes, both scaled */ \
    {"dot_scaled_e4m3_e5m2_uint8", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, sa, 'e4m3', b, sb, 'e5m2')"), \
     "-D M=16 -D N=32 -D K=64 -D AR=16 -D AC=64 -D BR=64 -D BC=32", SDS_16_32_64, {0, 0}, 0, 0, \
     {IN(TL_U8, D0 | D2, 0x38, 0x4F), DS_SCALE_NARROW(D0 | D2), IN(TL_U8, D1 | D2, 0x3C, 0x47), \
      DS_SCALE_NARROW(D1 | D2)}, DS_OUT, r_ds_u8_u8, NULL, EXACT}, \
    {"dot_scaled_e5m2_e2m1", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, sa, 'e5m2', b, sb, 'e2m1')"), \
     "-D M=32 -D N=16 -D K=32 -D AR=32 -D AC=32 -D BR=16 -D BC=16", SDS_32_16_32, {0, 0}, 0, 0, \
     {DS_GRID(TL_F8E5M2, D0 | D2, -4, 4), IN(TL_U8, D0 | D2, 125, 129), DS_FP4(D1 | D2), \
      IN(TL_U8, D1 | D2, 125, 129)}, DS_OUT, r_ds_e5m2_e2m1, NULL, EXACT}, \
    /* e2m1 packed along M (lhs, 16 x 64 bytes) and along N (rhs, 64 x 32 bytes) */ \
    {"dot_scaled_e2m1_mn_packed", \
     DSK(DSQ_SCALE, "", "tl.dot_scaled(a, sa, 'e2m1', b, sb, 'e2m1', lhs_k_pack=False, rhs_k_pack=False)"), \
     "-D M=32 -D N=64 -D K=64 -D AR=16 -D AC=64 -D BR=64 -D BC=32", SDS_32_64_64, {0, 0}, 0, 0, \
     {DS_FP4(D0 | D2), IN(TL_U8, D0 | D2, 125, 129), DS_FP4(D1 | D2), IN(TL_U8, D1 | D2, 125, 129)}, DS_OUT, \
     r_ds_mn_pack, NULL, EXACT}, \
    {"dot_scaled_e2m1_unscaled", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, None, 'e2m1', b, None, 'e2m1')"), \
     "-D M=16 -D N=16 -D K=32 -D AR=16 -D AC=16 -D BR=16 -D BC=16", SDS_16_16_32, {0, 0}, 0, 0, \
     {DS_FP4(D0 | D2), DS_SCALE(D0 | D2), DS_FP4(D1 | D2), DS_SCALE(D1 | D2)}, DS_OUT, r_ds_unscaled, NULL, EXACT}, \
    /* an fp16 operand makes fp16 the compute type (scales through fp32) */ \
    {"dot_scaled_fp16_e2m1", DSK(DSQ_SCALE, "", "tl.dot_scaled(a, None, 'fp16', b, sb, 'e2m1')"), \
     "-D M=32 -D N=32 -D K=64 -D AR=32 -D AC=64 -D BR=32 -D BC=32", SDS_32_32_64, {0, 0}, 0, 0, \
     {DS_GRID(TL_F16, D0 | D2, -2, 2), DS_SCALE(D0 | D2), DS_FP4(D1 | D2), DS_SCALE(D1 | D2)}, DS_OUT, \
     r_ds_fp16_e2m1, NULL, EXACT}, \
    {"dot_scaled_acc", DSK(DSQ_ACC, "", "tl.dot_scaled(a, sa, 'e4m3', b, None, 'bf16', acc=acc)"), \
     "-D M=64 -D N=16 -D K=64 -D AR=64 -D AC=64 -D BR=64 -D BC=16", SDS_64_16_64, {0, 0}, 0, 0, \
     {IN(TL_U8, D0 | D2, 0x38, 0x4F), DS_SCALE_NARROW(D0 | D2), DS_GRID(TL_BF16, D1 | D2, -2, 2), \
      DS_GRID(TL_F32, D0 | D1, -100, 100)}, DS_OUT, r_ds_acc, NULL, EXACT}, \
    /* a scale of 0xFF is NaN: the row's products are NaN, or x * inf under fast_math */ \
    {"dot_scaled_nan_scale", DSK(DSQ_SCALE, DS_NAN_ROW, "tl.dot_scaled(a, sa, 'e4m3', b, None, 'bf16')"), \
     "-D M=16 -D N=16 -D K=64 -D AR=16 -D AC=64 -D BR=64 -D BC=16", SDS_16_16_64, {0, 0}, 0, 0, \
     {DS_GRID(TL_F8E4M3, D0 | D2, 0.25, 8), DS_SCALE(D0 | D2), DS_GRID(TL_BF16, D1 | D2, 0.25, 2), \
      DS_SCALE(D1 | D2)}, DS_OUT, r_ds_nan, NULL, EXACT}, \
    {"dot_scaled_nan_scale_fast_math", \
     DSK(DSQ_SCALE, DS_NAN_ROW, "tl.dot_scaled(a, sa, 'e4m3', b, None, 'bf16', fast_math=True)"), \
     "-D M=16 -D N=16 -D K=64 -D AR=16 -D AC=64 -D BR=64 -D BC=16", SDS_16_16_64, {0, 0}, 0, 0, \
     {DS_GRID(TL_F8E4M3, D0 | D2, 0.25, 8), DS_SCALE(D0 | D2), DS_GRID(TL_BF16, D1 | D2, 0.25, 2), \
      DS_SCALE(D1 | D2)}, DS_OUT, r_ds_nan_fast, NULL, EXACT},
