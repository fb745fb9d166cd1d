# tests/lib/suite.mk - libfold test suites (included by tests/tests.mk).
#
#   check-lib-conformance  NormalizationTest, CaseFolding, closure, versions,
#                          kernel vectors, encodings (independent UCD oracle)
#   check-lib-invalid      ill-formed input, opaque blobs, buffer contract
#   check-lib-icu          differential against ICU 72 and utf8proc
#   check-lib-lanes        fast lanes against the library without them
#   check-lib-kernel       the "ext4" equivalence against the Linux kernel's
#                          own fs/unicode code (fetched: kernel-src.sh)
#   check-lib-asan         the four above under clang ASan+UBSan (build-asan)
#   check-lib-newer-ucd    lib-conformance and -lanes with tables from a
#                          newer UCD (fetched: tools/fetch-ucd.sh)
#   check-lib-bigendian    lib-invalid, -lanes, -conformance and tools-norm
#                          cross-built for s390x, run under qemu (sampled
#                          unless BE_QUICK=0)
#   check-lib-fuzz         short libFuzzer runs (fuzz/fuzz.mk)
#   check-lib-ratio        loose speed ratios and zero allocations (bench/lib)
#
# Programs: $(BUILD)/test-lib-*; objects: $(BUILD)/obj/tests/lib.

TL_OBJ      := $(BUILD)/obj/tests/lib
ICU_CFLAGS  := $(shell pkg-config --cflags icu-uc icu-i18n 2>/dev/null)
ICU_LIBS    := $(shell pkg-config --libs icu-uc icu-i18n 2>/dev/null)
TL_CFLAGS   := $(CFLAGS_BASE) -Itests/lib
TL_CXXFLAGS := -std=c++17 $(OPT) $(WARN) -Ilib -Itests/lib $(ICU_CFLAGS) $(EXTRA_CFLAGS)
TL_HDRS     := $(wildcard tests/lib/*.h) lib/fold.h
NORMTEST    := $(BUILD)/NormalizationTest.txt
# Random strings in lib-icu; the sanitizer run uses fewer.
LIB_ICU_RANDOM ?= 200000

$(NORMTEST): $(UCD)/NormalizationTest.txt.bz2
	@mkdir -p $(@D)
	bzcat $< >$@.tmp && mv $@.tmp $@

$(TL_OBJ)/%.o: tests/lib/%.c $(TL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TL_CFLAGS) -c -o $@ $<

$(TL_OBJ)/%.o: tests/lib/%.cpp $(TL_HDRS)
	@mkdir -p $(@D)
	$(CXX) $(TL_CXXFLAGS) -c -o $@ $<

TL_COMMON := $(TL_OBJ)/check.o $(TL_OBJ)/ucd.o
# what test-lanes.o links with besides the two copies of the library
TL_LANES_OBJS := $(TL_OBJ)/check.o $(TL_OBJ)/siphash.o

# --- lib-conformance -------------------------------------------------------
TEST_LIB_CONF := $(BUILD)/test-lib-conformance
TEST_LIB_CONF_OBJS := $(addprefix $(TL_OBJ)/,test-conformance.o conf-util.o \
	conf-normtest.o conf-casefold.o conf-closure.o conf-canon.o conf-version.o \
	conf-vectors.o conf-encoding.o)

$(TEST_LIB_CONF): $(TEST_LIB_CONF_OBJS) $(TL_COMMON) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $^

CHECK_SUITES += lib-conformance
.PHONY: check-lib-conformance
check-lib-conformance: $(TEST_LIB_CONF) $(NORMTEST)
	$(TEST_LIB_CONF) --ucd $(UCD) --normtest $(NORMTEST)

# --- lib-newer-ucd ---------------------------------------------------------
# lib-conformance and lib-lanes again, against libfold with tables generated
# from a newer Debian unicode-data than lib/fold_tables.c's (UCD_NEWER, a
# Unicode or Debian package version; fetched once per build tree):
# tests/lib/newer-ucd.sh.
UCD_NEWER ?= 17.0.0
CHECK_SUITES += lib-newer-ucd
.PHONY: check-lib-newer-ucd
check-lib-newer-ucd: $(MKTABLES) $(TEST_LIB_CONF_OBJS) $(TL_COMMON) \
		$(TL_LANES_OBJS)
	@UCD_NEWER=$(UCD_NEWER) CONF_OBJS="$(TEST_LIB_CONF_OBJS) $(TL_COMMON)" \
		LANES_OBJS="$(TL_LANES_OBJS)" sh tests/lib/newer-ucd.sh \
		$(BUILD) $(MKTABLES) "$(CC)" "$(CFLAGS_BASE) $(LIBFOLD_CFLAGS)"

# --- lib-invalid -----------------------------------------------------------
TEST_LIB_INVALID := $(BUILD)/test-lib-invalid

$(TEST_LIB_INVALID): $(TL_OBJ)/test-invalid.o $(TL_OBJ)/check.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $^

CHECK_SUITES += lib-invalid
.PHONY: check-lib-invalid
check-lib-invalid: $(TEST_LIB_INVALID)
	$(TEST_LIB_INVALID)

# --- lib-icu ---------------------------------------------------------------
TEST_LIB_ICU := $(BUILD)/test-lib-icu
TEST_LIB_ICU_OBJS := $(TL_OBJ)/test-icu.o $(TL_OBJ)/icu-oracle.o \
	$(TL_OBJ)/randname.o $(TL_OBJ)/check.o

$(TEST_LIB_ICU): $(TEST_LIB_ICU_OBJS) $(LIBFOLD_A)
	$(CXX) $(LDFLAGS_BASE) -o $@ $^ $(ICU_LIBS) -lutf8proc

CHECK_SUITES += lib-icu
.PHONY: check-lib-icu
check-lib-icu: $(TEST_LIB_ICU)
	$(TEST_LIB_ICU) --random $(LIB_ICU_RANDOM)

# --- lib-lanes -------------------------------------------------------------
# The fast lanes against the same library built with -DFOLD_NO_LANES (every
# code point through the general path), both linked into one program: the
# reference copy is linked into one object whose internal (hidden) symbols
# are made local and whose API is renamed ref_fold_*.
TL_REF_OBJS := $(patsubst lib/%.c,$(TL_OBJ)/nolanes/%.o,$(LIBFOLD_SRCS))
TL_REF := $(TL_OBJ)/fold-ref.o
TEST_LIB_LANES := $(BUILD)/test-lib-lanes

$(TL_OBJ)/nolanes/%.o: lib/%.c $(LIBFOLD_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -DFOLD_NO_LANES -c -o $@ $<

$(TL_REF): $(TL_REF_OBJS) tests/lib/mkref.sh
	LD=$(LD) sh tests/lib/mkref.sh $@ $(TL_REF_OBJS)

# bench/lib's SipHash-1-3, an implementation apart from fold_hash.c's
$(TL_OBJ)/siphash.o: bench/lib/siphash.c bench/lib/siphash.h
	@mkdir -p $(@D)
	$(CC) $(TL_CFLAGS) -Ibench/lib -c -o $@ $<

$(TEST_LIB_LANES): $(TL_OBJ)/test-lanes.o $(TL_LANES_OBJS) $(TL_REF) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $^

CHECK_SUITES += lib-lanes
.PHONY: check-lib-lanes
check-lib-lanes: $(TEST_LIB_LANES)
	$(TEST_LIB_LANES)

# --- lib-kernel ------------------------------------------------------------
# The kernel's utf8-norm.c and utf8data table, fetched into $(KERNEL_UNI) by
# tests/lib/kernel-src.sh (skipped, saying why, if no linux-source package
# can be had), built with the few <linux/*.h> it writes there; -w: the
# kernel's code is not held to our warning flags.
KERNEL_UNI := $(BUILD)/kernel-unicode
TEST_LIB_KERNEL := $(BUILD)/test-lib-kernel
TL_KOBJ := $(TL_OBJ)/kernel
KERNEL_CFLAGS := -I$(KERNEL_UNI) -I$(KERNEL_UNI)/include
LIB_KERNEL_NAMES ?= 1000000

$(TL_KOBJ)/%.o: $(KERNEL_UNI)/%.c
	@mkdir -p $(@D)
	$(CC) $(OPT) -w $(KERNEL_CFLAGS) -c -o $@ $<

$(TL_KOBJ)/test-kernel.o: tests/lib/test-kernel.c $(TL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TL_CFLAGS) $(KERNEL_CFLAGS) -c -o $@ $<

$(TL_KOBJ)/kernel-oracle.o: tests/lib/kernel-oracle.c $(TL_HDRS)
	@mkdir -p $(@D)
	$(CC) $(TL_CFLAGS) $(KERNEL_CFLAGS) -c -o $@ $<

$(TEST_LIB_KERNEL): $(TL_KOBJ)/test-kernel.o $(TL_KOBJ)/kernel-oracle.o \
		$(TL_KOBJ)/utf8-norm.o $(TL_KOBJ)/utf8data.o $(TL_OBJ)/randname.o \
		$(TL_OBJ)/check.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $^

CHECK_SUITES += lib-kernel
.PHONY: check-lib-kernel
check-lib-kernel:
	@if sh tests/lib/kernel-src.sh $(KERNEL_UNI); then \
	  $(MAKE) --no-print-directory -s $(TEST_LIB_KERNEL) && \
	  $(TEST_LIB_KERNEL) --names $(LIB_KERNEL_NAMES); \
	else echo "0 passed, 0 failed"; fi

# --- lib-bigendian ---------------------------------------------------------
# libfold's word-at-a-time code byte-swaps on big-endian machines
# (fold_load8/fold_store8), which no developer machine runs: the suites
# cross-built for s390x (a big-endian Debian architecture) and run under
# qemu-s390x by tests/lib/check-bigendian.sh, which installs its packages.
# Sampled as lib-asan is (about 4 minutes); BE_QUICK=0 runs them whole
# (13 to 16 minutes).
BE_QUICK ?= 1
CHECK_SUITES += lib-bigendian
.PHONY: check-lib-bigendian
check-lib-bigendian:
	@QUICK=$(BE_QUICK) tests/lib/check-bigendian.sh build-s390x

# --- lib-asan --------------------------------------------------------------
# The four suites above, rebuilt from scratch (library included) with clang
# and ASan+UBSan into build-asan; a failed build counts as a failure, so
# this also checks that libfold, these tests and the bench objects are
# clang -Werror clean.  Sampled (--quick, --cp-stride, fewer random names)
# to stay within a few minutes: every code point with a mapping is still
# checked, plain ones and old versions are sampled.
LIB_ASAN_BUILD := build-asan
# test-lib-lanes links the library twice (the reference copy renamed).
# clang 19's ASan puts an object's instrumented globals in COMDAT groups
# named after the module, alike in both copies, so the linker keeps one
# group for both and the link fails (Debian 13); without dead-stripping of
# globals there are no such groups.  clang 14 neither knows the option nor
# needs it.
LIB_ASAN_NOGDS = $(shell clang -fsanitize=address \
	-fno-sanitize-address-globals-dead-stripping -x c -c /dev/null \
	-o /dev/null 2>/dev/null && echo -fno-sanitize-address-globals-dead-stripping)
LIB_ASAN_CFLAGS = -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer $(LIB_ASAN_NOGDS)
LIB_ASAN_MAKE = MAKEFLAGS= $(MAKE) -j2 --no-print-directory -s BUILD=$(LIB_ASAN_BUILD) \
	CC=clang CXX=clang++ EXTRA_CFLAGS='$(LIB_ASAN_CFLAGS)' \
	EXTRA_LDFLAGS='-fsanitize=address,undefined'
LIB_ASAN_ENV := ASAN_OPTIONS=abort_on_error=0:detect_leaks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

CHECK_SUITES += lib-asan
.PHONY: check-lib-asan
check-lib-asan:
	@sh tests/lib/sum-runs.sh \
	  "$(LIB_ASAN_MAKE) $(LIB_ASAN_BUILD)/test-lib-conformance \
	     $(LIB_ASAN_BUILD)/test-lib-invalid $(LIB_ASAN_BUILD)/test-lib-icu \
	     $(LIB_ASAN_BUILD)/test-lib-lanes \
	     $(LIB_ASAN_BUILD)/NormalizationTest.txt \
	     $(LIB_ASAN_BUILD)/obj/bench/lib/bench-lib.o \
	     $(LIB_ASAN_BUILD)/obj/bench/lib/corpus.o && \
	   echo 'clang -Werror ASan/UBSan build of libfold, its tests and bench: ok' && \
	   echo '1 passed, 0 failed'" \
	  "$(LIB_ASAN_ENV) $(LIB_ASAN_BUILD)/test-lib-conformance --quick \
	     --ucd $(UCD) --normtest $(LIB_ASAN_BUILD)/NormalizationTest.txt" \
	  "$(LIB_ASAN_ENV) $(LIB_ASAN_BUILD)/test-lib-invalid" \
	  "$(LIB_ASAN_ENV) $(LIB_ASAN_BUILD)/test-lib-icu --random 20000 \
	     --cp-stride 17" \
	  "$(LIB_ASAN_ENV) $(LIB_ASAN_BUILD)/test-lib-lanes --names 1500"
