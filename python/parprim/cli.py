"""The ``parprim`` command: parprim's primitives on .npy files.

    parprim sort keys.npy -o sorted.npy --backend cuda
    parprim histogram-even x.npy --bins 1024 --range 0 1 -o counts.npy
    parprim reduce x.npy --op max
    parprim info
    parprim plot results.json -o plot.png

Run ``parprim --help`` or ``parprim COMMAND --help`` for the options.

Inputs are .npy files (NumPy's np.save), opened memory-mapped (np.load
mmap_mode="r"), so that a large file is paged in as the primitive reads it
instead of being copied first. Outputs are written as .npy to exactly the path
given (through a temporary file beside it, so that an output may replace an
input). Without -o, a command prints its result (long arrays abbreviated).
A command that runs for over a second names its steps on stderr and its
total time at the end (-q: not).

Exit status: 0 on success; 2 for a usage error (a bad option, or a value that
does not fit the input's type, such as --value 300 for int8 data); 1 when the
work fails: an error of the library
(parprim.Error, its message on stderr), an input that cannot be read or does
not fit the command, an output that cannot be written. No traceback is shown
for any of these; set PARPRIM_TRACEBACK=1 to see one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time

from .plot import PlotError, Progress

PROG = "parprim"
BACKENDS = ("auto", "cpu", "cuda", "opencl")
OPS = ("sum", "prod", "min", "max", "and", "or", "xor")
CMPS = ("<", "<=", ">", ">=", "==", "!=")
# The element types parprim takes, as NumPy dtype names.
DTYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
          "float32", "float64")
# Above this many elements the printed result is abbreviated by NumPy.
PRINT_THRESHOLD = 1000


class CliError(Exception):
    """A failure that ends the command with exit status 1 and a message."""


# ---- small helpers -----------------------------------------------------------

def _np():
    import numpy as np
    return np


def _err(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)


def _describe(a):
    return f"{a.size} {a.dtype} element{'s' if a.size != 1 else ''}"


def load_array(path, what="input", flat=False, allow_bool=False):
    """Opens a .npy file memory-mapped and checks that parprim can take it.

    Returns a native-byte-order ndarray (a read-only memmap where the file
    allows it). flat: any shape is taken as its elements in C order;
    otherwise the array must be one-dimensional.
    """
    np = _np()
    try:
        try:
            a = np.load(path, mmap_mode="r", allow_pickle=False)
        except ValueError:
            # files that cannot be mapped (e.g. empty arrays on some
            # platforms) are read instead; anything else fails the same way
            a = np.load(path, allow_pickle=False)
    except OSError as e:
        raise CliError(f"cannot read {what} '{path}': {e.strerror or e}") from None
    except ValueError as e:
        msg = str(e)
        if "pickle" in msg:
            msg = "not a .npy file"
        raise CliError(f"cannot read {what} '{path}': {msg}") from None
    if not isinstance(a, np.ndarray):  # an .npz archive
        if hasattr(a, "close"):
            a.close()
        raise CliError(f"{what} '{path}' is an .npz archive; give one array as a .npy file")
    if a.dtype.name not in DTYPES and not (allow_bool and a.dtype == np.bool_):
        raise CliError(f"{what} '{path}' holds {a.dtype} elements; parprim takes "
                       f"{', '.join(DTYPES)}")
    if a.ndim != 1:
        if not flat:
            raise CliError(f"{what} '{path}' has shape {a.shape}; this command takes a "
                           f"one-dimensional array")
        a = a.reshape(-1)  # a copy only where the file is in Fortran order
    if not a.dtype.isnative:
        a = a.astype(a.dtype.newbyteorder("="))
    return a


def save_array(path, a):
    """Writes a as .npy to exactly path, replacing it atomically."""
    np = _np()
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".parprim-", suffix=".npy", dir=directory)
    except OSError as e:
        raise CliError(f"cannot write '{path}': {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            np.save(f, np.asarray(a), allow_pickle=False)
        mode = 0o666 & ~_umask()
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise CliError(f"cannot write '{path}': {e.strerror or e}") from None


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def parse_scalar(text, dtype, option):
    """The value of an option as a scalar of the array's dtype; a usage
    error (exit 2) where it is no number or does not fit the type."""
    np = _np()
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        try:
            v = int(text, 0)
        except ValueError:
            try:
                f = float(text)
            except ValueError:
                raise _UsageError(f"{option}: '{text}' is not a number") from None
            if not f.is_integer():
                raise _UsageError(f"{option}: '{text}' is not an integer, and the input holds "
                                  f"{dtype} elements") from None
            v = int(f)
        info = np.iinfo(dtype)
        if not info.min <= v <= info.max:
            hint = ""
            if option == "--range UPPER" and v == info.max + 1:
                hint = f"; to count up to {info.max}, use UPPER {info.max} with --right-closed"
            raise _UsageError(f"{option}: {text} does not fit {dtype} "
                              f"([{info.min}, {info.max}]){hint}")
        return dtype.type(v)
    try:
        return dtype.type(float(text))
    except ValueError:
        raise _UsageError(f"{option}: '{text}' is not a number") from None


class _UsageError(Exception):
    """An option value that does not fit the input: exit status 2."""


def _show(result, dtype=None):
    """Prints an array or a scalar to stdout."""
    np = _np()
    a = np.asarray(result)
    if a.ndim == 0:
        if dtype is not None:
            a = a.astype(dtype)
        print(a[()])
        return
    with np.printoptions(threshold=PRINT_THRESHOLD):
        print(a)


# ---- the commands ------------------------------------------------------------

# subcommand -> the primitive that --algorithm chooses for (pp_set_algorithm)
ALGO_PRIMITIVE = {
    "reduce": "reduce", "scan": "scan",
    "histogram-even": "histogram", "histogram-range": "histogram",
    "select-if": "select", "select-flagged": "select", "unique": "select",
    "partition-if": "select",
    "sort": "sort", "sort-pairs": "sort",
}


def _cmd_reduce(ctx, args, progress):
    a = load_array(args.input, flat=True)
    progress.step(f"reduce/{args.op} of {_describe(a)} on {ctx.backend}")
    r = ctx.reduce(a, op=args.op, exact=args.exact)
    _show(r, a.dtype)
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, _np().asarray(r, dtype=a.dtype))


def _cmd_scan(ctx, args, progress):
    a = load_array(args.input)
    kind = "exclusive" if args.exclusive else "inclusive"
    progress.step(f"{kind} scan/{args.op} of {_describe(a)} on {ctx.backend}")
    r = ctx.scan(a, op=args.op, exclusive=args.exclusive, exact=args.exact)
    _finish(r, args, progress)


def _cmd_histogram_even(ctx, args, progress):
    a = load_array(args.input, flat=True)
    lower = parse_scalar(args.range[0], a.dtype, "--range LOWER")
    upper = parse_scalar(args.range[1], a.dtype, "--range UPPER")
    progress.step(f"histogram of {_describe(a)} into {args.bins} bins on {ctx.backend}")
    r = ctx.histogram_even(a, args.bins, lower, upper, right_closed=args.right_closed)
    _finish(r, args, progress)


def _load_edges(spec, dtype):
    """--edges: a .npy file, or numbers separated by commas."""
    np = _np()
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
    progress.step(f"histogram of {_describe(a)} into {max(len(edges) - 1, 0)} bins on {ctx.backend}")
    r = ctx.histogram_range(a, edges)
    _finish(r, args, progress)


def _cmd_select_if(ctx, args, progress):
    a = load_array(args.input)
    value = parse_scalar(args.value, a.dtype, "--value")
    progress.step(f"select_if x {args.cmp} {value} on {_describe(a)} on {ctx.backend}")
    r = ctx.select_if(a, args.cmp, value)
    _finish(r, args, progress)


def _cmd_select_flagged(ctx, args, progress):
    np = _np()
    a = load_array(args.input)
    flags = load_array(args.flags, what="flags", allow_bool=True)
    if flags.size != a.size:
        raise CliError(f"flags '{args.flags}' has {flags.size} elements, input '{args.input}' {a.size}")
    if flags.dtype not in (np.bool_, np.uint8):
        flags = flags != 0
    progress.step(f"select_flagged of {_describe(a)} on {ctx.backend}")
    r = ctx.select_flagged(a, flags)
    _finish(r, args, progress)


def _cmd_unique(ctx, args, progress):
    a = load_array(args.input)
    progress.step(f"unique{' (sorted)' if args.sort else ''} of {_describe(a)} on {ctx.backend}")
    r = ctx.unique(a, sort=args.sort)
    _finish(r, args, progress)


def _cmd_partition_if(ctx, args, progress):
    a = load_array(args.input)
    value = parse_scalar(args.value, a.dtype, "--value")
    progress.step(f"partition_if x {args.cmp} {value} on {_describe(a)} on {ctx.backend}")
    r, count = ctx.partition_if(a, args.cmp, value)
    print(int(count))
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, r)
    elif args.print:
        _show(r)


def _cmd_sort(ctx, args, progress):
    a = load_array(args.input)
    order = "descending" if args.descending else "ascending"
    progress.step(f"sorting {_describe(a)} ({order}) on {ctx.backend}")
    r = ctx.sort(a, descending=args.descending, nan_last=not args.nan_first)
    _finish(r, args, progress)


def _cmd_sort_pairs(ctx, args, progress):
    keys = load_array(args.keys, what="keys")
    values = load_array(args.values, what="values")
    if keys.size != values.size:
        raise CliError(f"keys '{args.keys}' has {keys.size} elements, values '{args.values}' "
                       f"{values.size}")
    order = "descending" if args.descending else "ascending"
    progress.step(f"sorting {_describe(keys)} with {values.dtype} values ({order}) on {ctx.backend}")
    k, v = ctx.sort_pairs(keys, values, descending=args.descending, nan_last=not args.nan_first)
    if args.output:
        progress.step(f"writing {args.output[0]} and {args.output[1]}")
        save_array(args.output[0], k)
        save_array(args.output[1], v)
    else:
        _show(k)
        _show(v)


def _finish(result, args, progress):
    if args.output:
        progress.step(f"writing {args.output}")
        save_array(args.output, result)
    else:
        _show(result)


COMMANDS = {
    "reduce": _cmd_reduce, "scan": _cmd_scan,
    "histogram-even": _cmd_histogram_even, "histogram-range": _cmd_histogram_range,
    "select-if": _cmd_select_if, "select-flagged": _cmd_select_flagged,
    "unique": _cmd_unique, "partition-if": _cmd_partition_if,
    "sort": _cmd_sort, "sort-pairs": _cmd_sort_pairs,
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


def _yes(x):
    return "yes" if x else "no"


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


def _cmd_info(args):
    import parprim
    info = parprim.info() if hasattr(parprim, "info") else parprim.Context().info()
    if args.json:
        print(json.dumps(info, indent=2, default=str))
    else:
        print(format_info(info))


# ---- the parser ----------------------------------------------------------------

def _positive_int(text):
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if v <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {v}")
    return v


def _nonneg_int(text):
    try:
        v = int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {v}")
    return v


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Data-parallel primitives (reduce, scan, histograms, compaction, radix sort) "
                    "on .npy files, on the cpu (OpenMP), cuda or opencl backend.",
        epilog="Exit status: 0 success, 1 the operation failed (message on stderr), 2 usage error. "
               "'parprim COMMAND --help' for a command's options.")
    try:
        from . import __version__ as version
    except ImportError:
        version = None
    if version:
        p.add_argument("--version", action="version", version=f"{PROG} {version}")

    common = argparse.ArgumentParser(add_help=False)
    g = common.add_argument_group("context")
    g.add_argument("--backend", choices=BACKENDS, default="auto",
                   help="backend (default auto: PARPRIM_BACKEND if set, else cuda, an OpenCL GPU, cpu)")
    g.add_argument("--device", type=_nonneg_int, default=0, metavar="D",
                   help="GPU index on cuda and opencl (default 0)")
    g.add_argument("--threads", type=_nonneg_int, default=0, metavar="T",
                   help="cpu worker threads (default 0: all cores)")
    g.add_argument("--algorithm", metavar="NAME",
                   help="the algorithm of the primitive (default auto; 'parprim info' lists them)")
    g.add_argument("-v", "--verbose", action="store_true",
                   help="print the backend, device and time on stderr")
    g.add_argument("-q", "--quiet", action="store_true",
                   help="no progress lines on stderr for long operations")

    out_help = "output .npy file (default: print the result)"
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def add(name, help_text, inputs=("input",)):
        s = sub.add_parser(name, parents=[common], help=help_text, description=help_text)
        helps = {"input": "input array (.npy)", "keys": "keys (.npy)", "values": "values (.npy), one per key"}
        for i in inputs:
            s.add_argument(i, metavar=f"{i}.npy" if i != "input" else "x.npy", help=helps[i])
        return s

    s = add("reduce", "reduce an array to one value (printed)")
    s.add_argument("--op", choices=OPS, default="sum", help="operator (default sum)")
    s.add_argument("--exact", action="store_true", help="float sums correctly rounded (the exact algorithm)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help="also write the value as a 0-d .npy")

    s = add("scan", "inclusive (default) or exclusive prefix scan")
    s.add_argument("--op", choices=OPS, default="sum", help="operator (default sum)")
    s.add_argument("--exclusive", action="store_true", help="exclusive scan (out[0] = identity)")
    s.add_argument("--exact", action="store_true", help="float sums correctly rounded (the exact algorithm)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("histogram-even", "histogram of equal bins over [LOWER, UPPER) (uint64 counts)")
    s.add_argument("--bins", type=_positive_int, required=True, help="number of bins")
    s.add_argument("--range", nargs=2, required=True, metavar=("LOWER", "UPPER"),
                   help="bounds, in the type of the samples")
    s.add_argument("--right-closed", action="store_true",
                   help="count samples equal to UPPER in the last bin")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("histogram-range", "histogram with explicit edges: bin i counts edges[i] <= x < edges[i+1]")
    s.add_argument("--edges", required=True, metavar="EDGES",
                   help="a .npy file of nbins+1 increasing edges, or numbers separated by commas")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("select-if", "the elements x with 'x CMP VALUE', in input order")
    s.add_argument("--cmp", choices=CMPS, required=True, help="comparison (quote it in the shell)")
    s.add_argument("--value", required=True, help="value, in the type of the input")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("select-flagged", "the elements whose flag is nonzero, in input order")
    s.add_argument("--flags", required=True, metavar="FLAGS.npy",
                   help="flags, one per element (bool, uint8, or any type: nonzero selects)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("unique", "the first element of each run of equal neighbours")
    s.add_argument("--sort", action="store_true", help="sort first (all distinct values, ascending)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("partition-if", "elements with 'x CMP VALUE' first, then the rest; prints the count")
    s.add_argument("--cmp", choices=CMPS, required=True, help="comparison (quote it in the shell)")
    s.add_argument("--value", required=True, help="value, in the type of the input")
    s.add_argument("-o", "--output", metavar="OUT.npy", help="output .npy file")
    s.add_argument("--print", action="store_true", help="without -o: also print the array")

    for name, text in (("sort", "stable radix sort of keys"),
                       ("sort-pairs", "stable radix sort of keys, moving values with them")):
        s = add(name, text, inputs=("input",) if name == "sort" else ("keys", "values"))
        s.add_argument("--descending", action="store_true", help="descending order")
        s.add_argument("--nan-first", action="store_true",
                       help="with --descending, float keys: NaNs first, the reverse of the ascending "
                            "order (nan_last=False; default: last; ascending sorts put NaNs last)")
        if name == "sort":
            s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)
        else:
            s.add_argument("-o", "--output", nargs=2, metavar=("KEYS.npy", "VALUES.npy"),
                           help="output files (default: print both)")

    s = sub.add_parser("info", help="backends built and present, devices, algorithms",
                       description="backends built and present, devices, threads, memory, algorithms")
    s.add_argument("--json", action="store_true", help="print info() as JSON")

    from . import plot as _plot
    s = sub.add_parser("plot", help="draw pp bench --json results (matplotlib)",
                       description="Draws pp bench --json results: throughput against n per backend, "
                                   "or the algorithms of a primitive side by side, with the copy "
                                   "line; one subplot per primitive.")
    _plot.add_arguments(s)
    s.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")
    return p


# ---- main ----------------------------------------------------------------------

def _run_primitive(args):
    import parprim
    progress = Progress(PROG, enabled=not args.quiet)
    t0 = time.monotonic()
    try:
        progress.step(f"opening the {args.backend} backend")
        with parprim.Context(backend=args.backend, device=args.device, threads=args.threads) as ctx:
            if args.verbose:
                print(f"{PROG}: backend {ctx.backend}: {ctx.device_name}", file=sys.stderr)
            if args.algorithm:
                ctx.set_algorithm(ALGO_PRIMITIVE[args.command], args.algorithm)
            COMMANDS[args.command](ctx, args, progress)
    finally:
        progress.close()
    if args.verbose:
        print(f"{PROG}: {args.command} took {time.monotonic() - t0:.3f} s", file=sys.stderr)


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if not args.command:
        parser.print_help(sys.stderr)
        return 2
    if getattr(args, "nan_first", False) and not args.descending:
        parser.exit(2, f"{PROG} {args.command}: error: --nan-first needs --descending "
                       f"(ascending sorts put NaNs last)\n")
    try:
        if args.command == "plot":
            from . import plot as _plot
            _plot.run(args, prog=f"{PROG} plot", quiet=args.quiet)
        elif args.command == "info":
            _cmd_info(args)
        else:
            _run_primitive(args)
    except _UsageError as e:
        parser.exit(2, f"{PROG} {args.command}: error: {e}\n")
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # the reader of stdout went away (parprim ... | head): not an error;
        # stdout goes to /dev/null so that Python's final flush is quiet
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as e:  # noqa: BLE001 - every failure becomes a message
        if os.environ.get("PARPRIM_TRACEBACK"):
            raise
        if not _is_user_error(e):
            raise
        _err(_message(e))
        return 1
    return 0


def _is_user_error(e):
    """Failures that are the input's or the machine's, not a bug: shown as
    a message. Anything else keeps its traceback."""
    try:
        import parprim
        base = getattr(parprim, "Error", None)
    except ImportError:
        base = None
    if base is not None and isinstance(e, base):
        return True
    return isinstance(e, (CliError, PlotError, MemoryError, OSError, ValueError, TypeError))


def _message(e):
    if isinstance(e, MemoryError):
        return "out of host memory" + (f": {e}" if str(e) else "")
    if isinstance(e, OSError) and e.filename:
        return f"'{e.filename}': {e.strerror or e}"
    text = str(e) or type(e).__name__
    name = type(e).__name__
    if name in ("InvalidArgument", "Unsupported", "OutOfMemory", "BackendUnavailable", "BackendError"):
        # e.g. "Unsupported: pp_set_algorithm: ..." tells which kind of failure
        return f"{text}" if text.lower().startswith(name.lower()) else f"{name}: {text}"
    return text


if __name__ == "__main__":
    sys.exit(main())
