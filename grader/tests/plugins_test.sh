#!/usr/bin/env bash
# A lesson is one folder and a report format one file (docs/architecture.md, "Where
# things plug in"). Run by ctest as grader.plugins:
#   lesson: a scratch copy of the course (its CMake files and test harness) gets one more
#     lesson, grader/tests/throwaway/course/ (lessons/throwaway/ and solutions/throwaway/),
#     and nothing else: `grader list` and `dev manifest` see it, `dev sync` writes its
#     exercise, the solutions score 10/10 and the untouched exercise fails naming its blank;
#   format: grader_throwaway is the grader's own objects plus one file,
#     grader/tests/throwaway/throwaway_format.cpp; it offers --format throwaway and
#     --write throwaway=FILE, which the grader without that file refuses.
# The grading tree stays in WORK between runs: a cold one compiles the test harness and
# the CPU emulator (about 90 s of CPU), a warm one a few seconds.
#   grader/tests/plugins_test.sh build/dev/bin/grader build/dev/bin/grader_throwaway . build/dev/plugins
set -uo pipefail
grader="$(realpath "$1")"
throwaway_grader="$(realpath "$2")"
root="$(realpath "$3")"
work="$(realpath -m "$4")"
course="$work/course"
tree="$work/tree"
failures=0
ok() { echo "ok   $*"; }
bad() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# The scratch course: what a grading tree configures (the top-level CMakeLists.txt, cmake/,
# the test harness and the emulator) and the throwaway lesson. cp -a keeps the files'
# times, so the tree kept from the last run stays warm.
rm -rf "$course"
mkdir -p "$course/grader" "$tree" || exit 1
cp -a "$root/CMakeLists.txt" "$root/cmake" "$course/" &&
  cp -a "$root/grader/testing" "$root/grader/emulator" "$course/grader/" &&
  cp -a "$root/grader/tests/throwaway/course/." "$course/" || exit 1

lessons="$("$grader" list --root "$course" 2>&1)"
case "$lessons" in throwaway*) ok "grader list shows the new lesson" ;; *) bad "grader list: $lessons" ;; esac
exercises="$("$grader" dev manifest throwaway --root "$course" 2>&1)"
[ "$exercises" = "add cpp add.cpp" ] && ok "grader dev manifest lists its exercise" ||
  bad "grader dev manifest: $exercises"
"$grader" dev sync throwaway --root "$course" >/dev/null 2>&1
grep -q 'return BLANK(sum);' "$course/exercises/throwaway/add.cpp" 2>/dev/null &&
  ok "grader dev sync wrote exercises/throwaway/add.cpp with its blank" ||
  bad "grader dev sync did not write the exercise"

# The grade's JSON report: "<exit code> <score> <passed> <feedback of the first item>".
grade() {
  "$grader" throwaway --root "$course" --build-dir "$tree" --lang en --format json "$@" \
    >"$work/report.json" 2>"$work/stderr.txt"
  local rc=$?
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print(sys.argv[2], j["score"], j["passed"], j["items"][0].get("feedback", ""))
' "$work/report.json" "$rc" 2>/dev/null || echo "$rc no report: $(head -3 "$work/stderr.txt")"
}
start=$SECONDS
answers="$(grade --answers)"
case "$answers" in "0 10.0 True"*) ok "the solutions score 10/10 ($((SECONDS - start)) s)" ;;
  *) bad "grader throwaway --answers: $answers" ;; esac
untouched="$(grade)"
case "$untouched" in "1 0.0 False fill in blank \`sum\`"*) ok "the untouched exercise fails at its blank" ;;
  *) bad "grader throwaway (untouched): $untouched" ;; esac

# The throwaway format, on stdout and in a file, from a warm re-grade of the solutions.
"$throwaway_grader" --help | grep -q 'markdown,throwaway}' && ok "--format's help offers throwaway" ||
  bad "grader_throwaway --help does not list throwaway"
out="$("$throwaway_grader" throwaway --answers --root "$course" --build-dir "$tree" \
  --format throwaway --write "throwaway=$work/written.txt" 2>&1)"
[ "$out" = "throwaway exam 10/10 PASS" ] && ok "--format throwaway writes the report" ||
  bad "--format throwaway: $out"
[ "$(cat "$work/written.txt" 2>/dev/null)" = "throwaway exam 10/10 PASS" ] &&
  ok "--write throwaway=FILE writes it too" || bad "--write throwaway=FILE wrote nothing"
"$grader" throwaway --answers --root "$course" --build-dir "$tree" --format throwaway \
  >/dev/null 2>&1
rc=$?  # 0 or 1 would be a verdict: the option was taken
[ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && ok "the grader without the file refuses --format throwaway" ||
  bad "the grader without throwaway_format.cpp accepted --format throwaway"

exit $((failures > 0))
