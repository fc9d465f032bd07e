/* timing.h: where compile time goes (tlc --time-passes, the API's stats).
 * Each stage of compile.c's pipeline adds its wall time to one slot. */
#ifndef TL_TIMING_H
#define TL_TIMING_H

typedef enum CompileStage {
    STAGE_PARSE,    /* source -> AST */
    STAGE_SEMA,     /* AST -> typed tile IR (kernel info included) */
    STAGE_COMBINE,  /* acc + dot folded into the dot */
    STAGE_LAYOUT,   /* axis analysis and the layout pass */
    STAGE_PIPELINE, /* software pipelining */
    STAGE_SMEM,     /* shared-memory allocation */
    STAGE_BARRIERS, /* barrier insertion */
    STAGE_LOWER,    /* laid-out IR -> LLVM IR, and its verification */
    STAGE_OPTIMIZE, /* LLVM's pass pipeline */
    STAGE_EMIT,     /* NVPTX: LLVM IR -> PTX */
    STAGE_LINK,     /* the driver (or ptxas): PTX -> cubin, and loading it */
    STAGE__COUNT
} CompileStage;

typedef struct CompileTimes {
    double seconds[STAGE__COUNT];
} CompileTimes;

/* "parse", "sema", ... in stage order. */
extern const char *const compile_stage_names[STAGE__COUNT];
/* A monotonic clock in seconds. */
double compile_clock(void);

/* Add the time since *t0 to stage s of t (if t), and restart *t0. */
static inline void compile_time(CompileTimes *t, CompileStage s, double *t0) {
    double now = compile_clock();
    if (t)
        t->seconds[s] += now - *t0;
    *t0 = now;
}

#endif
