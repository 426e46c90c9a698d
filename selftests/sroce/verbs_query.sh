#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The query verbs through libibverbs and stock librxe: runs verbs_query
# (a kselftest_harness program) against a fresh device on a veth with an
# IPv4 address, and reports its verdict as one result.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 1

here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_vq
ipv4=10.77.0.1
# ::ffff:10.77.0.1 as sysfs prints it
v4gid=0000:0000:0000:0000:0000:ffff:0a4d:0001

[ -x "$here/verbs_query" ] || ktap_skip_all "verbs_query not built"

veth_pair vq0 vq1 || ktap_skip_all "cannot create veth"
ip addr add $ipv4/24 dev vq0 || ktap_skip_all "cannot add $ipv4"
link_add $dev vq0 || ktap_skip_all "rdma link add $dev failed"

# ib_core fills the GID table from a workqueue; wait for the IPv4 entries
# and for the link-local address to leave DAD, so that the table holds
# still while the program compares it across sysfs, verbs and firmware.
v4_gids_present() {
	[ "$(grep -lx $v4gid /sys/class/infiniband/$dev/ports/1/gids/* 2>/dev/null |
		wc -l)" -ge 2 ]
}

no_tentative_addr() {
	[ -z "$(ip -6 addr show dev vq0 tentative 2>/dev/null)" ]
}

if ! wait_until 10 v4_gids_present; then
	ktap_fail verbs_query "GID ::ffff:$ipv4 did not appear in sysfs"
	ktap_finish
fi
wait_until 10 no_tentative_addr || ktap_diag "vq0 still has tentative addresses"

export SROCE_DEV=$dev SROCE_NETDEV=vq0 SROCE_IPV4=$ipv4
out=$(cd "$here" && ./verbs_query 2>&1)
rc=$?
echo "$out" | sed 's/^/# /'

case $rc in
0) ktap_pass verbs_query ;;
4) ktap_skip verbs_query "verbs_query skipped" ;;
*) ktap_fail verbs_query "exit status $rc" ;;
esac
ktap_finish
