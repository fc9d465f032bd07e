/* llvm_extern.c: code that is not ours to generate: libdevice calls
 * (`extern`), inline assembly (`inline_asm`), and the linking of the two
 * bitcode libraries those and the math ops call into.
 *
 *   extern      one call of the libdevice symbol per register
 *   inline_asm  one asm statement per `pack` registers of a thread (the last
 *               group filled with undef when the thread holds fewer); as in
 *               Triton, inputs and outputs narrower than 32 bits travel packed
 *               into 32-bit registers (4 x i8, 2 x f16) when pack allows it
 *   map_fn      tl.map_elementwise: its region lowered once per `pack`
 *               registers of a thread (the last group repeating its first)
 *   linking     after every kernel is lowered: tl's device math library
 *               (compiler/device/math.c, embedded as bitcode by the build) if
 *               a __tl_ function is called, NVIDIA's libdevice.10.bc if a
 *               __nv_ one is; both linked with LLVMLinkModules2, then every
 *               function and global the libraries brought is made internal,
 *               so the optimiser inlines what the kernels use and drops the
 *               rest (libdevice has ~500 functions; a kernel keeps a few). */
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <stdlib.h>
#include <string.h>

#include "libdevice.h"
#include "llvm_int.h"

/* The device math library's bitcode ($(B)/gen/devmath_bc.c). */
extern const unsigned char llvm_devmath_bc[];
extern const unsigned long llvm_devmath_bc_len;

static int nregs_of(Lower *L, ValueId v) {
    const ThreadMap *tm = llvm_tm(L, v);
    return tm ? tm->nregs : 1;
}

static DType dtype_of(Lower *L, ValueId v) { return (DType)L->f->values[v].type.dtype; }

/* Operand v in the layout of `like`: its registers, or one register for a scalar. */
static LLVMValueRef *operand(Lower *L, ValueId v, ValueId like, Span sp, int *step) {
    *step = llvm_tm(L, v) ? 1 : 0;
    return llvm_regs_like(L, v, like, sp);
}

/* The results of an op computed in its first result's layout (n registers
 * each): those the layout pass gave another layout are moved into it
 * (smem.c bounds the scratch). */
static void set_results(Lower *L, Inst *in, LLVMValueRef **outs, int n) {
    ValueId res = in->results[0];
    const ThreadMap *tm0 = llvm_tm(L, res);
    for (int j = 0; j < in->nresults; j++) {
        const ThreadMap *tm = llvm_tm(L, in->results[j]);
        if (j == 0 || !tm0 || !tm || layout_tm_equal(tm0, tm)) {
            llvm_set(L, in->results[j], outs[j], n);
            continue;
        }
        Type t = L->f->values[res].type;
        int64_t coef[IR_MAX_RANK];
        llvm_row_major(t.rank, t.shape, coef);
        LLVMValueRef *r = llvm_new_regs(L, tm->nregs);
        llvm_move(L, tm0, outs[j], dtype_of(L, in->results[j]), tm, r, coef, in->span);
        llvm_set(L, in->results[j], r, tm->nregs);
    }
}

/* ---- extern: libdevice ---- */

/* The inline-asm constraint of an argument or result kind (libdevice.h). */
static const char *kind_reg(char k) { return k == 'f' ? "f" : k == 'd' ? "d" : k == 'l' || k == 'U' ? "l" : "r"; }

void llvm_lower_extern(Lower *L, Inst *in) {
    ValueId res = in->results[0];
    const LibdeviceVariant *var = NULL;
    const LibdeviceFn *fn = in->attr.str ? libdevice_by_symbol(in->attr.str, &var) : NULL;
    if (!fn) {
        diag_internal(L->d, "extern: unknown libdevice symbol '%s'", in->attr.str ? in->attr.str : "");
        L->failed = true;
        return;
    }
    if (!libdevice_path()) {
        const char *env = getenv("TL_LIBDEVICE");
        if (env && *env)
            diag_error(L->d, L->f->src, in->span,
                       "libdevice.%s needs NVIDIA's libdevice.10.bc, but TL_LIBDEVICE=%s cannot be read", fn->name, env);
        else
            diag_error(L->d, L->f->src, in->span,
                       "libdevice.%s needs NVIDIA's libdevice.10.bc, which is not in /usr/local/cuda/nvvm/libdevice/: "
                       "set TL_LIBDEVICE to its path",
                       fn->name);
        L->failed = true;
        return;
    }
    int n = nregs_of(L, res), step[LIBDEVICE_MAX_ARGS] = {0};
    LLVMValueRef *ops[LIBDEVICE_MAX_ARGS] = {0};
    for (int a = 0; a < in->nargs && a < LIBDEVICE_MAX_ARGS; a++)
        ops[a] = operand(L, in->args[a], res, in->span, &step[a]);
    LLVMValueRef *r = llvm_new_regs(L, n);
    LLVMTypeRef rt = llvm_type(L, dtype_of(L, res));
    LLVMTypeRef fty = NULL;
    LLVMValueRef asmv = NULL;
    if (var->ptx) { /* the variant's own instruction instead of the call */
        char cons[2 * LIBDEVICE_MAX_ARGS + 4] = "=";
        LLVMTypeRef at[LIBDEVICE_MAX_ARGS];
        strcat(cons, kind_reg(var->ret));
        for (int a = 0; a < in->nargs && a < LIBDEVICE_MAX_ARGS; a++) {
            at[a] = llvm_type(L, dtype_of(L, in->args[a]));
            strcat(cons, ",");
            strcat(cons, kind_reg(var->args[a]));
        }
        fty = LLVMFunctionType(rt, at, (unsigned)in->nargs, 0);
        asmv = LLVMGetInlineAsm(fty, (char *)var->ptx, strlen(var->ptx), cons, strlen(cons), 0, 0,
                                LLVMInlineAsmDialectATT, 0);
    }
    for (int i = 0; i < n; i++) {
        LLVMValueRef args[LIBDEVICE_MAX_ARGS];
        for (int a = 0; a < in->nargs && a < LIBDEVICE_MAX_ARGS; a++)
            args[a] = ops[a][i * step[a]];
        r[i] = asmv ? LLVMBuildCall2(L->b, fty, asmv, args, (unsigned)in->nargs, "")
                    : llvm_call(L, in->attr.str, rt, args, in->nargs);
    }
    llvm_set(L, res, r, n);
}

/* ---- inline_asm ---- */

/* Elements of type dt one 32-bit register carries, at most pack. */
static int per_reg(DType dt, int pack) {
    int e = 32 / dt_bits(dt);
    return e < 1 ? 1 : e > pack ? pack : e;
}

/* Outputs and inputs the constraint string names ("=r,=r,r,l,~{memory}"). */
static void count_constraints(const char *c, int *outs, int *ins) {
    *outs = *ins = 0;
    while (*c) {
        size_t sp = strspn(c, " \t"); /* "=r,r, r": the spaces are not part of an entry (sema checks them) */
        c += sp;
        size_t n = strcspn(c, ",");
        if (n && c[0] == '=')
            (*outs)++;
        else if (n && c[0] != '~')
            (*ins)++;
        c += n + (c[n] == ',');
    }
}

void llvm_lower_inline_asm(Lower *L, Inst *in) {
    ValueId res = in->results[0];
    int n = nregs_of(L, res), pack = in->attr.pack > 0 ? in->attr.pack : 1;
    /* the asm's operands: per result / argument, pack / per_reg registers */
    int nout = 0, nin = 0;
    for (int j = 0; j < in->nresults; j++)
        nout += pack / per_reg(dtype_of(L, in->results[j]), pack);
    for (int a = 0; a < in->nargs; a++)
        nin += pack / per_reg(dtype_of(L, in->args[a]), pack);
    int c_out, c_in;
    count_constraints(in->attr.str2 ? in->attr.str2 : "", &c_out, &c_in);
    if (c_out != nout || c_in != nin) {
        diag_error(L->d, L->f->src, in->span,
                   "the constraints \"%s\" name %d output%s and %d input%s, but with pack=%d this call has %d and %d",
                   in->attr.str2 ? in->attr.str2 : "", c_out, c_out == 1 ? "" : "s", c_in, c_in == 1 ? "" : "s", pack,
                   nout, nin);
        L->failed = true;
        return;
    }
    LLVMValueRef **ops = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)(in->nargs + 1));
    int *step = arena_alloc(L->f->arena, sizeof(int) * (size_t)(in->nargs + 1));
    for (int a = 0; a < in->nargs; a++)
        ops[a] = operand(L, in->args[a], res, in->span, &step[a]);
    LLVMTypeRef *otys = arena_alloc(L->f->arena, sizeof(LLVMTypeRef) * (size_t)(nout + 1));
    LLVMTypeRef *itys = arena_alloc(L->f->arena, sizeof(LLVMTypeRef) * (size_t)(nin + 1));
    LLVMValueRef *iv = arena_alloc(L->f->arena, sizeof(LLVMValueRef) * (size_t)(nin + 1));
    int k = 0;
    for (int j = 0; j < in->nresults; j++) {
        DType dt = dtype_of(L, in->results[j]);
        for (int q = 0; q < pack / per_reg(dt, pack); q++)
            otys[k++] = per_reg(dt, pack) > 1 ? L->t_i32 : llvm_type(L, dt);
    }
    k = 0;
    for (int a = 0; a < in->nargs; a++) {
        DType dt = dtype_of(L, in->args[a]);
        for (int q = 0; q < pack / per_reg(dt, pack); q++)
            itys[k++] = per_reg(dt, pack) > 1 ? L->t_i32 : llvm_type(L, dt);
    }
    LLVMTypeRef rty = nout == 1 ? otys[0] : LLVMStructTypeInContext(L->ctx, otys, (unsigned)nout, 0);
    LLVMTypeRef fty = LLVMFunctionType(rty, itys, (unsigned)nin, 0);
    const char *text = in->attr.str ? in->attr.str : "", *cons = in->attr.str2 ? in->attr.str2 : "";
    LLVMValueRef asmv = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons), !in->attr.pure,
                                         0, LLVMInlineAsmDialectATT, 0);
    LLVMValueRef **outs = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)in->nresults);
    for (int j = 0; j < in->nresults; j++)
        outs[j] = llvm_new_regs(L, n + pack);
    /* a thread's registers in groups of pack; the last group of a thread
     * holding fewer is filled with undef, and its extra outputs dropped */
    for (int g = 0; g < (n + pack - 1) / pack; g++) {
        k = 0;
        for (int a = 0; a < in->nargs; a++) {
            DType dt = dtype_of(L, in->args[a]);
            int e = per_reg(dt, pack);
            for (int q = 0; q < pack / e; q++) {
                LLVMTypeRef et = llvm_type(L, dt);
                if (e == 1) {
                    int r = g * pack + q;
                    iv[k++] = r < n ? ops[a][r * step[a]] : LLVMGetUndef(et);
                    continue;
                }
                LLVMValueRef v = LLVMGetUndef(LLVMVectorType(et, (unsigned)e));
                for (int x = 0; x < e; x++)
                    if (g * pack + q * e + x < n)
                        v = LLVMBuildInsertElement(L->b, v, ops[a][(g * pack + q * e + x) * step[a]], llvm_i32(L, x),
                                                   "");
                iv[k++] = LLVMBuildBitCast(L->b, v, L->t_i32, "");
            }
        }
        LLVMValueRef call = LLVMBuildCall2(L->b, fty, asmv, iv, (unsigned)nin, "");
        k = 0;
        for (int j = 0; j < in->nresults; j++) {
            DType dt = dtype_of(L, in->results[j]);
            int e = per_reg(dt, pack);
            for (int q = 0; q < pack / e; q++, k++) {
                LLVMValueRef o = nout == 1 ? call : LLVMBuildExtractValue(L->b, call, (unsigned)k, "");
                if (e == 1) {
                    outs[j][g * pack + q] = o;
                    continue;
                }
                LLVMValueRef v = LLVMBuildBitCast(L->b, o, LLVMVectorType(llvm_type(L, dt), (unsigned)e), "");
                for (int x = 0; x < e; x++)
                    outs[j][g * pack + q * e + x] = LLVMBuildExtractElement(L->b, v, llvm_i32(L, x), "");
            }
        }
    }
    set_results(L, in, outs, n);
}

/* ---- map_fn: tl.map_elementwise ---- */

/* The region lowered once per group of pack registers of a thread, on those
 * registers of each operand (in the first result's layout); a last group of
 * fewer repeats its first register, and its extra results are dropped. The
 * region's own control flow becomes branches around each run. */
void llvm_lower_map_fn(Lower *L, Inst *in) {
    ValueId res = in->results[0];
    Block *blk = in->regions[0];
    int n = nregs_of(L, res), pack = in->attr.pack > 0 ? in->attr.pack : 1, na = in->nargs, m = in->nresults;
    if (blk->nargs != na * pack) {
        diag_internal(L->d, "map_fn: %d region arguments for %d operands and pack %d", blk->nargs, na, pack);
        L->failed = true;
        return;
    }
    LLVMValueRef **ops = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)na);
    int *step = arena_alloc(L->f->arena, sizeof(int) * (size_t)na);
    for (int a = 0; a < na; a++)
        ops[a] = operand(L, in->args[a], res, in->span, &step[a]);
    LLVMValueRef **outs = arena_alloc(L->f->arena, sizeof(LLVMValueRef *) * (size_t)m);
    for (int j = 0; j < m; j++)
        outs[j] = llvm_new_regs(L, n + pack);
    for (int g = 0; g < n; g += pack) {
        for (int a = 0; a < na; a++)
            for (int q = 0; q < pack; q++) {
                LLVMValueRef *r = llvm_new_regs(L, 1);
                r[0] = ops[a][(g + q < n ? g + q : g) * step[a]];
                llvm_set(L, blk->args[a * pack + q], r, 1);
            }
        Inst *y = llvm_lower_inline(L, blk);
        if (L->failed)
            return;
        if (!y || y->op != IR_YIELD || y->nargs != m * pack) {
            diag_internal(L->d, "the fn region of map_fn does not yield %d values", m * pack);
            L->failed = true;
            return;
        }
        for (int j = 0; j < m; j++)
            for (int q = 0; q < pack && g + q < n; q++)
                outs[j][g + q] = llvm_val(L, y->args[j * pack + q])->r[0];
    }
    set_results(L, in, outs, n);
}

/* ---- linking ---- */

static bool has_prefix(const char *s, const char *p) { return !strncmp(s, p, strlen(p)); }

/* Parse a library, give it the module's target, and link it in. */
static bool link_bitcode(Lower *L, LLVMMemoryBufferRef mb, const char *what) {
    LLVMModuleRef lib = NULL;
    if (LLVMParseBitcodeInContext2(L->ctx, mb, &lib)) {
        LLVMDisposeMemoryBuffer(mb);
        diag_internal(L->d, "cannot read %s as LLVM bitcode", what);
        return false;
    }
    LLVMDisposeMemoryBuffer(mb);
    LLVMSetTarget(lib, LLVMGetTarget(L->mod));
    LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(L->mod));
    /* the library's own target attributes would keep its functions from
     * being inlined into kernels for another sm */
    for (LLVMValueRef fn = LLVMGetFirstFunction(lib); fn; fn = LLVMGetNextFunction(fn)) {
        LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-cpu", 10);
        LLVMRemoveStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "target-features", 15);
    }
    if (LLVMLinkModules2(L->mod, lib)) {
        diag_internal(L->d, "cannot link %s into the kernel's module", what);
        return false;
    }
    return true;
}

bool llvm_link_libraries(Lower *L) {
    bool need_tl = false, need_nv = false;
    int nold = 0, cap = 16;
    LLVMValueRef *old = arena_alloc(L->f->arena, sizeof(LLVMValueRef) * (size_t)cap);
    for (LLVMValueRef fn = LLVMGetFirstFunction(L->mod); fn; fn = LLVMGetNextFunction(fn)) {
        const char *name = LLVMGetValueName(fn);
        if (LLVMIsDeclaration(fn)) {
            need_tl |= has_prefix(name, "__tl_");
            need_nv |= has_prefix(name, "__nv_");
            continue;
        }
        if (nold == cap) {
            LLVMValueRef *m = arena_alloc(L->f->arena, sizeof(LLVMValueRef) * (size_t)(cap *= 2));
            memcpy(m, old, sizeof(LLVMValueRef) * (size_t)nold);
            old = m;
        }
        old[nold++] = fn;
    }
    if (!need_tl && !need_nv)
        return true;
    int nglob = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(L->mod); g; g = LLVMGetNextGlobal(g))
        nglob++;
    LLVMValueRef *globs = arena_alloc(L->f->arena, sizeof(LLVMValueRef) * (size_t)(nglob + 1));
    nglob = 0;
    for (LLVMValueRef g = LLVMGetFirstGlobal(L->mod); g; g = LLVMGetNextGlobal(g))
        globs[nglob++] = g;
    if (need_tl) {
        LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange((const char *)llvm_devmath_bc,
                                                                       (size_t)llvm_devmath_bc_len, "devmath", 0);
        if (!link_bitcode(L, mb, "tl's device math library"))
            return false;
    }
    if (need_nv) {
        const char *path = libdevice_path();
        LLVMMemoryBufferRef mb = NULL;
        char *err = NULL;
        if (!path || LLVMCreateMemoryBufferWithContentsOfFile(path, &mb, &err)) {
            diag_error(L->d, NULL, span_at(0, 0), "cannot read libdevice (%s): %s", path ? path : "not found",
                       err ? err : "?");
            LLVMDisposeMessage(err);
            return false;
        }
        if (!link_bitcode(L, mb, path))
            return false;
        /* __nvvm_reflect("__CUDA_FTZ") is 0: denormals are kept, as in our own code */
        LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorOverride, "nvvm-reflect-ftz", 16,
                          LLVMValueAsMetadata(llvm_i32(L, 0)));
    }
    /* what the libraries brought is private to this module */
    for (LLVMValueRef fn = LLVMGetFirstFunction(L->mod); fn; fn = LLVMGetNextFunction(fn)) {
        bool ours = false;
        for (int i = 0; i < nold && !ours; i++)
            ours = old[i] == fn;
        if (!ours && !LLVMIsDeclaration(fn))
            LLVMSetLinkage(fn, LLVMInternalLinkage);
    }
    for (LLVMValueRef g = LLVMGetFirstGlobal(L->mod); g; g = LLVMGetNextGlobal(g)) {
        bool ours = false;
        for (int i = 0; i < nglob && !ours; i++)
            ours = globs[i] == g;
        if (!ours && !LLVMIsDeclaration(g))
            LLVMSetLinkage(g, LLVMInternalLinkage);
    }
    return true;
}
