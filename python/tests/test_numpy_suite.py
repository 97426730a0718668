"""NumPy's own histogram and unique tests (numpy/lib/tests/test_histograms.py
and test_arraysetops.py of the installed NumPy) pass with parprim behind
np.histogram and np.unique (python/tools/numpy_suite.py --quick), on each
backend present (opencl marked slow: PoCL compiles kernels for thousands of
small calls). The whole runner (sort, cumsum and sum too): see README.md."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import BACKENDS

RUNNER = Path(__file__).resolve().parents[1] / "tools" / "numpy_suite.py"
NUMPY_TESTS = Path(np.__file__).resolve().parent / "lib" / "tests" / "test_histograms.py"


@pytest.mark.parametrize("backend", [b if b == "cpu" else pytest.param(b, marks=pytest.mark.slow) for b in BACKENDS])
def test_numpy_histogram_and_unique_tests_pass(backend, tmp_path):
    if not RUNNER.is_file():
        pytest.skip(f"{RUNNER} is not here (tests run outside the source tree)")
    if not NUMPY_TESTS.is_file():
        pytest.skip("this NumPy was installed without its tests")
    res = subprocess.run([sys.executable, str(RUNNER), "--quick", "--backend", backend],
                         capture_output=True, text=True, cwd=tmp_path, timeout=900)
    out = res.stdout + res.stderr
    assert res.returncode == 0, out[-4000:]
    served = {line.split()[0]: int(line.split()[1]) for line in out.splitlines() if line.startswith("  np.")}
    assert served["np.histogram"] > 1000 and served["np.unique"] > 100, out[-2000:]
