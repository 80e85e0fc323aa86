#!/usr/bin/env bash
# The student release end to end, run by ctest as grader.release: `grader dev release`
# writes it into a temporary folder; no file there holds solution material; its CMake
# configures without solutions/; and the built grader grades it without an answer key
# (code against the public tests, the questions checked for completeness, "graded at
# submission"), on the untouched exercises and on the solutions dropped into exercises/.
#   grader/tests/release_test.sh build/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
lesson=lesson13
rel="$work/student"
release() { "$grader" dev release "$lesson" --root "$root" "$@"; }

# Refusals: inside the course, or a folder with other files in it (left untouched).
check "--out inside the course -> one-line error, exit 2" one_line_error release --out "$root/student"
mkdir -p "$work/thesis" && echo precious >"$work/thesis/chapter1.tex"
check "--out a non-empty folder that is no release -> one-line error, exit 2" \
  one_line_error release --out "$work/thesis"
check "... and its files are untouched" grep -qx precious "$work/thesis/chapter1.tex"

out="$(release --out "$rel")"; rc=$?
printf '%s\n' "$out"
check "dev release writes the release (exit 0)" test "$rc" -eq 0 -a -f "$rel/RELEASE.json"
[ -f "$rel/RELEASE.json" ] || { echo "no release to check: stopping"; exit 1; }
check "regenerating into the earlier release replaces it (exit 0)" \
  sh -c "touch '$rel/stale' && '$grader' dev release $lesson --root '$root' --out '$rel' >/dev/null && test ! -e '$rel/stale'"

# Nothing of the answer branch is in it.
check "no solutions/ folder" test ! -e "$rel/solutions"
check "no answer_key*.json anywhere" test -z "$(find "$rel" -name 'answer_key*')"
check "no BEGIN SOLUTION outside the grader's own source (which implements the marker)" \
  test -z "$(grep -rl 'BEGIN SOLUTION' "$rel" | grep -vE "^$rel/grader/(src|include)/")"
check "README.md names neither solutions/, --answers, dev check, mutants nor instructor notes" \
  test -z "$(grep -niE 'solutions/|--answers|dev check|mutant|instructor' "$rel/README.md")"
check "no Markdown file links into solutions/" \
  test -z "$(grep -rnE '\]\([^)]*solutions/' "$rel" --include='*.md')"
check "RELEASE.json says: a student release of $lesson, with the answer forms and no answers" python3 -c "
import json, sys
r = json.load(open('$rel/RELEASE.json'))
forms = json.dumps(r['answer_forms'])
sys.exit(not (r['release'] == 'student' and r['lesson'] == '$lesson' and 'questions' in r['answer_forms']
              and not any(k in forms for k in ('correct', 'accept', 'value', 'key_points'))))"
# No line of the solutions' own text (a filled-in blank, a written answer) is in any file.
check "no line of the solutions' code or answers appears in the release" python3 - "$root" "$rel" "$lesson" <<'EOF'
import os, re, sys
root, rel, lesson = sys.argv[1:]
sol, ex = f"{root}/solutions/{lesson}", f"{root}/exercises/{lesson}"
secret = set()
for name in os.listdir(ex):
    given = {l.strip() for l in open(f"{ex}/{name}", encoding="utf-8")}
    inside = name.endswith(".md")  # answers files: every line the student did not get
    for line in open(f"{sol}/{name}", encoding="utf-8"):
        t = line.strip()
        if re.match(r"//\s*BEGIN SOLUTION", t): inside = True; continue
        if re.match(r"//\s*END SOLUTION", t): inside = name.endswith(".md"); continue
        if inside and len(t) >= 24 and t not in given and not t.startswith("// PROMPT"):
            secret.add(t)
found = []
for d, _, files in os.walk(rel):
    if "/build" in d[len(rel):]: continue
    for f in files:
        try: text = open(os.path.join(d, f), encoding="utf-8").read()
        except (UnicodeDecodeError, OSError): continue
        found += [f"{os.path.join(d, f)}: {s}" for s in secret if s in text]
print("\n".join(found[:5]))
sys.exit(bool(found) or not secret)
EOF

# Its CMake configures without solutions/ (configure only).
cmake -S "$rel" -B "$rel/build" -G Ninja >"$work/configure.log" 2>&1; rc=$?
[ "$rc" -eq 0 ] || tail -20 "$work/configure.log"
check "cmake configures the release without solutions/" test "$rc" -eq 0
rm -rf "$rel/build"

# Graded without a key: the untouched exercises fail, naming their blanks; the questions
# are left to submission.
grade() { "$grader" "$lesson" --root "$rel" --unit exam --build-dir "$work/tree" --lang en "$@"; }
grade --json "$work/untouched.json" >"$work/untouched.txt"; rc=$?
check "untouched exercises: graded (exit 1, not 2)" test "$rc" -eq 1
check "untouched: the report names the blanks and the questions are 'at submission'" python3 -c "
import json, sys
r = json.load(open('$work/untouched.json'))
u = r['units'][0]
q = [i for i in u['items'] if i['at_submission']]
code = [i for i in u['items'] if not i['at_submission']]
sys.exit(not (any('blank' in m for m in r['messages']) and q and code and r['passed'] is False
              and all(i['status'] != 'pass' for i in code) and u['at_submission_points'] > 0
              and all('graded at submission' in i['feedback'] and i['points'] == 0 for i in q)))"

# The solutions dropped into the release's exercises/: full marks here, questions later.
"$grader" dev manifest "$lesson" --all --root "$root" | while read -r _ _ file; do
  cp "$root/solutions/$lesson/$file" "$rel/exercises/$lesson/$file"
done
grade --json "$work/solved.json" >"$work/solved.txt"; rc=$?
check "solutions in the release: exit 0" test "$rc" -eq 0
check "solutions: code items full marks, questions at submission, provisional pass" python3 -c "
import json, sys
r = json.load(open('$work/solved.json'))
u = r['units'][0]
q = [i for i in u['items'] if i['at_submission']]
code = [i for i in u['items'] if not i['at_submission']]
sys.exit(not (q and code and all(i['status'] == 'pass' and i['points'] == i['max_points'] for i in code)
              and all(i['status'] == 'at_submission' for i in q) and r['passed'] and r['provisional']
              and u['score'] + u['at_submission_points'] == u['max_score']))"
# The verdict line wraps at 80 columns: read the report with its lines joined.
check "the text verdict: provisional, N of M points graded here, Q at submission" \
  bash -c "tr '\n' ' ' <'$work/solved.txt' | tr -s ' ' | grep -qE 'provisional: [0-9.]+ of [0-9.]+ points graded here, [0-9.]+ points graded at submission'"
if python3 -c "import jsonschema" 2>/dev/null; then
  check "both reports obey docs/report.schema.json" python3 "$root/cmake/validate_json.py" \
    "$root/docs/report.schema.json" "$work/untouched.json" "$work/solved.json"
fi

# Outside a release, a missing answer key still stops the grade.
mv "$rel/RELEASE.json" "$work/RELEASE.json"
check "without RELEASE.json the missing key is an error (exit 2, one line)" one_line_error grade
mv "$work/RELEASE.json" "$rel/RELEASE.json"

finish
