#!/usr/bin/env bash
# A fresh grading tree's first grade (configure, the trusted build, the student build, the
# tests) for two course roots in turns, ROUNDS times: README command 1's second half, for a
# before/after of build-graph changes on a machine whose speed drifts within minutes.
#   grader/bench/fresh_tree_ab.sh ROOT_A ROOT_B [rounds=4]   (GRADER=path picks the binary)
# Prints each grade's wall seconds. Record results in docs/benchmarks.md with the machine and date.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
A="$(cd "$1" && pwd)"; B="$(cd "$2" && pwd)"; rounds="${3:-4}"
grader="${GRADER:-$here/build/bin/grader}"
[ -x "$grader" ] || { echo "fresh_tree_ab.sh: no grader at $grader (set GRADER)" >&2; exit 2; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for ((i = 0; i < rounds; ++i)); do
  for root in "$A" "$B"; do
    rm -rf "$work/tree"
    s=$(date +%s.%N)
    "$grader" lesson13 --root "$root" --build-dir "$work/tree" >/dev/null 2>&1 || true  # untouched: exit 1
    e=$(date +%s.%N)
    echo "$(git -C "$root" rev-parse --short HEAD) $(awk "BEGIN {printf \"%.1f\", $e - $s}") s  ($root)"
  done
done
