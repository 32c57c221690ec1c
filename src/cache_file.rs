//! The binary files a build keeps in the cache folder for the next one (its link rewrites,
//! what it published, its search index): a magic line, then fields, each variable-length
//! one preceded by its length, and a checksum last, so that a damaged or foreign file is
//! never used.

/// Builds a cache file's bytes.
pub(crate) struct Writer(Vec<u8>);

impl Writer {
    pub(crate) fn new(magic: &[u8]) -> Writer {
        Writer(magic.to_vec())
    }

    /// A writer with room for about `bytes` of fields: a file of tens of megabytes is not
    /// grown by doubling (each step holding the old bytes and the new at once).
    pub(crate) fn with_room(magic: &[u8], bytes: usize) -> Writer {
        let mut out = Vec::with_capacity(magic.len() + bytes + 16);
        out.extend_from_slice(magic);
        Writer(out)
    }

    pub(crate) fn u32(&mut self, n: u32) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    /// How many bytes are written so far: where the next field starts.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// Puts `n` at `at`, over a `u64` written there before (a count known only at the end).
    pub(crate) fn put_u64(&mut self, at: usize, n: u64) {
        self.0[at..at + 8].copy_from_slice(&n.to_le_bytes());
    }

    pub(crate) fn u64(&mut self, n: u64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    pub(crate) fn i64(&mut self, n: i64) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    pub(crate) fn u128(&mut self, n: u128) {
        self.0.extend_from_slice(&n.to_le_bytes());
    }

    /// Fixed-size bytes, such as a hash.
    pub(crate) fn raw(&mut self, bytes: &[u8]) {
        self.0.extend_from_slice(bytes);
    }

    /// Bytes preceded by their length.
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.u32(u32::try_from(bytes.len()).expect("a cache field under 4 GiB"));
        self.0.extend_from_slice(bytes);
    }

    /// One entry of a file of stamped entries: a path, its fixed-size stamp and what is kept
    /// for it (read back with `Reader::stamped_entries`).
    pub(crate) fn stamped_entry(&mut self, path: &str, stamp: &[u8], kept: &[u8]) {
        self.bytes(path.as_bytes());
        self.raw(stamp);
        self.bytes(kept);
    }

    /// The fields alone, without a magic line or checksum: a part of a file that is checked
    /// whole (read back with `Reader::fields`).
    pub(crate) fn fields(magic_free: Writer) -> Vec<u8> {
        magic_free.0
    }

    /// The file's bytes, checksum last.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        let sum = xxhash_rust::xxh3::xxh3_128(&self.0);
        self.0.extend_from_slice(&sum.to_le_bytes());
        self.0
    }
}

/// Whether the file at `path` starts with `magic` and then `key`: read before the whole
/// file, which is megabytes and checksummed, when a build would use it only under `key`.
pub(crate) fn starts_with_key(path: &std::path::Path, magic: &[u8], key: u128) -> bool {
    use std::io::Read;
    let mut head = vec![0u8; magic.len() + 16];
    let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
    read.is_ok() && head[..magic.len()] == *magic && head[magic.len()..] == key.to_le_bytes()
}

/// Stamped entries by path: each one's stamp and what is kept for it, still in the file.
pub(crate) type StampedEntries<'a> = std::collections::HashMap<&'a str, (&'a [u8], &'a [u8])>;

/// Reads a cache file's fields in order.
pub(crate) struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    /// The fields of `bytes`, if they start with `magic` and their checksum holds.
    pub(crate) fn open(bytes: &'a [u8], magic: &[u8]) -> Option<Reader<'a>> {
        let (body, sum) = bytes.split_at_checked(bytes.len().checked_sub(16)?)?;
        if xxhash_rust::xxh3::xxh3_128(body).to_le_bytes() != sum {
            return None;
        }
        body.strip_prefix(magic).map(Reader)
    }

    /// The fields of a part of a file already checked whole (`Writer::fields`).
    pub(crate) fn fields(bytes: &'a [u8]) -> Reader<'a> {
        Reader(bytes)
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many bytes are left to read.
    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn raw(&mut self, n: usize) -> Option<&'a [u8]> {
        let (head, tail) = self.0.split_at_checked(n)?;
        self.0 = tail;
        Some(head)
    }

    pub(crate) fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.raw(4)?.try_into().ok()?))
    }

    pub(crate) fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.raw(8)?.try_into().ok()?))
    }

    pub(crate) fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.raw(8)?.try_into().ok()?))
    }

    pub(crate) fn u128(&mut self) -> Option<u128> {
        Some(u128::from_le_bytes(self.raw(16)?.try_into().ok()?))
    }

    pub(crate) fn bytes(&mut self) -> Option<&'a [u8]> {
        let len = self.u32()? as usize;
        self.raw(len)
    }

    /// The rest of the file as stamped entries (`Writer::stamped_entry`) with stamps of
    /// `stamp_len` bytes, by path, after their count; `None` unless they read whole. The
    /// count is only a hint: it never sizes a table beyond what the bytes left can hold.
    pub(crate) fn stamped_entries(mut self, stamp_len: usize) -> Option<StampedEntries<'a>> {
        let count = usize::try_from(self.u64()?).ok()?;
        let mut entries =
            std::collections::HashMap::with_capacity(count.min(self.len() / (stamp_len + 8)));
        while !self.is_empty() {
            let path = std::str::from_utf8(self.bytes()?).ok()?;
            let stamp = self.raw(stamp_len)?;
            entries.insert(path, (stamp, self.bytes()?));
        }
        Some(entries)
    }

    pub(crate) fn string(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_come_back_and_damage_is_refused() {
        let mut w = Writer::new(b"test-1\n");
        w.u32(7);
        w.bytes(b"seven");
        w.u128(u128::MAX - 1);
        w.i64(-3);
        let bytes = w.finish();
        let mut r = Reader::open(&bytes, b"test-1\n").unwrap();
        assert_eq!(r.u32(), Some(7));
        assert_eq!(r.string().as_deref(), Some("seven"));
        assert_eq!(r.u128(), Some(u128::MAX - 1));
        assert_eq!(r.i64(), Some(-3));
        assert!(r.is_empty() && r.u32().is_none());
        assert!(Reader::open(&bytes, b"test-2\n").is_none());
        let mut damaged = bytes.clone();
        damaged[9] ^= 1;
        assert!(Reader::open(&damaged, b"test-1\n").is_none());
        assert!(Reader::open(&bytes[..10], b"test-1\n").is_none());
    }
}
