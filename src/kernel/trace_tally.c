/* SPDX-License-Identifier: MIT */
/* --trace's figures: each event to its file and its process.  A removal
 * is "reclaimed" when the kernel freed the page for memory (kswapd, or a
 * task between a vmscan reclaim begin and end), else "dropped" (fadvise,
 * truncate, unlink, an evict); an addition of pages this trace saw
 * removed is a refault, told by the removed pages kept per file: a bit a
 * page, in chunks of 4096 pages made where pages were removed. */
#include <config.h>

#include "kernel/trace_tally.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/memstat.h"
#include "kernel/userfile.h"
#include "lib/devino.h"
#include "lib/xalloc.h"

/* The removed pages of one stretch of a file, a bit a page. */
#define CHUNK_PAGES 4096
struct chunk {
	uint64_t base; /* the stretch's first page / CHUNK_PAGES */
	uint64_t bits[CHUNK_PAGES / 64];
};

struct who {
	uint32_t proc; /* index + 1 in the tally's procs; 0: empty */
	uint64_t pages;
};

struct tally_file {
	struct tally_counts n;
	struct tally_counts prev; /* -i: n at the previous sample */
	struct who who[2][TALLY_WHO];
	/* the processes not kept: a bit a process (by a hash of its index),
	 * which counts them exactly until two share a bit */
	uint64_t others[2], others_pages[2];
	struct chunk *chunks; /* pages removed and not added again, by stretch */
	size_t nchunks, chunks_cap;
	int seen; /* tally_find found it (atomic: -j's threads ask) */
};

/* A thread seen: its process and whether it is in reclaim now. */
struct task {
	pid_t tid;
	uint32_t proc; /* index in procs */
	unsigned reclaim; /* reclaim begins not yet ended */
};

struct tally {
	struct devino_map index; /* (dev, ino) -> files */
	struct tally_file *files;
	size_t nfiles, files_cap;
	struct task *tasks; /* open addressing by tid, tasks_cap a power of two */
	size_t ntasks, tasks_cap;
	struct tally_proc *procs;
	size_t nprocs, procs_cap;
	uint64_t nchunks, events, untallied, untracked;
	bool per_sample; /* -i: counts since the previous sample, not since the start */
};

struct tally *tally_new(void)
{
	struct tally *t = xcalloc(1, sizeof *t);
	t->tasks_cap = 1024;
	t->tasks = xcalloc(t->tasks_cap, sizeof *t->tasks);
	return t;
}

void tally_free(struct tally *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i].chunks);
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].cgroup);
	devino_free(&t->index);
	free(t->files);
	free(t->tasks);
	free(t->procs);
	free(t);
}

/* The process of a thread first seen: its thread group and command from
 * /proc now, while it runs (a cat that exits before the trace ends keeps
 * its name); "?" when it is already gone (its exit event names it). */
static struct tally_proc read_proc(pid_t tid)
{
	struct tally_proc p = { .pid = tid, .comm = "?" };
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%ld/status", (long)tid);
	FILE *in = user_fopen_read(path);
	if (!in)
		return p;
	while (fgets(line, sizeof line, in)) {
		char *end;
		if (strncmp(line, "Name:\t", 6) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(p.comm, sizeof p.comm, "%.15s", line + 6);
		} else if (strncmp(line, "Tgid:", 5) == 0) {
			long tgid = strtol(line + 5, &end, 10);
			if (end != line + 5 && tgid > 0)
				p.pid = (pid_t)tgid;
			break;
		}
	}
	fclose(in);
	int version = 0;
	p.cgroup = memstat_task_cgroup(p.pid, &version);
	return p;
}

static size_t proc_of_tgid(struct tally *t, const struct tally_proc *p)
{
	/* threads of one process share its entry (the last few looked at) */
	for (size_t i = t->nprocs, seen = 0; i-- > 0 && seen < 64; seen++)
		if (t->procs[i].pid == p->pid && strcmp(t->procs[i].comm, p->comm) == 0)
			return i;
	return SIZE_MAX;
}

static struct task *task_slot(struct tally *t, pid_t tid)
{
	size_t mask = t->tasks_cap - 1;
	for (size_t i = ((size_t)tid * 2654435761u) & mask;; i = (i + 1) & mask)
		if (t->tasks[i].tid == tid || t->tasks[i].tid == 0)
			return &t->tasks[i];
}

static void tasks_grow(struct tally *t)
{
	struct task *old = t->tasks;
	size_t old_cap = t->tasks_cap;
	t->tasks_cap *= 2;
	t->tasks = xcalloc(t->tasks_cap, sizeof *t->tasks);
	for (size_t i = 0; i < old_cap; i++)
		if (old[i].tid)
			*task_slot(t, old[i].tid) = old[i];
	free(old);
}

/* The thread's entry, made at its first event; NULL past the limit (or
 * for the idle task, pid 0, whose events no process asked for). */
static struct task *task_of(struct tally *t, pid_t tid)
{
	if (tid <= 0)
		return NULL;
	struct task *k = task_slot(t, tid);
	if (k->tid)
		return k;
	if (t->ntasks >= TALLY_TASKS_MAX)
		return NULL;
	if ((t->ntasks + 1) * 2 > t->tasks_cap) {
		tasks_grow(t);
		k = task_slot(t, tid);
	}
	struct tally_proc p = read_proc(tid);
	size_t proc = proc_of_tgid(t, &p);
	if (proc == SIZE_MAX) {
		XGROW(t->procs, t->procs_cap, t->nprocs + 1);
		proc = t->nprocs++;
		t->procs[proc] = p;
	} else {
		free(p.cgroup);
	}
	*k = (struct task){ .tid = tid, .proc = (uint32_t)proc };
	t->ntasks++;
	return k;
}

static struct tally_file *file_of(struct tally *t, dev_t dev, uint64_t ino)
{
	/* past the limit, only the files already kept */
	if (t->nfiles >= TALLY_FILES_MAX && !devino_has(&t->index, dev, (ino_t)ino))
		return NULL;
	size_t i = devino_put(&t->index, dev, (ino_t)ino, t->nfiles);
	if (i != DEVINO_NEW)
		return &t->files[i];
	XGROW(t->files, t->files_cap, t->nfiles + 1);
	t->files[t->nfiles] = (struct tally_file){ 0 };
	return &t->files[t->nfiles++];
}

/* The chunk of the file's removed pages that holds page index >> 12, made
 * when make (NULL past TALLY_CHUNKS_MAX); the chunks sorted by base. */
static struct chunk *chunk_at(struct tally *t, struct tally_file *f, uint64_t base, bool make)
{
	size_t lo = 0, hi = f->nchunks;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (f->chunks[mid].base < base)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < f->nchunks && f->chunks[lo].base == base)
		return &f->chunks[lo];
	if (!make || t->nchunks >= TALLY_CHUNKS_MAX)
		return NULL;
	XGROW(f->chunks, f->chunks_cap, f->nchunks + 1);
	memmove(f->chunks + lo + 1, f->chunks + lo, (f->nchunks - lo) * sizeof *f->chunks);
	f->chunks[lo] = (struct chunk){ .base = base };
	f->nchunks++;
	t->nchunks++;
	return &f->chunks[lo];
}

/* Pages of [start, end) that this trace saw removed, forgotten as they
 * come back: the refaults. */
static uint64_t take_refaults(struct tally *t, struct tally_file *f, uint64_t start, uint64_t end)
{
	uint64_t found = 0;
	struct chunk *c = NULL;
	for (uint64_t p = start; p < end && f->nchunks; p++) {
		if (!c || c->base != p / CHUNK_PAGES)
			c = chunk_at(t, f, p / CHUNK_PAGES, false);
		if (!c) {
			p = (p / CHUNK_PAGES + 1) * CHUNK_PAGES - 1; /* none in this chunk */
			continue;
		}
		uint64_t *word = &c->bits[(p % CHUNK_PAGES) / 64], bit = 1ull << (p % 64);
		if (*word & bit) {
			*word &= ~bit;
			found++;
		}
	}
	return found;
}

/* [start, end) removed: each page's bit set. */
static void add_gone(struct tally *t, struct tally_file *f, uint64_t start, uint64_t end)
{
	struct chunk *c = NULL;
	for (uint64_t p = start; p < end; p++) {
		if (!c || c->base != p / CHUNK_PAGES)
			c = chunk_at(t, f, p / CHUNK_PAGES, true);
		if (!c) {
			t->untracked += end - p;
			return;
		}
		c->bits[(p % CHUNK_PAGES) / 64] |= 1ull << (p % 64);
	}
}

/* pages credited to proc (index) among the file's side: kept in its slot,
 * or in the emptiest slot's place (whose pages go to the others). */
static void credit(struct tally_file *f, enum tally_side side, uint32_t proc, uint64_t pages)
{
	struct who *w = f->who[side];
	size_t least = 0;
	for (size_t i = 0; i < TALLY_WHO; i++) {
		if (w[i].proc == proc + 1 || w[i].proc == 0) {
			w[i].proc = proc + 1;
			w[i].pages += pages;
			return;
		}
		if (w[i].pages < w[least].pages)
			least = i;
	}
	if (pages <= w[least].pages) {
		f->others[side] |= 1ull << ((proc * 2654435761u) % 64);
		f->others_pages[side] += pages;
		return;
	}
	f->others[side] |= 1ull << (((w[least].proc - 1) * 2654435761u) % 64);
	f->others_pages[side] += w[least].pages;
	w[least] = (struct who){ proc + 1, pages };
}

/* The kernel's threads that free pages for memory of their own accord:
 * kswapd, and DAMON's proactive reclaim (kdamond). */
static bool is_reclaimer(const struct tally *t, const struct task *k)
{
	const char *comm = t->procs[k->proc].comm;
	return strncmp(comm, "kswapd", 6) == 0 || strncmp(comm, "kdamond", 7) == 0;
}

void tally_event(void *ctx, const struct trace_event *ev)
{
	struct tally *t = ctx;
	struct task *k = task_of(t, ev->pid);

	t->events++;
	switch (ev->kind) {
	case TEV_RECLAIM_BEGIN:
		if (k)
			k->reclaim++;
		return;
	case TEV_RECLAIM_END:
		if (k && k->reclaim)
			k->reclaim--;
		return;
	case TEV_EXIT:
		if (k && strcmp(t->procs[k->proc].comm, "?") == 0)
			snprintf(t->procs[k->proc].comm, sizeof t->procs[k->proc].comm, "%s", ev->comm);
		return;
	case TEV_ADD:
	case TEV_DELETE:
		break;
	}
	uint64_t pages = 1ull << (ev->order < 40 ? ev->order : 0);
	struct tally_file *f = file_of(t, ev->dev, ev->ino);
	if (!f) {
		t->untallied += pages;
		return;
	}
	enum tally_side side = ev->kind == TEV_ADD ? TALLY_READERS : TALLY_EVICTORS;
	if (ev->kind == TEV_ADD) {
		f->n.added += pages;
		f->n.refaulted += take_refaults(t, f, ev->index, ev->index + pages);
	} else {
		if (k && (k->reclaim || is_reclaimer(t, k)))
			f->n.reclaimed += pages;
		else
			f->n.dropped += pages;
		add_gone(t, f, ev->index, ev->index + pages);
	}
	if (k) {
		credit(f, side, k->proc, pages);
		if (side == TALLY_READERS)
			t->procs[k->proc].added += pages;
		else
			t->procs[k->proc].removed += pages;
	} else {
		f->others[side] |= 1; /* past the limit of processes: one bit for them all */
		f->others_pages[side] += pages;
	}
}

const struct tally_file *tally_peek(const struct tally *t, dev_t dev, uint64_t ino)
{
	if (!t || !devino_has(&t->index, dev, (ino_t)ino))
		return NULL;
	/* there: devino_put only reads it */
	size_t i = devino_put((struct devino_map *)&t->index, dev, (ino_t)ino, 0);
	return i == DEVINO_NEW || i >= t->nfiles ? NULL : &t->files[i];
}

const struct tally_file *tally_find(const struct tally *t, dev_t dev, uint64_t ino)
{
	const struct tally_file *f = tally_peek(t, dev, ino);
	if (f)
		__atomic_store_n(&((struct tally_file *)f)->seen, 1, __ATOMIC_RELAXED);
	return f;
}

bool tally_seen(const struct tally_file *f)
{
	return __atomic_load_n(&f->seen, __ATOMIC_RELAXED) != 0;
}

struct tally_counts tally_file_counts(const struct tally *t, const struct tally_file *f)
{
	if (!t->per_sample)
		return f->n;
	return (struct tally_counts){
		.added = f->n.added - f->prev.added,
		.reclaimed = f->n.reclaimed - f->prev.reclaimed,
		.dropped = f->n.dropped - f->prev.dropped,
		.refaulted = f->n.refaulted - f->prev.refaulted,
	};
}

void tally_per_sample(struct tally *t)
{
	t->per_sample = true;
}

void tally_next_sample(struct tally *t)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		t->files[i].prev = t->files[i].n;
		t->files[i].seen = 0;
	}
}

const struct tally_proc *tally_who(const struct tally *t, const struct tally_file *f,
				   enum tally_side side, size_t n, uint64_t *pages)
{
	/* the n-th by pages: the slots are few, each ranked by those above it */
	const struct who *w = f->who[side];
	for (size_t i = 0; i < TALLY_WHO; i++) {
		if (!w[i].proc)
			continue;
		size_t above = 0;
		for (size_t j = 0; j < TALLY_WHO; j++)
			above += w[j].proc && (w[j].pages > w[i].pages ||
					       (j < i && w[j].pages == w[i].pages));
		if (above == n) {
			*pages = w[i].pages;
			return &t->procs[w[i].proc - 1];
		}
	}
	return NULL;
}

void tally_who_others(const struct tally_file *f, enum tally_side side, uint64_t *procs,
		      uint64_t *pages)
{
	*procs = (uint64_t)__builtin_popcountll(f->others[side]);
	*pages = f->others_pages[side];
}

struct tally_counts tally_unseen(const struct tally *t, uint64_t *files)
{
	struct tally_counts sum = { 0 };
	*files = 0;
	for (size_t i = 0; i < t->nfiles; i++) {
		const struct tally_file *f = &t->files[i];
		if (__atomic_load_n(&f->seen, __ATOMIC_RELAXED))
			continue;
		struct tally_counts n = tally_file_counts(t, f);
		if (!n.added && !n.reclaimed && !n.dropped)
			continue; /* nothing in this sample */
		(*files)++;
		sum.added += n.added;
		sum.reclaimed += n.reclaimed;
		sum.dropped += n.dropped;
		sum.refaulted += n.refaulted;
	}
	return sum;
}

void tally_limits_hit(const struct tally *t, uint64_t *untallied_pages, uint64_t *untracked_pages)
{
	*untallied_pages = t->untallied;
	*untracked_pages = t->untracked;
}

uint64_t tally_events(const struct tally *t)
{
	return t->events;
}
