#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# UD traffic driven by stock rdma-core (ibv_ud_pingpong over librxe): on
# one device (loopback), and between two devices in two network
# namespaces joined by veth, over IPv4 and IPv6 GIDs. An independent
# decoder (tshark) reads the packets off the veth.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ibv_ud_pingpong >/dev/null || ktap_skip_all "ibverbs-utils missing"
ktap_plan 7

two_hosts ud 10.98.0 || ktap_skip_all "cannot build the two-host topology"
ns=$NS
ip addr add fd98::1/64 dev ud0 nodad
ip -n $ns addr add fd98::2/64 dev ud1 nodad

# gid_index DEV GID: index of the RoCE v2 entry holding GID
gid_index() {
	gid_find "$1" "$2" "RoCE v2"
}
v4a=0000:0000:0000:0000:0000:ffff:0a62:0001
v4b=0000:0000:0000:0000:0000:ffff:0a62:0002
v6a=fd98:0000:0000:0000:0000:0000:0000:0001
v6b=fd98:0000:0000:0000:0000:0000:0000:0002
wait_until 5 gid_index "$DEV0" $v6a >/dev/null
wait_until 5 gid_index "$DEV1" $v6b >/dev/null

# pingpong NAME SERVER_NS SERVER_DEV SERVER_GIDX CLIENT_DEV CLIENT_GIDX ADDR
pingpong() {
	local name=$1 sns=$2 sdev=$3 sgid=$4 cdev=$5 cgid=$6 addr=$7
	local log srv out status
	log=$(mktemp)
	${sns:+ip netns exec $sns} timeout 60 ibv_ud_pingpong -d "$sdev" \
		-g "$sgid" -n 200 -s 1024 > "$log" 2>&1 &
	srv=$!
	# The server listens on TCP 18515 once its QP is ready.
	wait_until 10 bash -c "${sns:+ip netns exec $sns} ss -ltn | grep -q ':18515 '"
	out=$(timeout 60 ibv_ud_pingpong -d "$cdev" -g "$cgid" -n 200 \
	      -s 1024 "$addr" 2>&1)
	status=$?
	wait $srv || status=$?
	if [ $status -eq 0 ] && grep -q "200 iters" <<< "$out" &&
	   grep -q "200 iters" "$log"; then
		ktap_diag "$name: $(grep iters <<< "$out")"
		ktap_pass "$name"
	else
		ktap_fail "$name" "client: $out / server: $(cat "$log")"
	fi
	rm -f "$log"
}

g0=$(gid_index "$DEV0" $v4a)
pingpong "loopback_ipv4" "" "$DEV0" "$g0" "$DEV0" "$g0" 127.0.0.1

make_work_dir
cap=$work/ud.pcap
capture_start ud0 "$cap"

pingpong "netns_ipv4" $ns "$DEV1" "$(gid_index "$DEV1" $v4b)" \
	"$DEV0" "$g0" 10.98.0.2
pingpong "netns_ipv6" $ns "$DEV1" "$(gid_index "$DEV1" $v6b)" \
	"$DEV0" "$(gid_index "$DEV0" $v6a)" 10.98.0.2

capture_stop
decoded=$work/ud.txt
tshark -r "$cap" -d udp.port==4791,infiniband -V > "$decoded" 2>/dev/null
ktap_check "tshark_decodes_ud_send" \
	grep -q "Unreliable Datagram (UD) - SEND only" "$decoded"
ktap_check "tshark_sees_deth" grep -q "Source Queue Pair" "$decoded"
# tshark flags packets whose lengths or headers it cannot reconcile.
ktap_check "tshark_no_malformed" \
	bash -c '! grep -qi "malformed" "$1"' _ "$decoded"
ktap_check "icrc_valid" "$(dirname "$0")/icrc_check.py" "$cap"

ktap_finish
