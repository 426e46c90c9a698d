#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The congestion testbed's topology, sourced by cc_testbed.sh and by
# tools/cc-testbed (the same network, in a test and outside one).
#
# N senders (namespaces ccs1..ccsN, sroce devices sroce_ccs1..N over
# s1a..sNa, 10.91.K.2) and one receiver (ccr, sroce_ccr over ra,
# 10.91.0.2), each joined by a veth pair to the router namespace ccrt
# (rtK, rtr; 10.91.K.1, 10.91.0.1). The router's port toward the receiver
# is a switch's congested egress, DCQCN's congestion point: RoCE
# (UDP/4791) in an htb class limited to RATE whose RED queue marks ECT
# packets (and drops Not-ECT ones) between 15 and 60 KB of average queue
# at probability 0.2 at most; everything else (perftest's TCP) in a class
# of its own. Sender K's netdev has ifindex 9100+K and the receiver's
# 9100, so tracepoints (ifindex=) name the flow in every namespace.
#
#   cct_up N RATE     build it (every step's failure: non-zero, a message)
#   cct_down          remove it (the namespaces and with them the devices)
#   cct_gid DEV       DEV's RoCE v2 GID of its IPv4 address
#   cct_stat DEV NAME one port counter of DEV
#   cct_red FIELD     the router RED queue's "dropped", "marked" or
#                     "backlog" (bytes)

CCT_ROUTER=ccrt
CCT_RECEIVER=ccr
CCT_IFINDEX=9100

# cct_wait SECONDS COMMAND...: poll COMMAND every 10 ms until it succeeds
cct_wait() {
	local deadline=$(( ${EPOCHREALTIME/./} + $1 * 1000000 ))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$deadline" ] || return 1
		read -r -t 0.01 <> <(:) || true
	done
}

# cct_link NS IFC INDEX PEER SUBNET: a veth IFC (ifindex INDEX) in NS to
# PEER in the router, SUBNET.2 and SUBNET.1, NS routed through the router
cct_link() {
	ip netns add "$1" &&
		ip link add "$2" index "$3" netns "$1" type veth \
			peer name "$4" netns $CCT_ROUTER &&
		ip -n "$1" link set "$2" up && ip -n $CCT_ROUTER link set "$4" up &&
		ip -n "$1" addr add "$5.2/24" dev "$2" &&
		ip -n $CCT_ROUTER addr add "$5.1/24" dev "$4" &&
		ip -n "$1" route add default via "$5.1"
}

# cct_device NS DEV IFC HEX: sroce device DEV over IFC in NS, up to its
# RoCE v2 GID of the address whose last 32 bits are HEX
cct_device() {
	ip netns exec "$1" rdma link add "$2" type sroce netdev "$3" || return
	cct_wait 10 cct_has_gid "$2" "$4"
}

cct_has_gid() {
	grep -qx "0000:0000:0000:0000:0000:ffff:$2" \
		/sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}

# (read, not cat: a table of many empty entries costs a fork each under
# TCG, seconds in all)
cct_gid() {
	local d=/sys/class/infiniband/$1/ports/1 f i gid type
	for f in "$d"/gids/*; do
		i=${f##*/}
		read -r gid < "$f" || continue
		case $gid in 0000:0000:0000:0000:0000:ffff:*) ;; *) continue ;; esac
		read -r type < "$d/gid_attrs/types/$i" 2>/dev/null &&
			[ "$type" = "RoCE v2" ] && { echo "$i"; return; }
	done
	return 1
}

cct_up() {
	local n=$1 rate=$2 k
	ip netns add $CCT_ROUTER &&
		ip netns exec $CCT_ROUTER sysctl -qw net.ipv4.ip_forward=1 &&
		cct_link $CCT_RECEIVER ra $CCT_IFINDEX rtr 10.91.0 ||
		{ echo "cc topology: cannot create the router and receiver" >&2; return 1; }
	for k in $(seq "$n"); do
		cct_link "ccs$k" "s${k}a" $((CCT_IFINDEX + k)) "rt$k" "10.91.$k" ||
			{ echo "cc topology: cannot link sender $k" >&2; return 1; }
	done
	cct_tc qdisc add dev rtr root handle 1: htb default 30 r2q 100 &&
		cct_tc class add dev rtr parent 1: classid 1:1 htb rate "$rate" &&
		cct_tc class add dev rtr parent 1:1 classid 1:10 htb rate "$rate" &&
		cct_tc class add dev rtr parent 1:1 classid 1:30 htb rate 1mbit \
			ceil "$rate" &&
		cct_tc qdisc add dev rtr parent 1:10 handle 10: red limit 1000000 \
			min 15000 max 60000 avpkt 1100 burst 25 bandwidth "$rate" \
			probability 0.2 ecn &&
		cct_tc qdisc add dev rtr parent 1:30 handle 30: pfifo limit 1000 &&
		cct_tc filter add dev rtr parent 1: protocol ip u32 \
			match ip protocol 17 0xff match ip dport 4791 0xffff \
			flowid 1:10 ||
		{ echo "cc topology: cannot set up htb + red ecn (sch_htb, sch_red, cls_u32)" >&2; return 1; }
	cct_device $CCT_RECEIVER sroce_ccr ra 0a5b:0002 ||
		{ echo "cc topology: sroce_ccr over ra failed" >&2; return 1; }
	for k in $(seq "$n"); do
		cct_device "ccs$k" "sroce_ccs$k" "s${k}a" "$(printf '0a5b:%02x02' "$k")" ||
			{ echo "cc topology: sroce_ccs$k over s${k}a failed" >&2; return 1; }
	done
}

cct_down() {
	local ns
	rdma link show 2>/dev/null | awk '$2 ~ /^sroce_cc(s[0-9]+|r)\// { sub("/.*", "", $2); print $2 }' |
		xargs -r -n 1 rdma link del 2>/dev/null
	for ns in $(ip netns list | awk '$1 ~ /^cc(s[0-9]+|r|rt)$/ { print $1 }'); do
		ip netns pids "$ns" | xargs -r kill 2>/dev/null
		ip netns del "$ns"
	done
}

cct_tc() {
	tc -n $CCT_ROUTER "$@"
}

cct_stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

cct_red() {
	cct_tc -s qdisc show dev rtr parent 1:10 | tr -d '(),' | awk -v f="$1" '
		{ for (i = 1; i < NF; i++) if ($i == f) { v = $(i + 1); break } }
		END { m = 1; if (v ~ /Kb$/) m = 1024; if (v ~ /Mb$/) m = 1048576
			print (v + 0) * m }'
}
