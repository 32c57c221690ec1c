//! A minisign public key: how a site names the key its releases are signed with, read from
//! `casebook.toml`, a `.pub` file or the command line. A plain value on the ground floor, so
//! that the configuration can hold a checked key and `signing` can check signatures with it.

use std::path::Path;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;

use crate::error::{Diagnostic, Error, Result};

/// How minisign begins the comment line of its key and signature files.
pub(crate) const COMMENT_PREFIX: &str = "untrusted comment: ";

/// A minisign public key: its 8-byte key ID and the Ed25519 key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    pub(crate) keynum: [u8; 8],
    pub(crate) key: [u8; 32],
}

impl PublicKey {
    /// Reads a public key given as its base64 line (`RWQ…`) or as a whole minisign `.pub` file.
    pub fn parse(text: &str) -> std::result::Result<PublicKey, String> {
        let line = text
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty() && !l.starts_with(COMMENT_PREFIX))
            .unwrap_or_default();
        let bytes = BASE64
            .decode(line)
            .map_err(|_| "not a minisign public key (expected a base64 line such as RWQ…)")?;
        if bytes.len() != 42 || &bytes[..2] != b"Ed" {
            return Err("not a minisign Ed25519 public key (wrong length or algorithm)".into());
        }
        Ok(PublicKey {
            keynum: bytes[2..10].try_into().expect("8 bytes"),
            key: bytes[10..].try_into().expect("32 bytes"),
        })
    }

    /// Reads a public key file (`casebook.pub`, or any minisign `.pub` file).
    pub fn read(path: &Path) -> Result<PublicKey> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        PublicKey::parse(&text).map_err(|m| Error::one(Diagnostic::new(path, m)))
    }

    /// The base64 line, as written in `casebook.toml` and given to `minisign -P`.
    pub fn to_base64(&self) -> String {
        let mut bytes = b"Ed".to_vec();
        bytes.extend_from_slice(&self.keynum);
        bytes.extend_from_slice(&self.key);
        BASE64.encode(bytes)
    }

    /// The key ID as minisign prints it.
    pub fn id(&self) -> String {
        key_id(&self.keynum)
    }

    /// The public key file (`.well-known/casebook.pub`).
    pub(crate) fn file_text(&self) -> String {
        format!(
            "{COMMENT_PREFIX}minisign public key {}\n{}\n",
            self.id(),
            self.to_base64()
        )
    }
}

pub(crate) fn key_id(keynum: &[u8; 8]) -> String {
    format!("{:016X}", u64::from_le_bytes(*keynum))
}
