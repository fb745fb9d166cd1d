# tests/check/suite.mk - suite "check": common/record.c unit tests and
# foldfs-check on generated trees (collisions and winners, JSON, exit
# codes, --fix/--undo, interrupted --fix, upgrade reports, --casefold-dir,
# --set-encoding).  Scratch trees live under $(BUILD)/check-tmp.

RECORD_TEST := $(BUILD)/record-test

$(RECORD_TEST): tests/check/record-test.c $(RECORD_O) $(U8_O) $(LIBFOLD_A)
	$(CC) $(CFLAGS_BASE) $(LDFLAGS_BASE) -o $@ $< $(RECORD_O) $(U8_O) $(LIBFOLD_A)

CHECK_SUITES += check
.PHONY: check-check
check-check: $(FOLDFS_CHECK) $(RECORD_TEST)
	@python3 tests/check/check-test.py --build $(BUILD) --ucd $(UCD)
