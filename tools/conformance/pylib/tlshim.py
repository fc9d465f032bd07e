"""tlshim.py: run Triton's own Python tests with tl as the compiler.

Imported after `triton` is importable.  With TL_SHIM=1, install() monkeypatches triton so that every kernel launch
goes through tl instead of Triton's compiler:

  JITFunction.run         bind the call's arguments as Triton's binder does, specialise them as Triton 3.6 does
                          (tlsrc.make_spec), assemble the kernel and everything it reaches into one tl source file
                          (tlsrc.assemble), compile it with tl_kernel_from_string(--kernel, --signature, --num-warps,
                          --num-stages, --fp-fusion, --maxnreg), evaluate the grid and launch with tl_launch_stream on torch's
                          current stream.  kernel[grid](...), kernel.warmup(...), @triton.autotune and
                          @triton.heuristics all end up here (the autotuner benchmarks each config through run).
  triton.compile          an ASTSource is compiled by tl (so compile-error tests exercise tl's diagnostics); an
                          IR file cannot be, and raises TlShimUnsupported.
  ASTSource.make_ir       (Triton's front end, FileCheck tests) raises TlShimUnsupported.

Nothing of Triton's compiler runs for a launch in tl mode.  What the run returns imitates Triton's CompiledKernel
as far as cheaply possible: .asm['ptx'] / ['llir'] / ['cubin'] come from tl (compiled again with TL_DUMP_DIR on first
access), .asm['ttir'] / ['ttgir'] and the like raise TlAsmUnavailable (a KeyError), other attributes Triton has and tl
does not (n_regs, n_spills, metadata.shared ...) raise AttributeError; each such miss is an event.

Every event (compiled, compile error, launch error, unsupported argument or reference, Triton internals asked for)
goes to $TL_RESULTS_DIR/events-<mode>-<worker>-<pid>.jsonl keyed by the pytest node id, and into the current test's
list that conftest_tl.py puts in the test's record.  Without TL_SHIM=1 nothing is patched (the Triton baseline).

Environment: TL_SHIM=1 (patch), TL_LIB (libtl.so), TL_SHIM_DEVICE=auto|cuda|cpu, TL_RESULTS_DIR, TL_HARNESS_MODE,
TL_SHIM_SOURCES=N (keep at most N failing sources per process under $TL_RESULTS_DIR/sources; default 100),
TL_SHIM_KEEP_ALL_SOURCES=1 (keep every assembled source).
"""
import ast
import collections
import glob
import inspect
import json
import os
import re
import shutil
import sys
import tempfile
import textwrap
import threading
import time
import types
import warnings
import weakref

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import tlapi  # noqa: E402
import tlsrc  # noqa: E402

ENABLED = os.environ.get("TL_SHIM", "") == "1"


def _mode():
    return os.environ.get("TL_HARNESS_MODE") or ("tl" if os.environ.get("TL_SHIM", "") == "1" else "triton")


def _results_dir():
    return os.environ.get("TL_RESULTS_DIR") or os.path.join(tempfile.gettempdir(), "tlshim-results")


def _worker():
    # read late: xdist sets it in a worker after the interpreter (and sitecustomize) started
    return os.environ.get("PYTEST_XDIST_WORKER", "main")


CURRENT_NODEID = None  # set by conftest_tl.py around each test
_lock = threading.RLock()


# ---------------------------------------------------------------------------------------------------------------
# events
# ---------------------------------------------------------------------------------------------------------------
def current_nodeid():
    if CURRENT_NODEID:
        return CURRENT_NODEID
    cur = os.environ.get("PYTEST_CURRENT_TEST", "")  # "path::name (call)", inherited by subprocesses too
    if cur.endswith(")") and " (" in cur:
        cur = cur[:cur.rindex(" (")]
    return cur or None


class _Events:

    def __init__(self):
        self.fh = None
        self.failed = False
        self.test = []  # the current test's events
        self.seen = set()  # once-keys of the current test

    def _file(self):
        if self.fh is None and not self.failed:
            try:
                os.makedirs(_results_dir(), exist_ok=True)
                path = os.path.join(_results_dir(), f"events-{_mode()}-{_worker()}-{os.getpid()}.jsonl")
                self.fh = open(path, "a", buffering=1, encoding="utf-8")
            except OSError:
                self.failed = True
        return self.fh

    def emit(self, kind, once=None, **fields):
        """Record an event. once: a key; the same key is recorded once per test."""
        if once is not None:
            k = (kind, once)
            if k in self.seen:
                return
            self.seen.add(k)
        rec = {"t": round(time.time(), 3), "pid": os.getpid(), "nodeid": current_nodeid(), "kind": kind}
        rec.update(fields)
        self.test.append(rec)
        if len(self.test) > 500:  # a runaway loop: keep the first ones
            del self.test[400:450]
        fh = self._file()
        if fh is not None:
            try:
                fh.write(json.dumps(rec, default=str) + "\n")
            except Exception:
                pass

    def begin_test(self):
        self.test = []
        self.seen = set()

    def end_test(self):
        ev, self.test, self.seen = self.test, [], set()
        return ev


EVENTS = _Events()


def emit(kind, once=None, **fields):
    EVENTS.emit(kind, once=once, **fields)


def begin_test(nodeid):
    global CURRENT_NODEID
    CURRENT_NODEID = nodeid
    EVENTS.begin_test()


def end_test():
    """The events of the test that just ended (and forget them)."""
    global CURRENT_NODEID
    ev = EVENTS.end_test()
    CURRENT_NODEID = None
    return ev


def _first_line(msg, limit=400):
    for line in str(msg).splitlines():
        if line.strip():
            return line.strip()[:limit]
    return ""


def _tl_first_error(msg):
    """The first diagnostic line of a tl message ('<string>:12:5: error: ...'), else its first line."""
    for line in str(msg).splitlines():
        if ": error:" in line or ": fatal error:" in line:
            return line.strip()[:400]
    return _first_line(msg)


# ---------------------------------------------------------------------------------------------------------------
# exceptions (subclasses of Triton's where Triton's tests expect its types)
# ---------------------------------------------------------------------------------------------------------------
class TlShimUnsupported(Exception):
    """The shim cannot express this launch for tl (a tuple of tensors, a host TMA descriptor, an IR file ...)."""


class TlLaunchError(RuntimeError):
    """tl_launch_stream failed."""


class TlAsmUnavailable(KeyError):
    """A Triton-internal artefact (asm['ttgir'] ...) that tl does not produce."""

    def __str__(self):
        return self.args[0] if self.args else "tl shim: asm unavailable"


_ERR = {}


def _error_classes():
    if _ERR:
        return _ERR
    try:
        from triton.compiler.errors import CompilationError, CompileTimeAssertionFailure
    except Exception:  # no triton: plain bases (self-test of the pieces)

        class CompilationError(Exception):
            pass

        class CompileTimeAssertionFailure(CompilationError):
            pass

    try:
        from triton.runtime.errors import OutOfResources
    except Exception:

        class OutOfResources(Exception):
            pass

    def _init(self, message, source=None):
        self.src = source
        self.node = None
        self.error_message = message
        self.message = message
        Exception.__init__(self, message)

    def _str(self):
        return self.message

    def _reduce(self):
        return (type(self), (self.message, self.src))

    body = {"__init__": _init, "__str__": _str, "__reduce__": _reduce, "__module__": __name__}
    _ERR["compile"] = type("TlCompileError", (CompilationError, ), dict(body))
    _ERR["assert"] = type("TlStaticAssertError", (CompileTimeAssertionFailure, ), dict(body))

    def _oor_init(self, message, source=None):
        self.required = self.limit = None
        self.name = "shared memory"
        self.message = message
        Exception.__init__(self, message)

    _ERR["resources"] = type("TlOutOfResources", (OutOfResources, ), {
        "__init__": _oor_init, "__str__": _str, "__reduce__": lambda self: (type(self), (self.message, )),
        "__module__": __name__
    })
    return _ERR


_DIAG = re.compile(r"^(.+?):(\d+):(\d+): (error|note): (.*)$", re.M)
_LINE_DIRECTIVE = re.compile(r'^# line (\d+) "([^"\n]+)"$')


def _physical_line(source, file, line):
    """The assembled source's own line for a diagnostic's (file, line): tl reports positions through the
    '# line N "FILE"' directives tlsrc puts before each function (the user's files and lines)."""
    if file == "<string>":
        return line
    cur_file, cur = None, None
    for i, text in enumerate((source or "").splitlines(), 1):
        m = _LINE_DIRECTIVE.match(text)
        if m:
            cur_file, cur = m.group(2), int(m.group(1))
            continue
        if cur_file == file and cur == line:
            return i
        if cur is not None:
            cur += 1
    return line


def _diags(message, source):
    """(line, col, kind, text) of each tl diagnostic, lines in the assembled source."""
    return [(_physical_line(source, m.group(1), int(m.group(2))), int(m.group(3)), m.group(4), m.group(5))
            for m in _DIAG.finditer(str(message))]


def _at(source, line, col):
    """Triton's 'at L:C:' for a tl location: the line counted from the enclosing def (line 1), the column from 0."""
    lines = (source or "").splitlines()
    for i in range(min(line, len(lines)) - 1, -1, -1):
        if lines[i].startswith("def "):
            return f"at {line - i}:{col - 1}:"
    return f"at {line}:{col - 1}:"


# tl errors that Triton's code generator raises itself, outside any builtin: its CompilationError has no __cause__
# (visit() re-raises a Python error `from None`), and test_compile_errors checks that
_GENERATOR_ERRORS = ("bad operand type for unary", )


def _compile_exception(message, source):
    """The Triton-typed exception for a tl compile error, shaped as Triton's CompilationError: its text starts with
    'at L:C:' of the kernel's line (the outermost call, as Triton reports a nested failure), and its __cause__ is
    what failed inside: the called function's error for a failure in a call, else the builtin's error message (Triton:
    the ValueError or AssertionError semantic.py raised); a static assertion has none, as in Triton."""
    E = _error_classes()
    diags = _diags(message, source)
    err = next((d for d in diags if d[2] == "error"), None)
    calls = [d for d in diags if d[2] == "note" and d[3].startswith("in the call to")]
    outer = calls[-1] if calls else err
    # Triton's text: "at L:C:", the source, then the message as the last line
    text = f"{_at(source, outer[0], outer[1])}\n{str(message).rstrip()}\n{err[3]}" if outer else message
    if "static assertion failed" in message or "static_assert" in _tl_first_error(message):
        return E["assert"](text, source)
    if "bytes of shared memory" in message and ("allows" in message or "more than" in message):
        return E["resources"](message, source)
    if "registers per thread" in message and "more than" in message:  # tl's per-value register cap
        return E["resources"](message, source)
    exc = E["compile"](text, source)
    if err and err[3].startswith(_GENERATOR_ERRORS):
        return exc
    if err and calls:
        exc.__cause__ = E["compile"](f"{_at(source, err[0], err[1])}\n{err[3]}", source)
    elif err:
        exc.__cause__ = ValueError(err[3])
    return exc


# ---------------------------------------------------------------------------------------------------------------
# state: the tl context, compiled kernels
# ---------------------------------------------------------------------------------------------------------------
class _TritonKinds(tlsrc.Kinds):
    """tlsrc.Kinds with isinstance checks against the real triton classes (falls back to class names)."""

    def __init__(self):
        self.jit_cls = self.callable_cls = self.constexpr_cls = self.dtype_cls = self.ptr_cls = self.desc_cls = None
        try:
            from triton.runtime import jit as j
            self.jit_cls = j.JITFunction
            self.callable_cls = getattr(j, "JITCallable", None)
            self.cfn_cls = getattr(j, "ConstexprFunction", None)
        except Exception:
            self.cfn_cls = None
        try:
            import triton.language as tl
            self.constexpr_cls = tl.constexpr
            self.dtype_cls = tl.dtype
            self.ptr_cls = getattr(tl, "pointer_type", None)
        except Exception:
            pass
        try:
            from triton.tools.tensor_descriptor import TensorDescriptor
            self.desc_cls = TensorDescriptor
        except Exception:
            pass

    def is_jit(self, v):
        if self.jit_cls is not None:
            return isinstance(v, self.jit_cls)
        return super().is_jit(v)

    def is_jit_callable(self, v):
        if self.callable_cls is not None:
            return isinstance(v, self.callable_cls)
        return super().is_jit_callable(v)

    def is_constexpr_function(self, v):
        if self.cfn_cls is not None and isinstance(v, self.cfn_cls):
            return True
        return super().is_constexpr_function(v)

    def is_constexpr(self, v):
        if self.constexpr_cls is not None:
            return isinstance(v, self.constexpr_cls)
        return super().is_constexpr(v)

    def is_dtype(self, v):
        if self.dtype_cls is not None:
            return isinstance(v, self.dtype_cls)
        return super().is_dtype(v)

    def is_pointer_dtype(self, v):
        if self.ptr_cls is not None:
            return isinstance(v, self.ptr_cls)
        return super().is_pointer_dtype(v)

    def is_tensordesc(self, v):
        if self.desc_cls is not None and isinstance(v, self.desc_cls):
            return True
        return super().is_tensordesc(v)


class _Entry:
    """A compiled kernel: the tl handle and how it was made."""

    def __init__(self, kernel, source, options, sig, name, seconds):
        self.kernel, self.source, self.options, self.sig, self.name = kernel, source, options, sig, name
        self.seconds = seconds
        self.dump = None  # {'ptx': ..., 'llir': ..., 'cubin': ..., 'tlir': ...} once asked for


class _Failure:

    def __init__(self, message, source, status):
        self.message, self.source, self.status = message, source, status


class _State:

    def __init__(self):
        self.ctx = None
        self.kinds = None
        self.cache = {}  # (source, options) -> _Entry | _Failure
        self.option_names = None
        self.torch = None
        self.kept_sources = 0
        self.knobs = False  # triton.knobs once looked up (_knobs), None without it
        self.stream_of = None  # _stream's getter, made at the first launch on a GPU
        self.knob_groups = None  # (triton.knobs.runtime, .language): _knob_groups
        self.fast_fns = []  # weak references to the functions with a fast path (clear_cache forgets them)


STATE = _State()


def _torch():
    if STATE.torch is None:
        try:
            import torch
            STATE.torch = torch
        except Exception:
            STATE.torch = False
    return STATE.torch or None


def context():
    """The process's tl context (created on first use, on torch's current CUDA context)."""
    if STATE.ctx is not None:
        return STATE.ctx
    with _lock:
        if STATE.ctx is not None:
            return STATE.ctx
        want = os.environ.get("TL_SHIM_DEVICE", "auto").lower()
        torch = _torch()
        kind = tlapi.TL_DEVICE_CPU
        if want == "cuda" or (want == "auto" and torch is not None and torch.cuda.is_available()):
            kind = tlapi.TL_DEVICE_CUDA
            if torch is not None:
                # make torch's primary context current on this thread, so that tl adopts it
                torch.cuda.init()
                torch.empty(1, device="cuda")
                torch.cuda.synchronize()
        try:
            ctx = tlapi.Context(kind)
        except tlapi.TlError as e:
            emit("context_error", msg=str(e), lib=tlapi.find_library())
            raise
        STATE.ctx = ctx
        STATE.kinds = STATE.kinds or _TritonKinds()
        emit("context", device=ctx.device_name, lib=tlapi.lib_path(), cuda=ctx.is_cuda)
        return ctx


def kinds():
    if STATE.kinds is None:
        STATE.kinds = _TritonKinds()
    return STATE.kinds


def _option_names():
    if STATE.option_names is None:
        names = None
        try:
            from triton.backends.nvidia.compiler import CUDAOptions
            names = set(CUDAOptions.__dataclass_fields__)
        except Exception:
            names = set()
        if names:
            names |= {"debug", "sanitize_overflow", "instrumentation_mode", "arch"}
        STATE.option_names = names
    return STATE.option_names


def _keep_source(tag, source, header):
    """Write an assembled source (failing ones, or all with TL_SHIM_KEEP_ALL_SOURCES=1) for later study."""
    limit = int(os.environ.get("TL_SHIM_SOURCES", "100") or 0)
    if STATE.kept_sources >= limit and os.environ.get("TL_SHIM_KEEP_ALL_SOURCES") != "1":
        return None
    STATE.kept_sources += 1
    try:
        d = os.path.join(_results_dir(), "sources", f"{_mode()}-{_worker()}-{os.getpid()}")
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"{STATE.kept_sources:04d}-{tag}.py")
        with open(path, "w", encoding="utf-8") as f:
            for line in header.splitlines():
                f.write("# " + line + "\n")
            f.write(source)
        return os.path.relpath(path, _results_dir())
    except OSError:
        return None


def _compile(source, kernel_name, sig, extra_opts):
    """The _Entry for (source, kernel, signature, options); raises the Triton-typed compile error on failure."""
    options = f"--kernel {kernel_name} --signature {tlsrc.shell_quote(sig)}" + (f" {extra_opts}" if extra_opts else "")
    key = (source, options)
    hit = STATE.cache.get(key)
    if isinstance(hit, _Entry):
        return hit
    if isinstance(hit, _Failure):
        emit("compile_error", once=options, kernel=kernel_name, sig=sig, status=hit.status,
             msg=_tl_first_error(hit.message), cached=True)
        raise _compile_exception(hit.message, source)
    ctx = context()
    emit("compile_begin", kernel=kernel_name, sig=sig)
    t0 = time.time()
    try:
        with _lock:
            k = ctx.compile(source, options)
    except tlapi.TlError as e:
        msg = e.message or str(e)
        STATE.cache[key] = _Failure(msg, source, e.status_name)
        kept = _keep_source(kernel_name, source,
                            f"node: {current_nodeid()}\ntl options: {options}\n{e.status_name}:\n{msg}")
        emit("compile_error", once=options, kernel=kernel_name, sig=sig, status=e.status_name,
             msg=_tl_first_error(msg), seconds=round(time.time() - t0, 3), source_file=kept)
        full = (f"tl could not compile {kernel_name} [{sig}] ({e.status_name}):\n{msg}")
        exc = _compile_exception(full, source)
        exc.__suppress_context__ = True  # not 'from None': that would clear the __cause__ Triton's tests read
        raise exc
    entry = _Entry(k, source, options, sig, kernel_name, time.time() - t0)
    STATE.cache[key] = entry
    if os.environ.get("TL_SHIM_KEEP_ALL_SOURCES") == "1":
        _keep_source(kernel_name, source, f"node: {current_nodeid()}\ntl options: {options}\nok")
    log = k.log.strip()
    for line in log.splitlines():  # tl's warnings reach Python as Triton's do (warnings.warn in semantic.py)
        m = re.match(r"^\S+:\d+:\d+: warning: (.*)$", line)
        if m:
            warnings.warn(m.group(1), UserWarning, stacklevel=3)
        m = re.match(r"^\S+:\d+:\d+: note: static_print: (.*)$", line)
        if m:  # Triton's static_print is Python's print at compile time
            print(m.group(1), flush=True)
    emit("compile_ok", once=options, kernel=kernel_name, sig=sig, seconds=round(entry.seconds, 3),
         num_warps=k.num_warps, num_stages=k.num_stages, **({"log": log[:400]} if log else {}))
    return entry


def clear_cache(sync=True):
    """Destroy every compiled kernel (after the stream is idle)."""
    with _lock:
        if sync and STATE.ctx is not None and STATE.ctx.is_cuda:
            t = _torch()
            try:
                if t is not None:
                    t.cuda.synchronize()
            except Exception:
                return  # a broken context: leave the modules be
        for r in STATE.fast_fns:  # their fast paths and guards launch kernels destroyed here
            fn = r()
            for name in ("_tlshim_fast", "_tlshim_guards", "_tlshim_guard_memo"):
                if fn is not None:
                    fn.__dict__.pop(name, None)
        STATE.fast_fns.clear()
        for v in STATE.cache.values():
            if isinstance(v, _Entry):
                try:
                    v.kernel.destroy()
                except Exception:
                    pass
        STATE.cache.clear()


# ---------------------------------------------------------------------------------------------------------------
# what a launch returns
# ---------------------------------------------------------------------------------------------------------------
_DUMP_KEYS = {"ptx": "ptx", "llir": "ll", "cubin": "cubin", "tlir": "ir", "tlir-gpu": "ir-gpu", "tlast": "ast"}


def _dump(entry):
    """Compile entry's source once more with TL_DUMP_DIR set and read back the stages tl writes."""
    if entry.dump is not None:
        return entry.dump
    d = tempfile.mkdtemp(prefix="tl-dump-")
    old = os.environ.get("TL_DUMP_DIR")
    out = {}
    try:
        os.environ["TL_DUMP_DIR"] = d
        with _lock:
            k = context().compile(entry.source, entry.options)
            out["tlir"] = k.ir
            k.destroy()
        for key, ext in _DUMP_KEYS.items():
            files = sorted(glob.glob(os.path.join(d, f"*.{ext}")))
            if files:
                mode = "rb" if ext == "cubin" else "r"
                with open(files[0], mode) as f:
                    out[key] = f.read()
    except tlapi.TlError as e:
        emit("dump_error", once=entry.options, msg=_first_line(e.message))
    finally:
        if old is None:
            os.environ.pop("TL_DUMP_DIR", None)
        else:
            os.environ["TL_DUMP_DIR"] = old
        shutil.rmtree(d, ignore_errors=True)
    entry.dump = out
    return out


class TlAsm(dict):
    """CompiledKernel.asm: 'ptx', 'llir', 'cubin' (and 'tlir') from tl; Triton's own stages raise TlAsmUnavailable."""

    def __init__(self, entry):
        super().__init__()
        self._entry = entry

    def _load(self):
        return _dump(self._entry)

    def __getitem__(self, key):
        d = self._load()
        if key in d:
            return d[key]
        emit("asm_unavailable", once=key, key=key, kernel=self._entry.name)
        raise TlAsmUnavailable(f"tl shim: asm[{key!r}] is not produced by tl (Triton-internal stage)")

    def get(self, key, default=None):
        d = self._load()
        if key in d:
            return d[key]
        emit("asm_unavailable", once=key, key=key, kernel=self._entry.name)
        return default

    def __contains__(self, key):
        d = self._load()
        if key not in d:
            emit("asm_unavailable", once=key, key=key, kernel=self._entry.name)
        return key in d

    def keys(self):
        return self._load().keys()

    def items(self):
        return self._load().items()

    def values(self):
        return self._load().values()

    def __iter__(self):
        return iter(self._load())

    def __len__(self):
        return len(self._load())

    def __repr__(self):
        return f"TlAsm({sorted(self._load())})"


class _Meta:

    def __init__(self, entry, num_ctas=1):
        k = entry.kernel
        self._entry = entry
        self.name = entry.name
        self.num_warps = k.num_warps
        self.num_stages = k.num_stages
        self.num_ctas = num_ctas
        self.tl_signature = entry.sig
        self.tl_options = entry.options

    @property
    def shared(self):  # bytes of shared memory per program
        return self._entry.kernel.resources()["shared_bytes"]

    def __getattr__(self, name):
        if name.startswith("__") or name.startswith("_"):
            raise AttributeError(name)
        emit("attr_unavailable", once="metadata." + name, attr="metadata." + name)
        raise AttributeError(f"tl shim: CompiledKernel.metadata.{name} is not available through tl")


class TlCompiledKernel:
    """What run()/warmup() return in tl mode (Triton: CompiledKernel)."""

    def __init__(self, entry, jit_fn=None, launcher=None, num_ctas=1, name=None):
        self._entry = entry
        self._jit_fn = jit_fn
        self._launcher = launcher
        self.name = name or entry.name
        self.asm = TlAsm(entry)
        self.metadata = _Meta(entry, num_ctas)
        self.tl_source = entry.source
        self.tl_options = entry.options

    def _init_handles(self):  # Triton loads the binary lazily here; tl loaded it when it compiled
        pass

    @property
    def n_regs(self):  # Triton: cuFuncGetAttribute(NUM_REGS)
        return self._entry.kernel.resources()["registers"]

    @property
    def n_spills(self):  # Triton: LOCAL_SIZE_BYTES / 4
        return self._entry.kernel.resources()["spill_bytes"] // 4

    def __getattr__(self, name):
        if name.startswith("__") or name.startswith("_"):
            raise AttributeError(name)
        emit("attr_unavailable", once=name, attr=name)
        raise AttributeError(f"tl shim: CompiledKernel.{name} is not available through tl")

    def __getitem__(self, grid):
        if self._launcher is None:
            raise TlShimUnsupported("tl shim: launching a CompiledKernel made by triton.compile is not supported")
        return lambda *args, **kw: self._launcher(grid, args)

    def __repr__(self):
        return f"TlCompiledKernel({self.name}: {self._entry.sig})"


# ---------------------------------------------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------------------------------------------
def _canon_ptr(ty):
    base = ty[2:] if ty.startswith("*k") else ty[1:]
    return "i1" if base == "u1" else base


def _elem_count(t, dtype):
    """Elements reachable from t.data_ptr() to the end of its storage (0 if unknown)."""
    size = tlapi.DTYPE_SIZE.get(dtype, 1)
    base = t
    if not hasattr(t, "untyped_storage") and hasattr(t, "base") and hasattr(t.base, "untyped_storage"):
        base = t.base  # TensorWrapper
    try:
        nbytes = base.untyped_storage().nbytes()
        off = base.storage_offset() * base.element_size()
        return max((nbytes - off) // size, 0)
    except Exception:
        pass
    try:
        return int(t.numel())
    except Exception:
        return 0


def _check_device(t, i):
    """Triton's launcher refuses a pointer the GPU cannot reach ('cpu tensor?'): so does the shim."""
    torch = _torch()
    base = t.base if (hasattr(t, "base") and not hasattr(t, "is_cuda")) else t
    if torch is None or not isinstance(base, torch.Tensor):
        return
    if base.is_cuda:
        return
    try:
        if base.is_pinned():
            return
    except Exception:
        pass
    raise ValueError(f"Pointer argument (at {i}) cannot be accessed from Triton (cpu tensor?)")


_INT_DTYPES = {"i1": tlapi.TL_I1, "u1": tlapi.TL_I1, "i8": tlapi.TL_I8, "i16": tlapi.TL_I16, "i32": tlapi.TL_I32,
               "i64": tlapi.TL_I64, "u8": tlapi.TL_U8, "u16": tlapi.TL_U16, "u32": tlapi.TL_U32, "u64": tlapi.TL_U64}


def _build_args(entry, specs):
    """One TlArg per runtime parameter tl reports, in its order. Returns (args, keep-alive list)."""
    args, keep = [], []
    is_cuda = STATE.ctx is not None and STATE.ctx.is_cuda
    for i, p in enumerate(entry.kernel.params):
        s = specs.get(p["name"])
        if s is None:
            raise TlShimUnsupported(f"tl runtime parameter '{p['name']}' matches no argument of the launch")
        v = s.value
        if s.kind == "ptr":
            dt = tlapi.DTYPE_BY_NAME.get(_canon_ptr(s.ty))
            if dt is None:
                raise TlShimUnsupported(f"parameter '{s.name}': tl has no buffer type for {s.ty}")
            if is_cuda:
                _check_device(v, i)
            args.append(tlapi.arg_ptr(int(v.data_ptr()), dt, _elem_count(v, dt)))
        elif s.kind == "int":
            dt = _INT_DTYPES.get(s.ty, tlapi.TL_I64)
            if isinstance(v, float):
                args.append(tlapi.arg_float(v, tlapi.TL_F64, tlapi.TL_ARG_CONVERT))
            else:
                args.append(tlapi.arg_int(int(v), dt))
        elif s.kind == "float":
            if isinstance(v, (bool, int)):
                args.append(tlapi.arg_int(int(v), tlapi.TL_I64, tlapi.TL_ARG_CONVERT))
            else:
                args.append(tlapi.arg_float(float(v), tlapi.TL_F64))
        elif s.kind == "desc":
            base = v.base
            dt = tlapi.DTYPE_BY_NAME.get(tlsrc.canonicalize_dtype(base.dtype))
            if dt is None:
                raise TlShimUnsupported(f"parameter '{s.name}': tl has no buffer type for {base.dtype}")
            if len(v.shape) > tlapi.TL_TENSORDESC_MAX_RANK:
                raise TlShimUnsupported(f"parameter '{s.name}': a rank-{len(v.shape)} tensor descriptor "
                                        f"(tl takes at most {tlapi.TL_TENSORDESC_MAX_RANK})")
            if is_cuda:
                _check_device(base, i)
            d = tlapi.make_tensordesc(int(base.data_ptr()), dt, _elem_count(base, dt), list(v.shape), list(v.strides),
                                      list(v.block_shape), getattr(v, "padding", "zero") == "nan")
            keep.append(d)
            args.append(tlapi.arg_tensordesc(d))
        else:
            raise TlShimUnsupported(f"parameter '{s.name}': no runtime argument for a {s.kind}")
    return args, keep


def _stream():
    if STATE.ctx is None or not STATE.ctx.is_cuda:
        return None
    get = STATE.stream_of
    if get is None:
        get = STATE.stream_of = _stream_getter()
    return get()


def _stream_getter():
    """A function giving torch's current raw stream on its current device (None: the legacy default stream),
    made once: what Triton's launcher asks, through torch's C functions (1 us, not the 45 of current_stream())."""
    torch = _torch()
    if torch is None:
        return lambda: None
    raw, device = getattr(torch._C, "_cuda_getCurrentRawStream", None), getattr(torch._C, "_cuda_getDevice", None)
    if raw is not None and device is not None:
        return lambda: raw(device()) or None
    if raw is not None:
        return lambda: raw(torch.cuda.current_device()) or None
    return lambda: torch.cuda.current_stream().cuda_stream or None


def _grid_dims(grid, bound_args):
    g = grid(bound_args) if callable(grid) else grid
    g = tuple(g)  # Triton takes len(grid): an int grid is a TypeError there too
    if not 1 <= len(g) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {g!r}")
    return tuple(int(x) for x in g)


def _launch_error(entry, e):
    """The TlLaunchError for libtl's error e of a launch of entry, recorded once."""
    emit("launch_error", once=entry.options, kernel=entry.name, sig=entry.sig, status=e.status_name,
         msg=_first_line(e.message))
    return TlLaunchError(f"tl launch of {entry.name} failed ({e.status_name}): {e.message}")


def _launch(entry, specs, grid_dims):
    if any(x == 0 for x in grid_dims):  # Triton's launcher skips empty grids
        return
    args, keep = _build_args(entry, specs)
    new = ("launch_ok", entry.options) not in EVENTS.seen
    if new:  # the first launch of this kernel in this test: bracket it, so a crash inside shows where it was
        emit("launch_begin", once=entry.options, kernel=entry.name, grid=list(grid_dims))
    try:
        with _lock:
            entry.kernel.launch(grid_dims, args, _stream())
    except tlapi.TlError as e:
        raise _launch_error(entry, e) from None
    finally:
        del keep
    if new:
        emit("launch_ok", once=entry.options, kernel=entry.name)


# ---------------------------------------------------------------------------------------------------------------
# JITFunction.run through tl
# ---------------------------------------------------------------------------------------------------------------
_IGNORED_OPTIONS = {"launch_cooperative_grid", "launch_pdl", "launch_cluster", "ctas_per_cga",
                    "preferred_ctas_per_cga", "minRegAutoWS", "maxRegAutoWS", "pingpongAutoWS", "ir_override",
                    "early_tma_store_lowering", "generate_subtiled_region", "extern_libs", "enable_reflect_ftz",
                    "ptx_options", "ptx_version", "cluster_dims", "supported_fp8_dtypes", "debug", "sanitize_overflow",
                    "instrumentation_mode", "max_num_imprecise_acc_default", "default_dot_input_precision",
                    "allowed_dot_input_precisions", "deprecated_fp8_dot_operand_dtypes", "warp_size",
                    "backend_name", "matrix_instr_nonkdim", "kpack", "waves_per_eu"}


def _knobs():
    """triton.knobs (None without it), looked up once: the fast path reads two of its knobs at every launch."""
    if STATE.knobs is False:
        try:
            import triton
            STATE.knobs = triton.knobs
        except Exception:
            STATE.knobs = None
    return STATE.knobs


def _knob(path, default):
    try:
        obj = _knobs()
        if obj is None:
            return default
        for p in path.split("."):
            obj = getattr(obj, p)
        return obj
    except Exception:
        return default


# the compute capabilities tl compiles for (compiler/arch.c's table, each with its arch-specific 'a' from 90 on)
_TL_ARCHS = ("70", "75", "80", "86", "89", "90", "100", "120")


def _options(okw):
    """tl option flags for Triton's launch options (and remarks about the ones tl ignores)."""
    notes = []
    num_warps = okw.get("num_warps")
    num_warps = 4 if num_warps is None else num_warps
    assert num_warps > 0 and (num_warps & (num_warps - 1)) == 0, "num_warps must be a power of 2"
    num_stages = okw.get("num_stages")
    num_stages = 3 if num_stages is None else num_stages
    num_ctas = okw.get("num_ctas") or 1
    arch = okw.get("arch") or _knob("runtime.override_arch", None)
    flags = [f"--num-warps {int(num_warps)}", f"--num-stages {int(num_stages)}"]
    if arch:
        a = str(arch)
        digits = "".join(c for c in a if c.isdigit())
        if not a.startswith("sm") or digits not in _TL_ARCHS:
            raise TlShimUnsupported(f"target arch {a!r} (tl targets sm_{', sm_'.join(_TL_ARCHS)})")
        if num_ctas > 1 and int(digits) < 90:
            raise ValueError(f"num_ctas > 1 requires NVIDIA SM90+ (Hopper). Current target is sm_{digits}. "
                             f"This configuration will fail. Please set num_ctas=1 or target an SM90+ GPU.")
        # Triton's sm_arch_from_capability: sm_90 and newer are the arch-specific targets (sm_90a, sm_100a);
        # one this GPU cannot run is compile-only in tl (its PTX and cubin are built, a launch is refused)
        flags.append(f"--arch sm_{digits}{'a' if int(digits) >= 90 else ''}")
    fp_fusion = okw.get("enable_fp_fusion")
    if fp_fusion is None:
        fp_fusion = _knob("language.default_fp_fusion", True)
    if not fp_fusion:
        flags.append("--fp-fusion off")
    if okw.get("maxnreg"):
        flags.append(f"--maxnreg {int(okw['maxnreg'])}")
    if num_ctas != 1:
        notes.append(f"num_ctas={num_ctas} ignored (tl launches one CTA a program)")
    for k in sorted(okw):
        if k in _IGNORED_OPTIONS and okw[k] not in (None, False, (), ""):
            if k in ("debug", "sanitize_overflow") and not okw[k]:
                continue
            notes.append(f"option {k}={okw[k]!r} ignored by the shim")
    return " ".join(flags), notes, num_ctas


class _Placeholders:
    """Names for @jit functions passed as constexpr arguments, before the file (and so their names) exists."""

    def __init__(self):
        self.fns = []

    def __call__(self, fn):
        for i, f in enumerate(self.fns):
            if f is fn:
                return f"\x00{i}\x00"
        self.fns.append(fn)
        return f"\x00{len(self.fns) - 1}\x00"

    def fill(self, text, names):
        for i, f in enumerate(self.fns):
            text = text.replace(f"\x00{i}\x00", names[id(f)])
        return text


def _assembly(fn, extra):
    """tlsrc.assemble(fn, extra), memoised on the JITFunction while its sources and globals hold."""
    memo = fn.__dict__.get("_tlshim_memo")
    if memo is None:
        memo = {}
        fn.__dict__["_tlshim_memo"] = memo
    key = tuple(id(f) for f in extra)
    hit = memo.get(key)
    if hit is not None and hit[0] == tuple(extra) and hit[1].valid():
        return hit[1]
    asm = tlsrc.assemble(fn, extra, kinds())
    memo[key] = (tuple(extra), asm)
    for note in asm.notes:
        emit("reference", once=note, kernel=asm.kernel_name, msg=note)
    return asm


def _unused_param(fn, name):
    """True if the @jit function's body never names the parameter (a cache-busting constexpr, say)."""
    try:
        tree = ast.parse(textwrap.dedent(getattr(fn, "src", "") or ""))
        fdef = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef))
    except Exception:
        return False
    return not any(isinstance(n, ast.Name) and n.id == name for stmt in fdef.body for n in ast.walk(stmt))


def _specs_for(fn, bound_args, kd):
    ph = _Placeholders()
    specs = []
    for p in fn.params:
        v = bound_args[p.name]
        try:
            specs.append(tlsrc.make_spec(p, v, ph, kd))
        except tlsrc.Unsupported as e:
            if getattr(p, "is_constexpr", False) and _unused_param(fn, p.name):
                # Triton keys its cache on it and nothing else reads it: any value compiles the same kernel
                specs.append(tlsrc.Spec(p.name, "None", False, "const", "constexpr", v,
                                        [f"unused constexpr of type {type(v).__name__} passed as None"]))
                continue
            emit("unsupported", once=str(e), kernel=fn.__name__, reason=str(e))
            raise TlShimUnsupported(f"tl shim: {e}") from None
    return specs, ph


# ---------------------------------------------------------------------------------------------------------------
# The fast path: a launch that specialises like an earlier one of the same function takes that launch's kernel and
# argument plan without binding, specialising and assembling again (Triton's launcher does the same with its
# kernel cache: about 80 us a call in Python against the slow path's 270 us, measured on the H100 host).
# ---------------------------------------------------------------------------------------------------------------
_EMPTY = object()


def _fast_params(fn):
    """Per parameter of fn, what the fast path's key reads of it (name, constexpr, specialise, on alignment,
    default), made once: the parameters of a JITFunction do not change."""
    ps = fn.__dict__.get("_tlshim_params")
    if ps is None:
        ps = tuple((p.name, bool(p.is_constexpr), not getattr(p, "do_not_specialize", False),
                    not getattr(p, "do_not_specialize_on_alignment", False), getattr(p, "default", _EMPTY))
                   for p in fn.params)
        fn.__dict__["_tlshim_params"] = ps
    return ps


# ---------------------------------------------------------------------------------------------------------------
# Generated binders and setters: the fast path's key and its packed values written out as straight-line Python,
# once per call shape (number of positional arguments, keyword names) and per packed plan, as Triton's
# create_function_from_signature writes its binder: a launch then pays for no loop and no branch on what is known
# before it (where each value comes from, which parameter is constexpr or not specialised, which word takes which
# value). The self-test holds the readable loops they must agree with (selftest/test_units.py, ref_fast_key and
# ref_set_values).
# ---------------------------------------------------------------------------------------------------------------
def _no_key(fn, args, kwargs, kd):  # a call shape the key always refuses (too many arguments, one missing)
    return None


def _binder(fn, args, kwargs):
    """The generated key of this launch's call shape, made on its first launch: bind(fn, args, kwargs, kd) gives
    (key, values), or None where the slow path must decide (hooks, tuples, jit functions as arguments,
    unhashable constexprs, values of no known kind)."""
    memo = fn.__dict__.get("_tlshim_binders")
    if memo is None:
        memo = fn.__dict__["_tlshim_binders"] = {}
    shape = (len(args), tuple(kwargs)) if kwargs else len(args)  # keyword order too: tuple() is cheaper than a set
    b = memo.get(shape)
    if b is None:
        b = memo[shape] = _make_binder(fn, len(args), kwargs)
    return b


def _make_binder(fn, nargs, kwnames):
    """The key's bind(fn, args, kwargs, kd) for calls of nargs positional arguments and keywords kwnames: each
    value taken from where this shape puts it, then classified for that parameter's flags (_key_lines)."""
    params = _fast_params(fn)
    if nargs > len(params):
        return _no_key
    torch = _torch()  # torch's Tensor class (looked up once a process)
    ns = {"_spec_int": tlsrc._spec_int, "desc_shape16": tlsrc.desc_shape16, "NoneType": type(None),
          "Tensor": torch.Tensor if torch is not None else None}
    lines = ["def bind(fn, args, kwargs, kd):", "    if getattr(fn, 'pre_run_hooks', None):", "        return None"]
    if nargs:
        lines.append(f"    {''.join(f'v{i}, ' for i in range(nargs))}= args")
    for i, (name, constexpr, spec, align, default) in enumerate(params):
        if i >= nargs and name in kwnames:
            lines.append(f"    v{i} = kwargs[{name!r}]")
        elif i >= nargs:
            if default is _EMPTY or default is inspect.Parameter.empty:
                return _no_key
            ns[f"d{i}"] = default
            lines.append(f"    v{i} = d{i}")
        lines += _key_lines(f"v{i}", f"k{i}", constexpr, spec, align, torch is not None)
    n = len(params)
    lines.append(f"    return ({''.join(f'k{i}, ' for i in range(n))}), [{', '.join(f'v{i}' for i in range(n))}]")
    exec("\n".join(lines), ns)
    return ns["bind"]


def _key_lines(v, k, constexpr, spec, align, tensors):
    """The key's branches for the value named v into the key named k ('return None' where it gives up). The
    common kinds go first (a torch.Tensor, an int): the branches exclude one another up to the last three, which
    keep their order (a tensor subclass, a descriptor, a tensor-like)."""
    if constexpr:
        return [f"    t = type({v})", f"    if t is int or t is float or t is bool or t is str or {v} is None:",
                f"        {k} = (t, {v})", f"    elif kd.is_dtype({v}):", f"        {k} = ('dtype', str({v}))",
                "    else:", "        return None"]
    tensor = f"({v}.dtype, {v}.data_ptr() % 16 == 0, {v}.is_cuda)"
    out = [f"    t = type({v})"]
    out += ["    if t is Tensor:", f"        {k} = {tensor}", "    elif t is int:"] if tensors else ["    if t is int:"]
    out += _int_lines(v, k, spec, align)
    out += ["    elif t is float or t is bool:", f"        {k} = t",
            f"    elif {v} is None:", f"        {k} = (NoneType, None)"]
    if tensors:
        out += [f"    elif isinstance({v}, Tensor):", f"        {k} = {tensor}"]
    return out + [f"    elif kd.is_tensordesc({v}):",
                  f"        {k} = ('desc', str({v}.base.dtype), tuple({v}.block_shape), len({v}.shape), "
                  f"getattr({v}, 'padding', 'zero'), desc_shape16({v}, {spec}))",
                  f"    elif hasattr({v}, 'data_ptr') and hasattr({v}, 'dtype'):",
                  f"        {k} = (t, str({v}.dtype), int({v}.data_ptr()) % 16 == 0, getattr({v}, 'is_cuda', None))",
                  "    else:", "        return None"]


def _int_lines(v, k, spec, align):
    """tlsrc._spec_int(v, spec, align) written out for an int of the i32 range (constant keys, no call); wider ints
    and the overflow error stay _spec_int's."""
    i32 = "('i32', '')" if spec else "('i32', None)"
    if spec and align:
        i32 = f"(('i32', 'D') if {v} % 16 == 0 else {i32})"
    if spec:  # Triton passes a specialised 1 as the constant 1
        i32 = f"('constexpr', 1) if {v} == 1 else {i32}"
    return [f"        if {-2**31} <= {v} < {2**31}:", f"            {k} = {i32}", "        else:",
            f"            {k} = _spec_int({v}, {spec}, {align})"]


_SET = {"ptr": "u64[{j}] = vals[{vi}].data_ptr()", "int": "u64[{j}] = int(vals[{vi}]) & MASK",
        "float": "f64[{j}] = float(vals[{vi}])"}


def _make_setter(setters):
    """Writes a launch's values into pk (a tlapi.Packed) as setters say, as a function of (pk, vals): for each
    argument (the value's word in pk's views, tlapi.Packed.word, or a descriptor's index; the value's index among
    vals; how), one assignment."""
    lines = ["def put(pk, vals):", "    u64, f64 = pk.u64, pk.f64"]
    for j, vi, how in setters:
        if how in _SET:
            lines.append("    " + _SET[how].format(j=j, vi=vi))
        else:
            lines += [f"    v = vals[{vi}]", f"    pk.set_desc({j}, v.base.data_ptr(), v.shape, v.strides)"]
    ns = {"MASK": tlapi.WORD_MASK}
    exec("\n".join(lines), ns)
    return ns["put"]


def _opt_key(fn, kwargs):
    """The launch options (keywords that name no parameter) and the knobs they depend on, hashable, or None."""
    if kwargs:
        names = fn.__dict__.get("_tlshim_names", ())
        okw = tuple(sorted((k, v) for k, v in kwargs.items() if k not in names))
    else:
        okw = ()
    runtime, language = STATE.knob_groups or _knob_groups()
    try:
        key = (okw, getattr(runtime, "override_arch", None), getattr(language, "default_fp_fusion", True))
        hash(key)
    except (TypeError, AttributeError):
        return None
    return key


def _knob_groups():
    """(triton.knobs.runtime, triton.knobs.language), None each without them: looked up once; their knobs are
    read at every launch (a test may set one between launches)."""
    k = _knobs()
    STATE.knob_groups = (getattr(k, "runtime", None), getattr(k, "language", None))
    return STATE.knob_groups


def _fast_run(fn, args, grid, kwargs, kd, warmup=False):
    """Launches through the fast path (a warmup only finds the kernel) and returns the TlCompiledKernel, or None
    (the slow path runs)."""
    opt_key = _opt_key(fn, kwargs)
    if opt_key is None:
        return None
    fk = _binder(fn, args, kwargs)(fn, args, kwargs, kd)
    if fk is None:
        return None
    key, vals = fk
    hit = fn.__dict__.get("_tlshim_fast", {}).get((key, opt_key))
    if hit is None or not hit[0].valid():
        return None
    asm, entry, plan, kernel, packed = hit
    if warmup:
        return kernel
    g = grid(dict(zip(fn.__dict__["_tlshim_pnames"], vals))) if callable(grid) else grid
    g = tuple(map(int, g))
    if not 1 <= len(g) <= 3:
        raise ValueError(f"grid must have 1 to 3 dimensions, got {g!r}")
    if packed is not None and ("launch_ok", entry.options) in EVENTS.seen:
        _launch_packed(entry, packed, vals, g)
        _set_guard(fn, args, kwargs, key, opt_key, hit, vals)
    else:
        _launch(entry, {name: tlsrc.Spec(name, e, True, kind, ty, vals[i]) for i, name, e, kind, ty in plan}, g)
    return kernel


def _packed_plan(entry, specs, index):
    """(tlapi.Packed, setters, their _make_setter) for the fast path's launches of entry on a GPU: the arguments
    this launch built, and for each one (its word or descriptor index, the index of its value among the launch's
    values, how to write it: _make_setter); None where a value cannot be rewritten in place (a tensor not on the
    GPU: the slow path checks it each time)."""
    by_name = {s.name: s for s in specs}
    args, keep = _build_args(entry, by_name)
    descs, setters = {}, []
    for j, p in enumerate(entry.kernel.params):
        s = by_name[p["name"]]
        v = s.value
        if s.kind == "ptr":
            if not getattr(v, "is_cuda", True):
                return None
            how = "ptr"
        elif s.kind == "desc":
            descs[j] = keep[len(descs)]
            how = "desc"
        else:  # as _build_args: a float value travels as a float, an int or bool as an int, whatever the kind
            how = "float" if isinstance(v, float) else "int"
        setters.append((j if how == "desc" else tlapi.Packed.word(j), index[s.name], how))
    setters = tuple(setters)
    return tlapi.Packed(entry.kernel, args, descs), setters, _make_setter(setters)


def _launch_packed(entry, packed, vals, g):
    """_launch for a launch whose arguments specialise like the one packed: rewrite the values, launch."""
    if 0 in g:
        return
    pk = packed[0]
    packed[2](pk, vals)  # the values as packed[1] says, by _make_setter's function
    try:
        with _lock:
            pk.launch(g, _stream())
    except tlapi.TlError as e:
        raise _launch_error(entry, e) from None


# ---------------------------------------------------------------------------------------------------------------
# Guards: the last specialisation of each call shape as one generated function. A launch like the one before it
# (a loop, a benchmark, an op called again) is checked value by value against that launch's key, each check written
# for the key's own form with its constants folded in, and written into the packed arguments with no key built, no
# dictionary looked up and each tensor's data_ptr() asked once; any difference returns None and the fast path
# decides. Made where the fast path launched packed arguments (GPU contexts). The self-test checks that a guard
# passes exactly the launches whose key is its own (selftest/test_units.py, d_guard).
# ---------------------------------------------------------------------------------------------------------------
def _guard_check(i, k, v, constexpr, align, ns):
    """Lines that return None unless value v{i} gives key part k (v: the value that gave it), or None where this
    form of key has no guard (the fast path then keys each launch)."""
    x, t, no = f"v{i}", type(v), "        return None"
    if v is None:
        return [f"    if {x} is not None:", no]
    if constexpr:
        if k == ("dtype", str(v)):  # a dtype (Liger passes one per launch): the same object passes; an equal one
            ns[f"c{i}"] = v  # made elsewhere falls back to the fast path, which keys it
            return [f"    if {x} is not c{i}:", no]
        if t not in (int, float, bool, str) or k != (t, v) or v != v:  # v != v: a NaN equals no value
            return None
        ns[f"c{i}"] = v
        return [f"    if type({x}) is not {t.__name__} or {x} != c{i}:", no]
    if t is ns["Tensor"]:
        dtype, aligned, cuda = k
        ns[f"dt{i}"] = dtype
        return [f"    if type({x}) is not Tensor or {x}.dtype is not dt{i} or {x}.is_cuda is not {cuda!r}:", no,
                f"    p{i} = {x}.data_ptr()", f"    if (p{i} % 16 == 0) is not {aligned!r}:", no]
    if t is int:  # the classes of _int_lines, each as a condition on the value
        i32 = f"{-2**31} <= {x} < {2**31}"
        cond = {("constexpr", 1): f"{x} == 1", ("i32", "D"): f"{i32} and {x} % 16 == 0",
                ("i32", ""): f"{i32} and {x} != 1" + (f" and {x} % 16 != 0" if align else ""),
                ("i32", None): i32}.get(k) if isinstance(k, tuple) else None
        return [f"    if type({x}) is not int or not ({cond}):", no] if cond else None
    if t is float or t is bool:
        return [f"    if type({x}) is not {t.__name__}:", no]
    return None


def unguarded():
    """[(kernel name, call shape)] of each call shape whose launches have no guard: each of them builds its key
    (the fast path) at every launch. For the device scripts that time host-bound rows."""
    out = []
    for ref in STATE.fast_fns:
        fn = ref()
        for shape, g in (fn.__dict__.get("_tlshim_guards", {}) if fn is not None else {}).items():
            if g is None:
                out.append((fn.__name__, shape))
    return out


def _make_guard(fn, nargs, kwnames, key, opt_key, hit, vals, dry=False):
    """The guard of a launch of nargs positional arguments and keywords kwnames whose key (key, opt_key) found hit
    (_remember's tuple) with values vals: guard(fn, args, kwargs, grid) launches and returns the kernel, or returns
    None. dry: it returns True instead of launching (the self-test). None where a value's key has no guard."""
    asm, entry, plan, kernel, packed = hit
    params = _fast_params(fn)
    torch = _torch()
    if packed is None and not dry or torch is None:
        return None
    runtime, language = STATE.knob_groups or _knob_groups()
    ns = {"Tensor": torch.Tensor, "MASK": tlapi.WORD_MASK, "EVENTS": EVENTS, "LAUNCH_OK": ("launch_ok", entry.options),
          "valid": asm.valid, "RT": runtime, "LANG": language, "ARCH": opt_key[1], "FPF": opt_key[2], "kernel": kernel}
    lines = ["def guard(fn, args, kwargs, grid):", "    if getattr(fn, 'pre_run_hooks', None):", "        return None"]
    if nargs:
        lines.append(f"    {''.join(f'v{i}, ' for i in range(nargs))}= args")
    for i, (name, constexpr, spec, align, default) in enumerate(params):
        if i >= nargs and name not in kwnames:  # its default: the same value, and key, at every launch
            ns[f"v{i}"] = default
            continue
        if i >= nargs:
            lines.append(f"    v{i} = kwargs[{name!r}]")
        check = _guard_check(i, key[i], vals[i], constexpr, align, ns)
        if check is None:
            return None
        lines += check
    for j, (n, v) in enumerate(opt_key[0]):
        ns[f"o{j}"] = v
        lines += [f"    if kwargs[{n!r}] != o{j}:", "        return None"]
    lines += ["    if getattr(RT, 'override_arch', None) != ARCH or getattr(LANG, 'default_fp_fusion', True) != FPF:",
              "        return None"]
    if dry:
        exec("\n".join(lines + ["    return True"]), ns)
        return ns["guard"]
    lines += ["    if LAUNCH_OK not in EVENTS.seen or not valid():", "        return None"]
    names = ", ".join(f"{p[0]!r}: v{i}" for i, p in enumerate(params))
    lines += [f"    g = grid({{{names}}}) if callable(grid) else grid", "    g = tuple(map(int, g))",
              "    if not 1 <= len(g) <= 3:",
              "        raise ValueError(f'grid must have 1 to 3 dimensions, got {g!r}')",
              "    if 0 in g:", "        return kernel"]
    pk, setters = packed[0], packed[1]
    for j, vi, how in setters:
        if how == "ptr" and type(vals[vi]) is torch.Tensor:
            lines.append(f"    u64[{j}] = p{vi}")
        elif how == "int" and type(vals[vi]) in (int, bool):
            lines.append(f"    u64[{j}] = {'int' if type(vals[vi]) is bool else ''}(v{vi}) & MASK")
        elif how == "float" and type(vals[vi]) is float:
            lines.append(f"    f64[{j}] = v{vi}")
        else:  # a descriptor: the fast path writes it
            return None
    ns.update(u64=pk.u64, f64=pk.f64, launch=pk.launch, lock=_lock, stream=_stream, TlError=tlapi.TlError,
              launch_error=_launch_error, entry=entry)
    lines += ["    try:", "        with lock:", "            launch(g, stream())", "    except TlError as e:",
              "        raise launch_error(entry, e) from None", "    return kernel"]
    exec("\n".join(lines), ns)
    return ns["guard"]


def _set_guard(fn, args, kwargs, key, opt_key, hit, vals):
    """Makes the guard of this launch's call shape the one of its key (made once per call shape, key and hit)."""
    shape = (len(args), tuple(kwargs)) if kwargs else len(args)
    memo = fn.__dict__.setdefault("_tlshim_guard_memo", {})
    m = memo.get((shape, key, opt_key))
    if m is None or m[0] is not hit:
        m = memo[(shape, key, opt_key)] = (hit, _make_guard(fn, len(args), tuple(kwargs), key, opt_key, hit, vals))
    fn.__dict__.setdefault("_tlshim_guards", {})[shape] = m[1]


def _remember(fn, args, kwargs, kd, asm, entry, specs, kernel):
    """Records a slow-path launch for the fast path."""
    names = [p.name for p in fn.params]
    fn.__dict__["_tlshim_names"] = frozenset(names)
    fn.__dict__["_tlshim_pnames"] = names
    opt_key = _opt_key(fn, kwargs)
    if opt_key is None:
        return
    fk = _binder(fn, args, kwargs)(fn, args, kwargs, kd)
    if fk is None:
        return
    index = {n: i for i, n in enumerate(names)}
    plan = [(index[s.name], s.name, s.entry, s.kind, s.ty) for s in specs if s.runtime]
    packed = None
    if STATE.ctx is not None and STATE.ctx.is_cuda:
        packed = _packed_plan(entry, [s for s in specs if s.runtime], index)
    if "_tlshim_fast" not in fn.__dict__:
        STATE.fast_fns.append(weakref.ref(fn))
    fn.__dict__.setdefault("_tlshim_fast", {})[(fk[0], opt_key)] = (asm, entry, plan, kernel, packed)


def tl_run(self, *args, grid, warmup, **kwargs):
    """JITFunction.run in tl mode (see the module docstring)."""
    kwargs.pop("_skip_fc", None)
    guards = self.__dict__.get("_tlshim_guards")
    if guards and not warmup:
        g = guards.get((len(args), tuple(kwargs)) if kwargs else len(args))
        if g is not None:
            k = g(self, args, kwargs, grid)
            if k is not None:
                return k
    kd = kinds()
    if "_tlshim_fast" in self.__dict__:
        k = _fast_run(self, args, grid, kwargs, kd, warmup)
        if k is not None:
            return k
    if kd.is_gluon(self):
        emit("unsupported", once="gluon", kernel=self.__name__, reason="a Gluon kernel")
        raise TlShimUnsupported("tl shim: Gluon kernels are not compiled by tl")
    names = [p.name for p in self.params]
    nameset = set(names)
    pkw = {k: v for k, v in kwargs.items() if k in nameset}
    okw = {k: v for k, v in kwargs.items() if k not in nameset}
    known = _option_names()
    if known:
        for k in okw:
            if k not in known:
                raise KeyError("Keyword argument %s was specified but unrecognised" % k)
    for hook in list(getattr(self, "pre_run_hooks", None) or ()):
        hook(*args, **kwargs)
    bound = self.signature.bind(*args, **pkw)
    bound.apply_defaults()
    bound_args = dict(bound.arguments)
    try:
        flags, notes, num_ctas = _options(okw)
    except TlShimUnsupported as e:
        emit("unsupported", once=str(e), kernel=self.__name__, reason=str(e))
        raise
    for n in notes:
        emit("note", once=n, kernel=self.__name__, msg=n)
    specs, ph = _specs_for(self, bound_args, kd)
    for s in specs:
        for n in s.notes:
            emit("note", once=(s.name, n), kernel=self.__name__, msg=f"{s.name}: {n}")
    asm = _assembly(self, ph.fns)
    tuples = any(s.kind == "tuple" for s in specs)
    if tuples:  # tuples of tensors: a wrapper kernel takes their leaves (the fast path does not remember these)
        try:
            asm, specs = tlsrc.tuple_wrapper(asm, self.params, specs, ph, kd)
        except tlsrc.Unsupported as e:
            emit("unsupported", once=str(e), kernel=self.__name__, reason=str(e))
            raise TlShimUnsupported(f"tl shim: {e}") from None
    sig = ", ".join(ph.fill(s.entry, asm.names) for s in specs)
    entry = _compile(asm.source, asm.kernel_name, sig, flags)
    by_name = {s.name: s for s in specs if s.runtime}

    fast = {}  # the argument types of a launch with every argument given -> its packed arguments

    def launcher(grid_, args_):
        """CompiledKernel[grid](*args): Triton's launcher takes the arguments as the kernel was compiled for, so
        the second launch with the same argument types rewrites the first one's packed values."""
        key = tuple(map(type, args_))
        hit = fast.get(key) if not callable(grid_) else None
        if hit is not None and ("launch_ok", entry.options) in EVENTS.seen:
            g = tuple(map(int, grid_))
            if not 1 <= len(g) <= 3:
                raise ValueError(f"grid must have 1 to 3 dimensions, got {g!r}")
            _launch_packed(entry, hit, args_, g)
            return
        b = self.signature.bind(*args_)
        b.apply_defaults()
        sp, ph2 = _specs_for(self, dict(b.arguments), kd)
        if tuples:
            sp = tlsrc.tuple_wrapper(asm, self.params, sp, ph2, kd)[1]
        rt = [s for s in sp if s.runtime]
        _launch(entry, {s.name: s for s in rt}, _grid_dims(grid_, dict(b.arguments)))
        if len(args_) == len(names) and STATE.ctx is not None and STATE.ctx.is_cuda:
            packed = _packed_plan(entry, rt, {n: i for i, n in enumerate(names)})
            if packed is not None:
                fast[key] = packed

    if not warmup:
        _launch(entry, by_name, _grid_dims(grid, bound_args))
    kernel = TlCompiledKernel(entry, self, launcher, num_ctas, name=_repr_name(self, specs, entry.name))
    if not ph.fns and not tuples:  # a warmup too: tutorial 02 warms up before each launch of the kernel it returns
        _remember(self, args, kwargs, kd, asm, entry, specs, kernel)
    return kernel


def _repr_name(fn, specs, default):
    """The kernel's name as Triton gives it: @jit(repr=f) names it f(SpecializationProxy(constants, signature)),
    constants holding the constexpr parameters and the ints specialised as the constant 1."""
    if getattr(fn, "_repr", None) is None:
        return default
    const = {s.name for s in specs if not s.runtime or s.entry == "i32:1"}
    signature = {s.name: "constexpr" if s.name in const else s.ty for s in specs}
    constants = {s.name: s.value for s in specs if s.name in const}
    proxy = collections.namedtuple("SpecializationProxy", ["constants", "signature"])(constants, signature)
    return fn.repr(proxy)


# ---------------------------------------------------------------------------------------------------------------
# triton.compile and Triton's front end
# ---------------------------------------------------------------------------------------------------------------
def tl_compile(src, target=None, options=None, _env_vars=None):
    """triton.compile in tl mode: an ASTSource is compiled by tl; anything else is unsupported."""
    emit("triton_compile", once=type(src).__name__, what=type(src).__name__)
    fn = getattr(src, "fn", None)
    if isinstance(src, str) or fn is None or not hasattr(src, "signature"):
        emit("unsupported", once="triton.compile(IR)", reason="triton.compile of an IR file (ttir/ttgir/ptx)")
        raise TlShimUnsupported("tl shim: triton.compile of an IR file (Triton-internal) is not supported by tl")
    backend = getattr(target, "backend", "cuda") if target is not None else "cuda"
    if backend != "cuda":
        emit("unsupported", once=f"target:{backend}", reason=f"target backend {backend}")
        raise TlShimUnsupported(f"tl shim: target {target} (tl targets NVIDIA GPUs)")
    options = dict(options or {})
    if target is not None and isinstance(getattr(target, "arch", None), int) and "arch" not in options:
        options["arch"] = f"sm{target.arch}"
    kd = kinds()
    consts = dict(getattr(src, "constants", {}) or {})
    attrs = dict(getattr(src, "attrs", {}) or {})
    sigd = dict(src.signature or {})
    ph = _Placeholders()
    entries = []
    try:
        for i, p in enumerate(fn.params):
            if (i, ) in consts or p.name in consts:
                entries.append(tlsrc.literal(consts.get((i, ), consts.get(p.name)), ph, kd))
                continue
            ty = sigd.get(p.name)
            if ty is None or ty == "constexpr":
                if p.is_constexpr and p.has_default:
                    entries.append(tlsrc.literal(p.default, ph, kd))
                    continue
                if ty == "constexpr":
                    entries.append("None")
                    continue
                raise tlsrc.Unsupported(f"parameter '{p.name}' has no signature entry")
            if not isinstance(ty, str):
                raise tlsrc.Unsupported(f"parameter '{p.name}': signature entry {ty!r}")
            tlty, _ = tlsrc.tl_type(ty)
            hint = ""
            for a in attrs.get((i, ), []) or []:
                if isinstance(a, (list, tuple)) and len(a) == 2 and a[0] == "tt.divisibility" and a[1] == 16:
                    hint = ":16"
            entries.append(tlty + hint)
    except tlsrc.Unsupported as e:
        emit("unsupported", once=str(e), kernel=fn.__name__, reason=str(e))
        raise TlShimUnsupported(f"tl shim: {e}") from None
    asm = _assembly(fn, ph.fns)
    sig = ", ".join(ph.fill(e, asm.names) for e in entries)
    try:
        flags, notes, num_ctas = _options(options)
    except TlShimUnsupported as e:
        emit("unsupported", once=str(e), kernel=fn.__name__, reason=str(e))
        raise
    entry = _compile(asm.source, asm.kernel_name, sig, flags)
    return TlCompiledKernel(entry, fn, None, num_ctas)


def _no_frontend(self, *args, **kwargs):
    emit("unsupported", once="make_ir", reason="Triton front-end internals (ASTSource.make_ir: TTIR / FileCheck)")
    raise TlShimUnsupported("tl shim: Triton's front end (ASTSource.make_ir, TTIR FileCheck) is Triton-internal")


def _no_do_compile(self, *args, **kwargs):
    emit("unsupported", once="_do_compile", reason="JITFunction._do_compile / preload called directly")
    raise TlShimUnsupported("tl shim: JITFunction._do_compile / preload is Triton-internal")


# ---------------------------------------------------------------------------------------------------------------
# installing
# ---------------------------------------------------------------------------------------------------------------
_installed = False
PATCHED = []
_UNDO = []  # (obj, name, whether obj held name itself, its value then): uninstall() puts them back


def _patch(obj, name, value):
    if hasattr(obj, name) or name in ("__getitem__", ):
        own = isinstance(obj, types.ModuleType) or name in vars(obj)
        _UNDO.append((obj, name, own, vars(obj).get(name) if own and not isinstance(obj, types.ModuleType)
                      else getattr(obj, name, None)))
        setattr(obj, "_tlshim_orig_" + name, getattr(obj, name, None))
        setattr(obj, name, value)
        where = obj.__name__ if isinstance(obj, types.ModuleType) else f"{obj.__module__}.{obj.__name__}"
        PATCHED.append(f"{where}.{name}")


_LIBDEVICE_PLACES = ("/usr/local/cuda/nvvm/libdevice/libdevice.10.bc",
                     "/usr/lib/nvidia-cuda-toolkit/libdevice/libdevice.10.bc",
                     "/usr/lib/cuda/nvvm/libdevice/libdevice.10.bc", "/opt/cuda/nvvm/libdevice/libdevice.10.bc")


def _libdevice(triton_mod):
    """Where tl finds NVIDIA's libdevice.10.bc (for tl.extra.libdevice calls): tl looks at $TL_LIBDEVICE, $CUDA_HOME,
    $CUDA_PATH and the usual CUDA folders; a pip-installed Triton carries its own copy, used when those have none."""
    if os.environ.get("TL_LIBDEVICE"):
        return os.environ["TL_LIBDEVICE"]
    homes = [os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH")]
    for p in [os.path.join(h, "nvvm", "libdevice", "libdevice.10.bc") for h in homes if h] + list(_LIBDEVICE_PLACES):
        if os.access(p, os.R_OK):
            return p
    base = os.path.dirname(getattr(triton_mod, "__file__", "") or "")
    for p in (os.path.join(base, "backends", "nvidia", "lib", "libdevice.10.bc"),
              os.path.join(base, "third_party", "cuda", "lib", "libdevice.10.bc")):
        if os.access(p, os.R_OK):
            os.environ["TL_LIBDEVICE"] = p  # putenv: libtl's getenv sees it
            return p
    return None


def _getitem(self, grid):
    return lambda *args, **kwargs: self.run(*args, grid=grid, warmup=False, **kwargs)


def install():
    """Patch triton (TL_SHIM=1). Idempotent. Returns the list of what was patched."""
    global _installed
    if _installed:
        return PATCHED
    _installed = True
    import triton
    from triton.runtime import jit as jitmod
    JIT = jitmod.JITFunction
    _patch(JIT, "run", tl_run)
    _patch(JIT, "__getitem__", _getitem)
    for name in ("_do_compile", "preload"):
        if hasattr(JIT, name):
            _patch(JIT, name, _no_do_compile)
    try:
        from triton.runtime import autotuner as at
        if hasattr(at.Autotuner, "_try_fast_path"):  # a C fast path of some forks: off
            _patch(at.Autotuner, "_try_fast_path", lambda self, *a, **k: None)
        if "__getitem__" in vars(at.Autotuner):
            _patch(at.Autotuner, "__getitem__", _getitem)
    except Exception as e:
        emit("note", msg=f"autotuner not patched: {e}")
    try:
        import triton.compiler.compiler as cc
        _patch(cc, "compile", tl_compile)
        if hasattr(cc, "ASTSource"):
            _patch(cc.ASTSource, "make_ir", _no_frontend)
    except Exception as e:
        emit("note", msg=f"triton.compiler.compiler not patched: {e}")
    try:
        import triton.compiler as tc
        if hasattr(tc, "compile"):
            _patch(tc, "compile", tl_compile)
    except Exception:
        pass
    if hasattr(triton, "compile"):
        _patch(triton, "compile", tl_compile)
    try:
        import triton.compiler.code_generator as cg
        if hasattr(cg, "ast_to_ttir"):
            _patch(cg, "ast_to_ttir", lambda *a, **k: _no_frontend(None))
    except Exception:
        pass
    _error_classes()
    emit("installed", patched=PATCHED, lib=tlapi.find_library(), triton=getattr(triton, "__version__", "?"),
         libdevice=_libdevice(triton))
    return PATCHED


def uninstall():
    """Undo install(): Triton compiles and launches again (its own caches as they were; tl's kernels stay, for a
    later install). Timing both compilers in turn in one process (bench's host-bound rows) toggles with these."""
    global _installed
    while _UNDO:
        obj, name, own, orig = _UNDO.pop()
        if own:
            setattr(obj, name, orig)
        else:  # it was inherited: drop the shim's own
            delattr(obj, name)
        if "_tlshim_orig_" + name in vars(obj):  # its own, not a base class's
            delattr(obj, "_tlshim_orig_" + name)
    PATCHED.clear()
    _installed = False


def maybe_install():
    if ENABLED:
        return install()
    return None
