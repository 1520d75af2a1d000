#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Which rows there are: --exclude, --exclude-from, --files0-from, and the
# bad values of each.  Their order (-s/--sort, --reverse, --top):
# sort.bats.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# ---- helpers -------------------------------------------------------------

# src/app.c, src/app.log, src/.hidden.log, src/lib/util.c, src/lib/util.log,
# src/build/out.o, src/build/deep/more.o: 1 page each, all cached.
make_src() {
	mkdir -p src/lib src/build/deep
	local f
	for f in app.c app.log .hidden.log lib/util.c lib/util.log build/out.o build/deep/more.o; do
		make_cached "src/$f" 1
	done
}

# ---- --exclude -------------------------------------------------------------

@test "--exclude GLOB matches an entry's name; dot files are not special" {
	make_src
	run -0 --separate-stderr pagestat --exclude='*.log' -a -J src
	refute_row src/app.log
	refute_row src/.hidden.log
	refute_row src/lib/util.log
	assert_row src/app.c cached=1
	assert_row src/lib/util.c cached=1
	assert_row src files=4 pages=4 cached=4
	assert_total files=4

	# without it every file counts: the check above could fail
	run -0 --separate-stderr pagestat -a -J src
	assert_row src/.hidden.log cached=1
	assert_row src files=7
}

@test "--exclude GLOB also matches the path as printed, '*' crossing '/'" {
	make_src
	run -0 --separate-stderr pagestat --exclude='src/*.c' -a -J src
	refute_row src/app.c
	refute_row src/lib/util.c
	assert_row src files=5

	# a path glob must match the whole path: lib/util.c is neither name nor path
	run -0 --separate-stderr pagestat --exclude='lib/util.c' -a -J src
	assert_row src/lib/util.c cached=1
	assert_row src files=7

	# the path is as printed: with ./src the glob must say ./src
	run -0 --separate-stderr pagestat --exclude='src/*.c' -a -J ./src
	assert_row ./src files=7
	run -0 --separate-stderr pagestat --exclude='./src/*.c' -a -J ./src
	refute_row ./src/lib/util.c
	assert_row ./src files=5
}

@test "--exclude DIR prunes it: its files count in no row and no total" {
	make_src
	run -0 --separate-stderr pagestat --exclude=build -d 2 -J src
	assert_equal "$(row_paths)" "src/lib src"
	assert_row src files=5 pages=5 cached=5
	assert_total files=5 cached=5

	run -0 --separate-stderr pagestat --exclude='src/build/deep' -a -d 2 -J src
	refute_row src/build/deep/more.o
	assert_row src/build type=directory files=1 cached=1
	assert_row src files=6
}

@test "--exclude DIR: the walk does not enter it (a cycle inside is never met)" {
	make_src
	ln -s .. src/build/deep/up
	run -1 --separate-stderr pagestat -L -J src
	assert_stderr_has "cycle"

	run -0 --separate-stderr pagestat --exclude=build -L -J src
	assert_equal "$stderr" ""
	assert_row src files=5
}

@test "--exclude never excludes an operand, only what is below it" {
	make_src
	run -0 --separate-stderr pagestat --exclude='*.log' -J src/app.log src/app.c
	assert_equal "$(row_paths)" "src/app.log src/app.c"
	assert_row src/app.log type=file cached=1

	run -0 --separate-stderr pagestat --exclude=src -J src
	assert_row src files=7 cached=7

	run -0 --separate-stderr pagestat --exclude='*' -a -J src
	assert_equal "$(row_paths)" "src"
	assert_row src files=0 cached=0
}

@test "--exclude repeated: an entry matching any glob is left out" {
	make_src
	run -0 --separate-stderr pagestat --exclude='*.log' --exclude=build -a -J src
	assert_equal "$(jq -r '[.rows[].path] | sort | join(" ")' <<<"$output")" "src src/app.c src/lib/util.c"
	assert_row src files=2 cached=2
}

@test "--exclude with -s and --top: excluded files are neither ranked nor counted" {
	mkdir big
	make_cached big/huge.tmp 9
	make_cached big/kept 2
	make_partial big/other 5 0 1
	run -0 --separate-stderr pagestat --exclude='*.tmp' --top 1 -a -J big
	assert_equal "$(row_paths)" "big/kept"
	assert_total files=2 cached=3
}

@test "--exclude='': exit 2, nothing inspected" {
	make_src
	refused_unread "invalid value for --exclude: ''" -- --exclude=
	refused "invalid value for --exclude: ''" -- --exclude '' src
}

# ---- --exclude-from --------------------------------------------------------

@test "--exclude-from FILE: one glob a line, empty lines skipped" {
	make_src
	printf '\n*.log\n\n\nbuild\n\n' >globs
	run -0 --separate-stderr pagestat --exclude-from=globs -a -J src
	assert_equal "$(jq -r '[.rows[].path] | sort | join(" ")' <<<"$output")" "src src/app.c src/lib/util.c"
	assert_row src files=2 cached=2

	# the last line needs no newline
	printf 'build\n\n*.log' >globs2
	run -0 --separate-stderr pagestat --exclude-from globs2 -a -J src
	assert_row src files=2

	# only empty lines: nothing excluded (an empty glob is not a glob)
	printf '\n\n' >blank
	run -0 --separate-stderr pagestat --exclude-from=blank -a -J src
	assert_row src files=7
}

@test "--exclude-from adds to --exclude" {
	make_src
	printf 'build\n' >globs
	run -0 --separate-stderr pagestat --exclude-from=globs --exclude='*.c' -a -J src
	assert_equal "$(jq -r '[.rows[].path] | sort | join(" ")' <<<"$output")" \
		"src src/.hidden.log src/app.log src/lib/util.log"
	assert_row src files=3
}

@test "--exclude-from an unreadable FILE: exit 2, named, nothing inspected" {
	make_src
	refused_unread "cannot read --exclude-from 'missing': No such file or directory" -- --exclude-from=missing
	refused "cannot read --exclude-from 'missing'" -- --exclude-from missing src
	mkdir adir
	refused_unread "cannot read --exclude-from 'adir': Is a directory" -- --exclude-from=adir
}

# ---- --files0-from ---------------------------------------------------------

@test "--files0-from FILE: the names in it, in its order, as operands" {
	make_mix
	printf 'mix/full\0mix/sub\0mix/big\0' >list
	run -0 --separate-stderr pagestat --files0-from=list -J
	assert_equal "$(row_paths)" "mix/full mix/sub mix/big"
	assert_row mix/sub type=directory files=2 cached=3
	assert_total files=4 pages=25 cached=12

	# the last name may lack its NUL; a name may hold a newline
	make_cached $'two\nlines' 2
	printf 'mix/big\0two\nlines' >list
	run -0 --separate-stderr pagestat --files0-from list -J
	assert_equal "$(json_field '.rows | length')" 2
	assert_row mix/big cached=6
	assert_row $'two\nlines' cached=2
}

@test "--files0-from=- reads the names from standard input" {
	make_mix
	printf 'mix/sub/one\0mix/full' >list
	run -0 --separate-stderr pagestat --files0-from=- -J <list
	assert_equal "$(row_paths)" "mix/sub/one mix/full"
	assert_total files=2 cached=4

	run -0 --separate-stderr pagestat --files0-from=- -s cached -n -p -o cached,path <list
	assert_equal "$(joined_lines | tr -s ' ')" "3 mix/full 1 mix/sub/one"
}

@test "--files0-from: an empty name and a missing name are errors each; the rest is reported; exit 1" {
	make_mix
	printf 'mix/full\0\0nope\0mix/big\0' >list
	run -1 --separate-stderr pagestat --files0-from=list -J
	assert_equal "$(json_field '.rows | length')" 4
	assert_row "" errno=ENOENT type=null
	assert_row nope errno=ENOENT
	assert_row mix/full cached=3
	assert_row mix/big cached=6
	assert_equal "$(json_field .errors)" 2
	assert_total files=2 cached=9
	assert_stderr_has "pagestat: cannot access '': No such file or directory" \
		"pagestat: cannot access 'nope': No such file or directory"

	run -1 --separate-stderr pagestat --files0-from=list -n -p -o cached,path
	assert_equal "$(joined_lines | tr -s ' ')" "3 mix/full 6 mix/big"
}

@test "--files0-from and --exclude-from an endless list (/dev/zero, yes): exit 2, the option named, within seconds" {
	make_mix
	refused "cannot read --files0-from '/dev/zero': a list may hold less than 1024 MiB" \
		"endless" -- --files0-from=/dev/zero
	refused "cannot read --exclude-from '/dev/zero': a list may hold less than 16 MiB" -- \
		--exclude-from=/dev/zero mix
	# from a pipe that never ends
	run -2 --separate-stderr bash -c 'yes | "$0" --exclude-from=- mix' "$PAGESTAT"
	refute_output
	assert_stderr_has "cannot read --exclude-from '-': a list may hold less than 16 MiB"
}

@test "--files0-from with FILE operands: exit 2, the names left unread" {
	make_mix
	refused_unread "FILE operands cannot be combined with --files0-from" -- mix
	printf 'mix/full\0' >list
	refused "FILE operands cannot be combined with --files0-from" -- mix/big --files0-from=list
}

@test "--files0-from an empty list: no rows, exit 0 (not the current directory)" {
	make_mix
	cd mix
	: >../empty.list
	run -0 --separate-stderr pagestat --files0-from=../empty.list -J
	assert_equal "$(json_field '.rows | length')" 0
	assert_total files=0 cached=0
	assert_equal "$(json_field .errors)" 0

	run -0 --separate-stderr pagestat --files0-from=- -n </dev/null
	assert_output ""
	assert_equal "$stderr" ""
}

@test "--files0-from: a name listed twice counts once" {
	make_mix
	printf 'mix/big\0mix/full\0mix/big\0' >list
	run -0 --separate-stderr pagestat --files0-from=list -J
	assert_equal "$(row_paths)" "mix/big mix/full"
	assert_total files=2 pages=11 cached=9

	# a file named and met again inside a listed directory counts once too
	printf 'mix/sub/c\0mix/sub\0' >list
	run -0 --separate-stderr pagestat --files0-from=list -J
	assert_total files=2 pages=14 cached=3
}

@test "--files0-from with --top, --sort and --exclude" {
	make_mix
	printf 'mix/sub/one\0mix/full\0mix/big\0mix/sub\0' >list
	run -0 --separate-stderr pagestat --files0-from=list --top 2 -J
	assert_equal "$(row_paths)" "mix/big mix/full"

	# listed names are operands: never excluded, but what is below them is
	run -0 --separate-stderr pagestat --files0-from=list --exclude=one -s path -J
	assert_equal "$(row_paths)" "mix/big mix/full mix/sub mix/sub/one"
	assert_row mix/sub/one type=file cached=1
	printf 'mix/sub\0' >list
	run -0 --separate-stderr pagestat --files0-from=list --exclude=one -J
	assert_row mix/sub files=1 pages=4 cached=2
}

@test "--files0-from an unreadable FILE: exit 2, named" {
	make_mix
	refused "cannot read --files0-from 'missing': No such file or directory" -- --files0-from=missing
	mkdir adir
	refused "cannot read --files0-from 'adir': Is a directory" -- --files0-from adir
	refused "cannot read --files0-from ''" -- --files0-from=
}

# ---- issue 31, item 11: a long --exclude-from list -----------------------

@test "--exclude-from with a million patterns leaves out what the few that match leave out (exact names and paths indexed, globs and escapes tried as globs)" {
	mkdir -p tree/a tree/b
	"$PYTHON3" -c '
import sys
for i in range(6000):
    open("tree/%s/f%04d.dat" % ("ab"[i % 2], i), "w").close()'
	: >'tree/a/x\y' >tree/a/xy >'tree/a/q*'
	local few
	few=$'f0007.dat\ntree/b/f0003.dat\n*.nothing\nf001?.dat\nx\\y\nb/f0005.dat\nq\\*'
	printf '%s\n' "$few" >few.list
	{
		"$PYTHON3" -c '
for i in range(999993):
    print("n%06d%s" % (i, "" if i % 2 else ".d"))'
		printf '%s\n' "$few"
	} >many.list
	(($(wc -l <many.list) == 1000000)) || fail "many.list: $(wc -l <many.list) lines"
	run -0 --separate-stderr pagestat -a -J -o path,type --exclude-from=few.list tree
	local want=$output
	# what the few leave out: f0007, f0003 (by path), f0010-f0019, xy
	# (x\y matches it), q* (q\* matches it), not b/f0005 (a path is matched whole)
	assert_equal "$(jq '[.rows[] | select(.type == "file")] | length' <<<"$want")" $((6003 - 14))
	refute_row tree/a/xy
	refute_row 'tree/a/q*'
	assert_row 'tree/a/x\y' type=file
	assert_row tree/b/f0005.dat type=file
	# a CPU limit far above what an index needs (well under a second
	# here); trying a million patterns per entry took 107 s for 7,161 files
	run -0 --separate-stderr bash -c 'ulimit -t 20 && exec "$@"' - \
		"$PAGESTAT" -a -J -o path,type --exclude-from=many.list tree
	assert_equal "$output" "$want"
}
