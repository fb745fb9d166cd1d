# lib/lib.mk - libfold, static and shared.
#
# LIBFOLD_A / LIBFOLD_SO name the outputs; link with e.g.
#   $(CC) ... $(LIBFOLD_A)
# lib/fold_tables.c is generated (tools/mktables.mk) and committed, so a
# build needs no Unicode data files.

LIBFOLD_SRCS := lib/fold_ctx.c lib/fold_utf8.c lib/fold_stream.c lib/fold_key.c \
		lib/fold_cmp.c lib/fold_hash.c lib/fold_tables.c
LIBFOLD_HDRS := lib/fold.h lib/fold_data.h lib/fold_internal.h \
		lib/fold_stream.h
LIBFOLD_OBJS := $(LIBFOLD_SRCS:lib/%.c=$(BUILD)/obj/lib/%.o)

LIBFOLD_A  := $(BUILD)/libfold.a
LIBFOLD_SO := $(BUILD)/$(SOFILE)

# Internal symbols are hidden by a pragma in fold_data.h, so the shared
# object exports the fold.h API only.
LIBFOLD_CFLAGS :=

$(LIBFOLD_OBJS): $(BUILD)/obj/lib/%.o: lib/%.c $(LIBFOLD_HDRS) | $(BUILD)/obj/lib/
	$(CC) $(CFLAGS_BASE) $(LIBFOLD_CFLAGS) -c -o $@ $<

$(LIBFOLD_A): $(LIBFOLD_OBJS)
	rm -f $@
	$(AR) rcs $@ $(LIBFOLD_OBJS)

$(LIBFOLD_SO): $(LIBFOLD_OBJS)
	$(CC) -shared -Wl,-soname,libfold.so.$(SOVERSION) $(LDFLAGS_BASE) \
		-o $@ $(LIBFOLD_OBJS)
	ln -sf $(SOFILE) $(BUILD)/libfold.so.$(SOVERSION)
	ln -sf libfold.so.$(SOVERSION) $(BUILD)/libfold.so

ALL_TARGETS += $(LIBFOLD_A) $(LIBFOLD_SO)
