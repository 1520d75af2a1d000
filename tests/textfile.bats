#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# pagestat-textfile.service's command (contrib/textfile/textfile, built
# with the installation's names) on arranged files: what it reads from its
# configuration, the export it writes (atomically, exact figures), what it
# refuses; and the units: systemd-analyze verify, the sandbox's settings,
# the timer.  tests/fleet.bats runs the same command under node_exporter
# and Prometheus.

load test_helper

setup() {
	[[ -x ${TEXTFILE_SCRIPT-} ]] || skip "TEXTFILE_SCRIPT (contrib/textfile/textfile) is not built"
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# The value of the variable NAME of the build tree's Makefile, expanded
# (MAKEFLAGS cleared: a make above may have -w, as dh_auto_test's has).
# usage: make_var NAME
make_var() {
	local builddir=${PAGESTAT%/src/pagestat}
	[[ -f $builddir/Makefile ]] || skip "PAGESTAT is not in a configured build tree"
	printf 'print-%%:\n\t@printf "%%s\\n" "$($*)"\n' >"$BATS_TEST_TMPDIR/print.mk"
	MAKEFLAGS= MFLAGS= make -s --no-print-directory -C "$builddir" -f Makefile \
		-f "$BATS_TEST_TMPDIR/print.mk" "print-$1"
}

# The script with this build's pagestat, writing out/pagestat.prom unless
# told otherwise; its status as it ran, bounded in time.
# usage: textfile ARG...
textfile() {
	rearrange || return
	local status=0
	timeout 120 "$TEXTFILE_SCRIPT" --pagestat="$PAGESTAT" "$@" || status=$?
	note_if_disturbed
	((status != 124)) || echo "the textfile script did not end within 120 s" >&2
	return "$status"
}

# The value of the sample NAME{LABELS} in out/pagestat.prom.
# usage: sample NAME LABELS
sample() {
	local want=$1
	[[ -z $2 ]] || want="$1{$2}"
	awk -v want="$want" '$1 == want { print $2; found = 1 } END { exit !found }' out/pagestat.prom
}

@test "textfile: one sample per listed path, exact bytes; comments, blank lines and options as written" {
	mkdir -p out data/sub
	make_cached hot 4
	make_dropped data/cold 3
	make_cached data/sub/f 2
	cat >textfile.conf <<-EOF
		# a comment, then a blank line and one of blanks

		 	
		$PWD/hot
		--max-depth=1
		#$PWD/data/cold
		$PWD/data
	EOF
	run -0 --separate-stderr textfile --config=textfile.conf --output="$PWD/out/pagestat.prom"
	assert_output ""
	assert_equal "$stderr" ""
	run -0 sample pagestat_cached_bytes "path=\"$PWD/hot\",type=\"file\""
	assert_output $((4 * PAGE))
	run -0 sample pagestat_size_bytes "path=\"$PWD/hot\",type=\"file\""
	assert_output $((4 * PAGE))
	run -0 sample pagestat_cached_bytes "path=\"$PWD/data\",type=\"directory\""
	assert_output $((2 * PAGE))
	run -0 sample pagestat_files "path=\"$PWD/data\",type=\"directory\""
	assert_output 2
	# --max-depth=1: the subdirectory's row too
	run -0 sample pagestat_cached_bytes "path=\"$PWD/data/sub\",type=\"directory\""
	assert_output $((2 * PAGE))
	run -0 sample pagestat_errors ""
	assert_output 0
	# the commented-out path is not measured on its own
	run -1 sample pagestat_size_bytes "path=\"$PWD/data/cold\",type=\"file\""
	# nothing else in the directory: the temporary file was renamed
	run -0 ls -A out
	assert_output pagestat.prom
	# 0644 less the umask, for node_exporter's user
	assert_equal "$(stat -c %a out/pagestat.prom)" "$(printf '%o' $((0644 & ~$(umask))))"
}

@test "textfile: a path that cannot be inspected: exit 1, the export written with pagestat_errors 1" {
	mkdir out
	make_cached hot 2
	printf '%s\n' "$PWD/hot" "$PWD/missing" >textfile.conf
	run -1 textfile --config=textfile.conf --output="$PWD/out/pagestat.prom"
	run -0 sample pagestat_errors ""
	assert_output 1
	run -0 sample pagestat_cached_bytes "path=\"$PWD/hot\",type=\"file\""
	assert_output $((2 * PAGE))
	run -1 grep -F "$PWD/missing" out/pagestat.prom
}

@test "textfile: a configuration it refuses: exit 2, the message names the line, the old export stays" {
	mkdir out
	make_cached hot 1
	echo old >out/pagestat.prom
	local conf line
	for line in "relative/path" "--format=json" "-J" "--output-file=/tmp/x" "-i1" "--interval=1" \
		"--evict" "--warm" "--warm-from=snap" "--help" "-V"; do
		printf '%s\n' "# line 1" "$PWD/hot" "$line" >textfile.conf
		run -2 --separate-stderr textfile --config=textfile.conf --output="$PWD/out/pagestat.prom"
		assert_equal "$output" ""
		[[ $stderr == "pagestat-textfile: textfile.conf, line 3: '$line'"* ]] ||
			fail "for '$line': $stderr"
		assert_equal "$(cat out/pagestat.prom)" old
	done
	# a path twice would give Prometheus two samples with the same labels
	printf '%s\n' "$PWD/hot" "$PWD/hot" >textfile.conf
	run -2 --separate-stderr textfile --config=textfile.conf --output="$PWD/out/pagestat.prom"
	assert_equal "$stderr" "pagestat-textfile: textfile.conf, line 2: '$PWD/hot' is listed twice"
	# no path at all (the shipped file lists none)
	run -2 --separate-stderr textfile --config="$TEXTFILE_CONF" --output="$PWD/out/pagestat.prom"
	assert_equal "$stderr" "pagestat-textfile: $TEXTFILE_CONF lists no path (one absolute path a line)"
	run -2 --separate-stderr textfile --config=absent.conf
	assert_equal "$stderr" "pagestat-textfile: cannot read the configuration 'absent.conf'"
	run -2 --separate-stderr textfile --bogus
	[[ $stderr == "pagestat-textfile: unknown argument '--bogus'"* ]] || fail "$stderr"
	assert_equal "$(cat out/pagestat.prom)" old
	run -0 ls -A out
	assert_output pagestat.prom
}

@test "textfile: its defaults are the installation's configuration, node_exporter's Debian directory and the installed pagestat" {
	local sysconfdir bindir
	sysconfdir=$(make_var sysconfdir)
	bindir=$(make_var bindir)
	run -0 "$TEXTFILE_SCRIPT" --help
	assert_output --partial "($sysconfdir/pagestat/textfile.conf by default"
	assert_output --partial "(/var/lib/prometheus/node-exporter/pagestat.prom)"
	assert_output --partial "($bindir/pagestat)"
}

# ---- the units --------------------------------------------------------------

# The value of KEY in the unit FILE (the last one set, as systemd takes it).
# usage: unit_value FILE KEY
unit_value() {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

@test "units: systemd-analyze verify finds nothing in the service and the timer" {
	[[ -f ${TEXTFILE_SERVICE-} ]] || skip "configured --without-systemdsystemunitdir"
	command -v systemd-analyze >/dev/null || skip "systemd-analyze is not installed (apt-get install systemd)"
	# the command must exist where the unit says: this build's script, and
	# the man page of Documentation= from the source tree
	mkdir units man
	ln -s "$(cd "$BATS_TEST_DIRNAME/../doc" && pwd)" man/man1
	local exec
	exec=$(unit_value "$TEXTFILE_SERVICE" ExecStart)
	sed "s|^ExecStart=[^ ]*|ExecStart=$TEXTFILE_SCRIPT|" "$TEXTFILE_SERVICE" >units/pagestat-textfile.service
	cp "$TEXTFILE_TIMER" units/
	run -0 env MANPATH="$PWD/man" systemd-analyze verify \
		units/pagestat-textfile.service units/pagestat-textfile.timer
	assert_output ""
	# and it does fail on a misspelt setting
	echo 'ProtectSytem=strict' >>units/pagestat-textfile.service
	run env MANPATH="$PWD/man" systemd-analyze verify units/pagestat-textfile.service
	assert_output --partial "Unknown key 'ProtectSytem'"
}

@test "units: the service runs the installed script into the directory it may write, sandboxed; the timer every minute, not enabled" {
	[[ -f ${TEXTFILE_SERVICE-} ]] || skip "configured --without-systemdsystemunitdir"
	local libexec
	libexec=$(make_var pkglibexecdir)
	local s=$TEXTFILE_SERVICE
	assert_equal "$(unit_value "$s" ExecStart)" "$libexec/textfile --output=\${TEXTFILE}"
	assert_equal "$(unit_value "$s" Environment)" "TEXTFILE=/var/lib/prometheus/node-exporter/pagestat.prom"
	# the one directory it writes is the output's
	assert_equal "$(unit_value "$s" ReadWritePaths)" "-/var/lib/prometheus/node-exporter"
	assert_equal "$(unit_value "$s" Type)" oneshot
	assert_equal "$(unit_value "$s" SuccessExitStatus)" 1
	assert_equal "$(unit_value "$s" ProtectSystem)" strict
	assert_equal "$(unit_value "$s" PrivateTmp)" yes
	assert_equal "$(unit_value "$s" PrivateNetwork)" yes
	assert_equal "$(unit_value "$s" NoNewPrivileges)" yes
	assert_equal "$(unit_value "$s" CapabilityBoundingSet)" "CAP_DAC_READ_SEARCH CAP_FOWNER"
	# a deny list: an allow list would refuse cachestat (see the unit)
	[[ $(unit_value "$s" SystemCallFilter) == "~"* ]] || fail "SystemCallFilter is an allow list"
	# no [Install]: the timer starts it
	run -1 grep -q '^\[Install\]' "$s"
	assert_equal "$(unit_value "$TEXTFILE_TIMER" OnCalendar)" minutely
	assert_equal "$(unit_value "$TEXTFILE_TIMER" WantedBy)" timers.target
	if command -v systemd-analyze >/dev/null; then
		run -0 systemd-analyze calendar --iterations=2 minutely
		assert_line --regexp '^ *Next elapse: .*:00 UTC$'
	fi
}
