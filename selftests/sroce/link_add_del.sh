#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Device lifetime: `rdma link add/del`, two devices at once, identity as
# ibv_devices/ibv_devinfo show it, and removal when the netdev or its
# network namespace goes away.
. "$(dirname "$0")/lib.sh"

require_sroce
ktap_plan 12

veth_pair la0 la1 || ktap_skip_all "cannot create veth"
ip link set la1 up

link_add sroce_la0 la0
ktap_check "link_add" ibdev_exists sroce_la0

ktap_check "rdma_link_show" \
	bash -c 'rdma link show sroce_la0/1 | grep -q "state ACTIVE .*netdev la0"'

ktap_check "ibv_devices_lists_device" \
	bash -c 'ibv_devices | grep -q "^ *sroce_la0 "'

# node GUID = modified EUI-64 of the MAC
mac=$(cat /sys/class/net/la0/address)
IFS=: read -r m0 m1 m2 m3 m4 m5 <<< "$mac"
want_guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m0 ^ 2)) "$m1" "$m2" "$m3" "$m4" "$m5")
devinfo=$(ibv_devinfo -v -d sroce_la0)
ktap_check "node_guid_from_mac" \
	grep -q "node_guid:[[:space:]]*$want_guid" <<< "$devinfo"
ktap_check "port_active_ethernet" bash -c '
	grep -q "state:[[:space:]]*PORT_ACTIVE" <<< "$1" &&
	grep -q "link_layer:[[:space:]]*Ethernet" <<< "$1" &&
	grep -q "active_mtu:[[:space:]]*1024 (3)" <<< "$1" &&
	grep -q "phys_port_cnt:[[:space:]]*1" <<< "$1"' _ "$devinfo"
ktap_check "node_type_ca" \
	bash -c 'rdma dev show sroce_la0 | grep -q "node_type ca"'

# A second device on the other end of the pair.
link_add sroce_la1 la1
ktap_check "two_devices" bash -c 'ibdev_exists() { [ -e /sys/class/infiniband/$1 ]; }
	ibdev_exists sroce_la0 && ibdev_exists sroce_la1'

rdma link del sroce_la1
ktap_check "link_del" ibdev_gone sroce_la1
ktap_check "other_device_untouched" port_state_is sroce_la0 ACTIVE

# Deleting the netdev removes the device.
veth_pair lb0 lb1
link_add sroce_lb0 lb0
ip link del lb0
ktap_check "netdev_delete_removes_device" wait_until 5 ibdev_gone sroce_lb0

# Deleting the namespace of the netdev removes the device.
ip netns add sroce_la_ns && on_exit "ip netns del sroce_la_ns"
ip link add lc0 type veth peer name lc1 netns sroce_la_ns
on_exit "ip link del lc0"
ip -n sroce_la_ns link set lc1 up
ip link set lc0 up
ip netns exec sroce_la_ns rdma link add sroce_lc1 type sroce netdev lc1
ibdev_exists sroce_lc1 || ktap_diag "device in namespace not created"
ip netns del sroce_la_ns
ktap_check "netns_delete_removes_device" wait_until 5 ibdev_gone sroce_lc1

# The netdevs must really be freed: a leaked reference would keep them.
ktap_check "netdevs_freed" wait_until 5 bash -c '! ip link show lb0 2>/dev/null && ! ip link show lc0 2>/dev/null'

ktap_finish
