/*
 * siphash.h - SipHash-1-3 (one compression round, three finalization
 * rounds, 64-bit output), written for the benchmark so the peers' "fold,
 * then hash the buffer" path pays for the same hash libfold computes
 * while streaming.
 */
#ifndef BENCH_LIB_SIPHASH_H
#define BENCH_LIB_SIPHASH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

uint64_t bench_siphash13(uint64_t k0, uint64_t k1, const void *p, size_t n);

#ifdef __cplusplus
}
#endif
#endif
