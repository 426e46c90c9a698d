#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Prove dkms.conf is real: `dkms add` this tree, `dkms build` it for each
# kernel given (no install), then remove it from DKMS again.
#
#   tools/dkms-build.sh KVER...
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$top/dkms.conf")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
[ $# -gt 0 ] || { echo "usage: $0 KVER..." >&2; exit 2; }
command -v dkms >/dev/null || { echo "dkms-build: install dkms" >&2; exit 1; }

# DKMS builds from its own copy under /usr/src; give it a clean one so a
# developer's build/ directory does not leak in.
src=$(mktemp -d)
trap 'dkms remove "$name/$version" --all >/dev/null 2>&1 || true; rm -rf "$src"' EXIT
git -C "$top" ls-files -z | (cd "$top" && xargs -0 cp --parents -t "$src")
dkms remove "$name/$version" --all >/dev/null 2>&1 || true
rm -rf "/usr/src/$name-$version"
dkms add "$src"

status=0
for k in "$@"; do
	if dkms build "$name/$version" -k "$k"; then
		echo "dkms-build: OK $name/$version for $k"
	else
		echo "dkms-build: FAILED for $k" >&2
		cat "/var/lib/dkms/$name/$version/build/make.log" 2>/dev/null | tail -n 30
		status=1
	fi
done
exit $status
