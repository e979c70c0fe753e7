#!/usr/bin/env bash
# Runs the JMH suite and writes JMH JSON (plus a chart) to pool-benchmarks/results/.
#
#   pool-benchmarks/run.sh               full suite (about 30 minutes on 2 cores)
#   pool-benchmarks/run.sh --quick       every benchmark, short iterations, ants workload scaled down (~10 min)
#   pool-benchmarks/run.sh [--quick] TinyTask -p n=2    extra arguments go to JMH (benchmark regex, -p, -prof ...)
#
# Uses $JAVA_HOME, or the Temurin 25 JDK if present (virtual-thread peers need Java 21+), else `java`.
# Build the jar first: ./mvnw -pl pool-benchmarks -am package -DskipTests
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
jar="$here/target/benchmarks.jar"
if [[ ! -f "$jar" ]]; then
  echo "missing $jar: run ./mvnw -pl pool-benchmarks -am package -DskipTests first" >&2
  exit 1
fi
source "$here/java.sh"
require_java21 # the default peer lists have virtual-thread peers, and -foe stops at the first error
mode=full
if [[ "${1:-}" == "--quick" ]]; then
  mode=quick
  shift
fi
mkdir -p "$here/results"
out="$here/results/jmh-$mode-$(date +%Y%m%d-%H%M%S).json"
profilers=(-prof gc -prof io.github.workerpool.benchmarks.PeakRssProfiler -prof io.github.workerpool.benchmarks.CpuTimeProfiler)
if [[ "$mode" == quick ]]; then
  opts=(-f 1 -wi 1 -w 500ms -i 2 -r 1s -p tasks=100000 -p capacity=1000)
else
  opts=()
fi
"$java" -version 2>&1 | head -1
"$java" -jar "$jar" -foe true "${opts[@]}" "${profilers[@]}" -rf json -rff "$out" "$@"
echo "JMH JSON: $out"
python3 "$here/chart.py" "$out" "${out%.json}.svg" > "${out%.json}.md"
echo "chart: ${out%.json}.svg   tables: ${out%.json}.md"
