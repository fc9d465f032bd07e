/* api_test.c: the public C API on the CPU device: misuse returns a status
 * (never a crash), compile errors come back as diagnostics, the interpreter
 * catches out-of-bounds accesses, and the seed's planted bugs give the wrong
 * results the seed predicts. Prints [PASS]/[FAIL] lines for tests/run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tl.h"

static int failures;

static void check(const char *name, int ok, const char *detail) {
    printf("[%s] api/%s\n", ok ? "PASS" : "FAIL", name);
    if (!ok) {
        printf("    %s\n", detail ? detail : "");
        failures++;
    }
}

static const char *copy_src =
    "import triton\n"
    "import triton.language as tl\n"
    "@triton.jit\n"
    "def copy_k(x_ptr, z_ptr, n, bs: tl.constexpr):\n"
    "    offs = tl.program_id(0) * bs + tl.arange(0, bs)\n"
    "    mask = offs < n\n"
    "    tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask), mask)\n";

static int contains(const char *hay, const char *needle) { return strstr(hay, needle) != NULL; }

int main(void) {
    TlContext *ctx = NULL, *other = NULL;
    TlStatus s;

    check("context_null_out", tl_context_create(TL_DEVICE_CPU, NULL) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("context_bad_kind", tl_context_create((TlDeviceKind)42, &ctx) == TL_ERROR_INVALID_ARGUMENT, NULL);
    s = tl_context_create(TL_DEVICE_CPU, &ctx);
    check("context_cpu", s == TL_SUCCESS && ctx, tl_status_name(s));
    if (!ctx)
        return 1;
    tl_context_create(TL_DEVICE_CPU, &other);

    /* Null handles and arguments: statuses, not crashes. */
    TlBuffer *b = NULL;
    TlKernel *k = NULL;
    check("buffer_null_ctx", tl_buffer_create(NULL, TL_F32, 4, &b) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("buffer_zero_count", tl_buffer_create(ctx, TL_F32, 0, &b) == TL_ERROR_INVALID_ARGUMENT, tl_last_error(ctx));
    check("buffer_bad_dtype", tl_buffer_create(ctx, (TlDType)99, 4, &b) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("buffer_huge", tl_buffer_create(ctx, TL_F64, SIZE_MAX / 4, &b) != TL_SUCCESS, NULL);
    check("buffer_write_null", tl_buffer_write(NULL, 0, "x", 1) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("kernel_null_path", tl_kernel_from_file(ctx, NULL, "", &k) == TL_ERROR_INVALID_ARGUMENT, NULL);
    check("kernel_missing_file", tl_kernel_from_file(ctx, "no/such/file.tl", "", &k) == TL_ERROR_IO &&
          contains(tl_last_error(ctx), "no/such/file.tl"), tl_last_error(ctx));
    unsigned grid1[3] = {1, 1, 1};
    check("launch_null_kernel", tl_launch(NULL, grid1, NULL, 0) == TL_ERROR_INVALID_ARGUMENT, NULL);
    tl_buffer_destroy(NULL);
    tl_kernel_destroy(NULL);
    tl_context_destroy(NULL);

    /* Buffer range checks. */
    TlBuffer *x, *z, *small, *foreign;
    tl_buffer_create(ctx, TL_F32, 100, &x);
    tl_buffer_create(ctx, TL_F32, 100, &z);
    tl_buffer_create(ctx, TL_F32, 10, &small);
    tl_buffer_create(other, TL_F32, 100, &foreign);
    float host[100];
    for (int i = 0; i < 100; i++)
        host[i] = (float)i * 0.5f + 1.0f;
    check("buffer_write_past_end", tl_buffer_write(x, 8, host, 400) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "outside"), tl_last_error(ctx));
    check("buffer_write", tl_buffer_write(x, 0, host, sizeof host) == TL_SUCCESS, tl_last_error(ctx));

    /* Options and compile errors. */
    check("options_unknown", tl_kernel_from_string(ctx, copy_src, "--bogus", &k) == TL_ERROR_INVALID_ARGUMENT &&
          contains(tl_last_error(ctx), "unknown option '--bogus'"), tl_last_error(ctx));
    check("options_bad_warps", tl_kernel_from_string(ctx, copy_src, "--num-warps 3", &k) == TL_ERROR_INVALID_ARGUMENT,
          tl_last_error(ctx));
    check("options_unterminated", tl_kernel_from_string(ctx, copy_src, "-D 'bs=4", &k) == TL_ERROR_INVALID_ARGUMENT,
          tl_last_error(ctx));
    s = tl_kernel_from_string(ctx, "def f(:\n", "", &k);
    check("compile_syntax_error", s == TL_ERROR_COMPILE && contains(tl_last_error(ctx), "<string>:1:"),
          tl_last_error(ctx));
    check("kernel_not_found", tl_kernel_from_string(ctx, copy_src, "--kernel nope", &k) == TL_ERROR_COMPILE &&
          contains(tl_last_error(ctx), "nope"), tl_last_error(ctx));

    s = tl_kernel_from_string(ctx, copy_src, "-D bs=32", &k);
    check("kernel_from_string", s == TL_SUCCESS && tl_kernel_num_params(k) == 3, tl_last_error(ctx));
    if (s == TL_SUCCESS) {
        TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100)};
        unsigned grid[3] = {4, 1, 1}, zero[3] = {0, 1, 1}, huge[3] = {1, 70000, 1};
        TlKernelResources res;
        check("resources_before_a_variant", tl_kernel_resources(k, &res) == TL_ERROR_INVALID_ARGUMENT &&
              contains(tl_last_error(ctx), "copy_k: no variant is compiled yet"), tl_last_error(ctx));
        check("resources_null", tl_kernel_resources(k, NULL) == TL_ERROR_INVALID_ARGUMENT, NULL);
        check("launch_zero_grid", tl_launch(k, zero, args, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
        check("launch_grid_too_big", tl_launch(k, huge, args, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
        check("launch_null_grid", tl_launch(k, NULL, args, 3) == TL_ERROR_INVALID_ARGUMENT, tl_last_error(ctx));
        check("launch_wrong_count", tl_launch(k, grid, args, 2) == TL_ERROR_LAUNCH &&
              contains(tl_last_error(ctx), "expected 3 arguments (x_ptr, z_ptr, n), got 2"), tl_last_error(ctx));
        TlArg nullbuf[] = {tl_arg_buffer(NULL), tl_arg_buffer(z), tl_arg_i32(100)};
        check("launch_null_buffer", tl_launch(k, grid, nullbuf, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));
        TlArg foreign_args[] = {tl_arg_buffer(foreign), tl_arg_buffer(z), tl_arg_i32(100)};
        check("launch_foreign_buffer", tl_launch(k, grid, foreign_args, 3) == TL_ERROR_LAUNCH &&
              contains(tl_last_error(ctx), "another context"), tl_last_error(ctx));
        TlArg bad_kind[] = {tl_arg_buffer(x), tl_arg_buffer(z), {(TlArgKind)9, TL_I32, 0, {0}}};
        check("launch_bad_arg_kind", tl_launch(k, grid, bad_kind, 3) == TL_ERROR_LAUNCH, tl_last_error(ctx));

        s = tl_launch(k, grid, args, 3);
        s = s != TL_SUCCESS ? s : tl_kernel_resources(k, &res); /* the CPU: no registers, 4 warps */
        check("resources_cpu", s == TL_SUCCESS && res.registers == 0 && res.spill_bytes == 0 && res.threads == 128,
              tl_last_error(ctx));
        float out[100] = {0};
        tl_buffer_read(z, 0, out, sizeof out);
        check("launch_copy", s == TL_SUCCESS && !memcmp(out, host, sizeof out), tl_last_error(ctx));

        /* -D of a runtime parameter: the rule tlc has. A constant when no
         * signature (or one that leaves it out) types it, then not an argument;
         * an error with the parameter's name when the signature gives it an
         * entry (it used to be ignored). */
        TlKernel *kd = NULL;
        TlArg args2[] = {tl_arg_buffer(x), tl_arg_buffer(z)};
        const char *dopts[] = {"-D bs=32 -D n=100", "-D bs=32 -D n=100 --signature '*fp32, *fp32'"};
        for (int i = 0; i < 2; i++) {
            char name[64];
            snprintf(name, sizeof name, "define_runtime_constant_%d", i);
            memset(out, 0, sizeof out);
            tl_buffer_write(z, 0, out, sizeof out);
            s = tl_kernel_from_string(ctx, copy_src, dopts[i], &kd);
            if (s == TL_SUCCESS)
                s = tl_kernel_num_params(kd) == 2 ? tl_launch(kd, grid, args2, 2) : TL_ERROR_LAUNCH;
            tl_buffer_read(z, 0, out, sizeof out);
            check(name, s == TL_SUCCESS && !memcmp(out, host, sizeof out), tl_last_error(ctx));
            tl_kernel_destroy(kd);
            kd = NULL;
        }
        /* A block the GPU refuses (its registers per thread, the layout
         * pass's limit) is refused by the interpreter too, in the same words. */
        s = tl_kernel_from_string(ctx, copy_src, "-D bs=1048576", &kd);
        if (s == TL_SUCCESS)
            s = tl_launch(kd, grid, args, 3);
        check("cpu_block_past_gpu_limit", s == TL_ERROR_COMPILE &&
              contains(tl_last_error(ctx), "block of 1048576 elements (splat of <1048576x!ptr<f32>>) needs 16384 "
                       "registers per thread with num_warps=4, more than the 8192 one value may hold"),
              tl_last_error(ctx));
        tl_kernel_destroy(kd);
        kd = NULL;
        s = tl_kernel_from_string(ctx, copy_src, "-D n=100 --signature '*fp32, *fp32, i32'", &kd);
        check("define_runtime_typed", s == TL_ERROR_COMPILE &&
              contains(tl_last_error(ctx), "-D n=100 sets runtime parameter 'n', which the signature also gives an "
                       "entry: leave 'n' out of the signature to make it a constant, or drop the -D"),
              tl_last_error(ctx));

        /* A buffer too small for the launch: masked by n=100, but z holds 10. */
        TlArg too_small[] = {tl_arg_buffer(x), tl_arg_buffer(small), tl_arg_i32(100)};
        s = tl_launch(k, grid, too_small, 3);
        check("launch_buffer_too_small", s == TL_ERROR_OUT_OF_BOUNDS && contains(tl_last_error(ctx), "z_ptr"),
              tl_last_error(ctx));
        tl_kernel_destroy(k);
    }

    /* Out-of-bounds reads in an unmasked kernel stop with line, program id, offset. */
    s = tl_kernel_from_file(ctx, "tests/kernels/copy_nomask.tl", "-D bs=32", &k);
    if (s == TL_SUCCESS) {
        TlArg args[] = {tl_arg_buffer(x), tl_arg_buffer(z), tl_arg_i32(100)};
        unsigned grid[3] = {4, 1, 1};
        s = tl_launch(k, grid, args, 3);
        const char *e = tl_last_error(ctx);
        check("oob_detected", s == TL_ERROR_OUT_OF_BOUNDS, e);
        check("oob_message", contains(e, "copy_nomask.tl:12:") && contains(e, "x_ptr") && contains(e, "(3, 0, 0)") &&
              contains(e, "100"), e);
        tl_kernel_destroy(k);
    } else {
        check("oob_detected", 0, tl_last_error(ctx));
    }

    /* The seed's planted bugs: both give z = [1, 2, 0, 0, 0, 0] for x = [1..6], bs = 2. */
    const char *bugs[] = {"tests/kernels/copy_bug_no_pid.tl", "tests/kernels/copy_bug_stride.tl"};
    for (int i = 0; i < 2; i++) {
        TlBuffer *bx, *bz;
        int64_t xs[6] = {1, 2, 3, 4, 5, 6}, zs[6] = {0}, want[6] = {1, 2, 0, 0, 0, 0};
        tl_buffer_create(ctx, TL_I64, 6, &bx);
        tl_buffer_create(ctx, TL_I64, 6, &bz);
        tl_buffer_write(bx, 0, xs, sizeof xs);
        s = tl_kernel_from_file(ctx, bugs[i], "-D bs=2", &k);
        if (s == TL_SUCCESS) {
            TlArg args[] = {tl_arg_buffer(bx), tl_arg_buffer(bz), tl_arg_i32(6)};
            unsigned grid[3] = {3, 1, 1};
            s = tl_launch(k, grid, args, 3);
            tl_buffer_read(bz, 0, zs, sizeof zs);
            tl_kernel_destroy(k);
        }
        check(i ? "seed_bug_stride" : "seed_bug_no_pid", s == TL_SUCCESS && !memcmp(zs, want, sizeof zs),
              tl_last_error(ctx));
        tl_buffer_destroy(bx);
        tl_buffer_destroy(bz);
    }

    /* Addresses in memory (Triton's tutorial 08): on the CPU device
     * tl_buffer_device_ptr is the buffer's address, and a kernel that loads
     * it and casts it to a pointer reaches any live buffer of the context,
     * at an offset; an address of no such buffer (another context's, a
     * destroyed one's) faults. */
    check("num_sms_cpu", tl_context_num_sms(ctx) == 0 && tl_context_num_sms(NULL) == 0, NULL);
    static const char *gather_src =
        "import triton\n"
        "import triton.language as tl\n"
        "@triton.jit\n"
        "def gather_k(ptrs, out):\n"
        "    g = tl.program_id(0)\n"
        "    p = tl.load(ptrs + g).to(tl.pointer_type(tl.float32))\n"
        "    offs = tl.arange(0, 4)\n"
        "    tl.store(out + g * 4 + offs, tl.load(p + 1 + offs))\n";
    s = tl_kernel_from_string(ctx, gather_src, "", &k);
    if (s == TL_SUCCESS) {
        TlBuffer *bp, *bo, *gone;
        float got[8] = {0};
        tl_buffer_create(ctx, TL_F32, 10, &gone);
        int64_t addrs[3] = {(int64_t)tl_buffer_device_ptr(z) + 4 * 20, (int64_t)tl_buffer_device_ptr(small),
                            (int64_t)tl_buffer_device_ptr(foreign)};
        tl_buffer_write(z, 0, host, sizeof host);
        tl_buffer_write(small, 0, host + 50, 40);
        tl_buffer_create(ctx, TL_I64, 3, &bp);
        tl_buffer_create(ctx, TL_F32, 8, &bo);
        tl_buffer_write(bp, 0, addrs, sizeof addrs);
        TlArg args[] = {tl_arg_buffer(bp), tl_arg_buffer(bo)};
        unsigned grid2[3] = {2, 1, 1};
        s = tl_launch(k, grid2, args, 2);
        tl_buffer_read(bo, 0, got, sizeof got);
        int ok = s == TL_SUCCESS && tl_buffer_device_ptr(z) != 0;
        for (int i = 0; i < 4; i++)
            ok = ok && got[i] == host[21 + i] && got[4 + i] == host[51 + i];
        check("address_from_memory", ok, tl_last_error(ctx));
        /* program 2 reads another context's buffer; then a destroyed one's */
        unsigned grid3[3] = {3, 1, 1};
        s = tl_launch(k, grid3, args, 2);
        check("address_other_context", s == TL_ERROR_OUT_OF_BOUNDS && contains(tl_last_error(ctx), "null-pointer"),
              tl_last_error(ctx));
        addrs[0] = (int64_t)tl_buffer_device_ptr(gone);
        tl_buffer_destroy(gone);
        tl_buffer_write(bp, 0, addrs, sizeof addrs);
        s = tl_launch(k, grid1, args, 2);
        check("address_destroyed", s == TL_ERROR_OUT_OF_BOUNDS, tl_last_error(ctx));
        tl_buffer_destroy(bp);
        tl_buffer_destroy(bo);
        tl_kernel_destroy(k);
    } else {
        check("address_from_memory", 0, tl_last_error(ctx));
    }

    tl_buffer_destroy(x);
    tl_buffer_destroy(z);
    tl_buffer_destroy(small);
    tl_buffer_destroy(foreign);
    tl_context_destroy(other);
    tl_context_destroy(ctx);
    return failures ? 1 : 0;
}
