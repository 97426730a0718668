# shellcheck shell=bash disable=SC2154 # root, build, jobs, stages, OUT, LOG: set by scripts/gpu-check
# gpu-check stage test: the whole test suite on the cuda backend, then the
# large tests (every algorithm on 2^31 + 2^20 + 7 bytes, each result
# downloaded and checked on the host).
t0=$SECONDS
(cd "$build" && PARPRIM_TEST_BACKENDS=cuda timeout 420 ctest --output-on-failure -j4 -LE large) >"$LOG/test.log" 2>&1
rc=$?
grep -E "tests passed|tests failed|\(Failed\)|\(Timeout\)|FAILED" "$LOG/test.log" | tail -n 15
if [ $rc -eq 0 ]; then passed "tests (cuda): ok ($((SECONDS - t0)) s)"
else failed "tests(cuda)" "tests (cuda): FAILED (see test.log)"; fi
keep_ctest_log test
t0=$SECONDS
# every algorithm on 2^31 + 2^20 + 7 bytes, each result downloaded and checked on the host
(cd "$build" && PARPRIM_TEST_BACKENDS=cuda timeout 900 ctest --output-on-failure -L large) >"$LOG/test-large.log" 2>&1
rc=$?
tail -n 5 "$LOG/test-large.log"
if [ $rc -eq 0 ]; then passed "large tests (cuda, > 2^31 elements): ok ($((SECONDS - t0)) s)"
else failed "large-tests(cuda)" "large tests (cuda): FAILED (see test-large.log)"; fi
keep_ctest_log test-large
