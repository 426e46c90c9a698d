#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# RDMA FLUSH (IBA 1.5): rdma_flush.py (pyverbs) runs each case on its own
# pair of RC QPs of one device, over a RoCE v2 loopback GID on a veth
# address: the capability advertised, FLUSH of a range after a WRITE and
# of a whole region, many FLUSHes through max_rd_atomic 1, and the four
# ways a FLUSH is refused with a remote access error. Kernels before 6.2
# and rdma-core before 45 have no FLUSH: skipped.
. "$(dirname "$0")/lib.sh"

require_sroce
command -v python3 >/dev/null || ktap_skip_all "python3 missing"
here=$(cd "$(dirname "$0")" && pwd)
dev=sroce_flush
cases=9

loopback_device "$dev" flsh 10.101.0

out=$(timeout 300 python3 "$here/rdma_flush.py" "$dev" "$gid" 2>&1)
rc=$?
case $out in
SKIP_ALL*) ktap_skip_all "${out#SKIP_ALL }" ;;
esac
ktap_plan $cases
seen=0
while read -r verdict name why; do
	case $verdict in
	PASS) ktap_pass "$name" ;;
	FAIL) ktap_fail "${name%:}" "$why" ;;
	SKIP) ktap_skip "${name%:}" "$why" ;;
	*) ktap_diag "$verdict $name $why"; continue ;;
	esac
	seen=$((seen + 1))
done <<< "$out"
[ $rc -eq 0 ] || ktap_diag "rdma_flush.py: exit status $rc"
for ((i = seen; i < cases; i++)); do
	ktap_fail "rdma_flush_case_$((i + 1))" "not run (exit status $rc)"
done
ktap_finish
