#!/bin/bash
# Long run of the parser property tests (crates/kernlearn/tests/parser_properties.rs),
# not part of CI: every property that runs by default gets PROPTEST_CASES cases, chosen
# so that the properties together see at least TOTAL generated inputs (default
# 1,000,000), in release mode. The properties run one after the other (one core), each
# timed; the table printed at the end is the one in docs/RELIABILITY.md, "Parsers:
# property tests". The ignored property (model files whose edited sizes still load, then
# predict) waits for the model validator and is not part of the run.
# Usage (from the repository root):
#   [TOTAL=1000000] [PROPTEST_RNG_SEED=N] scripts/fuzz_parsers.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TOTAL=${TOTAL:-1000000}
TEST=(cargo test --release -q -p kernlearn --test parser_properties)

cargo test --release -p kernlearn --test parser_properties --no-run
all=$("${TEST[@]}" -- --list 2>/dev/null | sed -n 's/: test$//p' | sort)
ignored=$("${TEST[@]}" -- --list --ignored 2>/dev/null | sed -n 's/: test$//p' | sort)
props=$(comm -23 <(echo "$all") <(echo "$ignored"))
n=$(echo "$props" | wc -l)
cases=$(((TOTAL + n - 1) / n))
echo "$n properties × $cases cases = $((n * cases)) generated inputs"
echo

since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'; }
failed=0
start=$(date +%s.%N)
printf '| property | cases | seconds | result |\n|---|---:|---:|---|\n'
for p in $props; do
  t0=$(date +%s.%N)
  if PROPTEST_CASES=$cases "${TEST[@]}" -- --exact "$p" >"/tmp/fuzz_parsers.$p.log" 2>&1; then
    result=ok
  else
    result="FAILED (see /tmp/fuzz_parsers.$p.log)"
    failed=$((failed + 1))
  fi
  printf '| `%s` | %d | %.1f | %s |\n' "$p" "$cases" "$(since "$t0")" "$result"
done
wall=$(since "$start")
echo
printf 'total: %d generated inputs in %.0f s (%d properties, %d failed)\n' \
  "$((n * cases))" "$wall" "$n" "$failed"
[ "$failed" -eq 0 ]
