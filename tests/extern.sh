# tests/extern.sh: libdevice linking and inline assembly on the GPU back end
# (sourced by tests/run.sh).
#   extern/libdevice_link     tests/extern/asin.tl (tutorial 07's kernel) with a stand-in
#                             libdevice (tests/extern/fake_libdevice.c, compiled by clang for
#                             nvptx64): its code is inlined, nvvm_reflect answers FTZ = 0,
#                             the unused function is dropped, ptxas accepts the PTX
#   extern/libdevice_calls    tests/extern/libdevice_calls.tl: libdevice functions of every
#                             argument and result kind reach the LLVM IR as calls of their
#                             __nv_ symbols with libdevice's types (fp32/fp64, i32 for uint32,
#                             i64 for uint64, the int order of jn, four arguments of norm4d)
#   extern/libdevice_missing  with TL_LIBDEVICE unreadable: a source error at the call
#   extern/inline_asm         tests/extern/inline_asm.tl compiles for sm_80 and sm_90, the
#                             asm is there once per group of `pack` elements, ptxas accepts it
ex_ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
[ -x "$ex_ptxas" ] || ex_ptxas=""

if want extern/libdevice_link; then
    log=$T/extern_link.log ok=0
    : > $log
    if ! ${CLANG:-clang} --target=nvptx64-nvidia-cuda -O2 -nostdlib -emit-llvm -c tests/extern/fake_libdevice.c \
            -o $T/fake_libdevice.bc >> $log 2>&1; then
        echo "clang cannot build the stand-in libdevice" >> $log; ok=1
    fi
    for a in sm_80 sm_90; do
        [ $ok = 0 ] || break
        out=$T/extern_asin.$a.ptx
        TL_LIBDEVICE=$T/fake_libdevice.bc NO_COLOR=1 $TLC tests/extern/asin.tl --arch $a \
            --signature '*fp32:16, *fp32:16, i32, 1024' -o $out >> $log 2>&1 || { echo "$a: tlc failed" >> $log; ok=1; continue; }
        grep -q "fma.rn.f32.*0f40400000, 0f3E000000" $out || { echo "$a: no inlined asinf (x * 3 + 0.125)" >> $log; ok=1; }
        grep -q "0fBF000000" $out || { echo "$a: no inlined tanhf with FTZ = 0 (x - 0.5)" >> $log; ok=1; }
        ! grep -qE "call|0f449A4000|0f429A0000|__nv_" $out || { echo "$a: a call, FTZ = 1 or the unused function" >> $log; ok=1; }
        [ -z "$ex_ptxas" ] || "$ex_ptxas" -arch=$a $out -o /dev/null >> $log 2>&1 || { echo "$a: ptxas failed" >> $log; ok=1; }
    done
    report extern/libdevice_link $ok $log
fi

if want extern/libdevice_calls; then
    log=$T/extern_calls.log ok=0
    : > $log
    if ! ${CLANG:-clang} --target=nvptx64-nvidia-cuda -O2 -nostdlib -emit-llvm -c tests/extern/fake_libdevice.c \
            -o $T/fake_libdevice_calls.bc >> $log 2>&1; then
        echo "clang cannot build the stand-in libdevice" >> $log; ok=1
    elif ! TL_LIBDEVICE=$T/fake_libdevice_calls.bc NO_COLOR=1 $TLC tests/extern/libdevice_calls.tl --emit=llvm \
            --signature '*fp32:16, *fp64:16, *i32:16, *u32:16, *i64:16, i32, 256' -o $T/extern_calls.ll >> $log 2>&1; then
        echo "tlc failed" >> $log; ok=1
    else
        while IFS= read -r d; do
            grep -qF "declare $d" $T/extern_calls.ll || { echo "missing: declare $d" >> $log; ok=1; }
        done <<'DECLS'
float @__nv_fadd_rz(float, float)
float @__nv_fmaf_ru(float, float, float)
float @__nv_jnf(i32, float)
float @__nv_uint_as_float(i32)
float @__nv_norm4df(float, float, float, float)
float @__nv_fast_powf(float, float)
double @__nv_ddiv_rd(double, double)
double @__nv_hiloint2double(i32, i32)
double @__nv_rcp64h(double)
double @__nv_erfcinv(double)
i64 @__nv_float2ull_rz(float)
i64 @__nv_llround(double)
i64 @__nv_double_as_longlong(double)
i32 @__nv_byte_perm(i32, i32, i32)
i32 @__nv_sad(i32, i32, i32)
i32 @__nv_double2uint_rd(double)
i32 @__nv_float_as_int(float)
i32 @__nv_umul24(i32, i32)
i32 @__nv_urhadd(i32, i32)
DECLS
        # integer -> float in a rounding mode: the cvt itself (llvm_extern.c)
        for a in 'cvt.rm.f32.s64 $0, $1;' 'cvt.rp.f64.u64 $0, $1;'; do
            grep -qF "asm \"$a\"" $T/extern_calls.ll || { echo "missing: asm \"$a\"" >> $log; ok=1; }
        done
        grep -qF '@__nv_ll2float_rd' $T/extern_calls.ll && { echo "__nv_ll2float_rd still called" >> $log; ok=1; }
    fi
    report extern/libdevice_calls $ok $log
fi

if want extern/libdevice_missing; then
    log=$T/extern_missing.log
    TL_LIBDEVICE=/nonexistent/libdevice.10.bc NO_COLOR=1 $TLC tests/extern/asin.tl \
        --signature '*fp32:16, *fp32:16, i32, 1024' -o /dev/null > $log 2>&1
    rc=$? ok=0
    [ $rc = 1 ] || { echo "exit $rc, want 1" >> $log; ok=1; }
    grep -qF "tests/extern/asin.tl:14:9: error: libdevice.asin needs NVIDIA's libdevice.10.bc, but TL_LIBDEVICE=/nonexistent/libdevice.10.bc cannot be read" $log ||
        { echo "missing the libdevice error" >> $log; ok=1; }
    report extern/libdevice_missing $ok $log
fi

if want extern/inline_asm; then
    log=$T/extern_asm.log ok=0
    : > $log
    for a in sm_80 sm_90; do
        out=$T/extern_asm.$a.ptx
        NO_COLOR=1 $TLC tests/extern/inline_asm.tl --arch $a --signature '*u8:16, *fp32:16, *i32:16, *fp32:16, 512' \
            -o $out >> $log 2>&1 || { echo "$a: tlc failed" >> $log; ok=1; continue; }
        # 512 elements over 128 threads: 4 per thread, one pack=4 statement and 4 pack=1 ones
        [ "$(grep -c 'mov.b32 {tmp0, tmp1, tmp2, tmp3}' $out)" = 1 ] || { echo "$a: want one pack=4 statement" >> $log; ok=1; }
        [ "$(grep -c 'cvt.rn.f32.s32' $out)" = 4 ] || { echo "$a: want 4 conversions" >> $log; ok=1; }
        [ -z "$ex_ptxas" ] || "$ex_ptxas" -arch=$a $out -o /dev/null >> $log 2>&1 || { echo "$a: ptxas failed" >> $log; ok=1; }
    done
    report extern/inline_asm $ok $log
fi
