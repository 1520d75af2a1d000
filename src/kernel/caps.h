/* SPDX-License-Identifier: MIT */
/* Capabilities: what the process holds, and what to say when refused. */
#ifndef PAGESTAT_CAPS_H
#define PAGESTAT_CAPS_H

#include <stdbool.h>

/* Before the command line is read: refuses a set-user-ID install, and
 * keeps only the capabilities any run may need (caps_drop's, with
 * CAP_SYS_PTRACE and CAP_IPC_LOCK) and CAP_SETPCAP, permitted only, for
 * caps_drop.  Returns 0, or an errno value with *what saying what failed. */
int caps_start(const char **what);

/* Keep only CAP_DAC_READ_SEARCH and CAP_FOWNER (and CAP_SYS_PTRACE when
 * processes: --pid; CAP_IPC_LOCK when lock: --lock), where held, in the
 * effective, permitted and bounding sets (the bounding set only when
 * CAP_SETPCAP allows), clear the inheritable and ambient sets, and set
 * no_new_privs.  Returns 0, or an errno value with *what saying what
 * failed.  Called once the command line is read, before any file is
 * inspected. */
int caps_drop(const char **what, bool processes, bool lock);

/* Around what is done to a file the user names (src/kernel/userfile.c, the one
 * caller): the effective set is cleared when the capabilities came with
 * the program file (setcap), and restored after.  They stay permitted,
 * for the inspection.  Per thread.  caps_user_begin is false (errno set)
 * when it could not clear them: then nothing is to be done. */
bool caps_user_begin(void);
void caps_user_end(void);

/* Gives the calling thread credentials of its own, the same as it has:
 * capset(2) of its own sets makes the kernel copy them for this thread
 * alone.  Each file opened takes a reference on its opener's credentials;
 * threads sharing them bounce that count between processors (src/walk/jobs.c's
 * workers call it).  Changes no right; false when capset failed. */
bool caps_thread_own(void);

/* The capabilities came with the program file (setcap): then what the
 * user names is done without them (caps_user_begin clears them). */
bool caps_borrowed(void);

/* In a fatal signal's handler: no capability that came with the file is
 * held from here on.  Async-signal-safe. */
void caps_user_for_good(void);

/* CAP_SYS_PTRACE in the effective set (kept for --pid where held). */
bool caps_have_ptrace(void);

/* --charged: caps_drop keeps CAP_SYS_ADMIN too, where held (root; a
 * setcap install grants it not).  Called before caps_drop. */
void caps_keep_sys_admin(void);

/* CAP_SYS_ADMIN in the effective set (kept for --charged where held). */
bool caps_have_sys_admin(void);

/* CAP_FOWNER in the effective set: the kernel's owner check for cachestat
 * (Linux 6.14, 6.12.12, 6.6 stable) and mincore (since 2019) is then
 * passed for any file. */
bool caps_have_fowner(void);

/* The capabilities pagestat uses that are effective now, as
 * "cap_dac_read_search,cap_fowner", or "none". */
const char *caps_describe(void);


#endif
