/* Allocation that cannot fail: running out of memory ends the run. */
#ifndef PAGESTAT_XALLOC_H
#define PAGESTAT_XALLOC_H

#include <stdio.h>
#include <stdlib.h>

#include "status.h"

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
