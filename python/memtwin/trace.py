"""memtwin's trace format (.mtt): recorded and imported workloads, binary and streamable.

Layout (all integers little-endian):

    magic    8 bytes  b"MTWTRACE"
    version  u16      FORMAT_VERSION; a reader takes READ_VERSIONS (1: before `access`
                      events existed; its traces load unchanged) and refuses any other
    reserved u16      0
    hlen     u32      length of the header
    header   hlen     UTF-8 JSON: source, host, kernel, created, files [{id, path, size,
                      resident}], plus anything the recorder or importer adds; `resident` lists
                      the page ranges [first page, pages] cached when the recording started
    chunks            each: b"CK", u16 0, u32 events, u32 raw_len, u32 zlen, u32 crc32(raw),
                      then zlen bytes of zstd; raw is `events` records of EVENT
    end               b"EN", u16 0, u64 total events (a file without it is truncated)

An event is EVENT = "<QQQIHBB" (32 bytes): time in ns since the trace's start, offset, length,
pid, file id (0xffff: none), op (OPS), flags; for the events on numbered mappings (`fault`,
`unmap`, `map_advise`, `access`) the file field holds the mapping's number. schema/trace-format.md
documents every op's fields. Fixed-size records keep decoding a copy (the engine
takes a chunk's raw bytes as they are); zstd makes them small on disk. A reader holds one chunk
at a time, so memory does not grow with the trace's length.
"""

from __future__ import annotations

import json
import os
import struct
import zlib

from . import jsonio

MAGIC = b"MTWTRACE"
# 2: adds `access` (op 24), a sampled touch of a mapped page; a version-1 trace has none.
FORMAT_VERSION = 2
READ_VERSIONS = (1, 2)
EVENT = struct.Struct("<QQQIHBB")
_PRE = struct.Struct("<8sHHI")
_CHUNK = struct.Struct("<2sHIIII")
_END = struct.Struct("<2sHQ")
NO_FILE = 0xFFFF
CHUNK_EVENTS = 65536

# Op codes; offset/length mean bytes of the file (or of the mapping for mm ops).
OPS = {
    "open": 1, "close": 2, "read": 3, "write": 4, "lseek": 5, "mmap": 6, "munmap": 7,
    "madvise": 8, "fadvise": 9, "fsync": 10, "fdatasync": 11, "truncate": 12, "rename": 13,
    "unlink": 14, "mkdir": 15, "fork": 16, "exit": 17, "anon_mmap": 18, "touch": 19,
    "map": 20, "unmap": 21, "fault": 22, "map_advise": 23, "access": 24,
}
# Numbered mappings (schema/trace-format.md): `map` takes the lowest number no live mapping
# holds; `fault`, `unmap`, `map_advise` and `access` name the mapping by that number in the file
# field.
MAP_SHARED, MAP_WRITE, MAP_EXEC = 1, 2, 4          # map flags
FAULT_WRITE, FAULT_MAJOR = 1, 2                    # fault flags
ACCESS_IP = 1                                      # access flag: a sampled instruction pointer
ACCESS_YOUNG = 2                                   # access flag: pages found young at a window's end
UNMAP_LAST = 1                                     # unmap flag: the mapping ends
OP_NAMES = {v: k for k, v in OPS.items()}


class TraceError(Exception):
    """A trace cannot be read or written; the message is `PLACE: error: WHAT` and `  fix: HOW`."""


def _zstd():
    try:
        import zstandard
    except ImportError:
        raise TraceError("memtwin: error: the Python package zstandard is missing (traces are zstd-compressed)\n"
                         "  fix: pip install zstandard") from None
    return zstandard


class Writer:
    """Collects events and writes a whole trace atomically on close: compressed chunks are
    spooled to an anonymous temporary file as they fill (memory stays flat in the trace's
    length), then header, chunks and end record go to a temporary file renamed into place, so an
    interrupted recording or import leaves no partial file."""

    def __init__(self, path: str, header: dict, level: int = 9):
        import tempfile

        jsonio.check_writable(path)
        self.path = path
        self.header = dict(header)
        self.header.setdefault("files", [])
        self._cctx = _zstd().ZstdCompressor(level=level)
        self._buf = bytearray()
        self._n = 0
        self._total = 0
        self._spool = tempfile.TemporaryFile(dir=os.path.dirname(os.path.abspath(path)))

    def add_raw(self, raw: bytes) -> None:
        """Add a whole chunk of already packed events (a multiple of EVENT.size bytes, at most
        CHUNK_EVENTS events), e.g. from numpy; pending single events are flushed first."""
        if len(raw) % EVENT.size or len(raw) > CHUNK_EVENTS * EVENT.size:
            raise ValueError(f"a raw chunk of {len(raw)} bytes is not 1..{CHUNK_EVENTS} events of {EVENT.size} bytes")
        self._flush()
        self._buf += raw
        self._n = len(raw) // EVENT.size
        self._flush()

    def add(self, t_ns: int, op: str | int, pid: int = 0, file: int = NO_FILE, offset: int = 0,
            length: int = 0, flags: int = 0) -> None:
        code = OPS[op] if isinstance(op, str) else op
        self._buf += EVENT.pack(t_ns, offset, length, pid, file, code, flags)
        self._n += 1
        if self._n == CHUNK_EVENTS:
            self._flush()

    def _flush(self) -> None:
        if not self._n:
            return
        raw = bytes(self._buf)
        z = self._cctx.compress(raw)
        self._spool.write(_CHUNK.pack(b"CK", 0, self._n, len(raw), len(z), zlib.crc32(raw)))
        self._spool.write(z)
        self._total += self._n
        self._buf.clear()
        self._n = 0

    def close(self) -> int:
        import shutil
        import tempfile

        self._flush()
        h = json.dumps(self.header, sort_keys=True).encode()
        parent = os.path.dirname(os.path.abspath(self.path))
        fd, tmp = tempfile.mkstemp(prefix=".memtwin-", suffix=".tmp", dir=parent)
        try:
            mask = os.umask(0)
            os.umask(mask)
            os.fchmod(fd, 0o666 & ~mask)
            with os.fdopen(fd, "wb") as f:
                f.write(_PRE.pack(MAGIC, FORMAT_VERSION, 0, len(h)) + h)
                self._spool.seek(0)
                shutil.copyfileobj(self._spool, f, 1 << 20)
                f.write(_END.pack(b"EN", 0, self._total))
            os.replace(tmp, self.path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        finally:
            self._spool.close()
        return self._total

    def abort(self) -> None:
        """Drop what was collected; nothing is written."""
        self._spool.close()


class Reader:
    """Reads a trace chunk by chunk. `header` is read at open; `chunks()` yields each chunk's raw
    event bytes (checked against its CRC), `events()` decoded tuples. Every defect raises
    TraceError naming the file and the byte offset."""

    def __init__(self, path: str):
        self.path = path
        try:
            self._f = open(path, "rb")
        except FileNotFoundError:
            raise TraceError(f"{path}: error: no such trace file\n  fix: check the path (memtwin record or memtwin import writes one)") from None
        except PermissionError:
            raise TraceError(f"{path}: error: permission denied\n  fix: make it readable (chmod a+r {path}) or run as its owner") from None
        except IsADirectoryError:
            raise TraceError(f"{path}: error: is a directory\n  fix: name the .mtt file") from None
        pre = self._f.read(_PRE.size)
        if len(pre) < _PRE.size or pre[:8] != MAGIC:
            self._f.close()
            raise TraceError(f"{path}: error: not a memtwin trace (no MTWTRACE magic at byte 0)\n"
                             "  fix: give a file written by memtwin record or memtwin import; other formats go through memtwin import")
        _, ver, _, hlen = _PRE.unpack(pre)
        if ver not in READ_VERSIONS:
            self._f.close()
            raise TraceError(f"{path}: error: trace format version {ver}, this memtwin reads versions "
                             f"{', '.join(map(str, READ_VERSIONS))}\n"
                             "  fix: use the memtwin that wrote it, or re-record/re-import it with this one")
        self.version = ver
        try:
            self.header = json.loads(self._f.read(hlen).decode())
        except (UnicodeDecodeError, ValueError):
            self._f.close()
            raise TraceError(f"{path}:{_PRE.size}: error: the trace header is corrupt (not JSON)\n"
                             "  fix: re-record or re-import the trace") from None
        self._data_start = _PRE.size + hlen
        self._events_before = 0

    def close(self) -> None:
        self._f.close()

    def __enter__(self):
        return self

    def __exit__(self, *a):
        self.close()

    def _bad(self, pos: int, what: str, chunk: int | None = None) -> TraceError:
        where = f"chunk {chunk} (from event {self._events_before}): " if chunk is not None else ""
        return TraceError(f"{self.path}:{pos}: error: {where}{what}\n  fix: the file is damaged or was cut short; re-record or re-import it")

    def event_count(self) -> int:
        """Events in the trace, from its end record (the file's last 12 bytes), without reading
        the chunks; TraceError if the file does not end with one."""
        f = self._f
        end = f.seek(0, 2)
        if end < self._data_start + _END.size:
            raise self._bad(end, "truncated: the trace ends without its end record")
        f.seek(end - _END.size)
        tag, _, n = _END.unpack(f.read(_END.size))
        if tag != b"EN":
            raise self._bad(end - _END.size, "truncated: the trace ends without its end record")
        return n

    def resident(self) -> list:
        """The page ranges resident when the recording started, as (file id, first page, pages):
        each header file's `resident` list of [first page, pages] (memtwin record's mincore
        snapshot)."""
        out = []
        for i, fe in enumerate(self.header.get("files", [])):
            for r in (fe.get("resident") or []) if isinstance(fe, dict) else []:
                try:
                    first, n = int(r[0]), int(r[1])
                    assert 0 <= first < 2**32 and 0 < n < 2**32
                except (TypeError, ValueError, IndexError, AssertionError):
                    raise TraceError(f"{self.path}:{_PRE.size}: error: the header's file {i} has a malformed resident range {r!r}\n"
                                     "  fix: resident ranges are [first page, pages]; re-record the trace") from None
                out.append((i, first, n))
        return out

    def files(self) -> list:
        """The header's files as (path, size) by id; a file of unknown size counts 0 bytes."""
        out = []
        for i, fe in enumerate(self.header.get("files", [])):
            if not isinstance(fe, dict) or fe.get("id", i) != i or not isinstance(fe.get("path"), str):
                raise TraceError(f"{self.path}:{_PRE.size}: error: the header's file {i} is malformed (needs id {i} and a path)\n"
                                 "  fix: re-record or re-import the trace")
            out.append((fe["path"], int(fe.get("size") or 0)))
        return out

    def chunks(self):
        f = self._f
        f.seek(self._data_start)
        dctx = _zstd().ZstdDecompressor()
        total = 0
        k = 0
        self._events_before = 0
        while True:
            pos = f.tell()
            tag = f.read(2)
            if tag == b"EN":
                rest = f.read(_END.size - 2)
                if len(rest) < _END.size - 2:
                    raise self._bad(pos, "the end record is truncated")
                _, n = struct.unpack("<HQ", rest)
                if n != total:
                    raise self._bad(pos, f"the end record counts {n} events, the chunks hold {total}")
                return
            if tag != b"CK":
                raise self._bad(pos, "truncated: the trace ends without its end record" if len(tag) < 2
                                else f"expected a chunk, found bytes {tag!r}", k)
            rest = f.read(_CHUNK.size - 2)
            if len(rest) < _CHUNK.size - 2:
                raise self._bad(pos, "truncated inside a chunk header", k)
            _, n, rawlen, zlen, crc = struct.unpack("<HIIII", rest)
            if rawlen != n * EVENT.size:
                raise self._bad(pos, f"chunk of {n} events says {rawlen} bytes", k)
            z = f.read(zlen)
            if len(z) < zlen:
                raise self._bad(pos, f"truncated: chunk of {zlen} bytes, {len(z)} left in the file", k)
            try:
                raw = dctx.decompress(z, max_output_size=rawlen)
            except Exception:
                raise self._bad(pos, "the chunk does not decompress (zstd)", k) from None
            if len(raw) != rawlen or zlib.crc32(raw) != crc:
                raise self._bad(pos, "the chunk fails its CRC check", k)
            if self.version < 2 and OPS["access"] in raw[30::EVENT.size]:
                raise TraceError(f"{self.path}:{pos}: error: chunk {k} (from event {total}): an `access` event in a "
                                 "version-1 trace (access events came with version 2)\n"
                                 "  fix: the file's version field was altered, or a tool wrote it wrongly; re-record the trace")
            total += n
            k += 1
            self._events_before = total
            yield raw

    def events(self):
        for raw in self.chunks():
            yield from EVENT.iter_unpack(raw)


def summary(path: str) -> dict:
    """Counts per op and the trace's duration, reading it once chunk by chunk."""
    counts: dict = {}
    last = 0
    n = 0
    with Reader(path) as r:
        for t, _off, _len, _pid, _file, op, _fl in r.events():
            name = OP_NAMES.get(op, f"op{op}")
            counts[name] = counts.get(name, 0) + 1
            last = t
            n += 1
        return {"events": n, "duration_ns": last, "ops": counts, "source": r.header.get("source"),
                "files": len(r.header.get("files", []))}


class Chunks:
    """A trace file as the engine pulls it (the binding calls `chunks()` once per loop): each
    call opens the file and yields its chunks' raw bytes, one held at a time."""

    def __init__(self, path: str):
        self.path = path

    def chunks(self):
        with Reader(self.path) as r:
            yield from r.chunks()
