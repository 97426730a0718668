"""Context, info(), algorithm selection and the per-thread default context."""

import threading

import numpy as np
import pytest

import parprim
from conftest import BACKENDS, INFO, PRIMITIVES, assert_bits, check_scan, context, make_data, ref_sort_order

API = ("reduce", "scan", "histogram_even", "histogram_range", "select_flagged", "select_if", "unique",
       "unique_consecutive", "partition_if", "sort", "sort_pairs", "argsort", "segmented_reduce", "segmented_scan",
       "segmented_sort", "segmented_sort_pairs", "reduce_by_key", "scan_by_key", "run_length_encode",
       "set_algorithm", "get_algorithm")


def test_module_api():
    for name in API + ("info", "Context", "Error", "InvalidArgument", "Unsupported", "OutOfMemory",
                       "BackendUnavailable", "BackendError"):
        assert hasattr(parprim, name), f"parprim.{name} is missing"
    for name in API + ("close", "__enter__", "__exit__"):
        assert callable(getattr(parprim.Context, name, None)), f"Context.{name} is missing"


def test_info_structure():
    info = parprim.info()
    assert isinstance(info, dict)
    assert isinstance(info["version"], str) and info["version"].startswith("0.")
    assert set(info["backends"]) >= {"cpu", "cuda", "opencl"}
    for name, b in info["backends"].items():
        for key in ("built", "present", "device", "threads", "memory", "algorithms"):
            assert key in b, f"info()['backends']['{name}'] has no '{key}'"
        assert isinstance(b["built"], bool) and isinstance(b["present"], bool)
        assert b["built"] or not b["present"], f"{name} present but not built"
        if b["present"]:
            assert set(b["algorithms"]) == set(PRIMITIVES), f"{name}: algorithms for {set(b['algorithms'])}"
            for prim, names in b["algorithms"].items():
                assert "auto" in names and len(set(names)) == len(names), f"{name} {prim}: {names}"
    cpu = info["backends"]["cpu"]
    assert cpu["built"] and cpu["present"]
    assert info["auto"] in BACKENDS


def test_cpu_algorithms():
    algos = {p: set(v) for p, v in INFO["backends"]["cpu"]["algorithms"].items()}
    for prim in PRIMITIVES:
        expected = ({"auto", "sequential"} | ({"reduce-then-scan"} if prim == "scan" else set())
                    | ({"exact"} if prim in ("reduce", "scan") else set()))
        assert algos[prim] == expected, f"cpu {prim}: {algos[prim]}"


@pytest.mark.skipif("opencl" not in BACKENDS, reason="no OpenCL device present")
def test_opencl_algorithms():
    algos = {p: set(v) for p, v in INFO["backends"]["opencl"]["algorithms"].items()}
    assert algos["scan"] == {"auto", "reduce-then-scan", "blelloch-padded", "exact"}
    assert algos["histogram"] == {"auto", "global-atomic", "private-atomic", "private-reduce"}
    assert algos["reduce"] == {"auto", "exact"}
    assert algos["select"] == {"auto"}, f"opencl select: {algos['select']}"
    assert algos["sort"] == {"auto", "onesweep", "count-scan-scatter"}, f"opencl sort: {algos['sort']}"


@pytest.mark.parametrize("backend", BACKENDS)
def test_context_properties(backend):
    with parprim.Context(backend=backend) as ctx:
        assert ctx.backend == backend
        assert isinstance(ctx.device_name, str) and ctx.device_name
        assert isinstance(ctx.threads, int)
        if backend == "cpu":
            assert ctx.threads >= 1
        else:
            assert ctx.threads == 0
        for prim in PRIMITIVES:
            assert ctx.get_algorithm(prim) == "auto"
            for algo in INFO["backends"][backend]["algorithms"][prim]:
                ctx.set_algorithm(prim, algo)
                assert ctx.get_algorithm(prim) == algo
            ctx.set_algorithm(prim, "auto")


def test_cpu_threads():
    for t in (1, 2, 5):
        with parprim.Context(backend="cpu", threads=t) as ctx:
            assert ctx.threads == t
            a = np.arange(1000, dtype=np.int64)
            assert ctx.reduce(a) == 499500


def test_auto_backend(monkeypatch):
    monkeypatch.delenv("PARPRIM_BACKEND", raising=False)
    with parprim.Context() as ctx:
        assert ctx.backend == parprim.info()["auto"]
        if "cuda" not in BACKENDS:
            # PoCL's CPU device is not taken by AUTO: cpu serves it better
            opencl_dev = str(INFO["backends"]["opencl"].get("device", "")).lower()
            if "opencl" not in BACKENDS or "cpu" in opencl_dev or "pthread" in opencl_dev or "pocl" in opencl_dev:
                assert ctx.backend == "cpu"
    for name in BACKENDS:
        monkeypatch.setenv("PARPRIM_BACKEND", name)
        with parprim.Context() as ctx:
            assert ctx.backend == name


def test_module_functions_use_a_per_thread_context(rng):
    a = make_data(rng, np.uint32, 10007)
    assert parprim.reduce(a, "max") == a.max()
    assert parprim.get_algorithm("scan") == "auto"
    parprim.set_algorithm("scan", "reduce-then-scan")  # every backend has it
    chosen = parprim.get_algorithm("scan")
    assert chosen == "reduce-then-scan"
    seen = {}

    def other():
        seen["algo"] = parprim.get_algorithm("scan")
        seen["sorted"] = parprim.sort(a)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    try:
        assert seen["algo"] == "auto", "another thread's default context saw this thread's set_algorithm"
        assert parprim.get_algorithm("scan") == chosen
        assert_bits(seen["sorted"], np.sort(a))
        assert_bits(parprim.sort(a), np.sort(a))
    finally:
        parprim.set_algorithm("scan", "auto")


@pytest.mark.parametrize("backend", BACKENDS)
def test_contexts_in_threads_at_once(backend, rng):
    """Distinct contexts may be used from different threads at once."""
    if backend == "opencl":
        dev = str(INFO["backends"]["opencl"].get("device", "")).lower()
        if "portable computing language" in dev or "pocl" in dev:
            pytest.skip("PoCL aborts when its contexts run kernels from several threads at once "
                        "(its assertion in pocl_release_dlhandle_cache; docs/backends.md)")
    data = [make_data(rng, np.float32, 200003, "special") for _ in range(3)]
    results = [None] * 3
    errors = []

    def work(i):
        try:
            with parprim.Context(backend=backend) as ctx:
                for _ in range(3):
                    results[i] = (ctx.sort(data[i]), ctx.reduce(data[i], "max"), ctx.scan(data[i], "min"))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    for i, (s, m, sc) in enumerate(results):
        assert_bits(s, data[i][ref_sort_order(data[i])])
        assert np.isnan(m) == np.isnan(data[i]).any()
        check_scan(data[i], "min", False, sc, "scan min in a thread")


def test_context_methods_match_module_functions(rng):
    a = make_data(rng, np.int16, 4099, "dups")
    ctx = context("cpu")
    assert ctx.reduce(a, "xor") == parprim.reduce(a, "xor")
    assert_bits(ctx.scan(a, "max"), parprim.scan(a, "max"))
    assert_bits(ctx.unique(a), parprim.unique(a))
    assert_bits(ctx.argsort(a), parprim.argsort(a))
    assert_bits(ctx.segmented_reduce(a, [0, 7, 4099]), parprim.segmented_reduce(a, [0, 7, 4099]))
    assert_bits(ctx.histogram_even(a, 5, -100, 100), parprim.histogram_even(a, 5, -100, 100))
    k1, v1 = ctx.sort_pairs(a, np.arange(a.size))
    k2, v2 = parprim.sort_pairs(a, np.arange(a.size))
    assert_bits(k1, k2)
    assert_bits(v1, v2)
