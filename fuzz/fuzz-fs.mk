# fuzz/fuzz-fs.mk - libFuzzer targets for name handling outside libfold:
# the daemon's per-directory fold index (fs/dirindex.c against a model,
# fuzz/fuzz-index.c), the encoding record parser every mount reads
# (common/record.c, fuzz/fuzz-record.c), the tools' UTF-8 decoder
# against libfold's validator (tools/u8.c, fuzz/fuzz-u8.c) and the
# parser of foldfs-check's rename log (tools/foldfs-check-undo.c,
# fuzz/fuzz-undo.c), and foldfs-check's per-directory analysis, --fix
# dry-run spellings and reports against a model (fuzz/fuzz-scan.c).  Built like the libfold
# targets (fuzz/fuzz.mk): clang, ASan+UBSan, into $(FUZZ_BUILD) by a
# sub-make.
#
#   make fuzz            also runs these for FUZZ_SECONDS each
#   make check-fs-fuzz   suite: each for LIB_FUZZ_SECONDS (15)

FUZZ_FS_TARGETS := index record u8 undo scan
FUZZ_FS_BINS := $(FUZZ_FS_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

$(FZ_OBJ)/fuzz-index.o: fuzz/fuzz-index.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<

# Only meaningful with BUILD=$(FUZZ_BUILD) (the sub-make).
$(BUILD)/fuzz-index: $(FZ_OBJ)/fuzz-index.o $(BUILD)/obj/fs/dirindex.o \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread
$(BUILD)/fuzz-record: $(FZ_OBJ)/fuzz-record.o $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-u8.o: fuzz/fuzz-u8.c tools/u8.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-u8: $(FZ_OBJ)/fuzz-u8.o $(BUILD)/obj/tools/u8.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-undo.o: fuzz/fuzz-undo.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-undo: $(FZ_OBJ)/fuzz-undo.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-undo.o \
		  foldfs-check-report.o u8.o) $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-scan.o: fuzz/fuzz-scan.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-scan: $(FZ_OBJ)/fuzz-scan.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-scan.o \
		  foldfs-check-fix.o foldfs-check-report.o u8.o) $(RECORD_O) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# A valid input of each text format (printf format), so that runs start
# past the header.
FUZZ_SEED_record := format=1\nencoding=utf8-12.1.0\nflags=strict\ncreated=2026-01-01T00:00:00Z\ncreator=foldfs 0.1.0\n
FUZZ_SEED_undo := \# foldfs-check rename log, format 2\nrename 2f746d70 52 72 12\nrename 2f 41 61 7\nfailed 2f 41 61 7\nrename 2f 42 62\n
# scan: a --fix dry run (JSON) over collisions, and a what-if (text) from
# NFKD + C+F to C+F without ignorables at the newest version (index 24 of
# 25), where "\357\254\201le" (U+FB01) leaves a class of three and
# "a\342\200\213b" (U+200B) joins one
FUZZ_SEED_scan := \005\012\005Report.txt/report.TXT/R\303\251sum\303\251/Re\314\201sume\314\201/Stra\303\237e/STRASSE/a.tar.gz/A.TAR.GZ\036\130\230\002\357\254\201le/file/FILE/a\342\200\213b/ab/AB

# $(1) target, $(2) seconds: one shell command
FUZZ_FS_RUN = sh fuzz/run-fuzz.sh $(1) $(FUZZ_BUILD)/fuzz-$(1) $(FUZZ_CORPUS)/$(1) $(2) '$(FUZZ_SEED_$(1))'

.PHONY: check-fs-fuzz fuzz-fs-run
fuzz: fuzz-fs-run
fuzz-fs-run:
	@$(FUZZ_MAKE) $(FUZZ_FS_BINS)
	@$(foreach t,$(FUZZ_FS_TARGETS),$(call FUZZ_FS_RUN,$(t),$(FUZZ_SECONDS)) &&) true

CHECK_SUITES += fs-fuzz
check-fs-fuzz:
	@sh tests/lib/sum-runs.sh \
	  "$(FUZZ_MAKE) $(FUZZ_FS_BINS) && echo 'fuzz targets built' && \
	   echo '1 passed, 0 failed'" \
	  $(foreach t,$(FUZZ_FS_TARGETS),"$(call FUZZ_FS_RUN,$(t),$(LIB_FUZZ_SECONDS))")
