/* compile.c: the pass pipeline.
 *
 *   sema      AST + specialisation -> typed tile IR (constexprs folded, helpers
 *             inlined, static_range unrolled)                   [sema.c]
 *   combine   acc + dot(a, b, 0) -> dot(a, b, acc)              [combine.c]
 *   axis      contiguity / divisibility / constancy of every value [axis.c]
 *   layout    which thread owns which element: blocked, slice, MMA, dot
 *             operand; convert_layout where they must change  [layout_pass.c]
 *   pipeline  loads feeding a dot -> rings of shared buffers filled
 *             num_stages-1 iterations ahead by cp.async       [pipeline.c]
 *   smem-alloc  offsets of buffers and scratch, the launch's shared
 *             memory, the arch's limit                         [smem.c]
 *   barriers  bar.sync where threads share shared memory       [smem.c]
 *   codegen   LLVM IR through the LLVM-C API, O3, PTX from NVPTX  [llvm*.c, ptx.c]
 *
 * The verifier runs after every pass that rewrites IR, so a broken pass is
 * caught where it broke, not three passes later. */
#include "compile.h"

#include <string.h>

#include "codegen.h"
#include "layout.h"
#include "passes.h"
#include "ptx.h"

const char *const compile_pass_names[] = {"sema", "combine", "layout", "pipeline", "smem-alloc", "barriers", NULL};

static bool after_pass(Diag *d, Function *f, const char *pass, const CompileHooks *h) {
    if (!ir_verify(d, f))
        return false;
    if (h && h->dump_after && h->dump && !strcmp(h->dump_after, pass))
        ir_print_func(h->dump, f);
    return true;
}

Function *compile_kernel(Arena *a, Diag *d, const Source *src, const Node *module,
                         const CompileOptions *o, const CompileHooks *hooks) {
    SemaOptions so = options_to_sema(o);
    Function *f = sema_kernel(a, d, src, module, &so);
    if (!f || !after_pass(d, f, "sema", hooks))
        return NULL;
    if (!combine_pass(d, f) || !after_pass(d, f, "combine", hooks))
        return NULL;
    return f;
}

static bool run_layout(Diag *d, Function *f, const PtxArch *target) {
    (void)target;
    const AxisInfo *axis = axis_analyze(f);
    return axis && layout_pass(d, f, axis);
}

static bool run_combine(Diag *d, Function *f, const PtxArch *target) {
    (void)target;
    return combine_pass(d, f);
}

static bool run_pipeline(Diag *d, Function *f, const PtxArch *t) { return pipeline_pass(d, f, t->sm, t->max_shared); }
static bool run_smem(Diag *d, Function *f, const PtxArch *t) { return smem_alloc_pass(d, f, t->max_shared); }
static bool run_barriers(Diag *d, Function *f, const PtxArch *t) {
    (void)t;
    return barrier_pass(d, f);
}

/* The GPU passes in pipeline order, by their --dump-after names; also how a
 * pass runs alone on parsed IR (compile_run_passes). */
static const struct {
    const char *name;
    bool (*run)(Diag *, Function *, const PtxArch *);
} pass_table[] = {{"combine", run_combine}, {"layout", run_layout}, {"pipeline", run_pipeline},
                  {"smem-alloc", run_smem}, {"barriers", run_barriers}};
enum { FIRST_GPU_PASS = 1 };

bool compile_run_passes(Diag *d, Function *f, const char *list, const char *arch, const CompileHooks *hooks) {
    const PtxArch *target = ptx_arch(arch);
    if (!target) {
        diag_plain(d, DIAG_ERROR, "unsupported architecture '%s' (expected %s)", arch, ptx_arch_names());
        return false;
    }
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

bool compile_gpu(Diag *d, Function **fs, int n, const char *arch, const CompileHooks *hooks, Buf *ptx) {
    const PtxArch *target = ptx_arch(arch);
    if (!target) {
        diag_plain(d, DIAG_ERROR, "unsupported architecture '%s' (expected %s)", arch, ptx_arch_names());
        return false;
    }
    for (int i = 0; i < n; i++) {
        Function *f = fs[i];
        for (size_t p = FIRST_GPU_PASS; p < sizeof pass_table / sizeof pass_table[0]; p++)
            if (!pass_table[p].run(d, f, target) || !after_pass(d, f, pass_table[p].name, hooks))
                return false;
        if (hooks && hooks->ir_gpu)
            ir_print_func(hooks->ir_gpu, f);
    }
    return codegen_module(d, fs, n, target->name, 3, hooks ? hooks->llvm : NULL, ptx);
}
