/* arch.c: the table of GPU architectures (see arch.h). */
#include "arch.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Shared memory per block (opt-in maximum) from the CUDA programming guide's
 * table of compute capabilities. The PTX ISA is the oldest the arch needs, so
 * older drivers can still JIT the result (ptx.c raises it for the few
 * instructions that need more). LLVM 19's NVPTX backend stops at sm_90a and
 * PTX ISA 8.5: the Blackwells (sm_100, sm_120) get its sm_90 code, which every
 * newer GPU runs, under their own .target and .version (ptx.c); nothing
 * arch-specific of sm_90a (wgmma, setmaxnreg) is emitted for them. */
static const PtxArch archs[] = {
    {"sm_70", 70, "sm_70", 60, 96 * 1024},      {"sm_75", 75, "sm_75", 63, 64 * 1024},
    {"sm_80", 80, "sm_80", 70, 163 * 1024},     {"sm_86", 86, "sm_86", 71, 99 * 1024},
    {"sm_89", 89, "sm_89", 78, 99 * 1024},      {"sm_90", 90, "sm_90", 78, 227 * 1024},
    {"sm_90a", 90, "sm_90a", 80, 227 * 1024},   {"sm_100", 100, "sm_90", 86, 227 * 1024},
    {"sm_100a", 100, "sm_90", 86, 227 * 1024},  {"sm_120", 120, "sm_90", 87, 99 * 1024},
    {"sm_120a", 120, "sm_90", 87, 99 * 1024},
};

const PtxArch *ptx_arch(const char *name) {
    if (!name)
        name = "sm_90";
    for (size_t i = 0; i < sizeof archs / sizeof archs[0]; i++)
        if (!strcmp(archs[i].name, name))
            return &archs[i];
    return NULL;
}

static bool specific(const PtxArch *a) { return a->name[strlen(a->name) - 1] == 'a'; }

bool ptx_arch_cubin_runs_on(const PtxArch *a, int cc) {
    return specific(a) ? cc == a->sm : cc / 10 == a->sm / 10 && cc % 10 >= a->sm % 10;
}

bool ptx_arch_ptx_runs_on(const PtxArch *a, int cc) { return specific(a) ? cc == a->sm : cc >= a->sm; }

bool ptx_arch_has(const PtxArch *a, ArchFeature f) {
    switch (f) {
    case ARCH_AMPERE: return a->sm >= 80;
    case ARCH_MMA_FP8: return a->sm == 89 || a->sm / 10 == 12;
    case ARCH_FP8_CVT: return a->sm >= 89;
    case ARCH_HOPPER: return a->sm >= 90;
    case ARCH_WGMMA: return !strcmp(a->name, "sm_90a");
    }
    return false;
}

void ptx_arch_names(char *out, size_t n) {
    size_t len = 0;
    out[0] = 0;
    for (size_t i = 0; i < sizeof archs / sizeof archs[0] && len < n; i++)
        len += (size_t)snprintf(out + len, n - len, "%s%s", i ? ", " : "", archs[i].name);
}

int arch_tma_swizzle(int elem_bytes, int inner) {
    for (int w = 128; w >= 32; w /= 2)
        if ((int64_t)inner * elem_bytes % w == 0)
            return w;
    return 0;
}
