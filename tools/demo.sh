#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The `make demo` tour, run inside a test guest with sroce loaded: two
# "hosts" (the initial namespace and a namespace "peer") joined by a veth
# pair, an sroce device on each end, and what users inspect them with.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)

# gid_index DEV HEX: DEV's RoCE v2 GID index of the IPv4 address ending
# in the two groups HEX
gid_index() {
	local d=/sys/class/infiniband/$1/ports/1 f
	for f in $(grep -l ":ffff:$2\$" "$d"/gids/*); do
		[ "$(cat "$d/gid_attrs/types/${f##*/}")" = "RoCE v2" ] && echo "${f##*/}" && return
	done
	return 1
}

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

# show_gids DEV: the GID table the way RoCE users like to read it
show_gids() {
	local d=/sys/class/infiniband/$1/ports/1 f i g t n
	printf '%-8s %-5s %-40s %-11s %s\n' DEV INDEX GID TYPE NETDEV
	for f in "$d"/gids/*; do
		i=${f##*/}
		read -r g < "$f"
		[ "$g" = 0000:0000:0000:0000:0000:0000:0000:0000 ] && continue
		read -r t < "$d/gid_attrs/types/$i" || continue
		read -r n < "$d/gid_attrs/ndevs/$i" || continue
		printf '%-8s %-5s %-40s %-11s %s\n' "$1" "$i" "$g" "$t" "$n"
	done | sort -k2 -n
}

# wait_for COMMAND...: poll up to 5 s (the guest is slow, never sleep blind)
wait_for() {
	local _
	for _ in $(seq 100); do
		"$@" && return
		read -r -t 0.05 <> <(:) || true
	done
}

cleanup() {
	rdma link del sroce1 2>/dev/null || true
	rdma link del sroce0 2>/dev/null || true
	ip netns del peer 2>/dev/null || true
	ip link del veth0 2>/dev/null || true
}
trap cleanup EXIT

say "Two hosts: this namespace and namespace 'peer', joined by veth0/veth1"
ip netns add peer
ip link add veth0 type veth peer name veth1 netns peer
ip addr add 192.168.77.1/24 dev veth0
ip addr add fd77::1/64 dev veth0 nodad
ip link set veth0 up
ip -n peer addr add 192.168.77.2/24 dev veth1
ip -n peer addr add fd77::2/64 dev veth1 nodad
ip -n peer link set veth1 up
ip link add link veth0 name veth0.100 type vlan id 100
ip addr add 192.168.100.1/24 dev veth0.100
ip link set veth0.100 up
run ip -br addr show
run ip -n peer -br addr show

say "One sroce device on each end"
run rdma link add sroce0 type sroce netdev veth0
run ip netns exec peer rdma link add sroce1 type sroce netdev veth1
run rdma link show
run ibv_devices

say "What librxe (stock rdma-core) sees"
run ibv_devinfo -d sroce0

say "GID tables: RoCE v1 and v2 for each address, VLAN included"
# ib_core fills the table from address events; wait until the VLAN's
# IPv4 address is there rather than sleeping.
wait_for grep -qx 0000:0000:0000:0000:0000:ffff:c0a8:6401 \
	/sys/class/infiniband/sroce0/ports/1/gids/*
show_gids sroce0
show_gids sroce1

say "The same table inside the firmware (debugfs, read back with QUERY_GID)"
run cat /sys/kernel/debug/sroce/sroce0/fw_gids

say "Port state follows the link: take the peer's end down, then up"
run ip -n peer link set veth1 down
wait_for grep -q DOWN /sys/class/infiniband/sroce0/ports/1/state
run rdma link show sroce0/1
run ip -n peer link set veth1 up
wait_for grep -q ACTIVE /sys/class/infiniband/sroce0/ports/1/state
run rdma link show sroce0/1
dmesg | grep -E 'sroce[01]: ' | tail -n 4

say "RDMA traffic: ib_send_bw's server in 'peer', its client here"
ip netns exec peer ib_send_bw -d sroce1 -x "$(gid_index sroce1 c0a8:4d02)" -F \
	-n 2000 > /tmp/demo-server.log 2>&1 &
server=$!
wait_for bash -c "ip netns exec peer ss -ltnH 'sport = :18515' | grep -q ."
run ib_send_bw -d sroce0 -x "$(gid_index sroce0 c0a8:4d01)" -F -n 2000 192.168.77.2
wait $server
run rdma statistic show link sroce0/1

say "QoS and DCQCN settings of sroce0, as mlnx_qos shows a ConnectX's"
run "$top/tools/sroce-qos" -d sroce0

say "Firmware command statistics of sroce0"
run cat /sys/kernel/debug/sroce/sroce0/cmd_stats

say "Congestion: two flows through a 40 Mbit/s router with RED ECN marking"
# DCQCN's time constants scaled to this link (Documentation/dcqcn.rst);
# the second flow starts 4 s after the first.
out=${SROCE_OUT:-/tmp}/cc-demo
run "$top/tools/cc-testbed" --secs 10 --stagger 4 --out "$out" \
	--cc rp_dce_tcp_rtt=1000,rp_time_reset=20000,rp_byte_reset=0,rp_ai_rate=1 \
	--cc rp_hai_rate=2,rp_clamp_tgt_rate=1,rp_rate_reduce_monitor_period=1000 \
	--cc np_min_time_between_cnps=2000
[ -n "${SROCE_OUT:-}" ] && echo "the plot: $out/testbed.png in the host's --out directory"
