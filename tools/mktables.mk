# tools/mktables.mk - the table generator and the check that the committed
# lib/fold_tables.c is exactly what it produces from $(UCD).
#
#   make tables         regenerate lib/fold_tables.c from $(UCD)
#   make check-tables   regenerate into $(BUILD) and compare (suite "tables")

MKTABLES := $(BUILD)/mktables
MKTABLES_SRCS := tools/mktables.c tools/mktables_check.c tools/mktables_emit.c
MKTABLES_OBJS := $(MKTABLES_SRCS:tools/%.c=$(BUILD)/obj/tools/%.o)

$(MKTABLES_OBJS): $(BUILD)/obj/tools/%.o: tools/%.c tools/mktables.h \
		  lib/fold_data.h | $(BUILD)/obj/tools/
	$(CC) $(CFLAGS_BASE) -Itools -c -o $@ $<

$(MKTABLES): $(MKTABLES_OBJS)
	$(CC) $(LDFLAGS_BASE) -o $@ $(MKTABLES_OBJS)

tables: $(MKTABLES)
	$(MKTABLES) $(UCD) lib/fold_tables.c

CHECK_SUITES += tables
.PHONY: check-tables
check-tables: $(MKTABLES)
	@sh tools/check-tables.sh $(MKTABLES) $(UCD) $(BUILD)
