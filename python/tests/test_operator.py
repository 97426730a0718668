"""parprim.Operator (operators of the user's own: pp_operator_create,
pp_reduce_op, pp_scan_op) as op= of reduce and scan, on every backend,
against a sequential fold in Python with the same combine: affine maps over
a structured dtype (f64 and u32, not commutative), a (first, last) pair
whose results show the order, a plain uint32 sum against NumPy; compile
errors, wrong dtypes and item sizes, the unsupported arguments, the
context's life."""

import gc

import numpy as np
import pytest

import parprim
from parprim._selfcheck import FakeCAI
from conftest import BACKENDS, context, run

SIZES = (0, 1, 2, 33, 1025, 10007)

AFFINE = """
typedef struct { {T} a, b; } pp_elem;
pp_elem pp_combine(pp_elem f, pp_elem g)  /* f, then g */
{ pp_elem r; r.a = f.a * g.a; r.b = g.a * f.b + g.b; return r; }
"""
AFFINE_F64 = parprim.Operator(AFFINE.replace("{T}", "double"),
                              np.dtype([("a", "f8"), ("b", "f8")], align=True), (1.0, 0.0))
AFFINE_U32 = parprim.Operator(AFFINE.replace("{T}", "unsigned"),
                              np.dtype([("a", "u4"), ("b", "u4")], align=True), (1, 0))
# The first and the last element of a range (-1: none), in a struct with padding (int, then double).
FIRST_LAST = parprim.Operator("""
typedef struct { int first; double last; } pp_elem;
pp_elem pp_combine(pp_elem x, pp_elem y)
{ pp_elem r; r.first = x.first >= 0 ? x.first : y.first; r.last = y.last >= 0 ? y.last : x.last; return r; }
""", np.dtype([("first", "i4"), ("last", "f8")], align=True), (-1, -1.0))
SUM_U32 = parprim.Operator("typedef unsigned pp_elem;\npp_elem pp_combine(pp_elem x, pp_elem y) { return x + y; }",
                           np.uint32, 0, commutative=True)


def affine_f64(x, y):
    return (x[0] * y[0], y[0] * x[1] + y[1])


def affine_u32(x, y):
    return (x[0] * y[0] % 2**32, (y[0] * x[1] + y[1]) % 2**32)


def first_last(x, y):
    return (x[0] if x[0] >= 0 else y[0], y[1] if y[1] >= 0 else x[1])


def fold(combine, identity, items):
    """The inclusive scan, sequentially, left to right."""
    acc, out = identity, []
    for it in items:
        acc = combine(acc, it)
        out.append(acc)
    return out


def make(op, rng, n):
    a = np.zeros(n, op.dtype)
    if op is AFFINE_F64:  # a = +-1, small integer b: every fold is exact in f64, in any order
        a["a"] = rng.choice([-1.0, 1.0], n)
        a["b"] = rng.integers(-1000, 1000, n)
    elif op is AFFINE_U32:
        a["a"] = rng.integers(0, 2**32, n, dtype=np.uint32)
        a["b"] = rng.integers(0, 2**32, n, dtype=np.uint32)
    else:  # FIRST_LAST: positions, some missing
        a["first"] = np.where(rng.random(n) < 0.3, -1, np.arange(n))
        a["last"] = np.where(rng.random(n) < 0.3, -1.0, rng.random(n))
    return a


CASES = [(AFFINE_F64, affine_f64), (AFFINE_U32, affine_u32), (FIRST_LAST, first_last)]


def as_tuples(arr):
    return [tuple(x.item()) for x in arr]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", range(len(CASES)), ids=["affine_f64", "affine_u32", "first_last"])
def test_reduce_scan_against_fold(backend, case, rng):
    op, combine = CASES[case]
    ctx = context(backend)
    ident = tuple(op.identity.item())
    for n in SIZES:
        a = make(op, rng, n)
        want = fold(combine, ident, as_tuples(a))
        got = run(ctx.reduce, a, op)
        assert isinstance(got, np.void) and got.dtype == op.dtype
        assert tuple(got.item()) == (want[-1] if n else ident), n
        s = ctx.scan(a, op)
        assert s.dtype == op.dtype and as_tuples(s) == want, n
        e = ctx.scan(a, op, exclusive=True)
        assert as_tuples(e) == [ident] + want[:-1] if n else e.size == 0, n


@pytest.mark.parametrize("backend", BACKENDS)
def test_plain_dtype_sum(backend, rng):
    ctx = context(backend)
    for n in SIZES:
        a = rng.integers(0, 2**32, n, dtype=np.uint32)
        got = ctx.reduce(a, SUM_U32)
        assert type(got) is np.uint32 and got == np.sum(a, dtype=np.uint32)
        np.testing.assert_array_equal(ctx.scan(a, SUM_U32), np.cumsum(a, dtype=np.uint32))
    a = rng.integers(0, 2**32, (7, 13), dtype=np.uint32)  # any shape: C order, a flat result
    np.testing.assert_array_equal(ctx.scan(a, SUM_U32), np.cumsum(a, dtype=np.uint32))
    out = np.empty(a.size, np.uint32)
    assert ctx.scan(a, SUM_U32, exclusive=True, out=out) is out
    np.testing.assert_array_equal(out[1:], np.cumsum(a, dtype=np.uint32)[:-1])
    assert out[0] == 0
    b = a.reshape(-1).copy()
    ctx.scan(b, SUM_U32, out=b)  # in place
    np.testing.assert_array_equal(b, np.cumsum(a, dtype=np.uint32))
    # a strided view is copied once
    assert ctx.reduce(a[:, ::2], SUM_U32) == np.sum(a[:, ::2], dtype=np.uint32)


def test_module_functions_and_order(rng):
    a = make(AFFINE_U32, rng, 1000)
    want = fold(affine_u32, (1, 0), as_tuples(a))
    assert tuple(parprim.reduce(a, op=AFFINE_U32).item()) == want[-1]
    assert as_tuples(parprim.scan(a, op=AFFINE_U32)) == want
    # not commutative: the reversed input gives another composite
    assert tuple(parprim.reduce(a[::-1], op=AFFINE_U32).item()) != want[-1]


def test_errors():
    ctx = context("cpu")
    bad = parprim.Operator("typedef unsigned pp_elem;\npp_elem pp_combine(pp_elem x, pp_elem y) { return x +* ; }",
                           np.uint32, 0)
    a = np.arange(10, dtype=np.uint32)
    with pytest.raises(ValueError, match="does not compile.*error"):
        ctx.reduce(a, bad)
    with pytest.raises(TypeError, match="dtype int32"):
        ctx.reduce(a.astype(np.int32), SUM_U32)
    with pytest.raises(TypeError, match="dtype"):
        ctx.scan(make(AFFINE_U32, np.random.default_rng(1), 5), AFFINE_F64)
    # the unaligned dtype (12 bytes) is not the C struct (16 bytes)
    packed = parprim.Operator(FIRST_LAST.source, np.dtype([("first", "i4"), ("last", "f8")]), (-1, -1.0))
    with pytest.raises(ValueError, match="sizeof"):
        ctx.reduce(np.zeros(3, packed.dtype), packed)
    with pytest.raises(ValueError, match="axis"):
        ctx.reduce(a, SUM_U32, axis=0)
    with pytest.raises(ValueError, match="exact"):
        ctx.scan(a, SUM_U32, exact=True)
    with pytest.raises(ValueError, match="initial"):
        ctx.scan(a, SUM_U32, initial=3)
    with pytest.raises(TypeError, match="own dtype"):
        ctx.reduce(a, SUM_U32, dtype=np.uint64)
    with pytest.raises(ValueError, match="keepdims"):
        ctx.reduce(a, SUM_U32, keepdims=True)
    with pytest.raises(ValueError, match="identity"):
        parprim.Operator(SUM_U32.source, np.uint32, [0, 0])
    with pytest.raises(TypeError):
        parprim.Operator(SUM_U32.source, object, 0)
    with pytest.raises(ValueError):  # out of another size
        ctx.scan(a, SUM_U32, out=np.empty(3, np.uint32))


def test_context_life():
    a = np.arange(100, dtype=np.uint32)
    op = parprim.Operator(SUM_U32.source, np.uint32, 0)
    ctx = parprim.Context("cpu")
    assert ctx.reduce(a, op) == 4950
    ctx.close()  # destroys the operator before the context
    with pytest.raises(ValueError, match="closed"):
        ctx.reduce(a, op)
    ctx2 = parprim.Context("cpu")
    assert ctx2.scan(a, op)[-1] == 4950
    del ctx2  # the cache lets the context go
    gc.collect()
    assert len(op._ops) <= 1  # the closed one at most
    del op
    gc.collect()


def test_device_path(rng):
    ctx = parprim.Context("cpu")
    ctx._test_device_mode = True
    try:
        a = rng.integers(0, 2**32, 1025, dtype=np.uint32)
        assert ctx.reduce(FakeCAI(a), SUM_U32) == np.sum(a, dtype=np.uint32)
        np.testing.assert_array_equal(np.asarray(ctx.scan(FakeCAI(a), SUM_U32)), np.cumsum(a, dtype=np.uint32))
        with pytest.raises(TypeError):
            ctx.reduce(FakeCAI(a.view(np.int32)), SUM_U32)
    finally:
        ctx.close()
