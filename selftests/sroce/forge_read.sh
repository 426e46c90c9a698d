#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A forged repeat of an RDMA READ costs no more than the responder's
# resource ring holds. rc_target (in a namespace) puts an RC QP with
# max_dest_rd_atomic 4 in RTS; forge_read.py sends it READ requests from a
# raw socket: eight genuine 4 KiB READs (4 responses each at path MTU
# 1024), then repeats that claim 64 KiB. A repeat of a READ no longer held
# (the oldest) is not answered at all; a repeat of one held is answered
# with that READ's own 4 responses, whatever length it claims; the QP
# still answers the next new READ.
#
# RDMA FLUSH (kernel 6.2+), at a second target with the FLUSH right: a
# FLUSH is answered by one empty READ response; repeats of it are
# answered again (never more than once each); a READ claiming the FLUSH's
# PSN is a forged repeat and is not answered; a FLUSH that arrives while
# every resource is still owed (max_dest_rd_atomic 1, held by a 16 MiB
# READ whose 16384 responses cannot all have left: the receive path sends
# at most a budget of them before it takes the next packet) is dropped,
# neither answered nor refused (rdma_rxe's requester sends such FLUSHes),
# and sent again after the READ it is answered: the QP did not fail.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/rc_target" ] || ktap_skip_all "rc_target not built"
ktap_plan 9

two_hosts fr 10.93.0 || ktap_skip_all "cannot build the two-host topology"
make_work_dir

# ctr NAME: the responder device's port counter NAME
ctr() {
	nsx rdma statistic show link "$DEV1/1" | grep -o "$1 [0-9]*" |
		awk '{ print $2 }'
}
# grown NAME FROM BY: counter NAME is at least FROM + BY
grown() {
	[ "$(ctr "$1")" -ge $(($2 + $3)) ]
}

# start_target TAG RQ_PSN MAX_DEST_RD_ATOMIC [flush]: an rc_target in the
# namespace, its output in $work/TAG; sets target (its pid), qpn, rkey
# and va. Holding its pipe open keeps it alive; stop_target closes it.
# Return: 1 if it did not come up.
start_target() {
	local tag=$1
	shift
	mkfifo "$work/$tag.in"
	nsx "$here/rc_target" "$DEV1" "$G1" 10.93.0.1 "$@" \
		<"$work/$tag.in" >"$work/$tag" 2>&1 &
	target=$!
	exec {keep}>"$work/$tag.in"
	on_exit "kill $target 2>/dev/null"
	wait_until 10 grep -q '^qpn=' "$work/$tag" || return 1
	eval "$(sed -n 's/^qpn=\([0-9]*\) rkey=\([0-9]*\) va=\([0-9]*\) len=\([0-9]*\)$/qpn=\1 rkey=\2 va=\3/p' "$work/$tag")"
}
stop_target() {
	exec {keep}>&-
	wait "$target"
}

start_target target 1000 4 || ktap_skip_all "rc_target: $(cat "$work/target")"

forge() {
	python3 "$here/forge_read.py" --src 10.93.0.1 --dst 10.93.0.2 \
		--qpn "$qpn" --rkey "$rkey" --va "$va" "$@"
}

# settle NAME: wait until counter NAME stops moving for half a second
settle() {
	local a b
	b=$(ctr "$1")
	while :; do
		nap 0.5
		a=$(ctr "$1")
		[ "$a" = "$b" ] && return
		b=$a
	done
}

# between LO X HI
between() {
	[ "$2" -ge "$1" ] && [ "$2" -le "$3" ]
}
# answered N ARGS...: send requests (forge ARGS) answered by at least N
# packets; once those left and the responder went quiet, print how many
# it sent
answered() {
	local n=$1 s
	shift
	s=$(ctr sent_pkts)
	forge "$@" >/dev/null
	wait_until 120 grown sent_pkts "$s" "$n"
	settle sent_pkts
	echo $(($(ctr sent_pkts) - s))
}
# repeats_answered N ARGS...: send N repeated requests (forge ARGS); once
# the responder counted them and went quiet, print how many packets it
# sent
repeats_answered() {
	local n=$1 d s
	shift
	d=$(ctr duplicate_request) s=$(ctr sent_pkts)
	forge "$@" >/dev/null
	wait_until 10 grown duplicate_request "$d" "$n"
	settle sent_pkts
	echo $(($(ctr sent_pkts) - s))
}

got=$(answered 32 --psn 1000 --step 4 --count 8 --len 4096)
ktap_diag "8 READs of 4 KiB: $got responses"
ktap_check "genuine_reads_answered" [ "$got" -eq 32 ]

got=$(repeats_answered 10 --psn 1000 --count 10 --len 65536)
ktap_diag "10 repeats of the oldest READ (no longer held), claiming 64 KiB: $got responses"
ktap_check "repeat_not_held_unanswered" [ "$got" -eq 0 ]

got=$(repeats_answered 10 --psn 1028 --count 10 --len 65536)
ktap_diag "10 repeats of the newest READ (held, 4 responses), claiming 64 KiB: $got responses"
ktap_check "repeat_costs_what_is_held" between 4 "$got" 40

got=$(answered 4 --psn 1032 --count 1 --len 4096)
ktap_check "next_read_answered" [ "$got" -eq 4 ]

stop_target

# --- RDMA FLUSH ---
flush_cases="flush_answered flush_repeats_answered_again
	flush_repeat_as_read_unanswered flush_with_resources_owed_dropped
	flush_after_drop_answered"
if ! start_target target2 5000 1 flush; then
	release=$(uname -r)
	major=${release%%.*} minor=${release#*.}
	minor=${minor%%.*}
	for c in $flush_cases; do
		if [ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 2 ]; }; then
			ktap_skip "$c" "no RDMA FLUSH before kernel 6.2"
		else
			ktap_fail "$c" "rc_target flush: $(cat "$work/target2")"
		fi
	done
	ktap_finish
fi
flush_psn=$((5001 + 16384))

got=$(answered 1 --flush --len 4096 --psn 5000 --count 1)
ktap_check "flush_answered" [ "$got" -eq 1 ]

got=$(repeats_answered 5 --flush --len 4096 --psn 5000 --count 5)
ktap_diag "5 repeats of the FLUSH: $got responses"
ktap_check "flush_repeats_answered_again" between 1 "$got" 5

got=$(repeats_answered 3 --psn 5000 --count 3 --len 4096)
ktap_diag "3 READs claiming the FLUSH's PSN: $got responses"
ktap_check "flush_repeat_as_read_unanswered" [ "$got" -eq 0 ]

# A READ of 16 MiB (PSNs 5001.., 16384 responses) holds the one resource
# while its responses leave; the FLUSH right behind it finds none free.
oos0=$(ctr out_of_sequence)
got=$(answered 16384 --psn 5001 --count 1 --len $((16 << 20)) \
	--flush-after $flush_psn)
ktap_diag "a READ of 16 MiB and a FLUSH: $got responses, $(($(ctr out_of_sequence) - oos0)) out of sequence"
ktap_check "flush_with_resources_owed_dropped" [ "$got" -eq 16384 ]

got=$(answered 1 --flush --len 4096 --psn $flush_psn --count 1)
ktap_check "flush_after_drop_answered" [ "$got" -eq 1 ]

stop_target
ktap_finish
