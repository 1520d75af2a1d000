/* SPDX-License-Identifier: MIT */
/* --system: every mounted file system that holds file pages, each once;
 * the files deleted but still open, summed in a row of their own; the
 * block devices' buffer cache. */
#include <config.h>

#include "modes/system.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "walk/aggregate.h"
#include "modes/cgroup.h"
#include "kernel/mountinfo.h"
#include "kernel/memstat.h"
#include "lib/msg.h"
#include "modes/pidfiles.h"
#include "kernel/probe.h"
#include "output/report.h"
#include "kernel/userfile.h"
#include "walk/walk.h"
#include "lib/xalloc.h"

/* What --system does with a mount. */
enum mount_use {
	MOUNT_WALK,    /* the one mount of its file system that is walked */
	MOUNT_AGAIN,   /* its file system is walked at another mount */
	MOUNT_PSEUDO,  /* holds no file pages: no row */
	MOUNT_OVERLAY, /* its pages are in its layers' files: a row, not walked */
	MOUNT_REMOTE,  /* network or FUSE: a row, not walked */
	MOUNT_HIDDEN,  /* under another mount at the same place: a row */
};

struct mount {
	char *point, *root, *fstype, *source;
	unsigned long id, parent;
	dev_t dev;
	enum mount_use use;
};

/* The mount table, kept until system_free: rows point to its types. */
struct system {
	struct mount *mounts;
	size_t nmounts, mounts_cap;
	const char **points; /* every mount point, sorted */
	struct walk_prune prune; /* points, as the walks take them */
	bool buffers_unread; /* a block device could not be opened */
	struct cgroup_set cgroups; /* the cgroups' rows point to their figures */
};

/* Kernel file systems that hold no page cache of files. */
static const char *const pseudo[] = {
	"autofs", "binfmt_misc", "bpf", "cgroup", "cgroup2", "configfs", "debugfs",
	"devpts", "efivarfs", "fusectl", "hugetlbfs", "mqueue", "nsfs", "proc", "pstore",
	"rpc_pipefs", "securityfs", "selinuxfs", "smackfs", "sysfs", "tracefs", "nfsd",
	"xenfs", "rdt", "resctrl", "ipathfs", "spufs", "apparmorfs",
};

/* Walking them would cross a network or a user's program. */
static const char *const remote[] = {
	"nfs", "nfs4", "cifs", "smb3", "smbfs", "ceph", "glusterfs", "afs", "9p", "lustre",
	"gfs2", "ocfs2", "sshfs", "davfs",
};

static bool listed(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], name) == 0)
			return true;
	return false;
}

#define LISTED(names, name) listed((names), sizeof(names) / sizeof((names)[0]), (name))

static enum mount_use use_of(const char *fstype)
{
	if (LISTED(pseudo, fstype))
		return MOUNT_PSEUDO;
	if (strcmp(fstype, "overlay") == 0)
		return MOUNT_OVERLAY;
	if (LISTED(remote, fstype) || strncmp(fstype, "fuse", 4) == 0)
		return MOUNT_REMOTE;
	return MOUNT_WALK;
}

/* One mount of the table into mounts. */
static void add_mount(void *arg, const struct mountinfo *mi)
{
	struct system *sys = arg;
	XGROW(sys->mounts, sys->mounts_cap, sys->nmounts + 1);
	sys->mounts[sys->nmounts++] = (struct mount){
		.point = xstrdup(mi->point),
		.root = xstrdup(mi->root),
		.fstype = xstrdup(mi->fstype),
		.source = xstrdup(mi->source),
		.id = mi->id,
		.parent = mi->parent,
		.dev = mi->dev,
		.use = use_of(mi->fstype),
	};
}

static int compare_strings(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Each file system walked once: at a mount of its root if it has one,
 * else at its first mount. */
static void choose_walks(struct system *sys)
{
	struct mount *mounts = sys->mounts;
	size_t nmounts = sys->nmounts;

	/* a mount on top of another at the same place hides it */
	for (size_t i = 0; i < nmounts; i++)
		for (size_t j = 0; j < nmounts; j++)
			if (mounts[j].parent == mounts[i].id &&
			    strcmp(mounts[j].point, mounts[i].point) == 0 &&
			    mounts[i].use != MOUNT_PSEUDO)
				mounts[i].use = MOUNT_HIDDEN;
	for (size_t i = 0; i < nmounts; i++) {
		struct mount *m = &mounts[i];
		if (m->use != MOUNT_WALK)
			continue;
		for (size_t j = 0; j < i; j++) {
			struct mount *o = &mounts[j];
			if (o->use != MOUNT_WALK || o->dev != m->dev)
				continue;
			bool better = strcmp(m->root, "/") == 0 && strcmp(o->root, "/") != 0;
			(better ? o : m)->use = MOUNT_AGAIN;
			if (!better)
				break;
		}
	}
	sys->points = xcalloc(nmounts, sizeof *sys->points);
	for (size_t i = 0; i < nmounts; i++)
		sys->points[i] = mounts[i].point;
	qsort(sys->points, nmounts, sizeof *sys->points, compare_strings);
	sys->prune = (struct walk_prune){ .points = sys->points, .n = nmounts };
}

/* /proc/self/mountinfo into mounts; false when it cannot be read. */
static bool read_mounts(struct system *sys)
{
	FILE *in = user_fopen_read("/proc/self/mountinfo");
	const char *why = NULL;

	if (!in) {
		why = strerror(errno);
	} else {
		(void)mountinfo_read(in, add_mount, sys, &why);
		fclose(in);
	}
	if (why) {
		msg("--system: cannot read /proc/self/mountinfo: %s\n", why);
		return false;
	}
	choose_walks(sys);
	return true;
}

/* The walk of one file system: its operand's row becomes the file
 * system's; the other rows pass. */
struct fs_walk {
	struct sink *out;
	const struct mount *mount;
};

static void fs_row(struct sink *sink, const struct row *row)
{
	struct fs_walk *fw = sink->state;
	struct row as_fs = *row;

	if (row->type == ROW_DIRECTORY && row->path && strcmp(row->path, fw->mount->point) == 0) {
		as_fs.type = ROW_FILESYSTEM;
		as_fs.fstype = fw->mount->fstype;
	}
	if (!sink_row(fw->out, &as_fs))
		sink->failed = true;
}

static void fs_end(struct sink *sink, const struct row *total, uint64_t errors)
{
	(void)sink;
	(void)total;
	(void)errors;
}

static const struct sink_ops fs_ops = { .row = fs_row, .end = fs_end };

static void add_result(struct walk_result *into, const struct walk_result *r)
{
	agg_stat_add(&into->total.stat, &r->total.stat);
	into->total.files += r->total.files;
	into->errors += r->errors;
	into->refused += r->refused;
	into->total.failed += r->total.failed;
	into->output_failed |= r->output_failed;
}

void system_walk_config(const struct system *sys, struct walk_config *cfg)
{
	cfg->all = true;
	cfg->quiet = true; /* the failures are summed up at the end */
	cfg->one_file_system = true;
	cfg->follow = FOLLOW_NONE;
	cfg->prune = &sys->prune;
}

static void walk_mount(const struct system *sys, const struct walk_config *cfg,
		       const struct mount *m, struct sink *sink, struct walk_result *result)
{
	struct walk_config fs_cfg = *cfg;
	struct fs_walk fw = { .out = sink, .mount = m };
	struct sink fs_sink = { .ops = &fs_ops, .cfg = sink->cfg, .state = &fw };
	struct walk_result r = { 0 };
	char *operands[] = { m->point, NULL };

	system_walk_config(sys, &fs_cfg);
	fs_cfg.max_depth = cfg->system && cfg->system->every_dir ? LONG_MAX : -1;
	sink_section(sink, m->point);
	walk_run(&fs_cfg, operands, &fs_sink, &r);
	add_result(result, &r);
	result->output_failed |= fs_sink.failed;
}

/* A file system's row with nothing counted: why it was not walked. */
static void unwalked_row(const struct mount *m, unsigned known, struct sink *sink,
			 struct walk_result *result)
{
	struct pagecache_stat none = { .known = known };

	sink_section(sink, NULL);
	struct row row = {
		.path = m->point,
		.path_len = strlen(m->point),
		.type = ROW_FILESYSTEM,
		.stat = none,
		.fstype = m->fstype,
		.note = m->use == MOUNT_OVERLAY ? "not walked: an overlay's pages are in its layers' files"
			: m->use == MOUNT_HIDDEN
				? "not walked: hidden under another mount at the same place"
				: "not walked: a network or FUSE file system; name it as FILE to inspect it",
	};
	if (!sink_row(sink, &row))
		result->output_failed = true;
}

/* The path of the row that sums the files no mount point leads to: in
 * parentheses, as no mount point is. */
const char system_deleted_row[] = "(deleted and memfd files)";

/* The files deleted but still open or mapped, memfds among them: their
 * own rows, then one that sums them (type filesystem), so that the
 * rows that are not files add up to the total. */
static void deleted_files(const struct walk_config *cfg, struct sink *sink,
			  struct walk_result *result, struct pid_unseen *unseen)
{
	struct walk_result r = { 0 };
	struct report out = { .sink = sink, .quiet = cfg->quiet };

	sink_section(sink, NULL);
	pid_run_deleted(cfg, sink, &r, unseen);
	add_result(result, &r);
	if (result->output_failed)
		return;
	report_sum_row(&out, system_deleted_row, sizeof system_deleted_row - 1, ROW_FILESYSTEM,
		       r.total.files, r.errors, &r.total.stat);
	result->output_failed |= out.output_failed;
}

/* The device node of m's device into path (and its stat): the source
 * mountinfo names, /dev/block/MAJOR:MINOR, or /dev/ and the name in
 * /sys/dev/block/MAJOR:MINOR/uevent.  False when none is found. */
static bool find_device(const struct mount *m, char *path, size_t size, struct stat *st)
{
	char uevent[64], line[256];

	for (int i = 0; i < 3; i++) {
		if (i == 0) {
			snprintf(path, size, "%s", m->source);
		} else if (i == 1) {
			snprintf(path, size, "/dev/block/%u:%u", major(m->dev), minor(m->dev));
		} else {
			snprintf(uevent, sizeof uevent, "/sys/dev/block/%u:%u/uevent", major(m->dev),
				 minor(m->dev));
			FILE *in = user_fopen_read(uevent);
			bool named = false;
			while (in && !named && fgets(line, sizeof line, in))
				if (strncmp(line, "DEVNAME=", 8) == 0) {
					line[strcspn(line, "\n")] = '\0';
					snprintf(path, size, "/dev/%s", line + 8);
					named = true;
				}
			if (in)
				fclose(in);
			if (!named)
				return false;
		}
		if (path[0] == '/' && stat(path, st) == 0 && S_ISBLK(st->st_mode) &&
		    st->st_rdev == m->dev)
			return true;
	}
	return false;
}

/* The buffer cache of the block device under a file system walked. */
static void blockdev_row(struct system *sys, const struct walk_config *cfg,
			 const struct mount *m, struct report *out, struct agg_sum *total)
{
	char path[PATH_MAX];
	struct stat st;
	struct probe_out measured = { 0 };

	if (!find_device(m, path, sizeof path, &st))
		return; /* no block device: tmpfs, btrfs's anonymous devices */
	const char *name = path;
	struct file_request req = *cfg->req;
	req.measure.segments = 0;
	req.measure.extents = EXTENTS_NONE;
	struct file_ref ref = { .dirfd = AT_FDCWD, .name = path, .follow = true,
				.id = file_ident_of(&st) };
	int err = inspect_at(cfg->ins, &ref, &req, &measured);
	probe_out_free(&measured); /* a block device has no backing file */
	if (err) {
		/* not a failure of the run: a container's device cgroup forbids
		 * it to root too; said, as what was not seen */
		if (!out->quiet) {
			report_say("--system: the buffer cache of", name, strlen(name));
			msg_more(" could not be read (%s): it is not counted\n", fail_strerror(err));
		}
		sys->buffers_unread = true;
		return;
	}
	agg_stat_add(&total->stat, &measured.stat);
	total->files++;
	report_row(out, name, strlen(name), ROW_BLOCKDEV, &measured.stat, 1, NULL);
}

/* "--system: 2 overlay mounts not walked (/a, ...): why". */
static void tell_unwalked(const struct system *sys, enum mount_use use, const char *one,
			  const char *many, const char *why)
{
	size_t n = 0;
	const char *first = NULL;

	for (size_t i = 0; i < sys->nmounts; i++)
		if (sys->mounts[i].use == use && !n++)
			first = sys->mounts[i].point;
	if (!n)
		return;
	msg("--system: %zu %s not walked (", n, n == 1 ? one : many);
	msg_name_str(first);
	msg_more("%s): %s\n", n > 1 ? ", ..." : "", why);
}

/* The block devices, each once; then what was not walked, said. */
static void blockdevs(struct system *sys, const struct walk_config *cfg, struct sink *sink,
		      struct walk_result *result)
{
	struct report out = { .sink = sink, .quiet = cfg->quiet };
	struct agg_sum total = { .stat.known = inspect_known(cfg->ins) };

	sink_section(sink, NULL);
	for (size_t i = 0; i < sys->nmounts && !out.output_failed; i++)
		if (sys->mounts[i].use == MOUNT_WALK && major(sys->mounts[i].dev) != 0)
			blockdev_row(sys, cfg, &sys->mounts[i], &out, &total);
	report_end(&out);
	struct walk_result r = { .total = total, .errors = out.errors,
				 .output_failed = out.output_failed };
	add_result(result, &r);
	if (!cfg->quiet) {
		tell_unwalked(sys, MOUNT_OVERLAY, "overlay mount", "overlay mounts",
			      "an overlay's pages are in its layers' files, walked where those are");
		tell_unwalked(sys, MOUNT_HIDDEN, "mount hidden under another at the same place",
			      "mounts hidden under others at the same place",
			      "no path leads to a hidden mount's files");
		tell_unwalked(sys, MOUNT_REMOTE, "network or FUSE mount", "network or FUSE mounts",
			      "a mount point named as FILE is inspected");
	}
}

/* A walk of the whole machine meets failures by the thousand when not
 * root: summed up, not one message each. */
static void tell_failures(const struct walk_result *r)
{
	if (!r->errors)
		return;
	msg("--system: %llu %s could not be inspected and %s not counted",
	    (unsigned long long)r->errors,
	    r->errors == 1 ? "file or directory" : "files and directories",
	    r->errors == 1 ? "is" : "are");
	if (r->refused)
		msg_more(" (%llu refused by the kernel's owner rule: run as root, or with "
			 "the capabilities of PRIVILEGES in pagestat(1))",
			 (unsigned long long)r->refused);
	msg_more("; pagestat -a DIRECTORY names each\n");
}

static void tell_unseen(const struct pid_unseen *unseen)
{
	if (unseen->processes)
		msg("--system: the open files of %llu process%s could not be read (%s): files "
		    "deleted but held open by %s are not counted\n",
		    (unsigned long long)unseen->processes, unseen->processes == 1 ? "" : "es",
		    strerror(unseen->process_err), unseen->processes == 1 ? "it" : "them");
	if (unseen->files)
		msg("--system: %llu deleted file%s that processes hold could not be opened "
		    "(one only mapped is reached through /proc/PID/map_files, which the "
		    "kernel may refuse): not counted\n",
		    (unsigned long long)unseen->files, unseen->files == 1 ? "" : "s");
}

struct system *system_run(const struct walk_config *cfg, struct sink *sink,
			  struct walk_result *result, struct system_figures *figures)
{
	struct system *sys = xcalloc(1, sizeof *sys);

	*result = (struct walk_result){ .total.stat.known = inspect_known(cfg->ins) };
	if (!read_mounts(sys)) {
		result->errors++;
		return sys;
	}
	/* in the mount table's order, as df and findmnt list them */
	for (size_t i = 0; i < sys->nmounts && !result->output_failed; i++) {
		const struct mount *m = &sys->mounts[i];
		if (m->use == MOUNT_WALK)
			walk_mount(sys, cfg, m, sink, result);
		else if (m->use == MOUNT_OVERLAY || m->use == MOUNT_REMOTE || m->use == MOUNT_HIDDEN)
			unwalked_row(m, inspect_known(cfg->ins), sink, result);
	}

	struct pid_unseen unseen = { 0 };
	if (!result->output_failed)
		deleted_files(cfg, sink, result, &unseen);
	if (!result->output_failed)
		blockdevs(sys, cfg, sink, result);
	/* a row per memory cgroup, -d deep (1 by default); not in the total,
	 * which the files make */
	if (!result->output_failed &&
	    !cgroup_system_rows(cfg, cfg->max_depth >= 0 ? cfg->max_depth : 1, sink, &sys->cgroups))
		result->output_failed = true;
	if (!cfg->quiet) {
		tell_failures(result);
		tell_unseen(&unseen);
	}
	figures->buffers_unread = sys->buffers_unread;
	figures->known = meminfo_bytes("Cached", &figures->cached) &&
			 meminfo_bytes("Buffers", &figures->buffers) &&
			 meminfo_bytes("Shmem", &figures->shmem);
	return sys;
}

void system_free(struct system *sys)
{
	if (!sys)
		return;
	for (size_t i = 0; i < sys->nmounts; i++) {
		free(sys->mounts[i].point);
		free(sys->mounts[i].root);
		free(sys->mounts[i].fstype);
		free(sys->mounts[i].source);
	}
	free(sys->mounts);
	free(sys->points);
	cgroup_set_free(&sys->cgroups);
	free(sys);
}
