# tests/lib_boundary.sh (sourced by tests/run.sh): libtl as its users see it.
#   lib/exports         libtl.so exports exactly the TL_API calls of tl.h; libtl.a
#                       defines no other global symbol
#   lib/soname          libtl.so.VERSION, its soname links, what it and its users need
#   lib/boundary/*      tests/lib_boundary.c defines its own read_file, fail,
#                       yyparse, buf_free and still gets libtl's behaviour
#   lib/man/*           the man pages render cleanly and name every API call and
#                       every tlc option
#   lib/install/*       make install into a DESTDIR; a program built with
#                       pkg-config against it (shared, then static) runs on the
#                       interpreter; make uninstall leaves no file behind
lb_version=$(sed -n 's/^VERSION *:= *//p' Makefile)
lb_api() { sed -n 's/^TL_API .*[ *]\(tl_[a-z0-9_]*\)(.*/\1/p' runtime/tl.h | sort -u; }

if want lib/exports; then
    log=$T/lib_exports.log ok=0
    : > $log
    nm -D --defined-only build/lib/libtl.so | awk '{print $NF}' | sort > $T/lib_exports.txt
    lb_api > $T/lib_api.txt
    [ -s $T/lib_api.txt ] || { echo "no TL_API declarations found in runtime/tl.h" >> $log; ok=1; }
    if ! diff $T/lib_api.txt $T/lib_exports.txt > $T/lib_exports.diff; then
        echo "libtl.so's dynamic symbols differ from tl.h's TL_API calls (< tl.h only, > libtl.so only):" >> $log
        grep '^[<>]' $T/lib_exports.diff >> $log
        ok=1
    fi
    nm -g --defined-only build/lib/libtl.a | awk 'NF == 3 {print $3}' | grep -v '^tl_' > $T/lib_a_extra.txt
    if [ -s $T/lib_a_extra.txt ]; then
        echo "libtl.a defines global symbols outside tl_*:" >> $log
        head -20 $T/lib_a_extra.txt >> $log
        ok=1
    fi
    report lib/exports $ok $log
fi

if want lib/soname; then
    log=$T/lib_soname.log ok=0
    : > $log
    real=build/lib/libtl.so.$lb_version
    [ -f $real ] && [ ! -L $real ] || { echo "$real is not a file" >> $log; ok=1; }
    [ "$(readlink build/lib/libtl.so.0)" = libtl.so.$lb_version ] || { echo "libtl.so.0 -> $(readlink build/lib/libtl.so.0)" >> $log; ok=1; }
    [ "$(readlink build/lib/libtl.so)" = libtl.so.0 ] || { echo "libtl.so -> $(readlink build/lib/libtl.so)" >> $log; ok=1; }
    readelf -d $real > $T/lib_dyn.txt 2>> $log
    grep -q 'SONAME.*\[libtl\.so\.0\]' $T/lib_dyn.txt || { echo "soname is not libtl.so.0:" >> $log; grep SONAME $T/lib_dyn.txt >> $log; ok=1; }
    # Relocatable and self-contained: LLVM, libstdc++, zlib and zstd are inside.
    extra=$(sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' $T/lib_dyn.txt |
            grep -v '^\(libc\|libm\|libdl\|libpthread\)\.so\.[0-9]*$\|^ld-linux')
    [ -z "$extra" ] || { echo "libtl.so needs more than libc and libm: $extra" >> $log; ok=1; }
    for p in build/examples/copy build/tests/api_test build/bin/tl-bench; do
        readelf -d $p > $T/lib_dyn_user.txt 2>> $log
        grep -q 'NEEDED.*\[libtl\.so\.0\]' $T/lib_dyn_user.txt || { echo "$p does not need libtl.so.0" >> $log; ok=1; }
        grep -q 'R.*PATH.*\[\$ORIGIN/\.\./lib\]' $T/lib_dyn_user.txt || { echo "$p has no \$ORIGIN/../lib rpath" >> $log; ok=1; }
    done
    # tlc links the compiler statically: it runs without libtl.so.
    readelf -d build/bin/tlc | grep -q 'NEEDED.*libtl' && { echo "tlc needs libtl.so" >> $log; ok=1; }
    report lib/soname $ok $log
fi

# A host program with its own read_file, fail, yyparse and buf_free.
if want lib/boundary; then
    log=$T/lib_boundary_build.log
    ${CC:-cc} -std=gnu11 -O1 -g -Wall -Wextra -Wno-unused-parameter -Iruntime -o $T/lib_boundary tests/lib_boundary.c \
        -Lbuild/lib -ltl -Wl,-rpath,'$ORIGIN/../lib' > $log 2>&1
    rc=$?
    report lib/boundary/build $rc $log
    if [ $rc = 0 ]; then
        timeout 120 $T/lib_boundary examples/copy.tl > $T/lib_boundary.log 2>&1
        rc=$?
        count_lines $T/lib_boundary.log lib/boundary
        grep -q '^\[PASS\] lib/boundary/launch-cpu-result' $T/lib_boundary.log || report "lib/boundary (exit $rc)" 1 $T/lib_boundary.log
    fi
fi

if want lib/man; then
    for page in docs/man/tlc.1 docs/man/libtl.3; do
        log=$T/lib_man_$(basename $page).log
        if command -v groff > /dev/null; then
            groff -man -ww -z $page > $log 2>&1
            [ -s $log ] && ok=1 || ok=0
        else
            echo "(no groff: only the names are checked)" > $log; ok=0
        fi
        # Every API call (libtl.3) and every tlc option (tlc.1) is documented.
        case $page in
            *.3) names=$(lb_api) ;;
            *.1) names=$($TLC --help | grep -o -- '^  -[-a-zA-Z]*\|, --[a-z-]*' | sed 's/^[ ,]*//' | sort -u) ;;
        esac
        [ -n "$names" ] || { echo "nothing to look for" >> $log; ok=1; }
        for n in $names; do
            grep -qF -- "$(echo "$n" | sed 's/-/\\-/g')" $page || { echo "$page does not mention $n" >> $log; ok=1; }
        done
        report lib/man/$(basename $page) $ok $log
    done
fi

# make install into a DESTDIR, programs built against it with pkg-config,
# then make uninstall.
if want lib/install; then
    lb_tmp=$(mktemp -d)
    lb_root=$lb_tmp/root lb_pre=/usr/local
    lb_files="bin/tlc include/tl.h lib/libtl.a lib/libtl.so lib/libtl.so.0 lib/libtl.so.$lb_version
              lib/pkgconfig/tl.pc share/man/man1/tlc.1 share/man/man3/libtl.3"
    log=$T/lib_install.log
    make --no-print-directory -s install DESTDIR=$lb_root PREFIX=$lb_pre > $log 2>&1
    ok=$?
    (cd $lb_root$lb_pre && find . \( -type f -o -type l \) | sed 's|^\./||' | sort) > $T/lib_installed.txt
    echo $lb_files | tr ' ' '\n' | sort | diff - $T/lib_installed.txt >> $log || ok=1
    cmp -s runtime/tl.h $lb_root$lb_pre/include/tl.h || { echo "installed tl.h differs" >> $log; ok=1; }
    grep -q "^prefix=$lb_pre\$" $lb_root$lb_pre/lib/pkgconfig/tl.pc || { echo "tl.pc: prefix is not $lb_pre" >> $log; ok=1; }
    # The installed tlc stands alone.
    env -u LD_LIBRARY_PATH $lb_root$lb_pre/bin/tlc examples/copy.tl --signature '*fp32:16, *fp32:16, i32, 1024' \
        -o $lb_tmp/copy.ptx >> $log 2>&1 && grep -q "\.entry copy_k" $lb_tmp/copy.ptx ||
        { echo "the installed tlc did not compile examples/copy.tl" >> $log; ok=1; }
    report lib/install/files $ok $log

    # A host program built the README's way, against the installed copy only.
    log=$T/lib_install_shared.log
    lb_pc() { PKG_CONFIG_PATH=$lb_root$lb_pre/lib/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent PKG_CONFIG_SYSROOT_DIR=$lb_root pkg-config "$@"; }
    flags=$(lb_pc --cflags --libs tl 2>> $log)
    echo "pkg-config --cflags --libs tl: $flags" >> $log
    ok=1
    if [ -n "$flags" ] && ${CC:-cc} -std=gnu11 -O1 -o $lb_tmp/copy examples/copy.c $flags -lm >> $log 2>&1; then
        TL_INTERPRET=1 LD_LIBRARY_PATH=$lb_root$lb_pre/lib timeout 300 $lb_tmp/copy > $T/lib_install_copy.log 2>&1
        rc=$?
        cat $T/lib_install_copy.log >> $log
        LD_LIBRARY_PATH=$lb_root$lb_pre/lib ldd $lb_tmp/copy | grep -q "libtl.so.0 => $lb_root$lb_pre/lib/" ||
            echo "copy does not load the installed libtl.so.0" >> $log
        [ $rc = 0 ] && grep -q " \.\.\. OK" $T/lib_install_copy.log && ! grep -q "FAIL" $T/lib_install_copy.log &&
            grep -q "^device:.*cpu" $T/lib_install_copy.log && ! grep -q "does not load" $log && ok=0
    fi
    report lib/install/pkg-config-shared $ok $log

    # Static: libtl.a plus LLVM's static libraries, from tl.pc's Libs.private.
    log=$T/lib_install_static.log
    flags=$(PKG_CONFIG_PATH=$lb_root$lb_pre/lib/pkgconfig PKG_CONFIG_LIBDIR=/nonexistent \
            pkg-config --define-variable=prefix=$lb_root$lb_pre --static --libs tl 2>> $log)
    ok=1
    if [ -n "$flags" ] && ${CC:-cc} -std=gnu11 -O1 -Wno-unused-parameter -I$lb_root$lb_pre/include -o $lb_tmp/boundary_static \
           tests/lib_boundary.c -Wl,-Bstatic $flags >> $log 2>&1; then
        readelf -d $lb_tmp/boundary_static | grep -q 'NEEDED.*libtl' && echo "linked libtl.so, not libtl.a" >> $log ||
            { timeout 120 $lb_tmp/boundary_static examples/copy.tl >> $log 2>&1 && ok=0; }
    fi
    report lib/install/pkg-config-static $ok $log

    log=$T/lib_uninstall.log
    make --no-print-directory -s uninstall DESTDIR=$lb_root PREFIX=$lb_pre > $log 2>&1
    ok=$?
    find $lb_root \( -type f -o -type l \) >> $log
    [ -z "$(find $lb_root \( -type f -o -type l \))" ] || ok=1
    report lib/install/uninstall $ok $log
    rm -rf $lb_tmp
fi
