#!/usr/bin/env bash
# The grader where user namespaces are blocked (without_userns: a seccomp filter like a
# Docker runner's): bubblewrap cannot start, so a practice grade falls back to the
# restricted level (grader-confine) and says so, the solutions still pass, and marking
# refuses (exit 2, one line) unless --require-sandbox restricted accepts the fallback.
# ctest runs it as grader.no_userns.
#   grader/tests/no_userns_test.sh build/bin/without_userns build/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
blocked="$(realpath "$1")"
test_setup "$2" "$3"
if "$blocked" unshare -U true 2>/dev/null; then
  echo "FAIL without_userns does not block user namespaces"; exit 1
fi
grade() { "$blocked" "$grader" "$@" --root "$root" --lang en; }

out="$(grade lesson13 --answers --unit exam --build-dir "$trees/worker0" --json "$work/r.json")"; rc=$?
check "a practice grade falls back to restricted and passes" test "$rc" -eq 0
check "the text report names the level" grep -q "Isolation: restricted" <<<"$out"
check "the JSON names the level and what held" python3 -c "
import json, sys
r = json.load(open('$work/r.json'))
sys.exit(not (r['isolation_level'] == 'restricted' and 'grader-confine' in r['isolation_detail']))"

mkdir -p "$work/sub" && cp "$root/solutions/lesson13/"{online_softmax.cpp,answers.md} "$work/sub/"
err="$(grade mark lesson13 "$work/sub" --unit exam --build-dir "$trees/worker0" 2>&1 >/dev/null)"; rc=$?
check "marking refuses without the full level: exit 2, one line, naming the way out" \
  test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | wc -l)" -eq 1 -a -n "$(grep -F -- '--require-sandbox restricted' <<<"$err")"
grade mark lesson13 "$work/sub" --unit exam --build-dir "$trees/worker0" --require-sandbox restricted \
  --json "$work/m.json" >/dev/null; rc=$?
check "marking with --require-sandbox restricted passes at that level" python3 -c "
import json, sys
r = json.load(open('$work/m.json'))
sys.exit(not ($rc == 0 and r['isolation_level'] == 'restricted' and r['mode'] == 'marking'))"
err="$(grade lesson13 --answers --unit exam --build-dir "$trees/worker0" --sandbox full 2>&1 >/dev/null)"; rc=$?
check "--sandbox full where it cannot start: exit 2, one line" \
  test "$rc" -eq 2 -a "$(printf '%s\n' "$err" | wc -l)" -eq 1
finish
