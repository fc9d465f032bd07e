/* fake_libdevice.c: a stand-in for NVIDIA's libdevice.10.bc in tests/extern.sh
 * (the CPU machines have no CUDA toolkit). Compiled with clang for nvptx64
 * like the real one; its functions are recognisable in the PTX: asinf
 * multiplies by 3 and adds 0.125, tanhf asks __nvvm_reflect whether
 * denormals flush (tl links with nvvm-reflect-ftz = 0), and the unused
 * function must not survive into the kernel. */
int __nvvm_reflect(const char *);
float __nv_asinf(float x) { return x * 3.0f + 0.125f; }
float __nv_tanhf(float x) { return __nvvm_reflect("__CUDA_FTZ") ? 1234.0f : x - 0.5f; }
float __nv_unused_fake(float x) { return x * 77.0f; }
