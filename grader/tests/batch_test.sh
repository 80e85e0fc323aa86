#!/usr/bin/env bash
# `grader batch` end to end (ctest grader.batch): a small class (the solutions, the untouched
# exercise, a vetoed answers file, a missing file, a cloned repository, a link, an odd name,
# archives: .tar.gz, a .tgz with a file over 1 MiB, a .zip, a .zip that is not one) marked
# with two workers. Every report equals a single `grader mark` of the
# same folder; the gradebook has a row per entry, the reason for each one not graded; an
# unchanged class is not marked again, a changed file is; two shards merged give the same
# gradebook as one batch. Needs bubblewrap (skips, exit 77, where it cannot run).
#   grader/tests/batch_test.sh build/dev/bin/grader .
source "$(dirname "${BASH_SOURCE[0]}")/lib/setup.sh"
test_setup "$@"
need_bwrap
class="$work/class"
mkdir -p "$class"
# The exercise files and full marks (every unit's max_score), from the manifest.
files=$("$grader" dev manifest lesson13 --all --root "$root" | awk '{print $3}')
export FULL=$(python3 -c 'import json, sys; print(sum(u["max_score"] for u in json.load(open(sys.argv[1]))["units"]))' \
  "$root/lessons/lesson13/manifest.json")
export FILES="$files"
solution() {  # solution DIR: the completed files only
  mkdir -p "$1"
  for f in $files; do
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
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --trees "$trees" --jobs 2 --lang en >"$work/batch.txt" 2>&1
rc=$?
[ "$rc" -eq 0 ] || bad "batch: exit $rc ($(tail -3 "$work/batch.txt"))"
grep -q "^$((6 + zipped)) marked, 0 unchanged since the last batch, $((5 - zipped)) not graded" "$work/batch.txt" ||
  bad "batch: $(tail -1 "$work/batch.txt")"

# The gradebook: a row per entry, in order, with the verdicts and the reasons.
python3 - "$out" "$zipped" <<'PY' || bad "gradebook"
import csv, json, os, sys
out, zipped = sys.argv[1], sys.argv[2] == '1'
full = os.environ['FULL']
rows = list(csv.DictReader(open(f'{out}/gradebook.csv', encoding='utf-8')))
names = [r['student'] for r in rows]
want = ['\'=hal,"x"', 'alice', 'bob', 'carol', 'dave', 'erin repo', 'frank', 'gina', 'ivan', 'judy', 'kim']
assert names == want, names
by = {r['student']: r for r in rows}
assert by['alice']['score'] == full and by['alice']['passed'] == 'yes', by['alice']
assert by['erin repo']['score'] == full, 'a cloned repository: files in exercises/lesson13/'
assert by['bob']['passed'] == 'no' and by['bob']['code.update'] == '0', by['bob']
assert by['carol']['exam.vetoes'] == 'hbm-smem-bandwidth' and by['carol']['exam.passed'] == 'no'
assert by['dave']['graded'] == 'no' and 'answers.md' in by['dave']['reason'], by['dave']
assert by['frank']['graded'] == 'no' and 'link' in by['frank']['reason'], by['frank']
assert by['gina']['graded'] == 'no' and ('archive' in by['gina']['reason'] or 'unzip' in by['gina']['reason'])
assert by['ivan']['score'] == full, by['ivan']
assert by['judy']['graded'] == 'no' and 'over 1 MiB' in by['judy']['reason'], by['judy']
assert (by['kim']['score'] == full) if zipped else 'unzip' in by['kim']['reason'], by['kim']
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
  "$grader" mark lesson13 "$class/$who" --root "$root" --lang en --build-dir "$trees/worker0" \
    --json "$work/$who.json" >/dev/null 2>&1
  python3 - "$out/students/$who/report.json" "$work/$who.json" <<'PY' || bad "$who: the batch's report differs from a single mark"
import json, sys
a, b = (json.load(open(p, encoding='utf-8')) for p in sys.argv[1:3])
diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
assert not diff, diff
PY
done

# Resumable: nothing changed, nothing marked; one file changed, one student marked.
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --trees "$trees" --jobs 2 --lang en >"$work/again.txt" 2>&1
grep -q "^0 marked, $((7 + zipped)) unchanged" "$work/again.txt" || bad "resume: $(tail -1 "$work/again.txt")"
echo "// a comment" >>"$class/alice/online_softmax.cpp"
"$grader" batch lesson13 "$class" --out "$out" --root "$root" --trees "$trees" --jobs 2 --lang en >"$work/changed.txt" 2>&1
grep -q "^1 marked, $((6 + zipped)) unchanged" "$work/changed.txt" || bad "a changed file: $(tail -1 "$work/changed.txt")"

# Two shards, merged, give the gradebook of one batch.
cp -a "$out" "$work/s1" && cp -a "$out" "$work/s2"
"$grader" batch lesson13 "$class" --out "$work/s1" --root "$root" --trees "$trees" --shard 1/2 --lang en >/dev/null 2>&1
"$grader" batch lesson13 "$class" --out "$work/s2" --root "$root" --trees "$trees" --shard 2/2 --lang en >/dev/null 2>&1
[ "$(grep -c . "$work/s1/gradebook.csv")" -eq 7 ] || bad "shard 1/2: not 6 students and a header"
"$grader" batch lesson13 --merge "$work/s1" "$work/s2" --out "$work/merged" --root "$root" >/dev/null 2>&1 ||
  bad "merge: failed"
cmp -s "$work/merged/gradebook.csv" "$out/gradebook.csv" || bad "merged shards: the gradebook differs from one batch"
cmp -s "$work/merged/summary.md" "$out/summary.md" || bad "merged shards: the summary differs"

# Hostile names (issue 21): a class whose folder names are HTML, Markdown links and tables,
# a newline and a forged heading, spreadsheet formulas, names that slug alike (long ones and
# a<b beside a_3cb), bytes that are not UTF-8 and terminal escapes. Two are marked (the
# solutions), the rest miss answers.md (refused at once, still with feedback.md and
# junit.out); marked into the same OUT, so the warm trees serve. Every output is parsed in
# its own format and must carry each name as text: the CSV (strict UTF-8, no cell a
# spreadsheet runs), the Markdown (no raw tag, link, code span or table break), the SVG and
# JUnit (XML), the terminal (batch log, review queue: no control character), the folder
# names (one safe component each, all distinct); a merge of it equals it byte for byte.
hostile="$work/hostile"
python3 - "$root" "$hostile" <<'PY' || bad "hostile class: could not be laid out"
import os, shutil, sys
root, cls = sys.argv[1].encode(), sys.argv[2].encode()
files = [f.encode() for f in os.environ['FILES'].split()]
graded = [b'<img src=x onerror=alert(1)>', b'\xff\xfe bytes \xc2\x9b2J \x1b[31m red']
refused = [b'](javascript:alert(1))', b'| table | break', b'nl\n# forged heading\n- [x](javascript:alert(2))',
           b'=HYPERLINK("evil.example","click")', b"+cmd|' -C calc'!A0", b'@SUM(1+1)', b'-2+3',
           b'L' * 240 + b'<1>', b'L' * 240 + b'<2>', b'*bold* _em_ `code` ~~s~~ &lt; $x$', b'1. # hash',
           b'a<b', b'a_3cb']
for name in graded + refused:
    d = os.path.join(cls, name)
    os.makedirs(d)
    for f in files:
        if name in refused and f == b'answers.md':
            continue
        shutil.copy(os.path.join(root, b'solutions/lesson13', f), d)
PY
"$grader" batch lesson13 "$hostile" --out "$out" --root "$root" --trees "$trees" --jobs 2 --lang en --format junit \
  >"$work/hostile.txt" 2>&1 || bad "hostile batch: exit $? ($(tail -3 "$work/hostile.txt"))"
review() { "$grader" review "$out" --root "$root" --trees "$trees" --lang en "$@"; }
review --list >"$work/hostile-list.txt" 2>&1 || bad "hostile review --list: exit $? ($(head -3 "$work/hostile-list.txt"))"
printf 'n\nn\nn\nq\n' | review >"$work/hostile-review.txt" 2>&1 || bad "hostile review: exit $? ($(tail -3 "$work/hostile-review.txt"))"
"$grader" batch lesson13 --merge "$out" --out "$work/hmerged" --root "$root" >"$work/hmerge.txt" 2>&1 ||
  bad "hostile merge: $(tail -2 "$work/hmerge.txt")"
for f in gradebook.csv summary.md; do
  cmp -s "$work/hmerged/$f" "$out/$f" || bad "hostile merge: $f differs from the batch's"
done
python3 - "$out" "$work" <<'PY' || bad "hostile names reach an output as markup"
import csv, html, io, json, os, re, sys
import xml.etree.ElementTree as ET
out, work = sys.argv[1:]
problems = []
def check(ok, what):
    if not ok:
        problems.append(what)
def text(p):  # strict: every output is UTF-8
    try:
        with open(p, 'rb') as f:
            data = f.read()
    except OSError as e:
        problems.append(f'{p}: {e.strerror}')
        return ''
    try:
        return data.decode('utf-8')
    except UnicodeDecodeError as e:
        problems.append(f'{p}: not UTF-8 ({e})')
        return data.decode('utf-8', 'replace')
batch = json.loads(text(f'{out}/batch.json'))
names = [s['name'] for s in batch['students']]
folders = [s['folder'] for s in batch['students']]
check(len(names) == 15, f'batch.json lists {len(names)} students, want 15')

# Folder names: one safe, recognisable component each, all distinct.
check(len(set(folders)) == len(folders), f'two students share a folder: {folders}')
for f in folders:
    check(re.fullmatch(r'[A-Za-z0-9._@+-]{1,200}', f) and f not in ('.', '..'), f'unsafe folder name {f!r}')
    check(os.path.isdir(f'{out}/students/{f}'), f'no folder students/{f}')
check(any(f.startswith('_3cimg') for f in folders), f'<img ...> not recognisable in {folders}')
check(sum(f.startswith('L' * 100) for f in folders) == 2, 'the two long names: not two folders')
folder = dict(zip(names, folders))
check(folder.get('a_3cb') == 'a_3cb' and folder.get('a<b', '').startswith('a_3cb.'),
      f'a_3cb is not in a_3cb/, a<b not beside it: {folder.get("a_3cb")}, {folder.get("a<b")}')

# CSV: one row per student, names as text, no cell a spreadsheet would evaluate.
rows = list(csv.DictReader(io.StringIO(text(f'{out}/gradebook.csv'), newline='')))
check(len(rows) == 15, f'gradebook: {len(rows)} rows, want 15')
for r in rows:
    for k, v in r.items():
        if v and v[0] in '=+-@\t\r':
            try:
                float(v)
            except ValueError:
                problems.append(f'gradebook: {k} = {v!r} would run as a formula')
    check(not any(c in r['student'] for c in '\n\r\t\x1b\x9b'), f'gradebook: control character in {r["student"]!r}')
book = [r['student'] for r in rows]
for n in names:
    want = "'" + n if n[0] in '=+-@' else n
    check(want in book, f'gradebook: no row for {want!r}')
for n in ('<img src=x onerror=alert(1)>', '| table | break', '](javascript:alert(1))', 'a<b', 'a_3cb',
          "'=HYPERLINK(\"evil.example\",\"click\")", "'+cmd|' -C calc'!A0", "'@SUM(1+1)", "'-2+3"):
    check(n in book, f'gradebook: {n!r} is not a row as written')
by = {r['student']: r for r in rows}
check(by.get('<img src=x onerror=alert(1)>', {}).get('score') == os.environ['FULL'],
      'the <img ...> student is not marked full marks')

# Markdown: outside code fences, no raw <, no link but the chart, no code span, each
# table row as many cells as its header, no heading or list item a name made.
def unescape(s):
    return html.unescape(re.sub(r'\\([!-/:-@\[-`{-~])', r'\1', s))
def unescaped(line, chars):  # positions of `chars` not escaped by a backslash
    at, k = [], 0
    while k < len(line):
        if line[k] == '\\':
            k += 2
            continue
        if line[k] in chars:
            at.append(k)
        k += 1
    return at
def markdown(p, headings):
    body, fence, cells = [], None, None
    for line in text(p).split('\n'):
        if fence:
            if re.fullmatch(fence + '+ *', line):
                fence = None
            continue
        m = re.match(r'(`{3,})', line)
        if m:
            fence = m.group(1)
            continue
        body.append(line)
    for line in body:
        check('<' not in line, f'{p}: raw < in {line[:120]!r}')
        links = [k for k in unescaped(line, ']') if line[k + 1:k + 2] in ('(', ':')]
        check(not links or line == '![Each item: full, partial and no marks](items.svg)',
              f'{p}: a link in {line[:120]!r}')
        check(not unescaped(line, '`'), f'{p}: a code span in {line[:120]!r}')
        if line.startswith('|'):
            n = len(unescaped(line, '|'))
            cells = n if cells is None else cells
            check(n == cells, f'{p}: {n - 1} cells where the header has {cells - 1}: {line[:120]!r}')
        else:
            cells = None
        if line.startswith('#'):
            check(re.match(headings, line), f'{p}: a heading no one wrote: {line[:120]!r}')
        if line.startswith('- ') and not line.startswith('- **'):
            check(not unescaped(line[2:], '*_~[]|$'), f'{p}: markup in {line[:120]!r}')
            check(not re.match(r'(#|[-+*>=]|\d+[.)]|\s)', line[2:]), f'{p}: a block in {line[:120]!r}')
    return body
summary = markdown(f'{out}/summary.md', r'# Lesson 13|## Not graded$')
listed = [unescape(l[2:]) for l in summary if l.startswith('- ')]
check(len(listed) == 13, f'summary.md: {len(listed)} not graded, want 13')
for n in names:
    if n not in ('<img src=x onerror=alert(1)>',) and 'bytes' not in n:
        check(any(l.startswith(n + ': ') for l in listed), f'summary.md: {n!r} not listed as written')
for f in folders:
    markdown(f'{out}/students/{f}/feedback.md', r'#{1,3} (Lesson 13|Lab \d|[a-z]+\.[a-z_\\]+|q\d)')

# XML: the chart and each JUnit report parse, and a name in them is text.
ET.fromstring(text(f'{out}/items.svg').encode())
for s in batch['students']:
    try:
        doc = ET.fromstring(text(f'{out}/students/{s["folder"]}/junit.out').encode())
    except ET.ParseError as e:
        problems.append(f'{s["folder"]}/junit.out: not XML ({e})')
        continue
    msgs = ' '.join(e.get('message', '') for e in doc.iter('error'))
    n = s['name']
    if '\\x' not in n and n != '<img src=x onerror=alert(1)>':  # a newline cuts the message
        check(f'/{n}/answers.md' in msgs, f'junit: {n!r} not in its error as text')

# The terminal: the batch's log and the review queue hold no control character, and no
# line a name started.
for p in ('hostile.txt', 'hostile-list.txt', 'hostile-review.txt'):
    t = text(f'{work}/{p}')
    check(not re.search('[\x00-\x08\x0b-\x1f\x7f-\x9f]', t), f'{p}: a control character')
    check(not re.search(r'^(# forged|- \[x\])', t, re.M), f'{p}: a line a name started')
queue = text(f'{work}/hostile-list.txt').splitlines()
check(len(queue) == 6 and all(l.count('\t') == 4 for l in queue), f'review --list: {queue}')
check(sum(l.startswith('<img src=x onerror=alert(1)>\t') for l in queue) == 3, 'review --list: the <img ...> student')
for p in problems:
    print('  ' + p[:300])
sys.exit(1 if problems else 0)
PY
# A batch.json that names a folder outside OUT is refused, not followed.
mkdir -p "$work/forged"
echo '{"lesson": "lesson13", "students": [{"name": "x", "folder": "../../x"}]}' >"$work/forged/batch.json"
"$grader" review "$work/forged" --root "$root" --list >/dev/null 2>&1; [ $? -eq 2 ] || bad "review followed ../ in batch.json"
"$grader" batch lesson13 --merge "$work/forged" --out "$work/fmerged" --root "$root" >/dev/null 2>&1 &&
  bad "merge followed ../ in batch.json"

finish
