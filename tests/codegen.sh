# tests/codegen.sh: the GPU back end, LLVM IR and PTX (sourced by tests/run.sh).
#
#   tests/codegen/*.tl          "# RUN(PREFIX): ARGS" lines: `tlc FILE ARGS` must succeed and
#                               FileCheck --check-prefix=PREFIX must accept its output
#                               (PTX by default, --emit=llvm for LLVM IR)
#   tests/codegen/*.tir         the same for IR text: `tlc --ir-in FILE ARGS`
#   tests/codegen/errors/*.tl   "# RUN-ARGS: ARGS" and "# expect: LINE:COL: error: MESSAGE":
#                               tlc must exit 1 with every expected diagnostic
#   codegen/harness/*           tests/codegen/harness.c builds kernels by hand (IR plus
#                               layouts, no front end): each must compile for sm_80 and
#                               sm_90 and pass ptxas; a few FileCheck their output
#   codegen/example/*           every examples/*.tl kernel with the signatures the example
#                               programs use compiles for sm_80, sm_90 and sm_90a (wgmma), and the
#                               older sm_70 (FMA dots) and sm_100a (sm_90's code), ptxas accepts
#                               the PTX, and compiling twice gives identical bytes; with
#                               -lineinfo, the PTX less its line directives is the PTX without
# Without ptxas (/usr/local/cuda/bin/ptxas, or $PTXAS) the ptxas steps are skipped
# with a note. tests/codegen/gpu_check.py runs the harness kernels and examples on a
# GPU (see its header); it is not part of this CPU suite.

cg_fc=${FILECHECK:-/usr/lib/llvm-19/bin/FileCheck}
cg_ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
cg_h=$T/codegen_harness
cg_run_h() { ASAN_OPTIONS=detect_leaks=0 $cg_h "$@"; } # LLVM's own allocations outlive main
[ -x "$cg_ptxas" ] || { echo "note: no ptxas at $cg_ptxas: codegen tests skip the ptxas steps"; cg_ptxas=""; }

# ptxas -arch=ARCH on a PTX file; ok when ptxas is missing. A ptxas without
# the arch (CUDA 13 has no sm_70) assembles for the oldest it has: it still
# checks every instruction against the file's own .target.
cg_ptxas_ok() { # ptx arch log
    [ -z "$cg_ptxas" ] && return 0
    local a=$2
    "$cg_ptxas" --help | grep -q "'$a'" || a=$("$cg_ptxas" --help | grep -o "'sm_[0-9]*'" | tr -d "'" | sort -t_ -k2 -n | head -1)
    "$cg_ptxas" -arch=$a "$1" -o /dev/null >> "$3" 2>&1
}

# ---- tests/codegen/*.tl: FileCheck on tlc's output ----
cg_filecheck() { # file
    local f=$1 n=codegen/$(basename "$1" .tl) log=$T/codegen_$(basename "$1").log ok=0 line prefix args
    local -a ir=()
    case "$f" in *.tir) n=${n%.tir}; ir=(--ir-in) ;; esac # IR text in: the passes after sema, then codegen
    want "$n" || return 0
    : > $log
    while IFS= read -r line; do
        prefix=${line#\# RUN(}; prefix=${prefix%%)*}
        args=${line#*): }
        eval "set -- $args"
        if ! NO_COLOR=1 timeout 60 $TLC "${ir[@]}" "$f" "$@" > $T/codegen.out 2>> $log; then
            echo "RUN($prefix): tlc $args failed" >> $log; ok=1; continue
        fi
        "$cg_fc" --check-prefix="$prefix" --input-file=$T/codegen.out "$f" >> $log 2>&1 ||
            { echo "RUN($prefix): FileCheck failed (output in $T/codegen_$(basename "$f" .tl).$prefix.out)" >> $log
              cp $T/codegen.out $T/codegen_$(basename "$f" .tl).$prefix.out; ok=1; }
    done < <(grep '^# RUN(' "$f")
    report "$n" $ok $log
}

cg_error() { # file
    local f=$1 n=codegen/errors/$(basename "$1" .tl) log=$T/codegen_err_$(basename "$1").log
    want "$n" || return 0
    eval "set -- $(sed -n 's/^# RUN-ARGS: //p' "$f")"
    NO_COLOR=1 timeout 60 $TLC "$f" "$@" -o /dev/null > $log 2>&1
    check_expected "$f" $log $?
    report "$n" $? $log
}

# ---- the hand-built kernels ----
# With sanitizers where the toolchain has them: a lowering bug shows up as a
# memory error here rather than as a wrong kernel.
cg_build_harness() {
    local log=$T/codegen_build.log lc libs
    lc=$(/usr/lib/llvm-19/bin/llvm-config --cflags | sed 's/-std=[^ ]*//')
    libs="$(/usr/lib/llvm-19/bin/llvm-config --ldflags --libs nvptx passes ipo) -lstdc++ -lpthread -lm"
    local flags="-std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -Ilang -Icompiler $lc"
    # The compiler files the harness needs: one list, also read by gpu_ptx.sh.
    local srcs=$(cat tests/codegen/harness_srcs)
    ${CC:-cc} $flags -fsanitize=address,undefined -fno-sanitize-recover=all $srcs -o $cg_h $libs > $log 2>&1 ||
        ${CC:-cc} $flags $srcs -o $cg_h $libs >> $log 2>&1
    local rc=$?
    report codegen/harness/build $rc $log
    return $rc
}

cg_harness() {
    local k a ok log
    for k in $(cg_run_h --list); do
        want "codegen/harness/$k" || continue
        log=$T/codegen_h_$k.log ok=0
        : > $log
        for a in sm_80 sm_90; do
            cg_run_h $k --arch=$a > $T/codegen_h_$k.$a.ptx 2>> $log || { echo "$a: harness failed" >> $log; ok=1; continue; }
            cg_ptxas_ok $T/codegen_h_$k.$a.ptx $a $log || { echo "$a: ptxas rejected the PTX" >> $log; ok=1; }
        done
        report codegen/harness/$k $ok $log
    done
    # what the hand-built kernels must contain (the .tl tests cover the rest)
    cg_harness_check copy_v4 "ld.global.v4.b32" "st.global.v4.b32"
    cg_harness_check copy_v1 "ld.global.b32"
    cg_harness_check mm_f16 "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
    cg_harness_check mm_tf32x3 "cvt.rna.tf32.f32" "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
    cg_harness_check mm_i8 "mma.sync.aligned.m16n8k32.row.col.satfinite.s32.s8.s8.s32"
    cg_harness_check sum_rows "shfl.sync.bfly.b32"
    cg_harness_check max_cols "bar.sync" "st.shared"
    cg_harness_check offs64 "mul.wide.s32"
    # All kernels in one module (one @global_smem, one module per compilation),
    # at -O3 and -O0; the same input twice gives the same bytes.
    n=codegen/harness/one_module
    if want $n; then
        log=$T/codegen_h_all.log ok=0
        : > $log
        for a in -O3 -O0; do
            cg_run_h --all $a --arch=sm_90 > $T/codegen_h_all$a.ptx 2>> $log || { echo "$a: harness failed" >> $log; ok=1; }
            cg_ptxas_ok $T/codegen_h_all$a.ptx sm_90 $log || { echo "$a: ptxas rejected the PTX" >> $log; ok=1; }
        done
        [ "$(grep -c '^.visible .entry' $T/codegen_h_all-O3.ptx)" = "$(cg_run_h --list | grep -vc big_convert)" ] ||
            { echo "not one .entry per kernel" >> $log; ok=1; }
        cg_run_h --all --arch=sm_90 | cmp -s - $T/codegen_h_all-O3.ptx || { echo "two compilations differ" >> $log; ok=1; }
        report $n $ok $log
    fi
    # Too much shared memory is a source error at the op that needs it.
    local n=codegen/harness/smem_limit
    if want $n; then
        log=$T/codegen_h_smem.log
        NO_COLOR=1 cg_run_h big_convert --arch=sm_86 > /dev/null 2> $log
        local rc=$?
        ok=0
        [ $rc = 1 ] || { echo "exit $rc, want 1" >> $log; ok=1; }
        grep -q "error: convert_layout needs 133120 bytes of shared memory, more than the 101376 available; use a smaller block" $log ||
            { echo "missing the shared memory error" >> $log; ok=1; }
        cg_run_h big_convert --arch=sm_90 > /dev/null 2>> $log || { echo "sm_90 (227 KB) should fit" >> $log; ok=1; }
        report $n $ok $log
    fi
}

cg_harness_check() { # kernel pattern...
    local k=$1 n=codegen/harness/$1/ptx log=$T/codegen_hc_$1.log ok=0 p; shift
    want "$n" || return 0
    : > $log
    for p in "$@"; do
        grep -qF -- "$p" $T/codegen_h_$k.sm_80.ptx || { echo "no '$p' in the sm_80 PTX" >> $log; ok=1; }
    done
    report "$n" $ok $log
}

# ---- the examples ----
# name | file | tlc arguments (the example programs' signatures and defines)
cg_mm16='*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
cg_mm32='*fp32:16, *fp32:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1'
cg_mmf='*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1'
cg_examples="
copy|copy.tl|--signature '*fp32:16, *fp32:16, i32:16, 1024'
copy_seed|copy.tl|--signature '*i64, *i64, i32, 2'
grayscale|grayscale.tl|--signature '*u8:16, *u8:16, i32, i32, 32, 32'
naive_fp16|matmul_naive.tl|--signature '$cg_mm16, 16, 16, 16'
naive_fp32|matmul_naive.tl|--signature '$cg_mm32, 32, 32, 32'
grouped_fp16|matmul_grouped.tl|--signature '$cg_mm16, 16, 16, 16, 32'
grouped_fp32|matmul_grouped.tl|--signature '$cg_mm32, 16, 16, 16, 4'
autotuned|matmul_autotuned.tl|--autotune-config 2 --signature '$cg_mm32, 128, 128, 32, 8'
tutorial|matmul_tutorial.tl|--autotune-config 4 -D ACTIVATION=None --signature '$cg_mm16'
tutorial_leaky|matmul_tutorial.tl|--autotune-config 4 -D ACTIVATION=leaky_relu --signature '$cg_mm16'
puzzle|matmul_puzzle.tl|--kernel matmul_kernel --autotune-config 2 --signature '$cg_mmf, 128, 128, 32'
puzzle_grouped|matmul_puzzle.tl|--kernel matmul_kernel_grouped --autotune-config 2 --signature '$cg_mmf, 128, 128, 32, 8'
fwd_relu|matmul_fwd.tl|--signature '*fp16:16, *fp16:16, *fp16:16, i32:16, i32, i32, i32:16, 128, 128, 32, 8, \"relu\"'
swizzle|swizzle.tl|--signature '*i64:16, *i64:16, 3'
tut01_add|tutorial_01_vector_add.tl|--signature '*fp32:16, *fp32:16, *fp32:16, i32, 1024'
tut02_softmax|tutorial_02_fused_softmax.tl|--num-warps 8 --signature '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 2'
tut03_matmul|tutorial_03_matmul.tl|--autotune-config 0 -D ACTIVATION=leaky_relu --signature '$cg_mm16'
tut03_matmul_small|tutorial_03_matmul.tl|--autotune-config 7 -D \"ACTIVATION=''\" --signature '*fp16, *fp16, *fp16, i32, i32, i32, i32, i32:1, i32, i32, i32, i32:1'
tut03_matmul_fp8|tutorial_03_matmul.tl|--autotune-config 2 -D \"ACTIVATION=''\" --signature '*fp8e5:16, *fp8e5:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:1, i32:16, i32:16, i32:1'
tut04_dropout|tutorial_04_low_memory_dropout.tl|--kernel _dropout --signature '*fp32:16, *i32:16, *fp32:16, i32, fp32, 1024'
tut04_seeded|tutorial_04_low_memory_dropout.tl|--kernel _seeded_dropout --signature '*fp32:16, *fp32:16, i32, fp32, i32, 1024'
tut05_fwd|tutorial_05_layer_norm.tl|--kernel _layer_norm_fwd_fused --num-warps 8 --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192'
tut05_bwd_dx|tutorial_05_layer_norm.tl|--kernel _layer_norm_bwd_dx_fused --num-warps 8 --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, *i32:16, i32:16, i32:16, 96, 8192'
tut05_bwd_dwdb|tutorial_05_layer_norm.tl|--kernel _layer_norm_bwd_dwdb --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, i32, i32:16, 32, 128'
tut05_fwd_lineinfo|tutorial_05_layer_norm.tl|--kernel _layer_norm_fwd_fused --num-warps 8 --signature '*fp16:16, *fp16:16, *fp16:16, *fp16:16, *fp32:16, *fp32:16, i32:16, i32:16, fp32, 8192' -lineinfo
tut03_matmul_lineinfo|tutorial_03_matmul.tl|--autotune-config 0 -D ACTIVATION=leaky_relu --signature '$cg_mm16' -lineinfo
tut02_softmax_g|tutorial_02_fused_softmax.tl|--num-warps 8 --signature '*fp32:16, *fp32:16, i32, i32, i32, i32, 1024, 2' -g
"

cg_example() { # name file args
    local n=codegen/example/$1 f=examples/$2 log=$T/codegen_ex_$1.log ok=0 a out
    want "$n" || return 0
    : > $log
    eval "set -- $3"
    for a in sm_80 sm_90 sm_90a sm_70 sm_100a; do
        out=$T/codegen_ex_$(basename $n).$a
        if ! NO_COLOR=1 timeout 120 $TLC "$f" "$@" --arch $a -o $out.ptx >> $log 2>&1; then
            echo "$a: tlc failed" >> $log; ok=1; continue
        fi
        cg_ptxas_ok $out.ptx $a $log || { echo "$a: ptxas rejected the PTX" >> $log; ok=1; }
        NO_COLOR=1 timeout 120 $TLC "$f" "$@" --arch $a -o $out.again.ptx >> $log 2>&1
        cmp -s $out.ptx $out.again.ptx || { echo "$a: two compilations differ" >> $log; ok=1; }
        case " $* " in *" -lineinfo "*) cg_lineinfo_same "$f" $a $out "$@" || ok=1 ;; esac
    done
    report "$n" $ok $log
}

# Line tables change no instruction: the PTX without its .loc / .file lines,
# function labels and DWARF sections is the PTX compiled without -lineinfo.
cg_strip_lines() { sed -e '/^\t\.file\t/,$d' -e '/^\t\.loc\t/d' -e '/^\$L__\(tmp\|func_begin\|func_end\)[0-9]*:$/d' "$1" | cat -s; }
cg_lineinfo_same() { # file arch out args... (with -lineinfo)
    local f=$1 a=$2 out=$3 x; shift 3
    local args=()
    for x in "$@"; do [ "$x" = -lineinfo ] || args+=("$x"); done
    NO_COLOR=1 timeout 120 $TLC "$f" "${args[@]}" --arch $a -o $out.plain.ptx >> $log 2>&1 || { echo "$a: tlc failed without -lineinfo" >> $log; return 1; }
    grep -qE '^[[:space:]]+\.loc[[:space:]]' $out.ptx || { echo "$a: no .loc with -lineinfo" >> $log; return 1; }
    cmp -s <(cg_strip_lines $out.ptx) <(cg_strip_lines $out.plain.ptx) ||
        { echo "$a: -lineinfo changed the code:" >> $log; diff <(cg_strip_lines $out.ptx) <(cg_strip_lines $out.plain.ptx) | head -20 >> $log; return 1; }
}

# fp32 erf with libdevice (__nv_erff, if installed here) and without
# (TL_LIBDEVICE naming no file: tl's own fp32 erf): no fp64, a small kernel
# (it was 51 KB with 136 div.rn.f64 through the fp64 series), ptxas accepts it.
cg_gelu_size() {
    local n=codegen/gelu_f32_size log=$T/codegen_gelu.log ok=0 lib out size
    want "$n" || return 0
    : > $log
    for lib in default /nonexistent; do
        out=$T/codegen_gelu_$(basename $lib).ptx
        if ! ( [ $lib = default ] || export TL_LIBDEVICE=$lib; NO_COLOR=1 timeout 60 $TLC tests/codegen/gelu_f32.tl \
                --signature '*fp32:16, *fp32:16, i32, 1024' --arch sm_80 -o $out ) >> $log 2>&1; then
            echo "$lib: tlc failed" >> $log; ok=1; continue
        fi
        size=$(wc -c < $out)
        echo "$lib: $size bytes" >> $log
        [ $size -lt 32768 ] || { echo "$lib: $size bytes of PTX, want < 32768" >> $log; ok=1; }
        ! grep -qE '\.f64|div\.rn\.f64' $out || { echo "$lib: fp64 instructions" >> $log; ok=1; }
        cg_ptxas_ok $out sm_80 $log || { echo "$lib: ptxas rejected the PTX" >> $log; ok=1; }
    done
    report $n $ok $log
}

if $TLC --help 2>/dev/null | grep -q 'llvm (LLVM IR)'; then
    cg_gelu_size
    for cg_f in tests/codegen/*.tl tests/codegen/*.tir; do cg_filecheck "$cg_f"; done
    for cg_f in tests/codegen/errors/*.tl; do [ -f "$cg_f" ] && cg_error "$cg_f"; done
    while IFS='|' read -r cg_n cg_file cg_args; do
        [ -n "$cg_n" ] && cg_example "$cg_n" "$cg_file" "$cg_args"
    done <<< "$cg_examples"
else
    echo "note: $TLC has no --emit=llvm/ptx: codegen .tl tests skipped"
fi
case codegen/harness/ in *"$ONLY"*) cg_hb=1 ;; *) case "$ONLY" in codegen/harness/*) cg_hb=1 ;; *) cg_hb=0 ;; esac ;; esac
[ $cg_hb = 1 ] && cg_build_harness && cg_harness
