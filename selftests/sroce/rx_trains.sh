#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Trains between namespaces: consecutive packets of a QP leave as one UDP
# GSO datagram (tx_trains), cross the veth whole, and the receiving
# function takes them whole at LOCAL_IN (rx_trains), checking each
# packet's ICRC against the headers it would have had once cut. Byte-exact
# SEND/WRITE/READ (xfer_verify) over IPv4 and IPv6 must see trains on both
# sides (READ responses travel the other way), no ICRC error, and UDP's
# InDatagrams on each side equal to the packets sroce counted (received,
# failing the ICRC, malformed). With the receiver's port buffers on (the
# PFC drain), its function does not take trains: the stack cuts them and
# each packet is buffered, and the transfer is still byte-exact. Forged
# trains of junk from a UDP_SEGMENT socket, taken whole by the hook, are
# counted packet by packet as ICRC failures. UD datagrams of a train,
# between the namespaces and looped to DEV0 itself, show their own
# packet's IP header in the receiver's GRH area. Without netfilter
# (CONFIG_NETFILTER off) the stack cuts every train: the rx_trains checks
# are skipped.
. "$(dirname "$0")/lib.sh"

here=$(dirname "$0")
require_sroce
for p in xfer_verify ud_grh; do
	[ -x "$here/$p" ] || ktap_skip_all "$p not built"
done
command -v python3 >/dev/null || ktap_skip_all "python3 missing"

ktap_plan 7

pfc_link tr 10.89.0 rx_drain_mbps
make_work_dir
on_exit "echo 0 >$dbg/rx_drain_mbps"
ip addr add fd89::1/64 dev tr0 nodad
ip -n "$NS" addr add fd89::2/64 dev tr1 nodad
# /proc/net/netfilter exists when the kernel has netfilter (its nf_log).
hook=1
[ -d /proc/net/netfilter ] || hook=0

names="tx_trains rx_trains rcvd_pkts rx_icrc_encapsulated rx_malformed
	$(printf 'rx_prio%u_buf_discard ' 0 1 2 3 4 5 6 7)"

# udp_in [NS]: UDP datagrams delivered in namespace NS ("" = ours), IPv4
# and IPv6
udp_in() {
	${1:+ip netns exec $1} cat /proc/net/snmp /proc/net/snmp6 |
		awk '$1 == "Udp:" && $2 == "InDatagrams" { for (i = 2; i <= NF; i++) col[$i] = i; next }
			$1 == "Udp:" { n += $col["InDatagrams"] }
			$1 == "Udp6InDatagrams" { n += $2 }
			END { print n + 0 }'
}

# snap ARRAY: both devices' counters ("0:NAME", "1:NAME") and each
# namespace's UDP datagrams delivered ("0:udp", "1:udp")
snap() {
	local -n into=$1
	local n
	into=()
	for n in $names; do
		into[0:$n]=$(cat "$tx/hw_counters/$n")
		into[1:$n]=$(cat "$rx/hw_counters/$n")
	done
	into[0:udp]=$(udp_in)
	into[1:udp]=$(udp_in "$NS")
}
declare -A before after
moved() {
	echo $(( ${after[$1:$2]} - ${before[$1:$2]} ))
}

# verdict NAME WHY: pass NAME if WHY is empty, else fail it with WHY
verdict() {
	if [ -z "$2" ]; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "$2"
	fi
}

# rx_still: neither device received a packet for 200 ms
rx_last='' rx_since=0
rx_still() {
	local r
	r="$(cat "$tx/hw_counters/rcvd_pkts") $(cat "$rx/hw_counters/rcvd_pkts")"
	if [ "$r" != "$rx_last" ]; then
		rx_last=$r rx_since=$(now_ms)
		return 1
	fi
	[ $(( $(now_ms) - rx_since )) -ge 200 ]
}

# accounted: on each side every datagram UDP delivered was counted by
# sroce (received, ICRC failed, malformed, discarded by a full port
# buffer); prints what did not add up. Only RoCE uses UDP in the guest.
accounted() {
	local side udp seen ok=0 p
	for side in 0 1; do
		udp=$(moved $side udp)
		seen=$(( $(moved $side rcvd_pkts) + $(moved $side rx_icrc_encapsulated) +
			 $(moved $side rx_malformed) ))
		for p in 0 1 2 3 4 5 6 7; do
			seen=$(( seen + $(moved $side rx_prio${p}_buf_discard) ))
		done
		if [ "$udp" != "$seen" ]; then
			echo -n "side $side: UDP delivered $udp, sroce counted $seen; "
			ok=1
		fi
	done
	return $ok
}

# transfer NAME GID0 GID1 SEED: xfer_verify from DEV0 to DEV1 between
# snapshots; fails NAME (and returns 1) if it does not pass
transfer() {
	local out
	snap before
	if ! out=$(timeout 300 "$here/xfer_verify" -a "$DEV0" -g "$2" \
			-b "$DEV1" -G "$3" -n 40 -s "$4" -t 240 2>&1); then
		ktap_fail "$1" "xfer_verify: $(tail -n 2 <<<"$out" | tr '\n' ' ')"
		return 1
	fi
	rx_last=''
	if ! wait_until 10 rx_still; then
		ktap_fail "$1" "packets still arriving 10 s after the transfer"
		return 1
	fi
	snap after
}

# trains_case NAME GID0 GID1 SEED: byte-exact transfer, trains sent and
# received whole on both sides, no ICRC error, UDP accounted
trains_case() {
	local why='' acc
	transfer "$@" || return
	[ "$(moved 0 tx_trains)" -gt 0 ] && [ "$(moved 1 tx_trains)" -gt 0 ] ||
		why+="tx_trains +$(moved 0 tx_trains)/+$(moved 1 tx_trains); "
	if [ $hook = 1 ]; then
		[ "$(moved 0 rx_trains)" -gt 0 ] && [ "$(moved 1 rx_trains)" -gt 0 ] ||
			why+="rx_trains +$(moved 0 rx_trains)/+$(moved 1 rx_trains); "
	fi
	[ "$(moved 0 rx_icrc_encapsulated)" = 0 ] &&
		[ "$(moved 1 rx_icrc_encapsulated)" = 0 ] ||
		why+="ICRC errors +$(moved 0 rx_icrc_encapsulated)/+$(moved 1 rx_icrc_encapsulated); "
	acc=$(accounted) || why+=$acc
	if [ -n "$why" ]; then
		ktap_fail "$1" "$why"
		return
	fi
	ktap_diag "$1: trains sent $(moved 0 tx_trains)/$(moved 1 tx_trains)," \
		"received whole $(moved 0 rx_trains)/$(moved 1 rx_trains)," \
		"packets $(moved 0 rcvd_pkts)/$(moved 1 rcvd_pkts)"
	if [ $hook = 1 ]; then
		ktap_pass "$1"
	else
		ktap_skip "$1" "no netfilter: the stack cuts trains (transfer and counts checked)"
	fi
}

v4_0=$G0 v4_1=$G1
has_v6_gids() {
	v6_0=$(gid_find "$DEV0" fd89:0000:0000:0000:0000:0000:0000:0001 "RoCE v2") &&
		v6_1=$(gid_find "$DEV1" fd89:0000:0000:0000:0000:0000:0000:0002 "RoCE v2")
}

trains_case ipv4_trains_whole "$v4_0" "$v4_1" 21
if wait_until 10 has_v6_gids; then
	trains_case ipv6_trains_whole "$v6_0" "$v6_1" 22
else
	ktap_fail ipv6_trains_whole "no RoCE v2 GIDs for fd89::1/2"
fi

# UD datagrams posted together leave as trains; each receive's GRH area
# must show its own packet's IP header (ud_grh checks lengths, the IPv4
# checksum and IDs, addresses, payloads): between the namespaces over
# IPv4 and IPv6 (trains taken whole by the hook), and from DEV0 to itself
# (the internal loopback's trains).
ud_case() {
	local name=$1 dev_a=$2 gid_a=$3 dev_b=$4 gid_b=$5 rx_dir out why=''
	rx_dir=/sys/class/infiniband/$dev_b/ports/1/hw_counters
	local t0
	t0=$(cat "$rx_dir/rx_trains")
	if ! out=$(timeout 60 "$here/ud_grh" -a "$dev_a" -g "$gid_a" \
			-b "$dev_b" -G "$gid_b" -n 32 -s 512 2>&1); then
		ktap_fail "$name" "$(tr '\n' ' ' <<<"$out")"
		return
	fi
	ktap_diag "$name: $out, rx_trains +$(( $(cat "$rx_dir/rx_trains") - t0 ))"
	if [ "$dev_a" = "$dev_b" ] || [ $hook = 1 ]; then
		[ "$(cat "$rx_dir/rx_trains")" -gt "$t0" ] ||
			why="no train received whole"
	fi
	verdict "$name" "$why"
}
ud_case ud_train_grh_ipv4 "$DEV0" "$v4_0" "$DEV1" "$v4_1"
if [ -n "${v6_0:-}" ]; then
	ud_case ud_train_grh_ipv6 "$DEV0" "$v6_0" "$DEV1" "$v6_1"
else
	ktap_fail ud_train_grh_ipv6 "no RoCE v2 GIDs for fd89::1/2"
fi
ud_case ud_train_grh_loopback "$DEV0" "$v4_0" "$DEV0" "$v4_0"

# The receiver's port buffers on (drained far faster than TCG sends):
# its function leaves trains to the stack, which cuts them; each packet
# is held and delivered as one.
echo 100000 >"$dbg/rx_drain_mbps"
if transfer buffered_trains_cut "$v4_0" "$v4_1" 23; then
	why=''
	[ "$(moved 1 rx_trains)" = 0 ] ||
		why+="DEV1 took $(moved 1 rx_trains) trains whole with its buffers on; "
	[ "$(moved 0 tx_trains)" -gt 0 ] || why+="DEV0 sent no trains; "
	[ "$(moved 1 rx_icrc_encapsulated)" = 0 ] ||
		why+="DEV1 ICRC errors +$(moved 1 rx_icrc_encapsulated); "
	acc=$(accounted) || why+=$acc
	verdict buffered_trains_cut "$why"
fi
echo 0 >"$dbg/rx_drain_mbps"

# Forged trains: 16 datagrams of 384 random bytes cut every 64 bytes,
# then 16 cut every 76 (five of 76 and one of 4), from a UDP_SEGMENT
# socket in the namespace to DEV0's addresses, each family. Every segment
# is a packet whose ICRC fails, counted once, and UDP delivers each once.
# A UDP_SEGMENT send is paged, which the hook leaves to the stack: a tc
# pedit on tr1's egress that writes each datagram's last word pulls it
# linear first, so that the hook takes them (where the kernel has
# netfilter, flower and pedit).
forge() {
	nsx python3 - "$1" <<'EOF'
import os, socket, sys
UDP_SEGMENT = 103
family, dst = ((socket.AF_INET, "10.89.0.1") if sys.argv[1] == "4"
               else (socket.AF_INET6, "fd89::1"))
s = socket.socket(family, socket.SOCK_DGRAM)
for seg in (64, 76):
    s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, seg)
    for _ in range(16):
        s.sendto(os.urandom(384), (dst, 4791))
EOF
}
forged=$(( 2 * 2 * 16 * 6 ))
linear=0
if nsx tc qdisc add dev tr1 clsact 2>/dev/null &&
   nsx tc filter add dev tr1 egress protocol ip flower ip_proto udp \
	dst_port 4791 action pedit munge offset $((20 + 8 + 384 - 4)) u32 \
	set 0 2>/dev/null &&
   nsx tc filter add dev tr1 egress protocol ipv6 flower ip_proto udp \
	dst_port 4791 action pedit munge offset $((40 + 8 + 384 - 4)) u32 \
	set 0 2>/dev/null; then
	linear=1
fi
icrc_moved() {
	[ $(( $(cat "$tx/hw_counters/rx_icrc_encapsulated") - ${before[0:rx_icrc_encapsulated]} )) -ge $forged ]
}
snap before
if forge 4 && forge 6; then
	wait_until 10 icrc_moved
	snap after
	why=''
	[ "$(moved 0 rx_icrc_encapsulated)" = $forged ] ||
		why+="$forged forged packets, rx_icrc_encapsulated +$(moved 0 rx_icrc_encapsulated); "
	[ "$(moved 0 rcvd_pkts)" = 0 ] || why+="rcvd_pkts +$(moved 0 rcvd_pkts); "
	[ "$(moved 0 udp)" = $forged ] || why+="UDP delivered $(moved 0 udp); "
	if [ $linear = 1 ] && [ $hook = 1 ]; then
		[ "$(moved 0 rx_trains)" = 64 ] ||
			why+="64 linear forged trains, rx_trains +$(moved 0 rx_trains); "
	else
		ktap_diag "forged trains cut by the stack (no tc pedit or no netfilter)"
	fi
	verdict forged_trains_counted "$why"
else
	ktap_fail forged_trains_counted "the UDP_SEGMENT sender failed"
fi
nsx tc qdisc del dev tr1 clsact 2>/dev/null

ktap_finish
