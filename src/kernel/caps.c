/* SPDX-License-Identifier: MIT */
/* Capabilities: what the process holds, and what to say when refused. */
#include <config.h>

#include "kernel/caps.h"

#include <errno.h>
#include <linux/capability.h>
#include <stdint.h>
#include <sys/auxv.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* All pagestat may need: open any file, and pass the kernel's owner
 * check of cachestat and mincore; with --pid, also read another user's
 * (or a more privileged) process's maps and descriptors in /proc. */
/* with --lock, also lock past RLIMIT_MEMLOCK (held: root, or a unit's
 * ambient capability; a setcap install grants it not) */
static const cap_value_t needed[] = { CAP_DAC_READ_SEARCH, CAP_FOWNER, CAP_SYS_PTRACE,
				      CAP_IPC_LOCK };
#define NNEEDED_MAX (sizeof needed / sizeof needed[0])
/* The capabilities' state: what the run keeps and how the thread's sets
 * are switched.  Set by caps_drop and caps_keep_sys_admin before any
 * thread starts; read after by every thread.
 *   wanted      caps_drop's run keeps needed[i] (where held): the first
 *               two always
 *   borrowed    the capabilities held came with the program file
 *               (setcap; the kernel's AT_SECURE), not from the user: they
 *               then serve the inspection only, and what a user names is
 *               done without them
 *   own_sets, user_sets  the two states of the thread's sets, for
 *               capset(2) itself: it is async-signal-safe, libcap's
 *               cap_set_proc is not documented to be
 *   want_sys_admin, sys_admin_held  --charged: CAP_SYS_ADMIN kept too,
 *               where held (caps_keep_sys_admin) */
static struct {
	bool wanted[NNEEDED_MAX];
	bool borrowed;
	struct __user_cap_data_struct own_sets[_LINUX_CAPABILITY_U32S_3];
	struct __user_cap_data_struct user_sets[_LINUX_CAPABILITY_U32S_3];
	bool want_sys_admin, sys_admin_held;
} capstate = { .wanted = { true, true } };

static bool is_needed(cap_value_t cap, const bool *held)
{
	if (cap == CAP_SYS_ADMIN)
		return capstate.want_sys_admin && capstate.sys_admin_held;
	for (size_t i = 0; i < NNEEDED_MAX; i++)
		if (cap == needed[i])
			return capstate.wanted[i] && held[i];
	return false;
}

/* The bounding set shrinks only with CAP_SETPCAP effective: raise it for
 * the drops (it is dropped itself with the rest). */
static int drop_bounding(cap_t caps, const bool *held, const char **what)
{
	cap_value_t setpcap = CAP_SETPCAP;

	if (cap_set_flag(caps, CAP_EFFECTIVE, 1, &setpcap, CAP_SET) != 0 ||
	    cap_set_proc(caps) != 0) {
		*what = "cannot raise CAP_SETPCAP to shrink the bounding set";
		return errno;
	}
	/* dropping one the set lacks is no error: no need to read it first */
	for (cap_value_t cap = 0; cap < (cap_value_t)cap_max_bits(); cap++) {
		if (is_needed(cap, held))
			continue;
		if (cap_drop_bound(cap) != 0) {
			*what = "cannot drop a capability from the bounding set";
			return errno;
		}
	}
	return 0;
}

/* This thread's sets, as capget(2) gives them. */
static bool get_sets(struct __user_cap_data_struct *sets)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return syscall(SYS_capget, &header, sets) == 0;
}

/* The sets of this thread as they are now, and the same with no effective
 * capability: what is done with the user's rights. */
static int keep_sets(void)
{
	if (!get_sets(capstate.own_sets))
		return errno;
	bool any = false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		capstate.user_sets[i] = capstate.own_sets[i];
		capstate.user_sets[i].effective = 0;
		any |= capstate.own_sets[i].permitted != 0;
	}
	capstate.borrowed = any && getauxval(AT_SECURE) != 0;
	return 0;
}

/* No capability in any set of this thread: an unprivileged user's, with
 * nothing to drop (an ambient capability must be permitted too). */
static bool holds_none(void)
{
	struct __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3];

	if (!get_sets(sets))
		return false;
	for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
		if (sets[i].effective || sets[i].permitted || sets[i].inheritable)
			return false;
	return true;
}

static bool set_sets(struct __user_cap_data_struct *sets)
{
	struct __user_cap_header_struct header = { _LINUX_CAPABILITY_VERSION_3, 0 };
	return syscall(SYS_capset, &header, sets) == 0;
}

bool caps_user_begin(void)
{
	return !capstate.borrowed || set_sets(capstate.user_sets);
}

void caps_user_end(void)
{
	/* back to a subset of the permitted set: cannot fail */
	if (capstate.borrowed)
		(void)set_sets(capstate.own_sets);
}

bool caps_thread_own(void)
{
	struct __user_cap_data_struct sets[_LINUX_CAPABILITY_U32S_3];

	return get_sets(sets) && set_sets(sets);
}

bool caps_borrowed(void)
{
	return capstate.borrowed;
}

void caps_user_for_good(void)
{
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0 } };

	if (capstate.borrowed)
		(void)set_sets(none);
}

static bool cap_effective(cap_value_t cap);

int caps_start(const char **what)
{
	/* set-user-ID would make every file of the owner the user's own,
	 * which no clearing of capabilities undoes */
	if (getuid() != geteuid() || getgid() != getegid()) {
		*what = "installed set-user-ID or set-group-ID, which pagestat refuses "
			"(grant it capabilities with setcap instead; see PRIVILEGES in "
			"pagestat(1))";
		return EPERM;
	}
	if (holds_none())
		return 0;
	cap_t caps = cap_get_proc();
	cap_t kept = cap_init();
	int err = 0;
	if (!caps || !kept) {
		err = errno;
	} else {
		/* every capability a run may need, where held; CAP_SETPCAP
		 * permitted, not effective, for caps_drop's bounding set */
		cap_value_t setpcap = CAP_SETPCAP;
		cap_flag_value_t value;
		for (size_t i = 0; i <= NNEEDED_MAX + 1 && !err; i++) {
			/* and CAP_SYS_ADMIN permitted, not effective, for --charged */
			cap_value_t cap = i < NNEEDED_MAX ? needed[i]
					  : i == NNEEDED_MAX ? setpcap : CAP_SYS_ADMIN;
			if (cap_get_flag(caps, cap, CAP_PERMITTED, &value) != 0 || value != CAP_SET)
				continue;
			if (cap_set_flag(kept, CAP_PERMITTED, 1, &cap, CAP_SET) != 0 ||
			    (i < NNEEDED_MAX &&
			     cap_set_flag(kept, CAP_EFFECTIVE, 1, &cap, CAP_SET) != 0))
				err = errno;
		}
		if (!err && cap_set_proc(kept) != 0)
			err = errno;
	}
	cap_free(caps);
	cap_free(kept);
	if (!err)
		err = keep_sets();
	if (err)
		*what = "cannot drop capabilities";
	return err;
}

/* No program run later gains privileges (set-user-ID, file capabilities). */
static int set_no_new_privs(const char **what)
{
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
		*what = "cannot set no_new_privs";
		return errno;
	}
	return 0;
}

/* Which of needed[] are wanted and permitted into held, and whether
 * CAP_SYS_ADMIN is; then the bounding set shrunk to them, where
 * CAP_SETPCAP is permitted. */
static int read_held(bool *held, const char **what)
{
	cap_t caps = cap_get_proc();
	if (!caps) {
		*what = "cannot read the process's capabilities";
		return errno;
	}
	cap_flag_value_t value;
	for (size_t i = 0; i < NNEEDED_MAX; i++)
		held[i] = capstate.wanted[i] && cap_get_flag(caps, needed[i], CAP_PERMITTED, &value) == 0 &&
			  value == CAP_SET;
	capstate.sys_admin_held = cap_get_flag(caps, CAP_SYS_ADMIN, CAP_PERMITTED, &value) == 0 &&
			 value == CAP_SET;
	int err = 0;
	if (cap_get_flag(caps, CAP_SETPCAP, CAP_PERMITTED, &value) == 0 && value == CAP_SET)
		err = drop_bounding(caps, held, what);
	cap_free(caps);
	return err;
}

/* Permitted and effective: the needed ones held; inheritable and
 * ambient: nothing, so that no program run later inherits any. */
static int keep_held(const bool *held, const char **what)
{
	cap_t caps = cap_init();
	if (!caps) {
		*what = "cannot read the process's capabilities";
		return errno;
	}
	int err = 0;
	for (size_t i = 0; i < NNEEDED_MAX; i++)
		if (held[i] && (cap_set_flag(caps, CAP_PERMITTED, 1, &needed[i], CAP_SET) != 0 ||
				cap_set_flag(caps, CAP_EFFECTIVE, 1, &needed[i], CAP_SET) != 0))
			err = errno;
	cap_value_t admin = CAP_SYS_ADMIN;
	if (!err && capstate.want_sys_admin && capstate.sys_admin_held &&
	    (cap_set_flag(caps, CAP_PERMITTED, 1, &admin, CAP_SET) != 0 ||
	     cap_set_flag(caps, CAP_EFFECTIVE, 1, &admin, CAP_SET) != 0))
		err = errno;
	if (!err && cap_set_proc(caps) != 0)
		err = errno;
	cap_free(caps);
	if (err)
		*what = "cannot drop capabilities";
	return err;
}

int caps_drop(const char **what, bool processes, bool lock)
{
	capstate.wanted[2] = processes;
	capstate.wanted[3] = lock;
	/* own_sets and user_sets stay empty, borrowed false */
	if (holds_none())
		return set_no_new_privs(what);
	bool held[NNEEDED_MAX] = { false };
	int err = read_held(held, what);
	if (err || (err = keep_held(held, what)) != 0)
		return err;
	/* One prctl (libcap's cap_reset_ambient reads each one first).
	 * EINVAL: a kernel without ambient capabilities has none to clear. */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
	    errno != EINVAL) {
		*what = "cannot clear the ambient capabilities";
		return errno;
	}
	if ((err = set_no_new_privs(what)) != 0)
		return err;
	if ((err = keep_sets()) != 0)
		*what = "cannot read the process's capabilities";
	return err;
}

bool caps_have_ptrace(void)
{
	return cap_effective(CAP_SYS_PTRACE);
}

static bool cap_effective(cap_value_t cap)
{
	cap_t caps = cap_get_proc();
	cap_flag_value_t value = CAP_CLEAR;

	if (caps) {
		if (cap_get_flag(caps, cap, CAP_EFFECTIVE, &value) != 0)
			value = CAP_CLEAR;
		cap_free(caps);
	}
	return value == CAP_SET;
}

void caps_keep_sys_admin(void)
{
	capstate.want_sys_admin = true;
}

bool caps_have_sys_admin(void)
{
	return cap_effective(CAP_SYS_ADMIN);
}

bool caps_have_fowner(void)
{
	return cap_effective(CAP_FOWNER);
}

const char *caps_describe(void)
{
	bool dac = cap_effective(CAP_DAC_READ_SEARCH);
	bool fowner = cap_effective(CAP_FOWNER);

	if (dac && fowner)
		return "cap_dac_read_search,cap_fowner";
	if (dac)
		return "cap_dac_read_search";
	if (fowner)
		return "cap_fowner";
	return "none";
}
