/* timing.c: the stages' names and the clock (see timing.h). */
#include "timing.h"

#include <time.h>

const char *const compile_stage_names[STAGE__COUNT] = {
    [STAGE_PARSE] = "parse",         [STAGE_SEMA] = "sema",         [STAGE_COMBINE] = "combine",
    [STAGE_LAYOUT] = "layout",       [STAGE_PIPELINE] = "pipeline", [STAGE_SMEM] = "smem-alloc",
    [STAGE_BARRIERS] = "barriers",   [STAGE_LOWER] = "llvm-ir",     [STAGE_OPTIMIZE] = "llvm-opt",
    [STAGE_EMIT] = "ptx-emit",       [STAGE_LINK] = "link",
};

double compile_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
