/*
 * alloccount.c - allocation counter for the benchmark (alloccount.h).
 * Defining malloc & co. in the executable makes the dynamic linker bind
 * every library's calls to these; they count and forward to glibc.
 */
#define _GNU_SOURCE
#include "alloccount.h"

#include <errno.h>
#include <stddef.h>

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void *__libc_memalign(size_t, size_t);
void *__libc_valloc(size_t);
void __libc_free(void *);

/* Not atomic: the benchmark is single-threaded. */
static unsigned long count;

unsigned long alloc_count(void)
{
	return count;
}

void *malloc(size_t n)
{
	count++;
	return __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
	count++;
	return __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
	count++;
	return __libc_realloc(p, n);
}

void free(void *p)
{
	__libc_free(p);
}

void *memalign(size_t al, size_t n)
{
	count++;
	return __libc_memalign(al, n);
}

void *aligned_alloc(size_t al, size_t n)
{
	count++;
	return __libc_memalign(al, n);
}

void *valloc(size_t n)
{
	count++;
	return __libc_valloc(n);
}

int posix_memalign(void **out, size_t al, size_t n)
{
	void *p;

	count++;
	if (al < sizeof(void *) || (al & (al - 1)))
		return EINVAL;
	p = __libc_memalign(al, n);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}
