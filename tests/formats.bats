#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The four formats (table, CSV, JSON, ndjson) on one arranged tree:
#   full   8 pages, all cached        gone   6 pages, none cached
#   dirty  5 pages, cached and dirty  part  10 pages, pages 2..4 cached
#   empty  0 bytes                    link   a hard link to full

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	mkdir tree
	make_cached tree/full 8
	make_dropped tree/gone 6
	make_partial tree/part 10 2 3
	: >tree/empty
	ln tree/full tree/link
	# last, so the tests read it well before writeback (30 s)
	make_dirty tree/dirty 5
}

# One line per row of the canonical form below, from a CSV file read
# with Python's csv module: the header first, then the rows sorted by
# name relative to tree ("." for tree itself).  link and full are one
# inode, so either name may be the one reported: both print as "full".
csv_rows() {
	"$PYTHON3" - "$1" <<-'EOF'
		import csv, sys
		with open(sys.argv[1], newline='', encoding='utf-8',
		          errors='surrogateescape') as f:
		    table = list(csv.reader(f))
		print(','.join(table[0]))
		rows = []
		for row in table[1:]:
		    path = row[0]
		    name = '.' if path == 'tree' else path.removeprefix('tree/')
		    rows.append([{'link': 'full'}.get(name, name)] + row[1:])
		for row in sorted(rows):
		    print(','.join(row))
		print('last:', table[-1][0])
	EOF
}

# The same canonical form from the JSON rows (jq).
json_rows() {
	jq -r '.rows[] | [(.path | if . == "tree" then "." else ltrimstr("tree/") end
	                   | if . == "link" then "full" else . end),
	                  .type, .size, .pages, .cached, .cached_bytes,
	                  (.percent | if . == null then ""
	                              else (. * 10 | round) as $t | "\($t / 10 | floor).\($t % 10)" end),
	                  .dirty, .dirty_bytes, .writeback, .writeback_bytes,
	                  .evicted, .evicted_bytes, .recently_evicted,
	                  .recently_evicted_bytes, .files, (.backing // "")]
	                 | map(tostring) | join(",")' "$1" | sort
}

# The rows every format must agree on, in that canonical form (the last
# field: backing, empty off overlayfs).
expected_rows() {
	local p=$PAGE
	cat <<-EOF
		.,directory,$((29 * p)),29,16,$((16 * p)),55.1,5,$((5 * p)),0,0,0,0,0,0,5,
		dirty,file,$((5 * p)),5,5,$((5 * p)),100.0,5,$((5 * p)),0,0,0,0,0,0,1,
		empty,file,0,0,0,0,,0,0,0,0,0,0,0,0,1,
		full,file,$((8 * p)),8,8,$((8 * p)),100.0,0,0,0,0,0,0,0,0,1,
		gone,file,$((6 * p)),6,0,0,0.0,0,0,0,0,0,0,0,0,1,
		part,file,$((10 * p)),10,3,$((3 * p)),30.0,0,0,0,0,0,0,0,0,1,
	EOF
}

# ---- JSON -------------------------------------------------------------

@test "-J DIR: one row, the hard link counted once, totals exact" {
	run -0 pagestat -J tree
	assert_equal "$(json_field '.rows | length')" 1
	assert_equal "$(json_field '.rows[0].path')" tree
	assert_equal "$(json_field '.rows[0].type')" directory
	assert_equal "$(json_field '.total.files')" 5
	assert_equal "$(json_field '.total.size')" $(((8 + 6 + 5 + 10) * PAGE))
	assert_equal "$(json_field '.total.pages')" 29
	assert_equal "$(json_field '.total.cached')" $((8 + 0 + 5 + 3))
	assert_equal "$(json_field '.total.cached_bytes')" $(((8 + 0 + 5 + 3) * PAGE))
	assert_equal "$(json_field '.total.dirty')" 5
	assert_equal "$(json_field '.total.dirty_bytes')" $((5 * PAGE))
	assert_equal "$(json_field '.total.writeback')" 0
	# 16/29 = 55.17...: one decimal, truncated
	assert_equal "$(json_field '.total.percent')" 55.1
	assert_equal "$(json_field '.total.type')" total
	assert_equal "$(json_field '.total == (.rows[0] | del(.path) | .type = "total")')" true
}

@test "-J -l DIR: the hard link counted each time it is met" {
	run -0 pagestat -J -l tree
	assert_equal "$(json_field '.total.files')" 6
	assert_equal "$(json_field '.total.size')" $(((8 + 6 + 5 + 10 + 8) * PAGE))
	assert_equal "$(json_field '.total.pages')" 37
	assert_equal "$(json_field '.total.cached')" $((16 + 8))
	assert_equal "$(json_field '.total.dirty')" 5
	run -0 pagestat -J --count-links tree
	assert_equal "$(json_field '.total.cached')" 24
}

@test "-a -J: the document's keys, page size and every row's counters" {
	run -0 pagestat -a -J tree
	printf '%s\n' "$output" >doc.json
	assert_equal "$(json_field 'keys_unsorted | join(",")')" version,schema,page_size,method,range,rows,total,errors
	assert_equal "$(json_field .page_size)" "$PAGE"
	assert_equal "$(json_field '.range | tojson')" '{"offset":0,"length":null}'
	assert_equal "$(json_field .errors)" 0
	assert_equal "$(json_field '.method | type')" string
	local version
	version=$(pagestat -V | head -n 1)
	assert_equal "pagestat $(json_field .version)" "$version"
	# five files (the hard link once) and the directory, last
	assert_equal "$(json_field '.rows | length')" 6
	assert_equal "$(json_field '.rows[-1].path')" tree
	assert_equal "$(json_rows doc.json)" "$(expected_rows)"
}

@test "-a -J: percent is null for the empty file and 30 for pages 2..4 of 10" {
	run -0 pagestat -a -J tree
	assert_equal "$(json_field '.rows[] | select(.path == "tree/empty") | .percent')" null
	assert_equal "$(json_field '.rows[] | select(.path == "tree/part") | .percent')" 30
	assert_equal "$(json_field '.rows[] | select(.path == "tree/gone") | .percent')" 0
	# a JSON number, not a string
	assert_equal "$(json_field '.rows[] | select(.path == "tree/part") | .percent | type')" number
	assert_equal "$(json_field '[.rows[] | select(.path == "tree/empty")][0] | has("percent")')" true
	# written with its one decimal
	assert_line --partial '"path":"tree/part",'
	assert_line --regexp '"path":"tree/part",.*"percent":30\.0,'
	assert_line --regexp '"path":"tree/empty",.*"percent":null,'
}

@test "-o path,cached -J: rows have exactly path, cached and cached_bytes" {
	run -0 pagestat -a -J -o path,cached tree
	assert_equal "$(json_field '[.rows[] | keys_unsorted | join(",")] | unique | join(" ")')" \
		path,cached,cached_bytes
	assert_equal "$(json_field '.rows | length')" 6
	assert_equal "$(json_field '.rows[] | select(.path == "tree/part") | .cached_bytes')" $((3 * PAGE))
	# the total says what it is, path or not
	assert_equal "$(json_field '.total | keys_unsorted | join(",")')" type,cached,cached_bytes
	assert_equal "$(json_field '.total.type')" total
	assert_equal "$(json_field '.total.cached')" 16
}

# ---- ndjson -----------------------------------------------------------

@test "-a --format=ndjson: every line a JSON object alone, the total last" {
	run -0 pagestat -a --format=ndjson tree
	assert_equal "${#lines[@]}" 7
	local line
	for line in "${lines[@]}"; do
		jq -e 'type == "object"' <<<"$line" >/dev/null || fail "not a JSON object alone: $line"
	done
	assert_equal "$(jq -r .type <<<"${lines[6]}")" total
	assert_equal "$(jq -r .files <<<"${lines[6]}")" 5
	assert_equal "$(jq -r .cached <<<"${lines[6]}")" 16
	printf '%s\n' "${lines[@]:0:6}" | jq -s '{rows: .}' >rows.json
	assert_equal "$(json_rows rows.json)" "$(expected_rows)"
}

@test "ndjson rows are the JSON document's rows, one per line" {
	run -0 pagestat -a -J tree
	local doc=$output
	run -0 pagestat -a --format=ndjson tree
	# both through jq -c, which may print 30.0 as 30
	assert_equal "$(printf '%s\n' "${lines[@]:0:6}" | jq -c .)" "$(jq -c '.rows[]' <<<"$doc")"
	assert_equal "$(jq -c . <<<"${lines[6]}")" "$(jq -c .total <<<"$doc")"
}

# ---- CSV --------------------------------------------------------------

@test "-a --csv: the header names every column and its _bytes twin" {
	run -0 pagestat -a --csv tree
	printf '%s\n' "$output" >out.csv
	run -0 csv_rows out.csv
	assert_line -n 0 path,type,size,pages,cached,cached_bytes,percent,dirty,dirty_bytes,writeback,writeback_bytes,evicted,evicted_bytes,recently_evicted,recently_evicted_bytes,files,backing
}

@test "-a --csv: one row per file (the hard link once), every value exact" {
	run -0 pagestat -a --csv tree
	printf '%s\n' "$output" >out.csv
	# header + 5 files + the directory
	assert_equal "${#lines[@]}" 7
	run -0 csv_rows out.csv
	assert_equal "$(sed -n '2,7p' <<<"$output")" "$(expected_rows)"
	# post-order: the directory's row comes after its files
	assert_line -n 7 "last: tree"
}

@test "--csv -l -c: the hard link has its own row and the total row counts it" {
	run -0 pagestat -a -l -c --csv -o path,type,cached,files tree
	# header, 6 files, the directory, the total
	assert_equal "${#lines[@]}" 9
	assert_line "tree/link,file,8,$((8 * PAGE)),1"
	assert_line "tree/full,file,8,$((8 * PAGE)),1"
	assert_line -n 8 "total,total,24,$((24 * PAGE)),6"
}

# ---- table ------------------------------------------------------------

@test "table: the default columns, in order" {
	run -0 pagestat tree
	assert_equal "${#lines[@]}" 2
	read -ra header <<<"${lines[0]}"
	assert_equal "${header[*]}" "SIZE CACHED PERCENT DIRTY WRITEBACK EVICTED FILES PATH"
	run -0 pagestat -b tree
	read -ra cells <<<"${lines[1]}"
	assert_equal "${cells[*]}" "$((29 * PAGE)) $((16 * PAGE)) 55.1% $((5 * PAGE)) 0 0 5 tree"
	# what comes before PATH fits 56 columns, so a short path fits 80
	run -0 pagestat tree
	local before=${lines[0]%PATH}
	((${#before} <= 56)) || fail "${#before} columns before PATH: ${lines[0]}"
	# recently_evicted is one -o +recently_evicted away
	run -0 pagestat -o +recently_evicted tree
	read -ra header <<<"${lines[0]}"
	assert_equal "${header[*]}" "SIZE CACHED PERCENT DIRTY WRITEBACK EVICTED FILES RECENTLY_EVICTED PATH"
}

@test "table -a -b: every file's row exact, numbers right-aligned, PATH in one column" {
	run -0 pagestat -a -b tree
	assert_equal "${#lines[@]}" 7
	assert_line --regexp "^ *$((10 * PAGE)) +$((3 * PAGE)) +30\.0% +0 +0 +0 +1 tree/part\$"
	assert_line --regexp "^ *0 +0 +- +0 +0 +0 +1 tree/empty\$"
	assert_line --regexp "^ *$((5 * PAGE)) +$((5 * PAGE)) +100\.0% +$((5 * PAGE)) +0 +0 +1 tree/dirty\$"
	assert_line --regexp "^ *$((6 * PAGE)) +0 +0\.0% +0 +0 +0 +1 tree/gone\$"
	# every line as long as the header up to PATH, which starts at one place
	local prefix=${lines[0]%PATH} line
	for line in "${lines[@]:1}"; do
		[[ ${line:${#prefix}} == tree* ]] || fail "PATH not at column ${#prefix}: '$line'"
		[[ ${line:${#prefix}-1:1} == " " ]] || fail "no space before PATH: '$line'"
	done
}

# Every line of the output from line FIRST on has its PATH (the last
# field, without spaces here) at column COL (from 0), except each NAME
# given as NAME=BY, whose PATH is BY columns further right.
# usage: assert_path_at FIRST COL [NAME=BY]...
assert_path_at() {
	local first=$1 col=$2 line before name by
	shift 2
	local -A later=()
	for name in "$@"; do
		later[${name%=*}]=${name#*=}
	done
	for line in "${lines[@]:first}"; do
		before=${line% *} name=${line##* }
		by=${later[$name]:-0}
		((${#before} + 1 == col + by)) ||
			fail "PATH of '$name' not at column $((col + by)): '$line'"
	done
}

@test "table past 1000 rows: a wider value later shifts its own line only" {
	# 1100 empty files, then their directory (1100 files), a file wider
	# in bytes than any before and one more: rows past the 1000 held to
	# measure the columns
	pcarrange tree many 1 1100 0
	truncate -s 123456789 wide
	: >after
	run -0 pagestat -a -b -o size,files,path many wide after
	assert_equal "${#lines[@]}" 1104
	assert_equal "${lines[0]}" "SIZE FILES PATH"
	assert_path_at 1 11 wide=5
	# without the header the held rows are one digit wide
	run -0 pagestat -n -a -b -o size,files,path many wide after
	assert_equal "${#lines[@]}" 1103
	assert_line -n 1100 "0 1100 many"
	assert_line -n 1102 "0 1 after"
	assert_path_at 0 4 many=3 wide=8
}

@test "table: human sizes of every class keep PATH in place, past 1000 rows too" {
	pcarrange tree many 1 1100 0
	local bytes names=()
	for bytes in 0 512 1023 1024 1025 10137 10138 1022977 1047552 1047553 10485761; do
		pcarrange write "s$bytes" "$bytes"
		names+=("s$bytes")
	done
	# sparse: G and T without the disk space
	truncate -s 1536M g
	truncate -s 1023G g1023
	truncate -s 3T t
	run -0 pagestat -a -o size,cached,percent,dirty,path many "${names[@]}" g g1023 t
	assert_equal "${lines[0]}" " SIZE CACHED PERCENT DIRTY PATH"
	assert_path_at 1 27
	assert_line --regexp '^ 9\.9K .* s10137$'
	assert_line --regexp '^1000K .* s1022977$'
	assert_line --regexp '^1023G .* g1023$'
	# five characters wide with or without a header
	run -0 pagestat -n -o size,path s0 s1025 s10138 s1022977 s1047553 g t
	assert_output "$(printf '%s\n' '   0B s0' ' 1.1K s1025' '  10K s10138' '1000K s1022977' \
		' 1.0M s1047553' ' 1.5G g' ' 3.0T t')"
}

@test "table -b and -p: those columns as wide as the rows held need, not fixed" {
	: >e
	pcarrange write s 1
	truncate -s 123456789 wide
	run -0 pagestat -n -b -o size,path e s wide
	assert_output "$(printf '%s\n' '        0 e' '        1 s' '123456789 wide')"
	run -0 pagestat -n -b -o size,path e s
	assert_output "$(printf '%s\n' '0 e' '1 s')"
	make_cached c1 1
	make_cached c100 100
	run -0 pagestat -n -p -o cached,path c1 c100
	assert_output "$(printf '%s\n' '  1 c1' '100 c100')"
	run -0 pagestat -n -p -o cached,path c1
	assert_output "1 c1"
}

@test "table -c: a last row whose PATH is total" {
	run -0 pagestat -c -b -p tree/part tree/full tree/dirty
	assert_equal "${#lines[@]}" 5
	read -ra cells <<<"${lines[4]}"
	assert_equal "${cells[*]}" "$((23 * PAGE)) 16 69.5% 5 0 0 3 total"
	run -0 pagestat -c -a tree
	assert_equal "${#lines[@]}" 8
	assert_line -n 7 --regexp ' total$'
}

@test "table -n: no header line" {
	run -0 pagestat -n -a tree
	assert_equal "${#lines[@]}" 6
	refute_line --partial PATH
	refute_line --partial SIZE
	run -0 pagestat -n tree
	assert_equal "${#lines[@]}" 1
	assert_output --regexp ' tree$'
}

@test "table -o: columns in the order given" {
	run -0 pagestat -b -o path,files,cached tree
	assert_equal "${#lines[@]}" 2
	read -ra header <<<"${lines[0]}"
	assert_equal "${header[*]}" "PATH FILES CACHED"
	read -ra cells <<<"${lines[1]}"
	assert_equal "${cells[*]}" "tree 5 $((16 * PAGE))"
	run -0 pagestat -b -o cached,path,files tree
	read -ra cells <<<"${lines[1]}"
	assert_equal "${cells[*]}" "$((16 * PAGE)) tree 5"
}

@test "table -d 1: a row per subdirectory, each before its parent's" {
	mkdir -p d/s1/deep d/s2
	make_cached d/top 1
	make_cached d/s1/a 2
	make_cached d/s1/deep/b 3
	make_cached d/s2/c 4
	run -0 pagestat -d 1 -n -p -o cached,files,path d
	assert_equal "${#lines[@]}" 3
	assert_line -n 2 "10 4 d"
	assert_line " 5 2 d/s1"
	assert_line " 4 1 d/s2"
	refute_line --partial deep
	run -0 pagestat -d 2 -n -p -o cached,files,path d
	assert_equal "${#lines[@]}" 4
	assert_line -n 3 "10 4 d"
	# the deeper directory before its parent
	local deep=-1 s1=-1 i
	for i in "${!lines[@]}"; do
		[[ ${lines[i]} == *" d/s1/deep" ]] && deep=$i
		[[ ${lines[i]} == *" d/s1" ]] && s1=$i
	done
	((deep >= 0 && s1 > deep)) || fail "d/s1/deep (line $deep) not before d/s1 (line $s1)"
	assert_line --regexp '^ *3 +1 d/s1/deep$'
	# -d 0 is the operand alone
	run -0 pagestat -d 0 -n -p -o cached,path d
	assert_output "10 d"
}
