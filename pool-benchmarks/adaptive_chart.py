#!/usr/bin/env python3
"""Turns AdaptiveHarness JSON into Markdown tables (stdout) and an SVG chart of the capacity over time.

    python3 adaptive_chart.py adaptive.json adaptive.svg > adaptive.md

One panel per load; in each, the capacity of every pool every 100 ms (the algorithms solid, the
static capacities dashed) and the band [0.75K, 1.25K] shaded. The tables' p99s count from each
task's scheduled arrival (coordinated omission accounted); "no pool" is the baseline row (a thread
per task, same schedule, same backend) that shows the machine's own tail. Standard library only.
"""
import json
import sys

COLORS = {"gradient2": "#1f77b4", "aimd": "#d62728", "vegas": "#2ca02c",
          "static K/4": "#999999", "static K": "#555555", "static 4K": "#bbbbbb"}


def settle_from(limits, k, start):
    """Seconds from sample `start` until the capacity enters [0.75K, 1.25K] for good; -1 if it never does."""
    last_out = start - 1
    for i in range(start, len(limits)):
        if limits[i] < 0.75 * k or limits[i] > 1.25 * k:
            last_out = i
    return -1 if last_out == len(limits) - 1 else (last_out + 1 - start) / 10


def table(data):
    k, base = data["k"], data["baseMs"]
    out = [f"K = {k}, base run time {base} ms ({k * 1000 / base:.0f} tasks/s at most), "
           f"{data['seconds']:.0f} s a run, aimd run-timeout {data['lateAfter']} x base, Java {data['java']}\n"]
    loads = []
    for r in data["runs"]:
        if r["load"] not in loads:
            loads.append(r["load"])
    for load in loads:
        runs = [r for r in data["runs"] if r["load"] == load]
        best = max((r["throughput"] for r in runs if r["config"].startswith("static")), default=0)
        baseline = next((r for r in runs if r["config"] == "no pool"), None)
        steady_best = max((r.get("steadyThroughput", 0) for r in runs if r["config"].startswith("static")), default=0)
        out.append(f"### load {load}\n")
        step = load.startswith("step")
        out.append("| pool | tasks/s | vs best static | from 10 s: tasks/s | vs best static | rejected | p50 ms | p99 ms | p99 from 10 s, ms "
                   "| p99 from 10 s / base | / no pool's | generator late p99 ms | run p50 ms | run p99 ms "
                   f"| {'settled after the step' if step else 'settled'} (s) | in band after 10 s "
                   "| mean capacity after 10 s | load average |")
        out.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for r in runs:
            if step:
                at = int(round(len(r["limits"]) / 3))
                s = settle_from(r["limits"], k, at)
                settle = "never" if s < 0 else f"{s:.1f}"
            else:
                settle = "never" if r["settleSeconds"] < 0 else f"{r['settleSeconds']:.1f}"
            band = "-" if r["inBandAfter10s"] < 0 else f"{100 * r['inBandAfter10s']:.0f}%"
            ratio = f"{r['throughput'] / best:.2f}" if best else "-"
            st = r.get("steadyThroughput", 0)
            steady_ratio = f"{st / steady_best:.2f}" if steady_best else "-"
            sp99 = r.get('steadyP99Ms', float('nan'))
            vs_base = f"{sp99 / base:.2f}x"
            vs_none = f"{sp99 / baseline['steadyP99Ms']:.2f}x" if baseline and baseline.get('steadyP99Ms') else "-"
            late = f"{r['lateP99Ms']:.1f}" if "lateP99Ms" in r else "-"
            if r["config"] == "no pool":
                settle, band, mean = "-", "-", "-"
            else:
                mean = f"{r['meanLimitAfter10s']:.1f}"
            out.append(f"| {r['config']} | {r['throughput']:.0f} | {ratio} | {st:.0f} | {steady_ratio} | {r['rejected']} | {r['p50Ms']:.1f} "
                       f"| {r['p99Ms']:.1f} | {sp99:.1f} | {vs_base} | {vs_none} | {late} | {r['runP50Ms']:.1f} | {r['runP99Ms']:.1f} | {settle} | {band} "
                       f"| {mean} | {r.get('loadAverage', '?')} |")
        out.append("")
    return "\n".join(out)


def svg(data):
    k = data["k"]
    loads = []
    for r in data["runs"]:
        if r["load"] not in loads:
            loads.append(r["load"])
    pw, ph, left, top, gap = 440, 230, 50, 40, 60
    cols = 2
    rows = (len(loads) + cols - 1) // cols
    width = left + cols * (pw + gap)
    height = top + rows * (ph + gap) + 40
    ymax = 2.5 * k
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
             f'font-family="sans-serif" font-size="11">',
             f'<rect width="{width}" height="{height}" fill="white"/>',
             f'<text x="{left}" y="20" font-size="14">Capacity over time against a backend of capacity K = {k} '
             f'(band: K &#177; 25%; static 4K = {4 * k} is off the top)</text>']
    for i, load in enumerate(loads):
        x0 = left + (i % cols) * (pw + gap)
        y0 = top + (i // cols) * (ph + gap)
        runs = [r for r in data["runs"] if r["load"] == load and r["config"] != "no pool"]
        n = max(len(r["limits"]) for r in runs)
        sx = pw / max(1, n - 1)

        def y(v):
            return y0 + ph - min(v, ymax) / ymax * ph

        parts.append(f'<rect x="{x0}" y="{y(1.25 * k):.1f}" width="{pw}" height="{y(0.75 * k) - y(1.25 * k):.1f}" '
                     f'fill="#e8f4e8"/>')
        parts.append(f'<rect x="{x0}" y="{y0}" width="{pw}" height="{ph}" fill="none" stroke="#333"/>')
        parts.append(f'<text x="{x0}" y="{y0 - 6}" font-size="12">load {load}</text>')
        for v in (0, k, 2 * k):
            parts.append(f'<line x1="{x0 - 4}" x2="{x0}" y1="{y(v):.1f}" y2="{y(v):.1f}" stroke="#333"/>'
                         f'<text x="{x0 - 6}" y="{y(v) + 4:.1f}" text-anchor="end">{v}</text>')
        seconds = (n - 1) / 10
        for s in range(0, int(seconds) + 1, 5):
            xs = x0 + s * 10 * sx
            parts.append(f'<line x1="{xs:.1f}" x2="{xs:.1f}" y1="{y0 + ph}" y2="{y0 + ph + 4}" stroke="#333"/>'
                         f'<text x="{xs:.1f}" y="{y0 + ph + 15}" text-anchor="middle">{s} s</text>')
        if load.startswith("step"):
            xs = x0 + round((n - 1) / 3) * sx
            parts.append(f'<line x1="{xs:.1f}" x2="{xs:.1f}" y1="{y0}" y2="{y0 + ph}" stroke="#999" '
                         f'stroke-dasharray="2,3"/><text x="{xs + 3:.1f}" y="{y0 + 12}" fill="#666">step</text>')
        for r in runs:
            pts = " ".join(f"{x0 + j * sx:.1f},{y(v):.1f}" for j, v in enumerate(r["limits"]))
            dash = ' stroke-dasharray="5,4"' if r["config"].startswith("static") else ""
            parts.append(f'<polyline points="{pts}" fill="none" stroke="{COLORS.get(r["config"], "#000")}" '
                         f'stroke-width="1.6"{dash}/>')
    lx = left
    ly = height - 18
    for name, color in COLORS.items():
        dash = ' stroke-dasharray="5,4"' if name.startswith("static") else ""
        parts.append(f'<line x1="{lx}" x2="{lx + 24}" y1="{ly}" y2="{ly}" stroke="{color}" stroke-width="2"{dash}/>'
                     f'<text x="{lx + 28}" y="{ly + 4}">{name}</text>')
        lx += 110
    parts.append("</svg>")
    return "\n".join(parts)


def main():
    src, svg_out = sys.argv[1], sys.argv[2]
    with open(src) as f:
        data = json.load(f)
    with open(svg_out, "w") as f:
        f.write(svg(data))
    print(table(data))


if __name__ == "__main__":
    main()
