/* SPDX-License-Identifier: MIT */
/* Messages on standard error: "pagestat: " first, names shown safely. */
#ifndef PAGESTAT_MSG_H
#define PAGESTAT_MSG_H

#include <stddef.h>

/* "pagestat: " and the formatted text, after the progress meter is
 * erased; the text brings its own newline. */
void msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* More of a message begun with msg(). */
void msg_more(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A name from the command line or the file system, quoted ('NAME') and
 * escaped for the terminal (controls, invalid UTF-8). */
void msg_name(const char *name, size_t len);
void msg_name_str(const char *name);

/* A usage error's second line: "Try 'pagestat --help' for more
 * information." */
void msg_try_help(void);

#endif
