#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# A hostile userspace cannot hurt the kernel through the shared rings:
# hostile_rings (C, libibverbs + stock librxe) finds the send, receive and
# completion rings of its QPs and CQs and writes garbage WQEs, impossible
# SGE counts and lengths, bad keys and opcodes, out-of-range producer
# indices and the kernel's own consumer indices into them, and rewrites
# WQEs while the kernel sends them; the same into an SRQ three QPs share
# while their peers SEND to them; and a seeded random walk of
# SROCE_HOSTILE_WALK actions (default 10,000, 2,000 on the debug kernel)
# over all of that on the SQs, RQs, CQs and SRQ of five pairs at once.
# Each of its cases is reported here as one result (what the kernel must
# answer is asserted in the program: error completions, QP in ERROR,
# flushes, refused doorbells, no stray bytes, no CQE in a slot userspace
# has not freed, QPs that work or flush after the walk). The program
# counts every hostile operation it made and prints the total. Then: the
# program ended by itself, its objects are gone, no module reference or
# slab leak, the CQ overruns it caused were reported, the device deletes,
# and (ktap_finish) the kernel log holds no splat.
# 4 MB of slab: coarse on 6.1; on the debug kernel kmemleak sees single objects.
#
# SROCE_HOSTILE_SEED (default 1) changes the garbage and the walk; the
# same seed repeats them.
. "$(dirname "$0")/lib.sh"

here=$(cd "$(dirname "$0")" && pwd)
prog=$here/hostile_rings
dev=sroce_hr
seed=${SROCE_HOSTILE_SEED:-1}
walk=${SROCE_HOSTILE_WALK:-$(debug_scale 10000 2000)}

require_sroce
[ -x "$prog" ] || ktap_skip_all "hostile_rings not built"
mapfile -t cases < <("$prog" -l)
[ ${#cases[@]} -gt 0 ] || ktap_skip_all "hostile_rings lists no cases"

loopback_device "$dev" hr 10.93.0

ktap_plan $(( ${#cases[@]} + 6 ))
ktap_diag "$dev on hr0, RoCE v2 GID index $gid"

tmp=$(mktemp -d)
on_exit "rm -rf $tmp"

sunreclaim_kb() {
	awk '/^SUnreclaim:/ { print $2 }' /proc/meminfo
}

# Lines of `rdma res show` that belong to a process named hostile_rings.
our_objects() {
	rdma res show 2>/dev/null | grep -c "comm hostile_rings"
}

no_objects_left() {
	[ "$(our_objects)" -eq 0 ]
}

slab_before=$(sunreclaim_kb)
refcnt_before=$(cat /sys/module/sroce/refcnt)

t0=$(now_ms)
timeout 600 "$prog" -d $dev -g "$gid" -s "$seed" -w "$walk" > "$tmp/out" 2>&1
rc=$?
t1=$(now_ms)

# Re-emit the program's results as ours; everything else is a diagnostic.
declare -A result reason
while IFS= read -r line; do
	if [[ $line =~ ^(not\ )?ok\ [0-9]+\ (#\ SKIP\ )?(.*)$ ]]; then
		name=${BASH_REMATCH[3]}
		if [ -n "${BASH_REMATCH[1]}" ]; then
			result[$name]=fail
		elif [ -n "${BASH_REMATCH[2]}" ]; then
			result[$name]=skip
		else
			result[$name]=pass
		fi
	elif [[ $line =~ ^(TAP\ version|1\.\.) ]]; then
		:
	else
		echo "# ${line#\# }"
	fi
done < "$tmp/out"

for c in "${cases[@]}"; do
	case ${result[$c]:-none} in
	pass) ktap_pass "$c" ;;
	skip) ktap_skip "$c" "skipped by hostile_rings" ;;
	fail) ktap_fail "$c" ;;
	none) ktap_fail "$c" "no result (hostile_rings exit status $rc)" ;;
	esac
done

ktap_diag "hostile_rings ran $(( (t1 - t0) / 1000 )) s, exit status $rc (seed $seed, walk of $walk actions)"
# 0 or 1 (a case failed); a signal, a timeout (124) or a bail-out is not.
if [ $rc -le 1 ] && grep -q "^# Totals:" "$tmp/out"; then
	ktap_pass "program_ran_to_completion"
else
	ktap_fail "program_ran_to_completion" "exit status $rc"
fi

if wait_until 30 no_objects_left; then
	ktap_pass "objects_released"
else
	ktap_fail "objects_released" "$(rdma res show | grep 'comm hostile_rings')"
fi

ktap_check "module_refcnt_unchanged" \
	test "$(cat /sys/module/sroce/refcnt)" = "$refcnt_before"

slab_after=$(sunreclaim_kb)
ktap_diag "SUnreclaim ${slab_before} kB -> ${slab_after} kB"
if [ $((slab_after - slab_before)) -lt 4096 ]; then
	ktap_pass "slab_growth_below_4MB"
else
	ktap_fail "slab_growth_below_4MB" \
		"grew by $((slab_after - slab_before)) kB"
fi

# The overruns cq_consumer_overwritten provoked are reported, not silent.
if kmsg_since_start | grep -q "CQ [0-9]* overrun"; then
	ktap_pass "cq_overrun_reported"
else
	ktap_fail "cq_overrun_reported" "no CQ overrun line in the kernel log"
fi

timeout 60 rdma link del $dev
if wait_until 30 ibdev_gone $dev; then
	ktap_pass "device_deleted"
else
	ktap_fail "device_deleted" "rdma link del did not complete"
fi

ktap_finish
