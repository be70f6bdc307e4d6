"""Runs the README's "Python" subsection as a user would: its install commands (a venv with
Debian's packages visible, pip without build isolation, nothing downloaded), then its Python
examples with that venv's interpreter, so the README cannot rot."""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from support import REPO, torch_missing

TORCH_MISSING = torch_missing()


def readme_blocks():
    """{'sh': [...], 'python': [...]}: the fenced blocks of the README's "### Python" subsection."""
    with open(os.path.join(REPO, "README.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^### Python\n(.*?)(?=^##)", text, re.S | re.M)
    if not m:
        raise AssertionError("README.md has no '### Python' subsection")
    blocks = {}
    for lang, body in re.findall(r"^```(\w+)\n(.*?)^```", m.group(1), re.S | re.M):
        blocks.setdefault(lang, []).append(body)
    return blocks


# What the README's trace_handler example leaves to the reader: a DataLoader on the main thread
# whose __getitem__ is slow (input-bound by construction), and one training step.
PRELUDE = '''
import time, torch
class _Slow(torch.utils.data.Dataset):
    def __len__(self): return 48
    def __getitem__(self, i):
        time.sleep(0.004)  # 32 ms of input per batch of 8, against well under 1 ms of compute
        return torch.full((16,), float(i)), i % 2
loader = torch.utils.data.DataLoader(_Slow(), batch_size=8, num_workers=0)
_model = torch.nn.Linear(16, 2)
_opt = torch.optim.SGD(_model.parameters(), lr=0.01)
def train_step(batch):
    _opt.zero_grad()
    torch.nn.functional.cross_entropy(_model(batch[0]), batch[1]).backward()
    _opt.step()
'''


class ReadmePython(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.blocks = readme_blocks()
        cls.tmp = tempfile.mkdtemp(prefix="stepdoctor-readme-")
        cls.home = os.path.join(cls.tmp, "home")
        work = os.path.join(cls.tmp, "work")
        os.makedirs(cls.home)
        # A copy of python/, so the in-tree build pip does leaves the checkout alone.
        shutil.copytree(os.path.join(REPO, "python"), os.path.join(work, "python"),
                        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", "tests"))
        env = dict(os.environ, HOME=cls.home, PIP_NO_INDEX="1",  # offline: pip must need nothing
                   PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""))
        env.pop("PYTHONPATH", None)  # the package must come from the venv, not from python/src
        cls.env = env
        commands = "\n".join(l for b in cls.blocks.get("sh", []) for l in b.splitlines()
                             if l.strip() and not l.lstrip().startswith("#"))
        cls.install = subprocess.run(["bash", "-euo", "pipefail", "-c", commands], cwd=work, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        found = re.findall(r"(~/\S+)/bin/pip ", commands)
        cls.python = os.path.join(found[0].replace("~", cls.home, 1), "bin", "python") if found else None

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_python(self, code, cwd):
        return subprocess.run([self.python, "-c", code], cwd=cwd, env=self.env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_install_commands(self):
        self.assertIn("--no-build-isolation", "".join(self.blocks["sh"]))
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        self.assertIsNotNone(self.python, "no '<venv>/bin/pip install' line in the README")
        where = self.run_python("import stepdoctor; print(stepdoctor.__file__)", self.tmp)
        self.assertEqual(where.returncode, 0, where.stderr)
        self.assertTrue(where.stdout.startswith(self.home), where.stdout)  # installed, not the source tree

    def test_diagnose_example(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        code = self.blocks["python"][0]
        self.assertIn("stepdoctor.diagnose(", code)
        r = self.run_python(code, REPO)  # the example's path is relative to the repository
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        # The output the README shows in its comment is the output it gives.
        shown = re.search(r"print\(report\.verdict\.summary\)\s*#\s*(.+)", code).group(1).strip()
        self.assertEqual(lines[0], shown)
        self.assertTrue(lines[1].startswith("high input_bound up to "), lines[1])

    @unittest.skipIf(TORCH_MISSING, TORCH_MISSING)
    def test_trace_handler_example(self):
        self.assertEqual(self.install.returncode, 0, self.install.stdout)
        code = self.blocks["python"][1]
        self.assertIn("stepdoctor.torch.trace_handler(", code)
        run_dir = os.path.join(self.tmp, "train")
        os.makedirs(run_dir)
        r = self.run_python(PRELUDE + code, run_dir)
        self.assertEqual(r.returncode, 0, r.stderr)
        log = os.path.join(run_dir, "log")
        traces = [f for f in os.listdir(log) if f.endswith(".pt.trace.json")]
        self.assertEqual(len(traces), 1, os.listdir(log))
        self.assertTrue(os.path.isfile(os.path.join(log, traces[0][:-len(".json")] + ".html")), os.listdir(log))
        self.assertRegex(r.stdout.strip(), r"^\./log/.*\.pt\.trace\.json: input-bound: ")


if __name__ == "__main__":
    unittest.main()
