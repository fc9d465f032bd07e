/* ir.h: the typed tile IR (TIR).
 *
 * A kernel is one Function: SSA values numbered per function, a body Block of
 * Insts, structured control flow (for / if / while own nested Blocks, like
 * MLIR's scf dialect). Every value is a scalar or a block of static
 * power-of-two shape with an element type (Triton's model). Ops are described
 * once in the IR_OPS table below; the printer, the parser, the verifier and
 * the interpreter all read that table.
 *
 * Invariants the verifier checks (see verify.c):
 *  - every operand is defined before use and dominates it (defined in the same
 *    block earlier, or in an enclosing block, or is a block argument);
 *  - elementwise ops have operands of identical shape (sema inserts splat /
 *    broadcast explicitly) and the result shape equals the operand shape;
 *  - block shapes are powers of two, at most IR_MAX_RANK dims, at most
 *    IR_MAX_NUMEL elements;
 *  - op-specific rules listed with each op.
 *
 * Text form (docs/ir.md; `tlc --emit=ir`):
 *   func @copy_k(%0: !ptr<f32>, %1: !ptr<f32>, %2: i32) {num_warps = 4} {
 *     %3 = program_id {axis = 0} : i32
 *     %4 = arange {start = 0, end = 1024} : <1024xi32>
 *     %5 = splat %3 : <1024xi32>
 *     ...
 *     return
 *   }
 */
#ifndef TL_IR_H
#define TL_IR_H

#include "diag.h"

/* IR_MAX_RANK: upstream's tests reshape to rank 9 (512 elements as (2,) * 9); this is the
 * one owner of the limit (sema reports it at the source, the parser and verifier check
 * it). It sizes the shape arrays of Type, Attr, Layout and ThreadMap: 9 against the 5 of
 * before cost no measurable compile time or memory. */
enum { IR_MAX_RANK = 9, IR_MAX_NUMEL = 1 << 20 };

/* Element types. Order matters: ints by width, then floats by width, then
 * the fp8 storage types (compiler/fp8.h: loads, stores, casts, selects,
 * shape ops and dot only; sema computes with them in fp32). */
typedef enum {
    DT_VOID,
    DT_I1,
    DT_I8, DT_I16, DT_I32, DT_I64,
    DT_U8, DT_U16, DT_U32, DT_U64,
    DT_F16, DT_BF16, DT_F32, DT_F64,
    DT_F8E4NV, DT_F8E5, DT_F8E4B15, /* Triton's float8e4nv (E4M3FN), float8e5 (E5M2), float8e4b15 */
    DT_PTR, /* pointer; Type.pointee says to what */
    DT__COUNT
} DType;

typedef struct Type {
    uint8_t dtype;             /* DType of each element */
    uint8_t pointee;           /* for DT_PTR: element type pointed to (never DT_PTR) */
    uint8_t rank;              /* 0 = scalar */
    uint8_t mem;               /* IR_MEM_REGS: a value; IR_MEM_SHARED: a shared-memory buffer */
    int32_t shape[IR_MAX_RANK];
} Type;

/* Where a block lives. A value (the default) is held in the registers of the
 * program's threads; a shared-memory buffer (`!smem<3x128x32xf16>`, Triton's
 * memdesc) is a place, not a value: only the shared-memory ops below read,
 * write or index it. */
enum { IR_MEM_REGS = 0, IR_MEM_SHARED = 1 };
static inline bool ir_is_smem(Type t) { return t.mem == IR_MEM_SHARED; }

/* Type helpers (ir.c). */
Type ir_scalar(DType dt);
Type ir_ptr(DType pointee);
Type ir_block(Type elem, int rank, const int32_t *shape); /* elem's shape is ignored */
Type ir_elem(Type t);                                     /* scalar type of the elements */
Type ir_with_dtype(Type t, DType dt);                     /* same shape, other element type */
bool ir_type_eq(Type a, Type b);
int64_t ir_numel(Type t);
bool dt_is_int(DType dt);      /* includes i1 and unsigned */
bool dt_is_signed(DType dt);   /* i8..i64 (i1 counts as unsigned) */
bool dt_is_float(DType dt);     /* f16, bf16, f32, f64: not the fp8 types */
bool dt_is_fp8(DType dt);
/* e4m3 (fp8e4nv) or e5m2: the fp8 formats NVIDIA's instructions take (mma, wgmma, cvt) */
bool dt_is_nv_fp8(DType dt);
bool dt_is_fp(DType dt);        /* any floating type, fp8 included: values are doubles (const, interpreter) */
int dt_bits(DType dt);         /* 1, 8, 16, 32, 64; pointers 64; fp8 8 */
const char *dt_name(DType dt); /* "i32", "f16", "bf16", "ptr" ... */
DType dt_from_name(const char *s); /* DT_VOID if unknown; accepts "fp32"/"f32"/"float32" */
/* Print "i32", "<128x64xf16>", "!ptr<f32>", "<128x!ptr<f16>>", "!smem<2x64x32xf16>". */
void ir_type_print(Buf *b, Type t);

/* ---- ops ----
 * X(name, text, nargs, flags): nargs = -1 for variadic.
 * Attributes an op uses are listed in its comment; they live in Inst.attr. */
#define IR_OPS(X)                                                                                  \
    /* constants and ids */                                                                        \
    X(CONST, "const", 0, OPF_PURE)            /* attr.i or attr.f (by dtype); block = splat of it */ \
    X(PROGRAM_ID, "program_id", 0, OPF_PURE)  /* attr.axis */                                       \
    X(NUM_PROGRAMS, "num_programs", 0, OPF_PURE) /* attr.axis */                                    \
    X(ARANGE, "arange", 0, OPF_PURE)          /* attr.start, attr.end; result <end-start x i32> */  \
    /* shape ops */                                                                                \
    X(SPLAT, "splat", 1, OPF_PURE)            /* scalar -> block */                                 \
    X(BROADCAST, "broadcast", 1, OPF_PURE)    /* size-1 dims -> result dims, same rank */           \
    X(EXPAND_DIMS, "expand_dims", 1, OPF_PURE)/* attr.axis: insert a size-1 dim */                  \
    X(RESHAPE, "reshape", 1, OPF_PURE)        /* same numel, row-major order */                     \
    X(TRANS, "trans", 1, OPF_PURE)            /* attr.perm[rank] */                                 \
    X(EXTRACT, "extract", 1, OPF_PURE)        /* attr.axis, attr.start: the result's shape of the */ \
                                              /* operand from index start along axis (tl.split)  */ \
    /* elementwise arithmetic: operands and result share one type */                               \
    X(ADD, "add", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(SUB, "sub", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(MUL, "mul", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(DIV, "div", 2, OPF_PURE | OPF_ELEM)     /* int: C (truncating); float: attr.rn */              \
    X(REM, "rem", 2, OPF_PURE | OPF_ELEM)     /* float: fmod; int: C (sign of dividend) */          \
    X(AND, "and", 2, OPF_PURE | OPF_ELEM)     /* ints and i1 */                                     \
    X(OR, "or", 2, OPF_PURE | OPF_ELEM)                                                            \
    X(XOR, "xor", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(SHL, "shl", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(SHR, "shr", 2, OPF_PURE | OPF_ELEM)     /* arithmetic for signed, logical for unsigned */     \
    X(MIN, "min", 2, OPF_PURE | OPF_ELEM)     /* float: minnum (NaN-ignoring) */                    \
    X(MAX, "max", 2, OPF_PURE | OPF_ELEM)                                                          \
    X(NEG, "neg", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(NOT, "not", 1, OPF_PURE | OPF_ELEM)     /* bitwise complement (logical for i1) */             \
    X(CMP, "cmp", 2, OPF_PURE)                /* attr.pred; operands one type, result i1 */         \
    X(SELECT, "select", 3, OPF_PURE)          /* cond(i1), a, b; a/b/result one type */             \
    X(ADDPTR, "addptr", 2, OPF_PURE)          /* ptr, int offset (in elements); same shape */       \
    X(CAST, "cast", 1, OPF_PURE)              /* numeric conversion to the result dtype; i1 from */ \
                                              /* x != 0; float->int truncates; ptr<->i64 allowed */ \
    X(BITCAST, "bitcast", 1, OPF_PURE)        /* same bit width, same shape */                      \
    /* math (float only) */                                                                        \
    X(EXP, "exp", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(EXP2, "exp2", 1, OPF_PURE | OPF_ELEM)                                                        \
    X(LOG, "log", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(LOG2, "log2", 1, OPF_PURE | OPF_ELEM)                                                        \
    X(SQRT, "sqrt", 1, OPF_PURE | OPF_ELEM)                                                        \
    X(RSQRT, "rsqrt", 1, OPF_PURE | OPF_ELEM)                                                      \
    X(SIN, "sin", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(COS, "cos", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(ABS, "abs", 1, OPF_PURE | OPF_ELEM)     /* ints too */                                        \
    X(FLOOR, "floor", 1, OPF_PURE | OPF_ELEM)                                                      \
    X(CEIL, "ceil", 1, OPF_PURE | OPF_ELEM)                                                        \
    X(FMA, "fma", 3, OPF_PURE | OPF_ELEM)                                                          \
    X(ERF, "erf", 1, OPF_PURE | OPF_ELEM)                                                          \
    X(UMULHI, "umulhi", 2, OPF_PURE | OPF_ELEM) /* ints: high half of the unsigned 2N-bit product */ \
    /* calls: per element, operands of the result's shape, any element types */                    \
    X(EXTERN, "extern", -1, OPF_PURE | OPF_MAP) /* attr.str = libdevice symbol (libdevice.h) */    \
    X(INLINE_ASM, "inline_asm", -1, OPF_MAP)   /* attr.str = asm, .str2 = constraints, .pack, */   \
                                               /* .pure; one or more results */                  \
    X(MAP_FN, "map_fn", -1, OPF_PURE | OPF_MAP) /* x1..xn of one shape; attr.pack; region fn */     \
                                            /* (x1 elems 1..pack, ..., xn's) yields m * pack   */ \
                                            /* scalars, result-major; m results (tl.map_elementwise) */ \
    /* hints for axis analysis: identity on the value */                                           \
    X(MULTIPLE_OF, "multiple_of", 1, OPF_PURE)    /* attr.vals[rank]: divisibility per dim */       \
    X(MAX_CONTIGUOUS, "max_contiguous", 1, OPF_PURE) /* attr.vals[rank] */                          \
    X(MAX_CONSTANCY, "max_constancy", 1, OPF_PURE)   /* attr.vals[rank]: runs of equal elements */  \
    X(ASSUME, "assume", 1, 0)      /* cond (i1 scalar): true, the program promises (llvm.assume); */ \
                                   /* axis analysis reads `x % c == 0`; the interpreter checks it */ \
    X(DESC_TILE, "desc_tile", 4, OPF_PURE)   /* ptrs <AxB x ptr>, tmap i64, c0, c1 i32: identity on */ \
                                             /* ptrs, which are the tile at (c0, c1) of the host */ \
                                             /* descriptor whose tensor map is param tmap (TMA), */ \
                                             /* or the map a tensormap_create made */                \
    X(TMAP_CREATE, "tensormap_create", 4, 0) /* base ptr, rows i32, cols i32, row stride i64 (elements) */ \
                                             /* -> i64: the generic address of a tensor map of that */ \
                                             /* 2-D tensor, attr.vals[0..1] the box (the block: rows, */ \
                                             /* cols), made by this program in its global scratch at */ \
                                             /* attr.offset (tma_prune; -1 before), out of bounds */ \
                                             /* reading NaN when attr.nan, else zero */              \
    /* memory */                                                                                   \
    X(LOAD, "load", -1, 0)     /* ptr [, mask [, other]]; attr.has_mask/has_other; result pointee; */ \
                               /* attr.cache, evict, is_volatile */                                  \
    X(STORE, "store", -1, 0)   /* ptr, value [, mask]; attr.cache, evict */                          \
    X(ATOMIC_RMW, "atomic_rmw", -1, 0) /* attr.rmw, sem, scope; ptr, value [, mask]; old values */  \
    X(ATOMIC_CAS, "atomic_cas", 3, 0)  /* ptr, cmp, value; attr.sem, scope; returns old values */   \
    /* tensor ops */                                                                               \
    X(DOT, "dot", 3, OPF_PURE)     /* a <MxK>, b <KxN>, acc <MxN>; attr.precision, num */                 \
    X(REDUCE, "reduce", 1, OPF_PURE) /* attr.reduce, attr.axis, attr.keep_dims; argmax/argmin -> i32 */ \
    /* scans, reductions with a combine function, gathers, histograms */                       \
    X(SCAN, "scan", -1, OPF_PURE)           /* x1..xn of one shape; attr.axis, attr.reverse; region */ \
                                            /* combine(a1..an, b1..bn) yields n; results like x */ \
    X(REDUCE_FN, "reduce_fn", -1, OPF_PURE) /* x1..xn; attr.axis, attr.keep_dims; region combine */ \
    X(GATHER, "gather", 2, OPF_PURE)        /* src, index (ints); attr.axis; result index's shape */ \
    X(HISTOGRAM, "histogram", -1, OPF_PURE) /* x (1-D ints) [, mask]; result <bins x i32> */      \
    /* debugging */                                                                                \
    X(PRINT, "print", -1, 0)       /* attr.str = prefix, attr.hex; prints each operand */           \
    X(ASSERT, "assert", 1, 0)      /* cond (i1 scalar or block); attr.str = message */              \
    X(BARRIER, "barrier", 0, 0)                                                                    \
    /* tl.extra.cuda: attr.str = smid (-> i32), globaltimer (-> i64, ns), gdc_wait, */             \
    /* gdc_launch_dependents (no result; griddepcontrol on sm_90+, nothing before) */              \
    X(INTRINSIC, "intrinsic", 0, 0)                                                                \
    /* layouts (only after the layout pass): identity on the values, moves them */                 \
    X(CONVERT_LAYOUT, "convert_layout", 1, OPF_PURE) /* between threads; same type */              \
    /* shared memory (after the layout pass; buffers are !smem<...> with a shared layout) */       \
    X(LOCAL_ALLOC, "local_alloc", 0, 0)       /* attr.offset: bytes into shared memory, -1 before */ \
                                              /* allocation; result !smem<[stages x] shape x dt> */ \
    X(MEMDESC_INDEX, "memdesc_index", 2, OPF_PURE) /* buf <S x shape>, i32 i: the buffer of stage i */ \
    X(MEMDESC_TRANS, "memdesc_trans", 1, OPF_PURE) /* buf <AxB> -> the same bytes as <BxA> (#nvmma: */ \
                                              /* transposed flips; a K-major wgmma B operand) */    \
    X(LOCAL_STORE, "local_store", 2, 0)       /* buf, value (registers -> shared) */                 \
    X(LOCAL_LOAD, "local_load", 1, 0)         /* buf -> value in a distributed layout */             \
    X(ASYNC_COPY, "async_copy", -1, 0)        /* buf, ptr [, mask [, count]]: global -> shared */    \
                                              /* without registers; zeros where mask is 0 (count: */ \
                                              /* a ragged copy's elements kept, i32) */              \
    X(ASYNC_COMMIT, "async_commit", 0, 0)     /* close the group of this thread's async copies */    \
    X(ASYNC_WAIT, "async_wait", 0, 0)         /* attr.num: wait until at most num groups pend */     \
    /* TMA (sm_90): bulk tensor copies completing on mbarriers (docs/codegen.md) */                \
    X(MBAR_INIT, "mbarrier_init", 1, 0)       /* bars !smem<R x 1 x i64>: one thread makes each a */ \
                                              /* barrier of attr.num arrivals (0: one), fenced */   \
    X(MBAR_INVAL, "mbarrier_inval", 1, 0)     /* bars: invalidated; their bytes may be reused */     \
    X(MBAR_EXPECT, "mbarrier_expect", 2, 0)   /* bar !smem<1xi64>, pred i1: one thread arrives and */ \
                                              /* expects attr.num (bytes) more transaction bytes */  \
    X(MBAR_WAIT, "mbarrier_wait", 2, 0)       /* bar, phase i32: wait until the phase of that */     \
                                              /* parity completes */                                 \
    X(WGMMA_WAIT, "wgmma_wait", 1, 0)         /* acc (a wgmma dot's result) -> the same values, */   \
                                              /* after every wgmma group of the thread is done */   \
    X(TMA_LOAD, "tma_load", 6, 0)             /* buf (#nvmma), tmap, c0, c1, bar, pred i1: one */   \
                                              /* thread copies the tile at (c0, c1), zeros out of */ \
                                              /* bounds, completing on bar */                        \
    X(TMA_STORE, "tma_store", 4, 0)           /* buf (#nvmma), tmap, c0, c1: thread 0 copies buf to */ \
                                              /* the tile at (c0, c1), dropping what falls outside */ \
                                              /* the tensor, and waits until buf has been read */    \
    X(MBAR_ARRIVE, "mbarrier_arrive", 2, 0)   /* bar, pred i1 (the same in a warp): one thread of */ \
                                              /* each warp arrives (a consumer releasing a slot) */ \
    /* warp specialisation (sm_90a): only in the function's body, before everything but */        \
    /* local_alloc and mbarrier_init; the attr.num warps after the function's num_warps run */    \
    /* its region (the producer: TMA copies into rings) and leave; the others skip it */          \
    X(WARP_SPEC, "warp_specialize", 0, 0)                                                          \
    /* structured control flow */                                                                  \
    X(FOR, "for", -1, 0)     /* lb, ub, step, inits...; body args (iv, carried...); results carried */ \
    X(IF, "if", -1, 0)       /* cond, then-block, else-block; results from their yields */          \
    X(WHILE, "while", -1, 0) /* inits...; before-block args carried -> CONDITION; after-block -> yield */ \
    X(CONDITION, "condition", -1, 0) /* cond, forwarded values (ends a while's before-block) */     \
    X(YIELD, "yield", -1, 0)         /* ends for/if/while-after blocks */                           \
    X(RETURN, "return", 0, 0)

/* Opcodes are IR_<NAME> (IR_ADD, IR_LOAD, ...); the AST's operators own OP_*. */
typedef enum {
#define X(id, text, nargs, flags) IR_##id,
    IR_OPS(X)
#undef X
    IR__NUM
} OpCode;

/* OPF_MAP: computed per element from operands of the result's shape (of any
 * element types), like the elementwise ops but without their one type. */
enum { OPF_PURE = 1, OPF_ELEM = 2, OPF_MAP = 4 };

typedef struct OpInfo {
    const char *name;
    int nargs; /* -1: variadic */
    int flags;
} OpInfo;
extern const OpInfo ir_ops[IR__NUM];

typedef enum { CMP_LT, CMP_LE, CMP_GT, CMP_GE, CMP_EQ, CMP_NE } CmpPred;
typedef enum { RED_SUM, RED_MAX, RED_MIN, RED_ARGMAX, RED_ARGMIN } ReduceKind;
typedef enum { RMW_ADD, RMW_MAX, RMW_MIN, RMW_XCHG, RMW_AND, RMW_OR, RMW_XOR } RmwKind;
typedef enum { PREC_IEEE, PREC_TF32, PREC_TF32X3 } DotPrecision;
/* tl.load / tl.store's cache_modifier (".ca" ...; CACHE_NONE: not given) and
 * eviction_policy, the atomics' sem and scope (Triton's defaults, acq_rel at
 * GPU scope, are 0). The lowering spells each as its PTX qualifier. */
typedef enum { CACHE_NONE, CACHE_CA, CACHE_CG, CACHE_CV, CACHE_WB, CACHE_CS, CACHE_WT } CacheMod;
typedef enum { EVICT_NORMAL, EVICT_FIRST, EVICT_LAST } EvictPolicy;
typedef enum { SEM_ACQ_REL, SEM_ACQUIRE, SEM_RELEASE, SEM_RELAXED } MemSem;
typedef enum { SCOPE_GPU, SCOPE_CTA, SCOPE_SYS } MemScope;

typedef struct Attr {
    int64_t i;         /* CONST (int / bool) */
    double f;          /* CONST (float) */
    int axis;          /* PROGRAM_ID, NUM_PROGRAMS, EXPAND_DIMS, REDUCE, EXTRACT */
    int64_t start, end;/* ARANGE; EXTRACT: start */
    int perm[IR_MAX_RANK];  /* TRANS */
    int64_t vals[IR_MAX_RANK]; /* MULTIPLE_OF, MAX_CONTIGUOUS, MAX_CONSTANCY */
    int pred;          /* CMP: CmpPred */
    int reduce;        /* REDUCE: ReduceKind */
    int rmw;           /* ATOMIC_RMW: RmwKind */
    int precision;     /* DOT: DotPrecision */
    bool keep_dims;    /* REDUCE */
    bool has_mask, has_other; /* LOAD / STORE / ATOMIC_RMW */
    int cache;         /* LOAD / STORE: CacheMod */
    int evict;         /* LOAD / STORE: EvictPolicy */
    bool is_volatile;  /* LOAD: tl.load(..., volatile=True) */
    int sem, scope;    /* ATOMIC_RMW / ATOMIC_CAS: MemSem, MemScope */
    bool hex;          /* PRINT */
    const char *str;   /* PRINT prefix, ASSERT message, EXTERN symbol, INLINE_ASM asm, INTRINSIC name */
    const char *str2;  /* INLINE_ASM constraints */
    int pack;          /* INLINE_ASM, MAP_FN: elements per asm invocation / region run */
    bool pure;         /* INLINE_ASM: no side effects (may be removed when unused) */
    bool reverse;      /* SCAN: from the last element to the first */
    bool rn;           /* DIV: rounded to nearest (tl.div_rn); else Triton's `/`, which on
                          the GPU is div.full.f32 for fp32 (within 2 ulp) */
    bool rtz;          /* CAST from f32 to f16, bf16 or f8e5: rounded toward zero
                          (fp_downcast_rounding='rtz'); else to nearest, ties to even */
    int offset;        /* LOCAL_ALLOC: byte offset in shared memory, -1 before allocation;
                          TMAP_CREATE: byte offset in the program's global scratch */
    bool nan;          /* TMAP_CREATE: out-of-bounds reads give NaN (padding_option="nan") */
    int num;           /* ASYNC_WAIT: groups that may still be in flight; MBAR_EXPECT: bytes;
                          MBAR_INIT: arrivals per phase (0: one); WARP_SPEC: producer warps;
                          DOT (IR `imprecise`): an fp8 dot's max_num_imprecise_acc, the K
                          elements summed by the tensor cores before their partial sum is
                          added to the accumulator (0: no partial sums); GATHER (IR `xor`):
                          when set, the index is each element's own index along the axis
                          xor num (sort's partners), so the lowering may find the source
                          element in the thread's registers or a lane's (0: any index);
                          ASYNC_COPY (IR `ragged`): the mask is, over each copy's vector, true
                          for a prefix of its elements (the pipeliner proves it: a run of
                          consecutive indices against one bound), and the copy moves those and
                          zero-fills the rest (0: the mask is one value a vector) */
    int num_stages;    /* FOR: software-pipelining depth of this loop (tl.range's
                          num_stages); 0: the function's */
    bool flatten;      /* FOR: tl.range(..., flatten=True): one loop with the loop it
                          holds (flatten.c) */
    int warp_spec;     /* FOR: tl.range's warp_specialize: 1 True, -1 False, 0 the
                          function's (Function.warp_spec) */
    int ws_hold;       /* FOR: the pipeliner's handoff to the warp-spec pass (warpspec.c):
                          the loop fills its TMA rings itself, each iteration's copies into
                          its own slot just before it waits for them, for a producer
                          warpgroup to take over; the iterations that read a slot: 1, or 2
                          when the wgmma group a dot leaves in flight still reads it in the
                          next. 0: no handoff */
    bool no_licm;      /* FOR, WHILE (IR `disable_licm`): tl.range's / tl.condition's
                          disable_licm, LLVM's llvm.licm.disable loop metadata */
} Attr;

typedef int ValueId; /* index into Function.values; 0 is never a valid value */

typedef struct Block Block;

typedef struct Inst {
    OpCode op;
    ValueId *args;
    int nargs;
    ValueId *results; /* most ops have 0 or 1 result */
    int nresults;
    Attr attr;
    Block *regions[2]; /* FOR: body; IF: then, else; WHILE: before, after */
    int nregions;
    Span span;         /* source location, for diagnostics and runtime errors */
    int scratch_off, scratch_size; /* shared scratch of the op's lowering (convert, reduce,
                                      dot...), bytes: set by smem_alloc_pass (smem.c) */
} Inst;

struct Block {
    ValueId *args; /* block arguments (FOR: iv then carried; WHILE: carried) */
    int nargs;
    Inst **insts;
    int ninsts, cap;
    Inst *parent;  /* the op owning this region, NULL for the function body */
};

typedef struct Value {
    Type type;
    int layout;    /* after the layout pass: index into Function.layouts (0 = none/scalar) */
    Inst *def;     /* defining op, or NULL for a block or function argument */
    Block *block;  /* for block arguments: the block */
    const char *name; /* source variable name for readability, may be NULL */
} Value;

/* Where the launch finds a TMA map's tensor (tma.c asks, runtime/gpu.c
 * encodes): base is the value id of a pointer parameter (16-byte aligned);
 * each bound and the row stride (elements) is the value id of an integer
 * parameter (> 0) or -c for the constant c (-INT32_MAX: an unmasked axis,
 * unbounded), a bound multiplied by up to two factors given the same way
 * (0: none; attention's Z * H * N_CTX rows); the box is the load's tile. */
typedef struct TmaSource {
    int32_t base;
    int32_t dim[2][3]; /* rows, then cols: the bound and its two factors */
    int32_t stride;
    int32_t box[2];
} TmaSource;
/* Its entries that name parameters (base, the bounds and factors, the
 * stride), for code that renumbers or checks them: refs gets 8 pointers. */
static inline void ir_tma_refs(TmaSource *t, int32_t *refs[8]) {
    refs[0] = &t->base;
    for (int d = 0; d < 2; d++)
        for (int k = 0; k < 3; k++)
            refs[1 + 3 * d + k] = &t->dim[d][k];
    refs[7] = &t->stride;
}

typedef struct Param {
    const char *name;
    Type type;         /* scalar or pointer */
    int divisibility;  /* 16 when specialised with ":16" (value or address), else 1 */
    bool equal_to_1;   /* ":1": the value is 1 and not passed at runtime?  (kept as an arg) */
    bool tensormap;    /* an i64 standing for a host descriptor's CUtensorMap: passed as a
                          128-byte, 64-aligned grid-constant .param; its value is the map's
                          generic address (TMA's operand) */
    bool nonneg;       /* the tma pass's proofs take this integer parameter as >= 0: a
                          launch where it is not runs the kernel without the maps */
    bool above1;       /* ... as >= 2 (a wrapped axis's modulus, tma.c): the same */
    bool scratch;      /* the last parameter, a pointer the launch passes to
                          Function.global_scratch bytes for each program (tensor maps
                          made in the kernel: tensormap_create; tma.c tma_prune) */
    TmaSource tma;     /* a map the pointer-tile TMA pass (tma.c) asked for, which the
                          launch encodes from the kernel's own arguments; tma.base 0: none */
} Param;

typedef struct Function {
    const char *name;
    Param *params;   /* one per runtime argument, in order; params[i] is value i+1 */
    int nparams;
    Value *values;   /* values[0] unused */
    int nvalues, cap_values;
    Block *body;
    int num_warps, num_stages; /* launch options carried with the kernel */
    struct Layout *layouts;    /* layout table (layout.h), layouts[0] unused; set by the layout pass */
    int nlayouts;
    int shared_bytes;          /* dynamic shared memory of a launch (set by smem_alloc_pass) */
    int global_scratch;        /* global memory each program of a launch gets for itself,
                                  bytes (128 a tensormap_create; tma_prune), behind the
                                  parameter marked scratch */
    bool auto_tma;             /* the tma pass may give pointer tiles TMA (tma.c): the
                                  launch then passes the maps it asks for (--auto-tma) */
    bool warp_spec;            /* a TMA-fed wgmma loop may be warp-specialised (pipeline.c,
                                  warpspec.c; --warp-specialize; a loop's own warp_specialize wins) */
    bool no_fp_fusion;         /* --fp-fusion off: LLVM may not fuse a multiply and an add
                                  into an fma (by default it may: the contract flag) */
    int maxnreg;               /* --maxnreg: registers a thread may have (.maxnreg); 0: ptxas's choice */
    int sunk_loads;            /* loads the sink pass moved past a reduction (sink.c; under a cap) */
    int producer_warps;        /* warps launched beyond num_warps for a warp_specialize
                                  op's producer (warpspec.c); 0: none */
    bool smem_allocated;       /* smem_alloc_pass ran: offsets and scratch are final */
    Arena *arena;
    const Source *src;
    Span span;                 /* the kernel's `def` (its line in debug info); 0: unknown */
} Function;

/* A tensor-map operand (desc_tile, tma_load) the kernel makes
 * (tensormap_create, or what carries one), not a parameter's. */
static inline bool ir_kernel_map(const Function *f, ValueId m) { return m > f->nparams; }

typedef struct Module {
    Function **funcs;
    int nfuncs;
    Arena *arena;
} Module;

/* ---- building (ir.c) ---- */
Function *ir_func_new(Arena *a, const char *name);
ValueId ir_param(Function *f, const char *name, Type t); /* appends a param + its value */
ValueId ir_value_new(Function *f, Type t);
Block *ir_block_new(Function *f);
ValueId ir_block_arg(Function *f, Block *b, Type t);
/* A parameter added after the body exists: it becomes value nparams+1 and
 * every later value moves up one (params[i] is value i+1), in the value table
 * and in every block. Callers holding value ids renumber them with
 * ir_param_shift. */
ValueId ir_param_late(Function *f, const char *name, Type t);
static inline ValueId ir_param_shift(ValueId v, int nparams_before) { return v > nparams_before ? v + 1 : v; }
/* Remove parameter i (0-based), which nothing may use; later values move
 * down one. */
void ir_param_remove(Function *f, int i);
/* Append an op with the given operands and result types to block b. */
Inst *ir_inst_new(Function *f, Block *b, OpCode op, const ValueId *args, int nargs,
                  const Type *rtypes, int nresults, Span sp);
/* Give a control-flow op its regions (r1 may be NULL) and set their parent. */
void ir_set_regions(Inst *in, Block *r0, Block *r1);
bool ir_producer_op(OpCode op); /* may a warp_specialize producer hold it? */
/* Warps a launch starts: num_warps and a warp_specialize op's producer. */
static inline int ir_launch_warps(const Function *f) { return f->num_warps + f->producer_warps; }
/* Convenience: a one-result op. Returns the result value. */
ValueId ir_emit(Function *f, Block *b, OpCode op, Type rtype, const ValueId *args, int nargs, Span sp);
/* An integer constant of type t, and a comparison (an i1 scalar), appended to b. */
ValueId ir_emit_const(Function *f, Block *b, Type t, int64_t v, Span sp);
ValueId ir_emit_cmp(Function *f, Block *b, int pred, ValueId x, ValueId y, Span sp);
static inline Type ir_type_of(const Function *f, ValueId v) { return f->values[v].type; }
Module *ir_module_new(Arena *a);
void ir_module_add(Module *m, Function *f);

/* ---- text (irprint.c / irparse.c) ---- */
void ir_print_func(Buf *out, const Function *f);
void ir_print_module(Buf *out, const Module *m);
/* Parse the text form back. Returns NULL and reports to d on error. */
Module *ir_parse(Arena *a, Diag *d, const Source *src);

/* Spellings shared by the printer, the parser and the verifier (irprint.c),
 * NULL-terminated where they are enums. */
extern const char *const ir_cmp_names[], *const ir_reduce_names[], *const ir_rmw_names[],
    *const ir_precision_names[], *const ir_cache_names[], *const ir_evict_names[], *const ir_sem_names[],
    *const ir_scope_names[];
extern const char *const ir_attr_keys[IR__NUM];          /* which attribute an op prints */
extern const char *const ir_region_labels[IR__NUM][2];   /* "body", "before"/"do", ... */

/* ---- verification (verify.c) ----
 * Returns true when f satisfies every invariant; otherwise reports each
 * violation as an internal error (a pass produced bad IR) naming the op. */
bool ir_verify(Diag *d, const Function *f);

/* ---- dead code (dce.c) ----
 * Removes the pure ops none of whose results is used (regions included);
 * returns how many. Runs before the GPU passes (compile.c). */
int ir_dce(Function *f);
/* In loop (a for) and its body: the carried values nothing needs (their
 * result unused, read in the body only by what computes their own next
 * value) go, then the body's pure one-result ops nothing reads. */
void ir_dce_loop(Function *f, Inst *loop);
/* Helpers of the passes that rewrite IR (ir.c): */
/* Is v all zeros (a const, or a splat, broadcast, cast or convert of one)? */
bool ir_is_zero(const Function *f, ValueId v);
/* Does a loop whose warp_specialize attribute is ws (1, -1, 0: unset) want a
 * producer warpgroup: its own flag, else the function's (--warp-specialize)? */
bool ir_warp_spec_on(const Function *f, int ws);
/* Where a loop may get a producer warpgroup (pipeline.c, warpspec.c): in the
 * function's body, or in the then-branch of an if there (flatten.c's
 * versioning if, around a flat loop). The loop's block there, *guard the if
 * (NULL in the body itself); NULL when the loop stands elsewhere. */
Block *ir_ws_block(const Function *f, const Inst *loop, Inst **guard);
/* The loops standing there, in program order: the first after `after`
 * (NULL: the first of all), NULL past the last. */
Inst *ir_ws_next(const Function *f, const Inst *after);
/* The index of op `in` in b's instructions, -1 when it is not there. */
int ir_inst_index(const Block *b, const Inst *in);
/* uses[v] += the operands in b and its regions that are v. */
void ir_count_uses(const Block *b, int *uses);
/* Set in[v] for every value the ops of b from index `from` on define: their
 * results, their regions' arguments and everything inside them. */
void ir_mark_defs(const Block *b, int from, uint8_t *in);
/* Take in out of b's instruction list (b may be NULL: nothing). */
void ir_remove_inst(Block *b, const Inst *in);
/* A new op (ir_inst_new's arguments) put into b before index *at, which
 * advances past it: how a pass inserts a sequence in the middle of a block. */
Inst *ir_inst_at(Function *f, Block *b, int *at, OpCode op, const ValueId *args, int nargs, const Type *rtypes,
                 int nresults, Span sp);
/* Put the n ops ins[] into b before index at (0 .. b->ninsts). */
void ir_insert_insts(Function *f, Block *b, int at, Inst *const *ins, int n);
/* Uses of `from` in b (NULL: none) and the regions below it become uses of `to`. */
void ir_replace_uses(Block *b, ValueId from, ValueId to);
/* A copy of `in` (its regions too), appended to b (NULL: to no block), its
 * operands through map (map[v] != 0 for v < nmap: use that), its results
 * and block arguments entered in the map; names and layouts copied. */
Inst *ir_clone_inst(Function *f, Block *b, const Inst *in, ValueId *map, int nmap);

#endif
