# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage bench: bench_cub (parprim against CUB, same run;
# BENCH_ARGS, default "--repeat 10": every size and type) and `pp bench` on
# cuda, their JSON in $OUT.
t0=$SECONDS
if [ -x "$build/bench/bench_cub" ]; then
  # shellcheck disable=SC2086
  timeout 400 "$build/bench/bench_cub" ${BENCH_ARGS:---repeat 10} --json "$OUT/bench_cub.json" >"$LOG/bench_cub.log" 2>&1
  rc=$?
  if [ $rc -eq 0 ]; then passed "bench_cub: ran ($((SECONDS - t0)) s)"
  else failed "bench(bench_cub)" "bench_cub: FAILED, exit $rc (see bench_cub.log)"; fi
else
  failed "bench(bench_cub)" "bench_cub: not built (the cuda build should build it)"
fi
if timeout 120 "$build/tools/pp/pp" bench --backend cuda --json "$OUT/pp_bench_cuda.json" >"$LOG/pp_bench.log" 2>&1; then
  passed "pp bench --backend cuda: ok"
else
  failed "bench(pp)" "pp bench --backend cuda: FAILED (see pp_bench.log)"
fi
tail -n 25 "$LOG/pp_bench.log"
echo
grep -E "^\|" "$LOG/bench_cub.log" || tail -n 30 "$LOG/bench_cub.log"
