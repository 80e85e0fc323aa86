# Lesson 13 figure banks.svg (chapter 2 §2.2 "Shared memory has banks", chapter 6 §6.3): a
# warp reading one column of a 32 x 32 float tile (all 32 words in one bank: 32 wavefronts)
# and of a 32 x 33 padded tile (one word per bank: 1 wavefront). The banks, the words per
# bank and the wavefronts are computed here from the word addresses.
from svgfig import BLUE, GREY, INK, LIGHT, RED, Svg

BANKS = 32
LANES = 32
COLUMN = 5  # the column the warp reads (chapter 2's checks use the same)
CW, CH = 11.5, 8  # one word's cell


def read_column(row_words):
    """Lane i reads tile[i][COLUMN] of a row-major float tile with row_words words per row."""
    words = [lane * row_words + COLUMN for lane in range(LANES)]
    per_bank = [set() for _ in range(BANKS)]
    for w in words:
        per_bank[w % BANKS].add(w)
    counts = [len(s) for s in per_bank]
    # Wavefronts: the passes the request needs, the most distinct words asked of one bank.
    return {"words": words, "counts": counts, "wavefronts": max(counts)}


def panel(svg, x0, y0, row_words, color):
    acc = read_column(row_words)
    rows = -(-LANES * row_words // BANKS)  # bank rows the tile fills
    svg.text(x0, y0, f"float tile[{LANES}][{row_words}]: lane i reads tile[i][{COLUMN}]", 14,
             weight="bold")
    svg.text(x0, y0 + 18, f"word {row_words}·i + {COLUMN}, in bank ({row_words}·i + {COLUMN}) "
             f"mod {BANKS}", 12, fill=GREY)
    gy = y0 + 48
    for b in range(0, BANKS, 4):
        svg.text(x0 + (b + 0.5) * CW, gy - 6, str(b), 10, anchor="middle", fill=GREY)
    svg.text(x0 + BANKS * CW + 4, gy - 6, "bank", 10, fill=GREY)
    read = {w: lane for lane, w in enumerate(acc["words"])}
    for b in range(BANKS + 1):
        svg.line(x0 + b * CW, gy, x0 + b * CW, gy + rows * CH, stroke=LIGHT, width=0.5)
    for r in range(rows + 1):
        svg.line(x0, gy + r * CH, x0 + BANKS * CW, gy + r * CH, stroke=LIGHT, width=0.5)
    for w in range(rows * BANKS):  # the words read, and the padding column's words
        if w in read or w % row_words >= LANES:
            svg.rect(x0 + w % BANKS * CW, gy + w // BANKS * CH, CW, CH,
                     fill=color if w in read else "#d6d6d6", stroke="#ffffff", width=0.5)
    svg.text(x0 - 6, gy + 7, "0", 10, anchor="end", fill=GREY)
    svg.text(x0 - 6, gy + rows * CH, f"{rows - 1}", 10, anchor="end", fill=GREY)
    svg.text(x0, gy + rows * CH + 14, f"{rows} rows of {BANKS} consecutive words (128 B), one "
             "word per bank", 10, fill=GREY)
    # A few lanes by name: the first, the last, and where the diagonal wraps round the banks.
    banks_of = [w % BANKS for w in acc["words"]]
    named = [0, LANES - 1] + [i for i in range(1, LANES) if banks_of[i] < banks_of[i - 1]]
    for lane in sorted(set(named)):
        w = acc["words"][lane]
        cx, cy = x0 + (w % BANKS + 1) * CW, gy + (w // BANKS + 0.5) * CH
        svg.line(cx, cy, cx + 14, cy, stroke=color)
        svg.text(cx + 16, cy + 4, f"lane {lane}", 10, fill=color, weight="bold")
    # Words asked of each bank, and what that costs.
    hy = gy + rows * CH + 50
    top = max(acc["counts"])
    svg.text(x0, hy - 14, "distinct words the warp asks of each bank:", 12)
    for b, c in enumerate(acc["counts"]):
        h = 48 * c / LANES
        svg.rect(x0 + b * CW + 1, hy + 48 - h, CW - 2, h, fill=color, stroke="none")
    svg.line(x0, hy + 48, x0 + BANKS * CW, hy + 48, stroke=INK)
    peak = acc["counts"].index(top)
    svg.text(x0 + (peak + 0.5) * CW, hy + 48 - 48 * top / LANES - 4, str(top), 11,
             anchor="middle", fill=color, weight="bold")
    waves = acc["wavefronts"]
    verdict = (f"{waves}-way bank conflict: {waves} wavefronts" if waves > 1 else
               "no conflict: 1 wavefront")
    svg.text(x0, hy + 72, verdict, 14, fill=color, weight="bold")
    svg.text(x0, hy + 90, f"(the most words in one bank = {waves}; "
             f"{waves - 1} bank conflict{'s' if waves != 2 else ''})", 12, fill=GREY)
    return acc


def draw():
    svg = Svg(900, 540, "Shared-memory banks: reading a column of a 32x32 and of a 32x33 "
              "float tile")
    svg.text(20, 24, "Shared memory: 32 banks of 4-byte words; word w is in bank w mod 32", 15,
             weight="bold")
    svg.text(20, 42, "A request takes as many passes (wavefronts) as the most distinct words any "
             "one bank must deliver; grey cells: the padding column.", 12, fill=GREY)
    panel(svg, 50, 82, LANES, RED)
    panel(svg, 50 + 34 * CW + 56, 82, LANES + 1, BLUE)
    return svg
