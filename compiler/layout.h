/* layout.h: which thread owns which element of a block (Triton's encodings).
 *
 * A Layout says how a block of static shape is spread over the 32 * num_warps
 * threads of a program. Every layout kind is reduced to one ThreadMap for a
 * given shape: register r of thread (warp w, lane l) holds the element whose
 * index along dimension d is
 *
 *     idx_d = (base_d(l, w) + reg_off[r][d]) mod shape_d
 *     base_d = ((l / ldiv_d) % lmod_d) * lmul_d + ((w / wdiv_d) % wmod_d) * wmul_d
 *
 * so the lowering (llvm*.c), the reductions, convert_layout through shared
 * memory, the docs' ownership maps and the tests all read one description.
 * The "mod shape_d" only matters when the layout's tile is larger than the
 * block along d: then several threads hold copies of the same element
 * (replication), and stores / atomics must be issued by one of them only
 * (ThreadMap.replicated says along which dims).
 *
 * Kinds (Triton names in brackets):
 *  BLOCKED [#blocked]: sizePerThread, threadsPerWarp, warpsPerCTA, order
 *     (order[0] = fastest dim). A thread owns sizePerThread contiguous
 *     elements per dim, repeated when the block is larger than the tile
 *     spt*tpw*wpc. Registers enumerate the sizePerThread elements (fastest dim
 *     first) and then the repetitions (also fastest dim first). Lanes and
 *     warps are numbered along `order` too.
 *  SLICE [#slice]: parent layout with dimension `dim` removed: the result of
 *     a reduction along dim, the input of expand_dims(dim). Its map is the
 *     parent's map for the shape with a 1 inserted at dim, that column
 *     dropped: the threads that differed only along dim hold copies.
 *  MMA [#mma v2]: the accumulator of mma.sync m16n8kK: per warp a 16x8 tile,
 *     lane l holds (l/4, 2*(l%4)+{0,1}) and (l/4+8, 2*(l%4)+{0,1}); warps tile
 *     warpsPerCTA[0] x warpsPerCTA[1] (warp id row-major: dim 1 fastest);
 *     repeated over the block. Registers: for each M repetition, for each N
 *     repetition, the four c0..c3 of the instruction in PTX order.
 *     version 3 (wgmma, sm_90a; wpc = [num_warps, 1]): the same map; a
 *     warpgroup's 4 warps hold the 64 rows of one m64nN wgmma, whose D
 *     registers are these c0..c3 over N. Its DOT_OPERANDs are shared
 *     buffers' addresses (wgmma reads the operands through descriptors).
 *  DOT_OPERAND [#dot_op]: operand op_idx (0 = A, 1 = B) of an MMA parent, with
 *     k_width elements per 32-bit register (2 for fp16/bf16, 1 for tf32, 4 for
 *     int8):
 *     A (16 x 16 per instruction, fp16): (l/4 + {0,8}, 2*(l%4) + {0,1} + {0,8});
 *     B (16 x 8): (2*(l%4) + {0,1} + {0,8}, l/4); tf32 (k8): A (l/4+{0,8}, l%4+{0,4}),
 *     B (l%4+{0,4}, l/4). Repeated over M (A), N (B) and K. Registers: for
 *     each M (A) / N (B) repetition, for each K repetition, the instruction's
 *     fragment in PTX order (a0..a7 / b0..b3 for fp16), so the k_width
 *     elements of one 32-bit register are consecutive.
 *     With a BLOCKED parent (the FMA dot, for fp32 IEEE, fp64 and shapes too
 *     small for mma): A holds the parent's rows of each thread with the whole
 *     K (registers: for each row, k = 0..K-1), B the parent's columns with
 *     the whole K (for each k, each column); threads of the other dim hold
 *     copies. k_width is 0.
 *  SHARED [#shared, Triton's swizzled_shared]: the layout of a shared-memory
 *     buffer (!smem<...>), not of registers: row-major along `order` (rank
 *     dims; the buffer's leading dims beyond them, such as a pipeline's
 *     stages, are outermost), and within each row the vec-element groups are
 *     XOR-permuted by the row's phase = (row / per_phase) % max_phase, so the
 *     8 rows one ldmatrix reads land in 8 different bank groups. No ThreadMap.
 *  NVMMA [#nvmma, Triton's nvmma_shared]: the layouts wgmma's shared-memory
 *     descriptors read: the inner dim cut into atoms of `swizzle` bytes (32,
 *     64 or 128; 0: no swizzle, 16-byte atoms), each atom column stored
 *     row after row, and inside every 8 rows of 128 bytes the 16-byte chunks
 *     XOR-permuted by the row (CUTLASS's Swizzle<log2(swizzle/16), 4, 3>).
 *     `transposed`: the inner dim is dim 0 instead of the last. No ThreadMap.
 *
 * Registers never repeat inside a thread: where the tile is larger than the
 * block (sizePerThread 4 on a dim of 2, a slice's removed dim) the map keeps
 * the first register of each distinct element, reg_off is reduced mod shape,
 * and the repeats are gone. Copies across threads remain; lane_dup/warp_dup
 * say which threads hold them.
 *
 * The table: Function.layouts is numbered like Function.values: slot 0 is
 * "no layout", valid indices are 1 .. nlayouts-1, and nlayouts is 0 before
 * the layout pass. Layouts are interned: equal layouts have one index. Two
 * different layouts can still give the same map for a given shape (see
 * layout_same_map); the pass inserts no convert between those. */
#ifndef TL_LAYOUT_H
#define TL_LAYOUT_H

#include "arch.h"
#include "ir.h"

typedef struct AxisInfo AxisInfo;

typedef enum {
    LAYOUT_NONE, LAYOUT_BLOCKED, LAYOUT_SLICE, LAYOUT_MMA, LAYOUT_DOT_OPERAND, LAYOUT_SHARED, LAYOUT_NVMMA
} LayoutKind;

typedef struct Layout {
    LayoutKind kind;
    int rank;
    int size_per_thread[IR_MAX_RANK];   /* BLOCKED */
    int threads_per_warp[IR_MAX_RANK];  /* BLOCKED */
    int warps_per_cta[IR_MAX_RANK];     /* BLOCKED, MMA */
    int order[IR_MAX_RANK];             /* BLOCKED, SHARED: fastest-varying dim first */
    int parent;                         /* SLICE, DOT_OPERAND: index in Function.layouts */
    int dim;                            /* SLICE: the removed dimension */
    int op_idx, k_width;                /* DOT_OPERAND */
    int vec, per_phase, max_phase;      /* SHARED swizzle */
    int version;                        /* MMA: 2 (mma.sync); 0 reads as 2 */
    int swizzle, elem_bits;             /* NVMMA: atom width in bytes (0, 32, 64, 128), element bits */
    bool transposed;                    /* NVMMA: the inner (contiguous) dim is dim 0 */
} Layout;

/* A layout of shared memory (SHARED, NVMMA) rather than of registers. */
static inline bool layout_is_shared(LayoutKind k) { return k == LAYOUT_SHARED || k == LAYOUT_NVMMA; }

typedef struct ThreadMap {
    int rank;
    int32_t shape[IR_MAX_RANK];
    int nregs;                          /* registers (elements) per thread */
    struct { int ldiv, lmod, lmul, wdiv, wmod, wmul; } dim[IR_MAX_RANK];
    int32_t (*reg_off)[IR_MAX_RANK];    /* nregs rows of per-dim constant offsets */
    bool replicated[IR_MAX_RANK];       /* the tile exceeds the block along d */
    int contig;                         /* registers r..r+contig-1 are consecutive along
                                           the fastest dim (vector width upper bound) */
    /* Extensions (after the fields above, so positional code keeps working): */
    int contig_dim;                     /* the dim `contig` runs along (-1: rank 0) */
    uint32_t lane_dup, warp_dup;        /* bits of the lane / warp id that do not change
                                           the elements a thread holds: threads with
                                           (lane & lane_dup) == 0 && (warp & warp_dup) == 0
                                           own one copy of every element */
} ThreadMap;

enum {
    /* 32-bit registers one thread may hold for one value. Past 255 ptxas
     * spills to local memory: slow, not wrong, and Triton compiles such
     * blocks (128x256 accumulators at 4 warps, test_index1d's 32^3 blocks at
     * one warp: 2048 words of pointers a thread), so tl does too. The limit
     * is compile time, not the GPU: a 65536-element copy at one warp (4096
     * words a value) takes ptxas 1 s, 131072 (8192) 3.5 s, and the code
     * grows with it; past 8192 tl refuses the block. */
    LAYOUT_MAX_REGS = 8192,
    /* A broadcast operand keeps its own layout while it costs at most this
     * many registers spread over the result: replicas are cheaper than a
     * convert up to there. */
    LAYOUT_REPLICA_REGS = 64,
};

/* Intern a layout in f's table; returns its index (>= 1). Fields a kind does
 * not use are ignored (compared and stored as 0). */
int layout_intern(Function *f, const Layout *l);
/* The thread map of layout `li` for a block of type t (allocated in f's
 * arena). NULL for SHARED, for a scalar, or when li's rank is not t's. */
const ThreadMap *layout_thread_map(const Function *f, int li, Type t, int num_warps);
/* The element register r of thread (lane, warp) holds: the formula above. */
void layout_elem_index(const ThreadMap *tm, int lane, int warp, int r, int32_t *idx);
/* The warp's part of base_d: ((warp / wdiv) % wmod) * wmul. */
int64_t layout_warp_base(const ThreadMap *tm, int d, int warp);
/* Layout li is MMA v3 (wgmma's accumulator), or a DOT_OPERAND of one: such
 * an operand is a shared buffer's address, read by wgmma's descriptors
 * (llvm_dot.c), which smem.c counts as a use and a read of the buffer. */
bool layout_is_wgmma(const Function *f, int li);
/* True when layouts a and b put every element of a block of type t in the
 * same register of the same threads (a convert between them moves nothing). */
bool layout_same_map(const Function *f, int a, int b, Type t, int num_warps);
/* True when, with layout li for both, every element of a block of type res
 * taken from one of type src at index start along axis (the extract op) is
 * in a register of the same thread in src: the extract renames registers,
 * it moves nothing (an MMA accumulator's column halves: tl.split). */
bool layout_extract_renames(const Function *f, int li, Type src, Type res, int axis, int64_t start, int num_warps);
/* For each register of dst, a register of src holding the same element in
 * every thread (elements numbered row-major over src's shape; dst's at
 * coef . index + base): plan[r]; false when some register has none. The one
 * rule for renaming instead of moving (llvm_move, the extract op). */
bool layout_rename_plan(const ThreadMap *src, const ThreadMap *dst, const int64_t *coef, int64_t base, int num_warps,
                        int *plan);
/* For a gather whose index is each element's own xor c along axis (the op's
 * xor): a lane xor *lane_xor (the same for every thread; 0: the thread
 * itself) that holds the partner of every element of tm, in register
 * plan[r] for register r, the same register in every thread; false when no
 * lane does (the partners are in other warps, or spread over several lanes). */
bool layout_xor_plan(const ThreadMap *tm, int axis, int c, int num_warps, int *plan, int *lane_xor);
/* The one rule for a gather read without shared memory (smem.c reserves it
 * no scratch, llvm_scan.c lowers it through registers and shuffles): an op
 * with an xor whose source and result share a thread map and have a plan
 * (plan: LAYOUT_MAX_REGS entries). */
bool layout_gather_xor(const Function *f, const Inst *in, int *plan, int *lane_xor);
/* Two thread maps that put every element in the same register of the same thread. */
bool layout_tm_equal(const ThreadMap *a, const ThreadMap *b);
/* A block staged row-major in shared memory for a layout move gets padded
 * rows (by at most 16 bytes a row: llvm.c's smem_pad) when a row of `last`
 * elements of `bytes` each spans the 32 banks a whole number of times; the
 * one rule for the lowering and for smem.c's bound. */
static inline bool layout_row_padded(int rank, int last, int bytes) {
    return rank >= 2 && last > 1 && (int64_t)last * bytes % 128 == 0;
}
/* Print "#blocked<{spt = [1, 4], tpw = [8, 4], wpc = [4, 1], order = [1, 0]}>" etc.
 * (parents inline). */
void layout_print(Buf *out, const Function *f, int li);
/* The same with Triton's aliases, for IR dumps: "#blocked1", "#mma"; a slice
 * or dot_op prints inline with its parent's alias. */
void layout_print_ref(Buf *out, const Function *f, int li);
/* The alias lines "#blocked1 = #blocked<{...}>" of f's BLOCKED, MMA and
 * SHARED layouts, one per line (nothing when nlayouts == 0). */
void layout_print_aliases(Buf *out, const Function *f);
/* A value's type with its layout: "<128x64xf16, #blocked1>"; a scalar or a
 * value without layout prints as ir_type_print does. */
void layout_print_type(Buf *out, const Function *f, ValueId v);
/* Shared layouts: the element offset (in elements from the buffer's start) of
 * the element at idx[0..t.rank) of a buffer of type t (stage dims included:
 * they are outermost) in shared layout li; -1 when li is not a shared layout
 * that fits t. Every element gets its own offset in [0, numel). */
int64_t layout_shared_offset(const Function *f, int li, Type t, const int32_t *idx);
/* The swizzled layout (SHARED) a 2-D tile of `rows` x `cols` elements of
 * `bytes` each, row-major, wants so that 8 consecutive rows of one 16-byte
 * column (an ldmatrix, or any 8 lanes reading down) hit 8 different bank
 * groups: vec = 16 bytes of elements, per_phase = rows sharing one 128-byte
 * line, max_phase = 16-byte groups per row (at most 8). */
Layout layout_swizzled_for(int rows, int cols, int bytes);
/* The shared layout of a ring that an FMA dot reads as its operand op_idx
 * (0: A, rows x cols = M x K; 1: B, K x N), row-major: A swizzled so that
 * the consecutive rows one load of a warp reads fall in distinct bank
 * groups, B plain (a warp reads consecutive 16-byte runs of one row). */
Layout layout_fma_shared(int rows, int cols, int bytes, int op_idx);
/* Draw a shared layout: each cell the offset of the element, in 16-byte
 * chunks and the element within ("c:e"), for a 2-D block. */
void layout_draw_shared(Buf *out, const Function *f, int li, Type t);
/* Draw which thread owns which element of a block (docs/layouts.md, tests):
 * one cell per element, "T<thread>" or "T<t>:<reg>". */
void layout_draw(Buf *out, const Function *f, int li, Type t, int num_warps);

/* The widest vector (a power of two, at most 16 bytes) of a memory access by
 * a block of pointers in map tm: registers r..r+v-1 consecutive along the
 * map's contig_dim in every group, no wider than the axis analysis allows
 * (ptr: the pointer's contiguity and alignment in bytes; mask, if not NULL:
 * its constancy along that dim). The layout pass sized sizePerThread from the
 * same facts; this keeps loads, stores and async copies safe when a layout
 * came from elsewhere. */
int layout_vector_width(const ThreadMap *tm, const AxisInfo *ptr, const AxisInfo *mask, int bytes);
/* Distinct positions along a dim of size S that the `mod` values of a lane
 * or warp id field multiplied by `mul` reach (ThreadMap.dim[d].lmod/lmul,
 * wmod/wmul): how many lanes or warps a reduction or scan along d combines. */
int layout_distinct(int mod, int mul, int S);
/* Do the registers form runs of v elements consecutive along dim fd, each
 * starting at a multiple of v? (What a v-wide vector access needs.) */
bool layout_reg_runs(const ThreadMap *tm, int fd, int v);
/* layout_reg_runs, and each run starts at a multiple of v in every thread:
 * the lane and warp terms of dim fd are multiples of v too. */
bool layout_runs_aligned(const ThreadMap *tm, int fd, int v);

/* ---- passes ---- */
/* Axis analysis: per integer/pointer value and dimension, contiguity,
 * divisibility and constancy (Triton's AxisInfo):
 *   contiguity[d]:   the value runs in groups of this many consecutive
 *                    integers (pointers: consecutive elements) along d;
 *   divisibility[d]: the first value of every such group is a multiple of
 *                    this power of two (pointers: the address, in bytes);
 *   constancy[d]:    the value is constant in groups of this many along d.
 * Scalars use index 0. All are powers of two, at least 1, and contiguity and
 * constancy at most the dim's size; divisibility saturates at 2^62. */
struct AxisInfo {
    int64_t contiguity[IR_MAX_RANK];
    int64_t divisibility[IR_MAX_RANK];
    int64_t constancy[IR_MAX_RANK];
    bool has_value;                     /* every element equals `value` (ints only) */
    int64_t value;
};
/* One AxisInfo per value (index = ValueId), allocated in f's arena. Values
 * that are not integers, booleans or pointers get the pessimistic info
 * (1, 1, 1) except for constancy of splats and broadcasts. */
AxisInfo *axis_analyze(Function *f);

/* The layout pass: anchors -> propagate -> resolve conflicts -> rewrite
 * (inserts CONVERT_LAYOUT). Sets Value.layout for every block value. Returns
 * false (with a source-located diagnostic) when the kernel cannot be laid out
 * (a block too large for its registers). `axis` is axis_analyze(f) of the IR
 * as it was before this pass.
 *
 * After it, each op's block operands have the layout the op wants (see
 * layout_pass.c) or one with the same ThreadMap for that shape; DOT operands
 * are DOT_OPERAND layouts of the result's MMA (or BLOCKED: FMA) layout, except
 * an FMA dot whose operands would take more than 64 registers per thread:
 * those keep the layouts they have (the lowering stages them in shared
 * memory and loops over K); a
 * REDUCE result is SLICE(input layout, axis) (keep_dims: the input's layout);
 * TRANS of a BLOCKED input is the permuted BLOCKED layout (same registers);
 * RESHAPE moves data through shared memory like CONVERT_LAYOUT. The only
 * things of the target it reads: whether dots may be mma.sync (sm_80+), and
 * with fp8 operands (ARCH_MMA_FP8). */
bool layout_pass(Diag *d, Function *f, const AxisInfo *axis, const PtxArch *arch);

#endif
