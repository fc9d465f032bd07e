/* ptx.c: PTX emission through LLVM's NVPTX backend.
 *
 * The target machine (triple nvptx64-nvidia-cuda, the arch's LLVM CPU, the
 * oldest PTX ISA version that arch needs, so older drivers can still JIT the
 * result), LLVM's default<On> pipeline, and assembly emission under the
 * arch's own .target and .version (arch.c: LLVM 19 stops at sm_90a). */
#include <llvm-c/Core.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "llvm_int.h"

/* The newest PTX ISA LLVM 19's NVPTX backend writes (+ptx85). */
enum { LLVM_PTX_MAX = 85 };

static const char triple[] = "nvptx64-nvidia-cuda";

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Register only the NVPTX target: it is the only backend linked in. */
static void init_nvptx(void) {
    LLVMInitializeNVPTXTargetInfo();
    LLVMInitializeNVPTXTarget();
    LLVMInitializeNVPTXTargetMC();
    LLVMInitializeNVPTXAsmPrinter();
}

const char *ptx_llvm_version(void) {
    static char buf[32];
    unsigned maj, min, pat;
    LLVMGetVersion(&maj, &min, &pat);
    snprintf(buf, sizeof buf, "%u.%u.%u", maj, min, pat);
    return buf;
}

int ptx_target_available(void) {
    pthread_once(&init_once, init_nvptx);
    LLVMTargetRef t;
    char *err = NULL;
    if (LLVMGetTargetFromTriple(triple, &t, &err)) {
        LLVMDisposeMessage(err);
        return 0;
    }
    return 1;
}

/* The caller owns *err (LLVMDisposeMessage) when NULL is returned. */
LLVMTargetMachineRef ptx_target_machine(const PtxArch *a, int opt_level, char **err) {
    pthread_once(&init_once, init_nvptx);
    LLVMTargetRef t;
    if (LLVMGetTargetFromTriple(triple, &t, err))
        return NULL;
    LLVMCodeGenOptLevel lvl = opt_level <= 0 ? LLVMCodeGenLevelNone
                              : opt_level == 1 ? LLVMCodeGenLevelLess
                              : opt_level == 2 ? LLVMCodeGenLevelDefault
                                               : LLVMCodeGenLevelAggressive;
    char features[16]; /* the arch's PTX ISA, at most LLVM 19's newest (ptx_emit declares the arch's) */
    snprintf(features, sizeof features, "+ptx%d", a->isa < LLVM_PTX_MAX ? a->isa : LLVM_PTX_MAX);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(t, triple, a->llvm_cpu, features, lvl,
                                                      LLVMRelocDefault, LLVMCodeModelDefault);
    if (!tm)
        *err = LLVMCreateMessage("cannot create the NVPTX target machine");
    return tm;
}

bool ptx_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level, char **err) {
    /* -O2 is tl's own pipeline: the lowering already vectorises, unrolls and
     * lays out memory accesses, so what is left is cleaning up the IR it
     * emits (scalar replacement, CSE, combining, address reassociation) —
     * about half of default<O3>'s time for PTX with fewer instructions on
     * every example. -O0, -O1 and -O3 are LLVM's own pipelines. */
    static const char tl_pipeline[] =
        "globaldce,function(sroa,early-cse,instcombine,simplifycfg,reassociate,gvn,instcombine,dce)";
    char pipeline[160];
    if (opt_level == 2)
        snprintf(pipeline, sizeof pipeline, "%s", tl_pipeline);
    else
        snprintf(pipeline, sizeof pipeline, "default<O%d>", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
    LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
    LLVMErrorRef e = LLVMRunPasses(m, pipeline, tm, opts);
    LLVMDisposePassBuilderOptions(opts);
    if (e) {
        /* Hand back a message the caller frees like the others (LLVMDisposeMessage). */
        char *msg = LLVMGetErrorMessage(e);
        *err = LLVMCreateMessage(msg);
        LLVMDisposeErrorMessage(msg);
        return false;
    }
    return true;
}

/* Some instructions the lowering writes as inline asm need a newer PTX ISA
 * than the one the arch table asks of every kernel (so that older drivers
 * can still load the rest): raise `.version` in the kernels that use them,
 * and only there. Each needle is text only that instruction prints; `need`
 * is a floor the caller sets (-g's DWARF). */
static const struct {
    const char *needle;
    int isa; /* major * 10 + minor */
} isa_needs[] = {
    {".f32.e4m3.", 84}, {".f32.e5m2.", 84},      /* fp8 mma.sync (llvm_dot.c) */
    {"createpolicy.fractional", 74},              /* an eviction policy's L2 hint (llvm_mem.c) */
    {".L1::evict_", 74},
    {".add.noftz.f16", 63},                       /* fp16 atomic add (llvm_mem.c) */
    /* tensor maps made in the kernel (llvm_shared.c): 8.3 has them, but
     * until 8.5 ptxas reads global_stride as bytes / 16 (Triton's
     * TMAToLLVM works around that); from 8.6 it is bytes, as written */
    {"tensormap.replace", 86},
};

static void require_isa(char *text, size_t len, int need) {
    for (size_t i = 0; i < sizeof isa_needs / sizeof isa_needs[0]; i++)
        if (isa_needs[i].isa > need && memmem(text, len, isa_needs[i].needle, strlen(isa_needs[i].needle)))
            need = isa_needs[i].isa;
    char *v = need ? memmem(text, len, ".version ", 9) : NULL;
    if (!v || v + 12 > text + len)
        return;
    char *d = v + 9; /* "7.8\n": one digit, a dot, one digit */
    if (d[0] >= '0' && d[0] <= '9' && d[1] == '.' && d[2] >= '0' && d[2] <= '9' && (d[3] == '\n' || d[3] == '\r') &&
        (d[0] - '0') * 10 + (d[2] - '0') < need)
        d[0] = (char)('0' + need / 10), d[2] = (char)('0' + need % 10);
}

/* NVPTX writes `.target sm_XX, debug` for any debug info, line tables
 * included, and ptxas (the driver's JIT too) then builds device-debug code:
 * unoptimised, several times slower. Line tables must not change the code,
 * so they lose the word, as Triton's make_ptx drops it; -g keeps it (that is
 * nvcc -G's device debugging). Returns the new length. */
static size_t drop_debug_target(char *text, size_t len) {
    char *t = memmem(text, len, "\n.target ", 9);
    char *eol = t ? memchr(t + 1, '\n', len - (size_t)(t + 1 - text)) : NULL;
    char *w = eol ? memmem(t, (size_t)(eol - t), ", debug", 7) : NULL;
    if (!w)
        return len;
    memmove(w, w + 7, len - (size_t)(w + 7 - text));
    return len - 7;
}

/* Appends LLVM's PTX (text, len) to out under a's own .target where LLVM
 * compiled for another CPU (arch.c: sm_90 code for a Blackwell). */
static void put_retargeted(Buf *out, const char *text, size_t len, const PtxArch *a) {
    const char *t = memmem(text, len, "\n.target ", 9);
    size_t n = strlen(a->llvm_cpu), at = t ? (size_t)(t + 9 - text) : 0;
    if (!t || !strcmp(a->name, a->llvm_cpu) || at + n >= len || strncmp(text + at, a->llvm_cpu, n) ||
        (text[at + n] != '\n' && text[at + n] != ',')) {
        buf_putn(out, text, len);
        return;
    }
    buf_putn(out, text, at);
    buf_puts(out, a->name);
    buf_putn(out, text + at + n, len - at - n);
}

bool ptx_emit(LLVMModuleRef m, LLVMTargetMachineRef tm, const PtxArch *a, int debug_info, Buf *out, char **err) {
    LLVMMemoryBufferRef mb;
    if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, err, &mb))
        return false;
    size_t start = out->len;
    put_retargeted(out, LLVMGetBufferStart(mb), LLVMGetBufferSize(mb), a);
    LLVMDisposeMemoryBuffer(mb);
    if (out->data && debug_info == 1)
        out->len = start + drop_debug_target(out->data + start, out->len - start);
    /* the arch's own ISA where LLVM's stops short; -g's DWARF has label
     * differences in its sections: PTX ISA 7.5 */
    int floor = debug_info >= 2 && a->isa < 75 ? 75 : a->isa;
    if (out->data)
        require_isa(out->data + start, out->len - start, floor);
    return true;
}
