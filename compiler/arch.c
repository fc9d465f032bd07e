/* arch.c: the table of GPU architectures (see arch.h). */
#include "arch.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Shared memory per block (opt-in maximum) from the CUDA programming guide's
 * table of compute capabilities; the PTX ISA is the oldest the arch needs, so
 * older drivers can still JIT the result. */
static const PtxArch archs[] = {
    {"sm_80", 80, "+ptx70", 163 * 1024},
    {"sm_86", 86, "+ptx71", 99 * 1024},
    {"sm_89", 89, "+ptx78", 99 * 1024},
    {"sm_90", 90, "+ptx78", 227 * 1024},
    {"sm_90a", 90, "+ptx80", 227 * 1024},
};

const PtxArch *ptx_arch(const char *name) {
    if (!name)
        name = "sm_90";
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (!strcmp(archs[i].name, name))
            return &archs[i];
    return NULL;
}

bool ptx_arch_cubin_runs_on(const PtxArch *a, int cc) {
    bool specific = a->name[strlen(a->name) - 1] == 'a';
    return specific ? cc == a->sm : cc / 10 == a->sm / 10 && cc % 10 >= a->sm % 10;
}

const char *ptx_arch_names(void) { return "sm_80, sm_86, sm_89, sm_90, sm_90a"; }

bool arch_mma_fp8(int sm) { return sm == 89 || sm / 10 == 12; }

int arch_tma_swizzle(int elem_bytes, int inner) {
    for (int w = 128; w >= 32; w /= 2)
        if ((int64_t)inner * elem_bytes % w == 0)
            return w;
    return 0;
}
