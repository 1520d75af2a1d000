/* SPDX-License-Identifier: MIT */
/* --lock's memory guard: the memory available (the machine's
 * MemAvailable, its memory cgroup's limit less usage), the plan checked
 * against it before anything is read, each later pass's budget, and
 * --reserve kept (files yielded, locked again when memory comes back; the
 * kernel's pressure trigger). */
#include <config.h>

#include "act/lock.h"
#include "act/lock_int.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/format.h"
#include "kernel/memstat.h"
#include "lib/msg.h"
#include "lib/status.h"
#include "kernel/userfile.h"

/* The figures of keys in the memory.stat of dir (0 where one is not
 * there, or the file cannot be read), read with the user's rights. */
static void stat_values(const char *dir, const char *const *keys, uint64_t *values, size_t n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/memory.stat", dir);
	FILE *in = user_fopen_read(path);
	for (size_t i = 0; i < n; i++)
		values[i] = 0;
	if (!in)
		return;
	(void)memstat_read_keys(in, keys, values, n);
	fclose(in);
}

/* The directory of this process's memory cgroup (v1's memory hierarchy,
 * else v2's), under /sys/fs/cgroup; false when there is none. */
static bool memory_cgroup(char *dir, size_t size, bool *v2)
{
	int version = 0;
	char *path = memstat_self_cgroup(&version);

	if (!path)
		return false;
	snprintf(dir, size, version == 1 ? "/sys/fs/cgroup/memory%s" : "/sys/fs/cgroup%s", path);
	*v2 = version == 2;
	free(path);
	return true;
}

bool lock_available(uint64_t *available, uint64_t *limit)
{
	uint64_t total;
	char dir[PATH_MAX];
	bool v2 = false;

	if (!meminfo_bytes("MemAvailable", available) || !meminfo_bytes("MemTotal", &total))
		return false;
	*limit = total;
	if (!memory_cgroup(dir, sizeof dir, &v2))
		return true;
	uint64_t cg_limit, usage, file;
	if (v2) {
		if (!memstat_read_number(dir, "memory.max", &cg_limit) ||
		    !memstat_read_number(dir, "memory.current", &usage))
			return true; /* "max": no limit */
		static const char *const keys[] = { "file", "unevictable" };
		uint64_t v[2];
		stat_values(dir, keys, v, 2);
		file = v[0] - v[1];
	} else {
		if (!memstat_read_number(dir, "memory.limit_in_bytes", &cg_limit) ||
		    !memstat_read_number(dir, "memory.usage_in_bytes", &usage))
			return true;
		static const char *const keys[] = { "total_active_file", "total_inactive_file" };
		uint64_t v[2];
		stat_values(dir, keys, v, 2);
		file = v[0] + v[1];
	}
	if (cg_limit >= total)
		return true; /* no limit of its own */
	*limit = cg_limit;
	/* its file pages are available as the kernel's MemAvailable counts them */
	uint64_t cg_available = cg_limit > usage ? cg_limit - usage : 0;
	cg_available += file;
	if (cg_available > cg_limit)
		cg_available = cg_limit;
	if (cg_available < *available)
		*available = cg_available;
	return true;
}

int lock_pressure_trigger(void)
{
	char dir[PATH_MAX];
	bool v2 = false;
	/* 100 ms of stall in 2 s: a window a user may set too */
	const char *trigger = "some 100000 2000000";

	if (memory_cgroup(dir, sizeof dir, &v2) && v2) {
		char path[PATH_MAX + 32];
		snprintf(path, sizeof path, "%s/memory.pressure", dir);
		int fd = user_psi_trigger(path, trigger);
		if (fd >= 0)
			return fd;
	}
	return user_psi_trigger("/proc/pressure/memory", trigger);
}

/* --reserve: available is below reserve: files unlocked, the last locked
 * first, until what they give back covers the difference; each told. */
static void yield(struct lock_set *set, uint64_t available, uint64_t reserve)
{
	char have[FMT_BUFSIZE], keep[FMT_BUFSIZE], bytes[FMT_BUFSIZE];
	uint64_t given = 0;

	fmt_human(have, available);
	fmt_human(keep, reserve);
	pthread_mutex_lock(&set->mutex);
	for (size_t i = set->nfiles; i-- > 0 && available + given < reserve;) {
		struct locked_file *f = &set->files[i];
		if (!f->addr)
			continue;
		size_t length = f->length;
		lock_release(set, f);
		f->yielded = true;
		given += length;
		fmt_human(bytes, length);
		lock_notice(set, f->path, "unlocked (%s): %s available, below --reserve=%s", bytes, have,
		       keep);
		lock_tell_change(set, f->path, "unlocked for --reserve", 0);
	}
	pthread_mutex_unlock(&set->mutex);
}

/* Files unlocked for --reserve wait to be locked again. */
static bool yielded(const struct lock_set *set)
{
	for (size_t i = 0; i < set->nfiles; i++)
		if (set->files[i].yielded)
			return true;
	return false;
}

/* --reserve in bytes: SIZE, or PERCENT% of limit (the memory cgroup's
 * limit, or MemTotal). */
static uint64_t reserve_bytes(const struct lock_config *cfg, uint64_t limit)
{
	if (cfg->reserve_percent > 0)
		return (uint64_t)((double)limit * cfg->reserve_percent / 100.0);
	return cfg->reserve;
}

uint64_t lock_budget(const struct lock_set *set)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return UINT64_MAX;
	uint64_t reserve = reserve_bytes(&set->cfg, limit);
	return available > reserve ? available - reserve : 0;
}

void lock_keep_reserve(struct lock_set *set)
{
	uint64_t available, limit;

	if (!lock_available(&available, &limit))
		return;
	uint64_t reserve = reserve_bytes(&set->cfg, limit);
	uint64_t margin = reserve + reserve / 4;
	if (available < reserve) {
		yield(set, available, reserve);
	} else if (available > margin && yielded(set)) {
		lock_pass(set, available - margin);
	}
}

int lock_plan(const struct lock_set *set, uint64_t pinned, uint64_t to_read)
{
	uint64_t available, limit, reserve = 0;

	if (set->cfg.max && pinned > set->cfg.max)
		pinned = set->cfg.max;
	if (!lock_available(&available, &limit))
		return STATUS_OK;
	reserve = reserve_bytes(&set->cfg, limit);
	if (pinned <= available && available - pinned >= reserve)
		return STATUS_OK;
	char need[FMT_BUFSIZE], read[FMT_BUFSIZE], have[FMT_BUFSIZE], keep[FMT_BUFSIZE];
	fmt_human(need, pinned);
	fmt_human(read, to_read);
	fmt_human(have, available);
	fmt_human(keep, reserve);
	msg("--lock: %s to lock (%s of it to read), more than the %s of memory available "
	    "(MemAvailable, or the memory cgroup's)%s%s%s: nothing read or locked; %s\n",
	    need, read, have, reserve ? " less --reserve's " : "", reserve ? keep : "",
	    reserve ? " kept" : "",
	    set->cfg.snapshot
		    ? "lock from a smaller snapshot (fewer file rows, filtered with jq, say), "
		      "or up to a size with --lock-max"
		    : "lock fewer files, a part with --offset and --length, or up to a size with "
		      "--lock-max");
	return STATUS_FATAL;
}
