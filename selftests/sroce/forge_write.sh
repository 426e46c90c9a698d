#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The responder refuses a WRITE whose packets do not add up to what it
# claims. rc_target (in a namespace) puts an RC QP with the remote write
# right and 4 receives posted in RTS, path MTU 1024 over a 9000-byte
# link; forge_write.py sends it WRITE messages from a raw socket and
# reads the answer off the wire.
#
# Genuine WRITEs (FIRST + LAST, one with immediate data and a padded
# LAST) are acknowledged and land exactly (not a byte more), and the one
# with immediate completes its receive with its length and value. Then,
# each at a fresh QP, WRITEs whose packets carry less than the RETH's
# length (with immediate data: its receive must not complete as if the
# bytes came), more than it, a FIRST shorter than the path MTU, an ONLY,
# a MIDDLE and a LAST longer than it: each is refused with a NAK
# (invalid request; remote access for the one running past its length,
# as for any access outside the range the RETH named), the QP goes to
# the error state and every receive completes in error. An empty LAST,
# which no path MTU allows, is dropped as malformed: no answer, the QP
# stays as it was, and the genuine LAST sent again completes the WRITE.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/rc_target" ] || ktap_skip_all "rc_target not built"
ktap_plan 13

two_hosts fw 10.85.0 || ktap_skip_all "cannot build the two-host topology"
# Room for packets longer than the path MTU (the QPs keep theirs, 1024).
ip link set fw0 mtu 9000 && nsx ip link set fw1 mtu 9000 ||
	ktap_skip_all "cannot set the veth's MTU to 9000"
make_work_dir

# NAK syndromes (AETH): invalid request, remote access error
NAK_INV_REQ=0x61
NAK_REM_ACCESS=0x62
IBV_QPS_RTS=3
IBV_QPS_ERR=6
IBV_WC_SUCCESS=0
IBV_WC_RECV_RDMA_WITH_IMM=129
RECV_WQES=4

# start_target TAG: an rc_target in write mode, its output in $work/TAG;
# sets target (its pid), qpn, rkey and va. Holding its pipe open keeps it
# alive; stop_target closes it, and the target reports what it saw.
# Return: 1 if it did not come up.
start_target() {
	local tag=$1
	mkfifo "$work/$tag.in"
	nsx "$here/rc_target" "$DEV1" "$G1" 10.85.0.1 100 1 write \
		<"$work/$tag.in" >"$work/$tag" 2>&1 &
	target=$!
	exec {keep}>"$work/$tag.in"
	on_exit "kill $target 2>/dev/null"
	if ! wait_until 10 grep -q '^qpn=' "$work/$tag"; then
		exec {keep}>&-
		return 1
	fi
	eval "$(sed -n 's/^qpn=\([0-9]*\) rkey=\([0-9]*\) va=\([0-9]*\) len=\([0-9]*\)$/qpn=\1 rkey=\2 va=\3/p' "$work/$tag")"
}
# stop_target [N]: the target reports once N completions came (default
# all its receives')
stop_target() {
	echo "${1:-$RECV_WQES}" >&$keep
	exec {keep}>&-
	wait "$target"
}

# forge PSN OFFSET LEN PAYLOADS [--imm N] [--skip N]: one WRITE message
# of LEN bytes at OFFSET into the target's buffer, packets of PAYLOADS
# bytes; prints the syndrome of the answer ("none" if there was none)
forge() {
	local psn=$1 off=$2 len=$3 payloads=$4
	shift 4
	python3 "$here/forge_write.py" --src 10.85.0.1 --dst 10.85.0.2 \
		--qpn "$qpn" --rkey "$rkey" --va $((va + off)) --psn "$psn" \
		--len "$len" --payloads "$payloads" "$@" |
		sed -n 's/^answer \(syndrome=\)\{0,1\}\(0x[0-9a-f]*\|none\|unheard\).*/\2/p'
}

# is_ack SYNDROME: an ACK (not a NAK, whatever credits it carries)
is_ack() {
	case $1 in
	0x[01]?) return 0 ;;
	esac
	return 1
}

# report_field TAG FIELD: FIELD of the target's report
report_field() {
	sed -n "s/^$2=//p" "$work/$1"
}
# receives_in_error TAG: every receive completed, none successfully
receives_in_error() {
	[ "$(grep -c '^wc ' "$work/$1")" -eq "$RECV_WQES" ] &&
		! grep -q "^wc .*status=$IBV_WC_SUCCESS " "$work/$1"
}

# only_one_completed TAG: the genuine WRITE with immediate's receive
# completed and no other did; all were completed, the QP is in error
only_one_completed() {
	[ "$(grep -c "^wc .*status=$IBV_WC_SUCCESS " "$work/$1")" -eq 1 ] &&
		[ "$(grep -c '^wc ' "$work/$1")" -eq "$RECV_WQES" ] &&
		[ "$(report_field "$1" state)" -eq "$IBV_QPS_ERR" ]
}
# nak_and_error TAG WANT SYNDROME: SYNDROME is NAK WANT, and the target's
# QP ended in the error state with every receive completed in error
nak_and_error() {
	[ "$3" = "$2" ] && [ "$(report_field "$1" state)" -eq "$IBV_QPS_ERR" ] &&
		receives_in_error "$1"
}

# ctr NAME: the target device's port counter NAME
ctr() {
	nsx rdma statistic show link "$DEV1/1" | grep -o "$1 [0-9]*" |
		awk '{ print $2 }'
}
# grown NAME FROM BY: counter NAME is at least FROM + BY
grown() {
	[ "$(ctr "$1")" -ge $(($2 + $3)) ]
}

# --- genuine WRITEs, then one short of its length, at one QP ---
# At offsets 0 (2048 bytes) and 2048 (2046, its LAST padded by 2): the
# buffer's first zero byte must be at 4094.
start_target genuine || ktap_skip_all "rc_target: $(cat "$work/genuine")"
syn=$(forge 100 0 2048 1024,1024)
ktap_diag "WRITE of 2048 bytes in 2 packets: answer $syn"
ktap_check "genuine_write_acked" is_ack "$syn"

syn=$(forge 102 2048 2046 1024,1022 --imm 0x1234)
ktap_diag "WRITE with immediate of 2046 bytes in 2 packets (the LAST padded): answer $syn"
ktap_check "genuine_write_imm_acked" is_ack "$syn"

syn=$(forge 104 4096 2048 1024,512 --imm 0x5678)
ktap_diag "WRITE with immediate claiming 2048 bytes, carrying 1536: answer $syn"
ktap_check "short_write_imm_refused" [ "$syn" = "$NAK_INV_REQ" ]
stop_target
ktap_diag "$(tr '\n' ' ' <"$work/genuine")"

ktap_check "genuine_writes_landed_exactly" \
	[ "$(report_field genuine first_zero)" = 4094 ]
first=$(grep -m1 '^wc ' "$work/genuine")
ktap_check "genuine_write_imm_completed" \
	[ "$first" = "wc opcode=$IBV_WC_RECV_RDMA_WITH_IMM status=$IBV_WC_SUCCESS byte_len=2046 imm=0x1234" ]
ktap_check "short_write_imm_not_completed" only_one_completed genuine

# refused CASE WANT LEN PAYLOADS: at a fresh QP, a WRITE of LEN bytes in
# packets of PAYLOADS bytes is answered by NAK WANT, the QP ends in the
# error state and no receive completes successfully
refused() {
	local c=$1 want=$2 syn
	start_target "$c" || {
		ktap_fail "$c" "rc_target: $(cat "$work/$c")"
		return
	}
	syn=$(forge 100 0 "$3" "$4")
	stop_target
	ktap_diag "$c: WRITE claiming $3 bytes in packets of $4: answer $syn, $(tr '\n' ' ' <"$work/$c")"
	ktap_check "$c" nak_and_error "$c" "$want" "$syn"
}

refused short_write_refused "$NAK_INV_REQ" 2048 1024,512
refused long_write_refused "$NAK_REM_ACCESS" 2048 1024,1024,1024
refused first_below_pmtu_refused "$NAK_INV_REQ" 1024 512,512
refused only_above_pmtu_refused "$NAK_INV_REQ" 2048 2048
refused middle_above_pmtu_refused "$NAK_INV_REQ" 4096 1024,2048,1024
refused last_above_pmtu_refused "$NAK_INV_REQ" 3072 1024,2048

# --- an empty LAST: dropped, and the genuine one sent again completes ---
# (Had the empty LAST ended the message, the second LAST would be a
# duplicate, acknowledged but not written: the first zero byte would be
# at 1024.)
why=
dropped_then_completed() {
	local m0 syn
	start_target dropped || { why="rc_target: $(cat "$work/dropped")"; return; }
	m0=$(ctr rx_malformed)
	syn=$(forge 100 0 2048 1024,0 --wait 0)
	if ! wait_until 10 grown rx_malformed "$m0" 1; then
		why="rx_malformed did not count the empty LAST"
		stop_target 0
		return
	fi
	syn=$(forge 100 0 2048 1024,1024 --skip 1)
	stop_target 0
	ktap_diag "empty LAST dropped; the LAST sent again: answer $syn, $(tr '\n' ' ' <"$work/dropped")"
	is_ack "$syn" && [ "$(report_field dropped state)" = "$IBV_QPS_RTS" ] &&
		[ "$(report_field dropped first_zero)" = 2048 ] &&
		! grep -q '^wc ' "$work/dropped" ||
		why="want an ACK, the QP in RTS ($IBV_QPS_RTS), 2048 bytes written and no completion"
}
dropped_then_completed
if [ -z "$why" ]; then
	ktap_pass "empty_last_dropped_then_completed"
else
	ktap_fail "empty_last_dropped_then_completed" "$why"
fi

ktap_finish
