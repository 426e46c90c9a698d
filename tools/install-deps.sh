#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install every Debian 12 package sroce needs to build, lint, unit-test and
# run its guest tests: both kernels (6.1 and bookworm-backports 6.12) with
# headers, linux-source for checkpatch and the kselftest framework, QEMU,
# DKMS and the RDMA userspace under test, mmdebstrap for the newer suites'
# roots (tools/roots/), dh-dkms for make deb and gnuplot for the
# congestion plots (tools/ccsim/ccplot). Idempotent and quick when all is
# there already; needs root (or sudo).
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

packages=(
	build-essential bc bison flex kmod cpio xz-utils zstd sparse dkms git
	libelf-dev libssl-dev python3
	clang libclang-rt-14-dev	# make fuzz: libFuzzer (clang only recommends it)
	linux-image-amd64 linux-headers-amd64 linux-source-6.1
	qemu-system-x86 busybox-static
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev
	rdmacm-utils perftest qperf python3-pyverbs iproute2 iputils-ping iperf3 procps
	ethtool tshark nvme-cli fio mmdebstrap curl debhelper dh-dkms gnuplot-nox
	ucx-utils openmpi-bin python3-mpi4py libfabric-bin
)
backports=(linux-image-amd64 linux-headers-amd64)

missing=()
for p in "${packages[@]}"; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
		grep -q "install ok installed" || missing+=("$p")
done
have_612=$(ls -d /lib/modules/6.12.*/build 2>/dev/null | head -n 1 || true)
if [ ${#missing[@]} -eq 0 ] && [ -n "$have_612" ]; then
	echo "install-deps: all packages present"
	exit 0
fi

if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	# From the mirror the host already uses, whichever it is.
	mirror=$("$(dirname "$0")/roots/sroce-root" --print-mirror)
	$SUDO tee /etc/apt/sources.list.d/sroce-bookworm-backports.sources >/dev/null <<SRC
Types: deb
URIs: $mirror
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${packages[@]}"
# 6.12 from backports, next to 6.1 (which stays the default kernel).
$SUDO apt-get install -y -q --no-install-recommends \
	"${backports[@]/%//bookworm-backports}"
echo "install-deps: done"
