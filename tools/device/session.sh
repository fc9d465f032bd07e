#!/bin/bash
# tools/device/session.sh MODE: the device tool's commands of a session, written down once.
# Here (the build machine), before the first device call:
#   bash tools/device/session.sh prep      build, `make gpu-prep`, stage the test programs and tlc into carry/
#                                          (build/tests holds the CPU suite's logs too: too big to carry)
# There (the device tool's command; carry build/lib build/examples build/gpu-ptx build/aot
# tools/conformance/tutorials tools/conformance/liger carry), each part under ~6 minutes:
#   1      TL_TMA_TIMING=0 ONLY="gpu/ launch/ heur/ ops/ lineinfo/ desc/ tma/" tests/gpu.sh  (about 300 s)
#   2      GEN_COUNT=20 ONLY="gen/ example/ codegen/gpu aot/ cache/" tests/gpu.sh            (about 280 s)
#   quick  the parts a compiler change meets first: the ops, the examples, the codegen GPU checks (about 200 s)
#   ab     same-source rows, both compilers in one process: ROWS=regex (default ^t05), ROUNDS=N (4),
#          BENCH=samesrc (the tutorials, default) or liger, AB_TIMEOUT=seconds (300; t09 ~550 a turn)
#   prof   ncu --set full of the rows (ROWS=t04s,t05,t05b,rms,ln,rope,t08,t08t,t09f8,t09d) on both compilers (prof_rows.py),
#          each instruction's stall samples (src_*.csv), PTX and SASS
#   lnvar  tutorial 05's forward in hand-written variants beside a device copy (ln_variants/)
#   lnx    Liger's layer_norm forward in PTX variants (lnx_prep.py: later loads, register caps) beside a copy
#   occ    tl with and without its occupancy cap (TL_OCCUPANCY=0) beside Triton: prof_rows.py's rows
#          (ROWS=t04s,t05,rms,ln,rope), then `AB=1` Liger (all rows) and tutorials 01-05, each twice
#          (OCC_BENCH="liger", "samesrc" or "": which of the two)
#   libab  two builds of libtl on the same source rows, in turns (A B B A ...), each a process of its own: the
#          tree's build/lib/libtl.so against build/libab/*.so.xz (built here from another revision and compressed
#          with `xz -T0 -3`; carry build/libab), ROWS=regex of samesrc_bench's rows (default: t08 and tutorial
#          09's pointer kernels), ROUNDS=N turns each (2), BENCH=samesrc or liger; the autotuners' picks printed
#   rowsab prof_rows.py's rows (ROWS, T09D_CONFIGS, T09D_DTYPE; no ncu) timed in turns: Triton, the tree's libtl and each
#          build/libab/*.so.xz (as libab), ROUNDS turns (3), each in another order
#   configs  tutorials 03's and 09's matmuls: each autotune config as each compiler's autotuner timed it
#          (autotune_configs.py; ROWS=t03,naive,persistent,tma0,desc0,desc1, default tma0,desc0; DTYPES="fp16 fp8")
# Logs and archives go to $OUT (at most 8 files come back).
cd "$(dirname "$0")/../.." || exit 2
if [ "$1" = prep ]; then
    make -j"$(nproc)" all && make gpu-prep || exit 1
    mkdir -p carry/bt
    cp build/tests/{desc_test,gpu_test,heur_test,kgen,launch_test,lineinfo_test,ops_test,tma_test} carry/bt/
    xz -T0 -3 -c build/bin/tlc > carry/tlc.xz
    S="*fp16:16,*fp16:16,*fp16:16,*fp16:16,*fp32:16,*fp32:16,i32:16,i32:16,fp32,8192"
    rm -rf carry/lnvar && mkdir -p carry/lnvar
    for k in v1 v2 v3 v4 v5 v6; do
        build/bin/tlc tools/device/ln_variants.tl --kernel $k --signature "$S" --num-warps 8 --arch sm_90a \
            -o carry/lnvar/$k.ptx || exit 1
    done
    build/bin/tlc examples/tutorial_05_layer_norm.tl --kernel _layer_norm_fwd_fused --signature "$S" --num-warps 8 \
        --arch sm_90a -o carry/lnvar/v0.ptx && sed -i 's/_layer_norm_fwd_fused/v0/g' carry/lnvar/v0.ptx
    if [ -d tools/conformance/liger ]; then rm -rf carry/lnx; python3 tools/device/lnx_prep.py carry/lnx || exit 1; fi
    du -sh carry
    exit 0
fi
case $1 in 1 | 2 | quick | ab | prof | lnvar | lnx | occ | libab | rowsab | configs) ;; *) sed -n '2,/^# Logs and archives/p' "$0"; exit 2 ;; esac
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
# libab, rowsab: build/libab's builds of libtl appended to libs (NAME=PATH), each unpacked into /tmp
ab_libs() { for x in build/libab/*.so.xz; do n=$(basename "$x" .so.xz); xz -dc "$x" > /tmp/$n.so && libs+=("$n=/tmp/$n.so"); done; }
# the order of turn $1: libs as listed, every second turn reversed (a GPU that heats up slows what runs last)
turn_order() { order=("${libs[@]}"); [ $(($1 % 2)) = 0 ] && order=($(printf '%s\n' "${libs[@]}" | tac)); return 0; }
mkdir -p build/bin build/tests
[ -d carry/bt ] && cp carry/bt/* build/tests/
[ -f carry/tlc.xz ] && [ ! -x build/bin/tlc ] && { xz -dc carry/tlc.xz > build/bin/tlc; chmod +x build/bin/tlc; }
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
case $1 in
1) TL_TMA_TIMING=0 ONLY="gpu/ launch/ heur/ ops/ lineinfo/ desc/ tma/" timeout 480 bash tests/gpu.sh > $OUT/gpu1.log 2>&1
   tail -3 $OUT/gpu1.log; grep -a "FAIL" $OUT/gpu1.log | head -20 ;;
2) GEN_COUNT=20 ONLY="gen/ example/ codegen/gpu aot/ cache/" timeout 480 bash tests/gpu.sh > $OUT/gpu2.log 2>&1
   tail -3 $OUT/gpu2.log; grep -a "FAIL" $OUT/gpu2.log | head -20 ;;
quick) ONLY="ops/ example/ codegen/gpu" timeout 400 bash tests/gpu.sh > $OUT/quick.log 2>&1
   tail -3 $OUT/quick.log; grep -a "FAIL" $OUT/quick.log | head -20 ;;
ab) AB=1 ROUNDS=${ROUNDS:-4} BENCH=${BENCH:-samesrc} ONLY="${ROWS:-^t05}" timeout ${AB_TIMEOUT:-300} bash tests/bench.sh \
       > $OUT/ab.log 2>&1
   sed -n '/^row /,$p' $OUT/ab.log ;;
prof)
   P=/tmp/prof; rm -rf $P; mkdir -p $P/tc $P/dump
   export PYTHONPATH=tools/conformance/pylib
   TRITON_CACHE_DIR=$P/tc timeout 120 python3 tools/device/prof_rows.py triton 2>&1 | tail -5
   TL_DUMP=1 TL_DUMP_DIR=$P/dump timeout 120 python3 tools/device/prof_rows.py tl 2>&1 | tail -5
   for c in triton tl; do
       PROF=1 TRITON_CACHE_DIR=$P/tc timeout 200 ncu --profile-from-start off --set full --import-source no \
           -o $P/rep_$c python3 tools/device/prof_rows.py $c > $P/ncu_run_$c.txt 2>&1
       echo "ncu $c rc=$?"
       ncu -i $P/rep_$c.ncu-rep --page details > $P/ncu_$c.txt 2>&1
       # each instruction's stall samples, to put a difference in time on the instructions behind it
       ncu -i $P/rep_$c.ncu-rep --page source --csv --print-source sass > $P/src_$c.csv 2>&1
   done
   grep -a -E "^  [_a-z]|Duration|DRAM Throughput|Registers Per|Achieved Occupancy|Issue Slots Busy" $P/ncu_*.txt | head -60
   mkdir -p $P/sass   # both compilers' SASS, to diff: Triton's cubins from its cache, tl's PTX through ptxas
   for f in $(find $P/tc -name "*.cubin"); do cuobjdump -sass "$f" > $P/sass/triton_$(basename "$f" .cubin).sass; done
   for f in $(find $P/dump -name "*.ptx"); do
       ptxas -arch sm_90a "$f" -o /tmp/k.cubin && cuobjdump -sass /tmp/k.cubin > $P/sass/tl_$(basename "$f" .ptx).sass
   done
   tar czf $OUT/prof.tgz -C $P ncu_triton.txt ncu_tl.txt src_triton.csv src_tl.csv dump tc sass ;;
rowsab)
   export PYTHONPATH=tools/conformance/pylib
   libs=("triton=" "tree=$PWD/build/lib/libtl.so")
   ab_libs
   for k in $(seq 1 "${ROUNDS:-3}"); do
       turn_order $k
       for l in "${order[@]}"; do
           n=${l%%=*}; c=tl; [ $n = triton ] && c=triton
           TL_LIB=${l#*=} TL_CACHE_DIR=/tmp/rowsab_$n timeout 200 python3 tools/device/prof_rows.py $c \
               > /tmp/rowsab.log 2>&1
           # the rows, or (none printed: a failed row stops the script) how it ended
           grep -a -E "^(tl|triton) " /tmp/rowsab.log | sed "s/^[a-z]*/$n/" | grep . || tail -5 /tmp/rowsab.log
       done
   done ;;
configs)
   export PYTHONPATH=tools/conformance/pylib
   for d in ${DTYPES:-fp16}; do
       for c in triton tl; do
           DTYPE=$d timeout 200 python3 tools/device/autotune_configs.py $c /tmp/cfg_${d}_$c.json 2>&1 | tail -3
       done
       python3 tools/device/autotune_configs.py join /tmp/cfg_${d}_triton.json /tmp/cfg_${d}_tl.json | tee $OUT/configs_$d.txt
   done ;;
lnvar) python3 tools/device/ln_bench.py carry/lnvar ;;
lnx) python3 tools/device/lnx_bench.py carry/lnx ;;
occ)
   export PYTHONPATH=tools/conformance/pylib
   R=${ROWS:-t04s,t05,rms,ln,rope}; D=/tmp/occdump; rm -rf $D; mkdir -p $D
   ROWS=$R timeout 120 python3 tools/device/prof_rows.py triton 2>&1 | grep -a "a call"
   for i in 1 2; do
       TL_OCCUPANCY=0 ROWS=$R timeout 120 python3 tools/device/prof_rows.py tl 2>&1 | grep -a "a call" | sed 's/^tl/tl-uncapped/'
       TL_DUMP_DIR=$D ROWS=$R timeout 120 python3 tools/device/prof_rows.py tl 2>&1 | grep -a "a call"
   done
   grep -H -m1 "^.maxnreg" $D/*.ptx
   for b in ${OCC_BENCH-liger samesrc}; do
       for occ in 0 1; do
           rows=.; [ $b = samesrc ] && rows='^t0[1245]'
           TL_OCCUPANCY=$occ AB=1 ROUNDS=${ROUNDS:-4} BENCH=$b ONLY="$rows" timeout 200 bash tests/bench.sh \
               > $OUT/occ_$b$occ.log 2>&1
           echo "== $b TL_OCCUPANCY=$occ"; sed -n '/^row /,$p' $OUT/occ_$b$occ.log
       done
   done ;;
libab)
   export PYTHONPATH=tools/conformance/pylib TL_SHIM=1 TRITON_PRINT_AUTOTUNING=1
   libs=("tree=$PWD/build/lib/libtl.so")
   ab_libs
   script=samesrc_bench.py; [ "${BENCH:-samesrc}" = liger ] && script=liger_bench.py
   for k in $(seq 1 "${ROUNDS:-2}"); do
       turn_order $k
       for l in "${order[@]}"; do
           echo "== ${l%%=*} (turn $k)"
           TL_LIB=${l#*=} TL_CACHE_DIR=/tmp/libab_${l%%=*} ONLY="${ROWS:-t08|t09 (naive|persistent) fp16}" \
               timeout 200 python3 tools/conformance/$script tl /tmp/libab.json 2>&1 | grep -a -E "^(t0|liger|best config)" \
               | cut -c1-200
       done
   done ;;
esac
