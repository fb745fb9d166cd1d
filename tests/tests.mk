# tests/tests.mk - test-suite registry (lead).  Each area owns a suite.mk;
# this file includes them and adds the project-wide suites: a clang -Werror
# build of everything, and an install check.

-include tests/lib/suite.mk
-include tests/tools/suite.mk
-include tests/check/suite.mk
-include tests/fs/suite.mk

# The whole tree must build warning-free with clang too (gcc is the default
# compiler of the main build).  A separate build dir keeps objects apart.
CHECK_SUITES += clang-build
.PHONY: check-clang-build
check-clang-build:
	@if $(MAKE) --no-print-directory -s BUILD=build-clang CC=clang CXX=clang++ all >$(BUILD)/clang-build.log 2>&1; \
	then echo "clang -Wall -Wextra -Werror build of all targets: ok"; echo "1 passed, 0 failed"; \
	else cat $(BUILD)/clang-build.log; echo "0 passed, 1 failed"; exit 1; fi

# make install into a scratch prefix, then build and run a program against
# the installed header, library and pkg-config file.
CHECK_SUITES += install
.PHONY: check-install
check-install:
	@tests/install-check.sh $(BUILD)

# Line coverage of the library, daemon and tools under the suites
# (tests/coverage.sh; not part of make check).
.PHONY: coverage
coverage:
	@tests/coverage.sh build-cov
