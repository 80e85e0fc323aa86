#!/usr/bin/env bash
# The sandbox's cost at each isolation level: one process start (/bin/true under the
# level's prefix, as the grader builds it), and the whole lesson's tests run fresh
# (--answers --fresh: every test process started again, nothing rebuilt). Prints medians.
#   grader/bench/sandbox_cost.sh [lesson13] [repeats=9]   (GRADER=path picks another build)
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
lesson="${1:-lesson13}"
repeats="${2:-9}"
grader="${GRADER:-$root/build/bin/grader}"
[ -x "$grader" ] || { echo "build the grader first: cmake --preset default && cmake --build --preset default" >&2; exit 2; }
confine="$(dirname "$grader")/grader-confine"

median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
time_of() {  # seconds one run of "$@" takes
  local t0 t1
  t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N)
  awk "BEGIN {printf \"%.4f\n\", $t1 - $t0}"
}
repeat() { for _ in $(seq "$repeats"); do time_of "$@"; done | median; }

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
echo "process start, median of $repeats (s):"
echo "  plain        $(repeat /bin/true)"
if command -v bwrap >/dev/null; then
  echo "  full         $(repeat env -i PATH=/usr/bin:/bin bwrap --unshare-all --uid 65534 --gid 65534 \
    --die-with-parent --new-session --cap-drop ALL --clearenv --ro-bind /usr /usr \
    --ro-bind-try /bin /bin --ro-bind-try /lib /lib --ro-bind-try /lib64 /lib64 --proc /proc \
    --dev /dev --tmpfs /tmp -- /usr/bin/prlimit --nproc=256 --core=0 -- /bin/true)"
fi
[ -x "$confine" ] && echo "  restricted   $(repeat "$confine" --tmp "$tmp" --nproc 256 -- /bin/true)"

echo "whole $lesson, tests run fresh (--answers --fresh), median of $repeats (s):"
"$grader" "$lesson" --root "$root" --answers >/dev/null || true  # build once
for level in off full restricted; do
  "$grader" "$lesson" --root "$root" --answers --sandbox "$level" >/dev/null 2>&1 || continue
  echo "  $level $(repeat "$grader" "$lesson" --root "$root" --answers --fresh --sandbox "$level")"
done
