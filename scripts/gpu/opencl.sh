# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage opencl: where the opencl backend was built (OpenCL
# headers and loader found), the test suite on every OpenCL device (the
# NVIDIA platform and PoCL on the host CPU, devices counted as
# pp_options.device counts them: tools/opencl_devices.c), the large test on
# the first GPU among them, then `pp bench` of reduce, scan and sort (u32,
# 2^28) and of the exact f32/f64 reduce on cuda and on that OpenCL GPU in one
# run, with the opencl/cuda throughput ratios beside their target
# (bench/opencl_vs_cuda.py; the target: opencl_vs_cuda_throughput in
# bench/targets.txt), appended to $OUT/opencl_vs_cuda.md.

# The OpenCL devices, one line each (tools/opencl_devices.c), built in the
# build tree against the OpenCL headers and loader the build found.
opencl_devices() {
  cmake --build "$build" --target opencl_devices >"$LOG/opencl_devices-build.log" 2>&1 || return 1
  "$build/opencl_devices"
}

# pp bench with the given arguments on cuda and on the OpenCL GPU $gpu_dev,
# then the table of opencl/cuda throughput (appended to opencl_vs_cuda.md).
opencl_vs_cuda() { # name pp-arguments...
  local name=$1 target
  shift
  if timeout 200 "$build/tools/pp/pp" "$@" --backend cuda --json "$OUT/pp_bench_cuda_$name.json" >"$LOG/pp_bench_cuda_$name.log" 2>&1 &&
     timeout 300 "$build/tools/pp/pp" "$@" --backend opencl --device "$gpu_dev" \
       --json "$OUT/pp_bench_opencl_$name.json" >"$LOG/pp_bench_opencl_$name.log" 2>&1; then
    passed "pp bench opencl (device $gpu_dev) beside cuda ($name): ran"
    if ! target=$(bench_target opencl_vs_cuda_throughput); then
      failed "opencl(compare-$name)" "opencl/cuda table ($name): FAILED (no target in bench/targets.txt)"
    elif ! python3 bench/opencl_vs_cuda.py "$OUT/pp_bench_cuda_$name.json" "$OUT/pp_bench_opencl_$name.json" \
         --target "$target" | tee -a "$OUT/opencl_vs_cuda.md"; then
      failed "opencl(compare-$name)" "opencl/cuda table ($name): FAILED (the pp bench JSON files could not be read)"
    fi
  else
    failed "opencl(bench-$name)" "pp bench opencl beside cuda ($name): FAILED (see pp_bench_*_$name.log)"
    tail -n 5 "$LOG/pp_bench_opencl_$name.log"
  fi
}

if ! "$build/tools/pp/pp" info 2>/dev/null | grep -qE "^  opencl +built"; then
  note "opencl: the backend is not built (no OpenCL headers and loader): stage skipped"
elif ! devices=$(opencl_devices 2>>"$LOG/opencl_devices-build.log"); then
  tail -n 20 "$LOG/opencl_devices-build.log"
  failed opencl "opencl: could not list the OpenCL devices (see opencl_devices-build.log)"
elif [ -z "$devices" ]; then
  note "opencl: no OpenCL device: stage skipped"
else
  echo "$devices" | tee "$LOG/opencl_devices.txt"
  gpu_dev=$(awk -F '\t' '$2 == "gpu" { print $1; exit }' <<<"$devices")
  mapfile -t device_lines <<<"$devices"
  for line in "${device_lines[@]}"; do
    IFS=$'\t' read -r d type name <<<"$line"
    t0=$SECONDS
    (cd "$build" && PARPRIM_TEST_BACKENDS=opencl PARPRIM_TEST_OPENCL_DEVICE=$d timeout 400 ctest --output-on-failure -j4 -LE large) \
      >"$LOG/test-opencl-$d.log" 2>&1
    rc=$?
    grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)" "$LOG/test-opencl-$d.log" | tail -n 8
    if [ $rc -eq 0 ]; then passed "tests (opencl device $d, $type, $name): ok ($((SECONDS - t0)) s)"
    else failed "tests(opencl-$d)" "tests (opencl device $d, $type, $name): FAILED (see test-opencl-$d.log)"; fi
    keep_ctest_log "test-opencl-$d"
    # the large test on the first GPU only (CI runs it on PoCL's CPU device)
    if [ "$d" = "$gpu_dev" ]; then
      t0=$SECONDS
      (cd "$build" && PARPRIM_TEST_BACKENDS=opencl PARPRIM_TEST_OPENCL_DEVICE=$d timeout 900 ctest --output-on-failure -L large) \
        >"$LOG/test-opencl-large-$d.log" 2>&1
      rc=$?
      tail -n 5 "$LOG/test-opencl-large-$d.log"
      if [ $rc -eq 0 ]; then passed "large tests (opencl device $d): ok ($((SECONDS - t0)) s)"
      else failed "large-tests(opencl-$d)" "large tests (opencl device $d): FAILED (see test-opencl-large-$d.log)"; fi
      keep_ctest_log "test-opencl-large-$d"
    fi
  done
  if [ -n "$gpu_dev" ]; then
    # shellcheck disable=SC2054 # the commas are pp's list syntax
    opencl_vs_cuda u32 bench --primitive reduce,scan_exclusive,sort_keys,sort_pairs --type u32 --n 2^28 --repeat 10
    # shellcheck disable=SC2054
    opencl_vs_cuda exact bench --primitive reduce --type f32,f64 --algorithm exact --n 2^28 --repeat 10
  else
    note "opencl: no OpenCL GPU among the devices, no opencl/cuda comparison"
  fi
fi
