#!/usr/bin/env bash
# End-to-end checks of the grader command on bad input, run by ctest as grader.cli:
# one-line errors with exit code 2, compile errors shown at the student's
# file:line:col, and the student's files never modified.
#   grader/tests/cli_test.sh build/bin/grader .
# Works on the course's first lesson that has a C++ exercise and an answers file.
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"

# The manifest is read through the grader (dev manifest: "id kind file" lines).
lesson="" cpp="" answers=""
for l in $("$grader" list --root "$root" | cut -d' ' -f1); do
  files="$("$grader" dev manifest "$l" --all --root "$root")"
  c="$(awk '$2 == "cpp" {print $3; exit}' <<<"$files")"
  a="$(awk '$2 == "answers" {print $3; exit}' <<<"$files")"
  if [ -n "$c" ] && [ -n "$a" ]; then lesson="$l" cpp="$c" answers="$a"; break; fi
done
[ -n "${lesson:-}" ] || { echo "no lesson with a C++ exercise and an answers file"; exit 1; }
run() { "$grader" "$lesson" --root "$root" --build-dir "$trees/worker0" --lang en "$@"; }

check "missing submission folder -> one-line error, exit 2" cannot_grade run --submission "$work/nowhere"
mkdir -p "$work/partial" && cp "$root/exercises/$lesson/$answers" "$work/partial/"
check "submission missing a file -> one-line error, exit 2" cannot_grade run --submission "$work/partial"
# A folder name with a newline and an escape sequence: still one line, no ESC byte.
hostile="$work/$(printf 'forged\ngrader: PASS \033[2J')"
mkdir -p "$hostile" && cp "$root/exercises/$lesson/$answers" "$hostile/"
check "a hostile folder name in the error -> one line, exit 2" cannot_grade run --submission "$hostile"
err="$(run --submission "$hostile" 2>&1 >/dev/null)"
check "a hostile folder name in the error -> no escape byte" test "$(printf '%s' "$err" | tr -dc '\033' | wc -c)" -eq 0
check "unknown lesson -> one-line error, exit 2" cannot_grade "$grader" no_such_lesson --root "$root"
check "not a course root -> one-line error, exit 2" cannot_grade "$grader" "$lesson" --root "$work"

# A submission with a compile error and a malformed answers file.
mkdir -p "$work/sub"
"$grader" dev manifest "$lesson" --all --root "$root" | while read -r _ _ file; do
  cp "$root/solutions/$lesson/$file" "$work/sub/"
done
printf '\nint broken = ;\n' >>"$work/sub/$cpp"
sed -i '0,/- \[x\]/s//- [y]/' "$work/sub/$answers"
before="$(cd "$work/sub" && sha256sum ./* && stat -c '%n %Y' ./*)"
out="$(run --submission "$work/sub" --json "$work/r.json")"; rc=$?
check "compile error + malformed answers -> graded, exit 1" test "$rc" -eq 1
line=$(wc -l <"$work/sub/$cpp")
check "compile error shown at the student's file:line:col" grep -qE "sub/$cpp:$line:[0-9]+: error" <<<"$out"
check "a malformed part named with its line, alone" grep -qE "q1\.[a-h]: line [0-9]+: checkbox mark" <<<"$out"
check "JSON report written" python3 -c "import json,sys; r=json.load(open('$work/r.json')); sys.exit(r['passed'] is not False)"
check "the JSON names the one file that does not compile" python3 -c "
import json, sys
r = json.load(open('$work/r.json'))
sys.exit([b['file'] for b in r['build_failures']] != ['$cpp'] or '$cpp' not in r['build_failures'][0]['diagnostics'])"
check "--format json writes the report as JSON on stdout" python3 -c "
import json, subprocess, sys
out = subprocess.run(['$grader', '$lesson', '--root', '$root', '--build-dir', '$trees/worker0', '--answers',
                      '--unit', 'exam', '--format', 'json'], capture_output=True, text=True).stdout
sys.exit(json.loads(out)['passed'] is not True)"
after="$(cd "$work/sub" && sha256sum ./* && stat -c '%n %Y' ./*)"
check "the student's files are unchanged (content and mtime)" test "$before" = "$after"

# A compile that hangs (an #include of a FIFO nobody writes) in one exercise: that
# exercise's build times out; every other exercise still builds and is graded. The
# FIFO sits in the build tree, the one folder a confined compiler sees besides the course.
cp "$root/solutions/$lesson/$cpp" "$root/solutions/$lesson/$answers" "$work/sub/"
fifo="$trees/worker0/fifo-$$"
mkdir -p "$trees/worker0" && mkfifo "$fifo"
printf '#include "%s"\n' "$fifo" >>"$work/sub/$cpp"
run --submission "$work/sub" --build-timeout 5 --json "$work/hang.json" >/dev/null
rm -f "$fifo"
check "a hanging compile times out its own exercise only" python3 -c "
import json, sys
r = json.load(open('$work/hang.json'))
fails = r['build_failures']
ok = [b['file'] for b in fails] == ['$cpp'] and 'timed out' in fails[0]['diagnostics']
others = [u for u in r['units'] if not any(i['status'] == 'error' for i in u['items'])]
sys.exit(not (ok and others and all(u['passed'] for u in others)))"

out="$("$grader" "$lesson" --root "$root" --build-dir "$trees/worker0" --answers --lang zh)"; rc=$?
check "--answers passes (exit 0) and --lang zh speaks Chinese" test "$rc" -eq 0 -a -n "$(grep -F '通过线' <<<"$out")"

# An instructor's review sets item and part points and vetoes; the report keeps the
# grader's values beside them; a bad override file is a one-line error.
printf '{"schema": 1, "items": {"q1": 1.5}, "parts": {"q2.h": 0.1},
  "vetoes": {"exam": {"flops-reduced": "set"}}}' >"$work/override.json"
"$grader" "$lesson" --root "$root" --build-dir "$trees/worker0" --answers --override "$work/override.json" --json "$work/o.json" >/dev/null
check "--override sets item and part points, keeps the automatic ones, and sets a veto" python3 -c "
import json, sys
r = json.load(open('$work/o.json'))
items = {i['id']: i for i in r['items']}
q1, q2 = items['q1'], items['q2']
veto = [v for v in r['vetoes'] if v['id'] == 'flops-reduced']
sys.exit(not (q1['points'] == 1.5 and q1['auto_points'] == 2 and q1['reviewed'] and not q1['needs_review']
              and q2['reviewed'] and abs(q2['points'] - (2 - 0.35 + 0.1)) < 1e-9
              and veto and veto[0]['review'] == 'set' and veto[0]['applies'] and r['passed'] is False
              and r['review_file'].endswith('override.json')))"
printf '{"schema": 1, "items": {"no_such_item": 1}}' >"$work/bad.json"
check "an override naming an unknown item -> one-line error, exit 2" \
  cannot_grade "$grader" "$lesson" --root "$root" --build-dir "$trees/worker0" --answers --override "$work/bad.json"

# The same files graded twice, the second time from the cache, give the same report. In a
# tree of this suite's own: another suite grading other files in the shared warm tree
# between the two grades (ctest -j2) would replace the cached results.
own() { "$grader" "$lesson" --root "$root" --build-dir "$trees/cli-cache" --unit exam --lang en "$@"; }
own --answers --json "$work/once.json" >/dev/null
own --answers --json "$work/twice.json" >/dev/null
own --answers --fresh --json "$work/fresh.json" >/dev/null
check "the same files graded again (cached or --fresh) give the same JSON" python3 -c "
import json, sys
def graded(f):
    r = json.load(open(f)); r.pop('reused'); return r
a, b, c = (graded('$work/' + n + '.json') for n in ('once', 'twice', 'fresh'))
sys.exit(not (a == b == c and json.load(open('$work/twice.json'))['reused']))"

# A read past a heap block in the student's C++ (run at start-up, so every code item meets
# it): AddressSanitizer's summary at the student's line, the same fresh or from the cache.
mkdir -p "$work/oob"
cp "$work/sub/"* "$work/oob/" && cp "$root/solutions/$lesson/$cpp" "$work/oob/$cpp"
cp "$root/solutions/$lesson/$answers" "$work/oob/$answers"
printf '\n#include <vector>\nstatic const int course_probe = [] { std::vector<int> v(1, 0); volatile int* p = v.data(); return p[1]; }();\n' >>"$work/oob/$cpp"
oob_line=$(wc -l <"$work/oob/$cpp")
own --submission "$work/oob" --json "$work/oob1.json" >/dev/null
own --submission "$work/oob" --json "$work/oob2.json" >/dev/null
check "an out-of-bounds read fails the C++ items with ASan's summary at the student's line" python3 -c "
import json, sys
r = json.load(open('$work/oob1.json'))
code = [i for u in r['units'] for i in u['items'] if i['status'] != 'pass' and 'heap-buffer-overflow' in i['feedback']]
sys.exit(not (code and all('$cpp:$oob_line' in i['feedback'] for i in code)))"
check "the sanitizer's verdict is the same from the cache" python3 -c "
import json, sys
def graded(f):
    r = json.load(open(f)); r.pop('reused'); return r
sys.exit(not (graded('$work/oob1.json') == graded('$work/oob2.json') and json.load(open('$work/oob2.json'))['reused']))"

printf '{"schema": 1, "parts": {"q1.h": 7}}' >"$work/big.json"
check "an override above the part's points -> one-line error, exit 2 (never a clamp)" \
  cannot_grade "$grader" "$lesson" --root "$root" --build-dir "$trees/worker0" --answers --override "$work/big.json"
check "dev check --only with an unknown check -> one-line error, exit 2" \
  cannot_grade "$grader" dev check "$lesson" --root "$root" --only no-such-check
check "dev check --list names the checks" grep -q '^solutions:' <<<"$("$grader" dev check "$lesson" --root "$root" --list)"
check "an unknown --format -> exit 2" cannot_grade run --answers --format yaml
check "--require-sandbox above the level asked for -> one-line error, exit 2" \
  cannot_grade run --answers --sandbox off --require-sandbox restricted
# The fallback level (grader-confine, built where libseccomp is installed) grades the
# solutions in full and names itself in the report.
if [ -x "$(dirname "$grader")/grader-confine" ]; then
  run --answers --sandbox restricted --require-sandbox restricted --json "$work/restricted.json" >/dev/null
  check "--sandbox restricted: the solutions pass, and the JSON names the level" python3 -c "
import json, sys
r = json.load(open('$work/restricted.json'))
sys.exit(not (r['passed'] and r['isolation_level'] == 'restricted' and 'grader-confine' in r['isolation_detail']))"
else
  echo "skip --sandbox restricted: no grader-confine beside the grader (libseccomp-dev missing)"
fi

# grader hint: the listing at level 1, one blank at one level, and one line with exit 2
# for a level the course does not ship or a blank it does not have.
hint() { "$grader" hint "$lesson" --lang en "$@"; }
cpp_id="$("$grader" dev manifest "$lesson" --root "$root" | awk -v f="$cpp" '$3 == f {print $1; exit}')"
blank="$(grep -oE 'BLANK(_STMT)?\([A-Za-z_][A-Za-z0-9_]*\)' "$root/exercises/$lesson/$cpp" | head -1 | sed -E 's/.*\((.*)\)/\1/')"
out="$(hint --root "$root")"; rc=$?
check "grader hint lists the blanks, each with its level-1 hint, and says how to ask for more" \
  test "$rc" -eq 0 -a -n "$(grep -E "^  $blank \(line [0-9]+\): ." <<<"$out")" \
  -a -n "$(grep -E "grader hint $lesson ([a-z0-9_]+:)?$blank --level 2" <<<"$out")"
out="$(hint "$cpp_id:$blank" --level 2 --root "$root")"; rc=$?
check "grader hint <exercise>:<blank> --level 2 prints that level" \
  test "$rc" -eq 0 -a -n "$(grep -E "^$cpp: $blank \(line [0-9]+\), level 2 of [23]$" <<<"$out")"
# A student release keeps levels 1-2: a course whose manifest holds no level 3.
mkdir -p "$work/release/lessons/$lesson" "$work/release/grader"
touch "$work/release/CMakeLists.txt"
python3 -c "
import json, sys
m = json.load(open(sys.argv[1]))
for e in m['exercises']:
    h = e.get('hints', {})
    for ladder in list(h.get('blanks', {}).values()) + [h.get('general', {'levels': []})]:
        del ladder['levels'][2:]
json.dump(m, open(sys.argv[2], 'w'), ensure_ascii=False)" \
  "$root/lessons/$lesson/manifest.json" "$work/release/lessons/$lesson/manifest.json"
out="$(hint "$cpp_id:$blank" --level 3 --root "$work/release" 2>&1 >/dev/null)"; rc=$?
check "a level the course does not ship -> one line, exit 2" \
  test "$rc" -eq 2 -a "$out" = "grader: level 3 is not available for $cpp_id:$blank in this course; levels 1–2 are"
out="$(hint no_such_blank --root "$root" 2>&1 >/dev/null)"; rc=$?
check "an unknown blank -> one line listing the blanks, exit 2" \
  test "$rc" -eq 2 -a "$(wc -l <<<"$out")" -eq 1 -a -n "$(grep -F "no hints for 'no_such_blank'" <<<"$out" | grep -F "$blank")"

finish
