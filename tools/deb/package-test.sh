#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#
# package-test.sh DEB: the life of the sroce-dkms package on the running
# kernel, as a user goes through it, in a guest (tools/vm/sroce-vm
# --no-load; the root is an overlay, so nothing reaches the host):
#
#   1. installing DEB builds and installs the module through DKMS for the
#      running kernel (the Debian postinst also builds for the newest
#      kernel with headers, if it is another one);
#   2. `rdma link add ... type sroce` loads the module by its rdma-link
#      alias, from DKMS's directory, and the device works (ibv_devinfo,
#      a ping-pong over it);
#   3. purging the package removes the module of every kernel and the
#      DKMS sources, and `rdma link add ... type sroce` then fails.
#
# KTAP on stdout; exit 0 if every step passed.
set -u
deb=${1:?usage: package-test.sh DEB}
kver=$(uname -r)
n=0 failed=0

ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1 # $2"; }
diag() { sed 's/^/# /'; }

cleanup() {
	rdma link del sroce_pkg 2>/dev/null
	ip link del pkg0 2>/dev/null
}
trap cleanup EXIT

echo "TAP version 13"
echo "1..9"
version=$(dpkg-deb -f "$deb" Version)
echo "# kernel $kver; package $(dpkg-deb -f "$deb" Package) $version"

modprobe -a ib_core ib_uverbs udp_tunnel ip6_udp_tunnel 2>&1 | diag
if lsmod | grep -q '^sroce '; then
	not_ok "not_loaded_before" "sroce is already loaded"
else
	ok "not_loaded_before"
fi

start=$(date +%s)
if DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" > /tmp/pkg-install.log 2>&1; then
	ok "install_builds_with_dkms"
else
	not_ok "install_builds_with_dkms" "dpkg -i failed"
fi
sed -n '/Building\|Installing\|Error\|error:\|DKMS\|dkms/p' /tmp/pkg-install.log |
	head -n 20 | diag
echo "# install took $(($(date +%s) - start)) s"
dkms status sroce 2>&1 | diag

path=$(modinfo -n sroce 2>/dev/null)
case $path in
/lib/modules/$kver/updates/dkms/sroce.ko*) ok "module_installed_for_running_kernel" ;;
*) not_ok "module_installed_for_running_kernel" "modinfo -n sroce: '${path:-none}'" ;;
esac

ip link add pkg0 type veth peer name pkg1 &&
	ip link set pkg0 up && ip link set pkg1 up &&
	ip addr add 10.102.0.1/24 dev pkg0
if rdma link add sroce_pkg type sroce netdev pkg0 2>/tmp/pkg-link.err &&
	lsmod | grep -q '^sroce '; then
	ok "rdma_link_add_autoloads"
else
	not_ok "rdma_link_add_autoloads" "$(cat /tmp/pkg-link.err)"
fi

if ibv_devinfo -d sroce_pkg 2>&1 | grep -q 'PORT_ACTIVE'; then
	ok "device_port_active"
else
	not_ok "device_port_active" "ibv_devinfo -d sroce_pkg shows no active port"
fi

# A ping-pong between two QPs of the device, over its IPv4 GID.
gid=$(for g in /sys/class/infiniband/sroce_pkg/ports/1/gids/*; do
	i=${g##*/}
	t=$(cat /sys/class/infiniband/sroce_pkg/ports/1/gid_attrs/types/"$i" 2>/dev/null)
	case "$(cat "$g"):$t" in
	*ffff:0a66:0001:"RoCE v2") echo "$i"; break ;;
	esac
done)
ibv_rc_pingpong -d sroce_pkg -g "${gid:-0}" -n 100 > /tmp/pkg-srv.log 2>&1 &
srv=$!
for _ in $(seq 50); do
	ss -ltn 2>/dev/null | grep -q ':18515 ' && break
	sleep 0.1
done
if timeout 60 ibv_rc_pingpong -d sroce_pkg -g "${gid:-0}" -n 100 localhost \
	> /tmp/pkg-cli.log 2>&1 && wait $srv; then
	ok "rc_pingpong_over_device"
	grep 'iters' /tmp/pkg-cli.log | diag
else
	kill $srv 2>/dev/null
	not_ok "rc_pingpong_over_device" "$(tail -n 2 /tmp/pkg-cli.log | tr '\n' ' ')"
fi
cleanup
modprobe -r sroce 2>&1 | diag

if DEBIAN_FRONTEND=noninteractive dpkg --purge sroce-dkms > /tmp/pkg-purge.log 2>&1; then
	ok "purge"
else
	not_ok "purge" "dpkg --purge failed: $(tail -n 3 /tmp/pkg-purge.log | tr '\n' ' ')"
fi
tail -n 5 /tmp/pkg-purge.log | diag

# The package's own version only: the host whose root the guest shares
# may hold a `dkms add` of its checkout (make dkms-build).
left=$(find "/usr/src/sroce-$version" "/var/lib/dkms/sroce/$version" \
	-maxdepth 0 2>/dev/null
	find /lib/modules -path '*/updates/dkms/sroce.ko*' 2>/dev/null)
if [ -z "$left" ]; then
	ok "purge_removes_module_and_sources"
else
	not_ok "purge_removes_module_and_sources" "left: ${left//$'\n'/ }"
fi

ip link add pkg0 type veth peer name pkg1 && ip link set pkg0 up
if rdma link add sroce_pkg type sroce netdev pkg0 2>/dev/null; then
	not_ok "link_add_fails_after_purge" "a device was created"
else
	ok "link_add_fails_after_purge"
fi
exit $failed
