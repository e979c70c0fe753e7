#!/usr/bin/env bash
# Measures again, in alternating rounds, every tiny-task row of a matrix17.sh run, and writes
# close-rows.json beside that run's queue-modes.json. Every row, whatever its first ratio: at n = 2
# one run of 3 forks can catch either peer in its slow state (a row read 0.78x in one run and 1.5x+
# in its rounds), and measuring only the rows that came out low (as this script did until the
# twenty-eighth round) lets chance lift a row but never lower one (a review of the suite).
#
#   pool-benchmarks/close-rows.sh RESULTS_DIR [ROUNDS]      (default 3 rounds; matrix17.sh calls it)
#
# Why: at n = 2 on this 2-vCPU VM one configuration's ratio moves by 20-40% between runs of 3 forks
# (BENCHMARKS.md, "Noise"), so a single run cannot tell 1.25x from 1.05x. Each round runs every
# close row once per peer, one fork each (2 x 1 s warm-up, 3 x 1 s measured), the peers alternating,
# so the machine's drift hits both alike; the report then gives each row's ratio of the means and
# the paired ratio with its 95% interval.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
source "$here/java.sh"
dir="$1"
rounds="${2:-3}"
jar="$here/target/benchmarks.jar"
rows="$(python3 - "$dir/queue-modes.json" <<'PY'
import json, sys
rows = {}
for r in json.load(open(sys.argv[1])):
    p = r["params"]
    key = (p["config"], p["n"], p["producers"])
    score = r["primaryMetric"]["score"]
    if p["config"].startswith("abort"):
        score = r["secondaryMetrics"]["accepted"]["score"]
    rows.setdefault(key, {})[p["peer"]] = score
for (config, n, producers), s in sorted(rows.items()):
    if "WorkerPool" in s and "TPE" in s:
        print(config, n, producers)
PY
)"
if [[ -z "$rows" ]]; then
  echo "no row with both peers: nothing to measure again" >&2
  echo "[]" > "$dir/close-rows.json"
  exit 0
fi
files=()
for ((i = 1; i <= rounds; i++)); do
  while read -r config n producers; do
    for peer in WorkerPool TPE; do
      echo "close rows, round $i of $rounds: $config n=$n producers=$producers $peer" >&2
      f="$dir/close-$i-$config-$n-$producers-$peer.json"
      "$java" -jar "$jar" -foe true QueueModesBenchmark -p config="$config" -p n="$n" -p producers="$producers" -p peer="$peer" \
          -f 1 -wi 2 -w 1s -i 3 -r 1s -prof io.github.workerpool.benchmarks.CpuTimeProfiler \
          -rf json -rff "$f" >/dev/null
      files+=("$f")
    done
  done <<< "$rows"
done
python3 -c 'import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], "w"), indent=1)' \
    "$dir/close-rows.json" "${files[@]}"
rm -f "${files[@]}"
