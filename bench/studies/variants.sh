#!/usr/bin/env bash
# Compares builds of parprim side by side on one GPU: two git revisions, or
# a revision and the working tree (or more, or the same tree with different
# compile flags). Each is built in a folder of its own (bench_cub only), then
# bench_cub runs them in alternating rounds (A, B, ..., then again), so that
# every variant meets the same clocks, temperature and neighbours; the table
# at the end gives each row's parprim time and ratio to CUB for every variant
# and round.
#
# usage: bench/studies/variants.sh ROUNDS "BENCH_CUB_ARGS" NAME=SOURCE[:CUDA_FLAGS]...
#   SOURCE  "." (the working tree as it is), a git revision (HEAD~3, main,
#           a commit: exported with `git archive`, so it needs the repository's
#           history where the script runs), or a .tgz / .tar made by
#           `git archive` (for a machine that has only a copy of the tree:
#           make it first, e.g. `git archive -o build/base.tgz main`).
#   CUDA_FLAGS  extra nvcc flags for that build, e.g. -DPP_SORT_COUNT_PARTS=1.
# Sources go to build/var-src-NAME (exported again only when the revision or
# archive changes), builds to build/var-NAME (kept, rebuilt incrementally);
# logs, each round's bench_cub output and JSON (--json, the records that
# bench/render.py reads) to $OUT (default build/variants-out).
# Environment: CUDA_ARCH (default 90), JOBS (default nproc).
# Examples:
#   bench/studies/variants.sh 2 "--only sort --types u32,f32 --sizes 16,24,28 --repeat 10" base=main new=.
#   bench/studies/variants.sh 3 "--only scan --sizes 24,28,30 --repeat 10" old=build/old.tgz new=. \
#     new4=.:-DPP_SCAN_MINB=4
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
root=$(pwd)
if [ $# -lt 3 ]; then
  sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
OUT=${OUT:-$root/build/variants-out}
mkdir -p "$OUT"
rounds=$1
bargs=$2
shift 2

# export SOURCE for NAME into build/var-src-NAME unless it is already there;
# prints the directory to build from
export_source() {
  local name=$1 src=$2 dir=$root/build/var-src-$1 stamp
  if [ "$src" = "." ]; then
    echo "$root"
    return 0
  fi
  if [ -f "$src" ]; then
    stamp="archive $(cksum <"$src")"
  else
    stamp=$(git -C "$root" rev-parse --verify --quiet "$src^{commit}") || {
      echo "variants: '$src' is neither '.', an archive nor a git revision here" >&2
      return 1
    }
  fi
  if [ "$(cat "$dir/.variants-source" 2>/dev/null)" != "$stamp" ]; then
    rm -rf "$dir" && mkdir -p "$dir" || return 1
    if [ -f "$src" ]; then
      tar -xf "$src" -C "$dir" || return 1
    else
      git -C "$root" archive "$stamp" | tar -x -C "$dir" || return 1
    fi
    echo "$stamp" >"$dir/.variants-source"
    rm -rf "$root/build/var-$name" # a new source: build from scratch
  fi
  echo "$dir"
}

names=()
pids=()
for spec in "$@"; do
  name=${spec%%=*}
  rest=${spec#*=}
  src=${rest%%:*}
  flags=""
  [ "$rest" != "$src" ] && flags=${rest#*:}
  dir=$(export_source "$name" "$src") || exit 1
  names+=("$name")
  b=$root/build/var-$name
  (
    if [ ! -f "$b/CMakeCache.txt" ]; then
      cmake -S "$dir" -B "$b" -DCMAKE_BUILD_TYPE=Release -DPP_WITH_CUDA=ON -DPP_WITH_OPENCL=OFF -DPP_WITH_MPI=OFF \
        -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" -DPP_BUILD_TESTS=OFF -DPP_BUILD_TOOLS=OFF \
        -DPP_BUILD_PROBES=OFF -DCMAKE_CUDA_FLAGS="$flags" || exit 1
    fi
    cmake --build "$b" -j"${JOBS:-$(nproc)}" --target bench_cub
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
    timeout 300 "$root/build/var-$name/bench/bench_cub" $bargs --json "$OUT/variants-$name-r$r.json" >"$log" 2>&1 ||
      echo "variants: $name round $r exit $?"
  done
done
# One table: each bench_cub row with every variant's parprim ms and ratio to
# CUB, round by round.
OUT=$OUT python3 - "$rounds" "${names[@]}" <<'PY'
import json, os, sys
rounds, names = int(sys.argv[1]), sys.argv[2:]
out = os.environ["OUT"]
rows, order = {}, []
for name in names:
    for r in range(1, rounds + 1):
        try:
            doc = json.load(open(os.path.join(out, "variants-%s-r%d.json" % (name, r))))
        except (OSError, ValueError):
            continue
        for x in doc["rows"]:
            key = (x["primitive"], x["type"], x["n"])
            if key not in rows:
                rows[key] = {}
                order.append(key)
            rows[key].setdefault(name, []).append(
                "%.3f (%.3fx)%s" % (x["parprim_ms"], x["cub_ms"] / x["parprim_ms"], "" if x["checked"] else " DIFFER"))
print("| primitive | type | n | " + " | ".join("%s ms (vs CUB)" % n for n in names) + " |")
print("|---|---|---|" + "---|" * len(names))
for key in order:
    n = key[2]
    size = "2^%d" % (n.bit_length() - 1) if n & (n - 1) == 0 else str(n)
    cells = [" / ".join(rows[key].get(v, [])) or "-" for v in names]
    print("| %s | %s | %s | %s |" % (key[0], key[1], size, " | ".join(cells)))
PY
