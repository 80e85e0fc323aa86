# Lesson 13 figure tiles.svg (chapter 2 §2.2, chapter 6 §6.3): tiled matmul. For one T x T
# output tile of C, the T x T tiles of A's row strip and of B's column strip that slide along k,
# one pair per step, through shared memory. T is lab 2's kTile, read from include/matmul_labs.hpp.
import re

from svgfig import BLUE, GREEN, GREY, INK, LESSON, ORANGE, PURPLE, Svg

STEPS = 4  # the picture's N = STEPS * T
STEP_COLORS = [BLUE, ORANGE, GREEN, PURPLE]
STEP_PALE = ["#dce8f4", "#fbe5cf", "#e0eed8", "#e8e0f2"]
BI, BJ = 1, 2  # the output tile drawn: block row BI, block column BJ
TILE_PX = 52


def lab_tile():
    header = (LESSON / "include" / "matmul_labs.hpp").read_text(encoding="utf-8")
    return int(re.search(r"constexpr int kTile = (\d+);", header).group(1))


def matrix(svg, x, y, name, dims):
    size = STEPS * TILE_PX
    svg.rect(x, y, size, size, fill="#fafafa", stroke=INK, width=1.5)
    for k in range(1, STEPS):
        svg.line(x + k * TILE_PX, y, x + k * TILE_PX, y + size, stroke="#cccccc")
        svg.line(x, y + k * TILE_PX, x + size, y + k * TILE_PX, stroke="#cccccc")
    svg.text(x + size / 2, y - 8, f"{name}  ({dims})", 14, anchor="middle", weight="bold")


def tile(svg, x, y, step, label):
    svg.rect(x, y, TILE_PX, TILE_PX, fill=STEP_PALE[step], stroke=STEP_COLORS[step], width=2)
    svg.text(x + TILE_PX / 2, y + 22, label, 12, anchor="middle", fill=STEP_COLORS[step],
             weight="bold")
    svg.text(x + TILE_PX / 2, y + 38, "k0=" + ("0" if step == 0 else f"{step}T" if step > 1
                                              else "T"), 11, anchor="middle", fill=INK)


def draw():
    t = lab_tile()
    svg = Svg(900, 560, "Tiled matrix multiplication: A and B tiles sliding along k for one "
              "output tile of C")
    ax, ay, bx, by = 24, 300, 290, 62
    cx, cy = bx, ay
    size = STEPS * TILE_PX
    matrix(svg, ax, ay, "A", "N × N")
    matrix(svg, bx, by, "B", "N × N")
    matrix(svg, cx, cy, "C = A·B", "N × N")
    for s in range(STEPS):
        tile(svg, ax + s * TILE_PX, ay + BI * TILE_PX, s, f"A{s + 1}")
        tile(svg, bx + BJ * TILE_PX, by + s * TILE_PX, s, f"B{s + 1}")
    # The output tile, and the direction each strip slides.
    svg.rect(cx + BJ * TILE_PX, cy + BI * TILE_PX, TILE_PX, TILE_PX, fill="#fff3b0", stroke=INK,
             width=3)
    svg.text(cx + BJ * TILE_PX + TILE_PX / 2, cy + BI * TILE_PX + 22, "C tile", 12,
             anchor="middle", weight="bold")
    svg.text(cx + BJ * TILE_PX + TILE_PX / 2, cy + BI * TILE_PX + 38, "T × T", 11,
             anchor="middle")
    svg.line(ax, ay + BI * TILE_PX - 12, ax + size, ay + BI * TILE_PX - 12, arrow=True)
    svg.text(ax + size / 2, ay + BI * TILE_PX - 18, "row strip of A: slides along k →", 11,
             anchor="middle")
    svg.line(bx - 12, by, bx - 12, by + size, arrow=True)
    svg.text(bx - 20, by + size / 2, "column strip of B:", 11, anchor="end")
    svg.text(bx - 20, by + size / 2 + 15, "slides along k ↓", 11, anchor="end")
    svg.text(24, 30, "Tiled matmul: the tiles one", 15, weight="bold")
    svg.text(24, 49, "output tile of C reads, step", 15, weight="bold")
    svg.text(24, 68, "by step along k", 15, weight="bold")
    svg.text(ax + size / 2, ay + size + 22, f"drawn with N = {STEPS}T: {STEPS} steps", 12,
             anchor="middle", fill=GREY)
    svg.text(cx + size / 2, cy + size + 22, "step 2 copies A2 into As and B2 into Bs", 12,
             anchor="middle", fill=GREY)

    # What one thread block does, step by step.
    x, y = 522, 40
    svg.text(x, y, "One thread block: T × T threads,", 13, weight="bold")
    svg.text(x, y + 18, "one output of the C tile each, in N/T steps:", 13, weight="bold")
    lines = [
        ("for k0 = 0, T, 2T, … < N:", 0, INK),
        ("// thread (ty, tx) copies one element of each", 1, GREY),
        ("As[ty][tx] = A[row0 + ty][k0 + tx]", 1, INK),
        ("Bs[ty][tx] = B[k0 + ty][col0 + tx]", 1, INK),
        ("__syncthreads()  // tiles complete", 1, INK),
        ("for k = 0 … T−1:", 1, INK),
        ("acc += As[ty][k] * Bs[k][tx]", 2, INK),
        ("__syncthreads()  // done reading", 1, INK),
        ("C[row0 + ty][col0 + tx] = acc", 0, INK),
    ]
    for i, (s, indent, color) in enumerate(lines):
        svg.text(x + 16 * indent, y + 46 + 19 * i, s, 12, fill=color, mono=True)
    y2 = y + 46 + 19 * len(lines) + 16
    svg.text(x, y2, "Shared memory, refilled at every step:", 13, weight="bold")
    svg.rect(x, y2 + 12, 52, 52, fill=STEP_PALE[1], stroke=STEP_COLORS[1], width=2)
    svg.text(x + 26, y2 + 43, "As", 13, anchor="middle", weight="bold")
    svg.rect(x + 66, y2 + 12, 52, 52, fill=STEP_PALE[1], stroke=STEP_COLORS[1], width=2)
    svg.text(x + 92, y2 + 43, "Bs", 13, anchor="middle", weight="bold")
    smem = 2 * t * t * 4
    svg.text(x + 134, y2 + 28, "2 tiles of T × T floats:", 12)
    svg.text(x + 134, y2 + 45, f"{smem:,} B = {smem / 1024:g} KiB at T = {t}", 12)
    svg.text(x + 134, y2 + 62, "(lab 2's kTile)", 12, fill=GREY)
    notes = ["Each element of A and B is read from global",
             "memory N/T times instead of N times: every",
             "float fetched serves T threads of the block."]
    for i, s in enumerate(notes):
        svg.text(x, y2 + 94 + 17 * i, s, 12)
    svg.text(x, y2 + 150, f"Lab 2 at n = 128, T = {t}: {128 // t} steps per tile,", 12,
             fill=GREY)
    svg.text(x, y2 + 167, f"{t}× fewer global loads than one output per thread.", 12,
             fill=GREY)
    return svg
