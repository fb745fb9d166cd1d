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
check-tables:
	@if [ ! -f $(UCD)/UnicodeData.txt ]; then \
		echo "tables: skipped: unicode-data not installed ($(UCD)/UnicodeData.txt missing)"; \
		echo "0 passed, 0 failed"; \
	else \
		$(MAKE) --no-print-directory -s $(MKTABLES) && \
		if ! $(MKTABLES) $(UCD) $(BUILD)/fold_tables.gen.c; then \
			echo "tables: FAIL: mktables failed on $(UCD)"; \
			echo "0 passed, 1 failed"; exit 1; \
		elif cmp -s $(BUILD)/fold_tables.gen.c lib/fold_tables.c; then \
			echo "tables: ok: lib/fold_tables.c matches $(UCD)"; \
			echo "1 passed, 0 failed"; \
		else \
			echo "tables: FAIL: lib/fold_tables.c differs from what mktables generates;"; \
			echo "  see: diff -u lib/fold_tables.c $(BUILD)/fold_tables.gen.c; fix with: make tables"; \
			echo "0 passed, 1 failed"; exit 1; \
		fi; \
	fi
