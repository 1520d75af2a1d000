#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Exact counts against states arranged on the running kernel.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

@test "a fully cached file: every page cached, none dirty" {
	make_cached full 8
	run -0 pagestat -J full
	assert_equal "$(json_field '.rows[0].pages')" 8
	assert_equal "$(json_field '.rows[0].cached')" 8
	assert_equal "$(json_field '.rows[0].cached_bytes')" $(( 8 * PAGE ))
	assert_equal "$(json_field '.rows[0].dirty')" 0
	assert_equal "$(json_field '.rows[0].percent')" 100
	assert_equal "$(json_field '.rows[0].size')" $(( 8 * PAGE ))
	assert_equal "$(json_field '.rows[0].files')" 1
}

@test "a dropped file: no page cached, none evicted (DONTNEED leaves no shadows)" {
	make_dropped gone 6
	run -0 pagestat -J gone
	assert_equal "$(json_field '.rows[0].pages')" 6
	assert_equal "$(json_field '.rows[0].cached')" 0
	assert_equal "$(json_field '.rows[0].evicted')" 0
	assert_equal "$(json_field '.rows[0].percent')" 0
}

@test "a dirty file: cached and dirty are every page" {
	make_dirty fresh 5
	run -0 pagestat -J fresh
	assert_equal "$(json_field '.rows[0].cached')" 5
	assert_equal "$(json_field '.rows[0].dirty')" 5
	assert_equal "$(json_field '.rows[0].dirty_bytes')" $(( 5 * PAGE ))
}

@test "a part-cached file: exactly the pages read" {
	make_partial part 10 2 3
	run -0 pagestat -J part
	assert_equal "$(json_field '.rows[0].cached')" 3
	assert_equal "$(json_field '.rows[0].percent')" 30
}

@test "a partial last page counts as a page" {
	HALF=1 make_cached halfpage 3
	run -0 pagestat -J halfpage
	assert_equal "$(json_field '.rows[0].size')" $(( 3 * PAGE - PAGE / 2 ))
	assert_equal "$(json_field '.rows[0].pages')" 3
	assert_equal "$(json_field '.rows[0].cached')" 3
}

@test "an empty file: no pages, percent null" {
	: >empty
	run -0 pagestat -J empty
	assert_equal "$(json_field '.rows[0].pages')" 0
	assert_equal "$(json_field '.rows[0].percent')" null
}

@test "pagestat agrees with a direct cachestat reading" {
	make_partial direct 16 4 7
	run -0 pagestat --csv -n -o cached,dirty,writeback,evicted,recently_evicted direct
	read -r c d w e r < <(pcarrange stat direct)
	assert_output "$c,$((c * PAGE)),$d,$((d * PAGE)),$w,$((w * PAGE)),$e,$((e * PAGE)),$r,$((r * PAGE))"
}
