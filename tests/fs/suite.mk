# tests/fs/suite.mk - foldfs integration suites: they mount the real daemon
# ($(BUILD)/foldfs) with FUSE and check it through system calls and tools.
# Included by tests/tests.mk.  Each suite runs under tests/fs/run.sh, which
# gives it a scratch dir /tmp/fstest-XXXXXX, a watchdog, and a cleanup that
# unmounts and kills whatever is left even when the test crashes or hangs.
#
#   check-fs-basic      folding semantics (generic/556 in spirit)
#   check-fs-coherence  kernel cache coherence under concurrency, per cache=
#   check-fs-source     changes in SOURCE / by a second mount reach the view
#   check-fs-posix      POSIX sanity in folding and plain dirs, allow_other
#   check-fs-stress     stress-ng's file system stressors in both kinds of
#                       directory: no failure, nothing left, no descriptor kept
#   check-fs-netbench   dbench's trace of Windows clients with every name in
#                       random case: fails in a plain directory, must pass in
#                       folding ones (per directory; -o casefold,cache=epoch)
#   check-fs-otherfs    the four suites, fs-stress, fs-netbench and "check"
#                       on xfs, btrfs, overlay
#   check-fs-asan       the four suites, fs-stress and fs-netbench again,
#                       against an ASan+UBSan daemon
#   check-fs-tsan       and against a ThreadSanitizer daemon

# The programs find their helper scripts (sqlite-count.py) in FSTEST_SRCDIR,
# from whatever working directory they run in.
FSTEST_PROGS := fs-basic fs-coherence fs-source fs-posix
FSTEST_BIN   := $(BUILD)/tests/fs
FSTEST_OBJ   := $(BUILD)/obj/tests/fs
FSTEST_EXES  := $(addprefix $(FSTEST_BIN)/,$(FSTEST_PROGS))
FSTEST_RUN   := tests/fs/run.sh
FSTEST_DAEMON := $(BUILD)/foldfs
ASAN_BUILD   ?= build-asan
TSAN_BUILD   ?= build-tsan

$(addprefix $(FSTEST_OBJ)/,$(addsuffix .o,$(FSTEST_PROGS) harness)): \
  $(FSTEST_OBJ)/%.o: tests/fs/%.c tests/fs/harness.h fs/foldfs_ioctl.h | $(FSTEST_OBJ)/
	$(CC) $(CFLAGS_BASE) -DFSTEST_SRCDIR='"$(abspath tests/fs)"' -c -o $@ $<

$(FSTEST_EXES): $(FSTEST_BIN)/%: $(FSTEST_OBJ)/%.o $(FSTEST_OBJ)/harness.o | $(FSTEST_BIN)/
	$(CC) -o $@ $^ $(LDFLAGS_BASE)

.PHONY: fstest-progs check-fs-basic check-fs-coherence check-fs-source \
	check-fs-posix check-fs-stress check-fs-netbench check-fs-otherfs \
	check-fs-asan check-fs-tsan
fstest-progs: $(FSTEST_EXES)

CHECK_SUITES += fs-basic fs-coherence fs-source fs-posix fs-stress \
  fs-netbench fs-otherfs fs-asan fs-tsan

# (fs-basic also runs fs-source and fs-posix, to check their --only)
check-fs-basic: $(addprefix $(FSTEST_BIN)/,fs-basic fs-source fs-posix) $(FSTEST_DAEMON) \
  $(FOLDFS_CHECK)
	@$(FSTEST_RUN) 280 $(FSTEST_BIN)/fs-basic --foldfs $(FSTEST_DAEMON)

check-fs-coherence: $(FSTEST_BIN)/fs-coherence $(FSTEST_DAEMON)
	@$(FSTEST_RUN) 420 $(FSTEST_BIN)/fs-coherence --foldfs $(FSTEST_DAEMON)

check-fs-source: $(FSTEST_BIN)/fs-source $(FSTEST_DAEMON)
	@$(FSTEST_RUN) 240 $(FSTEST_BIN)/fs-source --foldfs $(FSTEST_DAEMON)

check-fs-posix: $(FSTEST_BIN)/fs-posix $(FSTEST_DAEMON)
	@$(FSTEST_RUN) 240 $(FSTEST_BIN)/fs-posix --foldfs $(FSTEST_DAEMON)

# A third party's idea of what a file system must survive (tests/fs/stress.sh)
check-fs-stress: $(FSTEST_DAEMON)
	@$(FSTEST_RUN) 240 sh tests/fs/stress.sh --foldfs $(FSTEST_DAEMON)

# What a file server's clients do, in the case they please (SMB clients
# send any case: tests/fs/netbench.sh)
check-fs-netbench: $(FSTEST_DAEMON)
	@$(FSTEST_RUN) 240 sh tests/fs/netbench.sh --foldfs $(FSTEST_DAEMON)

# The file systems foldfs is for (no casefolding in their kernels) as
# SOURCE, on loop images (tests/fs/otherfs.sh; xfsprogs, btrfs-progs),
# and an overlay as in a container; fs-stress, fs-netbench and
# foldfs-check's suite too.
check-fs-otherfs: $(FSTEST_EXES) $(FSTEST_DAEMON) $(FOLDFS_CHECK) $(RECORD_TEST)
	@FOLDFS_CHECK=$(abspath $(FOLDFS_CHECK)) sh tests/fs/otherfs.sh $(BUILD) \
	  $(UCD) xfs btrfs overlay

# The daemon (and what it links) rebuilt with clang and a sanitizer in its
# own build directory; the test programs are the ordinary ones.  A report
# makes the daemon exit non-zero at unmount, which the suites count.
#   $(1) build dir, $(2) the sanitizer's flags, $(3) its name, $(4) the
#   environment for the runs
# (fs-coherence without its ledger part: 66000 lookups, a minute under
# ASan; fuzz-coherence reaches that bound under ASan+UBSan)
define FS_SAN_SUITE
	@$(MAKE) --no-print-directory -s BUILD=$(1) CC=clang \
	  EXTRA_CFLAGS='$(2) -fno-omit-frame-pointer' EXTRA_LDFLAGS='$(2)' \
	  $(1)/foldfs || { echo "FAIL building $(1)/foldfs with clang + $(3)"; \
	    echo "0 passed, 1 failed"; exit 1; }
	@$(4) FOLDFS_CHECK=$(abspath $(FOLDFS_CHECK)) sh tests/lib/sum-runs.sh \
	  "$(FSTEST_RUN) 400 $(FSTEST_BIN)/fs-basic --foldfs $(1)/foldfs" \
	  "$(FSTEST_RUN) 400 $(FSTEST_BIN)/fs-posix --foldfs $(1)/foldfs" \
	  "$(FSTEST_RUN) 400 $(FSTEST_BIN)/fs-source --foldfs $(1)/foldfs" \
	  "$(FSTEST_RUN) 600 $(FSTEST_BIN)/fs-coherence --foldfs $(1)/foldfs \
	    --parts workers,pair,cwd" \
	  "$(FSTEST_RUN) 300 sh tests/fs/stress.sh --foldfs $(1)/foldfs" \
	  "$(FSTEST_RUN) 300 sh tests/fs/netbench.sh --foldfs $(1)/foldfs"
endef

# ASan+UBSan: leaks, memory errors, undefined behaviour (fs-coherence:
# many threads of lookups and changes; fs-source: SOURCE's own changes, a
# lost-event overflow, indexes dropped under lookups).
FS_ASAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all
check-fs-asan: $(FSTEST_EXES) $(FOLDFS_CHECK)
	$(call FS_SAN_SUITE,$(ASAN_BUILD),$(FS_ASAN_FLAGS),ASan/UBSan,\
	  ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=23 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24)

# ThreadSanitizer: the daemon is many threads (libfuse's workers, lock
# waiters, the watch and invalidation threads) around shared indexes,
# ledger and nodes; a race makes it exit with status 66.  (It found one:
# the invalidation thread could write a notification after the unmount
# had closed the device; and fs-netbench a gap in the daemon's model of
# the kernel's ordering for it: libfuse reads a READ's data inside the
# reply, after its annotation, see op_read.)
check-fs-tsan: $(FSTEST_EXES) $(FOLDFS_CHECK)
	$(call FS_SAN_SUITE,$(TSAN_BUILD),-fsanitize=thread,TSan,\
	  TSAN_OPTIONS=halt_on_error=0:exitcode=66)
