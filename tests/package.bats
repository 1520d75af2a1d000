#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The Debian package, as a user gets it: dpkg-buildpackage -us -uc -b from
# the distributed tree (make distdir), lintian on the .changes, then, as
# root on this machine, apt-get install of the .debs, the debconf question
# answered yes and no (debconf-set-selections, dpkg-reconfigure), the
# answer applied again by an upgrade, dpkg-statoverride limiting pagestat
# to a group, and apt-get purge leaving nothing.  The build skips make
# check (DEB_BUILD_OPTIONS=nocheck) since the suite running this has just
# run it, and compiles on every processor (parallel=N, as a builder's
# DEB_BUILD_OPTIONS would say): PAGESTAT_DEB_BUILD_OPTIONS= builds
# serially, with make check.  The tests run in
# order and share the build; teardown_file purges what they installed.

load test_helper

PROGRAM=/usr/bin/pagestat
GROUP=pagestat-test

setup_file() {
	export PKG_DIR=$BATS_FILE_TMPDIR/pkg
}

setup() {
	[[ ${PAGESTAT_PACKAGE_TEST-} != no ]] ||
		skip "PAGESTAT_PACKAGE_TEST=no (the package's own build, or make distcheck)"
	require_root "installing a package"
	local tool
	for tool in dpkg-buildpackage dh lintian apt-get debconf-set-selections setcap getcap; do
		command -v "$tool" >/dev/null ||
			skip "$tool is not installed (apt-get install dpkg-dev debhelper lintian libcap2-bin)"
	done
	BUILDDIR=${PAGESTAT%/src/pagestat}
	[[ -f $BUILDDIR/Makefile ]] || skip "PAGESTAT ($PAGESTAT) is not in a configured build tree"
	if [[ $BATS_TEST_NUMBER -eq 1 ]] && dpkg-query -W -f='${Status}' pagestat 2>/dev/null |
		grep -q ' installed$'; then
		skip "a pagestat package is installed on this system: purge it first (this test installs its own and purges it)"
	fi
	export DEBIAN_FRONTEND=noninteractive
}

teardown_file() {
	[[ ${PAGESTAT_PACKAGE_TEST-} != no && $EUID -eq 0 ]] || return 0
	# the override first: one naming a group removed would fail a later install
	if dpkg-statoverride --list "$PROGRAM" | grep -q " $GROUP "; then
		dpkg-statoverride --remove "$PROGRAM" || true
	fi
	if [[ -e $BATS_FILE_TMPDIR/installed ]]; then
		timeout 300 apt-get purge -y -q pagestat pagestat-dbgsym >/dev/null 2>&1 || true
	fi
	if getent group "$GROUP" >/dev/null; then groupdel "$GROUP" || true; fi
	if [[ -n ${NOBODY_DIR-} ]]; then rm -rf -- "$NOBODY_DIR"; fi
	rm -rf -- /var/tmp/pagestat-package.*
}

# The built .deb of pagestat, or skip: the tests after the build need it.
need_package() {
	DEB=$(ls "$PKG_DIR"/pagestat_*.deb 2>/dev/null) || skip "no package was built (see the first test)"
}

# Every path below the directories a package may touch, sorted; what
# the package system and the machine itself change (dpkg's and apt's
# state, caches, logs, temporary files) left out.
system_files() {
	find /etc /usr /var /opt /srv -xdev \
		\( -path /var/lib/dpkg -o -path /var/lib/apt -o -path /var/cache -o -path /var/log \
		-o -path /var/tmp -o -path /var/backups -o -path /var/mail -o -path /var/spool \
		-o -path /var/lib/systemd/coredump -o -path /var/lib/dhcp \) -prune -o -print | sort
}

# A root-only file of 3 pages, all cached, that nobody may not open, in a
# directory nobody can reach: FILE names it.
make_secret() {
	NOBODY_DIR=$(mktemp -d /var/tmp/pagestat-package.XXXXXX)
	chmod 755 "$NOBODY_DIR"
	FILE=$NOBODY_DIR/secret
	make_cached "$FILE" 3
	chmod 600 "$FILE"
}

# What nobody (no group but nogroup, or GROUPS given) learns of FILE with
# the installed pagestat: its output as JSON, its status (126: it may not
# run it).  Through env: setpriv itself execs with root's capabilities
# still effective (it keeps them for its own work until the exec), which
# would pass over the mode's execute bits.
# usage: nobody_sees [--groups=GID]
nobody_sees() {
	rearrange || return
	local status=0
	timeout 60 setpriv --reuid=nobody --regid=nogroup "${1:---clear-groups}" \
		env -- "$PROGRAM" -J "$FILE" || status=$?
	note_if_disturbed
	return "$status"
}

# dpkg-reconfigure with pagestat/setcap answered ANSWER (true or false).
answer() {
	echo "pagestat pagestat/setcap boolean $1" | debconf-set-selections
	timeout 300 dpkg-reconfigure -fnoninteractive pagestat
}

@test "package: the version of debian/changelog is configure's; dpkg-buildpackage -us -uc -b builds it; lintian finds no error or warning" {
	local version src
	version=$("$PAGESTAT" --version | sed -n '1s/^pagestat //p')
	run -0 dpkg-parsechangelog -l "$BATS_TEST_DIRNAME/../debian/changelog" -S Version
	assert_output "$version-1"
	mkdir -p "$PKG_DIR"
	src=$PKG_DIR/pagestat-$version
	run -0 make -s -C "$BUILDDIR" distdir distdir="$src" top_distdir="$src"
	cd "$src"
	# as from a shell: none of the make check's flags (-s would hide the
	# compiler's command lines checked below, -j its jobs)
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
		DEB_BUILD_OPTIONS="${PAGESTAT_DEB_BUILD_OPTIONS-nocheck parallel=$(nproc)}" \
		timeout 1800 dpkg-buildpackage -us -uc -b >"$PKG_DIR/build.log" 2>&1 ||
		fail "dpkg-buildpackage failed: $(tail -n 30 "$PKG_DIR/build.log")"
	cd "$PKG_DIR"
	assert_file_exists "pagestat_${version}-1_$(dpkg --print-architecture).deb"
	# the shared libraries and the hardening flags: -z now, PIE, fortified
	dpkg-deb -x pagestat_*.deb root
	run -0 readelf -d root/usr/bin/pagestat
	assert_output --partial "Shared library: [libcap.so"
	assert_output --partial "Shared library: [libjansson.so"
	assert_output --regexp "FLAGS.*BIND_NOW"
	assert_output --regexp "FLAGS_1.*PIE"
	run -0 readelf -s --wide root/usr/bin/pagestat
	assert_output --partial "_chk@"
	grep -qE '^gcc .* -fstack-protector-strong .*-o src/pagestat-main\.o ' "$PKG_DIR/build.log" ||
		fail "main.c was not compiled with dpkg-buildflags' -fstack-protector-strong"
	# lintian: no E: nor W: (I: and P: are shown in the log)
	run -0 timeout 600 lintian --pedantic --display-info "pagestat_${version}-1_$(dpkg --print-architecture).changes"
	printf '%s\n' "$output" | grep -v -e 'running with root privileges' -e '^$' |
		sed 's/^/# lintian: /' >&3 || true
	refute_line --regexp '^[EW]: '
}

@test "package: apt-get install ./*.deb: each file where Debian keeps it, /etc/pagestat/textfile.conf a conffile, the timer not enabled, no capability by default" {
	need_package
	system_files >"$BATS_FILE_TMPDIR/before"
	debconf-show pagestat >"$BATS_FILE_TMPDIR/debconf-before" 2>&1 || true
	cd "$PKG_DIR"
	: >"$BATS_FILE_TMPDIR/installed"
	run -0 timeout 300 apt-get install -y -q --no-install-recommends ./*.deb
	run -0 dpkg-query -W -f='${Status}' pagestat
	assert_output "install ok installed"
	local f
	for f in /usr/bin/pagestat /usr/share/man/man1/pagestat.1.gz \
		/usr/share/bash-completion/completions/pagestat \
		/usr/share/zsh/vendor-completions/_pagestat \
		/usr/share/fish/vendor_completions.d/pagestat.fish \
		/usr/share/pagestat/pagestat.schema.json /usr/share/pagestat/pagestat.rules.yml \
		/lib/systemd/system/pagestat-textfile.service /lib/systemd/system/pagestat-textfile.timer \
		/lib/systemd/system/pagestat-lock@.service \
		/usr/libexec/pagestat/textfile /etc/pagestat/textfile.conf \
		/usr/share/doc/pagestat/copyright; do
		assert_file_exists "$f"
	done
	run -0 dpkg-query -W -f='${Conffiles}' pagestat
	assert_output --partial "/etc/pagestat/textfile.conf"
	run -0 find /etc/systemd -name 'pagestat*'
	assert_output ""
	run -0 getcap "$PROGRAM"
	assert_output ""
	run -0 debconf-show pagestat
	assert_output --regexp 'pagestat/setcap: false$'
	# it runs: as root, on a file of exactly known cache
	make_secret
	rearrange
	run -0 timeout 60 "$PROGRAM" -J "$FILE"
	assert_equal "$(json_field '.rows[0].cached')" 3
	run -0 "$PROGRAM" --version
	assert_line -n 0 "pagestat $(dpkg-query -W -f='${Version}' pagestat | sed 's/-[^-]*$//')"
	assert_line --partial "License MIT"
	# the installed units, with their command and man page there
	if command -v systemd-analyze >/dev/null; then
		run -0 systemd-analyze verify /lib/systemd/system/pagestat-textfile.service \
			/lib/systemd/system/pagestat-textfile.timer
		assert_output ""
	fi
	# nobody is refused the root-only file
	run -1 --separate-stderr nobody_sees
	assert_equal "$(json_field '.rows[0].errno')" EACCES
}

@test "package: debconf yes gives every user the cache of a root-only file; an upgrade applies it again; no takes it away" {
	need_package
	[[ -e $BATS_FILE_TMPDIR/installed ]] || skip "not installed (see the test before)"
	make_secret
	run -0 answer true
	run -0 getcap "$PROGRAM"
	assert_output --regexp "^$PROGRAM cap_dac_read_search,cap_fowner=ep$"
	run -0 --separate-stderr nobody_sees
	assert_equal "$(json_field '.rows[0].cached')" 3
	assert_equal "$(json_field '.rows[0].cached_bytes')" $((3 * PAGE))
	assert_equal "$(json_field .errors)" 0

	# dpkg unpacks a new file without them; the postinst sets them again
	cd "$PKG_DIR"
	run -0 timeout 300 dpkg -i "$DEB"
	run -0 getcap "$PROGRAM"
	assert_output "$PROGRAM cap_dac_read_search,cap_fowner=ep"

	run -0 answer false
	run -0 getcap "$PROGRAM"
	assert_output ""
	run -1 --separate-stderr nobody_sees
	assert_equal "$(json_field '.rows[0].errno')" EACCES
	run -0 debconf-show pagestat
	assert_output --regexp 'pagestat/setcap: false$'
}

@test "package: dpkg-statoverride 0754 with a group, then yes: its members see every file's cache, others cannot run it" {
	need_package
	[[ -e $BATS_FILE_TMPDIR/installed ]] || skip "not installed (see the tests before)"
	make_secret
	groupadd --system "$GROUP"
	local gid
	gid=$(getent group "$GROUP" | cut -d: -f3)
	# the README's and the man page's recipe
	run -0 dpkg-statoverride --update --add root "$GROUP" 0754 "$PROGRAM"
	run -0 answer true
	assert_equal "$(stat -c '%U %G %a' "$PROGRAM")" "root $GROUP 754"
	run -0 getcap "$PROGRAM"
	assert_output "$PROGRAM cap_dac_read_search,cap_fowner=ep"
	run -0 --separate-stderr nobody_sees --groups="$gid"
	assert_equal "$(json_field '.rows[0].cached')" 3
	run -126 --separate-stderr nobody_sees
	# an upgrade keeps the override and the capabilities
	cd "$PKG_DIR"
	run -0 timeout 300 dpkg -i "$DEB"
	assert_equal "$(stat -c '%U %G %a' "$PROGRAM")" "root $GROUP 754"
	run -0 getcap "$PROGRAM"
	assert_output "$PROGRAM cap_dac_read_search,cap_fowner=ep"
	run -0 dpkg-statoverride --remove "$PROGRAM"
	run -0 groupdel "$GROUP"
	run -0 answer false
}

@test "package: apt-get purge leaves nothing of it on the system" {
	need_package
	[[ -e $BATS_FILE_TMPDIR/installed ]] || skip "not installed (see the tests before)"
	run -0 timeout 300 apt-get purge -y -q pagestat pagestat-dbgsym
	rm -f "$BATS_FILE_TMPDIR/installed"
	run dpkg-query -W -f='${Status}' pagestat
	refute_output --partial installed
	rm -rf -- /var/tmp/pagestat-package.*
	system_files >"$BATS_FILE_TMPDIR/after"
	run diff "$BATS_FILE_TMPDIR/before" "$BATS_FILE_TMPDIR/after"
	assert_output ""
	# debconf forgot the question (its *-old files are the backups of the
	# state before its last change)
	run debconf-show pagestat
	assert_output "$(cat "$BATS_FILE_TMPDIR/debconf-before")"
	run -1 grep -l 'pagestat/setcap' /var/cache/debconf/config.dat /var/cache/debconf/templates.dat
	run -1 dpkg-statoverride --list "$PROGRAM"
}
