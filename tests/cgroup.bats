#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --cgroup: a memory cgroup's own figures (memory.stat), the files its
# processes map or hold open with their exact cached pages, and the share
# of the cgroup's file pages found in them; against a v1 memory cgroup the
# test makes (v2 where it is mounted with the memory controller).

load test_helper

MEMCG=/sys/fs/cgroup/memory

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	INSIDE=()
}

teardown() {
	local pid
	for pid in "${INSIDE[@]}"; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	# (the holders are no children of this shell: wait for their end)
	for pid in "${INSIDE[@]}"; do
		hold_ended "$pid" || true
	done
	run_teardowns
}

# Its processes killed, the cgroup removed (rmdir fails while one is
# still exiting: tried again for a second); test_helper's remove_cgroup
# moves them out instead.
kill_cgroup() {
	local pid i
	for ((i = 0; i < 20; i++)); do
		while read -r pid; do
			kill -9 "$pid" 2>/dev/null || true
		done <"$1/cgroup.procs"
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	rmdir "$1"
}

# A v1 memory cgroup of this test's own: CG its directory, CGNAME its
# name below the mount.  Removed in teardown.
make_cgroup() {
	require_root "only root makes a memory cgroup"
	[[ -e $MEMCG/memory.stat ]] || skip "no cgroup v1 memory controller is mounted at $MEMCG"
	CGNAME=pagestat-test-$$-${BATS_TEST_NUMBER}
	CG=$MEMCG/$CGNAME
	mkdir "$CG" || skip "cannot make a memory cgroup at $CG"
	on_teardown kill_cgroup "$CG"
}

# CMD ARG... run inside the cgroup (moved there before it executes).
run_inside() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@"
}

# CMD ARG... started inside the cgroup, in the background; killed in
# teardown.  $! is the process in the cgroup.
start_inside() {
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "$@" &
	INSIDE+=($!)
}

# The pages of each FIRST COUNT pair of FILE (all without a pair) read by
# a process inside cgroup DIR (CG by default), which keeps them locked
# (tests/pcarrange hold): they are charged to DIR, and the machine cannot
# page them out before the check (a page read again by a holder outside
# would be charged elsewhere).  The holder's pid is added to INSIDE.
# usage: [IN=DIR] hold_inside FILE [FIRST COUNT]...
hold_inside() {
	local pid me=$BASHPID
	pid=$(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "${IN:-$CG}" \
		"$PCARRANGE" hold "$me" "$@" 3>&-) || fail "cannot hold $1 inside ${IN:-$CG}"
	INSIDE+=("$pid")
}

# KEY of the cgroup's memory.stat.
memstat() {
	awk -v k="$1" '$1 == k { print $2 }' "$CG/memory.stat"
}

# What cachestat says FILE holds now: cached pages (pcarrange, the oracle).
cached_now() {
	local stat
	stat=$(pcarrange stat "$1")
	echo "${stat%% *}"
}

# Wait until process PID holds a descriptor or mapping of FILE.
wait_holds() {
	local i
	for ((i = 0; i < 200; i++)); do
		if ls -l "/proc/$1/fd" 2>/dev/null | grep -qF -- "$2" ||
			grep -qF -- "$2" "/proc/$1/maps" 2>/dev/null; then
			return 0
		fi
		sleep 0.025
	done
	fail "process $1 does not hold $2"
}

# $1 lies between $2 and $3, in either order: a figure pagestat read while
# the kernel's moved from $2 (read before) to $3 (read after).
assert_between() {
	local lo=$2 hi=$3
	((lo <= hi)) || { lo=$3 hi=$2; }
	((lo <= $1 && $1 <= hi)) || fail "$4: $1 is not between $lo and $hi (memory.stat before and after)"
}

# The cgroup's row of the JSON document in $output, KEY of it.
cgroup_field() {
	jq -r --arg p "$CG" ".rows[] | select(.path == \$p and .type == \"cgroup\") | $1" <<<"$output"
}

# Three processes of the issue: one reads BIG and holds it open, one maps
# MAPPED (5 of its 16 pages read inside the cgroup) and closes it, one
# reads GONE and exits.  BIG's and MAPPED's cached pages are then held by
# this test (hold_pages), outside the cgroup: the cached figures stay
# exact; a page paged out before the hold took it is read again, charged
# outside (the memory.stat checks allow for that).
arrange_three() {
	local big=$((64 << 20))
	pcarrange write big "$big"
	pcarrange drop big
	pcarrange write mapped $((16 * PAGE))
	pcarrange drop mapped
	pcarrange write gone $((8 * PAGE))
	pcarrange drop gone
	# shellcheck disable=SC2016 # expanded by the inner shell
	start_inside sh -c 'exec 3<"$1" && "$2" cache "$1" 0 "$3" && exec sleep 120' \
		sh "$PWD/big" "$PCARRANGE" $((big / PAGE))
	HOLDER=$!
	wait_holds "$HOLDER" "$PWD/big"
	run_inside "$PCARRANGE" cache mapped 0 5
	start_inside "$PCARRANGE" map "$PWD/mapped"
	MAPPER=$!
	wait_holds "$MAPPER" "$PWD/mapped"
	run_inside "$PCARRANGE" cache gone 0 8
	# the holder's read is done once its shell has become sleep
	local i
	for ((i = 0; i < 400; i++)); do
		[[ $(readlink "/proc/$HOLDER/exe") == */sleep ]] && break
		sleep 0.025
	done
	hold_pages big
	hold_pages mapped 0 5
}

@test "--cgroup: the kernel's file figure, the open and the mapped file with their exact cached pages, the coverage" {
	make_cgroup
	arrange_three
	local before after big_before mapped_before
	big_before=$(cached_now big) mapped_before=$(cached_now mapped)
	before=$(memstat total_cache)
	run -0 --separate-stderr pagestat --cgroup="$CGNAME" -J
	after=$(memstat total_cache)
	local big_now mapped_now
	big_now=$(cached_now big) mapped_now=$(cached_now mapped)
	# held (arrange_three): nothing went during the run
	assert_equal "big $big_before then $big_now, mapped $mapped_before then $mapped_now" \
		"big $(((64 << 20) / PAGE)) then $(((64 << 20) / PAGE)), mapped 5 then 5"

	assert_row "$PWD/big" type=file pages=$(((64 << 20) / PAGE)) cached="$big_now" files=1
	assert_row "$PWD/mapped" type=file pages=16 cached="$mapped_now" files=1
	assert_equal "$mapped_now" 5
	refute_row "$PWD/gone"
	# the cgroup's row: its two processes' files, summed
	assert_equal "$(cgroup_field .cgroup.name)" "/$CGNAME"
	assert_equal "$(cgroup_field .cgroup.version)" 1
	assert_equal "$(cgroup_field .cgroup.processes)" 2
	assert_equal "$(cgroup_field .cgroup.exited)" 0
	assert_equal "$(cgroup_field .cached)" "$(json_field '[.rows[] | select(.type == "file") | .cached] | add')"
	assert_equal "$(cgroup_field .files)" "$(json_field '[.rows[] | select(.type == "file")] | length')"
	assert_equal "$(json_field .total.cached)" "$(cgroup_field .cached)"
	# the kernel's figure is memory.stat's, read while it ran
	local file
	file=$(cgroup_field .cgroup.kernel.file_bytes)
	assert_between "$file" "$before" "$after" "file_bytes"
	# the pages read inside are charged to it, the exited reader's too
	((before >= (big_now + 5 + 8) * PAGE * 9 / 10)) ||
		fail "memory.stat's total_cache $before is far below the $((big_now + 13)) pages read inside"
	# coverage: the row's cached bytes against file_bytes, one decimal, truncated
	assert_equal "$(cgroup_field '.cgroup.coverage == ((.cached_bytes * 1000 / .cgroup.kernel.file_bytes | floor) / 10)')" true
	for key in dirty writeback shmem mapped_file active_file inactive_file workingset_refault_file; do
		local got
		case $key in
		mapped_file) got=$(cgroup_field .cgroup.kernel.mapped_bytes) ;;
		workingset_refault_file) got=$(cgroup_field .cgroup.kernel.workingset_refault_file) ;;
		*) got=$(cgroup_field ".cgroup.kernel.${key}_bytes") ;;
		esac
		[[ $got =~ ^[0-9]+$ ]] || fail "$key: $got"
	done
	# v1 has no activations of refaulted pages
	assert_equal "$(cgroup_field .cgroup.kernel.workingset_activate_file)" null
}

@test "--cgroup: the table's cgroup lines and the coverage line" {
	make_cgroup
	arrange_three
	run -0 --separate-stderr pagestat --cgroup="$CG"
	assert_line --regexp "^ *[0-9.]+[KMG]? +[0-9.]+[KMG]? .* $CG\$"
	assert_line --regexp "^cgroup /$CGNAME \(v1\): file [0-9.]+[BKMG], dirty [0-9.]+[BKMG], writeback [0-9.]+[BKMG], shmem [0-9.]+[BKMG], mapped [0-9.]+[BKMG], active file [0-9.]+[BKMG], inactive file [0-9.]+[BKMG]; refaults [0-9]+, activations -, reclaimed -\$"
	assert_line --regexp "^coverage: [0-9]+\.[0-9]% of cgroup /$CGNAME's file pages: [0-9.]+[BKMG] found in its processes' files of file [0-9.]+[BKMG] \(2 processes\)\$"
}

@test "--system: a row per memory cgroup holding file pages, the test's with memory.stat's figure" {
	make_cgroup
	arrange_three
	local before after
	before=$(memstat total_cache)
	run --separate-stderr pagestat --system -d 1 --top 10 -J -o path,type,cached,dirty
	after=$(memstat total_cache)
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	local cached file
	cached=$(cgroup_field .cached_bytes)
	file=$(cgroup_field .cgroup.kernel.file_bytes)
	[[ -n $file ]] || fail "no row for $CG among the cgroup rows: $(json_field '[.rows[] | select(.type == "cgroup") | .path]')"
	assert_between "$file" "$before" "$after" "file_bytes"
	assert_equal "$cached" $((file / PAGE * PAGE))
	assert_equal "$(cgroup_field .cgroup.coverage)" null
	# the cgroups' rows: most file pages first, none deeper than -d 1
	assert_equal "$(json_field '[.rows[] | select(.type == "cgroup") | .cached] | . == (sort | reverse)')" true
	assert_equal "$(json_field "[.rows[] | select(.type == \"cgroup\") | .path | ltrimstr(\"$MEMCG\") | select(test(\"^/[^/]+/\"))] | length")" 0
	# not in the total, which the files make
	assert_equal "$(json_field '[.rows[] | select(.type != "file" and .type != "cgroup") | .cached] | add')" "$(json_field .total.cached)"
}

@test "--cgroup -i: each sample's refault rate from memory.stat, the deltas of its files" {
	make_cgroup
	echo $((16 << 20)) >"$CG/memory.limit_in_bytes" || skip "cannot limit the cgroup's memory"
	pcarrange write big $((48 << 20))
	pcarrange drop big
	# a reader that cannot keep its file in 16M: its pages refault
	start_inside sh -c 'exec 3<"$1"; end=$(($(date +%s) + 60)); while [ "$(date +%s)" -lt "$end" ]; do cat "$1" >/dev/null; done' sh "$PWD/big"
	sleep 1
	local before after
	before=$(memstat total_workingset_refault_file)
	run -0 --separate-stderr pagestat --cgroup="$CG" -J -i 1 --count 2
	after=$(memstat total_workingset_refault_file)
	((after > before)) || skip "no refault in the cgroup while pagestat ran ($before, then $after)"
	local first second
	first=$(sed -n 1p <<<"$output") second=$(sed -n 2p <<<"$output")
	jq -e --arg p "$CG" '.rows[] | select(.path == $p) | .cgroup.rates.workingset_refault_file == null' <<<"$first"
	local rate r1 r2
	rate=$(jq -r --arg p "$CG" '.rows[] | select(.path == $p) | .cgroup.rates.workingset_refault_file' <<<"$second")
	r1=$(jq -r --arg p "$CG" '.rows[] | select(.path == $p) | .cgroup.kernel.workingset_refault_file' <<<"$first")
	r2=$(jq -r --arg p "$CG" '.rows[] | select(.path == $p) | .cgroup.kernel.workingset_refault_file' <<<"$second")
	# the rate is the change of the two samples' counters over about a second
	((r1 >= before && r2 <= after && r2 >= r1)) || fail "counters $before <= $r1 <= $r2 <= $after do not hold"
	python3 -c 'import sys; rate, d = float(sys.argv[1]), int(sys.argv[2]); sys.exit(not (d / 1.5 <= rate <= d / 0.9 or (d == 0 and rate == 0)))' "$rate" $((r2 - r1)) ||
		fail "rate $rate for a change of $((r2 - r1)) in about a second"
	# the files' deltas: the second sample's is its change since the first
	local c1 c2 d2
	c1=$(jq -r --arg p "$PWD/big" '.rows[] | select(.path == $p) | .cached' <<<"$first")
	c2=$(jq -r --arg p "$PWD/big" '.rows[] | select(.path == $p) | .cached' <<<"$second")
	d2=$(jq -r --arg p "$PWD/big" '.rows[] | select(.path == $p) | .delta' <<<"$second")
	assert_equal "$d2" $((c2 - c1))
}

@test "--cgroup --top: the files ranked, the cgroup's row after them" {
	make_cgroup
	arrange_three
	run -0 --separate-stderr pagestat --cgroup="$CG" --top 1 -J
	assert_equal "$(json_field '[.rows[].type] | join(" ")')" "file cgroup"
	assert_equal "$(json_field '.rows[0].path')" "$PWD/big"
}

@test "--cgroup: a dirty file written inside the cgroup: dirty agrees with memory.stat" {
	make_cgroup
	run_inside "$PCARRANGE" dirty d $((64 * PAGE))
	local before after
	before=$(memstat total_dirty)
	run -0 --separate-stderr pagestat --cgroup="$CG" -J
	after=$(memstat total_dirty)
	((before >= 64 * PAGE)) || skip "the dirty pages were written back before pagestat ran ($before bytes dirty)"
	assert_between "$(cgroup_field .cgroup.kernel.dirty_bytes)" "$before" "$after" "dirty_bytes"
	# no process left: no file, an empty row, and still the figures
	assert_equal "$(cgroup_field .cgroup.processes)" 0
	assert_equal "$(cgroup_field .files)" 0
}

@test "--cgroup: every format: CSV and ndjson rows, Prometheus's pagestat_cgroup_* families with a cgroup label" {
	make_cgroup
	arrange_three
	run -0 --separate-stderr pagestat --cgroup="$CG" --format=csv
	assert_line --regexp "^$CG,cgroup,"
	assert_line --regexp "^$PWD/big,file,"

	run -0 --separate-stderr pagestat --cgroup="$CG" --format=ndjson
	local line
	line=$(grep -F "\"path\":\"$CG\"" <<<"$output")
	assert_equal "$(jq -r '.type + " " + .cgroup.name' <<<"$line")" "cgroup /$CGNAME"

	local before after
	before=$(memstat total_cache)
	run -0 --separate-stderr pagestat --cgroup="$CG" --format=prometheus
	after=$(memstat total_cache)
	local file found cached
	file=$(awk -v s="pagestat_cgroup_file_bytes{cgroup=\"/$CGNAME\"}" '$1 == s { print $2 }' <<<"$output")
	assert_between "$file" "$before" "$after" "pagestat_cgroup_file_bytes"
	found=$(awk -v s="pagestat_cgroup_found_bytes{cgroup=\"/$CGNAME\"}" '$1 == s { print $2 }' <<<"$output")
	cached=$(awk -v s="pagestat_cached_bytes{path=\"$CG\",type=\"cgroup\"}" '$1 == s { print $2 }' <<<"$output")
	assert_equal "$found" "$cached"
	for family in dirty writeback shmem mapped active_file inactive_file; do
		assert_line --regexp "^pagestat_cgroup_${family}_bytes\{cgroup=\"/$CGNAME\"\} [0-9]+\$"
	done
	assert_line --regexp "^pagestat_cgroup_workingset_refault_file_total\{cgroup=\"/$CGNAME\"\} [0-9]+\$"
	assert_line "# TYPE pagestat_cgroup_workingset_refault_file_total counter"
	refute_line --partial pagestat_cgroup_workingset_activate_file
}

@test "--cgroup=self: this process's memory cgroup" {
	[[ -e $MEMCG/memory.stat ]] || skip "no cgroup v1 memory controller is mounted at $MEMCG"
	local mine
	mine=$(awk -F: '$2 ~ /(^|,)memory(,|$)/ { print $3 }' /proc/self/cgroup)
	[[ -n $mine ]] || skip "this process is in no v1 memory cgroup"
	# the other processes of this cgroup may hold files pagestat cannot
	# open (a memfd only mapped: exit 1); the cgroup is what is looked at
	run --separate-stderr "$PAGESTAT" --cgroup=self -J -o path,type,cached
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_equal "$(json_field '.rows[] | select(.type == "cgroup") | .cgroup.name')" "$mine"
	assert_equal "$(json_field '.rows[] | select(.type == "cgroup") | .path')" "$MEMCG${mine%/}"
}

@test "--cgroup repeated: one row per cgroup, each with its own files and figures" {
	make_cgroup
	local first=$CG
	pcarrange write one $((4 * PAGE))
	pcarrange cache one 0 4
	hold_pages one
	hold_open one
	INSIDE+=("$HOLDER")
	echo "$HOLDER" >"$first/cgroup.procs"
	CGNAME=pagestat-test-$$-${BATS_TEST_NUMBER}-b CG=$MEMCG/pagestat-test-$$-${BATS_TEST_NUMBER}-b
	mkdir "$CG"
	on_teardown kill_cgroup "$CG"
	run -0 --separate-stderr pagestat --cgroup="$first" --cgroup="$CG" -J
	assert_equal "$(json_field '[.rows[] | select(.type == "cgroup") | .path] | join(" ")')" "$first $CG"
	assert_equal "$(jq --arg p "$first" '.rows[] | select(.path == $p) | .cgroup.processes' <<<"$output")" 1
	assert_equal "$(cgroup_field .cgroup.processes)" 0
	assert_row "$PWD/one" cached=4
}

@test "--cgroup: cgroup v2's key table against a live v2 memory cgroup, where one is mounted" {
	local v2
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[[ -n $v2 ]] || skip "no cgroup v2 file system is mounted"
	[[ -e $v2/memory.stat ]] || grep -qw memory "$v2/cgroup.controllers" ||
		skip "cgroup v2 is mounted at $v2 without the memory controller (this machine's is v1; tests/unit_memstat.c reads the v2 table against tests/fixtures/cgroup2-memory.stat)"
	local dir=$v2
	[[ -e $dir/memory.stat ]] || skip "the v2 root at $v2 has no memory.stat"
	local before after
	before=$(awk '$1 == "file" { print $2 }' "$dir/memory.stat")
	run -0 --separate-stderr "$PAGESTAT" --cgroup="$dir" -J -o path,type,cached
	after=$(awk '$1 == "file" { print $2 }' "$dir/memory.stat")
	assert_equal "$(json_field '.rows[] | select(.type == "cgroup") | .cgroup.version')" 2
	assert_between "$(json_field '.rows[] | select(.type == "cgroup") | .cgroup.kernel.file_bytes')" \
		"$before" "$after" "v2 file"
}

@test "--cgroup: bash completes cgroup paths below the memory controller's mount, and self" {
	make_cgroup
	mkdir "$CG/inner"
	on_teardown rmdir "$CG/inner"
	local comp=${PAGESTAT_BUILDDIR:-${PAGESTAT%/src/pagestat}}/completions/pagestat
	complete_words() {
		bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
			COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; _pagestat
			printf "%s\n" "${COMPREPLY[@]}"' bash "$comp" "$@"
	}
	run -0 complete_words pagestat --cgroup "${CGNAME%-*}"
	assert_line "$CGNAME/"
	run -0 complete_words pagestat --cgroup "$CGNAME/"
	assert_line "$CGNAME/inner/"
	run -0 complete_words pagestat --cgroup se
	assert_line self
}

@test "--cgroup bad input: exit 2, the cgroup named, why, nothing inspected" {
	: >plain
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # each line is a command line
		run -2 --separate-stderr "$PAGESTAT" $args
		assert_output ""
		assert_stderr_has "$want"
	done <<EOF
--cgroup=pagestat-no-such-cgroup|pagestat: --cgroup 'pagestat-no-such-cgroup': does not exist
--cgroup=/pagestat-no-such-cgroup|pagestat: --cgroup '/pagestat-no-such-cgroup': does not exist
--cgroup=$PWD|pagestat: --cgroup '$PWD': not under a cgroup mount
--cgroup=$PWD/plain|pagestat: --cgroup '$PWD/plain': not a directory
--cgroup=|pagestat: invalid value for --cgroup: ''
--cgroup=self .|--cgroup inspects its cgroups' processes' files: no FILE operands
--cgroup=self --pid=1|--cgroup inspects its cgroups' processes' files: no FILE operands, --files0-from, --pid or --system
--cgroup=self --system|--cgroup inspects its cgroups' processes' files: no FILE operands, --files0-from, --pid or --system
--cgroup=self --files0-from=plain|--cgroup inspects its cgroups' processes' files
--cgroup=self --evict|--cgroup cannot be combined with --evict, --warm, --warm-from or --lock
--cgroup=self --lock|--cgroup cannot be combined with --evict, --warm, --warm-from or --lock
--cgroup=self -d 1|--cgroup has a row per file and per cgroup: no -d/--max-depth
--cgroup=self --browse --charged|--browse cannot be combined with --charged
EOF
	# a hierarchy of another controller
	local other
	other=$(awk '$3 == "cgroup" && $4 !~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/self/mounts)
	if [[ -n $other ]]; then
		run -2 --separate-stderr "$PAGESTAT" --cgroup="$other"
		assert_stderr_has "pagestat: --cgroup '$other': no memory controller"
	fi
	# a v2 cgroup without the memory controller
	local v2
	v2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	if [[ -n $v2 && ! -e $v2/memory.stat ]]; then
		run -2 --separate-stderr "$PAGESTAT" --cgroup="$v2"
		assert_stderr_has "pagestat: --cgroup '$v2': no memory controller"
	fi
}

@test "--cgroup: a process that exits while its files are read is not a failure" {
	make_cgroup
	# short-lived processes, started and ended without pause (for a minute
	# at most: teardown ends it sooner)
	start_inside sh -c 'end=$(($(date +%s) + 60)); while [ "$(date +%s)" -lt "$end" ]; do /bin/true; done'
	local run_number
	for run_number in 1 2 3 4 5; do
		run --separate-stderr "$PAGESTAT" --cgroup="$CG" -J -o path,type,cached
		assert_equal "run $run_number: exit $status" "run $run_number: exit 0"
		assert_equal "$(json_field .errors)" 0
		# said as exited, never as a failure
		[[ -z $stderr || $stderr =~ ^"pagestat: --cgroup '/$CGNAME': "[0-9]+" process"(es)?" exited before "(its|their)" files were read"$ ]] ||
			fail "run $run_number: $stderr"
	done
}

# ---- --charged: the pages charged to the cgroup, /proc/kpagecgroup ------

# --charged needs root, /proc/kpagecgroup and frame numbers in
# /proc/self/pagemap: else the test says which is missing.
require_charged() {
	make_cgroup
	[[ -e /proc/kpagecgroup ]] || skip "/proc/kpagecgroup is missing (a kernel without CONFIG_MEMCG or CONFIG_PROC_PAGE_MONITOR)"
	: >empty
	run -0 --separate-stderr "$PAGESTAT" --cgroup="$CG" --charged -J empty
}

# BYTES of DIR/NAME, written and dropped: no page cached, none charged.
fresh_file() {
	pcarrange write "$1" "$2"
	pcarrange drop "$1"
}

# The file's cached pages, FILE's charged ones, as pagestat gave them.
row_field() {
	jq -r --arg p "$1" ".rows[] | select(.path == \$p) | .$2" <<<"$output"
}

# The run of pagestat in $output saw FILE with WANT cached pages, as
# cachestat says now (the pages are held: nothing may have gone).
assert_undisturbed() {
	local now
	now=$(cached_now "$1")
	assert_equal "$1: pagestat saw $(row_field "$1" cached), cachestat $now" \
		"$1: pagestat saw $2, cachestat $2"
}

@test "--cgroup --charged -a DIR: a file read inside the cgroup is charged to it, page for page; one read outside is not" {
	require_charged
	local pages=$(((16 << 20) / PAGE))
	mkdir dir
	fresh_file dir/inside $((16 << 20))
	fresh_file dir/outside $((16 << 20))
	# read by a process in the cgroup, which holds them (-a DIR looks at
	# the trees given, not at the cgroup's processes)
	run_inside "$PCARRANGE" cache dir/inside 0 "$pages"
	hold_inside dir/inside
	# read by this test's process, in its own memory cgroup, and held
	pcarrange cache dir/outside 0 "$pages"
	hold_pages dir/outside
	local charged_before
	charged_before=$(memstat total_cache)
	((charged_before >= pages * PAGE)) || fail "memory.stat's total_cache $charged_before is below the $pages pages read inside"

	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -a -J dir
	assert_undisturbed dir/inside "$pages"
	assert_undisturbed dir/outside "$pages"
	assert_row dir/inside cached="$pages" charged="$pages" charged_bytes=$((pages * PAGE))
	assert_row dir/outside cached="$pages" charged=0 charged_bytes=0
	assert_row dir charged="$pages" files=2
	assert_equal "$(json_field .total.charged)" "$pages"
	# no cgroup row: the trees given are inspected, not its processes' files
	assert_equal "$(json_field '[.rows[] | select(.type == "cgroup")] | length')" 0

	# the same pages are charged to the memory controller's root (it and every cgroup below)
	run -0 --separate-stderr pagestat --cgroup="$MEMCG" --charged -a -J dir
	assert_undisturbed dir/inside "$pages"
	assert_undisturbed dir/outside "$pages"
	assert_row dir/inside charged="$pages"
	assert_row dir/outside charged="$pages"
}

@test "--cgroup --charged: a cgroup below X is X's; a sibling's pages are not" {
	require_charged
	mkdir "$CG/inner" "$CG/sibling"
	on_teardown remove_cgroup "$CG/inner"
	on_teardown remove_cgroup "$CG/sibling"
	mkdir dir
	fresh_file dir/deep $((8 * PAGE))
	fresh_file dir/side $((8 * PAGE))
	IN=$CG/inner hold_inside dir/deep 0 8
	IN=$CG/sibling hold_inside dir/side 0 5
	run -0 --separate-stderr pagestat --cgroup="$CG/inner" --charged -a -J dir
	assert_undisturbed dir/deep 8
	assert_row dir/deep charged=8
	assert_row dir/side charged=0
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -a -J dir
	assert_row dir/deep charged=8
	assert_row dir/side charged=5
}

@test "--cgroup --charged without FILE operands: its processes' files, each with its charged pages" {
	require_charged
	fresh_file held $((32 * PAGE))
	# read 10 pages outside (held there), then 20 more inside by the
	# cgroup's process, which maps and holds them
	pcarrange cache held 0 10
	hold_pages held 0 10
	hold_inside held 10 20
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -J
	assert_undisturbed "$PWD/held" 30
	assert_row "$PWD/held" cached=30 charged=20
	assert_equal "$(json_field '.rows[] | select(.type == "cgroup") | .charged')" 20
}

@test "--charged: every format carries the charged column" {
	require_charged
	fresh_file f $((4 * PAGE))
	hold_inside f 0 3
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged f
	assert_line --index 0 --regexp '^ *SIZE +CACHED +PERCENT +CHARGED '
	assert_line --regexp "^ *16K +12K +75\.0% +12K .* f\$"
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged --format=csv f
	assert_line --index 0 --regexp '^path,type,size,pages,cached,cached_bytes,percent,charged,charged_bytes,'
	assert_line --regexp '^f,file,16384,4,3,12288,75\.0,3,12288,'
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged --format=ndjson f
	assert_equal "$(head -1 <<<"$output" | jq -c '[.charged, .charged_bytes]')" "[3,$((3 * PAGE))]"
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged --format=prometheus f
	assert_line "pagestat_charged_bytes{path=\"f\",type=\"file\"} $((3 * PAGE))"
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -o path,charged -J f
	assert_equal "$(jq -c '.rows[0]' <<<"$output")" "{\"path\":\"f\",\"charged\":3,\"charged_bytes\":$((3 * PAGE))}"
}

@test "--charged bad input: exit 2, why, nothing inspected" {
	: >plain
	local args want
	while IFS='|' read -r args want; do
		# shellcheck disable=SC2086 # each line is a command line
		run -2 --separate-stderr "$PAGESTAT" $args
		assert_output ""
		assert_stderr_has "$want"
	done <<EOF
--charged plain|--charged needs --cgroup
-o charged plain|column 'charged' in --output needs --charged
--cgroup=self --charged --evict plain|--cgroup cannot be combined with --evict, --warm, --warm-from or --lock
--cgroup=self --charged --warm plain|--cgroup cannot be combined with --evict, --warm, --warm-from or --lock
--cgroup=self --charged --pid=1|--cgroup inspects its cgroups' processes' files: no FILE operands, --files0-from, --pid or --system
--cgroup=self --charged --system plain|--system inspects the whole machine: no FILE operands
EOF
	# the cgroup is looked for after the capability: a user is told that
	run -2 --separate-stderr "$PAGESTAT" --cgroup=pagestat-no-such-cgroup --charged plain
	assert_output ""
	if [[ $(id -u) -eq 0 ]]; then
		assert_stderr_has "pagestat: --cgroup 'pagestat-no-such-cgroup': does not exist"
	else
		assert_stderr_has "pagestat: --charged: needs CAP_SYS_ADMIN (root)"
	fi
}

@test "--cgroup --charged -j 2: the workers (descriptor tables of their own) count what -j 1 does" {
	require_charged
	mkdir dir
	local i
	for ((i = 0; i < 40; i++)); do
		fresh_file "dir/f$i" $((4 * PAGE))
	done
	for ((i = 0; i < 40; i += 2)); do
		hold_inside "dir/f$i" 0 3
	done
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -a -J -j 1 -o path,cached,charged dir
	local one=$output
	assert_equal "$(json_field .total.charged)" 60
	run -0 --separate-stderr pagestat --cgroup="$CG" --charged -a -J -j 2 -o path,cached,charged dir
	assert_equal "$stderr" ""
	assert_equal "$(jq -c '[.rows[]] | sort_by(.path)' <<<"$output")" "$(jq -c '[.rows[]] | sort_by(.path)' <<<"$one")"
}
