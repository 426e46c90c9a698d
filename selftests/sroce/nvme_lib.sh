#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# NVMe over RDMA for the sroce selftests (sourced after lib.sh): an nvmet
# target configured through configfs, and the host's controller and
# namespace found in sysfs.

NVMET_CFG=/sys/kernel/config/nvmet

# require_nvme_rdma: skip the whole test unless nvme-cli, fio, the target
# and host modules and configfs are there
require_nvme_rdma() {
	local tool mod
	for tool in nvme fio; do
		command -v $tool >/dev/null || ktap_skip_all "$tool not installed"
	done
	for mod in nvmet nvmet_rdma nvme_rdma; do
		modprobe $mod 2>/dev/null || ktap_skip_all "module $mod not available"
	done
	mountpoint -q /sys/kernel/config ||
		mount -t configfs none /sys/kernel/config ||
		ktap_skip_all "configfs not mountable"
}

# nvmet_subsystem NQN IMAGE: subsystem NQN open to any host, its
# namespace 1 backed by the file IMAGE (buffered: tmpfs has no O_DIRECT)
# and enabled; undone on exit. Return: non-zero if configfs refused it.
nvmet_subsystem() {
	local sub=$NVMET_CFG/subsystems/$1
	mkdir "$sub" || return
	on_exit "rmdir $sub"
	echo 1 >"$sub/attr_allow_any_host" && mkdir "$sub/namespaces/1" || return
	on_exit "rmdir $sub/namespaces/1"
	echo "$2" >"$sub/namespaces/1/device_path" &&
		echo 1 >"$sub/namespaces/1/buffered_io" &&
		echo 1 >"$sub/namespaces/1/enable" || return
	on_exit "echo 0 > $sub/namespaces/1/enable"
}

# nvmet_port DIR ADDR PORT NQN: an RDMA port DIR (under ports/) listening
# on IPv4 ADDR:PORT for subsystem NQN. Not undone: nvmet_port_del DIR NQN.
nvmet_port() {
	mkdir "$1" &&
		echo rdma >"$1/addr_trtype" &&
		echo ipv4 >"$1/addr_adrfam" &&
		echo "$2" >"$1/addr_traddr" &&
		echo "$3" >"$1/addr_trsvcid" &&
		ln -s "$NVMET_CFG/subsystems/$4" "$1/subsystems/$4"
}
nvmet_port_del() {
	rm -f "$1/subsystems/$2" && rmdir "$1"
}

# nvme_ctrl NQN: the host's controller (sysfs name) connected to NQN
nvme_ctrl() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c/subsysnqn" ] || continue
		[ "$(cat "$c/subsysnqn")" = "$1" ] && basename "$c" && return 0
	done
	return 1
}

# nvme_ns NQN: the block device (sysfs name) of NQN's namespace. Its
# device link leads to the controller or, with native multipath, to the
# subsystem, both naming the NQN; the multipath paths (nvmeXcYnZ) take no
# I/O of their own: the head does.
nvme_ns() {
	local b
	for b in /sys/block/nvme*n*; do
		case ${b##*/} in nvme*c*n*) continue ;; esac
		[ -e "$b/dev" ] && [ -e "$b/device/subsysnqn" ] || continue
		[ "$(cat "$b/device/subsysnqn")" = "$1" ] || continue
		[ "$(cat "$b/size")" -gt 0 ] || continue
		echo "${b##*/}"
		return 0
	done
	return 1
}
