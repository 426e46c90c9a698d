#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The port follows the netdev: carrier loss (peer down) and admin down
# make it DOWN, recovery makes it ACTIVE, and each change reaches
# userspace as an asynchronous event (ibv_asyncwatch, through librxe).
. "$(dirname "$0")/lib.sh"

require_sroce
command -v ibv_asyncwatch >/dev/null || ktap_skip_all "ibverbs-utils missing"
ktap_plan 11

veth_pair ps0 ps1 || ktap_skip_all "cannot create veth"
link_add sroce_ps ps0
ktap_check "initially_active" wait_until 2 port_state_is sroce_ps ACTIVE

events=$(mktemp)
on_exit "rm -f $events"
stdbuf -oL ibv_asyncwatch -d sroce_ps > "$events" 2>&1 &
watcher=$!
on_exit "kill $watcher"
# The watcher is ready once it has opened the device.
wait_until 10 grep -q "async event FD" "$events" ||
	ktap_diag "ibv_asyncwatch did not start: $(cat "$events")"

phys_state() {
	sed 's/^[0-9]*: *//' /sys/class/infiniband/sroce_ps/ports/1/phys_state
}

count_events() {
	grep -c "$1" "$events"
}

# Carrier loss: the peer goes down.
t0=$(now_ms)
ip link set ps1 down
ktap_check "carrier_loss_port_down" wait_until 1 port_state_is sroce_ps DOWN
ktap_diag "port down after $(( $(now_ms) - t0 )) ms"
ktap_check "carrier_loss_event" wait_until 2 grep -q "PORT_ERR" "$events"
ktap_check "rdma_link_shows_down" \
	bash -c 'rdma link show sroce_ps/1 | grep -q "state DOWN"'
ktap_check "carrier_loss_phys_polling" bash -c '[ "$(sed "s/^[0-9]*: *//" /sys/class/infiniband/sroce_ps/ports/1/phys_state)" = Polling ]'

ip link set ps1 up
ktap_check "carrier_back_port_active" wait_until 1 port_state_is sroce_ps ACTIVE
ktap_check "carrier_back_event" wait_until 2 grep -q "PORT_ACTIVE" "$events"

# Admin down of the device's own netdev.
ip link set ps0 down
ktap_check "admin_down_port_down" wait_until 1 port_state_is sroce_ps DOWN
ktap_check "admin_down_phys_disabled" bash -c '[ "$(sed "s/^[0-9]*: *//" /sys/class/infiniband/sroce_ps/ports/1/phys_state)" = Disabled ]'
ip link set ps0 up
ktap_check "admin_up_port_active" wait_until 2 port_state_is sroce_ps ACTIVE

# Exactly one event per transition: two downs, two ups.
wait_until 2 bash -c '[ "$(grep -c PORT_ACTIVE "$1")" -ge 2 ]' _ "$events"
if [ "$(count_events PORT_ERR)" -eq 2 ] && [ "$(count_events PORT_ACTIVE)" -eq 2 ]; then
	ktap_pass "one_event_per_transition"
else
	ktap_fail "one_event_per_transition" "events seen: $(tr '\n' ';' < "$events")"
fi
ktap_diag "phys_state now $(phys_state)"

ktap_finish
