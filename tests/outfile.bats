#!/usr/bin/env bats
# --output-file=FILE: the output goes to .FILE.XXXXXX beside FILE and is
# renamed over FILE only once complete; on failure FILE is left alone.
#   full   8 pages, all cached   gone   6 pages, none cached
#   part  10 pages, pages 2..4 cached

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	mkdir tree out
	make_cached tree/full 8
	make_dropped tree/gone 6
	make_partial tree/part 10 2 3
}

teardown() {
	if [[ -n ${SMALL_FS-} ]]; then
		umount "$SMALL_FS" || true
		SMALL_FS=
	fi
	if [[ -n ${RO_DIR-} ]]; then
		chmod 755 "$RO_DIR" || true
	fi
}

# No temporary file is left in DIR.
assert_no_temp() {
	local left
	left=$(find "$1" -maxdepth 1 -name '.*.??????' -print)
	assert_equal "temporary files left: ${left}" "temporary files left: "
}

@test "every format: FILE holds exactly what standard output gets, nothing left beside it" {
	local fmt
	for fmt in table csv json ndjson prometheus; do
		pagestat --format=$fmt -a -c tree >"stdout.$fmt"
		run -0 --separate-stderr pagestat --format=$fmt -a -c --output-file="out/$fmt" tree
		refute_output
		assert_equal "$stderr" ""
		cmp "stdout.$fmt" "out/$fmt" || fail "$fmt: the file differs from standard output"
		[[ -s out/$fmt ]] || fail "$fmt: empty output"
	done
	assert_file_contains out/prometheus "^pagestat_cached_bytes{path=\"tree/full\",type=\"file\"} $((8 * PAGE))\$"
	assert_no_temp out
}

@test "mode 0644 less the umask; an existing FILE is replaced, not written into" {
	printf 'old contents, longer than the new ones will be %0500d\n' 0 >out/m.json
	chmod 600 out/m.json
	ln out/m.json old-link
	(umask 022 && "$PAGESTAT" -J --output-file=out/m.json tree/full)
	assert_equal "$(stat -c %a out/m.json)" 644
	assert_equal "$(jq .total.cached out/m.json)" 8
	# the old inode is untouched: the new file was renamed over it
	assert_file_contains old-link '^old contents'
	(umask 077 && "$PAGESTAT" -J --output-file=out/m.json tree/full)
	assert_equal "$(stat -c %a out/m.json)" 600
	(umask 027 && "$PAGESTAT" -J --output-file=out/m.json tree/full)
	assert_equal "$(stat -c %a out/m.json)" 640
	assert_no_temp out
}

@test "a name without a directory is written in the current directory" {
	cd out
	run -0 pagestat --format=csv --output-file=here.csv ../tree/part
	assert_file_contains here.csv "^\.\./tree/part,file,$((10 * PAGE)),10,3,$((3 * PAGE)),"
	assert_no_temp .
}

@test "some files not inspected (exit 1): FILE is still replaced, with the count" {
	echo old >out/e.prom
	run -1 --separate-stderr pagestat --format=prometheus --output-file=out/e.prom tree/full missing
	assert_equal "$stderr" "pagestat: cannot access 'missing': No such file or directory"
	assert_file_contains out/e.prom '^pagestat_errors 1$'
	assert_file_contains out/e.prom "^pagestat_cached_bytes{path=\"tree/full\",type=\"file\"} $((8 * PAGE))\$"
	assert_no_temp out
}

@test "bad values: exit 2, the option and value named, nothing created" {
	mkdir dir
	mkfifo fifo
	refused "invalid value for --output-file: '' (expected a file name)" -- --output-file= tree
	refused "invalid value for --output-file: 'dir' (expected a file name, not a directory)" \
		-- --output-file=dir tree
	refused "invalid value for --output-file: 'new/' (expected a file name, not a directory)" \
		-- --output-file=new/ tree
	refused "invalid value for --output-file: 'nowhere/x' (expected a file in an existing directory)" \
		-- --output-file=nowhere/x tree
	refused "invalid value for --output-file: 'tree/full/x' (expected a file in an existing directory)" \
		-- --output-file=tree/full/x tree
	refused "invalid value for --output-file: 'fifo' (expected a regular file or a new name" \
		-- --output-file=fifo tree
	refused "invalid value for --output-file: '/dev/null' (expected a regular file or a new name" \
		-- --output-file=/dev/null tree
	assert_equal "$(ls -A dir out)" "$(printf 'dir:\n\nout:')"
	[[ ! -e nowhere && ! -e new ]] || fail "something was created"
	assert_no_temp .
}

@test "a directory it cannot write to: exit 3, said, nothing created (even as root)" {
	mkdir ro
	chmod 555 ro
	RO_DIR=$PWD/ro
	# as root too: pagestat keeps no cap_dac_override
	run -3 --separate-stderr pagestat -J --output-file=ro/x.json tree
	refute_output
	assert_equal "$stderr" "pagestat: cannot create a temporary file for --output-file 'ro/x.json' in 'ro': Permission denied"
	assert_equal "$(ls -A ro)" ""
}

@test "no method usable (fatal, exit 3): the temporary file is removed, FILE kept" {
	echo old >out/f.json
	run --separate-stderr without_cachestat "$PAGESTAT" -J --method=cachestat --output-file=out/f.json tree
	[[ $status -ne 77 ]] || skip "cannot install a seccomp filter here"
	assert_equal "status $status" "status 3"
	assert_stderr_has "cachestat(2) is not usable"
	assert_equal "$(cat out/f.json)" old
	assert_no_temp out
}

without_cachestat() {
	rearrange || return
	"$NOCACHESTAT" ENOSYS "$@"
}

@test "a full file system: write error, exit 3, the old FILE intact, no temporary file" {
	require_root "mounting a small tmpfs"
	mkdir small
	mount -t tmpfs -o size=8k tmpfs small || skip "cannot mount a tmpfs here"
	SMALL_FS=$PWD/small
	echo "old metrics" >small/p.prom
	mkdir many
	local n
	for n in $(seq 300); do : >"many/file-with-a-long-name-$n"; done
	run -3 --separate-stderr pagestat --format=prometheus -a --output-file=small/p.prom many
	refute_output
	assert_equal "$stderr" "pagestat: write error: small/p.prom: No space left on device"
	assert_equal "$(cat small/p.prom)" "old metrics"
	assert_equal "$(ls -A small)" p.prom
}

@test "SIGTERM during the walk: the temporary file is removed, FILE kept" {
	"$PCARRANGE" tree big 100 1000 0
	echo old >out/s.json
	local pid status=0 tries=0
	"$PAGESTAT" -a -J --output-file=out/s.json big 2>stderr &
	pid=$!
	# wait for the temporary file, then stop the run
	until compgen -G 'out/.s.json.??????' >/dev/null; do
		((++tries < 2000)) || { wait "$pid"; fail "no temporary file seen during the run"; }
		sleep 0.005
	done
	kill -TERM "$pid"
	wait "$pid" || status=$?
	assert_equal "status $status" "status $((128 + 15))"
	assert_equal "$(cat out/s.json)" old
	assert_no_temp out
}

@test "-i: each sample replaces FILE whole; --expect-cached not met still writes it" {
	run -0 --separate-stderr pagestat -i 0.2 --count 3 -J --output-file=out/watch.json tree
	refute_output
	# one sample, the last: one document on one line
	run -0 jq -s 'length' out/watch.json
	assert_output 1
	run -0 jq -r '.total.files' out/watch.json
	assert_output 3
	run -0 jq -r '.total.delta != null' out/watch.json
	assert_output true
	assert_no_temp out
	# 11 of 24 pages cached: below 90 %, exit 4, and the file is there
	run -4 --separate-stderr pagestat -J --expect-cached=90 --output-file=out/exp.json tree
	run -0 jq -r '.total.cached' out/exp.json
	assert_output 11
	assert_no_temp out
	# nothing counted: exit 4 too, the note, and the file written
	mkdir empty
	run -4 --separate-stderr pagestat -J --expect-cached=90 --output-file=out/none.json empty
	refute_output
	assert_stderr_has "--expect-cached=90: no page was counted" "nothing to judge"
	run -0 jq -c '[.rows[0].path, .total.files, .total.pages]' out/none.json
	assert_output '["empty",0,0]'
	assert_no_temp out
}
