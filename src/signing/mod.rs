//! Signed releases: minisign keys, the signature of `manifest.json`, and checking it.
//!
//! The signature is a standard minisign signature (Ed25519 over the BLAKE2b-512 hash of
//! the manifest), so the stock `minisign -V` tool checks it. Its trusted comment, which the
//! signature also covers, carries the Merkle root of the manifest's files, the manifest's
//! SHA-256, the base URL and the release label: a verifier holding only the signature file
//! and the public key can trust the root, and through it any one case's proof.
//!
//! Signing is deterministic (Ed25519 without added randomness, and no clock time unless
//! asked for), so two signed builds of the same input are byte-identical.

use std::path::{Path, PathBuf};

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use blake2::{Blake2b512, Digest};
use ed25519_dalek::Signer;

use crate::error::{Diagnostic, Error, Result};
pub use crate::public_key::PublicKey;
use crate::public_key::{COMMENT_PREFIX, key_id};

/// The signature, beside the manifest.
pub(crate) const SIGNATURE_FILE: &str = "manifest.json.minisig";
/// Per-case Merkle proofs, packed into shards: `verify/proofs/<n>.json` and `index.json`.
pub(crate) const PROOFS_DIR: &str = crate::integrity::shards::DIR;
/// The roots of the Merkle tree's chunks, which lead every proof on to the root.
pub(crate) const CHUNKS_FILE: &str = "verify/chunks.json";
/// The files made after the manifest, which it therefore cannot list (with the proofs).
pub(crate) const UNLISTED_FILES: [&str; 3] = [
    crate::integrity::manifest::MANIFEST,
    SIGNATURE_FILE,
    CHUNKS_FILE,
];

/// Files that configure a host (`[hosting]`), which the host reads and does not serve: not
/// part of the archive, so not listed in the manifest, and not missed by `verify`.
pub(crate) const HOST_FILES: [&str; 2] = ["_headers", ".nojekyll"];

/// Whether a file at the top of a copy is left out of the manifest by design: made after it,
/// or the host's (`verify` does not report it as unlisted).
pub(crate) fn is_left_out(path: &str) -> bool {
    UNLISTED_FILES.contains(&path) || HOST_FILES.contains(&path) || is_token(path)
}

/// Whether a path is made after the manifest and so not listed in it.
pub(crate) fn is_unlisted(path: &str) -> bool {
    UNLISTED_FILES.contains(&path) || path.starts_with(PROOFS_DIR) || is_token(path)
}

/// A time-stamp authority's token over the signature (`manifest.json.minisig.1.tsr`).
fn is_token(path: &str) -> bool {
    crate::timestamp::is_token_file(SIGNATURE_FILE, path)
}

/// The site's public key, in minisign's `.pub` format.
pub(crate) const PUBLIC_KEY_FILE: &str = ".well-known/casebook.pub";
/// Where `casebook keygen DIR` puts the key pair.
pub(crate) const SECRET_KEY_NAME: &str = "casebook.key";
/// The public half, beside it.
pub(crate) const PUBLIC_KEY_NAME: &str = "casebook.pub";

const TRUSTED_PREFIX: &str = "trusted comment: ";
/// The trusted comment's first word: what the signature is for.
const RELEASE: &str = "casebook-release";

/// A secret key, decrypted, ready to sign.
#[derive(Clone)]
pub struct SigningKey {
    keynum: [u8; 8],
    key: ed25519_dalek::SigningKey,
    /// The file it was read from, for errors and the "outside the site" rule.
    pub(crate) file: PathBuf,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "SigningKey({}, {})",
            self.public().id(),
            self.file.display()
        )
    }
}

/// Whether a secret key file is password-protected; errors if it is not a secret key.
pub fn key_is_encrypted(path: &Path) -> Result<bool> {
    let (_, bytes) = read_secret_box(path)?;
    Ok(encrypted(&bytes))
}

/// Whether decoded secret key bytes name a key-derivation algorithm (a password).
fn encrypted(bytes: &[u8]) -> bool {
    bytes[2..4] != [0, 0]
}

fn not_a_key(path: &Path) -> Error {
    Error::one(
        Diagnostic::new(path, "not a minisign secret key").hint(
            "give the secret key file made by `casebook keygen` (casebook.key), not the public key or another file",
        ),
    )
}

/// The key file's text and its decoded key bytes.
fn read_secret_box(path: &Path) -> Result<(String, Vec<u8>)> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => not_a_key(path),
        _ => Error::io(path, e),
    })?;
    let mut lines = text.lines();
    let comment = lines.next().unwrap_or_default();
    let encoded = lines.next().unwrap_or_default().trim();
    match BASE64.decode(encoded) {
        // sig alg, kdf alg, checksum alg, salt, two limits, key ID, key, checksum.
        Ok(bytes) if comment.starts_with(COMMENT_PREFIX) && bytes.len() == 158 => {
            if &bytes[..2] != b"Ed" {
                return Err(not_a_key(path));
            }
            Ok((text, bytes))
        }
        _ => Err(not_a_key(path)),
    }
}

impl SigningKey {
    /// Reads and decrypts a secret key file; `password` is needed if the key has one.
    pub fn open(path: &Path, password: Option<&str>) -> Result<SigningKey> {
        let (text, bytes) = read_secret_box(path)?;
        let encrypted = encrypted(&bytes);
        let key = if encrypted {
            let Some(password) = password else {
                return Err(Error::one(
                    Diagnostic::new(path, "the secret key is password-protected and no password was given")
                        .hint("set CASEBOOK_KEY_PASSWORD, or run casebook on a terminal to be asked for it"),
                ));
            };
            minisign::SecretKey::from_box(text.into(), Some(password.to_string()))
        } else {
            minisign::SecretKey::from_unencrypted_box(text.into())
        };
        let key = key.map_err(|e| {
            let message = match e.kind() {
                minisign::ErrorKind::Verify if encrypted => {
                    "wrong password for this secret key".to_string()
                }
                _ => format!("cannot read the secret key: {e}"),
            };
            Error::one(Diagnostic::new(path, message))
        })?;
        let raw = key.to_bytes();
        let keynum: [u8; 8] = raw[54..62].try_into().expect("8 bytes");
        let seed: [u8; 32] = raw[62..94].try_into().expect("32 bytes");
        let key = ed25519_dalek::SigningKey::from_bytes(&seed);
        if key.verifying_key().to_bytes() != raw[94..126] {
            return Err(Error::one(Diagnostic::new(
                path,
                "the secret key is damaged: its two halves do not match",
            )));
        }
        Ok(SigningKey {
            keynum,
            key,
            file: path.to_path_buf(),
        })
    }

    /// The public half.
    pub fn public(&self) -> PublicKey {
        PublicKey {
            keynum: self.keynum,
            key: self.key.verifying_key().to_bytes(),
        }
    }

    /// The minisign signature file of `data` with this trusted comment. Deterministic.
    pub(crate) fn sign(&self, data: &[u8], trusted: &str) -> String {
        let prehash = Blake2b512::digest(data);
        let signature = self.key.sign(&prehash).to_bytes();
        let mut line = b"ED".to_vec();
        line.extend_from_slice(&self.keynum);
        line.extend_from_slice(&signature);
        let mut global = signature.to_vec();
        global.extend_from_slice(trusted.as_bytes());
        let global = self.key.sign(&global).to_bytes();
        format!(
            "{COMMENT_PREFIX}casebook release signature of manifest.json, key {}\n{}\n{TRUSTED_PREFIX}{trusted}\n{}\n",
            self.public().id(),
            BASE64.encode(line),
            BASE64.encode(global)
        )
    }
}

/// The key pair `casebook keygen` wrote.
#[derive(Debug)]
pub struct KeyFiles {
    /// The secret key (`DIR/casebook.key`).
    pub secret: PathBuf,
    /// The public key file (`DIR/casebook.pub`).
    pub public: PathBuf,
    /// The public key, for `casebook.toml`.
    pub public_key: PublicKey,
}

/// Writes a new key pair into `dir`: the secret key encrypted with `password`, or in the
/// clear with `None`. Refuses to overwrite a key, or to write into a site folder.
pub fn keygen(dir: &Path, password: Option<&str>) -> Result<KeyFiles> {
    let abs = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    if let Some(site) = abs
        .ancestors()
        .find(|a| a.join(crate::config::CONFIG_FILE).is_file())
    {
        return Err(Error::one(
            Diagnostic::new(dir, format!("refusing to write a secret key inside the site folder {}", site.display()))
                .hint("keep the secret key outside every site folder and repository, e.g. casebook keygen ~/casebook-keys"),
        ));
    }
    let secret = dir.join(SECRET_KEY_NAME);
    let public = dir.join(PUBLIC_KEY_NAME);
    for file in [&secret, &public] {
        if file.exists() {
            return Err(Error::one(
                Diagnostic::new(file, "a key already exists here; refusing to overwrite it")
                    .hint("choose another folder, or move the old key away first if you really mean to replace it"),
            ));
        }
    }
    let generate_failed = |e: minisign::PError| {
        Error::one(Diagnostic::new(dir, format!("cannot generate a key: {e}")))
    };
    let pair = match password {
        Some(p) => minisign::KeyPair::generate_encrypted_keypair(Some(p.to_string())),
        None => minisign::KeyPair::generate_unencrypted_keypair(),
    }
    .map_err(generate_failed)?;
    let secret_text = pair
        .sk
        .to_box(Some("casebook secret key: keep it outside the site folder"))
        .map_err(generate_failed)?
        .to_string();
    let public_key = PublicKey::parse(&pair.pk.to_base64()).expect("a fresh public key parses");
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    write_private(&secret, secret_text.as_bytes())?;
    std::fs::write(&public, public_key.file_text()).map_err(|e| Error::io(&public, e))?;
    Ok(KeyFiles {
        secret,
        public,
        public_key,
    })
}

/// Writes a file only its owner can read.
fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path).map_err(|e| Error::io(path, e))?;
    file.write_all(bytes).map_err(|e| Error::io(path, e))
}

/// What the signature vouches for: its trusted comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Release {
    pub(crate) merkle_root: String,
    pub(crate) manifest_sha256: String,
    pub(crate) base_url: String,
    pub(crate) timestamp: Option<String>,
    pub(crate) label: Option<String>,
}

impl Release {
    /// One line: `casebook-release merkle_root=… manifest_sha256=… base_url=…
    /// [timestamp=…] [label=…]`; the label comes last and may hold spaces.
    pub(crate) fn to_line(&self) -> String {
        let mut line = format!(
            "{RELEASE} merkle_root={} manifest_sha256={} base_url={}",
            self.merkle_root, self.manifest_sha256, self.base_url
        );
        if let Some(t) = &self.timestamp {
            line.push_str(&format!(" timestamp={t}"));
        }
        if let Some(l) = &self.label {
            line.push_str(&format!(" label={l}"));
        }
        line
    }

    pub(crate) fn parse(line: &str) -> Option<Release> {
        let rest = line.strip_prefix(RELEASE)?.strip_prefix(' ')?;
        let (fields, label) = match rest.split_once(" label=") {
            Some((f, l)) => (f, Some(l.to_string())),
            None => (rest, None),
        };
        let mut release = Release {
            merkle_root: String::new(),
            manifest_sha256: String::new(),
            base_url: String::new(),
            timestamp: None,
            label,
        };
        for field in fields.split(' ') {
            let (key, value) = field.split_once('=')?;
            match key {
                "merkle_root" => release.merkle_root = value.into(),
                "manifest_sha256" => release.manifest_sha256 = value.into(),
                "base_url" => release.base_url = value.into(),
                "timestamp" => release.timestamp = Some(value.into()),
                _ => {}
            }
        }
        (!release.merkle_root.is_empty() && !release.manifest_sha256.is_empty()).then_some(release)
    }
}

/// A signature file's parts: the 74-byte signature line (algorithm, key ID, signature), the
/// trusted comment (trimmed, as minisign reads it) and the 64-byte global signature.
fn signature_parts(text: &str) -> std::result::Result<(Vec<u8>, &str, Vec<u8>), String> {
    let lines: Vec<&str> = text.lines().collect();
    let parts = (|| {
        let sig = BASE64.decode(lines.get(1)?.trim()).ok()?;
        let trusted = lines.get(2)?.strip_prefix(TRUSTED_PREFIX)?.trim();
        let global = BASE64.decode(lines.get(3)?.trim()).ok()?;
        (sig.len() == 74 && global.len() == 64).then_some((sig, trusted, global))
    })();
    parts.ok_or_else(|| {
        "the signature file is not a complete minisign signature (cut off or damaged)".into()
    })
}

/// Checks a signature file against `data` (the manifest) and returns what it vouches for.
pub(crate) fn verify(
    key: &PublicKey,
    signature: &str,
    data: &[u8],
) -> std::result::Result<Release, String> {
    // Checked first: the minisign crate slices the global signature without looking.
    signature_parts(signature)?;
    let sig = minisign::SignatureBox::from_string(signature)
        .map_err(|e| format!("the signature file is not a minisign signature: {e}"))?;
    let pk = minisign::PublicKey::from_base64(&key.to_base64()).expect("a parsed key");
    if sig.keynum() != key.keynum {
        return Err(another_key(sig.keynum(), key));
    }
    minisign::verify(&pk, &sig, std::io::Cursor::new(data), true, false, false).map_err(|e| {
        match e.to_string().as_str() {
            m if m.contains("Comment signature") => {
                "the signature's trusted comment was changed after signing".to_string()
            }
            m if m.contains("Signature verification failed") => {
                "the signature does not match manifest.json: the manifest or the signature was changed".to_string()
            }
            m => format!("the signature does not verify ({m})"),
        }
    })?;
    let comment = sig.trusted_comment().unwrap_or_default();
    let release = Release::parse(comment.trim()).ok_or_else(|| {
        format!(
            "the signature is valid but its trusted comment is not a casebook release: `{comment}`"
        )
    })?;
    let sha256 = crate::hashing::hex(&sha2::Sha256::digest(data));
    if release.manifest_sha256 != sha256 {
        return Err(format!(
            "the signature is for another manifest (SHA-256 {}, this one is {sha256})",
            release.manifest_sha256
        ));
    }
    Ok(release)
}

fn another_key(signed_by: &[u8], key: &PublicKey) -> String {
    let signed_by: [u8; 8] = signed_by.try_into().unwrap_or_default();
    format!(
        "signed with another key (ID {}), not the one given (ID {})",
        key_id(&signed_by),
        key.id()
    )
}

/// Checks only the signature's trusted comment (`--case`: the manifest is not fetched).
pub(crate) fn verify_comment(
    key: &PublicKey,
    signature: &str,
) -> std::result::Result<Release, String> {
    let (sig, trusted, global) = signature_parts(signature)?;
    if sig[2..10] != key.keynum {
        return Err(another_key(&sig[2..10], key));
    }
    let verifying = ed25519_dalek::VerifyingKey::from_bytes(&key.key)
        .map_err(|_| "the public key is not a valid Ed25519 key")?;
    let global = ed25519_dalek::Signature::from_slice(&global)
        .map_err(|_| "the signature file is damaged")?;
    let mut signed = sig[10..].to_vec();
    signed.extend_from_slice(trusted.as_bytes());
    verifying
        .verify_strict(&signed, &global)
        .map_err(|_| "the signature's trusted comment does not verify with the key given")?;
    Release::parse(trusted)
        .ok_or_else(|| format!("the trusted comment is not a casebook release: `{trusted}`"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> SigningKey {
        let dir = tempfile::tempdir().unwrap();
        let files = keygen(dir.path(), None).unwrap();
        SigningKey::open(&files.secret, None).unwrap()
    }

    fn release() -> Release {
        Release {
            merkle_root: "ab".repeat(32),
            manifest_sha256: crate::hashing::hex(&sha2::Sha256::digest(b"manifest")),
            base_url: "https://example.org/".into(),
            timestamp: None,
            label: Some("2026 release 1".into()),
        }
    }

    #[test]
    fn signatures_are_deterministic_and_verify() {
        let key = key();
        let line = release().to_line();
        let a = key.sign(b"manifest", &line);
        assert_eq!(a, key.sign(b"manifest", &line));
        assert_eq!(verify(&key.public(), &a, b"manifest").unwrap(), release());
        assert_eq!(verify_comment(&key.public(), &a).unwrap(), release());
        assert!(
            verify(&key.public(), &a, b"manifesT")
                .unwrap_err()
                .contains("does not match")
        );
        let other = self::key();
        assert!(
            verify(&other.public(), &a, b"manifest")
                .unwrap_err()
                .contains("another key")
        );
    }

    #[test]
    fn a_changed_trusted_comment_fails() {
        let key = key();
        let sig = key.sign(b"manifest", &release().to_line());
        let forged = sig.replace("label=2026", "label=2027");
        assert!(verify(&key.public(), &forged, b"manifest").is_err());
        assert!(verify_comment(&key.public(), &forged).is_err());
    }

    #[test]
    fn a_cut_off_signature_is_an_error_not_a_panic() {
        let key = key();
        let sig = key.sign(b"manifest", &release().to_line());
        let last = sig.trim_end().rfind('\n').unwrap();
        for cut in [&sig[..last + 10], &sig[..last + 1], &sig[..20]] {
            let err = verify(&key.public(), cut, b"manifest").unwrap_err();
            assert!(err.contains("not a complete minisign signature"), "{err}");
            assert!(verify_comment(&key.public(), cut).is_err());
        }
    }

    #[test]
    fn public_keys_round_trip_in_both_forms() {
        let key = key().public();
        assert_eq!(PublicKey::parse(&key.to_base64()).unwrap(), key);
        assert_eq!(PublicKey::parse(&key.file_text()).unwrap(), key);
        assert!(PublicKey::parse("RWQ-not-a-key").is_err());
    }

    #[test]
    fn encrypted_keys_need_the_right_password() {
        let dir = tempfile::tempdir().unwrap();
        let files = keygen(dir.path(), Some("correct horse")).unwrap();
        assert!(key_is_encrypted(&files.secret).unwrap());
        let wrong = SigningKey::open(&files.secret, Some("wrong")).unwrap_err();
        assert!(wrong.to_string().contains("wrong password"), "{wrong}");
        let none = SigningKey::open(&files.secret, None).unwrap_err();
        assert!(none.to_string().contains("password-protected"), "{none}");
        let key = SigningKey::open(&files.secret, Some("correct horse")).unwrap();
        assert_eq!(key.public(), files.public_key);
        let again = keygen(dir.path(), None).unwrap_err();
        assert!(again.to_string().contains("already exists"));
    }

    #[test]
    fn labels_with_spaces_survive_the_comment() {
        let mut r = release();
        r.timestamp = Some("2026-12-02T10:00:00Z".into());
        r.label = Some("release 3 = final".into());
        assert_eq!(Release::parse(&r.to_line()).unwrap(), r);
        r.label = None;
        assert_eq!(Release::parse(&r.to_line()).unwrap(), r);
    }
}
