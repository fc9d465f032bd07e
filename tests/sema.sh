# tests/sema.sh: semantic analysis (sourced by tests/run.sh).
#   tests/sema/*.tl      bad kernels: `tlc --emit=ir ARGS FILE` (ARGS from the "# RUN:" line:
#                        --signature, --kernel, -D, ...) prints exactly the "# expect:" lines'
#                        diagnostics and exits 1
#   tests/sema_ok/*.tl   good kernels: the same exits 0 (the IR verifies), printing exactly
#                        the "# expect:" lines' warnings and notes, and exactly the IR of
#                        NAME.ir beside it (UPDATE=1 rewrites the .ir files: read their diff
#                        before committing)
# tt_check (tests/lib.sh) reads the directives and runs the checks.
for f in tests/sema/*.tl tests/sema_ok/*.tl; do
    [ -f "$f" ] || continue
    d=${f%/*} n=${f##*/}; d=${d##*/} n=${n%.tl}
    want "$d/$n" || continue
    log=$T/${d}_$n.log; : > $log
    g=""; [ $d = sema_ok ] && g=ir!
    tt_check $log "$f" "$g" $TLC --emit=ir
    report "$d/$n" $? "$log"
done

# Sema in linear time: generated kernels of 20,000 statements compile to IR
# in under a second each: straight-line code binding a new name per statement
# with every 50th a runtime if, and one runtime for loop of 20,000 statements
# (as many loop-carried candidates); one kernel picked from a file of
# 10,000; and 20,000 casts that combine narrows (its replacements made in
# one walk at the end, not a walk of the function each). They took minutes
# and gigabytes while sema copied the scope before every statement,
# searched names one by one and grew the globals by one.
sema_linear_gen() { # straight|loop|kernels
    if [ "$1" = kernels ]; then # 10,000 kernels, one picked with --kernel
        printf 'import triton\nimport triton.language as tl\n'
        awk 'BEGIN { for (i = 0; i < 10000; i++)
            printf "\n\n@triton.jit\ndef k%d(x_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) + %d, mask=o < n)\n", i, i }'
        return
    fi
    printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\n'
    if [ "$1" = casts ]; then # 20,000 casts combine narrows (round trips, f16 products, casts sunk into ifs)
        printf 'def k(x_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n'
        printf '    v0 = tl.load(x_ptr + o, mask=o < n).to(tl.float16)\n    g = v0.to(tl.float32)\n'
        awk 'BEGIN { for (i = 1; i < 20000; i++)
            if (i % 50 == 0) printf "    if n > %d:\n        s = v%d.to(tl.float32)\n    else:\n        s = v%d.to(tl.float32) + g\n    v%d = s.to(tl.float16)\n", i, i - 1, i - 1, i
            else if (i % 2) printf "    v%d = (v%d.to(tl.float32) * g).to(tl.float16)\n", i, i - 1
            else printf "    v%d = v%d.to(tl.float32).to(tl.float16) + 1.0\n", i, i - 1 }'
        printf '    tl.store(x_ptr + o, v19999, mask=o < n)\n'
        return
    fi
    printf 'def k(x_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    v0 = tl.load(x_ptr + o, mask=o < n)\n'
    if [ "$1" = loop ]; then
        printf '    for j in range(n):\n'
        awk 'BEGIN { for (i = 1; i < 20000; i++) printf "        v%d = v%d + %d\n", i, i - 1, i % 7 }'
        printf '        v0 = v19999\n    tl.store(x_ptr + o, v0, mask=o < n)\n'
        return
    fi
    awk 'BEGIN { for (i = 1; i < 20000; i++)
        if (i % 50) printf "    v%d = v%d + %d\n", i, i - 1, i % 7
        else printf "    if n > %d:\n        v%d = v%d * 2.0\n    else:\n        v%d = v%d - 1.0\n", i, i, i - 1, i, i - 1 }'
    printf '    tl.store(x_ptr + o, v19999, mask=o < n)\n'
}
for shape in straight loop kernels casts; do
    want sema/linear_20000_$shape || continue
    log=$T/sema_linear_$shape.log f=$T/sema_linear_$shape.tl
    sema_linear_gen $shape > $f
    k=; [ $shape = kernels ] && k="--kernel k5000"
    start=$(date +%s%N)
    # shellcheck disable=SC2086
    NO_COLOR=1 timeout 60 $TLC --emit=ir --signature '*fp32, i32, 128' $k $f > $T/sema_linear.out 2> $log
    rc=$? ms=$(( ($(date +%s%N) - start) / 1000000 ))
    echo "exit $rc in $ms ms" >> $log
    [ $rc = 0 ] && [ $ms -lt 1000 ] && grep -q "^  store " $T/sema_linear.out
    report sema/linear_20000_$shape $? $log
done
