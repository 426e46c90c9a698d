#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The GID table (ib_core's in sysfs and the firmware's copy) holds RoCE v1
# and v2 entries for the link-local address and every IPv4/IPv6 address of
# the netdev and of its VLAN devices, and follows address changes within
# a second.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 14

here=$(dirname "$0")
dev=sroce_gt

veth_pair gt0 gt1 || ktap_skip_all "cannot create veth"
ip addr add 10.66.0.1/24 dev gt0
ip addr add fd00:66::1/64 dev gt0 nodad
ip link add link gt0 name gt0.100 type vlan id 100 &&
	on_exit "ip link del gt0.100"
ip link set gt0.100 up
ip addr add 10.66.100.1/24 dev gt0.100
ip addr add fd00:66:100::1/64 dev gt0.100 nodad
# Link-local addresses appear once the links are up with carrier.
wait_until 5 bash -c 'ip -6 addr show dev gt0.100 scope link | grep -q fe80'

link_add $dev gt0
gids=/sys/class/infiniband/$dev/ports/1

# The GID lookups use only shell builtins so that timing them measures the
# driver, not process creation.

# gid_has GID TYPE: an entry of that type exists ("RoCE v2", "IB/RoCE v1")
gid_has() {
	local f g t
	for f in "$gids"/gids/*; do
		read -r g < "$f" || continue
		[ "$g" = "$1" ] || continue
		read -r t < "$gids/gid_attrs/types/${f##*/}" 2>/dev/null &&
			[ "$t" = "$2" ] && return 0
	done
	return 1
}

gid_has_both() {
	gid_has "$1" "IB/RoCE v1" && gid_has "$1" "RoCE v2"
}

gid_has_none() {
	local f g
	for f in "$gids"/gids/*; do
		read -r g < "$f" && [ "$g" = "$1" ] && return 1
	done
	return 0
}

check_table() {
	wait_until 3 "$here/gidcheck.py" $dev gt0 gt0.100
}

ktap_check "initial_table_matches_ip_addr" check_table
ktap_check "default_gids_at_0_and_1" bash -c '
	[ "$(cat '"$gids"'/gid_attrs/types/0)" = "IB/RoCE v1" ] &&
	[ "$(cat '"$gids"'/gid_attrs/types/1)" = "RoCE v2" ] &&
	[ "$(cat '"$gids"'/gids/0)" = "$(cat '"$gids"'/gids/1)" ] &&
	grep -q "^fe80:" '"$gids"'/gids/0'
ktap_check "vlan_gid_names_vlan_netdev" bash -c '
	for f in $(grep -lx 0000:0000:0000:0000:0000:ffff:0a42:6401 '"$gids"'/gids/*); do
		[ "$(cat '"$gids"'/gid_attrs/ndevs/${f##*/})" = gt0.100 ] || exit 1
	done'
ktap_check "firmware_holds_vlan_tag" \
	bash -c 'grep -q "0000:0000:0000:0000:0000:ffff:0a42:6401 v2 vlan 100" /sys/kernel/debug/sroce/'$dev'/fw_gids'

# timed_change NAME SECONDS CHECK GID COMMAND...: run COMMAND, then CHECK
# GID must hold within SECONDS.
timed_change() {
	local name=$1 limit=$2 check=$3 gid=$4 t0 t1
	shift 4
	t0=${EPOCHREALTIME/./}
	"$@"
	if wait_until "$limit" "$check" "$gid"; then
		t1=${EPOCHREALTIME/./}
		ktap_diag "$name: $(( (10#$t1 - 10#$t0) / 1000 )) ms"
		ktap_pass "$name"
	else
		ktap_fail "$name" "GID $gid not updated within $limit s"
	fi
}

v4=0000:0000:0000:0000:0000:ffff:0a42:0002	# 10.66.0.2
v6=fd00:0066:0000:0000:0000:0000:0000:0002	# fd00:66::2
v4vlan=0000:0000:0000:0000:0000:ffff:0a42:6402	# 10.66.100.2

timed_change "ipv4_add_within_1s" 1 gid_has_both $v4 \
	ip addr add 10.66.0.2/24 dev gt0
timed_change "ipv6_add_within_1s" 1 gid_has_both $v6 \
	ip addr add fd00:66::2/64 dev gt0 nodad
timed_change "vlan_ipv4_add_within_1s" 1 gid_has_both $v4vlan \
	ip addr add 10.66.100.2/24 dev gt0.100
ktap_check "table_after_adds" check_table

timed_change "ipv4_del_within_1s" 1 gid_has_none $v4 \
	ip addr del 10.66.0.2/24 dev gt0
timed_change "ipv6_del_within_1s" 1 gid_has_none $v6 \
	ip addr del fd00:66::2/64 dev gt0
timed_change "vlan_ipv4_del_within_1s" 1 gid_has_none $v4vlan \
	ip addr del 10.66.100.2/24 dev gt0.100
ktap_check "table_after_deletes" check_table

# Removing the VLAN device removes all of its entries.
ip link del gt0.100
ktap_check "vlan_delete_removes_entries" \
	wait_until 2 gid_has_none 0000:0000:0000:0000:0000:ffff:0a42:6401
ktap_check "table_after_vlan_delete" \
	wait_until 3 "$here/gidcheck.py" $dev gt0

ktap_finish
