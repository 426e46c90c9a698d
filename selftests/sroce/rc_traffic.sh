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

ns=sroce_rc_ns
ip netns add $ns || ktap_skip_all "cannot create a namespace"
on_exit "ip netns del $ns"
ip link add rc0 type veth peer name rc1 netns $ns
on_exit "ip link del rc0"
ip link set rc0 up
ip -n $ns link set rc1 up
ip addr add 10.97.0.1/24 dev rc0
ip -n $ns addr add 10.97.0.2/24 dev rc1
link_add sroce_rc0 rc0
ip netns exec $ns rdma link add sroce_rc1 type sroce netdev rc1

# RoCE v2 IPv4 GID index of DEV for ADDR_HEX (e.g. 0a61:0001)
gid_v4() {
	local f i
	for f in /sys/class/infiniband/$1/ports/1/gids/*; do
		i=${f##*/}
		grep -q "ffff:$2\$" "$f" &&
			[ "$(cat /sys/class/infiniband/$1/ports/1/gid_attrs/types/$i 2>/dev/null)" = "RoCE v2" ] &&
			echo "$i" && return 0
	done
	return 1
}
wait_until 5 gid_v4 sroce_rc0 0a61:0001 >/dev/null
wait_until 5 gid_v4 sroce_rc1 0a61:0002 >/dev/null
g0=$(gid_v4 sroce_rc0 0a61:0001)
g1=$(gid_v4 sroce_rc1 0a61:0002)

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
	out=$(timeout 120 "$tool" -d sroce_rc0 -g "$g0" "$@" "$addr" 2>&1)
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

pingpong rc_loopback ibv_rc_pingpong "" sroce_rc0 "$g0" 127.0.0.1 -n 200 -c
pingpong rc_netns ibv_rc_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 -n 200 -c
pingpong rc_netns_1byte ibv_rc_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 \
	-n 200 -s 1 -c
pingpong rc_netns_64k ibv_rc_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 \
	-n 50 -s 65536 -c
pingpong rc_netns_events ibv_rc_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 \
	-n 200 -e -c
pingpong uc_netns ibv_uc_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 \
	-n 200 -s 4096 -c
pingpong uc_loopback ibv_uc_pingpong "" sroce_rc0 "$g0" 127.0.0.1 -n 200 -c
# Shared receive queue: four QPs receiving from one SRQ.
pingpong srq_netns ibv_srq_pingpong $ns sroce_rc1 "$g1" 10.97.0.2 \
	-n 200 -q 4 -c
pingpong srq_loopback_events ibv_srq_pingpong "" sroce_rc0 "$g0" 127.0.0.1 \
	-n 200 -q 8 -e

ktap_finish
