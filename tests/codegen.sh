# tests/codegen.sh: the GPU back end, LLVM IR and PTX (sourced by tests/run.sh).
#
#   tests/codegen/*.tl          "# RUN(PREFIX): ARGS" lines: `tlc ARGS FILE` must succeed and
#                               FileCheck --check-prefix=PREFIX must accept its output
#                               (PTX by default, --emit=llvm for LLVM IR)
#   tests/codegen/*.tir         the same for IR text: `tlc --ir-in ARGS FILE`
#   tests/codegen/tir/*.tir     kernels laid out by hand (IR with layouts: the back end
#                               alone), the same way (codegen/tir/NAME); each PTX they
#                               give passes ptxas; all of them in one module too
#   tests/codegen/errors/*.tl, *.tir   "# RUN: ARGS" and "# expect:" lines: `tlc ARGS FILE
#                               -o /dev/null` prints exactly those diagnostics and exits 1
# The file tests' directives are read and checked by tt_check (tests/lib.sh).
#   codegen/example/*           every examples/*.tl kernel with the signatures the example
#                               programs use compiles for sm_80, sm_90 and sm_90a (wgmma), and the
#                               older sm_70 (FMA dots) and sm_100a (sm_90's code), ptxas accepts
#                               the PTX (on sm_90a without serialising a wgmma: cg_wgmma_async),
#                               and compiling twice gives identical bytes; with
#                               -lineinfo, the PTX less its line directives is the PTX without
# Without ptxas (/usr/local/cuda/bin/ptxas, or $PTXAS) the ptxas steps are skipped
# with a note. tests/codegen/gpu_check.py runs the tir/ kernels and examples on a
# GPU (see its header); it is not part of this CPU suite.

cg_ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
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

# ---- tests/codegen/*.tl, *.tir, tir/*.tir, errors/*: tt_check (tests/lib.sh) ----
# hand-laid-out kernels: ptxas must take their PTX too (the front end's are checked as examples)
cg_tir_ptxas() { # log out rc args...
    local log=$1 out=$2 a=""; shift 3
    case " $* " in *" --emit=ptx "*) ;; *) return 0 ;; esac
    while [ $# -gt 1 ]; do [ "$1" = --arch ] && a=$2; shift; done
    [ -n "$a" ] || return 0
    cg_ptxas_ok $out $a $log || { echo "--arch $a: ptxas rejected the PTX" >> $log; return 1; }
}

cg_file() { # file
    local f=$1 n log
    local -a cmd=($TLC)
    n=codegen/${f#tests/codegen/}; n=${n%.*}
    case "$f" in *.tir) cmd+=(--ir-in) ;; esac
    case "$f" in */errors/*) cmd+=(-o /dev/null) ;; esac
    want "$n" || return 0
    log=$T/${n//\//_}.log; : > $log
    case "$f" in */tir/*) TT_HOOK=cg_tir_ptxas ;; esac
    tt_check $log "$f" "" "${cmd[@]}"
    report "$n" $? $log
    TT_HOOK=
}

# ---- the hand-laid-out kernels, in one module ----
# All of tests/codegen/tir/ but big_convert (one @global_smem, one module per
# compilation), at -O3 and -O0: one .entry per kernel, ptxas takes it, and the
# same input twice gives the same bytes.
cg_one_module() {
    local n=codegen/tir/one_module log=$T/codegen_tir_all.log ok=0 a f all=$T/codegen_tir_all.tir
    want $n || return 0
    : > $log
    : > $all
    for f in tests/codegen/tir/*.tir; do [ "$(basename $f)" = big_convert.tir ] || cat $f >> $all; done
    for a in -O3 -O0; do
        NO_COLOR=1 timeout 120 $TLC --ir-in $all --emit=ptx --arch sm_90 $a -o $T/codegen_tir_all$a.ptx >> $log 2>&1 ||
            { echo "$a: tlc failed" >> $log; ok=1; }
        cg_ptxas_ok $T/codegen_tir_all$a.ptx sm_90 $log || { echo "$a: ptxas rejected the PTX" >> $log; ok=1; }
    done
    [ "$(grep -c '^.visible .entry' $T/codegen_tir_all-O3.ptx)" = "$(grep -c '^func @' $all)" ] ||
        { echo "not one .entry per kernel" >> $log; ok=1; }
    NO_COLOR=1 $TLC --ir-in $all --emit=ptx --arch sm_90 -o - 2>> $log | cmp -s - $T/codegen_tir_all-O3.ptx ||
        { echo "two compilations differ" >> $log; ok=1; }
    report $n $ok $log
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
tut09_descriptor|tutorial_09_persistent_matmul.tl|--kernel matmul_kernel_descriptor_persistent --autotune-config 7 -D NUM_SMS=132 -D WARP_SPECIALIZE=1 -D FLATTEN=0 --signature '*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16'
"

# ptxas keeps a kernel's wgmma asynchronous: it serialises them (each waited
# for before the next issues, "Potential Performance Loss", C7510 / C7512)
# when the kernel can call a function (a device assert's __assertfail: tutorial
# 09's fp8 descriptor kernel ran up to 17% slower so) or lacks the registers.
cg_wgmma_async() { # ptx arch log
    [ -z "$cg_ptxas" ] || [ "$2" != sm_90a ] && return 0
    local msg
    msg=$("$cg_ptxas" -arch=sm_90a "$1" -o /dev/null 2>&1 | grep "wgmma.mma_async instructions are serialized")
    [ -z "$msg" ] && return 0
    echo "sm_90a: $msg" >> "$3"
    return 1
}

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
        cg_wgmma_async $out.ptx $a $log || ok=1
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
    for cg_f in tests/codegen/*.tl tests/codegen/*.tir tests/codegen/tir/*.tir; do cg_file "$cg_f"; done
    cg_one_module
    for cg_f in tests/codegen/errors/*.tl tests/codegen/errors/*.tir; do [ -f "$cg_f" ] && cg_file "$cg_f"; done
    while IFS='|' read -r cg_n cg_file cg_args; do
        [ -n "$cg_n" ] && cg_example "$cg_n" "$cg_file" "$cg_args"
    done <<< "$cg_examples"
else
    echo "note: $TLC has no --emit=llvm/ptx: codegen .tl tests skipped"
fi
