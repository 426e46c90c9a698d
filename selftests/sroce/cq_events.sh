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

deferred() {
	rdma statistic show link $dev/1 2>/dev/null |
		grep -o 'eq_events_deferred [0-9]*' | awk '{ print $2 }'
}

loopback_device "$dev" ce 10.94.0

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
