# Lesson 13 figure online-softmax-trace.svg (chapter 4 §4.3): a worked numeric trace of online
# softmax on one query row whose running max rises. The scores, values and block size come
# from figures.json (the notes' table of the same trace is checked against them by
# checks/test_figures_attention.cpp); every number drawn is computed here.
import math

from svgfig import BLUE, GREEN, GREY, INK, LIGHT, ORANGE, PALE_BLUE, PALE_GREEN, PALE_ORANGE, \
    RED, Svg, inputs

BLOCK_COLORS = [(BLUE, PALE_BLUE), (ORANGE, PALE_ORANGE), (GREEN, PALE_GREEN)]


def trace(scores, values, block):
    """The state (m, l, O) after each block, with what each update used."""
    m, l, o = -math.inf, 0.0, 0.0
    steps = []
    for j in range(0, len(scores), block):
        s, v = scores[j:j + block], values[j:j + block]
        m_new = max(m, max(s))
        scale = math.exp(m - m_new)  # exp(-inf) = 0 on the first block
        p = [math.exp(x - m_new) for x in s]
        l = scale * l + sum(p)
        o = scale * o + sum(pi * vi for pi, vi in zip(p, v))
        steps.append(dict(s=s, v=v, m_old=m, m=m_new, scale=scale, p=p, l=l, o=o))
        m = m_new
    return steps


def direct(scores, values):
    top = max(scores)
    w = [math.exp(x - top) for x in scores]
    return sum(wi * vi for wi, vi in zip(w, values)) / sum(w)


def f4(x):
    return "−∞" if x == -math.inf else f"{x:.4f}".rstrip("0").rstrip(".")


def scores_chart(svg, x0, y0, scores, block, steps):
    """The scores as bars, coloured by block, with the running max after each block."""
    bw, unit = 34, 20
    top = max(scores)
    base = y0 + unit * (top + 1)
    svg.text(x0, y0 - 4, "scores s, by block, and the running max m", 12, weight="bold")
    for k, s in enumerate(scores):
        color, pale = BLOCK_COLORS[k // block]
        x = x0 + k * (bw + 6) + (k // block) * 12
        svg.rect(x, base - unit * s, bw, unit * s, fill=pale, stroke=color, width=1.5)
        svg.text(x + bw / 2, base - unit * s - 4, f"{s:g}", 12, anchor="middle", weight="bold")
        svg.text(x + bw / 2, base + 15, f"k={k + 1}", 10, anchor="middle", fill=GREY)
    for j, st in enumerate(steps):
        x1 = x0 + j * block * (bw + 6) + j * 12
        x2 = x1 + block * (bw + 6) - 6
        svg.line(x1 - 2, base - unit * st["m"], x2 + 2, base - unit * st["m"], stroke=RED,
                 width=2.5)
        svg.text(x2 + 3, base - unit * st["m"] + 4, f"m={st['m']:g}", 11, fill=RED,
                 weight="bold")
    svg.line(x0 - 4, base, x0 + len(scores) * (bw + 6) + 30, base, stroke=INK)
    return base


def draw():
    cfg = inputs()["trace"]
    scores, values, block = cfg["scores"], cfg["values"], cfg["block_size"]
    steps = trace(scores, values, block)
    want = direct(scores, values)
    jump = next(st for st in steps if st["m_old"] > -math.inf and st["m"] > st["m_old"])
    jb = steps.index(jump) + 1
    svg = Svg(900, 530, "A worked trace of online softmax on one row whose running max rises")
    svg.text(20, 26, f"Online softmax on one query row, d = 1, keys in blocks of {block}: "
             f"block {jb} raises the running max", 15, weight="bold")
    svg.text(20, 45, "Start: m = −∞, l = 0, O = 0. Each block: m_new = max(m, block max), "
             "scale = exp(m − m_new), p = exp(s − m_new),", 12, fill=GREY)
    svg.text(20, 61, "l = scale·l + Σp, O = scale·O + Σp·v. At the end, output = O / l.", 12,
             fill=GREY)
    base = scores_chart(svg, 40, 110, scores, block, steps)
    # The rescale that matters, spelled out beside the chart.
    x, y = 360, 112
    svg.text(x, y, f"Block {jb} raises the max from {jump['m_old']:g} to {jump['m']:g}:", 13,
             weight="bold")
    svg.text(x, y + 20, f"what was summed against m = {jump['m_old']:g} is re-based by", 12)
    svg.text(x, y + 38, f"scale = exp({jump['m_old']:g} − {jump['m']:g}) = {f4(jump['scale'])}",
             13, fill=RED, weight="bold")
    svg.text(x, y + 58, "before the new block's terms are added:", 12)
    prev = steps[jb - 2]
    svg.text(x, y + 78, f"l = {f4(jump['scale'])} × {f4(prev['l'])} + "
             f"{' + '.join(f4(p) for p in jump['p'])} = {f4(jump['l'])}", 12, mono=True)
    svg.text(x, y + 96, f"O = {f4(jump['scale'])} × {f4(prev['o'])} + "
             + " + ".join(f"{f4(p)}×{v:g}" for p, v in zip(jump["p"], jump["v"]))
             + f" = {f4(jump['o'])}", 12, mono=True)
    svg.text(x, y + 118, "Without it, the old terms would keep weights computed", 12, fill=GREY)
    svg.text(x, y + 134, "against the wrong max, and O / l would be wrong.", 12, fill=GREY)

    # The state after each block.
    ty = base + 50
    cols = [150, 330, 510, 690]
    heads = ["start"] + [f"after block {j + 1}" for j in range(len(steps))]
    rows = [
        ("scores s", [""] + [", ".join(f"{x:g}" for x in st["s"]) for st in steps]),
        ("values v", [""] + [", ".join(f"{x:g}" for x in st["v"]) for st in steps]),
        ("m", ["−∞"] + [f"{st['m']:g}" for st in steps]),
        ("scale", [""] + [f4(st["scale"]) for st in steps]),
        ("p = exp(s − m)", [""] + [", ".join(f4(p) for p in st["p"]) for st in steps]),
        ("l", ["0"] + [f4(st["l"]) for st in steps]),
        ("O", ["0"] + [f4(st["o"]) for st in steps]),
        ("O / l so far", [""] + [f4(st["o"] / st["l"]) for st in steps]),
    ]
    svg.rect(20, ty - 18, 860, 26, fill="#f2f2f2", stroke="none")
    for c, h in zip(cols, heads):
        svg.text(c + 80, ty, h, 12, anchor="middle", weight="bold")
    for r, (name, cells) in enumerate(rows):
        y = ty + 26 + 22 * r
        svg.line(20, y - 16, 880, y - 16, stroke=LIGHT)
        svg.text(30, y, name, 12, weight="bold" if name in ("m", "l", "O") else "normal")
        for c, (cx, cell) in enumerate(zip(cols, cells)):
            color = RED if name == "scale" and c == jb else INK
            svg.text(cx + 80, y, cell, 12, anchor="middle", fill=color, mono=True)
    y = ty + 26 + 22 * len(rows) + 8
    last = steps[-1]
    svg.text(30, y, f"Output O / l = {f4(last['o'])} / {f4(last['l'])} = "
             f"{f4(last['o'] / last['l'])}", 13, weight="bold")
    svg.text(460, y, f"Direct softmax(s) · v = {f4(want)}: the same.", 13, weight="bold",
             fill=GREEN)
    return svg
