/* interp_test.c: tests of the CPU interpreter (runtime/interp.c). Each test
 * builds a kernel with the IR builder, runs it on host buffers and compares
 * with a reference computed in plain C. Prints "[PASS] interp/NAME" or
 * "[FAIL] interp/NAME: why" per test and "N passed, N failed" at the end.
 * `interp_test --quick` skips the large cases (for sanitizer runs). */
#include "interp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int npass, nfail;
static bool quick;

static void pass(const char *name) {
    printf("[PASS] interp/%s\n", name);
    npass++;
}

static void fail(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("[FAIL] interp/%s: ", name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    nfail++;
}

/* Evaluate a check; on failure report and return false from the enclosing bool function. */
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fail(name, __VA_ARGS__);                                                               \
            return false;                                                                          \
        }                                                                                          \
    } while (0)

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
/* Uniform in [-1, 1), never zero. */
static float rand_float(void) {
    float f = (float)((double)(next_rand() >> 11) * 0x1p-52 - 1.0);
    return f == 0 ? 0.5f : f;
}

/* ---- IR building: F is the kernel being built, B the block ops go into ---- */

static Arena arena;
static Function *F;
static Block *B;
static const Span SP = {1, 1, 0, 0};

static void kernel(const char *name) {
    F = ir_func_new(&arena, name);
    B = F->body;
}

static Type ty(ValueId v) { return F->values[v].type; }
static Inst *def_of(ValueId v) { return F->values[v].def; }
static Type sc(DType dt) { return ir_scalar(dt); }
static Type v1(DType dt, int n) { return ir_block(ir_scalar(dt), 1, (int32_t[]){n}); }
static Type v2(DType dt, int m, int n) { return ir_block(ir_scalar(dt), 2, (int32_t[]){m, n}); }
/* elem's element type with shape's shape. */
static Type shaped(Type elem, Type shape) { return ir_block(elem, shape.rank, shape.shape); }


static ValueId emit(OpCode op, Type t, int n, ValueId a, ValueId b, ValueId c) {
    ValueId args[3] = {a, b, c};
    return ir_emit(F, B, op, t, args, n, SP);
}
static void emit0(OpCode op, int n, const ValueId *args) { ir_inst_new(F, B, op, args, n, NULL, 0, SP); }

static ValueId param(const char *name, Type t) { return ir_param(F, name, t); }
static ValueId ci(Type t, int64_t v) {
    ValueId r = emit(IR_CONST, t, 0, 0, 0, 0);
    def_of(r)->attr.i = v;
    return r;
}
static ValueId cf(Type t, double v) {
    ValueId r = emit(IR_CONST, t, 0, 0, 0, 0);
    def_of(r)->attr.f = v;
    return r;
}
static ValueId pid(int axis) {
    ValueId r = emit(IR_PROGRAM_ID, sc(DT_I32), 0, 0, 0, 0);
    def_of(r)->attr.axis = axis;
    return r;
}
static ValueId arange(int n) {
    ValueId r = emit(IR_ARANGE, v1(DT_I32, n), 0, 0, 0, 0);
    def_of(r)->attr.start = 0;
    def_of(r)->attr.end = n;
    return r;
}
static ValueId bin(OpCode op, ValueId a, ValueId b) { return emit(op, ty(a), 2, a, b, 0); }
static ValueId un(OpCode op, ValueId a) { return emit(op, ty(a), 1, a, 0, 0); }
static ValueId cmp(int pred, ValueId a, ValueId b) {
    ValueId r = emit(IR_CMP, ir_with_dtype(ty(a), DT_I1), 2, a, b, 0);
    def_of(r)->attr.pred = pred;
    return r;
}
static ValueId cast(ValueId v, DType dt) { return emit(IR_CAST, ir_with_dtype(ty(v), dt), 1, v, 0, 0); }
static ValueId bitcast(ValueId v, DType dt) { return emit(IR_BITCAST, ir_with_dtype(ty(v), dt), 1, v, 0, 0); }
static ValueId splat(ValueId v, Type shape) { return emit(IR_SPLAT, shaped(ty(v), shape), 1, v, 0, 0); }
static ValueId bcast(ValueId v, Type shape) { return emit(IR_BROADCAST, shaped(ty(v), shape), 1, v, 0, 0); }
static ValueId expand(ValueId v, int axis) {
    Type t = ty(v);
    int32_t shape[IR_MAX_RANK];
    for (int d = 0, s = 0; d <= t.rank; d++)
        shape[d] = d == axis ? 1 : t.shape[s++];
    ValueId r = emit(IR_EXPAND_DIMS, ir_block(t, t.rank + 1, shape), 1, v, 0, 0);
    def_of(r)->attr.axis = axis;
    return r;
}
static ValueId addptr(ValueId p, ValueId off) { return emit(IR_ADDPTR, ty(p), 2, p, off, 0); }
static ValueId load(ValueId ptr, ValueId mask, ValueId other) {
    Type t = ty(ptr);
    t.dtype = t.pointee;
    t.pointee = 0;
    ValueId r = emit(IR_LOAD, t, 1 + (mask != 0) + (other != 0), ptr, mask, other);
    def_of(r)->attr.has_mask = mask != 0;
    def_of(r)->attr.has_other = other != 0;
    return r;
}
static void store(ValueId ptr, ValueId val, ValueId mask) {
    ValueId args[3] = {ptr, val, mask};
    ir_inst_new(F, B, IR_STORE, args, mask ? 3 : 2, NULL, 0, SP);
    B->insts[B->ninsts - 1]->attr.has_mask = mask != 0;
}
/* out_ptr[k] = v for a scalar v. */
static void store_at(ValueId out, int k, ValueId v) { store(addptr(out, ci(sc(DT_I32), k)), v, 0); }
static void ret(void) { emit0(IR_RETURN, 0, NULL); }

/* base + row * stride + col over a rows x cols block (row-major, i32 offsets). */
static ValueId ptr2d(ValueId base, int rows, int cols, ValueId stride) {
    Type T = v2(DT_I32, rows, cols);
    ValueId r = expand(arange(rows), 1);
    r = bin(IR_MUL, r, splat(stride, ty(r)));
    ValueId off = bin(IR_ADD, bcast(r, T), bcast(expand(arange(cols), 0), T));
    return addptr(splat(base, T), off);
}

/* Open a region: for / while / if bodies. Returns the block; B moves into it. */
static Block *region(Inst *owner, int i) {
    Block *b = ir_block_new(F);
    owner->regions[i] = b;
    if (owner->nregions < i + 1)
        owner->nregions = i + 1;
    b->parent = owner;
    return b;
}
static void yield(int n, const ValueId *vals) { emit0(IR_YIELD, n, vals); }

static InterpStatus launch(InterpArg *args, InterpBuffer *bufs, int nbufs, unsigned gx, unsigned gy, Diag *d,
                           Buf *out) {
    InterpLaunch L = {.fn = F, .args = args, .bufs = bufs, .nbufs = nbufs, .grid = {gx, gy, 1},
                      .print_out = out, .diag = d};
    return interp_run(&L);
}

static InterpArg ptr_arg(int buf) { return (InterpArg){.buf = buf}; }
static InterpArg int_arg(int64_t v) { return (InterpArg){.i = v, .buf = -1}; }

/* Show a diagnostic log inside a failure message. */
static const char *log_of(Diag *d) { return d->out.data ? d->out.data : "(no diagnostic)"; }

/* ---- copy ---- */

/* copy_kernel(x_ptr, y_ptr, n): offs = pid * BLOCK + arange(BLOCK); y[offs] = x[offs] (masked). */
static void build_copy(int block, bool masked) {
    kernel("copy_kernel");
    ValueId x = param("x_ptr", ir_ptr(DT_F32)), y = param("y_ptr", ir_ptr(DT_F32)), n = param("n", sc(DT_I32));
    Type T = v1(DT_I32, block);
    ValueId start = bin(IR_MUL, pid(0), ci(sc(DT_I32), block));
    ValueId offs = bin(IR_ADD, splat(start, T), arange(block));
    ValueId mask = masked ? cmp(CMP_LT, offs, splat(n, T)) : 0;
    ValueId v = load(addptr(splat(x, T), offs), mask, 0);
    def_of(v)->span = (Span){3, 9, 3, 30};
    store(addptr(splat(y, T), offs), v, mask);
    ret();
}

static bool copy_case(const char *name, int n, int block) {
    build_copy(block, true);
    float *x = malloc(sizeof(float) * (size_t)n), *y = calloc((size_t)n, sizeof(float));
    for (int i = 0; i < n; i++)
        x[i] = rand_float();
    InterpBuffer bufs[2] = {{x, sizeof(float) * (size_t)n}, {y, sizeof(float) * (size_t)n}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), int_arg(n)};
    Diag d = {0};
    double t0 = now();
    InterpStatus st = launch(args, bufs, 2, (unsigned)((n + block - 1) / block), 1, &d, NULL);
    double dt = now() - t0;
    bool ok = st == INTERP_OK && memcmp(x, y, sizeof(float) * (size_t)n) == 0;
    if (st != INTERP_OK)
        fail(name, "status %d: %s", st, log_of(&d));
    else if (!ok)
        fail(name, "y differs from x");
    else if (n > 1000000 && dt > 2.0)
        fail(name, "copy of %d elements took %.2f s", n, dt), ok = false;
    if (n > 1000000)
        printf("    copy of %d floats: %.3f s\n", n, dt);
    free(x);
    free(y);
    buf_free(&d.out);
    return ok;
}

static void test_copy(void) {
    static const int sizes[] = {1, 127, 128, 129};
    char name[64];
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        snprintf(name, sizeof name, "copy_%d", sizes[i]);
        if (copy_case(name, sizes[i], 128))
            pass(name);
    }
    if (!quick && copy_case("copy_1000003", 1000003, 1024))
        pass("copy_1000003");
}

/* ---- errors ---- */

static const Source copy_src = {
    "copy.tl",
    "@triton.jit\ndef copy_kernel(x_ptr, y_ptr, n):\n    x = tl.load(x_ptr + offs)\n    tl.store(y_ptr + offs, x)\n",
    0};

static bool test_oob(void) {
    const char *name = "oob";
    Source src = copy_src;
    src.len = strlen(src.text);
    build_copy(128, false);
    F->src = &src;
    float x[129] = {0}, y[256] = {0};
    InterpBuffer bufs[2] = {{x, sizeof x}, {y, sizeof y}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), int_arg(129)};
    Diag d = {0};
    InterpStatus st = launch(args, bufs, 2, 2, 1, &d, NULL);
    CHECK(st == INTERP_OUT_OF_BOUNDS, "status %d, want out of bounds: %s", st, log_of(&d));
    const char *want = "copy.tl:3:9: error: out-of-bounds load from 'x_ptr' in program (1, 0, 0): element 1 of "
                       "the block reads byte offset 516, outside the buffer's 516 bytes (129 elements)\n"
                       "    x = tl.load(x_ptr + offs)\n"
                       "        ^~~~~~~~~~~~~~~~~~~~~\n";
    CHECK(d.out.data && strstr(d.out.data, want), "message:\n%s\nwant:\n%s", log_of(&d), want);
    CHECK(strstr(d.out.data, "element 129 of 'x_ptr'"), "no element offset note:\n%s", log_of(&d));
    buf_free(&d.out);

    /* the store side, into a too-small y */
    float y2[200];
    InterpBuffer bufs2[2] = {{y, sizeof y}, {y2, sizeof y2}};
    st = launch(args, bufs2, 2, 2, 1, &d, NULL);
    CHECK(st == INTERP_OUT_OF_BOUNDS && d.out.data &&
              strstr(d.out.data, "out-of-bounds store to 'y_ptr' in program (1, 0, 0): element 72 of the block "
                                 "writes byte offset 800, outside the buffer's 800 bytes (200 elements)"),
          "store: status %d:\n%s", st, log_of(&d));
    buf_free(&d.out);

    /* null pointer */
    InterpArg nargs[3] = {ptr_arg(-1), ptr_arg(1), int_arg(129)};
    st = launch(nargs, bufs, 2, 1, 1, &d, NULL);
    CHECK(st == INTERP_OUT_OF_BOUNDS && d.out.data && strstr(d.out.data, "null-pointer load from 'x_ptr'"),
          "null: status %d:\n%s", st, log_of(&d));
    buf_free(&d.out);

    /* misaligned base offset */
    InterpArg margs[3] = {{.buf = 0, .offset = 2}, ptr_arg(1), int_arg(129)};
    st = launch(margs, bufs, 2, 1, 1, &d, NULL);
    CHECK(st == INTERP_OUT_OF_BOUNDS && d.out.data && strstr(d.out.data, "misaligned load from 'x_ptr'") &&
              strstr(d.out.data, "byte offset 2, not a multiple of the 4-byte element size"),
          "misaligned: status %d:\n%s", st, log_of(&d));
    buf_free(&d.out);

    /* no diagnostics wanted: still the status */
    st = launch(args, bufs, 2, 2, 1, NULL, NULL);
    CHECK(st == INTERP_OUT_OF_BOUNDS, "without diag: status %d", st);
    pass(name);
    return true;
}

static bool test_bad_args(void) {
    const char *name = "bad_args";
    build_copy(128, true);
    float x[4], y[4];
    InterpBuffer bufs[2] = {{x, sizeof x}, {y, sizeof y}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), int_arg(4)};
    Diag d = {0};
    CHECK(launch(args, bufs, 2, 0, 1, &d, NULL) == INTERP_BAD_ARGS, "grid 0 accepted");
    CHECK(d.out.data && strstr(d.out.data, "zero dimension"), "grid 0 message: %s", log_of(&d));
    CHECK(launch(NULL, bufs, 2, 1, 1, &d, NULL) == INTERP_BAD_ARGS, "NULL args accepted");
    InterpArg bad[3] = {ptr_arg(0), ptr_arg(5), int_arg(4)};
    CHECK(launch(bad, bufs, 2, 1, 1, &d, NULL) == INTERP_BAD_ARGS, "buffer 5 of 2 accepted");
    CHECK(launch(args, bufs, 2, 1, 1, &d, NULL) == INTERP_OK, "good launch fails: %s", log_of(&d));
    buf_free(&d.out);
    pass(name);
    return true;
}

/* ---- integers and casts ---- */

static bool test_int_ops(void) {
    const char *name = "int_div_rem";
    kernel("ints");
    ValueId out = param("out", ir_ptr(DT_I32));
    Type I = sc(DT_I32);
    int k = 0;
    store_at(out, k++, bin(IR_DIV, ci(I, -7), ci(I, 2)));
    store_at(out, k++, bin(IR_REM, ci(I, -7), ci(I, 2)));
    store_at(out, k++, bin(IR_DIV, ci(I, 7), ci(I, -2)));
    store_at(out, k++, bin(IR_REM, ci(I, 7), ci(I, -2)));
    store_at(out, k++, bin(IR_DIV, ci(I, INT32_MIN), ci(I, -1)));
    store_at(out, k++, bin(IR_REM, ci(I, INT32_MIN), ci(I, -1)));
    store_at(out, k++, bin(IR_ADD, ci(I, INT32_MAX), ci(I, 1)));
    store_at(out, k++, bin(IR_SHR, ci(I, -8), ci(I, 1)));
    store_at(out, k++, bin(IR_SHR, ci(I, -8), ci(I, 40)));
    store_at(out, k++, bin(IR_SHL, ci(I, 1), ci(I, 32)));
    store_at(out, k++, cast(bin(IR_SHR, ci(sc(DT_U32), 0x80000000), ci(sc(DT_U32), 4)), DT_I32));
    store_at(out, k++, cast(bin(IR_DIV, ci(sc(DT_U32), -7), ci(sc(DT_U32), 2)), DT_I32));
    store_at(out, k++, cast(cast(ci(I, 300), DT_I8), DT_I32));
    store_at(out, k++, cast(cast(ci(I, 200), DT_U8), DT_I32));
    store_at(out, k++, cast(cf(sc(DT_F32), 3.9), DT_I32));
    store_at(out, k++, cast(cf(sc(DT_F32), -3.9), DT_I32));
    store_at(out, k++, cast(cf(sc(DT_F32), 1e10), DT_I32));
    store_at(out, k++, cast(cf(sc(DT_F32), -1e10), DT_I32));
    store_at(out, k++, cast(cf(sc(DT_F32), NAN), DT_I32));
    store_at(out, k++, cast(cast(cf(sc(DT_F32), -5), DT_U8), DT_I32));
    store_at(out, k++, cast(cast(ci(I, 7), DT_I1), DT_I32));
    store_at(out, k++, cast(cast(cf(sc(DT_F32), 0.25), DT_I1), DT_I32));
    store_at(out, k++, bitcast(cf(sc(DT_F32), 1.0), DT_I32));
    store_at(out, k++, un(IR_ABS, ci(I, INT32_MIN)));
    store_at(out, k++, bin(IR_MIN, ci(I, -3), ci(I, 2)));
    store_at(out, k++, cast(bin(IR_MIN, ci(sc(DT_U32), -3), ci(sc(DT_U32), 2)), DT_I32));
    store_at(out, k++, cast(un(IR_NOT, ci(sc(DT_I1), 1)), DT_I32));
    store_at(out, k++, cast(cmp(CMP_LT, ci(sc(DT_U32), -1), ci(sc(DT_U32), 1)), DT_I32));
    ret();
    static const int32_t want[] = {-3, -1, -3, 1, INT32_MIN, 0, INT32_MIN, -4, -1, 0, 0x08000000, 0x7FFFFFFC, 44, 200,
                                   3, -3, INT32_MAX, INT32_MIN, 0, 0, 1, 1, 0x3F800000, INT32_MIN, -3, 2, 0, 0};
    int32_t got[sizeof want / sizeof want[0]] = {0};
    CHECK(k == (int)(sizeof want / sizeof want[0]), "test table has %d entries for %d ops", (int)(sizeof want / 4), k);
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    for (int i = 0; i < k; i++)
        CHECK(got[i] == want[i], "case %d: got %d (0x%x), want %d", i, got[i], (unsigned)got[i], want[i]);

    /* i64 extremes: INT64_MIN / -1 wraps, u64 compare and division */
    kernel("ints64");
    out = param("out", ir_ptr(DT_I64));
    Type L = sc(DT_I64), U = sc(DT_U64);
    store_at(out, 0, bin(IR_DIV, ci(L, INT64_MIN), ci(L, -1)));
    store_at(out, 1, bin(IR_REM, ci(L, INT64_MIN), ci(L, -1)));
    store_at(out, 2, cast(bin(IR_DIV, ci(U, -2), ci(U, 2)), DT_I64));
    store_at(out, 3, cast(cast(cf(sc(DT_F64), 1e300), DT_I64), DT_I64));
    store_at(out, 4, cast(cast(ci(U, -1), DT_F32), DT_I64)); /* 2^64 as f32 -> clamps */
    store_at(out, 5, bin(IR_SHR, ci(L, INT64_MIN), ci(L, 63)));
    ret();
    int64_t got64[6];
    InterpBuffer buf64 = {got64, sizeof got64};
    st = launch(args, &buf64, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "i64 status %d: %s", st, log_of(&d));
    CHECK(got64[0] == INT64_MIN && got64[1] == 0 && got64[2] == INT64_MAX && got64[3] == INT64_MAX &&
              got64[4] == INT64_MAX && got64[5] == -1,
          "i64: %lld %lld %lld %lld %lld %lld", (long long)got64[0], (long long)got64[1], (long long)got64[2],
          (long long)got64[3], (long long)got64[4], (long long)got64[5]);

    /* integer division by zero gives 0 (as numpy does in Triton's interpreter), never a crash */
    Source src = {"div.tl", "x = a // b\n", 11};
    kernel("divzero");
    F->src = &src;
    out = param("out", ir_ptr(DT_I32));
    ValueId b = param("b", I);
    Type T = v1(DT_I32, 4);
    ValueId q = bin(IR_DIV, ci(T, 10), bin(IR_SUB, arange(4), splat(b, T)));
    def_of(q)->span = (Span){1, 5, 1, 11};
    ret();
    InterpArg dargs[2] = {ptr_arg(0), int_arg(2)};
    st = launch(dargs, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "divide by zero: status %d: %s", st, log_of(&d));
    buf_free(&d.out);
    pass(name);
    return true;
}

/* ---- floating point ---- */

static bool test_f16(void) {
    const char *name = "f16_rounding";
    static const struct { float in; uint16_t bits; } cases[] = {
        {65504.0f, 0x7BFF}, {65519.0f, 0x7BFF}, {65520.0f, 0x7C00}, {-65520.0f, 0xFC00}, {1e-8f, 0x0000},
        {1e-7f, 0x0002},    {0.1f, 0x2E66},     {1.0f, 0x3C00},     {-2.0f, 0xC000},     {0x1p-14f, 0x0400},
        {0x1p-24f, 0x0001}, {0x1p-25f, 0x0000}, {0x1.8p-25f, 0x0001}, {1.0009765625f, 0x3C01},
        {1.00048828125f, 0x3C00}, /* tie -> even */ {1.00146484375f, 0x3C02}, /* tie -> even (up) */
        {INFINITY, 0x7C00}, {-0.0f, 0x8000}, {NAN, 0x7E00},
    };
    int n = (int)(sizeof cases / sizeof cases[0]);
    for (int i = 0; i < n; i++) {
        uint16_t h = interp_f32_to_f16_bits(cases[i].in);
        CHECK(h == cases[i].bits, "f16(%g) = 0x%04x, want 0x%04x", cases[i].in, h, cases[i].bits);
        float back = interp_f16_bits_to_f32(h), r = interp_round_f16(cases[i].in);
        CHECK((isnan(back) && isnan(r)) || memcmp(&back, &r, 4) == 0, "round_f16(%g) = %g, bits say %g",
              cases[i].in, r, back);
    }
    /* every f16 bit pattern survives the round trip */
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = interp_f16_bits_to_f32((uint16_t)h);
        if (isnan(f))
            continue;
        CHECK(interp_f32_to_f16_bits(f) == h, "round trip of 0x%04x", h);
    }
    /* in a kernel: f32 -> f16 store, f16 load -> f32 */
    kernel("f16");
    ValueId x = param("x", ir_ptr(DT_F32)), y = param("y", ir_ptr(DT_F16)), z = param("z", ir_ptr(DT_F32));
    Type T = v1(DT_I32, 32);
    ValueId offs = arange(32);
    store(addptr(splat(y, T), offs), cast(load(addptr(splat(x, T), offs), 0, 0), DT_F16), 0);
    ValueId h = load(addptr(splat(y, T), offs), 0, 0);
    store(addptr(splat(z, T), offs), cast(bin(IR_ADD, h, h), DT_F32), 0);
    ret();
    float xs[32] = {0}, zs[32];
    uint16_t ys[32];
    for (int i = 0; i < n && i < 32; i++)
        xs[i] = cases[i].in;
    InterpBuffer bufs[3] = {{xs, sizeof xs}, {ys, sizeof ys}, {zs, sizeof zs}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), ptr_arg(2)};
    Diag d = {0};
    InterpStatus st = launch(args, bufs, 3, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    for (int i = 0; i < n; i++) {
        CHECK(ys[i] == cases[i].bits, "kernel f16(%g) = 0x%04x, want 0x%04x", cases[i].in, ys[i], cases[i].bits);
        float want = interp_round_f16(2.0 * interp_f16_bits_to_f32(cases[i].bits));
        CHECK((isnan(want) && isnan(zs[i])) || zs[i] == want, "h + h of 0x%04x = %g, want %g", cases[i].bits,
              zs[i], want);
    }
    pass(name);
    return true;
}

static bool test_bf16(void) {
    const char *name = "bf16_rounding";
    static const struct { float in; uint16_t bits; } cases[] = {
        {1.0f, 0x3F80}, {0.1f, 0x3DCD}, {-2.5f, 0xC020}, {0x1.01p0f, 0x3F80}, /* tie -> even */
        {0x1.03p0f, 0x3F82}, /* tie -> even (up) */ {3.4028235e38f, 0x7F80}, /* FLT_MAX -> inf */
        {0x1p-133f, 0x0001}, {INFINITY, 0x7F80}, {NAN, 0x7FC0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint16_t h = interp_f32_to_bf16_bits(cases[i].in);
        CHECK(h == cases[i].bits, "bf16(%g) = 0x%04x, want 0x%04x", cases[i].in, h, cases[i].bits);
    }
    for (unsigned h = 0; h < 0x10000; h++) {
        float f = interp_bf16_bits_to_f32((uint16_t)h);
        if (!isnan(f))
            CHECK(interp_f32_to_bf16_bits(f) == h, "round trip of 0x%04x", h);
    }
    CHECK(interp_round_tf32(1.0f + 0x1p-11f) == 1.0f && interp_round_tf32(1.0f + 0x3p-11f) == 1.0f + 0x1p-9f &&
              interp_round_tf32(1.0f + 0x1p-10f) == 1.0f + 0x1p-10f,
          "tf32 rounding");
    /* int -> bf16 rounds once, from the exact integer */
    kernel("bf16");
    ValueId y = param("y", ir_ptr(DT_BF16));
    store_at(y, 0, cast(ci(sc(DT_I32), 257), DT_BF16));     /* tie -> 256 */
    store_at(y, 1, cast(ci(sc(DT_I32), 259), DT_BF16));     /* tie -> 260 */
    store_at(y, 2, cast(cf(sc(DT_F64), 1.00390625 + 1e-12), DT_BF16)); /* just above a tie -> up */
    store_at(y, 3, bitcast(ci(sc(DT_I16), 0x4049), DT_BF16));
    ret();
    uint16_t ys[4];
    InterpBuffer buf = {ys, sizeof ys};
    InterpArg args[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    CHECK(ys[0] == 0x4380 && ys[1] == 0x4382 && ys[2] == 0x3F81 && ys[3] == 0x4049, "kernel: %04x %04x %04x %04x",
          ys[0], ys[1], ys[2], ys[3]);
    pass(name);
    return true;
}

static bool test_float_ops(void) {
    const char *name = "float_ops";
    kernel("floats");
    ValueId out = param("out", ir_ptr(DT_F32));
    Type Fs = sc(DT_F32);
    int k = 0;
    store_at(out, k++, bin(IR_DIV, cf(Fs, 1), cf(Fs, 3)));
    store_at(out, k++, bin(IR_REM, cf(Fs, -7.5), cf(Fs, 2)));
    store_at(out, k++, bin(IR_MIN, cf(Fs, NAN), cf(Fs, 2)));
    store_at(out, k++, bin(IR_MAX, cf(Fs, 1), cf(Fs, NAN)));
    store_at(out, k++, un(IR_SQRT, cf(Fs, 2)));
    store_at(out, k++, un(IR_FLOOR, cf(Fs, -1.5)));
    store_at(out, k++, un(IR_CEIL, cf(Fs, -1.5)));
    store_at(out, k++, un(IR_ABS, cf(Fs, -4)));
    store_at(out, k++, emit(IR_FMA, Fs, 3, cf(Fs, 2), cf(Fs, 3), cf(Fs, 1)));
    store_at(out, k++, cast(cmp(CMP_NE, cf(Fs, NAN), cf(Fs, NAN)), DT_F32));
    store_at(out, k++, cast(cmp(CMP_LT, cf(Fs, NAN), cf(Fs, 1)), DT_F32));
    store_at(out, k++, emit(IR_SELECT, Fs, 3, ci(sc(DT_I1), 0), cf(Fs, 1), cf(Fs, 2)));
    store_at(out, k++, cast(ci(sc(DT_I64), 16777217), DT_F32)); /* 2^24 + 1: ties to even */
    store_at(out, k++, un(IR_EXP2, cf(Fs, 10)));
    store_at(out, k++, bin(IR_MUL, cf(Fs, 3.0e38), cf(Fs, 10)));
    store_at(out, k++, cast(bin(IR_ADD, cf(sc(DT_F16), 2048), cf(sc(DT_F16), 1)), DT_F32)); /* f16 spacing 2 */
    ret();
    const float want[] = {1.0f / 3.0f, -1.5f, 2, 1, sqrtf(2), -2, -1, 4, 7, 1, 0, 2, 16777216.0f, 1024, INFINITY,
                          2048};
    float got[16];
    CHECK(k == 16, "table");
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    for (int i = 0; i < k; i++)
        CHECK(got[i] == want[i], "case %d: got %.9g, want %.9g", i, got[i], want[i]);
    pass(name);
    return true;
}

/* ---- shapes ---- */

static bool test_shapes(void) {
    const char *name = "shapes";
    kernel("shapes");
    ValueId out = param("out", ir_ptr(DT_I32));
    ValueId a = emit(IR_RESHAPE, v2(DT_I32, 2, 4), 1, arange(8), 0, 0); /* [[0 1 2 3] [4 5 6 7]] */
    ValueId t = emit(IR_TRANS, v2(DT_I32, 4, 2), 1, a, 0, 0);           /* [[0 4] [1 5] [2 6] [3 7]] */
    def_of(t)->attr.perm[0] = 1;
    def_of(t)->attr.perm[1] = 0;
    ValueId ones = ci(v2(DT_I32, 1, 8), 1);
    ValueId col = bcast(expand(arange(2), 1), v2(DT_I32, 2, 8)); /* rows 0, 1 */
    ValueId sum = bin(IR_ADD, col, bcast(ones, v2(DT_I32, 2, 8)));
    store(ptr2d(out, 4, 2, ci(sc(DT_I32), 2)), t, 0);
    store(addptr(splat(out, v2(DT_I32, 2, 8)), bin(IR_ADD, bcast(expand(arange(8), 0), v2(DT_I32, 2, 8)),
                                                   bin(IR_ADD, ci(v2(DT_I32, 2, 8), 8),
                                                       bin(IR_MUL, col, ci(v2(DT_I32, 2, 8), 8))))),
          sum, 0);
    ret();
    int32_t got[24];
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    static const int32_t want[24] = {0, 4, 1, 5, 2, 6, 3, 7, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2};
    for (int i = 0; i < 24; i++)
        CHECK(got[i] == want[i], "element %d: got %d, want %d", i, got[i], want[i]);
    pass(name);
    return true;
}

/* ---- dot ---- */

/* c = dot(a <MxK>, b <KxN>, 0) with a, b of dtype in and c f32. */
static void build_dot(DType in, int M, int N, int K, int precision) {
    kernel("dot");
    ValueId a = param("a", ir_ptr(in)), b = param("b", ir_ptr(in)), c = param("c", ir_ptr(DT_F32));
    ValueId A = load(ptr2d(a, M, K, ci(sc(DT_I32), K)), 0, 0), Bv = load(ptr2d(b, K, N, ci(sc(DT_I32), N)), 0, 0);
    ValueId acc = cf(v2(DT_F32, M, N), 0);
    ValueId r = emit(IR_DOT, v2(DT_F32, M, N), 3, A, Bv, acc);
    def_of(r)->attr.precision = precision;
    store(ptr2d(c, M, N, ci(sc(DT_I32), N)), r, 0);
    ret();
}

static bool dot_case(const char *name, DType in, int precision) {
    enum { M = 16, N = 32, K = 64 };
    build_dot(in, M, N, K, precision);
    static float a[M * K], b[K * N], c[M * N];
    static uint16_t ah[M * K], bh[K * N];
    for (int i = 0; i < M * K; i++) {
        float v = rand_float() * 4;
        a[i] = in == DT_F16 ? interp_round_f16(v) : v;
        ah[i] = interp_f32_to_f16_bits(a[i]);
    }
    for (int i = 0; i < K * N; i++) {
        float v = rand_float() * 4;
        b[i] = in == DT_F16 ? interp_round_f16(v) : v;
        bh[i] = interp_f32_to_f16_bits(b[i]);
    }
    InterpBuffer bufs[3] = {{in == DT_F16 ? (void *)ah : (void *)a, in == DT_F16 ? sizeof ah : sizeof a},
                            {in == DT_F16 ? (void *)bh : (void *)b, in == DT_F16 ? sizeof bh : sizeof b},
                            {c, sizeof c}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), ptr_arg(2)};
    Diag d = {0};
    InterpStatus st = launch(args, bufs, 3, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    bool tf32 = in == DT_F32 && precision == PREC_TF32;
    int differs_from_ieee = 0;
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            double ref = 0, mag = 0;
            float acc = 0, ieee = 0;
            for (int k = 0; k < K; k++) {
                float x = a[i * K + k], y = b[k * N + j];
                ref += (double)x * y;
                mag += fabs((double)x * y);
                ieee = fmaf(x, y, ieee);
                if (tf32)
                    acc = fmaf(interp_round_tf32(x), interp_round_tf32(y), acc);
                else
                    acc = fmaf(x, y, acc);
            }
            float got = c[i * N + j];
            CHECK(got == acc, "c[%d][%d] = %.9g, want %.9g (f32 accumulation in k order)", i, j, got, acc);
            double tol = (tf32 ? 2e-3 : 1e-5) * mag + 1e-6;
            CHECK(fabs(got - ref) <= tol, "c[%d][%d] = %.9g, reference %.9g", i, j, got, ref);
            differs_from_ieee += got != ieee;
        }
    if (tf32)
        CHECK(differs_from_ieee > 0, "tf32 results equal the IEEE ones: inputs not rounded?");
    pass(name);
    return true;
}

static void test_dot(void) {
    dot_case("dot_f16", DT_F16, PREC_TF32);
    dot_case("dot_f32_ieee", DT_F32, PREC_IEEE);
    dot_case("dot_f32_tf32", DT_F32, PREC_TF32);
}

/* 512^3 fp32 matmul, 64x64x32 blocks: for loop with carried acc and pointers. */
static bool test_matmul(void) {
    const char *name = "matmul_512";
    enum { S = 512, BM = 64, BN = 64, BK = 32 };
    kernel("matmul_kernel");
    ValueId a = param("a_ptr", ir_ptr(DT_F32)), b = param("b_ptr", ir_ptr(DT_F32)), c = param("c_ptr", ir_ptr(DT_F32));
    ValueId Mv = param("M", sc(DT_I32)), Nv = param("N", sc(DT_I32)), Kv = param("K", sc(DT_I32));
    Type I = sc(DT_I32);
    ValueId rm = bin(IR_ADD, splat(bin(IR_MUL, pid(0), ci(I, BM)), v1(DT_I32, BM)), arange(BM));
    ValueId rn = bin(IR_ADD, splat(bin(IR_MUL, pid(1), ci(I, BN)), v1(DT_I32, BN)), arange(BN));
    ValueId rk = arange(BK);
    Type TA = v2(DT_I32, BM, BK), TB = v2(DT_I32, BK, BN), TC = v2(DT_I32, BM, BN);
    ValueId aoff = bin(IR_ADD, bcast(bin(IR_MUL, expand(rm, 1), splat(Kv, v2(DT_I32, BM, 1))), TA), bcast(expand(rk, 0), TA));
    ValueId boff = bin(IR_ADD, bcast(bin(IR_MUL, expand(rk, 1), splat(Nv, v2(DT_I32, BK, 1))), TB), bcast(expand(rn, 0), TB));
    ValueId inits[3] = {cf(v2(DT_F32, BM, BN), 0), addptr(splat(a, TA), aoff), addptr(splat(b, TB), boff)};
    ValueId fargs[6] = {ci(I, 0), Kv, ci(I, BK), inits[0], inits[1], inits[2]};
    Type rt[3] = {ty(inits[0]), ty(inits[1]), ty(inits[2])};
    Inst *loop = ir_inst_new(F, B, IR_FOR, fargs, 6, rt, 3, SP);
    Block *outer = B;
    B = region(loop, 0);
    ir_block_arg(F, B, I);
    ValueId acc = ir_block_arg(F, B, rt[0]), ap = ir_block_arg(F, B, rt[1]), bp = ir_block_arg(F, B, rt[2]);
    ValueId prod = emit(IR_DOT, rt[0], 3, load(ap, 0, 0), load(bp, 0, 0), acc);
    ValueId ys[3] = {prod, addptr(ap, ci(TA, BK)), addptr(bp, splat(bin(IR_MUL, Nv, ci(I, BK)), TB))};
    yield(3, ys);
    B = outer;
    ValueId accv = loop->results[0];
    ValueId coff = bin(IR_ADD, bcast(bin(IR_MUL, expand(rm, 1), splat(Nv, v2(DT_I32, BM, 1))), TC), bcast(expand(rn, 0), TC));
    ValueId mask = bin(IR_AND, bcast(expand(cmp(CMP_LT, rm, splat(Mv, v1(DT_I32, BM))), 1), v2(DT_I1, BM, BN)),
                       bcast(expand(cmp(CMP_LT, rn, splat(Nv, v1(DT_I32, BN))), 0), v2(DT_I1, BM, BN)));
    store(addptr(splat(c, TC), coff), accv, mask);
    ret();

    float *A = malloc(sizeof(float) * S * S), *Bm = malloc(sizeof(float) * S * S), *C = calloc(S * S, sizeof(float));
    for (int i = 0; i < S * S; i++) {
        A[i] = rand_float();
        Bm[i] = rand_float();
    }
    InterpBuffer bufs[3] = {{A, sizeof(float) * S * S}, {Bm, sizeof(float) * S * S}, {C, sizeof(float) * S * S}};
    InterpArg args[6] = {ptr_arg(0), ptr_arg(1), ptr_arg(2), int_arg(S), int_arg(S), int_arg(S)};
    Diag d = {0};
    double t0 = now();
    InterpStatus st = launch(args, bufs, 3, S / BM, S / BN, &d, NULL);
    double dt = now() - t0;
    printf("    512x512x512 fp32 matmul (64x64x32 blocks): %.3f s\n", dt);
    bool ok = st == INTERP_OK;
    if (!ok)
        fail(name, "status %d: %s", st, log_of(&d));
    for (int i = 0; i < S && ok; i++)
        for (int j = 0; j < S && ok; j++) {
            float acc0 = 0;
            for (int k = 0; k < S; k++)
                acc0 = fmaf(A[i * S + k], Bm[k * S + j], acc0);
            if (C[i * S + j] != acc0) {
                fail(name, "C[%d][%d] = %.9g, want %.9g", i, j, C[i * S + j], acc0);
                ok = false;
            }
        }
    if (ok && dt > 10) {
        fail(name, "took %.2f s", dt);
        ok = false;
    }
    if (ok)
        pass(name);
    free(A);
    free(Bm);
    free(C);
    buf_free(&d.out);
    return ok;
}

/* ---- reductions ---- */

static ValueId reduce(ValueId x, int kind, int axis, bool keep, DType rdt) {
    Type t = ty(x);
    int32_t shape[IR_MAX_RANK];
    int r = 0;
    for (int d = 0; d < t.rank; d++)
        if (d != axis)
            shape[r++] = t.shape[d];
        else if (keep)
            shape[r++] = 1;
    ValueId v = emit(IR_REDUCE, ir_block(sc(rdt), r, shape), 1, x, 0, 0);
    def_of(v)->attr.reduce = kind;
    def_of(v)->attr.axis = axis;
    def_of(v)->attr.keep_dims = keep;
    return v;
}

static bool test_reduce(void) {
    const char *name = "reduce";
    enum { R = 4, C = 8 };
    kernel("reduce");
    ValueId x = param("x", ir_ptr(DT_F32)), xi = param("xi", ir_ptr(DT_I32)), o = param("o", ir_ptr(DT_F32)),
            oi = param("oi", ir_ptr(DT_I32));
    ValueId X = load(ptr2d(x, R, C, ci(sc(DT_I32), C)), 0, 0), XI = load(ptr2d(xi, R, C, ci(sc(DT_I32), C)), 0, 0);
    store(addptr(splat(o, v1(DT_I32, C)), arange(C)), reduce(X, RED_SUM, 0, false, DT_F32), 0);
    store(ptr2d(addptr(o, ci(sc(DT_I32), C)), R, 1, ci(sc(DT_I32), 1)), reduce(X, RED_MAX, 1, true, DT_F32), 0);
    store(addptr(splat(addptr(o, ci(sc(DT_I32), C + R)), v1(DT_I32, R)), arange(R)), reduce(X, RED_MIN, 1, false, DT_F32), 0);
    store(addptr(splat(oi, v1(DT_I32, R)), arange(R)), reduce(XI, RED_ARGMAX, 1, false, DT_I32), 0);
    store(addptr(splat(addptr(oi, ci(sc(DT_I32), R)), v1(DT_I32, C)), arange(C)), reduce(XI, RED_ARGMIN, 0, false, DT_I32), 0);
    store_at(oi, R + C, reduce(reduce(XI, RED_SUM, 1, false, DT_I32), RED_SUM, 0, false, DT_I32));
    ret();
    float xs[R * C], os[C + 2 * R];
    int32_t xis[R * C] = {
        3, 9, 9, 1, 0, 0, 5, 9,    /* argmax 1 (first of the ties) */
        -1, -2, -3, -4, -5, -6, -7, -7,
        7, 7, 7, 7, 7, 7, 7, 7,
        0, 0, 0, 0, 0, 0, 0, 100,
    };
    int32_t ois[R + C + 1];
    for (int i = 0; i < R * C; i++)
        xs[i] = (float)((i * 37) % 23) - 11.5f;
    InterpBuffer bufs[4] = {{xs, sizeof xs}, {xis, sizeof xis}, {os, sizeof os}, {ois, sizeof ois}};
    InterpArg args[4] = {ptr_arg(0), ptr_arg(1), ptr_arg(2), ptr_arg(3)};
    Diag d = {0};
    InterpStatus st = launch(args, bufs, 4, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    for (int j = 0; j < C; j++) {
        float s = 0;
        for (int i = 0; i < R; i++)
            s += xs[i * C + j];
        CHECK(os[j] == s, "sum(axis 0)[%d] = %g, want %g", j, os[j], s);
    }
    for (int i = 0; i < R; i++) {
        float mx = -INFINITY, mn = INFINITY;
        for (int j = 0; j < C; j++) {
            mx = fmaxf(mx, xs[i * C + j]);
            mn = fminf(mn, xs[i * C + j]);
        }
        CHECK(os[C + i] == mx && os[C + R + i] == mn, "row %d: max %g min %g, want %g %g", i, os[C + i], os[C + R + i],
              mx, mn);
    }
    static const int32_t argmax[R] = {1, 0, 0, 7}, argmin[C] = {1, 1, 1, 1, 1, 1, 1, 1};
    int total = 0;
    for (int i = 0; i < R * C; i++)
        total += xis[i];
    for (int i = 0; i < R; i++)
        CHECK(ois[i] == argmax[i], "argmax row %d = %d, want %d", i, ois[i], argmax[i]);
    for (int j = 0; j < C; j++)
        CHECK(ois[R + j] == argmin[j], "argmin col %d = %d, want %d", j, ois[R + j], argmin[j]);
    CHECK(ois[R + C] == total, "total %d, want %d", ois[R + C], total);
    pass(name);
    return true;
}

/* ---- control flow ---- */

static bool test_for(void) {
    const char *name = "for_loop";
    kernel("loops");
    ValueId out = param("out", ir_ptr(DT_I32));
    ValueId n = param("n", sc(DT_I32));
    Type I = sc(DT_I32);
    /* s = 0; fa, fb = 0, 1; for i in range(0, n): s += i; fa, fb = fb, fa + fb */
    ValueId fargs[6] = {ci(I, 0), n, ci(I, 1), ci(I, 0), ci(I, 0), ci(I, 1)};
    Type rt[3] = {I, I, I};
    Inst *loop = ir_inst_new(F, B, IR_FOR, fargs, 6, rt, 3, SP);
    Block *outer = B;
    B = region(loop, 0);
    ValueId iv = ir_block_arg(F, B, I);
    ValueId s = ir_block_arg(F, B, I), fa = ir_block_arg(F, B, I), fb = ir_block_arg(F, B, I);
    ValueId ys[3] = {bin(IR_ADD, s, iv), fb, bin(IR_ADD, fa, fb)};
    yield(3, ys);
    B = outer;
    store_at(out, 0, loop->results[0]);
    store_at(out, 1, loop->results[1]);
    /* for i in range(1, 11, 3) with a block carried value, swapped with another */
    Type T = v1(DT_I32, 4);
    ValueId gargs[5] = {ci(I, 1), ci(I, 11), ci(I, 3), arange(4), ci(T, 100)};
    Type rt2[2] = {T, T};
    Inst *loop2 = ir_inst_new(F, B, IR_FOR, gargs, 5, rt2, 2, SP);
    B = region(loop2, 0);
    ValueId iv2 = ir_block_arg(F, B, I);
    ValueId p = ir_block_arg(F, B, T), q = ir_block_arg(F, B, T);
    ValueId ys2[2] = {q, bin(IR_ADD, p, splat(iv2, T))}; /* p, q = q, p + i */
    yield(2, ys2);
    B = outer;
    store(addptr(splat(addptr(out, ci(I, 2)), T), arange(4)), loop2->results[0], 0);
    store(addptr(splat(addptr(out, ci(I, 6)), T), arange(4)), loop2->results[1], 0);
    /* zero-trip loop: results are the inits */
    ValueId hargs[4] = {ci(I, 5), ci(I, 5), ci(I, 1), ci(I, 42)};
    Inst *loop3 = ir_inst_new(F, B, IR_FOR, hargs, 4, rt, 1, SP);
    B = region(loop3, 0);
    ir_block_arg(F, B, I);
    ValueId c = ir_block_arg(F, B, I);
    ValueId ys3[1] = {bin(IR_ADD, c, ci(I, 1))};
    yield(1, ys3);
    B = outer;
    store_at(out, 10, loop3->results[0]);
    ret();
    int32_t got[11];
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[2] = {ptr_arg(0), int_arg(10)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    CHECK(got[0] == 45 && got[1] == 55, "sum %d (want 45), fib %d (want 55)", got[0], got[1]);
    /* i = 1, 4, 7, 10: (p, q) -> (q, p + i) four times */
    int32_t p0[4], q0[4];
    for (int i = 0; i < 4; i++)
        p0[i] = i, q0[i] = 100;
    for (int it = 1; it < 11; it += 3)
        for (int i = 0; i < 4; i++) {
            int32_t t = q0[i];
            q0[i] = p0[i] + it;
            p0[i] = t;
        }
    for (int i = 0; i < 4; i++)
        CHECK(got[2 + i] == p0[i] && got[6 + i] == q0[i], "lane %d: (%d, %d), want (%d, %d)", i, got[2 + i],
              got[6 + i], p0[i], q0[i]);
    CHECK(got[10] == 42, "zero-trip loop gave %d", got[10]);
    pass(name);
    return true;
}

static bool test_if(void) {
    const char *name = "if";
    kernel("branch");
    ValueId out = param("out", ir_ptr(DT_I32));
    Type I = sc(DT_I32);
    ValueId p = pid(0);
    ValueId cond = cmp(CMP_EQ, p, ci(I, 0));
    Type rt[1] = {I};
    Inst *br = ir_inst_new(F, B, IR_IF, &cond, 1, rt, 1, SP);
    Block *outer = B;
    B = region(br, 0);
    ValueId y1 = ci(I, 10);
    yield(1, &y1);
    B = region(br, 1);
    ValueId y2 = bin(IR_ADD, ci(I, 20), p);
    yield(1, &y2);
    B = outer;
    store(addptr(out, p), br->results[0], 0);
    /* an if without else and without results, whose then-block returns early */
    ValueId c2 = cmp(CMP_EQ, p, ci(I, 2));
    Inst *br2 = ir_inst_new(F, B, IR_IF, &c2, 1, NULL, 0, SP);
    B = region(br2, 0);
    ret();
    B = outer;
    store(addptr(out, bin(IR_ADD, p, ci(I, 4))), ci(I, 7), 0);
    ret();
    int32_t got[8] = {0};
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 4, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    static const int32_t want[8] = {10, 21, 22, 23, 7, 7, 0, 7};
    for (int i = 0; i < 8; i++)
        CHECK(got[i] == want[i], "out[%d] = %d, want %d", i, got[i], want[i]);
    pass(name);
    return true;
}

static bool test_while(void) {
    const char *name = "while_loop";
    kernel("whiles");
    ValueId out = param("out", ir_ptr(DT_I32));
    ValueId lim = param("limit", sc(DT_I32));
    Type I = sc(DT_I32);
    /* x, n = 1, 0; while x < limit: x, n = x * 3, n + 1 */
    ValueId inits[2] = {ci(I, 1), ci(I, 0)};
    Type rt[2] = {I, I};
    Inst *w = ir_inst_new(F, B, IR_WHILE, inits, 2, rt, 2, SP);
    Block *outer = B;
    B = region(w, 0);
    ValueId x = ir_block_arg(F, B, I), n = ir_block_arg(F, B, I);
    ValueId cargs[3] = {cmp(CMP_LT, x, lim), x, n};
    emit0(IR_CONDITION, 3, cargs);
    B = region(w, 1);
    ValueId x2 = ir_block_arg(F, B, I), n2 = ir_block_arg(F, B, I);
    ValueId ys[2] = {bin(IR_MUL, x2, ci(I, 3)), bin(IR_ADD, n2, ci(I, 1))};
    yield(2, ys);
    B = outer;
    store_at(out, 0, w->results[0]);
    store_at(out, 1, w->results[1]);
    ret();
    int32_t got[2];
    InterpBuffer buf = {got, sizeof got};
    InterpArg args[2] = {ptr_arg(0), int_arg(1000)};
    Diag d = {0};
    InterpStatus st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    CHECK(got[0] == 2187 && got[1] == 7, "x = %d (want 2187), n = %d (want 7)", got[0], got[1]);
    args[1] = int_arg(0); /* zero iterations */
    st = launch(args, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK && got[0] == 1 && got[1] == 0, "zero-trip: x = %d, n = %d", got[0], got[1]);
    pass(name);
    return true;
}

/* ---- atomics ---- */

static ValueId atomic(int rmw, ValueId ptr, ValueId val, ValueId mask) {
    Type t = ty(ptr);
    t.dtype = t.pointee;
    t.pointee = 0;
    ValueId r = emit(IR_ATOMIC_RMW, t, mask ? 3 : 2, ptr, val, mask);
    def_of(r)->attr.rmw = rmw;
    def_of(r)->attr.has_mask = mask != 0;
    return r;
}

static bool test_atomics(void) {
    const char *name = "atomics";
    kernel("atomics");
    ValueId ci_ = param("counts", ir_ptr(DT_I32)), fs = param("fsum", ir_ptr(DT_F32)), old = param("old", ir_ptr(DT_I32));
    Type I = sc(DT_I32), T = v1(DT_I32, 4);
    ValueId p = pid(0);
    atomic(RMW_ADD, ci_, ci(I, 1), 0);                          /* counts[0] = 64 */
    atomic(RMW_MAX, addptr(ci_, ci(I, 1)), p, 0);              /* counts[1] = 63 */
    atomic(RMW_MIN, addptr(ci_, ci(I, 2)), bin(IR_SUB, ci(I, 100), p), 0); /* 37 */
    atomic(RMW_ADD, fs, cast(p, DT_F32), 0);                    /* 2016 */
    atomic(RMW_XOR, addptr(ci_, ci(I, 3)), ci(I, 1), 0);        /* 64 flips: 0 */
    /* program 0 only: four lanes on one address return 0, 1, 2, 3; lane 3 masked off */
    ValueId is0 = cmp(CMP_EQ, p, ci(I, 0));
    Inst *br = ir_inst_new(F, B, IR_IF, &is0, 1, NULL, 0, SP);
    Block *outer = B;
    B = region(br, 0);
    ValueId same = splat(addptr(ci_, ci(I, 4)), T);
    ValueId mask = cmp(CMP_LT, arange(4), ci(T, 3));
    ValueId o = atomic(RMW_ADD, same, ci(T, 1), mask);
    store(addptr(splat(old, T), arange(4)), o, 0);
    ValueId cas1 = emit(IR_ATOMIC_CAS, I, 3, addptr(ci_, ci(I, 5)), ci(I, 0), ci(I, 5));
    ValueId cas2 = emit(IR_ATOMIC_CAS, I, 3, addptr(ci_, ci(I, 5)), ci(I, 0), ci(I, 7));
    store_at(old, 4, cas1);
    store_at(old, 5, cas2);
    store_at(old, 6, atomic(RMW_XCHG, addptr(ci_, ci(I, 6)), ci(I, 9), 0));
    B = outer;
    ret();
    int32_t counts[7] = {0, -1, 1000, 0, 0, 0, 3}, olds[7];
    float fsum = 0;
    InterpBuffer bufs[3] = {{counts, sizeof counts}, {&fsum, sizeof fsum}, {olds, sizeof olds}};
    InterpArg args[3] = {ptr_arg(0), ptr_arg(1), ptr_arg(2)};
    Diag d = {0};
    InterpStatus st = launch(args, bufs, 3, 64, 1, &d, NULL);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    CHECK(counts[0] == 64 && counts[1] == 63 && counts[2] == 37 && counts[3] == 0 && fsum == 2016.0f,
          "counts %d %d %d %d, fsum %g", counts[0], counts[1], counts[2], counts[3], fsum);
    CHECK(olds[0] == 0 && olds[1] == 1 && olds[2] == 2 && olds[3] == 0 && counts[4] == 3,
          "block atomic returned %d %d %d %d, total %d", olds[0], olds[1], olds[2], olds[3], counts[4]);
    CHECK(olds[4] == 0 && olds[5] == 5 && counts[5] == 5, "cas: %d %d -> %d", olds[4], olds[5], counts[5]);
    CHECK(olds[6] == 3 && counts[6] == 9, "xchg: %d -> %d", olds[6], counts[6]);
    pass(name);
    return true;
}

/* ---- debugging ---- */

static bool test_print(void) {
    const char *name = "print";
    kernel("printer");
    ValueId p = pid(0);
    ValueId v = bin(IR_ADD, arange(4), splat(bin(IR_MUL, p, ci(sc(DT_I32), 10)), v1(DT_I32, 4)));
    ValueId args1[1] = {v};
    ir_inst_new(F, B, IR_PRINT, args1, 1, NULL, 0, SP);
    B->insts[B->ninsts - 1]->attr.str = "x";
    ValueId args2[2] = {cf(sc(DT_F32), 1.5), cast(ci(sc(DT_I32), -1), DT_U8)};
    ir_inst_new(F, B, IR_PRINT, args2, 2, NULL, 0, SP);
    B->insts[B->ninsts - 1]->attr.str = "vals: ";
    ValueId args3[1] = {ci(v2(DT_F16, 1, 16), 1.0)};
    ir_inst_new(F, B, IR_PRINT, args3, 1, NULL, 0, SP);
    B->insts[B->ninsts - 1]->attr.hex = true;
    def_of(args3[0])->attr.f = 1.0;
    ret();
    Buf out = {0};
    Diag d = {0};
    InterpStatus st = launch(NULL, NULL, 0, 2, 1, &d, &out);
    CHECK(st == INTERP_OK, "status %d: %s", st, log_of(&d));
    const char *want_head = "pid (0, 0, 0) idx (0) x: 0\n"
                            "pid (0, 0, 0) idx (1) x: 1\n"
                            "pid (0, 0, 0) idx (2) x: 2\n"
                            "pid (0, 0, 0) idx (3) x: 3\n"
                            "pid (0, 0, 0) idx () vals: (operand 0) 1.500000\n"
                            "pid (0, 0, 0) idx () vals: (operand 1) 255\n"
                            "pid (0, 0, 0) idx (0,  0): 0x3c00\n";
    CHECK(out.data && !strncmp(out.data, want_head, strlen(want_head)), "output:\n%s\nwant it to start with:\n%s",
          out.data ? out.data : "", want_head);
    CHECK(strstr(out.data, "pid (0, 0, 0) idx (0, 15): 0x3c00\npid (1, 0, 0) idx (0) x: 10\n"), "output:\n%s",
          out.data);
    buf_free(&out);
    pass(name);
    return true;
}

static bool test_assert(void) {
    const char *name = "assert";
    Source src = {"a.tl", "    tl.device_assert(x > 0, \"x must be positive\")\n", 0};
    src.len = strlen(src.text);
    kernel("asserts");
    F->src = &src;
    ValueId x = param("x", ir_ptr(DT_I32));
    Type T = v2(DT_I32, 2, 4);
    ValueId v = load(ptr2d(x, 2, 4, ci(sc(DT_I32), 4)), 0, 0);
    ValueId args[1] = {cmp(CMP_GT, v, ci(T, 0))};
    Inst *a = ir_inst_new(F, B, IR_ASSERT, args, 1, NULL, 0, (Span){1, 5, 1, 53});
    a->attr.str = "x must be positive";
    ret();
    int32_t xs[8] = {1, 2, 3, 4, 5, 6, 0, 8};
    InterpBuffer buf = {xs, sizeof xs};
    InterpArg ia[1] = {ptr_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(ia, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_ASSERT && d.out.data &&
              strstr(d.out.data, "a.tl:1:5: error: device assertion failed: x must be positive (program (0, 0, 0), "
                                 "element (1, 2))"),
          "status %d:\n%s", st, log_of(&d));
    buf_free(&d.out);
    xs[6] = 7;
    st = launch(ia, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "passing assert: status %d: %s", st, log_of(&d));
    pass(name);
    return true;
}

/* tl.assume(n > 0): the interpreter checks the promise, as Triton's does;
 * the intrinsics of tl.extra.cuda: smid 0, globaltimer a clock that does
 * not go back, gdc_* nothing. */
static bool test_assume_intrinsics(void) {
    const char *name = "assume_intrinsics";
    Source src = {"a.tl", "    tl.assume(n > 0)\n", 0};
    src.len = strlen(src.text);
    kernel("assumes");
    F->src = &src;
    ValueId out = param("out", ir_ptr(DT_I64));
    ValueId n = param("n", sc(DT_I32));
    ValueId c = cmp(CMP_GT, n, ci(sc(DT_I32), 0));
    ir_inst_new(F, B, IR_ASSUME, &c, 1, NULL, 0, (Span){1, 5, 1, 23});
    Type i64 = sc(DT_I64), i32 = sc(DT_I32);
    Inst *w = ir_inst_new(F, B, IR_INTRINSIC, NULL, 0, NULL, 0, (Span){1, 1, 0, 0});
    w->attr.str = "gdc_wait";
    Inst *t0 = ir_inst_new(F, B, IR_INTRINSIC, NULL, 0, &i64, 1, (Span){1, 1, 0, 0});
    t0->attr.str = "globaltimer";
    Inst *sm = ir_inst_new(F, B, IR_INTRINSIC, NULL, 0, &i32, 1, (Span){1, 1, 0, 0});
    sm->attr.str = "smid";
    Inst *t1 = ir_inst_new(F, B, IR_INTRINSIC, NULL, 0, &i64, 1, (Span){1, 1, 0, 0});
    t1->attr.str = "globaltimer";
    ValueId st0[2] = {out, t0->results[0]};
    ir_inst_new(F, B, IR_STORE, st0, 2, NULL, 0, (Span){1, 1, 0, 0});
    ValueId p1 = ir_emit(F, B, IR_ADDPTR, ir_ptr(DT_I64), (ValueId[]){out, ci(i32, 1)}, 2, (Span){1, 1, 0, 0});
    ir_inst_new(F, B, IR_STORE, (ValueId[]){p1, t1->results[0]}, 2, NULL, 0, (Span){1, 1, 0, 0});
    ValueId p2 = ir_emit(F, B, IR_ADDPTR, ir_ptr(DT_I64), (ValueId[]){out, ci(i32, 2)}, 2, (Span){1, 1, 0, 0});
    ValueId sm64 = ir_emit(F, B, IR_CAST, i64, &sm->results[0], 1, (Span){1, 1, 0, 0});
    ir_inst_new(F, B, IR_STORE, (ValueId[]){p2, sm64}, 2, NULL, 0, (Span){1, 1, 0, 0});
    ret();
    int64_t o[3] = {-1, -1, -1};
    InterpBuffer buf = {o, sizeof o};
    InterpArg ia[2] = {ptr_arg(0), int_arg(0)};
    Diag d = {0};
    InterpStatus st = launch(ia, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_ASSERT && d.out.data &&
              strstr(d.out.data, "a.tl:1:5: error: the condition of tl.assume is false (program (0, 0, 0))"),
          "status %d:\n%s", st, log_of(&d));
    buf_free(&d.out);
    ia[1] = int_arg(5);
    st = launch(ia, &buf, 1, 1, 1, &d, NULL);
    CHECK(st == INTERP_OK, "holding assume: status %d: %s", st, log_of(&d));
    CHECK(o[0] > 0 && o[1] >= o[0] && o[2] == 0, "globaltimer %lld then %lld, smid %lld", (long long)o[0],
          (long long)o[1], (long long)o[2]);
    pass(name);
    return true;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--quick"))
            quick = true;
    test_copy();
    test_oob();
    test_bad_args();
    test_int_ops();
    test_f16();
    test_bf16();
    test_float_ops();
    test_shapes();
    test_dot();
    if (!quick)
        test_matmul();
    test_reduce();
    test_for();
    test_if();
    test_while();
    test_atomics();
    test_print();
    test_assert();
    test_assume_intrinsics();
    arena_free(&arena);
    printf("%d passed, %d failed\n", npass, nfail);
    return nfail != 0;
}
