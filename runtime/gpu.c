/* gpu.c: the CUDA device behind the API.
 *
 * A variant (one specialisation of a kernel) is built once: its IR goes
 * through the GPU passes to PTX, the driver's linker turns the PTX into a
 * cubin, and the cubin is kept in the disk cache (cache.h) under a key that
 * covers everything that changes it. A warm start is then a plain cubin load
 * with no LLVM work at all. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_int.h"
#include "build_id.h"
#include "cache.h"
#include "interp.h"
#include "ptx.h"

static bool env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "0") != 0;
}

static TlStatus cu_fail(TlContext *ctx, CUresult r, const char *what) {
    Buf m = {0};
    cuda_describe(ctx->cu, r, &m);
    TlStatus s = fail(ctx, r == 2 ? TL_ERROR_OUT_OF_MEMORY : TL_ERROR_DEVICE, "%s: %s", what, m.data);
    buf_free(&m);
    return s;
}

/* The arch tl compiles for on a device of compute capability major.minor
 * (8.0 or newer): the nearest known one at or below it, so every device gets
 * one (an 8.7 Orin sm_86, a 12.0 sm_90). A Hopper gets sm_90a (wgmma; a
 * kernel's --arch sm_90 or sm_80 keeps mma.sync); sm_90a code runs on 9.0
 * only, so anything newer gets sm_90 PTX, which the driver JIT-compiles. */
void gpu_device_arch(int major, int minor, char *arch, size_t n) {
    int sm = major * 10 + minor;
    if (sm == 90) {
        snprintf(arch, n, "sm_90a");
        return;
    }
    for (int s = sm > 90 ? 90 : sm; s > 80; s--) {
        snprintf(arch, n, "sm_%d", s);
        if (ptx_arch(arch))
            return;
    }
    snprintf(arch, n, "sm_80");
}

TlStatus gpu_open(TlContext *ctx) {
    Buf err = {0};
    ctx->cu = cuda_open(&err);
    if (!ctx->cu) {
        TlStatus s = fail(ctx, TL_ERROR_NO_DEVICE, "no CUDA device: %s", err.data ? err.data : "");
        buf_free(&err);
        return s;
    }
    const CudaApi *cu = ctx->cu;
    CUresult r;
    CUcontext current = NULL;
    /* Inside a CUDA program, work in its context (as Triton's driver does):
     * its buffers, streams and library handles are then ours to use. */
    if (!cu->cuCtxGetCurrent(&current) && current && !cu->cuCtxGetDevice(&ctx->dev)) {
        ctx->cuctx = current;
        ctx->own_ctx = false;
    } else {
        int ordinal = getenv("TL_DEVICE") ? atoi(getenv("TL_DEVICE")) : 0, count = 0;
        cu->cuDeviceGetCount(&count);
        if (ordinal < 0 || ordinal >= count)
            return fail(ctx, TL_ERROR_NO_DEVICE, "no CUDA device %d (TL_DEVICE; %d present)", ordinal, count);
        if ((r = cu->cuDeviceGet(&ctx->dev, ordinal)) || (r = cu->cuDevicePrimaryCtxRetain(&ctx->cuctx, ctx->dev)))
            return cu_fail(ctx, r, "cannot open the CUDA device");
        ctx->own_ctx = true;
        if ((r = cu->cuCtxSetCurrent(ctx->cuctx))) {
            cu->cuDevicePrimaryCtxRelease(ctx->dev);
            ctx->cuctx = NULL;
            return cu_fail(ctx, r, "cannot make the CUDA context current");
        }
    }
    int major = 0, minor = 0, gx = 0, gy = 0, gz = 0;
    cu->cuDeviceGetName(ctx->name, sizeof ctx->name, ctx->dev);
    cu->cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ctx->dev);
    cu->cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ctx->dev);
    cu->cuDeviceGetAttribute(&ctx->max_shared, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, ctx->dev);
    cu->cuDeviceGetAttribute(&ctx->num_sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, ctx->dev);
    cu->cuDeviceGetAttribute(&ctx->regs_per_sm, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR, ctx->dev);
    cu->cuDeviceGetAttribute(&ctx->threads_per_sm, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, ctx->dev);
    cu->cuDeviceGetAttribute(&gx, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, ctx->dev);
    cu->cuDeviceGetAttribute(&gy, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, ctx->dev);
    cu->cuDeviceGetAttribute(&gz, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, ctx->dev);
    ctx->max_grid[0] = (unsigned)gx, ctx->max_grid[1] = (unsigned)gy, ctx->max_grid[2] = (unsigned)gz;
    if (major < 8) {
        gpu_close(ctx);
        return fail(ctx, TL_ERROR_NO_DEVICE, "%s has compute capability %d.%d; tl needs 8.0 or newer", ctx->name,
                    major, minor);
    }
    gpu_device_arch(major, minor, ctx->arch, sizeof ctx->arch);
    ctx->cc = major * 10 + minor;
    ctx->kind = TL_DEVICE_CUDA;
    return TL_SUCCESS;
}

/* Make ctx's CUDA context current on this thread if another one is (a
 * program with several contexts, or a new thread). */
void gpu_bind(TlContext *ctx) {
    CUcontext cur = NULL;
    if (ctx->cuctx && (ctx->cu->cuCtxGetCurrent(&cur) || cur != ctx->cuctx))
        ctx->cu->cuCtxSetCurrent(ctx->cuctx);
}

/* Triton's "cpu tensor?" check: an address the driver does not know
 * (CUDA_ERROR_INVALID_VALUE) is host memory, which a kernel would fault on
 * far from the launch that passed it. Memory the driver maps (device,
 * managed, registered host memory) passes. One driver call, in ctx's
 * context: the caller binds it once for all of a launch's pointers. */
bool gpu_pointer_known(TlContext *ctx, CUdeviceptr p) {
    if (!ctx->cu->cuPointerGetAttribute)
        return true;
    CUdeviceptr dev = 0;
    return ctx->cu->cuPointerGetAttribute(&dev, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p) != CUDA_ERROR_INVALID_VALUE;
}

void gpu_close(TlContext *ctx) {
    if (ctx->cu && ctx->cuctx) {
        gpu_bind(ctx);
        if (ctx->stream)
            ctx->cu->cuStreamSynchronize(ctx->stream);
        else
            ctx->cu->cuCtxSynchronize();
        if (ctx->scratch_pool) /* every scratch was given back: the launches synchronised above */
            ctx->cu->cuMemPoolDestroy(ctx->scratch_pool);
        if (ctx->own_ctx)
            ctx->cu->cuDevicePrimaryCtxRelease(ctx->dev);
    }
    ctx->scratch_pool = NULL;
    ctx->cuctx = NULL;
}

TlStatus gpu_alloc(TlBuffer *b) {
    gpu_bind(b->ctx);
    CUresult r = b->ctx->cu->cuMemAlloc(&b->dptr, b->bytes);
    if (r)
        return cu_fail(b->ctx, r, "cuMemAlloc");
    return TL_SUCCESS;
}

void gpu_free(TlBuffer *b) {
    if (b->dptr) {
        gpu_bind(b->ctx);
        b->ctx->cu->cuMemFree(b->dptr);
    }
    b->dptr = 0;
}

TlStatus gpu_copy(TlBuffer *b, size_t offset, void *host, size_t bytes, bool to_device) {
    const CudaApi *cu = b->ctx->cu;
    gpu_bind(b->ctx);
    CUresult r = to_device ? cu->cuMemcpyHtoD(b->dptr + offset, host, bytes)
                           : cu->cuMemcpyDtoH(host, b->dptr + offset, bytes);
    return r ? cu_fail(b->ctx, r, to_device ? "cuMemcpyHtoD" : "cuMemcpyDtoH") : TL_SUCCESS;
}

/* The kernel's --arch, else the device's own. */
static const PtxArch *target_of(const TlKernel *k) {
    return k->opts.arch ? k->opts.arch : ptx_arch(k->ctx->arch);
}

/* Everything that changes the cubin: our build, LLVM, the source (which holds
 * every helper), the kernel, its specialisation and options, the target, and
 * the device (a cubin, or PTX where this device cannot run the target's cubin). */
void gpu_cache_key(TlKernel *k, const char *sig, Buf *key) {
    buf_printf(key, "tl %s build %s llvm %s\narch %s O%d on cc %d\nkernel %s\nsignature %s\n", TL_VERSION,
               TL_BUILD_ID, ptx_llvm_version(), target_of(k)->name, k->opts.opt_level, k->ctx->cc, k->name, sig);
    kernel_options_key(k, key);
    buf_printf(key, "source %zu\n", k->src.len);
    buf_putn(key, k->src.text, k->src.len);
}

/* The driver refused the PTX (r, with its JIT log): in the kernel's log
 * and as the error, TL_ERROR_COMPILE. */
static TlStatus ptx_rejected(TlKernel *k, CUresult r, const char *jitlog) {
    Buf m = {0};
    cuda_describe(k->ctx->cu, r, &m);
    buf_printf(&k->log, "%s: the CUDA driver rejected the PTX: %s\n%s", k->name, m.data, jitlog);
    TlStatus s = fail(k->ctx, TL_ERROR_COMPILE, "%s: the CUDA driver rejected the PTX: %s\n%s", k->name, m.data, jitlog);
    buf_free(&m);
    return s;
}

/* The image the driver loads: ptxas' cubin where there is a ptxas (as
 * Triton: compiled whole, and cached as machine code; dumped for cuobjdump),
 * else the PTX itself, which the driver compiles whole at load (its JIT
 * cache keeps the result for the next process). Not the driver's linker:
 * cuLink compiles PTX as relocatable code (`ptxas -c`), which costs
 * registers (layer norm backward's dx kernel: 140 against 127, half the
 * occupancy) and makes warp-specialised consumers spill. A ptxas that fails
 * leaves a note in the kernel's log and the driver compiles the PTX. So does
 * a target whose machine code this device cannot run (sm_80 on a Hopper,
 * sm_90 on a Blackwell): its PTX runs, compiled by the driver. A target whose
 * PTX cannot run here either (sm_100a on a Hopper) is compile-only: its
 * cubin, where ptxas can build it, is the product, never loaded (load).
 * Returns whether the image is a cubin. */
static bool image_from_ptx(TlKernel *k, const Buf *ptx, Buf *image) {
    Buf path = {0}, log = {0};
    const PtxArch *t = target_of(k);
    bool cubin = ptx_arch_cubin_runs_on(t, k->ctx->cc) || !ptx_arch_ptx_runs_on(t, k->ctx->cc);
    if (cubin && cuda_find_ptxas(&path)) {
        PtxasResult r = cuda_run_ptxas(path.data, target_of(k)->name, k->opts.debug_info > 0, ptx->data, ptx->len,
                                       image, &log);
        if (r != PTXAS_OK) {
            buf_printf(&k->log, "note: %s: %s:\n%s", k->name,
                       ptx_arch_ptx_runs_on(t, k->ctx->cc) ? "the CUDA driver compiles the PTX instead"
                                                           : "no cubin for this compile-only target",
                       log.data ? log.data : "");
            image->len = 0;
        }
    }
    bool cubin_made = image->len > 0;
    if (!image->len) {
        buf_putn(image, ptx->data, ptx->len);
        buf_putn(image, "", 1); /* the driver wants PTX NUL-terminated */
    }
    buf_free(&path);
    buf_free(&log);
    return cubin_made;
}

/* fn -> PTX -> image (image_from_ptx), the passes' diagnostics in d;
 * *is_cubin says which image. False where the passes or codegen failed. */
static bool make_image(TlKernel *k, Function *fn, Diag *d, const CompileHooks *hooks, Buf *ptx, Buf *image,
                       bool *is_cubin) {
    Function *fs[1] = {fn};
    if (!compile_gpu(d, fs, 1, target_of(k), k->opts.opt_level, k->opts.debug_info, COMPILE_TO_PTX, hooks, ptx))
        return false;
    double t0 = compile_clock();
    *is_cubin = image_from_ptx(k, ptx, image);
    compile_time(hooks->times, STAGE_LINK, &t0);
    return true;
}

/* IR -> PTX -> cubin, recording the compile log. */
static TlStatus build_cubin(TlKernel *k, Variant *v, Buf *image) {
    Buf ir_gpu = {0}, llvm = {0}, ptx = {0};
    bool dump = kernel_dump_enabled(), is_cubin = false;
    CompileTimes times = {0};
    CompileHooks hooks = {.ir_gpu = dump ? &ir_gpu : NULL, .llvm = dump ? &llvm : NULL, .times = &times};
    Diag d = {.library = true};
    bool ok = make_image(k, v->fn, &d, &hooks, &ptx, image, &is_cubin);
    if (d.out.data)
        buf_puts(&k->log, d.out.data);
    TlStatus s = TL_SUCCESS;
    if (!ok)
        s = fail(k->ctx, d.internal ? TL_ERROR_INTERNAL : TL_ERROR_COMPILE, "%s",
                 d.out.data ? d.out.data : "code generation failed");
    else if (!image->data)
        s = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    if (ok && dump) {
        kernel_dump(k, v, "ir-gpu", &ir_gpu);
        kernel_dump(k, v, "ll", &llvm);
        kernel_dump(k, v, "ptx", &ptx);
        if (is_cubin)
            kernel_dump(k, v, "cubin", image);
    }
    buf_free(&d.out);
    buf_free(&ir_gpu);
    buf_free(&llvm);
    buf_free(&ptx);
    ctx_add_times(k->ctx, &times);
    return s;
}

/* What the driver makes of an image: registers and local memory a thread,
 * and the CTAs of `threads` threads one SM holds. */
typedef struct Occupancy {
    int regs, local, ctas;
} Occupancy;

static bool occupancy_of(TlKernel *k, const void *image, const char *name, int threads, int shared, Occupancy *o) {
    const CudaApi *cu = k->ctx->cu;
    CUmodule mod = NULL;
    CUfunction fn = NULL;
    bool ok = !cu->cuModuleLoadData(&mod, image) && !cu->cuModuleGetFunction(&fn, mod, name) &&
              !cu->cuFuncGetAttribute(&o->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, fn) &&
              !cu->cuFuncGetAttribute(&o->local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, fn) &&
              !cu->cuOccupancyMaxActiveBlocksPerMultiprocessor(&o->ctas, fn, threads, (size_t)shared);
    if (mod)
        cu->cuModuleUnload(mod);
    return ok;
}

/* Does g launch as f does: the same shared memory, warps, and parameters
 * (the automatic TMA maps among them, which the launch encodes from f's)? */
static bool same_launch(const Function *f, const Function *g) {
    if (g->shared_bytes != f->shared_bytes || ir_launch_warps(g) != ir_launch_warps(f) || g->nparams != f->nparams)
        return false;
    for (int i = 0; i < f->nparams; i++) {
        const Param *a = &f->params[i], *b = &g->params[i];
        if (a->type.dtype != b->type.dtype || a->tensormap != b->tensormap || a->nonneg != b->nonneg ||
            a->above1 != b->above1 || memcmp(&a->tma, &b->tma, sizeof a->tma))
            return false;
    }
    return true;
}

/* seen[op] for every op in b and its regions. */
static void ops_in(const Block *b, bool *seen) {
    for (int i = 0; i < b->ninsts; i++) {
        const Inst *in = b->insts[i];
        seen[in->op] = true;
        for (int r = 0; r < in->nregions; r++)
            if (in->regions[r])
                ops_in(in->regions[r], seen);
    }
}

/* The register cap at which a kernel at `at` fits one more CTA an SM, or 0
 * where registers are not what limits it (or not alone: threads), or where
 * the cap would take more than a fifth of them (a spill-free compile there
 * is unlikely). ptxas gives a warp registers in units of 256, 8 a thread. */
static int occupancy_cap(const TlContext *ctx, Occupancy at, int warps) {
    int per_thread = (at.regs + 7) / 8 * 8;
    if (!at.ctas || ctx->regs_per_sm <= 0 || ctx->regs_per_sm / (per_thread * 32) / warps > at.ctas ||
        (at.ctas + 1) * warps * 32 > ctx->threads_per_sm)
        return 0;
    int cap = ctx->regs_per_sm / (32 * warps * (at.ctas + 1)) / 8 * 8;
    return cap >= 24 && cap * 5 >= at.regs * 4 ? cap : 0;
}

/* Row kernels run faster at more CTAs an SM, and ptxas gives them the
 * registers it likes: Liger's layer_norm forward takes 48 at 8 warps, five
 * CTAs an SM, where 40 with its weights loaded after the statistics (sink.c,
 * which a cap turns on) run six, 3-4% faster on an H200 (2026-11-29: GPU
 * time 1.02x Triton's against 0.99; 37.6 against 39.0 us). So a kernel with
 * a reduction (or scan) and without a dot, whose registers are what limits
 * its CTAs an SM, is compiled again capped (Function.maxnreg, `.maxnreg`) at
 * the count that fits one more; that image replaces *image where the sink pass moved a
 * load and the driver reports more CTAs an SM and no more local memory (no
 * spills) than before. A cap alone is no gain: ptxas spills Liger's kernel
 * at 40 in its source order, and tutorial 04's seeded dropout (no reduction:
 * Philox arithmetic) ran 6% slower at 32 than at its 39. Kernels with a dot
 * keep theirs: their tiles want the registers, and their configs set their
 * occupancy. The user's own cap (maxnreg) and TL_OCCUPANCY=0 turn it off. */
static void raise_occupancy(TlKernel *k, Variant *v, const CompileOptions *o, Buf *image) {
    const Function *f = v->fn;
    if (o->maxnreg || !kernel_occupancy_on() || !k->ctx->cu->cuOccupancyMaxActiveBlocksPerMultiprocessor ||
        !ptx_arch_ptx_runs_on(target_of(k), k->ctx->cc) || f->producer_warps || f->shared_bytes > 48 * 1024)
        return;
    bool seen[IR__NUM] = {0}; /* the ops sink.c moves loads past, and no dot */
    ops_in(f->body, seen);
    if (seen[IR_DOT] || !(seen[IR_REDUCE] || seen[IR_REDUCE_FN] || seen[IR_SCAN]))
        return;
    int warps = ir_launch_warps(f);
    Occupancy at, capped;
    if (!occupancy_of(k, image->data, f->name, warps * 32, f->shared_bytes, &at))
        return;
    int cap = occupancy_cap(k->ctx, at, warps);
    if (!cap)
        return;
    Arena arena = {0};
    Diag d = {.library = true};
    CompileOptions oc = *o;
    oc.maxnreg = cap;
    CompileTimes times = {0};
    CompileHooks hooks = {.times = &times};
    Buf ptx = {0}, img = {0};
    bool is_cubin = false;
    Function *g = compile_kernel(&arena, &d, &k->src, k->module, &oc, &hooks);
    bool ok = g && make_image(k, g, &d, &hooks, &ptx, &img, &is_cubin) && img.data && g->sunk_loads &&
              same_launch(f, g) && occupancy_of(k, img.data, g->name, warps * 32, g->shared_bytes, &capped) &&
              capped.ctas > at.ctas && capped.local <= at.local && capped.regs <= cap;
    if (ok) {
        buf_printf(&k->log, "note: %s: registers capped at %d a thread (%d uncapped) for %d CTAs an SM instead of "
                            "%d, local memory %d bytes (%d uncapped) (TL_OCCUPANCY=0: no cap)\n",
                   f->name, capped.regs, at.regs, capped.ctas, at.ctas, capped.local, at.local);
        buf_free(image);
        *image = img;
        img = (Buf){0};
        if (kernel_dump_enabled()) {
            kernel_dump(k, v, "ptx", &ptx);
            if (is_cubin)
                kernel_dump(k, v, "cubin", image);
        }
    }
    ctx_add_times(k->ctx, &times);
    buf_free(&d.out);
    buf_free(&ptx);
    buf_free(&img);
    arena_free(&arena);
}

/* A cache entry: this header, each parameter's DType (a byte each), the
 * kernel's name, the automatic maps' sources (7 int32 each), then the image (ptxas' cubin,
 * or the PTX where there was no ptxas: image_from_ptx). A warm start needs nothing else: no
 * front end, no sema, no IR. */
typedef struct CubinHeader {
    uint32_t shared_bytes, num_warps, nparams, name_len, nauto; /* num_warps: the launch's, a producer's included */
    uint32_t scratch;                                            /* Variant.scratch */
} CubinHeader;

bool gpu_cache_dir(TlKernel *k, Buf *dir) {
    if (env_on("TL_ALWAYS_COMPILE"))
        return false;
    Buf why = {0};
    bool ok = cache_dir(dir, &why);
    if (!ok && why.data) { /* said once per kernel: its log is where a user looks */
        if (!k->log.data || !strstr(k->log.data, why.data))
            buf_printf(&k->log, "note: %s\n", why.data);
        if (env_on("TL_PRINT_CACHE"))
            fprintf(stderr, "tl cache: %s\n", why.data);
    }
    buf_free(&why);
    return ok;
}

/* Room for n automatic maps (Variant.auto_src ...). */
static bool auto_alloc(Variant *v, int n) {
    v->nauto = n;
    if (!n)
        return true;
    v->auto_src = arena_alloc(&v->arena, sizeof *v->auto_src * (size_t)n);
    v->auto_last = arena_alloc(&v->arena, sizeof *v->auto_last * (size_t)n);
    char *m = arena_alloc(&v->arena, 128 * (size_t)n + 64);
    v->auto_maps = m ? m + (64 - (uintptr_t)m % 64) % 64 : NULL;
    if (v->auto_last)
        memset(v->auto_last, 0, sizeof *v->auto_last * (size_t)n);
    return v->auto_src && v->auto_last && v->auto_maps;
}

/* The pool launches take their global scratch from: the context's own, made
 * when the first variant that needs one loads (load: off the launch's path),
 * which keeps what it was given back (release threshold: all) rather than
 * hand it to the OS at each synchronisation as the driver's default pool
 * does (threshold 0), so that a launch after a synchronise maps no memory.
 * It stays NULL (the default pool) where the driver cannot make one. */
static void scratch_pool(TlContext *ctx) {
    const CudaApi *cu = ctx->cu;
    pthread_mutex_lock(&ctx->lock);
    if (!ctx->scratch_pool_tried && cu->cuMemPoolCreate && cu->cuMemPoolDestroy && cu->cuMemPoolSetAttribute &&
        cu->cuMemAllocFromPoolAsync) {
        CuMemPoolProps props = {.alloc_type = CU_MEM_ALLOCATION_TYPE_PINNED,
                                .location = {CU_MEM_LOCATION_TYPE_DEVICE, (int)ctx->dev}};
        CUmemoryPool pool = NULL;
        uint64_t keep = UINT64_MAX;
        if (!cu->cuMemPoolCreate(&pool, &props)) {
            if (cu->cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &keep))
                cu->cuMemPoolDestroy(pool);
            else
                ctx->scratch_pool = pool;
        }
    }
    ctx->scratch_pool_tried = true;
    pthread_mutex_unlock(&ctx->lock);
}

/* Load the image (a cubin, or PTX where there was no ptxas, which the
 * driver compiles here: image_from_ptx) and fill in what a launch needs.
 * The image of a target this device cannot run stays unloaded (v->func
 * NULL): gpu_launch and gpu_func_attrs refuse it by name. */
static TlStatus load(TlKernel *k, Variant *v, const void *cubin) {
    const CudaApi *cu = k->ctx->cu;
    TlStatus s = TL_SUCCESS;
    if (!ptx_arch_ptx_runs_on(target_of(k), k->ctx->cc))
        return TL_SUCCESS;
    char errlog[8192] = "";
    int opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {errlog, (void *)(uintptr_t)sizeof errlog};
    CUresult r = cu->cuModuleLoadDataEx(&v->mod, cubin, 2, opts, vals);
    if (r && errlog[0])
        return ptx_rejected(k, r, errlog);
    if (!r)
        r = cu->cuModuleGetFunction(&v->func, v->mod, v->func_name);
    if (!r && v->shared_bytes > 48 * 1024) {
        if (v->shared_bytes > k->ctx->max_shared)
            s = fail(k->ctx, TL_ERROR_COMPILE, "%s needs %d bytes of shared memory; %s allows %d", k->name,
                     v->shared_bytes, k->ctx->name, k->ctx->max_shared);
        else
            r = cu->cuFuncSetAttribute(v->func, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, v->shared_bytes);
    }
    if (r)
        s = cu_fail(k->ctx, r, "loading the kernel");
    if (s == TL_SUCCESS) {
        int n = v->nparams;
        v->slots = arena_alloc(&v->arena, sizeof(uint64_t) * (size_t)(n + 1));
        v->params = arena_alloc(&v->arena, sizeof(void *) * (size_t)(n + 1));
        if (!v->slots || !v->params)
            s = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        int maps = n - v->nauto - (v->scratch > 0); /* then the automatic maps, then the scratch */
        for (int i = 0; i < n && s == TL_SUCCESS; i++)
            v->params[i] = i < maps || i >= maps + v->nauto ? (void *)&v->slots[i]
                                                            : (char *)v->auto_maps + 128 * (size_t)(i - maps);
        if (v->scratch)
            scratch_pool(k->ctx);
    }
    return s;
}

TlStatus gpu_load_cached(TlKernel *k, Variant *v, bool *hit) {
    *hit = false;
    Buf dir = {0}, key = {0};
    if (!gpu_cache_dir(k, &dir)) {
        buf_free(&dir);
        return TL_SUCCESS;
    }
    gpu_bind(k->ctx);
    double t0 = compile_clock();
    gpu_cache_key(k, v->key, &key);
    void *blob = NULL;
    size_t len = 0;
    bool corrupt = false;
    CubinHeader h;
    bool found = cache_get(dir.data, key.data, &blob, &len, &corrupt) && len > sizeof h;
    if (found) {
        memcpy(&h, blob, sizeof h);
        found = h.nparams < 4096 && h.name_len > 0 && h.name_len < 4096 && h.nauto + (h.scratch > 0) <= h.nparams &&
                h.scratch % 128 == 0 && h.scratch <= 128u * 4096 &&
                len > sizeof h + h.nparams + h.name_len + sizeof *v->auto_src * (size_t)h.nauto;
    }
    if (corrupt)
        ctx_stat_add(k->ctx, &k->ctx->stats.cache_corrupt, 0, NULL);
    ctx_stat_add(k->ctx, found ? &k->ctx->stats.cache_hits : &k->ctx->stats.cache_misses, 0, NULL);
    if (env_on("TL_PRINT_CACHE"))
        fprintf(stderr, "tl cache: %s %s [%s]%s\n", found ? "hit" : "miss", k->name, v->key,
                corrupt ? " (corrupt entry dropped)" : "");
    TlStatus s = TL_SUCCESS;
    if (found) {
        const char *p = (const char *)blob + sizeof h;
        v->nparams = (int)h.nparams, v->num_warps = (int)h.num_warps, v->shared_bytes = (int)h.shared_bytes;
        v->scratch = (int)h.scratch;
        v->dtypes = arena_alloc(&v->arena, h.nparams + 1);
        v->func_name = arena_strndup(&v->arena, p + h.nparams, h.name_len);
        if (!v->dtypes || !v->func_name || !auto_alloc(v, (int)h.nauto)) {
            s = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        } else {
            memcpy(v->dtypes, p, h.nparams);
            memcpy(v->auto_src, p + h.nparams + h.name_len, sizeof *v->auto_src * (size_t)h.nauto);
            s = load(k, v, p + h.nparams + h.name_len + sizeof *v->auto_src * (size_t)h.nauto);
            *hit = s == TL_SUCCESS;
        }
        CompileTimes times = {0};
        compile_time(&times, STAGE_LINK, &t0);
        ctx_add_times(k->ctx, &times);
    }
    free(blob);
    buf_free(&dir);
    buf_free(&key);
    return s;
}

TlStatus gpu_build(TlKernel *k, Variant *v, const CompileOptions *o) {
    gpu_bind(k->ctx);
    Buf dir = {0}, key = {0};
    Buf image = {0};
    TlStatus s = build_cubin(k, v, &image);
    if (s != TL_SUCCESS)
        goto out;
    raise_occupancy(k, v, o, &image);
    const void *cubin = image.data;
    size_t cubin_len = image.len;
    const Function *f = v->fn;
    v->nparams = f->nparams, v->num_warps = ir_launch_warps(f), v->shared_bytes = f->shared_bytes;
    v->scratch = f->global_scratch;
    v->func_name = f->name;
    v->dtypes = arena_alloc(&v->arena, (size_t)f->nparams + 1);
    if (!v->dtypes) {
        s = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    int nauto = 0;
    for (int i = 0; i < f->nparams; i++) {
        v->dtypes[i] = f->params[i].tensormap ? GPU_PARAM_TMAP : f->params[i].type.dtype;
        v->dtypes[i] |= (f->params[i].nonneg ? GPU_PARAM_NONNEG : 0) | (f->params[i].above1 ? GPU_PARAM_ABOVE1 : 0);
        nauto += f->params[i].tma.base != 0;
    }
    if (!auto_alloc(v, nauto)) {
        s = fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
        goto out;
    }
    int hs = v->scratch > 0; /* tma.c appends the maps, tma_prune the scratch after them */
    for (int i = f->nparams - nauto - hs, j = 0; i < f->nparams - hs; i++, j++) {
        const Param *p = &f->params[i];
        v->auto_src[j] = (AutoMapSource){p->tma, (int32_t)kernel_dtype_of(f->params[p->tma.base - 1].type.pointee)};
    }
    if (gpu_cache_dir(k, &dir)) {
        CubinHeader h = {(uint32_t)f->shared_bytes, (uint32_t)ir_launch_warps(f), (uint32_t)f->nparams,
                         (uint32_t)strlen(f->name), (uint32_t)nauto, (uint32_t)v->scratch};
        size_t na = sizeof *v->auto_src * (size_t)nauto, n = sizeof h + h.nparams + h.name_len + na + cubin_len;
        char *blob = malloc(n);
        if (blob) {
            memcpy(blob, &h, sizeof h);
            memcpy(blob + sizeof h, v->dtypes, h.nparams);
            memcpy(blob + sizeof h + h.nparams, f->name, h.name_len);
            memcpy(blob + sizeof h + h.nparams + h.name_len, v->auto_src, na);
            memcpy(blob + sizeof h + h.nparams + h.name_len + na, cubin, cubin_len);
            gpu_cache_key(k, v->key, &key);
            cache_put(dir.data, key.data, blob, n);
            free(blob);
        }
    }
    double t0 = compile_clock();
    s = load(k, v, cubin);
    CompileTimes times = {0};
    compile_time(&times, STAGE_LINK, &t0);
    ctx_add_times(k->ctx, &times);
out:
    buf_free(&image);
    buf_free(&dir);
    buf_free(&key);
    return s;
}

/* What ptxas gave the kernel: registers and local memory (spills, stack) per thread. */
TlStatus gpu_func_attrs(TlContext *ctx, const Variant *v, int *regs, int *local_bytes) {
    if (!v->func)
        return fail(ctx, TL_ERROR_INVALID_ARGUMENT, "%s: compiled for an arch %s cannot run, so not loaded: no "
                    "registers to report", v->func_name, ctx->name);
    gpu_bind(ctx);
    CUresult r = ctx->cu->cuFuncGetAttribute(regs, CU_FUNC_ATTRIBUTE_NUM_REGS, v->func);
    if (!r)
        r = ctx->cu->cuFuncGetAttribute(local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, v->func);
    return r ? cu_fail(ctx, r, "cuFuncGetAttribute") : TL_SUCCESS;
}

void gpu_unload(TlContext *ctx, Variant *v) {
    if (ctx->cu && v->mod) {
        gpu_bind(ctx);
        ctx->cu->cuModuleUnload(v->mod);
    }
    v->mod = NULL;
}

TlStatus gpu_synchronize(TlContext *ctx) {
    gpu_bind(ctx);
    CUresult r = ctx->stream ? ctx->cu->cuStreamSynchronize(ctx->stream) : ctx->cu->cuCtxSynchronize();
    return r ? cu_fail(ctx, r, "a kernel failed") : TL_SUCCESS;
}

TlStatus gpu_launch(TlKernel *k, Variant *v, const unsigned grid[3], const TlArg *args, int nargs, CUstream stream,
                    bool sync) {
    TlContext *ctx = k->ctx;
    if (!v->func) { /* load: a compile-only target */
        const PtxArch *t = target_of(k);
        return fail(ctx, TL_ERROR_LAUNCH, "%s was compiled for %s, which %s (compute capability %d.%d) cannot run; "
                    "compile it for this device's arch to launch it", k->name, t->name, ctx->name, ctx->cc / 10,
                    ctx->cc % 10);
    }
    gpu_bind(ctx);
    for (int i = 0; i < 3; i++)
        if (grid[i] > ctx->max_grid[i])
            return fail(ctx, TL_ERROR_LAUNCH, "%s: grid dimension %d is %u; the device allows %u", k->name, i,
                        grid[i], ctx->max_grid[i]);
    /* Each slot holds the value in the parameter's own type, at its start; a
     * tensor map's parameter is its 128 bytes, which the driver copies */
    static const _Alignas(64) uint8_t no_map[128];
    for (int i = 0; i < nargs; i++) {
        void *s = &v->slots[i];
        const TlArg *a = &args[i];
        if (v->dtypes[i] == GPU_PARAM_TMAP) {
            bool have = k->tensor_maps && a->v.i >= 0 && a->v.i < k->tensor_maps_cap;
            v->params[i] = have ? (char *)k->tensor_maps + 128 * (size_t)a->v.i : (void *)no_map;
            continue;
        }
        switch (v->dtypes[i] & ~GPU_PARAM_FLAGS) {
        case DT_PTR: *(CUdeviceptr *)s = a->kind == TL_ARG_POINTER ? a->v.p.addr : a->v.buffer->dptr; break;
        case DT_I64: case DT_U64: *(int64_t *)s = a->v.i; break;
        case DT_I32: case DT_U32: *(int32_t *)s = (int32_t)a->v.i; break;
        case DT_I16: case DT_U16: *(int16_t *)s = (int16_t)a->v.i; break;
        case DT_I8: case DT_U8: case DT_I1: *(int8_t *)s = (int8_t)a->v.i; break;
        case DT_F64: *(double *)s = a->v.f; break;
        /* fp16 / bf16 parameters are 2-byte .param values: their bits, rounded to nearest even */
        case DT_F16: *(uint16_t *)s = interp_f32_to_f16_bits((float)a->v.f); break;
        case DT_BF16: *(uint16_t *)s = interp_f32_to_bf16_bits((float)a->v.f); break;
        default: *(float *)s = (float)a->v.f; break;
        }
    }
    const CudaApi *cu = ctx->cu;
    /* the tensor maps the programs make: a place for each program's, taken
     * and given back in the stream's order, so that launches on other
     * streams (and a CUDA graph's capture) have their own */
    CUdeviceptr scratch = 0;
    if (v->scratch) {
        if (!cu->cuMemAllocAsync || !cu->cuMemFreeAsync)
            return fail(ctx, TL_ERROR_LAUNCH, "%s makes tensor maps in its global scratch, and the CUDA driver lacks "
                        "cuMemAllocAsync (CUDA 11.2+)", k->name);
        size_t bytes = (size_t)grid[0] * grid[1] * grid[2] * (size_t)v->scratch;
        CUmemoryPool pool = ctx->scratch_pool; /* (load made it) */
        CUresult r = pool ? cu->cuMemAllocFromPoolAsync(&scratch, bytes ? bytes : 1, pool, stream)
                          : cu->cuMemAllocAsync(&scratch, bytes ? bytes : 1, stream);
        if (r)
            return cu_fail(ctx, r, pool ? "cuMemAllocFromPoolAsync (the kernel's global scratch)"
                                        : "cuMemAllocAsync (the kernel's global scratch)");
        v->slots[v->nparams - 1] = (uint64_t)scratch;
    }
    CUresult r = cu->cuLaunchKernel(v->func, grid[0], grid[1], grid[2], 32u * (unsigned)v->num_warps, 1, 1,
                                    (unsigned)v->shared_bytes, stream, v->params, NULL);
    if (scratch) {
        CUresult fr = cu->cuMemFreeAsync(scratch, stream);
        r = r ? r : fr;
    }
    TlStatus st = TL_SUCCESS;
    if (r)
        st = cu_fail(ctx, r, "cuLaunchKernel");
    else if (sync && (r = stream ? cu->cuStreamSynchronize(stream) : cu->cuCtxSynchronize()))
        st = cu_fail(ctx, r, "a kernel failed");
    return st;
}

/* ---- for autotuning ---- */

TlStatus gpu_event_pair(TlContext *ctx, CUevent ev[2], bool create) {
    gpu_bind(ctx);
    const CudaApi *cu = ctx->cu;
    if (!create) {
        for (int i = 0; i < 2; i++)
            if (ev[i])
                cu->cuEventDestroy(ev[i]);
        return TL_SUCCESS;
    }
    ev[0] = ev[1] = NULL;
    CUresult r = cu->cuEventCreate(&ev[0], CU_EVENT_DEFAULT);
    if (!r)
        r = cu->cuEventCreate(&ev[1], CU_EVENT_DEFAULT);
    return r ? cu_fail(ctx, r, "cuEventCreate") : TL_SUCCESS;
}

TlStatus gpu_record(TlContext *ctx, CUevent ev, CUstream stream) {
    CUresult r = ctx->cu->cuEventRecord(ev, stream);
    return r ? cu_fail(ctx, r, "cuEventRecord") : TL_SUCCESS;
}

TlStatus gpu_elapsed_ms(TlContext *ctx, CUevent ev[2], float *ms) {
    CUresult r = ctx->cu->cuEventSynchronize(ev[1]);
    if (!r)
        r = ctx->cu->cuEventElapsedTime(ms, ev[0], ev[1]);
    return r ? cu_fail(ctx, r, "timing a kernel") : TL_SUCCESS;
}

TlStatus gpu_mem(TlContext *ctx, CUdeviceptr *p, size_t bytes, bool alloc) {
    gpu_bind(ctx);
    if (!alloc) {
        if (*p)
            ctx->cu->cuMemFree(*p);
        *p = 0;
        return TL_SUCCESS;
    }
    CUresult r = ctx->cu->cuMemAlloc(p, bytes ? bytes : 1);
    return r ? cu_fail(ctx, r, "cuMemAlloc") : TL_SUCCESS;
}

TlStatus gpu_memcpy(TlContext *ctx, CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    CUresult r = ctx->cu->cuMemcpyDtoD(dst, src, bytes);
    return r ? cu_fail(ctx, r, "cuMemcpyDtoD") : TL_SUCCESS;
}

TlStatus gpu_zero(TlContext *ctx, CUdeviceptr p, size_t bytes) {
    CUresult r = ctx->cu->cuMemsetD8(p, 0, bytes);
    return r ? cu_fail(ctx, r, "cuMemsetD8") : TL_SUCCESS;
}

/* ---- tensor descriptors: TMA's CUtensorMap ---- */

/* CUtensorMapDataType of each TlDType (TMA moves bits: i1 as bytes). */
static int tma_dtype(TlDType dt) {
    switch (dt) {
    case TL_I1: case TL_I8: case TL_U8: case TL_F8E4M3: case TL_F8E5M2: case TL_F8E4B15:
        return 0; /* UINT8 (bits) */
    case TL_I16: case TL_U16: return 1;             /* UINT16 */
    case TL_U32: return 2;
    case TL_I32: return 3;
    case TL_U64: return 4;
    case TL_I64: return 5;
    case TL_F16: return 6;
    case TL_F32: return 7;
    case TL_F64: return 8;
    case TL_BF16: return 9;
    }
    return -1;
}

/* One CUtensorMap, encoded as TMA will read it: dims innermost first, byte
 * strides of the outer dims, the block as the box (each dim capped at TMA's
 * 256), the widest swizzle the box's inner row allows (arch.h: the one the
 * kernel's rings assume), zero or NaN fill. Shape, strides (in elements) and
 * block outermost first. */
static CUresult encode_map(const CudaApi *cu, void *map, TlDType dt, int r, uint64_t base, const int64_t *shape,
                           const int64_t *strides_in, const int32_t *block, bool nan) {
    uint64_t es = tl_dtype_size(dt), dims[TL_TENSORDESC_MAX_RANK], strides[TL_TENSORDESC_MAX_RANK];
    unsigned box[TL_TENSORDESC_MAX_RANK], estr[TL_TENSORDESC_MAX_RANK];
    for (int j = 0; j < r; j++) {
        int src = r - 1 - j; /* TMA counts dims from the innermost */
        dims[j] = (uint64_t)shape[src];
        box[j] = (unsigned)(block[src] > 256 ? 256 : block[src]);
        estr[j] = 1;
        if (j)
            strides[j - 1] = (uint64_t)strides_in[src] * es;
    }
    int sw = arch_tma_swizzle((int)es, block[r - 1]);
    if (sw)
        box[0] = (unsigned)(sw / (int)es);
    int swizzle = sw == 32 ? 1 : sw == 64 ? 2 : sw == 128 ? 3 : 0;
    return cu->cuTensorMapEncodeTiled(map, tma_dtype(dt), (unsigned)r, (void *)(uintptr_t)base, dims, strides, box,
                                      estr, 0, swizzle, 2 /* L2 128B */, nan ? 1 : 0);
}

/* One 128-byte, 64-byte aligned CUtensorMap per descriptor argument (as
 * encode_map says). The launch checks (api.c) make every descriptor
 * encodable; a failure is logged, not fatal, while no kernel reads the maps. */
TlStatus gpu_encode_tensor_maps(TlKernel *k, const TlArg *args, int nargs) {
    const CudaApi *cu = k->ctx->cu;
    if (!cu->cuTensorMapEncodeTiled)
        return TL_SUCCESS;
    int n = 0;
    for (int i = 0; i < nargs; i++)
        n += args[i].kind == TL_ARG_TENSORDESC;
    if (!n)
        return TL_SUCCESS;
    if (n > k->tensor_maps_cap) {
        free(k->tensor_maps);
        k->tensor_maps = aligned_alloc(64, 128 * (size_t)n);
        k->tensor_maps_cap = k->tensor_maps ? n : 0;
        if (!k->tensor_maps)
            return fail(k->ctx, TL_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (int i = 0, m = 0; i < nargs; i++) {
        const TlTensorDesc *d = args[i].kind == TL_ARG_TENSORDESC ? args[i].v.desc : NULL;
        if (!d)
            continue;
        TlDType dt = d->buffer && !d->dtype ? d->buffer->dtype : d->dtype;
        int r = d->rank;
        void *map = (char *)k->tensor_maps + 128 * (size_t)m++;
        uint64_t base = d->buffer ? d->buffer->dptr : d->addr;
        CUresult res = encode_map(cu, map, dt, r, base, d->shape, d->strides, d->block_shape, d->padding_nan);
        if (res) {
            /* a 2-D map may be the kernel's TMA source (pipeline.c): no launch
             * without it; other ranks are only logged, their maps zeros */
            Buf m2 = {0};
            cuda_describe(cu, res, &m2);
            TlStatus s = TL_SUCCESS;
            if (r == 2)
                s = fail(k->ctx, TL_ERROR_LAUNCH, "%s: argument %d: cuTensorMapEncodeTiled failed: %s", k->name, i + 1,
                         m2.data ? m2.data : "?");
            else if (!strstr(k->log.data ? k->log.data : "", "cuTensorMapEncodeTiled failed"))
                buf_printf(&k->log, "%s: argument %d: cuTensorMapEncodeTiled failed: %s\n", k->name, i + 1,
                           m2.data ? m2.data : "?");
            buf_free(&m2);
            memset(map, 0, 128);
            if (s != TL_SUCCESS)
                return s;
            continue;
        }
        ctx_stat_add(k->ctx, &k->ctx->stats.tensor_maps, 0, NULL);
    }
    return TL_SUCCESS;
}

/* An automatic map's entry (TmaSource): a parameter's value, or -constant. */
static int64_t auto_value(const TlArg *args, int nargs, int32_t e) {
    return e < 0 ? -(int64_t)e : e - 1 < nargs ? args[e - 1].v.i : 0;
}

/* A bound times its factors (TmaSource.dim[d][1..2]; 0: none), or 0 where the
 * product leaves what TMA takes (2^32). */
static int64_t auto_bound(const TlArg *args, int nargs, const int32_t dim[3]) {
    int64_t v = auto_value(args, nargs, dim[0]);
    for (int i = 1; i < 3 && dim[i]; i++) {
        int64_t f = auto_value(args, nargs, dim[i]);
        if (v < 1 || f < 1 || v > ((int64_t)1 << 32) / f)
            return 0;
        v *= f;
    }
    return v;
}

TlStatus gpu_encode_auto_maps(TlKernel *k, Variant *v, const TlArg *args, int nargs, bool *ok) {
    const CudaApi *cu = k->ctx->cu;
    *ok = cu->cuTensorMapEncodeTiled != NULL;
    for (int i = 0; i < nargs && i < v->nparams; i++) /* what the proofs took as >= 0, >= 2 */
        if (((v->dtypes[i] & GPU_PARAM_NONNEG) && args[i].v.i < 0) || ((v->dtypes[i] & GPU_PARAM_ABOVE1) && args[i].v.i < 2))
            *ok = false;
    for (int j = 0; j < v->nauto && *ok; j++) {
        const TmaSource *src = &v->auto_src[j].tma;
        const TlArg *b = src->base - 1 < nargs ? &args[src->base - 1] : NULL;
        if (!b || (b->kind != TL_ARG_BUFFER && b->kind != TL_ARG_POINTER)) {
            *ok = false;
            break;
        }
        int64_t now[4] = {(int64_t)(b->kind == TL_ARG_POINTER ? b->v.p.addr : b->v.buffer->dptr),
                          auto_bound(args, nargs, src->dim[0]), auto_bound(args, nargs, src->dim[1]),
                          auto_value(args, nargs, src->stride)};
        if (!memcmp(now, v->auto_last[j], sizeof now))
            continue; /* the map of the last launch still holds */
        /* bounds below 1 (every element masked off) and strides TMA cannot
         * take run the variant without automatic maps */
        if (now[1] < 1 || now[2] < 1 || now[3] < 1) {
            *ok = false;
            break;
        }
        int64_t shape[2] = {now[1], now[2]}, strides[2] = {now[3], 1};
        CUresult r = encode_map(cu, (char *)v->auto_maps + 128 * (size_t)j, (TlDType)v->auto_src[j].dtype, 2,
                                (uint64_t)now[0], shape, strides, src->box, false);
        *ok = r == 0;
        if (*ok) {
            memcpy(v->auto_last[j], now, sizeof now);
            ctx_stat_add(k->ctx, &k->ctx->stats.tensor_maps, 0, NULL);
        }
        else
            memset(v->auto_last[j], 0, sizeof now);
    }
    return TL_SUCCESS;
}
