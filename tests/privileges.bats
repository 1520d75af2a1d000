#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# A setcap pagestat (cap_dac_read_search,cap_fowner+ep) run by nobody:
# its capabilities serve the inspection only.  For every option that
# names a path, it reads nothing and changes nothing that nobody could
# not read or change without it; as root the same options still work.
#   secret      a root file, 0600, whose bytes must never show
#   private/    a root directory, 0700
#   sticky/     1777, holding a root file nobody may not replace

load test_helper

SECRET_TEXT=the-secret-contents-of-a-root-file

setup() {
	require_disk_tmpdir
	enter_nobody_dir
	command -v setcap >/dev/null || skip "setcap (libcap2-bin) is not installed"
	cp pagestat pagestat-cap
	setcap cap_dac_read_search,cap_fowner+ep pagestat-cap ||
		skip "setcap failed: this file system keeps no file capabilities"
	run -0 as_nobody ./pagestat-cap --version
	[[ $output == *"capabilities: cap_dac_read_search,cap_fowner"* ]] ||
		skip "file capabilities are not honoured here (nosuid mount?): $output"

	mkdir data
	make_cached data/a 3
	make_partial data/b 4 0 1
	chmod 644 data/a data/b
	printf '%s\0data/a\0' "$SECRET_TEXT" >secret
	chmod 600 secret
	mkdir -m 700 private
	printf 'data/a\0' >private/list
	mkdir -m 1777 sticky
	echo "root's own" >sticky/victim
	chmod 644 sticky/victim
}

teardown() {
	local pid
	for pid in ${HOLDER-} ${FLIPPERS-} ${WATCHER-} ${WRITER-}; do
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	run_teardowns
	leave_nobody_dir
}

# Nothing of the secret reached stdout or stderr.
refute_secret() {
	[[ $output != *"$SECRET_TEXT"* && ${stderr-} != *"$SECRET_TEXT"* ]] ||
		fail "the secret's contents were shown: stdout: $output"$'\n'"stderr: ${stderr-}"
}

# sticky/victim is as setup made it: contents, owner, inode; nothing
# else is in sticky/.
assert_victim_untouched() {
	assert_equal "$(cat sticky/victim) $(stat -c %U sticky/victim)" "root's own root"
	assert_equal "$(stat -c %i sticky/victim)" "$VICTIM_INODE"
	assert_equal "$(ls -A sticky)" victim
}

# Starts openwatch on FILE (WATCHER), ready.
watch_opens() {
	"$OPENWATCH" "$@" >watch.out 3>&- &
	WATCHER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(head -n 1 watch.out) == ready ]] && break
		sleep 0.05
	done
	assert_equal "$(head -n 1 watch.out)" ready
}

# The opens openwatch counted, in $opens, the watch stopped (in this
# shell: a command substitution's subshell cannot wait for the watcher,
# and would read watch.out before the counts are written).
watched_opens() {
	kill -TERM "$WATCHER" && wait "$WATCHER" || true
	WATCHER=
	opens=$(sed 1d watch.out | tr '\n' ' ')
}

@test "what a setcap install shows nobody: the names and cache state of a file it cannot read, never its bytes" {
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a --output-all private secret
	refute_secret
	assert_row secret type=file files=1
	assert_row private/list type=file files=1
	# and nobody alone, without the copy, is refused both
	run -1 --separate-stderr as_nobody ./pagestat -J private secret
	assert_row private errno=EACCES
	assert_row secret errno=EACCES
}

@test "what a setcap install shows nobody of a file it cannot stat: no inode, file size or mtime (null, '-'); of one it can, all" {
	mkdir -m 755 private/pub
	make_cached private/pub/f 2
	chmod 644 private/pub/f
	local cols=path,inode,file_size,mtime,mtime_nsec,cached
	# below a directory nobody cannot search: named, walked into, or
	# reached through a directory nobody may search but not reach
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -o "$cols" private private/pub/f
	local row
	for row in private/list private/pub/f; do
		assert_equal "$(jq -c --arg p "$row" '[.rows[] | select(.path == $p)][0] |
			[.inode, .file_size, .mtime, .mtime_nsec, .cached]' <<<"$output")" \
			"[null,null,null,null,$(jq -r --arg p "$row" '.rows[] | select(.path == $p) | .cached' <<<"$output")]"
	done
	run -0 --separate-stderr as_nobody ./pagestat-cap -o "$cols" private/pub/f
	assert_equal "$(tail -n 1 <<<"$output" | awk '{print $1, $2, $3, $4, $5}')" "private/pub/f - - - -"
	# a file nobody can stat: what stat(1) would tell it
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -o "$cols" data/a
	assert_equal "$(jq -c '.rows[0] | [.inode, .file_size, .mtime, .mtime_nsec]' <<<"$output")" \
		"$("$PYTHON3" -c 'import os, sys; s = os.stat(sys.argv[1]); n = s.st_mtime_ns
print("[%d,%d,%d,%d]" % (s.st_ino, s.st_size, n // 10**9, n % 10**9))' data/a)"
	# a snapshot nobody takes holds no identity for it
	run -0 --separate-stderr as_nobody ./pagestat-cap -a -e --format=ndjson private/pub
	assert_equal "$(jq -c 'select(.type == "file") | [.inode, .mtime]' <<<"$output")" "[null,null]"
	# root, with the copy or without, sees them all
	run -0 --separate-stderr ./pagestat-cap -J -o "$cols" private/pub/f
	assert_equal "$(jq -c '.rows[0].inode' <<<"$output")" "$(stat -c %i private/pub/f)"
}

@test "--files0-from a file nobody cannot read: exit 2, nothing of it shown; root reads it" {
	local list
	for list in secret private/list; do
		run -2 --separate-stderr as_nobody ./pagestat-cap -J --files0-from="$list"
		refute_output
		refute_secret
		assert_equal "$stderr" "pagestat: cannot read --files0-from '$list': Permission denied"
	done
	# as root the same lists are read, their names inspected
	run -1 --separate-stderr "$PAGESTAT" -J --files0-from=secret
	assert_row data/a cached=3
	run -0 --separate-stderr "$PAGESTAT" -J --files0-from=private/list
	assert_row data/a cached=3
	# a list nobody may read is read by the copy as by nobody
	printf 'data/b\0' >open-list
	chmod 644 open-list
	run -0 --separate-stderr as_nobody ./pagestat-cap -J --files0-from=open-list
	assert_row data/b cached=1 pages=4
}

@test "--exclude-from a file nobody cannot read: exit 2, nothing of it shown; root reads it" {
	printf '%s\nb\n' "$SECRET_TEXT" >globs
	chmod 600 globs
	run -2 --separate-stderr as_nobody ./pagestat-cap -J --exclude-from=globs data
	refute_output
	refute_secret
	assert_equal "$stderr" "pagestat: cannot read --exclude-from 'globs': Permission denied"
	run -0 --separate-stderr "$PAGESTAT" -J --exclude-from=globs data
	assert_row data files=1 cached=3
}

@test "--output-file over another user's file in a sticky directory: refused (exit 3), the file untouched; root replaces it" {
	VICTIM_INODE=$(stat -c %i sticky/victim)
	run -3 --separate-stderr as_nobody ./pagestat-cap -J --output-file=sticky/victim data
	refute_output
	assert_equal "$stderr" "pagestat: cannot replace --output-file 'sticky/victim': Operation not permitted"
	assert_victim_untouched
	# nobody's own file there is replaced as usual
	run -0 --separate-stderr as_nobody ./pagestat-cap -J --output-file=sticky/mine data
	assert_equal "$(jq .total.cached sticky/mine) $(stat -c %U sticky/mine)" "4 nobody"
	# root may replace it: root acts as root
	run -0 --separate-stderr "$PAGESTAT" -J --output-file=sticky/victim data
	assert_equal "$(jq .total.cached sticky/victim)" 4
}

@test "--output-file in a directory nobody cannot write: exit 3, nothing created" {
	mkdir -m 755 rootdir
	run -3 --separate-stderr as_nobody ./pagestat-cap -J --output-file=rootdir/out.json data
	refute_output
	assert_equal "$stderr" "pagestat: cannot create a temporary file for --output-file 'rootdir/out.json' in 'rootdir': Permission denied"
	assert_equal "$(ls -A rootdir)" ""
}

@test "--output-file below a directory nobody cannot enter: exit 2, the same words whether the file is there or not" {
	echo old >private/there
	local name want
	for name in private/there private/not-there; do
		want="pagestat: invalid value for --output-file: '$name' (expected a file in a directory you may enter (Permission denied))"
		run -2 --separate-stderr as_nobody ./pagestat-cap -J --output-file="$name" data
		refute_output
		assert_equal "$(head -n 1 <<<"$stderr")" "$want"
	done
	assert_equal "$(cat private/there)" old
	[[ ! -e private/not-there ]] || fail "private/not-there was created"
}

@test "--output-file naming a symbolic link: refused (exit 2) for nobody too; the link and its target untouched" {
	VICTIM_INODE=$(stat -c %i sticky/victim)
	ln -s victim sticky/link
	run -2 --separate-stderr as_nobody ./pagestat-cap -J --output-file=sticky/link data
	refute_output
	assert_stderr_has "invalid value for --output-file: 'sticky/link' (expected a regular file or a new name, not a symbolic link"
	assert_equal "$(readlink sticky/link)" victim
	rm sticky/link
	assert_victim_untouched
}

@test "TMPDIR nobody cannot write: the Prometheus spool goes where nobody may write, nothing is created there" {
	mkdir -m 755 rootdir
	mkdir -m 755 many
	(cd many && seq -f "file-with-a-rather-long-name-to-fill-the-spool-%g" 3000 | xargs touch)
	# the dynamic loader drops TMPDIR for a setcap program; the plain
	# copy keeps it, and passes over it
	local copy
	for copy in ./pagestat-cap ./pagestat; do
		run -0 --separate-stderr env TMPDIR="$PWD/rootdir" setpriv --reuid=$NOBODY \
			--regid=$NOBODY --clear-groups "$copy" --format=prometheus -o files -a many
		assert_equal "$copy: $(grep -c '^pagestat_files{path="many/file-' <<<"$output")" "$copy: 3000"
		assert_equal "$(ls -A rootdir)" ""
	done
}

@test "--pid of a root process: the file capabilities do not open its /proc entries (exit 1, no name shown)" {
	make_cached data/held 2
	hold_open data/held
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --pid "$HOLDER"
	[[ $output != *held* && $stderr != *held* ]] || fail "a file of the root process was named: $output $stderr"
	assert_stderr_has "pagestat: --pid $HOLDER: Permission denied" "CAP_SYS_PTRACE"
	# root reads it
	run -0 --separate-stderr "$PAGESTAT" -J --pid "$HOLDER"
	run -0 jq -r '.rows[] | select(.path | endswith("/data/held")) | .cached' <<<"$output"
	assert_output 2
}

# A v1 memory cgroup of the test's (removed by teardown's run_teardowns):
# CG its directory.
make_memory_cgroup() {
	[[ -e /sys/fs/cgroup/memory/memory.stat ]] ||
		skip "no cgroup v1 memory controller is mounted at /sys/fs/cgroup/memory"
	CG=/sys/fs/cgroup/memory/pagestat-priv-$$-$BATS_TEST_NUMBER
	mkdir "$CG" || skip "cannot make a memory cgroup at $CG"
	on_teardown rmdir "$CG"
}

@test "--cgroup of a root process's cgroup: its files are not opened for nobody, its memory.stat and cgroup.procs are read with nobody's rights" {
	make_memory_cgroup
	make_cached data/held 2
	hold_open data/held
	echo "$HOLDER" >"$CG/cgroup.procs"
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --cgroup="$CG"
	[[ $output != *held* && $stderr != *held* ]] || fail "a file of the root process was named: $output $stderr"
	assert_stderr_has "pagestat: --cgroup: process $HOLDER: Permission denied" "CAP_SYS_PTRACE"
	# the cgroup's own figures are anyone's
	run -0 jq -r '.rows[] | select(.type == "cgroup") | "\(.cgroup.processes) \(.cgroup.kernel.file_bytes | type)"' <<<"$output"
	assert_output "1 number"
	# root sees the file
	run -0 --separate-stderr "$PAGESTAT" -J --cgroup="$CG"
	run -0 jq -r '.rows[] | select(.path | endswith("/data/held")) | .cached' <<<"$output"
	assert_output 2
	# a cgroup nobody may not enter: the copy's CAP_DAC_READ_SEARCH does not read it
	chmod 700 "$CG"
	run -2 --separate-stderr as_nobody ./pagestat-cap -J --cgroup="$CG"
	assert_output ""
	assert_stderr_has "pagestat: --cgroup '$CG': memory.stat: Permission denied"
	run -0 --separate-stderr "$PAGESTAT" -J --cgroup="$CG" -o path
}

@test "--charged from a setcap copy as nobody: refused (exit 2, CAP_SYS_ADMIN named), nothing read; root keeps CAP_SYS_ADMIN only with --charged" {
	make_memory_cgroup
	run -2 --separate-stderr as_nobody ./pagestat-cap --cgroup="$CG" --charged -J data
	assert_output ""
	assert_stderr_has "pagestat: --charged: needs CAP_SYS_ADMIN (root)" "a setcap install does not grant it"
	# without --charged, nobody's run of the same cgroup and tree is refused only for the operands
	run -2 --separate-stderr as_nobody ./pagestat-cap --cgroup="$CG" -J data
	assert_stderr_has "FILE operands only with --charged"
	# root: CAP_SYS_ADMIN (bit 21) permitted and effective with --charged (and
	# CAP_SYS_PTRACE, bit 19, which --cgroup keeps for its processes)
	# alone, while it waits on the list it reads
	mkfifo -m 600 names.fifo
	local charged sets
	for charged in yes no; do
		if [[ $charged == yes ]]; then
			"$PAGESTAT" --cgroup="$CG" --charged --files0-from=names.fifo >/dev/null 2>&1 &
		else
			"$PAGESTAT" --files0-from=names.fifo >/dev/null 2>&1 &
		fi
		HOLDER=$!
		blocked_on_fifo "$HOLDER" || fail "pagestat did not block opening names.fifo"
		sets=$(awk '$1 == "CapEff:" || $1 == "CapPrm:" { printf "%s %s ", $1, $2 }' /proc/$HOLDER/status)
		timeout 10 sh -c ': >names.fifo' || true
		wait "$HOLDER" || true
		HOLDER=
		if [[ $charged == yes ]]; then
			assert_equal "--charged: $sets" "--charged: CapPrm: 000000000028000c CapEff: 000000000028000c "
		else
			assert_equal "no --charged: $sets" "no --charged: CapPrm: 000000000000000c CapEff: 000000000000000c "
		fi
	done
}

@test "while it opens a list, the setcap copy holds no effective capability, and the two permitted; root keeps its own" {
	mkfifo -m 666 names.fifo
	local who sets
	for who in nobody root; do
		if [[ $who == nobody ]]; then
			setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups ./pagestat-cap \
				--files0-from=names.fifo >/dev/null 2>&1 &
		else
			"$PAGESTAT" --files0-from=names.fifo >/dev/null 2>&1 &
		fi
		HOLDER=$!
		# blocked in open(FIFO): no writer yet
		blocked_on_fifo "$HOLDER" || fail "pagestat did not block opening names.fifo"
		sets=$(awk '$1 == "CapEff:" || $1 == "CapPrm:" { printf "%s %s ", $1, $2 }' /proc/$HOLDER/status)
		timeout 10 sh -c ': >names.fifo' || true
		wait "$HOLDER" || true
		HOLDER=
		if [[ $who == nobody ]]; then
			assert_equal "$who: $sets" "$who: CapPrm: 000000000000000c CapEff: 0000000000000000 "
		else
			assert_equal "$who: $sets" "$who: CapPrm: 000000000000000c CapEff: 000000000000000c "
		fi
	done
}

# ---- the actions: --evict, --warm, --warm-from ---------------------------
# Their files are arranged with pcarrange, not make_*: as_nobody restores
# what make_* arranged before each run, and an action changes it.

# FILE of 4 pages holding the secret's text, mode MODE, owned by root,
# all cached (CACHED=all) or none.
make_root_file() {
	{
		printf '%s' "$SECRET_TEXT"
		head -c $((4 * PAGE - ${#SECRET_TEXT})) /dev/zero
	} >"$1"
	chmod "$2" "$1"
	pcarrange drop "$1"
	[[ ${CACHED-} != all ]] || {
		pcarrange cache "$1" 0 4
		unlocked_own "$1"
	}
}

# Exactly these pages of FILE are cached now, as cachestat says.  An
# evict or a warm acts on a whole file: when N pages are wanted and some
# but not all are there, the kernel paged them out (DAMON, TESTING.md),
# and the test is marked to be tried again (test_helper.bash).
assert_cache() {
	local path=$1 stat
	shift
	pcarrange holds "$path" "$@" && return 0
	stat=$(pcarrange stat "$path")
	if [[ $# -eq 1 && $1 =~ ^[0-9]+$ ]] && ((${stat%% *} > 0 && ${stat%% *} < $1)); then
		mark_disturbed "$path: ${stat%% *} pages cached where $1 were (the machine paged some out)"
	fi
	fail "$path: wanted cached: $*; cachestat: $stat"
}

# The row of PATH in the JSON document in $output says no more than its
# name and the error EACCES.
assert_refused_row() {
	assert_row "$1" errno=EACCES
	assert_equal "$1: $(jq -c --arg p "$1" '.rows[] | select(.path == $p) | keys' <<<"$output")" \
		"$1: [\"errno\",\"error\",\"path\",\"type\"]"
}

@test "--evict and --warm as nobody: another user's 0600 file is not acted on (EACCES, exit 1, its name alone shown), one nobody may read is; root acts on both" {
	CACHED=all make_root_file theirs 600
	CACHED=all make_root_file mine 644
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --evict theirs mine
	refute_secret
	assert_refused_row theirs
	assert_row mine cached=0 dropped=4
	assert_stderr_has "pagestat: cannot evict 'theirs': Permission denied"
	assert_cache theirs 4
	assert_cache mine dropped

	pcarrange drop theirs
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --warm theirs mine
	refute_secret
	assert_refused_row theirs
	assert_row mine cached=4 read=4
	assert_cache theirs dropped
	assert_cache mine 4

	# in a tree: the same, file by file
	mkdir -m 755 tree
	CACHED=all make_root_file tree/theirs 600
	CACHED=all make_root_file tree/mine 644
	run -1 --separate-stderr as_nobody ./pagestat-cap -J -a --evict tree
	refute_secret
	assert_refused_row tree/theirs
	assert_row tree/mine cached=0 dropped=4
	assert_row tree dropped=4 files=1
	assert_cache tree/theirs 4
	assert_cache tree/mine dropped

	# root acts as root, with the copy and without
	local copy
	for copy in "$PAGESTAT" ./pagestat-cap; do
		CACHED=all make_root_file theirs 600
		run -0 --separate-stderr "$copy" -J --evict theirs
		assert_row theirs cached=0 dropped=4
		assert_cache theirs dropped
		run -0 --separate-stderr "$copy" -J --warm theirs
		assert_row theirs cached=4 read=4
		assert_cache theirs 4
	done
}

@test "--evict and --warm as nobody: a file nobody may read in a directory nobody cannot enter is not acted on" {
	CACHED=all make_root_file private/open 644
	mkdir -m 755 private/sub
	CACHED=all make_root_file private/sub/open 644
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --evict private/open private/sub/open
	assert_refused_row private/open
	assert_refused_row private/sub/open
	assert_cache private/open 4
	assert_cache private/sub/open 4
	# walked into with -a: the same
	run -1 --separate-stderr as_nobody ./pagestat-cap -J -a --evict private
	assert_refused_row private/open
	assert_refused_row private/sub/open
	assert_cache private/open 4
	assert_cache private/sub/open 4
	pcarrange drop private/open
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --warm private/open
	assert_refused_row private/open
	assert_cache private/open dropped
	# root acts
	run -0 --separate-stderr ./pagestat-cap -J -a --evict private
	assert_row private/sub/open dropped=4
	assert_cache private/sub/open dropped
}

@test "-j: a setcap copy's workers (own descriptor tables) as nobody inspect what -j 1 does and act on nothing more" {
	# 3,000 files (past -j auto's 2,048) in a directory nobody cannot
	# enter: inspected through the copy's capabilities, by every thread
	mkdir -m 700 private/many
	local i
	for ((i = 0; i < 3000; i++)); do : >"private/many/f$i"; done
	CACHED=all make_root_file private/many/theirs 600
	# held while the runs are compared: they only inspect
	hold_pages private/many/theirs
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -j 1 private
	local one=$output
	assert_equal "$(jq .total.files <<<"$one")" 3002 # and private/list
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -j 2 private
	assert_equal "$output" "$one"
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a private
	assert_equal "$output" "$one"
	refute_secret
	# acting with workers: nothing nobody may not reach (the directory);
	# the pages unlocked, so that a wrongful eviction would drop them
	release_holds "--evict as nobody must be free to drop the pages, and shown not to"
	run -1 --separate-stderr as_nobody ./pagestat-cap -J -a -j 2 --evict private
	assert_refused_row private/many/theirs
	assert_cache private/many/theirs 4
	refute_secret
}

@test "--warm-from a snapshot nobody cannot read: exit 2, nothing of it shown, nothing warmed; root warms from it" {
	# a snapshot that names a file by the secret's text
	make_root_file "$SECRET_TEXT" 644
	pcarrange cache "$SECRET_TEXT" 0 4
	"$PAGESTAT" -a -e --format=ndjson "$SECRET_TEXT" >snap.ndjson
	"$PAGESTAT" -a -e -J "$SECRET_TEXT" >private/snap.json
	chmod 600 snap.ndjson
	chmod 644 private/snap.json
	pcarrange drop "$SECRET_TEXT"
	local snap
	for snap in snap.ndjson private/snap.json; do
		run -2 --separate-stderr as_nobody ./pagestat-cap -J --warm-from="$snap"
		refute_output
		refute_secret
		assert_equal "$stderr" "pagestat: cannot read --warm-from '$snap': Permission denied"
		assert_cache "$SECRET_TEXT" dropped
	done
	# root reads it
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_row "$SECRET_TEXT" read=4
	assert_cache "$SECRET_TEXT" 4
}

@test "--warm-from as nobody, a snapshot it may read listing root files it may not open: those not warmed (EACCES, exit 1), the others warmed; root warms all" {
	CACHED=all make_root_file theirs 600
	CACHED=all make_root_file mine 644
	CACHED=all make_root_file private/open 644
	"$PAGESTAT" -a -e --format=ndjson theirs mine private/open >snap.ndjson
	chmod 644 snap.ndjson
	pcarrange drop theirs
	pcarrange drop mine
	pcarrange drop private/open
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --warm-from=snap.ndjson
	refute_secret
	assert_refused_row theirs
	assert_refused_row private/open
	assert_row mine read=4 cached=4
	assert_cache theirs dropped
	assert_cache private/open dropped
	assert_cache mine 4
	# root warms them
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=snap.ndjson
	assert_row theirs read=4
	assert_row private/open read=4
	assert_row mine read=0
	assert_cache theirs 4
	assert_cache private/open 4
}

@test "installed set-user-ID: refused before anything is done (exit 3)" {
	[[ $(findmnt -n -o OPTIONS --target . 2>/dev/null) != *nosuid* ]] ||
		skip "this file system is mounted nosuid"
	cp pagestat pagestat-suid
	chmod 4755 pagestat-suid
	run -3 --separate-stderr as_nobody ./pagestat-suid data
	refute_output
	assert_stderr_has "pagestat: installed set-user-ID or set-group-ID, which pagestat refuses" "setcap"
}

# ---- the race of a name checked, then opened --------------------------
# What the capabilities must never open, whatever a name is swapped for:
# root's FIFO (rootonly/fifo, 0600, in a 0700 directory) with a writer
# blocked in its open, which any open for reading would release, and a
# root-only character device.  openwatch counts every open of both
# (inotify IN_OPEN: an O_PATH open is none).
RACE_RUNS=150

race_targets() {
	: "${FLIP:?FLIP must name tests/flip (make check sets it)}"
	: "${OPENWATCH:?OPENWATCH must name tests/openwatch (make check sets it)}"
	DEVICE=
	local dev
	for dev in /dev/kvm /dev/vhost-net /dev/vhost-vsock /dev/uinput /dev/vga_arbiter; do
		if [[ -c $dev && $(stat -c %u:%a "$dev") == 0:600 ]] && : 2>/dev/null <"$dev"; then
			DEVICE=$dev
			break
		fi
	done
	[[ -n $DEVICE ]] || skip "no root-only character device (0600) that root can open here"
	mkdir -m 700 rootonly
	mkfifo -m 600 rootonly/fifo
	# blocked in open(2) until a reader opens the FIFO
	(exec 3>rootonly/fifo && echo released >&3) &
	WRITER=$!
	watch_opens rootonly/fifo "$DEVICE"
	# nobody's own directory, where nobody swaps names
	mkdir attack
	chown "$NOBODY:$NOBODY" attack
}

# As nobody, without pause until race_end: swap the names A and B (in attack/).
race_flip() {
	setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups \
		"$FLIP" "attack/$1" "attack/$2" >"flip.$1.out" 3>&- &
	FLIPPERS="${FLIPPERS-} $!"
}

# attack/x and attack/y, files of nobody's (2 pages cached), and the links
# that will take their places: attack/to-fifo, attack/to-device.
race_files() {
	make_cached attack/x 2
	make_cached attack/y 2
	ln -s "$PWD/rootonly/fifo" attack/to-fifo
	ln -s "$DEVICE" attack/to-device
	chown -h "$NOBODY" attack/x attack/y attack/to-fifo attack/to-device
}

# Runs the setcap copy as nobody RACE_RUNS times with ARGS, the names
# swapped all the while; MEASURED: the runs that measured a file.
race_runs() {
	local i out
	MEASURED=0
	for ((i = 0; i < RACE_RUNS; i++)); do
		out=$(setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups \
			./pagestat-cap "$@" 2>&1) || true
		[[ $out != *'"type":"file","size":'* ]] || MEASURED=$((MEASURED + 1))
	done
}

# The flippers stopped (each swapped its names many times), then: neither
# target was opened by any run, and root's writer still waits in open(2).
race_end() {
	local pid out
	for pid in $FLIPPERS; do
		kill -TERM "$pid" && wait "$pid" || true
	done
	FLIPPERS=
	for out in flip.*.out; do
		(($(cat "$out") > 10000)) || fail "$out: the names were swapped $(cat "$out") times only"
	done
	# the writer: alive, in openat (257) or open (2), never released
	local nr= writer=released
	read -r nr _ 2>/dev/null </proc/"$WRITER"/syscall || true
	[[ $nr != 257 && $nr != 2 ]] || writer="blocked in open"
	kill "$WRITER" && wait "$WRITER" || true
	WRITER=
	# the watch works: an open of each by root is counted (the FIFO's
	# writer gone first: no other open of it, which inotify could merge
	# with ours)
	exec 4<"$DEVICE"
	exec 4<&-
	exec 4<>rootonly/fifo
	exec 4<&-
	local opens
	watched_opens
	assert_equal "writer $writer; opens: $opens" \
		"writer blocked in open; opens: 1 rootonly/fifo 1 $DEVICE "
}

@test "race, operands and --files0-from: a name flipped between a file and a link to root's FIFO or a device for the whole run: neither is ever opened" {
	race_targets
	race_files
	printf 'attack/x\0attack/y\0' >attack/list
	chown "$NOBODY" attack/list
	race_flip x to-fifo
	race_flip y to-device
	race_runs -J attack/x attack/y
	local operands=$MEASURED
	race_runs -J --files0-from=attack/list
	local files0=$MEASURED
	race_end
	# the race was run: the files were measured in some runs
	((operands > 0 && files0 > 0)) ||
		fail "no run measured a file (operands $operands, --files0-from $files0 of $RACE_RUNS)"
}

@test "race, -L walk: entries flipped between a file and a link to root's FIFO or a device during the walk: neither is ever opened" {
	race_targets
	local i
	# a directory read first: the entries wait in the walk's buffer
	for ((i = 0; i < 300; i++)); do : >"attack/f$i"; done
	race_files
	chown -hR "$NOBODY" attack
	race_flip x to-fifo
	race_flip y to-device
	race_runs -J -L -a -j 1 attack
	local walks=$MEASURED
	race_end
	((walks > 0)) || fail "no walk measured a file"
}

@test "race, --warm-from: a snapshot's file flipped with a link to root's FIFO or a device: neither is ever opened" {
	race_targets
	race_files
	"$PAGESTAT" -a -e --format=ndjson attack/x attack/y >attack/snap
	chown "$NOBODY" attack/snap
	race_flip x to-fifo
	race_flip y to-device
	race_runs -J --warm-from=attack/snap
	local warms=$MEASURED
	race_end
	((warms > 0)) || fail "no run warmed a file"
}

@test "race, --pid: a directory of a mapped file's path flipped with a link towards root's FIFO or a device: neither is ever opened" {
	race_targets
	# nobody's process maps two files and holds no descriptor of them, so
	# that they are opened by their paths in its root (map_files needs
	# CAP_SYS_ADMIN): attack/d1/fifo and attack/d2/<the device's name>
	local devname=${DEVICE##*/}
	mkdir attack/d1 attack/d2
	make_cached attack/d1/fifo 2
	make_cached "attack/d2/$devname" 2
	ln -s "$PWD/rootonly" attack/to-rootonly
	ln -s "${DEVICE%/*}" attack/to-dev
	chown -hR "$NOBODY" attack
	# pcarrange map: each file mapped, its descriptor closed
	local mapped
	for mapped in d1/fifo "d2/$devname"; do
		setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups \
			"$PCARRANGE" map "$PWD/attack/$mapped" >"mapper.${mapped%%/*}" 3>&- &
		HOLDER="${HOLDER-} $!"
	done
	local i
	for ((i = 0; i < 100; i++)); do
		[[ $(cat mapper.d1 mapper.d2) == $'mapped\nmapped' ]] && break
		sleep 0.05
	done
	assert_equal "$(cat mapper.d1 mapper.d2)" $'mapped\nmapped'
	local pid pids=()
	for pid in $HOLDER; do
		[[ $(ls -l /proc/"$pid"/fd) != *attack/* ]] ||
			fail "the mapper holds a descriptor of its file: $(ls -l /proc/"$pid"/fd)"
		pids+=(--pid "$pid")
	done
	race_flip d1 to-rootonly
	race_flip d2 to-dev
	race_runs -J "${pids[@]}"
	local pids=$MEASURED
	race_end
	((pids > 0)) || fail "no run measured the mapped files"
}

# Lines of the .c files anywhere below src/ matching the extended regular
# expression, comments left out, as FILE:LINE:TEXT (FILE without its
# folder).  sources_found, first, fails when there are fewer than 40
# sources: a check of no files would pass whatever the code did.
sources_found() {
	local count
	count=$(find "$BATS_TEST_DIRNAME/../src" -name '*.c' | wc -l)
	((count >= 40)) || fail "only $count .c files found below src/"
}
code_matching() {
	local src=$BATS_TEST_DIRNAME/../src
	grep -rnE --include='*.c' "$1" "$src" | grep -vE '^[^:]*:[0-9]+:\s*(/\*|\*|//)' |
		sed -E 's|^[^:]*/([^/:]+\.c:)|\1|' || true
}

@test "every create, write, rename or removal in src/ goes through src/kernel/userfile.c" {
	sources_found
	# calls that change files, and open flags that create or write
	local bad
	bad=$(code_matching '\b(rename|renameat2?|unlink|unlinkat|remove|rmdir|mkdir|mkdirat|mkstemp|mkostemp|tmpfile|creat|fchmod|fchmodat|chmod|chown|fchown|link|linkat|symlink|truncate|ftruncate)\(|O_(WRONLY|RDWR|CREAT|TMPFILE|TRUNC|APPEND)|fopen\([^)]*"[wa]' |
		grep -v '^userfile\.c:' || true)
	assert_equal "outside userfile.c: $bad" "outside userfile.c: "
	# and every other open of a path is an inspection, in the files that inspect
	local files
	files=$(code_matching '\b(open|openat|fopen|opendir)\(' | cut -d: -f1 | sort -u | tr '\n' ' ')
	assert_equal "$files" "charge.c jobs.c overlay.c pidfiles.c safeopen.c tree.c userfile.c "
	# a file is opened for reading by safe_open alone (O_PATH, checked,
	# then reopened); elsewhere only directories (O_DIRECTORY, O_PATH) and
	# /proc or /sys files of the kernel's (fopen, opendir)
	bad=$(code_matching '\b(open|openat)\(' | grep -v '^safeopen\.c:' | grep -v '^userfile\.c:' |
		grep -vE 'O_DIRECTORY|O_PATH|open_flags\(t, ' || true)
	assert_equal "opened otherwise: $bad" "opened otherwise: "
}

# ---- issue 31, item 2: identity of files nobody cannot stat ----------------

@test "--warm-from as nobody, a file it cannot stat: one EACCES row, the same whatever inode, size and mtime the snapshot guessed; a file it can stat is compared" {
	CACHED=all make_root_file private/f 600
	CACHED=all make_root_file mine 644
	"$PAGESTAT" -a -e --format=ndjson private/f mine >right.ndjson
	local ino size mtime
	read -r ino size mtime < <(stat -c '%i %s %Y' private/f)
	assert_equal "$(jq -r 'select(.path == "private/f") | "\(.inode) \(.file_size) \(.mtime)"' right.ndjson)" \
		"$ino $size $mtime"
	# wrong guesses (a size past the extents' end, so the snapshot holds)
	jq -c 'if .path == "private/f" then .inode += 1 else . end' right.ndjson >inode.ndjson
	jq -c 'if .path == "private/f" then .file_size += 1 else . end' right.ndjson >size.ndjson
	jq -c 'if .path == "private/f" then .mtime -= 7 else . end' right.ndjson >mtime.ndjson
	jq -c 'if .path == "private/f" then .inode = null | .file_size = null |
		.mtime = null | .mtime_nsec = null else . end' right.ndjson >none.ndjson
	chmod 644 ./*.ndjson
	local snap first_out first_err
	for snap in right inode size mtime none; do
		pcarrange drop private/f
		pcarrange drop mine
		run -1 --separate-stderr as_nobody ./pagestat-cap -J -o path,cached,read \
			--warm-from="$snap.ndjson"
		refute_secret
		assert_refused_row private/f
		assert_row mine read=4
		assert_cache private/f dropped
		if [[ $snap == right ]]; then
			first_out=$output first_err=$stderr
			assert_equal "$stderr" "pagestat: cannot warm 'private/f': Permission denied"
		else
			assert_equal "$snap: $output" "$snap: $first_out"
			assert_equal "$snap: $stderr" "$snap: $first_err"
		fi
	done
	# a file nobody can stat itself is compared: a wrong mtime is told
	jq -c 'if .path == "mine" then .mtime -= 7 else . end' right.ndjson >mine.ndjson
	chmod 644 mine.ndjson
	pcarrange drop mine
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --warm-from=mine.ndjson
	assert_stderr_has "'mine': changed since the snapshot (its mtime differs): skipped"
	assert_cache mine dropped
	# root compares them all
	run -0 --separate-stderr "$PAGESTAT" -J --warm-from=inode.ndjson
	assert_stderr_has "'private/f': changed since the snapshot (its inode differs: another file): skipped"
}

@test "two names of one hard-linked file nobody cannot stat count as two files for nobody (FILES 2), as one for root" {
	make_cached private/a 3
	ln private/a private/b
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -c private/a private/b
	assert_row private/a files=1 cached=3
	assert_row private/b files=1 cached=3
	assert_equal "$(json_field .total.files) $(json_field .total.cached)" "2 6"
	run -0 --separate-stderr as_nobody ./pagestat-cap -a private
	assert_equal "$(tail -n 1 <<<"$output" | awk '{print $7, $8}')" "3 private"
	# names nobody can stat are counted once
	mkdir -m 755 pub
	make_cached pub/a 2
	chmod 644 pub/a
	ln pub/a pub/b
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -c pub/a pub/b
	assert_equal "$(json_field .total.files) $(row_paths)" "1 pub/a"
	# root counts the hard link once
	run -0 --separate-stderr "$PAGESTAT" -J -c private/a private/b
	assert_equal "$(json_field .total.files) $(json_field .total.cached)" "1 3"
}

@test "--sort and --top by inode, file_size or mtime as nobody: files it cannot stat stay in walk order, their order tells nothing" {
	mkdir -m 700 private/d
	local i
	for i in 1 2 3 4 5 6 7 8; do
		make_cached "private/d/f$i" "$i"
		touch -d "@$((1000000000 + (i * 7919) % 13 * 1000))" "private/d/f$i"
	done
	# the walk's order, and that each key orders them otherwise for root
	run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -o path private/d
	local walk key sorted
	walk=$(row_paths)
	for key in inode file_size mtime; do
		run -0 --separate-stderr "$PAGESTAT" -J -a -o path --sort="$key" private/d
		sorted=$(row_paths)
		[[ $sorted != "$walk" ]] || skip "the walk's order is the order by $key here"
		run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -o path --sort="$key" private/d
		assert_equal "--sort=$key: $(row_paths)" "--sort=$key: $walk"
		run -0 --separate-stderr as_nobody ./pagestat-cap -J -a -o path --sort="$key" --top=3 private/d
		assert_equal "--top: $(row_paths)" "--top: $(cut -d ' ' -f 1-3 <<<"$walk")"
	done
}

# ---- issue 31, item 3: regular files of pseudo file systems -------------
# tracefs's trace and trace_pipe are regular files (0640 root, in a 0700
# directory): an open of either acts (a reader of the trace; with
# pause-on-trace, tracing paused).  The capabilities never open them.
@test "issue 31 item 3: a setcap copy run by nobody opens no tracefs file (trace, trace_pipe): each a failure that says why" {
	: "${OPENWATCH:?OPENWATCH must name tests/openwatch (make check sets it)}"
	# a mount of its own (tracefs is one file system wherever mounted):
	# /sys/kernel/tracing, another test's perhaps, is left as it is
	mkdir tracing
	mount -t tracefs nodev tracing 2>/dev/null || skip "tracefs cannot be mounted here"
	on_teardown unmount "$PWD/tracing"
	[[ -f tracing/trace && -f tracing/trace_pipe ]] || skip "this tracefs has no trace or trace_pipe"
	watch_opens tracing/trace tracing/trace_pipe
	run -1 --separate-stderr as_nobody ./pagestat-cap -a -J --exclude=events \
		--exclude=instances --exclude=per_cpu tracing
	assert_row tracing/trace type=file errno=EOPNOTSUPP \
		error="a file of a kernel pseudo file system (procfs, sysfs, tracefs...): not opened with the capabilities of a setcap install"
	assert_row tracing/trace_pipe type=file errno=EOPNOTSUPP
	assert_stderr_has "'tracing/trace_pipe': a file of a kernel pseudo file system"
	# named as operands too, and with an action
	run -1 --separate-stderr as_nobody ./pagestat-cap -J --evict tracing/trace tracing/trace_pipe
	assert_row tracing/trace errno=EOPNOTSUPP
	# the watch works: root's own opens of both are counted
	exec 4<tracing/trace
	exec 4<&-
	exec 4<tracing/trace_pipe
	exec 4<&-
	local opens
	watched_opens
	assert_equal "opens: $opens" \
		"opens: 1 tracing/trace 1 tracing/trace_pipe "
	# root's own pagestat still measures a procfs file (no capability is
	# borrowed: root's choice, as tests/method.bats shows for /proc/version)
	run -0 --separate-stderr "$PAGESTAT" -J /proc/version
	assert_row /proc/version type=file cached=0
}

# ---- issue 31, item 5: what is mounted at /proc ---------------------------
# Root runs pagestat where another user controls /proc (a chroot's; here
# a mount namespace of its own).  The reopen through
# /proc/thread-self/fd/N must never land on that user's FIFO: neither
# through a directory of theirs, nor through a real procfs's directory of
# their own process, which holds the FIFO on every descriptor number.

# Runs root's pagestat with ARGS in a mount namespace where FAKE is
# mounted over /proc; the status in $status, stdout in $output.
run_with_proc() {
	local fake=$1
	shift
	run --separate-stderr unshare -m --propagation private sh -c \
		'mount --bind "$0" /proc && exec "$@"' "$fake" "$PAGESTAT" "$@"
}

@test "issue 31 item 5: root's pagestat under a /proc another user made never opens their FIFO" {
	: "${OPENWATCH:?OPENWATCH must name tests/openwatch (make check sets it)}"
	command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
	unshare -m true 2>/dev/null || skip "no mount namespace can be made here"
	make_cached data/c 2
	mkdir theirs
	chown "$NOBODY:$NOBODY" theirs
	setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups mkfifo -m 600 theirs/fifo
	# 1. /proc a directory of theirs: thread-self/fd/N, every N, their FIFO
	setpriv --reuid="$NOBODY" --regid="$NOBODY" --clear-groups sh -c '
		mkdir -p theirs/proc/thread-self/fd &&
		for n in $(seq 0 99); do ln theirs/fifo theirs/proc/thread-self/fd/$n || exit; done'
	# their writer, blocked in open(2) until a reader opens the FIFO
	(exec 3>theirs/fifo && echo released >&3) &
	WRITER=$!
	watch_opens theirs/fifo
	run_with_proc "$PWD/theirs/proc" -J data/c
	assert_equal "$status" 1
	assert_row data/c errno=null \
		error="cannot be opened safely: /proc/thread-self/fd is not this thread's in procfs (what is mounted at /proc?)"
	local nr= writer=released
	read -r nr _ 2>/dev/null </proc/"$WRITER"/syscall || true
	[[ $nr != 257 && $nr != 2 ]] || writer="blocked in open"
	local opens
	watched_opens
	assert_equal "writer $writer; opens: $opens" "writer blocked in open; opens: 0 theirs/fifo "
	kill "$WRITER" && wait "$WRITER" || true
	WRITER=

	# 2. /proc theirs, its thread-self a link into a real procfs, to a
	# process of theirs that root's pagestat may read (uid 0, no
	# capability: a container's root), holding their FIFO on descriptors
	# 3 to 63
	mkdir -m 755 realproc
	(
		for n in $(seq 3 63); do eval "exec $n<>theirs/fifo"; done
		exec setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all sleep 120
	) &
	HOLDER=$!
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e /proc/$HOLDER/fd/63 && $(readlink /proc/$HOLDER/exe) == */sleep ]] && break
		sleep 0.05
	done
	[[ $(readlink /proc/$HOLDER/exe) == */sleep && -e /proc/$HOLDER/fd/63 ]] ||
		fail "their process does not hold the FIFO"
	grep -q '^CapPrm:[[:space:]]*0*$' /proc/$HOLDER/status || fail "their process holds capabilities"
	mkdir -p theirs/proc2
	ln -s "$PWD/realproc/$HOLDER/task/$HOLDER" theirs/proc2/thread-self
	chown -R -h "$NOBODY:$NOBODY" theirs/proc2
	watch_opens theirs/fifo
	run --separate-stderr unshare -m --propagation private sh -c \
		'mount -t proc proc "$1" && mount --bind "$0" /proc && shift && exec "$@"' \
		"$PWD/theirs/proc2" "$PWD/realproc" "$PAGESTAT" -J data/c
	assert_equal "$status" 1
	assert_row data/c errno=null \
		error="cannot be opened safely: /proc/thread-self/fd is not this thread's in procfs (what is mounted at /proc?)"
	# the watch works: root's own open is counted, and no other
	exec 4<>theirs/fifo
	exec 4<&-
	watched_opens
	assert_equal "opens: $opens" "opens: 1 theirs/fifo "
	# and with /proc as it is, the file is measured
	run -0 --separate-stderr "$PAGESTAT" -J data/c
	assert_row data/c type=file cached=2
}

# ---- issue 31, item 10: files deeper than PATH_MAX -------------------------
DEEP_LEVELS=25 # of 200-byte names: a path of over 5,000 bytes

# Runs CMD ARG... in the directory DEEP_LEVELS levels below DIR.
in_deep() {
	local dir=$1 i
	shift
	(
		cd "$dir" || exit
		for ((i = 0; i < DEEP_LEVELS; i++)); do cd "$DEEP_NAME" || exit; done
		"$@"
	)
}

# DIR (made, nobody's) holding DEEP_LEVELS levels of directories and, at
# the bottom, nobody's file f of 4 pages, cached.
make_deep() {
	DEEP_NAME=$(printf 'd%.0s' {1..200})
	mkdir "$1"
	(
		cd "$1" || exit
		for ((i = 0; i < DEEP_LEVELS; i++)); do mkdir "$DEEP_NAME" && cd "$DEEP_NAME" || exit; done
	)
	in_deep "$1" "$PCARRANGE" write f $((4 * PAGE))
	chown -R "$NOBODY:$NOBODY" "$1"
	local path
	path=$(in_deep "$1" pwd)
	((${#path} > $(getconf PATH_MAX /))) || fail "the path is only ${#path} bytes long"
}

# The cached pages of f at the bottom of DIR, as cachestat tells.
deep_cached() {
	local cached
	read -r cached _ < <(in_deep "$1" "$PCARRANGE" stat f)
	echo "$cached"
}

@test "issue 31 item 10: a setcap copy run by nobody evicts and warms nobody's file deeper than PATH_MAX, never below a directory nobody cannot search" {
	make_deep mine
	assert_equal "cached $(deep_cached mine)" "cached 4"
	run -0 --separate-stderr as_nobody ./pagestat-cap --evict -J -a mine
	assert_equal "$(json_field '[.errors, .total.files, .total.dropped]|@tsv')" $'0\t1\t4'
	assert_equal "cached $(deep_cached mine)" "cached 0"
	run -0 --separate-stderr as_nobody ./pagestat-cap --warm -J -a mine
	assert_equal "$(json_field '[.errors, .total.files, .total.read]|@tsv')" $'0\t1\t4'
	assert_equal "cached $(deep_cached mine)" "cached 4"
	# the plain binary, nobody's own rights, does the same
	run -0 --separate-stderr as_nobody ./pagestat --evict -J -a mine
	assert_equal "cached $(deep_cached mine)" "cached 0"
	# and below root's 0700 directory, which nobody cannot search, the
	# capabilities measure the file but nothing is done to it
	make_deep private/theirs
	assert_equal "cached $(deep_cached private/theirs)" "cached 4"
	run -1 --separate-stderr as_nobody ./pagestat-cap --evict -J -a private/theirs
	assert_equal "$(json_field '[.rows[] | select(.error) | .errno] | unique | join(" ")')" EACCES
	assert_equal "$(json_field '.errors')" 1
	assert_equal "cached $(deep_cached private/theirs)" "cached 4"
}
