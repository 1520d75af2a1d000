#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --format=prometheus, read back with the Prometheus client's own parser
# (Debian's python3-prometheus-client), on an arranged tree:
#   full   8 pages, all cached        gone   6 pages, none cached
#   part  10 pages, pages 2..4 cached  dirty  5 pages, cached and dirty

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	mkdir tree
	make_cached tree/full 8
	make_dropped tree/gone 6
	make_partial tree/part 10 2 3
	# last, so the tests read it well before writeback (30 s)
	make_dirty tree/dirty 5
}

teardown() {
	if [[ -n ${SMALL_FS-} ]]; then
		umount "$SMALL_FS" || true
		SMALL_FS=
	fi
}

# A Python with prometheus_client: $PYTHON3, or Debian's own python3
# (the module is packaged for it; a pyenv python3 first in PATH lacks it).
require_parser() {
	local py
	for py in "$PYTHON3" /usr/bin/python3; do
		if "$py" -c 'import prometheus_client.parser' 2>/dev/null; then
			PROM_PYTHON=$py
			return
		fi
	done
	skip "no Prometheus parser: apt-get install python3-prometheus-client"
}

# The families and samples of the exposition in FILE, as the parser reads
# it: "family NAME TYPE HELP", then "NAME LABELS VALUE" for each sample,
# labels as JSON (ASCII, keys sorted).  The file must be valid UTF-8.
parse() {
	"$PROM_PYTHON" - "$1" <<-'EOF'
		import json, sys
		from prometheus_client.parser import text_string_to_metric_families
		text = open(sys.argv[1], 'rb').read().decode('utf-8')
		for fam in text_string_to_metric_families(text):
		    print('family', fam.name, fam.type, fam.documentation)
		    for s in fam.samples:
		        print(s.name, json.dumps(s.labels, sort_keys=True), int(s.value))
	EOF
}

# pagestat ARG... writing the exposition to out.prom; $status as it ran.
# usage: expose STATUS ARG...
expose() {
	local want=$1
	shift
	run "-$want" --separate-stderr pagestat --format=prometheus "$@"
	printf '%s\n' "$output" >out.prom
}

# Metric names of the sample lines in out.prom, consecutive repeats once.
sample_runs() {
	grep -v '^#' out.prom | sed 's/[{ ].*//' | uniq
}

@test "every family once, HELP and TYPE gauge once each, its samples together" {
	require_parser
	expose 0 -a -c tree
	local fam families=(pagestat_size_bytes pagestat_cached_bytes pagestat_dirty_bytes
		pagestat_writeback_bytes pagestat_evicted_bytes pagestat_recently_evicted_bytes
		pagestat_files pagestat_errors)
	run -0 sample_runs
	assert_equal "$output" "$(printf '%s\n' "${families[@]}")"
	for fam in "${families[@]}"; do
		assert_equal "$fam: $(grep -c "^# TYPE $fam gauge\$" out.prom)" "$fam: 1"
		assert_equal "$fam: $(grep -c "^# HELP $fam " out.prom)" "$fam: 1"
	done
	assert_equal "$(grep -c '^#' out.prom)" $((2 * ${#families[@]}))

	run -0 parse out.prom
	for fam in "${families[@]}"; do
		assert_line --regexp "^family $fam gauge [A-Z].+\.\$"
	done
	# 4 files, the directory and the total in each family but the errors
	assert_equal "$(grep -vc '^family' <<<"$output")" $((7 * 6 + 1))
}

@test "the figures are the arranged pages times the page size" {
	require_parser
	expose 0 -a -c tree
	run -0 parse out.prom
	local p=$PAGE
	assert_line "pagestat_cached_bytes {\"path\": \"tree/full\", \"type\": \"file\"} $((8 * p))"
	assert_line "pagestat_cached_bytes {\"path\": \"tree/part\", \"type\": \"file\"} $((3 * p))"
	assert_line "pagestat_cached_bytes {\"path\": \"tree/gone\", \"type\": \"file\"} 0"
	assert_line "pagestat_cached_bytes {\"path\": \"tree/dirty\", \"type\": \"file\"} $((5 * p))"
	assert_line "pagestat_cached_bytes {\"path\": \"tree\", \"type\": \"directory\"} $((16 * p))"
	assert_line "pagestat_cached_bytes {\"type\": \"total\"} $((16 * p))"
	assert_line "pagestat_dirty_bytes {\"path\": \"tree/dirty\", \"type\": \"file\"} $((5 * p))"
	assert_line "pagestat_dirty_bytes {\"path\": \"tree/full\", \"type\": \"file\"} 0"
	assert_line "pagestat_size_bytes {\"path\": \"tree/part\", \"type\": \"file\"} $((10 * p))"
	assert_line "pagestat_size_bytes {\"path\": \"tree\", \"type\": \"directory\"} $((29 * p))"
	assert_line "pagestat_evicted_bytes {\"path\": \"tree/gone\", \"type\": \"file\"} 0"
	assert_line "pagestat_files {\"path\": \"tree\", \"type\": \"directory\"} 4"
	assert_line "pagestat_files {\"path\": \"tree/full\", \"type\": \"file\"} 1"
	assert_line "pagestat_errors {} 0"
}

@test "no total sample without -c; one operand, one sample a family" {
	require_parser
	expose 0 tree
	run -0 parse out.prom
	refute_line --partial '"type": "total"'
	assert_line "pagestat_cached_bytes {\"path\": \"tree\", \"type\": \"directory\"} $((16 * PAGE))"
	assert_equal "$(grep -c '^pagestat_cached_bytes ' <<<"$output")" 1
}

@test "label values: backslash, quote and newline escaped, invalid UTF-8 as U+FFFD" {
	require_parser
	mkdir names
	local nl=$'new\nline' quote='say "hi"' backslash='back\slash' bn='back\n' bad=$'bad\xff\xfe'
	local name
	for name in "$nl" "$quote" "$backslash" "$bn" "$bad" 'plain é'; do
		pcarrange write "names/$name" $((2 * PAGE))
		pcarrange cache "names/$name" 0 2
	done
	expose 0 -a -o cached names
	# the raw text: one line a sample, escaped per the format
	assert_equal "$(grep -c '^pagestat_cached_bytes{' out.prom)" 7
	grep -qF 'path="names/new\nline"' out.prom
	grep -qF 'path="names/say \"hi\""' out.prom
	grep -qF 'path="names/back\\slash"' out.prom
	grep -qF 'path="names/back\\n"' out.prom
	run -0 parse out.prom
	assert_line 'pagestat_cached_bytes {"path": "names/new\nline", "type": "file"} '$((2 * PAGE))
	assert_line 'pagestat_cached_bytes {"path": "names/say \"hi\"", "type": "file"} '$((2 * PAGE))
	assert_line 'pagestat_cached_bytes {"path": "names/back\\slash", "type": "file"} '$((2 * PAGE))
	assert_line 'pagestat_cached_bytes {"path": "names/back\\n", "type": "file"} '$((2 * PAGE))
	assert_line 'pagestat_cached_bytes {"path": "names/bad\ufffd\ufffd", "type": "file"} '$((2 * PAGE))
	assert_line 'pagestat_cached_bytes {"path": "names/plain \u00e9", "type": "file"} '$((2 * PAGE))
}

@test "--method=mincore: unknown counters are left out, never 0" {
	require_parser
	expose 0 --method=mincore -a tree
	run -0 sample_runs
	assert_equal "$output" "$(printf '%s\n' pagestat_size_bytes pagestat_cached_bytes \
		pagestat_files pagestat_errors)"
	refute grep -q -e _dirty_ -e _writeback_ -e _evicted_ out.prom
	run -0 parse out.prom
	assert_line "pagestat_cached_bytes {\"path\": \"tree/part\", \"type\": \"file\"} $((3 * PAGE))"
	assert_line "pagestat_cached_bytes {\"path\": \"tree/dirty\", \"type\": \"file\"} $((5 * PAGE))"
}

@test "a file that cannot be inspected: no sample, counted in pagestat_errors, exit 1" {
	require_parser
	expose 1 tree/full missing tree/gone
	assert_equal "$stderr" "pagestat: cannot access 'missing': No such file or directory"
	refute grep -q missing out.prom
	run -0 parse out.prom
	assert_line "pagestat_cached_bytes {\"path\": \"tree/full\", \"type\": \"file\"} $((8 * PAGE))"
	assert_line "pagestat_cached_bytes {\"path\": \"tree/gone\", \"type\": \"file\"} 0"
	assert_line "pagestat_errors {} 1"
}

@test "-o chooses and orders the families; pages and percent have none" {
	require_parser
	expose 0 -o files,pages,percent,cached,path tree
	run -0 sample_runs
	assert_equal "$output" "$(printf '%s\n' pagestat_files pagestat_cached_bytes pagestat_errors)"
}

@test "--sort orders the samples within each family" {
	require_parser
	expose 0 -a -s cached tree
	run -0 bash -c "grep '^pagestat_cached_bytes{' out.prom | sed 's/.*path=\"//; s/\".*//'"
	assert_equal "$output" "$(printf '%s\n' tree tree/full tree/dirty tree/part tree/gone)"
	run -0 bash -c "grep '^pagestat_files{' out.prom | sed 's/.*path=\"//; s/\".*//'"
	assert_equal "$output" "$(printf '%s\n' tree tree/full tree/dirty tree/part tree/gone)"
}

@test "--format=prometheus keeps no temporary file behind" {
	mkdir spool
	TMPDIR=$PWD/spool run -0 --separate-stderr pagestat --format=prometheus -a tree
	assert_line --partial 'pagestat_cached_bytes{path="tree/full",type="file"}'
	assert_equal "$(ls -A spool)" ""
}

# DIR with N empty files whose names are long: past the 256 KiB the
# rows are held in memory, so that they go to a spool file.
many_rows() {
	mkdir "$1"
	(cd "$1" && seq -f "file-with-a-rather-long-name-to-fill-the-spool-%g" "$2" | xargs touch)
}

@test "the output does not depend on TMPDIR: gone, it spools in memory, then in /tmp" {
	run -0 --separate-stderr env TMPDIR="$PWD/nonexistent" "$PAGESTAT" --format=prometheus -a tree
	assert_equal "$stderr" ""
	assert_line "pagestat_cached_bytes{path=\"tree/full\",type=\"file\"} $((8 * PAGE))"
	# more rows than memory holds: a temporary file, in /tmp or /var/tmp
	many_rows many 3000
	run -0 --separate-stderr env TMPDIR="$PWD/nonexistent" "$PAGESTAT" --format=prometheus -a many
	assert_equal "$stderr" ""
	assert_equal "$(grep -c '^pagestat_files{path="many/file-' <<<"$output")" 3000
	assert_line 'pagestat_files{path="many",type="directory"} 3000'
}

@test "the spool's file system full: exit 3, write error said, no half output; with -i too" {
	require_root "mounting a small tmpfs"
	mkdir small
	mount -t tmpfs -o size=4k tmpfs small || skip "cannot mount a tmpfs here"
	SMALL_FS=$PWD/small
	# fill the one page it has
	head -c "$PAGE" /dev/zero >small/fill 2>/dev/null || true
	many_rows many 3000
	run -3 --separate-stderr env TMPDIR="$SMALL_FS" "$PAGESTAT" --format=prometheus -a many
	refute_output
	assert_equal "$stderr" "pagestat: write error: temporary file in $SMALL_FS: No space left on device"
	# each sample of -i fails the same way: exit 3, not 0, no file made
	run -3 --separate-stderr env TMPDIR="$SMALL_FS" "$PAGESTAT" --format=prometheus -a -i 0.01 --count 2 \
		--output-file=samples.prom many
	refute_output
	assert_equal "$stderr" "pagestat: write error: temporary file in $SMALL_FS: No space left on device"
	assert_file_not_exists samples.prom
	# and behind --sort, which passed the failure on before
	run -3 --separate-stderr env TMPDIR="$SMALL_FS" "$PAGESTAT" --format=prometheus -a -s path many
	refute_output
}

@test "--format=prometheus with no column that makes a family, or -i to standard output: exit 2, why" {
	refused "--format=prometheus: none of the columns of --output has a Prometheus family" \
		-- --format=prometheus -o path,percent tree
	refused "-i with --format=prometheus needs --output-file" -- --format=prometheus -i 1 tree
	# one family is enough; -i writes each sample over the file
	run -0 --separate-stderr "$PAGESTAT" --format=prometheus -o path,cached tree
	assert_line --regexp '^pagestat_cached_bytes\{path="tree",type="directory"\} [0-9]+$'
	run -0 --separate-stderr "$PAGESTAT" --format=prometheus -i 0.01 --count 2 --output-file=s.prom tree
	assert_equal "$(grep -c '^# TYPE pagestat_cached_bytes gauge$' s.prom)" 1
}

@test "--format=prometheus with a bad --format value names both" {
	refused "invalid value for --format: 'prom' (expected table, csv, json, ndjson or prometheus)" \
		-- --format=prom tree
}
