#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run the installed sroce kselftest collection (inside a test guest) with
# the stock kselftest runner, and turn its TAP output into an exit status.
#
#   run.sh [--timeout=SECS] [--allow-skips=PROGRAMS]
#          [--smoke | --only[=]PROGRAMS | --except[=]PROGRAMS] [KSFT_DIR]
#
# --smoke runs the subset that proves the module works on a kernel:
# device add/del, port state, GIDs, verbs queries, UD and RC traffic
# between namespaces, perftest, RDMA CM (rping, ucmatose) and rxe exclusion.
# --only runs the programs named, separated by commas or blanks (e.g.
# cc_testbed.sh,read_bounds.sh), --except all the others.
# --timeout sets each program's timeout instead of the collection's
# settings file (the debug kernel runs every program several times slower).
# --allow-skips fails the run if a program not named there skips as a
# whole (a lane that knows what its kernel lacks: a skip it did not
# expect is coverage lost unseen); without it skips pass. Cases skipped
# inside a program are listed at the end either way.
set -uo pipefail

timeout='' allowed_skips='' check_skips=0
while :; do
	case ${1:-} in
	--timeout=*) timeout=${1#*=}; shift ;;
	--allow-skips=*)
		allowed_skips=" ${1#*=} " check_skips=1
		allowed_skips=${allowed_skips//,/ }
		shift ;;
	*) break ;;
	esac
done
[ -z "$timeout" ] || [[ $timeout =~ ^[1-9][0-9]*$ ]] ||
	{ echo "run.sh: bad --timeout $timeout" >&2; exit 2; }

smoke_tests="link_add_del.sh port_state.sh gid_table.sh verbs_query.sh ud_traffic.sh rc_traffic.sh perftest.sh rdma_cm.sh rxe_exclusion.sh"
mode=all selection=''
case ${1:-} in
--smoke) mode=smoke selection=$smoke_tests; shift ;;
--only=* | --except=*)
	mode=${1%%=*} selection=${1#*=}
	mode=${mode#--} selection=${selection//,/ }
	shift ;;
--only | --except)
	[ $# -ge 2 ] || { echo "run.sh: $1 needs a list of programs" >&2; exit 2; }
	mode=${1#--} selection=${2//,/ }
	shift 2 ;;
esac
ksft_dir=${1:-$(cd "$(dirname "$0")/.." && pwd)/build/ksft}
[ -x "$ksft_dir/run_kselftest.sh" ] || {
	echo "run.sh: no installed selftests in $ksft_dir (make -C selftests)" >&2
	exit 2
}

# The stock runner (6.1's) takes a program's timeout only from the
# settings file: run a copy of the collection with its own.
if [ -n "$timeout" ]; then
	copy=$(mktemp -d)
	trap 'rm -rf "$copy"' EXIT
	cp -a "$ksft_dir/." "$copy/"
	sed -i "s/^timeout=.*/timeout=$timeout/" "$copy/sroce/settings"
	ksft_dir=$copy
fi

# A selection that names no program, or one not in the collection, is an
# error: an empty list would run everything, a stale name nothing.
if [ "$mode" != all ]; then
	known=" $("$ksft_dir/run_kselftest.sh" -l | sed -n 's/^sroce://p' | tr '\n' ' ')"
	[ -n "${selection// }" ] || { echo "run.sh: --$mode names no program" >&2; exit 2; }
	for t in $selection; do
		[[ $known == *" $t "* ]] ||
			{ echo "run.sh: $t is not in the collection" >&2; exit 2; }
	done
fi

args=(-c sroce)
case $mode in
smoke | only)
	args=()
	for t in $selection; do
		args+=(-t "sroce:$t")
	done ;;
except)
	# The stock runner has no exclusion: the collection's list, filtered.
	args=()
	for t in $("$ksft_dir/run_kselftest.sh" -l | sed -n 's/^sroce://p'); do
		[[ " $selection " == *" $t "* ]] || args+=(-t "sroce:$t")
	done
	[ ${#args[@]} -gt 0 ] ||
		{ echo "run.sh: --except leaves no program" >&2; exit 2; } ;;
esac

log=$(mktemp)
trap 'rm -f "$log"; [ -z "$timeout" ] || rm -rf "$ksft_dir"' EXIT
case $mode in
all) label='' ;;
smoke) label=' (smoke)' ;;
*) label=" ($mode $selection)" ;;
esac
echo "== sroce selftests on $(uname -r)$label"
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
unexpected=0
if [ $check_skips = 1 ]; then
	while IFS= read -r line; do
		t=${line#*selftests: sroce: }
		t=${t%% *}
		[[ $allowed_skips == *" $t "* ]] && continue
		echo "selftests: $t skipped, and --allow-skips does not name it"
		unexpected=$((unexpected + 1))
	done < <(grep '^ok .*selftests: sroce: .*# SKIP' "$log")
fi
# Cases skipped inside programs that ran (a tool or feature missing for
# them), named so that the coverage they lost is seen.
awk '/^# selftests: sroce: / { prog = $4 }
	/^# +ok .*# SKIP/ { sub(/^# +ok [0-9]+ /, ""); print "selftests: skipped in " prog ": " $0 }' "$log"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] && [ $unexpected = 0 ]
