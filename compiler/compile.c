/* compile.c: the pass pipeline, the one path from source to PTX that tlc and
 * the C API share.
 *
 *   parse     source -> AST                                     [lang/]
 *   sema      AST + specialisation -> typed tile IR (constexprs folded, helpers
 *             inlined, static_range unrolled)                   [sema.c]
 *   combine   acc + dot(a, b, 0) -> dot(a, b, acc)              [combine.c]
 *   flatten   tl.range(..., flatten=True): a loop nest -> one loop, the
 *             epilogue under an if (GPU only)                  [flatten.c]
 *   dce       pure ops whose results nothing reads are removed  [dce.c]
 *   layout    axis analysis (contiguity / divisibility / constancy), then
 *             which thread owns which element: blocked, slice, MMA, dot
 *             operand; convert_layout where they must change  [axis.c, layout_pass.c]
 *   tma       pointer tiles proved to be boxes of a row-major tensor ->
 *             read through a map the launch encodes (sm_90a)   [tma.c]
 *   pipeline  loads feeding a dot -> rings of shared buffers filled
 *             num_stages-1 iterations ahead by cp.async or TMA; a TMA loop
 *             left to a producer fills its own slot, marked {ws_hold}
 *                                                               [pipeline.c]
 *   warp-spec such a loop's copies -> a producer warpgroup (warp_specialize),
 *             the loop waiting and releasing slots             [warpspec.c]
 *   tma-prune the tma pass's tiles the pipeliner left: pointers again,
 *             their maps gone                                  [tma.c]
 *   smem-alloc  offsets of buffers and scratch, the launch's shared
 *             memory, the arch's limit                         [smem.c]
 *   barriers  bar.sync where threads share shared memory       [smem.c]
 *   codegen   LLVM IR through the LLVM-C API, optimised (-O), PTX from NVPTX
 *                                                               [llvm*.c, ptx.c]
 *
 * The verifier runs after every pass that rewrites IR, so a broken pass is
 * caught where it broke, not three passes later. */
#include "compile.h"

#include <string.h>

#include "codegen.h"
#include "layout.h"
#include "passes.h"

static bool after_pass(Diag *d, Function *f, const char *pass, const CompileHooks *h) {
    if (!ir_verify(d, f))
        return false;
    if (h && h->dump_after && h->dump && !strcmp(h->dump_after, pass))
        ir_print_func(h->dump, f);
    return true;
}

Node *compile_parse(Arena *a, Diag *d, const Source *src, CompileTimes *times) {
    double t0 = compile_clock();
    Node *m = parse_source(a, d, src);
    compile_time(times, STAGE_PARSE, &t0);
    return m;
}

bool compile_kernel_info(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o,
                         KernelInfo *info, CompileTimes *times) {
    SemaOptions so = options_to_sema(o);
    double t0 = compile_clock();
    bool ok = sema_kernel_info(a, d, src, module, &so, info);
    compile_time(times, STAGE_SEMA, &t0);
    return ok;
}

Function *compile_kernel(Arena *a, Diag *d, const Source *src, const Node *module,
                         const CompileOptions *o, const CompileHooks *hooks) {
    SemaOptions so = options_to_sema(o);
    CompileTimes *times = hooks ? hooks->times : NULL;
    double t0 = compile_clock();
    Function *f = sema_kernel(a, d, src, module, &so);
    if (f) {
        f->auto_tma = o->auto_tma > 0;         /* the tma pass may ask the launch for maps */
        f->warp_spec = o->warp_specialize != 0; /* on unless turned off (warpspec.c) */
        f->no_fp_fusion = o->fp_fusion == 0;    /* fused unless turned off (llvm.c) */
        f->maxnreg = o->maxnreg;                /* the entry's .maxnreg (llvm.c) */
    }
    bool ok = f && after_pass(d, f, "sema", hooks);
    compile_time(times, STAGE_SEMA, &t0);
    /* Target-independent, so the interpreter runs the folded dot too. */
    ok = ok && combine_pass(d, f) && after_pass(d, f, "combine", hooks);
    compile_time(times, STAGE_COMBINE, &t0);
    return ok ? f : NULL;
}

bool compile_heuristic_values(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o,
                              Buf *results, const char ***reads, int *nreads) {
    SemaOptions so = options_to_sema(o);
    return sema_heuristic_values(a, d, src, module, &so, results, reads, nreads);
}

int compile_kernel_names(const Node *module, const char **names, int max) {
    return sema_kernel_names(module, names, max);
}

static bool run_combine(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return combine_pass(d, f);
}

static bool run_flatten(Diag *d, Function *f, const PtxArch *t) {
    return flatten_pass(d, f, ptx_arch_has(t, ARCH_AMPERE), ptx_arch_has(t, ARCH_WGMMA), t->max_shared);
}

static bool run_peel(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return peel_pass(d, f);
}

/* Before the layout pass: a dead value would need a layout nothing asks for. */
static bool run_dce(Diag *d, Function *f, const PtxArch *t) {
    (void)d, (void)t;
    ir_dce(f);
    return true;
}

static bool run_sink(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return sink_pass(d, f);
}

/* The axis analysis (contiguity, divisibility, constancy) is the layout
 * pass's input, computed afresh here: no pass between may keep it. */
static bool run_layout(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    const AxisInfo *axis = axis_analyze(f);
    return axis && layout_pass(d, f, axis, t);
}

static bool run_tma(Diag *d, Function *f, const PtxArch *t) {
    return tma_pass(d, f, ptx_arch_has(t, ARCH_WGMMA));
}

/* wgmma needs the arch-specific sm_90a target (plain sm_90 keeps mma.sync). */
static bool run_pipeline(Diag *d, Function *f, const PtxArch *t) {
    return pipeline_pass(d, f, ptx_arch_has(t, ARCH_AMPERE), t->max_shared, ptx_arch_has(t, ARCH_WGMMA));
}
/* After the pipeliner, whose rings and copies it takes apart; before
 * smem-alloc, as the rings then live from the kernel's start. */
static bool run_warpspec(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return warpspec_pass(d, f);
}
/* The pointer tiles the tma pass offered and the pipeliner did not fill by
 * TMA get their pointers back, and unused maps leave the parameters. */
static bool run_tma_prune(Diag *d, Function *f, const PtxArch *t) {
    (void)d, (void)t;
    tma_prune(f);
    return true;
}
static bool run_smem(Diag *d, Function *f, const PtxArch *t) { return smem_alloc_pass(d, f, t->max_shared); }
static bool run_barriers(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return barrier_pass(d, f);
}

/* The passes after sema in pipeline order: the one list of their names
 * (--dump-after, --passes), with the stage their time goes to; also how a
 * pass runs alone on parsed IR (compile_run_passes). combine runs in
 * compile_kernel. */
static const struct {
    const char *name;
    bool (*run)(Diag *, Function *, const PtxArch *);
    CompileStage stage;
} pass_table[] = {
    {"combine", run_combine, STAGE_COMBINE},       {"flatten", run_flatten, STAGE_PIPELINE},
    {"peel", run_peel, STAGE_PIPELINE},            {"dce", run_dce, STAGE_LAYOUT},
    {"sink", run_sink, STAGE_LAYOUT},              {"layout", run_layout, STAGE_LAYOUT},
    {"tma", run_tma, STAGE_PIPELINE},
    {"pipeline", run_pipeline, STAGE_PIPELINE},    {"warp-spec", run_warpspec, STAGE_PIPELINE},
    {"tma-prune", run_tma_prune, STAGE_PIPELINE},  {"smem-alloc", run_smem, STAGE_SMEM},
    {"barriers", run_barriers, STAGE_BARRIERS},
};
enum { FIRST_GPU_PASS = 1 };

bool compile_pass_exists(const char *name) {
    if (!strcmp(name, "sema"))
        return true;
    for (size_t i = 0; i < sizeof pass_table / sizeof pass_table[0]; i++)
        if (!strcmp(pass_table[i].name, name))
            return true;
    return false;
}

void compile_pass_list(Buf *out) {
    buf_puts(out, "sema");
    for (size_t i = 0; i < sizeof pass_table / sizeof pass_table[0]; i++)
        buf_printf(out, ", %s", pass_table[i].name);
}

static size_t pass_index(const char *name) {
    size_t i = 0;
    while (strcmp(pass_table[i].name, name))
        i++;
    return i;
}

/* Does a loop of f wait for the warp-spec pass (the pipeliner's ws_hold)? */
static bool ws_pending(const Function *f) {
    for (const Inst *l = ir_ws_next(f, NULL); l; l = ir_ws_next(f, l))
        if (l->attr.ws_hold)
            return true;
    return false;
}

/* Where the GPU passes start for f. From sema every one runs; IR text
 * (tlc --ir-in) may come from any point of the pipeline, and the layout pass
 * and the optimisations before smem-alloc do not run twice: laid-out IR
 * continues at smem-alloc (at warp-spec where the pipeliner handed it a
 * loop), IR with shared offsets at barriers (which sees the barriers already
 * there and adds only missing ones). */
static size_t first_gpu_pass(const Function *f) {
    if (f->smem_allocated)
        return pass_index("barriers");
    if (f->nlayouts > 1)
        return pass_index(ws_pending(f) ? "warp-spec" : "smem-alloc");
    return FIRST_GPU_PASS;
}

bool compile_run_passes(Diag *d, Function *f, const char *list, const PtxArch *target, const CompileHooks *hooks) {
    if (!target)
        target = ptx_arch(NULL);
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ",");
        size_t i = 0, np = sizeof pass_table / sizeof pass_table[0];
        while (i < np && (strlen(pass_table[i].name) != n || strncmp(pass_table[i].name, p, n)))
            i++;
        if (i == np) {
            diag_plain(d, DIAG_ERROR, "unknown pass '%.*s' for --passes", (int)n, p);
            return false;
        }
        if (!pass_table[i].run(d, f, target) || !after_pass(d, f, pass_table[i].name, hooks))
            return false;
        p += n + (p[n] == ',');
    }
    return true;
}

bool compile_interp_passes(Diag *d, Function *f, const char *list) {
    size_t layout = pass_index("layout");
    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ","), i = 0;
        while (i < layout && (strlen(pass_table[i].name) != n || strncmp(pass_table[i].name, p, n)))
            i++;
        if (i == layout) {
            diag_plain(d, DIAG_ERROR,
                       "TL_INTERPRET_PASSES: '%.*s' is not a pass the interpreter can run after (one before the "
                       "layout pass: combine, flatten, peel, dce, sink)",
                       (int)n, p);
            return false;
        }
        p += n + (p[n] == ',');
    }
    return compile_run_passes(d, f, list, NULL, NULL);
}

bool compile_gpu(Diag *d, Function **fs, int n, const PtxArch *target, int opt_level, int debug_info,
                 CompileStop stop, const CompileHooks *hooks, Buf *ptx) {
    if (!target)
        target = ptx_arch(NULL);
    CompileTimes *times = hooks ? hooks->times : NULL;
    double t0 = compile_clock();
    for (int i = 0; i < n; i++) {
        Function *f = fs[i];
        for (size_t p = first_gpu_pass(f); p < sizeof pass_table / sizeof pass_table[0]; p++) {
            bool ok = pass_table[p].run(d, f, target) && after_pass(d, f, pass_table[p].name, hooks);
            compile_time(times, pass_table[p].stage, &t0);
            if (!ok)
                return false;
        }
        if (hooks && hooks->ir_gpu)
            ir_print_func(hooks->ir_gpu, f);
    }
    if (stop == COMPILE_TO_IR_GPU)
        return true;
    return codegen_module(d, fs, n, target, opt_level, debug_info, hooks ? hooks->llvm : NULL, ptx, times);
}

bool compile_check_gpu_limits(Arena *a, Diag *d, const Source *src, const Node *module, const CompileOptions *o) {
    Diag quiet = {0};
    Function *g = compile_kernel(a, &quiet, src, module, o, NULL);
    buf_free(&quiet.out);
    if (!g)
        return true; /* the first specialisation compiled: nothing to add */
    return compile_run_passes(d, g, "flatten,layout", o->arch, NULL);
}
