#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install puts the binary, the man page, the three completions and
# the textfile service (its script, configuration, units and rules)
# where each belongs, and configure's --with-*-completion-dir options
# move the completions.  Runs make in the build tree of the pagestat
# under test, and configure in a copy made by `make distdir`.

load test_helper

setup() {
	BUILDDIR=${PAGESTAT%/src/pagestat}
	[[ -f $BUILDDIR/Makefile && $PAGESTAT == */src/pagestat ]] ||
		skip "PAGESTAT ($PAGESTAT) is not in a configured build tree"
	command -v make >/dev/null || skip "make is not installed"
	cd "$BATS_TEST_TMPDIR"
	printf 'print-%%:\n\t@printf "%%s\\n" "$($*)"\n' >print.mk
}

# The value of a variable of the Makefile in DIR, expanded.  Without the
# MAKEFLAGS of a make above (dh_auto_test's has -w, which prints
# "Entering directory" on standard output whatever this make is told).
# usage: make_var DIR NAME
make_var() {
	MAKEFLAGS= MFLAGS= make -s --no-print-directory -C "$1" -f Makefile \
		-f "$BATS_TEST_TMPDIR/print.mk" "print-$2"
}

# Every file below DIR, relative to it, sorted.
files_below() {
	(cd "$1" && find . -type f | sed 's|^\./||' | sort)
}

@test "make install DESTDIR: bin, man1, the completions in bash-completion's, zsh's and fish's directories, the textfile service" {
	local prefix datadir srcdir bash_dir zsh_dir fish_dir sysconfdir libexec unitdir
	local dest=$BATS_TEST_TMPDIR/dest
	prefix=$(make_var "$BUILDDIR" prefix)
	datadir=$(make_var "$BUILDDIR" datadir)
	srcdir=$(make_var "$BUILDDIR" abs_top_srcdir)
	sysconfdir=$(make_var "$BUILDDIR" sysconfdir)
	libexec=$(make_var "$BUILDDIR" pkglibexecdir)
	unitdir=$(make_var "$BUILDDIR" systemdsystemunitdir)
	[[ $prefix == /* && $datadir == "$prefix"/* ]] || fail "prefix '$prefix', datadir '$datadir'"
	[[ $unitdir != no ]] || skip "configured --without-systemdsystemunitdir"
	# the directories configure chose (its defaults are the next tests'; the
	# Debian package's build gives its own)
	bash_dir=$(make_var "$BUILDDIR" bashcompletiondir)
	zsh_dir=$(make_var "$BUILDDIR" zshcompletiondir)
	fish_dir=$(make_var "$BUILDDIR" fishcompletiondir)

	run -0 make -s -C "$BUILDDIR" install DESTDIR="$dest"
	run -0 files_below "$dest"
	assert_equal "$output" "$(printf '%s\n' \
		"${prefix#/}/bin/pagestat" \
		"${datadir#/}/man/man1/pagestat.1" \
		"${bash_dir#/}/pagestat" \
		"${zsh_dir#/}/_pagestat" \
		"${fish_dir#/}/pagestat.fish" \
		"${datadir#/}/pagestat/pagestat.schema.json" \
		"${datadir#/}/pagestat/pagestat.rules.yml" \
		"${sysconfdir#/}/pagestat/textfile.conf" \
		"${libexec#/}/textfile" \
		"${unitdir#/}/pagestat-textfile.service" \
		"${unitdir#/}/pagestat-textfile.timer" \
		"${unitdir#/}/pagestat-lock@.service" | sort)"
	cmp "$srcdir/doc/pagestat.schema.json" "$dest$datadir/pagestat/pagestat.schema.json"
	run -0 "$dest$prefix/bin/pagestat" --version
	assert_line --index 0 --regexp '^pagestat [0-9]'
	cmp "$srcdir/doc/pagestat.1" "$dest$datadir/man/man1/pagestat.1"
	# the completions as src/mkcompletions made them in the build tree
	cmp "$BUILDDIR/completions/pagestat" "$dest$bash_dir/pagestat"
	cmp "$BUILDDIR/completions/_pagestat" "$dest$zsh_dir/_pagestat"
	cmp "$BUILDDIR/completions/pagestat.fish" "$dest$fish_dir/pagestat.fish"
	cmp "$srcdir/contrib/prometheus/pagestat.rules.yml" "$dest$datadir/pagestat/pagestat.rules.yml"
	cmp "$srcdir/contrib/textfile/textfile.conf" "$dest$sysconfdir/pagestat/textfile.conf"
	cmp "$srcdir/contrib/systemd/pagestat-textfile.timer" "$dest$unitdir/pagestat-textfile.timer"
	[[ -x $dest$libexec/textfile ]] || fail "$libexec/textfile is not executable"
	# the installed names, not the source's placeholders
	run -1 grep -nE '@[a-z]+@' "$dest$libexec/textfile" "$dest$unitdir/pagestat-textfile.service"
	grep -qx "ExecStart=$libexec/textfile --output=\${TEXTFILE}" "$dest$unitdir/pagestat-textfile.service"
	run -1 grep -nE '@[a-z]+@' "$dest$unitdir/pagestat-lock@.service"
	grep -qx "ExecStart=$prefix/bin/pagestat --lock \$OPTIONS -- \$PATHS" "$dest$unitdir/pagestat-lock@.service"
	grep -qx "EnvironmentFile=$sysconfdir/pagestat/lock.d/%i" "$dest$unitdir/pagestat-lock@.service"
	grep -qx "pagestat='$prefix/bin/pagestat'" "$dest$libexec/textfile"

	run -0 make -s -C "$BUILDDIR" uninstall DESTDIR="$dest"
	run -0 files_below "$dest"
	assert_output ""
}

@test "make install keeps a textfile.conf that is there; uninstall removes it only as shipped" {
	local sysconfdir dest=$BATS_TEST_TMPDIR/dest
	sysconfdir=$(make_var "$BUILDDIR" sysconfdir)
	mkdir -p "$dest$sysconfdir/pagestat"
	echo /srv/db >"$dest$sysconfdir/pagestat/textfile.conf"
	run -0 make -s -C "$BUILDDIR" install DESTDIR="$dest"
	assert_output --partial "textfile.conf exists: left as it is"
	assert_equal "$(cat "$dest$sysconfdir/pagestat/textfile.conf")" /srv/db
	run -0 make -s -C "$BUILDDIR" uninstall DESTDIR="$dest"
	assert_output --partial "textfile.conf was changed: left as it is"
	run -0 files_below "$dest"
	assert_output "${sysconfdir#/}/pagestat/textfile.conf"
}

@test "configure: --with-*-completion-dir=DIR and --with-systemdsystemunitdir=DIR move them; pkg-config's directories are the defaults" {
	command -v pkg-config >/dev/null || skip "pkg-config is not installed"
	local src=$BATS_TEST_TMPDIR/src
	run -0 make -s -C "$BUILDDIR" distdir distdir="$src" top_distdir="$src"
	[[ -x $src/configure ]] || fail "make distdir made no configure"
	# a bash-completion whose pkg-config file names another directory
	mkdir pc
	cat >pc/bash-completion.pc <<-'EOF'
		prefix=/usr
		datadir=${prefix}/share
		completionsdir=${datadir}/bash-completion/elsewhere
		Name: bash-completion
		Description: a stand-in for the test
		Version: 2.11
	EOF
	# and a systemd's, whose units are below its root prefix (/)
	cat >pc/systemd.pc <<-'EOF'
		prefix=/usr
		root_prefix=
		rootprefix=${root_prefix}
		systemdsystemunitdir=${rootprefix}/lib/systemd/elsewhere
		Name: systemd
		Description: a stand-in for the test
		Version: 252
	EOF
	export PKG_CONFIG_PATH=$BATS_TEST_TMPDIR/pc
	cd "$src"

	# every directory given (-C: the compiler's and libraries' checks are
	# run once and cached; the directories are not cached, each configure
	# decides them anew)
	run -0 --separate-stderr ./configure -q -C --prefix=/opt/ps --with-bash-completion-dir=/etc/bc \
		--with-zsh-completion-dir=/zsh/fn --with-fish-completion-dir=/fish/vc \
		--with-systemdsystemunitdir=/units
	run -0 make -s -j2 install-data DESTDIR="$BATS_TEST_TMPDIR/given"
	run -0 files_below "$BATS_TEST_TMPDIR/given"
	assert_equal "$output" "$(printf '%s\n' etc/bc/pagestat fish/vc/pagestat.fish \
		opt/ps/etc/pagestat/textfile.conf \
		opt/ps/share/man/man1/pagestat.1 opt/ps/share/pagestat/pagestat.rules.yml \
		opt/ps/share/pagestat/pagestat.schema.json \
		units/pagestat-lock@.service units/pagestat-textfile.service \
		units/pagestat-textfile.timer zsh/fn/_pagestat)"

	# none given: bash-completion's and systemd's directories below our prefix
	run -0 --separate-stderr ./configure -q -C --prefix=/opt/ps
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/default"
	run -0 files_below "$BATS_TEST_TMPDIR/default"
	assert_equal "$output" "$(printf '%s\n' opt/ps/etc/pagestat/textfile.conf \
		opt/ps/lib/systemd/elsewhere/pagestat-lock@.service \
		opt/ps/lib/systemd/elsewhere/pagestat-textfile.service \
		opt/ps/lib/systemd/elsewhere/pagestat-textfile.timer \
		opt/ps/share/bash-completion/elsewhere/pagestat \
		opt/ps/share/fish/vendor_completions.d/pagestat.fish \
		opt/ps/share/man/man1/pagestat.1 opt/ps/share/pagestat/pagestat.rules.yml \
		opt/ps/share/pagestat/pagestat.schema.json \
		opt/ps/share/zsh/site-functions/_pagestat)"

	# without DIR: pkg-config's directories as they are
	run -0 --separate-stderr ./configure -q -C --prefix=/opt/ps --with-bash-completion-dir \
		--with-systemdsystemunitdir
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/system"
	assert_file_exists "$BATS_TEST_TMPDIR/system/usr/share/bash-completion/elsewhere/pagestat"
	assert_file_exists "$BATS_TEST_TMPDIR/system/lib/systemd/elsewhere/pagestat-textfile.timer"

	# --without-systemdsystemunitdir: no unit
	run -0 --separate-stderr ./configure -q -C --prefix=/opt/ps --without-systemdsystemunitdir
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/none"
	run -0 find "$BATS_TEST_TMPDIR/none" -name 'pagestat-textfile.*'
	assert_output ""
}

@test "configure: libcap and jansson from static archives by default, --disable-static-deps links them shared, --enable-static-deps in" {
	command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
	local src=$BATS_TEST_TMPDIR/src mine=$BATS_TEST_TMPDIR/mine
	# a file of the test's own, which a user may inspect too (Linux 6.14)
	echo x >"$mine"
	run -0 make -s -C "$BUILDDIR" distdir distdir="$src" top_distdir="$src"
	cd "$src"
	# (-C: as above; whether the archives link is checked anew each time)
	run -0 --separate-stderr ./configure -q -C --disable-static-deps
	run -0 make -s -j2 src/pagestat
	run -0 readelf -d src/pagestat
	assert_output --partial "libcap.so"
	assert_output --partial "libjansson.so"
	run -0 src/pagestat -J "$mine"
	run -0 make -s clean

	run -0 --separate-stderr ./configure -C --enable-static-deps
	assert_output --partial "whether libcap and jansson link from static archives... yes"
	run -0 make -s -j2 src/pagestat
	run -0 readelf -d src/pagestat
	refute_output --partial "libcap.so"
	refute_output --partial "libjansson.so"
	run -0 src/pagestat -J "$mine"
}
