"""The cases of the adversarial suite (solutions/<lesson>/attacks/<case>/case.json,
docs/attack.schema.json): loading them, a slot to grade them in, and the submission each
one describes."""
import hashlib
import json
import os
import stat
import subprocess

from .files import remove_entry, sync_tree

HOME_SECRET = 'adv-home-canary-7f3e9c'


def subst(text, slot, name, port):
    """The case's text with its placeholders replaced (docs/attack.schema.json)."""
    for k, v in (('@COURSE_ROOT@', slot.root), ('@HOME@', slot.home), ('@PORT@', str(port)),
                 ('@CASE@', name), ('@SUBMISSION@', slot.sub)):
        text = text.replace(k, v)
    return text


class Slot:
    """A private course root, submission folder, HOME, working folder and grading tree."""

    def __init__(self, work, index, src_root):
        self.index, self.work = index, work
        base = os.path.join(work, f'slot{index}')
        # submission file -> [sha256, mtime_ns] as the runner last wrote it (kept between runs)
        self.written_file = os.path.join(base, 'written.json')
        try:
            with open(self.written_file) as f:
                self.written = {k: tuple(v) for k, v in json.load(f).items()}
        except (OSError, ValueError):
            self.written = {}
        self.root, self.sub = os.path.join(base, 'root'), os.path.join(base, 'sub')
        self.home, self.cwd = os.path.join(base, 'home'), os.path.join(base, 'cwd')
        self.tree, self.reports = os.path.join(base, 'tree'), os.path.join(base, 'reports')
        self.src_root = src_root
        for d in (self.sub, self.home, self.cwd, self.reports):
            os.makedirs(d, exist_ok=True)

    def reset(self, force=()):
        sync_tree(self.src_root, self.root, force, skip=[self.work])
        for d, files in ((self.home, {'adv-home-secret.txt': HOME_SECRET + '\n'}),
                         (self.cwd, {'canary.txt': 'adv-cwd-canary\n'})):
            for name in os.listdir(d):
                if name not in files:
                    remove_entry(os.path.join(d, name))
            for name, text in files.items():
                p = os.path.join(d, name)
                if not os.path.isfile(p) or os.path.islink(p) or open(p).read() != text:
                    remove_entry(p)
                    with open(p, 'w') as f:
                        f.write(text)


def load_cases(root, lesson_default='lesson13'):
    cases = []
    for solutions in sorted(os.listdir(os.path.join(root, 'solutions'))):
        attacks = os.path.join(root, 'solutions', solutions, 'attacks')
        if not os.path.isdir(attacks):
            continue
        for name in sorted(os.listdir(attacks)):
            path = os.path.join(attacks, name, 'case.json')
            if os.path.isfile(path):
                with open(path, encoding='utf-8') as f:
                    c = json.load(f)
                c.setdefault('lesson', solutions or lesson_default)
                cases.append((name, os.path.join(attacks, name), c))
    return cases


def manifest_info(grader, root, lesson):
    """(exercise files, item ids, unit ids) of a lesson."""
    with open(os.path.join(root, 'lessons', lesson, 'manifest.json'), encoding='utf-8') as f:
        m = json.load(f)
    files = []
    r = subprocess.run([grader, 'dev', 'manifest', lesson, '--all', '--root', root],
                       capture_output=True, text=True)
    if r.returncode == 0:
        files = [line.split()[2] for line in r.stdout.splitlines() if len(line.split()) == 3]
    if not files:  # `dev manifest` is the scripts' way; the manifest itself is the fallback
        files = [e['file'] for e in m['exercises']]
    items = {i['id'] for u in m['units'] for i in u['items']}
    units = {u['id'] for u in m['units']}
    return files, items, units


def unit_scope(root, lesson):
    """(exercise file -> the units grading it, item id -> its unit) of a lesson."""
    with open(os.path.join(root, 'lessons', lesson, 'manifest.json'), encoding='utf-8') as f:
        m = json.load(f)
    file_of = {e['id']: e['file'] for e in m['exercises']}
    units_of, unit_of = {}, {}
    for u in m['units']:
        for i in u['items']:
            unit_of[i['id']] = u['id']
            units_of.setdefault(file_of.get(i['exercise'], ''), set()).add(u['id'])
    return units_of, unit_of


def case_unit(case, scope):
    """The one unit a case needs graded, or None for the whole lesson. An attack sits in
    the files it writes; its verdict is read from the units its expectations name. When
    those are all one unit, grading that unit alone (`--unit`) meets the same code in the
    same sandbox and costs a sixth of a lesson; a case that names `--unit` itself, touches
    several units or names none is graded whole, and so is one that runs alone (the bombs
    and daemons, whose process and memory checks were measured on whole-lesson grades)."""
    if '--unit' in case.get('grader_args', []) or case.get('alone'):
        return None
    units_of, unit_of = scope
    spec, e = case.get('submission', {}), case.get('expect', {})
    touched = ({x['file'] for x in spec.get('edits', [])} | set(spec.get('append', {})) |
               set(spec.get('files', {})) | set(spec.get('from_exercises', [])) |
               {s.get('name', '').split('/')[0] for s in spec.get('special', [])})
    units = set()
    for f in touched:
        units |= units_of.get(f, set())
    units |= {unit_of.get(i, '?') for i in e.get('not_passed', []) + e.get('passed', []) if i != '*'}
    units |= set(e.get('units_not_passed', [])) | set(e.get('max_score', {}))
    return units.pop() if len(units) == 1 else None


def build_submission(slot, folder, case, files, fill_in):
    """Lays out the case's submission in slot.sub (docs/attack.schema.json, `submission`);
    `fill_in` replaces the placeholders in a text taken from the case."""
    spec = case.get('submission', {})
    lesson = case['lesson']
    base = spec.get('base', 'solutions')
    texts = {}
    if base != 'empty':
        for f in files:
            with open(os.path.join(slot.root, base, lesson, f), 'rb') as fh:
                texts[f] = fh.read()
    for f in spec.get('from_exercises', []):
        with open(os.path.join(slot.root, 'exercises', lesson, f), 'rb') as fh:
            texts[f] = fh.read()
    for f, src in spec.get('files', {}).items():
        with open(os.path.join(folder, src), encoding='utf-8') as fh:
            texts[f] = fill_in(fh.read()).encode()
    for e in spec.get('edits', []):
        text = texts.get(e['file'], b'').decode()
        find = fill_in(e['find'])
        if text.count(find) != 1:
            raise ValueError(f"edit of {e['file']}: the text to find occurs {text.count(find)} times, not once: {find[:60]!r}")
        texts[e['file']] = text.replace(find, fill_in(e['replace'])).encode()
    for f, src in spec.get('append', {}).items():
        with open(os.path.join(folder, src), encoding='utf-8') as fh:
            texts[f] = texts.get(f, b'') + b'\n' + fill_in(fh.read()).encode()
    special = {}
    for s in spec.get('special', []):
        raw = bytes.fromhex(s['name_hex']) if 'name_hex' in s else os.fsencode(fill_in(s['name']))
        special[raw] = s
    # Lay it out, keeping unchanged files (and their mtimes: no rebuild).
    sub_b = os.fsencode(slot.sub)
    made = {k for k, s in special.items() if s['kind'] != 'mtime'}
    wanted = {os.fsencode(f) for f in texts} | {k.split(b'/')[0] for k in special}
    for entry in os.listdir(sub_b):
        if entry not in wanted or entry in made:
            remove_entry(os.path.join(sub_b, entry))
    for f, data in texts.items():
        # Kept only if it is exactly what the runner last wrote there, timestamp
        # included: a build tool that goes by mtimes then has nothing stale to reuse.
        p = os.path.join(slot.sub, f)
        digest = hashlib.sha256(data).hexdigest()
        try:
            st = os.lstat(p)
            if stat.S_ISREG(st.st_mode) and slot.written.get(f) == (digest, st.st_mtime_ns):
                continue
        except FileNotFoundError:
            pass
        remove_entry(p)
        with open(p, 'wb') as fh:
            fh.write(data)
        slot.written[f] = (digest, os.lstat(p).st_mtime_ns)
    with open(slot.written_file, 'w') as fh:
        json.dump(slot.written, fh)
    for raw, s in special.items():
        p = os.path.join(sub_b, raw)
        kind = s['kind']
        if kind == 'mtime':
            continue  # below, once every entry exists
        remove_entry(p)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        if kind == 'symlink':
            os.symlink(fill_in(s['target']), p)
        elif kind == 'fifo':
            os.mkfifo(p)
        elif kind == 'dir':
            os.makedirs(p, exist_ok=True)
        elif kind == 'file':
            with open(p, 'wb') as fh:
                fh.write(fill_in(s.get('text', '')).encode())
        elif kind == 'big':
            head = texts.get(os.fsdecode(raw), b'')
            fill = fill_in(s['fill']).encode()
            size = int(s['size_mb'] * (1 << 20))
            block = fill * max(1, (1 << 20) // len(fill))
            with open(p, 'wb') as fh:
                fh.write(head)
                written = len(head)
                while written < size:
                    chunk = block[:size - written]
                    fh.write(chunk)
                    written += len(chunk)
    for raw, s in special.items():
        p = os.path.join(sub_b, raw)
        if s['kind'] == 'mtime':
            os.utime(p, (s['mtime'], s['mtime']), follow_symlinks=False)
        elif s['kind'] == 'symlink':
            # A link's target inside the course copy is made new, so that the build
            # tool sees a change and the link itself is what gets graded; graded files
            # with old timestamps are submission-old-mtime's business.
            target = os.fsdecode(os.path.realpath(p))
            if target.startswith(os.path.realpath(slot.root) + os.sep) and os.path.isfile(target):
                os.utime(target)

# -- one grade ------------------------------------------------------------
