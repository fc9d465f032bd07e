# tl: a Triton-style tile language compiler and runtime in C.
#   make            build build/bin/tlc, build/lib/libtl.so.VERSION (+ links) and libtl.a
#   make test       install missing packages, build, run the CPU test suite
#   make demo       install, build, run the examples (GPU if present, else the interpreter)
#   make fuzz       libFuzzer smoke run of the front end (ASan+UBSan)
#   make fuzz-deep  mutants of the valid kernels through tlc to PTX: no exit 4, crash or hang
#   make fuzz-gen   random well-typed kernels (tests/gen/kgen.c) in the interpreter against a C
#                   evaluation and through tlc; GPU=1 on a GPU machine: the GPU against the interpreter
#   make gpu-test   run the examples and runtime tests on a GPU from a prebuilt build/
#   make bench      GPU benchmarks
#   make install    PREFIX=/usr/local DESTDIR=...: tlc, libtl, tl.h, tl.pc, man pages
#   make uninstall  the same variables: removes what install put there

LLVM_CONFIG ?= /usr/lib/llvm-19/bin/llvm-config
CC      ?= cc
B       := build
CFLAGS  ?= -O2 -g
# Hidden by default: libtl.so exports only what runtime/tl.h marks TL_API.
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -fPIC -fvisibility=hidden \
           -Ilang -Icompiler -Iruntime -I$(B)/gen -MMD -MP
VERSION := 0.1.0
SONAME  := libtl.so.$(firstword $(subst ., ,$(VERSION)))

# Generated front end.
GEN     := $(B)/gen/lexer.c $(B)/gen/lexer.h $(B)/gen/parser.c $(B)/gen/parser.h

LANG_SRC     := lang/util.c lang/diag.c lang/ast.c lang/host.c
COMPILER_SRC := $(filter-out compiler/tlc.c compiler/ptx.c compiler/llvm%.c,$(wildcard compiler/*.c))
LLVM_SRC     := compiler/ptx.c $(wildcard compiler/llvm*.c)
RUNTIME_SRC  := $(wildcard runtime/*.c)

FRONT_OBJ := $(LANG_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/lexer.o $(B)/obj/gen/parser.o
LIB_OBJ   := $(FRONT_OBJ) $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(RUNTIME_SRC:%.c=$(B)/obj/%.o)
LLVM_OBJ  := $(LLVM_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/devmath_bc.o

LLVM_COMPONENTS := nvptx passes ipo
LLVM_LIBS = $(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_COMPONENTS))
LLVM_LIBDIR = $(shell $(LLVM_CONFIG) --libdir)
# LLVM goes into libtl.so and tlc statically and its symbols stay hidden;
# zlib/zstd are linked statically too so both need only libc, libm and libdl.
LLVM_LDFLAGS = -static-libstdc++ -static-libgcc -L$(LLVM_LIBDIR) -Wl,--start-group $(LLVM_LIBS) -Wl,--end-group \
               -l:libzstd.a -l:libz.a -lm -ldl -lpthread -Wl,--gc-sections -s
LIB_LDFLAGS = -shared -Wl,--exclude-libs,ALL -Wl,-soname,$(SONAME) -Wl,--no-undefined $(LLVM_LDFLAGS)

.PHONY: all harness test demo fuzz fuzz-deep fuzz-gen gpu-prep gpu-test bench conformance deps clean install uninstall FORCE
EXAMPLES := copy grayscale swizzle matmul interop tutorials
TEST_BINS := $(B)/tests/api_test $(B)/tests/robust_test $(B)/tests/fakegpu_test $(B)/tests/launch_test $(B)/tests/gpu_test $(B)/tests/ops_test $(B)/tests/desc_test \
             $(B)/tests/heur_test $(B)/tests/tma_test $(B)/tests/lineinfo_test $(B)/tests/kgen \
             $(B)/bin/tl-bench
LIB_FILES := $(B)/lib/libtl.so.$(VERSION) $(B)/lib/$(SONAME) $(B)/lib/libtl.so $(B)/lib/libtl.a
all: $(B)/bin/tlc $(LIB_FILES) $(B)/include/tl.h $(EXAMPLES:%=$(B)/examples/%) $(TEST_BINS)

deps:
	@sh tools/deps.sh

$(B)/gen/lexer.c $(B)/gen/lexer.h: lang/lexer.l
	@mkdir -p $(B)/gen
	flex --header-file=$(B)/gen/lexer.h -o $(B)/gen/lexer.c $<

$(B)/gen/parser.c $(B)/gen/parser.h: lang/parser.y
	@mkdir -p $(B)/gen
	bison -Wall -Wno-counterexamples --defines=$(B)/gen/parser.h -o $(B)/gen/parser.c $<

# tl's device math library (fp64 exp/log/sin/cos, erf): C compiled for NVPTX
# to LLVM bitcode, embedded in the lowering as a byte array (llvm_extern.c).
CLANG ?= clang
$(B)/gen/devmath.bc: compiler/device/math.c
	@mkdir -p $(B)/gen
	$(CLANG) --target=nvptx64-nvidia-cuda -O2 -ffp-contract=off -fno-math-errno -nostdlib -emit-llvm -c -o $@ $<
$(B)/gen/devmath_bc.c: $(B)/gen/devmath.bc
	{ echo 'const unsigned char llvm_devmath_bc[] = {'; od -An -v -tx1 $< | sed 's/\([0-9a-f][0-9a-f]\)/0x\1,/g'; \
	  echo '};'; echo 'const unsigned long llvm_devmath_bc_len = sizeof llvm_devmath_bc;'; } > $@.tmp && mv $@.tmp $@

# The compiler's build id goes into the disk cache key: a cubin cached by one
# build of tl is never loaded by another.
ALL_SRC := $(sort $(wildcard lang/*.[chly] compiler/*.[ch] compiler/device/*.c runtime/*.[ch]))
$(B)/gen/build_id.h: $(ALL_SRC)
	@mkdir -p $(B)/gen
	@echo "#define TL_BUILD_ID \"$$(cat $(ALL_SRC) | cksum | cut -d' ' -f1)\"" > $@.tmp && mv $@.tmp $@
$(B)/obj/runtime/gpu.o: $(B)/gen/build_id.h

# Everything depends on the generated headers being there first.
$(LIB_OBJ) $(LLVM_OBJ) $(B)/obj/compiler/tlc.o: | $(B)/gen/lexer.h $(B)/gen/parser.h
# ... and on the flags they were compiled with: a change rebuilds them all.
$(LIB_OBJ) $(LLVM_OBJ) $(B)/obj/compiler/tlc.o: $(B)/obj/cflags
$(B)/obj/cflags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(CC) $(CFLAGS) $(VERSION)' | cmp -s - $@ || echo '$(CC) $(CFLAGS) $(VERSION)' > $@
FORCE:

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-implicit-fallthrough -c -o $@ $<

LLVM_CFLAGS = $(shell $(LLVM_CONFIG) --cflags | sed 's/-std=[^ ]*//')
$(LLVM_OBJ): CFLAGS += $(LLVM_CFLAGS)
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DTL_VERSION='"$(VERSION)"' -c -o $@ $<

# The shared library: the real file carries the full version, the soname
# link the major one, and libtl.so is what -ltl finds.
$(B)/lib/libtl.so.$(VERSION): $(LIB_OBJ) $(LLVM_OBJ)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(LIB_OBJ) $(LLVM_OBJ) $(LIB_LDFLAGS)
$(B)/lib/$(SONAME): $(B)/lib/libtl.so.$(VERSION)
	ln -sf $(notdir $<) $@
$(B)/lib/libtl.so: $(B)/lib/$(SONAME)
	ln -sf $(notdir $<) $@

# The static library: our objects merged into one, every symbol but the
# TL_API ones made local, so that a program's own read_file or fail never
# meets ours. Its users also link LLVM (see tl.pc's Libs.private).
$(B)/lib/libtl.a: $(LIB_OBJ) $(LLVM_OBJ)
	@mkdir -p $(dir $@)
	ld -r -o $(B)/obj/libtl-all.o $(LIB_OBJ) $(LLVM_OBJ)
	objcopy --localize-hidden --strip-debug $(B)/obj/libtl-all.o
	rm -f $@ && ar rcs $@ $(B)/obj/libtl-all.o

# tlc uses the compiler's internals, so it links an archive of all our
# objects (internal, never installed) and LLVM itself, not libtl.so.
$(B)/obj/libtl-internal.a: $(LIB_OBJ) $(LLVM_OBJ)
	rm -f $@ && ar rcs $@ $^
$(B)/bin/tlc: $(B)/obj/compiler/tlc.o $(B)/obj/libtl-internal.a
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $^ $(LLVM_LDFLAGS)

$(B)/include/tl.h: runtime/tl.h
	@mkdir -p $(dir $@)
	cp $< $@

# Example programs use only the public API.
$(B)/examples/%: examples/%.c examples/common.h runtime/tl.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iruntime -o $@ $< -L$(B)/lib -ltl -lm -ldl -Wl,-rpath,'$$ORIGIN/../lib'

# Test and benchmark programs. The GPU ones also drive CUDA directly: they link
# their own copy of the driver loader (cuda.o, util.o), libtl.so exports none.
CUDA_LOADER_OBJ := $(B)/obj/runtime/cuda.o $(B)/obj/lang/util.o
$(B)/tests/%: tests/%.c runtime/tl.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-result -Iruntime -Ilang -Iexamples -o $@ $< $(LDLIBS_EXTRA) -L$(B)/lib -ltl -lm \
	    -Wl,-rpath,'$$ORIGIN/../lib'
$(B)/tests/fakegpu_test: LDLIBS_EXTRA = -ldl
$(B)/tests/gpu_test: $(CUDA_LOADER_OBJ)
$(B)/tests/gpu_test: LDLIBS_EXTRA = $(CUDA_LOADER_OBJ) -ldl
$(B)/tests/tma_test: $(CUDA_LOADER_OBJ)
$(B)/tests/tma_test: LDLIBS_EXTRA = $(CUDA_LOADER_OBJ) -ldl
$(B)/tests/ops_test: tests/ops_std.h tests/ops_math.h tests/ops_rank5.h tests/ops_libdevice.h tests/ops_py.h tests/ops_scaled.h
# The kernel generator of the differential test (tests/gen.sh).
$(B)/tests/kgen: tests/gen/kgen.c runtime/tl.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iruntime -Iexamples -o $@ $< -L$(B)/lib -ltl -lm -Wl,-rpath,'$$ORIGIN/../lib'
$(B)/bin/tl-bench: tests/bench.c examples/common.h runtime/tl.h runtime/cuda.h $(B)/lib/libtl.so $(CUDA_LOADER_OBJ)
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iruntime -Ilang -Iexamples -o $@ $< $(CUDA_LOADER_OBJ) -L$(B)/lib -ltl -lm -ldl \
	    -Wl,-rpath,'$$ORIGIN/../lib'

# The suites' own programs (tests/*.sh run them; tests/run.sh asks for them
# first): in build/harness, which does not travel to the GPU machine, with
# ASan and UBSan where this compiler has them, so bad input to the IR parser,
# the layout pass or the interpreter is a memory error here, not a wrong kernel.
HB  := $(B)/harness
SAN := $(shell echo 'int main(void){return 0;}' | $(CC) -x c -fsanitize=address,undefined -o /dev/null - \
         >/dev/null 2>&1 && echo -fsanitize=address,undefined -fno-sanitize-recover=all)
HARNESS_BINS := $(HB)/cache_test $(HB)/devmath_test $(HB)/fake_libcuda.so $(HB)/interp_test $(HB)/ir_roundtrip \
                $(HB)/layout_test $(if $(SAN),$(HB)/interp_test_san)
HARNESS_HDRS := $(wildcard lang/*.h compiler/*.h runtime/*.h)
HARNESS_CFLAGS := -std=gnu11 -g -Wall -Wextra -Ilang -Icompiler -Iruntime
IR_HARNESS_SRC := lang/util.c lang/diag.c compiler/ir.c compiler/irprint.c compiler/irparse.c compiler/verify.c \
                  compiler/layout.c
LAYOUT_HARNESS_SRC := $(IR_HARNESS_SRC) compiler/axis.c compiler/layout_pass.c compiler/arch.c
INTERP_HARNESS_SRC := lang/util.c lang/diag.c compiler/ir.c compiler/fp8.c compiler/libdevice.c $(wildcard runtime/interp*.c)
harness: $(HARNESS_BINS)
$(HB)/cache_test: tests/cache_test.c runtime/cache.c lang/util.c $(HARNESS_HDRS)
	@mkdir -p $(HB)
	$(CC) $(HARNESS_CFLAGS) -O1 -o $@ runtime/cache.c lang/util.c tests/cache_test.c -lpthread
$(HB)/devmath_test: tests/devmath_test.c compiler/device/math.c
	@mkdir -p $(HB)
	$(CC) -std=gnu11 -O2 -Wall -Wextra -o $@ tests/devmath_test.c -lm
$(HB)/fake_libcuda.so: tests/fake_libcuda.c
	@mkdir -p $(HB)
	$(CC) -shared -fPIC -O1 -o $@ $<
$(HB)/interp_test: tests/interp_test.c $(INTERP_HARNESS_SRC) $(HARNESS_HDRS)
	@mkdir -p $(HB)
	$(CC) $(HARNESS_CFLAGS) -O2 -o $@ $(INTERP_HARNESS_SRC) tests/interp_test.c -lm
$(HB)/interp_test_san: tests/interp_test.c $(INTERP_HARNESS_SRC) $(HARNESS_HDRS)
	@mkdir -p $(HB)
	$(CC) $(HARNESS_CFLAGS) -O1 $(SAN) -fsanitize=float-cast-overflow -o $@ $(INTERP_HARNESS_SRC) tests/interp_test.c -lm
$(HB)/ir_roundtrip: tests/ir_roundtrip.c $(IR_HARNESS_SRC) $(HARNESS_HDRS)
	@mkdir -p $(HB)
	$(CC) $(HARNESS_CFLAGS) -O1 $(SAN) -o $@ $(IR_HARNESS_SRC) tests/ir_roundtrip.c -lm
$(HB)/layout_test: tests/layout_test.c $(LAYOUT_HARNESS_SRC) $(HARNESS_HDRS)
	@mkdir -p $(HB)
	$(CC) $(HARNESS_CFLAGS) -O1 $(SAN) -o $@ $(LAYOUT_HARNESS_SRC) tests/layout_test.c -lm

# Before carrying build/ to a GPU machine: also write the PTX of the codegen
# numeric checks (tests/codegen/gpu_check.py runs them there, through CuPy)
# and the AOT C files tests/gpu.sh compiles there (tests/aot/gpu.c).
gpu-prep: all
	@bash tests/codegen/gpu_ptx.sh $(B)/gpu-ptx > $(B)/gpu-ptx.log 2>&1 || { cat $(B)/gpu-ptx.log; exit 1; }
	@bash tests/aot/gpu_prep.sh $(B)/aot > $(B)/aot-prep.log 2>&1 || { cat $(B)/aot-prep.log; exit 1; }

# On the GPU machine: uses the prebuilt build/ as it is, never rebuilds.
gpu-test:
	@bash tests/gpu.sh

bench:
	@bash tests/bench.sh

# On the GPU machine (torch, Triton 3.6, pytest-xdist there): upstream Triton's
# language tests through libtl, compared with the Triton run recorded in
# tools/conformance/baseline (docs/conformance.md). The tests are extracted
# first with tools/conformance/extract_suite.sh (never committed) and carried.
# CONF_SAMPLE=6000 (every test function, 2026-11-28) or 1500 (its first quarter, quicker).
CONF_SAMPLE ?= 6000
CONF_BASE   := tools/conformance/baseline/$(if $(filter 1500,$(CONF_SAMPLE)),triton.tar.gz,triton-$(CONF_SAMPLE).tar.gz)
CONF_SELECT ?= tools/conformance/baseline/selection-$(CONF_SAMPLE).txt
CONF_OUT    ?= $(B)/conformance
conformance:
	@SELECT=$(CONF_SELECT) BUDGET=$${BUDGET:-400} bash tools/conformance/run.sh tl $(CONF_OUT)
	@python3 tools/conformance/report.py $(CONF_BASE) $(CONF_OUT)/tl | tee $(CONF_OUT)/report.txt

# make install PREFIX=/usr/local DESTDIR=/tmp/stage; make uninstall with the same.
PREFIX  ?= /usr/local
BINDIR  := $(DESTDIR)$(PREFIX)/bin
LIBDIR  := $(DESTDIR)$(PREFIX)/lib
INCDIR  := $(DESTDIR)$(PREFIX)/include
MANDIR  := $(DESTDIR)$(PREFIX)/share/man
# Libs.private: what a static link against libtl.a needs besides it.
TL_PC_PRIVATE = -Wl,-Bdynamic -L$(LLVM_LIBDIR) $(LLVM_LIBS) -lstdc++ -lzstd -lz -lm -ldl -lpthread
install: all
	install -d $(BINDIR) $(LIBDIR)/pkgconfig $(INCDIR) $(MANDIR)/man1 $(MANDIR)/man3
	install -m 755 $(B)/bin/tlc $(BINDIR)/tlc
	install -m 755 $(B)/lib/libtl.so.$(VERSION) $(LIBDIR)/libtl.so.$(VERSION)
	ln -sf libtl.so.$(VERSION) $(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(LIBDIR)/libtl.so
	install -m 644 $(B)/lib/libtl.a $(LIBDIR)/libtl.a
	install -m 644 runtime/tl.h $(INCDIR)/tl.h
	sed -e 's|@PREFIX@|$(PREFIX)|; s|@VERSION@|$(VERSION)|; s|@LIBS_PRIVATE@|$(TL_PC_PRIVATE)|' \
	    tools/tl.pc.in > $(LIBDIR)/pkgconfig/tl.pc
	install -m 644 docs/man/tlc.1 $(MANDIR)/man1/tlc.1
	install -m 644 docs/man/libtl.3 $(MANDIR)/man3/libtl.3

uninstall:
	rm -f $(BINDIR)/tlc $(LIBDIR)/libtl.so.$(VERSION) $(LIBDIR)/$(SONAME) $(LIBDIR)/libtl.so \
	      $(LIBDIR)/libtl.a $(INCDIR)/tl.h $(LIBDIR)/pkgconfig/tl.pc $(MANDIR)/man1/tlc.1 $(MANDIR)/man3/libtl.3

test: deps
	@$(MAKE) --no-print-directory all harness
	@bash tests/run.sh

demo: deps
	@$(MAKE) --no-print-directory all
	@bash examples/demo.sh

# libFuzzer smoke run of the front end, seeded with the examples.
FUZZ_SECONDS ?= 60
fuzz: deps $(GEN)
	@mkdir -p $(B)/fuzz/corpus
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	    -Ilang -I$(B)/gen -o $(B)/fuzz/fuzz_frontend tests/fuzz/fuzz_frontend.c \
	    $(LANG_SRC) $(B)/gen/lexer.c $(B)/gen/parser.c
	cp examples/*.tl $(B)/fuzz/corpus/
	$(B)/fuzz/fuzz_frontend -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 \
	    -rss_limit_mb=2048 $(B)/fuzz/corpus

# FUZZ_SECONDS=3600 make fuzz-deep; what it finds is saved in build/fuzz-deep/
fuzz-deep: all
	python3 tests/fuzz/mutate.py --seconds $(FUZZ_SECONDS)

# FUZZ_SECONDS=3600 make fuzz-gen; each failing kernel and its reduction go to build/fuzz-gen/
PTXAS ?= /usr/local/cuda/bin/ptxas
fuzz-gen: all
	$(B)/tests/kgen --seconds $(FUZZ_SECONDS) --tlc $(B)/bin/tlc --out $(B)/fuzz-gen $(if $(GPU),--gpu) \
	    $(if $(wildcard $(PTXAS)),--ptxas $(PTXAS))

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
