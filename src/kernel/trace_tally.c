/* SPDX-License-Identifier: MIT */
/* --trace's figures: each event to its file and its process.  A removal
 * is "reclaimed" when the kernel freed the page for memory (kswapd, or a
 * task between a vmscan reclaim begin and end), else "dropped" (fadvise,
 * truncate, unlink, an evict); an addition of pages this trace saw
 * removed is a refault, told by the removed pages kept per file: a bit a
 * page, in chunks of 4096 pages made where pages were removed. */
#include <config.h>

#include "kernel/trace_tally.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

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
	dev_t dev;
	uint64_t ino;
	char *name; /* --by: its path, as the walk found it, or NULL */
	struct tally_counts n;
	struct tally_counts prev; /* -i: n at the previous sample */
	struct who who[2][TALLY_WHO];
	/* past the kept: how many processes and their pages (tally_settle);
	 * unattributed: pages of no process kept (past the limits) */
	uint64_t others[2], others_pages[2], unattributed[2];
	struct chunk *chunks; /* pages removed and not added again, by stretch */
	size_t nchunks, chunks_cap;
	int seen; /* tally_find found it (atomic: -j's threads ask) */
};

/* A thread seen: its process and whether it is in reclaim now. */
#define UNNAMED UINT32_MAX
struct task {
	pid_t tid;
	uint32_t proc; /* index in procs, or UNNAMED before it moved a page */
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
	uint64_t nmoved, unmoved; /* (process, file) pairs kept, and pages of those past the limit */
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
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].chunks);
		free(t->files[i].name);
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		free(t->procs[i].cgroup);
		free(t->procs[i].moved);
	}
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

/* The thread's entry (made when make), NULL past the limit or for the
 * idle task, pid 0, whose events no process asked for. */
static struct task *task_of(struct tally *t, pid_t tid, bool make)
{
	if (tid <= 0)
		return NULL;
	struct task *k = task_slot(t, tid);
	if (k->tid)
		return k;
	if (!make || t->ntasks >= TALLY_TASKS_MAX)
		return NULL;
	if ((t->ntasks + 1) * 2 > t->tasks_cap) {
		tasks_grow(t);
		k = task_slot(t, tid);
	}
	*k = (struct task){ .tid = tid, .proc = UNNAMED };
	t->ntasks++;
	return k;
}

/* Its process, named at the first page it moves (/proc, now). */
static struct tally_proc *proc_of(struct tally *t, struct task *k)
{
	if (k->proc == UNNAMED) {
		struct tally_proc p = read_proc(k->tid);
		size_t proc = proc_of_tgid(t, &p);
		if (proc == SIZE_MAX) {
			XGROW(t->procs, t->procs_cap, t->nprocs + 1);
			proc = t->nprocs++;
			t->procs[proc] = p;
		} else {
			free(p.cgroup);
		}
		k->proc = (uint32_t)proc;
	}
	return &t->procs[k->proc];
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
	t->files[t->nfiles] = (struct tally_file){ .dev = dev, .ino = ino };
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

/* The slot of file (index + 1) in a process's map of files moved. */
static struct tally_moved *moved_slot(struct tally_moved *slots, size_t cap, uint32_t file)
{
	size_t mask = cap - 1;
	for (size_t i = ((size_t)file * 2654435761u) & mask;; i = (i + 1) & mask)
		if (slots[i].file == file || slots[i].file == 0)
			return &slots[i];
}

/* --by: what the process did to pages of file (index). */
static void add_counts(struct tally_counts *into, const struct tally_counts *d);
static bool credit_proc(struct tally *t, struct tally_proc *p, size_t file,
			const struct tally_counts *d)
{
	uint32_t key = (uint32_t)file + 1;
	if (p->moved_cap) {
		struct tally_moved *m = moved_slot(p->moved, p->moved_cap, key);
		if (m->file == key) {
			add_counts(&m->n, d);
			return true;
		}
	}
	if (t->nmoved >= TALLY_MOVED_MAX) {
		t->unmoved += d->added + d->reclaimed + d->dropped;
		return false;
	}
	if ((p->nmoved + 1) * 2 > p->moved_cap) {
		size_t cap = p->moved_cap ? p->moved_cap * 2 : 8;
		struct tally_moved *slots = xcalloc(cap, sizeof *slots);
		for (size_t i = 0; i < p->moved_cap; i++)
			if (p->moved[i].file)
				*moved_slot(slots, cap, p->moved[i].file) = p->moved[i];
		free(p->moved);
		p->moved = slots;
		p->moved_cap = cap;
	}
	*moved_slot(p->moved, p->moved_cap, key) = (struct tally_moved){ .file = key, .n = *d };
	p->nmoved++;
	t->nmoved++;
	return true;
}

/* The kernel's threads that free pages for memory of their own accord:
 * kswapd, and DAMON's proactive reclaim (kdamond). */
static bool is_reclaimer(const struct tally *t, const struct task *k)
{
	const char *comm = t->procs[k->proc].comm;
	return strncmp(comm, "kswapd", 6) == 0 || strncmp(comm, "kdamond", 7) == 0;
}

static void add_counts(struct tally_counts *into, const struct tally_counts *d)
{
	into->added += d->added;
	into->reclaimed += d->reclaimed;
	into->dropped += d->dropped;
	into->refaulted += d->refaulted;
}

void tally_event(void *ctx, const struct trace_event *ev)
{
	struct tally *t = ctx;
	struct task *k = task_of(t, ev->pid, ev->kind != TEV_RECLAIM_END && ev->kind != TEV_EXIT);

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
		/* named by its exit when /proc no longer knew it; its pid may be
		 * used again: a later task of it is another */
		if (k && k->proc != UNNAMED && strcmp(t->procs[k->proc].comm, "?") == 0)
			snprintf(t->procs[k->proc].comm, sizeof t->procs[k->proc].comm, "%s", ev->comm);
		if (k) {
			k->proc = UNNAMED;
			k->reclaim = 0;
		}
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
	struct tally_proc *p = k ? proc_of(t, k) : NULL; /* named at its first page */
	struct tally_counts d = { 0 };
	if (ev->kind == TEV_ADD) {
		d.added = pages;
		d.refaulted = take_refaults(t, f, ev->index, ev->index + pages);
	} else {
		if (k && (k->reclaim || is_reclaimer(t, k)))
			d.reclaimed = pages;
		else
			d.dropped = pages;
		add_gone(t, f, ev->index, ev->index + pages);
	}
	add_counts(&f->n, &d);
	if (p)
		add_counts(&p->n, &d);
	if (!p || !credit_proc(t, p, (size_t)(f - t->files), &d))
		f->unattributed[side] += pages;
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
	const struct who *w = &f->who[side][n];
	if (n >= TALLY_WHO || !w->proc)
		return NULL;
	*pages = w->pages;
	return &t->procs[w->proc - 1];
}

/* proc (index) with pages among the file's side: in the sorted slots, or
 * among the others. */
static void rank_who(struct tally_file *f, enum tally_side side, size_t proc, uint64_t pages)
{
	struct who *w = f->who[side];
	size_t at = TALLY_WHO;
	while (at > 0 && (!w[at - 1].proc || w[at - 1].pages < pages))
		at--;
	if (at == TALLY_WHO) {
		f->others[side]++;
		f->others_pages[side] += pages;
		return;
	}
	if (w[TALLY_WHO - 1].proc) {
		f->others[side]++;
		f->others_pages[side] += w[TALLY_WHO - 1].pages;
	}
	memmove(&w[at + 1], &w[at], (TALLY_WHO - 1 - at) * sizeof *w);
	w[at] = (struct who){ (uint32_t)proc + 1, pages };
}

void tally_settle(struct tally *t)
{
	for (size_t i = 0; i < t->nfiles; i++) {
		struct tally_file *f = &t->files[i];
		memset(f->who, 0, sizeof f->who);
		for (int side = 0; side < 2; side++) {
			/* pages no process was kept for count as one more */
			f->others[side] = f->unattributed[side] != 0;
			f->others_pages[side] = f->unattributed[side];
		}
	}
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tally_proc *p = &t->procs[i];
		for (size_t k = 0; k < p->moved_cap; k++) {
			const struct tally_moved *m = &p->moved[k];
			if (!m->file)
				continue;
			struct tally_file *f = &t->files[m->file - 1];
			if (m->n.added)
				rank_who(f, TALLY_READERS, i, m->n.added);
			if (m->n.reclaimed + m->n.dropped)
				rank_who(f, TALLY_EVICTORS, i, m->n.reclaimed + m->n.dropped);
		}
	}
}

void tally_who_others(const struct tally_file *f, enum tally_side side, uint64_t *procs,
		      uint64_t *pages)
{
	*procs = f->others[side];
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

void tally_limits_hit(const struct tally *t, uint64_t *untallied_pages, uint64_t *untracked_pages,
		      uint64_t *unattributed_pages)
{
	*unattributed_pages = t->unmoved;
	*untallied_pages = t->untallied;
	*untracked_pages = t->untracked;
}

uint64_t tally_events(const struct tally *t)
{
	return t->events;
}

/* ---- --by: rows per process or per cgroup ------------------------------ */

void tally_name(struct tally *t, dev_t dev, uint64_t ino, const char *path, size_t len)
{
	struct tally_file *f = (struct tally_file *)tally_peek(t, dev, ino);
	if (f && !f->name) {
		f->name = xcalloc(1, len + 1);
		memcpy(f->name, path, len);
	}
}

const char *tally_file_name(const struct tally *t, uint32_t file, char *buf, size_t size)
{
	const struct tally_file *f = &t->files[file - 1];
	if (f->name)
		return f->name;
	snprintf(buf, size, "(device %u:%u, inode %" PRIu64 ")", major(f->dev), minor(f->dev),
		 f->ino);
	return buf;
}

/* A group's files: the processes' maps summed into one (open addressing). */
struct merged {
	struct tally_moved *slots;
	size_t cap, n;
};

static void merge(struct merged *m, const struct tally *t, const struct tally_proc *p,
		  bool named_only)
{
	for (size_t i = 0; i < p->moved_cap; i++) {
		if (!p->moved[i].file || (named_only && !t->files[p->moved[i].file - 1].name))
			continue;
		if ((m->n + 1) * 2 > m->cap) {
			size_t cap = m->cap ? m->cap * 2 : 16;
			struct tally_moved *slots = xcalloc(cap, sizeof *slots);
			for (size_t k = 0; k < m->cap; k++)
				if (m->slots[k].file)
					*moved_slot(slots, cap, m->slots[k].file) = m->slots[k];
			free(m->slots);
			m->slots = slots;
			m->cap = cap;
		}
		struct tally_moved *s = moved_slot(m->slots, m->cap, p->moved[i].file);
		m->n += s->file == 0;
		s->file = p->moved[i].file;
		add_counts(&s->n, &p->moved[i].n);
	}
}

/* The group's files counted, the most moved kept, the rest summed. */
static void finish(struct tally_group *g, struct merged *m)
{
	g->files = m->n;
	g->n = (struct tally_counts){ 0 };
	for (size_t i = 0; i < m->cap; i++) {
		struct tally_moved mv = m->slots[i];
		if (!mv.file)
			continue;
		add_counts(&g->n, &mv.n);
		mv.pages = mv.n.added + mv.n.reclaimed + mv.n.dropped;
		size_t at = g->ntop;
		while (at > 0 && g->top[at - 1].pages < mv.pages)
			at--;
		if (at == TALLY_WHO) {
			g->others++;
			g->others_pages += mv.pages;
			continue;
		}
		if (g->ntop == TALLY_WHO) {
			g->others++;
			g->others_pages += g->top[TALLY_WHO - 1].pages;
		} else {
			g->ntop++;
		}
		memmove(&g->top[at + 1], &g->top[at], (g->ntop - 1 - at) * sizeof g->top[0]);
		g->top[at] = mv;
	}
	free(m->slots);
	*m = (struct merged){ 0 };
}

static int by_motion(const void *a, const void *b)
{
	const struct tally_group *x = a, *y = b;
	uint64_t mx = x->n.added + x->n.reclaimed + x->n.dropped;
	uint64_t my = y->n.added + y->n.reclaimed + y->n.dropped;
	return mx < my ? 1 : mx > my ? -1 : strcmp(x->name, y->name);
}

size_t tally_groups(const struct tally *t, bool by_cgroup, bool named_only,
		    struct tally_group **groups)
{
	struct tally_group *g = xcalloc(t->nprocs ? t->nprocs : 1, sizeof *g);
	size_t *group_of = xcalloc(t->nprocs ? t->nprocs : 1, sizeof *group_of);
	size_t n = 0;
	for (size_t i = 0; i < t->nprocs; i++) {
		const struct tally_proc *p = &t->procs[i];
		const char *key = p->cgroup ? p->cgroup : "(unknown)";
		size_t at = n;
		if (by_cgroup)
			for (at = 0; at < n && strcmp(g[at].name, key) != 0; at++)
				;
		if (at == n) {
			char name[64];
			snprintf(name, sizeof name, "%s[%ld]", p->comm, (long)p->pid);
			g[n++].name = xstrdup(by_cgroup ? key : name);
		}
		group_of[i] = at;
	}
	/* each group's files (its processes' together), and its figures of them */
	size_t kept = 0;
	for (size_t k = 0; k < n; k++) {
		struct merged m = { 0 };
		for (size_t i = 0; i < t->nprocs; i++)
			if (group_of[i] == k)
				merge(&m, t, &t->procs[i], named_only);
		finish(&g[k], &m);
		if (g[k].files)
			g[kept++] = g[k];
		else
			free(g[k].name);
	}
	free(group_of);
	qsort(g, kept, sizeof *g, by_motion);
	*groups = g;
	return kept;
}

void tally_groups_free(struct tally_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(groups[i].name);
	free(groups);
}

uint64_t tally_files_moved(const struct tally *t, bool named_only)
{
	uint64_t n = 0;
	for (size_t i = 0; i < t->nfiles; i++)
		n += !named_only || t->files[i].name;
	return n;
}
