#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Soak: everything at once, for SOAK_SECONDS (default 40; make soak runs
# 1200 on the debug kernel). Rounds of storm's verified RC and UD traffic
# between two namespaces, each round under the next netem profile of the
# list (loss, bursts, reordering, duplicates, corruption, delay, all of
# them, none), with a carrier flap shorter than the retry budget in the
# middle of it, while beside it an ib_send_bw pair is started, killed
# with SIGKILL once it has reported data sent (work in flight), and
# started again as soon as both ports are up.
#
# Each round (a KTAP line) must end with storm's exit status 0, bytes
# verified, no QP error (none counted by the ports either), and at least
# one perftest pair killed. After the last: no user QP, CQ, MR or PD
# left on either device and unreclaimable kernel memory (SUnreclaim +
# VmallocUsed) not grown by more than SOAK_GROWTH_KB (4096) since the end
# of the first round. ktap_finish fails on any kernel-log report; on the
# debug kernel sroce-vm then unloads the module and scans for leaks.
#
# SOAK_SECONDS sets the length, STORM_SEED repeats storm's traffic.
. "$(dirname "$0")/lib.sh"

require_sroce
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/storm" ] || ktap_skip_all "storm not built"
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
require_netem

soak_secs=${SOAK_SECONDS:-40}
[[ $soak_secs =~ ^[1-9][0-9]*$ ]] || ktap_skip_all "bad SOAK_SECONDS $soak_secs"
growth_kb=${SOAK_GROWTH_KB:-4096}
round_secs=$(debug_scale 20 60)
rounds=$(( (soak_secs + round_secs - 1) / round_secs ))
ktap_plan $(( rounds + 2 ))

two_hosts sk 10.90.0 || ktap_skip_all "cannot build the two-host topology"
IF0=sk0 IF1=sk1
make_work_dir
. "$here/storm_lib.sh"
# perftest pairs run on past storm's end: its counters are read at once.
storm_settle=0
netem_setup || ktap_skip_all "cannot add netem on the veth"

rc_pairs=$(debug_scale 4 2)
ud_pairs=1
depth=$(debug_scale 4 2)
max_len=$(debug_scale 65536 16384)
slack_ms=$(debug_scale 15000 60000)
# storm names a READ advancing one transport timeout at a time (fixed)
# precisely; a round fails if it shows.
known_defects=read_gap
# Transport timeout 2^18 * 4.096 us = 1074 ms, 7 retries: a budget of
# 8.6 s, which a one-second outage and loss together stay well within.
# On the debug kernel the ports take up to 8 s to come back after a
# one-second outage: 2^19, a budget of 17.2 s.
timeout_exp=$(debug_scale 18 19)
retry_cnt=7
budget=$(retry_budget_ms $timeout_exp $retry_cnt)
seed_base=${STORM_SEED:-$(( $(now_us) % 1000000000 ))}
ktap_diag "$rounds rounds of $round_secs s; seed base $seed_base (STORM_SEED repeats it); $rc_pairs RC and $ud_pairs UD pairs, depth $depth, up to $max_len bytes"

# The netem profiles, one per round in turn. Jitter comes with a rate so
# that it does not reorder every packet (see fault_storm.sh).
profiles=(
	"loss 2%"
	"loss gemodel 0.5% 10% 50% 0.1%"
	"delay 3ms 1ms distribution normal rate 1gbit reorder 10%"
	"duplicate 3%"
	"corrupt 1%"
	"delay 2ms 1ms distribution normal rate 1gbit loss 1% duplicate 1% corrupt 0.5% reorder 5%"
	""
)

port=18641
# How long a perftest end may take to listen, or to connect its QP.
start_secs=$(debug_scale 60 180)
churn_pid=
# churn: until $work/churn_stop exists, an ib_send_bw pair between the
# devices (with storm's transport timeout, so that a flap does not fail
# its QPs), reporting every second (--run_infinitely), killed with
# SIGKILL once the client has reported data sent (its send queue full of
# work in flight), then the next; "KILLED ATTEMPTS" in $work/kills, the
# last pair's output in $work/srv and $work/cli. perftest refuses a port that is down, so a
# pair starts only once both ports are ACTIVE (after the flap).
churn() {
	local srv cli kills=0 attempts=0
	# Also ends if the work directory is gone (the test is exiting).
	while [ -d "$work" ] && [ ! -e "$work/churn_stop" ]; do
		wait_until "$start_secs" active_or_stopping
		[ -e "$work/churn_stop" ] && break
		attempts=$((attempts + 1))
		ip netns exec "$NS" stdbuf -oL ib_send_bw -d "$DEV1" -x "$G1" \
			-F --run_infinitely -D 1 -u $timeout_exp -p $port \
			>"$work/srv" 2>&1 &
		srv=$!
		if wait_until "$start_secs" listening_or_stopping "$srv" &&
		   [ ! -e "$work/churn_stop" ] && ! pid_gone "$srv"; then
			stdbuf -oL ib_send_bw -d "$DEV0" -x "$G0" -F \
				--run_infinitely -D 1 -u $timeout_exp \
				-p $port 10.90.0.2 >"$work/cli" 2>&1 &
			cli=$!
			wait_until "$start_secs" sent_or_stopping "$cli" &&
				data_reported && kills=$((kills + 1))
			kill -9 "$cli" 2>/dev/null
			wait "$cli" 2>/dev/null
		fi
		# A server that gave up at once is not restarted in a busy loop.
		pid_gone "$srv" && [ ! -e "$work/churn_stop" ] && nap 1
		kill -9 "$srv" 2>/dev/null
		wait "$srv" 2>/dev/null
		# Renamed into place: a reader never sees a half-written file.
		echo "$kills $attempts" >"$work/kills.new" &&
			mv -f "$work/kills.new" "$work/kills"
	done
}

# data_reported: the client printed a result line (bytes, iterations,
# bandwidth) for a second with data sent
data_reported() {
	grep -Eq '^ *[0-9]+ +[1-9][0-9]* +[0-9.]+' "$work/cli"
}

# Once the round's end is asked for, nothing waits for a pair still
# starting; a client that gave up (it cannot connect during a flap, say)
# is not waited for at all.
sent_or_stopping() {
	[ -e "$work/churn_stop" ] || pid_gone "$1" || data_reported
}
# A server that gave up (the port went down under it) is not waited for.
listening_or_stopping() {
	[ -e "$work/churn_stop" ] || pid_gone "$1" || listening "$NS" $port
}
active_or_stopping() {
	[ -e "$work/churn_stop" ] || ports_are ACTIVE
}

# churn_counts: kills and attempts of this round's loop so far
churn_counts() {
	kills=0 attempts=0
	[ -e "$work/kills" ] && read -r kills attempts <"$work/kills"
}

# churn_killed_one: the loop has killed a sending pair this round
churn_killed_one() {
	churn_counts
	[ "$kills" -gt 0 ]
}

churn_exited() {
	pid_gone "$churn_pid"
}

churn_start() {
	rm -f "$work/churn_stop" "$work/kills" "$work/srv" "$work/cli"
	churn &
	churn_pid=$!
}

# churn_stop: the loop ends with its current pair (killed if it does not
# end in time); sets kills and attempts
churn_stop() {
	touch "$work/churn_stop"
	if ! wait_until "$start_secs" churn_exited; then
		kill -9 "$churn_pid" 2>/dev/null
		pkill -9 -x ib_send_bw
	fi
	wait "$churn_pid" 2>/dev/null
	churn_pid=
	churn_counts
}

# unreclaimable_kb: SUnreclaim + VmallocUsed
unreclaimable_kb() {
	local key val kb=0
	while read -r key val _; do
		case $key in
		SUnreclaim: | VmallocUsed:) kb=$((kb + val)) ;;
		esac
	done </proc/meminfo
	echo $kb
}

# user_resources: QPs, CQs, MRs and PDs of processes on either device
user_resources() {
	local r n=0
	for r in qp cq mr pd; do
		n=$((n + $(rdma resource show $r 2>/dev/null |
			grep -E "($DEV0|$DEV1)" | grep -c "pid ")))
		n=$((n + $(ip netns exec "$NS" rdma resource show $r \
			2>/dev/null | grep "$DEV1" | grep -c "pid ")))
	done
	echo $n
}

# At exit, before the work directory goes: the loop, then its pair.
on_exit '[ -z "$churn_pid" ] || { touch "$work/churn_stop"; kill -9 "$churn_pid"; wait "$churn_pid"; pkill -9 -x ib_send_bw; }'
churn_pid=
total_ops=0 total_bytes=0 total_qp_errors=0 total_kills=0 total_flaps=0
longest_outage=0 mem_first=
for (( r = 1; r <= rounds; r++ )); do
	spec=${profiles[(r - 1) % ${#profiles[@]}]}
	name="round_${r}"
	if ! netem "$spec"; then
		ktap_fail "$name" "netem refused \"$spec\""
		continue
	fi
	storm_start "$name" $((seed_base + r)) -t "$round_secs" -T $timeout_exp \
		-r $retry_cnt
	flowing=no
	storm_running_and_flowing && flowing=yes
	# The perftest pairs from then on: a pair sending flat out fills
	# netem's queue, and storm's set-up, resolving its peer's address,
	# timed out behind it (make check of b525963).
	churn_start
	if [ $flowing = yes ]; then
		t0=$(now_ms)
		link_down
		nap 1	# the outage itself: a duration, not a condition
		link_up
		ms=$(( $(now_ms) - t0 ))
		total_flaps=$((total_flaps + 1))
		[ $ms -gt $longest_outage ] && longest_outage=$ms
		[ $ms -lt "$budget" ] ||
			case_why+=" the outage lasted $ms ms, the retry budget is $budget ms;"
	fi
	storm_wait $(( round_secs + (budget + slack_ms) / 1000 + 120 ))
	# A pair started during the flap fails; the round ends once one has
	# been killed sending, or after start_secs.
	wait_until "$start_secs" churn_killed_one
	churn_stop
	# Zero errors: no QP fails (storm without -E exits non-zero if one
	# does), and the ports agree.
	require_eq "rc_qp_errors" "$(field rc_qp_errors)" 0
	require_eq "retry_exceeded_err" "$(moved_both retry_exceeded_err)" 0
	require_quiet_within "$(debug_scale 2000 30000)"
	[ "$(field bytes_verified)" -gt 0 ] || case_why+=" no bytes verified;"
	require_eq "READs advancing a transport timeout at a time" \
		"$(field known_read_gap)" 0
	if [ "$kills" = 0 ]; then
		case_why+=" no perftest pair reported data sent in $attempts attempts;"
		sed -n '1,15s/^/# client: /p' "$work/cli"
		sed -n '1,15s/^/# server: /p' "$work/srv"
	fi
	ktap_diag "$name: netem \"${spec:-none}\"; $(field ops) ops, $(field bytes_verified) bytes verified, $(field rc_qp_errors) QP errors, $(field known_read_gap) READ gaps; $kills of $attempts perftest pairs killed sending; netem: $(netem_stats); $(( $(now_ms) - case_t0 )) ms"
	if [ -z "$case_why" ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$case_why"
		sed -n '1,40s/^/# /p' "$work/storm.out"
	fi
	total_ops=$((total_ops + $(field ops)))
	total_bytes=$((total_bytes + $(field bytes_verified)))
	total_qp_errors=$((total_qp_errors + $(field rc_qp_errors)))
	total_kills=$((total_kills + kills))
	# Round 1 brought every cache and pool to its working size.
	[ -n "$mem_first" ] || mem_first=$(unreclaimable_kb)
done
netem ""

ktap_diag "soak: $rounds rounds, $total_ops ops, $total_bytes bytes verified, $total_qp_errors QP errors, $total_kills perftest pairs killed, $total_flaps carrier flaps (longest $longest_outage ms)"
# How long the slowest firmware command waited (destroys after killed
# processes come in bursts), and whether any timed out.
for f in /sys/kernel/debug/sroce/*/cmd_stats; do
	[ -r "$f" ] || continue
	ktap_diag "$(basename "$(dirname "$f")"): $(awk 'BEGIN { cmd = "none" } NR > 1 {
		if ($5 > max) { max = $5; cmd = $1 }
		timeouts += $4
	} END { printf "slowest command %s, %d us; %d timed out", cmd, max, timeouts }' "$f")"
done

no_user_resources() {
	[ "$(user_resources)" = 0 ]
}
if wait_until 60 no_user_resources; then
	ktap_pass no_user_resources_left
else
	ktap_fail no_user_resources_left "$(user_resources) QPs, CQs, MRs or PDs of processes remain"
fi

# Freed memory (RCU, deferred vfree) settles within seconds.
mem_bounded() {
	[ $(( $(unreclaimable_kb) - mem_first )) -le "$growth_kb" ]
}
if wait_until 30 mem_bounded; then
	ktap_diag "SUnreclaim + VmallocUsed: $(( $(unreclaimable_kb) - mem_first )) kB since round 1"
	ktap_pass unreclaimable_memory_bounded
else
	ktap_fail unreclaimable_memory_bounded \
		"SUnreclaim + VmallocUsed grew $(( $(unreclaimable_kb) - mem_first )) kB since round 1 (bound $growth_kb kB)"
fi
ktap_finish
