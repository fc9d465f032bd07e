# tests/fuzz_deep.sh: a short fixed-seed run of the mutation fuzzer of the
# whole compiler (tests/fuzz/mutate.py; sourced by tests/run.sh). 300 mutants
# of the valid kernels go through `tlc --emit=ptx`; none may exit 4, crash or
# hang. `make fuzz-deep` is the long run with a random seed.
if want fuzz/deep; then
    if command -v python3 > /dev/null; then
        log=$T/fuzz_deep.log
        python3 tests/fuzz/mutate.py --tlc $TLC --count 300 --seed 1 --out $T/fuzz-deep > $log 2>&1
        report "fuzz/deep (300 mutants, seed 1)" $? $log
    else
        echo "note: no python3: fuzz/deep skipped"
    fi
fi
