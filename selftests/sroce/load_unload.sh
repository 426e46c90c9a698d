#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Module lifetime: `rdma link add` autoloads sroce (MODULE_ALIAS_RDMA_LINK);
# the module unloads cleanly with devices present, also while userspace
# holds a device open (the process gets a fatal device event). Leaves
# sroce loaded.
. "$(dirname "$0")/lib.sh"

require_sroce
[ -n "${SROCE_KO:-}" ] || ktap_skip_all "needs SROCE_KO to reload sroce"
ktap_plan 9

on_exit "sroce_ensure_loaded"
veth_pair lu0 lu1 || ktap_skip_all "cannot create veth"
ip link add lu2 type veth peer name lu3 && on_exit "ip link del lu2"

# Unload with two devices present.
rdma link add sroce_lu0 type sroce netdev lu0
rdma link add sroce_lu2 type sroce netdev lu2
ktap_check "unload_with_devices" rmmod sroce
ktap_check "devices_gone_after_unload" \
	bash -c '! ls /sys/class/infiniband | grep -q "^sroce_lu"'
ktap_check "netdevs_released" bash -c 'ip link del lu2 && ! ip link show lu2 2>/dev/null'

# Autoload: install the module where modprobe finds it (the guest's
# /lib/modules is a throwaway overlay), then just ask for a link.
kdir=/lib/modules/$(uname -r)
if mkdir -p "$kdir/updates" && cp "$SROCE_KO" "$kdir/updates/sroce.ko" &&
   depmod -a; then
	on_exit "rm -f $kdir/updates/sroce.ko; depmod -a"
	rdma link add sroce_lu0 type sroce netdev lu0
	ktap_check "autoload_on_link_add" sroce_loaded
	ktap_check "autoloaded_device_works" port_state_is sroce_lu0 ACTIVE
else
	ktap_skip "autoload_on_link_add" "cannot install the module for modprobe"
	ktap_skip "autoloaded_device_works" "cannot install the module"
	insmod "$SROCE_KO"
	rdma link add sroce_lu0 type sroce netdev lu0
fi

# An open user context does not pin the module: unloading disassociates
# it (ib_uverbs destroys its objects and fails its later calls with EIO)
# and tells the process with a fatal device event, as ConnectX does.
watch_log=$(mktemp)
on_exit "rm -f $watch_log"
stdbuf -oL ibv_asyncwatch -d sroce_lu0 >"$watch_log" 2>&1 &
watcher=$!
on_exit "kill $watcher"
wait_until 10 bash -c '[ -e /proc/'$watcher'/fd ] && ls -l /proc/'$watcher'/fd | grep -q uverbs'
ktap_check "module_not_pinned_by_open_device" \
	bash -c '[ "$(cat /sys/module/sroce/refcnt)" -eq 0 ]'
ktap_check "unload_with_device_open" rmmod sroce
ktap_check "process_told_device_fatal" \
	wait_until 10 grep -q -i "fatal" "$watch_log"
ktap_diag "ibv_asyncwatch: $(tr '\n' ' ' <"$watch_log")"
kill $watcher
wait $watcher 2>/dev/null
ktap_check "reload" insmod "$SROCE_KO"

ktap_finish
