#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Start-up: a run on one file, the commonest use in scripts, does only the
# work it needs (strace shows what it asks of the kernel): cachestat is
# asked of no descriptor, no scratch file is made, the locale is read only
# for a name that is not ASCII (or a bar), a user with no capability drops
# nothing, libcap and jansson are not loaded where they were linked in,
# and libmount is loaded only to read the mount table.

load test_helper

setup() {
	require_disk_tmpdir
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	cd "$BATS_TEST_TMPDIR"
	ASAN=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
}

teardown() {
	leave_nobody_dir
}

# traced CMD...: runs CMD under strace (every thread), the trace in ./trace
traced() {
	env ASAN_OPTIONS="$ASAN" strace -f -qq -o trace "$@" >out 2>err ||
		fail "failed under strace: $* ($(<err))"
}

# opened PATTERN: the files the traced run opened whose name matches
opened() {
	grep -E 'open(at)?\(' trace | grep -E "$1" || true
}

@test "one file, JSON and the table: cachestat asked of no descriptor, no memfd, no locale file for an ASCII name" {
	make_cached plain 2
	local format
	for format in json table csv ndjson; do
		LC_ALL=C.UTF-8 traced "$PAGESTAT" --format=$format plain
		assert_equal "$(opened 'locale|gconv|LC_CTYPE')" ""
		run grep -c -E 'memfd_create|O_TMPFILE' trace
		assert_output 0
		# the only cachestat before the file's is of descriptor -1
		run grep -E 'cachestat|syscall_0x1c3' trace
		assert_line --index 0 --regexp '\(-1|\(0xffffffff'
	done
	# what it measured is right all the same
	run -0 "$PAGESTAT" -J plain
	assert_row plain cached=2 files=1
}

@test "a name that is not ASCII, and a bar, read the locale (UTF-8: shown as it is)" {
	locale -a | grep -qiE '^c\.utf-?8$' || skip "no C.UTF-8 locale"
	mkdir "café"
	make_cached "café/f" 1
	LC_ALL=C.UTF-8 traced "$PAGESTAT" "café"
	[[ -n $(opened 'LC_CTYPE|locale-archive') ]] || fail "the locale was not read for café"
	assert_equal "$(tail -n 1 out | awk '{print $NF}')" "café"
	LC_ALL=C.UTF-8 traced "$PAGESTAT" -S 4 "café/f"
	[[ -n $(opened 'LC_CTYPE|locale-archive') ]] || fail "the locale was not read for a bar"
	# in the C locale the name is escaped, as always
	run -0 "$PAGESTAT" "café"
	assert_output --partial 'caf\xc3\xa9'
}

@test "as a user with no capability: nothing to drop (one capget, no capset), no_new_privs set" {
	local prog=$PAGESTAT
	local -a as=()
	if ((EUID == 0)); then
		# root becomes nobody
		enter_nobody_dir
		echo x >mine
		chown $NOBODY mine
		prog=./pagestat as=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	else
		# a user is one already, unless it was given capabilities
		local sets
		sets=$(awk '$1 ~ /^Cap(Inh|Prm|Eff|Amb):$/ && $2 !~ /^0+$/' /proc/self/status)
		[[ -z $sets ]] || skip "this user holds capabilities: $sets"
		echo x >mine
	fi
	traced "${as[@]}" "$prog" -J mine
	# setpriv's own calls come before the exec
	awk -v want="execve(\"$prog\"" 'index($0, want) { ours = 1 } ours' trace >ours
	[[ -s ours ]] || fail "no exec of $prog in the trace"
	run grep -c -E 'capset\(' ours
	assert_output 0
	run grep -c -E 'PR_CAPBSET_DROP' ours
	assert_output 0
	run grep -c 'PR_SET_NO_NEW_PRIVS, 1' ours
	assert_output 1
	run -0 jq -r '.rows[0].files' out
	assert_output 1
}

@test "libcap and jansson: linked in from their static archives unless configure said --disable-static-deps" {
	command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
	run -0 readelf -d "$PAGESTAT"
	if [[ ${PAGESTAT_DEPS_LIBS-} == *-Bstatic* ]]; then
		refute_output --partial "libcap.so"
		refute_output --partial "libjansson.so"
		# a file of the test's own: a user may inspect it (Linux 6.14)
		echo x >mine
		traced "$PAGESTAT" -J mine
		assert_equal "$(opened 'libcap|libjansson')" ""
		run -0 jq -r '"\(.errors) \(.rows[0].files)"' out
		assert_output "0 1"
	else
		assert_output --partial "libcap.so"
		assert_output --partial "libjansson.so"
	fi
}

@test "libmount: not a dependency of the binary, loaded only when the mount table is read (--system)" {
	command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
	run -0 readelf -d "$PAGESTAT"
	refute_output --partial "libmount"
	# a file of the test's own, which a user may inspect too (Linux 6.14)
	make_cached plain 1
	traced "$PAGESTAT" -J plain
	assert_equal "$(opened 'libmount|libblkid|libselinux')" ""
	# --system reads the table (excluding every name, it walks nothing).
	# As a user, some mount roots, the block devices' buffer cache and
	# other users' open files cannot be read: exit 1, each said on stderr.
	local status=0
	env ASAN_OPTIONS="$ASAN" strace -f -qq -o trace \
		"$PAGESTAT" --system --exclude='*' -J >out 2>err || status=$?
	((status == 0 || (status == 1 && EUID != 0))) ||
		fail "--system exited $status under strace: $(<err)"
	((status == 0)) || grep -q 'could not be' err ||
		fail "--system exited 1 and said nothing: $(<err)"
	[[ -n $(opened 'libmount\.so') ]] || fail "--system did not load libmount"
	run -0 jq -r '.rows[] | select(.path == "/") | .type' out
	assert_output filesystem
}

# Issue 31, item 14: ncursesw is loaded by --browse alone.

@test "ncursesw and libtinfo: not dependencies of the binary, not loaded by a run on a file" {
	command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
	run -0 readelf -d "$PAGESTAT"
	refute_output --partial "ncurses"
	refute_output --partial "tinfo"
	# a file of the test's own, which a user may inspect too (Linux 6.14)
	make_cached plain 16
	local format
	for format in table json; do
		traced "$PAGESTAT" --format=$format plain
		assert_equal "$(opened 'ncurses|tinfo|terminfo')" ""
	done
	run -0 "$PAGESTAT" -J plain
	assert_row plain cached=16 files=1
}
