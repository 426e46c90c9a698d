#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Send MAC Control pause frames out of a netdev, as a link partner would.

  pause_inject.py IFACE --pfc VECTOR --quanta Q [--count N | --until FILE]
  pause_inject.py IFACE --global --quanta Q [--count N | --until FILE]
  pause_inject.py --tap IFACE ... (as above)

--pfc sends 802.1Qbb frames (opcode 0x0101) for the priorities of the
class-enable VECTOR (e.g. 0x08 for priority 3), each with Q quanta;
--global sends 802.3x PAUSE (opcode 0x0001). --count sends N frames back
to back; --until refreshes the pause every --every microseconds until
FILE exists, then sends one zero-quanta frame (XON). --dest sends to
another address than the MAC Control group. Prints "sent N" at the end
(and "started" once the first frame is out, for --until).

--tap makes IFACE a tap device of this process's own (it exists while
the process runs, its carrier up) and writes the frames into it, so that
the host receives them on IFACE as from a link partner; at a speed of
10 Mbit/s (ethtool -s IFACE speed 10) 65535 quanta last 3.4 s.
"""
import argparse
import fcntl
import os
import socket
import struct
import sys
import time

MAC_CONTROL = bytes.fromhex("0180c2000001")
ETHERTYPE = 0x8808
PFC_OPCODE = 0x0101
PAUSE_OPCODE = 0x0001
FRAME_LEN = 60  # before the FCS, which the netdev adds
TUNSETIFF = 0x400454CA
IFF_TAP = 0x0002
IFF_NO_PI = 0x1000
SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
TAP_PARTNER = bytes.fromhex("020000000002")  # the emulated partner's MAC


def frame(src, dest, global_pause, vector, quanta):
    if global_pause:
        body = struct.pack("!HH", PAUSE_OPCODE, quanta)
    else:
        times = [quanta if vector & (1 << p) else 0 for p in range(8)]
        body = struct.pack("!HH8H", PFC_OPCODE, vector, *times)
    f = dest + src + struct.pack("!H", ETHERTYPE) + body
    return f + bytes(FRAME_LEN - len(f))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("iface")
    ap.add_argument("--tap", action="store_true",
                    help="create tap IFACE and write the frames into it")
    kind = ap.add_mutually_exclusive_group(required=True)
    kind.add_argument("--pfc", type=lambda v: int(v, 0), metavar="VECTOR")
    kind.add_argument("--global", dest="global_pause", action="store_true")
    ap.add_argument("--quanta", type=lambda v: int(v, 0), required=True)
    how = ap.add_mutually_exclusive_group(required=True)
    how.add_argument("--count", type=int)
    how.add_argument("--until", metavar="FILE")
    ap.add_argument("--every", type=int, default=500, metavar="US")
    ap.add_argument("--dest", default=None, metavar="MAC")
    ap.add_argument("--limit", type=float, default=120.0, metavar="S",
                    help="stop refreshing after S seconds whatever --until says")
    args = ap.parse_args()
    if not 0 <= args.quanta <= 0xffff:
        ap.error("--quanta: 0..65535")

    if args.tap:
        tap = os.open("/dev/net/tun", os.O_RDWR)
        name = args.iface.encode()
        fcntl.ioctl(tap, TUNSETIFF, struct.pack("16sH22x", name,
                                                IFF_TAP | IFF_NO_PI))
        # Up before the first frame: a tap that is down refuses writes.
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as ctl:
            ifr = fcntl.ioctl(ctl, SIOCGIFFLAGS,
                              struct.pack("16sH22x", name, 0))
            flags = struct.unpack("16sH22x", ifr)[1]
            fcntl.ioctl(ctl, SIOCSIFFLAGS,
                        struct.pack("16sH22x", name, flags | IFF_UP))
        src = TAP_PARTNER

        def send(f):
            os.write(tap, f)
    else:
        with open(f"/sys/class/net/{args.iface}/address", encoding="ascii") as f:
            src = bytes.fromhex(f.read().strip().replace(":", ""))
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((args.iface, 0))

        def send(f):
            s.send(f)
    dest = bytes.fromhex(args.dest.replace(":", "")) if args.dest else MAC_CONTROL
    vector = args.pfc or 0
    pause = frame(src, dest, args.global_pause, vector, args.quanta)
    xon = frame(src, dest, args.global_pause, vector, 0)

    sent = 0
    if args.count is not None:
        for _ in range(args.count):
            send(pause)
            sent += 1
    else:
        end = time.monotonic() + args.limit
        send(pause)
        sent += 1
        print("started", flush=True)
        while not os.path.exists(args.until) and time.monotonic() < end:
            time.sleep(args.every / 1e6)
            send(pause)
            sent += 1
        send(xon)
    print(f"sent {sent}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
