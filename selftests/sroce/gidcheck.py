#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Compare an sroce device's GID table with the addresses of its netdevs.

usage: gidcheck.py IBDEV PORT_NETDEV [UPPER_NETDEV...]

Expected: the two default GIDs (fe80::EUI-64 of the port netdev's MAC,
RoCE v1 and v2) plus, for every IPv4 and IPv6 address of each netdev
given, one RoCE v1 and one RoCE v2 entry naming that netdev (addresses
still in duplicate address detection may or may not be listed yet). Checked:
ib_core's table in sysfs holds exactly that, and the firmware's table
(debugfs fw_gids) holds the same slots, with the VLAN ID of VLAN netdevs.
Prints differences as KTAP diagnostics; exit status 0 when all match.
"""
import ipaddress
import json
import os
import subprocess
import sys

TYPES = {"IB/RoCE v1": "v1", "RoCE v2": "v2"}


def gid_str(addr):
    ip = ipaddress.ip_address(addr)
    if ip.version == 4:
        ip = ipaddress.IPv6Address("::ffff:" + addr)
    return ip.exploded


def eui64_link_local(mac):
    b = [int(x, 16) for x in mac.split(":")]
    b[0] ^= 2
    iid = b[:3] + [0xff, 0xfe] + b[3:]
    return ipaddress.IPv6Address(bytes([0xfe, 0x80] + [0] * 6 + iid)).exploded


def netdev_info(name):
    out = subprocess.run(["ip", "-j", "-d", "addr", "show", "dev", name],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)[0]


def read(path):
    with open(path) as f:
        return f.read().strip()


def sysfs_table(ibdev):
    base = f"/sys/class/infiniband/{ibdev}/ports/1"
    table = {}
    for idx in sorted(int(i) for i in os.listdir(f"{base}/gids")):
        gid = read(f"{base}/gids/{idx}")
        if set(gid) <= set("0:"):
            continue
        try:
            gtype = TYPES[read(f"{base}/gid_attrs/types/{idx}")]
            ndev = read(f"{base}/gid_attrs/ndevs/{idx}")
        except OSError:
            continue   # slot cleared while we were reading it
        table[idx] = (ipaddress.IPv6Address(gid).exploded, gtype, ndev)
    return table


def fw_table(ibdev):
    path = f"/sys/kernel/debug/sroce/{ibdev}/fw_gids"
    if not os.path.exists(path):
        return None
    table = {}
    for line in read(path).splitlines():
        f = line.split()
        vlan = int(f[4]) if f[3] == "vlan" else None
        table[int(f[0])] = (ipaddress.IPv6Address(f[1]).exploded, f[2], vlan)
    return table


def main():
    ibdev, port_ndev, *uppers = sys.argv[1:]
    problems = []
    want = set()
    optional = set()   # tentative addresses: ib_core may list them early
    vlan_of = {}
    port = netdev_info(port_ndev)
    for t in ("v1", "v2"):
        want.add((eui64_link_local(port["address"]), t, port_ndev))
    for name in [port_ndev] + uppers:
        info = netdev_info(name)
        link = info.get("linkinfo", {})
        vlan_of[name] = (link.get("info_data", {}).get("id")
                         if link.get("info_kind") == "vlan" else None)
        for a in info.get("addr_info", []):
            entries = {(gid_str(a["local"]), t, name) for t in ("v1", "v2")}
            if a.get("tentative") or a.get("dadfailed"):
                optional |= entries
            else:
                want |= entries

    have = sysfs_table(ibdev)
    have_set = set(have.values())
    for e in sorted(want - have_set):
        problems.append(f"missing from sysfs: {e}")
    for e in sorted(have_set - want - optional):
        problems.append(f"unexpected in sysfs: {e}")
    if len(have_set) != len(have):
        problems.append("duplicate entries in sysfs")

    fw = fw_table(ibdev)
    if fw is not None:
        for idx, (gid, t, ndev) in have.items():
            got = fw.get(idx)
            exp = (gid, t, vlan_of.get(ndev))
            if got != exp:
                problems.append(f"firmware slot {idx}: {got}, expected {exp}")
        for idx in sorted(set(fw) - set(have)):
            problems.append(f"firmware slot {idx} not in ib_core: {fw[idx]}")

    for p in problems:
        print(f"# gidcheck {ibdev}: {p}")
    if not problems:
        print(f"# gidcheck {ibdev}: {len(have)} entries match"
              + ("" if fw is None else " (sysfs and firmware)"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
