#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send one RDMA WRITE message (RoCE v2 over IPv4) at an RC QP from a raw
socket, packets sized as given, and print the responder's answer.

usage: forge_write.py --src ADDR --dst ADDR --qpn N --rkey N --va N
                      --psn N --len N --payloads N[,N...] [--imm N]
                      [--skip N] [--wait SECONDS]

LEN is the DMA length the RETH claims; PAYLOADS the payload bytes of each
packet (one: WRITE ONLY, more: FIRST, MIDDLE..., LAST; padded to a
multiple of 4 as PadCnt says), whatever LEN says. With --imm the last
packet carries that immediate value. The last packet asks to be
acknowledged. With --skip, the first N packets of the message are not
sent (a retransmission from packet N).

Prints "answer syndrome=0xSS psn=N" for the first ACKNOWLEDGE that comes
back from DST to SRC (a NAK included), or "answer none" if none comes
within SECONDS (default 10; 0: "answer unheard", nothing listened).
Exit status 0 either way.
"""
import argparse
import os
import select
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_fuzz_send as rf  # noqa: E402

WRITE_FIRST, WRITE_MIDDLE, WRITE_LAST, WRITE_LAST_IMM = 0x06, 0x07, 0x08, 0x09
WRITE_ONLY, WRITE_ONLY_IMM = 0x0a, 0x0b
ACKNOWLEDGE = 0x11


def opcode_of(i, count, imm):
    """The opcode of packet i of count."""
    if count == 1:
        return WRITE_ONLY_IMM if imm is not None else WRITE_ONLY
    if i == 0:
        return WRITE_FIRST
    if i < count - 1:
        return WRITE_MIDDLE
    return WRITE_LAST_IMM if imm is not None else WRITE_LAST


def write_packet(a, src, dst, i, count, size):
    op = opcode_of(i, count, a.imm)
    ext = b""
    if op in (WRITE_FIRST, WRITE_ONLY, WRITE_ONLY_IMM):
        ext += struct.pack("!QII", a.va, a.rkey, a.len)
    if op in (WRITE_LAST_IMM, WRITE_ONLY_IMM):
        ext += struct.pack("!I", a.imm)
    last = i == count - 1
    psn = (a.psn + i) & 0xffffff
    # A byte no zeroed buffer holds, different in each packet.
    pad = -size & 3
    data = bytes([0x80 | (psn & 0x7f)]) * size + bytes(pad)
    transport = rf.bth(op, 0, 0, pad, 0, 0xffff, 0, a.qpn, int(last), 0,
                       psn) + ext + data
    udp_len = rf.UDP_LEN + len(transport) + rf.ICRC_LEN
    ip = rf.ipv4_hdr(rf.IP_LEN + udp_len, 0x5000 + i, src, dst)
    udp = rf.udp_hdr(0xc124, udp_len)
    return ip + udp + transport + rf.icrc(ip, udp, transport)


def answer(sock, dst, wait):
    """The first RC ACKNOWLEDGE from dst within wait seconds:
    (syndrome, psn), or None."""
    end = time.monotonic() + wait
    while True:
        left = end - time.monotonic()
        if left <= 0 or not select.select([sock], [], [], left)[0]:
            return None
        pkt = sock.recv(65536)
        ihl = (pkt[0] & 0x0f) * 4
        if pkt[12:16] != dst or len(pkt) < ihl + rf.UDP_LEN + rf.BTH_LEN + 4:
            continue
        dport = struct.unpack("!H", pkt[ihl + 2:ihl + 4])[0]
        bth = ihl + rf.UDP_LEN
        if dport != rf.ROCE_PORT or pkt[bth] != ACKNOWLEDGE:
            continue
        psn = int.from_bytes(pkt[bth + 9:bth + 12], "big")
        return pkt[bth + rf.BTH_LEN], psn


def main():
    p = argparse.ArgumentParser()
    for name in ("src", "dst", "payloads"):
        p.add_argument("--" + name, required=True)
    for name in ("qpn", "rkey", "va", "psn", "len"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--imm", type=lambda s: int(s, 0))
    p.add_argument("--skip", type=int, default=0)
    p.add_argument("--wait", type=float, default=10.0)
    a = p.parse_args()
    sizes = [int(s) for s in a.payloads.split(",")]
    if any(s < 0 for s in sizes):
        p.error("payloads cannot be negative")
    src, dst = socket.inet_aton(a.src), socket.inet_aton(a.dst)
    # Opened first: a copy of every UDP datagram delivered here.
    listen = None
    if a.wait > 0:
        listen = socket.socket(socket.AF_INET, socket.SOCK_RAW,
                               socket.IPPROTO_UDP)
    s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    for i, size in enumerate(sizes):
        if i < a.skip:
            continue
        s.sendto(write_packet(a, src, dst, i, len(sizes), size), (a.dst, 0))
    if listen is None:
        print("answer unheard")
        return
    got = answer(listen, dst, a.wait)
    if got is None:
        print("answer none")
    else:
        print("answer syndrome=0x%02x psn=%d" % got)


if __name__ == "__main__":
    main()
