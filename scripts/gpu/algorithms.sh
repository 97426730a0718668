# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage algorithms: `pp bench --algorithm all` on cuda (every
# algorithm of the course notes beside the defaults, u32, 2^24) and the
# notes' histogram experiment (2^26 samples, 1024 bins, data inc, rand,
# const): the measurements of docs/algorithms.md.
pp=$build/tools/pp/pp
if timeout 200 "$pp" bench --backend cuda --algorithm all --type u32 --n 2^24 --repeat 5 \
     --json "$OUT/algorithms_2e24.json" >"$LOG/algorithms.log" 2>&1 &&
   timeout 120 "$pp" bench --backend cuda --primitive histogram_even --type u32 --n 2^26 --bins 1024 \
     --data inc,rand,const --algorithm all --repeat 10 --json "$OUT/histogram_experiment.json" \
     >>"$LOG/algorithms.log" 2>&1; then
  passed "pp bench --algorithm all and the histogram experiment (cuda): ok"
else
  failed algorithms "pp bench --algorithm all or the histogram experiment: FAILED (see algorithms.log)"
fi
grep -E "^(primitive|reduce|scan|histogram|select|unique|partition|sort)" "$LOG/algorithms.log" | tail -n 70
