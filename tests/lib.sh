# tests/lib.sh: helpers shared by the test drivers (tests/run.sh, tests/gpu.sh).
TLC=${TLC:-build/bin/tlc}
T=build/tests
HB=build/harness # the suites' own programs (the Makefile's `harness`)
mkdir -p "$T"
pass=0 fail=0

want_suite() { # prefix ("interp/"): could ONLY want a test named PREFIX...? (so the suite's program is built)
    local o
    [ -z "$ONLY" ] && return 0
    for o in $ONLY; do
        case "$o" in */*) ;; *) return 0 ;; esac # a bare word may match inside any name
        case "$o" in *"$1"*) return 0 ;; esac
        case "$1" in *"$o"*) return 0 ;; esac
    done
    return 1
}

want() { # name: run it? ONLY holds one or more space-separated patterns
    local o
    for o in ${ONLY:-""}; do case "$1" in *"$o"*) return 0 ;; esac; done
    [ -z "$ONLY" ]
}

report() { # name rc [detail-file]
    want "$1" || return 0
    if [ "$2" = 0 ]; then
        pass=$((pass + 1)); echo "[PASS] $1"
    else
        fail=$((fail + 1)); echo "[FAIL] $1"
        [ -n "$3" ] && [ -f "$3" ] && sed 's/^/    /' "$3" | head -40
    fi
}

# Turn a program's "[PASS] name" / "[FAIL] name" lines and the examples'
# "name ... OK" / "name ... FAIL: why" lines into results.
count_lines() { # log prefix-for-example-lines
    local line name
    while IFS= read -r line; do
        case "$line" in
            "[PASS] "*) report "${line#\[PASS\] }" 0 ;;
            "[FAIL] "*) report "${line#\[FAIL\] }" 1 ;;
            *" ... OK") name=${line% ... OK}; report "$2/$(echo $name)" 0 ;;
            *" ... FAIL"*) name=${line%% ... FAIL*}; echo "$line" > $T/line.log
                           report "$2/$(echo $name)" 1 $T/line.log ;;
            "    "*) echo "$line" ;;
        esac
    done < "$1"
}

# Run an example program; every case line counts. A program that prints no
# case line at all (crashed, could not start) is one failure.
run_example() { # name [env...]
    local ex=$1 log=$T/example_$1.log; shift
    want "example/$ex" || return 0
    env "$@" timeout 900 build/examples/$ex > $log 2>&1
    local rc=$?
    count_lines $log example/$ex
    grep -q " \.\.\. " $log || report "example/$ex (exit $rc)" 1 $log
}

# Check an error test's diagnostics: exit code 1 and every expectation, from
# FILE's "# expect: ..." lines or the NAME.expect beside it. An expectation
# starting with a digit is "LINE:COL: error: MESSAGE" at FILE; any other is a
# plain substring. No error beyond the expected ones may appear. Problems are
# appended to LOG; returns 0 when all hold.
check_expected() { # file log rc
    local f=$1 log=$2 rc=$3 ok=0 exp e
    if [ -f "${f%.tl}.expect" ]; then exp=$(cat "${f%.tl}.expect")
    else exp=$(sed -n 's/^# expect: //p' "$f"); fi
    [ "$rc" = 1 ] || { echo "exit code $rc, want 1" >> "$log"; ok=1; }
    [ -n "$exp" ] || { echo "no '# expect:' line" >> "$log"; ok=1; }
    while IFS= read -r e; do
        [ -z "$e" ] && continue
        case "$e" in
            [0-9]*) grep -qF -- "$f:$e" "$log" || { echo "missing: $f:$e" >> "$log"; ok=1; } ;;
            *) grep -qF -- "$e" "$log" || { echo "missing: $e" >> "$log"; ok=1; } ;;
        esac
    done <<< "$exp"
    # and no other error: as many error lines as expected ones (at least as
    # many when the test expects the --max-errors cap to be hit)
    local want_n got_n
    want_n=$(grep -c ': error: ' <<< "$exp")
    got_n=$(grep -cE '^[^[:space:]]+: error: ' "$log")
    if [ "$want_n" -gt 0 ] && [ "$got_n" != "$want_n" ]; then
        if ! grep -q 'too many errors' <<< "$exp" || [ "$got_n" -lt "$want_n" ]; then
            echo "$got_n errors reported, $want_n expected" >> "$log"; ok=1
        fi
    fi
    return $ok
}

finish() {
    echo "$pass passed, $fail failed"
    [ $fail = 0 ]
}
