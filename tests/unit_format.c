/* SPDX-License-Identifier: MIT */
/* Unit tests of format.c: human sizes, percentages, integers, size parsing. */
#include <config.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "lib/format.h"
#include "unit.h"

static void test_human(void)
{
	/* Each as GNU ls -lh and du -h --apparent-size (coreutils 9.1) print
	 * the size of a file truncated to it, with "B" where they print none. */
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0B" },
		{ 1, "1B" },
		{ 512, "512B" },
		{ 1023, "1023B" },
		{ 1024, "1.0K" },
		{ 1025, "1.1K" },                 /* rounded up, never down */
		{ 1536, "1.5K" },
		{ 2047, "2.0K" },
		{ 10137, "9.9K" },                /* 9.899K */
		{ 10138, "10K" },                 /* 9.9003K: 10.0, so whole */
		{ 10239, "10K" },
		{ 10240, "10K" },
		{ 10241, "11K" },
		{ 11265, "12K" },
		{ 1022977, "1000K" },             /* 999.001K */
		{ 1047552, "1023K" },
		{ 1047553, "1.0M" },              /* 1023.001K: 1024K is 1.0M */
		{ 1048575, "1.0M" },
		{ 1048576, "1.0M" },
		{ 1048577, "1.1M" },
		{ 10485759, "10M" },
		{ 10485760, "10M" },
		{ 10485761, "11M" },
		{ UINT64_C(3) << 29, "1.5G" },
		{ (UINT64_C(1) << 30) - 1, "1.0G" },
		{ (UINT64_C(1) << 30) + 1, "1.1G" },
		{ (UINT64_C(1) << 40) - 1, "1.0T" },
		{ UINT64_C(10) << 40, "10T" },
		{ (UINT64_C(10) << 50) + 1, "11P" },
		{ UINT64_C(1023) << 50, "1023P" },
		{ (UINT64_C(1023) << 50) + 1, "1.0E" },
		{ UINT64_C(1) << 60, "1.0E" },
		{ (UINT64_C(1) << 60) + 1, "1.1E" },
		{ INT64_MAX, "8.0E" },
		{ UINT64_MAX, "16E" },            /* beyond any file: no ls to ask */
	};
	char buf[FMT_BUFSIZE];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char what[64];
		snprintf(what, sizeof what, "fmt_human(%llu)", (unsigned long long)cases[i].bytes);
		size_t n = fmt_human(buf, cases[i].bytes);
		unit_expect_str(what, buf, cases[i].want);
		unit_check(n == strlen(buf) && n <= FMT_HUMAN_MAX, "%s: length %zu", what, n);
	}
}

/* fmt_rate: fmt_human's units, rounded to the nearest. */
static void test_rate(void)
{
	static const struct {
		uint64_t bytes;
		const char *want;
	} cases[] = {
		{ 0, "0B" },
		{ 1023, "1023B" },
		{ 1024, "1.0K" },
		{ 1075, "1.0K" },                         /* 1.0498K */
		{ 1076, "1.1K" },                         /* 1.0508K */
		{ UINT64_C(16) << 20, "16M" },            /* --rate=16M */
		{ (UINT64_C(16) << 20) + (UINT64_C(1) << 14), "16M" }, /* a hair over */
		{ (UINT64_C(33) << 19) - 1, "16M" },      /* 16.4999M */
		{ UINT64_C(33) << 19, "17M" },            /* 16.5M: half up */
		{ UINT64_C(100000000), "95M" },           /* --rate=100MB: 95.37 MiB */
		{ 10433331, "9.9M" },                     /* 9.9499M */
		{ 10433332, "10M" },                      /* 9.95M: 10.0, so whole */
		{ 1048063, "1023K" },                     /* 1023.4990K */
		{ 1048064, "1.0M" },                      /* 1023.5K: 1024K is 1.0M */
		{ (UINT64_C(2047) << 49) - 1, "1023P" },
		{ UINT64_C(2047) << 49, "1.0E" },         /* 1023.5P */
		{ UINT64_MAX, "16E" },
	};
	char buf[FMT_BUFSIZE];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char what[64];
		snprintf(what, sizeof what, "fmt_rate(%llu)", (unsigned long long)cases[i].bytes);
		size_t n = fmt_rate(buf, cases[i].bytes);
		unit_expect_str(what, buf, cases[i].want);
		unit_check(n == strlen(buf) && n <= FMT_HUMAN_MAX, "%s: length %zu", what, n);
	}
}

static void test_percent(void)
{
	char buf[FMT_BUFSIZE];

	unit_check(fmt_percent(buf, 0, 0) == 0, "fmt_percent(0, 0) must be undefined");
	fmt_percent(buf, 1, 3);
	unit_expect_str("fmt_percent(1, 3)", buf, "33.3");
	fmt_percent(buf, 2, 3);
	unit_expect_str("fmt_percent(2, 3) truncates", buf, "66.6");
	fmt_percent(buf, 9999, 10000);
	unit_expect_str("fmt_percent(9999, 10000) is not 100", buf, "99.9");
	fmt_percent(buf, 7, 7);
	unit_expect_str("fmt_percent(7, 7)", buf, "100.0");
	fmt_percent(buf, 0, 7);
	unit_expect_str("fmt_percent(0, 7)", buf, "0.0");
	fmt_percent(buf, UINT64_C(1) << 62, UINT64_C(1) << 63);
	unit_expect_str("fmt_percent(huge)", buf, "50.0");
	fmt_u64(buf, UINT64_MAX);
	unit_expect_str("fmt_u64(max)", buf, "18446744073709551615");
}

static void test_parse_size(void)
{
	static const struct {
		const char *in;
		bool ok;
		uint64_t want;
	} cases[] = {
		{ "0", true, 0 },
		{ "4096", true, 4096 },
		{ "1K", true, 1024 },
		{ "1k", true, 1024 },
		{ "1KiB", true, 1024 },
		{ "1KB", true, 1000 },
		{ "1kB", true, 1000 },
		{ "3M", true, UINT64_C(3) << 20 },
		{ "2GiB", true, UINT64_C(2) << 30 },
		{ "10GB", true, UINT64_C(10000000000) },
		{ "2T", true, UINT64_C(2) << 40 },
		{ "1P", true, UINT64_C(1) << 50 },
		{ "15E", true, UINT64_C(15) << 60 },
		{ "18EB", true, UINT64_C(18000000000000000000) },
		{ "18446744073709551615", true, UINT64_MAX },
		{ "18446744073709551616", false, 0 }, /* 2^64 */
		{ "16E", false, 0 },                  /* 2^64 */
		{ "19EB", false, 0 },
		{ "99999999999999999999999", false, 0 },
		{ "", false, 0 },
		{ "-1", false, 0 },
		{ "+1", false, 0 },
		{ " 1", false, 0 },
		{ "1 ", false, 0 },
		{ "1.5M", false, 0 },
		{ "0x10", false, 0 },
		{ "1X", false, 0 },
		{ "K", false, 0 },
		{ "1KiBB", false, 0 },
		{ "1Kib", true, 1024 },  /* suffixes in any case */
		{ "1kIB", true, 1024 },
		{ "1kb", true, 1000 },
		{ "1B", true, 1 },       /* bytes, as fmt_human writes them */
		{ "512b", true, 512 },
		{ "1Bb", false, 0 },
		{ "1BiB", false, 0 },
		{ "1\x80", false, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint64_t got = 12345;
		bool ok = fmt_parse_size(cases[i].in, &got);
		unit_check(ok == cases[i].ok && (!ok || got == cases[i].want),
			   "fmt_parse_size(\"%s\"): %s %llu, want %s %llu", cases[i].in,
			   ok ? "ok" : "refused", (unsigned long long)got,
			   cases[i].ok ? "ok" : "refused", (unsigned long long)cases[i].want);
	}
}

void unit_format(void)
{
	test_human();
	test_rate();
	test_percent();
	test_parse_size();
}
