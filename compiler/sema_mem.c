/* sema_mem.c: tl.load, tl.store and the atomics (semantic.py's load,
 * store, atomic_* and their checks): pointers, masks and `other` broadcast
 * to the pointers' shape, boolean pointers as i8, and the hints Triton
 * reads as strings (cache_modifier, eviction_policy, sem, scope). */
#include <string.h>

#include "sema_int.h"

#define T(t) sema_type_str(s, (t))
#define D(dt) sema_type_str(s, ir_scalar(dt))

static Type ty_of(Sema *s, ValueId v) { return s->f->values[v].type; }
static DType dt_of(Sema *s, ValueId v) { return (DType)s->f->values[v].type.dtype; }

/* ---- memory ---- */

/* cache_modifier, eviction_policy, sem and scope as Triton's semantic.py
 * reads them (_str_to_load_cache_modifier ...): a spelling out of `names`
 * (index i is enum value i; NULL entries are not accepted here) is an error,
 * absent or "" the default 0. */
static int opt_enum(Sema *s, Val v, Span sp, const char *what, const char *msg, const char *const *names, int n) {
    const char *str = sema_opt_str(s, v, sp, what);
    if (!str)
        return 0;
    for (int i = 0; i < n; i++)
        if (names[i] && !strcmp(names[i], str))
            return i;
    sema_fail(s, sp, "%s %s not supported", msg, str);
}

static const char *const load_cache[] = {NULL, ".ca", ".cg", ".cv"};
static const char *const store_cache[] = {NULL, NULL, ".cg", NULL, ".wb", ".cs", ".wt"};
static const char *const evict_names[] = {NULL, "evict_first", "evict_last"};
static const char *const sem_names[] = {"acq_rel", "acquire", "release", "relaxed"};
static const char *const scope_names[] = {"gpu", "cta", "sys"};

void sema_mem_hints(Sema *s, Inst *in, Val cache, Span csp, Val evict, Span esp, bool load) {
    in->attr.cache = opt_enum(s, cache, csp, "cache_modifier", "Cache modifier", load ? load_cache : store_cache,
                              load ? 4 : 7);
    in->attr.evict = opt_enum(s, evict, esp, "eviction_policy", "Eviction policy", evict_names, 3);
}

static void atomic_hints(Sema *s, Inst *in, Val sem, Span ssp, Val scope, Span csp) {
    in->attr.sem = opt_enum(s, sem, ssp, "sem", "Memory semantic", sem_names, 4);
    in->attr.scope = opt_enum(s, scope, csp, "scope", "Memory scope", scope_names, 3);
}

static ValueId need_pointer(Sema *s, Val p, Span sp, const char *fn) {
    if (p.k != V_TENSOR || p.ty.dtype != DT_PTR)
        sema_fail(s, sp, "%s expects a pointer or a block of pointers, got %s", fn, sema_describe(s, p));
    return p.id;
}

ValueId sema_need_mask(Sema *s, Val m, Span sp) {
    ValueId v = sema_to_tensor(s, m, sp);
    if (dt_of(s, v) != DT_I1)
        sema_fail(s, sp, "mask must have boolean (i1) elements, got %s", T(ty_of(s, v)));
    return v;
}

/* Pointers to int1 address bytes (torch.bool): access them as int8. */
static ValueId bool_ptr_as_i8(Sema *s, ValueId ptr, Span sp) {
    Type t = ty_of(s, ptr);
    if (t.pointee != DT_I1)
        return ptr;
    return sema_cast(s, ptr, ir_ptr(DT_I8), sp);
}

Val sema_h_load(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (a[0].k == V_BLOCKPTR)
        return sema_blockptr_load(s, a, sp, call);
    ValueId ptr = need_pointer(s, a[0], sp[0], "tl.load");
    bool has_mask = sema_given(a[1]), has_other = sema_given(a[2]);
    if (!has_mask && has_other)
        sema_fail(s, sp[2], "`other` cannot be provided without `mask`");
    if ((a[3].k == V_TUPLE && a[3].n) || (sema_given(a[3]) && a[3].k != V_TUPLE) || sema_opt_str(s, a[4], sp[4], "padding_option"))
        sema_fail(s, call, "`padding_option` or `boundary_check` are not supported for loading a block of pointers "
                           "or a scalar, because the compiler does not know the boundary; use a block pointer "
                           "(tl.make_block_ptr) or a tensor descriptor");
    bool is_volatile = sema_opt_bool(s, a[7], sp[7], false, "volatile");
    ValueId mask = has_mask ? sema_need_mask(s, a[1], sp[1]) : 0;
    ValueId other = has_other ? sema_to_tensor(s, a[2], sp[2]) : 0;
    Type pt = ty_of(s, ptr);
    if (!pt.rank) {
        if (has_mask && ty_of(s, mask).rank)
            sema_fail(s, sp[1], "mask argument cannot be a block (%s) if the pointer argument is not a block",
                      T(ty_of(s, mask)));
        if (has_other && ty_of(s, other).rank)
            sema_fail(s, sp[2], "other argument cannot be a block (%s) if the pointer argument is not a block",
                      T(ty_of(s, other)));
    } else { /* Triton's _load_legacy: mask and other take the pointers' shape, never the reverse */
        if (has_mask)
            mask = sema_broadcast_exact(s, mask, pt, sp[1], "the mask");
        if (has_other)
            other = sema_broadcast_exact(s, other, pt, sp[2], "other");
    }
    DType elem = (DType)ty_of(s, ptr).pointee;
    bool is_bool = elem == DT_I1;
    ptr = bool_ptr_as_i8(s, ptr, call);
    DType ld = is_bool ? DT_I8 : elem;
    if (has_other)
        other = sema_cast(s, other, ir_scalar(ld), sp[2]);
    ValueId args[3] = {ptr, mask, other};
    int nargs = 1 + has_mask + has_other;
    Type rt = ir_with_dtype(ty_of(s, ptr), ld);
    Inst *in = sema_emit_inst(s, IR_LOAD, args, nargs, &rt, 1, call);
    in->attr.has_mask = has_mask;
    in->attr.has_other = has_other;
    in->attr.is_volatile = is_volatile;
    sema_mem_hints(s, in, a[5], sp[5], a[6], sp[6], true);
    ValueId r = in->results[0];
    if (is_bool)
        r = sema_cast(s, r, ir_scalar(DT_I1), call);
    return sema_tensor(s, r);
}

/* Triton's store and atomic read-modify-write refuse its const pointers, in
 * its words. */
static void no_const_ptr(Sema *s, ValueId ptr, Span call) {
    if (sema_is_const_ptr(s, ptr))
        sema_fail(s, call, "Cannot store to a constant pointer (%s made from a parameter annotated tl.const)",
                  T(ty_of(s, ptr)));
}

Val sema_h_store(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    (void)bi;
    if (a[0].k == V_BLOCKPTR)
        return sema_blockptr_store(s, a, sp, call);
    ValueId ptr = need_pointer(s, a[0], sp[0], "tl.store");
    no_const_ptr(s, ptr, call);
    ValueId val = sema_to_tensor(s, a[1], sp[1]);
    bool has_mask = sema_given(a[2]);
    ValueId mask = has_mask ? sema_need_mask(s, a[2], sp[2]) : 0;
    if ((a[3].k == V_TUPLE && a[3].n) || (sema_given(a[3]) && a[3].k != V_TUPLE))
        sema_fail(s, sp[3], "`boundary_check` is not supported for storing to a block of pointers or a scalar, "
                            "because the compiler does not know the boundary; use a block pointer (tl.make_block_ptr)");
    Type pt = ty_of(s, ptr);
    if (!pt.rank) {
        if (ty_of(s, val).rank)
            sema_fail(s, sp[1], "value argument cannot be a block (%s) if the pointer argument is not a block",
                      T(ty_of(s, val)));
        if (has_mask && ty_of(s, mask).rank)
            sema_fail(s, sp[2], "mask argument cannot be a block (%s) if the pointer argument is not a block",
                      T(ty_of(s, mask)));
    } else { /* Triton's _store_legacy: same rank as the pointers, size-1 dims stretch */
        val = sema_broadcast_exact(s, val, pt, sp[1], "the value");
        if (has_mask)
            mask = sema_broadcast_exact(s, mask, pt, sp[2], "the mask");
    }
    DType elem = (DType)pt.pointee;
    ptr = bool_ptr_as_i8(s, ptr, call);
    val = sema_cast(s, val, ir_scalar(elem == DT_I1 ? DT_I8 : elem), sp[1]);
    ValueId args[3] = {ptr, val, mask};
    Inst *in = sema_emit_inst(s, IR_STORE, args, 2 + has_mask, NULL, 0, call);
    in->attr.has_mask = has_mask;
    sema_mem_hints(s, in, a[4], sp[4], a[5], sp[5], false);
    return sema_none();
}

static const char *rmw_names[] = {"add", "max", "min", "xchg", "and", "or", "xor"};

Val sema_h_atomic_rmw(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    const char *opn = rmw_names[bi->aux];
    ValueId ptr = need_pointer(s, a[0], sp[0], bi->name);
    no_const_ptr(s, ptr, call);
    DType elem = (DType)ty_of(s, ptr).pointee;
    if (dt_is_fp8(elem))
        sema_fail(s, call, "atomic_%s does not support %s", opn, D(elem));
    if ((elem == DT_F16 || elem == DT_BF16) && bi->aux != RMW_ADD)
        sema_fail(s, call, "atomic_%s does not support %s", opn, D(elem));
    if (elem == DT_I16 || elem == DT_U16 || dt_bits(elem) < 16)
        sema_fail(s, call, "atomic_%s does not support %s", opn, D(elem));
    if ((bi->aux == RMW_MAX || bi->aux == RMW_MIN) && dt_is_float(elem) && elem != DT_F32 && elem != DT_F64)
        sema_fail(s, call, "atomic_%s is not supported for %s", opn, D(elem));
    if ((bi->aux == RMW_AND || bi->aux == RMW_OR || bi->aux == RMW_XOR) && !dt_is_int(elem))
        sema_fail(s, call, "atomic_%s needs integer elements, got %s", opn, D(elem));
    Type pt = ty_of(s, ptr);
    ValueId val = sema_broadcast_exact(s, sema_to_tensor(s, a[1], sp[1]), pt, sp[1], "the value");
    val = sema_cast(s, val, ir_scalar(elem), sp[1]);
    bool has_mask = sema_given(a[2]);
    ValueId mask = has_mask ? sema_broadcast_exact(s, sema_need_mask(s, a[2], sp[2]), pt, sp[2], "the mask") : 0;
    ValueId args[3] = {ptr, val, mask};
    Type rt = ty_of(s, val);
    Inst *in = sema_emit_inst(s, IR_ATOMIC_RMW, args, 2 + has_mask, &rt, 1, call);
    in->attr.rmw = bi->aux;
    in->attr.has_mask = has_mask;
    atomic_hints(s, in, a[3], sp[3], a[4], sp[4]);
    return sema_tensor(s, in->results[0]);
}

Val sema_h_atomic_cas(Sema *s, const Builtin *bi, Val *a, const Span *sp, Span call) {
    ValueId ptr = need_pointer(s, a[0], sp[0], bi->name);
    Type pt = ty_of(s, ptr);
    DType elem = (DType)pt.pointee;
    if (dt_bits(elem) != 16 && dt_bits(elem) != 32 && dt_bits(elem) != 64) /* fp8 too */
        sema_fail(s, call, "atomic_cas only supports elements with width {16, 32, 64}, got %s", D(elem));
    ValueId cmp = sema_broadcast_exact(s, sema_to_tensor(s, a[1], sp[1]), pt, sp[1], "the compare value");
    ValueId val = sema_broadcast_exact(s, sema_to_tensor(s, a[2], sp[2]), pt, sp[2], "the value");
    cmp = sema_cast(s, cmp, ir_scalar(elem), sp[1]);
    val = sema_cast(s, val, ir_scalar(elem), sp[2]);
    ValueId args[3] = {ptr, cmp, val};
    Type rt = ty_of(s, val);
    Inst *in = sema_emit_inst(s, IR_ATOMIC_CAS, args, 3, &rt, 1, call);
    atomic_hints(s, in, a[3], sp[3], a[4], sp[4]);
    return sema_tensor(s, in->results[0]);
}

