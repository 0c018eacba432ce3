#!/usr/bin/env bash
# DKMO paper reproduction on UCI mfeat (docs/RESULTS.md, "DKMO"):
#   1. single kernel per view: DKMO vs the kernel SVM (SVM-CV: σ, C by 5-fold CV), paired
#      on the same 80/20 splits (the paper's Fig. 5 comparison);
#   2. fusion of the six views: concatenated features + SVM-CV, UNIFORM, MWUMKL, EasyMKL
#      (C by CV) and M-DKMO, the six per-view Gaussians of the §V-A width rule
#      (the paper's Tables I-III layout);
#   3. the kernel-only path: M-DKMO fitted on six Gram files (no features) and scored on
#      the test rows of the same kernels;
#   4. the kernel-dropout convergence curves (the paper's Fig. 2): DKMO on one view with
#      kernel dropout 0.5 / 0, sum / concatenation fusion, validation accuracy per epoch;
#   5. the benchmark: one M-DKMO fit on mfeat's training part pinned to two cores.
# Usage: scripts/dkmo_mfeat.sh BIN DATA_DIR OUT_DIR [REPEATS]
#   BIN: the kernlearn binary; DATA_DIR: written by scripts/dkmo_mfeat_prepare.py.
#   DKMO_OPTS: extra options of every DKMO / M-DKMO run (e.g. a smaller network:
#   "--dkmo-hidden 64,32 --landmarks 50"); BENCH=1 runs the benchmark (5.).
set -u
BIN=$1; DATA=$2; OUT=$3; R=${4:-10}
mkdir -p "$OUT"
KERNELS=$(cat "$DATA/kernels.txt")
CORES=$(nproc)
EXP="experiment --repeats $R --test-fraction 0.2 --scale standard --seed 1 --quiet --force"

# 5. benchmark on two cores, beside the rest
[ "${BENCH:-0}" = 1 ] && ( start=$(date +%s.%N)
  taskset -c 0,1 env RAYON_NUM_THREADS=2 "$BIN" fit -d "$DATA/mfeat_train.csv" \
    --method m-dkmo --kernels "$KERNELS" --scale standard --seed 1 --quiet --force \
    -o "$OUT/bench-model.json" > "$OUT/bench.txt" 2>&1
  echo "wall_seconds $(python3 -c "print($(date +%s.%N) - $start)")" >> "$OUT/bench.txt" ) &
PIN=""; [ "${BENCH:-0}" = 1 ] && PIN="taskset -c 2-$((CORES - 1))"
D=${DKMO_OPTS:-}

# 3. kernel only
$PIN "$BIN" evaluate -d "$DATA/gram/train.json" --test "$DATA/gram/test.json" --method m-dkmo $D \
    --kernel precomputed --seed 1 --quiet > "$OUT/kernel-only.txt" 2>&1

# 4. kernel dropout (Fig. 2): no early stopping, 60 epochs, the validation curve (no refit)
for fusion in sum concat; do
  for kd in 0.5 0; do
    $PIN "$BIN" fit -d "$DATA/mfeat_fou.csv" --method dkmo $D --scale standard --seed 1 --quiet --force \
        --dkmo-fusion $fusion --kernel-dropout $kd --epochs 60 --patience 60 --dkmo-no-refit \
        -o "$OUT/fig2-$fusion-$kd.json" --trace "$OUT/fig2-$fusion-$kd.csv" > /dev/null 2>&1
  done
done
# 1. single kernels
VIEWS=""
for v in fou fac kar pix zer mor; do VIEWS="$VIEWS -d $DATA/mfeat_$v.csv"; done
$PIN "$BIN" $EXP $VIEWS --method dkmo $D --select grid --baseline svm \
    --markdown "$OUT/views.md" --csv "$OUT/views.csv" > "$OUT/views.txt" 2>&1
# the paper's own baseline: the SVM on the same width-rule Gaussian (γ = 1/(2d) after
# standard scaling, i.e. σ = √(2d)), only C by CV
for vd in fou:76 fac:216 kar:64 pix:240 zer:47 mor:6; do
  v=${vd%%:*}; s=$(python3 -c "print((2 * ${vd##*:}) ** 0.5)")
  $PIN "$BIN" $EXP -d "$DATA/mfeat_$v.csv" --method svc --select grid --sigmas "$s" \
      --csv "$OUT/svmrule-$v.csv" > "$OUT/svmrule-$v.txt" 2>&1
done

# 2. fusion
$PIN "$BIN" $EXP -d "$DATA/mfeat_all.csv" --method svc --select grid \
    --markdown "$OUT/fusion-concat.md" > "$OUT/fusion-concat.txt" 2>&1
for m in uniform mwumkl easymkl; do
  $PIN "$BIN" $EXP -d "$DATA/mfeat_all.csv" --method $m --kernels "$KERNELS" --select grid \
      --markdown "$OUT/fusion-$m.md" --csv "$OUT/fusion-$m.csv" > "$OUT/fusion-$m.txt" 2>&1
done
# M-DKMO one repeat per run (repeat r = seed 1 + r, the same split), so that finished
# repeats are kept when a long run is stopped
for r in $(seq 0 $((R - 1))); do
  $PIN "$BIN" experiment --repeats 1 --test-fraction 0.2 --scale standard --quiet --force \
      --seed $((1 + r)) -d "$DATA/mfeat_all.csv" --method m-dkmo $D \
      --kernels "$KERNELS" --select none \
      --csv "$OUT/fusion-m-dkmo-$r.csv" > "$OUT/fusion-m-dkmo-$r.txt" 2>&1
done

wait
python3 "$(dirname "$0")/dkmo_mfeat_tables.py" "$OUT"
