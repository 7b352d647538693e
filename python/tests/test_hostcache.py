"""`memtwin cached` and `memtwin evict` on real files of this machine's kernel."""

import json
import os
import shutil
import tempfile

import pytest

from memtwin import hostcache

MIB = 1 << 20


def _fill(path, size):
    with open(path, "wb") as f:
        f.write(os.urandom(size))
        f.flush()
        os.fsync(f.fileno())


def _read(path):
    with open(path, "rb") as f:
        while f.read(1 << 20):
            pass


@pytest.fixture
def tree():
    """A world-traversable tree on a disk file system (not tmpfs, where DONTNEED is ignored):
    two readable files, a file only root can read, a symlink out of the tree, a fifo."""
    base = tempfile.mkdtemp(prefix="memtwin-hostcache-", dir="/var/tmp")
    os.chmod(base, 0o755)
    root = os.path.join(base, "t")
    os.makedirs(os.path.join(root, "sub"))
    os.chmod(root, 0o755)
    os.chmod(os.path.join(root, "sub"), 0o755)
    files = {"a": os.path.join(root, "a"), "b": os.path.join(root, "sub", "b"), "secret": os.path.join(root, "secret")}
    for name, p in files.items():
        _fill(p, 2 * MIB)
        os.chmod(p, 0o600 if name == "secret" else 0o644)
    outside = os.path.join(base, "outside")
    _fill(outside, MIB)
    os.symlink(outside, os.path.join(root, "link"))
    os.mkfifo(os.path.join(root, "fifo"))
    for p in list(files.values()) + [outside]:
        _read(p)
    yield root, files, outside
    shutil.rmtree(base)


def _resident(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        return hostcache.resident_pages(fd, os.fstat(fd).st_size)[0]
    finally:
        os.close(fd)


def test_cached_counts_resident_pages_per_tree(tree):
    root, files, outside = tree
    t = hostcache.cached(root, top=10)
    assert t.files == 3, "regular files only; the symlink is not followed"
    assert t.special == 1, "the fifo"
    pages = 2 * MIB // hostcache.PAGE
    assert t.pages_before == 3 * pages
    assert t.methods and t.methods <= {"cachestat", "mincore"}
    assert sorted(p for _, p in t.top) == sorted(files.values())
    assert all(n == pages for n, _ in t.top)


def test_mincore_agrees_with_cachestat(tree, monkeypatch):
    root, files, _ = tree
    with_default = hostcache.cached(root).pages_before
    monkeypatch.setattr(hostcache, "_cachestat_works", False)
    t = hostcache.cached(root)
    assert t.methods == {"mincore"}
    assert t.pages_before == with_default


def test_evict_drops_the_tree_and_leaves_what_is_outside(tree):
    root, files, outside = tree
    t = hostcache.evict(root)
    assert t.files == 3 and t.skipped == 0
    assert t.pages_before == 3 * 2 * MIB // hostcache.PAGE
    assert t.pages_after == 0
    assert all(_resident(p) == 0 for p in files.values())
    assert _resident(outside) == MIB // hostcache.PAGE, "the symlink's target is outside the tree"


def test_evict_sync_drops_dirty_pages_too(tree):
    root, files, _ = tree
    with open(files["a"], "r+b") as f:
        f.write(os.urandom(MIB))  # dirty, not yet written back
    t = hostcache.evict(root, sync=True)
    assert t.pages_after == 0
    assert _resident(files["a"]) == 0


def _evict_as_nobody(root):
    """Run evict() in a child that dropped root privileges; return its totals."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(r)
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
            out = json.dumps(hostcache.to_json(hostcache.evict(root))).encode()
            os.write(w, out)
        finally:
            os._exit(0)
    os.close(w)
    data = b""
    while chunk := os.read(r, 65536):
        data += chunk
    os.close(r)
    os.waitpid(pid, 0)
    return json.loads(data)


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to another user")
def test_files_the_caller_cannot_open_are_skipped_and_stay_cached(tree):
    root, files, _ = tree
    t = _evict_as_nobody(root)
    assert t["files"] == 2, t["errors"]
    assert t["skipped"] == 1
    assert any("secret" in e and "ermission" in e for e in t["errors"])
    assert _resident(files["secret"]) == 2 * MIB // hostcache.PAGE, "skipped: still resident"
    assert _resident(files["a"]) == 0 and _resident(files["b"]) == 0


def test_missing_path_is_counted_not_fatal(tmp_path):
    t = hostcache.cached(str(tmp_path / "nope"))
    assert t.files == 0 and t.skipped == 1
    assert "No such file" in t.errors[0]


def test_a_single_file_works(tree):
    _, files, _ = tree
    t = hostcache.evict(files["a"])
    assert t.files == 1 and t.pages_after == 0


def test_json_layout(tree):
    root, _, _ = tree
    j = hostcache.to_json(hostcache.evict(root, top=5))
    assert set(j) == {"path", "files", "skipped", "special_files", "pages_before", "pages_after", "bytes_before",
                      "bytes_after", "bytes_dropped", "method", "top", "errors"}
    assert j["bytes_dropped"] == j["bytes_before"] - j["bytes_after"] == 3 * 2 * MIB
    assert len(j["top"]) == 3
