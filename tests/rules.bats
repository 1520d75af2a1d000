#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# contrib/prometheus/pagestat.rules.yml: promtool (Debian's prometheus
# package) checks the rules and runs their unit tests
# (pagestat.rules.test.yml); the metrics the rules use are the ones
# pagestat exports, and its export passes promtool's own lint.

load test_helper

PROMTOOL=${PROMTOOL:-promtool}

setup() {
	command -v "$PROMTOOL" >/dev/null || skip "promtool is not installed (apt-get install prometheus)"
	: "${PROMETHEUS_RULES:?PROMETHEUS_RULES must name contrib/prometheus (make check sets it)}"
	cd "$BATS_TEST_TMPDIR"
}

@test "promtool check rules: the recording rules and alerts are valid" {
	run -0 "$PROMTOOL" check rules "$PROMETHEUS_RULES/pagestat.rules.yml"
	assert_output --partial "SUCCESS: 8 rules found"
}

@test "promtool test rules: every rule's unit test passes, and a wrong threshold fails them" {
	run -0 "$PROMTOOL" test rules "$PROMETHEUS_RULES/pagestat.rules.test.yml"
	assert_output --partial SUCCESS
	# the tests see the thresholds: the cold alert at 10% instead of 50%
	sed 's/ratio < 0.5$/ratio < 0.1/' "$PROMETHEUS_RULES/pagestat.rules.yml" >pagestat.rules.yml
	! cmp -s pagestat.rules.yml "$PROMETHEUS_RULES/pagestat.rules.yml" || fail "the threshold was not found"
	cp "$PROMETHEUS_RULES/pagestat.rules.test.yml" .
	run -1 "$PROMTOOL" test rules pagestat.rules.test.yml
	assert_output --partial "alertname: PagestatDatasetCold"
}

@test "the rules use only metrics that pagestat and node_exporter's textfile collector export" {
	require_disk_tmpdir
	make_cached f 2
	mkdir d
	make_cached d/g 1
	run -0 pagestat --format=prometheus -c f d
	printf '%s\n' "$output" >export.prom
	local name
	# (not the recorded names, level:metric:operation)
	for name in $(grep -oE '(^|[^:a-z_])(pagestat|node_textfile)_[a-z_]+' \
		"$PROMETHEUS_RULES/pagestat.rules.yml" | grep -oE '[a-z_]+$' | sort -u); do
		case $name in
		node_textfile_mtime_seconds) ;; # node_exporter's, for each file it reads
		*) grep -q "^$name[{ ]" export.prom || fail "the rules use $name, which pagestat does not export" ;;
		esac
	done
	# the labels they match on
	grep -q '^pagestat_cached_bytes{path="f",type="file"} ' export.prom
	grep -q '^pagestat_size_bytes{type="total"} ' export.prom
}

@test "promtool check metrics: pagestat's export passes Prometheus's lint" {
	require_disk_tmpdir
	make_cached f 2
	run -0 pagestat --format=prometheus -c f
	printf '%s\n' "$output" >export.prom
	run -0 "$PROMTOOL" check metrics <export.prom
	assert_output ""
}
