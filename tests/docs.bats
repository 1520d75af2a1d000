#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The man page and the bash, zsh and fish completions cover every option
# and column that --help lists, so that adding one to the code alone fails:
# the bash and fish completions are run and must offer every option, column,
# sort key and --format and --method value; zsh's is read for them; zsh -n,
# fish -n, groff -ww and mandoc -Tlint must find nothing.

load test_helper

setup() {
	top=$BATS_TEST_DIRNAME/..
	# the completions are made in the build tree (src/mkcompletions)
	build=${PAGESTAT_BUILDDIR:-${PAGESTAT%/src/pagestat}}
	comp=$build/completions
}

teardown() {
	if [[ -n ${QS_DIR-} && $QS_DIR == /var/tmp/pagestat-quickstart.* ]]; then
		cd /
		rm -rf -- "$QS_DIR"
	fi
}

# Long options as --help prints them ("  -a, --all", "      --method=METHOD").
help_long_options() {
	pagestat --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+'
}

# Column names from the "Columns" part of --help.
help_columns() {
	pagestat --help | sed -n '/^Columns/,/^$/p' | grep -oE '^  [a-z_]+' | tr -d ' '
}

# Short options as --help prints them ("  -a, --all").
help_short_options() {
	pagestat --help | grep -oE '^  -[A-Za-z],' | tr -d ' ,'
}

# The values --help gives for an option: "      --format=FORMAT     table
# (default), csv, json, ndjson or prometheus" gives the five names.
# usage: help_values OPTION
help_values() {
	pagestat --help | sed -n "s/^ *$1=[A-Z]* *//p" |
		sed 's/ *(default)//; s/ or /, /' | tr ',' '\n' | tr -d ' '
}

# The sort keys, as the code takes them: each column that --sort accepts
# (it is read before --help, which then exits 0).
sort_keys() {
	local col
	for col in $(help_columns); do
		"$PAGESTAT" --sort="$col" --help >/dev/null 2>&1 && echo "$col"
	done
	return 0
}

# COMPREPLY of the bash completion for the words given, the last one
# being completed, one a line.  Without bash-completion loaded the
# completion falls back on COMP_WORDS and compgen.
bash_complete() {
	# shellcheck disable=SC1091
	source "$comp/pagestat"
	COMP_WORDS=("$@")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE="${COMP_WORDS[*]}"
	COMP_POINT=${#COMP_LINE}
	COMPREPLY=()
	_pagestat
	printf '%s\n' "${COMPREPLY[@]}"
}

# fish's own completions for a command line (complete -C), names only.
fish_complete() {
	fish --no-config -c "source '$comp/pagestat.fish'; complete -C '$1'" | cut -f1
}

require_fish() {
	command -v fish >/dev/null || skip "fish is not installed (apt-get install fish)"
}

# Each WANT is a line of $output; the missing ones are named at once.
# usage: assert_offers WHAT WANT...
assert_offers() {
	local what=$1 want missing=
	shift
	for want; do
		grep -qxF -- "$want" <<<"$output" || missing+=" $want"
	done
	assert_equal "$what lacks:${missing}" "$what lacks:"
}

@test "--help lists options and columns (the lists below are not empty)" {
	run -0 help_long_options
	assert [ "${#lines[@]}" -ge 20 ]
	run -0 help_columns
	assert [ "${#lines[@]}" -ge 11 ]
	run -0 help_short_options
	assert [ "${#lines[@]}" -ge 15 ]
	# the values parse into plain names, the known ones among them
	run -0 help_values --format
	assert_line table
	assert_line prometheus
	refute_line --regexp '[^a-z]'
	run -0 help_values --method
	assert_line auto
	assert_line mincore
	refute_line --regexp '[^a-z]'
	run -0 sort_keys
	assert [ "${#lines[@]}" -ge 11 ]
	refute_line segments
}

@test "the man page documents every long option and every column" {
	local man=$top/doc/pagestat.1 opt col missing=
	for opt in $(help_long_options); do
		# groff source escapes each dash: --max-depth is \-\-max\-depth
		grep -qF -- "${opt//-/\\-}" "$man" || missing+=" $opt"
	done
	for col in $(help_columns); do
		grep -qE "^\.B[RI]? +${col}( |$)" "$man" || missing+=" column:$col"
	done
	assert_equal "missing from the man page:${missing}" "missing from the man page:"
}

# The OPTIONS of the man page, an entry a line: its head ("-d, --max-depth=N"),
# a tab, its paragraph; plain text of the groff source (each macro line's
# words, fonts and the escapes the page uses undone).
man_options() {
	awk '
	function unescape(s) {
		gsub(/\\f[BIRP]/, "", s); gsub(/\\-/, "-", s); gsub(/\\&/, "", s)
		gsub(/\\\(aq/, "\047", s); gsub(/\\\(dq/, "\"", s); gsub(/\\\(ha/, "^", s)
		gsub(/\\\(mu/, "x", s)
		return s
	}
	# .B and .I join their words with a space, .BR and the like without
	function macro_text(line,   name, rest, n, i, c, w, words, inword, quoted, out) {
		name = line; sub(/[ \t].*/, "", name)
		if (name !~ /^\.(B|I|BR|RB|IR|RI|BI|IB)$/)
			return ""
		rest = substr(line, length(name) + 1)
		n = 0; w = ""; inword = 0; quoted = 0
		for (i = 1; i <= length(rest); i++) {
			c = substr(rest, i, 1)
			if (c == "\"") { quoted = !quoted; inword = 1; continue }
			if ((c == " " || c == "\t") && !quoted) {
				if (inword) { words[++n] = w; w = ""; inword = 0 }
				continue
			}
			w = w c; inword = 1
		}
		if (inword) words[++n] = w
		out = ""
		for (i = 1; i <= n; i++)
			out = out (i > 1 && name ~ /^\.[BI]$/ ? " " : "") words[i]
		return out
	}
	function flush() { if (have) print head "\t" para; have = 0 }
	/^\.SH / { flush(); in_options = $0 ~ /^\.SH OPTIONS/; next }
	!in_options || /^\.\\"/ { next }
	/^\.TP/ { flush(); want_head = 1; next }
	/^\.(SS|PP)/ { flush(); next }
	{
		text = unescape(/^\./ ? macro_text($0) : $0)
		if (want_head) { head = text; want_head = 0; have = 1; para = ""; next }
		if (have) para = para " " text
	}
	END { flush() }' "$top/doc/pagestat.1"
}

@test "the man page's OPTIONS head each option as the table names it, and state its limits" {
	local -A paragraph=()
	local head text limit missing= unknown= unsaid=
	while IFS=$'\t' read -r head text; do
		paragraph[$head]=$(tr -s ' ' <<<"$text")
	done < <(man_options)
	[[ ${#paragraph[@]} -ge 40 ]] || fail "only ${#paragraph[@]} entries read in OPTIONS"
	# each line: "-d, --max-depth=N", then a tab before each thing the
	# paragraph must say ("from 0 to 2147483647", or a name a value may be)
	run -0 "$build/src/mkcompletions" options
	local -a fields
	local -A listed=()
	while IFS=$'\t' read -r -a fields; do
		head=${fields[0]}
		listed[$head]=1
		if [[ -z ${paragraph[$head]+set} ]]; then
			missing+=" '$head'"
			continue
		fi
		for limit in "${fields[@]:1}"; do
			grep -qwF -- "$limit" <<<"${paragraph[$head]}" ||
				unsaid+=" '$head': '$limit';"
		done
	done <<<"$output"
	for head in "${!paragraph[@]}"; do
		[[ -n ${listed[$head]+set} ]] || unknown+=" '$head'"
	done
	local problems=
	[[ -z $missing ]] || problems+=" the table's, not in OPTIONS:$missing."
	[[ -z $unknown ]] || problems+=" in OPTIONS, not the table's:$unknown."
	[[ -z $unsaid ]] || problems+=" limits the paragraph does not state:$unsaid"
	assert_equal "OPTIONS against the table:${problems}" "OPTIONS against the table:"
}

@test "the bash, zsh and fish completions offer every long option and column" {
	local file opt col missing=
	for file in pagestat _pagestat pagestat.fish; do
		for opt in $(help_long_options); do
			case $file in
			*.fish) grep -qE -- "-l ${opt#--}( |$)" "$comp/$file" ;;
			*) grep -qF -- "$opt" "$comp/$file" ;;
			esac || missing+=" $file:$opt"
		done
		for col in $(help_columns); do
			grep -qw -- "$col" "$comp/$file" || missing+=" $file:column:$col"
		done
	done
	assert_equal "missing from the completions:${missing}" "missing from the completions:"
}

@test "the man page renders without warnings" {
	command -v groff >/dev/null || skip "groff is not installed"
	run -0 --separate-stderr groff -ww -z -man "$top/doc/pagestat.1"
	assert_equal "$stderr" ""
}

@test "the bash completion completes options, values and columns when sourced" {
	# shellcheck disable=SC1091
	source "$comp/pagestat"
	complete_words() {
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		COMP_LINE="${COMP_WORDS[*]}"
		COMP_POINT=${#COMP_LINE}
		COMPREPLY=()
		_pagestat
		printf '%s\n' "${COMPREPLY[@]}"
	}
	run -0 complete_words pagestat --meth
	assert_line --regexp '^--method=?$'
	run -0 complete_words pagestat --format ''
	assert_line csv
	assert_line ndjson
	run -0 complete_words pagestat -o size,ca
	assert_line size,cached
}

@test "bash completes every long and short option that --help lists" {
	local opt missing=
	for opt in $(help_long_options); do
		run -0 bash_complete pagestat "$opt"
		grep -qxE -- "${opt}=?" <<<"$output" || missing+=" $opt"
	done
	assert_equal "bash does not complete:${missing}" "bash does not complete:"
	run -0 bash_complete pagestat -
	assert_offers "bash after -" $(help_short_options)
}

@test "bash completes every column after -o and --output, every sort key after -s and --sort" {
	local -a columns keys
	mapfile -t columns < <(help_columns)
	mapfile -t keys < <(sort_keys)
	run -0 bash_complete pagestat -o ''
	assert_offers "bash -o" "${columns[@]}"
	run -0 bash_complete pagestat --output ''
	assert_offers "bash --output" "${columns[@]}"
	run -0 bash_complete pagestat -o size,
	assert_offers "bash -o size," $(printf 'size,%s\n' "${columns[@]}" | grep -vx size,size)
	run -0 bash_complete pagestat -s ''
	assert_offers "bash -s" "${keys[@]}"
	run -0 bash_complete pagestat --sort ''
	assert_offers "bash --sort" "${keys[@]}"
	# COMP_WORDBREAKS splits --sort=KEY into "--sort" "=" "KEY"
	run -0 bash_complete pagestat --sort = ''
	assert_offers "bash --sort=" "${keys[@]}"
}

@test "bash completes every --format and --method value that --help lists" {
	local -a formats methods
	mapfile -t formats < <(help_values --format)
	mapfile -t methods < <(help_values --method)
	run -0 bash_complete pagestat --format ''
	assert_offers "bash --format" "${formats[@]}"
	run -0 bash_complete pagestat --format = ''
	assert_offers "bash --format=" "${formats[@]}"
	run -0 bash_complete pagestat --method ''
	assert_offers "bash --method" "${methods[@]}"
}

@test "fish completes every option, column, sort key, --format and --method value" {
	require_fish
	run -0 fish_complete 'pagestat --'
	assert_offers "fish after --" $(help_long_options)
	run -0 fish_complete 'pagestat -'
	assert_offers "fish after -" $(help_short_options)
	run -0 fish_complete 'pagestat -o '
	assert_offers "fish -o" $(help_columns)
	run -0 fish_complete 'pagestat -s '
	assert_offers "fish -s" $(sort_keys)
	run -0 fish_complete 'pagestat --format='
	assert_offers "fish --format=" $(help_values --format | sed 's/^/--format=/')
	run -0 fish_complete 'pagestat --method='
	assert_offers "fish --method=" $(help_values --method | sed 's/^/--method=/')
}

@test "fish and zsh leave out what option_rules[] refuses with an option given" {
	require_fish
	local o
	# (fish keeps offering an option that takes a value: a condition on
	# it would hide its values too; zsh's lists name them all)
	run -0 fish_complete 'pagestat --'
	assert_offers "fish after --" --evict --warm --lock --system
	run -0 --separate-stderr fish_complete 'pagestat --system --'
	assert_equal "$stderr" ""
	for o in --evict --warm --lock; do
		refute_line "$o"
	done
	# (--cgroup=VALUE: fish's own __fish_seen_argument would not see it)
	run -0 --separate-stderr fish_complete 'pagestat --cgroup=self --'
	assert_equal "$stderr" ""
	for o in --evict --warm --lock --system; do
		refute_line "$o"
	done
	run -0 --separate-stderr fish_complete 'pagestat --evict --'
	refute_line --system
	# a short option in a cluster: -i (an interval) refuses --evict
	run -0 --separate-stderr fish_complete 'pagestat -ai --'
	assert_equal "$stderr" ""
	refute_line --evict
	# zsh: --system's and --cgroup's exclusion lists name the actions
	run -0 grep -E -- "^ +'\\(\\* [^)]*--evict --warm --warm-from --lock\\)--system\\[" "$comp/_pagestat"
	run -0 grep -E -- "^ +'\\(\\* [^)]*--evict --warm --warm-from --lock\\)\\*--cgroup=\\[" "$comp/_pagestat"
}

@test "zsh offers every --format and --method value that --help lists" {
	local value missing=
	for value in $(help_values --format); do
		grep -qE -- "--format=\[.*[(' ]${value}\\\\:" "$comp/_pagestat" ||
			missing+=" --format=$value"
	done
	for value in $(help_values --method); do
		grep -qE -- "--method=\[.*[(' ]${value}\\\\:" "$comp/_pagestat" ||
			missing+=" --method=$value"
	done
	assert_equal "missing from _pagestat:${missing}" "missing from _pagestat:"
}

@test "zsh and fish read their completion files without a syntax error" {
	command -v zsh >/dev/null || skip "zsh is not installed (apt-get install zsh)"
	run -0 zsh -n "$comp/_pagestat"
	assert_output ""
	require_fish
	run -0 fish --no-config -n "$comp/pagestat.fish"
	assert_output ""
}

@test "mandoc -Tlint finds nothing above style in the man page" {
	command -v mandoc >/dev/null || skip "mandoc is not installed (apt-get install mandoc)"
	run -0 mandoc -Tlint -Wwarning "$top/doc/pagestat.1"
	assert_output ""
}

@test "the README's Quick start is ./quickstart then make check, and .ci/run runs them" {
	local blocks
	blocks=$(awk '/^## Quick start/ { on = 1; next } /^## / { on = 0 }
		on && /^```sh$/ { code = 1; next } code && /^```$/ { code = 0; next }
		on && code' "$BATS_TEST_DIRNAME/../README.md")
	assert_equal "$blocks" "./quickstart"$'\n'"make check"
	grep -qx './quickstart --enable-sanitizers --enable-werror' "$BATS_TEST_DIRNAME/../.ci/run"
	grep -qx 'if ! make check; then' "$BATS_TEST_DIRNAME/../.ci/run"
	# every library configure requires is among the packages installed
	local lib pkg
	for lib in $(grep -o 'PKG_CHECK_MODULES(\[[A-Z]*\], \[[a-z]*' "$BATS_TEST_DIRNAME/../configure.ac" |
		sed 's/.*\[//'); do
		pkg=lib$lib-dev
		[[ $lib == lib* ]] && pkg=$lib-dev
		# Debian's ncurses builds, the wide one's ncursesw.pc too, are in one package
		[[ $lib == ncursesw ]] && pkg=libncurses-dev
		grep -qw -- "$pkg" "$BATS_TEST_DIRNAME/../quickstart" ||
			fail "configure.ac requires $lib, quickstart does not install $pkg"
	done
}

@test "quickstart as root calls no sudo; as a user without sudo it says what to do" {
	# the commands it runs are replaced by ones that log their arguments:
	# this checks the script's choices, not Debian's packages.  In
	# /var/tmp, where nobody can reach it too.
	QS_DIR=$(mktemp -d /var/tmp/pagestat-quickstart.XXXXXX)
	chmod 755 "$QS_DIR"
	cd "$QS_DIR"
	mkdir bin tree
	local c
	for c in apt-get autoreconf make sudo; do
		printf '#!/bin/sh\necho "%s $*" >>"%s/calls"\n' "$c" "$PWD" >"bin/$c"
		chmod +x "bin/$c"
	done
	cp "$BATS_TEST_DIRNAME/../quickstart" tree/
	printf '#!/bin/sh\necho "configure $*" >>"%s/calls"\n' "$PWD" >tree/configure
	mkdir tree/src
	printf '#!/bin/sh\necho "pagestat $*" >>"%s/calls"\n' "$PWD" >tree/src/pagestat
	chmod +x tree/configure tree/src/pagestat
	if ((EUID == 0)); then
		run -0 env PATH="$PWD/bin:$PATH" sh tree/quickstart --enable-werror
		refute_output --partial "sudo"
		run cat calls
		refute_line --partial "sudo"
		assert_line --regexp '^apt-get install -y -q .*libjansson-dev'
		assert_line "configure --enable-werror"
		assert_line "pagestat -d 1 /usr/lib"
		# as nobody, with no sudo on the PATH (a PATH of what the script
		# needs before it asks for sudo: sudo may be installed here): the
		# reason, exit 1
		rm bin/sudo calls
		for c in sh dirname id; do
			ln -s "$(type -P "$c")" "bin/$c"
		done
		chmod -R a+rwX "$PWD"
		run setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env PATH="$PWD/bin" sh tree/quickstart
		assert_failure 1
		assert_output --partial "run it as root, or install sudo"
	else
		run -0 env PATH="$PWD/bin:$PATH" sh tree/quickstart
		run cat calls
		assert_line --regexp '^sudo apt-get install'
	fi
}

@test "every source, script and test file opens with its SPDX-License-Identifier: MIT line; COPYING holds the MIT text" {
	local f missing=
	grep -q '^Permission is hereby granted, free of charge' "$top/COPYING" ||
		fail "COPYING does not hold the MIT text"
	# what the tarball and the clone both hold: C, shell, bats, Python,
	# the build and the man page (the first lines, after a #! line)
	while IFS= read -r -d '' f; do
		head -n 3 "$f" | grep -q 'SPDX-License-Identifier: MIT' || missing+=" ${f#"$top"/}"
	done < <(find "$top/src" "$top/tests" "$top/fuzz" "$top/bench" "$top/contrib" \
		"$top/completions" -path "$top/tests/tmp" -prune -o \
		\( -name '*.c' -o -name '*.h' -o -name '*.bats' -o -name '*.bash' -o -name '*.py' \
		-o -name '*.yml' -o -name '*.in' \) -type f -print0 2>/dev/null)
	for f in configure.ac Makefile.am quickstart .ci/run doc/pagestat.1 tests/run-bats \
		tests/valgrind bench/run bench/gen; do
		[[ -e $top/$f ]] || continue
		head -n 3 "$top/$f" | grep -q 'SPDX-License-Identifier: MIT' || missing+=" $f"
	done
	assert_equal "without an SPDX line:$missing" "without an SPDX line:"
}
