#!/usr/bin/env bash
# Table 4 of Ong, Smola and Williamson 2005: hyperkernel C-SVM test error while λ_h varies
# (λ_Q = 1) and while λ_Q varies (λ_h = 0.6), 60/40 splits, no scaling.
#   REPEATS=5 DATASETS="syndata heart" scripts/hyperkernel_table4.sh
# Needs target/hyperkernel/syndata.csv (scripts/hyperkernel_table3.sh writes it) and the
# release binary (cargo build --release -p kernlearn-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
REPEATS=${REPEATS:-5}
DATA=${DATA:-../shared/datasets}
OUT=${OUT:-target/hyperkernel}
DATASETS=${DATASETS:-syndata heart}
BIN=${BIN:-target/release/kernlearn}   # a debug build is 30-60x slower
mkdir -p "$OUT"
for ds in $DATASETS; do
  f="$DATA/$ds.csv"; [ -f "$OUT/$ds.csv" ] && f="$OUT/$ds.csv"
  for lh in 0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9 0.92 0.94 0.96 0.98; do
    $BIN experiment --data "$f" --method hyperkernel --lambda-h $lh --select none --scale none \
      --test-fraction 0.4 --repeats "$REPEATS" --quiet --json > "$OUT/t4_${ds}_lh_${lh}.json"
  done
  for lq in 1e-4 1e-3 1e-2 1e-1 1 10 100 1e3 1e4 1e5; do
    $BIN experiment --data "$f" --method hyperkernel --lambda-q $lq --select none --scale none \
      --test-fraction 0.4 --repeats "$REPEATS" --quiet --json > "$OUT/t4_${ds}_lq_${lq}.json"
  done
done
python3 - "$OUT" $DATASETS <<'PY'
import json, pathlib, sys, statistics as st
out = pathlib.Path(sys.argv[1])
print("| data | λ_h: error over settings | mean sd over splits | λ_Q: error over settings | mean sd over splits |")
print("| --- | --- | ---: | --- | ---: |")
for ds in sys.argv[2:]:
    cells = []
    for kind in ("lh", "lq"):
        means, sds = [], []
        for p in sorted(out.glob(f"t4_{ds}_{kind}_*.json")):
            runs = json.loads(p.read_text())["datasets"][0]["runs"]
            e = [100 * (1 - r["test"]["accuracy"]) for r in runs]
            means.append(st.mean(e)); sds.append(st.stdev(e) if len(e) > 1 else 0.0)
        cells += [f"{st.mean(means):.1f}±{st.stdev(means):.1f} ({len(means)} settings)", f"{st.mean(sds):.1f}"]
    print(f"| {ds} | " + " | ".join(cells) + " |")
PY
