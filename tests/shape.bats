#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The shape HACKING.md describes, held: src/ in layers that include only
# downwards, files and functions of a readable length, and few mutable
# file-level variables, each named in HACKING.md, and no circle of calls
# (tests/shape.py does the reading; each check first proves it read the
# whole tree).

load test_helper

setup() {
	top=$BATS_TEST_DIRNAME/..
	build=${PAGESTAT_BUILDDIR:-${PAGESTAT%/src/pagestat}}
}

@test "no file of src/ includes a header of a higher layer, and every folder is a layer" {
	run -0 "$PYTHON3" "$top/tests/shape.py" includes "$top"
	assert_output ""
}

@test "the layer check fails on an include that points up" {
	# a copy of the sources with one upward include added
	cp -r "$top/src" "$BATS_TEST_TMPDIR/src"
	local low
	low=$(find "$BATS_TEST_TMPDIR/src/lib" -name '*.c' | head -n 1)
	sed -i '0,/^#include "/s//#include "run.h"\n&/' "$low"
	run -1 "$PYTHON3" "$top/tests/shape.py" includes "$BATS_TEST_TMPDIR"
	assert_output --regexp "^lib/[a-z_]+\.c:[0-9]+: includes run\.h, a higher layer \(src/ above lib\)$"
}

@test "no .c file of src/ over 900 lines, no function over 60" {
	run -0 "$PYTHON3" "$top/tests/shape.py" lengths "$top"
	assert_output ""
}

@test "at most 12 mutable file-level variables in the program, each named in HACKING.md" {
	command -v objdump >/dev/null || skip "objdump (binutils) is not installed"
	[[ -d $build/src ]] || skip "no build tree at $build"
	run -0 "$PYTHON3" "$top/tests/shape.py" state "$top" "$build"
	assert_output ""
}

@test "HACKING.md describes the shape in at most 300 lines, every folder of src/ in its table" {
	local lines folder
	lines=$(wc -l <"$top/HACKING.md")
	((lines <= 300)) || fail "HACKING.md has $lines lines (at most 300)"
	for folder in "$top"/src/*/; do
		folder=${folder%/}
		grep -q "^| \`src/${folder##*/}/\` |" "$top/HACKING.md" ||
			fail "HACKING.md's table of layers lacks src/${folder##*/}/"
	done
}

@test "no circle of calls between the program's files (each uses names of lower ones only)" {
	command -v nm >/dev/null || skip "nm (binutils) is not installed"
	[[ -d $build/src ]] || skip "no build tree at $build"
	run -0 "$PYTHON3" "$top/tests/shape.py" calls "$top" "$build"
	assert_output ""
}

@test "the calls check finds a circle: two objects that call each other" {
	command -v nm >/dev/null || skip "nm (binutils) is not installed"
	command -v cc >/dev/null || skip "no C compiler"
	[[ -d $build/src ]] || skip "no build tree at $build"
	mkdir -p "$BATS_TEST_TMPDIR/b/src"
	find "$build/src" -name '*.o' -exec cp -t "$BATS_TEST_TMPDIR/b/src" {} +
	cd "$BATS_TEST_TMPDIR/b/src"
	printf 'void pong(void);\nvoid ping(void) { pong(); }\n' >ping.c
	printf 'void ping(void);\nvoid pong(void) { ping(); }\n' >pong.c
	cc -c ping.c pong.c
	run -1 "$PYTHON3" "$top/tests/shape.py" calls "$top" "$BATS_TEST_TMPDIR/b"
	assert_output "a circle of calls: ping.o -> pong.o, pong.o -> ping.o"
}
