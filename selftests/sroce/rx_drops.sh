#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Drop monitors (the skb:kfree_skb tracepoint, which dropwatch, perf and
# drop_monitor read) see the packets sroce refuses or loses, never one it
# delivered: a packet the transport took is consumed. Junk datagrams at
# UDP port 4791 must each show up as one drop in sroce (and in
# rx_icrc_encapsulated); RC (RoCE v2 and v1) and UD traffic between two
# namespaces, and RC traffic looped through one device, must show none;
# packets a full port buffer discards (PFC's receive buffers, 64 KiB
# lossy, drained at 40 Mbit/s) must each be one drop, and the ones it held
# and delivered none.
. "$(dirname "$0")/lib.sh"

require_sroce
for t in ibv_rc_pingpong ibv_ud_pingpong python3; do
	command -v $t >/dev/null || ktap_skip_all "$t missing"
done

trace=/sys/kernel/tracing
[ -d $trace/events ] || mount -t tracefs nodev $trace 2>/dev/null ||
	ktap_skip_all "no tracefs"
[ -d $trace/events/skb/kfree_skb ] || ktap_skip_all "no skb:kfree_skb event"
inst=$trace/instances/sroce_rx_drops
rmdir $inst 2>/dev/null
mkdir $inst || ktap_skip_all "cannot create a trace instance"
on_exit "rmdir $inst"
# 6.1 prints the location as a pointer: unhashed, it is looked up in
# /proc/kallsyms (later kernels print its symbol).
echo 0 >$inst/options/hash-ptr 2>/dev/null ||
	ktap_skip_all "the trace instance cannot print raw addresses"
echo 4096 >$inst/buffer_size_kb
# The event stays enabled from here on; recording is switched with the
# instance's tracing_on. Each enable or disable of an event rewrites
# kernel text on every CPU (static calls), which once wedged a TCG guest
# (one vCPU looping on the breakpoint of a site being rewritten).
echo 0 >$inst/tracing_on
echo 1 >$inst/events/skb/kfree_skb/enable
on_exit "echo 0 >$inst/events/skb/kfree_skb/enable"
grep -q '\[sroce\]$' /proc/kallsyms ||
	ktap_skip_all "/proc/kallsyms shows no sroce symbols"

ktap_plan 6

pfc_link rd 10.91.0 rx_drain_mbps
make_work_dir
on_exit "echo 0 >$dbg/rx_drain_mbps"

counter() {
	cat "/sys/class/infiniband/$1/ports/1/hw_counters/$2"
}

# trace_start: record drops from now on
trace_start() {
	echo 0 >$inst/tracing_on
	: >$inst/trace
	echo 1 >$inst/tracing_on
}

# sroce_drops: stop recording; print the number of drops recorded whose
# location is in sroce, then, one per line, those locations' functions
# with their counts. The event prints the location as a raw address on
# 6.1 (looked up in /proc/kallsyms: the nearest symbol at or below it)
# and as a symbol with its module on later kernels. A recorded drop whose
# location cannot be read fails the count (it prints "unreadable ...").
sroce_drops() {
	echo 0 >$inst/tracing_on
	grep ' kfree_skb: ' $inst/trace >"$work/drops"
	python3 - "$work/drops" <<'EOF'
import bisect, collections, re, sys

syms = []
with open("/proc/kallsyms") as f:
    for line in f:
        parts = line.split()
        if len(parts) >= 3 and parts[1] in "tT":
            syms.append((int(parts[0], 16), parts[2],
                         parts[3] if len(parts) > 3 else ""))
syms.sort()
addrs = [s[0] for s in syms]
ours = collections.Counter()
with open(sys.argv[1]) as f:
    for line in f:
        m = re.search(r"location=(.*?) reason:", line)
        loc = m.group(1).strip() if m else ""
        if re.fullmatch(r"(0x)?[0-9a-f]+", loc):
            i = bisect.bisect_right(addrs, int(loc, 16)) - 1
            if i >= 0 and syms[i][2] == "[sroce]":
                ours[syms[i][1]] += 1
        elif re.fullmatch(r"\S+\+0x[0-9a-f]+/0x[0-9a-f]+( \[\S+\])?", loc):
            if loc.endswith(" [sroce]"):
                ours[loc.split("+")[0]] += 1
        else:
            print("unreadable")
            print(line.strip())
            sys.exit(0)
print(sum(ours.values()))
for name, n in ours.most_common():
    print(f"{name} {n}")
EOF
}

# no_drops NAME: the traffic since trace_start made no drop in sroce
no_drops() {
	local out
	out=$(sroce_drops)
	if [ "$(head -n 1 <<<"$out")" = 0 ]; then
		ktap_pass "$1"
	else
		ktap_fail "$1" "drops in sroce: $(tail -n +2 <<<"$out" | tr '\n' ' ')"
	fi
}

# pingpong TOOL SERVER_NS SERVER_DEV SERVER_GID CLIENT_GID ADDR ARGS...:
# one run of an rdma-core pingpong, server in SERVER_NS ("" = here) on
# SERVER_DEV, client on DEV0; fails (with the logs) unless both report
# their run
pingpong() {
	local tool=$1 sns=$2 sdev=$3 sgid=$4 cgid=$5 addr=$6 srv out rc
	shift 6
	${sns:+ip netns exec $sns} timeout 120 "$tool" -d "$sdev" -g "$sgid" \
		"$@" >"$work/srv.log" 2>&1 &
	srv=$!
	wait_until 10 listening "$sns" 18515
	out=$(timeout 120 "$tool" -d "$DEV0" -g "$cgid" "$@" "$addr" 2>&1)
	rc=$?
	wait $srv || rc=$?
	[ $rc = 0 ] && grep -q " iters in " <<<"$out" &&
		grep -q " iters in " "$work/srv.log" && return 0
	echo "client: $out / server: $(cat "$work/srv.log")"
	return 1
}

# Junk at the RoCE v2 port: each datagram reaches sroce, fails its ICRC
# and is dropped there.
junk=64
icrc0=$(counter "$DEV0" rx_icrc_encapsulated)
trace_start
nsx python3 -c "
import os, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for _ in range($junk):
    s.sendto(os.urandom(64), ('10.91.0.1', 4791))
"
icrc_all_counted() {
	[ "$(counter "$DEV0" rx_icrc_encapsulated)" -ge $((icrc0 + junk)) ]
}
wait_until 10 icrc_all_counted
# The counter moves just before each drop is traced.
drops_traced() {
	[ "$(grep -c ' kfree_skb: ' $inst/trace)" -ge $junk ]
}
wait_until 10 drops_traced
icrc=$(( $(counter "$DEV0" rx_icrc_encapsulated) - icrc0 ))
out=$(sroce_drops)
if [ $icrc = $junk ] && [ "$(head -n 1 <<<"$out")" = $junk ]; then
	ktap_diag "refused: $(tail -n +2 <<<"$out" | tr '\n' ' ')"
	ktap_pass "refused_packets_are_drops"
else
	ktap_fail "refused_packets_are_drops" "$junk sent, rx_icrc_encapsulated" \
		"+$icrc, drops in sroce: $(tr '\n' ' ' <<<"$out")"
fi

# consumed NAME PINGPONG_ARGS...: the pingpong (see pingpong) runs and
# sroce drops none of its packets
consumed() {
	local name=$1 why
	shift
	trace_start
	if why=$(pingpong "$@"); then
		no_drops "$name"
	else
		sroce_drops >/dev/null
		ktap_fail "$name" "$why"
	fi
}

# Delivered packets are consumed: RC between the namespaces (several
# packets a message), UD between them, RC over RoCE v1 (the Ethernet type
# handler) between them, and RC looped through one device (the internal
# loopback's trains).
rcvd0=$(( $(counter "$DEV0" rcvd_pkts) + $(counter "$DEV1" rcvd_pkts) ))
consumed rc_netns_consumed ibv_rc_pingpong "$NS" "$DEV1" "$G1" "$G0" \
	10.91.0.2 -n 500 -s 4096 -c
ktap_diag "rc_netns: $(( $(counter "$DEV0" rcvd_pkts) + $(counter "$DEV1" rcvd_pkts) - rcvd0 )) packets received"
consumed ud_netns_consumed ibv_ud_pingpong "$NS" "$DEV1" "$G1" "$G0" \
	10.91.0.2 -n 500 -s 512
has_v1_gids() {
	V0=$(gid_grep "$DEV0" "ffff:0a5b:0001$" "IB/RoCE v1") &&
		V1=$(gid_grep "$DEV1" "ffff:0a5b:0002$" "IB/RoCE v1")
}
if wait_until 5 has_v1_gids; then
	consumed rc_roce_v1_consumed ibv_rc_pingpong "$NS" "$DEV1" "$V1" "$V0" \
		10.91.0.2 -n 200 -s 4096 -c
else
	ktap_fail rc_roce_v1_consumed "no RoCE v1 GIDs for 10.91.0.1/2"
fi
consumed rc_loopback_consumed ibv_rc_pingpong "" "$DEV0" "$G0" "$G0" \
	127.0.0.1 -n 100 -s 65536 -c

# DEV1's port buffer 0 (every priority's, lossy) shrinks to 64 KiB and
# drains at 40 Mbit/s: what arrives is held, and discarded once it is
# full; RC's retransmission recovers (pfc_lossless's case 5). Each
# discard must be one drop in sroce, the held packets none.
discards() {
	local p n=0
	for p in 0 1 2 3 4 5 6 7; do
		n=$((n + $(pfc_stat rx rx_prio${p}_buf_discard)))
	done
	echo $n
}
echo 65536,1048576,0,0,0,0,0,0 >$rx/pfc/buffer_size
d0=$(discards)
trace_start
echo 40 >$dbg/rx_drain_mbps
timeout 300 "$(dirname "$0")/xfer_verify" -a "$DEV0" -g "$G0" -b "$DEV1" \
	-G "$G1" -n 20 -s 13 -t 240 >"$work/verify" 2>&1
status=$?
echo 0 >$dbg/rx_drain_mbps
d=$(( $(discards) - d0 ))
out=$(sroce_drops)
if [ $status = 0 ] && [ $d -gt 0 ] && [ "$(head -n 1 <<<"$out")" = $d ]; then
	ktap_diag "buffers: $d discarded, drops in sroce: $(tail -n +2 <<<"$out" | tr '\n' ' ')"
	ktap_pass buffer_discards_are_drops
else
	ktap_fail buffer_discards_are_drops "xfer_verify $status ($(tail -n 1 "$work/verify"))," \
		"$d discarded, drops in sroce: $(tr '\n' ' ' <<<"$out")"
fi

ktap_finish
