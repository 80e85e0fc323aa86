#!/usr/bin/env bash
# Measures a lab re-grade on the emulator: after an edit of one lab's .cu file, the
# time to `grader lesson13 --unit <lab>` (rebuild that file, run the unit's tests, in
# order and under the seeded schedules). The edit adds or removes a comment line at
# the top, which moves every line and so changes the binary. Works on a copy of the
# solution with its own build tree. Prints each lab's median, min and max.
#   grader/bench/lab_grade.sh [repeats=9]        (GRADER=path picks another build)
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
repeats="${1:-9}"
grader="${GRADER:-$root/build/bin/grader}"
[ -x "$grader" ] || { echo "build the grader first: cmake --preset default && cmake --build --preset default" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/solutions/lesson13" "$work/submission"
rm -rf "$work/submission/mutants" "$work/submission/notes"
now() { date +%s.%N; }
grade() { "$grader" lesson13 --root "$root" --submission "$work/submission" --build-dir "$work/tree" --unit "$1" >/dev/null || true; }

# Every unit whose items grade a CUDA exercise, with that file: the manifest is the list.
pairs=$(python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
files = {e["id"]: e["file"] for e in m["exercises"] if e["kind"] == "cu"}
for u in m["units"]:
    used = [files[i["exercise"]] for i in u["items"] if i["exercise"] in files]
    if used:
        print(u["id"] + ":" + used[0])
' "$root/lessons/lesson13/manifest.json")
grade "${pairs%%:*}"  # the first, clean build of the tree
printf 'machine: %s, %s cores; %s\n' "$(uname -m)" "$(nproc)" "$(date -u +%Y-%m-%d)"
for pair in $pairs; do
  unit=${pair%%:*} file="$work/submission/${pair#*:}"
  times=()
  for i in $(seq 1 "$repeats"); do
    if (( i % 2 )); then sed -i '1i // lab_grade.sh' "$file"; else sed -i '1d' "$file"; fi
    t0=$(now); grade "$unit"; t1=$(now)
    times+=("$(awk "BEGIN {print $t1 - $t0}")")
  done
  sorted=$(printf '%s\n' "${times[@]}" | sort -g)
  median=$(printf '%s\n' "$sorted" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
  printf '%-15s re-grade after an edit: median %.2f s (min %.2f, max %.2f) over %s runs\n' \
    "$unit" "$median" "$(printf '%s\n' "$sorted" | head -1)" "$(printf '%s\n' "$sorted" | tail -1)" "$repeats"
done
