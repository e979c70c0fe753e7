#!/usr/bin/env bash
# The adaptive-capacity harness (AdaptiveHarness): every algorithm and the static capacities K/4, K
# and 4K against a fake backend of capacity K, at 0.5, 1.25 and 2 x K and in a step from 0.5 to 2 x K,
# plus a no-pool baseline (a thread per task) at 0.5K. Defaults: K = 32, base 100 ms, 20 s a run,
# AIMD's runTimeout 1.15 x base.
# Writes JSON, Markdown tables and an SVG chart of the capacity over time to pool-benchmarks/results/.
#
#   pool-benchmarks/adaptive.sh                         the full run (25 runs of 20 s: about 9 minutes)
#   pool-benchmarks/adaptive.sh --seconds 10 --k 16     any AdaptiveHarness option (--k, --base-ms,
#                                                       --seconds, --late-after, --only <config>, --load <load>)
#
# Build the jar first: ./mvnw -pl pool-benchmarks -am package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="$here/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "missing $jar: run ./mvnw -pl pool-benchmarks -am package -DskipTests first" >&2
  exit 1
fi
source "$here/java.sh"
mkdir -p "$here/results"
out="$here/results/adaptive-$(date +%Y%m%d-%H%M%S).json"
"$java" -cp "$jar" io.github.workerpool.benchmarks.AdaptiveHarness --out "$out" "$@" 2>&1 | grep -v '^SLF4J'
python3 "$here/adaptive_chart.py" "$out" "${out%.json}.svg" > "${out%.json}.md"
echo "chart: ${out%.json}.svg   tables: ${out%.json}.md"
