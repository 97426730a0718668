# shellcheck shell=bash
# Stages, their pass/fail bookkeeping and the final summary, shared by
# scripts/check, scripts/dist-check and scripts/gpu-check (through
# scripts/gpu/common.sh) (sourced, not run: it sets no shell option and runs
# nothing when sourced).
#
#   stage NAME CMD [ARG...]  runs CMD as the stage NAME: prints "=== NAME",
#                            then "=== NAME: ok (N s)" or
#                            "=== NAME: FAILED (N s)", and records the pass
#                            or the failure. stage_name holds NAME while CMD
#                            runs (for what CMD adds to the summary).
#   stages_pass              records a stage (or step) that passed
#   stages_fail NAME         records one that failed, under the NAME the
#                            verdict gives it
#   stages_line TEXT         adds a line to the summary (lines keep their order)
#   stages_verdict LABEL [OK_LINE]
#                            adds the verdict to the summary: where a stage
#                            failed, "<stages_prog>: LABEL: NAME NAME ..."
#                            (the failed stages in order), else OK_LINE if
#                            given
#   stages_print             prints the summary, and writes it to
#                            $stages_summary_file where that is set
#   stages_exit_if_failed    exits 1 where a stage failed; else returns 0
#   stages_finish            stages_print, then stages_exit_if_failed: as a
#                            script's last command, its exit status is 1
#                            where a stage failed, else 0
#
# State the scripts read (and change through the functions above):
# stages_prog (what a verdict starts with; the script's file name unless set
# before sourcing), stages_passed (a count), stages_failed (the names of the
# failed stages, in order), stages_summary (the lines), stages_summary_file.

stages_prog=${stages_prog:-$(basename "$0")}
stages_summary_file=${stages_summary_file:-}
stages_passed=0
stages_failed=()
stages_summary=()
stage_name=

stages_pass() { stages_passed=$((stages_passed + 1)); }
stages_fail() { stages_failed+=("$1"); }
stages_line() { stages_summary+=("$1"); }

stage() { # name, command...
  local name=$1 t0
  shift
  # shellcheck disable=SC2034 # read by the scripts' stage commands
  stage_name=$name
  echo "=== $name"
  t0=$SECONDS
  if "$@"; then
    stages_pass
    echo "=== $name: ok ($((SECONDS - t0)) s)"
  else
    stages_fail "$name"
    echo "=== $name: FAILED ($((SECONDS - t0)) s)"
  fi
}

stages_verdict() { # label of the failed stages, [line where none failed]
  if [ ${#stages_failed[@]} -gt 0 ]; then
    stages_line "$stages_prog: $1: ${stages_failed[*]}"
  elif [ $# -ge 2 ]; then
    stages_line "$2"
  fi
}

stages_print() {
  if [ -n "$stages_summary_file" ]; then
    stages_lines | tee "$stages_summary_file"
  else
    stages_lines
  fi
}
stages_lines() { [ ${#stages_summary[@]} -eq 0 ] || printf '%s\n' "${stages_summary[@]}"; }

stages_exit_if_failed() {
  [ ${#stages_failed[@]} -eq 0 ] || exit 1
}

stages_finish() {
  stages_print
  stages_exit_if_failed
}
