/* SPDX-License-Identifier: MIT */
/* Allocation that cannot fail: running out of memory ends the run. */
#ifndef PAGESTAT_XALLOC_H
#define PAGESTAT_XALLOC_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/status.h"

static inline void *xrealloc(void *ptr, size_t size)
{
	ptr = realloc(ptr, size ? size : 1);
	if (!ptr) {
		fputs("pagestat: out of memory\n", stderr);
		exit(STATUS_FATAL);
	}
	return ptr;
}

static inline void *xcalloc(size_t count, size_t size)
{
	void *ptr = calloc(count ? count : 1, size ? size : 1);
	if (!ptr) {
		fputs("pagestat: out of memory\n", stderr);
		exit(STATUS_FATAL);
	}
	return ptr;
}

/* count elements of size bytes, the product checked (reallocarray). */
static inline void *xreallocarray(void *ptr, size_t count, size_t size)
{
	size_t bytes;
	if (__builtin_mul_overflow(count, size, &bytes)) {
		fputs("pagestat: out of memory\n", stderr);
		exit(STATUS_FATAL);
	}
	return xrealloc(ptr, bytes);
}

/* The one way an array grows: room for at least need elements of size
 * bytes in array, whose room is *cap elements, doubled (from 16) as
 * often as it takes, every size checked.  Use XGROW. */
static inline void *xgrow(void *array, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return array;
	size_t n = *cap ? *cap : 16;
	while (n < need) {
		if (n > SIZE_MAX / 2) {
			fputs("pagestat: out of memory\n", stderr);
			exit(STATUS_FATAL);
		}
		n *= 2;
	}
	array = xreallocarray(array, n, size);
	*cap = n;
	return array;
}

#define XGROW(array, cap, need) ((array) = xgrow((array), &(cap), (need), sizeof *(array)))

static inline char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

/* size bytes at an address that is a multiple of align (a power of two). */
static inline void *xaligned(size_t align, size_t size)
{
	void *ptr = NULL;
	if (posix_memalign(&ptr, align, size ? size : 1) != 0) {
		fputs("pagestat: out of memory\n", stderr);
		exit(STATUS_FATAL);
	}
	return ptr;
}

#endif
