#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A packet the firmware finds no memory for is lost as on the wire, not a
# QP error: RC recovers it by retransmission.
#
# debugfs fault_tx_no_mem makes one packet in N a device builds, at
# random, find no memory (as alloc_skb() failing would). With it set on both ends of a
# namespace pair, so that requests, READ responses and acknowledgments
# all go missing, byte-checked SEND/WRITE/READ transfers and READ/atomic +
# SEND pipelines (xfer_verify) must still complete with success and no
# retry exceeded, and tx_no_mem must count what was dropped. Values the
# knob does not take are refused; once it is cleared nothing more is
# dropped.
. "$(dirname "$0")/lib.sh"

require_sroce
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/xfer_verify" ] || ktap_skip_all "xfer_verify not built"
[ -d /sys/kernel/debug/sroce ] || ktap_skip_all "no sroce debugfs"
ktap_plan 7

two_hosts nm 10.87.0 || ktap_skip_all "cannot build the two-host topology"
knob0=/sys/kernel/debug/sroce/$DEV0/fault_tx_no_mem
knob1=/sys/kernel/debug/sroce/$DEV1/fault_tx_no_mem
[ -w "$knob0" ] && [ -w "$knob1" ] || ktap_skip_all "no fault_tx_no_mem knob"
on_exit "echo 0 > $knob0; echo 0 > $knob1"

# stat DEV COUNTER: a port counter
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# xfer NAME SECONDS ARGS...: xfer_verify must succeed in time with no
# retry exceeded on either end
xfer() {
	local name=$1 limit=$2 out rc ex0 ex
	shift 2
	ex0=$(( $(stat "$DEV0" retry_exceeded_err) + $(stat "$DEV1" retry_exceeded_err) ))
	out=$(timeout "$limit" "$here/xfer_verify" -a "$DEV0" -g "$G0" \
	      -b "$DEV1" -G "$G1" -t "$limit" "$@" 2>&1)
	rc=$?
	ex=$(( $(stat "$DEV0" retry_exceeded_err) + $(stat "$DEV1" retry_exceeded_err) - ex0 ))
	if [ $rc -eq 0 ] && [ $ex -eq 0 ]; then
		ktap_diag "$name: $out"
		ktap_pass "$name"
	else
		ktap_fail "$name" "exit $rc, $ex retry exceeded: $(tr '\n' ' ' <<<"$out")"
	fi
}

# Values the knobs do not take are refused and change nothing.
if ! echo 4294967296 2>/dev/null > "$knob0" &&
	! echo 2 2>/dev/null > "/sys/kernel/debug/sroce/$DEV0/fault_cmd_stall" &&
	[ "$(cat "$knob0")" = 0 ]; then
	ktap_pass bad_fault_values_refused
else
	ktap_fail bad_fault_values_refused "a value out of range was taken"
fi

echo 11 > "$knob0"
echo 11 > "$knob1"
if [ "$(cat "$knob0")" = 11 ] && [ "$(cat "$knob1")" = 11 ]; then
	ktap_pass fault_knob_reads_back
else
	ktap_fail fault_knob_reads_back "read $(cat "$knob0") and $(cat "$knob1")"
fi
drop0=$(stat "$DEV0" tx_no_mem)
drop1=$(stat "$DEV1" tx_no_mem)
xfer mixed_transfers_recover 180 -n 60 -s 7
xfer read_atomic_pipelines_recover 180 -p -n 40 -s 8
d0=$(( $(stat "$DEV0" tx_no_mem) - drop0 ))
d1=$(( $(stat "$DEV1" tx_no_mem) - drop1 ))
ktap_diag "dropped for want of memory: $d0 by $DEV0 (requests), $d1 by $DEV1 (responses, ACKs)"
if [ "$d0" -gt 0 ] && [ "$d1" -gt 0 ]; then
	ktap_pass drops_counted_on_both_ends
else
	ktap_fail drops_counted_on_both_ends "tx_no_mem grew by $d0 and $d1"
fi

echo 0 > "$knob0"
echo 0 > "$knob1"
drop0=$(stat "$DEV0" tx_no_mem)
drop1=$(stat "$DEV1" tx_no_mem)
xfer clean_after_clearing 60 -n 20 -s 9
if [ "$(stat "$DEV0" tx_no_mem)" = "$drop0" ] &&
	[ "$(stat "$DEV1" tx_no_mem)" = "$drop1" ]; then
	ktap_pass nothing_dropped_once_cleared
else
	ktap_fail nothing_dropped_once_cleared "tx_no_mem still grows"
fi

ktap_finish
