/* SPDX-License-Identifier: MIT */
/* --browse: the walk's rows as a tree on a full screen (ncursesw), one
 * directory at a time; keys sort, open, refresh, evict and warm.  This
 * file holds the terminal (taken, given back on a signal or a fault) and
 * the loop of the keys; the screen and the keyboard are browse_draw.c's,
 * the walks browse_scan.c's, e, w and the detail browse_act.c's. */
#include <config.h>

#include "tui/browse_int.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "lib/escape.h"
#include "lib/format.h"
#include "lib/msg.h"
#include "lib/signals.h"
#include "lib/status.h"
#include "kernel/userfile.h"

/* What the terminal needs back, for a signal's death (signals_on_death)
 * or a fault: the process's one terminal.  saved_tty its modes before
 * (tty_saved: read), restore_seq the capabilities that end curses'
 * screen, fault_before the fault actions there were (catch_faults). */
static const int faults[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
static struct {
	struct termios saved_tty;
	bool tty_saved;
	char restore_seq[256];
	size_t restore_len;
	struct sigaction fault_before[sizeof faults / sizeof faults[0]];
} term;

static void restore_terminal(void)
{
	if (term.restore_len)
		(void)!write(STDOUT_FILENO, term.restore_seq, term.restore_len);
	if (term.tty_saved)
		(void)tcsetattr(STDIN_FILENO, TCSAFLUSH, &term.saved_tty);
}

/* A fault of the program's own (signals.c leaves them alone): the
 * terminal back, then the action there was before, the fault again. */

static void on_fault(int sig)
{
	restore_terminal();
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		if (faults[i] == sig)
			(void)sigaction(sig, &term.fault_before[i], NULL);
	/* pending until the handler returns; a fault then also comes again */
	(void)raise(sig);
}

static void catch_faults(bool on)
{
	struct sigaction sa = { .sa_handler = on_fault };
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++)
		(void)sigaction(faults[i], on ? &sa : &term.fault_before[i], on ? &term.fault_before[i] : NULL);
}

static void keep_cap(const char *name)
{
	char *s = tigetstr(name);
	/* (char *)-1: not a string capability */
	if (!s || (uintptr_t)s == UINTPTR_MAX)
		return;
	size_t n = strlen(s);
	if (term.restore_len + n + 1 <= sizeof term.restore_seq) {
		memcpy(term.restore_seq + term.restore_len, s, n + 1);
		term.restore_len += n;
	}
}

static void set_key(struct browser *b, enum sort_key key)
{
	if (b->key == key)
		b->reverse = !b->reverse;
	else
		b->key = key, b->reverse = false;
	browse_make_list(b);
}

static void go_up(struct browser *b)
{
	uint32_t parent = b->tree.nodes[b->dir].parent;
	if (b->dir == 0 || parent == BNODE_NONE)
		return;
	if (parent == 0 && btree_count_children(&b->tree, 0) == 1)
		return; /* one operand: its directory is the top */
	uint32_t from = b->dir;
	b->dir = parent;
	b->sel = 0;
	b->nlist = 0;
	browse_make_list(b);
	for (size_t i = 0; i < b->nlist; i++)
		if (b->list[i] == from)
			b->sel = i;
}

/* The keys that move the selection; false for any other key. */
static bool move_key(struct browser *b, int ch)
{
	switch (ch) {
	case KEY_UP:
	case 'k':
		if (b->sel > 0)
			b->sel--;
		return true;
	case KEY_DOWN:
	case 'j':
		if (b->sel + 1 < b->nlist)
			b->sel++;
		return true;
	case KEY_PPAGE:
		b->sel = b->sel > (size_t)browse_list_rows() ? b->sel - (size_t)browse_list_rows() : 0;
		return true;
	case KEY_NPAGE:
		b->sel += (size_t)browse_list_rows();
		return true;
	case KEY_HOME:
	case 'g':
		b->sel = 0;
		return true;
	case KEY_END:
	case 'G':
		b->sel = b->nlist ? b->nlist - 1 : 0;
		return true;
	default:
		return false;
	}
}

/* The keys that sort (c s p d v n; the same again reverses) and t;
 * false for any other key. */
static bool order_key(struct browser *b, int ch)
{
	switch (ch) {
	case 'c': set_key(b, SORT_CACHED); return true;
	case 's': set_key(b, SORT_SIZE); return true;
	case 'p': set_key(b, SORT_PERCENT); return true;
	case 'd': set_key(b, SORT_DIRTY); return true;
	case 'v': set_key(b, SORT_EVICTED); return true;
	case 'n': set_key(b, SORT_NAME); return true;
	case 't':
		b->mixed = !b->mixed;
		browse_make_list(b);
		return true;
	default:
		return false;
	}
}

/* Enter on sel: a directory (or a group) shown, a file's detail; false
 * when q left the detail. */
static bool open_entry(struct browser *b, uint32_t sel)
{
	if (sel == BNODE_NONE)
		return true;
	if (b->tree.nodes[sel].kind == BN_DIR || b->tree.nodes[sel].kind == BN_GROUP) {
		b->dir = sel;
		b->sel = b->top = 0;
		b->nlist = 0;
		b->status[0] = 0;
		browse_make_list(b);
	} else if (b->tree.nodes[sel].kind == BN_FILE) {
		if (!browse_detail(b, sel))
			return false;
		browse_make_list(b);
	}
	return true;
}

/* i: measuring every REFRESH_SECONDS, or no longer. */
static void toggle_interval(struct browser *b)
{
	b->interval = !b->interval;
	clock_gettime(CLOCK_MONOTONIC, &b->next_refresh);
	browse_say(b, b->interval ? "i: measuring every %d seconds" : "i: stopped",
		   REFRESH_SECONDS);
}

/* i: the directory measured again when its time has come. */
static void interval_tick(struct browser *b)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec >= b->next_refresh.tv_sec) {
		browse_refresh_dir(b);
		b->next_refresh.tv_sec = now.tv_sec + REFRESH_SECONDS;
	}
}

/* A key of the listing; false: pagestat quits. */
static bool listing_key(struct browser *b, int ch)
{
	uint32_t sel = b->sel < b->nlist ? b->list[b->sel] : BNODE_NONE;
	if (move_key(b, ch) || order_key(b, ch))
		return true;
	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case '\n':
	case '\r':
	case KEY_ENTER:
	case KEY_RIGHT:
	case 'l':
		return open_entry(b, sel);
	case KEY_LEFT:
	case KEY_BACKSPACE:
	case 127:
	case 8:
	case 'h':
		b->status[0] = 0;
		go_up(b);
		break;
	case 'r':
		browse_refresh_dir(b);
		break;
	case 'R':
		browse_rewalk_dir(b);
		break;
	case 'i':
		toggle_interval(b);
		break;
	case 'e':
	case 'w':
		if (sel != BNODE_NONE && !b->tree.nodes[sel].error)
			browse_act(b, sel, ch == 'e' ? ACTION_EVICT : ACTION_WARM, false);
		break;
	case '?':
		browse_draw_help(b);
		break;
	case 'L' & 0x1f: /* Ctrl-L, as in less and top */
		clear();
		break;
	default:
		break;
	}
	return true;
}

/* The keys, until q. */
static void browse_loop(struct browser *b)
{
	while (!b->quit) {
		browse_draw_listing(b);
		timeout(b->interval ? 200 : -1);
		int ch = browse_next_key(b);
		timeout(-1);
		if (b->quit)
			return;
		if (b->interval)
			interval_tick(b);
		if (!listing_key(b, ch))
			return;
	}
}

static int start_curses(void *arg)
{
	(void)arg;
	initscr(); /* which ends pagestat, said, where the terminal is unknown */
	return 0;
}

static void start_screen(struct browser *b)
{
	if (tcgetattr(STDIN_FILENO, &term.saved_tty) == 0)
		term.tty_saved = true;
	/* a signal that ends pagestat ends it with the terminal given back */
	signals_catch(false);
	/* the terminal's description read with the user's rights (TERMINFO
	 * and ~/.terminfo name files of the user's choosing) */
	(void)user_call(start_curses, NULL);
	keep_cap("sgr0");
	keep_cap("cnorm");
	keep_cap("rmcup");
	signals_on_death(restore_terminal);
	catch_faults(true);
	cbreak();
	noecho();
	keypad(stdscr, TRUE);
	set_escdelay(100); /* Escape alone (out of the detail, a warm's stop) */
	curs_set(0);
	const char *no_color = getenv("NO_COLOR");
	b->color = has_colors() && !(no_color && no_color[0]);
	if (b->color) {
		start_color();
		use_default_colors();
		init_pair(PAIR_HEAD, COLOR_CYAN, -1);
		init_pair(PAIR_BAR, COLOR_GREEN, -1);
		init_pair(PAIR_UP, COLOR_GREEN, -1);
		init_pair(PAIR_DOWN, COLOR_RED, -1);
	}
}

static void end_screen(void)
{
	curs_set(1);
	endwin();
	signals_on_death(NULL);
	catch_faults(false);
}

/* The terminals and ncursesw, before anything is walked; false, with the
 * status to end with, when --browse cannot run (said). */
static bool browse_ready(int *status)
{
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
		msg("--browse needs a terminal: standard %s is not one\n",
		    isatty(STDOUT_FILENO) ? "input" : "output");
		*status = STATUS_USAGE;
		return false;
	}
	struct curses_load load = { .why = "" };
	if (user_call(browse_curses_open, &load) != 0) {
		/* as --system without libmount: said, nothing walked, status 1 */
		msg("--browse: cannot load the terminal library: %s\n",
		    load.why[0] ? load.why : strerror(errno));
		*status = STATUS_SOME_FAILED;
		return false;
	}
	return true;
}

/* The first scan's coverage of the page cache (--system), or its
 * failures, in the status line. */
static void scan_said(struct browser *b, const struct walk_result *result)
{
	char share[FMT_BUFSIZE], refused[160] = "";
	if (result->refused)
		snprintf(refused, sizeof refused, " (%" PRIu64 " refused: see PRIVILEGES)",
			 result->refused);
	if (b->system && b->figures.known &&
	    fmt_percent(share, bytes_of(b, b->tree.nodes[0].cached),
			b->figures.cached + b->figures.buffers))
	{
		char failed[96] = "";
		if (result->errors)
			snprintf(failed, sizeof failed, "; %" PRIu64 " not inspected",
				 result->errors);
		browse_say(b, "coverage %s%% of the page cache (Cached + Buffers)%s%s", share,
			   failed, refused);
	}
	else if (result->errors)
		browse_say(b, "%" PRIu64 " could not be inspected: their lines say why%s",
			   result->errors, refused);
}

/* After the first scan: the tree ended, the directory first shown (an
 * operand alone: its own), what the scan found said. */
static void first_screen(struct browser *b, const struct browse_source *src,
			 const struct walk_result *result)
{
	struct row total = { .type = ROW_TOTAL, .stat = result->total.stat };
	btree_end_scan(&b->tree, &total);
	if (!src->npids)
		browse_stamp_dirs(b, 0);
	uint32_t first = b->tree.nodes[0].first;
	if (first != BNODE_NONE && b->tree.nodes[first].next == BNODE_NONE &&
	    (b->tree.nodes[first].kind == BN_DIR || b->tree.nodes[first].kind == BN_GROUP))
		b->dir = first;
	browse_make_list(b);
	scan_said(b, result);
}

static void browser_free(struct browser *b)
{
	btree_free(&b->tree);
	system_free(b->sys);
	free(b->notes);
	free(b->list);
	free(b->detail.segments);
	free(b->detail.extents);
	sb_free(&b->path);
}

int browse_run(const struct walk_config *cfg, const struct browse_source *src)
{
	int status;
	if (!browse_ready(&status))
		return status;
	struct walk_config all = *cfg;
	all.all = true;      /* a node for every file */
	all.max_depth = LONG_MAX; /* a node for every directory too */
	all.quiet = true;    /* failures are the tree's, on the screen */
	struct browser b = {
		.cfg = &all,
		.pids = src->pids,
		.npids = src->npids,
		.system = src->system,
		.cgroups = src->cgroups,
		.page_size = inspect_page_size(cfg->ins),
		.known = inspect_known(cfg->ins),
		.utf8 = esc_locale_is_utf8(),
		.walk = { .scanning = true },
		.keep_name = UINT32_MAX,
		.detail = { .node = BNODE_NONE },
	};
	btree_init(&b.tree);
	start_screen(&b);
	clock_gettime(CLOCK_MONOTONIC, &b.walk.drawn);
	browse_draw_scan(&b, NULL, 0);

	struct walk_result result = { 0 };
	browse_scan(&b, src->operands, &result);
	b.walk.scanning = false;
	if (!b.quit) {
		first_screen(&b, src, &result);
		browse_loop(&b);
	}
	end_screen();
	browser_free(&b);
	if (b.tty_gone) {
		/* ended as a hang-up signal ends pagestat (signals.c): by
		 * SIGHUP; where it is ignored (nohup), status 3: the screen, its
		 * output, could not be shown */
		msg("--browse: the terminal went away (hang-up or end of input)\n");
		(void)raise(SIGHUP);
		return STATUS_FATAL;
	}
	return result.errors ? STATUS_SOME_FAILED : STATUS_OK;
}
