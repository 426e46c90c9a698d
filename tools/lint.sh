#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Run checkpatch.pl --strict and kernel-doc (every documented function
# and structure must match its comment) from Debian's linux-source
# package on the given files. The scripts are extracted from the package's
# tarball into build/ once; nothing of the kernel is committed.
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
tarball=$(ls -1 /usr/src/linux-source-6.*.tar.xz 2>/dev/null | sort -V | tail -n 1)
dest=$top/build/linux-source
checkpatch=$dest/scripts/checkpatch.pl
kerneldoc=$dest/scripts/kernel-doc

if [ ! -x "$checkpatch" ] || [ ! -x "$kerneldoc" ]; then
	[ -n "$tarball" ] || { echo "lint: install linux-source-6.1" >&2; exit 1; }
	mkdir -p "$dest"
	prefix=$(basename "$tarball" .tar.xz)
	tar -xJf "$tarball" -C "$dest" --strip-components=1 \
		"$prefix/scripts/checkpatch.pl" "$prefix/scripts/spelling.txt" \
		"$prefix/scripts/const_structs.checkpatch" \
		"$prefix/scripts/kernel-doc"
fi

cd "$top"
status=0
for f in "$@"; do
	case $f in
	*.c|*.h|Kbuild) ;;
	*) continue ;;
	esac
	# Out-of-tree: no kernel tree to check against. The compat header is
	# the one place allowed to test LINUX_VERSION_CODE.
	extra=
	[ "$f" = drivers/sroce_compat.h ] && extra="--ignore LINUX_VERSION_CODE"
	if ! out=$("$checkpatch" --strict --no-tree --quiet --show-types \
			--ignore FILE_PATH_CHANGES $extra -f "$f" 2>&1); then
		echo "$out"
		status=1
	fi
	if [ "$f" != Kbuild ] &&
	   ! out=$("$kerneldoc" -none "$f" 2>&1) || [ -n "$out" ]; then
		echo "$out"
		status=1
	fi
done
n=$#
if [ $status -eq 0 ]; then
	echo "lint: checkpatch --strict and kernel-doc clean on $n files"
else
	echo "lint: checkpatch/kernel-doc found problems" >&2
fi
exit $status
