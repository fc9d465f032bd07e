/* interp_impl.h: what interp.c (the driver: control flow, memory, errors)
 * and interp_ops.c (the arithmetic: rounding, casts, shapes, dot, reduce)
 * share. Not part of any public interface.
 *
 * Every live value is an array of Elem, one per element in row-major order:
 * ints in .i, sign- or zero-extended from their width (u64 holds its bits);
 * floats in .f, already rounded to their type; pointers in .p, packed as
 *
 *    63        48 47                                   0
 *   +------------+--------------------------------------+
 *   |    tag     |  byte offset (48-bit two's complement) |
 *   +------------+--------------------------------------+
 *
 * tag 0 is the null pointer, tag b+1 is InterpLaunch.bufs[b], and PTR_WILD
 * marks a pointer whose offset left the 48-bit range (it faults on access).
 * A null pointer with offset 0 packs to 0, so ptr<->i64 casts round-trip and
 * `p == 0` style tests behave; the low bits are the offset's, so alignment
 * tests on the integer see the offset's alignment. */
#ifndef TL_INTERP_IMPL_H
#define TL_INTERP_IMPL_H

#include "interp.h"

typedef union Elem {
    int64_t i;
    double f;
    uint64_t p;
} Elem;

enum { PTR_WILD = INTERP_MAX_BUFFERS + 2 }; /* the tag after the last buffer's */
#define PTR_OFF_MASK ((UINT64_C(1) << 48) - 1)
#define PTR_OFF_LIMIT (INT64_C(1) << 47)

static inline uint64_t ptr_pack(unsigned tag, int64_t off) {
    if (off < -PTR_OFF_LIMIT || off >= PTR_OFF_LIMIT)
        return (uint64_t)PTR_WILD << 48;
    return ((uint64_t)tag << 48) | ((uint64_t)off & PTR_OFF_MASK);
}
static inline unsigned ptr_tag(uint64_t p) { return (unsigned)(p >> 48); }
static inline int64_t ptr_off(uint64_t p) {
    uint64_t o = p & PTR_OFF_MASK;
    return (o & (UINT64_C(1) << 47)) ? (int64_t)(o | ~PTR_OFF_MASK) : (int64_t)o;
}

/* Bytes one element of dtype occupies in memory (i1 is stored as a byte). */
static inline int dt_size(DType dt) { return dt == DT_I1 ? 1 : dt_bits(dt) / 8; }

/* ---- interp_ops.c ---- */

/* Wrap an integer to dt's width (sign- or zero-extend; i1 keeps bit 0). */
int64_t interp_wrap(int64_t x, DType dt);
/* Round the n elements of d to dt (ints wrap, floats round to nearest even). */
void interp_norm(Elem *d, int64_t n, DType dt);
/* Convert one element between element types (CAST semantics). */
Elem interp_convert(Elem x, DType from, DType to);
/* The element's bits as they are stored in memory, and back (BITCAST). */
uint64_t interp_bits_of(Elem x, DType dt);
Elem interp_from_bits(uint64_t bits, DType dt);

/* A growable scratch area, reused across ops (DOT converts its inputs). */
typedef struct Scratch {
    void *p;
    size_t cap;
} Scratch;
void *interp_scratch(Scratch *s, size_t bytes); /* NULL when out of memory */

/* The most operands interp_eval takes (libdevice.norm4d's extern). */
#define INTERP_MAX_ARGS 4

/* Evaluate an op that touches neither memory nor control flow nor the
 * program id: args[k] holds operand k, the result goes to out (numel of the
 * result type). Returns INTERP_OK; INTERP_NO_MEMORY; or INTERP_INTERNAL for
 * an op it does not evaluate or operands whose shapes make no sense. (An
 * integer division by zero is no error: the GPU does not trap, binary().) */
InterpStatus interp_eval(const Function *fn, const Inst *in, Elem *const *args, Elem *out, Scratch *s);

#endif
