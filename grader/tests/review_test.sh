#!/usr/bin/env bash
# `grader review` end to end (ctest grader.review): a class of three (the solutions, an
# answers file that states a misconception in English, one whose explanation misses every
# key point) is marked with `grader batch --unit exam`; the queue lists every part judged
# from free text; a scripted review (one decision per line, as on a pipe) accepts, sets
# points and clears a provisional veto, shrugs off a wrong key and points out of range;
# the review files obey docs/review.schema.json; the reviewed students are marked again and
# the gradebook changes accordingly; each report equals a single `grader mark --override`;
# a later batch keeps the reviewed reports and marks again only a student whose review
# changed. Refusals are one line, exit 2. Needs bubblewrap (skips, exit 77, where it cannot).
#   grader/tests/review_test.sh build/dev/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
need_bwrap
class="$work/class"
python3 - "$root" "$class" <<'PY'
import json, os, shutil, sys
root, cls = sys.argv[1:]
files = [e['file'] for e in json.load(open(f'{root}/lessons/lesson13/manifest.json'))['exercises']]
def student(name, mutant=None):
    d = f'{cls}/{name}'
    os.makedirs(d)
    for f in files:
        shutil.copy(f'{root}/solutions/lesson13/{f}', d)
    if mutant:
        for e in json.load(open(f'{root}/solutions/lesson13/mutants/{mutant}/mutant.json'))['edits']:
            p = f"{d}/{e['file']}"
            text = open(p, encoding='utf-8').read()
            assert text.count(e['find']) == 1, (mutant, e['find'])
            open(p, 'w', encoding='utf-8').write(text.replace(e['find'], e['replace']))
student('ada')
student('bo', 'answers-claim-flops-en')
student('cy', 'answers-weak-explanations')
PY
out="$work/out"
batch() { "$grader" batch lesson13 "$class" --out "$out" --root "$root" --trees "$trees" --unit exam --jobs 2 --lang en; }
batch >"$work/batch.txt" 2>&1 || bad "batch: $(tail -3 "$work/batch.txt")"
review() { "$grader" review "$out" --root "$root" --trees "$trees" --lang en "$@"; }

# The queue: every part judged from free text, bo's with its provisional veto.
review --list >"$work/list.txt" 2>&1 || bad "review --list: exit $?"
grep -qP '^bo\texam\tq1\.h\t0\.4/0\.4\tneeds_review provisional_veto$' "$work/list.txt" ||
  bad "the queue: bo's q1.h with its provisional veto ($(cat "$work/list.txt"))"
grep -qP '^cy\texam\tq1\.h\t0/0\.4\tneeds_review$' "$work/list.txt" || bad "the queue: cy's q1.h at 0"
[ "$(wc -l <"$work/list.txt")" -eq 9 ] || bad "the queue: $(wc -l <"$work/list.txt") parts, want 9 (3 explanations x 3)"

# A scripted review: bo's misconception cleared (after a wrong key and points out of range),
# cy's q1.h given full points, everything else accepted as the grader judged it.
while IFS=$'\t' read -r who _ part _; do
  case "$who/$part" in
    bo/q1.h) printf 'zz\np 9\nc\nn\n' ;;
    cy/q1.h) printf 'p 0.4\nn\n' ;;
    *) printf 'a\n' ;;
  esac
done <"$work/list.txt" | review --reviewer "Li" >"$work/review.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || bad "review: exit $rc ($(tail -3 "$work/review.txt"))"
grep -q "Unknown key" "$work/review.txt" || bad "review: a wrong key is not answered"
grep -q "Points are a number from 0 to 0.4" "$work/review.txt" || bad "review: points out of range not refused"
grep -q "Saved the reviews of 3 students" "$work/review.txt" || bad "review: $(grep Saved "$work/review.txt")"
python3 "$root/cmake/validate_json.py" "$root/docs/review.schema.json" "$out"/reviews/*.json \
  >"$work/valid.txt" 2>&1 || bad "the review files: $(head -3 "$work/valid.txt")"
python3 - "$out" <<'PY' || bad "the review files or the gradebook"
import csv, json, sys
out = sys.argv[1]
r = {w: json.load(open(f'{out}/reviews/{w}.json', encoding='utf-8')) for w in ('ada', 'bo', 'cy')}
assert r['bo']['vetoes'] == {'exam': {'flops-reduced': 'clear'}} and r['bo']['parts']['q1.h'] == 0.4, r['bo']
assert r['cy']['parts']['q1.h'] == 0.4 and r['cy']['reviewer'] == 'Li', r['cy']
assert r['ada']['parts'] == {'q1.h': 0.4, 'q2.h': 0.35, 'q3.e': 0.7}, r['ada']
rows = {x['student']: x for x in csv.DictReader(open(f'{out}/gradebook.csv', encoding='utf-8'))}
assert rows['bo']['exam.passed'] == 'yes' and rows['bo']['exam.vetoes'] == '', rows['bo']
assert rows['cy']['exam.score'] == '10', rows['cy']
assert rows['ada']['exam.provisional'] == 'no', 'every part reviewed: no longer provisional'
bo = json.load(open(f'{out}/students/bo/report.json', encoding='utf-8'))
assert bo['review_file'].endswith('reviews/bo.json')
assert [(v['id'], v['applies'], v['review']) for v in bo['units'][0]['vetoes']] == [('flops-reduced', False, 'cleared')]
PY
review --list >"$work/list2.txt" 2>&1
grep -q "Nothing to review" "$work/list2.txt" || bad "after the review the queue is not empty: $(head -3 "$work/list2.txt")"

# Each reviewed report is what a single mark with the same review file gives.
for who in bo cy; do
  "$grader" mark lesson13 "$class/$who" --root "$root" --lang en --unit exam \
    --build-dir "$trees/worker0" --override "$out/reviews/$who.json" --json "$work/$who.json" >/dev/null 2>&1
  python3 - "$out/students/$who/report.json" "$work/$who.json" <<'PY' || bad "$who: the reviewed report differs from a single mark"
import json, sys
a, b = (json.load(open(p, encoding='utf-8')) for p in sys.argv[1:3])
diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k) and k != 'submission']
assert not diff, diff
PY
done

# A later batch keeps the reviewed reports; a changed review marks that student again.
batch >"$work/again.txt" 2>&1
grep -q "^0 marked, 3 unchanged" "$work/again.txt" || bad "resume after a review: $(tail -1 "$work/again.txt")"
python3 -c "
import json, sys
p = sys.argv[1]; r = json.load(open(p)); r['vetoes'] = {'exam': {'flops-reduced': 'set'}}
json.dump(r, open(p, 'w'))" "$out/reviews/bo.json"
batch >"$work/changed.txt" 2>&1
grep -q "^1 marked, 2 unchanged" "$work/changed.txt" || bad "a changed review: $(tail -1 "$work/changed.txt")"
grep -q '^bo,yes,,10,10,no,' "$out/gradebook.csv" || bad "the veto set by review: $(grep ^bo "$out/gradebook.csv")"

# Refusals: no batch here; a review file out of range (named, one line).
mkdir -p "$work/empty"
one_line_error "$grader" review "$work/empty" --root "$root" || bad "review of a folder with no batch"
echo '{"schema": 1, "parts": {"q1.h": 5}}' >"$out/reviews/cy.json"
one_line_error "$grader" review "$out" --root "$root" --list || bad "review with a review file out of range"

finish
