#!/usr/bin/env bash
# A/B-compares two builds of the project on the same JMH cases, alternating them round by round so
# that drift of a shared machine hits both alike, and prints each case's per-round scores, the mean
# of each build and the ratio B / A.
#
#   pool-benchmarks/ab.sh A B [-r rounds] JMH-ARGS...
#
# A and B are git revisions (HEAD, main~1, a commit) or WORKTREE for the working tree as it is.
# Example, the change in the working tree against the last commit, hand-off mode at n = 2:
#   pool-benchmarks/ab.sh HEAD WORKTREE -r 3 TinyTask -p n=2 -p peer=WorkerPool-handoff -f 3 -wi 2 -w 1s -i 3 -r 1s
#
# On a 2-vCPU VM, scores of the same build move 20-40% between forks: compare means over several
# forks and rounds, and trust only differences larger than that spread (BENCHMARKS.md, "Noise").
# With -prof io.github.workerpool.benchmarks.CpuTimeProfiler it also prints each build's mean CPU
# nanoseconds per operation, steadier than throughput on a machine shared with other work.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
if [[ $# -lt 3 ]]; then
  sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
a="$1"; b="$2"; shift 2
rounds=2
if [[ "${1:-}" == "-r" ]]; then
  rounds="$2"; shift 2
fi
source "$here/java.sh"
work="$(mktemp -d)"
trap 'git -C "$root" worktree prune; rm -rf "$work"' EXIT

# Builds the benchmark jar of one revision into $work/<label>.jar.
build() {
  local rev="$1" label="$2" dir
  if [[ "$rev" == WORKTREE ]]; then
    dir="$root"
  else
    dir="$work/src-$label"
    git -C "$root" worktree add -q --detach "$dir" "$rev"
  fi
  echo "building $rev ..." >&2
  (cd "$dir" && ./mvnw -q -pl pool-benchmarks -am package -DskipTests) >&2
  cp "$dir/pool-benchmarks/target/benchmarks.jar" "$work/$label.jar"
  if [[ "$rev" != WORKTREE ]]; then
    git -C "$root" worktree remove --force "$dir"
  fi
}
build "$a" A
build "$b" B

for ((r = 1; r <= rounds; r++)); do
  for label in A B; do
    echo "round $r, build $label" >&2
    "$java" -jar "$work/$label.jar" "$@" -rf json -rff "$work/$label-$r.json" > "$work/$label-$r.log" 2>&1 \
      || { tail -20 "$work/$label-$r.log" >&2; exit 1; }
  done
done

python3 - "$work" "$rounds" "$a" "$b" <<'PY'
import json, sys
from collections import OrderedDict
work, rounds, names = sys.argv[1], int(sys.argv[2]), {"A": sys.argv[3], "B": sys.argv[4]}
cases = OrderedDict()
for label in "AB":
    for r in range(1, rounds + 1):
        for res in json.load(open(f"{work}/{label}-{r}.json")):
            params = " ".join(f"{k}={v}" for k, v in sorted(res.get("params", {}).items()))
            key = (res["benchmark"].rsplit(".", 2)[-2], params)
            m = res["primaryMetric"]
            c = cases.setdefault(key, {"unit": m["scoreUnit"], "A": [], "B": [], "cpuA": [], "cpuB": []})
            c[label].append(m["score"])
            cpu = res.get("secondaryMetrics", {}).get("cpu.per.op")
            if cpu:
                c["cpu" + label].append(cpu["score"])
print(f"A = {names['A']}, B = {names['B']}, {rounds} round(s), alternating")
for (bench, params), c in cases.items():
    mean = {l: sum(c[l]) / len(c[l]) for l in "AB" if c[l]}
    if len(mean) < 2:
        continue
    fmt = lambda xs: " ".join(f"{x:.4g}" for x in xs)
    print(f"{bench} {params} [{c['unit']}]")
    print(f"  A: {fmt(c['A'])}  mean {mean['A']:.4g}")
    print(f"  B: {fmt(c['B'])}  mean {mean['B']:.4g}")
    print(f"  B / A = {mean['B'] / mean['A']:.3f}")
    if c["cpuA"] and c["cpuB"]:
        ca, cb = sum(c["cpuA"]) / len(c["cpuA"]), sum(c["cpuB"]) / len(c["cpuB"])
        print(f"  CPU per op: A {ca:.0f} ns, B {cb:.0f} ns, B / A = {cb / ca:.3f}")
PY
