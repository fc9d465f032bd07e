/* api_options.c: the C API takes tlc's -O in its option strings, with the
 * same range check and the same naming of unknown short flags (tests/aot.sh;
 * runs in the interpreter, where -O is accepted and has nothing to do). */
#include <stdio.h>
#include <string.h>

#include "tl.h"

static int failures;

static void expect(TlContext *ctx, const char *options, TlStatus want, const char *message) {
    TlKernel *k = NULL;
    TlStatus s = tl_kernel_from_file(ctx, "examples/copy.tl", options, &k);
    const char *err = s ? tl_last_error(ctx) : "";
    int ok = s == want && (!message || strstr(err, message));
    printf("[%s] aot/api_options/'%s'\n", ok ? "PASS" : "FAIL", options);
    if (!ok) {
        printf("    status %s, want %s; error '%s'%s%s\n", tl_status_name(s), tl_status_name(want), err,
               message ? ", want " : "", message ? message : "");
        failures++;
    }
    tl_kernel_destroy(k);
}

int main(void) {
    TlContext *ctx = NULL;
    if (tl_context_create(TL_DEVICE_CPU, &ctx)) {
        printf("[FAIL] aot/api_options/context\n");
        return 1;
    }
    expect(ctx, "-O0 -D bs=64", TL_SUCCESS, NULL);
    expect(ctx, "-O 2 --kernel copy_k -D bs=64", TL_SUCCESS, NULL);
    expect(ctx, "-Dbs=1 -O3", TL_SUCCESS, NULL);
    expect(ctx, "-O4", TL_ERROR_INVALID_ARGUMENT, "invalid options: -O must be a number from 0 to 3, got 4");
    expect(ctx, "-O", TL_ERROR_INVALID_ARGUMENT, "invalid options: option '-O' needs an argument");
    expect(ctx, "-q3", TL_ERROR_INVALID_ARGUMENT, "invalid options: unknown option '-q'");
    expect(ctx, "--bogus=1", TL_ERROR_INVALID_ARGUMENT, "invalid options: unknown option '--bogus'");
    tl_context_destroy(ctx);
    return failures ? 1 : 0;
}
