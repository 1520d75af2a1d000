#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# -j/--jobs: worker threads probe the files while the walk goes on; everything
# pagestat writes (rows in every format, directory totals, hard-link
# dedup, errors on stderr, exit status) is what -j 1 writes, byte for byte.

load test_helper

# A tree of 20,000 files of 1 to 4 pages in 20 x 10 directories of 100
# (plus a deeper branch, an empty directory, an empty file and hard
# links), with a cached pattern per file, made once for the file.  It
# lives where nobody can reach it, for the test that runs as nobody.
setup_file() {
	[[ $EUID -eq 0 ]] || return 0
	JOBS_DIR=$(mktemp -d /var/tmp/pagestat-test.XXXXXX)
	chmod 755 "$JOBS_DIR"
	export JOBS_DIR
	tree_script make "$JOBS_DIR/tree" >"$JOBS_DIR/expected"
}

teardown_file() {
	if [[ -n ${JOBS_DIR-} && $JOBS_DIR == /var/tmp/pagestat-test.* ]]; then
		chmod -R u+rwX "$JOBS_DIR" 2>/dev/null || true
		rm -rf -- "$JOBS_DIR"
	fi
}

setup() {
	require_disk_tmpdir
	require_root "the shared tree lives in /var/tmp and is chowned"
	cd "$JOBS_DIR"
}

teardown() {
	# the test as nobody changes owners and modes: put them back
	if [[ -n ${CHANGED-} ]]; then
		chown -R root:root tree
		chmod -R u+rwX,go+rX tree
	fi
}

# make TREE: creates the tree and arranges its pages; arrange TREE [DIR]:
# puts the page-cache pattern back (the machine pages out idle pages),
# of TREE/DIR only when given.  They print "FILES PAGES CACHED" of the
# distinct files arranged (links counted once).
tree_script() {
	"$PYTHON3" - "$@" <<'EOF'
import os, sys
mode, root = sys.argv[1], sys.argv[2]
only = sys.argv[3] + "/" if len(sys.argv) > 3 else ""
page = os.sysconf("SC_PAGE_SIZE")

def cached_pages(i, pages):
    # a quarter dropped, a quarter whole, a quarter the first page,
    # a quarter every other page
    return [[], list(range(pages)), [0], list(range(0, pages, 2))][i % 4]

files = []
for d in range(20):
    for s in range(10):
        for f in range(100):
            files.append("d%02d/s%d/f%03d" % (d, s, f))
files.append("d07/s3/deep/er/est/f")
if mode == "make":
    for i, rel in enumerate(files):
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, bytes([i % 251]) * ((1 + i % 4) * page))
        os.close(fd)
    os.sync()  # once: no dirty page left to drop or to count
files_n = pages_n = cached_n = 0
for i, rel in enumerate(files):
    if not rel.startswith(only):
        continue
    pages = 1 + i % 4
    fd = os.open(os.path.join(root, rel), os.O_RDONLY)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_RANDOM)
    want = cached_pages(i, pages)
    for p in want:
        os.pread(fd, page, p * page)
    os.close(fd)
    files_n += 1
    pages_n += pages
    cached_n += len(want)
if mode == "make":
    os.makedirs(os.path.join(root, "d05/empty"))
    open(os.path.join(root, "d11/s1/zero"), "w").close()
    files_n += 1
    # hard links: met in other directories, before or after the file
    for d in range(0, 20, 3):
        os.link(os.path.join(root, "d%02d/s0/f000" % d), os.path.join(root, "d%02d/link" % d))
    os.link(os.path.join(root, "d19/s9/f099"), os.path.join(root, "d00/s5/far-link"))
print(files_n, pages_n, cached_n)
EOF
}

# Runs pagestat -j 1, then -j JOBS, then -j 1 again with ARG...; the -j
# JOBS run must write what one of the -j 1 runs wrote (stdout, stderr and
# status alike).  The two -j 1 runs tell the machine's paging out (a
# pattern drifting between runs) from a fault: when they differ too, the
# pattern is put back and all is tried again, at most 5 times.
# (The pattern made by setup_file is not put back before each call: it
# costs seconds, and equal output needs only a stable one.)
# JOBS "default" runs the middle one without -j.
# usage: same_as_one_job JOBS ARG...
same_as_one_job() {
	local jobs=(-j "$1") try
	[[ $1 != default ]] || jobs=()
	shift
	for try in 1 2 3 4 5; do
		((try == 1)) || tree_script arrange tree >/dev/null
		"${RUNNER[@]}" "$PAGESTAT" -j 1 "$@" >out1 2>err1 && echo 0 >status1 || echo $? >status1
		"${RUNNER[@]}" "$PAGESTAT" "${jobs[@]}" "$@" >outN 2>errN && echo 0 >statusN || echo $? >statusN
		"${RUNNER[@]}" "$PAGESTAT" -j 1 "$@" >out2 2>err2 && echo 0 >status2 || echo $? >status2
		if { cmp -s out1 outN && cmp -s err1 errN && cmp -s status1 statusN; } ||
			{ cmp -s out2 outN && cmp -s err2 errN && cmp -s status2 statusN; }; then
			[[ -s outN ]] || fail "no output at all from pagestat $*"
			return 0
		fi
		if cmp -s out1 out2 && cmp -s err1 err2 && cmp -s status1 status2; then
			diff out1 outN | head -n 20
			diff err1 errN | head -n 20
			fail "${jobs[*]:-no -j} differs from -j 1 (status $(<status1) against $(<statusN)): pagestat $*"
		fi
		echo "# pages moved between two -j 1 runs; trying again" >&3
	done
	fail "the machine kept changing the page cache: no stable -j 1 output for $*"
}

RUNNER=()

@test "the tree's figures are what was arranged, with -j 1 and -j 4" {
	local files pages cached try
	read -r files pages _ <expected
	run -0 --separate-stderr "$PAGESTAT" -j 4 -J tree
	assert_equal "$stderr" ""
	assert_total files="$files" pages="$pages"
	assert_equal "$(jq .errors <<<"$output")" 0
	assert_row tree files="$files" pages="$pages"
	# cached pages on a part small enough to arrange right before the
	# run: the machine pages out a few pages a second here, and a count
	# it disturbed is arranged again and asked again, at most 5 times
	for try in 1 2 3 4 5; do
		read -r files pages cached < <(tree_script arrange tree d01)
		run -0 --separate-stderr "$PAGESTAT" -j 4 -J tree/d01
		[[ $(jq .total.cached <<<"$output") != "$cached" ]] || break
		echo "# $(jq .total.cached <<<"$output") of $cached pages cached; trying again" >&3
	done
	assert_equal "$stderr" ""
	assert_total files="$files" pages="$pages" cached="$cached"
	assert_row tree/d01 files="$files" pages="$pages" cached="$cached"
	assert_equal "$files $pages $cached" "1000 2500 1250"
	same_as_one_job 4 -J tree
}

@test "-j 4 and -j 1: the table, -a -J, -a --csv, -d 2 and --top 5 -s cached are the same" {
	same_as_one_job 4 tree
	same_as_one_job 4 -a -J tree
	same_as_one_job 4 -a --csv tree
	same_as_one_job 4 -d 2 -b tree
	same_as_one_job 4 --top 5 -s cached tree
	same_as_one_job 4 -a --top 5 -s cached --format=ndjson tree
	same_as_one_job 2 -a -c -p tree/d03 tree/d07 tree
}

@test "-j 4 and -j 1: segments and extents, every file with its own" {
	same_as_one_job 4 -a -S 3 -J tree/d02 tree/d13
	same_as_one_job 4 -a -e --csv tree/d04
	same_as_one_job 3 -a -emissing -S 2 --format=ndjson tree/d09/s4
}

@test "-j 4 and -j 1: hard links count once, where the walk met them first" {
	local files
	read -r files _ <expected
	same_as_one_job 4 -a -J tree
	# the link, met before its file (d00/s5 before d19), is the one counted
	output=$(<outN)
	assert_equal "$(jq '.total.files' <<<"$output")" "$files"
	assert_equal "$(jq '[.rows[] | select(.type == "file")] | length' <<<"$output")" "$files"
	# each counted once: rows of a path or its link, never both
	assert_equal "$(jq '[.rows[] | select(.path == "tree/d00/s5/far-link" or .path == "tree/d19/s9/f099")] | length' <<<"$output")" 1
	same_as_one_job 4 -l -a -J tree
	assert_equal "$(jq '.total.files' outN)" "$((files + 8))"
}

@test "-j 4 and -j 1 with -L: a file met first by its name, then by a link to it (or the other way), counts once, where met first" {
	# empty files (no page to lose), past -j auto's 2,048, and links to
	# files of the same directory and of the other one, met before and
	# after them, some soon after (while the workers still have the file)
	local i
	mkdir -p links/a links/b
	for ((i = 0; i < 1500; i++)); do : >"links/a/f$i"; : >"links/b/f$i"; done
	for ((i = 0; i < 100; i++)); do
		ln -s "f$((i * 15))" "links/b/l$i"
		ln -s "../b/f$((i * 15 + 7))" "links/a/m$i"
	done
	run -0 --separate-stderr "$PAGESTAT" -j 1 -L -a -J links
	assert_total files=3000
	local one=$output
	for i in 1 2 3 4 5; do
		run -0 --separate-stderr "$PAGESTAT" -j 4 -L -a -J links
		assert_equal "$output" "$one"
		run -0 --separate-stderr "$PAGESTAT" -L -a -J links
		assert_equal "$output" "$one"
	done
}

@test "as nobody, errors in the tree: rows, messages on stderr and exit 1 the same with -j 4" {
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	CHANGED=1
	chown -R $NOBODY:$NOBODY tree
	# open fails (EACCES): a directory nobody may not search, files it may not read
	chown root:root tree/d03/s2 tree/d06/s7/f010 tree/d06/s7/f011
	chmod 700 tree/d03/s2
	chmod 600 tree/d06/s7/f010 tree/d06/s7/f011
	# cachestat refuses (EPERM): readable, not nobody's, not writable
	chown root:root tree/d08/s1/f0{0..4}? tree/d12/s0/f05?
	chmod 644 tree/d08/s1/f0{0..4}? tree/d12/s0/f05?
	# a directory nobody may not read, but may search
	chown root:root tree/d15/s5
	chmod 711 tree/d15/s5
	cp "$PAGESTAT" ./pagestat-copy
	chmod 755 pagestat-copy
	PAGESTAT=$JOBS_DIR/pagestat-copy
	RUNNER=(setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups)
	same_as_one_job 4 -a -J tree
	assert_equal "$(<statusN)" 1
	stderr=$(<errN)
	assert_stderr_has "cannot read directory 'tree/d03/s2'" "cannot read directory 'tree/d15/s5'" \
		"cannot inspect 'tree/d06/s7/f010': Permission denied" \
		"more files refused (Operation not permitted)"
	# 2 directories, 2 files refused by open, 60 by cachestat
	assert_equal "$(jq '.errors' outN)" 64
	same_as_one_job 4 -d 1 tree
	same_as_one_job 4 -q --csv -a tree/d08
	RUNNER=()
}

@test "-j with file operands, a file named twice and a missing one" {
	tree_script arrange tree >/dev/null
	same_as_one_job 4 -J tree/d01/s1/f001 tree/d01/s1/f002 tree/d01/s1/f001 tree/d00/link tree/missing
	assert_equal "$(<statusN)" 1
	run -1 --separate-stderr "$PAGESTAT" -j 4 -J tree/d01/s1/f005 tree/missing
	assert_stderr_has "cannot access 'tree/missing': No such file or directory"
	# the 1106th file made (d01/s1/f005): 2 pages, both cached (i % 4 == 1)
	assert_row tree/d01/s1/f005 files=1 pages=2 cached=2
}

@test "-j 256 (the most) works; -j auto is the default and writes what -j 1 writes" {
	same_as_one_job 256 -a --csv tree/d10
	same_as_one_job auto -a -J tree
	same_as_one_job default -a -J tree
	same_as_one_job AUTO -d 2 tree
	same_as_one_job auto --top 5 -s cached tree
	same_as_one_job auto -a -S 3 -e --format=ndjson tree/d02 tree/d13 tree/d02
}

# Skip unless strace can trace here; STRACE_BPF=--seccomp-bpf where the
# kernel and strace can filter: then only clone and clone3 stop the traced
# process, not its every call (the -j auto test in a third of the time).
need_strace() {
	command -v strace >/dev/null || skip "strace is not installed"
	strace -o /dev/null true 2>/dev/null || skip "strace cannot trace here"
	STRACE_BPF=
	strace --seccomp-bpf -f -o /dev/null true 2>/dev/null && STRACE_BPF=--seccomp-bpf
}

# threads WHAT ARG...: how many threads pagestat ARG... started (strace
# sees each clone).
threads() {
	local what=$1
	shift
	strace ${STRACE_BPF:+"$STRACE_BPF"} -f -qq -o trace -e trace=clone,clone3 "$@" >/dev/null ||
		fail "pagestat failed under strace ($what)"
	grep -c -E '^[0-9]+ +clone3?\(' trace || true
}

@test "-j auto: no thread for a walk of up to 2048 files, one per processor but the walk's past it, none on one processor or for --warm" {
	need_strace
	local cpus
	cpus=$(nproc)
	((cpus >= 2)) || skip "one processor here: -j auto starts no worker"
	local asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	local -a ps=(env ASAN_OPTIONS="$asan" "$PAGESTAT")
	# 1,000 files, and 2,000 in two operands: no thread
	assert_equal "$(threads "1000 files" "${ps[@]}" tree/d10)" 0
	assert_equal "$(threads "2000 files" "${ps[@]}" tree/d10 tree/d11)" 0
	# 20,000: the processors less the walk's, at most 4
	local want=$((cpus - 1 < 4 ? cpus - 1 : 4))
	assert_equal "$(threads "20,000 files" "${ps[@]}" tree)" "$want"
	assert_equal "$(threads "3000 files" "${ps[@]}" tree/d10 tree/d11 tree/d12)" "$want"
	# -j 1 starts none, -j 3 three at once
	assert_equal "$(threads "-j 1" "${ps[@]}" -j 1 tree)" 0
	assert_equal "$(threads "-j 3" "${ps[@]}" -j 3 tree/d10)" 3
	# allowed one processor only (taskset): none
	if command -v taskset >/dev/null; then
		assert_equal "$(threads "one processor" taskset -c 0 "${ps[@]}" tree)" 0
	fi
	# --warm first counts what is missing (an inspection: workers), then
	# reads with as many readers as -j says, the walk alone by default
	assert_equal "$(threads "--warm" "${ps[@]}" --warm tree)" "$want"
	assert_equal "$(threads "--warm -j 2" "${ps[@]}" --warm -j 2 tree)" 4
	assert_equal "$(threads "--evict" "${ps[@]}" --evict tree)" "$want"
	tree_script arrange tree >/dev/null
}

# "${FD_LIMIT[@]}" N ARG... runs ARG... with at most N descriptors open,
# and none open but the standard ones (bats holds some: 3, 4, 10...).
FD_LIMIT=(bash -c 'for fd in /proc/$$/fd/*; do fd=${fd##*/}; ((fd > 2)) && eval "exec $fd>&-"; done
	ulimit -n "$0" && exec "$@"')

@test "ulimit -n 5, 6, 8, 10: -j 8 and -j auto write what -j 1 writes (the same files fail, Too many open files)" {
	local n
	for n in 5 6 8 10; do
		RUNNER=("${FD_LIMIT[@]}" "$n")
		# 3,000 files 3 directories deep, and d07's deep branch
		same_as_one_job 8 -a --csv tree/d00 tree/d01 tree/d07
		# the limit is felt: -j 1 fails on files, or on directories
		if ((n < 10)); then
			grep -q 'Too many open files' errN || fail "ulimit -n $n: no file failed"
			assert_equal "ulimit -n $n: status $(<statusN)" "ulimit -n $n: status 1"
		fi
		same_as_one_job auto -J tree/d00 tree/d01 tree/d07
		same_as_one_job 2 -d 1 tree/d00 tree/d07 tree/d01
	done
	# 5: no file of an operand's tree can be opened (a file takes three
	# descriptors, its O_PATH one, itself and /proc/thread-self/fd,
	# beside its directory's): every name fails, the 2,001 below s0 to s9
	# (far-link too) but each dNN/s0/f000 met after its link dNN/link, and
	# the links (where a link comes after its file, in directory order, it
	# is that file met again)
	RUNNER=("${FD_LIMIT[@]}" 5)
	same_as_one_job 8 -a --csv tree/d00 tree/d01
	assert_equal "$(grep -c -v "^pagestat: cannot inspect 'tree/d0[01]/[a-z0-9/-]*': Too many open files\$" errN)" 0
	local failed
	failed=$(grep -c . errN)
	((failed >= 2000 && failed <= 2002)) || fail "ulimit -n 5: $failed files failed, not 2,000 to 2,002"
	assert_equal "$(grep -c ',file,' outN)" 0
	RUNNER=()
}

@test "-j under a small descriptor limit: no worker starts where the descriptors it may need are not all free" {
	need_strace
	local asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	local -a ps=(env ASAN_OPTIONS="$asan" "$PAGESTAT")
	assert_equal "$(threads "ulimit -n 10" "${FD_LIMIT[@]}" 10 "${ps[@]}" -j 3 tree/d10)" 0
	assert_equal "$(threads "ulimit -n 100" "${FD_LIMIT[@]}" 100 "${ps[@]}" -j 3 tree/d10)" 0
	assert_equal "$(threads "ulimit -n 256" "${FD_LIMIT[@]}" 256 "${ps[@]}" -j 3 tree/d10)" 3
	if (($(nproc) >= 2)); then
		assert_equal "$(threads "auto, ulimit -n 10" "${FD_LIMIT[@]}" 10 "${ps[@]}" tree)" 0
	fi
}

@test "-j output that cannot be written: exit 3, said once" {
	run -3 --separate-stderr bash -c '"$PAGESTAT" -j 4 -a tree >/dev/full'
	assert_equal "$stderr" "pagestat: write error: No space left on device"
	run -3 --separate-stderr bash -c '"$PAGESTAT" -j 4 -a -J tree >/dev/full' 
	assert_equal "$stderr" "pagestat: write error: No space left on device"
}

@test "bad values for --jobs: exit 2, the option and the value named, nothing done" {
	refused "invalid value for --jobs: '0' (expected auto, or a whole number from 1 to 256)" -- -j 0 tree
	refused "invalid value for --jobs: 'automatic'" -- --jobs=automatic tree
	refused "invalid value for --jobs: '-1'" -- -j -1 tree
	refused "invalid value for --jobs: 'abc'" -- --jobs=abc tree
	refused "invalid value for --jobs: ''" -- --jobs= tree
	refused "invalid value for --jobs: '257'" -- -j 257 tree
	refused "invalid value for --jobs: '100000'" -- --jobs 100000 tree
	refused "invalid value for --jobs: '2x'" -- -j2x tree
	refused "option requires an argument -- 'j'" -- tree -j
}
