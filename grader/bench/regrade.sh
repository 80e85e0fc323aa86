#!/usr/bin/env bash
# Measures what a student waits for: a clean first grade (configure + build the
# lesson's tests + run), then the time from editing one blank to the verdict,
# repeated. Prints the median, min and max. Works on a copy of the solution in a
# temporary folder with its own build tree; touches nothing else.
#   grader/bench/regrade.sh [lesson13] [repeats=15]      (GRADER=path picks another build)
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lesson="${1:-lesson13}"
repeats="${2:-15}"
grader="${GRADER:-$root/build/bin/grader}"
[ -x "$grader" ] || { echo "build the grader first: cmake --preset default && cmake --build --preset default" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/solutions/$lesson" "$work/submission"
rm -rf "$work/submission/mutants" "$work/submission/notes"
file="$work/submission/online_softmax.cpp"
# Two right answers for the m_new blank; alternating them changes the file each time.
a='const float m_new = std::max(m_i[r], block_max);'
b='const float m_new = std::max(block_max, m_i[r]);'
grep -qF "$a" "$file" || { echo "regrade.sh: the m_new line changed in the solution; update this script" >&2; exit 2; }

now() { date +%s.%N; }
grade() { "$grader" "$lesson" --root "$root" --submission "$work/submission" --build-dir "$work/tree" >/dev/null; }

t0=$(now); grade; t1=$(now)
first=$(awk "BEGIN {print $t1 - $t0}")

times=()
for i in $(seq 1 "$repeats"); do
  if (( i % 2 )); then sed -i "s/$(printf '%s' "$a" | sed 's/[][\.*^$/]/\\&/g')/$b/" "$file"
  else sed -i "s/$(printf '%s' "$b" | sed 's/[][\.*^$/]/\\&/g')/$a/" "$file"; fi
  t0=$(now); grade; t1=$(now)
  times+=("$(awk "BEGIN {print $t1 - $t0}")")
done
sorted=$(printf '%s\n' "${times[@]}" | sort -g)
median=$(printf '%s\n' "$sorted" | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}')
printf 'machine: %s, %s cores; %s\n' "$(uname -m)" "$(nproc)" "$(date -u +%Y-%m-%d)"
printf 'clean first grade: %.2f s\n' "$first"
printf 'edit one blank -> verdict, %d runs: median %.2f s, min %.2f s, max %.2f s\n' "$repeats" "$median" \
  "$(printf '%s\n' "$sorted" | head -1)" "$(printf '%s\n' "$sorted" | tail -1)"
