#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# sroce presents the rdma_rxe user ABI and owns UDP port 4791, so the two
# never run together. With sroce loaded, rdma_rxe's load is refused (sroce
# vetoes it as it arrives: since 7.1 rdma_rxe binds the port only with its
# first device, so it would otherwise load). With an rdma_rxe device up,
# sroce refuses to load with a clear message. An rdma_rxe module without
# devices cannot be seen from sroce: on kernels where such a module holds
# no port, sroce loads beside it and then no rdma_rxe device can be made.
# Leaves sroce loaded.
. "$(dirname "$0")/lib.sh"

require_sroce
modinfo rdma_rxe >/dev/null 2>&1 || ktap_skip_all "kernel has no rdma_rxe"
[ -n "${SROCE_KO:-}" ] || ktap_skip_all "needs SROCE_KO to reload sroce"
ktap_plan 11

# Whatever happens, end with sroce loaded and rdma_rxe gone.
on_exit "sroce_ensure_loaded"
on_exit "rmmod rdma_rxe"

# udp_port_bound: whether some socket in this namespace has UDP port 4791
udp_port_bound() {
	[ -n "$(ss -Hlun 'sport = :4791')" ]
}

# log_says TEXT: the kernel log since this test started has TEXT
log_says() {
	kmsg_since_start | grep -qF "$1"
}

# sroce_load_refused NAME: case NAME passes if loading sroce is refused
# because UDP 4791 is taken (and unloads it if it loaded after all)
sroce_load_refused() {
	local out status

	out=$(insmod "$SROCE_KO" 2>&1)
	status=$?
	if [ $status -ne 0 ] && grep -q "Address already in use" <<< "$out"; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "status $status: $out"
		rmmod sroce 2>/dev/null
	fi
}

# rxe_link_refused: an rdma_rxe device cannot be made on rxex0
rxe_link_refused() {
	if rdma link add rxex_t0 type rxe netdev rxex0 2>/dev/null; then
		rdma link del rxex_t0
		return 1
	fi
}

# The refusal is sroce's (EBUSY), not some other failure to load.
if out=$(modprobe rdma_rxe 2>&1); then
	ktap_fail "rxe_refused_while_sroce_loaded" "rdma_rxe loaded beside sroce"
	rmmod rdma_rxe
elif grep -q "Device or resource busy" <<< "$out"; then
	ktap_pass "rxe_refused_while_sroce_loaded"
else
	ktap_fail "rxe_refused_while_sroce_loaded" "modprobe failed otherwise: $out"
fi
ktap_check "rxe_refusal_explained_in_log" \
	log_says "sroce: refusing to load rdma_rxe"
ktap_check "rxe_not_resident" bash -c '! [ -d /sys/module/rdma_rxe ]'
ktap_check "sroce_unaffected" sroce_loaded

# Now the other way round, with an rdma_rxe device on a veth.
veth_pair rxex0 rxex1 || ktap_skip_all "no veth"
for l in $(rdma link show | awk '/^link sroce/ { sub("/.*", "", $2); print $2 }'); do
	rdma link del "$l"
done
rmmod sroce
ktap_check "rxe_loads_without_sroce" modprobe rdma_rxe
if rdma link add rxex_d0 type rxe netdev rxex0; then
	on_exit "rdma link del rxex_d0"
	ktap_pass "rxe_device_made"
else
	ktap_fail "rxe_device_made" "rdma link add type rxe failed"
fi

sroce_load_refused "sroce_refused_beside_rxe_device"
ktap_check "sroce_refusal_explained_in_log" \
	log_says "rdma_rxe (or another RoCE v2 stack) is loaded"

# An rdma_rxe without devices: up to 7.0 it still holds the port, and
# sroce is refused; since 7.1 it holds none, sroce loads, and then owns
# the port in every namespace, so rdma_rxe cannot make a device.
rdma link del rxex_d0
if udp_port_bound; then
	sroce_load_refused "sroce_refused_beside_port_holding_rxe"
	ktap_skip "rxe_device_refused_beside_sroce" "this rdma_rxe holds the port without devices"
else
	ktap_skip "sroce_refused_beside_port_holding_rxe" "this rdma_rxe holds no port without devices"
	if insmod "$SROCE_KO"; then
		ktap_check "rxe_device_refused_beside_sroce" rxe_link_refused
		rmmod sroce
	else
		ktap_fail "rxe_device_refused_beside_sroce" "sroce did not load beside a device-less rdma_rxe"
	fi
fi

rmmod rdma_rxe
ktap_check "sroce_loads_after_rxe_unload" insmod "$SROCE_KO"

ktap_finish
