#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --trace's two other modes, on the real kernel, against what the tests
# arrange themselves:
#  - with -i: one trace instance across the samples, each sample's
#    added, removed, reclaimed, dropped and refaulted the motion since
#    the sample before, readers and evictors since the start, the
#    busiest rows first; Prometheus' counters count from the start;
#  - with --by=process and --by=cgroup: a row a process (COMMAND[PID])
#    or a memory cgroup, with the files it moved (files, top_files),
#    within the FILE operands' scope or, with --system, every file;
# and the values of --trace and --by that are refused.
#
# A read between two samples is timed by the output: the test waits for
# a sample to be written, acts (a read of a few hundred pages takes
# milliseconds, the interval a second), and checks that the next sample
# was not written meanwhile.  The machine pages out idle pages by itself
# (kdamond, TESTING.md): a cold file read whole has each page added once,
# and again only after a removal the trace saw (a refault), so the tests
# compare added - refaulted with the pages read; the kernel's reclaimers
# may have rows of their own under --by.
#
# The helpers for traces in the background are trace.bats' (copied, not
# sourced: that suite's tests would run here too).

load test_helper

TRACING=/sys/kernel/tracing
INSTANCES=$TRACING/instances
MEMCG=/sys/fs/cgroup/memory
: "${PAGESTAT_SCHEMA:=$HELPER_DIR/../doc/pagestat.schema.json}"
: "${SCHEMA_CHECK:=$HELPER_DIR/schema_check.py}"

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

# ---- traces in the background (as trace.bats) -----------------------------

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

# A v1 memory cgroup of this test's own: CG its directory, CGNAME its
# name; removed in teardown.
make_memcg() {
	require_root "only root makes a memory cgroup"
	[[ -e $MEMCG/memory.stat ]] || skip "no cgroup v1 memory controller is mounted at $MEMCG"
	CGNAME=pagestat-trace-modes-$$-$BATS_TEST_NUMBER
	CG=$MEMCG/$CGNAME
	mkdir "$CG" || skip "cannot make a memory cgroup at $CG"
	on_teardown remove_cgroup "$CG"
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

# ---- samples: waiting for them, reading them -------------------------------

# How many lines of the output of the trace TRACER (so far) match the
# extended regular expression RE: with -J a document a line ends with
# its "errors", with ndjson a sample ends with its total line.
# usage: count_out RE
count_out() {
	grep -cE -- "$1" "trace.${TRACE_FILES[$TRACER]}.out" || true
}

# Wait until the output of the trace TRACER has N lines matching RE:
# sample N is written (its figures taken).
# usage: wait_out RE N
wait_out() {
	local i
	for ((i = 0; i < 1500; i++)); do
		(($(count_out "$1") >= $2)) && return 0
		! ended "$TRACER" 0 ||
			fail "pagestat $TRACER ended before its sample $2: $(cat "trace.${TRACE_FILES[$TRACER]}.err")"
		sleep 0.02
	done
	fail "pagestat $TRACER wrote no sample $2 within 30 s"
}

# The test's action just done fell between samples N and N+1: sample
# N+1 is not written yet.  (The action takes milliseconds, an interval a
# second: else the machine is far slower than any this suite knows.)
# usage: still_between RE N WHAT
still_between() {
	local got
	got=$(count_out "$1")
	((got == $2)) ||
		fail "$3 ended after sample $(($2 + 1)) began ($got samples written): the interval was too short for this machine"
}

# Every JSON or ndjson FILE meets doc/pagestat.schema.json (as
# tests/schema.bats checks), with python3-jsonschema.
# usage: assert_schema FILE...
assert_schema() {
	"$PYTHON3" -c 'import jsonschema' 2>/dev/null ||
		fail "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
	local got
	got=$("$PYTHON3" "$SCHEMA_CHECK" "$PAGESTAT_SCHEMA" "$@" 2>&1) ||
		fail "output that breaks $PAGESTAT_SCHEMA: $got"
	[[ $got == *" 0 invalid, 0 not JSON"* ]] || fail "schema check: $got"
}

# The value of the Prometheus sample METRIC{...path="PATH"...} in FILE.
# usage: prom FILE METRIC PATH
prom() {
	sed -En "s/^$2\\{(.*,)?path=\"$3\"(,.*)?\\} ([0-9]+)\$/\\3/p" "$1"
}

# KEY (or a jq filter) of the row PATH of the JSON document in $output,
# or of its sample SAMPLE (from 0) when the output is ndjson.
# usage: fig PATH KEY        (a -J document)
# usage: sfig SAMPLE PATH KEY (ndjson, several samples)
fig() {
	local key=$2
	[[ ! $key =~ ^[a-z_]+$ ]] || key=.$key
	jq -r --arg p "$1" ".rows[] | select(.path == \$p) | $key" <<<"$output"
}
sfig() {
	local key=$3
	[[ ! $key =~ ^[a-z_]+$ ]] || key=.$key
	jq -s -r --argjson s "$1" --arg p "$2" \
		"group_by(.time)[\$s][] | select(.path == \$p) | $key" <<<"$output"
}

# The rows of the JSON document in $output that are the kernel's own
# reclaimers (kswapd, kdamond; and under --by=cgroup their cgroup, the
# root): what the machine moved by itself while the test traced.
KERNEL_ROWS='(.path | test("^(kswapd|kdamond)[^\\[]*\\[[0-9]+\\]$"))'

# ---- -i: samples of one trace ------------------------------------------------

@test "--trace -i 1 --count 3 (ndjson): each sample counts the motion since the one before (the first, since the start); readers since the start; the busiest row first" {
	require_tracing
	# m_first is read before sample 1, z_busy between samples 1 and 2,
	# a_later between 2 and 3: by path a_later would come first in each
	# sample, by the motion since the start z_busy would in 2 and 3
	cold m_first 64
	cold a_later 32
	cold z_busy 256
	local total='"type":"total"'
	start_trace --format=ndjson --trace -i 1 --count 3 a_later m_first z_busy
	cat m_first >/dev/null 3>&- &
	local zeroth=$!
	wait "$zeroth"
	still_between "$total" 0 "the read of m_first"
	wait_out "$total" 1
	cat z_busy >/dev/null 3>&- &
	local first=$!
	wait "$first"
	still_between "$total" 1 "the read of z_busy"
	wait_out "$total" 2
	cat a_later >/dev/null 3>&- &
	local second=$!
	wait "$second"
	still_between "$total" 2 "the read of a_later"
	finish_trace
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	# three samples, each line with its time
	assert_equal "$(jq -s -r 'map(has("time")) | all' <<<"$output")" true
	assert_equal "samples: $(jq -s -r 'map(.time) | unique | length' <<<"$output")" "samples: 3"
	# each sample: the pages read in it alone (added - refaulted: see above)
	local s f spec want got
	for spec in "m_first 64 0 0" "z_busy 0 256 0" "a_later 0 0 32"; do
		read -r f want <<<"$spec"
		got=
		for s in 0 1 2; do
			got+="${got:+ }$(sfig "$s" "$f" '.added - .refaulted')"
		done
		assert_equal "$f added by sample: $got" "$f added by sample: $want"
	done
	# the total of each sample sums that sample's rows
	assert_equal "$(jq -s -r 'group_by(.time) | map((map(select(.type == "total"))[0].added) == (map(select(.type != "total") | .added) | add)) | all' <<<"$output")" true
	# the busiest of the sample first, the total last
	assert_equal "first rows: $(jq -s -r 'group_by(.time) | map(.[0].path + " .. " + .[-1].type) | join(", ")' <<<"$output")" \
		"first rows: m_first .. total, z_busy .. total, a_later .. total"
	# readers: since the start of the trace, so z_busy's cat stays in
	# sample 3, which added nothing to it
	assert_equal "$(sfig 0 z_busy '.readers | length')" 0
	local added
	added=$(sfig 1 z_busy added)
	assert_equal "sample 2: $(sfig 1 z_busy '.readers | map("\(.command)[\(.pid)] \(.pages)") | join(", ")')" \
		"sample 2: cat[$first] $added"
	assert_equal "sample 3: $(sfig 2 z_busy '.readers | map("\(.command)[\(.pid)] \(.pages)") | join(", ")')" \
		"sample 3: cat[$first] $added"
	assert_equal "sample 3: $(sfig 2 m_first '.readers | map("\(.command)[\(.pid)]") | join(", ")')" \
		"sample 3: cat[$zeroth]"
	assert_equal "sample 3: $(sfig 2 a_later '.readers | map("\(.command)[\(.pid)]") | join(", ")')" \
		"sample 3: cat[$second]"
}

@test "--trace -i 1 --count 3 --format=prometheus --output-file: counters (# TYPE counter) from the start of the trace, each sample's file replacing the last" {
	require_tracing
	cold f 128
	start_trace --format=prometheus --output-file=metrics.prom --trace -i 1 --count 3 f
	local i
	for ((i = 0; i < 1500; i++)); do
		[[ ! -e metrics.prom ]] || break
		! ended "$TRACER" 0 || fail "pagestat ended before its first sample: $(cat trace.0.err)"
		sleep 0.02
	done
	[[ -e metrics.prom ]] || fail "no sample in metrics.prom within 30 s"
	# (replaced by a rename: never half written)
	cp metrics.prom sample1
	cat f >/dev/null 3>&-
	# sample 2: the first that differs (the read is in it)
	for ((i = 0; i < 1500; i++)); do
		cmp -s metrics.prom sample1 || break
		sleep 0.02
	done
	cp metrics.prom sample2
	finish_trace
	assert_equal "exit $status: $stderr" "exit 0: "
	refute_output
	cp metrics.prom sample3
	local metric
	for metric in added removed reclaimed refaulted; do
		assert_equal "$metric: $(grep -c "^# TYPE pagestat_${metric}_bytes_total counter\$" sample3)" "$metric: 1"
		assert_equal "$metric: $(grep -c "^pagestat_${metric}_bytes{" sample3)" "$metric: 0"
	done
	local s added=() refaulted=()
	for s in sample1 sample2 sample3; do
		added+=("$(prom "$s" pagestat_added_bytes_total f)")
		refaulted+=("$(prom "$s" pagestat_refaulted_bytes_total f)")
	done
	[[ ${added[*]} =~ ^[0-9]+\ [0-9]+\ [0-9]+$ ]] || fail "pagestat_added_bytes_total of f by sample: '${added[*]}'"
	# sample 1 before the read, sample 2 with it; sample 3 moved
	# nothing and counts all the same (a count of its interval alone
	# would be 0)
	assert_equal "sample 1: ${added[0]}" "sample 1: 0"
	assert_equal "sample 2: $((added[1] - refaulted[1]))" "sample 2: $((128 * PAGE))"
	assert_equal "sample 3: ${added[2]} ${refaulted[2]}" "sample 3: ${added[1]} ${refaulted[1]}"
}

@test "--trace -i 1 --sort=path, ended by SIGINT after sample 2: exit 0, the samples written, no instance left; --sort decides the order" {
	require_tracing
	cold a 32
	cold z 128
	local doc='"errors":[0-9]+}$'
	start_trace -J --trace -i 1 --sort=path a z
	wait_out "$doc" 1
	cat z >/dev/null 3>&-
	still_between "$doc" 1 "the read of z"
	wait_out "$doc" 2
	# (finish_trace: no instance left)
	finish_trace INT
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	assert_equal "documents: ${#lines[@]}" "documents: 2"
	output=${lines[1]}
	assert_equal "$(fig z '.added - .refaulted')" 128
	assert_equal "$(fig a added)" 0
	# by path, not by added
	assert_equal "$(jq -r '[.rows[].path] | join(" ")' <<<"$output")" "a z"
}

# ---- --by: rows of processes and cgroups --------------------------------------

@test "--by=process: cat's row added its file's pages, python3's dropped the other's; files, top_files, no size or cache state; the table's columns" {
	require_tracing
	cold g 256
	make_cached h 64
	start_trace -J --trace --by=process g h
	local json=$TRACER
	start_trace -b --trace --by=process g h
	local table=$TRACER
	# h was held cached until both traced; fadvise cannot drop locked pages
	release_holds "fadvise DONTNEED cannot drop locked pages"
	cat g >/dev/null 3>&- &
	local reader=$!
	wait "$reader"
	"$PYTHON3" -c '
import os, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)' h 3>&- &
	local py=$!
	wait "$py"
	finish_trace TERM "$json"
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	local cat_row="cat[$reader]" py_row="python3[$py]"
	# no rows but the two processes' and the kernel's reclaimers'
	assert_equal "other rows: $(jq -r '[.rows[] | select(.path != "'"$cat_row"'" and .path != "'"$py_row"'" and ('"$KERNEL_ROWS"' | not)) | .path] | join(" ")' <<<"$output")" \
		"other rows: "
	assert_equal "$(jq -r '[.rows[].type] | unique | join(" ")' <<<"$output")" process
	# the reader: g's pages, one file, no cache state
	local added refaulted
	added=$(fig "$cat_row" added) refaulted=$(fig "$cat_row" refaulted)
	assert_equal "cat: added - refaulted: $((added - refaulted))" "cat: added - refaulted: 256"
	assert_equal "cat: $(fig "$cat_row" '"\(.removed) \(.dropped) \(.files) \(.size) \(.cached) \(.percent)"')" \
		"cat: 0 0 1 null null null"
	assert_equal "cat: $(fig "$cat_row" '.top_files | tojson')" "cat: [{\"path\":\"g\",\"pages\":$added}]"
	assert_equal "cat: $(fig "$cat_row" '.added_bytes')" "cat: $((added * PAGE))"
	# the dropper: h's pages, all of them but what the kernel reclaimed
	# before the drop (if anything)
	local dropped kernel
	dropped=$(fig "$py_row" dropped)
	kernel=$(jq -r '[.rows[] | select('"$KERNEL_ROWS"') | .top_files[] | select(.path == "h") | .pages] | add // 0' <<<"$output")
	assert_equal "python3: dropped $dropped + the kernel's $kernel" "python3: dropped $((64 - kernel)) + the kernel's $kernel"
	((dropped > 0)) || fail "python3 dropped nothing"
	assert_equal "python3: $(fig "$py_row" '"\(.added) \(.removed) \(.reclaimed) \(.files) \(.top_files | tojson)"')" \
		"python3: 0 $dropped 0 1 [{\"path\":\"h\",\"pages\":$dropped}]"
	# the most moving first (added and removed), the kernel's rows aside
	assert_equal "order: $(jq -r '[.rows[] | select('"$KERNEL_ROWS"' | not) | .path] | join(" ")' <<<"$output")" \
		"order: $cat_row $py_row"
	assert_equal "$(jq -r '[.rows[] | .added + .removed] | . == (sort | reverse)' <<<"$output")" true
	# the total sums the rows
	assert_equal "$(jq -r '"\(.total.added) \(.total.dropped)"' <<<"$output")" \
		"$(jq -r '"\([.rows[].added] | add) \([.rows[].dropped] | add)"' <<<"$output")"
	# the table of the same events: its own columns, bytes (-b)
	finish_trace TERM "$table"
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_equal "$(tr -s ' ' <<<"${lines[0]}" | sed 's/^ //')" "ADDED RECLAIMED DROPPED REFAULTED FILES TOP_FILE PATH"
	local line cat_line='' py_line=''
	for line in "${lines[@]:1}"; do
		[[ $line != *" $cat_row" ]] || cat_line=$(tr -s ' ' <<<"$line" | sed 's/^ //')
		[[ $line != *" $py_row" ]] || py_line=$(tr -s ' ' <<<"$line" | sed 's/^ //')
	done
	assert_equal "$cat_line" "$((added * PAGE)) 0 0 $((refaulted * PAGE)) 1 g $cat_row"
	assert_equal "$py_line" "0 0 $((dropped * PAGE)) 0 1 h $py_row"
}

@test "--by=process top_files: the 4 files moved most, most first, then {\"others\": N, \"pages\": N}; the table and CSV show the first and +N" {
	require_tracing
	local n files=()
	for n in 10 20 30 40 50 60; do
		cold "p$n" "$n"
		files+=("p$n")
	done
	start_trace -J --trace --by=process "${files[@]}"
	local json=$TRACER
	start_trace --csv --trace --by=process "${files[@]}"
	local csv=$TRACER
	start_trace --trace --by=process "${files[@]}"
	local table=$TRACER
	# one process reads all six, the smallest first
	cat "${files[@]}" >/dev/null 3>&- &
	local reader=$!
	wait "$reader"
	finish_trace TERM "$json"
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	local row="cat[$reader]"
	# (added - refaulted: each file's pages once; a refault, were there
	# one, would move a file by more than its pages)
	assert_equal "$(fig "$row" '"\(.added - .refaulted) \(.files)"')" "210 6"
	assert_equal "$(fig "$row" '.top_files[:4] | map("\(.path) \(.pages)") | join(", ")')" \
		"p60 60, p50 50, p40 40, p30 30"
	assert_equal "$(fig "$row" '.top_files[4] | tojson')" '{"others":2,"pages":30}'
	assert_equal "$(fig "$row" '.top_files | length')" 5
	finish_trace TERM "$csv"
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_equal "${lines[0]}" "path,type,added,added_bytes,removed,removed_bytes,reclaimed,reclaimed_bytes,dropped,dropped_bytes,refaulted,refaulted_bytes,files,top_files"
	local csv_row
	csv_row=$(grep -F "$row," <<<"$output") || fail "no CSV row $row: $output"
	[[ $csv_row == "$row,process,"*",6,p60+5" ]] || fail "CSV row: $csv_row"
	finish_trace TERM "$table"
	assert_equal "exit $status: $stderr" "exit 0: "
	local line
	line=$(grep -F " $row" <<<"$output" | tr -s ' ' | sed 's/^ //') || fail "no table row $row: $output"
	[[ $line == *" 6 p60+5 $row" ]] || fail "table row: $line"
}

# A file by its device and inode, as --by names one the walk did not
# find: (device MAJOR:MINOR, inode N).
dev_ino() {
	stat -c '(device %Hd:%Ld, inode %i)' "$1"
}

@test "--by=process: with FILE operands only their files count (a read outside them: no pages, no row); with --system every file, those the walk did not find by device and inode" {
	require_tracing
	cold g 128
	cold out 32
	cold out2 16
	start_trace -J --trace --by=process g
	local named=$TRACER
	# (--exclude='*': the walk finds no file, and takes no time)
	start_trace -J --system --exclude='*' --trace --by=process
	local system=$TRACER
	# cat reads g and a file outside the operands; dd only another
	cat g out >/dev/null 3>&- &
	local reader=$!
	wait "$reader"
	dd if=out2 of=/dev/null bs="$PAGE" status=none 3>&- &
	local dd=$!
	wait "$dd"
	finish_trace TERM "$named"
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	local cat_row="cat[$reader]" dd_row="dd[$dd]"
	assert_equal "cat: $(($(fig "$cat_row" added) - $(fig "$cat_row" refaulted)))" "cat: 128"
	assert_equal "cat: $(fig "$cat_row" '"\(.files) \(.top_files | map(.path) | join(" "))"')" "cat: 1 g"
	assert_equal "rows of dd: $(jq --arg p "$dd_row" '[.rows[] | select(.path == $p)] | length' <<<"$output")" "rows of dd: 0"
	assert_equal "$(jq -r '.total.files' <<<"$output")" 1

	finish_trace TERM "$system"
	# (--system may not read every process or device here: exit 0 or 1)
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_schema "trace.1.out"
	# cat's row: both its files (and whatever else it moved: its own
	# program and libraries, where the machine had paged them out)
	(($(fig "$cat_row" files) >= 2)) || fail "cat: files $(fig "$cat_row" files)"
	(($(fig "$cat_row" added) >= 128 + 32)) || fail "cat: added $(fig "$cat_row" added)"
	local name pages
	name=$(dev_ino g)
	pages=$(fig "$cat_row" '.top_files[] | select(.path == "'"$name"'") | .pages')
	((pages >= 128)) || fail "cat: top_files lacks $name (g) with its 128 pages: $(fig "$cat_row" '.top_files | tojson')"
	name=$(dev_ino out)
	pages=$(fig "$cat_row" '.top_files[] | select(.path == "'"$name"'") | .pages')
	((pages >= 32)) || fail "cat: top_files lacks $name (out) with its 32 pages: $(fig "$cat_row" '.top_files | tojson')"
	name=$(dev_ino out2)
	pages=$(fig "$dd_row" '.top_files[] | select(.path == "'"$name"'") | .pages')
	((pages >= 16)) || fail "dd: top_files lacks $name (out2) with its 16 pages: $(fig "$dd_row" '.top_files | tojson')"
}

@test "--by=cgroup: a reader in a v1 memory cgroup is its cgroup's row (/NAME); one gone before pagestat read its events is (unknown)" {
	require_tracing
	make_memcg
	cold g 256
	cold k 64
	# the reader, moved into the cgroup, reads g on a sign, then stays
	# (its cgroup read from /proc while it runs)
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$PYTHON3" -c '
import os, sys, time
print("ready", flush=True)
while not os.path.exists("go"):
    time.sleep(0.01)
with open(sys.argv[1], "rb") as f:
    while f.read(1 << 20):
        pass
print("done", flush=True)
time.sleep(120)' g >reader.out 3>&- &
	local reader=$!
	HELPERS+=("$reader")
	local i
	for ((i = 0; i < 600; i++)); do
		[[ ! -s reader.out ]] || break
		sleep 0.05
	done
	[[ $(cat reader.out) == ready ]] || fail "the reader in $CG did not start: $(cat reader.out)"
	start_trace -J --trace --by=cgroup g k
	# pagestat stopped: it reads the events after the reader read g and
	# after a cat in the same cgroup read k and ended
	kill -STOP "$TRACER"
	touch go
	for ((i = 0; i < 600; i++)); do
		[[ $(cat reader.out) != *done* ]] || break
		sleep 0.05
	done
	[[ $(cat reader.out) == *done* ]] || fail "the reader in $CG did not read g within 30 s"
	sh -c 'echo $$ >"$0/cgroup.procs" && exec cat "$1"' "$CG" k >/dev/null 3>&-
	kill -CONT "$TRACER"
	finish_trace TERM
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_schema "trace.0.out"
	assert_equal "$(jq -r '[.rows[].type] | unique | join(" ")' <<<"$output")" cgroup
	local row=/$CGNAME gone='(unknown)'
	assert_equal "$row: $(($(fig "$row" added) - $(fig "$row" refaulted)))" "$row: 256"
	assert_equal "$row: $(fig "$row" '"\(.files) \(.top_files[0].path) \(.dropped) \(.size) \(.cached)"')" \
		"$row: 1 g 0 null null"
	assert_equal "$gone: $(($(fig "$gone" added) - $(fig "$gone" refaulted)))" "$gone: 64"
	assert_equal "$gone: $(fig "$gone" '"\(.files) \(.top_files[0].path)"')" "$gone: 1 k"
	# nothing else moved g or k but the kernel's reclaimers (cgroup /)
	assert_equal "other rows: $(jq -r --arg r "$row" --arg g "$gone" '[.rows[] | select(.path != $r and .path != $g and (.path != "/" or .added != 0)) | .path] | join(" ")' <<<"$output")" \
		"other rows: "
}

# ---- refused ---------------------------------------------------------------------

@test "--by without --trace, a --by that is no kind of row, --by or a DURATION with -i, --trace 5s with no file 5s, --trace=0x10: exit 2, said, no instance made" {
	: >f
	record_pids
	refused "--by needs --trace" -- --by=process f
	refused "--by needs --trace" -- --by=cgroup f
	refused "--by" "'nonsense'" -- --by=nonsense --trace=1s .
	refused "--by" "-i/--interval" -- --by=process -i 1 --trace f
	refused "--by" "-i/--interval" -- --by=cgroup -i 1 --count 2 --trace f
	refused "--trace" "DURATION" "-i" -- --trace=5s -i 1 f
	# the man page: the value goes after '='; "--trace 5s" takes 5s for a
	# FILE, and where there is none that is a usage error, which says so
	refused "--trace" "--trace=5s" "no such file" -- --trace 5s f
	# DURATION is in decimal digits
	refused "--trace" "'0x10'" -- --trace=0x10 f
	[[ ! -d $INSTANCES ]] || assert_no_instance_left
}

@test "--trace 5s where a file 5s exists: 5s is a FILE operand, traced until SIGTERM" {
	require_tracing
	cold 5s 64
	start_trace -J --trace 5s
	cat 5s >/dev/null 3>&-
	finish_trace TERM
	assert_equal "exit $status: $stderr" "exit 0: "
	assert_equal "$(jq -r '[.rows[].path] | join(" ")' <<<"$output")" 5s
	assert_equal "$(($(fig 5s added) - $(fig 5s refaulted)))" 64
	assert_equal "$(fig 5s '.readers[0].command')" cat
}
