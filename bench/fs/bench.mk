# bench/fs/bench.mk - make bench-fs: foldfs -o casefold vs -o nofold vs the
# SOURCE tree natively, side by side in one run (bench/fs/fsbench.c).
# Included by bench/bench.mk.  Needs root (mounts, drop_caches); bounded to
# about 10 minutes by the program's own time budget plus a timeout here.

FSBENCH     := $(BUILD)/bench/fs/fsbench
FSBENCH_OBJ := $(BUILD)/obj/bench/fs

# FSBENCH_SRCDIR: where sqlite-bench.py is, from whatever directory it runs
$(FSBENCH_OBJ)/fsbench.o: bench/fs/fsbench.c tests/fs/harness.h | $(FSBENCH_OBJ)/
	$(CC) $(CFLAGS_BASE) -DFSBENCH_SRCDIR='"$(abspath bench/fs)"' -c -o $@ $<

$(FSBENCH_OBJ)/harness.o: tests/fs/harness.c tests/fs/harness.h | $(FSBENCH_OBJ)/
	$(CC) $(CFLAGS_BASE) -c -o $@ $<

$(FSBENCH): $(FSBENCH_OBJ)/fsbench.o $(FSBENCH_OBJ)/harness.o | $(BUILD)/bench/fs/
	$(CC) -o $@ $^ $(LDFLAGS_BASE)

.PHONY: bench-fs
bench-fs: $(FSBENCH) $(BUILD)/foldfs
	@timeout -k 10 660 $(FSBENCH) --foldfs $(BUILD)/foldfs $(FSBENCH_ARGS)
