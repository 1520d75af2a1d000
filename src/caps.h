/* Capabilities: what the process holds, and what to say when refused. */
#ifndef PAGESTAT_CAPS_H
#define PAGESTAT_CAPS_H

#include <stdbool.h>
#include <stdio.h>

/* Keep only CAP_DAC_READ_SEARCH and CAP_FOWNER (and CAP_SYS_PTRACE when
 * processes: --pid), where held, in the effective, permitted and bounding
 * sets (the bounding set only when CAP_SETPCAP allows), clear the
 * inheritable and ambient sets, and set no_new_privs.  Returns 0, or an
 * errno value with *what saying what failed.  Called before any file is
 * opened. */
int caps_drop(const char **what, bool processes);

/* CAP_FOWNER in the effective set: the kernel's owner check for cachestat
 * (Linux >= 6.14) and mincore (>= 5.0) is then passed for any file. */
bool caps_have_fowner(void);

/* The capabilities pagestat uses that are effective now, as
 * "cap_dac_read_search,cap_fowner", or "none". */
const char *caps_describe(void);

/* Explain, once per run, why the kernel refused with EPERM and the remedy. */
void caps_explain_eperm(FILE *err);

#endif
