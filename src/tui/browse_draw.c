/* SPDX-License-Identifier: MIT */
/* --browse's screen: the listing (its header, lines and bars), the scan
 * under way, the status line, a file's detail and the keys' help; names
 * escaped as the table does and cut in the middle to fit.  The keyboard
 * read (a terminal gone noticed), the listing's order, and what the tree's
 * entries are (a file system not walked, a deleted file, a cgroup). */
#include <config.h>

#include "tui/browse_int.h"

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "modes/cgroup.h"
#include "lib/escape.h"
#include "lib/fail.h"
#include "lib/format.h"
#include "kernel/memstat.h"
#include "lib/xalloc.h"

/* Text already safe to show (escaped names, our words) as wide
 * characters, cut in the middle to width columns, into out.  A byte the
 * locale does not take (an escape cut short) ends it. */
static void fit_text(const struct browser *b, const char *text, size_t width, wchar_t *out,
		     size_t cap)
{
	wchar_t wide[4096];
	size_t n = 0, total = 0;
	mbstate_t st = { 0 };
	for (const char *p = text; *p && n < sizeof wide / sizeof wide[0] - 1;) {
		size_t k = mbrtowc(&wide[n], p, strlen(p), &st);
		if (k == 0 || k == (size_t)-1 || k == (size_t)-2)
			break;
		int w = wcwidth(wide[n]);
		total += w < 0 ? 1 : (size_t)w;
		n++;
		p += k;
	}
	wide[n] = 0;
	if (total <= width || width < 3) {
		wcsncpy(out, wide, cap - 1);
		out[cap - 1] = 0;
		return;
	}
	/* the start and the end, a mark between */
	size_t room = width - 1, left = 0, lw = 0, o = 0;
	while (left < n && o < cap - 2) {
		int w = wcwidth(wide[left]);
		size_t cw = w < 0 ? 1 : (size_t)w;
		if (lw + cw > (room + 1) / 2)
			break;
		out[o++] = wide[left++];
		lw += cw;
	}
	out[o++] = b->utf8 ? L'\u2026' : L'~';
	size_t right = n, rw = 0;
	while (right > left) {
		int w = wcwidth(wide[right - 1]);
		size_t cw = w < 0 ? 1 : (size_t)w;
		if (lw + rw + cw > room)
			break;
		right--;
		rw += cw;
	}
	while (right < n && o < cap - 1)
		out[o++] = wide[right++];
	out[o] = 0;
}

/* A name escaped as the table does (escape.c), then fitted. */
static void fit_name(const struct browser *b, const char *name, size_t len, size_t width,
		     wchar_t *out, size_t cap)
{
	char esc[4096];
	esc_terminal(esc, sizeof esc, name, len, b->utf8);
	fit_text(b, esc, width, out, cap);
}

static void put_name(const struct browser *b, int y, int x, const char *name, size_t width)
{
	wchar_t w[1024];
	fit_name(b, name, strlen(name), width, w, sizeof w / sizeof w[0]);
	mvaddwstr(y, x, w);
}

/* The cached share of pages as a bar of width cells: eighths of a block
 * in UTF-8, # in ASCII. */
static void put_bar(const struct browser *b, uint64_t part, uint64_t whole, int width)
{
	static const wchar_t *const eighths[] = { L"", L"\u258f", L"\u258e", L"\u258d",
						  L"\u258c", L"\u258b", L"\u258a", L"\u2589" };
	uint64_t units = whole ? (uint64_t)((long double)part * width * 8 / whole) : 0;
	if (part && !units)
		units = 1;
	if (b->color)
		attron(COLOR_PAIR(PAIR_BAR));
	int cells = 0;
	for (; cells < width && units >= 8; cells++, units -= 8)
		addwstr(b->utf8 ? L"\u2588" : L"#");
	/* the last part: an eighth in UTF-8; in ASCII a # when half full, or
	 * when it is all there is (a share above 0 is never drawn empty) */
	if (cells < width && units && (b->utf8 || units >= 4 || cells == 0)) {
		addwstr(b->utf8 ? eighths[units] : L"#");
		cells++;
	}
	if (b->color)
		attroff(COLOR_PAIR(PAIR_BAR));
	for (; cells < width; cells++)
		addch(b->utf8 ? ' ' : '.');
}

static const char *const key_names[] = {
	[SORT_CACHED] = "cached", [SORT_SIZE] = "size", [SORT_PERCENT] = "percent",
	[SORT_DIRTY] = "dirty", [SORT_EVICTED] = "evicted", [SORT_NAME] = "name",
};

static void figure(const struct browser *b, char buf[FMT_BUFSIZE], uint64_t pages, unsigned bit)
{
	if (!(b->known & bit))
		snprintf(buf, FMT_BUFSIZE, "-");
	else
		fmt_human(buf, bytes_of(b, pages));
}

/* "12.5%", or "-" when there is no page. */
static void percent(char buf[FMT_BUFSIZE], uint64_t cached, uint64_t pages)
{
	char p[FMT_BUFSIZE];
	if (fmt_percent(p, cached, pages))
		snprintf(buf, FMT_BUFSIZE, "%.8s%%", p); /* "100.0" at most */
	else
		snprintf(buf, FMT_BUFSIZE, "-");
}

void browse_draw_scan(struct browser *b, const char *path, size_t len)
{
	char files[FMT_BUFSIZE], bytes[FMT_BUFSIZE], cached[FMT_BUFSIZE];
	erase();
	fmt_u64(files, b->walk.files);
	fmt_human(bytes, b->walk.bytes);
	figure(b, cached, b->walk.cached, PCS_CACHED);
	mvprintw(0, 0, "pagestat --browse: scanning");
	mvprintw(2, 2, "files %s, %s (cached %s)", files, bytes, cached);
	if (path) {
		wchar_t w[1024];
		fit_name(b, path, len, COLS > 4 ? (size_t)COLS - 4 : 1, w, sizeof w / sizeof w[0]);
		mvaddwstr(3, 2, w);
	}
	mvprintw(LINES - 1, 0, "q quits; other keys wait for the scan");
	refresh();
}

void browse_draw_status(struct browser *b)
{
	move(LINES - 2, 0);
	clrtoeol();
	if (b->status[0]) {
		wchar_t w[1024];
		fit_text(b, b->status, (size_t)COLS - 1, w, sizeof w / sizeof w[0]);
		/* the status is ours: no escapes needed beyond the names' */
		mvaddwstr(LINES - 2, 0, w);
	}
}

/* name, size, cached, bar, percent, dirty, evicted: the fixed part's
 * columns after the name */
#define FIXED_COLUMNS 51
#define BAR_WIDTH 10

static void draw_line(struct browser *b, int y, uint32_t n, bool selected)
{
	const struct bnode *node = &b->tree.nodes[n];
	int namew = COLS - FIXED_COLUMNS;
	if (namew < 8)
		namew = 8;
	move(y, 0);
	clrtoeol();
	if (selected) {
		attron(A_REVERSE);
		mvhline(y, 0, ' ' | A_REVERSE, COLS);
	}
	chtype mark = node->change == BC_UP ? '+' : node->change == BC_DOWN ? '-'
						  : node->change == BC_NEW ? '*' : ' ';
	if (mark != ' ') {
		int pair = node->change == BC_DOWN ? PAIR_DOWN : PAIR_UP;
		if (b->color)
			attron(COLOR_PAIR(pair));
		attron(A_BOLD);
		mvaddch(y, 0, mark);
		attroff(A_BOLD);
		if (b->color)
			attroff(COLOR_PAIR(pair));
	}
	const char *name = btree_name(&b->tree, n);
	char shown[4096];
	size_t nlen = strlen(name);
	bool slash = node->kind == BN_DIR && !(nlen && name[nlen - 1] == '/');
	snprintf(shown, sizeof shown, "%s%s", name, slash ? "/" : "");
	put_name(b, y, 1, shown, (size_t)namew - 1);
	const char *note = browse_note_of(b, n);
	if (node->error || note) {
		char why[512];
		snprintf(why, sizeof why, " (%s)", note ? note : fail_strerror(node->error));
		mvaddnstr(y, namew, why, COLS > namew ? COLS - namew : 0);
		attroff(A_REVERSE);
		return;
	}
	char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE], dirty[FMT_BUFSIZE],
		evicted[FMT_BUFSIZE];
	fmt_human(size, node->size);
	figure(b, cached, node->cached, PCS_CACHED);
	percent(pct, node->cached, node->pages);
	figure(b, dirty, node->dirty, PCS_DIRTY);
	figure(b, evicted, node->evicted, PCS_EVICTED);
	mvprintw(y, namew, " %6s %6s [", size, cached);
	put_bar(b, node->cached, node->pages, BAR_WIDTH);
	printw("] %6s %6s %7s", pct, dirty, evicted);
	if (selected)
		attroff(A_REVERSE);
}

static void draw_header(struct browser *b)
{
	const struct bnode *d = &b->tree.nodes[b->dir];
	if (b->color)
		attron(COLOR_PAIR(PAIR_HEAD));
	attron(A_BOLD);
	move(0, 0);
	clrtoeol();
	btree_path(&b->tree, b->dir, &b->path);
	mvaddstr(0, 0, "pagestat --browse ");
	put_name(b, 0, 18, b->dir != 0 ? b->path.data
			   : b->system	? "(the machine: its file systems, as --system finds them)"
			   : b->cgroups ? "(the cgroups of --cgroup, each with its processes' files)"
			   : b->npids	? "(the files of the processes of --pid)"
					: "(the operands)",
		 COLS > 19 ? (size_t)COLS - 19 : 1);
	attroff(A_BOLD);
	char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE], dirty[FMT_BUFSIZE],
		evicted[FMT_BUFSIZE];
	fmt_human(size, d->size);
	figure(b, cached, d->cached, PCS_CACHED);
	percent(pct, d->cached, d->pages);
	figure(b, dirty, d->dirty, PCS_DIRTY);
	figure(b, evicted, d->evicted, PCS_EVICTED);
	move(1, 0);
	clrtoeol();
	char line[512], more[160] = "";
	const struct cgroup_figures *cg = browse_cgroup_of(b, b->dir);
	if (cg && cg->stat_read && memstat_known(&cg->stat, MEMSTAT_FILE)) {
		/* what the cgroup's own counter says, against what its files hold */
		char file[FMT_BUFSIZE], share[FMT_BUFSIZE];
		fmt_human(file, cg->stat.value[MEMSTAT_FILE]);
		if (fmt_percent(share, bytes_of(b, d->cached), cg->stat.value[MEMSTAT_FILE]))
			snprintf(more, sizeof more, "  cgroup's file %s (%s%% in these)", file,
				 share);
		else
			snprintf(more, sizeof more, "  cgroup's file %s", file);
	}
	snprintf(line, sizeof line, "size %s  cached %s (%s)  dirty %s  evicted %s  %zu entries%s%s",
		 size, cached, pct, dirty, evicted, b->nlist, more,
		 b->interval ? "  [i: every 2s]" : "");
	mvaddnstr(1, 0, line, COLS);
	if (b->color)
		attroff(COLOR_PAIR(PAIR_HEAD));
	int namew = COLS - FIXED_COLUMNS;
	if (namew < 8)
		namew = 8;
	move(2, 0);
	clrtoeol();
	attron(A_UNDERLINE);
	char head[64];
	snprintf(head, sizeof head, "name (by %s%s%s)", key_names[b->key],
		 b->reverse ? ", reversed" : "", b->mixed ? ", mixed" : "");
	mvprintw(2, 0, " %-*.*s", namew - 1, namew - 1, head);
	printw(" %6s %6s %-12s %6s %6s %7s", "size", "cached", " share", "pct", "dirty",
	       "evicted");
	attroff(A_UNDERLINE);
}

static void draw_footer(struct browser *b)
{
	move(LINES - 1, 0);
	clrtoeol();
	attron(A_REVERSE);
	mvaddnwstr(LINES - 1, 0,
		   b->utf8 ? L"?:help q:quit \u2191\u2193 \u2192:open \u2190:up "
			     L"cspdvn:sort t:dirs r:again i:auto e:evict w:warm"
			   : L"?:help q:quit j/k l:open h:up cspdvn:sort t:dirs "
			     L"r:again i:auto e:evict w:warm",
		   COLS);
	attroff(A_REVERSE);
}

int browse_list_rows(void)
{
	int rows = LINES - 5;
	return rows < 1 ? 1 : rows;
}

void browse_draw_listing(struct browser *b)
{
	int rows = browse_list_rows();
	if (b->sel >= b->nlist)
		b->sel = b->nlist ? b->nlist - 1 : 0;
	if (b->sel < b->top)
		b->top = b->sel;
	if (b->sel >= b->top + (size_t)rows)
		b->top = b->sel - (size_t)rows + 1;
	erase();
	draw_header(b);
	for (int i = 0; i < rows; i++) {
		size_t at = b->top + (size_t)i;
		if (at >= b->nlist)
			break;
		draw_line(b, 3 + i, b->list[at], at == b->sel);
	}
	if (b->nlist == 0)
		mvaddstr(3, 1, "(empty)");
	browse_draw_status(b);
	draw_footer(b);
	refresh();
}

/* The listing, or the detail shown. */
void browse_draw_shown(struct browser *b)
{
	if (b->detail.node != BNODE_NONE)
		browse_draw_detail(b, b->detail.node);
	else
		browse_draw_listing(b);
}

void browse_draw_help(struct browser *b)
{
	static const char *const lines[] = {
		"pagestat --browse: keys",
		"",
		"  up, down, k, j     move; PgUp, PgDn, Home, End",
		"  Enter, l, right    open the directory, or a file's detail",
		"  Backspace, h, left go up (out of the detail)",
		"  c s p d v n        sort by cached, size, percent, dirty, evicted, name;",
		"                     the same key again reverses",
		"  t                  directories first, or mixed with the files",
		"  r                  measure the directory's files again; walk again a",
		"                     directory whose listing changed (* new)",
		"  R                  walk the directory again (new files too)",
		"  i                  measure it every 2 seconds (again: stop);",
		"                     + more cached, - less since the measure before",
		"                     (and * new, after R)",
		"  e                  evict the selected file or directory (asks first);",
		"                     q or Escape stops the evict",
		"  w                  warm the selected file or directory (asks first);",
		"                     q or Escape stops the warm",
		"  ?                  this help; Ctrl-L draws the screen again",
		"  q                  quit",
		"",
		"any key goes back",
	};
	erase();
	for (size_t i = 0; i < sizeof lines / sizeof lines[0] && (int)i < LINES; i++)
		mvaddnstr((int)i, 0, lines[i], COLS);
	refresh();
	while (browse_next_key(b) == KEY_RESIZE)
		browse_draw_help(b);
}

/* The detail of a file: measured again with COLS parts and its cached
 * extents. */
void browse_draw_detail(struct browser *b, uint32_t node)
{
	const struct bnode *n = &b->tree.nodes[node];
	erase();
	btree_path(&b->tree, node, &b->path);
	attron(A_BOLD);
	mvaddstr(0, 0, "pagestat --browse ");
	put_name(b, 0, 18, b->path.data, COLS > 19 ? (size_t)COLS - 19 : 1);
	attroff(A_BOLD);
	if (n->error) {
		mvprintw(2, 0, "cannot inspect: %s", fail_strerror(n->error));
	} else {
		char size[FMT_BUFSIZE], cached[FMT_BUFSIZE], pct[FMT_BUFSIZE],
			dirty[FMT_BUFSIZE], evicted[FMT_BUFSIZE], pages[FMT_BUFSIZE];
		fmt_human(size, n->size);
		fmt_u64(pages, n->pages);
		figure(b, cached, n->cached, PCS_CACHED);
		percent(pct, n->cached, n->pages);
		figure(b, dirty, n->dirty, PCS_DIRTY);
		figure(b, evicted, n->evicted, PCS_EVICTED);
		mvprintw(2, 0, "size %s (%" PRIu64 " bytes, %s pages)", size, n->size, pages);
		mvprintw(3, 0, "cached %s (%s)  dirty %s  evicted %s", cached, pct, dirty,
			 evicted);
		mvprintw(5, 0, "segment map (%zu parts across %d columns):", b->detail.nsegments, COLS);
		move(6, 0);
		for (size_t x = 0; b->detail.nsegments && x < (size_t)COLS; x++) {
			const struct segment *s = &b->detail.segments[x * b->detail.nsegments / (size_t)COLS];
			bool full = s->pages && s->cached == s->pages;
			bool none = s->cached == 0;
			const wchar_t *c = b->utf8 ? (none ? L"\u00b7" : full ? L"\u2588"
						      : s->cached * 2 >= s->pages ? L"\u2593"
										 : L"\u2591")
						 : (none ? L"." : full ? L"#" : L"+");
			if (!none && b->color)
				attron(COLOR_PAIR(PAIR_BAR));
			addwstr(c);
			if (!none && b->color)
				attroff(COLOR_PAIR(PAIR_BAR));
		}
		mvprintw(8, 0, "cached extents: %zu", b->detail.extents_all);
		int y = 9;
		for (size_t i = 0; i < b->detail.nextents && y < LINES - 2; i++, y++) {
			char len[FMT_BUFSIZE];
			fmt_human(len, b->detail.extents[i].length);
			if (y == LINES - 3 && i + 1 < b->detail.extents_all) {
				mvprintw(y, 2, "... and %zu more", b->detail.extents_all - i);
				break;
			}
			mvprintw(y, 2, "offset %12" PRIu64 "  length %12" PRIu64 " (%s)",
				 b->detail.extents[i].offset, b->detail.extents[i].length, len);
		}
	}
	browse_draw_status(b);
	move(LINES - 1, 0);
	attron(A_REVERSE);
	mvaddnstr(LINES - 1, 0, "h/left/Backspace:back r:refresh e:evict w:warm q:quit", COLS);
	attroff(A_REVERSE);
	refresh();
}

/* Why a file system of --system was not walked, or NULL. */
const char *browse_note_of(const struct browser *b, uint32_t node)
{
	for (size_t i = 0; i < b->nnotes; i++)
		if (b->notes[i].node == node)
			return b->notes[i].note;
	return NULL;
}

/* A file of --system's deleted files: no path leads to it. */
bool browse_deleted_entry(const struct browser *b, uint32_t node)
{
	if (!b->system)
		return false;
	const struct bnode *n = &b->tree.nodes[node];
	return n->kind == BN_GROUP || (n->parent != BNODE_NONE && n->parent != 0 &&
				       b->tree.nodes[n->parent].kind == BN_GROUP);
}

/* The cgroup of --cgroup whose group node is, or NULL (--system's deleted
 * files). */
struct cgroup_figures *browse_cgroup_of(const struct browser *b, uint32_t node)
{
	if (!b->cgroups || b->tree.nodes[node].kind != BN_GROUP)
		return NULL;
	const char *name = btree_name(&b->tree, node);
	for (size_t i = 0; i < b->cgroups->n; i++)
		if (strcmp(b->cgroups->cgroups[i].dir, name) == 0)
			return &b->cgroups->cgroups[i];
	return NULL;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* percent of a against b, compared exactly: ca/pa against cb/pb */
static int cmp_share(const struct bnode *a, const struct bnode *b)
{
	unsigned __int128 l = (unsigned __int128)a->cached * b->pages;
	unsigned __int128 r = (unsigned __int128)b->cached * a->pages;
	return l < r ? -1 : l > r;
}

static int compare_nodes(const void *pa, const void *pb, void *ctx)
{
	const struct browser *b = ctx;
	const struct bnode *x = &b->tree.nodes[*(const uint32_t *)pa];
	const struct bnode *y = &b->tree.nodes[*(const uint32_t *)pb];
	bool xd = x->kind == BN_DIR || x->kind == BN_GROUP;
	bool yd = y->kind == BN_DIR || y->kind == BN_GROUP;
	if (!b->mixed && xd != yd)
		return xd ? -1 : 1;
	int c = 0;
	switch (b->key) {
	case SORT_CACHED: c = -cmp_u64(x->cached, y->cached); break;
	case SORT_SIZE: c = -cmp_u64(x->size, y->size); break;
	case SORT_PERCENT: c = -cmp_share(x, y); break;
	case SORT_DIRTY: c = -cmp_u64(x->dirty, y->dirty); break;
	case SORT_EVICTED: c = -cmp_u64(x->evicted, y->evicted); break;
	case SORT_NAME: break;
	}
	if (c == 0 || b->key == SORT_NAME)
		c = c ? c : strcmp(btree_name(&b->tree, *(const uint32_t *)pa),
				   btree_name(&b->tree, *(const uint32_t *)pb));
	return b->reverse ? -c : c;
}

/* The directory's children in the order asked; the same node stays
 * selected. */
void browse_make_list(struct browser *b)
{
	uint32_t keep = b->sel < b->nlist ? b->list[b->sel] : BNODE_NONE;
	const char *keep_name = b->keep_name != UINT32_MAX ? b->tree.names + b->keep_name : NULL;
	b->keep_name = UINT32_MAX;
	b->nlist = 0;
	for (uint32_t c = b->tree.nodes[b->dir].first; c != BNODE_NONE;
	     c = b->tree.nodes[c].next) {
		XGROW(b->list, b->list_cap, b->nlist + 1);
		b->list[b->nlist++] = c;
	}
	qsort_r(b->list, b->nlist, sizeof *b->list, compare_nodes, b);
	b->sel = 0;
	for (size_t i = 0; i < b->nlist; i++)
		if (keep_name ? strcmp(btree_name(&b->tree, b->list[i]), keep_name) == 0
			      : b->list[i] == keep)
			b->sel = i;
}

/* Before a walk that makes the listed nodes anew. */
void browse_remember_selection(struct browser *b)
{
	b->keep_name = b->sel < b->nlist ? b->tree.nodes[b->list[b->sel]].name : UINT32_MAX;
}

void browse_say(struct browser *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(b->status, sizeof b->status, fmt, ap);
	va_end(ap);
}

/* Has the terminal gone away (hung up, closed, at its end)?  Asked when
 * getch gave ERR, which it also gives for no key yet (nodelay, timeout). */
static bool terminal_gone(void)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	int n = poll(&p, 1, 0);
	if (n < 0)
		return errno != EINTR && errno != EAGAIN && errno != ENOMEM;
	return n > 0 && (p.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/* The next key (getch), or ERR when there is none yet.  A terminal that
 * went away (its window closed, the session killed: the read gives end
 * of file or EIO, for ever) ends the browser: b->quit and b->tty_gone are
 * set, and ERR returned, never a loop on it. */
int browse_next_key(struct browser *b)
{
	int ch = getch();
	if (ch != ERR || b->tty_gone)
		return ch;
	bool gone = terminal_gone();
	if (!gone) {
		/* input to read, yet no key: a read of nothing (end of file)
		 * or an error, unless a key came just after the ERR */
		struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
		if (poll(&p, 1, 0) == 1 && (p.revents & POLLIN)) {
			ch = getch(); /* does not wait: there is input */
			gone = ch == ERR;
		}
	}
	if (gone) {
		b->tty_gone = b->quit = true;
		b->act.stop = true; /* a warm or an evict under way stops too */
	}
	return ch;
}

/* Polled (without waiting) while a walk goes on: q stops it (and
 * pagestat); other keys wait.  A resize redraws. */
void browse_poll_keys(struct browser *b)
{
	int kept[32], ch;
	size_t n = 0;
	nodelay(stdscr, TRUE);
	while ((ch = browse_next_key(b)) != ERR) {
		if ((b->act.warming || b->act.evicting) && (ch == 'q' || ch == 'Q' || ch == 27))
			b->act.stop = true; /* the warm or evict stops, not pagestat */
		else if (ch == 'q' || ch == 'Q')
			b->quit = true;
		else if (ch == KEY_RESIZE)
			clear(); /* the next draw fills the new size */
		else if (n < sizeof kept / sizeof kept[0])
			kept[n++] = ch;
	}
	nodelay(stdscr, FALSE);
	/* for after the walk, in the order typed */
	while (n > 0)
		ungetch(kept[--n]);
}
