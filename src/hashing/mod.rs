//! Hashing helpers every floor uses: SHA-256 digests as hex text and back, and the fast
//! field hasher behind page fingerprints and the manifest's cache key.

use xxhash_rust::xxh3::Xxh3;

mod tagged;

/// A SHA-256 from its 64 hex digits.
pub(crate) fn unhex(text: &str) -> Option<[u8; 32]> {
    if text.len() != 64 {
        return None;
    }
    // Called for every file of a warm archive: no parsing machinery.
    fn nibble(digit: u8) -> Option<u8> {
        match digit {
            b'0'..=b'9' => Some(digit - b'0'),
            b'a'..=b'f' => Some(digit - b'a' + 10),
            b'A'..=b'F' => Some(digit - b'A' + 10),
            _ => None,
        }
    }
    let mut out = [0u8; 32];
    for (byte, pair) in out.iter_mut().zip(text.as_bytes().chunks_exact(2)) {
        *byte = nibble(pair[0])? << 4 | nibble(pair[1])?;
    }
    Some(out)
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    // Called for every leaf and proof hash of the archive: no formatting machinery.
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut text = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        text.push(DIGITS[usize::from(b >> 4)] as char);
        text.push(DIGITS[usize::from(b & 15)] as char);
    }
    text
}

/// This casebook: its version, and its executable's size and time, since a rebuilt casebook
/// may render differently under the same version number.
pub(crate) fn casebook_identity() -> String {
    let exe = std::env::current_exe().and_then(std::fs::metadata);
    let stamp = exe.map(|m| (m.len(), m.modified().ok())).ok();
    format!("{} {stamp:?}", env!("CARGO_PKG_VERSION"))
}

/// Hashes fields, each with its length first so that no two sequences of fields hash alike.
#[derive(Default)]
pub(crate) struct Hasher {
    state: Xxh3,
    /// Serialised values are gathered here and hashed in one go.
    buffer: Vec<u8>,
}

impl Hasher {
    pub(crate) fn digest(&self) -> u128 {
        self.state.digest128()
    }

    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.state.update(&(bytes.len() as u64).to_le_bytes());
        self.state.update(bytes);
    }

    pub(crate) fn text(&mut self, text: &str) {
        self.bytes(text.as_bytes());
    }

    pub(crate) fn number(&mut self, number: u64) {
        self.state.update(&number.to_le_bytes());
    }

    /// A value as serde gives it (`tagged`): typed views serialise their fields in
    /// declaration order and their maps in key order, so the same value always gives the
    /// same bytes. A value that will not serialise counts as far as it went, then marked.
    pub(crate) fn serialized<T: serde::Serialize + ?Sized>(&mut self, value: &T) {
        let mut buffer = std::mem::take(&mut self.buffer);
        buffer.clear();
        if value.serialize(&mut tagged::Tagged(&mut buffer)).is_err() {
            buffer.push(0xfe);
        }
        self.bytes(&buffer);
        self.buffer = buffer;
    }

    /// Walks a template value. Not as JSON: tera's maps iterate in a different order in
    /// each process, so their entries are hashed in key order.
    pub(crate) fn value(&mut self, value: &tera::Value) {
        use tera::value::ValueKind as Kind;
        let kind = value.kind();
        let tag: u8 = match kind {
            Kind::Undefined => 0,
            Kind::None => 1,
            Kind::Bool => 2,
            Kind::String => 3,
            Kind::Array => 4,
            Kind::Map => 5,
            Kind::Bytes => 6,
            _ => 7,
        };
        self.state.update(&[tag]);
        match kind {
            Kind::Undefined | Kind::None => {}
            Kind::Bool => self
                .state
                .update(&[u8::from(value.as_bool() == Some(true))]),
            Kind::String => {
                // A safe string is not escaped: the same text renders differently.
                self.state.update(&[u8::from(value.is_safe())]);
                self.text(value.as_str().unwrap_or_default());
            }
            Kind::Array => {
                let items = value.as_array().unwrap_or_default();
                self.state.update(&(items.len() as u64).to_le_bytes());
                for item in items {
                    self.value(item);
                }
            }
            Kind::Map => {
                let mut entries: Vec<_> = value.as_map().into_iter().flatten().collect();
                entries.sort_unstable_by(|a, b| a.0.cmp(b.0));
                self.state.update(&(entries.len() as u64).to_le_bytes());
                for (key, item) in entries {
                    match key.as_str() {
                        Some(text) => self.text(text),
                        None => {
                            self.state.update(&[0xff]);
                            self.text(&key.to_string());
                        }
                    }
                    self.value(item);
                }
            }
            Kind::Bytes => self.bytes(value.as_bytes().unwrap_or_default()),
            // Numbers, and any kind a later tera adds, as serde gives them.
            _ => self.serialized(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{hex, unhex};

    #[test]
    fn hex_round_trips_and_bad_digits_are_refused() {
        let bytes: [u8; 32] = std::array::from_fn(|i| (i * 37 + 5) as u8);
        let text = hex(&bytes);
        assert_eq!(unhex(&text), Some(bytes));
        assert_eq!(unhex(&text.to_uppercase()), Some(bytes));
        assert_eq!(unhex(&text[..62]), None, "too short");
        assert_eq!(
            unhex(&format!("{}g0", &text[..62])),
            None,
            "not a hex digit"
        );
        assert_eq!(unhex(&format!("{}é", &text[..62])), None, "not ASCII");
    }
}
