/* SPDX-License-Identifier: MIT */
/* Not built: tests/cli.bats compiles it to show that a row of the option
 * table cannot store a value into a field of the wrong type (options_int.h's
 * macros choose the store by the field's type, from the types each kind of
 * value may go to).  As it is, it compiles; with -DWRONG_STORE, each row
 * below must be refused. */
#include "options_int.h"

const struct opt_spec rows[] = {
	{ 'q', "quiet", ARG_NONE, NULL, GROUP_OUTPUT, "a bool", NULL, SET(IN(quiet), 1) },
	{ 'd', "max-depth", ARG_REQUIRED, "N", GROUP_ROWS, "a long", NULL,
	  WHOLE(IN(max_depth), 0, 1, "depth") },
	{ 'f', "format", ARG_REQUIRED, "F", GROUP_OUTPUT, "an enum", NULL,
	  NAME(IN(format), NULL, "format") },
#if defined(WRONG_STORE) && WRONG_STORE == 1
	/* a whole number into a bool (STORE_INT's old mistake) */
	{ 'q', "quiet", ARG_REQUIRED, "N", GROUP_OUTPUT, "wrong", NULL,
	  WHOLE(IN(quiet), 0, 1, "quiet") },
#elif defined(WRONG_STORE) && WRONG_STORE == 2
	/* a number of seconds into a whole number */
	{ 'i', "interval", ARG_REQUIRED, "S", GROUP_WATCH, "wrong", NULL,
	  DECIMAL(IN(count), 0, 1, "seconds", NULL, "seconds") },
#elif defined(WRONG_STORE) && WRONG_STORE == 3
	/* a file's name into a number */
	{ 'p', "pidfile", ARG_REQUIRED, "FILE", GROUP_ACTIONS, "wrong", NULL,
	  FILENAME(IN(lock_max), "pid file") },
#endif
};
