#!/usr/bin/env bash
# Measures what a student waits for: a clean first grade (configure + build the
# lesson's tests + run), then the time from editing one blank to the verdict,
# repeated. Prints the median, min and max. Works on a copy of the solution in a
# temporary folder with its own build tree; touches nothing else.
#   grader/bench/regrade.sh [lesson13] [repeats=15] [cpp|lab]   (GRADER=path picks another build)
# cpp edits the m_new blank of online_softmax.cpp (the exam's C++ file); lab edits the row
# blank of matmul_coalesced.cu (lab 1, on the emulator).
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lesson="${1:-lesson13}"
repeats="${2:-15}"
which="${3:-cpp}"
grader="${GRADER:-$root/build/bin/grader}"
[ -x "$grader" ] || { echo "build the grader first: cmake --preset default && cmake --build --preset default" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$root/solutions/$lesson" "$work/submission"
rm -rf "$work/submission/mutants" "$work/submission/notes"
# Two right answers for one blank; alternating them changes the file each time.
case "$which" in
  cpp)
    file="$work/submission/online_softmax.cpp"
    a='const float m_new = std::max(m_i[r], block_max);'
    b='const float m_new = std::max(block_max, m_i[r]);' ;;
  lab)
    file="$work/submission/matmul_coalesced.cu"
    a='const int row = blockIdx.y * blockDim.y + threadIdx.y;'
    b='const int row = threadIdx.y + blockIdx.y * blockDim.y;' ;;
  *) echo "regrade.sh: the third argument is cpp or lab" >&2; exit 2 ;;
esac
grep -qF "$a" "$file" || { echo "regrade.sh: the edited line changed in the solution; update this script" >&2; exit 2; }

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
printf '%s: edit one blank of %s -> verdict, %d runs: median %.2f s, min %.2f s, max %.2f s\n' "$which" "$(basename "$file")" "$repeats" "$median" \
  "$(printf '%s\n' "$sorted" | head -1)" "$(printf '%s\n' "$sorted" | tail -1)"
