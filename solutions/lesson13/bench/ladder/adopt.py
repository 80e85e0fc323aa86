#!/usr/bin/env python3
"""Makes one GPU run (measure.sh's OUTDIR, kept inside the repository, e.g.
docs/measurements/<date>-<gpu>-ladder/) the source of every measured figure of lesson 13's
notes, in one command:
  1. checks the run: a device line, every kernel validated, lab 4's steps present;
  2. points each role of lessons/lesson13/figures/figures.json's "measured" section at it;
  3. redraws the charts (figures/make_figures.py);
  4. rewrites each marked figure of the notes that moved (COURSE_FIGURES_WRITE=1
     lesson13_checks), then runs the checks again, which must pass;
  5. lists every line of the notes it rewrote.
The words around the figures (the GPU's name, the date, "about twice") stay the author's to
read again against that list. --roles takes some roles only (e.g. bf16,steps: lab 4's
figures from a run on a card that the other roles were not measured on).
  solutions/lesson13/bench/ladder/adopt.py RUN_DIR [--build build/dev] [--roles bf16,steps]
"""
import argparse
import json
import os
import pathlib
import re
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[4]
FIGURES_JSON = REPO / "lessons" / "lesson13" / "figures" / "figures.json"
ROLES = {"ladder": "ladder.jsonl", "eager": "ladder.jsonl", "fast": "ladder.jsonl",
         "bf16": "ladder.jsonl", "steps": "wmma_steps.txt"}


def fail(message):
    print(f"adopt.py: {message}", file=sys.stderr)
    sys.exit(1)


def check_run(run):
    rows = []
    for line in (run / "ladder.jsonl").read_text(encoding="utf-8").splitlines():
        if line.startswith("{"):
            rows.append(json.loads(line))
    if not any("device" in r for r in rows):
        fail(f"{run}/ladder.jsonl has no device line: not lesson13_gpu_bench's output")
    bad = [r for r in rows if "error" in r or r.get("valid") is False]
    if bad:
        fail(f"{run}/ladder.jsonl has a failed kernel or CUDA call: {bad[0]}")
    steps = (run / "wmma_steps.txt").read_text(encoding="utf-8")
    if not re.search(r"^\s*step3-solution heads", steps, re.M):
        fail(f"{run}/wmma_steps.txt has no timings of lab 4's steps")
    return next(r for r in rows if "device" in r)


def point_roles(run, roles):
    text = FIGURES_JSON.read_text(encoding="utf-8")
    rel = run.relative_to(REPO).as_posix()
    for role in roles:
        name = ROLES[role]
        # One line per role ("role": "path"): the file keeps its layout.
        text, n = re.subn(rf'^(\s*"{role}": )"[^"]*"', rf'\1"{rel}/{name}"', text, count=1, flags=re.M)
        if n != 1:
            fail(f'{FIGURES_JSON} has no "measured" role {role}')
    json.loads(text)
    FIGURES_JSON.write_text(text, encoding="utf-8")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", type=pathlib.Path)
    ap.add_argument("--build", type=pathlib.Path, default=REPO / "build" / "dev")
    ap.add_argument("--roles", default=",".join(ROLES), help="comma-separated: " + ",".join(ROLES))
    args = ap.parse_args()
    roles = [r for r in args.roles.split(",") if r]
    if not roles or any(r not in ROLES for r in roles):
        fail(f"--roles takes some of {','.join(ROLES)}, not {args.roles}")
    run = args.run.resolve()
    if REPO not in run.parents:
        fail(f"{run} is outside the repository: keep the run under docs/measurements/")
    device = check_run(run)
    point_roles(run, roles)
    subprocess.run([sys.executable, str(REPO / "lessons/lesson13/figures/make_figures.py")], check=True)
    subprocess.run(["cmake", "--build", str(args.build), "--target", "lesson13_checks"], check=True,
                   stdout=subprocess.DEVNULL)
    checks = str(args.build / "bin" / "lesson13_checks")
    subprocess.run([checks], env=dict(os.environ, COURSE_FIGURES_WRITE="1"),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    again = subprocess.run([checks], capture_output=True, text=True)
    # The text's lines only: the charts under notes/figures/ were redrawn above.
    diff = subprocess.run(["git", "-C", str(REPO), "diff", "-U0", "--", "lessons/lesson13/notes/*.md"],
                          capture_output=True, text=True).stdout
    rewritten = [l for l in diff.splitlines() if l.startswith("+") and not l.startswith("+++")]
    print(f"adopted {run.relative_to(REPO)} ({device['device']}): {len(rewritten)} lines of the notes rewritten")
    print(diff)
    if again.returncode != 0:
        print(again.stdout[-4000:])
        fail("some figures still differ from their computation (a number written with fewer "
             "decimals than its check rounds to, or a figure the run lacks): fix them by hand")


if __name__ == "__main__":
    main()
