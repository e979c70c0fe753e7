#!/usr/bin/env bash
# Reruns the whole matrix of issue 17 on the current tree and prints every ratio it asks for.
# Run it on a quiet machine (nothing else running; load average below 1): about 40 minutes on 2 vCPUs.
#
#   pool-benchmarks/matrix17.sh            build the jar, run everything, print the ratio tables
#   pool-benchmarks/matrix17.sh --report results/matrix17-DATE   print the tables of an earlier run again
#   pool-benchmarks/matrix17.sh --smoke    every part once, tiny (a minute or two): checks the commands, not the numbers
#
# What it runs (JMH JSON of each part in pool-benchmarks/results/matrix17-DATE/):
#   queue-modes.json  QueueModesBenchmark: tiny tasks, WorkerPool vs the TPE with the same semantics, for
#                     unbounded, block-100/1000/1M, abort-100/1000/1M and hand-off; n = 2 and 256; 1 and 2
#                     producers; 3 forks x 3 iterations; -prof gc and CpuTimeProfiler (CPU ns per task).
#   spring.json       SpringLayerBenchmark: @Async on the starter's pool vs Boot's applicationTaskExecutor,
#                     throughput and bytes allocated per task (-prof gc).
#   scrape.json       ScrapeBenchmark: PrometheusMeterRegistry.scrape() and stats() with 10^6 tasks queued vs none.
#   ants.json         AntsBenchmark: 10^6 tasks sleeping 10 ms, capacity 10,000, one JVM per case, peak RSS:
#                     WorkerPool with an unbounded queue, a queue of 10,000 (queue-n), hand-off, virtual workers
#                     with a queue, and virtual threads + Semaphore.
#   ants-floor.json   AntsFloorBenchmark: the ants workload's no-pool baseline, 10^6 sleeps of 10 ms by threads that
#                     just loop (platform: 10,000 and 1,000 threads; virtual: 10,000), one JVM per case, peak RSS.
#   ants-warm.json    The virtual-thread ants cases (WorkerPool, VT + Semaphore, the no-pool floor) again after two
#                     warm-up runs in the same JVM: the single-shot figures above include the JIT compiling each one's code.
#   limits.json       SpinPairsBenchmark and PingPongBenchmark: the no-pool baselines of the hand-off misses.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/java.sh"

report() {
  CHART_DIR="$here" python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
def load(name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else []
def sec(r, k):
    m = r["secondaryMetrics"].get(k)
    return m["score"] if m else None
def fmt(x):
    return "-" if x is None else (f"{x/1e6:.2f}M" if x >= 1e5 else f"{x:.3g}")
rows = {}
for r in load("queue-modes.json"):
    p = r["params"]
    key = (p["config"], int(p["n"]), int(p["producers"]))
    rows.setdefault(key, {})[p["peer"]] = r
order = ["unbounded", "block-100", "block-1000", "block-1M", "abort-100", "abort-1000", "abort-1M", "handoff"]
panels = {}
print("## Tiny tasks: WorkerPool / ThreadPoolExecutor with the same semantics (target >= 1.2x)\n")
print("| config | n | producers | WorkerPool tasks/s | TPE tasks/s | ratio | accepted ratio (abort) | CPU ns/task WP / TPE | met |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for key in sorted(rows, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2])):
    w, t = rows[key].get("WorkerPool"), rows[key].get("TPE")
    if not w or not t:
        continue
    ws, ts = w["primaryMetric"]["score"], t["primaryMetric"]["score"]
    ratio = ws / ts
    acc = None
    if key[0].startswith("abort"):
        wa, ta = sec(w, "accepted"), sec(t, "accepted")
        acc = wa / ta if wa and ta else None
    judged = acc if acc is not None else ratio
    cw, ct = sec(w, "cpu.per.op"), sec(t, "cpu.per.op")
    cpu = f"{cw:.0f} / {ct:.0f}" if cw and ct else "-"
    panels.setdefault((key[1], key[2]), []).append((key[0], judged))
    print(f"| {key[0]} | {key[1]} | {key[2]} | {fmt(ws)} | {fmt(ts)} | {ratio:.2f} | {'' if acc is None else f'{acc:.2f}'} | {cpu} | {'yes' if judged >= 1.2 else 'no'} |")
if panels:
    sys.path.insert(0, os.environ["CHART_DIR"])
    from chart import write_svg
    write_svg([(f"n = {n}, {p} producer{'s' if p > 1 else ''}", bars) for (n, p), bars in sorted(panels.items())],
              os.path.join(d, "queue-modes.svg"),
              caption="WorkerPool / ThreadPoolExecutor with the same semantics, tiny tasks (abort rows: accepted tasks); "
                      "log scale, right of the black line = faster; dashed: the 1.2x target (orange: below it)",
              target=1.2)
spring = {}
for r in load("spring.json"):
    p = r["params"]
    spring.setdefault(int(p["producers"]), {})[p["executor"]] = r
if spring:
    print("\n## Spring layer: @Async on the starter's pool / Boot's applicationTaskExecutor (target >= 1.2x)\n")
    print("| producers | pool tasks/s | applicationTaskExecutor tasks/s | ratio | B/task pool / Boot |")
    print("|---:|---:|---:|---:|---:|")
    for k in sorted(spring):
        a, b = spring[k].get("pool"), spring[k].get("applicationTaskExecutor")
        if a and b:
            print(f"| {k} | {fmt(a['primaryMetric']['score'])} | {fmt(b['primaryMetric']['score'])} | "
                  f"{a['primaryMetric']['score'] / b['primaryMetric']['score']:.2f} | "
                  f"{sec(a, 'gc.alloc.rate.norm') or 0:.0f} / {sec(b, 'gc.alloc.rate.norm') or 0:.0f} |")
scr = {}
for r in load("scrape.json"):
    scr.setdefault(r["benchmark"].rsplit(".", 1)[-1], {})[int(r["params"]["queued"])] = r["primaryMetric"]["score"]
if scr:
    print("\n## Scrape with 10^6 tasks queued vs none (target: the same cost)\n")
    print("| what | queued | us per call, empty queue | us per call, queued | ratio |")
    print("|---|---:|---:|---:|---:|")
    for m, v in scr.items():
        lo, hi = min(v), max(v)
        if lo != hi:
            print(f"| {m} | {hi:,} | {v[lo]:.3g} | {v[hi]:.3g} | {v[hi] / v[lo]:.2f} |")
def ants_label(r):
    p = r["params"]
    if "peer" in p:
        return p["peer"]
    return f"no pool, {p['threads']} threads x {int(p['capacity']):,}"
ants = load("ants.json") + load("ants-floor.json")
if ants:
    print("\n## Ants workload (10^6 x 10 ms, capacity 10,000), single shot: one run per JVM, JIT included\n")
    print("| peer | wall s | peak RSS MB |")
    print("|---|---:|---:|")
    for r in ants:
        rss = sec(r, "rss.peak") or sec(r, "peak.rss")
        print(f"| {ants_label(r)} | {r['primaryMetric']['score'] / 1000:.2f} | {'-' if rss is None else f'{rss:.0f}'} |")
warm = load("ants-warm.json")
if warm:
    print("\n## Ants workload, virtual threads, warm: after two runs in the same JVM (mean of the next three)\n")
    print("| peer | wall s | error |")
    print("|---|---:|---:|")
    for r in warm:
        m = r["primaryMetric"]
        err = m.get("scoreError")
        err = f"{err / 1000:.2f}" if isinstance(err, (int, float)) and err == err else "-"
        print(f"| {ants_label(r)} | {m['score'] / 1000:.2f} | {err} |")
lim = load("limits.json")
if lim:
    print("\n## No-pool baselines (benchmark 6)\n")
    for r in lim:
        ps = " ".join(f"{k}={v}" for k, v in r.get("params", {}).items())
        print(f"- {r['benchmark'].rsplit('.', 2)[-2]}.{r['benchmark'].rsplit('.', 1)[-1]} {ps}: "
              f"{fmt(r['primaryMetric']['score'])} {r['primaryMetric']['scoreUnit']}")
PY
}

if [[ "${1:-}" == "--report" ]]; then
  report "$2"
  exit 0
fi

qm=(-f 3 -wi 2 -w 1s -i 3 -r 1s)
spring=(-f 3 -wi 2 -w 1s -i 3 -r 1s)
scrape=(-f 2)
ants=(-f 2)
ants_warm=(-f 2 -wi 2 -i 3)
floor_caps=(-p capacity=10000,1000)
limits=(-f 4 -wi 2 -w 1s -i 3 -r 1s)
if [[ "${1:-}" == "--smoke" ]]; then
  one=(-f 1 -wi 0 -i 1 -r 200ms)
  qm=("${one[@]}" -p config=unbounded,block-100,abort-100 -p n=2 -p producers=1)
  spring=("${one[@]}" -p producers=1)
  scrape=(-f 1 -wi 0 -i 1 -r 1s -p queued=0,1000)
  ants=(-f 1 -p tasks=2000 -p capacity=100 -p sleepMs=1)
  ants_warm=("${ants[@]}" -wi 1 -i 1)
  floor_caps=(-p capacity=100,50)
  limits=("${one[@]}")
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (run this on a quiet machine)" >&2
(cd "$root" && ./mvnw -q -pl pool-benchmarks -am package -DskipTests)
jar="$here/target/benchmarks.jar"
out="$here/results/matrix17-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
"$java" -version 2>&1 | head -1 | tee "$out/java.txt"
prof=(-prof gc -prof io.github.workerpool.benchmarks.CpuTimeProfiler)
"$java" -jar "$jar" QueueModesBenchmark "${qm[@]}" "${prof[@]}" -rf json -rff "$out/queue-modes.json"
"$java" -jar "$jar" SpringLayerBenchmark "${spring[@]}" "${prof[@]}" -rf json -rff "$out/spring.json"
"$java" -jar "$jar" ScrapeBenchmark "${scrape[@]}" -prof gc -rf json -rff "$out/scrape.json"
"$java" -jar "$jar" AntsBenchmark -p peer=WorkerPool-queue,WorkerPool-queue-n,WorkerPool-handoff,WorkerPool-virtual-queue,VT-semaphore \
    "${ants[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants.json"
"$java" -jar "$jar" AntsFloorBenchmark -p threads=platform \
    "${ants[@]}" "${floor_caps[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-floor-platform.json"
"$java" -jar "$jar" AntsFloorBenchmark -p threads=virtual \
    "${ants[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-floor-virtual.json"
python3 -c 'import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], "w"), indent=1)' \
    "$out/ants-floor.json" "$out/ants-floor-platform.json" "$out/ants-floor-virtual.json"
"$java" -jar "$jar" 'AntsBenchmark|AntsFloorBenchmark' -p peer=WorkerPool-virtual-queue,VT-semaphore -p threads=virtual \
    "${ants_warm[@]}" -rf json -rff "$out/ants-warm.json"
"$java" -jar "$jar" 'SpinPairs|PingPong' "${limits[@]}" -rf json -rff "$out/limits.json"
report "$out" | tee "$out/report.md"
echo "results: $out" >&2
