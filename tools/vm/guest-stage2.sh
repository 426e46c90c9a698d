#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Second stage of the sroce-vm guest, PID 1 on the overlay root after
# guest-init's switch_root. Finishes the userspace setup the tests expect,
# loads the module under test, runs the command from the per-run directory
# ($1, written by sroce-vm), checks the kernel log, prints the exit marker
# that sroce-vm looks for and powers the guest off.
set -euo pipefail

run=$1
status=125

# Power off without ever returning: if PID 1 exits before the asynchronous
# sysrq power-off lands, the kernel panics ("Attempted to kill init").
poweroff_now() {
	set +e
	trap - ERR EXIT
	printf '\nSROCE-VM-EXIT=%d\n' "$status"
	sync
	echo o >/proc/sysrq-trigger
	# Block in a builtin on a FIFO nobody writes: needs no fork or file
	# system while the devices go down.
	mkfifo /run/sroce-idle 2>/dev/null
	exec 3<>/run/sroce-idle
	while :; do read -r -t 3600 -u 3 _ || sleep 1; done
}
setup_failed() {
	echo "sroce-vm guest-stage2: setup failed at line $1: $2"
	status=125
	poweroff_now
}
trap 'setup_failed "$LINENO" "$BASH_COMMAND"' ERR
trap 'status=125; poweroff_now' EXIT

# --- userspace setup: what a test expects from a normal system ---
mount -t tmpfs -o mode=0755 tmpfs /run
mkdir -p /dev/shm /dev/pts
mount -t tmpfs -o mode=1777 tmpfs /dev/shm # pyverbs needs it
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts
mount -t debugfs debugfs /sys/kernel/debug
modprobe configfs
mount -t configfs configfs /sys/kernel/config
mount -t tmpfs -o mode=1777 tmpfs /tmp
echo sroce-guest >/proc/sys/kernel/hostname
ip link set lo up
cd /

# shellcheck source=/dev/null # written by sroce-vm for this run
. "$run/env"

# The log check covers what happens from here on, not boot-time noise.
echo "sroce-vm: run starts" >/dev/kmsg
# A report leaves these set even if the log later lost it: taint flags,
# and lockdep turning itself off (debug_locks 0) once it has reported.
taint_at_start=$(cat /proc/sys/kernel/tainted)
lockdep_state() {
	[ ! -r /proc/lockdep_stats ] || awk '$1 == "debug_locks:" { print $2 }' /proc/lockdep_stats
}
lockdep_at_start=$(lockdep_state)
# The checks above see only what changes during the run: a checker that a
# boot-time report already disarmed (lockdep off; KASAN, which reports
# once unless kasan_multi_shot, sets taint B) would let the run pass
# unseen. Such a run fails.
disarmed=''
if [ "$SROCE_VM_LOGCHECK" = 1 ]; then
	[ -z "$lockdep_at_start" ] || [ "$lockdep_at_start" = 1 ] ||
		disarmed+=" lockdep off (debug_locks $lockdep_at_start);"
	[ $((taint_at_start & ~(4096 | 8192))) = 0 ] ||
		disarmed+=" the kernel tainted ($taint_at_start);"
fi
# A kernel with kmemleak (the debug kernel) checks for leaks after the
# run (below); kmemleak_baseline, just before the run, sets aside what the
# kernel left unreferenced before it.
kmemleak=/sys/kernel/debug/kmemleak
leakcheck=0
if [ "$SROCE_VM_LOGCHECK" = 1 ] && [ -w "$kmemleak" ]; then
	leakcheck=1
fi
# kmemleak_scan: what kmemleak reports now. A scan reports an
# unreferenced object only if its contents are what the scan before saw
# (a checksum, zero until an object's first scan), and only past its 5 s
# minimum age (a fixed age, nothing to poll): so wait, then scan twice.
# With automatic scans off, a single scan reports nothing.
kmemleak_scan() {
	sleep 6
	{ echo scan >"$kmemleak" && echo scan >"$kmemleak"; } 2>/dev/null
}
# `clear` forgets only objects already reported: report, then clear.
kmemleak_baseline() {
	local n
	kmemleak_scan || return
	n=$(grep -c '^unreferenced object' "$kmemleak")
	[ "$n" = 0 ] || echo "sroce-vm: kmemleak: $n object(s) unreferenced before the run, set aside"
	echo clear >"$kmemleak"
}
# So that /dev/infiniband/uverbs* and rdma_cm exist once a device does.
modprobe -a ib_uverbs rdma_ucm

# sroce-vm --netdev: one virtio-net NIC. Nothing loads drivers by modalias
# here (no udev), so load virtio_net (its probe creates the netdev before
# modprobe returns), bring the NIC up and name it for the command.
if [ "${SROCE_VM_NIC:-0}" = 1 ]; then
	modprobe virtio_net
	SROCE_NIC=''
	for d in /sys/class/net/*; do
		[ "$(readlink -f "$d/device/driver")" = /sys/bus/virtio/drivers/virtio_net ] &&
			SROCE_NIC=${d##*/} && break
	done
	[ -n "$SROCE_NIC" ] || setup_failed "$LINENO" "no virtio_net netdev after modprobe virtio_net"
	ip link set "$SROCE_NIC" up
	export SROCE_NIC
fi

[ "$leakcheck" = 0 ] || kmemleak_baseline ||
	echo "sroce-vm: kmemleak could not scan before the run: $(dmesg | grep kmemleak: | tail -n 1)"

# Give the command what is left of the host's budget, minus a margin for
# the log check and power-off, so that a hung test still ends with a marker.
read -r up _ </proc/uptime
budget=$((SROCE_VM_TIMEOUT - 5 - ${up%.*}))
[ "$budget" -ge 1 ] || budget=1

# insmod resolves no dependencies: load the in-tree modules that the
# module's "depends" field names (ib_core, udp_tunnel, ...) first.
load_ko() {
	local list deps
	list=$(modinfo -F depends "$SROCE_KO") || return
	IFS=, read -ra deps <<<"$list"
	[ ${#deps[@]} = 0 ] || modprobe -a "${deps[@]}" || return
	insmod "$SROCE_KO"
}
ran=0 insrc=0
[ -z "$SROCE_KO" ] || load_ko || insrc=$?
if [ "$insrc" != 0 ]; then
	status=$insrc
	echo "sroce-vm: loading $SROCE_KO failed (status $status); kernel log tail:"
	dmesg | tail -n 30
else
	ran=1 status=0
	timeout -k 2 "$budget" bash "$run/cmd" </dev/null || status=$?
	[ "$status" != 124 ] || echo "sroce-vm: command timed out after ${budget}s in the guest"
fi

# Leak check: the module goes first (every object it still holds would be
# reported otherwise, and an unload refused here is a reference the run
# leaked), then kmemleak scans (kmemleak_scan: twice, about 15 s each
# under TCG).
leaks=''
if [ "$leakcheck" = 1 ] && [ "$ran" = 1 ]; then
	if [ -n "$SROCE_KO" ] && [ -d /sys/module/sroce ]; then
		rdma link show 2>/dev/null | awk '$1 == "link" { sub("/.*", "", $2); print $2 }' |
			while read -r dev; do rdma link del "$dev" 2>/dev/null || true; done
		if ! rmmod sroce; then
			echo "sroce-vm: sroce cannot be unloaded after the run (refcnt $(cat /sys/module/sroce/refcnt 2>/dev/null))"
			[ "$status" != 0 ] || status=1
		fi
	fi
	if ! kmemleak_scan; then
		# It turns itself off on an internal error (its pool exhausted).
		echo "sroce-vm: kmemleak could not scan: $(dmesg | grep kmemleak: | tail -n 1)"
		[ "$status" != 0 ] || status=1
	elif leaks=$(cat "$kmemleak") && [ -n "$leaks" ]; then
		echo "sroce-vm: kmemleak reports $(grep -c '^unreferenced object' <<<"$leaks") leak(s):"
		head -n 200 <<<"$leaks"
		[ "$status" != 0 ] || status=1
	else
		echo "sroce-vm: kmemleak: no leaks"
	fi
fi

if [ "$SROCE_VM_LOGCHECK" = 1 ]; then
	# 4096 (O) and 8192 (E): an out-of-tree, unsigned module (sroce).
	taint=$(cat /proc/sys/kernel/tainted)
	new_taint=$((taint & ~taint_at_start & ~(4096 | 8192)))
	lockdep_now=$(lockdep_state)
	if [ "$new_taint" != 0 ]; then
		echo "sroce-vm: the kernel was tainted during the run (new flags $new_taint, now $taint)"
		[ "$ran" != 1 ] || [ "$status" != 0 ] || status=1
	fi
	if [ -n "$disarmed" ]; then
		echo "sroce-vm: before the run:$disarmed a boot-time report disarmed the checks; kernel log before the run:"
		dmesg | awk '/sroce-vm: run starts/ { exit } { print }' | grep -E -A 20 'WARNING:|BUG:|KASAN:|UBSAN:|lockdep|Call Trace:' | head -n 100
		[ "$status" != 0 ] || status=1
	fi
	if [ "$lockdep_at_start" = 1 ] && [ "$lockdep_now" != 1 ]; then
		echo "sroce-vm: lockdep turned itself off during the run (debug_locks $lockdep_now): it found a problem"
		[ "$ran" != 1 ] || [ "$status" != 0 ] || status=1
	fi
	splat='WARNING:|BUG:|Oops|general protection fault|possible circular locking'
	splat+='|possible recursive locking|inconsistent lock state|lockdep|UBSAN:'
	splat+='|KASAN:|refcount_t:|list_add corruption|list_del corruption'
	splat+='|unregister_netdevice: waiting|Call Trace:|kernel BUG|soft lockup'
	splat+='|hung_task|blocked for more than|ODEBUG:|detected stall'
	# Only the part of the log after our start line (all of it if the ring
	# buffer has wrapped past it).
	log=$(dmesg | awk '/sroce-vm: run starts/ { buf = ""; next } { buf = buf $0 "\n" }
		END { printf "%s", buf }')
	if grep -Eq "$splat" <<<"$log"; then
		echo "sroce-vm: kernel log splat(s) during the run:"
		grep -E -B 3 -A 30 "$splat" <<<"$log" | head -n 300 || true
		if [ "$ran" = 1 ] && [ "$status" = 0 ]; then
			echo "sroce-vm: command passed but the kernel log has splats: status 1" \
				"(--no-log-check to ignore)"
			status=1
		fi
	fi
fi

# The whole kernel log goes with the run's results (--out): a driver
# message that is no splat (a command timeout, say) explains a failure.
if [ -d /sroce-out ] && [ -w /sroce-out ]; then
	dmesg >/sroce-out/dmesg.txt 2>/dev/null || true
fi

poweroff_now
