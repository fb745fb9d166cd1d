# tests/tools/suite.mk - suite "tools-norm": every option of foldfs-norm.

CHECK_SUITES += tools-norm
.PHONY: check-tools-norm
check-tools-norm: $(FOLDFS_NORM)
	@python3 tests/tools/norm-test.py --build $(BUILD)
