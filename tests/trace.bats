#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --trace: the page cache's motion per file (added, reclaimed, dropped,
# refaulted) and who moved it, recorded in a private trace instance on
# the real kernel while the tests make the motion themselves: a cat of a
# cold file, a python fadvise DONTNEED, a reader in a memory cgroup too
# small for its file, a rename over a named file, a delete under
# --system.  The figures are compared with what the test arranged, or
# with cachestat (pcarrange) and the cgroup's memory.stat.
#
# The machine pages out idle pages by itself (kdamond, TESTING.md), also
# during a trace.  The tests do not need to hold pages against it: the
# trace sees those removals too (as reclaimed), and the oracles count
# them.  A file cold when the trace starts and read whole has every page
# added once, and again only after a removal the trace saw (a refault):
# added - refaulted is its pages, exactly.
#
# Most traces run without a duration and end with SIGTERM once the
# test's action is over (no race between the action and the duration);
# a few run for a duration, and check that the action ended first.

load test_helper

TRACING=/sys/kernel/tracing
INSTANCES=$TRACING/instances
MEMCG=/sys/fs/cgroup/memory

setup_file() {
	TRACE_SKIP='' TRACE_MOUNTED=''
	if ((EUID != 0)); then
		TRACE_SKIP="needs root: tracefs's instances are made by root alone"
	else
		if [[ ! -d $INSTANCES ]]; then
			if mount -t tracefs nodev "$TRACING" 2>/dev/null; then
				TRACE_MOUNTED=1
			else
				TRACE_SKIP="tracefs is not mounted at $TRACING and cannot be (mount -t tracefs nodev $TRACING failed)"
			fi
		fi
	fi
	if [[ -z $TRACE_SKIP ]]; then
		probe_tracing
	fi
	# the events a pagestat instance enables, of those this kernel has:
	# all enabled in the instance means it records (start_trace)
	local e
	TRACE_EVENTS="filemap/mm_filemap_add_to_page_cache filemap/mm_filemap_delete_from_page_cache"
	for e in direct_reclaim memcg_reclaim memcg_softlimit_reclaim node_reclaim; do
		[[ ! -e $TRACING/events/vmscan/mm_vmscan_${e}_begin ]] ||
			TRACE_EVENTS+=" vmscan/mm_vmscan_${e}_begin"
		[[ ! -e $TRACING/events/vmscan/mm_vmscan_${e}_end ]] ||
			TRACE_EVENTS+=" vmscan/mm_vmscan_${e}_end"
	done
	[[ ! -e $TRACING/events/sched/sched_process_exit ]] ||
		TRACE_EVENTS+=" sched/sched_process_exit"
	export TRACE_SKIP TRACE_MOUNTED TRACE_EVENTS
}

# A trace of 10 ms of a file: skip the suite's traces only where the
# machine cannot (pagestat built without libtracefs, the libraries not
# installed, no filemap tracepoints); any other failure is pagestat's,
# and the tests show it.
probe_tracing() {
	local probe=$BATS_FILE_TMPDIR/probe err status=0
	: >"$probe"
	err=$("$PAGESTAT" -q --trace=10ms "$probe" 2>&1 >/dev/null 3>&-) || status=$?
	case $err in
	*"built without libtracefs"*)
		TRACE_SKIP="this pagestat was built without libtracefs and libtraceevent (exit $status)" ;;
	*"cannot load the tracing libraries"* | *"no filemap tracepoints"* | *"tracefs is not mounted"*)
		TRACE_SKIP="the machine cannot trace: ${err#pagestat: }" ;;
	esac
}

teardown_file() {
	if [[ -n ${TRACE_MOUNTED-} ]]; then
		umount "$TRACING" 2>/dev/null || true
	fi
}

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	TRACERS=() HELPERS=()
	declare -gA TRACE_FILES=()
}

teardown() {
	local pid
	for pid in "${HELPERS[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for pid in "${TRACERS[@]}"; do
		kill -CONT "$pid" 2>/dev/null || true
		kill -TERM "$pid" 2>/dev/null || true
		ended "$pid" 100 || kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
		rmdir "$INSTANCES/pagestat-$pid" 2>/dev/null || true
	done
	run_teardowns
}

require_tracing() {
	[[ -z $TRACE_SKIP ]] || skip "$TRACE_SKIP"
}

# ---- traces in the background --------------------------------------------

# Process PID has ended (exited, or a zombie not yet waited for), or
# does within TENTHS tenths of a second (0: now).
ended() {
	local i state
	for ((i = 0; ; i++)); do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
		[[ -n $state && $state != Z ]] || return 0
		((i < $2 * 2)) || return 1
		sleep 0.05
	done
}

# pagestat ARG... started in the background, its stdout and stderr kept
# in files; TRACER is its pid once its instance records every event it
# enables (which it does after its first pass over the scope).
start_trace() {
	local n=${#TRACE_FILES[@]} i e ready
	"$PAGESTAT" "$@" >"trace.$n.out" 2>"trace.$n.err" 3>&- &
	TRACER=$!
	TRACERS+=("$TRACER")
	TRACE_FILES[$TRACER]=$n
	for ((i = 0; i < 600; i++)); do
		ready=1
		for e in $TRACE_EVENTS; do
			[[ $(cat "$INSTANCES/pagestat-$TRACER/events/$e/enable" 2>/dev/null) == 1 ]] || {
				ready=
				break
			}
		done
		[[ -z $ready ]] || return 0
		ended "$TRACER" 0 || continue
		fail "pagestat $* ended before its trace instance recorded: $(cat "trace.$n.err")"
	done
	fail "pagestat $*: its instance $INSTANCES/pagestat-$TRACER did not record within 30 s: $(cat "trace.$n.err")"
}

# The trace TRACER still records: the test's action ended before the
# duration did.
still_tracing() {
	! ended "$TRACER" 0 || fail "the trace ended before the test's action did (a duration too short for this machine?)"
	[[ -d $INSTANCES/pagestat-$TRACER ]] || fail "pagestat $TRACER runs, but its instance is gone"
}

# Teardown need not end PID: it has.
forget_tracer() {
	local pid keep=()
	for pid in "${TRACERS[@]}"; do
		[[ $pid == "$1" ]] || keep+=("$pid")
	done
	TRACERS=("${keep[@]}")
}

# Wait for the trace PID (TRACER by default), after sending it SIGNAL when
# one is given ("" for none); then status, output, lines and stderr are
# as bats' run --separate-stderr sets them.  Its instance is gone.
# usage: finish_trace [SIGNAL [PID]]
finish_trace() {
	local pid=${2:-$TRACER} n
	n=${TRACE_FILES[$pid]}
	[[ -z ${1-} ]] || kill -"$1" "$pid"
	ended "$pid" 600 || fail "pagestat $pid did not end within 60 s"
	status=0
	wait "$pid" || status=$?
	forget_tracer "$pid"
	output=$(cat "trace.$n.out")
	stderr=$(cat "trace.$n.err")
	mapfile -t lines <<<"$output"
	[[ ! -e $INSTANCES/pagestat-$pid ]] ||
		fail "pagestat $pid ended (exit $status) and left its instance $INSTANCES/pagestat-$pid"
}

# ---- arrangements and figures --------------------------------------------

# FILE of PAGES pages on disk, none of them cached (cachestat says so).
cold() {
	local _
	pcarrange write "$1" $(($2 * PAGE))
	for _ in 1 2 3; do
		pcarrange drop "$1"
		pcarrange holds "$1" dropped && return 0
	done
	fail "$1: its pages could not be dropped"
}

# What cachestat says of FILE now: FIELD 1 cached, 4 evicted.
cstat() {
	local f
	read -ra f <<<"$(pcarrange stat "$1")"
	echo "${f[$2 - 1]}"
}

# KEY (or a jq filter) of the row whose path is PATH and whose type is
# TYPE (file by default), or which meets a jq condition "(...)" instead,
# in the JSON document in $output.
# usage: fig PATH KEY [TYPE | (CONDITION)]
fig() {
	local key=$2 which=${3:-file}
	[[ ! $key =~ ^[a-z_]+$ ]] || key=.$key
	[[ $which == "("* ]] || which="(.type == \"$which\")"
	jq -r --arg p "$1" ".rows[] | select(.path == \$p and $which) | $key" <<<"$output"
}

# A JSON document's row PATH (TYPE, file by default, or a condition as
# fig's) holds together: removed = reclaimed + dropped, refaulted at most
# added and removed, each _bytes figure its pages times the page size.
# usage: assert_consistent PATH [TYPE | (CONDITION)]
assert_consistent() {
	local got which=${2:-file}
	[[ $which == "("* ]] || which="(.type == \"$which\")"
	got=$(jq -r --arg p "$1" --argjson ps "$PAGE" '
		.rows[] | select(.path == $p and '"$which"') |
		[ if .removed != .reclaimed + .dropped then "removed \(.removed) != reclaimed \(.reclaimed) + dropped \(.dropped)" else empty end,
		  if .refaulted > .added then "refaulted \(.refaulted) > added \(.added)" else empty end,
		  if .refaulted > .removed then "refaulted \(.refaulted) > removed \(.removed)" else empty end,
		  (["added", "removed", "reclaimed", "dropped", "refaulted"][] as $k |
			if .["\($k)_bytes"] != .[$k] * $ps then "\($k)_bytes \(.["\($k)_bytes"]) != \(.[$k]) pages" else empty end)
		] | join("; ")' <<<"$output")
	[[ -z $got ]] || fail "$1: $got"
}

# The evictors of row PATH other than PROGRAM are the kernel's reclaimers
# (kswapd, kdamond), and they removed the reclaimed pages: the machine's
# own motion, told apart from the test's.
# usage: assert_machine_evictors PATH PROGRAM
assert_machine_evictors() {
	local got
	got=$(jq -r --arg p "$1" --arg c "$2" '
		.rows[] | select(.path == $p and .type == "file") |
		[.evictors[] | select(.command != $c)] as $m |
		if ($m | map(select(has("others") or (.command | test("^(kswapd|kdamond)") | not))) | length) > 0
		then "evictors other than \($c) and the kernel: \($m)"
		elif ($m | map(.pages) | add // 0) != .reclaimed
		then "the kernel'"'"'s evictors removed \($m | map(.pages) | add // 0) pages, reclaimed \(.reclaimed)"
		else empty end' <<<"$output")
	[[ -z $got ]] || fail "$1: $got"
}

# Remove the instance NAME, if it is still there (teardown).
remove_instance() {
	[[ ! -d $INSTANCES/$1 ]] || rmdir "$INSTANCES/$1"
}

# From here on, the pagestat of each run through $PAGESTAT (and the
# pagestat function) writes its pid to ran.pids: the name of the
# instance it would make.
record_pids() {
	printf '#!/bin/sh\necho $$ >>"%s/ran.pids"\nexec "%s" "$@"\n' \
		"$BATS_TEST_TMPDIR" "$PAGESTAT" >"$BATS_TEST_TMPDIR/rec"
	chmod 755 "$BATS_TEST_TMPDIR/rec"
	: >"$BATS_TEST_TMPDIR/ran.pids"
	PAGESTAT=$BATS_TEST_TMPDIR/rec
}

# No run recorded (record_pids) left an instance.
assert_no_instance_left() {
	local pid n=0
	while read -r pid; do
		n=$((n + 1))
		[[ ! -e $INSTANCES/pagestat-$pid ]] || fail "pagestat $pid left the instance $INSTANCES/pagestat-$pid"
	done <"$BATS_TEST_TMPDIR/ran.pids"
	((n > 0)) || fail "no run was recorded"
}

# Other pagestat runs on this machine (another suite's, a benchmark's)
# remove the instances of killed runs too, at their start.  From here
# on, the pids of every pagestat are noted every 20 ms (a run that
# traces lasts far longer), in seen.pids.
watch_pagestats() {
	(
		while :; do
			grep -l '^pagestat' /proc/[0-9]*/comm 2>/dev/null | cut -d/ -f3
			sleep 0.02
		done
	) >"$BATS_TEST_TMPDIR/seen.pids" 3>&- &
	HELPERS+=("$!")
}

# WHAT went wrong: a failure of pagestat, unless another pagestat than
# this test's ran meanwhile (watch_pagestats), which may have removed
# the instances first: then the test cannot tell, and skips saying so.
unless_others() {
	local others ours
	ours=$(printf '%s\n' "${TRACERS[@]}" "$TRACER"; cat "$BATS_TEST_TMPDIR/ran.pids")
	others=$(sort -u "$BATS_TEST_TMPDIR/seen.pids" | grep -vxF -f <(echo "$ours") |
		paste -sd ' ') || true
	[[ -z $others ]] || skip "another pagestat ran meanwhile on this machine (pids $others), which may have removed the instances first: $1"
	fail "$1"
}

# ---- the motion of a read, a drop, a reclaim ------------------------------

@test "a cold file read by cat during --trace=2s: added = its pages (and refaults), cat[PID] the one reader" {
	require_tracing
	cold f 2048
	start_trace -J --trace=2s f
	cat f >/dev/null 3>&- &
	local reader=$!
	wait "$reader"
	still_tracing
	finish_trace
	assert_equal "$status" 0
	assert_consistent f
	local added refaulted removed
	added=$(fig f added) refaulted=$(fig f refaulted) removed=$(fig f removed)
	# cold at the start, read whole once: each page added once, and again
	# only after a removal the trace saw (the machine's kdamond)
	assert_equal "added - refaulted: $((added - refaulted))" "added - refaulted: 2048"
	# nobody dropped a page; what went, the kernel reclaimed
	assert_equal "dropped: $(fig f dropped)" "dropped: 0"
	assert_machine_evictors f none
	# what is cached after is at most what the trace left (kdamond may
	# page out more before pagestat looks)
	(($(fig f cached) <= added - removed)) ||
		fail "cached $(fig f cached) > added $added - removed $removed"
	assert_equal "$(fig f '(.readers | length), .readers[0].pid, .readers[0].command, .readers[0].pages' | paste -sd ' ')" \
		"1 $reader cat $added"
	assert_equal "$(json_field '.total.added')" "$added"
	assert_equal "$(json_field '.errors')" 0
}

@test "fadvise DONTNEED by python3 during the trace: dropped = the pages cached before, python3 the evictor, cachestat's evicted unchanged" {
	require_tracing
	make_cached f 1024
	local before evicted_before after py
	before=$(cstat f 1) evicted_before=$(cstat f 4)
	assert_equal "cached before: $before" "cached before: 1024"
	start_trace -J --trace f
	# every page was cached (held) when the trace began; from here on
	# the trace sees each that goes
	release_holds "fadvise DONTNEED cannot drop locked pages"
	"$PYTHON3" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' f 3>&- &
	py=$!
	wait "$py"
	after=$(cstat f 1)
	finish_trace TERM
	assert_equal "$status" 0
	assert_consistent f
	assert_equal "added: $(fig f added)" "added: 0"
	# every page went during the trace: dropped by python3, or before it
	# by the kernel (reclaimed); those left (none, as a rule) may go
	# before the trace ends, not after it
	local removed
	removed=$(fig f removed)
	((before - after <= removed && removed <= before - $(fig f cached))) ||
		fail "removed $removed: not between $before - $after cached right after the drop and $before - $(fig f cached) after the trace"
	assert_machine_evictors f python3
	assert_equal "$(fig f '.evictors[] | select(.command == "python3") | "\(.pid) \(.pages)"')" \
		"$py $(fig f dropped)"
	(($(fig f dropped) > 0)) || fail "python3 dropped nothing: $(fig f evictors)"
	# DONTNEED leaves no shadow entry: cachestat's evicted moves only by
	# what the kernel reclaimed
	local evicted reclaimed
	evicted=$(fig f evicted) reclaimed=$(fig f reclaimed)
	if ((reclaimed == 0)); then
		assert_equal "evicted: $evicted" "evicted: $evicted_before"
	else
		((evicted_before <= evicted && evicted <= evicted_before + reclaimed)) ||
			fail "evicted $evicted: not between $evicted_before and $evicted_before + reclaimed $reclaimed"
	fi
	assert_equal "cached: $(fig f cached)" "cached: $(cstat f 1)"
}

# A trace instance of the test's own (not named pagestat-PID, which
# pagestat might take for a dead run's), recording the filemap events of
# FILE alone (its device and inode): the oracle pagestat's figures are
# compared with.  RAW its directory; removed in teardown.
raw_trace_start() {
	local e dev
	RAW=$INSTANCES/trace-test-$$-$BATS_TEST_NUMBER
	mkdir "$RAW" || fail "cannot make the test's own trace instance $RAW"
	on_teardown remove_instance "${RAW##*/}"
	echo 16384 >"$RAW/buffer_size_kb"
	echo 0 >"$RAW/options/overwrite"
	# the kernel's dev_t: 12 bits of major above 20 of minor
	read -r -a dev <<<"$(stat -c '%Hd %Ld' "$1")"
	for e in add_to_page_cache delete_from_page_cache; do
		echo "s_dev == $((dev[0] << 20 | dev[1])) && i_ino == $(stat -c %i "$1")" \
			>"$RAW/events/filemap/mm_filemap_$e/filter"
		echo 1 >"$RAW/events/filemap/mm_filemap_$e/enable"
	done
}

# Stop the test's own trace; RAW_FIGS is what it saw: ADDED REMOVED
# REFAULTED FOLIO_REFAULTED, pages (a folio of order N is 2^N pages);
# refaulted are the pages added again after their removal, and
# folio_refaulted the pages of every folio added with such a page in it:
# what the kernel's workingset_refault_file counts (a whole folio, when
# its range held a shadow entry).
raw_trace_stop() {
	echo 0 >"$RAW/tracing_on"
	grep -qE '^(overrun|dropped events): [1-9]' "$RAW"/per_cpu/cpu*/stats &&
		skip "the test's own trace instance lost events: no oracle"
	local figs
	figs=$("$PYTHON3" -c '
import re, sys
shift = int(sys.argv[2]).bit_length() - 1
event = re.compile(r"mm_filemap_(add_to|delete_from)_page_cache: dev \S+ ino \S+ pfn=\S+ ofs=(\d+) order=(\d+)")
gone = set()
added = removed = refaulted = folio_refaulted = 0
for line in open(sys.argv[1]):
    m = event.search(line)
    if not m:
        continue
    first, n = int(m.group(2)) >> shift, 1 << int(m.group(3))
    pages = range(first, first + n)
    if m.group(1) == "add_to":
        again = sum(p in gone for p in pages)
        added += n
        refaulted += again
        folio_refaulted += n if again else 0
        gone.difference_update(pages)
    else:
        removed += n
        gone.update(pages)
print(added, removed, refaulted, folio_refaulted)' "$RAW/trace" "$PAGE") ||
		fail "cannot read the test's own trace"
	read -r -a RAW_FIGS <<<"$figs"
}

# A v1 memory cgroup of this test's own: CG its directory, CGNAME its
# name; removed in teardown.
make_memcg() {
	require_root "only root makes a memory cgroup"
	[[ -e $MEMCG/memory.stat ]] || skip "no cgroup v1 memory controller is mounted at $MEMCG"
	CGNAME=pagestat-trace-$$-$BATS_TEST_NUMBER
	CG=$MEMCG/$CGNAME
	mkdir "$CG" || skip "cannot make a memory cgroup at $CG"
	on_teardown remove_cgroup "$CG"
}

memstat() {
	awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.stat"
}

@test "a reader in a 16M memory cgroup reading a 32M file twice: reclaimed, refaulted as the kernel's events say, the cgroup's workingset_refault_file within them; its cgroup named" {
	require_tracing
	make_memcg
	echo 16M >"$CG/memory.limit_in_bytes"
	local pages=$((32 * 1048576 / PAGE)) wrf_before wrf
	cold big "$pages"
	[[ -n $(memstat workingset_refault_file) ]] || skip "this kernel's v1 memory.stat has no workingset_refault_file"
	# The reader, in the cgroup, locks what it maps (python3 and its
	# libraries, cached first outside the cgroup) before it reads: the
	# cgroup's workingset_refault_file counts every refault in it, of any
	# file, whenever its page went (the machine's kdamond pages out idle
	# pages); only big's are then left to count.
	"$PYTHON3" -c 'import ctypes, os, sys, time' 3>&-
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$PYTHON3" -c '
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.mlockall(1) != 0:  # MCL_CURRENT
    sys.exit("mlockall: " + os.strerror(ctypes.get_errno()))
print("ready", flush=True)
while not os.path.exists("go"):
    time.sleep(0.01)
for _ in range(2):
    with open(sys.argv[1], "rb") as f:
        while f.read(1 << 20):
            pass
print("done", flush=True)
time.sleep(120)' big >reader.out 3>&- &
	local reader=$!
	HELPERS+=("$reader")
	local i
	for ((i = 0; i < 600; i++)); do
		[[ ! -s reader.out ]] || break
		sleep 0.05
	done
	[[ $(cat reader.out) == ready ]] || fail "the reader in $CG did not start: $(cat reader.out)"
	raw_trace_start big
	start_trace -J --trace big
	wrf_before=$(memstat workingset_refault_file)
	touch go
	for ((i = 0; i < 600; i++)); do
		[[ $(cat reader.out) != *done* ]] || break
		sleep 0.05
	done
	[[ $(cat reader.out) == *done* ]] || fail "the reader in $CG did not read big twice within 30 s"
	wrf=$(($(memstat workingset_refault_file) - wrf_before))
	finish_trace TERM
	raw_trace_stop
	local raw=("${RAW_FIGS[@]}")
	assert_equal "$status" 0
	assert_consistent big
	local added refaulted reclaimed removed
	added=$(fig big added) refaulted=$(fig big refaulted) reclaimed=$(fig big reclaimed) removed=$(fig big removed)
	((reclaimed > 0)) || fail "reclaimed $reclaimed: the cgroup's limit reclaimed nothing? $(fig big evictors)"
	((refaulted > 0)) || fail "refaulted $refaulted after a second read of a file twice the cgroup's limit"
	# the same events as the test's own trace saw: the figures exact
	# (removals may go on after pagestat's trace ended, before the
	# test's: the machine's kdamond)
	if [[ $stderr != *"refaults are not counted"* ]]; then
		assert_equal "added refaulted: $added $refaulted" "added refaulted: ${raw[0]} ${raw[2]}"
	else
		assert_equal "added: $added" "added: ${raw[0]}"
		((refaulted <= raw[2])) || fail "refaulted $refaulted > ${raw[2]}, the test's own trace's"
	fi
	((removed <= raw[1])) || fail "removed $removed > ${raw[1]}, the test's own trace's"
	assert_equal "added - refaulted: $((added - refaulted))" "added - refaulted: $pages"
	# the kernel counts a refault where the page's shadow entry survived,
	# a whole folio when its range held one: never more than that
	# (so refaulted >= workingset_refault_file holds for order-0 folios
	# alone: a large folio counts whole there)
	((wrf <= raw[3])) || fail "the cgroup's workingset_refault_file $wrf > ${raw[3]}, the pages of the folios added again"
	# nothing was dropped on request: the reader reclaimed in its cgroup
	assert_equal "dropped: $(fig big dropped)" "dropped: 0"
	assert_equal "$(fig big '.readers[0] | "\(.pid) \(.command) \(.cgroup)"')" "$reader python3 /$CGNAME"
	assert_equal "$(fig big '.readers | length')" 1
	assert_equal "$(fig big '.evictors[] | select(.pid == '"$reader"') | .cgroup')" "/$CGNAME"
}

@test "readers gone before pagestat read their events keep their names (cat, dd), from their exit events" {
	require_tracing
	cold a 512
	cold b 512
	start_trace -J --trace a b
	# pagestat stopped: it reads the events only after both are gone
	kill -STOP "$TRACER"
	cat a >/dev/null 3>&- &
	local cat_pid=$!
	dd if=b of=/dev/null bs=64k status=none 3>&- &
	local dd_pid=$!
	wait "$cat_pid" "$dd_pid"
	kill -CONT "$TRACER"
	finish_trace TERM
	assert_equal "$status" 0
	assert_equal "$(fig a '.readers[0] | "\(.pid) \(.command)"')" "$cat_pid cat"
	assert_equal "$(fig b '.readers[0] | "\(.pid) \(.command)"')" "$dd_pid dd"
	assert_equal "$(($(fig a added) - $(fig a refaulted))) $(($(fig b added) - $(fig b refaulted)))" "512 512"
}

@test "readers alive or gone, the table names them cat[PID]: the READER and EVICTOR columns, + the others" {
	require_tracing
	cold f 256
	start_trace --trace f
	cat f >/dev/null 3>&-
	"$PYTHON3" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
print(os.getpid())' f >py.pid 3>&-
	# a second reader: fewer pages (a quarter, with its readahead)
	dd if=f of=/dev/null bs="$PAGE" count=64 status=none 3>&-
	finish_trace INT
	assert_equal "$status" 0
	assert_equal "$(echo "${lines[0]}" | tr -s ' ' | sed 's/^ //')" \
		"SIZE CACHED PERCENT ADDED RECLAIMED DROPPED REFAULTED READER EVICTOR DIRTY WRITEBACK EVICTED FILES PATH"
	local -a row
	read -ra row <<<"${lines[1]}"
	assert_equal "${row[-1]}" f
	[[ ${row[7]} =~ ^cat\[[0-9]+\]\+1$ ]] || fail "READER '${row[7]}', not cat[PID]+1: ${lines[1]}"
	[[ ${row[8]} =~ ^python3\[$(cat py.pid)\](\+[0-9]+)?$ ]] ||
		fail "EVICTOR '${row[8]}', not python3[$(cat py.pid)]: ${lines[1]}"
	assert_equal "${#lines[@]}" 2
}

@test "a file nobody touched: added, removed and refaulted 0, no reader or evictor ('-', [])" {
	require_tracing
	make_cached quiet 8
	run -0 --separate-stderr bounded -J --trace=200ms quiet
	assert_row quiet added=0 removed=0 reclaimed=0 dropped=0 refaulted=0 cached=8
	assert_equal "$(jq -c '.rows[0] | [.readers, .evictors]' <<<"$output")" "[[],[]]"
	run -0 --separate-stderr bounded --trace=200ms quiet
	assert_equal "$(echo "${lines[1]}" | tr -s ' ' | sed 's/^ //')" "32K 32K 100.0% 0B 0B 0B 0B - - 0B 0B 0B 1 quiet"
}

@test "more than 4 readers: the 4 that added most, most first, then {\"others\": their number, \"pages\": theirs}" {
	require_tracing
	cold f 256
	start_trace -J --trace f
	# six readers, one after another, of pages of their own, one page an
	# event (pcarrange cache: FADV_RANDOM): 60, 50, 40, 30, 20, 10 pages
	local first=0 count pids=()
	for count in 60 50 40 30 20 10; do
		"$PCARRANGE" cache f "$first" "$count" 3>&- &
		pids+=($!)
		wait "$!"
		first=$((first + count))
	done
	finish_trace TERM
	assert_equal "$status" 0
	assert_equal "added: $(fig f added)" "added: 210"
	assert_equal "$(fig f '.readers[:4] | map("\(.command)[\(.pid)] \(.pages)") | join(", ")')" \
		"pcarrange[${pids[0]}] 60, pcarrange[${pids[1]}] 50, pcarrange[${pids[2]}] 40, pcarrange[${pids[3]}] 30"
	assert_equal "$(fig f '.readers | length')" 5
	assert_equal "others' pages: $(fig f '.readers[4].pages')" "others' pages: 30"
	# the others are counted exactly, from each process's own figures
	local others
	others=$(fig f '.readers[4].others')
	((others == 2)) || fail "others: $others, where 2 processes were left out: $(jq -c '.rows[0].readers' <<<"$output")"
}

@test "a reader that adds the most pages after 4 others have is listed first, not among the others" {
	require_tracing
	cold f 256
	start_trace -J --trace f
	local first=0 count pid
	for count in 10 20 30 40 100; do
		"$PCARRANGE" cache f "$first" "$count" 3>&- &
		pid=$!
		wait "$pid"
		first=$((first + count))
	done
	finish_trace TERM
	assert_equal "$status" 0
	assert_equal "$(fig f '.readers[0] | "\(.pid) \(.pages)"')" "$pid 100"
	assert_equal "$(fig f '.readers[4] | "\(.others) \(.pages)"')" "1 10"
}

@test "a leftover instance with this run's own name (a killed run's pid used again) is not taken over: nothing from before the trace is counted" {
	require_tracing
	cold f 256
	# the shell makes instances/pagestat-$$ and records a read of f in
	# it, then becomes pagestat, whose pid is the same
	run --separate-stderr sh -c '
		i=$1/pagestat-$$
		mkdir "$i" && echo 1 >"$i/events/filemap/mm_filemap_add_to_page_cache/enable" &&
		cat "$2" >/dev/null || exit 99
		exec "$3" -J --trace=200ms "$2"' - "$INSTANCES" f "$PAGESTAT"
	assert_equal "$status" 0
	assert_row f added=0 removed=0
	assert_equal "$(fig f '.readers | length')" 0
}

@test "a pagestat tracing in another pid namespace keeps its instance while one outside traces" {
	require_tracing
	command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
	unshare -p -f --mount-proc true 2>/dev/null || skip "cannot make a pid namespace here"
	cold f 64
	local before
	before=$(ls "$INSTANCES")
	unshare -p -f --mount-proc "$PAGESTAT" -J --trace=3s "$PWD/f" >ns.out 2>ns.err 3>&- &
	local ns=$!
	HELPERS+=("$ns")
	# its instance: a new one, recording (pagestat-1 here: its pid there)
	local i name ready=
	for ((i = 0; i < 200 && !ready; i++)); do
		for name in $(ls "$INSTANCES" | grep -vxF -f <(echo "$before")); do
			[[ $(cat "$INSTANCES/$name/events/filemap/mm_filemap_delete_from_page_cache/enable" 2>/dev/null) != 1 ]] ||
				ready=1
		done
		sleep 0.05
	done
	[[ -n $ready ]] || fail "the pagestat in the pid namespace made no instance that records: $(cat ns.err)"
	run -0 --separate-stderr bounded -J --trace=100ms f
	cat f >/dev/null
	wait "$ns" || fail "the pagestat in the pid namespace failed (exit $?): $(cat ns.err)"
	output=$(cat ns.out)
	assert_equal "$(($(fig "$PWD/f" added) - $(fig "$PWD/f" refaulted)))" 64
}

# ---- scope -----------------------------------------------------------------

@test "a directory: a file created in it during the trace has its row with its motion; one read, its own" {
	require_tracing
	mkdir d
	cold d/old 128
	start_trace -J -a --trace d
	pcarrange write d/new $((64 * PAGE)) 3>&-
	cat d/old >/dev/null 3>&-
	finish_trace TERM
	assert_equal "$status" 0
	# the writer added every page of the new file, nobody read it
	assert_equal "$(fig d/new '"\(.added) \(.readers[0].command) \(.readers | length)"')" "64 pcarrange 1"
	assert_consistent d/new
	assert_equal "$(($(fig d/old added) - $(fig d/old refaulted)))" 128
	assert_equal "$(fig d/old '.readers[0].command')" cat
	assert_equal "$(fig d added directory)" "$(($(fig d/new added) + $(fig d/old added)))"
}

@test "--files0-from and --pid name the scope: their files' motion" {
	require_tracing
	cold listed 64
	cold held 32
	printf '%s\0' listed >names
	hold_open held
	HELPERS+=("$HOLDER")
	start_trace -J --trace --files0-from=names
	local by_list=$TRACER
	start_trace -J --trace --pid "$HOLDER"
	local by_pid=$TRACER
	cat listed held >/dev/null 3>&-
	finish_trace TERM "$by_list"
	assert_equal "$status" 0
	assert_equal "$(json_field '[.rows[].path] | join(" ")')" listed
	assert_equal "$(($(fig listed added) - $(fig listed refaulted)))" 64
	finish_trace TERM "$by_pid"
	assert_equal "$status" 0
	assert_equal "$(($(fig "$PWD/held" added) - $(fig "$PWD/held" refaulted)))" 32
	assert_equal "$(fig "$PWD/held" '.readers[0].command')" cat
}

@test "--system: a file made, read and deleted during the trace has its motion in the row (outside the walked files)" {
	require_tracing
	local pages=256
	start_trace -J --system --trace
	cold gone "$pages"
	cat gone >/dev/null 3>&-
	rm gone
	finish_trace TERM
	# (--system may not read every process or device here: exit 0 or 1)
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	local outside='(outside the walked files)'
	# one row, of no kind the walk gives (it sums files, none walked)
	local rest='(true)'
	assert_equal "rows: $(jq --arg p "$outside" '[.rows[] | select(.path == $p)] | length' <<<"$output")" "rows: 1"
	[[ ! $(fig "$outside" type "$rest") =~ ^(file|directory|filesystem|blockdev|cgroup)$ ]] ||
		fail "the outside row is of type $(fig "$outside" type "$rest")"
	(($(fig "$outside" files "$rest") >= 1)) || fail "the outside row sums $(fig "$outside" files "$rest") files"
	# written (added), dropped, read (added again), deleted (dropped; or
	# the machine's kdamond reclaimed some before)
	(($(fig "$outside" added "$rest") >= 2 * pages)) ||
		fail "outside: added $(fig "$outside" added "$rest") < $((2 * pages)), the file's pages written and read"
	(($(fig "$outside" removed "$rest") >= 2 * pages)) ||
		fail "outside: removed $(fig "$outside" removed "$rest") < $((2 * pages))"
	(($(fig "$outside" refaulted "$rest") >= pages)) ||
		fail "outside: refaulted $(fig "$outside" refaulted "$rest") < $pages"
	assert_consistent "$outside" "$rest"
	# the total has its motion
	(($(json_field .total.added) >= $(fig "$outside" added "$rest"))) || fail "the total lacks the outside row's added"
}

@test "a named file replaced by rename during the trace: a row under its old path with its old motion, and a message" {
	require_tracing
	cold f 128
	cold g 16
	start_trace -J --trace f
	cat f >/dev/null 3>&-
	mv g f
	finish_trace TERM
	assert_equal "$status" 0
	assert_stderr_has "f was replaced or removed during the trace"
	# two rows named f: the file there now, inspected, and the one
	# replaced, of its motion alone (its cache state unknown)
	assert_equal "rows: $(jq -r '[.rows[].path] | join(" ")' <<<"$output")" "rows: f f"
	local now='(.cached != null)' old='(.cached == null)'
	# the file there now: the new inode, untraced
	assert_equal "$(fig f '"\(.pages) \(.cached) \(.added) \(.removed)"' "$now")" "16 0 0 0"
	# the old one: read whole, then all its pages went with its inode
	local added refaulted
	added=$(fig f added "$old") refaulted=$(fig f refaulted "$old")
	assert_equal "$((added - refaulted))" 128
	assert_equal "removed: $(fig f removed "$old")" "removed: $added"
	assert_consistent f "$old"
	assert_equal "$(fig f '.evictors[] | select(.command == "mv") | .pages' "$old")" "$(fig f dropped "$old")"
	assert_equal "$(fig f '.readers[0].command' "$old")" cat
	assert_equal "$(json_field .total.added)" "$added"
}

# ---- several traces, the global instance, instances left -------------------

@test "two traces of one file at once each see the read in their own instance; the top-level instance's event left as it was" {
	require_tracing
	local enable=$TRACING/events/filemap/mm_filemap_add_to_page_cache/enable
	local filter=$TRACING/events/filemap/mm_filemap_add_to_page_cache/filter
	local was filter_was
	was=$(cat "$enable") filter_was=$(cat "$filter")
	on_teardown sh -c 'echo "$1" >"$2"' - "$was" "$enable"
	echo 1 >"$enable"
	cold f 512
	start_trace -J --trace f
	local first=$TRACER
	start_trace -J --trace f
	local second=$TRACER
	# the second did not take the first's instance for a dead run's
	[[ -d $INSTANCES/pagestat-$first ]] || fail "the second trace removed the first's instance"
	cat f >/dev/null 3>&-
	local pid
	for pid in "$first" "$second"; do
		finish_trace TERM "$pid"
		assert_equal "$status" 0
		assert_equal "trace $pid: $(($(fig f added) - $(fig f refaulted)))" "trace $pid: 512"
		assert_equal "trace $pid: $(fig f '.readers[0].command')" "trace $pid: cat"
	done
	# the global instance: still enabled, unfiltered, and it recorded too
	assert_equal "$(cat "$enable") $(cat "$filter")" "1 $filter_was"
	local ino
	ino=$(printf %x "$(stat -c %i f)")
	grep -q "mm_filemap_add_to_page_cache: dev [0-9:]* ino $ino " "$TRACING/trace" ||
		fail "the top-level trace buffer lacks the read of f (ino $ino)"
}

@test "a pagestat killed while tracing leaves its instance; the next removes it and says so; live ones and other names stay" {
	require_tracing
	cold f 8
	record_pids
	start_trace -J --trace f
	local live=$TRACER
	# a pid now used by another program (sleep); a name not pagestat-PID
	sleep 120 3>&- &
	local other=$!
	HELPERS+=("$other")
	mkdir "$INSTANCES/pagestat-keep-$$"
	on_teardown remove_instance "pagestat-keep-$$"
	on_teardown remove_instance "pagestat-$other"
	watch_pagestats
	start_trace -J --trace f
	local killed=$TRACER
	kill -KILL "$killed"
	wait "$killed" || true
	forget_tracer "$killed"
	[[ -d $INSTANCES/pagestat-$killed ]] ||
		unless_others "the instance of pagestat $killed, killed, is gone before another run"
	mkdir "$INSTANCES/pagestat-$other"
	run -0 --separate-stderr bounded -J --trace=100ms f
	[[ $stderr =~ "--trace: removed "([0-9]+)" trace instances left by pagestat runs that were killed" ]] &&
		((BASH_REMATCH[1] >= 2)) ||
		unless_others "the run did not say it removed the 2 instances (or more): $stderr"
	assert_row f added=0
	# (this run or another pagestat removed them)
	assert [ ! -e "$INSTANCES/pagestat-$killed" ]
	assert [ ! -e "$INSTANCES/pagestat-$other" ]
	# no pagestat removes those
	assert [ -d "$INSTANCES/pagestat-keep-$$" ]
	assert [ -d "$INSTANCES/pagestat-$live" ]
	# one: said in the singular
	mkdir "$INSTANCES/pagestat-$other"
	run -0 --separate-stderr bounded -J --trace=100ms f
	[[ $stderr == *"--trace: removed 1 trace instance left by pagestat runs that were killed"* ]] ||
		unless_others "the run did not say it removed 1 instance: $stderr"
	assert [ ! -e "$INSTANCES/pagestat-$other" ]
	# -q: removed all the same, not said
	mkdir "$INSTANCES/pagestat-$other"
	run -0 --separate-stderr bounded -q -J --trace=100ms f
	assert_equal "stderr: $stderr" "stderr: "
	assert [ ! -e "$INSTANCES/pagestat-$other" ]
	assert [ -d "$INSTANCES/pagestat-$live" ]
	finish_trace TERM "$live"
	assert_equal "$status" 0
}

@test "SIGINT or SIGTERM ends a trace without a duration: the rows, exit 0, the instance removed" {
	require_tracing
	local sig
	for sig in INT TERM; do
		cold "f$sig" 64
		start_trace -J --trace "f$sig"
		cat "f$sig" >/dev/null 3>&-
		sleep 0.3
		still_tracing
		finish_trace "$sig"
		assert_equal "SIG$sig: exit $status" "SIG$sig: exit 0"
		assert_equal "SIG$sig: $(($(fig "f$sig" added) - $(fig "f$sig" refaulted)))" "SIG$sig: 64"
		assert_equal "SIG$sig: $(json_field '.total.files')" "SIG$sig: 1"
	done
}

@test "a signal that ends pagestat while it traces (SIGHUP, SIGUSR1) removes its instance on the way out" {
	require_tracing
	cold f 8
	local sig
	for sig in HUP USR1; do
		start_trace -J --trace f
		finish_trace "$sig"
		assert_equal "SIG$sig: exit $status" "SIG$sig: exit $((128 + $(kill -l "$sig")))"
		refute_output
	done
}

@test "events lost to a full buffer (--trace-buffer=64K, pagestat not reading): said with the remedy, exit 1; none lost with the default buffer" {
	require_tracing
	local pages=16384
	cold f "$pages"
	# one event a page (FADV_RANDOM, order 0) while pagestat is stopped:
	# about 16384 events of some 40 bytes, past 64K a CPU
	start_trace -J --trace --trace-buffer=64K f
	kill -STOP "$TRACER"
	pcarrange cache f 0 "$pages" 3>&-
	kill -CONT "$TRACER"
	finish_trace TERM
	assert_equal "$status" 1
	assert_stderr_has "--trace: the kernel lost " "trace again with --trace-buffer=256K"
	[[ $stderr =~ lost\ ([0-9]+)\ events?\ of\ ([0-9]+) ]] || fail "no count of lost events: $stderr"
	local lost=${BASH_REMATCH[1]} all=${BASH_REMATCH[2]}
	((lost > 0 && lost < all)) || fail "lost $lost of $all"
	# the rows are there, short by what was lost
	(($(fig f added) < pages)) || fail "added $(fig f added) though events were lost"
	# the same with the default buffer: nothing lost
	pcarrange drop f
	pcarrange holds f dropped || fail "f: its pages could not be dropped"
	start_trace -J --trace f
	kill -STOP "$TRACER"
	pcarrange cache f 0 "$pages" 3>&-
	kill -CONT "$TRACER"
	finish_trace TERM
	assert_equal "$status" 0
	[[ $stderr != *lost* ]] || fail "lost events with 8M a CPU: $stderr"
	assert_equal "$(($(fig f added) - $(fig f refaulted)))" "$pages"
}

# ---- formats and columns -------------------------------------------------

@test "formats: -J's readers and evictors arrays, --csv's added columns, Prometheus' pagestat_added_bytes, -o's choice" {
	require_tracing
	cold f 128
	start_trace -J --trace f
	local json=$TRACER
	start_trace --csv --trace f
	local csv=$TRACER
	start_trace --format=prometheus --output-file=metrics.prom --trace f
	local prom=$TRACER
	start_trace -J -o added,readers --trace f
	local chosen=$TRACER
	start_trace --csv -o path,added,readers,evictors --trace f
	local csv_chosen=$TRACER
	cat f >/dev/null 3>&-
	local added
	finish_trace TERM "$json"
	assert_equal "$status" 0
	added=$(fig f added)
	assert_equal "$(fig f '[.readers, .evictors | type] | join(" ")')" "array array"
	# -J: every column, the trace's among them
	assert_equal "$(fig f '[("added", "removed", "reclaimed", "dropped", "refaulted" | ., "\(.)_bytes"), "readers", "evictors"] as $k | [$k[] as $c | select(has($c) | not) | $c] | join(" ")')" ""
	assert_equal "$(fig f '.readers[0] | keys | join(" ")')" "cgroup command pages pid"
	assert_equal "$(jq -r '.total | "\(.added) \(.readers) \(.evictors)"' <<<"$output")" "$added null null"

	finish_trace TERM "$csv"
	assert_equal "$status" 0
	[[ ${lines[0]} == *",added,added_bytes,"* ]] || fail "csv header without added,added_bytes: ${lines[0]}"
	local -A col=()
	local i names
	IFS=, read -ra names <<<"${lines[0]}"
	for i in "${!names[@]}"; do col[${names[i]}]=$i; done
	for i in removed reclaimed dropped refaulted readers evictors; do
		[[ -n ${col[$i]-} ]] || fail "csv header without $i: ${lines[0]}"
	done
	local -a row
	IFS=, read -ra row <<<"${lines[1]}"
	[[ ${row[${col[readers]}]} =~ ^cat\[[0-9]+\] ]] || fail "csv readers '${row[${col[readers]}]}': ${lines[1]}"
	(( ${row[${col[added]}]} >= 128 && ${row[${col[added_bytes]}]} == ${row[${col[added]}]} * PAGE )) ||
		fail "csv added ${row[${col[added]}]}, added_bytes ${row[${col[added_bytes]}]}"

	finish_trace TERM "$prom"
	assert_equal "$status" 0
	# (a family of the motion since the trace began may be a counter,
	# pagestat_added_bytes_total)
	local metric
	for metric in added removed reclaimed dropped refaulted; do
		grep -qE "^pagestat_${metric}_bytes(_total)?\{.*\} [0-9]" metrics.prom ||
			fail "metrics.prom lacks pagestat_${metric}_bytes: $(grep -v '^#' metrics.prom)"
	done
	grep -qE '^# HELP pagestat_added_bytes(_total)? ' metrics.prom || fail "no HELP of pagestat_added_bytes"
	local prom_added
	prom_added=$(sed -En 's/^pagestat_added_bytes(_total)?\{.*path="f".*\} ([0-9]+)$/\2/p' metrics.prom)
	(( prom_added >= 128 * PAGE )) || fail "pagestat_added_bytes of f: '$prom_added'"

	finish_trace TERM "$chosen"
	assert_equal "$status" 0
	assert_equal "$(jq -r '.rows[] | keys_unsorted | join(" ")' <<<"$output")" "added added_bytes readers"
	assert_equal "$(jq -r '.rows[0].readers[0].command' <<<"$output")" cat

	finish_trace TERM "$csv_chosen"
	assert_equal "$status" 0
	assert_equal "${lines[0]}" "path,added,added_bytes,readers,evictors"
	# (no evictor, or the machine's kdamond or kswapd)
	[[ ${lines[1]} =~ ^f,[0-9]+,[0-9]+,cat\[[0-9]+\],((kdamond|kswapd)[^,]*)?$ ]] || fail "csv row: ${lines[1]}"
}

# ---- refused --------------------------------------------------------------

@test "bad --trace and --trace-buffer values, and what --trace cannot go with: exit 2, the option and value named, no instance made" {
	: >f
	record_pids
	refused "--trace" "'0'" "a duration" -- --trace=0 f
	refused "--trace" "'abc'" -- --trace=abc f
	refused "--trace" "'-5s'" -- --trace=-5s f
	refused "--trace" "'10x'" -- --trace=10x f
	refused "--trace" "''" -- --trace= f
	refused "--trace" "'5ms'" "10ms" -- --trace=5ms f
	refused "--trace" "'8d'" "7d" -- --trace=8d f
	refused "--trace-buffer" "'0'" "64K" -- --trace=1s --trace-buffer=0 f
	refused "--trace-buffer" "'1K'" "64K" -- --trace=1s --trace-buffer=1K f
	refused "--trace-buffer" "'100T'" "MemTotal" -- --trace=1s --trace-buffer=100T f
	refused "--trace-buffer needs --trace" -- --trace-buffer=1M f
	local with
	for with in --evict --warm --warm-from=f --lock; do
		refused "--trace cannot be combined with" "${with%%=*}" -- --trace=1s "$with" f
	done
	refused "--trace" "-i/--interval" -- --trace=1s -i 1 f
	refused "--trace cannot be combined with" "--browse" -- --trace=1s --browse f
	[[ ! -d $INSTANCES ]] || assert_no_instance_left
}

@test "the trace's columns without --trace: a usage error naming the column" {
	: >f
	local c
	for c in added removed reclaimed refaulted readers evictors; do
		refused "column '$c' in --output needs --trace" -- -o "$c" f
	done
	refused "column 'dropped' in --output needs --evict or --trace" -- -o dropped f
	# and none of them among the defaults
	run -0 --separate-stderr pagestat -J f
	assert_equal "$(json_field '.rows[0] | [has("added", "readers", "refaulted")] | any')" false
}

@test "a setcap pagestat run by nobody cannot trace: exit 3, 'cannot make a trace instance' ... root, no row, no instance" {
	require_tracing
	enter_nobody_dir
	on_teardown leave_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	run -0 as_nobody ./pagestat-cap --version
	[[ $output == *"capabilities: cap_dac_read_search,cap_fowner"* ]] ||
		skip "file capabilities are not honoured here (nosuid mount?): $output"
	make_cached data 4
	chmod 644 data
	# each run's pid (pagestat's once sh execs it), noted where nobody
	# may write
	: >ran.pids
	chmod 666 ran.pids
	# (libtracefs 1.6 leaks the instance's path when its mkdir fails: a
	# sanitizer build's LeakSanitizer would make the exit 1)
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	run -3 --separate-stderr as_nobody sh -c 'echo $$ >>ran.pids && exec "$@"' - \
		./pagestat-cap -J --trace=1s data
	refute_output
	assert_stderr_has "cannot make a trace instance" "root"
	# nor without the capabilities
	run -3 --separate-stderr as_nobody sh -c 'echo $$ >>ran.pids && exec "$@"' - \
		./pagestat -J --trace=1s data
	refute_output
	assert_stderr_has "cannot make a trace instance" "root"
	local pid
	for pid in $(cat ran.pids); do
		assert [ ! -e "$INSTANCES/pagestat-$pid" ]
	done
	assert_equal "runs: $(wc -l <ran.pids)" "runs: 2"
}
