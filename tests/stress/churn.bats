#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Stress (make check-stress, not make check): 80 runs of pagestat over a
# tree that another process changes without pause.  Each run must end,
# exit 0 or 1, and print output that holds together.  robust.bats has
# the same kinds of change, each at one chosen moment.

load ../test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# The churn loop outlives a failed test unless it is stopped here.
teardown() {
	if [[ -n ${CHURN-} ]]; then
		kill "$CHURN" 2>/dev/null || true
		wait "$CHURN" 2>/dev/null || true
		CHURN=
	fi
}

# ROOT: 3 levels of directories d0..d2 holding files f0..f59 (780 files
# of 5,000 bytes), and churn.py, which creates, writes, renames and
# deletes files and directories in it without pause, and puts symbolic
# links (some to ..) and FIFOs in place of files: enough for it to change
# what a walk has listed but not yet opened.  Its changes keep the tree
# bounded, so that every run costs about the same however long the loop
# has run: directories are named d0..d3 and renamed only to a name at
# their own level (never nested deeper), files f0..f59, only empty
# directories are removed.  It counts its changes in COUNT, and stops when
# killed or after 1800 s (should teardown never come).
# usage: write_churn ROOT COUNT
write_churn() {
	cat >churn.py <<-'EOF'
		import os, random, sys, time
		root, count_file = sys.argv[1], sys.argv[2]
		names = ["d%d" % i for i in range(4)]
		files = ["f%d" % i for i in range(60)]
		rnd = random.Random(5)
		def directory(level):  # root is level 0
		    return os.path.join(root, *rnd.choices(names, k=level))
		def file_path():
		    return os.path.join(directory(rnd.randint(0, 2)), rnd.choice(files))
		def write(p):
		    tmp = p + ".tmp"
		    with open(tmp, "wb") as f:
		        f.write(b"x" * rnd.choice([0, 100, 4096, 20000]))
		    os.rename(tmp, p)
		def replace(p, make):
		    tmp = p + ".new"
		    make(tmp)
		    os.rename(tmp, p)
		def move_directory():
		    level = rnd.randint(1, 2)
		    os.rename(directory(level), directory(level))
		actions = [
		    (35, lambda: write(file_path())),
		    (8, lambda: os.mkdir(directory(rnd.randint(1, 2)))),
		    (14, lambda: os.rename(file_path(), file_path())),
		    (6, move_directory),
		    (12, lambda: os.unlink(file_path())),
		    (2, lambda: os.rmdir(directory(rnd.randint(1, 2)))),
		    (8, lambda: replace(file_path(), lambda t: os.symlink(rnd.choice(["..", "d1", "../d2", "nowhere"]), t))),
		    (8, lambda: replace(file_path(), os.mkfifo)),
		]
		weights = [w for w, _ in actions]
		deadline = time.time() + 1800
		changes = 0
		while time.time() < deadline and os.path.isdir(root):
		    try:
		        rnd.choices(actions, weights)[0][1]()
		    except OSError:
		        continue
		    changes += 1
		    if changes % 50 == 0:
		        with open(count_file + ".tmp", "w") as f:
		            f.write("%d\n" % changes)
		        os.replace(count_file + ".tmp", count_file)
	EOF
	"$PYTHON3" - "$1" <<-'EOF'
		import itertools, os, sys
		for depth in range(3):
		    for parts in itertools.product(["d0", "d1", "d2"], repeat=depth):
		        d = os.path.join(sys.argv[1], *parts)
		        os.makedirs(d, exist_ok=True)
		        for i in range(60):
		            with open(os.path.join(d, "f%d" % i), "wb") as f:
		                f.write(b"y" * 5000)
	EOF
	echo 0 >"$2"
}

@test "a tree changing under the walk: 80 runs end, exit 0 or 1, output valid and adding up" {
	write_churn tree churn.count
	"$PYTHON3" churn.py tree churn.count >/dev/null 2>&1 3>&- &
	CHURN=$!
	# not i: bats's run changes a global i (bats_any_in)
	local round format runs=0 what changes_before changes_after deep
	local -A met=([json]=0 [csv]=0 [ndjson]=0 [json-L]=0)
	changes_before=$(<churn.count)
	for ((round = 0; round < 20; round++)); do
		for format in json csv ndjson json-L; do
			runs=$((runs + 1))
			what="run $runs of 80 ($format)"
			if [[ $format == json-L ]]; then
				run --separate-stderr bounded -a -J -L tree
			else
				run --separate-stderr bounded -a --format=$format tree
			fi
			((status == 0 || status == 1)) ||
				fail "$what: exit $status, want 0 or 1"$'\n'"stderr: $stderr"$'\n'"output ending: $(tail -c 2000 <<<"$output")"
			((status == 0)) || met[$format]=$((met[$format] + 1))
			assert_stderr_clean "$what"
			assert_adds_up "${format%-L}" tree "$what"
		done
	done
	kill -0 "$CHURN" || fail "the churn loop ended early: the tree stood still"
	kill "$CHURN"
	wait "$CHURN" || true
	CHURN=
	changes_after=$(<churn.count)
	((changes_after > changes_before)) ||
		fail "the churn loop made no change during the 80 runs ($changes_before changes before, $changes_after after)"
	# the bound that keeps each run's cost the same
	deep=$(find tree -mindepth 3 -type d) || fail "find tree failed: $deep"
	[[ -z $deep ]] || fail "the churn nested directories deeper than tree/dN/dN: $deep"
	echo "# $runs runs while the tree changed ($changes_before to $changes_after changes);" \
		"exit 1 (a change met): json ${met[json]}, csv ${met[csv]}," \
		"ndjson ${met[ndjson]}, json -L ${met[json-L]}" >&3
}
