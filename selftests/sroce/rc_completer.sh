#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The RC completer keeps send-queue order whatever comes back first.
#
# READ and atomic + SEND pairs (xfer_verify -p): chains of a READ or an
# atomic immediately followed by a SEND, posted without waiting, between
# two namespaces while netem reorders or drops packets. When the ACK of a
# SEND arrives before the response of the READ or atomic in front of it,
# the completer must resend from the READ or atomic and still complete
# the SENDs behind it: every completion in order, with success, every
# byte and atomic result right, within the deadline (no retry exceeded).
# The responder's duplicate_request counter shows that the reordering
# made the requester go back.
#
# A WQE that fails locally (a SEND whose lkey does not exist) right behind
# a SEND still waiting for its ACK (netem delays the ACKs by 300 ms)
# completes after it with its own error: success, local protection error,
# flush, in that order (xfer_verify -e).
#
# A path that loses every READ response while the ACKs of the SENDs
# behind the READs get through ends in retry exceeded, not in resending
# for ever.
. "$(dirname "$0")/lib.sh"

require_sroce
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/xfer_verify" ] || ktap_skip_all "xfer_verify not built"
require_netem
ktap_plan 9

two_hosts rp 10.86.0 || ktap_skip_all "cannot build the two-host topology"

# netem FWD BACK: impairments of rp0's egress (requests) and of rp1's
# egress (responses and ACKs); "" for none.
netem() {
	tc qdisc del dev rp0 root 2>/dev/null
	nsx tc qdisc del dev rp1 root 2>/dev/null
	if [ -n "$1" ]; then
		tc qdisc add dev rp0 root netem $1 || return
	fi
	if [ -n "$2" ]; then
		nsx tc qdisc add dev rp1 root netem $2 || return
	fi
}
on_exit "tc qdisc del dev rp0 root"

# stat DEV COUNTER: a port counter
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# xfer NAME SECONDS ARGS...: xfer_verify must succeed in time; sets
# xfer_out and xfer_timeouts (transport timer expiries of the requester)
xfer() {
	local name=$1 limit=$2 out t0 t1 ex0 ex to0
	shift 2
	ex0=$(stat "$DEV0" retry_exceeded_err)
	to0=$(stat "$DEV0" local_ack_timeout_err)
	t0=${EPOCHREALTIME/./}
	out=$(timeout "$limit" "$here/xfer_verify" -a "$DEV0" -g "$G0" \
	      -b "$DEV1" -G "$G1" -t "$limit" "$@" 2>&1)
	xfer_rc=$?
	t1=${EPOCHREALTIME/./}
	xfer_out=$out
	ex=$(( $(stat "$DEV0" retry_exceeded_err) - ex0 ))
	xfer_timeouts=$(( $(stat "$DEV0" local_ack_timeout_err) - to0 ))
	if [ $xfer_rc -eq 0 ] && [ $ex -eq 0 ]; then
		ktap_diag "$name: $out ($(( (10#$t1 - 10#$t0) / 1000 )) ms, $xfer_timeouts timeouts)"
		ktap_pass "$name"
	else
		ktap_fail "$name" "exit $xfer_rc, $ex retry exceeded: $(tr '\n' ' ' <<<"$out")"
	fi
}

xfer pairs_clean_wire 60 -p -n 40 -s 1
# Responses and ACKs reordered: a SEND's ACK often overtakes the READ
# response or atomic ACK in front of it.
netem "" "delay 2ms reorder 30% 50%"
dup0=$(stat "$DEV1" duplicate_request)
xfer pairs_responses_reordered 100 -p -n 150 -s 2
# No request was lost, so every repeat the responder saw was the
# requester going back to a READ or atomic whose response an ACK had
# overtaken (or to one a transport timeout found unanswered): the case
# under test did happen.
dups=$(( $(stat "$DEV1" duplicate_request) - dup0 ))
if [ "$dups" -gt 0 ]; then
	ktap_diag "reordered: $dups repeated requests, $xfer_timeouts transport timeouts"
	ktap_pass pairs_reordered_rewinds_happened
else
	ktap_fail pairs_reordered_rewinds_happened "no repeated request seen"
fi
netem "" "loss 8%"
xfer pairs_responses_lost 100 -p -n 150 -s 3
netem "loss 3% delay 1ms reorder 20%" "loss 3% delay 1ms reorder 20%"
xfer pairs_both_ways 100 -p -n 150 -s 4
netem "" ""

# A local error behind an outstanding SEND.
netem "" "delay 300ms"
xfer local_error_after_outstanding_send 30 -e
netem "" ""
first=$(sed -n 's/.*first completion after \([0-9]*\) ms.*/\1/p' <<<"$xfer_out")
if [ "${first:-0}" -ge 250 ]; then
	ktap_pass local_error_first_send_was_outstanding
else
	ktap_fail local_error_first_send_was_outstanding \
		"first completion after ${first:-?} ms, want >= 250 (the ACK's delay)"
fi
# The QPs are fresh per run: the same must hold on a clean wire.
xfer local_error_clean_wire 30 -e

# Every full-size READ response lost (rp1's egress drops IP packets of
# 1024..4095 bytes: a response at path MTU 1024 is 1072) while the ACKs
# of the SENDs behind the READs pass: an ACK that only shows a response
# missing is not progress, so the READ ends in retry exceeded after
# retry_cnt timeouts instead of being resent for ever.
blackhole_set() {
	nsx tc qdisc add dev rp1 clsact &&
		nsx tc filter add dev rp1 egress protocol ip prio 1 u32 \
			match u16 0x0400 0xfc00 at 2 action drop &&
		nsx tc filter add dev rp1 egress protocol ip prio 2 u32 \
			match u16 0x0800 0xf800 at 2 action drop
}
if blackhole_set 2>/dev/null; then
	ex0=$(stat "$DEV0" retry_exceeded_err)
	t0=${EPOCHREALTIME/./}
	out=$(timeout 60 "$here/xfer_verify" -a "$DEV0" -g "$G0" -b "$DEV1" \
	      -G "$G1" -t 40 -p -n 20 -s 5 2>&1)
	t1=${EPOCHREALTIME/./}
	nsx tc qdisc del dev rp1 clsact
	ms=$(( (10#$t1 - 10#$t0) / 1000 ))
	ex=$(( $(stat "$DEV0" retry_exceeded_err) - ex0 ))
	if [ "$ex" -gt 0 ] && grep -q 'retry counter exceeded' <<<"$out" &&
		[ "$ms" -lt 30000 ]; then
		ktap_diag "responses blackholed: retry exceeded after $ms ms"
		ktap_pass responses_blackholed_retry_exceeded
	else
		ktap_fail responses_blackholed_retry_exceeded \
			"$ms ms, $ex retry exceeded: $(tr '\n' ' ' <<<"$out")"
	fi
else
	nsx tc qdisc del dev rp1 clsact 2>/dev/null
	ktap_skip responses_blackholed_retry_exceeded "no clsact/u32/gact"
fi

ktap_finish
