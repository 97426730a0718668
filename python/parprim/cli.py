"""The ``parprim`` command: parprim's primitives on .npy files.

    parprim sort keys.npy -o sorted.npy --backend cuda
    parprim argsort keys.npy -o order.npy
    parprim unique x.npy --counts -o values.npy counts.npy
    parprim histogram-even x.npy --bins 1024 --range 0 1 -o counts.npy
    parprim reduce x.npy --op max
    parprim top-k x.npy -k 10 -o values.npy indices.npy
    parprim searchsorted sorted.npy queries.npy --side right -o idx.npy
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

This file holds the parser, main and the error handling; the commands are
in _cli_commands.py, the .npy files and option values in _cli_io.py.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from . import __version__
from ._cli_commands import ALGO_PRIMITIVE, COMMANDS, cmd_info
from ._cli_io import CliError, UsageError
from ._context import BACKENDS, CMPS, OPS, Context
from ._parprim import Error
from .plot import PlotError, Progress

PROG = "parprim"


def _err(message):
    print(f"{PROG}: error: {message}", file=sys.stderr)


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


def _axis(text):
    """--axis: an integer (negative from the end) or 'none'."""
    if text.lower() == "none":
        return None
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer or 'none'") from None


def _axis_option(s, default, what):
    s.add_argument("--axis", type=_axis, default=default, metavar="AXIS",
                   help=f"the axis of an N-D input (negative: from the end; 'none': all elements in C order); "
                        f"default {'none' if default is None else default}: {what}")


def build_parser():
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Data-parallel primitives (reduce, scan, histograms, compaction, radix sort, argsort, "
                    "unique, top-k, searchsorted) "
                    "on .npy files, on the cpu (OpenMP), cuda or opencl backend.",
        epilog="Exit status: 0 success, 1 the operation failed (message on stderr), 2 usage error. "
               "'parprim COMMAND --help' for a command's options.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")

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
        helps = {"input": "input array (.npy)", "keys": "keys (.npy)", "values": "values (.npy), one per key",
                 "sorted": "sorted array (.npy)", "queries": "values to search for (.npy)"}
        for i in inputs:
            s.add_argument(i, metavar=f"{i}.npy" if i != "input" else "x.npy", help=helps[i])
        return s

    s = add("reduce", "reduce an array to one value (printed), or along --axis (np.sum's axis)")
    s.add_argument("--op", choices=OPS, default="sum", help="operator (default sum)")
    _axis_option(s, None, "all elements")
    s.add_argument("--exact", action="store_true", help="float sums correctly rounded (the exact algorithm)")
    s.add_argument("-o", "--output", metavar="OUT.npy",
                   help="also write the value as a 0-d .npy (along --axis: the array)")

    s = add("scan", "inclusive (default) or exclusive prefix scan")
    s.add_argument("--op", choices=OPS, default="sum", help="operator (default sum)")
    _axis_option(s, None, "all elements in C order, as np.cumsum")
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

    s = add("unique", "np.unique: the sorted distinct values (one NaN for all NaNs), and with --index, "
                      "--inverse, --counts the int64 arrays np.unique returns for them")
    s.add_argument("--index", action="store_true", help="also the index of each value's first occurrence")
    s.add_argument("--inverse", action="store_true", help="also the inverse: values[inverse] == input")
    s.add_argument("--counts", action="store_true", help="also the number of times each value occurs")
    s.add_argument("--nan-apart", action="store_true", help="each NaN a value of its own (equal_nan=False)")
    s.add_argument("-o", "--output", nargs="+", metavar="OUT.npy",
                   help="output files: the values, then index, inverse, counts as asked for, in that order "
                        "(default: print them)")

    s = add("unique-consecutive", "torch.unique_consecutive: the first element of each run of equal "
                                  "neighbours, in input order (what 'unique' did before it followed np.unique), "
                                  "and with --inverse, --counts the int64 arrays it returns for them")
    s.add_argument("--inverse", action="store_true", help="also the run of each element: values[inverse] == input")
    s.add_argument("--counts", action="store_true", help="also the length of each run")
    s.add_argument("-o", "--output", nargs="+", metavar="OUT.npy",
                   help="output files: the values, then inverse, counts as asked for, in that order "
                        "(default: print them)")

    s = add("argsort", "the stable sort's permutation as int64 indices (np.argsort(kind='stable'))")
    _axis_option(s, -1, "the last axis, as np.argsort")
    s.add_argument("--descending", action="store_true", help="descending order")
    s.add_argument("--nan-first", action="store_true",
                   help="with --descending, float keys: NaNs first (default: last)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

    s = add("partition-if", "elements with 'x CMP VALUE' first, then the rest; prints the count")
    s.add_argument("--cmp", choices=CMPS, required=True, help="comparison (quote it in the shell)")
    s.add_argument("--value", required=True, help="value, in the type of the input")
    s.add_argument("-o", "--output", metavar="OUT.npy", help="output .npy file")
    s.add_argument("--print", action="store_true", help="without -o: also print the array")

    for name, text in (("sort", "stable radix sort of keys"),
                       ("sort-pairs", "stable radix sort of keys, moving values with them")):
        s = add(name, text, inputs=("input",) if name == "sort" else ("keys", "values"))
        if name == "sort":
            _axis_option(s, -1, "the last axis, as np.sort")
        s.add_argument("--descending", action="store_true", help="descending order")
        s.add_argument("--nan-first", action="store_true",
                       help="with --descending, float keys: NaNs first, the reverse of the ascending "
                            "order (nan_last=False; default: last; ascending sorts put NaNs last)")
        if name == "sort":
            s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)
        else:
            s.add_argument("-o", "--output", nargs=2, metavar=("KEYS.npy", "VALUES.npy"),
                           help="output files (default: print both)")

    s = add("top-k", "the K largest (or smallest) elements, sorted, and their int64 indices (torch.topk; "
                     "ties by index)")
    s.add_argument("-k", type=_nonneg_int, required=True, metavar="K",
                   help="how many (more than the input holds: all of them)")
    _axis_option(s, -1, "the last axis, as torch.topk")
    s.add_argument("--smallest", action="store_true", help="the K smallest (default: largest)")
    s.add_argument("--nan-last", action="store_true",
                   help="float input: NaNs count as the smallest when taking the largest (default: the "
                        "largest, as torch.topk)")
    s.add_argument("-o", "--output", nargs=2, metavar=("VALUES.npy", "INDICES.npy"),
                   help="output files (default: print both)")

    s = add("searchsorted", "np.searchsorted: for each query, the int64 index at which inserting it keeps the "
                            "sorted array sorted", inputs=("sorted", "queries"))
    s.add_argument("--side", choices=("left", "right"), default="left",
                   help="left (default): the first such index; right: the last")
    s.add_argument("--descending", action="store_true",
                   help="the array is sorted descending ('parprim sort --descending')")
    s.add_argument("--nan-first", action="store_true",
                   help="with --descending, float keys: the array has its NaNs first (default: last)")
    s.add_argument("-o", "--output", metavar="OUT.npy", help=out_help)

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
    progress = Progress(PROG, enabled=not args.quiet)
    t0 = time.monotonic()
    try:
        progress.step(f"opening the {args.backend} backend")
        with Context(backend=args.backend, device=args.device, threads=args.threads) as ctx:
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
            cmd_info(args)
        else:
            _run_primitive(args)
    except UsageError as e:
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
    return isinstance(e, (Error, CliError, PlotError, MemoryError, OSError, ValueError, TypeError))


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
