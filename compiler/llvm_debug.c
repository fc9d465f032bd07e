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
#include <stdlib.h>
#include <string.h>

#include "llvm_int.h"

void llvm_debug_begin(Lower *L, int level, const Source *src, bool optimized) {
    L->debug = level;
    L->di_optimized = optimized;
    if (level <= 0)
        return;
    L->dib = LLVMCreateDIBuilder(L->mod);
    L->di_pos = source_pos_all(src, &L->di_npos);
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

/* Source line `line`'s file (a DIFile) and line there: the source's own,
 * or what a `# line` directive says (the Triton shim's original files). */
static LLVMMetadataRef file_of(Lower *L, int line, unsigned *out_line, int *index) {
    *out_line = (unsigned)line, *index = -1;
    if (!L->di_pos || line < 1 || line > L->di_npos)
        return L->di_file;
    SourcePos p = L->di_pos[line];
    *out_line = (unsigned)p.line;
    for (int i = 0; i < L->di_nfiles; i++)
        if (L->di_files[i].len == p.file_len && !memcmp(L->di_files[i].name, p.file, (size_t)p.file_len))
            return L->di_files[*index = i].file;
    if (L->di_nfiles == 16)
        return L->di_file; /* more files than a kernel reaches: the source's own name */
    int i = *index = L->di_nfiles++;
    L->di_files[i].name = p.file, L->di_files[i].len = p.file_len, L->di_files[i].scope = NULL;
    return L->di_files[i].file = LLVMDIBuilderCreateFile(L->dib, p.file, (size_t)p.file_len, "", 0);
}

/* A location at source line `line`: in the kernel's scope, or in a lexical
 * block of another file (a helper from another file, after a `# line`). */
static LLVMMetadataRef location(Lower *L, int line, unsigned col) {
    unsigned at;
    int i;
    LLVMMetadataRef file = file_of(L, line, &at, &i);
    LLVMMetadataRef scope = L->di_sp;
    if (file != LLVMDIScopeGetFile(L->di_sp) && i >= 0) {
        if (!L->di_files[i].scope)
            L->di_files[i].scope = LLVMDIBuilderCreateLexicalBlockFile(L->dib, L->di_sp, file, 0);
        scope = L->di_files[i].scope;
    }
    return LLVMDIBuilderCreateDebugLocation(L->ctx, at, col, scope, NULL);
}

void llvm_debug_function(Lower *L) {
    if (L->debug <= 0)
        return;
    const Function *f = L->f;
    int line = f->span.line > 0 ? f->span.line : first_line(f->body);
    for (int i = 0; i < L->di_nfiles; i++)
        L->di_files[i].scope = NULL; /* lexical blocks belong to one kernel */
    unsigned at;
    int idx;
    LLVMMetadataRef file = file_of(L, line, &at, &idx);
    LLVMMetadataRef ty = LLVMDIBuilderCreateSubroutineType(L->dib, file, NULL, 0, LLVMDIFlagZero);
    L->di_sp = LLVMDIBuilderCreateFunction(L->dib, file, f->name, strlen(f->name), f->name, strlen(f->name), file, at,
                                           ty, 0, 1, at, LLVMDIFlagZero, L->di_optimized);
    LLVMSetSubprogram(L->fn, L->di_sp);
    unsigned col = f->span.line > 0 ? (unsigned)f->span.col : 0;
    LLVMMetadataRef loc = location(L, line, col);
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
    LLVMSetCurrentDebugLocation2(L->b, sp.line > 0 ? location(L, sp.line, (unsigned)sp.col) : outer);
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
    free(L->di_pos);
    L->di_pos = NULL;
}
