/* SPDX-License-Identifier: MIT */
/* What an inspection tells: rows to the sink, failures on stderr too, counted. */
#include <config.h>

#include "output/report.h"

#include <fcntl.h>
#include <inttypes.h>
#include <sys/stat.h>

#include "lib/msg.h"
#include "lib/progress.h"
#include "kernel/userfile.h"

/* Refusals (EPERM) named one by one on stderr before they are only counted. */
#define REFUSALS_NAMED 10

bool report_user_sees(const struct report *rep, dev_t dev, uint64_t ino, const char *path,
		      bool follow)
{
	return !rep->limit_identity || report_user_stats(dev, ino, path, follow);
}

bool report_user_stats(dev_t dev, uint64_t ino, const char *path, bool follow)
{
	struct stat st;

	return user_fstatat(AT_FDCWD, path, &st, follow ? 0 : AT_SYMLINK_NOFOLLOW) == 0 &&
	       st.st_dev == dev && (uint64_t)st.st_ino == ino;
}

void report_say(const char *what, const char *path, size_t len)
{
	msg("%s%s", what, *what ? " " : "");
	msg_name(path, len);
}

/* A row of what was measured (no detail, nothing failed below it). */
static struct row row_of(const char *path, size_t len, enum row_type type,
			 const struct pagecache_stat *stat, uint64_t files)
{
	return (struct row){
		.path = path,
		.path_len = len,
		.type = type,
		.stat = *stat,
		.files = files,
	};
}

static void send(struct report *rep, const struct row *row)
{
	if (!sink_row(rep->sink, row))
		rep->output_failed = true;
}

void report_row(struct report *rep, const char *path, size_t len, enum row_type type,
		const struct pagecache_stat *stat, uint64_t files,
		const struct probe_detail *detail)
{
	struct row row = row_of(path, len, type, stat, files);

	if (detail && row_has_detail(&row)) {
		row.segments = detail->segments;
		row.nsegments = detail->nsegments;
		row.extents = detail->extent;
		row.nextents = detail->nextents;
	}
	send(rep, &row);
}

void report_sum_row(struct report *rep, const char *path, size_t len, enum row_type type,
		    uint64_t files, uint64_t failed, const struct pagecache_stat *stat)
{
	struct row row = row_of(path, len, type, stat, files);

	row.failed = failed;
	send(rep, &row);
}

void report_measured(struct report *rep, const char *path, size_t len,
		     const struct pagecache_stat *stat)
{
	if (stat->overlay && !rep->told_overlay && !rep->quiet) {
		rep->told_overlay = true;
		report_say("", path, len);
		msg_more(" is on overlayfs and its backing file was not found: %s.\n"
			 "  Such files are measured through the overlay with mincore(2), which\n"
			 "  knows cached pages only (\"backing\": null in JSON)\n",
			 stat->overlay_why);
	}
	progress_file(stat->cached);
}

/* Explain, once per run, why the kernel refused with EPERM and the remedy. */
static void explain_eperm(void)
{
	static bool explained;

	if (explained)
		return;
	explained = true;
	msg("note: the kernel (for cachestat since Linux 6.14, 6.12.12 and the\n"
	    "  6.6 stable kernels of 2025; for mincore since 2019) reports the page\n"
	    "  cache of a file only to its owner, to a user who may write it, or to\n"
	    "  a process with CAP_FOWNER.  Run pagestat as root, or let an\n"
	    "  administrator grant it the capabilities:\n"
	    "    setcap cap_dac_read_search,cap_fowner+ep \"$(command -v pagestat)\"\n");
}

bool report_tell(struct report *rep, const char *what, const char *path, size_t len, int err)
{
	/* Without privileges a whole tree can be refused: name the first
	 * few, explain once, and count the rest (JSON lists every one). */
	if (err == FAIL_REFUSED && rep->refused++ >= REFUSALS_NAMED)
		return false;
	if (rep->quiet)
		return false;
	report_say(what, path, len);
	msg_more(": %s\n", fail_strerror(err));
	if (err == FAIL_REFUSED)
		explain_eperm();
	return true;
}

void report_error(struct report *rep, const char *path, size_t len, enum row_type type,
		  int err)
{
	struct row row = {
		.path = path,
		.path_len = len,
		.type = type,
		.error = err,
	};

	rep->errors++;
	send(rep, &row);
}

void report_end(const struct report *rep)
{
	if (rep->refused <= REFUSALS_NAMED || rep->quiet)
		return;
	uint64_t more = rep->refused - REFUSALS_NAMED;
	msg("%" PRIu64 " more file%s refused (Operation not permitted) left out of the "
	    "figures; JSON lists each\n", more, more > 1 ? "s" : "");
}
