/* ptx.h: PTX emission through LLVM's NVPTX backend (the only stage besides the
 * LLVM lowering that includes llvm-c; this header itself stays LLVM-free so the
 * driver and the runtime can include it). */
#ifndef TL_PTX_H
#define TL_PTX_H

#include "arch.h"

/* "19.1.7": the LLVM version linked into libtl. */
const char *ptx_llvm_version(void);
/* True when the NVPTX target is registered and can create a target machine. */
int ptx_target_available(void);

#endif
