#!/usr/bin/env bats
# placeholder: being written

load test_helper

@test "placeholder" {
	skip "not written yet"
}
