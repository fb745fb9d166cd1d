# bench/bench.mk - benchmark registry (lead).
#   make bench     libfold vs ICU and utf8proc (and its ext4 profile vs the
#                  kernel's fs/unicode, fetched as suite lib-kernel does);
#                  foldfs-check vs find
#   make bench-fs  foldfs vs native and plain passthrough FUSE (bench/fs/bench.mk)
-include bench/lib/bench.mk
-include bench/check/bench.mk
-include bench/fs/bench.mk

bench:
	@scripts/deps.sh bench
	@$(MAKE) --no-print-directory all
	@sh tests/lib/kernel-src.sh $(KERNEL_UNI) || true
	@$(MAKE) --no-print-directory bench-lib
	@$(MAKE) --no-print-directory bench-check

