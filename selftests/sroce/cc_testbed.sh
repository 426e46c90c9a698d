#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# DCQCN on a congested path: two senders and one receiver, each in its
# own namespace, joined by a router namespace whose egress toward the
# receiver is limited (htb) with RED ECN marking, the congestion point of
# DCQCN. Two RDMA SEND flows share the bottleneck. Asserted: the
# receiver's notification point counts CE marks and sends CNPs, which
# leave with DSCP np_cnp_dscp (tshark, on the router), both senders'
# reaction points handle them, the flows share the link within 20%, and
# the router drops nothing. With the reaction point off on the senders
# (ECN not enabled, packets Not-ECT), RED drops instead and RC
# retransmits.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
command -v tc >/dev/null || ktap_skip_all "tc missing"
ktap_plan 12

# The bottleneck, well below what sroce reaches between namespaces here.
RATE=${SROCE_CC_RATE:-40mbit}
ITERS=${SROCE_CC_ITERS:-150}
SECS=30
NSS="ccs1 ccs2 ccr ccrt"

for n in $NSS; do
	ip netns add "$n" || ktap_skip_all "cannot create namespace $n"
	on_exit "ip netns del $n"
done
# s1a/rt1: sender 1, s2a/rt2: sender 2, ra/rt3: receiver; router in ccrt.
# link_to NS IFC PEER SUBNET: veth IFC in NS to PEER in the router.
link_to() {
	ip link add "$2" netns "$1" type veth peer name "$3" netns ccrt || return
	ip -n "$1" link set "$2" up && ip -n ccrt link set "$3" up &&
		ip -n "$1" addr add "$4.2/24" dev "$2" &&
		ip -n ccrt addr add "$4.1/24" dev "$3" &&
		ip -n "$1" route add default via "$4.1"
}
link_to ccs1 s1a rt1 10.91.1 && link_to ccs2 s2a rt2 10.91.2 &&
	link_to ccr ra rt3 10.91.3 ||
	ktap_skip_all "cannot build the topology"
ip netns exec ccrt sysctl -qw net.ipv4.ip_forward=1
# The router's port toward the receiver, as a switch's: RoCE (UDP/4791)
# in a class whose queue RED marks (ECT packets; it drops the others)
# from 15 KB of average queue; everything else (perftest's TCP) apart.
rtc() {
	ip netns exec ccrt tc "$@"
}
rtc qdisc add dev rt3 root handle 1: htb default 30 r2q 100 &&
	rtc class add dev rt3 parent 1: classid 1:1 htb rate "$RATE" &&
	rtc class add dev rt3 parent 1:1 classid 1:10 htb rate "$RATE" &&
	rtc class add dev rt3 parent 1:1 classid 1:30 htb rate 1mbit \
		ceil "$RATE" &&
	rtc qdisc add dev rt3 parent 1:10 handle 10: red limit 1000000 \
		min 15000 max 60000 avpkt 1100 burst 25 bandwidth "$RATE" \
		probability 0.2 ecn &&
	rtc qdisc add dev rt3 parent 1:30 handle 30: pfifo limit 1000 &&
	rtc filter add dev rt3 parent 1: protocol ip u32 \
		match ip protocol 17 0xff match ip dport 4791 0xffff \
		flowid 1:10 ||
	ktap_skip_all "cannot set up htb + red ecn (sch_htb, sch_red, cls_u32)"

for h in s1:s1a:1 s2:s2a:2 r:ra:3; do
	IFS=: read -r dev ifc sub <<<"$h"
	ns=cc${dev}
	ip netns exec "$ns" rdma link add "sroce_cc$dev" type sroce \
		netdev "$ifc" || ktap_skip_all "rdma link add over $ifc failed"
	on_exit "rdma link del sroce_cc$dev"
	wait_until 5 gid_v4 "sroce_cc$dev" "0a5b:0$sub""02" >/dev/null
done
gs1=$(gid_v4 sroce_ccs1 0a5b:0102) && gs2=$(gid_v4 sroce_ccs2 0a5b:0202) &&
	gr=$(gid_v4 sroce_ccr 0a5b:0302) || ktap_skip_all "GIDs missing"

# stat DEV NAME: one port counter
stat() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# red_stat FIELD: the router's RED qdisc's "dropped" or "marked" count
red_stat() {
	rtc -s qdisc show dev rt3 parent 1:10 |
		tr -d '(),' | awk -v f="$1" '{ for (i = 1; i < NF; i++)
			if ($i == f) { print $(i + 1); exit } }'
}

# flows TAG: one RDMA SEND flow of $ITERS 64 KiB messages from each
# sender to the receiver, started together (perftest's event mode: busy
# polling would starve the emulated CPUs that forward). Sets bw1 and bw2,
# each sender's rate in Mbit/s from its byte counter over the time both
# flows ran (until the first one ended), or returns non-zero.
flows() {
	local p c1 c2 b1 b2 t0 t1 status=0 servers=()
	make_work_dir
	for p in 1 2; do
		ip netns exec ccr timeout 150 ib_send_bw -d sroce_ccr -x "$gr" \
			-F -e -n "$ITERS" -p $((18600 + p)) > "$work/srv$p" 2>&1 &
		servers+=($!)
	done
	if ! wait_until 20 bash -c "ip netns exec ccr ss -ltn | grep -q ':18602 '" ||
	   ! wait_until 20 bash -c "ip netns exec ccr ss -ltn | grep -q ':18601 '"; then
		ktap_diag "servers: $(tail -n 3 "$work/srv1" "$work/srv2" | tr '\n' ' ')"
		kill "${servers[@]}" 2>/dev/null
		wait "${servers[@]}"
		return 1
	fi
	b1=$(stat sroce_ccs1 sent_bytes)
	b2=$(stat sroce_ccs2 sent_bytes)
	t0=${EPOCHREALTIME/./}
	ip netns exec ccs1 timeout 150 ib_send_bw -d sroce_ccs1 -x "$gs1" -F -e \
		-n "$ITERS" -p 18601 10.91.3.2 > "$work/c1" 2>&1 &
	c1=$!
	ip netns exec ccs2 timeout 150 ib_send_bw -d sroce_ccs2 -x "$gs2" -F -e \
		-n "$ITERS" -p 18602 10.91.3.2 > "$work/c2" 2>&1 &
	c2=$!
	wait -n $c1 $c2 || status=$?
	t1=${EPOCHREALTIME/./}
	bw1=$(( ($(stat sroce_ccs1 sent_bytes) - b1) * 8 / ((10#$t1 - 10#$t0) / 1000) / 1000 ))
	bw2=$(( ($(stat sroce_ccs2 sent_bytes) - b2) * 8 / ((10#$t1 - 10#$t0) / 1000) / 1000 ))
	wait $c1 || status=$?
	wait $c2 || status=$?
	wait "${servers[@]}"
	ktap_diag "$1: $(( (10#$t1 - 10#$t0) / 1000 )) ms together: flow 1 $bw1 Mbit/s, flow 2 $bw2 Mbit/s"
	if [ $status -ne 0 ]; then
		ktap_diag "clients: $(tail -n 3 "$work/c1" "$work/c2" | tr '\n' ' ')"
		return 1
	fi
}

# CNPs on the router's side of sender 1: BTH opcode 0x81 in UDP/4791.
cap=$(mktemp)
on_exit "rm -f $cap"
have_tshark=1
command -v tshark >/dev/null || have_tshark=0
if [ $have_tshark = 1 ]; then
	ip netns exec ccrt timeout $((SECS + 120)) tshark -q -i rt1 \
		-f "udp dst port 4791 and udp[8] = 0x81" -w "$cap" 2> "$cap.log" &
	tshark_pid=$!
	on_exit "kill $tshark_pid; rm -f $cap.log"
	wait_until 60 grep -q "Capturing on" "$cap.log" ||
		ktap_diag "tshark did not start: $(cat "$cap.log")"
fi

# knob DEV NAME VALUE: set a congestion-control knob through sysfs.
knob() {
	echo "$3" > "/sys/class/infiniband/$1/ports/1/cc_params/$2"
}

# run TAG: the two flows, with the router's queue sampled twice a second
# meanwhile; sets ok, the counter deltas (ce np h1 h2 drops seqerr tmo) and
# qmean, the mean backlog in bytes while both flows ran.
run() {
	local ce0 np0 h10 h20 d0 s0 tmo0 sampler
	ce0=$(stat sroce_ccr np_ecn_marked_roce_packets)
	np0=$(stat sroce_ccr np_cnp_sent)
	h10=$(stat sroce_ccs1 rp_cnp_handled)
	h20=$(stat sroce_ccs2 rp_cnp_handled)
	s0=$(( $(stat sroce_ccs1 packet_seq_err) + $(stat sroce_ccs2 packet_seq_err) +
	       $(stat sroce_ccs1 local_ack_timeout_err) + $(stat sroce_ccs2 local_ack_timeout_err) ))
	d0=$(red_stat dropped)
	tmo0=$(( $(stat sroce_ccs1 local_ack_timeout_err) +
		 $(stat sroce_ccs2 local_ack_timeout_err) ))
	rm -f "$cap.done"
	: > "$cap.res"
	( while [ ! -e "$cap.done" ]; do
		rtc -s qdisc show dev rt3 parent 1:10 |
			awk '/backlog/ { v = $2; m = 1
				if (v ~ /Kb$/) m = 1024; if (v ~ /Mb$/) m = 1048576
				print (v + 0) * m }'
		rdma -dd resource show qp link sroce_ccs1/1 2>/dev/null |
			grep -o 'cc_[a-z_]* [0-9]*' | tr '\n' ' ' >> "$cap.res"
		echo >> "$cap.res"
		nap 0.5
	done > "$cap.backlog" ) &
	sampler=$!
	ok=0
	flows "$1" && ok=1
	touch "$cap.done"
	wait $sampler
	ce=$(( $(stat sroce_ccr np_ecn_marked_roce_packets) - ce0 ))
	np=$(( $(stat sroce_ccr np_cnp_sent) - np0 ))
	h1=$(( $(stat sroce_ccs1 rp_cnp_handled) - h10 ))
	h2=$(( $(stat sroce_ccs2 rp_cnp_handled) - h20 ))
	seqerr=$(( $(stat sroce_ccs1 packet_seq_err) + $(stat sroce_ccs2 packet_seq_err) +
		   $(stat sroce_ccs1 local_ack_timeout_err) +
		   $(stat sroce_ccs2 local_ack_timeout_err) - s0 ))
	drops=$(( $(red_stat dropped) - d0 ))
	tmo=$(( $(stat sroce_ccs1 local_ack_timeout_err) +
		$(stat sroce_ccs2 local_ack_timeout_err) - tmo0 ))
	# Skip the first second (flows starting) and the last sample.
	qmean=$(awk 'NR > 2 { n++; s += $1; v[n] = $1 }
		END { if (n > 1) print int((s - v[n]) / (n - 1)); else print -1 }' \
		"$cap.backlog")
	ktap_diag "$1: CE marked $ce, CNPs sent $np, handled $h1 + $h2, dropped $drops, sequence errors and timeouts $seqerr (timeouts $tmo), mean backlog $qmean B"
	ktap_diag "$1: backlog samples: $(tr '\n' ' ' < "$cap.backlog")"
}
on_exit "rm -f $cap.done $cap.backlog $cap.res"

# 1. mlx5's defaults. Tuned for 40-100 Gbit/s links with microsecond
# RTTs, they barely slow a flow here (alpha decays within a CNP gap), so
# the send window bounds the queue; asserted is that the loop runs.
run "defaults"
if [ $ok -eq 1 ]; then
	ktap_pass "two flows through the congested router"
else
	ktap_fail "two flows through the congested router" "perftest failed"
fi
if [ "$ce" -gt 0 ] && [ "$np" -gt 0 ] && [ "$np" -le "$ce" ]; then
	ktap_pass "the receiver's notification point answers CE marks with CNPs"
else
	ktap_fail "the receiver's notification point answers CE marks with CNPs"
fi
if [ "$h1" -gt 0 ] && [ "$h2" -gt 0 ]; then
	ktap_pass "both senders' reaction points handle CNPs"
else
	ktap_fail "both senders' reaction points handle CNPs"
fi
if [ -n "${bw1:-}" ] && awk -v a="$bw1" -v b="$bw2" \
	'BEGIN { d = a > b ? a - b : b - a; m = a > b ? a : b; exit !(m > 0 && d <= 0.2 * m) }'; then
	ktap_pass "the two flows share the bottleneck within 20%"
else
	ktap_fail "the two flows share the bottleneck within 20%" "${bw1:-?} vs ${bw2:-?} Mbit/s"
fi
if [ "$drops" -eq 0 ]; then
	ktap_pass "the router drops nothing"
else
	ktap_fail "the router drops nothing" "$drops dropped"
fi
qdefault=$qmean

# 2. The time constants scaled to this 40 Mbit/s link and its
# millisecond RTTs (Documentation/dcqcn.rst): DCQCN holds the queue near
# the marking thresholds, below what the send windows alone leave. A CNP
# DSCP of 26 and a 2 ms CNP gap, whose effects are checked on the wire
# and in the counters.
for d in sroce_ccs1 sroce_ccs2; do
	knob $d rp_dce_tcp_rtt 1000 && knob $d rp_time_reset 20000 &&
		knob $d rp_byte_reset 0 && knob $d rp_ai_rate 1 &&
		knob $d rp_hai_rate 2 && knob $d rp_clamp_tgt_rate 1 &&
		knob $d rp_rate_reduce_monitor_period 1000 ||
		ktap_diag "setting $d's knobs failed"
done
knob sroce_ccr np_min_time_between_cnps 2000 && knob sroce_ccr np_cnp_dscp 26 ||
	ktap_diag "setting the receiver's knobs failed"
# The control loop in the tracepoints, during this run.
tr=/sys/kernel/tracing
[ -d $tr/events/sroce ] || tr=/sys/kernel/debug/tracing
if [ -d $tr/events/sroce ]; then
	echo 0 > $tr/tracing_on
	: > $tr/trace
	echo 1 > $tr/events/sroce/enable
	echo 1 > $tr/tracing_on
	on_exit "echo 0 > $tr/events/sroce/enable"
fi
t0=${EPOCHREALTIME/./}
run "scaled"
t1=${EPOCHREALTIME/./}
traced=''
if [ -d $tr/events/sroce ]; then
	echo 0 > $tr/tracing_on
	traced=$(awk '/sroce_cnp_sent:/ { s++ } /sroce_cnp_recv:.*handled/ { r++ }
		/sroce_rate:/ { split($0, a, "rate="); split(a[2], b, "[->]+")
			if (b[1] + 0 > b[2] + 0) d++ }
		END { printf "%d %d %d", s, r, d }' $tr/trace)
	echo 1 > $tr/tracing_on
fi
# Timeouts are reported, not asserted: a queue the windows fill while
# the limiters start (140 KB, 50 ms at this rate) under TCG's delays can
# outlast perftest's 67 ms timeout without any pacing wait in it.
if [ $ok -eq 1 ] && [ "$drops" -eq 0 ] && [ "$h1" -gt 0 ] && [ "$h2" -gt 0 ]; then
	ktap_pass "scaled knobs: both flows slowed by CNPs, no drop"
else
	ktap_fail "scaled knobs: both flows slowed by CNPs, no drop"
fi
if [ "$qmean" -ge 0 ] && [ "$qmean" -le 60000 ] && [ "$qmean" -lt "$qdefault" ]; then
	ktap_pass "scaled knobs: the mean queue stays below RED's max threshold"
else
	ktap_fail "scaled knobs: the mean queue stays below RED's max threshold" \
		"$qmean B (defaults: $qdefault B)"
fi
# The limiter as rdma resource shows it (restrack driver attributes).
res=$(grep 'cc_limited 1' "$cap.res" | grep -m1 'cc_rate_kbps [1-9]')
ktap_diag "sender 1's QPs while limited: ${res:-none seen}"
if [ -n "$res" ] && [[ $res == *cc_target_kbps* ]] && [[ $res == *cc_alpha* ]]; then
	ktap_pass "rdma resource shows a limited QP's rate, target and alpha"
else
	ktap_fail "rdma resource shows a limited QP's rate, target and alpha" \
		"$(sort -u "$cap.res" | head -n 3 | tr '\n' '|')"
fi

# Two receiving QPs, one CNP each per 2 ms at most.
maxcnp=$(( 2 * ((10#$t1 - 10#$t0) / 2000 + 1) ))
if [ "$np" -gt 0 ] && [ "$np" -le "$maxcnp" ]; then
	ktap_pass "np_min_time_between_cnps bounds the CNP rate"
else
	ktap_fail "np_min_time_between_cnps bounds the CNP rate" "$np CNPs, at most $maxcnp allowed"
fi

ktap_diag "traced: CNPs sent, CNPs handled, rate decreases: ${traced:-no tracefs}"
if [ -z "$traced" ]; then
	ktap_skip "tracepoints show CNPs and rate cuts" "no tracefs"
elif [ "$(echo "$traced" | awk '{ print ($1 > 0 && $2 > 0 && $3 > 0) }')" = 1 ]; then
	ktap_pass "tracepoints show CNPs and rate cuts"
else
	ktap_fail "tracepoints show CNPs and rate cuts"
fi

if [ $have_tshark = 1 ]; then
	kill "$tshark_pid" 2>/dev/null
	wait "$tshark_pid" 2>/dev/null
	dscp=$(tshark -r "$cap" -T fields -e ip.dsfield.dscp -e ip.dsfield.ecn 2>/dev/null |
		sort | uniq -c | awk '{ print $2 "/" $3 }' | sort | tr '\n' ' ')
	ktap_diag "CNPs captured (DSCP/ECN): ${dscp:-none}"
	if [ "$dscp" = "26/0 48/0 " ]; then
		ktap_pass "CNPs leave Not-ECT with DSCP 48, then np_cnp_dscp 26"
	else
		ktap_fail "CNPs leave Not-ECT with DSCP 48, then np_cnp_dscp 26"
	fi
else
	ktap_skip "CNPs leave Not-ECT with DSCP 48, then np_cnp_dscp 26" "tshark missing"
fi

# 3. The reaction point off on the senders: their packets leave Not-ECT,
# RED drops instead of marking, and RC retransmits (go-back-N over a full
# window per loss: a flow may even exhaust its retries, which perftest
# reports; its completion is not asserted).
for d in sroce_ccs1 sroce_ccs2; do
	echo 0,0,0,0,0,0,0,0 > "/sys/class/infiniband/$d/ports/1/qos/ecn_rp_enable" ||
		ktap_diag "turning $d's reaction point off failed"
done
run "ECN off"
if [ "$ce" -eq 0 ] && [ "$drops" -gt 0 ] && [ "$seqerr" -gt 0 ]; then
	ktap_pass "ECN off: no mark, the router drops, RC retransmits"
else
	ktap_fail "ECN off: no mark, the router drops, RC retransmits"
fi

ktap_finish
