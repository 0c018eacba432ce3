#!/bin/bash
# Localized MKL (ldmkl, swmkl, lmkl, clmkl) and UNIFORM on breast-cancer and pima as in
# docs/RESULTS.md's first localized table: stratified 75/25 splits, C = 1, no selection,
# linear + quadratic + Gaussian (σ = 1, i.e. γ = 2^0) kernels, SMO and MWU solvers.
# Usage (from the repository root): scripts/localized_small.sh [OUT_DIR]; REPEATS=20 by default.
# Writes OUT_DIR/smo/<method>_g0.json and OUT_DIR/mwu/<method>_g0.json.
set -euo pipefail
OUT=${1:-.}
for solver in smo mwu; do
  EXPONENTS=0 REPEATS=${REPEATS:-20} SOLVER=$solver "$(dirname "$0")/localized_gamma.sh" "$OUT/$solver"
done
