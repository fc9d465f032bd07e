# tests/fakegpu.sh (sourced by tests/run.sh): libtl's CUDA path on a fake
# driver (tests/fake_libcuda.c), one run per compute capability: every
# capability gets an arch (the nearest known one below it), a host pointer
# is refused, an unsafe cache directory is not used; the library's PTX has
# line tables by default (.file naming the kernel's source, .loc lines) and
# none with TL_DISABLE_LINE_INFO=1.
if want fakegpu/; then
    if [ -f $HB/fake_libcuda.so ]; then
        for cc_arch in 80:sm_80 86:sm_86 87:sm_86 89:sm_89 90:sm_90a 100:sm_90 120:sm_90; do
            log=$T/fakegpu_${cc_arch%%:*}.log
            TL_PTXAS=none TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=${cc_arch%%:*} timeout 120 build/tests/fakegpu_test \
                ${cc_arch%%:*} ${cc_arch#*:} > $log 2>&1
            rc=$?
            count_lines $log fakegpu
            [ $rc -gt 1 ] && report "fakegpu/cc${cc_arch%%:*} (exit $rc)" 1 $log
        done
        # With a ptxas (the fake one): run as Triton runs it, on the arch the
        # library chose, with -lineinfo (the library's default); the image
        # it wrote is what the driver loads. Not on a device that cannot run
        # that arch's machine code (12.0 gets sm_90): its PTX is loaded.
        for fg_cc in 86:sm_86 120:sm_90; do
            n=fakegpu/ptxas_runs_whole; [ ${fg_cc%%:*} = 120 ] && n=fakegpu/ptxas_not_for_another_major
            want $n || continue
            log=$T/fakegpu_ptxas${fg_cc%%:*}.log
            rm -f $T/fg_ptxas.args
            FAKE_PTXAS_NUL=1 FAKE_PTXAS_LOG=$PWD/$T/fg_ptxas.args TL_PTXAS=$PWD/tests/aot/fake_ptxas.sh \
                TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=${fg_cc%%:*} timeout 120 build/tests/fakegpu_test \
                ${fg_cc%%:*} ${fg_cc#*:} > $log 2>&1
            rc=$?
            grep -q '^\[FAIL\]' $log && rc=1
            if [ ${fg_cc%%:*} = 120 ]; then
                [ ! -e $T/fg_ptxas.args ] || { echo "ptxas ran: $(cat $T/fg_ptxas.args 2>&1)" >> $log; rc=1; }
            else
                grep -qx -- "-arch=sm_86 -lineinfo -o /.*/tl-ptxas-[A-Za-z0-9]*/kernel.cubin /.*/kernel.ptx" $T/fg_ptxas.args ||
                    { echo "ptxas arguments: $(cat $T/fg_ptxas.args 2>&1)" >> $log; rc=1; }
            fi
            report $n $rc $log
        done
        # Kernels for other arches (fakegpu_test's "targets"): sm_70 runs
        # everywhere (the driver compiles its PTX); sm_100a only on 10.0,
        # elsewhere compile-only. With a ptxas, a compile-only target's cubin
        # is built (and dumped) though never loaded; sm_70's is not, on 9.0.
        for fg_cc in 90 100 120; do
            want fakegpu/targets_cc$fg_cc || continue
            log=$T/fakegpu_targets$fg_cc.log
            TL_PTXAS=none TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=$fg_cc timeout 120 build/tests/fakegpu_test \
                $fg_cc targets > $log 2>&1
            report fakegpu/targets_cc$fg_cc $? $log
        done
        # On a 9.0 device: a row kernel's registers capped for one more CTA an
        # SM where the fake driver reports no spills at the cap (fakegpu_test
        # occupancy); a kernel that makes its tensor maps gets its global
        # scratch from the launch's stream (fakegpu_test scratch).
        for fg_mode in occupancy scratch; do
            want fakegpu/$fg_mode || want fakegpu/cc90/$fg_mode || continue
            log=$T/fakegpu_$fg_mode.log
            TL_PTXAS=none TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=90 timeout 120 build/tests/fakegpu_test \
                90 $fg_mode > $log 2>&1
            rc=$?
            count_lines $log fakegpu
            [ $rc -gt 1 ] && report "fakegpu/$fg_mode (exit $rc)" 1 $log
        done
        if want fakegpu/compile_only_cubin; then
            log=$T/fakegpu_compile_only.log
            rm -rf $T/fg_co && mkdir -p $T/fg_co
            FAKE_PTXAS_NUL=1 FAKE_PTXAS_LOG=$PWD/$T/fg_co/ptxas.args TL_PTXAS=$PWD/tests/aot/fake_ptxas.sh \
                TL_DUMP_DIR=$T/fg_co TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=90 timeout 120 build/tests/fakegpu_test \
                90 targets > $log 2>&1
            rc=$?
            [ "$(grep -o -- '-arch=sm_[0-9a]*' $T/fg_co/ptxas.args | tr '\n' ' ')" = "-arch=sm_100a " ] ||
                { echo "ptxas runs: $(cat $T/fg_co/ptxas.args 2>&1)" >> $log; rc=1; }
            grep -q "^FAKE-CUBIN -arch=sm_100a" $T/fg_co/*.cubin || { echo "no sm_100a cubin dumped" >> $log; rc=1; }
            report fakegpu/compile_only_cubin $rc $log
        fi
        for fg_off in 0 1; do
            n=fakegpu/lineinfo_default; [ $fg_off = 1 ] && n=fakegpu/lineinfo_disabled
            want $n || continue
            log=$T/fakegpu_lineinfo$fg_off.log
            rm -rf $T/fg_dump$fg_off && mkdir -p $T/fg_dump$fg_off
            TL_PTXAS=none TL_LIBCUDA=$PWD/$HB/fake_libcuda.so FAKE_CC=80 TL_CACHE_DIR=$PWD/$T/fg_dump$fg_off/cache TL_DUMP=1 \
                TL_DUMP_DIR=$T/fg_dump$fg_off TL_DISABLE_LINE_INFO=$fg_off timeout 120 build/examples/copy > $log 2>&1
            ok=0
            ls $T/fg_dump$fg_off/*.ptx > /dev/null 2>&1 || { echo "no PTX dumped" >> $log; ok=1; }
            for p in $T/fg_dump$fg_off/*.ptx; do
                [ -f "$p" ] || continue
                if [ $fg_off = 0 ]; then
                    grep -q '^.file.1 "examples/copy.tl"$' <(sed 's/^\t//' "$p") || { echo "$p: no .file naming examples/copy.tl" >> $log; ok=1; }
                    grep -qE '^[[:space:]]+\.loc[[:space:]]+1 [0-9]+ [0-9]+$' "$p" || { echo "$p: no .loc" >> $log; ok=1; }
                    grep -q ', debug' "$p" && { echo "$p: .target says debug: ptxas would not optimise" >> $log; ok=1; }
                else
                    grep -qE '\.loc|\.file' "$p" && { echo "$p: line info with TL_DISABLE_LINE_INFO=1" >> $log; ok=1; }
                fi
            done
            report $n $ok $log
        done
    else
        report fakegpu/build 1 $T/harness_build.log
    fi
fi
