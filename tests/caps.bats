#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Least privilege: before opening any file pagestat keeps only
# CAP_DAC_READ_SEARCH and CAP_FOWNER (where held) and sets no_new_privs;
# a copy given those two with setcap inspects what nobody alone may not.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	if [[ -n ${HOLDER-} ]]; then
		kill "$HOLDER" 2>/dev/null || true
		wait "$HOLDER" 2>/dev/null || true
	fi
	if [[ -n ${SLEEPER-} ]]; then
		kill "$SLEEPER" 2>/dev/null || true
		wait "$SLEEPER" 2>/dev/null || true
	fi
	leave_nobody_dir
}

# CAP_DAC_READ_SEARCH (2) and CAP_FOWNER (3), as /proc/PID/status shows sets.
KEPT=000000000000000c
# with --pid, CAP_SYS_PTRACE (19) too
KEPT_PID=000000000008000c
NONE=0000000000000000

# Start CMD... (a pagestat) watching an empty directory with a long
# interval: after its first sample it waits; print the capability lines
# of /proc/PID/status then, and stop it (SIGTERM ends a watch).  Lists
# and output files are opened without the capabilities (privileges.bats):
# a run that names none holds them throughout.
# usage: caps_while_running CMD...
caps_while_running() {
	local i
	mkdir -p -m 755 watched
	"$@" -q -i 60 --count 2 watched >/dev/null 2>&1 &
	HOLDER=$!
	# the first sample is written long after the drop: wait for the wait
	for ((i = 0; i < 200; i++)); do
		[[ $(awk '/^NoNewPrivs/ { print $2 }' /proc/$HOLDER/status 2>/dev/null) == 1 &&
		   $(cat /proc/$HOLDER/wchan 2>/dev/null) == *nanosleep* ]] && break
		sleep 0.05
	done
	grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/$HOLDER/status
	kill -TERM "$HOLDER"
	wait "$HOLDER"
	HOLDER=
}

# The value of one line of caps_while_running's output in $output.
status_field() {
	awk -v k="$1:" '$1 == k { print $2 }' <<<"$output"
}

@test "as root: the capability drop and no_new_privs come before the first file is opened" {
	require_root "only root starts with capabilities to drop"
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	make_cached target 2
	# LeakSanitizer cannot work under ptrace: no leak check in this run
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -o trace -e trace=capset,prctl,open,openat "$PAGESTAT" target >/dev/null
	local first_open nnp last_drop last_capset
	# before main, the dynamic loader opens the libraries, and a sanitizer
	# runtime reads /proc/self: not files of pagestat's
	first_open=$(grep -nE 'open(at)?\(' trace |
		grep -vE '"/etc/ld\.so\.cache"|\.so(\.[0-9]+)*"|"/proc/self/' | head -n 1 | cut -d: -f1)
	nnp=$(grep -n 'PR_SET_NO_NEW_PRIVS, 1' trace | cut -d: -f1)
	last_drop=$(grep -n 'PR_CAPBSET_DROP' trace | tail -n 1 | cut -d: -f1)
	last_capset=$(grep -n '^capset(' trace | tail -n 1 | cut -d: -f1)
	[[ -n $first_open && -n $nnp && -n $last_drop && -n $last_capset ]] ||
		fail "missing from the trace: open $first_open, nnp $nnp, drop $last_drop, capset $last_capset"$'\n'"$(cat trace)"
	((last_drop < nnp && last_capset < nnp && nnp < first_open)) ||
		fail "order: bounding drops end at line $last_drop, capset at $last_capset, no_new_privs at $nnp, first open at $first_open"
	# the last capset leaves exactly the two
	assert_regex "$(sed -n "${last_capset}p" trace)" \
		'effective=1<<CAP_DAC_READ_SEARCH\|1<<CAP_FOWNER, permitted=1<<CAP_DAC_READ_SEARCH\|1<<CAP_FOWNER, inheritable=0'
	# every capability but the two left the bounding set
	run grep -c 'PR_CAPBSET_DROP, CAP_\(DAC_READ_SEARCH\|FOWNER\))' trace
	assert_output 0
	run grep -c 'PR_CAPBSET_DROP, CAP_SYS_ADMIN)' trace
	assert_output 1
	grep -q "openat(AT_FDCWD, \"target\"" trace || fail "the target was never opened"
}

@test "as root: while it runs it holds CAP_DAC_READ_SEARCH and CAP_FOWNER only, bounding set too" {
	require_root "only root starts with every capability"
	run -0 caps_while_running "$PAGESTAT"
	assert_equal "CapEff $(status_field CapEff)" "CapEff $KEPT"
	assert_equal "CapPrm $(status_field CapPrm)" "CapPrm $KEPT"
	assert_equal "CapBnd $(status_field CapBnd)" "CapBnd $KEPT"
	assert_equal "CapInh $(status_field CapInh)" "CapInh $NONE"
	assert_equal "CapAmb $(status_field CapAmb)" "CapAmb $NONE"
	assert_equal "NoNewPrivs $(status_field NoNewPrivs)" "NoNewPrivs 1"

	run -0 pagestat --version
	assert_line "capabilities: cap_dac_read_search,cap_fowner"
}

@test "as nobody: no capability, no_new_privs, and --version says none" {
	enter_nobody_dir
	run -0 caps_while_running setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ./pagestat
	assert_equal "CapEff $(status_field CapEff)" "CapEff $NONE"
	assert_equal "CapPrm $(status_field CapPrm)" "CapPrm $NONE"
	assert_equal "NoNewPrivs $(status_field NoNewPrivs)" "NoNewPrivs 1"

	run -0 as_nobody ./pagestat --version
	assert_line "capabilities: none"
}

# A root-owned file nobody may read but not write (EPERM from cachestat)
# and one in a directory nobody cannot search (EACCES from open); then a
# copy of pagestat with the two capabilities as file capabilities.
@test "as nobody: refused files; a copy given the capabilities with setcap inspects them" {
	enter_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	make_partial readable 6 1 2
	chmod 644 readable
	mkdir private
	chmod 700 private
	make_cached private/secret 3
	chmod 600 private/secret

	run -1 --separate-stderr as_nobody ./pagestat -J readable private/secret
	assert_row readable errno=EPERM cached=null
	assert_row private/secret errno=EACCES
	assert_stderr_has "setcap cap_dac_read_search,cap_fowner+ep"

	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	run -0 as_nobody ./pagestat-cap --version
	[[ $output == *"capabilities: cap_dac_read_search,cap_fowner"* ]] ||
		skip "file capabilities are not honoured here (nosuid mount?): $output"

	run -0 --separate-stderr as_nobody ./pagestat-cap -J readable private/secret
	assert_row readable files=1 pages=6 cached=2
	assert_row private/secret files=1 pages=3 cached=3
	assert_equal "$stderr" ""

	# and it holds no more than the two, with no_new_privs
	run -0 caps_while_running setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ./pagestat-cap
	assert_equal "CapEff $(status_field CapEff)" "CapEff $KEPT"
	assert_equal "CapPrm $(status_field CapPrm)" "CapPrm $KEPT"
	assert_equal "NoNewPrivs $(status_field NoNewPrivs)" "NoNewPrivs 1"
}

@test "as root with --pid: CAP_SYS_PTRACE is kept too, and a process holding every capability is read" {
	require_root "only root starts with CAP_SYS_PTRACE"
	make_cached held 3
	# a root process with every capability: without CAP_SYS_PTRACE its
	# /proc entries are closed even to root
	sleep 120 3<held &
	SLEEPER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e /proc/$SLEEPER/fd/3 ]] && break
		sleep 0.05
	done
	# between its two samples it waits 30 s: read its sets meanwhile
	"$PAGESTAT" --pid "$SLEEPER" -i 30 --count 2 >/dev/null 2>&1 &
	HOLDER=$!
	for ((i = 0; i < 100; i++)); do
		[[ $(awk '/^NoNewPrivs/ { print $2 }' /proc/$HOLDER/status 2>/dev/null) == 1 ]] && break
		sleep 0.05
	done
	run -0 grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/$HOLDER/status
	kill -TERM "$HOLDER"
	wait "$HOLDER" || true
	HOLDER=
	assert_equal "CapEff $(status_field CapEff)" "CapEff $KEPT_PID"
	assert_equal "CapPrm $(status_field CapPrm)" "CapPrm $KEPT_PID"
	assert_equal "CapBnd $(status_field CapBnd)" "CapBnd $KEPT_PID"
	assert_equal "CapAmb $(status_field CapAmb)" "CapAmb $NONE"
	assert_equal "NoNewPrivs $(status_field NoNewPrivs)" "NoNewPrivs 1"

	run -0 pagestat -J --pid "$SLEEPER"
	run -0 jq -r '.rows[] | select(.path | endswith("/held")) | .cached' <<<"$output"
	assert_output 3
	# without --pid, still the two only (the test above): nothing leaks
	# from one run to the option scan of another
	run -0 caps_while_running "$PAGESTAT"
	assert_equal "CapEff $(status_field CapEff)" "CapEff $KEPT"
}
