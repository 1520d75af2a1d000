/* SPDX-License-Identifier: MIT */
/* Test helper: run a command inside a Landlock domain of its own.
 *
 *   landlocked CMD [ARG]...
 *
 * The ruleset handles only the making of FIFOs, so files are reached as
 * before; what the domain changes is that the kernel closes the /proc
 * entries of every process outside it (ptrace access) to the command,
 * whatever its capabilities: what a security module does that root
 * cannot pass.  Exits 77 (the tests' "skip") where Landlock is missing
 * or disabled, 2 on bad usage.
 */
#include <config.h>

#include <errno.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define EXIT_SKIP 77

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs("usage: landlocked CMD [ARG]...\n", stderr);
		return 2;
	}
	struct landlock_ruleset_attr attr = { .handled_access_fs = LANDLOCK_ACCESS_FS_MAKE_FIFO };
	long fd = syscall(__NR_landlock_create_ruleset, &attr, sizeof attr, 0);
	if (fd < 0) {
		fprintf(stderr, "landlocked: Landlock is not available here: %s\n", strerror(errno));
		return EXIT_SKIP;
	}
	/* no_new_privs, as an unprivileged sandbox must */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    syscall(__NR_landlock_restrict_self, (int)fd, 0) != 0) {
		fprintf(stderr, "landlocked: cannot enter the domain: %s\n", strerror(errno));
		return EXIT_SKIP;
	}
	close((int)fd);
	execvp(argv[1], argv + 1);
	fprintf(stderr, "landlocked: %s: %s\n", argv[1], strerror(errno));
	return 127;
}
