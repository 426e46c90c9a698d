#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Shared helpers of the sroce selftests: KTAP output, setup that is undone
# on exit, polling instead of sleeping, and the kernel-log check that fails
# a test on any splat it caused.
#
# A test sources this file, calls ktap_plan N, reports each case with
# ktap_pass/ktap_fail/ktap_skip and ends with ktap_finish. Exit status
# follows kselftest: 0 pass, 1 fail, 4 skip.

set -u

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

# The debug kernel (make check-debug: KASAN, lockdep, kmemleak under TCG)
# runs every packet many times slower: tests scale their loads down by
# it (debug_scale N M: N on a normal kernel, M on the debug one).
case $(uname -r) in
*-sroce-debug) SROCE_DEBUG_KERNEL=1 ;;
*) SROCE_DEBUG_KERNEL=0 ;;
esac
debug_scale() {
	if [ "$SROCE_DEBUG_KERNEL" = 1 ]; then echo "$2"; else echo "$1"; fi
}
# xfer_verify's QPs there: a transport timeout of 2^18 * 4.096 us (1.07 s)
# rather than 67 ms, which a round trip under KASAN can take (check-debug:
# rc_completer and tx_no_mem QPs ran out of retries).
[ "$SROCE_DEBUG_KERNEL" = 1 ] && export SROCE_QP_TIMEOUT=${SROCE_QP_TIMEOUT:-18}

# pid_gone PID: the process has exited; a zombie not reaped yet counts
# (unlike kill -0: bash reaps a finished child only when it next forks,
# which a wait_until over builtins never does)
pid_gone() {
	local stat
	read -r stat 2>/dev/null <"/proc/$1/stat" || return 0
	stat=${stat##*) }
	[ "${stat%% *}" = Z ]
}

# debug_timing_is_todo: on the debug kernel, every failed case of this
# program becomes a known failure (TODO). Only for programs whose every
# assertion is a rate or a timing: there every packet costs tens of times
# more, flows run into transport timeouts and such assertions mean
# nothing. Their traffic still runs under KASAN and lockdep, and a
# kernel-log report still fails the program (ktap_finish). A program
# with data or state checks as well marks its timing assertions one by
# one (ktap_fail_timing).
debug_timing_is_todo() {
	[ "$SROCE_DEBUG_KERNEL" = 1 ] || return 0
	ktap_diag "debug kernel: failed cases are known failures (rates and timings)"
	ktap_fail() {
		[ $# -gt 1 ] && echo "# $1: ${*:2}"
		ktap_todo "$1" "rates and timings on the debug kernel"
	}
}

ktap_passed=0
ktap_failed=0
ktap_skipped=0
ktap_todos=0
ktap_num=0
ktap_test_name=$(basename "$0")

ktap_planned=
ktap_plan() {
	ktap_planned=$1
	echo "TAP version 13"
	echo "1..$1"
}

ktap_pass() {
	ktap_num=$((ktap_num + 1))
	ktap_passed=$((ktap_passed + 1))
	echo "ok $ktap_num $1"
}

# ktap_fail NAME [REASON...]
ktap_fail() {
	local name=$1
	shift
	ktap_num=$((ktap_num + 1))
	ktap_failed=$((ktap_failed + 1))
	[ $# -gt 0 ] && echo "# $name: $*"
	echo "not ok $ktap_num $name"
}

# ktap_fail_timing NAME [REASON...]: a failed timing assertion; on the
# debug kernel a known failure (see debug_timing_is_todo)
ktap_fail_timing() {
	if [ "$SROCE_DEBUG_KERNEL" = 1 ]; then
		[ $# -gt 1 ] && echo "# $1: ${*:2}"
		ktap_todo "$1" "a timing on the debug kernel"
	else
		ktap_fail "$@"
	fi
}

# ktap_skip NAME REASON
ktap_skip() {
	ktap_num=$((ktap_num + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_num $1 # SKIP $2"
}

# ktap_todo NAME REASON: a known failure (KTAP's TODO directive): shown
# in every run with its reason, not counted as a failure.
ktap_todo() {
	ktap_num=$((ktap_num + 1))
	ktap_todos=$((ktap_todos + 1))
	echo "not ok $ktap_num $1 # TODO $2"
}

# ktap_check NAME COMMAND...: pass if COMMAND succeeds.
ktap_check() {
	local name=$1
	shift
	if "$@"; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "failed: $*"
	fi
}

ktap_diag() {
	echo "# $*"
}

# Skip the whole test (before any result was printed).
ktap_skip_all() {
	echo "TAP version 13"
	echo "1..0 # SKIP $1"
	exit $KSFT_SKIP
}

# Final line and exit status. The test's cleanups run first (devices,
# links and namespaces deleted), then the kernel-log check, so that it
# covers the teardown too.
ktap_finish() {
	run_cleanups
	# A case path that forgot to report would otherwise pass unseen.
	if [ -n "$ktap_planned" ] && [ "$ktap_num" != "$ktap_planned" ]; then
		echo "# $ktap_test_name: $ktap_num results for a plan of $ktap_planned"
		ktap_failed=$((ktap_failed + 1))
	fi
	kmsg_check
	echo "# $ktap_test_name: $ktap_passed passed, $ktap_failed failed, $ktap_skipped skipped$([ "$ktap_todos" = 0 ] || echo ", $ktap_todos known failures (TODO)")"
	if [ $ktap_failed -gt 0 ]; then
		exit $KSFT_FAIL
	elif [ $ktap_passed -eq 0 ] && [ $ktap_skipped -gt 0 ]; then
		exit $KSFT_SKIP
	fi
	exit $KSFT_PASS
}

# --- cleanup stack --------------------------------------------------------

cleanup_cmds=()

# on_exit COMMAND: run COMMAND (a string for eval) when the test exits,
# most recent first.
on_exit() {
	cleanup_cmds=("$1" "${cleanup_cmds[@]}")
}

run_cleanups() {
	local c
	for c in "${cleanup_cmds[@]}"; do
		eval "$c" >/dev/null 2>&1 || true
	done
	cleanup_cmds=()
}
trap run_cleanups EXIT

# --- polling --------------------------------------------------------------

# Polling must stay cheap under TCG, where every fork costs milliseconds:
# the clock is bash's $EPOCHREALTIME and the pause is a read with a timeout
# on a pipe nobody writes to, both without a new process.
exec {ksft_nap_fd}<> <(:)

now_us() {
	local t=${EPOCHREALTIME/./}
	echo $((10#$t))
}

now_ms() {
	echo $(( $(now_us) / 1000 ))
}

nap() {
	read -r -t "$1" -u "$ksft_nap_fd" || true
}

# wait_until SECONDS COMMAND...: poll COMMAND every 10 ms until it succeeds
# or SECONDS have passed. Returns COMMAND's last status.
wait_until() {
	local limit=$1 t
	shift
	t=${EPOCHREALTIME/./}
	local deadline=$(( 10#$t + limit * 1000000 ))
	while ! "$@"; do
		t=${EPOCHREALTIME/./}
		if [ $((10#$t)) -ge "$deadline" ]; then
			"$@"
			return
		fi
		nap 0.01
	done
}

# --- kernel log -----------------------------------------------------------

kmsg_marker="sroce-selftest: $ktap_test_name start $$"
# Without it the check below would read nothing and pass: it fails instead.
kmsg_marked=0
echo "$kmsg_marker" > /dev/kmsg 2>/dev/null && kmsg_marked=1

# Patterns of kernel reports that fail a test. The expected refusals of
# this driver are plain error lines and never match.
kmsg_splat_re='WARNING:|BUG:|Oops|general protection fault|possible circular locking|possible recursive locking|inconsistent lock state|lockdep|UBSAN:|KASAN:|refcount_t:|list_add corruption|list_del corruption|unregister_netdevice: waiting|Call Trace:|kernel BUG|soft lockup|blocked for more than|ODEBUG:|detected stall'

# Kernel log lines written since this test started.
kmsg_since_start() {
	dmesg | sed -n "/$kmsg_marker/,\$p"
}

kmsg_check() {
	local splat
	if [ "$kmsg_marked" != 1 ] || ! dmesg | grep -qF "$kmsg_marker"; then
		ktap_num=$((ktap_num + 1))
		ktap_failed=$((ktap_failed + 1))
		echo "# the kernel log lost this test's start line: it cannot be checked"
		echo "not ok $ktap_num kernel_log_clean"
		return
	fi
	splat=$(kmsg_since_start | grep -E "$kmsg_splat_re" || true)
	if [ -n "$splat" ]; then
		ktap_num=$((ktap_num + 1))
		ktap_failed=$((ktap_failed + 1))
		echo "# kernel log shows a splat:"
		kmsg_since_start | sed 's/^/#   /' | tail -n 60
		echo "not ok $ktap_num kernel_log_clean"
	fi
}

# --- sroce helpers --------------------------------------------------------

# require_netem: skip the whole test unless netem qdiscs can be made
require_netem() {
	modprobe sch_netem 2>/dev/null
	tc qdisc add dev lo root netem 2>/dev/null && tc qdisc del dev lo root ||
		ktap_skip_all "netem not available"
}

require_root() {
	[ "$(id -u)" -eq 0 ] || ktap_skip_all "must run as root"
}

sroce_loaded() {
	[ -d /sys/module/sroce ]
}

# Make sure sroce is loaded, from $SROCE_KO if it is not yet.
sroce_ensure_loaded() {
	sroce_loaded && return 0
	modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel 2>/dev/null
	if [ -n "${SROCE_KO:-}" ]; then
		insmod "$SROCE_KO"
	else
		modprobe sroce
	fi
}

# Require sroce (skip the whole test if it cannot be loaded).
require_sroce() {
	require_root
	command -v rdma >/dev/null || ktap_skip_all "iproute2's rdma tool missing"
	sroce_ensure_loaded || ktap_skip_all "sroce module not loadable"
}

# sroce_refcnt: sroce's module reference count ("gone" if it is not loaded)
sroce_refcnt() {
	cat /sys/module/sroce/refcnt 2>/dev/null || echo gone
}
sroce_refcnt_zero() {
	[ "$(sroce_refcnt)" = 0 ]
}

# blocked_tasks: the kernel stacks of tasks in uninterruptible sleep
blocked_tasks() {
	local t
	for t in $(ps -eo pid=,stat= | awk '$2 ~ /^D/ { print $1 }'); do
		echo "blocked: $t $(cat "/proc/$t/comm"): $(tr '\n' ' ' <"/proc/$t/stack")"
	done
}

# veth_pair A B: create a veth pair, both ends up, removed on exit.
veth_pair() {
	ip link add "$1" type veth peer name "$2" || return
	on_exit "ip link del $1"
	ip link set "$1" up && ip link set "$2" up
}

# link_add NAME NETDEV: rdma link add, removed on exit.
link_add() {
	rdma link add "$1" type sroce netdev "$2" || return
	on_exit "rdma link del $1"
}

ibdev_exists() {
	[ -e "/sys/class/infiniband/$1" ]
}

ibdev_gone() {
	[ ! -e "/sys/class/infiniband/$1" ]
}

# port_state DEV: the port's state name (ACTIVE, DOWN, ...)
port_state() {
	sed 's/^[0-9]*: *//' "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null
}

port_state_is() {
	[ "$(port_state "$1")" = "$2" ]
}

# active_mtu DEV: active MTU in bytes as ibv_devinfo reports it
active_mtu() {
	ibv_devinfo -d "$1" -i 1 2>/dev/null |
		awk '/active_mtu:/ { print $2; exit }'
}

# gid_grep DEV PATTERN TYPE: index of DEV's first GID table entry of TYPE
# ("RoCE v2" or "IB/RoCE v1") whose GID (as sysfs prints it) matches the
# grep PATTERN. One grep over the table: a process per entry costs seconds
# under TCG.
gid_grep() {
	local f i t
	for f in $(grep -l -- "$2" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null); do
		i=${f##*/}
		read -r t 2>/dev/null <"/sys/class/infiniband/$1/ports/1/gid_attrs/types/$i" ||
			continue
		[ "$t" = "$3" ] && echo "$i" && return 0
	done
	return 1
}

# gid_v4 DEV HEX: index of DEV's RoCE v2 GID whose IPv4 address ends in
# the two groups HEX (e.g. 0a61:0001 for 10.97.0.1).
gid_v4() {
	gid_grep "$1" "ffff:$2\$" "RoCE v2"
}

# loopback_device DEV IFC NET: sroce device DEV over IFC0, one end of a
# veth pair IFC0/IFC1, with NET.1/24 on it (NET like 10.95.0), for QPs
# that talk to each other on one device; everything undone on exit. Sets
# gid to DEV's RoCE v2 GID index of NET.1; skips the whole test if a step
# fails.
loopback_device() {
	local hex a b c
	IFS=. read -r a b c <<<"$3"
	hex=$(printf '%02x%02x:%02x01' "$a" "$b" "$c")
	veth_pair "${2}0" "${2}1" || ktap_skip_all "cannot create veth"
	ip addr add "$3.1/24" dev "${2}0" || ktap_skip_all "cannot add $3.1"
	link_add "$1" "${2}0" || ktap_skip_all "rdma link add $1 failed"
	wait_until 5 gid_v4 "$1" "$hex" >/dev/null
	# shellcheck disable=SC2034 # for the caller
	gid=$(gid_v4 "$1" "$hex") || ktap_skip_all "no RoCE v2 GID for $3.1"
}

# two_hosts NAME NET: two "hosts" joined by a veth pair, NAME0 here with
# NET.1/24 and NAME1 in namespace NAME_ns with NET.2/24 (NET like 10.97.0),
# an sroce device on each end (sroce_NAME0, sroce_NAME1). Everything is
# undone on exit. Sets NS, DEV0, DEV1 and their IPv4 GID indices G0, G1;
# returns non-zero if the topology cannot be built.
two_hosts() {
	local name=$1 net=$2 hex
	NS=${name}_ns
	DEV0=sroce_${name}0
	DEV1=sroce_${name}1
	ip netns add "$NS" || return
	on_exit "ip netns del $NS"
	ip link add "${name}0" type veth peer name "${name}1" netns "$NS" ||
		return
	on_exit "ip link del ${name}0"
	ip link set "${name}0" up
	ip -n "$NS" link set "${name}1" up
	ip addr add "$net.1/24" dev "${name}0"
	ip -n "$NS" addr add "$net.2/24" dev "${name}1"
	link_add "$DEV0" "${name}0" || return
	ip netns exec "$NS" rdma link add "$DEV1" type sroce netdev "${name}1" ||
		return
	hex=$(printf '%02x%02x' $(echo "$net" | cut -d. -f1,2 | tr . ' '))
	wait_until 5 gid_v4 "$DEV0" "$hex:$(printf '%02x01' "${net##*.}")" >/dev/null
	wait_until 5 gid_v4 "$DEV1" "$hex:$(printf '%02x02' "${net##*.}")" >/dev/null
	G0=$(gid_v4 "$DEV0" "$hex:$(printf '%02x01' "${net##*.}")") &&
		G1=$(gid_v4 "$DEV1" "$hex:$(printf '%02x02' "${net##*.}")")
}

# pfc_link NAME NET KNOB: two_hosts NAME NET for the PFC tests, DEV0
# sending to DEV1; sets tx and rx (their ports' sysfs directories) and
# dbg (DEV1's debugfs directory, debugfs mounted if it is not). Skips the
# whole test if the topology cannot be built or DEV1 has no writable
# debugfs file KNOB.
pfc_link() {
	two_hosts "$1" "$2" ||
		ktap_skip_all "cannot build the two-host topology"
	tx=/sys/class/infiniband/$DEV0/ports/1
	rx=/sys/class/infiniband/$DEV1/ports/1
	dbg=/sys/kernel/debug/sroce/$DEV1
	[ -d "$dbg" ] || mount -t debugfs none /sys/kernel/debug 2>/dev/null
	[ -w "$dbg/$3" ] || ktap_skip_all "no debugfs $3"
}

# pfc_stat SIDE COUNTER: a hardware counter of pfc_link's sender (SIDE
# tx, DEV0) or receiver (rx, DEV1)
pfc_stat() {
	local d=$tx
	[ "$1" = rx ] && d=$rx
	cat "$d/hw_counters/$2"
}

# gid_find DEV GID TYPE: index of DEV's GID table entry GID (as sysfs
# prints it, e.g. 0000:...:ffff:0a62:0001) of TYPE ("RoCE v2" or
# "IB/RoCE v1").
gid_find() {
	gid_grep "$1" "^$2\$" "$3"
}

# make_work_dir: a scratch directory in $work, removed on exit.
make_work_dir() {
	work=$(mktemp -d)
	on_exit "rm -rf $work"
}

# nsx COMMAND...: run COMMAND in the namespace $NS (see two_hosts).
nsx() {
	ip netns exec "$NS" "$@"
}

# listening NS PORT: a TCP listener on PORT in namespace NS ("" = ours)
listening() {
	${1:+ip netns exec $1} ss -ltnH "sport = :$2" | grep -q .
}

# server_client NAME PORT SERVER_CMD... -- CLIENT_CMD...: the server in $NS,
# the client here once the server listens on TCP PORT; passes NAME if both
# exit 0 within 60 s. Logs go to $work/NAME.srv and $work/NAME.cli
# (make_work_dir).
server_client() {
	local name=$1 port=$2 srv=() cli=() spid rc src
	shift 2
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	cli=("$@")
	nsx timeout 60 "${srv[@]}" >"$work/$name.srv" 2>&1 &
	spid=$!
	if ! wait_until 20 listening "$NS" "$port"; then
		kill "$spid" 2>/dev/null
		ktap_fail "$name" "server did not listen"
		return
	fi
	timeout 60 "${cli[@]}" >"$work/$name.cli" 2>&1
	rc=$?
	wait "$spid"
	src=$?
	if [ $rc = 0 ] && [ $src = 0 ]; then
		ktap_pass "$name"
	else
		ktap_fail "$name" "client $rc, server $src: $(tail -n 2 "$work/$name.cli" | tr '\n' ' ')"
	fi
}

# frames_on IFACE: frames IFACE sent and received so far
frames_on() {
	echo $(( $(cat "/sys/class/net/$1/statistics/tx_packets") +
		 $(cat "/sys/class/net/$1/statistics/rx_packets") ))
}

# capture_start IFACE FILE: capture every frame on IFACE (in this
# namespace) into FILE (pcap format) until capture_stop; returns once capturing (dumpcap
# says "Capturing on" when its socket is bound). Its messages go to
# FILE.log.
capture_start() {
	capture_if=$1
	capture_log=$2.log
	capture_base=$(frames_on "$1")
	dumpcap -P -i "$1" -w "$2" >/dev/null 2>"$capture_log" &
	capture_pid=$!
	on_exit "kill $capture_pid"
	wait_until 10 grep -q "^Capturing on" "$capture_log"
}

# capture_has_all: dumpcap has written as many frames as crossed the
# interface since capture_start (it reports "Packets: N" as it writes).
capture_has_all() {
	local got
	got=$(tr '\r' '\n' <"$capture_log" | sed -n 's/^Packets: \([0-9]*\).*/\1/p' |
	      tail -n 1)
	[ "${got:-0}" -ge $(( $(frames_on "$capture_if") - capture_base )) ]
}

# capture_stop: end the capture once every frame is in its file; frames
# still in the capture socket's buffer would be lost to an early stop.
capture_stop() {
	wait_until 10 capture_has_all
	kill -INT "$capture_pid" 2>/dev/null
	wait "$capture_pid" 2>/dev/null
	true
}
