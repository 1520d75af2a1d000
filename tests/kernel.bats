#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The page cache as the running kernel really keeps it, each state made on
# purpose and compared with what pagestat reports: pages evicted by reclaim
# in a memory cgroup, tmpfs, hugetlbfs, overlayfs, dirty pages written
# back, and pages held under writeback.  /proc, /sys and block devices are
# covered in method.bats, walk.bats and range.bats.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# Every mount, cgroup, loop device and sysctl a test changes is undone
# (on_teardown in test_helper.bash).
teardown() {
	run_teardowns
}

MIB=1048576

# ---- undoing ---------------------------------------------------------------

# Write VALUE to the kernel FILE (a sysctl, a cgroup knob).
write_value() {
	echo "$2" >"$1"
}

# ---- cgroups ---------------------------------------------------------------

# The mount point of the cgroup v1 hierarchy of CONTROLLER, if mounted.
cgroup_v1_mount() {
	local dev dir type opts rest
	while read -r dev dir type opts rest; do
		[[ $type == cgroup && ,$opts, == *,"$1",* ]] && { echo "$dir"; return 0; }
	done </proc/self/mounts
	return 1
}

# The mount point of cgroup v2 when CONTROLLER is enabled for the children
# of its root (this suite does not change that setting).
cgroup_v2_mount() {
	local dev dir type opts rest
	while read -r dev dir type opts rest; do
		[[ $type == cgroup2 ]] || continue
		grep -qw "$1" "$dir/cgroup.subtree_control" 2>/dev/null && { echo "$dir"; return 0; }
	done </proc/self/mounts
	return 1
}

# A new memory cgroup limited to BYTES: cgroup v1 (memory.limit_in_bytes)
# or v2 (memory.max).  Sets MEMCG to its directory.
make_memory_cgroup() {
	local bytes=$1 mnt
	require_root "creating a memory cgroup needs root"
	if mnt=$(cgroup_v1_mount memory); then
		MEMCG=$mnt/pagestat-test.$$.$BATS_TEST_NUMBER
		mkdir "$MEMCG" || skip "cannot create a cgroup under $mnt"
		on_teardown remove_cgroup "$MEMCG"
		echo "$bytes" >"$MEMCG/memory.limit_in_bytes" ||
			skip "cannot limit the memory of a cgroup v1 to $bytes bytes"
	elif mnt=$(cgroup_v2_mount memory); then
		MEMCG=$mnt/pagestat-test.$$.$BATS_TEST_NUMBER
		mkdir "$MEMCG" || skip "cannot create a cgroup under $mnt"
		on_teardown remove_cgroup "$MEMCG"
		echo "$bytes" >"$MEMCG/memory.max" ||
			skip "cannot limit the memory of a cgroup v2 to $bytes bytes"
	else
		skip "no memory cgroup can be created: neither a cgroup v1 memory hierarchy nor cgroup v2 with the memory controller enabled for children of its root"
	fi
}

# Run CMD ARG... as a process of the cgroup DIR.
# usage: in_cgroup DIR CMD [ARG]...
in_cgroup() {
	local dir=$1
	shift
	(echo "$BASHPID" >"$dir/cgroup.procs" && "$@")
}

# Run CMD ARG... on one CPU (the first this shell may use), where taskset
# exists: a page read twice on one CPU is sure to be activated, while
# across CPUs the second access can miss the first in a per-CPU batch.
on_one_cpu() {
	local cpus
	if command -v taskset >/dev/null; then
		cpus=$(awk '/^Cpus_allowed_list:/ { print $2 }' /proc/self/status)
		taskset -c "${cpus%%[,-]*}" "$@"
	else
		"$@"
	fi
}

# Pages of cgroup DIR's active file list, from its memory.stat.  Reading
# memory.stat also brings the cgroup's statistics up to date, which
# cachestat itself uses (without updating them) to tell recent evictions.
active_file_pages() {
	echo $(($(awk '$1 == "active_file" { print $2 }' "$1/memory.stat") / PAGE))
}

# ---- reading what the kernel says -------------------------------------------

# The five counters of PATH's row in $output, as pcarrange stat prints them.
row_counters() {
	jq -r --arg p "$1" '.rows[] | select(.path == $p) |
		[.cached, .dirty, .writeback, .evicted, .recently_evicted] | map(tostring) | join(" ")' \
		<<<"$output"
}

# pagestat -J [OPTION]... PATH, then cachestat (pcarrange stat) on PATH
# right after; the machine reclaims in the background and writeback ends
# when it ends, so when the two differ both are read again, at most five
# times, until they agree.  Sets $output (pagestat's document) and
# KERNEL (cachestat's cached dirty writeback evicted recently_evicted).
# usage: agreed_reading PATH [OPTION]...
agreed_reading() {
	local path=$1 got _
	shift
	for _ in 1 2 3 4 5; do
		run -0 --separate-stderr pagestat -J "$@" "$path"
		read -r -a KERNEL < <(pcarrange stat "$path")
		got=$(row_counters "$path")
		[[ $got == "${KERNEL[*]}" ]] && break
		sleep 0.2
	done
	assert_equal "$path: pagestat says $got" "$path: pagestat says ${KERNEL[*]}"
}

# PATH's row in $output has PERCENT (compared as numbers: jq 1.6 prints
# 30.0 as 30, jq 1.7 as 30.0).
assert_percent() {
	local got
	got=$(jq -r --arg p "$1" '.rows[] | select(.path == $p) | .percent' <<<"$output")
	[[ $(jq -n --argjson a "$got" --argjson b "$2" '$a == $b') == true ]] ||
		fail "$1: percent=$got, not $2"
}

# ---- mounts ----------------------------------------------------------------

# A tmpfs of SIZE mounted on the new directory DIR.
mount_tmpfs() {
	require_root "mounting a tmpfs needs root"
	mkdir "$1"
	mount -t tmpfs -o "size=$2" tmpfs "$1" 2>/dev/null || skip "cannot mount a tmpfs here"
	on_teardown unmount "$PWD/$1"
}

# hugetlbfs mounted on huge/, with one more huge page reserved than
# before (vm.nr_hugepages, put back in teardown) so that a file can have
# one.  Sets HUGE to the size of a huge page in bytes.
mount_hugetlbfs() {
	local old kb
	require_root "mounting hugetlbfs and reserving huge pages need root"
	grep -qw hugetlbfs /proc/filesystems || skip "this kernel has no hugetlbfs"
	kb=$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)
	[[ -n $kb && -w /proc/sys/vm/nr_hugepages ]] || skip "no huge page support (/proc/sys/vm/nr_hugepages)"
	HUGE=$((kb * 1024))
	old=$(</proc/sys/vm/nr_hugepages)
	on_teardown write_value /proc/sys/vm/nr_hugepages "$old"
	echo $((old + 1)) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	(($(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo) >= 1)) ||
		skip "no huge page can be reserved (vm.nr_hugepages $old, none free)"
	mkdir huge
	mount -t hugetlbfs none huge 2>/dev/null || skip "cannot mount hugetlbfs here"
	on_teardown unmount "$PWD/huge"
}

# An overlay of lower/ (with whatever the test put there), upper/ and
# work/, mounted on merged/.
mount_overlay() {
	require_root "mounting overlayfs needs root"
	grep -qw overlay /proc/filesystems ||
		skip "this kernel has no overlayfs"
	mkdir -p lower upper work merged
	mount -t overlay overlay -o "lowerdir=$PWD/lower,upperdir=$PWD/upper,workdir=$PWD/work" merged 2>/dev/null ||
		skip "cannot mount an overlayfs here"
	on_teardown unmount "$PWD/merged"
}

# ---- memory cgroups: real eviction ----------------------------------------

@test "pages reclaimed in a small memory cgroup are evicted, as cachestat counts them" {
	# the cgroup's page cache is held to 16 MiB: reading 64 MiB there makes
	# the kernel reclaim most of the file, leaving shadow entries behind
	make_memory_cgroup $((16 * MIB))
	local pages=$((64 * MIB / PAGE)) limit=$((16 * MIB / PAGE))
	pcarrange write big $((pages * PAGE))
	pcarrange drop big
	read -r -a KERNEL < <(pcarrange stat big)
	assert_equal "before: ${KERNEL[*]}" "before: 0 0 0 0 0"

	in_cgroup "$MEMCG" cat big >/dev/null

	# reclaim may go on in the background: agreed_reading reads again
	# until pagestat and cachestat agree
	agreed_reading big
	local cached=${KERNEL[0]} evicted=${KERNEL[3]}
	assert_row big type=file files=1 pages=$pages size=$((pages * PAGE)) \
		dirty=0 writeback=0 cached_bytes=$((cached * PAGE)) evicted_bytes=$((evicted * PAGE))
	((evicted > 0)) || fail "nothing evicted: $output"
	((cached <= limit)) || fail "$cached pages cached in a cgroup of $limit pages"
	# the kernel also reclaims shadow entries: some evicted pages are forgotten
	((cached + evicted <= pages)) || fail "cached $cached + evicted $evicted > $pages pages"
	assert_total files=1 evicted="$evicted"
}

@test "recently evicted: pages reclaimed while a working set stayed active" {
	# cachestat calls an evicted page recent when fewer pages were evicted
	# (or activated) after it than the cgroup's active file list holds: a
	# 4 MiB file read three times stays active while a 64 MiB file streams
	# through a 32 MiB cgroup, so the pages evicted last are recent.  Now
	# and then reclaim deactivates the working set anyway (when it finds no
	# inactive page to take): the arrangement is then tried again.
	make_memory_cgroup $((32 * MIB))
	local hot=$((4 * MIB / PAGE)) pages=$((64 * MIB / PAGE)) held='' active _
	pcarrange write hot $((hot * PAGE))
	pcarrange write big $((pages * PAGE))
	for _ in 1 2 3; do
		pcarrange drop hot
		pcarrange drop big
		in_cgroup "$MEMCG" on_one_cpu sh -c 'cat hot hot hot big >/dev/null'
		active=$(active_file_pages "$MEMCG")
		read -r -a KERNEL < <(pcarrange stat hot)
		if ((KERNEL[0] == hot && active >= hot)); then
			held=1
			break
		fi
	done
	[[ -n $held ]] || skip "reclaim deactivated the working set in each of 3 tries"

	agreed_reading big
	local evicted=${KERNEL[3]} recent=${KERNEL[4]}
	((recent > 0)) || fail "no page recently evicted: $output"
	((recent <= evicted)) || fail "recently evicted $recent > evicted $evicted"
	assert_row big recently_evicted_bytes=$((recent * PAGE)) evicted="$evicted"
	assert_total recently_evicted="$recent"

	# --method=mincore cannot tell: unknown, not 0
	run -0 --separate-stderr pagestat -J --method=mincore big
	assert_row big evicted=null recently_evicted=null
}

# ---- tmpfs (shmem) ---------------------------------------------------------

# tmpfs pages live only in the page cache: written, they are cached, never
# tagged dirty (there is nothing to write them back to) and never dropped
# by POSIX_FADV_DONTNEED.  With swap, shmem pages swapped out would count
# as evicted (filemap_cachestat counts the swap entries that replace them
# in the file's mapping) and recently_evicted would come from their shadow
# in the swap cache; this machine has no swap (/proc/swaps lists no
# device), so that is not arranged here, nor faked.

@test "tmpfs: written pages are cached, not dirty, and POSIX_FADV_DONTNEED leaves them" {
	mount_tmpfs shm 16m
	pcarrange write shm/f $((5 * PAGE))
	pcarrange dirty shm/half $((3 * PAGE - PAGE / 2))
	# a hole has no page
	truncate -s $((8 * PAGE)) shm/sparse
	pcarrange cache shm/sparse 2 1

	for method in cachestat mincore; do
		run -0 --separate-stderr pagestat -J --method=$method shm/f shm/half shm/sparse
		assert_row shm/f files=1 size=$((5 * PAGE)) pages=5 cached=5
		assert_percent shm/f 100
		assert_row shm/half pages=3 cached=3
		# reading a hole gives zeros without caching a page
		assert_row shm/sparse pages=8 cached=0
		assert_percent shm/sparse 0
		assert_total files=3 pages=16 cached=8
		assert_equal "$stderr" ""
	done
	run -0 --separate-stderr pagestat -J shm/f shm/half
	assert_row shm/f dirty=0 writeback=0 evicted=0 recently_evicted=0
	assert_row shm/half dirty=0 writeback=0 evicted=0

	pcarrange drop shm/f
	read -r -a KERNEL < <(pcarrange stat shm/f)
	assert_equal "after DONTNEED: ${KERNEL[*]}" "after DONTNEED: 5 0 0 0 0"
	run -0 --separate-stderr pagestat -J shm/f
	assert_row shm/f cached=5 evicted=0
}

# ---- hugetlbfs -------------------------------------------------------------

@test "hugetlbfs: refused with EOPNOTSUPP by both methods and in a walk, exit 1" {
	# cachestat(2) refuses hugetlbfs files outright; mincore would call the
	# huge page resident, which says nothing of a page cache, so pagestat
	# refuses them whatever the method
	mount_hugetlbfs
	fallocate -l "$HUGE" huge/f 2>/dev/null || skip "cannot allocate a huge page in huge/f"
	assert_equal "$(stat -c %s huge/f)" "$HUGE"
	run -1 --separate-stderr pcarrange stat huge/f
	assert_stderr_has "Operation not supported"

	local why="a hugetlbfs file: the kernel reports no page-cache state for it (Operation not supported)"
	for method in cachestat mincore auto; do
		run -1 --separate-stderr pagestat -J --method=$method huge/f
		assert_row huge/f type=file errno=EOPNOTSUPP error="$why" cached=null
		# nothing could be inspected: the figures are unknown, not 0
		assert_total files=0 pages=null cached=null
		assert_equal "$method: errors $(json_field .errors)" "$method: errors 1"
		assert_stderr_has "'huge/f': $why"
	done

	# found by a walk: the same row, and the directory counts no file
	run -1 --separate-stderr pagestat -J -a huge
	assert_row huge/f errno=EOPNOTSUPP error="$why"
	assert_row huge type=directory files=0 pages=null cached=null
	assert_equal "$(json_field .errors)" 1
	assert_stderr_has "'huge/f': $why"

	run -1 --separate-stderr pagestat -q huge
	assert_equal "$stderr" ""
}

# ---- overlayfs -------------------------------------------------------------

@test "overlayfs: cachestat on the overlay path sees no page while the lower file has some (kernel behaviour)" {
	# why pagestat looks for the backing file: the overlay file's own
	# mapping stays empty, reads fill the backing file's
	mkdir lower
	make_pattern lower/low 10 2 3
	mount_overlay
	read -r -a KERNEL < <(pcarrange stat lower/low)
	assert_equal "lower: ${KERNEL[*]}" "lower: 3 0 0 0 0"
	read -r -a KERNEL < <(pcarrange stat merged/low)
	assert_equal "through the overlay: ${KERNEL[*]}" "through the overlay: 0 0 0 0 0"
}

# pagestat on overlayfs (backing files found in the layers, the mincore
# fallback where they are not) is tested in overlay.bats.

# ---- writeback ---------------------------------------------------------------

@test "dirty pages synced: dirty 0, writeback 0, every page still cached" {
	# fsync (sync FILE) writes the dirty pages back and waits: they stay
	# in the cache, clean.  Another writer on the machine (a parallel
	# make check) can push the kernel into writing every dirty page back
	# before the first reading: then the pages are made dirty again
	local try
	for try in 1 2 3; do
		make_dirty f 8
		agreed_reading f
		[[ ${KERNEL[1]} != 8 ]] || break
		echo "# the kernel wrote f back before it was read (dirty ${KERNEL[1]}): again" >&3
	done
	assert_row f cached=8 dirty=8 dirty_bytes=$((8 * PAGE))
	sync f
	# from here on the pages are clean and can be evicted like any others
	arranged f 8
	agreed_reading f
	assert_row f cached=8 dirty=0 writeback=0 evicted=0 pages=8
	assert_equal "${KERNEL[*]}" "8 0 0 0 0"
}

# An ext2 file system on a loop device over a 16 MiB image, mounted on
# fs/, whose writes can be throttled (throttle_writes).  Sets LOOP.
make_loop_fs() {
	require_root "loop devices and mounts need root"
	command -v losetup >/dev/null || skip "losetup (util-linux) is not installed"
	command -v mkfs.ext2 >/dev/null || skip "mkfs.ext2 (e2fsprogs) is not installed"
	pcarrange write img $((16 * MIB))
	LOOP=$(losetup -f --show img 2>/dev/null) || skip "no loop device available here"
	on_teardown losetup -d "$LOOP"
	mkfs.ext2 -q -F "$LOOP" >/dev/null 2>&1 || skip "mkfs.ext2 failed on $LOOP"
	mkdir fs
	mount "$LOOP" fs || skip "cannot mount $LOOP"
	on_teardown unmount "$PWD/fs"
}

# A cgroup v1 blkio cgroup whose writes to LOOP pass at BYTES per second.
# Sets BLKCG.  (On cgroup v2, writeback is charged to the cgroup that owns
# the inode rather than to the caller: not arranged here.)
throttle_writes() {
	local mnt dev
	mnt=$(cgroup_v1_mount blkio) || skip "no cgroup v1 blkio hierarchy to throttle writes with"
	dev=$(stat -c '%t %T' "$LOOP")
	dev=$((0x${dev% *})):$((0x${dev#* }))
	BLKCG=$mnt/pagestat-test.$$.$BATS_TEST_NUMBER
	mkdir "$BLKCG" || skip "cannot create a cgroup under $mnt"
	on_teardown remove_cgroup "$BLKCG"
	echo "$dev $1" >"$BLKCG/blkio.throttle.write_bps_device" ||
		skip "cannot throttle writes to $LOOP"
	# lifted first in teardown so that unmounting need not wait
	on_teardown write_value "$BLKCG/blkio.throttle.write_bps_device" "$dev 0"
	THROTTLED=$dev
}

# sync_file_range(FILE, SYNC_FILE_RANGE_WRITE): start writing back every
# dirty page of FILE, without waiting.
start_writeback() {
	"$PYTHON3" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_WRONLY)
if libc.sync_file_range(fd, ctypes.c_int64(0), ctypes.c_int64(0), ctypes.c_uint(2)) != 0:
    sys.exit("sync_file_range: " + os.strerror(ctypes.get_errno()))
' "$1"
}

@test "writeback: pages held under writeback by throttled I/O, then written" {
	# writeback normally lasts milliseconds: here the writes of a cgroup
	# to a loop device pass at 4 KiB/s, so the pages it starts writing
	# back stay under writeback until the test lifts the limit
	make_loop_fs
	throttle_writes 4096
	local pages=$((MIB / PAGE))
	pcarrange dirty fs/wb $MIB
	# held to the end: once written the pages are clean, and the machine
	# pages out clean unlocked pages before the last reading (locked
	# pages are written back all the same)
	hold_pages fs/wb
	agreed_reading fs/wb
	assert_row fs/wb cached=$pages dirty=$pages writeback=0

	in_cgroup "$BLKCG" start_writeback fs/wb
	agreed_reading fs/wb
	assert_row fs/wb cached=$pages dirty=0 writeback=$pages writeback_bytes=$MIB evicted=0
	assert_total writeback=$pages

	# the table shows it too
	run -0 --separate-stderr pagestat -n -p -o cached,dirty,writeback,path fs/wb
	assert_output --regexp "^ *$pages +0 +$pages +fs/wb\$"

	write_value "$BLKCG/blkio.throttle.write_bps_device" "$THROTTLED 0"
	# fsync waits for the writeback under way to end
	sync fs/wb
	agreed_reading fs/wb
	assert_row fs/wb cached=$pages dirty=0 writeback=0
}
