#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# guest-profile.sh: the guest half of tools/bench/sroce-profile. In one
# sroce-vm boot with a RoCE driver loaded, runs one perftest bandwidth test
# for a fixed time under `perf record -a -g` and prints where the CPUs went:
# the /proc/stat split (user, system, softirq, idle) over the test, the
# bytes moved, CPU time per GiB, and perf's flat and caller profiles.
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
	local cpu us ni sy id io irq sirq rest
	read -r cpu us ni sy id io irq sirq rest </proc/stat
	echo "$((us + ni)) $sy $sirq $irq $((id + io))"
}

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
	sns=$ns sdev=$dev1 saddr=$addr1 cdev=$dev0
	poll 20 gid_v4 "$dev1" "$addr1" >/dev/null || die "no GID on $dev1"
else
	sns='' sdev=$dev0 saddr=127.0.0.1 cdev=$dev0
fi
poll 20 gid_v4 "$dev0" "$addr0" >/dev/null || die "no GID on $dev0"
cgid=$(gid_v4 "$dev0" "$addr0")
if [ "$mode" = netns ]; then
	sgid=$(gid_v4 "$dev1" "$addr1")
else
	sgid=$cgid
fi
[ "$mode" = netns ] && connect=$addr1 || connect=127.0.0.1

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
perf record -a -g -o "$work/perf.data" -- sleep $((secs - 3)) \
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
echo
echo "== flat profile (self), top 45"
perf report -i "$work/perf.data" --no-children --sort symbol --stdio \
	--percent-limit 0.5 2>/dev/null | grep -v '^$' | grep -v '^#' |
	grep -E '^ +[0-9]' | head -n 45
echo
echo "== by caller chain into the driver (children), top 40"
perf report -i "$work/perf.data" --children --sort symbol --stdio \
	--percent-limit 2 -g none 2>/dev/null | grep -E '^ +[0-9]' | head -n 40
cp "$work/perf.data" "$out/perf.data" 2>/dev/null || true
