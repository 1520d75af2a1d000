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

# The line of cold in snap.ndjson, with SED applied to it.
cold_row() {
	grep '"path":"cold"' snap.ndjson | sed "$1"
}

INT63=9223372036854775807
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

# ---- rows checked before anything is warmed -------------------------------

@test "--warm-from: an extent past the file's end, or overlapping another, is refused (exit 2), its line or row; nothing warmed" {
	make_files
	# hot's extents add up to 2^64 - 2: the sum with cold's would wrap
	{ cold_row ''; grep '"path":"hot"' snap.ndjson |
		sed "s/\"extents\":.*/\"extents\":[{\"offset\":0,\"length\":$INT63},{\"offset\":$INT63,\"length\":$INT63}]}/"; } >huge.ndjson
	refused "--warm-from 'huge.ndjson': line 2: extent 1, offset 0 length $INT63, ends past the file's \"file_size\" of $((8 * PAGE))" -- --warm-from=huge.ndjson
	assert_nothing_warmed
	# one byte past the end
	cold_row "s/\"extents\":.*/\"extents\":[{\"offset\":$PAGE,\"length\":$((7 * PAGE + 1))}]}/" >past.ndjson
	refused "--warm-from 'past.ndjson': line 1: extent 1, offset $PAGE length $((7 * PAGE + 1)), ends past the file's \"file_size\" of $((8 * PAGE))" -- --warm-from=past.ndjson
	# up to the end is fine (7 pages: "cached" says so, else it is skipped)
	cold_row "s/\"cached\":8,/\"cached\":7,/; s/\"extents\":.*/\"extents\":[{\"offset\":$PAGE,\"length\":$((7 * PAGE))}]}/" >end.ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=end.ndjson
	assert_row cold read=7
	assert_cache cold 1 7
	pcarrange drop cold
	# a document: the row
	command "$JQ" --argjson p "$PAGE" '.rows[0].extents = [{offset: 0, length: (2 * $p)}, {offset: $p, length: $p}]' snap.json >overlap.json
	refused "--warm-from 'overlap.json': row 1: extents out of order or overlapping: extent 2 begins before the end of extent 1" -- --warm-from=overlap.json
	command "$JQ" --argjson p "$PAGE" '.rows[0].extents = [{offset: (8 * $p), length: 1}]' snap.json >past.json
	refused "--warm-from 'past.json': row 1: extent 1, offset $((8 * PAGE)) length 1, ends past the file's \"file_size\"" -- --warm-from=past.json
	assert_nothing_warmed
}

@test "--warm-from: rows whose extents add up to more than 2^64 bytes are refused (exit 2), not wrapped past the MemAvailable guard" {
	make_files
	# rows for hot with a size it does not have: each would be skipped
	# as changed, but their sum, with cold's, wraps to little (no
	# "cached": no count for their extents to be checked against)
	{
		cold_row "s/\"file_size\":[0-9]*/\"file_size\":$INT63/; s/\"extents\":.*/\"extents\":[{\"offset\":0,\"length\":$INT63}]}/; s/\"cold\"/\"hot\"/; s/\"cached\":8,//"
		cold_row "s/\"file_size\":[0-9]*/\"file_size\":$INT63/; s/\"extents\":.*/\"extents\":[{\"offset\":0,\"length\":$INT63}]}/; s/\"cold\"/\"hot\"/; s/\"cached\":8,//"
		cold_row "s/\"file_size\":[0-9]*/\"file_size\":2/; s/\"extents\":.*/\"extents\":[{\"offset\":0,\"length\":2}]}/; s/\"cold\"/\"hot\"/; s/\"cached\":8,//"
		cold_row ''
	} >wrap.ndjson
	refused "--warm-from 'wrap.ndjson': line 3: the extents of the rows up to this one add up to more than 16 EiB" -- --warm-from=wrap.ndjson
	assert_nothing_warmed
}

@test "--warm-from: a path_base64 that decodes to a name with a NUL byte is refused (exit 2), not cut short" {
	make_files
	# "cold\0junk": cut at the NUL it would name cold
	cold_row "s/\"path\":\"cold\"/\"path\":\"cold\",\"path_base64\":\"$(printf 'cold\0junk' | base64)\"/" >nul.ndjson
	refused "--warm-from 'nul.ndjson': line 1: a \"path_base64\" with a NUL byte, which no file name holds" -- --warm-from=nul.ndjson
	assert_nothing_warmed
	# the name alone is fine
	cold_row "s/\"path\":\"cold\"/\"path\":\"cold\",\"path_base64\":\"$(printf 'cold' | base64)\"/" >b64.ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=b64.ndjson
	assert_row cold read=8
}

# ---- what pagestat itself writes ------------------------------------------

@test "--warm-from a snapshot pagestat wrote with a failure row (an operand that did not exist): the failure passed over, the files warmed" {
	make_files
	run -1 --separate-stderr "$PAGESTAT" -a -e --format=ndjson nosuch cold
	grep -q '"type":null' <<<"$output" || fail "no failure row: $output"
	pcarrange cache cold 0 8
	"$PAGESTAT" -a -e --format=ndjson nosuch cold >failed.ndjson 2>/dev/null || true
	"$PAGESTAT" -a -e -J nosuch cold >failed.json 2>/dev/null || true
	pcarrange drop cold
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=failed.ndjson
	assert_equal "$stderr" ""
	assert_row cold read=8
	assert_total files=1 read=8
	assert_cache cold 8
	pcarrange drop cold
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=failed.json
	assert_row cold read=8
	assert_cache cold 8
}

@test "--warm-from: a row without identity (null inode, file_size, mtime, mtime_nsec) is skipped with a note, exit 0; the others warmed" {
	make_files
	dropped other 4
	pcarrange cache other 0 4
	"$PAGESTAT" -a -e --format=ndjson other >>snap.ndjson
	pcarrange drop other
	# cold's row as a user who could not stat it would take it
	sed '/"path":"cold"/s/"inode":[0-9]*,"file_size":[0-9]*,"mtime":[0-9]*,"mtime_nsec":[0-9]*/"inode":null,"file_size":null,"mtime":null,"mtime_nsec":null/' snap.ndjson >anon.ndjson
	grep -q '"path":"cold".*"inode":null,"file_size":null,"mtime":null,"mtime_nsec":null' anon.ndjson || fail "no row without identity: $(cat anon.ndjson)"
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=anon.ndjson
	assert_equal "$stderr" "pagestat: 'cold': no inode, size or mtime in the snapshot (whoever took it could not stat the file), so a change cannot be told: skipped"
	refute_row cold
	assert_row other read=4
	assert_total files=2 read=4
	assert_cache cold dropped
	assert_cache other 4
	# -q: no note
	run -0 --separate-stderr "$PAGESTAT" -q -J --warm-from=anon.ndjson
	assert_equal "$stderr" ""
	assert_cache cold dropped
	# some of the four null, not all: refused
	sed '/"path":"cold"/s/"inode":[0-9]*/"inode":null/' snap.ndjson >half.ndjson
	refused "--warm-from 'half.ndjson': line 1: a file row without \"inode\", \"file_size\", \"mtime\" and \"mtime_nsec\"" -- --warm-from=half.ndjson
	assert_nothing_warmed
}

# ---- messages -------------------------------------------------------------

@test "--warm-from a snapshot with no file row (taken without -a, a total only): exit 2, how to take one" {
	make_files
	mkdir d
	dropped d/f 2
	"$PAGESTAT" -e --format=ndjson d >noall.ndjson
	refused "--warm-from 'noall.ndjson': it holds no file row: take the snapshot with -a, as in pagestat -a -e --format=ndjson DIR >FILE" -- --warm-from=noall.ndjson
	"$PAGESTAT" -e -J d >noall.json
	refused "--warm-from 'noall.json': it holds no file row" -- --warm-from=noall.json
	grep '"type":"total"' snap.ndjson >total.ndjson
	refused "--warm-from 'total.ndjson': it holds no file row" -- --warm-from=total.ndjson
	assert_nothing_warmed
	assert_cache d/f dropped
}

@test "--warm-from a snapshot of another page size: said, not blamed on --extents=missing; its extents read all the same" {
	make_files
	local big=$((4 * PAGE))
	# cold as a machine of pages 4 times as large writes it: 2 pages cached
	cold_row "s/\"cached\":8,\"cached_bytes\":[0-9]*/\"cached\":2,\"cached_bytes\":$((2 * big))/" >big.ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=big.ndjson
	assert_equal "$stderr" "pagestat: --warm-from 'big.ndjson': taken where a page is $big bytes (its rows' \"cached_bytes\"), $PAGE here: the rows count this machine's pages"
	assert_row cold read=8 cached=8
	assert_cache cold 8
	pcarrange drop cold
	# a document says its page size
	command "$JQ" --argjson b "$big" '.page_size = $b | .rows[] |= (.cached = 2 | .cached_bytes = 2 * $b)' snap.json >big.json
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=big.json
	assert_equal "$stderr" "pagestat: --warm-from 'big.json': taken where a page is $big bytes (its \"page_size\"), $PAGE here: the rows count this machine's pages"
	assert_row cold read=8
	assert_cache cold 8
	# -q: no note
	pcarrange drop cold
	run -0 --separate-stderr "$PAGESTAT" -q -J --warm-from=big.ndjson
	assert_equal "$stderr" ""
}

@test "--warm-from of more than MemAvailable: exit 3, a smaller snapshot suggested, not --offset and --length" {
	make_files
	local size=4611686018427387904
	cold_row "s/\"file_size\":[0-9]*/\"file_size\":$size/; s/\"extents\":.*/\"extents\":[{\"offset\":0,\"length\":$size}]}/; s/\"cached\":8,/\"cached\":$((size / PAGE)),/" >big.ndjson
	run -3 --separate-stderr "$PAGESTAT" -J --warm-from=big.ndjson
	refute_output
	assert_stderr_has "pagestat: --warm-from: 4.0E to read, more than the" "(MemAvailable): nothing read; warm from a smaller snapshot, one of fewer file rows (filtered with jq, say)"
	[[ $stderr != *--offset* ]] || fail "--offset suggested to --warm-from: $stderr"
	assert_nothing_warmed
}

@test "--warm-from a document of a newer \"schema\" than this pagestat writes: exit 2; its own schema is read" {
	make_files
	local schema
	schema=$(command "$JQ" .schema snap.json)
	[[ $schema =~ ^[1-9][0-9]*$ ]] || fail "no schema in pagestat's document: $schema"
	command "$JQ" --argjson s "$schema" '.schema = $s + 1' snap.json >newer.json
	refused "--warm-from 'newer.json': written by a newer pagestat: its \"schema\" is $((schema + 1)), this pagestat reads $schema; warm from it with the pagestat that took it" -- --warm-from=newer.json
	command "$JQ" '.schema = "1"' snap.json >text.json
	refused "--warm-from 'text.json': not a pagestat JSON document: its \"schema\" is not a whole number above 0" -- --warm-from=text.json
	assert_nothing_warmed
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.json
	assert_row cold read=8
}

@test "--warm-from: a file replaced since the snapshot: the note nests no parentheses" {
	make_files
	cp cold cold.new
	mv cold.new cold
	pcarrange drop cold
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_equal "$stderr" "pagestat: 'cold': changed since the snapshot (its inode differs: another file): skipped"
	assert_cache cold dropped
}

# ---- issue 31, item 11: a row's size is capped ---------------------------

@test "--warm-from: an ndjson row longer than 16 MiB is refused (exit 2, the snapshot and line named), nothing warmed" {
	pcarrange write a $((4 * PAGE))
	pcarrange drop a
	pcarrange cache a 0 2
	"$PAGESTAT" -a -e --format=ndjson a >snap.ndjson
	pcarrange drop a
	# a row of 16 MiB and more: a file of extents one page apart
	"$PYTHON3" -c '
import json, sys
page = int(sys.argv[1])
ext = [{"offset": i * 2 * page, "length": page} for i in range(450000)]
print(json.dumps({"path": "a", "type": "file", "inode": None, "file_size": None,
                  "mtime": None, "mtime_nsec": None, "extents": ext}))' "$PAGE" >>snap.ndjson
	(($(tail -n 1 snap.ndjson | wc -c) > 16 << 20)) || fail "the row is not longer than 16 MiB"
	run -2 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	refute_output
	assert_equal "$stderr" "pagestat: --warm-from 'snap.ndjson': line 3: a row longer than 16 MiB, more than a snapshot's row may be: not read"
	pcarrange holds a dropped || fail "a was warmed: $(pcarrange stat a)"
	# the same row below the cap is read
	head -n 2 snap.ndjson >small.ndjson
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=small.ndjson
	assert_row a read=2
}
