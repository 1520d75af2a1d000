#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Which rows come in which order: -s/--sort and --reverse, --top, and the
# bad values of each.  Which rows there are (--exclude, --exclude-from,
# --files0-from): select.bats.

load test_helper

setup() {
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
}

# ---- helpers -------------------------------------------------------------

# The paths of the rows of TYPE, in order.
row_paths_of_type() {
	jq -r --arg t "$1" '[.rows[] | select(.type == $t) | .path] | join(" ")' <<<"$output"
}

# tree/one/f              4 pages, all cached
# tree/three/f1, f2, f3   1 page each, all cached
# tree/two/g1, g2         2 pages each, the first cached
# tree/loose              9 pages, none cached
make_tree() {
	mkdir -p tree/one tree/three tree/two
	make_cached tree/one/f 4
	make_cached tree/three/f1 1
	make_cached tree/three/f2 1
	make_cached tree/three/f3 1
	make_partial tree/two/g1 2 0 1
	make_partial tree/two/g2 2 0 1
	make_dropped tree/loose 9
}

# ---- --sort: each kind of key ----------------------------------------------

@test "-s cached: largest first, in the table, CSV and JSON" {
	make_mix
	run -0 --separate-stderr pagestat -s cached -a -n -p -o cached,path mix
	assert_equal "${#lines[@]}" 6
	assert_line -n 0 --regexp '^ *12 +mix$'
	assert_line -n 1 --regexp '^ *6 +mix/big$'
	assert_line -n 2 --regexp '^ *3 +mix/full$'
	assert_line -n 3 --regexp '^ *2 +mix/sub/c$'
	assert_line -n 4 --regexp '^ *1 +mix/sub/one$'
	assert_line -n 5 --regexp '^ *0 +mix/empty$'

	run -0 --separate-stderr pagestat -s cached -a --csv -o path,cached mix
	assert_equal "$(joined_lines)" \
		"path,cached,cached_bytes mix,12,$((12 * PAGE)) mix/big,6,$((6 * PAGE)) mix/full,3,$((3 * PAGE)) mix/sub/c,2,$((2 * PAGE)) mix/sub/one,1,$PAGE mix/empty,0,0"

	run -0 --separate-stderr pagestat -s cached -a -J mix
	assert_equal "$(row_paths)" "mix mix/big mix/full mix/sub/c mix/sub/one mix/empty"
	assert_row mix/big cached=6
	assert_row mix/sub/c cached=2
	assert_total files=5 pages=25 cached=12
}

@test "-s cached with -c: the total row stays last, in the table and CSV" {
	make_mix
	run -0 --separate-stderr pagestat -s cached -c -n -p -o cached,path mix/sub/one mix/full mix/big
	assert_equal "${#lines[@]}" 4
	assert_line -n 0 --regexp '^ *6 +mix/big$'
	assert_line -n 1 --regexp '^ *3 +mix/full$'
	assert_line -n 2 --regexp '^ *1 +mix/sub/one$'
	assert_line -n 3 --regexp '^ *10 +total$'

	run -0 --separate-stderr pagestat -s cached -c --csv -n -o path,cached mix/sub/one mix/full mix/big
	assert_equal "$(joined_lines)" \
		"mix/big,6,$((6 * PAGE)) mix/full,3,$((3 * PAGE)) mix/sub/one,1,$PAGE total,10,$((10 * PAGE))"
}

@test "-s dirty (cachestat): the dirty file first, though another has more pages cached" {
	mkdir dd
	make_cached dd/clean 6
	make_dirty dd/fresh 2
	# dd ties with dd/fresh (2 dirty) and comes after it in the walk
	run -0 --separate-stderr pagestat -s dirty -a -J dd
	assert_equal "$(row_paths)" "dd/fresh dd dd/clean"
	assert_row dd/fresh dirty=2 cached=2
	assert_row dd/clean dirty=0 cached=6
}

@test "-s size and -s pages: largest first" {
	make_mix
	for key in size pages; do
		run -0 --separate-stderr pagestat -s "$key" -a -J mix
		assert_equal "$key: $(row_paths)" "$key: mix mix/sub/one mix/big mix/sub/c mix/full mix/empty"
		assert_row mix/sub/one size=$((10 * PAGE)) pages=10
	done

	run -0 --separate-stderr pagestat -s size -a --csv -n -o path,size mix
	assert_equal "$(joined_lines)" \
		"mix,$((25 * PAGE)) mix/sub/one,$((10 * PAGE)) mix/big,$((8 * PAGE)) mix/sub/c,$((4 * PAGE)) mix/full,$((3 * PAGE)) mix/empty,0"
}

@test "-s percent: largest first; the empty file's null percent goes last" {
	make_mix
	run -0 --separate-stderr pagestat -s percent -a -J mix
	assert_equal "$(row_paths)" "mix/full mix/big mix/sub/c mix mix/sub/one mix/empty"
	assert_row mix/full percent=100
	assert_row mix percent=48
	assert_row mix/empty pages=0 percent=null

	run -0 --separate-stderr pagestat -s percent -a -n -p -o percent,path mix
	assert_equal "${#lines[@]}" 6
	assert_line -n 0 --regexp '^ *100\.0% +mix/full$'
	assert_line -n 1 --regexp '^ *75\.0% +mix/big$'
	assert_line -n 2 --regexp '^ *50\.0% +mix/sub/c$'
	assert_line -n 3 --regexp '^ *48\.0% +mix$'
	assert_line -n 4 --regexp '^ *10\.0% +mix/sub/one$'
	assert_line -n 5 --regexp '^ *- +mix/empty$'

	run -0 --separate-stderr pagestat -s percent -a --csv -n -o path,percent mix
	assert_equal "$(joined_lines)" \
		"mix/full,100.0 mix/big,75.0 mix/sub/c,50.0 mix,48.0 mix/sub/one,10.0 mix/empty,"
}

@test "-s percent --reverse: smallest first, the null percent still last" {
	make_mix
	run -0 --separate-stderr pagestat -s percent --reverse -a -J mix
	assert_equal "$(row_paths)" "mix/sub/one mix mix/sub/c mix/big mix/full mix/empty"

	run -0 --separate-stderr pagestat -s percent --reverse -a -n -p -o percent,path mix
	assert_line -n 0 --regexp '^ *10\.0% +mix/sub/one$'
	assert_line -n 5 --regexp '^ *- +mix/empty$'
}

@test "-s files: the directory rows of -d, most files first" {
	make_tree
	run -0 --separate-stderr pagestat -s files -d 1 -J tree
	assert_equal "$(row_paths)" "tree tree/three tree/two tree/one"
	assert_row tree files=7 pages=20 cached=9
	assert_row tree/three files=3
	assert_row tree/two files=2
	assert_row tree/one files=1

	run -0 --separate-stderr pagestat -s files --reverse -d 1 -n -p -o files,path tree
	assert_equal "${#lines[@]}" 4
	assert_line -n 0 --regexp '^ *1 +tree/one$'
	assert_line -n 1 --regexp '^ *2 +tree/two$'
	assert_line -n 2 --regexp '^ *3 +tree/three$'
	assert_line -n 3 --regexp '^ *7 +tree$'
}

@test "-s path: A to Z bytewise (uppercase before lowercase, '.' before '/', UTF-8 last)" {
	mkdir -p p/a
	local f
	for f in b é a/z _x B a.txt Z; do
		make_cached "p/$f" 1
	done
	run -0 --separate-stderr pagestat -s path -a -J p
	assert_equal "$(row_paths)" "p p/B p/Z p/_x p/a.txt p/a/z p/b p/é"

	run -0 --separate-stderr pagestat -s path -a --csv -n -o path p
	assert_equal "$(joined_lines)" "p p/B p/Z p/_x p/a.txt p/a/z p/b p/é"

	# the order is the bytes', whatever the locale
	LC_ALL=C.UTF-8 run -0 --separate-stderr pagestat -s path -a -n -o path p
	assert_equal "$(joined_lines)" "p p/B p/Z p/_x p/a.txt p/a/z p/b p/é"

	run -0 --separate-stderr pagestat -s path --reverse -a -J p
	assert_equal "$(row_paths)" "p/é p/b p/a/z p/a.txt p/_x p/Z p/B p"
}

@test "-s type: directory before file, each group in walk order; --reverse puts files first" {
	make_mix
	run -0 --separate-stderr pagestat -a -d 1 -J mix
	local files dirs
	files=$(row_paths_of_type file)
	dirs=$(row_paths_of_type directory)
	assert_equal "$dirs" "mix/sub mix"
	assert_equal "$(wc -w <<<"$files")" 3

	run -0 --separate-stderr pagestat -s type -a -d 1 -J mix
	assert_equal "$(row_paths)" "$dirs $files"
	assert_equal "$(json_field '[.rows[].type] | join(" ")')" "directory directory file file file"

	run -0 --separate-stderr pagestat -s type --reverse -a -d 1 -J mix
	assert_equal "$(row_paths)" "$files $dirs"

	run -0 --separate-stderr pagestat -s type -a -d 1 --csv -n -o type,path mix
	assert_equal "$(joined_lines)" \
		"$(for p in $dirs; do printf 'directory,%s ' "$p"; done)$(for p in $files; do printf 'file,%s ' "$p"; done | sed 's/ $//')"
}

@test "-s KEY: every column but segments and extents is a key, in any case" {
	make_mix
	local key
	for key in path type size pages cached percent dirty writeback evicted recently_evicted files; do
		run -0 --separate-stderr pagestat -s "$key" -J mix/full mix/big
		assert_equal "$key: $(json_field '.rows | length')" "$key: 2"
	done
	run -0 --separate-stderr pagestat -s CACHED -J mix/full mix/big
	assert_equal "$(row_paths)" "mix/big mix/full"
	run -0 --separate-stderr pagestat --sort=Path -J mix/full mix/big
	assert_equal "$(row_paths)" "mix/big mix/full"
}

# ---- --sort: ties, --reverse, unknown counters, failed rows -------------

@test "ties keep walk order: operands in the order given, also under --reverse" {
	mkdir t
	local f
	for f in c b d a; do
		make_cached "t/$f" 2
	done
	make_cached t/big 5
	cd t
	run -0 --separate-stderr pagestat -s cached -J c b big d a
	assert_equal "$(row_paths)" "big c b d a"

	run -0 --separate-stderr pagestat -s cached -J a d big b c
	assert_equal "$(row_paths)" "big a d b c"

	run -0 --separate-stderr pagestat -s cached --reverse -J c b big d a
	assert_equal "$(row_paths)" "c b d a big"

	run -0 --separate-stderr pagestat -s cached -n -p -o cached,path c b big d a
	assert_equal "$(joined_lines | tr -s ' ')" "5 big 2 c 2 b 2 d 2 a"
}

@test "ties keep walk order inside a directory walk too" {
	mkdir w
	local f
	for f in k1 k2 k3 k4 k5 k6; do
		make_cached "w/$f" 2
	done
	make_cached w/top 3
	run -0 --separate-stderr pagestat -a -J w
	local walk
	walk=$(jq -r '[.rows[] | select(.path | test("^w/k")) | .path] | join(" ")' <<<"$output")
	assert_equal "$(wc -w <<<"$walk")" 6

	run -0 --separate-stderr pagestat -s cached -a -J w
	assert_equal "$(row_paths)" "w w/top $walk"
	run -0 --separate-stderr pagestat -s cached --reverse -a -J w
	assert_equal "$(row_paths)" "$walk w/top w"
}

@test "--method=mincore -s dirty: dirty is unknown ('-', empty, null) for every row, which keep walk order" {
	make_mix
	run -0 --separate-stderr pagestat --method=mincore -a -J mix
	local walk
	walk=$(row_paths)

	run -0 --separate-stderr pagestat --method=mincore -s dirty -a -J mix
	assert_equal "$(row_paths)" "$walk"
	assert_equal "$(json_field '[.rows[].dirty] | unique | tostring')" "[null]"
	run -0 --separate-stderr pagestat --method=mincore -s dirty --reverse -a -J mix
	assert_equal "$(row_paths)" "$walk"

	run -0 --separate-stderr pagestat --method=mincore -s evicted -a --csv -n -o path,evicted mix
	assert_equal "$(joined_lines)" "$(for p in $walk; do printf '%s,, ' "$p"; done | sed 's/ $//')"
	run -0 --separate-stderr pagestat --method=mincore -s dirty -a -n -o dirty,path mix
	assert_line -n 0 --regexp "^ *- +${walk%% *}$"

	# cached is known to mincore, and sorts as with cachestat
	run -0 --separate-stderr pagestat --method=mincore -s cached -a -J mix
	assert_equal "$(row_paths)" "mix mix/big mix/full mix/sub/c mix/sub/one mix/empty"
}

@test "--sort alone: failed rows come after the sorted rows, in walk order (JSON)" {
	make_mix
	run -1 --separate-stderr pagestat -s path -J mix/full 0nope mix/big 0gone
	assert_equal "$(row_paths)" "mix/big mix/full 0nope 0gone"
	assert_row 0nope errno=ENOENT
	assert_equal "$(json_field .errors)" 2
	assert_stderr_has "'0nope'" "'0gone'"

	run -1 --separate-stderr pagestat -s path --reverse -J mix/full 0nope mix/big 0gone
	assert_equal "$(row_paths)" "mix/full mix/big 0nope 0gone"

	run -1 --separate-stderr pagestat -s cached -J 0nope mix/sub/one mix/big
	assert_equal "$(row_paths)" "mix/big mix/sub/one 0nope"
	assert_total files=2 cached=7
}

@test "--reverse without --sort or --top: exit 2" {
	make_mix
	refused_unread "--reverse needs --sort or --top" -- --reverse
	refused "--reverse needs --sort or --top" -- --reverse -a mix
}

# ---- --top -----------------------------------------------------------------

@test "the issue's case: --top 2 -s cached -a DIR prints the two most-cached files, largest first" {
	make_mix
	run -0 --separate-stderr pagestat --top 2 -s cached -a -n -p -o cached,path mix
	assert_equal "${#lines[@]}" 2
	assert_line -n 0 --regexp '^ *6 +mix/big$'
	assert_line -n 1 --regexp '^ *3 +mix/full$'

	run -0 --separate-stderr pagestat --top 2 -s cached -a -J mix
	assert_equal "$(row_paths)" "mix/big mix/full"
	assert_row mix/big type=file pages=8 cached=6 percent=75
	assert_row mix/full type=file pages=3 cached=3 percent=100
	refute_row mix
	assert_total files=5 pages=25 cached=12
	assert_equal "$(json_field .errors)" 0

	run -0 --separate-stderr pagestat --top 2 -s cached -a --csv -n -o path,cached mix
	assert_equal "$(joined_lines)" "mix/big,6,$((6 * PAGE)) mix/full,3,$((3 * PAGE))"
}

@test "--top without -s ranks by cached" {
	make_mix
	run -0 --separate-stderr pagestat --top 3 -a -J mix
	assert_equal "$(row_paths)" "mix/big mix/full mix/sub/c"

	# not by size: mix/sub/one is the largest file
	run -0 --separate-stderr pagestat --top 1 -a -J mix
	assert_equal "$(row_paths)" "mix/big"
}

@test "--top with another key: percent, size, path" {
	make_mix
	run -0 --separate-stderr pagestat --top 2 -s percent -a -J mix
	assert_equal "$(row_paths)" "mix/full mix/big"
	run -0 --separate-stderr pagestat --top 2 -s size -a -J mix
	assert_equal "$(row_paths)" "mix/sub/one mix/big"
	run -0 --separate-stderr pagestat --top 2 -s path -a -J mix
	assert_equal "$(row_paths)" "mix/big mix/empty"
}

@test "--top --reverse: the N least-cached, smallest first; a null percent is never among them" {
	make_mix
	run -0 --separate-stderr pagestat --top 2 --reverse -a -J mix
	assert_equal "$(row_paths)" "mix/empty mix/sub/one"

	run -0 --separate-stderr pagestat --top 2 --reverse -s percent -a -J mix
	assert_equal "$(row_paths)" "mix/sub/one mix/sub/c"

	run -0 --separate-stderr pagestat --top 6 --reverse -s percent -a -n -p -o percent,path mix
	assert_equal "${#lines[@]}" 5
	assert_line -n 0 --regexp '^ *10\.0% +mix/sub/one$'
	assert_line -n 4 --regexp '^ *- +mix/empty$'
}

@test "--top larger than the number of rows: every file row, sorted, still no directory row" {
	make_mix
	run -0 --separate-stderr pagestat --top 100 -a -J mix
	assert_equal "$(row_paths)" "mix/big mix/full mix/sub/c mix/sub/one mix/empty"
	assert_total files=5 cached=12
}

@test "no row to rank (--top -a over an empty directory, -s over an empty list): none shown, exit 0" {
	mkdir empty
	# under --enable-sanitizers, sorting nothing once ended in a report
	run -0 --separate-stderr pagestat --top 3 -a -J empty
	assert_equal "$(json_field '.rows | length')" 0
	assert_total files=0 pages=0
	assert_equal "$stderr" ""
	run -0 --separate-stderr pagestat -s cached -J --files0-from=/dev/null
	assert_equal "$(json_field '.rows | length')" 0
	assert_equal "$stderr" ""
}

@test "--top without -a ranks the operands" {
	make_mix
	run -0 --separate-stderr pagestat --top 2 -J mix/sub/one mix/full mix/sub/c mix/big
	assert_equal "$(row_paths)" "mix/big mix/full"
	assert_total files=4 pages=25 cached=12

	# a directory operand is ranked by its total, like any row
	run -0 --separate-stderr pagestat --top 2 -J mix/big mix/sub mix/full
	assert_equal "$(row_paths)" "mix/big mix/sub"
	assert_row mix/sub type=directory files=2 cached=3
}

@test "--top -d ranks the directory rows; with -a they are left out" {
	make_tree
	run -0 --separate-stderr pagestat --top 2 -d 1 -J tree
	assert_equal "$(row_paths)" "tree tree/one"
	assert_row tree files=7 cached=9
	assert_row tree/one files=1 cached=4

	# -a -d 1: the only file down to depth 1 is tree/loose
	run -0 --separate-stderr pagestat --top 3 -a -d 1 -J tree
	assert_equal "$(row_paths)" "tree/loose"
	assert_total files=7 pages=20 cached=9

	run -0 --separate-stderr pagestat --top 1 -a -d 2 -J tree
	assert_equal "$(row_paths)" "tree/one/f"
}

@test "--top: ties keep walk order" {
	mkdir t
	local f
	for f in c b d a; do
		make_cached "t/$f" 2
	done
	cd t
	run -0 --separate-stderr pagestat --top 2 -J c b d a
	assert_equal "$(row_paths)" "c b"
	run -0 --separate-stderr pagestat --top 2 -J a d b c
	assert_equal "$(row_paths)" "a d"
	run -0 --separate-stderr pagestat --top 2 --reverse -J d a c b
	assert_equal "$(row_paths)" "d a"
}

@test "--top -c: the total is over every file, not only the rows shown" {
	make_mix
	run -0 --separate-stderr pagestat --top 1 -c -a -n -p -o files,cached,path mix
	assert_equal "${#lines[@]}" 2
	assert_line -n 0 --regexp '^ *1 +6 +mix/big$'
	assert_line -n 1 --regexp '^ *5 +12 +total$'

	run -0 --separate-stderr pagestat --top 1 -c -a --csv -n -o path,files,cached mix
	assert_equal "$(joined_lines)" "mix/big,1,6,$((6 * PAGE)) total,5,12,$((12 * PAGE))"
}

@test "--top: failed rows are left out, still on stderr and counted in JSON errors, exit 1" {
	make_mix
	run -1 --separate-stderr pagestat --top 5 -J mix/full nope mix/big
	assert_equal "$(row_paths)" "mix/big mix/full"
	assert_equal "$(json_field .errors)" 1
	assert_total files=2 pages=11 cached=9
	assert_stderr_has "cannot access 'nope'"

	run -1 --separate-stderr pagestat --top 5 -c -n -p -o cached,path mix/full nope mix/big
	assert_equal "$(joined_lines | tr -s ' ')" "6 mix/big 3 mix/full 9 total"
	assert_stderr_has "'nope'"
}

@test "--top in a walk: a failed entry below the operand is left out, still counted" {
	make_mix
	ln -s .. mix/sub/up
	run -1 --separate-stderr pagestat --top 10 -L -a -J mix
	assert_equal "$(row_paths)" "mix/big mix/full mix/sub/c mix/sub/one mix/empty"
	assert_equal "$(json_field .errors)" 1
	assert_stderr_has "mix/sub/up" "cycle"

	# the error row is there without --top: the check above could fail
	run -1 --separate-stderr pagestat -L -a -J mix
	assert_row mix/sub/up type=directory
}

# ---- bad values: exit 2 before anything is read or inspected ----------

@test "a bad --top with --files0-from=-: standard input is never read" {
	local names_fd first=
	make_mix
	# a good run reads the list: the unread check can fail
	printf 'mix/full\0' >names
	exec {names_fd}<names
	run -0 --separate-stderr pagestat --files0-from=- -J <&"$names_fd"
	IFS= read -r -d '' first <&"$names_fd" || true
	exec {names_fd}<&-
	assert_row mix/full cached=3
	assert_equal "after a good run: '$first'" "after a good run: ''"

	refused_unread "invalid value for --top: '0'" -- --top 0
	refused_unread "invalid value for --top: '0'" -- --top=0 -a --files0-from=-
	refused_unread "invalid value for --top: 'x'" -- -a --files0-from=- --top x
}

@test "--sort with a bad key: exit 2, option and value named, nothing inspected" {
	make_mix
	local key
	for key in nosuch '' segments extents cached,path cached_bytes total; do
		refused_unread "invalid value for --sort: '$key'" "expected one of path, type, size" -- --sort="$key"
	done
	refused_unread "invalid value for --sort: 'nosuch'" -- -s nosuch -a
	refused "invalid value for --sort: 'segments'" -- -S 4 -s segments mix
	refused "invalid value for --sort: 'extents'" -- -e -s extents mix
	refused "invalid value for --sort: 'nosuch'" -- mix -a -s nosuch
}

@test "--top with a bad count: exit 2, option and value named, nothing inspected" {
	make_mix
	local n
	for n in 0 -1 x '' 1x ' 1' 1.5 99999999999999999999; do
		refused_unread "invalid value for --top: '$n'" "expected a whole number from 1" -- --top="$n"
	done
	refused_unread "invalid value for --top: '-1'" -- --top -1 -a
	refused "invalid value for --top: 'x'" -- mix -a --top x
}

@test "-s and --top without their argument: exit 2" {
	refused "requires an argument" "'s'" -- -s
	refused "requires an argument" "--top" -- --top
}

@test "--top above the largest count: the message states the limit (or the count is taken)" {
	# 2147483648 is "a whole number from 1": a refusal must name the real limit
	make_mix
	run --separate-stderr pagestat --top 2147483648 -a -J mix
	if ((status == 0)); then
		assert_equal "$(row_paths)" "mix/big mix/full mix/sub/c mix/sub/one mix/empty"
	else
		assert_equal "status $status" "status 2"
		refute_output
		assert_stderr_has "invalid value for --top: '2147483648'" 2147483647
	fi
}
