#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The actions on the running kernel: --evict, --warm, --rate and
# --warm-from.  What pagestat says it did (the rows, dropped and read) is
# compared with what cachestat says afterwards (pcarrange), or with a
# run of pagestat without an action.  Every bad input is refused before
# anything is done.
#
# An action changes the cache state of the files it is given: these
# tests arrange their files with pcarrange (fresh, below), not with
# make_*, whose states every run of the pagestat wrapper would restore.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	HOLDER=
}

teardown() {
	if [[ -n ${HOLDER-} ]]; then
		kill "$HOLDER" 2>/dev/null || true
		wait "$HOLDER" 2>/dev/null || true
	fi
}

MIB=1048576

# ---- helpers -------------------------------------------------------------

# FILE of PAGES pages, written, then exactly the pages of each FIRST COUNT
# pair cached ("all": every page; nothing: none).  Not recorded as an
# arrangement: an action may change it.
# usage: fresh FILE PAGES [all | FIRST COUNT...]
fresh() {
	local path=$1 pages=$2
	shift 2
	pcarrange write "$path" $((pages * PAGE))
	pcarrange drop "$path"
	if [[ ${1-} == all ]]; then
		pcarrange cache "$path" 0 "$pages"
	else
		cache_pages "$path" "$@"
	fi
}

# The cached pages of FILE as FIRST+COUNT words, from pagestat -e (for
# the message of a failure).
cached_map() {
	"$PAGESTAT" -J -e -- "$1" 2>/dev/null |
		jq -r --argjson p "$PAGE" '.rows[0].extents // [] |
			map((.offset / $p | floor) as $f | ((.offset + .length) / $p | ceil) as $e
				| "\($f)+\($e - $f)")
			| join(" ") | if . == "" then "none" else . end'
}

# Exactly these pages of FILE are cached now, as cachestat says.  Fewer
# cached than wanted may be the machine's doing (the kernel pages out idle
# memory by itself, within seconds: TESTING.md), and the test is then
# marked to be tried again (bats_should_retry_test), at most twice: a fault
# of pagestat fails every time.  More cached than wanted is final.
# usage: assert_cache FILE dropped | PAGES | FIRST COUNT [FIRST COUNT]...
assert_cache() {
	local path=$1
	shift
	pcarrange holds "$path" "$@" && return 0
	local want=0 now
	case $# in
	1) [[ $1 == dropped ]] || want=$1 ;;
	*) local i
		for ((i = 2; i <= $#; i += 2)); do
			want=$((want + ${!i}))
		done ;;
	esac
	now=$(pcarrange stat "$path")
	now=${now%% *}
	((now >= want)) || mark_disturbed "$path: $now pages cached where $want were (the machine paged some out)"
	fail "$path: wanted cached: $* ($want pages); cached now: $now pages (FIRST+COUNT): $(cached_map "$path")"
}

# The row of FILE in $output read PAGES pages, and they are cached, as the
# row says and as cachestat says after.  A row that read them all but
# holds fewer (pages of a slow --rate warm, idle for seconds, that the
# kernel paged out before pagestat measured) marks the test to be tried
# again, as assert_cache does.
# usage: assert_warmed FILE PAGES
assert_warmed() {
	local read_cached
	read_cached=$(jq -r --arg p "$1" '.rows[] | select(.path == $p) | "\(.read) \(.cached)"' \
		<<<"$output")
	if [[ $read_cached == "$2 "* ]] && ((${read_cached#* } < $2)); then
		mark_disturbed "$1: read $2, ${read_cached#* } of them cached after (the machine paged some out)"
	fi
	assert_row "$1" read="$2" cached="$2"
	assert_cache "$1" "$2"
}

# Each file row of the JSON document in $output as "PATH:EXTENTS" (the
# extents as OFFSET+LENGTH), sorted by path: what a snapshot holds.
file_extents() {
	jq -r '.rows[] | select(.type == "file")
		| "\(.path):\(.extents | map("\(.offset)+\(.length)") | join(","))"' <<<"$output" |
		LC_ALL=C sort
}

# ---- --evict -------------------------------------------------------------

@test "--evict of whole files: every page dropped, dropped = the pages cached before, the row the state after" {
	fresh full 16 all
	fresh part 8 2 3
	fresh cold 4
	run -0 --separate-stderr "$PAGESTAT" -J --evict full part cold
	assert_row full cached=0 cached_bytes=0 pages=16 dropped=16 dropped_bytes=$((16 * PAGE))
	assert_row part cached=0 pages=8 dropped=3 dropped_bytes=$((3 * PAGE))
	assert_row cold cached=0 pages=4 dropped=0 dropped_bytes=0
	assert_total cached=0 dropped=19 dropped_bytes=$((19 * PAGE)) files=3
	assert_equal "$(json_field .errors)" 0
	# cachestat agrees, and so does pagestat without an action
	assert_cache full dropped
	assert_cache part dropped
	assert_cache cold dropped
	run -0 --separate-stderr "$PAGESTAT" -J full part cold
	assert_total cached=0 pages=28
	# a second --evict finds nothing to drop
	run -0 --separate-stderr "$PAGESTAT" -J --evict full
	assert_row full cached=0 dropped=0
}

@test "--evict of a range: the pages outside it stay cached" {
	fresh f 32 all
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=$((8 * PAGE)) --length=$((8 * PAGE)) f
	assert_row f size=$((8 * PAGE)) pages=8 cached=0 dropped=8
	assert_cache f 0 8 16 16
	# the range alone, measured afterwards: the pages outside still cached
	run -0 --separate-stderr "$PAGESTAT" -J f
	assert_row f cached=24
	# --offset alone: to the end of the file
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=$((24 * PAGE)) f
	assert_row f pages=8 cached=0 dropped=8
	assert_cache f 0 8 16 8
	# --length alone: from the start
	run -0 --separate-stderr "$PAGESTAT" -J --evict --length=$((4 * PAGE)) f
	assert_row f pages=4 cached=0 dropped=4
	assert_cache f 4 4 16 8
}

@test "--evict of an unaligned --offset and --length: every page the range touches is dropped, no other" {
	fresh f 32 all
	# bytes from one past the start of page 8 for two pages: pages 8, 9, 10
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=$((8 * PAGE + 1)) --length=$((2 * PAGE)) f
	assert_row f pages=3 cached=0 dropped=3
	assert_cache f 0 8 11 21
	# one byte inside page 20: that page
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=$((20 * PAGE + PAGE / 2)) --length=1 f
	assert_row f size=1 pages=1 cached=0 dropped=1
	assert_cache f 0 8 11 9 21 11
	# a range past the end of the file: nothing
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=$((40 * PAGE)) f
	assert_row f pages=0 dropped=0
	assert_cache f 0 8 11 9 21 11
}

@test "--evict keeps dirty pages: only the clean ones are dropped and counted" {
	fresh m 32 all
	# pages 16..31 written again, not synced: cached and dirty
	dd if=/dev/zero of=m bs="$PAGE" seek=16 count=16 conv=notrunc status=none
	local cached dirty rest
	read -r cached dirty rest < <(pcarrange stat m)
	[[ $cached == 32 && $dirty == 16 ]] || skip "could not arrange 16 dirty pages of 32: cachestat says $cached cached, $dirty dirty"
	run -0 --separate-stderr "$PAGESTAT" -J --evict m
	# all 32 dropped: the dirty pages were written back between the check
	# above and the run (a sync elsewhere on the machine: an overlay's
	# unmount syncs its upper file system), as no evict drops a dirty page
	if [[ $(jq -r '.rows[0].dropped' <<<"$output") == 32 ]]; then
		mark_disturbed "m: the 16 dirty pages were written back before the run"
		fail "the 16 dirty pages were clean by the time pagestat ran: all 32 dropped"
	fi
	# the kernel starts writing the dirty pages back (POSIX_FADV_DONTNEED
	# does), and drops none that are dirty or under writeback
	assert_row m pages=32 cached=16 dropped=16 dropped_bytes=$((16 * PAGE))
	local row_dirty row_writeback
	row_dirty=$(jq -r '.rows[0].dirty' <<<"$output")
	row_writeback=$(jq -r '.rows[0].writeback' <<<"$output")
	((16 >= row_dirty + row_writeback)) || fail "dirty $row_dirty + writeback $row_writeback > cached 16"
	# the clean half is gone, the dirty half stays
	assert_cache m 16 16
}

@test "--evict of a tree: a row per file with -a, the directory's dropped their sum; --files0-from" {
	mkdir -p d/sub
	fresh d/a 8 all
	fresh d/sub/b 4 1 2
	fresh d/sub/c 6
	run -0 --separate-stderr "$PAGESTAT" -J -a --evict d
	assert_row d/a type=file cached=0 dropped=8
	assert_row d/sub/b type=file cached=0 dropped=2
	assert_row d/sub/c type=file cached=0 dropped=0
	assert_row d type=directory files=3 pages=18 cached=0 dropped=10 dropped_bytes=$((10 * PAGE))
	assert_total dropped=10 files=3
	assert_cache d/a dropped
	assert_cache d/sub/b dropped
	assert_cache d/sub/c dropped
	# the names of --files0-from, each its own row
	fresh d/a 8 all
	fresh d/sub/b 4 1 2
	printf 'd/a\0d/sub/b\0' >names
	run -0 --separate-stderr "$PAGESTAT" -J --evict --files0-from=names
	assert_row d/a cached=0 dropped=8
	assert_row d/sub/b cached=0 dropped=2
	assert_cache d/a dropped
	assert_cache d/sub/b dropped
}

# ---- --warm --------------------------------------------------------------

@test "--warm of a cold file: read = its pages, every page cached after" {
	fresh cold 16
	run -0 --separate-stderr "$PAGESTAT" -J --warm cold
	assert_row cold pages=16 cached=16 read=16 read_bytes=$((16 * PAGE))
	assert_total read=16 read_bytes=$((16 * PAGE))
	assert_cache cold 16
	run -0 --separate-stderr "$PAGESTAT" -J cold
	assert_row cold cached=16
	# a last page half full is read as a page
	pcarrange write half $((4 * PAGE - PAGE / 2))
	pcarrange drop half
	run -0 --separate-stderr "$PAGESTAT" -J --warm half
	assert_row half size=$((4 * PAGE - PAGE / 2)) pages=4 cached=4 read=4
	assert_cache half 4
}

@test "--warm of a range: only the pages of the range are read, nothing outside" {
	fresh f 32
	run -0 --separate-stderr "$PAGESTAT" -J --warm --offset=$((8 * PAGE)) --length=$((8 * PAGE)) f
	assert_row f pages=8 cached=8 read=8
	assert_cache f 8 8
	# unaligned: the pages the range touches, 20, 21 and 22
	run -0 --separate-stderr "$PAGESTAT" -J --warm --offset=$((20 * PAGE + 1)) --length=$((2 * PAGE)) f
	assert_row f pages=3 cached=3 read=3
	assert_cache f 8 8 20 3
	# no readahead past the end of a range at the start of a cold file
	fresh g 256
	run -0 --separate-stderr "$PAGESTAT" -J --warm --length="$PAGE" g
	assert_row g pages=1 cached=1 read=1
	assert_cache g 0 1
}

@test "--warm of a half-cached file reads the missing half only" {
	fresh f 32 0 4 8 4 16 4 24 4
	run -0 --separate-stderr "$PAGESTAT" -J --warm f
	assert_row f pages=32 cached=32 read=16 read_bytes=$((16 * PAGE))
	assert_cache f 32
	# within a range: the missing pages of the range only
	fresh g 32 0 4 8 4 16 4 24 4
	run -0 --separate-stderr "$PAGESTAT" -J --warm --offset=$((2 * PAGE)) --length=$((8 * PAGE)) g
	assert_row g pages=8 cached=8 read=4
	assert_cache g 0 12 16 4 24 4
}

@test "--warm of a fully cached file reads nothing" {
	fresh f 16 all
	run -0 --separate-stderr "$PAGESTAT" -J --warm f
	assert_row f pages=16 cached=16 read=0 read_bytes=0
	assert_total read=0
	assert_cache f 16
}

@test "--warm of a tree: -a rows, the directory's read their sum" {
	mkdir -p d/sub
	fresh d/a 8
	fresh d/sub/b 4 1 2
	fresh d/sub/c 6 all
	run -0 --separate-stderr "$PAGESTAT" -J -a --warm d
	assert_row d/a cached=8 read=8
	assert_row d/sub/b cached=4 read=2
	assert_row d/sub/c cached=6 read=0
	assert_row d type=directory files=3 pages=18 cached=18 read=10 read_bytes=$((10 * PAGE))
	assert_total read=10
	assert_cache d/a 8
	assert_cache d/sub/b 4
	assert_cache d/sub/c 6
}

@test "--warm --pid: the files the process holds, read" {
	fresh held 8
	hold_open held
	run -0 --separate-stderr "$PAGESTAT" -J --warm --pid "$HOLDER"
	run -0 jq -r --arg p "$PWD/held" '.rows[] | select(.path == $p) | "\(.cached) \(.read)"' <<<"$output"
	assert_output "8 8"
	assert_cache held 8
}

@test "--warm of more than MemAvailable: a message, exit 3, nothing read" {
	# a sparse file of 1 TiB: its holes would be read into the cache
	truncate -s 1T sparse || skip "no sparse file of 1 TiB here"
	local kib
	kib=$(awk '$1 == "MemAvailable:" { print $2 }' /proc/meminfo)
	((kib < 1073741824)) || skip "more than 1 TiB of memory available"
	run -3 --separate-stderr "$PAGESTAT" -J --warm sparse
	refute_output
	assert_stderr_has "pagestat: --warm: 1.0T to read, more than the" "MemAvailable" "nothing read"
	assert_cache sparse dropped
	# a snapshot that lists the whole of it: the same
	"$PAGESTAT" -a -e --format=ndjson sparse |
		jq -c 'if .type == "file" then .extents = [{offset: 0, length: .file_size}] else . end' >snap.ndjson
	run -3 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	refute_output
	assert_stderr_has "pagestat: --warm-from: 1.0T to read, more than the" "MemAvailable" "nothing read"
	assert_cache sparse dropped
	# a part of it, with --length, is read
	run -0 --separate-stderr "$PAGESTAT" -J --warm --length=$((4 * PAGE)) sparse
	assert_row sparse read=4
	assert_cache sparse 0 4
}

@test "--method=mincore: --evict and --warm act and count the same; dirty unknown (null)" {
	fresh f 16 2 6
	run -0 --separate-stderr "$PAGESTAT" -J --method=mincore --evict f
	assert_row f cached=0 dropped=6 dirty=null
	assert_cache f dropped
	run -0 --separate-stderr "$PAGESTAT" -J --method=mincore --warm --offset=$((4 * PAGE)) f
	assert_row f pages=12 cached=12 read=12 dirty=null
	assert_cache f 4 12
}

# ---- --rate --------------------------------------------------------------

# Seconds since the epoch, with nanoseconds.
now() { date +%s.%N; }
# A - B > C, in floating point.
elapsed_over() { awk -v a="$1" -v b="$2" -v c="$3" 'BEGIN { exit !(a - b > c) }'; }

@test "--rate: 4 MiB at --rate=2M takes over 1.2 s (and well under 20 s), all of it read" {
	pcarrange write big $((4 * MIB))
	pcarrange drop big
	local start end
	start=$(now)
	run -0 --separate-stderr "$PAGESTAT" -J --warm --rate=2M big
	end=$(now)
	# right after the run: its first pages have been idle for 2 s already
	assert_warmed big $((4 * MIB / PAGE))
	elapsed_over "$end" "$start" 1.2 || fail "4 MiB at 2 MiB/s took $(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }') s"
	elapsed_over "$end" "$start" 20 && fail "4 MiB at 2 MiB/s took over 20 s"
	# SIZE/s, and the rate is for all threads together: two files of 2 MiB
	# with -j 2
	pcarrange write one $((2 * MIB))
	pcarrange write two $((2 * MIB))
	pcarrange drop one
	pcarrange drop two
	start=$(now)
	run -0 --separate-stderr "$PAGESTAT" -J -j 2 --warm --rate=2M/s one two
	end=$(now)
	assert_total read=$((4 * MIB / PAGE))
	elapsed_over "$end" "$start" 1.2 || fail "2 x 2 MiB at 2 MiB/s with -j 2 took $(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }') s"
	elapsed_over "$end" "$start" 20 && fail "2 x 2 MiB at 2 MiB/s with -j 2 took over 20 s"
	# and --warm-from
	# cached afresh and held while the snapshot is taken: its pages have
	# been idle for seconds, which is when this machine pages them out
	# (TESTING.md)
	pcarrange cache big 0 $((4 * MIB / PAGE))
	hold_pages big
	run -0 --separate-stderr "$PAGESTAT" -a -e --format=ndjson big
	echo "$output" >snap.ndjson
	assert_equal "$(jq -r 'select(.path == "big") | .cached' snap.ndjson)" $((4 * MIB / PAGE))
	# the warm reads unlocked pages (a page paged out after it, before the
	# check, marks the test for another try: assert_warmed)
	release_holds "--warm-from reads unlocked pages"
	pcarrange drop big
	start=$(now)
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson --rate=2M
	end=$(now)
	assert_warmed big $((4 * MIB / PAGE))
	elapsed_over "$end" "$start" 1.2 || fail "--warm-from of 4 MiB at 2 MiB/s took $(awk -v a="$end" -v b="$start" 'BEGIN { print a - b }') s"
	if elapsed_over "$end" "$start" 20; then
		fail "--warm-from of 4 MiB at 2 MiB/s took over 20 s"
	fi
}

# ---- --warm-from ---------------------------------------------------------

# d/ with files in several states, the snapshot's own:
#   d/a      16 pages, 2..5 and 10..13 cached
#   d/sub/b   8 pages, all cached
#   d/sub/c   6 pages, none
#   d/e       3 pages, the last one
make_snapshot_tree() {
	mkdir -p d/sub
	fresh d/a 16 2 4 10 4
	fresh d/sub/b 8 all
	fresh d/sub/c 6
	fresh d/e 3 2 1
}

assert_snapshot_tree() {
	assert_cache d/a 2 4 10 4
	assert_cache d/sub/b 8
	assert_cache d/sub/c dropped
	assert_cache d/e 2 1
}

# The snapshot in FORMAT (ndjson or json) of d into snap.FORMAT; $BEFORE:
# its extents, as pagestat -a -e -J shows them.
# The arranged pages are held while the snapshot is taken (it only
# inspects), and let go for the eviction.
take_snapshot() {
	local format=$1
	hold_pages d/a 2 4 10 4
	hold_pages d/sub/b
	hold_pages d/e 2 1
	run -0 --separate-stderr "$PAGESTAT" -a -e -J d
	BEFORE=$(file_extents)
	# the arrangement still whole after that run (assert_cache marks a
	# loss to the machine for another try: where it could not be held)
	assert_snapshot_tree
	if [[ $format == json ]]; then
		"$PAGESTAT" -a -e -J d >snap.json
	else
		"$PAGESTAT" -a -e --format=ndjson d >snap.ndjson
	fi
	release_holds "--evict and --warm-from act on unlocked pages"
	run -0 --separate-stderr "$PAGESTAT" -a --evict d
	assert_cache d/a dropped
	assert_cache d/sub/b dropped
	assert_cache d/e dropped
}

# After a --warm-from of the snapshot (JSON in $output): the rows say
# what was read, and the extents are those of the snapshot.
assert_warmed_back() {
	assert_row d/a read=8 cached=8
	assert_row d/sub/b read=8 cached=8
	assert_row d/sub/c read=0 cached=0
	assert_row d/e read=1 cached=1
	assert_total read=17 files=4
	assert_snapshot_tree
	run -0 --separate-stderr "$PAGESTAT" -a -e -J d
	# pages gone since: assert_cache tells the machine's doing (CI saw two
	# of d/a's eight paged out within milliseconds)
	[[ $(file_extents) == "$BEFORE" ]] || assert_snapshot_tree
	assert_equal "$(file_extents)" "$BEFORE"
}

@test "--warm-from an ndjson snapshot after --evict: the same extents cached again" {
	make_snapshot_tree
	take_snapshot ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_warmed_back
	# the same again: nothing to read
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_total read=0 files=4
}

@test "--warm-from a JSON document snapshot after --evict: the same extents cached again" {
	make_snapshot_tree
	take_snapshot json
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.json
	assert_warmed_back
}

@test "--warm-from=- reads the snapshot from standard input: a file, a pipe; ndjson and a document" {
	make_snapshot_tree
	take_snapshot ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=- <snap.ndjson
	assert_warmed_back
	run -0 --separate-stderr "$PAGESTAT" -a --evict d
	run -0 --separate-stderr bash -c 'cat snap.ndjson | "$PAGESTAT" -J --warm-from=-'
	assert_warmed_back
	"$PAGESTAT" -a -e -J d >snap.json
	run -0 --separate-stderr "$PAGESTAT" -a --evict d
	run -0 --separate-stderr bash -c 'cat snap.json | "$PAGESTAT" -J --warm-from=-'
	assert_warmed_back
}

@test "--warm-from reads only the listed extents that are missing now, and drops nothing" {
	make_snapshot_tree
	take_snapshot ndjson
	# part of d/a's listed pages cached again, and pages it does not list
	cache_pages d/a 2 2 0 1 15 1
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_row d/a read=6 cached=10
	assert_cache d/a 0 1 2 4 10 4 15 1
}

@test "--warm-from: odd names (a newline, invalid UTF-8 through path_base64) through ndjson" {
	mkdir d
	local nl=$'d/new\nline' bad=$'d/bad\xffname' quoted='d/a "quoted" back\slash'
	fresh "$nl" 4 1 2
	fresh "$bad" 4 0 1
	fresh "$quoted" 4 3 1
	run -0 --separate-stderr "$PAGESTAT" -a -e --format=ndjson d
	echo "$output" >snap.ndjson
	# the invalid name is in JSON's path as U+FFFD: only path_base64 has it
	assert_equal "$(grep -c '"path_base64":"ZC9iYWT/bmFtZQ=="' snap.ndjson)" 1
	run -0 --separate-stderr "$PAGESTAT" -a --evict d
	assert_cache "$bad" dropped
	run -0 --separate-stderr "$PAGESTAT" --warm-from=snap.ndjson --format=ndjson
	assert_equal "$stderr" ""
	assert_cache "$nl" 1 2
	assert_cache "$bad" 0 1
	assert_cache "$quoted" 3 1
	assert_equal "$(jq -s '[.[] | select(.type == "file") | .read] | add' <<<"$output")" 4
}

@test "--warm-from an ndjson snapshot of --extents=missing: every file skipped with a note, nothing read" {
	# ndjson rows do not say which extents they list: their pages are
	# checked against the row's cached count (3 cached, 5 missing; a
	# file exactly half cached cannot be told)
	mkdir d
	fresh d/half 8 0 3
	fresh d/cold 4
	"$PAGESTAT" -a --extents=missing --format=ndjson d >missing.ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=missing.ndjson
	assert_equal "$(row_paths)" ""
	assert_total read=0 files=0
	local f
	for f in half cold; do
		grep -qxF -- "pagestat: 'd/$f': its extents are not its cached pages (taken with --extents=missing, or the cache changed meanwhile): skipped" <<<"$stderr" ||
			fail "no note for d/$f: $stderr"
	done
	assert_cache d/half 0 3
	assert_cache d/cold dropped
}

@test "--warm-from: a file changed since the snapshot (touched, appended, replaced) or removed is skipped with a note, the others warmed" {
	mkdir d
	local f
	for f in same touched appended replaced gone; do
		fresh "d/$f" 4 all
	done
	"$PAGESTAT" -a -e --format=ndjson d >snap.ndjson
	run -0 --separate-stderr "$PAGESTAT" -a --evict d
	touch -m -d '2001-02-03 04:05:06' d/touched
	printf x >>d/appended
	cp d/replaced d/replaced.new
	mv d/replaced.new d/replaced
	pcarrange drop d/replaced
	rm d/gone
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_equal "$(row_paths)" d/same
	assert_row d/same read=4 cached=4
	assert_total files=1 read=4
	local line
	for line in "pagestat: 'd/touched': changed since the snapshot (its mtime differs): skipped" \
		"pagestat: 'd/appended': changed since the snapshot (its size differs): skipped" \
		"pagestat: 'd/replaced': changed since the snapshot (its inode differs: another file): skipped" \
		"pagestat: 'd/gone': changed since the snapshot (gone): skipped"; do
		grep -qxF -- "$line" <<<"$stderr" || fail "stderr lacks the line: $line"$'\n'"stderr: $stderr"
	done
	assert_equal "$(wc -l <<<"$stderr")" 4
	assert_cache d/same 4
	assert_cache d/touched dropped
	assert_cache d/replaced dropped
	# the appended byte's page alone: written, not read
	assert_cache d/appended 4 1
	# -q: the notes are not said
	run -0 --separate-stderr "$PAGESTAT" -q -J --warm-from=snap.ndjson
	assert_equal "$stderr" ""
}

# ---- what every format shows ---------------------------------------------

@test "--evict: dropped in every format: CSV, JSON, ndjson, the table, Prometheus" {
	fresh f 4 all
	run -0 --separate-stderr "$PAGESTAT" --format=csv --evict f
	note_machine_loss f dropped 4 "$(awk -F, 'NR == 2 { print $8 }' <<<"$output")"
	assert_line -n 0 "path,type,size,pages,cached,cached_bytes,percent,dropped,dropped_bytes,dirty,dirty_bytes,writeback,writeback_bytes,evicted,evicted_bytes,recently_evicted,recently_evicted_bytes,files,backing"
	assert_line -n 1 --regexp "^f,file,$((4 * PAGE)),4,0,0,0\.0,4,$((4 * PAGE)),"
	fresh f 4 all
	run -0 --separate-stderr "$PAGESTAT" --format=ndjson --evict f
	note_machine_loss f dropped 4 "$(jq -s '.[0].dropped' <<<"$output")"
	assert_equal "$(jq -sc '.[0] | [.dropped, .dropped_bytes]' <<<"$output")" "[4,$((4 * PAGE))]"
	fresh f 4 all
	run -0 --separate-stderr "$PAGESTAT" --evict f
	assert_line -n 0 --regexp '^ *SIZE +CACHED +PERCENT +DROPPED +DIRTY '
	assert_line -n 1 --regexp "^ *[0-9.]+K +0B +0\.0% +[0-9.]+K .* f$"
	fresh f 4 all
	run -0 --separate-stderr "$PAGESTAT" --format=prometheus -a --evict f
	note_machine_loss f dropped 4 "$(awk -v p="$PAGE" '/^pagestat_dropped_bytes\{path="f"/ { print $2 / p }' <<<"$output")"
	assert_line "# TYPE pagestat_dropped_bytes gauge"
	assert_line "pagestat_dropped_bytes{path=\"f\",type=\"file\"} $((4 * PAGE))"
	refute_line --partial pagestat_read_bytes
	# -o: the column alone (CSV gives its bytes beside it)
	fresh f 4 all
	run -0 --separate-stderr "$PAGESTAT" --format=csv -o path,dropped --evict f
	note_machine_loss f dropped 4 "$(awk -F, 'NR == 2 { print $2 }' <<<"$output")"
	assert_output "path,dropped,dropped_bytes"$'\n'"f,4,$((4 * PAGE))"
	# and no dropped or read without an action
	run -0 --separate-stderr "$PAGESTAT" --format=csv f
	refute_line -n 0 --partial dropped
	refute_line -n 0 --partial read
	run -0 --separate-stderr "$PAGESTAT" -J f
	assert_equal "$(jq -c '.rows[0] | has("dropped"), has("read")' <<<"$output" | tr '\n' ' ')" "false false "
}

@test "--warm and --warm-from: read in every format: CSV, JSON, ndjson, the table, Prometheus" {
	fresh f 4
	run -0 --separate-stderr "$PAGESTAT" --format=csv --warm f
	assert_line -n 0 "path,type,size,pages,cached,cached_bytes,percent,read,read_bytes,dirty,dirty_bytes,writeback,writeback_bytes,evicted,evicted_bytes,recently_evicted,recently_evicted_bytes,files,backing"
	assert_line -n 1 --regexp "^f,file,$((4 * PAGE)),4,4,$((4 * PAGE)),100\.0,4,$((4 * PAGE)),"
	fresh f 4
	run -0 --separate-stderr "$PAGESTAT" --format=ndjson --warm f
	assert_equal "$(jq -sc '.[0] | [.read, .read_bytes]' <<<"$output")" "[4,$((4 * PAGE))]"
	fresh f 4
	run -0 --separate-stderr "$PAGESTAT" --warm f
	assert_line -n 0 --regexp '^ *SIZE +CACHED +PERCENT +READ +DIRTY '
	fresh f 4
	run -0 --separate-stderr "$PAGESTAT" --format=prometheus -a --warm f
	assert_line "# TYPE pagestat_read_bytes gauge"
	assert_line "pagestat_read_bytes{path=\"f\",type=\"file\"} $((4 * PAGE))"
	refute_line --partial pagestat_dropped_bytes
	# --warm-from, the same columns
	"$PAGESTAT" -a -e --format=ndjson f >snap.ndjson
	pcarrange drop f
	run -0 --separate-stderr "$PAGESTAT" --format=csv -o path,read --warm-from=snap.ndjson
	assert_output "path,read,read_bytes"$'\n'"f,4,$((4 * PAGE))"
	pcarrange drop f
	run -0 --separate-stderr "$PAGESTAT" --format=prometheus --warm-from=snap.ndjson
	assert_line "pagestat_read_bytes{path=\"f\",type=\"file\"} $((4 * PAGE))"
}

@test "-e: file rows carry inode, file_size, mtime and mtime_nsec in JSON, ndjson and CSV, as stat says" {
	fresh f 4 all
	local ino size mtime
	read -r ino size mtime < <(stat -c '%i %s %.9Y' f)
	local want="$ino $size ${mtime%.*} $((10#${mtime#*.}))"
	run -0 --separate-stderr "$PAGESTAT" -J -e f
	assert_equal "$(jq -r '.rows[0] | "\(.inode) \(.file_size) \(.mtime) \(.mtime_nsec)"' <<<"$output")" "$want"
	run -0 --separate-stderr "$PAGESTAT" --format=ndjson -e f
	assert_equal "$(jq -rs '.[0] | "\(.inode) \(.file_size) \(.mtime) \(.mtime_nsec)"' <<<"$output")" "$want"
	run -0 --separate-stderr "$PAGESTAT" --format=csv -e f
	assert_line -n 0 --partial ",inode,file_size,mtime,mtime_nsec,extents"
	assert_line -n 1 --partial ",$ino,$size,${mtime%.*},$((10#${mtime#*.})),0-$((4 * PAGE))"
	# not without -e
	run -0 --separate-stderr "$PAGESTAT" -J f
	assert_equal "$(jq -c '.rows[0] | has("inode")' <<<"$output")" false
	# a directory and the total have none: null, empty, '-'
	mkdir d
	fresh d/g 2 all
	run -0 --separate-stderr "$PAGESTAT" -J -a -e d
	assert_equal "$(jq -c '[((.rows[] | select(.type == "directory")), .total)
		| [.inode, .file_size, .mtime, .mtime_nsec]]' <<<"$output")" "[[null,null,null,null],[null,null,null,null]]"
	run -0 --separate-stderr "$PAGESTAT" --format=ndjson -a -e d
	assert_equal "$(jq -sc '[.[] | select(.type != "file") | .inode]' <<<"$output")" "[null,null]"
	run -0 --separate-stderr "$PAGESTAT" --format=csv -a -e d
	assert_line -n 2 --regexp '^d,directory,.*,,,,,$'
	run -0 --separate-stderr "$PAGESTAT" --output-all -a d
	assert_line -n 2 --regexp '^directory .* - +- +- +- +d$'
}

# ---- -j ------------------------------------------------------------------

# A tree of 12 files, each in its own state: FILE PAGES FIRST COUNT lines,
# the pages FIRST..FIRST+COUNT-1 of each cached.
jobs_tree_cached() {
	local i
	for ((i = 0; i < 6; i++)); do
		echo "j/x/f$i $((4 + i)) $i 2"
		echo "j/y/g$i $((8 + i)) 0 $((i + 1))"
	done
}

make_jobs_tree() {
	local f pages first count
	mkdir -p j/x j/y
	while read -r f pages first count; do
		fresh "$f" "$pages" "$first" "$count"
	done < <(jobs_tree_cached)
}

# Hold the pages make_jobs_tree cached, for a run that must not see them
# go (a --warm reads only the others; a snapshot records them).
hold_jobs_tree() {
	local f pages first count
	while read -r f pages first count; do
		hold_pages "$f" "$first" "$count"
	done < <(jobs_tree_cached)
}

# After a --evict of the tree (the JSON document in $output): a file that
# dropped fewer pages than make_jobs_tree cached lost them before, to the
# machine (note_machine_loss).
note_evict_losses() {
	local f pages first count
	while read -r f pages first count; do
		note_machine_loss "$f" dropped "$count" \
			"$(jq --arg p "$f" '.rows[] | select(.path == $p) | .dropped' <<<"$output")"
	done < <(jobs_tree_cached)
}

# Each row of the JSON document in $output as PATH TYPE PAGES CACHED
# and the key KEY, sorted; then the total.
action_rows() {
	jq -r --arg k "$1" '(.rows | sort_by(.path) | .[] | "\(.path) \(.type) \(.pages) \(.cached) \(.[$k])"),
		"total \(.total.pages) \(.total.cached) \(.total[$k]) \(.total.files)"' <<<"$output"
}

# The arranged pages are held while --warm reads the others and while the
# snapshot is taken; --evict needs them unlocked (release_holds), so a
# page the machine paged out before it is told apart (note_evict_losses).
@test "-j 4 gives the results of -j 1: --evict, --warm and --warm-from" {
	local one four
	make_jobs_tree
	hold_jobs_tree
	run -0 --separate-stderr "$PAGESTAT" -J -a --warm j
	one=$(action_rows read)
	end_holds
	make_jobs_tree
	hold_jobs_tree
	run -0 --separate-stderr "$PAGESTAT" -J -a -j 4 --warm j
	four=$(action_rows read)
	end_holds
	assert_equal "$four" "$one"
	assert_equal "$(tail -n 1 <<<"$four")" "total 102 102 69 12"

	make_jobs_tree
	hold_jobs_tree
	"$PAGESTAT" -a -e --format=ndjson j >snap.ndjson
	end_holds
	"$PAGESTAT" -a --evict j >/dev/null
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	one=$(action_rows read)
	"$PAGESTAT" -a --evict j >/dev/null
	run -0 --separate-stderr "$PAGESTAT" -J -j 4 --warm-from=snap.ndjson
	four=$(action_rows read)
	assert_equal "$four" "$one"
	assert_equal "$(tail -n 1 <<<"$four")" "total 102 33 33 12"

	release_holds "--evict drops unlocked pages only"
	make_jobs_tree
	run -0 --separate-stderr "$PAGESTAT" -J -a --evict j
	note_evict_losses
	one=$(action_rows dropped)
	make_jobs_tree
	run -0 --separate-stderr "$PAGESTAT" -J -a -j 4 --evict j
	note_evict_losses
	four=$(action_rows dropped)
	assert_equal "$four" "$one"
	assert_equal "$(tail -n 1 <<<"$four")" "total 102 0 33 12"
}

# ---- bad input: exit 2, a message naming the option, nothing done ----------

# cold: 8 pages, none cached; hot: 8 pages, all; snap.ndjson and
# snap.json: snapshots that list both wholly (taken while both were).
make_bad_input_files() {
	fresh cold 8 all
	fresh hot 8 all
	"$PAGESTAT" -a -e --format=ndjson cold hot >snap.ndjson
	"$PAGESTAT" -a -e -J cold hot >snap.json
	pcarrange drop cold
}

# Nothing was done: cold is cold, hot is hot.
assert_nothing_done() {
	assert_cache cold dropped
	assert_cache hot 8
}

@test "the actions' bad combinations and values: exit 2, a message naming the option, nothing done" {
	make_bad_input_files
	refused "--evict, --warm and --warm-from exclude each other" -- --evict --warm cold hot
	assert_nothing_done
	refused "--evict, --warm and --warm-from exclude each other" -- --evict --warm-from=snap.ndjson
	assert_nothing_done
	refused "--evict, --warm and --warm-from exclude each other" -- --warm --warm-from=snap.ndjson
	assert_nothing_done
	refused "--rate needs --warm, --warm-from or --lock" -- --rate=1M cold
	assert_nothing_done
	refused "--rate needs --warm, --warm-from or --lock" -- --evict --rate=1M hot
	assert_nothing_done
	local bad
	for bad in 0 -1 -1M abc 1M/x /s 1M/s/s "" 0/s 1Q; do
		refused "invalid value for --rate: '$bad'" "bytes a second above 0" -- --warm --rate="$bad" cold
		assert_nothing_done
	done
	refused "--warm-from takes its files from the snapshot" -- --warm-from=snap.ndjson cold
	assert_nothing_done
	refused "--warm-from takes its files from the snapshot" -- --warm-from=snap.ndjson --pid $$
	assert_nothing_done
	refused_unread "--warm-from takes its files from the snapshot" -- --warm-from=snap.ndjson
	assert_nothing_done
	refused "--warm-from reads the extents the snapshot lists: no --offset or --length" -- --warm-from=snap.ndjson --offset=4096
	assert_nothing_done
	refused "--warm-from reads the extents the snapshot lists: no --offset or --length" -- --warm-from=snap.json --length=1
	assert_nothing_done
	refused "standard input can be read once" -- --warm-from=- --exclude-from=- <snap.ndjson
	assert_nothing_done
	local action
	for action in --evict --warm; do
		refused "-i/--interval cannot be combined with --evict, --warm or --warm-from" -- "$action" -i 1 cold hot
		assert_nothing_done
	done
	refused "-i/--interval cannot be combined with --evict, --warm or --warm-from" -- --warm-from=snap.ndjson -i 1
	assert_nothing_done
	refused "column 'dropped' in --output needs --evict" -- -o dropped cold hot
	refused "column 'dropped' in --output needs --evict" -- --warm -o path,dropped cold hot
	assert_nothing_done
	refused "column 'dropped' in --output needs --evict" -- --warm-from=snap.ndjson -o dropped
	assert_nothing_done
	refused "column 'read' in --output needs --warm, --warm-from or --lock" -- -o read cold hot
	refused "column 'read' in --output needs --warm, --warm-from or --lock" -- --evict -o read,path cold hot
	assert_nothing_done
}

@test "--warm-from a file that cannot be read, or is not a snapshot: exit 2, what is wrong (the line or row), nothing warmed" {
	make_bad_input_files
	refused "cannot read --warm-from 'nosuch': No such file or directory" -- --warm-from=nosuch
	mkdir dir
	refused "--warm-from 'dir': read error: Is a directory" -- --warm-from=dir
	: >empty
	refused "--warm-from 'empty': empty: no row to warm" -- --warm-from=empty
	refused "--warm-from '/dev/null': empty: no row to warm" -- --warm-from=/dev/null
	printf 'not json\n' >text
	refused "--warm-from 'text': line 1: not JSON" -- --warm-from=text
	assert_nothing_done

	# ndjson: the first rows fine (they list cold), a later line wrong
	{ cat snap.ndjson; echo 'garbage'; } >bad.ndjson
	refused "--warm-from 'bad.ndjson': line 4: not JSON" -- --warm-from=bad.ndjson
	assert_nothing_done
	{ head -n 1 snap.ndjson; echo; echo '{"path":"hot","type":"file"}'; } >bad.ndjson
	refused "--warm-from 'bad.ndjson': line 3: a file row without \"extents\": take the snapshot with -e" -- --warm-from=bad.ndjson
	assert_nothing_done
	{ head -n 1 snap.ndjson; echo '[1]'; } >bad.ndjson
	refused "--warm-from 'bad.ndjson': line 2: not a row (a JSON object)" -- --warm-from=bad.ndjson
	assert_nothing_done
	{ head -n 1 snap.ndjson; echo '{"path":"hot"}'; } >bad.ndjson
	refused "--warm-from 'bad.ndjson': line 2: a row without \"type\"" -- --warm-from=bad.ndjson
	assert_nothing_done

	# a JSON document: the row
	jq -c '.rows[1].extents = [{"offset": 4096, "length": 0}]' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: an extent without a whole \"offset\" and \"length\" above 0" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows[1].extents = [{"offset": 8192, "length": 4096}, {"offset": 0, "length": 4096}]' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: extents out of order or overlapping" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows[1].extents = [{"offset": -1, "length": 4096}]' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: an extent without a whole \"offset\"" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows[1] |= del(.path)' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: a file row without a \"path\"" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows[1].path_base64 = "not base64!"' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: a file row without a \"path\" (or a valid \"path_base64\")" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows[1] |= del(.mtime_nsec)' snap.json >bad.json
	refused "--warm-from 'bad.json': row 2: a file row without \"inode\", \"file_size\", \"mtime\" and \"mtime_nsec\"" -- --warm-from=bad.json
	assert_nothing_done
	jq -c '.rows = {}' snap.json >bad.json
	refused "--warm-from 'bad.json': not a pagestat JSON document or ndjson: no \"rows\"" -- --warm-from=bad.json
	echo '[1, 2]' >bad.json
	refused "--warm-from 'bad.json': not a pagestat JSON document or ndjson: no \"rows\"" -- --warm-from=bad.json
	# a document over several lines that is not JSON: the line
	printf '{"rows": [\n\n  {"type": "file"},\n  oops\n]}\n' >bad.json
	refused "--warm-from 'bad.json': line 4: not JSON" -- --warm-from=bad.json
	assert_nothing_done

	# taken without -e, or with --extents=missing
	"$PAGESTAT" -a -J cold hot >noext.json
	refused "--warm-from 'noext.json': row 1: a file row without \"extents\"" "take the snapshot with -e" -- --warm-from=noext.json
	"$PAGESTAT" -a --format=ndjson cold hot >noext.ndjson
	refused "--warm-from 'noext.ndjson': line 1: a file row without \"extents\"" -- --warm-from=noext.ndjson
	"$PAGESTAT" -a -J --extents=missing cold hot >missing.json
	refused "--warm-from 'missing.json': taken with --extents=missing" -- --warm-from=missing.json
	assert_nothing_done
	# from standard input, the same checks
	refused "--warm-from '-': line 4: not JSON" -- --warm-from=- < <(cat snap.ndjson; echo garbage)
	assert_nothing_done
}

# ---- found against vmtouch and the oracle ----------------------------------

@test "--evict and --warm with no FILE: exit 2, nothing done in the current directory; '.' is taken" {
	make_bad_input_files
	local action
	for action in --evict --warm; do
		refused "$action needs a FILE (or --files0-from or --pid)" "give . to mean it" -- "$action"
		assert_nothing_done
		refused "$action needs a FILE" -- "$action" -q -a -c
		assert_nothing_done
	done
	# an empty list names no file, and is no error
	: >empty
	run -0 --separate-stderr "$PAGESTAT" -J --evict --files0-from=empty
	assert_total files=0
	assert_nothing_done
	# named, the current directory is acted on
	run -0 --separate-stderr "$PAGESTAT" -J -a --evict .
	assert_row ./hot cached=0 dropped=8
	assert_cache hot dropped
}

@test "--evict: pages left in the range are told once, with why (mapped by a process); none left, nothing told" {
	fresh mapped 8 all
	fresh plain 8 all
	# a process maps mapped and touches every page: the kernel keeps them
	"$PYTHON3" -c '
import mmap, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY)
m = mmap.mmap(fd, 0, prot=mmap.PROT_READ)
sum(m[i] for i in range(0, len(m), mmap.PAGESIZE))
print("mapped", flush=True)
time.sleep(60)' mapped >mapper.out 3>&- &
	HOLDER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(cat mapper.out) == mapped ]] && break
		sleep 0.05
	done
	assert_equal "$(cat mapper.out)" mapped
	run -0 --separate-stderr "$PAGESTAT" -J --evict mapped plain
	assert_row plain cached=0 dropped=8
	local left
	left=$(jq -r '.total.cached' <<<"$output")
	((left > 0)) || skip "the kernel dropped the pages a process maps too"
	assert_equal "$stderr" "pagestat: --evict: $left pages are still cached: $left mapped by a process, or read again meanwhile"
	# the same with a range: the folios that cross its edges may stay too
	run -0 --separate-stderr "$PAGESTAT" -J --evict --offset=1 --length=$((4 * PAGE)) mapped
	assert_stderr_has "pages are still cached" "in large folios that cross the edge of a range"
	# nothing left: nothing said; -q: nothing said
	run -0 --separate-stderr "$PAGESTAT" -J --evict plain
	assert_equal "$stderr" ""
	run -0 --separate-stderr "$PAGESTAT" -q -J --evict mapped
	assert_equal "$stderr" ""
}

@test "--rate takes /s in any case (1MB/S, 1m/S); --warm reads into a page-aligned buffer" {
	fresh cold 8
	local rate
	for rate in 1MB/S 1m/S 1M/s 2mib/s; do
		pcarrange drop cold
		run -0 --separate-stderr "$PAGESTAT" -J --warm --rate="$rate" cold
		assert_row cold cached=8 read=8
	done
	command -v strace >/dev/null || skip "strace is not installed"
	pcarrange drop cold
	# LeakSanitizer cannot work under ptrace: no leak check in this run
	run -0 env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		strace -qq -e trace=pread64 -e raw=pread64 -o trace.out "$PAGESTAT" --warm cold
	# pread64(fd, BUFFER, count, offset): BUFFER a multiple of the page
	# size (the last read: the loader's come first)
	local buffer
	buffer=$(sed -n 's/^pread64(\([^,]*\), \(0x[0-9a-f]*\),.*/\2/p' trace.out | tail -n 1)
	[[ -n $buffer ]] || fail "no pread64 seen: $(cat trace.out)"
	assert_equal "buffer $buffer modulo the page: $((buffer % PAGE))" "buffer $buffer modulo the page: 0"
}
