/* SPDX-License-Identifier: MIT */
/* --browse's e and w (asked first, stopped by q or Escape, said after)
 * and a file's detail view (its segment map and cached extents measured
 * again). */
#include <config.h>

#include "tui/browse_int.h"

#include <inttypes.h>
#include <stdio.h>

#include "lib/escape.h"
#include "lib/fail.h"
#include "lib/format.h"
#include "kernel/memstat.h"

/* w's pace, asked before each chunk of its warm (on this thread: w's
 * walk has no workers): the keyboard polled as between rows; q or Escape
 * stops it. */
static bool warm_chunk(void *ctx, uint64_t bytes)
{
	struct browser *b = ctx;
	(void)bytes;
	if (b->act.stop)
		return true;
	if (ms_since(&b->walk.drawn) < DRAW_MS)
		return false;
	clock_gettime(CLOCK_MONOTONIC, &b->walk.drawn);
	browse_poll_keys(b);
	if (!b->act.stop) {
		browse_say(b, "warming... (%" PRIu64 " files done) q or Escape stops", b->walk.files);
		browse_draw_status(b);
		refresh();
	}
	return b->act.stop;
}

static bool ask(struct browser *b, const char *question)
{
	browse_say(b, "%s [y/n]", question);
	browse_draw_shown(b);
	for (;;) {
		int ch = browse_next_key(b);
		if (b->quit)
			return false;
		if (ch == 'y' || ch == 'Y')
			return true;
		if (ch == KEY_RESIZE) {
			browse_draw_shown(b);
			continue;
		}
		if (ch != ERR)
			break;
	}
	browse_say(b, "nothing done");
	return false;
}

/* A file's detail measured again: as base asks, with a segment a column
 * and its cached extents. */
static bool measure_detail(struct browser *b, uint32_t node, const struct file_request *base)
{
	struct file_request req = *base;
	/* a part a column, but no part smaller than a page: each column
	 * then shows the part it falls in */
	uint64_t parts = COLS > 1 ? (uint64_t)COLS : 1;
	if (parts > b->tree.nodes[node].pages)
		parts = b->tree.nodes[node].pages ? b->tree.nodes[node].pages : 1;
	req.measure.segments = parts > 4096 ? 4096 : (unsigned)parts;
	req.measure.extents = EXTENTS_CACHED;
	b->detail.wanted = true;
	b->detail.nsegments = b->detail.nextents = b->detail.extents_all = 0;
	bool ok = browse_walk_again(b, node, &req);
	b->detail.wanted = false;
	return ok;
}

/* Why e or w (verb) has nothing to act on at node (a file system not
 * walked, a deleted file), said; false when it has. */
static bool act_refused(struct browser *b, uint32_t node, const char *verb, const char *name)
{
	const char *note = browse_note_of(b, node);
	if (note) {
		browse_say(b, "%s: %s: nothing to %s", name, note, verb);
		return true;
	}
	if (browse_deleted_entry(b, node)) {
		browse_say(b, "a deleted file has no path to open as you: nothing to %s (pagestat "
			   "--evict acts on files by their names)", verb);
		return true;
	}
	return false;
}

/* The question e or w asks, saying how much, into question (size
 * bytes); false when w would read more than the memory available
 * (said). */
static bool act_question(struct browser *b, uint32_t node, enum action action, const char *name,
			 char *question, size_t size)
{
	const struct bnode *n = &b->tree.nodes[node];
	char what[FMT_BUFSIZE];
	if (action == ACTION_EVICT) {
		fmt_human(what, bytes_of(b, n->cached));
		snprintf(question, size, "evict the %s cached of %s?", what, name);
		return true;
	}
	uint64_t missing = bytes_of(b, n->pages - n->cached), available;
	fmt_human(what, missing);
	if (meminfo_bytes("MemAvailable", &available) && missing > available) {
		char have[FMT_BUFSIZE];
		fmt_human(have, available);
		browse_say(b, "warm: %s to read, more than the %s of memory available: nothing "
			   "read", what, have);
		return false;
	}
	snprintf(question, size, "read the %s missing of %s into the cache?", what, name);
	return true;
}

/* The action on node's files, q or Escape read meanwhile (a warm's
 * chunks paced by warm_chunk, an evict stopped between two files); true
 * when they stopped it. */
static bool act_run(struct browser *b, uint32_t node, enum action action)
{
	struct file_request req = *b->cfg->req;
	req.action = action;
	browse_remember_selection(b);
	b->act.stop = false;
	if (action == ACTION_WARM) {
		b->act.warming = true;
		req.pace = (struct pace){ .fn = warm_chunk, .ctx = b };
	} else {
		b->act.evicting = true; /* stopped between two files */
	}
	browse_act_walk(b, node, &req);
	b->act.warming = b->act.evicting = false;
	bool stopped = b->act.stop;
	b->act.stop = false;
	return stopped;
}

/* What e or w did to node, measured again, said; before and
 * dirty_before: its cached and dirty pages before. */
static void act_said(struct browser *b, uint32_t node, enum action action, const char *name,
		     uint64_t before, uint64_t dirty_before, bool stopped)
{
	const char *verb = action == ACTION_EVICT ? "evict" : "warm";
	char was[FMT_BUFSIZE], now[FMT_BUFSIZE], failed[4400] = "";
	fmt_human(was, bytes_of(b, before));
	fmt_human(now, bytes_of(b, b->tree.nodes[node].cached));
	int err = b->tree.nodes[node].error;
	if (b->act.failed)
		snprintf(failed, sizeof failed, "; %" PRIu64 " could not be %sed: %s: %s%s",
			 b->act.failed, verb, b->act.name, fail_strerror(b->act.error),
			 b->act.failed > 1 ? ", and others" : "");
	if (b->act.failed && b->tree.nodes[node].kind == BN_FILE)
		browse_say(b, "cannot %s %s: %s", verb, name, fail_strerror(b->act.error));
	else if (err)
		browse_say(b, "%s of %s done, but it cannot be measured after: %s", verb, name,
			   fail_strerror(err));
	else if (stopped)
		browse_say(b, "%s of %s stopped (q or Escape): cached %s before, %s now%s", verb, name,
			   was, now, failed);
	else if (b->act.failed)
		browse_say(b, "%sed %s: cached %s before, %s now%s", verb, name, was, now, failed);
	else if (action == ACTION_EVICT && dirty_before && b->tree.nodes[node].cached)
		browse_say(b, "evicted %s: cached %s before, %s now: the kernel drops clean pages only, "
			   "and dirty ones were being written back (e again once written, or run sync)",
			   name, was, now);
	else
		browse_say(b, "%sed %s: cached %s before, %s now", verb, name, was, now);
}

/* e and w: the selected entry, after a question that says how much; in a
 * file's detail (in_detail), measured after as the detail is. */
void browse_act(struct browser *b, uint32_t node, enum action action, bool in_detail)
{
	const struct bnode *n = &b->tree.nodes[node];
	char question[4200], name[4096];
	btree_path(&b->tree, node, &b->path);
	esc_terminal(name, sizeof name, b->path.data, b->path.len, b->utf8);
	if (act_refused(b, node, action == ACTION_EVICT ? "evict" : "warm", name))
		return;
	uint64_t before = n->cached, dirty_before = n->dirty;
	if (!act_question(b, node, action, name, question, sizeof question) || !ask(b, question))
		return;
	bool stopped = act_run(b, node, action);
	if (b->quit)
		return;
	/* what the files hold now, measured as r does: a file the action
	 * could not open is as it was, and keeps its figures and its line */
	if (!(in_detail ? measure_detail(b, node, b->cfg->req)
			: browse_walk_again(b, node, b->cfg->req)))
		return; /* gone (said), or q */
	act_said(b, node, action, name, before, dirty_before, stopped);
	browse_make_list(b);
}

/* The detail view until the user leaves it; false: q. */
bool browse_detail(struct browser *b, uint32_t node)
{
	b->status[0] = 0;
	measure_detail(b, node, b->cfg->req);
	b->detail.node = node;
	for (;;) {
		if (b->quit) {
			b->detail.node = BNODE_NONE;
			return false;
		}
		browse_draw_detail(b, node);
		int ch = browse_next_key(b);
		switch (ch) {
		case 'q':
		case 'Q':
			b->detail.node = BNODE_NONE;
			return false;
		case 'h':
		case KEY_LEFT:
		case KEY_BACKSPACE:
		case 127:
		case 8:
		case 27:
			b->detail.node = BNODE_NONE;
			return true;
		case 'r':
			measure_detail(b, node, b->cfg->req);
			break;
		case 'e':
		case 'w':
			browse_act(b, node, ch == 'e' ? ACTION_EVICT : ACTION_WARM, true);
			break;
		default:
			break;
		}
	}
}
