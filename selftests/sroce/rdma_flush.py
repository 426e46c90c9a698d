#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""RDMA FLUSH (IBA 1.5 A19) between two RC QPs of one device.

Usage: rdma_flush.py DEVICE GID_INDEX

Prints one line per case, "PASS name", "FAIL name: why" or
"SKIP name: why", for rdma_flush.sh to report. Every case has its own
pair of QPs (a refused FLUSH takes both to the error state). The
responder QP is given REMOTE_WRITE and both FLUSH rights, its region
REMOTE_WRITE and FLUSH_GLOBAL, unless the case says otherwise.

Cases: the device advertises global-visibility FLUSH and not persistence;
a FLUSH of a range after a WRITE completes as IBV_WC_FLUSH with the
length flushed as byte_len (as rdma_rxe), the WRITE's data in place; a
FLUSH of the whole region ignores the address and length it carries;
ranges that start in the region and end past it, or start at its end,
fail with IBV_WC_REM_ACCESS_ERR; 32 FLUSHes posted at once through max_rd_atomic 1
complete, in order; a persistence FLUSH (no region can carry that right),
a region without FLUSH_GLOBAL and a responder QP without it each fail
with IBV_WC_REM_ACCESS_ERR, the responder QP in ERROR; registering a
region with FLUSH_PERSISTENT fails with EOPNOTSUPP.
"""
import errno
import os
import random
import sys
import time

try:
    import pyverbs.enums as e
    from pyverbs.addr import AHAttr, GlobalRoute
    from pyverbs.cq import CQ
    from pyverbs.device import Context
    from pyverbs.mr import MR
    from pyverbs.pd import PD
    from pyverbs.pyverbs_error import PyverbsRDMAError
    from pyverbs.qp import QPAttr, QPCap, QPEx, QPInitAttrEx
    from pyverbs.wr import SGE
except ImportError as err:
    print(f"SKIP_ALL pyverbs missing: {err}")
    sys.exit(0)

# The uverbs capability bits (include/uapi/rdma/ib_user_verbs.h).
DEVICE_FLUSH_GLOBAL = 1 << 38
DEVICE_FLUSH_PERSISTENT = 1 << 39
MSG = 4096
WAIT_S = 10


def need(name):
    if not hasattr(e, name):
        print(f"SKIP_ALL this pyverbs has no {name}")
        sys.exit(0)


for name in ("IBV_WR_FLUSH", "IBV_QP_EX_WITH_FLUSH", "IBV_FLUSH_GLOBAL",
             "IBV_ACCESS_FLUSH_GLOBAL", "IBV_WC_FLUSH"):
    need(name)


class Pair:
    """Two connected RC QPs: qp[0] requests, qp[1] (and self.mr) respond."""

    def __init__(self, ctx, gid_index, qp_access=None, mr_access=None,
                 max_rd_atomic=4):
        if qp_access is None:
            qp_access = (e.IBV_ACCESS_REMOTE_WRITE |
                         e.IBV_ACCESS_FLUSH_GLOBAL |
                         e.IBV_ACCESS_FLUSH_PERSISTENT)
        if mr_access is None:
            mr_access = (e.IBV_ACCESS_LOCAL_WRITE |
                         e.IBV_ACCESS_REMOTE_WRITE |
                         e.IBV_ACCESS_FLUSH_GLOBAL)
        self.pd = PD(ctx)
        self.cq = CQ(ctx, 128)
        self.mr = MR(self.pd, MSG, mr_access)
        self.src = MR(self.pd, MSG, e.IBV_ACCESS_LOCAL_WRITE)
        cap = QPCap(max_send_wr=64, max_recv_wr=4, max_send_sge=1,
                    max_recv_sge=1)
        init = QPInitAttrEx(
            qp_type=e.IBV_QPT_RC, scq=self.cq, rcq=self.cq, cap=cap,
            pd=self.pd,
            comp_mask=(e.IBV_QP_INIT_ATTR_PD |
                       e.IBV_QP_INIT_ATTR_SEND_OPS_FLAGS),
            send_ops_flags=(e.IBV_QP_EX_WITH_FLUSH |
                            e.IBV_QP_EX_WITH_RDMA_WRITE))
        self.qp = [QPEx(ctx, init), QPEx(ctx, init)]
        gr = GlobalRoute(dgid=ctx.query_gid(1, gid_index),
                         sgid_index=gid_index)
        psn = [random.getrandbits(24), random.getrandbits(24)]
        for me in (0, 1):
            attr = QPAttr(port_num=1)
            attr.qp_access_flags = qp_access
            attr.path_mtu = e.IBV_MTU_1024
            attr.max_dest_rd_atomic = 4
            attr.max_rd_atomic = max_rd_atomic
            attr.min_rnr_timer = 1
            attr.timeout = 14
            attr.retry_cnt = 7
            attr.rnr_retry = 7
            attr.ah_attr = AHAttr(port_num=1, is_global=1, gr=gr)
            attr.dest_qp_num = self.qp[1 - me].qp_num
            attr.rq_psn = psn[1 - me]
            attr.sq_psn = psn[me]
            self.qp[me].to_rts(attr)

    def flush(self, wr_id, **kw):
        """Post one signaled FLUSH, of this pair's region by default."""
        qp = self.qp[0]
        qp.wr_start()
        qp.wr_id = wr_id
        qp.wr_flags = e.IBV_SEND_SIGNALED
        qp.wr_flush(kw.get("rkey", self.mr.rkey),
                    kw.get("addr", self.mr.buf), kw.get("length", MSG),
                    kw.get("ptype", e.IBV_FLUSH_GLOBAL),
                    kw.get("level", e.IBV_FLUSH_RANGE))
        qp.wr_complete()

    def poll(self, count=1):
        wcs, end = [], time.monotonic() + WAIT_S
        while len(wcs) < count:
            n, got = self.cq.poll(count - len(wcs))
            if n:
                wcs.extend(got)
            elif time.monotonic() > end:
                raise TimeoutError(f"{len(wcs)} of {count} completions "
                                   f"in {WAIT_S} s")
        return wcs

    def state(self, i):
        attr, _ = self.qp[i].query(e.IBV_QP_STATE)
        return attr.qp_state


def write_then_flush(pair):
    """A WRITE of a pattern, then a signaled FLUSH: two completions."""
    pattern = bytes(random.getrandbits(8) for _ in range(MSG))
    pair.src.write(pattern, MSG)
    pair.mr.write(bytes(MSG), MSG)
    qp = pair.qp[0]
    qp.wr_start()
    qp.wr_id = 1
    qp.wr_flags = e.IBV_SEND_SIGNALED
    qp.wr_rdma_write(pair.mr.rkey, pair.mr.buf)
    qp.wr_set_sge(SGE(pair.src.buf, MSG, pair.src.lkey))
    qp.wr_complete()
    pair.flush(2)
    return pattern, pair.poll(2)


def expect(cond, why):
    if not cond:
        raise AssertionError(why)


def case_caps(ctx, gid):
    flags = ctx.query_device_ex().device_cap_flags_ex
    expect(flags & DEVICE_FLUSH_GLOBAL, f"no FLUSH_GLOBAL in {flags:#x}")
    expect(not flags & DEVICE_FLUSH_PERSISTENT,
           f"FLUSH_PERSISTENT advertised in {flags:#x}")


def case_range(ctx, gid):
    pair = Pair(ctx, gid)
    pattern, wcs = write_then_flush(pair)
    for wc in wcs:
        expect(wc.status == e.IBV_WC_SUCCESS,
               f"wr_id {wc.wr_id}: status {wc.status}")
    expect([wc.wr_id for wc in wcs] == [1, 2], "completions out of order")
    expect(wcs[1].opcode == e.IBV_WC_FLUSH,
           f"FLUSH completed as opcode {wcs[1].opcode}")
    # rdma_rxe's byte_len of a FLUSH is the length flushed.
    expect(wcs[1].byte_len == MSG, f"FLUSH byte_len {wcs[1].byte_len}")
    expect(pair.mr.read(MSG, 0) == pattern, "the WRITE's data is not there")


def case_region(ctx, gid):
    pair = Pair(ctx, gid)
    # The whole region: the address and length carried mean nothing.
    pair.flush(3, addr=0, length=12345678, level=e.IBV_FLUSH_MR)
    wc = pair.poll()[0]
    expect(wc.status == e.IBV_WC_SUCCESS, f"status {wc.status}")
    expect(wc.opcode == e.IBV_WC_FLUSH, f"opcode {wc.opcode}")


def case_many(ctx, gid):
    pair = Pair(ctx, gid, max_rd_atomic=1)
    for i in range(32):
        pair.flush(100 + i)
    wcs = pair.poll(32)
    bad = [(wc.wr_id, wc.status) for wc in wcs
           if wc.status != e.IBV_WC_SUCCESS]
    expect(not bad, f"failed: {bad}")
    expect([wc.wr_id for wc in wcs] == list(range(100, 132)),
           "completions out of order")


def refused(ctx, gid, **kw):
    flush_kw = kw.pop("flush", {})
    pair = Pair(ctx, gid, **kw)
    pair.flush(7, **flush_kw)
    wc = pair.poll()[0]
    expect(wc.status == e.IBV_WC_REM_ACCESS_ERR,
           f"status {wc.status}, expected {e.IBV_WC_REM_ACCESS_ERR}")
    end = time.monotonic() + WAIT_S
    while pair.state(1) != e.IBV_QPS_ERR:
        expect(time.monotonic() < end, "responder QP not in ERROR")
        time.sleep(0.01)


def case_persistent(ctx, gid):
    refused(ctx, gid, flush={"ptype": e.IBV_FLUSH_PERSISTENT})


def case_mr_right(ctx, gid):
    refused(ctx, gid, mr_access=e.IBV_ACCESS_LOCAL_WRITE |
            e.IBV_ACCESS_REMOTE_WRITE)


def case_qp_right(ctx, gid):
    refused(ctx, gid, qp_access=e.IBV_ACCESS_REMOTE_WRITE)


def case_range_past_end(ctx, gid):
    for offset, length in ((MSG - 8, 16), (0, MSG + 1), (MSG, 1)):
        pair = Pair(ctx, gid)
        pair.flush(8, addr=pair.mr.buf + offset, length=length)
        wc = pair.poll()[0]
        expect(wc.status == e.IBV_WC_REM_ACCESS_ERR,
               f"{length} bytes at {offset}: status {wc.status}")


def case_mr_persistent(ctx, gid):
    pd = PD(ctx)
    try:
        MR(pd, MSG, e.IBV_ACCESS_LOCAL_WRITE |
           e.IBV_ACCESS_FLUSH_PERSISTENT)
    except PyverbsRDMAError as ex:
        expect(ex.error_code == errno.EOPNOTSUPP,
               f"errno {ex.error_code}, expected EOPNOTSUPP")
        return
    raise AssertionError("a FLUSH_PERSISTENT region was registered")


CASES = [
    ("flush_caps", case_caps),
    ("flush_range_after_write", case_range),
    ("flush_whole_region", case_region),
    ("flush_32_through_one_rd_atomic", case_many),
    ("flush_persistent_refused", case_persistent),
    ("flush_region_without_right", case_mr_right),
    ("flush_qp_without_right", case_qp_right),
    ("flush_range_past_region", case_range_past_end),
    ("reg_mr_flush_persistent_refused", case_mr_persistent),
]


def kernel_before(major, minor):
    release = os.uname().release.split("-")[0].split(".")
    return (int(release[0]), int(release[1])) < (major, minor)


def main():
    dev, gid = sys.argv[1], int(sys.argv[2])
    with Context(name=dev) as ctx:
        # Kernels before 6.2 have no FLUSH to offer; from 6.2 on, its
        # absence is a failure (flush_caps).
        flags = ctx.query_device_ex().device_cap_flags_ex
        if not flags & DEVICE_FLUSH_GLOBAL and kernel_before(6, 2):
            print(f"SKIP_ALL kernel {os.uname().release} has no RDMA FLUSH")
            return
        for name, case in CASES:
            try:
                case(ctx, gid)
                print(f"PASS {name}", flush=True)
            except Exception as ex:  # report and go on to the next case
                print(f"FAIL {name}: {type(ex).__name__}: {ex}", flush=True)


if __name__ == "__main__":
    main()
