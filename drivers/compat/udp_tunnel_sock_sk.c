// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * setup_udp_tunnel_sock() and udp_tunnel_sock_release() take a struct
 * sock, not a struct socket (7.1.5; backported into some 7.0 kernels).
 */
#include <net/udp_tunnel.h>

void probe_setup(struct net *net, struct sock *sk,
		 struct udp_tunnel_sock_cfg *cfg)
{
	setup_udp_tunnel_sock(net, sk, cfg);
	udp_tunnel_sock_release(sk);
}
