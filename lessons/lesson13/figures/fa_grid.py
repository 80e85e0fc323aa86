# Lesson 13 figure fa-grid.svg (chapter 4 §4.2, chapter 6 §6.4): lab 3's FlashAttention
# kernel as a grid. Query blocks of Br rows (one thread block each, one warp per row) sweep
# the key/value tiles of Bc rows; which tiles sit in shared memory and in registers at one
# step, and O written once. Br and Bc are read from include/flash_attention_lab.hpp.
import re

from svgfig import GREEN, GREY, INK, LESSON, ORANGE, PALE_GREEN, PALE_ORANGE, Svg

N, D = 128, 32  # the picture's shape: lab 3's no_nxn test (n = 128, d = 32)
BLOCK, TILE = 2, 1  # the thread block and the K/V tile the picture highlights
U = 2.5  # pixels per row or column
MEM_FILL, MEM_STROKE = "#eef1f5", "#8a96a8"  # global memory (HBM)
LIGHT_GRID = "#c8c8c8"


def lab_tiles():
    header = (LESSON / "include" / "flash_attention_lab.hpp").read_text(encoding="utf-8")
    get = lambda name: int(re.search(rf"constexpr int {name} = (\d+);", header).group(1))
    return get("kFlashBr"), get("kFlashBc")


def strip(svg, x, y, w, h, count, horizontal, highlight, label_of, title):
    """A matrix in global memory cut into `count` tiles; tile `highlight` is in shared memory."""
    svg.rect(x, y, w, h, fill=MEM_FILL, stroke=MEM_STROKE, width=1.5)
    step = (w if horizontal else h) / count
    for k in range(count):
        tx, ty = (x + k * step, y) if horizontal else (x, y + k * step)
        tw, th = (step, h) if horizontal else (w, step)
        hot = k == highlight
        svg.rect(tx, ty, tw, th, fill=PALE_ORANGE if hot else "none",
                 stroke=ORANGE if hot else MEM_STROKE, width=2.5 if hot else 0.8)
        if label_of:
            svg.text(tx + tw / 2, ty + th / 2 + 4, label_of(k), 11, anchor="middle",
                     weight="bold" if hot else "normal", fill=INK if hot else GREY)
    svg.text(x + w / 2 if horizontal else x + w / 2, y - 7, title, 12, anchor="middle",
             weight="bold")


def inset(svg, x, y, br, bc):
    """S_ij up close: one warp per row, one lane per key."""
    cw, ch = 6, 6
    svg.text(x - 46, y - 26, f"S_ij up close: {br} × {bc} scores", 12, weight="bold")
    svg.text(x + bc * cw / 2, y - 6, f"lane 0 … lane {bc - 1}: key {bc}j + lane", 11,
             anchor="middle", fill=GREY)
    svg.rect(x, y, bc * cw, br * ch, fill=PALE_GREEN, stroke="none")
    for c in range(1, bc):
        svg.line(x + c * cw, y, x + c * cw, y + br * ch, stroke="#ffffff", width=0.6)
    for r in range(1, br):
        svg.line(x, y + r * ch, x + bc * cw, y + r * ch, stroke="#ffffff", width=0.6)
    svg.rect(x, y, bc * cw, br * ch, stroke=GREEN, width=1.5)
    svg.rect(x, y + 5 * ch, bc * cw, ch, stroke=INK, width=1.5)
    svg.text(x - 6, y + 8, "warp 0", 11, anchor="end")
    svg.text(x - 6, y + 5 * ch + 7, "warp 5", 11, anchor="end", weight="bold")
    svg.text(x - 6, y + br * ch, f"warp {br - 1}", 11, anchor="end")
    notes = [f"warp w = query row {br}i + w; lane c holds", "one score s (then p) in a register;",
             "__shfl_xor_sync gives the row's max", "and sum; the blanks update m_i, l_i, o."]
    for k, s in enumerate(notes):
        svg.text(x - 46, y + br * ch + 18 + 15 * k, s, 11)


def draw():
    br, bc = lab_tiles()
    tr, tc = N // br, N // bc
    svg = Svg(900, 660, "Lab 3's FlashAttention kernel: query blocks against key/value tiles")
    svg.text(20, 24, f"Lab 3's kernel: one thread block per {br} query rows, one warp per row "
             f"({br * 32} threads)", 15, weight="bold")
    svg.text(20, 44, f"K and V stream through shared memory in tiles of {bc} keys. Drawn for "
             f"n = {N}, d = {D}: ⌈n/{br}⌉ = {tr} blocks × ⌈n/{bc}⌉ = {tc} tiles.", 12,
             fill=GREY)
    sx, sy, s = 134, 284, N * U  # the score matrix
    qx, ox, w = 26, sx + s + 28, D * U
    # K and V drawn transposed (d x n), so that tile j sits above column block j of S.
    strip(svg, sx, 78, s, w, tc, True, TILE, lambda k: f"K tile {k}", "Kᵀ (d × n), global memory")
    strip(svg, sx, 78 + w + 26, s, w, tc, True, TILE, lambda k: f"V tile {k}",
          "Vᵀ (d × n), global memory")
    strip(svg, qx, sy, w, s, tr, False, BLOCK, lambda k: f"Q block {k}", "Q (n × d)")
    # The scores: never stored. Block BLOCK's row of tiles: done, current, to come.
    svg.rect(sx, sy, s, s, fill="#ffffff", stroke=GREY, dash="5,4")
    for j in range(1, tc):
        svg.line(sx + j * bc * U, sy, sx + j * bc * U, sy + s, stroke=LIGHT_GRID, dash="2,3")
    for i in range(1, tr):
        svg.line(sx, sy + i * br * U, sx + s, sy + i * br * U, stroke=LIGHT_GRID, dash="2,3")
    row_y = sy + BLOCK * br * U
    for j in range(tc):
        fill = "#d8d8d8" if j < TILE else PALE_GREEN if j == TILE else "#ffffff"
        svg.rect(sx + j * bc * U, row_y, bc * U, br * U, fill=fill,
                 stroke=GREEN if j == TILE else GREY, width=2.5 if j == TILE else 1)
        word = "done" if j < TILE else "S_ij" if j == TILE else "next"
        svg.text(sx + (j + 0.5) * bc * U, row_y + br * U / 2 + 4, word, 11, anchor="middle",
                 weight="bold" if j == TILE else "normal")
    svg.line(sx + 4, row_y + br * U + 12, sx + s - 4, row_y + br * U + 12, arrow=True)
    svg.text(sx + s / 2, row_y + br * U + 27, f"block {BLOCK}'s loop: j = 0 … {tc - 1}", 11,
             anchor="middle")
    svg.text(sx + s / 2, sy + s - 40, "S = QKᵀ (n × n)", 13, anchor="middle", fill=GREY)
    svg.text(sx + s / 2, sy + s - 22, "never stored anywhere", 12, anchor="middle", fill=GREY)
    svg.text(sx + s / 2, sy + s - 6, "(all blocks run at once, each on its own row)", 11,
             anchor="middle", fill=GREY)
    # O: written once per block, after the last tile.
    svg.rect(ox, sy, w, s, fill=MEM_FILL, stroke=MEM_STROKE, width=1.5)
    for i in range(1, tr):
        svg.line(ox, sy + i * br * U, ox + w, sy + i * br * U, stroke=MEM_STROKE, width=0.8)
    svg.rect(ox, row_y, w, br * U, fill=PALE_GREEN, stroke=GREEN, width=2.5)
    svg.text(ox + w / 2, row_y + br * U / 2 + 4, "o[], l_i", 11, anchor="middle", weight="bold")
    svg.text(ox + w / 2, sy - 7, "O (n × d)", 12, anchor="middle", weight="bold")
    svg.text(ox + w / 2, sy + s + 16, "written once:", 11, anchor="middle")
    svg.text(ox + w / 2, sy + s + 30, "o[u] / l_i", 11, anchor="middle", mono=True)

    # Legend: where each piece lives during step (BLOCK, TILE).
    lx, ly = ox + w + 28, 78
    svg.text(lx, ly, f"During step j = {TILE} of block {BLOCK}:", 13, weight="bold")
    items = [
        (PALE_ORANGE, ORANGE, "shared memory:", [f"Q_tile ({br} × d), staged once;",
                                                 f"K_tile ({bc} × (d+1), padded) and",
                                                 f"V_tile ({bc} × d), tile j"]),
        (PALE_GREEN, GREEN, "registers:", ["q (the warp's row), s and p,",
                                           "m_i, l_i, o[] (d/32 per lane)"]),
        (MEM_FILL, MEM_STROKE, "global memory:", ["Q, K, V read; O written once"]),
    ]
    y = ly + 22
    for fill, stroke, head, lines in items:
        svg.rect(lx, y - 11, 16, 14, fill=fill, stroke=stroke, width=1.5)
        svg.text(lx + 24, y, head, 12, weight="bold")
        for k, line in enumerate(lines):
            svg.text(lx + 24, y + 16 * (k + 1), line, 11)
        y += 16 * (len(lines) + 1) + 10
    svg.text(lx, y + 4, "Barriers: after each copy of K_tile", 11, fill=GREY)
    svg.text(lx, y + 19, "and V_tile, and before the next copy.", 11, fill=GREY)
    inset(svg, lx + 50, y + 76, br, bc)
    return svg

