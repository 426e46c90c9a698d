#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check the ICRC of every RoCE v2 and RoCE v1 packet in a pcap file.

usage: icrc_check.py FILE.pcap

An oracle independent of the driver's C code: masks the variant fields
(IPv4 TOS/TTL/checksum, IPv6 or GRH traffic class/flow label/hop limit,
UDP checksum, BTH byte 4), prepends eight 0xff bytes, CRC-32 with zlib and
compares with the 4 trailing bytes (least significant byte first). RoCE v1
is Ethernet type 0x8915 with a GRH (next header 0x1b) and no UDP.
Prints a summary; exit status 1 if any packet is wrong or none was found.
"""
import struct
import sys
import zlib


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack("<I", data[:4])[0]
    if magic in (0xa1b2c3d4, 0xa1b23c4d):
        endian = "<"
    elif magic in (0xd4c3b2a1, 0x4d3cb2a1):
        endian = ">"
    else:
        raise SystemExit("pcapng is not supported: capture with -F pcap")
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "IIII", data[off:off + 16])[2]
        yield data[off + 16:off + 16 + incl]
        off += 16 + incl


def mask_grh(pkt):
    """Traffic class, flow label and hop limit of an IPv6 header or GRH."""
    pkt[0] |= 0x0f                         # traffic class (low nibble)
    pkt[1:4] = b"\xff\xff\xff"             # traffic class + flow label
    pkt[7] = 0xff                          # hop limit


def roce(frame):
    """Return (version, masked bytes for the CRC, stored ICRC) or None."""
    etype = struct.unpack("!H", frame[12:14])[0]
    l3 = frame[14:]
    if etype == 0x8100:
        etype = struct.unpack("!H", frame[16:18])[0]
        l3 = frame[18:]
    if etype == 0x8915:
        if len(l3) < 56 or l3[0] >> 4 != 6 or l3[6] != 0x1b:
            return None
        pkt = bytearray(l3[:40 + struct.unpack("!H", l3[4:6])[0]])
        mask_grh(pkt)
        pkt[40 + 4] = 0xff                 # BTH byte 4 (FECN/BECN/resv)
        return 1, bytes(pkt[:-4]), bytes(pkt[-4:])
    if etype == 0x0800 and l3[9] == 17:
        ihl = (l3[0] & 0xf) * 4
        total = struct.unpack("!H", l3[2:4])[0]
        pkt = bytearray(l3[:total])
        pkt[1] = 0xff                      # TOS
        pkt[8] = 0xff                      # TTL
        pkt[10:12] = b"\xff\xff"           # header checksum
        udp = ihl
    elif etype == 0x86dd and l3[6] == 17:
        total = 40 + struct.unpack("!H", l3[4:6])[0]
        pkt = bytearray(l3[:total])
        mask_grh(pkt)
        udp = 40
    else:
        return None
    if struct.unpack("!H", pkt[udp + 2:udp + 4])[0] != 4791:
        return None
    pkt[udp + 6:udp + 8] = b"\xff\xff"     # UDP checksum
    pkt[udp + 8 + 4] = 0xff                # BTH byte 4 (FECN/BECN/resv)
    return 2, bytes(pkt[:-4]), bytes(pkt[-4:])


def main():
    good = {1: 0, 2: 0}
    bad = 0
    for frame in packets(sys.argv[1]):
        r = roce(frame)
        if r is None:
            continue
        version, masked, stored = r
        crc = zlib.crc32(b"\xff" * 8 + masked) & 0xffffffff
        if struct.pack("<I", crc) == stored:
            good[version] += 1
        else:
            bad += 1
    if good[1]:
        print(f"# icrc_check: {good[2]} RoCE v2 and {good[1]} RoCE v1 "
              f"packets with a valid ICRC, {bad} bad")
    else:
        print(f"# icrc_check: {good[2]} RoCE v2 packets with a valid ICRC, "
              f"{bad} bad")
    return 0 if (good[1] or good[2]) and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
