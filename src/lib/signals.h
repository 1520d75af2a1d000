/* SPDX-License-Identifier: MIT */
/* The signals that end a run: how it ends when one comes. */
#ifndef PAGESTAT_SIGNALS_H
#define PAGESTAT_SIGNALS_H

#include <signal.h>
#include <stdbool.h>

/* From now on, the signals whose default action ends the process are
 * caught, but for those of a fault of the program's own (SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGTRAP, SIGSYS, SIGABRT), SIGPROF (a profiler's) and
 * SIGPIPE (main.c's).  The first SIGINT or SIGTERM under -i (watch) asks
 * the run to stop after the sample under way (at once while it waits);
 * any other such signal ends it at once: the cleanup given to
 * signals_on_death runs, on the thread that called this (whichever
 * thread the signal came to), and pagestat dies of the signal, as
 * without a handler.  A SIGXFSZ that the kernel sends for a write past
 * the file size limit (ulimit -f) is not one: the write fails with EFBIG,
 * a write error.  A signal ignored from the start (nohup) stays ignored,
 * but for SIGINT and SIGTERM under -i. */
void signals_catch(bool watch);

/* From now on (a --lock that holds), SIGHUP asks for the files to be
 * walked again instead of ending the run; signals_take_hup says whether
 * one came since it was last asked. */
void signals_hup_rewalks(void);
bool signals_take_hup(void);

/* The signal that asked a watch to stop, or 0. */
int signals_stop_requested(void);

/* Fills set with the signals signals_catch catches, to block them. */
void signals_ending(sigset_t *set);

/* What to undo before dying of a signal (an async-signal-safe function),
 * or NULL for nothing. */
void signals_on_death(void (*cleanup)(void));

/* The same for what a run made in the kernel (--trace's instance), beside
 * the output's: both run, this one second. */
void signals_on_death_kernel(void (*cleanup)(void));

#endif
