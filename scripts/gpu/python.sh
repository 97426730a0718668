# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage python: the Python package built with the cuda backend:
# its pytest suite on every backend present (cuda with CuPy and PyTorch
# arrays, NVIDIA OpenCL, PoCL), the call overhead on cpu and cuda, and
# bench/py_compare.py: parprim against CuPy at 2^28 (u32, f32). pytest and
# Hypothesis, where missing, from wheels carried in build/wheels.
# The extension built by the project's CMake with the cuda backend (no pip
# build backend needed: the package's Python files and the extension are put
# side by side in build/gpu-py), then the tests, the call overhead and the
# CuPy comparison.
python_stage() {
  local py pkg=$root/build/gpu-py deps=$root/build/gpu-py-deps t0=$SECONDS rc
  py=$(command -v python3) || { failed python "python: no python3"; return 0; }
  if ! "$py" -c "import pytest, hypothesis" 2>/dev/null; then
    rm -rf "$deps"
    "$py" -m pip install -q --no-index --find-links build/wheels --target "$deps" pytest hypothesis \
      >"$LOG/python-deps.log" 2>&1 ||
      { failed python "python: pytest and hypothesis not installable (see python-deps.log)"; return 0; }
  fi
  local -x PYTHONPATH=$pkg${PYTHONPATH:+:$PYTHONPATH} # for this stage only
  [ -d "$deps" ] && PYTHONPATH=$PYTHONPATH:$deps
  if ! { cmake -S . -B build/gpu-pyext -DCMAKE_BUILD_TYPE=Release -DPP_BUILD_PYTHON=ON -DPP_BUILD_TESTS=OFF \
           -DPP_BUILD_TOOLS=OFF -DPP_BUILD_BENCH=OFF -DCMAKE_CUDA_ARCHITECTURES=90 \
           -DPython_EXECUTABLE="$py" &&
         cmake --build build/gpu-pyext -j"$jobs" --target _parprim; } >"$LOG/python-build.log" 2>&1; then
    failed python "python: extension build FAILED (see python-build.log)"
    return 0
  fi
  if ! { rm -rf "$pkg" && mkdir -p "$pkg/parprim" && cp python/parprim/*.py "$pkg/parprim/" &&
         cp build/gpu-pyext/python/_parprim*.so "$pkg/parprim/"; }; then
    failed python "python: packaging FAILED"
    return 0
  fi
  passed "python: extension built with cuda ($((SECONDS - t0)) s)"
  t0=$SECONDS
  "$py" -m pytest python/tests -m "not slow" -rfEs -p no:cacheprovider -q >"$LOG/python-tests.log" 2>&1
  rc=$?
  tail -n 25 "$LOG/python-tests.log"
  if [ $rc -eq 0 ]; then passed "python tests: $(tail -n 1 "$LOG/python-tests.log" | tr -d '=') ($((SECONDS - t0)) s)"
  else failed python-tests "python tests: FAILED: $(tail -n 1 "$LOG/python-tests.log" | tr -d '=') (see python-tests.log)"; fi
  for b in cpu cuda; do
    if "$py" python/tools/overhead.py --backend $b >"$OUT/python_overhead_$b.txt" 2>&1; then
      passed "python call overhead ($b): $(grep -m1 'Context.reduce ' "$OUT/python_overhead_$b.txt" | sed 's/  */ /g')"
    else failed python-overhead "python call overhead ($b): FAILED (see python_overhead_$b.txt)"; fi
  done
  if "$py" bench/py_compare.py --backend cuda --json "$OUT/py_compare_cuda.json" \
       >"$OUT/py_compare_cuda.md" 2>&1; then
    passed "py_compare (parprim against CuPy, 2^28): ran"
  else failed py-compare "py_compare: FAILED or results differ (see py_compare_cuda.md)"; fi
  cat "$OUT/py_compare_cuda.md"
}
python_stage
