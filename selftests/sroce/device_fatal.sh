#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A firmware that stops answering kills the device cleanly, as on
# hardware: device_fatal (a kselftest_harness program) stalls the
# firmware's command processor through debugfs fault_cmd_stall with
# objects in use, and checks that the next verb fails after the command
# timeout, IBV_EVENT_DEVICE_FATAL arrives, later verbs fail at once and
# the objects can still be destroyed. Before that it checks that destroys
# whose end the firmware holds (fault_defer_hold) hold up no other
# command; two such destroys are still held when the device dies. Here: the driver logged the death
# and kept the memory of the objects whose destroy failed until the
# firmware was detached, `rdma link del` removes the dead device, and a
# second dead device goes with module unload (then the module is loaded
# again); ktap_finish fails on any splat.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 6

here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_df

[ -x "$here/device_fatal" ] || ktap_skip_all "device_fatal not built"
[ -d /sys/kernel/debug/sroce ] || ktap_skip_all "no sroce debugfs"

veth_pair df0 df1 || ktap_skip_all "cannot create veth"
link_add $dev df0 || ktap_skip_all "rdma link add $dev failed"
[ -w /sys/kernel/debug/sroce/$dev/fault_cmd_stall ] ||
	ktap_skip_all "no fault_cmd_stall knob"

export SROCE_DEV=$dev
out=$(cd "$here" && timeout 300 ./device_fatal 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
case $rc in
0) ktap_pass device_fatal ;;
4) ktap_skip device_fatal "device_fatal skipped" ;;
*) ktap_fail device_fatal "exit status $rc" ;;
esac

if kmsg_since_start | grep -q "$dev: command .* timed out .*device is dead"; then
	ktap_pass death_logged
else
	ktap_fail death_logged "no 'device is dead' line in the kernel log"
fi

timeout 60 rdma link del $dev
if wait_until 30 ibdev_gone $dev; then
	ktap_pass dead_device_deleted
else
	ktap_fail dead_device_deleted "rdma link del did not complete"
fi

# The rings and the MR of the program's objects (destroy failed: -EIO)
# were kept until the firmware was detached, then freed.
if kmsg_since_start | grep -q "$dev: freed [0-9]* buffers kept from the dead firmware"; then
	ktap_pass kept_memory_freed_at_detach
else
	ktap_fail kept_memory_freed_at_detach "no 'freed ... buffers' line"
fi

# A second device dies the same way (a shell command's QUERY_STATS times
# out) and goes with the module.
dev2=sroce_df2
if link_add $dev2 df1; then
	echo 1 > /sys/kernel/debug/sroce/$dev2/fault_cmd_stall
	timeout 60 rdma statistic show link $dev2/1 >/dev/null 2>&1
	echo 0 > /sys/kernel/debug/sroce/$dev2/fault_cmd_stall
	if timeout 120 rmmod sroce && ! sroce_loaded; then
		ktap_pass unload_with_dead_device
	else
		ktap_fail unload_with_dead_device "rmmod sroce failed"
	fi
else
	ktap_fail unload_with_dead_device "rdma link add $dev2 failed"
fi
ktap_check module_loads_again sroce_ensure_loaded
ktap_finish
