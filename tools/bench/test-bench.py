#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Host tests of the benchmark matrix's tools, on synthetic data: the
parsers of guest-matrix.py on perftest, qperf, iperf3 and ibv_devinfo
output as those tools print it, and bench-report.py on a raw file with a
failed repetition, a hung cell, ratios on both sides of their goals, the
sweeps' min/best rule, CPU per GiB and qperf missing. No guest, no root:
`python3 tools/bench/test-bench.py` (make bench runs it first)."""

import argparse
import csv
import importlib.util
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
# No __pycache__ in the checkout for the two scripts loaded below.
sys.dont_write_bytecode = True


def read(*path):
    with open(os.path.join(*path), encoding="utf-8") as f:
        return f.read()


def load_module(name, file):
    spec = importlib.util.spec_from_file_location(name, os.path.join(HERE, file))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


gm = load_module("guest_matrix", "guest-matrix.py")
br = load_module("bench_report", "bench-report.py")

LINE = "-" * 87
WRITE_BW = f"""\
 WARNING: BW peak won't be measured in this run.
{LINE}
                    RDMA_Write BW Test
 Dual-port       : OFF\t\tDevice         : sroce0
 Number of qps   : 1\t\tTransport type : IB
 Connection type : RC\t\tUsing SRQ      : OFF
 TX depth        : 128
 CQ Moderation   : 1
 Mtu             : 1024[B]
 Link type       : Ethernet
 GID index       : 3
{LINE}
 #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]
 65536      3768             0.00               78.50\t\t   0.001256
{LINE}
"""
SEND_LAT = f"""\
 Mtu             : 4096[B]
{LINE}
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    \
t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n\
 2       1000          9.87           120.33       12.51     \t       13.20       \t3.11\t\t\
25.40 \t\t120.33 \n{LINE}
"""
CALIB = f"""\
 #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    \
t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n\
 2       1000          inf            inf          inf     \t       -nan       \t-nan\t\t\
inf \t\tinf \n{LINE}
Correlation coefficient r^2: 0.41 < 0.9
"""
IPERF3 = """\
Connecting to host 10.77.0.2, port 18650
[  5] local 10.77.0.1 port 40200 connected to 10.77.0.2 port 18650
[ ID] Interval           Transfer     Bitrate         Retr  Cwnd
[  5]   0.00-1.00   sec   560 MBytes  4697 Mbits/sec    0    639 KBytes
[  5]   1.00-2.00   sec   556 MBytes  4664 Mbits/sec    0    639 KBytes
- - - - - - - - - - - - - - - - - - - - - - - - -
[ ID] Interval           Transfer     Bitrate         Retr
[  5]   0.00-3.00   sec  1.63 GBytes  4667 Mbits/sec    0             sender
[  5]   0.00-3.04   sec  1.63 GBytes  4605 Mbits/sec                  receiver

iperf Done.
"""
DEVINFO = """\
hca_id:\tsroce0
\ttransport:\t\t\tInfiniBand (0)
\tfw_ver:\t\t\t\t0.1.0
\t\tmax_qp:\t\t\t\t65536
\t\tmax_qp_wr:\t\t\t16383
\t\tmax_cqe:\t\t\t1048575
"""


class GuestParsers(unittest.TestCase):
    def test_perftest_bw_duration(self):
        m = gm.perftest_metrics("write_bw", WRITE_BW)
        self.assertEqual(m, {"bw": 78.5, "msg_rate": 0.001256, "iters": 3768, "size": 65536})
        self.assertEqual(gm.perftest_mtu(WRITE_BW), 1024)

    def test_perftest_25_mib_header(self):
        # perftest 25 (trixie, sid) names the same figure MiB/sec.
        text = WRITE_BW.replace("[MB/sec]", "[MiB/sec]")
        self.assertEqual(gm.perftest_metrics("write_bw", text)["bw"], 78.5)
        with tempfile.NamedTemporaryFile("w", suffix=".out") as f:
            f.write(text)
            f.flush()
            script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guest-bench.sh")
            out = subprocess.run(
                ["bash", "-c", f'eval "$(sed -n "/^column() {{/,/^}}/p" "{script}")"; '
                 f'column "{f.name}" "BW average[MB/sec]"'],
                capture_output=True, text=True, check=True).stdout
        self.assertEqual(out.strip(), "78.50")

    def test_perftest_lat(self):
        self.assertEqual(gm.perftest_metrics("send_lat", SEND_LAT), {"t_typ": 12.51, "t_avg": 13.2})
        self.assertEqual(gm.perftest_figures(SEND_LAT)["99.9% percentile[usec]"], "120.33")
        self.assertEqual(gm.perftest_mtu(SEND_LAT), 4096)

    def test_perftest_calibration_failure_has_no_figures(self):
        self.assertIsNone(gm.perftest_metrics("send_lat", CALIB))
        self.assertIsNone(gm.perftest_metrics("write_bw", "Couldn't connect to 10.77.0.2\n"))

    def test_qperf(self):
        self.assertEqual(gm.qperf_metrics("rc_lat", "rc_lat:\n    latency  =  38.1 us\n"),
                         {"t_avg": 38.1})
        self.assertAlmostEqual(gm.qperf_metrics("rc_lat", "rc_lat:\n    latency  =  2.05 ms\n")
                               ["t_avg"], 2050)
        self.assertAlmostEqual(gm.qperf_metrics("rc_bw", "rc_bw:\n    bw  =  1,048.576 MB/sec\n")
                               ["bw"], 1000)
        self.assertIsNone(gm.qperf_metrics("rc_lat", "rc_lat:\nfailed to connect\n"))

    def test_iperf3(self):
        m = gm.iperf3_metrics(IPERF3)
        self.assertEqual(m["bw_mbit"], 4605)
        self.assertAlmostEqual(m["bw"], 4605e6 / 8 / 2**20)
        self.assertEqual(m["bytes"], round(4605e6 / 8 * 3.04))
        self.assertIsNone(gm.iperf3_metrics("iperf3: error - unable to connect\n"))

    def test_devinfo_and_cpu(self):
        self.assertEqual(gm.devinfo_caps(DEVINFO),
                         {"max_qp_wr": 16383, "max_cqe": 1048575, "max_qp": 65536})
        d = gm.cpu_delta((100, 5, 40, 10.0), (130, 5, 60, 13.0), 100)
        self.assertEqual(d, {"sys": 0.3, "irq": 0.0, "softirq": 0.2, "window": 3.0})

    def test_matrix_plan(self):
        at1500 = gm.perftest_jobs(1500)
        self.assertEqual(len(at1500), 18 + 2 + 4 + 3)
        self.assertNotIn(("write_lat", 1), {(j.test, j.event) for j in at1500})
        self.assertEqual({j.size for j in gm.perftest_jobs(9000)}, {4096, 65536})


# Stand-ins for a tool's server and client: the server listens until the
# client connects; the client prints a perftest result header, waits and
# prints the row, or (with "hang") never ends.
SERVER = """
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
s.accept()
"""
CLIENT = """
import socket, sys, time
socket.create_connection(("127.0.0.1", int(sys.argv[1]))).close()
print(" #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]")
sys.stdout.flush()
time.sleep(100 if sys.argv[2:] == ["hang"] else 0.4)
print(" 65536      1000             0.00               50.00\t   0.000800")
"""


class Processes(unittest.TestCase):
    """guest-matrix.py's server/client runs: listening, CPU sampling
    between header and result, a hung client killed and reported."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-bench.")
        args = argparse.Namespace(quick=False, reps=1, secs=1, parts=None, deadline=None,
                                  out=os.path.join(self.dir, "raw.jsonl"), host_load="")
        self.m = gm.Matrix(args)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]

    def tearDown(self):
        shutil.rmtree(self.dir)
        shutil.rmtree(self.m.work)

    def pair(self, *client_args, timeout=30):
        py = sys.executable
        return self.m.server_client("t", [py, "-c", SERVER, str(self.port)], None,
                                    [py, "-c", CLIENT, str(self.port), *client_args],
                                    timeout, self.port, "perftest")

    def test_run_with_cpu_sample(self):
        status, crc, src, cpu, (_, cpath) = self.pair()
        self.assertEqual((status, crc, src), ("ok", 0, 0))
        self.assertGreaterEqual(cpu["window"], 0.3)
        self.assertEqual(gm.perftest_metrics("write_bw", gm.read_text(cpath))["bw"], 50.0)

    def test_hung_client(self):
        slack, gm.CLIENT_SLACK_S = gm.CLIENT_SLACK_S, 0
        try:
            status, crc, _, cpu, _ = self.pair("hang", timeout=1)
        finally:
            gm.CLIENT_SLACK_S = slack
        self.assertEqual((status, crc, cpu), ("HANG", None, None))

    def test_server_that_never_listens(self):
        py = sys.executable
        status, *_ = self.m.server_client("t", [py, "-c", "pass"], None, [py, "-c", "pass"],
                                          30, self.port, None)
        self.assertEqual(status, "FAIL")


GIB = 2**30


class Raw:
    """A synthetic raw file."""

    def __init__(self, kernel):
        self.recs = [{"kind": "info", "kernel": kernel, "vcpus": 2, "reps": 3, "secs": 3,
                      "lat_iters": 1000, "parts": ["main", "tcp", "qperf", "sweep", "dcqcn"],
                      "qperf": False, "perftest": "6.10", "guest_load_start": "0.1 0.1 0.1",
                      "host_load_start": "0.5 0.5 0.5"},
                     {"kind": "device", "driver": "sroce", "dev": "sroce0", "max_qp_wr": 16383}]

    def run(self, config, test, values, size=65536, qps=1, depth=None, event=0, mtu=1500,
            part="main", tool="perftest", cpu=None, moved=None, metric=None):
        """One record per repetition: a number is a figure, a string a status."""
        if depth is None and tool == "perftest":
            depth = 128 if test.endswith("_bw") else 1
        for rep, v in enumerate(values, 1):
            r = {"kind": "run", "part": part, "config": config, "mtu": mtu, "test": test,
                 "size": size, "qps": qps, "depth": depth, "event": event, "tool": tool,
                 "rep": rep}
            if isinstance(v, str):
                r["status"] = v
                if v == "n/a":
                    r["note"] = "qperf missing"
            else:
                r["status"] = "ok"
                name = metric or ("bw" if test.endswith("_bw") else "t_typ")
                r["metrics"] = {name: v}
                if name == "t_typ":
                    r["metrics"]["t_avg"] = v * 1.1
                if name == "bw" and tool == "perftest":
                    r["metrics"]["msg_rate"] = v / size
                if cpu:
                    r["cpu"] = {"sys": cpu[0], "softirq": cpu[1], "irq": 0.0, "window": 3.0}
                    r["bytes"] = moved
            self.recs.append(r)

    def write(self, path, cut=False):
        with open(path, "w", encoding="utf-8") as f:
            for r in self.recs:
                f.write(json.dumps(r) + "\n")
            if cut:
                f.write('{"kind": "run", "part": "ma')


def sample(kernel="6.1.0-test", rxe_ns=False):
    raw = Raw(kernel)
    # A failed repetition: the median of the other two, flagged.
    raw.run("sroce_ns", "write_bw", [100, "FAIL", 120], cpu=(0.3, 0.2), moved=GIB)
    raw.run("sroce_ns", "send_bw", [90, 110, 100], cpu=(0.3, 0.2), moved=GIB)
    raw.run("sroce_ns", "read_bw", [60, 60, 60])
    ref = "rxe_ns" if rxe_ns else "rxe_lo"
    raw.run(ref, "write_bw", [40, 40, 40], cpu=(1.5, 0.5), moved=GIB // 2)
    raw.run(ref, "send_bw", [30, 30, 30])
    raw.run("sroce_ns", "write_bw", [230, 230, 230], qps=4)
    raw.run("sroce_ns", "send_bw", [150, 150, 150], qps=4)
    raw.run("tcp_ns", "tcp_bw", [300, 300, 300], size=0, tool="iperf3", cpu=(1.0, 0.5),
            moved=3 * GIB)
    raw.run("sroce_lo", "send_lat", [10, 10, 10], size=2)
    raw.run("rxe_lo", "send_lat", [25, 25, 25], size=2)
    raw.run("sroce_lo", "write_lat", [15, 15, 15], size=2)
    raw.run("rxe_lo", "write_lat", [25, 25, 25], size=2)
    # A hung cell: the one repetition that ran hung.
    raw.run("sroce_lo", "read_lat", [12, 12, 12], size=2)
    raw.run("rxe_lo", "read_lat", ["HANG"], size=2)
    raw.run("sroce_lo", "rc_lat", ["n/a"], size=2, event=1, tool="qperf")
    raw.run("rxe_lo", "rc_lat", ["n/a"], size=2, event=1, tool="qperf")
    for q, v in zip((1, 2, 4, 8, 16, 32, 64), (100, 150, 180, 200, 190, 170, 165)):
        raw.run("sroce_ns", "write_bw", [v], qps=q, part="sweep_qps")
    for d, v in zip((1, 4, 16, 64, 256), (170, 180, 190, 200, 200)):
        raw.run("sroce_ns", "write_bw", [v], depth=d, part="sweep_depth")
    raw.run("sroce_ns", "write_bw", ["skip"], depth=1024, part="sweep_depth")
    for q, v in zip((1, 2, 4), (40, 45, "HANG")):
        raw.run(ref, "write_bw", [v], qps=q, part="sweep_qps")
    raw.run("sroce_ns", "write_bw", [100, 98, 99], part="dcqcn_on")
    raw.run("sroce_ns", "write_bw", [100, 100, 101], part="dcqcn_off")
    raw.recs.append({"kind": "note", "text": "rdma_rxe between namespaces: does not work",
                     "problem": False})
    raw.recs.append({"kind": "note", "text": "rxe_lo ib_read_lat rep 1: HANG", "problem": True})
    raw.recs.append({"kind": "end", "guest_load_end": "1.0 1.0 1.0", "elapsed_s": 3300})
    return raw


class Report(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="test-bench.")
        self.raw = os.path.join(self.dir, "raw.jsonl")
        sample().write(self.raw, cut=True)
        self.rep = br.report(self.raw, os.path.join(self.dir, "out"))
        self.t = {(r["label"], r["mtu"]): r for r in self.rep.targets}

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_failed_repetition(self):
        c = self.rep.find("sroce_ns", 1500, "write_bw", "bw", 65536)
        self.assertEqual((c.median, c.partial, c.text()), (110, True, "110*"))

    def test_hang_cell(self):
        c = self.rep.find("rxe_lo", 1500, "read_lat", "t_typ")
        self.assertEqual(c.text(), "HANG")
        r = self.t[("ib_read_lat 2B t_typ lo / rxe", 1500)]
        self.assertEqual((r["verdict"], r["reason"]), ("n/a", "HANG"))

    def test_ratios_and_verdicts(self):
        r = self.t[("ib_send_bw 64KiB ns / rxe", 1500)]
        self.assertEqual((r["ref_config"], round(r["ratio"], 2), r["verdict"]),
                         ("rxe_lo", 3.33, "PASS"))
        r = self.t[("ib_write_bw 64KiB ns / rxe", 1500)]
        self.assertEqual((round(r["ratio"], 2), r["partial"], r["verdict"]), (2.75, True, "MISS"))
        self.assertEqual(self.t[("ib_send_lat 2B t_typ lo / rxe", 1500)]["verdict"], "PASS")
        self.assertEqual(self.t[("ib_write_lat 2B t_typ lo / rxe", 1500)]["verdict"], "MISS")
        tcp = 300
        r = self.t[("ib_write_bw 64KiB ns / TCP", 1500)]
        self.assertAlmostEqual(r["ratio"], 110 / tcp)
        self.assertEqual(self.t[("ib_write_bw 64KiB ns q4 / q1", 1500)]["verdict"], "PASS")
        self.assertEqual(self.t[("ib_send_bw 64KiB ns q4 / q1", 1500)]["verdict"], "MISS")
        r = self.t[("ib_write_bw 64KiB ns DCQCN+PFC on / off", 1500)]
        self.assertEqual(r["verdict"], "PASS")

    def test_cpu_per_gib(self):
        r = self.t[("ib_write_bw 64KiB ns CPU/GiB / rxe", 1500)]
        self.assertEqual((r["value"], r["reference"], r["ratio"], r["verdict"]),
                         (0.5, 4.0, 0.125, "PASS"))
        r = self.t[("ib_write_bw 64KiB ns CPU/GiB / TCP", 1500)]
        self.assertEqual((r["reference"], r["ratio"], r["verdict"]), (0.5, 1.0, "PASS"))
        # Two repetitions had a CPU sample, the failed one none.
        self.assertEqual(self.rep.find("sroce_ns", 1500, "write_bw", "cpu_s_per_gib").text(),
                         "0.5000*")

    def test_qperf_missing(self):
        r = self.t[("qperf rc_lat lo / rxe", 1500)]
        self.assertEqual((r["verdict"], r["reason"]), ("n/a", "n/a (qperf missing)"))
        self.assertIn("n/a (qperf missing)", read(self.dir, "out", "bench.txt"))

    def test_sweeps(self):
        s = {(x["part"], x["config"]): x for x in self.rep.sweeps}
        q = s[("sweep_qps", "sroce_ns")]
        self.assertEqual((q["min"], q["best"], q["min_at"], q["best_at"], q["ratio"], q["verdict"]),
                         (100, 200, 1, 8, 0.5, "MISS"))
        d = s[("sweep_depth", "sroce_ns")]  # the skipped point is left out
        self.assertEqual((d["ratio"], d["verdict"], d["min_at"]), (0.85, "PASS", 1))
        x = s[("sweep_qps", "rxe_lo")]  # a hung point is a collapse; rxe's are information
        self.assertEqual((x["verdict"], x["reason"], x["target"]), ("MISS", "4: HANG", False))

    def test_files(self):
        out = os.path.join(self.dir, "out")
        with open(os.path.join(out, "bench.csv"), newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(list(rows[0]), br.CSV_COLUMNS)
        wbw = [r for r in rows if (r["part"], r["config"], r["test"], r["qps"], r["metric"]) ==
               ("main", "sroce_ns", "write_bw", "1", "bw")]
        self.assertEqual([(r["rep"], r["value"], r["status"]) for r in wbw],
                         [("1", "100", "ok"), ("2", "", "FAIL"), ("3", "120", "ok")])
        cpu = [r for r in rows if r["config"] == "tcp_ns" and r["metric"] == "cpu_s_per_gib"]
        self.assertEqual((cpu[0]["value"], cpu[0]["cpu_sys_s"], cpu[0]["bytes"]),
                         ("0.5", "1.0", str(3 * GIB)))
        j = json.loads(read(out, "bench.json"))
        self.assertEqual(j["rxe_reference"], "rxe_lo")
        self.assertTrue(any(t["verdict"] == "MISS" for t in j["targets"]))
        txt = read(out, "bench.txt")
        self.assertIn("ib_write_bw 64KiB q1", txt)
        self.assertIn("110*", txt)
        self.assertIn("min/best 0.50 (min at 1, best at 8), MISS", txt)
        bw = read(out, "plot", "bw.dat").splitlines()
        self.assertEqual(bw[0], "test " + " ".join(br.CONFIGS))
        self.assertEqual(bw[2], "ib_write_bw - 110 40.00 - -")
        if shutil.which("gnuplot"):
            self.assertGreater(os.path.getsize(os.path.join(out, "bench.png")), 10000)

    def test_summary(self):
        other = os.path.join(self.dir, "raw2.jsonl")
        sample("7.3.4-test", rxe_ns=True).write(other)
        br.report(other, os.path.join(self.dir, "out2"))
        text = br.summary([os.path.join(self.dir, d, "bench.json") for d in ("out", "out2")])
        line = next(ln for ln in text.splitlines() if ln.startswith("ib_send_bw 64KiB ns / rxe "))
        self.assertEqual(line.split()[-4:], ["3.33", "PASS", "3.33", "PASS"])


if __name__ == "__main__":
    sys.exit(0 if unittest.main(exit=False).result.wasSuccessful() else 1)
