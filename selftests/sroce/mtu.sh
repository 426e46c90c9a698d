#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The port's active MTU is the largest IB MTU that fits in the netdev MTU
# with the worst-case RoCE headers (84 bytes), capped at 4096, and follows
# MTU changes at run time.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 10

veth_pair mt0 mt1 || ktap_skip_all "cannot create veth"
link_add sroce_mt mt0

# netdev MTU -> expected active MTU
cases="1500:1024 9000:4096 4180:4096 4179:2048 2132:2048 2131:1024
1108:1024 1107:512 400:256 1500:1024"
for c in $cases; do
	mtu=${c%%:*}
	want=${c##*:}
	ip link set mt0 mtu "$mtu"
	if wait_until 2 bash -c '[ "$(ibv_devinfo -d sroce_mt -i 1 | awk "/active_mtu:/ { print \$2 }")" = "$1" ]' _ "$want"; then
		ktap_pass "netdev_mtu_${mtu}_active_${want}"
	else
		ktap_fail "netdev_mtu_${mtu}_active_${want}" "got $(active_mtu sroce_mt)"
	fi
done

ktap_finish
