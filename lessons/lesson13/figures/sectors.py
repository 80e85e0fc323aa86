# Lesson 13 figure sectors.svg (chapter 2 §2.1): one warp's 32 lanes, the byte each lane
# reads, and the 32-byte sectors those bytes fall in, for a coalesced load, a stride-32 load
# and a broadcast. The sector counts are computed here from the addresses.
from svgfig import BLUE, GREEN, GREY, INK, LIGHT, PALE_BLUE, PALE_GREEN, PALE_RED, RED, Svg

FLOAT = 4
SECTOR = 32
LINE = 128
LANES = 32

# (label, element lane i reads, colour, pale colour)
PATTERNS = [
    ("(a) coalesced: lane i reads a[i], byte 4i", lambda i: i, BLUE, PALE_BLUE),
    ("(b) stride 32: lane i reads a[32i], byte 128i", lambda i: 32 * i, RED, PALE_RED),
    ("(c) broadcast: every lane reads a[0], byte 0", lambda i: 0, GREEN, PALE_GREEN),
]


def access(element_of_lane):
    """The warp's byte addresses, the sectors they touch and what it costs."""
    addresses = [element_of_lane(lane) * FLOAT for lane in range(LANES)]
    sectors = sorted({a // SECTOR for a in addresses})
    words = {a // FLOAT for a in addresses}
    return {"addresses": addresses, "sectors": sectors, "fetched": SECTOR * len(sectors),
            "distinct": FLOAT * len(words), "requested": FLOAT * LANES}


def summary(acc):
    n = len(acc["sectors"])
    head = f"{n} sector{'s' if n != 1 else ''}, {acc['fetched']} B fetched"
    if acc["distinct"] < acc["requested"]:
        return f"{head}: one word, sent to all {LANES} lanes"
    pct = 100 * acc["requested"] / acc["fetched"]
    return f"{head} for {acc['requested']} B used ({pct:g}%)"


def panel(svg, y0, label, element_of_lane, color, pale):
    acc = access(element_of_lane)
    x0, lane_w = 96, 22
    width = LANES * lane_w
    svg.text(16, y0, label, 14, weight="bold")
    svg.text(x0 + width, y0, summary(acc), 13, anchor="end", fill=color, weight="bold")
    lane_y = y0 + 14
    svg.text(x0 - 8, lane_y + 16, "lanes", 12, anchor="end")
    for lane in range(LANES):
        svg.rect(x0 + lane * lane_w, lane_y, lane_w, 22, fill="#f4f4f4", stroke=GREY)
        svg.text(x0 + lane * lane_w + lane_w / 2, lane_y + 15, str(lane), 11, anchor="middle")
    # The memory row: the 128-byte lines that hold the warp's bytes, drawn to scale.
    first = min(acc["addresses"]) // LINE * LINE
    last = (max(acc["addresses"]) // LINE + 1) * LINE
    scale = width / (last - first)
    mem_y = y0 + 104
    svg.text(x0 - 8, mem_y + 12, "memory", 12, anchor="end")
    svg.text(x0 - 8, mem_y + 26, "sectors", 11, anchor="end", fill=GREY)
    touched = set(acc["sectors"])
    wide = SECTOR * scale >= 60
    for s in range(first // SECTOR, last // SECTOR):
        hit, x = s in touched, x0 + (s * SECTOR - first) * scale
        svg.rect(x, mem_y, SECTOR * scale, 22, fill=(pale if wide else color) if hit else "#ffffff",
                 stroke=color if hit else LIGHT)
        if wide:
            svg.text(x + SECTOR * scale / 2, mem_y + 15, f"sector {s}", 11, anchor="middle",
                     fill=INK if hit else GREY)
    for b in range(first, last + 1, LINE):  # line boundaries
        svg.line(x0 + (b - first) * scale, mem_y - 3, x0 + (b - first) * scale, mem_y + 25,
                 stroke=INK)
    for lane, a in enumerate(acc["addresses"]):
        svg.line(x0 + lane * lane_w + lane_w / 2, lane_y + 22,
                 x0 + (a - first + FLOAT / 2) * scale, mem_y, stroke=color, width=0.8)
    lines = (last - first) // LINE
    svg.text(x0, mem_y + 40, f"byte {first}", 11, fill=GREY)
    svg.text(x0 + width, mem_y + 40, f"byte {last}", 11, anchor="end", fill=GREY)
    note = (f"{lines} line{'s' if lines != 1 else ''} of {LINE} B = {lines * LINE // SECTOR} "
            f"sectors drawn; filled: the {len(touched)} the warp touches")
    svg.text(x0 + width / 2, mem_y + 40, note, 11, anchor="middle", fill=GREY)
    return acc


def draw():
    svg = Svg(816, 540, "A warp's 32 lanes, their addresses and the 32-byte sectors they touch")
    for k, (label, f, color, pale) in enumerate(PATTERNS):
        panel(svg, 26 + 166 * k, label, f, color, pale)
    svg.text(408, 530, "One warp-wide load of 4-byte floats: the memory system moves every "
             "32-byte sector that at least one lane touches.", 12, anchor="middle", fill=GREY)
    return svg
