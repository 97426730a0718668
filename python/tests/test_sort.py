"""sort and sort_pairs (out of place: new arrays or out=, the inputs
unchanged; and in place): every backend, algorithm and type, both orders,
exact (bit for bit, NaN payloads included) and stable against a NumPy
oracle of the header's order (-0.0 before +0.0, every NaN above +inf and
equal to every other NaN); ascending puts NaNs last like np.sort, descending
puts them last (nan_last=True) or first (nan_last=False)."""

import numpy as np
import pytest

from conftest import (FLOAT_DTYPES, algo_params, SIZES, BACKENDS, assert_bits, assert_same, combos, context, make_data,
                      nan_patterns, ref_sort_order)

VALUE_DTYPES = [np.dtype(t) for t in ("int64", "uint32", "uint16", "uint8", "float64", "float32", "int8")]


def _kinds(dtype):
    if np.dtype(dtype).kind == "f":
        return ("random", "dups", "special", "zeros", "equal")
    return ("random", "dups", "small", "equal")


def _orders(dtype):
    out = [(False, True), (True, True)]
    if np.dtype(dtype).kind == "f":
        out.append((True, False))
    return out


def _name(descending, nan_last):
    return ("descending" if descending else "ascending") + ("" if nan_last else " NaN first")


@pytest.mark.parametrize("backend,algo,dtype", combos("sort"))
def test_sort(backend, algo, dtype, rng):
    ctx = context(backend, "sort", algo)
    for n in SIZES:
        for kind in _kinds(dtype):
            a = make_data(rng, dtype, n, kind)
            keep = a.copy()
            for descending, nan_last in _orders(dtype):
                got = ctx.sort(a, descending=descending, nan_last=nan_last)
                assert isinstance(got, np.ndarray)
                exp = a[ref_sort_order(a, descending, nan_last)]
                assert_bits(got, exp, f"n={n} data={kind} {_name(descending, nan_last)}")
                assert_bits(a, keep, "sort without out= changed its input")


@pytest.mark.parametrize("backend,algo,dtype", combos("sort"))
def test_sort_pairs_stable(backend, algo, dtype, rng):
    """values = indices: equal keys keep their input order in both orders."""
    ctx = context(backend, "sort", algo)
    for i, n in enumerate(SIZES):
        for j, kind in enumerate(_kinds(dtype)):
            keys = make_data(rng, dtype, n, kind)
            vdt = VALUE_DTYPES[(i + j) % len(VALUE_DTYPES)]
            values = np.arange(n).astype(vdt)
            for descending, nan_last in _orders(dtype):
                k, v = ctx.sort_pairs(keys.copy(), values.copy(), descending=descending, nan_last=nan_last)
                order = ref_sort_order(keys, descending, nan_last)
                where = f"n={n} data={kind} values {vdt} {_name(descending, nan_last)}"
                assert_bits(k, keys[order], where + " (keys)")
                assert_bits(v, values[order], where + " (values)")


@pytest.mark.parametrize("dtype", FLOAT_DTYPES, ids=str)
@pytest.mark.parametrize("backend,algo", algo_params("sort"))
def test_sort_float_order_by_hand(backend, algo, dtype):
    ctx = context(backend, "sort", algo)
    nans = nan_patterns(dtype)
    a = np.array([1.0, nans[0], -0.0, -np.inf, 0.0, nans[1], np.inf, -1.0, 0.0, -0.0, nans[2]], dtype=dtype)
    idx = np.arange(a.size, dtype=np.int64)
    asc = np.array([-np.inf, -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, np.inf, nans[0], nans[1], nans[2]], dtype=dtype)
    asc_idx = [3, 7, 2, 9, 4, 8, 0, 6, 1, 5, 10]
    desc = np.array([np.inf, 1.0, 0.0, 0.0, -0.0, -0.0, -1.0, -np.inf, nans[0], nans[1], nans[2]], dtype=dtype)
    desc_idx = [6, 0, 4, 8, 2, 9, 7, 3, 1, 5, 10]
    desc_nan_first = np.concatenate([desc[8:], desc[:8]])
    desc_nan_first_idx = desc_idx[8:] + desc_idx[:8]
    assert_bits(ctx.sort(a), asc, "ascending")
    assert_bits(ctx.sort(a, descending=True), desc, "descending")
    assert_bits(ctx.sort(a, descending=True, nan_last=False), desc_nan_first, "descending, NaN first")
    assert_same(ctx.sort(a, descending=True, nan_last=False), np.flip(ctx.sort(a)),
                "descending with NaN first is the reverse of ascending")
    for desc_, nl, ek, ei in ((False, True, asc, asc_idx), (True, True, desc, desc_idx),
                              (True, False, desc_nan_first, desc_nan_first_idx)):
        k, v = ctx.sort_pairs(a.copy(), idx.copy(), descending=desc_, nan_last=nl)
        assert_bits(k, ek, f"sort_pairs keys {_name(desc_, nl)}")
        assert_same(v, np.array(ei, dtype=np.int64), f"sort_pairs values {_name(desc_, nl)}")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_ascending_matches_np_sort(backend, rng):
    ctx = context(backend)
    for dtype in (np.float32, np.float64, np.int16, np.uint64):
        a = make_data(rng, dtype, 100003, "special" if np.dtype(dtype).kind == "f" else "random")
        assert np.array_equal(ctx.sort(a), np.sort(a), equal_nan=np.dtype(dtype).kind == "f")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_large_new_and_out_arrays(backend, rng):
    """Arrays above 1 MiB (sorted out of place into the result): a new
    result, an out= array, and pairs; the inputs stay unchanged."""
    ctx = context(backend)
    n = 300007
    a = make_data(rng, np.uint32, n, "random")
    v = make_data(rng, np.float64, n, "random")
    keep_a, keep_v = a.copy(), v.copy()
    assert_bits(ctx.sort(a), np.sort(a))
    out = np.empty_like(a)
    assert ctx.sort(a, out=out) is out
    assert_bits(out, np.sort(a))
    k, w = ctx.sort_pairs(a, v)
    order = ref_sort_order(a, False)
    assert_bits(k, a[order])
    assert_bits(w, v[order], "values")
    assert_bits(a, keep_a, "input keys")
    assert_bits(v, keep_v, "input values")


@pytest.mark.parametrize("backend,algo,dtype", combos("sort"))
def test_sort_out_of_place(backend, algo, dtype, rng):
    """The out-of-place sort (pp_sort_copy, pp_sort_pairs_copy): into a new
    array, into a distinct out= array, in place through out=a, and pairs,
    from read-only inputs, which stay unchanged."""
    ctx = context(backend, "sort", algo)
    for i, n in enumerate((0, 1, 2, 33, 1025, 65537)):
        kind = _kinds(dtype)[i % len(_kinds(dtype))]
        a = make_data(rng, dtype, n, kind)
        keep = a.copy()
        a.setflags(write=False)
        values = np.arange(n).astype(VALUE_DTYPES[i % len(VALUE_DTYPES)])
        values.setflags(write=False)
        for descending, nan_last in _orders(dtype):
            where = f"n={n} data={kind} {_name(descending, nan_last)}"
            order = ref_sort_order(keep, descending, nan_last)
            assert_bits(ctx.sort(a, descending=descending, nan_last=nan_last), keep[order], where + " new array")
            out = np.full_like(keep, 7)
            assert ctx.sort(a, out=out, descending=descending, nan_last=nan_last) is out
            assert_bits(out, keep[order], where + " out=")
            k, v = ctx.sort_pairs(a, values, descending=descending, nan_last=nan_last)
            assert_bits(k, keep[order], where + " pairs (keys)")
            assert_bits(v, values[order], where + " pairs (values)")
            assert_bits(a, keep, where + ": the input changed")
            assert_same(values, np.arange(n).astype(values.dtype), where + ": the input values changed")
            b = keep.copy()
            assert ctx.sort(b, out=b, descending=descending, nan_last=nan_last) is b
            assert_bits(b, keep[order], where + " out=a (in place)")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_pairs_keys_as_values(backend, rng):
    """One array as keys and values: the C call takes no overlapping inputs,
    so the binding sorts from a copy of the values."""
    ctx = context(backend)
    a = make_data(rng, np.int32, 1025, "dups")
    order = ref_sort_order(a, True)
    k, v = ctx.sort_pairs(a, a, descending=True)
    assert_bits(k, a[order], "keys")
    assert_bits(v, a[order], "values")
    k, v = ctx.sort_pairs(a, a.view(np.uint32))
    assert_bits(k, np.sort(a, kind="stable"), "keys")
    assert_bits(v, np.sort(a, kind="stable").view(np.uint32), "values")


@pytest.mark.parametrize("backend", BACKENDS)
def test_sort_pairs_value_widths(backend, rng):
    """Values of every supported width move with their keys."""
    ctx = context(backend)
    keys = make_data(rng, np.uint8, 4099, "random")
    for vdt in VALUE_DTYPES:
        values = make_data(rng, vdt, 4099, "random")
        k, v = ctx.sort_pairs(keys.copy(), values.copy(), descending=True)
        order = ref_sort_order(keys, True)
        assert_bits(k, keys[order])
        assert_bits(v, values[order], f"values {vdt}")
