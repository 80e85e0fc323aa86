"""One grade of the adversarial suite: the grader's command line, run under `grader dev
supervise` (the grader's own process handling: a session of its own, caps on the whole
process tree measured through /proc, what outlives the grade named and killed), and the
listener and process search that tell whether an attack got out."""
import json
import os
import signal
import socket
import subprocess
import threading
import time

from .files import remove_entry

TOKEN = 'sekrit-token-123'
BUILD_TIMEOUT_S = 30        # --build-timeout for the cases (the warm-up builds with the default)
DEFAULT_WALL_S = 120        # a case's wall-clock bound unless it states one
KILL_MARGIN_S = 10          # the supervisor kills a grade this long after its bound
MEM_CAP_MB = 8192           # it kills a grade holding more than this in all (Pss)
PROC_CAP = 3000             # ... or running more processes than this at once
LOW_MEMORY_MB = 2048        # ... or when the machine has less than this available
FILE_SIZE_CAP_MB = 2048     # RLIMIT_FSIZE for the grader and everything it starts
LINGER_S = 2                # how long the grade's processes may take to end after it
WARMUP_WALL_S = 1800        # the first grade of a tree builds everything
WARMUP_BUILD_TIMEOUT_S = 1500


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


def supervised(grader, argv, wall_s, verdict, **popen):
    """Runs argv under `grader dev supervise` with the suite's caps, its JSON line written to
    `verdict`; returns that JSON (grader/include/grader/commands/supervise.hpp) with `rc`
    added: the exit status, or minus the signal that ended it."""
    remove_entry(verdict)
    sup = [grader, 'dev', 'supervise', '--wall', str(wall_s), '--max-tree-mib', str(MEM_CAP_MB),
           '--max-processes', str(PROC_CAP), '--min-available-mib', str(LOW_MEMORY_MB),
           '--max-file-mib', str(FILE_SIZE_CAP_MB), '--linger', str(LINGER_S),
           # One word: an attack that looks through /proc for the grader's `--json FILE` (the
           # restricted level shows it the host's processes) must find the grader, not this.
           '--json=' + verdict, '--']
    status = subprocess.run(sup + argv, **popen).returncode
    try:
        with open(verdict, encoding='utf-8') as f:
            s = json.load(f)
    except (OSError, ValueError):
        s = {}
    if not s or s.get('spawn_error'):
        raise OSError(f'grader dev supervise exited {status}: {s.get("spawn_error") or "no verdict"}')
    s['rc'] = s['exit'] if s['exit'] is not None else -s['signal']
    return s


def killed_why(s):
    """Why the supervisor stopped the grade, as the suite reports it ('' when it did not)."""
    at = s['stopped_at']
    return {'': '',
            'memory': f'the runner killed the grade: its processes held {at:.0f} MiB (cap {MEM_CAP_MB} MiB)',
            'processes': f'the runner killed the grade: {at:.0f} processes at once (cap {PROC_CAP})',
            'low-memory': f'the runner killed the grade: the machine was down to {at:.0f} MiB available',
            'wall': f'the runner killed the grade after {at:.0f} s',
            }.get(s['stopped_by'], f'the runner was stopped ({s["stopped_by"]})')


def read_text(path, limit=4096):
    try:
        with open(path, 'rb') as f:
            return f.read(limit)
    except OSError:
        return b''


def kill_pids(pids):
    for sig in (signal.SIGSTOP, signal.SIGKILL):  # freeze first, so a fork bomb cannot outrun it
        for p in pids:
            try:
                os.kill(p, sig)
            except OSError:
                pass


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

