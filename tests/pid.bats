#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --pid: the regular files a process maps or holds open, each once, with
# exact cached pages; processes that vanish or cannot be read.

load test_helper

setup() {
	require_disk_tmpdir
	((EUID != 0)) || command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	cd "$BATS_TEST_TMPDIR"
	HELPERS=()
}

teardown() {
	local pid
	for pid in "${HELPERS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
}

# The helpers start with no capability (as root, through setpriv), so
# that these tests also hold where pagestat has no CAP_SYS_PTRACE (as a
# user); caps.bats reads a root process with every capability.  They run
# from the test's own copies of their programs and libraries (own_command
# in test_helper.bash), so that a user's pagestat may inspect every file
# they map.  Run in the background (cmd &), no_caps replaces the subshell,
# so that $! is the helper itself.
no_caps() {
	if ((EUID == 0)); then
		exec setpriv --inh-caps=-all --bounding-set=-all -- "$@"
	else
		exec "$@"
	fi
}

# Start a helper (pcarrange map) that maps FILE and closes it, so that
# the file is in its maps only, removes it with DELETE=1, and waits; sets
# HELPER once the mapping is in place.
start_mapper() {
	own_command "$PCARRANGE" map "$1" ${DELETE:+unlink}
	no_caps "${OWN_COMMAND[@]}" >"$BATS_TEST_TMPDIR/mapper.out" &
	HELPER=$!
	HELPERS+=("$HELPER")
	own_started "$HELPER"
	local n
	for ((n = 0; n < 100; n++)); do
		[[ -s $BATS_TEST_TMPDIR/mapper.out ]] && return
		sleep 0.05
	done
	fail "the mapping helper did not start"
}

# Start a helper holding FILE open on descriptor 3 (sleep, no mapping).
start_holder() {
	own_command sleep 120
	no_caps "${OWN_COMMAND[@]}" 3<"$1" &
	HELPER=$!
	HELPERS+=("$HELPER")
	own_started "$HELPER"
	local n
	for ((n = 0; n < 100; n++)); do
		[[ -e /proc/$HELPER/fd/3 ]] && return
		sleep 0.05
	done
	fail "the holding helper did not start"
}

@test "--pid: a file the process maps, its row with exact cached pages" {
	make_partial mapped 8 2 3
	start_mapper "$PWD/mapped"
	run -0 --separate-stderr pagestat --pid "$HELPER" -J
	assert_row "$PWD/mapped" type=file pages=8 cached=3 files=1
	# the program and its libraries are mapped too, each once
	assert [ "$(json_field '.rows | length')" -gt 1 ]
	assert_equal "$(json_field '[.rows[].path] | length == (unique | length)')" true
	assert_equal "$(json_field '.total.files')" "$(json_field '.rows | length')"
	assert_equal "$(json_field '.total.cached')" "$(json_field '[.rows[].cached] | add')"
	assert_equal "$(json_field '.errors')" 0
	assert_equal "$stderr" ""
}

@test "--pid: a deleted file that is only mapped: EPERM, with why (map_files needs capabilities pagestat drops)" {
	make_partial unmapped 4 0 2
	DELETE=1 start_mapper "$PWD/unmapped"
	[[ ! -e /proc/$HELPER/fd/3 || $(readlink "/proc/$HELPER/fd/3") != *unmapped* ]] ||
		fail "the helper still holds the file open"
	run -1 --separate-stderr pagestat --pid "$HELPER" -J
	assert_row "$PWD/unmapped (deleted)" errno=EPERM
	assert_stderr_has "pagestat: --pid $HELPER: cannot inspect '$PWD/unmapped (deleted)': Operation not permitted" \
		"/proc/PID/map_files" "CAP_SYS_ADMIN or" "CAP_CHECKPOINT_RESTORE"
	# said once, however many such files
	assert_equal "$(grep -c 'map_files' <<<"$stderr")" 1
}

@test "--pid: refused although CAP_SYS_PTRACE is held (a Landlock domain): said so, not 'run as root'" {
	require_root "only root holds CAP_SYS_PTRACE"
	make_partial held 3 0 1
	sleep 120 3<held &
	HELPERS+=($!)
	run --separate-stderr "$LANDLOCKED" "$PAGESTAT" --pid "$!" -J
	[[ $status -ne 77 ]] || skip "Landlock is not available here: $stderr"
	assert_equal "status $status" "status 1"
	assert_stderr_has "pagestat: --pid $!: Permission denied" "holds CAP_SYS_PTRACE and was refused" \
		"security module"
	[[ $stderr != *"run pagestat"*"as root"* ]] || fail "told to run as root, which it is: $stderr"
	assert_equal "$(json_field '.rows[0].errno')" EACCES
}

@test "--pid: a file held open, and one deleted while open, through /proc/PID/fd" {
	make_partial held 6 0 2
	start_holder held
	local holder=$HELPER
	make_partial gone 5 1 4
	start_holder gone
	rm gone
	run -0 --separate-stderr pagestat --pid "$holder" --pid "$HELPER" -J -o path,cached,pages
	assert_row "$PWD/held" cached=2 pages=6
	assert_row "$PWD/gone (deleted)" cached=4 pages=5
}

@test "--pid: a file mapped and held, by two processes, counts once" {
	make_partial both 4 0 4
	start_mapper "$PWD/both"
	local mapper=$HELPER
	start_holder both
	run -0 --separate-stderr pagestat --pid "$mapper" --pid "$HELPER" -c -p -o cached,path
	assert_equal "$(grep -c " $PWD/both\$" <<<"$output")" 1
	assert_line --regexp "^ +4 $PWD/both\$"
	# the total (-c) is the last line, and the sum of the rows
	local sum
	sum=$(awk 'NR > 1 && $2 != "total" { s += $1 } END { print s }' <<<"$output")
	assert_line --index $((${#lines[@]} - 1)) --regexp "^ *$sum total\$"
}

@test "--pid: a process that is gone is an error of its own; the others are reported" {
	make_partial held 3 0 1
	start_holder held
	sleep 0 &
	local gone=$!
	wait "$gone"
	run -1 --separate-stderr pagestat --pid "$gone" --pid "$HELPER" -J
	assert_equal "$stderr" "pagestat: --pid $gone: No such process"
	assert_row "$PWD/held" cached=1
	assert_row "/proc/$gone" errno=ESRCH error="No such process"
	assert_equal "$(json_field '.errors')" 1
	run -1 --separate-stderr pagestat -q --pid "$gone"
	assert_equal "$stderr" ""
}

@test "--pid without CAP_SYS_PTRACE: a more privileged process cannot be read: said once, exit 1" {
	require_root "only root can start a helper more privileged than pagestat"
	make_partial held 3 0 1
	sleep 120 3<held &
	HELPERS+=($!)
	# as root pagestat keeps CAP_SYS_PTRACE for --pid (caps.bats): here
	# it never has it, as a user or a program given only the file ones
	run -1 --separate-stderr setpriv --bounding-set=-sys_ptrace -- "$PAGESTAT" --pid "$!" -J
	assert_stderr_has "pagestat: --pid $!: Permission denied" "CAP_SYS_PTRACE"
	assert_equal "$(json_field '.rows[0].errno')" EACCES
}

@test "--pid with -i: each sample reads the process again" {
	make_partial held 3 0 2
	start_holder held
	run -0 --separate-stderr pagestat --pid "$HELPER" -i 0.1 --count 2 --format=ndjson -o path,cached,delta
	assert_equal "$(jq -sc --arg p "$PWD/held" 'map(select(.path == $p) | [.cached, .delta])' <<<"$output")" \
		'[[2,null],[2,0]]'
}

@test "--pid: bad values and combinations are usage errors" {
	local v
	: >f
	for v in 0 -1 abc '' 99999999999 1.5 ' 1'; do
		refused "--pid" "'$v'" "process ID" -- --pid="$v"
	done
	refused "--pid cannot be combined" -- --pid=1 f
	printf 'f\0' >names
	refused "--pid cannot be combined" -- --pid=1 --files0-from=names
}

# ---- issue 31, item 12: /proc/PID/fd/N named as an operand ---------------
@test "issue 31 item 12: as root, an operand /proc/PID/fd/N of a process holding every capability is read, as --pid reads it" {
	require_root "only root starts with CAP_SYS_PTRACE"
	make_partial held 5 1 3
	# a root process with every capability (no no_caps): reading its
	# /proc entries needs CAP_SYS_PTRACE
	sleep 120 3<held &
	HELPERS+=($!)
	local pid=$!
	for ((n = 0; n < 100; n++)); do
		[[ -e /proc/$pid/fd/3 ]] && break
		sleep 0.05
	done
	grep -q '^CapEff:[[:space:]]*0*[1-9a-f]' /proc/$pid/status || skip "the helper holds no capability"
	run -0 --separate-stderr pagestat -J -o path,type,pages,cached "/proc/$pid/fd/3"
	assert_row "/proc/$pid/fd/3" type=file pages=5 cached=3
	assert_equal "$stderr" ""
	run -0 --separate-stderr pagestat -J -o path,pages,cached --pid "$pid"
	assert_row "$PWD/held" pages=5 cached=3
	# and an action through it
	release_holds "the evict drops the arranged pages"
	run -0 --separate-stderr pagestat -J -o path,cached --evict "/proc/$pid/fd/3"
	assert_row "/proc/$pid/fd/3" cached=0
}
