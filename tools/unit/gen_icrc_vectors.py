#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Independent oracle for the RoCE invariant CRC (ICRC).

Builds a few complete RoCE frames field by field with struct, computes
their ICRC with zlib.crc32 straight from the rule (eight 0xff bytes for
the LRH, then L3 [+ UDP] + BTH + extension headers + payload + pad with
the variant fields set to all ones, stored least-significant byte first)
and writes them as C arrays for tools/unit/test_icrc.c and the fuzzers.
It shares no code with drivers/lib/icrc.c: the masked copy is made by
packing the headers a second time with the variant fields set to ones,
not by patching byte offsets.

Regenerate (from the top of the tree):
    python3 tools/unit/gen_icrc_vectors.py > tools/unit/icrc_vectors.h
Write a fuzzing seed corpus (one file per vector and target):
    python3 tools/unit/gen_icrc_vectors.py --corpus DIR
"""

import argparse
import os
import struct
import sys
import zlib

L3_IPV4, L3_IPV6, L3_GRH = 1, 2, 3      # enum sroce_l3_type
L3_NAMES = {L3_IPV4: "SROCE_L3_IPV4", L3_IPV6: "SROCE_L3_IPV6",
            L3_GRH: "SROCE_L3_GRH"}
ROCE_PORT = 4791

ONES8, ONES16, ONES20 = 0xff, 0xffff, 0xfffff


def csum16(data):
    """Internet checksum (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    total = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    return ~total & 0xffff


def eth(dst, src, ethertype, vlan=None):
    hdr = bytes.fromhex(dst.replace(":", "")) + \
        bytes.fromhex(src.replace(":", ""))
    if vlan is not None:
        hdr += struct.pack("!HH", 0x8100, vlan)
    return hdr + struct.pack("!H", ethertype)


def ipv4(tos, ident, ttl, src, dst, payload_len, csum=None):
    """IPv4 header, DF set, no options; checksum computed unless given."""
    total = 20 + payload_len
    saddr = bytes(int(x) for x in src.split("."))
    daddr = bytes(int(x) for x in dst.split("."))

    def pack(c):
        return struct.pack("!BBHHHBBH4s4s", 0x45, tos, total, ident,
                           0x4000, ttl, 17, c, saddr, daddr)
    if csum is None:
        csum = csum16(pack(0))
    return pack(csum)


def ip6_like(tclass, flow, payload_len, next_hdr, hop, src, dst):
    """IPv6 header; the GRH of RoCE v1 has the same layout."""
    word0 = (6 << 28) | (tclass << 20) | flow
    return struct.pack("!IHBB16s16s", word0, payload_len, next_hdr, hop,
                       bytes.fromhex(src), bytes.fromhex(dst))


def udp(sport, length, csum):
    return struct.pack("!HHHH", sport, ROCE_PORT, length, csum)


def bth(opcode, pkey, qpn, psn, pad, se=0, mig=0, fecn=0, becn=0,
        resv6a=0, ackreq=0):
    byte1 = (se << 7) | (mig << 6) | (pad << 4)      # TVer 0
    byte4 = (fecn << 7) | (becn << 6) | resv6a
    return struct.pack("!BBHII", opcode, byte1, pkey,
                       (byte4 << 24) | qpn, (ackreq << 31) | psn)


def bth_masked(**args):
    """The BTH as hashed: FECN, BECN and Resv6a all ones."""
    args.update(fecn=1, becn=1, resv6a=0x3f)
    return bth(**args)


def reth(va, rkey, dmalen):
    return struct.pack("!QII", va, rkey, dmalen)


def aeth(syndrome, msn):
    return struct.pack("!I", (syndrome << 24) | msn)


def deth(qkey, sqp):
    return struct.pack("!II", qkey, sqp)


def crc32_raw(state, data):
    """Reflected CRC-32 with no inversion (the kernel's crc32_le)."""
    for byte in data:
        state ^= byte
        for _ in range(8):
            state = (state >> 1) ^ (0xedb88320 if state & 1 else 0)
    return state


def icrc(masked):
    """ICRC of the masked L3..pad bytes, as the 32-bit CRC value."""
    value = zlib.crc32(b"\xff" * 8 + masked)
    # Cross-check: starting the raw CRC from 0xdebb20e3 instead of
    # hashing the eight 0xff bytes gives the same result.
    assert (~crc32_raw(0xdebb20e3, masked)) & 0xffffffff == value
    return value


def payload_bytes(n, seed):
    return bytes((seed + 7 * i) & 0xff for i in range(n))


def pad_of(n):
    return -n & 3


def v2_ipv4(name, l2, tos, ttl, ident, src, dst, sport, bth_args,
            ext=b"", payload=b""):
    pad = pad_of(len(payload))
    tail = ext + payload + b"\0" * pad
    udp_len = 8 + 12 + len(tail) + 4
    ip = ipv4(tos, ident, ttl, src, dst, udp_len)
    ip_m = ipv4(ONES8, ident, ONES8, src, dst, udp_len, csum=ONES16)
    bth_b = bth(pad=pad, **bth_args)
    crc = icrc(ip_m + udp(sport, udp_len, ONES16) +
               bth_masked(pad=pad, **bth_args) + tail)
    icrc_b = struct.pack("<I", crc)
    # A genuine UDP checksum (it covers the ICRC, the ICRC skips it).
    body = bth_b + tail + icrc_b
    pseudo = ip[12:20] + struct.pack("!BBH", 0, 17, udp_len)
    ucs = csum16(pseudo + udp(sport, udp_len, 0) + body) or 0xffff
    frame = l2 + ip + udp(sport, udp_len, ucs) + body
    return dict(name=name, l3=L3_IPV4, l3_off=len(l2),
                bth_off=len(l2) + 28, frame=frame, icrc=crc)


def v2_ipv6(name, l2, tclass, flow, hop, src, dst, sport, bth_args,
            ext=b"", payload=b""):
    pad = pad_of(len(payload))
    tail = ext + payload + b"\0" * pad
    udp_len = 8 + 12 + len(tail) + 4
    ip = ip6_like(tclass, flow, udp_len, 17, hop, src, dst)
    ip_m = ip6_like(ONES8, ONES20, udp_len, 17, ONES8, src, dst)
    bth_b = bth(pad=pad, **bth_args)
    crc = icrc(ip_m + udp(sport, udp_len, ONES16) +
               bth_masked(pad=pad, **bth_args) + tail)
    icrc_b = struct.pack("<I", crc)
    body = bth_b + tail + icrc_b
    pseudo = bytes.fromhex(src) + bytes.fromhex(dst) + \
        struct.pack("!IxxxB", udp_len, 17)
    ucs = csum16(pseudo + udp(sport, udp_len, 0) + body) or 0xffff
    frame = l2 + ip + udp(sport, udp_len, ucs) + body
    return dict(name=name, l3=L3_IPV6, l3_off=len(l2),
                bth_off=len(l2) + 48, frame=frame, icrc=crc)


def v1_grh(name, l2, tclass, flow, hop, sgid, dgid, bth_args,
           ext=b"", payload=b""):
    pad = pad_of(len(payload))
    tail = ext + payload + b"\0" * pad
    paylen = 12 + len(tail) + 4         # BTH through ICRC
    grh = ip6_like(tclass, flow, paylen, 0x1b, hop, sgid, dgid)
    grh_m = ip6_like(ONES8, ONES20, paylen, 0x1b, ONES8, sgid, dgid)
    crc = icrc(grh_m + bth_masked(pad=pad, **bth_args) + tail)
    frame = l2 + grh + bth(pad=pad, **bth_args) + tail + \
        struct.pack("<I", crc)
    return dict(name=name, l3=L3_GRH, l3_off=len(l2),
                bth_off=len(l2) + 40, frame=frame, icrc=crc)


MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"
GID_A = "fe800000000000000000000000000a0a"
GID_B = "fe800000000000000000000000000b0b"
IP6_A = "20010db8000000000000000000000001"
IP6_B = "20010db8000000000000000000000002"


def vectors():
    out = []
    # RoCE v2 / IPv4, RC SEND Only, 13 bytes of payload and 3 of pad;
    # ECN CE, FECN set, AckReq set.
    out.append(v2_ipv4(
        "v2_ipv4_rc_send_only", eth(MAC_B, MAC_A, 0x0800),
        tos=(26 << 2) | 3, ttl=64, ident=0x1c46, src="192.0.2.10",
        dst="192.0.2.11", sport=0xc0de,
        bth_args=dict(opcode=0x04, pkey=0xffff, qpn=0x000123,
                      psn=0xabcdef, se=1, fecn=1, ackreq=1),
        payload=payload_bytes(13, 0x30)))
    # RoCE v2 / IPv6 behind a VLAN tag, RC RDMA WRITE Only, 32 bytes.
    out.append(v2_ipv6(
        "v2_ipv6_rc_write_only", eth(MAC_B, MAC_A, 0x86dd, vlan=0x6064),
        tclass=(26 << 2) | 2, flow=0x5a5a5, hop=63, src=IP6_A, dst=IP6_B,
        sport=0xd00d,
        bth_args=dict(opcode=0x0a, pkey=0x8001, qpn=0xfedcba,
                      psn=0xffffff, ackreq=1),
        ext=reth(0x00007f1234567000, 0x00abcdef, 32),
        payload=payload_bytes(32, 0x80)))
    # RoCE v2 / IPv4 CNP: BECN, DestQP of the reaction point, PSN 0, 16
    # reserved bytes; DSCP 48.
    out.append(v2_ipv4(
        "v2_ipv4_cnp", eth(MAC_A, MAC_B, 0x0800),
        tos=48 << 2, ttl=64, ident=0x0001, src="192.0.2.11",
        dst="192.0.2.10", sport=0xc001,
        bth_args=dict(opcode=0x81, pkey=0xffff, qpn=0x0000d2, psn=0,
                      becn=1),
        ext=b"\0" * 16))
    # RoCE v2 / IPv6 RC Acknowledge (AETH: ACK, credits invalid), ECN CE.
    out.append(v2_ipv6(
        "v2_ipv6_rc_ack", eth(MAC_A, MAC_B, 0x86dd),
        tclass=3, flow=0, hop=64, src=IP6_B, dst=IP6_A, sport=0xc0de,
        bth_args=dict(opcode=0x11, pkey=0xffff, qpn=0x000456,
                      psn=0x000010),
        ext=aeth(0x1f, 0x000007)))
    # RoCE v1 / GRH, UD SEND Only with Immediate, 7 bytes and 1 of pad.
    out.append(v1_grh(
        "v1_grh_ud_send_only_imm", eth(MAC_B, MAC_A, 0x8915),
        tclass=0x20, flow=0xabcde, hop=1, sgid=GID_A, dgid=GID_B,
        bth_args=dict(opcode=0x65, pkey=0xffff, qpn=0x000001, psn=0x000042,
                      se=1, fecn=1, becn=1, resv6a=0x15),
        ext=deth(0x80010000, 0x000001) + struct.pack("!I", 0xdeadbeef),
        payload=payload_bytes(7, 0x11)))
    # RoCE v1 / GRH, RC SEND Only with no payload.
    out.append(v1_grh(
        "v1_grh_rc_send_only_empty", eth(MAC_B, MAC_A, 0x8915),
        tclass=0, flow=0, hop=64, sgid=GID_A, dgid=GID_B,
        bth_args=dict(opcode=0x04, pkey=0xffff, qpn=0x000011,
                      psn=0x000000)))
    return out


def c_bytes(data, indent="\t"):
    lines = []
    for i in range(0, len(data), 12):
        chunk = data[i:i + 12]
        lines.append(indent + " ".join("0x%02x," % b for b in chunk))
    return "\n".join(lines)


def emit_header(vecs, out):
    w = out.write
    w("/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */\n")
    w("/*\n * Generated by tools/unit/gen_icrc_vectors.py: do not edit.\n")
    w(" * Regenerate from the top of the tree with\n")
    w(" *   python3 tools/unit/gen_icrc_vectors.py > "
      "tools/unit/icrc_vectors.h\n")
    w(" *\n * Complete RoCE frames (Ethernet header through ICRC, no FCS)\n")
    w(" * whose ICRC was computed by an independent Python oracle.\n */\n")
    w("#ifndef SROCE_ICRC_VECTORS_H\n#define SROCE_ICRC_VECTORS_H\n\n")
    w("struct sroce_icrc_vector {\n")
    w("\tconst char *name;\n")
    w("\tunsigned int l3_type;\t/* enum sroce_l3_type */\n")
    w("\tunsigned int l3_off;\t/* L3 header offset in the frame */\n")
    w("\tunsigned int bth_off;\t/* BTH offset in the frame */\n")
    w("\tunsigned int len;\t/* frame length, ICRC included */\n")
    w("\tu32 icrc;\t\t/* stored least-significant byte first */\n")
    w("\tconst u8 *frame;\n};\n\n")
    for v in vecs:
        w("static const u8 icrc_frame_%s[] = {\n" % v["name"])
        w(c_bytes(v["frame"]) + "\n};\n\n")
    w("static const struct sroce_icrc_vector sroce_icrc_vectors[] = {\n")
    for v in vecs:
        w("\t{ \"%s\", %s, %d, %d, %d, 0x%08x, icrc_frame_%s },\n" %
          (v["name"], L3_NAMES[v["l3"]], v["l3_off"], v["bth_off"],
           len(v["frame"]), v["icrc"], v["name"]))
    w("};\n\n#endif /* SROCE_ICRC_VECTORS_H */\n")


def write_corpus(vecs, directory):
    """Seeds for tools/fuzz: first byte 0 = transport parser, else L3.

    The other modes' seeds (PFC, MODIFY_QP, commands, DCQCN, ranges) are
    built from the driver's own encoders by fuzz-standalone --corpus,
    which tools/fuzz's corpus target runs after this.
    """
    os.makedirs(directory, exist_ok=True)
    for v in vecs:
        frame = v["frame"]
        with open(os.path.join(directory, v["name"] + ".bth"), "wb") as f:
            f.write(b"\0" + frame[v["bth_off"]:])
        with open(os.path.join(directory, v["name"] + ".l3"), "wb") as f:
            f.write(bytes([v["l3"]]) + frame[v["l3_off"]:])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", metavar="DIR",
                    help="write fuzzing seeds to DIR instead of the header")
    args = ap.parse_args()
    # The well-known shortcut: the raw CRC state after eight 0xff bytes.
    assert zlib.crc32(b"\xff" * 8) ^ 0xffffffff == 0xdebb20e3
    assert crc32_raw(0xffffffff, b"\xff" * 8) == 0xdebb20e3
    vecs = vectors()
    for v in vecs:
        # The ICRC sits in the frame least-significant byte first.
        assert v["frame"][-4:] == struct.pack("<I", v["icrc"])
    if args.corpus:
        write_corpus(vecs, args.corpus)
    else:
        emit_header(vecs, sys.stdout)


if __name__ == "__main__":
    main()
