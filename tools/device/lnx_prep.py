"""lnx_prep.py OUT: the PTX variants of Liger-Kernel's layer_norm forward that lnx_bench.py times (bf16, n_cols
4096, 8 warps, sm_90a), from tools/conformance/liger (extract_liger.sh) through build/bin/tlc:
  a_base   the kernel as tlc compiles it          b_base40  a with .maxnreg 40   e_base32  a with .maxnreg 32
  c_late   W and B loaded after the statistics    d_late40  c with .maxnreg 40   f_late32  c with .maxnreg 32"""
import os, subprocess, sys
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
src = open(os.path.join(ROOT, "tools/conformance/liger/src/liger_kernel/ops/layer_norm.py")).read()
body = src[src.index("@triton.jit\ndef _layer_norm_forward_kernel"):]
body = body[:body.index("\n@triton.jit", 10)]
head = "import triton\nimport triton.language as tl\nfrom triton.language.extra.libdevice import rsqrt\n\n"
wb = "".join(l + "\n" for l in body.split("\n") if l.strip().startswith(("W_row =", "B_row =", "W_f32 =", "B_f32 =")))
assert wb.count("\n") == 4, "the kernel's W and B lines moved: lnx_prep.py needs updating"
late = body.replace(wb, "")
at = late.index("\n", late.index("    rstd = rsqrt(")) + 1
late = late[:at] + wb + late[at:]
sig = "*bf16:16,i32:16,*bf16:16,i32:16,*bf16:16,1,*bf16:16,1,*bf16:16,1,*bf16:16,1,i32:16,fp32,4096"
for name, text in (("a_base", body), ("c_late", late)):
    tl = os.path.join(out, name + ".tl")
    open(tl, "w").write(head + text)
    ptx = subprocess.run([os.path.join(ROOT, "build/bin/tlc"), tl, "--kernel", "_layer_norm_forward_kernel",
                          "--signature", sig, "--num-warps", "8", "--arch", "sm_90a", "-o", "-"],
                         check=True, capture_output=True, text=True).stdout
    os.remove(tl)
    open(os.path.join(out, name + ".ptx"), "w").write(ptx)
    for cap, tag in ((40, "40"), (32, "32")):
        capped = ptx.replace(".maxntid 256, 1, 1\n", f".maxntid 256, 1, 1\n.maxnreg {cap}\n", 1)
        assert capped != ptx
        other = {"a_base": {"40": "b_base40", "32": "e_base32"}, "c_late": {"40": "d_late40", "32": "f_late32"}}
        open(os.path.join(out, other[name][tag] + ".ptx"), "w").write(capped)
