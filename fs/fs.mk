# fs/fs.mk - the foldfs FUSE daemon: $(BUILD)/foldfs
#
# Links libfold statically (the daemon is the only FUSE user; no runtime
# dependency beyond libc and libfuse3) and the shared record code.

FOLDFS_SRCS := $(wildcard fs/*.c)
FOLDFS_OBJS := $(FOLDFS_SRCS:fs/%.c=$(BUILD)/obj/fs/%.o)
FUSE3_CFLAGS := $(shell pkg-config --cflags fuse3 2>/dev/null || echo -I/usr/include/fuse3)
FUSE3_LIBS := $(shell pkg-config --libs fuse3 2>/dev/null || echo -lfuse3)

$(FOLDFS_OBJS): $(BUILD)/obj/fs/%.o: fs/%.c fs/foldfs.h lib/fold.h common/record.h | $(BUILD)/obj/fs/
	$(CC) $(CFLAGS_BASE) $(FUSE3_CFLAGS) -DFOLDFS_VERSION='"$(VERSION)"' -c -o $@ $<

# FOLDFS_IOC_RESPELL: the client header and the daemon side (respell.c).
$(addprefix $(BUILD)/obj/fs/,ioctl.o main.o respell.o): fs/foldfs_ioctl.h fs/respell.h

$(BUILD)/foldfs: $(FOLDFS_OBJS) $(RECORD_O) $(U8_O) $(LIBFOLD_A)
	$(CC) $(LDFLAGS_BASE) -o $@ $(FOLDFS_OBJS) $(RECORD_O) $(U8_O) $(LIBFOLD_A) $(FUSE3_LIBS) -lpthread

.PHONY: foldfs
foldfs: $(BUILD)/foldfs

ALL_TARGETS += $(BUILD)/foldfs
# bin, not sbin: users mount their own trees (fusermount3), and mount(8)
# finds fuse.foldfs helpers in bin too
INSTALL_BIN += $(BUILD)/foldfs
