#!/usr/bin/env bats
# Scripts and watching: --expect-cached (exit 4), -i/--interval and
# --count (repeated samples with a time and the change in cached pages).

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# ---- --expect-cached ---------------------------------------------------

@test "--expect-cached: half cached passes 40 and 50, fails 60 and 50.1 (exit 4, output complete)" {
	make_partial half 8 0 4
	run -0 --separate-stderr pagestat -J --expect-cached=40 half
	assert_equal "$(json_field '.total.cached')" 4
	run -0 --separate-stderr pagestat -J --expect-cached=50 half
	run -4 --separate-stderr pagestat -J --expect-cached=60 half
	# still the whole document, and nothing said on stderr
	assert_equal "$(json_field '.rows[0].cached')" 4
	assert_equal "$(json_field '.total.pages')" 8
	assert_equal "$stderr" ""
	run -4 --separate-stderr pagestat -J --expect-cached=50.1 half
	run -4 --separate-stderr pagestat --expect-cached=60 -o cached,percent,path -p half
	assert_line --index 1 --regexp '^ +4 +50\.0% half$'
}

@test "--expect-cached: the share is over the total, every file of the tree" {
	mkdir tree
	make_cached tree/warm 3
	make_dropped tree/cold 1
	# 3 of 4 pages: 75%, whatever rows are shown
	run -0 pagestat -a --top 1 --expect-cached=75 tree
	run -4 pagestat -a --top 1 --expect-cached=75.1 tree
	run -0 pagestat --expect-cached=100 tree/warm
	run -4 pagestat --expect-cached=0.1 tree/cold
	run -0 pagestat --expect-cached=0 tree/cold
}

@test "--expect-cached: no pages at all meet any expectation" {
	: >empty
	mkdir nothing
	run -0 pagestat --expect-cached=100 empty nothing
}

@test "--expect-cached: a failure (exit 1) takes precedence over 4" {
	make_dropped cold 2
	run -1 --separate-stderr pagestat --expect-cached=90 cold missing
	assert_stderr_has "missing"
	run -4 pagestat --expect-cached=90 cold
	# and output that cannot be written (3) too
	run -3 --separate-stderr bash -c '"$PAGESTAT" --expect-cached=90 cold >/dev/full'
	assert_stderr_has "write error"
}

@test "--expect-cached: bad values are usage errors" {
	local v
	: >f
	for v in -1 101 100.01 abc '' 50x 1e2 inf nan . ' 50' +5 0x10; do
		refused "--expect-cached" "'$v'" "0 to 100" -- --expect-cached="$v" f
	done
}
