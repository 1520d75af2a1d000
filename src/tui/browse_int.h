/* SPDX-License-Identifier: MIT */
/* --browse's parts and what they share: the browser (struct browser), and
 * what each file gives the others: browse.c the terminal and the loop of
 * the keys; browse_draw.c the screen, drawn and read, and the listing's
 * order; browse_scan.c the walks and the sink their rows come to;
 * browse_act.c e, w and a file's detail.  Only browse*.c include it. */
#ifndef PAGESTAT_BROWSE_INT_H
#define PAGESTAT_BROWSE_INT_H

#include "tui/browse_curses.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "act/action.h"
#include "tui/browse.h"
#include "tui/browse_tree.h"
#include "walk/source.h"
#include "lib/strbuf.h"
#include "modes/system.h"

struct cgroup_figures;

/* i: seconds between two measures of the directory shown */
#define REFRESH_SECONDS 2
/* the screen while the walk goes on: redrawn this often (ms) */
#define DRAW_MS 100
#define EXTENTS_KEPT 4096

enum sort_key { SORT_CACHED, SORT_SIZE, SORT_PERCENT, SORT_DIRTY, SORT_EVICTED, SORT_NAME };

enum { PAIR_HEAD = 1, PAIR_BAR, PAIR_UP, PAIR_DOWN };

/* A walk under way (the first scan, or one again): what it found so far,
 * when the screen was drawn, what its rows are for. */
struct browse_walk {
	uint64_t files, bytes, cached; /* cached: pages */
	struct timespec drawn;
	unsigned polls;
	uint64_t errors; /* of the last walk again: what could not be inspected */
	int64_t start;   /* the last walk's start, CLOCK_REALTIME ns (stamps) */
	size_t rewalked; /* r: the directories found changed, walked again */
	/* r and i: the files measured again in place, their paths the walk's
	 * operands (rows in that order), at: the next one */
	uint32_t *re_nodes;
	char **re_paths;
	size_t re_n, re_at;
	bool scanning;    /* the first scan, on a screen of its own */
	bool remeasuring; /* the rows are re_nodes' */
};

/* e and w under way: the rows change no figure (measured after); those
 * that failed counted, the first's escaped name and error kept. */
struct browse_acting {
	bool on;
	bool warming;  /* w */
	bool evicting; /* e */
	bool stop;     /* q or Escape asked it to stop */
	uint64_t failed;
	int error;
	char name[4096];
};

/* The detail view: its file, and that file's parts and cached extents. */
struct browse_detail {
	uint32_t node; /* the file whose detail is shown, or BNODE_NONE */
	bool wanted;   /* the rows that come are its measure */
	struct segment *segments;
	size_t nsegments, segments_cap;
	struct extent *extents;
	size_t nextents, extents_cap, extents_all;
};

struct browser {
	const struct walk_config *cfg;
	/* what is browsed (struct browse_source), and what its scan found */
	const pid_t *pids; /* --pid: the processes whose files are listed */
	size_t npids;
	struct cgroup_set *cgroups; /* --cgroup: each a group of its files */
	bool system;                /* --system: the file systems at the top */
	struct system *sys;         /* --system's last scan: its mount table */
	struct walk_config fs_cfg;  /* --system: a directory walked again by it */
	struct system_figures figures; /* --system: the kernel's, at the scan */
	/* --system: the file systems not walked, and why (their rows' notes) */
	struct bnote {
		uint32_t node;
		const char *note;
	} *notes;
	size_t nnotes, notes_cap;
	struct btree tree;
	uint64_t page_size;
	unsigned known; /* PCS_* the method knows */
	/* the listing: the directory shown, its children in the order asked */
	uint32_t dir;
	uint32_t *list;
	size_t nlist, list_cap, sel, top;
	/* the selected entry's name, kept across a walk that makes its node
	 * anew (an offset in the tree's names, which stay), or UINT32_MAX */
	uint32_t keep_name;
	enum sort_key key;
	bool reverse, mixed; /* mixed: directories not first */
	bool interval;       /* i: measuring again every REFRESH_SECONDS */
	struct timespec next_refresh; /* i: when to measure again */
	struct strbuf path;
	bool utf8, color;
	bool quit;
	bool tty_gone; /* the terminal went away: the browser ends (quit) */
	struct browse_walk walk;
	struct browse_acting act;
	struct browse_detail detail;
	char status[4400];
};

static inline uint64_t ms_since(const struct timespec *t)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)(now.tv_sec - t->tv_sec) * 1000 +
	       (uint64_t)((now.tv_nsec - t->tv_nsec) / 1000000);
}

static inline uint64_t bytes_of(const struct browser *b, uint64_t pages)
{
	return pages * b->page_size;
}

/* The files call downwards only: browse.c (the terminal taken, the loop
 * of the keys) calls the three others; browse_act.c calls browse_scan.c
 * and browse_draw.c; browse_scan.c calls browse_draw.c. */

/* browse_draw.c: the screen, drawn and read, the listing's order */

void browse_draw_scan(struct browser *b, const char *path, size_t len);
void browse_draw_status(struct browser *b);
void browse_draw_listing(struct browser *b);
void browse_draw_detail(struct browser *b, uint32_t node);
/* The listing, or the detail shown. */
void browse_draw_shown(struct browser *b);
/* The keys' help, until a key. */
void browse_draw_help(struct browser *b);
/* The listing's lines on the screen. */
int browse_list_rows(void);
/* The next key (getch), or ERR when there is none yet; a terminal gone
 * sets b->quit and b->tty_gone. */
int browse_next_key(struct browser *b);
/* While a walk or a warm goes on: the keys typed so far read without
 * waiting (q stops), the others kept for after. */
void browse_poll_keys(struct browser *b);
/* The directory's children in the order asked; the same node stays
 * selected. */
void browse_make_list(struct browser *b);
/* Before a walk that makes the listed nodes anew. */
void browse_remember_selection(struct browser *b);
/* The status line's text. */
void browse_say(struct browser *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Why a file system of --system was not walked, or NULL. */
const char *browse_note_of(const struct browser *b, uint32_t node);
/* A file of --system's deleted files: no path leads to it. */
bool browse_deleted_entry(const struct browser *b, uint32_t node);
/* The cgroup of --cgroup whose group node is, or NULL. */
struct cgroup_figures *browse_cgroup_of(const struct browser *b, uint32_t node);

/* browse_scan.c: the walks and their sink */

/* The first walk, or --pid's, --system's or --cgroup's again. */
void browse_scan(struct browser *b, char *const *operands, struct walk_result *result);
/* The stamps of node's directories, after a walk that read them. */
void browse_stamp_dirs(struct browser *b, uint32_t node);
/* node's path walked again by req, its rows in place of node's; false
 * when q stopped it or the node is gone (said). */
bool browse_walk_again(struct browser *b, uint32_t node, const struct file_request *req);
/* e and w: req's action on node's files, the tree left as it is. */
void browse_act_walk(struct browser *b, uint32_t node, const struct file_request *req);
/* r and i: the directory shown measured again. */
void browse_refresh_dir(struct browser *b);
/* R: the directory shown walked again. */
void browse_rewalk_dir(struct browser *b);

/* browse_act.c: e, w and a file's detail */

/* e and w on node, after a question; in_detail: in a file's detail. */
void browse_act(struct browser *b, uint32_t node, enum action action, bool in_detail);
/* The detail view of a file until the user leaves it; false: q. */
bool browse_detail(struct browser *b, uint32_t node);

#endif
