#!/bin/sh
# fake_ptxas.sh: stands in for ptxas in tests/aot.sh. Records its arguments in
# $FAKE_PTXAS_LOG and writes, as the "cubin", a first line naming its -arch
# flag followed by the PTX it was given (and a NUL with $FAKE_PTXAS_NUL, for
# tests/fake_libcuda.c, which reads it as text); fails when $FAKE_PTXAS_FAIL
# is set.
[ -n "$FAKE_PTXAS_LOG" ] && echo "$*" >> "$FAKE_PTXAS_LOG"
if [ -n "$FAKE_PTXAS_FAIL" ]; then
    echo "ptxas fatal   : fake failure" >&2
    exit 1
fi
arch= out= in=
while [ $# -gt 0 ]; do
    case $1 in
        -arch=*) arch=$1 ;;
        -o) out=$2; shift ;;
        *) in=$1 ;;
    esac
    shift
done
{ echo "FAKE-CUBIN $arch"; cat "$in"; if [ -n "$FAKE_PTXAS_NUL" ]; then printf '\0'; fi; } > "$out"
