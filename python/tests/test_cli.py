"""The command line (`python -m parprim ...` and the `parprim` script) on
.npy files: sort, argsort, histogram-even, reduce, scan, unique, unique-consecutive, top-k, searchsorted,
info, and errors
(exit status 1 or 2, a message on stderr, no traceback)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from conftest import BACKENDS, make_data

SCRIPT = Path(sys.executable).with_name("parprim")
if not SCRIPT.exists():
    SCRIPT = shutil.which("parprim")


def _env():
    env = dict(os.environ)
    env.pop("PARPRIM_BACKEND", None)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run(args, how="module", cwd=None):
    if how == "module":
        cmd = [sys.executable, "-m", "parprim", *map(str, args)]
    else:
        if not SCRIPT:
            pytest.skip("the parprim script is not installed beside this Python or on PATH")
        cmd = [str(SCRIPT), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, env=_env(), cwd=cwd, timeout=300)


def ok(p):
    assert p.returncode == 0, f"exit status {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    assert "Traceback" not in p.stderr, p.stderr
    return p


def failed(p):
    assert p.returncode in (1, 2), f"exit status {p.returncode}\nstdout: {p.stdout}\nstderr: {p.stderr}"
    assert p.stderr.strip(), "no message on stderr"
    assert "Traceback" not in p.stderr and "Traceback" not in p.stdout, p.stderr


HOWS = ["module", "script"]


@pytest.mark.parametrize("how", HOWS)
def test_sort(tmp_path, rng, how):
    a = make_data(rng, np.float32, 10007, "special")
    np.save(tmp_path / "keys.npy", a)
    ok(run(["sort", tmp_path / "keys.npy", "-o", tmp_path / "sorted.npy"], how))
    got = np.load(tmp_path / "sorted.npy")
    assert got.dtype == a.dtype
    assert np.array_equal(got, np.sort(a), equal_nan=True)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_descending_backend(tmp_path, rng, backend):
    a = make_data(rng, np.int32, 10007, "dups")
    np.save(tmp_path / "keys.npy", a)
    ok(run(["sort", tmp_path / "keys.npy", "-o", tmp_path / "sorted.npy", "--descending", "--backend", backend]))
    got = np.load(tmp_path / "sorted.npy")
    assert np.array_equal(got, np.sort(a)[::-1])


@pytest.mark.parametrize("how", HOWS)
def test_histogram_even(tmp_path, rng, how):
    x = rng.integers(-20, 120, 100003).astype(np.int32)
    np.save(tmp_path / "x.npy", x)
    ok(run(["histogram-even", tmp_path / "x.npy", "--bins", 10, "--range", 0, 100, "-o", tmp_path / "c.npy"], how))
    got = np.load(tmp_path / "c.npy")
    inside = x[(x >= 0) & (x < 100)]
    assert np.array_equal(got, np.bincount(inside // 10, minlength=10))
    assert got.dtype == np.uint64


def test_histogram_even_floats(tmp_path, rng):
    x = (rng.integers(0, 8, 4099) / 8).astype(np.float64)  # on the edges of 4 bins over [0, 1) and between
    x[:3] = [-0.5, 1.0, np.nan]
    np.save(tmp_path / "x.npy", x)
    ok(run(["histogram-even", tmp_path / "x.npy", "--bins", 4, "--range", 0, 1, "-o", tmp_path / "c.npy"]))
    got = np.load(tmp_path / "c.npy")
    inside = x[3:]
    assert np.array_equal(got, np.bincount((inside * 4).astype(int), minlength=4))


@pytest.mark.parametrize("how", HOWS)
def test_reduce(tmp_path, rng, how):
    x = make_data(rng, np.int64, 10007)
    np.save(tmp_path / "x.npy", x)
    p = ok(run(["reduce", tmp_path / "x.npy", "--op", "max"], how))
    assert int(p.stdout.split()[-1]) == int(x.max()), p.stdout
    p = ok(run(["reduce", tmp_path / "x.npy", "--op", "xor"], how))
    assert int(p.stdout.split()[-1]) == int(np.bitwise_xor.reduce(x)), p.stdout
    f = np.array([1.5, -2.25, np.nan, 7.0])
    np.save(tmp_path / "f.npy", f[[0, 1, 3]])
    p = ok(run(["reduce", tmp_path / "f.npy", "--op", "min"], how))
    assert float(p.stdout.split()[-1]) == -2.25


def test_scan(tmp_path, rng):
    x = make_data(rng, np.int16, 10007)
    np.save(tmp_path / "x.npy", x)
    ok(run(["scan", tmp_path / "x.npy", "--exclusive", "-o", tmp_path / "y.npy"]))
    inc = np.cumsum(x)  # NumPy's result type: int64
    y = np.load(tmp_path / "y.npy")
    assert y.dtype == inc.dtype and np.array_equal(y, np.concatenate([[0], inc[:-1]]))
    ok(run(["scan", tmp_path / "x.npy", "-o", tmp_path / "z.npy"]))
    assert np.array_equal(np.load(tmp_path / "z.npy"), inc)


def test_unique(tmp_path, rng):
    """unique is np.unique (sorted); unique-consecutive the first of each run
    of equal neighbours (what unique did before)."""
    x = make_data(rng, np.uint16, 10007, "dups")
    np.save(tmp_path / "x.npy", x)
    ok(run(["unique", tmp_path / "x.npy", "-o", tmp_path / "u.npy"]))
    assert np.array_equal(np.load(tmp_path / "u.npy"), np.unique(x))
    ok(run(["unique-consecutive", tmp_path / "x.npy", "-o", tmp_path / "r.npy"]))
    keep = np.ones(x.size, bool)
    keep[1:] = x[1:] != x[:-1]
    assert np.array_equal(np.load(tmp_path / "r.npy"), x[keep])
    outs = [tmp_path / f"{n}.npy" for n in ("r", "inv", "c")]
    ok(run(["unique-consecutive", tmp_path / "x.npy", "--inverse", "--counts", "-o", *outs]))
    counts = np.diff(np.append(np.flatnonzero(keep), x.size))
    assert np.array_equal(np.load(outs[0]), x[keep])
    assert np.array_equal(np.load(outs[1]), np.repeat(np.arange(counts.size), counts))
    assert np.array_equal(np.load(outs[2]), counts)
    failed(run(["unique", tmp_path / "x.npy", "--counts", "-o", tmp_path / "u.npy"]))  # two outputs asked, one given
    failed(run(["unique-consecutive", tmp_path / "x.npy", "--inverse", "-o", tmp_path / "u.npy"]))


def _unsupported(p):
    """A command that failed because the backend lacks the C call yet."""
    if p.returncode == 1 and "Unsupported" in p.stderr:
        pytest.skip(p.stderr.strip())
    return p


@pytest.mark.parametrize("how", HOWS)
def test_unique_counts(tmp_path, rng, how):
    x = make_data(rng, np.float32, 10007, "special")
    np.save(tmp_path / "x.npy", x)
    outs = [tmp_path / f"{n}.npy" for n in ("v", "i", "inv", "c")]
    ok(_unsupported(run(["unique", tmp_path / "x.npy", "--index", "--inverse", "--counts", "-o", *outs], how)))
    exp = np.unique(x, return_index=True, return_inverse=True, return_counts=True)
    for path, e in zip(outs, exp):
        got = np.load(path)
        assert got.dtype == e.dtype and np.array_equal(got, e, equal_nan=True), path.name
    ok(run(["unique", tmp_path / "x.npy", "--counts", "-o", outs[0], outs[3]], how))
    assert np.array_equal(np.load(outs[3]), exp[3])
    p = ok(run(["unique", tmp_path / "x.npy", "--counts"], how))  # printed
    assert p.stdout.count("[") >= 2, p.stdout


@pytest.mark.parametrize("how", HOWS)
def test_argsort(tmp_path, rng, how):
    x = make_data(rng, np.int32, 10007, "dups")
    np.save(tmp_path / "x.npy", x)
    for extra, exp in (([], np.argsort(x, kind="stable")), (["--descending"], None)):
        ok(run(["argsort", tmp_path / "x.npy", *extra, "-o", tmp_path / "i.npy"], how))
        idx = np.load(tmp_path / "i.npy")
        assert idx.dtype == np.int64, idx.dtype
        assert np.array_equal(idx, exp) if exp is not None else np.array_equal(x[idx], np.sort(x)[::-1])
    p = ok(run(["argsort", "--help"], how))
    assert "stable" in p.stdout


@pytest.mark.parametrize("how", HOWS)
def test_top_k_and_searchsorted(tmp_path, rng, how):
    x = make_data(rng, np.float32, 10007, "special")
    np.save(tmp_path / "x.npy", x)
    p = _unsupported(run(["top-k", tmp_path / "x.npy", "-k", 50, "--smallest", "-o", tmp_path / "v.npy",
                          tmp_path / "i.npy"], how))
    ok(p)
    idx = np.load(tmp_path / "i.npy")
    exp = np.argsort(x, kind="stable")[:50]  # no +-0.0 ties among the 50 smallest of this data
    assert idx.dtype == np.int64 and np.array_equal(np.sort(idx), np.sort(exp))
    assert np.array_equal(np.load(tmp_path / "v.npy"), x[idx])
    s = np.sort(x)
    q = make_data(rng, np.float32, 1000, "special")
    np.save(tmp_path / "s.npy", s)
    np.save(tmp_path / "q.npy", q)
    for side in ("left", "right"):
        ok(_unsupported(run(["searchsorted", tmp_path / "s.npy", tmp_path / "q.npy", "--side", side, "-o",
                             tmp_path / "o.npy"], how)))
        assert np.array_equal(np.load(tmp_path / "o.npy"), np.searchsorted(s, q, side))
    p = ok(run(["top-k", "--help"], how))
    assert "torch.topk" in p.stdout
    p = ok(run(["searchsorted", "--help"], how))
    assert "np.searchsorted" in p.stdout
    failed(run(["top-k", tmp_path / "x.npy"], how))  # -k missing
    failed(run(["searchsorted", tmp_path / "s.npy", tmp_path / "q.npy", "--nan-first"], how))


@pytest.mark.parametrize("how", HOWS)
def test_info(how):
    p = ok(run(["info"], how))
    assert "cpu" in p.stdout
    for b in BACKENDS:
        assert b in p.stdout


def test_errors(tmp_path):
    failed(run(["sort", tmp_path / "missing.npy", "-o", tmp_path / "out.npy"]))
    np.save(tmp_path / "x.npy", np.arange(10, dtype=np.int32))
    failed(run(["histogram-even", tmp_path / "x.npy", "--bins", 4, "--range", 5, 5, "-o", tmp_path / "c.npy"]))
    failed(run(["histogram-even", tmp_path / "x.npy", "--bins", 0, "--range", 0, 5, "-o", tmp_path / "c.npy"]))
    failed(run(["reduce", tmp_path / "x.npy", "--op", "bogus"]))
    failed(run(["frobnicate"]))
    failed(run(["sort", tmp_path / "x.npy", "-o", tmp_path / "o.npy", "--backend", "metal"]))
    np.save(tmp_path / "h.npy", np.arange(10, dtype=np.complex64))
    failed(run(["sort", tmp_path / "h.npy", "-o", tmp_path / "o.npy"]))
    np.save(tmp_path / "f.npy", np.arange(10, dtype=np.float32))
    failed(run(["reduce", tmp_path / "f.npy", "--op", "xor"]))
    (tmp_path / "junk.npy").write_bytes(b"not an npy file")
    failed(run(["reduce", tmp_path / "junk.npy", "--op", "sum"]))
    assert not (tmp_path / "o.npy").exists() and not (tmp_path / "c.npy").exists(), "a failed command wrote its output"
