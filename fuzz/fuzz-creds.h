/*
 * fuzz-creds.h - the daemon's own credentials, for the fuzzers whose
 * calls act as their callers (fuzz-names.c, fuzz-xattr.c, fuzz-ioctl.c):
 * taken at start as fs/creds.c takes them, and checked after every call.
 */
#ifndef FUZZ_CREDS_H
#define FUZZ_CREDS_H

/* A root fuzzer without supplementary groups is given one first (so that
 * a call leaving a caller's none behind shows); then the fuzzer's own
 * groups are remembered and the daemon's credentials taken (creds_init).
 * Returns NULL, or what failed. */
const char *fz_creds_start(void);

/* NULL if the daemon's fsuid, fsgid and groups are its own (the
 * fuzzer's), else what is not. */
const char *fz_creds_wrong(void);

#endif
