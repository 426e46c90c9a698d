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

v4_gid_index() {
	gid_v4 "$dev" 0a5f:0001
}

veth_pair sqd0 sqd1 || ktap_skip_all "cannot create veth"
ip addr add 10.95.0.1/24 dev sqd0 || ktap_skip_all "cannot add 10.95.0.1"
link_add $dev sqd0 || ktap_skip_all "rdma link add $dev failed"
wait_until 5 v4_gid_index >/dev/null
gid=$(v4_gid_index) || ktap_skip_all "no RoCE v2 GID for 10.95.0.1"

out=$(cd "$here" && SROCE_DEV=$dev SROCE_GID_INDEX=$gid timeout 300 ./sqd 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
case $rc in
0) ktap_pass sqd ;;
4) ktap_skip sqd "sqd skipped" ;;
*) ktap_fail sqd "exit status $rc" ;;
esac
ktap_finish
