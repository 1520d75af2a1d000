#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --method: cachestat by default on this kernel; mincore knows cached pages
# only (the rest unknown, never 0) and must agree with cachestat on them;
# the fallback when cachestat is filtered; refusal instead of the made-up
# figures mincore gives for other users' files; /proc and /sys files.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	leave_nobody_dir
}

# ---- helpers -------------------------------------------------------------

# The counters mincore cannot know, each with its _bytes twin.
UNKNOWN=(dirty writeback evicted recently_evicted)

# In every row of the document and in the total, the unknown counters
# are null.
assert_unknown_null() {
	local name bad
	for name in "${UNKNOWN[@]}"; do
		bad=$(jq --arg k "$name" \
			'[.rows[], .total | select(has($k) and .[$k] != null or has($k + "_bytes") and .[$k + "_bytes"] != null)] | length' \
			<<<"$output")
		assert_equal "rows with $name not null: $bad" "rows with $name not null: 0"
		assert_equal "$(jq --arg k "$name" '[.rows[], .total | select(has($k) and has($k + "_bytes"))] | length' <<<"$output")" \
			"$(jq '[.rows[], .total] | length' <<<"$output")"
	done
}

require_cachestat() {
	pcarrange stat "$1" >/dev/null 2>&1 || skip "cachestat(2) is not usable on this kernel"
}

# full: 8 pages cached; gone: 6 pages, none; part: 10 pages, 2..4 cached;
# dirt: 5 pages dirty; half: 3 pages, the last half full, cached.
make_states() {
	make_cached full 8
	make_dropped gone 6
	make_partial part 10 2 3
	make_dirty dirt 5
	HALF=1 make_cached half 3
}

# Run CMD... where cachestat fails with ERRNO, as on an old kernel
# (ENOSYS) or under a container's seccomp profile (EPERM): tests/nocachestat
# installs the filter.  Exits 77 where the filter cannot be installed.
# usage: without_cachestat ERRNO CMD...
without_cachestat() {
	rearrange || return
	"$NOCACHESTAT" "$@"
}

# ---- which method ----------------------------------------------------------

@test "default and --method=auto use cachestat on this kernel, as --method=cachestat" {
	make_dirty dirt 3
	require_cachestat dirt
	for opt in "" --method=auto --method=cachestat; do
		run -0 --separate-stderr pagestat -J $opt dirt
		assert_equal "$opt: $(json_field .method)" "$opt: cachestat"
		assert_row dirt cached=3 dirty=3 dirty_bytes=$((3 * PAGE)) writeback=0 evicted=0
		assert_equal "$stderr" ""
	done
}

@test "--method=mincore reports the cached pages cachestat reports, exactly" {
	make_states
	require_cachestat full
	local -A want=([full]=8 [gone]=0 [part]=3 [dirt]=5 [half]=3)
	local name truth
	run -0 --separate-stderr pagestat -J --method=mincore full gone part dirt half
	assert_equal "$(json_field .method)" mincore
	for name in "${!want[@]}"; do
		read -r truth _ < <(pcarrange stat "$name")
		assert_equal "$name: cachestat says $truth" "$name: cachestat says ${want[$name]}"
		assert_row "$name" cached="${want[$name]}" cached_bytes=$((want[$name] * PAGE)) files=1
	done
	assert_row full pages=8 size=$((8 * PAGE))
	assert_row half pages=3 size=$((3 * PAGE - PAGE / 2))
	assert_total files=5 pages=32 cached=19
	assert_equal "$stderr" ""

	# and the same figures through cachestat
	run -0 --separate-stderr pagestat -J --method=cachestat full gone part dirt half
	for name in "${!want[@]}"; do
		assert_row "$name" cached="${want[$name]}"
	done
}

@test "--method=mincore: dirty, writeback, evicted, recently evicted are null in JSON, never 0" {
	make_states
	mkdir dir
	make_partial dir/inner 4 1 2
	run -0 --separate-stderr pagestat -J --method=mincore -d 1 -a part dirt dir
	assert_unknown_null
	assert_row dirt cached=5 dirty=null dirty_bytes=null
	assert_row dir type=directory files=1 cached=2 writeback=null evicted_bytes=null
	assert_total files=3 pages=19 cached=10 recently_evicted=null
	# what is known is still there: percent from cached and pages
	assert_equal "$(jq '.rows[] | select(.path == "part") | .percent == 30' <<<"$output")" true
	assert_equal "$(jq '.rows[] | select(.path == "dir/inner") | .percent == 50' <<<"$output")" true
	assert_equal "$(jq '.total.percent == 52.6' <<<"$output")" true
}

@test "--method=mincore: the unknown counters are empty in CSV" {
	make_partial part 10 2 3
	run -0 --separate-stderr pagestat --csv -n --method=mincore \
		-o cached,dirty,writeback,evicted,recently_evicted,percent,files part
	# each page column brings its _bytes twin
	assert_output "3,$((3 * PAGE)),,,,,,,,,30.0,1"
}

@test "--method=mincore: the unknown counters are '-' in the table" {
	make_partial part 10 2 3
	run -0 --separate-stderr pagestat -n -p --method=mincore \
		-o cached,dirty,writeback,evicted,recently_evicted,percent,path part
	assert_output --regexp '^ *3 +- +- +- +- +30\.0% +part$'

	run -0 --separate-stderr pagestat -n -b --method=mincore -o cached,dirty,path part
	assert_output --regexp "^ *$((3 * PAGE)) +- +part\$"
}

@test "--method=cachestat: the same counters are numbers, 0 where nothing happened" {
	make_partial part 10 2 3
	run -0 --separate-stderr pagestat --csv -n --method=cachestat \
		-o cached,dirty,writeback,evicted,recently_evicted,percent part
	assert_output "3,$((3 * PAGE)),0,0,0,0,0,0,0,0,30.0"
}

@test "--method=mincore on an empty file: no pages, percent null, no error" {
	: >empty
	run -0 --separate-stderr pagestat -J --method=mincore empty
	assert_row empty size=0 pages=0 cached=0 percent=null dirty=null
	assert_equal "$stderr" ""
}

@test "--method=mincore on a file larger than one mapping window: every window counted" {
	# pagestat maps 256 MiB at a time; cached pages on both sides of
	# that boundary and at the two ends
	local window=$((268435456 / PAGE)) pages
	pages=$((window + 10))
	truncate -s $((pages * PAGE)) sparse || skip "no sparse file here"
	pcarrange drop sparse
	pcarrange cache sparse 0 1
	pcarrange cache sparse $((window - 2)) 4
	pcarrange cache sparse $((pages - 1)) 1
	run -0 --separate-stderr pagestat -J --method=mincore sparse
	assert_row sparse pages=$pages cached=6
	run -0 --separate-stderr pagestat -J --method=cachestat sparse
	assert_row sparse pages=$pages cached=6
}

@test "an unknown --method is a usage error" {
	make_cached f 1
	run -2 --separate-stderr pagestat --method=fincore f
	assert_output ""
	assert_stderr_has "fincore"
}

# ---- the fallback ------------------------------------------------------------

@test "auto falls back to mincore when cachestat is filtered (ENOSYS, EPERM), and says so" {
	make_partial part 10 2 3
	local err
	for err in ENOSYS EPERM; do
		run --separate-stderr without_cachestat "$err" "$PAGESTAT" -J part
		[[ $status -ne 77 ]] || skip "cannot install a seccomp filter here"
		assert_equal "$err: status $status" "$err: status 0"
		assert_equal "$(json_field .method)" mincore
		assert_row part cached=3 dirty=null evicted=null
		assert_stderr_has "cachestat(2) is unavailable" "mincore"
	done

	# -q silences the note, not the fallback
	run --separate-stderr without_cachestat ENOSYS "$PAGESTAT" -q -J part
	assert_equal "status $status" "status 0"
	assert_equal "$(json_field .method)" mincore
	assert_equal "$stderr" ""
}

@test "--method=cachestat where cachestat is filtered: fatal, exit 3, nothing inspected" {
	make_cached f 2
	run --separate-stderr without_cachestat ENOSYS "$PAGESTAT" -J --method=cachestat f
	[[ $status -ne 77 ]] || skip "cannot install a seccomp filter here"
	assert_equal "status $status" "status 3"
	assert_stderr_has "cachestat(2) is not usable"
	[[ $output != *'"cached"'* ]] || fail "figures were printed: $output"
}

# ---- refusal as another user ---------------------------------------------

@test "as nobody, --method=mincore refuses a root-owned file (EPERM), never a made-up 100%" {
	enter_nobody_dir
	# dropped: mincore(2) itself would call all 4 pages resident
	make_dropped rootfile 4
	make_cached mine 3
	chown $NOBODY:$NOBODY mine
	run -1 --separate-stderr as_nobody ./pagestat -J --method=mincore rootfile mine
	assert_equal "$(json_field .method)" mincore
	assert_row rootfile errno=EPERM error="Operation not permitted" cached=null percent=null
	assert_row mine files=1 cached=3
	assert_total files=1 pages=3 cached=3
	assert_equal "$(json_field .errors)" 1
	assert_stderr_has "'rootfile': Operation not permitted" CAP_FOWNER
}

@test "as nobody, both methods inspect a root-owned file nobody may write" {
	enter_nobody_dir
	make_partial shared 4 1 2
	chmod 666 shared
	for method in mincore cachestat; do
		run -0 --separate-stderr as_nobody ./pagestat -J --method=$method shared
		assert_row shared files=1 pages=4 cached=2
	done
}

# ---- pseudo file systems -------------------------------------------------------

@test "a /proc file: size 0, no pages, percent null, exit 0 (both methods)" {
	[[ -r /proc/version ]] || skip "no /proc here"
	for method in cachestat mincore; do
		run -0 --separate-stderr pagestat -J --method=$method /proc/version
		assert_row /proc/version type=file files=1 size=0 pages=0 cached=0 percent=null
		assert_equal "$stderr" ""
	done
}

@test "a /sys file: its stat size, no cached page, exit 0" {
	require_root "/sys files belong to root: cachestat answers only to their owner or CAP_FOWNER"
	local f size
	for f in /sys/kernel/profiling /sys/kernel/uevent_seqnum /sys/power/state /sys/kernel/mm/transparent_hugepage/enabled; do
		[[ -f $f && -r $f ]] && break
		f=
	done
	[[ -n $f ]] || skip "no readable /sys file here"
	size=$(stat -c %s "$f")
	run -0 --separate-stderr pagestat -J --method=cachestat "$f"
	assert_row "$f" type=file files=1 size="$size" pages=$(((size + PAGE - 1) / PAGE)) cached=0
	assert_equal "$stderr" ""
}
