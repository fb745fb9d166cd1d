# fuzz/fuzz-fs.mk - libFuzzer targets for name handling outside libfold:
# the daemon's per-directory fold index (fs/dirindex.c against a model,
# fuzz/fuzz-index.c), the encoding record parser every mount reads
# (common/record.c, fuzz/fuzz-record.c), the tools' UTF-8 decoder
# against libfold's validator (tools/u8.c, fuzz/fuzz-u8.c) and the
# parser of foldfs-check's rename log (tools/foldfs-check-undo.c,
# fuzz/fuzz-undo.c), and foldfs-check's per-directory analysis, --fix
# dry-run spellings and reports against a model (fuzz/fuzz-scan.c).  Built like the libfold
# targets (fuzz/fuzz.mk): clang, ASan+UBSan, into $(FUZZ_BUILD) by a
# sub-make.  Two more work on real directories in /tmp: the daemon's
# namespace calls and respell against the lookup rule checked on SOURCE's
# listing (fs/ops_entry.c, fs/respell.c, fs/resolve.c, fs/dirindex.c;
# fuzz/fuzz-names.c), and foldfs-check --fix --yes then --undo
# (tools/foldfs-check-fix.c, tools/foldfs-check-undo.c; fuzz/fuzz-fix.c).
#
#   make fuzz            also runs these for FUZZ_SECONDS each
#   make check-fs-fuzz   suite: each for LIB_FUZZ_SECONDS (15), names and
#                        fix (a few hundred calls a second: file system
#                        work) for FS_FUZZ_SHORT_SECONDS (5)

FUZZ_FS_TARGETS := index record u8 undo scan names fix
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
$(FZ_OBJ)/fuzz-u8.o: fuzz/fuzz-u8.c tools/u8.h tools/foldfs-check.h \
		$(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-u8: $(FZ_OBJ)/fuzz-u8.o $(BUILD)/obj/tools/u8.o \
		$(BUILD)/obj/tools/foldfs-check-report.o $(RECORD_O) $(LIBFOLD_A)
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

$(FZ_OBJ)/fuzz-names.o: fuzz/fuzz-names.c fs/foldfs.h fs/respell.h \
		fs/foldfs_ioctl.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(BUILD)/fuzz-names: $(FZ_OBJ)/fuzz-names.o \
		$(addprefix $(BUILD)/obj/fs/,ops_entry.o respell.o resolve.o \
		  dirindex.o) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread

$(FZ_OBJ)/fuzz-fix.o: fuzz/fuzz-fix.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-fix: $(FZ_OBJ)/fuzz-fix.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-scan.o \
		  foldfs-check-fix.o foldfs-check-undo.o foldfs-check-report.o \
		  u8.o) $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# A valid input of each text format (printf format), so that runs start
# past the header.
FUZZ_SEED_record := format=1\nencoding=utf8-12.1.0\nflags=strict\ncreated=2026-01-01T00:00:00Z\ncreator=foldfs 0.1.0\n
FUZZ_SEED_undo := \# foldfs-check rename log, format 2\nrename 2f746d70 52 72 12\nrename 2f 41 61 7\nfailed 2f 41 61 7\nrename 2f 42 62\n
# index: classes of eight spellings, a rebuild that leaves free slots and
# a table that outgrows them; long names whose deletion leaves the pool
# more than half dead, around names that must survive its compaction
# (printf's %0200d writes 200 zeros)
FUZZ_SEED_index := \004gReport.txt\000wREPORT.TXT 2\000hreport.txt 2\000b\000gAbc\000wABC 7\000sReport.txt\000wreport.TXT 0\036\004aX\000gAbc%0200d\000aY\000b\000sAbc%0200d\000wx\000wy
# scan: a --fix dry run (JSON) over collisions, and a what-if (text) from
# NFKD + C+F to C+F without ignorables at the newest version (index 24 of
# 25), where "\357\254\201le" (U+FB01) leaves a class of three and
# "a\342\200\213b" (U+200B) joins one
FUZZ_SEED_scan := \005\012\005Report.txt/report.TXT/R\303\251sum\303\251/Re\314\201sume\314\201/Stra\303\237e/STRASSE/a.tar.gz/A.TAR.GZ\036\130\230\002\357\254\201le/file/FILE/a\342\200\213b/ab/AB

# names: both directories fold; create, other spellings, an entry made in
# SOURCE, renames (one a respelling, one into the other directory, one
# that must keep its spelling), respell, the record's spellings, an
# unlink in SOURCE, respell's bad names and a respelling onto the
# record's; then a strict record, polling, ill-formed names and
# spellings of the record; then ASCII with a root that does not fold, and
# a .foldfs that is no record (not at the root)
FUZZ_SEED_names := \030\003mReadme.txt\000lREADME.TXT\000cReadMe.TXT\000eREADME.txt\000oreadme.txt\000lREADME.TXT\000rREADME.TXT/ReadMe.Txt\000pREADME.txt/README.TXT\000m.FOLDFS\000l.foldfs\000u.Foldfs\000xreadme.txt/Other\000NOTHER/other\000kREADME.TXT\000lreadme.TXT\000wA/B\000p../..\000p./.\000p/x\000pA/\000o.FOLDFS\000p.FOLDFS/.Foldfs\036\070\017m.FOLDFS\000o.Foldfs\000l.FOLDFS\000MA\377\000LA\377\000Oa\377\000La\377\000PA\377/a\377\000Ta/A\000ea\000EA\000XA/.foldfs\000XA/.FOLDFS\000nA/B\000kA\000la\036\271\000m.FOLDFS\000m.foldfs\000l.Foldfs\000ra/.foldfs\000ra/.FOLDFS\000pa/A\000M.foldfs\000L.foldfs
# fix: collisions in a directory (a log from an earlier run there); JSON
# reports, names stretched to 252 bytes and a log name with a newline; two
# runs, the second renaming what the first did
FUZZ_SEED_fix := \030\002Report.txt/report.TXT/REPORT.txt/Stra\303\237e/STRASSE/strasse/a.tar.gz/A.TAR.GZ/R\303\251sum\303\251/Re\314\201sume\314\201\036\030\175Report.txt/report.TXT/REPORT.txt/x.tar.gz/X.tar.gz\036\030\202Report.txt/report.TXT/b/B

# $(1) target, $(2) seconds: one shell command
FUZZ_FS_RUN = sh fuzz/run-fuzz.sh $(1) $(FUZZ_BUILD)/fuzz-$(1) $(FUZZ_CORPUS)/$(1) $(2) '$(FUZZ_SEED_$(1))'

FS_FUZZ_SHORT_SECONDS ?= 5
FUZZ_CHECK_SECONDS = $(if $(filter names fix,$(1)),$(FS_FUZZ_SHORT_SECONDS),$(LIB_FUZZ_SECONDS))

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
	  $(foreach t,$(FUZZ_FS_TARGETS),"$(call FUZZ_FS_RUN,$(t),$(call FUZZ_CHECK_SECONDS,$(t)))")
