#!/usr/bin/env python3
# Lesson 13's figures: draws every SVG of notes/figures/ from data and computation (standard
# library only), and checks that the checked-in SVGs are up to date (ctest lesson13.figures_fresh).
"""Draws lesson 13's figures into lessons/lesson13/notes/figures/.

  python3 lessons/lesson13/figures/make_figures.py            # (re)write every SVG
  python3 lessons/lesson13/figures/make_figures.py --check    # draw into a temporary folder and
                                                              # fail if a checked-in SVG differs
  python3 lessons/lesson13/figures/make_figures.py --out DIR  # write them somewhere else

One module per figure (sectors.py, tiles.py, fa_grid.py, banks.py, roofline.py,
online_softmax_trace.py), each with a draw() that returns the drawing; svgfig.py writes SVG.
The ladder charts are bench/plot_ladder.py's, from the timing runs' .jsonl files.
Numbers shared with the notes' checks live in figures.json, and so do the GPU runs that the
roofline and the ladder charts draw (its "measured" roles); fa-grid and tiles read the labs' tile sizes
from include/*.hpp. The output is the same bytes on every run and machine.
"""
import argparse
import pathlib
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import banks  # noqa: E402
import fa_grid  # noqa: E402
import online_softmax_trace  # noqa: E402
import roofline  # noqa: E402
import sectors  # noqa: E402
import svgfig  # noqa: E402
import tiles  # noqa: E402

sys.path.insert(0, str(HERE.parent / "bench"))
import plot_ladder  # noqa: E402

REPO = HERE.parent.parent.parent

FIGURES = {
    "sectors.svg": sectors.draw,
    "tiles.svg": tiles.draw,
    "fa-grid.svg": fa_grid.draw,
    "banks.svg": banks.draw,
    "roofline-h200.svg": roofline.draw,
    "online-softmax-trace.svg": online_softmax_trace.draw,
    # The measured ladders, as lesson13_gpu_bench --ladder wrote them (bench/plot_ladder.py).
    "ladder-h200.svg": lambda: plot_ladder.render(REPO / svgfig.inputs()["measured"]["ladder"]),
    "ladder-h100.svg": lambda: plot_ladder.render(REPO / svgfig.inputs()["measured"]["fast"]),
}
NOTES_FIGURES = HERE.parent / "notes" / "figures"
COMMAND = "python3 lessons/lesson13/figures/make_figures.py"


def write_all(out):
    out.mkdir(parents=True, exist_ok=True)
    for name, draw in FIGURES.items():
        (out / name).write_bytes(str(draw()).encode("utf-8"))


def check():
    """Draws every figure afresh; 1 if a checked-in SVG is missing or differs."""
    with tempfile.TemporaryDirectory(prefix="lesson13-figures-") as tmp:
        write_all(pathlib.Path(tmp))
        stale = []
        for name in FIGURES:
            fresh = (pathlib.Path(tmp) / name).read_bytes()
            path = NOTES_FIGURES / name
            if not path.exists():
                stale.append(f"{name}: missing")
            elif path.read_bytes() != fresh:
                old, new = path.read_bytes().split(b"\n"), fresh.split(b"\n")
                line = next((i + 1 for i, (a, b) in enumerate(zip(old, new)) if a != b),
                            min(len(old), len(new)) + 1)
                stale.append(f"{name}: differs from what the script draws (first at line {line})")
    for extra in sorted(p.name for p in NOTES_FIGURES.glob("*.svg") if p.name not in FIGURES):
        print(f"note: lessons/lesson13/notes/figures/{extra} is not drawn by this script")
    if stale:
        for s in stale:
            print(f"stale: lessons/lesson13/notes/figures/{s}")
        print(f"regenerate with: {COMMAND}   (from the repository root), then commit the SVGs")
        return 1
    print(f"{len(FIGURES)} figures up to date in lessons/lesson13/notes/figures/")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="compare with the checked-in SVGs instead of writing them")
    parser.add_argument("--out", type=pathlib.Path, default=NOTES_FIGURES,
                        help="folder to write into (default: notes/figures/)")
    args = parser.parse_args()
    if args.check:
        return check()
    write_all(args.out)
    print(f"wrote {len(FIGURES)} figures to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
