#!/usr/bin/env python3
"""The report formats other systems read (ctest grader.formats): for five submissions
(the solutions, the untouched exercise, a vetoed answers file, a lab that does not
compile, one with a file missing: not graded, exit 2; the same in a folder whose name is
HTML, a Markdown link and table, a forged heading after a newline and a byte that is not
UTF-8), every format validates against its schema in docs/formats/ (JUnit: the
structure docs/formats/junit.md lists), and every format agrees with the JSON report on
points, pass/fail and errors; the markdown format carries that folder's name as text.
  grader/tests/formats_test.py build/dev/bin/grader .
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import re

import jsonschema

failures = []

# A student's folder name as hostile as a file name can be (0xff: os.fsencode's surrogate).
HOSTILE = '<img src=x onerror=alert(1)> | ](javascript:alert(1))\n# forged \udcff'


def bad(what):
    failures.append(what)
    print('FAIL ' + what, flush=True)


def grade(grader, root, sub, tree, fmt):
    """The report in `fmt`, written with --write (stdout holds the text report)."""
    out = os.path.join(os.path.dirname(sub), 'reports', os.path.basename(sub) + '.' + fmt)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    argv = [grader, 'lesson13', '--root', root, '--build-dir', tree, '--lang', 'en',
            '--submission', sub, '--write', f'{fmt}={out}']
    r = subprocess.run(argv, capture_output=True)
    # Exit 2 (could not grade) must still write the file, saying why.
    if r.returncode not in (0, 1, 2) or not os.path.isfile(out):
        raise RuntimeError(f'{fmt}: exit {r.returncode}: {r.stderr.decode(errors="replace")[-400:]}')
    with open(out, encoding='utf-8') as f:
        return f.read()


def check_markdown_text(name, text):
    """Outside code fences: no raw <, no link, each table row as many cells as its header,
    and no heading or list item but the reporter's own."""
    fence, cells = None, None
    for line in text.split('\n'):
        if fence:
            fence = None if re.fullmatch(fence + '+ *', line) else fence
            continue
        if line.startswith('```'):
            fence = re.match('`+', line).group(0)
            continue
        bare = re.sub(r'\\.', '', line)  # what is left once every backslash escape is gone
        if '<' in line or '](' in bare or bare.startswith('# forged'):
            bad(f'{name} markdown: markup from the folder name: {line[:160]!r}')
        if line.startswith('|'):
            cells = cells or bare.count('|')
            if bare.count('|') != cells:
                bad(f'{name} markdown: a table row of {bare.count("|") - 1} cells: {line[:160]!r}')
        else:
            cells = None


def check_json_format(name, fmt, text, schema, ref):
    try:
        doc = json.loads(text)
    except ValueError as e:
        bad(f'{name} {fmt}: not JSON: {e}')
        return None
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: e.json_path)
    for e in errors[:3]:
        bad(f'{name} {fmt}: {e.json_path}: {e.message[:160]}')
    items = sum(len(u['items']) for u in ref['units'])
    if len(doc.get('tests', [])) != items + len(ref['units']):
        bad(f'{name} {fmt}: {len(doc.get("tests", []))} tests, expected {items} items and {len(ref["units"])} verdicts')
    return doc


def junit_counts(name, text, ref):
    try:
        root = ET.fromstring(text.encode('utf-8'))
    except ET.ParseError as e:
        bad(f'{name} junit: not well-formed XML: {e}')
        return
    if root.tag != 'testsuites':
        bad(f'{name} junit: the root is <{root.tag}>, not <testsuites>')
        return
    total = {'tests': 0, 'failures': 0, 'errors': 0}
    suites = root.findall('testsuite')
    if len(suites) != len(ref['units']):
        bad(f'{name} junit: {len(suites)} testsuites for {len(ref["units"])} units')
    for suite, unit in zip(suites, ref['units']):
        cases = suite.findall('testcase')
        got = {'tests': len(cases),
               'failures': sum(1 for c in cases if c.find('failure') is not None),
               'errors': sum(1 for c in cases if c.find('error') is not None)}
        for k, v in got.items():
            total[k] += v
            if suite.get(k) != str(v):
                bad(f'{name} junit: suite {suite.get("name")} says {k}={suite.get(k)}, has {v}')
        for c in cases:
            if not c.get('classname') or not c.get('name'):
                bad(f'{name} junit: a testcase without classname or name')
            if len([x for x in c if x.tag in ('failure', 'error', 'skipped')]) > 1:
                bad(f'{name} junit: a testcase with more than one result')
        props = {p.get('name'): p.get('value') for p in suite.iter('property')}
        if float(props.get('score', 'nan')) != unit['score'] or props.get('passed') != str(unit['passed']).lower():
            bad(f'{name} junit: suite {unit["unit"]} properties {props} disagree with the JSON')
        verdict = cases[-1] if cases else None
        if verdict is None or (verdict.find('failure') is None) != unit['passed']:
            bad(f'{name} junit: suite {unit["unit"]}: the verdict testcase disagrees (passed={unit["passed"]})')
    for k, v in total.items():
        if root.get(k) != str(v):
            bad(f'{name} junit: testsuites says {k}={root.get(k)}, has {v}')


def main():
    grader, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    schemas = {f: json.load(open(os.path.join(root, 'docs', 'formats', f + '.schema.json'), encoding='utf-8'))
               for f in ('gradescope', 'exercism', 'classroom')}
    work = tempfile.mkdtemp(prefix='formats-')
    try:
        subs = {}
        for name in ('solutions', 'exercise', 'vetoed', 'no_build', 'missing'):
            d = os.path.join(work, name)
            shutil.copytree(os.path.join(root, 'exercises' if name == 'exercise' else 'solutions', 'lesson13'), d,
                            ignore=shutil.ignore_patterns('mutants', 'attacks', 'hidden_tests', 'notes', '*.json'))
            subs[name] = d
        with open(os.path.join(subs['vetoed'], 'answers.md'), encoding='utf-8') as f:
            text = f.read()
        text = text.replace('- [ ] (a) 差不多 / about the same', '- [x] (a) 差不多 / about the same')
        text = text.replace('- [x] (b) 约高一个数量级', '- [ ] (b) 约高一个数量级')
        with open(os.path.join(subs['vetoed'], 'answers.md'), 'w', encoding='utf-8') as f:
            f.write(text)
        with open(os.path.join(subs['no_build'], 'matmul_tiled.cu'), 'a', encoding='utf-8') as f:
            f.write('\nthis line does not compile \x01 \xff;\n')
        os.remove(os.path.join(subs['missing'], 'answers.md'))  # cannot be graded: exit 2
        subs['hostile'] = os.path.join(work, HOSTILE)  # the same, its name in every message
        shutil.copytree(subs['missing'], subs['hostile'])
        # The suites' shared warm tree under ctest (COURSE_WARM_TREES), else a private one.
        tree = os.path.join(os.environ.get('COURSE_WARM_TREES') or work, 'worker0')
        for name, sub in subs.items():
            ref = json.loads(grade(grader, root, sub, tree, 'json'))
            total = round(sum(u['score'] for u in ref['units']), 2)
            most = sum(u['max_score'] for u in ref['units'])
            passed = all(u['passed'] for u in ref['units'])
            errors = bool(ref.get('build_failures')) or bool(ref.get('not_graded'))
            if name in ('missing', 'hostile') and 'answers.md' not in ref.get('not_graded', ''):
                bad(f'{name}: the JSON does not say which file is missing')
            if name == 'hostile':
                check_markdown_text(name, grade(grader, root, sub, tree, 'markdown'))
            print(f'{name}: {total} / {most}, passed {passed}, build failures {len(ref.get("build_failures", []))}',
                  flush=True)
            gs = check_json_format(name, 'gradescope', grade(grader, root, sub, tree, 'gradescope'),
                                   schemas['gradescope'], ref)
            if gs:
                if abs(gs['score'] - total) > 1e-6 or abs(sum(t['score'] for t in gs['tests']) - total) > 1e-6:
                    bad(f'{name} gradescope: score {gs["score"]} (tests sum to '
                        f'{sum(t["score"] for t in gs["tests"])}), the JSON says {total}')
                if abs(sum(t['max_score'] for t in gs['tests']) - most) > 1e-6:
                    bad(f'{name} gradescope: max scores do not sum to {most}')
            ex = check_json_format(name, 'exercism', grade(grader, root, sub, tree, 'exercism'),
                                   schemas['exercism'], ref)
            if ex:
                want = 'error' if errors else 'pass' if passed else 'fail'
                if ex['status'] != want:
                    bad(f'{name} exercism: status {ex["status"]}, expected {want}')
            cl = check_json_format(name, 'classroom', grade(grader, root, sub, tree, 'classroom'),
                                   schemas['classroom'], ref)
            if cl:
                if abs(sum(t['score'] for t in cl['tests']) - total) > 1e-6 or cl['max_score'] != most:
                    bad(f'{name} classroom: {sum(t["score"] for t in cl["tests"])} of {cl["max_score"]}, '
                        f'the JSON says {total} of {most}')
                want = 'error' if errors else 'pass' if passed else 'fail'
                if cl['status'] != want:
                    bad(f'{name} classroom: status {cl["status"]}, expected {want}')
            junit_counts(name, grade(grader, root, sub, tree, 'junit'), ref)
            if name == 'vetoed':
                exam = [t for t in gs['tests'] if t['name'].startswith('exam / verdict')] if gs else []
                if not exam or exam[0]['status'] != 'failed' or 'veto hbm-smem-bandwidth' not in exam[0]['output']:
                    bad('vetoed gradescope: the exam verdict test does not fail with its veto')
            if name == 'solutions':  # the schemas can fail: a broken copy of each document
                for fmt, doc, broken in (('gradescope', gs, lambda d: d['tests'][0].update(status='ok')),
                                         ('exercism', ex, lambda d: d.pop('version')),
                                         ('classroom', cl, lambda d: d['tests'][0].pop('score'))):
                    if doc is None:
                        continue
                    copy = json.loads(json.dumps(doc))
                    broken(copy)
                    if jsonschema.Draft202012Validator(schemas[fmt]).is_valid(copy):
                        bad(f'{fmt}: its schema accepts a broken document')
            if name == 'solutions' and not passed:
                bad('solutions: not passed')
            if name == 'no_build' and not errors:
                bad('no_build: no build failure reported')
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f'formats: {"FAIL" if failures else "PASS"} ({len(failures)} problems)')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
