/* SPDX-License-Identifier: MIT */
/* --pid: the regular files processes map or hold open, each inspected once. */
#include <config.h>

#include "modes/pidfiles.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "walk/aggregate.h"
#include "kernel/caps.h"
#include "lib/devino.h"
#include "lib/msg.h"
#include "output/report.h"
#include "kernel/safeopen.h"
#include "lib/xalloc.h"

/* A file of one process, and how to open it. */
struct pid_file {
	dev_t dev;
	ino_t ino;
	char *path;  /* as the process sees it; " (deleted)" kept */
	char *route; /* /proc/PID/fd/N or /proc/PID/map_files/START-END */
	char *alt;   /* else /proc/PID/root/PATH; NULL for a deleted file */
};

struct pid_walk {
	const struct walk_config *cfg;
	struct report out;
	struct agg_sum total;
	struct devino_map counted; /* files inspected, over every process */
	struct devino_map mine;    /* files of this process -> index in files */
	struct pid_file *files;
	size_t nfiles, cap;
	struct probe_detail detail;
	struct probe_out measured;
	bool told_ptrace, told_map_files;
	/* --system: only deleted files, and what could not be seen counted
	 * (not failures) */
	bool deleted_only;
	struct pid_unseen unseen;
	/* --cgroup: a process that exits during the run is counted here, not
	 * a failure */
	uint64_t *exited;
};

/* Why a process's /proc entries were refused: permissions, which have a
 * remedy, or something beyond them, which pagestat cannot pass. */
static void explain_refused_process(void)
{
	if (!caps_have_ptrace()) {
		msg("note: the files of another user's process, or of a more\n"
		    "  privileged one, can be read only with CAP_SYS_PTRACE: run pagestat\n"
		    "  as root or as the user the process runs as\n");
		return;
	}
	msg("note: pagestat holds CAP_SYS_PTRACE and was refused all the\n"
	    "  same: what keeps this process's /proc entries closed is not a\n"
	    "  permission but a security module (Landlock, SELinux, AppArmor...)\n"
	    "  or a user namespace that pagestat runs below, and root cannot pass it\n");
}

/* A process that cannot be read: "pagestat: --pid 12345: No such process". */
static void fail_pid(struct pid_walk *w, pid_t pid, int err)
{
	char path[32];
	int len = snprintf(path, sizeof path, "/proc/%ld", (long)pid);

	if (!w->cfg->quiet) {
		msg("%s %ld: %s\n", w->exited ? "--cgroup: process" : "--pid", (long)pid,
		    strerror(err));
		if ((err == EACCES || err == EPERM) && !w->told_ptrace) {
			w->told_ptrace = true;
			explain_refused_process();
		}
	}
	report_error(&w->out, path, (size_t)len, ROW_UNKNOWN, err);
}

static void fail_file(struct pid_walk *w, pid_t pid, const struct pid_file *f, int err)
{
	char what[96];
	snprintf(what, sizeof what, "%s %ld: %s", w->exited ? "--cgroup: process" : "--pid",
		 (long)pid, inspect_failure_what(w->cfg->req));
	size_t len = strlen(f->path);
	if (report_tell(&w->out, what, f->path, len, err) && err == EPERM &&
	    strstr(f->route, "/map_files/") && !w->told_map_files) {
		w->told_map_files = true;
		msg("note: a deleted file that a process maps but holds no\n"
		    "  descriptor of can be opened only through /proc/PID/map_files,\n"
		    "  which the kernel allows only with CAP_SYS_ADMIN or\n"
		    "  CAP_CHECKPOINT_RESTORE; pagestat keeps neither\n");
	}
	report_error(&w->out, f->path, len, ROW_UNKNOWN, err);
}

/* route and alt are taken over: stored, freed with the list (so not const) */
static void add_file(struct pid_walk *w, dev_t dev, ino_t ino, const char *path,
		     char *route, char *alt) /* NOLINT(readability-non-const-parameter) */
{
	XGROW(w->files, w->cap, w->nfiles + 1);
	w->files[w->nfiles++] = (struct pid_file){ dev, ino, xstrdup(path), route, alt };
}

static char *proc_path(pid_t pid, const char *what, const char *rest)
{
	size_t size = 32 + strlen(what) + strlen(rest);
	char *s = xrealloc(NULL, size);
	snprintf(s, size, "/proc/%ld/%s%s", (long)pid, what, rest);
	return s;
}


/* The kernel adds this to the path of a file whose name was removed.  A
 * file may be named so too, or keep other names (a hard link): the name
 * only says "maybe deleted"; the link count of the file opened says it
 * (inspect_file). */
static const char deleted[] = " (deleted)";

static bool maybe_deleted(const char *path)
{
	size_t n = strlen(path), d = sizeof deleted - 1;
	return n > d && strcmp(path + n - d, deleted) == 0;
}

/* One line of /proc/PID/maps, "START-END PERMS OFFSET MAJOR:MINOR INODE
 * PATH" (hexadecimal but the inode): false unless all are there. */
static bool parse_mapping(const char *line, unsigned long *start, unsigned long *end,
			  dev_t *dev, ino_t *ino, const char **path)
{
	char *p;
	unsigned long major, minor;

	errno = 0;
	*start = strtoul(line, &p, 16);
	if (*p != '-')
		return false;
	*end = strtoul(p + 1, &p, 16);
	p += strspn(p, " ");
	p += strcspn(p, " "); /* permissions */
	(void)strtoull(p, &p, 16); /* offset */
	major = strtoul(p, &p, 16);
	if (*p != ':')
		return false;
	minor = strtoul(p + 1, &p, 16);
	*ino = (ino_t)strtoull(p, &p, 10);
	if (errno || *p != ' ')
		return false;
	*dev = makedev(major, minor);
	*path = p + strspn(p, " ");
	return true;
}

/* /proc/PID/maps: only mappings of files (an inode, an absolute path)
 * are kept, each once. */
static int read_maps(struct pid_walk *w, pid_t pid)
{
	char *name = proc_path(pid, "maps", "");
	FILE *maps = fopen(name, "re");
	free(name);
	if (!maps)
		return errno == ENOENT ? ESRCH : errno;

	char *line = NULL;
	size_t size = 0;
	ssize_t len;
	while ((len = getline(&line, &size, maps)) > 0) {
		unsigned long start, end;
		dev_t dev;
		ino_t ino;
		const char *path;
		if (line[len - 1] == '\n')
			line[len - 1] = '\0';
		if (!parse_mapping(line, &start, &end, &dev, &ino, &path) || ino == 0 ||
		    *path != '/')
			continue;
		if (w->deleted_only && !maybe_deleted(path))
			continue; /* --system: the walk of its file system has it */
		if (devino_put(&w->mine, dev, ino, w->nfiles) != DEVINO_NEW)
			continue; /* mapped more than once */
		char range[40];
		snprintf(range, sizeof range, "%lx-%lx", start, end);
		/* --system: a file named "x (deleted)" is there by its name */
		add_file(w, dev, ino, path, proc_path(pid, "map_files/", range),
			 maybe_deleted(path) && !w->deleted_only ? NULL
								 : proc_path(pid, "root", path));
	}
	int err = ferror(maps) ? EIO : 0;
	free(line);
	fclose(maps);
	return err;
}

/* /proc/PID/fd: the descriptors open on regular files.  A file also
 * mapped keeps its place, and is opened through the descriptor. */
static int read_fds(struct pid_walk *w, pid_t pid)
{
	char *name = proc_path(pid, "fd", "");
	DIR *dir = opendir(name);
	free(name);
	if (!dir)
		return errno == ENOENT ? ESRCH : errno;

	struct dirent *d;
	/* one thread reads this stream; readdir_r is deprecated (glibc 2.24) */
	// cppcheck-suppress readdirCalled
	while ((d = readdir(dir))) {
		struct stat st;
		char target[PATH_MAX];
		if (d->d_name[0] == '.' || fstatat(dirfd(dir), d->d_name, &st, 0) != 0 ||
		    !S_ISREG(st.st_mode))
			continue; /* closed meanwhile, or not a regular file */
		ssize_t n = readlinkat(dirfd(dir), d->d_name, target, sizeof target - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (w->deleted_only && !maybe_deleted(target))
			continue;
		size_t seen = devino_put(&w->mine, st.st_dev, st.st_ino, w->nfiles);
		char *route = proc_path(pid, "fd/", d->d_name);
		if (seen == DEVINO_NEW) {
			add_file(w, st.st_dev, st.st_ino, target, route, NULL);
		} else {
			free(w->files[seen].route);
			w->files[seen].route = route;
		}
	}
	closedir(dir);
	return 0;
}

/* Open f through /proc, the way that gives the very file the process
 * has: nothing but the file /proc described is opened (safe_open), so
 * that a descriptor dup2()ed over, or a directory of the path swapped for
 * a link, leads nowhere else. */
static int open_file(struct opener *o, const struct pid_file *f, int *fd_out, struct stat *st)
{
	struct file_ident id = { .dev = f->dev, .ino = f->ino, .known = true };
	/* the /proc links lead to the file itself: followed */
	struct file_ref route = { .dirfd = AT_FDCWD, .name = f->route, .follow = true, .id = id };
	int err;
	int fd = safe_open(o, &route, st, &err);
	/* map_files needs CAP_SYS_ADMIN: else the path, in the process's root */
	if (fd < 0 && f->alt) {
		struct file_ref alt = { .dirfd = AT_FDCWD, .name = f->alt, .id = id };
		fd = safe_open(o, &alt, st, &err);
	}
	if (fd < 0)
		return err;
	*fd_out = fd;
	return 0;
}

/* Is the process gone?  Then its files are left out, not failures.  A
 * zombie is gone too (its /proc entry stays until it is reaped, but its
 * files and mappings do not), and a process that is exiting (no maps). */
static bool vanished(pid_t pid)
{
	char path[32], line[512];
	snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
	FILE *stat = fopen(path, "re");
	if (!stat)
		return errno == ENOENT || errno == ESRCH;
	bool read = fgets(line, sizeof line, stat) != NULL;
	fclose(stat);
	/* "PID (COMM) STATE ...": COMM may hold anything but is at most 16 bytes */
	const char *end = read ? strrchr(line, ')') : NULL;
	if (end && end[1] == ' ' && (end[2] == 'Z' || end[2] == 'X'))
		return true;
	/* exiting, before it is a zombie: its memory, maps and root are gone */
	snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
	FILE *maps = fopen(path, "re");
	if (!maps)
		return errno == ENOENT || errno == ESRCH; /* not refused: gone */
	bool empty = getc(maps) == EOF;
	fclose(maps);
	return empty;
}

/* False when the process turned out to be gone (nothing reported). */
static bool inspect_file(struct pid_walk *w, pid_t pid, const struct pid_file *f)
{
	if (!devino_add(&w->counted, f->dev, f->ino))
		return true; /* counted with an earlier process */
	int fd = -1;
	struct stat st;
	struct pagecache_stat *stat = &w->measured.stat;
	w->measured.detail = probe_wants_detail(&w->cfg->req->measure) ? &w->detail : NULL;
	int err = open_file(&w->cfg->ins->prober.opener, f, &fd, &st);
	if (!err && w->deleted_only && st.st_nlink > 0) {
		/* --system: a file with a name left (named "x (deleted)", or
		 * one of its hard links removed) is counted by the walk of its
		 * file system */
		close(fd);
		return true;
	}
	if (!err) {
		err = inspect_fd(w->cfg->ins, fd, &st, w->cfg->req, &w->measured);
		close(fd);
	}
	if (err == ENOENT && vanished(pid))
		return false;
	/* --cgroup: a process that exec()s, unmaps or closes while it is read
	 * no longer holds the file: a change of the cgroup, not a failure */
	if (err == ENOENT && w->exited)
		return true;
	if (err && w->deleted_only) {
		w->unseen.files++;
		return true;
	}
	if (err) {
		fail_file(w, pid, f, err);
		return true;
	}
	size_t len = strlen(f->path);
	report_measured(&w->out, f->path, len, stat);
	agg_stat_add(&w->total.stat, stat);
	w->total.files++;
	/* could the user stat it as the process's descriptor or mapping, or
	 * by its path in the process's root? */
	if ((stat->known & PCS_IDENTITY) &&
	    !report_user_sees(&w->out, f->dev, f->ino, f->route, true) &&
	    !(f->alt && report_user_sees(&w->out, f->dev, f->ino, f->alt, false)))
		stat->known &= ~(unsigned)PCS_IDENTITY;
	report_row(&w->out, f->path, len, ROW_FILE, stat, 1, w->measured.detail);
	return true;
}

static void free_files(struct pid_walk *w)
{
	for (size_t i = 0; i < w->nfiles; i++) {
		free(w->files[i].path);
		free(w->files[i].route);
		free(w->files[i].alt);
	}
	w->nfiles = 0;
	devino_clear(&w->mine);
}

static void walk_pid(struct pid_walk *w, pid_t pid)
{
	int err = read_maps(w, pid);
	if (!err)
		err = read_fds(w, pid);
	if (err && err != ESRCH && vanished(pid))
		err = ESRCH; /* its maps or fds were read as it exited */
	/* what could be inspected before the process vanished is reported;
	 * the rest is not, and the process is the one failure.  The
	 * analyzer loses the files array across inspect_file and calls it
	 * leaked; free_files below frees it (valgrind and ASan agree). */
	// NOLINTBEGIN(clang-analyzer-unix.Malloc)
	for (size_t i = 0; i < w->nfiles && !w->out.output_failed; i++)
		if (!inspect_file(w, pid, &w->files[i])) {
			err = ESRCH;
			break;
		}
	// NOLINTEND(clang-analyzer-unix.Malloc)
	if (err == ESRCH && w->exited) {
		(*w->exited)++;
	} else if (err && w->deleted_only) {
		/* --system: a process gone meanwhile held nothing to count */
		if (err != ESRCH && !w->unseen.processes++)
			w->unseen.process_err = err;
	} else if (err && !w->out.output_failed) {
		fail_pid(w, pid, err);
	}
	free_files(w);
}

/* The files of each process in pids; with unseen (--system), deleted
 * files only, what cannot be seen counted there. */
static void run_pids(const struct walk_config *cfg, const pid_t *pids, size_t npids,
		     struct sink *sink, struct walk_result *result, struct pid_unseen *unseen,
		     uint64_t *exited) /* NOLINT(readability-non-const-parameter): counted in */
{
	struct pid_walk w = {
		.cfg = cfg,
		.out = { .sink = sink, .quiet = cfg->quiet, .limit_identity = cfg->limit_identity },
		.deleted_only = unseen != NULL,
		.exited = exited,
	};

	w.total.stat.known = inspect_known(cfg->ins);
	for (size_t i = 0; i < npids && !w.out.output_failed; i++)
		walk_pid(&w, pids[i]);
	report_end(&w.out);

	result->total = w.total;
	result->errors = w.out.errors;
	result->refused = w.out.refused;
	result->output_failed = w.out.output_failed;
	free(w.files);
	devino_free(&w.counted);
	devino_free(&w.mine);
	probe_detail_free(&w.detail);
	probe_out_free(&w.measured);
	if (unseen)
		*unseen = w.unseen;
}

void pid_run(const struct walk_config *cfg, const pid_t *pids, size_t npids,
	     struct sink *sink, struct walk_result *result)
{
	run_pids(cfg, pids, npids, sink, result, NULL, NULL);
}

void pid_run_members(const struct walk_config *cfg, const pid_t *pids, size_t npids,
		     struct sink *sink, struct walk_result *result, uint64_t *exited)
{
	run_pids(cfg, pids, npids, sink, result, NULL, exited);
}

/* Every process in /proc, in the order listed; *n of them. */
static pid_t *all_pids(size_t *n)
{
	size_t cap = 0;
	pid_t *pids = NULL;
	DIR *dir = opendir("/proc");

	*n = 0;
	if (!dir)
		return pids;
	struct dirent *d;
	// cppcheck-suppress readdirCalled
	while ((d = readdir(dir))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0 || d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		XGROW(pids, cap, *n + 1);
		pids[(*n)++] = (pid_t)pid;
	}
	closedir(dir);
	return pids;
}

void pid_run_deleted(const struct walk_config *cfg, struct sink *sink,
		     struct walk_result *result, struct pid_unseen *unseen)
{
	size_t n;
	pid_t *pids = all_pids(&n);

	run_pids(cfg, pids, n, sink, result, unseen, NULL);
	free(pids);
}
