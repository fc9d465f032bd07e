/* llvm_debug.c: source lines in the PTX (`tlc -lineinfo`, `-g`; the C API's
 * default), through LLVM's debug-info C API.
 *
 * Algorithm. One DICompileUnit per module, for the kernel's source file (the
 * name as given: a path, or "<string>" for the C API's strings), one
 * DISubprogram per kernel at its `def` line. Every op is lowered with the
 * builder's debug location set to the op's source span (the spans the
 * diagnostics use), so every LLVM instruction the op emits carries it; the
 * entry block's ids and allocas carry the `def` line. An op with no span (made
 * by a pass) takes the location of the op around it. The NVPTX backend then
 * prints `.file` and a `.loc` before each instruction whose line changes; the
 * optimiser keeps or merges locations, it never lets them change the code.
 *
 *   lines (-lineinfo)  DWARF line tables only: `.file` / `.loc` and the
 *                      minimal DWARF sections ptxas turns into a line table
 *   full (-g)          a full compile unit as well: the kernels as
 *                      subprograms in `.debug_info` (no variables: the tile
 *                      IR's values are not source variables); ptxas and the
 *                      driver take it as they take -lineinfo unless asked to
 *                      build device-debug code (ptxas -g)
 *
 * Libraries linked in (libdevice, tl's device math) have no debug info: the
 * inliner gives their instructions the call's location. */
#include <llvm-c/DebugInfo.h>
#include <string.h>

#include "llvm_int.h"

void llvm_debug_begin(Lower *L, int level, const Source *src, bool optimized) {
    L->debug = level;
    L->di_optimized = optimized;
    if (level <= 0)
        return;
    L->dib = LLVMCreateDIBuilder(L->mod);
    const char *name = src && src->name ? src->name : "<string>";
    /* no directory: the PTX stays the same wherever it is compiled (a
     * relative name is looked up from the profiler's source folders) */
    L->di_file = LLVMDIBuilderCreateFile(L->dib, name, strlen(name), "", 0);
    static const char producer[] = "tl";
    /* DW_LANG_C, as Triton writes it: the CUDA tools know it, and nothing in a
     * line table depends on the language */
    L->di_cu = LLVMDIBuilderCreateCompileUnit(
        L->dib, LLVMDWARFSourceLanguageC, L->di_file, producer, sizeof producer - 1, optimized, "", 0, 0, "", 0,
        level >= 2 ? LLVMDWARFEmissionFull : LLVMDWARFEmissionLineTablesOnly, 0, 0, 0, "", 0, "", 0);
    /* Without "Debug Info Version" LLVM drops all of it; DWARF 2 is what
     * clang gives CUDA device code and what ptxas reads. */
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                      LLVMValueAsMetadata(LLVMConstInt(L->t_i32, LLVMDebugMetadataVersion(), 0)));
    LLVMAddModuleFlag(L->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                      LLVMValueAsMetadata(LLVMConstInt(L->t_i32, 2, 0)));
}

/* The first line an op of the block has: the def line of IR that has none. */
static int first_line(const Block *b) {
    for (int i = 0; b && i < b->ninsts; i++)
        if (b->insts[i]->span.line > 0)
            return b->insts[i]->span.line;
    return 1;
}

void llvm_debug_function(Lower *L) {
    if (L->debug <= 0)
        return;
    const Function *f = L->f;
    int line = f->span.line > 0 ? f->span.line : first_line(f->body);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, L->di_file, NULL, 0, LLVMDIFlagZero);
    L->di_sp = LLVMDIBuilderCreateFunction(L->dib, L->di_file, f->name, strlen(f->name), f->name, strlen(f->name),
                                           L->di_file, (unsigned)line, ty, 0, 1, (unsigned)line, LLVMDIFlagZero,
                                           L->di_optimized);
    LLVMSetSubprogram(L->fn, L->di_sp);
    unsigned col = f->span.line > 0 ? (unsigned)f->span.col : 0;
    LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(L->ctx, (unsigned)line, col, L->di_sp, NULL);
    LLVMSetCurrentDebugLocation2(L->b, loc);
    LLVMSetCurrentDebugLocation2(L->eb, loc);
}

LLVMMetadataRef llvm_debug_here(Lower *L) { return L->debug > 0 ? LLVMGetCurrentDebugLocation2(L->b) : NULL; }

void llvm_debug_set(Lower *L, LLVMMetadataRef loc) {
    if (L->debug > 0)
        LLVMSetCurrentDebugLocation2(L->b, loc);
}

void llvm_debug_at(Lower *L, Span sp, LLVMMetadataRef outer) {
    if (L->debug <= 0)
        return;
    LLVMSetCurrentDebugLocation2(
        L->b, sp.line > 0 ? LLVMDIBuilderCreateDebugLocation(L->ctx, (unsigned)sp.line, (unsigned)sp.col, L->di_sp, NULL)
                          : outer);
}

void llvm_debug_end_function(Lower *L) {
    if (L->debug <= 0)
        return;
    LLVMSetCurrentDebugLocation2(L->b, NULL);
    LLVMSetCurrentDebugLocation2(L->eb, NULL);
}

void llvm_debug_finish(Lower *L) {
    if (!L->dib)
        return;
    LLVMDIBuilderFinalize(L->dib);
    LLVMDisposeDIBuilder(L->dib);
    L->dib = NULL;
}
