//! Trace events as the engine takes them: the raw, already decompressed chunks of a memtwin
//! trace (python/memtwin/trace.py documents the file), pulled one chunk at a time from a
//! [`ChunkSource`] the caller (the binding, fed by Python) implements. The engine does no I/O and
//! holds one chunk: memory stays flat in the trace's length. Decoding reads fixed 32-byte
//! little-endian records in place and allocates nothing.
//!
//! The scheduler runs a trace task's events from a [`TraceCursor`] (sched/replay.rs); a
//! scenario never expands a trace into ops.

/// Bytes per event record: `<QQQIHBB`: time ns, offset, length, pid, file, op, flags.
pub const EVENT_SIZE: usize = 32;
/// `file` of an event that names no file.
pub const NO_FILE: u16 = 0xffff;

/// What an event does (codes as in python/memtwin/trace.py `OPS`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceOp {
    /// `open` (see python/memtwin/trace.py).
    Open,
    /// `close` (see python/memtwin/trace.py).
    Close,
    /// `read` (see python/memtwin/trace.py).
    Read,
    /// `write` (see python/memtwin/trace.py).
    Write,
    /// `lseek` (see python/memtwin/trace.py).
    Lseek,
    /// `mmap` (see python/memtwin/trace.py).
    Mmap,
    /// `munmap` (see python/memtwin/trace.py).
    Munmap,
    /// `madvise` (see python/memtwin/trace.py).
    Madvise,
    /// `fadvise` (see python/memtwin/trace.py).
    Fadvise,
    /// `fsync` (see python/memtwin/trace.py).
    Fsync,
    /// `fdatasync` (see python/memtwin/trace.py).
    Fdatasync,
    /// `truncate` (see python/memtwin/trace.py).
    Truncate,
    /// `rename` (see python/memtwin/trace.py).
    Rename,
    /// `unlink` (see python/memtwin/trace.py).
    Unlink,
    /// `mkdir` (see python/memtwin/trace.py).
    Mkdir,
    /// `fork` (see python/memtwin/trace.py).
    Fork,
    /// `exit` (see python/memtwin/trace.py).
    Exit,
    /// `anonmmap` (see python/memtwin/trace.py).
    AnonMmap,
    /// `touch` (see python/memtwin/trace.py).
    Touch,
    /// `map`: a file or anonymous mapping, numbered as trace.py documents.
    Map,
    /// `unmap`: a range of a numbered mapping, or its last range.
    Unmap,
    /// `fault`: a page fault on a numbered mapping.
    Fault,
    /// `map_advise`: madvise() on a range of a numbered mapping.
    MapAdvise,
    /// `access` (format 2): a sampled touch of a page of a numbered mapping (a user
    /// instruction pointer the recorder sampled): the CPU's access through the page's PTE.
    Access,
}

impl TraceOp {
    fn from_code(c: u8) -> Option<TraceOp> {
        use TraceOp::*;
        Some(match c {
            1 => Open,
            2 => Close,
            3 => Read,
            4 => Write,
            5 => Lseek,
            6 => Mmap,
            7 => Munmap,
            8 => Madvise,
            9 => Fadvise,
            10 => Fsync,
            11 => Fdatasync,
            12 => Truncate,
            13 => Rename,
            14 => Unlink,
            15 => Mkdir,
            16 => Fork,
            17 => Exit,
            18 => AnonMmap,
            19 => Touch,
            20 => Map,
            21 => Unmap,
            22 => Fault,
            23 => MapAdvise,
            24 => Access,
            _ => return None,
        })
    }
}

/// One decoded event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceEvent {
    /// Nanoseconds since the trace's start.
    pub t_ns: u64,
    /// Byte offset in the file (or mapping).
    pub offset: u64,
    /// Bytes.
    pub length: u64,
    /// Recorded process id.
    pub pid: u32,
    /// Index into the trace header's files, `None` for none.
    pub file: Option<u16>,
    /// What it does.
    pub op: TraceOp,
    /// Op-specific flags.
    pub flags: u8,
}

/// A defect in a chunk, with the event's index in the trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceError {
    /// A chunk whose length is not a whole number of events.
    RaggedChunk {
        /// The chunk's length.
        bytes: usize,
    },
    /// The source could not give the next chunk (the caller's message names the place: file,
    /// chunk, byte offset, and the fix).
    Source(String),
    /// An op code this engine does not know.
    UnknownOp {
        /// Index of the event in the trace.
        event: u64,
        /// Its op code.
        code: u8,
    },
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TraceError::RaggedChunk { bytes } => write!(f, "a chunk of {bytes} bytes is not a whole number of {EVENT_SIZE}-byte events"),
            TraceError::UnknownOp { event, code } => write!(f, "event {event} has the unknown op code {code}"),
            TraceError::Source(m) => f.write_str(m),
        }
    }
}

/// Where chunks come from: the caller reads and decompresses, the engine decodes. `next_chunk`
/// fills `buf` (cleared by the caller's implementation) and returns false at the end; an `Err`
/// is a defect of the trace, its message naming the place and the fix.
pub trait ChunkSource {
    /// Put the next chunk's raw events in `buf`; false at the end.
    fn next_chunk(&mut self, buf: &mut Vec<u8>) -> Result<bool, String>;
    /// Start over at the trace's first chunk (the next loop of a `loops` replay).
    fn rewind(&mut self) -> Result<(), String>;
}

impl ChunkSource for Box<dyn ChunkSource> {
    fn next_chunk(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        (**self).next_chunk(buf)
    }
    fn rewind(&mut self) -> Result<(), String> {
        (**self).rewind()
    }
}

/// Chunks already in memory (tests, small traces).
pub struct VecChunks {
    chunks: Vec<Vec<u8>>,
    next: usize,
}

impl VecChunks {
    /// These chunks, in order.
    pub fn new(chunks: Vec<Vec<u8>>) -> Self {
        VecChunks { chunks, next: 0 }
    }
}

impl ChunkSource for VecChunks {
    fn next_chunk(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        match self.chunks.get(self.next) {
            Some(c) => {
                buf.clear();
                buf.extend_from_slice(c);
                self.next += 1;
                Ok(true)
            }
            None => Ok(false),
        }
    }
    fn rewind(&mut self) -> Result<(), String> {
        self.next = 0;
        Ok(())
    }
}

/// Pulls events from a [`ChunkSource`], one chunk held at a time; the buffer is reused, so
/// after the first chunk of the largest size nothing is allocated.
pub struct TraceCursor<S: ChunkSource> {
    source: S,
    buf: Vec<u8>,
    pos: usize,
    done: bool,
    /// Events handed out so far.
    pub events: u64,
}

impl<S: ChunkSource> TraceCursor<S> {
    /// A cursor at the trace's first event.
    pub fn new(source: S) -> Self {
        TraceCursor { source, buf: Vec::new(), pos: 0, done: false, events: 0 }
    }

    /// The next event, `Ok(None)` at the end.
    pub fn next_event(&mut self) -> Result<Option<TraceEvent>, TraceError> {
        while self.pos >= self.buf.len() {
            let more = if self.done { false } else { self.source.next_chunk(&mut self.buf).map_err(|m| { self.done = true; TraceError::Source(m) })? };
            if !more {
                self.done = true;
                self.buf.clear();
                self.pos = 0;
                return Ok(None);
            }
            self.pos = 0;
            if !self.buf.len().is_multiple_of(EVENT_SIZE) {
                self.done = true;
                return Err(TraceError::RaggedChunk { bytes: self.buf.len() });
            }
        }
        let r = &self.buf[self.pos..self.pos + EVENT_SIZE];
        let u64_at = |i: usize| u64::from_le_bytes(r[i..i + 8].try_into().unwrap());
        let file = u16::from_le_bytes([r[28], r[29]]);
        let code = r[30];
        let op = TraceOp::from_code(code).ok_or(TraceError::UnknownOp { event: self.events, code })?;
        let ev = TraceEvent {
            t_ns: u64_at(0),
            offset: u64_at(8),
            length: u64_at(16),
            pid: u32::from_le_bytes(r[24..28].try_into().unwrap()),
            file: if file == NO_FILE { None } else { Some(file) },
            op,
            flags: r[31],
        };
        self.pos += EVENT_SIZE;
        self.events += 1;
        Ok(Some(ev))
    }

    /// Back to the trace's first event (the source starts over); `events` keeps counting.
    pub fn rewind(&mut self) -> Result<(), TraceError> {
        self.source.rewind().map_err(TraceError::Source)?;
        self.buf.clear();
        self.pos = 0;
        self.done = false;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(t: u64, off: u64, len: u64, pid: u32, file: u16, op: u8) -> Vec<u8> {
        let mut v = Vec::with_capacity(EVENT_SIZE);
        v.extend_from_slice(&t.to_le_bytes());
        v.extend_from_slice(&off.to_le_bytes());
        v.extend_from_slice(&len.to_le_bytes());
        v.extend_from_slice(&pid.to_le_bytes());
        v.extend_from_slice(&file.to_le_bytes());
        v.push(op);
        v.push(0);
        v
    }

    #[test]
    fn decodes_across_chunks_and_ends() {
        let a = [rec(0, 0, 4096, 7, 0, 3), rec(10, 4096, 4096, 7, 0, 3)].concat();
        let b = rec(20, 0, 0, 7, NO_FILE, 17);
        let mut c = TraceCursor::new(VecChunks::new(vec![a, Vec::new(), b]));
        let e = c.next_event().unwrap().unwrap();
        assert_eq!(e, TraceEvent { t_ns: 0, offset: 0, length: 4096, pid: 7, file: Some(0), op: TraceOp::Read, flags: 0 });
        assert_eq!(c.next_event().unwrap().unwrap().offset, 4096);
        let e = c.next_event().unwrap().unwrap();
        assert_eq!((e.op, e.file), (TraceOp::Exit, None));
        assert_eq!(c.next_event().unwrap(), None);
        assert_eq!(c.next_event().unwrap(), None);
        assert_eq!(c.events, 3);
    }

    /// Format 2's `access` (op 24) decodes with its mapping number, offset, length and flags.
    #[test]
    fn decodes_an_access() {
        let mut a = rec(5, 8192, 4096, 7, 3, 24);
        a[31] = 1;
        let mut c = TraceCursor::new(VecChunks::new(vec![a]));
        assert_eq!(c.next_event().unwrap().unwrap(), TraceEvent { t_ns: 5, offset: 8192, length: 4096, pid: 7, file: Some(3), op: TraceOp::Access, flags: 1 });
    }

    #[test]
    fn defects_are_named() {
        let mut c = TraceCursor::new(VecChunks::new(vec![vec![0u8; 33]]));
        assert_eq!(c.next_event(), Err(TraceError::RaggedChunk { bytes: 33 }));
        let mut c = TraceCursor::new(VecChunks::new(vec![rec(0, 0, 0, 1, 0, 99)]));
        assert_eq!(c.next_event(), Err(TraceError::UnknownOp { event: 0, code: 99 }));
    }

    #[test]
    fn decodes_a_million_events() {
        // 1e6 events in chunks of 65536, as the Python writer makes them.
        let one = rec(1, 4096, 4096, 1, 0, 3);
        let chunk: Vec<u8> = one.iter().copied().cycle().take(EVENT_SIZE * 65536).collect();
        let mut chunks = Vec::new();
        for _ in 0..16 {
            chunks.push(chunk.clone());
        }
        let mut c = TraceCursor::new(VecChunks::new(chunks));
        let mut bytes = 0u64;
        while let Some(e) = c.next_event().unwrap() {
            bytes += e.length;
        }
        assert_eq!(bytes, 16 * 65536 * 4096);
    }
}
