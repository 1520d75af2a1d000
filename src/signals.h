/* SIGINT, SIGTERM and SIGHUP: how a run ends when one comes. */
#ifndef PAGESTAT_SIGNALS_H
#define PAGESTAT_SIGNALS_H

#include <stdbool.h>

/* From now on, the first SIGINT or SIGTERM under -i (watch) asks the run
 * to stop after the sample under way (at once while it waits); any other
 * such signal ends it at once: the cleanup given to signals_on_death
 * runs, and pagestat dies of the signal, as without a handler.  A signal
 * ignored from the start (nohup) stays ignored, but for SIGINT and
 * SIGTERM under -i. */
void signals_catch(bool watch);

/* The signal that asked a watch to stop, or 0. */
int signals_stop_requested(void);

/* What to undo before dying of a signal (an async-signal-safe function),
 * or NULL for nothing. */
void signals_on_death(void (*cleanup)(void));

#endif
