# Lesson 13 figures: a tiny SVG writer (standard library only) shared by the figure modules.
# Every number is written with a fixed format, elements in the order they are added, and no
# date or version anywhere, so the same inputs give the same bytes on every machine.
# Text stays <text> in a generic font (sans-serif, monospace): nothing external to load.
import json
import math
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
LESSON = HERE.parent

INK = "#222222"
GREY = "#666666"
LIGHT = "#dddddd"
BLUE = "#4878a8"
RED = "#c0504d"
GREEN = "#4f8a3c"
ORANGE = "#d9822b"
PURPLE = "#7d5ba6"
PALE_BLUE = "#dce8f4"
PALE_RED = "#f6dcdb"
PALE_GREEN = "#e0eed8"
PALE_ORANGE = "#fbe5cf"
PALE_PURPLE = "#e8e0f2"


def inputs():
    """figures.json: the numbers the figures share with the notes' checks."""
    with open(HERE / "figures.json", encoding="utf-8") as f:
        return json.load(f)


def num(x):
    """A coordinate: at most two decimals, no trailing zeros, never '-0'."""
    s = f"{x:.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def esc(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Svg:
    """An SVG drawing: call the shape methods, then str() it."""

    def __init__(self, width, height, title):
        self.width, self.height = width, height
        self.parts = [
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="sans-serif">',
            f"<title>{esc(title)}</title>",
            "<!-- Drawn by lessons/lesson13/figures/make_figures.py: edit the script, not this "
            "file (ctest lesson13.figures_fresh) -->",
            '<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
            'markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" '
            f'fill="{INK}"/></marker></defs>',
            f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
        ]

    def add(self, element):
        self.parts.append(element)

    def text(self, x, y, s, size=12, anchor="start", weight="normal", fill=INK, mono=False,
             italic=False):
        extra = ' font-family="monospace"' if mono else ""
        extra += ' font-style="italic"' if italic else ""
        extra += f' font-weight="{weight}"' if weight != "normal" else ""
        extra += f' text-anchor="{anchor}"' if anchor != "start" else ""
        self.add(f'<text x="{num(x)}" y="{num(y)}" font-size="{size}" fill="{fill}"{extra}>'
                 f"{esc(s)}</text>")

    def rect(self, x, y, w, h, fill="none", stroke=INK, width=1, dash=None, rx=0):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += f' rx="{num(rx)}"' if rx else ""
        self.add(f'<rect x="{num(x)}" y="{num(y)}" width="{num(w)}" height="{num(h)}" '
                 f'fill="{fill}" stroke="{stroke}" stroke-width="{num(width)}"{extra}/>')

    def line(self, x1, y1, x2, y2, stroke=INK, width=1, dash=None, arrow=False):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        extra += ' marker-end="url(#arrow)"' if arrow else ""
        self.add(f'<line x1="{num(x1)}" y1="{num(y1)}" x2="{num(x2)}" y2="{num(y2)}" '
                 f'stroke="{stroke}" stroke-width="{num(width)}"{extra}/>')

    def polyline(self, points, stroke=INK, width=1, dash=None, fill="none"):
        extra = f' stroke-dasharray="{dash}"' if dash else ""
        pts = " ".join(f"{num(x)},{num(y)}" for x, y in points)
        self.add(f'<polyline points="{pts}" fill="{fill}" stroke="{stroke}" '
                 f'stroke-width="{num(width)}"{extra}/>')

    def circle(self, x, y, r, fill=INK, stroke="none"):
        self.add(f'<circle cx="{num(x)}" cy="{num(y)}" r="{num(r)}" fill="{fill}" '
                 f'stroke="{stroke}"/>')

    def marker(self, x, y, shape, color, size=5):
        """A data point: 'circle', 'square', 'diamond' or 'triangle'."""
        if shape == "circle":
            self.circle(x, y, size, fill=color, stroke="#ffffff")
        elif shape == "square":
            self.rect(x - size, y - size, 2 * size, 2 * size, fill=color, stroke="#ffffff")
        else:
            if shape == "diamond":
                pts = [(x, y - size * 1.3), (x + size * 1.3, y), (x, y + size * 1.3),
                       (x - size * 1.3, y)]
            else:
                pts = [(x, y - size * 1.2), (x + size * 1.1, y + size * 0.9),
                       (x - size * 1.1, y + size * 0.9)]
            p = " ".join(f"{num(a)},{num(b)}" for a, b in pts)
            self.add(f'<polygon points="{p}" fill="{color}" stroke="#ffffff"/>')

    def __str__(self):
        return "\n".join(self.parts + ["</svg>"]) + "\n"


def log_axis(lo, hi, a, b):
    """Maps [lo, hi] on a log10 scale onto pixels [a, b]."""
    span = math.log10(hi) - math.log10(lo)
    return lambda v: a + (b - a) * (math.log10(v) - math.log10(lo)) / span
