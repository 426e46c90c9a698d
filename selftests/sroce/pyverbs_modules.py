#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""Run rdma-core's pyverbs test suite one test module per child process.

usage: pyverbs_modules.py SUITE_DIR OUT_DIR TIMEOUT --dev DEV --gid N

The suite is imported once; each of its test modules then runs in a child
forked from that state, its unittest report (verbosity 2) in
OUT_DIR/MODULE.log, each error or failure as it happens in OUT_DIR/MODULE.tb,
its own prints in OUT_DIR/MODULE.stdout. A child that
crashes (some pyverbs releases segfault when a test skips after creating
objects) or runs past TIMEOUT seconds costs that module only. One line
per module on stdout: "MODULE STATUS", STATUS being the child's exit code
(0 all passed, 1 some failed), "signal N" or "timeout".
"""
import os
import signal
import sys
import unittest
from importlib.machinery import SourceFileLoader


class ImmediateResult(unittest.TextTestResult):
    """Also writes each error and failure to a file as it happens: a
    module that crashes never reaches unittest's report at the end."""
    tb_file = None

    def _keep(self, flavour, test, err):
        if self.tb_file:
            self.tb_file.write('%s: %s\n%s\n%s%s\n' % (
                flavour, self.getDescription(test), '-' * 70,
                self._exc_info_to_string(err, test), '=' * 70))
            self.tb_file.flush()

    def addError(self, test, err):
        super().addError(test, err)
        self._keep('ERROR', test, err)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._keep('FAIL', test, err)


def run_module(mod, out_dir, timeout):
    """In the child: run @mod's tests, report to files, never return."""
    name = mod.__name__.rsplit('.', 1)[-1]
    try:
        # A group of its own: what the module starts dies with it.
        os.setpgid(0, 0)
        signal.alarm(timeout)
        out = os.open(os.path.join(out_dir, name + '.stdout'),
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        log = os.open(os.path.join(out_dir, name + '.log'),
                      os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(out, 1)
        os.dup2(log, 2)
        ImmediateResult.tb_file = open(os.path.join(out_dir, name + '.tb'),
                                       'w')
        suite = unittest.defaultTestLoader.loadTestsFromModule(mod)
        result = unittest.TextTestRunner(stream=sys.stderr, verbosity=2,
                                         resultclass=ImmediateResult).run(suite)
        code = 0 if result.wasSuccessful() else 1
    except BaseException as err:  # report it, exit like a failed run
        print('pyverbs_modules: %s: %r' % (name, err), file=sys.stderr)
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    # No interpreter teardown: pyverbs' finalizers are what crash.
    os._exit(code)


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    suite_dir, out_dir, timeout = sys.argv[1], sys.argv[2], int(sys.argv[3])
    # The suite's own parser takes --dev, --gid and the rest.
    sys.argv = [sys.argv[0]] + sys.argv[4:]
    sys.path.insert(0, suite_dir)
    from args_parser import parser
    parser.parse_args()
    tests = SourceFileLoader('tests',
                             os.path.join(suite_dir, '__init__.py')).load_module()
    for mod in tests.__test_modules__:
        name = mod.__name__.rsplit('.', 1)[-1]
        sys.stdout.flush()
        pid = os.fork()
        if pid == 0:
            run_module(mod, out_dir, timeout)
        _, status = os.waitpid(pid, 0)
        # Helpers a test started (test_rdmacm forks) must not outlive it:
        # they hold the device open for the modules after.
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        if os.WIFEXITED(status):
            how = str(os.WEXITSTATUS(status))
        elif os.WTERMSIG(status) == signal.SIGALRM:
            how = 'timeout'
        else:
            how = 'signal %d' % os.WTERMSIG(status)
        print(name, how, flush=True)


if __name__ == '__main__':
    main()
