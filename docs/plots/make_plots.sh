#!/bin/sh
# Draws the plots of docs/algorithms.md from the measurements beside this
# script, with parprim's plot code (python/parprim/plot.py: needs Python 3
# and matplotlib, not the compiled package):
#
#   algorithms_2e24.json      pp bench --backend cuda --algorithm all --type u32 --n 2^24 --repeat 5
#   histogram_experiment.json pp bench --backend cuda --primitive histogram_even --type u32 --n 2^26
#                                --bins 1024 --data inc,rand,const --algorithm all --repeat 10
#
# both written by `scripts/gpu-check algorithms` on an NVIDIA H100 80GB HBM3,
# 2026-11-23. Newer runs: copy that step's JSON files over these and run
#
#   docs/plots/make_plots.sh          (PYTHON=/path/to/python to choose the interpreter)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
plot="$here/../../python/parprim/plot.py"
PYTHON=${PYTHON:-python3}
if ! "$PYTHON" -c 'import matplotlib' 2>/dev/null; then
  echo "make_plots.sh: $PYTHON has no matplotlib (pip install matplotlib, or set PYTHON)" >&2
  exit 1
fi
"$PYTHON" "$plot" -q --dpi 100 "$here/algorithms_2e24.json" -o "$here/algorithms_2e24.png" \
  --title "pp bench --algorithm all, u32, n = 2^24: NVIDIA H100 80GB HBM3, 2026-11-23"
"$PYTHON" "$plot" -q --dpi 100 "$here/histogram_experiment.json" -o "$here/histogram_experiment.png" \
  --title "Histogram experiment (course notes 3): NVIDIA H100 80GB HBM3, 2026-11-23"
echo "make_plots.sh: wrote $here/algorithms_2e24.png and $here/histogram_experiment.png"
