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

#endif
