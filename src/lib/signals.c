/* SPDX-License-Identifier: MIT */
/* The signals that end a run: how it ends when one comes. */
#include <config.h>

#include "lib/signals.h"

#include <stddef.h>
#include <unistd.h>

/* Those whose default action ends the process, real-time ones aside:
 * not the faults, SIGPROF or SIGPIPE (signals.h). */
static const int ending[] = {
	SIGHUP, SIGINT, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGTERM, SIGXCPU, SIGXFSZ,
	SIGVTALRM, SIGIO,
#ifdef SIGSTKFLT
	SIGSTKFLT,
#endif
#ifdef SIGPWR
	SIGPWR,
#endif
};

/* What the handler reads and sets, and how it was set up. */
static struct {
	bool watching;
	volatile sig_atomic_t stop_signal;
	volatile sig_atomic_t hup_rewalks, hup_pending;
	void (*volatile cleanup_on_death)(void);
	void (*volatile kernel_cleanup_on_death)(void); /* --trace's instance */
	/* The thread whose descriptor table and credentials the cleanup
	 * needs: a worker of -j has its own of each. */
	pid_t handling_thread;
} handler;

/* The kernel's SIGXFSZ for a write past the file size limit: sent to the
 * writer by itself, as kill(2) would. */
static bool own_write_too_large(int sig, const siginfo_t *info)
{
	return sig == SIGXFSZ && info->si_code == SI_USER && info->si_pid == getpid();
}

static void on_signal(int sig, siginfo_t *info, void *context)
{
	(void)context;
	if (own_write_too_large(sig, info))
		return; /* the write fails with EFBIG: a write error, exit 3 */
	if (gettid() != handler.handling_thread) {
		(void)tgkill(getpid(), handler.handling_thread, sig);
		return;
	}
	/* the first asks a watch to end after its sample; a second (or
	 * another signal: SIGHUP has no terminal left to show it) does not
	 * wait */
	if (handler.watching && !handler.stop_signal && (sig == SIGINT || sig == SIGTERM)) {
		handler.stop_signal = sig;
		return;
	}
	if (handler.hup_rewalks && sig == SIGHUP) {
		handler.hup_pending = 1;
		return;
	}
	void (*cleanup)(void) = handler.cleanup_on_death;
	if (cleanup)
		cleanup();
	cleanup = handler.kernel_cleanup_on_death;
	if (cleanup)
		cleanup();
	signal(sig, SIG_DFL);
	/* blocked until the handler returns, then delivered: death */
	(void)raise(sig);
}

void signals_ending(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++)
		sigaddset(set, ending[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
}

void signals_catch(bool watch)
{
	/* no SA_RESTART would make a write to a slow pipe fail with EINTR;
	 * the wait between samples (clock_nanosleep) is cut short anyway */
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_RESTART | SA_SIGINFO };

	handler.watching = watch;
	handler.handling_thread = gettid();
	signals_ending(&sa.sa_mask);
	for (int sig = 1; sig <= SIGRTMAX; sig++) {
		if (!sigismember(&sa.sa_mask, sig))
			continue;
		/* an ignored signal stays ignored (nohup), but that a shell
		 * script's background job ignores SIGINT must not make a
		 * watch unstoppable by it */
		struct sigaction was;
		if ((watch && (sig == SIGINT || sig == SIGTERM)) ||
		    (sigaction(sig, NULL, &was) == 0 && was.sa_handler != SIG_IGN))
			sigaction(sig, &sa, NULL);
	}
}

void signals_hup_rewalks(void)
{
	handler.hup_rewalks = 1;
}

bool signals_take_hup(void)
{
	bool came = handler.hup_pending;
	handler.hup_pending = 0;
	return came;
}

int signals_stop_requested(void)
{
	return handler.stop_signal;
}

void signals_on_death(void (*cleanup)(void))
{
	handler.cleanup_on_death = cleanup;
}

void signals_on_death_kernel(void (*cleanup)(void))
{
	handler.kernel_cleanup_on_death = cleanup;
}
