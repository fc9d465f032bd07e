"""devenv.py: what the device scripts (prof_rows.py, t08_host.py, launch_host.py) set up before their rows: the
harness's paths, tl's shim installed when argv[1] is "tl" (every launch through libtl), and Liger's packages
importable without running their __init__ (which needs more than the kernels). setup() returns the mode; then
`from samesrc_bench import load` loads a tutorial."""
import os, sys, types

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
LIGER = os.path.join(ROOT, "tools", "conformance", "liger", "src")


def setup():
    for p in (os.path.join(ROOT, "tools", "conformance"), os.path.join(ROOT, "tools", "conformance", "pylib"), LIGER):
        sys.path.insert(0, p)
    mode = sys.argv[1]
    if mode == "tl":
        import tlshim
        tlshim.install()
    for name, path in (("liger_kernel", "liger_kernel"), ("liger_kernel.ops", "liger_kernel/ops")):
        m = types.ModuleType(name)
        m.__path__ = [os.path.join(LIGER, path)]
        sys.modules[name] = m
    return mode
