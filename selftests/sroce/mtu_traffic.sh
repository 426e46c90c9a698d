#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Traffic at every path MTU over a jumbo-frame link, and live QPs across
# netdev MTU changes. Between two namespaces over a veth with MTU 9000:
# for each path MTU 256..4096, ib_write_bw (stock perftest, -m) whose
# average RoCE packet size on the wire must match that path MTU, and
# xfer_verify (SEND/WRITE/READ, byte-exact) at that path MTU. Then a QP
# pair with path MTU 4096 keeps transferring while the netdev MTU drops to
# 1500 and comes back: the active MTU follows (1024, then 4096), the QPs
# keep their path MTU (their packets are now IP-fragmented, which the
# receiver's reassembly counter shows) and no byte is lost.
. "$(dirname "$0")/lib.sh"

require_sroce
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/xfer_verify" ] || ktap_skip_all "xfer_verify not built"
command -v ib_write_bw >/dev/null || ktap_skip_all "perftest missing"
ktap_plan 20
# ib_write_bw's QPs get the transport timeout of xfer_verify's
# (SROCE_QP_TIMEOUT, lib.sh): perftest's 67 ms is too short under KASAN
# (check-debug: ib_write_bw_mtu_256 ended in retry exceeded).
qp_timeout=${SROCE_QP_TIMEOUT:-14}

two_hosts mq 10.87.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir

# active_mtu_is DEV BYTES
active_mtu_is() {
	[ "$(active_mtu "$1")" = "$2" ]
}

# netdev_mtu BYTES: both ends of the veth; both ports must follow.
netdev_mtu() {
	local want=$(( $1 >= 4180 ? 4096 : $1 >= 2132 ? 2048 : 1024 ))
	ip link set mq0 mtu "$1" && nsx ip link set mq1 mtu "$1" || return
	wait_until 5 active_mtu_is "$DEV0" "$want" &&
		wait_until 5 active_mtu_is "$DEV1" "$want"
}

if netdev_mtu 9000; then
	ktap_pass "netdev_mtu_9000_active_4096"
else
	ktap_fail "netdev_mtu_9000_active_4096" \
		"active MTU $(active_mtu "$DEV0") / $(active_mtu "$DEV1")"
fi

# RoCE v2 frames leaving mq0 are counted by a tc filter: packets and bytes.
tc qdisc add dev mq0 clsact
tc filter add dev mq0 egress protocol ip u32 \
	match ip protocol 17 0xff match ip dport 4791 0xffff action pass
# roce_tx: "PACKETS BYTES" sent so far (bytes include the Ethernet header)
roce_tx() {
	tc -s filter show dev mq0 egress |
		awk '/Sent [0-9]+ bytes/ { print $4, $2; exit }'
}

# ip_reasm: datagrams the namespace's IPv4 reassembled
ip_reasm() {
	nsx awk '/^Ip: [0-9]/ { print $16 }' /proc/net/snmp
}

# write_bw_mtu MTU: 100 RDMA WRITEs of 64 KiB with path MTU MTU; the
# average IP packet (first packets carry a RETH) must be MTU + 44..60
# bytes: IPv4 20, UDP 8, BTH 12, ICRC 4, RETH 16 on one in 64K/MTU.
write_bw_mtu() {
	local mtu=$1 name="ib_write_bw_mtu_$1" before after pkts bytes avg
	before=$(roce_tx)
	server_client "$name" 18621 \
		ib_write_bw -d "$DEV1" -x "$G1" -p 18621 -m "$mtu" -s 65536 \
		-n 100 -u "$qp_timeout" -F -- \
		ib_write_bw -d "$DEV0" -x "$G0" -p 18621 -m "$mtu" -s 65536 \
		-n 100 -u "$qp_timeout" -F 10.87.0.2
	after=$(roce_tx)
	pkts=$(( ${after% *} - ${before% *} ))
	bytes=$(( ${after#* } - ${before#* } ))
	avg=$(( pkts ? bytes / pkts - 14 : 0 ))
	if [ "$pkts" -gt 0 ] && [ "$avg" -ge $((mtu + 44)) ] &&
	   [ "$avg" -le $((mtu + 60)) ]; then
		ktap_diag "$name: $pkts RoCE packets, $avg bytes on average"
		ktap_pass "${name}_packet_size"
	else
		ktap_fail "${name}_packet_size" \
			"$pkts packets averaging $avg bytes, want $((mtu + 44))..$((mtu + 60))"
	fi
}

# xfer_mtu MTU: byte-exact SEND/WRITE/READ at path MTU MTU
xfer_mtu() {
	local out
	if out=$(timeout 120 "$here/xfer_verify" -a "$DEV0" -g "$G0" \
		 -b "$DEV1" -G "$G1" -m "$1" -n 100 -s "$1" -t 100 2>&1); then
		ktap_diag "xfer_verify_mtu_$1: $out"
		ktap_pass "xfer_verify_mtu_$1"
	else
		ktap_fail "xfer_verify_mtu_$1" "$out"
	fi
}

for mtu in 256 512 1024 2048 4096; do
	write_bw_mtu $mtu
	xfer_mtu $mtu
done

# Live QPs with path MTU 4096 while the netdev MTU drops to 1500 and
# comes back to 9000.
stop=$work/stop
"$here/xfer_verify" -a "$DEV0" -g "$G0" -b "$DEV1" -G "$G1" -m 4096 \
	-n 20 -s 42 -t 100 -w "$stop" >"$work/live.out" 2>&1 &
live=$!
on_exit "kill $live"
# progress_by PACKETS: wait until PACKETS more RoCE packets left mq0
progress_by() {
	local start
	start=$(roce_tx)
	sent_since() {
		local now
		now=$(roce_tx)
		[ $(( ${now% *} - ${1% *} )) -ge "$2" ] || ! kill -0 "$live"
	}
	wait_until 60 sent_since "$start" "$1"
}
progress_by 200
reasm0=$(ip_reasm)
if netdev_mtu 1500; then
	ktap_pass "netdev_mtu_1500_active_1024"
else
	ktap_fail "netdev_mtu_1500_active_1024" \
		"active MTU $(active_mtu "$DEV0") / $(active_mtu "$DEV1")"
fi
progress_by 400
reasm1=$(ip_reasm)
if kill -0 "$live" 2>/dev/null && [ "$reasm1" -gt "$reasm0" ]; then
	ktap_diag "path MTU 4096 over netdev MTU 1500: $((reasm1 - reasm0)) datagrams reassembled"
	ktap_pass "live_qp_keeps_path_mtu_4096"
else
	ktap_fail "live_qp_keeps_path_mtu_4096" \
		"reassembled $reasm0 -> $reasm1; transfers $(kill -0 "$live" 2>/dev/null && echo running || cat "$work/live.out")"
fi
if netdev_mtu 9000; then
	ktap_pass "netdev_mtu_back_to_9000_active_4096"
else
	ktap_fail "netdev_mtu_back_to_9000_active_4096" \
		"active MTU $(active_mtu "$DEV0") / $(active_mtu "$DEV1")"
fi
progress_by 200
touch "$stop"
if wait_until 120 bash -c "! kill -0 $live 2>/dev/null" && wait "$live"; then
	ktap_diag "live: $(cat "$work/live.out")"
	ktap_pass "live_qp_byte_exact_across_mtu_changes"
else
	ktap_fail "live_qp_byte_exact_across_mtu_changes" "$(cat "$work/live.out")"
fi

ktap_finish
