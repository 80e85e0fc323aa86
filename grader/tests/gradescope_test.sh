#!/usr/bin/env bash
# The Gradescope bundle end to end (ctest grader.gradescope): `grader dev gradescope` writes
# the zip; it is unpacked into a temporary root laid out as Gradescope's /autograder (the
# scripts' AUTOGRADER_ROOT), setup.sh installs and builds from the bundle alone, and
# run_autograder marks four uploads: the solutions (full marks: 10 per unit), the untouched exercise (0),
# the solutions as a repository (files in exercises/lesson13/) and one with a file missing.
# Every results.json must obey docs/formats/gradescope.schema.json.
#   grader/tests/gradescope_test.sh build/dev/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
ag="$work/autograder"
"$grader" dev gradescope lesson13 --out "$work/autograder.zip" --root "$root" >"$work/bundle.txt" 2>&1 ||
  { cat "$work/bundle.txt"; echo "FAIL the bundle"; exit 1; }
# Unpacked as Gradescope does: into source/, modes kept; run_autograder copied beside it.
python3 - "$work/autograder.zip" "$ag/source" <<'PY'
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    assert z.testzip() is None
    names = z.namelist()
    assert names[:2] == ['setup.sh', 'run_autograder'], names[:2]
    assert not any(n.startswith('course/build/') or '/.git/' in n for n in names)
    assert 'course/solutions/lesson13/answer_key.json' in names
    for info in z.infolist():
        path = z.extract(info, sys.argv[2])
        mode = info.external_attr >> 16
        if mode:
            os.chmod(path, mode & 0o777)
PY
[ $? -eq 0 ] || bad "the zip: not as Gradescope needs it"
cp "$ag/source/run_autograder" "$ag/run_autograder"
[ -x "$ag/run_autograder" ] && [ -x "$ag/source/setup.sh" ] || bad "the scripts are not executable"

if ! AUTOGRADER_ROOT="$ag" bash "$ag/source/setup.sh" >"$work/setup.txt" 2>&1; then
  tail -20 "$work/setup.txt"
  bad "setup.sh failed"
  exit 1
fi

mark() {  # mark NAME MIN MAX [GREP]: run_autograder on $ag/submission, then check results.json
  AUTOGRADER_ROOT="$ag" "$ag/run_autograder" >"$work/$1.txt" 2>&1 || bad "$1: run_autograder exited $?"
  python3 "$root/cmake/validate_json.py" "$root/docs/formats/gradescope.schema.json" \
    "$ag/results/results.json" >"$work/$1.valid" 2>&1 || bad "$1: $(head -3 "$work/$1.valid")"
  python3 - "$ag/results/results.json" "$2" "$3" "${4:-}" <<'PY' || bad "$1: $(cat "$work/$1.py" 2>/dev/null)"
import json, sys
r = json.load(open(sys.argv[1], encoding='utf-8'))
lo, hi, text = float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
assert lo <= r['score'] <= hi, f"score {r['score']} not in [{lo}, {hi}]"
assert not text or text in r.get('output', ''), f"{text!r} not in the output: {r.get('output', '')[:300]!r}"
PY
}
sub="$ag/submission"
# Full marks: every unit's max_score, from the manifest (a new unit needs no edit here).
full=$(python3 -c 'import json, sys; print(sum(u["max_score"] for u in json.load(open(sys.argv[1]))["units"]))' \
  "$root/lessons/lesson13/manifest.json")
files=$("$grader" dev manifest lesson13 --all --root "$root" | awk '{print $3}')
rm -rf "$sub" && mkdir -p "$sub" && for f in $files; do cp "$root/solutions/lesson13/$f" "$sub/"; done
mark solutions "$full" "$full" "$full / $full, PASS"
rm -rf "$sub" && cp -r "$root/exercises/lesson13" "$sub"
mark exercise 0 0 "FAIL"
rm -rf "$sub" && mkdir -p "$sub/exercises/lesson13" &&
  for f in $files; do cp "$root/solutions/lesson13/$f" "$sub/exercises/lesson13/"; done
mark repository "$full" "$full" "PASS"
rm -rf "$sub" && mkdir -p "$sub" && cp "$root/solutions/lesson13/online_softmax.cpp" "$sub/"
mark missing 0 0 "not graded: missing file"

finish
