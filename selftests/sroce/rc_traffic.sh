#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RC and UC traffic driven by stock rdma-core (ibv_rc_pingpong,
# ibv_uc_pingpong and ibv_srq_pingpong, with -c data validation where the
# tool has it): loopback on one device and between two namespaces,
# messages from one byte to many path MTUs, polling and completion
# events, and a shared receive queue.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ibv_rc_pingpong >/dev/null || ktap_skip_all "ibverbs-utils missing"
ktap_plan 9

two_hosts rc 10.97.0 || ktap_skip_all "cannot build the two-host topology"
ns=$NS
g0=$G0
g1=$G1

# pingpong NAME TOOL SERVER_NS SERVER_DEV SERVER_GID ADDR ARGS...
pingpong() {
	local name=$1 tool=$2 sns=$3 sdev=$4 sgid=$5 addr=$6 log srv out
	local status
	shift 6
	log=$(mktemp)
	${sns:+ip netns exec $sns} timeout 120 "$tool" -d "$sdev" -g "$sgid" \
		"$@" > "$log" 2>&1 &
	srv=$!
	wait_until 10 bash -c "${sns:+ip netns exec $sns} ss -ltn | grep -q ':18515 '"
	out=$(timeout 120 "$tool" -d "$DEV0" -g "$g0" "$@" "$addr" 2>&1)
	status=$?
	wait $srv || status=$?
	if [ $status -eq 0 ] && grep -q " iters in " <<< "$out" &&
	   grep -q " iters in " "$log"; then
		ktap_diag "$name: $(grep 'iters in' <<< "$out")"
		ktap_pass "$name"
	else
		ktap_fail "$name" "client: $out / server: $(cat "$log")"
	fi
	rm -f "$log"
}

pingpong rc_loopback ibv_rc_pingpong "" "$DEV0" "$g0" 127.0.0.1 -n 200 -c
pingpong rc_netns ibv_rc_pingpong $ns "$DEV1" "$g1" 10.97.0.2 -n 200 -c
pingpong rc_netns_1byte ibv_rc_pingpong $ns "$DEV1" "$g1" 10.97.0.2 \
	-n 200 -s 1 -c
pingpong rc_netns_64k ibv_rc_pingpong $ns "$DEV1" "$g1" 10.97.0.2 \
	-n 50 -s 65536 -c
pingpong rc_netns_events ibv_rc_pingpong $ns "$DEV1" "$g1" 10.97.0.2 \
	-n 200 -e -c
pingpong uc_netns ibv_uc_pingpong $ns "$DEV1" "$g1" 10.97.0.2 \
	-n 200 -s 4096 -c
pingpong uc_loopback ibv_uc_pingpong "" "$DEV0" "$g0" 127.0.0.1 -n 200 -c
# Shared receive queue: four QPs receiving from one SRQ.
pingpong srq_netns ibv_srq_pingpong $ns "$DEV1" "$g1" 10.97.0.2 \
	-n 200 -q 4 -c
pingpong srq_loopback_events ibv_srq_pingpong "" "$DEV0" "$g0" 127.0.0.1 \
	-n 200 -q 8 -e

ktap_finish
