#!/usr/bin/env bats
# The man page and the bash, zsh and fish completions cover every option
# and column that --help lists, so that adding one to the code alone fails.

load test_helper

setup() {
	top=$BATS_TEST_DIRNAME/..
}

# Long options as --help prints them ("  -a, --all", "      --method=METHOD").
help_long_options() {
	pagestat --help | grep -oE '^ +(-[A-Za-z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--[a-z0-9-]+'
}

# Column names from the "Columns" part of --help.
help_columns() {
	pagestat --help | sed -n '/^Columns/,/^$/p' | grep -oE '^  [a-z_]+' | tr -d ' '
}

@test "--help lists options and columns (the lists below are not empty)" {
	run -0 help_long_options
	assert [ "${#lines[@]}" -ge 20 ]
	run -0 help_columns
	assert [ "${#lines[@]}" -ge 11 ]
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

@test "the bash, zsh and fish completions offer every long option and column" {
	local file opt col missing=
	for file in pagestat _pagestat pagestat.fish; do
		for opt in $(help_long_options); do
			case $file in
			*.fish) grep -qE -- "-l ${opt#--}( |$)" "$top/completions/$file" ;;
			*) grep -qF -- "$opt" "$top/completions/$file" ;;
			esac || missing+=" $file:$opt"
		done
		for col in $(help_columns); do
			grep -qw -- "$col" "$top/completions/$file" || missing+=" $file:column:$col"
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
	source "$top/completions/pagestat"
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
