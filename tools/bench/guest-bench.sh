#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# guest-bench.sh: the guest half of tools/bench/sroce-bench. Runs inside one
# sroce-vm boot with sroce.ko loaded and measures, in this order:
#   1. sroce loopback: server and client on sroce0 (over veth0), OOB 127.0.0.1
#   2. sroce across namespaces: sroce0 on veth0 <-> sroce1 on veth1 in "b"
#   2b. with --base-ko: 1 and 2 again with that module instead (an A/B of
#      two sroce builds in one boot, their rounds in ABBA order; a second
#      table compares them)
#   3. rdma_rxe loopback: sroce unloaded, rxe0 on veth0, OOB 127.0.0.1
#   4. kernel TCP (iperf3) from the initial namespace to "b" over the veth
# then prints a table of medians with ratios (see Documentation/benchmarks.md)
# and writes it to $SROCE_OUT/bench.txt when sroce-vm has an --out share.
#
# usage: guest-bench.sh [--quick] [--reps N] [--deadline UPTIME_SECS]
#                       [--tests LIST] [--rps]
#                       [--host-load STR] [--base-ko FILE [--base-name NAME]]
#   --reps: repetitions of every test (default 3, 1 with --quick); the
#   table gives their median.
#   --deadline: guest uptime by which the script must have finished (the host
#   passes its sroce-vm timeout minus a margin); tests that no longer fit are
#   reported as "skip" instead of running into the harness's timeout.
#   --rps: each side of the veth receives on a CPU of its own (RPS: veth0
#   on CPU 0, veth1 in the namespace on CPU 1), as two hosts would, each
#   with its own CPU; without it a veth receives on the sending CPU, so
#   everything between the namespaces runs on the CPU that sent first.
#   For every row: sroce, rdma_rxe and TCP.
set -u

quick=0 deadline=0 host_load='' want_reps='' base_ko='' base_name='' only='' rps=0
while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--reps) want_reps=$2; shift ;;
	--deadline) deadline=$2; shift ;;
	--host-load) host_load=$2; shift ;;
	--base-ko) base_ko=$2; shift ;;
	--base-name) base_name=$2; shift ;;
	--tests) only=$2; shift ;;
	--rps) rps=1 ;;
	*) echo "guest-bench: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

if [ "$quick" = 1 ]; then
	reps=1 bw_n=(-n 100) lat_n=(-n 200) pt_timeout=30 tcp_secs=3
else
	reps=3 bw_n=(-n 1000) lat_n=(-n 1000) pt_timeout=60 tcp_secs=5
fi
[ -z "$want_reps" ] || reps=$want_reps
[ "$deadline" -gt 0 ] || deadline=100000

ns=b
addr0=10.77.0.1 addr1=10.77.0.2
work=$(mktemp -d /tmp/sroce-bench.XXXXXX)
port=18514
problems=() calib_fail=() from_server=()

# Tests in table order: name, perftest tool, arguments, metrics.
tests=(send_bw write_bw read_bw atomic_bw send_lat write_lat read_lat atomic_lat)
# --tests: a subset, in table order; the 4-QP bandwidth tests only so
if [ -n "$only" ]; then
	all=(send_bw write_bw read_bw send_bw_q4 write_bw_q4 read_bw_q4
	     atomic_bw send_lat write_lat read_lat atomic_lat) tests=()
	for t in "${all[@]}"; do
		[[ ",$only," != *",$t,"* ]] || tests+=("$t")
	done
fi
declare -A tool_args=(
	[send_bw]="-s 65536" [write_bw]="-s 65536" [read_bw]="-s 65536"
	[send_bw_q4]="-s 65536 -q 4" [write_bw_q4]="-s 65536 -q 4"
	[read_bw_q4]="-s 65536 -q 4"
	[atomic_bw]="" [send_lat]="-s 2" [write_lat]="-s 2" [read_lat]="-s 2"
	[atomic_lat]=""
)
# metrics TEST: sets mkeys (table rows) and mcols (perftest columns)
metrics() {
	case $1 in
	atomic_bw) mkeys=(atomic_bw) mcols=("MsgRate[Mpps]") ;;
	*_bw | *_bw_q4) mkeys=("$1") mcols=("BW average[MB/sec]") ;;
	*_lat) mkeys=("$1.typ" "$1.avg") mcols=("t_typical[usec]" "t_avg[usec]") ;;
	esac
}

uptime_s() {
	local up
	read -r up _ </proc/uptime
	echo "${up%.*}"
}
# Seconds kept free at the end for iperf3, the table, saving the logs over
# 9p (slow on a busy host) and power-off.
tail_need=$((reps * (tcp_secs + 6) + 45))

log() { printf '[%5ss] %s\n' "$(uptime_s)" "$*"; }

# poll TIMEOUT_S COMMAND...: retry every 0.1 s; never a blind sleep.
poll() {
	local end=$(($(date +%s%N) / 1000000 + $1 * 1000))
	shift
	while :; do
		"$@" && return 0
		[ $(($(date +%s%N) / 1000000)) -lt "$end" ] || return 1
		sleep 0.1
	done
}

# listening NS PORT: a TCP socket listens on PORT in namespace NS ("" = init)
listening() {
	local out
	if [ -n "$1" ]; then
		out=$(ip netns exec "$1" ss -Hltn "sport = :$2" 2>/dev/null)
	else
		out=$(ss -Hltn "sport = :$2" 2>/dev/null)
	fi
	[ -n "$out" ]
}

# reap PID SECS: wait for a background job, but never longer than SECS (a
# process stuck in the kernel survives SIGKILL). Sets $reaped to its
# status, 255 if it is still there. (Not in $(...): only this shell can
# wait for its children.)
reaped=0
reap() {
	local pid=$1 end=$((SECONDS + $2))
	reaped=0
	while kill -0 "$pid" 2>/dev/null; do
		if [ $SECONDS -ge $end ]; then
			reaped=255
			return
		fi
		sleep 0.1
	done
	wait "$pid" 2>/dev/null || reaped=$?
}

# gid_v4 DEV ADDR: index of DEV's RoCE v2 GID for IPv4 ADDR. Builtins only
# and in index order: a fork costs tens of ms in a TCG guest and a GID table
# has hundreds of entries (rxe: 1024).
gid_v4() {
	local d=/sys/class/infiniband/$1/ports/1 want i g t n
	# shellcheck disable=SC2086 # split the dotted quad
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	n=0
	for g in "$d"/gids/*; do n=$((n + 1)); done
	for ((i = 0; i < n; i++)); do
		read -r g <"$d/gids/$i" 2>/dev/null || continue
		[ "$g" = "$want" ] || continue
		read -r t <"$d/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] || continue
		echo "$i"
		return 0
	done
	return 1
}

# column FILE NAME: the value under header column NAME in perftest's result
# table (the first data line after the last "#bytes" header line). Header
# names may contain blanks ("BW average[MB/sec]", "99% percentile[usec]"):
# words are joined until one that ends a name (has "]" or starts with "#").
# perftest 25 (trixie on) writes "[MiB/sec]" where 4.5 and 23 (bookworm)
# wrote "[MB/sec]" for the same figure (bytes / 2^20 per second): the
# names are compared in the older spelling.
column() {
	awk -v want="$2" '
	/#bytes/ {
		col = 0; n = 0; name = ""
		for (i = 1; i <= NF; i++) {
			name = name == "" ? $i : name " " $i
			if ($i ~ /\]/ || $i ~ /^#/) {
				n++
				sub(/\[MiB\/sec\]/, "[MB/sec]", name)
				if (name == want) col = n
				name = ""
			}
		}
		armed = 1; next
	}
	armed && $1 ~ /^[0-9]+$/ && col && NF >= col { v = $col; armed = 0 }
	END { if (v != "") print v }' "$1"
}

# Results: vals[CFG,METRIC] = space-separated values, bad[CFG,METRIC] = note
declare -A vals bad veth_tx

note_problem() {
	problems+=("$*")
	log "PROBLEM: $*"
}

# mark CFG TEST NOTE: note every metric of TEST in CFG (HANG is kept)
mark() {
	local k mkeys mcols
	metrics "$2"
	for k in "${mkeys[@]}"; do
		[ "${bad[$1,$k]:-}" = HANG ] || bad[$1,$k]=$3
	done
}

# perftest CFG TEST REP SERVER_NS SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID ADDR
# One measurement; perftest's clock calibration (rdtsc against gettimeofday,
# which a busy TCG host disturbs) failing is the tool's problem, not the
# driver's: such a run is repeated, up to 2 more times.
perftest() {
	local try rc
	for try in 1 2 3; do
		rc=0
		perftest_once "$try" "$@" || rc=$?
		[ $rc = 3 ] || return $rc
		log "$1 ib_$2 rep $3: perftest clock calibration failed (try $try)"
	done
	calib_fail+=("$1 ib_$2 rep $3")
	mark "$1" "$2" CALIB
	return 1
}

# figures FILE: "key=value ..." for every metric of the current test
# (mkeys/mcols) in perftest output FILE; fails if one has no sane value
# (perftest prints 0.00, inf or -nan when its clock calibration fails).
figures() {
	local i v out=''
	for i in "${!mkeys[@]}"; do
		v=$(column "$1" "${mcols[$i]}")
		if ! [[ $v =~ ^[0-9]+(\.[0-9]+)?$ ]] || [[ $v =~ ^0+(\.0*)?$ ]]; then
			return 1
		fi
		out+="${mkeys[$i]}=$v "
	done
	echo "$out"
}

# perftest_once TRY CFG TEST REP ...: returns 0 with figures, 1 on a
# failure, 2 on a hang, 3 when only perftest's clock calibration failed.
perftest_once() {
	local try=$1
	shift
	local cfg=$1 t=$2 rep=$3 sns=$4 sdev=$5 sgid=$6 cdev=$7 cgid=$8 addr=$9
	local tool=ib_${t%_q4} srv cli spid cpid crc src left to i v figs=''
	local -a args nargs mkeys mcols
	read -ra args <<<"${tool_args[$t]}"
	case $t in *_bw | *_bw_q4) nargs=("${bw_n[@]}") ;; *) nargs=("${lat_n[@]}") ;; esac
	metrics "$t"
	left=$((deadline - tail_need - $(uptime_s)))
	if [ $left -lt 10 ]; then
		mark "$cfg" "$t" skip
		return 1
	fi
	to=$pt_timeout
	[ $to -le $((left - 5)) ] || to=$((left - 5))
	port=$((port + 1))
	srv=$work/$cfg.$t.$rep.$try.server cli=$work/$cfg.$t.$rep.$try.client
	${sns:+ip netns exec "$sns"} timeout -k 2 "$to" stdbuf -oL -eL \
		"$tool" -d "$sdev" -x "$sgid" -F -p "$port" "${args[@]}" "${nargs[@]}" \
		>"$srv" 2>&1 &
	spid=$!
	if ! poll 20 listening "$sns" "$port"; then
		kill "$spid" 2>/dev/null
		reap "$spid" 10; src=$reaped
		note_problem "$cfg $tool rep $rep: server never listened (status $src):" \
			"$(tail -n 3 "$srv" | tr '\n' '|')"
		mark "$cfg" "$t" FAIL
		return 1
	fi
	timeout -k 2 "$to" stdbuf -oL -eL \
		"$tool" -d "$cdev" -x "$cgid" -F -p "$port" "${args[@]}" "${nargs[@]}" \
		"$addr" >"$cli" 2>&1 &
	cpid=$!
	reap "$cpid" $((to + 10)); crc=$reaped
	# A failed client leaves the server waiting for it: do not sit out its timeout.
	[ "$crc" = 0 ] || kill "$spid" 2>/dev/null
	reap "$spid" 15; src=$reaped
	if [ "$crc" = 0 ]; then
		figs=$(figures "$cli") || crc="no figure"
		# The client's clock calibration failed: send_bw, send_lat and
		# write_lat servers measure the same exchange and report it too.
		if [ "$crc" != 0 ] && [ "$src" = 0 ] &&
			grep -q 'Correlation coefficient' "$cli" &&
			figs=$(figures "$srv"); then
			crc=0
			figs+="(server's figures) "
		fi
	fi
	if [ "$crc" = "no figure" ] && grep -q 'Correlation coefficient' "$cli"; then
		return 3
	fi
	if [ "$crc" != 0 ]; then
		case $crc in
		124 | 137) mark "$cfg" "$t" HANG ;;
		255) mark "$cfg" "$t" STUCK ;;
		*) mark "$cfg" "$t" FAIL ;;
		esac
		note_problem "$cfg $tool rep $rep: client status $crc, server status $src;" \
			"client: $(grep -v '^ *$' "$cli" | tail -n 4 | tr '\n' '|')" \
			"server: $(grep -v '^ *$' "$srv" | tail -n 2 | tr '\n' '|')"
		case $crc in 124 | 137 | 255) return 2 ;; esac
		return 1
	fi
	for i in "${!mkeys[@]}"; do
		v=${figs#*"${mkeys[$i]}="}
		vals[$cfg,${mkeys[$i]}]+="${v%% *} "
	done
	log "$cfg $tool rep $rep: $figs"
	[[ $figs != *server* ]] || from_server+=("$cfg $tool rep $rep")
	return 0
}

# suite CFG REP SERVER_NS SERVER_DEV SERVER_GID CLIENT_DEV CLIENT_GID ADDR
# Round REP of all tests in configuration CFG: the rounds of a test are
# spread over the run (test 1..n, then again), as in the rxe baseline. A
# test that hung in a configuration is not run in it again.
declare -A hung
suite() {
	local cfg=$1 rep=$2 t rc tx0 tx1
	shift 2
	read -r tx0 </sys/class/net/veth0/statistics/tx_packets
	for t in "${tests[@]}"; do
		[ -z "${hung[$cfg,$t]:-}" ] || continue
		rc=0
		perftest "$cfg" "$t" "$rep" "$@" || rc=$?
		[ $rc != 2 ] || hung[$cfg,$t]=1
	done
	read -r tx1 </sys/class/net/veth0/statistics/tx_packets
	veth_tx[$cfg]=$((${veth_tx[$cfg]:-0} + tx1 - tx0))
}

# ---------------------------------------------------------------------------
guest_load_start=$(cat /proc/loadavg)
log "guest loadavg at start: $guest_load_start"
[ -z "$host_load" ] || log "host loadavg at start: $host_load"
log "mode: $([ $quick = 1 ] && echo quick || echo full), $reps repetition(s)"

modprobe veth
ip netns add $ns
ip link add veth0 type veth peer name veth1
ip link set veth1 netns $ns
ip addr add $addr0/24 dev veth0
ip -n $ns addr add $addr1/24 dev veth1
ip link set veth0 up
ip -n $ns link set veth1 up
ip -n $ns link set lo up
steering="none: each veth receives on the CPU that sent"
if [ "$rps" = 1 ]; then
	if [ "$(nproc)" -ge 2 ] &&
		echo 1 >/sys/class/net/veth0/queues/rx-0/rps_cpus &&
		ip netns exec $ns sh -c 'echo 2 >/sys/class/net/veth1/queues/rx-0/rps_cpus'; then
		steering="RPS: veth0 receives on CPU 0, veth1 (namespace $ns) on CPU 1"
	else
		note_problem "--rps: could not steer veth0 to CPU 0 and veth1 to CPU 1 ($(nproc) CPUs)"
	fi
fi
log "receive steering: $steering"

# sroce_round PREFIX REP: round REP on the sroce module loaded now, as
# PREFIX_lo (sroce0 <-> sroce0, 127.0.0.1) and PREFIX_ns (server sroce1 in
# namespace b, client sroce0); the devices are made for the round and
# deleted after it. Fails if sroce0 could not be made.
sroce_round() {
	local g0 g1 rc=0
	if rdma link add sroce0 type sroce netdev veth0 &&
		poll 10 gid_v4 sroce0 $addr0 >/dev/null; then
		g0=$(gid_v4 sroce0 $addr0)
		[ "$2" != 1 ] || log "$1: sroce0 RoCE v2 IPv4 GID index $g0"
		suite "$1_lo" "$2" "" sroce0 "$g0" sroce0 "$g0" 127.0.0.1
		if ip netns exec $ns rdma link add sroce1 type sroce netdev veth1 &&
			poll 10 gid_v4 sroce1 $addr1 >/dev/null; then
			g1=$(gid_v4 sroce1 $addr1)
			suite "$1_ns" "$2" $ns sroce1 "$g1" sroce0 "$g0" $addr1
		else
			note_problem "$1 round $2: sroce1 in netns $ns could not be set up"
		fi
	else
		note_problem "$1 round $2: sroce0 with a RoCE v2 GID for $addr0 could not be set up"
		rc=1
	fi
	rdma link del sroce0 2>/dev/null
	ip netns exec $ns rdma link del sroce1 2>/dev/null
	return $rc
}

# swap_to KO: replace the loaded sroce module with KO
swap_to() {
	local list deps
	timeout 60 rmmod sroce || return
	# insmod resolves nothing: the two builds may need different modules
	# (the base's udp_sock_create6 is ip6_udp_tunnel's).
	list=$(modinfo -F depends "$1") || return
	IFS=, read -ra deps <<<"$list"
	[ ${#deps[@]} = 0 ] || modprobe -a "${deps[@]}" || return
	insmod "$1"
}

# 1 and 2, and with a base module 2b: the two builds alternate in ABBA
# order (this build, base, base, this build, ...), so that both see the
# same drift of a shared host, a linear one cancelling out. The module the
# harness loaded is this build's.
if [ -n "$base_ko" ]; then
	log "1-2b/4 sroce loopback and netns, rounds of this build ($SROCE_KO) and the base module ${base_name:-$base_ko} in ABBA order"
else
	log "1-2/4 sroce loopback (sroce0 <-> sroce0, 127.0.0.1) and netns (server sroce1 in $ns, client sroce0 -> $addr1)"
fi
loaded=sroce
for r in $(seq "$reps"); do
	order=sroce
	[ -z "$base_ko" ] || order=$([ $((r % 2)) = 1 ] && echo "sroce base" || echo "base sroce")
	for cfg in $order; do
		if [ "$cfg" != "$loaded" ]; then
			ko=$SROCE_KO
			[ "$cfg" = sroce ] || ko=$base_ko
			if ! swap_to "$ko"; then
				note_problem "could not load the $cfg module for round $r"
				break 2
			fi
			loaded=$cfg
		fi
		sroce_round "$cfg" "$r" || break 2
	done
done

log "3/4 rdma_rxe loopback"
rxe_ok=1
if ! timeout 60 rmmod sroce; then
	note_problem "rmmod sroce failed or hung; no rxe figures"
	rxe_ok=0
elif ! modprobe rdma_rxe || ! rdma link add rxe0 type rxe netdev veth0 ||
	! poll 10 gid_v4 rxe0 $addr0 >/dev/null; then
	note_problem "rdma_rxe set-up failed"
	rxe_ok=0
fi
if [ $rxe_ok = 1 ]; then
	gr=$(gid_v4 rxe0 $addr0)
	log "rxe0: RoCE v2 IPv4 GID index $gr"
	for r in $(seq "$reps"); do
		suite rxe_lo "$r" "" rxe0 "$gr" rxe0 "$gr" 127.0.0.1
	done
	rdma link del rxe0
fi

log "4/4 TCP (iperf3 -t $tcp_secs, init ns -> $ns over the veth)"
for r in $(seq "$reps"); do
	p=$((5200 + r))
	ip netns exec $ns timeout -k 2 $((tcp_secs + 30)) iperf3 -s -1 -B $addr1 -p $p \
		>"$work/tcp.$r.server" 2>&1 &
	spid=$!
	if ! poll 20 listening $ns $p; then
		note_problem "iperf3 server did not listen"
		kill $spid 2>/dev/null
		reap $spid 5
		continue
	fi
	crc=$(timeout -k 2 $((tcp_secs + 25)) iperf3 -c $addr1 -p $p -f m -t "$tcp_secs" \
		>"$work/tcp.$r.client" 2>&1; echo $?)
	reap $spid 10
	v=$(awk '/receiver/ { for (i = 2; i <= NF; i++) if ($i == "Mbits/sec") print $(i - 1) }' \
		"$work/tcp.$r.client" | tail -n 1)
	if [ "$crc" = 0 ] && [ -n "$v" ]; then
		vals[tcp,tcp]+="$v "
		log "tcp rep $r: $v Mbit/s"
	else
		bad[tcp,tcp]=FAIL
		note_problem "iperf3 rep $r: status $crc: $(tail -n 2 "$work/tcp.$r.client" | tr '\n' '|')"
	fi
done
guest_load_end=$(cat /proc/loadavg)

# ---------------------------------------------------------------------------
# Table. median LIST -> median (mean of the middle two for an even count)
median() {
	tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{ a[NR] = $1 }
		END { if (NR == 0) exit; m = int((NR + 1) / 2)
		      if (NR % 2) print a[m]; else print (a[m] + a[m + 1]) / 2 }'
}
# Medians of everything measured, keyed like vals.
declare -A med
for k in "${!vals[@]}"; do med[$k]=$(median "${vals[$k]}"); done
# cell CFG METRIC: "median", "median*" if some repetitions failed, or the note
cell() {
	local key=$1,$2 list n m
	list=${vals[$key]:-}
	if [ -z "$list" ]; then
		echo "${bad[$key]:-n/a}"
		return
	fi
	m=${med[$key]}
	n=$(wc -w <<<"$list")
	if [ "$n" -lt "$reps" ] || [ -n "${bad[$key]:-}" ]; then
		echo "$(fmt "$m")*"
	else
		fmt "$m"
	fi
}
fmt() { awk -v x="$1" 'BEGIN { if (x >= 100) printf "%.0f", x; else if (x >= 1) printf "%.2f", x; else printf "%.4f", x }'; }
ratio() { # A B -> A/B with 2 decimals, or -
	if [ -z "$1" ] || [ -z "$2" ]; then echo -; return; fi
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'
}

rows=()
for t in "${tests[@]}"; do
	metrics "$t"
	rows+=("${mkeys[@]}")
done
label() {
	case $1 in
	send_bw | write_bw | read_bw) echo "ib_$1 64KiB" ;;
	*_bw_q4) echo "ib_${1%_q4} 64KiB -q 4" ;;
	atomic_bw) echo "ib_atomic_bw FADD" ;;
	*.typ) echo "ib_${1%.typ} 2B t_typ" ;;
	*.avg) echo "ib_${1%.avg} 2B t_avg" ;;
	esac
}
unit() {
	case $1 in atomic_bw) echo Mpps ;; *_bw | *_bw_q4) echo MiB/s ;; *) echo usec ;; esac
}

tcp_med=''
[ -z "${vals[tcp,tcp]:-}" ] || tcp_med=$(median "${vals[tcp,tcp]}")

table() {
	local r a b c tcp
	printf '%s\n' "sroce benchmark: kernel $(uname -r), $(nproc) vCPU (QEMU TCG)," \
		"mode $([ $quick = 1 ] && echo "quick (1 run each, -n 100 bw / -n 200 lat)" ||
			echo "full (median of $reps, -n 1000)")" \
		"receive steering: $steering"
	printf '%-24s %-6s %11s %11s %11s %9s %10s %12s\n' test unit "sroce lo" \
		"sroce netns" "rxe lo" "rxe netns" "sroce/rxe" "netns/TCP %"
	printf '%s\n' "$(printf '%.0s-' {1..101})"
	for r in "${rows[@]}"; do
		a=$(cell sroce_lo "$r") b=$(cell sroce_ns "$r") c=$(cell rxe_lo "$r")
		tcp=-
		case $r in
		send_bw | write_bw | read_bw)
			if [ -n "$tcp_med" ] && [ -n "${med[sroce_ns,$r]:-}" ]; then
				tcp=$(awk -v x="${med[sroce_ns,$r]}" -v t="$tcp_med" \
					'BEGIN { printf "%.1f", x * 8.388608 / t * 100 }')
			fi ;;
		esac
		printf '%-24s %-6s %11s %11s %11s %9s %10s %12s\n' "$(label "$r")" \
			"$(unit "$r")" "$a" "$b" "$c" n/a \
			"$(ratio "${med[sroce_lo,$r]:-}" "${med[rxe_lo,$r]:-}")" "$tcp"
	done
	printf '%-24s %-6s %11s\n' "TCP iperf3 netns (veth)" Mbit/s "$(cell tcp tcp)"
	cat <<EOF

sroce/rxe: sroce loopback / rxe loopback. Bandwidth rows: higher is better,
  so >1 means sroce is faster. Latency rows: lower is better, so <1 means
  sroce is faster.
netns/TCP %: sroce netns bandwidth (MiB/s x 8.389 = Mbit/s) as a percentage
  of kernel TCP (iperf3, 1 stream) over the same veth pair in the same boot.
rxe netns n/a: rdma_rxe in 6.1 cannot run across network namespaces.
Cells: median; * = some repetitions failed (median of the rest); FAIL = no
  run produced a figure; HANG = perftest timed out; STUCK = a process would
  not die; CALIB = perftest's clock calibration failed 3 times (host load);
  skip = no time left in the run's budget.
Load: guest loadavg start [$guest_load_start] end [$guest_load_end]${host_load:+
      host loadavg at start [$host_load]}
WARNING: QEMU TCG figures depend heavily on host load; compare them only
  within one boot taken on a quiet host.
EOF
}

raw() {
	local k
	echo "Raw values (per repetition):"
	for k in $(printf '%s\n' "${!vals[@]}" | sort); do
		printf '  %-24s %s\n' "$k" "${vals[$k]}"
	done
	for k in sroce_lo sroce_ns rxe_lo; do
		[ -z "${veth_tx[$k]:-}" ] || printf '  %-24s %s\n' "$k,veth0_tx_packets" "${veth_tx[$k]}"
	done
	if [ ${#from_server[@]} -gt 0 ]; then
		echo "Taken from the server's output (client's clock calibration failed):"
		printf '  - %s\n' "${from_server[@]}"
	fi
	if [ ${#calib_fail[@]} -gt 0 ]; then
		echo "perftest clock calibration failed 3 times in a row (host too busy):"
		printf '  - %s\n' "${calib_fail[@]}"
	fi
	if [ ${#problems[@]} -gt 0 ]; then
		echo "Problems:"
		printf '  - %s\n' "${problems[@]}"
	fi
}

# rank_p A B: the rank-sum test's p of the repetitions of A and B for a row
rank_p() {
	python3 "$(dirname "$0")/rank_test.py" "${vals[$1]:-}" "${vals[$2]:-}" \
		2>/dev/null || echo -
}

# The A/B table: this build against the base module, same boot.
ab_table() {
	local r
	printf '\n%s\n' "A/B: this build against the base module ${base_name:-$base_ko}"
	printf '%-24s %-6s %9s %9s %7s %5s %9s %9s %7s %5s\n' test unit \
		"sroce lo" "base lo" lo/base p "sroce ns" "base ns" ns/base p
	printf '%s\n' "$(printf '%.0s-' {1..97})"
	for r in "${rows[@]}"; do
		printf '%-24s %-6s %9s %9s %7s %5s %9s %9s %7s %5s\n' \
			"$(label "$r")" "$(unit "$r")" \
			"$(cell sroce_lo "$r")" "$(cell base_lo "$r")" \
			"$(ratio "${med[sroce_lo,$r]:-}" "${med[base_lo,$r]:-}")" \
			"$(rank_p "sroce_lo,$r" "base_lo,$r")" \
			"$(cell sroce_ns "$r")" "$(cell base_ns "$r")" \
			"$(ratio "${med[sroce_ns,$r]:-}" "${med[base_ns,$r]:-}")" \
			"$(rank_p "sroce_ns,$r" "base_ns,$r")"
	done
	cat <<EOF
x/base: bandwidth rows >1 and latency rows <1 mean this build is faster.
p: two-sided exact Wilcoxon rank-sum test (tools/bench/rank_test.py) of
  the two builds' repetitions; a ratio whose p is above 0.05 is within
  this run's noise.
EOF
}

echo
echo "===== sroce-bench results ====="
{ table; [ -z "$base_ko" ] || ab_table; } >"$work/bench.txt"
cat "$work/bench.txt"
# The table first: it must reach the host even if the rest runs out of time.
[ -z "${SROCE_OUT:-}" ] || cp "$work/bench.txt" "$SROCE_OUT/bench.txt"
echo
raw >"$work/bench-raw.txt"
cat "$work/bench-raw.txt"
if [ ${#problems[@]} -gt 0 ]; then
	echo "--- kernel log tail ---"
	dmesg | tail -n 20
fi
if [ -n "${SROCE_OUT:-}" ]; then
	cp "$work/bench-raw.txt" "$SROCE_OUT/bench-raw.txt"
	# One file over 9p rather than hundreds.
	if [ $(($(uptime_s) + 15)) -lt "$deadline" ]; then
		tar -C "$work" -cf "$SROCE_OUT/logs.tar" --exclude bench.txt \
			--exclude bench-raw.txt .
	fi
fi
[ ${#problems[@]} = 0 ]
