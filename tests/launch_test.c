/* launch_test.c: launches are checked against what the compiler says the
 * kernel expects, on whatever device the context gets (tests/api.sh runs it
 * in the interpreter, tests/gpu.sh on the GPU). Each mismatch is refused with
 * a message naming the argument; each accepted launch is checked against a C
 * reference at ragged sizes. Also: the kernel-info queries, raw pointers,
 * streams, tl_last_error clearing, and inputs that used to hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

static int failures;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] launch/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static int contains(const char *hay, const char *needle) { return hay && strstr(hay, needle) != NULL; }

/* z = x * a + b over n elements. */
static const char *axpb_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def axpb(x_ptr, z_ptr, a, b, n, BS: \"tl.constexpr\"):\n"
    "    offs = tl.program_id(0) * BS + tl.arange(0, BS)\n"
    "    mask = offs < n\n"
    "    x = tl.load(x_ptr + offs, mask=mask)\n"
    "    tl.store(z_ptr + offs, x * a + b, mask=mask)\n";

static TlContext *ctx;

/* The same kernel, tuned over three block sizes, with a reset_to_zero output
 * (it accumulates, so a run that did not start from zero would be wrong). */
static const char *tuned_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.autotune(configs=[triton.Config({'BS': 32}, num_warps=1), triton.Config({'BS': 128}, num_warps=4),\n"
    "                          triton.Config({'BS': 256}, num_warps=8, num_stages=2)],\n"
    "                 key=['n'], reset_to_zero=['z_ptr'])\n"
    "@triton.jit\n"
    "def acc(x_ptr, z_ptr, a, n, BS: tl.constexpr):\n"
    "    offs = tl.program_id(0) * BS + tl.arange(0, BS)\n"
    "    mask = offs < n\n"
    "    tl.atomic_add(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) * a, mask=mask)\n";

static TlStatus grid_cb(void *user, const TlKernel *config, const TlArg *args, int nargs, unsigned grid[3]) {
    int64_t bs;
    TlStatus s = tl_kernel_constant_int(config, "BS", &bs);
    if (s != TL_SUCCESS)
        return s;
    *(int *)user += 1;
    grid[0] = (unsigned)((args[nargs - 1].v.i + bs - 1) / bs);
    grid[1] = grid[2] = 1;
    return TL_SUCCESS;
}

static float xs[1031];

/* Run k over n elements and compare z with x * a + b for i < n and with the
 * sentinel past n (nothing written there). */
static int run_axpb(TlKernel *k, TlBuffer *x, TlBuffer *z, const TlArg *args, int nargs, int n, float a, float b,
                    const char *name) {
    float sentinel[1031], out[1031];
    for (int i = 0; i < 1031; i++)
        sentinel[i] = -7.0f;
    tl_buffer_write(z, 0, sentinel, sizeof sentinel);
    unsigned grid[3] = {(unsigned)(n + 63) / 64, 1, 1};
    TlStatus s = tl_launch(k, grid, args, nargs);
    if (s != TL_SUCCESS) {
        check(name, 0, tl_last_error(ctx));
        return 0;
    }
    tl_buffer_read(z, 0, out, sizeof out);
    for (int i = 0; i < 1031; i++) {
        float want = i < n ? xs[i] * a + b : -7.0f;
        if (out[i] != want) {
            char msg[128];
            snprintf(msg, sizeof msg, "z[%d] = %g, want %g (n = %d)", i, out[i], want, n);
            check(name, 0, msg);
            return 0;
        }
    }
    check(name, 1, NULL);
    (void)x;
    return 1;
}

int main(void) {
    TlStatus s = tl_context_create(TL_DEVICE_AUTO, &ctx);
    if (s != TL_SUCCESS) {
        printf("[FAIL] launch/context: %s\n", tl_status_name(s));
        return 1;
    }
    int gpu = tl_context_device(ctx) == TL_DEVICE_CUDA;
    printf("device: %s\n", tl_context_device_name(ctx));
    for (int i = 0; i < 1031; i++)
        xs[i] = (float)((i * 37) % 101) * 0.25f - 3.0f;
    TlBuffer *x, *z, *h, *zi;
    tl_buffer_create(ctx, TL_F32, 1031, &x);
    tl_buffer_create(ctx, TL_F32, 1031, &z);
    tl_buffer_create(ctx, TL_F16, 1031, &h);
    tl_buffer_create(ctx, TL_I32, 1031, &zi);
    tl_buffer_write(x, 0, xs, sizeof xs);

    /* A typed signature: every mismatch is refused. */
    TlKernel *k = NULL;
    s = tl_kernel_from_string(ctx, axpb_src, "--signature '*fp32:16, *fp32:16, fp32, fp32, i32, 64'", &k);
    check("typed_load", s == TL_SUCCESS, tl_last_error(ctx));
    if (!k)
        return 1;
    check("typed_num_params", tl_kernel_num_params(k) == 5, tl_kernel_name(k));
    TlParamInfo pi;
    check("param_info_ptr", tl_kernel_param(k, 0, &pi) == TL_SUCCESS && !strcmp(pi.name, "x_ptr") && pi.is_pointer &&
          pi.dtype == TL_F32 && pi.hint == 16, NULL);
    check("param_info_scalar", tl_kernel_param(k, 2, &pi) == TL_SUCCESS && !strcmp(pi.name, "a") && !pi.is_pointer &&
          pi.dtype == TL_F32 && pi.hint == 0, NULL);
    check("param_info_range", tl_kernel_param(k, 5, &pi) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "no runtime parameter 5 (it has 5)"), tl_last_error(ctx));
    const char *cname = NULL, *cval = NULL;
    check("constant_info", tl_kernel_num_constants(k) == 1 && tl_kernel_constant(k, 0, &cname, &cval) == TL_SUCCESS &&
          !strcmp(cname, "BS") && !strcmp(cval, "64"), cval);
    TlKernelConfig cfg;
    check("config_info", tl_kernel_config(k, &cfg) == TL_SUCCESS && cfg.num_warps == 4 && cfg.autotune_config == -1 &&
          cfg.num_configs == 0, NULL);

    unsigned grid[3] = {17, 1, 1};
    TlArg int_for_float[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(2), tl_arg_f32(1.0f), tl_arg_i32(1031)};
    check("int_for_float", tl_launch(k, grid, int_for_float, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "argument 3 ('a') is an integer (i32), but the parameter is f32"),
          tl_last_error(ctx));
    TlArg converted[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_convert(tl_arg_i32(2)), tl_arg_f32(1.5f),
                         tl_arg_i32(1031)};
    run_axpb(k, x, z, converted, 5, 1031, 2.0f, 1.5f, "int_converted_to_float");
    TlArg half_for_float[] = {tl_arg_buffer(h), tl_arg_buffer(z), tl_arg_f32(2), tl_arg_f32(1), tl_arg_i32(1031)};
    check("fp16_buffer_for_fp32", tl_launch(k, grid, half_for_float, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "argument 1 ('x_ptr') points to fp16 elements, but the parameter is !ptr<f32>"),
          tl_last_error(ctx));
    TlArg int_for_ptr[] = {tl_arg_buffer(x), tl_arg_i32(5), tl_arg_f32(2), tl_arg_f32(1), tl_arg_i32(1031)};
    check("int_for_pointer", tl_launch(k, grid, int_for_ptr, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "argument 2 ('z_ptr') is an integer, but the parameter is !ptr<f32>"),
          tl_last_error(ctx));
    TlArg buf_for_int[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(2), tl_arg_f32(1), tl_arg_buffer(x)};
    check("buffer_for_int", tl_launch(k, grid, buf_for_int, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "argument 5 ('n') is a buffer, but the parameter is i32"), tl_last_error(ctx));
    TlArg too_big[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(2), tl_arg_f32(1), tl_arg_i64(1LL << 40)};
    check("int_out_of_range", tl_launch(k, grid, too_big, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "1099511627776 does not fit in the parameter's type i32"), tl_last_error(ctx));
    check("error_set_before_success", tl_last_error(ctx)[0] != 0, NULL);
    {
        /* A bool (i1) parameter takes any integer's lowest bit, as Triton's
         * launcher passes an int's low byte unchecked (upstream's
         * test_int_annotation passes 3 for a tl.uint1 annotation). */
        TlKernel *kb;
        TlStatus s = tl_kernel_from_string(ctx, "import triton\nimport triton.language as tl\n@triton.jit\n"
                                                "def kb(X, v: tl.int1):\n    tl.store(X + tl.program_id(0), v)\n",
                                           "--signature '*i32, i1'", &kb);
        check("bool_param_compiles", s == TL_SUCCESS, tl_last_error(ctx));
        TlBuffer *o = NULL;
        tl_buffer_create(ctx, TL_I32, 1, &o);
        int got[4] = {-1, -1, -1, -1};
        const int64_t vals[4] = {3, 2, -1, 0};
        for (int i = 0; i < 4 && s == TL_SUCCESS; i++) {
            TlArg a[] = {tl_arg_buffer(o), tl_arg_i64(vals[i])};
            unsigned g1[3] = {1, 1, 1};
            if (tl_launch(kb, g1, a, 2) != TL_SUCCESS || tl_buffer_read(o, 0, &got[i], sizeof got[i]) != TL_SUCCESS)
                break;
        }
        char d[160];
        snprintf(d, sizeof d, "3 -> %d, 2 -> %d, -1 -> %d, 0 -> %d (%s)", got[0], got[1], got[2], got[3],
                 tl_last_error(ctx));
        check("bool_param_low_bit", got[0] == 1 && got[1] == 0 && got[2] == 1 && got[3] == 0, d);
        tl_buffer_destroy(o);
        if (s == TL_SUCCESS)
            tl_kernel_destroy(kb);
    }
    TlArg good[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(-0.5f), tl_arg_f32(3.0f), tl_arg_i64(1031)};
    run_axpb(k, x, z, good, 5, 1031, -0.5f, 3.0f, "typed_launch_i64_narrowed");
    check("success_clears_error", tl_last_error(ctx)[0] == 0, tl_last_error(ctx));
    tl_kernel_destroy(k);

    /* Hints in the signature are promises the launch checks. */
    s = tl_kernel_from_string(ctx, axpb_src, "--signature '*fp32:16, *fp32:16, fp32, fp32, i32:16, 64'", &k);
    check("hint_load", s == TL_SUCCESS, tl_last_error(ctx));
    TlArg not16[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0), tl_arg_i32(1031)};
    check("hint_16_violated", tl_launch(k, grid, not16, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "argument 5 ('n') is 1031, but the signature promises a multiple of 16 (:16)"),
          tl_last_error(ctx));
    TlArg is16[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0.25f), tl_arg_i32(1024)};
    run_axpb(k, x, z, is16, 5, 1024, 1.0f, 0.25f, "hint_16_kept");
    tl_kernel_destroy(k);

    /* A literal for a runtime parameter binds it: it is not an argument. */
    s = tl_kernel_from_string(ctx, axpb_src, "--signature '*fp32:16, *fp32:16, fp32, fp32, 997, 64'", &k);
    check("literal_load", s == TL_SUCCESS, tl_last_error(ctx));
    check("literal_num_params", tl_kernel_num_params(k) == 4, NULL);
    check("literal_constants", tl_kernel_num_constants(k) == 2 && tl_kernel_constant(k, 0, &cname, &cval) == 0 &&
          !strcmp(cname, "n") && !strcmp(cval, "997"), cval);
    TlArg with_n[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0), tl_arg_i32(997)};
    check("literal_extra_arg", tl_launch(k, grid, with_n, 5) == TL_ERROR_LAUNCH &&
          contains(tl_last_error(ctx), "expected 4 arguments (x_ptr, z_ptr, a, b), got 5"), tl_last_error(ctx));
    run_axpb(k, x, z, with_n, 4, 997, 1.0f, 0.0f, "literal_launch");
    tl_kernel_destroy(k);

    /* With --signature the kernel compiles at load: its errors come back there. */
    const char *bad_body =
        "import triton\nimport triton.language as tl\n@triton.jit\ndef bad(x_ptr, n):\n"
        "    tl.store(x_ptr, n + undefined_name)\n";
    k = NULL;
    s = tl_kernel_from_string(ctx, bad_body, "--signature '*fp32, i32'", &k);
    check("signature_compiles_at_load", s == TL_ERROR_COMPILE && !k &&
          contains(tl_last_error(ctx), "<string>:5:") && contains(tl_last_error(ctx), "undefined_name"),
          tl_last_error(ctx));
    check("signature_bad_type", tl_kernel_from_string(ctx, axpb_src, "--signature '*fp32, *fp32, fp32, fp32, int, 64'",
                                                       &k) == TL_ERROR_COMPILE &&
          contains(tl_last_error(ctx), "signature entry 'int' for parameter 'n' is not a type; did you mean 'i32'?"),
          tl_last_error(ctx));

    /* No signature: a string-annotated constexpr is a constexpr for the API
     * too, and the launch types the runtime parameters. */
    s = tl_kernel_from_string(ctx, axpb_src, "-D BS=64", &k);
    check("untyped_load", s == TL_SUCCESS && tl_kernel_num_params(k) == 5, tl_last_error(ctx));
    check("untyped_param_info", tl_kernel_param(k, 4, &pi) == TL_SUCCESS && !strcmp(pi.name, "n") && pi.dtype == 0,
          NULL);
    for (int n = 1; n <= 1031; n += n < 64 ? 63 : 966) { /* 1, 64, 1030 */
        char name[64];
        snprintf(name, sizeof name, "untyped_launch_n%d", n);
        TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(2.0f), tl_arg_f32(-1.0f), tl_arg_i32(n)};
        run_axpb(k, x, z, args, 5, n, 2.0f, -1.0f, name);
    }
    /* An integer where the kernel loads through a pointer: a compile error,
     * never a read of the integer as an address. */
    TlArg int_ptr[] = {tl_arg_i64(4096), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0), tl_arg_i32(10)};
    check("untyped_int_as_pointer", tl_launch(k, grid, int_ptr, 5) == TL_ERROR_COMPILE, tl_last_error(ctx));

    /* Raw pointers: device addresses on a GPU, host memory on the CPU. */
    float *hostz = NULL;
    TlArg raw[5];
    if (gpu) {
        raw[0] = tl_arg_ptr(tl_buffer_device_ptr(x), TL_F32, 1031);
        raw[1] = tl_arg_ptr(tl_buffer_device_ptr(z), TL_F32, 0);
    } else {
        hostz = malloc(sizeof xs);
        raw[0] = tl_arg_host_ptr(xs, TL_F32, 1031);
        raw[1] = tl_arg_host_ptr(hostz, TL_F32, 1031);
        TlArg nocount[] = {tl_arg_host_ptr(xs, TL_F32, 0), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0),
                           tl_arg_i32(7)};
        check("host_ptr_needs_count", tl_launch(k, grid, nocount, 5) == TL_ERROR_LAUNCH &&
              contains(tl_last_error(ctx), "needs its element count"), tl_last_error(ctx));
        TlArg short_count[] = {tl_arg_host_ptr(xs, TL_F32, 100), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0),
                               tl_arg_i32(101)};
        check("host_ptr_bounds", tl_launch(k, grid, short_count, 5) == TL_ERROR_OUT_OF_BOUNDS, tl_last_error(ctx));
    }
    raw[2] = tl_arg_f32(0.5f), raw[3] = tl_arg_f32(2.0f), raw[4] = tl_arg_i32(1029);
    unsigned g17[3] = {17, 1, 1};
    s = tl_launch(k, g17, raw, 5);
    float out[1031];
    if (gpu)
        tl_buffer_read(z, 0, out, sizeof out);
    else if (hostz)
        memcpy(out, hostz, sizeof out);
    int ok = s == TL_SUCCESS;
    for (int i = 0; ok && i < 1029; i++)
        ok = out[i] == xs[i] * 0.5f + 2.0f;
    check("raw_pointers", ok, tl_last_error(ctx));
    /* A null pointer is a valid argument, as in Triton: n = 0 reads nothing
     * through it; on the CPU any access is reported as a null-pointer one. */
    TlArg null_ptr[] = {tl_arg_ptr(0, TL_F32, 0), tl_arg_buffer(z), tl_arg_f32(1), tl_arg_f32(0), tl_arg_i32(0)};
    check("null_pointer_unused", tl_launch(k, grid, null_ptr, 5) == TL_SUCCESS, tl_last_error(ctx));
    if (!gpu) {
        null_ptr[4] = tl_arg_i32(4);
        check("null_pointer_used", tl_launch(k, grid, null_ptr, 5) == TL_ERROR_OUT_OF_BOUNDS &&
              contains(tl_last_error(ctx), "null-pointer load"), tl_last_error(ctx));
    }
    free(hostz);

    /* Streams: NULL is the default stream everywhere; the CPU has no others. */
    check("set_null_stream", tl_context_set_stream(ctx, NULL) == TL_SUCCESS, tl_last_error(ctx));
    if (!gpu)
        check("cpu_has_no_streams", tl_context_set_stream(ctx, (void *)16) == TL_ERROR_INVALID_ARGUMENT, NULL);
    TlArg sargs[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(3.0f), tl_arg_f32(0.0f), tl_arg_i32(1031)};
    s = tl_launch_stream(k, g17, sargs, 5, NULL);
    check("launch_stream", s == TL_SUCCESS && tl_context_synchronize(ctx) == TL_SUCCESS, tl_last_error(ctx));
    tl_buffer_read(z, 0, out, sizeof out);
    ok = 1;
    for (int i = 0; ok && i < 1031; i++)
        ok = out[i] == xs[i] * 3.0f;
    check("launch_stream_result", ok, NULL);
    tl_kernel_destroy(k);

    /* Autotuning at launch, with the grid as an expression of the config. */
    s = tl_kernel_from_string(ctx, tuned_src, "", &k);
    check("tuned_load", s == TL_SUCCESS, tl_last_error(ctx));
    check("tuned_config_before", tl_kernel_config(k, &cfg) == TL_SUCCESS && cfg.tuned && cfg.num_configs == 3 &&
          cfg.autotune_config == -1, NULL);
    check("tuned_num_params", tl_kernel_num_params(k) == 4, NULL);
    int sizes[] = {1, 257, 1031};
    for (int t = 0; t < 3; t++) {
        int n = sizes[t];
        float zero[1031] = {0};
        tl_buffer_write(z, 0, zero, sizeof zero);
        TlArg targs[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(2.0f), tl_arg_i32(n)};
        s = tl_launch_grid(k, "cdiv(n, BS)", targs, 4);
        tl_buffer_read(z, 0, out, sizeof out);
        ok = s == TL_SUCCESS;
        for (int i = 0; ok && i < 1031; i++)
            ok = out[i] == (i < n ? xs[i] * 2.0f : 0.0f);
        char name[64];
        snprintf(name, sizeof name, "tuned_launch_n%d", n);
        check(name, ok, tl_last_error(ctx));
        check("tuned_choice_is_a_config", tl_kernel_config(k, &cfg) == TL_SUCCESS && cfg.autotune_config >= 0 &&
              cfg.autotune_config < 3 && (gpu || cfg.autotune_config == 0), NULL);
    }
    printf("autotune chose config %d\n", cfg.autotune_config);
    if (!gpu)
        check("tuned_cpu_note", contains(tl_kernel_log(k), "runs its first autotune config on the CPU device"),
              tl_kernel_log(k));
    int calls = 0;
    TlArg cargs[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(1.0f), tl_arg_i32(1000)};
    float zero[1031] = {0};
    tl_buffer_write(z, 0, zero, sizeof zero);
    s = tl_launch_grid_fn(k, grid_cb, &calls, cargs, 4);
    tl_buffer_read(z, 0, out, sizeof out);
    ok = s == TL_SUCCESS && calls >= 1;
    for (int i = 0; ok && i < 1031; i++)
        ok = out[i] == (i < 1000 ? xs[i] : 0.0f);
    check("tuned_grid_callback", ok, tl_last_error(ctx));
    check("grid_unknown_name", tl_launch_grid(k, "cdiv(m, BS)", cargs, 4) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "unknown name 'm'"), tl_last_error(ctx));
    check("grid_syntax", tl_launch_grid(k, "cdiv(n BS)", cargs, 4) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "expected ','"), tl_last_error(ctx));
    check("grid_four_dims", tl_launch_grid(k, "1, 1, 1, 1", cargs, 4) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("grid_float_param", tl_launch_grid(k, "a", cargs, 4) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "only use integer parameters"), tl_last_error(ctx));
    tl_kernel_destroy(k);
    /* A kernel that is not tuned takes grid expressions too. */
    s = tl_kernel_from_string(ctx, axpb_src, "-D BS=64", &k);
    TlArg eargs[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_f32(1.0f), tl_arg_f32(1.0f), tl_arg_i32(130)};
    s = tl_launch_grid(k, "(n + BS - 1) // BS, 1", eargs, 5);
    tl_buffer_read(z, 0, out, sizeof out);
    ok = s == TL_SUCCESS;
    for (int i = 0; ok && i < 130; i++)
        ok = out[i] == xs[i] + 1.0f;
    check("grid_expr_untuned", ok, tl_last_error(ctx));
    tl_kernel_destroy(k);

    /* Half-precision scalars travel as their 2-byte bits. */
    static const char *half_src =
        "import triton\nimport triton.language as tl\n@triton.jit\n"
        "def hs(x_ptr, z_ptr, s, t, n, BS: tl.constexpr):\n"
        "    offs = tl.program_id(0) * BS + tl.arange(0, BS)\n"
        "    mask = offs < n\n"
        "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) * s.to(tl.float32) + t.to(tl.float32), mask=mask)\n";
    s = tl_kernel_from_string(ctx, half_src, "-D BS=64", &k);
    TlArg hargs[] = {tl_arg_buffer(x), tl_arg_buffer(z), {TL_ARG_FLOAT, TL_F16, 0, {.f = 1.5}},
                     {TL_ARG_FLOAT, TL_BF16, 0, {.f = -0.375}}, tl_arg_i32(1031)};
    run_axpb(k, x, z, hargs, 5, 1031, 1.5f, -0.375f, "half_scalars");
    tl_kernel_destroy(k);

    /* Inputs that used to hang or misread. */
    k = NULL;
    s = tl_kernel_from_file(ctx, "/dev/zero", "", &k);
    check("dev_zero", s == TL_ERROR_IO && contains(tl_last_error(ctx), "larger than the 64 MiB"), tl_last_error(ctx));

    tl_buffer_destroy(x);
    tl_buffer_destroy(z);
    tl_buffer_destroy(h);
    tl_buffer_destroy(zi);
    tl_context_destroy(ctx);
    printf("%d failed\n", failures);
    return failures ? 1 : 0;
}
