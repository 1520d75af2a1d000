/* SPDX-License-Identifier: MIT */
/* Workers (-j): threads probe the files the walk finds, results in walk order. */
#include <config.h>

#include "walk/jobs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kernel/caps.h"
#include "kernel/charge.h"
#include "walk/tree.h"
#include "lib/xalloc.h"

/*
 * The walk's thread puts events into a ring, in walk order, and publishes
 * them a batch at a time; a worker claims a batch of published slots with
 * one compare-and-swap, then takes each file of it (another one, so that
 * the walk can take a file itself), probes it and marks it done.  The
 * walk's thread applies the done slots at the head, strictly in order,
 * between tree_read calls: rows, totals and messages come out as with one
 * job.  When the ring is full it probes files itself: the head's first,
 * so that a worker the scheduler stopped holds back no more than the
 * file it is on.
 *
 * A file is opened relative to a descriptor of its directory taken when
 * the walk met it (the walk's own is closed when it leaves the
 * directory), held until its slot is applied.
 *
 * Threads that share a descriptor table make every open and close take
 * its lock, and every call on a descriptor count a reference on the
 * file: cache lines passed between processors, for each file.  So a
 * worker has a table of its own (unshare(CLONE_FILES)) and takes the
 * directory's descriptor from the walk's table with pidfd_getfd(2), which
 * reaches the table of the process's first thread: the walk's, when it
 * is that thread.  Where it is not, or pidfd_getfd cannot be had, the
 * workers share the walk's table and open by its descriptors.  For the
 * same reason each worker has credentials of its own (caps_thread_own):
 * every open file holds a reference on its opener's.
 */

/*
 * Out of descriptors (ulimit -n), a file that -j 1 measures must not fail
 * with more threads, nor the other way: the walk's thread would hold the
 * workers' directories besides its own, and a worker's table has other
 * descriptors than the walk's.  So the workers start only where every
 * descriptor the walk may still take, with them as without, can be had:
 * what comes out is then the same as -j 1's, where no file fails for want
 * of one; elsewhere the walk is left alone, as with -j 1.
 */

/* A probe's at once: safe_open's /proc/thread-self/fd, the file, an
 * overlay's backing file (its O_PATH descriptor while it is reopened) and
 * the mount table, or an action's reopening (the same two). */
#define PROBE_FDS 6
/* Beyond the tree's and a probe's, what a run may open while it walks
 * (the Prometheus spool, the locale's files). */
#define SPARE_FDS 16

/* Slots in the ring, and at most this many bytes of -S segments in it. */
#define RING_SLOTS 1024
#define RING_SEGMENT_BYTES ((size_t)8 << 20)
#define BATCH_MAX 64
/* Directory descriptors held at once; beyond, the walk waits for slots. */
#define DIRS_OPEN_MAX 64

struct jobs_dir {
	int fd;
	unsigned refs; /* the walk's (while "." is it) and its slots': walk thread only */
	unsigned long serial; /* tells it from a later one at the same address */
};

/* A worker's own descriptor of the directory it probes in: opening by
 * the walk's would make every open take and drop a reference that all
 * workers share, a cache line bouncing between processors. */
struct worker_dir {
	unsigned long serial; /* of the jobs_dir it opens, or 0 */
	int fd;
	bool own_table; /* the worker's descriptors are not the walk's */
};

struct slot {
	struct walk_event ev;
	char *text; /* path, then the name to open; kept from use to use */
	size_t text_cap;
	struct probe_out out; /* what was measured, kept from use to use */
	struct probe_detail detail;
	struct jobs_dir *dir; /* an EV_FILE to probe: where its name is */
	/* the slot's index in the ring's sequence, times 4, plus SLOT_*: a
	 * worker that claimed it long ago cannot take its next use */
	atomic_uint_fast64_t state;
};

enum { SLOT_READY, SLOT_TAKEN, SLOT_DONE };

static uint_fast64_t slot_state(size_t index, unsigned what)
{
	return (uint_fast64_t)index << 2 | what;
}

/* The padding is wanted: each shared counter on a cache line of its own. */
/* NOLINTNEXTLINE(clang-analyzer-optin.performance.Padding) */
struct jobs {
	struct jobs_config cfg;
	struct slot *slots;
	size_t mask;  /* slots - 1, slots a power of two */
	size_t batch; /* events per publication and per claim */

	/* the walk's thread only */
	size_t head; /* next to apply */
	size_t tail; /* next to fill */
	size_t shown; /* published, as last stored */
	struct jobs_dir *cwd; /* "." since the last directory event, or NULL */
	unsigned dirs_open;
	unsigned long dirs_made;

	/* shared; apart, as each has its own writers */
	_Alignas(64) atomic_size_t published; /* slots [0, published) are filled */
	_Alignas(64) atomic_size_t claimed;   /* slots [0, claimed) are taken */
	_Alignas(64) atomic_int sleeping;     /* workers waiting for work */
	atomic_int walker_waiting;            /* the walk waits for a slot */
	atomic_bool finish;
	pthread_mutex_t lock;
	pthread_cond_t work; /* slots published, or finish */
	pthread_cond_t done; /* a slot is done */

	/* the walk's process, for pidfd_getfd; -1: the workers share its
	 * descriptor table */
	int pidfd;

	pthread_t *threads;
	unsigned nthreads;
};

static struct slot *slot_at(const struct jobs *jobs, size_t index)
{
	return &jobs->slots[index & jobs->mask];
}

/* Takes a batch of published slots: true with [*first, *first + *count). */
static bool claim(struct jobs *jobs, size_t *first, size_t *count)
{
	size_t from = atomic_load_explicit(&jobs->claimed, memory_order_relaxed);
	for (;;) {
		size_t end = atomic_load_explicit(&jobs->published, memory_order_acquire);
		if (from >= end)
			return false;
		size_t n = end - from < jobs->batch ? end - from : jobs->batch;
		if (atomic_compare_exchange_weak_explicit(&jobs->claimed, &from, from + n,
							  memory_order_acquire,
							  memory_order_relaxed)) {
			*first = from;
			*count = n;
			return true;
		}
	}
}

static int get_walk_fd(int pidfd, int fd)
{
#ifdef SYS_pidfd_getfd
	return (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
#else
	(void)pidfd;
	(void)fd;
	errno = ENOSYS;
	return -1;
#endif
}

/* The descriptor a worker (own not NULL) or the walk opens s's file by;
 * -1 when a worker with a table of its own could not have it. */
static int dir_fd(const struct jobs *jobs, const struct slot *s, struct worker_dir *own)
{
	if (!own)
		return s->dir->fd;
	if (own->serial != s->dir->serial) {
		if (own->serial)
			close(own->fd);
		own->fd = own->own_table
				  ? get_walk_fd(jobs->pidfd, s->dir->fd)
				  : openat(s->dir->fd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
		own->serial = own->fd < 0 ? 0 : s->dir->serial;
	}
	if (own->serial)
		return own->fd;
	return own->own_table ? -1 : s->dir->fd;
}

/* Inspects s's file, opened relative to dirfd, with the inspector of
 * the thread that took it; what comes out stays in the slot. */
static void inspect_slot(const struct jobs *jobs, struct slot *s, int dirfd,
			 struct inspector *ins)
{
	struct walk_event *ev = &s->ev;
	struct file_ref ref = ev->ref;

	ref.dirfd = dirfd;
	ev->err = inspect_at(ins, &ref, jobs->cfg.req, ev->out);
	ev->ref.id = ref.id;
}

/* False when the worker could not reach the file's directory: the walk's
 * thread then probes it.  own: a worker's (ins its own); NULL: the
 * walk's thread. */
static bool probe_slot(const struct jobs *jobs, struct slot *s, struct worker_dir *own,
		       struct inspector *ins)
{
	int dirfd = dir_fd(jobs, s, own);
	if (dirfd < 0)
		return false;
	inspect_slot(jobs, s, dirfd, ins);
	/* out of descriptors in a table of its own (a limit lowered since
	 * the start, prlimit(1)): the walk's thread tries in its own */
	return !(own && own->own_table && s->ev.err == EMFILE);
}

/* Takes slot index to probe its file: false when it is done already or
 * another thread took it. */
static bool take(struct slot *s, size_t index)
{
	uint_fast64_t ready = slot_state(index, SLOT_READY);
	return atomic_compare_exchange_strong(&s->state, &ready, slot_state(index, SLOT_TAKEN));
}

static bool is_done(struct slot *s, size_t index)
{
	return atomic_load_explicit(&s->state, memory_order_acquire) ==
	       slot_state(index, SLOT_DONE);
}

static bool is_taken(struct slot *s, size_t index)
{
	return atomic_load_explicit(&s->state, memory_order_acquire) ==
	       slot_state(index, SLOT_TAKEN);
}

/* Probes the files of a claimed batch that no other thread took. */
static void run_batch(struct jobs *jobs, size_t first, size_t count, struct worker_dir *own,
		      struct inspector *ins)
{
	for (size_t i = first; i < first + count; i++) {
		struct slot *s = slot_at(jobs, i);
		if (!take(s, i))
			continue;
		/* the last touch of the slot: the walk may reuse it next (or,
		 * given back, probe it itself) */
		bool probed = probe_slot(jobs, s, own, ins);
		atomic_store(&s->state, slot_state(i, probed ? SLOT_DONE : SLOT_READY));
		if (atomic_load(&jobs->walker_waiting)) {
			pthread_mutex_lock(&jobs->lock);
			pthread_cond_signal(&jobs->done);
			pthread_mutex_unlock(&jobs->lock);
		}
	}
}

/* False when the work is over. */
static bool wait_for_work(struct jobs *jobs)
{
	bool over;

	pthread_mutex_lock(&jobs->lock);
	atomic_fetch_add(&jobs->sleeping, 1);
	while (!(over = atomic_load(&jobs->finish)) &&
	       atomic_load(&jobs->claimed) >= atomic_load(&jobs->published))
		pthread_cond_wait(&jobs->work, &jobs->lock);
	atomic_fetch_sub(&jobs->sleeping, 1);
	pthread_mutex_unlock(&jobs->lock);
	/* published slots are claimed before the end: finish comes after a drain */
	return !over;
}

/* A descriptor table of the worker's own, holding none of the walk's
 * descriptors but the pidfd and --charged's (what the walk closes is
 * closed): false
 * when it cannot be had. */
static bool own_table(const struct jobs *jobs)
{
	if (unshare(CLONE_FILES) != 0)
		return false;
	/* the standard streams stay: a copy of them holds nothing open;
	 * so do the pidfd and --charged's two files (read by pread from
	 * every thread: src/kernel/charge.h) */
	const struct charge *charge = jobs->cfg.ins->prober.setup->charge;
	int keep[3] = { jobs->pidfd, charge ? charge->pagemap_fd : -1,
			charge ? charge->kpagecgroup_fd : -1 };
	for (int i = 1; i < 3; i++) /* sorted */
		for (int j = i; j > 0 && keep[j] < keep[j - 1]; j--) {
			int t = keep[j];
			keep[j] = keep[j - 1];
			keep[j - 1] = t;
		}
	unsigned from = 3;
	for (int i = 0; i < 3; i++) {
		if (keep[i] < (int)from)
			continue;
		if ((unsigned)keep[i] > from)
			(void)close_range(from, (unsigned)keep[i] - 1, 0);
		from = (unsigned)keep[i] + 1;
	}
	(void)close_range(from, ~0U, 0);
	return true;
}

static void *worker(void *arg)
{
	struct jobs *jobs = arg;
	struct worker_dir own = { 0, -1, jobs->pidfd >= 0 };
	struct inspector ins;
	size_t first, count;

	/* the descriptors it takes were not counted in the walk's table
	 * (workers_that_fit): the others do its share */
	if (own.own_table && !own_table(jobs))
		return NULL;
	(void)caps_thread_own(); /* failed: shared, as before, slower */

	/* its own, opening in its own descriptor table */
	inspector_init_like(&ins, jobs->cfg.ins);
	do {
		while (claim(jobs, &first, &count))
			run_batch(jobs, first, count, &own, &ins);
	} while (wait_for_work(jobs));
	if (own.serial)
		close(own.fd);
	inspector_free(&ins);
	return NULL;
}

static void publish(struct jobs *jobs)
{
	if (jobs->shown == jobs->tail)
		return;
	jobs->shown = jobs->tail;
	atomic_store(&jobs->published, jobs->tail);
	if (atomic_load(&jobs->sleeping)) {
		pthread_mutex_lock(&jobs->lock);
		pthread_cond_signal(&jobs->work);
		pthread_mutex_unlock(&jobs->lock);
	}
}

static void dir_release(struct jobs *jobs, struct jobs_dir *dir)
{
	if (dir && --dir->refs == 0) {
		close(dir->fd);
		free(dir);
		jobs->dirs_open--;
	}
}

/* Applies the done slots at the head, in order. */
static void apply_ready(struct jobs *jobs)
{
	while (jobs->head < jobs->shown) {
		struct slot *s = slot_at(jobs, jobs->head);
		if (!is_done(s, jobs->head))
			break;
		jobs->cfg.apply(jobs->cfg.ctx, &s->ev);
		dir_release(jobs, s->dir);
		s->dir = NULL;
		jobs->head++;
	}
}

/* Applies the head slot: probes it, or other files meanwhile, or sleeps. */
static void apply_head(struct jobs *jobs)
{
	size_t head = jobs->head, first, count;
	struct slot *s = slot_at(jobs, head);

	publish(jobs);
	while (!is_done(s, head)) {
		if (take(s, head)) {
			probe_slot(jobs, s, NULL, jobs->cfg.ins);
			atomic_store(&s->state, slot_state(head, SLOT_DONE));
			break;
		}
		if (claim(jobs, &first, &count)) {
			run_batch(jobs, first, count, NULL, jobs->cfg.ins);
			continue;
		}
		/* a worker is probing it (or gives it back) */
		pthread_mutex_lock(&jobs->lock);
		atomic_store(&jobs->walker_waiting, 1);
		while (is_taken(s, head))
			pthread_cond_wait(&jobs->done, &jobs->lock);
		atomic_store(&jobs->walker_waiting, 0);
		pthread_mutex_unlock(&jobs->lock);
	}
	apply_ready(jobs);
}

/* The directory of ev's file, held for the files met there until the
 * next directory event; NULL when it cannot be had. */
static struct jobs_dir *cwd_dir(struct jobs *jobs, const struct walk_event *ev)
{
	if (jobs->cwd)
		return jobs->cwd;
	while (jobs->dirs_open >= DIRS_OPEN_MAX && jobs->head < jobs->tail)
		apply_head(jobs);
	int fd = openat(ev->ref.dirfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	jobs->cwd = xcalloc(1, sizeof *jobs->cwd);
	jobs->cwd->fd = fd;
	jobs->cwd->refs = 1;
	jobs->cwd->serial = ++jobs->dirs_made;
	jobs->dirs_open++;
	return jobs->cwd;
}

/* Copies the path and the name to open into the slot's own text. */
static void copy_text(struct slot *s, const struct walk_event *ev)
{
	const char *name = ev->kind == EV_FILE ? ev->ref.name : NULL;
	size_t acc_len = name ? strlen(name) : 0;
	size_t need = ev->path_len + 1 + acc_len + 1;
	XGROW(s->text, s->text_cap, need);
	memcpy(s->text, ev->path, ev->path_len);
	s->text[ev->path_len] = '\0';
	s->ev.path = s->text;
	if (name) {
		char *acc = s->text + ev->path_len + 1;
		memcpy(acc, name, acc_len + 1);
		s->ev.ref.name = acc;
	}
}

void jobs_submit(struct jobs *jobs, const struct walk_event *ev)
{
	struct jobs_dir *dir = NULL;

	if (ev->kind == EV_FILE) {
		dir = cwd_dir(jobs, ev);
	} else if (jobs->cwd) {
		/* a directory event: the next file may be in another directory */
		dir_release(jobs, jobs->cwd);
		jobs->cwd = NULL;
	}
	if (jobs->tail - jobs->head > jobs->mask)
		apply_head(jobs);

	struct slot *s = slot_at(jobs, jobs->tail);
	s->ev = *ev;
	copy_text(s, ev);
	if (ev->kind == EV_FILE) {
		s->ev.out = &s->out;
		s->out.detail = ev->want_detail ? &s->detail : NULL;
		if (dir) {
			dir->refs++;
		} else {
			/* no descriptor of "." (out of them): probe it here, now */
			inspect_slot(jobs, s, ev->ref.dirfd, jobs->cfg.ins);
		}
	}
	s->dir = dir;
	/* published later, by the store of published */
	atomic_store_explicit(&s->state, slot_state(jobs->tail, dir ? SLOT_READY : SLOT_DONE),
			      memory_order_relaxed);
	jobs->tail++;

	if (jobs->tail - jobs->shown >= jobs->batch)
		publish(jobs);
	apply_ready(jobs);
}

/* Applies every event handed over, waiting for the workers. */
static void drain(struct jobs *jobs)
{
	while (jobs->head < jobs->tail)
		apply_head(jobs);
}

static size_t ring_slots(const struct jobs_config *cfg)
{
	size_t slots = RING_SLOTS;
	while (slots > 16 &&
	       slots * cfg->req->measure.segments * sizeof(struct segment) > RING_SEGMENT_BYTES)
		slots /= 2;
	return slots;
}

static void jobs_free(struct jobs *jobs)
{
	for (size_t i = 0; i <= jobs->mask; i++) {
		free(jobs->slots[i].text);
		probe_out_free(&jobs->slots[i].out);
		probe_detail_free(&jobs->slots[i].detail);
	}
	free(jobs->slots);
	free(jobs->threads);
	if (jobs->pidfd >= 0)
		close(jobs->pidfd);
	pthread_mutex_destroy(&jobs->lock);
	pthread_cond_destroy(&jobs->work);
	pthread_cond_destroy(&jobs->done);
	free(jobs);
}

/* Ends the threads started so far. */
static void join_all(struct jobs *jobs)
{
	pthread_mutex_lock(&jobs->lock);
	atomic_store(&jobs->finish, true);
	pthread_cond_broadcast(&jobs->work);
	pthread_mutex_unlock(&jobs->lock);
	for (unsigned i = 0; i < jobs->nthreads; i++)
		pthread_join(jobs->threads[i], NULL);
}

unsigned jobs_auto_workers(const struct file_request *req)
{
	cpu_set_t cpus;

	if (req->action == ACTION_WARM || sched_getaffinity(0, sizeof cpus, &cpus) != 0)
		return 0;
	int workers = CPU_COUNT(&cpus) - 1;
	if (workers < 1)
		return 0;
	return workers < JOBS_AUTO_MAX ? (unsigned)workers : JOBS_AUTO_MAX;
}

/* The walk's process as a pidfd from which a worker can take the walk's
 * descriptors (tried once here), or -1. */
static int walk_pidfd(void)
{
#if defined SYS_pidfd_open && defined SYS_pidfd_getfd
	if (gettid() != getpid())
		return -1; /* pidfd_getfd would reach another thread's table */
	int pidfd = (int)syscall(SYS_pidfd_open, getpid(), 0);
	if (pidfd < 0)
		return -1;
	int fd = get_walk_fd(pidfd, pidfd);
	if (fd < 0) {
		close(pidfd);
		return -1;
	}
	close(fd);
	return pidfd;
#else
	return -1;
#endif
}

/* How many of the workers wanted fit in the descriptor limit: 0 when
 * the descriptors that the walk's thread may yet take, its own and the
 * workers' directories (and, in a table they share, the workers'), are
 * not all free now.  Counted by taking them. */
static unsigned workers_that_fit(unsigned wanted, bool own_tables)
{
	size_t walk = TREE_FDS_MAX + PROBE_FDS + SPARE_FDS + DIRS_OPEN_MAX;
	size_t each = own_tables ? 0 : 1 + PROBE_FDS; /* its directory and a probe's */
	size_t most = walk + wanted * each;
	int *fds = xcalloc(most, sizeof *fds);
	size_t got = 0;

	while (got < most && (fds[got] = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0)) >= 0)
		got++;
	for (size_t i = 0; i < got; i++)
		close(fds[i]);
	free(fds);
	if (got < walk)
		return 0;
	return each ? (unsigned)((got - walk) / each) : wanted;
}

struct jobs *jobs_start(const struct jobs_config *cfg)
{
	struct jobs *jobs = xcalloc(1, sizeof *jobs);
	size_t slots = ring_slots(cfg);

	jobs->cfg = *cfg;
	jobs->slots = xcalloc(slots, sizeof *jobs->slots);
	jobs->mask = slots - 1;
	jobs->batch = slots / 8 < BATCH_MAX ? slots / 8 : BATCH_MAX;
	pthread_mutex_init(&jobs->lock, NULL);
	pthread_cond_init(&jobs->work, NULL);
	pthread_cond_init(&jobs->done, NULL);
	jobs->pidfd = walk_pidfd();
	unsigned workers = workers_that_fit(cfg->workers, jobs->pidfd >= 0);

	jobs->threads = xcalloc(cfg->workers, sizeof *jobs->threads);
	for (unsigned i = 0; i < workers; i++) {
		if (pthread_create(&jobs->threads[i], NULL, worker, jobs) != 0)
			break;
		jobs->nthreads++;
	}
	if (jobs->nthreads == 0) {
		jobs_free(jobs);
		return NULL;
	}
	return jobs;
}

void jobs_stop(struct jobs *jobs)
{
	drain(jobs);
	dir_release(jobs, jobs->cwd);
	jobs->cwd = NULL;
	join_all(jobs);
	jobs_free(jobs);
}
