#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""bench-report.py: the host half of `sroce-bench --matrix`. Turns the raw
records one guest boot wrote (raw.jsonl, tools/bench/guest-matrix.py) into

  bench.txt   issue 15's targets with the measured ratio and PASS/MISS,
              then every median of the matrix, the sweeps, DCQCN/PFC on
              against off, and the run's notes
  bench.csv   one row per measurement and metric (columns: CSV_COLUMNS,
              described in Documentation/benchmarks.md)
  bench.json  the medians, the targets and the sweeps
  bench.png   a chart drawn by gnuplot from plot/*.dat and plot/bench.gp

usage: bench-report.py --out DIR RAW.jsonl
       bench-report.py --summary FILE KVER_DIR/bench.json...
The second form puts the targets of several kernels side by side.
"""

import argparse
import csv
import json
import os
import shutil
import subprocess
import sys

CONFIGS = ("sroce_lo", "sroce_ns", "rxe_lo", "rxe_ns", "tcp_ns")
UNITS = {"bw": "MiB/s", "msg_rate": "Mpps", "t_typ": "usec", "t_avg": "usec",
         "bw_mbit": "Mbit/s", "cpu_s_per_gib": "s/GiB"}
LABELS = {"bw": "MiB/s", "msg_rate": "Mpps", "t_typ": "t_typ usec", "t_avg": "t_avg usec",
          "bw_mbit": "Mbit/s", "cpu_s_per_gib": "CPU s/GiB"}
CSV_COLUMNS = ["kernel", "part", "config", "mtu", "test", "size", "qps", "tx_depth",
               "event", "tool", "rep", "metric", "value", "unit", "cpu_sys_s",
               "cpu_softirq_s", "cpu_irq_s", "window_s", "bytes", "status"]
# When no repetition of a cell produced a figure, the worst status names it.
STATUS_RANK = ("STUCK", "HANG", "FAIL", "CALIB", "skip", "n/a")
TEST_ORDER = ("send_bw", "write_bw", "read_bw", "atomic_bw", "send_lat", "write_lat",
              "read_lat", "atomic_lat", "rc_lat", "rc_bw", "tcp_bw")
METRIC_ORDER = ("bw", "bw_mbit", "msg_rate", "cpu_s_per_gib", "t_typ", "t_avg")
BW = ("send_bw", "write_bw", "read_bw")
EVENT_TESTS = ("send_lat", "read_lat", "atomic_lat")
GIB = 2**30
# A sweep point at least this fraction of the sweep's best: no collapse.
SWEEP_FLOOR = 0.8
# DCQCN and PFC on must keep this fraction of the throughput with them off.
CC_FLOOR = 0.95


def load(path):
    """The records of a raw file by kind; a line cut short at the end (a
    run killed mid-write) is skipped."""
    recs = {"info": {}, "end": {}, "device": [], "note": [], "run": []}
    with open(path, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except ValueError:
                continue
            kind = r.get("kind")
            if kind in ("info", "end"):
                recs[kind] = r
            elif kind in recs:
                recs[kind].append(r)
    return recs


def expected(run):
    """The metrics a run of this kind yields when it succeeds."""
    if run["tool"] == "iperf3":
        return ("bw", "bw_mbit", "cpu_s_per_gib")
    if run["tool"] == "qperf":
        return ("t_avg",) if run["test"] == "rc_lat" else ("bw",)
    if run["test"].endswith("_bw"):
        return ("bw", "msg_rate", "cpu_s_per_gib")
    return ("t_typ", "t_avg")


def cpu_per_gib(run):
    """System + softirq seconds (both ends, one guest) per GiB moved."""
    cpu, moved = run.get("cpu"), run.get("bytes")
    if not cpu or not moved:
        return None
    return (cpu["sys"] + cpu["softirq"]) / (moved / GIB)


def values(run):
    """{metric: value} of a run, the derived CPU per GiB included."""
    v = dict(run.get("metrics") or {})
    c = cpu_per_gib(run)
    if c is not None:
        v["cpu_s_per_gib"] = c
    return v


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    if n == 0:
        return None
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def fmt(x):
    if x is None:
        return "-"
    if x >= 100:
        return f"{x:.0f}"
    if x >= 1:
        return f"{x:.2f}"
    return f"{x:.4f}"


def csv_rows(kernel, runs):
    for r in runs:
        v = values(r)
        cpu = r.get("cpu") or {}
        base = {"kernel": kernel, "part": r["part"], "config": r["config"],
                "mtu": r["mtu"], "test": r["test"], "size": r["size"],
                "qps": r["qps"], "tx_depth": "" if r["depth"] is None else r["depth"],
                "event": r["event"], "tool": r["tool"], "rep": r["rep"],
                "cpu_sys_s": cpu.get("sys", ""), "cpu_softirq_s": cpu.get("softirq", ""),
                "cpu_irq_s": cpu.get("irq", ""), "window_s": cpu.get("window", ""),
                "bytes": r.get("bytes", ""), "status": r["status"]}
        for m in expected(r):
            yield {**base, "metric": m, "unit": UNITS[m],
                   "value": "" if m not in v else f"{v[m]:.6g}"}


class Cell:
    """All repetitions of one measurement and metric."""

    def __init__(self):
        self.values, self.statuses, self.notes = [], [], []

    def add(self, run, metric):
        v = values(run).get(metric)
        if v is not None:
            self.values.append(v)
        else:
            self.statuses.append("n/a" if run["status"] == "ok" else run["status"])
            if run["status"] == "ok" and metric == "cpu_s_per_gib" and \
                    "no CPU sample" not in self.notes:
                self.notes.append("no CPU sample")
        if run.get("note") and run["note"] not in self.notes:
            self.notes.append(run["note"])

    @property
    def median(self):
        return median(self.values)

    @property
    def partial(self):
        """Some repetitions gave no figure: the median is of the rest."""
        return bool(self.values) and bool(self.statuses)

    def status(self):
        if self.values:
            return "ok"
        for s in STATUS_RANK:
            if s in self.statuses:
                return s
        return "n/a"

    def text(self):
        if self.values:
            return fmt(self.median) + ("*" if self.partial else "")
        return self.status()

    def reason(self):
        """Why there is no figure."""
        s = self.status()
        return f"{s} ({'; '.join(self.notes)})" if self.notes else s


def cell_key(r, metric):
    return (r["part"], r["config"], r["mtu"], r["test"], r["size"], r["qps"],
            r["depth"], r["event"], r["tool"], metric)


def build_cells(runs):
    cells = {}
    for r in runs:
        if r["part"] == "probe":
            continue
        for m in expected(r):
            cells.setdefault(cell_key(r, m), Cell()).add(r, m)
    return cells


class Report:
    def __init__(self, recs):
        self.recs = recs
        self.info = recs["info"]
        self.kernel = self.info.get("kernel", "?")
        self.cells = build_cells(recs["run"])
        self.rxe_ns = any(r["config"] == "rxe_ns" and r["part"] == "main" and
                          r["status"] == "ok" for r in recs["run"])
        # The rdma_rxe reference between namespaces: rxe_ns where this
        # kernel's rdma_rxe works across namespaces, else its loopback.
        self.rxe_ref = "rxe_ns" if self.rxe_ns else "rxe_lo"
        self.targets = self.make_targets()
        self.sweeps = self.make_sweeps()

    def find(self, config, mtu, test, metric, size=None, qps=1, event=0, part="main"):
        """The cell that matches (any tx depth: one per test in the main part)."""
        for k, c in self.cells.items():
            if k[:4] == (part, config, mtu, test) and k[9] == metric and \
                    (size is None or k[4] == size) and k[5] == qps and k[7] == event:
                return c
        return None

    def mtus(self):
        return sorted({k[2] for k in self.cells})

    def target(self, group, label, mtu, num, den, op, goal):
        """A target row: NUM / DEN, each (configuration, cell), against GOAL;
        None if neither was measured (a part not run)."""
        if num[1] is None and den[1] is None:
            return None
        row = {"group": group, "label": label, "mtu": mtu, "op": op, "goal": goal,
               "config": num[0], "ref_config": den[0], "value": None, "reference": None,
               "ratio": None, "partial": False}
        missing = [(name, c) for name, c in (num, den) if c is None or c.median is None]
        if missing:
            reasons = [c.reason() if c else "not measured" for _, c in missing]
            row["verdict"] = "n/a"
            row["reason"] = reasons[0] if len(set(reasons)) == 1 else "; ".join(
                f"{name}: {r}" for (name, _), r in zip(missing, reasons))
            return row
        a, b = num[1].median, den[1].median
        row.update(value=a, reference=b, partial=num[1].partial or den[1].partial)
        row["ratio"] = a / b if b > 0 else None
        r = row["ratio"]
        ok = r is not None and (r >= goal if op == ">=" else r <= goal)
        row["verdict"] = "PASS" if ok else "MISS"
        row["reason"] = ""
        return row

    def make_targets(self):
        t, ref = [], self.rxe_ref
        for mtu in self.mtus():
            for test in BW:
                num = ("sroce_ns", self.find("sroce_ns", mtu, test, "bw", 65536))
                t.append(self.target("bw_vs_rxe", f"ib_{test} 64KiB ns / rxe", mtu, num,
                                     (ref, self.find(ref, mtu, test, "bw", 65536)), ">=", 3.0))
            for test in BW:
                num = ("sroce_ns", self.find("sroce_ns", mtu, test, "bw", 65536))
                t.append(self.target("bw_vs_tcp", f"ib_{test} 64KiB ns / TCP", mtu, num,
                                     ("tcp_ns", self.find("tcp_ns", mtu, "tcp_bw", "bw", 0)),
                                     ">=", 1.0))
        for cfg, rcfg in (("sroce_lo", "rxe_lo"), ("sroce_ns", ref)):
            for test in ("send_lat", "write_lat", "read_lat"):
                t.append(self.target("lat_vs_rxe", f"ib_{test} 2B t_typ {cfg[6:]} / rxe", 1500,
                                     (cfg, self.find(cfg, 1500, test, "t_typ")),
                                     (rcfg, self.find(rcfg, 1500, test, "t_typ")), "<=", 0.5))
        for cfg, rcfg in (("sroce_lo", "rxe_lo"), ("sroce_ns", ref)):
            for test in ("send_lat", "read_lat", "atomic_lat"):
                t.append(self.target("event_lat_vs_rxe", f"ib_{test} -e t_typ {cfg[6:]} / rxe",
                                     1500, (cfg, self.find(cfg, 1500, test, "t_typ", event=1)),
                                     (rcfg, self.find(rcfg, 1500, test, "t_typ", event=1)),
                                     "<=", 0.5))
            t.append(self.target("event_lat_vs_rxe", f"qperf rc_lat {cfg[6:]} / rxe", 1500,
                                 (cfg, self.find(cfg, 1500, "rc_lat", "t_avg", event=1)),
                                 (rcfg, self.find(rcfg, 1500, "rc_lat", "t_avg", event=1)),
                                 "<=", 0.5))
        for cfg, rcfg in (("sroce_lo", "rxe_lo"), ("sroce_ns", ref)):
            t.append(self.target("msg_rate_vs_rxe", f"ib_send_bw 64B msg rate {cfg[6:]} / rxe",
                                 1500, (cfg, self.find(cfg, 1500, "send_bw", "msg_rate", 64)),
                                 (rcfg, self.find(rcfg, 1500, "send_bw", "msg_rate", 64)),
                                 ">=", 3.0))
        for mtu in self.mtus():
            for test in BW:
                t.append(self.target("qps4_vs_qps1", f"ib_{test} 64KiB ns q4 / q1", mtu,
                                     ("q4", self.find("sroce_ns", mtu, test, "bw", 65536, 4)),
                                     ("q1", self.find("sroce_ns", mtu, test, "bw", 65536, 1)),
                                     ">=", 1.8))
        for mtu in self.mtus():
            for test in BW:
                num = ("sroce_ns", self.find("sroce_ns", mtu, test, "cpu_s_per_gib", 65536))
                t.append(self.target("cpu_vs_rxe", f"ib_{test} 64KiB ns CPU/GiB / rxe", mtu,
                                     num, (ref, self.find(ref, mtu, test, "cpu_s_per_gib", 65536)),
                                     "<=", 0.5))
                t.append(self.target("cpu_vs_tcp", f"ib_{test} 64KiB ns CPU/GiB / TCP", mtu, num,
                                     ("tcp_ns", self.find("tcp_ns", mtu, "tcp_bw",
                                                          "cpu_s_per_gib", 0)), "<=", 1.0))
        on = self.find("sroce_ns", 1500, "write_bw", "bw", 65536, part="dcqcn_on")
        off = self.find("sroce_ns", 1500, "write_bw", "bw", 65536, part="dcqcn_off")
        t.append(self.target("dcqcn_pfc", "ib_write_bw 64KiB ns DCQCN+PFC on / off", 1500,
                             ("on", on), ("off", off), ">=", CC_FLOOR))
        return [r for r in t if r is not None]

    def sweep(self, part, config):
        """A sweep's points ({x: cell}), x the QP count or the tx depth."""
        pts = {}
        for k, c in self.cells.items():
            if k[0] == part and k[1] == config and k[9] == "bw":
                pts[k[5] if part == "sweep_qps" else k[6]] = c
        return dict(sorted(pts.items()))

    def make_sweeps(self):
        """Each sweep's points and min/best. A point that failed or hung is
        a collapse; one skipped for time or lost to perftest's clock
        calibration is left out."""
        out = []
        for part, what in (("sweep_qps", "QPs (-q, tx depth 128)"),
                           ("sweep_depth", "outstanding WQEs (-t, 1 QP)")):
            for cfg in ("sroce_ns", "sroce_lo", "rxe_ns", "rxe_lo"):
                pts = self.sweep(part, cfg)
                if not pts:
                    continue
                s = {"part": part, "config": cfg, "what": what, "mtu": 1500,
                     "points": {x: c.median for x, c in pts.items()},
                     "texts": {x: c.text() for x, c in pts.items()},
                     "target": cfg.startswith("sroce")}
                good = {x: c.median for x, c in pts.items() if c.median is not None}
                bad = [x for x, c in pts.items()
                       if c.median is None and c.status() not in ("skip", "CALIB")]
                if good:
                    best_x = max(good, key=good.get)
                    min_x = min(good, key=good.get)
                    s.update(best=good[best_x], best_at=best_x, min=good[min_x], min_at=min_x,
                             ratio=good[min_x] / good[best_x])
                if bad or not good:
                    s["verdict"] = "MISS" if bad else "n/a"
                    s["reason"] = ", ".join(f"{x}: {pts[x].status()}" for x in bad)
                else:
                    s["verdict"] = "PASS" if s["ratio"] >= SWEEP_FLOOR else "MISS"
                    s["reason"] = ""
                out.append(s)
        return out

    # --- output ---
    def header(self):
        i, e = self.info, self.recs["end"]
        return [
            f"sroce benchmark matrix: kernel {self.kernel}, {i.get('vcpus', '?')} vCPU (QEMU TCG), "
            f"median of {i.get('reps', '?')}",
            f"bandwidth: perftest -D {i.get('secs', '?')} -f 0, iperf3 -t {i.get('secs', '?')} "
            f"(one stream); latency: perftest -n {i.get('lat_iters', '?')}, qperf -t "
            f"{i.get('secs', '?')}; path MTU 1024 at veth MTU 1500, 4096 at 9000",
            f"perftest {i.get('perftest') or '?'}; "
            f"qperf {'present' if i.get('qperf') else 'missing'}; "
            f"parts {','.join(i.get('parts', []))}; run took {e.get('elapsed_s', '?')} s",
            f"load: guest start [{i.get('guest_load_start', '?')}] end "
            f"[{e.get('guest_load_end', '?')}]; host start [{i.get('host_load_start', '?')}]",
        ]

    def targets_text(self):
        lines = ["", "Targets (issue 15): sroce / reference, medians of this boot",
                 f"{'target':<40} {'MTU':>5} {'value':>9} {'ref':>9} {'(of)':<8} {'ratio':>6} "
                 f"{'goal':>6}  verdict", "-" * 100]
        for r in self.targets:
            ratio = "-" if r["ratio"] is None else \
                f"{r['ratio']:.2f}" + ("*" if r["partial"] else "")
            verdict = r["verdict"] + (f" {r['reason']}" if r["reason"] else "")
            lines.append(f"{r['label']:<40} {r['mtu']:>5} {fmt(r['value']):>9} "
                         f"{fmt(r['reference']):>9} {r['ref_config']:<8} {ratio:>6} "
                         f"{r['op'] + str(r['goal']):>6}  {verdict}")
        for s in self.sweeps:
            if not s["target"]:
                continue
            ratio = f"{s['ratio']:.2f}" if "ratio" in s else "-"
            label = f"{s['config']} {s['part']} min/best"
            lines.append(f"{label:<40} {s['mtu']:>5} {fmt(s.get('min')):>9} "
                         f"{fmt(s.get('best')):>9} "
                         f"{'best':<8} {ratio:>6} {'>=' + str(SWEEP_FLOOR):>6}  {s['verdict']}"
                         + (f" {s['reason']}" if s["reason"] else ""))
        lines += [
            "value / ref: medians (of): rxe = rdma_rxe on the same path, between the",
            "  namespaces where this kernel's rdma_rxe works there, else its loopback (here:",
            f"  {self.rxe_ref}); TCP = iperf3, one stream, same veth and MTU. Bandwidth MiB/s,",
            "  rate Mpps, latency usec, CPU/GiB = system + softirq seconds of both ends per GiB",
            "  moved. * = a median of fewer repetitions than ran.",
        ]
        return lines

    def row_keys(self):
        keys = {k[:9] for k in self.cells if k[0] in ("main", "extra")}
        rows = {}
        for part, cfg, mtu, test, size, qps, depth, event, tool in keys:
            rows.setdefault((mtu, TEST_ORDER.index(test), size, qps, event, tool, test), None)
        return sorted(rows)

    def matrix_text(self):
        lines = ["", "Matrix: medians (* = of fewer repetitions than ran)",
                 f"{'test':<28} {'':<10}" + "".join(f"{c:>10}" for c in CONFIGS)
                 + f"{'lo/rxe':>8}{'ns/rxe':>8}", "-" * 104]
        mtu_now = None
        for mtu, _, size, qps, event, tool, test in self.row_keys():
            if mtu != mtu_now:
                lines.append(f"veth MTU {mtu}")
                mtu_now = mtu
            name = {"qperf": f"qperf {test}", "iperf3": "iperf3 TCP"}.get(tool, f"ib_{test}")
            label = f"{name} {size_text(size)}" if size else name
            label += f" q{qps}" if test.endswith("_bw") and tool == "perftest" else ""
            label += " -e" if event and tool == "perftest" else ""
            for m in METRIC_ORDER:
                cells = {c: self.find(c, mtu, test, m, size, qps, event,
                                      "extra" if test == "rc_bw" else "main") for c in CONFIGS}
                if not any(cells.values()):
                    continue
                lo = (cells["sroce_lo"], cells["rxe_lo"])
                ns = (cells["sroce_ns"], cells[self.rxe_ref])
                lines.append(f"{label:<28} {LABELS[m]:<10}"
                             + "".join(f"{cells[c].text() if cells[c] else '':>10}"
                                       for c in CONFIGS)
                             + f"{ratio_text(*lo):>8}{ratio_text(*ns):>8}")
        lines.append(f"lo/rxe: sroce_lo / rxe_lo; ns/rxe: sroce_ns / {self.rxe_ref}. "
                     "Bandwidth and rate: >1 favours sroce; latency and CPU: <1 does.")
        return lines

    def sweeps_text(self):
        lines = ["", "Sweeps: ib_write_bw 64KiB, MTU 1500, MiB/s (1 repetition)"]
        for s in self.sweeps:
            pts = "  ".join(f"{x}:{t}" for x, t in s["texts"].items())
            summary = (f"min/best {s['ratio']:.2f} (min at {s['min_at']}, best at {s['best_at']})"
                       if "ratio" in s else "no figure")
            verdict = s["verdict"] if s["target"] else "info"
            lines.append(f"  {s['config']} {s['what']}: {pts}")
            lines.append(f"    {summary}, {verdict}" + (f" {s['reason']}" if s["reason"] else ""))
        if not self.sweeps:
            lines.append("  (none measured)")
        return lines

    def dcqcn_text(self):
        lines = ["", "DCQCN and PFC: sroce_ns ib_write_bw 64KiB, MTU 1500 "
                 "(no congestion on an idle veth)"]
        for part in ("dcqcn_off", "dcqcn_on"):
            c = self.find("sroce_ns", 1500, "write_bw", "bw", 65536, part=part)
            cpu = self.find("sroce_ns", 1500, "write_bw", "cpu_s_per_gib", 65536, part=part)
            lines.append(f"  {part[6:]:<4} {c.text() if c else 'n/a':>10} MiB/s"
                         f"  CPU {cpu.text() if cpu else 'n/a'} s/GiB"
                         f"  runs {' '.join(fmt(v) for v in c.values) if c else '-'}")
        return lines

    def notes_text(self):
        lines = ["", "Devices:"]
        for d in self.recs["device"]:
            caps = ", ".join(f"{k} {d[k]}" for k in ("max_qp_wr", "max_cqe", "max_qp") if k in d)
            lines.append(f"  {d['driver']} ({d['dev']}): {caps}")
        notes = [n["text"] for n in self.recs["note"] if not n.get("problem")]
        problems = [n["text"] for n in self.recs["note"] if n.get("problem")]
        if notes:
            lines += ["Notes:"] + [f"  - {n}" for n in notes]
        if problems:
            lines += ["Problems:"] + [f"  - {p}" for p in problems]
        lines += ["Cells: median; * = some repetitions gave no figure (median of the rest);",
                  "  FAIL = no repetition gave one; HANG = the tool did not end within its",
                  "  timeout; STUCK = a process survived SIGKILL; CALIB = perftest's clock",
                  "  calibration failed 3 times (host load); skip = no time left in the run;",
                  "  n/a = not measured here (see the notes).",
                  "WARNING: QEMU TCG figures depend on host load; compare them only within",
                  "  one boot taken on a quiet host."]
        return lines

    def text(self):
        return "\n".join(self.header() + self.targets_text() + self.matrix_text()
                         + self.sweeps_text() + self.dcqcn_text() + self.notes_text()) + "\n"

    def json(self):
        cells = []
        for k, c in sorted(self.cells.items(), key=lambda kv: str(kv[0])):
            part, cfg, mtu, test, size, qps, depth, event, tool, m = k
            cells.append({"part": part, "config": cfg, "mtu": mtu, "test": test, "size": size,
                          "qps": qps, "tx_depth": depth, "event": event, "tool": tool,
                          "metric": m, "unit": UNITS[m], "median": c.median,
                          "values": c.values, "failed": c.statuses, "partial": c.partial,
                          "status": c.status()})
        sweeps = [{k: v for k, v in s.items() if k != "texts"} for s in self.sweeps]
        return {"kernel": self.kernel, "info": self.info, "end": self.recs["end"],
                "devices": self.recs["device"], "rxe_reference": self.rxe_ref,
                "medians": cells, "targets": self.targets, "sweeps": sweeps,
                "notes": [n["text"] for n in self.recs["note"] if not n.get("problem")],
                "problems": [n["text"] for n in self.recs["note"] if n.get("problem")]}

    # --- chart ---
    def plot_files(self, pdir):
        """gnuplot's data and script for bench.png: 64 KiB bandwidth and
        2-byte latency per configuration (MTU 1500), and the two sweeps."""
        os.makedirs(pdir, exist_ok=True)

        def val(c):
            return fmt(c.median) if c and c.median is not None else "-"

        with open(os.path.join(pdir, "bw.dat"), "w", encoding="utf-8") as f:
            f.write("test " + " ".join(CONFIGS) + "\n")
            for test in BW:
                f.write(f"ib_{test} " + " ".join(
                    val(self.find(c, 1500, test, "bw", 65536)) for c in CONFIGS) + "\n")
            f.write("iperf3 " + " ".join(
                val(self.find(c, 1500, "tcp_bw", "bw", 0)) for c in CONFIGS) + "\n")
        with open(os.path.join(pdir, "lat.dat"), "w", encoding="utf-8") as f:
            f.write("test " + " ".join(CONFIGS[:4]) + "\n")
            for test in ("send_lat", "write_lat", "read_lat", "atomic_lat"):
                f.write(f"{test} " + " ".join(val(self.find(c, 1500, test, "t_typ"))
                                              for c in CONFIGS[:4]) + "\n")
            for test in EVENT_TESTS:
                f.write(f"{test}_-e " + " ".join(val(self.find(c, 1500, test, "t_typ", event=1))
                                                 for c in CONFIGS[:4]) + "\n")
            f.write("qperf_rc_lat " + " ".join(val(self.find(c, 1500, "rc_lat", "t_avg", event=1))
                                               for c in CONFIGS[:4]) + "\n")
        for part in ("sweep_qps", "sweep_depth"):
            sroce = self.sweep(part, "sroce_ns")
            rxe = self.sweep(part, "rxe_ns") or self.sweep(part, "rxe_lo")
            with open(os.path.join(pdir, part + ".dat"), "w", encoding="utf-8") as f:
                f.write("x sroce rxe\n")
                for x in sorted(set(sroce) | set(rxe)):
                    f.write(f"{x} {val(sroce.get(x))} {val(rxe.get(x))}\n")
        gp = os.path.join(pdir, "bench.gp")
        with open(gp, "w", encoding="utf-8") as f:
            f.write(GNUPLOT.replace("@TITLE@", f"sroce benchmark matrix, {self.kernel}, MTU 1500"))
        return gp


GNUPLOT = """\
set terminal pngcairo noenhanced size 1200,900 font ",10"
set output "../bench.png"
set datafile missing "-"
set key top left
set multiplot layout 2,2 title "@TITLE@"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set yrange [0:*]
set offsets 0, 0, graph 0.3, 0
set xtics rotate by 30 right
set ylabel "MiB/s"
set title "64 KiB bandwidth, 1 QP (iperf3: one TCP stream)"
plot for [i=2:6] "bw.dat" using i:xtic(1) title columnheader(i) lc i
set ylabel "usec"
set title "2-byte latency, t_typical (qperf: average)"
plot for [i=2:5] "lat.dat" using i:xtic(1) title columnheader(i) lc i
set style data linespoints
set xtics norotate
set offsets 0, 0, graph 0.1, 0
set logscale x 2
set title "ib_write_bw 64 KiB: QPs (-q), aggregate"
set xlabel "QPs"
set ylabel "MiB/s"
plot "sweep_qps.dat" using 1:2 title "sroce ns" lw 2 lc 3, "" using 1:3 title "rdma_rxe" lw 2 lc 4
set title "ib_write_bw 64 KiB: outstanding WQEs (-t), 1 QP"
set xlabel "tx depth"
plot "sweep_depth.dat" using 1:2 title "sroce ns" lw 2 lc 3, "" using 1:3 title "rdma_rxe" lw 2 lc 4
unset multiplot
"""


def size_text(n):
    return f"{n // 1024}KiB" if n >= 1024 and n % 1024 == 0 else f"{n}B"


def ratio_text(a, b):
    if not a or not b or a.median is None or b.median is None or b.median <= 0:
        return "-"
    return f"{a.median / b.median:.2f}" + ("*" if a.partial or b.partial else "")


def render(gp):
    """Draw bench.png with gnuplot (run in the plot directory); a missing
    gnuplot is reported, not fatal."""
    if not shutil.which("gnuplot"):
        print("bench-report: gnuplot missing (Debian: gnuplot-nox): no bench.png", file=sys.stderr)
        return False
    r = subprocess.run(["gnuplot", os.path.basename(gp)], cwd=os.path.dirname(gp),
                       capture_output=True, text=True, check=False)
    if r.returncode != 0:
        print(f"bench-report: gnuplot failed: {r.stderr.strip()}", file=sys.stderr)
    return r.returncode == 0


def report(raw, out):
    rep = Report(load(raw))
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "bench.csv"), "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        w.writeheader()
        w.writerows(csv_rows(rep.kernel, rep.recs["run"]))
    with open(os.path.join(out, "bench.json"), "w", encoding="utf-8") as f:
        json.dump(rep.json(), f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "bench.txt"), "w", encoding="utf-8") as f:
        f.write(rep.text())
    render(rep.plot_files(os.path.join(out, "plot")))
    return rep


def summary(paths):
    """The targets of several kernels side by side."""
    runs = []
    for p in paths:
        with open(p, encoding="utf-8") as f:
            runs.append(json.load(f))
    rows = {}
    for i, j in enumerate(runs):
        for t in j["targets"]:
            rows.setdefault((t["label"], t["mtu"], t["op"] + str(t["goal"])), {})[i] = t
        for s in j["sweeps"]:
            if s["target"]:
                rows.setdefault((f"{s['config']} {s['part']} min/best", 1500,
                                 ">=" + str(SWEEP_FLOOR)), {})[i] = s
    head = f"{'target':<44} {'MTU':>5} {'goal':>7}" + "".join(
        f"  {j['kernel'][:22]:>22}" for j in runs)
    lines = ["sroce benchmark matrix: targets per kernel (ratio and verdict; rxe = the",
             "rdma_rxe reference of that boot, see each kernel's bench.txt)", head, "-" * len(head)]
    for (label, mtu, goal), per in rows.items():
        cells = []
        for i in range(len(runs)):
            t = per.get(i)
            if t is None:
                cells.append("-")
            elif t.get("ratio") is None:
                cells.append(t["verdict"])
            else:
                cells.append(f"{t['ratio']:.2f} {t['verdict']}")
        lines.append(f"{label:<44} {mtu:>5} {goal:>7}" + "".join(f"  {c:>22}" for c in cells))
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", help="directory for bench.txt/csv/json/png")
    ap.add_argument("--summary", help="write the targets of the given bench.json files here")
    ap.add_argument("inputs", nargs="+", help="raw.jsonl, or bench.json files with --summary")
    args = ap.parse_args()
    if args.summary:
        text = summary(args.inputs)
        with open(args.summary, "w", encoding="utf-8") as f:
            f.write(text)
        sys.stdout.write(text)
        return 0
    if not args.out or len(args.inputs) != 1:
        ap.error("--out DIR and one raw file")
    rep = report(args.inputs[0], args.out)
    sys.stdout.write("\n".join(rep.header() + rep.targets_text()) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
