/* compile.c: the pass pipeline, the one path from source to PTX that tlc and
 * the C API share.
 *
 *   parse     source -> AST                                     [lang/]
 *   sema      AST + specialisation -> typed tile IR (constexprs folded, helpers
 *             inlined, static_range unrolled)                   [sema.c]
 *   dce       pure ops whose results nothing reads are removed  [dce.c]
 *   axis      contiguity / divisibility / constancy of every value [axis.c]
 *   layout    which thread owns which element: blocked, slice, MMA, dot
 *             operand; convert_layout where they must change  [layout_pass.c]
 *   codegen   LLVM IR through the LLVM-C API, optimised, PTX from NVPTX
 *                                                               [llvm*.c, ptx.c]
 *
 * The verifier runs after every pass that rewrites IR, so a broken pass is
 * caught where it broke, not three passes later. */
#include "compile.h"

#include <string.h>

#include "codegen.h"
#include "layout.h"

const char *const compile_pass_names[] = {"sema", "layout", NULL};

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
    bool ok = f && after_pass(d, f, "sema", hooks);
    compile_time(times, STAGE_SEMA, &t0);
    return ok ? f : NULL;
}

bool compile_gpu(Diag *d, Function **fs, int n, const PtxArch *target, int opt_level, CompileStop stop,
                 const CompileHooks *hooks, Buf *ptx) {
    if (!target)
        target = ptx_arch(NULL);
    CompileTimes *times = hooks ? hooks->times : NULL;
    double t0 = compile_clock();
    for (int i = 0; i < n; i++) {
        Function *f = fs[i];
        ir_dce(f);
        const AxisInfo *axis = axis_analyze(f);
        compile_time(times, STAGE_AXIS, &t0);
        bool ok = axis && layout_pass(d, f, axis, target->max_shared) && after_pass(d, f, "layout", hooks);
        compile_time(times, STAGE_LAYOUT, &t0);
        if (!ok)
            return false;
        if (hooks && hooks->ir_gpu)
            ir_print_func(hooks->ir_gpu, f);
    }
    if (stop == COMPILE_TO_IR_GPU)
        return true;
    return codegen_module(d, fs, n, target, opt_level, hooks ? hooks->llvm : NULL, ptx, times);
}
