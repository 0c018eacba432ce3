#!/usr/bin/env bash
# Issue 19's cost criterion: the CPU seconds of a learned kernel's CV-selected fit
# (`kernlearn experiment --method M --select grid`: its SVM-CV stage, its own candidates
# and the fallback check, then the final fit) over those of SVM-CV alone, on the same
# splits. CPU (user + system) seconds rather than wall seconds, because the machine is
# shared and the selection runs in parallel over (candidate, fold): CPU time is the
# cost that does not depend on what else runs.
#
# Usage (repository root, after `cargo build --release`):
#   nice -n 19 scripts/bench_select_cost.sh [REPEATS]       (default 20: SVM-CV takes
#   about 0.02 CPU s per split, so fewer splits make the ratio noisy)
# Environment: DATA (default ../shared/datasets), SETS (default "heart sonar wine"),
# METHODS (default "dank knpl mwumkl ldmkl swmkl lmkl clmkl"), BIN, RUNS (default 3:
# each CPU time is the least of that many runs, since on a shared machine a run can
# only be slowed by others, never sped up; single runs varied by up to ±25 %).
set -euo pipefail
REPEATS=${1:-20}
RUNS=${RUNS:-3}
DATA=${DATA:-../shared/datasets}
SETS=${SETS:-"heart sonar wine"}
METHODS=${METHODS:-"dank knpl mwumkl ldmkl swmkl lmkl clmkl"}
BIN=${BIN:-target/release/kernlearn}
cpu() { # least CPU seconds of RUNS `experiment` runs of method $1 on dataset $2
  local t best=""
  for _ in $(seq "$RUNS"); do
    t=$( { /usr/bin/time -f "%U %S" "$BIN" experiment -q --method "$1" --select grid \
           --repeats "$REPEATS" --seed 0 --data "$DATA/$2.csv" > /dev/null; } 2>&1 | tail -1)
    best=$(echo "$t $best" | awk '{s = $1 + $2; if ($3 == "" || s < $3) printf "%.2f", s; else printf "%.2f", $3}')
  done
  echo "$best"
}
echo "| dataset | method | SVM-CV CPU s | method CPU s | ratio |"
echo "| --- | --- | --- | --- | --- |"
for s in $SETS; do
  base=$(cpu svm "$s")
  for m in $METHODS; do
    t=$(cpu "$m" "$s")
    echo "| $s | $m | $base | $t | $(awk -v a="$t" -v b="$base" 'BEGIN {printf "%.1f", a / b}') |"
  done
done
