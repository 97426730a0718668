"""out= and in place: results share memory with out= (np.shares_memory),
scan(out=a) and sort(out=a) change a, histograms overwrite out; strided and
offset views give correct results and leave the rest of their buffer alone."""

import numpy as np
import pytest

import parprim
from conftest import (BACKENDS, NUMPY, assert_bits, assert_same, check_reduce, check_scan, context, make_data,
                      ref_histogram_even, ref_histogram_range, ref_scan_exact, ref_sort_order)


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_out(backend, exclusive, rng):
    ctx = context(backend)
    a = make_data(rng, np.int32, 65537)
    keep = a.copy()
    out = np.full_like(a, 7)
    r = ctx.scan(a, "sum", exclusive=exclusive, out=out, dtype=a.dtype)
    assert np.shares_memory(r, out), "scan(out=) returned an array that is not out"
    assert_same(out, ref_scan_exact(a, "sum", exclusive))
    assert_bits(a, keep, "scan(out=) changed its input")


@pytest.mark.parametrize("exclusive", [False, True], ids=["inclusive", "exclusive"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_in_place(backend, exclusive, rng):
    ctx = context(backend)
    for dtype, op in ((np.uint8, "sum"), (np.int64, "xor"), (np.float32, "max"), (np.float64, "sum")):
        a = make_data(rng, dtype, 100003)
        orig = a.copy()
        r = ctx.scan(a, op, exclusive=exclusive, out=a, dtype=dtype)  # in place: in a's dtype
        assert np.shares_memory(r, a), "scan(out=a) did not return a"
        check_scan(orig, op, exclusive, a, f"in place {np.dtype(dtype)} {op}", dtype)


@pytest.mark.parametrize("backend", BACKENDS)
def test_scan_out_view_inside_a_buffer(backend, rng):
    """out= a contiguous view at an offset: only the view is written."""
    ctx = context(backend)
    a = make_data(rng, np.int16, 1025)
    buf = np.full(1025 + 10, 99, dtype=np.int16)
    out = buf[5:-5]
    r = ctx.scan(a, "sum", out=out, dtype=a.dtype)
    assert np.shares_memory(r, out)
    assert_same(out, ref_scan_exact(a, "sum"))
    assert (buf[:5] == 99).all() and (buf[-5:] == 99).all(), "scan wrote outside out="


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_in_place(backend, rng):
    ctx = context(backend)
    for dtype in (np.uint32, np.float64, np.int8):
        a = make_data(rng, dtype, 100003, "special" if np.dtype(dtype).kind == "f" else "random")
        exp = a[ref_sort_order(a)]
        r = ctx.sort(a, out=a)
        assert np.shares_memory(r, a), "sort(out=a) did not return a"
        assert_bits(a, exp, f"sort(out=a) {np.dtype(dtype)}")
        expd = a[ref_sort_order(a, True)]
        ctx.sort(a, descending=True, out=a)
        assert_bits(a, expd, f"sort(out=a, descending=True) {np.dtype(dtype)}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_out_other(backend, rng):
    ctx = context(backend)
    a = make_data(rng, np.float32, 65537, "special")
    keep = a.copy()
    out = np.empty_like(a)
    r = ctx.sort(a, out=out)
    assert np.shares_memory(r, out)
    assert_bits(out, a[ref_sort_order(a)])
    assert_bits(a, keep, "sort(out=b) changed its input")


@pytest.mark.parametrize("backend", BACKENDS)
def test_histogram_out_overwritten(backend, rng):
    ctx = context(backend)
    a = make_data(rng, np.int32, 100003, "random")
    out = np.full(33, 12345, dtype=np.uint64)
    r = ctx.histogram_even(a, 33, -(2**30), 2**30, out=out)
    assert np.shares_memory(r, out)
    assert_same(out, ref_histogram_even(a, 33, -(2**30), 2**30), "counts are overwritten, not accumulated")
    edges = np.array([-(2**31), -5, 0, 7, 2**20, 2**31 - 1], dtype=np.int32)
    out = np.full(5, 777, dtype=np.uint64)
    r = ctx.histogram_range(a, edges, out=out)
    assert np.shares_memory(r, out)
    assert_same(out, ref_histogram_range(a, edges))
    out = np.full(4, 777, dtype=np.uint64)
    r = ctx.histogram_even(a, 4, 0, 100, out=out, right_closed=True)
    assert np.shares_memory(r, out)
    assert_same(out, np.histogram(a, 4, range=(0, 100))[0].astype(np.uint64))


STRIDES = [np.s_[::2], np.s_[::-1], np.s_[1::3], np.s_[-2::-7]]


@pytest.mark.parametrize("view", STRIDES, ids=["::2", "::-1", "1::3", "-2::-7"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_strided_inputs(backend, view, rng):
    """Non-contiguous inputs give the results of their contiguous copies."""
    ctx = context(backend)
    for dtype in (np.int32, np.float32, np.uint64):
        big = make_data(rng, dtype, 200003, "dups")
        keep = big.copy()
        a = big[view]
        c = np.ascontiguousarray(a)
        assert not a.flags.c_contiguous
        check_reduce(c, "max", ctx.reduce(a, "max"), "reduce")
        check_scan(c, "sum" if np.dtype(dtype).kind != "f" else "min", False,
                   ctx.scan(a, "sum" if np.dtype(dtype).kind != "f" else "min"), "scan", NUMPY)
        assert_same(ctx.histogram_even(a, 10, 0, 10), ref_histogram_even(c, 10, 0, 10), "histogram_even")
        flags = rng.random(a.size) < 0.5
        assert_bits(ctx.select_flagged(a, flags[::-1].copy()[::-1]), c[flags], "select_flagged (flags strided too)")
        assert_bits(ctx.select_if(a, "<", c[0]), c[c < c[0]], "select_if")
        got, count = ctx.partition_if(a, ">=", c[1])
        m = c >= c[1]
        assert int(count) == m.sum()
        assert_bits(got, np.concatenate([c[m], c[~m]]), "partition_if")
        keep_u = np.ones(c.size, bool)
        keep_u[1:] = c[1:] != c[:-1]
        assert_bits(ctx.unique_consecutive(a), c[keep_u], "unique_consecutive")
        assert_bits(ctx.sort(a), c[ref_sort_order(c)], "sort")
        assert_bits(big, keep, "a strided input's buffer was changed")
        k, v = ctx.sort_pairs(a, np.arange(a.size * 2, dtype=np.int64)[::2], descending=True)
        order = ref_sort_order(c, True)
        assert_bits(k, c[order], "sort_pairs keys")
        assert_bits(v, np.arange(0, 2 * a.size, 2, dtype=np.int64)[order], "sort_pairs values")


@pytest.mark.parametrize("backend", BACKENDS)
def test_misaligned_input(backend, rng):
    """A contiguous but misaligned input: a correct result, or InvalidArgument
    as the C API gives for misaligned arrays; never a crash or a wrong result."""
    ctx = context(backend)
    a = make_data(rng, np.int64, 1001)
    raw = np.zeros(a.nbytes + 1, dtype=np.uint8)
    m = raw[1:].view(np.int64)
    m[:] = a
    assert not m.flags.aligned
    try:
        got = ctx.reduce(m, "sum")
    except parprim.InvalidArgument:
        return
    assert got == np.sum(a, dtype=np.int64)
    assert_bits(ctx.sort(m), np.sort(a))
