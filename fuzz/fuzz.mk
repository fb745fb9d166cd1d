# fuzz/fuzz.mk - libFuzzer targets for libfold (clang only).
#
#   make fuzz              run each target for FUZZ_SECONDS (default 300),
#                          and fuzz-kernel where the kernel's source is
#   make fuzz-build        just build them (into build-fuzz/)
#   make check-lib-fuzz    suite: each target for LIB_FUZZ_SECONDS (15)
#
# Targets: normalize (fold_normalize/fold_key vs ICU), compare (fold_cmp,
# fold_equal, fold_hash vs fold_key order; fold_cmpz, fold_equalz), hash
# (fold_validate vs an independent validator, fold_hash vs the key; the
# other NUL-terminated calls; fold_key and fold_normalize writing in
# place into a large buffer), and kernel (the ext4
# profile vs the Linux kernel's own fs/unicode, where tests/lib/
# kernel-src.sh can fetch it; seeded from normalize's corpus).  The targets
# and a libfold
# built with -fsanitize=fuzzer-no-link,address,undefined live in
# FUZZ_BUILD, a separate build dir made by a sub-make.  Corpora live in
# FUZZ_CORPUS/NAME, seeded at build time by $(BUILD)/fuzz-mkseeds (nothing
# binary is committed); crashes are written there as crash-NAME-*.

FUZZ_SECONDS     ?= 300
LIB_FUZZ_SECONDS ?= 15
FUZZ_CORPUS      ?= build/fuzz-corpus
FUZZ_BUILD       := build-fuzz
FUZZ_TARGETS     := normalize compare hash
FUZZ_SEEDS       := 300
FUZZ_CFLAGS      := -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_MAKE = MAKEFLAGS= $(MAKE) -j2 --no-print-directory -s BUILD=$(FUZZ_BUILD) CC=clang \
	CXX=clang++ EXTRA_CFLAGS='$(FUZZ_CFLAGS)' \
	EXTRA_LDFLAGS='-fsanitize=address,undefined' KERNEL_UNI=$(KERNEL_UNI)
FUZZ_RUN_FLAGS := -max_len=512 -timeout=20 -rss_limit_mb=2048 \
	-print_final_stats=1

FZ_OBJ := $(BUILD)/obj/fuzz
FZ_TL  := $(BUILD)/obj/tests/lib
FZ_HDRS := fuzz/fuzz-ctx.h fuzz/fuzz-enc.h fuzz/fuzz-holds.h fuzz/fuzz-text.h lib/fold.h lib/fold_stream.h \
	tests/lib/icu-oracle.h

$(FZ_OBJ)/%.o: fuzz/%.c $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itests/lib -c -o $@ $<

$(FZ_OBJ)/%.o: fuzz/%.cpp $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CXX) -std=c++17 $(OPT) $(WARN) -Ilib -Itests/lib \
		$(shell pkg-config --cflags icu-uc icu-i18n) $(EXTRA_CFLAGS) \
		-c -o $@ $<

# Only meaningful with BUILD=$(FUZZ_BUILD) (the sub-make below).
$(BUILD)/fuzz-normalize: $(FZ_OBJ)/fuzz-normalize.o $(FZ_TL)/icu-oracle.o \
		$(LIBFOLD_A)
	$(CXX) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ \
		$(shell pkg-config --libs icu-uc icu-i18n)
$(BUILD)/fuzz-compare: $(FZ_OBJ)/fuzz-compare.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(BUILD)/fuzz-hash: $(FZ_OBJ)/fuzz-hash.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# fuzz-kernel: libfold's ext4 profile against the kernel's own fs/unicode,
# which tests/lib/kernel-src.sh fetches into $(KERNEL_UNI) (shared with
# suite lib-kernel; tests/lib/suite.mk builds the kernel's objects without
# sanitizers or coverage: not our code).  Seeded from the normalize corpus.
$(FZ_OBJ)/fuzz-kernel.o: fuzz/fuzz-kernel.c $(FZ_HDRS) tests/lib/kernel-oracle.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itests/lib $(KERNEL_CFLAGS) -c -o $@ $<
$(BUILD)/fuzz-kernel: $(FZ_OBJ)/fuzz-kernel.o $(TL_KOBJ)/kernel-oracle.o \
		$(TL_KOBJ)/utf8-norm.o $(TL_KOBJ)/utf8data.o $(FZ_TL)/check.o \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
# $(1): seconds; one shell command.  Skipped, saying so, where the
# kernel's source cannot be had.
FUZZ_KERNEL_RUN = if sh tests/lib/kernel-src.sh $(KERNEL_UNI) >/dev/null; then \
	  $(FUZZ_MAKE) $(FUZZ_BUILD)/fuzz-kernel && \
	  sh fuzz/run-fuzz.sh kernel $(FUZZ_BUILD)/fuzz-kernel \
	    $(FUZZ_CORPUS)/kernel $(1) '' $(FUZZ_CORPUS)/normalize; \
	else echo 'fuzz-kernel: skipped: no kernel source (see suite lib-kernel)'; \
	  echo '0 passed, 0 failed'; fi

# The seed writer is an ordinary program of the main build.
$(BUILD)/fuzz-mkseeds: $(FZ_OBJ)/mkseeds.o $(FZ_TL)/randname.o \
		$(FZ_TL)/check.o
	$(CC) $(LDFLAGS_BASE) -o $@ $^

$(FUZZ_CORPUS)/%/.seeded: $(BUILD)/fuzz-mkseeds
	@mkdir -p $(@D)
	$(BUILD)/fuzz-mkseeds $(@D) $* $(FUZZ_SEEDS)
	@touch $@

FUZZ_SEEDED := $(FUZZ_TARGETS:%=$(FUZZ_CORPUS)/%/.seeded)
FUZZ_BINS   := $(FUZZ_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

.PHONY: fuzz fuzz-build check-lib-fuzz
fuzz-build:
	@$(FUZZ_MAKE) $(FUZZ_BINS)

fuzz: $(FUZZ_SEEDED) fuzz-build
	@for t in $(FUZZ_TARGETS); do \
	  echo "=== fuzz-$$t for $(FUZZ_SECONDS) s (corpus $(FUZZ_CORPUS)/$$t)"; \
	  $(FUZZ_BUILD)/fuzz-$$t $(FUZZ_RUN_FLAGS) \
	    -max_total_time=$(FUZZ_SECONDS) \
	    -artifact_prefix=$(FUZZ_CORPUS)/crash-$$t- \
	    $(FUZZ_CORPUS)/$$t || exit 1; \
	done
	@$(call FUZZ_KERNEL_RUN,$(FUZZ_SECONDS))

CHECK_SUITES += lib-fuzz
check-lib-fuzz: $(FUZZ_SEEDED)
	@sh tests/lib/sum-runs.sh \
	  "$(FUZZ_MAKE) $(FUZZ_BINS) && echo 'fuzz targets built' && \
	   echo '1 passed, 0 failed'" \
	  $(foreach t,$(FUZZ_TARGETS),"log=$(FUZZ_CORPUS)/fuzz-$(t).log; \
	    $(FUZZ_BUILD)/fuzz-$(t) $(FUZZ_RUN_FLAGS) \
	      -max_total_time=$(LIB_FUZZ_SECONDS) \
	      -artifact_prefix=$(FUZZ_CORPUS)/crash-$(t)- \
	      $(FUZZ_CORPUS)/$(t) >\$$log 2>&1; rc=\$$?; \
	    grep -v -e '^#[0-9]' -e '^\"' \$$log | tail -n 30; \
	    if [ \$$rc -eq 0 ]; then \
	      echo 'fuzz-$(t): $(LIB_FUZZ_SECONDS) s, no failure'; \
	      echo '1 passed, 0 failed'; \
	    else echo \"fuzz-$(t): FAILED (exit \$$rc), log \$$log\"; \
	      echo '0 passed, 1 failed'; exit 1; fi") \
	  "$(call FUZZ_KERNEL_RUN,$(LIB_FUZZ_SECONDS))"
