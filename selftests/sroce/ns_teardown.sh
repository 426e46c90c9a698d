#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A network namespace with sroce in it can always be deleted, whatever
# arrived on its RoCE port. Multicast and broadcast datagrams to UDP 4791
# (groups every interface is in, 224.0.0.1 and ff02::1) reach sroce's
# socket through UDP's early demultiplexing, which caches the input route,
# a route through the namespace's loopback device, on the socket: unless
# the socket goes before the devices do, lo is never freed and the
# namespace's teardown hangs ("unregister_netdevice: waiting for lo").
#
# Namespace teardown has no completion signal, but namespaces are cleaned
# up one batch after another by one work item: a second namespace deleted
# after the first's cleanup started is only gone once the first's is done.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
ktap_plan 4

two_hosts nt 10.86.0 || ktap_skip_all "cannot build the two-host topology"
ip -n "$NS" addr add fd86::2/64 dev nt1 nodad
ip addr add fd86::1/64 dev nt0 nodad

# udp_in: UDP datagrams the namespace took in (sroce consumes them)
udp_in() {
	nsx awk '/^Udp: [0-9]/ { print $2; exit }' /proc/net/snmp
}
# udp6_stat NAME: a counter of the namespace's /proc/net/snmp6
udp6_stat() {
	nsx awk -v n="$1" '$1 == n { print $2 }' /proc/net/snmp6
}
udp6_in() {
	udp6_stat Udp6InDatagrams
}
# send_burst: 20 datagrams to each group; sroce only consumes them
send_burst() {
	python3 - <<'EOF'
import socket
payload = bytes([0x64]) + bytes(43)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, socket.IP_MULTICAST_IF,
             socket.inet_aton('10.86.0.1'))
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
for _ in range(20):
    s.sendto(payload, ('224.0.0.1', 4791))
    s.sendto(payload, ('10.86.0.255', 4791))
s6 = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
for _ in range(20):
    s6.sendto(payload, ('ff02::1%nt0', 4791))
EOF
}
got_them() {
	[ $(($(udp_in) - in4)) -ge 20 ] && [ $(($(udp6_in) - in6)) -ge 20 ]
}
in4=$(udp_in)
in6=$(udp6_in)
# A burst sent before the new link's IPv6 is up on both ends is lost
# (on the debug kernel, check-debug saw IPv6 +0 after one burst): bursts
# until both families got one, for at most 20 s.
for burst in 1 2 3 4 5 6 7 8 9 10; do
	send_burst
	wait_until 2 got_them && break
done
if got_them; then
	ktap_pass "multicast_and_broadcast_reached_sroce"
else
	ktap_fail "multicast_and_broadcast_reached_sroce" \
		"UDP in after $burst bursts: IPv4 +$(($(udp_in) - in4)), IPv6 +$(($(udp6_in) - in6)); Udp6NoPorts $(udp6_stat Udp6NoPorts), Ip6InMcastPkts $(udp6_stat Ip6InMcastPkts)"
fi

# Delete the namespace (two_hosts' cleanup would do it at exit).
ip netns del "$NS"
if wait_until 30 ibdev_gone "$DEV1"; then
	ktap_pass "namespace_cleanup_started"
else
	ktap_fail "namespace_cleanup_started" "$DEV1 still there"
fi

# The second namespace's cleanup runs after the first's has finished.
ip netns add nt_probe_ns
on_exit "ip netns del nt_probe_ns"
ip link add ntp0 type veth peer name ntp1 netns nt_probe_ns
on_exit "ip link del ntp0"
ip netns exec nt_probe_ns rdma link add sroce_ntp type sroce netdev ntp1
if ibdev_exists sroce_ntp; then
	ktap_pass "probe_namespace_ready"
else
	ktap_fail "probe_namespace_ready" "rdma link add in nt_probe_ns failed"
fi
ip netns del nt_probe_ns
if wait_until 60 ibdev_gone sroce_ntp; then
	ktap_pass "namespace_teardown_completed"
else
	ktap_fail "namespace_teardown_completed" \
		"a namespace's cleanup is stuck: $(dmesg | grep 'waiting for' | tail -n 1)"
fi

ktap_finish
