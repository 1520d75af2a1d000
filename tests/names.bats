#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Hostile file names: newlines, bytes that are not UTF-8, terminal escapes,
# tabs, quotes, commas, backslashes, leading dashes, 255-byte names.  No
# format may lose a byte, and the table and stderr must stay one line per
# row / message with nothing a terminal would act on.

load test_helper

# The newline and invalid-UTF-8 name the brief started from.
BAD=$'a\nb\xff\xfe.dat'
# ...as JSON shows it: each stray byte becomes U+FFFD.
BAD_REPAIRED=$'a\nb\xef\xbf\xbd\xef\xbf\xbd.dat'

# shellcheck disable=SC2054 # com,ma is one name
NAMES=(
	"$BAD"
	é
	日本
	$'e\e[31mred'
	$'t\tab'
	"q\"u'o,te"
	com,ma
	'back\slash'
	-name
	' sp '
	$'cr\r'
	$'del\x7f'
)

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# Directory n holding one cached page under each of NAMES.
make_hostile_dir() {
	local name
	mkdir n
	for name in "${NAMES[@]}"; do
		make_cached "n/$name" 1
	done
}

# Compares the exact bytes of the paths in OUTPUT (FORMAT csv or json,
# written by pagestat -a on DIR) with what is on disk: DIR itself and
# every entry in it.  Prints the differences, nothing when all match.
same_paths() {
	"$PYTHON3" - "$@" <<-'EOF'
		import base64, csv, json, os, sys
		fmt, out, top = sys.argv[1], sys.argv[2], os.fsencode(sys.argv[3])
		want = [top] + [top + b'/' + e for e in os.listdir(top)]
		if fmt == 'csv':
		    # binary-safe: stray bytes come back as surrogates
		    with open(out, newline='', encoding='utf-8', errors='surrogateescape') as f:
		        rows = list(csv.reader(f))
		    header, rows = rows[0], rows[1:]
		    for row in rows:
		        if len(row) != len(header):
		            print('row of', len(row), 'fields, not', len(header), ':', row)
		    got = [row[0].encode('utf-8', 'surrogateescape') for row in rows]
		else:
		    with open(out, encoding='utf-8') as f:
		        doc = json.load(f)
		    got = []
		    for row in doc['rows']:
		        exact = row['path'].encode('utf-8')
		        if 'path_base64' in row:
		            exact = base64.b64decode(row['path_base64'], validate=True)
		            if '\ufffd' not in row['path']:
		                print('path_base64 on a path with no U+FFFD:', row['path'])
		        got.append(exact)
		for p in sorted(set(want) - set(got)):
		    print('missing:', p)
		for p in sorted(set(got) - set(want)):
		    print('unexpected:', p)
		if len(got) != len(want):
		    print(len(got), 'rows for', len(want), 'paths')
	EOF
}

# Nothing but printable ASCII and newlines in $output.
assert_printable() {
	local rest
	rest=$(printf '%s' "$output" | LC_ALL=C tr -d '\n\040-\176' | od -An -c)
	[[ -z $rest ]] || fail "raw control or non-ASCII bytes in the output:$rest"
}

# ---- JSON -------------------------------------------------------------

@test "JSON: a newline and stray bytes in a name: jq parses it, U+FFFD in path" {
	mkdir n
	make_cached "n/$BAD" 1
	pagestat -a -J n >out.json
	jq -e . out.json >/dev/null
	run -0 jq -r '.rows[0].path' out.json
	assert_output "n/$BAD_REPAIRED"
	# the newline is an escape, never a raw line break inside the string
	run -0 grep -c -F '"path":"n/a\nb' out.json
	assert_output 1
	assert_equal "$(wc -l <out.json)" 4
}

@test "JSON: path_base64 decodes to the exact bytes of the path" {
	mkdir n
	make_cached "n/$BAD" 1
	pagestat -a -J n >out.json
	jq -r '.rows[0].path_base64' out.json | base64 -d >got
	printf '%s' "n/$BAD" >want
	cmp got want
	# the directory's own name is UTF-8: no path_base64 there
	assert_equal "$(jq -r '.rows[1] | [.path, has("path_base64")] | join(" ")' out.json)" "n false"
}

@test "JSON: valid UTF-8 names pass through unchanged, without path_base64" {
	mkdir n
	make_cached n/é 1
	make_cached n/日本 1
	make_cached n/😀 1
	pagestat -a -J n >out.json
	run -0 jq -r '.rows[] | select(.type == "file") | .path' out.json
	assert_equal "$(sort <<<"$output")" "$(printf '%s\n' n/é n/日本 n/😀 | sort)"
	run -0 jq '[.rows[] | select(has("path_base64"))] | length' out.json
	assert_output 0
	# raw UTF-8 in the document, not \u escapes
	run -0 grep -c -F -e '"path":"n/日本"' -e '"path":"n/é"' -e '"path":"n/😀"' out.json
	assert_output 3
}

@test "JSON: controls escaped (\\u001b, \\t, \\u007f, \\r), quotes and backslashes too" {
	make_hostile_dir
	pagestat -a -J n >out.json
	run -0 grep -c -F \
		-e '"path":"n/e\u001b[31mred"' -e '"path":"n/t\tab"' \
		-e '"path":"n/del\u007f"' -e '"path":"n/cr\r"' \
		-e '"path":"n/q\"u'"'"'o,te"' -e '"path":"n/back\\slash"' out.json
	assert_output 6
	# one row per line: no raw control character split a row
	assert_equal "$(wc -l <out.json)" $((${#NAMES[@]} + 1 + 2))
}

@test "JSON: every hostile name comes back byte for byte" {
	make_hostile_dir
	pagestat -a -J n >out.json
	run -0 same_paths json out.json n
	refute_output
	run -0 pagestat -a --format=ndjson n
	assert_equal "${#lines[@]}" $((${#NAMES[@]} + 2))
}

@test "JSON: a missing name with stray bytes keeps them in path_base64" {
	run -1 --separate-stderr pagestat -J $'gone\xff'
	assert_equal "$(json_field '.rows[0].errno')" ENOENT
	assert_equal "$(json_field '.rows[0].path')" $'gone\xef\xbf\xbd'
	json_field '.rows[0].path_base64' | base64 -d >got
	printf 'gone\xff' >want
	cmp got want
}

# ---- CSV --------------------------------------------------------------

@test "CSV: every hostile name comes back byte for byte through Python's csv" {
	make_hostile_dir
	pagestat -a --csv n >out.csv
	run -0 same_paths csv out.csv n
	refute_output
}

@test "CSV: fields with quotes, commas or line breaks are quoted (RFC 4180)" {
	make_hostile_dir
	run -0 pagestat -a --csv -n -o path,files n
	assert_line "\"n/q\"\"u'o,te\",1"
	assert_line '"n/com,ma",1'
	assert_line 'n/back\slash,1'
	assert_line $'n/t\tab,1'
	# the quoted newline spans two physical lines
	assert_line '"n/a'
	assert_line $'b\xff\xfe.dat",1'
}

@test "CSV: the newline and stray-byte name alone round-trips" {
	mkdir n
	make_cached "n/$BAD" 2
	pagestat -a --csv -o path,cached n >out.csv
	run -0 "$PYTHON3" -c '
import csv, sys
with open(sys.argv[1], newline="", encoding="utf-8", errors="surrogateescape") as f:
    for row in list(csv.reader(f))[1:]:
        sys.stdout.buffer.write(row[0].encode("utf-8", "surrogateescape") + b"|" + row[1].encode() + b"/")
' out.csv
	assert_output "n/$BAD|2/n|2/"
}

# ---- the table and stderr ---------------------------------------------

@test "table (C locale): one line per row, every unsafe byte escaped" {
	make_hostile_dir
	run -0 pagestat -a n
	assert_equal "${#lines[@]}" $((1 + ${#NAMES[@]} + 1))
	assert_printable
	assert_line --regexp ' n/a\\nb\\xff\\xfe\.dat$'
	assert_line --regexp ' n/e\\x1b\[31mred$'
	assert_line --regexp ' n/t\\tab$'
	assert_line --regexp ' n/cr\\r$'
	assert_line --regexp ' n/del\\x7f$'
	assert_line --regexp ' n/\\xc3\\xa9$'
	assert_line --regexp ' n/\\xe6\\x97\\xa5\\xe6\\x9c\\xac$'
	# a real backslash is doubled, so escapes are unambiguous
	assert_line --regexp ' n/back\\\\slash$'
	assert_line --regexp " n/q\"u'o,te\$"
}

@test "table (UTF-8 locale): UTF-8 names as they are, stray bytes and controls escaped" {
	locale -a | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale"
	make_hostile_dir
	make_cached n/$'rlo\xe2\x80\xaegpj.exe' 1 # U+202E
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a n
	assert_equal "${#lines[@]}" $((1 + ${#NAMES[@]} + 1 + 1))
	assert_line --regexp ' n/é$'
	assert_line --regexp ' n/日本$'
	assert_line --regexp ' n/a\\nb\\xff\\xfe\.dat$'
	assert_line --regexp ' n/e\\x1b\[31mred$'
	# a right-to-left override would show "exe.jpg": escaped
	assert_line --regexp ' n/rlo\\u\{202e\}gpj\.exe$'
	[[ $output != *$'\e'* ]] || fail "a raw ESC reached the table"
	[[ $output != *$'\xe2\x80\xae'* ]] || fail "a raw U+202E reached the table"
}

# Names of every display width: wide (CJK), a combining accent (e and
# U+0301), a zero-width space, a stray byte, and ASCII of more characters
# than the wide name but fewer columns (21 against 24).
WIDE=日本語のファイル名.bin
COMBINING=$'e\xcc\x81'
ZERO_WIDTH=$'a\xe2\x80\x8bb'
make_width_dir() {
	mkdir n
	make_cached "n/$WIDE" 1
	make_cached "n/$COMBINING" 1
	make_cached "n/$ZERO_WIDTH" 1
	make_cached n/$'bad\xff' 1
	make_cached n/ascii-18-chars-long 1
}

# aligned KINDS: $output is a table whose columns, one letter each in
# KINDS, are left- (L) or right-aligned (R) and hold no space.  Prints
# where a field starts (L) or ends (R) on another display column than
# on the header, counted with Python's Unicode tables (wide and
# full-width characters take two columns; combining and format
# characters none); nothing when every column lines up.
aligned() {
	"$PYTHON3" -c '
import sys, unicodedata
def width(text):
    return sum(0 if unicodedata.combining(c) or unicodedata.category(c) in ("Mn", "Me", "Cf")
               else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)
kinds, lines = sys.argv[1], sys.stdin.read().splitlines()
want = None
for line in lines:
    places, col, i = [], 0, 0
    while i < len(line):
        j = i
        while j < len(line) and line[j] != " ":
            j += 1
        if j > i:
            places.append((col, col + width(line[i:j])))
        col += width(line[i:j]) + (j < len(line))
        i = j + 1
    if len(places) != len(kinds):
        print("not", len(kinds), "fields:", line)
        continue
    at = [start if kind == "L" else end for kind, (start, end) in zip(kinds, places)]
    if want is None:
        want = at
    elif at != want:
        print("columns at", at, "not", want, ":", line)
' "$1" <<<"$output"
}

@test "table (UTF-8 locale): wide, combining, zero-width and stray-byte names keep every column in line" {
	locale -a | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale"
	make_width_dir
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a -o path,cached,percent n
	# the names as they are (but the stray byte), so widths matter
	assert_line --regexp "^n/$WIDE +4\.0K +100\.0%\$"
	assert_line --regexp "^n/$COMBINING +4\.0K"
	assert_line --regexp "^n/$ZERO_WIDTH +4\.0K"
	assert_line --regexp '^n/bad\\xff +4\.0K'
	run -0 aligned LRR
	refute_output
	# PATH before a column of numbers that are not all as wide
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a -b -o path,cached n
	run -0 aligned LR
	refute_output
	# PATH between two columns: what follows it starts in one place
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a -o cached,path,files n
	run -0 aligned RLR
	refute_output
	# the layout itself: the wide name is the widest, 2 + 9 * 2 + 4
	# columns, and the others are padded to it
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a -n -o path,files n
	assert_line "n/$WIDE 1"
	assert_line "n/$COMBINING$(printf '%22s' '')1"
	assert_line "n/$ZERO_WIDTH$(printf '%21s' '')1"
	assert_line "n/ascii-18-chars-long    1"
	assert_line "n$(printf '%24s' '')5"
}

@test "table (C locale): the same names, escaped, keep every column in line" {
	make_width_dir
	run -0 pagestat -a -o path,cached,percent n
	assert_printable
	assert_line --regexp '^n/\\xe6\\x97\\xa5.*\.bin +4\.0K +100\.0%$'
	assert_line --regexp '^n/e\\xcc\\x81 +4\.0K'
	run -0 aligned LRR
	refute_output
	run -0 pagestat -a -o cached,path,files n
	run -0 aligned RLR
	refute_output
}

@test "stderr: a missing name's newline and ESC are escaped in the message" {
	run -1 --separate-stderr pagestat $'miss\ning' $'x\e[1m'
	assert_equal "$stderr" "pagestat: cannot access 'miss\\ning': No such file or directory"$'\n'"pagestat: cannot access 'x\\x1b[1m': No such file or directory"
}

@test "stderr: a bad option value with control bytes is escaped in the usage message" {
	run -2 --separate-stderr pagestat -d $'\e[31m1' .
	[[ $stderr != *$'\e'* ]] || fail "raw ESC in: $stderr"
	assert_stderr_has '\x1b[31m1'
	run -2 --separate-stderr pagestat -o $'size\npath' .
	assert_equal "$(wc -l <<<"$stderr")" 2
}

# ---- leading dashes, "-", long names -------------------------------------

@test "a name with a leading dash: after -- or as ./-name; alone it is an option" {
	make_cached -name 2
	run -0 pagestat -n -p -o cached,path -- -name
	assert_output "2 -name"
	run -0 pagestat -n -p -o cached,path ./-name
	assert_output "2 ./-name"
	run -2 --separate-stderr pagestat -name
	refute_output
}

@test "a file named - is a file, not stdin" {
	make_cached ./- 3
	run -0 pagestat -n -p -o cached,path - </dev/null
	assert_output "3 -"
	run -0 pagestat -J -
	assert_equal "$(json_field '.rows[0].path')" -
}

@test "a 255-byte name, ASCII or UTF-8, in every format" {
	local ascii utf8
	ascii=$(printf 'x%.0s' {1..255})
	utf8=$(printf '日%.0s' {1..85})
	assert_equal "$(printf '%s' "$utf8" | wc -c)" 255
	mkdir n
	make_cached "n/$ascii" 1
	make_cached "n/$utf8" 1
	pagestat -a -J n >out.json
	run -0 same_paths json out.json n
	refute_output
	run -0 jq '[.rows[] | select(has("path_base64"))] | length' out.json
	assert_output 0
	pagestat -a --csv n >out.csv
	run -0 same_paths csv out.csv n
	refute_output
	run -0 pagestat -a -n -o path n
	assert_line "n/$ascii"
	assert_line "n/$(printf '\\xe6\\x97\\xa5%.0s' {1..85})"
	run -0 env LC_ALL=C.UTF-8 "$PAGESTAT" -a -n -o path n
	assert_line "n/$utf8"
}

@test "a 256-byte name: File name too long, exit 1" {
	local long
	long=$(printf 'y%.0s' {1..256})
	run -1 --separate-stderr pagestat "$long"
	assert_stderr_has "File name too long"
	run -1 --separate-stderr pagestat -J "$long"
	assert_equal "$(json_field '.rows[0].errno')" ENAMETOOLONG
}

# ---- issue 31, item 12: what a failure row of a device says ---------------
@test "issue 31 item 12: a character device operand's failure row has an errno name (ENODEV), its type null (no row type is a device's)" {
	run -1 --separate-stderr pagestat -J /dev/null
	assert_row /dev/null type=null errno=ENODEV error="a character device, not a regular file"
	run -1 --separate-stderr pagestat --format=ndjson /dev/null
	assert_equal "$(jq -c '[.type, .errno]' <<<"${lines[0]}")" '[null,"ENODEV"]'
}
