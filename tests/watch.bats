#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Scripts and watching: --expect-cached (exit 4), -i/--interval and
# --count (repeated samples with a time and the change in cached pages).

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# ---- --expect-cached ---------------------------------------------------

@test "--expect-cached: half cached passes 40 and 50, fails 60 and 50.1 (exit 4, output complete)" {
	make_partial half 8 0 4
	run -0 --separate-stderr pagestat -J --expect-cached=40 half
	assert_equal "$(json_field '.total.cached')" 4
	run -0 --separate-stderr pagestat -J --expect-cached=50 half
	run -4 --separate-stderr pagestat -J --expect-cached=60 half
	# still the whole document, and nothing said on stderr
	assert_equal "$(json_field '.rows[0].cached')" 4
	assert_equal "$(json_field '.total.pages')" 8
	assert_equal "$stderr" ""
	run -4 --separate-stderr pagestat -J --expect-cached=50.1 half
	run -4 --separate-stderr pagestat --expect-cached=60 -o cached,percent,path -p half
	assert_line --index 1 --regexp '^ +4 +50\.0% half$'
}

@test "--expect-cached: the share is over the total, every file of the tree" {
	mkdir tree
	make_cached tree/warm 3
	make_dropped tree/cold 1
	# 3 of 4 pages: 75%, whatever rows are shown
	run -0 pagestat -a --top 1 --expect-cached=75 tree
	run -4 pagestat -a --top 1 --expect-cached=75.1 tree
	run -0 pagestat --expect-cached=100 tree/warm
	run -4 pagestat --expect-cached=0.1 tree/cold
	run -0 pagestat --expect-cached=0 tree/cold
}

# what --expect-cached=PERCENT says when a run counted no page
nothing_to_judge() {
	echo "pagestat: --expect-cached=$1: no page was counted (no file, or only empty files): nothing to judge"
}

@test "--expect-cached: no page counted (an empty directory, only empty files) is not met: exit 4, a note" {
	mkdir nothing empties
	: >empties/a
	: >empties/b
	run -4 --separate-stderr pagestat -J --expect-cached=95 nothing
	# the output is whole all the same
	assert_total files=0 pages=0 cached=0
	assert_equal "$(json_field '.rows[0].path')" nothing
	assert_equal "$stderr" "$(nothing_to_judge 95)"
	# the value as given
	run -4 --separate-stderr pagestat -J --expect-cached=50.50 empties
	assert_total files=2 pages=0 cached=0
	assert_equal "$stderr" "$(nothing_to_judge 50.50)"
	# whatever the mark, even 0: nothing was judged
	run -4 --separate-stderr pagestat -n --expect-cached=0 nothing empties/a
	assert_equal "$stderr" "$(nothing_to_judge 0)"
	# -q keeps quiet, as a loop waiting for the data wants; the status says it
	run -4 --separate-stderr pagestat -q --expect-cached=95 nothing
	assert_equal "stderr with -q: $stderr" "stderr with -q: "
	# a range past the end of a file that is not empty counts no page either
	make_cached sized 2
	run -4 --separate-stderr pagestat -J --offset=$((4 * PAGE)) --expect-cached=95 sized
	assert_total files=1 pages=0 cached=0
	assert_equal "$stderr" "pagestat: --expect-cached=95: no page was counted (no file, or only empty files or ranges): nothing to judge"
	# without --expect-cached an empty directory is no failure
	run -0 --separate-stderr pagestat nothing
	assert_equal "$stderr" ""
}

@test "--expect-cached: once a page is counted it is judged; the note is only for none" {
	mkdir db
	: >db/empty
	make_cached db/warm 2
	run -0 --separate-stderr pagestat -J --expect-cached=95 db
	assert_total files=2 pages=2 cached=2
	assert_equal "$stderr" ""
	make_partial db/half 4 0 2
	# 4 of 6 pages: 66.7 %
	run -4 --separate-stderr pagestat -J --expect-cached=95 db
	assert_total files=3 pages=6 cached=4
	assert_equal "$stderr" ""
	run -0 --separate-stderr pagestat -J --expect-cached=66 db
}

@test "--expect-cached: nothing counted and a failure: exit 1 first, no note" {
	mkdir nothing
	run -1 --separate-stderr pagestat --expect-cached=95 missing nothing
	assert_stderr_has "cannot access 'missing'"
	[[ $stderr != *"nothing to judge"* ]] || fail "a failure also said nothing to judge: $stderr"
	run -1 --separate-stderr pagestat -q --expect-cached=95 missing
	assert_equal "stderr with -q: $stderr" "stderr with -q: "
}

@test "--expect-cached: a failure (exit 1) takes precedence over 4" {
	make_dropped cold 2
	run -1 --separate-stderr pagestat --expect-cached=90 cold missing
	assert_stderr_has "missing"
	run -4 pagestat --expect-cached=90 cold
	# and output that cannot be written (3) too
	run -3 --separate-stderr bash -c '"$PAGESTAT" --expect-cached=90 cold >/dev/full'
	assert_stderr_has "write error"
}

@test "--expect-cached: bad values are usage errors" {
	local v
	: >f
	for v in -1 101 100.01 abc '' 50x 1e2 inf nan . ' 50' +5 0x10; do
		refused "--expect-cached" "'$v'" "0 to 100" -- --expect-cached="$v" f
	done
}

# ---- -i/--interval and --count -----------------------------------------

TIME_RE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$'

# A file of PAGES pages written and dropped here, not through make_*: the
# test changes its cache itself while pagestat watches it.
make_unarranged_dropped() {
	pcarrange write "$1" $(($2 * PAGE))
	pcarrange drop "$1"
}

@test "-i 0.2 --count 3 -J: three compact documents, one a line, times increasing" {
	mkdir tree
	make_cached tree/warm 3
	run -0 --separate-stderr pagestat -i 0.2 --count 3 -J tree
	assert_equal "${#lines[@]}" 3
	assert_equal "$(jq -s length <<<"$output")" 3
	local n t prev=
	for n in 0 1 2; do
		# each line is a whole document by itself
		t=$(jq -r .time <<<"${lines[n]}")
		[[ $t =~ $TIME_RE ]] || fail "not an RFC 3339 UTC time: $t"
		[[ -z $prev || $t > $prev ]] || fail "time not increasing: $prev then $t"
		prev=$t
		assert_equal "$(jq -r '.rows[0].cached' <<<"${lines[n]}")" 3
		assert_equal "$(jq -r '.total.cached' <<<"${lines[n]}")" 3
	done
	# no change before the first sample; none since then either
	assert_equal "$(jq -sc 'map(.rows[0].delta)' <<<"$output")" '[null,0,0]'
	assert_equal "$(jq -sc 'map(.total.delta_bytes)' <<<"$output")" '[null,0,0]'
	# the samples are about 0.2 s apart
	local first last
	first=$(jq -r '.time | .[17:23]' <<<"${lines[0]}")
	last=$(jq -r '.time | .[17:23]' <<<"${lines[2]}")
	"$PYTHON3" -c "import sys; d = (float('$last') - float('$first')) % 60; sys.exit(not 0.35 <= d <= 1.5)" ||
		fail "three samples 0.2 s apart took from $first to $last"
}

@test "-i: the delta is the pages cached between two samples" {
	make_unarranged_dropped cold 10
	# pages 2..5 read half-way between the two samples, by a holder that
	# keeps them locked (tests/pcarrange hold): none paged out before the
	# second sample
	local me=$BASHPID
	(sleep 0.5 && "$PCARRANGE" hold "$me" "$PWD/cold" 2 4 >holder 3>&-) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 --format=ndjson -o path,cached,delta cold
	wait
	HOLD_PIDS+=("$(<holder)") HOLD_PATHS+=("$PWD/cold")
	assert_equal "${#lines[@]}" 4
	assert_equal "$(jq -sc 'map([.path, .cached, .delta, .delta_bytes])' <<<"$output")" \
		"[[\"cold\",0,null,null],[null,0,null,null],[\"cold\",4,4,$((4 * PAGE))],[null,4,4,$((4 * PAGE))]]"
	# and when they leave the cache, a negative one (released half-way)
	(sleep 0.5 && end_holds cold && pcarrange drop cold) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 -J -o path,cached,delta cold
	wait
	assert_equal "$(jq -sc 'map(.rows[0].delta)' <<<"$output")" '[null,-4]'
	assert_equal "$(jq -sc 'map(.total.delta_bytes)' <<<"$output")" "[null,$((-4 * PAGE))]"
}

@test "-i with ndjson, CSV and the table: time and delta in each" {
	mkdir tree
	make_cached tree/a 2
	make_partial tree/b 4 1 1
	run -0 --separate-stderr pagestat -i 0.1 --count 2 -a --format=ndjson tree
	assert_equal "${#lines[@]}" 8
	assert_equal "$(jq -s '[.[] | select(.time | test("'"${TIME_RE//\\/\\\\}"'"))] | length' <<<"$output")" 8
	assert_equal "$(jq -sc 'map(.delta)' <<<"$output")" '[null,null,null,null,0,0,0,0]'
	assert_equal "$(jq -sc '[.[].time] | unique | length' <<<"$output")" 2
	# CSV: one header, a time column first, delta and delta_bytes empty at first
	run -0 --separate-stderr pagestat -i 0.1 --count 2 -a --csv -o path,cached,delta tree
	assert_equal "${#lines[@]}" 7
	assert_line --index 0 time,path,cached,cached_bytes,delta,delta_bytes
	assert_line --regexp '^[0-9T:.-]+Z,tree/a,2,'"$((2 * PAGE))"',,$'
	assert_line --regexp '^[0-9T:.-]+Z,tree/b,1,'"$PAGE"',0,0$'
	assert_line --index 6 --regexp '^[0-9T:.-]+Z,tree,3,'"$((3 * PAGE))"',0,0$'
	# the table: each sample under its time, DELTA '-' at first
	run -0 --separate-stderr pagestat -i 0.1 --count 2 -p -o cached,delta,path tree
	assert_equal "${#lines[@]}" 6
	[[ ${lines[0]} =~ $TIME_RE && ${lines[3]} =~ $TIME_RE ]] || fail "no time lines: $output"
	assert_line --index 1 --regexp '^CACHED +DELTA +PATH$'
	assert_line --index 2 --regexp '^ +3 +- tree$'
	assert_line --index 5 --regexp '^ +3 +0 tree$'
	# an empty line between the samples (bats drops it from lines)
	[[ $output == *$'tree\n\n'* ]] || fail "no empty line between samples: $output"
}

@test "-i: the table shows a signed change, +bytes and -pages" {
	make_unarranged_dropped cold 8
	(sleep 0.5 && pcarrange cache cold 0 8) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 -b -o cached,delta,path cold
	wait
	assert_line --index 5 --regexp "^ *$((8 * PAGE)) +\\+$((8 * PAGE)) cold\$"
	(sleep 0.5 && pcarrange drop cold) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 -p -o cached,delta,path cold
	wait
	assert_line --index 5 --regexp '^ +0 +-8 cold$'
}

@test "-i: each sample is written out as soon as it is done" {
	mkdir tree
	make_cached tree/a 2
	"$PAGESTAT" -i 0.3 -J tree >out &
	local pid=$!
	sleep 1
	# still running, and the samples so far are in the file (not buffered)
	kill -0 "$pid"
	local n
	n=$(jq -s length out)
	kill -TERM "$pid"
	wait "$pid" || fail "exit status $? after SIGTERM"
	((n >= 2)) || fail "only $n samples written after 1 s at 0.3 s"
}

@test "-i without --count: SIGINT ends it after a whole sample, status 0" {
	mkdir tree
	make_cached tree/a 2
	"$PAGESTAT" -i 0.2 -J tree >out 2>err &
	local pid=$! status=0
	sleep 0.7
	kill -INT "$pid"
	wait "$pid" || status=$?
	assert_equal "status $status" "status 0"
	assert_equal "$(cat err)" ""
	# every line is a whole document: the last one was finished
	local n
	n=$(wc -l <out)
	((n >= 2)) || fail "only $n samples"
	assert_equal "$(jq -s length out)" "$n"
	assert_equal "$(tail -c 1 out | od -An -c | tr -d ' ')" '\n'
}

@test "-i: SIGTERM cuts a long interval short" {
	mkdir tree
	make_cached tree/a 2
	local start=$SECONDS status=0
	"$PAGESTAT" -i 100 --format=ndjson tree >out &
	local pid=$!
	sleep 0.5
	kill -TERM "$pid"
	wait "$pid" || status=$?
	assert_equal "status $status" "status 0"
	((SECONDS - start < 10)) || fail "took $((SECONDS - start)) s to stop"
	assert_equal "$(jq -s length out)" 2
}

@test "-i: a file that cannot be inspected in any sample makes the status 1" {
	make_cached here 2
	run -1 --separate-stderr pagestat -i 0.1 --count 2 -J here missing
	assert_equal "$(jq -sc 'map(.errors)' <<<"$output")" '[1,1]'
	assert_equal "$(jq -sc 'map(.rows[0].delta)' <<<"$output")" '[null,0]'
}

@test "-i with --expect-cached: judged on the last sample" {
	make_unarranged_dropped cold 4
	(sleep 0.5 && pcarrange cache cold 0 4) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 --expect-cached=100 -J cold
	wait
	assert_equal "$(jq -sc 'map(.total.cached)' <<<"$output")" '[0,4]'
}

@test "-i with --expect-cached: nothing counted in the last sample is exit 4, said once; pages then judged" {
	mkdir db
	run -4 --separate-stderr "$PAGESTAT" -i 0.1 --count 3 --expect-cached=90 -J db
	assert_equal "$(jq -sc 'map(.total.pages)' <<<"$output")" '[0,0,0]'
	assert_equal "$stderr" "$(nothing_to_judge 90)"

	# a file comes (whole, by rename) between the two samples
	make_unarranged_dropped later 2
	(sleep 0.5 && pcarrange cache later 0 2 && mv later db/) &
	run -0 --separate-stderr "$PAGESTAT" -i 1 --count 2 --expect-cached=90 -J db
	wait
	assert_equal "$(jq -sc 'map(.total.pages), map(.total.cached)' <<<"$output")" \
		"$(printf '%s\n' '[0,2]' '[0,2]')"
	assert_equal "$stderr" ""
}

@test "-i, --count: bad values and combinations are usage errors" {
	local v
	: >f
	for v in 0 -1 abc '' 1e999 1e3 nan inf 0.0001 2147483648 ' 1'; do
		refused "--interval" "'$v'" "seconds" -- -i "$v" f
	done
	refused "--interval" "'x'" -- --interval=x f
	for v in 0 -3 x '' 1.5; do
		refused "--count" "'$v'" "whole number" -- -i 1 --count="$v" f
	done
	refused "--count needs -i" -- --count=2 f
	refused "column 'delta'" "-i" -- -o path,delta f
	refused "--sort" "'delta'" -- -i 1 --count 1 -s delta f
}

# ---- --progress --------------------------------------------------------

# Run pagestat ARGS... under a pseudo-terminal (stdin, stdout and stderr
# all on it, unless REDIRECT, a shell redirection, says otherwise); what
# the terminal received is in $output.  PAGESTAT_PROGRESS_DELAY_MS passes
# through.
on_terminal() {
	command -v script >/dev/null || skip "script (util-linux) is not installed"
	local cmd
	printf -v cmd '%q ' "$PAGESTAT" "$@"
	run script -qec "$cmd ${REDIRECT-}" /dev/null
}

# A tree of FILES small files, all cached.
make_many() {
	local n
	mkdir tree
	for ((n = 0; n < $1; n++)); do
		printf x >"tree/f$n"
	done
}

METER_RE=$'pagestat: [0-9]+ files?, [0-9]+ files/s, [0-9.]+[BKMGTPE]? cached'

@test "--progress on a terminal: a meter on stderr, erased before the table" {
	make_many 50
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal --progress -o files,path tree
	assert_success
	[[ $output =~ $METER_RE ]] || fail "no meter: $(printf %q "$output")"
	# erased (\r ESC [K) after its last drawing, and the table follows
	local after=${output##*cached}
	[[ $after == $'\r\e[K'* ]] || fail "the meter is not erased: $(printf %q "$after")"
	[[ $after == *FILES*PATH*$'\r\n   50 tree'* ]] || fail "no table after it: $(printf %q "$after")"
	# the count it showed is at most the files there are
	local shown=${BASH_REMATCH[0]#pagestat: }
	((${shown%% *} <= 50)) || fail "meter says ${shown%% *} files"
}

@test "progress: not before the delay, not with --no-progress, never on a pipe" {
	make_many 20
	# the default wait (about a second) is longer than this walk
	on_terminal -o files,path tree
	assert_success
	[[ ! $output =~ $METER_RE ]] || fail "a meter within the first second: $(printf %q "$output")"
	# with no wait, the default shows it; --no-progress does not
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal tree
	[[ $output =~ $METER_RE ]] || fail "no meter with no delay"
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal --progress --no-progress tree
	[[ ! $output =~ $METER_RE ]] || fail "a meter with --no-progress"
	# stderr a file: not on it, and not on the terminal
	PAGESTAT_PROGRESS_DELAY_MS=0 REDIRECT='2>err' on_terminal --progress tree
	[[ ! $output =~ $METER_RE ]] || fail "a meter with stderr a file: $(printf %q "$output")"
	run cat err
	assert_output ""
	PAGESTAT_PROGRESS_DELAY_MS=0 run --separate-stderr pagestat --progress tree
	assert_success
	assert_equal "$stderr" ""
}

@test "progress: with stdout the same terminal, none for JSON; with stdout a file, yes" {
	make_many 20
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal --progress -J tree
	[[ ! $output =~ $METER_RE ]] || fail "a meter among JSON rows: $(printf %q "$output")"
	PAGESTAT_PROGRESS_DELAY_MS=0 REDIRECT='>out' on_terminal --progress -J tree
	[[ $output =~ $METER_RE ]] || fail "no meter with stdout a file: $(printf %q "$output")"
	assert_equal "$(jq -r '.total.files' out)" 20
}

@test "progress: a table past 1000 rows on the terminal stops the meter before its rows" {
	make_many 1100
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal --progress -a -o files,path tree
	assert_success
	[[ $output =~ $METER_RE ]] || fail "no meter at all"
	# nothing of the meter after the header: the rows are clean lines
	local after=${output#*FILES PATH}
	[[ $after != *files/s* && $after != *$'\e['* ]] || fail "a meter among the rows"
	assert_equal "$(grep -c '^    1 tree/f' <<<"${after//$'\r'/}")" 1100
}

@test "progress with -i: shown in each sample, erased before each table" {
	make_many 30
	PAGESTAT_PROGRESS_DELAY_MS=0 on_terminal --progress -i 0.1 --count 2 -o files,path tree
	assert_success
	local meters
	meters=$(grep -o 'files/s' <<<"$output" | wc -l)
	((meters >= 2)) || fail "$meters meters in 2 samples"
	assert_equal "$(grep -c $'\e\\[KFILES PATH' <<<"$output")" 2
}
