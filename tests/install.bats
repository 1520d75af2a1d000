#!/usr/bin/env bats
# make install puts the binary, the man page and the three completions
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

# The value of a variable of the Makefile in DIR, expanded.
# usage: make_var DIR NAME
make_var() {
	make -s --no-print-directory -C "$1" -f Makefile -f "$BATS_TEST_TMPDIR/print.mk" "print-$2"
}

# Every file below DIR, relative to it, sorted.
files_below() {
	(cd "$1" && find . -type f | sed 's|^\./||' | sort)
}

@test "make install DESTDIR: bin, man1, and the completions in bash-completion's, zsh's and fish's directories" {
	local prefix datadir srcdir bash_dir dest=$BATS_TEST_TMPDIR/dest
	prefix=$(make_var "$BUILDDIR" prefix)
	datadir=$(make_var "$BUILDDIR" datadir)
	srcdir=$(make_var "$BUILDDIR" abs_top_srcdir)
	[[ $prefix == /* && $datadir == "$prefix"/* ]] || fail "prefix '$prefix', datadir '$datadir'"
	# bash-completion's own directory, taken below our datadir
	bash_dir=$datadir/bash-completion/completions
	if command -v pkg-config >/dev/null && pkg-config --exists bash-completion; then
		bash_dir=$(pkg-config --define-variable=prefix="$prefix" \
			--define-variable=datadir="$datadir" --variable=completionsdir bash-completion)
	fi

	run -0 make -s -C "$BUILDDIR" install DESTDIR="$dest"
	run -0 files_below "$dest"
	assert_equal "$output" "$(printf '%s\n' \
		"${prefix#/}/bin/pagestat" \
		"${datadir#/}/man/man1/pagestat.1" \
		"${bash_dir#/}/pagestat" \
		"${datadir#/}/zsh/site-functions/_pagestat" \
		"${datadir#/}/fish/vendor_completions.d/pagestat.fish" \
		"${datadir#/}/pagestat/pagestat.schema.json" | sort)"
	cmp "$srcdir/doc/pagestat.schema.json" "$dest$datadir/pagestat/pagestat.schema.json"
	run -0 "$dest$prefix/bin/pagestat" --version
	assert_line --index 0 --regexp '^pagestat [0-9]'
	cmp "$srcdir/doc/pagestat.1" "$dest$datadir/man/man1/pagestat.1"
	# the completions as src/mkcompletions made them in the build tree
	cmp "$BUILDDIR/completions/pagestat" "$dest$bash_dir/pagestat"
	cmp "$BUILDDIR/completions/_pagestat" "$dest$datadir/zsh/site-functions/_pagestat"
	cmp "$BUILDDIR/completions/pagestat.fish" "$dest$datadir/fish/vendor_completions.d/pagestat.fish"

	run -0 make -s -C "$BUILDDIR" uninstall DESTDIR="$dest"
	run -0 files_below "$dest"
	assert_output ""
}

@test "configure: --with-*-completion-dir=DIR move them; pkg-config's completionsdir is the default" {
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
	export PKG_CONFIG_PATH=$BATS_TEST_TMPDIR/pc
	cd "$src"

	# every directory given
	run -0 --separate-stderr ./configure -q --prefix=/opt/ps --with-bash-completion-dir=/etc/bc \
		--with-zsh-completion-dir=/zsh/fn --with-fish-completion-dir=/fish/vc
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/given"
	run -0 files_below "$BATS_TEST_TMPDIR/given"
	assert_equal "$output" "$(printf '%s\n' etc/bc/pagestat fish/vc/pagestat.fish \
		opt/ps/share/man/man1/pagestat.1 opt/ps/share/pagestat/pagestat.schema.json zsh/fn/_pagestat)"

	# none given: bash-completion's directory below our datadir
	run -0 --separate-stderr ./configure -q --prefix=/opt/ps
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/default"
	run -0 files_below "$BATS_TEST_TMPDIR/default"
	assert_equal "$output" "$(printf '%s\n' opt/ps/share/bash-completion/elsewhere/pagestat \
		opt/ps/share/fish/vendor_completions.d/pagestat.fish \
		opt/ps/share/man/man1/pagestat.1 opt/ps/share/pagestat/pagestat.schema.json \
		opt/ps/share/zsh/site-functions/_pagestat)"

	# --with-bash-completion-dir without DIR: pkg-config's directory as it is
	run -0 --separate-stderr ./configure -q --prefix=/opt/ps --with-bash-completion-dir
	run -0 make -s install-data DESTDIR="$BATS_TEST_TMPDIR/system"
	assert_file_exists "$BATS_TEST_TMPDIR/system/usr/share/bash-completion/elsewhere/pagestat"
}

@test "configure: libcap and jansson from static archives by default, --disable-static-deps links them shared, --enable-static-deps in" {
	command -v readelf >/dev/null || skip "readelf (binutils) is not installed"
	local src=$BATS_TEST_TMPDIR/src mine=$BATS_TEST_TMPDIR/mine
	# a file of the test's own, which a user may inspect too (Linux 6.14)
	echo x >"$mine"
	run -0 make -s -C "$BUILDDIR" distdir distdir="$src" top_distdir="$src"
	cd "$src"
	run -0 --separate-stderr ./configure -q --disable-static-deps
	run -0 make -s -j2 src/pagestat
	run -0 readelf -d src/pagestat
	assert_output --partial "libcap.so"
	assert_output --partial "libjansson.so"
	run -0 src/pagestat -J "$mine"
	run -0 make -s clean

	run -0 --separate-stderr ./configure --enable-static-deps
	assert_output --partial "whether libcap and jansson link from static archives... yes"
	run -0 make -s -j2 src/pagestat
	run -0 readelf -d src/pagestat
	refute_output --partial "libcap.so"
	refute_output --partial "libjansson.so"
	run -0 src/pagestat -J "$mine"
}
