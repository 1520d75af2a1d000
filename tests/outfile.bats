#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
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
	[[ -z ${LIVE-} ]] || kill "$LIVE" 2>/dev/null || true
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

# Runs pagestat -a -J --output-file=out/s.json big (no core dumped),
# sends SIGNAL to it once its temporary file is there, and sets STATUS.
signal_during_walk() {
	local sig=$1 pid tries=0
	rm -f stderr
	# every signal at its default first: a shell without job control (a
	# background job's) starts this one with SIGINT and SIGQUIT ignored,
	# and pagestat leaves an ignored signal ignored, as nohup expects
	(ulimit -c 0 && exec env --default-signal "$PAGESTAT" -a -J --output-file=out/s.json big 2>stderr) &
	pid=$!
	# wait for the temporary file, then stop the run
	until compgen -G 'out/.s.json.??????' >/dev/null; do
		((++tries < 2000)) || { wait "$pid"; fail "SIG$sig: no temporary file seen during the run"; }
		sleep 0.005
	done
	kill -"$sig" "$pid"
	STATUS=0
	wait "$pid" || STATUS=$?
}

@test "SIGTERM during the walk: the temporary file is removed, FILE kept" {
	"$PCARRANGE" tree big 100 1000 0
	echo old >out/s.json
	signal_during_walk TERM
	assert_equal "status $STATUS" "status $((128 + 15))"
	assert_equal "$(cat out/s.json)" old
	assert_no_temp out
}

@test "the other signals that end a run (SIGUSR1, SIGALRM, SIGXFSZ sent, SIGQUIT, real-time ones...): the temporary file is removed, death by the signal" {
	"$PCARRANGE" tree big 100 1000 0
	echo old >out/s.json
	local sig
	for sig in HUP INT USR1 USR2 ALRM VTALRM XCPU XFSZ QUIT IO PWR RTMIN RTMAX; do
		signal_during_walk "$sig"
		assert_equal "SIG$sig: status $STATUS" "SIG$sig: status $((128 + $(kill -l "$sig")))"
		assert_equal "SIG$sig: $(cat out/s.json) $(cat stderr)" "SIG$sig: old "
		assert_no_temp out
	done
}

# Runs ARG... and, once a thread of it other than the first (a worker of
# -j) and a file matching GLOB are there, sends SIGNAL to that thread
# alone (tgkill(2), with the process stopped meanwhile so that neither
# goes first); prints "sent" or "late" (the run ended first) and the
# status as a shell gives it.  stderr goes to the file stderr.
# usage: signal_worker SIGNAL GLOB ARG...
signal_worker() {
	"$PYTHON3" - "$@" <<'EOF'
import ctypes, glob, os, signal, subprocess, sys, time
sig, pattern, argv = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
libc = ctypes.CDLL(None, use_errno=True)
with open("stderr", "w") as err:
    proc = subprocess.Popen(argv, stderr=err)
sent = False
deadline = time.monotonic() + 60
while not sent and proc.poll() is None and time.monotonic() < deadline:
    try:
        workers = [int(t) for t in os.listdir("/proc/%d/task" % proc.pid) if int(t) != proc.pid]
    except OSError:
        workers = []
    if not workers or not glob.glob(pattern):
        time.sleep(0.0005)
        continue
    os.kill(proc.pid, signal.SIGSTOP)
    # a thread that ended meanwhile is not there to be sent to
    sent = glob.glob(pattern) != [] and libc.tgkill(proc.pid, workers[0], sig) == 0
    os.kill(proc.pid, signal.SIGCONT)
status = proc.wait()
print("sent" if sent else "late", 128 - status if status < 0 else status)
EOF
}

@test "SIGTERM sent to a worker thread of -j alone: the walking thread removes the temporary file, death by SIGTERM" {
	"$PCARRANGE" tree big 100 1000 0
	echo old >out/s.json
	local runs=0 late=0
	while ((runs < 3)); do
		run -0 signal_worker 15 'out/.s.json.??????' "$PAGESTAT" -j 2 -a -J --output-file=out/s.json big
		if [[ $output == late* ]]; then
			((++late < 5)) || fail "the run kept ending before a worker could be sent SIGTERM"
			echo old >out/s.json
			continue
		fi
		assert_output "sent $((128 + 15))"
		assert_equal "$(cat out/s.json) $(cat stderr)" "old "
		assert_no_temp out
		((++runs))
	done
}

@test "ulimit -t: SIGXCPU ends the run, the temporary file removed, FILE kept" {
	"$PCARRANGE" tree big 100 1000 0
	echo old >out/c.prom
	local status=0
	# -l walks the tree each time it is named: 10 walks, seconds of CPU
	(ulimit -c 0 && ulimit -S -t 1 &&
		exec "$PAGESTAT" -l --format=prometheus --output-file=out/c.prom \
			big big big big big big big big big big 2>stderr) || status=$?
	assert_equal "status $status" "status $((128 + $(kill -l XCPU)))"
	assert_equal "$(cat out/c.prom) $(cat stderr)" "old "
	assert_no_temp out
}

@test "ulimit -f: a write past it is a write error (exit 3, File too large), the old FILE intact, no temporary file" {
	"$PCARRANGE" tree big 2 1000 0
	echo old >out/f.json
	local status=0
	# 8 KiB, where the rows of 2,000 files take some 600
	(ulimit -c 0 && ulimit -f 8 &&
		exec "$PAGESTAT" -a -J --output-file=out/f.json big >stdout 2>stderr) || status=$?
	assert_equal "status $status" "status 3"
	assert_equal "$(cat stdout)" ""
	assert_equal "$(cat stderr)" "pagestat: write error: out/f.json: File too large"
	assert_equal "$(cat out/f.json)" old
	assert_no_temp out
	# -i too: the first sample's write fails, and the run ends with it
	status=0
	(ulimit -c 0 && ulimit -f 8 &&
		exec "$PAGESTAT" -i 0.1 -a -J --output-file=out/f.json big >stdout 2>stderr) || status=$?
	assert_equal "-i: status $status" "-i: status 3"
	assert_equal "$(cat stderr)" "pagestat: write error: out/f.json: File too large"
	assert_equal "$(cat out/f.json)" old
	assert_no_temp out
}

@test "FILE where no file can be created (/proc) or in a directory removed since: exit 3, said so, nothing done" {
	run -3 --separate-stderr pagestat -J --output-file=/proc/self/comm tree
	refute_output
	assert_equal "$stderr" "pagestat: cannot create a temporary file for --output-file '/proc/self/comm' in '/proc/self': not a directory that can hold a new file (/proc is not a file system where files can be created)"
	run -3 --separate-stderr pagestat -J --output-file=/proc/new.json tree
	refute_output
	assert_equal "$stderr" "pagestat: cannot create a temporary file for --output-file '/proc/new.json' in '/proc': not a directory that can hold a new file (/proc is not a file system where files can be created)"
	[[ ! -e /proc/new.json ]] || fail "/proc/new.json is there"
	mkdir gone
	cd gone
	rmdir ../gone
	run -3 --separate-stderr pagestat -J --output-file=x.json ../tree
	refute_output
	assert_equal "$stderr" "pagestat: cannot create a temporary file for --output-file 'x.json' in '.': not a directory that can hold a new file (it was removed)"
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

# A tree whose walk takes a while: a signal can come during a sample.
make_big_tree() {
	"$PCARRANGE" tree big 20 1000 0
}

# Run pagestat -i ... --output-file=out/w.json big in the background,
# wait for its first sample to land, then send SIGNAL during the next
# (and SIGTERM after it with THEN_TERM=1: a second signal, which two of
# the same kind sent at once would not be); sets STATUS.
watch_then_signal() {
	local sig=$1 tries=0 pid
	shift
	"$PAGESTAT" -i 0.05 -J --output-file=out/w.json "$@" big 2>stderr &
	pid=$!
	until [[ -s out/w.json ]]; do
		((++tries < 2000)) || { kill -KILL "$pid"; wait "$pid"; fail "no sample written"; }
		sleep 0.005
	done
	# the next sample's temporary file: a signal during a sample
	tries=0
	until compgen -G 'out/.w.json.??????' >/dev/null; do
		((++tries < 2000)) || { kill -KILL "$pid"; wait "$pid"; fail "no second sample"; }
		sleep 0.002
	done
	kill -"$sig" "$pid"
	[[ -z ${THEN_TERM-} ]] || kill -TERM "$pid"
	STATUS=0
	wait "$pid" || STATUS=$?
}

@test "-i with --output-file: SIGINT and SIGTERM end it as -i alone does: status 0, the last whole sample, no temporary file" {
	make_big_tree
	local sig
	for sig in INT TERM; do
		rm -f out/w.json
		watch_then_signal "$sig"
		assert_equal "SIG$sig: status $STATUS" "SIG$sig: status 0"
		assert_equal "SIG$sig: stderr: $(cat stderr)" "SIG$sig: stderr: "
		run -0 jq -c '[.total.files, (.rows | length)]' out/w.json
		assert_equal "SIG$sig: $output" "SIG$sig: [20000,1]"
		assert_no_temp out
	done
}

@test "-i with --output-file: a second signal ends it at once, the temporary file removed, FILE the sample before" {
	make_big_tree
	THEN_TERM=1 watch_then_signal INT
	assert_equal "status $STATUS" "status $((128 + 15))"
	run -0 jq -c '.total.files' out/w.json
	assert_output 20000
	assert_no_temp out
}

@test "a NAME of 250 bytes: the temporary name is cut to fit NAME_MAX" {
	local name
	name=$(printf 'n%.0s' {1..246}).prom
	run -0 --separate-stderr pagestat --format=prometheus --output-file="out/$name" tree/full
	assert_equal "$stderr" ""
	assert_file_contains "out/$name" "^pagestat_cached_bytes{path=\"tree/full\",type=\"file\"} $((8 * PAGE))\$"
	assert_no_temp out
}

@test "a symbolic link named as FILE is refused (exit 2), as root too: neither it nor its target is touched" {
	echo target >out/target
	ln -s target out/link
	ln -s nowhere out/dangling
	refused "invalid value for --output-file: 'out/link' (expected a regular file or a new name, not a symbolic link" \
		-- --output-file=out/link tree
	refused "invalid value for --output-file: 'out/dangling' (expected a regular file or a new name, not a symbolic link" \
		-- --output-file=out/dangling tree
	assert_equal "$(readlink out/link) $(readlink out/dangling) $(cat out/target)" "target nowhere target"
	[[ ! -e out/nowhere ]] || fail "the dangling link's target was created"
	assert_no_temp out
}

# ---- issue 31, item 11: temporary files of killed runs --------------------

@test "a run killed (SIGKILL) while it writes FILE leaves its temporary file; the next run removes it, not one a live run writes, nor another FILE's" {
	# a warm at 4 KiB a second: the temporary file stays while it reads
	pcarrange write slow $((64 * PAGE))
	pcarrange drop slow
	"$PAGESTAT" --warm --rate=4K --format=prometheus --output-file=out/x.prom slow &
	local killed=$! i
	for ((i = 0; i < 100; i++)); do
		[[ -n $(find out -maxdepth 1 -name '.x.prom.??????') ]] && break
		sleep 0.1
	done
	local stale
	stale=$(find out -maxdepth 1 -name '.x.prom.??????')
	[[ -n $stale ]] || fail "no temporary file while the run waits"
	kill -KILL "$killed"
	wait "$killed" || true
	[[ -e $stale ]] || fail "SIGKILL removed $stale: nothing to test"
	# a live run's temporary file, and another FILE's stale one
	"$PAGESTAT" --warm --rate=4K --format=prometheus --output-file=out/x.prom slow &
	local live=$!
	LIVE=$live
	echo other >out/.y.prom.AbCdEf
	for ((i = 0; i < 100; i++)); do
		(($(find out -maxdepth 1 -name '.x.prom.??????' | wc -l) == 1)) &&
			[[ ! -e $stale ]] && break
		sleep 0.1
	done
	local alive
	alive=$(find out -maxdepth 1 -name '.x.prom.??????')
	[[ -n $alive && $alive != "$stale" && ! -e $stale ]] ||
		fail "the second run left $stale or made none: $(ls -A out)"
	# a third run ends: the live run's file stays, the other FILE's too
	run -0 --separate-stderr pagestat --format=prometheus --output-file=out/x.prom tree/full
	[[ -e $alive ]] || fail "a live run's temporary file was removed"
	[[ -e out/.y.prom.AbCdEf ]] || fail "another FILE's temporary file was removed"
	kill "$live"
	wait "$live" || true
	assert_equal "$(find out -maxdepth 1 -name '.x.prom.??????')" ""
	assert_file_contains out/x.prom "^pagestat_cached_bytes{path=\"tree/full\",type=\"file\"} $((8 * PAGE))\$"
}
