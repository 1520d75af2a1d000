/* SPDX-License-Identifier: MIT */
/* --browse's ncursesw: one table of the functions and variables its files
 * use, filled by browse_curses.c with dlopen(3), and each name defined as
 * the table's, so that <curses.h>'s macros call through it. */
#ifndef PAGESTAT_BROWSE_CURSES_H
#define PAGESTAT_BROWSE_CURSES_H

#define NCURSES_WIDECHAR 1
#include <curses.h>

/* tigetstr; terminfo's names of capabilities as macros not used here */
#include <term.h>
#undef columns
#undef lines

/*
 * ncursesw and libtinfo are opened with dlopen(3) when --browse starts,
 * never linked: loading them (and the terminal database's look-ups of
 * their constructors) would slow every run on one file.  configure names
 * the libraries (NCURSESW_SONAMES: of a program linked as pkg-config says,
 * what it needs of ncurses and tinfo).  Every function and variable used
 * here is one pointer of this table, with the type <curses.h> gives it;
 * after browse_curses_open each name is defined as the table's, so the header's
 * macros (getch(), attron(), mvaddstr()...) expand to calls through it.  Variables
 * (stdscr, LINES, COLS) are resolved as data: a pointer to each.
 */
#define CURSES_FUNCTIONS(X)                                                                 \
	X(initscr) X(endwin) X(cbreak) X(noecho) X(keypad) X(set_escdelay) X(curs_set)     \
	X(has_colors) X(start_color) X(use_default_colors) X(init_pair) X(nodelay)         \
	X(wtimeout) X(wgetch) X(ungetch) X(werase) X(wclear) X(wrefresh) X(wmove)          \
	X(wclrtoeol) X(wattr_on) X(wattr_off) X(whline) X(waddch) X(waddnstr)              \
	X(waddnwstr) X(printw) X(mvprintw) X(tigetstr)
#define CURSES_VARIABLES(X) X(stdscr) X(LINES) X(COLS)

struct browse_curses {
/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name there */
#define POINTER(name) __typeof__(name) *name;
	CURSES_FUNCTIONS(POINTER)
	CURSES_VARIABLES(POINTER)
#undef POINTER
};

extern struct browse_curses browse_curses;

struct curses_load {
	char why[512]; /* why it could not be loaded, or "" */
};

/* The libraries opened and every name of the table resolved, with the
 * user's rights (user_call: what a user names, LD_LIBRARY_PATH aside,
 * which the loader ignores for a setcap program); 0, or -1 with why
 * (arg: a struct curses_load). */
int browse_curses_open(void *arg);

/* In every file but the one that fills the table, each name is the
 * table's (the table's members have the names themselves). */
#ifndef BROWSE_CURSES_FILLING
#define initscr (browse_curses.initscr)
#define endwin (browse_curses.endwin)
#define cbreak (browse_curses.cbreak)
#define noecho (browse_curses.noecho)
#define keypad (browse_curses.keypad)
#define set_escdelay (browse_curses.set_escdelay)
#define curs_set (browse_curses.curs_set)
#define has_colors (browse_curses.has_colors)
#define start_color (browse_curses.start_color)
#define use_default_colors (browse_curses.use_default_colors)
#define init_pair (browse_curses.init_pair)
#define nodelay (browse_curses.nodelay)
#define wtimeout (browse_curses.wtimeout)
#define wgetch (browse_curses.wgetch)
#define ungetch (browse_curses.ungetch)
#define werase (browse_curses.werase)
#define wclear (browse_curses.wclear)
#define wrefresh (browse_curses.wrefresh)
#define wmove (browse_curses.wmove)
#define wclrtoeol (browse_curses.wclrtoeol)
#define wattr_on (browse_curses.wattr_on)
#define wattr_off (browse_curses.wattr_off)
#define whline (browse_curses.whline)
#define waddch (browse_curses.waddch)
#define waddnstr (browse_curses.waddnstr)
#define waddnwstr (browse_curses.waddnwstr)
#define printw (browse_curses.printw)
#define mvprintw (browse_curses.mvprintw)
#define tigetstr (browse_curses.tigetstr)
#define stdscr (*browse_curses.stdscr)
#define LINES (*browse_curses.LINES)
#define COLS (*browse_curses.COLS)
#endif

#endif
