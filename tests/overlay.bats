#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# overlayfs, as container roots use it: a file seen through the overlay is
# measured in its backing file, found in the upper or a lower layer, and
# where that file cannot be found the overlay file is measured with
# mincore and the row says so.  The overlays are real mounts on disk.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# Every mount a test makes is undone (on_teardown in test_helper.bash).
teardown() {
	run_teardowns
}

# The two lower layers, upper first: names that mountinfo (a space, as
# \040) and overlayfs (a colon, as \:) both escape.
LOW1='L 1' LOW2='L:2'

# An overlay of $LOW1 over $LOW2, with upper U and work W, on M (made
# when missing).  LOWER, when set, replaces the lowerdir option.
mount_overlay() {
	require_root "mounting overlayfs needs root"
	grep -qw overlay /proc/filesystems || skip "this kernel has no overlayfs"
	mkdir -p "$LOW1" "$LOW2" U W M
	local lower=${LOWER:-"lowerdir=$PWD/$LOW1:$PWD/L\\:2"}
	mount -t overlay overlay -o "$lower,upperdir=$PWD/U,workdir=$PWD/W" M 2>/dev/null ||
		skip "cannot mount an overlayfs here ($lower)"
	on_teardown unmount "$PWD/M"
}

# The JSON document in $output has no "method" key in the row of PATH:
# the file was measured as the document says (cachestat).
assert_own_method() {
	assert_equal "$1: method $(jq -r --arg p "$1" '.rows[] | select(.path == $p) | .method' <<<"$output")" \
		"$1: method null"
}

@test "a lower file: cachestat on the backing file, the first lower layer holding it" {
	mkdir "$LOW1" "$LOW2"
	make_partial "$LOW1/both" 10 2 3
	make_partial "$LOW2/both" 10 0 6
	make_partial "$LOW2/only2" 8 1 1
	mount_overlay
	# what every other tool sees through the overlay: nothing
	read -r -a KERNEL < <(pcarrange stat M/both)
	assert_equal "cachestat through the overlay: ${KERNEL[0]}" "cachestat through the overlay: 0"

	run -0 --separate-stderr pagestat -J M/both M/only2
	assert_equal "$(json_field .method)" cachestat
	assert_row M/both type=file files=1 pages=10 size=$((10 * PAGE)) cached=3 \
		cached_bytes=$((3 * PAGE)) dirty=0 writeback=0 evicted=0 recently_evicted=0 \
		backing="$PWD/$LOW1/both"
	assert_own_method M/both
	assert_row M/only2 pages=8 cached=1 dirty=0 backing="$PWD/$LOW2/only2"
	assert_own_method M/only2
	assert_total files=2 pages=18 cached=4 dirty=0 backing=null
	assert_equal "$stderr" ""
}

@test "layers given as lowerdir+= options, and a bind mount of a directory of the overlay" {
	mkdir -p "$LOW1/d" "$LOW2/d"
	make_partial "$LOW2/d/f" 6 4 2
	LOWER="lowerdir+=$PWD/$LOW1,lowerdir+=$PWD/$LOW2" mount_overlay
	grep -qF 'lowerdir+=' /proc/self/mountinfo ||
		skip "mountinfo does not show lowerdir+= on this kernel"
	mkdir B
	mount --bind M/d B
	on_teardown unmount "$PWD/B"

	run -0 --separate-stderr pagestat -J M/d/f
	assert_row M/d/f cached=2 dirty=0 backing="$PWD/$LOW2/d/f"
	assert_equal "$stderr" ""
	# the bind mount's root is /d within the overlay
	run -0 --separate-stderr pagestat -J B/f
	assert_row B/f cached=2 dirty=0 backing="$PWD/$LOW2/d/f"
	assert_equal "$stderr" ""
}

# fsconfig_overlay TARGET KEY=VALUE...: an overlay mounted through the new
# mount API (fsopen, fsconfig, fsmount, move_mount), whose values are
# taken as they are given (mount(8) of Debian 12 passes one option string
# to mount(2)); the kernel shows them so in mountinfo.
fsconfig_overlay() {
	"$PYTHON3" - "$@" <<'PY'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def call(what, *args):
    result = libc.syscall(*args)
    if result < 0:
        sys.exit(what + ": " + os.strerror(ctypes.get_errno()))
    return result
fd = call("fsopen", 430, b"overlay", 0)
for arg in sys.argv[2:]:
    key, value = arg.split("=", 1)
    call("fsconfig " + arg, 431, fd, 1, key.encode(), value.encode(), 0)  # SET_STRING
call("fsconfig create", 431, fd, 6, None, None, 0)  # FSCONFIG_CMD_CREATE
mnt = call("fsmount", 432, fd, 0, 0)
call("move_mount", 429, mnt, b"", -100, sys.argv[1].encode(), 4)  # F_EMPTY_PATH
PY
}

@test "layers whose names hold a space, a comma, a colon and a backslash: through mount(8) and through fsconfig(2)" {
	require_root "mounting overlayfs needs root"
	grep -qw overlay /proc/filesystems || skip "this kernel has no overlayfs"
	# mountinfo shows the comma as \054 and the backslash as \134, and
	# overlayfs adds its own backslash before the comma, colon and
	# backslash of a lowerdir given in the option string ("c\,d," there:
	# the first comma is the name's, the second parts the options)
	mkdir 'a b' 'c,d' 'e:f' 'g\h' U W M
	local layer
	for layer in 'a b' 'c,d' 'e:f' 'g\h'; do
		make_partial "$layer/in ${layer//[^a-z]/_}" 4 0 2
	done
	local lower="$PWD/a b:$PWD/e\\:f:$PWD/g\\\\h:$PWD/c\\,d"
	mount -t overlay overlay -o "lowerdir=$lower,upperdir=$PWD/U,workdir=$PWD/W" M ||
		skip "cannot mount an overlayfs with these names here"
	on_teardown unmount "$PWD/M"
	grep -qF '/c\134\054d,upperdir=' /proc/self/mountinfo ||
		fail "mountinfo shows the comma otherwise: $(grep -F "$PWD/M " /proc/self/mountinfo)"
	run -0 --separate-stderr pagestat -J -a M
	for layer in 'a b' 'c,d' 'e:f' 'g\h'; do
		assert_row "M/in ${layer//[^a-z]/_}" cached=2 dirty=0 \
			backing="$PWD/$layer/in ${layer//[^a-z]/_}"
	done
	assert_total files=4 cached=8
	assert_equal "$stderr" ""

	# through fsconfig(2) the values are shown as given: a comma in an
	# upperdir and in a lowerdir+= (whose colon and backslash are not
	# overlayfs's escapes)
	mkdir 'U,1' 'W,1' 'h,2' 'i:j\k' N
	make_partial 'h,2/f' 6 1 3
	make_partial 'i:j\k/g' 5 0 1
	fsconfig_overlay N "lowerdir+=$PWD/h,2" "lowerdir+=$PWD/i:j\\k" "lowerdir+=$PWD/a b" \
		"upperdir=$PWD/U,1" "workdir=$PWD/W,1" 2>/dev/null ||
		skip "the new mount API cannot mount an overlayfs here"
	on_teardown unmount "$PWD/N"
	pcarrange write N/new $((3 * PAGE))
	assert_file_exists 'U,1/new'
	pcarrange drop 'U,1/new'
	cache_pages 'U,1/new' 0 1
	run -0 --separate-stderr pagestat -J N/f N/g "N/in a_b" N/new
	assert_row N/f cached=3 dirty=0 backing="$PWD/h,2/f"
	assert_row N/g cached=1 dirty=0 backing="$PWD/i:j\\k/g"
	assert_row "N/in a_b" cached=2 backing="$PWD/a b/in a_b"
	assert_row N/new cached=1 dirty=0 backing="$PWD/U,1/new"
	assert_equal "$stderr" ""
}

@test "copied-up and new files: the upper file's figures, dirty pages included" {
	mkdir "$LOW1"
	pcarrange write "$LOW1/cu" $((8 * PAGE))
	mount_overlay
	# a write through the overlay copies the file up
	printf x | dd of=M/cu bs=1 count=1 conv=notrunc status=none
	assert_file_exists U/cu
	sync U/cu
	pcarrange drop U/cu
	cache_pages U/cu 1 2
	# and one more page, dirty: written through the overlay, no fsync
	dd if=/dev/zero of=M/cu bs="$PAGE" seek=5 count=1 conv=notrunc status=none
	pcarrange dirty M/new $((4 * PAGE))
	assert_file_exists U/new
	read -r -a KERNEL < <(pcarrange stat U/cu)
	assert_equal "the upper file: ${KERNEL[*]:0:2}" "the upper file: 3 1"

	run -0 --separate-stderr "$PAGESTAT" -J M/cu M/new
	assert_row M/cu pages=8 cached=3 dirty=1 dirty_bytes="$PAGE" backing="$PWD/U/cu"
	assert_own_method M/cu
	assert_row M/new pages=4 cached=4 dirty=4 backing="$PWD/U/new"
	assert_total files=2 cached=7 dirty=5
	assert_equal "$stderr" ""
}

@test "a whited-out file: not in a walk, and an operand naming it does not exist" {
	mkdir "$LOW1"
	make_cached "$LOW1/gone" 4
	make_partial "$LOW1/kept" 2 1 1
	mount_overlay
	rm M/gone
	[[ -c U/gone ]] || fail "no whiteout (character device) in the upper layer"

	run -0 --separate-stderr pagestat -J -a M
	assert_equal "$(jq -c '[.rows[].path]' <<<"$output")" '["M/kept","M"]'
	assert_row M/kept cached=1 backing="$PWD/$LOW1/kept"
	assert_total files=1 pages=2 cached=1

	run -1 --separate-stderr pagestat -J M/gone
	assert_row M/gone errno=ENOENT
	assert_stderr_has "'M/gone': No such file or directory"
}

@test "an opaque directory: the lower entries are hidden, its new file is the upper one" {
	mkdir -p "$LOW1/d" "$LOW2/d"
	make_cached "$LOW1/d/old" 3
	make_cached "$LOW1/d/same" 5
	make_cached "$LOW2/d/deep" 2
	mount_overlay
	rm -r M/d
	mkdir M/d
	pcarrange write M/d/same $((2 * PAGE))
	pcarrange drop U/d/same
	cache_pages U/d/same 1 1
	# the kernel made the upper directory opaque
	run -0 "$PYTHON3" -c 'import os, sys; print(os.getxattr(sys.argv[1], "trusted.overlay.opaque").decode())' U/d
	assert_output y

	run -0 --separate-stderr pagestat -J -a -d 2 M
	assert_equal "$(jq -c '[.rows[].path]' <<<"$output")" '["M/d/same","M/d","M"]'
	assert_row M/d/same pages=2 cached=1 dirty=0 backing="$PWD/U/d/same"
	assert_total files=1 pages=2 cached=1
}

@test "the totals over the overlay are the sums over the backing files" {
	mkdir -p "$LOW1/a" "$LOW2/a" "$LOW2/b"
	make_partial "$LOW1/a/x" 12 3 4
	make_partial "$LOW2/a/x" 12 0 12
	make_partial "$LOW2/a/y" 7 0 2
	make_partial "$LOW2/b/z" 5 4 1
	make_partial "$LOW1/top" 3 0 3
	mount_overlay
	pcarrange write M/b/new $((6 * PAGE))
	pcarrange drop U/b/new
	cache_pages U/b/new 2 3

	run -0 --separate-stderr pagestat -J -a M
	local -a backing
	mapfile -t backing < <(jq -r '.rows[] | select(.type == "file") | .backing' <<<"$output")
	assert_equal "${#backing[@]}" 5
	assert_row M/b/new backing="$PWD/U/b/new" cached=3
	assert_row M/a/x backing="$PWD/$LOW1/a/x" cached=4
	local over
	over=$(jq -c '.total | [.files, .size, .pages, .cached, .dirty, .evicted]' <<<"$output")
	assert_equal "$(jq -c '.total.cached' <<<"$output")" 13
	# with workers: the same rows, each with its own backing path (a
	# worker's buffer is reused for its next file)
	local one=$output
	run -0 --separate-stderr pagestat -J -a -j 4 M
	assert_equal "$output" "$one"

	# the same files named in the layers themselves
	run -0 --separate-stderr pagestat -J "${backing[@]}"
	assert_equal "$(jq -c '.total | [.files, .size, .pages, .cached, .dirty, .evicted]' <<<"$output")" \
		"$over"
	assert_equal "$(jq '[.rows[] | select(.backing != null)] | length' <<<"$output")" 0
}

@test "a lower layer covered by a mount: not resolved, measured by mincore, said once, rows marked" {
	mkdir "$LOW1" "$LOW2"
	pcarrange write "$LOW2/f1" $((10 * PAGE))
	pcarrange write "$LOW2/f2" $((4 * PAGE))
	make_partial "$LOW1/ok" 2 0 2
	mount_overlay
	# the path of the layer now leads to other files of the same names,
	# wholly cached, which must not be taken for the backing files
	mkdir X
	cp -a "$LOW2/." X/
	mount --bind X "$LOW2"
	on_teardown unmount "$PWD/$LOW2"
	pcarrange cache "$LOW2/f1" 0 10
	pcarrange cache "$LOW2/f2" 0 4
	# the real backing files, reached through the overlay
	pcarrange drop M/f1
	pcarrange cache M/f1 2 3
	pcarrange drop M/f2
	pcarrange cache M/f2 1 1

	run -0 --separate-stderr "$PAGESTAT" -J -a M
	assert_row M/f1 method=mincore backing=null pages=10 cached=3 dirty=null evicted=null
	assert_row M/f2 method=mincore backing=null pages=4 cached=1 recently_evicted=null
	assert_row M/ok cached=2 dirty=0 backing="$PWD/$LOW1/ok"
	assert_own_method M/ok
	assert_total files=3 cached=6 dirty=null
	assert_equal "notes: $(grep -c 'is on overlayfs and its backing file was not found' <<<"$stderr")" \
		"notes: 1"
	assert_stderr_has "the file at its place in the layers is another one"

	run -0 --separate-stderr "$PAGESTAT" -q -J M/f1 M/f2
	assert_row M/f1 method=mincore backing=null
	assert_equal "$stderr" ""
}

@test "metacopy=on: metadata-only copies are not resolved, nor is any file of the mount" {
	mkdir "$LOW1"
	make_partial "$LOW1/meta" 8 1 2
	make_partial "$LOW1/plain" 4 0 1
	LOWER="lowerdir=$PWD/$LOW1,metacopy=on,redirect_dir=on" mount_overlay
	# a change of mode copies the metadata up, the data stays below
	chmod 600 M/meta
	assert_file_exists U/meta

	run -0 --separate-stderr pagestat -J M/meta M/plain
	assert_row M/meta method=mincore backing=null pages=8 cached=2 dirty=null
	assert_row M/plain method=mincore backing=null pages=4 cached=1
	assert_stderr_has "the mount may hold metadata-only copies (metacopy)"
}

@test "the backing column: CSV, ndjson, the table with -o, sorted; not in the table by default" {
	mkdir "$LOW1"
	make_partial "$LOW1/f" 4 0 1
	make_partial plain 2 0 2
	mount_overlay

	run -0 --separate-stderr pagestat --csv -o path,cached,backing M/f plain
	assert_equal "$output" "path,cached,cached_bytes,backing
M/f,1,$PAGE,$PWD/$LOW1/f
plain,2,$((2 * PAGE)),"

	run -0 --separate-stderr pagestat --format=ndjson M/f plain
	assert_equal "$(jq -sc '[.[] | .backing]' <<<"$output")" "[\"$PWD/$LOW1/f\",null,null]"

	run -0 --separate-stderr pagestat -p -o cached,backing,path M/f plain
	assert_equal "$output" "CACHED BACKING$(printf '%*s' $((${#PWD} + ${#LOW1} + 3 - 7)) '') PATH
     1 $PWD/$LOW1/f M/f
     2 -$(printf '%*s' $((${#PWD} + ${#LOW1} + 3 - 1)) '') plain"

	run -0 --separate-stderr pagestat M/f
	refute_output --partial BACKING

	run -0 --separate-stderr pagestat -J --sort=backing plain M/f
	assert_equal "$(jq -c '[.rows[].path]' <<<"$output")" '["M/f","plain"]'
}

@test "--pid of a process in a container's mount namespace: its overlay file, by its backing file" {
	command -v unshare >/dev/null || skip "unshare (util-linux) is not installed"
	mkdir "$LOW1" "$LOW2"
	make_partial "$LOW1/db" 12 4 5
	mount_overlay
	# as a container runtime does: a private copy of the mounts, the
	# process holding the overlay file open (not reading it)
	unshare -m --propagation private sh -c 'exec sleep 120 3<"$1"' sh "$PWD/M/db" &
	local holder=$! i
	on_teardown kill "$holder"
	for ((i = 0; i < 100; i++)); do
		[[ -e /proc/$holder/fd/3 && $(readlink /proc/$holder/ns/mnt) != $(readlink /proc/self/ns/mnt) ]] &&
			break
		sleep 0.05
	done
	assert [ "$(readlink /proc/$holder/ns/mnt)" != "$(readlink /proc/self/ns/mnt)" ]

	run -0 --separate-stderr pagestat -J --pid "$holder"
	run -0 jq -c --arg p "$PWD/M/db" \
		'.rows[] | select(.path == $p) | [.cached, .backing, .method]' <<<"$output"
	assert_output "[5,\"$PWD/$LOW1/db\",null]"
}
