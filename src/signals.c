/* SIGINT, SIGTERM and SIGHUP: how a run ends when one comes. */
#include <config.h>

#include "signals.h"

#include <signal.h>
#include <stddef.h>

static bool watching;
static volatile sig_atomic_t stop_signal;
static void (*volatile cleanup_on_death)(void);

static void on_signal(int sig)
{
	/* the first asks a watch to end after its sample; a second (or
	 * SIGHUP: no terminal left to show it) does not wait */
	if (watching && !stop_signal && sig != SIGHUP) {
		stop_signal = sig;
		return;
	}
	void (*cleanup)(void) = cleanup_on_death;
	if (cleanup)
		cleanup();
	signal(sig, SIG_DFL);
	/* blocked until the handler returns, then delivered: death */
	(void)raise(sig);
}

void signals_catch(bool watch)
{
	static const int signals[] = { SIGHUP, SIGINT, SIGTERM };
	/* no SA_RESTART would make a write to a slow pipe fail with EINTR;
	 * the wait between samples (clock_nanosleep) is cut short anyway */
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART };

	watching = watch;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		sigaddset(&sa.sa_mask, signals[i]);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
		/* an ignored signal stays ignored (nohup), but that a shell
		 * script's background job ignores SIGINT must not make a
		 * watch unstoppable by it */
		struct sigaction was;
		if ((watch && signals[i] != SIGHUP) ||
		    (sigaction(signals[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN))
			sigaction(signals[i], &sa, NULL);
	}
}

int signals_stop_requested(void)
{
	return stop_signal;
}

void signals_on_death(void (*cleanup)(void))
{
	cleanup_on_death = cleanup;
}
