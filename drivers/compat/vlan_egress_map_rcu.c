// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The VLAN egress priority map is RCU-protected (7.x): its nodes gained an
 * rcu_head, and the map's pointers are __rcu.
 */
#include <linux/if_vlan.h>
#include <linux/stddef.h>

const size_t probe_vlan_egress_map_rcu =
	offsetof(struct vlan_priority_tci_mapping, rcu);
