# bench/check/bench.mk - target bench-check: foldfs-check names/s on a
# 1,000,000-entry tree vs find(1) (tree cached in $(BUILD)/bench-tree).
# Not part of make check.

.PHONY: bench-check
bench-check: $(FOLDFS_CHECK)
	@bench/check/bench-check.sh $(BUILD)
