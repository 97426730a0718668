"""The GIL is released during a long call: a second Python thread keeps
counting while sort(2^24 keys) runs on cpu."""

import threading
import time

import numpy as np

import parprim
from conftest import assert_bits


def _count_while(fn):
    """Runs fn while a thread increments a counter; returns (increments
    during fn, seconds fn took, increments per second with fn idle)."""
    state = {"n": 0, "stop": False}

    def counter():
        while not state["stop"]:
            state["n"] += 1

    t = threading.Thread(target=counter, daemon=True)
    t.start()
    try:
        time.sleep(0.05)
        n0, t0 = state["n"], time.perf_counter()
        time.sleep(0.2)
        rate = (state["n"] - n0) / (time.perf_counter() - t0)
        n0, t0 = state["n"], time.perf_counter()
        fn()
        n1, t1 = state["n"], time.perf_counter()
    finally:
        state["stop"] = True
        t.join()
    return n1 - n0, t1 - t0, rate


def test_sort_releases_the_gil():
    rng = np.random.default_rng()
    a = rng.integers(0, 2**32, size=2**24, dtype=np.uint32)
    exp = np.sort(a)
    with parprim.Context(backend="cpu", threads=1) as ctx:
        ctx.sort(a[:1000].copy(), out=None)  # warm up
        during, seconds, rate = _count_while(lambda: ctx.sort(a, out=a))
    assert_bits(a, exp)
    expected = rate * seconds
    print(f"sort of 2^24 u32 keys: {seconds:.3f} s; the other thread counted {during} "
          f"({during / max(expected, 1):.0%} of its idle rate)")
    # Holding the GIL the whole call would leave the counter where it was
    # (a few thousand for the wrapper's own Python code at most).
    assert seconds > 0.02, "the sort was too quick to tell"
    assert during > 0.05 * expected, (
        f"the counter advanced {during} times in {seconds:.3f} s (idle rate {rate:.0f}/s): "
        "sort holds the GIL")
