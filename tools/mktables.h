/*
 * mktables.h - shared state of the table generator (mktables*.c): the
 * parsed Unicode Character Database and the derived closures.
 */
#ifndef MKTABLES_H
#define MKTABLES_H

#include <stddef.h>
#include <stdint.h>

#define MAX_CP 0x10FFFFu
#define NCP (MAX_CP + 1)
#define SEQ_MAX 40
#define MAX_VERSIONS 40
#define MAX_CORR 16
#define MAX_EXC 256
/* Size of Linux fs/unicode's utf8data table (12.1): our tables, all versions
 * and forms, must stay below it. */
#define KERNEL_UTF8DATA_BYTES 64256


/* Mapping kinds K_D (canonical decomposition), K_KD (compatibility),
 * K_CF and K_CFK (the same plus full case folding, closed), and the
 * table layout, come from the library's own header. */
#include "fold_data.h"

struct seq {
	int n;
	uint32_t c[SEQ_MAX];
};

struct ucd {
	char version[32];	   /* from the file headers, e.g. "15.0.0" */
	int nversions;		   /* ages 1..nversions */
	uint8_t vmaj[MAX_VERSIONS], vmin[MAX_VERSIONS];
	uint8_t age[NCP];	   /* 0 = unassigned, else version index+1 */
	uint8_t ccc[NCP];
	uint8_t di[NCP];	   /* Default_Ignorable_Code_Point */
	uint8_t fce[NCP];	   /* Full_Composition_Exclusion */
	uint8_t cexcl[NCP];	   /* CompositionExclusions.txt */
	uint8_t dec_compat[NCP];   /* dec[] has a <tag> */
	struct seq *dec[NCP];	   /* single-step decomposition */
	struct seq *fold[NCP];	   /* full case folding (C + F) */
	struct seq *nkcf[NCP];	   /* NFKC_CF property, NULL = identity */
	struct seq *clo[K_STORED][NCP]; /* closures, NULL = identity */
	int maxexp;		   /* longest stored expansion */
	/* NormalizationCorrections: before corr_age, cp maps to orig. */
	int ncorr;
	uint32_t corr_cp[MAX_CORR], corr_orig[MAX_CORR];
	uint8_t corr_age[MAX_CORR];
	/* NFKC_CF values the run time cannot derive (stored as is). */
	int nexc;
	uint32_t exc_cp[MAX_EXC];
	struct seq *exc_map[MAX_EXC];
};

extern struct ucd U;

void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void *xcalloc(size_t n, size_t sz);
struct seq *seq_new(const uint32_t *c, int n);
int seq_eq(const struct seq *a, const struct seq *b);
int ignorable_at(uint32_t cp, int v);
void ref_closure(int kind, uint32_t cp, int v, int ign, struct seq *out);
void canon_order(struct seq *s, int v);

void check_all(void);		/* mktables_check.c */
void emit(const char *path);	/* mktables_emit.c */

#endif
