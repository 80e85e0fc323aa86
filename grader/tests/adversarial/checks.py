"""The checks of one grade (docs/attack.schema.json, `expect`, and the checks made for every
case): the grader's exit and output, the verdict in its JSON report, and what an attack
may have done outside it (processes left, files changed, connections made)."""
import json
import os
import re
import time

from .files import digest_changes, remove_entry, tree_digest
from .grading import (DEFAULT_WALL_S, MEM_CAP_MB, PROC_CAP, TOKEN, killed_why, kill_pids,
                      marked_processes)

OUTPUT_CAP = 4 << 20        # the JSON report and stdout must stay under 4 MiB


def watched(slot):
    """The folders an attack must leave unchanged, as digests to compare after the grade."""
    return {k: tree_digest(p) for k, p in (('course root', slot.root), ('submission', slot.sub),
                                           ('HOME', slot.home), ('working folder', slot.cwd))}


def check_outputs(e, g, fails):
    """Exit status, stderr, stdout and the JSON report; returns (report or None, its bytes,
    stdout, stderr)."""
    rc, killed = g['rc'], killed_why(g['s'])
    if killed:
        fails.append(killed)
    wall = e.get('wall_s_max', DEFAULT_WALL_S)
    if g['elapsed'] > wall:
        fails.append(f'took {g["elapsed"]:.0f} s (bound {wall:g} s)')
    allowed = e.get('exit', [0, 1])
    allowed = [allowed] if isinstance(allowed, int) else allowed
    with open(g['err'], 'rb') as f:
        err = f.read(OUTPUT_CAP + 1)
    with open(g['out'], 'rb') as f:
        out = f.read(64 << 20)
    if rc < 0 and not killed:
        fails.append(f'the grader was killed by signal {-rc}')
    elif rc >= 0 and rc not in allowed:
        last = err.decode(errors='replace').strip().splitlines()[-1:] or ['']
        fails.append(f'exit {rc}, expected {"/".join(map(str, allowed))}' + (f' ({last[0][:160]})' if rc == 2 else ''))
    if rc == 2:
        lines = err.decode(errors='replace').strip().splitlines()
        if len(lines) != 1 or not lines[0].startswith('grader: cannot grade:'):
            fails.append(f'exit 2 without one "grader: cannot grade:" line on stderr ({len(lines)} lines)')
    if b'internal error' in err.lower():
        fails.append('the grader says "internal error"')
    if os.path.getsize(g['out']) > OUTPUT_CAP:
        fails.append(f'stdout is {os.path.getsize(g["out"]) >> 20} MiB (cap {OUTPUT_CAP >> 20} MiB)')
    report, raw = None, b''
    if os.path.isfile(g['report']):
        size = os.path.getsize(g['report'])
        if size > OUTPUT_CAP:
            fails.append(f'the JSON report is {size >> 20} MiB (cap {OUTPUT_CAP >> 20} MiB)')
        with open(g['report'], 'rb') as f:
            raw = f.read(64 << 20)
        try:
            report = json.loads(raw)
        except ValueError as x:
            fails.append(f'the JSON report does not parse: {x}')
    elif rc in (0, 1):
        fails.append('no JSON report')
    stable = e.get('report_stable_s')
    if stable:
        time.sleep(stable)
        now = b''
        if os.path.isfile(g['report']):
            with open(g['report'], 'rb') as f:
                now = f.read(64 << 20)
        if now != raw:
            fails.append(f'the JSON report changed within {stable:g} s after the grader exited')
    return report, raw, out, err


def check_verdict(e, rc, report, fails, facts):
    """The items and units the case names; returns item id -> status."""
    status, unit_passed, unit_score = {}, {}, {}
    if isinstance(report, dict):
        for u in report.get('units', []):
            unit_passed[u.get('id')] = u.get('passed')
            unit_score[u.get('id')] = u.get('score')
            for it in u.get('items', []):
                status[it.get('id')] = it.get('status')
    have_verdict = isinstance(report, dict)
    exit2_no_report = rc == 2 and not have_verdict
    passing = [i for i in e.get('not_passed', []) if status.get(i) == 'pass']
    if passing:
        fails.append('passed: ' + ', '.join(passing))
    if have_verdict:
        missing = [i for i in e.get('not_passed', []) if i not in status]
        if missing and not exit2_no_report:
            facts.append('not in the report: ' + ', '.join(missing))
    want_pass = e.get('passed', [])
    if want_pass:
        ids = list(status) if want_pass == ['*'] else want_pass
        bad = [f'{i} ({status.get(i)})' for i in ids if status.get(i) != 'pass']
        if bad or not have_verdict:
            fails.append('not passed: ' + (', '.join(bad) if bad else 'no report'))
    for u in e.get('units_not_passed', []):
        if unit_passed.get(u) is True:
            fails.append(f'unit {u} PASSED')
    for u, most in e.get('max_score', {}).items():
        if isinstance(unit_score.get(u), (int, float)) and unit_score[u] > most:
            fails.append(f'unit {u} scored {unit_score[u]} (at most {most})')
    if e.get('judged_apart') and have_verdict:
        apart = set((report or {}).get('judged_apart', []))
        missing = [f for f in e['judged_apart'] if f not in apart]
        if missing:
            fails.append('not judged apart: ' + ', '.join(missing))
    if e.get('outside_blanks'):
        listed = {os.path.basename(str(o.get('file', ''))) for o in (report or {}).get('outside_blanks', [])
                  if isinstance(o, dict)} if have_verdict else set()
        missing = [f for f in e['outside_blanks'] if f not in listed]
        if missing and not exit2_no_report:
            fails.append('edits outside the blanks not listed for ' + ', '.join(missing))
    return status


def check_texts(e, fill_in, out, err, raw, fails):
    """Secrets and canaries nowhere in the outputs, no forged line."""
    texts = out + b'\n' + err + b'\n' + raw
    for s in dict.fromkeys([TOKEN] + [fill_in(x) for x in e.get('report_must_not_contain', [])]):
        if s.encode() in texts:
            where = [n for n, t in (('stdout', out), ('stderr', err), ('report', raw)) if s.encode() in t]
            fails.append(f'{s!r} in the {"/".join(where)}')
    for pattern in e.get('no_line_matching', []):
        rx = re.compile(pattern)
        for line in (out + b'\n' + err).decode(errors='replace').splitlines():
            if rx.search(line):
                fails.append(f'a line matches {pattern!r}: {line.strip()[:80]!r}')
                break


def check_outside(slot, name, e, g, before, fill_in, listener, fails):
    """Caps, processes left behind, files changed, paths made, connections; returns the
    course root's changed paths (the slot copies them afresh)."""
    sv, killed = g['s'], killed_why(g['s'])
    peak_mb, peak_procs = sv['peak_tree_mib'], sv['peak_processes']
    if peak_mb > e.get('max_rss_mb', MEM_CAP_MB) and not killed:
        fails.append(f'its processes held {peak_mb} MiB (at most {e["max_rss_mb"]:g})')
    if peak_procs > e.get('max_processes', PROC_CAP) and not killed:
        fails.append(f'{peak_procs} processes at once (at most {e["max_processes"]})')
    # Processes left behind: named by the supervisor (its tree, which it has killed since),
    # or found afterwards anywhere, marked or carrying the case's token.
    left = {p['pid']: p['command'] for p in sv['left']}
    deadline = time.monotonic() + 2.0
    while True:
        marked = marked_processes([fill_in(m) for m in e.get('no_process', [])], g['token'])
        if not marked or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    if left or marked:
        pids = sorted(set(left) | {p for p, _ in marked})
        what = [c for _, c in marked][:2] or [left[min(left)]]
        fails.append(f'{len(pids)} process(es) outlived the grade ({"; ".join(what)})')
        kill_pids([p for p, _ in marked])
    # Files: the course root, the submission, HOME, the working folder, named paths.
    after = watched(slot)
    changed_root = []
    for k, d in after.items():
        changes = digest_changes(before[k], d)
        if changes:
            fails.append(f'{k} changed: ' + ', '.join(changes))
            if k == 'course root':
                changed_root = [os.fsdecode(x) for x in set(before[k]) ^ set(d) | {x for x in d if before[k].get(x) != d[x]}]
    for p in e.get('paths_absent', []):
        p = fill_in(p)
        if os.path.lexists(p):
            fails.append(f'{p} exists')
            if p.startswith('/tmp/adv-') or p.startswith(slot.home + '/'):
                remove_entry(p)
    conns = listener.connections(name, g['started'], g['ended'])
    if conns:
        fails.append(f'{len(conns)} connection(s) reached 127.0.0.1:{listener.port} ({conns[0][:40]!r})')
    return changed_root


def check(slot, name, case, g, before, fill_in, listener):
    """Every check of one grade: (fails, facts, the course root's changed paths)."""
    e = case.get('expect', {})
    fails, facts = [], []
    report, raw, out, err = check_outputs(e, g, fails)
    status = check_verdict(e, g['rc'], report, fails, facts)
    check_texts(e, fill_in, out, err, raw, fails)
    changed_root = check_outside(slot, name, e, g, before, fill_in, listener, fails)
    facts.append(f'exit {g["rc"]}')
    not_passed = [i for i, s in status.items() if s != 'pass']
    facts.append(('not passed: ' + ', '.join(not_passed)) if not_passed else ('all items passed' if status else 'no report'))
    sv = g['s']
    facts.append(f'{g["elapsed"]:.1f} s, peak {sv["peak_tree_mib"]} MiB, {sv["peak_processes"]} processes')
    return fails, facts, changed_root
