# fuzz/fuzz-fs.mk - libFuzzer target for the daemon's per-directory fold
# index (fs/dirindex.c against a model, fuzz/fuzz-index.c).  Built like
# the libfold targets (fuzz/fuzz.mk): clang, ASan+UBSan, into
# $(FUZZ_BUILD) by a sub-make.
#
#   make fuzz            also runs fuzz-index for FUZZ_SECONDS
#   make check-fs-fuzz   suite: fuzz-index for LIB_FUZZ_SECONDS (15)

FUZZ_INDEX := $(FUZZ_BUILD)/fuzz-index

$(FZ_OBJ)/fuzz-index.o: fuzz/fuzz-index.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<

# Only meaningful with BUILD=$(FUZZ_BUILD) (the sub-make).
$(BUILD)/fuzz-index: $(FZ_OBJ)/fuzz-index.o $(BUILD)/obj/fs/dirindex.o \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread

FUZZ_INDEX_RUN = log=$(FUZZ_CORPUS)/fuzz-index.log; mkdir -p $(FUZZ_CORPUS)/index; \
	$(FUZZ_INDEX) $(FUZZ_RUN_FLAGS) -max_total_time=$(1) \
	  -artifact_prefix=$(FUZZ_CORPUS)/crash-index- $(FUZZ_CORPUS)/index \
	  >$$log 2>&1; rc=$$?; \
	grep -v -e '^\#[0-9]' -e '^"' $$log | tail -n 30; \
	if [ $$rc -eq 0 ]; then echo "fuzz-index: $(1) s, no failure"; \
	  echo '1 passed, 0 failed'; \
	else echo "fuzz-index: FAILED (exit $$rc), log $$log"; \
	  echo '0 passed, 1 failed'; exit 1; fi

.PHONY: check-fs-fuzz fuzz-index-run
fuzz: fuzz-index-run
fuzz-index-run:
	@$(FUZZ_MAKE) $(FUZZ_INDEX)
	@$(call FUZZ_INDEX_RUN,$(FUZZ_SECONDS))

CHECK_SUITES += fs-fuzz
check-fs-fuzz:
	@$(FUZZ_MAKE) $(FUZZ_INDEX) && echo 'fuzz-index built' && \
	  echo '1 passed, 0 failed'
	@$(call FUZZ_INDEX_RUN,$(LIB_FUZZ_SECONDS))
