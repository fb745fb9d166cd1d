/*
 * alloccount.h - counts every heap allocation made in the benchmark
 * process (glibc only): malloc and friends are interposed in the
 * executable and forwarded to glibc's __libc_* entry points.  The
 * benchmark reads the counter around libfold's compare and hash loops,
 * where it must not move.
 */
#ifndef BENCH_LIB_ALLOCCOUNT_H
#define BENCH_LIB_ALLOCCOUNT_H

#ifdef __cplusplus
extern "C" {
#endif

/* Allocations (malloc, calloc, realloc, memalign family) so far. */
unsigned long alloc_count(void);

#ifdef __cplusplus
}
#endif
#endif
