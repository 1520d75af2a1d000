/* SPDX-License-Identifier: MIT */
/* openwatch FILE...: counts the opens of each FILE (inotify IN_OPEN:
 * every open for reading or writing, by anyone; O_PATH opens are not
 * opens of the file) until SIGTERM or SIGINT, then prints "COUNT FILE" a
 * line each.  It prints "ready" once the watches are set.  Exit 0; 1 when
 * a watch cannot be set. */
#include <config.h>

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	int in = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	int nfiles = argc - 1;
	int *wd = calloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof *wd);
	unsigned long *opens = calloc((size_t)(nfiles > 0 ? nfiles : 1), sizeof *opens);

	if (in < 0 || !wd || !opens || nfiles < 1) {
		fprintf(stderr, "usage: openwatch FILE...\n");
		free(wd);
		free(opens);
		return 1;
	}
	for (int i = 0; i < nfiles; i++) {
		wd[i] = inotify_add_watch(in, argv[i + 1], IN_OPEN);
		if (wd[i] < 0) {
			fprintf(stderr, "openwatch: %s: %s\n", argv[i + 1], strerror(errno));
			free(wd);
			free(opens);
			return 1;
		}
	}
	struct sigaction sa = { .sa_handler = on_signal };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("ready\n");
	(void)fflush(stdout);

	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	/* the events still queued when the signal came are read too */
	for (bool last = false; !last;) {
		last = stop;
		struct pollfd p = { .fd = in, .events = POLLIN };
		if (!last && poll(&p, 1, 100) < 0 && errno != EINTR)
			break;
		ssize_t n;
		while ((n = read(in, buf, sizeof buf)) > 0)
			for (char *e = buf; e < buf + n;
			     e += sizeof(struct inotify_event) + ((struct inotify_event *)e)->len) {
				const struct inotify_event *ev = (const void *)e;
				for (int i = 0; i < nfiles; i++)
					if (ev->wd == wd[i] && (ev->mask & IN_OPEN))
						opens[i]++;
			}
	}
	for (int i = 0; i < nfiles; i++)
		printf("%lu %s\n", opens[i], argv[i + 1]);
	free(wd);
	free(opens);
	return 0;
}
