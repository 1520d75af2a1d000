#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --browse in a real terminal: tmux runs it on an arranged tree, send-keys
# types, capture-pane reads the screen, and the figures are compared with
# what pagestat -a -d says of the same tree and what cachestat says.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	SOCK=$BATS_TEST_TMPDIR/tmux.sock
}

teardown() {
	[[ -S ${SOCK-} ]] && tmux -S "$SOCK" kill-server 2>/dev/null
	if [[ -n ${HOLDER-} ]]; then
		kill "$HOLDER" 2>/dev/null
		wait "$HOLDER" 2>/dev/null
	fi
	[[ -z ${MOUNTED-} ]] || umount "$MOUNTED" 2>/dev/null
	if [[ -n ${CG-} ]]; then
		[[ ! -d $CG-b ]] || remove_browse_cgroup "$CG-b"
		remove_browse_cgroup "$CG"
	fi
	leave_nobody_dir
	return 0
}

built_without() {
	"$PAGESTAT" --browse . </dev/null 2>&1 >/dev/null | grep -q 'built without ncursesw'
}

require_browse() {
	! built_without || skip "pagestat was built without ncursesw (libncurses-dev)"
	command -v tmux >/dev/null || skip "tmux is not installed (apt-get install tmux)"
}

tm() { tmux -S "$SOCK" "$@"; }

# pagestat --browse ARGS in a detached tmux window of COLS x ROWS (80x24)
# with LANG (C.UTF-8); the shell then says how pagestat ended (and writes
# it to $BATS_TEST_TMPDIR/status), and $BATS_TEST_TMPDIR/pid holds
# pagestat's process id.  BROWSE_BIN: another pagestat; BROWSE_AS: the
# words of a command that runs it (setpriv); BROWSE_SHELL: what the shell
# does first (a trap), BROWSE_THEN: last (sleep 600).
start_browse() {
	rearrange || return
	local cmd arg
	cmd="${BROWSE_SHELL-} sh -c 'echo \$\$ >$BATS_TEST_TMPDIR/pid; exec \"\$0\" \"\$@\"' ${BROWSE_AS-}"
	cmd+=" $(printf %q "${BROWSE_BIN:-$PAGESTAT}") --browse"
	for arg in "$@"; do
		cmd+=" $(printf %q "$arg")"
	done
	cmd+="; st=\$?; echo \$st >$BATS_TEST_TMPDIR/status; echo pagestat-exited-\$st; ${BROWSE_THEN:-sleep 600}"
	tm -f /dev/null new-session -d -x "${COLS_:-80}" -y "${ROWS_:-24}" \
		env LANG="${LANG_:-C.UTF-8}" LC_ALL= TERM=tmux-256color ${NO_COLOR_:+NO_COLOR=1} \
		bash -c "$cmd"
}

screen() { tm capture-pane -p; }

# Waits (3 minutes at most) until the first screen after a scan of the
# whole machine (--system) is drawn.
wait_scanned() {
	WAIT_TRIES=3600 wait_screen "by cached"
}

# Moves the selection (g, then j) to the line that holds TEXT; the
# selected line is drawn in reverse video (capture-pane -e shows it).
select_entry() {
	local i
	tm send-keys g
	sleep 0.2
	for ((i = 0; i < 100; i++)); do
		tm capture-pane -p -e | sed -n '4,$p' | grep -F -- "$1" | grep -qE $'\e''\[([0-9]+;)*7m' && return 0
		tm send-keys j
		sleep 0.1
	done
	echo "select_entry: no line of $1 was selected" >&2
	screen >&2
	return 1
}

# Waits (5 s at most, polled every 50 ms; WAIT_TRIES polls if set) until
# the screen holds TEXT (a fixed string).
wait_screen() {
	local i
	for ((i = 0; i < ${WAIT_TRIES:-100}; i++)); do
		screen | grep -qF -- "$1" && return 0
		sleep 0.05
	done
	echo "the screen never showed: $1" >&2
	screen >&2
	return 1
}

# Waits (5 s at most) until a line of the screen matches the extended regex RE.
wait_screen_re() {
	local i
	for ((i = 0; i < 100; i++)); do
		screen | grep -qE -- "$1" && return 0
		sleep 0.05
	done
	echo "the screen never matched: $1" >&2
	screen >&2
	return 1
}

# Waits until the line of NAME on the screen matches the extended regex RE.
wait_line() {
	local i
	for ((i = 0; i < 200; i++)); do
		line_of "$1" | grep -qE -- "$2" && return 0
		sleep 0.05
	done
	echo "the line of $1 never matched $2" >&2
	screen >&2
	return 1
}

# The listing's line of NAME, without its bar: "NAME SIZE CACHED PCT DIRTY EVICTED".
line_of() {
	screen | sed -n '4,$p' | sed 's/\[[^]]*\]//; s/^[-+*]/ /' |
		LINE_NAME=$1 awk '$1 == ENVIRON["LINE_NAME"] { $1 = $1; print }'
}

# The names of the listing, in screen order.
names_shown() {
	screen | sed -n '4,$p' | grep -F '[' | sed 's/^[-+* ]//' | awk '{ print $1 }' | paste -sd' '
}

# t: sub/ (warm: 4 pages cached; dirty: 3 pages dirty), a-cold (16 pages,
# none cached), b-hot (8, all), c-half (10, the first 5)
make_tree() {
	mkdir -p t/sub
	make_dropped t/a-cold 16
	make_cached t/b-hot 8
	make_partial t/c-half 10 0 5
	make_cached t/sub/warm 4
	make_dirty t/sub/dirty 3
}

# The table's cells (the same human units) of PATH: "SIZE CACHED PCT DIRTY EVICTED".
table_of() {
	"$PAGESTAT" -a -d 9 -n -o size,cached,percent,dirty,evicted,path t |
		awk -v p="$1" '$NF == p { NF--; print }' | sed 's/ \+/ /g; s/^ //'
}

@test "--browse: the figures on the screen are pagestat -a's, and the arranged ones" {
	require_browse
	make_tree
	# the arrangement first, as -J says it
	run -0 pagestat -a -d 9 -J t
	assert_equal "$(json_field '.rows[] | select(.path == "t/b-hot") | .cached_bytes')" $((8 * PAGE))
	assert_equal "$(json_field '.rows[] | select(.path == "t/a-cold") | .cached_bytes')" 0
	assert_equal "$(json_field '.rows[] | select(.path == "t/c-half") | .cached_bytes')" $((5 * PAGE))
	assert_equal "$(json_field '.rows[] | select(.path == "t/sub") | .cached_bytes')" $((7 * PAGE))
	assert_equal "$(json_field '.rows[] | select(.path == "t/sub") | .dirty_bytes')" $((3 * PAGE))
	start_browse t
	wait_screen "pagestat --browse t"
	local name
	rearrange
	for name in a-cold b-hot c-half; do
		wait_line "$name" "^$name "
		assert_equal "$(line_of "$name")" "$name $(table_of "t/$name")"
	done
	# the 3 dirty pages written back between the screen and the table (a
	# sync elsewhere on the machine): the test is tried again
	local dirty_now
	if [[ $(line_of sub/) != "sub/ $(table_of t/sub)" ]]; then
		dirty_now=$(pcarrange stat t/sub/dirty | awk '{ print $2 }')
		[[ $dirty_now == 3 ]] || mark_disturbed "t/sub/dirty: $dirty_now dirty pages where 3 were (written back meanwhile)"
	fi
	assert_equal "$(line_of sub/)" "sub/ $(table_of t/sub)"
	# the header: the directory's totals
	screen | sed -n 2p | grep -F "cached $(table_of t | awk '{ print $2 }')"
}

@test "--browse: sorted by cached, directories first; keys sort and the same key reverses" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	assert_equal "$(names_shown)" "sub/ b-hot c-half a-cold"
	tm send-keys c
	wait_screen "by cached, reversed"
	assert_equal "$(names_shown)" "sub/ a-cold c-half b-hot"
	tm send-keys s
	wait_screen "by size)"
	assert_equal "$(names_shown)" "sub/ a-cold c-half b-hot"
	tm send-keys n
	wait_screen "by name)"
	assert_equal "$(names_shown)" "sub/ a-cold b-hot c-half"
	tm send-keys n
	wait_screen "by name, reversed"
	assert_equal "$(names_shown)" "sub/ c-half b-hot a-cold"
	tm send-keys p
	wait_screen "by percent)"
	assert_equal "$(names_shown)" "sub/ b-hot c-half a-cold"
	tm send-keys c t
	wait_screen "by cached, mixed"
	assert_equal "$(names_shown)" "b-hot sub/ c-half a-cold"
	tm send-keys d
	wait_screen "by dirty, mixed"
	assert_equal "$(names_shown | cut -d' ' -f1)" "sub/"
	tm send-keys q
	wait_screen "pagestat-exited-0"
}

@test "--browse: ? shows the keys, any key goes back" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	tm send-keys '?'
	wait_screen "pagestat --browse: keys"
	screen | grep -F "evict the selected file or directory (asks first)"
	tm send-keys x
	wait_screen "by cached"
}

@test "--browse: while the walk goes on, the files, bytes and path found so far; keys but q wait, q quits" {
	require_browse
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	mkdir -p slow/d1 slow/d2 slow/d3
	make_cached slow/d1/f 2
	make_cached slow/d2/g 2
	make_cached slow/d3/h 2
	# each directory read takes half a second: the walk is seen under way
	# (LeakSanitizer cannot work under ptrace: a sanitizer build's at exit)
	BROWSE_AS="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -o /dev/null -e trace=getdents64 -e inject=getdents64:delay_enter=500000" \
		start_browse slow
	wait_screen "pagestat --browse: scanning"
	wait_screen_re "^  files [1-9][0-9]*, [0-9.]+K \\(cached [0-9.]+K\\)"
	wait_screen_re "^  slow/d[123]/[fgh]"
	wait_screen "q quits; other keys wait for the scan"
	tm send-keys j
	wait_screen "scanning"
	tm send-keys q
	wait_screen "pagestat-exited-0"
	assert_equal "$(tm display -p '#{alternate_on} #{cursor_flag}')" "0 1"
}

@test "--browse takes -j, the range and the walk's filters as any inspection does" {
	require_browse
	make_tree
	local opts=(-j 2 --length=$((2 * PAGE)) --exclude=c-half)
	start_browse "${opts[@]}" t
	wait_screen "by cached"
	assert_equal "$(names_shown)" "sub/ b-hot a-cold"
	local name row
	for name in a-cold b-hot; do
		row=$("$PAGESTAT" "${opts[@]}" -a -d 9 -n -o size,cached,percent,dirty,evicted,path t |
			awk -v p="t/$name" '$NF == p { NF--; print }' | sed 's/ \+/ /g; s/^ //')
		assert_equal "$(line_of "$name")" "$name $row"
	done
	# the range mattered: the whole file's figures differ
	[[ $(line_of b-hot) != "b-hot $(table_of t/b-hot)" ]]
}

@test "--browse: Enter goes down, h and Backspace go up, the selection kept" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	tm send-keys Enter
	wait_screen "pagestat --browse t/sub"
	assert_equal "$(names_shown)" "warm dirty"
	assert_equal "$(line_of dirty)" "dirty $(table_of t/sub/dirty)"
	tm send-keys h
	wait_screen_re "^pagestat --browse t$"
	tm send-keys j j l
	# c-half is a file: its detail
	wait_screen "segment map"
	tm send-keys BSpace
	wait_screen "by cached"
	# back on c-half: the line above is b-hot's
	tm send-keys Up Right
	wait_screen "pagestat --browse t/b-hot"
	tm send-keys Left g Right
	wait_screen "pagestat --browse t/sub"
	tm send-keys Left
	wait_screen "by cached"
}

@test "--browse: a file's detail shows its figures, its segment map and its cached extents" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	tm send-keys j j Enter
	wait_screen "pagestat --browse t/c-half"
	wait_screen "cached extents: 1"
	screen | grep -F "size $(table_of t/c-half | awk '{ print $1 }') ($((10 * PAGE)) bytes, 10 pages)"
	screen | grep -F "offset            0  length $(printf '%12d' $((5 * PAGE)))"
	# 80 parts of 10 pages: the first half all cached, the rest none
	local map
	map=$(screen | sed -n '/^segment map (10 parts across 80 columns/{n;p}')
	assert_equal "$map" "$(printf '█%.0s' {1..40})$(printf '·%.0s' {1..40})"
}

@test "--browse: the terminal is given back after q, SIGTERM, SIGINT and a fault" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	assert_equal "$(tm display -p '#{alternate_on} #{cursor_flag}')" "1 0"
	tm send-keys q
	wait_screen "pagestat-exited-0"
	assert_equal "$(tm display -p '#{alternate_on} #{cursor_flag}')" "0 1"
	tm kill-server
	local sig status
	# SEGV: the crash path a handler can catch (the status is a
	# sanitizer's own in a build with them)
	for sig in TERM INT SEGV; do
		start_browse t
		wait_screen "by cached"
		assert_equal "$(tm display -p '#{alternate_on} #{cursor_flag}')" "1 0"
		kill -s "$sig" "$(cat "$BATS_TEST_TMPDIR/pid")"
		case $sig in
		TERM) status=143 ;;
		INT) status=130 ;;
		SEGV) status= ;;
		esac
		wait_screen "pagestat-exited-$status"
		assert_equal "$(tm display -p '#{alternate_on} #{cursor_flag}')" "0 1"
		tm kill-server
	done
}

@test "--browse: r measures again after a change; i marks what changed" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	assert_equal "$(line_of a-cold | awk '{ print $3 }')" 0B
	pcarrange cache t/a-cold 0 16
	tm send-keys r
	wait_line a-cold "^a-cold [^ ]+ $(table_of t/a-cold | awk '{ print $2 }') "
	screen | grep -E '^\+a-cold ' >/dev/null
	# a file removed since: t changed, r walks it again, the line goes
	rm t/c-half
	tm send-keys r
	wait_screen "1 dir walked again: * new"
	wait_screen_re "^pagestat --browse t$"
	[[ -z $(line_of c-half) ]]
	# i: every 2 s; a file dropped meanwhile is marked with -
	tm send-keys i
	wait_screen "i: measuring every 2 seconds"
	# (its pages held since make_tree: a held page cannot be dropped)
	end_holds t/b-hot
	pcarrange drop t/b-hot
	wait_line b-hot "^b-hot [^ ]+ 0B "
	screen | grep -E '^-b-hot ' >/dev/null
	tm send-keys i q
	wait_screen "pagestat-exited-0"
}

@test "--browse: r reads no directory, it measures each file again; R walks again" {
	require_browse
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	make_tree
	# a directory changed within 100 ms of the walk is walked again by
	# the first r (the walk may have read it before the change)
	sleep 0.3
	start_browse t
	wait_screen "by cached"
	local pid
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	strace -f -qq -e trace=getdents64,openat -o "$BATS_TEST_TMPDIR/trace" -p "$pid" &
	local tracer=$!
	# strace says nothing when it is attached: r until the trace holds
	# each of the five files opened again by its path (to be measured)
	local i f all
	for ((i = 0; i < 100; i++)); do
		tm send-keys r
		all=1
		for f in a-cold b-hot c-half sub/warm sub/dirty; do
			grep -qF "\"t/$f\"" "$BATS_TEST_TMPDIR/trace" 2>/dev/null || all=
		done
		[[ $all ]] && break
		sleep 0.05
	done
	kill -0 "$tracer" 2>/dev/null || skip "strace cannot attach to pagestat here (ptrace)"
	[[ $all ]]
	wait_screen "measured at"
	run grep -c getdents64 "$BATS_TEST_TMPDIR/trace"
	assert_output 0
	make_cached t/new 2
	tm send-keys R
	wait_screen "walked again"
	screen | grep -E '^\*new ' >/dev/null
	grep -q getdents64 "$BATS_TEST_TMPDIR/trace"
	kill "$tracer"
	wait "$tracer" || true
}

@test "--browse: r sees a file made and one removed in a directory shown, and walks only that one again" {
	require_browse
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	make_tree
	mkdir t/other
	make_cached t/other/o 2
	sleep 0.3
	start_browse t
	wait_screen "by cached"
	tm send-keys Enter
	wait_screen "pagestat --browse t/sub"
	assert_equal "$(names_shown)" "warm dirty"
	local pid
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	strace -f -qq -e trace=getdents64,openat -o "$BATS_TEST_TMPDIR/trace" -p "$pid" &
	local tracer=$!
	sleep 0.5
	kill -0 "$tracer" 2>/dev/null || skip "strace cannot attach to pagestat here (ptrace)"
	make_cached t/sub/fresh 5
	rm t/sub/warm
	tm send-keys r
	wait_screen "1 dir walked again: * new"
	wait_line fresh "^fresh "
	screen | grep -E '^\*fresh ' >/dev/null
	assert_equal "$(line_of fresh)" "fresh $(table_of t/sub/fresh)"
	assert_equal "$(table_of t/sub/fresh | awk '{ print $2 }')" "$((5 * PAGE / 1024))K"
	[[ -z $(line_of warm) ]]
	assert_equal "$(names_shown)" "fresh dirty"
	# the header: t/sub's totals as -a says them now
	screen | sed -n 2p | grep -F "cached $(table_of t/sub | awk '{ print $2 }')"
	# t/sub was read again, t and t/other were not
	kill "$tracer"
	wait "$tracer" || true
	run grep -c 'getdents64' "$BATS_TEST_TMPDIR/trace"
	[[ $output -ge 1 ]]
	run grep -E 'openat\(AT_FDCWD, "t(/other)?", .*O_DIRECTORY' "$BATS_TEST_TMPDIR/trace"
	assert_output ""
	grep -E 'openat\(AT_FDCWD, "t/sub", .*O_DIRECTORY' "$BATS_TEST_TMPDIR/trace" >/dev/null
	# and up: t's figures follow (sub's sum changed by the files)
	tm send-keys h
	wait_screen_re "^pagestat --browse t$"
	assert_equal "$(line_of sub/)" "sub/ $(table_of t/sub)"
}

@test "--browse: e evicts the selected file after asking, w warms it; cachestat agrees" {
	require_browse
	make_tree
	start_browse t
	wait_screen "by cached"
	tm send-keys j
	# e and w act on unlocked pages: an evict cannot drop a held page
	release_holds "e evicts and w warms in the browser"
	tm send-keys e
	wait_screen "evict the $(table_of t/b-hot | awk '{ print $2 }') cached of t/b-hot? [y/n]"
	tm send-keys n
	wait_screen "nothing done"
	run -0 pcarrange stat t/b-hot
	assert_equal "${output%% *}" 8
	tm send-keys e
	wait_screen "[y/n]"
	tm send-keys y
	wait_screen "evicted t/b-hot"
	run -0 pcarrange stat t/b-hot
	assert_equal "${output%% *}" 0
	wait_line b-hot "^b-hot [^ ]+ 0B "
	# a directory: w reads what is missing of the whole tree
	pcarrange drop t/sub/warm
	tm send-keys r
	wait_line sub/ "^sub/ [^ ]+ $(table_of t/sub | awk '{ print $2 }') "
	tm send-keys g w
	wait_screen "read the $((4 * PAGE / 1024))K missing of t/sub into the cache? [y/n]"
	tm send-keys y
	wait_screen "warmed t/sub"
	run -0 pcarrange stat t/sub/warm
	assert_equal "${output%% *}" 4
	# and evicted whole: the clean file's pages go (the dirty one's stay
	# until written back, as --evict says)
	tm send-keys e
	wait_screen "cached of t/sub? [y/n]"
	tm send-keys y
	wait_screen "evicted t/sub"
	run -0 pcarrange stat t/sub/warm
	assert_equal "${output%% *}" 0
}

@test "--browse: a long w is stopped by q after the chunk it reads, the keyboard read meanwhile; pagestat goes on" {
	require_browse
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	mkdir t
	# 64 MiB none cached: 256 reads of 256 KiB, each made 0.3 s slower
	# (the whole warm: more than a minute; the kernel's readahead, 8 MiB
	# on this machine's disk, brings pages ahead of them)
	make_dropped t/big $((64 * 1048576 / PAGE))
	BROWSE_AS="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -o /dev/null -e trace=pread64 -e inject=pread64:delay_enter=300000" \
		start_browse t
	wait_screen "by cached"
	tm send-keys w
	wait_screen "read the 64M missing of t/big into the cache? [y/n]"
	tm send-keys y
	wait_screen "q or Escape stops"
	tm send-keys q
	wait_screen "warm of t/big stopped (q or Escape): cached 0B before"
	# read in part: more than nothing, less than the file
	run -0 pcarrange stat t/big
	local cached=${output%% *}
	((cached > 0 && cached < 64 * 1048576 / PAGE))
	# the line shows what is cached now, as -a says
	wait_line big "^big $(table_of t/big)$"
	# Escape stops it too
	tm send-keys w
	wait_screen "missing of t/big into the cache? [y/n]"
	tm send-keys y
	wait_screen "q or Escape stops"
	tm send-keys Escape
	wait_screen "warm of t/big stopped (q or Escape)"
	run -0 pcarrange stat t/big
	((${output%% *} < 64 * 1048576 / PAGE))
	# pagestat still runs: a key works, q then quits
	tm send-keys n
	wait_screen "by name)"
	tm send-keys q
	wait_screen "pagestat-exited-0"
}

@test "--browse: a long e is stopped by q between two files; what it dropped is measured, pagestat goes on" {
	require_browse
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	mkdir t
	local i n=40 left=0
	for ((i = 0; i < n; i++)); do
		make_cached "t/f$i" 4
	done
	# each file's evict (one posix_fadvise) made 0.3 s slower: 12 s in all
	BROWSE_AS="env ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 strace -f -qq -o /dev/null -e trace=fadvise64 -e inject=fadvise64:delay_enter=300000" \
		start_browse .
	wait_screen "by cached"
	select_entry "t/"
	# e acts on unlocked pages: an evict cannot drop a held page
	release_holds "e evicts in the browser"
	tm send-keys e
	wait_screen "evict the $((n * 4 * PAGE / 1024))K cached of ./t? [y/n]"
	tm send-keys y
	wait_screen "q or Escape stops"
	tm send-keys q
	wait_screen "evict of ./t stopped (q or Escape): cached $((n * 4 * PAGE / 1024))K before"
	# evicted in part: some files dropped, not all
	local stat
	for ((i = 0; i < n; i++)); do
		stat=$(pcarrange stat "t/f$i")
		[[ ${stat%% *} == 0 ]] || left=$((left + 1))
	done
	((left > 0 && left < n)) || fail "$left of $n files still cached after the stop"
	# the line shows what is cached now, as -a says
	wait_line t/ "^t/ [^ ]+ $(( left * 4 * PAGE / 1024 ))K "
	# pagestat still runs: a key works, q then quits
	tm send-keys n
	wait_screen "by name)"
	tm send-keys q
	wait_screen "pagestat-exited-0"
}

@test "--browse as nobody with a setcap copy: it shows a root file's cache, but e evicts only what nobody could open" {
	require_browse
	enter_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	SOCK=$NOBODY_DIR/tmux.sock
	mkdir -m 755 tree
	local f
	for f in mine theirs; do
		pcarrange write "tree/$f" $((4 * PAGE))
		pcarrange cache "tree/$f" 0 4
	done
	chmod 644 tree/mine
	chmod 600 tree/theirs
	BROWSE_BIN=./pagestat-cap BROWSE_AS="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups" \
		start_browse tree
	wait_screen "by cached"
	# the capabilities serve the inspection: both files are measured
	wait_line theirs "^theirs [^ ]+ $((4 * PAGE / 1024))K "
	wait_line mine "^mine [^ ]+ $((4 * PAGE / 1024))K "
	tm send-keys n
	wait_screen "by name)"
	tm send-keys j e
	wait_screen "cached of tree/theirs? [y/n]"
	tm send-keys y
	wait_screen "cannot evict tree/theirs: Permission denied"
	pcarrange holds tree/theirs 4
	tm send-keys g e
	wait_screen "cached of tree/mine? [y/n]"
	tm send-keys y
	wait_screen "evicted tree/mine"
	pcarrange holds tree/mine dropped
	pcarrange holds tree/theirs 4
}

@test "--browse: a plain ASCII locale draws # bars; NO_COLOR leaves colours out" {
	require_browse
	make_tree
	LANG_=C start_browse t
	wait_screen "by cached"
	screen | grep -F 'b-hot' | grep -F '[##########]'
	tm send-keys q
	wait_screen "pagestat-exited-0"
	tm kill-server
	start_browse t
	wait_screen "by cached"
	# green for the bars: an SGR colour code
	tm capture-pane -e -p | grep -E $'\e\\[([0-9]+;)*3[0-8]m' >/dev/null
	tm kill-server
	NO_COLOR_=1 start_browse t
	wait_screen "by cached"
	run tm capture-pane -e -p
	refute_output --regexp $'\e\\[([0-9]+;)*3[0-8]m'
}

@test "--browse: odd names escaped as the table does, long ones cut in the middle; resize redraws" {
	require_browse
	mkdir t
	local long
	long=$(printf 'x%.0s' {1..60})-end
	make_cached "t/$long" 2
	make_cached $'t/odd\nname' 1
	start_browse t
	wait_screen "by cached"
	screen | grep -F 'odd\nname'
	# the status line says the name as the listing does, escaped once
	tm send-keys j e
	wait_screen 'cached of t/odd\nname? [y/n]'
	tm send-keys n
	# cut in the middle, at 80 columns: the start, an ellipsis, the end
	screen | grep -E '^ ?x+…x*-end ' >/dev/null
	tm resize-window -x 120 -y 30
	wait_screen " $long "
	tm resize-window -x 80 -y 24
	wait_screen "…"
}

@test "--browse with several operands lists them, sorted" {
	require_browse
	make_cached hot 3
	make_dropped cold 2
	start_browse hot cold
	wait_screen "(the operands)"
	assert_equal "$(names_shown)" "hot cold"
}

@test "--browse --pid lists the files a process holds, by their paths, as --pid's rows say" {
	require_browse
	make_partial held 8 0 3
	hold_open held
	start_browse --pid "$HOLDER"
	wait_screen "(the files of the processes of --pid)"
	local path=$BATS_TEST_TMPDIR/held row
	row=$("$PAGESTAT" --pid "$HOLDER" -a -n -o size,cached,percent,dirty,evicted,path |
		awk -v p="$path" '$NF == p { NF--; print }' | sed 's/ \+/ /g; s/^ //')
	[[ -n $row ]]
	# the names are whole paths (cut in the middle at 80 columns)
	tm resize-window -x 250 -y 24
	wait_screen " $path "
	assert_equal "$(line_of "$path")" "$path $row"
	# R reads the process's files again
	pcarrange cache held 0 8
	tm send-keys R
	wait_screen "walked again"
	screen | grep -F -- "+$path " >/dev/null
}

@test "--browse --system: the file systems at the top as --system's rows say; one opens to its tree; deleted files in a group of their own" {
	require_browse
	require_root "only root mounts a tmpfs for a file system of the test's own"
	mkdir mnt
	mount -t tmpfs -o size=16m pagestat-browse "$PWD/mnt" 2>/dev/null || skip "cannot mount a tmpfs here"
	MOUNTED=$PWD/mnt
	mkdir mnt/d
	head -c $((8 * PAGE)) /dev/zero >mnt/eight
	head -c $((3 * PAGE)) /dev/zero >mnt/three
	head -c $((2 * PAGE)) /dev/zero >mnt/d/two
	# a file deleted but held open: no mount point leads to it
	make_cached gone 4
	hold_open gone
	rm gone
	COLS_=250 ROWS_=40 start_browse --system
	wait_scanned
	wait_screen "pagestat --browse (the machine: its file systems, as --system finds them)"
	# the status line: the share of /proc/meminfo's Cached + Buffers found
	screen | grep -qE '^coverage [0-9.]+% of the page cache \(Cached \+ Buffers\)' ||
		fail "no coverage on the status line"
	# the tmpfs's line: --system's row of it (a tmpfs's pages stay)
	local row
	row=$("$PAGESTAT" --system -n -o size,cached,percent,dirty,evicted,path 2>/dev/null |
		awk -v p="$MOUNTED" '$NF == p { NF--; print }' | sed 's/ \+/ /g; s/^ //')
	assert_equal "$row" "52K 52K 100.0% 0B 0B"
	assert_equal "$(line_of "$MOUNTED/")" "$MOUNTED/ $row"
	# the root file system's line too, the test's directory being on it
	screen | grep -qE '^[ +*-]/ ' || fail "no line of /"
	# opened: the tmpfs's own tree, as -a says of it
	select_entry "$MOUNTED/"
	tm send-keys Enter
	wait_screen "pagestat --browse $MOUNTED"
	assert_equal "$(names_shown)" "d/ eight three"
	assert_equal "$(line_of eight)" "eight 32K 32K 100.0% 0B 0B"
	assert_equal "$(line_of d/)" "d/ 8.0K 8.0K 100.0% 0B 0B"
	# r: a file made since is found (the directory walked again, by -x)
	head -c $((5 * PAGE)) /dev/zero >mnt/five
	tm send-keys r
	wait_screen "1 dir walked again"
	screen | grep -qF -- "*five " || fail "five is not marked new"
	assert_equal "$(line_of five)" "five 20K 20K 100.0% 0B 0B"
	# the deleted file, in "(deleted and memfd files)", named by its path
	tm send-keys h
	wait_screen "(the machine: its file systems"
	select_entry "(deleted and memfd files)"
	tm send-keys Enter
	wait_screen "pagestat --browse (deleted and memfd files)"
	screen | grep -F -- "$BATS_TEST_TMPDIR/gone (deleted)" | grep -qE ' 16K +16K ' ||
		fail "the deleted file's line is not 16K 16K"
	select_entry "$BATS_TEST_TMPDIR/gone (deleted)"
	tm send-keys e
	wait_screen "a deleted file has no path to open as you: nothing to evict"
	run -0 pcarrange stat "/proc/$HOLDER/fd/3"
	assert_equal "${output%% *}" 4
	tm send-keys q
	wait_screen "pagestat-exited-0"
}

@test "--browse --system: a file system not walked says why on its line, and e does nothing to it" {
	require_browse
	require_root "only root mounts an overlay"
	mkdir lower upper work merged
	echo x >lower/file
	mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/upper,workdir=$PWD/work" merged 2>/dev/null ||
		skip "cannot mount an overlay here"
	MOUNTED=$PWD/merged
	COLS_=250 ROWS_=40 start_browse --system
	wait_scanned
	# (the note cut at the screen's edge)
	wait_screen_re "$MOUNTED +\(not walked: an overlay's pages are in"
	select_entry "$MOUNTED "
	tm send-keys e
	wait_screen "$MOUNTED: not walked: an overlay's pages are in its layers' files: nothing to evict"
}

# A v1 memory cgroup for the test (root only); removed in teardown, its
# processes killed.
make_browse_cgroup() {
	require_root "only root makes a memory cgroup"
	[[ -e /sys/fs/cgroup/memory/memory.stat ]] || skip "no cgroup v1 memory controller is mounted"
	CGNAME=pagestat-browse-$$-$BATS_TEST_NUMBER
	CG=/sys/fs/cgroup/memory/$CGNAME
	mkdir "$CG" || skip "cannot make a memory cgroup at $CG"
}

remove_browse_cgroup() {
	local pid i
	for ((i = 0; i < 20; i++)); do
		while read -r pid; do
			kill -9 "$pid" 2>/dev/null
		done <"$1/cgroup.procs"
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.05
	done
	rmdir "$1"
}

@test "--browse --cgroup: the cgroup's processes' files as --cgroup's rows say, its own counter in the header; r, e act on them" {
	require_browse
	make_browse_cgroup
	make_partial held 8 0 3
	own_command sleep 120
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$CG" "${OWN_COMMAND[@]}" 3<held &
	HOLDER=$!
	own_started "$HOLDER"
	local path=$BATS_TEST_TMPDIR/held row
	row=$("$PAGESTAT" --cgroup="$CGNAME" -n -o size,cached,percent,dirty,evicted,path |
		awk -v p="$path" '$NF == p { NF--; print }' | sed 's/ \+/ /g; s/^ //')
	[[ $row == "32K 12K 37.5% 0B "* ]] || fail "--cgroup's row of held: $row"
	COLS_=250 start_browse --cgroup="$CGNAME"
	# one cgroup: it is the top, its path and the kernel's counter shown
	wait_screen "pagestat --browse $CG"
	screen | sed -n 2p | grep -qF "cgroup's file " || fail "no cgroup's file in the header"
	assert_equal "$(line_of "$path")" "$path $row"
	# r finds the cgroup's processes' files again (all 8 pages read, held)
	hold_pages held
	tm send-keys r
	wait_line "$path" "^$path 32K 32K "
	screen | grep -qF -- "+$path " || fail "held is not marked +"
	# e evicts it, asked first; cachestat agrees (an evict cannot drop a
	# held page)
	select_entry "$path"
	release_holds "e evicts in the browser"
	tm send-keys e
	wait_screen "evict the 32K cached of $path? [y/n]"
	tm send-keys y
	wait_screen "evicted $path"
	run -0 pcarrange stat held
	assert_equal "${output%% *}" 0
	wait_line "$path" "^$path 32K 0B "
}

@test "--browse --cgroup with two cgroups: each a line at the top, opened to its files" {
	require_browse
	make_browse_cgroup
	local second=$CG-b
	mkdir "$second" || skip "cannot make a second memory cgroup"
	make_cached held 4
	own_command sleep 120
	sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$second" "${OWN_COMMAND[@]}" 3<held &
	HOLDER=$!
	own_started "$HOLDER"
	COLS_=250 start_browse --cgroup="$CGNAME" --cgroup="$CGNAME-b"
	wait_screen "(the cgroups of --cgroup, each with its processes' files)"
	# the second holds held's 4 pages (and its program's); the first nothing
	line_of "$CG" | grep -qE "^$CG 0B 0B " || fail "the first cgroup's line is not empty"
	select_entry "$second "
	tm send-keys Enter
	wait_screen "pagestat --browse $second"
	assert_equal "$(line_of "$BATS_TEST_TMPDIR/held")" "$BATS_TEST_TMPDIR/held 16K 16K 100.0% 0B 0B"
}

@test "--browse needs a terminal, and refuses outputs and actions, naming them" {
	built_without && skip "pagestat was built without ncursesw: the next test"
	mkdir t
	run -2 --separate-stderr "$PAGESTAT" --browse t
	assert_output ""
	assert_equal "$stderr" "pagestat: --browse needs a terminal: standard output is not one"
	local opt
	for opt in --format=csv "-o size" "-i 1" --output-file=x; do
		# shellcheck disable=SC2086 # the option and its value
		run -2 --separate-stderr "$PAGESTAT" --browse $opt t
		assert_output ""
		assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with --format, -o/--output, -i/--interval or --output-file: it shows its own screen (i refreshes in it)"
	done
	assert_file_not_exists x
	for opt in --evict --warm; do
		run -2 --separate-stderr "$PAGESTAT" --browse $opt t
		assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with --evict, --warm, --warm-from or --rate: its keys e and w act on what is chosen, after asking"
	done
	run -2 --separate-stderr "$PAGESTAT" --browse --lock t
	assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with --lock: its keys e and w act on what is chosen"
	for opt in "-s size" --top=3 --output-all --expect-cached=50; do
		# shellcheck disable=SC2086 # the option and its value
		run -2 --separate-stderr "$PAGESTAT" --browse $opt t
		assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with -s/--sort, --top, --output-all or --expect-cached: it sorts and shows by its own keys"
	done
	for opt in -J --csv; do
		run -2 --separate-stderr "$PAGESTAT" --browse $opt t
		assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with -J/--json or --csv: it shows its own screen"
	done
	run -2 --separate-stderr "$PAGESTAT" --browse --cgroup=self --charged
	assert_equal "${stderr%%$'\n'*}" "pagestat: --browse cannot be combined with --charged: it has no charged column (pagestat --cgroup=CGROUP --charged counts them)"
	# --system and --cgroup browse what they name: no FILE operands
	run -2 --separate-stderr "$PAGESTAT" --browse --system t
	assert_output ""
	[[ $stderr == *--system* ]]
	run -2 --separate-stderr "$PAGESTAT" --browse --cgroup=self t
	assert_output ""
	[[ $stderr == *"--cgroup inspects its cgroups' processes' files"* ]]
}

@test "--browse in a build without ncursesw says so, status 2" {
	built_without || skip "pagestat was built with ncursesw"
	run -2 --separate-stderr "$PAGESTAT" --browse .
	assert_output ""
	assert_equal "$stderr" "pagestat: --browse: this pagestat was built without ncursesw (Debian: libncurses-dev, then configure again)"
}

# Issue 31, item 8: a terminal that goes away ends the browser.

# CPU ticks (utime + stime) of process PID, or nothing when it is gone.
cpu_ticks() {
	awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null
}

# Kills the tmux session that runs pagestat (its terminal goes away, as
# when a window is closed), then waits 5 s at most for pagestat to end;
# one still there fails, with the CPU it spent in 2 s then.
hang_up_and_wait() {
	local pid i t0 t1
	pid=$(cat "$BATS_TEST_TMPDIR/pid")
	[[ -d /proc/$pid ]] || fail "pagestat ($pid) was not running before the hang-up"
	tm kill-session
	for ((i = 0; i < 100; i++)); do
		[[ -d /proc/$pid ]] || break
		sleep 0.05
	done
	if [[ -d /proc/$pid ]]; then
		t0=$(cpu_ticks "$pid")
		sleep 2
		t1=$(cpu_ticks "$pid")
		kill -9 "$pid" 2>/dev/null
		fail "pagestat ($pid) still runs 5 s after its terminal went away; CPU ticks in 2 s: $((t1 - t0)) of $((2 * $(getconf CLK_TCK)))"
	fi
	# the shell (which traps SIGHUP and goes on) wrote how pagestat ended
	for ((i = 0; i < 100; i++)); do
		[[ -s $BATS_TEST_TMPDIR/status ]] && break
		sleep 0.05
	done
	# as a hang-up's SIGHUP ends pagestat: by the signal (128 + 1)
	assert_equal "$(cat "$BATS_TEST_TMPDIR/status")" 129
}

@test "--browse ends, by SIGHUP, when its terminal goes away (tmux kill-session): in the listing, a question, the detail, the help" {
	require_browse
	make_tree
	local keys
	# what is on the screen when the session is killed: the listing, a
	# question of e, a file's detail, the help
	for keys in "" "j e" "j j Enter" "?"; do
		rm -f "$BATS_TEST_TMPDIR/status"
		BROWSE_SHELL="trap : HUP;" BROWSE_THEN=exit start_browse t
		wait_screen "by cached"
		case $keys in
		"j e") tm send-keys j e; wait_screen "[y/n]" ;;
		"j j Enter") tm send-keys j j Enter; wait_screen "segment map" ;;
		"?") tm send-keys "?"; wait_screen "any key goes back" ;;
		esac
		hang_up_and_wait
	done
	# the file is as it was: nothing evicted by the question left open
	pcarrange holds t/b-hot 8
}

@test "--browse as nobody with a setcap copy ends when its terminal goes away" {
	require_browse
	enter_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	SOCK=$NOBODY_DIR/tmux.sock
	mkdir -m 755 tree
	pcarrange write tree/theirs $((4 * PAGE))
	chmod 600 tree/theirs
	BROWSE_SHELL="trap : HUP;" BROWSE_THEN=exit BROWSE_BIN=./pagestat-cap \
		BROWSE_AS="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups" start_browse tree
	wait_screen "by cached"
	hang_up_and_wait
}

# Issue 31, item 9: a failed action leaves every figure as it was and says why.

@test "--browse as nobody with a setcap copy: e on a file nobody may not open says why and changes no figure, in the listing and in the detail" {
	require_browse
	enter_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	SOCK=$NOBODY_DIR/tmux.sock
	mkdir -m 755 tree
	local theirs=$'tree/the\eirs' shown='the\x1birs'
	pcarrange write tree/mine $((4 * PAGE))
	chmod 644 tree/mine
	pcarrange write "$theirs" $((8 * PAGE))
	chmod 600 "$theirs"
	# the first 5 pages of theirs (each read alone: a large folio would
	# hold the others too) and all of mine held (mlock: what the kernel
	# pages out by itself cannot change a figure between two screens)
	command -v vmtouch >/dev/null || skip "vmtouch is not installed (it holds the pages)"
	pcarrange drop "$theirs"
	pcarrange cache "$theirs" 0 5
	vmtouch -q -l -p 0-$((5 * PAGE)) "$theirs" tree/mine &
	HOLDER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(awk '/^VmLck:/ { print $2 }' "/proc/$HOLDER/status") == $((9 * PAGE / 1024)) ]] && break
		sleep 0.05
	done
	pcarrange holds "$theirs" 0 5
	pcarrange holds tree/mine 4
	BROWSE_BIN=./pagestat-cap BROWSE_AS="setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups" \
		start_browse tree
	wait_screen "by cached"
	wait_line "$shown" "^[^ ]+ [^ ]+ $((5 * PAGE / 1024))K "
	local header line mine
	header=$(screen | sed -n 2p)
	line=$(line_of "$shown")
	mine=$(line_of mine)
	select_entry "$shown"
	tm send-keys e
	wait_screen "cached of tree/$shown? [y/n]"
	tm send-keys y
	wait_screen "cannot evict tree/$shown: Permission denied"
	# every figure as it was: the file's line, the other's, the totals
	assert_equal "$(line_of "$shown")" "$line"
	assert_equal "$(line_of mine)" "$mine"
	assert_equal "$(screen | sed -n 2p)" "$header"
	assert_equal "$(names_shown)" "$shown mine"
	# the same in the file's detail: the message, the same figures and map
	tm send-keys Enter
	wait_screen "pagestat --browse tree/$shown"
	wait_screen "cached extents: 1"
	local figures map
	figures=$(screen | sed -n '3,10p')
	map=$(screen | sed -n '/^segment map/{n;p}')
	assert_equal "$map" "$(printf '█%.0s' {1..50})$(printf '·%.0s' {1..30})"
	tm send-keys e
	wait_screen "cached of tree/$shown? [y/n]"
	tm send-keys y
	wait_screen "cannot evict tree/$shown: Permission denied"
	wait_screen "h/left/Backspace:back"
	assert_equal "$(screen | sed -n '3,10p')" "$figures"
	# back in the listing: still the same
	tm send-keys h
	wait_screen "by cached"
	assert_equal "$(line_of "$shown")" "$line"
	assert_equal "$(screen | sed -n 2p)" "$header"
	pcarrange holds "$theirs" 0 5
	pcarrange holds tree/mine 4
}

# Issue 31, item 14: ncursesw opened by --browse alone.

@test "--browse opens ncursesw itself; where it cannot be loaded: said, status 1, nothing walked; a run on a file is unaffected" {
	require_browse
	command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
	local soname lib
	soname=$(sed -n 's/^#define NCURSESW_SONAMES "\([^"]*\)".*/\1/p' "$PAGESTAT_BUILDDIR/config.h")
	[[ -n $soname ]] || skip "config.h names no NCURSESW_SONAMES"
	make_tree
	# the libraries configure named are in the browser's maps, loaded by it
	start_browse t
	wait_screen "by cached"
	grep -q "/$soname" "/proc/$(cat "$BATS_TEST_TMPDIR/pid")/maps" ||
		fail "$soname is not mapped by --browse"
	tm kill-server
	lib=$(ldconfig -p | awk -v s="$soname" '$1 == s { print $NF; exit }')
	[[ -n $lib ]] || skip "$soname is not in ld.so's cache"
	# pagestat in a mount namespace of its own, where the library is an
	# empty file
	cat >nocurses <<EOS
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind /dev/null "\$0" && exec "\$@"' \\
	"$lib" "$PAGESTAT" "\$@"
EOS
	chmod +x nocurses
	# (wide enough for the whole message on one line)
	COLS_=200 BROWSE_BIN=$PWD/nocurses start_browse t
	wait_screen "pagestat-exited-1"
	screen | grep -F "pagestat: --browse: cannot load the terminal library: $lib: file too short"
	# nothing walked: the message and the status are all there is
	assert_equal "$(screen | grep -c .)" 2
	run -0 --separate-stderr ./nocurses -J t/b-hot
	assert_row t/b-hot cached=8
	assert_equal "$stderr" ""
}
