/* SPDX-License-Identifier: MIT */
/* --browse's ncursesw opened with dlopen(3) when --browse starts, and the
 * table of its functions and variables filled (browse_curses.h). */
#include <config.h>

#define BROWSE_CURSES_FILLING 1 /* the table's members by their own names */
#include "tui/browse_curses.h"

#include <dlfcn.h>
#include <stdio.h>

struct browse_curses browse_curses;

static const char *const curses_sonames[] = { NCURSESW_SONAMES };
#define NSONAMES (sizeof curses_sonames / sizeof curses_sonames[0])

/* A symbol of the libraries opened (each in the order configure gave). */
static void *curses_symbol(void *const *handles, const char *name)
{
	for (size_t i = 0; i < NSONAMES; i++) {
		void *p = dlsym(handles[i], name);
		if (p)
			return p;
	}
	return NULL;
}

/* The libraries opened and every name of the table resolved, with the
 * user's rights (user_call: what a user names, LD_LIBRARY_PATH aside,
 * which the loader ignores for a setcap program); 0, or -1 with why. */
int browse_curses_open(void *arg)
{
	struct curses_load *l = arg;
	void *handles[NSONAMES];
	for (size_t i = 0; i < NSONAMES; i++) {
		handles[i] = dlopen(curses_sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (!handles[i]) {
			const char *err = dlerror();
			snprintf(l->why, sizeof l->why, "%s", err ? err : curses_sonames[i]);
			return -1;
		}
	}
	/* NOLINTNEXTLINE(bugprone-macro-parentheses): name is a member's name */
#define RESOLVE(name)                                                                      \
	if (!((browse_curses.name) =                                                       \
		      (__typeof__(browse_curses.name))curses_symbol(handles, #name))) {          \
		snprintf(l->why, sizeof l->why, "%s: no %s", curses_sonames[0], #name);    \
		return -1;                                                                 \
	}
	CURSES_FUNCTIONS(RESOLVE)
	CURSES_VARIABLES(RESOLVE)
#undef RESOLVE
	return 0; /* the libraries stay to the end */
}
