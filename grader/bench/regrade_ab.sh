#!/usr/bin/env bash
# regrade.sh's edit for two course roots (two commits' checkouts, e.g. `git worktree add`),
# taken in turns edit by edit with the same grader binary: on a machine whose speed drifts
# within minutes, a before/after comparison that whole runs of regrade.sh cannot give.
# Each root grades a copy of its own solution in a tree of its own; touches nothing else.
#   grader/bench/regrade_ab.sh ROOT_A ROOT_B [edits=21] [cpp|lab]   (GRADER=path picks the binary)
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
A="$(cd "$1" && pwd)"; B="$(cd "$2" && pwd)"; n="${3:-21}"; which="${4:-cpp}"
grader="${GRADER:-$here/build/bin/grader}"
[ -x "$grader" ] || { echo "regrade_ab.sh: no grader at $grader (set GRADER)" >&2; exit 2; }
case "$which" in
  cpp) f=online_softmax.cpp; a='const float m_new = std::max(m_i[r], block_max);'
       b='const float m_new = std::max(block_max, m_i[r]);' ;;
  lab) f=matmul_coalesced.cu; a='const int row = blockIdx.y * blockDim.y + threadIdx.y;'
       b='const int row = threadIdx.y + blockIdx.y * blockDim.y;' ;;
  *) echo "regrade_ab.sh: the fourth argument is cpp or lab" >&2; exit 2 ;;
esac
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root_of() { if [ "$1" = A ]; then echo "$A"; else echo "$B"; fi; }
for s in A B; do
  cp -r "$(root_of $s)/solutions/lesson13" "$work/sub$s"
  rm -rf "$work/sub$s/mutants" "$work/sub$s/notes"
  grep -qF "$a" "$work/sub$s/$f" || { echo "regrade_ab.sh: the edited line changed in $(root_of $s)" >&2; exit 2; }
done
grade() { "$grader" lesson13 --root "$(root_of "$1")" --submission "$work/sub$1" --build-dir "$work/tree$1" >/dev/null || true; }
grade A; grade B  # the first grades, not timed
esc() { printf '%s' "$1" | sed 's/[][\.*^$/]/\\&/g'; }
times_A=(); times_B=()
for i in $(seq 1 "$n"); do
  for s in A B; do
    if (( i % 2 )); then sed -i "s/$(esc "$a")/$b/" "$work/sub$s/$f"; else sed -i "s/$(esc "$b")/$a/" "$work/sub$s/$f"; fi
    t0=$(date +%s%N); grade $s; t1=$(date +%s%N)
    if [ $s = A ]; then times_A+=($(( (t1 - t0) / 1000000 ))); else times_B+=($(( (t1 - t0) / 1000000 ))); fi
  done
done
printf 'machine: %s, %s cores; %s\n' "$(uname -m)" "$(nproc)" "$(date -u +%Y-%m-%d)"
for s in A B; do
  if [ $s = A ]; then list=("${times_A[@]}"); else list=("${times_B[@]}"); fi
  printf '%s\n' "${list[@]}" | sort -n | awk -v s="$s" -v r="$(root_of $s)" -v w="$which" \
    '{v[NR]=$1} END {printf "%s (%s): %s, %d edits, median %d ms, min %d ms, max %d ms\n", s, r, w, NR, v[int((NR+1)/2)], v[1], v[NR]}'
done
