# tests/fakegpu.sh (sourced by tests/run.sh): libtl's CUDA path on a fake
# driver (tests/fake_libcuda.c), one run per compute capability: every
# capability gets an arch (the nearest known one below it), a host pointer
# is refused, an unsafe cache directory is not used.
if want fakegpu/; then
    if cc -shared -fPIC -O1 -o $T/fake_libcuda.so tests/fake_libcuda.c > $T/fakegpu_build.log 2>&1; then
        for cc_arch in 80:sm_80 86:sm_86 87:sm_86 89:sm_89 90:sm_90a 100:sm_90 120:sm_90; do
            log=$T/fakegpu_${cc_arch%%:*}.log
            TL_LIBCUDA=$PWD/$T/fake_libcuda.so FAKE_CC=${cc_arch%%:*} timeout 120 build/tests/fakegpu_test \
                ${cc_arch%%:*} ${cc_arch#*:} > $log 2>&1
            rc=$?
            count_lines $log fakegpu
            [ $rc -gt 1 ] && report "fakegpu/cc${cc_arch%%:*} (exit $rc)" 1 $log
        done
    else
        report fakegpu/build 1 $T/fakegpu_build.log
    fi
fi
