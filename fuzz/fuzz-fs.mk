# fuzz/fuzz-fs.mk - libFuzzer targets for name handling outside libfold:
# the daemon's per-directory fold index (fs/dirindex.c against a model,
# fuzz/fuzz-index.c), common/record.c (the encoding record parser every
# mount reads, the mount table reader that tells a foldfs view, the
# casefold attribute's helpers; fuzz/fuzz-record.c), the tools' UTF-8
# decoder against libfold's validator (common/u8.c, fuzz/fuzz-u8.c), the
# parser of foldfs-check's rename log (tools/foldfs-check-undo.c,
# fuzz/fuzz-undo.c), foldfs-check's per-directory analysis, --fix
# dry-run spellings and reports against a model (fuzz/fuzz-scan.c),
# foldfs-norm as a whole against libfold, its getopt messages included
# (tools/foldfs-norm.c, common/opterr.c, fuzz/fuzz-norm.c), the
# daemon's ledger of the spellings the kernel's dentry cache holds, its
# epoch bumps and invalidations (fs/coherence.c) against a model of that
# cache (fuzz/fuzz-coherence.c), and the daemon's -o option lists and
# their escaped messages (fs/main.c; fuzz/fuzz-opts.c).  Built like
# the libfold targets (fuzz/fuzz.mk): clang, ASan+UBSan, into
# $(FUZZ_BUILD) by a sub-make.  Five more work on real directories in
# /tmp: the daemon's namespace calls and respell against the lookup rule
# checked on SOURCE's listing and, for other
# callers, against the kernel's own permission checks (fs/ops_entry.c,
# fs/respell.c, fs/resolve.c, fs/dirindex.c, fs/creds.c, fs/xlock.c
# (idle: no record is opened); fuzz/fuzz-names.c), foldfs-check as a whole on a tree against a model
# of it (tools/foldfs-check.c, tools/foldfs-check-walk.c;
# fuzz/fuzz-check.c), foldfs-check --fix --yes then --undo
# (tools/foldfs-check-fix.c, tools/foldfs-check-undo.c; fuzz/fuzz-fix.c),
# and the watching of SOURCE that keeps the fold indexes in step with
# changes made there, inotify (its events tampered with: duplicated,
# reordered, stale, lost with IN_Q_OVERFLOW, ...) and polling, against
# the lookup rule on SOURCE's listing (fs/watch.c, with fs/dirindex.c and
# fs/resolve.c; fuzz/fuzz-watch.c).  And the daemon's directory listing,
# readdir and readdirplus with seekdir and buffers of every size, against
# getdents64 on SOURCE while it changes (fs/ops_dir.c; fuzz/fuzz-readdir.c).
# And its extended attribute calls, the daemon's own attributes hidden and
# protected, against twin objects the fuzzer changes with the plain calls
# (fs/ops_xattr.c, fs/creds.c; fuzz/fuzz-xattr.c).  And chattr and lsattr
# through the view, the casefold flag's changes all or nothing, against
# ext4's rules and twin objects (fs/ioctl.c, fs/creds.c, fs/inode.c,
# common/record.c; fuzz/fuzz-ioctl.c).
#
#   make fuzz            also runs these for FUZZ_SECONDS each
#   make check-fs-fuzz   suite: each for LIB_FUZZ_SECONDS (15); names,
#                        check, fix, watch, readdir, xattr and ioctl (file system
#                        work: a few thousand calls a second at most), norm, opts and
#                        coherence (their seeds reach their paths) for
#                        FS_FUZZ_SHORT_SECONDS (5); then watch, names,
#                        readdir, xattr and ioctl again on xfs and btrfs, 5 s
#                        each

FUZZ_FS_TARGETS := index coherence record u8 undo scan norm opts check names \
	fix watch
FUZZ_FS_BINS := $(FUZZ_FS_TARGETS:%=$(FUZZ_BUILD)/fuzz-%)

$(FZ_OBJ)/fuzz-index.o: fuzz/fuzz-index.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<

$(FZ_OBJ)/fuzz-daemon-stubs.o: fuzz/fuzz-daemon-stubs.c fs/foldfs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
# (the daemon's own credentials, checked after every call: fuzz-names,
# fuzz-xattr and fuzz-ioctl)
$(FZ_OBJ)/fuzz-creds.o: fuzz/fuzz-creds.c fuzz/fuzz-creds.h fs/foldfs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<

# Only meaningful with BUILD=$(FUZZ_BUILD) (the sub-make).
$(BUILD)/fuzz-index: $(FZ_OBJ)/fuzz-index.o $(FZ_OBJ)/fuzz-daemon-stubs.o \
		$(BUILD)/obj/fs/dirindex.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread
# foldfs_on_view() reads the fuzzer's mount table, on the file system
# type the fuzzer says (record.c has _FILE_OFFSET_BITS=64: glibc's
# fstatfs64 and fopen64).
$(FZ_OBJ)/record-wrap.o: $(RECORD_O)
	@mkdir -p $(@D)
	objcopy --redefine-sym fstatfs64=fuzz_fstatfs \
	  --redefine-sym fopen64=fuzz_fopen $< $@
$(BUILD)/fuzz-record: $(FZ_OBJ)/fuzz-record.o $(FZ_OBJ)/record-wrap.o \
		$(U8_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-u8.o: fuzz/fuzz-u8.c common/u8.h tools/foldfs-check.h \
		$(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-u8: $(FZ_OBJ)/fuzz-u8.o $(U8_O) \
		$(BUILD)/obj/tools/foldfs-check-report.o $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-undo.o: fuzz/fuzz-undo.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-undo: $(FZ_OBJ)/fuzz-undo.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-undo.o \
		  foldfs-check-report.o) $(U8_O) $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^
$(FZ_OBJ)/fuzz-scan.o: fuzz/fuzz-scan.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-scan: $(FZ_OBJ)/fuzz-scan.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-scan.o \
		  foldfs-check-fix.o foldfs-check-report.o) $(U8_O) $(RECORD_O) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# foldfs-norm's own source, its main renamed
$(FZ_OBJ)/fuzz-norm.o: fuzz/fuzz-norm.c tools/foldfs-norm.c common/u8.h \
		$(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(TOOLS_CFLAGS) -Itools -c -o $@ $<
$(BUILD)/fuzz-norm: $(FZ_OBJ)/fuzz-norm.o $(U8_O) $(OPTERR_O) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# foldfs-check's own source, its main renamed, and the rest of it
$(FZ_OBJ)/fuzz-check.o: fuzz/fuzz-check.c tools/foldfs-check.c \
		tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(TOOLS_CFLAGS) -Itools -c -o $@ $<
# (setting the casefold attribute fails where the fuzzer says)
$(FZ_OBJ)/record-xfail.o: $(RECORD_O)
	@mkdir -p $(@D)
	objcopy --redefine-sym fsetxattr=fuzz_fsetxattr $< $@
$(BUILD)/fuzz-check: $(FZ_OBJ)/fuzz-check.o $(FZ_OBJ)/record-xfail.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-walk.o \
		  foldfs-check-scan.o foldfs-check-fix.o foldfs-check-undo.o \
		  foldfs-check-report.o) $(U8_O) $(OPTERR_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

$(FZ_OBJ)/fuzz-names.o: fuzz/fuzz-names.c fs/foldfs.h fs/respell.h \
		fs/foldfs_ioctl.h fuzz/fuzz-creds.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
# The index's clock is the fuzzer's (the sweep of removed directories
# acts at most once a second).
$(FZ_OBJ)/dirindex-clock.o: $(BUILD)/obj/fs/dirindex.o
	@mkdir -p $(@D)
	objcopy --redefine-sym clock_gettime=fuzz_clock_gettime $< $@
$(BUILD)/fuzz-names: $(FZ_OBJ)/fuzz-names.o $(FZ_OBJ)/fuzz-daemon-stubs.o \
		$(FZ_OBJ)/dirindex-clock.o $(FZ_OBJ)/fuzz-creds.o \
		$(addprefix $(BUILD)/obj/fs/,ops_entry.o respell.o resolve.o fdstat.o \
		  creds.o xlock.o) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread

# The daemon's listing (fs/ops_dir.c) alone, its entries encoded by
# libfuse's own fuse_add_direntry(_plus) (its replies are the fuzzer's);
# its fsync and fdatasync the fuzzer's (no journal commit per call), and
# its malloc and getdents64, which fail where the input says.
FUZZ_FS_TARGETS += readdir
FUZZ_FS_BINS += $(FUZZ_BUILD)/fuzz-readdir
$(FZ_OBJ)/fuzz-readdir.o: fuzz/fuzz-readdir.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(FZ_OBJ)/ops_dir-sync.o: $(BUILD)/obj/fs/ops_dir.o
	@mkdir -p $(@D)
	objcopy --redefine-sym fsync=fuzz_fsync \
	  --redefine-sym fdatasync=fuzz_fdatasync \
	  --redefine-sym malloc=fuzz_malloc \
	  --redefine-sym getdents64=fuzz_getdents64 $< $@
$(BUILD)/fuzz-readdir: $(FZ_OBJ)/fuzz-readdir.o $(FZ_OBJ)/ops_dir-sync.o \
		$(FZ_OBJ)/fuzz-daemon-stubs.o $(BUILD)/obj/fs/fdstat.o
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ $(FUSE3_LIBS)
# readdir (steps: fuzz/fuzz-readdir.c): the root folding, every kind of
# spelling created in the three directories, readdirplus from a size too
# small for one entry up, a reply the kernel does not take, seekdir to
# offsets handed out and to cookies, names-only and failing nodes, a
# plain readdir of a few bytes, raw, past-the-end and negative offsets,
# fsyncdir, a failed opendir; long names over several of the daemon's
# 32 KiB buffers, resumed inside and across them; a change after a reply
# too small for one entry, then offset 0; getdents64 failing at the start
# and inside a reply, no memory, the descriptor limit
FUZZ_SEED_readdir := \005\000\000\001\000\000\000\000\000\000\000\002\007\000\004\003\000\000\010\004\000\000\000\005\000\000\014\006\000\000\000\010\000\000\000\011\000\000\000\014\000\000\000\015\000\000\000\020\000\000\000\021\000\000\004\022\000\000\000\027\000\000\000\030\000\000\001\001\000\000\001\000\000\000\001\002\007\000\005\003\000\000\011\004\000\000\001\005\000\000\015\006\000\000\001\010\000\000\001\011\000\000\001\014\000\000\001\015\000\000\001\020\000\000\001\021\000\000\005\022\000\000\001\027\000\000\001\030\000\000\002\001\000\000\002\000\000\000\002\002\007\000\006\003\000\000\012\004\000\000\002\005\000\000\016\006\000\000\002\010\000\000\002\011\000\000\002\014\000\000\002\015\000\000\002\020\000\000\002\021\000\000\006\022\000\000\002\027\000\000\002\030\000\002\000\003\004\016\002\003\004\241\000\003\074\206\000\003\004\243\000\003\004d\013\003\004\245\034\004\004\246\003\004\305\002\002\005\004\005\242\003\001\042\002\007\001\003\005\260\002\007\002\003\005\260\002\007\000\000\001\007\003\003\005\241\000\003\005\241\002\004\001\025\002\012\003\006\246\002\003\002\026\006\020\000\000\000\000\000\000\100\003\002d\007\003\002d\017\003\002d\025\010\006\010\001\005\002\002\073\002\003\001\000\002\003\003C\002\036\002\006\002\226\377\006\001\050\310\002\010\004\000\305\003\000\042\002\003\000\136\000\003\000d\000\003\000\354\053\003\000d\013\003\000\305\364\003\000\305\074\004\000\240\003\070\242\002\003\000\242\002\002\005\004\005\354\003\005\376\002\003\005\377\002\001\001\003\003\005\260\023\004\005\260\036\001\000\000\000\000\002\000\003\000\004\002\000\000\001\000\003\000\305\002\002\005\000\001\020\000\003\005\042\002\001\001\000\000\005\021\000\003\005\305\002\036\000\000\000\002\000\000\004\003\000\000\001\004\000\000\011\005\000\000\001\006\000\002\004\007\010\003\004\305\002\003\004\305\002\003\004\206\002\007\010\003\004\305\000\003\004\305\000\007\004\002\001\003\000\305\002\007\020\002\001\003\004\305\002\007\060\002\001\003\005\305\002\007\000\003\005\305\002

# The daemon's extended attribute calls (fs/ops_xattr.c) with creds.c
# under them, on real objects beside twins the fuzzer changes itself;
# libfuse's replies and the node table are the fuzzer's.
FUZZ_FS_TARGETS += xattr
FUZZ_FS_BINS += $(FUZZ_BUILD)/fuzz-xattr
# (fuzz-caller.c: the caller of the calls, shared with fuzz-ioctl)
$(FZ_OBJ)/fuzz-xattr.o $(FZ_OBJ)/fuzz-caller.o: $(FZ_OBJ)/%.o: fuzz/%.c \
		fuzz/fuzz-caller.h fuzz/fuzz-creds.h fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(BUILD)/fuzz-xattr: $(FZ_OBJ)/fuzz-xattr.o $(FZ_OBJ)/fuzz-caller.o \
		$(FZ_OBJ)/fuzz-creds.o $(FZ_OBJ)/fuzz-daemon-stubs.o \
		$(addprefix $(BUILD)/obj/fs/,ops_xattr.o creds.o)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread
# xattr (steps: fuzz/fuzz-xattr.c): a root daemon: a value set, got
# whole, measured and with a buffer one byte short; the list whole,
# measured and short; the daemon's own attribute set and removed through
# the view (refused), set in SOURCE (hidden from lists and gets); a
# trusted.* one hidden from another caller's list; that caller refused,
# then the owner of the file; XATTR_CREATE of one there, XATTR_REPLACE of
# one not there; user.* on a symlink; root again: a 3,000-byte value, a
# name in no namespace, security.*, the directory's list; then a user
# daemon serving user 1000
FUZZ_SEED_xattr := \001\000\000\000\001a\002hi\002\000\000\001a\001\002\000\000\001a\000\002\000\000\001a\002\003\000\001\003\000\000\003\000\002\000\000\002\001x\001v\006\000\002\001x\001v\003\000\001\002\000\002\001x\001\001\000\002\001x\000\000\001\001t\001v\004\001\001\003\000\001\000\000\000\001b\001v\005\006\244\000\000\000\001b\001v\000\004\000\001b\001w\000\010\000\001c\001w\001\000\000\001b\000\002\000\001a\001v\004\000\000\000\001\000\001z\377\000\000\005\001q\001v\000\000\004\001s\001v\003\001\001\036\002\004\001\001\000\000\000\001a\001v\003\000\000\001\000\000\001a

# chattr and lsattr through the view (fs/ioctl.c) with creds.c, inode.c's
# cached rule and record.c's casefold attribute under them, on real
# objects beside twins
# the fuzzer changes itself; ioctl.o's ioctl and record.o's xattr calls
# renamed, so that the fuzzer can make a step fail.
FUZZ_FS_TARGETS += ioctl
FUZZ_FS_BINS += $(FUZZ_BUILD)/fuzz-ioctl
$(FZ_OBJ)/fuzz-ioctl.o: fuzz/fuzz-ioctl.c fuzz/fuzz-caller.h \
		fuzz/fuzz-creds.h fs/foldfs.h common/record.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(FZ_OBJ)/ioctl-fault.o: $(BUILD)/obj/fs/ioctl.o
	@mkdir -p $(@D)
	objcopy --redefine-sym ioctl=fuzz_ioctl $< $@
$(FZ_OBJ)/record-xattr-fault.o: $(RECORD_O)
	@mkdir -p $(@D)
	objcopy --redefine-sym fsetxattr=fuzz_fsetxattr \
	  --redefine-sym setxattr=fuzz_setxattr \
	  --redefine-sym fremovexattr=fuzz_fremovexattr \
	  --redefine-sym removexattr=fuzz_removexattr $< $@
$(BUILD)/fuzz-ioctl: $(FZ_OBJ)/fuzz-ioctl.o $(FZ_OBJ)/fuzz-caller.o \
		$(FZ_OBJ)/fuzz-creds.o $(FZ_OBJ)/fuzz-daemon-stubs.o \
		$(FZ_OBJ)/ioctl-fault.o $(FZ_OBJ)/record-xattr-fault.o \
		$(addprefix $(BUILD)/obj/fs/,creds.o inode.o fdstat.o) $(U8_O) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread
# ioctl (steps: fuzz/fuzz-ioctl.c): a root daemon: lsattr; chattr +F on
# the empty directory; lsattr with a long; -F once it has an entry
# (ENOTEMPTY); -F +i with the flags' change failing, then with the
# attribute's failing, then for real; +F on the immutable directory
# (EPERM); -i; the attribute set in SOURCE, seen by lsattr, and -F from
# there; then user 1000's objects: +F as the owner, -F +i (EPERM), +a
# (SOURCE refuses), +d, another user with a pid, so the fuzzer's own
# capabilities; fsxattr get and set, the version, an unknown command, a
# 32-bit caller, short buffers, no handle; +F on the file (EOPNOTSUPP);
# -o casefold (-F refused), -o nofold (+F refused); a long timeout: +F,
# the attribute removed in SOURCE, +F again (SOURCE's truth, not the
# daemon's memory)
FUZZ_SEED_ioctl := \000\001\002\000\000\001\000\001\004\003\000\000\001\000\003\005\000\000\000\000\003\000\005\001\001\000\000\011\000\000\000\003\000\000\000\001\000\000\000\002\000\004\000\001\002\000\000\001\000\036\001\002\001\001\000\000\001\000\000\000\003\000\000\000\004\000\000\000\010\000\002\203\001\000\000\001\000\007\000\000\007\002\001\007\004\000\007\006\000\007\010\000\007\012\000\007\014\000\007\016\000\000\001\001\000\001\007\036\004\000\000\001\000\001\002\036\002\000\000\001\000\036\010\000\000\001\000\004\001\000\000\001\000\001\002

# coherence.c with a small ledger and invalidation queue (their bounds are
# reached); its clock, the epoch's write(), its messages and its worker's
# start and join the fuzzer's.
FUZZ_LEDGER := -DLEDGER_MAX=12 -DINVAL_MAX=4
$(FZ_OBJ)/fuzz-coherence.o: fuzz/fuzz-coherence.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs $(FUZZ_LEDGER) -c -o $@ $<
$(FZ_OBJ)/coherence-small.o: fs/coherence.c fs/foldfs.h lib/fold.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) $(FUZZ_LEDGER) -c -o $@.tmp $<
	objcopy --redefine-sym clock_gettime=fuzz_clock_gettime \
	  --redefine-sym write=fuzz_write --redefine-sym fprintf=fuzz_fprintf \
	  --redefine-sym pthread_create=fuzz_pthread_create \
	  --redefine-sym pthread_timedjoin_np=fuzz_pthread_timedjoin_np \
	  $@.tmp $@
	@rm -f $@.tmp
$(BUILD)/fuzz-coherence: $(FZ_OBJ)/fuzz-coherence.o \
		$(FZ_OBJ)/coherence-small.o $(FZ_OBJ)/fuzz-daemon-stubs.o \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread

# watch.c reading the fuzzer's queue of inotify events (its read() and
# ioctl(FIONREAD) of the inotify descriptor), on watches the fuzzer may
# refuse, on a file system the fuzzer may call NFS, its thread started and
# its poll() run by the fuzzer a round at a time; with the real dirindex.c
# (its reads of a directory, which end a change in progress, the
# fuzzer's) and resolve.c, and the stubs but for watch.c's own functions.
$(FZ_OBJ)/fuzz-watch.o: fuzz/fuzz-watch.c fs/foldfs.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(FZ_OBJ)/fuzz-daemon-stubs-w.o: fuzz/fuzz-daemon-stubs.c fs/foldfs.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -DFUZZ_REAL_WATCH -c -o $@ $<
$(FZ_OBJ)/watch-wrap.o: $(BUILD)/obj/fs/watch.o
	@mkdir -p $(@D)
	objcopy --redefine-sym read=fuzz_read --redefine-sym ioctl=fuzz_ioctl \
	  --redefine-sym poll=fuzz_poll \
	  --redefine-sym pthread_create=fuzz_pthread_create \
	  --redefine-sym pthread_join=fuzz_pthread_join \
	  --redefine-sym inotify_init1=fuzz_inotify_init1 \
	  --redefine-sym inotify_add_watch=fuzz_inotify_add_watch \
	  --redefine-sym fstatfs64=fuzz_fstatfs $< $@
$(FZ_OBJ)/dirindex-fence.o: $(BUILD)/obj/fs/dirindex.o
	@mkdir -p $(@D)
	objcopy --redefine-sym getdents64=fuzz_getdents64 $< $@
$(BUILD)/fuzz-watch: $(FZ_OBJ)/fuzz-watch.o $(FZ_OBJ)/watch-wrap.o \
		$(FZ_OBJ)/fuzz-daemon-stubs-w.o $(FZ_OBJ)/dirindex-fence.o \
		$(BUILD)/obj/fs/resolve.o $(BUILD)/obj/fs/fdstat.o $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ -lpthread

# fs/main.c itself, its main and exit renamed: an option it refuses
# (die()) returns to the fuzzer.  With the rest of the daemon, which the
# options never reach.
$(FZ_OBJ)/fuzz-opts.o: fuzz/fuzz-opts.c fs/foldfs.h common/u8.h fuzz/fuzz-text.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -Ifs -c -o $@ $<
$(FZ_OBJ)/main-opts.o: $(BUILD)/obj/fs/main.o
	@mkdir -p $(@D)
	objcopy --redefine-sym main=foldfs_main --redefine-sym exit=fuzz_exit \
	  $< $@
$(BUILD)/fuzz-opts: $(FZ_OBJ)/fuzz-opts.o $(FZ_OBJ)/main-opts.o \
		$(filter-out %/main.o,$(FOLDFS_OBJS)) $(RECORD_O) $(U8_O) \
		$(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^ $(FUSE3_LIBS) \
		-lpthread

$(FZ_OBJ)/fuzz-fix.o: fuzz/fuzz-fix.c tools/foldfs-check.h $(FZ_HDRS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<
$(BUILD)/fuzz-fix: $(FZ_OBJ)/fuzz-fix.o \
		$(addprefix $(BUILD)/obj/tools/,foldfs-check-scan.o \
		  foldfs-check-fix.o foldfs-check-undo.o foldfs-check-report.o) \
		$(U8_O) $(RECORD_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -fsanitize=fuzzer -o $@ $^

# A valid input of each text format (printf format), so that runs start
# past the header.
# record: then the same with a mount table (a view of another device, one
# of ours with optional fields and a source of escaped bytes, another
# type) and the casefold attribute set, got and cleared by root and by an
# owner who may not write the directory (which is set-group-ID with a
# group the owner is not in, at the end); a record whose free text holds
# what --info must escape (a backslash, C1, bidi, DEL, ill-formed bytes)
FUZZ_SEED_record := format=1\nencoding=utf8-12.1.0\nflags=strict\ncreated=2026-01-01T00:00:00Z\ncreator=foldfs 0.1.0\n\036format=1\nencoding=utf8\n\000M\153\001\004/src\020\012/my src\\1\t\040\003abc\002\003\012\004\020\002\060\002\027\002\003\007\026\125\027\003\014\007\066\325\027\013\036format=1\nencoding=utf8-12.1.0\ncreated=\342\200\2172026\\x41\ncreator=a\\b\302\205\342\200\256\177\377z\n
FUZZ_SEED_undo := \# foldfs-check rename log, format 2\nrename 2f746d70 52 72 12\nrename 2f 41 61 7\nfailed 2f 41 61 7\nrename 2f 42 62\n
# index: classes of eight spellings, a rebuild that leaves free slots and
# a table that outgrows them; long names whose deletion leaves the pool
# more than half dead, around names that must survive its compaction
# (printf's %0200d writes 200 zeros)
FUZZ_SEED_index := \004gReport.txt\000wREPORT.TXT 2\000hreport.txt 2\000b\000gAbc\000wABC 7\000sReport.txt\000wreport.TXT 0\036\004aX\000gAbc%0200d\000aY\000b\000sAbc%0200d\000wx\000wy
# scan: a --fix dry run (JSON) over collisions, and a what-if (text) from
# NFKD + C+F to C+F without ignorables at the newest version (index 24 of
# 25), where "\357\254\201le" (U+FB01) leaves a class of three and
# "a\342\200\213b" (U+200B) joins one; ill-formed names, in a text
# report and under a strict encoding in JSON; names readdir listed twice
# (one name each, never a collision), in a dry run and in a what-if
FUZZ_SEED_scan := \005\012\005Report.txt/report.TXT/R\303\251sum\303\251/Re\314\201sume\314\201/Stra\303\237e/STRASSE/a.tar.gz/A.TAR.GZ\036\130\230\002\357\254\201le/file/FILE/a\342\200\213b/ab/AB\036\030\000\000bad\377/BAD\377/x\300\200y\036\070\000\001bad\377/ok\036\005\012\005Report.txt/report.TXT/Report.txt/x/x/x\036\130\230\002ab/AB/ab/\357\254\201le/file/\357\254\201le

# names: both directories fold; create, other spellings, an entry made in
# SOURCE, renames (one a respelling, one into the other directory, one
# that must keep its spelling), respell, the record's spellings, an
# unlink in SOURCE, respell's bad names, one equivalent to the record
# made in SOURCE and looked up by the record's name, and a respelling
# onto the record's; then a strict record, polling, ill-formed names and
# spellings of the record; then ASCII with a root that does not fold, and
# a .foldfs that is no record (not at the root); directories, links,
# symlinks and whiteouts, one of them onto a folding spelling; respells
# by other callers (a user daemon, a root one, a sticky directory, its
# owner respelling root's entry there, a caller in more than 64 groups,
# the 70th of which denies what "other" allows); the sweep of a removed
# directory's index, also in a later round; a mkdir whose folding mark
# fails, and one under -o casefold; a plain O_CREAT of a directory's
# other spelling in a sticky folding directory (EISDIR); renames onto an
# entry of another spelling, in the directory and into the other one (it
# is replaced, then takes the new spelling)
FUZZ_SEED_names := \030\003mReadme.txt\000lREADME.TXT\000cReadMe.TXT\000eREADME.txt\000oreadme.txt\000lREADME.TXT\000rREADME.TXT/ReadMe.Txt\000pREADME.txt/README.TXT\000m.FOLDFS\000l.foldfs\000u.Foldfs\000xreadme.txt/Other\000NOTHER/other\000kREADME.TXT\000lreadme.TXT\000wA/B\000p../..\000p./.\000p/x\000pA/\000o.FOLDFS\000l.foldfs\000p.FOLDFS/.Foldfs\036\070\017m.FOLDFS\000o.Foldfs\000l.FOLDFS\000MA\377\000LA\377\000Oa\377\000La\377\000PA\377/a\377\000Ta/A\000ea\000EA\000XA/.foldfs\000XA/.FOLDFS\000nA/B\000kA\000la\036\271\000m.FOLDFS\000m.foldfs\000l.Foldfs\000ra/.foldfs\000ra/.FOLDFS\000pa/A\000M.foldfs\000L.foldfs\036\030\003dDir\000lDIR\000mfile\000hFILE/Hard\000jfile/Linked\000sSym/some/target\000lSYM\000cSYM\000cDIR\000uDIR\000vFILE\000fFull\000vfull\000rfile/DIR\000rdir/FILE\000rdir/Full\000yfile/Moved\000lFILE\000mFILE2\000zmoved/x\000vdir\036\030\003mFoo\000i\001\001\001\355\000\000\000qfoo/FOO\000i\001\002\001\377\002\025\000qFOO/foo\000mBar\000QBAR/bar\000i\002\001\010\333\001\125\000qfoo/FOo\000i\002\001\011\333\002\125\000qfoo/FOO\036\030\003mA\000MB\000lx\000Lx\000g\002\000g\005\000MC\000LX\000g\004\000LX\000g\015\000MC\000LX\000g\035\036\030\043dDir\000lDIR\000DDir\036\030\103dDir\000DX\036\046\003mFoo\000i\001\056\056\213\213\213\000qFOO/foo\036\030\003mFoo\000i\001\001\012\307\001\010\000qfoo/FOO\000i\001\001\012\307\001\110\000qFOO/fOO\036\030\003mFoo\000i\001\001\001\377\003\001\000qfoo/FOO\000i\001\001\001\377\003\101\000qFOO/foo\036\030\003dDir\000i\003\003\020\377\003\200\000cDIR\036\030\003mfoo\000mBar\000rfoo/BAR\000lbar\000mbaz\000MQux\000xbaz/QUX\000Lqux
# norm: names on standard input (one ill-formed, one empty, the last
# without a newline); --escape -0 with controls, a bidi override, a
# backslash and NEL; --hash with a --seed from a FILE; --check --strict;
# --cmp -v; --profile ext4 --escape on "-"; usage errors (--profile with
# --encoding, --compat with nfc); --strict stopping; ascii; -v --cmp
# under nfkc_cf and compat; whole command lines (getopt's complaints,
# common/opterr.c): an unknown long option with a terminal escape and a
# bidi override, an ambiguous one, one given a value it does not take,
# short options unknown in and at the end of a cluster, a missing value
# of a long and of a short option; --cmp -v as a whole command line (its
# key buffer once leaked there)
FUZZ_SEED_norm := \006\000\000Stra\303\237e\nREADME\nbad\377name\n\nlast\036\141\000\000e\314\201\000tab\there\000new\nline\000bidi\342\200\256x\000back\\slash\000\302\205nel\000ls\342\200\250\036\016\000\005\001\002\003\004\005\006\007\010\011\012\013\014\015\016\017\020Readme\nREADME\n\377\036\226\000\001ok\nbad\300\200\nalso\377\036\036\200\003Stra\303\237e\000STRASSE\036\047\000\002A\342\200\215B\nK\n\036\007\001\000x\036\001\040\000x\036\206\000\000good\nbad\377\nnever\036\006\002\000\303\200B\nab\036\275\053\013\357\254\201\000fi\036\000\000\040--x\033[2J\342\200\256\036\000\000\040--c\036\000\000\040--hash=\033\036\000\000\040--hash\000-x0\036\000\000\040-0\033\036\000\000\040-v\000--seed\036\000\000\040--cmp\000-f\036\000\000\040--cmp\000-v\000a\000B
# check: folding by the attribute, groups in the root and below (one of
# directories), NFC and NFD spellings; a record in the root with
# --fix's dry run; a strict record in the parent with -x and --max-fds
# 8; --casefold-dir, and one that fails at the third directory; PATH
# with a trailing '/'; --info of a tree without its own record; the
# record's --set-encoding; a usage error; the chain of directories with
# --max-fds 2; a second PATH that does not exist; ill-formed names, also
# under a strict record; --info of the root's record
FUZZ_SEED_check := \030\004\000\000Readme/\000README\000readme/x\000sub/A\000sub/a\000d\303\251j\303\240/\000de\314\201ja\314\200/y\036\030\205\003\000A\000a\000B/b\000B/B\036\070\346\200\000A\000a\036\070\011\002\000x/y/z\000X\036\030\000\002\003a/b/c\000d/e\036\030\024\000\000X/y\000x/Y\036\030\004\001\001Same/\000SAME/x\036\030\004\006\006Same/\000SAME/x\036\030\004\007\012Same/\000SAME/x\036\030\054\100\000a/b/c\000A/b/c\036\030\350\043\000F/x\000f/X\000G/y\036\030\004\000\000bad\377\000BAD\377/x\036\070\005\000\000bad\377\000d\300\200/x\036\030\005\001\000x
# fix: collisions in a directory (a log from an earlier run there); JSON
# reports, names stretched to 252 bytes and a log name with a newline; two
# runs, the second renaming what the first did
FUZZ_SEED_fix := \030\002Report.txt/report.TXT/REPORT.txt/Stra\303\237e/STRASSE/strasse/a.tar.gz/A.TAR.GZ/R\303\251sum\303\251/Re\314\201sume\314\201\036\030\175Report.txt/report.TXT/REPORT.txt/x.tar.gz/X.tar.gz\036\030\202Report.txt/report.TXT/b/B

# coherence (opcodes and name bytes: fuzz/fuzz-coherence.c): cache=epoch
# with the kernel late by 1 s: a note of every spelling in the first
# directory, more than the ledger holds; a negative answer then the
# name's creation by another spelling; renames (one replacing an entry
# by another spelling, one RENAME_EXCHANGE), unlinks, changes in SOURCE
# (one the watcher cannot name), a forget, a bump, time passing, the
# worker, a negative answer that a change the watcher cannot name
# undoes, notes kept for cleanup after a bump and dropped once their
# nodes are forgotten; cache=auto with the epoch (and a moved-in file whose
# invalidation lands) and then without: files moved in from a plain
# directory, renamed on and changed by another spelling, a directory
# looked up and removed by other spellings; cache=none with a directory
# renamed out to the plain directory and back; cache=epoch refused by the
# kernel; cache=epoch where negatives may not stay and the kernel is late
# by timeout + 1 s: a SOURCE change that hands a spelling to another
# entry (NFD and NFC); cache=auto without the epoch, negatives not kept:
# misses fill the invalidation queue (4 here), then a file moved in and
# removed by another spelling (its invalidations must not be dropped);
# the same with a moved-in file's name changed in SOURCE, then renamed on
# through the mount before the worker ran (its note must stay until its
# invalidation lands, or the new spelling stays trusted); the same with
# the moved-in file's note pushed out of a full ledger (12 here) by
# lookups before the rename on, its new spelling then removed by another
# (coh_timed() must still say yes)
FUZZ_SEED_coherence := \001\001\003\000\000\001\003\002\000\003\000\004\003\005\000\006\000\007\000\010\004\013\000\014\000\015\003\016\000\017\000\021\003\020\006\020\007\000\005\004\007\004\011\031\012\031\011\026\000\027\013\026\025\014\025\027\015\000\016\010\000\006\000\016\002\007\007\000\001\010\000\000\057\011\051\014\051\056\000\057\010\000\003\040\016\000\041\014\040\057\015\000\015\000\015\000\015\000\015\000\015\000\000\056\036\200\000\003\040\000\040\006\040\001\000\000\000\005\000\004\013\000\014\005\015\003\056\006\056\037\000\006\037\031\000\012\031\010\000\003\046\006\046\007\000\010\000\005\006\036\204\000\003\040\000\040\006\040\001\000\000\000\005\000\004\013\000\014\005\015\003\056\006\056\037\000\006\037\031\000\012\031\010\000\036\222\005\003\000\000\001\005\001\004\013\000\014\006\013\055\000\006\055\014\000\000\015\010\000\036\005\000\000\000\003\001\000\000\005\000\010\000\036A\006\000\006\003\007\000\005\000\010\005\006\007\006\000\007\010\000\011\003\000\004\011\002\012\003\000\002\010\000\036\304\000\000\002\000\005\000\013\000\016\003\040\000\040\006\040\020\000\000\003\000\006\000\014\000\017\005\021\010\000\036\204\000\003\040\000\040\005\000\004\001\000\000\000\000\251\000\000\000\000\000\000\031\013\000\014\006\040\000\040\073\005\000\004\001\000\000\000\000\251\000\000\000\000\000\000\031\013\000\014\006\000\023\012\056\312\000\005\000\004\001\000\000\000\000\251\000\000\000\000\000\000\031\013\000\014\006\040\000\040\005\000\004\001\000\000\000\000\000\312\000\012\056\014\023\006\000\000\023\012\056\312\000\000\023\012\056\312\000\036\304\000\003\056\006\056\037\000\003\000\003\002\003\005\003\013\003\016\000\001\000\003\000\004\000\006\000\007\000\010\000\014\000\015\000\017\006\037\021\000\005\020\010\000

# opts: every option the daemon knows, with values, and the options only
# fstab and libfuse use (an escaped comma), then some again; encodings
# with a terminal escape and a bidi override, or in conflict; values out
# of range or not numbers; a C1 control, an escaped DEL; remount; an
# empty fsname=; a name with a control; an octal escape (allow_other)
FUZZ_SEED_opts := casefold,encoding=utf8-12.1.0,strict,compat,ignorables,cache=epoch,timeout=0.5,index_mem=16,max_watches=100,watch=poll,lockcache=keep,max_read=131072,noatime,ro,rw,allow_other,default_permissions,fsname=/src,subtype=foldfs,defaults,x-systemd.automount,comment=a\\,b\000nofold,debug,cache=none,watch=inotify,lockcache=drop,atime\036encoding=\033[2J\342\200\256x\036encoding=utf8\000encoding=ascii\036cache=fast\036timeout=nan\036timeout=1e7\036index_mem=0\036max_watches=-5\036max_read=-1\036lockcache=\302\205\036watch=\\177\036remount\036fsname=\036bad\001name=x\036allow\\137other,encoding=utf8-99.0

# watch (opcodes and name bytes: fuzz/fuzz-watch.c): cache=epoch, both
# directories watched: names made, renamed within, between and out of the
# directories and back, our own changes, events duplicated, reversed,
# made up (stale, an unknown wd, a nameless one), IN_IGNORED of a live
# watch, floods of one long name and of distinct ones (more than a read
# and more than 64 pending names), a lost-event overflow alone in its
# read (and so with no named event: it once made UBSan report watch.c),
# exchanges, links, an index dropped; both polled, with an external
# change slipping into our own; a refused watch (a polled) with b plain,
# strict and ignorables, IN_DELETE_SELF of both watches; watch=auto on "NFS"; a polled
# directory and a watched one, renames between them, a flood in front of
# a change and an overflow; one name made in both directories in one
# read, and a flood in front of a change looked up by a miss that needs
# no fence; changes during lookups (a rename after an unlink and a create
# of its name, looked up by a third spelling: the miss needs a fence; a
# rename into the other directory, a create, an unlink); a polled
# directory changed in SOURCE, then by us (the stamps before our change
# are not the index's: it is rescanned)
FUZZ_SEED_watch := \100\000\001\000\041\001\000\010\000\001\001\010\001\007\000\011\003\000\041\000\000 \001\031\000\030\000\032\004\014\000\016\003\014L\000\000\015\003L\015\000\000\014\006\000\017\000\000\020\006\002\017\060\000\061\007\000\003\007\001\061\007\022\005\007\043\007\007\003\200\007\015\000\000\046\011\010\007G\037\007W\077\001\36\010\000\36\001\003\001\033\007\004\000\000\004\000\035\001\042\007\017\037\001\034\001\045\000\035\000\044\011\007\007\037\001\026\007\027_\002\026\001\067\000\026\000\066\003\067\066\001\003 \041\002\005\042\023\000\024\002 \013\000\000\041\014\000\010\011\036\043\000\001\000\041\001\000\000\001\006\000\010\000\000\006\006\001\010\000\000\007\006\002\000\041\000 \006\002\015\016\001\014\000\016\011\003\014\031\000\000\030\011\036\034\012\000\001\000\041\001\022\000\000\001 \000\041\003 \000\000\000\001\001\012\000\013\000\012\002\022\000\001\011\007\006\000\007\016\000\000\000\010\011\036\200\000\001\000\041\001\000\000\001\001\042\000\043\003\042\044\000\000\042\006\000\007\000\000\010\011\036\001\000\001\000\041\001\006\001\047\003\006\051\000\000\050\007\037\000\001\070\000\071\001\042\007\004\002\000\044\003\042E\000\000\043\011\036\000\000\001\000\041\001\000\001 \000\041\000\001\011\007\017\037\001\026\000\027\007O\077\001\070\000\071\036\000\000\001\001\007\000\010\000\017\002\007\001\007\017\002\007\010\006\000\011\000\041\017\002\010\047\046\017\000\000\000\001\017\001\000\000\001\011\036\001\000\001\001\007\006\000\017\000\000\010\011

# $(1) target, $(2) seconds: one shell command
FUZZ_FS_RUN = sh fuzz/run-fuzz.sh $(1) $(FUZZ_BUILD)/fuzz-$(1) $(FUZZ_CORPUS)/$(1) $(2) '$(FUZZ_SEED_$(1))'

FS_FUZZ_SHORT_SECONDS ?= 5
FUZZ_CHECK_SECONDS = $(if $(filter norm check names fix coherence opts readdir watch xattr ioctl,$(1)),$(FS_FUZZ_SHORT_SECONDS),$(LIB_FUZZ_SECONDS))

# The targets that model changes made directly in SOURCE, run again with
# $TMPDIR on fresh xfs and btrfs file systems (tests/fs/onfs.sh; skipped,
# saying why, where they cannot be made): $(1) the file system, $(2) the
# target, $(3) seconds.  Seeded from the target's own corpus as well.
FUZZ_ON_FS := xfs btrfs
FUZZ_ON_FS_TARGETS := watch names readdir xattr ioctl
FUZZ_FS_RUN_ON = sh tests/fs/onfs.sh $(1) sh fuzz/run-fuzz.sh $(2)-$(1) $(FUZZ_BUILD)/fuzz-$(2) $(FUZZ_CORPUS)/$(2)-$(1) $(3) '$(FUZZ_SEED_$(2))' $(FUZZ_CORPUS)/$(2)

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
	  $(foreach t,$(FUZZ_FS_TARGETS),"$(call FUZZ_FS_RUN,$(t),$(call FUZZ_CHECK_SECONDS,$(t)))") \
	  $(foreach f,$(FUZZ_ON_FS),$(foreach t,$(FUZZ_ON_FS_TARGETS),"$(call FUZZ_FS_RUN_ON,$(f),$(t),$(FS_FUZZ_SHORT_SECONDS))"))
