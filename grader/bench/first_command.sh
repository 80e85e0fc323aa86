#!/usr/bin/env bash
# Times the README's first command on a fresh clone, step by step: what a new student
# waits for (packages already installed, so `.ci/install-deps` only checks them). Clones
# COMMIT (default HEAD) of this repository into a temporary folder, runs
#   .ci/install-deps && cmake --workflow --preset default && ./build/bin/grader lesson13
# and prints each step's wall and CPU seconds. Touches nothing in the checkout.
#   grader/bench/first_command.sh [COMMIT] [repeats=1]
# Record results in docs/benchmarks.md with the machine and the date.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
commit="${1:-HEAD}"
repeats="${2:-1}"
sha=$(git -C "$root" rev-parse --short "$commit")
step() {  # step NAME COMMAND...: wall and user+sys CPU of one step, from /usr/bin/time
  local name=$1; shift
  /usr/bin/time -f "%e %U %S" -o "$work/time" "$@" >"$work/$name.log" 2>&1 || true
  read -r wall user sys < <(tail -1 "$work/time")  # after "Command exited with ..."
  printf '%s %s: %.1f s wall, %.1f s CPU\n' "$sha" "$name" "$wall" "$(awk "BEGIN {print $user + $sys}")"
  total=$(awk "BEGIN {print $total + $wall}")
}
for ((i = 0; i < repeats; ++i)); do
  work=$(mktemp -d)
  git clone -q "$root" "$work/course" && git -C "$work/course" checkout -q "$sha"
  cd "$work/course"
  total=0
  step install-deps .ci/install-deps
  step build cmake --workflow --preset default
  step first-grade ./build/bin/grader lesson13
  printf '%s total: %.1f s\n' "$sha" "$total"
  cd "$root"
  rm -rf "$work"
done
