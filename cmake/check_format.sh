#!/usr/bin/env bash
# The course's own sources follow .clang-format: run by ctest as course.format.
#   cmake/check_format.sh .            check (clang-format --dry-run --Werror)
#   cmake/check_format.sh . --fix      rewrite the files in place
# Checked: the grader, its emulator and harness, and each lesson's tests,
# references, headers, checks and benchmarks. Not checked: exercises/ and
# solutions/, whose layout is part of the teaching (and mutants edit them by
# exact text). The style is pinned to Debian 12's clang-format 14; another major
# version formats some constructs differently, so there the check is skipped (77).
set -uo pipefail
root="$(realpath "${1:-.}")"
cd "$root" || exit 1
command -v clang-format >/dev/null || { echo "clang-format not found: run .ci/install-deps"; exit 1; }
major="$(clang-format --version | grep -oE 'version [0-9]+' | grep -oE '[0-9]+')"
if [ "$major" != "14" ] && [ "${2:-}" != "--fix" ]; then
  echo "clang-format $major is not the pinned 14: skipped"
  exit 77
fi
mapfile -t files < <(find grader lessons/*/include lessons/*/reference lessons/*/tests lessons/*/checks lessons/*/bench \
  -type f \( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' -o -name '*.cu' \) 2>/dev/null | sort)
if [ "${2:-}" = "--fix" ]; then
  clang-format -i "${files[@]}"
  echo "formatted ${#files[@]} files"
  exit 0
fi
report="$(clang-format --dry-run --Werror "${files[@]}" 2>&1)"
bad="$(grep -E '^[^ ].*: (error|warning):' <<<"$report" | cut -d: -f1 | sort -u)"
if [ -n "$bad" ]; then
  sed 's/^/not formatted: /' <<<"$bad"
  echo "fix with: cmake/check_format.sh . --fix"
  exit 1
fi
echo "ok   ${#files[@]} files follow .clang-format"
