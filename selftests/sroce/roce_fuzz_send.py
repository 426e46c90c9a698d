#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send random and mutated RoCE packets (v2 over IPv4 or IPv6, v1) at a
RoCE device.

usage: roce_fuzz_send.py --dst ADDR --src ADDR [--seed N] [--count N]
                         [--peer KIND:PORT ...] [--exclude-qpn Q,...] ...
       roce_fuzz_send.py --net ipv6|roce_v1|ipv4 --link IFACE --dst-mac MAC
                         [--vlan VID] --dst ADDR --src ADDR ...
       roce_fuzz_send.py --self-test

By default (--net ipv4 without --link) every packet is a whole IPv4 + UDP
datagram built here and sent on a raw socket (IP_HDRINCL) so that each
byte the ICRC covers is known; the kernel only fills in the IPv4 total
length and header checksum, both of which are already right. With --link
every packet leaves as a whole Ethernet frame built here (an AF_PACKET
socket on IFACE, to --dst-mac, with an 802.1Q tag of VLAN VID if --vlan):
--net ipv6 is RoCE v2 over IPv6 (UDP port 4791), --net roce_v1 RoCE v1
(Ethernet type 0x8915, a GRH and the BTH, no IP or UDP; --dst and --src
are then GIDs in IPv6 notation, e.g. ::ffff:10.96.0.1), --net ipv4 the
IPv4 packets of the raw socket framed by hand. Packet classes:

  random     random bytes (sometimes behind a plausible opcode) as the UDP
             payload (RoCE v1: behind a valid GRH)
  valid      BTH + extension headers of every RC, UC, UD opcode and the CNP,
             random fields, a payload the opcode allows, correct ICRC
             (RoCE v1: some frames to the broadcast MAC address)
  masked     valid, then fields the ICRC does not cover changed (IPv4 TOS
             and TTL; IPv6 and GRH traffic class, flow label and hop
             limit; BTH byte 4, a correct UDP checksum): still valid
  mutated    valid, then bit flips, byte writes, truncation or extension
             after the ICRC was computed
  bad_icrc   valid but for the ICRC
  malformed  a broken header (bad opcode, TVer, pad, payload length, AETH
             syndrome, too short) behind a correct ICRC
  ip_options valid transport behind an IPv4 header with options (IPv4)
  ip6_ext    valid transport behind IPv6 hop-by-hop and/or destination
             options headers, with an ICRC over the headers as sent or the
             one the packet would have without them: refused either way,
             as IPv4 options are (IPv6)
  grh_broken a GRH the receiver refuses: too short, not version 6, next
             header not 0x1b, payload length beyond the frame or below
             the ICRC's 4 bytes (RoCE v1)
  padded     valid, then bytes behind what the IP or GRH length covers,
             as Ethernet pads short frames (--link)
  no_device  valid, but for nobody here: another MAC address or VLAN, the
             all-nodes IPv6 group, a GID no device has (--link)

--peer KIND:PORT plays the client side of the exchange of an
ibv_{rc,uc,ud}_pingpong server listening on ADDR:PORT, claiming a QPN
that no device owns, the start PSN and the GID of --src. The server's QP
then sits in RTS with a known expected PSN and posted receives: requests
go to it as PSN trains that lock on to its expected PSN, and
acknowledgements carry PSNs around its send PSN. (RoCE v2 over IPv4
without --link only.)

Each packet's fate at the receiver is predicted from the bytes on the
wire: dropped by UDP for a wrong checksum ("udp_drop"), refused before a
device is looked up ("unparsable": IPv4 options, IPv6 extension
headers, a broken GRH), dropped
for a bad ICRC, dropped as malformed (a transport header the IBA rules
refuse), handed to the QP its BTH names ("delivered"), or for no device
at all ("no_device": a frame for another MAC address or VLAN, a
destination GID no device of the receiver's namespace has). Only
bad_icrc, malformed and delivered move the device's counters.
With --exclude-qpn no delivered packet names one of those QPNs, so a
connection running there must not notice the storm.

The output is deterministic for a --seed, the same options and the same
peers. The last lines summarize what was sent; "# fuzz-predict:
udp_drop=A unparsable=B bad_icrc=C malformed=D delivered=E no_device=F" is
meant for comparison with the receiver's counters. --self-test builds
packets of every kind without sending them and checks their ICRCs
against an independent computation and their predicted fates.
"""
import argparse
import os
import random
import socket
import struct
import sys
import time
import zlib

ROCE_PORT = 4791
MTU = 1500
IP_LEN = 20
UDP_LEN = 8
BTH_LEN = 12
ICRC_LEN = 4
MAX_PAYLOAD = 4096
PP_QKEY = 0x11111111        # ibv_ud_pingpong's Q_Key
GSI_QKEY = 0x80010000
FAKE_QPN = 0xf00000          # QPNs claimed by our fake peers (no device has them)

# RoCE v2 over IPv6 and RoCE v1, Ethernet framing (--link).
IP6_LEN = 40
GRH_LEN = 40                 # an IPv6 header's layout
GRH_NEXT_HDR = 0x1b          # next header of a GRH followed by a BTH
ETH_P_IP = 0x0800
ETH_P_IPV6 = 0x86dd
ETH_P_8021Q = 0x8100
ETH_P_ROCE_V1 = 0x8915
BROADCAST_MAC = b"\xff" * 6
ALL_NODES = socket.inet_pton(socket.AF_INET6, "ff02::1")
ALL_NODES_MAC = b"\x33\x33\x00\x00\x00\x01"
# The IPv6 extension headers sent: hop-by-hop and destination options,
# 8 bytes each (a PadN option of 4 zero bytes, which the IPv6 stack
# accepts: at most 7 bytes of padding, all zero).
IP6_HOPOPTS = 0
IP6_DSTOPTS = 60
IP6_EXT_HDRS = (IP6_HOPOPTS, IP6_DSTOPTS)
NETS = ("ipv4", "ipv6", "roce_v1")

# Extension headers in wire order, with their lengths.
DETH, FETH, RETH, ATMETH, IMMDT, IETH, AETH, ATMACK, CNPR = range(9)
EXT_LEN = {DETH: 8, FETH: 4, RETH: 16, ATMETH: 28, IMMDT: 4, IETH: 4,
           AETH: 4, ATMACK: 8, CNPR: 16}

# Packet position in a message.
FIRST, MIDDLE, LAST, ONLY = "first", "middle", "last", "only"


class Op:
    """One valid opcode: where it sits in a message and what follows the BTH."""

    def __init__(self, code, name, pos, payload, exts, resp=False):
        self.code = code
        self.name = name
        self.pos = pos
        self.payload = payload      # "none", "data" or "atomic8"
        self.exts = exts
        self.resp = resp
        self.hdr_len = BTH_LEN + sum(EXT_LEN[e] for e in exts)


def _opcodes():
    ops = {}
    # (op, name, position, payload, extension headers, response)
    common = [
        (0x00, "SEND_FIRST", FIRST, "data", []),
        (0x01, "SEND_MIDDLE", MIDDLE, "data", []),
        (0x02, "SEND_LAST", LAST, "data", []),
        (0x03, "SEND_LAST_IMM", LAST, "data", [IMMDT]),
        (0x04, "SEND_ONLY", ONLY, "data", []),
        (0x05, "SEND_ONLY_IMM", ONLY, "data", [IMMDT]),
        (0x06, "WRITE_FIRST", FIRST, "data", [RETH]),
        (0x07, "WRITE_MIDDLE", MIDDLE, "data", []),
        (0x08, "WRITE_LAST", LAST, "data", []),
        (0x09, "WRITE_LAST_IMM", LAST, "data", [IMMDT]),
        (0x0a, "WRITE_ONLY", ONLY, "data", [RETH]),
        (0x0b, "WRITE_ONLY_IMM", ONLY, "data", [RETH, IMMDT]),
    ]
    rc_only = [
        (0x0c, "READ_REQ", ONLY, "none", [RETH]),
        (0x0d, "READ_RESP_FIRST", FIRST, "data", [AETH], True),
        (0x0e, "READ_RESP_MIDDLE", MIDDLE, "data", [], True),
        (0x0f, "READ_RESP_LAST", LAST, "data", [AETH], True),
        (0x10, "READ_RESP_ONLY", ONLY, "data", [AETH], True),
        (0x11, "ACK", ONLY, "none", [AETH], True),
        (0x12, "ATOMIC_ACK", ONLY, "none", [AETH, ATMACK], True),
        (0x13, "CMP_SWAP", ONLY, "none", [ATMETH]),
        (0x14, "FETCH_ADD", ONLY, "none", [ATMETH]),
        (0x16, "SEND_LAST_INV", LAST, "data", [IETH]),
        (0x17, "SEND_ONLY_INV", ONLY, "data", [IETH]),
        (0x1c, "FLUSH", ONLY, "none", [FETH, RETH]),
        (0x1d, "ATOMIC_WRITE", ONLY, "atomic8", [RETH]),
    ]
    for e in common + rc_only:
        ops[e[0]] = Op(e[0], "RC_" + e[1], *e[2:])
    for e in common:
        ops[0x20 | e[0]] = Op(0x20 | e[0], "UC_" + e[1], *e[2:])
    ops[0x64] = Op(0x64, "UD_SEND_ONLY", ONLY, "data", [DETH])
    ops[0x65] = Op(0x65, "UD_SEND_ONLY_IMM", ONLY, "data", [DETH, IMMDT])
    ops[0x81] = Op(0x81, "CNP", ONLY, "none", [CNPR])
    return ops


OPS = _opcodes()
RC_OPS = sorted(c for c in OPS if c < 0x20)
UC_OPS = sorted(c for c in OPS if 0x20 <= c < 0x40)
UD_OPS = [0x64, 0x65]
ALL_OPS = sorted(OPS)


def damage(rng, pkt, start, r):
    """The mutations every kind of packet shares, for r 0..4, from byte
    @start on: bit flips, byte writes, truncation (those three only if
    there are bytes there), extension. False: the caller's own for r."""
    if r <= 1 and len(pkt) > start:              # bit flips
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(start, len(pkt))
            pkt[i] ^= 1 << rng.randrange(8)
    elif r == 2 and len(pkt) > start:            # byte writes
        for _ in range(rng.randint(1, 4)):
            i = rng.randrange(start, min(len(pkt), start + 48))
            pkt[i] = rng.getrandbits(8)
    elif r == 3 and len(pkt) > start:            # truncation
        del pkt[rng.randint(start, len(pkt) - 1):]
    elif r == 4:                                 # extension
        room = MTU - len(pkt)
        pkt += rng.randbytes(rng.randint(1, max(1, min(room, 64))))
    else:
        return False
    return True


# --- checksums ----------------------------------------------------------

def inet_csum(data):
    if len(data) & 1:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def udp_csum(src, dst, udp):
    pseudo = src + dst + struct.pack("!BBH", 0, socket.IPPROTO_UDP, len(udp))
    c = inet_csum(pseudo + udp)
    return c or 0xffff


def icrc(ip, udp, transport):
    """ICRC over IPv4 header (no options), UDP header and transport bytes."""
    m = bytearray(ip[:IP_LEN] + udp[:UDP_LEN] + transport[:BTH_LEN])
    m[1] = 0xff                     # TOS
    m[8] = 0xff                     # TTL
    m[10:12] = b"\xff\xff"          # header checksum
    m[IP_LEN + 6:IP_LEN + 8] = b"\xff\xff"     # UDP checksum
    if len(m) > IP_LEN + UDP_LEN + 4:
        m[IP_LEN + UDP_LEN + 4] = 0xff          # FECN, BECN, Resv6a
    crc = zlib.crc32(b"\xff" * 8 + bytes(m))
    crc = zlib.crc32(transport[BTH_LEN:], crc)
    return struct.pack("<I", crc & 0xffffffff)


def udp6_csum(src, dst, udp):
    pseudo = src + dst + struct.pack("!IxxxB", len(udp), socket.IPPROTO_UDP)
    c = inet_csum(pseudo + udp)
    return c or 0xffff


def mask_ip6(m):
    """Mask traffic class, flow label and hop limit of an IPv6 header or
    GRH (bytearray m from its first byte) as the ICRC does."""
    m[0] |= 0x0f
    m[1:4] = b"\xff\xff\xff"
    m[7] = 0xff


def icrc_rx(l3, n, net):
    """The ICRC sroce computes over the first n bytes of l3 (IP header or
    GRH through the pad), or None where it cannot compute one (an ICRC
    error at the receiver).

    As drivers/lib/icrc.c: the fixed headers are taken to be a 20-byte
    IPv4 or 40-byte IPv6 header and an 8-byte UDP header (RoCE v2), or the
    40-byte GRH (RoCE v1), then a 12-byte BTH, whatever l3 really holds
    there: behind IPv6 extension headers the first 8 bytes after the IPv6
    header are masked as if they were the UDP header.
    """
    ip_len = IP_LEN if net == "ipv4" else IP6_LEN
    fixed = ip_len + (0 if net == "roce_v1" else UDP_LEN)
    if n < fixed + BTH_LEN:
        return None
    m = bytearray(l3[:fixed + BTH_LEN])
    if net == "ipv4":
        m[1] = 0xff                 # TOS
        m[8] = 0xff                 # TTL
        m[10:12] = b"\xff\xff"      # header checksum
    else:
        mask_ip6(m)
    if net != "roce_v1":
        m[ip_len + 6:ip_len + 8] = b"\xff\xff"     # UDP checksum
    m[fixed + 4] = 0xff                             # FECN, BECN, Resv6a
    crc = zlib.crc32(b"\xff" * 8 + bytes(m))
    crc = zlib.crc32(bytes(l3[fixed + BTH_LEN:n]), crc)
    return struct.pack("<I", crc & 0xffffffff)


def icrc_tx(data, net):
    """The ICRC to append to data (IPv6 header or GRH through the pad):
    icrc_rx()'s, or where the receiver computes none (a transport shorter
    than a BTH) a CRC over what there is."""
    return icrc_rx(data, len(data), net) or \
        struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(data)))


# --- headers ------------------------------------------------------------

def ipv4_hdr(total, ident, src, dst, tos=0, ttl=64, options=b""):
    ihl = (IP_LEN + len(options)) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, total, ident, 0x4000,
                    ttl, socket.IPPROTO_UDP, 0, src, dst) + options
    return h[:10] + struct.pack("!H", inet_csum(h)) + h[12:]


def udp_hdr(sport, length, csum=0):
    return struct.pack("!HHHH", sport, ROCE_PORT, length, csum)


def ipv6_hdr(payload_len, nexthdr, src, dst, tclass=0, flow=0, hop=64):
    """An IPv6 header; with nexthdr GRH_NEXT_HDR a RoCE v1 GRH."""
    return struct.pack("!IHBB16s16s", 6 << 28 | tclass << 20 | flow,
                       payload_len, nexthdr, hop, src, dst)


def ip6_ext_hdr(nexthdr):
    """An 8-byte hop-by-hop or destination options header: PadN only."""
    return bytes([nexthdr, 0, 1, 4, 0, 0, 0, 0])


def ip6_udp_offset(pkt):
    """Offset of the UDP header behind the IPv6 header and the extension
    headers this sender puts there; None if there is none."""
    nh, off = pkt[6], IP6_LEN
    while nh in IP6_EXT_HDRS:
        if off + 8 > len(pkt):
            return None
        nh, off = pkt[off], off + 8 * (pkt[off + 1] + 1)
    return off if nh == socket.IPPROTO_UDP else None


def eth_frame(dst_mac, src_mac, ethertype, vlan, pcp, l3):
    """An Ethernet frame around l3, with an 802.1Q tag unless vlan is None."""
    tag = b"" if vlan is None else struct.pack("!HH", ETH_P_8021Q,
                                               pcp << 13 | vlan)
    return dst_mac + src_mac + tag + struct.pack("!H", ethertype) + l3


def bth(opcode, se, mig, pad, tver, pkey, byte4, qpn, ackreq, resv7, psn):
    return struct.pack("!BBHB3sB3s", opcode,
                       (se << 7) | (mig << 6) | (pad << 4) | tver, pkey,
                       byte4, qpn.to_bytes(3, "big"),
                       (ackreq << 7) | resv7, psn.to_bytes(3, "big"))


def ext_bytes(rng, e, f):
    """One extension header from the field dict f (random where absent)."""
    if e == DETH:
        return struct.pack("!IB3s", f["qkey"], 0, f["sqp"].to_bytes(3, "big"))
    if e == FETH:
        return struct.pack("!I", rng.getrandbits(6))
    if e == RETH:
        return struct.pack("!QII", f["va"], f["rkey"], f["dlen"])
    if e == ATMETH:
        return struct.pack("!QIQQ", f["va"] & ~7 if rng.random() < 0.7
                           else f["va"], f["rkey"], rng.getrandbits(64),
                           rng.getrandbits(64))
    if e in (IMMDT, IETH):
        return struct.pack("!I", rng.getrandbits(32))
    if e == AETH:
        return struct.pack("!B3s", f["syndrome"], rng.getrandbits(24)
                           .to_bytes(3, "big"))
    if e == ATMACK:
        return struct.pack("!Q", rng.getrandbits(64))
    return bytes(16)                # CNP reserved


# --- what the receiver makes of a packet --------------------------------

def syndrome_ok(op, syn):
    t = syn & 0x60
    if t == 0x00:
        return True
    if t == 0x20:
        return op.name == "RC_ACK"
    if t == 0x60:
        return op.name == "RC_ACK" and (syn & 0x1f) <= 4
    return False


def parse_ok(tp):
    """Whether the IBA rules accept the UDP payload (BTH through ICRC)."""
    if len(tp) < BTH_LEN + ICRC_LEN:
        return False
    op = OPS.get(tp[0])
    if op is None or tp[1] & 0x0f:
        return False
    if len(tp) < op.hdr_len + ICRC_LEN:
        return False
    span = len(tp) - op.hdr_len - ICRC_LEN
    pad = (tp[1] >> 4) & 3
    if span & 3 or pad > span:
        return False
    n = span - pad
    if op.payload == "none":
        if n:
            return False
    else:
        if n > MAX_PAYLOAD:
            return False
        if op.pos in (FIRST, MIDDLE) and (n < 256 or n & (n - 1)):
            return False
        if op.pos == LAST and not n:
            return False
        if op.payload == "atomic8" and n != 8:
            return False
    if AETH in op.exts:
        off = BTH_LEN + sum(EXT_LEN[e] for e in op.exts[:op.exts.index(AETH)])
        if not syndrome_ok(op, tp[off]):
            return False
    return True


FATES = ("udp_drop", "unparsable", "bad_icrc", "malformed", "delivered",
         "no_device")


def predict(pkt):
    """Fate of a whole IPv4 datagram at the receiver, one of FATES.

    udp_drop: a wrong UDP checksum, dropped before sroce sees it;
    unparsable: refused before the device is known (IPv4 options);
    bad_icrc, malformed: dropped by the device; delivered: handed to the
    QP the BTH names, if there is one.
    """
    ihl = (pkt[0] & 0x0f) * 4
    if pkt[ihl + 6:ihl + 8] != b"\0\0":
        u = bytearray(pkt[ihl:])
        u[6:8] = b"\0\0"
        if udp_csum(pkt[12:16], pkt[16:20], bytes(u)) != \
                struct.unpack("!H", pkt[ihl + 6:ihl + 8])[0]:
            return "udp_drop"
    if ihl != IP_LEN:
        return "unparsable"
    udp = pkt[IP_LEN:IP_LEN + UDP_LEN]
    ulen = struct.unpack("!H", udp[4:6])[0]
    tp = pkt[IP_LEN + UDP_LEN:IP_LEN + ulen]
    # The ICRC needs the BTH (fixed headers) and its own 4 bytes.
    if ulen < UDP_LEN + BTH_LEN + ICRC_LEN:
        return "bad_icrc"
    if icrc(pkt[:IP_LEN], udp, tp[:-ICRC_LEN]) != tp[-ICRC_LEN:]:
        return "bad_icrc"
    return "delivered" if parse_ok(tp) else "malformed"


def dest_qpn(pkt):
    return int.from_bytes(pkt[IP_LEN + UDP_LEN + 5:IP_LEN + UDP_LEN + 8],
                          "big")


def predict_ipv6(pkt, dst):
    """Fate of a whole IPv6 packet (one this sender built: a valid IPv6
    header and extension header chain, lengths that fit) whose Ethernet
    frame reached the receiver; dst is the device's address.

    The IPv6 stack trims what follows the payload length, delivers to
    local addresses only and passes a zero UDP checksum (sroce's socket
    accepts one, RFC 6936) but drops a wrong one. sroce_fw_rx_v2()
    takes any address its namespace's devices do not have, the multicast
    ones included (no group here), for no device; it applies no hop limit
    and refuses extension headers before it looks for a device, as it
    refuses IPv4 options (the ICRC covers a UDP header right behind the
    IPv6 one).
    """
    plen = struct.unpack("!H", pkt[4:6])[0]
    pkt = pkt[:IP6_LEN + plen]
    if pkt[24:40] != dst:
        return "no_device"
    off = ip6_udp_offset(pkt)
    ulen = struct.unpack("!H", pkt[off + 4:off + 6])[0]
    csum = struct.unpack("!H", pkt[off + 6:off + 8])[0]
    if csum:
        u = bytearray(pkt[off:off + ulen])
        u[6:8] = b"\0\0"
        if udp6_csum(pkt[8:24], pkt[24:40], bytes(u)) != csum:
            return "udp_drop"
    if off != IP6_LEN:
        return "unparsable"
    # From the IPv6 header to the end of the UDP datagram, less the ICRC.
    n = off + ulen - ICRC_LEN
    if ulen < UDP_LEN + ICRC_LEN or \
            icrc_rx(pkt, n, "ipv6") != pkt[n:n + ICRC_LEN]:
        return "bad_icrc"
    return "delivered" if parse_ok(pkt[off + UDP_LEN:off + ulen]) \
        else "malformed"


def predict_roce_v1(pkt, dst):
    """Fate of a RoCE v1 packet (from the GRH to the end of the Ethernet
    frame) that reached the receiver's netdev; dst is the device's GID.

    As sroce_fw_rx_v1(): a frame shorter than a GRH, a GRH of another
    version or next header, or a payload length below 4 or beyond the
    frame is refused before a device is looked up; bytes behind the
    payload length are Ethernet padding; a destination GID of no RoCE v1
    entry in the namespace is for no device.
    """
    if len(pkt) < GRH_LEN:
        return "unparsable"
    plen = struct.unpack("!H", pkt[4:6])[0]
    if pkt[0] >> 4 != 6 or pkt[6] != GRH_NEXT_HDR or plen < ICRC_LEN or \
            plen > len(pkt) - GRH_LEN:
        return "unparsable"
    if pkt[24:40] != dst:
        return "no_device"
    n = GRH_LEN + plen - ICRC_LEN
    if icrc_rx(pkt, n, "roce_v1") != pkt[n:n + ICRC_LEN]:
        return "bad_icrc"
    return "delivered" if parse_ok(pkt[GRH_LEN:GRH_LEN + plen]) \
        else "malformed"


# --- peers (fake pingpong clients) --------------------------------------

class Target:
    def __init__(self, kind, qpn, epsn, spsn):
        self.kind = kind        # rc, uc, ud
        self.qpn = qpn          # the server's QP
        self.epsn = epsn        # the PSN it expects first (ours)
        self.spsn = spsn        # the PSN it sends first
        self.guess = epsn       # where we think its expected PSN is now
        self.sent = 0
        self.train = []         # opcodes still to send in this train
        self.train_psn = 0


def pingpong_client(host, port, kind, fake_qpn, psn, gid):
    """The exchange of rdma-core's *_pingpong examples, client side."""
    deadline = time.time() + 20
    while True:
        try:
            s = socket.create_connection((host, port), timeout=20)
            break
        except OSError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)
    with s:
        msg = ("%04x:%06x:%06x:%s" % (0, fake_qpn, psn, gid)).encode() + b"\0"
        s.sendall(msg)
        reply = b""
        while len(reply) < len(msg):
            chunk = s.recv(len(msg) - len(reply))
            if not chunk:
                raise OSError("%s server on port %d closed the exchange" %
                              (kind, port))
            reply += chunk
        s.sendall(b"done\0")
        # The server reads "done" before closing: wait for that.
        s.settimeout(5)
        try:
            s.recv(1)
        except OSError:
            pass
    lid, qpn, spsn = (int(x, 16) for x in reply.split(b":")[:3])
    return Target(kind, qpn, psn, spsn)


# --- packet generation --------------------------------------------------

class Fuzzer:
    def __init__(self, args, src_mac=bytes(6)):
        self.a = args
        self.net = args.net
        if self.net == "ipv4":
            self.src = socket.inet_aton(args.src)
            self.dst = socket.inet_aton(args.dst)
        else:
            self.src = socket.inet_pton(socket.AF_INET6, args.src)
            self.dst = socket.inet_pton(socket.AF_INET6, args.dst)
        # Headers in front of the transport packet that the MTU must hold
        # (IPv6: room for two extension headers as well).
        self.hroom = {"ipv4": IP_LEN + UDP_LEN,
                      "ipv6": IP6_LEN + 16 + UDP_LEN,
                      "roce_v1": GRH_LEN}[self.net]
        self.link = args.link is not None
        self.dst_mac = bytes.fromhex(args.dst_mac.replace(":", "")) \
            if args.dst_mac else None
        self.src_mac = src_mac
        self.vlan = args.vlan
        self.ethertype = {"ipv4": ETH_P_IP, "ipv6": ETH_P_IPV6,
                          "roce_v1": ETH_P_ROCE_V1}[self.net]
        if not self.link:
            self.classes = self.CLASSES
        elif self.net == "ipv4":
            self.classes = self.CLASSES + [("padded", 2), ("no_device", 3)]
        elif self.net == "ipv6":
            self.classes = self.CLASSES_IPV6
        else:
            self.classes = self.CLASSES_ROCE_V1
        self.targets = []
        self.exclude = set(args.exclude_qpn)
        self.fate = dict.fromkeys(FATES, 0)
        self.to_target = 0

    # fields ---------------------------------------------------------

    def pick_qpn(self, rng, kind=None):
        if kind and self.targets and rng.random() < 0.6:
            t = [x for x in self.targets if x.kind == kind]
            if t:
                return rng.choice(t)
        r = rng.random()
        if r < 0.1:
            q = 1                               # GSI
        elif r < 0.13:
            q = rng.getrandbits(24)
        else:
            q = rng.randint(0, self.a.qpn_max)
        return q

    def payload_len(self, rng, op, room):
        if op.payload == "none":
            return 0
        if op.payload == "atomic8":
            return 8
        if op.pos in (FIRST, MIDDLE):
            return rng.choice([p for p in (256, 512, 1024) if p <= room])
        lo = 1 if op.pos == LAST else 0
        if rng.random() < 0.6:
            return rng.randint(lo, min(64, room))
        return rng.randint(lo, room)

    def transport(self, rng, opcode, qpn, psn, qkey=None, plen=None,
                  ackreq=None, syndrome=None):
        """BTH, extension headers, payload and pad of a valid packet."""
        op = OPS[opcode]
        room = MTU - self.hroom - op.hdr_len - ICRC_LEN - 3
        if plen is None:
            plen = self.payload_len(rng, op, room)
        pad = -plen & 3
        f = {
            "qkey": qkey if qkey is not None else rng.choice(
                [PP_QKEY, GSI_QKEY, rng.getrandbits(32)]),
            "sqp": rng.getrandbits(24),
            "va": rng.choice([0, rng.getrandbits(64), rng.getrandbits(32)]),
            "rkey": rng.getrandbits(32),
            "dlen": rng.choice([plen, 0, rng.getrandbits(12),
                                rng.getrandbits(32)]),
            "syndrome": syndrome,
        }
        if self.exclude:
            # Answers to our UD sends (GSI) must not reach a protected QP.
            f["sqp"] = rng.randint(0x100000, 0xffffff)
        if syndrome is None:
            if op.name == "RC_ACK":
                f["syndrome"] = rng.choice(
                    [rng.randint(0, 0x1f), 0x1f, rng.randint(0x20, 0x3f),
                     rng.randint(0x60, 0x64), 0x60])
            else:
                f["syndrome"] = rng.randint(0, 0x1f)
            if rng.random() < 0.1:
                f["syndrome"] |= 0x80           # reserved bit, ignored
        hdr = bth(opcode, rng.getrandbits(1), rng.getrandbits(1), pad, 0,
                  0xffff if rng.random() < 0.9 else rng.getrandbits(16),
                  rng.getrandbits(8) if rng.random() < 0.2 else 0,
                  qpn, rng.getrandbits(1) if ackreq is None else ackreq,
                  rng.getrandbits(7) if rng.random() < 0.1 else 0, psn)
        hdr += b"".join(ext_bytes(rng, e, f) for e in op.exts)
        if opcode in UD_OPS and qkey == GSI_QKEY and plen >= 24:
            body = self.mad(rng, plen)
        else:
            body = rng.randbytes(plen)
        padb = rng.randbytes(pad) if rng.random() < 0.3 else bytes(pad)
        return hdr + body + padb

    def mad(self, rng, n):
        """A MAD-shaped payload: plausible common header, random rest."""
        cls = rng.choice([0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x09, 0x0a,
                          0x10, 0x81, rng.getrandbits(8)])
        head = struct.pack("!BBBBHHQHHI", 1, cls, rng.choice([1, 2, 3]),
                           rng.choice([1, 2, 3, 5, 6, 7, 0x81, 0x86,
                                       rng.getrandbits(8)]),
                           0, 0, rng.getrandbits(64),
                           rng.choice([0x10, 0x11, 0x12, 0x13, 0x14, 0x15,
                                       0x16, 0x17, 0x18, 0x19,
                                       rng.getrandbits(16)]),
                           0, rng.getrandbits(32))
        return (head + rng.randbytes(max(0, n - len(head))))[:n]

    def datagram(self, rng, tp, csum=False, tos=0, ttl=64, options=b"",
                 with_icrc=True):
        """IPv4 + UDP around tp; the ICRC is appended if with_icrc."""
        ident = rng.randint(1, 0xffff)
        sport = rng.randint(0xc000, 0xffff)
        length = len(tp) + (ICRC_LEN if with_icrc else 0)
        ip = ipv4_hdr(IP_LEN + len(options) + UDP_LEN + length, ident,
                      self.src, self.dst, tos, ttl, options)
        udp = udp_hdr(sport, UDP_LEN + length)
        if with_icrc:
            # ICRC as the receiver computes it: over the first 20 bytes of
            # the IP header, which with options is not the whole header.
            tp += icrc(ip, udp, tp)
        if csum:
            udp = udp_hdr(sport, UDP_LEN + length,
                          udp_csum(self.src, self.dst, udp + tp))
        return bytearray(ip + udp + tp)

    def datagram6(self, rng, tp, csum=False, tclass=0, flow=0, hop=64,
                  exts=(), dst=None, with_icrc=True, icrc_plain=False):
        """IPv6 + extension headers (next header values exts) + UDP around
        tp; the ICRC is appended if with_icrc: the one sroce computes
        for the packet (icrc_rx()), or with icrc_plain the one it would
        carry without its extension headers."""
        dst = dst or self.dst
        sport = rng.randint(0xc000, 0xffff)
        length = UDP_LEN + len(tp) + (ICRC_LEN if with_icrc else 0)
        chain = list(exts) + [socket.IPPROTO_UDP]
        ext = b"".join(ip6_ext_hdr(nh) for nh in chain[1:])
        ip = ipv6_hdr(len(ext) + length, chain[0], self.src, dst, tclass,
                      flow, hop)
        udp = udp_hdr(sport, length)
        if with_icrc:
            if icrc_plain:
                tp += icrc_tx(ipv6_hdr(length, socket.IPPROTO_UDP, self.src,
                                       dst, tclass, flow, hop) + udp + tp,
                              "ipv6")
            else:
                tp += icrc_tx(ip + ext + udp + tp, "ipv6")
        if csum:
            udp = udp_hdr(sport, length, udp6_csum(self.src, dst, udp + tp))
        return bytearray(ip + ext + udp + tp)

    def grh_packet(self, rng, tp, tclass=0, flow=0, hop=64, dst=None,
                   with_icrc=True):
        """A GRH (to GID dst, the device's by default) in front of tp; the
        ICRC is appended if with_icrc."""
        length = len(tp) + (ICRC_LEN if with_icrc else 0)
        grh = ipv6_hdr(length, GRH_NEXT_HDR, self.src, dst or self.dst,
                       tclass, flow, hop)
        if with_icrc:
            tp += icrc_tx(grh + tp, "roce_v1")
        return bytearray(grh + tp)

    def l3(self, rng, tp, csum=False, tclass=0, flow=0, hop=64, dst=None,
           with_icrc=True):
        """tp behind the L3 headers of --net (IPv4 + UDP as datagram())."""
        if self.net == "ipv4":
            return self.datagram(rng, tp, csum=csum, tos=tclass, ttl=hop,
                                 with_icrc=with_icrc)
        if self.net == "ipv6":
            return self.datagram6(rng, tp, csum, tclass, flow, hop, dst=dst,
                                  with_icrc=with_icrc)
        return self.grh_packet(rng, tp, tclass, flow, hop, dst, with_icrc)

    # classes ---------------------------------------------------------

    def target_packet(self, rng, t):
        """A packet for a live peer QP, in a PSN train or an ACK."""
        t.sent += 1
        if t.kind == "ud":
            op = rng.choice(UD_OPS)
            qkey = PP_QKEY if rng.random() < 0.8 else rng.getrandbits(32)
            # Mostly what fits the server's 1024 + 40 byte buffers.
            plen = rng.choice([rng.randint(0, 64), rng.randint(0, 1024)])
            if rng.random() < 0.03:
                plen = rng.randint(1025, 1400)
            plen = min(plen, MTU - self.hroom - OPS[op].hdr_len - 8)
            return self.transport(rng, op, t.qpn, rng.getrandbits(24), qkey,
                                  plen)
        base = 0x20 if t.kind == "uc" else 0
        if t.kind == "rc" and rng.random() < 0.25:
            # Acknowledgements for what the server sends (from spsn on).
            op = rng.choice([0x11, 0x11, 0x11, 0x0d, 0x0e, 0x0f, 0x10, 0x12])
            psn = (t.spsn + rng.randint(-4, 64)) & 0xffffff
            r = rng.random()
            syn = 0x1f if op != 0x11 or r < 0.7 else \
                rng.randint(0, 0x1e) if r < 0.9 else \
                rng.randint(0x20, 0x3f) if r < 0.95 else \
                rng.randint(0x60, 0x64)
            return self.transport(rng, op, t.qpn, psn, syndrome=syn)
        if not t.train:
            # Start a train where the QP should be, or a little before
            # (with duplicates first), sometimes anywhere in what we sent.
            r = rng.random()
            back = 0
            if r < 0.1:
                start = t.epsn + rng.randint(0, t.sent)
            else:
                back = rng.randint(1, 8) if r < 0.3 else 0
                start = t.guess - back
            t.train_psn = start & 0xffffff
            t.train = [base | 0x04] * back
            for _ in range(rng.randint(4, 24)):
                r = rng.random()
                if r < 0.6:
                    t.train.append(base | rng.choice([0x04, 0x05]))
                elif r < 0.9:
                    m = [base | 0x00]
                    m += [base | 0x01] * rng.randint(0, 2)
                    m.append(base | rng.choice([0x02, 0x03]))
                    t.train.extend(m)
                else:
                    t.train.append(rng.choice(RC_OPS if base == 0
                                              else UC_OPS))
            t.guess = (t.train_psn + len(t.train)) & 0xffffff
        op = t.train.pop(0)
        psn = t.train_psn
        t.train_psn = (t.train_psn + 1) & 0xffffff
        plen = None
        if OPS[op].name.endswith(("SEND_ONLY", "SEND_ONLY_IMM", "SEND_LAST",
                                  "SEND_LAST_IMM")) and rng.random() < 0.7:
            # Fits the server's 4096-byte receive buffer.
            plen = rng.randint(1, 1024)
        return self.transport(rng, op, t.qpn, psn, plen=plen,
                              ackreq=1 if rng.random() < 0.5 else 0)

    def valid_transport(self, rng):
        opcode = rng.choice(ALL_OPS)
        kind = "rc" if opcode < 0x20 else "uc" if opcode < 0x40 else \
            "ud" if opcode < 0x80 else None
        q = self.pick_qpn(rng, kind)
        if isinstance(q, Target):
            return self.target_packet(rng, q)
        qkey = None
        if q == 1 and opcode in UD_OPS and rng.random() < 0.8:
            qkey = GSI_QKEY
            plen = 256 if rng.random() < 0.8 else rng.randint(0, 1400)
            plen = min(plen, MTU - self.hroom - 24 - 8)
            return self.transport(rng, opcode, q, rng.getrandbits(24), qkey,
                                  plen)
        return self.transport(rng, opcode, q, rng.getrandbits(24), qkey)

    def malformed_transport(self, rng):
        """A transport header the IBA rules refuse (ICRC added later)."""
        tp = bytearray(self.valid_transport(rng))
        op = OPS[tp[0]]
        r = rng.randint(0, 8)
        if r == 0:                          # opcode nobody supports
            tp[0] = rng.choice([c for c in range(256) if c not in OPS])
        elif r == 1:                        # TVer
            tp[1] = (tp[1] & 0xf0) | rng.randint(1, 15)
        elif r == 2:                        # shorter than its headers
            del tp[rng.randint(0, max(0, op.hdr_len - 1)):]
        elif r == 3:                        # payload not a multiple of 4
            tp += rng.randbytes(rng.randint(1, 3))
        elif r == 4:                        # PadCnt beyond the payload
            del tp[op.hdr_len:]
            tp[1] = (tp[1] & 0xcf) | (rng.randint(1, 3) << 4)
        elif r == 5:                        # payload where none belongs
            tp[0] = rng.choice([c for c in OPS if OPS[c].payload == "none"])
            tp = tp[:OPS[tp[0]].hdr_len] + rng.randbytes(
                4 * rng.randint(1, 16))
            tp[1] &= 0xcf
        elif r == 6:                        # FIRST/MIDDLE not a power of 2
            tp[0] = rng.choice([c for c in OPS if OPS[c].pos in
                                (FIRST, MIDDLE)])
            n = 4 * rng.randint(1, 300)
            if n >= 256 and not n & (n - 1):
                n += 4
            tp = tp[:OPS[tp[0]].hdr_len] + rng.randbytes(n)
            tp[1] &= 0xcf
        elif r == 7:                        # AETH syndrome
            tp[0] = rng.choice([0x0d, 0x0f, 0x10, 0x12])
            h = OPS[tp[0]].hdr_len
            tp = tp[:h] + bytes(max(0, h - len(tp))) + \
                (rng.randbytes(256) if tp[0] != 0x12 else b"")
            tp[1] &= 0xcf
            tp[BTH_LEN] = rng.choice([0x40, 0x45, 0x20, 0x3f, 0x60, 0x65])
        else:                               # empty LAST, bad ATOMIC WRITE
            tp[0] = rng.choice([0x02, 0x08, 0x0f, 0x22, 0x28, 0x1d])
            h = OPS[tp[0]].hdr_len
            tp = tp[:h] + bytes(max(0, h - len(tp)))
            if tp[0] == 0x1d:
                tp += rng.randbytes(rng.choice([4, 12, 16]))
            tp[1] &= 0xcf
        return bytes(tp)

    def mutate(self, rng, pkt):
        """Damage a finished datagram (after its ICRC)."""
        start = IP_LEN + UDP_LEN
        for _ in range(rng.randint(1, 3)):
            r = rng.randint(0, 6)
            if damage(rng, pkt, start, r):
                pass
            elif r == 5:                             # covered IP fields
                pkt[4:6] = struct.pack("!H", rng.randint(1, 0xffff))
            else:                                    # UDP source port
                pkt[20:22] = struct.pack("!H", rng.getrandbits(16))
        del pkt[MTU:]
        return self.fix_lengths(pkt)

    @staticmethod
    def fix_lengths(pkt):
        """Keep the IP and UDP lengths right (the kernel insists)."""
        ihl = (pkt[0] & 0x0f) * 4
        pkt[2:4] = struct.pack("!H", len(pkt))
        pkt[10:12] = b"\0\0"
        pkt[10:12] = struct.pack("!H", inet_csum(bytes(pkt[:ihl])))
        pkt[ihl + 4:ihl + 6] = struct.pack("!H", len(pkt) - ihl)
        pkt[ihl + 6:ihl + 8] = b"\0\0"
        return pkt

    def make(self, rng, cls):
        if cls == "random":
            n = rng.randint(0, MTU - IP_LEN - UDP_LEN)
            body = rng.randbytes(n)
            if n and rng.random() < 0.5:
                body = bytes([rng.choice(ALL_OPS), rng.getrandbits(8) & 0xf0]) \
                    + body[2:]
            return self.datagram(rng, body, with_icrc=False)
        if cls == "valid":
            return self.datagram(rng, self.valid_transport(rng),
                                 csum=rng.random() < 0.2)
        if cls == "masked":
            pkt = self.datagram(rng, self.valid_transport(rng),
                                tos=rng.getrandbits(8),
                                ttl=rng.randint(1, 255),
                                csum=rng.random() < 0.5)
            pkt[IP_LEN + UDP_LEN + 4] = rng.getrandbits(8)
            if pkt[IP_LEN + 6:IP_LEN + 8] != b"\0\0":
                pkt[IP_LEN + 6:IP_LEN + 8] = b"\0\0"
                pkt[IP_LEN + 6:IP_LEN + 8] = struct.pack(
                    "!H", udp_csum(self.src, self.dst, bytes(pkt[IP_LEN:])))
            return pkt
        if cls == "mutated":
            return self.mutate(rng, self.datagram(rng,
                                                  self.valid_transport(rng)))
        if cls == "bad_icrc":
            pkt = self.datagram(rng, self.valid_transport(rng))
            i = len(pkt) - ICRC_LEN + rng.randrange(ICRC_LEN)
            pkt[i] ^= rng.randint(1, 255)
            return pkt
        if cls == "malformed":
            return self.datagram(rng, self.malformed_transport(rng))
        if cls == "ip_options":
            return self.datagram(rng, self.valid_transport(rng),
                                 options=bytes([1, 1, 1, 0]) *
                                 rng.randint(1, 2))
        raise ValueError(cls)

    CLASSES = [("random", 15), ("valid", 30), ("masked", 5), ("mutated", 25),
               ("bad_icrc", 10), ("malformed", 13), ("ip_options", 2)]
    CLASSES_IPV6 = [("random", 15), ("valid", 28), ("masked", 6),
                    ("mutated", 24), ("bad_icrc", 10), ("malformed", 12),
                    ("ip6_ext", 3), ("padded", 2), ("no_device", 3)]
    CLASSES_ROCE_V1 = [("random", 15), ("valid", 28), ("masked", 6),
                       ("mutated", 22), ("bad_icrc", 10), ("malformed", 12),
                       ("grh_broken", 4), ("padded", 2), ("no_device", 3)]

    # IPv6 and RoCE v1 ----------------------------------------------

    def tp_offset(self, pkt):
        """Where the BTH starts in one of our packets (-1: nowhere)."""
        if self.net == "ipv4":
            return IP_LEN + UDP_LEN
        if self.net == "ipv6":
            off = ip6_udp_offset(pkt)
            return -1 if off is None else off + UDP_LEN
        return GRH_LEN

    def dest_qpn(self, pkt):
        if self.net == "ipv4":
            return dest_qpn(pkt)
        off = self.tp_offset(pkt)
        if off < 0 or len(pkt) < off + BTH_LEN:
            return -1
        return int.from_bytes(pkt[off + 5:off + 8], "big")

    def fix(self, pkt, keep_grh_len=False):
        """Lengths that cover the whole packet (fix_lengths() for IPv4);
        the UDP checksum dropped. RoCE v1: the GRH payload length, unless
        keep_grh_len (a mutation chose it)."""
        if self.net == "ipv4":
            return self.fix_lengths(pkt)
        if self.net == "ipv6":
            off = ip6_udp_offset(pkt)
            pkt[4:6] = struct.pack("!H", len(pkt) - IP6_LEN)
            pkt[off + 4:off + 6] = struct.pack("!H", len(pkt) - off)
            pkt[off + 6:off + 8] = b"\0\0"
        elif not keep_grh_len and len(pkt) >= GRH_LEN:
            pkt[4:6] = struct.pack("!H", len(pkt) - GRH_LEN)
        return pkt

    def set_udp6_csum(self, pkt):
        """Recompute a non-zero UDP checksum after a change (IPv6)."""
        off = ip6_udp_offset(pkt)
        if pkt[off + 6:off + 8] != b"\0\0":
            pkt[off + 6:off + 8] = b"\0\0"
            pkt[off + 6:off + 8] = struct.pack(
                "!H", udp6_csum(bytes(pkt[8:24]), bytes(pkt[24:40]),
                                bytes(pkt[off:])))

    def mutate_l3(self, rng, pkt):
        """mutate() for IPv6 and RoCE v1 packets."""
        start = self.tp_offset(pkt)
        keep = False
        for _ in range(rng.randint(1, 3)):
            r = rng.randint(0, 6)
            if damage(rng, pkt, start, r):
                pass
            elif r == 5 and self.net == "ipv6":      # source address
                # Still a unicast address of the link, not the device's.
                v = rng.randint(2, 254)
                pkt[23] = v ^ 0x80 if v == self.dst[15] else v
            elif r == 5:                             # source GID
                pkt[rng.randrange(8, 24)] = rng.getrandbits(8)
            elif self.net == "ipv6":                 # UDP source port
                off = ip6_udp_offset(pkt)
                pkt[off:off + 2] = struct.pack("!H", rng.getrandbits(16))
            else:                                    # GRH payload length
                n = len(pkt) - GRH_LEN + rng.randint(-8, 8)
                pkt[4:6] = struct.pack("!H", max(0, n))
                keep = True
        del pkt[MTU:]
        return self.fix(pkt, keep)

    def other_mac(self, rng):
        """A unicast MAC address that is not the device's."""
        mac = bytes([rng.getrandbits(8) & 0xfc | 0x02]) + rng.randbytes(5)
        if mac == self.dst_mac:
            mac = mac[:5] + bytes([mac[5] ^ 0xff])
        return mac

    def make_l3(self, rng, cls):
        """A packet of class cls for --net ipv6 or roce_v1."""
        v1 = self.net == "roce_v1"
        if cls == "random":
            n = rng.randint(0, MTU - self.hroom)
            body = rng.randbytes(n)
            if n and rng.random() < 0.5:
                body = bytes([rng.choice(ALL_OPS),
                              rng.getrandbits(8) & 0xf0]) + body[2:]
            return self.l3(rng, body, with_icrc=False)
        if cls == "valid":
            return self.l3(rng, self.valid_transport(rng),
                           csum=rng.random() < 0.2)
        if cls == "masked":
            # sroce checks no hop limit; the IPv6 stack is left one of
            # at least 1 to deliver.
            pkt = self.l3(rng, self.valid_transport(rng),
                          csum=rng.random() < 0.5, tclass=rng.getrandbits(8),
                          flow=rng.getrandbits(20),
                          hop=rng.randint(0 if v1 else 1, 255))
            pkt[self.tp_offset(pkt) + 4] = rng.getrandbits(8)
            if not v1:
                self.set_udp6_csum(pkt)
            return pkt
        if cls == "mutated":
            return self.mutate_l3(rng, self.l3(rng, self.valid_transport(rng)))
        if cls == "bad_icrc":
            pkt = self.l3(rng, self.valid_transport(rng))
            i = len(pkt) - ICRC_LEN + rng.randrange(ICRC_LEN)
            pkt[i] ^= rng.randint(1, 255)
            return pkt
        if cls == "malformed":
            return self.l3(rng, self.malformed_transport(rng))
        if cls == "ip6_ext" and not v1:
            return self.datagram6(rng, self.valid_transport(rng),
                                  exts=rng.choice([[IP6_HOPOPTS],
                                                   [IP6_DSTOPTS],
                                                   [IP6_HOPOPTS,
                                                    IP6_DSTOPTS]]),
                                  icrc_plain=rng.random() < 0.5)
        if cls == "grh_broken" and v1:
            pkt = self.l3(rng, self.valid_transport(rng))
            r = rng.randint(0, 4)
            if r == 0:                      # shorter than a GRH
                del pkt[rng.randrange(GRH_LEN):]
            elif r == 1:                    # IP version
                pkt[0] = rng.choice([v for v in range(16) if v != 6]) << 4 | \
                    pkt[0] & 0x0f
            elif r == 2:                    # next header
                pkt[6] = rng.choice([h for h in range(256)
                                     if h != GRH_NEXT_HDR])
            elif r == 3:                    # payload beyond the frame
                pkt[4:6] = struct.pack("!H", len(pkt) - GRH_LEN +
                                       rng.randint(1, 64))
            else:                           # no room for an ICRC
                pkt[4:6] = struct.pack("!H", rng.randint(0, ICRC_LEN - 1))
            return pkt
        raise ValueError(cls)

    def build(self, rng, cls):
        """A packet of class cls and, with --link, its Ethernet framing
        (destination MAC address, VLAN, PCP)."""
        if not self.link:
            return self.make(rng, cls), None
        mac, vlan = self.dst_mac, self.vlan
        if cls == "no_device":
            r = rng.random()
            if r < 0.5 or self.net == "ipv4":
                pkt = self.l3(rng, self.valid_transport(rng))
                if vlan is not None and rng.random() < 0.5:
                    # A VLAN with no VLAN device: the frame is another
                    # host's (and VID 0 would be no VLAN at all).
                    v = rng.randint(2, 4093)
                    vlan = v + 1 if v >= vlan else v
                else:
                    mac = self.other_mac(rng)
            elif self.net == "ipv6":
                pkt = self.l3(rng, self.valid_transport(rng), dst=ALL_NODES)
                mac = ALL_NODES_MAC
            else:
                # Our own GID (no device of the receiver's namespace has
                # it) or one of the documentation prefix.
                pkt = self.l3(rng, self.valid_transport(rng),
                              dst=self.src if rng.random() < 0.3 else
                              b"\x20\x01\x0d\xb8" + rng.randbytes(12))
        elif cls == "padded":
            pkt = self.l3(rng, self.valid_transport(rng),
                          csum=rng.random() < 0.5)
            n = rng.randint(1, max(1, min(46, MTU - len(pkt))))
            pkt += bytes(n) if rng.random() < 0.5 else rng.randbytes(n)
        elif self.net == "ipv4":
            pkt = self.make(rng, cls)
        else:
            pkt = self.make_l3(rng, cls)
            if cls == "valid" and self.net == "roce_v1" and \
                    rng.random() < 0.1:
                mac = BROADCAST_MAC
        return pkt, (mac, vlan, rng.randrange(8) if vlan is not None else 0)

    def predict(self, pkt, link):
        """Fate of pkt (framed as link says, None: the raw IPv4 socket)."""
        if link is not None:
            mac, vlan, _ = link
            # Not ours: another host's MAC address, or a VLAN of no VLAN
            # device (the core hands the frame on as another host's).
            if vlan != self.vlan or (mac != self.dst_mac and not mac[0] & 1):
                return "no_device"
            if self.net == "ipv4":
                # The IPv4 stack trims what follows the total length.
                return predict(pkt[:struct.unpack("!H", pkt[2:4])[0]])
        if self.net == "ipv4":
            return predict(pkt)
        if self.net == "ipv6":
            return predict_ipv6(pkt, self.dst)
        return predict_roce_v1(pkt, self.dst)

    def spoil(self, pkt):
        """Make a delivered packet's ICRC wrong (and drop the UDP
        checksum, which would no longer match)."""
        if self.net == "ipv4":
            end = IP_LEN + struct.unpack("!H", pkt[IP_LEN + 4:IP_LEN + 6])[0]
            pkt[end - 1] ^= 0xff
            pkt[IP_LEN + 6:IP_LEN + 8] = b"\0\0"
        elif self.net == "ipv6":
            off = ip6_udp_offset(pkt)
            pkt[off + struct.unpack("!H", pkt[off + 4:off + 6])[0] - 1] ^= 0xff
            pkt[off + 6:off + 8] = b"\0\0"
        else:
            pkt[GRH_LEN + struct.unpack("!H", pkt[4:6])[0] - 1] ^= 0xff

    def frame(self, pkt, link):
        mac, vlan, pcp = link
        return eth_frame(mac, self.src_mac, self.ethertype, vlan, pcp,
                         bytes(pkt))

    def packets(self):
        classes = [c for c, w in self.classes for _ in range(w)]
        for i in range(self.a.count):
            rng = random.Random(self.a.seed * 1000003 + i)
            cls = rng.choice(classes)
            pkt, link = self.build(rng, cls)
            if len(pkt) > MTU:
                del pkt[MTU:]
                self.fix(pkt)
            fate = self.predict(bytes(pkt), link)
            if fate == "delivered" and self.dest_qpn(pkt) in self.exclude:
                # Never touch a protected QP.
                self.spoil(pkt)
                fate = self.predict(bytes(pkt), link)
            yield i, cls, pkt, fate, link


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--net", choices=NETS, default="ipv4",
                   help="RoCE v2 over IPv4 (default) or IPv6, or RoCE v1")
    p.add_argument("--dst", help="address (RoCE v1: GID) of the device")
    p.add_argument("--src", help="our address (RoCE v1: GID)")
    p.add_argument("--link", metavar="IFACE",
                   help="send Ethernet frames on IFACE (AF_PACKET) instead "
                   "of IPv4 datagrams on a raw IP socket")
    p.add_argument("--dst-mac", help="the device's MAC address (--link)")
    p.add_argument("--vlan", type=int,
                   help="tag the frames with this VLAN id (--link)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--count", type=int, default=5000)
    p.add_argument("--qpn-max", type=int, default=64,
                   help="random destination QPNs are 0..this (default 64)")
    p.add_argument("--exclude-qpn", default="",
                   type=lambda s: [int(x, 0) for x in s.split(",") if x],
                   help="QPNs that no deliverable packet may name")
    p.add_argument("--peer", action="append", default=[],
                   help="KIND:PORT of an ibv_KIND_pingpong server on --dst")
    p.add_argument("--from", dest="first", type=int, default=0,
                   help="send only packets with this index and later")
    p.add_argument("--to", dest="last", type=int, default=None,
                   help="send only packets before this index")
    p.add_argument("--dump", action="store_true",
                   help="print every sent packet (with --link: frame) in hex")
    p.add_argument("--dry-run", action="store_true",
                   help="build and classify the packets, send nothing")
    p.add_argument("--progress", type=int, default=500,
                   help="print a progress line every N packets (0: never)")
    p.add_argument("--self-test", action="store_true",
                   help="check packets of every kind on this host, no "
                   "network needed")
    a = p.parse_args(argv)
    if a.self_test:
        return a
    if not a.dst or not a.src:
        p.error("--dst and --src are required")
    if a.net != "ipv4" and not a.link:
        p.error("--net %s needs --link" % a.net)
    if a.link and not a.dst_mac:
        p.error("--link needs --dst-mac")
    if a.vlan is not None and (not a.link or not 1 <= a.vlan <= 4094):
        p.error("--vlan needs --link and an id of 1 to 4094")
    if a.peer and a.link:
        p.error("--peer works with the raw IPv4 socket only")
    return a


# --- self-test ----------------------------------------------------------

def self_test():
    """Build packets of every kind for every --net, framing and VLAN, send
    nothing, and check them: the ICRC of each packet meant to be valid
    verifies with icrc_check.py (the independent zlib oracle the capture
    tests use) and that of each damaged one does not, each class's
    predicted fates are the ones it is made for, every fate a storm is
    expected to produce occurs, the fields the ICRC masks change nothing
    and a covered one does, frames carry the packet behind the right
    Ethernet type and VLAN tag, and a seed gives the same packets twice.
    """
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import icrc_check                                   # noqa: E402

    failures = []
    checks = [0]

    def check(ok, what):
        checks[0] += 1
        if not ok and len(failures) < 50:
            failures.append(what)

    def oracle(frame):
        """True/False: the ICRC verifies; None: not a RoCE packet."""
        try:
            r = icrc_check.roce(frame)
        except IndexError:              # shorter than its headers
            r = None
        if r is None:
            return None
        _, masked, stored = r
        return struct.pack("<I", zlib.crc32(b"\xff" * 8 + masked)) == stored

    mac0 = "02:00:00:00:96:01"
    modes = [
        ["--net", "ipv4", "--dst", "10.96.0.1", "--src", "10.96.0.2"],
        ["--net", "ipv6", "--dst", "fd00:96::1", "--src", "fd00:96::2"],
        ["--net", "roce_v1", "--dst", "::ffff:10.96.0.1",
         "--src", "::ffff:10.96.0.2"],
        ["--net", "ipv4", "--dst", "10.96.100.1", "--src", "10.96.100.2",
         "--vlan", "100"],
        ["--net", "ipv6", "--dst", "fd00:96::1", "--src", "fd00:96::2",
         "--vlan", "100"],
        ["--net", "roce_v1", "--dst", "fd00:96::1", "--src", "fd00:96::2",
         "--vlan", "100"],
    ]
    any_fate = set(FATES)
    expect = {"valid": {"delivered"}, "masked": {"delivered"},
              "padded": {"delivered"}, "bad_icrc": {"bad_icrc"},
              # Rarely a broken header turns into a valid one (a CNP
              # whose reserved bytes the random payload fills exactly)
              # or one too short for an ICRC: most must be malformed.
              "malformed": {"malformed", "bad_icrc", "delivered"},
              "ip_options": {"unparsable"}, "grh_broken": {"unparsable"},
              "no_device": {"no_device"},
              "ip6_ext": {"unparsable"},
              "random": any_fate, "mutated": any_fate}
    src_mac = bytes.fromhex("020000009602")
    for m in modes:
        link = m[1] != "ipv4" or "--vlan" in m
        argv = m + ["--seed", "7", "--count", "3000", "--dry-run"]
        if link:
            argv += ["--link", "veth_x", "--dst-mac", mac0]
        a = parse_args(argv)
        name = a.net + (" on VLAN %d" % a.vlan if a.vlan else
                        " framed" if link else " raw socket")
        fz = Fuzzer(a, src_mac)
        digest = zlib.crc32(b"".join(bytes(p) for _, _, p, _, _ in
                                     Fuzzer(a, src_mac).packets()))
        seen = dict.fromkeys(FATES, 0)
        broken = [0, 0]
        all_bytes = []
        for i, cls, pkt, fate, lk in fz.packets():
            what = "%s packet %d (%s, %s)" % (name, i, cls, fate)
            all_bytes.append(bytes(pkt))
            seen[fate] += 1
            if cls == "malformed":
                broken[0] += 1
                broken[1] += fate == "malformed"
            check(fate in expect[cls], what + ": not a fate of its class")
            if lk is None:
                frame = eth_frame(bytes.fromhex("020000009601"), src_mac,
                                  ETH_P_IP, None, 0, bytes(pkt))
            else:
                frame = fz.frame(pkt, lk)
                # The frame as a decoder sees it.
                vid = None
                etype = struct.unpack("!H", frame[12:14])[0]
                l3 = frame[14:]
                if etype == ETH_P_8021Q:
                    vid = struct.unpack("!H", frame[14:16])[0] & 0xfff
                    etype = struct.unpack("!H", frame[16:18])[0]
                    l3 = frame[18:]
                check(frame[:6] == lk[0] and frame[6:12] == src_mac and
                      vid == lk[1] and etype == fz.ethertype and
                      l3 == bytes(pkt), what + ": framing")
            good = oracle(frame)
            if cls in ("valid", "masked", "padded") or \
                    (cls == "no_device" and a.net != "roce_v1"):
                check(good is True, what + ": ICRC does not verify")
            elif cls in ("bad_icrc", "ip_options"):
                check(good is False or cls == "ip_options",
                      what + ": damaged ICRC verifies")
            elif cls == "ip6_ext":
                # Refused whichever ICRC it carries: the one that covers
                # the headers as sent, or the one of the packet without
                # its extension headers.
                check(good is None and fate == "unparsable",
                      what + ": extension headers")
            if fate == "delivered" and lk is None or \
                    fate == "delivered" and cls in ("valid", "masked"):
                check(good is True, what + ": delivered, ICRC does not "
                      "verify")
            if cls == "valid" and fate == "delivered" and \
                    a.net != "ipv4" and len(pkt) >= 60:
                # Masked fields change nothing, a covered one does.
                q = bytearray(pkt)
                q[0] |= 0x0f
                q[1:4] = b"\x5a\xa5\x5a"
                q[7] = 1 + q[7] % 254
                q[fz.tp_offset(q) + 4] ^= 0xc0
                if a.net == "ipv6":
                    fz.set_udp6_csum(q)
                check(fz.predict(bytes(q), lk) == "delivered" and
                      oracle(fz.frame(q, lk)) is True,
                      what + ": masked fields changed the ICRC")
                q[21] ^= 0x10           # source address
                if a.net == "ipv6":
                    fz.set_udp6_csum(q)
                check(fz.predict(bytes(q), lk) == "bad_icrc" and
                      oracle(fz.frame(q, lk)) is False,
                      what + ": a covered field did not change the ICRC")
            if a.net == "ipv4" and fate == "delivered":
                # The generic ICRC code agrees with the IPv4 one.
                end = struct.unpack("!H", pkt[2:4])[0]
                check(icrc_rx(pkt, end - 4, "ipv4") == bytes(pkt[end - 4:end]),
                      what + ": icrc_rx() and icrc() differ")
        check(zlib.crc32(b"".join(all_bytes)) == digest,
              name + ": the same seed gave other packets")
        want = {"bad_icrc", "malformed", "delivered"}
        want |= {"unparsable"}
        want |= {"no_device"} if link else set()
        for f in want:
            check(seen[f] > 0, "%s: no %s packet in 3000" % (name, f))
        check(broken[1] >= 0.9 * broken[0], "%s: %d of %d malformed "
              "packets predicted malformed" % (name, broken[1], broken[0]))
        print("# self-test: %-22s %s" % (name, " ".join(
            "%s=%d" % (f, seen[f]) for f in FATES)))

        # --exclude-qpn: no delivered packet names an excluded QPN.
        a = parse_args(argv + ["--exclude-qpn", "1,2,3,4,5,6,7,8"])
        fz = Fuzzer(a, src_mac)
        for i, cls, pkt, fate, lk in fz.packets():
            check(fate != "delivered" or fz.dest_qpn(pkt) not in
                  fz.exclude, "%s packet %d: excluded QPN" % (name, i))

    for f in failures:
        print("# self-test: FAIL " + f)
    print("# self-test: %d checks, %d failed" % (checks[0], len(failures)))
    return 1 if failures else 0


def main(argv):
    a = parse_args(argv)
    if a.self_test:
        return self_test()
    s = None
    src_mac = bytes(6)
    if a.link and not a.dry_run:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0)
        s.bind((a.link, 0))
        src_mac = s.getsockname()[4]
    fz = Fuzzer(a, src_mac)
    gid = "00000000000000000000ffff" + socket.inet_aton(a.src).hex() \
        if not a.link else None
    for n, spec in enumerate(a.peer):
        kind, port = spec.split(":")
        if kind not in ("rc", "uc", "ud"):
            raise SystemExit("bad --peer kind: " + kind)
        psn = random.Random(a.seed * 7 + n).getrandbits(24)
        t = pingpong_client(a.dst, int(port), kind, FAKE_QPN + n, psn, gid)
        fz.targets.append(t)
        print("# fuzz: %s peer QPN 0x%06x expects PSN 0x%06x, sends from "
              "0x%06x" % (kind, t.qpn, t.epsn, t.spsn), flush=True)

    if not a.link and not a.dry_run:
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_RAW)
    if a.link:
        print("# fuzz: %s frames on %s to %s%s" %
              (a.net, a.link, a.dst_mac,
               ", VLAN %d" % a.vlan if a.vlan else ""), flush=True)
    dst = (a.dst, 0)
    sent = errors = 0
    per_class = {}
    t0 = time.monotonic()
    for i, cls, pkt, fate, link in fz.packets():
        if i < a.first or (a.last is not None and i >= a.last):
            continue
        wire = fz.frame(pkt, link) if link else pkt
        try:
            if s and link:
                s.send(wire)
            elif s:
                s.sendto(pkt, dst)
        except OSError as e:
            errors += 1
            print("# fuzz: packet %d (%s, %d bytes) not sent: %s" %
                  (i, cls, len(wire), e), flush=True)
            continue
        sent += 1
        c = per_class.setdefault(cls, [0] * (1 + len(FATES)))
        c[0] += 1
        c[1 + FATES.index(fate)] += 1
        fz.fate[fate] += 1
        if fz.dest_qpn(pkt) in {t.qpn for t in fz.targets} and \
                fate == "delivered":
            fz.to_target += 1
        if a.dump:
            print("# pkt %d %s %s %s" % (i, cls, fate, wire.hex()))
        if a.progress and (i + 1) % a.progress == 0:
            print("# fuzz: %d packets sent" % (i + 1), flush=True)
    dt = time.monotonic() - t0
    if s:
        s.close()

    print("# fuzz: seed %d, %d packets sent in %.1f s, %d send errors" %
          (a.seed, sent, dt, errors))
    print("# fuzz: class       sent udp_drop unparsable bad_icrc malformed "
          "delivered no_device")
    for cls, _ in fz.classes:
        c = per_class.get(cls, [0] * (1 + len(FATES)))
        print("# fuzz: %-10s %5d %8d %10d %8d %9d %9d %9d" % (cls, *c))
    print("# fuzz: %d delivered packets named a live peer QP" % fz.to_target)
    print("# fuzz-predict: " +
          " ".join("%s=%d" % (f, fz.fate[f]) for f in FATES))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
