#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run the installed sroce kselftest collection (inside a test guest) with
# the stock kselftest runner, and turn its TAP output into an exit status.
#
#   run.sh [--smoke] [KSFT_DIR]
#
# --smoke runs the subset that proves the module works on a kernel:
# device add/del, port state, GIDs, verbs queries, UD and RC traffic
# between namespaces, perftest, RDMA CM (rping, ucmatose) and rxe exclusion.
set -uo pipefail

smoke_tests="link_add_del.sh port_state.sh gid_table.sh verbs_query.sh ud_traffic.sh rc_traffic.sh perftest.sh rdma_cm.sh rxe_exclusion.sh"
smoke=0
if [ "${1:-}" = "--smoke" ]; then
	smoke=1
	shift
fi
ksft_dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/build/ksft}
[ -x "$ksft_dir/run_kselftest.sh" ] || {
	echo "run.sh: no installed selftests in $ksft_dir (make -C selftests)" >&2
	exit 2
}

args=(-c sroce)
if [ $smoke -eq 1 ]; then
	args=()
	for t in $smoke_tests; do
		args+=(-t "sroce:$t")
	done
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== sroce selftests on $(uname -r)$([ $smoke -eq 1 ] && echo ' (smoke)')"
# Each program's wall time, for the CI time split: a "# time: PROGRAM N s"
# line after its result, and the list, slowest first, at the end.
stamp_programs() {
	local line start=$SECONDS
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case $line in
		"# selftests: sroce: "*)
			start=$SECONDS ;;
		"ok "*" selftests: sroce: "* | "not ok "*" selftests: sroce: "*)
			line=${line#*selftests: sroce: }
			printf '# time: %s %d s\n' "${line%% *}" $((SECONDS - start)) ;;
		esac
	done
}
"$ksft_dir/run_kselftest.sh" "${args[@]}" 2>&1 | stamp_programs | tee "$log"

# Kept for tools/compat-table when the harness shares a directory.
[ -n "${SROCE_OUT:-}" ] && cp "$log" "$SROCE_OUT/selftests.tap"

echo "== time per program (s), slowest first"
sed -n 's/^# time: //p' "$log" | sort -k2,2nr | awk '{ t += $2; print } END { print "total", t, "s" }'
[ -n "${SROCE_OUT:-}" ] && sed -n 's/^# time: //p' "$log" > "$SROCE_OUT/times.txt"

passed=$(grep -c '^ok .*selftests: sroce:' "$log" | head -n 1)
skipped=$(grep -c '^ok .*selftests: sroce: .*# SKIP' "$log")
failed=$(grep -c '^not ok .*selftests: sroce:' "$log")
passed=$((passed - skipped))
echo "selftests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
