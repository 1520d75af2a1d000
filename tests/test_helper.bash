# Shared by every suite: libraries, the binary under test, arrangements.
# shellcheck shell=bash

bats_require_minimum_version 1.5.0

bats_load_library bats-support
bats_load_library bats-assert
bats_load_library bats-file

: "${PAGESTAT:?PAGESTAT must name the pagestat binary (make check sets it)}"
: "${PCARRANGE:?PCARRANGE must name tests/pcarrange (make check sets it)}"
JQ=${JQ:-jq}
PYTHON3=${PYTHON3:-python3}

# Never assume 4 KiB pages.
PAGE=$("$PCARRANGE" pagesize)

# Every run of pagestat first restores the cache state the test arranged
# (see rearrange below).
pagestat() { rearrange && "$PAGESTAT" "$@"; }
pcarrange() { "$PCARRANGE" "$@"; }
jq() { "$JQ" "$@"; }

# The suites arrange page-cache states that tmpfs cannot hold (its pages
# are neither droppable nor tagged dirty): refuse to run on it.
require_disk_tmpdir() {
	local fs
	fs=$(stat -f -c %T "$BATS_TEST_TMPDIR")
	[[ $fs != tmpfs ]] || skip "BATS_TEST_TMPDIR is on tmpfs; set PAGESTAT_TEST_TMPDIR to a disk-backed directory"
}

require_root() {
	[[ $EUID -eq 0 ]] || skip "needs root: $1"
}

# Each make_* below records the cache state it arranged, and every run
# of pagestat (and as_nobody) restores it first: something on a shared
# machine may evict pages between the arrangement and a run, often
# between two runs of one test, and each run must be compared with a
# state known to hold.  A test that changes an arranged file's cache
# state itself must do so with pcarrange on a file make_* did not make.
ARRANGED_PATH=() ARRANGED_HOW=()
arranged() {
	local path=$1
	[[ $path == /* ]] || path=$PWD/$path
	ARRANGED_PATH+=("$path")
	ARRANGED_HOW+=("$2")
}

rearrange() {
	local i path how
	for i in "${!ARRANGED_PATH[@]}"; do
		path=${ARRANGED_PATH[i]} how=${ARRANGED_HOW[i]}
		[[ -e $path ]] || continue
		case $how in
		dropped) pcarrange drop "$path" ;;
		*\ *) pcarrange drop "$path" && pcarrange cache "$path" $how ;;
		*) pcarrange cache "$path" 0 "$how" ;;
		esac || { echo "rearrange: cannot restore the cache of $path" >&2; return 99; }
	done
}

# FILE of PAGES pages (the last one half full when HALF=1), wholly cached.
make_cached() {
	pcarrange write "$1" $(( $2 * PAGE - ${HALF:-0} * PAGE / 2 ))
	pcarrange cache "$1" 0 "$2"
	arranged "$1" "$2"
}

# FILE of PAGES pages, on disk, none of them cached.
make_dropped() {
	pcarrange write "$1" $(( $2 * PAGE ))
	pcarrange drop "$1"
	arranged "$1" dropped
}

# FILE of PAGES pages, all cached and dirty (not yet written back; the
# kernel writes back after vm.dirty_expire_centisecs, 30 s by default).
make_dirty() {
	pcarrange dirty "$1" $(( $2 * PAGE ))
}

# FILE of PAGES pages with exactly pages FIRST..FIRST+COUNT-1 cached.
make_partial() {
	pcarrange write "$1" $(( $2 * PAGE ))
	pcarrange drop "$1"
	pcarrange cache "$1" "$3" "$4"
	arranged "$1" "$3 $4"
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
		assert_equal "$path: $key=$got" "$path: $kv"
	done
}

# Each KEY of the total of the JSON document in $output is VALUE.
assert_total() {
	local kv got
	for kv; do
		got=$(jq -r --arg k "${kv%%=*}" '.total[$k]' <<<"$output")
		assert_equal "total: ${kv%%=*}=$got" "total: $kv"
	done
}

# ---- running as an unprivileged user ------------------------------------

NOBODY=65534

as_nobody() {
	rearrange || return
	setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"
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
	if [[ -n ${NOBODY_DIR-} && $NOBODY_DIR == /var/tmp/pagestat-test.* ]]; then
		cd /
		rm -rf -- "$NOBODY_DIR"
	fi
}
