#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# guest-profile.sh: run in a sroce-vm boot with a RoCE driver loaded
# (Documentation/benchmarks.md, "Where the time goes"). Runs one perftest
# bandwidth test for a fixed time under `perf record -a -g` and prints
# where the CPUs went: the /proc/stat split (user, system, softirq, idle)
# over the test, the bytes moved, the samples each CPU gave perf, and
# perf's flat and caller profiles.
#
# usage: guest-profile.sh [--driver sroce|rxe] [--mode lo|netns]
#                         [--test write_bw] [--size 65536] [--secs 10]
#                         [--mtu 1500] [--qps 1]
set -u

driver=sroce mode=netns test=write_bw size=65536 secs=10 mtu=1500 qps=1
while [ $# -gt 0 ]; do
	case $1 in
	--driver) driver=$2; shift ;;
	--mode) mode=$2; shift ;;
	--test) test=$2; shift ;;
	--size) size=$2; shift ;;
	--secs) secs=$2; shift ;;
	--mtu) mtu=$2; shift ;;
	--qps) qps=$2; shift ;;
	*) echo "guest-profile: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

ns=b addr0=10.77.0.1 addr1=10.77.0.2 port=18600
work=$(mktemp -d /tmp/sroce-profile.XXXXXX)
out=${SROCE_OUT:-$work}

die() { echo "guest-profile: $*" >&2; exit 125; }

# poll SECS COMMAND...: retry every 0.1 s
poll() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -lt $end ] || return 1
		sleep 0.1
	done
}

listening() {
	[ -n "$(${1:+ip netns exec "$1"} ss -Hltn "sport = :$2" 2>/dev/null)" ]
}

# gid_v4 DEV ADDR: index of DEV's RoCE v2 GID for IPv4 ADDR
gid_v4() {
	local d=/sys/class/infiniband/$1/ports/1 want i g t
	# shellcheck disable=SC2086 # split the dotted quad
	want=$(printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' ${2//./ })
	for ((i = 0; i < 1024; i++)); do
		read -r g <"$d/gids/$i" 2>/dev/null || continue
		[ "$g" = "$want" ] || continue
		read -r t <"$d/gid_attrs/types/$i" 2>/dev/null || continue
		[ "$t" = "RoCE v2" ] && { echo "$i"; return 0; }
	done
	return 1
}

# cpu_ticks: "user+nice system softirq irq idle+iowait" over all CPUs
cpu_ticks() {
	local us ni sy id io irq sirq
	read -r _ us ni sy id io irq sirq _ </proc/stat
	echo "$((us + ni)) $sy $sirq $irq $((id + io))"
}

# Leave the boot as it was: another run may follow in it.
restore_perf=0
cleanup() {
	kill "${cpid:-}" "${spid:-}" 2>/dev/null
	rdma link del "${dev0:-sroce0}" 2>/dev/null
	ip netns del "$ns" 2>/dev/null
	ip link del veth0 2>/dev/null
	[ "$restore_perf" = 0 ] ||
		sysctl -qw kernel.perf_cpu_time_max_percent="$old_pct" \
			kernel.perf_event_max_sample_rate="$old_rate"
}
trap cleanup EXIT

ip netns add "$ns" || die "netns"
ip link add veth0 mtu "$mtu" type veth peer name veth1 mtu "$mtu" netns "$ns" || die "veth"
ip addr add "$addr0/24" dev veth0
ip link set veth0 up
ip -n "$ns" addr add "$addr1/24" dev veth1
ip -n "$ns" link set veth1 up
ip -n "$ns" link set lo up

if [ "$driver" = rxe ]; then
	modprobe rdma_rxe || die "no rdma_rxe"
	dev0=rxe0 dev1=rxe1 type=rxe
else
	dev0=sroce0 dev1=sroce1 type=sroce
fi
rdma link add "$dev0" type "$type" netdev veth0 || die "rdma link add $dev0"
if [ "$mode" = netns ]; then
	ip netns exec "$ns" rdma link add "$dev1" type "$type" netdev veth1 ||
		die "rdma link add $dev1 (in $ns)"
	sns=$ns sdev=$dev1 cdev=$dev0
	poll 20 gid_v4 "$dev1" "$addr1" >/dev/null || die "no GID on $dev1"
else
	sns='' sdev=$dev0 cdev=$dev0
fi
poll 20 gid_v4 "$dev0" "$addr0" >/dev/null || die "no GID on $dev0"
cgid=$(gid_v4 "$dev0" "$addr0")
if [ "$mode" = netns ]; then
	sgid=$(gid_v4 "$dev1" "$addr1")
else
	sgid=$cgid
fi
[ "$mode" = netns ] && connect=$addr1 || connect=127.0.0.1

# A guest has only the software clock event. Under TCG its timer often
# fires late and in bursts, which the kernel takes for a sampling storm:
# it throttles the event on that CPU until a later tick, and a CPU busy
# in perftest then gave no samples for seconds (its idle moments did).
# Raise the rate limit so far that it never throttles (the rate first: it
# cannot be written while the time limit is off), put both back on exit,
# and say below what each CPU gave and how much of it perf saw idle.
freq=4000
old_rate=$(sysctl -n kernel.perf_event_max_sample_rate) || die "perf sysctls"
old_pct=$(sysctl -n kernel.perf_cpu_time_max_percent) || die "perf sysctls"
if [ "$old_pct" != 0 ] && [ "$old_pct" != 100 ]; then
	sysctl -qw kernel.perf_event_max_sample_rate=10000000 \
		kernel.perf_cpu_time_max_percent=0 || die "perf sysctls"
	restore_perf=1
fi

tool=ib_$test
args=(-F -p "$port" -s "$size" -D "$secs" -q "$qps")
${sns:+ip netns exec "$sns"} "$tool" -d "$sdev" -x "$sgid" "${args[@]}" \
	>"$work/server" 2>&1 &
spid=$!
poll 20 listening "$sns" "$port" || die "server never listened: $(cat "$work/server")"
"$tool" -d "$cdev" -x "$cgid" "${args[@]}" "$connect" >"$work/client" 2>&1 &
cpid=$!
# Profile the steady state: from the first second after the client starts
# to just before perftest's duration ends.
sleep 2
read -r u0 s0 si0 i0 id0 < <(cpu_ticks)
rx0=$(cat /sys/class/net/veth0/statistics/tx_bytes)
prof_secs=$((secs - 3))
perf record -a -g -F "$freq" -o "$work/perf.data" -- sleep "$prof_secs" \
	>"$work/perf.log" 2>&1
read -r u1 s1 si1 i1 id1 < <(cpu_ticks)
rx1=$(cat /sys/class/net/veth0/statistics/tx_bytes)
wait "$cpid"; crc=$?
wait "$spid"
[ "$crc" = 0 ] || { cat "$work/client"; die "client failed ($crc)"; }

tot=$(((u1 - u0) + (s1 - s0) + (si1 - si0) + (i1 - i0) + (id1 - id0)))
pct() { awk -v a="$1" -v t="$tot" 'BEGIN { printf "%.1f", t ? 100 * a / t : 0 }'; }
bw=$(awk '/#bytes/ { armed = 1; next } armed && $1 ~ /^[0-9]+$/ { print $4; exit }' "$work/client")
echo "== $driver $mode $tool -s $size -q $qps, MTU $mtu, ${secs}s"
echo "BW average: $bw MB/s (perftest, client)"
echo "veth0 tx bytes during the profile: $((rx1 - rx0))"
echo "CPU over the profile (all CPUs): user $(pct $((u1 - u0)))%," \
	"system $(pct $((s1 - s0)))%, softirq $(pct $((si1 - si0)))%," \
	"irq $(pct $((i1 - i0)))%, idle $(pct $((id1 - id0)))%"
throttles=$(perf report -i "$work/perf.data" --stats 2>/dev/null |
	awk '$1 == "THROTTLE" { print $3; exit }')
per_cpu=$(perf report -i "$work/perf.data" --sort cpu --stdio \
	-F sample,cpu -g none 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ { printf "cpu%d %d ", $2, $1 }')
# The idle loop's symbols (x86 guests; others count as busy here).
idle_perf=$(perf report -i "$work/perf.data" --no-children --sort symbol \
	--stdio -g none 2>/dev/null |
	awk '$3 ~ /^(native_safe_halt|pv_native_safe_halt|acpi_safe_halt|default_idle|acpi_idle_do_entry|poll_idle)$/ {
		sub(/%/, "", $1); t += $1 } END { printf "%.1f", t }')
idle_stat=$(pct $((id1 - id0)))
echo "perf: ${throttles:-0} throttles; samples per CPU (expected about" \
	"$((freq * prof_secs)) each): $per_cpu; idle in perf's samples" \
	"${idle_perf}% against /proc/stat's ${idle_stat}%"
# Under TCG some busy time lands in the idle loop even on a quiet host
# (about 20 points more idle than /proc/stat): compare shares among the
# busy samples only. With other guests running nearly all of it did.
awk -v a="$idle_perf" -v b="$idle_stat" 'BEGIN { exit !(a - b > 40) }' &&
	echo "guest-profile: WARNING: perf saw ${idle_perf}% idle against" \
		"/proc/stat's ${idle_stat}% (is the host busy?): most busy" \
		"samples landed in the idle loop; this profile says little"
echo
echo "== flat profile (self), top 80"
perf report -i "$work/perf.data" --no-children --sort symbol --stdio \
	--percent-limit 0.1 -g none 2>/dev/null | grep -E '^ +[0-9]' |
	head -n 80
echo
echo "== by caller chain into the driver (children), top 60"
perf report -i "$work/perf.data" --children --sort symbol --stdio \
	--percent-limit 1 -g none 2>/dev/null | grep -E '^ +[0-9]' | head -n 60
# The guest's symbols do not resolve elsewhere (KASLR, its modules): keep
# the reports with their call chains, resolved here, beside the data.
perf report -i "$work/perf.data" --children --sort symbol --stdio \
	-g graph,0.5,caller --percent-limit 0.5 >"$out/report-children.txt" 2>/dev/null
perf report -i "$work/perf.data" --no-children --sort symbol --stdio \
	-g graph,0.5,callee --percent-limit 0.2 >"$out/report-self.txt" 2>/dev/null
cp "$work/perf.data" "$work/perf.log" "$out/" 2>/dev/null || true
