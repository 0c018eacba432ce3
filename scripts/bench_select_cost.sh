#!/usr/bin/env bash
# The selection's cost: the CPU seconds of a learned kernel's CV-selected fit
# (`kernlearn experiment --method M --select grid`: its SVM-CV stage, its own candidates
# and the fallback check, then the final fit) over those of SVM-CV alone, on the same
# splits. CPU (user + system) seconds rather than wall seconds, because the machine is
# shared and the selection runs in parallel over (candidate, fold): CPU time is the
# cost that does not depend on what else runs.
#
# The machine's speed drifts by up to ±25 % over minutes (a shared VM), so SVM-CV and
# the method are run back to back, RUNS times in turn: each pair gives a ratio, and the
# table reports the least CPU seconds of each and the median of the pairs' ratios.
#
# Usage (repository root, after `cargo build --release`):
#   nice -n 19 scripts/bench_select_cost.sh [REPEATS]       (default 20: SVM-CV takes
#   about 0.02 CPU s per split, so fewer splits make the ratio noisy)
# Environment: DATA (default ../shared/datasets), SETS (default "heart sonar wine"),
# METHODS (default "dank knpl mwumkl ldmkl swmkl lmkl clmkl"), BIN, RUNS (default 5).
set -euo pipefail
export LC_ALL=C # decimal points for sort and awk
REPEATS=${1:-20}
RUNS=${RUNS:-5}
DATA=${DATA:-../shared/datasets}
SETS=${SETS:-"heart sonar wine"}
METHODS=${METHODS:-"dank knpl mwumkl ldmkl swmkl lmkl clmkl"}
BIN=${BIN:-target/release/kernlearn}
cpu() { # CPU seconds of one `experiment` run of method $1 on dataset $2
  { /usr/bin/time -f "%U %S" "$BIN" experiment -q --method "$1" --select grid \
      --repeats "$REPEATS" --seed 0 --data "$DATA/$2.csv" > /dev/null; } 2>&1 |
    tail -1 | awk '{printf "%.2f", $1 + $2}'
}
echo "| dataset | method | SVM-CV CPU s | method CPU s | ratio (median of $RUNS pairs) |"
echo "| --- | --- | --- | --- | --- |"
for s in $SETS; do
  for m in $METHODS; do
    pairs=""
    for _ in $(seq "$RUNS"); do
      pairs="$pairs $(cpu svm "$s"),$(cpu "$m" "$s")"
    done
    base=$(echo "$pairs" | tr ' ' '\n' | grep , | cut -d, -f1 | sort -n | head -1)
    t=$(echo "$pairs" | tr ' ' '\n' | grep , | cut -d, -f2 | sort -n | head -1)
    ratio=$(echo "$pairs" | tr ' ' '\n' | grep , | awk -F, '{printf "%.4f\n", $2 / $1}' |
      sort -n | awk '{r[NR] = $1} END {m = (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2; printf "%.1f", m}')
    echo "| $s | $m | $base | $t | $ratio |"
  done
done
