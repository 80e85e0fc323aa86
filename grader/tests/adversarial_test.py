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
      # by hand only, never on a shared machine: the bombs are then capped by the runner alone
  ... --work DIR   keeps the grading trees (warm) and the reports in DIR between runs
  ... --list       names the cases and exits

How it stays safe: the grader grades a private copy of the course root (an attack that
gets through cannot damage the checkout), with a fake HOME and a working folder of the
runner's, GITHUB_TOKEN=sekrit-token-123 in its environment, a 2 GiB file-size limit and no
core files (setrlimit in preexec_fn), a wall-clock limit per case, and a watchdog that
kills the grade when the grader and the processes it started hold more than 8 GiB or
number more than 3,000, or the machine runs low on memory. (An address-space limit
cannot be used: the C++ tests run under AddressSanitizer, which reserves terabytes of
address space and does not start under RLIMIT_AS.) At most --jobs cases (2) run at once,
each in a grading tree of its own that stays warm between cases; cases marked "alone"
run while no other case runs. Python 3 standard library only (jsonschema, if installed,
validates the case files).
"""
import argparse
import hashlib
import json
import os
import queue
import re
import resource
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

# The one word to change when the marking command takes over (--mode overrides it).
DEFAULT_MODE = 'mark'

TOKEN = 'sekrit-token-123'
HOME_SECRET = 'adv-home-canary-7f3e9c'
BUILD_TIMEOUT_S = 30        # --build-timeout for the cases (the warm-up builds with the default)
DEFAULT_WALL_S = 120        # a case's wall-clock bound unless it states one
KILL_MARGIN_S = 10          # the runner kills a grade this long after its bound
MEM_CAP_MB = 8192           # the watchdog kills a grade holding more than this in all
PROC_CAP = 3000             # ... or running more processes than this at once
LOW_MEMORY_MB = 2048        # ... or when the machine has less than this available
FILE_SIZE_CAP = 2 << 30     # RLIMIT_FSIZE for the grader and everything it starts
OUTPUT_CAP = 4 << 20        # the JSON report and stdout must stay under 4 MiB
WARMUP_WALL_S = 1800        # the first grade of a tree builds everything
WARMUP_BUILD_TIMEOUT_S = 1500
COPY_EXCLUDE = {'.git', '.cache', '.gpu-deps', '.gpu-mutants'}


def grader_command(mode, grader, lesson, root, sub, tree, report, capped, level='full'):
    """The grader's command line for one grade; `capped`: the cases' build-time cap (a
    warm-up's cold build gets far longer); `level`: the isolation level the sandboxed
    modes must run at (restricted: the fallback where user namespaces are blocked)."""
    common = ['--root', root, '--json', report, '--build-dir', tree, '--lang', 'en']
    if mode != 'unconfined':
        common += ['--sandbox', level, '--require-sandbox', level]
    caps = ['--build-timeout', str(BUILD_TIMEOUT_S if capped else WARMUP_BUILD_TIMEOUT_S)]
    if mode == 'submission':
        return [grader, lesson, '--submission', sub] + common + caps
    if mode == 'mark':  # marking brings its own sandbox (and refuses without one)
        return [grader, 'mark', lesson, sub] + common + caps
    if mode == 'unconfined':  # the attacks' own check: those the sandbox stops must get through here
        return [grader, lesson, '--submission', sub, '--sandbox', 'off'] + common + caps
    raise SystemExit(f'unknown mode {mode}')


# ----------------------------------------------------------------------------- files

def file_digest(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def tree_digest(top):
    """relative path -> what it is (content hash, link target, or kind), never following
    links or opening anything but regular files."""
    out = {}
    top_b = os.fsencode(top)
    for dirpath, dirnames, filenames in os.walk(top_b):
        for name in dirnames + filenames:
            p = os.path.join(dirpath, name)
            rel = os.path.relpath(p, top_b)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ('link', os.readlink(p))
            elif stat.S_ISREG(st.st_mode):
                out[rel] = ('file', st.st_size, file_digest(p) if st.st_size < (64 << 20) else st.st_mtime_ns)
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ('dir',)
            else:
                out[rel] = ('other', stat.S_IFMT(st.st_mode))
    return out


def digest_changes(before, after, limit=4):
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    shown = [os.fsdecode(k) for k in changed[:limit]]
    return shown + ([f'... {len(changed) - limit} more'] if len(changed) > limit else []) if changed else []


def remove_entry(path):
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if stat.S_ISDIR(st.st_mode):
        shutil.rmtree(path, ignore_errors=True)
    else:
        os.unlink(path)


def sync_tree(src, dst, force=(), skip=()):
    """Makes dst a copy of src (files with their mtimes, so a grading tree configured for
    dst stays warm); copies a file when its size or mtime differ and its bytes do too, or
    when it is in force (a replaced file gets the copy's time, so the build redoes it).
    Leaves out .git, build folders (build* at the top, any folder holding a CMakeCache.txt)
    and the folders in skip (the suite's own work folder)."""
    os.makedirs(dst, exist_ok=True)
    force = set(force)
    skip = {os.path.realpath(p) for p in skip}
    for dirpath, dirnames, filenames in os.walk(src):
        rel_dir = os.path.relpath(dirpath, src)
        if rel_dir == '.':
            dirnames[:] = [d for d in dirnames if d not in COPY_EXCLUDE and not d.startswith('build')]
        dirnames[:] = [d for d in dirnames if os.path.realpath(os.path.join(dirpath, d)) not in skip
                       and not os.path.isfile(os.path.join(dirpath, d, 'CMakeCache.txt'))]
        target_dir = os.path.normpath(os.path.join(dst, rel_dir))
        if not os.path.isdir(target_dir) or os.path.islink(target_dir):
            remove_entry(target_dir)
            os.makedirs(target_dir)
        wanted = set(dirnames) | set(filenames)
        for name in os.listdir(target_dir):
            if name not in wanted:
                remove_entry(os.path.join(target_dir, name))
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            s, d = os.path.join(dirpath, name), os.path.join(target_dir, name)
            ss = os.lstat(s)
            rel = os.path.normpath(os.path.join(rel_dir, name))
            try:
                ds = os.lstat(d)
            except FileNotFoundError:
                ds = None
            if stat.S_ISLNK(ss.st_mode):
                if ds is None or not stat.S_ISLNK(ds.st_mode) or os.readlink(d) != os.readlink(s):
                    remove_entry(d)
                    os.symlink(os.readlink(s), d)
                continue
            if (ds is None or not stat.S_ISREG(ds.st_mode) or ds.st_size != ss.st_size
                    or ds.st_mtime_ns != ss.st_mtime_ns or rel in force):
                if (ds is not None and stat.S_ISREG(ds.st_mode) and rel not in force
                        and ds.st_size == ss.st_size and file_digest(d) == file_digest(s)):
                    os.utime(d, ns=(ss.st_atime_ns, ss.st_mtime_ns))  # same bytes: only the time
                    continue
                remove_entry(d)
                shutil.copy2(s, d)
                if ds is not None:
                    # A changed file gets the time of the copy: one edited while an earlier run
                    # built from its old bytes has an mtime older than those objects, and the
                    # build would keep them.
                    os.utime(d)


# ----------------------------------------------------------------------------- processes

def proc_table():
    """pid -> (ppid, starttime, state) for every process."""
    table = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open(f'/proc/{name}/stat', 'rb') as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rfind(b')') + 2:].split()
        table[int(name)] = (int(fields[1]), int(fields[19]), fields[0].decode())
    return table


def descendants(root_pid, table):
    children = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root_pid]
    while todo:
        p = todo.pop()
        for c in children.get(p, ()):
            out.append(c)
            todo.append(c)
    return out


def read_text(path, limit=4096):
    try:
        with open(path, 'rb') as f:
            return f.read(limit)
    except OSError:
        return b''


def pss_kb(pid):
    for line in read_text(f'/proc/{pid}/smaps_rollup', 8192).splitlines():
        if line.startswith(b'Pss:'):
            return int(line.split()[1])
    return 0


def rss_kb(pid):
    parts = read_text(f'/proc/{pid}/statm', 256).split()
    return int(parts[1]) * (os.sysconf('SC_PAGE_SIZE') // 1024) if len(parts) > 1 else 0


def mem_available_mb():
    for line in read_text('/proc/meminfo', 8192).splitlines():
        if line.startswith(b'MemAvailable:'):
            return int(line.split()[1]) // 1024
    return 1 << 30


def kill_pids(pids):
    for sig in (signal.SIGSTOP, signal.SIGKILL):  # freeze first, so a fork bomb cannot outrun it
        for p in pids:
            try:
                os.kill(p, sig)
            except OSError:
                pass


class Watch:
    """Polls the grader's process tree: peak memory (PSS) and process count, the processes
    seen, and kills the tree past the caps or the wall-clock limit."""

    def __init__(self, proc, wall_limit):
        self.proc, self.wall_limit = proc, wall_limit
        self.start = time.monotonic()
        self.peak_mb, self.peak_procs = 0, 1
        self.seen = {}           # pid -> starttime
        self.killed = ''         # why the runner killed the grade
        self.done = threading.Event()
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def sample(self):
        table = proc_table()
        pids = descendants(self.proc.pid, table)
        for p in pids:
            self.seen.setdefault(p, table[p][1])
        everyone = [self.proc.pid] + pids
        self.peak_procs = max(self.peak_procs, len(everyone))
        biggest = sorted(everyone, key=rss_kb, reverse=True)[:256] if len(everyone) > 256 else everyone
        mb = sum(pss_kb(p) for p in biggest) // 1024
        self.peak_mb = max(self.peak_mb, mb)
        return everyone, mb

    def kill(self, why):
        if not self.killed:
            self.killed = why
        for _ in range(5):
            table = proc_table()
            pids = [self.proc.pid] + descendants(self.proc.pid, table)
            kill_pids(pids)
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            if self.proc.poll() is not None and not descendants(self.proc.pid, proc_table()):
                break
            time.sleep(0.1)

    def run(self):
        while self.proc.poll() is None:
            everyone, mb = self.sample()
            elapsed = time.monotonic() - self.start
            if mb > MEM_CAP_MB:
                self.kill(f'the runner killed the grade: its processes held {mb} MiB (cap {MEM_CAP_MB} MiB)')
            elif len(everyone) > PROC_CAP:
                self.kill(f'the runner killed the grade: {len(everyone)} processes at once (cap {PROC_CAP})')
            elif mem_available_mb() < LOW_MEMORY_MB:
                self.kill(f'the runner killed the grade: the machine was down to {mem_available_mb()} MiB available')
            elif elapsed > self.wall_limit:
                self.kill(f'the runner killed the grade after {elapsed:.0f} s')
            time.sleep(0.1 if len(everyone) < 64 else 0.3)
        self.done.set()

    def leftovers(self):
        """Processes of this grade still running (pid with the same start time; a zombie
        waiting for a parent that does not reap it is not running)."""
        table = proc_table()
        return [p for p, st in self.seen.items() if p in table and table[p][1] == st and table[p][2] not in 'ZX']


def marked_processes(markers, token):
    """Processes whose command line or name holds a marker, or whose environment holds the
    case's token (set in the grader's environment, inherited by anything unconfined)."""
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit() or int(name) == os.getpid():
            continue
        cmd = read_text(f'/proc/{name}/cmdline', 65536).replace(b'\0', b' ')
        comm = read_text(f'/proc/{name}/comm', 256)
        hit = any(m.encode() in cmd or m.encode()[:15] in comm for m in markers)
        if not hit and token:
            hit = token.encode() in read_text(f'/proc/{name}/environ', 1 << 20)
        if hit:
            found.append((int(name), ' '.join(cmd.decode(errors='replace').split())[:80]))
    return found


# ----------------------------------------------------------------------------- the listener

class Listener:
    """A TCP port on 127.0.0.1 where any connection is an attack that got out."""

    def __init__(self):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(('127.0.0.1', 0))
        self.sock.listen(16)
        self.sock.settimeout(0.5)
        self.port = self.sock.getsockname()[1]
        self.events = []  # (time, first bytes)
        self.lock = threading.Lock()
        self.stop = False
        threading.Thread(target=self.run, daemon=True).start()

    def run(self):
        while not self.stop:
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            conn.settimeout(1.0)
            try:
                data = conn.recv(256)
            except OSError:
                data = b''
            conn.close()
            with self.lock:
                self.events.append((time.monotonic(), data))

    def connections(self, case, since, until):
        with self.lock:
            return [d for t, d in self.events
                    if (f'adv-net {case}'.encode() in d) or (not d.startswith(b'adv-net ') and since <= t <= until)]


# ----------------------------------------------------------------------------- cases

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

    # -- building a submission ------------------------------------------------

    def subst(self, text, slot, name):
        for k, v in (('@COURSE_ROOT@', slot.root), ('@HOME@', slot.home), ('@PORT@', str(self.listener.port)),
                     ('@CASE@', name), ('@SUBMISSION@', slot.sub)):
            text = text.replace(k, v)
        return text

    def build_submission(self, slot, name, folder, case, files):
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
                texts[f] = self.subst(fh.read(), slot, name).encode()
        for e in spec.get('edits', []):
            text = texts.get(e['file'], b'').decode()
            find = self.subst(e['find'], slot, name)
            if text.count(find) != 1:
                raise ValueError(f"edit of {e['file']}: the text to find occurs {text.count(find)} times, not once: {find[:60]!r}")
            texts[e['file']] = text.replace(find, self.subst(e['replace'], slot, name)).encode()
        for f, src in spec.get('append', {}).items():
            with open(os.path.join(folder, src), encoding='utf-8') as fh:
                texts[f] = texts.get(f, b'') + b'\n' + self.subst(fh.read(), slot, name).encode()
        special = {}
        for s in spec.get('special', []):
            raw = bytes.fromhex(s['name_hex']) if 'name_hex' in s else os.fsencode(self.subst(s['name'], slot, name))
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
                os.symlink(self.subst(s['target'], slot, name), p)
            elif kind == 'fifo':
                os.mkfifo(p)
            elif kind == 'dir':
                os.makedirs(p, exist_ok=True)
            elif kind == 'file':
                with open(p, 'wb') as fh:
                    fh.write(self.subst(s.get('text', ''), slot, name).encode())
            elif kind == 'big':
                head = texts.get(os.fsdecode(raw), b'')
                fill = self.subst(s['fill'], slot, name).encode()
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

    def grade(self, slot, name, case, capped, wall_s):
        report = os.path.join(slot.reports, name + '.json')
        out_path, err_path = os.path.join(slot.reports, name + '.out'), os.path.join(slot.reports, name + '.err')
        for p in (report, out_path, err_path):
            remove_entry(p)
        argv = grader_command(self.args.mode, self.grader, case['lesson'], slot.root, slot.sub, slot.tree, report, capped,
                              self.args.level)
        argv += case.get('grader_args', [])
        token = f'adv-case-{name}-slot{slot.index}-{self.nonce}'
        env = dict(os.environ, GITHUB_TOKEN=TOKEN, HOME=slot.home, ADV_CASE_TOKEN=token)

        def limits():
            resource.setrlimit(resource.RLIMIT_FSIZE, (FILE_SIZE_CAP, FILE_SIZE_CAP))
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            try:  # not enforced for root; counts every process of the user otherwise
                resource.setrlimit(resource.RLIMIT_NPROC, (16384, 16384))
            except (ValueError, OSError):
                pass

        pipe_w = None
        if case.get('stdin') == 'open-pipe':
            stdin, pipe_w = os.pipe()
        else:
            stdin = subprocess.DEVNULL
        started = time.monotonic()
        with open(out_path, 'wb') as out, open(err_path, 'wb') as err:
            proc = subprocess.Popen(argv, stdin=stdin, stdout=out, stderr=err, cwd=slot.cwd, env=env,
                                    preexec_fn=limits, start_new_session=True)
            if pipe_w is not None:
                os.close(stdin)
            watch = Watch(proc, wall_s + KILL_MARGIN_S)
            proc.wait()
            watch.done.wait()
        elapsed = time.monotonic() - started
        if pipe_w is not None:
            os.close(pipe_w)
        return dict(rc=proc.returncode, elapsed=elapsed, watch=watch, report=report, out=out_path,
                    err=err_path, token=token, started=started, ended=time.monotonic())

    # -- checking a verdict ---------------------------------------------------

    def check(self, slot, name, case, g, before):
        e = case.get('expect', {})
        subst = lambda s: self.subst(s, slot, name)
        fails, facts = [], []
        rc, watch = g['rc'], g['watch']
        if watch.killed:
            fails.append(watch.killed)
        wall = e.get('wall_s_max', DEFAULT_WALL_S)
        if g['elapsed'] > wall:
            fails.append(f'took {g["elapsed"]:.0f} s (bound {wall:g} s)')
        allowed = e.get('exit', [0, 1])
        allowed = [allowed] if isinstance(allowed, int) else allowed
        with open(g['err'], 'rb') as f:
            err = f.read(OUTPUT_CAP + 1)
        with open(g['out'], 'rb') as f:
            out = f.read(64 << 20)
        if rc < 0 and not watch.killed:
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
        # The report.
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
        texts = out + b'\n' + err + b'\n' + raw
        for s in dict.fromkeys([TOKEN] + [subst(x) for x in e.get('report_must_not_contain', [])]):
            if s.encode() in texts:
                where = [n for n, t in (('stdout', out), ('stderr', err), ('report', raw)) if s.encode() in t]
                fails.append(f'{s!r} in the {"/".join(where)}')
        for pattern in e.get('no_line_matching', []):
            rx = re.compile(pattern)
            for line in (out + b'\n' + err).decode(errors='replace').splitlines():
                if rx.search(line):
                    fails.append(f'a line matches {pattern!r}: {line.strip()[:80]!r}')
                    break
        if watch.peak_mb > e.get('max_rss_mb', MEM_CAP_MB) and not watch.killed:
            fails.append(f'its processes held {watch.peak_mb} MiB (at most {e["max_rss_mb"]:g})')
        if watch.peak_procs > e.get('max_processes', PROC_CAP) and not watch.killed:
            fails.append(f'{watch.peak_procs} processes at once (at most {e["max_processes"]})')
        # Processes left behind: seen in the tree, marked, or carrying the case's token.
        deadline = time.monotonic() + 2.0
        while True:
            left = set(watch.leftovers())
            marked = marked_processes([subst(m) for m in e.get('no_process', [])], g['token'])
            if (not left and not marked) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        if left or marked:
            pids = sorted(left | {p for p, _ in marked})
            what = [c for _, c in marked][:2] or [' '.join(read_text(f'/proc/{pids[0]}/cmdline', 200).replace(b'\0', b' ').decode(errors='replace').split())[:80]]
            fails.append(f'{len(pids)} process(es) outlived the grade ({"; ".join(what)})')
            kill_pids(pids)
        # Files: the course root, the submission, HOME, the working folder, named paths.
        after = {k: tree_digest(p) for k, p in (('course root', slot.root), ('submission', slot.sub),
                                                ('HOME', slot.home), ('working folder', slot.cwd))}
        changed_root = []
        for k, d in after.items():
            changes = digest_changes(before[k], d)
            if changes:
                fails.append(f'{k} changed: ' + ', '.join(changes))
                if k == 'course root':
                    changed_root = [os.fsdecode(x) for x in set(before[k]) ^ set(d) | {x for x in d if before[k].get(x) != d[x]}]
        for p in e.get('paths_absent', []):
            p = subst(p)
            if os.path.lexists(p):
                fails.append(f'{p} exists')
                if p.startswith('/tmp/adv-') or p.startswith(slot.home + '/'):
                    remove_entry(p)
        conns = self.listener.connections(name, g['started'], g['ended'])
        if conns:
            fails.append(f'{len(conns)} connection(s) reached 127.0.0.1:{self.listener.port} ({conns[0][:40]!r})')
        facts.append(f'exit {rc}')
        not_passed = [i for i, s in status.items() if s != 'pass']
        facts.append(('not passed: ' + ', '.join(not_passed)) if not_passed else ('all items passed' if status else 'no report'))
        facts.append(f'{g["elapsed"]:.1f} s, peak {watch.peak_mb} MiB, {watch.peak_procs} processes')
        return fails, facts, changed_root

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
            self.build_submission(slot, name, folder, case, files)
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
                    if self.subst(canary, slot, name).encode() in data:
                        problems.append(f'{canary!r} is in the submission\'s own {os.fsdecode(raw)}')
        if problems:
            self.say(f'FAIL {name} {case.get("class", "?")}: ' + '; '.join(problems))
            return False
        if case.get('pre_grade') == 'solutions':
            pre = {'lesson': case['lesson'], 'class': 'control', 'expect': {'exit': 0, 'passed': ['*']}}
            try:
                self.build_submission(slot, name + '.pre', folder, pre, files)
            except (OSError, ValueError, KeyError) as x:
                problems.append(f'cannot build the pre-grade submission: {x}')
            if not problems:
                before = {k: tree_digest(p) for k, p in (('course root', slot.root), ('submission', slot.sub),
                                                         ('HOME', slot.home), ('working folder', slot.cwd))}
                g = self.grade(slot, name + '.pre', pre, True, DEFAULT_WALL_S)
                pre_fails, _, _ = self.check(slot, name + '.pre', pre, g, before)
                if pre_fails:
                    problems.append('the solutions graded first did not pass: ' + '; '.join(pre_fails))
                else:
                    self.build_submission(slot, name, folder, case, files)
            if problems:
                self.say(f'FAIL {name} {case.get("class", "?")}: ' + '; '.join(problems))
                return False
        before = {k: tree_digest(p) for k, p in (('course root', slot.root), ('submission', slot.sub),
                                                 ('HOME', slot.home), ('working folder', slot.cwd))}
        g = self.grade(slot, name, case, True, e.get('wall_s_max', DEFAULT_WALL_S))
        fails, facts, changed_root = self.check(slot, name, case, g, before)
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
        self.build_submission(slot, 'control', '', case, files)
        before = {k: tree_digest(p) for k, p in (('course root', slot.root), ('submission', slot.sub),
                                                 ('HOME', slot.home), ('working folder', slot.cwd))}
        for attempt in range(2):  # a cold build on a busy machine may run out of time once
            g = self.grade(slot, 'control', case, False, WARMUP_WALL_S)
            fails, facts, _ = self.check(slot, 'control', case, g, before)
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
        work = self.args.work or tempfile.mkdtemp(prefix='grader-adversarial-')
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
