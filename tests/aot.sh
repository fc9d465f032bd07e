# tests/aot.sh: tlc --emit=c and --emit=cubin (sourced by tests/run.sh).
#
# The generated C is compiled with cc -Werror (C99, and the header as C++),
# linked into tests/aot/host.c and run with no driver (a clear status), then
# against tests/aot/fake_cuda.c, a stand-in libcuda that records what the
# launcher asks for, at several compute capabilities. --emit=cubin runs a
# fake ptxas (tests/aot/fake_ptxas.sh). A real GPU runs the same files in
# tests/gpu.sh (tests/aot/gpu.c).
A=$T/aot aot_fail_before=$fail
rm -rf $A && mkdir -p $A/ptx $A/cubin $A/tmp
AOT_CC=${CC:-cc}
COPY_SIG="*fp32, *fp32, i32, 1024"
SCALARS_SIG="*fp64, i1, i8, i16, i32, i64, u32, fp16, bf16, fp32, fp64"
MM_SIG="*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, 128, 128, 128, 8, 'relu'"

aot_gen() { # name dir log tlc-args...: generate DIR/NAME.c and .h, and compile them
    local name=$1 dir=$2 log=$3; shift 3
    NO_COLOR=1 $TLC --emit=c "$@" -o $dir/$name.c > $log 2>&1 || { echo "tlc failed" >> $log; return 1; }
    [ -s $dir/$name.c ] && [ -s $dir/$name.h ] || { echo "no $name.c / $name.h" >> $log; return 1; }
    $AOT_CC -std=c99 -pedantic -Wall -Wextra -Werror -c $dir/$name.c -o $dir/$name.o >> $log 2>&1 || return 1
}

if want aot/; then
    log=$A/gen.log
    aot_gen copy $A/ptx $log examples/copy.tl --signature "$COPY_SIG" --arch sm_80,sm_90
    report "aot/generate_copy_two_archs" $? $log
    aot_gen scalars $A/ptx $log tests/aot/scalars.tl --signature "$SCALARS_SIG"
    report "aot/generate_scalars" $? $log
    aot_gen mm $A/ptx $log examples/matmul_fwd.tl --signature "$MM_SIG" --num-warps 8
    report "aot/generate_matmul_large_shared" $? $log
    # the same copy with cubins from the fake ptxas
    TL_PTXAS=$PWD/tests/aot/fake_ptxas.sh aot_gen copy $A/cubin $log examples/copy.tl --signature "$COPY_SIG" \
        --arch sm_80,sm_90 --embed=cubin
    report "aot/generate_copy_cubin" $? $log

    # The header is C++ too, and two generated files link into one program.
    echo '#include "copy.h"
#include "scalars.h"
#include "mm.h"
int main() { return copy_k_select(0, 0, 1) < 0; }' > $A/cxx.cc
    ${CXX:-c++} -Wall -Wextra -Werror -I$A/ptx -c $A/cxx.cc -o $A/cxx.o > $A/cxx.log 2>&1
    report "aot/header_is_cxx" $? $A/cxx.log

    $AOT_CC -shared -fPIC -O1 -o $A/fake_cuda.so tests/aot/fake_cuda.c > $A/build.log 2>&1 &&
        $AOT_CC -std=gnu11 -O1 -Wall -Wextra -Werror -I$A/ptx -o $A/host tests/aot/host.c $A/ptx/*.o -ldl -lpthread -lm \
            >> $A/build.log 2>&1 &&
        $AOT_CC -std=gnu11 -O1 -Wall -Wextra -Werror -I$A/cubin -I$A/ptx -o $A/host_cubin tests/aot/host.c \
            $A/cubin/copy.o $A/ptx/scalars.o $A/ptx/mm.o -ldl -lpthread -lm >> $A/build.log 2>&1
    report "aot/build_host_programs" $? $A/build.log

    aot_run() { # label env... -- host-args...
        local lbl=$1 log=$A/run_$1.log; shift
        env "$@" > $log 2>&1
        local rc=$?
        count_lines $log aot
        grep -q "^\[PASS\]" $log && [ $rc -le 1 ] || report "aot/$lbl (exit $rc)" 1 $log
    }
    if [ -x $A/host ]; then
        aot_run nodriver TL_LIBCUDA=$A/no/libcuda.so.1 $A/host nodriver
        for cc_arch in 90:sm_90 86:sm_80 89:sm_80 100:sm_90 75:none; do
            aot_run ptx_cc${cc_arch%%:*} TL_LIBCUDA=$A/fake_cuda.so FAKE_CC=${cc_arch%%:*} \
                $A/host fake ${cc_arch#*:} ptx_cc${cc_arch%%:*}/
        done
        # a cubin runs only within its major version: no sm_90 cubin on a 10.0 GPU
        for cc_arch in 90:sm_90 86:sm_80 100:none; do
            aot_run cubin_cc${cc_arch%%:*} TL_LIBCUDA=$A/fake_cuda.so FAKE_CC=${cc_arch%%:*} \
                $A/host_cubin fake ${cc_arch#*:} cubin_cc${cc_arch%%:*}/
        done
    fi
fi

# The C API's option strings take -O like tlc.
if want aot/api_options; then
    log=$A/api_options.log
    $AOT_CC -std=gnu11 -Wall -Wextra -Werror -Iruntime -o $A/api_options tests/aot/api_options.c -Lbuild/lib -ltl \
        -Wl,-rpath,$PWD/build/lib > $log 2>&1 && TL_INTERPRET=1 $A/api_options >> $log 2>&1
    rc=$?
    count_lines $log aot
    grep -q "^\[PASS\]" $log && [ $rc -le 1 ] || report "aot/api_options (exit $rc)" 1 $log
fi

# Errors of --emit=c: exit code, the exact message, and no files written.
aot_error() { # name want-rc message tlc-args...
    local name=$1 want_rc=$2 msg=$3 log=$A/err_$1.log; shift 3
    want "aot/$name" || return 0
    rm -f $A/err.c $A/err.h
    NO_COLOR=1 $TLC "$@" > $log 2>&1
    local rc=$? ok=0
    [ $rc = $want_rc ] || { echo "exit $rc, want $want_rc" >> $log; ok=1; }
    grep -qF -- "$msg" $log || { echo "missing: $msg" >> $log; ok=1; }
    [ ! -e $A/err.c ] && [ ! -e $A/err.h ] || { echo "files written" >> $log; ok=1; }
    report "aot/$name" $ok $log
}
aot_error emit_c_needs_dot_c 2 "-o must name the .c file, not '$A/err.h'" \
    --emit=c examples/copy.tl --signature "$COPY_SIG" -o $A/err.h
aot_error emit_c_stdin_needs_o 2 "--emit=c from standard input needs -o NAME.c" --emit=c - < examples/copy.tl
aot_error several_archs_need_emit_c 2 "several architectures in --arch need --emit=c" \
    examples/copy.tl --signature "$COPY_SIG" --arch sm_80,sm_90
aot_error arch_list_checked 2 "unsupported --arch 'sm_60'" --emit=c examples/copy.tl --arch sm_80,sm_60 -o $A/err.c
aot_error arch_list_twice 2 "--arch lists sm_80 twice" --emit=c examples/copy.tl --arch sm_80,sm_80 -o $A/err.c
aot_error embed_needs_emit_c 2 "--embed is for --emit=c" --embed=cubin examples/copy.tl --signature "$COPY_SIG"
aot_error bad_embed 2 "unknown --embed form 'elf'" --embed=elf --emit=c examples/copy.tl
aot_error emit_c_source_error 1 "needs a signature for parameter 'x_ptr'" --emit=c examples/copy.tl -o $A/err.c
# --embed=cubin with no assembler: the --emit=cubin message
PATH=/usr/bin:/bin TL_PTXAS= TL_LIBCUDA=$A/no/libcuda.so.1 aot_error embed_cubin_no_tool 2 \
    "--emit=cubin needs ptxas (in PATH or \$TL_PTXAS) or a CUDA driver; neither was found" \
    --emit=c --embed=cubin examples/copy.tl --signature "$COPY_SIG" -o $A/err.c

# --emit=cubin: no assembler at all; a fake ptxas checked for its arguments
# and output handling; a ptxas that fails.
if want aot/cubin; then
    log=$A/cubin_none.log
    NO_COLOR=1 PATH=/usr/bin:/bin TL_PTXAS= TL_LIBCUDA=$A/no/libcuda.so.1 $TLC --emit=cubin examples/copy.tl \
        --signature "$COPY_SIG" -o $A/none.cubin > $log 2>&1
    rc=$? ok=0
    [ $rc = 2 ] || { echo "exit $rc, want 2" >> $log; ok=1; }
    [ "$(cat $log)" = "tlc: error: --emit=cubin needs ptxas (in PATH or \$TL_PTXAS) or a CUDA driver; neither was found
tlc: note: cannot load the CUDA driver ($A/no/libcuda.so.1: cannot open shared object file: No such file or directory)" ] ||
        ok=1
    [ ! -e $A/none.cubin ] || { echo "wrote a cubin" >> $log; ok=1; }
    report "aot/cubin_needs_ptxas_or_driver" $ok $log

    log=$A/cubin_fake.log
    mkdir -p $A/bin && cp tests/aot/fake_ptxas.sh $A/bin/ptxas
    $TLC examples/copy.tl --signature "$COPY_SIG" --arch sm_80 > $A/copy80.ptx 2> $log
    printf 'FAKE-CUBIN -arch=sm_80\n' | cat - $A/copy80.ptx > $A/copy80.want
    # found in PATH, with TMPDIR honoured and cleaned up
    rm -f $A/ptxas.args
    PATH=$A/bin:$PATH TL_PTXAS= TMPDIR=$A/tmp FAKE_PTXAS_LOG=$A/ptxas.args $TLC --emit=cubin examples/copy.tl \
        --signature "$COPY_SIG" --arch sm_80 -o $A/copy80.cubin >> $log 2>&1
    rc=$? ok=0
    [ $rc = 0 ] || { echo "exit $rc" >> $log; ok=1; }
    cmp $A/copy80.want $A/copy80.cubin >> $log 2>&1 || ok=1
    grep -qx -- "-arch=sm_80 -o $A/tmp/tl-ptxas-[A-Za-z0-9]*/kernel.cubin $A/tmp/tl-ptxas-[A-Za-z0-9]*/kernel.ptx" $A/ptxas.args ||
        { echo "ptxas arguments: $(cat $A/ptxas.args)" >> $log; ok=1; }
    [ -z "$(ls $A/tmp)" ] || { echo "left in TMPDIR: $(ls $A/tmp)" >> $log; ok=1; }
    report "aot/cubin_ptxas_in_path" $ok $log

    # $TL_PTXAS wins over PATH; the default arch is sm_90; stdout when no -o
    log=$A/cubin_env.log
    $TLC examples/copy.tl --signature "$COPY_SIG" > $A/copy90.ptx 2> $log
    printf 'FAKE-CUBIN -arch=sm_90\n' | cat - $A/copy90.ptx > $A/copy90.want
    PATH=/usr/bin:/bin TL_PTXAS=$PWD/tests/aot/fake_ptxas.sh $TLC --emit=cubin examples/copy.tl \
        --signature "$COPY_SIG" > $A/copy90.cubin 2>> $log
    rc=$?
    [ $rc = 0 ] && cmp $A/copy90.want $A/copy90.cubin >> $log 2>&1
    report "aot/cubin_tl_ptxas_stdout" $? $log

    log=$A/cubin_fail.log
    FAKE_PTXAS_FAIL=1 TL_PTXAS=$PWD/tests/aot/fake_ptxas.sh $TLC --emit=cubin examples/copy.tl \
        --signature "$COPY_SIG" -o $A/fail.cubin > $log 2>&1
    rc=$? ok=0
    [ $rc = 4 ] || { echo "exit $rc, want 4" >> $log; ok=1; }
    grep -q "^ptxas fatal   : fake failure" $log && grep -q "^tlc: error: ptxas '.*' rejected the PTX for sm_90 (exit status 1)" $log ||
        ok=1
    [ ! -e $A/fail.cubin ] || { echo "wrote a cubin" >> $log; ok=1; }
    report "aot/cubin_ptxas_fails" $ok $log

    log=$A/cubin_bad_env.log
    TL_PTXAS=$A/no/ptxas $TLC --emit=cubin examples/copy.tl --signature "$COPY_SIG" -o $A/bad.cubin > $log 2>&1
    rc=$?
    [ $rc = 2 ] && grep -q "^tlc: error: cannot run ptxas '$A/no/ptxas': No such file or directory" $log
    report "aot/cubin_bad_tl_ptxas" $? $log
fi

# A real ptxas, where there is one: every arch's cubin is an ELF file for that
# SM, and every specialisation of the AOT kernels assembles.
if want aot/ptxas && command -v ptxas > /dev/null; then
    for arch in sm_80 sm_86 sm_89 sm_90 sm_90a; do
        log=$A/ptxas_$arch.log sm=${arch#sm_}
        sm=${sm%a}
        TL_PTXAS= $TLC --emit=cubin examples/copy.tl --signature "$COPY_SIG" --arch $arch -o $A/real_$arch.cubin > $log 2>&1
        rc=$?
        magic=$(head -c 4 $A/real_$arch.cubin 2> /dev/null | od -An -tx1 | tr -d ' ')
        flags=$(od -An -tu1 -j48 -N2 $A/real_$arch.cubin 2> /dev/null) # e_flags' SM byte: the first (old ABI) or second
        echo "exit $rc, magic $magic, e_flags bytes $flags" >> $log
        [ $rc = 0 ] && [ "$magic" = 7f454c46 ] && case " $(echo $flags) " in *" $sm "*) true ;; *) false ;; esac
        report "aot/ptxas_cubin_$arch" $? $log
    done
    mkdir -p $A/real
    TL_PTXAS= aot_gen copy $A/real $A/real.log examples/copy.tl --signature "$COPY_SIG" --arch sm_80,sm_90a --embed=cubin
    report "aot/ptxas_embed_copy_every_variant" $? $A/real.log
    TL_PTXAS= aot_gen scalars $A/real $A/real.log tests/aot/scalars.tl --signature "$SCALARS_SIG" --embed=cubin
    report "aot/ptxas_embed_scalars" $? $A/real.log
    TL_PTXAS= aot_gen mm $A/real $A/real.log examples/matmul_fwd.tl --signature "$MM_SIG" --num-warps 8 \
        --arch sm_80,sm_90 --embed=cubin
    report "aot/ptxas_embed_matmul" $? $A/real.log
elif want aot/ptxas; then
    echo "(aot/ptxas checks skipped: no ptxas in PATH)"
fi

# What was built here is only kept for debugging a failure.
[ $fail = $aot_fail_before ] && rm -rf $A
