#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RoCE v1 (Ethernet type 0x8915, GRH, no IP/UDP) between two sroce devices
# in two namespaces: the GID table's RoCE v1 entries drive ibverbs-utils and
# perftest (-g/-x index of a v1 GID) and RDMA CM (rping with the port's
# default RoCE mode set to v1 in configfs). rdma_rxe has no RoCE v1, so the
# frames are checked by independent decoders: tshark's InfiniBand dissector
# and icrc_check.py. A capture on the veth must hold v1 frames only.
source "$(dirname "$0")/lib.sh"

require_sroce
for tool in ibv_rc_pingpong ibv_ud_pingpong ib_write_bw rping tshark; do
	command -v $tool >/dev/null || ktap_skip_all "$tool not installed"
done

ktap_plan 11

two_hosts v1t 10.91.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir

has_v1_gids() {
	V0=$(gid_grep "$DEV0" "ffff:0a5b:0001$" "IB/RoCE v1") &&
		V1=$(gid_grep "$DEV1" "ffff:0a5b:0002$" "IB/RoCE v1")
}
if wait_until 5 has_v1_gids; then
	has_v1_gids
	ktap_pass v1_gids_present
	ktap_diag "RoCE v1 GID index $V0 on $DEV0, $V1 on $DEV1"
else
	ktap_fail v1_gids_present "no RoCE v1 GID for 10.91.0.x"
	ktap_finish
fi

# Everything on the wire from here on is captured.
cap=$work/v1.pcap
capture_start v1t0 "$cap"

server_client rc_pingpong_v1 18601 \
	ibv_rc_pingpong -d "$DEV1" -g "$V1" -p 18601 -n 200 -s 4096 -c -- \
	ibv_rc_pingpong -d "$DEV0" -g "$V0" -p 18601 -n 200 -s 4096 -c 10.91.0.2
server_client ud_pingpong_v1 18602 \
	ibv_ud_pingpong -d "$DEV1" -g "$V1" -p 18602 -n 200 -s 1024 -- \
	ibv_ud_pingpong -d "$DEV0" -g "$V0" -p 18602 -n 200 -s 1024 10.91.0.2
server_client write_bw_v1 18603 \
	ib_write_bw -d "$DEV1" -x "$V1" -p 18603 -n 200 -s 65536 -F -- \
	ib_write_bw -d "$DEV0" -x "$V0" -p 18603 -n 200 -s 65536 -F 10.91.0.2
server_client read_bw_v1 18604 \
	ib_read_bw -d "$DEV1" -x "$V1" -p 18604 -n 200 -s 65536 -F -- \
	ib_read_bw -d "$DEV0" -x "$V0" -p 18604 -n 200 -s 65536 -F 10.91.0.2
server_client send_lat_v1 18605 \
	ib_send_lat -d "$DEV1" -x "$V1" -p 18605 -n 200 -F -- \
	ib_send_lat -d "$DEV0" -x "$V0" -p 18605 -n 200 -F 10.91.0.2

# RDMA CM in RoCE v1 mode on both devices.
cfg=/sys/kernel/config/rdma_cm
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
modprobe rdma_cm 2>/dev/null
if mkdir "$cfg/$DEV0" "$cfg/$DEV1" 2>/dev/null; then
	on_exit "rmdir $cfg/$DEV0 $cfg/$DEV1"
	echo "IB/RoCE v1" >"$cfg/$DEV0/ports/1/default_roce_mode"
	echo "IB/RoCE v1" >"$cfg/$DEV1/ports/1/default_roce_mode"
	mode=$(cat "$cfg/$DEV0/ports/1/default_roce_mode")
	nsx timeout 60 rping -s -a 10.91.0.2 -C 100 >"$work/rping.srv" 2>&1 &
	rping_srv=$!
	on_exit "kill $rping_srv"
	cm_listening() {
		nsx rdma resource show cm_id 2>/dev/null | grep -q LISTEN
	}
	wait_until 20 cm_listening
	if timeout 60 rping -c -a 10.91.0.2 -C 100 -S 64 -V \
		>"$work/rping.cli" 2>&1; then
		ktap_pass rping_v1_mode
	else
		ktap_fail rping_v1_mode "default mode '$mode': $(tail -n 2 "$work/rping.cli" | tr '\n' ' ')"
	fi
else
	ktap_skip rping_v1_mode "rdma_cm configfs not available"
fi

capture_stop

# --- the frames ----------------------------------------------------------
nv1=$(tshark -r "$cap" -Y "eth.type == 0x8915" 2>/dev/null | wc -l)
nv2=$(tshark -r "$cap" -Y "udp.port == 4791" 2>/dev/null | wc -l)
if [ "$nv1" -gt 1000 ] && [ "$nv2" = 0 ]; then
	ktap_pass only_v1_frames_on_the_wire
else
	ktap_fail only_v1_frames_on_the_wire "$nv1 RoCE v1 frames, $nv2 RoCE v2"
fi
ktap_diag "captured $nv1 RoCE v1 frames"

decoded=$work/v1.txt
# RPC-over-RDMA's heuristic claims small SEND payloads (perftest's) and
# then calls them malformed: it is not RoCE that it fails to decode.
tshark -r "$cap" -V --disable-protocol rpcordma -Y "eth.type == 0x8915" >"$decoded" 2>/dev/null
ktap_check tshark_decodes_grh_and_bth \
	bash -c "grep -q 'Global Route Header' '$decoded' &&
		grep -q 'Base Transport Header' '$decoded'"
malformed() {
	grep -qi "malformed" "$decoded"
}
if malformed; then
	# Which frames, and what tshark made of them: the failure must say.
	tshark -r "$cap" --disable-protocol rpcordma \
		-Y "eth.type == 0x8915 && _ws.malformed" -T fields \
		-e frame.number -e frame.len -e frame.protocols -e infiniband.bth.opcode \
		-e _ws.expert.message 2>/dev/null | head -n 8 |
		while read -r line; do ktap_diag "malformed: $line"; done
	ktap_fail tshark_no_malformed "$(grep -ci malformed "$decoded") malformed"
else
	ktap_pass tshark_no_malformed
fi
ktap_check icrc_valid "$(dirname "$0")/icrc_check.py" "$cap"

ktap_finish
