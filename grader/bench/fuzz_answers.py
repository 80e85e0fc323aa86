#!/usr/bin/env python3
"""Fuzzes the answers parser through the whole grader: mutates the solution's answers.md
(byte flips, cuts, random bytes, markdown fragments, NULs, broken UTF-8, huge repeats) and
grades each copy's exam unit. Any exit status other than 0 (pass) or 1 (fail), or an
"internal error", is printed and kept in WORK/case<i>.md. Prints the count per status.
  grader/bench/fuzz_answers.py [seed=1] [cases=300]   (GRADER=path picks another build)
"""
import os, random, subprocess, shutil, sys
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
grader = os.environ.get('GRADER', os.path.join(root, 'build', 'bin', 'grader'))
random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
cases = int(sys.argv[2]) if len(sys.argv) > 2 else 300
work = '/tmp/grader-fuzz-answers'
shutil.rmtree(work, ignore_errors=True)
sub = work + '/sub'
shutil.copytree(os.path.join(root, 'solutions', 'lesson13'), sub, ignore=shutil.ignore_patterns('mutants', 'notes'))
base = open(sub + '/answers.md', 'rb').read()
snips = [b'\n- [x] ', b'[ ]', b'```\n', b'\n# ', b'>' * 500, b'\x00', b'\xff\xfe', b'\xe2\x80', b'answer:', b'\n' * 50,
         b'  - ' * 300, b'<!--', b'-->', b'[x]' * 100, b'| a | b |\n|---|---|\n', b'\r', b'\t', b'*' * 1000, b'1e999999', b'\xf0\x9f\x98',
         b'Q1', b'## Q2', b'(a)', b'**', b'\\', b'$$', b'[link](', b'&#0;', b'&#xD800;', b'\xef\xbb\xbf']
results = {}
for i in range(cases):
    d = bytearray(base)
    for _ in range(random.randint(1, 12)):
        op = random.random()
        pos = random.randint(0, len(d))
        if op < 0.3: d[pos:pos] = random.choice(snips)
        elif op < 0.5 and len(d) > 10: del d[pos:pos + random.randint(1, 200)]
        elif op < 0.7 and len(d) > 0: d[min(pos, len(d)-1)] = random.randint(0, 255)
        elif op < 0.8: d = d[:pos]
        elif op < 0.9: d[pos:pos] = os.urandom(random.randint(1, 64))
        else: d[pos:pos] = random.choice(snips) * random.randint(100, 3000)
    open(sub + '/answers.md', 'wb').write(bytes(d))
    r = subprocess.run([grader, 'lesson13', '--root', root, '--submission', sub,
                        '--build-dir', work + '/tree', '--unit', 'exam', '--format', 'json'], capture_output=True, timeout=120)
    key = r.returncode
    results.setdefault(key, []).append(i)
    if key not in (0, 1) or b'internal error' in r.stderr:
        open(f'{work}/case{i}.md', 'wb').write(bytes(d))
        print('case', i, 'rc', key, r.stderr[-300:])
print({k: len(v) for k, v in results.items()})
