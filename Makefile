# tl: a Triton-style tile language compiler and runtime in C.
#   make            build build/bin/tlc and build/lib/libtl.so
#   make test       install missing packages, build, run the CPU test suite
#   make demo       install, build, run the examples (GPU if present, else the interpreter)
#   make fuzz       libFuzzer smoke run of the front end (ASan+UBSan)
#   make gpu-test   run the examples and runtime tests on a GPU from a prebuilt build/
#   make bench      GPU benchmarks

LLVM_CONFIG ?= /usr/lib/llvm-19/bin/llvm-config
CC      ?= cc
B       := build
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wno-sign-compare -fPIC \
           -Ilang -Icompiler -Iruntime -I$(B)/gen -MMD -MP
VERSION := 0.1.0

# Generated front end.
GEN     := $(B)/gen/lexer.c $(B)/gen/lexer.h $(B)/gen/parser.c $(B)/gen/parser.h

LANG_SRC     := lang/util.c lang/diag.c lang/ast.c
COMPILER_SRC := $(filter-out compiler/tlc.c compiler/ptx.c compiler/llvm%.c,$(wildcard compiler/*.c))
LLVM_SRC     := compiler/ptx.c $(wildcard compiler/llvm*.c)
RUNTIME_SRC  := $(wildcard runtime/*.c)

FRONT_OBJ := $(LANG_SRC:%.c=$(B)/obj/%.o) $(B)/obj/gen/lexer.o $(B)/obj/gen/parser.o
LIB_OBJ   := $(FRONT_OBJ) $(COMPILER_SRC:%.c=$(B)/obj/%.o) $(RUNTIME_SRC:%.c=$(B)/obj/%.o)
LLVM_OBJ  := $(LLVM_SRC:%.c=$(B)/obj/%.o)

LLVM_COMPONENTS := nvptx passes ipo
LLVM_LIBS = $(shell $(LLVM_CONFIG) --link-static --libs $(LLVM_COMPONENTS))
LLVM_LIBDIR = $(shell $(LLVM_CONFIG) --libdir)
# LLVM goes into libtl.so statically and its symbols stay hidden; zlib/zstd are
# linked statically too so the library needs only libc, libm and libdl.
LIB_LDFLAGS = -shared -Wl,--exclude-libs,ALL -static-libstdc++ -static-libgcc -Wl,-soname,libtl.so \
              -L$(LLVM_LIBDIR) -Wl,--start-group $(LLVM_LIBS) -Wl,--end-group \
              -l:libzstd.a -l:libz.a -lm -ldl -lpthread -Wl,--gc-sections -Wl,--no-undefined -s

.PHONY: all test demo fuzz gpu-prep gpu-test bench deps clean install
EXAMPLES := copy grayscale swizzle matmul interop
TEST_BINS := $(B)/tests/api_test $(B)/tests/launch_test $(B)/tests/gpu_test $(B)/tests/ops_test $(B)/bin/tl-bench
all: $(B)/bin/tlc $(B)/lib/libtl.so $(B)/include/tl.h $(EXAMPLES:%=$(B)/examples/%) $(TEST_BINS)

deps:
	@sh tools/deps.sh

$(B)/gen/lexer.c $(B)/gen/lexer.h: lang/lexer.l
	@mkdir -p $(B)/gen
	flex --header-file=$(B)/gen/lexer.h -o $(B)/gen/lexer.c $<

$(B)/gen/parser.c $(B)/gen/parser.h: lang/parser.y
	@mkdir -p $(B)/gen
	bison -Wall -Wno-counterexamples --defines=$(B)/gen/parser.h -o $(B)/gen/parser.c $<

# The compiler's build id goes into the disk cache key: a cubin cached by one
# build of tl is never loaded by another.
ALL_SRC := $(sort $(wildcard lang/*.[chly] compiler/*.[ch] runtime/*.[ch]))
$(B)/gen/build_id.h: $(ALL_SRC)
	@mkdir -p $(B)/gen
	@echo "#define TL_BUILD_ID \"$$(cat $(ALL_SRC) | cksum | cut -d' ' -f1)\"" > $@.tmp && mv $@.tmp $@
$(B)/obj/runtime/gpu.o: $(B)/gen/build_id.h

# Everything depends on the generated headers being there first.
$(LIB_OBJ) $(LLVM_OBJ) $(B)/obj/compiler/tlc.o: | $(B)/gen/lexer.h $(B)/gen/parser.h

$(B)/obj/gen/%.o: $(B)/gen/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Wno-unused-function -Wno-implicit-fallthrough -c -o $@ $<

LLVM_CFLAGS = $(shell $(LLVM_CONFIG) --cflags | sed 's/-std=[^ ]*//')
$(LLVM_OBJ): CFLAGS += $(LLVM_CFLAGS)
$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -DTL_VERSION='"$(VERSION)"' -c -o $@ $<

$(B)/lib/libtl.so: $(LIB_OBJ) $(LLVM_OBJ)
	@mkdir -p $(dir $@)
	$(CXX) -o $@ $(LIB_OBJ) $(LLVM_OBJ) $(LIB_LDFLAGS)

$(B)/bin/tlc: $(B)/obj/compiler/tlc.o $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< -L$(B)/lib -ltl -Wl,-rpath,'$$ORIGIN/../lib'

$(B)/include/tl.h: runtime/tl.h
	@mkdir -p $(dir $@)
	cp $< $@

# Example programs use only the public API.
$(B)/examples/%: examples/%.c examples/common.h runtime/tl.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iruntime -o $@ $< -L$(B)/lib -ltl -lm -ldl -Wl,-rpath,'$$ORIGIN/../lib'

# Test and benchmark programs; the GPU ones also use libtl's internal CUDA loader.
$(B)/tests/%: tests/%.c runtime/tl.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Wno-unused-result -Iruntime -Ilang -Iexamples -o $@ $< -L$(B)/lib -ltl -lm \
	    -Wl,-rpath,'$$ORIGIN/../lib'
$(B)/tests/ops_test: tests/ops_std.h
$(B)/bin/tl-bench: tests/bench.c examples/common.h runtime/tl.h runtime/cuda.h $(B)/lib/libtl.so
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -std=gnu11 -Wall -Wextra -Iruntime -Ilang -Iexamples -o $@ $< -L$(B)/lib -ltl -lm -ldl \
	    -Wl,-rpath,'$$ORIGIN/../lib'

# Before carrying build/ to a GPU machine: also write the PTX of the codegen
# numeric checks (tests/codegen/gpu_check.py runs them there, through CuPy).
gpu-prep: all
	@bash tests/codegen/gpu_ptx.sh $(B)/gpu-ptx > $(B)/gpu-ptx.log 2>&1 || { cat $(B)/gpu-ptx.log; exit 1; }

# On the GPU machine: uses the prebuilt build/ as it is, never rebuilds.
gpu-test:
	@bash tests/gpu.sh

bench:
	@bash tests/bench.sh

PREFIX ?= /usr/local
install: all
	install -d $(PREFIX)/bin $(PREFIX)/lib $(PREFIX)/include
	install -m 755 $(B)/bin/tlc $(PREFIX)/bin/tlc
	install -m 755 $(B)/lib/libtl.so $(PREFIX)/lib/libtl.so
	install -m 644 runtime/tl.h $(PREFIX)/include/tl.h

test: deps
	@$(MAKE) --no-print-directory all
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

clean:
	rm -rf $(B)

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)
