"""Plots of `pp bench --json` results (``parprim plot``).

A results file is what tools/pp/report.c writes::

    {"header": {"version", "backend", "device", "threads", "date", "seed",
                "repeat", "budget_s", "byte_model", "ops_model"},
     "rows": [{"primitive", "op", "type", "n", "backend", "algorithm",
               "data", "bins", "ops", "status", "median_ms", "min_ms",
               "repeats", "bytes", "gbps", "copy_ms", "copy_fraction",
               "loaded_ms", "loaded_over_idle", "ratio_to_auto",
               "message"}, ...]}

One figure, one subplot per primitive (row "primitive": reduce,
scan_inclusive, ..., sort_pairs). The y axis is the throughput: GB/s of the
bytes the primitive must move (the file's byte model), or keys per second
for sort_keys and sort_pairs; or, with metric "ms", the median time.

* Rows at several n: one line per backend (and per algorithm, type,
  operator or data set where the files hold several) against n on a log2
  axis, with a dashed "copy" line per backend: a device-to-device copy of
  the same bytes, timed in the same run (bytes / copy_ms).
* Rows at one n (``pp bench --algorithm all``): the algorithms side by side
  as bars, the default ("auto") darker, each bar labelled with its value,
  and the copy's throughput as a dashed line. Where the rows also differ in
  data set (the histogram experiment), backend or type, the bars are grouped
  by that and coloured by algorithm. Rows that did not run ("unsupported",
  "skipped") are named on the axis without a bar.

This module needs only the standard library and matplotlib (not the compiled
binding), so it also runs as a script::

    python python/parprim/plot.py results.json -o plot.png
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import textwrap
import threading
import time

__all__ = ["PlotError", "Progress", "load_results", "plot_results", "plot_files",
           "add_arguments", "run", "main"]

SORTS = ("sort_keys", "sort_pairs")
GROUPS = {
    "scan": ("scan_inclusive", "scan_exclusive"),
    "histogram": ("histogram_even", "histogram_range"),
    "select": ("select_if", "select_flagged", "unique", "partition_if"),
    "sort": SORTS,
}
# The order pp bench runs the primitives in; others go after, in file order.
ORDER = ("reduce", "scan_inclusive", "scan_exclusive", "histogram_even", "histogram_range",
         "select_if", "select_flagged", "unique", "partition_if", "sort_keys", "sort_pairs")
METRICS = ("gbps", "ms")


class PlotError(Exception):
    """A results file that cannot be read or plotted, or a bad option."""


class Progress:
    """Tells on stderr what a long operation is doing.

    Silent for the first `delay` seconds; after that it prints the current
    step (from a timer thread, or at the next step if the thread could not
    run), every later step, and at close() the total time. An operation
    that finishes within `delay` prints nothing.
    """

    def __init__(self, prog, delay=1.0, enabled=True, stream=None):
        self.prog = prog
        self.delay = delay
        self.enabled = enabled
        self.stream = stream
        self.t0 = time.monotonic()
        self.current = None
        self.shown = False
        self._lock = threading.Lock()
        self._timer = None
        if enabled:
            self._timer = threading.Timer(delay, self._fire)
            self._timer.daemon = True
            self._timer.start()

    def _print(self, text):
        stream = self.stream or sys.stderr
        print(f"{self.prog}: {text}", file=stream, flush=True)

    def _fire(self):
        with self._lock:
            if self.enabled and not self.shown and self.current:
                self.shown = True
                self._print(f"{self.current} ...")

    def step(self, text):
        """Starts a step, e.g. "sorting 268435456 u32 keys on cuda"."""
        with self._lock:
            previous, self.current = self.current, text
            if not self.enabled:
                return
            if not self.shown and time.monotonic() - self.t0 > self.delay:
                # the timer could not run (a call that held the GIL): name
                # the step that took the time, then go on
                self.shown = True
                if previous:
                    self._print(f"{previous} ...")
            if self.shown:
                self._print(f"{text} ...")

    def close(self):
        if self._timer:
            self._timer.cancel()
        with self._lock:
            elapsed = time.monotonic() - self.t0
            if self.enabled and (self.shown or elapsed > self.delay):
                self._print(f"done in {elapsed:.1f} s")
            self.enabled = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


# ---- reading -----------------------------------------------------------------

def _number(x):
    """A positive finite float, or None (pp bench writes null for none)."""
    if isinstance(x, bool) or not isinstance(x, (int, float)):
        return None
    x = float(x)
    return x if math.isfinite(x) and x >= 0 else None


def load_results(paths, progress=None):
    """Reads pp bench --json files; returns (rows, headers).

    Each row is the file's dict with "_device", "_date" and "_file" added
    from its file. Raises PlotError naming the file for anything unreadable.
    """
    rows, headers = [], []
    for i, path in enumerate(paths):
        if progress and len(paths) > 1:
            progress.step(f"reading {i + 1}/{len(paths)}: {path}")
        try:
            with open(path, encoding="utf-8") as f:
                doc = json.load(f)
        except OSError as e:
            raise PlotError(f"cannot read '{path}': {e.strerror or e}") from None
        except (ValueError, UnicodeDecodeError) as e:
            raise PlotError(f"'{path}' is not JSON: {e}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("rows"), list):
            raise PlotError(f"'{path}' is not a pp bench --json file (no \"rows\" list)")
        header = doc.get("header") if isinstance(doc.get("header"), dict) else {}
        headers.append(header)
        for j, r in enumerate(doc["rows"]):
            if not isinstance(r, dict) or not isinstance(r.get("primitive"), str) \
                    or not isinstance(r.get("n"), int):
                raise PlotError(f"'{path}': row {j} has no primitive or n")
            r = dict(r)
            r.setdefault("backend", header.get("backend"))
            r["_device"] = header.get("device")
            r["_date"] = header.get("date")
            r["_file"] = path
            rows.append(r)
    return rows, headers


def _select_primitives(rows, spec):
    present = []
    for r in rows:
        if r["primitive"] not in present:
            present.append(r["primitive"])
    if not spec:
        wanted = present
    else:
        wanted = []
        for name in (s.strip() for s in spec.split(",")):
            if not name:
                continue
            names = GROUPS.get(name, (name,))
            hit = [p for p in names if p in present]
            if not hit:
                raise PlotError(f"no rows of primitive '{name}' (the files hold: {', '.join(present)})")
            wanted += [p for p in hit if p not in wanted]
    rank = {p: i for i, p in enumerate(ORDER)}
    return sorted(wanted, key=lambda p: (rank.get(p, len(ORDER)), present.index(p)))


# ---- values ------------------------------------------------------------------

def _value(r, metric):
    """(value, copy value) of a row in the metric; None where missing."""
    ms, copy_ms = _number(r.get("median_ms")), _number(r.get("copy_ms"))
    if r.get("status") != "ok" or not ms:
        return None, None
    if metric == "ms":
        return ms, copy_ms
    if r["primitive"] in SORTS:
        # keys per second; the copy as the keys per second a sort moving
        # its bytes at the copy's speed would reach
        n = r["n"]
        return n / (ms * 1e-3), (n / (copy_ms * 1e-3) if copy_ms else None)
    gbps = _number(r.get("gbps"))
    nbytes = _number(r.get("bytes"))
    if gbps is None and nbytes:
        gbps = nbytes / (ms * 1e6)
    copy = nbytes / (copy_ms * 1e6) if nbytes and copy_ms else None
    return gbps, copy


def _unit(prim, metric, values):
    """(axis label, divisor) for a subplot."""
    if metric == "ms":
        return "median time (ms)", 1.0
    if prim in SORTS:
        top = max(values) if values else 0
        if top >= 1e9:
            return "Gkeys/s", 1e9
        if top >= 1e6:
            return "Mkeys/s", 1e6
        return "keys/s", 1.0
    return "GB/s", 1.0


def _fmt(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def _n_label(n):
    if n > 0 and n & (n - 1) == 0:
        return f"2^{n.bit_length() - 1}"
    return f"{n:,}"


def _median(xs):
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def _backend_label(r, multi_device):
    b = r.get("backend") or "?"
    if multi_device.get(b) and r.get("_device"):
        return f"{b}: {r['_device']}"
    return b


# Dimensions that tell rows of one primitive apart, in label order.
DIMS = ("backend", "algorithm", "type", "op", "data", "bins")


def _key(r, dim):
    v = r.get("_backend") if dim == "backend" else r.get(dim)
    if dim == "bins" and v is not None:
        return f"{v} bins"
    return v


def _varying(rows, dims):
    return [d for d in dims if len({_key(r, d) for r in rows}) > 1]


def _label(r, dims, default=""):
    parts = [str(_key(r, d)) for d in dims if _key(r, d) is not None]
    return " ".join(parts) if parts else default


def _subplot_title(prim, rows, single_n):
    title = prim
    ops = {r.get("op") for r in rows}
    if len(ops) == 1 and None not in ops:
        title += f"/{ops.pop()}"
    extra = []
    types = {r.get("type") for r in rows}
    if len(types) == 1 and None not in types:
        extra.append(types.pop())
    bins = {r.get("bins") for r in rows}
    if len(bins) == 1 and None not in bins:
        extra.append(f"{bins.pop()} bins")
    if single_n:
        extra.append(f"n = {_n_label(rows[0]['n'])}")
    return title + (", " + ", ".join(extra) if extra else "")


def _yscale(ax, values, yscale):
    vals = [v for v in values if v and v > 0]
    if yscale == "log" or (yscale == "auto" and vals and max(vals) / min(vals) > 30):
        ax.set_yscale("log")
        return "log"
    return "linear"


# ---- drawing ------------------------------------------------------------------

def _draw_lines(ax, prim, rows, metric, yscale, colors):
    import matplotlib.ticker as mticker

    ok = [r for r in rows if _value(r, metric)[0] is not None]
    dims = _varying(ok, DIMS)
    series = {}
    for r in ok:
        series.setdefault(tuple(_key(r, d) for d in dims), []).append(r)
    values = [_value(r, metric)[0] for r in ok]
    unit, div = _unit(prim, metric, values)
    plotted = []
    for i, (key, rs) in enumerate(series.items()):
        pts = {}
        for r in rs:
            pts.setdefault(r["n"], []).append(_value(r, metric)[0])
        xs = sorted(pts)
        ys = [_median(pts[x]) / div for x in xs]
        label = _label(rs[0], dims, default=rs[0].get("_backend") or "")
        style = dict(marker="o", markersize=4, linewidth=1.6, color=colors[i % len(colors)])
        if rs[0].get("algorithm") == "auto" and "algorithm" in dims:
            style.update(linewidth=2.4, color="black")
        ax.plot(xs, ys, label=label, **style)
        plotted += ys
    # copy lines: one per backend (and per type for keys/s, where the bytes
    # per key differ)
    cdims = [d for d in ("backend", "type") if d in dims and (d == "backend" or prim in SORTS)]
    copies = {}
    for r in ok:
        c = _value(r, metric)[1]
        if c is not None:
            copies.setdefault(tuple(_key(r, d) for d in cdims), {}).setdefault(r["n"], []).append(c)
    for i, (key, pts) in enumerate(copies.items()):
        xs = sorted(pts)
        ys = [_median(pts[x]) / div for x in xs]
        what = " ".join(str(k) for k in key if k is not None)
        ax.plot(xs, ys, linestyle="--", linewidth=1.2, color="0.45" if len(copies) == 1 else colors[i % len(colors)],
                alpha=0.9, label="copy" + (f" ({what})" if what else ""))
        plotted += ys
    ax.set_xscale("log", base=2)
    ns = sorted({r["n"] for r in ok})
    if len(ns) <= 12:
        ax.set_xticks(ns)
        ax.set_xticklabels([_n_label(n) for n in ns], fontsize=8)
        ax.xaxis.set_minor_locator(mticker.NullLocator())
    else:
        ax.xaxis.set_major_formatter(mticker.FuncFormatter(
            lambda x, _: _n_label(int(round(x))) if x >= 1 else f"{x:g}"))
    ax.set_xlabel("n (elements)")
    ax.set_ylabel(unit)
    _yscale(ax, plotted, yscale)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, loc="best")


def _draw_bars(ax, prim, rows, metric, yscale, colors, axis_inches):
    algos = []
    for r in rows:
        if r.get("algorithm") not in algos:
            algos.append(r.get("algorithm"))
    gdims = _varying(rows, [d for d in DIMS if d != "algorithm"])
    groups = []
    for r in rows:
        g = tuple(_key(r, d) for d in gdims)
        if g not in groups:
            groups.append(g)
    cell = {}
    for r in rows:
        cell.setdefault((tuple(_key(r, d) for d in gdims), r.get("algorithm")), r)
    values = [v for v in (_value(r, metric)[0] for r in rows) if v is not None]
    unit, div = _unit(prim, metric, values)
    single = len(groups) == 1
    width = 0.8 if single else 0.8 / len(algos)
    # labels across the bars where they fit (a digit is about 0.6 em wide)
    slots = len(algos) if single else len(groups) / width
    slot_in = axis_inches / max(slots, 1)
    fontsize = 6
    rotation = 0 if 5 * 0.6 * fontsize / 72 <= 0.9 * slot_in else 90
    label_box = dict(boxstyle="square,pad=0.1", fc="white", ec="none", alpha=0.9)
    plotted, missing = [], []
    for gi, g in enumerate(groups):
        xs_group = []
        for ai, a in enumerate(algos):
            x = ai if single else gi + (ai - (len(algos) - 1) / 2) * width
            xs_group.append(x)
            r = cell.get((g, a))
            if r is None:
                continue
            v = _value(r, metric)[0]
            if v is None:
                missing.append((x, r.get("status") or "no result"))
                continue
            v /= div
            if single or len(algos) == 1:
                color = "0.15" if a == "auto" and len(algos) > 1 else colors[0]
            else:
                color = colors[ai % len(colors)]
            ax.bar(x, v, width=width * 0.92, color=color, edgecolor="black" if a == "auto" else None,
                   linewidth=0.6, label=a if gi == 0 and not single and len(algos) > 1 else None,
                   zorder=2)
            ax.annotate(_fmt(v), (x, v), xytext=(0, 2), textcoords="offset points", ha="center",
                        va="bottom", fontsize=fontsize, rotation=rotation, bbox=label_box, zorder=4)
            plotted.append(v)
        # the copy, over this group's bars
        c = _median([_value(r, metric)[1] for (gg, _a), r in cell.items() if gg == g])
        if c is not None:
            c /= div
            lo, hi = min(xs_group) - width / 2, max(xs_group) + width / 2
            if single:
                ax.axhline(c, linestyle="--", color="0.35", linewidth=1.2, zorder=3)
                ax.annotate(f"copy {_fmt(c)}", (1, c), xycoords=("axes fraction", "data"),
                            xytext=(-3, 2), textcoords="offset points", ha="right", va="bottom",
                            fontsize=7, color="0.25", bbox=label_box, zorder=5)
            else:
                ax.hlines(c, lo, hi, linestyles="--", colors="0.35", linewidth=1.2, zorder=3,
                          label="copy" if gi == 0 else None)
            plotted.append(c)
    scale = _yscale(ax, plotted, yscale)
    for x, status in missing:
        # a label at the foot of the axis where a bar would be
        ax.annotate(status, (x, 0), xycoords=("data", "axes fraction"), xytext=(0, 4),
                    textcoords="offset points", ha="center", va="bottom", fontsize=7,
                    rotation=90, color="0.35")
    if single:
        ax.set_xticks(range(len(algos)))
        ax.set_xticklabels([str(a) for a in algos], rotation=35, ha="right", fontsize=7)
        ax.set_xlim(-0.6, len(algos) - 0.4)
    else:
        ax.set_xticks(range(len(groups)))
        ax.set_xticklabels([" ".join(str(k) for k in g if k is not None) for g in groups], fontsize=8)
        ax.set_xlim(-0.6, len(groups) - 0.4)
        ax.set_xlabel(", ".join("data set" if d == "data" else d for d in gdims))
    if plotted and scale == "linear":
        ax.set_ylim(0, max(plotted) * 1.15)
    elif plotted:
        ax.set_ylim(min(plotted) / 2, max(plotted) * 3)
    ax.set_ylabel(unit)
    ax.grid(True, axis="y", which="major", alpha=0.3, zorder=0)
    ax.set_axisbelow(True)
    if not single:
        # below the axis, where it hides no bar
        handles, labels = ax.get_legend_handles_labels()
        ax.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13),
                  ncol=min(len(labels), 5), frameon=False)


def _default_title(rows, metric):
    devices, dates = [], []
    for r in rows:
        d = r.get("_device") or r.get("backend")
        if d and d not in devices:
            devices.append(d)
        day = (r.get("_date") or "")[:10]
        if day and day not in dates:
            dates.append(day)
    what = "pp bench" + (": median time" if metric == "ms" else "")
    if len(devices) == 1:
        what += f" on {devices[0]}"
    elif devices:
        what += " on " + "; ".join(devices)
    if dates:
        what += f", {', '.join(dates)}"
    return what


def plot_results(rows, output, primitive=None, metric="gbps", title=None, yscale="auto",
                 dpi=120, progress=None):
    """Draws rows (from load_results) into the image file output.

    Returns the list of primitives drawn. Raises PlotError where there is
    nothing to draw or the image cannot be written.
    """
    if metric not in METRICS:
        raise PlotError(f"metric must be one of {', '.join(METRICS)}, not '{metric}'")
    if yscale not in ("auto", "linear", "log"):
        raise PlotError(f"yscale must be auto, linear or log, not '{yscale}'")
    if not rows:
        raise PlotError("the files hold no rows")
    prims = _select_primitives(rows, primitive)
    multi_device = {}
    for r in rows:
        multi_device.setdefault(r.get("backend"), set()).add(r.get("_device"))
    multi_device = {b: len(ds) > 1 for b, ds in multi_device.items()}
    for r in rows:
        r["_backend"] = _backend_label(r, multi_device)

    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise PlotError("plotting needs matplotlib (pip install matplotlib)") from None

    by_prim = {p: [r for r in rows if r["primitive"] == p] for p in prims}
    drawable = [p for p in prims if any(_value(r, metric)[0] is not None for r in by_prim[p])]
    if not drawable:
        raise PlotError("no row with a result (status ok) to draw")
    ncols = min(3, len(drawable))
    nrows = math.ceil(len(drawable) / ncols)
    bars = {p: len({r["n"] for r in by_prim[p]}) == 1 for p in drawable}
    height = 4.4 if any(bars.values()) else 3.8
    width = max(5.6 * ncols, 7.0)
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height * nrows + 0.6), squeeze=False,
                             layout="constrained")
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    try:
        for i, p in enumerate(drawable):
            if progress:
                progress.step(f"drawing {p} ({i + 1}/{len(drawable)})")
            ax = axes[i // ncols][i % ncols]
            rs = by_prim[p]
            if bars[p]:
                _draw_bars(ax, p, rs, metric, yscale, colors, axis_inches=0.8 * width / ncols)
            else:
                _draw_lines(ax, p, rs, metric, yscale, colors)
            ax.set_title(_subplot_title(p, rs, bars[p]), fontsize=10)
        for j in range(len(drawable), nrows * ncols):
            axes[j // ncols][j % ncols].set_visible(False)
        text = title if title is not None else _default_title(rows, metric)
        # wrapped to the figure's width (about 8 characters an inch at 12 pt)
        text = "\n".join(textwrap.fill(line, width=int(width * 8)) for line in text.split("\n"))
        fig.suptitle(text, fontsize=12)
        if progress:
            progress.step(f"writing {output}")
        try:
            fig.savefig(output, dpi=dpi)
        except (OSError, ValueError) as e:
            raise PlotError(f"cannot write '{output}': {getattr(e, 'strerror', None) or e}") from None
    finally:
        plt.close(fig)
    return drawable


def plot_files(paths, output, progress=None, **kwargs):
    """load_results(paths) then plot_results(rows, output, **kwargs)."""
    rows, _ = load_results(paths, progress=progress)
    return plot_results(rows, output, progress=progress, **kwargs)


# ---- command line (shared with parprim.cli) ----------------------------------------

def add_arguments(p):
    p.add_argument("results", nargs="+", metavar="results.json",
                   help="pp bench --json files (several: their rows together, e.g. one per backend)")
    p.add_argument("-o", "--output", required=True, metavar="plot.png",
                   help="image to write (format from the extension: png, svg, pdf)")
    p.add_argument("--primitive", metavar="P[,P...]",
                   help="only these primitives (reduce, scan_inclusive, ..., or the groups scan, "
                        "histogram, select, sort); default: every one in the files")
    p.add_argument("--metric", choices=METRICS, default="gbps",
                   help="gbps: throughput, GB/s (keys/s for sorts; default); ms: median time")
    p.add_argument("--title", help="figure title (default: the device and date of the files)")
    p.add_argument("--yscale", choices=("auto", "linear", "log"), default="auto",
                   help="y axis; auto: log where the values span more than 30x")
    p.add_argument("--dpi", type=int, default=120, help="resolution of raster images (default 120)")


def run(args, prog="parprim plot", quiet=False):
    """Runs a parsed plot command; raises PlotError."""
    with Progress(prog, enabled=not quiet) as progress:
        drawn = plot_files(args.results, args.output, progress=progress, primitive=args.primitive,
                           metric=args.metric, title=args.title, yscale=args.yscale, dpi=args.dpi)
    return drawn


def main(argv=None):
    p = argparse.ArgumentParser(prog="plot.py", description="Plots pp bench --json results.")
    add_arguments(p)
    p.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    args = p.parse_args(argv)
    try:
        run(args, prog=p.prog, quiet=args.quiet)
    except PlotError as e:
        print(f"{p.prog}: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
