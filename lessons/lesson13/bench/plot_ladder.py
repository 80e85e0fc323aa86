#!/usr/bin/env python3
"""Draws lesson 13's measured GPU ladder as an SVG (standard library only).

  python3 lessons/lesson13/bench/plot_ladder.py LADDER.jsonl OUT.svg

The input is what `lesson13_gpu_bench --ladder` prints (one JSON object per line).
Left: the matmul kernels at 4096^2 as a % of cuBLAS fp32 (the fast reference too, where
the run has it). Right: milliseconds against n (log-log), d = 64 and 128, for the naive
attention and the FlashAttention lab kernel, and the eager cuBLAS attention and the fast
reference where the run has them. figures/make_figures.py draws the notes' ladder charts
with render(), and ctest lesson13.figures_fresh checks them."""
import json
import math
import sys


def load(path):
    rows = [json.loads(line) for line in open(path) if line.startswith("{")]
    device = next((r for r in rows if "device" in r), {})
    return device, [r for r in rows if "kernel" in r]


def svg_text(x, y, s, size=12, anchor="start", weight="normal", color="#222"):
    s = s.replace("&", "&amp;").replace("<", "&lt;")
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-size="{size}" text-anchor="{anchor}" '
            f'font-weight="{weight}" fill="{color}" font-family="sans-serif">{s}</text>')


def matmul_panel(rows, x0, y0, w, h):
    order = ["matmul_naive", "matmul_coalesced", "matmul_tiled", "matmul_coarsened", "matmul_fast"]
    bars = [r for name in order for r in rows if r["kernel"] == name]
    out = [svg_text(x0 + w / 2, y0 - 12, f"matmul {bars[0]['n']}x{bars[0]['n']}, fp32: % of cuBLAS",
                    14, "middle", "bold")]
    out.append(f'<line x1="{x0}" y1="{y0 + h}" x2="{x0 + w}" y2="{y0 + h}" stroke="#444"/>')
    for pct in (0, 25, 50, 75, 100):
        y = y0 + h - h * pct / 100
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(svg_text(x0 - 6, y + 4, f"{pct}%", 11, "end"))
    bw = w / len(bars) * 0.6
    for i, r in enumerate(bars):
        pct = r["percent_of_baseline"]
        x = x0 + w / len(bars) * (i + 0.2)
        bh = h * pct / 100
        out.append(f'<rect x="{x:.1f}" y="{y0 + h - bh:.1f}" width="{bw:.1f}" height="{bh:.1f}" fill="#4878a8"/>')
        out.append(svg_text(x + bw / 2, y0 + h - bh - 5, f"{pct:.1f}%", 11, "middle"))
        out.append(svg_text(x + bw / 2, y0 + h + 16, r["kernel"].replace("matmul_", ""), 11, "middle"))
        out.append(svg_text(x + bw / 2, y0 + h + 30, f"{r['ms']:.1f} ms", 10, "middle", color="#666"))
    return out


def attention_panel(rows, x0, y0, w, h):
    out = [svg_text(x0 + w / 2, y0 - 12, "attention, fp32: time vs n (log-log)", 14, "middle", "bold")]
    kernels = ("attention_naive", "flash_attention_forward", "attention_eager", "flash_attention_fast")
    pts = [r for r in rows if r["kernel"] in kernels and r.get("ms", -1) > 0]
    ns = sorted({r["n"] for r in rows if "d" in r})
    lo, hi = math.log10(min(r["ms"] for r in pts)) - 0.2, math.log10(max(r["ms"] for r in pts)) + 0.2
    nx = lambda n: x0 + w * (math.log2(n) - math.log2(ns[0])) / (math.log2(ns[-1]) - math.log2(ns[0]))
    my = lambda ms: y0 + h - h * (math.log10(ms) - lo) / (hi - lo)
    out.append(f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#444"/>')
    for e in range(math.ceil(lo), math.floor(hi) + 1):
        y = my(10 ** e)
        out.append(f'<line x1="{x0}" y1="{y:.1f}" x2="{x0 + w}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(svg_text(x0 - 6, y + 4, f"{10 ** e:g} ms", 11, "end"))
    for n in ns:
        out.append(svg_text(nx(n), y0 + h + 16, f"{n // 1024}k", 11, "middle"))
    styles = {("attention_naive", 64): ("#c0504d", "6,3"), ("attention_naive", 128): ("#c0504d", ""),
              ("flash_attention_forward", 64): ("#4878a8", "6,3"), ("flash_attention_forward", 128): ("#4878a8", ""),
              ("attention_eager", 64): ("#8a8a8a", "6,3"), ("attention_eager", 128): ("#8a8a8a", ""),
              ("flash_attention_fast", 64): ("#3a9a50", "6,3"), ("flash_attention_fast", 128): ("#3a9a50", "")}
    for (kernel, d), (color, dash) in styles.items():
        series = sorted((r["n"], r["ms"]) for r in pts if r["kernel"] == kernel and r["d"] == d)
        if not series:
            continue
        path = " ".join(f"{'M' if i == 0 else 'L'}{nx(n):.1f},{my(ms):.1f}" for i, (n, ms) in enumerate(series))
        out.append(f'<path d="{path}" fill="none" stroke="{color}" stroke-width="2" stroke-dasharray="{dash}"/>')
        for n, ms in series:
            out.append(f'<circle cx="{nx(n):.1f}" cy="{my(ms):.1f}" r="3" fill="{color}"/>')
    for r in rows:  # naive attention that could not allocate its n x n scores
        if r["kernel"] == "attention_naive" and not r.get("fits", True):
            y = y0 + 16 + (0 if r["d"] == 64 else 14)
            out.append(svg_text(x0 + 8, y, f"n={r['n'] // 1024}k: naive needs {r['s_bytes'] / 2**30:.0f} GiB for S "
                                f"(d={r['d']}) and cannot run", 10, color="#c0504d"))
    legend = [("naive, d=64", "#c0504d", "6,3"), ("naive, d=128", "#c0504d", ""),
              ("FlashAttention lab, d=64", "#4878a8", "6,3"), ("FlashAttention lab, d=128", "#4878a8", "")]
    if any(r["kernel"] == "attention_eager" for r in pts):
        legend += [("eager cuBLAS (d=64, d=128)", "#8a8a8a", "")]
    if any(r["kernel"] == "flash_attention_fast" for r in pts):
        legend += [("fast reference (d=64, d=128)", "#3a9a50", "")]
    for i, (label, color, dash) in enumerate(legend):
        y = y0 + h - 6 - 16 * len(legend) + 16 * i
        out.append(f'<line x1="{x0 + w - 190}" y1="{y}" x2="{x0 + w - 165}" y2="{y}" stroke="{color}" '
                   f'stroke-width="2" stroke-dasharray="{dash}"/>')
        out.append(svg_text(x0 + w - 160, y + 4, label, 11))
    return out


def render(path):
    """The chart of the ladder at `path`, as SVG text (the same bytes on every run)."""
    device, rows = load(path)
    W, H = 1000, 430
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}">',
             f'<rect width="{W}" height="{H}" fill="white"/>',
             svg_text(W / 2, 24, f"Lesson 13 labs on an {device.get('device', 'GPU')} (sm_{device.get('sm', '?').replace('.', '')}), "
                      "medians of CUDA-event timings", 15, "middle", "bold")]
    parts += matmul_panel(rows, 70, 80, 340, 270)
    parts += attention_panel(rows, 520, 80, 440, 270)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main():
    open(sys.argv[2], "w").write(render(sys.argv[1]))


if __name__ == "__main__":
    main()
