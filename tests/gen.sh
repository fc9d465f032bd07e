# tests/gen.sh: the generator-driven differential test (tests/gen/kgen.c;
# sourced by tests/run.sh). 60 random kernels from a fixed seed run in the
# interpreter at ragged sizes against kgen's own evaluation of the same
# expression DAG in C, and each goes through `tlc` to PTX, which must succeed
# (and ptxas must accept, where there is one: $PTXAS or /usr/local/cuda/bin);
# the same under --maxnreg with the interpreter after the sink pass; then the
# regression kernels tests/gen/*.tl (failures the generator found,
# reduced). A failure is written to build/tests/kgen-fail/ with its reduction.
# `make fuzz-gen` is the long run with random seeds; tests/gpu.sh runs the same
# kernels on the GPU against the interpreter.
if want gen/; then
    rm -rf $T/kgen-fail
    gen_ptxas=${PTXAS:-/usr/local/cuda/bin/ptxas}
    if [ -x "$gen_ptxas" ]; then gen_ptxas=(--ptxas "$gen_ptxas"); else gen_ptxas=(); fi
    timeout 600 build/tests/kgen --seed 1 --count 60 --tlc $TLC "${gen_ptxas[@]}" --out $T/kgen-fail > $T/gen.log 2>&1
    rc=$?
    count_lines $T/gen.log gen
    [ $rc -gt 1 ] && report "gen/exit ($rc)" 1 $T/gen.log
    grep -q "^\[PASS\] gen/interp\|generated kernels failed" $T/gen.log || report "gen/finished" 1 $T/gen.log
    # Under a register cap, which turns the sink pass on (compiler/sink.c): the
    # interpreter runs each kernel's IR after it, so its reordering is checked
    # by execution (60 kernels of seed 2 move about 50 loads and 900 ops).
    TL_INTERPRET_PASSES=combine,flatten,peel,sink timeout 600 build/tests/kgen --seed 2 --count 60 --maxnreg 32 \
        --tlc $TLC "${gen_ptxas[@]}" --out $T/kgen-fail > $T/gen_capped.log 2>&1
    rc=$?
    count_lines $T/gen_capped.log gen
    [ $rc -gt 1 ] && report "gen/capped exit ($rc)" 1 $T/gen_capped.log
    grep -q "^\[PASS\] gen/interp_capped\|generated kernels failed" $T/gen_capped.log ||
        report "gen/capped_finished" 1 $T/gen_capped.log
    gen_files=(tests/gen/*.tl)
    if [ -f "${gen_files[0]}" ]; then
        timeout 600 build/tests/kgen --tlc $TLC "${gen_ptxas[@]}" --file "${gen_files[@]}" > $T/gen_files.log 2>&1
        rc=$?
        count_lines $T/gen_files.log gen
        [ $rc -gt 1 ] && report "gen/files exit ($rc)" 1 $T/gen_files.log
    fi
fi
