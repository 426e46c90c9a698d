// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* struct flowi4 carries a dscp_t, not the TOS byte (6.18). */
#include <net/flow.h>
#include <net/inet_dscp.h>

void probe_flow(struct flowi4 *fl4, u8 tos)
{
	fl4->flowi4_dscp = inet_dsfield_to_dscp(tos);
}
