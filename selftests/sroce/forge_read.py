#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send RDMA READ or FLUSH requests (RoCE v2 over IPv4) at an RC QP from a
raw socket.

usage: forge_read.py --src ADDR --dst ADDR --qpn N --rkey N --va N
                     --psn N --count N [--step N] --len N [--flush]
                     [--flush-after PSN]

Sends COUNT READ requests of LEN bytes at VA (with --flush: FLUSH
requests of global visibility for that range), the first with PSN PSN and
each next one STEP PSNs later (STEP 0: the same PSN again, a repeat), with
a correct ICRC, built with the header code of roce_fuzz_send.py. With
--flush-after, one FLUSH of the first 8 bytes at PSN follows at once, from
the same socket (a second process would start too late to find the
READs' responses still owed).
"""
import argparse
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_fuzz_send as rf  # noqa: E402

READ_REQUEST = 0x0c
FLUSH = 0x1c
# FETH: placement type "global visibility", selectivity "range"
FETH_GLOBAL_RANGE = 0x1


def read_request(src, dst, qpn, psn, va, rkey, length, ident, flush=False):
    reth = struct.pack("!QII", va, rkey, length)
    if flush:
        ext = struct.pack("!I", FETH_GLOBAL_RANGE) + reth
    else:
        ext = reth
    transport = rf.bth(FLUSH if flush else READ_REQUEST, 0, 0, 0, 0, 0xffff,
                       0, qpn, 1, 0, psn & 0xffffff) + ext
    udp_len = rf.UDP_LEN + len(transport) + rf.ICRC_LEN
    ip = rf.ipv4_hdr(rf.IP_LEN + udp_len, ident, src, dst)
    udp = rf.udp_hdr(0xc123, udp_len)
    return ip + udp + transport + rf.icrc(ip, udp, transport)


def main():
    p = argparse.ArgumentParser()
    for name in ("src", "dst"):
        p.add_argument("--" + name, required=True)
    for name in ("qpn", "rkey", "va", "psn", "count", "len"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--step", type=int, default=0)
    p.add_argument("--flush", action="store_true")
    p.add_argument("--flush-after", type=int)
    a = p.parse_args()
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for i in range(a.count):
        s.sendto(read_request(src, dst, a.qpn, a.psn + i * a.step, a.va,
                              a.rkey, a.len, 0x4000 + i, a.flush), (a.dst, 0))
    if a.flush_after is not None:
        s.sendto(read_request(src, dst, a.qpn, a.flush_after, a.va, a.rkey, 8,
                              0x4000 + a.count, True), (a.dst, 0))
    print("# forge_read: %d %s requests sent, PSN %d step %d, %d bytes"
          % (a.count, "FLUSH" if a.flush else "READ", a.psn, a.step, a.len))


if __name__ == "__main__":
    main()
