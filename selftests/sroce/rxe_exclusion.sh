#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# sroce presents the rdma_rxe user ABI, so the two must never be loaded
# together: with sroce loaded rdma_rxe fails to load, and with rdma_rxe
# loaded sroce refuses with a clear message. Leaves sroce loaded.
. "$(dirname "$0")/lib.sh"

require_sroce
modinfo rdma_rxe >/dev/null 2>&1 || ktap_skip_all "kernel has no rdma_rxe"
[ -n "${SROCE_KO:-}" ] || ktap_skip_all "needs SROCE_KO to reload sroce"
ktap_plan 7

# Whatever happens, end with sroce loaded and rdma_rxe gone.
on_exit "sroce_ensure_loaded"
on_exit "rmmod rdma_rxe"

if modprobe rdma_rxe 2>/dev/null; then
	ktap_fail "rxe_refused_while_sroce_loaded" "rdma_rxe loaded beside sroce"
	rmmod rdma_rxe
else
	ktap_pass "rxe_refused_while_sroce_loaded"
fi
ktap_check "rxe_not_resident" bash -c '! [ -d /sys/module/rdma_rxe ]'
ktap_check "sroce_unaffected" sroce_loaded

# Now the other way round.
for l in $(rdma link show | awk '/^link sroce/ { sub("/.*", "", $2); print $2 }'); do
	rdma link del "$l"
done
rmmod sroce
ktap_check "rxe_loads_without_sroce" modprobe rdma_rxe

out=$(insmod "$SROCE_KO" 2>&1)
status=$?
if [ $status -ne 0 ] && grep -q "Address already in use" <<< "$out"; then
	ktap_pass "sroce_refused_while_rxe_loaded"
else
	ktap_fail "sroce_refused_while_rxe_loaded" "status $status: $out"
fi
ktap_check "refusal_explained_in_log" \
	bash -c 'dmesg | tail -n 20 | grep -q "rdma_rxe (or another RoCE v2 stack) is loaded"'

rmmod rdma_rxe
ktap_check "sroce_loads_after_rxe_unload" insmod "$SROCE_KO"

ktap_finish
