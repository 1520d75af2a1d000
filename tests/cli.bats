#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The command line: every option's effect, its bad input, exit statuses,
# --help and --version, units in the table.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# BYTES the way the table writes them, as du -h and ls -h do: below 1 KiB
# a whole number of bytes; else in the smallest unit of K..E that shows
# at most 1023, rounded up, with one decimal below 10.  (bash arithmetic:
# for BYTES below 1023 PiB.)
human() {
	local bytes=$1 k unit rest tenths
	local -a suffix=(B K M G T P E)
	if ((bytes < 1024)); then
		echo "${bytes}B"
		return
	fi
	for k in 1 2 3 4 5; do
		unit=$((1 << (10 * k)))
		((bytes <= 1023 * unit)) && break
	done
	rest=$((bytes % unit))
	tenths=$((bytes / unit * 10 + (rest * 10 + unit - 1) / unit))
	if ((tenths < 100)); then
		echo "$((tenths / 10)).$((tenths % 10))${suffix[k]}"
	else
		echo "$((bytes / unit + (rest > 0)))${suffix[k]}"
	fi
}

# The cell of a human size in the table: right-aligned in its fixed
# width of five (the header's when wider).
hcell() {
	printf '%5s' "$(human "$1")"
}

# A directory with one wholly cached file of 4 pages.
make_small_dir() {
	mkdir "$1"
	make_cached "$1/file" 4
}

# ---- what gets a row ---------------------------------------------------

@test "no FILE means the current directory" {
	make_small_dir here
	cd here
	run -0 pagestat -J
	assert_equal "$(json_field '.rows | length')" 1
	assert_equal "$(json_field '.rows[0].path')" .
	assert_equal "$(json_field '.rows[0].cached')" 4
	assert_equal "$(json_field '.rows[0].files')" 1
}

@test "options may follow the operands, as with GNU tools" {
	make_small_dir dir
	run -0 pagestat dir -J -o path,cached
	assert_equal "$(json_field '.rows[0] | keys_unsorted | join(",")')" path,cached,cached_bytes
	assert_equal "$(json_field '.rows[0].cached')" 4
}

# ---- units in the table ------------------------------------------------

@test "the human() helper of this suite agrees with known IEC values" {
	# guards the expectation used below: a wrong helper must not pass.
	# Each is what GNU ls -lh and du -h --apparent-size print for a file
	# of that size (with B added where they print no unit).
	local pair
	for pair in 0=0B 512=512B 1023=1023B 1024=1.0K 1025=1.1K 10137=9.9K 10138=10K \
		10240=10K 10241=11K 20480=20K 1022977=1000K 1047552=1023K 1047553=1.0M \
		1048535=1.0M 1048576=1.0M 1048577=1.1M 10485761=11M $((3 << 29))=1.5G \
		$(((1 << 30) - 1))=1.0G $((3 << 40))=3.0T $(((10 << 50) + 1))=11P \
		$((1023 << 50))=1023P; do
		assert_equal "$(human "${pair%=*}")" "${pair#*=}"
	done
}

@test "-b: page columns as exact bytes (pages x page size), SIZE as the file's bytes" {
	HALF=1 make_cached f 5
	run -0 pagestat -n -b -o size,cached,dirty f
	assert_output "$((5 * PAGE - PAGE / 2)) $((5 * PAGE)) 0"
	run -0 pagestat -n --bytes -o cached f
	assert_output "$((5 * PAGE))"
}

@test "-p: page columns as page counts, SIZE stays human" {
	make_dirty f 5
	run -0 pagestat -n -p -o size,cached,dirty,percent f
	assert_output "$(hcell $((5 * PAGE))) 5 5 100.0%"
	run -0 pagestat -n --pages -o cached f
	assert_output 5
}

@test "-b -p: SIZE in bytes, page columns in pages" {
	make_partial f 10 2 3
	run -0 pagestat -n -b -p -o size,cached,percent f
	# PERCENT keeps its width of six (100.0%), bytes and pages do not
	assert_output "$((10 * PAGE)) 3  30.0%"
}

@test "default units: human-readable IEC as du -h, five characters wide" {
	make_cached f 5
	run -0 pagestat -n -o cached f
	assert_output "$(hcell $((5 * PAGE)))"
	make_partial g 10 2 3
	run -0 pagestat -n -o size,cached g
	assert_output "$(hcell $((10 * PAGE))) $(hcell $((3 * PAGE)))"
}

@test "human sizes as du -h: bytes below 1 KiB, rounded up, whole from 10, 1024K is 1.0M" {
	local bytes
	for bytes in 0 1 1023 1024 1025 1126 1535 10138 10241 1047552 1047553 1048576; do
		pcarrange write "f$bytes" "$bytes"
		run -0 pagestat -n -o size "f$bytes"
		assert_output "$(hcell "$bytes")"
	done
	assert_equal "$(pagestat -n -o size f1025 f10241 f1047553 | xargs)" "1.1K 11K 1.0M"
	# sparse, so nothing is written: G and T without the disk space
	truncate -s 1536M big
	run -0 pagestat -n -o size big
	assert_output ' 1.5G'
	truncate -s 3T huge
	run -0 pagestat -n -o size huge
	assert_output ' 3.0T'
}

# ---- -n, -c, -o, --output-all -------------------------------------------

@test "-n: no header line in the table and in CSV" {
	make_cached f 2
	run -0 pagestat -b -o cached,path f
	assert_output "CACHED PATH"$'\n'"$(printf '%6s' $((2 * PAGE))) f"
	run -0 pagestat -n -b -o cached,path f
	assert_output "$((2 * PAGE)) f"
	run -0 pagestat --noheadings --csv -o path,cached f
	assert_output "f,2,$((2 * PAGE))"
	run -0 pagestat --csv -o path,cached f
	assert_output "path,cached,cached_bytes"$'\n'"f,2,$((2 * PAGE))"
}

@test "-c: a grand-total row last in the table and in CSV" {
	make_cached a 3
	make_partial b 10 0 4
	run -0 pagestat -c -n -b -p -o cached,files,path a b
	assert_output "3 1 a"$'\n'"4 1 b"$'\n'"7 2 total"
	run -0 pagestat --total --csv -n -o path,type,cached a b
	assert_line -n 2 "total,total,7,$((7 * PAGE))"
	run -0 pagestat -n -b -p -o cached,files,path a b
	refute_output --partial total
}

@test "-o: columns chosen and ordered; names are case-insensitive" {
	make_partial f 10 2 3
	run -0 pagestat -b -o path,percent,cached f
	assert_line -n 0 --regexp '^PATH +PERCENT +CACHED$'
	assert_line -n 1 --regexp "^f +30\.0% +$((3 * PAGE))\$"
	run -0 pagestat -n -b --output=CACHED,Size f
	assert_output "$((3 * PAGE)) $((10 * PAGE))"
}

@test "-o +LIST adds columns to the default ones" {
	make_cached f 2
	run -0 pagestat -o +pages,type f
	read -ra header <<<"${lines[0]}"
	# the order of PATH is the next test's business
	assert_equal "$(printf '%s\n' "${header[@]}" | sort | xargs)" \
		"CACHED DIRTY EVICTED FILES PAGES PATH PERCENT SIZE TYPE WRITEBACK"
	run -0 pagestat -n -o +pages f
	read -ra cells <<<"$output"
	assert_equal "${#cells[@]}" 9
	[[ " ${cells[*]} " == *" 2 "* ]] || fail "no PAGES cell of 2: $output"
}

@test "-o +LIST in the table keeps PATH the last column, as --output-all does" {
	make_cached f 2
	run -0 pagestat -o +pages f
	read -ra header <<<"${lines[0]}"
	assert_equal "${header[*]}" "SIZE CACHED PERCENT DIRTY WRITEBACK EVICTED FILES PAGES PATH"
}

@test "-o naming a column twice, or +LIST naming a default, gives JSON objects unique keys" {
	make_cached f 2
	run -0 pagestat -J -o +pages f
	assert_equal "$(grep -o '"pages":' <<<"${lines[1]}" | wc -l)" 1
	# an explicit repetition may be refused instead, as a usage error
	run pagestat -J -o size,size f
	if ((status != 2)); then
		assert_equal "$status" 0
		assert_equal "$(grep -o '"size":' <<<"${lines[1]}" | wc -l)" 1
	fi
	run -0 pagestat --csv -o +pages f
	assert_equal "$(tr , '\n' <<<"${lines[0]}" | grep -c '^pages$')" 1
}

@test "--output-all: every column in the table, TYPE and PAGES too, PATH last" {
	make_cached f 2
	run -0 pagestat --output-all -b f
	read -ra header <<<"${lines[0]}"
	assert_equal "${header[*]}" "TYPE SIZE PAGES CACHED PERCENT DIRTY WRITEBACK EVICTED RECENTLY_EVICTED FILES BACKING INODE FILE_SIZE MTIME MTIME_NSEC PATH"
	read -ra cells <<<"${lines[1]}"
	local identity
	identity=$(stat -c '%i %s %Y' f) || fail "stat f: $identity"
	assert_equal "${cells[*]}" "file $((2 * PAGE)) 2 $((2 * PAGE)) 100.0% 0 0 0 0 1 - $identity $(stat -c %.9Y f | sed 's/.*\.//; s/^0*\(.\)/\1/') f"
}

@test "-o and --output-all: the last one given wins" {
	make_cached f 2
	run -0 pagestat -n --output-all -o size f
	assert_output "$(hcell $((2 * PAGE)))"
	run -0 pagestat -n -o size --output-all f
	read -ra cells <<<"$output"
	assert_equal "${#cells[@]}" 16
}

# ---- formats -----------------------------------------------------------

@test "--format=table|csv|json|ndjson each write their own form" {
	make_cached f 2
	run -0 pagestat --format=table -n -b -o cached,path f
	assert_output "$((2 * PAGE)) f"
	run -0 pagestat --format=csv -n -o path,cached f
	assert_output "f,2,$((2 * PAGE))"
	run -0 pagestat --format=json -o path,cached f
	assert_equal "$(json_field '.rows[0] | tojson')" "{\"path\":\"f\",\"cached\":2,\"cached_bytes\":$((2 * PAGE))}"
	run -0 pagestat --format ndjson -o path,cached f
	assert_output "{\"path\":\"f\",\"cached\":2,\"cached_bytes\":$((2 * PAGE))}"$'\n'"{\"type\":\"total\",\"cached\":2,\"cached_bytes\":$((2 * PAGE))}"
}

@test "-J and --json are --format=json; --csv is --format=csv" {
	make_partial f 6 1 2
	run -0 pagestat --format=json f
	local want_json=$output
	run -0 pagestat -J f
	assert_output "$want_json"
	run -0 pagestat --json f
	assert_output "$want_json"
	assert_equal "$(json_field '.rows[0].cached')" 2
	run -0 pagestat --format=csv f
	local want_csv=$output
	run -0 pagestat --csv f
	assert_output "$want_csv"
	assert_line -n 1 --partial "f,file,$((6 * PAGE)),6,2,"
}

@test "the last format option wins" {
	make_cached f 1
	run -0 pagestat --csv -J f
	assert_equal "$(json_field '.rows[0].path')" f
	run -0 pagestat -J --format=table -n -o path f
	assert_output f
	run -0 pagestat --format=ndjson --csv -n -o path f
	assert_output f
}

# ---- errors on files: exit 1 -------------------------------------------

@test "a missing FILE: named on stderr, exit 1, no lone table header" {
	run -1 --separate-stderr pagestat /nonexistent
	assert_stderr_has "'/nonexistent'" "No such file or directory"
	refute_output
	# with -c there is a row to show: header, then the empty total
	run -1 --separate-stderr pagestat -c -b -o files,path /nonexistent
	assert_output "FILES PATH"$'\n'"    0 total"
}

@test "a missing FILE in JSON: a row with error and errno, \"errors\": 1" {
	run -1 --separate-stderr pagestat -J /nonexistent
	assert_stderr_has "'/nonexistent'"
	assert_equal "$(json_field '.rows | length')" 1
	assert_equal "$(json_field '.rows[0].path')" /nonexistent
	assert_equal "$(json_field '.rows[0].errno')" ENOENT
	assert_equal "$(json_field '.rows[0].error')" "No such file or directory"
	assert_equal "$(json_field '.errors')" 1
	assert_equal "$(json_field '.total.files')" 0
	# error and errno instead of the counters
	assert_equal "$(json_field '.rows[0] | keys | join(",")')" errno,error,path,type
}

@test "an empty FILE operand: reported as missing, the other operands still inspected" {
	make_cached a 2
	make_cached b 3
	run -1 --separate-stderr pagestat -J a '' b
	assert_stderr_has "cannot access ''" "No such file or directory"
	assert_equal "$(json_field '[.rows[].path] | sort | join(",")')" ",a,b"
	assert_equal "$(json_field '.rows[] | select(.path == "") | .errno')" ENOENT
	assert_equal "$(json_field '.total.cached')" 5
	assert_equal "$(json_field '.errors')" 1
}

@test "good and bad FILEs together: the good one is reported, exit 1" {
	make_cached good 3
	run -1 --separate-stderr pagestat -n -b -p -o cached,path missing good
	assert_output "3 good"
	assert_stderr_has "'missing'"
	run -1 --separate-stderr pagestat -J good missing
	assert_equal "$(json_field '[.rows[].path] | join(" ")')" "good missing"
	assert_equal "$(json_field '.rows[0].cached')" 3
	assert_equal "$(json_field '.rows[1].errno')" ENOENT
	assert_equal "$(json_field '.total.cached')" 3
	assert_equal "$(json_field '.errors')" 1
}

@test "rows keep the operands' order, an empty operand included" {
	make_cached a 1
	make_cached b 1
	run -1 --separate-stderr pagestat -J -o path a '' b
	assert_equal "$(json_field '[.rows[].path] | join(",")')" "a,,b"
}

@test "-q: no per-file message, still counted in the status and in JSON" {
	make_cached good 2
	run -1 --separate-stderr pagestat -q -n -b -p -o cached,path missing good
	assert_equal "$stderr" ""
	assert_output "2 good"
	run -1 --separate-stderr pagestat --quiet -J missing good
	assert_equal "$stderr" ""
	assert_equal "$(json_field '.errors')" 1
	assert_equal "$(json_field '.rows[0].errno')" ENOENT
	# without -q the same run does speak
	run -1 --separate-stderr pagestat -J missing good
	assert_stderr_has "'missing'"
}

# ---- usage errors: exit 2, nothing on stdout ------------------------------

@test "an unknown long option: exit 2, named on stderr" {
	make_small_dir dir
	refused "--nosuch" "--help" -- --nosuch dir
	refused "--nosuch" -- dir --nosuch
}

@test "an unknown short option: exit 2, named on stderr" {
	make_small_dir dir
	refused "'Z'" -- -Z dir
}

@test "a flag given a value (--json=x): exit 2" {
	make_small_dir dir
	refused "--json" -- --json=x dir
}

@test "-d without its argument: exit 2, named on stderr" {
	refused "requires an argument" "'d'" -- -d
	make_small_dir dir
	refused "requires an argument" "'d'" -- dir -d
}

@test "--format without its argument: exit 2, named on stderr" {
	refused "requires an argument" "--format" -- --format
	make_small_dir dir
	refused "requires an argument" "--format" -- dir --format
}

@test "-d x: not a number" {
	make_small_dir dir
	refused "--max-depth" "'x'" -- -d x dir
	refused "--max-depth" "'x'" -- --max-depth=x dir
}

@test "-d -1: negative" {
	make_small_dir dir
	refused "--max-depth" "'-1'" -- -d -1 dir
	refused "--max-depth" "'-1'" -- --max-depth=-1 dir
}

@test "-d '': empty" {
	make_small_dir dir
	refused "--max-depth" "''" -- -d '' dir
}

@test "-d 99999999999999999999: out of range, not wrapped" {
	make_small_dir dir
	refused "--max-depth" "'99999999999999999999'" -- -d 99999999999999999999 dir
	refused "--max-depth" "'1x'" -- -d 1x dir
	refused "--max-depth" "' 1'" -- -d ' 1' dir
}

@test "--format xml: unknown format" {
	make_small_dir dir
	refused "--format" "'xml'" -- --format xml dir
	refused "--format" "'xml'" -- dir --format=xml
	refused "--format" "''" -- --format= dir
}

@test "--format, --method, --extents, -o and -s take their values in any case" {
	make_cached f 2
	run -0 --separate-stderr pagestat --format=json f
	local want=$output
	run -0 --separate-stderr pagestat --format=JSON f
	assert_equal "$output" "$want"
	run -0 --separate-stderr pagestat --format=Json --method=CacheStat f
	assert_equal "$output" "$want"
	run -0 --separate-stderr pagestat -J --method=MINCORE f
	assert_equal "$(json_field .method)" mincore
	run -0 --separate-stderr pagestat -J --extents=MISSING f
	assert_equal "$(json_field .extents)" missing
	run -0 --separate-stderr pagestat -n -b -o CACHED,Path -s Cached f
	assert_output "$((2 * PAGE)) f"
	run -0 --separate-stderr pagestat --format=CSV -o path f
	assert_output "path"$'\n'"f"
}

@test "--method fast: unknown method" {
	make_small_dir dir
	refused "--method" "'fast'" -- --method fast dir
	refused "--method" "'fast'" -- --method=fast dir
}

@test "an unknown column or sort key: the message lists the valid ones" {
	make_small_dir dir
	refused "unknown column 'nosuch' in --output 'size,nosuch' (the columns: path, type, size, pages, cached," \
		-- -o size,nosuch dir
	refused "invalid value for --sort: 'nosuch' (expected one of path, type, size, pages, cached," \
		-- -s nosuch dir
	refused "--sort: 'extents' (expected one of path, type," -- -s extents dir
}

@test "-o nosuch: unknown column" {
	make_small_dir dir
	refused "--output" "'nosuch'" -- -o nosuch dir
	refused "--output" "'nosuch'" -- -o path,nosuch dir
	refused "--output" "'nosuch'" -- --output=+nosuch dir
}

@test "-o size,,path: an empty column name" {
	make_small_dir dir
	refused "--output" "'size,,path'" -- -o size,,path dir
	refused "--output" "'size,'" -- -o size, dir
	refused "--output" "'+'" -- -o + dir
}

@test "-o '': no column at all" {
	make_small_dir dir
	refused "--output" "''" -- -o '' dir
}

@test "a bad value after good options and FILEs still stops before any output" {
	make_small_dir dir
	refused "--format" "'xml'" -- -a -c dir dir/file --format xml
	refused "--max-depth" "'x'" -- -J dir -d x
}

# ---- --help and --version -------------------------------------------------

@test "-h and --help: usage on stdout, exit 0, nothing on stderr" {
	run -0 --separate-stderr pagestat -h
	assert_equal "$stderr" ""
	assert_line -n 0 "Usage: pagestat [OPTION]... [FILE]..."
	local help=$output
	run -0 --separate-stderr pagestat --help
	assert_output "$help"
	# -h wins over the rest: nothing is inspected
	run -0 --separate-stderr pagestat -h /nonexistent
	assert_output "$help"
	assert_equal "$stderr" ""
}

@test "-h lists every option of the option table, with its short form and argument" {
	local src=$BATS_TEST_DIRNAME/../src/options.c
	[[ -r $src ]] || skip "source not found: $src"
	run -0 pagestat --help
	local help=$output name arg short entry listed count=0
	# entries like: { 'd', "max-depth", ARG_REQUIRED, "N", GROUP_ROWS,
	while read -r short name arg; do
		count=$((count + 1))
		entry="--$name"
		[[ $arg == ARG_REQUIRED ]] && entry+="="
		[[ $arg == ARG_OPTIONAL ]] && entry+="[="
		if [[ $short == \'?\' ]]; then
			entry="-${short:1:1}, $entry"
		else
			entry="    $entry"
		fi
		[[ $help == *"  $entry"* ]] || fail "--help lacks '$entry'"
	done < <(sed -n '/option_table\[\] = {/,/^};/p' "$src" |
		sed -n 's/^[[:space:]]*{ \([^ ]*\), "\([a-z0-9-]*\)", \(ARG_[A-Z]*\),.*/\1 \2 \3/p')
	((count >= 20)) || fail "only $count options read from $src: did its layout change?"
	# and the other way: every --option in --help is in the table
	for listed in $(grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' <<<"$help" | grep -oE -- '--[a-z0-9-]+'); do
		grep -qE "^[[:space:]]*\{ [^ ]*, \"${listed#--}\"," "$src" ||
			fail "--help lists $listed, unknown to the table"
	done
}

@test "-h lists every column, and -o accepts each one" {
	make_cached f 1
	run -0 pagestat -J f
	local col
	local -a cols
	mapfile -t cols < <(json_field '.rows[0] | keys_unsorted[] | select(endswith("_bytes") | not)')
	assert_equal "${#cols[@]}" 12
	run -0 pagestat --help
	for col in "${cols[@]}"; do
		assert_line --regexp "^  $col +[a-z]"
	done
	for col in "${cols[@]}"; do
		run -0 pagestat -o "$col" f
		assert_line -n 0 --regexp "^ *${col^^}\$"
	done
}

@test "-V: the version line, the copyright and license lines, the method line and the capabilities line" {
	make_cached f 1
	run -0 pagestat -J f
	local version method
	version=$(json_field .version)
	method=$(json_field .method)
	run -0 --separate-stderr pagestat -V
	assert_equal "$stderr" ""
	assert_equal "${#lines[@]}" 5
	assert_line -n 0 "pagestat $version"
	assert_line -n 1 "Copyright (c) 2026 the pagestat authors"
	assert_line -n 2 --regexp '^License MIT \(Expat\) '
	assert_line -n 3 --regexp "^method: $method( |\$)"
	assert_line -n 4 --regexp '^capabilities: (none|cap_[a-z_]+(,cap_[a-z_]+)*)$'
	run -0 pagestat --version
	assert_line -n 0 "pagestat $version"
}

@test "-V: the capabilities line tells what the process holds" {
	require_root "switching to an unprivileged user"
	local capeff dac fowner held=none
	capeff=$((16#$(awk '/^CapEff:/ { print $2 }' /proc/self/status)))
	dac=$(((capeff >> 2) & 1))    # CAP_DAC_READ_SEARCH
	fowner=$(((capeff >> 3) & 1)) # CAP_FOWNER
	((dac && fowner)) && held=cap_dac_read_search,cap_fowner
	((dac && !fowner)) && held=cap_dac_read_search
	((!dac && fowner)) && held=cap_fowner
	run -0 pagestat -V
	assert_line -n 4 "capabilities: $held"
	run -0 setpriv --reuid=65534 --regid=65534 --clear-groups "$PAGESTAT" -V
	assert_line -n 4 "capabilities: none"
}

# ---- exit 3: output that could not be written -----------------------------

@test "stdout on a full device: exit 3, 'write error' on stderr" {
	make_small_dir dir
	run -3 --separate-stderr bash -c '"$PAGESTAT" dir >/dev/full'
	assert_stderr_has "pagestat: write error" "No space left on device"
	run -3 --separate-stderr bash -c '"$PAGESTAT" -J dir >/dev/full'
	assert_stderr_has "write error"
	run -3 --separate-stderr bash -c '"$PAGESTAT" --help >/dev/full'
	assert_stderr_has "write error"
}

@test "a reader that quits early: exit 3, nothing on stderr" {
	# enough rows to fill the pipe (16 pages by default) many times over
	local files=$((64 * PAGE / 100 / 20 + 1))
	pcarrange tree big 20 "$files" 1
	pagestat -a -J big >all.json
	local bytes
	bytes=$(stat -c %s all.json)
	((bytes > 4 * 16 * PAGE)) || fail "only $bytes bytes of output: not enough to fill the pipe"
	run -3 --separate-stderr bash -c 'set -o pipefail; "$PAGESTAT" -a -J big | head -c 10'
	assert_output '{"version"'
	assert_equal "$stderr" ""
	run -3 --separate-stderr bash -c 'set -o pipefail; "$PAGESTAT" -a big | head -n 1'
	assert_output --regexp '^ *SIZE CACHED '
	assert_equal "$stderr" ""
}

@test "stdout closed: exit 3 with a message" {
	make_small_dir dir
	run -3 --separate-stderr bash -c '"$PAGESTAT" dir >&-'
	assert_stderr_has "pagestat: write error"
	run -3 --separate-stderr bash -c '"$PAGESTAT" -J dir >&-'
	assert_stderr_has "pagestat: write error"
}

@test "-a lists the files below the operands, not their directories; -a -d N both, as du -a does" {
	mkdir -p dua/x/y
	printf a >dua/f
	printf b >dua/x/g
	printf c >dua/x/y/h
	run -0 --separate-stderr pagestat -a -n -o path dua
	assert_equal "$(sort <<<"$output" | xargs)" "dua dua/f dua/x/g dua/x/y/h"
	# with a depth past the tree's: du -a's rows, in du -a's order
	run -0 --separate-stderr pagestat -a -d 100 -n -o path dua
	assert_equal "$output" "$(du -a dua | cut -f2)"
}

@test "the rules between options: each message of option_rules, status 2, nothing read" {
	printf a >f
	printf 'f\0' >list
	local -a cases=(
		"-i 1 --lock --daemon f|-i/--interval cannot be combined with --daemon: a daemon has no output to sample to"
		"-i 1 --evict f|-i/--interval cannot be combined with --evict, --warm or --warm-from: an action is done once"
		"--evict|--evict needs a FILE (or --files0-from or --pid): it does not act on the current directory unnamed; give . to mean it"
		"--warm|--warm needs a FILE (or --files0-from or --pid): it does not act on the current directory unnamed; give . to mean it"
		"--warm-from - --exclude-from -|standard input can be read once: give '-' to --warm-from or --exclude-from, not both"
		"--system --evict|--system cannot be combined with --evict, --warm or --warm-from"
		"--system --warm|--system cannot be combined with --evict, --warm or --warm-from"
		"--warm --system|--system cannot be combined with --evict, --warm or --warm-from"
		"--files0-from - --exclude-from -|standard input can be read once: give '-' to one --files0-from or --exclude-from only"
		"--exclude-from - --exclude-from - f|standard input can be read once: give '-' to one --files0-from or --exclude-from only"
		"--cgroup self --charged --pid 1|--cgroup inspects its cgroups' processes' files: no FILE operands, --files0-from, --pid or --system (FILE operands only with --charged)"
		"--cgroup self --charged --system|--cgroup inspects its cgroups' processes' files: no FILE operands, --files0-from, --pid or --system (FILE operands only with --charged)"
	)
	local c
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$PAGESTAT" ${c%%|*} </dev/null
		assert_output ""
		assert_equal "$stderr" "pagestat: ${c#*|}"$'\n'"Try 'pagestat --help' for more information."
	done
}

@test "the rules between options: the first broken one in option_rules' order is told" {
	printf a >f
	printf 'f\0' >list
	local -a cases=(
		# --count's rule comes before the actions'
		"--count 2 --evict --warm f|--count needs -i/--interval"
		# the table's rules before what the operands name
		"--lock --evict|--lock cannot be combined with --evict, --warm or --system"
		# --warm-from names its files before --system is asked
		"--warm-from s --system --pid 1|--warm-from takes its files from the snapshot"
		"--files0-from list --pid 1 f|FILE operands cannot be combined with --files0-from"
		"--system --cgroup self --pid 1|--system inspects the whole machine"
		# with --charged, --cgroup takes FILE operands, but not --pid's
		"--cgroup self --charged --pid 1 f|--pid cannot be combined with FILE operands or --files0-from"
		"--cgroup self --charged --system f|--system inspects the whole machine"
	)
	local c
	for c in "${cases[@]}"; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$PAGESTAT" ${c%%|*} </dev/null
		assert_output ""
		assert_stderr_has "pagestat: ${c#*|}"
	done
}

@test "a row of the option table cannot store a value into a field of another type" {
	local cc=${CC:-cc} src=$BATS_TEST_DIRNAME/../src test=$BATS_TEST_DIRNAME/optable_store.c
	command -v "$cc" >/dev/null || skip "no C compiler ($cc) to try the table's macros"
	[[ -r $src/options_int.h && -r $test ]] || skip "sources not found: $src"
	# the right rows compile, so that the wrong ones fail for their type
	run -0 "$cc" -std=gnu11 -fsyntax-only -I"$src" "$test"
	local wrong
	for wrong in 1 2 3; do
		run -1 "$cc" -std=gnu11 -fsyntax-only -I"$src" -DWRONG_STORE=$wrong "$test"
		assert_output --regexp "(_G|g)eneric"
	done
}
