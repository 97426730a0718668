# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage sanitize: compute-sanitizer memcheck, racecheck and
# synccheck over a reduced test set (PARPRIM_TEST_QUICK=1; SAN_TESTS: the
# suites, default every one but the large one); racecheck, too slow for the
# reduce, scan and sort suites, runs their kernels through `pp bench`
# instead (unless SAN_TESTS is set).
for tool in memcheck racecheck synccheck; do
  t0=$SECONDS
  ok=1
  san() { # name command...: one program under the tool, logged to san-<tool>-<name>.log
    local log=$LOG/san-$tool-$1.log
    shift
    timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 --report-api-errors no --print-limit 20 "$@" \
      >"$log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || { ok=0; echo "(exit $rc)" >>"$log"; tail -n 30 "$log"; }
  }
  if [ "$tool" = racecheck ] && [ -z "${SAN_TESTS:-}" ]; then
    # racecheck checks every shared-memory access: the quick test_reduce_scan
    # and test_sort run past the time limit under it, so their
    # kernels run here in pp bench, which checks each result against the
    # reference: every algorithm of reduce, scan and sort on 300001
    # elements (many tiles), and the float sort's NaN-free pass kernels
    # (from 2^26 keys)
    for t in test_histogram test_select test_errors test_bykey test_argsort; do PARPRIM_TEST_BACKENDS=cuda PARPRIM_TEST_QUICK=1 san "$t" "$build/tests/$t"; done
    san pp-bench-keyed "$build/tools/pp/pp" bench --backend cuda --primitive segmented,bykey --type u8,i32,f32,f64 \
      --n 300001 --segments avg4,avg4096,powerlaw --repeat 1
    san pp-bench "$build/tools/pp/pp" bench --backend cuda --primitive reduce,scan,sort --type u8,i32,f32,u64,f64 \
      --n 300001 --algorithm all --repeat 1
    san pp-sort-2e26 "$build/tools/pp/pp" bench --backend cuda --primitive sort_keys --type f32 --n 2^26 --repeat 1
  else
    for t in ${SAN_TESTS:-test_reduce_scan test_histogram test_select test_sort test_errors test_segmented test_bykey test_segsort test_argsort}; do
      PARPRIM_TEST_BACKENDS=cuda PARPRIM_TEST_QUICK=1 san "$t" "$build/tests/$t"
    done
  fi
  if [ $ok -eq 1 ]; then passed "compute-sanitizer $tool: clean ($((SECONDS - t0)) s)"
  else failed "sanitize($tool)" "compute-sanitizer $tool: ERRORS (see san-$tool-*.log)"; fi
done
