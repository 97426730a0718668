"""NumPy's histogram bins counted by the C library: parprim.histogram
(np.histogram's counts and edges), histogram_even(right_closed=True) and
histogram_range's edges beyond the sample type.

One pp_histogram_range call counts the samples over the distinct edges,
converted to the sample type; NumPy's bins are then differences of those
counts. The C library bins near-equal edges (np.linspace's) by a guess
corrected with one comparison per edge, at the speed of pp_histogram_even.
"""

from __future__ import annotations

import operator

import numpy as np

from ._arrays import CODE, U64, bits, is_bf16, is_device_array, is_float
from ._parprim import InvalidArgument
from ._runs import _Op


def edges_in(dtype, edges, what="edges", beyond=False):
    """Histogram edges as a contiguous NumPy array of the sample dtype.

    Edges of another dtype are converted so that the comparisons keep their
    meaning for every sample: each becomes the smallest value of the sample
    type that is >= it (x >= e exactly when x >= that value), e.g. 2.5 is 3
    for integer samples. An edge above the largest value of an integer type
    (or NaN) is an InvalidArgument; edges below the smallest become the
    smallest. GPU arrays are copied to the host (edges are host values).
    beyond=True (non-decreasing edges): returns (array, k) where the last k
    edges are above the type (left out of the array) instead of failing."""
    if is_device_array(edges):
        if hasattr(edges, "copy_to_host"):  # Numba
            edges = edges.copy_to_host()
        elif hasattr(edges, "get"):  # CuPy, DeviceArray
            edges = edges.get()
        elif hasattr(edges, "cpu"):  # PyTorch
            edges = edges.cpu().numpy()
        else:
            raise InvalidArgument(f"parprim: {what} must be host numbers (a list or a NumPy array)")
    try:
        e = np.asarray(edges)
    except Exception as exc:  # noqa: BLE001
        raise InvalidArgument(f"parprim: {what} is not an array of numbers: {exc}") from None
    if e.dtype == dtype:
        e = np.ascontiguousarray(e).reshape(-1)
        return (e.copy(), 0) if beyond else e
    if is_bf16(e.dtype):  # bfloat16 edges of other samples: their values, exactly
        e = e.astype(np.float32)
    if e.dtype.kind not in "iufb":
        raise InvalidArgument(f"parprim: {what} has dtype {e.dtype}; edges must be numbers")
    e = e.reshape(-1)
    if is_float(dtype):
        with np.errstate(over="ignore", invalid="ignore"):
            r = e.astype(dtype)
        # Python compares its ints and floats exactly: bump the edges that rounded down.
        if e.dtype == np.float64:  # (exactly as float64, faster)
            low = r.astype(np.float64) < e
        else:
            low = np.array([x < y for x, y in zip(r.tolist(), e.tolist())], dtype=bool)
        if low.any():
            r[low] = np.nextafter(r[low], dtype.type(np.inf))
        return (r, 0) if beyond else r
    info = np.iinfo(dtype)
    if e.dtype.kind == "f":
        if np.isnan(e).any():
            raise InvalidArgument(f"parprim: {what} holds NaN")
        c = np.ceil(e.astype(np.float64))
        if e.dtype.itemsize <= 8 and c.size and np.abs(c).max() < 2.0**53:  # exact as int64: vectorized
            k = int(np.count_nonzero(c > int(info.max))) if beyond else 0
            c = c[:c.size - k]
            if c.size and c.max() > int(info.max):
                raise InvalidArgument(f"parprim: {what} has values above the largest {dtype} ({info.max})")
            t = np.maximum(c, int(info.min)).astype(dtype)
            return (t, k) if beyond else t
        # ceil is exact for |e| < 2^53; above, a float is an integer already.
        # Python ints compare exactly (float(info.max) of a 64-bit type rounds up).
        vals = [int(x) if np.isfinite(x) else (int(info.max) + 1 if x > 0 else int(info.min))
                for x in np.ceil(e).tolist()]
    else:
        vals = [int(x) for x in e.tolist()]
    k = sum(v > int(info.max) for v in vals) if beyond else 0
    vals = vals[:len(vals) - k]
    if any(v > int(info.max) for v in vals):
        raise InvalidArgument(f"parprim: {what} has values above the largest {dtype} ({info.max})")
    t = np.array([max(v, int(info.min)) for v in vals], dtype=dtype)
    return (t, k) if beyond else t


def _thresholds(dt, edges, closed_last):
    """The edges as thresholds in the sample type dt: a sample x is below
    edge i (x < edges[i], compared as NumPy compares dt with the edges'
    type) exactly when x < t[i]. Returns (t, beyond): t, an array of dt
    for the first len(edges) - beyond edges; the last `beyond` are above
    every value of dt (every sample is below them). closed_last: the last
    edge counts as "x <= edges[-1]" (NumPy's closed last bin)."""
    t, beyond = edges_in(dt, edges, beyond=True)
    if closed_last and not beyond:
        last = t[-1]
        if last.item() == edges[-1].item():  # exact: x <= last is x < the next value of dt
            if last == (np.inf if is_float(dt) else np.iinfo(dt).max):
                return t[:-1], 1  # every sample is <= it
            t[-1] = np.nextafter(last, dt.type(np.inf)) if is_float(dt) else last + dt.type(1)
        # else t[-1] > edges[-1] and no value of dt lies between: x <= edges[-1] is x < t[-1]
    return t, beyond


def count_bins(c, r, x, edges, closed_last):
    """NumPy's counts over edges (a non-decreasing 1-D NumPy array of at
    least 2 values) as a uint64 host array: bin i counts edges[i] <= x <
    edges[i+1], closed_last: the last bin also x == edges[-1]; NaN is never
    counted. c: the C context, r: the run, x: the samples (r.input)."""
    dt = x.dtype
    if dt.kind in "iu" and is_float(edges.dtype):
        fin = edges[np.isfinite(edges)]
        if fin.size and float(np.abs(fin).max()) >= 2.0**53:
            # NumPy compares these integers as float64 values (rounded above 2^53): count those
            x = r.as_f64(x)
            dt = x.dtype
    t, beyond = _thresholds(dt, edges, closed_last)
    nb = edges.size - 1
    # The distinct thresholds, and for each edge the index of its own among them.
    keep = np.ones(t.size, dtype=bool)
    keep[1:] = t[1:] != t[:-1]  # -0.0 and +0.0 are one threshold
    u = t[keep]
    idx = np.cumsum(keep) - 1
    inf_count = 0
    if beyond:
        # Edges above every value: F(beyond) - F(u[-1]) = #{x >= u[-1]} is counted as
        # n - #{x < u[-1]} for integers (u starts at the type's minimum, so that
        # #{x < u[0]} = 0), and as the count up to +inf plus the +inf samples for floats.
        if is_float(dt):
            if u.size == 0 or u[-1] != np.inf:
                u = np.append(u, dt.type(np.inf))
            inf_count = _count_inf(c, r, x)
        elif u.size == 0 or u[0] != np.iinfo(dt).min:
            u = np.insert(u, 0, np.iinfo(dt).min)
            idx = idx + 1
    u = np.ascontiguousarray(u, dtype=dt)
    cum = np.zeros(u.size + 1, dtype=U64)  # cum[j] = #{u[0] <= x < u[j]}; cum[u.size]: beyond
    if u.size > 1:
        s = r.scratch(U64, u.size - 1)
        c.histogram_range(x.h, s.h, bits(u), u.size - 1, x.code, x.n)
        np.cumsum(r.to_host(s), out=cum[1:u.size])
    if beyond:
        cum[u.size] = (cum[u.size - 1] + np.uint64(inf_count)) if is_float(dt) else np.uint64(x.n)
    f = np.empty(nb + 1, dtype=U64)
    f[:t.size] = cum[idx]
    f[t.size:] = cum[u.size]
    return f[1:] - f[:-1]


def _count_inf(c, r, x):
    """The number of +inf samples: one count of the samples' bits as
    signed integers (of the samples' size) over [bits(+inf), bits(+inf) + 1)."""
    it = np.dtype(f"i{x.dtype.itemsize}")
    h = x.h.view(it) if isinstance(x.h, np.ndarray) else x.h
    v = _Op(h, x.obj, it, CODE[it], x.n)
    b = np.array([np.inf], dtype=x.dtype).view(it)[0]
    s = r.scratch(U64, 1)
    c.histogram_range(v.h, s.h, np.array([b, b + 1], dtype=it), 1, v.code, v.n)
    return int(r.to_host(s)[0])


def _min_max(x, a):
    """The samples' smallest and largest values as NumPy scalars of their
    dtype (NaN propagates, as in a.min())."""
    if isinstance(x.h, np.ndarray):
        src = x.h.view(x.dtype)  # (bfloat16 reaches the C calls as its bits)
    elif is_device_array(a):
        src = a
    else:
        src = np.asarray(a).reshape(-1)
    return x.dtype.type(src.min().item()), x.dtype.type(src.max().item())


def even_edges_beyond(dt, lower, upper, bins):
    """pp_histogram_even's bins over integer bounds beyond an integer type
    of up to 32 bits, as edges (int64, clipped to [min, max + 1]): bin i
    starts at lower + ceil(i * (upper - lower) / bins), the first x with
    floor((x - lower) * bins / (upper - lower)) = i. None where the bounds
    fit the type (or are not integers, or the type is wider): the C call
    takes them (and reports what is wrong with them)."""
    if dt.kind not in "iu" or dt.itemsize > 4 or bins < 1:
        return None
    try:
        lo, hi = operator.index(lower), operator.index(upper)
    except TypeError:
        return None
    info = np.iinfo(dt)
    if info.min <= lo and hi <= info.max or not lo < hi:
        return None
    w = hi - lo
    e = [lo + -(-i * w // bins) for i in range(bins + 1)]
    return np.array([min(max(v, int(info.min)), int(info.max) + 1) for v in e], dtype=np.int64)


def numpy_edges(x, a, bins, range):  # noqa: A002 (NumPy's name)
    """np.histogram's edges for these samples (x: the run's input of a) and
    (bins, range), with NumPy's rules and errors."""
    dt = x.dtype
    if isinstance(bins, str):
        raise InvalidArgument(f"parprim: histogram: bins={bins!r}: estimators are not supported; pass an integer or "
                              "edges (np.histogram_bin_edges computes them)")
    if np.ndim(bins) == 0 and range is None:
        if x.n == 0:
            range = (0, 1)
        else:
            lo, hi = _min_max(x, a)
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError(f"autodetected range of [{lo}, {hi}] is not finite")
            range = (lo, hi)
    # With the range given, NumPy's edges depend on the samples' dtype only.
    return np.histogram_bin_edges(np.empty(0, dt), bins, range=range)


def numpy_weighted(a, bins, range, weights):  # noqa: A002
    """Weighted counts: NumPy's own (its sums in its order), the samples
    and weights brought to the host first."""
    def host(v):
        if is_device_array(v):
            for m in ("get", "copy_to_host"):
                if hasattr(v, m):
                    return getattr(v, m)()
            return v.cpu().numpy()
        return v
    return np.histogram(host(a), bins, range=range, weights=host(weights))
