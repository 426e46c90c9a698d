# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Shared by fault_storm.sh and soak.sh, sourced after lib.sh: storm in the
# background and its summary, netem on both ends of a two_hosts veth,
# port-counter snapshots, carrier flaps. The sourcing script sets IF0 and
# IF1 (the veth's ends: IF1 in $NS), DEV0, DEV1, G0, G1 (two_hosts), work
# (make_work_dir), here (the directory of storm), and storm's shape:
# rc_pairs, ud_pairs, depth, max_len, slack_ms, known_defects.
#
# Under TCG every process costs a few hundred milliseconds: the helpers
# below read files with the shell's read, and run tc and rdma once per
# step rather than once per device or counter.

# retry_budget_ms TIMEOUT RETRY_CNT: how long an RC QP tries without an
# answer before it fails: RETRY_CNT + 1 timeouts of 4.096 us * 2^TIMEOUT.
retry_budget_ms() {
	echo $(( ($2 + 1) * (4096 << $1) / 1000000 ))
}

# netem [SPEC]: a new netem root qdisc (counters at zero) with SPEC on
# both ends of the veth; without SPEC it only queues. One tc per end.
netem() {
	local cmds="qdisc del dev IF root
qdisc add dev IF root netem limit 10000 ${1:-}"
	tc -batch - <<<"${cmds//IF/$IF0}" &&
		tc -n "$NS" -batch - <<<"${cmds//IF/$IF1}"
}
# netem_setup: an idle netem root qdisc on both ends (netem's first del
# needs one to delete), removed on exit
netem_setup() {
	tc qdisc add dev "$IF0" root netem limit 10000 &&
		tc -n "$NS" qdisc add dev "$IF1" root netem limit 10000 ||
		return
	on_exit "tc qdisc del dev $IF0 root"
}

# netem_stats: what netem did on each end; it counts the packets it
# dropped, not those it duplicated, corrupted or reordered.
netem_stats() {
	local end out line=
	for end in "$IF0" "$IF1"; do
		if [ "$end" = "$IF0" ]; then
			out=$(tc -s qdisc show dev "$IF0")
		else
			out=$(tc -n "$NS" -s qdisc show dev "$IF1")
		fi
		if [[ $out =~ Sent\ [0-9]+\ bytes\ ([0-9]+)\ pkt\ \(dropped\ ([0-9]+) ]]; then
			line+="$end sent ${BASH_REMATCH[1]} pkt, dropped ${BASH_REMATCH[2]}; "
		fi
	done
	echo "${line%; }"
}

# read_value FILE VAR: the first word of FILE into VAR, without a process
read_value() {
	local -n into=$2
	read -r into _ <"$1"
}

# counter DEV NAME VAR: a port counter of DEV into VAR
counter() {
	read_value "/sys/class/infiniband/$1/ports/1/hw_counters/$2" "$3"
}

# udp_in FILE...: UDP datagrams delivered to sockets (IPv4's Udp
# InDatagrams and IPv6's Udp6InDatagrams), from /proc/net/snmp and
# /proc/net/snmp6 as cat printed them
udp_in() {
	awk '$1 == "Udp:" && $2 == "InDatagrams" { for (i = 2; i <= NF; i++) col[$i] = i; next }
		$1 == "Udp:" { n += $col["InDatagrams"] }
		$1 == "Udp6InDatagrams" { n += $2 }
		END { print n + 0 }' "$@"
}

# Port counters of both devices, before and after a case: "SIDE:NAME".
# One netlink dump for both ("link DEV/1" and its "NAME VALUE" pairs, on
# that line up to iproute2 6.1, a pair per line below it from 6.15): each
# hw_counters file read would query the device again. With
# them, each side's UDP datagrams delivered ("SIDE:udp_in"): only RoCE
# uses UDP in these namespaces, so UDP's count is the packets that
# reached sroce's handler.
declare -A ctr_before ctr_after
snapshot() {
	local -n into=$1
	local words side='' i
	into=()
	into[0:udp_in]=$(udp_in /proc/net/snmp /proc/net/snmp6)
	into[1:udp_in]=$(ip netns exec "$NS" cat /proc/net/snmp /proc/net/snmp6 | udp_in)
	while read -r -a words; do
		i=0
		if [ "${words[0]:-}" = link ]; then
			case ${words[1]:-} in
			"$DEV0/1") side=0 ;;
			"$DEV1/1") side=1 ;;
			*) side='' ;;
			esac
			i=2
		fi
		[ -n "$side" ] || continue
		for (( ; i + 1 < ${#words[@]}; i += 2 )); do
			# shellcheck disable=SC2034 # into names the caller's array
			into[$side:${words[i]}]=${words[i + 1]}
		done
	done < <(rdma statistic show)
}

# moved SIDE NAME: how much a counter of DEV0 (0) or DEV1 (1) moved
moved() {
	echo $(( ${ctr_after[$1:$2]:-0} - ${ctr_before[$1:$2]:-0} ))
}

# rx_still: the devices' received packets have not changed for 200 ms
# (nothing in flight any more: netem's delayed copies have arrived);
# rx_last and rx_since are its memory, cleared before the first call
rx_last='' rx_since=0
rx_still() {
	local r0 r1
	counter "$DEV0" rcvd_pkts r0
	counter "$DEV1" rcvd_pkts r1
	if [ "$r0 $r1" != "$rx_last" ]; then
		rx_last="$r0 $r1" rx_since=$(now_ms)
		return 1
	fi
	[ $(( $(now_ms) - rx_since )) -ge 200 ]
}

# require_rx_accounted: on each side, every datagram UDP handed to sroce
# was counted by it as received, as failing the ICRC, or as malformed
# (a packet dropped uncounted would show as a difference)
require_rx_accounted() {
	local side udp seen
	for side in 0 1; do
		udp=$(moved $side udp_in)
		seen=$(( $(moved $side rcvd_pkts) + $(moved $side rx_icrc_encapsulated) +
			 $(moved $side rx_malformed) ))
		[ "$udp" = "$seen" ] ||
			case_why+=" side $side: UDP delivered $udp datagrams, sroce counted $seen (rcvd_pkts + rx_icrc_encapsulated + rx_malformed);"
	done
}

# require_quiet_within MARGIN_MS: no RC send queue with work waited
# longer for a completion than the retry budget and MARGIN_MS (what a
# guest's scheduling may add): a QP either makes progress or fails
# within its budget, never hangs in between
require_quiet_within() {
	local quiet budget
	quiet=$(field max_sq_quiet_ms) budget=$(field budget_ms)
	[ "$quiet" -le $((budget + $1)) ] ||
		case_why+=" a send queue ($(field max_sq_quiet_qp)) waited $quiet ms for a completion, more than the retry budget $budget ms + $1 ms;"
}

# moved_both NAME: the counter's movement on both devices together
moved_both() {
	echo $(( ${ctr_after[0:$1]:-0} - ${ctr_before[0:$1]:-0} +
		 ${ctr_after[1:$1]:-0} - ${ctr_before[1:$1]:-0} ))
}

# counters_moved: every counter that moved, per device
counters_moved() {
	local side key name list out=
	for side in 0 1; do
		list=()
		for key in "${!ctr_after[@]}"; do
			[ "${key%%:*}" = $side ] || continue
			name=${key#*:}
			[ "${ctr_after[$key]}" = "${ctr_before[$key]:-0}" ] ||
				list+=("$name=+$(( ${ctr_after[$key]} - ${ctr_before[$key]:-0} ))")
		done
		[ $side = 0 ] && out+="$DEV0:" || out+="; $DEV1:"
		out+=" ${list[*]}"
	done
	echo "$out"
}

# storm's summary line, as summary[NAME]=VALUE
declare -A summary
read_summary() {
	local line kv
	summary=()
	line=$(grep -m 1 "^storm: summary " "$work/storm.out")
	for kv in ${line#storm: summary }; do
		summary[${kv%%=*}]=${kv#*=}
	done
}

# field NAME: a value of storm's summary (0 without one)
field() {
	echo "${summary[$1]:-0}"
}

case_why=
# require_moved NAME: the counter must have moved on the devices together
require_moved() {
	[ "$(moved_both "$1")" -gt 0 ] || case_why+=" $1 did not move;"
}

# require_eq WHAT GOT WANT
require_eq() {
	[ "$2" = "$3" ] || case_why+=" $1 is $2, want $3;"
}

storm_pid=
# A storm still running at exit is killed (one entry: storm_pid is empty
# between storms, and an old PID may belong to another process by then).
on_exit '[ -z "$storm_pid" ] || kill "$storm_pid"'
# storm_start NAME SEED ARGS...: storm in the background, its output in
# $work/storm.out; the counters snapshotted first.
storm_start() {
	local name=$1 seed=$2
	shift 2
	case_why=
	case_name=$name
	case_t0=$(now_ms)
	snapshot ctr_before
	"$here/storm" -a "$DEV0" -g "$G0" -b "$DEV1" -G "$G1" -q "$rc_pairs" \
		-u "$ud_pairs" -d "$depth" -L "$max_len" -S "$slack_ms" \
		-K $known_defects -s "$seed" "$@" >"$work/storm.out" 2>&1 &
	storm_pid=$!
}

# storm_exited: storm is gone or a zombie (lib.sh pid_gone)
storm_exited() {
	pid_gone "$storm_pid"
}

# storm_wait SECONDS: storm must exit 0 within SECONDS (else it hung:
# where it waits in the kernel is shown, and it is killed; a process
# stuck in the kernel is not waited for).
storm_wait() {
	local rc line
	if ! wait_until "$1" storm_exited; then
		case_why+=" storm still running after $1 s (a hang);"
		read -r line <"/proc/$storm_pid/wchan" &&
			ktap_diag "$case_name: storm waits in $line:"
		while read -r line; do
			ktap_diag "$case_name:   $line"
		done <"/proc/$storm_pid/stack"
		kill -9 "$storm_pid" 2>/dev/null
	fi
	if wait_until 30 storm_exited; then
		wait "$storm_pid"
		rc=$?
		[ $rc = 0 ] || case_why+=" storm exited $rc;"
	else
		case_why+=" storm unkillable;"
	fi
	storm_pid=
	# Straggling packets (netem's delays, a peer's last resends) land
	# before the counters are read, unless other traffic goes on
	# (storm_settle=0: soak's perftest pairs).
	if [ "${storm_settle:-1}" = 1 ]; then
		rx_last=
		wait_until 20 rx_still ||
			case_why+=" packets still arriving 20 s after storm's end;"
	fi
	snapshot ctr_after
	read_summary
}

# storm_report: what happened, then the verdict
storm_report() {
	local line
	while IFS= read -r line; do
		case $line in
		"storm: traffic started" | "storm: ok") ;;
		*) ktap_diag "$case_name: $line" ;;
		esac
	done < <(head -n 60 "$work/storm.out")
	ktap_diag "$case_name: netem: $(netem_stats)"
	ktap_diag "$case_name: counters moved: $(counters_moved)"
	ktap_diag "$case_name: $(( $(now_ms) - case_t0 )) ms"
	if [ -z "$case_why" ]; then
		ktap_pass "$case_name"
	else
		ktap_fail "$case_name" "$case_why"
	fi
}
# traffic_mark, then traffic_flows: both devices received 50 packets
mark0=0 mark1=0
traffic_mark() {
	counter "$DEV0" rcvd_pkts mark0
	counter "$DEV1" rcvd_pkts mark1
}
traffic_flows() {
	local now0 now1
	counter "$DEV0" rcvd_pkts now0
	counter "$DEV1" rcvd_pkts now1
	[ $(( now0 - mark0 )) -ge 50 ] && [ $(( now1 - mark1 )) -ge 50 ]
}

# ports_are STATE: both ports in STATE (DOWN, ACTIVE)
ports_are() {
	local s0 s1
	read -r _ s0 <"/sys/class/infiniband/$DEV0/ports/1/state"
	read -r _ s1 <"/sys/class/infiniband/$DEV1/ports/1/state"
	[ "$s0" = "$1" ] && [ "$s1" = "$1" ]
}

# link_down: both ports go down (the veth's peer loses its carrier too)
link_down() {
	ip link set "$IF0" down && wait_until 20 ports_are DOWN ||
		case_why+=" ports not DOWN;"
}

link_up() {
	ip link set "$IF0" up && wait_until 30 ports_are ACTIVE ||
		case_why+=" ports not ACTIVE again;"
}

# storm_running_and_flowing: storm set up and traffic crossing the link
storm_running_and_flowing() {
	wait_until 120 grep -q "^storm: traffic started" "$work/storm.out" ||
		{ case_why+=" storm did not start;"; return 1; }
	traffic_mark
	wait_until 60 traffic_flows || { case_why+=" no traffic;"; return 1; }
}

# rounds: storm's count of rounds in which every RC QP completed
# something (-p), 0 before the first
rounds() {
	local n=0
	[ -e "$work/progress" ] && read -r n <"$work/progress"
	echo "${n:-0}"
}

# every_qp_moved_since N: two more rounds than N: every RC QP completed
# something after the moment N was read
every_qp_moved_since() {
	[ "$(rounds)" -ge $(( $1 + 2 )) ]
}
