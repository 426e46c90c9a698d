#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send random and mutated RoCE v2 packets (IPv4) at a RoCE device.

usage: roce_fuzz_send.py --dst ADDR --src ADDR [--seed N] [--count N]
                         [--peer KIND:PORT ...] [--exclude-qpn Q,...] ...

Every packet is a whole IPv4 + UDP datagram built here and sent on a raw
socket (IP_HDRINCL) so that each byte the ICRC covers is known; the kernel
only fills in the IPv4 total length and header checksum, both of which are
already right. Packet classes:

  random     random bytes (sometimes behind a plausible opcode) as the UDP
             payload
  valid      BTH + extension headers of every RC, UC, UD opcode and the CNP,
             random fields, a payload the opcode allows, correct ICRC
  masked     valid, then fields the ICRC does not cover changed (IPv4 TOS
             and TTL, BTH byte 4, a correct UDP checksum): still valid
  mutated    valid, then bit flips, byte writes, truncation or extension
             after the ICRC was computed
  bad_icrc   valid but for the ICRC
  malformed  a broken header (bad opcode, TVer, pad, payload length, AETH
             syndrome, too short) behind a correct ICRC
  ip_options valid transport behind an IPv4 header with options

--peer KIND:PORT plays the client side of the exchange of an
ibv_{rc,uc,ud}_pingpong server listening on ADDR:PORT, claiming a QPN
that no device owns, the start PSN and the GID of --src. The server's QP
then sits in RTS with a known expected PSN and posted receives: requests
go to it as PSN trains that lock on to its expected PSN, and
acknowledgements carry PSNs around its send PSN.

Each packet's fate at the receiver is predicted from the bytes on the
wire: refused before a device is looked up ("unparsable": IPv4 options),
dropped for a bad ICRC, dropped as malformed (a transport header the IBA
rules refuse), or handed to the QP its BTH names ("delivered").
With --exclude-qpn no delivered packet names one of those QPNs, so a
connection running there must not notice the storm.

The output is deterministic for a --seed and the same peers. The last
lines summarize what was sent; "# fuzz-predict: unparsable=A bad_icrc=B
malformed=C delivered=D" is meant for comparison with the receiver's
counters.
"""
import argparse
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


# --- headers ------------------------------------------------------------

def ipv4_hdr(total, ident, src, dst, tos=0, ttl=64, options=b""):
    ihl = (IP_LEN + len(options)) // 4
    h = struct.pack("!BBHHHBBH4s4s", 0x40 | ihl, tos, total, ident, 0x4000,
                    ttl, socket.IPPROTO_UDP, 0, src, dst) + options
    return h[:10] + struct.pack("!H", inet_csum(h)) + h[12:]


def udp_hdr(sport, length, csum=0):
    return struct.pack("!HHHH", sport, ROCE_PORT, length, csum)


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


FATES = ("udp_drop", "unparsable", "bad_icrc", "malformed", "delivered")


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
    def __init__(self, args):
        self.a = args
        self.src = socket.inet_aton(args.src)
        self.dst = socket.inet_aton(args.dst)
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
        room = MTU - IP_LEN - UDP_LEN - op.hdr_len - ICRC_LEN - 3
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
            plen = min(plen, MTU - IP_LEN - UDP_LEN - OPS[op].hdr_len - 8)
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
            plen = min(plen, MTU - IP_LEN - UDP_LEN - 24 - 8)
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
            if r <= 1 and len(pkt) > start:          # bit flips
                for _ in range(rng.randint(1, 8)):
                    i = rng.randrange(start, len(pkt))
                    pkt[i] ^= 1 << rng.randrange(8)
            elif r == 2 and len(pkt) > start:        # byte writes
                for _ in range(rng.randint(1, 4)):
                    i = rng.randrange(start, min(len(pkt), start + 48))
                    pkt[i] = rng.getrandbits(8)
            elif r == 3 and len(pkt) > start:        # truncation
                del pkt[rng.randint(start, len(pkt) - 1):]
            elif r == 4:                             # extension
                room = MTU - len(pkt)
                pkt += rng.randbytes(rng.randint(1, max(1, min(room, 64))))
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

    def packets(self):
        classes = [c for c, w in self.CLASSES for _ in range(w)]
        for i in range(self.a.count):
            rng = random.Random(self.a.seed * 1000003 + i)
            cls = rng.choice(classes)
            pkt = self.make(rng, cls)
            if len(pkt) > MTU:
                del pkt[MTU:]
                self.fix_lengths(pkt)
            fate = predict(bytes(pkt))
            if fate == "delivered" and dest_qpn(pkt) in self.exclude:
                # Never touch a protected QP: spoil the ICRC (and drop
                # the UDP checksum, which would no longer match).
                pkt[-1] ^= 0xff
                pkt[IP_LEN + 6:IP_LEN + 8] = b"\0\0"
                fate = predict(bytes(pkt))
            yield i, cls, pkt, fate


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--dst", required=True, help="IPv4 address of the device")
    p.add_argument("--src", required=True, help="our IPv4 address")
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
                   help="print every sent packet in hex")
    p.add_argument("--dry-run", action="store_true",
                   help="build and classify the packets, send nothing")
    p.add_argument("--progress", type=int, default=500,
                   help="print a progress line every N packets (0: never)")
    return p.parse_args(argv)


def main(argv):
    a = parse_args(argv)
    fz = Fuzzer(a)
    gid = "00000000000000000000ffff" + socket.inet_aton(a.src).hex()
    for n, spec in enumerate(a.peer):
        kind, port = spec.split(":")
        if kind not in ("rc", "uc", "ud"):
            raise SystemExit("bad --peer kind: " + kind)
        psn = random.Random(a.seed * 7 + n).getrandbits(24)
        t = pingpong_client(a.dst, int(port), kind, FAKE_QPN + n, psn, gid)
        fz.targets.append(t)
        print("# fuzz: %s peer QPN 0x%06x expects PSN 0x%06x, sends from "
              "0x%06x" % (kind, t.qpn, t.epsn, t.spsn), flush=True)

    s = None if a.dry_run else socket.socket(socket.AF_INET, socket.SOCK_RAW,
                                             socket.IPPROTO_RAW)
    dst = (a.dst, 0)
    sent = errors = 0
    per_class = {}
    t0 = time.monotonic()
    for i, cls, pkt, fate in fz.packets():
        if i < a.first or (a.last is not None and i >= a.last):
            continue
        try:
            if s:
                s.sendto(pkt, dst)
        except OSError as e:
            errors += 1
            print("# fuzz: packet %d (%s, %d bytes) not sent: %s" %
                  (i, cls, len(pkt), e), flush=True)
            continue
        sent += 1
        c = per_class.setdefault(cls, [0] * (1 + len(FATES)))
        c[0] += 1
        c[1 + FATES.index(fate)] += 1
        fz.fate[fate] += 1
        if dest_qpn(pkt) in {t.qpn for t in fz.targets} and \
                fate == "delivered":
            fz.to_target += 1
        if a.dump:
            print("# pkt %d %s %s %s" % (i, cls, fate, pkt.hex()))
        if a.progress and (i + 1) % a.progress == 0:
            print("# fuzz: %d packets sent" % (i + 1), flush=True)
    dt = time.monotonic() - t0
    if s:
        s.close()

    print("# fuzz: seed %d, %d packets sent in %.1f s, %d send errors" %
          (a.seed, sent, dt, errors))
    print("# fuzz: class       sent udp_drop unparsable bad_icrc malformed "
          "delivered")
    for cls, _ in Fuzzer.CLASSES:
        c = per_class.get(cls, [0] * (1 + len(FATES)))
        print("# fuzz: %-10s %5d %8d %10d %8d %9d %9d" % (cls, *c))
    print("# fuzz: %d delivered packets named a live peer QP" % fz.to_target)
    print("# fuzz-predict: " +
          " ".join("%s=%d" % (f, fz.fate[f]) for f in FATES))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
