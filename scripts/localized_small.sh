#!/bin/bash
# Localized MKL (ldmkl, swmkl, lmkl, clmkl) and UNIFORM on breast-cancer and pima, the
# thesis's Table 4.2-4.4 protocol as in docs/RESULTS.md: stratified 75/25 splits, C = 1,
# no selection, linear + quadratic + Gaussian (sigma = 1) kernels, SMO and MWU solvers.
# Usage (from the repository root): scripts/localized_small.sh [OUT_DIR]; REPEATS=20 by default.
set -euo pipefail
B=${B:-target/release/kernlearn}
D=${D:-../shared/datasets}
OUT=${1:-.}
K='linear@all;poly(degree=2,gamma=1,coef0=1)@all;rbf(sigma=1)@all'
for solver in smo mwu; do
  for m in ldmkl swmkl lmkl clmkl uniform; do
    [ "$m" = uniform ] && [ "$solver" = mwu ] && continue
    "$B" experiment --data "$D/breast-cancer.csv" --data "$D/pima.csv" \
      --method "$m" --solver "$solver" --kernels "$K" --select none \
      --repeats "${REPEATS:-20}" --test-fraction 0.25 --quiet \
      --json > "$OUT/small_${m}_${solver}.json"
  done
done
