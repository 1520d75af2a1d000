/* SPDX-License-Identifier: MIT */
/* What each fuzz target provides: libFuzzer's entry point and its name. */
#ifndef PAGESTAT_FUZZ_H
#define PAGESTAT_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* One input; 0, or the process aborts when an oracle fails. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* "size", "columns" or "escape": where fuzz/replay.c finds the inputs
 * (fuzz/corpus/NAME and fuzz/regress/NAME). */
extern const char fuzz_target_name[];

/* On the oracle's own helpers: libFuzzer's coverage feedback is wanted
 * from the code under test, and tracing every comparison of a decoder
 * would halve the executions per second. */
#if defined(__clang__) && __clang_major__ >= 13
#define FUZZ_ORACLE __attribute__((no_sanitize("coverage")))
#else
#define FUZZ_ORACLE
#endif

/* An oracle failure aborts, so that libFuzzer keeps the input as a crash
 * and `make check` (fuzz/replay.c) fails on it. */
#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond)) {                                                 \
			fprintf(stderr, "%s:%d: oracle failed: %s\n", __FILE__, \
				__LINE__, #cond);                              \
			abort();                                               \
		}                                                              \
	} while (0)

#endif
