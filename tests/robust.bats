#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Robustness (issue 5): trees that are deep, wide, cyclic or changing
# under the walk, and output that cannot be written, in every format.
# The long run against a tree changing without pause is
# tests/stress/churn.bats (make check-stress).
# The other rows of the issue's table are covered where their area is:
# walk.bats, cli.bats, names.bats, range.bats, counts.bats, method.bats,
# and tests/race.c (a file replaced between the walk's stat and the open).

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# The bind mounts outlive a failed test unless they are undone here.
teardown() {
	# a bind stacked on a bind: umount -R takes one level at a time
	local i
	if [[ -n ${MOUNTED-} ]]; then
		for ((i = 0; i < 5; i++)); do
			mountpoint -q "$MOUNTED" || break
			umount -R "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED" || break
		done
	fi
}

# ---- depth ---------------------------------------------------------------

# ROOT, then DEPTH directories ROOT/d/d/.../d; each LEVEL=FILE hard-links
# FILE into the directory at that depth (ROOT is depth 0).  Hard links,
# so that the cache state arranged on FILE (a path short enough for
# pcarrange) is the state of the file deep in the chain.
# usage: make_chain ROOT DEPTH [LEVEL=FILE]...
make_chain() {
	"$PYTHON3" - "$@" <<-'EOF'
		import os, sys
		root, depth = sys.argv[1], int(sys.argv[2])
		links = {}
		for spec in sys.argv[3:]:
		    level, path = spec.split("=", 1)
		    links.setdefault(int(level), []).append(os.path.abspath(path))
		os.mkdir(root)
		os.chdir(root)  # relative steps: the whole path is past PATH_MAX
		for level in range(depth + 1):
		    for src in links.get(level, []):
		        os.link(src, os.path.basename(src))
		    if level < depth:
		        os.mkdir("d")
		        os.chdir("d")
	EOF
}

# chain/top at depth 0: 3 pages cached; chain/d/one: 2 pages, none;
# at depth 2500 mid: 8 pages, 2..4 cached; at depth 5000 bottom: 5 cached.
make_deep_chain() {
	mkdir orig
	make_cached orig/top 3
	make_dropped orig/one 2
	make_partial orig/mid 8 2 3
	make_cached orig/bottom 5
	make_chain chain 5000 0=orig/top 1=orig/one 2500=orig/mid 5000=orig/bottom
}

# The path of the directory at DEPTH in the chain.
chain_dir() {
	local path=chain level
	for ((level = 0; level < $1; level++)); do path+=/d; done
	echo "$path"
}

@test "a 5,000-deep chain (paths past PATH_MAX): walked to the bottom, exact totals" {
	make_deep_chain
	local bottom mid path_max
	bottom=$(chain_dir 5000)/bottom mid=$(chain_dir 2500)/mid
	path_max=$(getconf PATH_MAX /)
	((${#bottom} > 2 * path_max)) || fail "the chain is not deep enough: ${#bottom} bytes"

	run -0 --separate-stderr bounded -J chain
	assert_equal "$stderr" ""
	assert_row chain type=directory files=4 size=$((18 * PAGE)) pages=18 cached=11
	assert_total files=4 pages=18 cached=11
	assert_equal "$(json_field .errors)" 0

	run -0 --separate-stderr bounded -J -a chain
	assert_row chain/top pages=3 cached=3
	assert_row chain/d/one pages=2 cached=0
	assert_row "$mid" pages=8 cached=3
	assert_row "$bottom" type=file pages=5 cached=5
	assert_row chain files=4 cached=11
	assert_equal "$(jq '.rows | length' <<<"$output")" 5
}

@test "a 5,000-deep chain with -d: a row for each of the 5,001 directories, each total exact" {
	make_deep_chain
	# files below depth D: 4 at 0, 3 at 1, 2 down to 2500, 1 below
	run -0 --separate-stderr bounded --format=ndjson -d 6000 -o path,type,files,cached chain
	assert_equal "$stderr" ""
	local wrong
	wrong=$(jq -s -c '[.[] | select(.type == "directory")
		| {depth: (.path | split("/") | length - 1), files, cached}
		| select(.files != (if .depth == 0 then 4 elif .depth == 1 then 3 elif .depth <= 2500 then 2 else 1 end)
			or .cached != (if .depth == 0 then 11 elif .depth <= 2500 then 8 else 5 end))]' <<<"$output")
	assert_equal "wrong rows: $wrong" "wrong rows: []"
	assert_equal "$(jq -s '[.[] | select(.type == "directory") | .path] | unique | length' <<<"$output")" 5001
	assert_equal "$(jq -s -c '.[-1]' <<<"$output")" \
		"{\"type\":\"total\",\"files\":4,\"cached\":11,\"cached_bytes\":$((11 * PAGE))}"
}

@test "a 5,000-deep chain with -L: walked to the bottom, exact totals" {
	# names are opened relative to their directory, never by whole path,
	# so following links goes past PATH_MAX as -P does
	make_deep_chain
	run -0 --separate-stderr bounded -J -L chain
	assert_equal "$stderr" ""
	assert_total files=4 pages=18 cached=11
	assert_equal "$(json_field .errors)" 0
}

@test "a low descriptor limit: 600 directories and a 200-deep chain walked, none left open (also -j 2)" {
	local level path=tree/chain
	mkdir -p tree
	for ((level = 0; level < 600; level++)); do
		mkdir "tree/d$level"
		: >"tree/d$level/f"
	done
	for ((level = 1; level <= 200; level++)); do path+=/d; done
	mkdir -p "$path"
	: >"$path/bottom"
	# the walk holds at most 65 directory descriptors: one not closed per
	# directory would run out long before the end
	run -0 --separate-stderr bash -c 'ulimit -n 80 && "$PAGESTAT" -J tree'
	assert_equal "$stderr" ""
	assert_total files=601
	# workers hold up to 64 more: they start where some 150 are free
	# (jobs.c), which 200 leaves
	run -0 --separate-stderr bash -c 'ulimit -n 200 && "$PAGESTAT" -j 2 -J tree'
	assert_equal "$stderr" ""
	assert_total files=601
}

# ---- width -----------------------------------------------------------------

@test "100,000 entries in one directory: all counted, in the memory a tree of 100 directories of 1,000 takes" {
	"$PCARRANGE" tree flat 1 100000 0
	"$PCARRANGE" tree tree 100 1000 0
	# 100,000 rows: to a file, not through run
	pcarrange maxrss rss.flat-a "$PAGESTAT" -a -J flat/d0 >flat.json 2>flat.err ||
		fail "exit $?: $(<flat.err)"
	assert_equal "$(<flat.err)" ""
	assert_equal "$(jq '[.rows[] | select(.type == "file")] | length' flat.json)" 100000
	assert_equal "$(jq -r '.rows[-1] | "\(.path) \(.files)"' flat.json)" "flat/d0 100000"
	assert_equal "$(jq '.total.files' flat.json)" 100000
	assert_equal "$(jq '.errors' flat.json)" 0

	[[ ${PAGESTAT_SANITIZERS-} != yes ]] ||
		skip "built with sanitizers (PAGESTAT_SANITIZERS=yes): ASan inflates RSS"
	pcarrange maxrss rss.flat "$PAGESTAT" flat/d0 >/dev/null
	pcarrange maxrss rss.tree "$PAGESTAT" tree >/dev/null
	local flat_a flat tree
	flat_a=$(<rss.flat-a) flat=$(<rss.flat) tree=$(<rss.tree)
	echo "# peak RSS: one directory of 100,000: $flat KiB ($flat_a KiB with -a -J);" \
		"100 of 1,000: $tree KiB" >&3
	# the directory is read a buffer at a time (glibc's fts, which reads
	# it whole, took some 31 MiB here): neither its size nor a row per
	# entry may cost memory
	((flat < tree + 512)) ||
		fail "one directory of 100,000 ($flat KiB) takes more than 100 of 1,000 ($tree KiB)"
	((flat_a < flat + 512)) ||
		fail "a row for each entry ($flat_a KiB) costs more than none ($flat KiB): rows are kept"
	((flat_a < 8192)) || fail "peak RSS $flat_a KiB is not below 8 MiB"
}

# ---- cycles ------------------------------------------------------------------
# walk.bats covers a link to an ancestor with -L ("-L: a directory link to
# its ancestor is reported, not followed") and -P/-H never following.

@test "-L: two directories linked to each other: one cycle reported, each file once" {
	mkdir -p top/a top/b
	make_cached top/a/fa 2
	make_partial top/b/fb 4 0 1
	ln -s ../b top/a/tob
	ln -s ../a top/b/toa
	run -1 --separate-stderr bounded -J -L -a top
	assert_equal "$(grep -c cycle <<<"$stderr")" 1
	assert_equal "$(json_field '[.rows[] | select(.error) | .error]')" "$(jq -n '["directory cycle: not followed"]')"
	assert_equal "$(json_field '[.rows[] | select(.type == "file")] | length')" 2
	assert_row top files=2 pages=6 cached=3
	assert_total files=2 pages=6 cached=3
	assert_equal "$(json_field .errors)" 1
}

@test "-L: links that loop among themselves (l -> l, a -> b -> a): each named with ELOOP, exit 1" {
	# as du -L, find -L and ls -L do: such a link leads nowhere, and
	# passing over it in silence would claim every file was inspected
	mkdir dir
	make_cached dir/f 2
	ln -s self dir/self
	ln -s b dir/a
	ln -s a dir/b
	run -1 --separate-stderr bounded -J -L -a dir
	assert_stderr_has "'dir/self'" "'dir/a'" "'dir/b'" "Too many levels of symbolic links"
	assert_row dir/self errno=ELOOP
	assert_row dir/a errno=ELOOP
	assert_row dir/b errno=ELOOP
	assert_row dir files=1 cached=2
	assert_equal "$(json_field .errors)" 3
}

@test "a looping link named with -L or -H: ELOOP, not 'No such file or directory'" {
	ln -s self self
	for opt in -L -H; do
		run -1 --separate-stderr bounded -J $opt self
		assert_stderr_has "'self'" "Too many levels of symbolic links"
		assert_row self errno=ELOOP
	done
}

@test "a directory bind-mounted inside itself: the cycle reported once, no hang, exit 1 (-P, -L, -x)" {
	require_root "bind mounts need root"
	mkdir -p b/inner b/sub
	make_cached b/f 2
	make_partial b/sub/g 4 1 1
	mount --bind b b/inner 2>/dev/null || skip "cannot bind-mount here"
	MOUNTED=$PWD/b/inner
	# a second, recursive bind stacks the first inside: still one cycle
	for stack in bind rbind; do
		if [[ $stack == rbind ]]; then
			mount --rbind b b/inner || fail "mount --rbind failed"
		fi
		for opt in -P -L -x; do
			run -1 --separate-stderr bounded -J -a $opt b
			assert_equal "$(grep -c . <<<"$stderr")" 1
			assert_stderr_has "'b/inner'" "cycle"
			assert_row b/inner type=directory error="directory cycle: not followed"
			assert_row b/f cached=2
			assert_row b/sub/g cached=1
			assert_row b files=2 pages=6 cached=3
			assert_equal "$(json_field '.rows | length')" 4
			assert_equal "$(json_field .errors)" 1
		done
	done
}

# ---- a tree changing during the walk ---------------------------------------
# A tree changed without pause under 80 runs: tests/stress/churn.bats
# (make check-stress).  Here, one change at a chosen moment each.

# Runs pagestat ARG... under gdb, stopped as it is about to open the file
# NAME, runs the shell command CMD there, and lets it go on.  Sets status,
# output (stdout) and stderr as run does.
# usage: stop_at_open NAME CMD ARG...
stop_at_open() {
	local name=$1 cmd=$2 code
	shift 2
	rearrange
	# LeakSanitizer cannot work under ptrace: no leak check in this run
	run env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 120 \
		gdb -q -batch -ex 'set breakpoint pending on' \
		-ex "break inspect_at if \$_streq(ref->name, \"$name\")" \
		-ex "set args $* >out 2>err" -ex run \
		-ex "shell $cmd" -ex continue --args "$PAGESTAT"
	[[ $output == *"Breakpoint 1, inspect_at"* ]] ||
		skip "gdb could not stop pagestat in inspect_at: $output"
	code=$(sed -n 's/.*exited with code \([0-9]*\).*/\1/p; s/.*exited normally.*/0/p' <<<"$output")
	[[ $code == 0 || $code == 01 ]] || fail "pagestat did not end with 0 or 1: $output"
	output=$(<out) stderr=$(<err) status=$((10#$code))
}

@test "a directory moved out of the tree while the walk is inside it: walked to its end, exit 0" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	local d moved
	mkdir tree elsewhere
	for d in a0 a1 a2 a3 a4; do
		mkdir -p "tree/$d/sub"
		make_cached "tree/$d/sub/in-$d" 2
		make_cached "tree/$d/sub/z-$d" 1
		make_cached "tree/$d/f" 1
	done
	# the first directory listed is moved, so that the walk has the
	# others still to do; gdb stops pagestat about to open a file in it,
	# the same moment every run, no sleeping
	moved=$(ls -U tree | head -n 1)
	stop_at_open "in-$moved" "mv tree/$moved elsewhere/" -a --format=ndjson tree
	assert_stderr_clean
	assert_adds_up ndjson tree
	# the walk holds a descriptor of each directory it is in: the moved
	# one is walked to its end, its files under the paths met
	assert_equal "$stderr" ""
	assert_equal "exit $status" "exit 0"
	assert_equal "$(jq -s '.[-1].files' <<<"$output")" 15
	assert_equal "$(jq -s '.[-1].cached' <<<"$output")" 20
	assert_equal "$(jq -s -r '[.[] | select(.type == "file") | .path | select(startswith("tree/'"$moved"'/"))] | sort | join(" ")' <<<"$output")" \
		"tree/$moved/f tree/$moved/sub/in-$moved tree/$moved/sub/z-$moved"
}

@test "a directory removed while the walk is below it, its contents moved out first: ends there, no error, exit 0" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	mkdir -p tree/gone/sub tree/other elsewhere
	make_cached tree/gone/sub/in 2
	make_cached tree/other/f 1
	# gone is listed whole before the walk enters sub; once it is removed,
	# getdents64 on it fails with ENOENT, which readdir(3) (and fts) take
	# as its end (POSIX): nothing was left unread
	stop_at_open in "mv tree/gone/sub elsewhere/ && rmdir tree/gone" -a -d 3 --format=ndjson tree
	assert_stderr_clean
	assert_adds_up ndjson tree
	assert_equal "$stderr" ""
	assert_equal "exit $status" "exit 0"
	assert_equal "$(jq -s '.[-1].files' <<<"$output")" 2
	assert_equal "$(jq -s '.[-1].cached' <<<"$output")" 3
	assert_equal "$(jq -s -c '[.[] | select(.path == "tree/gone") | .files]' <<<"$output")" "[1]"
}

# A chain 70 deep (past the 64 levels whose directories stay open), with
# a file at the bottom and one beside each of the last directories.
make_moving_chain() {
	local level path=tree
	mkdir tree elsewhere
	for ((level = 1; level <= 70; level++)); do
		path+=/d$level
	done
	mkdir -p "$path"
	make_cached "$path/bottom" 2
	for ((level = 66; level <= 69; level++)); do
		make_cached "$(chain_path "$level")/beside-$level" 1
	done
}

chain_path() {
	local level path=tree
	for ((level = 1; level <= $1; level++)); do path+=/d$level; done
	echo "$path"
}

@test "70 deep, the bottom directory moved away while the walk is in it: its parents are found again, exit 0" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	make_moving_chain
	# d69 was read whole and closed; ".." of d70 is now elsewhere, so the
	# walk opens d69 again down from d64 (the deepest still open), checked
	stop_at_open bottom "mv $(chain_path 70) elsewhere/" --format=ndjson -a tree
	assert_stderr_clean
	assert_adds_up ndjson tree
	assert_equal "$stderr" ""
	assert_equal "exit $status" "exit 0"
	assert_equal "$(jq -s '.[-1].files' <<<"$output")" 5
	assert_equal "$(jq -s '.[-1].cached' <<<"$output")" 6
	assert_equal "$(jq -s '[.[] | select(.type == "file" and (.path | test("beside-6[6-9]$")))] | length' <<<"$output")" 4
}

@test "70 deep, directories moved apart while the walk is below them: the lost one said, exit 1, totals add up" {
	command -v gdb >/dev/null || skip "gdb is not installed"
	make_moving_chain
	local first last
	first=$(ls -U "$(chain_path 69)" | head -n 1) last=$(ls -U "$(chain_path 69)" | tail -n 1)
	# d69 moved away and d70 out of it: the walk cannot find d69 again
	# (neither through ".." nor down from d64); what it counted stays
	# counted; d66 to d68 are found again
	stop_at_open bottom "mv $(chain_path 69) elsewhere/ && mv elsewhere/d69/d70 elsewhere/d70" \
		--format=ndjson -a tree
	assert_stderr_clean
	assert_adds_up ndjson tree
	local files
	files=$(jq -s -r '[.[] | select(.type == "file") | .path | sub(".*/"; "")] | sort | join(" ")' <<<"$output")
	if [[ $last == d70 ]]; then
		# nothing left to walk in d69 (beside-69 came first): not lost
		echo "# d69 lists d70 last: nothing lost" >&3
		assert_equal "exit $status" "exit 0"
		assert_equal "$stderr" ""
		assert_equal "$files" "beside-66 beside-67 beside-68 beside-69 bottom"
		return
	fi
	assert_equal "exit $status" "exit 1"
	assert_stderr_has "cannot access '$(chain_path 69)'" "No such file or directory"
	assert_equal "$(jq -s -r '[.[] | select(.error) | .path] | join(" ")' <<<"$output")" "$(chain_path 69)"
	# beside-69, still to be walked in d69 (after d70), is not counted
	assert_equal "$files" "beside-66 beside-67 beside-68 bottom"
	[[ $first == d70 ]] || fail "d69 lists $first first and d70 in the middle: it has two entries"
}

# ---- output that cannot be written -------------------------------------------
# cli.bats covers the table and JSON of a small run: /dev/full ("stdout on
# a full device"), a reader quitting ("a reader that quits early") and a
# closed stdout ("stdout closed").  Here every format, with more output
# than stdio buffers, so that the failure comes in mid-walk.

@test "every format, output past the buffers: /dev/full and closed stdout exit 3, said once; a quitting reader, silently" {
	local files=$((64 * PAGE / 100 / 20 + 1)) format
	pcarrange tree big 20 "$files" 1
	for format in table csv json ndjson; do
		run -3 --separate-stderr bash -c '"$PAGESTAT" -a --format="$1" big >/dev/full' _ "$format"
		assert_equal "$stderr" "pagestat: write error: No space left on device"
		refute_output
		run -3 --separate-stderr bash -c '"$PAGESTAT" -a --format="$1" big >&-' _ "$format"
		assert_equal "$(grep -c . <<<"$stderr")" 1
		assert_stderr_has "pagestat: write error"
		run -3 --separate-stderr bash -c 'set -o pipefail; "$PAGESTAT" -a --format="$1" big | head -n 1' _ "$format"
		assert_equal "$stderr" ""
		assert_equal "${#lines[@]}" 1
	done
}

# ---- sparse and huge files ---------------------------------------------------
# counts.bats covers the empty file, method.bats a /proc file (both with
# percent null), range.bats the 2 TiB file with -S and -e.

@test "a sparse file: holes are pages; a 2 TiB file with nothing cached: percent 0, not null" {
	truncate -s $((20 * PAGE)) sparse
	dd if=/dev/zero of=sparse bs="$PAGE" seek=3 count=1 conv=notrunc status=none
	dd if=/dev/zero of=sparse bs="$PAGE" seek=12 count=1 conv=notrunc status=none
	(($(stat -c '%b * %B' sparse) < 20 * PAGE)) || skip "this file system does not keep holes"
	# one page read from a hole is cached as any other
	arrange_pages sparse 3 1 7 1 12 1
	run -0 --separate-stderr pagestat -J sparse
	assert_row sparse size=$((20 * PAGE)) pages=20 cached=3 percent=15

	truncate -s $((2 ** 41)) big 2>/dev/null || skip "this file system refuses a 2 TiB sparse file"
	arrange_pages big
	local pages=$((2 ** 41 / PAGE))
	run -0 --separate-stderr pagestat -J big
	assert_row big size=$((2 ** 41)) pages=$pages cached=0 percent=0
	assert_equal "$(json_field '.rows[0].percent | type')" number
	run -0 --separate-stderr pagestat --csv -n -o path,pages,cached,percent big
	assert_output "big,$pages,0,0,0.0"
	run -0 --separate-stderr pagestat -n -p -o pages,cached,percent big
	# PERCENT is six wide (100.0%)
	assert_output "$pages 0   0.0%"
}
