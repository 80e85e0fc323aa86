#!/usr/bin/env python3
"""Marks a generated class of N submissions with `grader batch --jobs J` (issue 12's
benchmark) and prints the totals, the per-submission median and p95, for the whole lesson
and for the exam alone. The class: every declared mutant of solutions/<lesson>/mutants/,
plus solutions (each with a comment of its own), crashing, hanging, non-compiling and
tampered submissions (edits outside the blanks) to make up N (more when the mutants alone
outnumber N; the figures divide by the class's real size). Cold: a fresh --out, so each
worker first builds its tree. Record results in docs/benchmarks.md with the machine and date.
--verify then marks every student again with a single `grader mark` (same options, one of
the batch's warm trees) and checks that the batch's report equals it and that the
gradebook's row says what that report says (graded or the same reason, score, verdicts,
vetoes, each item's points); the exam-alone batch is skipped.
  grader/bench/batch_class.py [--n 300] [--jobs 2] [--grader build/dev/bin/grader] [--keep DIR] [--verify]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# A submission's files: every exercise of the manifest (the one list), read at start.
FILES = [e['file'] for e in json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                                      'lessons', 'lesson13', 'manifest.json'),
                                         encoding='utf-8'))['exercises']]

# Faults, each an edit of one solution file (find -> replace).
CRASH = [('online_softmax.cpp', 'const float m_new = std::max(m_i[r], block_max);',
          'const float m_new = std::max(m_i[r], block_max) + *static_cast<volatile float*>(nullptr);'),
         ('flash_attention.cu', 'const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;',
          'const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;\n  if (threadIdx.x == 0) *(volatile int*)nullptr = 1;')]
HANG = [('online_softmax.cpp', 'const float m_new = std::max(m_i[r], block_max);',
         'float m_new = std::max(m_i[r], block_max);\n    for (volatile int spin = 1; spin;) m_new += 0;'),
        ('matmul_coalesced.cu', 'float acc = 0.0f;', 'float acc = 0.0f;\n  for (volatile int spin = 1; spin;) acc += 0;')]
NO_BUILD = [(f, '#include', 'this is not C++;\n#include') for f in FILES if f.endswith(('.cpp', '.cu'))]
TAMPER = [('matmul_coalesced.cu', 'const dim3 block(32, 32);', 'const dim3 block(32, 32);  // tuned'),
          ('online_softmax.cpp', '#include <cmath>', '#include <cmath>\n#include <cstdio>  // for debugging')]


def solution(root, lesson, into):
    os.makedirs(into)
    for f in FILES:
        shutil.copy(os.path.join(root, 'solutions', lesson, f), into)


def edit(folder, f, find, replace):
    p = os.path.join(folder, f)
    with open(p, encoding='utf-8') as fh:
        text = fh.read()
    if find not in text:
        raise SystemExit(f'cannot plant an edit in {f}: {find!r} not found')
    with open(p, 'w', encoding='utf-8') as fh:
        fh.write(text.replace(find, replace, 1))


def make_class(root, lesson, n, into):
    kinds = {}
    mutants = os.path.join(root, 'solutions', lesson, 'mutants')
    for name in sorted(os.listdir(mutants)):
        spec = os.path.join(mutants, name, 'mutant.json')
        if not os.path.isfile(spec):
            continue
        with open(spec, encoding='utf-8') as fh:
            m = json.load(fh)
        d = os.path.join(into, f'mutant-{name}')
        solution(root, lesson, d)
        for f in os.listdir(os.path.join(mutants, name)):  # files laid over the solution
            if f != 'mutant.json':
                shutil.copy(os.path.join(mutants, name, f), d)
        for e in m.get('edits', []):
            edit(d, e['file'], e['find'], e['replace'])
        kinds[os.path.basename(d)] = 'mutant'
    rest = n - len(kinds)
    plan = [('crash', CRASH, rest // 12), ('hang', HANG, rest // 24), ('no-build', NO_BUILD, rest // 12),
            ('tampered', TAMPER, rest // 12)]
    for kind, edits, count in plan:
        for i in range(count):
            d = os.path.join(into, f'{kind}-{i:03d}')
            solution(root, lesson, d)
            edit(d, *edits[i % len(edits)])
            kinds[os.path.basename(d)] = kind
    i = 0
    while len(kinds) < n:
        d = os.path.join(into, f'correct-{i:03d}')
        solution(root, lesson, d)
        with open(os.path.join(d, 'online_softmax.cpp'), 'a', encoding='utf-8') as fh:
            fh.write(f'// student {i}\n')
        kinds[os.path.basename(d)] = 'correct'
        i += 1
    return kinds


def check_mutants(root, lesson, out, unit_only=None):
    """Each mutant's declared verdict (its unit passed or not, its vetoes) against the
    gradebook of the marking batch: the number that disagree, each printed."""
    import csv
    rows = {r['student']: r for r in csv.DictReader(open(os.path.join(out, 'gradebook.csv'), encoding='utf-8'))}
    mutants = os.path.join(root, 'solutions', lesson, 'mutants')
    wrong = 0
    for name in sorted(os.listdir(mutants)):
        spec = os.path.join(mutants, name, 'mutant.json')
        if not os.path.isfile(spec):
            continue
        with open(spec, encoding='utf-8') as fh:
            m = json.load(fh)
        unit, e = m.get('unit', 'exam'), m['expect']
        if unit_only and unit != unit_only:
            continue
        r = rows.get(f'mutant-{name}')
        if r is None or r['graded'] != 'yes':
            print(f'  mutant {name}: not graded ({r and r["reason"]})')
            wrong += 1
            continue
        passed = r[f'{unit}.passed'] == 'yes'
        vetoes = {v.rstrip('?') for v in r[f'{unit}.vetoes'].split(';') if v}
        if ('passed' in e and e['passed'] != passed) or ('vetoes' in e and set(e['vetoes']) != vetoes):
            print(f'  mutant {name}: {unit} passed={passed} vetoes={sorted(vetoes)}, declared '
                  f'passed={e.get("passed")} vetoes={e.get("vetoes")}')
            wrong += 1
    return wrong


def verify(grader, root, lesson, cls, out, jobs):
    """Every gradebook row against a single `grader mark` of the same folder: the number of
    students whose row or report differs, each printed."""
    import csv
    from concurrent.futures import ThreadPoolExecutor
    rows = {r['student']: r for r in csv.DictReader(open(os.path.join(out, 'gradebook.csv'), encoding='utf-8'))}
    names = sorted(os.listdir(cls))
    single = os.path.join(out, 'single')
    os.makedirs(single, exist_ok=True)

    import queue
    trees = queue.Queue()  # one warm tree per worker, never two marks in one
    for k in range(jobs):
        trees.put(os.path.join(out, '.trees', f'worker{k}'))

    def one(args):
        _, name = args
        rep = os.path.join(single, name + '.json')
        tree = trees.get()
        try:
            r = subprocess.run([grader, 'mark', lesson, os.path.join(cls, name), '--root', root, '--lang',
                                'en', '--build-dir', tree, '--json', rep], capture_output=True, text=True)
        finally:
            trees.put(tree)
        return name, r.returncode, r.stderr, rep

    problems = []
    with ThreadPoolExecutor(jobs) as pool:
        for name, code, err, rep in pool.map(one, enumerate(names)):
            row = rows.get(name)
            if row is None:
                problems.append(f'{name}: no gradebook row')
                continue
            if code == 2:
                why = next((l[len('grader: cannot grade: '):] for l in err.splitlines()
                            if l.startswith('grader: cannot grade: ')), '')
                if row['graded'] != 'no' or row['reason'] != why:
                    problems.append(f'{name}: single mark not graded ({why}), row {row["graded"]} {row["reason"]}')
                continue
            with open(rep, encoding='utf-8') as fh:
                b = json.load(fh)
            with open(os.path.join(out, 'students', name, 'report.json'), encoding='utf-8') as fh:
                a = json.load(fh)
            diff = [k for k in set(a) | set(b) if a.get(k) != b.get(k)]
            if diff:
                problems.append(f'{name}: the batch report differs from a single mark in {sorted(diff)}')
            fmt = lambda x: f'{x:g}'
            want = {'graded': 'yes', 'score': fmt(round(sum(u['score'] for u in b['units']), 2)),
                    'passed': 'yes' if code == 0 else 'no'}
            for u in b['units']:
                want[f'{u["unit"]}.score'] = fmt(u['score'])
                want[f'{u["unit"]}.passed'] = 'yes' if u['passed'] else 'no'
                want[f'{u["unit"]}.vetoes'] = ';'.join(v['id'] + ('?' if v['provisional'] else '')
                                                       for v in u['vetoes'] if v['applies'])
                for it in u['items']:
                    want[it['id']] = fmt(it['points'])
            bad = {k: (row.get(k), v) for k, v in want.items() if row.get(k) != v}
            if bad:
                problems.append(f'{name}: gradebook row vs single mark (row, mark): {bad}')
    for line in problems:
        print('  ' + line)
    return len(problems), len(names)


def run_batch(grader, root, lesson, cls, out, jobs, extra):
    t0 = time.monotonic()
    r = subprocess.run([grader, 'batch', lesson, cls, '--out', out, '--root', root, '--jobs', str(jobs),
                        '--lang', 'en'] + extra, capture_output=True, text=True, env={**os.environ, 'CI': '1'})
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise SystemExit(f'batch failed: {r.stderr[-600:]}')
    seconds = []
    for name in os.listdir(os.path.join(out, 'students')):
        with open(os.path.join(out, 'students', name, 'status.json'), encoding='utf-8') as fh:
            seconds.append(json.load(fh).get('seconds', 0.0))
    seconds.sort()
    p95 = seconds[min(len(seconds) - 1, int(0.95 * len(seconds)))]
    return wall, statistics.median(seconds), p95, r.stdout.strip()


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.abspath(os.path.join(here, '..', '..'))
    p = argparse.ArgumentParser()
    p.add_argument('--n', type=int, default=300)
    p.add_argument('--jobs', type=int, default=2)
    p.add_argument('--lesson', default='lesson13')
    p.add_argument('--grader', default=os.path.join(root, 'build', 'dev', 'bin', 'grader'))
    p.add_argument('--keep', help='generate and mark in this folder and keep it')
    p.add_argument('--verify', action='store_true', help='check every row against a single grader mark')
    a = p.parse_args()
    work = a.keep or tempfile.mkdtemp(prefix='batch-bench-')
    try:
        cls = os.path.join(work, 'class')
        shutil.rmtree(cls, ignore_errors=True)
        kinds = make_class(root, a.lesson, a.n, cls)
        counts = {k: list(kinds.values()).count(k) for k in sorted(set(kinds.values()))}
        size = len(kinds)  # every declared mutant is in, so it may be more than --n
        print(f'{size} submissions (--n {a.n}): ' + ', '.join(f'{v} {k}' for k, v in counts.items()),
              flush=True)
        runs = [('whole lesson (exam and three labs)', []), ('exam alone', ['--unit', 'exam'])]
        for label, extra in runs[:1] if a.verify else runs:
            out = os.path.join(work, 'out-' + ('all' if not extra else 'exam'))
            shutil.rmtree(out, ignore_errors=True)
            wall, median, p95, line = run_batch(os.path.abspath(a.grader), root, a.lesson, cls, out, a.jobs, extra)
            print(f'| {label} | {size} | {a.jobs} | {wall:.0f} s | {wall / size:.2f} s | '
                  f'{wall * a.jobs / size:.2f} s | {median:.1f} s | {p95:.1f} s |   ({line})', flush=True)
            wrong = check_mutants(root, a.lesson, out, 'exam' if extra else None)
            print(f'  mutants with another verdict than declared, in marking mode: {wrong}', flush=True)
            if a.verify:
                t0 = time.monotonic()
                differ, total = verify(os.path.abspath(a.grader), root, a.lesson, cls, out, a.jobs)
                print(f'  gradebook rows that differ from a single grader mark: {differ} of {total} '
                      f'({time.monotonic() - t0:.0f} s)', flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    sys.exit(main())
