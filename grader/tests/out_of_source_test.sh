#!/usr/bin/env bash
# A grade writes nothing into the course's checkout outside the grader's own build
# folder: `git status --ignored` of the checkout is the same before and after.
# Run by ctest as grader.out_of_source; skipped (77) outside a git checkout.
#   grader/tests/out_of_source_test.sh build/dev/bin/grader . build/dev
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$1" "$2"
build="$(realpath "$3")"
git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1 || { echo "not a git checkout: skipped"; exit 77; }
# Paths under the build folder are the grader's to write, when it sits inside the checkout.
prefix=""
case "$build/" in "$root/"*) prefix="${build#"$root/"}/" ;; esac
snapshot() {
  git -C "$root" status --porcelain --ignored --untracked-files=all |
    { if [ -n "$prefix" ]; then grep -vF -- " $prefix" ; else cat; fi; } | sort
}
before="$(snapshot)"
lesson="$("$grader" list --root "$root" | head -1 | cut -d' ' -f1)"
# From inside the checkout, so a path relative to the current folder would land in it.
(cd "$root" && "$grader" "$lesson" --answers --lang en >/dev/null)
rc=$?
after="$(snapshot)"
check "the grade of the solutions exits 0" test "$rc" -eq 0
check "grading $lesson left the checkout as it was (build folder: $build)" test "$before" = "$after" ||
  diff <(echo "$before") <(echo "$after")
finish
