#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Connections set up by the RDMA connection manager, driven by stock
# rdmacm-utils and perftest between two sroce devices in two network
# namespaces joined by veth, over IPv4 and over IPv6: rping (RC SEND and
# RDMA READ/WRITE, data validated), ucmatose (many RC connections),
# udaddy (UD, address and QKEY exchanged through rdma_cm), mckey (UD
# multicast join, attach and detach), rstream (rsockets streaming, data
# verified) and perftest with -R (QPs connected by rdma_cm). Each server
# runs in the namespace, its client here; a client must exit 0 and print
# what a finished run prints.
. "$(dirname "$0")/lib.sh"

require_sroce
for tool in rping ucmatose udaddy mckey rstream; do
	command -v $tool >/dev/null || ktap_skip_all "rdmacm-utils missing"
done
command -v ib_send_bw >/dev/null || ktap_skip_all "perftest missing"
ktap_plan 14

two_hosts cm 10.92.0 || ktap_skip_all "cannot build the two-host topology"
ns=$NS
v4a=10.92.0.1
v4b=10.92.0.2
v6a=fd92::1
v6b=fd92::2
ip addr add $v6a/64 dev cm0 nodad
ip -n $ns addr add $v6b/64 dev cm1 nodad

# has_gid DEV GID: DEV's GID table holds GID (in sysfs notation)
has_gid() {
	grep -qx "$2" /sys/class/infiniband/$1/ports/1/gids/* 2>/dev/null
}
if ! wait_until 5 has_gid "$DEV0" fd92:0000:0000:0000:0000:0000:0000:0001 ||
   ! wait_until 5 has_gid "$DEV1" fd92:0000:0000:0000:0000:0000:0000:0002; then
	ktap_skip_all "no IPv6 GID appeared"
fi

tmp=$(mktemp -d)
on_exit "rm -rf $tmp"
slog=$tmp/server
clog=$tmp/client

# The server of the case running, killed on exit (before the namespace
# goes).
srv=
stop_server() {
	[ -n "$srv" ] || return 0
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
	srv=
}
on_exit stop_server

# start_server COMMAND...: run COMMAND in the namespace, output in $slog
start_server() {
	ip netns exec $ns timeout 120 stdbuf -oL "$@" > "$slog" 2>&1 &
	srv=$!
}

# Bash reaps its children as they die; an unreaped one is a zombie.
server_gone() {
	local st
	kill -0 "$srv" 2>/dev/null || return 0
	read -r _ _ st _ 2>/dev/null < "/proc/$srv/stat" || return 0
	[ "$st" = Z ]
}

# finish_server [SECONDS]: wait (30 s by default) for the server to end,
# then kill it; its exit status in sstatus.
finish_server() {
	wait_until "${1:-30}" server_gone || kill "$srv" 2>/dev/null
	wait "$srv"
	sstatus=$?
	srv=
}

# rdma_cm listeners are no sockets: restrack lists them as cm_ids.
# cm_listen COMM PORT: a cm_id of COMM listens on PORT
cm_listen() {
	rdma resource show cm_id 2>/dev/null |
		grep -Eq "state LISTEN .*comm $1 src-addr [^ ]*:$2( |\$)"
}

cm_listen_or_gone() {
	cm_listen "$1" "$2" || server_gone
}

# cm_pair PORT SERVER_COMMAND... -- CLIENT_COMMAND...: start the server,
# wait for its listener on PORT, run the client. Statuses in sstatus and
# cstatus (sstatus 255 if the server never listened), outputs in $slog
# and $clog, elapsed time in elapsed_ms.
cm_pair() {
	local port=$1 t0 s=()
	shift
	while [ "$1" != "--" ]; do
		s+=("$1")
		shift
	done
	shift
	: > "$clog"
	t0=$(now_ms)
	start_server "${s[@]}"
	wait_until 30 cm_listen_or_gone "${s[0]}" "$port"
	if ! cm_listen "${s[0]}" "$port"; then
		finish_server
		[ $sstatus -eq 0 ] && sstatus=255
		cstatus=255
		echo "(not started: the server never listened)" > "$clog"
		return
	fi
	# Line-buffered: a message on stderr must not land inside a line.
	timeout 120 stdbuf -oL "$@" > "$clog" 2>&1
	cstatus=$?
	# A server whose client failed may wait for it until its timeout.
	if [ $cstatus -eq 0 ]; then
		finish_server
	else
		finish_server 3
	fi
	elapsed_ms=$(( $(now_ms) - t0 ))
}

# fail_logs NAME: report NAME failed, with the statuses and both outputs
fail_logs() {
	ktap_diag "$1: client status $cstatus, server status $sstatus"
	tail -n 15 "$clog" | sed "s/^/# $1 client: /"
	tail -n 15 "$slog" | sed "s/^/# $1 server: /"
	ktap_fail "$1"
}

both_ok() {
	[ "$cstatus" -eq 0 ] && [ "$sstatus" -eq 0 ]
}

# rping: each iteration the server RDMA READs the client's buffer and
# RDMA WRITEs it back; -V makes the client compare (a mismatch fails it),
# -v prints every buffer it got back.
rping_case() {
	local name=$1 addr=$2 n
	cm_pair 7174 rping -s -a "$addr" -C 1000 -S 64 -V -- \
		rping -c -a "$addr" -C 1000 -S 64 -V -v
	n=$(grep -c '^ping data: rdma-ping-[0-9]*: ' "$clog")
	if both_ok && [ "$n" -eq 1000 ] &&
	   grep -q '^ping data: rdma-ping-999: ' "$clog" &&
	   ! grep -qi mismatch "$clog" "$slog"; then
		ktap_diag "$name: 1000 pings of 64 bytes verified in $elapsed_ms ms"
		ktap_pass "$name"
	else
		ktap_diag "$name: $n of 1000 pings came back"
		fail_logs "$name"
	fi
}

# ucmatose and udaddy: -c connections (RC) or UD endpoints, -C messages
# each way on every one; both sides end with these lines.
cmatose_ok() {
	grep -q '^data transfers complete$' "$1" &&
		grep -q '^test complete$' "$1" &&
		grep -q '^return status 0$' "$1"
}

# xchg_case NAME TOOL PORT ADDR
xchg_case() {
	local name=$1 tool=$2 port=$3 addr=$4
	cm_pair "$port" "$tool" -b "$addr" -c 10 -C 10 -- \
		"$tool" -s "$addr" -c 10 -C 10
	if both_ok && cmatose_ok "$clog" && cmatose_ok "$slog"; then
		ktap_diag "$name: 10 connections, 10 messages each way, in $elapsed_ms ms"
		ktap_pass "$name"
	else
		fail_logs "$name"
	fi
}

# rstream: 200 transfers of 4 KiB over rsockets, -T v verifying the data;
# each side prints its result line.
rstream_case() {
	local name=$1 addr=$2 re='^custom +4k +200 +1 '
	cm_pair 7471 rstream -b "$addr" -S 4096 -C 200 -T v -- \
		rstream -s "$addr" -S 4096 -C 200 -T v
	if both_ok && grep -Eq "$re" "$clog" && grep -Eq "$re" "$slog"; then
		ktap_diag "$name: $(grep -E "$re" "$clog" | tr -s ' ') ($elapsed_ms ms)"
		ktap_pass "$name"
	else
		fail_logs "$name"
	fi
}

# perftest -R: the QPs are connected by rdma_cm (no TCP socket); the
# server binds the wildcard address.
perf_case() {
	local name=$1 tool=$2 addr=$3 re='^ *[0-9]+ +[0-9]+ +[0-9.]+'
	cm_pair 18515 "$tool" -d "$DEV1" -R -F -n 200 -- \
		"$tool" -d "$DEV0" -R -F -n 200 "$addr"
	if [ "$cstatus" -ne 0 ] &&
	   grep -q 'Address family for hostname not supported' "$clog"; then
		# perftest resolves rdma_cm addresses as AF_INET only.
		ktap_diag "$name: $elapsed_ms ms"
		ktap_skip "$name" "perftest's -R takes IPv4 only: $(head -n 1 "$clog")"
	elif both_ok && grep -Eq "$re" "$clog" && grep -Eq "$re" "$slog"; then
		ktap_diag "$name:$(grep -E "$re" "$clog" | tail -n 1 | tr -s ' \t' ' ') ($elapsed_ms ms)"
		ktap_pass "$name"
	else
		fail_logs "$name"
	fi
}

max_mcast_grp=$(ibv_devinfo -v -d "$DEV0" 2>/dev/null |
		awk '/max_mcast_grp:/ { print $2; exit }')

mckey_joined_or_failed() {
	grep -Eq 'joined dgid|MULTICAST_ERROR|failure' "$slog" || server_gone
}

# mckey: the receiver in the namespace joins GROUP and attaches its UD QP,
# then the sender here joins and sends 10 datagrams to the group;
# leaving detaches the QP. mckey exits 0 even when a join fails, so the
# verdict comes from what it prints.
mckey_case() {
	local name=$1 group=$2 raddr=$3 saddr=$4 err t0
	t0=$(now_ms)
	: > "$clog"
	cstatus=255
	start_server mckey -m "$group" -b "$raddr" -C 10
	wait_until 30 mckey_joined_or_failed
	if grep -q 'joined dgid' "$slog"; then
		timeout 120 stdbuf -oL mckey -m "$group" -b "$saddr" -s \
			-C 10 > "$clog" 2>&1
		cstatus=$?
	fi
	finish_server
	elapsed_ms=$(( $(now_ms) - t0 ))
	ktap_diag "$name: $elapsed_ms ms"
	err=$(grep -hE 'MULTICAST_ERROR|failure' "$slog" "$clog" | head -n 1)
	if [ -z "$err" ] && both_ok && cmatose_ok "$slog" &&
	   cmatose_ok "$clog"; then
		ktap_diag "$name: 10 datagrams to $group"
		ktap_pass "$name"
	elif grep -q 'failure joining: Unknown error 524' "$slog"; then
		# rdma_join_multicast: ib_core's RoCE v2 path has only IPv4
		ktap_skip "$name" "rdma_cm does not join IPv6 groups over RoCE v2 (ENOTSUPP): $err"
	elif [ "$max_mcast_grp" = 0 ] &&
	     grep -q 'RDMA_CM_EVENT_MULTICAST_ERROR' "$slog"; then
		# The join succeeds; attaching the QP to the group fails.
		ktap_skip "$name" "device has no multicast (max_mcast_grp 0): $err"
	else
		fail_logs "$name"
	fi
}

rping_case rping_ipv4 $v4b
rping_case rping_ipv6 $v6b
xchg_case ucmatose_ipv4 ucmatose 7471 $v4b
xchg_case ucmatose_ipv6 ucmatose 7471 $v6b
xchg_case udaddy_ipv4 udaddy 7174 $v4b
xchg_case udaddy_ipv6 udaddy 7174 $v6b
mckey_case mckey_ipv4 239.1.92.1 $v4b $v4a
mckey_case mckey_ipv6 ff0e::92:1 $v6b $v6a
rstream_case rstream_ipv4 $v4b
rstream_case rstream_ipv6 $v6b
perf_case send_bw_rdma_cm_ipv4 ib_send_bw $v4b
perf_case write_lat_rdma_cm_ipv4 ib_write_lat $v4b
perf_case send_bw_rdma_cm_ipv6 ib_send_bw $v6b
perf_case write_lat_rdma_cm_ipv6 ib_write_lat $v6b

ktap_finish
