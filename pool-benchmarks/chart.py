#!/usr/bin/env python3
"""Turns a JMH JSON result file into Markdown tables (stdout) and an SVG bar chart.

    python3 chart.py results.json chart.svg > tables.md

Scores become ratios to ThreadPoolExecutor measured in the same run: "speed" is
score / TPE-LBQ's for throughput benchmarks and TPE-LBQ's time / time for time benchmarks, so
above 1 is always better. Hand-off peers are also compared with TPE-sync-blockingput, their exact
equivalent. Standard library only.
"""
import json
import math
import sys
from collections import OrderedDict

BASE = "TPE-LBQ"
HANDOFF_BASE = "TPE-sync-blockingput"


def short(bench):
    return bench.rsplit(".", 2)[-2].replace("Benchmark", "")


def group_key(r):
    params = {k: v for k, v in sorted(r.get("params", {}).items()) if k != "peer"}
    return short(r["benchmark"]), tuple(params.items())


def is_time(r):
    return r["mode"] in ("avgt", "sample", "ss")


def speed(r, base):
    a, b = r["primaryMetric"]["score"], base["primaryMetric"]["score"]
    if a <= 0 or b <= 0:
        return None
    return b / a if is_time(r) else a / b


def secondary(r, name):
    m = r.get("secondaryMetrics", {}).get(name)
    return None if m is None else m["score"]


def fmt(x, digits=3):
    if not isinstance(x, (int, float)) or math.isnan(x):
        return "-"
    if abs(x) >= 1e6:
        return f"{x / 1e6:.2f}M"
    if abs(x) >= 1e4:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


def main():
    src, svg_out = sys.argv[1], sys.argv[2]
    with open(src) as f:
        results = json.load(f)
    groups = OrderedDict()
    for r in results:
        groups.setdefault(group_key(r), []).append(r)

    panels = []
    for (bench, params), rows in groups.items():
        by_peer = {r.get("params", {}).get("peer", r["benchmark"].rsplit(".", 1)[-1]): r for r in rows}
        base = by_peer.get(BASE)
        hbase = by_peer.get(HANDOFF_BASE)
        title = bench + (" " + " ".join(f"{k}={v}" for k, v in params) if params else "")
        unit = rows[0]["primaryMetric"]["scoreUnit"]
        print(f"### {title}\n")
        sample = rows[0]["mode"] == "sample"
        head = ["peer", f"score ({unit})", f"vs {BASE}", f"vs {HANDOFF_BASE}"]
        if sample:
            head += ["p50", "p99", "p99.9"]
        head += ["alloc B/op", "peak RSS MB"]
        cpu = any(secondary(r, "cpu.per.op") is not None for r in rows)
        if cpu:
            head += ["CPU ns/op"]
        print("| " + " | ".join(head) + " |")
        print("|" + "---|" * len(head))
        bars = []
        tasks = int(dict(params).get("tasks", "1") or 1) if bench == "Ants" else 1
        for peer, r in by_peer.items():
            pm = r["primaryMetric"]
            s = speed(r, base) if base else None
            h = speed(r, hbase) if hbase else None
            cells = [peer, f"{fmt(pm['score'])} ± {fmt(pm['scoreError'], 2)}", fmt(s), fmt(h)]
            if sample:
                pct = pm.get("scorePercentiles", {})
                cells += [fmt(pct.get("50.0")), fmt(pct.get("99.0")), fmt(pct.get("99.9"))]
            alloc = secondary(r, "gc.alloc.rate.norm")
            cells += [fmt(alloc / tasks if alloc is not None else None), fmt(secondary(r, "rss.peak"))]
            if cpu:
                cells += [fmt(secondary(r, "cpu.per.op"))]
            print("| " + " | ".join(cells) + " |")
            if sample:
                p99 = pm.get("scorePercentiles", {}).get("99.0")
                b99 = base["primaryMetric"].get("scorePercentiles", {}).get("99.0") if base else None
                s = (b99 / p99) if p99 and b99 else s
            bars.append((peer, s))
        print()
        if sample:
            title += " (p99 speed)"
        panels.append((title, bars))
    write_svg(panels, svg_out)


def write_svg(panels, path, caption=None, target=None):
    """Bars of ratios on a log scale, a panel each; caption replaces the default header text, and
    target (a ratio) draws a dashed line at it in every panel."""
    width, label_w, bar_h, pad = 900, 230, 14, 6
    lo, hi = -2.0, 2.0  # log10 of ratio: 0.01x .. 100x
    plot_w = width - label_w - 80
    y = 30
    parts = []
    for title, bars in panels:
        parts.append(f'<text x="10" y="{y}" font-weight="bold">{esc(title)}</text>')
        y += 8
        top = y
        for peer, s in bars:
            y += bar_h + pad
            if target:
                color = "#2b7bb9" if s is not None and s >= target else "#d35400"  # met / missed
            else:
                color = "#2b7bb9" if peer.startswith("WorkerPool") else "#999999"
            parts.append(f'<text x="{label_w - 6}" y="{y - 3}" text-anchor="end">{esc(peer)}</text>')
            if s is None or s <= 0:
                parts.append(f'<text x="{label_w + 4}" y="{y - 3}" fill="#999">n/a</text>')
                continue
            v = max(lo, min(hi, math.log10(s)))
            x0 = label_w + plot_w * (0 - lo) / (hi - lo)
            x1 = label_w + plot_w * (v - lo) / (hi - lo)
            x, w = (x0, x1 - x0) if x1 >= x0 else (x1, x0 - x1)
            parts.append(f'<rect x="{x:.1f}" y="{y - bar_h:.1f}" width="{max(w, 1):.1f}" height="{bar_h}" fill="{color}"/>')
            parts.append(f'<text x="{label_w + plot_w + 6}" y="{y - 3}">{s:.2f}x</text>')
        x1 = label_w + plot_w / 2
        parts.append(f'<line x1="{x1}" y1="{top}" x2="{x1}" y2="{y + 2}" stroke="black"/>')
        if target:
            tx = label_w + plot_w * (math.log10(target) - lo) / (hi - lo)
            parts.append(f'<line x1="{tx:.1f}" y1="{top}" x2="{tx:.1f}" y2="{y + 2}" stroke="#c0392b" stroke-dasharray="4,3"/>')
        for tick in (-2, -1, 1, 2):
            tx = label_w + plot_w * (tick - lo) / (hi - lo)
            parts.append(f'<line x1="{tx}" y1="{top}" x2="{tx}" y2="{y + 2}" stroke="#ddd"/>')
        y += 34
    header = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{y + 20}" '
              f'font-family="sans-serif" font-size="11">'
              f'<rect width="100%" height="100%" fill="white"/>'
              f'<text x="10" y="14" fill="#555">' + esc(caption or (f'Speed relative to {BASE} (log scale, 0.01x to 100x; '
              'right of the black line = faster). Blue: WorkerPool.')) + '</text>')
    with open(path, "w") as f:
        f.write(header + "".join(parts) + "</svg>\n")


def esc(s):
    return str(s).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


if __name__ == "__main__":
    main()
