/* SPDX-License-Identifier: MIT */
/* flip A B: swaps the names A and B (renameat2 RENAME_EXCHANGE) without
 * pause until SIGTERM or SIGINT, then prints how many times it did on
 * stdout: what an attacker does to win a race between a check of a name
 * and an open of it.  Exit 0; 1 when the first swap fails. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: flip A B\n");
		return 2;
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	unsigned long swaps = 0;
	while (!stop) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2],
			    RENAME_EXCHANGE) != 0) {
			if (swaps == 0) {
				fprintf(stderr, "flip: %s, %s: %s\n", argv[1], argv[2],
					strerror(errno));
				return 1;
			}
			continue;
		}
		swaps++;
	}
	printf("%lu\n", swaps);
	return 0;
}
