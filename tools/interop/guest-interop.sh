#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# One side of tools/interop/rxe-interop, run inside a sroce-vm guest that
# has one virtio-net NIC ($SROCE_NIC) on a QEMU socket netdev shared with
# the other guest. Role "rxe" puts an rdma_rxe device on the NIC, role
# "sroce" an sroce device. Both sides walk the same list of cases; for each
# case one side runs the server and the other the client, and they meet
# through files in the --out share ($SROCE_OUT, 9p without caching, so a
# file written by one guest is seen by the other at its next lookup):
#
#   setup-ROLE        "ok" or why the device could not be set up
#   CASE.ready        written by the server side once the tool listens
#                     ("ok"), or why the server did not start
#   CASE.client/.server   the exit status of each side (or "skip: why")
#   CASE.client.log/.server.log   the tools' output
#   finished-ROLE     this side is done (the host aborts the other side
#                     through "abort" if a guest ends without it)
#
# The sroce side also captures the RoCE v2 traffic on its NIC and decodes
# it with tshark afterwards (checks-sroce, decode-*.txt). Every wait polls
# with a deadline. The exit status is 0 when the script ran to its end,
# whatever the cases' results (rxe-interop judges those from the files).
#
#   guest-interop.sh --list            the case and check names
#   guest-interop.sh ROLE DEADLINE     DEADLINE: seconds of uptime after
#                                      which no case starts or waits; the
#                                      capture analysis gets 100 s more
set -uo pipefail

# --- what runs, in this order: NAME TOOL CLIENT-ROLE GID-FAMILY ----------
cases=(
	"rc_pingpong.client_sroce rc sroce 4"
	"rc_pingpong.client_rxe rc rxe 4"
	"ud_pingpong.client_sroce ud sroce 4"
	"ud_pingpong.client_rxe ud rxe 4"
	"write_bw.client_sroce write_bw sroce 4"
	"write_bw.client_rxe write_bw rxe 4"
	"read_bw.client_sroce read_bw sroce 4"
	"read_bw.client_rxe read_bw rxe 4"
	"atomic_bw.client_sroce atomic_bw sroce 4"
	"atomic_bw.client_rxe atomic_bw rxe 4"
	"rc_pingpong_ipv6.client_sroce rc sroce 6"
	"rc_pingpong_ipv6.client_rxe rc rxe 6"
	"ud_pingpong_ipv6.client_sroce ud sroce 6"
	"ud_pingpong_ipv6.client_rxe ud rxe 6"
)
# Results of the capture analysis on the sroce side (file checks-sroce).
checks=(
	tshark_decodes_every_packet
	tshark_no_malformed_or_bad_checksum
	tshark_sroce_opcodes
	icrc_sroce_packets
	icrc_rxe_packets
	rxe_accepted_sroce_packets
)

if [ "${1:-}" = --list ]; then
	for c in "${cases[@]}"; do echo "case ${c%% *}"; done
	for c in "${checks[@]}"; do echo "check $c"; done
	exit 0
fi

role=${1:?role}
deadline=${2:?deadline}
limit=$deadline # of every wait
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
top=$(cd "$here/../.." && pwd -P)
out=${SROCE_OUT:?no --out share}
nic=${SROCE_NIC:?no --netdev NIC}

# Addresses of the two sides on the link.
declare -A ip4=([rxe]=10.77.0.1 [sroce]=10.77.0.2)
declare -A ip6=([rxe]=fd77::1 [sroce]=fd77::2)
declare -A gid6=([rxe]=fd77:0000:0000:0000:0000:0000:0000:0001
	[sroce]=fd77:0000:0000:0000:0000:0000:0000:0002)
declare -A gid4=([rxe]=0000:0000:0000:0000:0000:ffff:0a4d:0001
	[sroce]=0000:0000:0000:0000:0000:ffff:0a4d:0002)
if [ "$role" = rxe ]; then peer=sroce dev=rxe0; else peer=rxe dev=sroce0; fi
port=18515 # ibv_*_pingpong and perftest

log() { echo "interop[$role] $(cut -d' ' -f1 /proc/uptime)s: $*"; }

# --- polling without blind sleeps: bash's clock, a read with a timeout ---
exec {nap_fd}<> <(:)
nap() { read -r -t "$1" -u "$nap_fd" || true; }
uptime_s() { local u; read -r u _ </proc/uptime; echo "${u%.*}"; }
aborted() { [ -e "$out/abort" ]; }
# wait_for SECONDS COMMAND...: poll COMMAND every 50 ms until it succeeds,
# SECONDS pass, the script's deadline passes or the host aborts the run.
wait_for() {
	local t=${EPOCHREALTIME/[.,]/} end
	end=$((10#$t + $1 * 1000000))
	shift
	while ! "$@"; do
		t=${EPOCHREALTIME/[.,]/}
		if [ $((10#$t)) -ge "$end" ] || aborted ||
			[ "$(uptime_s)" -ge "$limit" ]; then
			"$@"
			return
		fi
		nap 0.05
	done
}
# shellcheck disable=SC2317 # these are called through wait_for
{
file_has_content() { [ -s "$1" ]; }
listening() { [ -n "$(ss -Hltn "sport = :$port" 2>/dev/null)" ]; }
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! kill -0 "$1" 2>/dev/null; }
listening_or_dead() { listening || dead "$1"; }
}
put() { echo "$2" >"$out/$1.tmp.$role" && mv -f "$out/$1.tmp.$role" "$out/$1"; }

# gid_index DEV GID: index of the RoCE v2 entry holding GID (builtins
# only: rdma_rxe has 1024 entries, and a fork costs milliseconds in TCG)
gid_index() {
	local f i g t
	for f in "/sys/class/infiniband/$1/ports/1/gids/"*; do
		i=${f##*/}
		read -r g <"$f" 2>/dev/null || continue
		[ "$g" = "$2" ] || continue
		read -r t <"/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] && echo "$i" && return 0
	done
	return 1
}
# shellcheck disable=SC2317 # called through wait_for
port_active() { grep -q ACTIVE "/sys/class/infiniband/$dev/ports/1/state" 2>/dev/null; }

# --- device and addresses -------------------------------------------------
setup() {
	ip addr add "${ip4[$role]}/24" dev "$nic" || return
	ip addr add "${ip6[$role]}/64" dev "$nic" nodad || return
	if [ "$role" = rxe ]; then
		modprobe rdma_rxe || return
		rdma link add rxe0 type rxe netdev "$nic" || return
	else
		rdma link add sroce0 type sroce netdev "$nic" || return
	fi
	# The port goes ACTIVE with the NIC's carrier (once QEMU has joined
	# the two socket ends); the GIDs follow the addresses.
	wait_for 60 port_active || { echo "port of $dev not ACTIVE"; return 1; }
	wait_for 20 gid_index "$dev" "${gid4[$role]}" >/dev/null ||
		{ echo "no RoCE v2 GID for ${ip4[$role]}"; return 1; }
	wait_for 20 gid_index "$dev" "${gid6[$role]}" >/dev/null ||
		{ echo "no RoCE v2 GID for ${ip6[$role]}"; return 1; }
	G4=$(gid_index "$dev" "${gid4[$role]}")
	G6=$(gid_index "$dev" "${gid6[$role]}")
}

# The sroce side records every RoCE v2 packet on the link from before the
# first case to after the last.
cap=/tmp/interop.pcap
capture_start() {
	dumpcap -q -P -i "$nic" -f "udp port 4791" -w "$cap" \
		>/tmp/dumpcap.log 2>&1 &
	cap_pid=$!
	# dumpcap reports "Capturing on" once the interface is open.
	wait_for 30 grep -q "Capturing on" /tmp/dumpcap.log &&
		alive "$cap_pid"
}

# tool_cmd TOOL ROLE FAMILY: the command line of TOOL on this side
tool_cmd() {
	local g=$G4
	[ "$3" = 6 ] && g=$G6
	case $1 in
	rc) echo "ibv_rc_pingpong -d $dev -g $g -n 100 -s 8192 -c" ;;
	ud) echo "ibv_ud_pingpong -d $dev -g $g -n 100 -s 1024" ;;
	write_bw) echo "ib_write_bw -d $dev -x $g -F -n 200 -s 16384" ;;
	read_bw) echo "ib_read_bw -d $dev -x $g -F -n 200 -s 16384" ;;
	atomic_bw) echo "ib_atomic_bw -d $dev -x $g -F -n 200" ;;
	esac
}

# A hung tool is stopped by timeout; a server whose client has finished is
# given a grace period to report, then stopped.
client_timeout=90
server_timeout=150
server_grace=20

run_server() {
	local name=$1 cmd=$2 pid rc t_client='' now
	rm -f "$out/$name.server.log"
	# shellcheck disable=SC2086 # cmd is a word list
	timeout -k 5 "$server_timeout" stdbuf -oL -eL $cmd \
		>"$out/$name.server.log" 2>&1 </dev/null &
	pid=$!
	wait_for 60 listening_or_dead "$pid"
	if alive "$pid" && listening; then
		put "$name.ready" ok
	else
		put "$name.ready" "server did not start listening"
	fi
	# Wait for the server; stop it if its client finished long ago.
	while alive "$pid"; do
		if [ -z "$t_client" ] && { [ -e "$out/$name.client" ] || aborted; }; then
			t_client=$(uptime_s)
		fi
		now=$(uptime_s)
		if [ -n "$t_client" ] && [ $((now - t_client)) -ge "$server_grace" ]; then
			echo "interop: server stopped ${server_grace}s after its client ended" \
				>>"$out/$name.server.log"
			kill "$pid" 2>/dev/null
		fi
		if [ "$now" -ge "$deadline" ]; then
			echo "interop: server stopped at the run's deadline" >>"$out/$name.server.log"
			kill "$pid" 2>/dev/null
		fi
		nap 0.1
	done
	rc=0
	wait "$pid" || rc=$?
	put "$name.server" "$rc"
}

run_client() {
	local name=$1 cmd=$2 rc=0 ready
	if ! wait_for 120 file_has_content "$out/$name.ready"; then
		put "$name.client" "skip: no word from the server side"
		return 1
	fi
	ready=$(cat "$out/$name.ready")
	if [ "$ready" != ok ]; then
		put "$name.client" "skip: $ready"
		return 0
	fi
	# shellcheck disable=SC2086 # cmd is a word list
	timeout -k 5 "$client_timeout" stdbuf -oL -eL $cmd "${ip4[$peer]}" \
		>"$out/$name.client.log" 2>&1 </dev/null || rc=$?
	put "$name.client" "$rc"
}

# --- capture analysis (sroce side) ----------------------------------------
check() { echo "$1 $2${3:+ $3}" >>"$out/checks-sroce"; } # NAME ok|fail [WHY]

analyse() {
	local fields=/tmp/decode-frames.txt sum="$out/decode-summary.txt"
	local total bth bad me=${ip4[sroce]} me6=${ip6[sroce]} want missing o
	local sroce_pcap=/tmp/sroce-sent.pcap rc line
	: >"$out/checks-sroce"
	# Debian 12's tshark (Wireshark 4.0) dissects RoCE v2 on UDP 4791 as
	# InfiniBand by default and reports malformed packets and, with the
	# checks on, bad IP/UDP checksums as expert infos. Its InfiniBand
	# dissector shows the ICRC (infiniband.invariant.crc) but does not
	# verify it: the ICRC is recomputed by icrc_check.py (zlib's CRC-32)
	# and, on the wire, by rdma_rxe, which drops packets whose ICRC is
	# wrong before it counts them in rcvd_pkts.
	tshark -n -r "$cap" -o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-T fields -E separator='|' -E occurrence=a -E aggregator=';' \
		-e frame.number -e ip.src -e ipv6.src -e udp.dstport \
		-e infiniband.bth.opcode -e infiniband.invariant.crc \
		-e _ws.expert.severity -e _ws.expert.message -e _ws.col.Info \
		-e infiniband.bth.destqp -e infiniband.bth.psn \
		>"$fields" 2>"$out/decode-tshark.err"
	rc=$?
	log "decode: tshark field pass done"
	total=$(awk -F'|' '$4 == 4791' "$fields" | wc -l)
	bth=$(awk -F'|' '$4 == 4791 && $5 != "" && $6 != ""' "$fields" | wc -l)
	{
		echo "tshark exit $rc; $total frames to UDP 4791, $bth with a BTH and an ICRC"
		echo "frames by source and tshark's description (opcode, Info column without QPN/PSN):"
		awk -F'|' '$4 == 4791 {
			src = $2 != "" ? $2 : $3; info = $9
			sub(/ QPN.*$/, "", info); sub(/ *QP=.*$/, "", info)
			printf "%s op=%s %s\n", src, $5, info }' "$fields" |
			sort | uniq -c | sort -k2,2 -k3,3
	} >"$sum"
	if [ "$rc" = 0 ] && [ "$total" -gt 0 ] && [ "$total" = "$bth" ]; then
		check tshark_decodes_every_packet ok "$total frames"
	else
		check tshark_decodes_every_packet fail "tshark exit $rc, $total frames, $bth decoded with BTH+ICRC"
	fi
	# Expert severities: 0x200000 chat, 0x400000 note, 0x600000 warning,
	# 0x800000 error (malformed packets and bad checksums are errors).
	# One error is expected: RoCE v2 leaves the UDP checksum 0 over IPv6
	# too (the ICRC covers the packet; rdma_rxe does the same and its
	# socket accepts it), which tshark calls "Illegal checksum value (0)".
	bad=$(awk -F'|' '{ n = split($7, s, ";"); split($8, m, ";")
		for (i = 1; i <= n; i++)
			if (s[i] + 0 >= 6291456 &&
			    !($3 != "" && m[i] == "Illegal checksum value (0)")) { print; next } }' "$fields")
	awk -F'|' '$7 != ""' "$fields" | head -n 50 >"$out/decode-expert.txt"
	awk -F'|' '$3 != "" && $8 ~ /Illegal checksum value \(0\)/ { n[$3]++ }
		END { for (a in n) printf "IPv6 frames from %s with UDP checksum 0: %d\n", a, n[a] }' \
		"$fields" | sort >>"$sum"
	if [ -z "$bad" ] && [ "$rc" = 0 ]; then
		check tshark_no_malformed_or_bad_checksum ok
	else
		{ echo "expert infos:"; echo "$bad" | head -n 50; } >>"$sum"
		check tshark_no_malformed_or_bad_checksum fail \
			"$(echo "$bad" | grep -c .) frames with expert infos, e.g. $(echo "$bad" | head -n 1)"
	fi
	# What the cases make sroce send: RC SEND first/middle/last (8 KiB
	# pingpong), ACK, RDMA WRITE first/middle/last, RDMA READ request and
	# response first/middle/last, FETCH_ADD, ATOMIC ACK, UD SEND only.
	want="0 1 2 17 6 7 8 12 13 14 15 20 18 100"
	missing=''
	for o in $want; do
		awk -F'|' -v o="$o" -v me="$me" -v me6="$me6" '$4 == 4791 &&
			($2 == me || $3 == me6) && $5 == o { f = 1; exit } END { exit !f }' \
			"$fields" || missing+=" $o"
	done
	if [ -z "$missing" ]; then
		check tshark_sroce_opcodes ok "opcodes $want"
	else
		check tshark_sroce_opcodes fail "no frame from sroce with opcode(s)$missing"
	fi
	# ICRC: the packets sroce sent, and rxe's as a check of the checker.
	tshark -n -r "$cap" -Y "ip.src == $me || ipv6.src == $me6" -F pcap \
		-w "$sroce_pcap" 2>>"$out/decode-tshark.err"
	line=$(python3 "$top/selftests/sroce/icrc_check.py" "$sroce_pcap" 2>&1)
	rc=$?
	echo "sroce's packets: $line" >>"$sum"
	log "decode: ICRC of sroce's packets checked"
	if [ "$rc" = 0 ]; then check icrc_sroce_packets ok "${line#\# }"; else check icrc_sroce_packets fail "${line#\# }"; fi
	tshark -n -r "$cap" -Y "!(ip.src == $me || ipv6.src == $me6)" -F pcap \
		-w /tmp/rxe-sent.pcap 2>>"$out/decode-tshark.err"
	line=$(python3 "$top/selftests/sroce/icrc_check.py" /tmp/rxe-sent.pcap 2>&1)
	rc=$?
	echo "rxe's packets: $line" >>"$sum"
	if [ "$rc" = 0 ]; then check icrc_rxe_packets ok "${line#\# }"; else check icrc_rxe_packets fail "${line#\# }"; fi
	SROCE_SENT=$(awk -F'|' '$4 == 4791 && ($2 == me || $3 == me6)' me="$me" me6="$me6" "$fields" | wc -l)
	# Frames sroce sent again (same QP, opcode and PSN): retransmissions
	# and repeated ACKs.
	SROCE_REPEATS=$(awk -F'|' -v me="$me" -v me6="$me6" '$4 == 4791 &&
		($2 == me || $3 == me6) && seen[$5 " " $10 " " $11]++ { n++ }
		END { print n + 0 }' "$fields")
	echo "sroce sent $SROCE_SENT RoCE frames, $SROCE_REPEATS of them repeats (same opcode, QP, PSN)" >>"$sum"
}

# --- main -----------------------------------------------------------------
log "start: dev $dev on $nic, deadline ${deadline}s of uptime"
rm -f "$out/finished-$role"
why=$(setup 2>&1) && why=ok
why=$(tr '\n' ' ' <<<"$why" | head -c 300)
why=${why% }
G4=$(gid_index "$dev" "${gid4[$role]}" 2>/dev/null) || G4=''
G6=$(gid_index "$dev" "${gid6[$role]}" 2>/dev/null) || G6=''
cap_pid=''
if [ "$why" = ok ] && [ "$role" = sroce ]; then
	capture_start || why="dumpcap did not start: $(tr '\n' ' ' </tmp/dumpcap.log | head -c 300)"
fi
put "setup-$role" "$why"
log "setup: $why (RoCE v2 GID index IPv4 $G4, IPv6 $G6)"
ip -br addr show dev "$nic"
wait_for 180 file_has_content "$out/setup-$peer"
peer_setup=$(cat "$out/setup-$peer" 2>/dev/null) || peer_setup="no word from the $peer guest"
log "peer setup: $peer_setup"

for c in "${cases[@]}"; do
	read -r name tool client fam <<<"$c"
	if [ "$why" != ok ] || [ "$peer_setup" != ok ] || aborted ||
		[ "$(uptime_s)" -ge "$deadline" ]; then
		reason="not run: setup $role: $why; setup $peer: $peer_setup"
		aborted && reason="not run: run aborted"
		[ "$(uptime_s)" -lt "$deadline" ] || reason="not run: deadline passed"
		if [ "$client" = "$role" ]; then
			put "$name.client" "skip: $reason"
		else
			put "$name.ready" "$reason"
			put "$name.server" "skip: $reason"
		fi
		continue
	fi
	cmd=$(tool_cmd "$tool" "$role" "$fam")
	if [ "$client" = "$role" ]; then
		log "$name: client: $cmd ${ip4[$peer]}"
		run_client "$name" "$cmd"
		log "$name: client status $(cat "$out/$name.client")"
	else
		log "$name: server: $cmd"
		run_server "$name" "$cmd"
		log "$name: server status $(cat "$out/$name.server")"
	fi
done

limit=$((deadline + 100))
if [ -n "$cap_pid" ]; then
	kill -INT "$cap_pid" 2>/dev/null
	wait_for 30 dead "$cap_pid"
	cat /tmp/dumpcap.log >"$out/dumpcap.log"
fi
rdma statistic show link "$dev/1" >"$out/stats-$role.txt" 2>&1
# Where a packet could have been dropped below the RDMA device.
{
	ip -s -s link show dev "$nic"
	grep -E '^(Udp|Ip):' /proc/net/snmp
	grep -E '^(Udp6|Ip6)(InDiscards|InErrors|NoPorts|RcvbufErrors|InCsumErrors|InDatagrams|InReceives)' /proc/net/snmp6
	echo "softnet_stat (processed dropped time_squeeze ...):"
	cat /proc/net/softnet_stat
} >"$out/netstat-$role.txt" 2>&1
if [ "$role" = sroce ] && [ "$why" = ok ]; then
	log "decoding the capture with tshark"
	SROCE_SENT=0
	analyse
	echo "$SROCE_SENT" >"$out/sroce-sent-frames"
	cp "$cap" "$out/capture.pcap"
	cp /tmp/decode-frames.txt "$out/decode-frames.txt"
	# rdma_rxe's counter, written by the rxe guest when it is done.
	wait_for 120 test -e "$out/finished-rxe"
	# rdma_rxe counts a packet in rcvd_pkts once its QP, QP state,
	# addresses, keys and ICRC checked out; it received nothing but what
	# sroce sent. A repeat can legitimately find its QP gone (the tool
	# had its completion and finished), so the shortfall may be as large
	# as the number of repeats, no larger. More than the capture holds
	# means the capture dropped frames under load (dumpcap in a TCG guest
	# can fall behind), not that rxe accepted something sroce did not send.
	rcvd=$(grep -o 'rcvd_pkts [0-9]*' "$out/stats-rxe.txt" 2>/dev/null | cut -d' ' -f2)
	if [ -n "$rcvd" ] && [ "$rcvd" -gt 0 ] &&
		[ $((SROCE_SENT - rcvd)) -le "$SROCE_REPEATS" ]; then
		check rxe_accepted_sroce_packets ok "rxe rcvd_pkts $rcvd of $SROCE_SENT frames sroce sent ($SROCE_REPEATS repeats)"
	else
		check rxe_accepted_sroce_packets fail "rxe rcvd_pkts ${rcvd:-unknown} of $SROCE_SENT frames sroce sent ($SROCE_REPEATS repeats)"
	fi
	log "capture checks:"
	cat "$out/checks-sroce"
fi
dmesg >"$out/dmesg-$role.txt"
put "finished-$role" ok
log "done"
exit 0
