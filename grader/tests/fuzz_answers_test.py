#!/usr/bin/env python3
"""The answers fuzzer as a CI test (ctest grader.fuzz_answers): generates --cases answers
files (default 1,000) from deterministic seeds, by mutating the course's own answers files
(the solution's, the untouched exercise's, the mutants') with byte flips, cuts, random
bytes, Markdown fragments, NULs, broken UTF-8, odd line endings, encodings and huge
repeats, and grades each one through the real answers parser and scorer. The grader must
never crash, exit 2 or say "internal error" on any of them, except that a file over the
intake's 1 MiB must be refused in one line with exit 2. A failing file is kept in
WORK/failures/ with the command that reproduces it; the same --seed gives the same files.

  grader/tests/fuzz_answers_test.py build/bin/grader .                  # 1,000 files, seed 1
  grader/tests/fuzz_answers_test.py build/bin/grader . --cases 200 --seed 7 --work /tmp/fz

Two paths, the fastest the grader offers:
  * batch: `grader dev answers <lesson> FILE... --root ROOT` (if the grader has it): grades
    each FILE as the lesson's answers file against its key in one process, one JSON object
    per line per file, exit 0 when every file was graded, whatever its score;
  * full: otherwise, `grader <lesson> --submission DIR --unit <unit> --format json` per file,
    in --jobs grading trees kept warm (the code exercises of the answers' unit are built
    once; after that a grade re-runs only the answers), exit 0 or 1 expected.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SNIPPETS = [b'\n- [x] ', b'[ ]', b'```\n', b'\n# ', b'>' * 500, b'\x00', b'\xff\xfe', b'\xe2\x80', b'answer:',
            b'\n' * 50, b'  - ' * 300, b'<!--', b'-->', b'[x]' * 100, b'| a | b |\n|---|---|\n', b'\r', b'\t',
            b'*' * 1000, b'1e999999', b'\xf0\x9f\x98', b'Q1', b'## Q2', b'(a)', b'**', b'\\', b'$$', b'[link](',
            b'&#0;', b'&#xD800;', b'\xef\xbb\xbf', b'- [\xe2\x88\x9a] ', b'- [\xe2\x9c\x93] ', b'- [X] ', b'- [x](a)',
            b'answer: -0', b'answer: nan', b'answer: inf GB/s', b'answer: 1/0', b'answer: 4096/32 = 128',
            b'answer: 0x1p-1074 MiB', b'answer: 3350 TB/s', b'answer: \xe7\xba\xa6 33.6 MB', b'answer: 9' * 40,
            b'### [q1.a]', b'### [q9.z]', b'### [', b'### []', b'\n### [q1.b]\nanswer: 32 MiB\n',
            b'\n    indented code\n', b'<details>', b'</details>', b'- [ ] (a)\n' * 20, b'\r\n', b'\u2028'.decode('unicode_escape').encode(),
            b'\xc0\xaf', b'\xed\xa0\x80', b'\xf4\x90\x80\x80', b'&nbsp;', b'\\[x\\]', b'`[x]`', b'~~[x]~~']


def corpus(root, lesson):
    """The course's own answers files: the seeds of every mutation."""
    files = [os.path.join(root, 'solutions', lesson, 'answers.md'), os.path.join(root, 'exercises', lesson, 'answers.md')]
    mutants = os.path.join(root, 'solutions', lesson, 'mutants')
    if os.path.isdir(mutants):
        files += sorted(os.path.join(mutants, m, 'answers.md') for m in os.listdir(mutants)
                        if os.path.isfile(os.path.join(mutants, m, 'answers.md')))
    out = []
    for f in files:
        if os.path.isfile(f):
            with open(f, 'rb') as fh:
                out.append(fh.read())
    return out


def mutate(rng, seeds):
    d = bytearray(rng.choice(seeds))
    lines = None
    for _ in range(rng.randint(1, 12)):
        op = rng.random()
        pos = rng.randint(0, len(d))
        if op < 0.22:
            d[pos:pos] = rng.choice(SNIPPETS)
        elif op < 0.36 and len(d) > 10:
            del d[pos:pos + rng.randint(1, 200)]
        elif op < 0.50 and d:
            d[min(pos, len(d) - 1)] = rng.randint(0, 255)
        elif op < 0.56:
            d = d[:pos]
        elif op < 0.64:
            d[pos:pos] = bytes(rng.randint(0, 255) for _ in range(rng.randint(1, 64)))
        elif op < 0.70:
            d[pos:pos] = rng.choice(SNIPPETS) * rng.randint(100, 3000)
        elif op < 0.80:  # whole lines: duplicated, dropped, swapped, shuffled
            lines = bytes(d).split(b'\n')
            i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
            k = rng.random()
            if k < 0.3:
                lines.insert(j, lines[i])
            elif k < 0.5 and len(lines) > 1:
                del lines[i]
            elif k < 0.8:
                lines[i], lines[j] = lines[j], lines[i]
            else:
                start = min(i, j)
                chunk = lines[start:start + 20]
                rng.shuffle(chunk)
                lines[start:start + 20] = chunk
            d = bytearray(b'\n'.join(lines))
        elif op < 0.85:  # every box ticked, or none
            d = bytearray(bytes(d).replace(b'[ ]', b'[x]') if rng.random() < 0.5 else bytes(d).replace(b'[x]', b'[ ]'))
        elif op < 0.90:  # line endings
            d = bytearray(bytes(d).replace(b'\n', rng.choice([b'\r\n', b'\r', b'\n\n', b'\x0b'])))
        elif op < 0.94:  # another encoding
            try:
                text = bytes(d).decode('utf-8')
                d = bytearray(text.encode(rng.choice(['utf-16', 'gb18030', 'utf-8-sig', 'latin-1']), errors='replace'))
            except UnicodeError:
                pass
        elif op < 0.97:  # a heading's id changed
            text = bytes(d)
            at = text.find(b'### [q', pos)
            if at >= 0:
                d[at + 5:at + 9] = rng.choice([b'q1.a', b'q3.z', b'Q1.A', b'q1..', b'q1.a]', b''])
        else:  # big: a fragment repeated hundreds of times at the end
            d += rng.choice(SNIPPETS) * rng.randint(300, 3000)
    # Most files stay under 256 KiB (a grade's time grows with the size); one in fifty may
    # reach 2 MiB, bigger than any real answers file and than the 1 MiB intake limit.
    return bytes(d[:(2 << 20) if rng.random() < 0.02 else (256 << 10)])


def grader_has_batch(grader):
    """Whether `grader dev --help` lists an `answers` subcommand."""
    r = subprocess.run([grader, 'dev', '--help'], capture_output=True, text=True)
    in_list = False
    for line in r.stdout.splitlines():
        if line.strip().lower().startswith('subcommands'):
            in_list = True
        elif in_list and line.split()[:1] == ['answers']:
            return True
    return False


def exercise_files(grader, root, lesson):
    r = subprocess.run([grader, 'dev', 'manifest', lesson, '--all', '--root', root], capture_output=True, text=True)
    rows = [line.split() for line in r.stdout.splitlines() if len(line.split()) == 3]
    if r.returncode != 0 or not rows:
        raise SystemExit(f'grader dev manifest {lesson} failed: {r.stderr.strip()}')
    return rows  # [id, kind, file]


def answers_unit(root, lesson, answers_id):
    """The first unit with an item of the answers exercise, and the code exercises it needs."""
    with open(os.path.join(root, 'lessons', lesson, 'manifest.json'), encoding='utf-8') as f:
        m = json.load(f)
    for u in m['units']:
        if any(i.get('exercise') == answers_id for i in u['items']):
            return u['id']
    raise SystemExit(f'no unit grades {answers_id}')


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('grader')
    p.add_argument('root')
    p.add_argument('--cases', type=int, default=1000)
    p.add_argument('--seed', type=int, default=1)
    p.add_argument('--lesson', default='lesson13')
    p.add_argument('--jobs', type=int, default=2, help='grades at once on the full path (default 2)')
    p.add_argument('--work', help='a folder kept between runs (warm grading trees); default: a temporary one')
    p.add_argument('--full', action='store_true', help='use the full grader even if it has a batch command')
    args = p.parse_args()
    grader, root = os.path.abspath(args.grader), os.path.abspath(args.root)
    rows = exercise_files(grader, root, args.lesson)
    answers = [(i, f) for i, k, f in rows if k == 'answers']
    if not answers:
        raise SystemExit(f'{args.lesson} has no answers file')
    answers_id, answers_file = answers[0]
    seeds = corpus(root, args.lesson)
    work = args.work or tempfile.mkdtemp(prefix='grader-fuzz-answers-')
    failures_dir = os.path.join(work, 'failures')
    shutil.rmtree(failures_dir, ignore_errors=True)
    os.makedirs(failures_dir)
    files = []
    for i in range(args.cases):
        rng = random.Random(f'{args.seed}:{i}')
        files.append(mutate(rng, seeds))
    t0 = time.monotonic()
    failures, counts = [], {}
    lock = threading.Lock()

    def record(i, rc, stderr, why, command):
        with lock:
            counts[rc] = counts.get(rc, 0) + 1
            if why:
                path = os.path.join(failures_dir, f'case{i}.md')
                with open(path, 'wb') as fh:
                    fh.write(files[i])
                failures.append(f'case {i} (seed {args.seed}): {why}; kept in {path}; reproduce: {command}; '
                                f'stderr: {stderr.strip()[-300:]!r}')

    if grader_has_batch(grader) and not args.full:
        mode = 'batch (grader dev answers)'
        batch_dir = os.path.join(work, 'batch')
        shutil.rmtree(batch_dir, ignore_errors=True)
        os.makedirs(batch_dir)
        paths = []
        for i, data in enumerate(files):
            paths.append(os.path.join(batch_dir, f'case{i}.md'))
            with open(paths[-1], 'wb') as fh:
                fh.write(data)
        for start in range(0, len(paths), 250):
            chunk = paths[start:start + 250]
            cmd = [grader, 'dev', 'answers', args.lesson, *chunk, '--root', root]
            r = subprocess.run(cmd, capture_output=True, text=True, errors='replace', timeout=600)
            lines = [l for l in r.stdout.splitlines() if l.strip()]
            bad_json = [l for l in lines if not l.lstrip().startswith('{')]
            why = ''
            if r.returncode != 0:
                why = f'exit {r.returncode}'
            elif 'internal error' in r.stderr.lower():
                why = '"internal error"'
            elif len(lines) != len(chunk) or bad_json:
                why = f'{len(lines)} result lines for {len(chunk)} files'
            if why:  # find the file(s) at fault one by one
                for j, path in enumerate(chunk):
                    one = [grader, 'dev', 'answers', args.lesson, path, '--root', root]
                    r1 = subprocess.run(one, capture_output=True, text=True, errors='replace', timeout=120)
                    w = (f'exit {r1.returncode}' if r1.returncode != 0 else
                         '"internal error"' if 'internal error' in r1.stderr.lower() else '')
                    record(start + j, r1.returncode, r1.stderr, w, ' '.join(one))
            else:
                with lock:
                    counts[0] = counts.get(0, 0) + len(chunk)
    else:
        unit = answers_unit(root, args.lesson, answers_id)
        mode = f'full grader, --unit {unit}, {args.jobs} warm trees'
        todo = list(range(len(files)))

        def worker(w):
            sub = os.path.join(work, f'sub{w}')
            # The suites' shared warm trees under ctest (COURSE_WARM_TREES), else private ones.
            tree = os.path.join(os.environ.get('COURSE_WARM_TREES') or work, f'worker{w}')
            os.makedirs(sub, exist_ok=True)
            for _, kind, f in rows:
                if kind != 'answers':
                    src = os.path.join(root, 'solutions', args.lesson, f)
                    dst = os.path.join(sub, f)
                    if not os.path.isfile(dst) or open(dst, 'rb').read() != open(src, 'rb').read():
                        shutil.copy2(src, dst)
            while True:
                with lock:
                    if not todo:
                        return
                    i = todo.pop(0)
                with open(os.path.join(sub, answers_file), 'wb') as fh:
                    fh.write(files[i])
                cmd = [grader, args.lesson, '--root', root, '--submission', sub, '--build-dir', tree,
                       '--unit', unit, '--format', 'json', '--lang', 'en', '--sandbox', 'off',
                       '--build-timeout', '1500']  # the first grade of a tree builds it
                try:
                    r = subprocess.run(cmd, capture_output=True, timeout=600)
                    rc, err = r.returncode, r.stderr.decode(errors='replace')
                except subprocess.TimeoutExpired:
                    rc, err = 'timeout', ''
                why = ''
                oversized = len(files[i]) > (1 << 20)
                if oversized:
                    # Over the intake's 1 MiB: refused in one line, exit 2, before any parsing.
                    lines = err.strip().splitlines()
                    if not (rc == 2 and len(lines) == 1 and 'at most 1 MiB' in err):
                        why = f'a file over 1 MiB: exit {rc}, not the one-line refusal'
                elif rc not in (0, 1):
                    why = f'exit {rc}'
                elif 'internal error' in err.lower():
                    why = '"internal error"'
                else:
                    try:
                        json.loads(r.stdout)
                    except ValueError:
                        why = 'the JSON report on stdout does not parse'
                record(i, rc, err, why, ' '.join(cmd).replace(sub, f'<folder with {answers_file} = case{i}.md>'))

        threads = [threading.Thread(target=worker, args=(w,)) for w in range(max(1, args.jobs))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    for line in failures[:20]:
        print('FAIL ' + line)
    print(f'fuzz_answers: {args.cases} files, seed {args.seed}, {mode}: exit statuses {dict(sorted(counts.items(), key=str))}, '
          f'{len(failures)} failing, {time.monotonic() - t0:.0f} s')
    if not args.work and not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
