# tests/api.sh: the C API test program and every example program, in the
# interpreter (sourced by tests/run.sh).
if want api/; then
    TL_INTERPRET=1 timeout 300 build/tests/api_test > $T/api.log 2>&1
    rc=$?
    count_lines $T/api.log api
    [ $rc -gt 1 ] && report "api/exit ($rc)" 1 $T/api.log
fi
# Launches checked against the kernel's signature (the same program runs on the GPU in tests/gpu.sh).
if want launch/; then
    TL_INTERPRET=1 timeout 300 build/tests/launch_test > $T/launch.log 2>&1
    rc=$?
    count_lines $T/launch.log launch
    [ $rc -gt 1 ] && report "launch/exit ($rc)" 1 $T/launch.log
fi
# @triton.heuristics evaluated at each launch, and pruned autotuning (heur_test.c; on the GPU in tests/gpu.sh).
if want heur/; then
    TL_INTERPRET=1 timeout 300 build/tests/heur_test > $T/heur.log 2>&1
    rc=$?
    count_lines $T/heur.log heur
    [ $rc -gt 1 ] && report "heur/exit ($rc)" 1 $T/heur.log
fi
# Numeric checks of the language's ops against C references (ops_test.c).
if want ops/; then
    TL_INTERPRET=1 timeout 300 build/tests/ops_test > $T/ops.log 2>&1
    rc=$?
    count_lines $T/ops.log ops
    [ $rc -gt 1 ] && report "ops/exit ($rc)" 1 $T/ops.log
fi
for ex in copy grayscale swizzle matmul interop tutorials; do
    run_example $ex TL_INTERPRET=1
done
# The IR-level passes tested by execution: the ops and the tutorials again,
# the interpreter running each kernel's IR after combine, flatten, peel and sink
# (TL_INTERPRET_PASSES), against the same references.
if want passes-run/; then
    TL_INTERPRET=1 TL_INTERPRET_PASSES=combine,flatten,peel,sink timeout 300 build/tests/ops_test > $T/ops_passes.log 2>&1
    rc=$?
    sed -i 's/^\[\(PASS\|FAIL\)\] ops\//[\1] passes-run\/ops\//' $T/ops_passes.log
    count_lines $T/ops_passes.log passes-run
    [ $rc -gt 1 ] && report "passes-run/ops exit ($rc)" 1 $T/ops_passes.log
    TL_INTERPRET=1 TL_INTERPRET_PASSES=combine,flatten,peel,sink timeout 300 build/examples/tutorials > $T/tut_passes.log 2>&1
    rc=$?
    count_lines $T/tut_passes.log passes-run/tutorials
    grep -q " \.\.\. " $T/tut_passes.log || report "passes-run/tutorials (exit $rc)" 1 $T/tut_passes.log
    TL_INTERPRET=1 TL_INTERPRET_PASSES=flatten,layout build/examples/copy > $T/passes_bad.log 2>&1
    grep -q "error: TL_INTERPRET_PASSES: 'layout' is not a pass the interpreter can run after" $T/passes_bad.log
    report "passes-run/refused_layout" $? $T/passes_bad.log
fi
# grayscale on a real PNG (ragged 203x137), writing the grey PNG and reading it back.
if want example/grayscale-png; then
    TL_INTERPRET=1 build/examples/grayscale tests/data/rgb_203x137.png $T/grey.png > $T/grey_png.log 2>&1
    grep -q "rgb_203x137.png (203x137) *\.\.\. OK" $T/grey_png.log
    report "example/grayscale-png" $? $T/grey_png.log
fi

# TL_DUMP writes every stage of every kernel compiled (the interpreter's: AST, IR).
if want api/tl_dump; then
    rm -rf $T/dump && mkdir -p $T/dump
    TL_INTERPRET=1 TL_DUMP=1 TL_DUMP_DIR=$T/dump build/examples/copy > $T/dump.log 2>&1
    ls $T/dump >> $T/dump.log
    ls $T/dump/copy_k-*.ast > /dev/null 2>&1 && grep -q "func @copy_k" $T/dump/copy_k-*.ir
    report "api/tl_dump" $? $T/dump.log
fi
# ... one file set per kernel compiled: the matmul example builds matmul_kernel
# 13 ways (-D values, configs, signatures); names from the specialisation
# alone kept 8 of them.
if want api/tl_dump_names; then
    rm -rf $T/dump && mkdir -p $T/dump
    TL_INTERPRET=1 TL_DUMP=1 TL_DUMP_DIR=$T/dump build/examples/matmul > $T/dump_names.log 2>&1
    ls $T/dump >> $T/dump_names.log
    [ "$(ls $T/dump/matmul_kernel-*.ir | wc -l)" -eq 13 ]
    report "api/tl_dump_names" $? $T/dump_names.log
fi
