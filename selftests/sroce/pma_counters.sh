#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The port's PMA (Performance Management) counters, which ib_core shows in
# ports/1/counters/ from sroce's answers to PerfMgmt GETs: present on both
# ends; after RC traffic between two namespaces, what one end sent is what
# the other received (packets and 4-byte data words, exactly: a RoCE
# packet, BTH to ICRC, is a whole number of words), the data counters are
# the byte counters of `rdma statistic` (sent_bytes, rcvd_bytes) over 4,
# and they cover at least the payload moved.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ibv_rc_pingpong >/dev/null || ktap_skip_all "ibverbs-utils missing"
ktap_plan 5

two_hosts pma 10.88.0 || ktap_skip_all "cannot build the two-host topology"

# pma DEV NAME, hw DEV NAME: counter NAME of DEV's port 1, PMA or
# hw_counters (both devices are in this namespace's sysfs: RDMA devices
# are shared between namespaces)
pma() {
	cat "/sys/class/infiniband/$1/ports/1/counters/$2"
}
hw() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

names="port_xmit_data port_rcv_data port_xmit_packets port_rcv_packets"
missing=''
for d in "$DEV0" "$DEV1"; do
	for n in $names port_rcv_errors port_xmit_discards; do
		[[ $(pma "$d" "$n" 2>/dev/null) =~ ^[0-9]+$ ]] || missing+=" $d/$n"
	done
done
if [ -z "$missing" ]; then
	ktap_pass counters_present
else
	ktap_fail counters_present "no counter:$missing"
	for t in packets_sent_are_received data_sent_is_received \
		data_is_bytes_over_4 data_covers_payload; do
		ktap_fail $t "no PMA counters"
	done
	ktap_finish
fi

declare -A before
snapshot() {
	local d n
	for d in "$DEV0" "$DEV1"; do
		for n in $names; do before[$d.$n]=$(pma "$d" "$n"); done
		for n in sent_bytes rcvd_bytes; do before[$d.$n]=$(hw "$d" $n); done
	done
}
# delta DEV NAME: growth of a counter since the snapshot
delta() {
	local now
	case $2 in
	sent_bytes | rcvd_bytes) now=$(hw "$1" "$2") ;;
	*) now=$(pma "$1" "$2") ;;
	esac
	echo $((now - ${before[$1.$2]}))
}
# Every packet sent has been received (the last ACKs may be in flight
# when the tools exit).
delivered() {
	[ "$(delta "$DEV0" port_xmit_packets)" = "$(delta "$DEV1" port_rcv_packets)" ] &&
		[ "$(delta "$DEV1" port_xmit_packets)" = "$(delta "$DEV0" port_rcv_packets)" ]
}

snapshot
iters=100 size=4096
nsx timeout 60 ibv_rc_pingpong -d "$DEV1" -g "$G1" -n $iters -s $size \
	>/dev/null 2>&1 &
srv=$!
wait_until 10 listening "$NS" 18515
out=$(timeout 60 ibv_rc_pingpong -d "$DEV0" -g "$G0" -n $iters -s $size \
	10.88.0.2 2>&1)
rc=$?
wait $srv || rc=$?
if [ $rc = 0 ] && wait_until 10 delivered; then
	ktap_diag "$(delta "$DEV0" port_xmit_packets) and" \
		"$(delta "$DEV1" port_xmit_packets) packets"
	ktap_pass packets_sent_are_received
else
	ktap_fail packets_sent_are_received "pingpong $rc ($out);" \
		"sent $(delta "$DEV0" port_xmit_packets)/$(delta "$DEV1" port_xmit_packets)," \
		"received $(delta "$DEV1" port_rcv_packets)/$(delta "$DEV0" port_rcv_packets)"
fi

x0=$(delta "$DEV0" port_xmit_data) r1=$(delta "$DEV1" port_rcv_data)
x1=$(delta "$DEV1" port_xmit_data) r0=$(delta "$DEV0" port_rcv_data)
if [ "$x0" = "$r1" ] && [ "$x1" = "$r0" ]; then
	ktap_diag "$x0 and $x1 data words"
	ktap_pass data_sent_is_received
else
	ktap_fail data_sent_is_received "$DEV0 sent $x0 words, $DEV1 received $r1;" \
		"$DEV1 sent $x1, $DEV0 received $r0"
fi

sb=$(delta "$DEV0" sent_bytes) rb=$(delta "$DEV0" rcvd_bytes)
if [ $((sb % 4)) = 0 ] && [ $((rb % 4)) = 0 ] &&
	[ "$x0" = $((sb / 4)) ] && [ "$r0" = $((rb / 4)) ]; then
	ktap_diag "sent_bytes $sb, rcvd_bytes $rb"
	ktap_pass data_is_bytes_over_4
else
	ktap_fail data_is_bytes_over_4 "port_xmit_data $x0 vs sent_bytes $sb / 4;" \
		"port_rcv_data $r0 vs rcvd_bytes $rb / 4"
fi

# Each side sent $iters messages of $size bytes, plus headers.
payload=$((iters * size))
if [ $((x0 * 4)) -ge $payload ] && [ $((x1 * 4)) -ge $payload ]; then
	ktap_pass data_covers_payload
else
	ktap_fail data_covers_payload "$((x0 * 4)) and $((x1 * 4)) bytes" \
		"for $payload of payload each way"
fi

ktap_finish
