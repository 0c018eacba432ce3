#!/usr/bin/env bash
# The paired table: every learned-kernel method, under its default
# (CV-selected, with the fallback to the base SVM) settings, against SVM-CV on the same
# paired splits of the shared classification sets of KNPL / DANK Table 1.
#
# Usage (from the repository root, after `cargo build --release`):
#   nice -n 19 scripts/paired_table.sh [OUT_DIR] [REPEATS]
# OUT_DIR defaults to paired-out, REPEATS to 20. Environment:
#   DATA     folder of the datasets (default ../shared/datasets)
#   METHODS  methods to run (default "dank mwumkl lmkl ldmkl swmkl clmkl knpl")
#   SETS     dataset names (default "heart sonar wine glass ionosphere breast-cancer")
#   KNPL_SETS  datasets for KNPL, whose γ search is the slowest (default: $SETS)
# Writes OUT_DIR/<method>.{json,md,csv} (the full `kernlearn experiment` outputs) and
# OUT_DIR/paired.md: one row per (dataset, method) with the paired difference, its
# standard error, W/T/L, the Wilcoxon p-value and whether the method is worse than
# SVM-CV by more than one standard error; OUT_DIR/cost.md: per (dataset, method) the
# mean seconds of the method's whole selection (its SVM-CV stage, its own candidates
# and the fallback check) over SVM-CV's grid search on the same training halves, and
# their ratio.
set -euo pipefail
OUT=${1:-paired-out}
REPEATS=${2:-20}
DATA=${DATA:-../shared/datasets}
METHODS=${METHODS:-"dank mwumkl lmkl ldmkl swmkl clmkl knpl"}
SETS=${SETS:-"heart sonar wine glass ionosphere breast-cancer"}
KNPL_SETS=${KNPL_SETS:-$SETS}
BIN=${BIN:-target/release/kernlearn}
mkdir -p "$OUT"
for m in $METHODS; do
  sets=$SETS
  [ "$m" = knpl ] && sets=$KNPL_SETS
  args=()
  for s in $sets; do args+=(--data "$DATA/$s.csv"); done
  start=$(date +%s)
  "$BIN" experiment -q --method "$m" --select grid --baseline svm \
    --repeats "$REPEATS" --test-fraction 0.5 --scale 01 --folds 5 --seed 0 \
    "${args[@]}" --json --csv "$OUT/$m.csv" --markdown "$OUT/$m.md" --force > "$OUT/$m.json"
  echo "$m: $(( $(date +%s) - start )) s" >&2
done
{
  echo "| dataset | method | baseline | splits | baseline test | method test | paired Δ ± SE | W/T/L | Wilcoxon p | worse by > 1 SE | fell back |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
  for m in $METHODS; do
    # the rows of the paired table (11 columns once `fell back` is added)
    awk '/^\| dataset \| method \| baseline/ {on=1; getline; next} on && /^\|/ {print} on && !/^\|/ {on=0}' "$OUT/$m.md"
  done
} > "$OUT/paired.md"
{
  echo "| dataset | method | SVM-CV select s | method select s | ratio |"
  echo "| --- | --- | --- | --- | --- |"
  for m in $METHODS; do
    # rows of the main table: | dataset | n | d | method | metric | train | test | select s | fit s |
    awk -F' *\\| *' '/^\| --- \| --- \| --- \| --- \| --- \| --- \| --- \| --- \| --- \|$/ {on=1; next}
      on && /^\|/ { if ($5 == "SVM-CV") base[$2] = $9; else if ($2 in base) printf "| %s | %s | %.3f | %.3f | %.1f |\n", $2, $5, base[$2], $9, $9 / base[$2] }
      on && !/^\|/ {on=0}' "$OUT/$m.md"
  done
} > "$OUT/cost.md"
cat "$OUT/paired.md"
echo
cat "$OUT/cost.md"
