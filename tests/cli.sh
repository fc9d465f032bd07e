# tests/cli.sh: command-line behaviour of tlc (sourced by tests/run.sh).
cli_case() { # name expected-rc expected-stream(out|err) pattern args...
    local name=$1 want=$2 stream=$3 pat=$4; shift 4
    want "cli/$name" || return
    local log=$T/cli_$name.log
    NO_COLOR=1 $TLC "$@" > $T/cli.out 2> $T/cli.err
    local rc=$? ok=0
    [ $rc = $want ] || { echo "exit $rc, want $want" > $log; ok=1; }
    grep -q -- "$pat" $T/cli.$stream || { echo "no '$pat' on std$stream" >> $log; cat $T/cli.err >> $log; ok=1; }
    report "cli/$name" $ok $log
}
cli_case help 0 out "usage: tlc" --help
cli_case help_emit_forms 0 out "ptx (default),$" --help
cli_case help_opt_level 0 out "^  -O N  *optimisation: -O0, -O1, -O3 (default) run LLVM's pipelines, -O2 tl's own" --help
cli_case version 0 out "tlc .* (LLVM 19" --version
cli_case unknown_flag 2 err "unknown option '--bogus'" --bogus examples/copy.tl
cli_case missing_file 2 err "cannot read 'no/such.tl'" no/such.tl
cli_case no_input 2 err "no input file"
cli_case bad_emit 2 err "unknown --emit form 'xyz'" --emit=xyz examples/copy.tl
cli_case missing_arg 2 err "needs an argument" examples/copy.tl -o
cli_case two_inputs 2 err "more than one input" examples/copy.tl examples/copy.tl
cli_case ast_ok 0 out "Module" --emit=ast examples/copy.tl
# An empty file is a valid module with nothing to compile.
cli_case empty_file_ast 0 out "(Module @1:1-1:1)" --emit=ast tests/data/empty.tl
cli_case empty_file_ptx 1 err "no @triton.jit function in the file" tests/data/empty.tl
cli_case needs_signature 1 err "needs a signature for parameter 'x_ptr'" examples/copy.tl
cli_case ptx_copy 0 out "ld.global.v4" examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024"
cli_case o_dash 0 out "ld.global.v4" examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024" -o -
cli_case bad_arch 2 err "unsupported --arch 'sm_60' (expected sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a) (see" --arch sm_60 examples/copy.tl
# Every arch of the table: its own .target and PTX ISA (the Blackwells'
# from LLVM's sm_90 code: LLVM 19 has no sm_100), -g's DWARF raising an older
# ISA to 7.5 and keeping ", debug"; ptxas accepts each (CUDA 13's has no
# sm_70: sm_75 still checks every instruction against .target sm_70).
for cli_at in sm_70:6.0 sm_75:6.3 sm_80:7.0 sm_86:7.1 sm_89:7.8 sm_90:7.8 sm_90a:8.0 sm_100:8.6 sm_100a:8.6 \
        sm_120:8.7 sm_120a:8.7; do
    cli_a=${cli_at%%:*} cli_v=${cli_at#*:}
    want cli/target_$cli_a || continue
    log=$T/cli_target_$cli_a.log ok=0
    $TLC examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024" --arch $cli_a > $T/cli_t.ptx 2> $log || ok=1
    [ "$(grep -E '^\.(version|target) ' $T/cli_t.ptx | tr '\n' ' ')" = ".version $cli_v .target $cli_a " ] ||
        { echo "header: $(grep -E '^\.(version|target) ' $T/cli_t.ptx | tr '\n' ' ')" >> $log; ok=1; }
    $TLC examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024" --arch $cli_a -g > $T/cli_tg.ptx 2>> $log || ok=1
    grep -qx ".target $cli_a, debug" $T/cli_tg.ptx || { echo "-g: $(grep '^.target' $T/cli_tg.ptx)" >> $log; ok=1; }
    [ "${cli_v%.*}${cli_v#*.}" -ge 75 ] || grep -qx ".version 7.5" $T/cli_tg.ptx || { echo "-g: not 7.5" >> $log; ok=1; }
    if [ -x /usr/local/cuda/bin/ptxas ]; then
        cli_pa=$cli_a
        /usr/local/cuda/bin/ptxas --help | grep -q "'$cli_a'" || cli_pa=sm_75
        /usr/local/cuda/bin/ptxas -arch=$cli_pa $T/cli_t.ptx -o /dev/null >> $log 2>&1 || { echo "ptxas -arch=$cli_pa" >> $log; ok=1; }
    fi
    report cli/target_$cli_a $ok $log
done
# Laid-out IR (--ir-in) keeps its target's tensor-core layouts and the
# pipeliner's ops: compiled for a target without them, a located error
# (not an internal one, not PTX that ptxas refuses).
if want cli/ir_in_older_target; then
    log=$T/cli_ir_in_older.log ok=0
    DOT16="*fp16:16, *fp16:16, *fp32:16, i32:16, 64, 64, 32"
    $TLC tests/codegen/dot.tl --signature "$DOT16" --arch sm_80 --dump-after=pipeline -o /dev/null \
        2> $T/cli_dot80.tir > /dev/null || ok=1
    $TLC tests/codegen/wgmma.tl --kernel mm --signature "*fp16:16, *fp16:16, *fp32:16, i32:16, 128, 128, 64" \
        --num-warps 8 --arch sm_90a --dump-after=pipeline -o /dev/null 2> $T/cli_w90a.tir > /dev/null || ok=1
    $TLC --ir-in $T/cli_dot80.tir --arch sm_80 -o /dev/null >> $log 2>&1 || { echo "sm_80 IR for sm_80 failed" >> $log; ok=1; }
    for cli_c in "cli_dot80 sm_75 1 'async_copy' needs cp.async (sm_80 and newer), which sm_75 does not have" \
                 "cli_w90a sm_90 1 this dot is laid out for wgmma (sm_90a), which sm_90 does not have"; do
        set -- $cli_c
        NO_COLOR=1 $TLC --ir-in $T/$1.tir --arch $2 -o /dev/null > $T/cli_irin.err 2>&1
        cli_rc=$?
        [ $cli_rc = $3 ] || { echo "$1 for $2: exit $cli_rc" >> $log; ok=1; }
        shift 3
        grep -q "^$T/[a-z0-9_]*.tir:[0-9]*:[0-9]*: error: $*" $T/cli_irin.err ||
            { echo "no '$*':" >> $log; cat $T/cli_irin.err >> $log; ok=1; }
    done
    report cli/ir_in_older_target $ok $log
fi
cli_case bad_define 2 err "-D expects NAME=VALUE" -D 9x=1 examples/copy.tl
# Unknown and malformed flags are named as written: a short flag inside its
# word (the bug: 'tlc -q3 x.tl' named argv[0]), a long one without its '=value'.
cli_case unknown_short_in_word 2 err "unknown option '-q' (see" -q3 examples/copy.tl
cli_case unknown_short 2 err "unknown option '-x' (see" -x examples/copy.tl
cli_case unknown_long_with_value 2 err "unknown option '--bogus' (see" --bogus=1 examples/copy.tl
cli_case long_takes_no_argument 2 err "option '--ir-in' takes no argument" --ir-in=2 examples/copy.tl
cli_case help_takes_no_argument 2 err "option '--help' takes no argument" --help=1 examples/copy.tl
cli_case long_needs_argument 2 err "option '--kernel' needs an argument" examples/copy.tl --kernel
cli_case short_needs_argument 2 err "option '-O' needs an argument" examples/copy.tl -O
# -O0..-O3 (the options table checks the range; the C API takes the same flag).
COPY16="*fp32:16, *fp32:16, i32:16, 1024"
cli_case opt_level_9 2 err "tlc: error: -O must be a number from 0 to 3, got 9" -O9 examples/copy.tl
cli_case opt_level_word 2 err "-O expects a number, got 'x'" -Ox examples/copy.tl
cli_case opt_level_3 0 out ".entry copy_k" -O3 examples/copy.tl --signature "$COPY16"
cli_case opt_level_split 0 out ".entry copy_k" -O 1 examples/copy.tl --signature "$COPY16"
if want cli/opt_levels; then
    log=$T/cli_opt_levels.log ok=0
    : > $log
    for o in 0 1 2 3; do
        $TLC -O$o examples/copy.tl --signature "$COPY16" > $T/cli_O$o.ptx 2>> $log || { echo "-O$o failed" >> $log; ok=1; }
    done
    $TLC examples/copy.tl --signature "$COPY16" > $T/cli_Odefault.ptx 2>> $log
    cmp $T/cli_O3.ptx $T/cli_Odefault.ptx >> $log 2>&1 || { echo "-O3 is not the default" >> $log; ok=1; }
    cmp -s $T/cli_O0.ptx $T/cli_O3.ptx && { echo "-O0 gives the same PTX as -O3" >> $log; ok=1; }
    grep -q "ld.global.v4" $T/cli_O0.ptx || { echo "-O0 PTX has no vector load (:16 ignored?)" >> $log; ok=1; }
    report "cli/opt_levels" $ok $log
fi
# '-' reads the source from standard input; diagnostics name it <stdin>.
if want cli/stdin; then
    log=$T/cli_stdin.log
    $TLC examples/copy.tl --signature "$COPY16" > $T/cli_file.ptx 2> $log
    $TLC - --signature "$COPY16" < examples/copy.tl > $T/cli_stdin.ptx 2>> $log
    rc=$?
    [ $rc = 0 ] && [ -s $T/cli_stdin.ptx ] && cmp $T/cli_stdin.ptx $T/cli_file.ptx >> $log 2>&1
    report "cli/stdin" $? $log
fi
cli_case stdin_diagnostics 1 err "^<stdin>:12:12: error: kernel 'copy_k' needs a signature for parameter 'x_ptr'" - < examples/copy.tl
cli_case stdin_ast 0 out "(Module" --emit=ast - < tests/data/empty.tl
# A device or a huge file is refused by size, not read until memory runs out.
cli_case dev_zero 2 err "cannot read '/dev/zero': File too large" /dev/zero
# --time-passes: every stage of the pipeline, in order, then the total.
if want cli/time_passes; then
    log=$T/cli_time_passes.log
    $TLC --time-passes examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024" -o /dev/null 2> $log
    rc=$?
    tr -s ' ' < $log | cut -d' ' -f2 | tr '\n' ' ' | grep -q "^time parse sema combine layout pipeline smem-alloc barriers llvm-ir llvm-opt ptx-emit link total $"
    report cli/time_passes $(( rc != 0 || $? != 0 )) $log
fi
# --auto-tma: on or off; off by default in tlc (its PTX has no maps another
# launcher would have to encode), and never with --emit=c.
# --warp-specialize: a descriptor matmul's TMA loop gets a producer
# warpgroup (4 warps more, setmaxnreg) unless turned off, or its tl.range says.
WS_SIG="tensordesc<fp16[128, 64]>, tensordesc<fp16[64, 256]>, *fp16:16, i32, i32, i32, i32:16"
cli_case ws_bad 2 err "--warp-specialize expects on or off, got 'yes'" --warp-specialize yes examples/copy.tl
cli_case ws_default 0 out "setmaxnreg.inc.sync.aligned.u32 232" --arch sm_90a --kernel mm_desc -D GROUP_M=8 \
    --num-warps 8 --signature "$WS_SIG" tests/kernels/tma_matmul.tl
cli_case ws_threads 0 out "^.maxntid 384, 1, 1$" --arch sm_90a --kernel mm_desc -D GROUP_M=8 --num-warps 8 \
    --signature "$WS_SIG" tests/kernels/tma_matmul.tl
cli_case ws_off 0 out "^.maxntid 256, 1, 1$" --arch sm_90a --kernel mm_desc -D GROUP_M=8 --num-warps 8 \
    --warp-specialize off --signature "$WS_SIG" tests/kernels/tma_matmul.tl
cli_case ws_range_off 0 out "^.maxntid 256, 1, 1$" --arch sm_90a --kernel mm_desc_range -D GROUP_M=8 -D WS=False \
    --num-warps 8 --signature "$WS_SIG" tests/kernels/tma_matmul.tl
cli_case ws_range_on 0 out "^.maxntid 384, 1, 1$" --arch sm_90a --kernel mm_desc_range -D GROUP_M=8 -D WS=True \
    --num-warps 8 --warp-specialize off --signature "$WS_SIG" tests/kernels/tma_matmul.tl
# coordinates computed before the loop: the producer recomputes them too
cli_case ws_coords_before_loop 0 out "^.maxntid 256, 1, 1$" --arch sm_90a --kernel matmul_kernel_host_desc \
    -D GROUP_SIZE_M=4 --signature "tensordesc<fp16[64, 32]>, tensordesc<fp16[32, 64]>, tensordesc<fp16[64, 64]>, i32, i32, i32" \
    examples/matmul_descriptor.tl
# the wgmma dot and the loads' operand converts need no scratch beside the rings: 3 stages keep 4 slots
cli_case ws_four_slots 0 out "smem<4x64x256xf16, #nvmma>" --arch sm_90a --kernel mm_desc -D GROUP_M=8 --num-warps 8 \
    --num-stages 3 --emit=ir-gpu --signature "$WS_SIG" tests/kernels/tma_matmul.tl
cli_case ws_sm80 0 out "^.maxntid 256, 1, 1$" --arch sm_80 --kernel mm_desc -D GROUP_M=8 --num-warps 8 \
    --signature "$WS_SIG" tests/kernels/tma_matmul.tl
AUTO_SIG="*fp16:16, *fp16:16, *fp16:16, i32, i32, i32, i32:16, i32:16, i32:16, 128, 64, 64"
cli_case auto_tma_bad 2 err "--auto-tma expects on or off, got 'yes'" --auto-tma yes examples/copy.tl
cli_case auto_tma_emit_c 2 err "--auto-tma on is not for --emit=c: its launchers pass no tensor maps" --auto-tma on --emit=c examples/copy.tl
cli_case auto_tma_on 0 out "a_ptr_tma.10: i64 {tensormap = true, tma = \[1, 4, 6, 7\]" --arch sm_90a --auto-tma on --emit=ir-gpu --kernel mm_masked --signature "$AUTO_SIG" tests/kernels/mm_auto_tma.tl
# masks spelled with >= 0 and <= bound - 1 are the same boxes, bounds M and K exactly
cli_case auto_tma_le 0 out "a_ptr_tma.10: i64 {tensormap = true, tma = \[1, 4, 6, 7\]" --arch sm_90a --auto-tma on --emit=ir-gpu --kernel mm_le --signature "$AUTO_SIG" tests/kernels/mm_auto_tma.tl
# Tutorial 06's in-kernel descriptors: K's and V's rows are Z * H * N_CTX (a
# product the launch multiplies: tma_mul) and their stride HEAD_DIM a constant;
# the loop's two dots wgmma, P and Q from registers, K and V by TMA.
ATTN_SIG="fp32,*fp32:16,i32,i32,*fp16:16,*fp16:16,*fp16:16,*fp16:16,i32:16"
ATTN_OPTS="--kernel _attn_fwd -D HEAD_DIM=128 -D FP8_OUTPUT=0 -D STAGE=1 -D warp_specialize=0 -D IS_HOPPER=1 --autotune-config 27"
cli_case auto_tma_attn 0 out "desc_k_tma.10: i64 {tensormap = true, tma = \[6, 3, -128, -128\], box = \[64, 128\], tma_mul = \[4, 9, 0, 0\]}" \
    --arch sm_90a --auto-tma on --emit=ir-gpu $ATTN_OPTS --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
cli_case attn_wgmma_tma 0 out "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 .*}, {%r[0-9]*, %r[0-9]*, %r[0-9]*, %r[0-9]*}, %rd[0-9]*, p, 1, 1, 1;" \
    --arch sm_90a --auto-tma on $ATTN_OPTS --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
# warp_specialize=True on sm_90a, num_warps=4, 128-row dots: two consumer
# warpgroups share the rows beside the producer (Triton's data partitioning),
# 384 threads with registers moved by setmaxnreg; ws off, the same config keeps
# its 4 warps.
WS_OPTS="--kernel _attn_fwd -D HEAD_DIM=64 -D FP8_OUTPUT=0 -D STAGE=1 -D IS_HOPPER=1 --autotune-config 24"
cli_case attn_ws_two_consumers 0 out "^\.maxntid 384, 1, 1" \
    --arch sm_90a --auto-tma on $WS_OPTS -D warp_specialize=1 --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
cli_case attn_ws_consumer_regs 0 out "setmaxnreg.inc.sync.aligned.u32 232;" \
    --arch sm_90a --auto-tma on $WS_OPTS -D warp_specialize=1 --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
cli_case attn_no_ws_four_warps 0 out "^\.maxntid 128, 1, 1" \
    --arch sm_90a --auto-tma on $WS_OPTS -D warp_specialize=0 --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
cli_case attn_ws_sm80_four_warps 0 out "^\.maxntid 128, 1, 1" \
    --arch sm_80 $WS_OPTS -D warp_specialize=1 --signature "$ATTN_SIG" examples/tutorial_06_fused_attention.tl
cli_case fp_fusion_bad 2 err "--fp-fusion expects on or off, got 'yes'" --fp-fusion yes examples/copy.tl
cli_case fp_fusion_off_ir 0 out "no_fp_fusion = true" --fp-fusion off --emit=ir-gpu --signature "*fp32:16, *fp32:16, i32:16, 1024" examples/copy.tl
cli_case auto_tma_default_off 0 out "%stride_cm.9: i32 {div = 16}) {num_warps" --arch sm_90a --emit=ir-gpu --kernel mm_masked --signature "$AUTO_SIG" tests/kernels/mm_auto_tma.tl
# --ir-in compiles IR text on to the form --emit names (it used to print the
# IR back into k.ptx): from sema's IR and from laid-out IR (which continues at
# smem-alloc), the same PTX as from the source. --emit=c needs the source.
if want cli/ir_in_ptx; then
    log=$T/cli_ir_in_ptx.log ok=0
    : > $log
    $TLC examples/copy.tl --signature "$COPY16" --emit=ir > $T/cli_copy.tir 2>> $log || ok=1
    $TLC examples/copy.tl --signature "$COPY16" --emit=ir-gpu > $T/cli_copy_gpu.tir 2>> $log || ok=1
    $TLC examples/copy.tl --signature "$COPY16" -o $T/cli_copy_src.ptx 2>> $log || ok=1
    for f in cli_copy cli_copy_gpu; do
        rm -f $T/$f.ptx
        $TLC --ir-in $T/$f.tir --emit=ptx -o $T/$f.ptx 2>> $log || { echo "$f: tlc failed" >> $log; ok=1; }
        cmp $T/cli_copy_src.ptx $T/$f.ptx >> $log 2>&1 || { echo "$f: PTX differs from the source's" >> $log; ok=1; }
    done
    grep -q "^.visible .entry copy_k(" $T/cli_copy.ptx || { echo "no entry in the PTX" >> $log; ok=1; }
    report cli/ir_in_ptx $ok $log
fi
cli_case ir_in_emit_c 2 err "tlc: error: --ir-in reads IR, which has no source to specialise the launcher's variants from (--emit=c): use --emit=ir, ir-gpu, llvm, ptx or cubin" --ir-in --emit=c -o $T/x.c tests/ir/copy.tir
cli_case ir_in_emit_ast 2 err "--ir-in reads IR, which has no syntax tree (--emit=ast)" --ir-in --emit=ast tests/ir/copy.tir
# -D of a runtime parameter: one rule for PTX and --emit=c (sema's): an error
# when the signature types it, a constant (gone from the entry) when it leaves it out.
DRT=tests/sema/define_runtime_typed.tl
cli_case define_runtime_c 1 err "10:31: error: -D N=77 sets runtime parameter 'N'" --emit=c -o $T/drt.c \
    --signature '*fp32, *fp32, *fp32, i32, i32, fp32, 1024' -D N=77 $DRT
if want cli/define_runtime_constant; then
    log=$T/cli_define_runtime_constant.log ok=0
    : > $log
    # PTX: five parameters (x, y, z, M, alpha), not six with alpha in N's place
    $TLC --signature '*fp32, *fp32, *fp32, i32, fp32, 1024' -D N=77 $DRT > $T/drt.ptx 2>> $log || ok=1
    [ "$(grep -c '\.param \.' $T/drt.ptx)" = 5 ] && grep -q '\.param \.f32 k_param_4$' $T/drt.ptx ||
        { echo "PTX entry:" >> $log; grep '\.param' $T/drt.ptx >> $log; ok=1; }
    # --emit=c: the launcher takes alpha, not N
    $TLC --emit=c -o $T/drt.c --signature '*fp32, *fp32, *fp32, i32, fp32' -D N=77 -D BLOCK=64 $DRT 2>> $log || ok=1
    grep -q "float alpha" $T/drt.h && ! grep -q "N," $T/drt.h || { echo "header:" >> $log; cat $T/drt.h >> $log; ok=1; }
    report cli/define_runtime_constant $ok $log
fi
cli_case ir_in_no_function 1 err "tlc: error: no function in the IR of 'tests/data/empty.tl' to compile" --ir-in --emit=ptx tests/data/empty.tl
