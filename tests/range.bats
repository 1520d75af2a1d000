#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --offset and --length, -S/--segments and -e/--extents: exact figures for
# ranges, parts and extents of files arranged on the running kernel, in
# JSON, CSV and the table; a 2 TiB sparse file; a block device; mincore
# against cachestat; every bad value.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

teardown() {
	remove_loop_device
}

MIB=1048576
# pages in a MiB, whatever the page size
MP=$((MIB / PAGE))

# ---- helpers -------------------------------------------------------------

# FILE of 3 MiB whose middle MiB alone is cached.
make_middle() {
	make_pattern "$1" $((3 * MP)) "$MP" "$MP"
}

# FILE of 90 pages in 9 parts of 10, cached 0, 10, 1, 2, 3, 5, 6, 8 and 9
# pages: with -S 9 every kind of table cell.
make_bar() {
	make_pattern "$1" 90 10 10 20 1 30 2 40 3 50 5 60 6 70 8 80 9
}

# FILE of 400 pages in 100 blocks of 4; block i has 1 + i % 3 pages cached
# from its second page on: 100 cached extents of varied lengths, and 101
# missing ones around them.
make_alternating() {
	local i pairs=()
	for ((i = 0; i < 100; i++)); do
		pairs+=($((4 * i + 1)) $((1 + i % 3)))
	done
	make_pattern "$1" 400 "${pairs[@]}"
}

# The extents make_alternating leaves cached (WHICH=cached) or missing,
# as START-END in bytes.
alternating_extents() {
	local which=$1 i start len out=()
	[[ $which == missing ]] && out+=("0-$PAGE")
	for ((i = 0; i < 100; i++)); do
		start=$((4 * i + 1)) len=$((1 + i % 3))
		if [[ $which == cached ]]; then
			out+=("$((start * PAGE))-$(((start + len) * PAGE))")
		elif ((i < 99)); then
			out+=("$(((start + len) * PAGE))-$(((4 * i + 5) * PAGE))")
		else
			out+=("$(((start + len) * PAGE))-$((400 * PAGE))")
		fi
	done
	echo "${out[*]}"
}

# The segments of row PATH in the JSON document in $output, each as
# OFFSET+LENGTH:CACHED/PAGES.
segments_of() {
	jq -r --arg p "$1" '.rows[] | select(.path == $p) | .segments
		| map("\(.offset)+\(.length):\(.cached)/\(.pages)") | join(" ")' <<<"$output"
}

# The percent of each segment of row PATH.
segment_percents_of() {
	jq -r --arg p "$1" '.rows[] | select(.path == $p) | .segments
		| map(.percent | tostring) | join(" ")' <<<"$output"
}

# The extents of row PATH in the JSON document in $output, as START-END.
extents_of() {
	jq -r --arg p "$1" '.rows[] | select(.path == $p) | .extents
		| map("\(.offset)-\(.offset + .length)") | join(" ")' <<<"$output"
}

# The "range" member of the JSON document in $output as printed: jq would
# round the offsets above 2^53 that these tests give.
range_json() {
	local re='"range":\{[^}]*\}'
	[[ $output =~ $re ]] || fail "no range member in: $output"
	echo "${BASH_REMATCH[0]}"
}

# Column NAME of the CSV in $output, one line per data row (the fields
# tested here hold no commas or quotes).
csv_column() {
	awk -F, -v name="$1" '
		NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i; if (!col) exit 1; next }
		{ print $col }' <<<"$output"
}

# pagestat under LC_ALL=LOCALE, the cache state restored first.
# usage: pagestat_in LOCALE ARG...
pagestat_in() {
	local locale=$1
	shift
	rearrange && LC_ALL=$locale "$PAGESTAT" "$@"
}

require_utf8_locale() {
	locale -a | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale"
}

# pagestat ARG... is a usage error: exit 2, stdout empty, MESSAGE (which
# names the option and the value) on stderr.
# usage: assert_usage_error MESSAGE ARG...
assert_usage_error() {
	local message=$1
	shift
	run -2 --separate-stderr pagestat "$@"
	assert_equal "stdout of pagestat $*: $output" "stdout of pagestat $*: "
	assert_stderr_has "$message"
}

# ---- --offset and --length -----------------------------------------------

@test "--offset 1M --length 1M: the middle MiB alone, all of it cached (100 %)" {
	make_middle mid
	run -0 --separate-stderr pagestat -J --offset 1M --length 1M mid
	assert_row mid type=file files=1 size=$MIB pages=$MP cached=$MP cached_bytes=$MIB percent=100
	assert_total size=$MIB pages=$MP cached=$MP percent=100
	assert_equal "$(range_json)" '"range":{"offset":1048576,"length":1048576}'
	assert_equal "$stderr" ""

	run -0 --separate-stderr pagestat --csv -n -o size,pages,cached,percent --offset=1M --length=1M mid
	assert_output "$MIB,$MP,$MP,$MIB,100.0"
}

@test "--length 1M: the first MiB, 0 %; --offset 1M and --offset 512K --length 1M: half" {
	make_middle mid
	run -0 --separate-stderr pagestat -J --length 1M mid
	assert_row mid size=$MIB pages=$MP cached=0 percent=0
	assert_equal "$(range_json)" '"range":{"offset":0,"length":1048576}'

	# the last MiB: to the end of the file without --length
	run -0 --separate-stderr pagestat -J --offset 2M mid
	assert_row mid size=$MIB pages=$MP cached=0 percent=0
	assert_equal "$(range_json)" '"range":{"offset":2097152,"length":null}'

	run -0 --separate-stderr pagestat -J --offset 1M mid
	assert_row mid size=$((2 * MIB)) pages=$((2 * MP)) cached=$MP percent=50

	run -0 --separate-stderr pagestat -J --offset 512K --length 1M mid
	assert_row mid size=$MIB pages=$MP cached=$((MP / 2)) percent=50
}

@test "no --offset or --length, or --length 0: the whole file, range {0, null}, no segments or extents" {
	make_middle mid
	for args in "" "--length 0" "--offset 0 --length 0"; do
		run -0 --separate-stderr pagestat -J $args mid
		assert_row mid size=$((3 * MIB)) pages=$((3 * MP)) cached=$MP percent=33.3
		assert_equal "$(range_json)" '"range":{"offset":0,"length":null}'
		assert_equal "$(json_field '[has("segments", "extents"), (.rows[0], .total | has("segments", "extents"))] | any')" false
	done
}

@test "SIZE: K M G T P E (either case) alone or with iB are powers of 1024; with B, of 1000" {
	make_middle mid
	local pair value want
	for pair in 0=0 7=7 00012=12 1K=1024 1k=1024 1KiB=1024 1kiB=1024 1KB=1000 1kB=1000 \
		2M=2097152 3MiB=3145728 1m=1048576 1MB=1000000 \
		1G=1073741824 1GiB=1073741824 1GB=1000000000 \
		1T=1099511627776 1TB=1000000000000 1P=1125899906842624 1PB=1000000000000000 \
		1E=1152921504606846976 1EiB=1152921504606846976 1EB=1000000000000000000 \
		15E=17293822569102704640 18446744073709551615=18446744073709551615; do
		value=${pair%%=*} want=${pair#*=}
		run -0 --separate-stderr pagestat -J --offset "$value" mid
		assert_equal "--offset $value: $(range_json)" "--offset $value: \"range\":{\"offset\":$want,\"length\":null}"
		run -0 --separate-stderr pagestat -J --length "$value" mid
		[[ $want == 0 ]] && want=null
		assert_equal "--length $value: $(range_json)" "--length $value: \"range\":{\"offset\":0,\"length\":$want}"
	done
}

@test "an offset inside a page: size, pages, segments and extents are clipped to the bytes asked" {
	make_middle mid
	# bytes 1000..2 MiB+1000: pages 0..2*MP, the last one barely touched
	run -0 --separate-stderr pagestat -J --offset 1000 --length 2M -S 2 -e mid
	assert_row mid size=$((2 * MIB)) pages=$((2 * MP + 1)) cached=$MP
	assert_equal "$(segments_of mid)" \
		"1000+$((MIB - 1000)):0/$MP $MIB+$((MIB + 1000)):$MP/$((MP + 1))"
	assert_equal "$(extents_of mid)" "1048576-2097152"

	run -0 --separate-stderr pagestat -J --offset 1000 --length 2M --extents=missing mid
	assert_equal "$(extents_of mid)" "1000-1048576 2097152-2098152"
}

@test "an offset at or past the end of the file: an empty range, percent null, exit 0" {
	make_middle mid
	for offset in 3M 4M 1E 18446744073709551615; do
		run -0 --separate-stderr pagestat -J --offset "$offset" -S 3 -e mid
		assert_row mid type=file files=1 size=0 pages=0 cached=0 cached_bytes=0 percent=null
		assert_total files=1 size=0 pages=0 cached=0 percent=null
		assert_equal "$(json_field '.rows[0].segments | map([.length, .pages, .cached, .percent])')" \
			"$(jq -n '[[0, 0, 0, null], [0, 0, 0, null], [0, 0, 0, null]]')"
		assert_equal "$(json_field '.rows[0].extents')" "[]"
		assert_equal "$(json_field .errors)" 0
		assert_equal "$stderr" ""
	done

	run -0 --separate-stderr pagestat --csv -n -o size,pages,cached,percent,segments,extents -S 3 -e --offset 4M mid
	assert_output "0,0,0,0,,0/0 0/0 0/0,"

	# the file's whole range missing is also empty
	run -0 --separate-stderr pagestat -J --offset 4M --extents=missing mid
	assert_equal "$(json_field '.rows[0].extents')" "[]"
}

@test "offset plus length may reach 2^64 exactly; one byte more is a usage error" {
	make_middle mid
	run -0 --separate-stderr pagestat -J --offset 8E --length 8E mid
	assert_equal "$(range_json)" '"range":{"offset":9223372036854775808,"length":9223372036854775808}'
	assert_row mid size=0 pages=0 cached=0

	run -0 --separate-stderr pagestat -J --offset 18446744073709551615 --length 1 mid
	assert_equal "$(range_json)" '"range":{"offset":18446744073709551615,"length":1}'

	# a range from 0 of 2^64 - 1 bytes is the whole file
	run -0 --separate-stderr pagestat -J --length 18446744073709551615 mid
	assert_row mid size=$((3 * MIB)) cached=$MP

	assert_usage_error "pagestat: --offset '8E' plus --length '9E' passes 2^64 bytes" \
		-J --offset 8E --length 9E mid
	assert_usage_error "pagestat: --offset '18446744073709551615' plus --length '2' passes 2^64 bytes" \
		-J --offset 18446744073709551615 --length 2 mid
	# whatever the order of the options
	run -0 --separate-stderr pagestat -J --length 18446744073709551615 --offset 1 mid
	assert_equal "$(range_json)" '"range":{"offset":1,"length":18446744073709551615}'
	assert_usage_error "pagestat: --offset '2' plus --length '18446744073709551615' passes 2^64 bytes" \
		-J --length 18446744073709551615 --offset 2 mid
}

@test "several files and a directory: the range is clipped to each file's own size" {
	mkdir dir
	make_middle dir/mid
	make_cached dir/small "$MP"
	# bytes 512K..1.5M: half of mid's range is cached; small has 512K of it
	run -0 --separate-stderr pagestat -J --offset 512K --length 1M dir/mid dir/small
	assert_row dir/mid size=$MIB pages=$MP cached=$((MP / 2)) percent=50
	assert_row dir/small size=$((MIB / 2)) pages=$((MP / 2)) cached=$((MP / 2)) percent=100
	assert_total files=2 size=$((3 * MIB / 2)) pages=$((3 * MP / 2)) cached=$MP

	run -0 --separate-stderr pagestat -J -a --offset 1M dir
	assert_row dir/mid size=$((2 * MIB)) cached=$MP
	assert_row dir/small size=0 pages=0 cached=0 percent=null
	assert_row dir type=directory files=2 size=$((2 * MIB)) pages=$((2 * MP)) cached=$MP percent=50
}

@test "--offset and --length: bad values exit 2, name the option and the value, print nothing" {
	make_middle mid
	local opt value
	for opt in --offset --length; do
		for value in -1 -0 '' 1.5M 1X ' 1' '1 ' '1 K' 0x10 +1 1e3 1KiBB 1KBB 1Bb 1iB 1Ki K iB B \
			16E 16EiB 18446744073709551616 99999999999999999999; do
			assert_usage_error "pagestat: invalid value for $opt: '$value' (expected a size in bytes such as 4096, 64K, 1MiB or 10GB, below 2^64)" \
				-J "$opt=$value" mid
		done
		# as a separate argument too
		assert_usage_error "pagestat: invalid value for $opt: '1X'" -J "$opt" 1X mid
		# no value at all
		assert_usage_error "option '$opt' requires an argument" -J "$opt"
	done
}

@test "SIZE suffixes in any case: 1kib, 1KIB and 1K are 1024 bytes, 1kb 1000, 512b and 512B 512" {
	make_middle mid
	local value want
	for value in 1kib:1024 1KIB:1024 1K:1024 1k:1024 1KiB:1024 1kb:1000 1KB:1000 1Kb:1000 \
		512b:512 512B:512 512:512 2mib:$((2 * MIB)) 1gB:1000000000; do
		want=${value#*:}
		run -0 --separate-stderr pagestat -J --length="${value%:*}" mid
		assert_equal "--length=${value%:*}: $(json_field '.range.length')" "--length=${value%:*}: $want"
	done
}

# ---- -S, --segments ------------------------------------------------------

@test "-S 3 on the 3 MiB file: nothing, all, nothing" {
	make_middle mid
	for opt in "-S 3" -S3 --segments=3 "--segments 3"; do
		run -0 --separate-stderr pagestat -J $opt mid
		assert_equal "$opt: $(segments_of mid)" \
			"$opt: 0+$MIB:0/$MP $MIB+$MIB:$MP/$MP $((2 * MIB))+$MIB:0/$MP"
		assert_equal "$(segment_percents_of mid)" "0 100 0"
		assert_equal "$(json_field .segments)" 3
		assert_equal "$(json_field .total.segments)" null
		assert_row mid cached=$MP
	done
}

@test "-S 3 in CSV (CACHED/PAGES per part) and in the table, ASCII and UTF-8" {
	make_middle mid
	run -0 --separate-stderr pagestat --csv -S 3 mid
	assert_equal "$(csv_column segments)" "0/$MP $MP/$MP 0/$MP"

	run -0 --separate-stderr pagestat_in C -n -o segments,path -S 3 mid
	assert_output ".#. mid"

	require_utf8_locale
	run -0 --separate-stderr pagestat_in C.UTF-8 -n -o segments,path -S 3 mid
	assert_output "·█· mid"
}

@test "-S: part i holds pages [P*i/N, P*(i+1)/N); parts may be empty" {
	make_pattern ten 10 3 4
	# 10 pages in 4: 2, 3, 2 and 3 pages; pages 3..6 cached
	run -0 --separate-stderr pagestat -J -S 4 ten
	assert_equal "$(segments_of ten)" \
		"0+$((2 * PAGE)):0/2 $((2 * PAGE))+$((3 * PAGE)):2/3 $((5 * PAGE))+$((2 * PAGE)):2/2 $((7 * PAGE))+$((3 * PAGE)):0/3"

	# 2 pages in 4: parts 0 and 2 are empty, their percent null
	make_pattern two 2 0 1
	run -0 --separate-stderr pagestat -J -S 4 two
	assert_equal "$(segments_of two)" "0+0:0/0 0+$PAGE:1/1 $PAGE+0:0/0 $PAGE+$PAGE:0/1"
	assert_equal "$(segment_percents_of two)" "null 100 null 0"

	: >empty
	run -0 --separate-stderr pagestat -J -S 2 empty
	assert_equal "$(segments_of empty)" "0+0:0/0 0+0:0/0"
}

@test "-S 1 is the whole range; -S 4096 counts every page once" {
	make_middle mid
	run -0 --separate-stderr pagestat -J -S 1 mid
	assert_equal "$(segments_of mid)" "0+$((3 * MIB)):$MP/$((3 * MP))"

	run -0 --separate-stderr pagestat -J -S 4096 mid
	assert_equal "$(json_field '.rows[0].segments | length')" 4096
	assert_equal "$(json_field '.rows[0].segments | [(map(.pages) | add), (map(.cached) | add), (map(.length) | add)] | join(" ")')" \
		"$((3 * MP)) $MP $((3 * MIB))"
	local nonempty=$((3 * MP < 4096 ? 3 * MP : 4096))
	assert_equal "$(json_field '[.rows[0].segments[] | select(.pages > 0)] | length')" "$nonempty"
}

@test "the table bar in LC_ALL=C: '.' none, '#' all, the tenths digit, a space for no pages" {
	make_bar bar
	run -0 --separate-stderr pagestat --csv -n -o segments -S 9 bar
	assert_output "0/10 10/10 1/10 2/10 3/10 5/10 6/10 8/10 9/10"
	run -0 --separate-stderr pagestat_in C -n -o segments,path -S 9 bar
	assert_output ".#1235689 bar"

	# 1 of 20 is a '0', not a '.'; 19 of 20 a '9', not a '#'
	make_pattern edge 40 0 1 20 19
	run -0 --separate-stderr pagestat_in C -n -o segments,path -S 2 edge
	assert_output "09 edge"

	make_pattern two 2 0 1
	run -0 --separate-stderr pagestat_in C -n -o segments,path -S 4 two
	assert_output " # . two"

	# the default columns: the bar just before PATH, the header above it
	run -0 --separate-stderr pagestat_in C -S 9 bar
	assert_line -n 0 --regexp ' FILES SEGMENTS +PATH$'
	assert_line -n 1 --regexp ' 1 \.#1235689 +bar$'
}

@test "the table bar in C.UTF-8: '·' none, '█' all, eighths ▁..▇, a space for no pages" {
	require_utf8_locale
	make_bar bar
	run -0 --separate-stderr pagestat_in C.UTF-8 -n -o segments,path -S 9 bar
	assert_output "·█▁▂▃▄▅▆▇ bar"

	make_pattern edge 40 0 1 20 19
	run -0 --separate-stderr pagestat_in C.UTF-8 -n -o segments,path -S 2 edge
	assert_output "▁▇ edge"

	make_pattern two 2 0 1
	run -0 --separate-stderr pagestat_in C.UTF-8 -n -o segments,path -S 4 two
	assert_output " █ · two"
}

@test "-S and -e with -a: file rows only; directory rows and the total: null, empty or '-'" {
	mkdir dir
	make_middle dir/mid
	run -0 --separate-stderr pagestat -J -a -S 2 -e dir
	assert_equal "$(segments_of dir/mid)" \
		"0+$((3 * MIB / 2)):$((MP / 2))/$((3 * MP / 2)) $((3 * MIB / 2))+$((3 * MIB / 2)):$((MP / 2))/$((3 * MP / 2))"
	assert_equal "$(extents_of dir/mid)" "1048576-2097152"
	assert_row dir type=directory segments=null extents=null
	assert_equal "$(json_field '.total | [.segments, .extents] | tostring')" "[null,null]"

	run -0 --separate-stderr pagestat --csv -a -c -S 2 -e dir
	assert_equal "$(csv_column path | tr '\n' ' ')" "dir/mid dir total "
	# empty for the directory and the total
	assert_equal "$(csv_column segments | tr '\n' '|')" "$((MP / 2))/$((3 * MP / 2)) $((MP / 2))/$((3 * MP / 2))|||"
	assert_equal "$(csv_column extents | tr '\n' '|')" "1048576-2097152|||"

	run -0 --separate-stderr pagestat_in C -a -c -p -o cached,segments,extents,path -S 2 -e dir
	assert_line -n 1 --regexp "^ *$MP +33 +1048576-2097152 +dir/mid\$"
	# '-', not blank, so that splitting a line on blanks keeps its fields
	assert_line -n 2 --regexp "^ *$MP +- +- +dir\$"
	assert_line -n 3 --regexp "^ *$MP +- +- +total\$"
}

@test "-S: bad values exit 2, name the option and the value, print nothing" {
	make_middle mid
	local value
	for value in 0 4097 -1 x '' ' 1' '1 ' 1x +1 1.5 0x10 99999999999999999999; do
		assert_usage_error "pagestat: invalid value for --segments: '$value' (expected a whole number from 1 to 4096)" \
			-J "--segments=$value" mid
		assert_usage_error "pagestat: invalid value for --segments: '$value'" -J -S "$value" mid
	done
	assert_usage_error "option requires an argument -- 'S'" -J -S
}

# ---- -e, --extents -------------------------------------------------------

@test "-e on the 3 MiB file: exactly one extent, 1048576-2097152, in JSON, CSV and the table" {
	make_middle mid
	for opt in -e --extents --extents=cached -ecached; do
		run -0 --separate-stderr pagestat -J $opt mid
		assert_equal "$opt: $(json_field '.rows[0].extents | tostring')" \
			"$opt: [{\"offset\":1048576,\"length\":1048576}]"
		assert_equal "$(json_field .extents)" cached
		assert_equal "$(json_field .total.extents)" null
		assert_row mid cached=$MP
	done

	run -0 --separate-stderr pagestat --csv -e mid
	assert_equal "$(csv_column extents)" "1048576-2097152"

	run -0 --separate-stderr pagestat_in C -o extents,path -e mid
	assert_line -n 0 --regexp '^EXTENTS +PATH$'
	assert_line -n 1 "1048576-2097152 mid"
}

@test "--extents=missing and -emissing: the first and the last MiB; the table says MISSING" {
	make_middle mid
	for opt in --extents=missing -emissing; do
		run -0 --separate-stderr pagestat -J $opt mid
		assert_equal "$opt: $(extents_of mid)" "$opt: 0-1048576 2097152-3145728"
		assert_equal "$(json_field .extents)" missing
		assert_row mid cached=$MP
	done

	run -0 --separate-stderr pagestat --csv --extents=missing mid
	assert_equal "$(csv_column extents)" "0-1048576 2097152-3145728"

	run -0 --separate-stderr pagestat_in C -o extents,path --extents=missing mid
	assert_line -n 0 --regexp '^MISSING +PATH$'
	assert_line -n 1 "0-1048576 2097152-3145728 mid"
}

@test "-e missing: 'missing' is a FILE operand, as with any optional argument" {
	make_middle mid
	run -1 --separate-stderr pagestat -J -e missing mid
	assert_stderr_has "pagestat: cannot access 'missing': No such file or directory"
	assert_equal "$(json_field .extents)" cached
	assert_equal "$(extents_of mid)" "1048576-2097152"
	assert_row missing errno=ENOENT
}

@test "100 cached extents between missing ones: every offset and length, cached and missing" {
	make_alternating alt
	local cached missing
	cached=$(alternating_extents cached)
	missing=$(alternating_extents missing)

	run -0 --separate-stderr pagestat -J -e alt
	assert_equal "$(json_field '.rows[0].extents | length')" 100
	assert_equal "$(extents_of alt)" "$cached"
	# 33 rounds of blocks of 1, 2 and 3 cached pages, then one of 1
	assert_row alt cached=199

	run -0 --separate-stderr pagestat --csv -e alt
	assert_equal "$(csv_column extents)" "$cached"

	run -0 --separate-stderr pagestat -J --extents=missing alt
	assert_equal "$(json_field '.rows[0].extents | length')" 101
	assert_equal "$(extents_of alt)" "$missing"

	run -0 --separate-stderr pagestat --csv -emissing alt
	assert_equal "$(csv_column extents)" "$missing"
}

@test "-e on a file wholly cached, wholly dropped and empty" {
	make_cached full 5
	make_dropped gone 7
	: >empty
	run -0 --separate-stderr pagestat -J -e full gone empty
	assert_equal "$(extents_of full)" "0-$((5 * PAGE))"
	assert_equal "$(json_field '[.rows[] | select(.path != "full") | .extents | length] | tostring')" "[0,0]"

	run -0 --separate-stderr pagestat -J --extents=missing full gone empty
	assert_equal "$(extents_of gone)" "0-$((7 * PAGE))"
	assert_equal "$(json_field '[.rows[] | select(.path != "gone") | .extents | length] | tostring')" "[0,0]"

	# no extent: an empty CSV field, '-' in the table
	run -0 --separate-stderr pagestat --csv -n -o path,extents -e full gone empty
	assert_output $'full,0-'"$((5 * PAGE))"$'\ngone,\nempty,'
	run -0 --separate-stderr pagestat_in C -n -o extents,path --extents=missing full gone empty
	assert_line -n 0 --regexp '^- +full$'
	assert_line -n 1 --regexp "^0-$((7 * PAGE)) gone\$"
	assert_line -n 2 --regexp '^- +empty$'
}

@test "-e: bad values exit 2, name the option and the value, print nothing" {
	make_middle mid
	local value
	for value in foo '' cache missin '=missing' 'cached ' 'missing,cached'; do
		assert_usage_error "pagestat: invalid value for --extents: '$value' (expected cached or missing)" \
			-J "--extents=$value" mid
	done
	# -e=missing is -e with the value '=missing'
	assert_usage_error "pagestat: invalid value for --extents: '=missing'" -J -e=missing mid
	assert_usage_error "pagestat: invalid value for --extents: 'foo'" -J -efoo mid
	# -e takes the rest of its cluster: -ea asks for extents of kind 'a'
	assert_usage_error "pagestat: invalid value for --extents: 'a'" -J -ea mid
	run -0 --separate-stderr pagestat -J -ae mid
	assert_equal "$(extents_of mid)" "1048576-2097152"
}

# ---- columns -------------------------------------------------------------

@test "-o segments needs -S and -o extents needs -e: exit 2, stdout empty" {
	make_middle mid
	local list
	for list in segments SEGMENTS path,segments +segments; do
		assert_usage_error "pagestat: column 'segments' in --output needs --segments=N" -J -o "$list" mid
		assert_usage_error "needs --segments=N" -J -e -o "$list" mid
	done
	for list in extents Extents path,extents +extents; do
		assert_usage_error "pagestat: column 'extents' in --output needs --extents" -J -o "$list" mid
		assert_usage_error "needs --extents" -J -S 2 -o "$list" mid
	done

	# with them, the columns go where -o puts them
	run -0 --separate-stderr pagestat --csv -o path,segments,cached -S 3 mid
	assert_line -n 0 "path,segments,cached,cached_bytes"
	assert_line -n 1 "mid,0/$MP $MP/$MP 0/$MP,$MP,$MIB"
	run -0 --separate-stderr pagestat --csv -o extents,path -e mid
	assert_output $'extents,path\n1048576-2097152,mid'
}

@test "-S and -e add their columns: before PATH in the table, at the end in CSV and JSON" {
	make_middle mid
	run -0 --separate-stderr pagestat_in C -S 3 -e mid
	assert_line -n 0 --regexp ' FILES SEGMENTS EXTENTS +PATH$'
	assert_line -n 1 --regexp ' 1 \.#\. +1048576-2097152 mid$'

	run -0 --separate-stderr pagestat --csv -S 3 -e mid
	assert_line -n 0 --regexp ',files,backing,inode,file_size,mtime,mtime_nsec,segments,extents$'
	run -0 --separate-stderr pagestat --csv -e mid
	assert_line -n 0 --regexp ',files,backing,inode,file_size,mtime,mtime_nsec,extents$'
	run -0 --separate-stderr pagestat --csv -S 3 mid
	assert_line -n 0 --regexp ',files,backing,segments$'

	run -0 --separate-stderr pagestat -J -S 3 -e mid
	assert_equal "$(json_field '.rows[0] | keys_unsorted | .[-7:] | join(" ")')" "backing inode file_size mtime mtime_nsec segments extents"

	# --output-all: every column, segments and extents only with -S and -e
	run -0 --separate-stderr pagestat --csv --output-all mid
	refute_line -n 0 --regexp 'segments|extents'
	run -0 --separate-stderr pagestat --csv --output-all -S 3 -e mid
	assert_line -n 0 --regexp ',segments,extents$'
}

@test "--format=ndjson: each file row carries its segments and extents" {
	make_middle mid
	run -0 --separate-stderr pagestat --format=ndjson -S 3 -e mid
	assert_equal "${#lines[@]}" 2
	assert_equal "$(jq -r 'select(.path == "mid") | [.segments[].cached, (.extents[] | .offset, .length)] | join(" ")' <<<"$output")" \
		"0 $MP 0 1048576 1048576"
	assert_equal "$(jq -r 'select(.type == "total") | [.segments, .extents] | tostring' <<<"$output")" "[null,null]"
}

# ---- a 2 TiB sparse file -------------------------------------------------

# big: a 2 TiB sparse file (a hole, no blocks) with pages 0, P/7, P/2 - 1,
# P/2 and P - 1 cached, where P is its page count.  Sets BIG_PAGES and
# BIG_CACHED.
make_big() {
	truncate -s 2T big 2>/dev/null ||
		skip "the file system of BATS_TEST_TMPDIR refuses a 2 TiB sparse file"
	BIG_PAGES=$((2 ** 41 / PAGE))
	BIG_CACHED=(0 $((BIG_PAGES / 7)) $((BIG_PAGES / 2 - 1)) $((BIG_PAGES / 2)) $((BIG_PAGES - 1)))
	arrange_pages big 0 1 $((BIG_PAGES / 7)) 1 $((BIG_PAGES / 2 - 1)) 2 $((BIG_PAGES - 1)) 1
}

@test "-S 1000 on a 2 TiB sparse file: the few cached pages in exactly their segments" {
	make_big
	local n=1000 i first end c p want=()
	for ((i = 0; i < n; i++)); do
		first=$((BIG_PAGES * i / n)) end=$((BIG_PAGES * (i + 1) / n)) c=0
		for p in "${BIG_CACHED[@]}"; do
			if ((p >= first && p < end)); then c=$((c + 1)); fi
		done
		want+=("$((first * PAGE))+$(((end - first) * PAGE)):$c/$((end - first))")
	done

	run -0 --separate-stderr pagestat -J -S 1000 big
	assert_row big size=$((2 ** 41)) pages=$BIG_PAGES cached=5
	assert_equal "$(json_field '.rows[0].segments | length')" 1000
	assert_equal "$(segments_of big)" "${want[*]}"
	# P/2 - 1 and P/2 straddle the boundary of parts 499 and 500
	assert_equal "$(json_field '[.rows[0].segments | to_entries[] | select(.value.cached > 0) | .key] | join(" ")')" \
		"0 $((1000 / 7)) 499 500 999"
}

@test "-e on a 2 TiB sparse file: the exact cached and missing extents" {
	make_big
	local p=$BIG_PAGES
	run -0 --separate-stderr pagestat -J -e big
	assert_equal "$(extents_of big)" \
		"0-$PAGE $((p / 7 * PAGE))-$(((p / 7 + 1) * PAGE)) $(((p / 2 - 1) * PAGE))-$(((p / 2 + 1) * PAGE)) $(((p - 1) * PAGE))-$((p * PAGE))"

	run -0 --separate-stderr pagestat -J --extents=missing big
	assert_equal "$(extents_of big)" \
		"$PAGE-$((p / 7 * PAGE)) $(((p / 7 + 1) * PAGE))-$(((p / 2 - 1) * PAGE)) $(((p / 2 + 1) * PAGE))-$(((p - 1) * PAGE))"

	# and only within the range asked: the last TiB
	run -0 --separate-stderr pagestat -J -e --offset 1T big
	assert_row big size=$((2 ** 40)) pages=$((p / 2)) cached=2
	assert_equal "$(extents_of big)" "$((p / 2 * PAGE))-$(((p / 2 + 1) * PAGE)) $(((p - 1) * PAGE))-$((p * PAGE))"
}

# ---- --method=mincore ----------------------------------------------------

@test "--method=mincore gives the same segments and extents as cachestat" {
	make_middle mid
	make_bar bar
	make_alternating alt
	local shape='[.rows[] | {path, segments, extents}]' args cachestat
	for args in "-S 9 -e" "-S 7 --extents=missing" "-S 3 -e --offset 1000 --length 2M" "-S 4096 -e"; do
		# the three files' pages are held (make_pattern): both methods
		# see the same pages in all eight runs
		run -0 --separate-stderr pagestat -J --method=cachestat $args mid bar alt
		assert_equal "$(json_field .method)" cachestat
		cachestat=$(json_field "$shape")
		run -0 --separate-stderr pagestat -J --method=mincore $args mid bar alt
		[[ $(jq '[.[].extents[]] | length' <<<"$cachestat") -gt 100 ]] ||
			fail "$args: too few extents to compare: $cachestat"
		assert_equal "$(json_field .method)" mincore
		assert_equal "$args, mincore: $(json_field "$shape")" "$args, mincore: $cachestat"
	done
}

# ---- a block device ------------------------------------------------------

@test "a block device: --offset/--length, -S and -e over its buffer cache" {
	make_loop_device 64 5 3 40 8
	local dev=$LOOP_DEV
	run -0 --separate-stderr pagestat -J -S 4 -e "$dev"
	assert_row "$dev" type=blockdev size=$((64 * PAGE)) pages=64 cached=11
	assert_equal "$(segments_of "$dev")" \
		"0+$((16 * PAGE)):3/16 $((16 * PAGE))+$((16 * PAGE)):0/16 $((32 * PAGE))+$((16 * PAGE)):8/16 $((48 * PAGE))+$((16 * PAGE)):0/16"
	assert_equal "$(extents_of "$dev")" "$((5 * PAGE))-$((8 * PAGE)) $((40 * PAGE))-$((48 * PAGE))"

	run -0 --separate-stderr pagestat -J --extents=missing "$dev"
	assert_equal "$(extents_of "$dev")" "0-$((5 * PAGE)) $((8 * PAGE))-$((40 * PAGE)) $((48 * PAGE))-$((64 * PAGE))"

	# pages 6..41: 6, 7, 40 and 41 cached
	run -0 --separate-stderr pagestat -J --offset $((6 * PAGE)) --length $((36 * PAGE)) -S 2 -e "$dev"
	assert_row "$dev" size=$((36 * PAGE)) pages=36 cached=4
	assert_equal "$(segments_of "$dev")" "$((6 * PAGE))+$((18 * PAGE)):2/18 $((24 * PAGE))+$((18 * PAGE)):2/18"
	assert_equal "$(extents_of "$dev")" "$((6 * PAGE))-$((8 * PAGE)) $((40 * PAGE))-$((42 * PAGE))"

	run -0 --separate-stderr pagestat -J --offset $((64 * PAGE)) -e "$dev"
	assert_row "$dev" type=blockdev size=0 pages=0 cached=0 percent=null
	assert_equal "$(json_field '.rows[0].extents')" "[]"
	assert_equal "$stderr" ""
}

# ---- the suite's own arrangements (issue 31, item 13) ---------------------

@test "arranged pages are held while a test inspects: a drop leaves them, cachestat and mincore count them, dirty stays dirty; released, they go" {
	make_pattern held 16 2 3 9 1
	make_dirty dirty 4
	# what the machine's paging out would do, done on purpose: no page goes
	pcarrange drop held
	run -0 pcarrange holds held 2 3 9 1
	run -0 --separate-stderr "$PAGESTAT" -J -e held
	assert_row held cached=4
	assert_equal "$(extents_of held)" "$((2 * PAGE))-$((5 * PAGE)) $((9 * PAGE))-$((10 * PAGE))"
	run -0 --separate-stderr "$PAGESTAT" -J --method=mincore -e held
	assert_row held cached=4
	assert_equal "$(extents_of held)" "$((2 * PAGE))-$((5 * PAGE)) $((9 * PAGE))-$((10 * PAGE))"
	# the lock of a shared read-only mapping writes nothing back
	local cached dirty rest
	read -r cached dirty rest < <(pcarrange stat dirty)
	assert_equal "cached $cached" "cached 4"
	[[ $dirty == 4 ]] || skip "the 4 dirty pages were written back meanwhile (a sync elsewhere): $dirty dirty"
	# released: the same drop takes them
	release_holds "the test drops the pages itself"
	pcarrange drop held
	run -0 pcarrange holds held dropped
}
