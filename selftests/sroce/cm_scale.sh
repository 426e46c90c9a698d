#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Many connections at once, the load soft RoCE is known to fail under
# (issue 14: hangs past about 1000 connections, soft lockups with several
# lossy clients): one ucmatose server in a namespace takes 1000 RC
# connections (100 on the debug kernel) from 4 clients connecting at the
# same time, each connection exchanging 10 messages each way, first on a
# clean link, then with netem losing, delaying and reordering packets on
# both ends of the veth (connection requests, replies and RTUs lost too:
# the CM's retries must carry them). Every client and the server must end
# with every transfer done; afterwards no QP, CQ, MR, PD or cm_id of
# theirs may be left; the kernel log check fails the run on a soft lockup
# or hung task.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ucmatose >/dev/null || ktap_skip_all "rdmacm-utils missing"
require_netem
ktap_plan 3

two_hosts cs 10.86.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir

clients=4
conns=$(debug_scale 1000 100)
per_client=$((conns / clients))
# A connection's QP retries for 2^16 * 4.096 us = 268 ms, 7 times.
ack_timeout=16
port=7481
# The server's whole run, and each client's: set-up of every connection,
# the transfers, the disconnects, with the CM's retries under loss.
run_secs=$(debug_scale 300 1200)

srv=
stop_all() {
	pkill -9 -x ucmatose
	[ -z "$srv" ] || wait "$srv" 2>/dev/null
	srv=
}
on_exit stop_all

# cm_listening: the server's cm_id listens on the port
cm_listening() {
	rdma resource show cm_id 2>/dev/null |
		grep -Eq "state LISTEN .*comm ucmatose src-addr [^ ]*:$port( |\$)"
}

# transfers_done LOG: ucmatose's lines for a run that finished
transfers_done() {
	grep -q '^data transfers complete$' "$1" &&
		grep -q '^test complete$' "$1" &&
		grep -q '^return status 0$' "$1"
}

# leftovers: QPs, CQs, MRs, PDs and cm_ids of processes on our devices
leftovers() {
	local r n=0
	for r in qp cq mr pd cm_id; do
		n=$((n + $(rdma resource show $r 2>/dev/null |
			grep -E "(sroce_cs0|sroce_cs1)" | grep -c "pid ")))
	done
	echo "$n"
}

nothing_left() {
	[ "$(leftovers)" = 0 ]
}

# scale_case NAME NETEM: the server and the clients; passes if every one
# ends with its transfers done, within run_secs
scale_case() {
	local name=$1 spec=$2 t0 i pids=() st why='' ok=0
	tc qdisc replace dev cs0 root netem limit 10000 $spec &&
		tc -n "$NS" qdisc replace dev cs1 root netem limit 10000 $spec ||
		{ ktap_fail "$name" "netem refused \"$spec\""; return; }
	t0=$(now_ms)
	ip netns exec "$NS" timeout "$run_secs" stdbuf -oL ucmatose \
		-b 10.86.0.2 -p $port -c "$conns" -C 10 -a $ack_timeout \
		>"$work/$name.srv" 2>&1 &
	srv=$!
	if ! wait_until 30 cm_listening; then
		ktap_fail "$name" "the server never listened: $(tail -n 3 "$work/$name.srv" | tr '\n' ' ')"
		stop_all
		return
	fi
	for i in $(seq $clients); do
		timeout "$run_secs" stdbuf -oL ucmatose -s 10.86.0.2 -p $port \
			-c "$per_client" -C 10 -a $ack_timeout \
			>"$work/$name.cli$i" 2>&1 &
		pids+=($!)
	done
	for i in $(seq $clients); do
		wait "${pids[i - 1]}"
		st=$?
		if [ $st = 0 ] && transfers_done "$work/$name.cli$i"; then
			ok=$((ok + 1))
		else
			why+=" client $i: status $st, $(tail -n 2 "$work/$name.cli$i" | tr '\n' ' ');"
		fi
	done
	wait "$srv"
	st=$?
	srv=
	transfers_done "$work/$name.srv" && [ $st = 0 ] ||
		why+=" server: status $st, $(tail -n 2 "$work/$name.srv" | tr '\n' ' ');"
	ktap_diag "$name: $conns connections from $clients clients, netem \"${spec:-none}\": $ok clients done, $(( $(now_ms) - t0 )) ms; $(tc -s qdisc show dev cs0 | grep -o 'dropped [0-9]*' | head -n 1) here"
	if [ -z "$why" ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "$why"
	fi
}

scale_case connections_clean ""
scale_case connections_lossy "delay 1ms 1ms rate 1gbit loss 2% reorder 5%"
tc qdisc del dev cs0 root 2>/dev/null
tc -n "$NS" qdisc del dev cs1 root 2>/dev/null

if wait_until 30 nothing_left; then
	ktap_pass "nothing_left_behind"
else
	ktap_fail "nothing_left_behind" "$(leftovers) QPs, CQs, MRs, PDs or cm_ids of processes remain"
fi

ktap_finish
