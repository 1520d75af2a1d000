#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# --system: the whole machine's page cache, on the real kernel.  Each run
# walks every file system here (hundreds of thousands of files): the
# tests make few runs, and find what they arranged among the top rows by
# giving it an mtime in the future (-s mtime), which nothing else has.

load test_helper

setup() {
	require_disk_tmpdir
	require_root "--system walks every file system; the arrangements mount tmpfs and bind mounts"
	cd "$BATS_TEST_TMPDIR"
}

# The mounts and the processes a test made are undone (on_teardown).
teardown() {
	run_teardowns
}

FUTURE='2100-01-01 00:00:00'

# The rows of the --system JSON document in $output, one line each:
# path, type, fstype, cached, as "PATH|TYPE|FSTYPE|CACHED".
rows() {
	jq -r '.rows[] | "\(.path)|\(.type)|\(.fstype)|\(.cached)"' <<<"$output"
}

# The path of the row that sums the files no mount point leads to.
DELETED_ROW='(deleted and memfd files)'

# gone.bin, a file of 16 cached pages deleted while a process holds it
# open (pcarrange, not make_cached: no name is left to put it back by),
# and a memfd "pagestat-test" of 4 pages that a process holds; both with
# an mtime in the future.  The processes are killed by the teardown.
hold_deleted_and_memfd() {
	pcarrange write gone.bin $((16 * PAGE))
	pcarrange cache gone.bin 0 16
	touch -d "$FUTURE" gone.bin
	# removed once the process holds it, its pages locked: a whole
	# machine's walk is long, and the reclaim daemon pages out idle
	# pages, never locked ones (TESTING.md; CI saw fewer than 16)
	hold_locked gone.bin
	rm gone.bin
	"$PYTHON3" -c '
import os, sys, time
fd = os.memfd_create("pagestat-test")
os.write(fd, b"m" * (4 * int(sys.argv[1])))
os.utime(fd, (4102444800, 4102444800))
sys.stdout.write("ready\n"); sys.stdout.flush()
time.sleep(600)' "$PAGE" >memfd.ready 3>&- &
	on_teardown kill "$!"
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -s memfd.ready ]] && return 0
		sleep 0.1
	done
	fail "the memfd's process did not start"
}

# A process that holds FILE open and mapped, its pages locked (mlock),
# until the teardown kills it; its pid in HOLDER.
hold_locked() {
	rm -f "$1.ready"
	"$PYTHON3" -c '
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                      ctypes.c_int, ctypes.c_long]
fd = os.open(sys.argv[1], os.O_RDONLY)
size = os.fstat(fd).st_size
addr = libc.mmap(None, size, 1, 1, fd, 0)  # PROT_READ, MAP_SHARED
if addr in (None, ctypes.c_void_p(-1).value) or libc.mlock(ctypes.c_void_p(addr), ctypes.c_size_t(size)):
    sys.exit("hold_locked: " + os.strerror(ctypes.get_errno()))
open(sys.argv[1] + ".ready", "w").close()
time.sleep(600)' "$1" 3>&- &
	HOLDER=$!
	on_teardown kill "$HOLDER"
	local i
	for ((i = 0; i < 100; i++)); do
		[[ -e $1.ready ]] && { rm -f "$1.ready"; return 0; }
		sleep 0.1
	done
	fail "the process holding $1 locked did not start"
}

@test "--system: a cached file, a file deleted but held open, a memfd and a tmpfs file appear with their exact cached bytes; each file system once" {
	# a fully cached file, 32 pages
	make_cached cached.bin 32
	touch -d "$FUTURE" cached.bin
	# a deleted file of 16 cached pages held open, a memfd of 4 pages
	hold_deleted_and_memfd
	# a tmpfs mount with a file of 8 pages (tmpfs pages are always cached)
	mkdir shm
	mount -t tmpfs -o size=4m pagestat-test shm || skip "cannot mount tmpfs here"
	on_teardown unmount "$PWD/shm"
	head -c $((8 * PAGE)) /dev/zero >shm/t
	touch -d "$FUTURE" shm/t
	# a bind mount of this directory: its files must count once
	mkdir bound
	mount --bind "$PWD" bound || skip "cannot bind-mount here"
	on_teardown unmount "$PWD/bound"
	# an overlay: a row that says it was not walked
	local overlay=false
	if grep -qw overlay /proc/filesystems; then
		mkdir -p lower upper work merged
		if mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/upper,workdir=$PWD/work" merged 2>/dev/null; then
			on_teardown unmount "$PWD/merged"
			overlay=true
		fi
	fi
	# a proc mount below the tree: never entered, no row
	mkdir p
	mount -t proc proc p || skip "cannot mount proc here"
	on_teardown unmount "$PWD/p"

	# 1, not 0, when a file of the machine vanished during the walk
	run --separate-stderr pagestat --system -J -s mtime --top 10 -o +inode
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	local listed
	listed=$(rows)
	assert_equal "$(grep -c "^$PWD/cached.bin|file|null|32\$" <<<"$listed")" 1
	assert_equal "$(grep -c "^$PWD/gone.bin (deleted)|file|null|16\$" <<<"$listed")" 1
	assert_equal "$(grep -c "^$PWD/shm/t|file|null|8\$" <<<"$listed")" 1
	assert_equal "$(grep -c "^/memfd:pagestat-test (deleted)|file|null|4\$" <<<"$listed")" 1
	if $overlay; then
		jq -e --arg m "$PWD/merged" '[.rows[] | select(.path == $m and .type == "filesystem"
			and .fstype == "overlay" and (.note | startswith("not walked: an overlay")))]
			| length == 1' <<<"$output" >/dev/null ||
			fail "no overlay row that says why: $listed"
		# other overlays may be mounted meanwhile (other suites): "2 overlay mounts"
		[[ $stderr =~ overlay\ mounts?\ not\ walked ]] || fail "no note on stderr: $stderr"
	else
		echo "# overlay: cannot mount one here, not checked" >&3
	fi
	# the bind mount gives no row and no second copy of the file
	[[ $listed != *"$PWD/bound"* ]] || fail "the bind mount was walked: $listed"
	# one row for the tmpfs mount, of its type, holding its file
	assert_equal "$(grep -c "^$PWD/shm|filesystem|tmpfs|8\$" <<<"$listed")" 1
	# no pseudo file system has a row, the proc mount made here neither
	local pseudo
	pseudo=$(jq -r '.rows[] | select(.type == "filesystem") | .fstype' <<<"$output" |
		grep -x -E 'proc|sysfs|cgroup2?|devpts|debugfs|tracefs|bpf|securityfs|configfs|mqueue' || true)
	assert_equal "pseudo file systems with a row: $pseudo" "pseudo file systems with a row: "
	[[ $listed != *"$PWD/p|"* ]] || fail "the proc mount got a row: $listed"
	# the deleted file and the memfd are in the row of their own, which
	# with the file systems' and the block devices' adds up to the total
	jq -e --arg d "$DELETED_ROW" --argjson n 20 '[.rows[] | select(.path == $d and
		.type == "filesystem" and .cached >= $n and .files >= 2)] | length == 1' \
		<<<"$output" >/dev/null || fail "no row '$DELETED_ROW' holding both: $listed"
	assert_adds_up json --system
}

@test "--system: the deleted file and the memfd are in the row of deleted and memfd files with their exact cached bytes, and the rows that are not files add up to the total in the table, CSV, JSON and Prometheus" {
	hold_deleted_and_memfd
	local gone="$PWD/gone.bin (deleted)" memfd='/memfd:pagestat-test (deleted)' fmt

	# --exclude='*' leaves the walks nothing (the deleted files are not
	# walked): every file row is a deleted file, so all of those the row
	# sums are listed, and adds_up.py checks that they add up to it
	run --separate-stderr pagestat --system --exclude='*' --top 100000 -J
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_row "$gone" cached=16 cached_bytes=$((16 * PAGE)) files=1
	assert_row "$memfd" cached=4 cached_bytes=$((4 * PAGE)) files=1
	jq -e --arg d "$DELETED_ROW" '[.rows[] | select(.path == $d)] | length == 1 and
		(.[0] | .type == "filesystem" and .fstype == null and .note == null)' \
		<<<"$output" >/dev/null || fail "not one filesystem row '$DELETED_ROW': $output"
	jq -e --arg d "$DELETED_ROW" '[.rows[] | select(.type == "file")] as $f
		| [.rows[] | select(.path == $d)][0] as $row
		| ($f | length) == $row.files and ([$f[].cached] | add) == $row.cached
		and $row.cached >= 20' <<<"$output" >/dev/null ||
		fail "'$DELETED_ROW' is not the sum of the deleted files: $output"
	assert_adds_up json --system
	# the table, in bytes: the same rows, and the same sums
	run --separate-stderr pagestat --system --exclude='*' --top 100000 -b
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_line --regexp "^ *$((16 * PAGE)) +$((16 * PAGE)) +100\.0% .* - +/.*/gone\.bin \(deleted\)\$"
	assert_line --regexp "^ *$((4 * PAGE)) +$((4 * PAGE)) +100\.0% .* - +/memfd:pagestat-test \(deleted\)\$"
	assert_line --regexp "^ *[0-9]+ +[0-9]+ .* - +\(deleted and memfd files\)\$"
	assert_adds_up table --system
	run --separate-stderr pagestat --system --exclude='*' --top 100000 --csv
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_line --regexp '^\(deleted and memfd files\),filesystem,[0-9]'
	assert_adds_up csv --system
	run --separate-stderr pagestat --system --exclude='*' --top 100000 --format=prometheus
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_line --regexp '^pagestat_cached_bytes\{path="\(deleted and memfd files\)",type="filesystem"\} [0-9]+$'
	assert_adds_up prometheus --system

	# a whole walk of every file system: the rows that are not files
	# still add up to the total, in every format
	for fmt in json table csv prometheus; do
		local args=(-J)
		[[ $fmt == table ]] && args=(-b)
		[[ $fmt == csv ]] && args=(--csv)
		[[ $fmt == prometheus ]] && args=(--format=prometheus)
		run --separate-stderr pagestat --system --top 5 "${args[@]}"
		((status == 0 || status == 1)) || fail "$fmt: exit $status: $stderr"
		assert_adds_up "$fmt" --system "the whole walk, $fmt"
	done
}

@test "--system: a tmpfs hidden under another tmpfs at the same place says why in its row, in the table too, and Prometheus has one series for the place" {
	mkdir over
	mount -t tmpfs -o size=4m pagestat-hidden over || skip "cannot mount tmpfs here"
	on_teardown unmount "$PWD/over"
	head -c $((4 * PAGE)) /dev/zero >over/under
	mount -t tmpfs -o size=4m pagestat-over over || fail "cannot mount a tmpfs over a tmpfs"
	on_teardown unmount "$PWD/over"
	head -c $((8 * PAGE)) /dev/zero >over/t
	local why='not walked: hidden under another mount at the same place' line hidden=-1 top=-1 i

	run --separate-stderr pagestat --system --exclude='*'
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	# both rows, the hidden one first (the mount table's order), the
	# note after its path; the mount over it has none
	for ((i = 0; i < ${#lines[@]}; i++)); do
		line=${lines[i]}
		[[ $line == *" tmpfs "*" $PWD/over ($why)" ]] && hidden=$i
		[[ $line == *" tmpfs "*" $PWD/over" ]] && top=$i
	done
	((hidden >= 0)) || fail "no row of the hidden tmpfs with its note: $output"
	((top > hidden)) || fail "no row of the tmpfs over it, after it: $output"
	assert_equal "$(grep -c -F "$PWD/over" <<<"$output")" 2
	# the machine's own hidden mounts may make it "2 mounts"
	[[ $stderr =~ hidden\ under\ others?\ at\ the\ same\ place\ not\ walked ]] ||
		fail "no note on stderr: $stderr"
	# -o +note: the note in its column, the path alone
	run --separate-stderr pagestat --system --exclude='*' -o +note
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_line --regexp "^ .* tmpfs +$why +/.*/over\$"
	[[ $output != *"($why)"* ]] || fail "the note twice: $output"
	# JSON (a whole walk) and CSV: two rows of the place, the note in the
	# hidden one's, which nothing reached; the one over it holds its file
	run --separate-stderr pagestat --system --top 1 -J
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	jq -e --arg p "$PWD/over" --arg why "$why" '[.rows[] | select(.path == $p)]
		| length == 2 and all(.type == "filesystem" and .fstype == "tmpfs")
		and .[0].note == $why and .[0].cached == 0 and .[0].files == 0
		and .[1].note == null and .[1].cached == 8 and .[1].files == 1' \
		<<<"$output" >/dev/null ||
		fail "not the two rows of $PWD/over: $(jq -c --arg p "$PWD/over" \
			'.rows[] | select(.path == $p)' <<<"$output")"
	run --separate-stderr pagestat --system --exclude='*' --csv
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_equal "$(grep -c -F -x "$PWD/over,filesystem,0,0,0,0,,0,0,0,0,0,0,0,0,0,,tmpfs,$why" <<<"$output")" 1
	# Prometheus: the mount over it alone, a series repeated nowhere
	run --separate-stderr pagestat --system --exclude='*' --format=prometheus
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	assert_equal "$(grep -c -F "pagestat_cached_bytes{path=\"$PWD/over\",type=\"filesystem\"} " <<<"$output")" 1
	assert_adds_up prometheus --system
}

@test "--system: the coverage of Cached + Buffers is between 85% and 110% here, and every format carries the kernel's figures" {
	local attempt coverage found cached buffers blockdev
	# the figures are read after the walk: another process's churn on a
	# busy machine moves them, so up to three tries
	for attempt in 1 2 3; do
		# 1, not 0, when a file of the machine vanished during the walk
		run --separate-stderr pagestat --system -J --top 1
		((status == 0 || status == 1)) || fail "exit $status: $stderr"
		cached=$(jq '.kernel.cached_bytes' <<<"$output")
		buffers=$(jq '.kernel.buffers_bytes' <<<"$output")
		found=$(jq '.total.cached_bytes' <<<"$output")
		blockdev=$(jq '.kernel.buffers_read' <<<"$output")
		if [[ $blockdev == true ]]; then
			coverage=$(jq '.coverage' <<<"$output")
			what="of Cached + Buffers"
		else
			# no block device could be opened (a container's device
			# cgroup): said on stderr, and Buffers cannot be found
			assert_stderr_has "the buffer cache of"
			coverage=$(awk -v f="$found" -v c="$cached" 'BEGIN { printf "%.1f", 100 * f / c }')
			what="of Cached (Buffers, $buffers bytes, could not be read here)"
		fi
		awk -v c="$coverage" 'BEGIN { exit !(c >= 85 && c <= 110) }' && break
	done
	echo "# coverage: $coverage% $what, $found bytes found, attempt $attempt" >&3
	awk -v c="$coverage" 'BEGIN { exit !(c >= 85 && c <= 110) }' ||
		fail "coverage $coverage% $what is outside 85% to 110%"
	# the JSON figures are /proc/meminfo's, in bytes
	((cached > 0)) || fail "kernel.cached_bytes is $cached"

	# the table: the total, then the coverage line; Prometheus: the
	# kernel's families; CSV: fstype and note (excluding everything below
	# the mount points keeps these runs short)
	run -0 --separate-stderr pagestat --system --exclude='*'
	local at
	for ((at = 0; at < ${#lines[@]}; at++)); do
		[[ ${lines[at]} == *" total" ]] && break
	done
	assert_line --index $((at + 1)) --regexp '^coverage: [0-9.]+% of the kernel.s page cache: '
	if [[ $blockdev != true ]]; then
		assert_line --index $((at + 2)) --regexp '^coverage: [0-9.]+% of Cached alone: '
	fi
	run -0 --separate-stderr pagestat --system --exclude='*' --format=prometheus
	assert_line --regexp '^pagestat_kernel_cached_bytes [0-9]+$'
	assert_line --regexp '^pagestat_kernel_buffers_bytes [0-9]+$'
	run -0 --separate-stderr pagestat --system --exclude='*' --csv
	assert_line --index 0 --partial ',backing,fstype,note'
	assert_line --regexp '^/,filesystem,'
}

@test "--system as nobody: what it could not see is summed up, not told file by file" {
	enter_nobody_dir
	run --separate-stderr as_nobody ./pagestat --system --top 1 -J
	# failures make the status 1; the output is still complete
	assert_equal "$status" 1
	jq -e '.total.files >= 0 and .errors > 0' <<<"$output" >/dev/null ||
		fail "not a complete document: ${output:0:300}"
	assert_stderr_has "--system: "
	[[ $stderr == *"could not be inspected and"* ]] ||
		fail "no summary of the failures: $stderr"
	# a summary, not a message a file
	local n
	n=$(grep -c '' <<<"$stderr")
	((n <= 6)) || fail "$n lines on stderr: $stderr"
	# -q: nothing at all
	run --separate-stderr as_nobody ./pagestat --system --top 1 -q -J
	assert_equal "$stderr" ""
	leave_nobody_dir
}

@test "--system with FILE operands, --files0-from, --pid or an action: exit 2, nothing walked" {
	local args
	for args in "--system /" "--system --files0-from=/dev/null" "--system --pid=$$" \
		"--system --evict" "--system --warm" "-o fstype /" "-o note ."; do
		# shellcheck disable=SC2086
		run -2 --separate-stderr "$PAGESTAT" $args
		assert_output ""
		[[ $stderr == "pagestat: "* ]] || fail "$args: $stderr"
		[[ $stderr == *"--system"* ]] || fail "$args: the message does not name --system: $stderr"
	done
}

@test "--system where libmount cannot be loaded: exit 1, the reason said, nothing walked; a run on a file is unaffected" {
	command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
	local lib
	lib=$(ldconfig -p | awk '$1 == "libmount.so.1" { print $NF; exit }')
	[[ -n $lib ]] || skip "libmount.so.1 is not in ld.so's cache"
	# pagestat in a mount namespace of its own, where the library is an
	# empty file
	cat >nolibmount <<EOS
#!/bin/sh
exec unshare -m --propagation private sh -c 'mount --bind /dev/null "\$0" && exec "\$@"' \\
	"$lib" "$PAGESTAT" "\$@"
EOS
	chmod +x nolibmount
	make_cached kept 2
	PAGESTAT=$PWD/nolibmount run --separate-stderr pagestat --system -J
	assert_equal "$status" 1
	assert_equal "$(jq -c '[(.rows | length), .errors]' <<<"$output")" "[0,1]"
	assert_equal "$stderr" "pagestat: --system: cannot read /proc/self/mountinfo: $lib: file too short"
	PAGESTAT=$PWD/nolibmount run -0 --separate-stderr pagestat -J kept
	assert_row kept cached=2
	assert_equal "$stderr" ""
}

# ---- issue 31, item 7: deletion judged by the link count ------------------

@test "--system: a held file named 'x (deleted)', one whose other name was removed, and one really deleted: each counted once, by its name" {
	local file
	for file in 'x (deleted)' linked gone; do
		pcarrange write "$file" $((4 * PAGE))
		touch -d "$FUTURE" "$file"
	done
	ln linked other-name
	hold_locked 'x (deleted)'
	hold_locked linked
	hold_locked gone
	rm linked gone
	run --separate-stderr pagestat --system -J -s mtime --top 10
	((status == 0 || status == 1)) || fail "exit $status: $stderr"
	local listed
	listed=$(jq -r '.rows[] | select(.type == "file") | .path' <<<"$output")
	assert_equal "$(grep -c -x -F "$PWD/x (deleted)" <<<"$listed")" 1
	assert_equal "$(grep -c -x -F "$PWD/other-name" <<<"$listed")" 1
	assert_equal "$(grep -c -x -F "$PWD/linked (deleted)" <<<"$listed")" 0
	assert_equal "$(grep -c -x -F "$PWD/gone (deleted)" <<<"$listed")" 1
}
