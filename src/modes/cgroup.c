/* SPDX-License-Identifier: MIT */
/* --cgroup: a memory cgroup's own figures (memory.stat), the files its
 * processes map or hold open, and how much of its file pages they hold. */
#include <config.h>

#include "modes/cgroup.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "walk/aggregate.h"
#include "walk/inspect.h"
#include "kernel/mountinfo.h"
#include "lib/msg.h"
#include "modes/pidfiles.h"
#include "kernel/userfile.h"
#include "lib/xalloc.h"

/* A cgroup file system mounted here. */
struct cg_mount {
	char *point, *root;
	int version;     /* 1: cgroup, 2: cgroup2 */
	bool memory;     /* v1: the memory controller's hierarchy */
};

struct cg_mounts {
	struct cg_mount *m;
	size_t n, cap;
};

/* Is word one of the comma-separated words of list? */
static bool has_word(const char *list, const char *word)
{
	size_t len = strlen(word);

	for (const char *p = list; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (strncmp(p, word, len) == 0 && (p[len] == ',' || p[len] == '\0'))
			return true;
	return false;
}

static void add_mount(void *arg, const struct mountinfo *mi)
{
	struct cg_mounts *ms = arg;
	int version = strcmp(mi->fstype, "cgroup2") == 0 ? 2 : strcmp(mi->fstype, "cgroup") == 0;

	if (!version)
		return;
	XGROW(ms->m, ms->cap, ms->n + 1);
	ms->m[ms->n++] = (struct cg_mount){
		.point = xstrdup(mi->point),
		.root = xstrdup(mi->root),
		.version = version,
		.memory = version == 1 && has_word(mi->super, "memory"),
	};
}

static void free_mounts(struct cg_mounts *ms)
{
	for (size_t i = 0; i < ms->n; i++) {
		free(ms->m[i].point);
		free(ms->m[i].root);
	}
	free(ms->m);
}

static bool read_mounts(struct cg_mounts *ms)
{
	FILE *in = user_fopen_read("/proc/self/mountinfo");
	const char *why = NULL;

	if (!in) {
		why = strerror(errno);
	} else {
		(void)mountinfo_read(in, add_mount, ms, &why);
		fclose(in);
	}
	if (why)
		msg("--cgroup: cannot read /proc/self/mountinfo: %s\n", why);
	return !why;
}

/* The mount that holds memory cgroups, v1's memory controller first. */
static const struct cg_mount *memory_mount(const struct cg_mounts *ms)
{
	const struct cg_mount *v2 = NULL;

	for (size_t i = 0; i < ms->n; i++) {
		if (ms->m[i].memory)
			return &ms->m[i];
		if (ms->m[i].version == 2 && !v2)
			v2 = &ms->m[i];
	}
	return v2;
}

static char *join(const char *a, const char *b)
{
	size_t size = strlen(a) + strlen(b) + 2;
	char *s = xrealloc(NULL, size);
	snprintf(s, size, "%s/%s", a, b);
	return s;
}

/* "self": this process's memory cgroup (/proc/self/cgroup, memstat.c's
 * reader), as a path relative to mount; NULL when it has none there. */
static char *self_cgroup(const struct cg_mount *mount)
{
	int version = mount->version;
	char *path = memstat_self_cgroup(&version);

	if (!path)
		return NULL;
	/* relative to the mount's root, when it is not the hierarchy's */
	size_t root = strlen(mount->root);
	if (strcmp(mount->root, "/") != 0 && strncmp(path, mount->root, root) == 0)
		memmove(path, path + root, strlen(path + root) + 1);
	return path;
}

struct real_path {
	const char *path;
	char *real;
};

static int resolve_path(void *arg)
{
	struct real_path *rp = arg;
	rp->real = realpath(rp->path, NULL);
	return rp->real ? 0 : -1;
}

/* The cgroup mount whose point is the longest prefix of dir, or NULL. */
static const struct cg_mount *mount_of(const struct cg_mounts *ms, const char *dir)
{
	const struct cg_mount *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < ms->n; i++) {
		size_t len = strlen(ms->m[i].point);
		if (strcmp(ms->m[i].point, "/") == 0)
			len = 0;
		if (strncmp(dir, ms->m[i].point, len) == 0 && (dir[len] == '/' || dir[len] == '\0') &&
		    (!best || len > best_len)) {
			best = &ms->m[i];
			best_len = len;
		}
	}
	return best;
}

static bool refuse(const char *name, const char *why, const char *more)
{
	msg("--cgroup ");
	msg_name_str(name);
	msg_more(": %s%s\n", why, more ? more : "");
	return false;
}

/* One name into *cg; false, told, when it is no memory cgroup. */
static bool resolve_one(const struct cg_mounts *ms, const char *name, struct cgroup_figures *cg)
{
	const struct cg_mount *home = memory_mount(ms);
	char *path;

	if (strcmp(name, "self") == 0) {
		char *rel = home ? self_cgroup(home) : NULL;
		if (!rel)
			return refuse(name, "this process is in no memory cgroup", NULL);
		path = join(home->point, rel);
		free(rel);
	} else if (name[0] == '/') {
		path = xstrdup(name);
	} else {
		if (!home)
			return refuse(name, "no cgroup mount has the memory controller to find it in",
				      NULL);
		path = join(home->point, name);
	}
	struct real_path rp = { .path = path };
	int err = user_call(resolve_path, &rp) == 0 ? 0 : errno;
	free(path);
	if (err)
		return refuse(name, err == ENOENT ? "does not exist" : strerror(err), NULL);

	struct stat st;
	const struct cg_mount *mount = mount_of(ms, rp.real);
	bool ok = false;
	if (user_fstatat(AT_FDCWD, rp.real, &st, 0) != 0 || !S_ISDIR(st.st_mode))
		refuse(name, "not a directory", NULL);
	else if (!mount)
		refuse(name, "not under a cgroup mount", " (see /proc/self/mountinfo)");
	else if (mount->version == 1 && !mount->memory)
		refuse(name, "no memory controller in the hierarchy mounted at ", mount->point);
	else
		ok = true;
	if (ok) {
		char *stat_path = join(rp.real, "memory.stat");
		ok = user_fstatat(AT_FDCWD, stat_path, &st, 0) == 0;
		err = errno;
		free(stat_path);
		if (!ok && err != ENOENT)
			refuse(name, "memory.stat: ", strerror(err));
		else if (!ok)
			refuse(name, "no memory controller (no memory.stat: on cgroup v2, the parent's "
				     "cgroup.subtree_control lacks memory)", NULL);
	}
	if (!ok) {
		free(rp.real);
		return false;
	}
	size_t len = strcmp(mount->point, "/") == 0 ? 0 : strlen(mount->point);
	*cg = (struct cgroup_figures){
		.name = xstrdup(rp.real[len] ? rp.real + len : "/"),
		.dir = rp.real,
		.stat.version = mount->version,
	};
	return true;
}

bool cgroup_resolve(const char *const *names, size_t n, struct cgroup_set *set)
{
	struct cg_mounts ms = { 0 };
	bool ok = read_mounts(&ms);

	*set = (struct cgroup_set){ .cgroups = xcalloc(n, sizeof *set->cgroups) };
	for (size_t i = 0; i < n && ok; i++) {
		ok = resolve_one(&ms, names[i], &set->cgroups[set->n]);
		set->n += ok;
	}
	free_mounts(&ms);
	return ok;
}

struct pid_list {
	pid_t *pids;
	size_t n, cap;
};

/* The processes of dir's cgroup.procs and of every cgroup below it, read
 * with the user's rights.  ENOENT: dir itself is gone. */
static int collect_pids(const char *dir, struct pid_list *list)
{
	char *procs = join(dir, "cgroup.procs");
	FILE *in = user_fopen_read(procs);
	free(procs);
	if (!in)
		return errno;
	char *line = NULL;
	size_t size = 0;
	while (getline(&line, &size, in) > 0) {
		char *end;
		long pid = strtol(line, &end, 10);
		if (pid > 0 && end != line) {
			XGROW(list->pids, list->cap, list->n + 1);
			list->pids[list->n++] = (pid_t)pid;
		}
	}
	free(line);
	fclose(in);

	int fd = user_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0; /* removed since: its processes were read */
	}
	struct dirent *e;
	// cppcheck-suppress readdirCalled
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *below = join(dir, e->d_name);
		(void)collect_pids(below, list); /* a cgroup below removed meanwhile had none */
		free(below);
	}
	closedir(d);
	return 0;
}

/* 0, or why memory.stat could not be read (ENOENT: the cgroup is gone). */
static int read_memstat(struct cgroup_figures *cg)
{
	char *path = join(cg->dir, "memory.stat");
	FILE *in = user_fopen_read(path);
	free(path);
	if (!in)
		return errno;
	int version = cg->stat.version;
	bool ok = memstat_parse(in, version, &cg->stat);
	fclose(in);
	return ok ? 0 : EIO;
}

static void add_result(struct walk_result *into, const struct walk_result *r)
{
	agg_stat_add(&into->total.stat, &r->total.stat);
	into->total.files += r->total.files;
	into->errors += r->errors;
	into->refused += r->refused;
	into->output_failed |= r->output_failed;
}

static void one_cgroup(const struct walk_config *cfg, struct cgroup_figures *cg,
		       struct sink *sink, struct walk_result *result)
{
	struct pid_list list = { 0 };
	struct walk_result r = { .total.stat.known = result->total.stat.known };
	int version = cg->stat.version;

	int err = collect_pids(cg->dir, &list);
	cg->processes = list.n;
	cg->exited = 0; /* this sample's */
	if (!err)
		pid_run_members(cfg, list.pids, list.n, sink, &r, &cg->exited);
	free(list.pids);
	add_result(result, &r);
	if (r.output_failed)
		return;
	/* the kernel's figures after the files, as --system reads meminfo */
	/* -i: the sample before, for the rates */
	cg->prev_read = cg->stat_read;
	cg->prev = cg->stat;
	cg->prev_at = cg->read_at;
	if (!err)
		err = read_memstat(cg);
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	cg->read_at = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
	cg->stat_read = !err;
	cg->stat.version = version;
	if (!cfg->quiet && err) {
		msg("--cgroup ");
		msg_name_str(cg->name);
		if (err == ENOENT)
			msg_more(": removed during the run: its figures are unknown\n");
		else
			msg_more(": its memory.stat could not be read (%s)\n", strerror(err));
	}
	if (!cfg->quiet && cg->exited) {
		msg("--cgroup ");
		msg_name_str(cg->name);
		msg_more(": %llu process%s exited before %s files were read\n",
			 (unsigned long long)cg->exited, cg->exited == 1 ? "" : "es",
			 cg->exited == 1 ? "its" : "their");
	}
	struct row row = {
		.path = cg->dir,
		.path_len = strlen(cg->dir),
		.type = ROW_CGROUP,
		.stat = r.total.stat,
		.files = r.total.files,
		.failed = r.errors,
		.note = cg->stat_read ? NULL : "removed during the run",
		.cgroup = cg,
	};
	if (!sink_row(sink, &row))
		result->output_failed = true;
}

void cgroup_run(const struct walk_config *cfg, struct cgroup_set *set, struct sink *sink,
		struct walk_result *result)
{
	*result = (struct walk_result){ .total.stat.known = inspect_known(cfg->ins) };
	for (size_t i = 0; i < set->n && !result->output_failed; i++)
		one_cgroup(cfg, &set->cgroups[i], sink, result);
}

/* Every cgroup below dir down to depth into set, with its figures, when
 * it holds file pages. */
static void collect_cgroups(const char *dir, const char *name, int version, long depth,
			    struct cgroup_set *set, size_t *cap)
{
	struct cgroup_figures cg = { .dir = (char *)dir, .stat.version = version };
	if (read_memstat(&cg) == 0 && memstat_known(&cg.stat, MEMSTAT_FILE) &&
	    cg.stat.value[MEMSTAT_FILE] > 0) {
		XGROW(set->cgroups, *cap, set->n + 1);
		cg.dir = xstrdup(dir);
		cg.name = xstrdup(*name ? name : "/");
		cg.stat_read = true;
		cg.figures_only = true;
		set->cgroups[set->n++] = cg;
	}
	if (depth == 0)
		return;
	int fd = user_openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY, 0);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return;
	}
	struct dirent *e;
	// cppcheck-suppress readdirCalled
	while ((e = readdir(d))) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *below = join(dir, e->d_name), *below_name = join(name, e->d_name);
		collect_cgroups(below, below_name, version, depth - 1, set, cap);
		free(below);
		free(below_name);
	}
	closedir(d);
}

static int most_file_first(const void *a, const void *b)
{
	uint64_t x = ((const struct cgroup_figures *)a)->stat.value[MEMSTAT_FILE];
	uint64_t y = ((const struct cgroup_figures *)b)->stat.value[MEMSTAT_FILE];
	return x < y ? 1 : x > y ? -1 : 0;
}

bool cgroup_system_rows(const struct walk_config *cfg, long depth, struct sink *sink,
			struct cgroup_set *set)
{
	struct cg_mounts ms = { 0 };
	size_t cap = 0;

	*set = (struct cgroup_set){ 0 };
	const struct cg_mount *home = read_mounts(&ms) ? memory_mount(&ms) : NULL;
	if (home)
		collect_cgroups(home->point, "", home->version, depth, set, &cap);
	else if (!cfg->quiet)
		msg("--system: no cgroup mount has the memory controller: no cgroup rows\n");
	free_mounts(&ms);
	qsort(set->cgroups, set->n, sizeof *set->cgroups, most_file_first);
	uint64_t top = cfg->system ? cfg->system->top : 0;
	if (top && set->n > top) {
		for (size_t i = top; i < set->n; i++) {
			free(set->cgroups[i].name);
			free(set->cgroups[i].dir);
		}
		set->n = top;
	}
	uint64_t page = sink->cfg.page_size;
	for (size_t i = 0; i < set->n; i++) {
		const struct cgroup_figures *cg = &set->cgroups[i];
		const struct memstat *m = &cg->stat;
		struct row row = {
			.path = cg->dir,
			.path_len = strlen(cg->dir),
			.type = ROW_CGROUP,
			.stat = {
				.known = PCS_CACHED |
					 (memstat_known(m, MEMSTAT_DIRTY) ? PCS_DIRTY : 0) |
					 (memstat_known(m, MEMSTAT_WRITEBACK) ? PCS_WRITEBACK : 0),
				.cached = m->value[MEMSTAT_FILE] / page,
				.dirty = m->value[MEMSTAT_DIRTY] / page,
				.writeback = m->value[MEMSTAT_WRITEBACK] / page,
			},
			.fstype = m->version == 1 ? "cgroup" : "cgroup2",
			.cgroup = cg,
		};
		if (!sink_row(sink, &row))
			return false;
	}
	return true;
}

void cgroup_set_free(struct cgroup_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->cgroups[i].name);
		free(set->cgroups[i].dir);
	}
	free(set->cgroups);
	*set = (struct cgroup_set){ 0 };
}
