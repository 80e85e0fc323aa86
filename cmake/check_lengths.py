#!/usr/bin/env python3
"""The grader's size limits, run by ctest as course.lengths (docs/architecture.md).

  cmake/check_lengths.py .           check; prints every function and file over its limit
  cmake/check_lengths.py . --list N  the N longest functions (for planning a split)

A function in grader/src, grader/app or grader/reader is at most 80 lines (a lambda counts
inside the function that holds it); a source or test file of the grader or of a lesson's
tests and checks is at most 600 lines. Function extents come from universal-ctags
(Debian's universal-ctags), which knows C++'s grammar; a hand-written brace counter would
be fooled by braces in strings and raw string literals.
"""
import json
import pathlib
import shutil
import subprocess
import sys

FUNCTION_LINES = 80
FILE_LINES = 600
FUNCTION_ROOTS = ["grader/src", "grader/app", "grader/reader"]
FILE_ROOTS = ["grader/src", "grader/app", "grader/include", "grader/reader", "grader/tests",
              "grader/testing", "lessons/*/tests", "lessons/*/checks"]
SUFFIXES = {".cpp", ".hpp", ".h", ".cu", ".cuh", ".py", ".sh"}


def files_under(root, patterns):
    out = []
    for pattern in patterns:
        for folder in sorted(root.glob(pattern)):
            out += [p for p in sorted(folder.rglob("*")) if p.is_file() and p.suffix in SUFFIXES
                    and "fixtures" not in p.relative_to(root).parts]
    return out


def functions(root, files):
    ctags = shutil.which("ctags-universal") or shutil.which("ctags")
    if ctags is None:
        sys.exit("ctags not found: run .ci/install-deps (Debian's universal-ctags)")
    cmd = [ctags, "--languages=C++", "--kinds-C++=f", "--fields=+ne", "--output-format=json",
           "-f", "-"] + [str(f.relative_to(root)) for f in files if f.suffix in {".cpp", ".hpp", ".h"}]
    out = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        tag = json.loads(line)
        if "end" in tag:
            yield tag["end"] - tag["line"] + 1, f'{tag["path"]}:{tag["line"]}', tag["name"]


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    fn = sorted(functions(root, files_under(root, FUNCTION_ROOTS)), reverse=True)
    if "--list" in sys.argv:
        for n, where, name in fn[: int(sys.argv[sys.argv.index("--list") + 1])]:
            print(f"{n:5} {name} {where}")
        return 0
    bad = [f"function over {FUNCTION_LINES} lines: {name} ({n} lines) at {where}"
           for n, where, name in fn if n > FUNCTION_LINES]
    for f in files_under(root, FILE_ROOTS):
        n = sum(1 for _ in f.open(encoding="utf-8", errors="replace"))
        if n > FILE_LINES:
            bad.append(f"file over {FILE_LINES} lines: {f.relative_to(root)} ({n} lines)")
    print("\n".join(bad) if bad else f"lengths: {len(fn)} functions <= {FUNCTION_LINES} lines, files <= {FILE_LINES}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
