/* llvm_mem.c: global memory: load, store, atomic_rmw, atomic_cas.
 *
 * Loads and stores are vectorised: registers r..r+v-1 that hold consecutive
 * elements along the fastest dimension (ThreadMap.contig, which the layout
 * pass sized from the axis analysis: contiguity, divisibility and the mask's
 * constancy) become one access of v elements, at most 16 bytes
 * (ld.global.v4.b32 / st.global.v4.b32), aligned to its size. A mask is taken
 * per vector (its first register: the layout pass only widens vectors over
 * which the mask is constant): an access of 4, 8 or 16 bytes is one
 * predicated instruction (`@p ld.global.v4.b32`, its registers starting as
 * `other` or zero), a narrower one a branch around the access.
 *
 * Replicated layouts hold an element in several threads (or registers); stores
 * and atomics run only in its owner (llvm_owner), and an atomic's old values
 * are then shared with the copies through shared memory. */
#include <stdio.h>
#include <string.h>

#include "llvm_int.h"

static DType dtype_of(Lower *L, ValueId v) { return (DType)L->f->values[v].type.dtype; }

/* Operand v (mask, other, value) per register of the pointer block: in the
 * pointer's layout, a scalar repeated for every register. */
static LLVMValueRef *per_reg(Lower *L, ValueId v, ValueId ptr, Span sp) {
    int n = llvm_val(L, ptr)->n;
    if (llvm_tm(L, v) || n == 1)
        return llvm_regs_like(L, v, ptr, sp);
    LLVMValueRef *r = llvm_new_regs(L, n);
    for (int i = 0; i < n; i++)
        r[i] = llvm_val(L, v)->r[0];
    return r;
}

/* The widest vector the map and the axis analysis allow (layout.h). */
static int vector_width(Lower *L, const ThreadMap *tm, ValueId ptr, ValueId mask, int bytes) {
    const AxisInfo *m = mask && llvm_tm(L, mask) && L->axis ? &L->axis[mask] : NULL; /* a scalar mask is uniform */
    return layout_vector_width(tm, L->axis ? &L->axis[ptr] : NULL, m, bytes);
}

/* The in-memory type of a v-element access: whole 32-bit words when the
 * elements are narrower (so 16 bytes of fp16 is one ld.global.v4.b32). */
static LLVMTypeRef access_type(Lower *L, DType dt, int v) {
    int bytes = llvm_dt_bytes(dt);
    if (v == 1)
        return llvm_mem_type(L, dt);
    if (bytes < 4 && v * bytes >= 4)
        return v * bytes == 4 ? L->t_i32 : LLVMVectorType(L->t_i32, (unsigned)(v * bytes / 4));
    return LLVMVectorType(llvm_mem_type(L, dt), (unsigned)v);
}

/* Accesses whose elements go in and out of their 32-bit words by shifts, not
 * a bitcast of the vector: with a bitcast InstCombine retypes the load or
 * store itself, and LLVM 19's NVPTX splits an <8 x i8> or <16 x i8> access
 * into 4-byte ones, and a <4 x bfloat> one (8 bytes) into two 4-byte ones
 * (<4 x half> stays one ld.v4.b16, <8 x bfloat> one ld.v4.b32). */
static bool by_words(DType dt, int v) {
    return (llvm_dt_bytes(dt) == 1 && v >= 8 && dt != DT_I1) || (dt == DT_BF16 && v == 4);
}

/* Registers -> the value stored (i1 as a byte). */
static LLVMValueRef pack(Lower *L, DType dt, LLVMValueRef *regs, int v, LLVMTypeRef at) {
    LLVMTypeRef mt = llvm_mem_type(L, dt);
    if (v == 1)
        return dt == DT_I1 ? LLVMBuildZExt(L->b, regs[0], L->t_i8, "") : regs[0];
    int bytes = llvm_dt_bytes(dt);
    if (by_words(dt, v)) {
        /* Words built with shifts: see by_words. */
        int per = 4 / bytes;
        LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)(bytes * 8));
        LLVMValueRef vec = LLVMGetUndef(at);
        for (int w = 0; w < v / per; w++) {
            LLVMValueRef word = NULL;
            for (int j = 0; j < per; j++) {
                LLVMValueRef e = regs[w * per + j];
                e = LLVMBuildZExt(L->b, it == mt ? e : LLVMBuildBitCast(L->b, e, it, ""), L->t_i32, "");
                if (j)
                    e = LLVMBuildShl(L->b, e, llvm_i32(L, j * bytes * 8), "");
                word = word ? LLVMBuildOr(L->b, word, e, "") : e;
            }
            vec = LLVMBuildInsertElement(L->b, vec, word, llvm_i32(L, w), "");
        }
        return vec;
    }
    LLVMValueRef vec = LLVMGetUndef(LLVMVectorType(mt, (unsigned)v));
    for (int i = 0; i < v; i++) {
        LLVMValueRef x = dt == DT_I1 ? LLVMBuildZExt(L->b, regs[i], L->t_i8, "") : regs[i];
        vec = LLVMBuildInsertElement(L->b, vec, x, llvm_i32(L, i), "");
    }
    return LLVMTypeOf(vec) == at ? vec : LLVMBuildBitCast(L->b, vec, at, "");
}

static void unpack(Lower *L, DType dt, LLVMValueRef x, int v, LLVMValueRef *regs) {
    LLVMTypeRef mt = llvm_mem_type(L, dt);
    int bytes = llvm_dt_bytes(dt);
    if (by_words(dt, v)) {
        /* See by_words: the elements taken out of each 32-bit word with shifts. */
        int per = 4 / bytes;
        LLVMTypeRef it = LLVMIntTypeInContext(L->ctx, (unsigned)(bytes * 8));
        for (int w = 0; w < v / per; w++) {
            LLVMValueRef word = LLVMBuildExtractElement(L->b, x, llvm_i32(L, w), "");
            for (int j = 0; j < per; j++) {
                LLVMValueRef e = j ? LLVMBuildLShr(L->b, word, llvm_i32(L, j * bytes * 8), "") : word;
                e = LLVMBuildTrunc(L->b, e, it, "");
                regs[w * per + j] = it == mt ? e : LLVMBuildBitCast(L->b, e, mt, "");
            }
        }
        return;
    }
    if (v > 1 && LLVMTypeOf(x) != LLVMVectorType(mt, (unsigned)v))
        x = LLVMBuildBitCast(L->b, x, LLVMVectorType(mt, (unsigned)v), "");
    for (int i = 0; i < v; i++) {
        LLVMValueRef e = v == 1 ? x : LLVMBuildExtractElement(L->b, x, llvm_i32(L, i), "");
        regs[i] = dt == DT_I1 ? LLVMBuildICmp(L->b, LLVMIntNE, e, LLVMConstNull(L->t_i8), "") : e;
    }
}

/* ---- accesses through inline PTX ----
 * A masked access of 4, 8 or 16 bytes is one predicated instruction, as
 * Triton emits it: `@p ld.global.v4.b32` whose destination registers start
 * as `other` (tied), `@p st.global.v4.b32`; no branch. Narrower ones keep a
 * branch around the access. An access with a cache modifier, an eviction
 * policy or volatile=True is always inline PTX (LLVM 19's NVPTX has no way
 * to say them), of any width, predicated when masked, with the qualifiers in
 * the order of Triton's LoadStoreOpToLLVM.cpp:
 *   ld[.volatile].global[.ca|.cg|.cv][.L1::evict_first|.L1::evict_last][.L2::cache_hint]
 *   st.global[.wb|.cg|.cs|.wt][.L1::evict_first|.L1::evict_last][.L2::cache_hint]
 * An eviction policy also gives the access an L2 policy register made by
 * `createpolicy.fractional.L2::evict_first.b64 $0, 1.0` (Triton does both:
 * the L1 qualifier and the L2 hint). */

static bool predicated(int tb) { return tb == 4 || tb == 8 || tb == 16; }

/* A vector of 64-bit elements: inline PTX, spelled as Triton's
 * `ld.global.v2.b64` (LLVM's NVPTX prints .v2.f64 / .v2.u64, and Triton's
 * own tests look for the .b64 form). */
static bool wide64(int bytes, int v) { return bytes == 8 && v > 1; }

/* Does the op carry hints only inline PTX can say? */
static bool hinted(const Inst *in) { return in->attr.cache || in->attr.evict || in->attr.is_volatile; }

static const char *const cache_q[] = {"", ".ca", ".cg", ".cv", ".wb", ".cs", ".wt"};
static const char *const evict_q[] = {"", ".L1::evict_first", ".L1::evict_last"};

/* The qualifiers after `.global`. PTX takes a cache operator or an L1
 * eviction priority, not both (ptxas: "Modifier '.evict_first' cannot be
 * combined with modifier '.cg'"), and ld.volatile neither: where Triton's
 * string would be rejected, the cache operator wins over the L1 priority
 * (the L2 policy still says the eviction) and volatile over both. */
static void mem_quals(const Inst *in, char *q, size_t n) {
    int c = in->attr.cache, e = in->attr.evict;
    if (in->attr.is_volatile)
        c = e = 0;
    snprintf(q, n, "%s%s%s", cache_q[c], c ? "" : evict_q[e], e ? ".L2::cache_hint" : "");
}

/* The words an access of tb bytes moves: one 16-bit register ("h") for 1
 * and 2 bytes (PTX has no 8-bit registers), 64-bit registers ("l") for
 * 8-byte elements (as Triton spells them: ld.global.v2.b64), else 32-bit
 * registers ("r"). eb: the element's bytes. */
static int word_bytes(int tb, int eb) { return tb < 4 ? 2 : eb == 8 ? 8 : 4; }
static int nwords(int tb, int eb) { return tb < 4 ? 1 : tb / word_bytes(tb, eb); }
static LLVMTypeRef word_type(Lower *L, int tb, int eb) {
    return LLVMIntTypeInContext(L->ctx, (unsigned)word_bytes(tb, eb) * 8);
}
static char word_reg(int tb, int eb) { return "??h?r???l"[word_bytes(tb, eb)]; }

/* ".u8", ".b16", ".b32", ".v2.b32", ".v4.b32", ".b64", ".v2.b64" */
static void width_q(char *q, size_t n, int tb, int eb) {
    int k = nwords(tb, eb);
    if (tb == 1)
        snprintf(q, n, ".u8");
    else
        snprintf(q, n, "%s.b%d", k == 2 ? ".v2" : k == 4 ? ".v4" : "", word_bytes(tb, eb) * 8);
}

/* x (an access of tb bytes) as its words, and back. */
static void to_words(Lower *L, LLVMValueRef x, int tb, int eb, LLVMValueRef *w) {
    int n = nwords(tb, eb);
    LLVMTypeRef wt = word_type(L, tb, eb);
    if (tb < 4) {
        x = LLVMBuildBitCast(L->b, x, LLVMIntTypeInContext(L->ctx, (unsigned)tb * 8), "");
        w[0] = tb == 1 ? LLVMBuildZExt(L->b, x, L->t_i16, "") : x;
        return;
    }
    LLVMValueRef v = LLVMBuildBitCast(L->b, x, n == 1 ? wt : LLVMVectorType(wt, (unsigned)n), "");
    for (int i = 0; i < n; i++)
        w[i] = n == 1 ? v : LLVMBuildExtractElement(L->b, v, llvm_i32(L, i), "");
}

static LLVMValueRef from_words(Lower *L, LLVMValueRef *w, int tb, int eb, LLVMTypeRef at) {
    int n = nwords(tb, eb);
    if (tb < 4)
        return LLVMBuildBitCast(L->b, tb == 1 ? LLVMBuildTrunc(L->b, w[0], L->t_i8, "") : w[0], at, "");
    if (n == 1)
        return LLVMBuildBitCast(L->b, w[0], at, "");
    LLVMValueRef v = LLVMGetUndef(LLVMVectorType(word_type(L, tb, eb), (unsigned)n));
    for (int i = 0; i < n; i++)
        v = LLVMBuildInsertElement(L->b, v, w[i], llvm_i32(L, i), "");
    return LLVMBuildBitCast(L->b, v, at, "");
}

/* Inline asm `text` with constraints `cons`; side effects unless pure. */
LLVMValueRef llvm_asm(Lower *L, const char *text, const char *cons, LLVMTypeRef rt, LLVMValueRef *args, int n,
                      bool pure) {
    LLVMTypeRef at[16];
    for (int i = 0; i < n; i++)
        at[i] = LLVMTypeOf(args[i]);
    LLVMTypeRef fty = LLVMFunctionType(rt, at, (unsigned)n, 0);
    LLVMValueRef fn = LLVMGetInlineAsm(fty, (char *)text, strlen(text), (char *)cons, strlen(cons), !pure, 0,
                                       LLVMInlineAsmDialectATT, 0);
    return LLVMBuildCall2(L->b, fty, fn, args, (unsigned)n, "");
}

/* The L2 policy register of an eviction policy (Triton's createCachePolicy);
 * pure, so LLVM makes one per kernel. */
static LLVMValueRef l2_policy(Lower *L, int evict) {
    const char *text = evict == EVICT_FIRST ? "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;"
                                            : "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;";
    return llvm_asm(L, text, "=l", L->t_i64, NULL, 0, true);
}

/* "@$P " when predicated (pidx >= 0). */
static int put_pred(char *t, size_t n, int pidx) { return pidx < 0 ? 0 : snprintf(t, n, "@$%d ", pidx); }

/* if (pred) x = *p (tb bytes); else x = dflt. pred NULL: unconditional. */
static LLVMValueRef load_asm(Lower *L, const Inst *in, LLVMValueRef p, LLVMTypeRef at, int tb, int eb,
                             LLVMValueRef pred, LLVMValueRef dflt) {
    int n = nwords(tb, eb), ev = in->attr.is_volatile ? 0 : in->attr.evict;
    char c1 = word_reg(tb, eb), q[64], wq[16];
    mem_quals(in, q, sizeof q);
    width_q(wq, sizeof wq, tb, eb);
    LLVMValueRef args[16], w[4];
    int na = 0;
    args[na++] = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
    if (pred)
        args[na++] = pred;
    if (ev)
        args[na++] = l2_policy(L, ev);
    char text[256], cons[96];
    int o = put_pred(text, sizeof text, pred ? n + 1 : -1);
    o += snprintf(text + o, sizeof text - (size_t)o, "ld%s.global%s%s %s", in->attr.is_volatile ? ".volatile" : "", q,
                  wq, n > 1 ? "{" : "");
    int c = 0;
    for (int i = 0; i < n; i++) {
        o += snprintf(text + o, sizeof text - (size_t)o, "%s$%d", i ? ", " : "", i);
        c += snprintf(cons + c, sizeof cons - (size_t)c, "%s=%c", i ? "," : "", c1);
    }
    o += snprintf(text + o, sizeof text - (size_t)o, "%s, [$%d]", n > 1 ? "}" : "", n);
    if (ev)
        o += snprintf(text + o, sizeof text - (size_t)o, ", $%d", n + 1 + (pred != NULL));
    snprintf(text + o, sizeof text - (size_t)o, ";");
    c += snprintf(cons + c, sizeof cons - (size_t)c, ",l%s%s", pred ? ",b" : "", ev ? ",l" : "");
    if (pred) { /* the destinations start as the default: tied inputs */
        to_words(L, dflt, tb, eb, w);
        for (int i = 0; i < n; i++) {
            c += snprintf(cons + c, sizeof cons - (size_t)c, ",%d", i);
            args[na++] = w[i];
        }
    }
    snprintf(cons + c, sizeof cons - (size_t)c, ",~{memory}");
    LLVMTypeRef wt = word_type(L, tb, eb);
    LLVMTypeRef rt = n == 1 ? wt : LLVMStructTypeInContext(L->ctx, (LLVMTypeRef[]){wt, wt, wt, wt}, (unsigned)n, 0);
    LLVMValueRef r = llvm_asm(L, text, cons, rt, args, na, false);
    for (int i = 0; n > 1 && i < n; i++)
        w[i] = LLVMBuildExtractValue(L->b, r, (unsigned)i, "");
    if (n == 1)
        w[0] = r;
    return from_words(L, w, tb, eb, at);
}

/* if (pred) *p = x (tb bytes); pred NULL: unconditional. */
static void store_asm(Lower *L, const Inst *in, LLVMValueRef p, LLVMValueRef x, int tb, int eb, LLVMValueRef pred) {
    int n = nwords(tb, eb), ev = in->attr.evict;
    char q[64], wq[16];
    mem_quals(in, q, sizeof q);
    width_q(wq, sizeof wq, tb, eb);
    LLVMValueRef args[16], w[4];
    to_words(L, x, tb, eb, w);
    int na = 0;
    args[na++] = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
    if (pred)
        args[na++] = pred;
    int first = na; /* the words' operand numbers */
    for (int i = 0; i < n; i++)
        args[na++] = w[i];
    if (ev)
        args[na++] = l2_policy(L, ev);
    char text[256], cons[96];
    int o = put_pred(text, sizeof text, pred ? 1 : -1);
    o += snprintf(text + o, sizeof text - (size_t)o, "st.global%s%s [$0], %s", q, wq, n > 1 ? "{" : "");
    int c = snprintf(cons, sizeof cons, "l%s", pred ? ",b" : "");
    for (int i = 0; i < n; i++) {
        o += snprintf(text + o, sizeof text - (size_t)o, "%s$%d", i ? ", " : "", first + i);
        c += snprintf(cons + c, sizeof cons - (size_t)c, ",%c", word_reg(tb, eb));
    }
    o += snprintf(text + o, sizeof text - (size_t)o, "%s", n > 1 ? "}" : "");
    if (ev)
        o += snprintf(text + o, sizeof text - (size_t)o, ", $%d", first + n);
    snprintf(text + o, sizeof text - (size_t)o, ";");
    snprintf(cons + c, sizeof cons - (size_t)c, "%s,~{memory}", ev ? ",l" : "");
    llvm_asm(L, text, cons, L->t_void, args, na, false);
}

/* ---- load ---- */

static LLVMValueRef load_vec(Lower *L, LLVMValueRef p, LLVMTypeRef at, int align) {
    LLVMValueRef ld = LLVMBuildLoad2(L->b, at, p, "");
    LLVMSetAlignment(ld, (unsigned)align);
    return ld;
}

void llvm_lower_load(Lower *L, Inst *in) {
    ValueId ptr = in->args[0], res = in->results[0];
    DType dt = dtype_of(L, res);
    const ThreadMap *tm = llvm_tm(L, ptr);
    LVal *pv = llvm_val(L, ptr);
    LLVMValueRef *mask = in->attr.has_mask ? per_reg(L, in->args[1], ptr, in->span) : NULL;
    LLVMValueRef *other = in->attr.has_other ? per_reg(L, in->args[2], ptr, in->span) : NULL;
    int n = pv->n, bytes = llvm_dt_bytes(dt);
    int v = vector_width(L, tm, ptr, in->attr.has_mask ? in->args[1] : 0, bytes);
    LLVMTypeRef at = access_type(L, dt, v);
    LLVMValueRef *r = llvm_new_regs(L, n);
    bool asm_only = hinted(in) || wide64(bytes, v);
    for (int i = 0; i < n; i += v) {
        /* if (mask) x = load; else x = other */
        LLVMValueRef dflt = !mask ? NULL : other ? pack(L, dt, other + i, v, at) : LLVMConstNull(at);
        if (asm_only || (mask && predicated(v * bytes))) {
            unpack(L, dt, load_asm(L, in, pv->r[i], at, v * bytes, bytes, mask ? mask[i] : NULL, dflt), v, &r[i]);
            continue;
        }
        if (!mask) {
            unpack(L, dt, load_vec(L, pv->r[i], at, v * bytes), v, &r[i]);
            continue;
        }
        LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b), ld = llvm_new_bb(L, "load"), cont = llvm_new_bb(L, "load.end");
        LLVMBuildCondBr(L->b, mask[i], ld, cont);
        LLVMPositionBuilderAtEnd(L->b, ld);
        LLVMValueRef x = load_vec(L, pv->r[i], at, v * bytes);
        LLVMBuildBr(L->b, cont);
        LLVMPositionBuilderAtEnd(L->b, cont);
        LLVMValueRef phi = LLVMBuildPhi(L->b, at, "");
        LLVMValueRef ins[2] = {x, dflt};
        LLVMBasicBlockRef from[2] = {ld, pre};
        LLVMAddIncoming(phi, ins, from, 2);
        unpack(L, dt, phi, v, &r[i]);
    }
    const ThreadMap *rt = llvm_tm(L, res);
    if (tm && rt && !layout_tm_equal(tm, rt)) { /* the result was given another layout */
        int64_t coef[IR_MAX_RANK];
        llvm_row_major(tm->rank, tm->shape, coef);
        LLVMValueRef *m = llvm_new_regs(L, rt->nregs);
        llvm_move(L, tm, r, dt, rt, m, coef, in->span);
        llvm_set(L, res, m, rt->nregs);
        return;
    }
    llvm_set(L, res, r, n);
}

/* ---- store ---- */

static LLVMValueRef and_pred(Lower *L, LLVMValueRef a, LLVMValueRef b) {
    return a && b ? LLVMBuildAnd(L->b, a, b, "") : a ? a : b;
}

/* Only one thread of a scalar access does it. */
static LLVMValueRef thread0(Lower *L) { return LLVMBuildICmp(L->b, LLVMIntEQ, L->tid, llvm_i32(L, 0), ""); }

void llvm_lower_store(Lower *L, Inst *in) {
    ValueId ptr = in->args[0];
    DType dt = dtype_of(L, in->args[1]);
    const ThreadMap *tm = llvm_tm(L, ptr);
    LVal *pv = llvm_val(L, ptr);
    LLVMValueRef *val = per_reg(L, in->args[1], ptr, in->span);
    LLVMValueRef *mask = in->nargs > 2 ? per_reg(L, in->args[2], ptr, in->span) : NULL;
    int n = pv->n, bytes = llvm_dt_bytes(dt);
    int v = vector_width(L, tm, ptr, in->nargs > 2 ? in->args[2] : 0, bytes);
    LLVMTypeRef at = access_type(L, dt, v);
    for (int i = 0; i < n; i += v) {
        LLVMValueRef pred = and_pred(L, tm ? llvm_owner(L, tm, i) : thread0(L), mask ? mask[i] : NULL);
        LLVMValueRef x = pack(L, dt, val + i, v, at);
        if (hinted(in) || wide64(bytes, v) || (pred && predicated(v * bytes))) {
            store_asm(L, in, pv->r[i], x, v * bytes, bytes, pred);
            continue;
        }
        LLVMBasicBlockRef cont = llvm_guard_begin(L, pred);
        LLVMValueRef st = LLVMBuildStore(L->b, x, pv->r[i]);
        LLVMSetAlignment(st, (unsigned)(v * bytes));
        llvm_guard_end(L, cont);
    }
}

/* ---- atomics ----
 * As Triton's AtomicRMWOpConversion / AtomicCASOpConversion: one inline
 * `atom` per element with the op's semantics and scope (LLVM 19's NVPTX
 * drops an atomicrmw's ordering and cannot say a scope), predicated on the
 * owner and the mask, its destination zeroed first (an element that did not
 * run reads 0):
 *   atom.global.gpu.acq_rel.add.f32 $0, [$1], $2;      (rmw: scope, then sem)
 *   atom.global.acq_rel.gpu.cas.b32 $0, [$1], $2, $3;  (cas: sem, then scope)
 * Types as Triton spells them: add .u32/.u64 on ints, .f32/.f64 on floats,
 * .noftz.f16/.bf16 on halves; max/min .s or .u by signedness; xchg, and, or,
 * xor .bNN (floats travel as their bits). A float max (min) is Triton's pair:
 * a signed max (min) of the bits where the value is >= 0, an unsigned min
 * (max) where it is < 0 (IEEE order is the integer order of the bits for
 * positives and the reverse for negatives); NaN values do neither. bf16 adds
 * before sm_90 (no atom.add.bf16) and f16 / bf16 max / min (no scalar
 * atom.max.f16) stay LLVM's atomicrmw, a CAS loop, between two
 * fence.acq_rel.gpu. */

static LLVMTypeRef int_of_bits(Lower *L, int bits) { return LLVMIntTypeInContext(L->ctx, (unsigned)bits); }

/* One `atom` on p with operands ops (ints of `bits`), under pred (NULL:
 * unconditional). op is "add.f32", "cas.b32" ... */
static LLVMValueRef atom_asm(Lower *L, const Inst *in, const char *op, int bits, LLVMValueRef p, LLVMValueRef *ops,
                             int nops, LLVMValueRef pred) {
    static const char *const sem[] = {"acq_rel", "acquire", "release", "relaxed"};
    static const char *const scope[] = {"gpu", "cta", "sys"};
    char c = bits == 16 ? 'h' : bits == 32 ? 'r' : 'l', text[200], cons[64];
    const char *se = sem[in->attr.sem], *sc = scope[in->attr.scope];
    bool cas = in->op == IR_ATOMIC_CAS;
    int o = 0;
    if (pred)
        o += snprintf(text + o, sizeof text - (size_t)o, "mov.b%d $0, 0;\n\t@$%d ", bits, nops + 2);
    o += snprintf(text + o, sizeof text - (size_t)o, "atom.global.%s.%s.%s $0, [$1], $2%s;", cas ? se : sc,
                  cas ? sc : se, op, nops > 1 ? ", $3" : "");
    snprintf(cons, sizeof cons, "=&%c,l,%c%s%s,~{memory}", c, c, nops > 1 ? (c == 'h' ? ",h" : c == 'r' ? ",r" : ",l") : "",
             pred ? ",b" : "");
    LLVMValueRef args[4];
    int na = 0;
    args[na++] = LLVMBuildPtrToInt(L->b, p, L->t_i64, "");
    for (int k = 0; k < nops; k++)
        args[na++] = ops[k];
    if (pred)
        args[na++] = pred;
    return llvm_asm(L, text, cons, int_of_bits(L, bits), args, na, false);
}

/* The PTX op and type of an rmw on dt ("add.u32", "max.s64", ...). */
static void rmw_name(int rmw, DType dt, char *out, size_t n) {
    int bits = dt_bits(dt);
    bool f = dt_is_float(dt), s = dt_is_signed(dt);
    switch (rmw) {
    case RMW_ADD:
        if (f)
            snprintf(out, n, "add%s.%s%d", bits == 16 ? ".noftz" : "", dt == DT_BF16 ? "bf" : "f", bits);
        else
            snprintf(out, n, "add.u%d", bits);
        break;
    case RMW_MAX: snprintf(out, n, "max.%c%d", s ? 's' : 'u', bits); break;
    case RMW_MIN: snprintf(out, n, "min.%c%d", s ? 's' : 'u', bits); break;
    case RMW_XCHG: snprintf(out, n, "exch.b%d", bits); break;
    case RMW_AND: snprintf(out, n, "and.b%d", bits); break;
    case RMW_OR: snprintf(out, n, "or.b%d", bits); break;
    default: snprintf(out, n, "xor.b%d", bits); break;
    }
}

/* One atomic on register i: the old value (zero where it did not run). */
static LLVMValueRef atomic_one(Lower *L, Inst *in, DType dt, LLVMValueRef p, LLVMValueRef *ops, LLVMValueRef pred) {
    int bits = dt_bits(dt);
    LLVMTypeRef t = llvm_type(L, dt), it = int_of_bits(L, bits);
    bool f = dt_is_float(dt);
    LLVMValueRef x[2];
    for (int k = 0; k < (in->op == IR_ATOMIC_CAS ? 2 : 1); k++)
        x[k] = f ? LLVMBuildBitCast(L->b, ops[k], it, "") : ops[k];
    LLVMValueRef old;
    char op[32];
    if (in->op == IR_ATOMIC_CAS) {
        snprintf(op, sizeof op, "cas.b%d", bits);
        old = atom_asm(L, in, op, bits, p, x, 2, pred);
    } else if (f && (in->attr.rmw == RMW_MAX || in->attr.rmw == RMW_MIN)) {
        bool mx = in->attr.rmw == RMW_MAX;
        /* by the sign bit, as Triton's _signbit: -0.0 takes the unsigned path
         * (a float compare would put it with the positives, and max(-FLT_MAX,
         * -0.0) would keep -FLT_MAX: test_atomic_min_max_neg_zero) */
        LLVMValueRef neg = LLVMBuildICmp(L->b, LLVMIntSLT, x[0], LLVMConstNull(it), "");
        LLVMValueRef pos = LLVMBuildNot(L->b, neg, "");
        snprintf(op, sizeof op, "%s.s%d", mx ? "max" : "min", bits);
        LLVMValueRef a = atom_asm(L, in, op, bits, p, x, 1, and_pred(L, pred, pos));
        snprintf(op, sizeof op, "%s.u%d", mx ? "min" : "max", bits);
        LLVMValueRef b = atom_asm(L, in, op, bits, p, x, 1, and_pred(L, pred, neg));
        old = LLVMBuildSelect(L->b, pos, a, b, "");
    } else {
        rmw_name(in->attr.rmw, dt, op, sizeof op);
        old = atom_asm(L, in, op, bits, p, x, 1, pred);
    }
    return f ? LLVMBuildBitCast(L->b, old, t, "") : old;
}

/* fence.acq_rel.gpu, around an LLVM atomicrmw (which drops its ordering): the fence before releases this thread's
 * earlier writes, the one after acquires what others released. */
static void fence_acq_rel_gpu(Lower *L) {
    llvm_asm(L, "fence.acq_rel.gpu;", "~{memory}", L->t_void, NULL, 0, false);
}

/* The rmws PTX has no `atom` for, which LLVM's atomicrmw does as a CAS
 * loop: a bf16 add before sm_90, and a 16-bit float max / min (PTX has
 * those only as .v2 / .v4 vectors of pairs one thread holds; the
 * descriptor reductions, desc.atomic_max, take f16 / bf16 as Triton's
 * cp.reduce.async.bulk does). The max / min are LLVM's maxnum / minnum, as
 * the interpreter's fmax / fmin. false: an `atom` does it. */
static bool llvm_rmw_op(const Inst *in, DType dt, int sm, LLVMAtomicRMWBinOp *op) {
    if (in->op != IR_ATOMIC_RMW)
        return false;
    int rmw = in->attr.rmw;
    if (dt == DT_BF16 && rmw == RMW_ADD && sm < 90)
        *op = LLVMAtomicRMWBinOpFAdd;
    else if ((dt == DT_F16 || dt == DT_BF16) && (rmw == RMW_MAX || rmw == RMW_MIN))
        *op = rmw == RMW_MAX ? LLVMAtomicRMWBinOpFMax : LLVMAtomicRMWBinOpFMin;
    else
        return false;
    return true;
}

/* LLVM's atomicrmw op (a CAS loop), zero where it did not run. */
static LLVMValueRef atomic_llvm(Lower *L, LLVMAtomicRMWBinOp op, LLVMValueRef p, LLVMValueRef v, LLVMValueRef pred) {
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(L->b);
    LLVMBasicBlockRef cont = llvm_guard_begin(L, pred);
    LLVMValueRef old = LLVMBuildAtomicRMW(L->b, op, p, v, LLVMAtomicOrderingAcquireRelease, 0);
    if (!cont)
        return old;
    LLVMBasicBlockRef done = LLVMGetInsertBlock(L->b);
    llvm_guard_end(L, cont);
    LLVMValueRef phi = LLVMBuildPhi(L->b, LLVMTypeOf(v), "");
    LLVMValueRef ins[2] = {old, LLVMConstNull(LLVMTypeOf(v))};
    LLVMBasicBlockRef from[2] = {done, pre};
    LLVMAddIncoming(phi, ins, from, 2);
    return phi;
}

/* The owners of the elements hold the old values; give every copy its value
 * through shared memory (barrier, owners store, barrier, all load). */
static void share_from_owners(Lower *L, Inst *in, DType dt, const ThreadMap *tm, LLVMValueRef *r,
                              LLVMValueRef *owner) {
    LLVMTypeRef mt = llvm_mem_type(L, dt);
    int64_t strides[IR_MAX_RANK] = {0}, numel = 1;
    if (tm) {
        for (int d = 0; d < tm->rank; d++)
            numel *= tm->shape[d];
        llvm_row_major(tm->rank, tm->shape, strides);
    }
    int n = tm ? tm->nregs : 1;
    llvm_smem_use(L, numel * llvm_dt_bytes(dt), in->span);
    for (int i = 0; i < n; i++) {
        LLVMBasicBlockRef cont = llvm_guard_begin(L, owner[i]);
        LLVMValueRef idx = tm ? llvm_linear(L, tm, i, strides) : llvm_i32(L, 0);
        LLVMBuildStore(L->b, r[i], llvm_smem_ptr(L, mt, idx, 0));
        llvm_guard_end(L, cont);
    }
    llvm_barrier(L);
    for (int i = 0; i < n; i++) {
        LLVMValueRef idx = tm ? llvm_linear(L, tm, i, strides) : llvm_i32(L, 0);
        r[i] = LLVMBuildLoad2(L->b, mt, llvm_smem_ptr(L, mt, idx, 0), "");
    }
}

void llvm_lower_atomic(Lower *L, Inst *in) {
    ValueId ptr = in->args[0], res = in->results[0];
    DType dt = dtype_of(L, res);
    const ThreadMap *tm = llvm_tm(L, ptr);
    LVal *pv = llvm_val(L, ptr);
    int nops = in->op == IR_ATOMIC_CAS ? 2 : 1;
    LLVMValueRef *ops[2] = {0};
    for (int k = 0; k < nops; k++)
        ops[k] = per_reg(L, in->args[1 + k], ptr, in->span);
    LLVMValueRef *mask = in->op == IR_ATOMIC_RMW && in->nargs > 2 ? per_reg(L, in->args[2], ptr, in->span) : NULL;
    int n = pv->n;
    LLVMValueRef *r = llvm_new_regs(L, n), *owner = llvm_new_regs(L, n);
    bool replicated = false;
    LLVMAtomicRMWBinOp lop;
    bool cas_loop = llvm_rmw_op(in, dt, L->arch->sm, &lop);
    if (cas_loop)
        fence_acq_rel_gpu(L);
    for (int i = 0; i < n; i++) {
        owner[i] = tm ? llvm_owner(L, tm, i) : thread0(L);
        replicated |= owner[i] != NULL;
        LLVMValueRef o[2] = {ops[0][i], nops > 1 ? ops[1][i] : NULL};
        LLVMValueRef pred = and_pred(L, owner[i], mask ? mask[i] : NULL);
        r[i] = cas_loop ? atomic_llvm(L, lop, pv->r[i], o[0], pred) : atomic_one(L, in, dt, pv->r[i], o, pred);
    }
    if (cas_loop)
        fence_acq_rel_gpu(L);
    if (replicated && L->used[res] && dt != DT_I1)
        share_from_owners(L, in, dt, tm, r, owner);
    llvm_set(L, res, r, n);
}
