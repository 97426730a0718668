#!/usr/bin/env bash
# Builds variants of the cuda backend side by side and times them with
# bench_cub in alternating rounds (variant A, B, C, then again), so that
# variants are compared in one session on one GPU.
#
# usage: bench/studies/variants.sh ROUNDS "BENCH_CUB_ARGS" NAME=SOURCE[:CUDA_FLAGS]...
#   SOURCE: "." for this tree, or a .tgz of another tree (git archive), which
#           is unpacked into build/var-src-NAME;
#   CUDA_FLAGS: extra nvcc flags, e.g. -DPP_SORT_COUNT_PARTS=1.
# Builds go to build/var-NAME (bench_cub and pp only; kept between calls on
# a warm machine); logs and the bench_cub tables to $OUT/variants-*.log.
# Example:
#   bench/studies/variants.sh 2 "--only sort --types u32,f32 --sizes 16,24,28 --repeat 10" \
#     base=build/base.tgz parts1=.:-DPP_SORT_COUNT_PARTS=1 parts2=.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
OUT=${OUT:-$root/build/variants-out}
mkdir -p "$OUT"
rounds=$1
bargs=$2
shift 2
names=()
pids=()
for spec in "$@"; do
  name=${spec%%=*}
  rest=${spec#*=}
  src=${rest%%:*}
  flags=""
  [ "$rest" != "$src" ] && flags=${rest#*:}
  if [ "$src" != "." ]; then
    dir=$root/build/var-src-$name
    rm -rf "$dir" && mkdir -p "$dir" && tar -xzf "$src" -C "$dir" || exit 1
    src=$dir
  fi
  names+=("$name")
  b=$root/build/var-$name
  (
    if [ ! -x "$b/bench/bench_cub" ]; then
      cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release -DPP_WITH_CUDA=ON -DPP_WITH_OPENCL=OFF \
        -DCMAKE_CUDA_ARCHITECTURES=90 -DPP_BUILD_TESTS=OFF -DCMAKE_CUDA_FLAGS="$flags" &&
        cmake --build "$b" -j"$(nproc)" --target bench_cub pp
    fi
  ) >"$OUT/variants-build-$name.log" 2>&1 &
  pids+=($!)
done
ok=1
for i in "${!pids[@]}"; do
  if ! wait "${pids[$i]}"; then
    ok=0
    echo "variants: build of ${names[$i]} FAILED"
    tail -n 30 "$OUT/variants-build-${names[$i]}.log"
  fi
done
[ $ok -eq 1 ] || exit 1
echo "variants: built ${names[*]}"
for r in $(seq 1 "$rounds"); do
  for name in "${names[@]}"; do
    log=$OUT/variants-$name-r$r.log
    # shellcheck disable=SC2086 # bargs is a list of arguments
    timeout 300 "$root/build/var-$name/bench/bench_cub" $bargs >"$log" 2>&1 || echo "variants: $name round $r exit $?"
  done
done
# One table: each bench_cub row with every variant's parprim ms and ratio to CUB.
python3 - "$rounds" "${names[@]}" <<'PY'
import re, sys, os
rounds, names = int(sys.argv[1]), sys.argv[2:]
out = os.environ.get("OUT", "build/variants-out")
rows = {}
order = []
for name in names:
    for r in range(1, rounds + 1):
        for line in open(os.path.join(out, "variants-%s-r%d.log" % (name, r))):
            c = [x.strip() for x in line.strip().strip("|").split("|")]
            if len(c) < 8 or not re.match(r"^[0-9.]+$", c[3]):
                continue
            key = (c[0], c[1], c[2])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key].setdefault(name, []).append((float(c[3]), c[7]))
print("| primitive | type | n | " + " | ".join("%s ms (vs CUB)" % n for n in names) + " |")
print("|---|---|---|" + "---:|" * len(names))
for key in order:
    cells = []
    for n in names:
        v = rows[key].get(n, [])
        cells.append(" / ".join("%.3f (%s)" % x for x in v) or "-")
    print("| %s | %s | %s | %s |" % (key + (" | ".join(cells),)))
PY
