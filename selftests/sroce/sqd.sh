#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The SQ Drained state: sqd (a kselftest_harness program) takes an RC QP
# with SENDs in flight to SQD and requires every started SEND to complete,
# IBV_EVENT_SQ_DRAINED, sq_draining 0, nothing new started in SQD while
# the receive side keeps working, SQD->SQD once drained and SQD->RTS
# sending what waited. Loopback on one device over a veth address.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 1

here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_sqd

[ -x "$here/sqd" ] || ktap_skip_all "sqd not built"

loopback_device "$dev" sqd 10.95.0

out=$(cd "$here" && SROCE_DEV=$dev SROCE_GID_INDEX=$gid timeout 300 ./sqd 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
case $rc in
0) ktap_pass sqd ;;
4) ktap_skip sqd "sqd skipped" ;;
*) ktap_fail sqd "exit status $rc" ;;
esac
ktap_finish
