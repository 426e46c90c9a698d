#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA CM over a VLAN between two sroce functions of ONE network
# namespace: both ends of a veth pair in one namespace, VLAN 300 on each,
# sroce on each real device and an address on each VLAN device. Packets
# between the two functions take the internal loopback (no skb->dev of a
# VLAN device on receive), so the CM's UD receives (REQ, REP, RTU) carry
# the VLAN only if the firmware takes it from the destination GID entry;
# without IB_WC_WITH_VLAN the CM finds no GID entry of the VLAN device to
# answer from and the connection never forms (REQ dropped; on the old
# firmware the client times out or is rejected). Cases: rping (RC, data
# verified), ucmatose (10 RC connections), udaddy (UD, address handles made
# from the received completions), each with the client bound to the
# address of the other function; both functions' counters show the
# traffic was between them.
. "$(dirname "$0")/lib.sh"

require_sroce
for tool in rping ucmatose udaddy; do
	command -v $tool >/dev/null || ktap_skip_all "rdmacm-utils missing"
done
modprobe 8021q 2>/dev/null
ktap_plan 4

NS=vo_ns
A=sroce_vo0
B=sroce_vo1
ipa=10.84.30.1
ipb=10.84.30.2
ip netns add $NS || ktap_skip_all "cannot create a namespace"
on_exit "ip netns del $NS"
nsx ip link add vo0 type veth peer name vo1 || ktap_skip_all "cannot create veth"
nsx ip link set lo up
nsx ip link set vo0 up
nsx ip link set vo1 up
nsx ip link add link vo0 name vo0.300 type vlan id 300 &&
	nsx ip link add link vo1 name vo1.300 type vlan id 300 ||
	ktap_skip_all "cannot create VLAN devices"
nsx ip link set vo0.300 up
nsx ip link set vo1.300 up
# The client bound to $ipa resolves $ipb through vo0.300 (rdma_cm routes
# with the bound device as oif, which skips the local route), so ARP
# crosses the veth between two addresses of this namespace: accept it.
nsx sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0
nsx ip addr add $ipa/24 dev vo0.300
nsx ip addr add $ipb/24 dev vo1.300
nsx rdma link add $A type sroce netdev vo0 &&
	nsx rdma link add $B type sroce netdev vo1 ||
	ktap_skip_all "rdma link add failed"
on_exit "rdma link del $A"
on_exit "rdma link del $B"

gid_a=0000:0000:0000:0000:0000:ffff:0a54:1e01
gid_b=0000:0000:0000:0000:0000:ffff:0a54:1e02
both_gids() {
	ga=$(gid_find $A $gid_a "RoCE v2") && gb=$(gid_find $B $gid_b "RoCE v2")
}
if wait_until 10 both_gids &&
   [ "$(cat /sys/class/infiniband/$A/ports/1/gid_attrs/ndevs/$ga)" = vo0.300 ] &&
   [ "$(cat /sys/class/infiniband/$B/ports/1/gid_attrs/ndevs/$gb)" = vo1.300 ]; then
	ktap_pass vlan_gids_on_both_functions
else
	ktap_fail vlan_gids_on_both_functions "GIDs of $ipa on $A / $ipb on $B (VLAN netdevs) missing"
	ktap_finish
fi

make_work_dir
slog=$work/server
clog=$work/client
srv=
stop_server() {
	[ -n "$srv" ] || return 0
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
}
on_exit stop_server

server_gone() {
	local st
	kill -0 "$srv" 2>/dev/null || return 0
	read -r _ _ st _ 2>/dev/null < "/proc/$srv/stat" || return 0
	[ "$st" = Z ]
}

# cm_listen COMM: a cm_id of COMM listens on the server's address
cm_listen() {
	rdma resource show cm_id 2>/dev/null |
		grep -Eq "state LISTEN .*comm $1 src-addr $ipb:"
}

cm_listen_or_gone() {
	cm_listen "$1" || server_gone
}

pkts() {
	echo $(( $(cat /sys/class/infiniband/$1/ports/1/hw_counters/sent_pkts) +
		 $(cat /sys/class/infiniband/$1/ports/1/hw_counters/rcvd_pkts) ))
}

# cm_case NAME CHECK SERVER... -- CLIENT...: both in the namespace, the
# client once the server listens; passes NAME if both exit 0, CHECK (a
# function of the two logs) holds and both functions sent and received.
cm_case() {
	local name=$1 check=$2 s=() cst sst a0 b0 da db
	shift 2
	while [ "$1" != -- ]; do s+=("$1"); shift; done
	shift
	a0=$(pkts $A)
	b0=$(pkts $B)
	nsx timeout 40 stdbuf -oL "${s[@]}" >"$slog" 2>&1 &
	srv=$!
	wait_until 30 cm_listen_or_gone "${s[0]}"
	if ! cm_listen "${s[0]}"; then
		stop_server
		ktap_fail "$name" "server never listened: $(tail -n 3 "$slog" | tr '\n' ' ')"
		return
	fi
	nsx timeout 40 stdbuf -oL "$@" >"$clog" 2>&1
	cst=$?
	wait_until 20 server_gone || kill "$srv" 2>/dev/null
	wait "$srv"
	sst=$?
	srv=
	da=$(( $(pkts $A) - a0 ))
	db=$(( $(pkts $B) - b0 ))
	if [ $cst -eq 0 ] && [ $sst -eq 0 ] && $check && [ $da -gt 0 ] &&
	   [ $db -gt 0 ]; then
		ktap_diag "$name: $da packets through $A, $db through $B"
		ktap_pass "$name"
	else
		ktap_diag "$name: client $cst, server $sst, $da packets through $A, $db through $B"
		tail -n 8 "$clog" | sed "s/^/# $name client: /"
		tail -n 8 "$slog" | sed "s/^/# $name server: /"
		ktap_fail "$name"
	fi
}

rping_ok() {
	[ "$(grep -c '^ping data: rdma-ping-[0-9]*: ' "$clog")" -eq 100 ] &&
		! grep -qi mismatch "$clog" "$slog"
}

cmatose_ok() {
	grep -q '^test complete$' "$clog" && grep -q '^test complete$' "$slog" &&
		grep -q '^return status 0$' "$clog"
}

cm_case rping_vlan_two_functions rping_ok \
	rping -s -a $ipb -C 100 -S 64 -V -- \
	rping -c -I $ipa -a $ipb -C 100 -S 64 -V -v
cm_case ucmatose_vlan_two_functions cmatose_ok \
	ucmatose -b $ipb -c 10 -C 10 -- \
	ucmatose -s $ipb -b $ipa -c 10 -C 10
cm_case udaddy_vlan_two_functions cmatose_ok \
	udaddy -b $ipb -c 4 -C 10 -- \
	udaddy -s $ipb -b $ipa -c 4 -C 10

ktap_finish
