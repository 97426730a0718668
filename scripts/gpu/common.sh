# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# scripts/gpu-check's shared part, sourced by it before the stages (sourced,
# not run): the summary lines and the verdict of each step, the exit at the
# end, the ctest logs kept, a target read from bench/targets.txt, and the
# machine's setup (cmocka from carried .deb files where missing). Reads
# root, OUT, LOG, build and stages, set by scripts/gpu-check.

# shellcheck source=scripts/lib/stages.sh
. scripts/lib/stages.sh
stages_summary_file=$OUT/summary.txt
note() { stages_line "$1"; echo "=== $1 [$(date +%T)]"; }
# passed TEXT | failed STEP TEXT: a line of the summary; a failed step makes
# the exit status 1 (the failed steps, stages_failed, are named last)
passed() { stages_pass; note "$1"; }
failed() { stages_fail "$1"; note "$2"; }
# Prints the summary, packs the logs, and exits 1 if any step failed.
finish() {
  echo
  stages_verdict FAILED "gpu-check: every step passed (stages: ${stages[*]})"
  stages_print
  tar -C "$LOG" -czf "$OUT/logs.tar.gz" . || echo "gpu-check: could not pack the logs into $OUT/logs.tar.gz"
  stages_exit_if_failed
  exit 0
}
# After a ctest run: keeps its full output (ctest prints only failures) as
# LOG/<name>-full.log and notes the tests' skips ("<program>: skipped N").
keep_ctest_log() { # name
  cp "$build/Testing/Temporary/LastTest.log" "$LOG/$1-full.log" 2>/dev/null || return 0
  local skips
  skips=$(grep -hE "^[A-Za-z0-9_]+: skipped [1-9][0-9]*$" "$LOG/$1-full.log" | paste -sd ',' -)
  [ -z "$skips" ] || note "  $1: ${skips//,/, } (reasons in $1-full.log)"
}
# The value of a target (a number a measurement is held to) from
# bench/targets.txt, whose lines are "name value  what it is"; fails, with a
# message, where the name is not there.
bench_target() { # name
  awk -v k="$1" '$1 == k { print $2; found = 1; exit } END { exit !found }' "$root/bench/targets.txt" ||
    { echo "gpu-check: no target '$1' in bench/targets.txt" >&2; return 1; }
}

debs=$(compgen -G ".deps/*.deb"; compgen -G "build/debs/*.deb")
if [ ! -f /usr/include/cmocka.h ] && [ -n "$debs" ]; then
  mkdir -p build/deps
  for f in .deps/*.deb build/debs/*.deb; do [ -f "$f" ] && dpkg -x "$f" build/deps; done
  export CMAKE_PREFIX_PATH=$root/build/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}
  export LD_LIBRARY_PATH=$root/build/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
fi
export OMP_WAIT_POLICY=passive
