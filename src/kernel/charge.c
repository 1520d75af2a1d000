/* SPDX-License-Identifier: MIT */
/* --charged: which resident pages of a file a memory cgroup is charged
 * for.  The kernel tells a page's memory cgroup by its physical frame
 * (/proc/kpagecgroup, the inode of the cgroup's directory), and the frame
 * of a page only where this process maps it (/proc/self/pagemap): so each
 * chunk of the range is mapped, its resident runs faulted in, their frames
 * read, and the chunk unmapped. */
#include <config.h>

#include "kernel/charge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/xalloc.h"

#define CHUNK_BYTES ((uint64_t)64 << 20)
#define PM_PRESENT ((uint64_t)1 << 63)
#define PM_PFN_MASK (((uint64_t)1 << 55) - 1)
#define CGROUP_DEPTH 64

static void add_inode(struct charge *c, size_t *cap, uint64_t ino)
{
	if (c->ninodes == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		c->inodes = xrealloc(c->inodes, *cap * sizeof *c->inodes);
	}
	c->inodes[c->ninodes++] = ino;
}

/* The inodes of the directory dirfd and of every directory below it. */
static int collect(struct charge *c, size_t *cap, int dirfd, int depth)
{
	struct stat st;
	if (fstat(dirfd, &st) != 0)
		return errno;
	add_inode(c, cap, (uint64_t)st.st_ino);
	if (depth >= CGROUP_DEPTH)
		return 0;
	int dupfd = dup(dirfd);
	DIR *dir = dupfd >= 0 ? fdopendir(dupfd) : NULL;
	if (!dir) {
		int err = errno;
		if (dupfd >= 0)
			close(dupfd);
		return err;
	}
	struct dirent *e;
	int err = 0;
	/* one thread reads this stream (readdir_r is deprecated) */
	// cppcheck-suppress readdirCalled
	while (!err && (e = readdir(dir)) != NULL) {
		if (e->d_type != DT_DIR || strcmp(e->d_name, ".") == 0 ||
		    strcmp(e->d_name, "..") == 0)
			continue;
		int sub = openat(dirfd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub < 0) {
			if (errno != ENOENT) /* a cgroup removed meanwhile */
				err = errno;
			continue;
		}
		err = collect(c, cap, sub, depth + 1);
		close(sub);
	}
	closedir(dir);
	return err;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

int charge_init(struct charge *c, const char *const *dirs, size_t ndirs, uint64_t page_size,
		const char **why)
{
	*c = (struct charge){ .pagemap_fd = -1, .kpagecgroup_fd = -1, .page_size = page_size };
	size_t cap = 0;
	for (size_t i = 0; i < ndirs; i++) {
		int fd = open(dirs[i], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		int err = fd < 0 ? errno : collect(c, &cap, fd, 0);
		if (fd >= 0)
			close(fd);
		if (err) {
			*why = "cannot read the cgroup's directory tree";
			return err;
		}
	}
	qsort(c->inodes, c->ninodes, sizeof *c->inodes, cmp_u64);
	/* the kernel's files, not a user's: CAP_SYS_ADMIN is checked as they
	 * are opened, and each stream is only its descriptor for pread */
	c->pagemap = fopen("/proc/self/pagemap", "re");
	if (!c->pagemap) {
		*why = "cannot open /proc/self/pagemap";
		return errno;
	}
	c->kpagecgroup = fopen("/proc/kpagecgroup", "re");
	if (!c->kpagecgroup) {
		*why = "cannot open /proc/kpagecgroup (a kernel without CONFIG_MEMCG?)";
		return errno;
	}
	c->pagemap_fd = fileno(c->pagemap);
	c->kpagecgroup_fd = fileno(c->kpagecgroup);
	return 0;
}

void charge_free(struct charge *c)
{
	if (c->pagemap)
		fclose(c->pagemap);
	if (c->kpagecgroup)
		fclose(c->kpagecgroup);
	free(c->inodes);
	*c = (struct charge){ .pagemap_fd = -1, .kpagecgroup_fd = -1 };
}

static bool ours(const struct charge *c, uint64_t ino)
{
	return ino && bsearch(&ino, c->inodes, c->ninodes, sizeof ino, cmp_u64) != NULL;
}

static int read_full(int fd, void *buf, size_t len, uint64_t off)
{
	ssize_t got = pread(fd, buf, len, (off_t)off);
	if (got < 0)
		return errno;
	return (size_t)got == len ? 0 : EIO;
}

/* Faults in the page at addr the way a read of it by the program would
 * (not get_user_pages, which marks the page accessed): the kernel copies
 * a byte of it into a pipe, and a page gone meanwhile (truncated) is
 * EFAULT, not SIGBUS.  The fault maps the cached pages around it too
 * (fault-around) and, the mapping being MADV_RANDOM, reads nothing ahead. */
static int touch(const int *pipefd, const unsigned char *addr)
{
	unsigned char byte;
	ssize_t put = write(pipefd[1], addr, 1);
	if (put < 0)
		return errno == EFAULT ? 0 : errno;
	return read(pipefd[0], &byte, 1) == 1 ? 0 : errno;
}

#define PEEK 32 /* pagemap entries read after each fault */

/* One run of resident pages [first, end) of the chunk mapped at map
 * (pages from the chunk's start): faulted in, their frames' cgroups
 * checked.  A page that is not mapped after its fault (evicted or
 * truncated meanwhile) is not counted. */
static int count_run(const struct charge *c, const int *pipefd, unsigned char *map,
		     size_t first, size_t end, uint64_t *entries, uint64_t *charged)
{
	size_t page = c->page_size;
	for (size_t i = first; i < end;) {
		int err = touch(pipefd, map + i * page);
		size_t n = end - i < PEEK ? end - i : PEEK;
		uintptr_t vpage = (uintptr_t)(map + i * page) / page;
		if (!err)
			err = read_full(c->pagemap_fd, entries, n * sizeof *entries,
					(uint64_t)vpage * 8);
		if (err)
			return err;
		if (!(entries[0] & PM_PRESENT)) {
			i++;
			continue;
		}
		size_t k = 0;
		for (; k < n && (entries[k] & PM_PRESENT); k++) {
			uint64_t pfn = entries[k] & PM_PFN_MASK;
			if (pfn == 0)
				return EPERM; /* frames hidden: no CAP_SYS_ADMIN */
			uint64_t ino = 0;
			err = read_full(c->kpagecgroup_fd, &ino, sizeof ino, pfn * 8);
			if (err)
				return err;
			if (ours(c, ino))
				(*charged)++;
		}
		i += k;
	}
	return 0;
}

/* One chunk [off, off + len) of the file: mapped, counted, unmapped
 * (whatever failed). */
static int count_chunk(const struct charge *c, const int *pipefd, int fd, uint64_t off,
		       size_t len, unsigned char *vec, uint64_t *entries, uint64_t *charged)
{
	size_t page = c->page_size;
	unsigned char *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
	if (map == MAP_FAILED)
		return errno;
	/* no readahead on these faults, and no recency given to the pages
	 * when the mapping goes (the kernel skips it for random mappings) */
	int err = madvise(map, len, MADV_RANDOM) != 0 ? errno : 0;
	size_t npages = (len + page - 1) / page;
	if (!err && mincore(map, len, vec) != 0)
		err = errno;
	for (size_t i = 0; !err && i < npages;) {
		if (!(vec[i] & 1)) {
			i++;
			continue;
		}
		size_t j = i;
		while (j < npages && (vec[j] & 1))
			j++;
		err = count_run(c, pipefd, map, i, j, entries, charged);
		i = j;
	}
	munmap(map, len);
	return err;
}

int charge_count(const struct charge *c, int fd, uint64_t start, uint64_t end,
		 uint64_t *charged)
{
	uint64_t page = c->page_size;
	uint64_t from = start / page * page;
	size_t chunk_pages = CHUNK_BYTES / page;
	unsigned char *vec = xcalloc(chunk_pages, 1);
	uint64_t *entries = xcalloc(chunk_pages, sizeof *entries);
	int pipefd[2] = { -1, -1 };
	int err = pipe2(pipefd, O_CLOEXEC) != 0 ? errno : 0;

	*charged = 0;
	for (uint64_t off = from; !err && off < end; off += CHUNK_BYTES) {
		uint64_t len = end - off < CHUNK_BYTES ? end - off : CHUNK_BYTES;
		err = count_chunk(c, pipefd, fd, off, (size_t)len, vec, entries, charged);
	}
	for (int i = 0; i < 2; i++)
		if (pipefd[i] >= 0)
			close(pipefd[i]);
	free(vec);
	free(entries);
	return err;
}
