/* interp.h: the CPU interpreter of the typed tile IR (TL_INTERPRET=1).
 *
 * Runs a kernel over a 1-3D grid program by program on host buffers. Values
 * are computed in 64-bit (int64 / double) and rounded to their element type
 * after every op, fp16/bf16 with round-to-nearest-even as the GPU does, so
 * results match the GPU bit for bit except for transcendental functions and
 * the summation order of dot/reductions.
 *
 * Pointers carry the buffer they came from: a pointer is (buffer index, byte
 * offset), so every load/store is checked against the bounds of the buffer
 * the kernel was given; an unmasked or wrongly masked access outside it stops
 * the launch with the kernel's source line, the program id and the offset. */
#ifndef TL_INTERP_H
#define TL_INTERP_H

#include "ir.h"

/* The most buffers one launch may name (pointer tags 1.. this; interp_impl.h). */
enum { INTERP_MAX_BUFFERS = 0xFFFD };

typedef struct InterpBuffer {
    void *data;
    size_t size;       /* bytes */
} InterpBuffer;

typedef struct InterpArg {
    int64_t i;         /* integer / bool parameters (already the param's dtype) */
    double f;          /* float parameters */
    int buf;           /* pointer parameters: index into InterpLaunch.bufs, -1 = null */
    int64_t offset;    /* pointer parameters: byte offset into that buffer */
} InterpArg;

typedef struct InterpLaunch {
    const Function *fn;
    const InterpArg *args; /* one per fn->params */
    const InterpBuffer *bufs;
    int nbufs;
    unsigned grid[3];      /* each >= 1 */
    Buf *print_out;        /* device_print / print output; NULL: stdout */
    Diag *diag;            /* runtime errors, rendered against fn->src */
} InterpLaunch;

typedef enum {
    INTERP_OK = 0,
    INTERP_OUT_OF_BOUNDS,  /* load/store/atomic outside its buffer or through a null pointer */
    INTERP_ASSERT,         /* device_assert failed */
    INTERP_BAD_ARGS,       /* launch description inconsistent with the function */
    INTERP_NO_MEMORY,
    INTERP_INTERNAL,       /* IR the interpreter does not understand (a bug) */
} InterpStatus;

InterpStatus interp_run(const InterpLaunch *launch);

/* Rounding helpers shared with tests and the example programs' references. */
float interp_round_f16(double x);  /* nearest fp16 value, as a float */
float interp_round_bf16(double x);
float interp_round_tf32(float x);
uint16_t interp_f32_to_f16_bits(float x);
float interp_f16_bits_to_f32(uint16_t h);
uint16_t interp_f32_to_bf16_bits(float x);
float interp_bf16_bits_to_f32(uint16_t h);

#endif
