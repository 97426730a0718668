"""python -m parprim._selfcheck: passes on each backend present (exit
status 0), and where checks fail it runs every group, lists every failure
and exits with status 1."""

import subprocess
import sys

import numpy as np
import pytest

import parprim
from parprim import _selfcheck
from conftest import BACKENDS


@pytest.mark.parametrize("backend", BACKENDS)
def test_selfcheck_passes(backend, rng, tmp_path):
    seed = int(rng.integers(2**63))
    p = subprocess.run([sys.executable, "-m", "parprim._selfcheck", backend, f"--seed={seed}"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.rstrip().endswith("selfcheck passed"), p.stdout
    assert f"{backend}: exceptions, set_algorithm: ok" in p.stdout, p.stdout


def test_selfcheck_reports_every_failure(monkeypatch, rng, capsys):
    """A histogram that counts wrong and a sort that raises: every group
    still runs, each failure is listed, the status is 1."""
    def wrong_histogram(self, a, bins, lower, upper, right_closed=False):
        return np.zeros(bins, np.uint64)

    def broken_sort(self, *args, **kw):
        raise RuntimeError("broken on purpose")

    monkeypatch.setattr(parprim.Context, "histogram_even", wrong_histogram)
    monkeypatch.setattr(parprim.Context, "sort", broken_sort)
    assert _selfcheck.main(["cpu", f"--seed={int(rng.integers(2**63))}"]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    hist = [line for line in lines if line.startswith("  cpu: histograms: ")]
    assert len(hist) == 1 and int(hist[0].split()[2]) > 1, out  # every histogram check ran
    assert any(line.startswith("  cpu: sort, sort_pairs: 1 failed") for line in lines), out
    for later in ("  cpu: select_flagged", "  cpu: exceptions, set_algorithm: ", "  device-array path",
                  "  module functions: ok"):
        assert any(line.startswith(later) for line in lines), f"{later!r} missing:\n{out}"
    summary = lines.index(next(line for line in lines if line.startswith("selfcheck FAILED: ")))
    listed = lines[summary + 1:]
    assert len(listed) == int(lines[summary].split()[2]), out
    assert any("stopped by RuntimeError: broken on purpose" in line for line in listed), out
    assert sum(line.startswith("  cpu histogram") for line in listed) == int(hist[0].split()[2]), out
