"""The ``parprim`` command's commands: one function per primitive command
(COMMANDS, run on an open context) and ``info``. See cli.py.
"""

from __future__ import annotations

import json
import os

import numpy as np

from ._cli_io import CliError, UsageError, describe, load_array, parse_scalar, save_array, show

# subcommand -> the primitive that --algorithm chooses for (pp_set_algorithm)
ALGO_PRIMITIVE = {
    "reduce": "reduce", "scan": "scan",
    "histogram-even": "histogram", "histogram-range": "histogram",
    "select-if": "select", "select-flagged": "select", "unique-consecutive": "select",
    "partition-if": "select",
    "sort": "sort", "sort-pairs": "sort", "argsort": "sort", "unique": "sort",
    "top-k": "sort", "searchsorted": "sort",
}


def _along(args):
    """' along axis N' for the progress line of a command with --axis, where
    the input has more than one dimension."""
    return "" if args.axis is None else f" along axis {args.axis}"


def _cmd_reduce(ctx, args, progress):
    a = load_array(args.input, shaped=True)
    progress.step(f"reduce/{args.op} of {describe(a)}{_along(args)} on {ctx.backend}")
    # NumPy's result type; float sums exact by default
    r = ctx.reduce(a, op=args.op, exact=args.exact or None, axis=args.axis)
    show(r)
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, np.asarray(r))


def _cmd_scan(ctx, args, progress):
    a = load_array(args.input, shaped=True)
    kind = "exclusive" if args.exclusive else "inclusive"
    progress.step(f"{kind} scan/{args.op} of {describe(a)}{_along(args)} on {ctx.backend}")
    r = ctx.scan(a, op=args.op, exclusive=args.exclusive, exact=args.exact, axis=args.axis)
    _finish(r, args, progress)


def _cmd_histogram_even(ctx, args, progress):
    a = load_array(args.input, flat=True)
    lower = parse_scalar(args.range[0], a.dtype, "--range LOWER")
    upper = parse_scalar(args.range[1], a.dtype, "--range UPPER")
    progress.step(f"histogram of {describe(a)} into {args.bins} bins on {ctx.backend}")
    r = ctx.histogram_even(a, args.bins, lower, upper, right_closed=args.right_closed)
    _finish(r, args, progress)


def _load_edges(spec, dtype):
    """--edges: a .npy file, or numbers separated by commas."""
    if not (os.path.exists(spec) or spec.endswith(".npy")):
        vals = [s.strip() for s in spec.split(",") if s.strip()]
        return np.array([parse_scalar(s, dtype, "--edges") for s in vals], dtype=dtype)
    src = load_array(spec, what="edges")
    if src.dtype == dtype:
        return np.ascontiguousarray(src)
    conv = src.astype(dtype)
    if np.dtype(dtype).kind in "iu":
        if src.dtype.kind == "f" and not np.all(np.isfinite(src)):
            raise CliError(f"edges '{spec}': non-finite edges for {dtype} samples")
        back = conv.astype(src.dtype)
        if not np.array_equal(back, src):
            raise CliError(f"edges '{spec}' ({src.dtype}) are not all {dtype} values, "
                           f"the type of the samples")
    return conv


def _cmd_histogram_range(ctx, args, progress):
    a = load_array(args.input, flat=True)
    edges = _load_edges(args.edges, a.dtype)
    progress.step(f"histogram of {describe(a)} into {max(len(edges) - 1, 0)} bins on {ctx.backend}")
    r = ctx.histogram_range(a, edges)
    _finish(r, args, progress)


def _cmd_select_if(ctx, args, progress):
    a = load_array(args.input)
    value = parse_scalar(args.value, a.dtype, "--value")
    progress.step(f"select_if x {args.cmp} {value} on {describe(a)} on {ctx.backend}")
    r = ctx.select_if(a, args.cmp, value)
    _finish(r, args, progress)


def _cmd_select_flagged(ctx, args, progress):
    a = load_array(args.input)
    flags = load_array(args.flags, what="flags", allow_bool=True)
    if flags.size != a.size:
        raise CliError(f"flags '{args.flags}' has {flags.size} elements, input '{args.input}' {a.size}")
    if flags.dtype not in (np.bool_, np.uint8):
        flags = flags != 0
    progress.step(f"select_flagged of {describe(a)} on {ctx.backend}")
    r = ctx.select_flagged(a, flags)
    _finish(r, args, progress)


def _extras(args, flags):
    """The names of the extra outputs a unique command's flags ask for, and
    checks that -o names a file for the values and each of them."""
    names = [n for n in flags if getattr(args, n)]
    if args.output and len(args.output) != 1 + len(names):
        raise UsageError(f"-o takes {1 + len(names)} files (values{''.join(', ' + n for n in names)}), "
                         f"not {len(args.output)}")
    return names


def _finish_all(results, args, progress):
    """Writes the results to the paths of -o (a list), or prints them."""
    if args.output:
        progress.step(f"writing {', '.join(args.output)}")
        for path, x in zip(args.output, results):
            save_array(path, x)
    else:
        for x in results:
            show(x)


def _cmd_unique(ctx, args, progress):
    a = load_array(args.input)
    names = _extras(args, ("index", "inverse", "counts"))
    progress.step(f"unique of {describe(a)} on {ctx.backend}")
    r = ctx.unique(a, return_index=args.index, return_inverse=args.inverse, return_counts=args.counts,
                   equal_nan=not args.nan_apart)
    _finish_all(r if names else (r,), args, progress)


def _cmd_unique_consecutive(ctx, args, progress):
    a = load_array(args.input)
    names = _extras(args, ("inverse", "counts"))
    progress.step(f"unique_consecutive of {describe(a)} on {ctx.backend}")
    r = ctx.unique_consecutive(a, return_inverse=args.inverse, return_counts=args.counts)
    _finish_all(r if names else (r,), args, progress)


def _cmd_argsort(ctx, args, progress):
    a = load_array(args.input, shaped=True)
    order = "descending" if args.descending else "ascending"
    progress.step(f"argsort of {describe(a)}{_along(args)} ({order}) on {ctx.backend}")
    _finish(ctx.argsort(a, descending=args.descending, nan_last=not args.nan_first, axis=args.axis), args,
            progress)


def _cmd_partition_if(ctx, args, progress):
    a = load_array(args.input)
    value = parse_scalar(args.value, a.dtype, "--value")
    progress.step(f"partition_if x {args.cmp} {value} on {describe(a)} on {ctx.backend}")
    r, count = ctx.partition_if(a, args.cmp, value)
    print(int(count))
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, r)
    elif args.print:
        show(r)


def _cmd_sort(ctx, args, progress):
    a = load_array(args.input, shaped=True)
    order = "descending" if args.descending else "ascending"
    progress.step(f"sorting {describe(a)}{_along(args)} ({order}) on {ctx.backend}")
    r = ctx.sort(a, descending=args.descending, nan_last=not args.nan_first, axis=args.axis)
    _finish(r, args, progress)


def _cmd_sort_pairs(ctx, args, progress):
    keys = load_array(args.keys, what="keys")
    values = load_array(args.values, what="values")
    if keys.size != values.size:
        raise CliError(f"keys '{args.keys}' has {keys.size} elements, values '{args.values}' "
                       f"{values.size}")
    order = "descending" if args.descending else "ascending"
    progress.step(f"sorting {describe(keys)} with {values.dtype} values ({order}) on {ctx.backend}")
    _finish_all(ctx.sort_pairs(keys, values, descending=args.descending, nan_last=not args.nan_first), args,
                progress)


def _cmd_top_k(ctx, args, progress):
    a = load_array(args.input, shaped=True)
    which = "smallest" if args.smallest else "largest"
    progress.step(f"top-{args.k} ({which}) of {describe(a)}{_along(args)} on {ctx.backend}")
    _finish_all(ctx.top_k(a, args.k, largest=not args.smallest, nan_last=args.nan_last, axis=args.axis), args,
                progress)


def _cmd_searchsorted(ctx, args, progress):
    a = load_array(args.sorted, what="sorted", flat=True)
    v = load_array(args.queries, what="queries", flat=True)
    progress.step(f"searching {describe(v)} in {describe(a)} (side {args.side}) on {ctx.backend}")
    r = ctx.searchsorted(a, v, side=args.side, descending=args.descending, nan_last=not args.nan_first)
    _finish(r, args, progress)


def _finish(result, args, progress):
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, result)
    else:
        show(result)


COMMANDS = {
    "reduce": _cmd_reduce, "scan": _cmd_scan,
    "histogram-even": _cmd_histogram_even, "histogram-range": _cmd_histogram_range,
    "select-if": _cmd_select_if, "select-flagged": _cmd_select_flagged,
    "unique": _cmd_unique, "unique-consecutive": _cmd_unique_consecutive, "partition-if": _cmd_partition_if,
    "sort": _cmd_sort, "sort-pairs": _cmd_sort_pairs, "argsort": _cmd_argsort,
    "top-k": _cmd_top_k, "searchsorted": _cmd_searchsorted,
}


# ---- info --------------------------------------------------------------------

def _bytes(x):
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return str(x)
    for unit, size in (("TiB", 2 ** 40), ("GiB", 2 ** 30), ("MiB", 2 ** 20), ("KiB", 2 ** 10)):
        if x >= size:
            return f"{x / size:.1f} {unit}"
    return f"{int(x)} B"


def _memory_text(mem):
    if mem is None:
        return None
    if isinstance(mem, dict):
        parts = []
        for k, v in mem.items():
            name = k[:-6] if k.endswith("_bytes") else k
            name = {"max_alloc": "largest allocation", "available": "available"}.get(name, name)
            if v is None or v == 0 and name == "available":
                continue
            parts.append(f"{name} {_bytes(v)}")
        return ", ".join(parts) or None
    return _bytes(mem)


def format_info(info):
    """info() as text: one block per backend."""
    lines = [f"parprim {info.get('version', '?')}"]
    auto = info.get("auto")
    if auto:
        lines[0] += f"; backend 'auto' runs on {auto}"
    backends = info.get("backends") or {}
    width = max((len(b) for b in backends), default=6)
    for name, b in backends.items():
        b = b or {}
        built, present = b.get("built"), b.get("present")
        if not built:
            lines.append(f"{name:<{width}}  not built")
            continue
        if not present:
            why = f" ({b['status']})" if b.get("status") else ""
            lines.append(f"{name:<{width}}  built, no usable device{why}")
            continue
        lines.append(f"{name:<{width}}  {b.get('device') or 'present'}")
        pad = " " * (width + 2)
        if b.get("error"):
            lines.append(f"{pad}error: {b['error']}")
        threads = b.get("threads")
        if threads:
            lines.append(f"{pad}threads: {threads}")
        mem = _memory_text(b.get("memory"))
        if mem:
            lines.append(f"{pad}memory: {mem}")
        algos = b.get("algorithms") or {}
        if algos:
            lines.append(f"{pad}algorithms (--algorithm):")
            pw = max(len(p) for p in algos)
            for prim, names in algos.items():
                text = ", ".join(names) if isinstance(names, (list, tuple)) else str(names)
                lines.append(f"{pad}  {prim:<{pw}}  {text}")
    return "\n".join(lines)


def cmd_info(args):
    """parprim info [--json]."""
    from . import info as parprim_info

    info = parprim_info()
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        print(format_info(info))
