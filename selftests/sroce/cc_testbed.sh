#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# DCQCN on a congested path: two senders and one receiver, each in its
# own namespace, joined by a router namespace whose egress toward the
# receiver is limited (htb) with RED ECN marking, the congestion point of
# DCQCN. Two RDMA SEND flows share the bottleneck. Asserted: the
# receiver's notification point counts CE marks and sends CNPs, which
# leave with DSCP np_cnp_dscp (tshark, on the router), both senders'
# reaction points handle them, the flows share the link within 20%, and
# the router drops nothing. With the reaction point off on the senders
# (ECN not enabled, packets Not-ECT), RED drops instead and RC
# retransmits.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
command -v tc >/dev/null || ktap_skip_all "tc missing"
ktap_plan 7

# The bottleneck, well below what sroce reaches between namespaces here.
RATE=${SROCE_CC_RATE:-40mbit}
ITERS=${SROCE_CC_ITERS:-150}
SECS=30
NSS="ccs1 ccs2 ccr ccrt"

for n in $NSS; do
	ip netns add "$n" || ktap_skip_all "cannot create namespace $n"
	on_exit "ip netns del $n"
done
# s1a/rt1: sender 1, s2a/rt2: sender 2, ra/rt3: receiver; router in ccrt.
# link_to NS IFC PEER SUBNET: veth IFC in NS to PEER in the router.
link_to() {
	ip link add "$2" netns "$1" type veth peer name "$3" netns ccrt || return
	ip -n "$1" link set "$2" up && ip -n ccrt link set "$3" up &&
		ip -n "$1" addr add "$4.2/24" dev "$2" &&
		ip -n ccrt addr add "$4.1/24" dev "$3" &&
		ip -n "$1" route add default via "$4.1"
}
link_to ccs1 s1a rt1 10.91.1 && link_to ccs2 s2a rt2 10.91.2 &&
	link_to ccr ra rt3 10.91.3 ||
	ktap_skip_all "cannot build the topology"
ip netns exec ccrt sysctl -qw net.ipv4.ip_forward=1
# The router's port toward the receiver, as a switch's: RoCE (UDP/4791)
# in a class whose queue RED marks (ECT packets; it drops the others)
# from 15 KB of average queue; everything else (perftest's TCP) apart.
rtc() {
	ip netns exec ccrt tc "$@"
}
rtc qdisc add dev rt3 root handle 1: htb default 30 r2q 100 &&
	rtc class add dev rt3 parent 1: classid 1:1 htb rate "$RATE" &&
	rtc class add dev rt3 parent 1:1 classid 1:10 htb rate "$RATE" &&
	rtc class add dev rt3 parent 1:1 classid 1:30 htb rate 1mbit \
		ceil "$RATE" &&
	rtc qdisc add dev rt3 parent 1:10 handle 10: red limit 1000000 \
		min 15000 max 60000 avpkt 1100 burst 25 bandwidth "$RATE" \
		probability 0.2 ecn &&
	rtc qdisc add dev rt3 parent 1:30 handle 30: pfifo limit 1000 &&
	rtc filter add dev rt3 parent 1: protocol ip u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff \
		flowid 1:10 ||
	ktap_skip_all "cannot set up htb + red ecn (sch_htb, sch_red, cls_u32)"

for h in s1:s1a:1 s2:s2a:2 r:ra:3; do
	IFS=: read -r dev ifc sub <<<"$h"
	ns=cc${dev}
	ip netns exec "$ns" rdma link add "sroce_cc$dev" type sroce \
		netdev "$ifc" || ktap_skip_all "rdma link add over $ifc failed"
	on_exit "rdma link del sroce_cc$dev"
	wait_until 5 gid_v4 "sroce_cc$dev" "0a5b:0$sub""02" >/dev/null
done
gs1=$(gid_v4 sroce_ccs1 0a5b:0102) && gs2=$(gid_v4 sroce_ccs2 0a5b:0202) &&
	gr=$(gid_v4 sroce_ccr 0a5b:0302) || ktap_skip_all "GIDs missing"

# stat DEV NAME: one port counter
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# red_stat FIELD: the router's RED qdisc's "dropped" or "marked" count
red_stat() {
	rtc -s qdisc show dev rt3 parent 1:10 |
		tr -d '(),' | awk -v f="$1" '{ for (i = 1; i < NF; i++)
			if ($i == f) { print $(i + 1); exit } }'
}

# flows TAG: one RDMA SEND flow of $ITERS 64 KiB messages from each
# sender to the receiver, started together (perftest's event mode: busy
# polling would starve the emulated CPUs that forward). Sets bw1 and bw2,
# each sender's rate in Mbit/s from its byte counter over the time both
# flows ran (until the first one ended), or returns non-zero.
flows() {
	local p c1 c2 b1 b2 t0 t1 status=0 servers=()
	make_work_dir
	for p in 1 2; do
		ip netns exec ccr timeout 150 ib_send_bw -d sroce_ccr -x "$gr" \
			-F -e -n "$ITERS" -p $((18600 + p)) > "$work/srv$p" 2>&1 &
		servers+=($!)
	done
	if ! wait_until 20 bash -c "ip netns exec ccr ss -ltn | grep -q ':18602 '" ||
	   ! wait_until 20 bash -c "ip netns exec ccr ss -ltn | grep -q ':18601 '"; then
		ktap_diag "servers: $(tail -n 3 "$work/srv1" "$work/srv2" | tr '\n' ' ')"
		kill "${servers[@]}" 2>/dev/null
		wait "${servers[@]}"
		return 1
	fi
	b1=$(stat sroce_ccs1 sent_bytes)
	b2=$(stat sroce_ccs2 sent_bytes)
	t0=${EPOCHREALTIME/./}
	ip netns exec ccs1 timeout 150 ib_send_bw -d sroce_ccs1 -x "$gs1" -F -e \
		-n "$ITERS" -p 18601 10.91.3.2 > "$work/c1" 2>&1 &
	c1=$!
	ip netns exec ccs2 timeout 150 ib_send_bw -d sroce_ccs2 -x "$gs2" -F -e \
		-n "$ITERS" -p 18602 10.91.3.2 > "$work/c2" 2>&1 &
	c2=$!
	wait -n $c1 $c2 || status=$?
	t1=${EPOCHREALTIME/./}
	bw1=$(( ($(stat sroce_ccs1 sent_bytes) - b1) * 8 / ((10#$t1 - 10#$t0) / 1000) / 1000 ))
	bw2=$(( ($(stat sroce_ccs2 sent_bytes) - b2) * 8 / ((10#$t1 - 10#$t0) / 1000) / 1000 ))
	wait $c1 || status=$?
	wait $c2 || status=$?
	wait "${servers[@]}"
	ktap_diag "$1: $(( (10#$t1 - 10#$t0) / 1000 )) ms together: flow 1 $bw1 Mbit/s, flow 2 $bw2 Mbit/s"
	if [ $status -ne 0 ]; then
		ktap_diag "clients: $(tail -n 3 "$work/c1" "$work/c2" | tr '\n' ' ')"
		return 1
	fi
}

# CNPs on the router's side of sender 1: BTH opcode 0x81 in UDP/4791.
cap=$(mktemp)
on_exit "rm -f $cap"
ip netns exec ccrt timeout $((SECS + 120)) tshark -q -i rt1 \
	-f "udp dst port 4791 and udp[8] = 0x81" -w "$cap" 2> "$cap.log" &
tshark_pid=$!
on_exit "kill $tshark_pid; rm -f $cap.log"
wait_until 60 grep -q "Capturing on" "$cap.log" ||
	ktap_diag "tshark did not start: $(cat "$cap.log")"

np0=$(stat sroce_ccr np_cnp_sent)
ce0=$(stat sroce_ccr np_ecn_marked_roce_packets)
h10=$(stat sroce_ccs1 rp_cnp_handled)
h20=$(stat sroce_ccs2 rp_cnp_handled)
d0=$(red_stat dropped)
tx10=$(stat sroce_ccs1 sent_pkts)
# The router's RoCE queue, twice a second until the flows end.
( while [ ! -e "$cap.done" ]; do
	echo "$(rtc -s qdisc show dev rt3 parent 1:10 | awk '/backlog/ { print $2 }'),$(stat sroce_ccs1 sent_bytes),$(stat sroce_ccs2 sent_bytes),$(stat sroce_ccr np_cnp_sent)"
	nap 0.5
done > "$cap.backlog" ) &
sampler=$!
on_exit "rm -f $cap.done $cap.backlog"
if flows "DCQCN on"; then
	ktap_pass "two flows through the congested router"
else
	ktap_fail "two flows through the congested router" "perftest failed"
fi
touch "$cap.done"
wait $sampler
ce=$(( $(stat sroce_ccr np_ecn_marked_roce_packets) - ce0 ))
np=$(( $(stat sroce_ccr np_cnp_sent) - np0 ))
h1=$(( $(stat sroce_ccs1 rp_cnp_handled) - h10 ))
h2=$(( $(stat sroce_ccs2 rp_cnp_handled) - h20 ))
drops=$(( $(red_stat dropped) - d0 ))
ktap_diag "CE marked $ce, CNPs sent $np, handled $h1 + $h2, router marked $(red_stat marked), dropped $drops"
ktap_diag "sender 1 sent $(( $(stat sroce_ccs1 sent_pkts) - tx10 )) packets; backlog samples: $(tr '\n' ' ' < "$cap.backlog")"
if [ "$ce" -gt 0 ] && [ "$np" -gt 0 ] && [ "$np" -le "$ce" ]; then
	ktap_pass "the receiver's notification point answers CE marks with CNPs"
else
	ktap_fail "the receiver's notification point answers CE marks with CNPs"
fi
if [ "$h1" -gt 0 ] && [ "$h2" -gt 0 ]; then
	ktap_pass "both senders' reaction points handle CNPs"
else
	ktap_fail "both senders' reaction points handle CNPs"
fi
if [ -n "${bw1:-}" ] && awk -v a="$bw1" -v b="$bw2" \
	'BEGIN { d = a > b ? a - b : b - a; m = a > b ? a : b; exit !(m > 0 && d <= 0.2 * m) }'; then
	ktap_pass "the two flows share the bottleneck within 20%"
else
	ktap_fail "the two flows share the bottleneck within 20%" "${bw1:-?} vs ${bw2:-?} Mbit/s"
fi
if [ "$drops" -eq 0 ]; then
	ktap_pass "the router drops nothing"
else
	ktap_fail "the router drops nothing" "$drops dropped"
fi

kill "$tshark_pid" 2>/dev/null
wait "$tshark_pid" 2>/dev/null
dscp=$(tshark -r "$cap" -T fields -e ip.dsfield.dscp -e ip.dsfield.ecn 2>/dev/null |
	sort | uniq -c | sort -rn | head -n 1)
ktap_diag "CNPs captured (count, DSCP, ECN): ${dscp:-none}"
if [ -n "$dscp" ] && [ "$(echo "$dscp" | awk '{ print $2 "/" $3 }')" = "48/0" ]; then
	ktap_pass "CNPs leave with DSCP 48, Not-ECT"
else
	ktap_fail "CNPs leave with DSCP 48, Not-ECT"
fi

ktap_skip "ECN off: the router drops" "no interface to turn the reaction point off yet"

ktap_finish
