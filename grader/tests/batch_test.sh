#!/usr/bin/env bash
# `grader batch` end to end (ctest grader.batch): a small class (the solutions, the untouched
# exercise, a vetoed answers file, a missing file, a cloned repository, a link, an odd name,
# archives: .tar.gz, a .tgz with a file over 1 MiB, a .zip, a .zip that is not one) marked
# with two workers. Every report equals a single `grader mark` of the
# same folder; the gradebook has a row per entry, the reason for each one not graded; an
# unchanged class is not marked again, a changed file is; two shards merged give the same
# gradebook as one batch. Needs bubblewrap (skips, exit 77, where it cannot run).
#   grader/tests/batch_test.sh build/dev/bin/grader .
set -uo pipefail
grader="$(realpath "$1")"
root="$(realpath "${2:-.}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failures=0
bad() { echo "FAIL $*"; failures=$((failures + 1)); }
if ! bwrap --unshare-all --ro-bind /usr /usr --ro-bind-try /lib /lib --ro-bind-try /lib64 /lib64 \
     --ro-bind-try /bin /bin /bin/true 2>/dev/null; then
  echo "SKIP bubblewrap cannot run here"
  exit 77
fi
class="$work/class"
mkdir -p "$class"
solution() {  # solution DIR: the completed files only
  mkdir -p "$1"
  for f in online_softmax.cpp answers.md matmul_coalesced.cu matmul_tiled.cu flash_attention.cu; do
    cp "$root/solutions/lesson13/$f" "$1/"
  done
}
solution "$class/alice"
cp -r "$root/exercises/lesson13" "$class/bob"
solution "$class/carol"
sed -i 's/- \[ \] (a) 差不多 \/ about the same/- [x] (a) 差不多 \/ about the same/; s/- \[x\] (b) 约高一个数量级/- [ ] (b) 约高一个数量级/' "$class/carol/answers.md"
solution "$class/dave" && rm "$class/dave/answers.md"
solution "$class/erin repo/exercises/lesson13"
ln -s alice "$class/frank"
echo "not an archive" >"$class/gina.zip"
solution "$class/=hal,\"x\""
# Archives: a .tar.gz with a top folder (marked), a .tgz whose answers.md is over 1 MiB (not
# unpacked), a .zip with the files at its root (marked where unzip is installed).
solution "$work/ivan" && tar -czf "$class/ivan.tar.gz" -C "$work" ivan
solution "$work/judy" && head -c 2000000 /dev/zero | tr '\0' 'x' >"$work/judy/answers.md" &&
  tar -czf "$class/judy.tgz" -C "$work" judy
solution "$work/kim" && python3 -c "
import os, sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    for f in sorted(os.listdir(sys.argv[2])):
        z.write(os.path.join(sys.argv[2], f), f)" "$class/kim.zip" "$work/kim"
if command -v unzip >/dev/null; then zipped=1; else zipped=0; fi
out="$work/out"
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --jobs 2 --lang en >"$work/batch.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || bad "batch: exit $rc ($(tail -3 "$work/batch.txt"))"
grep -q "^$((6 + zipped)) marked, 0 unchanged since the last batch, $((5 - zipped)) not graded" "$work/batch.txt" ||
  bad "batch: $(tail -1 "$work/batch.txt")"

# The gradebook: a row per entry, in order, with the verdicts and the reasons.
python3 - "$out" "$zipped" <<'PY' || bad "gradebook"
import csv, json, sys
out, zipped = sys.argv[1], sys.argv[2] == '1'
rows = list(csv.DictReader(open(f'{out}/gradebook.csv', encoding='utf-8')))
names = [r['student'] for r in rows]
want = ['\'=hal,"x"', 'alice', 'bob', 'carol', 'dave', 'erin repo', 'frank', 'gina', 'ivan', 'judy', 'kim']
assert names == want, names
by = {r['student']: r for r in rows}
assert by['alice']['score'] == '40' and by['alice']['passed'] == 'yes', by['alice']
assert by['erin repo']['score'] == '40', 'a cloned repository: files in exercises/lesson13/'
assert by['bob']['passed'] == 'no' and by['bob']['code.update'] == '0', by['bob']
assert by['carol']['exam.vetoes'] == 'hbm-smem-bandwidth' and by['carol']['exam.passed'] == 'no'
assert by['dave']['graded'] == 'no' and 'answers.md' in by['dave']['reason'], by['dave']
assert by['frank']['graded'] == 'no' and 'link' in by['frank']['reason'], by['frank']
assert by['gina']['graded'] == 'no' and ('archive' in by['gina']['reason'] or 'unzip' in by['gina']['reason'])
assert by['ivan']['score'] == '40', by['ivan']
assert by['judy']['graded'] == 'no' and 'over 1 MiB' in by['judy']['reason'], by['judy']
assert (by['kim']['score'] == '40') if zipped else 'unzip' in by['kim']['reason'], by['kim']
for r in rows:
    if r['graded'] == 'yes':
        assert r['isolation_level'] == 'full' and r['seed'] and r['grader_version'], r
raw = open(f'{out}/gradebook.csv', encoding='utf-8').read()
assert "'=hal" in raw, 'a name that starts like a formula stays text'
summary = open(f'{out}/summary.md', encoding='utf-8').read()
assert 'exam: hbm-smem-bandwidth | 1' in summary and '## Not graded' in summary, summary
assert open(f'{out}/items.svg', encoding='utf-8').read().startswith('<svg')
for who in ('alice', 'carol'):
    fb = open(f'{out}/students/{who}/feedback.md', encoding='utf-8').read()
    assert fb.startswith('# Lesson 13'), fb[:80]
PY

# Each report is what a single `grader mark` of the same folder gives.
for who in alice carol; do
  "$grader" mark lesson13 "$class/$who" --root "$root" --lang en --build-dir "$out/.trees/worker0" \
    --json "$work/$who.json" >/dev/null 2>&1
  python3 - "$out/students/$who/report.json" "$work/$who.json" <<'PY' || bad "$who: the batch's report differs from a single mark"
import json, sys
a, b = (json.load(open(p, encoding='utf-8')) for p in sys.argv[1:3])
diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
assert not diff, diff
PY
done

# Resumable: nothing changed, nothing marked; one file changed, one student marked.
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --jobs 2 --lang en >"$work/again.txt" 2>&1
grep -q "^0 marked, $((7 + zipped)) unchanged" "$work/again.txt" || bad "resume: $(tail -1 "$work/again.txt")"
echo "// a comment" >>"$class/alice/online_softmax.cpp"
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --jobs 2 --lang en >"$work/changed.txt" 2>&1
grep -q "^1 marked, $((6 + zipped)) unchanged" "$work/changed.txt" || bad "a changed file: $(tail -1 "$work/changed.txt")"

# Two shards, merged, give the gradebook of one batch.
cp -a "$out" "$work/s1" && cp -a "$out" "$work/s2"
"$grader" batch lesson13 "$class" --out "$work/s1" --root "$root" --shard 1/2 --lang en >/dev/null 2>&1
"$grader" batch lesson13 "$class" --out "$work/s2" --root "$root" --shard 2/2 --lang en >/dev/null 2>&1
[ "$(grep -c . "$work/s1/gradebook.csv")" -eq 7 ] || bad "shard 1/2: not 6 students and a header"
"$grader" batch lesson13 --merge "$work/s1" "$work/s2" --out "$work/merged" --root "$root" >/dev/null 2>&1 ||
  bad "merge: failed"
cmp -s "$work/merged/gradebook.csv" "$out/gradebook.csv" || bad "merged shards: the gradebook differs from one batch"
cmp -s "$work/merged/summary.md" "$out/summary.md" || bad "merged shards: the summary differs"

[ "$failures" -eq 0 ] && echo "batch: PASS" || echo "batch: $failures failures"
[ "$failures" -eq 0 ]
