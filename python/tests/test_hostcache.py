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
                      "bytes_after", "bytes_dropped", "method", "top", "errors", "error", "target"}
    assert j["error"] is None and j["target"] is None
    assert j["bytes_dropped"] == j["bytes_before"] - j["bytes_after"] == 3 * 2 * MIB
    assert len(j["top"]) == 3


# ---------------------------------------------------------------------------------------------
# The command line: `memtwin cached` / `memtwin evict` with bad or unusual paths


def _cli(capsys, *args):
    from conftest import cli_run

    return cli_run(capsys, *args)


@pytest.mark.parametrize("cmd", ["cached", "evict"])
def test_a_missing_path_among_several_is_reported_and_fails_after_the_others(tree, tmp_path, capsys, cmd):
    root, files, _ = tree
    missing = str(tmp_path / "nope")
    code, out, err = _cli(capsys, cmd, missing, root, "--top", "0")
    assert code == 1, (out, err)
    assert f"{missing}: error: no such file or directory" in err
    assert "  fix: " in err
    assert f"{root}: 3 files" in out, "the other path was still done"
    assert "1 of 2 paths could not be" in err
    if cmd == "evict":
        assert _resident(files["a"]) == 0


@pytest.mark.parametrize("cmd", ["cached", "evict"])
def test_every_missing_path_is_named_and_json_says_so(tmp_path, capsys, cmd):
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    code, out, err = _cli(capsys, cmd, a, b, "--json")
    assert code == 1
    assert f"{a}: error: no such file or directory" in err and f"{b}: error: no such file or directory" in err
    trees = json.loads(out)["trees"]
    assert [t["error"] for t in trees] == ["no such file or directory"] * 2


def test_a_symlink_named_on_the_command_line_is_followed_and_said_so(tree, tmp_path, capsys):
    root, files, outside = tree
    link = str(tmp_path / "to-tree")
    os.symlink(root, link)
    code, out, err = _cli(capsys, "evict", link, "--top", "0")
    assert code == 0, err
    assert f"{link} -> {root}: 3 files" in out, out
    assert "1 special files" in out, "the fifo below it; the link itself is followed, not counted"
    assert _resident(files["a"]) == 0 and _resident(files["b"]) == 0
    assert _resident(outside) == MIB // hostcache.PAGE, "symlinks below it are still not followed"
    flink = str(tmp_path / "to-file")
    os.symlink(outside, flink)
    code, out, err = _cli(capsys, "cached", flink, "--json")
    t = json.loads(out)["trees"][0]
    assert code == 0 and t["files"] == 1 and t["special_files"] == 0 and t["target"] == outside


def test_a_dangling_symlink_is_an_error_naming_its_target(tmp_path, capsys):
    link = str(tmp_path / "dangling")
    os.symlink(str(tmp_path / "gone"), link)
    code, out, err = _cli(capsys, "cached", link)
    assert code == 1
    assert f"{link}: error: a symbolic link to {tmp_path / 'gone'}, which does not exist" in err
    assert "  fix: " in err


def test_a_special_file_on_the_command_line_is_named(tmp_path, capsys):
    fifo = str(tmp_path / "fifo")
    os.mkfifo(fifo)
    code, out, err = _cli(capsys, "cached", fifo)
    assert code == 0
    assert f"{fifo}: a named pipe (FIFO), not a regular file or directory: no page cache to report" in out


class _Bar:
    calls = []

    def __init__(self, label):
        self.label = label

    def __call__(self, done, total):
        _Bar.calls.append((self.label, done, total))

    def close(self):
        _Bar.calls.append((self.label, "close"))


@pytest.mark.parametrize("cmd", ["cached", "evict"])
def test_big_trees_show_progress_on_a_terminal(tmp_path, capsys, monkeypatch, cmd):
    root = tmp_path / "many"
    root.mkdir()
    for i in range(300):
        (root / f"f{i}").write_bytes(b"x")
    _Bar.calls = []
    import memtwin.progress

    monkeypatch.setattr(memtwin.progress, "Progress", _Bar)
    monkeypatch.setenv("MEMTWIN_PROGRESS", "1")
    code, out, err = _cli(capsys, cmd, str(root), "--json")
    assert code == 0
    assert _Bar.calls, "no progress was shown"
    assert _Bar.calls[-1] == (f"{cmd} {root}", "close")
    assert _Bar.calls[-2] == (f"{cmd} {root}", 300, 300)
    assert all(c[2] == 300 for c in _Bar.calls[:-1])
    # not on a terminal: nothing
    _Bar.calls = []
    monkeypatch.delenv("MEMTWIN_PROGRESS")
    code, out, err = _cli(capsys, cmd, str(root), "--json")
    assert code == 0 and _Bar.calls == []
