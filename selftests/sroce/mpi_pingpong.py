#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""An MPI ping-pong whose data is checked: mpi_pingpong.py SIZE ITERS [DEV].

Rank 0 sends SIZE random bytes with their SHA-256 digest; rank 1 checks
the digest, flips every byte and sends the result back with its digest,
which rank 0 checks against what it expects. Rank 0 prints
"pingpong ok SIZE ITERS" or "pingpong FAILED ..." and the exit status
is non-zero on any mismatch. DEV, when given, is the RDMA device this
rank's UCX uses (UCX_NET_DEVICES, read by MPI_Init): the ranks of a run
between namespaces each name their own.
"""
import hashlib
import os
import sys

if len(sys.argv) > 3:
    os.environ["UCX_NET_DEVICES"] = sys.argv[3] + ":1"

from mpi4py import MPI  # noqa: E402 (MPI_Init reads the setting above)

FLIP = bytes(b ^ 0xFF for b in range(256))


def main():
    size, iters = int(sys.argv[1]), int(sys.argv[2])
    comm = MPI.COMM_WORLD
    rank = comm.Get_rank()
    buf = bytearray(size)
    bad = 0
    for i in range(iters):
        if rank == 0:
            out = bytearray(os.urandom(size))
            comm.Send([out, MPI.BYTE], dest=1, tag=2 * i)
            comm.send(hashlib.sha256(out).digest(), dest=1, tag=2 * i + 1)
            comm.Recv([buf, MPI.BYTE], source=1, tag=2 * i)
            digest = comm.recv(source=1, tag=2 * i + 1)
            expect = bytes(out).translate(FLIP)
            if bytes(buf) != expect or hashlib.sha256(buf).digest() != digest:
                bad += 1
        else:
            comm.Recv([buf, MPI.BYTE], source=0, tag=2 * i)
            digest = comm.recv(source=0, tag=2 * i + 1)
            if hashlib.sha256(buf).digest() != digest:
                bad += 1
            back = bytearray(bytes(buf).translate(FLIP))
            comm.Send([back, MPI.BYTE], dest=0, tag=2 * i)
            comm.send(hashlib.sha256(back).digest(), dest=0, tag=2 * i + 1)
    bad = comm.allreduce(bad)
    if rank == 0:
        if bad:
            print(f"pingpong FAILED: {bad} of {iters} exchanges wrong")
        else:
            print(f"pingpong ok {size} {iters}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
