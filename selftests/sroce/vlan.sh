#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RoCE over a VLAN: two sroce devices on a veth pair between two
# namespaces, VLAN 100 on top of each end with its own IPv4 and IPv6
# addresses. The VLAN addresses' GIDs carry RC and UD traffic (RoCE v2 over
# IPv4 and IPv6, RoCE v1) and RDMA CM connections; a capture on the
# underlying veth shows every RoCE frame tagged with VLAN 100 and the
# priority (PCP) the address vector's SL asks for. The VLAN devices map
# skb priorities to PCPs with a non-identity egress map (2 -> 5), so the
# PCP 5 frames prove the egress map is what turns an SL into a priority,
# and the RDMA CM case proves the chain ToS -> priority -> egress map ->
# SL -> PCP that rdma_cm users configure.
. "$(dirname "$0")/lib.sh"

require_sroce
for tool in ibv_rc_pingpong ibv_ud_pingpong ucmatose tshark dumpcap; do
	command -v $tool >/dev/null || ktap_skip_all "$tool not installed"
done
modprobe 8021q 2>/dev/null
ktap_plan 12

two_hosts vl 10.89.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir
egress="egress-qos-map 2:5 3:3 6:6"
ip link add link vl0 name vl0.100 type vlan id 100 $egress &&
	nsx ip link add link vl1 name vl1.100 type vlan id 100 $egress ||
	ktap_skip_all "cannot create VLAN devices"
on_exit "ip link del vl0.100"
ip link set vl0.100 up
nsx ip link set vl1.100 up
ip addr add 10.89.100.1/24 dev vl0.100
nsx ip addr add 10.89.100.2/24 dev vl1.100
ip addr add fd89:100::1/64 dev vl0.100 nodad
nsx ip addr add fd89:100::2/64 dev vl1.100 nodad

v4a=0000:0000:0000:0000:0000:ffff:0a59:6401
v4b=0000:0000:0000:0000:0000:ffff:0a59:6402
v6a=fd89:0100:0000:0000:0000:0000:0000:0001
v6b=fd89:0100:0000:0000:0000:0000:0000:0002

vlan_gids() {
	A4=$(gid_find "$DEV0" $v4a "RoCE v2") &&
		B4=$(gid_find "$DEV1" $v4b "RoCE v2") &&
		A6=$(gid_find "$DEV0" $v6a "RoCE v2") &&
		B6=$(gid_find "$DEV1" $v6b "RoCE v2") &&
		A1=$(gid_find "$DEV0" $v4a "IB/RoCE v1") &&
		B1=$(gid_find "$DEV1" $v4b "IB/RoCE v1")
}
if wait_until 10 vlan_gids; then
	vlan_gids
	ktap_pass vlan_gids_present
else
	ktap_fail vlan_gids_present "GIDs of the VLAN addresses missing"
	ktap_finish
fi
# The GID's netdev is the VLAN device, which is what rdma_cm matches.
gid_ndev() {
	cat "/sys/class/infiniband/$1/ports/1/gid_attrs/ndevs/$2" 2>/dev/null
}
if [ "$(gid_ndev "$DEV0" "$A4")" = vl0.100 ] &&
   [ "$(nsx cat "/sys/class/infiniband/$DEV1/ports/1/gid_attrs/ndevs/$B6")" = vl1.100 ]; then
	ktap_pass vlan_gids_name_vlan_netdev
else
	ktap_fail vlan_gids_name_vlan_netdev \
		"ndevs: $(gid_ndev "$DEV0" "$A4") / $(nsx cat "/sys/class/infiniband/$DEV1/ports/1/gid_attrs/ndevs/$B6")"
fi

# Fields of every RoCE frame captured in FILE, one line per frame:
# VLAN id, PCP, ethertype inside the tag (empty when untagged).
roce_frames() {
	tshark -r "$1" -d udp.port==4791,infiniband \
		--disable-protocol rpcordma \
		-Y 'udp.port == 4791 || eth.type == 0x8915 || vlan.etype == 0x8915' \
		-T fields -E separator=, -e vlan.id -e vlan.priority -e vlan.etype \
		2>/dev/null
}

# vlan_case NAME PCP ETHERTYPE PORT SERVER... -- CLIENT...: run the pair
# with a capture on vl0; pass if it succeeds, then check that it sent RoCE
# frames and that every one is tagged 100/PCP with ETHERTYPE inside.
vlan_case() {
	local name=$1 pcp=$2 etype=$3 port=$4 cap frames bad
	shift 4
	cap=$work/$name.pcapng
	capture_start vl0 "$cap"
	server_client "$name" "$port" "$@"
	capture_stop
	frames=$(roce_frames "$cap")
	bad=$(grep -vc "^100,$pcp,$etype\$" <<<"$frames")
	if [ -n "$frames" ] && [ "$bad" -eq 0 ]; then
		ktap_diag "$name: $(wc -l <<<"$frames") RoCE frames, all VLAN 100 PCP $pcp"
		ktap_pass "${name}_tagged_pcp$pcp"
	else
		ktap_fail "${name}_tagged_pcp$pcp" \
			"$bad of $(wc -l <<<"$frames") frames not 100,$pcp,$etype: $(sort <<<"$frames" | uniq -c | tr '\n' ' ')"
	fi
}

# SL 5: no priority maps to 5 but 2, so the frames carry priority 2.
vlan_case rc_ipv4_sl5 5 0x0800 18611 \
	ibv_rc_pingpong -d "$DEV1" -g "$B4" -p 18611 -n 200 -s 4096 -l 5 -c -- \
	ibv_rc_pingpong -d "$DEV0" -g "$A4" -p 18611 -n 200 -s 4096 -l 5 -c \
	10.89.0.2
vlan_case ud_ipv4_sl3 3 0x0800 18612 \
	ibv_ud_pingpong -d "$DEV1" -g "$B4" -p 18612 -n 200 -s 1024 -l 3 -c -- \
	ibv_ud_pingpong -d "$DEV0" -g "$A4" -p 18612 -n 200 -s 1024 -l 3 -c \
	10.89.0.2
vlan_case rc_ipv6_sl0 0 0x86dd 18613 \
	ibv_rc_pingpong -d "$DEV1" -g "$B6" -p 18613 -n 200 -s 2048 -c -- \
	ibv_rc_pingpong -d "$DEV0" -g "$A6" -p 18613 -n 200 -s 2048 -c \
	10.89.0.2
vlan_case rc_roce_v1_sl6 6 0x8915 18614 \
	ibv_rc_pingpong -d "$DEV1" -g "$B1" -p 18614 -n 200 -s 2048 -l 6 -c -- \
	ibv_rc_pingpong -d "$DEV0" -g "$A1" -p 18614 -n 200 -s 2048 -l 6 -c \
	10.89.0.2

# RDMA CM: ToS 0x08 is priority 2 (rt_tos2priority), which the egress
# map makes PCP 5; rdma_cm turns that into the connection's SL.
cap=$work/ucmatose.pcapng
capture_start vl0 "$cap"
nsx timeout 60 ucmatose -b 10.89.100.2 -c 2 -C 10 >"$work/cm.srv" 2>&1 &
cm_srv=$!
cm_listening() {
	nsx rdma resource show cm_id 2>/dev/null | grep -q LISTEN
}
wait_until 20 cm_listening
timeout 60 ucmatose -s 10.89.100.2 -c 2 -C 10 -t 8 >"$work/cm.cli" 2>&1
cm_rc=$?
wait $cm_srv
cm_src=$?
capture_stop
if [ $cm_rc = 0 ] && [ $cm_src = 0 ] &&
   grep -q '^test complete$' "$work/cm.cli"; then
	ktap_pass rdma_cm_tos_over_vlan
else
	ktap_fail rdma_cm_tos_over_vlan "client $cm_rc, server $cm_src: $(tail -n 3 "$work/cm.cli" | tr '\n' ' ')"
fi
# The client's frames: ToS 0x08 (DSCP 2) in the IP header, with the ECN
# field ECT(0) as the reaction point is on for every priority by default;
# PCP 5 in the tag.
frames=$(tshark -r "$cap" -d udp.port==4791,infiniband \
	--disable-protocol rpcordma \
	-Y 'udp.dstport == 4791 && ip.src == 10.89.100.1' \
	-T fields -E separator=, -e vlan.id -e vlan.priority \
	-e ip.dsfield.dscp -e ip.dsfield.ecn 2>/dev/null)
bad=$(grep -vc "^100,5,2,2$" <<<"$frames")
if [ -n "$frames" ] && [ "$bad" -eq 0 ]; then
	ktap_diag "rdma_cm: $(wc -l <<<"$frames") frames with DSCP 2 (ToS 0x08) and ECT(0), all VLAN 100 PCP 5"
	ktap_pass rdma_cm_tos_to_pcp
else
	ktap_fail rdma_cm_tos_to_pcp "$bad of $(wc -l <<<"$frames") not VLAN 100, PCP 5, DSCP 2, ECT(0): $(sort <<<"$frames" | uniq -c | tr '\n' ' ')"
	ktap_diag "capture: $(tshark -r "$cap" 2>&1 | wc -l) frames; $(tr '\n' ' ' <"$cap.log")"
	tshark -r "$cap" 2>&1 | tail -n 20 | sed 's/^/#   /'
fi

ktap_finish
