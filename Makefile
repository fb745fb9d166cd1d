# foldfs - top-level Makefile (GNU Make).  See README.md.
#
# Each part of the tree owns a fragment that this file includes:
#   lib/lib.mk      libfold (static + shared), generated tables
#   tools/tools.mk  table generator, foldfs-norm, foldfs-check
#   fs/fs.mk        the foldfs FUSE daemon
#   tests/tests.mk  unit/integration suites (CHECK_SUITES)
#   bench/bench.mk  make bench / make bench-fs
#   fuzz/fuzz.mk    libFuzzer targets
# A fragment adds programs to ALL_TARGETS and test suites to CHECK_SUITES;
# suite NAME must provide the phony target check-NAME, which prints a final
# line "N passed, N failed" and exits non-zero on failure.

VERSION   := 0.1.0
SOVERSION := 1
# The shared object's file: its first number is the soname's (ABI) major.
SOFILE    := libfold.so.$(SOVERSION).0.0
PREFIX    ?= /usr/local
DESTDIR   ?=
BUILD     ?= build
UCD       ?= /usr/share/unicode

CC        ?= cc
CXX       ?= c++
OPT       ?= -O2 -g
WARN      := -Wall -Wextra -Werror
CFLAGS_BASE := -std=c11 $(OPT) $(WARN) -fPIC -Ilib -Icommon $(EXTRA_CFLAGS)
LDFLAGS_BASE := $(EXTRA_LDFLAGS)

ALL_TARGETS  :=
CHECK_SUITES :=
INSTALL_BIN  :=
INSTALL_SBIN :=
INSTALL_MAN  :=

.PHONY: all check bench bench-fs fuzz demo install uninstall clean deps tables
all: real-all

include lib/lib.mk
include tools/mktables.mk
-include tools/tools.mk
-include fs/fs.mk
-include tests/tests.mk
-include bench/bench.mk
-include fuzz/fuzz.mk
-include fuzz/fuzz-fs.mk

real-all: $(ALL_TARGETS)

$(BUILD)/%/:
	@mkdir -p $@

# Missing Debian packages are installed by the project's own script
# (as root), or named with the exact apt-get line (otherwise).
deps:
	@scripts/deps.sh all

check:
	@scripts/deps.sh check
	@$(MAKE) --no-print-directory all
	@tests/run-suites.sh $(CHECK_SUITES)

demo:
	@scripts/deps.sh demo
	@$(MAKE) --no-print-directory all
	@scripts/demo.sh $(BUILD)

# The dynamic linker's cache, updated only where it covers the library:
# as root, not into a DESTDIR, and for a lib directory the linker searches
# (a trusted one or one listed in ld.so.conf); a scratch PREFIX leaves the
# system's cache alone.
LDCONFIG_IF_SYSTEM = lib='$(PREFIX)/lib'; \
	if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && \
	   command -v ldconfig >/dev/null && \
	   { case "$$lib" in /lib|/usr/lib|/lib64|/usr/lib64) true ;; \
	     *) cat /etc/ld.so.conf /etc/ld.so.conf.d/*.conf 2>/dev/null | \
		grep -qxF "$$lib" ;; esac; }; then \
	  echo ldconfig; ldconfig; fi

install: all
	install -d $(DESTDIR)$(PREFIX)/bin \
	  $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/share/man/man1 \
	  $(DESTDIR)$(PREFIX)/share/man/man3 $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 644 lib/fold.h $(DESTDIR)$(PREFIX)/include/fold.h
	install -m 644 fs/foldfs_ioctl.h $(DESTDIR)$(PREFIX)/include/foldfs_ioctl.h
	install -m 644 $(BUILD)/libfold.a $(DESTDIR)$(PREFIX)/lib/libfold.a
	install -m 755 $(BUILD)/$(SOFILE) $(DESTDIR)$(PREFIX)/lib/
	ln -sf $(SOFILE) $(DESTDIR)$(PREFIX)/lib/libfold.so.$(SOVERSION)
	ln -sf libfold.so.$(SOVERSION) $(DESTDIR)$(PREFIX)/lib/libfold.so
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	  lib/libfold.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/libfold.pc
	$(if $(INSTALL_BIN),install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/)
	$(if $(INSTALL_MAN),scripts/install-man.sh $(DESTDIR)$(PREFIX)/share/man $(INSTALL_MAN))
	@$(LDCONFIG_IF_SYSTEM)

# Removes exactly what install installs (and sbin/foldfs, where earlier
# builds put it).
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/include/fold.h \
	  $(DESTDIR)$(PREFIX)/include/foldfs_ioctl.h \
	  $(DESTDIR)$(PREFIX)/lib/libfold.a \
	  $(DESTDIR)$(PREFIX)/lib/$(SOFILE) \
	  $(DESTDIR)$(PREFIX)/lib/libfold.so.$(SOVERSION) \
	  $(DESTDIR)$(PREFIX)/lib/libfold.so \
	  $(DESTDIR)$(PREFIX)/lib/pkgconfig/libfold.pc \
	  $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(notdir $(INSTALL_BIN))) \
	  $(DESTDIR)$(PREFIX)/sbin/foldfs
	$(if $(INSTALL_MAN),scripts/install-man.sh --uninstall $(DESTDIR)$(PREFIX)/share/man $(INSTALL_MAN))
	@$(LDCONFIG_IF_SYSTEM)

clean:
	rm -rf build build-*
