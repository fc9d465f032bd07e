/* passes.h: the passes on the tile IR after sema, in pipeline order
 * (compile.c runs them). Each file's header comment says what its pass
 * requires and ensures; each returns false with a diagnostic in d when the
 * kernel cannot be compiled (a source error) or the pass found a bug (an
 * internal error). The layout pass and the axis analysis are in layout.h. */
#ifndef TL_PASSES_H
#define TL_PASSES_H

#include "ir.h"

/* combine.c: add(acc, dot(a, b, 0)) -> dot(a, b, acc). */
bool combine_pass(Diag *d, Function *f);

/* flatten.c: a `for {flatten = true}` holding one loop becomes one loop over
 * both, its epilogue under an if (before the layout pass; only with
 * async_copy, the target's cp.async, where the pipeliner can use it; with
 * wgmma also a `for {warp_specialize = true}` holding one loop). */
bool flatten_pass(Diag *d, Function *f, bool async_copy, bool wgmma, int max_shared);

/* peel.c: from the first loop that may run once (i32 bounds known before
 * it, a constant step > 1) to its block's end, the ops are versioned on
 * every such loop running exactly once: then each is its body, straight-line
 * (before the layout pass; nothing where a dot is among the ops). */
bool peel_pass(Diag *d, Function *f);

/* sink.c: under a register cap (Function.maxnreg), a pure op or a load read
 * only after a reduction (or scan) it precedes moves to just before its
 * first reader (a load not past a write), so that it is not live across the
 * reduction (before the layout pass). */
bool sink_pass(Diag *d, Function *f);

/* tma.c: loads of pointer tiles proved to be TMA boxes read through desc_tile
 * and a map the launch encodes (sm_90a, Function.auto_tma); tma_prune (its
 * own pass, after the pipeliner) takes back what the pipeliner did not use. */
bool tma_pass(Diag *d, Function *f, bool wgmma);
void tma_prune(Function *f);

/* pipeline.c: loads feeding a dot (or in a loop with num_stages) become rings
 * of shared buffers filled num_stages-1 iterations ahead by async copies
 * (or left to a producer warpgroup: warpspec.c).
 * async_copy: the target has cp.async (sm_80; nothing without); wgmma (sm_90a):
 * a dot whose operands both come from rings becomes MMA v3, read by wgmma. */
bool pipeline_pass(Diag *d, Function *f, bool async_copy, int max_shared, bool wgmma);

enum {
    /* The accumulator registers a thread may hold for one wgmma dot (MMA v3):
     * 256, a 128x256 fp32 tile at 4 warps, as Triton gives MMA v3 to every
     * shape wgmma has. There ptxas spills a little (tutorial 09's 128x256x128
     * at 4 warps: 255 registers, 1.5 KB of stack); the mma.sync it had
     * instead held its accumulator in local memory whole (32 registers,
     * 11.6 KB of stack, 21 KB of spill stores) and took 3.8 s to compile
     * against 1.2 (llvm_dot.c's waits tie up to 4 such groups). */
    WGMMA_MAX_ACC_REGS = 256,
};

/* warpspec.c: a loop the pipeliner handed over ({ws_hold}: TMA rings it
 * fills itself, each iteration's copies just before its wait) gets a
 * producer warpgroup running the copies, the loop keeping the waits and
 * releasing each slot on a ring of empty barriers. warpspec_loop_ok: may the
 * loop (of f's body) have it, its copies at the given coordinates (two a
 * copy): the pipeliner's question before it builds the rings. */
bool warpspec_pass(Diag *d, Function *f);
bool warpspec_loop_ok(Function *f, Inst *loop, const ValueId *coords, int ncoords);

/* smem.c: offsets of every buffer and scratch area, Function.shared_bytes and
 * the arch's limit (smem_alloc_pass); barriers where threads share shared
 * memory (barrier_pass, after it). */
bool smem_alloc_pass(Diag *d, Function *f, int max_shared);
/* A dot below one mma tile (M < 16 or N < 8) on the tensor cores
 * (llvm_dot.c's lower_mma_small): A (M x K) and B (K x N) as 16-bit elements,
 * row-major, each from a 16-byte boundary, then the M x N fp32 products at
 * *doff (B at *boff); returns the bytes. One owner for the lowering's
 * offsets and smem_scratch_bound. */
int64_t smem_small_mma_bytes(int M, int N, int K, int64_t *boff, int64_t *doff);
/* The shared scratch op `in` may use (0: none), as smem_alloc_pass reserves it. */
int64_t smem_scratch_bound(const Function *f, const Inst *in);
bool barrier_pass(Diag *d, Function *f);

#endif
