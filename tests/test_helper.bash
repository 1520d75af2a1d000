# SPDX-License-Identifier: MIT
# Shared by every suite: libraries, the binary under test, arrangements.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

: "${PAGESTAT:?PAGESTAT must name the pagestat binary (make check sets it)}"
: "${PCARRANGE:?PCARRANGE must name tests/pcarrange (make check sets it)}"
: "${NOCACHESTAT:?NOCACHESTAT must name tests/nocachestat (make check sets it)}"
: "${LANDLOCKED:?LANDLOCKED must name tests/landlocked (make check sets it)}"
JQ=${JQ:-jq}
PYTHON3=${PYTHON3:-python3}
# tests/, also for the suites in its subdirectories (tests/stress)
HELPER_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# Never assume 4 KiB pages.
PAGE=$("$PCARRANGE" pagesize)

# Every run of pagestat first restores the cache state the test arranged
# and afterwards checks that it still holds (see rearrange below).
pagestat() {
	rearrange || return
	local status=0
	"$PAGESTAT" "$@" || status=$?
	note_if_disturbed
	return "$status"
}
pcarrange() { "$PCARRANGE" "$@"; }
# command: with JQ=jq (a name, not a path) jq must not call itself.
# Whatever JSON a test looks at in $output is kept for tests/schema.bats,
# which checks it against doc/pagestat.schema.json (make check sets
# PAGESTAT_JSON_SPOOL).
jq() {
	spool_json
	command "$JQ" "$@"
}

# $output into the spool, once, when it looks like pagestat's JSON.  (A
# test asks jq several things of one output, and a checksum of a large
# one through bash costs seconds: the output last spooled is known by its
# length and opening, and not summed again; another output of the same
# length and opening, right after it, goes unchecked by the schema.)
SPOOLED_KEY=
spool_json() {
	[[ -n ${PAGESTAT_JSON_SPOOL-} && ${output-} == "{"* ]] || return 0
	local key="${#output}:${output:0:256}"
	[[ $key != "$SPOOLED_KEY" ]] || return 0
	SPOOLED_KEY=$key
	local sum
	sum=$(cksum <<<"$output") || return 0
	local file=$PAGESTAT_JSON_SPOOL/${BATS_TEST_FILENAME##*/}.${sum%% *}.${#output}
	[[ -e $file ]] || printf '%s\n' "$output" >"$file" 2>/dev/null || true
}

# The suites arrange page-cache states that tmpfs cannot hold (its pages
# are neither droppable nor tagged dirty): refuse to run on it.
require_disk_tmpdir() {
	local fs
	fs=$(stat -f -c %T "$BATS_TEST_TMPDIR")
	[[ $fs != tmpfs ]] || skip "BATS_TEST_TMPDIR is on tmpfs; set PAGESTAT_TEST_TMPDIR to a disk-backed directory"
}

# ---- undoing what a test set up (mounts, cgroups, devices) ----------------
# A suite's teardown calls run_teardowns: every command on_teardown was
# given runs, newest first, also when the test failed or skipped half-way.
UNDO=()

# Have teardown run CMD ARG... (quoted as given).
on_teardown() {
	UNDO+=("$(printf '%q ' "$@")")
}

run_teardowns() {
	local i
	end_holds
	for ((i = ${#UNDO[@]} - 1; i >= 0; i--)); do
		eval "${UNDO[i]}" || true
	done
	UNDO=()
}

# ---- helper processes made of the test's own files ------------------------
# Since Linux 6.14 cachestat answers only for a file the caller owns or may
# write: as a user, pagestat --pid of a helper running /usr/bin/sleep would
# be refused the program, libc and the dynamic loader.  So a helper runs
# from copies below $BATS_FILE_TMPDIR (the program, the libraries ldd names,
# and the loader, which runs it): every file it maps is the test's, as root
# and as a user alike.  Sets OWN_COMMAND to the command line, and OWN_EXE to
# what /proc/PID/exe reads once it runs (own_started).  LC_ALL=C: a locale
# would map root's locale files.
# usage: own_command PROGRAM [ARG]...
own_command() {
	local prog dir=$BATS_FILE_TMPDIR/own line lib loader=
	prog=$(type -P "$1") || { echo "own_command: $1: no such program" >&2; return 1; }
	shift
	mkdir -p "$dir" || return
	while read -r line; do
		case $line in
		*" => /"*) lib=${line#* => } ;;
		/*) lib=$line loader=${line%% (*} ;;
		*) continue ;;
		esac
		lib=${lib%% (*}
		[[ -e $dir/${lib##*/} ]] || cp -L "$lib" "$dir/" || return
	done < <(ldd "$prog" 2>/dev/null)
	[[ -e $dir/${prog##*/} ]] || cp "$prog" "$dir/" || return
	if [[ -n $loader ]]; then
		OWN_COMMAND=(env LC_ALL=C "$dir/${loader##*/}" --library-path "$dir"
			"$dir/${prog##*/}" "$@")
		OWN_EXE=$(readlink -f "$dir/${loader##*/}")
	else
		# a static program runs by itself
		OWN_COMMAND=(env LC_ALL=C "$dir/${prog##*/}" "$@")
		OWN_EXE=$(readlink -f "$dir/${prog##*/}")
	fi
}

# Wait until process PID runs OWN_EXE: before its exec it is still a shell
# (or setpriv, env), whose program the user does not own.
own_started() {
	local i exe=
	for ((i = 0; i < 200; i++)); do
		exe=$(readlink "/proc/$1/exe" 2>/dev/null) || exe=
		[[ $exe == "$OWN_EXE" ]] && return 0
		sleep 0.025
	done
	echo "own_started: process $1 does not run $OWN_EXE (its exe: ${exe:-gone})" >&2
	return 1
}

# A process (sleep, from the test's own copies) that holds FILE open on its
# descriptor 3 for 120 s: its pid in HOLDER once the descriptor is there.
# The suite's teardown kills it.
hold_open() {
	own_command sleep 120 || return
	"${OWN_COMMAND[@]}" 3<"$1" &
	HOLDER=$!
	own_started "$HOLDER" || return
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e /proc/$HOLDER/fd/3 ]] && return 0
		sleep 0.05
	done
	echo "hold_open: process $HOLDER does not hold $1 on its descriptor 3" >&2
	return 1
}

# Unmount DIR if it is a mount point (lazily when it is busy).
unmount() {
	mountpoint -q "$1" || return 0
	end_holds
	umount "$1" || umount -l "$1"
}

require_root() {
	[[ $EUID -eq 0 ]] || skip "needs root: $1"
}

# Each make_* below records the cache state it arranged and holds its
# cached pages with a lock (hold_arranged) while the test inspects them:
# the machine pages out idle pages by itself (a DAMON daemon, within
# seconds at times), and a locked page is never reclaimed.  Every run of
# pagestat (and as_nobody) first checks the recorded state and restores
# it where the test itself changed it.  A test whose action must work on
# unlocked pages (evict, warm, lock...) calls release_holds first; only
# such a test may be tried again when its pages went meanwhile.
# HOW is "dropped", PAGES (pages 0..PAGES-1 cached) or "FIRST COUNT
# [FIRST COUNT]..." (exactly those pages cached).
ARRANGED_PATH=() ARRANGED_HOW=()
arranged() {
	local path=$1
	[[ $path == /* ]] || path=$PWD/$path
	ARRANGED_PATH+=("$path")
	ARRANGED_HOW+=("$2")
	case $2 in
	dropped) ;;
	*\ *) hold_pages "$path" $2 ;;
	*) hold_pages "$path" 0 "$2" ;;
	esac
}

# ---- holding arranged pages cached (tests/pcarrange hold) -----------------
# A holder is a child of pcarrange that maps the ranges shared and mlocks
# them (reading back a page gone since the arrangement): locked pages still
# count as cached for cachestat and mincore, and stay dirty when they were.
# It ends when it is killed (release_holds, teardown's helpers below) or
# when the test's process ends.
HOLD_PIDS=() HOLD_PATHS=()
# set by release_holds: the test acts on unlocked pages from then on
HOLDS_RELEASED=
# an arrangement this machine would not let be locked (a user's
# RLIMIT_MEMLOCK): its pages may go, and the test may be tried again
UNHELD=
# set once a hold was taken: a retry of a test that held its pages and
# never released them is an inspect-only test's, which should not be
HELD_ANY=
# set by unlocked_own: files the test cached and left unlocked on purpose
# (an action under test must be free to drop them, or shown not to)
UNLOCKED_OWN=

# FILE's cached pages stay unlocked on purpose: the action under test
# (an evict that must be refused, say) would prove nothing on locked
# pages.  A retry after the machine paged them out says so.
# usage: unlocked_own FILE
unlocked_own() {
	UNLOCKED_OWN=${UNLOCKED_OWN:-$1}
}

# Lock the pages of each FIRST COUNT pair of FILE (all of it without a
# pair) until released.  Nothing once the test has released its holds.
# usage: hold_pages FILE [FIRST COUNT]...
hold_pages() {
	# (this shell's pid: $BASHPID inside $(...) is the subshell's)
	local path=$1 pid status=0 me=$BASHPID
	[[ -z $HOLDS_RELEASED ]] || return 0
	[[ $path == /* ]] || path=$PWD/$path
	shift
	pid=$("$PCARRANGE" hold "$me" "$path" "$@" 3>&-) || status=$?
	case $status in
	0)
		HELD_ANY=1
		HOLD_PIDS+=("$pid")
		HOLD_PATHS+=("$path")
		;;
	3)
		# (pcarrange said why on stderr)
		UNHELD=${UNHELD:-$path}
		echo "# UNHELD: $BATS_TEST_DESCRIPTION: cannot lock the pages of $path" >&3
		;;
	*) return 1 ;;
	esac
}

# Wait until process PID blocks opening a FIFO no one has opened from the
# other end (the kernel's wait_for_partner, shown as fifo_open by some
# builds): at most 10 s.  Returns 1 when it did not, or has ended.
# usage: blocked_on_fifo PID
blocked_on_fifo() {
	local i wchan
	for ((i = 0; i < 500; i++)); do
		[[ -e /proc/$1 ]] || return 1
		{ wchan=$(<"/proc/$1/wchan"); } 2>/dev/null || wchan=
		[[ $wchan != wait_for_partner && $wchan != fifo_open ]] || return 0
		sleep 0.02
	done
	return 1
}

# Wait until process PID is gone or a zombie (its locks gone with its
# memory); then a page the test evicts may really go.
hold_ended() {
	local i state
	for ((i = 0; i < 500; i++)); do
		state=$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null) || return 0
		[[ -n $state && $state != Z ]] || return 0
		sleep 0.01
	done
	echo "hold_ended: holder $1 still runs" >&2
	return 1
}

# End the holders of FILE (of every file without an argument).
end_holds() {
	local i keep_pids=() keep_paths=() path=${1-}
	[[ -z $path || $path == /* ]] || path=$PWD/$path
	for i in "${!HOLD_PIDS[@]}"; do
		if [[ -n $path && ${HOLD_PATHS[i]} != "$path" ]]; then
			keep_pids+=("${HOLD_PIDS[i]}")
			keep_paths+=("${HOLD_PATHS[i]}")
			continue
		fi
		kill "${HOLD_PIDS[i]}" 2>/dev/null || true
		hold_ended "${HOLD_PIDS[i]}" || true
	done
	HOLD_PIDS=("${keep_pids[@]}") HOLD_PATHS=("${keep_paths[@]}")
}

# The action under test must work on unlocked pages (an eviction cannot
# drop a locked page; a warm or a lock of held pages would prove
# nothing): every hold ends, none is taken after, and the test may be
# tried again when the machine pages out what it arranged.  WHY says
# which action, for the retry's line in the log.
# usage: release_holds WHY
release_holds() {
	end_holds
	HOLDS_RELEASED=${1:-the action needs unlocked pages}
}

# A restored state is checked before the run: a drop may leave a page
# the kernel could not let go of at that moment (locked by the reclaim
# daemon's own scan, say), or a page may be paged out right after it was
# read, and the run would measure a state the test did not arrange.  A
# state that still does not hold after three tries is left as it is; the
# check after the run (note_if_disturbed) marks the test.  Held pages
# stay, so a held state is restored only where the test changed it.
rearrange() {
	local i path how try
	for i in "${!ARRANGED_PATH[@]}"; do
		path=${ARRANGED_PATH[i]} how=${ARRANGED_HOW[i]}
		[[ -e $path ]] || continue
		# shellcheck disable=SC2086 # HOW is a list of words
		pcarrange holds "$path" $how && continue
		for try in 1 2 3; do
			case $how in
			dropped) pcarrange drop "$path" ;;
			*\ *) pcarrange drop "$path" && cache_pages "$path" $how ;;
			*) pcarrange cache "$path" 0 "$how" ;;
			esac || { echo "rearrange: cannot restore the cache of $path" >&2; return 99; }
			# shellcheck disable=SC2086 # HOW is a list of words
			pcarrange holds "$path" $how && break
		done
	done
	# (a state left as it is is not a failure of the run: see above)
	return 0
}

# Read pages FIRST..FIRST+COUNT-1 of FILE into the cache, for each pair.
# usage: cache_pages FILE FIRST COUNT [FIRST COUNT]...
cache_pages() {
	local path=$1
	shift
	while (($# >= 2)); do
		pcarrange cache "$path" "$1" "$2" || return
		shift 2
	done
}

# Drop the existing FILE (a regular file or a block device) from the
# cache, then cache exactly the pages of each pair, record that and hold
# them.
# usage: arrange_pages FILE [FIRST COUNT]...
arrange_pages() {
	local path=$1
	shift
	end_holds "$path"
	pcarrange drop "$path"
	cache_pages "$path" "$@"
	arranged "$path" "${*:-dropped}"
}

# When an arrangement no longer holds after a run, a failure of the test
# may be the machine's doing, not pagestat's, but only where its pages
# were not held (release_holds, or a machine that would not lock them):
# then the test is marked, and only a marked test is tried again (below).
# A held arrangement that changed was changed by the run: no retry.
note_if_disturbed() {
	[[ -n $HOLDS_RELEASED || -n $UNHELD ]] || return 0
	local i
	for i in "${!ARRANGED_PATH[@]}"; do
		[[ -e ${ARRANGED_PATH[i]} ]] || continue
		# shellcheck disable=SC2086 # HOW is a list of words
		pcarrange holds "${ARRANGED_PATH[i]}" ${ARRANGED_HOW[i]} ||
			mark_disturbed "${ARRANGED_PATH[i]} no longer as arranged after a run"
	done
}

# The pages this test arranged went during its action (say WHAT): the test
# may be tried again.  Only where they were unlocked (release_holds).
# usage: mark_disturbed WHAT
mark_disturbed() {
	printf '%s\n' "$1" >>"$BATS_TEST_TMPDIR/.cache-disturbed"
}

# bats calls this after a test failed: try it again, at most twice, only
# when its arranged cache was disturbed during a run.  Any other failure
# is final, so a real fault is never retried away.  Each retry says so in
# the log on a line starting "# RETRY" (grep the logs for it), saying
# why the pages were not held: released for an action, not lockable
# here, or the test's own unlocked files; "INSPECT-ONLY" when the test
# held its pages and never released them (which should not happen).
bats_should_retry_test() {
	# "return 1", not "return": called from bats' EXIT trap (a test that
	# ended on an error such as ${lines?}), a bare return gives the status
	# from before the trap, often 0, and the test is retried forever
	[[ -e $BATS_TEST_TMPDIR/.cache-disturbed ]] && ((BATS_TEST_TRY_NUMBER <= 2)) || return 1
	local why
	if [[ -n $HOLDS_RELEASED ]]; then
		why="released: $HOLDS_RELEASED"
	elif [[ -n $UNHELD ]]; then
		why="unheld: $UNHELD could not be locked"
	elif [[ -n $UNLOCKED_OWN ]]; then
		why="unlocked: the action under test needs $UNLOCKED_OWN unlocked"
	elif [[ -n $HELD_ANY ]]; then
		why=INSPECT-ONLY
	else
		why="unlocked: the test's own files"
	fi
	printf '# RETRY (%s) %s: %s; trying it again\n' "$why" \
		"$BATS_TEST_DESCRIPTION" "$(head -n 1 "$BATS_TEST_TMPDIR/.cache-disturbed")" >&3
}

# FILE of PAGES pages (the last one half full when HALF=1), wholly cached.
make_cached() {
	end_holds "$1"
	pcarrange write "$1" $(( $2 * PAGE - ${HALF:-0} * PAGE / 2 ))
	pcarrange cache "$1" 0 "$2"
	arranged "$1" "$2"
}

# FILE of PAGES pages, on disk, none of them cached.
make_dropped() {
	end_holds "$1"
	pcarrange write "$1" $(( $2 * PAGE ))
	pcarrange drop "$1"
	arranged "$1" dropped
}

# FILE of PAGES pages, all cached and dirty (not yet written back; the
# kernel writes back after vm.dirty_expire_centisecs, 30 s by default),
# held cached (the lock writes nothing: they stay dirty until written
# back).
make_dirty() {
	end_holds "$1"
	pcarrange dirty "$1" $(( $2 * PAGE ))
	hold_pages "$1"
}

# FILE of PAGES pages with exactly pages FIRST..FIRST+COUNT-1 cached.
make_partial() {
	make_pattern "$1" "$2" "$3" "$4"
}

# FILE of PAGES pages with exactly the pages of each FIRST COUNT pair
# cached, the rest not.
# usage: make_pattern FILE PAGES [FIRST COUNT]...
make_pattern() {
	end_holds "$1"
	pcarrange write "$1" $(( $2 * PAGE ))
	arrange_pages "$1" "${@:3}"
}

# A field of the one JSON document in $output.
json_field() {
	jq -r "$1" <<<"$output"
}

# bats-assert 2.1 has no assert_stderr: $stderr must hold every argument.
assert_stderr_has() {
	local want
	for want; do
		[[ $stderr == *"$want"* ]] ||
			fail "stderr lacks '$want'"$'\n'"stderr: $stderr"
	done
}

# In the JSON document in $output, exactly one row has PATH, and each KEY
# of it is VALUE.
# usage: assert_row PATH KEY=VALUE...
assert_row() {
	local path=$1 kv key got n
	shift
	n=$(jq --arg p "$path" '[.rows[] | select(.path == $p)] | length' <<<"$output")
	assert_equal "rows with path $path: $n" "rows with path $path: 1"
	for kv; do
		key=${kv%%=*}
		got=$(jq -r --arg p "$path" --arg k "$key" \
			'.rows[] | select(.path == $p) | .[$k]' <<<"$output")
		note_machine_loss "$path" "$key" "${kv#*=}" "$got"
		assert_equal "$path: $key=$got" "$path: $kv"
	done
}

# An action's count KEY (dropped, read) of WHAT is GOT where WANT was
# arranged.  The pages an eviction or a warm works on are unlocked, and
# the machine may page some out between the arrangement and the run
# (TESTING.md): fewer dropped, or more read, than arranged is then its
# doing, not pagestat's, and the test is marked to be tried again.  The
# other way round (more dropped, fewer read) is final.
# usage: note_machine_loss WHAT KEY WANT GOT
note_machine_loss() {
	[[ $3 =~ ^[0-9]+$ && $4 =~ ^[0-9]+$ ]] || return 0
	case $2 in
	dropped) (($4 < $3)) || return 0 ;;
	read) (($4 > $3)) || return 0 ;;
	*) return 0 ;;
	esac
	mark_disturbed "$1: $2 $4 where $3 pages were arranged (the machine paged some out before the action)"
}

# The paths of the rows of the JSON document in $output, in order.
row_paths() {
	jq -r '[.rows[].path] | join(" ")' <<<"$output"
}

# No row has PATH.
refute_row() {
	local n
	n=$(jq --arg p "$1" '[.rows[] | select(.path == $p)] | length' <<<"$output")
	assert_equal "rows with path $1: $n" "rows with path $1: 0"
}

# $output as one line: CSV or table lines joined by spaces.
joined_lines() {
	local IFS=' '
	echo "${lines[*]}"
}

# A usage error: status 2, nothing on stdout (nothing half-done), a
# message on stderr from pagestat holding each WANT.
# usage: refused WANT... -- ARG...
refused() {
	local -a wants=()
	while [[ $1 != -- ]]; do
		wants+=("$1")
		shift
	done
	shift
	run -2 --separate-stderr pagestat "$@"
	refute_output
	[[ $stderr == "pagestat: "* ]] || fail "stderr does not start with 'pagestat: ': $stderr"
	assert_stderr_has "${wants[@]}"
}

# As refused, with a list of names on standard input and --files0-from=-
# (first, unless ARGs place it): the usage error must come before anything
# is read or inspected, so the list is still unread afterwards (stdin is a
# regular file whose offset pagestat would move by reading it).
# usage: refused_unread WANT... -- ARG...
refused_unread() {
	local -a wants=()
	local names_fd first=
	while [[ $1 != -- ]]; do
		wants+=("$1")
		shift
	done
	shift
	[[ " $* " == *" --files0-from=- "* ]] || set -- --files0-from=- "$@"
	printf 'listed\0' >names
	exec {names_fd}<names
	run -2 --separate-stderr pagestat "$@" <&"$names_fd"
	IFS= read -r -d '' first <&"$names_fd" || true
	exec {names_fd}<&-
	refute_output
	[[ $stderr == "pagestat: "* ]] || fail "stderr does not start with 'pagestat: ': $stderr"
	assert_stderr_has "${wants[@]}"
	assert_equal "first name still unread: $first" "first name still unread: listed"
}

# Each KEY of the total of the JSON document in $output is VALUE.
assert_total() {
	local kv got
	for kv; do
		got=$(jq -r --arg k "${kv%%=*}" '.total[$k]' <<<"$output")
		note_machine_loss total "${kv%%=*}" "${kv#*=}" "$got"
		assert_equal "total: ${kv%%=*}=$got" "total: $kv"
	done
}

# ---- a tree that sort.bats and select.bats share -------------------------

# mix/big        8 pages, 6 cached    75 %
# mix/full       3 pages, 3 cached   100 %
# mix/empty      0 pages             percent null
# mix/sub/c      4 pages, 2 cached    50 %
# mix/sub/one   10 pages, 1 cached    10 %
# mix           25 pages, 12 cached   48 %, 5 files
make_mix() {
	mkdir -p mix/sub
	make_partial mix/big 8 0 6
	make_cached mix/full 3
	: >mix/empty
	make_partial mix/sub/c 4 1 2
	make_partial mix/sub/one 10 9 1
}

# ---- runs that must end, output that must hold together ------------------

# pagestat under timeout: a hang fails the test (status 124, said on
# stderr) instead of stalling the suite.  Never a timing assertion: the
# bound is far above any run's time.
bounded() {
	rearrange || return
	local status=0
	timeout 120 "$PAGESTAT" "$@" || status=$?
	note_if_disturbed
	((status != 124)) || echo "pagestat did not end within 120 s: $*" >&2
	return "$status"
}

# Every line on stderr is pagestat's (a message or its indented
# continuation): no "Broken pipe" from the shell, no sanitizer report.
# WHAT (say, "run 3 (csv)") begins the message of a failure.
# usage: assert_stderr_clean [WHAT]
assert_stderr_clean() {
	local line
	[[ -n $stderr ]] || return 0
	while IFS= read -r line; do
		[[ $line == "pagestat: "* || $line == "  "* ]] ||
			fail "${1:+$1: }exit $status: a stray line on stderr: $line"$'\n'"stderr: $stderr"
	done <<<"$stderr"
}

# The output of `pagestat -a --format=FORMAT OPERAND` in $output (exit
# $status) holds together: valid, its file rows adding up to the
# operand's row and to the total (tests/adds_up.py); else the failure
# says what does not.
# usage: assert_adds_up json|ndjson|csv OPERAND [WHAT]
assert_adds_up() {
	local problems
	problems=$("$PYTHON3" "$HELPER_DIR/adds_up.py" "$1" "$2" "$status" 2>&1 <<<"$output") ||
		fail "${3:+$3: }exit $status: $1 output that does not hold together:"$'\n'"$problems"$'\n'"stderr: $stderr"$'\n'"output ending: $(tail -c 2000 <<<"$output")"
}

# ---- block devices -------------------------------------------------------

# A loop device over a file img of PAGES pages (64 by default), kept open
# (the kernel drops a block device's cache at its last close), with the
# pages of each FIRST COUNT pair cached (pages 5..7 by default).  Sets
# LOOP_DEV; the suite's teardown calls remove_loop_device.
# usage: make_loop_device [PAGES [FIRST COUNT]...]
make_loop_device() {
	local pages=${1:-64}
	shift $(($# > 0))
	(($#)) || set -- 5 3
	require_root "losetup needs root"
	command -v losetup >/dev/null || skip "losetup (util-linux) is not installed"
	pcarrange write img $((pages * PAGE))
	LOOP_DEV=$(losetup -f --show img 2>/dev/null) || {
		LOOP_DEV=
		skip "losetup -f --show failed: no loop device available here"
	}
	# udev may still be probing the new device: let it finish first
	if command -v udevadm >/dev/null; then
		udevadm settle --timeout=5 2>/dev/null || true
	fi
	exec {LOOP_FD}<"$LOOP_DEV"
	arrange_pages "$LOOP_DEV" "$@"
}

# Undo make_loop_device, also after a failure half-way through it.
remove_loop_device() {
	end_holds
	if [[ -n ${LOOP_FD-} ]]; then
		exec {LOOP_FD}<&-
		LOOP_FD=
	fi
	if [[ -n ${LOOP_DEV-} ]]; then
		losetup -d "$LOOP_DEV" || true
		LOOP_DEV=
	fi
}

# ---- running as an unprivileged user ------------------------------------

NOBODY=65534

as_nobody() {
	rearrange || return
	local status=0
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@" || status=$?
	note_if_disturbed
	return "$status"
}

# A directory nobody can reach ($BATS_TEST_TMPDIR is 0700 root) holding
# a copy of pagestat nobody may execute; the test works in it.  The
# suite's teardown calls leave_nobody_dir.
enter_nobody_dir() {
	require_root "only root can run pagestat as another user"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	NOBODY_DIR=$(mktemp -d /var/tmp/pagestat-test.XXXXXX)
	chmod 755 "$NOBODY_DIR"
	cp "$PAGESTAT" "$NOBODY_DIR/pagestat"
	chmod 755 "$NOBODY_DIR/pagestat"
	cd "$NOBODY_DIR"
	run as_nobody ./pagestat --help
	[[ $status -ne 126 ]] || skip "nobody cannot execute files in /var/tmp (noexec?)"
}

leave_nobody_dir() {
	end_holds
	if [[ -n ${NOBODY_DIR-} && $NOBODY_DIR == /var/tmp/pagestat-test.* ]]; then
		cd /
		rm -rf -- "$NOBODY_DIR"
	fi
}

# Move whatever still runs in cgroup DIR to its parent, then remove it
# (the kernel may need a moment after the last process left): a test's
# own cgroup, in teardown (on_teardown remove_cgroup DIR).
remove_cgroup() {
	local dir=$1 pid i
	end_holds
	[[ -d $dir ]] || return 0
	while read -r pid; do
		echo "$pid" >"${dir%/*}/cgroup.procs" 2>/dev/null || true
	done <"$dir/cgroup.procs"
	for ((i = 0; i < 50; i++)); do
		rmdir "$dir" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "teardown: cannot remove the cgroup $dir" >&2
	return 1
}
