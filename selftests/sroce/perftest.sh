#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# perftest, the tool RDMA people benchmark with, completes every test it
# has against sroce between two namespaces: send/write/read/atomic
# bandwidth and latency, UD send, several QPs, all message sizes, with the
# ibv_wr_* API (default) and with the old ibv_post_send API. Only
# completion is asserted here; figures belong to tools/bench.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
ktap_plan 14
# perftest's QPs keep its default transport timeout (2^14 * 4.096 us, 67
# ms), shorter than a round trip under KASAN (check-debug: write_bw_4qp
# and send_bw_all_sizes ended in retry exceeded).
debug_timing_is_todo

two_hosts pt 10.94.0 || ktap_skip_all "cannot build the two-host topology"
ns=$NS
g0=$G0
g1=$G1

# perf NAME TOOL ARGS...: server in the namespace, client here
perf() {
	local name=$1 tool=$2 slog clog srv status
	shift 2
	slog=$(mktemp)
	clog=$(mktemp)
	ip netns exec $ns timeout 120 stdbuf -oL "$tool" -d "$DEV1" \
		-x "$g1" -F "$@" > "$slog" 2>&1 &
	srv=$!
	wait_until 20 bash -c "ip netns exec $ns ss -ltn | grep -q ':18515 '"
	timeout 120 stdbuf -oL "$tool" -d "$DEV0" -x "$g0" -F "$@" \
		10.94.0.2 > "$clog" 2>&1
	status=$?
	wait $srv || status=$?
	# A finished run prints its result table and a closing rule.
	if [ $status -eq 0 ] && grep -Eq '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$clog"; then
		ktap_diag "$name: $(grep -E '^ *[0-9]+ +[0-9]+ +[0-9.]+' "$clog" | tail -n 1 | tr -s ' ')"
		ktap_pass "$name"
	else
		ktap_fail "$name" "status $status; client: $(tail -n 5 "$clog"); server: $(tail -n 5 "$slog")"
	fi
	rm -f "$slog" "$clog"
}

perf send_bw ib_send_bw -n 300
perf write_bw ib_write_bw -n 300
perf read_bw ib_read_bw -n 300
perf atomic_bw ib_atomic_bw -n 300
perf send_lat ib_send_lat -n 300
perf write_lat ib_write_lat -n 300
perf read_lat ib_read_lat -n 300
perf atomic_lat ib_atomic_lat -n 300
perf ud_send_bw ib_send_bw -c UD -n 300
perf write_bw_4qp ib_write_bw -q 4 -n 200
perf send_bw_all_sizes ib_send_bw -a -n 20
perf write_bw_old_post_send ib_write_bw --use_old_post_send -n 300
perf read_bw_old_post_send ib_read_bw --use_old_post_send -n 300
perf ud_send_bw_old_post_send ib_send_bw -c UD --use_old_post_send -n 300

ktap_finish
