# tests/cli.sh: command-line behaviour of tlc (sourced by tests/run.sh).
cli_case() { # name expected-rc expected-stream(out|err) pattern args...
    local name=$1 want=$2 stream=$3 pat=$4; shift 4
    want "cli/$name" || return
    local log=$T/cli_$name.log
    NO_COLOR=1 $TLC "$@" > $T/cli.out 2> $T/cli.err
    local rc=$? ok=0
    [ $rc = $want ] || { echo "exit $rc, want $want" > $log; ok=1; }
    grep -q -- "$pat" $T/cli.$stream || { echo "no '$pat' on std$stream" >> $log; cat $T/cli.err >> $log; ok=1; }
    report "cli/$name" $ok $log
}
cli_case help 0 out "usage: tlc" --help
cli_case version 0 out "tlc .* (LLVM 19" --version
cli_case unknown_flag 2 err "unknown option '--bogus'" --bogus examples/copy.tl
cli_case missing_file 2 err "cannot read 'no/such.tl'" no/such.tl
cli_case no_input 2 err "no input file"
cli_case bad_emit 2 err "unknown --emit form 'xyz'" --emit=xyz examples/copy.tl
cli_case missing_arg 2 err "needs an argument" examples/copy.tl -o
cli_case two_inputs 2 err "more than one input" examples/copy.tl examples/copy.tl
cli_case ast_ok 0 out "Module" --emit=ast examples/copy.tl
# An empty file is a valid module with nothing to compile.
cli_case empty_file_ast 0 out "(Module @1:1-1:1)" --emit=ast tests/data/empty.tl
cli_case empty_file_ptx 1 err "no @triton.jit function in the file" tests/data/empty.tl
cli_case needs_signature 1 err "needs a signature for parameter 'x_ptr'" examples/copy.tl
cli_case ptx_copy 0 out "ld.global.v4" examples/copy.tl --signature "*fp32:16, *fp32:16, i32:16, 1024"
cli_case bad_arch 2 err "unsupported --arch 'sm_70'" --arch sm_70 examples/copy.tl
cli_case bad_define 2 err "-D expects NAME=VALUE" -D 9x=1 examples/copy.tl
