#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Host tests of tools/sroce-qos against a sysfs tree made of plain files
(the device's own validation is tested by selftests/sroce/cc_params.sh in a
guest): what it shows, what it writes, what it refuses, save and apply."""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import tempfile
import unittest

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sroce-qos")
_loader = importlib.machinery.SourceFileLoader("sroce_qos", TOOL)
_spec = importlib.util.spec_from_loader("sroce_qos", _loader)
sroce_qos = importlib.util.module_from_spec(_spec)
_loader.exec_module(sroce_qos)

KNOBS = {"rp_ai_rate": 5, "rp_min_rate": 1, "np_cnp_dscp": 48}


class FakeSysfs:
    """/sys/class/infiniband/DEV/ports/1/{qos,cc_params,gid_attrs} as files."""

    def __init__(self, root, dev="sroce0", netdev="veth0"):
        self.port = os.path.join(root, "class/infiniband", dev, "ports/1")
        for d in ("qos", "cc_params", "gid_attrs/ndevs"):
            os.makedirs(os.path.join(self.port, d))
        self.put("qos/trust", "pcp")
        self.put("qos/dscp2prio", " ".join(str(d >> 3) for d in range(64)))
        self.put("qos/ecn_rp_enable", "1,1,1,1,1,1,1,1")
        self.put("qos/ecn_np_enable", "1,1,1,1,1,1,1,1")
        for k, v in KNOBS.items():
            self.put("cc_params/" + k, str(v))
        self.put("gid_attrs/ndevs/0", netdev)

    def put(self, name, text):
        with open(os.path.join(self.port, name), "w", encoding="ascii") as f:
            f.write(text + "\n")

    def get(self, name):
        with open(os.path.join(self.port, name), encoding="ascii") as f:
            return f.read().strip()


class SroceQosTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = self.tmp.name
        self.fs = FakeSysfs(self.root)

    def tearDown(self):
        self.tmp.cleanup()

    def run_tool(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = sroce_qos.main(["--sysfs", self.root, *args])
        return status, out.getvalue(), err.getvalue()

    def test_show_defaults(self):
        status, out, _ = self.run_tool("-d", "sroce0")
        self.assertEqual(status, 0)
        self.assertIn("trust: pcp", out)
        self.assertIn("prio:6 dscp:48,49,50,51,52,53,54,55", out)
        self.assertIn("reaction:    1 1 1 1 1 1 1 1", out)
        self.assertIn("rp_ai_rate: 5", out)

    def test_json_by_interface(self):
        status, out, _ = self.run_tool("-i", "veth0", "--json")
        self.assertEqual(status, 0)
        s = json.loads(out)
        self.assertEqual(s["device"], "sroce0")
        self.assertEqual(s["dscp2prio"][46], 5)
        self.assertEqual(s["ecn_np"], [1] * 8)
        self.assertEqual(s["cc_params"], KNOBS)

    def test_sets(self):
        status, _, err = self.run_tool(
            "-d", "sroce0", "--trust", "dscp", "--ecn_rp", "1,0,1,1,1,1,1,0",
            "--ecn_np", "0,0,0,1,0,0,0,0", "--cc", "rp_ai_rate=9,np_cnp_dscp=26",
            "--json")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.fs.get("qos/trust"), "dscp")
        self.assertEqual(self.fs.get("qos/ecn_rp_enable"), "1,0,1,1,1,1,1,0")
        self.assertEqual(self.fs.get("qos/ecn_np_enable"), "0,0,0,1,0,0,0,0")
        self.assertEqual(self.fs.get("cc_params/rp_ai_rate"), "9")
        self.assertEqual(self.fs.get("cc_params/np_cnp_dscp"), "26")

    def test_pfc(self):
        os.makedirs(os.path.join(self.fs.port, "pfc"))
        self.fs.put("pfc/enable", "0,0,0,0,0,0,0,0")
        status, out, err = self.run_tool("-d", "sroce0", "--pfc", "0,0,0,1,0,0,0,0")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.fs.get("pfc/enable"), "0,0,0,1,0,0,0,0")
        self.assertIn("\tenabled:     0 0 0 1 0 0 0 0", out)
        status, _, err = self.run_tool("-d", "sroce0", "--pfc", "0,0,0,1")
        self.assertEqual(status, 1)
        self.assertIn("--pfc", err)
        # A saved "pfc" comes back with --apply.
        path = os.path.join(self.root, "s.json")
        self.assertEqual(self.run_tool("-d", "sroce0", "--save", path)[0], 0)
        self.fs.put("pfc/enable", "0,0,0,0,0,0,0,0")
        self.assertEqual(self.run_tool("-d", "sroce0", "--apply", path)[0], 0)
        self.assertEqual(self.fs.get("pfc/enable"), "0,0,0,1,0,0,0,0")

    def test_pfc_buffers(self):
        os.makedirs(os.path.join(self.fs.port, "pfc"))
        self.fs.put("pfc/enable", "0,0,0,0,0,0,0,0")
        self.fs.put("pfc/buffer_size", "262144,0,0,0,0,0,0,0")
        self.fs.put("pfc/prio2buffer", "0,0,0,0,0,0,0,0")
        self.fs.put("pfc/cable_len", "7")
        self.fs.put("pfc/stall_tout", "100")
        for k in ("xoff", "xon", "occupancy"):
            self.fs.put("pfc/" + k, "0,0,0,0,0,0,0,0")
        status, out, err = self.run_tool(
            "-d", "sroce0", "--pfc", "0,0,0,1,0,0,0,0",
            "--buffer_size", "65536,131072,0,0,0,0,0,0",
            "--prio2buffer", "0,0,0,1,0,0,0,0", "--cable_len", "30",
            "--pfc_stall_tout", "500")
        self.assertEqual(status, 0, err)
        self.assertEqual(self.fs.get("pfc/buffer_size"), "65536,131072,0,0,0,0,0,0")
        self.assertEqual(self.fs.get("pfc/prio2buffer"), "0,0,0,1,0,0,0,0")
        self.assertEqual(self.fs.get("pfc/cable_len"), "30")
        self.assertEqual(self.fs.get("pfc/stall_tout"), "500")
        self.assertIn("receive buffers:", out)
        self.assertIn("cable_len: 30 m, stall timeout: 500 ms", out)
        status, _, err = self.run_tool("-d", "sroce0", "--prio2buffer", "0,0,0,8,0,0,0,0")
        self.assertEqual(status, 1)
        self.assertIn("--prio2buffer", err)
        status, out, err = self.run_tool("-d", "sroce0", "--json")
        s = json.loads(out)
        self.assertEqual(s["buffer_size"][1], 131072)
        self.assertNotIn("live", s)

    def test_pfc_absent(self):
        status, out, err = self.run_tool("-d", "sroce0")
        self.assertEqual(status, 0, err)
        self.assertNotIn("pfc:", out)
        status, _, err = self.run_tool("-d", "sroce0", "--pfc", "0,0,0,1,0,0,0,0")
        self.assertEqual(status, 1)
        self.assertIn("no PFC", err)

    def test_dscp2prio_set_and_del(self):
        status, _, _ = self.run_tool("-d", "sroce0", "--dscp2prio", "set,46,3",
                                     "--json")
        self.assertEqual(status, 0)
        # The plain-file stand-in keeps the last write: the device's line.
        self.assertEqual(self.fs.get("qos/dscp2prio"), "46 3")
        self.fs.put("qos/dscp2prio",
                    " ".join("3" if d == 46 else str(d >> 3) for d in range(64)))
        status, _, _ = self.run_tool("-d", "sroce0", "--dscp2prio", "del,46,3",
                                     "--json")
        self.assertEqual(status, 0)
        self.assertEqual(self.fs.get("qos/dscp2prio"), "46 5")

    def test_refusals(self):
        for args in (["--ecn_rp", "1,1"], ["--ecn_np", "1,1,1,1,1,1,1,2"],
                     ["--dscp2prio", "set,64,1"], ["--dscp2prio", "put,1,1"],
                     ["--dscp2prio", "set,1,8"], ["--cc", "rp_ai_rate"],
                     ["--cc", "rp_fast=1"], ["--cc", "rp_ai_rate=-1"]):
            status, _, err = self.run_tool("-d", "sroce0", *args)
            self.assertEqual(status, 1, args)
            self.assertTrue(err.startswith("sroce-qos: "), err)
        self.assertEqual(self.fs.get("cc_params/rp_ai_rate"), "5")
        status, _, err = self.run_tool("-d", "nosuch")
        self.assertEqual(status, 1)
        self.assertIn("no such sroce device", err)
        status, _, err = self.run_tool("-i", "eth9")
        self.assertEqual(status, 1)
        self.assertIn("no sroce device over eth9", err)

    def test_save_and_apply(self):
        saved = os.path.join(self.root, "qos.json")
        status, _, _ = self.run_tool("-d", "sroce0", "--trust", "dscp",
                                     "--cc", "rp_min_rate=7", "--save", saved)
        self.assertEqual(status, 0)
        other = tempfile.TemporaryDirectory()
        try:
            fs2 = FakeSysfs(other.name, dev="sroce1")
            out, err = io.StringIO(), io.StringIO()
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                status = sroce_qos.main(["--sysfs", other.name, "-d", "sroce1",
                                         "--apply", saved, "--json"])
            self.assertEqual(status, 0, err.getvalue())
            self.assertEqual(fs2.get("qos/trust"), "dscp")
            self.assertEqual(fs2.get("cc_params/rp_min_rate"), "7")
            self.assertEqual(fs2.get("cc_params/rp_ai_rate"), "5")
        finally:
            other.cleanup()

    def test_persist_restore_forget(self):
        state = os.path.join(self.root, "state")
        kept = os.path.join(state, "sroce0.json")
        status, out, _ = self.run_tool("-d", "sroce0", "--ecn_np", "0,0,0,1,0,0,0,0",
                                       "--cc", "np_cnp_dscp=26", "--persist",
                                       "--state-dir", state)
        self.assertEqual((status, out), (0, ""))
        with open(kept, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["cc_params"]["np_cnp_dscp"], 26)
        # The device comes back with its defaults (rdma link del/add).
        self.fs.put("qos/ecn_np_enable", "1,1,1,1,1,1,1,1")
        self.fs.put("cc_params/np_cnp_dscp", "48")
        status, out, err = self.run_tool("-d", "sroce0", "--restore",
                                         "--state-dir", state)
        self.assertEqual((status, out, err), (0, "", ""))
        self.assertEqual(self.fs.get("qos/ecn_np_enable"), "0,0,0,1,0,0,0,0")
        self.assertEqual(self.fs.get("cc_params/np_cnp_dscp"), "26")
        status, _, _ = self.run_tool("-d", "sroce0", "--forget", "--state-dir", state)
        self.assertEqual(status, 0)
        self.assertFalse(os.path.exists(kept))
        # Nothing kept: --restore changes nothing and succeeds quietly.
        self.fs.put("cc_params/np_cnp_dscp", "48")
        status, out, err = self.run_tool("-d", "sroce0", "--restore",
                                         "--state-dir", state)
        self.assertEqual((status, out, err), (0, "", ""))
        self.assertEqual(self.fs.get("cc_params/np_cnp_dscp"), "48")
        # A kept knob the device refuses or lacks: status 1, named.
        with open(kept, "w", encoding="utf-8") as f:
            json.dump({"cc_params": {"rp_gone": 1}}, f)
        status, _, err = self.run_tool("-d", "sroce0", "--restore", "--state-dir", state)
        self.assertEqual(status, 1)
        self.assertIn("no knob rp_gone", err)


if __name__ == "__main__":
    unittest.main()
