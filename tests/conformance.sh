# tests/conformance.sh: the conformance harness's own self-test
# (tools/conformance/selftest.sh: the ctypes binding against tl.h, Triton's
# specialisation rules, the shim over a fake torch and triton on tl's CPU
# interpreter, run.sh + report.py over a fake suite). Sourced by tests/run.sh.
# Needs /usr/bin/python3 (Debian's, whatever python3 PATH names) with numpy, pytest and pytest-xdist (tools/deps.sh installs them).
if want conformance/selftest; then
    log=$T/conformance_selftest.log
    if /usr/bin/python3 -c 'import numpy, pytest, xdist' > /dev/null 2>&1; then
        PYTHON=/usr/bin/python3 timeout 300 bash tools/conformance/selftest.sh > $log 2>&1
        rc=$?
        grep -q '^== selftest: all passed' $log || rc=1
        report conformance/selftest $rc $log
    else
        echo "/usr/bin/python3 has no numpy, pytest and pytest-xdist (apt-get install python3-numpy python3-pytest python3-pytest-xdist)" > $log
        report conformance/selftest 1 $log
    fi
fi
