/* cuda.h: the CUDA driver API, opened at run time with dlopen("libcuda.so.1").
 *
 * libtl has no link-time dependency on CUDA: on a machine without a driver or
 * a GPU, cuda_open() fails with the reason and the API answers
 * TL_ERROR_NO_DEVICE. Only the handful of entry points tl uses are loaded. */
#ifndef TL_CUDA_H
#define TL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef struct CUlinkState_st *CUlinkState;
typedef unsigned long long CUdeviceptr;
typedef struct CUmemPoolHandle_st *CUmemoryPool;

/* cuMemPoolCreate's properties (CUmemPoolProps_v1: its fields and reserved
 * bytes, zero but for the three set) */
typedef struct CuMemPoolProps {
    int alloc_type;    /* CU_MEM_ALLOCATION_TYPE_PINNED */
    int handle_types;  /* 0: none (no IPC) */
    struct {
        int type;      /* CU_MEM_LOCATION_TYPE_DEVICE */
        int id;        /* the device ordinal */
    } location;
    void *win32_security_attributes;
    size_t max_size;
    unsigned short usage;
    unsigned char reserved[54];
} CuMemPoolProps;

enum {
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR = 39,
    CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR = 82,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
    CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES = 3,
    CU_FUNC_ATTRIBUTE_NUM_REGS = 4,
    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6,
    CU_JIT_INPUT_PTX = 1,
    CU_EVENT_DEFAULT = 0,
    CU_POINTER_ATTRIBUTE_DEVICE_POINTER = 3,
    CUDA_ERROR_INVALID_VALUE = 1,
    CU_MEM_ALLOCATION_TYPE_PINNED = 1,
    CU_MEM_LOCATION_TYPE_DEVICE = 1,
    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4,
};

/* The entry points, filled by cuda_open. */
typedef struct CudaApi {
    void *lib;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int *);
    CUresult (*cuDeviceGetCount)(int *);
    CUresult (*cuDeviceGet)(CUdevice *, int);
    CUresult (*cuDeviceGetName)(char *, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxSynchronize)(void);
    CUresult (*cuCtxGetCurrent)(CUcontext *);
    CUresult (*cuCtxGetDevice)(CUdevice *);
    CUresult (*cuStreamSynchronize)(CUstream);
    CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
    CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
    CUresult (*cuMemcpyDtoD)(CUdeviceptr, CUdeviceptr, size_t);
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuModuleLoadData)(CUmodule *, const void *);
    CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned, int *, void **);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
    CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
    CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                               CUstream, void **, void **);
    CUresult (*cuLinkCreate)(unsigned, int *, void **, CUlinkState *);
    CUresult (*cuLinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned, int *, void **);
    CUresult (*cuLinkComplete)(CUlinkState, void **, size_t *);
    CUresult (*cuLinkDestroy)(CUlinkState);
    CUresult (*cuEventCreate)(CUevent *, unsigned);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuGetErrorName)(CUresult, const char **);
    CUresult (*cuGetErrorString)(CUresult, const char **);
    /* Optional (CUDA 12+; NULL when the driver lacks it): TMA descriptors.
     * (map, dtype, rank, address, dims, byte strides, box dims, element
     * strides, interleave, swizzle, L2 promotion, out-of-bounds fill) */
    CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *, const uint64_t *,
                                       const unsigned *, const unsigned *, int, int, int, int);
    /* Optional: what the driver knows of an address (gpu_pointer_known). */
    CUresult (*cuPointerGetAttribute)(void *, int, CUdeviceptr);
    /* Optional: CTAs of (function, threads, dynamic shared bytes) one SM
     * holds at once (gpu.c raise_occupancy). */
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int *, CUfunction, int, size_t);
    /* Optional (CUDA 11.2+): stream-ordered memory, the global scratch of a
     * launch whose kernel makes tensor maps (gpu_launch). */
    CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
    CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
    /* Optional (CUDA 11.2+): tl's own pool for that scratch (gpu.c scratch_pool) */
    CUresult (*cuMemPoolCreate)(CUmemoryPool *, const CuMemPoolProps *);
    CUresult (*cuMemPoolDestroy)(CUmemoryPool);
    CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
    CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
} CudaApi;

/* Load libcuda.so.1 and cuInit it; once per process. Returns NULL with the
 * reason in err (e.g. "libcuda.so.1: cannot open shared object file"). */
const CudaApi *cuda_open(Buf *err);

/* "CUDA_ERROR_OUT_OF_MEMORY: out of memory" for a driver result. */
void cuda_describe(const CudaApi *cu, CUresult r, Buf *out);

/* ptxas, as Triton runs it: PTX -> a cubin compiled as a whole program.
 * (The driver's linker, cuLink, compiles PTX as relocatable code, `ptxas
 * -c`, which costs registers: layer norm backward's dx kernel 140 against
 * 127, and with them half its occupancy.) cuda_find_ptxas: $TL_PTXAS (a
 * path; "none": do not use ptxas), else the first ptxas in PATH; false if
 * none. cuda_run_ptxas runs `ptxas -arch=ARCH [-lineinfo] -o OUT IN` in a
 * private temporary directory and returns PTXAS_OK with the cubin, else
 * why in log (ptxas' own messages, then ours). */
typedef enum { PTXAS_OK, PTXAS_CANNOT_RUN, PTXAS_REJECTED } PtxasResult;
bool cuda_find_ptxas(Buf *path);
PtxasResult cuda_run_ptxas(const char *ptxas, const char *arch, bool lineinfo, const char *ptx, size_t ptx_len,
                           Buf *cubin, Buf *log);

#endif
