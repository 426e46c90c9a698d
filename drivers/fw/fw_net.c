// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * sroce firmware: the network attachment of the packet engine. RoCE v2
 * arrives on UDP port 4791; the firmware owns that port in the initial
 * network namespace for IPv4 and IPv6 for as long as it runs. Owning it is
 * also what keeps sroce and rdma_rxe (which binds the same port) from
 * running side by side.
 *
 * The packet engine is not built yet: datagrams to the port are counted
 * and dropped, so nothing accumulates in a socket nobody reads.
 */
#include <linux/atomic.h>
#include <linux/crc32.h>
#include <net/udp_tunnel.h>
#include <rdma/ib_verbs.h>

#include "fw.h"
#include "lib/roce_hdr.h"

/**
 * sroce_crc32_le() - the CRC-32 primitive of the shared ICRC code
 * @crc: running CRC, not inverted
 * @p: data
 * @len: bytes of @p
 *
 * drivers/lib/icrc.c is shared with userspace, which brings its own.
 *
 * Return: the updated CRC.
 */
u32 sroce_crc32_le(u32 crc, const u8 *p, size_t len)
{
	return crc32_le(crc, p, len);
}

static struct socket *sroce_fw_sock4;
static struct socket *sroce_fw_sock6;
static atomic64_t sroce_fw_rx_unhandled = ATOMIC64_INIT(0);

static int sroce_fw_udp_encap_recv(struct sock *sk, struct sk_buff *skb)
{
	atomic64_inc(&sroce_fw_rx_unhandled);
	kfree_skb(skb);
	return 0;
}

static struct socket *sroce_fw_udp_open(int family)
{
	struct udp_tunnel_sock_cfg tunnel_cfg = {
		.encap_type = 1,
		.encap_rcv = sroce_fw_udp_encap_recv,
	};
	struct udp_port_cfg port_cfg = {
		.family = family,
		.local_udp_port = htons(ROCE_V2_UDP_DPORT),
		.ipv6_v6only = family == AF_INET6,
	};
	struct socket *sock;
	int err;

	err = udp_sock_create(&init_net, &port_cfg, &sock);
	if (err)
		return ERR_PTR(err);
	setup_udp_tunnel_sock(&init_net, sock, &tunnel_cfg);
	return sock;
}

/**
 * sroce_fw_net_init() - claim UDP port 4791 for IPv4 and IPv6
 *
 * Return: 0; -EADDRINUSE if another stack holds the port; another negative
 * errno on failure. A kernel without IPv6 only gets the IPv4 socket.
 */
int sroce_fw_net_init(void)
{
	struct socket *sock;

	sock = sroce_fw_udp_open(AF_INET);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	sroce_fw_sock4 = sock;

	sock = sroce_fw_udp_open(AF_INET6);
	if (IS_ERR(sock) && PTR_ERR(sock) != -EAFNOSUPPORT) {
		udp_tunnel_sock_release(sroce_fw_sock4);
		sroce_fw_sock4 = NULL;
		return PTR_ERR(sock);
	}
	sroce_fw_sock6 = IS_ERR(sock) ? NULL : sock;
	return 0;
}

/**
 * sroce_fw_net_exit() - release UDP port 4791
 */
void sroce_fw_net_exit(void)
{
	if (sroce_fw_sock6)
		udp_tunnel_sock_release(sroce_fw_sock6);
	udp_tunnel_sock_release(sroce_fw_sock4);
	sroce_fw_sock4 = NULL;
	sroce_fw_sock6 = NULL;
	if (atomic64_read(&sroce_fw_rx_unhandled))
		pr_info("sroce_fw: %lld RoCE v2 datagrams dropped (no packet engine)\n",
			(long long)atomic64_read(&sroce_fw_rx_unhandled));
}
