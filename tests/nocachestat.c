/* SPDX-License-Identifier: MIT */
/* Test helper: run a command where cachestat(2) fails, as on a kernel
 * older than 6.5 (ENOSYS) or under a container's seccomp profile (EPERM).
 *
 *   nocachestat ENOSYS|EPERM CMD [ARG]...
 *
 * Installs a seccomp filter that makes cachestat fail with that errno and
 * leaves every other system call alone, then executes CMD.  Exits 77 (the
 * tests' "skip") where the filter cannot be installed, 2 on bad usage.
 */
#include <config.h>

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "compat/cachestat.h"

#define EXIT_SKIP 77

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "ENOSYS") != 0 && strcmp(argv[1], "EPERM") != 0)) {
		fputs("usage: nocachestat ENOSYS|EPERM CMD [ARG]...\n", stderr);
		return 2;
	}
#ifndef AUDIT_ARCH_HERE
	fputs("nocachestat: no seccomp filter for this architecture\n", stderr);
	return EXIT_SKIP;
#else
	unsigned err = strcmp(argv[1], "ENOSYS") == 0 ? ENOSYS : EPERM;
	struct sock_filter insns[] = {
		/* another ABI (x32, i386 on x86_64): leave it alone */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_cachestat, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (err & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof insns / sizeof insns[0], .filter = insns };

	/* no_new_privs lets an unprivileged process install a filter */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
		perror("nocachestat: cannot install the seccomp filter");
		return EXIT_SKIP;
	}
	execvp(argv[2], argv + 2);
	fprintf(stderr, "nocachestat: cannot run %s: %s\n", argv[2], strerror(errno));
	return 127;
#endif
}
