# Lesson 13 figure roofline-h200.svg (chapter 1 §1.4): the H200's fp32 roofline (peaks from
# figures.json, as chapter 1 states them) with the course's kernels placed on it as measured
# (figures.json's measured.ladder run). Each kernel's x is its compulsory intensity: its FLOPs
# over the bytes the problem must move at least (inputs read once, outputs written once).
import json

from svgfig import BLUE, GREEN, GREY, INK, LESSON, LIGHT, RED, Svg, inputs, log_axis

FLOAT = 4
X_LO, X_HI, Y_LO, Y_HI = 0.1, 1e5, 0.1, 2000.0  # FLOP/byte, TFLOP/s
PX0, PX1, PY0, PY1 = 70, 690, 64, 420  # the plot area


def ladder(path):
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.startswith("{")]
    return next(r for r in rows if "device" in r), [r for r in rows if "kernel" in r]


def placed(row):
    """(FLOP, compulsory bytes) of one measured kernel, from its shape."""
    if row["kernel"].startswith("matmul") or row["kernel"] == "cublas_sgemm":
        n = row["n"]
        return 2.0 * n ** 3, 3.0 * n * n * FLOAT  # read A and B, write C
    n, d = row["n"], row["d"]
    return 4.0 * n * n * d, 4.0 * n * d * FLOAT  # QK^T and PV; read Q, K, V, write O


def points(rows):
    out = []
    for r in rows:
        if r.get("ms", -1) <= 0:
            continue  # naive attention at 256k: did not fit
        flop, nbytes = placed(r)
        out.append(dict(r, intensity=flop / nbytes, tflops=flop / (r["ms"] * 1e-3) / 1e12))
    return out


def roofs(svg, fx, fy, peak, bf16, bw):
    ridge = peak / bw
    svg.polyline([(fx(X_LO), fy(X_LO * bw / 1e12)), (fx(ridge), fy(peak / 1e12)),
                  (fx(X_HI), fy(peak / 1e12))], stroke=INK, width=2.5)
    svg.polyline([(fx(peak / bw), fy(peak / 1e12)), (fx(bf16 / bw), fy(bf16 / 1e12)),
                  (fx(X_HI), fy(bf16 / 1e12))], stroke=GREY, width=1.2, dash="6,4")
    svg.text(fx(X_HI) - 4, fy(bf16 / 1e12) - 6, f"dense BF16 tensor cores, {bf16 / 1e12:g} TFLOP/s "
             f"(ridge {bf16 / bw:.0f}): not for fp32 kernels", 11, anchor="end", fill=GREY)
    svg.text(fx(X_HI) - 4, fy(peak / 1e12) - 7, f"FP32 peak, CUDA cores: {peak / 1e12:g} TFLOP/s",
             12, anchor="end", weight="bold")
    x_lab = 0.9
    svg.text(fx(x_lab) + 6, fy(x_lab * bw / 1e12) - 8, f"HBM {bw / 1e12:g} TB/s:", 12,
             weight="bold")
    svg.text(fx(x_lab) + 6, fy(x_lab * bw / 1e12) + 7, f"I × {bw / 1e12:g} TFLOP/s", 11)
    svg.line(fx(ridge), fy(peak / 1e12), fx(ridge), PY1, stroke=INK, dash="2,3")
    svg.text(fx(ridge) - 5, PY1 - 8, f"ridge {ridge:.1f} FLOP/B", 12, anchor="end", weight="bold")


def axes(svg, fx, fy):
    svg.rect(PX0, PY0, PX1 - PX0, PY1 - PY0, stroke="#888888")
    for e in range(-1, 6):
        x = fx(10.0 ** e)
        svg.line(x, PY0, x, PY1, stroke=LIGHT if 0 < e < 5 else "none", width=0.8)
        label = f"{10 ** (e - 3):g}k" if e > 3 else f"{10.0 ** e:g}"
        svg.text(x, PY1 + 16, label, 11, anchor="middle")
    for e in range(-1, 4):
        y = fy(10.0 ** e)
        svg.line(PX0, y, PX1, y, stroke=LIGHT if e > -1 else "none", width=0.8)
        svg.text(PX0 - 6, y + 4, f"{10.0 ** e:g}", 11, anchor="end")
    svg.text((PX0 + PX1) / 2, PY1 + 34, "arithmetic intensity I, FLOP per byte of compulsory "
             "HBM traffic (log)", 12, anchor="middle")
    svg.text(PX0 - 44, PY0 - 10, "TFLOP/s (log)", 12)


MATMUL = [("matmul_naive", "naive"), ("matmul_coalesced", "coalesced (lab 1)"),
          ("matmul_tiled", "tiled (lab 2)"), ("matmul_coarsened", "coarsened (lab 2)"),
          ("cublas_sgemm", "cuBLAS sgemm")]
SERIES = [("flash_attention_forward", 64, GREEN, "", "circle", "FlashAttention lab, d = 64"),
          ("flash_attention_forward", 128, GREEN, "5,3", "circle", "FlashAttention lab, d = 128"),
          ("attention_naive", 64, RED, "", "triangle", "naive attention, d = 64"),
          ("attention_naive", 128, RED, "5,3", "triangle", "naive attention, d = 128")]


def kernels(svg, fx, fy, pts):
    mm = {p["kernel"]: p for p in pts if p["kernel"] in dict(MATMUL)}
    for kernel, name in MATMUL:
        p = mm[kernel]
        x, y = fx(p["intensity"]), fy(p["tflops"])
        svg.marker(x, y, "diamond" if kernel == "cublas_sgemm" else "square", BLUE)
        dy = {"matmul_coalesced": 12, "matmul_tiled": -1}.get(kernel, 4)  # these two sit close
        svg.text(x - 9, y + dy, f"{name} {p['tflops']:.1f}", 11, anchor="end", fill=BLUE)
    p = mm["matmul_naive"]
    svg.text(fx(p["intensity"]), fy(p["tflops"]) + 20, f"matmul n = {p['n']}: I = n/6 = "
             f"{p['intensity']:.0f}", 11, anchor="middle", fill=BLUE, weight="bold")
    for kernel, d, color, dash, shape, _ in SERIES:
        s = sorted((p for p in pts if p["kernel"] == kernel and p["d"] == d),
                   key=lambda p: p["n"])
        svg.polyline([(fx(p["intensity"]), fy(p["tflops"])) for p in s], stroke=color,
                     width=1.5, dash=dash)
        for p in s:
            svg.marker(fx(p["intensity"]), fy(p["tflops"]), shape, color, 4)
    for p in sorted((p for p in pts if p["kernel"] == "flash_attention_forward" and p["d"] == 64),
                    key=lambda p: p["n"]):
        x = fx(p["intensity"])
        svg.line(x, fy(0.16), x, fy(0.7), stroke=LIGHT, dash="2,2")
        svg.text(x, fy(0.125), f"n = {p['n'] // 1024}k", 10, anchor="middle", fill=GREY)


def legend(svg, x, y):
    svg.text(x, y, "attention (I = n/4):", 12, weight="bold")
    for k, (_, _, color, dash, shape, label) in enumerate(SERIES):
        yy = y + 18 + 17 * k
        svg.line(x, yy - 4, x + 26, yy - 4, stroke=color, width=1.5, dash=dash)
        svg.marker(x + 13, yy - 4, shape, color, 4)
        svg.text(x + 34, yy, label, 11)


def draw():
    cfg = inputs()
    peak = cfg["h100_sxm"]["fp32_flops"]  # the H200 has the H100 SXM's compute
    bf16 = cfg["h100_sxm"]["bf16_dense_flops"]
    bw = cfg["h200"]["hbm_bytes_per_s"]
    device, rows = ladder(LESSON.parent.parent / cfg["measured"]["ladder"])
    pts = points(rows)
    svg = Svg(900, 560, "Roofline of an H200 in fp32 with the course's kernels as measured")
    svg.text(20, 26, f"fp32 roofline of the {device['device']}, and the course's kernels as "
             "measured (medians, 2026-11-29)", 15, weight="bold")
    fx, fy = log_axis(X_LO, X_HI, PX0, PX1), log_axis(Y_LO, Y_HI, PY1, PY0)
    axes(svg, fx, fy)
    roofs(svg, fx, fy, peak, bf16, bw)
    kernels(svg, fx, fy, pts)
    legend(svg, PX1 + 14, PY0 + 200)
    notes = [
        "x: the compulsory intensity, FLOP over the bytes the problem must move at least, inputs "
        "read once and outputs written once",
        "(matmul: A, B, C, 3·4n² B; attention: Q, K, V, O, 4·4nd B). Every kernel moves more, so "
        "its real intensity is lower. y: 2n³ or",
        "4n²d FLOP over the measured time. Every kernel sits right of the ridge, so HBM "
        "bandwidth is not what holds it back by this count:",
        "its distance below the roof is lost on chip (caches, shared memory, instruction issue) "
        "and in the extra traffic of its accesses.",
    ]
    for k, s in enumerate(notes):
        svg.text(20, PY1 + 64 + 16 * k, s, 11, fill=GREY)
    return svg
