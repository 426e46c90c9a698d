#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# The congestion-control knobs in debugfs, laid out as mlx5's cc_params:
# every file is there with ConnectX's default; a value written is read
# back (the firmware stores it: reads query it); a value out of range is
# refused with EINVAL, changes nothing and logs one line naming device
# and knob; writing np_cnp_prio sets np_cnp_prio_mode to 0, as ConnectX
# does; a device made afresh starts from the defaults. The same knobs in
# sysfs (ports/1/cc_params/, the stable interface), and the QoS settings
# (ports/1/qos/: trust, dscp2prio, ECN per priority) with ConnectX's
# defaults, read back after writes, EINVAL for what is not a setting.
# tools/sroce-qos sets them; what it keeps (--persist) comes back when
# the device is made again, through udev and tools/udev/90-sroce-qos.rules.
. "$(dirname "$0")/lib.sh"

require_sroce
[ -d /sys/kernel/debug/sroce ] || ktap_skip_all "no sroce debugfs"
ktap_plan 11

# name default min max, as Documentation/dcqcn.rst lists them
knobs="rp_clamp_tgt_rate 0 0 1
rp_clamp_tgt_rate_ati 1 0 1
rp_time_reset 300 1 1000000
rp_byte_reset 32767 0 32767
rp_threshold 1 1 31
rp_ai_rate 5 1 400000
rp_hai_rate 50 1 400000
rp_max_rate 0 0 400000
rp_min_dec_fac 50 0 100
rp_min_rate 1 1 400000
rp_rate_to_set_on_first_cnp 0 0 400000
rp_dce_tcp_g 1019 0 1023
rp_dce_tcp_rtt 1 1 131071
rp_rate_reduce_monitor_period 4 1 1000000
rp_initial_alpha_value 1023 0 1023
rp_gd 11 0 15
np_min_time_between_cnps 4 0 1000000
np_cnp_dscp 48 0 63
np_cnp_prio_mode 0 0 1
np_cnp_prio 6 0 7"

# verdict NAME PROBLEMS: pass when PROBLEMS is empty
verdict() {
	if [ -z "$2" ]; then ktap_pass "$1"; else ktap_fail "$1" "$2"; fi
}

loopback_device sroce_cc cc 10.86.0
dir=/sys/kernel/debug/sroce/sroce_cc/cc_params

# The directory holds exactly these files, each at its default.
bad=''
# shellcheck disable=SC2034 # min and max are for the later cases
while read -r name def min max; do
	v=$(cat "$dir/$name" 2>/dev/null) || { bad+=" $name:missing"; continue; }
	[ "$v" = "$def" ] || bad+=" $name=$v(want $def)"
done <<<"$knobs"
[ "$(find "$dir" -type f | wc -l)" = 20 ] || bad+=" $(find "$dir" -type f | wc -l) files"
verdict defaults_as_connectx "$bad"

# Both range ends are taken and read back.
bad=''
while read -r name def min max; do
	for v in "$max" "$min" "$def"; do
		echo "$v" >"$dir/$name" 2>/dev/null || bad+=" $name=$v:refused"
		[ "$(cat "$dir/$name")" = "$v" ] || bad+=" $name=$v:not-read-back"
	done
done <<<"$knobs"
verdict range_ends_read_back "$bad"

# A refusal is logged, naming device, knob and range (first, before the
# rate limit of the cases below can hide it).
(echo 64 >"$dir/np_cnp_dscp") 2>/dev/null
n=$(kmsg_since_start | grep -c 'sroce_cc: cc_params/np_cnp_dscp: 64 is out of range 0\.\.63')
verdict refusal_logged "$([ "$n" = 1 ] || echo "$n log lines for np_cnp_dscp=64")"

# One past either end: EINVAL, value unchanged.
bad=''
while read -r name def min max; do
	for v in $((max + 1)) $([ "$min" -gt 0 ] && echo $((min - 1))); do
		err=$( (echo "$v" >"$dir/$name") 2>&1) && bad+=" $name=$v:taken"
		[[ $err == *"Invalid argument"* ]] || bad+=" $name=$v:'$err'"
		[ "$(cat "$dir/$name")" = "$def" ] || bad+=" $name:changed"
	done
done <<<"$knobs"
verdict out_of_range_einval "$bad"

# Not a number: refused too.
err=$( (echo fast >"$dir/rp_ai_rate") 2>&1) && err=taken
[[ $err == *"Invalid argument"* ]] && err=''
verdict not_a_number_refused "$err"

# np_cnp_prio sets np_cnp_prio_mode to 0.
echo 1 >"$dir/np_cnp_prio_mode"
got=$(cat "$dir/np_cnp_prio_mode")
echo 3 >"$dir/np_cnp_prio"
got+=" $(cat "$dir/np_cnp_prio_mode") $(cat "$dir/np_cnp_prio")"
verdict cnp_prio_sets_mode_0 "$([ "$got" = "1 0 3" ] || echo "mode, then mode and prio: $got")"

# A new device starts from the defaults.
echo 77 >"$dir/rp_ai_rate"
v=$(cat "$dir/rp_ai_rate")
if [ "$v" != 77 ]; then
	v="rp_ai_rate $v before link del"
elif ! rdma link del sroce_cc || ! link_add sroce_cc cc0; then
	v="rdma link del/add failed"
else
	v=$(cat "$dir/rp_ai_rate" 2>/dev/null)
	[ "$v" = 5 ] && v='' || v="rp_ai_rate $v after link add"
fi
verdict new_device_defaults "$v"

# sysfs cc_params: the same 20 knobs, the same firmware values.
sys=/sys/class/infiniband/sroce_cc/ports/1
bad=''
[ "$(find "$sys/cc_params" -type f | wc -l)" = 20 ] ||
	bad+=" $(find "$sys/cc_params" -type f | wc -l) files"
echo 9 >"$sys/cc_params/rp_ai_rate" || bad+=" sysfs write refused"
[ "$(cat "$dir/rp_ai_rate")" = 9 ] || bad+=" debugfs reads $(cat "$dir/rp_ai_rate")"
echo 33 >"$dir/np_cnp_dscp"
[ "$(cat "$sys/cc_params/np_cnp_dscp")" = 33 ] || bad+=" sysfs reads np_cnp_dscp $(cat "$sys/cc_params/np_cnp_dscp")"
err=$( (echo 64 >"$sys/cc_params/np_cnp_dscp") 2>&1) && bad+=" 64 taken"
[[ $err == *"Invalid argument"* ]] || bad+=" np_cnp_dscp=64: '$err'"
verdict sysfs_cc_params "$bad"

# sysfs qos: defaults, writes read back, refusals.
bad=''
want_map=$(for d in $(seq 0 63); do printf '%s ' $((d >> 3)); done)
[ "$(cat "$sys/qos/trust")" = pcp ] || bad+=" trust $(cat "$sys/qos/trust")"
[ "$(cat "$sys/qos/ecn_rp_enable")" = 1,1,1,1,1,1,1,1 ] || bad+=" rp $(cat "$sys/qos/ecn_rp_enable")"
[ "$(cat "$sys/qos/ecn_np_enable")" = 1,1,1,1,1,1,1,1 ] || bad+=" np $(cat "$sys/qos/ecn_np_enable")"
[ "$(cat "$sys/qos/dscp2prio") " = "$want_map" ] || bad+=" dscp2prio $(cat "$sys/qos/dscp2prio")"
echo dscp >"$sys/qos/trust" && echo "46 3" >"$sys/qos/dscp2prio" &&
	echo 1,0,1,1,1,1,1,0 >"$sys/qos/ecn_rp_enable" &&
	echo 0,0,0,1,0,0,0,0 >"$sys/qos/ecn_np_enable" || bad+=" a write refused"
[ "$(cat "$sys/qos/trust")" = dscp ] || bad+=" trust not dscp"
[ "$(cut -d' ' -f47 "$sys/qos/dscp2prio")" = 3 ] || bad+=" dscp 46 -> $(cut -d' ' -f47 "$sys/qos/dscp2prio")"
[ "$(cat "$sys/qos/ecn_rp_enable")" = 1,0,1,1,1,1,1,0 ] || bad+=" rp $(cat "$sys/qos/ecn_rp_enable")"
[ "$(cat "$sys/qos/ecn_np_enable")" = 0,0,0,1,0,0,0,0 ] || bad+=" np $(cat "$sys/qos/ecn_np_enable")"
for w in "trust:pcp2" "dscp2prio:64 1" "dscp2prio:1 8" "dscp2prio:1 2 3" \
	 "dscp2prio:4294967296 1" "dscp2prio:-1 1" \
	 "ecn_rp_enable:1,1" "ecn_np_enable:1,1,1,1,1,1,1,2"; do
	err=$( (echo "${w#*:}" >"$sys/qos/${w%%:*}") 2>&1) && bad+=" '$w' taken"
	[[ $err == *"Invalid argument"* ]] || bad+=" '$w': '$err'"
done
[ "$(cat "$sys/qos/ecn_rp_enable")" = 1,0,1,1,1,1,1,0 ] || bad+=" a refusal changed rp"
verdict sysfs_qos "$bad"

# tools/sroce-qos on the device: by netdev, sets through sysfs, refusals
# exit 1 with a message, JSON that reflects the device.
qos_tool=$(command -v sroce-qos || echo "$(dirname "$0")/../../../tools/sroce-qos")
if [ ! -x "$qos_tool" ] || ! command -v python3 >/dev/null; then
	ktap_skip sroce_qos_tool "tools/sroce-qos not found"
else
	bad=''
	"$qos_tool" -i cc0 --trust pcp --ecn_rp 1,1,1,1,1,1,1,1 \
		--dscp2prio set,10,7 --cc rp_min_rate=3,np_cnp_dscp=40 >/dev/null ||
		bad+=" sets failed"
	[ "$(cat "$sys/qos/trust")" = pcp ] || bad+=" trust"
	[ "$(cut -d' ' -f11 "$sys/qos/dscp2prio")" = 7 ] || bad+=" dscp 10"
	[ "$(cat "$sys/cc_params/rp_min_rate")" = 3 ] || bad+=" rp_min_rate"
	json=$("$qos_tool" -d sroce_cc --json)
	python3 -c 'import json, sys; s = json.load(sys.stdin)
assert s["cc_params"]["np_cnp_dscp"] == 40 and s["dscp2prio"][10] == 7
assert s["ecn_rp"] == [1] * 8 and len(s["cc_params"]) == 20' <<<"$json" ||
		bad+=" json: $json"
	err=$("$qos_tool" -d sroce_cc --cc np_cnp_dscp=64 2>&1) && bad+=" 64 taken"
	[[ $err == *"Invalid argument"* ]] || bad+=" np_cnp_dscp=64: '$err'"
	verdict sroce_qos_tool "$bad"
fi

# sroce-qos --persist and the udev rule, end to end: udevd (started here
# if none runs) runs the rule's `sroce-qos --restore` on the device's
# "add" event, so kept settings survive rdma link del/add; --forget
# drops them and the device comes back with the defaults.
udevd=$(command -v systemd-udevd || echo /lib/systemd/systemd-udevd)
rule=$(dirname "$0")/../../../tools/udev/90-sroce-qos.rules
kept=/etc/sroce/qos/sroce_cc.json
# re_add: the device made afresh, its "add" event handled by udevd
re_add() {
	rdma link del sroce_cc && link_add sroce_cc cc0 &&
		wait_until 10 test -e "$sys/cc_params/np_cnp_dscp" &&
		udevadm settle -t 20
}
if [ ! -x "$qos_tool" ] || [ ! -x "$udevd" ] || [ ! -f "$rule" ] ||
	! command -v udevadm >/dev/null; then
	ktap_skip settings_kept_across_link_add "no udevd, udevadm or the rule"
elif [ -e "$kept" ]; then
	ktap_skip settings_kept_across_link_add "$kept exists already"
else
	bad=''
	if ! pgrep -x systemd-udevd >/dev/null; then
		"$udevd" --daemon >/dev/null 2>&1 && on_exit "udevadm control --exit"
	fi
	mkdir -p /run/udev/rules.d
	sed "s|/usr/sbin/sroce-qos|$(realpath "$qos_tool")|" "$rule" \
		>/run/udev/rules.d/90-sroce-qos.rules
	on_exit "rm -f /run/udev/rules.d/90-sroce-qos.rules; udevadm control --reload"
	# Only what this case wrote: a user's own files there stay.
	on_exit "rm -f $kept; rmdir /etc/sroce/qos /etc/sroce 2>/dev/null"
	udevadm control --reload || bad+=" no udevd"
	"$qos_tool" -d sroce_cc --trust dscp --ecn_np 1,1,1,1,1,1,0,1 \
		--cc np_cnp_dscp=26,rp_ai_rate=7 --persist || bad+=" --persist failed"
	[ -s "$kept" ] || bad+=" nothing in $kept"
	re_add || bad+=" re-add failed"
	wait_until 10 grep -qx 26 "$sys/cc_params/np_cnp_dscp" || bad+=" np_cnp_dscp not restored"
	[ "$(cat "$sys/qos/trust")" = dscp ] || bad+=" trust not restored"
	[ "$(cat "$sys/qos/ecn_np_enable")" = 1,1,1,1,1,1,0,1 ] || bad+=" ecn_np not restored"
	[ "$(cat "$sys/cc_params/rp_ai_rate")" = 7 ] || bad+=" rp_ai_rate not restored"
	"$qos_tool" -d sroce_cc --forget && [ ! -e "$kept" ] || bad+=" --forget left $kept"
	re_add || bad+=" second re-add failed"
	[ "$(cat "$sys/cc_params/np_cnp_dscp")" = 48 ] && [ "$(cat "$sys/qos/trust")" = pcp ] ||
		bad+=" forgotten settings came back"
	verdict settings_kept_across_link_add "$bad"
fi

ktap_finish
