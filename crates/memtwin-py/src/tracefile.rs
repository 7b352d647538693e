//! A trace file (.mtt, python/memtwin/trace.py documents it) read for the engine in a thread of
//! the binding: each chunk is read, decompressed (zstd) and CRC-checked ahead while the engine
//! runs the one before, and handed over through a channel of [`AHEAD`] chunks; buffers go back
//! to the reader to be reused, so memory stays flat in the trace's length. A defect is reported
//! as memtwin.trace.Reader reports it: `PATH:OFFSET: error: chunk K (from event E): WHAT` and a fix.
//! The header was read and checked in Python before the run.

use memtwin_engine::trace::ChunkSource;
use std::io::Read;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// Chunks decoded ahead of the engine.
const AHEAD: usize = 2;
const EVENT: usize = memtwin_engine::trace::EVENT_SIZE;
/// The op code of `access` (format 2).
const ACCESS_OP: u8 = 24;

type Msg = Result<Vec<u8>, String>;

pub struct FileChunks {
    path: String,
    rx: Option<Receiver<Msg>>,
    back: Option<SyncSender<Vec<u8>>>,
    /// The buffer the engine last held, returned to the reader on the next call.
    done: bool,
}

impl FileChunks {
    pub fn new(path: String) -> Self {
        FileChunks { path, rx: None, back: None, done: false }
    }

    fn start(&mut self) {
        let (tx, rx) = sync_channel::<Msg>(AHEAD);
        let (btx, brx) = sync_channel::<Vec<u8>>(AHEAD + 2);
        let path = self.path.clone();
        std::thread::spawn(move || {
            if let Err(e) = read_all(&path, &tx, &brx) {
                let _ = tx.send(Err(e));
            }
        });
        self.rx = Some(rx);
        self.back = Some(btx);
        self.done = false;
    }
}

fn bad(path: &str, pos: u64, chunk: Option<(u64, u64)>, what: &str) -> String {
    let w = chunk.map(|(k, e)| format!("chunk {k} (from event {e}): ")).unwrap_or_default();
    format!("{path}:{pos}: error: {w}{what}\n  fix: the file is damaged or was cut short; re-record or re-import it")
}

fn read_all(path: &str, tx: &SyncSender<Msg>, back: &Receiver<Vec<u8>>) -> Result<(), String> {
    let f = std::fs::File::open(path).map_err(|e| format!("{path}: error: cannot open the trace ({e})\n  fix: check the path and its permissions"))?;
    let mut f = std::io::BufReader::with_capacity(1 << 20, f);
    let mut pre = [0u8; 16];
    f.read_exact(&mut pre).map_err(|_| bad(path, 0, None, "not a memtwin trace (too short)"))?;
    if &pre[..8] != b"MTWTRACE" {
        return Err(bad(path, 0, None, "not a memtwin trace (no MTWTRACE magic at byte 0)"));
    }
    // The format version (python/memtwin/trace.py READ_VERSIONS): 2 added `access` (op 24),
    // which a version-1 file cannot hold.
    let version = u16::from_le_bytes([pre[8], pre[9]]);
    if !(1..=2).contains(&version) {
        return Err(format!("{path}: error: trace format version {version}, this memtwin reads versions 1, 2\n  fix: use the memtwin that wrote it, or re-record/re-import it with this one"));
    }
    let hlen = u32::from_le_bytes(pre[12..16].try_into().unwrap()) as u64;
    std::io::copy(&mut (&mut f).take(hlen), &mut std::io::sink()).map_err(|e| bad(path, 16, None, &e.to_string()))?;
    let mut pos = 16 + hlen;
    let mut dec = zstd::bulk::Decompressor::new().map_err(|e| e.to_string())?;
    let mut z = Vec::new();
    let (mut k, mut total) = (0u64, 0u64);
    loop {
        let mut tag = [0u8; 2];
        if f.read_exact(&mut tag).is_err() {
            return Err(bad(path, pos, Some((k, total)), "truncated: the trace ends without its end record"));
        }
        if &tag == b"EN" {
            let mut rest = [0u8; 10];
            f.read_exact(&mut rest).map_err(|_| bad(path, pos, None, "the end record is truncated"))?;
            let n = u64::from_le_bytes(rest[2..10].try_into().unwrap());
            if n != total {
                return Err(bad(path, pos, None, &format!("the end record counts {n} events, the chunks hold {total}")));
            }
            return Ok(());
        }
        if &tag != b"CK" {
            return Err(bad(path, pos, Some((k, total)), &format!("expected a chunk, found bytes {tag:?}")));
        }
        let mut h = [0u8; 18];
        f.read_exact(&mut h).map_err(|_| bad(path, pos, Some((k, total)), "truncated inside a chunk header"))?;
        let u32_at = |i: usize| u32::from_le_bytes(h[i..i + 4].try_into().unwrap()) as usize;
        let (n, rawlen, zlen, crc) = (u32_at(2), u32_at(6), u32_at(10), u32_at(14) as u32);
        if rawlen != n * EVENT {
            return Err(bad(path, pos, Some((k, total)), &format!("chunk of {n} events says {rawlen} bytes")));
        }
        z.resize(zlen, 0);
        let got = read_up_to(&mut f, &mut z);
        if got < zlen {
            return Err(bad(path, pos, Some((k, total)), &format!("truncated: chunk of {zlen} bytes, {got} left in the file")));
        }
        let mut raw = back.try_recv().unwrap_or_default();
        raw.clear();
        raw.reserve(rawlen);
        match dec.decompress_to_buffer(&z, &mut raw) {
            Ok(m) if m == rawlen => {}
            _ => return Err(bad(path, pos, Some((k, total)), "the chunk does not decompress (zstd)")),
        }
        if crc32fast::hash(&raw) != crc {
            return Err(bad(path, pos, Some((k, total)), "the chunk fails its CRC check"));
        }
        if version < 2 {
            if let Some(e) = raw.chunks_exact(EVENT).position(|r| r[30] == ACCESS_OP) {
                return Err(format!(
                    "{path}:{pos}: error: chunk {k} (from event {total}): event {} is an `access`, which a version-1 trace cannot hold (access events came with version 2)\n  fix: the file's version field was altered, or a tool wrote it wrongly; re-record the trace",
                    total + e as u64
                ));
            }
        }
        pos += 20 + zlen as u64;
        total += n as u64;
        k += 1;
        if tx.send(Ok(raw)).is_err() {
            return Ok(()); // the engine stopped listening
        }
    }
}

fn read_up_to(f: &mut impl Read, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..]) {
            Ok(0) | Err(_) => break,
            Ok(m) => got += m,
        }
    }
    got
}

impl ChunkSource for FileChunks {
    fn next_chunk(&mut self, buf: &mut Vec<u8>) -> Result<bool, String> {
        if self.rx.is_none() {
            self.start();
        }
        if self.done {
            return Ok(false);
        }
        match self.rx.as_ref().expect("started").recv() {
            Ok(Ok(raw)) => {
                // Swap buffers: the engine keeps the new chunk, the reader gets the old one back.
                let old = std::mem::replace(buf, raw);
                if let Some(b) = &self.back {
                    let _ = b.try_send(old);
                }
                Ok(true)
            }
            Ok(Err(e)) => {
                self.done = true;
                Err(e)
            }
            Err(_) => {
                self.done = true;
                Ok(false)
            }
        }
    }

    fn rewind(&mut self) -> Result<(), String> {
        self.rx = None;
        self.back = None;
        self.start();
        Ok(())
    }
}
