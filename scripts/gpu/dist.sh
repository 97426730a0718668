# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage dist: parprim_mpi on cuda: the distributed suite with 2
# ranks sharing GPU 0 through MPI (staged through pinned host memory unless
# the MPI is CUDA-aware), its error cases, the NCCL engine's suite on one
# rank; on one GPU pp_dist_bench with 1 and 2 ranks (2^26 u32 per rank); on
# several GPUs, with one rank per GPU on 2 GPUs and on all of them, the
# suite over MPI and over NCCL, then weak scaling of every primitive (sort,
# sort_pairs and scan are the issue's) with 2^28 and 2^30 u32 per GPU on 1,
# 2, 4 (and 8) GPUs over NCCL, each beside its model and the NCCL all-to-all
# bandwidth of the same run (NVLink multicast off: NCCL_NVLS_ENABLE=0).

dist_run() { # name, time limit (s), ranks, program and arguments: one mpirun, logged as dist-<name>.log
  local name=$1 limit=$2 np=$3 rc t0=$SECONDS
  shift 3
  timeout --kill-after=10 "$limit" mpirun --oversubscribe --bind-to none -x NCCL_NVLS_ENABLE -x PARPRIM_TEST_BACKENDS \
    -x PARPRIM_TEST_GPU_PER_RANK \
    -np "$np" "$@" >"$LOG/dist-$name.log" 2>&1
  rc=$?
  grep -E "skipped|FAIL|passed|failed" "$LOG/dist-$name.log" | tail -n 4
  if [ $rc -eq 0 ]; then passed "dist $name ($np ranks): ok ($((SECONDS - t0)) s)"
  else failed "dist($name)" "dist $name ($np ranks): FAILED, exit $rc (see dist-$name.log)"; fi
}
export NCCL_NVLS_ENABLE=0 # NVLink multicast stays off on these machines
export PARPRIM_TEST_BACKENDS=cuda # the suite's contexts: cuda only (cpu and opencl run in scripts/check)
export PARPRIM_TEST_GPU_PER_RANK=0 # 1: each rank's context on its own GPU (set per run below)
[ "$(id -u)" -eq 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
dist_targets=(test_dist test_dist_errors test_dist_nccl pp_dist_bench)
if cmake --build "$build" -j"$jobs" --target "${dist_targets[@]}" >"$LOG/dist-build.log" 2>&1; then
  ngpu=$(nvidia-smi -L | grep -c '^GPU')
  tbin=$build/src/distributed/tests
  dist_run suite-mpi 400 2 "$tbin/test_dist"
  dist_run errors-mpi 120 2 "$tbin/test_dist_errors"
  dist_run nccl-1 300 1 "$tbin/test_dist_nccl"
  bench=$build/src/distributed/bench/pp_dist_bench
  if [ "$ngpu" -gt 1 ]; then # one rank per GPU: the suite over MPI and over NCCL, then weak scaling
    for np in $(seq 2 "$ngpu"); do
      [ "$np" -eq 2 ] || [ "$np" -eq "$ngpu" ] || continue
      PARPRIM_TEST_GPU_PER_RANK=1 dist_run "suite-mpi-${np}gpu" 400 "$np" "$tbin/test_dist"
      dist_run "nccl-${np}gpu" 400 "$np" "$tbin/test_dist_nccl"
    done
    for lg in 28 30; do # weak scaling: 2^lg u32 per GPU, NCCL engine
      for np in 1 2 4 8; do
        [ "$np" -le "$ngpu" ] || continue
        dist_run "weak-nccl-2e$lg-$np" 300 "$np" "$bench" --backend cuda --engine nccl --gpu-per-rank \
          --n $((1 << lg)) --repeat 5
        cp "$LOG/dist-weak-nccl-2e$lg-$np.log" "$OUT/pp_dist_bench_nccl_2e${lg}_${np}gpu.txt"
      done
    done
  else # one GPU: 1 rank, and 2 ranks sharing it through MPI (the staged path)
    for np in 1 2; do
      dist_run "bench-cuda-$np" 200 $np "$bench" --backend cuda --n $((1 << 26)) --repeat 10
      cp "$LOG/dist-bench-cuda-$np.log" "$OUT/pp_dist_bench_cuda_$np.txt"
    done
  fi
else
  failed "dist(build)" "dist: parprim_mpi's targets did not build (MPI or NCCL not found? see dist-build.log)"
  tail -n 5 "$LOG/dist-build.log"
fi
