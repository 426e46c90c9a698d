#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RC delivers every byte exactly once and in order whatever the wire
# does: xfer_verify (SEND, WRITE, WRITE with immediate, READ; random sizes
# up to 256 KiB, unaligned, scattered over several SGEs; every byte
# checked) between two namespaces while netem drops, reorders, duplicates
# and corrupts packets in both directions, and against a slow receiver
# (RNR NAKs). Each run has a deadline, so recovery must stay bounded.
# Atomics survive lost responses (replay, never executed twice), and a
# peer that never answers makes the transport timer give up on time.
. "$(dirname "$0")/lib.sh"

require_sroce
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/xfer_verify" ] || ktap_skip_all "xfer_verify not built"
require_netem
ktap_plan 15

two_hosts rl 10.95.0 || ktap_skip_all "cannot build the two-host topology"
ns=$NS
g0=$G0
g1=$G1

# netem SPEC: the same impairment on both ends of the veth ("" clears it)
netem() {
	tc qdisc del dev rl0 root 2>/dev/null
	ip netns exec $ns tc qdisc del dev rl1 root 2>/dev/null
	[ -z "$1" ] && return
	tc qdisc add dev rl0 root netem $1 &&
		ip netns exec $ns tc qdisc add dev rl1 root netem $1
}

# stat DEV COUNTER: a port counter (rdma statistic / hw_counters)
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# stat_grew NAME DEV COUNTER BEFORE: the counter moved since BEFORE
stat_grew() {
	local now
	now=$(stat "$2" "$3")
	if [ "$now" -gt "$4" ]; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "$2 $3 stayed at $now"
	fi
}

# xfer NAME SECONDS ARGS...: byte-exact transfers must finish in time
xfer() {
	local name=$1 limit=$2 out t0 t1
	shift 2
	t0=${EPOCHREALTIME/./}
	if out=$(timeout "$limit" "$here/xfer_verify" -a "$DEV0" -g "$g0" \
		 -b "$DEV1" -G "$g1" -t "$limit" "$@" 2>&1); then
		t1=${EPOCHREALTIME/./}
		ktap_diag "$name: $out ($(( (10#$t1 - 10#$t0) / 1000 )) ms)"
		ktap_pass "$name"
	else
		ktap_fail "$name" "$out"
	fi
}

xfer clean_wire 120 -n 300 -s 1
netem "loss 1%"
xfer loss_1pct 180 -n 200 -s 2
netem "loss 5%"
nak0=$(stat "$DEV0" packet_seq_err)
oos0=$(stat "$DEV1" out_of_sequence)
xfer loss_5pct 240 -n 200 -s 3
# The losses were seen and repaired by the protocol, not by luck.
stat_grew "loss_counted_out_of_sequence" "$DEV1" out_of_sequence "$oos0"
stat_grew "loss_counted_seq_nak" "$DEV0" packet_seq_err "$nak0"
netem "delay 1ms reorder 25% 50%"
xfer reorder 180 -n 200 -s 4
netem "duplicate 5%"
xfer duplicate 180 -n 200 -s 5
netem "corrupt 2%"
icrc0=$(( $(stat "$DEV0" rx_icrc_encapsulated) + $(stat "$DEV1" rx_icrc_encapsulated) ))
xfer corrupt 180 -n 200 -s 6
icrc1=$(( $(stat "$DEV0" rx_icrc_encapsulated) + $(stat "$DEV1" rx_icrc_encapsulated) ))
if [ "$icrc1" -gt "$icrc0" ]; then
	ktap_diag "corrupt: $((icrc1 - icrc0)) packets dropped for a bad ICRC"
	ktap_pass "corruption_caught_by_icrc"
else
	ktap_fail "corruption_caught_by_icrc" "no ICRC error counted"
fi
netem "loss 3% duplicate 2% corrupt 1% delay 1ms reorder 10%"
xfer everything 240 -n 200 -s 7
netem ""
rnr0=$(stat "$DEV0" rcvd_rnr_err)
xfer slow_receiver_rnr 180 -n 60 -s 8 -r
stat_grew "rnr_naks_counted" "$DEV0" rcvd_rnr_err "$rnr0"
# A receiver not ready for 400 ms, six transport timeouts (67 ms) long:
# with rnr_retry 7 (for ever) the SENDs wait it out; RNR NAKs are answers,
# so the transport timer must not count the wait as retries.
xfer slow_receiver_longer_than_timeout 120 -n 12 -s 9 -r -R 400

# A black hole for RoCE only (TCP still passes, so ibv_rc_pingpong
# connects): no answer ever comes back. ibv_rc_pingpong asks for 7 retries
# of 4.096 us * 2^14 = 67 ms, so the transport timer must fire exactly 8
# times, none early, and the SEND must fail with a retry-exceeded
# completion.
transport_timeout() {
	local name=transport_timeout_retry_exceeded to0 ex0 t0 ms rc n ex

	if ! { tc qdisc add dev rl0 clsact &&
	       tc filter add dev rl0 ingress protocol ip flower \
			ip_proto udp dst_port 4791 action drop; }; then
		tc qdisc del dev rl0 clsact 2>/dev/null
		ktap_skip "$name" "no tc clsact/flower"
		return
	fi
	on_exit "tc qdisc del dev rl0 clsact 2>/dev/null"
	to0=$(stat "$DEV0" local_ack_timeout_err)
	ex0=$(stat "$DEV0" retry_exceeded_err)
	nsx timeout 30 ibv_rc_pingpong -d "$DEV1" -g "$g1" -p 18631 -n 1 \
		>"$work/timeout.srv" 2>&1 &
	if ! wait_until 20 listening "$NS" 18631; then
		ktap_fail "$name" "server did not listen"
		return
	fi
	t0=$(now_ms)
	timeout 30 ibv_rc_pingpong -d "$DEV0" -g "$g0" -p 18631 -n 1 10.95.0.2 \
		>"$work/timeout.cli" 2>&1
	rc=$?
	ms=$(( $(now_ms) - t0 ))
	wait
	tc qdisc del dev rl0 clsact
	n=$(( $(stat "$DEV0" local_ack_timeout_err) - to0 ))
	ex=$(( $(stat "$DEV0" retry_exceeded_err) - ex0 ))
	ktap_diag "$name: $n timeouts, $ex retry exceeded, $ms ms: $(grep -m1 -i 'retry' "$work/timeout.cli")"
	if [ $rc -ne 0 ] && grep -qi "retry counter exceeded" "$work/timeout.cli" &&
	   [ $n -eq 8 ] && [ $ex -eq 1 ] && [ $ms -ge 536 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "client exit $rc, $n timeouts (want 8), $ex retry exceeded (want 1), $ms ms (want >= 536)"
	fi
}
# Atomics under loss: with 64 outstanding, a lost ATOMIC ACKNOWLEDGE
# brings back every atomic after it; the responder must answer each from
# its replay cache (executing none twice), however far back it is.
atomics_under_loss() {
	local name=atomic_bw_loss_3pct spid rc src dup0 dups

	netem "loss 3%"
	dup0=$(stat "$DEV1" duplicate_request)
	nsx timeout 150 ib_atomic_bw -d "$DEV1" -x "$g1" -F -o 64 -n 1000 \
		-p 18632 >"$work/atomic.srv" 2>&1 &
	spid=$!
	if ! wait_until 20 listening "$NS" 18632; then
		netem ""
		ktap_fail "$name" "server did not listen"
		return
	fi
	timeout 150 ib_atomic_bw -d "$DEV0" -x "$g0" -F -o 64 -n 1000 \
		-p 18632 10.95.0.2 >"$work/atomic.cli" 2>&1
	rc=$?
	wait "$spid"
	src=$?
	netem ""
	dups=$(( $(stat "$DEV1" duplicate_request) - dup0 ))
	ktap_diag "$name: $dups duplicate requests answered; $(grep -E '^ *8 +1000 ' "$work/atomic.cli" | tr -s ' ')"
	if [ $rc -eq 0 ] && [ $src -eq 0 ] && [ $dups -gt 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "client $rc, server $src, $dups duplicates: $(tail -n 3 "$work/atomic.cli" | tr '\n' ' ')"
	fi
}

make_work_dir
atomics_under_loss
transport_timeout

ktap_finish
