#!/bin/bash
# Replays hostile inputs of the new families (sizes, devices, Gram-set manifests, options
# a variant does not read) against a kernlearn binary, each under a 30 s timeout and an
# 8 GB address-space limit; prints the exit status and the first words of the error.
# Every line should read rc=1 (a refusal), never 101 (panic), 124 (hang) or 134 (abort).
# Usage: cargo build --release -p kernlearn-cli && scripts/replay_hardening.sh
ROOT=$(cd "$(dirname "$0")/.." && pwd)
K=${K:-$ROOT/target/release/kernlearn}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cp "$ROOT/data/heart.csv" "$WORK/"
echo '{"kernels": ["../../../../etc/passwd"]}' > "$WORK/e.json"
cd "$WORK"
ulimit -v 8000000
run() { timeout 30 "$K" "$@" -q >/dev/null 2>err.txt; rc=$?; echo "rc=$rc  $* :: $(head -c 150 err.txt)"; }
run fit -d /dev/zero --format csv -o m.json
run predict --model /dev/zero -d heart.csv
run fit -d heart.csv -m ckl --fourier-features 100000000000 -o m.json
run fit -d heart.csv -m rff-linear --fourier-features 100000000000 -o m.json
run fit -d heart.csv -m dkmo --dkmo-hidden 100000000 -o m.json
run fit -d heart.csv -m dkmo --dkmo-hidden 100000,100000 -o m.json
run fit -d heart.csv -m dkmo --dkmo-embedding nystrom --dkmo-embeddings 100000000000 -o m.json
run figure --gates --n 100000000000 -o g.png
run fit -d heart.csv -m ckl --validation-fraction 0 -o m.json
run fit -d heart.csv -m hyperkernel --problem nu-svm -c 5 -o m.json
run fit -d heart.csv -m hyperkernel --problem c-svm --nu 0.2 -o m.json
run fit -d heart.csv -m hyperkernel --hyperkernel exp --lambda-h 0.5 -o m.json
run fit -d heart.csv -m svm --sigmas 1,2 -o m.json
run figure --kernels 'garbage!!' -o f.png
run fit -d e.json -m dkmo --kernel precomputed -o m.json
