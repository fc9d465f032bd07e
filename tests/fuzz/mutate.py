#!/usr/bin/env python3
"""mutate.py: a mutation fuzzer of the whole compiler, source to PTX.

Takes valid kernels (tests/sema_ok/*.tl with their `# RUN:` lines,
tests/codegen/*.tl with their `# RUN(...)` lines, the examples with the
signatures their programs use), changes each a little (a number, an operator,
a tl.* function, a line, a dtype of the signature, an index with None, ...),
and compiles the result with `tlc --emit=ptx`. Most mutants are invalid and
must be refused with a source error (exit 1); valid ones must compile (exit
0). Anything else is a bug: exit 4 (an internal error), a crash (a signal),
or a hang (over the timeout). Each one is saved as NAME.tl with a NAME.args
file (the tlc arguments) under --out, and the run exits 1.

    python3 tests/fuzz/mutate.py [--tlc build/bin/tlc] [--count N | --seconds S]
                                 [--seed N] [--jobs N] [--out DIR]

`make test` runs a short fixed-seed run (tests/fuzz_deep.sh); `make
fuzz-deep` runs long with a random seed. A failure found becomes a file test
(tests/sema/, tests/codegen/) once fixed.
"""
import argparse
import concurrent.futures as cf
import glob
import os
import random
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

MM16 = "*fp16:16, *fp16:16, *fp16:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"
MM32 = "*fp32:16, *fp32:16, *fp16:16, i32, i32, i32, i32, i32:1, i32, i32:1, i32, i32:1"
MMF = "*fp32:16, *fp32:16, *fp32:16, i32:16, i32:16, i32:16, i32:16, i32:1, i32:16, i32:1, i32:16, i32:1"
# the examples with the arguments tests/codegen.sh compiles them with
EXAMPLES = [
    ("copy.tl", ["--signature", "*fp32:16, *fp32:16, i32:16, 1024"]),
    ("grayscale.tl", ["--signature", "*u8:16, *u8:16, i32, i32, 32, 32"]),
    ("matmul_naive.tl", ["--signature", MM16 + ", 16, 16, 16"]),
    ("matmul_grouped.tl", ["--signature", MM32 + ", 16, 16, 16, 4"]),
    ("matmul_autotuned.tl", ["--autotune-config", "2", "--signature", MM32 + ", 128, 128, 32, 8"]),
    ("matmul_tutorial.tl", ["--autotune-config", "4", "-D", "ACTIVATION=leaky_relu", "--signature", MM16]),
    ("matmul_puzzle.tl", ["--kernel", "matmul_kernel", "--autotune-config", "2", "--signature", MMF + ", 128, 128, 32"]),
    ("matmul_fwd.tl", ["--signature", "*fp16:16, *fp16:16, *fp16:16, i32:16, i32, i32, i32:16, 128, 128, 32, 8, 'relu'"]),
    ("swizzle.tl", ["--signature", "*i64:16, *i64:16, 3"]),
]


def corpus():
    """(name, source text, tlc arguments) of every seed kernel."""
    seeds = []
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/sema_ok/*.tl"))):
        text = open(f).read()
        m = re.search(r"^# RUN: (.*)$", text, re.M)  # the file test's arguments (tests/lib.sh)
        args = shlex.split(m.group(1)) if m else []
        seeds.append((os.path.basename(f), text, args))
    for f in sorted(glob.glob(os.path.join(ROOT, "tests/codegen/*.tl"))):
        text = open(f).read()
        m = re.search(r"^# RUN\(\w+\): (.*)$", text, re.M)
        if m:
            args = [a for a in shlex.split(m.group(1)) if not a.startswith("--emit")]
            seeds.append(("codegen_" + os.path.basename(f), text, args))
    for name, args in EXAMPLES:
        f = os.path.join(ROOT, "examples", name)
        if os.path.exists(f):
            seeds.append(("example_" + name, open(f).read(), args))
    return seeds


# ---- mutations: each takes (rng, lines, args) and changes them in place ----

NUMBERS = ["0", "1", "2", "3", "-1", "7", "16", "17", "32", "64", "128", "1024", "2048", "4096", "65536",
           "1048576", "2097152", "0.5", "-2.0", "1e30", "True", "None", "2**31", "2**40"]
OPS = ["+", "-", "*", "/", "//", "%", "&", "|", "^", "<<", ">>", "<", ">", "==", "!=", "<=", ">="]
TL_FUNCS = ["exp", "log", "sqrt", "abs", "sum", "max", "min", "argmax", "cumsum", "sort", "flip", "ravel",
            "trans", "sigmoid", "floor", "cos", "xor_sum", "zeros_like", "reshape", "expand_dims", "broadcast_to",
            "where", "maximum", "minimum", "dot", "load", "store", "atomic_add", "cdiv", "umulhi", "erf", "fdiv",
            "join", "split", "interleave", "cat", "gather", "histogram", "rand", "randint", "multiple_of",
            "max_contiguous", "static_assert", "device_print", "program_id", "num_programs", "arange", "full",
            "view", "permute", "associative_scan", "reduce", "topk", "clamp", "fma", "exp2", "log2", "rsqrt"]
DTYPES = ["tl.float16", "tl.float32", "tl.float64", "tl.bfloat16", "tl.int1", "tl.int8", "tl.int16", "tl.int32",
          "tl.int64", "tl.uint8", "tl.uint32", "tl.uint64"]
SIG_TYPES = ["*fp16", "*fp32", "*fp64", "*bf16", "*i1", "*i8", "*i16", "*i32", "*i64", "*u8", "*u32", "i1", "i8",
             "i32", "i64", "u32", "u64", "fp16", "bf16", "fp32", "fp64", "i32:16", "i32:1", "*fp32:16"]
SUFFIXES = ["[:, None]", "[None, :]", "[None]", "[:, None, None]", ".to(tl.float16)", ".to(tl.int64)",
            ".to(tl.int1)", ".to(tl.float64)", ".T", ".sum()", ".sum(0)", "[None, None, :]", ".reshape(2, -1)",
            ".to(tl.uint8)", ".to(tl.pointer_type(tl.float32))"]
IDENT = re.compile(r"\b[A-Za-z_][A-Za-z_0-9]*\b")
NUM = re.compile(r"(?<![\w.])\d+(\.\d*)?(e[+-]?\d+)?\b")
OP = re.compile(r"(?<=\s)(\+|-|\*|/|//|%|&|\||\^|<<|>>|<|>|==|!=|<=|>=)(?=\s)")


def body_lines(lines):
    """Indices of the lines inside a def (indented, not comments)."""
    return [i for i, l in enumerate(lines) if l.startswith("    ") and l.strip() and not l.strip().startswith("#")]


def sub_one(rng, pattern, line, choices):
    ms = list(pattern.finditer(line))
    if not ms:
        return None
    m = rng.choice(ms)
    return line[:m.start()] + rng.choice(choices) + line[m.end():]


def m_number(rng, lines, args):
    i = rng.choice(body_lines(lines) or [0])
    r = sub_one(rng, NUM, lines[i], NUMBERS)
    if r is not None:
        lines[i] = r


def m_operator(rng, lines, args):
    i = rng.choice(body_lines(lines) or [0])
    r = sub_one(rng, OP, lines[i], OPS)
    if r is not None:
        lines[i] = r


def m_tl_func(rng, lines, args):
    i = rng.choice(body_lines(lines) or [0])
    ms = list(re.finditer(r"\btl\.(\w+)\(", lines[i]))
    if ms:
        m = rng.choice(ms)
        lines[i] = lines[i][:m.start(1)] + rng.choice(TL_FUNCS) + lines[i][m.end(1):]


def m_dtype(rng, lines, args):
    i = rng.choice(body_lines(lines) or [0])
    ms = list(re.finditer(r"\btl\.(float|int|uint|bfloat)\d+\b", lines[i]))
    if ms:
        m = rng.choice(ms)
        lines[i] = lines[i][:m.start()] + rng.choice(DTYPES) + lines[i][m.end():]


def m_ident(rng, lines, args):
    """Replace a name with another name of the file."""
    body = body_lines(lines)
    if not body:
        return
    names = sorted({m.group() for i in body for m in IDENT.finditer(lines[i])})
    i = rng.choice(body)
    r = sub_one(rng, IDENT, lines[i], names)
    if r is not None:
        lines[i] = r


def m_suffix(rng, lines, args):
    """Index or convert a name: x -> x[:, None], x.to(tl.int64), ..."""
    i = rng.choice(body_lines(lines) or [0])
    ms = [m for m in IDENT.finditer(lines[i]) if lines[i][m.end():m.end() + 1] in (" ", ")", ",", "")]
    if ms:
        m = rng.choice(ms)
        lines[i] = lines[i][:m.end()] + rng.choice(SUFFIXES) + lines[i][m.end():]


def m_delete(rng, lines, args):
    body = body_lines(lines)
    if body:
        i = rng.choice(body)
        ind = len(lines[i]) - len(lines[i].lstrip())
        lines[i] = " " * ind + "pass"


def m_duplicate(rng, lines, args):
    body = body_lines(lines)
    if body:
        i = rng.choice(body)
        lines.insert(i, lines[i])


def m_swap_args(rng, lines, args):
    """f(a, b) -> f(b, a) for the first simple argument pair of a call."""
    i = rng.choice(body_lines(lines) or [0])
    m = re.search(r"\(([^(),]+), ([^(),]+)([,)])", lines[i])
    if m:
        lines[i] = lines[i][:m.start()] + "(%s, %s%s" % (m.group(2), m.group(1), m.group(3)) + lines[i][m.end():]


def m_signature(rng, lines, args):
    """Change one entry of the signature: a type, a hint, a constexpr value."""
    if "--signature" not in args:
        return
    k = args.index("--signature") + 1
    entries = [e.strip() for e in re.split(r",(?![^(]*\))", args[k])]
    j = rng.randrange(len(entries))
    e = entries[j]
    if e[:1] in "*iuf" and not e[:1].isdigit():
        entries[j] = rng.choice(SIG_TYPES)
    else:
        entries[j] = rng.choice(NUMBERS[:16])
    args[k] = ", ".join(entries)


def m_num_warps(rng, lines, args):
    args += ["--num-warps", rng.choice(["1", "2", "8", "16", "32"])]


MUTATIONS = [(m_number, 6), (m_operator, 4), (m_tl_func, 5), (m_dtype, 3), (m_ident, 5), (m_suffix, 5),
             (m_delete, 2), (m_duplicate, 2), (m_swap_args, 3), (m_signature, 4), (m_num_warps, 1)]


def mutate(rng, seed):
    name, text, args = seed
    lines = text.split("\n")
    args = list(args)
    fns, weights = zip(*MUTATIONS)
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        rng.choices(fns, weights)[0](rng, lines, args)
    return "\n".join(lines), args


def run_one(tlc, path, args, timeout):
    try:
        p = subprocess.run([tlc, path, "--emit=ptx", "-o", "/dev/null"] + args, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, timeout=timeout, env=dict(os.environ, NO_COLOR="1"))
        return p.returncode, p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "timeout", ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tlc", default=os.path.join(ROOT, "build/bin/tlc"))
    ap.add_argument("--count", type=int, default=0, help="mutants to compile (default: until --seconds)")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--out", default=os.path.join(ROOT, "build/fuzz-deep"))
    o = ap.parse_args()
    seed = o.seed if o.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    seeds = corpus()
    os.makedirs(o.out, exist_ok=True)
    work = os.path.join(o.out, "work")
    os.makedirs(work, exist_ok=True)
    print("mutate.py: seed %d, %d seed kernels" % (seed, len(seeds)), flush=True)
    t0, done, bad, rcs = time.time(), 0, 0, {}

    def make(k):
        s = rng.choice(seeds)
        src, args = mutate(rng, s)
        path = os.path.join(work, "m%d.tl" % (k % (4 * o.jobs)))
        return s[0], src, args, path

    def more(k):
        return k < o.count if o.count else time.time() - t0 < o.seconds

    with cf.ThreadPoolExecutor(o.jobs) as ex:
        k, pending = 0, {}
        while more(k) or pending:
            while more(k) and len(pending) < 2 * o.jobs:
                name, src, args, path = make(k)
                while any(p == path for (_, _, _, p) in pending.values()):
                    k += 1
                    name, src, args, path = make(k)
                open(path, "w").write(src)
                pending[ex.submit(run_one, o.tlc, path, args, o.timeout)] = (name, src, args, path)
                k += 1
            fin, _ = cf.wait(list(pending), return_when=cf.FIRST_COMPLETED)
            for f in fin:
                name, src, args, path = pending.pop(f)
                rc, err = f.result()
                done += 1
                rcs[rc] = rcs.get(rc, 0) + 1
                if rc in (0, 1):
                    continue
                bad += 1
                base = os.path.join(o.out, "fail%d_%s" % (bad, name.replace(".tl", "")))
                open(base + ".tl", "w").write(src)
                open(base + ".args", "w").write(" ".join(shlex.quote(a) for a in args) + "\n")
                first = next((l for l in err.splitlines() if "internal error" in l), err.splitlines()[:1])
                print("FAIL (%s) %s.tl: %s" % (rc, base, first), flush=True)
    print("mutate.py: %d compiles in %.0f s, exit codes %s, %d failures" %
          (done, time.time() - t0, dict(sorted(rcs.items(), key=str)), bad), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
