#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""guest-matrix.py: the guest half of `sroce-bench --matrix`, issue 15's
benchmark matrix. Runs in one sroce-vm boot with sroce.ko loaded. Per
repetition and per veth MTU (1500, then 9000) it measures sroce and
rdma_rxe, each on loopback and between two namespaces (rdma_rxe only
where a probe shows its kernel can), then iperf3 over the same veth.
After the first repetition come the parts measured once: the QP and WQE
depth sweeps, qperf's RC bandwidth, and DCQCN/PFC on against off.

Every measurement is appended to $SROCE_OUT/raw.jsonl (--out) as one JSON
line the moment it is taken, so that a run cut short keeps what it has;
tools/bench/bench-report.py makes the tables, CSV, JSON and chart of them
on the host. See Documentation/benchmarks.md, "The matrix".

usage: guest-matrix.py [--reps N] [--quick] [--secs S] [--parts LIST]
                       [--deadline UPTIME_SECS] [--host-load STR] [--out FILE]
"""

import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import tarfile
import tempfile
import time

NS = "b"
ADDR0, ADDR1 = "10.77.0.1", "10.77.0.2"
MTUS = (1500, 9000)
# The RoCE path MTU a veth MTU gives (the largest IB MTU below it), passed
# to perftest as -m so that both drivers use the same.
PATH_MTU = {1500: 1024, 9000: 4096}
BW_TESTS = ("send_bw", "write_bw", "read_bw")
LAT_TESTS = ("send_lat", "write_lat", "read_lat", "atomic_lat")
# perftest's ib_write_lat has no -e (it polls the receive buffer).
EVENT_TESTS = ("send_lat", "read_lat", "atomic_lat")
SWEEP_QPS = (1, 2, 4, 8, 16, 32, 64)
SWEEP_DEPTHS = (1, 4, 16, 64, 256, 1024)
QUICK_SWEEP_QPS = (1, 8, 64)
QUICK_SWEEP_DEPTHS = (1, 64, 1024)
BW_DEPTH = 128  # perftest's default tx depth for bandwidth tests
PARTS = ("main", "tcp", "qperf", "sweep", "dcqcn")
# What one run costs beyond its traffic in a TCG guest (two processes
# start, open the device, connect, report): used to skip what no longer
# fits before the deadline.
SETUP_S = 8
# Kept free at the end for the logs' tar over 9p and power-off.
TAIL_S = 30
# A client's grace beyond its run's timeout before it counts as hung.
CLIENT_SLACK_S = 10
# perftest's servers that measure the same exchange as their client: their
# figures stand in when the client's clock calibration failed.
SERVER_MEASURES = ("send_bw", "send_lat", "write_lat")
# Output to a file is block-buffered: the tools' lines must show as they
# are printed.
LINEBUF = ["stdbuf", "-oL", "-eL"]
CC_COUNTERS = ["np_ecn_marked_roce_packets", "np_cnp_sent", "rp_cnp_handled",
               "rx_pause_ctrl_phy"]
CC_COUNTERS += [f"{d}_prio{p}_pause" for d in ("rx", "tx") for p in range(8)]


# --- parsing tool output (pure functions, tested on the host) -------------

def perftest_figures(text):
    """The result row of perftest output TEXT as {column name: string}:
    the first data line after the last "#bytes" header. Header names may
    hold blanks ("BW average[MB/sec]"): words are joined until one that
    ends a name (has "]" or starts with "#"). perftest 25 (trixie on)
    writes "[MiB/sec]" for what 4.5 and 23 wrote as "[MB/sec]" (bytes /
    2^20 per second): names are given in the older spelling."""
    names, row, armed = [], {}, False
    for line in text.splitlines():
        words = line.split()
        if "#bytes" in words:
            names, name = [], ""
            for w in words:
                name = f"{name} {w}" if name else w
                if "]" in w or w.startswith("#"):
                    names.append(name.replace("[MiB/sec]", "[MB/sec]"))
                    name = ""
            armed = True
        elif armed and words and words[0].isdigit():
            row = dict(zip(names, words))
            armed = False
    return row


def positive(s):
    """S as a float if it is a finite positive number, else None (perftest
    prints 0.00, inf or -nan when its clock calibration failed)."""
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) and v > 0 else None


def perftest_metrics(test, text):
    """Metrics of one perftest run: bandwidth tests give bw (MiB/s),
    msg_rate (Mpps), iters and size; latency tests t_typ and t_avg (usec).
    None if a figure is missing or not sane."""
    row = perftest_figures(text)
    if test.endswith("_bw"):
        m = {"bw": positive(row.get("BW average[MB/sec]")),
             "msg_rate": positive(row.get("MsgRate[Mpps]")),
             "iters": positive(row.get("#iterations")),
             "size": positive(row.get("#bytes"))}
    else:
        m = {"t_typ": positive(row.get("t_typical[usec]")),
             "t_avg": positive(row.get("t_avg[usec]"))}
    return m if all(v is not None for v in m.values()) else None


def perftest_mtu(text):
    """The path MTU perftest reports using ("Mtu : 1024[B]"), or None."""
    m = re.search(r"^\s*Mtu\s*:\s*(\d+)\[B\]", text, re.M)
    return int(m.group(1)) if m else None


QPERF_TIME = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "sec": 1e6}
QPERF_BAND = {"bytes/sec": 1, "KB/sec": 1e3, "MB/sec": 1e6, "GB/sec": 1e9,
              "TB/sec": 1e12}


def qperf_metrics(test, text):
    """qperf's result: rc_lat's "latency = 12.3 us" as t_avg (usec; qperf
    averages), rc_bw's "bw = 85.2 MB/sec" as bw (MiB/s; qperf's MB are
    10^6 bytes). Thousands are comma-separated. None if absent."""
    name, units = ("latency", QPERF_TIME) if test == "rc_lat" else ("bw", QPERF_BAND)
    m = re.search(rf"^\s*{name}\s*=\s*([\d,.]+)\s+(\S+)", text, re.M)
    if not m or m.group(2) not in units:
        return None
    v = positive(m.group(1).replace(",", ""))
    if v is None:
        return None
    if test == "rc_lat":
        return {"t_avg": v * units[m.group(2)]}
    return {"bw": v * units[m.group(2)] / 2**20}


def iperf3_metrics(text):
    """iperf3's receiver summary ("0.00-3.04 sec ... 4650 Mbits/sec ...
    receiver", with -f m): bw (MiB/s), bw_mbit (Mbit/s) and the bytes
    received (rate x interval). None if absent."""
    for line in text.splitlines():
        if not line.rstrip().endswith("receiver"):
            continue
        m = re.search(r"([\d.]+)-([\d.]+)\s+sec\s.*?([\d.]+)\s+Mbits/sec", line)
        if not m:
            continue
        secs = float(m.group(2)) - float(m.group(1))
        mbit = positive(m.group(3))
        if mbit is None or secs <= 0:
            return None
        return {"bw": mbit * 1e6 / 8 / 2**20, "bw_mbit": mbit,
                "bytes": round(mbit * 1e6 / 8 * secs)}
    return None


# When a client's output shows its traffic starting and ending: perftest
# prints its result header just before it sends and the row when done;
# iperf3 its stream's "connected to" line and, after the last interval,
# the summary's separator.
TRAFFIC_MARKS = {
    "perftest": (lambda t: "#bytes" in t, lambda t: bool(perftest_figures(t))),
    "iperf3": (lambda t: "connected to" in t, lambda t: "- - - -" in t),
}


def devinfo_caps(text):
    """max_qp_wr, max_cqe and max_qp from `ibv_devinfo -v` TEXT."""
    caps = {}
    for key in ("max_qp_wr", "max_cqe", "max_qp"):
        m = re.search(rf"^\s*{key}:\s*(\d+)", text, re.M)
        if m:
            caps[key] = int(m.group(1))
    return caps


def cpu_delta(before, after, hz):
    """System, softirq and irq seconds between two /proc/stat samples
    (ticks of system, irq, softirq and the monotonic time)."""
    return {"sys": (after[0] - before[0]) / hz,
            "irq": (after[1] - before[1]) / hz,
            "softirq": (after[2] - before[2]) / hz,
            "window": round(after[3] - before[3], 3)}


# --- processes: every one bounded, reaped, never left to stall the run ----

def spawn(argv, out_path, ns=None):
    """Start ARGV (in namespace NS) in its own process group, output to
    OUT_PATH."""
    if ns:
        argv = ["ip", "netns", "exec", ns] + argv
    with open(out_path, "wb") as f:
        return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)


def reap(proc, secs):
    """PROC's status once it ends within SECS, else None."""
    end = time.monotonic() + secs
    while True:
        rc = proc.poll()
        if rc is not None or time.monotonic() >= end:
            return rc
        time.sleep(0.1)


def stop(proc):
    """End PROC's process group: SIGTERM, then SIGKILL. Its status, or None
    if it survived SIGKILL for 10 s (stuck in the kernel)."""
    for sig, wait in ((signal.SIGTERM, 2), (signal.SIGKILL, 10)):
        if proc.poll() is not None:
            return proc.returncode
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
        rc = reap(proc, wait)
        if rc is not None:
            return rc
    return None


def listening(pid, port):
    """A TCP socket of process PID's namespace listens on PORT (read from
    /proc: no fork, which costs tens of ms under TCG)."""
    want = f":{port:04X}"
    for name in ("tcp", "tcp6"):
        try:
            with open(f"/proc/{pid}/net/{name}", encoding="ascii") as f:
                for line in f:
                    fields = line.split()
                    if len(fields) > 3 and fields[1].endswith(want) and \
                            fields[3] == "0A":
                        return True
        except OSError:
            pass
    return False


def poll(cond, secs, step=0.1):
    """Retry COND until it holds or SECS pass: never a blind sleep."""
    end = time.monotonic() + secs
    while True:
        if cond():
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(step)


def uptime():
    with open("/proc/uptime", encoding="ascii") as f:
        return float(f.read().split()[0])


def cpu_sample():
    """(system, irq, softirq) ticks of the aggregate cpu line of /proc/stat
    and the monotonic time."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = f.readline().split()
    return int(fields[3]), int(fields[6]), int(fields[7]), time.monotonic()


def read_text(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def tail(path, n):
    lines = [ln for ln in read_text(path).splitlines() if ln.strip()]
    return "|".join(lines[-n:])


class Job:
    """One cell of the matrix: what runs, whatever the configuration."""

    def __init__(self, part, test, size, qps=1, depth=None, event=0, tool="perftest"):
        self.part, self.test, self.size, self.qps = part, test, size, qps
        self.depth, self.event, self.tool = depth, event, tool

    def key(self, config, mtu):
        return (self.part, config, mtu, self.test, self.size, self.qps,
                self.depth, self.event, self.tool)


# qperf's event-driven latency (each repetition) and bandwidth (once).
RC_LAT = Job("main", "rc_lat", 2, 1, None, 1, "qperf")
RC_BW = Job("extra", "rc_bw", 65536, 1, None, 1, "qperf")


def perftest_jobs(mtu):
    """The perftest matrix at veth MTU MTU. At 9000 only the messages of
    more than one packet at 1500 run again: a 2- or 64-byte message and an
    atomic are the same single packet at either MTU."""
    sizes = (64, 4096, 65536) if mtu == 1500 else (4096, 65536)
    jobs = [Job("main", t, s, q, BW_DEPTH) for t in BW_TESTS for s in sizes for q in (1, 4)]
    if mtu == 1500:
        jobs += [Job("main", "atomic_bw", 8, q, BW_DEPTH) for q in (1, 4)]
        jobs += [Job("main", t, 8 if t.startswith("atomic") else 2, 1, 1) for t in LAT_TESTS]
        jobs += [Job("main", t, 8 if t.startswith("atomic") else 2, 1, 1, 1)
                 for t in EVENT_TESTS]
    return jobs


class Matrix:
    def __init__(self, args):
        self.args = args
        self.quick = args.quick
        self.reps = args.reps or (1 if args.quick else 3)
        self.secs = args.secs or (2 if args.quick else 3)
        self.lat_iters = 200 if args.quick else 1000
        self.parts = set(args.parts.split(",")) if args.parts else set(PARTS)
        self.deadline = args.deadline or 10**9
        self.out = args.out or (os.path.join(os.environ["SROCE_OUT"], "raw.jsonl")
                                if os.environ.get("SROCE_OUT") else None)
        self.work = tempfile.mkdtemp(prefix="sroce-matrix.")
        self.port = 18600
        self.hz = os.sysconf("SC_CLK_TCK")
        self.loaded = "sroce"  # the harness loaded this build
        self.rxe_ns = None     # unknown until probed
        self.caps = {}
        self.hung = set()
        self.problems = 0
        self.failed = 0
        self.qperf = shutil.which("qperf")
        top = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        self.sroce_qos = os.path.join(top, "tools", "sroce-qos")

    # --- output ---
    def log(self, msg):
        print(f"[{uptime():7.1f}s] {msg}", flush=True)

    def emit(self, rec):
        """Append REC to the raw file at once (it must survive a cut)."""
        line = json.dumps(rec, sort_keys=True)
        if self.out:
            with open(self.out, "a", encoding="utf-8") as f:
                f.write(line + "\n")
        else:
            print("RECORD " + line, flush=True)

    def note(self, text, problem=False):
        if problem:
            self.problems += 1
        self.log(("PROBLEM: " if problem else "note: ") + text)
        self.emit({"kind": "note", "text": text, "problem": problem})

    def left(self):
        return self.deadline - TAIL_S - uptime()

    # --- commands ---
    def cmd(self, argv, ns=None, secs=60):
        """Run an administrative command, bounded: (status, output); status
        None if it hung and would not die."""
        path = os.path.join(self.work, "cmd.out")
        proc = spawn(argv, path, ns)
        rc = reap(proc, secs)
        if rc is None:
            rc = stop(proc)
            rc = 124 if rc is not None else None
        return rc, read_text(path).strip()

    def must(self, argv, ns=None, secs=60, problem=True):
        rc, out = self.cmd(argv, ns, secs)
        if rc != 0:
            self.note(f"{' '.join(argv)}: status {rc}: {out[-300:]}", problem)
        return rc == 0

    # --- network, modules, devices ---
    def setup_net(self):
        ok = self.must(["modprobe", "veth"]) and self.must(["ip", "netns", "add", NS])
        ok = ok and self.must(["ip", "link", "add", "veth0", "type", "veth",
                               "peer", "name", "veth1"])
        ok = ok and self.must(["ip", "link", "set", "veth1", "netns", NS])
        ok = ok and self.must(["ip", "addr", "add", f"{ADDR0}/24", "dev", "veth0"])
        ok = ok and self.must(["ip", "-n", NS, "addr", "add", f"{ADDR1}/24", "dev", "veth1"])
        for argv in (["ip", "link", "set", "veth0", "up"],
                     ["ip", "-n", NS, "link", "set", "veth1", "up"],
                     ["ip", "-n", NS, "link", "set", "lo", "up"]):
            ok = ok and self.must(argv)
        return ok

    def set_mtu(self, mtu):
        return (self.must(["ip", "link", "set", "veth0", "mtu", str(mtu)]) and
                self.must(["ip", "-n", NS, "link", "set", "veth1", "mtu", str(mtu)]))

    def switch_to(self, drv):
        """Make DRV (sroce or rxe) the loaded driver; they exclude each
        other."""
        if self.loaded == drv:
            return True
        if self.loaded is None:
            return False
        mod = {"sroce": "sroce", "rxe": "rdma_rxe"}[self.loaded]
        if not self.must(["rmmod", mod]):
            self.loaded = None
            return False
        self.loaded = None
        load = (["insmod", os.environ["SROCE_KO"]] if drv == "sroce"
                else ["modprobe", "rdma_rxe"])
        if not self.must(load):
            return False
        self.loaded = drv
        return True

    def gid_v4(self, dev, addr):
        """Index of DEV's RoCE v2 GID for IPv4 ADDR, or None."""
        d = f"/sys/class/infiniband/{dev}/ports/1"
        want = "0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x" % tuple(
            int(x) for x in addr.split("."))
        try:
            n = len(os.listdir(f"{d}/gids"))
        except OSError:
            return None
        for i in range(n):
            if read_text(f"{d}/gids/{i}").strip() != want:
                continue
            if read_text(f"{d}/gid_attrs/types/{i}").strip() == "RoCE v2":
                return i
        return None

    def make_dev(self, drv, name, netdev, ns, addr, problem=True):
        """rdma link add; the GID index of ADDR once it shows, else None
        (a PROBLEM, or only a note while probing)."""
        if not self.must(["rdma", "link", "add", name, "type", drv, "netdev", netdev], ns,
                         problem=problem):
            return None
        gid = None

        def found():
            nonlocal gid
            gid = self.gid_v4(name, addr)
            return gid is not None

        if not poll(found, 20):
            self.note(f"{name}: no RoCE v2 GID for {addr} after 20 s", problem)
            return None
        if drv not in self.caps:
            rc, out = self.cmd(["ibv_devinfo", "-v", "-d", name])
            self.caps[drv] = devinfo_caps(out) if rc == 0 else {}
            self.emit({"kind": "device", "driver": drv, "dev": name, **self.caps[drv]})
        return gid

    def del_dev(self, name, ns=None):
        self.cmd(["rdma", "link", "del", name], ns)

    # --- one measurement ---
    def record(self, job, config, mtu, rep, status, **fields):
        rec = {"kind": "run", "part": job.part, "config": config, "mtu": mtu,
               "test": job.test, "size": job.size, "qps": job.qps,
               "depth": job.depth, "event": job.event, "tool": job.tool,
               "rep": rep, "status": status}
        rec.update(fields)
        if status not in ("ok", "n/a") and job.part != "probe":
            self.failed += 1
        self.emit(rec)
        figs = " ".join(f"{k}={v:.4g}" for k, v in rec.get("metrics", {}).items())
        self.log(f"{config} mtu {mtu} {job.tool} {job.test} s{job.size} q{job.qps} "
                 f"t{job.depth} e{job.event} [{job.part}] rep {rep}: {status} {figs}")
        return rec

    def budget(self, need, timeout):
        """The timeout a run may have, or None if it no longer fits."""
        left = self.left()
        return None if left < need else min(timeout, left - 5)

    def watch(self, proc, path, secs, started, finished):
        """Wait for PROC up to SECS; sample /proc/stat when its output first
        shows STARTED (traffic begins) and FINISHED (it ended), so that the
        CPU time is that of the traffic, not of the set-up. Returns (status
        or None on timeout, CPU dict or None)."""
        end = time.monotonic() + secs
        c0 = c1 = None
        size = -1
        while True:
            rc = proc.poll()
            if c0 is not None and c1 is None and rc is not None:
                c1 = cpu_sample()
            if rc is not None:
                break
            if time.monotonic() >= end:
                return None, None
            if c1 is None:
                try:
                    now = os.path.getsize(path)
                except OSError:
                    now = size
                if now != size:
                    size = now
                    text = read_text(path)
                    if c0 is None and started(text):
                        c0 = cpu_sample()
                    if c0 is not None and finished(text):
                        c1 = cpu_sample()
            time.sleep(0.05)
        cpu = cpu_delta(c0, c1, self.hz) if c0 and c1 else None
        return rc, cpu

    def server_client(self, name, server, sns, client, timeout, port, kind):
        """Start SERVER (in SNS), wait until it listens on PORT, run CLIENT.
        KIND: "perftest" or "iperf3" for a bandwidth run whose CPU time is
        sampled, "qperf" (its server never ends by itself), or None.
        Returns (status, client status, server status, cpu, paths)."""
        spath = os.path.join(self.work, name + ".server")
        cpath = os.path.join(self.work, name + ".client")
        sproc = spawn(server, spath, sns)
        if not poll(lambda: listening(sproc.pid, port) or sproc.poll() is not None, 20) \
                or sproc.poll() is not None:
            src = stop(sproc)
            return "FAIL", None, src, None, (spath, cpath)
        cproc = spawn(client, cpath)
        started, finished = TRAFFIC_MARKS.get(kind, (None, None))
        if started:
            crc, cpu = self.watch(cproc, cpath, timeout + CLIENT_SLACK_S, started, finished)
        else:
            crc, cpu = reap(cproc, timeout + CLIENT_SLACK_S), None
        status = "ok"
        if crc is None:
            status = "HANG" if stop(cproc) is not None else "STUCK"
        elif crc != 0:
            status = "FAIL"
        # A failed client leaves the server waiting for it: do not sit out
        # its timeout. qperf's server never ends by itself.
        src = reap(sproc, 15) if status == "ok" and kind != "qperf" else None
        if src is None:
            src = stop(sproc)
            if src is None:
                status = "STUCK"
        return status, crc, src, cpu, (spath, cpath)

    def perftest(self, job, config, mtu, rep, ends, timeout=None):
        """One perftest measurement (up to 3 tries while only perftest's
        clock calibration fails: a busy host's doing, not the driver's)."""
        for attempt in (1, 2, 3):
            rec = self.perftest_once(job, config, mtu, rep, ends, attempt, timeout)
            if rec != "CALIB":
                return rec
            self.log(f"{config} ib_{job.test} rep {rep}: "
                     f"perftest clock calibration failed (try {attempt})")
        return self.record(job, config, mtu, rep, "CALIB",
                           note="perftest clock calibration failed 3 times")

    def perftest_once(self, job, config, mtu, rep, ends, attempt, timeout):
        (sns, sdev, sgid), (cdev, cgid, addr) = ends
        bw = job.test.endswith("_bw")
        if timeout is None:
            timeout = self.secs + 60 + job.qps if bw else (90 if job.event else 60)
        need = (self.secs if bw else 0) + SETUP_S
        timeout = self.budget(need, timeout)
        if timeout is None:
            return self.record(job, config, mtu, rep, "skip", note="no time left")
        self.port += 1
        args = ["-F", "-p", str(self.port), "-m", str(PATH_MTU[mtu])]
        if not job.test.startswith("atomic"):
            args += ["-s", str(job.size)]
        if bw:
            # Duration mode, no margins: the whole -D is measured, so the
            # iterations are the bytes moved while CPU time is sampled.
            args += ["-q", str(job.qps), "-t", str(job.depth), "-D", str(self.secs), "-f", "0"]
        else:
            args += ["-n", str(self.lat_iters)] + (["-e"] if job.event else [])
        tool = "ib_" + job.test
        name = (f"{job.part}.{config}.{mtu}.{job.test}.s{job.size}.q{job.qps}."
                f"t{job.depth}.e{job.event}.r{rep}.{attempt}")
        # Line-buffered: the CPU sample starts when the header shows.
        status, crc, src, cpu, (spath, cpath) = self.server_client(
            name, LINEBUF + [tool, "-d", sdev, "-x", str(sgid)] + args, sns,
            LINEBUF + [tool, "-d", cdev, "-x", str(cgid)] + args + [addr],
            timeout, self.port, "perftest" if bw else None)
        ctext = read_text(cpath)
        source = "client"
        metrics = perftest_metrics(job.test, ctext) if status == "ok" else None
        calib = "Correlation coefficient" in ctext
        if status == "ok" and metrics is None and calib and src == 0 and \
                job.test in SERVER_MEASURES:
            metrics = perftest_metrics(job.test, read_text(spath))
            source = "server"
        if status == "ok" and metrics is None:
            if calib:
                return "CALIB"
            status = "FAIL"
        if status != "ok":
            self.note(f"{config} mtu {mtu} {tool} s{job.size} q{job.qps} t{job.depth} "
                      f"e{job.event} rep {rep}: {status} (client {crc}, server {src}); "
                      f"client: {tail(cpath, 4)} server: {tail(spath, 2)}",
                      problem=job.part != "probe")
            return self.record(job, config, mtu, rep, status, log=name)
        fields = {"log": name, "path_mtu": perftest_mtu(ctext), "source": source}
        if bw:
            fields["bytes"] = int(metrics.pop("iters") * metrics.pop("size"))
            if cpu:
                fields["cpu"] = cpu
        return self.record(job, config, mtu, rep, "ok", metrics=metrics, **fields)

    def qperf_run(self, job, config, mtu, rep, sns, addr):
        """qperf over the RDMA CM (-cm1), its server in namespace SNS. qperf
        waits for completions on CQ events unless told to poll: event-driven
        by default. Two tries: 0.4.11 may answer the CM's connect before it
        listens (fixed upstream after the release)."""
        if not self.qperf:
            return self.record(job, config, mtu, rep, "n/a", note="qperf missing")
        for attempt in (1, 2):
            timeout = self.budget(self.secs + SETUP_S, self.secs + 60)
            if timeout is None:
                return self.record(job, config, mtu, rep, "skip", note="no time left")
            self.port += 1
            size = "2" if job.test == "rc_lat" else "64K"
            name = f"{job.part}.{config}.{mtu}.qperf_{job.test}.r{rep}.{attempt}"
            status, crc, src, _, (spath, cpath) = self.server_client(
                name, ["qperf", "-lp", str(self.port)], sns,
                ["qperf", addr, "-lp", str(self.port), "-cm1", "-m", size,
                 "-t", str(self.secs), "-to", "30", "-ws", "20", job.test],
                timeout, self.port, "qperf")
            metrics = qperf_metrics(job.test, read_text(cpath)) if status == "ok" else None
            if metrics:
                return self.record(job, config, mtu, rep, "ok", metrics=metrics, log=name)
            if status == "ok":
                status = "FAIL"
            last = attempt == 2 or status != "FAIL"
            self.note(f"{config} qperf {job.test} rep {rep} try {attempt}: {status} "
                      f"(client {crc}, server {src}): {tail(cpath, 3)}", problem=last)
            if last:
                break
        return self.record(job, config, mtu, rep, status, log=name)

    def iperf3(self, mtu, rep):
        job = Job("main", "tcp_bw", 0, 1, None, 0, "iperf3")
        timeout = self.budget(self.secs + SETUP_S, self.secs + 30)
        if timeout is None:
            return self.record(job, "tcp_ns", mtu, rep, "skip", note="no time left")
        self.port += 1
        name = f"main.tcp_ns.{mtu}.iperf3.r{rep}"
        status, crc, src, cpu, (_, cpath) = self.server_client(
            name, ["iperf3", "-s", "-1", "-B", ADDR1, "-p", str(self.port)], NS,
            LINEBUF + ["iperf3", "-c", ADDR1, "-p", str(self.port), "-f", "m",
                       "-t", str(self.secs), "--forceflush"], timeout, self.port, "iperf3")
        metrics = iperf3_metrics(read_text(cpath)) if status == "ok" else None
        if not metrics:
            status = "FAIL" if status == "ok" else status
            self.note(f"iperf3 mtu {mtu} rep {rep}: {status} (client {crc}, server {src}): "
                      f"{tail(cpath, 3)}", problem=True)
            return self.record(job, "tcp_ns", mtu, rep, status, log=name)
        fields = {"bytes": metrics.pop("bytes"), "log": name}
        if cpu:
            fields["cpu"] = cpu
        return self.record(job, "tcp_ns", mtu, rep, "ok", metrics=metrics, **fields)

    def cell(self, job, config, mtu, rep, ends, timeout=None):
        """A perftest cell, unless it hung before in this configuration."""
        key = job.key(config, mtu)
        if key in self.hung:
            return None
        rec = self.perftest(job, config, mtu, rep, ends, timeout)
        if rec["status"] in ("HANG", "STUCK"):
            self.hung.add(key)
        return rec

    # --- the parts ---
    def sweeps(self, config, mtu, ends):
        drv = config.split("_")[0]
        qps = QUICK_SWEEP_QPS if self.quick else SWEEP_QPS
        depths = QUICK_SWEEP_DEPTHS if self.quick else SWEEP_DEPTHS
        for q in qps:
            self.cell(Job("sweep_qps", "write_bw", 65536, q, BW_DEPTH), config, mtu, 1, ends,
                      self.secs + 90 + 2 * q)
        limit = self.caps.get(drv, {}).get("max_qp_wr")
        for d in depths:
            if limit and d > limit:
                self.note(f"{config}: tx depth {d} above max_qp_wr {limit}: clamped to {limit}")
                d = limit
            self.cell(Job("sweep_depth", "write_bw", 65536, 1, d), config, mtu, 1, ends)

    def set_cc(self, on):
        """DCQCN (reaction and notification point) and PFC on or off for
        every priority, on both devices, through sroce-qos."""
        bits = ",".join(["1" if on else "0"] * 8)
        ok = True
        for dev in ("sroce0", "sroce1"):
            ok = self.must([self.sroce_qos, "-d", dev, "--ecn_rp", bits, "--ecn_np", bits,
                            "--pfc", bits]) and ok
        return ok

    def cc_signals(self):
        """Congestion signals counted so far on both devices (ECN marks,
        CNPs, pause frames)."""
        total = 0
        for dev in ("sroce0", "sroce1"):
            for name in CC_COUNTERS:
                v = read_text(f"/sys/class/infiniband/{dev}/ports/1/hw_counters/{name}").strip()
                total += int(v) if v.isdigit() else 0
        return total

    def dcqcn(self, mtu, ends):
        """sroce_ns ib_write_bw 64 KiB with DCQCN and PFC on and off, in ABBA
        order, the reps of the main matrix; no congestion is signalled on an
        idle veth, which the counters confirm."""
        for r in range(1, self.reps + 1):
            for on in ((False, True) if r % 2 else (True, False)):
                job = Job("dcqcn_on" if on else "dcqcn_off", "write_bw", 65536, 1, BW_DEPTH)
                if not self.set_cc(on):
                    self.record(job, "sroce_ns", mtu, r, "FAIL", note="sroce-qos failed")
                    continue
                before = self.cc_signals()
                rec = self.cell(job, "sroce_ns", mtu, r, ends)
                if rec and rec["status"] == "ok":
                    signals = self.cc_signals() - before
                    if signals:
                        self.note(f"DCQCN/PFC {'on' if on else 'off'} rep {r}: "
                                  f"{signals} congestion signals (ECN marks, CNPs, pauses)")

    def probe_rxe_ns(self, g0):
        """Whether this kernel's rdma_rxe carries traffic between network
        namespaces (6.1's cannot: its UDP socket lives in the initial one).
        Leaves rxe1 made if it does; its GID index or None."""
        g1 = self.make_dev("rxe", "rxe1", "veth1", NS, ADDR1, problem=False)
        status = "no device"
        if g1 is not None:
            ends = ((NS, "rxe1", g1), ("rxe0", g0, ADDR1))
            iters, self.lat_iters = self.lat_iters, 20
            status = self.perftest(Job("probe", "send_lat", 2, 1, 1), "rxe_ns", 1500, 1, ends,
                                   timeout=40)["status"]
            self.lat_iters = iters
        if status == "skip":
            return None  # no time left to tell
        self.rxe_ns = status == "ok"
        self.note("rdma_rxe between namespaces: " +
                  ("works" if self.rxe_ns else f"does not work on this kernel "
                   f"(probe: {status}); rxe_ns cells are n/a, ratios use rxe_lo"))
        return g1 if self.rxe_ns else None

    def phase(self, drv, mtu, rep, main, extras):
        """DRV's devices at MTU: loopback, then between namespaces; MAIN: the
        perftest matrix and qperf's latency; EXTRAS: the once-only parts."""
        d0, d1 = f"{drv}0", f"{drv}1"
        g0 = self.make_dev(drv, d0, "veth0", None, ADDR0)
        if g0 is None:
            self.del_dev(d0)
            return
        qperf = "qperf" in self.parts and mtu == 1500
        lo = ((None, d0, g0), (d0, g0, "127.0.0.1"))
        if main and "main" in self.parts:
            for job in perftest_jobs(mtu):
                self.cell(job, f"{drv}_lo", mtu, rep, lo)
        if main and qperf:
            self.qperf_run(RC_LAT, f"{drv}_lo", mtu, rep, None, ADDR0)
        if extras and qperf:
            self.qperf_run(RC_BW, f"{drv}_lo", mtu, 1, None, ADDR0)
        if drv == "rxe" and self.rxe_ns is None:
            g1 = self.probe_rxe_ns(g0)
        elif drv == "sroce" or self.rxe_ns:
            g1 = self.make_dev(drv, d1, "veth1", NS, ADDR1)
        else:
            g1 = None
        if g1 is None:
            self.del_dev(d1, NS)
            if extras and drv == "rxe" and "sweep" in self.parts:
                self.sweeps(f"{drv}_lo", mtu, lo)
            self.del_dev(d0)
            return
        ns = ((NS, d1, g1), (d0, g0, ADDR1))
        if main and "main" in self.parts:
            for job in perftest_jobs(mtu):
                self.cell(job, f"{drv}_ns", mtu, rep, ns)
        if main and qperf:
            self.qperf_run(RC_LAT, f"{drv}_ns", mtu, rep, NS, ADDR1)
        if extras:
            if qperf:
                self.qperf_run(RC_BW, f"{drv}_ns", mtu, 1, NS, ADDR1)
            if "sweep" in self.parts:
                self.sweeps(f"{drv}_ns", mtu, ns)
            # Last: it changes the devices' settings.
            if drv == "sroce" and "dcqcn" in self.parts:
                self.dcqcn(mtu, ns)
        self.del_dev(d1, NS)
        self.del_dev(d0)

    def drivers(self):
        """Both drivers, the loaded one first: one module swap per block,
        and the order alternates (ABBA) so that both see a host's drift."""
        return ("sroce", "rxe") if self.loaded != "rxe" else ("rxe", "sroce")

    def run(self):
        start = uptime()
        with open("/proc/loadavg", encoding="ascii") as f:
            load0 = f.read().strip()
        _, version = self.cmd(["ib_write_bw", "--version"])
        self.emit({"kind": "info", "kernel": os.uname().release, "vcpus": os.cpu_count(),
                   "reps": self.reps, "secs": self.secs, "lat_iters": self.lat_iters,
                   "quick": self.quick, "parts": sorted(self.parts), "clk_tck": self.hz,
                   "guest_load_start": load0, "host_load_start": self.args.host_load,
                   "perftest": " ".join(re.findall(r"Version:\s*(\S+)", version)),
                   "qperf": bool(self.qperf), "path_mtu": PATH_MTU})
        self.log(f"matrix: {self.reps} repetition(s), -D {self.secs}, "
                 f"parts {','.join(sorted(self.parts))}")
        if not self.setup_net():
            return 2
        main = bool(self.parts & {"main", "qperf"})
        extras = bool(self.parts & {"sweep", "dcqcn", "qperf"})
        for rep in range(1, self.reps + 1):
            if main or "tcp" in self.parts:
                for mtu in MTUS:
                    if not self.set_mtu(mtu):
                        continue
                    if main:
                        for drv in self.drivers():
                            if self.switch_to(drv):
                                self.phase(drv, mtu, rep, True, False)
                    if "tcp" in self.parts:
                        self.iperf3(mtu, rep)
            if rep == 1 and extras and self.set_mtu(1500):
                for drv in self.drivers():
                    if self.switch_to(drv):
                        self.phase(drv, 1500, 1, False, True)
        with open("/proc/loadavg", encoding="ascii") as f:
            load1 = f.read().strip()
        self.emit({"kind": "end", "guest_load_end": load1,
                   "elapsed_s": round(uptime() - start)})
        out_dir = os.path.dirname(self.out) if self.out else None
        # One file over 9p rather than hundreds, if there is time for it.
        if out_dir and uptime() + 15 < self.deadline:
            with tarfile.open(os.path.join(out_dir, "logs.tar"), "w") as t:
                t.add(self.work, arcname=".")
        self.log(f"done: {self.failed} measurement(s) without a figure, "
                 f"{self.problems} problem(s)")
        return 0 if self.failed == 0 and self.problems == 0 else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, help="repetitions (default 3, --quick 1)")
    ap.add_argument("--quick", action="store_true",
                    help="CI smoke: 1 rep, -D 2, fewer sweep points")
    ap.add_argument("--secs", type=int, help="seconds per bandwidth run (default 3, --quick 2)")
    ap.add_argument("--parts", help="comma-separated subset of " + ",".join(PARTS))
    ap.add_argument("--deadline", type=int, help="guest uptime by which to be done")
    ap.add_argument("--host-load", default="", help="the host's load average at the start")
    ap.add_argument("--out", help="raw records file (default $SROCE_OUT/raw.jsonl)")
    args = ap.parse_args()
    if args.parts and not set(args.parts.split(",")) <= set(PARTS):
        ap.error(f"--parts: a comma-separated subset of {','.join(PARTS)}")
    return Matrix(args).run()


if __name__ == "__main__":
    raise SystemExit(main())
