#!/usr/bin/env bats
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
		"-J --evict -a tree" "-J --warm -a tree" "-J --pid $$" "-J -a -e -o +inode tree"; do
		n=$((n + 1))
		# shellcheck disable=SC2086
		"$PAGESTAT" $args >"out.$n" 2>/dev/null || true
	done
	"$PAGESTAT" -a -e --format=ndjson tree >snap.ndjson
	n=$((n + 1))
	"$PAGESTAT" -J --warm-from=snap.ndjson >"out.$n" 2>/dev/null || true
	n=$((n + 1))
	"$PAGESTAT" --system --exclude='*' -J >"out.$n" 2>/dev/null || true
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
		'.rows[0].path = 7' '.range.offset = -1' '.rows[0] = {"path": "f", "error": "x"}'; do
		i=$((i + 1))
		jq -c "$edit" good.json >"bad.$i.json"
		run check "bad.$i.json"
		assert_failure 1
		assert_output --partial "1 invalid"
	done
	jq -c '.files = -1' <<<"$(head -n 1 good.ndjson)" >bad.ndjson
	run check bad.ndjson
	assert_failure 1
	assert_output --partial "row: at files:"
}
