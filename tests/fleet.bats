#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The fleet path end to end, on loopback: the command of
# pagestat-textfile.service (its ExecStart, with this build's script)
# writes the export; Debian's prometheus-node-exporter reads it with its
# textfile collector; Debian's prometheus scrapes that on 127.0.0.1, with
# contrib/prometheus/pagestat.rules.yml loaded; a PromQL query over the
# HTTP API must give the cached bytes pagestat measured, and the recording
# rule their share.  Ports are chosen free; both servers are stopped by
# their pid; every wait is bounded.

load test_helper

NODE_EXPORTER=${NODE_EXPORTER:-prometheus-node-exporter}
PROMETHEUS=${PROMETHEUS:-prometheus}

setup() {
	command -v "$NODE_EXPORTER" >/dev/null ||
		skip "$NODE_EXPORTER is not installed (apt-get install prometheus-node-exporter)"
	command -v "$PROMETHEUS" >/dev/null || skip "$PROMETHEUS is not installed (apt-get install prometheus)"
	[[ -x ${TEXTFILE_SCRIPT-} ]] || skip "TEXTFILE_SCRIPT (contrib/textfile/textfile) is not built"
	[[ -f ${TEXTFILE_SERVICE-} ]] || skip "configured --without-systemdsystemunitdir: no unit to take the command from"
	command -v "$PYTHON3" >/dev/null || skip "python3 is not installed"
	require_disk_tmpdir
	cd "$BATS_TEST_TMPDIR"
	PIDS=()
}

teardown() {
	local pid
	for pid in "${PIDS[@]}"; do
		kill "$pid" 2>/dev/null || true
	done
	for pid in "${PIDS[@]}"; do
		# bounded: a server that ignores SIGTERM for 10 s is killed
		timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || kill -9 "$pid" 2>/dev/null || true
	done
}

# A TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
	"$PYTHON3" -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# GET URL; the body on stdout, status 1 on any failure (5 s at most).
http_get() {
	"$PYTHON3" - "$1" <<-'EOF'
		import sys, urllib.request
		try:
		    with urllib.request.urlopen(sys.argv[1], timeout=5) as r:
		        sys.stdout.write(r.read().decode())
		except Exception as e:
		    sys.stderr.write("%s: %s\n" % (sys.argv[1], e))
		    sys.exit(1)
	EOF
}

# Wait until URL answers, at most SECONDS; LOG is the server's log, shown
# when it does not.
# usage: wait_for URL SECONDS LOG
wait_for() {
	local i
	for ((i = 0; i < $2 * 4; i++)); do
		http_get "$1" >/dev/null 2>&1 && return 0
		sleep 0.25
	done
	echo "$1 did not answer within $2 s; its log:" >&2
	tail -n 20 "$3" >&2
	return 1
}

# The value of the one sample PROMQL gives now, through Prometheus's HTTP
# API; status 1 while it gives none.
# usage: query PROMQL
query() {
	local q
	q=$("$PYTHON3" -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$1")
	http_get "http://127.0.0.1:$PROM_PORT/api/v1/query?query=$q" |
		command "$JQ" -e -r 'select(.status == "success") | .data.result
			| if length == 1 then .[0].value[1] else error("samples: \(length)") end'
}

# Poll query PROMQL for at most SECONDS until it gives a sample: its value
# in VALUE.
# usage: poll PROMQL SECONDS
poll() {
	local i
	for ((i = 0; i < $2 * 2; i++)); do
		VALUE=$(query "$1" 2>/dev/null) && return 0
		sleep 0.5
	done
	echo "no sample of $1 within $2 s" >&2
	return 1
}

@test "fleet: the service's command, node_exporter's textfile collector, Prometheus: PromQL gives the cached bytes pagestat measured" {
	mkdir -p textfile data/tree
	make_cached data/tree/a 12
	make_partial data/tree/b 10 2 3
	make_cached data/hot 7
	local conf=$PWD/textfile.conf
	printf '%s\n' "# the test's paths" "$PWD/data/tree" "$PWD/data/hot" >"$conf"

	# the unit's own command line, ${TEXTFILE} as systemd expands it and
	# the script where this build has it
	local exec
	exec=$(sed -n 's/^ExecStart=//p' "$TEXTFILE_SERVICE")
	[[ $exec == */textfile\ --output=\$\{TEXTFILE\} ]] || fail "ExecStart is '$exec'"
	exec=${exec//\$\{TEXTFILE\}/$PWD/textfile/pagestat.prom}
	read -r -a argv <<<"$exec"
	argv[0]=$TEXTFILE_SCRIPT
	rearrange
	run -0 timeout 120 "${argv[@]}" --config="$conf" --pagestat="$PAGESTAT"
	note_if_disturbed
	local tree_cached hot_cached tree_size
	tree_cached=$(awk -v s="pagestat_cached_bytes{path=\"$PWD/data/tree\",type=\"directory\"}" \
		'$1 == s { print $2 }' textfile/pagestat.prom)
	tree_size=$(awk -v s="pagestat_size_bytes{path=\"$PWD/data/tree\",type=\"directory\"}" \
		'$1 == s { print $2 }' textfile/pagestat.prom)
	hot_cached=$(awk -v s="pagestat_cached_bytes{path=\"$PWD/data/hot\",type=\"file\"}" \
		'$1 == s { print $2 }' textfile/pagestat.prom)
	# what was arranged: 12 + 3 pages, and 7
	assert_equal "$tree_cached" $((15 * PAGE))
	assert_equal "$hot_cached" $((7 * PAGE))
	assert_equal "$tree_size" $((22 * PAGE))

	local ne_port
	ne_port=$(free_port)
	"$NODE_EXPORTER" --collector.disable-defaults --collector.textfile \
		--collector.textfile.directory="$PWD/textfile" \
		--web.listen-address="127.0.0.1:$ne_port" >node-exporter.log 2>&1 &
	PIDS+=($!)
	wait_for "http://127.0.0.1:$ne_port/metrics" 30 node-exporter.log

	PROM_PORT=$(free_port)
	cp "$PROMETHEUS_RULES/pagestat.rules.yml" .
	cat >prometheus.yml <<-EOF
		global:
		  scrape_interval: 1s
		  evaluation_interval: 1s
		rule_files:
		  - $PWD/pagestat.rules.yml
		scrape_configs:
		  - job_name: node
		    static_configs:
		      - targets: ['127.0.0.1:$ne_port']
	EOF
	"$PROMETHEUS" --config.file="$PWD/prometheus.yml" --storage.tsdb.path="$PWD/tsdb" \
		--web.listen-address="127.0.0.1:$PROM_PORT" >prometheus.log 2>&1 &
	PIDS+=($!)
	wait_for "http://127.0.0.1:$PROM_PORT/-/ready" 60 prometheus.log

	poll "pagestat_cached_bytes{path=\"$PWD/data/tree\"}" 60
	assert_equal "$VALUE" "$tree_cached"
	run -0 query "pagestat_cached_bytes{path=\"$PWD/data/hot\",type=\"file\",job=\"node\"}"
	assert_output "$hot_cached"
	run -0 query 'node_textfile_scrape_error'
	assert_output 0
	run -0 query 'pagestat_errors'
	assert_output 0
	# the recording rule, evaluated by the server: 15 of 22 pages
	poll "instance_path:pagestat_cached:ratio{path=\"$PWD/data/tree\"}" 30
	run -0 "$PYTHON3" -c 'import sys; print(abs(float(sys.argv[1]) - 15 / 22) < 1e-9)' "$VALUE"
	assert_output True
	# and no alert fires on this warm, clean export
	run -0 http_get "http://127.0.0.1:$PROM_PORT/api/v1/alerts"
	assert_equal "$(command "$JQ" -r '[.data.alerts[] | select(.state == "firing")] | length' <<<"$output")" 0
}
