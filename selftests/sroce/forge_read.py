#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send RDMA READ requests (RoCE v2 over IPv4) at an RC QP from a raw socket.

usage: forge_read.py --src ADDR --dst ADDR --qpn N --rkey N --va N
                     --psn N --count N [--step N] --len N

Sends COUNT READ requests of LEN bytes at VA, the first with PSN PSN and
each next one STEP PSNs later (STEP 0: the same PSN again, a repeat), with
a correct ICRC, built with the header code of roce_fuzz_send.py.
"""
import argparse
import os
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_fuzz_send as rf  # noqa: E402

READ_REQUEST = 0x0c


def read_request(src, dst, qpn, psn, va, rkey, length, ident):
    transport = rf.bth(READ_REQUEST, 0, 0, 0, 0, 0xffff, 0, qpn, 1, 0,
                       psn & 0xffffff) + struct.pack("!QII", va, rkey, length)
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
    a = p.parse_args()
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for i in range(a.count):
        s.sendto(read_request(src, dst, a.qpn, a.psn + i * a.step, a.va,
                              a.rkey, a.len, 0x4000 + i), (a.dst, 0))
    print("# forge_read: %d READ requests sent, PSN %d step %d, %d bytes"
          % (a.count, a.psn, a.step, a.len))


if __name__ == "__main__":
    main()
