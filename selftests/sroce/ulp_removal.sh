#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Device removal under kernel and RDMA CM consumers. On one sroce device
# (loopback through the packet engine, as nvme_rdma.sh): an NVMe over
# RDMA target (nvmet-rdma) and host (nvme-rdma) with fio running mixed
# reads and writes through the block device, and an rping pair
# (userspace RDMA CM: SENDs, RDMA READs and WRITEs, data verified) at
# once. While both run, the device goes:
#   link_del  `rdma link del`;
#   rmmod     sroce is unloaded (no consumer holds the module: a kernel
#             ULP never does, and sroce disassociates user contexts).
# ib_core then tells every client: nvme-rdma deletes its controller
# (fio's I/O fails and fio ends), nvmet-rdma its queues, RDMA CM sends
# DEVICE_REMOVAL to rping's IDs (rping ends on it). Each round: the
# removal returns within a bound while both consumers run, the device,
# the NVMe controller, fio and both rpings are gone within bounds of
# their own, and the module's reference count is back to zero.
# ktap_finish fails on any kernel-log report.
# ULP_ROUNDS overrides the rounds per scenario (default 10; 2 on the
# debug kernel), ULP_SCENARIOS the list.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/nvme_lib.sh"

NQN=nqn.2026-12.dev.sroce:ulp-removal
ADDR=10.84.0.1
NVME_PORT=4421
RPING_PORT=7175
DEV=sroce_ul

require_sroce
[ -n "${SROCE_KO:-}" ] || ktap_skip_all "needs SROCE_KO to reload sroce"
command -v rping >/dev/null || ktap_skip_all "rping not installed"
require_nvme_rdma
scenarios=${ULP_SCENARIOS:-link_del rmmod}
rounds=${ULP_ROUNDS:-$(debug_scale 10 2)}
ktap_plan $(($(wc -w <<<"$scenarios") + 1))

make_work_dir
veth_pair ul0 ul1
ip addr add $ADDR/24 dev ul0

# --- the target's subsystem, kept for the whole test -------------------
truncate -s 64M "$work/ns1.img"
if ! nvmet_subsystem $NQN "$work/ns1.img"; then
	for c in $scenarios nothing_left_behind; do
		ktap_fail "$c" "nvmet configfs refused subsystem $NQN"
	done
	ktap_finish
fi
port_dir=$NVMET_CFG/ports/84

# after_failure: undo what a round left (it ran in a subshell: its
# consumers' pids are in $work/pids), each step bounded
after_failure() {
	local pids=()
	read -ra pids <"$work/pids" 2>/dev/null
	[ ${#pids[@]} = 0 ] || kill -9 "${pids[@]}" 2>/dev/null
	timeout 60 nvme disconnect -n $NQN >/dev/null 2>&1
	nvmet_port_del "$port_dir" $NQN
	timeout 120 rdma link del $DEV 2>/dev/null
	sroce_ensure_loaded
}
# The first of the exit actions: a round cut short leaves these.
on_exit "after_failure"
hostnqn=$(nvme gen-hostnqn)

no_ctrl() {
	! nvme_ctrl $NQN >/dev/null
}
have_ns() {
	nvme_ns $NQN >/dev/null
}

# ios: reads and writes completed by the block devices of our subsystem,
# the namespace's and its paths' (with native multipath, 6.1's head
# device counts none of its I/O: its path devices nvmeXcYnZ do)
ios() {
	local b n=0 r w
	for b in /sys/block/nvme*; do
		[ -e "$b/device/subsysnqn" ] || continue
		[ "$(cat "$b/device/subsysnqn")" = "$NQN" ] || continue
		read -r r _ _ _ w _ <"$b/stat" || continue
		n=$((n + r + w))
	done
	echo "$n"
}
# ios_since FROM N: N I/Os more than FROM were completed
ios_since() {
	[ $(($(ios) - $1)) -ge "$2" ]
}
# lines_at_least FILE N
lines_at_least() {
	[ "$(wc -l <"$1")" -ge "$2" ]
}

rping_listens() {
	rdma resource show cm_id 2>/dev/null |
		grep -Eq "state LISTEN .*comm rping src-addr [^ ]*:$RPING_PORT( |\$)"
}

consumers_gone() {
	pid_gone "$fio" && pid_gone "$rs" && pid_gone "$rc"
}

# consumers: the device, the target's port on it, the host connected
# with fio running through it, and an rping pair; returns once both
# move data (fio 200 I/Os, rping 20 verified pings)
consumers() {
	local name t0 major minor
	rdma link add $DEV type sroce netdev ul0 ||
		{ echo "rdma link add failed"; return 1; }
	nvmet_port "$port_dir" $ADDR $NVME_PORT $NQN ||
		{ echo "nvmet port refused"; return 1; }
	timeout 60 nvme connect -t rdma -a $ADDR -s $NVME_PORT -n $NQN \
		-q "$hostnqn" >"$work/connect" 2>&1 ||
		{ echo "nvme connect: $(tr '\n' ' ' <"$work/connect")"; return 1; }
	wait_until 30 have_ns || { echo "no block device"; return 1; }
	name=$(nvme_ns $NQN)
	rm -f "$work/blk"
	IFS=: read -r major minor <"/sys/block/$name/dev"
	mknod "$work/blk" b "$major" "$minor" ||
		{ echo "mknod $name failed"; return 1; }
	t0=$(ios)
	fio --name=ulp --filename="$work/blk" --direct=1 --ioengine=libaio \
		--iodepth=16 --rw=randrw --bsrange=4k-128k --blockalign=4k \
		--size=32M --time_based --runtime=600 \
		--output="$work/fio" >/dev/null 2>&1 &
	fio=$!
	echo "$fio" >"$work/pids"
	stdbuf -oL rping -s -a $ADDR -p $RPING_PORT -S 128 -V >"$work/rs" 2>&1 &
	rs=$!
	echo "$fio $rs" >"$work/pids"
	wait_until 30 rping_listens || { echo "rping never listened"; return 1; }
	stdbuf -oL rping -c -a $ADDR -p $RPING_PORT -S 128 -V -v \
		>"$work/rc" 2>&1 &
	rc=$!
	echo "$fio $rs $rc" >"$work/pids"
	wait_until 60 ios_since "$t0" 200 ||
		{ echo "fio did no I/O: $(tail -n 3 "$work/fio" | tr '\n' ' ')"; return 1; }
	wait_until 60 lines_at_least "$work/rc" 20 ||
		{ echo "rping did not ping: $(tail -n 2 "$work/rc" "$work/rs" | tr '\n' ' ')"; return 1; }
}

# removal COMMAND...: with every consumer running, COMMAND returns within
# 120 s (nvme-rdma deletes its controller inside it) and the device is gone
removal() {
	local pid
	if pid_gone "$fio" || pid_gone "$rs" || pid_gone "$rc"; then
		echo "a consumer had ended before $*: $(tail -n 2 "$work/fio" "$work/rs" "$work/rc" | tr '\n' ' ')"
		return 1
	fi
	"$@" >"$work/removal" 2>&1 &
	pid=$!
	if ! wait_until 120 pid_gone $pid; then
		echo "$* did not return; its stack: $(tr '\n' ' ' <"/proc/$pid/stack")"
		blocked_tasks
		return 1
	fi
	wait $pid || { echo "$* failed: $(cat "$work/removal")"; return 1; }
	wait_until 30 ibdev_gone $DEV || { echo "$DEV still there after $*"; return 1; }
}

# one_round SCENARIO: prints why on failure
one_round() {
	consumers || return 1
	case $1 in
	link_del) removal rdma link del $DEV || return 1 ;;
	rmmod) removal rmmod sroce || return 1 ;;
	esac
	wait_until 60 no_ctrl ||
		{ echo "the NVMe controller $(nvme_ctrl $NQN) is left"; return 1; }
	wait_until 60 consumers_gone ||
		{ echo "consumers still running: fio $(pid_gone "$fio" || echo "$fio") rping $(pid_gone "$rs" || echo "$rs") $(pid_gone "$rc" || echo "$rc")"; return 1; }
	wait "$fio" "$rs" "$rc" 2>/dev/null
	: >"$work/pids"
	nvmet_port_del "$port_dir" $NQN ||
		{ echo "the nvmet port could not be removed"; return 1; }
	if [ "$1" = rmmod ]; then
		sroce_ensure_loaded || { echo "reload failed"; return 1; }
	fi
	wait_until 10 sroce_refcnt_zero || { echo "module refcnt $(sroce_refcnt)"; return 1; }
}

for s in $scenarios; do
	t0=$(now_ms)
	done_rounds=0 why=''
	while [ $done_rounds -lt "$rounds" ]; do
		if ! why=$(one_round "$s"); then
			after_failure >/dev/null 2>&1
			break
		fi
		done_rounds=$((done_rounds + 1))
	done
	ktap_diag "$s: $done_rounds rounds in $(( $(now_ms) - t0 )) ms"
	if [ $done_rounds = "$rounds" ]; then
		ktap_pass "$s"
	else
		ktap_fail "$s" "round $((done_rounds + 1)): $why"
	fi
done

if ibdev_gone $DEV && sroce_refcnt_zero && no_ctrl; then
	ktap_pass "nothing_left_behind"
else
	ktap_fail "nothing_left_behind" "device $(ibdev_gone $DEV || echo $DEV), refcnt $(sroce_refcnt), controller $(nvme_ctrl $NQN)"
fi
ktap_finish
