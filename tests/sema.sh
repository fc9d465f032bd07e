# tests/sema.sh: semantic analysis (sourced by tests/run.sh).
#   tests/sema/*.tl      bad kernels: `tlc --emit=ir` exits 1 and prints every
#                        "# expect: LINE:COL: error: MESSAGE" line of the file
#                        (a line not starting with a digit is matched anywhere)
#   tests/sema_ok/*.tl   good kernels: `tlc --emit=ir` exits 0 (the IR verifies),
#                        printing exactly the "# expect-warning: LINE:COL: warning: MESSAGE"
#                        lines of the file, and exactly the IR of NAME.ir beside it
#                        (UPDATE=1 rewrites the .ir files: read their diff before committing)
# A file carries the flags its compile needs in comment lines:
#   # kernel: NAME            --kernel NAME
#   # signature: SIG          --signature "SIG"
#   # defines: A=1 B='x'      -D A=1 -D B='x' (split at spaces)
#   # options: FLAGS          further tlc flags (--autotune-config 1, --num-warps 8)

sema_run() { # file log -> exit status of tlc; IR on $T/sema.out
    local f=$1 log=$2 sig k opts d
    local -a args=(--emit=ir)
    sig=$(sed -n 's/^# signature: //p' "$f" | head -1)
    k=$(sed -n 's/^# kernel: //p' "$f" | head -1)
    opts=$(sed -n 's/^# options: //p' "$f" | head -1)
    [ -n "$sig" ] && args+=(--signature "$sig")
    [ -n "$k" ] && args+=(--kernel "$k")
    for d in $(sed -n 's/^# defines: //p' "$f"); do args+=(-D "$d"); done
    # shellcheck disable=SC2086
    NO_COLOR=1 timeout 20 $TLC "${args[@]}" $opts "$f" > $T/sema.out 2> "$log"
}

for f in tests/sema/*.tl; do
    [ -f "$f" ] || continue
    n=sema/$(basename "$f" .tl); log=$T/sema_$(basename "$f").log
    want "$n" || continue
    sema_run "$f" "$log"
    check_expected "$f" "$log" $?
    report "$n" $? "$log"
done

for f in tests/sema_ok/*.tl; do
    [ -f "$f" ] || continue
    n=sema_ok/$(basename "$f" .tl); log=$T/sema_ok_$(basename "$f").log
    want "$n" || continue
    sema_run "$f" "$log"
    rc=$?
    [ $rc = 0 ] || echo "exit code $rc, want 0" >> "$log"
    # "# expect-warning: LINE:COL: warning: MESSAGE" lines: each printed, and
    # no warning besides them
    bad=0
    while IFS= read -r e; do
        [ -z "$e" ] && continue
        grep -qF -- "$f:$e" "$log" || { echo "missing: $f:$e" >> "$log"; bad=1; }
    done <<< "$(sed -n 's/^# expect-warning: //p' "$f")"
    want_w=$(grep -c '^# expect-warning: ' "$f")
    got_w=$(grep -cE '^[^[:space:]]+: warning: ' "$log")
    [ "$want_w" = "$got_w" ] || { echo "$got_w warnings reported, $want_w expected" >> "$log"; bad=1; }
    # the IR sema made, exactly
    [ "${UPDATE:-0}" = 1 ] && [ $rc = 0 ] && cp $T/sema.out "${f%.tl}.ir"
    if [ ! -f "${f%.tl}.ir" ]; then
        echo "no ${f%.tl}.ir (UPDATE=1 writes it)" >> "$log"; bad=1
    elif ! cmp -s $T/sema.out "${f%.tl}.ir"; then
        echo "the IR differs from ${f%.tl}.ir:" >> "$log"; diff "${f%.tl}.ir" $T/sema.out | head -20 >> "$log"; bad=1
    fi
    report "$n" $(( rc != 0 || bad )) "$log"
done

# Sema in linear time: generated kernels of 20,000 statements compile to IR
# in under a second each: straight-line code binding a new name per statement
# with every 50th a runtime if, and one runtime for loop of 20,000 statements
# (as many loop-carried candidates); and one kernel picked from a file of
# 10,000. They took minutes and gigabytes while sema copied the scope before
# every statement, searched names one by one and grew the globals by one.
sema_linear_gen() { # straight|loop|kernels
    if [ "$1" = kernels ]; then # 10,000 kernels, one picked with --kernel
        printf 'import triton\nimport triton.language as tl\n'
        awk 'BEGIN { for (i = 0; i < 10000; i++)
            printf "\n\n@triton.jit\ndef k%d(x_ptr, n, BLOCK: tl.constexpr):\n    o = tl.arange(0, BLOCK)\n    tl.store(x_ptr + o, tl.load(x_ptr + o) + %d, mask=o < n)\n", i, i }'
        return
    fi
    printf 'import triton\nimport triton.language as tl\n\n\n@triton.jit\n'
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
for shape in straight loop kernels; do
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
