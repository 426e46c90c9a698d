#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Completion events are never lost: cq_events (a kselftest_harness
# program) arms 512 CQs on one completion channel, sends one loopback UD
# datagram to the QP of each and requires every CQ's event and
# completion. Far more events than the 64-slot event queue holds arrive
# at once; the firmware keeps the ones that find it full and delivers
# them when the driver returns slots (port counter eq_events_deferred,
# reported here). Then the device deletes and the log holds no splat.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 2

here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_ce

[ -x "$here/cq_events" ] || ktap_skip_all "cq_events not built"

v4_gid_index() {
	gid_v4 "$dev" 0a5e:0001
}

deferred() {
	rdma statistic show link $dev/1 2>/dev/null |
		grep -o 'eq_events_deferred [0-9]*' | awk '{ print $2 }'
}

veth_pair ce0 ce1 || ktap_skip_all "cannot create veth"
ip addr add 10.94.0.1/24 dev ce0 || ktap_skip_all "cannot add 10.94.0.1"
link_add $dev ce0 || ktap_skip_all "rdma link add $dev failed"
wait_until 5 v4_gid_index >/dev/null
gid=$(v4_gid_index) || ktap_skip_all "no RoCE v2 GID for 10.94.0.1"

before=$(deferred)
export SROCE_DEV=$dev SROCE_GID_INDEX=$gid
out=$(cd "$here" && timeout 600 ./cq_events 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
ktap_diag "events deferred for want of event-queue room: ${before:-?} -> $(deferred)"

case $rc in
0) ktap_pass cq_events ;;
4) ktap_skip cq_events "cq_events skipped" ;;
*) ktap_fail cq_events "exit status $rc" ;;
esac

timeout 120 rdma link del $dev
if wait_until 60 ibdev_gone $dev; then
	ktap_pass device_deleted
else
	ktap_fail device_deleted "rdma link del did not complete"
fi
ktap_finish
