#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A kernel ULP over sroce on both sides: an NVMe over RDMA target (nvmet-rdma,
# backed by a file) and the host (nvme-rdma, nvme-cli) on one sroce device.
# nvmet and nvme-rdma create their RDMA CM IDs in the initial network
# namespace, and RDMA CM resolves an address of the machine itself to the
# device that owns it, so both ends share the device (loopback through the
# packet engine, as between two machines: UDP/IP out and back in).
#
# This drives fast registration (IB_WR_REG_MR, local invalidate, SEND with
# invalidate from the target), kernel CQs and QPs and RDMA CM. fio writes and
# verifies data through the block device, then the host disconnects and
# everything is torn down; the kernel log must stay clean.
#
# The host connects with extra write queues: reads and writes then go through
# different QPs of one PD while their regions are registered and invalidated
# per I/O (the shape of the fast-registration race of issue 10, item 4); the
# last fio run keeps both directions busy on every queue at once.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/nvme_lib.sh"

NQN=nqn.2026-11.dev.sroce:selftest
TGT_ADDR=10.94.0.1
PORT=4420
IMG_MB=64

require_sroce
require_nvme_rdma

ktap_plan 11

work=$(mktemp -d)
on_exit "rm -rf $work"

veth_pair nvt0 nvh0
ip addr add $TGT_ADDR/24 dev nvt0
link_add sroce_nv nvt0

# --- target ---------------------------------------------------------------
truncate -s ${IMG_MB}M "$work/ns1.img"
if ! nvmet_subsystem $NQN "$work/ns1.img"; then
	ktap_fail target_listens "nvmet configfs refused subsystem $NQN"
	ktap_finish
fi
port_dir=$NVMET_CFG/ports/94
on_exit "nvmet_port_del $port_dir $NQN"
if nvmet_port "$port_dir" $TGT_ADDR $PORT $NQN; then
	ktap_pass target_listens
else
	ktap_fail target_listens "nvmet-rdma refused port $TGT_ADDR:$PORT"
	ktap_finish
fi

# --- host -----------------------------------------------------------------
hostnqn=$(nvme gen-hostnqn)
# Two write queues on top of the default I/O queues (one per CPU).
if timeout 60 nvme connect -t rdma -a $TGT_ADDR -s $PORT -n $NQN \
	-q "$hostnqn" --nr-write-queues=2 >"$work/connect.log" 2>&1; then
	on_exit "nvme disconnect -n $NQN"
	ktap_pass host_connects
else
	ktap_fail host_connects "$(tr '\n' ' ' <"$work/connect.log")"
	ktap_finish
fi

have_ns() {
	nvme_ns $NQN >/dev/null
}

if wait_until 30 have_ns; then
	# Our own node: nothing creates /dev entries in the test guest.
	name=$(nvme_ns $NQN)
	dev=$work/$name
	if mknod "$dev" b $(tr ':' ' ' <"/sys/block/$name/dev"); then
		ktap_pass namespace_appears
	else
		ktap_fail namespace_appears "mknod for $name failed"
		ktap_finish
	fi
else
	ktap_fail namespace_appears "no block device for $NQN"
	ktap_finish
fi
ktap_diag "block device $name, $(cat "/sys/block/$name/size") sectors"

# Kernel RC QPs of both ends: the admin queue and one I/O queue per CPU,
# twice (host and target).
rc_qps() {
	rdma resource show qp link sroce_nv/1 2>/dev/null | grep -c RC
}
nqps=$(rc_qps)
if [ "$nqps" -ge 4 ]; then
	ktap_pass kernel_rc_qps_on_sroce
else
	ktap_fail kernel_rc_qps_on_sroce "$nqps RC QPs on sroce_nv"
fi
mrs_before=$(rdma resource show mr 2>/dev/null | grep -c sroce_nv)

# Admin queue, one default queue per CPU and the two write queues.
ctrl=$(nvme_ctrl $NQN)
nqueues=$(cat "/sys/class/nvme/$ctrl/queue_count" 2>/dev/null || echo 0)
if [ "$nqueues" -ge 4 ]; then
	ktap_pass io_queues_separate_reads_writes
else
	ktap_fail io_queues_separate_reads_writes "$nqueues queues on $ctrl"
fi

# --- data -----------------------------------------------------------------
# Direct I/O of many sizes with a checksum in every block, written then read
# back and verified; the first write leaves a pattern the dd check re-reads.
if timeout 300 fio --name=sroce-verify --filename="$dev" --direct=1 \
	--ioengine=libaio --iodepth=8 --rw=randwrite --bsrange=4k-128k --blockalign=4k \
	--size=16M --verify=crc32c --verify_fatal=1 --do_verify=1 \
	--randseed=94 --output="$work/fio.log" >/dev/null 2>&1; then
	ktap_pass fio_randwrite_verify
else
	ktap_fail fio_randwrite_verify "$(grep -iE 'err|verify' "$work/fio.log" | head -n 3 | tr '\n' ' ')"
fi

head -c 4194304 /dev/urandom >"$work/pattern"
if dd if="$work/pattern" of="$dev" bs=64k seek=512 oflag=direct \
	status=none &&
	dd if="$dev" of="$work/readback" bs=64k skip=512 count=64 \
		iflag=direct status=none &&
	cmp -s "$work/pattern" "$work/readback"; then
	ktap_pass dd_roundtrip_byte_exact
else
	ktap_fail dd_roundtrip_byte_exact "4 MiB read back differs"
fi

# The target's file holds what the host wrote: the data crossed the wire.
if cmp -s "$work/pattern" <(dd if="$work/ns1.img" bs=64k skip=512 count=64 \
	status=none); then
	ktap_pass target_file_has_data
else
	ktap_fail target_file_has_data "backing file differs from what was written"
fi

# Four jobs on disjoint quarters, writes of mixed sizes read back and checked
# while later writes are in flight (verify_backlog): RDMA READs (host
# writes) and RDMA WRITEs (host reads) to regions of one PD, registered and
# invalidated per I/O, on several queues at once.
if timeout 600 fio --name=sroce-mixed --filename="$dev" --direct=1 \
	--ioengine=libaio --iodepth=16 --numjobs=4 --size=8M \
	--offset_increment=16M --rw=randwrite \
	--bssplit=4k/30:8k/10:16k/10:64k/20:128k/20:512k/10 --blockalign=4k \
	--verify=crc32c --verify_fatal=1 --verify_backlog=32 --do_verify=1 \
	--randseed=95 --output="$work/fio-mixed.log" >/dev/null 2>&1; then
	ktap_pass fio_multiqueue_mixed_verify
else
	ktap_fail fio_multiqueue_mixed_verify "$(grep -iE 'err|verify' "$work/fio-mixed.log" | head -n 3 | tr '\n' ' ')"
fi

# --- teardown -------------------------------------------------------------
ctrl_gone() {
	! nvme_ctrl $NQN >/dev/null
}

nvme disconnect -n $NQN >"$work/disconnect.log" 2>&1
if wait_until 30 ctrl_gone; then
	ktap_pass host_disconnects
else
	ktap_fail host_disconnects "controller still present"
fi

qps_gone() {
	[ "$(rc_qps)" = 0 ]
}
ktap_check host_qps_released wait_until 30 qps_gone
ktap_diag "MRs while connected: $mrs_before"

ktap_finish
