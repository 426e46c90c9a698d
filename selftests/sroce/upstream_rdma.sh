#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Upstream's selftests for rdma_rxe (tools/testing/selftests/rdma/ of the
# newest Debian linux-source-7.*, fetched by tools/upstream/
# fetch-rdma-selftests into build/upstream-rdma, never kept in the
# repository), run against sroce where they apply, each adapted the same
# way as it is read:
#   - `type rxe` links become `type sroce` links;
#   - loading, probing and unloading rdma_rxe become no-ops: sroce is
#     loaded by the collection and stays loaded;
#   - tun devices become dummy devices: sroce runs over Ethernet only;
#   - the one-second wait for rping's server becomes a poll (up to 20 s)
#     for its listening RDMA CM ID: a loaded TCG guest needs longer;
#   - counters read right after the traffic are read once they settle
#     (sent equals received, up to 10 s): sroce's internal loopback
#     delivers from a tasklet, after the sender's counter moved;
#   - checks that UDP port 4791 is closed once the last link is gone do
#     not apply: sroce holds the port in every namespace while it is
#     loaded (that is how it keeps rdma_rxe out), so they are taken out;
#     the checks that it is open stay.
# One KTAP line per upstream script.
. "$(dirname "$0")/lib.sh"

require_sroce
# The checkout: the guest harness says where; else this file's, installed
# (build/ksft/sroce) or not (selftests/sroce).
top=${SROCE_TOP:-$(cd "$(dirname "$0")" && git rev-parse --show-toplevel 2>/dev/null)}
src=${SROCE_UPSTREAM_RDMA:-$top/build/upstream-rdma}
[ -f "$src/rdma/Makefile" ] && [ -f "$src/kselftest/ktap_helpers.sh" ] ||
	ktap_skip_all "no upstream rdma selftests in $src (tools/upstream/fetch-rdma-selftests)"
for tool in rping ping ss; do
	command -v $tool >/dev/null || ktap_skip_all "$tool missing (the upstream scripts use it)"
done

scripts=$(cd "$src/rdma" && ls rxe_*.sh)
# shellcheck disable=SC2086 # one word per script
set -- $scripts
ktap_plan $#
ktap_diag "from $(cat "$src/VERSION" 2>/dev/null)"

tmp=$(mktemp -d) || ktap_skip_all "mktemp failed"
on_exit "rm -rf $tmp"
mkdir -p "$tmp/rdma" "$tmp/kselftest"
cp "$src/kselftest/ktap_helpers.sh" "$tmp/kselftest/"

# adapt SCRIPT: the script as it runs against sroce, on stdout
adapt() {
	sed -E \
		-e 's/type rxe /type sroce /' \
		-e 's/^([[:space:]]*)(modprobe( -r)?|modinfo) "?rdma_rxe"?/\1true/' \
		-e 's/modinfo rdma_rxe/true/' \
		-e 's/ "rdma_rxe"\)/)/; s/ rdma_rxe;/;/' \
		-e 's/ip tuntap add mode tun ("?[$A-Za-z0-9_]+"?)/ip link add \1 type dummy/' \
		-e 's/^sleep 1 # Allow server to bind$/for i in $(seq 200); do rdma resource show cm_id 2>\/dev\/null | grep -q LISTEN \&\& break; sleep 0.1; done/' \
		-e 's|^new_s=`cat (/sys/class/infiniband/[^/]+/ports/1/counters/)port_xmit_data`$|for i in $(seq 100); do [ "$(cat \1port_xmit_data)" = "$(cat \1port_rcv_data)" ] \&\& break; sleep 0.1; done; &|' \
		-e 's/^([[:space:]]*)if (ip netns exec [^ ]+ )?ss (.*)\| *grep -q (.*); then$/\1if false; then # sroce holds the port while loaded: \2ss \3| grep -q \4/' \
		"$src/rdma/$1"
}

for s in "$@"; do
	name=${s%.sh}
	adapt "$s" > "$tmp/rdma/$s"
	# An upstream change the adaptation does not know must not run as is.
	left=$(grep -nE 'type rxe|tuntap|(modprobe|modinfo)[^#]*rdma_rxe' "$tmp/rdma/$s")
	if [ -n "$left" ]; then
		ktap_fail "$name" "not adapted: $left"
		continue
	fi
	# What the adaptation changed, for the log.
	diff "$src/rdma/$s" "$tmp/rdma/$s" | sed -n 's/^> */#   /p'
	out=$(cd "$tmp/rdma" && timeout -k 5 120 bash "./$s" 2>&1)
	rc=$?
	case $rc in
	0) ktap_pass "$name" ;;
	4) ktap_skip "$name" "$(tail -n 1 <<< "$out")" ;;
	*)
		sed 's/^/#   /' <<< "$out" | tail -n 20
		ktap_fail "$name" "exit status $rc"
		;;
	esac
	# The scripts unload their module on exit; sroce stays, but make sure.
	sroce_ensure_loaded
done

ktap_finish
