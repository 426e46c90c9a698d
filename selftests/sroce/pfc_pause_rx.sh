#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Pause reception (PFC, issue 13): a link partner's 802.1Qbb frames hold
# the priorities they name that have PFC on, and nothing else; XON or the
# pause's expiry lets them go; a held RC flow neither times out nor
# fails however long the pause (its transport timer does not count the
# time paused); 802.3x PAUSE holds every priority while PFC is off; a QP
# in ERROR on a paused priority still flushes. The link partner is
# pause_inject.py on the far end of the veth, in the other namespace; the
# flows are perftest between the two sroce devices.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
ktap_plan 10
# Pause and resume timings, flows completing in time (check-debug: 3 of
# 10 failed, 371 s).
debug_timing_is_todo

two_hosts pfc 10.96.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir
inject=$(dirname "$0")/pause_inject.py
sys=/sys/class/infiniband/$DEV0/ports/1
# 64 KiB SENDs, few enough for TCG.
ITERS=300
# The flows a pause is to hold: ten times as much, so that what slips
# through while the injector is late (on 7.3 guests its renewals lapse
# up to 70 times a second, some 20 % of the time) cannot finish them.
HELD_ITERS=3000

stat() {
	cat "/sys/class/infiniband/$DEV0/ports/1/hw_counters/$1"
}

# inject ARGS...: pause_inject.py on the partner's end, in its namespace,
# at real-time priority so that busy flows do not delay its refreshes.
inject() {
	nsx chrt -f 50 python3 "$inject" pfc1 "$@"
}

# pause_start KIND...: the partner pauses (pause_inject.py --pfc VECTOR or
# --global) at 65535 quanta, renewed until pause_stop, which sends XON
# and notes when in $stop_at.
pause_start() {
	rm -f "$work/stop"
	inject "$@" --quanta 0xffff --until "$work/stop" > "$work/inj" 2>&1 &
	inj=$!
	wait_until 10 grep -q started "$work/inj"
}

pause_stop() {
	touch "$work/stop"
	stop_at=${EPOCHREALTIME/./}
	wait "$inj"
}

# flow NAME SL PORT [ITERS]: an ib_send_bw from DEV0 to DEV1 at service level SL
# (the priority, in PCP trust) in the background; $work/NAME.end gets
# "STATUS TIME_US" when the client ends. A paused flow's transport
# timeout is perftest's 67 ms (-u 14), the one its pause must not
# trigger; the others have 1 s (-u 18), so that a TCG stall of the busy
# guest does not time them out and blur the count.
flow() {
	local name=$1 sl=$2 port=$3 iters=${4:-$ITERS} u=18
	[ "$sl" = 3 ] && u=14
	nsx timeout 120 ib_send_bw -d "$DEV1" -x "$G1" -S "$sl" -e -F -u $u \
		-s 65536 -n "$iters" -p "$port" > "$work/$name.srv" 2>&1 &
	eval "${name}_srv=$!"
	wait_until 30 listening "$NS" "$port"
	(
		timeout 120 ib_send_bw -d "$DEV0" -x "$G0" -S "$sl" -e -F -u $u \
			-s 65536 -n "$iters" -p "$port" 10.96.0.2 \
			> "$work/$name.cli" 2>&1
		echo "$? ${EPOCHREALTIME/./}" > "$work/$name.end"
	) &
	eval "${name}_cli=$!"
}

# flow_wait NAME: wait for a flow; true if client and server exited 0
flow_wait() {
	local srv cli
	eval "srv=\$${1}_srv cli=\$${1}_cli"
	wait "$cli"
	wait "$srv" && [ "$(cut -d' ' -f1 "$work/$1.end")" = 0 ]
}

ended() {
	[ -s "$work/$1.end" ]
}

ended_at() {
	cut -d' ' -f2 "$work/$1.end"
}

# 1. The default, and the setting.
if [ "$(cat $sys/pfc/enable)" = 0,0,0,0,0,0,0,0 ] &&
   echo 0,0,0,1,0,0,0,0 > $sys/pfc/enable &&
   [ "$(cat $sys/pfc/enable)" = 0,0,0,1,0,0,0,0 ] &&
   ! echo 0,0,0,2,0,0,0,0 > $sys/pfc/enable 2>/dev/null &&
   [ "$(cat $sys/pfc/enable)" = 0,0,0,1,0,0,0,0 ]; then
	ktap_pass "pfc/enable: off by default, set per priority, bad value refused"
else
	ktap_fail "pfc/enable: off by default, set per priority, bad value refused"
fi

# 2. Counted per priority named; 802.3x apart; a frame to another
# station is not for this port.
p3=$(stat rx_prio3_pause) p0=$(stat rx_prio0_pause) g=$(stat rx_pause_ctrl_phy)
inject --pfc 0x08 --quanta 1 --count 50 >/dev/null &&
	inject --global --quanta 1 --count 5 >/dev/null &&
	inject --pfc 0x08 --quanta 1 --count 7 --dest 02:00:00:00:00:99 >/dev/null
counter_at_least() {
	[ "$(stat "$1")" -ge "$2" ]
}
wait_until 10 counter_at_least rx_prio3_pause $((p3 + 50))
d3=$(( $(stat rx_prio3_pause) - p3 )) d0=$(( $(stat rx_prio0_pause) - p0 ))
dg=$(( $(stat rx_pause_ctrl_phy) - g ))
ktap_diag "rx_prio3_pause +$d3, rx_prio0_pause +$d0, rx_pause_ctrl_phy +$dg"
if [ $d3 -eq 50 ] && [ $d0 -eq 0 ] && [ $dg -eq 5 ]; then
	ktap_pass "pause frames counted per priority, 802.3x apart, others' ignored"
else
	ktap_fail "pause frames counted per priority, 802.3x apart, others' ignored"
fi

# 3-5. Priority 3 paused for as long as the partner refreshes it: the
# flow on priority 0 runs to its end meanwhile, the one on priority 3
# waits, held 2 s past that, then goes on at XON and completes, with no
# transport timeout (perftest -u 14: 67 ms, 7 retries: a timer that
# counted the pause would have failed it).
timeouts=$(stat local_ack_timeout_err)
held0=$(stat rx_prio3_pause_duration)
tr0=$(stat rx_prio3_pause_transition)
pause_start --pfc 0x08
flow p3 3 18531 $HELD_ITERS
flow p0 0 18532
wait_until 90 ended p0
nap 2
ended p3 && early=yes || early=no
# Counted up to the XON: a timer that counted the pause fires within it;
# after it the flow runs seconds more at 67 ms, where a TCG stall of the
# guest may time out a packet, pause or none.
dt=$(( $(stat local_ack_timeout_err) - timeouts ))
pause_stop
xon_at=$stop_at
wait_until 90 ended p3
ok0=no ok3=no
flow_wait p0 && ok0=yes
flow_wait p3 && ok3=yes
ktap_diag "injector: $(tail -n 1 "$work/inj"); p3 ended early: $early; p3 after XON: $(( ($(ended_at p3 2>/dev/null || echo 0) - xon_at) / 1000 )) ms"
if [ $ok0 = yes ] && [ $early = no ]; then
	ktap_pass "priority 0 flows while priority 3 is paused"
else
	ktap_fail "priority 0 flows while priority 3 is paused" \
		"p0 ok: $ok0, p3 ended during the pause: $early; $(tail -n 2 "$work/p0.cli" | tr '\n' ' ')"
fi
if [ $ok3 = yes ] && [ "$(ended_at p3)" -gt "$xon_at" ]; then
	ktap_pass "the paused flow resumes at XON and completes"
else
	ktap_fail "the paused flow resumes at XON and completes" \
		"$(tail -n 2 "$work/p3.cli" | tr '\n' ' ')"
fi
held=$(( $(stat rx_prio3_pause_duration) - held0 ))
trans=$(( $(stat rx_prio3_pause_transition) - tr0 ))
ktap_diag "held $held us in $trans pauses; transport timeouts +$dt"
if [ $dt -eq 0 ] && [ $held -ge 2000000 ] && [ $trans -ge 1 ]; then
	ktap_pass "no transport timeout while paused; pause duration counted"
else
	ktap_fail "no transport timeout while paused; pause duration counted"
fi

# 6. PFC frames for a priority with PFC off are counted, not obeyed.
held0=$(stat rx_prio0_pause_duration)
pause_start --pfc 0x01
flow q0 0 18533
wait_until 90 ended q0
pause_stop
ok=no
flow_wait q0 && ok=yes
if [ $ok = yes ] && [ "$(stat rx_prio0_pause_duration)" -eq "$held0" ]; then
	ktap_pass "PFC off on priority 0: its pause frames are not obeyed"
else
	ktap_fail "PFC off on priority 0: its pause frames are not obeyed" \
		"flow ok: $ok; $(tail -n 2 "$work/q0.cli" | tr '\n' ' ')"
fi

# 7-8. PFC off everywhere: an 802.3x PAUSE holds every priority, until
# the zero-quanta PAUSE.
echo 0,0,0,0,0,0,0,0 > $sys/pfc/enable
held0=$(stat rx_prio0_pause_duration)
pause_start --global
flow g0 0 18534 $HELD_ITERS
# The flow's connection is made over TCP, which no pause holds; its
# RDMA traffic waits. Hold it 3 s past its start.
nap 3
ended g0 && early=yes || early=no
pause_stop
xon_at=$stop_at
wait_until 90 ended g0
ok=no
flow_wait g0 && ok=yes
if [ $early = no ] && [ $ok = yes ] && [ "$(ended_at g0)" -gt "$xon_at" ]; then
	ktap_pass "PFC off: 802.3x PAUSE holds priority 0 until its XON"
else
	ktap_fail "PFC off: 802.3x PAUSE holds priority 0 until its XON" \
		"ended early: $early, ok: $ok; $(tail -n 2 "$work/g0.cli" | tr '\n' ' ')"
fi
held=$(( $(stat rx_prio0_pause_duration) - held0 ))
ktap_diag "priority 0 held $held us by 802.3x"
if [ $held -ge 2000000 ]; then
	ktap_pass "802.3x pause time counted on every priority"
else
	ktap_fail "802.3x pause time counted on every priority"
fi

# 9. rdma statistic shows the counters by their mlx5 names.
if rdma statistic show link "$DEV0/1" 2>/dev/null |
	grep -q "rx_prio3_pause_duration" ; then
	ktap_pass "rdma statistic shows rx_prioN_pause*"
else
	ktap_fail "rdma statistic shows rx_prioN_pause*"
fi

# 10. A QP on a paused priority drains: moved to ERROR while the partner
# keeps priority 3 paused, its waiting SENDs and one posted afterwards
# complete with flush errors at once (pfc_drain, the ib_drain_qp() case).
# On a device of its own over a tap set to 10 Mbit/s, where each frame
# pauses for 3.4 s: renewed every 0.5 s, the pause never lapses, as the
# veth's 3.4 ms ones do under TCG. The QPs talk through the internal
# loopback, never the tap.
drain_case() {
	local dev=sroce_pfcd tap=pfcd0 g
	rm -f "$work/dstop"
	chrt -f 50 python3 "$inject" "$tap" --tap --pfc 0x08 --quanta 0xffff \
		--every 500000 --until "$work/dstop" > "$work/dinj" 2>&1 &
	dinj=$!
	on_exit "touch $work/dstop; wait $dinj"
	# What the environment may refuse (a real-time priority, a tap's
	# speed) skips the case (4); what sroce refuses fails it.
	wait_until 10 grep -q started "$work/dinj" || return 4
	# A tap's speed is 10 Gbit/s since 6.2 (10 Mbit/s before) and
	# settable; the port samples it when the device is added.
	ethtool -s "$tap" speed 10 duplex full autoneg off &&
		[ "$(cat "/sys/class/net/$tap/speed")" = 10 ] || return 4
	ip addr add 10.97.0.1/24 dev "$tap" && link_add "$dev" "$tap" ||
		return
	wait_until 10 gid_v4 "$dev" "0a61:0001" >/dev/null || return
	g=$(gid_v4 "$dev" "0a61:0001") || return
	echo 0,0,0,1,0,0,0,0 > "/sys/class/infiniband/$dev/ports/1/pfc/enable" || return
	# Paused from the next renewal: its time counts while it lasts.
	wait_until 10 test_counter_positive "$dev" rx_prio3_pause_duration || return
	SROCE_DEV=$dev SROCE_GID_INDEX=$g SROCE_SL=3 \
		timeout 90 "$(dirname "$0")/pfc_drain" > "$work/drain" 2>&1
}
test_counter_positive() {
	[ "$(cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2")" -gt 0 ]
}
[ -c /dev/net/tun ] || modprobe tun 2>/dev/null
if [ ! -x "$(dirname "$0")/pfc_drain" ]; then
	ktap_skip "a QP in ERROR flushes while its priority is paused" \
		"pfc_drain not built"
elif [ ! -c /dev/net/tun ]; then
	ktap_skip "a QP in ERROR flushes while its priority is paused" \
		"no /dev/net/tun"
else
	drain_case
	rc=$?
	sed 's/^/# /' "$work/drain" 2>/dev/null
	if [ $rc -eq 0 ]; then
		ktap_pass "a QP in ERROR flushes while its priority is paused"
	elif [ $rc -eq 4 ]; then
		ktap_skip "a QP in ERROR flushes while its priority is paused" \
			"no paused tap: $(tail -n 2 "$work/dinj" 2>/dev/null | tr '\n' ' ')"
	else
		ktap_fail "a QP in ERROR flushes while its priority is paused" \
			"exit status $rc; $(tail -n 2 "$work/dinj" 2>/dev/null | tr '\n' ' ')"
	fi
fi

ktap_finish
