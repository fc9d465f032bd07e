/* interp.c: the CPU interpreter's driver (see interp.h).
 *
 * Algorithm: check the launch, give every SSA value a slot, bind the
 * parameters, then run the function body once per program (z, then y, then x
 * outermost to innermost, x fastest). Running a block evaluates its ops in
 * order; a for / if / while op runs its regions, moving values between the op's
 * operands, the regions' block arguments, their terminators (yield /
 * condition) and the op's results. The first error stops the launch.
 *
 * Storage: a slot holds one value's elements (interp_impl.h). A value's type
 * fixes its size, so a slot is allocated the first time the value is defined
 * and reused whenever it is defined again (every loop iteration, every
 * program); scalars live in the slot itself. Nothing is allocated per element
 * or per op execution, and everything is freed when the launch ends.
 *
 * Memory ops check every active lane (mask true) before touching memory: a
 * null or out-of-range pointer, or an offset that is not a multiple of the
 * element size, stops the launch with the parameter the buffer came from, the
 * program id, the lane and the byte offset. A store checks all its lanes
 * before writing any; lanes are applied in order (the last duplicate wins),
 * atomics one lane after another. */
#include "interp_impl.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct Slot {
    Elem *d;   /* NULL until the value is first defined */
    Elem one;  /* storage of scalars */
} Slot;

typedef struct Interp {
    const InterpLaunch *L;
    const Function *fn;
    Slot *slots;
    unsigned pid[3];
    bool returned;   /* a RETURN ran: unwind to the program loop */
    Scratch scratch; /* DOT's f32 copies */
    Scratch stage;   /* parallel copies between block arguments */
    Buf line;        /* PRINT output being assembled */
} Interp;

/* ---- errors ---- */

static InterpStatus report(Interp *I, InterpStatus st, const Inst *in, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static InterpStatus report(Interp *I, InterpStatus st, const Inst *in, const char *fmt, ...) {
    Diag *d = I->L->diag;
    if (!d)
        return st;
    Buf msg = {0};
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&msg, fmt, ap);
    va_end(ap);
    const char *text = msg.data ? msg.data : "";
    if (st == INTERP_INTERNAL)
        diag_internal(d, "interpreter: %s (op '%s', line %d)", text, in ? ir_ops[in->op].name : "-",
                      in ? in->span.line : 0);
    else
        diag_error(d, I->fn->src, in ? in->span : span_at(0, 0), "%s", text);
    buf_free(&msg);
    return st;
}

static InterpStatus internal(Interp *I, const Inst *in, const char *what) {
    return report(I, INTERP_INTERNAL, in, "%s", what);
}

/* The kernel parameter a pointer's buffer came from (the first if several). */
static const char *buffer_name(Interp *I, unsigned tag) {
    const Function *fn = I->fn;
    for (int p = 0; p < fn->nparams; p++)
        if (fn->params[p].type.dtype == DT_PTR && I->L->args[p].buf == (int)tag - 1)
            return fn->params[p].name ? fn->params[p].name : "?";
    return tag ? "<unnamed buffer>" : "<null>";
}

/* "3" for a scalar or rank-1 block, "(1, 2)" for higher ranks. */
static void lane_index(Buf *b, Type t, int64_t lane) {
    if (t.rank <= 1) {
        buf_printf(b, "%lld", (long long)lane);
        return;
    }
    int64_t idx[IR_MAX_RANK];
    for (int d = t.rank - 1; d >= 0; d--) {
        idx[d] = lane % t.shape[d];
        lane /= t.shape[d];
    }
    buf_putc(b, '(');
    for (int d = 0; d < t.rank; d++)
        buf_printf(b, "%s%lld", d ? ", " : "", (long long)idx[d]);
    buf_putc(b, ')');
}

/* ---- value slots ---- */

static inline Type type_of(Interp *I, ValueId v) { return I->fn->values[v].type; }

/* Storage for a definition of v; NULL when out of memory. */
static Elem *def(Interp *I, ValueId v) {
    Slot *s = &I->slots[v];
    if (!s->d) {
        int64_t n = ir_numel(type_of(I, v));
        s->d = n == 1 ? &s->one : malloc(sizeof(Elem) * (size_t)n);
    }
    return s->d;
}

static inline Elem *use(Interp *I, ValueId v) { return I->slots[v].d; }

static bool valid_id(Interp *I, ValueId v) { return v > 0 && v < I->fn->nvalues; }

/* dst := src, where a scalar src may fill a block dst. */
static InterpStatus copy_value(Interp *I, const Inst *in, ValueId dst, ValueId src) {
    if (dst == src)
        return INTERP_OK;
    int64_t nd = ir_numel(type_of(I, dst)), ns = ir_numel(type_of(I, src));
    Elem *d = def(I, dst), *s = use(I, src);
    if (!d)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    if (ns == nd)
        memcpy(d, s, sizeof(Elem) * (size_t)nd);
    else if (ns == 1)
        for (int64_t k = 0; k < nd; k++)
            d[k] = s[0];
    else
        return internal(I, in, "values of different sizes flow into one block argument");
    return INTERP_OK;
}

/* dst[i] := src[i] for all i at once: a src may be one of the dsts (a loop
 * that swaps its carried values), so such copies go through a staging area. */
static InterpStatus assign(Interp *I, const Inst *in, const ValueId *dst, const ValueId *src, int n) {
    bool overlap = false;
    for (int i = 0; i < n && !overlap; i++)
        for (int j = 0; j < n; j++)
            if (i != j && src[i] == dst[j]) {
                overlap = true;
                break;
            }
    if (!overlap) {
        for (int i = 0; i < n; i++) {
            InterpStatus st = copy_value(I, in, dst[i], src[i]);
            if (st)
                return st;
        }
        return INTERP_OK;
    }
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += (size_t)ir_numel(type_of(I, src[i]));
    Elem *tmp = interp_scratch(&I->stage, sizeof(Elem) * total);
    if (!tmp)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    size_t at = 0;
    for (int i = 0; i < n; i++) {
        size_t ns = (size_t)ir_numel(type_of(I, src[i]));
        memcpy(tmp + at, use(I, src[i]), sizeof(Elem) * ns);
        at += ns;
    }
    at = 0;
    for (int i = 0; i < n; i++) {
        int64_t ns = ir_numel(type_of(I, src[i])), nd = ir_numel(type_of(I, dst[i]));
        Elem *d = def(I, dst[i]);
        if (!d)
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
        if (ns != nd && ns != 1)
            return internal(I, in, "values of different sizes flow into one block argument");
        for (int64_t k = 0; k < nd; k++)
            d[k] = tmp[at + (ns == 1 ? 0 : k)];
        at += (size_t)ns;
    }
    return INTERP_OK;
}

/* ---- memory ---- */

typedef struct Access {
    const char *what; /* "load from" */
    const char *verb; /* "reads" */
} Access;

static const Access ACC_LOAD = {"load from", "reads"}, ACC_STORE = {"store to", "writes"},
                    ACC_RMW = {"atomic_rmw on", "updates"}, ACC_CAS = {"atomic_cas on", "updates"};

/* Check the active lanes of a block access through ptr (stride sp) under
 * mask (stride sm; NULL: all active), elements of esize bytes. */
static InterpStatus check_access(Interp *I, const Inst *in, const Access *ac, const Elem *ptr, int64_t sp,
                                 const Elem *mask, int64_t sm, int64_t n, int esize) {
    const unsigned *p = I->pid;
    for (int64_t k = 0; k < n; k++) {
        if (mask && !mask[k * sm].i)
            continue;
        uint64_t v = ptr[k * sp].p;
        unsigned tag = ptr_tag(v);
        long long off = (long long)ptr_off(v);
        if (tag == 0)
            return report(I, INTERP_OUT_OF_BOUNDS, in,
                          "null-pointer %s '%s' in program (%u, %u, %u): element %lld of the block %s "
                          "byte offset %lld of a null pointer",
                          ac->what, buffer_name(I, 0), p[0], p[1], p[2], (long long)k, ac->verb, off);
        if (tag == PTR_WILD)
            return report(I, INTERP_OUT_OF_BOUNDS, in,
                          "out-of-bounds %s a pointer whose offset overflowed in program (%u, %u, %u): "
                          "element %lld of the block",
                          ac->what, p[0], p[1], p[2], (long long)k);
        if ((int)tag > I->L->nbufs)
            return internal(I, in, "pointer into a buffer that does not exist");
        size_t size = I->L->bufs[tag - 1].size;
        if (off < 0 || (unsigned long long)off + (unsigned)esize > size) {
            InterpStatus st = report(
                I, INTERP_OUT_OF_BOUNDS, in,
                "out-of-bounds %s '%s' in program (%u, %u, %u): element %lld of the block %s byte offset "
                "%lld, outside the buffer's %zu bytes (%lld elements)",
                ac->what, buffer_name(I, tag), p[0], p[1], p[2], (long long)k, ac->verb, off, size,
                (long long)(size / (size_t)esize));
            if (I->L->diag && off % esize == 0)
                diag_note(I->L->diag, I->fn->src, span_at(0, 0),
                          "byte offset %lld is element %lld of '%s'; valid elements are 0 to %lld", off,
                          off / esize, buffer_name(I, tag), (long long)(size / (size_t)esize) - 1);
            return st;
        }
        if (off % esize != 0)
            return report(I, INTERP_OUT_OF_BOUNDS, in,
                          "misaligned %s '%s' in program (%u, %u, %u): element %lld of the block %s byte "
                          "offset %lld, not a multiple of the %d-byte element size",
                          ac->what, buffer_name(I, tag), p[0], p[1], p[2], (long long)k, ac->verb, off,
                          esize);
    }
    return INTERP_OK;
}

static inline unsigned char *address(Interp *I, uint64_t p) {
    return (unsigned char *)I->L->bufs[ptr_tag(p) - 1].data + ptr_off(p);
}

static inline uint64_t raw_read(const unsigned char *a, int esize) {
    switch (esize) {
    case 1: return *a;
    case 2: { uint16_t v; memcpy(&v, a, 2); return v; }
    case 4: { uint32_t v; memcpy(&v, a, 4); return v; }
    default: { uint64_t v; memcpy(&v, a, 8); return v; }
    }
}

static inline void raw_write(unsigned char *a, int esize, uint64_t bits) {
    switch (esize) {
    case 1: *a = (unsigned char)bits; break;
    case 2: { uint16_t v = (uint16_t)bits; memcpy(a, &v, 2); break; }
    case 4: { uint32_t v = (uint32_t)bits; memcpy(a, &v, 4); break; }
    default: memcpy(a, &bits, 8); break;
    }
}

static inline Elem mem_read(const unsigned char *a, DType dt) {
    uint64_t bits = raw_read(a, dt_size(dt));
    if (dt == DT_I1) /* bools are bytes; any non-zero byte is true */
        return (Elem){.i = bits != 0};
    return interp_from_bits(bits, dt);
}

static inline void mem_write(unsigned char *a, DType dt, Elem v) {
    raw_write(a, dt_size(dt), interp_bits_of(v, dt));
}

/* Operand k of in, or NULL when absent; *stride is 0 for a scalar operand of a block op. */
static const Elem *operand(Interp *I, const Inst *in, int k, int64_t n, int64_t *stride) {
    if (k >= in->nargs)
        return NULL;
    *stride = ir_numel(type_of(I, in->args[k])) == n ? 1 : 0;
    return use(I, in->args[k]);
}

static bool shapes_fit(Interp *I, const Inst *in, int64_t n) {
    for (int k = 0; k < in->nargs; k++) {
        int64_t m = ir_numel(type_of(I, in->args[k]));
        if (m != n && m != 1)
            return false;
    }
    return true;
}

static InterpStatus do_load(Interp *I, const Inst *in) {
    if (in->nargs < 1 || in->nargs > 3 || in->nresults != 1)
        return internal(I, in, "load takes ptr [, mask [, other]]");
    Type tp = type_of(I, in->args[0]), tr = type_of(I, in->results[0]);
    int64_t n = ir_numel(tr), sp = 0, sm = 0, so = 0;
    if (tp.dtype != DT_PTR || ir_numel(tp) != n || !shapes_fit(I, in, n))
        return internal(I, in, "load operands do not match its result");
    DType dt = tp.pointee;
    const Elem *ptr = operand(I, in, 0, n, &sp), *mask = operand(I, in, 1, n, &sm),
               *other = operand(I, in, 2, n, &so);
    InterpStatus st = check_access(I, in, &ACC_LOAD, ptr, sp, mask, sm, n, dt_size(dt));
    if (st)
        return st;
    Elem *out = def(I, in->results[0]);
    if (!out)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    for (int64_t k = 0; k < n; k++) {
        if (mask && !mask[k * sm].i)
            out[k] = other ? other[k * so] : (Elem){0};
        else
            out[k] = mem_read(address(I, ptr[k * sp].p), dt);
    }
    return INTERP_OK;
}

static InterpStatus do_store(Interp *I, const Inst *in) {
    if (in->nargs < 2 || in->nargs > 3)
        return internal(I, in, "store takes ptr, value [, mask]");
    Type tp = type_of(I, in->args[0]);
    int64_t n = ir_numel(tp), sp = 0, sv = 0, sm = 0;
    if (tp.dtype != DT_PTR || !shapes_fit(I, in, n))
        return internal(I, in, "store operands do not match");
    DType dt = tp.pointee;
    const Elem *ptr = operand(I, in, 0, n, &sp), *val = operand(I, in, 1, n, &sv),
               *mask = operand(I, in, 2, n, &sm);
    InterpStatus st = check_access(I, in, &ACC_STORE, ptr, sp, mask, sm, n, dt_size(dt));
    if (st)
        return st;
    for (int64_t k = 0; k < n; k++)
        if (!mask || mask[k * sm].i)
            mem_write(address(I, ptr[k * sp].p), dt, val[k * sv]);
    return INTERP_OK;
}

static InterpStatus do_atomic(Interp *I, const Inst *in) {
    bool cas = in->op == IR_ATOMIC_CAS;
    if (in->nargs < 2 || in->nargs > 3 || in->nresults != 1 || (cas && in->nargs != 3))
        return internal(I, in, "atomic operands");
    Type tp = type_of(I, in->args[0]);
    int64_t n = ir_numel(tp), sp = 0, s1 = 0, s2 = 0;
    if (tp.dtype != DT_PTR || ir_numel(type_of(I, in->results[0])) != n || !shapes_fit(I, in, n))
        return internal(I, in, "atomic operands do not match its result");
    DType dt = tp.pointee;
    int esize = dt_size(dt), rmw = in->attr.rmw;
    const Elem *ptr = operand(I, in, 0, n, &sp), *a1 = operand(I, in, 1, n, &s1),
               *a2 = operand(I, in, 2, n, &s2);
    const Elem *mask = cas ? NULL : a2;
    if (!cas && dt_is_float(dt) && rmw != RMW_ADD && rmw != RMW_MAX && rmw != RMW_MIN && rmw != RMW_XCHG)
        return internal(I, in, "bitwise atomic on floats");
    InterpStatus st = check_access(I, in, cas ? &ACC_CAS : &ACC_RMW, ptr, sp, mask, s2, n, esize);
    if (st)
        return st;
    Elem *out = def(I, in->results[0]);
    if (!out)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    bool uns = !dt_is_signed(dt);
    for (int64_t k = 0; k < n; k++) {
        if (mask && !mask[k * s2].i) {
            out[k] = (Elem){0};
            continue;
        }
        unsigned char *a = address(I, ptr[k * sp].p);
        Elem old = mem_read(a, dt), v = a1[k * s1], nv = v;
        out[k] = old;
        if (cas) {
            if (raw_read(a, esize) == interp_bits_of(v, dt))
                mem_write(a, dt, a2[k * s2]);
            continue;
        }
        if (dt_is_float(dt)) {
            switch (rmw) {
            case RMW_ADD: nv.f = old.f + v.f; break;
            case RMW_MAX: nv.f = fmax(old.f, v.f); break;
            case RMW_MIN: nv.f = fmin(old.f, v.f); break;
            default: break;
            }
            interp_norm(&nv, 1, dt);
        } else {
            switch (rmw) {
            case RMW_ADD: nv.i = interp_wrap((int64_t)((uint64_t)old.i + (uint64_t)v.i), dt); break;
            case RMW_MAX:
                nv = (uns ? (uint64_t)v.i > (uint64_t)old.i : v.i > old.i) ? v : old;
                break;
            case RMW_MIN:
                nv = (uns ? (uint64_t)v.i < (uint64_t)old.i : v.i < old.i) ? v : old;
                break;
            case RMW_AND: nv.i = old.i & v.i; break;
            case RMW_OR: nv.i = old.i | v.i; break;
            case RMW_XOR: nv.i = old.i ^ v.i; break;
            default: break; /* xchg */
            }
        }
        mem_write(a, dt, nv);
    }
    return INTERP_OK;
}

/* ---- debugging ---- */

static int digits(long long v) {
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

static void print_elem(Buf *b, Elem x, Type t, bool hex) {
    DType dt = t.dtype;
    if (dt == DT_PTR) {
        buf_printf(b, "0x%llx", (unsigned long long)x.p);
    } else if (hex) {
        int w = dt_bits(dt) / 4;
        buf_printf(b, "0x%0*llx", w ? w : 1, (unsigned long long)interp_bits_of(x, dt));
    } else if (dt_is_fp(dt)) {
        buf_printf(b, "%f", x.f);
    } else if (dt_is_signed(dt)) {
        buf_printf(b, "%lld", (long long)x.i);
    } else {
        buf_printf(b, "%llu", (unsigned long long)(uint64_t)x.i);
    }
}

/* Triton's device_print: one line per element,
 *   pid (x, y, z) idx (i, j) prefix: value
 * index fields padded to the width of their dimension, "(operand N) " after
 * the prefix when several values are printed, and the prefix munged the way
 * Triton's front end does it (" x: " from "x"). */
static InterpStatus do_print(Interp *I, const Inst *in) {
    const char *raw = in->attr.str ? in->attr.str : "";
    Buf pre = {0};
    buf_puts(&pre, raw);
    size_t len = strlen(raw);
    if (in->nargs && (len == 0 || raw[len - 1] != ' '))
        buf_putc(&pre, ' ');
    if (in->nargs && !(pre.len >= 2 && pre.data[pre.len - 2] == ':' && pre.data[pre.len - 1] == ' ')) {
        pre.data[--pre.len] = 0;
        buf_puts(&pre, ": ");
    }
    if (pre.len > 2 && pre.data[0] != ' ') {
        Buf t = {0};
        buf_putc(&t, ' ');
        buf_puts(&t, pre.data);
        buf_free(&pre);
        pre = t;
    }
    const char *prefix = pre.data ? pre.data : "";
    Buf *b = &I->line;
    b->len = 0;
    if (b->data)
        b->data[0] = 0;
    const unsigned *p = I->pid;
    if (in->nargs == 0)
        buf_printf(b, "pid (%u, %u, %u)%s\n", p[0], p[1], p[2], prefix);
    for (int a = 0; a < in->nargs; a++) {
        Type t = type_of(I, in->args[a]);
        const Elem *v = use(I, in->args[a]);
        int64_t n = ir_numel(t), idx[IR_MAX_RANK] = {0};
        for (int64_t k = 0; k < n; k++) {
            buf_printf(b, "pid (%u, %u, %u) idx (", p[0], p[1], p[2]);
            for (int d = 0; d < t.rank; d++)
                buf_printf(b, "%s%*lld", d ? ", " : "", t.shape[d] > 1 ? digits(t.shape[d] - 1) : 0,
                           (long long)idx[d]);
            buf_printf(b, ")%s", prefix);
            if (in->nargs > 1)
                buf_printf(b, "(operand %d) ", a);
            print_elem(b, v[k], t, in->attr.hex);
            buf_putc(b, '\n');
            for (int d = t.rank - 1; d >= 0; d--) {
                if (++idx[d] < t.shape[d])
                    break;
                idx[d] = 0;
            }
        }
    }
    if (b->len) {
        if (I->L->print_out) {
            buf_putn(I->L->print_out, b->data, b->len);
        } else {
            fwrite(b->data, 1, b->len, stdout);
            fflush(stdout);
        }
    }
    buf_free(&pre);
    return INTERP_OK;
}

static InterpStatus do_assert(Interp *I, const Inst *in) {
    if (in->nargs != 1)
        return internal(I, in, "assert takes one condition");
    Type t = type_of(I, in->args[0]);
    const Elem *c = use(I, in->args[0]);
    int64_t n = ir_numel(t);
    for (int64_t k = 0; k < n; k++) {
        if (c[k].i)
            continue;
        Buf where = {0};
        lane_index(&where, t, k);
        InterpStatus st = report(I, INTERP_ASSERT, in,
                                 "device assertion failed: %s (program (%u, %u, %u), element %s)",
                                 in->attr.str ? in->attr.str : "", I->pid[0], I->pid[1], I->pid[2],
                                 where.data);
        buf_free(&where);
        return st;
    }
    return INTERP_OK;
}

/* tl.assume: the program promises the condition; as Triton's interpreter,
 * a false one is reported (on the GPU it is undefined behaviour). */
static InterpStatus do_assume(Interp *I, const Inst *in) {
    const Elem *c = use(I, in->args[0]);
    if (type_of(I, in->args[0]).rank || c[0].i)
        return INTERP_OK;
    if (in->attr.str) /* a fact sema stated for an op the user wrote */
        return report(I, INTERP_ASSERT, in, "%s (program (%u, %u, %u))", in->attr.str, I->pid[0], I->pid[1], I->pid[2]);
    return report(I, INTERP_ASSERT, in, "the condition of tl.assume is false (program (%u, %u, %u))", I->pid[0],
                  I->pid[1], I->pid[2]);
}

/* tl.extra.cuda on one CPU: every program runs on SM 0; globaltimer is a
 * monotonic clock in nanoseconds, as the GPU's; no dependent launches. */
static InterpStatus do_intrinsic(Interp *I, const Inst *in) {
    if (!in->nresults)
        return INTERP_OK;
    Elem *out = def(I, in->results[0]);
    if (!out)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    if (!strcmp(in->attr.str, "globaltimer")) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        out[0].i = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    } else {
        out[0].i = 0;
    }
    return INTERP_OK;
}

/* ---- control flow ---- */

static InterpStatus exec_inst(Interp *I, const Inst *in);

/* Run b's ops up to its terminator (YIELD / CONDITION), returned in *term
 * (NULL when the block has none). */
static InterpStatus exec_block(Interp *I, const Block *b, const Inst **term) {
    *term = NULL;
    for (int i = 0; i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        if (in->op == IR_YIELD || in->op == IR_CONDITION) {
            for (int k = 0; k < in->nargs; k++)
                if (!valid_id(I, in->args[k]) || !use(I, in->args[k]))
                    return internal(I, in, "terminator uses a value that is not defined");
            *term = in;
            return INTERP_OK;
        }
        InterpStatus st = exec_inst(I, in);
        if (st || I->returned)
            return st;
    }
    return INTERP_OK;
}

static bool block_args_ok(Interp *I, const Block *b, int n) {
    if (!b || b->nargs != n)
        return false;
    for (int i = 0; i < n; i++)
        if (!valid_id(I, b->args[i]))
            return false;
    return true;
}

static InterpStatus do_for(Interp *I, const Inst *in) {
    int nc = in->nresults;
    const Block *body = in->nregions >= 1 ? in->regions[0] : NULL;
    if (in->nargs != 3 + nc || !block_args_ok(I, body, 1 + nc))
        return internal(I, in, "for: operands, body arguments and results disagree");
    int64_t lb = use(I, in->args[0])[0].i, ub = use(I, in->args[1])[0].i, step = use(I, in->args[2])[0].i;
    DType dt = type_of(I, body->args[0]).dtype;
    bool uns = !dt_is_signed(dt);
    if (step == 0 && (uns ? (uint64_t)lb < (uint64_t)ub : lb < ub))
        return report(I, INTERP_ASSERT, in, "for loop with a zero step in program (%u, %u, %u)", I->pid[0],
                      I->pid[1], I->pid[2]);
    InterpStatus st = assign(I, in, body->args + 1, in->args + 3, nc);
    if (st)
        return st;
    int64_t iv = lb;
    for (;;) {
        bool go = step > 0 ? (uns ? (uint64_t)iv < (uint64_t)ub : iv < ub)
                           : (uns ? (uint64_t)iv > (uint64_t)ub : iv > ub);
        if (!go)
            break;
        Elem *d = def(I, body->args[0]);
        if (!d)
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
        d[0].i = interp_wrap(iv, dt);
        const Inst *term;
        if ((st = exec_block(I, body, &term)) || I->returned)
            return st;
        if (nc) {
            if (!term || term->op != IR_YIELD || term->nargs != nc)
                return internal(I, in, "for body does not yield its carried values");
            if ((st = assign(I, term, body->args + 1, term->args, nc)))
                return st;
        }
        if (__builtin_add_overflow(iv, step, &iv))
            break;
    }
    for (int i = 0; i < nc; i++)
        if ((st = copy_value(I, in, in->results[i], body->args[1 + i])))
            return st;
    return INTERP_OK;
}

static InterpStatus do_if(Interp *I, const Inst *in) {
    if (in->nargs != 1 || in->nregions < 1)
        return internal(I, in, "if takes a condition and a then-block");
    bool cond = use(I, in->args[0])[0].i != 0;
    const Block *b = cond ? in->regions[0] : in->nregions > 1 ? in->regions[1] : NULL;
    if (!b) {
        if (in->nresults)
            return internal(I, in, "if with results needs an else-block");
        return INTERP_OK;
    }
    const Inst *term;
    InterpStatus st = exec_block(I, b, &term);
    if (st || I->returned)
        return st;
    if (in->nresults) {
        if (!term || term->op != IR_YIELD || term->nargs != in->nresults)
            return internal(I, in, "if region does not yield the if's results");
        for (int i = 0; i < in->nresults; i++)
            if ((st = copy_value(I, in, in->results[i], term->args[i])))
                return st;
    }
    return INTERP_OK;
}

static InterpStatus do_while(Interp *I, const Inst *in) {
    int nc = in->nargs, nr = in->nresults;
    const Block *before = in->nregions >= 1 ? in->regions[0] : NULL;
    const Block *after = in->nregions >= 2 ? in->regions[1] : NULL;
    if (!block_args_ok(I, before, nc) || !block_args_ok(I, after, nr))
        return internal(I, in, "while: operands, region arguments and results disagree");
    InterpStatus st = assign(I, in, before->args, in->args, nc);
    if (st)
        return st;
    for (;;) {
        const Inst *term;
        if ((st = exec_block(I, before, &term)) || I->returned)
            return st;
        if (!term || term->op != IR_CONDITION || term->nargs != 1 + nr)
            return internal(I, in, "while's before-block does not end in condition(cond, results...)");
        if (!use(I, term->args[0])[0].i) {
            for (int i = 0; i < nr; i++)
                if ((st = copy_value(I, in, in->results[i], term->args[1 + i])))
                    return st;
            return INTERP_OK;
        }
        if ((st = assign(I, term, after->args, term->args + 1, nr)))
            return st;
        if ((st = exec_block(I, after, &term)) || I->returned)
            return st;
        if (!term || term->op != IR_YIELD || term->nargs != nc)
            return internal(I, in, "while's after-block does not yield the carried values");
        if ((st = assign(I, term, before->args, term->args, nc)))
            return st;
    }
}

/* ---- scans and reductions with a combine region ---- */

/* acc[0..n) := combine(acc, x[0..n)) by running the region once. */
static InterpStatus combine(Interp *I, const Inst *in, Elem *acc, const Elem *x, int n) {
    const Block *blk = in->regions[0];
    for (int i = 0; i < n; i++) {
        Elem *a = def(I, blk->args[i]), *b = def(I, blk->args[n + i]);
        if (!a || !b)
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
        *a = acc[i];
        *b = x[i];
    }
    const Inst *term;
    InterpStatus st = exec_block(I, blk, &term);
    if (st)
        return st;
    if (I->returned || !term || term->op != IR_YIELD || term->nargs != n)
        return internal(I, in, "the combine region does not yield one value per operand");
    for (int i = 0; i < n; i++)
        acc[i] = use(I, term->args[i])[0];
    return INTERP_OK;
}

/* scan: along the axis, element k of each result is the combination of
 * elements 0..k in order (k..S-1 from the end with reverse, combining the
 * later ones first: a scan of the reversed sequence). reduce_fn: the
 * combination of the whole line, left to right. */
static InterpStatus do_combine_op(Interp *I, const Inst *in) {
    int n = in->nargs, axis = in->attr.axis;
    Type t = type_of(I, in->args[0]);
    if (n < 1 || n > 64 || in->nresults != n || in->nregions != 1 || !block_args_ok(I, in->regions[0], 2 * n) ||
        axis < 0 || axis >= t.rank)
        return internal(I, in, "operands, results and the combine region disagree");
    int64_t len = t.shape[axis], inner = 1;
    for (int d = axis + 1; d < t.rank; d++)
        inner *= t.shape[d];
    int64_t outer = ir_numel(t) / len / inner;
    bool scan = in->op == IR_SCAN, rev = scan && in->attr.reverse;
    const Elem *x[64];
    Elem *out[64], acc[64], cur[64];
    for (int i = 0; i < n; i++) {
        x[i] = use(I, in->args[i]);
        if (!(out[i] = def(I, in->results[i])))
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
    }
    for (int64_t o = 0; o < outer; o++)
        for (int64_t j = 0; j < inner; j++) {
            int64_t base = o * len * inner + j;
            for (int64_t k = 0; k < len; k++) {
                int64_t at = base + (rev ? len - 1 - k : k) * inner;
                for (int i = 0; i < n; i++)
                    cur[i] = x[i][at];
                if (k == 0) {
                    memcpy(acc, cur, sizeof(Elem) * (size_t)n);
                } else {
                    InterpStatus st = combine(I, in, acc, cur, n);
                    if (st)
                        return st;
                }
                for (int i = 0; scan && i < n; i++)
                    out[i][at] = acc[i];
            }
            for (int i = 0; !scan && i < n; i++)
                out[i][o * inner + j] = acc[i];
        }
    return INTERP_OK;
}

/* map_fn: the region runs once per group of pack consecutive elements (in
 * row-major order), on pack scalars of each operand; a last group that is
 * short repeats its first element, whose extra results are dropped. */
static InterpStatus do_map_fn(Interp *I, const Inst *in) {
    int n = in->nargs, m = in->nresults, pack = in->attr.pack;
    if (n < 1 || n > 64 || m < 1 || m > 64 || pack < 1 || pack > 64 || in->nregions != 1 ||
        !block_args_ok(I, in->regions[0], n * pack))
        return internal(I, in, "operands, results and the fn region disagree");
    const Block *blk = in->regions[0];
    int64_t numel = ir_numel(type_of(I, in->args[0]));
    const Elem *x[64];
    Elem *out[64];
    for (int i = 0; i < n; i++)
        x[i] = use(I, in->args[i]);
    for (int r = 0; r < m; r++)
        if (!(out[r] = def(I, in->results[r])))
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
    for (int64_t g = 0; g < numel; g += pack) {
        for (int i = 0; i < n; i++)
            for (int j = 0; j < pack; j++) {
                Elem *d = def(I, blk->args[i * pack + j]);
                if (!d)
                    return report(I, INTERP_NO_MEMORY, in, "out of memory");
                *d = x[i][g + j < numel ? g + j : g];
            }
        const Inst *term;
        InterpStatus st = exec_block(I, blk, &term);
        if (st)
            return st;
        if (I->returned || !term || term->op != IR_YIELD || term->nargs != m * pack)
            return internal(I, in, "the fn region does not yield pack values per result");
        for (int r = 0; r < m; r++)
            for (int j = 0; j < pack && g + j < numel; j++)
                out[r][g + j] = use(I, term->args[r * pack + j])[0];
    }
    return INTERP_OK;
}

/* ---- ops ---- */

/* An integer cast to a pointer: a host address inside one of the launch's
 * buffers (tl_buffer_device_ptr on the CPU device, as a kernel loads it from
 * an array of pointers) becomes that buffer's tagged pointer. Anything else
 * keeps its bits, so pointer -> int64 -> pointer round-trips (a packed
 * pointer has a tag; a host address has none in its top 16 bits), and an
 * unknown address faults as a null pointer's offset when used. */
static void resolve_addresses(Interp *I, Elem *v, int64_t n) {
    for (int64_t k = 0; k < n; k++) {
        if (!v[k].p || ptr_tag(v[k].p))
            continue;
        for (int b = 0; b < I->L->nbufs; b++) {
            uintptr_t lo = (uintptr_t)I->L->bufs[b].data;
            if (lo && v[k].p >= lo && v[k].p - lo <= I->L->bufs[b].size) {
                v[k].p = ptr_pack((unsigned)b + 1, (int64_t)(v[k].p - lo));
                break;
            }
        }
    }
}

static InterpStatus exec_inst(Interp *I, const Inst *in) {
    if (in->op >= IR__NUM)
        return internal(I, in, "unknown op");
    for (int k = 0; k < in->nargs; k++)
        if (!valid_id(I, in->args[k]) || !use(I, in->args[k]))
            return internal(I, in, "operand used before it is defined");
    for (int k = 0; k < in->nresults; k++)
        if (!valid_id(I, in->results[k]))
            return internal(I, in, "bad result id");
    switch (in->op) {
    case IR_PROGRAM_ID:
    case IR_NUM_PROGRAMS: {
        if (in->nresults != 1 || in->attr.axis < 0 || in->attr.axis > 2)
            return internal(I, in, "program id axis must be 0, 1 or 2");
        Elem *out = def(I, in->results[0]);
        if (!out)
            return report(I, INTERP_NO_MEMORY, in, "out of memory");
        unsigned v = in->op == IR_PROGRAM_ID ? I->pid[in->attr.axis] : I->L->grid[in->attr.axis];
        out[0].i = interp_wrap(v, type_of(I, in->results[0]).dtype);
        return INTERP_OK;
    }
    case IR_LOAD: return do_load(I, in);
    case IR_STORE: return do_store(I, in);
    case IR_ATOMIC_RMW:
    case IR_ATOMIC_CAS: return do_atomic(I, in);
    case IR_PRINT: return do_print(I, in);
    case IR_ASSERT: return do_assert(I, in);
    case IR_BARRIER: return INTERP_OK;
    case IR_ASSUME: return do_assume(I, in);
    case IR_INTRINSIC: return do_intrinsic(I, in);
    case IR_INLINE_ASM:
        return report(I, INTERP_BAD_ARGS, in, /* a launch it cannot do */
                      "tl.inline_asm_elementwise runs PTX, which the interpreter cannot run; run this kernel on a GPU");
    case IR_FOR: return do_for(I, in);
    case IR_IF: return do_if(I, in);
    case IR_WHILE: return do_while(I, in);
    case IR_SCAN:
    case IR_REDUCE_FN: return do_combine_op(I, in);
    case IR_MAP_FN: return do_map_fn(I, in);
    case IR_RETURN:
        I->returned = true;
        return INTERP_OK;
    case IR_YIELD:
    case IR_CONDITION: return internal(I, in, "terminator in the middle of a block");
    default: break;
    }
    /* desc_tile is the identity on its pointers: the rest is for TMA */
    int nargs = in->op == IR_DESC_TILE ? 1 : in->nargs;
    if (in->nresults != 1 || nargs > INTERP_MAX_ARGS)
        return internal(I, in, "unexpected operand or result count");
    Elem *args[INTERP_MAX_ARGS] = {0};
    for (int k = 0; k < nargs; k++)
        args[k] = use(I, in->args[k]);
    Elem *out = def(I, in->results[0]);
    if (!out)
        return report(I, INTERP_NO_MEMORY, in, "out of memory");
    InterpStatus st = interp_eval(I->fn, in, args, out, &I->scratch);
    if (st == INTERP_OK && in->op == IR_CAST && type_of(I, in->results[0]).dtype == DT_PTR &&
        type_of(I, in->args[0]).dtype != DT_PTR)
        resolve_addresses(I, out, ir_numel(type_of(I, in->results[0])));
    switch (st) {
    case INTERP_OK: return INTERP_OK;
    case INTERP_NO_MEMORY: return report(I, st, in, "out of memory");
    default: return internal(I, in, "operand types or shapes the interpreter does not handle");
    }
}

/* ---- launch ---- */

static InterpStatus bad_args(const InterpLaunch *L, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static InterpStatus bad_args(const InterpLaunch *L, const char *fmt, ...) {
    if (L && L->diag) {
        Buf msg = {0};
        va_list ap;
        va_start(ap, fmt);
        buf_vprintf(&msg, fmt, ap);
        va_end(ap);
        const Function *fn = L->fn;
        diag_error(L->diag, fn ? fn->src : NULL, span_at(0, 0), "launch of '%s': %s",
                   fn && fn->name ? fn->name : "?", msg.data ? msg.data : "");
        buf_free(&msg);
    }
    return INTERP_BAD_ARGS;
}

static InterpStatus check_launch(const InterpLaunch *L) {
    const Function *fn = L->fn;
    if (!fn || !fn->body)
        return bad_args(L, "no function");
    for (int a = 0; a < 3; a++)
        if (L->grid[a] == 0)
            return bad_args(L, "grid (%u, %u, %u) has a zero dimension", L->grid[0], L->grid[1], L->grid[2]);
    if (fn->nparams && !L->args)
        return bad_args(L, "%d arguments expected, none given", fn->nparams);
    if (L->nbufs < 0 || (L->nbufs && !L->bufs) || L->nbufs > INTERP_MAX_BUFFERS)
        return bad_args(L, "bad buffer table (%d buffers)", L->nbufs);
    for (int b = 0; b < L->nbufs; b++)
        if (!L->bufs[b].data && L->bufs[b].size)
            return bad_args(L, "buffer %d has %zu bytes but no data", b, L->bufs[b].size);
    if (fn->nvalues <= fn->nparams)
        return bad_args(L, "malformed function");
    for (int p = 0; p < fn->nparams; p++) {
        Type t = fn->params[p].type;
        const InterpArg *a = &L->args[p];
        if (t.rank != 0)
            return bad_args(L, "parameter '%s' is a block", fn->params[p].name);
        if (t.dtype == DT_PTR && (a->buf < -1 || a->buf >= L->nbufs))
            return bad_args(L, "argument '%s' names buffer %d of %d", fn->params[p].name, a->buf, L->nbufs);
        if (t.dtype == DT_PTR && (a->offset < -PTR_OFF_LIMIT || a->offset >= PTR_OFF_LIMIT))
            return bad_args(L, "argument '%s' has offset %lld", fn->params[p].name, (long long)a->offset);
    }
    return INTERP_OK;
}

InterpStatus interp_run(const InterpLaunch *L) {
    if (!L)
        return INTERP_BAD_ARGS;
    InterpStatus st = check_launch(L);
    if (st)
        return st;
    const Function *fn = L->fn;
    Interp I = {.L = L, .fn = fn};
    I.slots = calloc((size_t)fn->nvalues, sizeof(Slot));
    if (!I.slots)
        return INTERP_NO_MEMORY;
    for (int p = 0; p < fn->nparams; p++) {
        Type t = fn->params[p].type;
        const InterpArg *a = &L->args[p];
        Elem *d = def(&I, p + 1);
        if (t.dtype == DT_PTR)
            d->p = ptr_pack((unsigned)(a->buf + 1), a->offset);
        else if (dt_is_float(t.dtype))
            *d = interp_convert((Elem){.f = a->f}, DT_F64, t.dtype);
        else if (t.dtype == DT_I1)
            d->i = a->i != 0;
        else
            d->i = interp_wrap(a->i, t.dtype);
    }
    for (unsigned z = 0; z < L->grid[2] && !st; z++)
        for (unsigned y = 0; y < L->grid[1] && !st; y++)
            for (unsigned x = 0; x < L->grid[0] && !st; x++) {
                I.pid[0] = x, I.pid[1] = y, I.pid[2] = z;
                I.returned = false;
                const Inst *term;
                st = exec_block(&I, fn->body, &term);
            }
    for (int v = 0; v < fn->nvalues; v++)
        if (I.slots[v].d != &I.slots[v].one)
            free(I.slots[v].d);
    free(I.slots);
    free(I.scratch.p);
    free(I.stage.p);
    buf_free(&I.line);
    return st;
}
