#!/usr/bin/env bash
# Reruns the whole matrix of issue 17 on the current tree and prints every ratio it asks for.
# Run it on a quiet machine (nothing else running; load average below 1): about 70 minutes on 2 vCPUs.
#
#   pool-benchmarks/matrix17.sh            build the jar, run everything, print the ratio tables
#   pool-benchmarks/matrix17.sh --report results/matrix17-DATE   print the tables of an earlier run again
#   pool-benchmarks/matrix17.sh --smoke    every part once, tiny (a minute or two): checks the commands, not the numbers
#
# What it runs (JMH JSON of each part in pool-benchmarks/results/matrix17-DATE/):
#   queue-modes.json  QueueModesBenchmark: tiny tasks, WorkerPool vs the TPE with the same semantics, for
#                     unbounded, block-100/1000/1M, abort-100/1000/1M and hand-off; n = 2 and 256; 1 and 2
#                     producers; 3 forks x 3 iterations; -prof gc and CpuTimeProfiler (CPU ns per task).
#   close-rows.json   close-rows.sh: every tiny-task row again, in 3 alternating rounds of one fork per peer (one
#                     run of 3 forks cannot tell 1.25x from 1.05x at n = 2 on this machine); the rounds' ratio
#                     is the row's verdict.
#   spring.json       SpringLayerBenchmark: @Async on the starter's pool vs Boot's applicationTaskExecutor,
#                     throughput and bytes allocated per task (-prof gc).
#   scrape.json       ScrapeBenchmark: PrometheusMeterRegistry.scrape() and stats() with 10^6 tasks queued vs none.
#   ants.json         AntsBenchmark, platform workers: 10^6 tasks sleeping 10 ms, capacity 10,000, one JVM per case,
#                     peak RSS: WorkerPool with an unbounded queue, a queue of 10,000 (queue-n), hand-off; the TPE with
#                     the queue mode's semantics (a fixed pool of 10,000 and an unbounded queue), and the same TPE sized
#                     to the floor's 1,000 threads.
#   ants-floor.json   AntsFloorBenchmark, platform threads: the no-pool baseline, 10^6 sleeps of 10 ms by threads that
#                     just loop (10,000 and 1,000 threads), and 1,000 threads taking the sleeps from a full array (the
#                     least memory a queued backlog can take), one JVM per case, peak RSS.
#   ants-virtual.json The virtual-worker cases, one JVM per run, in alternating rounds (round 1: each case once, then
#                     round 2, ...) so that the machine's drift hits all alike: WorkerPool with virtual workers and a
#                     queue, the TPE with its semantics (10,000 virtual threads, unbounded queue), virtual threads +
#                     Semaphore, and the no-pool floor (10,000 virtual threads looping; taking from a full array;
#                     taking from a queue the benchmark thread fills meanwhile, the queue mode's shape).
#                     Single shots of 1.5 s move 10% from run to run, so one or two runs cannot tell 5% apart.
#   ants-warm.json    The virtual-thread ants cases again after two warm-up runs in the same JVM: the single-shot
#                     figures include the JIT compiling each one's code.
#   limits.json       SpinPairsBenchmark and PingPongBenchmark: the no-pool baselines of the hand-off misses.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
source "$here/java.sh"

report() {
  CHART_DIR="$here" python3 - "$1" <<'PY'
import json, os, sys
import statistics as st
d = sys.argv[1]
def load(name):
    p = os.path.join(d, name)
    return json.load(open(p)) if os.path.exists(p) else []
def sec(r, k):
    m = r["secondaryMetrics"].get(k)
    return m["score"] if m else None
def fmt(x):
    return "-" if x is None else (f"{x/1e6:.2f}M" if x >= 1e5 else f"{x:.3g}")
# Student's t, two-sided 95%, by degrees of freedom: with 3 rounds "2 standard errors" is an 82%
# interval, not 95% (review helper-165).
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
       11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
       20: 2.086, 25: 2.060, 30: 2.042}
def t95(df):
    """The factor for df degrees of freedom (the next smaller one tabled: a little wider)."""
    return 1.96 if df > 120 else T95[max(k for k in T95 if k <= df)]
def paired(a, b):
    """The mean of the paired ratios a[i] / b[i], and its 95% half-interval by Student's t (nan for one pair)."""
    pr = [x / y for x, y in zip(a, b)]
    return st.mean(pr), (t95(len(pr) - 1) * st.stdev(pr) / len(pr) ** 0.5 if len(pr) > 1 else float("nan"))
rows = {}
for r in load("queue-modes.json"):
    p = r["params"]
    key = (p["config"], int(p["n"]), int(p["producers"]))
    rows.setdefault(key, {})[p["peer"]] = r
order = ["unbounded", "block-100", "block-1000", "block-1M", "abort-100", "abort-1000", "abort-1M", "handoff"]
panels = {}
print("## Tiny tasks: WorkerPool / ThreadPoolExecutor with the same semantics (target >= 1.2x)\n")
print("| config | n | producers | WorkerPool tasks/s | TPE tasks/s | ratio | accepted ratio (abort) | CPU ns per submit (rejected ones too) WP / TPE | met |")
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
close = {}
for r in load("close-rows.json"):
    p = r["params"]
    score = sec(r, "accepted") if p["config"].startswith("abort") else r["primaryMetric"]["score"]
    close.setdefault((p["config"], int(p["n"]), int(p["producers"])), {}).setdefault(p["peer"], []).append(score)
if close:
    rounds = max(len(v) for row in close.values() for v in row.values())
    print(f"\n## Every row again, {rounds} alternating rounds of one fork per peer (close-rows.sh): the verdict\n")
    print("| config | n | producers | WorkerPool mean | TPE mean | ratio of means | paired ratio, mean +- 95% | met (ratio of means) |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for key in sorted(close, key=lambda k: (order.index(k[0]) if k[0] in order else 99, k[1], k[2])):
        w, t = close[key].get("WorkerPool", []), close[key].get("TPE", [])
        if not w or len(w) != len(t):
            continue
        ratio = st.mean(w) / st.mean(t)
        mean, half = paired(w, t)
        print(f"| {key[0]} | {key[1]} | {key[2]} | {fmt(st.mean(w))} | {fmt(st.mean(t))} | {ratio:.2f} | "
              f"{mean:.2f} +- {half:.2f} | {'yes' if ratio >= 1.2 else 'no'} |")
        bars = panels.get((key[1], key[2]), [])
        panels[(key[1], key[2])] = [(c, ratio if c == key[0] else v) for c, v in bars]
if panels:
    sys.path.insert(0, os.environ["CHART_DIR"])
    from chart import write_svg
    write_svg([(f"n = {n}, {p} producer{'s' if p > 1 else ''}", bars) for (n, p), bars in sorted(panels.items())],
              os.path.join(d, "queue-modes.svg"),
              caption="WorkerPool / TPE, same semantics, tiny tasks (abort: accepted; each row's alternating rounds); "
                      "log scale; dashed: 1.2x (orange: below)",
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
        return p["peer"] if int(p["capacity"]) == 10000 else f"{p['peer']} x {int(p['capacity']):,}"
    what = {"none": "looping", "queue": "fed through a queue meanwhile", "linked": "taking from a full linked queue"}.get(p.get("backlog", "none"), f"taking from a full {p.get('backlog')}")
    return f"no pool, {p['threads']} threads x {int(p['capacity']):,}, {what}"
ants = load("ants.json") + load("ants-floor.json")
if ants:
    print("\n## Ants workload (10^6 x 10 ms, capacity 10,000), platform threads, single shot: one run per JVM, JIT included\n")
    print("| peer | wall s | peak RSS MB |")
    print("|---|---:|---:|")
    for r in ants:
        rss = sec(r, "rss.peak") or sec(r, "peak.rss")
        print(f"| {ants_label(r)} | {r['primaryMetric']['score'] / 1000:.2f} | {'-' if rss is None else f'{rss:.0f}'} |")
vr = load("ants-virtual.json")
if vr:
    runs = {}
    for r in vr:
        runs.setdefault(ants_label(r), []).append((r["primaryMetric"]["score"] / 1000, sec(r, "rss.peak")))
    base = next((v for k, v in runs.items() if k.startswith("VT-semaphore")), None)
    print(f"\n## Ants workload, virtual threads, single shot in alternating rounds ({len(base or [])} rounds, one JVM per run)\n")
    print("| peer | mean wall s | median | min-max | / VT-semaphore (means) | paired ratio, mean +- 95% | peak RSS MB (mean) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for label, xs in runs.items():
        t = [x[0] for x in xs]
        m = [x[1] for x in xs if x[1] is not None]
        ratio = pairs = "-"
        if base and len(base) == len(t):
            b = [x[0] for x in base]
            ratio = f"{st.mean(t) / st.mean(b):.3f}"
            if len(t) > 1:
                mean, half = paired(t, b)
                pairs = f"{mean:.3f} +- {half:.3f}"
        rss = f"{st.mean(m):.0f}" if m else "-"
        print(f"| {label} | {st.mean(t):.3f} | {st.median(t):.3f} | {min(t):.2f}-{max(t):.2f} | {ratio} | {pairs} | {rss} |")
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

# Concatenates JMH JSON result files (arguments 2...) into one (argument 1).
merge() {
  python3 -c 'import json,sys; json.dump(sum((json.load(open(f)) for f in sys.argv[2:]), []), open(sys.argv[1], "w"), indent=1)' "$@"
}

if [[ "${1:-}" == "--report" ]]; then
  report "$2"
  exit 0
fi
require_java21 # after --report, which only reads saved JSON (review helper-169)

qm=(-f 3 -wi 2 -w 1s -i 3 -r 1s)
close_rounds=3
spring=(-f 3 -wi 2 -w 1s -i 3 -r 1s)
scrape=(-f 2)
ants=(-f 2)
ants_cap=()
ants_once=(-f 1)
virtual_rounds=8
ants_warm=(-f 2 -wi 2 -i 3)
floor_caps=(-p capacity=10000,1000)
tpe_floor_cap=(-p capacity=1000)
limits=(-f 4 -wi 2 -w 1s -i 3 -r 1s)
if [[ "${1:-}" == "--smoke" ]]; then
  one=(-f 1 -wi 0 -i 1 -r 200ms)
  qm=("${one[@]}" -p config=unbounded,block-100,abort-100 -p n=2 -p producers=1)
  close_rounds=1
  spring=("${one[@]}" -p producers=1)
  scrape=(-f 1 -wi 0 -i 1 -r 1s -p queued=0,1000)
  ants=(-f 1 -p tasks=2000 -p sleepMs=1)
  ants_cap=(-p capacity=100)
  ants_once=("${ants[@]}")
  virtual_rounds=2
  ants_warm=("${ants[@]}" "${ants_cap[@]}" -wi 1 -i 1)
  floor_caps=(-p capacity=100,50)
  tpe_floor_cap=(-p capacity=50)
  limits=("${one[@]}")
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) (run this on a quiet machine)" >&2
(cd "$root" && ./mvnw -q -pl pool-benchmarks -am package -DskipTests)
jar="$here/target/benchmarks.jar"
out="$here/results/matrix17-$(date +%Y%m%d-%H%M%S)"
mkdir -p "$out"
"$java" -version 2>&1 | head -1 | tee "$out/java.txt"
prof=(-prof gc -prof io.github.workerpool.benchmarks.CpuTimeProfiler)
"$java" -jar "$jar" -foe true QueueModesBenchmark "${qm[@]}" "${prof[@]}" -rf json -rff "$out/queue-modes.json"
"$here/close-rows.sh" "$out" "$close_rounds"
"$java" -jar "$jar" -foe true SpringLayerBenchmark "${spring[@]}" "${prof[@]}" -rf json -rff "$out/spring.json"
"$java" -jar "$jar" -foe true ScrapeBenchmark "${scrape[@]}" -prof gc -rf json -rff "$out/scrape.json"
"$java" -jar "$jar" -foe true AntsBenchmark -p peer=WorkerPool-queue,WorkerPool-queue-n,WorkerPool-handoff,TPE-LBQ \
    "${ants[@]}" "${ants_cap[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-platform.json"
"$java" -jar "$jar" -foe true AntsBenchmark -p peer=TPE-LBQ "${ants[@]}" "${tpe_floor_cap[@]}" \
    -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-tpe-floor-cap.json"
merge "$out/ants.json" "$out/ants-platform.json" "$out/ants-tpe-floor-cap.json"
"$java" -jar "$jar" -foe true AntsFloorBenchmark -p threads=platform -p backlog=none \
    "${ants[@]}" "${floor_caps[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-floor-loop.json"
"$java" -jar "$jar" -foe true AntsFloorBenchmark -p threads=platform -p backlog=array \
    "${ants[@]}" "${tpe_floor_cap[@]}" -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-floor-array.json"
merge "$out/ants-floor.json" "$out/ants-floor-loop.json" "$out/ants-floor-array.json"
rounds=()
for ((i = 1; i <= virtual_rounds; i++)); do
  echo "virtual ants, round $i of $virtual_rounds" >&2
  "$java" -jar "$jar" -foe true AntsBenchmark -p peer=WorkerPool-virtual-queue,TPE-LBQ-virtual,VT-semaphore "${ants_once[@]}" "${ants_cap[@]}" \
      -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-virtual-$i-peers.json" >/dev/null
  "$java" -jar "$jar" -foe true AntsFloorBenchmark -p threads=virtual -p backlog=none,array,linked,queue "${ants_once[@]}" "${ants_cap[@]}" \
      -prof io.github.workerpool.benchmarks.PeakRssProfiler -rf json -rff "$out/ants-virtual-$i-floor.json" >/dev/null
  rounds+=("$out/ants-virtual-$i-peers.json" "$out/ants-virtual-$i-floor.json")
done
merge "$out/ants-virtual.json" "${rounds[@]}"
rm -f "${rounds[@]}"
"$java" -jar "$jar" -foe true 'AntsBenchmark|AntsFloorBenchmark' -p peer=WorkerPool-virtual-queue,TPE-LBQ-virtual,VT-semaphore \
    -p threads=virtual -p backlog=none "${ants_warm[@]}" -rf json -rff "$out/ants-warm.json"
"$java" -jar "$jar" -foe true 'SpinPairs|PingPong' "${limits[@]}" -rf json -rff "$out/limits.json"
report "$out" | tee "$out/report.md"
echo "results: $out" >&2
