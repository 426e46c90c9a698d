#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# Install every Debian 12 package sroce needs to build, lint, unit-test and
# run its guest tests: both kernels (6.1 and bookworm-backports 6.12) with
# headers, linux-source for checkpatch and the kselftest framework, QEMU and
# the RDMA userspace under test. Idempotent; needs root.
set -euo pipefail

export DEBIAN_FRONTEND=noninteractive
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

backports=/etc/apt/sources.list.d/sroce-bookworm-backports.sources
if ! grep -rqs 'bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/; then
	$SUDO tee "$backports" >/dev/null <<'SRC'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
fi

$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends \
	build-essential bc bison flex kmod cpio xz-utils zstd sparse dkms \
	libelf-dev libssl-dev \
	linux-image-amd64 linux-headers-amd64 linux-source-6.1 \
	qemu-system-x86 busybox-static \
	rdma-core ibverbs-utils ibverbs-providers libibverbs-dev librdmacm-dev \
	rdmacm-utils perftest python3-pyverbs iproute2 iperf3 procps \
	ethtool tshark
$SUDO apt-get install -y -q --no-install-recommends \
	linux-image-amd64/bookworm-backports linux-headers-amd64/bookworm-backports
