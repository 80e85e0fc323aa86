#!/usr/bin/env python3
"""The adversarial suite (issue 11): grades every hostile submission in
solutions/<lesson>/attacks/<case>/ (case.json: docs/attack.schema.json) under caps that keep
CI safe, and checks the verdict each case states. Prints one line per case,
`PASS|FAIL <case> <class>: <why>`, and exits 1 if any case fails (2 if the suite itself
cannot run). ctest runs it as grader.adversarial.

  grader/tests/adversarial_test.py build/bin/grader .                 # every case
  grader/tests/adversarial_test.py build/bin/grader . --only fork-bomb --only network-exfil
  grader/tests/adversarial_test.py build/bin/grader . --mode mark     # grade with `grader mark`
  grader/tests/adversarial_test.py build/bin/grader . --level restricted   # the fallback sandbox
  grader/tests/adversarial_test.py build/bin/grader . --mode unconfined --only ...
      # --sandbox off: checks the attacks themselves (those a sandbox stops must get through);
      # by hand only, never on a shared machine: the bombs are then capped by the supervisor alone
  ... --work DIR   keeps the grading trees (warm) and the reports in DIR between runs
  ... --list       names the cases and exits

How it stays safe: the grader grades a private copy of the course root (an attack that
gets through cannot damage the checkout), with a fake HOME and a working folder of the
suite's, GITHUB_TOKEN=sekrit-token-123 in its environment. Each grade runs under the
grader's own supervisor, `grader dev supervise` (grader/src/commands/supervise.cpp): a
session of its own, a 2 GiB file-size limit and no core files, a wall-clock limit per case,
and a kill of the whole tree when the grader and the processes it started hold more than
8 GiB (Pss) or number more than 3,000, or the machine runs low on memory; what outlives the
grade is named, then killed. (An address-space limit cannot be used: the C++ tests run
under AddressSanitizer, which reserves terabytes of address space.) At most --jobs cases
(2) run at once, each in a grading tree of its own that stays warm between cases (and
between the two levels, given the same --work); cases marked "alone" run while no other
case runs. The pieces live in grader/tests/adversarial/ (files, cases, grading, checks).
Python 3 standard library only (jsonschema, if installed, validates the case files).
"""
import argparse
import json
import os
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time

from adversarial.cases import Slot, build_submission, case_unit, load_cases, manifest_info, subst, unit_scope
from adversarial.checks import check, watched
from adversarial.files import remove_entry
from adversarial.grading import (DEFAULT_WALL_S, KILL_MARGIN_S, TOKEN, WARMUP_WALL_S, Listener,
                                 grader_command, supervised)

# The one word to change when the marking command takes over (--mode overrides it).
DEFAULT_MODE = 'mark'


class Runner:
    def __init__(self, args):
        self.args = args
        self.grader = os.path.abspath(args.grader)
        self.root = os.path.abspath(args.root)
        self.listener = Listener()
        self.schema = None
        try:
            import jsonschema  # optional: validates case.json files
            with open(os.path.join(self.root, 'docs', 'attack.schema.json'), encoding='utf-8') as f:
                self.schema = (jsonschema, json.load(f))
        except ImportError:
            print('note: python3 cannot import jsonschema; case.json files are not validated')
        self.print_lock = threading.Lock()
        self.nonce = f'{os.getpid()}-{int(time.time())}'
        self.scopes = {}

    def scope(self, lesson):
        """The lesson's units by file and by item (case_unit), read once."""
        with self.print_lock:
            if lesson not in self.scopes:
                self.scopes[lesson] = unit_scope(self.root, lesson)
            return self.scopes[lesson]

    def fill_in(self, slot, name):
        """The placeholder substitution for case `name` in `slot`."""
        return lambda text: subst(text, slot, name, self.listener.port)

    def grade(self, slot, name, case, capped, wall_s):
        """One grade of `case` under `grader dev supervise`, its outputs in slot.reports."""
        report = os.path.join(slot.reports, name + '.json')
        out_path, err_path = os.path.join(slot.reports, name + '.out'), os.path.join(slot.reports, name + '.err')
        for p in (report, out_path, err_path):
            remove_entry(p)
        argv = grader_command(self.args.mode, self.grader, case['lesson'], slot.root, slot.sub, slot.tree, report, capped,
                              self.args.level)
        argv += case.get('grader_args', [])
        unit = case_unit(case, self.scope(case['lesson']))
        if unit:
            argv += ['--unit', unit]
        token = f'adv-case-{name}-slot{slot.index}-{self.nonce}'
        env = dict(os.environ, GITHUB_TOKEN=TOKEN, HOME=slot.home, ADV_CASE_TOKEN=token)
        pipe_w = None
        if case.get('stdin') == 'open-pipe':  # a pipe never written and never closed
            stdin, pipe_w = os.pipe()
        else:
            stdin = subprocess.DEVNULL
        started = time.monotonic()
        try:
            with open(out_path, 'wb') as out, open(err_path, 'wb') as err:
                s = supervised(self.grader, argv, wall_s + KILL_MARGIN_S, os.path.join(slot.reports, name + '.supervise'),
                               stdin=stdin, stdout=out, stderr=err, cwd=slot.cwd, env=env)
        finally:
            if pipe_w is not None:
                os.close(stdin)
                os.close(pipe_w)
        return dict(rc=s['rc'], elapsed=s['seconds'], s=s, report=report, out=out_path,
                    err=err_path, token=token, started=started, ended=time.monotonic())

    # -- the suite --------------------------------------------------------------

    def say(self, line):
        with self.print_lock:
            print(line, flush=True)

    def run_case(self, slot, name, folder, case, files, ids):
        try:
            return self.run_case_unguarded(slot, name, folder, case, files, ids)
        except Exception as x:  # a bug of the runner's: this case fails, the others still run
            import traceback
            self.say(f'FAIL {name} {case.get("class", "?")}: the runner failed: {x!r} '
                     f'({traceback.format_exc().strip().splitlines()[-3].strip()})')
            return False

    def run_case_unguarded(self, slot, name, folder, case, files, ids):
        problems = []
        if self.schema:
            js, schema = self.schema
            errors = sorted(js.Draft202012Validator(schema).iter_errors(case), key=lambda x: list(x.path))
            problems += [f'case.json: {"/".join(map(str, x.path)) or "$"}: {x.message}' for x in errors[:2]]
        items, units = ids
        e = case.get('expect', {})
        unknown = [i for i in e.get('not_passed', []) + [x for x in e.get('passed', []) if x != '*'] if i not in items]
        unknown += [u for u in e.get('units_not_passed', []) + list(e.get('max_score', {})) if u not in units]
        if unknown:
            problems.append('unknown item or unit ids: ' + ', '.join(unknown))
        try:
            slot.reset()
            build_submission(slot, folder, case, files, self.fill_in(slot, name))
        except (OSError, ValueError, KeyError) as x:
            problems.append(f'cannot build the submission: {x}')
        # A string the report must not contain must not be in the submission's exercise
        # files (the report quotes edits outside the blanks), or the case could never pass.
        for raw in ([] if problems else [os.fsencode(f) for f in files]):
            p = os.path.join(os.fsencode(slot.sub), raw)
            if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) < (1 << 20):
                with open(p, 'rb') as fh:
                    data = fh.read()
                for canary in e.get('report_must_not_contain', []):
                    if self.fill_in(slot, name)(canary).encode() in data:
                        problems.append(f'{canary!r} is in the submission\'s own {os.fsdecode(raw)}')
        if problems:
            self.say(f'FAIL {name} {case.get("class", "?")}: ' + '; '.join(problems))
            return False
        if case.get('pre_grade') == 'solutions':
            pre = {'lesson': case['lesson'], 'class': 'control', 'expect': {'exit': 0, 'passed': ['*']}}
            try:
                build_submission(slot, folder, pre, files, self.fill_in(slot, name + '.pre'))
            except (OSError, ValueError, KeyError) as x:
                problems.append(f'cannot build the pre-grade submission: {x}')
            if not problems:
                before = watched(slot)
                g = self.grade(slot, name + '.pre', pre, True, DEFAULT_WALL_S)
                pre_fails, _, _ = check(slot, name + '.pre', pre, g, before, self.fill_in(slot, name + '.pre'), self.listener)
                if pre_fails:
                    problems.append('the solutions graded first did not pass: ' + '; '.join(pre_fails))
                else:
                    build_submission(slot, folder, case, files, self.fill_in(slot, name))
            if problems:
                self.say(f'FAIL {name} {case.get("class", "?")}: ' + '; '.join(problems))
                return False
        before = watched(slot)
        g = self.grade(slot, name, case, True, e.get('wall_s_max', DEFAULT_WALL_S))
        fails, facts, changed_root = check(slot, name, case, g, before, self.fill_in(slot, name), self.listener)
        slot.reset(force=changed_root)
        for raw in os.listdir(os.fsencode(slot.sub)):  # no 100 MiB file or FIFO left lying around
            p = os.path.join(os.fsencode(slot.sub), raw)
            if not os.path.isfile(p) or os.path.islink(p) or os.path.getsize(p) > (1 << 20):
                remove_entry(p)
        verdict = 'FAIL' if fails else 'PASS'
        if case.get('open'):  # a known hole: reported every run, failing only once it is closed
            verdict = 'OPEN' if fails else 'CLOSED'
            facts.append(f'open: {case["open"]}')
            self.say(f'{verdict} {name} {case["class"]}: ' + '; '.join(fails + facts) +
                     ('' if fails else ' (the grader stops it now: remove "open" from its case.json)'))
            return bool(fails)
        self.say(f'{verdict} {name} {case["class"]}: ' + '; '.join(fails if fails else facts) +
                 (f' [{"; ".join(facts)}]' if fails else ''))
        return not fails

    def warm_up(self, slot, lesson, files, ids):
        """Grades the solutions in the slot's tree (cold the first time): they must pass, or
        no verdict of the suite means anything."""
        slot.reset()
        case = {'lesson': lesson, 'class': 'control', 'expect': {'exit': 0, 'passed': ['*'], 'wall_s_max': WARMUP_WALL_S}}
        if self.args.mode == 'mark':  # every code exercise by a judge with no student code
            case['expect']['judged_apart'] = [f for f in files if not f.endswith('.md')]
        build_submission(slot, '', case, files, self.fill_in(slot, 'control'))
        before = watched(slot)
        for attempt in range(2):  # a cold build on a busy machine may run out of time once
            g = self.grade(slot, 'control', case, False, WARMUP_WALL_S)
            fails, facts, _ = check(slot, 'control', case, g, before, self.fill_in(slot, 'control'), self.listener)
            if not fails:
                break
        self.say(f'{"FAIL" if fails else "PASS"} control-solutions-slot{slot.index} control: '
                 + '; '.join(fails if fails else facts))
        return not fails

    def main(self):
        cases = load_cases(self.root)
        if self.args.only:
            names = {c[0] for c in cases}
            unknown = [n for n in self.args.only if n not in names]
            if unknown:
                print('no such case: ' + ', '.join(unknown), file=sys.stderr)
                return 2
            cases = [c for c in cases if c[0] in self.args.only]
        if self.args.list:
            for name, _, c in cases:
                print(f'{name} {c.get("class")}: {c.get("attack")}')
            return 0
        if self.args.level == 'restricted':
            # Without Landlock the restricted level cannot hide files every user may read
            # (README, isolation levels): the read-outside cases would fail for that known
            # reason, so the suite is skipped (77) rather than failed there.
            confine = os.path.join(os.path.dirname(self.grader), 'grader-confine')
            probe = subprocess.run([confine, '--probe'], capture_output=True, text=True)
            if probe.returncode != 0 or 'no Landlock' in probe.stdout:
                print(f'SKIP the restricted level here: {(probe.stdout or probe.stderr).strip()}')
                return 77
        if not cases:
            print('no cases', file=sys.stderr)
            return 2
        lessons = sorted({c[2]['lesson'] for c in cases})
        info = {l: manifest_info(self.grader, self.root, l) for l in lessons}
        work = os.path.abspath(self.args.work) if self.args.work else tempfile.mkdtemp(prefix='grader-adversarial-')
        os.makedirs(work, exist_ok=True)
        jobs = max(1, min(self.args.jobs, len(cases)))
        slots = [Slot(work, i, self.root) for i in range(jobs)]
        t0 = time.monotonic()
        print(f'adversarial suite: {len(cases)} cases, mode {self.args.mode}, level {self.args.level}, {jobs} at a time, work {work}', flush=True)
        # Slot 0 warms up, then runs the cases that must run alone while the other slots
        # warm up; then every slot takes cases until none is left.
        alone = [c for c in cases if c[2].get('alone')]
        rest = [c for c in cases if not c[2].get('alone')]
        rest.sort(key=lambda c: (c[2]['class'] != 'compiler-bomb', 'wall_s_max' not in c[2].get('expect', {})))
        results, ok_slots = {}, {}
        todo = queue.Queue()
        for c in rest:
            todo.put(c)
        alone_done = threading.Event()

        def worker(slot):
            lesson = lessons[0]
            ok_slots[slot.index] = self.warm_up(slot, lesson, info[lesson][0], info[lesson][1:])
            if not ok_slots[slot.index]:
                return
            if slot.index == 0:
                for name, folder, c in alone:
                    results[name] = self.run_case(slot, name, folder, c, info[c['lesson']][0], info[c['lesson']][1:])
                alone_done.set()
            alone_done.wait()
            while True:
                try:
                    name, folder, c = todo.get_nowait()
                except queue.Empty:
                    return
                results[name] = self.run_case(slot, name, folder, c, info[c['lesson']][0], info[c['lesson']][1:])

        threads = [threading.Thread(target=worker, args=(s,)) for s in slots]
        for t in threads:
            t.start()
        while any(t.is_alive() for t in threads):
            if not ok_slots.get(0, True):
                alone_done.set()  # slot 0 failed its warm-up: release the others
            for t in threads:
                t.join(timeout=0.5)
        self.listener.stop = True
        if not any(ok_slots.values()):
            print('the solutions do not pass in this mode: no verdict of the suite would mean anything', flush=True)
            return 1
        skipped = [c[0] for c in cases if c[0] not in results]
        for name in skipped:
            print(f'FAIL {name}: not run (no slot passed its warm-up)')
        failed = sorted(n for n, ok in results.items() if not ok) + skipped
        still_open = sorted(n for n, _, c in cases if c.get('open') and results.get(n))
        print(f'adversarial suite: {len(cases) - len(failed)} of {len(cases)} cases pass, '
              f'{time.monotonic() - t0:.0f} s' + (f'; failing: {" ".join(failed)}' if failed else '') +
              (f'; known open holes (case.json "open"): {" ".join(still_open)}' if still_open else ''),
              flush=True)
        if not self.args.work and not self.args.keep:
            for s in slots:
                shutil.rmtree(os.path.dirname(s.root), ignore_errors=True)
            shutil.rmtree(work, ignore_errors=True)
        return 1 if failed or not all(ok_slots.values()) else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('grader', help='the grader binary, e.g. build/bin/grader')
    p.add_argument('root', help="the course's root folder")
    p.add_argument('--only', action='append', default=[], help='run only this case (repeatable)')
    p.add_argument('--mode', choices=['submission', 'mark', 'unconfined'], default=DEFAULT_MODE,
                   help=f'how the grader is called (default {DEFAULT_MODE}); unconfined (--sandbox off) '
                        'checks the attacks themselves: those a sandbox stops must fail there')
    p.add_argument('--level', choices=['full', 'restricted'], default='full',
                   help='the isolation level to grade at (default full: bubblewrap); restricted is the '
                        'fallback for machines where user namespaces are blocked')
    p.add_argument('--work', help='a folder kept between runs (warm grading trees, reports); default: a temporary one')
    p.add_argument('--keep', action='store_true', help='keep the temporary work folder')
    p.add_argument('--jobs', type=int, default=2, help='cases graded at once (default 2)')
    p.add_argument('--list', action='store_true', help='name the cases and exit')
    args = p.parse_args()
    sys.exit(Runner(args).main())


if __name__ == '__main__':
    main()