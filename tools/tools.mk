# tools/tools.mk - common/record.o (shared with the daemon), foldfs-norm,
# foldfs-check, their man pages, and the man-page install list.
#
# RECORD_O is linked by the daemon too, so it is defined first and depends
# only on libfold's header, not on the library being built.

RECORD_O := $(BUILD)/obj/common/record.o
# the UTF-8 decoder and the terminal-safety rule every printer of names
# shares (record.c's escaping among them): link it wherever RECORD_O is
U8_O := $(BUILD)/obj/common/u8.o
# getopt's error messages, escaped (the tools only)
OPTERR_O := $(BUILD)/obj/common/opterr.o

TOOLS_CFLAGS := -DFOLDFS_VERSION='"$(VERSION)"'

$(RECORD_O): common/record.c common/record.h common/u8.h lib/fold.h | $(BUILD)/obj/common/
	$(CC) $(CFLAGS_BASE) $(TOOLS_CFLAGS) -c -o $@ $<
$(U8_O): common/u8.c common/u8.h | $(BUILD)/obj/common/
	$(CC) $(CFLAGS_BASE) -c -o $@ $<
$(OPTERR_O): common/opterr.c common/opterr.h common/u8.h | $(BUILD)/obj/common/
	$(CC) $(CFLAGS_BASE) -c -o $@ $<

# ---- foldfs-norm ----
FOLDFS_NORM := $(BUILD)/foldfs-norm
FOLDFS_NORM_OBJS := $(BUILD)/obj/tools/foldfs-norm.o $(U8_O) $(OPTERR_O)

# ---- foldfs-check ----
FOLDFS_CHECK := $(BUILD)/foldfs-check
FOLDFS_CHECK_SRCS := tools/foldfs-check.c tools/foldfs-check-walk.c \
	tools/foldfs-check-scan.c tools/foldfs-check-fix.c \
	tools/foldfs-check-undo.c tools/foldfs-check-report.c
FOLDFS_CHECK_OBJS := $(FOLDFS_CHECK_SRCS:tools/%.c=$(BUILD)/obj/tools/%.o)

$(BUILD)/obj/tools/foldfs-norm.o $(FOLDFS_CHECK_OBJS): $(BUILD)/obj/tools/%.o: tools/%.c \
		tools/foldfs-check.h common/u8.h common/record.h common/opterr.h \
		lib/fold.h | $(BUILD)/obj/tools/
	$(CC) $(CFLAGS_BASE) $(TOOLS_CFLAGS) -c -o $@ $<

$(FOLDFS_NORM): $(FOLDFS_NORM_OBJS) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $(FOLDFS_NORM_OBJS) $(LIBFOLD_A)

$(FOLDFS_CHECK): $(FOLDFS_CHECK_OBJS) $(RECORD_O) $(U8_O) $(OPTERR_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $(FOLDFS_CHECK_OBJS) $(RECORD_O) $(U8_O) \
	  $(OPTERR_O) $(LIBFOLD_A)

.PHONY: tools
tools: $(FOLDFS_NORM) $(FOLDFS_CHECK)

ALL_TARGETS += $(FOLDFS_NORM) $(FOLDFS_CHECK)
INSTALL_BIN += $(FOLDFS_NORM) $(FOLDFS_CHECK)
INSTALL_MAN += man/foldfs.8 man/foldfs-check.1 man/foldfs-norm.1 man/libfold.3
