"""Files of the adversarial suite: digests that tell whether an attack changed a folder,
and the sync that keeps each slot's private course copy (and so its grading tree) warm."""
import hashlib
import os
import shutil
import stat

COPY_EXCLUDE = {'.git', '.cache', '.gpu-deps', '.gpu-mutants'}


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

