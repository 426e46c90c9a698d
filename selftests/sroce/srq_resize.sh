#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Resizing an SRQ: srq_resize (a kselftest_harness program) resizes the
# SRQ of an RC QP with ibv_modify_srq(IBV_SRQ_MAX_WR) and requires the
# WQEs waiting to survive a grow or a shrink that fits, in order and
# intact, the new ring to be used by librxe and the device alike, a
# shrink below what waits and a limit above the new size to fail with
# EINVAL changing nothing, and a limit armed with the resize to raise
# IBV_EVENT_SRQ_LIMIT_REACHED. Loopback on one device over a veth address.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 1

here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_srqr

[ -x "$here/srq_resize" ] || ktap_skip_all "srq_resize not built"

loopback_device "$dev" srqr 10.99.0

out=$(cd "$here" && SROCE_DEV=$dev SROCE_GID_INDEX=$gid timeout 660 ./srq_resize 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'
case $rc in
0) ktap_pass srq_resize ;;
4) ktap_skip srq_resize "srq_resize skipped" ;;
*) ktap_fail srq_resize "exit status $rc" ;;
esac
ktap_finish
