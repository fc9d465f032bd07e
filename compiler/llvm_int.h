/* llvm_int.h: shared state of the LLVM lowering (llvm.c, llvm_ops.c, llvm_mem.c,
 * llvm_reduce.c, llvm_dot.c) and of PTX emission (ptx.c). Only these files
 * include llvm-c; everything else sees codegen.h.
 *
 * Model: a block value is spread over the 32 * num_warps threads by its
 * layout's ThreadMap (layout.h). In the generated code each thread holds the
 * value as `nregs` LLVM scalars, register r holding element
 * idx_d = (base_d(lane, warp) + reg_off[r][d]) mod shape_d. A scalar value is
 * one register held (identically) by every thread. */
#ifndef TL_LLVM_INT_H
#define TL_LLVM_INT_H

#include <llvm-c/Core.h>
#include <llvm-c/TargetMachine.h>

#include "codegen.h"
#include "layout.h"
#include "ptx.h"

/* The registers of one IR value in every thread. */
typedef struct LVal {
    LLVMValueRef *r;
    int n;
} LVal;

/* base_d(lane, warp) of one (ldiv, lmod, lmul, wdiv, wmod, wmul) formula. */
typedef struct BaseKey {
    int p[6];
    LLVMValueRef v;
} BaseKey;

typedef struct Lower {
    Diag *d;
    Function *f;
    const PtxArch *arch;
    LLVMContextRef ctx;
    LLVMModuleRef mod;
    LLVMBuilderRef b;        /* the builder ops emit through */
    LLVMBuilderRef eb;       /* positioned in the entry block: allocas, thread ids */
    LLVMValueRef fn;         /* the kernel being lowered */
    LLVMTypeRef t_void, t_i1, t_i8, t_i16, t_i32, t_i64, t_f16, t_bf16, t_f32, t_f64;
    LLVMTypeRef t_ptr0, t_ptr1, t_ptr3; /* generic, global, shared */
    LLVMValueRef smem;       /* @global_smem: the dynamic shared scratch array */
    LLVMValueRef tid, lane, warp; /* i32, computed once in the entry block */
    LVal *vals;              /* per ValueId */
    const ThreadMap **tms;   /* per ValueId; NULL for scalars */
    int scratch_off, scratch_cap; /* the op being lowered: its scratch area (smem.c) */
    bool scratch_used;       /* ... it used the area already (a second use waits) */
    BaseKey *bases;          /* cache of llvm_base, per kernel */
    int nbases, cap_bases;
    const AxisInfo *axis;    /* axis_analyze(f): caps vector widths */
    bool *used;              /* per ValueId: some op reads it */
    int *nuses;              /* per ValueId: operand slots that read it */
    Inst **user;             /* per ValueId: its (last) user */
    const Block **def_block, **use_block; /* per ValueId: where it is defined / last used */
    bool *deferred;          /* per ValueId: a convert left for its dot to do */
    bool *drained;           /* per ValueId: a loop result llvm_wgmma_drain waited for */
    struct WgPending {       /* wgmma groups in flight, oldest first (wgmma_pends) */
        ValueId r;           /* the dot's result: its accumulator registers */
        LLVMValueRef *keep;  /* its A operand's registers, read until the group is done */
        int nkeep;
    } wg_pend[4];
    int nwg_pend;
    Inst *term;              /* the yield / condition that ended the block just lowered */
    int leader;              /* the thread one-thread ops run on: 0, or in a warp_specialize
                                producer its first (32 * num_warps) */
    int tma_warp;            /* the warp the next TMA load's first copy goes to (lower_tma_load) */
    bool split;              /* past a warp_specialize: the producer's warps have left, so a
                                bar.sync counts the consumers' (32 * num_warps) threads */
    bool failed;
    /* debug info (llvm_debug.c): 0 none, 1 line tables, 2 full */
    int debug;
    bool di_optimized;
    LLVMDIBuilderRef dib;
    LLVMMetadataRef di_file, di_cu, di_sp; /* the source, the unit, the kernel being lowered */
    SourcePos *di_pos;  /* each source line's file and line (`# line` directives); NULL: none */
    int di_npos;
    struct { const char *name; int len; LLVMMetadataRef file, scope; } di_files[16]; /* scopes of the kernel's files */
    int di_nfiles;
} Lower;


/* Warp specialisation's registers, with num_warps 8 and a producer
 * warpgroup (384 threads): the launch's even split of the 64K register
 * file is 168 a thread (65536 / 384, down to a multiple of 8); the producer
 * gives back down to 40, the two consumer warpgroups take up to 232
 * (128 * 40 + 256 * 232 <= 65536). */
enum { LLVM_WS_MAXNREG = 168, LLVM_WS_PRODUCER_REGS = 40, LLVM_WS_CONSUMER_REGS = 232 };
/* Does the kernel move registers that way (the maxnreg annotation, setmaxnreg)? */
static inline bool llvm_ws_regs(const Function *f) { return f->producer_warps && f->num_warps == 8; } /* registers (elements) one thread may hold for one value */

/* ---- llvm.c: shared helpers ---- */
LLVMTypeRef llvm_type(Lower *L, DType dt);     /* register type (i1 stays i1) */
LLVMTypeRef llvm_mem_type(Lower *L, DType dt); /* in memory: i1 is stored as i8 */
int llvm_dt_bytes(DType dt);                   /* bytes in memory */
LLVMValueRef llvm_i32(Lower *L, int64_t c);
LLVMValueRef llvm_i64(Lower *L, int64_t c);
/* Call (declaring on first use) a function or intrinsic by name; argument types
 * are taken from the arguments. */
LLVMValueRef llvm_call(Lower *L, const char *name, LLVMTypeRef ret, LLVMValueRef *args, int n);
/* Name of an overloaded intrinsic for a type: ("llvm.sqrt", f32) -> "llvm.sqrt.f32". */
const char *llvm_intr_name(Lower *L, const char *base, LLVMTypeRef t);
LLVMValueRef llvm_sreg(Lower *L, const char *name); /* llvm.nvvm.read.ptx.sreg.<name> */
void llvm_barrier(Lower *L);
/* A private constant string in global memory, as a generic pointer. */
LLVMValueRef llvm_cstring(Lower *L, const char *s);

/* Registers of a value, and setting them. */
LVal *llvm_val(Lower *L, ValueId v);
void llvm_set(Lower *L, ValueId v, LLVMValueRef *regs, int n);
LLVMValueRef *llvm_new_regs(Lower *L, int n);
const ThreadMap *llvm_tm(Lower *L, ValueId v);

/* ThreadMap arithmetic, at run time (LLVM values) and at compile time. */
LLVMValueRef llvm_base(Lower *L, const ThreadMap *tm, int d);
LLVMValueRef llvm_index(Lower *L, const ThreadMap *tm, int r, int d); /* idx_d of register r */
/* Linear index sum_d idx_d * coef[d] of register r. */
LLVMValueRef llvm_linear(Lower *L, const ThreadMap *tm, int r, const int64_t *coef);
void llvm_row_major(int rank, const int32_t *shape, int64_t *strides);
/* The distances delta[g] (in the function's arena) when each of n accesses
 * g is, in every thread of the program, at that constant distance from
 * access 0; NULL when one is not, or n < 2. at(c, lane, warp, g) gives an
 * access's place (an element index) in that thread, the compile-time twin
 * of the address the code computes. Where the distances are constant, an
 * access's address is access 0's plus an immediate (one register for all,
 * as Triton's), not an expression and a register of its own. */
int64_t *llvm_const_steps(Lower *L, int n, int64_t (*at)(const void *c, int lane, int warp, int g), const void *c);
/* True unless register r of this thread is a replicated copy of an element
 * another register / thread also holds (so stores and atomics run once).
 * Returns NULL when every thread owns every register. */
LLVMValueRef llvm_owner(Lower *L, const ThreadMap *tm, int r);

/* Shared-memory scratch: the op being lowered uses `bytes` of its area (an
 * internal error if smem-alloc gave it less), after a barrier where needed. */
void llvm_smem_use(Lower *L, int64_t bytes, Span sp);
LLVMValueRef llvm_smem_ptr(Lower *L, LLVMTypeRef elty, LLVMValueRef idx, int64_t byte_off);
/* Scratch element of row-major index lin when each row (2^row_log2
 * elements) is followed by pad elements. */
LLVMValueRef llvm_smem_index(Lower *L, LLVMValueRef lin, int pad, int row_log2);
/* The same at compile time. */
static inline int64_t llvm_smem_index_at(int64_t lin, int pad, int row_log2) {
    return pad ? lin + (lin >> row_log2) * pad : lin;
}
/* The scratch index of each access of map tm's registers, v at a time, into
 * idx[r / v], element e at llvm_smem_index(base + sum_d e_d coef[d], pad,
 * row_log2): access 0's expression and, where llvm_const_steps finds the
 * steps constant, the others as it plus a constant. */
void llvm_scratch_indices(Lower *L, const ThreadMap *tm, int v, const int64_t *coef, int64_t base, int pad,
                          int row_log2, LLVMValueRef *idx);
/* Store a block's registers at their row-major (padded) places in the
 * scratch, in vectors where the map allows; no barriers. */
void llvm_smem_stage(Lower *L, const ThreadMap *tm, const LLVMValueRef *regs, DType dt, int pad, int64_t byte_off);

/* Move a value between thread maps. Destination element e (index vector) is
 * source element with linear (row-major) index sum_d e_d * coef[d]. Uses
 * register renaming when every thread already holds what it needs, else a
 * round trip through shared memory. */
void llvm_move(Lower *L, const ThreadMap *src, const LLVMValueRef *sregs, DType dt,
               const ThreadMap *dst, LLVMValueRef *dregs, const int64_t *coef, Span sp);
/* The same with source linear index base + sum_d e_d * coef[d] (extract). */
void llvm_move_at(Lower *L, const ThreadMap *src, const LLVMValueRef *sregs, DType dt, const ThreadMap *dst,
                  LLVMValueRef *dregs, const int64_t *coef, int64_t base, Span sp);

/* The registers of operand v laid out like value `like` (same shape; moved
 * through llvm_move when its layout differs). */
LLVMValueRef *llvm_regs_like(Lower *L, ValueId v, ValueId like, Span sp);
/* Run what follows only where pred holds (NULL: always): guard_begin returns
 * the continuation block that llvm_guard_end branches to. */
LLVMBasicBlockRef llvm_guard_begin(Lower *L, LLVMValueRef pred);
void llvm_guard_end(Lower *L, LLVMBasicBlockRef cont);

/* Structured control flow helpers (llvm.c). */
LLVMBasicBlockRef llvm_new_bb(Lower *L, const char *name);
void llvm_lower_block(Lower *L, Block *blk);
/* A region's block lowered where the builder is (a combine function, a
 * map_fn body); returns its terminator, the enclosing block's kept. */
Inst *llvm_lower_inline(Lower *L, Block *blk);

/* ---- llvm_ops.c: elementwise, shape, math, casts, ids, debugging ---- */
bool llvm_lower_simple(Lower *L, Inst *in); /* false: not an op it handles */
LLVMValueRef llvm_cast(Lower *L, LLVMValueRef v, DType from, DType to);
LLVMValueRef llvm_const(Lower *L, DType dt, int64_t i, double f);
LLVMValueRef llvm_binop(Lower *L, OpCode op, DType dt, LLVMValueRef a, LLVMValueRef b);

/* ---- llvm_extern.c: libdevice calls, inline asm, linking the libraries ---- */
void llvm_lower_extern(Lower *L, Inst *in);
void llvm_lower_inline_asm(Lower *L, Inst *in);
void llvm_lower_map_fn(Lower *L, Inst *in);
/* Link tl's device math library and libdevice when the module calls them. */
bool llvm_link_libraries(Lower *L);

/* ---- llvm_fp8.c: fp8 (an i8 in registers) <-> fp32, exactly as fp8.c ---- */
LLVMValueRef llvm_fp8_to_f32(Lower *L, LLVMValueRef v, DType dt);
LLVMValueRef llvm_fp8_to_f16(Lower *L, LLVMValueRef v, DType dt);
/* Two fp8 codes as one f16x2 register (i32, lo in the low half): an mma.sync fragment's */
LLVMValueRef llvm_fp8x2_to_f16x2(Lower *L, LLVMValueRef lo, LLVMValueRef hi, DType dt);
LLVMValueRef llvm_f32_to_fp8(Lower *L, LLVMValueRef v, DType dt);
LLVMValueRef llvm_asm(Lower *L, const char *text, const char *cons, LLVMTypeRef rt, LLVMValueRef *args, int n,
                      bool pure);

/* ---- llvm_mem.c: load, store, atomics ---- */
void llvm_lower_load(Lower *L, Inst *in);
void llvm_lower_store(Lower *L, Inst *in);
void llvm_lower_atomic(Lower *L, Inst *in);

/* ---- llvm_reduce.c: reduce and reduce_fn ---- */
void llvm_lower_reduce(Lower *L, Inst *in);
/* Exchange a 32-bit-or-smaller / 64-bit value with lane ^ mask. */
LLVMValueRef llvm_shfl_xor(Lower *L, LLVMValueRef v, int mask);
/* shfl.sync.<mode> ("bfly", "up", "down", "idx") of any register type, with
 * operand b (mask, delta or lane) and the clamp / segment operand c. */
LLVMValueRef llvm_shfl(Lower *L, const char *mode, LLVMValueRef v, LLVMValueRef b, int c);

/* ---- llvm_scan.c: scan, gather, histogram, combine regions ---- */
/* out[0..n) = the combine region of `in` (scan / reduce_fn, n operands)
 * lowered once on the scalars a[0..n) (earlier) and b[0..n) (later); false
 * (L->failed) on an internal error. */
bool llvm_combine(Lower *L, Inst *in, const LLVMValueRef *a, const LLVMValueRef *b, LLVMValueRef *out);
void llvm_lower_scan(Lower *L, Inst *in);
void llvm_lower_gather(Lower *L, Inst *in);
void llvm_lower_histogram(Lower *L, Inst *in);

/* ---- llvm_shared.c: local_alloc, memdesc_index, local_load / store, async copies ---- */
void llvm_lower_shared(Lower *L, Inst *in);
/* Stage a rank-2 block in the scratch as llvm_smem_stage does, row-major
 * (inner 1) or column-major (inner 0: element (i, j) at j * shape[0] + i),
 * with stmatrix (sm_90) where its registers are 16-bit mma fragments (the
 * accumulator's, or transposed) and pad keeps rows 16-byte aligned; false
 * (nothing emitted) otherwise. */
bool llvm_stmatrix_stage(Lower *L, const ThreadMap *tm, const LLVMValueRef *regs, DType dt, int inner, int pad,
                         int64_t byte_off);
/* Would llvm_stmatrix_stage of that inner dim store tm with stmatrix? */
bool llvm_stmatrix_plan_ok(Lower *L, const ThreadMap *tm, DType dt, int inner);
/* The element offset (i32) of the element at idx (per dim, i32) of a buffer of
 * type t in shared layout li (layout_shared_offset at run time). */
LLVMValueRef llvm_shared_offset(Lower *L, int li, Type t, LLVMValueRef *idx);

/* ---- llvm_dot.c ---- */
void llvm_lower_dot(Lower *L, Inst *in);
/* Some value of f is a wgmma accumulator. */
bool llvm_uses_wgmma(const Function *f);
/* After a pipelined loop (its drain, async_wait 0): wait for the wgmma
 * groups still in flight, through the loop's wgmma results. */
void llvm_wgmma_drain(Lower *L);
void llvm_wgmma_retire_all(Lower *L);
void llvm_lower_wgmma_wait(Lower *L, Inst *in);
/* convert_layout into a 16-bit mma operand through ldmatrix; false when the
 * convert is not one (the caller then uses llvm_move). */
bool llvm_convert_ldmatrix(Lower *L, Inst *in);
/* local_load of a swizzled 16-bit buffer into an mma operand through
 * ldmatrix; false when it is not one (the caller reads element-wise). */
bool llvm_local_load_ldmatrix(Lower *L, Inst *in, LLVMValueRef base);
bool llvm_fma_smem_operand(Lower *L, const Inst *ld); /* an FMA dot reads it from shared memory */

/* ---- llvm_debug.c: source locations (-lineinfo, -g) ---- */
/* level 0: nothing; 1: line tables; 2: full debug info. Before any kernel. */
void llvm_debug_begin(Lower *L, int level, const Source *src, bool optimized);
/* The kernel's DISubprogram; both builders at its def line. */
void llvm_debug_function(Lower *L);
void llvm_debug_end_function(Lower *L);
/* The builder's location now, to restore with llvm_debug_set; the op's
 * location from its span (outer when it has none). */
LLVMMetadataRef llvm_debug_here(Lower *L);
void llvm_debug_set(Lower *L, LLVMMetadataRef loc);
void llvm_debug_at(Lower *L, Span sp, LLVMMetadataRef outer);
void llvm_debug_finish(Lower *L); /* finalise, before the verifier */

/* ---- ptx.c: target machine, optimisation, emission ---- */
LLVMTargetMachineRef ptx_target_machine(const PtxArch *a, int opt_level, char **err);
/* Run the default<O<opt_level>> pipeline on the module. */
bool ptx_optimize(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level, char **err);
/* The PTX, for a's .target and at least its PTX ISA. debug_info as
 * codegen_module's: line tables alone keep ptxas optimising. */
bool ptx_emit(LLVMModuleRef m, LLVMTargetMachineRef tm, const PtxArch *a, int debug_info, Buf *out, char **err);

#endif
