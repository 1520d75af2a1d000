#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --warm-from's reading of a snapshot: input that is no snapshot (endless,
# NUL bytes, not JSON) refused at once, every row checked (extents
# against the file's size, sums that would wrap, names with a NUL) before
# anything is warmed, rows pagestat itself writes (failures, rows without
# identity, another page size) taken as they are, and what the messages
# say.  Every refusal is exit 2 with nothing warmed: the files are
# arranged with pcarrange, as in actions.bats, since a warm changes them.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# FILE of PAGES pages, on disk, none cached (not recorded: a warm may
# change it).
dropped() {
	pcarrange write "$1" $(($2 * PAGE))
	pcarrange drop "$1"
}

# Exactly these pages of FILE are cached, as cachestat says.
# usage: assert_cache FILE dropped | PAGES | FIRST COUNT...
assert_cache() {
	local path=$1
	shift
	pcarrange holds "$path" "$@" || fail "$path: wanted cached: $*; cachestat: $(pcarrange stat "$path")"
}

# cold (8 pages, none cached) and hot (8 pages, all cached), and snap.ndjson
# and snap.json taken while both were cached; cold is dropped again.
make_files() {
	dropped cold 8
	dropped hot 8
	pcarrange cache cold 0 8
	pcarrange cache hot 0 8
	"$PAGESTAT" -a -e --format=ndjson cold hot >snap.ndjson
	"$PAGESTAT" -a -e -J cold hot >snap.json
	pcarrange drop cold
}

# Nothing was warmed: cold is still dropped.
assert_nothing_warmed() {
	assert_cache cold dropped
}

# pagestat bounded in time, in a shell that may write no file of more
# than 64 MiB: a copy of an endless input is stopped (SIGXFSZ, status
# 153) long before it fills the disk, and a hang is status 124.
capped() {
	timeout 60 bash -c 'ulimit -f 65536 && exec "$@"' capped "$PAGESTAT" "$@"
}

NOT_A_SNAPSHOT="not a snapshot, which is what pagestat -a -e --format=ndjson or -J writes"

# ---- input that cannot be a snapshot --------------------------------------

@test "--warm-from=/dev/zero and yes piped in: refused at once (exit 2), nothing copied, nothing warmed" {
	make_files
	run -2 --separate-stderr capped --warm-from=/dev/zero
	refute_output
	assert_equal "$stderr" "pagestat: --warm-from '/dev/zero': line 1: a NUL byte: $NOT_A_SNAPSHOT"
	run -2 --separate-stderr bash -c 'yes | timeout 60 bash -c "ulimit -f 65536 && exec \"\$PAGESTAT\" --warm-from=-"'
	refute_output
	assert_equal "$stderr" "pagestat: --warm-from '-': line 1: not JSON: $NOT_A_SNAPSHOT"
	# the same from a file: no snapshot begins with 'y'
	yes | head -n 1000 >yes.txt
	run -2 --separate-stderr capped --warm-from=yes.txt
	assert_equal "$stderr" "pagestat: --warm-from 'yes.txt': line 1: not JSON: $NOT_A_SNAPSHOT"
	assert_nothing_warmed
}

@test "--warm-from a pipe that never ends but looks blank: refused after 1 GiB (exit 2), the limit named" {
	make_files
	local spaces
	spaces=$(printf '%4000s' '')
	export spaces
	run -2 --separate-stderr bash -c 'yes "$spaces" | timeout 60 bash -c "ulimit -f 65536 && exec \"\$PAGESTAT\" --warm-from=-"'
	refute_output
	assert_equal "$stderr" "pagestat: --warm-from '-': more than 1 GiB from a pipe or device: save the snapshot in a file and name the file"
	# a real snapshot through a pipe is read
	run -0 --separate-stderr bash -c 'cat snap.ndjson | "$PAGESTAT" -J --warm-from=-'
	assert_row cold read=8
	assert_cache cold 8
}

@test "--warm-from a file of NUL bytes, or a snapshot with a NUL byte: not a snapshot (exit 2), its line" {
	make_files
	head -c 4096 /dev/zero >zeros
	refused "--warm-from 'zeros': line 1: a NUL byte: $NOT_A_SNAPSHOT" -- --warm-from=zeros
	# blank lines before it: the line of the NUL
	printf '\n  \n\0\n' >zeros
	refused "--warm-from 'zeros': line 3: a NUL byte" -- --warm-from=zeros
	# after good rows, in ndjson and in a document
	{ cat snap.ndjson; printf '\0'; } >nul.ndjson
	refused "--warm-from 'nul.ndjson': line 4: a NUL byte" -- --warm-from=nul.ndjson
	{ head -n 2 snap.json; printf '\0\n'; } >nul.json
	refused "--warm-from 'nul.json': line 3: a NUL byte" -- --warm-from=nul.json
	refused "--warm-from '-': line 4: a NUL byte" -- --warm-from=- < <(cat nul.ndjson)
	assert_nothing_warmed
}

@test "--warm-from: jansson's message on a control character is escaped, as a name is" {
	make_files
	local esc=$'\033'
	{ head -n 1 snap.ndjson; printf '{"a":%s}\n' "$esc"; } >esc.ndjson
	refused "--warm-from 'esc.ndjson': line 2: not JSON: invalid token near '\\x1b'" -- --warm-from=esc.ndjson
	[[ $stderr != *"$esc"* ]] || fail "a raw ESC on stderr: $(od -c <<<"$stderr")"
	printf '{"rows": [\n{"path": "x%s"}]}\n' "$esc" >esc.json
	refused "--warm-from 'esc.json': line 2: not JSON: control character 0x1b near" -- --warm-from=esc.json
	[[ $stderr != *"$esc"* ]] || fail "a raw ESC on stderr: $(od -c <<<"$stderr")"
	printf '{"rows": [\n{"path": "\\%s"}]}\n' "$esc" >esc.json
	refused "--warm-from 'esc.json': line 2: not JSON: invalid escape near '\"\\\\\\x1b'" -- --warm-from=esc.json
	[[ $stderr != *"$esc"* ]] || fail "a raw ESC on stderr: $(od -c <<<"$stderr")"
	assert_nothing_warmed
}
