#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Memory stays bounded: the walk and the streamed output do not grow with
# the number of files, and mincore's bitmap does not grow with file size.
# The peak RSS of pagestat itself is measured (pcarrange maxrss runs it as
# its direct child; wait4 reports that child's peak).

load test_helper

# Peak RSS allowed, KiB.
RSS_LIMIT=8192

# 100 directories of 1000 empty files each, made once for the whole file.
setup_file() {
	TREE=$BATS_FILE_TMPDIR/tree
	"$PCARRANGE" tree "$TREE" 100 1000 0
	export TREE
}

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# ASan keeps shadow memory and quarantines frees: its RSS says nothing
# about pagestat's.
skip_under_sanitizers() {
	[[ ${PAGESTAT_SANITIZERS-} != yes ]] ||
		skip "built with sanitizers (PAGESTAT_SANITIZERS=yes): ASan inflates RSS"
}

# Run pagestat ARG... as the direct child of pcarrange maxrss, its output
# in OUT; its peak RSS (KiB) goes to the file rss.
# usage: measure OUT ARG...
measure() {
	local out=$1
	shift
	pcarrange maxrss "$BATS_TEST_TMPDIR/rss" "$PAGESTAT" "$@" >"$out"
}

# The peak RSS measured last is a positive number below the limit.
assert_rss_bounded() {
	local rss
	rss=$(<"$BATS_TEST_TMPDIR/rss")
	echo "# peak RSS of pagestat: $rss KiB" >&3
	[[ $rss =~ ^[0-9]+$ ]] || fail "no RSS measured: '$rss'"
	((rss > 0)) || fail "RSS of 0 KiB: nothing was measured"
	((rss < RSS_LIMIT)) || fail "peak RSS $rss KiB is not below $RSS_LIMIT KiB"
}

@test "the tree: 100,000 files; -a -J gives a row for each and a total of 100,000" {
	run -0 --separate-stderr measure out.json -a -J "$TREE"
	assert_equal "$stderr" ""
	assert_equal "$(jq '[.rows[] | select(.type == "file")] | length' out.json)" 100000
	assert_equal "$(jq '.rows | length' out.json)" 100001
	assert_equal "$(jq -r '.rows[-1] | "\(.path) \(.type) \(.files)"' out.json)" "$TREE directory 100000"
	assert_equal "$(jq '.total.files' out.json)" 100000
	assert_equal "$(jq '.errors' out.json)" 0

	run -0 --separate-stderr measure out.json -J "$TREE"
	assert_equal "$(jq '.rows | length' out.json)" 1
	assert_equal "$(jq '.total.files' out.json)" 100000
}

@test "peak RSS below 8 MiB walking 100,000 files (one row)" {
	skip_under_sanitizers
	run -0 --separate-stderr measure out.txt "$TREE"
	assert_rss_bounded
	assert_file_contains out.txt ' 100000 '
}

@test "peak RSS below 8 MiB walking 100,000 files with a JSON row for each (-a -J)" {
	skip_under_sanitizers
	run -0 --separate-stderr measure /dev/null -a -J "$TREE"
	assert_rss_bounded
}

@test "peak RSS below 8 MiB with a table row for each of 100,000 files (-a)" {
	skip_under_sanitizers
	run -0 --separate-stderr measure out.txt -a "$TREE"
	assert_rss_bounded
	assert_equal "$(wc -l <out.txt)" 100002
}

@test "peak RSS below 8 MiB with a Prometheus sample for each of 100,000 files (-a)" {
	skip_under_sanitizers
	# the rows wait in a spool file, not in memory, until each family is written
	run -0 --separate-stderr measure out.prom -a --format=prometheus "$TREE"
	assert_rss_bounded
	assert_equal "$(grep -c '^pagestat_files{path=.*,type="file"} 1$' out.prom)" 100000
	assert_equal "$(grep -c '^pagestat_cached_bytes{' out.prom)" 100001
}

@test "--top 2 keeps 2 rows of 100,000: peak RSS below 8 MiB, where sorting all grows" {
	skip_under_sanitizers
	run -0 --separate-stderr measure out.json --top 2 -s cached -a -J "$TREE"
	assert_rss_bounded
	local top_rss
	top_rss=$(<"$BATS_TEST_TMPDIR/rss")
	assert_equal "$(jq '.rows | length' out.json)" 2
	assert_equal "$(jq '.total.files' out.json)" 100000

	# the same rows, all kept for --sort: the measure sees the difference
	run -0 --separate-stderr measure /dev/null -s cached -a -J "$TREE"
	local sort_rss
	sort_rss=$(<"$BATS_TEST_TMPDIR/rss")
	echo "# --top 2: $top_rss KiB; --sort of 100,000 rows: $sort_rss KiB" >&3
	((sort_rss > top_rss + 4096)) ||
		fail "sorting 100,000 rows ($sort_rss KiB) should need far more than --top 2 ($top_rss KiB)"
}

@test "--method=mincore on a 64 GiB sparse file: every page counted, the bitmap stays small" {
	# one byte per page of the whole file would be 16 MiB with 4 KiB pages
	local pages=$((64 * 1024 * 1024 * 1024 / PAGE))
	truncate -s $((pages * PAGE)) huge 2>/dev/null || skip "this file system has no 64 GiB sparse files"
	pcarrange drop huge
	pcarrange cache huge 0 1
	pcarrange cache huge $((pages / 2)) 2
	pcarrange cache huge $((pages - 1)) 1
	run -0 --separate-stderr measure out.json --method=mincore -J huge
	assert_equal "$(jq '.rows[0].pages' out.json)" "$pages"
	assert_equal "$(jq '.rows[0].cached' out.json)" 4
	skip_under_sanitizers
	assert_rss_bounded
}

@test "the measure sees the peak of the program it runs (a 32 MiB allocation shows)" {
	pcarrange maxrss rss "$PYTHON3" -c 'b = bytearray(32 << 20); b[::4096] = b"x" * len(b[::4096])'
	rss=$(<rss)
	echo "# peak RSS of python3 with 32 MiB: $rss KiB" >&3
	((rss >= 32768)) || fail "a 32 MiB allocation measured as $rss KiB"
}
