"""Inputs of more than 2^31 elements (int8, n = 2^31 + 7): reduce and scan
on cpu. Marked slow (deselect with -m "not slow"); skipped with the reason
where MemAvailable in /proc/meminfo is too small."""

import numpy as np
import pytest

from conftest import context

N = 2**31 + 7
CHUNK = 1 << 26


def _mem_available():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


@pytest.mark.slow
def test_reduce_and_scan_int8_above_2_to_31(rng):
    need = 2 * N + (3 << 29)  # the data, a copy, chunks of NumPy's reference
    have = _mem_available()
    if have is None:
        pytest.skip("cannot read MemAvailable from /proc/meminfo")
    if have < need:
        pytest.skip(f"needs {need / 2**30:.1f} GiB of free memory, MemAvailable is {have / 2**30:.1f} GiB")
    block = rng.integers(-128, 128, size=1_000_003, dtype=np.int8)  # a prime length, repeated
    a = np.resize(block, N)
    a[-7:] = [5, -3, 7, 11, -128, 127, 1]  # the elements past 2^31
    ctx = context("cpu")

    for op, uf in (("sum", np.add), ("max", np.maximum), ("xor", np.bitwise_xor)):
        got = ctx.reduce(a, op, dtype=np.int8)
        exp = uf.reduce(a, dtype=np.int8)
        assert got == exp and got.dtype == np.int8, f"reduce {op}: {got!r}, expected {exp!r}"
    a[-1] += np.int8(1)  # a change past 2^31 changes the sum
    assert ctx.reduce(a, "sum", dtype=np.int8) == np.add.reduce(a, dtype=np.int8), "reduce ignores the elements past 2^31"
    assert ctx.reduce(a, "sum") == np.add.reduce(a), "reduce (int8 -> int64) ignores the elements past 2^31"

    src = a.copy()
    out = ctx.scan(a, "sum", out=a, dtype=np.int8)  # in place
    assert np.shares_memory(out, a)
    carry = np.int8(0)
    for s in range(0, N, CHUNK):
        exp = np.cumsum(src[s:s + CHUNK], dtype=np.int8) + carry
        got = a[s:s + CHUNK]
        if not np.array_equal(got, exp):
            j = int(np.flatnonzero(got != exp)[0])
            raise AssertionError(f"scan: element {s + j}: {got[j]}, expected {exp[j]}")
        carry = exp[-1]
