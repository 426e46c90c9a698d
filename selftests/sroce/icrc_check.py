#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Check the ICRC of every RoCE v2 packet in a pcap file.

usage: icrc_check.py FILE.pcap

An oracle independent of the driver's C code: masks the variant fields
(IPv4 TOS/TTL/checksum, IPv6 traffic class/flow label/hop limit, UDP
checksum, BTH byte 4), prepends eight 0xff bytes, CRC-32 with zlib and
compares with the 4 trailing bytes (least significant byte first).
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


def roce_v2(frame):
    """Return (masked bytes for the CRC, stored ICRC) or None."""
    etype = struct.unpack("!H", frame[12:14])[0]
    l3 = frame[14:]
    if etype == 0x8100:
        etype = struct.unpack("!H", frame[16:18])[0]
        l3 = frame[18:]
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
        pkt[0] |= 0x0f                     # traffic class (low nibble)
        pkt[1:4] = b"\xff\xff\xff"         # traffic class + flow label
        pkt[7] = 0xff                      # hop limit
        udp = 40
    else:
        return None
    if struct.unpack("!H", pkt[udp + 2:udp + 4])[0] != 4791:
        return None
    pkt[udp + 6:udp + 8] = b"\xff\xff"     # UDP checksum
    pkt[udp + 8 + 4] = 0xff                # BTH byte 4 (FECN/BECN/resv)
    return bytes(pkt[:-4]), bytes(pkt[-4:])


def main():
    good = bad = 0
    for frame in packets(sys.argv[1]):
        r = roce_v2(frame)
        if r is None:
            continue
        masked, stored = r
        crc = zlib.crc32(b"\xff" * 8 + masked) & 0xffffffff
        if struct.pack("<I", crc) == stored:
            good += 1
        else:
            bad += 1
    print(f"# icrc_check: {good} RoCE v2 packets with a valid ICRC, {bad} bad")
    return 0 if good and not bad else 1


if __name__ == "__main__":
    sys.exit(main())
