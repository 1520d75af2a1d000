/* SPDX-License-Identifier: MIT */
/* --trace's kernel side: the instance, its events and filters, its
 * buffers read and decoded.  libtracefs and libtraceevent are opened with
 * dlopen(3) by the first trace_open, and every call into them is made
 * with the user's rights: a setcap pagestat grants nothing here. */
#include <config.h>

#include "kernel/tracefs.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "kernel/userfile.h"
#include "lib/signals.h"
#include "lib/xalloc.h"

uint64_t trace_kernel_dev(dev_t dev)
{
	/* the kernel's MKDEV: 12 bits of major above 20 of minor */
	return ((uint64_t)major(dev) << 20) | (minor(dev) & 0xfffff);
}

#ifndef HAVE_TRACEFS

bool trace_built(void)
{
	return false;
}

struct trace_session *trace_open(const struct trace_config *cfg, unsigned *stale, char *why,
				 size_t why_size)
{
	(void)cfg;
	*stale = 0;
	snprintf(why, why_size, "this pagestat was built without libtracefs and libtraceevent "
		 "(Debian: apt-get install libtracefs-dev libtraceevent-dev, then configure again)");
	return NULL;
}

bool trace_read(struct trace_session *s, void (*fn)(void *, const struct trace_event *),
		void *ctx)
{
	(void)s;
	(void)fn;
	(void)ctx;
	errno = ENOSYS;
	return false;
}

uint64_t trace_lost(struct trace_session *s)
{
	(void)s;
	return 0;
}

void trace_close(struct trace_session *s)
{
	(void)s;
}

#else /* HAVE_TRACEFS */

#include <dlfcn.h>
#include <tracefs/tracefs.h>
#include <traceevent/event-parse.h>

/* The functions used, each one pointer filled from the libraries. */
#define TRACE_FUNCTIONS(X)                                                                  \
	X(tracefs_tracing_dir) X(tracefs_instance_create) X(tracefs_instance_alloc)        \
	X(tracefs_instance_destroy) X(tracefs_instance_free) X(tracefs_instances_walk)     \
	X(tracefs_instance_file_write) X(tracefs_instance_file_read)                       \
	X(tracefs_instance_set_buffer_size) X(tracefs_event_enable)                        \
	X(tracefs_event_file_write) X(tracefs_event_file_read) X(tep_alloc)                \
	X(tep_parse_header_page) X(tep_parse_event)                                        \
	X(tracefs_iterate_raw_events) X(tracefs_trace_on) X(tracefs_trace_off)             \
	X(tracefs_instance_get_dir)                                                        \
	X(tep_find_event_by_name) X(tep_find_field) X(tep_read_number_field) X(tep_free)

static struct {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name */
#define POINTER(name) __typeof__(name) *name;
	TRACE_FUNCTIONS(POINTER)
#undef POINTER
	bool loaded;
	/* the instance's directory, which a dying signal handler removes */
	char dying[256];
} lib;

/* Async-signal-safe: the instance removed as the process dies of a
 * signal (its buffers' readers are closed between reads; otherwise the
 * next run removes it). */
static void remove_dying(void)
{
	if (lib.dying[0])
		user_rmdir_dying(lib.dying);
}

static const char *const trace_sonames[] = { TRACEFS_SONAMES };
#define NSONAMES (sizeof trace_sonames / sizeof trace_sonames[0])

bool trace_built(void)
{
	return true;
}

struct load {
	char *why;
	size_t why_size;
};

static int load_libraries(void *arg)
{
	struct load *l = arg;
	void *handles[NSONAMES];
	/* libtracefs needs libtraceevent's symbols: the latter first, global */
	for (size_t i = NSONAMES; i-- > 0;) {
		handles[i] = dlopen(trace_sonames[i], RTLD_NOW | RTLD_GLOBAL);
		if (!handles[i]) {
			const char *err = dlerror();
			snprintf(l->why, l->why_size, "cannot load the tracing libraries: %s",
				 err ? err : trace_sonames[i]);
			return -1;
		}
	}
	/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name */
#define RESOLVE(name)                                                                      \
	for (size_t i = 0; i < NSONAMES && !lib.name; i++)                                 \
		lib.name = (__typeof__(lib.name))dlsym(handles[i], #name);                 \
	if (!lib.name) {                                                                   \
		snprintf(l->why, l->why_size, "cannot load the tracing libraries: no %s",   \
			 #name);                                                           \
		return -1;                                                                 \
	}
	TRACE_FUNCTIONS(RESOLVE)
#undef RESOLVE
	lib.loaded = true;
	return 0; /* the libraries stay to the end */
}

/* The fields read of each kind of event. */
struct fields {
	struct tep_format_field *ino, *index, *dev, *order, *comm;
};

struct trace_session {
	struct tracefs_instance *instance;
	struct tep_handle *tep;
	int ids[5][8]; /* per kind, the event ids of that kind; -1 ends */
	struct fields filemap, exit;
	void (*fn)(void *ctx, const struct trace_event *ev);
	void *ctx;
	int ncpus;
	const struct trace_config *cfg;
	char *why;
	size_t why_size;
	unsigned stale;
};

/* An event of the instance enabled, its filter (if any) written first, so
 * that no other file's event is recorded meanwhile.  -1 (told in why)
 * when the kernel refused; optional events missing are not an error. */
static int enable(struct trace_session *s, const char *system, const char *event,
		  const char *filter, bool optional)
{
	if (filter && lib.tracefs_event_file_write(s->instance, system, event, "filter",
						   filter) < 0) {
		if (optional && errno == ENOENT)
			return 0;
		snprintf(s->why, s->why_size, "the kernel refused the filter of %s:%s (%s): %s",
			 system, event, filter, strerror(errno));
		return -1;
	}
	if (lib.tracefs_event_enable(s->instance, system, event) != 0) {
		if (optional)
			return 0;
		snprintf(s->why, s->why_size, "cannot enable the tracepoint %s:%s: %s", system,
			 event, strerror(errno));
		return -1;
	}
	return 0;
}

/* The pid namespace the process is in, and the initial one's inode. */
#define PID_NS_INIT 4026531836u
static unsigned long pid_ns(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 ? (unsigned long)st.st_ino : PID_NS_INIT;
}

/* The instance's name: "pagestat-PID", and in a pid namespace of its own
 * (a container) "pagestat-PID-nsINODE", so that two namespaces' pids do
 * not meet. */
static void instance_name(char *name, size_t size, long pid)
{
	unsigned long ns = pid_ns();
	if (ns == PID_NS_INIT)
		snprintf(name, size, "pagestat-%ld", pid);
	else
		snprintf(name, size, "pagestat-%ld-ns%lu", pid, ns);
}

/* Was the instance name that of a pagestat process of this pid namespace
 * that is gone (or whose pid another program has now)?  This process's
 * own name is stale too: it has made no instance yet.  Those of another
 * namespace are left alone: whether their process lives is not known
 * here. */
static bool stale_name(const char *name)
{
	char *end, mine[64];
	if (strncmp(name, "pagestat-", 9) != 0)
		return false;
	long pid = strtol(name + 9, &end, 10);
	if (pid <= 0 || end == name + 9)
		return false;
	instance_name(mine, sizeof mine, pid);
	if (strcmp(mine, name) != 0)
		return false; /* another namespace's, or no name of pagestat's */
	if (pid == getpid())
		return true;
	if (kill((pid_t)pid, 0) == 0 || errno == EPERM) {
		/* alive: but a pid used again by another program is no pagestat */
		char path[64], comm[32] = "";
		snprintf(path, sizeof path, "/proc/%ld/comm", pid);
		FILE *in = user_fopen_read(path);
		if (!in)
			return false;
		bool read = fgets(comm, sizeof comm, in) != NULL;
		fclose(in);
		return read && strncmp(comm, "pagestat", 8) != 0;
	}
	return errno == ESRCH;
}

static int remove_stale(const char *name, void *arg)
{
	struct trace_session *s = arg;
	if (!stale_name(name))
		return 0;
	struct tracefs_instance *old = lib.tracefs_instance_alloc(NULL, name);
	if (old) {
		lib.tracefs_trace_off(old);
		if (lib.tracefs_instance_destroy(old) == 0)
			s->stale++;
		lib.tracefs_instance_free(old);
	}
	return 0;
}

/* The event's format read and parsed (only those used: reading every
 * format, and /proc/kallsyms, as tracefs_local_events does, takes
 * seconds); its id, or -1 when the kernel has no such event. */
static int event_id(struct trace_session *s, const char *system, const char *name,
		    struct tep_event **event)
{
	int size = 0;
	char *format = lib.tracefs_event_file_read(NULL, system, name, "format", &size);
	*event = NULL;
	if (format && size > 0)
		lib.tep_parse_event(s->tep, format, (unsigned long)size, system);
	free(format);
	*event = lib.tep_find_event_by_name(s->tep, system, name);
	return *event ? (*event)->id : -1;
}

/* The ring buffer's page header, which the readers of the buffers need. */
static int read_header_page(struct trace_session *s)
{
	int size = 0;
	char *header = lib.tracefs_instance_file_read(NULL, "events/header_page", &size);
	int ret = header && size > 0
			  ? lib.tep_parse_header_page(s->tep, header, (unsigned long)size,
						      (int)sizeof(long))
			  : -1;
	free(header);
	return ret;
}

/* The events' ids and fields, from the formats the kernel gives. */
static int learn_formats(struct trace_session *s)
{
	static const char *const begins[] = { "mm_vmscan_direct_reclaim_begin",
					      "mm_vmscan_memcg_reclaim_begin",
					      "mm_vmscan_memcg_softlimit_reclaim_begin",
					      "mm_vmscan_node_reclaim_begin", NULL };
	static const char *const ends[] = { "mm_vmscan_direct_reclaim_end",
					    "mm_vmscan_memcg_reclaim_end",
					    "mm_vmscan_memcg_softlimit_reclaim_end",
					    "mm_vmscan_node_reclaim_end", NULL };
	struct tep_event *add, *del, *exit_ev, *other;

	s->tep = lib.tep_alloc();
	if (!s->tep || read_header_page(s) != 0) {
		snprintf(s->why, s->why_size, "cannot read the trace buffers' page header "
			 "(events/header_page): %s", strerror(errno));
		return -1;
	}
	memset(s->ids, -1, sizeof s->ids);
	s->ids[TEV_ADD][0] = event_id(s, "filemap", "mm_filemap_add_to_page_cache", &add);
	s->ids[TEV_DELETE][0] = event_id(s, "filemap", "mm_filemap_delete_from_page_cache", &del);
	if (!add || !del) {
		snprintf(s->why, s->why_size, "this kernel has no filemap tracepoints "
			 "(mm_filemap_add_to_page_cache, mm_filemap_delete_from_page_cache)");
		return -1;
	}
	for (int i = 0, n = 0; begins[i]; i++)
		if (event_id(s, "vmscan", begins[i], &other) >= 0)
			s->ids[TEV_RECLAIM_BEGIN][n++] = other->id;
	for (int i = 0, n = 0; ends[i]; i++)
		if (event_id(s, "vmscan", ends[i], &other) >= 0)
			s->ids[TEV_RECLAIM_END][n++] = other->id;
	s->ids[TEV_EXIT][0] = event_id(s, "sched", "sched_process_exit", &exit_ev);
	/* the add and delete events share one layout (one class) */
	s->filemap = (struct fields){
		.ino = lib.tep_find_field(add, "i_ino"),
		.index = lib.tep_find_field(add, "index"),
		.dev = lib.tep_find_field(add, "s_dev"),
		.order = lib.tep_find_field(add, "order"),
	};
	if (!s->filemap.ino || !s->filemap.index || !s->filemap.dev) {
		snprintf(s->why, s->why_size, "the filemap tracepoints lack i_ino, index or s_dev");
		return -1;
	}
	if (exit_ev)
		s->exit.comm = lib.tep_find_field(exit_ev, "comm");
	return 0;
}

static int enable_all(struct trace_session *s)
{
	static const char *const vmscan[] = {
		"mm_vmscan_direct_reclaim_begin", "mm_vmscan_direct_reclaim_end",
		"mm_vmscan_memcg_reclaim_begin", "mm_vmscan_memcg_reclaim_end",
		"mm_vmscan_memcg_softlimit_reclaim_begin", "mm_vmscan_memcg_softlimit_reclaim_end",
		"mm_vmscan_node_reclaim_begin", "mm_vmscan_node_reclaim_end", NULL };
	const char *filter = s->cfg->filter;
	if (enable(s, "filemap", "mm_filemap_add_to_page_cache", filter, false) ||
	    enable(s, "filemap", "mm_filemap_delete_from_page_cache", filter, false))
		return -1;
	for (int i = 0; vmscan[i]; i++)
		if (enable(s, "vmscan", vmscan[i], NULL, true))
			return -1;
	return enable(s, "sched", "sched_process_exit", NULL, true);
}

/* The instance made and started; with the user's rights (user_call). */
static int open_instance(void *arg)
{
	struct trace_session *s = arg;
	char name[64], size[32];

	if (!lib.loaded) {
		struct load l = { s->why, s->why_size };
		if (load_libraries(&l) != 0)
			return -1;
	}
	const char *dir = lib.tracefs_tracing_dir();
	if (!dir) {
		snprintf(s->why, s->why_size, "tracefs is not mounted (mount -t tracefs nodev "
			 "/sys/kernel/tracing)");
		return -1;
	}
	lib.tracefs_instances_walk(remove_stale, s);
	instance_name(name, sizeof name, (long)getpid());
	s->instance = lib.tracefs_instance_create(name);
	if (!s->instance) {
		int err = errno;
		snprintf(s->why, s->why_size, "cannot make a trace instance in %s/instances: %s%s",
			 dir, strerror(err),
			 err == EACCES || err == EPERM
				 ? " (tracing needs root: tracefs's instances are made by root "
				   "alone, whatever group it is mounted with; a setcap pagestat "
				   "grants nothing here)"
				 : "");
		return -1;
	}
	char *path = lib.tracefs_instance_get_dir(s->instance);
	if (path && strlen(path) < sizeof lib.dying) {
		memcpy(lib.dying, path, strlen(path) + 1);
		signals_on_death_kernel(remove_dying);
	}
	free(path);
	snprintf(size, sizeof size, "%llu", (unsigned long long)s->cfg->buffer_kib);
	/* with the buffers full, new events are lost and counted, not old ones */
	if (lib.tracefs_instance_file_write(s->instance, "buffer_size_kb", size) < 0 ||
	    lib.tracefs_instance_file_write(s->instance, "options/overwrite", "0") < 0) {
		snprintf(s->why, s->why_size, "cannot size the trace buffers (%s KiB a CPU): %s",
			 size, strerror(errno));
		return -1;
	}
	if (learn_formats(s) || enable_all(s))
		return -1;
	if (lib.tracefs_trace_on(s->instance) != 0) {
		snprintf(s->why, s->why_size, "cannot start tracing: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static int destroy_instance(void *arg)
{
	struct trace_session *s = arg;
	if (s->instance) {
		signals_on_death_kernel(NULL);
		lib.dying[0] = '\0';
		lib.tracefs_trace_off(s->instance);
		lib.tracefs_instance_destroy(s->instance);
		lib.tracefs_instance_free(s->instance);
		s->instance = NULL;
	}
	if (s->tep)
		lib.tep_free(s->tep);
	s->tep = NULL;
	return 0;
}

struct trace_session *trace_open(const struct trace_config *cfg, unsigned *stale, char *why,
				 size_t why_size)
{
	struct trace_session *s = xcalloc(1, sizeof *s);
	s->cfg = cfg;
	s->why = why;
	s->why_size = why_size;
	s->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	*why = '\0';
	int ok = user_call(open_instance, s);
	*stale = s->stale;
	if (ok != 0) {
		if (!*why)
			snprintf(why, why_size, "%s", strerror(errno));
		if (lib.loaded)
			user_call(destroy_instance, s);
		free(s);
		return NULL;
	}
	s->why = NULL;
	return s;
}

static uint64_t field(struct tep_format_field *f, const void *data)
{
	unsigned long long v = 0;
	if (f)
		lib.tep_read_number_field(f, data, &v);
	return v;
}

static bool is_kind(const struct trace_session *s, enum trace_kind kind, int id)
{
	for (int i = 0; i < 8 && s->ids[kind][i] >= 0; i++)
		if (s->ids[kind][i] == id)
			return true;
	return false;
}

static int one_event(struct tep_event *event, struct tep_record *rec, int cpu, void *arg)
{
	struct trace_session *s = arg;
	struct trace_event ev = { 0 };
	(void)cpu;

	ev.pid = (pid_t)*(const int *)((const char *)rec->data + 4); /* common_pid */
	if (event->id == s->ids[TEV_ADD][0] || event->id == s->ids[TEV_DELETE][0]) {
		uint64_t kdev = field(s->filemap.dev, rec->data);
		ev.kind = event->id == s->ids[TEV_ADD][0] ? TEV_ADD : TEV_DELETE;
		ev.dev = makedev((unsigned)(kdev >> 20), (unsigned)(kdev & 0xfffff));
		ev.ino = field(s->filemap.ino, rec->data);
		ev.index = field(s->filemap.index, rec->data);
		ev.order = (unsigned)field(s->filemap.order, rec->data);
	} else if (is_kind(s, TEV_RECLAIM_BEGIN, event->id)) {
		ev.kind = TEV_RECLAIM_BEGIN;
	} else if (is_kind(s, TEV_RECLAIM_END, event->id)) {
		ev.kind = TEV_RECLAIM_END;
	} else if (event->id == s->ids[TEV_EXIT][0] && s->exit.comm) {
		ev.kind = TEV_EXIT;
		size_t n = (size_t)s->exit.comm->size < sizeof ev.comm ? (size_t)s->exit.comm->size
									: sizeof ev.comm - 1;
		memcpy(ev.comm, (const char *)rec->data + s->exit.comm->offset, n);
		ev.comm[sizeof ev.comm - 1] = '\0';
	} else {
		return 0;
	}
	s->fn(s->ctx, &ev);
	return 0;
}

static int read_all(void *arg)
{
	struct trace_session *s = arg;
	return lib.tracefs_iterate_raw_events(s->tep, s->instance, NULL, 0, one_event, s);
}

bool trace_read(struct trace_session *s, void (*fn)(void *ctx, const struct trace_event *ev),
		void *ctx)
{
	s->fn = fn;
	s->ctx = ctx;
	return user_call(read_all, s) == 0;
}

struct lost {
	struct trace_session *s;
	uint64_t lost;
};

static int count_lost(void *arg)
{
	struct lost *l = arg;
	for (int cpu = 0; cpu < l->s->ncpus; cpu++) {
		char file[64];
		snprintf(file, sizeof file, "per_cpu/cpu%d/stats", cpu);
		char *text = lib.tracefs_instance_file_read(l->s->instance, file, NULL);
		if (!text)
			continue;
		/* "overrun: N" (overwritten) and "dropped events: N" (refused) */
		static const char *const keys[] = { "overrun:", "dropped events:" };
		for (char *line = text; line && *line; line = strchr(line, '\n')) {
			line += *line == '\n';
			for (size_t k = 0; k < 2; k++)
				if (strncmp(line, keys[k], strlen(keys[k])) == 0)
					l->lost += strtoull(line + strlen(keys[k]), NULL, 10);
		}
		free(text);
	}
	return 0;
}

uint64_t trace_lost(struct trace_session *s)
{
	struct lost l = { s, 0 };
	user_call(count_lost, &l);
	return l.lost;
}

void trace_close(struct trace_session *s)
{
	if (!s)
		return;
	user_call(destroy_instance, s);
	free(s);
}

#endif /* HAVE_TRACEFS */
