#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# `rdma link add` refusals: each bad request fails with a clear errno and
# a log line naming the object, and leaves no device and no splat.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 8

veth_pair le0 le1 || ktap_skip_all "cannot create veth"

# expect_fail NAME ERRNO_TEXT COMMAND...: COMMAND fails, stderr has the text
expect_fail() {
	local name=$1 text=$2 out
	shift 2
	if out=$("$@" 2>&1); then
		ktap_fail "$name" "unexpectedly succeeded: $*"
	elif ! grep -q "$text" <<< "$out"; then
		ktap_fail "$name" "wrong error: $out"
	else
		ktap_pass "$name"
	fi
}

expect_fail "no_such_netdev" "No such device" \
	rdma link add sroce_le type sroce netdev nosuchdev0

expect_fail "loopback_is_not_ethernet" "Invalid argument" \
	rdma link add sroce_le type sroce netdev lo
ktap_check "log_names_netdev" \
	bash -c 'dmesg | tail -n 20 | grep -q "netdev lo is not an Ethernet device"'

modprobe tun
ip tuntap add dev letun0 mode tun && on_exit "ip link del letun0"
expect_fail "tun_is_not_ethernet" "Invalid argument" \
	rdma link add sroce_le type sroce netdev letun0

link_add sroce_le0 le0
expect_fail "duplicate_netdev" "File exists" \
	rdma link add sroce_le0b type sroce netdev le0
expect_fail "duplicate_name" "" \
	rdma link add sroce_le0 type sroce netdev le1

expect_fail "unknown_link_type" "" \
	rdma link add sroce_le type nosuchtype netdev le1

# Nothing half-made is left behind, and the good device still works.
ktap_check "no_leftover_devices" bash -c '
	[ "$(ls /sys/class/infiniband | grep -c "^sroce_le")" -eq 1 ] &&
	grep -q ACTIVE /sys/class/infiniband/sroce_le0/ports/1/state'

ktap_finish
