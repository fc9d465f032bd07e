#!/bin/sh
# Installs what the build needs on Debian 12 when run as root; otherwise names
# the missing packages and stops. Quiet when everything is there.
set -e
need=""
[ -x /usr/lib/llvm-19/bin/llvm-config ] || need="$need llvm-19-dev"
[ -x /usr/lib/llvm-19/bin/FileCheck ] || need="$need llvm-19-tools"
command -v flex >/dev/null 2>&1 || need="$need flex"
command -v bison >/dev/null 2>&1 || need="$need bison"
command -v clang >/dev/null 2>&1 || need="$need clang"
command -v pkg-config >/dev/null 2>&1 || need="$need pkgconf"
[ -f /usr/lib/x86_64-linux-gnu/libzstd.a ] || need="$need libzstd-dev"
[ -f /usr/lib/x86_64-linux-gnu/libz.a ] || need="$need zlib1g-dev"
[ -f /usr/include/stb/stb_image.h ] || need="$need libstb-dev"
ls /usr/lib/llvm-14/lib/clang/14*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || need="$need libclang-rt-14-dev"
# the conformance harness's self-test (tests/conformance.sh)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need="$need python3-numpy"
/usr/bin/python3 -c 'import pytest' >/dev/null 2>&1 || need="$need python3-pytest"
/usr/bin/python3 -c 'import xdist' >/dev/null 2>&1 || need="$need python3-pytest-xdist"
[ -z "$need" ] && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "deps: installing$need"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null
    apt-get install -y -qq $need >/dev/null
else
    echo "deps: missing packages:$need" >&2
    echo "deps: install them with: sudo apt-get install$need" >&2
    exit 1
fi
