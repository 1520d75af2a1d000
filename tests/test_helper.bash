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

pagestat() { "$PAGESTAT" "$@"; }
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

# FILE of PAGES pages (the last one half full when HALF=1), wholly cached.
make_cached() {
	pcarrange write "$1" $(( $2 * PAGE - ${HALF:-0} * PAGE / 2 ))
	pcarrange cache "$1" 0 "$2"
}

# FILE of PAGES pages, on disk, none of them cached.
make_dropped() {
	pcarrange write "$1" $(( $2 * PAGE ))
	pcarrange drop "$1"
}

# FILE of PAGES pages, all cached and dirty (not yet written back; the
# kernel writes back after vm.dirty_expire_centisecs, 30 s by default).
make_dirty() {
	pcarrange dirty "$1" $(( $2 * PAGE ))
}

# FILE of PAGES pages with exactly pages FIRST..FIRST+COUNT-1 cached.
make_partial() {
	make_dropped "$1" "$2"
	pcarrange cache "$1" "$3" "$4"
}

# A field of the one JSON document in $output.
json_field() {
	jq -r "$1" <<<"$output"
}
