#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The walk: which rows exist and what each directory row totals; hard
# links; symbolic links and cycles; FIFOs, sockets and devices; directories
# and files the user may not inspect; -x; block devices.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# Whatever a test made outside $BATS_TEST_TMPDIR, or that would stop bats
# from removing it, goes here, also when the test failed half-way.
teardown() {
	if [[ -n ${FIFO_WRITER-} ]]; then
		kill "$FIFO_WRITER" 2>/dev/null || true
		wait "$FIFO_WRITER" 2>/dev/null || true
	fi
	remove_loop_device
	if [[ -n ${MOUNTED-} ]] && mountpoint -q "$MOUNTED"; then
		umount "$MOUNTED" || umount -l "$MOUNTED" || true
	fi
	leave_nobody_dir
}

# ---- helpers -------------------------------------------------------------

# The row of path A comes before the row of path B.
assert_before() {
	local order
	order=$(jq --arg a "$1" --arg b "$2" \
		'[.rows[].path] | (index($a) // -1) < (index($b) // -1) and index($a) != null' \
		<<<"$output")
	[[ $order == true ]] || fail "row '$1' is not before row '$2': $(row_paths)"
}

# top/a            3 pages, all cached
# top/sub/b        7 pages, pages 2 and 3 cached
# top/sub/deep/c   4 pages, cached and dirty
make_tree() {
	mkdir -p top/sub/deep
	make_cached top/a 3
	make_partial top/sub/b 7 2 2
	make_dirty top/sub/deep/c 4
}

# A writer blocked opening FIFO for writing; it creates MARK as soon as
# any reader opens the FIFO, so MARK tells whether someone opened it.
start_fifo_writer() {
	local fifo=$1 mark=$2
	(exec 4>"$fifo" && : >"$mark") 3>&- >/dev/null 2>&1 &
	FIFO_WRITER=$!
	blocked_on_fifo "$FIFO_WRITER" ||
		skip "cannot tell when the FIFO writer blocks (/proc/PID/wchan)"
}

# MARK must not exist: nobody opened the FIFO.  Then open it ourselves
# and see MARK appear, which proves the check could have failed.
assert_fifo_untouched() {
	local fifo=$1 mark=$2 i reader
	sleep 0.2
	assert_file_not_exists "$mark"
	exec {reader}<>"$fifo"
	for ((i = 0; i < 100; i++)); do
		[[ -e $mark ]] && break
		sleep 0.05
	done
	exec {reader}<&-
	assert_file_exists "$mark"
}

# ---- rows and totals -----------------------------------------------------

@test "an operand's row totals every regular file below it" {
	make_tree
	run -0 --separate-stderr pagestat -J top
	assert_equal "$(row_paths)" "top"
	assert_row top type=directory files=3 size=$((14 * PAGE)) pages=14 \
		cached=9 cached_bytes=$((9 * PAGE)) dirty=4 dirty_bytes=$((4 * PAGE))
	assert_total files=3 size=$((14 * PAGE)) pages=14 cached=9 dirty=4
	assert_equal "$(json_field .errors)" 0
}

@test "-d 2: a row for every directory down to depth 2, subdirectories first" {
	make_tree
	run -0 --separate-stderr pagestat -J -d 2 top
	assert_equal "$(row_paths)" "top/sub/deep top/sub top"
	assert_row top/sub/deep type=directory files=1 size=$((4 * PAGE)) pages=4 cached=4 dirty=4
	assert_row top/sub type=directory files=2 size=$((11 * PAGE)) pages=11 cached=6 dirty=4
	assert_row top type=directory files=3 size=$((14 * PAGE)) pages=14 cached=9 dirty=4
	assert_total files=3 cached=9
}

@test "-d 1 stops at depth 1 and -d 0 shows the operand only, with the same totals" {
	make_tree
	run -0 --separate-stderr pagestat -J -d 1 top
	assert_equal "$(row_paths)" "top/sub top"
	assert_row top/sub files=2 size=$((11 * PAGE)) cached=6 dirty=4
	assert_row top files=3 size=$((14 * PAGE)) cached=9 dirty=4

	run -0 --separate-stderr pagestat -J -d 0 top
	assert_equal "$(row_paths)" "top"
	assert_row top files=3 cached=9
}

@test "-d rows in the table: subdirectory rows before their parent" {
	make_tree
	run -0 --separate-stderr pagestat -n -p -o files,cached,path -d 2 top
	assert_equal "${#lines[@]}" 3
	assert_line -n 0 --regexp '^ *1 +4 +top/sub/deep$'
	assert_line -n 1 --regexp '^ *2 +6 +top/sub$'
	assert_line -n 2 --regexp '^ *3 +9 +top$'
}

@test "-a: a row for every file, no rows for subdirectories, files before the operand" {
	make_tree
	run -0 --separate-stderr pagestat -J -a top
	assert_equal "$(jq '.rows | length' <<<"$output")" 4
	assert_row top/a type=file files=1 size=$((3 * PAGE)) pages=3 cached=3 dirty=0
	assert_row top/sub/b type=file files=1 size=$((7 * PAGE)) pages=7 cached=2 dirty=0
	assert_row top/sub/deep/c type=file files=1 size=$((4 * PAGE)) pages=4 cached=4 dirty=4
	refute_row top/sub
	refute_row top/sub/deep
	assert_equal "$(jq -r '.rows[-1].path' <<<"$output")" top
	assert_row top files=3 cached=9
}

@test "-a -d 3: every file and directory, each before its directory (post-order)" {
	make_tree
	run -0 --separate-stderr pagestat -J -a -d 3 top
	assert_equal "$(jq '.rows | length' <<<"$output")" 6
	assert_before top/sub/deep/c top/sub/deep
	assert_before top/sub/deep top/sub
	assert_before top/sub/b top/sub
	assert_before top/sub top
	assert_before top/a top
	assert_row top/sub/deep files=1 cached=4
	assert_row top/sub files=2 cached=6
	assert_row top files=3 cached=9
}

@test "-a -d 2: top/sub/deep/c (depth 3) gets no row but is in the totals" {
	make_tree
	run -0 --separate-stderr pagestat -J -a -d 2 top
	assert_equal "$(jq '.rows | length' <<<"$output")" 5
	refute_row top/sub/deep/c
	assert_row top/sub/deep files=1 cached=4 dirty=4
	assert_row top/sub/b cached=2
	assert_row top files=3 cached=9
}

@test "-a -d 1: files only down to depth 1, totals still whole" {
	make_tree
	run -0 --separate-stderr pagestat -J -a -d 1 top
	assert_equal "$(jq '.rows | length' <<<"$output")" 3
	assert_row top/a type=file cached=3
	assert_row top/sub type=directory files=2 cached=6 dirty=4
	assert_row top files=3 cached=9 dirty=4
	refute_row top/sub/b
	refute_row top/sub/deep/c
	refute_row top/sub/deep
}

@test "several operands: one row each, in the order given, not sorted" {
	mkdir zulu alpha
	make_cached zulu/z 2
	make_partial alpha/x 5 0 1
	make_cached mid 3
	run -0 --separate-stderr pagestat -J zulu mid alpha
	assert_equal "$(row_paths)" "zulu mid alpha"
	assert_row zulu type=directory files=1 cached=2
	assert_row mid type=file files=1 cached=3
	assert_row alpha type=directory files=1 pages=5 cached=1
	assert_total files=3 pages=10 cached=6

	run -0 --separate-stderr pagestat -J alpha zulu
	assert_equal "$(row_paths)" "alpha zulu"
}

# ---- hard links ------------------------------------------------------------

@test "hard links in one tree: the inode counts once and gets one row" {
	mkdir hl
	make_cached hl/x 5
	ln hl/x hl/y
	make_dropped hl/z 2
	run -0 --separate-stderr pagestat -J hl
	assert_row hl files=2 pages=7 cached=5

	run -0 --separate-stderr pagestat -J -a hl
	assert_equal "$(jq '[.rows[] | select(.path == "hl/x" or .path == "hl/y")] | length' <<<"$output")" 1
	assert_row hl/z cached=0
	assert_row hl files=2 cached=5
	assert_equal "$(jq '.rows | length' <<<"$output")" 3
}

@test "hard links across two operands count once, in the first" {
	mkdir one two
	make_cached one/x 5
	ln one/x two/y
	run -0 --separate-stderr pagestat -J one two
	assert_row one files=1 cached=5
	assert_row two files=0 cached=0
	assert_total files=1 pages=5 cached=5
}

@test "-l counts a hard-linked inode each time it is met" {
	mkdir hl two
	make_cached hl/x 5
	ln hl/x hl/y
	ln hl/x two/w
	run -0 --separate-stderr pagestat -J -l -a hl two
	assert_row hl/x cached=5
	assert_row hl/y cached=5
	assert_row two/w cached=5
	assert_row hl files=2 cached=10
	assert_row two files=1 cached=5
	assert_total files=3 cached=15
}

@test "overlapping operands: each file counts once per run, met again it gets no row (as du)" {
	mkdir -p top/sub
	make_cached top/f 3
	make_partial top/sub/g 4 0 1
	run -0 --separate-stderr pagestat -J top/f top/f
	assert_equal "$(row_paths)" "top/f"
	assert_total files=1 pages=3 cached=3

	run -0 --separate-stderr pagestat -J top top/f top/sub
	assert_equal "$(row_paths)" "top"
	assert_row top files=2 pages=7 cached=4
	assert_total files=2 pages=7 cached=4

	run -0 --separate-stderr pagestat -J top/sub top
	assert_equal "$(row_paths)" "top/sub top"
	assert_row top/sub files=1 cached=1
	assert_row top files=1 pages=3 cached=3
	assert_total files=2 pages=7 cached=4

	run -0 --separate-stderr pagestat -J -l top/f top/f
	assert_total files=2 cached=6
}

# ---- symbolic links --------------------------------------------------------

# tree/own          2 pages cached
# tree/flink  ->    outside/t, 6 pages, pages 1..4 cached
# tree/dlink  ->    elsewhere/, holding u: 1 page cached
# link        ->    tree
# filelink    ->    outside/t
make_links() {
	mkdir tree outside elsewhere
	make_cached tree/own 2
	make_partial outside/t 6 1 4
	make_cached elsewhere/u 1
	ln -s ../outside/t tree/flink
	ln -s ../elsewhere tree/dlink
	ln -s tree link
	ln -s outside/t filelink
}

@test "a symbolic link inside a tree is not followed: by default, with -H or -P" {
	make_links
	local opt
	for opt in "" -H -P; do
		run -0 --separate-stderr pagestat -J $opt -a tree
		assert_equal "rows with '$opt': $(row_paths)" "rows with '$opt': tree/own tree"
		assert_row tree files=1 pages=2 cached=2
		assert_equal "stderr with '$opt': $stderr" "stderr with '$opt': "
	done
}

@test "by default a symbolic link operand is followed: a link to a directory and one to a file" {
	make_links
	run -0 --separate-stderr pagestat -J -a link
	assert_equal "$(row_paths)" "link/own link"
	assert_row link/own type=file pages=2 cached=2
	assert_row link type=directory files=1 pages=2 cached=2
	assert_equal "$stderr" ""

	run -0 --separate-stderr pagestat -J filelink
	assert_row filelink type=file files=1 pages=6 cached=4
	assert_total files=1 pages=6 cached=4
	assert_equal "$stderr" ""

	run -0 --separate-stderr pagestat -n -p -o cached,pages,files,path link filelink
	assert_equal "$output" "$(printf '%s\n' "2 2 1 link" "4 6 1 filelink")"

	# the workers open the file through the link too
	run -0 --separate-stderr pagestat -j 2 -J filelink link
	assert_row filelink files=1 pages=6 cached=4
	assert_row link files=1 pages=2 cached=2
	assert_equal "$stderr" ""
}

@test "-H is the default spelled out: the same output as no option" {
	make_links
	local args
	for args in "-J -a link filelink tree" "-c -p -a link filelink" "-J -a tree/flink tree/dlink"; do
		run -0 --separate-stderr pagestat $args
		local plain=$output plain_err=$stderr
		run -0 --separate-stderr pagestat -H $args
		assert_equal "-H $args: $output" "-H $args: $plain"
		assert_equal "stderr of -H $args: $stderr" "stderr of -H $args: $plain_err"
	done
	# the default is not -P (nor -L), which give other figures
	run -0 pagestat -J -a tree/dlink
	assert_row tree/dlink type=directory files=1 cached=1
}

@test "-P: a symbolic link operand is not followed: said on stderr, no row, exit 0" {
	make_links
	run -0 --separate-stderr pagestat -J -P link filelink
	assert_equal "rows: $(jq '.rows | length' <<<"$output")" "rows: 0"
	assert_total files=0 cached=0
	assert_stderr_has "'link' is a symbolic link: not followed with -P" \
		"'filelink' is a symbolic link: not followed with -P" "the default"
	assert_equal "$(grep -c 'not followed' <<<"$stderr")" 2

	run -0 --separate-stderr pagestat -n -P link
	assert_output ""
	# -q: the note is one of those that go with per-file messages
	run -0 --separate-stderr pagestat -q -J -P link
	assert_equal "stderr with -q: $stderr" "stderr with -q: "
	# the last of -P, -H, -L wins
	run -0 --separate-stderr pagestat -J -P -H filelink
	assert_row filelink cached=4
	run -0 --separate-stderr pagestat -J -H -P filelink
	assert_equal "rows: $(jq '.rows | length' <<<"$output")" "rows: 0"
}

@test "a link and its target both named count once, at the first (as du -H)" {
	make_links
	# the link first: the directory it leads to is not walked again
	run -0 --separate-stderr pagestat -J -c link tree
	assert_equal "$(row_paths)" "link"
	assert_row link files=1 pages=2 cached=2
	assert_total files=1 pages=2 cached=2
	run -0 --separate-stderr pagestat -J tree link
	assert_equal "$(row_paths)" "tree"
	assert_total files=1 pages=2 cached=2
	# a file met through a link operand, then by its name, or in a directory
	run -0 --separate-stderr pagestat -J filelink outside/t
	assert_equal "$(row_paths)" "filelink"
	assert_total files=1 pages=6 cached=4
	run -0 --separate-stderr pagestat -J outside/t filelink
	assert_equal "$(row_paths)" "outside/t"
	assert_total files=1 pages=6 cached=4
	run -0 --separate-stderr pagestat -J outside filelink
	assert_equal "$(row_paths)" "outside"
	assert_total files=1 pages=6 cached=4
	run -0 --separate-stderr pagestat -J filelink outside
	assert_equal "$(row_paths)" "filelink outside"
	assert_row outside files=0 cached=0
	assert_total files=1 pages=6 cached=4
	# a link below an operand, named too: counted where named
	run -0 --separate-stderr pagestat -J tree tree/flink
	assert_row tree files=1 cached=2
	assert_row tree/flink type=file cached=4
	assert_total files=2 pages=8 cached=6
	assert_equal "$stderr" ""
}

@test "--files0-from: a name that is a symbolic link is followed like an operand" {
	make_links
	printf 'link\0filelink\0tree/dlink\0' >names
	run -0 --separate-stderr pagestat -J -a --files0-from=names
	assert_equal "$(row_paths)" "link/own link filelink tree/dlink/u tree/dlink"
	assert_row link files=1 cached=2
	assert_row filelink type=file pages=6 cached=4
	assert_row tree/dlink type=directory files=1 cached=1
	assert_total files=3 pages=9 cached=7
	assert_equal "$stderr" ""

	run -0 --separate-stderr pagestat -J -P --files0-from=- <names
	assert_equal "rows: $(jq '.rows | length' <<<"$output")" "rows: 0"
	assert_stderr_has "'link' is a symbolic link: not followed" \
		"'filelink' is a symbolic link: not followed" \
		"'tree/dlink' is a symbolic link: not followed"
}

@test "a link operand that leads nowhere is an error by default (as du -H); -P passes over it" {
	ln -s nowhere dangling
	ln -s self self
	run -1 --separate-stderr pagestat -J dangling self
	assert_stderr_has "cannot access 'dangling': No such file or directory" \
		"cannot access 'self': Too many levels of symbolic links"
	assert_row dangling errno=ENOENT
	assert_row self errno=ELOOP
	assert_equal "$(json_field .errors)" 2

	run -0 --separate-stderr pagestat -J -P dangling self
	assert_equal "$(json_field .errors)" 0
	assert_stderr_has "'dangling' is a symbolic link: not followed" \
		"'self' is a symbolic link: not followed"
}

@test "-L follows every link, operands and inside" {
	make_links
	run -0 --separate-stderr pagestat -J -L -a link
	assert_row link/own cached=2
	assert_row link/flink type=file pages=6 cached=4
	assert_row link/dlink/u type=file pages=1 cached=1
	assert_row link type=directory files=3 pages=9 cached=7
	assert_equal "$stderr" ""
}

@test "-L: a file reached by its name and through a link counts once (as du -L)" {
	mkdir tree
	make_cached tree/real 4
	ln -s real tree/alias
	run -0 --separate-stderr pagestat -J -L -a tree
	assert_equal "$(jq '[.rows[] | select(.path == "tree/real" or .path == "tree/alias")] | length' <<<"$output")" 1
	assert_row tree files=1 pages=4 cached=4
}

@test "-L: a directory link to its ancestor is reported, not followed: no hang, exit 1" {
	mkdir -p loop/a
	make_cached loop/a/f 2
	ln -s .. loop/a/up
	run -1 --separate-stderr timeout 10 "$PAGESTAT" -J -L loop
	assert_stderr_has "loop/a/up" "cycle"
	assert_row loop/a/up type=directory errno=null
	[[ $(jq -r '.rows[] | select(.path == "loop/a/up") | .error' <<<"$output") == *cycle* ]] ||
		fail "the error row for loop/a/up does not name the cycle: $output"
	assert_row loop files=1 cached=2
	assert_equal "$(json_field .errors)" 1
}

# ---- FIFOs, sockets, devices ---------------------------------------------

@test "a FIFO inside a tree is neither opened nor counted; the walk does not block" {
	mkdir dir
	make_cached dir/regular 3
	mkfifo dir/pipe
	start_fifo_writer dir/pipe opened
	run -0 --separate-stderr timeout 10 "$PAGESTAT" -J -a dir
	assert_equal "$(row_paths)" "dir/regular dir"
	assert_row dir files=1 cached=3
	assert_equal "$stderr" ""
	assert_fifo_untouched dir/pipe opened
}

@test "FIFOs, sockets and devices inside a tree: never opened, not even stat()ed (strace)" {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	mkdir -p dir/sub
	make_cached dir/sub/regular 2
	mkfifo dir/pipe dir/sub/pipe2
	(cd dir && "$PYTHON3" -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("sock")')
	if ((EUID == 0)); then mknod dir/sub/null c 1 3 || true; fi
	# every call that takes a file name, on every thread; LeakSanitizer
	# cannot work under ptrace: no leak check in these runs
	local asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	run -0 env ASAN_OPTIONS="$asan" strace -f -o trace -e trace=%file "$PAGESTAT" -J -a -j 2 dir
	assert_row dir files=1 cached=2
	assert grep -q 'regular' trace
	refute grep -E 'pipe|sock|null"' trace
	# the same with -L, where links are followed (and these are not links)
	run -0 env ASAN_OPTIONS="$asan" strace -f -o trace -e trace=%file "$PAGESTAT" -J -L dir
	assert_row dir files=1 cached=2
	refute grep -E 'pipe|sock|null"' trace
}

@test "a FIFO named on the command line: not a regular file, exit 1, never opened" {
	mkfifo pipe
	start_fifo_writer pipe opened
	run -1 --separate-stderr timeout 10 "$PAGESTAT" -J pipe
	assert_stderr_has "'pipe'" "not a regular file"
	assert_row pipe error="a FIFO, not a regular file" errno=null
	assert_total files=0
	assert_equal "$(json_field .errors)" 1
	assert_fifo_untouched pipe opened
}

@test "a unix socket inside a tree is skipped; named on the command line it is refused" {
	mkdir dir
	make_cached dir/regular 2
	(cd dir && "$PYTHON3" -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("sock")')
	[[ -S dir/sock ]] || fail "no socket made"
	run -0 --separate-stderr pagestat -J -a dir
	assert_equal "$(row_paths)" "dir/regular dir"
	assert_row dir files=1 cached=2
	assert_equal "$stderr" ""

	run -1 --separate-stderr pagestat -J dir/sock
	assert_stderr_has "'dir/sock'" "not a regular file"
	assert_row dir/sock errno=null
}

@test "a character device operand (/dev/null): not a regular file, exit 1" {
	run -1 --separate-stderr pagestat -J /dev/null
	assert_stderr_has "'/dev/null'" "not a regular file"
	assert_row /dev/null error="a character device, not a regular file"
	assert_total files=0
}

@test "a character device inside a tree is skipped" {
	require_root "mknod needs CAP_MKNOD"
	mkdir dir
	make_cached dir/regular 2
	mknod dir/null c 1 3 || skip "mknod is not allowed here"
	run -0 --separate-stderr pagestat -J -a dir
	assert_equal "$(row_paths)" "dir/regular dir"
	assert_row dir files=1 cached=2
	assert_equal "$stderr" ""
}

@test "a block device operand shows its buffer cache (type blockdev)" {
	make_loop_device
	run -0 --separate-stderr pagestat -J "$LOOP_DEV"
	assert_row "$LOOP_DEV" type=blockdev files=1 size=$((64 * PAGE)) pages=64 cached=3
	assert_total files=1 cached=3
}

@test "a block device found inside a walked directory is skipped" {
	make_loop_device
	mkdir dir
	make_cached dir/regular 2
	mknod dir/blk b "$((0x$(stat -c %t "$LOOP_DEV")))" "$((0x$(stat -c %T "$LOOP_DEV")))" ||
		skip "mknod is not allowed here"
	# named, the node shows the device's 3 cached pages ...
	run -0 --separate-stderr pagestat -J dir/blk
	assert_row dir/blk type=blockdev cached=3
	# ... found by the walk, it is left alone
	run -0 --separate-stderr pagestat -J -a dir
	assert_equal "$(row_paths)" "dir/regular dir"
	assert_row dir files=1 pages=2 cached=2
	assert_equal "$stderr" ""
}

# ---- -x ------------------------------------------------------------------

@test "-x does not descend into another file system" {
	require_root "mounting a tmpfs needs root"
	mkdir -p top/mnt
	make_cached top/own 2
	mount -t tmpfs -o size=4m tmpfs top/mnt 2>/dev/null || skip "cannot mount a tmpfs here"
	MOUNTED=$PWD/top/mnt
	pcarrange write top/mnt/inside $((3 * PAGE))
	run -0 --separate-stderr pagestat -J -a top
	assert_row top/mnt/inside cached=3
	assert_row top files=2 pages=5 cached=5

	run -0 --separate-stderr pagestat -J -a -x top
	assert_equal "$(row_paths)" "top/own top"
	assert_row top files=1 pages=2 cached=2

	# an operand on the other file system is inspected, -x or not
	run -0 --separate-stderr pagestat -J -x top/mnt
	assert_row top/mnt files=1 cached=3
}

# ---- permissions (as nobody) ---------------------------------------------

@test "an unreadable directory is reported; the rest of the tree is counted; exit 1" {
	enter_nobody_dir
	mkdir -p t/ok t/locked
	make_cached t/ok/f 3
	make_partial t/h 5 1 1
	make_cached t/locked/hidden 7
	chown -R $NOBODY:$NOBODY t
	chmod 000 t/locked
	run -1 --separate-stderr as_nobody ./pagestat -J -d 1 t
	assert_stderr_has "'t/locked'" "Permission denied"
	assert_row t/locked type=directory errno=EACCES
	assert_row t/ok files=1 cached=3
	assert_row t files=2 pages=8 cached=4
	assert_total files=2 pages=8 cached=4
	assert_equal "$(json_field .errors)" 1

	run -1 --separate-stderr as_nobody ./pagestat -n -p -o files,cached,path t
	assert_output --regexp '^ *2 +4 +t$'
	assert_stderr_has "'t/locked'"
}

@test "a directory that may be listed but not searched (r--): each entry an error, as du says, exit 1" {
	enter_nobody_dir
	mkdir -p t/listed
	make_cached t/f 2
	make_cached t/listed/a 1
	make_cached t/listed/b 1
	chown -R $NOBODY:$NOBODY t
	chmod 444 t/listed
	run -1 --separate-stderr as_nobody ./pagestat -J -d 1 t
	assert_stderr_has "cannot access 't/listed/a'" "Permission denied"
	assert_stderr_has "cannot access 't/listed/b'" "Permission denied"
	assert_equal "$(json_field '[.rows[] | select(.errno == "EACCES") | .path] | sort | join(" ")')" \
		"t/listed/a t/listed/b"
	assert_row t/listed type=directory files=0
	assert_total files=1 cached=2
	assert_equal "$(json_field .errors)" 2
}

@test "a root-owned file as nobody: EPERM per file, the remedy said once, no made-up figures" {
	enter_nobody_dir
	make_dropped rootfile1 4
	make_dropped rootfile2 2
	make_cached mine 3
	chown $NOBODY:$NOBODY mine
	run -1 --separate-stderr as_nobody ./pagestat -J rootfile1 mine rootfile2
	assert_row rootfile1 errno=EPERM cached=null files=null
	assert_row rootfile2 errno=EPERM cached=null
	assert_row mine files=1 cached=3
	assert_total files=1 pages=3 cached=3
	assert_equal "$(json_field .errors)" 2
	assert_stderr_has "'rootfile1': Operation not permitted" "'rootfile2': Operation not permitted"
	assert_equal "$(grep -c CAP_FOWNER <<<"$stderr")" 1
	assert_equal "$(grep -c setcap <<<"$stderr")" 1
}

@test "a tree refused as nobody: the first 10 named, the rest counted, JSON lists each" {
	enter_nobody_dir
	mkdir t
	for i in $(seq 1 13); do make_dropped "t/root$i" 1; done
	make_cached t/mine 2
	chown $NOBODY:$NOBODY t/mine
	run -1 --separate-stderr as_nobody ./pagestat -n -p -o files,cached,path t
	assert_output --regexp '^ *1 +2 +t$'
	assert_equal "$(grep -c "Operation not permitted$" <<<"$stderr")" 10
	assert_equal "$(grep -c CAP_FOWNER <<<"$stderr")" 1
	assert_stderr_has "3 more files refused"
	run -1 --separate-stderr as_nobody ./pagestat -J t
	assert_equal "$(json_field '[.rows[] | select(.errno == "EPERM")] | length')" 13
	assert_equal "$(json_field .errors)" 13
	run -1 --separate-stderr as_nobody ./pagestat -q t
	assert_equal "$stderr" ""
}

@test "a tree of which nothing could be inspected does not look cold: its figures are unknown, its files 0" {
	enter_nobody_dir
	mkdir -p t/all t/some
	for i in 1 2 3; do make_cached "t/all/root$i" 2; done
	make_cached t/some/root 2
	make_cached t/some/mine 2
	chown $NOBODY:$NOBODY t/some/mine
	run -1 --separate-stderr as_nobody ./pagestat -q -d 1 -n -p -b -o size,cached,percent,files,path t
	# all refused: '-', not "0B 0B"; some refused: what was counted
	assert_line --regexp '^ +- +- +- +0 t/all$'
	assert_line --regexp "^ *$((2 * PAGE)) +2 +100\.0% +1 t/some\$"
	run -1 --separate-stderr as_nobody ./pagestat -q -J -d 1 t
	assert_row t/all files=0 size=null cached=null percent=null
	assert_row t/some files=1 cached=2
	run -1 --separate-stderr as_nobody ./pagestat -q --csv -d 1 -o path,cached,files t
	assert_line "t/all,,,0"
	# as root every figure is there
	run -0 --separate-stderr pagestat -J -d 1 t
	assert_row t/all files=3 cached=6
}

# ---- the walk against fts(3) ---------------------------------------------------
# src/walk/tree.c stands in for glibc's fts: tests/treecmp walks with both and
# compares every entry (case, depth, path, errno, inode), in order.

# A tree with every kind of entry the walk meets, and a directory of 3,000
# names (several getdents64 buffers) and a chain 100 deep (past the 64
# levels held open).
make_every_kind() {
	local i path=every/deep
	mkdir -p every/a/b/c every/empty every/wide
	make_cached every/a/f 1
	make_cached every/a/b/g 2
	ln every/a/f every/a/b/c/hardlink
	mkfifo every/a/pipe
	(cd every/a && "$PYTHON3" -c 'import socket; s = socket.socket(socket.AF_UNIX); s.bind("sock")')
	ln -s f every/a/to-file
	ln -s ../a every/a/b/to-dir-up
	ln -s ../../nowhere every/a/dangling
	ln -s loop every/a/loop
	for ((i = 0; i < 3000; i++)); do : >"every/wide/file-with-a-longish-name-$i"; done
	mkdir every/wide/sub
	for ((i = 1; i <= 100; i++)); do path+=/d; done
	mkdir -p "$path"
	: >"$path/bottom"
	: >"${path%/d*}/beside"
}

treecmp() {
	run "$TREECMP" "$@"
	[[ $status -eq 0 ]] || fail "tree.c and fts differ ($*): $output"
}

@test "the walk gives fts's entries, in fts's order: every kind of entry, -P, -H, -L, -x, operand forms" {
	make_every_kind
	ln -s every link-to-tree
	mkfifo fifo-operand
	local follow operand
	for follow in -P -H -L; do
		for operand in every every/ every// ./every every/a/f link-to-tree link-to-tree/ \
			every/a/dangling every/a/loop fifo-operand missing; do
			treecmp "$follow" "$operand"
			treecmp "$follow" -x "$operand"
		done
	done
	cd every/a/b
	treecmp -P .
	treecmp -L ..
	assert_output --partial "ok "
}

@test "the walk gives fts's entries on real trees: /usr/share/doc, /etc, /usr/share/man (-x), /etc/alternatives (-L)" {
	treecmp -P /usr/share/doc
	treecmp -P /etc
	treecmp -L /etc/alternatives
	treecmp -x -P /usr/share/man
	assert_output --regexp '^ok [0-9]+ entries'
}

@test "the walk gives fts's entries as nobody: unreadable (000) and unsearchable (r--) directories" {
	enter_nobody_dir
	cp "$TREECMP" ./treecmp
	mkdir -p t/ok t/locked t/listed
	: >t/ok/f
	: >t/locked/hidden
	: >t/listed/a
	chown -R $NOBODY:$NOBODY t
	chmod 000 t/locked
	chmod 444 t/listed
	run as_nobody ./treecmp t/ok t/locked
	[[ $status -eq 0 ]] || fail "tree.c and fts differ: $output"
	assert_line --partial "entries in t/locked"
	# the one difference, on purpose: glibc's fts returns nothing of a
	# directory it can list but not search, and says nothing; the walk
	# names each entry it cannot reach, as du does (see the test above)
	run as_nobody ./treecmp t/listed
	assert_equal "$status" 1
	assert_line --regexp '^  fts:  DP 0 t/listed errno=0 ino=[0-9]+$'
	assert_line '  tree: NS 1 t/listed/a errno=13 ino=0'
}

@test "the walk gives fts's entries through a directory bind-mounted inside itself (-P, -L, -x)" {
	require_root "bind mounts need CAP_SYS_ADMIN"
	mkdir -p loop/inside
	: >loop/f
	mount --bind loop loop/inside || skip "cannot bind-mount here"
	local status_p status_l status_x
	run "$TREECMP" -P loop; status_p=$status
	run "$TREECMP" -L loop; status_l=$status
	run "$TREECMP" -x loop; status_x=$status
	umount loop/inside
	assert_equal "$status_p $status_l $status_x" "0 0 0"
}
