# bench/lib/bench.mk - libfold vs ICU and utf8proc (included by
# bench/bench.mk).
#
#   make bench-lib        full run: 50,000 names per set, best of 7 passes
#   make check-lib-ratio  suite: small run, loose ratios, zero allocations
#
# BENCH_LIB_ARGS adds options (see build/bench-lib --help).

BL_OBJ := $(BUILD)/obj/bench/lib
BENCH_LIB := $(BUILD)/bench-lib
BENCH_LIB_ARGS ?=
BL_HDRS := $(wildcard bench/lib/*.h) lib/fold.h
BL_CXXFLAGS := -std=c++17 $(OPT) $(WARN) -Ilib -Ibench/lib \
	$(shell pkg-config --cflags icu-uc icu-i18n 2>/dev/null) $(EXTRA_CFLAGS)

$(BL_OBJ)/%.o: bench/lib/%.c $(BL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Ibench/lib -c -o $@ $<

$(BL_OBJ)/%.o: bench/lib/%.cpp $(BL_HDRS)
	@mkdir -p $(@D)
	$(CXX) $(BL_CXXFLAGS) -c -o $@ $<

# The Linux kernel's fs/unicode as the ext4 profile's peer, where suite
# lib-kernel or make bench has fetched it (tests/lib/kernel-src.sh): then
# kernel-peer.c and the kernel's objects are linked in; bench-lib declares
# their entry points weak and leaves the comparison out without them.
BL_KERNEL := $(if $(wildcard $(KERNEL_UNI)/ready),$(BL_OBJ)/kernel-peer.o \
	$(TL_KOBJ)/kernel-oracle.o $(TL_KOBJ)/utf8-norm.o $(TL_KOBJ)/utf8data.o \
	$(TL_OBJ)/check.o)

$(BL_OBJ)/kernel-peer.o: bench/lib/kernel-peer.c tests/lib/kernel-oracle.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itests/lib $(KERNEL_CFLAGS) -c -o $@ $<

$(BENCH_LIB): $(BL_OBJ)/bench-lib.o $(BL_OBJ)/corpus.o $(BL_OBJ)/siphash.o \
		$(BL_OBJ)/alloccount.o $(BL_KERNEL) $(LIBFOLD_A)
	$(CXX) $(LDFLAGS_BASE) -o $@ $^ \
		$(shell pkg-config --libs icu-uc icu-i18n 2>/dev/null) -lutf8proc

.PHONY: bench-lib check-lib-ratio bench-lib-ir
bench-lib: $(BENCH_LIB)
	$(BENCH_LIB) $(BENCH_LIB_ARGS)

# Instructions a name under callgrind (bench/lib/ir.sh; needs valgrind):
# deterministic, for comparing builds whose wall-time ratios are within
# bench-lib's noise.  IR_SETS and IR_IMPLS narrow it.
BENCH_IR := $(BUILD)/bench-ir
$(BENCH_IR): $(BL_OBJ)/bench-ir.o $(BL_OBJ)/corpus.o $(BL_OBJ)/siphash.o \
		$(LIBFOLD_A)
	$(CXX) $(LDFLAGS_BASE) -o $@ $^ \
		$(shell pkg-config --libs icu-uc icu-i18n 2>/dev/null) -lutf8proc
bench-lib-ir: $(BENCH_IR)
	sh bench/lib/ir.sh $(BENCH_IR) "$(IR_SETS)" "$(IR_IMPLS)"

CHECK_SUITES += lib-ratio
check-lib-ratio: $(BENCH_LIB)
	$(BENCH_LIB) --check $(BENCH_LIB_ARGS)
