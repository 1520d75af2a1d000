#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# doc/pagestat.schema.json: the JSON Schema of -J and ndjson.  The other
# suites keep every JSON output they look at (test_helper's jq); this one
# runs after them (Makefile.am) and checks each against the schema, then
# checks that the schema is strict enough to refuse what is wrong.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	"$PYTHON3" -c 'import jsonschema' 2>/dev/null ||
		fail "python3-jsonschema is not installed (apt-get install python3-jsonschema)"
}

check() {
	"$PYTHON3" "$SCHEMA_CHECK" "$PAGESTAT_SCHEMA" "$@"
}

@test "the schema is a valid draft 2020-12 schema, and pagestat's documents say which schema they follow" {
	run -0 "$PYTHON3" -c 'import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
print("ok")' "$PAGESTAT_SCHEMA"
	make_cached f 2
	run -0 pagestat -J f
	assert_equal "$(json_field .schema)" 1
}

@test "every JSON and ndjson output the other suites looked at meets the schema" {
	local spooled=("$PAGESTAT_JSON_SPOOL"/*)
	[[ -e ${spooled[0]} ]] || skip "no other suite ran before this one (make check TESTS=tests/schema.bats)"
	run check "${spooled[@]}"
	# done with, whatever the outcome: the next make check brings its own
	rm -f -- "${spooled[@]}"
	echo "# ${lines[-1]}" >&3
	assert_success
}

@test "outputs of every kind meet the schema: formats, options, samples, failures, actions, --system" {
	mkdir -p tree/sub
	make_partial tree/part 10 2 3
	make_cached tree/sub/full 4
	: >tree/empty
	mkfifo tree/fifo
	printf 'x' >"$(printf 'tree/bad\377name')"
	local n=0 args
	for args in "-J tree" "-J -a tree" "-a --format=ndjson tree" "-J -a -S 3 -e tree" \
		"-J -a --extents=missing tree" "--format=ndjson -a -S 2 -e tree" \
		"-J --method=mincore -a tree" "-J -o path,cached -a tree" "-J -o size,type tree" \
		"-J -a -i 0.01 --count 2 tree" "--format=ndjson -a -i 0.01 --count 2 tree" \
		"-J --offset 4K --length 8K -a tree" "-J tree/fifo missing tree" \
		"--format=ndjson tree/fifo missing" "-J --top 2 -a tree" "-J -d 1 -s cached tree" \
		"-J --evict -a tree" "-J --warm -a tree" "-J --pid $$" "-J -a -e -o +inode tree" \
		"--format=ndjson -o cached -a tree" "--format=ndjson -o path tree/fifo missing tree" \
		"--format=ndjson --evict -a tree" "--format=ndjson --warm -a -o path,read tree" \
		"--format=ndjson --pid $$" "--format=ndjson -a -i 0.01 --count 2 -o path,delta tree" \
		"-J -a -i 0.01 --count 2 -o size,delta,type tree"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$PAGESTAT" $args >"out.$n" 2>/dev/null || true
	done
	"$PAGESTAT" -a -e --format=ndjson tree >snap.ndjson
	n=$((n + 1))
	"$PAGESTAT" -J --warm-from=snap.ndjson >"out.$n" 2>/dev/null || true
	n=$((n + 1))
	"$PAGESTAT" --system --exclude='*' -J >"out.$n" 2>/dev/null || true
	n=$((n + 1))
	"$PAGESTAT" --system --exclude='*' --format=ndjson >"out.$n" 2>/dev/null || true
	run check out.* snap.ndjson
	assert_success
	assert_output --partial "$((n + 1)) outputs checked, 0 invalid, 0 not JSON"
}

@test "the schema refuses a wrong type, a missing key, an unknown key, a path on the total" {
	make_cached f 2
	"$PAGESTAT" -J f >good.json
	"$PAGESTAT" --format=ndjson f >good.ndjson
	run -0 check good.json good.ndjson
	local i=0 edit
	for edit in '.rows[0].cached = "2"' 'del(.errors)' 'del(.schema)' '.schema = 2' \
		'.rows[0].surprise = 1' '.total.path = "f"' '.rows[0].percent = 101' \
		'.rows[0].type = "socket"' '.method = "guess"' '.rows[0].extents = [{"offset": 0}]' \
		'.rows[0].path = 7' '.range.offset = -1' '.rows[0] = {"path": "f", "error": "x"}' \
		'.rows[0] = {}' '.rows[0].time = "2026-11-30T04:20:00.123Z"' \
		'.total.time = "2026-11-30T04:20:00.123Z"' 'del(.rows)' 'del(.total)' \
		'del(.rows[0].cached_bytes)' '.rows[0].path_base64 = "Zg="'; do
		i=$((i + 1))
		jq -c "$edit" good.json >"bad.$i.json"
	done
	all_refused bad.*.json
	jq -c '.files = -1' <<<"$(head -n 1 good.ndjson)" >bad.ndjson
	run check bad.ndjson
	assert_failure 1
	assert_output --partial "row: at files:"
}

# all_refused FILE...: each FILE breaks the schema (one check of them
# all: the checker says which files are invalid, a line each, and a start
# of python and jsonschema costs half a second)
all_refused() {
	local f
	run check "$@"
	assert_failure 1
	assert_output --partial "schema: $# outputs checked, $# invalid, 0 not JSON"
	for f in "$@"; do
		assert_line --regexp "^${f//./\\.}: (document|row|failure|total): at "
	done
}

# refused_line NAME JSON: the ndjson line JSON is written to be refused
# by all_refused bad-*.ndjson
refused_line() {
	printf '%s\n' "$2" >"bad-$1.ndjson"
}

@test "ndjson: each line is a row, a failure or the total, told apart by its keys; {} and what is none of them are refused" {
	make_cached f 2
	"$PAGESTAT" --format=ndjson f missing >good.ndjson 2>/dev/null || true
	"$PAGESTAT" --format=ndjson -o path,cached -i 0.01 --count 2 f >samples.ndjson
	run -0 check good.ndjson samples.ndjson
	assert_output --partial "2 outputs checked, 0 invalid"
	local row failure total
	row=$(jq -c 'select(.type == "file")' good.ndjson)
	failure=$(jq -c 'select(has("error"))' good.ndjson)
	total=$(jq -c 'select(.type == "total")' good.ndjson)
	[[ -n $row && -n $failure && -n $total ]] || fail "not a row, a failure and a total: $(<good.ndjson)"

	# nothing, or a sample's time alone, is no kind of line
	refused_line empty '{}'
	refused_line time-alone '{"time":"2026-11-30T04:20:00.123Z"}'
	refused_line not-an-object '[1]'
	refused_line a-number '7'
	# a row: its type, when there, is one a row has; no error in it
	refused_line row-null-type "$(jq -c '.type = null' <<<"$row")"
	refused_line row-with-error "$(jq -c '.error = "x"' <<<"$row")"
	refused_line row-half-pair "$(jq -c 'del(.cached_bytes)' <<<"$row")"
	refused_line row-base64-alone "$(jq -c 'del(.path) | .path_base64 = "Zg=="' <<<"$row")"
	refused_line row-bad-time "$(jq -c '.time = "yesterday"' <<<"$row")"
	# a failure: path, type, error and errno, and nothing else
	refused_line failure-no-errno "$(jq -c 'del(.errno)' <<<"$failure")"
	refused_line failure-no-type "$(jq -c 'del(.type)' <<<"$failure")"
	refused_line failure-no-path "$(jq -c 'del(.path)' <<<"$failure")"
	refused_line failure-counter "$(jq -c '.cached = 2 | .cached_bytes = 8192' <<<"$failure")"
	refused_line failure-errno "$(jq -c '.errno = "enoent"' <<<"$failure")"
	# the total: type "total" and no path
	refused_line total-path "$(jq -c '.path = "f"' <<<"$total")"
	refused_line total-base64 "$(jq -c '.path_base64 = "Zg=="' <<<"$total")"
	refused_line total-error "$(jq -c '.error = "x" | .errno = null' <<<"$total")"
	refused_line row-as-total "$(jq -c '.type = "total"' <<<"$row")"
	# a document's opening (its keys up to the rows) is no line
	refused_line opening "$(jq -c 'del(.rows, .total, .errors)' < <("$PAGESTAT" -J f))"
	all_refused bad-*.ndjson
	# a document and ndjson lines in one output
	{ "$PAGESTAT" -J f; cat good.ndjson; } >mixed.out 2>/dev/null || true
	run check mixed.out
	assert_failure 1
	assert_output --partial "documents and ndjson lines mixed"

	# a row without "type" is what -o without type writes: it is a row
	run -0 check samples.ndjson
	assert_equal "$(jq -c 'select(.path == "f") | keys_unsorted' samples.ndjson | sort -u)" \
		'["time","path","cached","cached_bytes"]'
}
