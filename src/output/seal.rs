//! The seal on a journal: proof that it was written by a build of this output folder, on
//! this machine, and not brought in with the site (a cloned repository, an unpacked
//! archive, a shared drive).
//!
//! Each output has a secret of 32 random bytes in a key file beside its lock. A journal is
//! sealed with BLAKE3 keyed with the secret, over the identity of the key file (device,
//! inode, change time), that of the output folder (device, inode) and the journal's bytes.
//! (BLAKE3 rather than BLAKE2b: a one-case edit opens and seals about 20 MB of caches, and
//! at BLAKE2b's 1 GB/s that was 20 ms no other work of the build overlapped.)
//! A copied key file or output folder has other identities, and a change time cannot be
//! set back by any tool, so
//! a journal that arrived with a site never carries a seal this machine accepts.

use std::path::Path;

/// Bytes of the seal appended to a journal.
pub(super) const LEN: usize = 32;

/// The key of one output folder: its secret and where it, and the folder, are.
pub(super) struct Key {
    secret: [u8; 32],
    identity: Vec<u8>,
}

impl Key {
    /// The key kept in `file` for the output folder `out`; made (with a new secret) if
    /// there is none, or if what is there is not a plain key file. `None` if `out` is not a
    /// folder or no key can be kept: then no journal is ever trusted.
    pub(super) fn of(file: &Path, out: &Path) -> Option<Key> {
        let out_meta = std::fs::symlink_metadata(out).ok().filter(|m| m.is_dir())?;
        let (secret, key_meta) = match read(file) {
            Some(found) => found,
            None => {
                make(file)?;
                read(file)?
            }
        };
        // The folder's change time changes with every update (renames in it), so only
        // its device and inode are bound; the key file is never changed once made.
        let mut identity = Vec::with_capacity(64);
        identity.extend_from_slice(&file_identity(&key_meta));
        identity.extend_from_slice(&file_identity(&out_meta)[..16]);
        Some(Key { secret, identity })
    }

    /// The seal of `bytes` under this key.
    pub(super) fn seal(&self, bytes: &[u8]) -> [u8; LEN] {
        let mut h = blake3::Hasher::new_keyed(&self.secret);
        h.update(b"casebook-journal-seal-2\0");
        h.update(&self.identity);
        h.update(bytes);
        *h.finalize().as_bytes()
    }

    /// `bytes` without their seal, if the seal is this key's.
    pub(super) fn open<'a>(&self, bytes: &'a [u8]) -> Option<&'a [u8]> {
        let (body, seal) = bytes.split_at_checked(bytes.len().checked_sub(LEN)?)?;
        // Not secret-dependent timing in any way that matters: the secret never leaves this
        // machine and a wrong seal only discards the journal.
        (self.seal(body) == seal).then_some(body)
    }
}

/// The secret in `file` and the file's metadata, if it is a plain file of 32 bytes. Opened
/// without following a link, so a link planted there is never read through.
fn read(file: &Path) -> Option<([u8; 32], std::fs::Metadata)> {
    use std::io::Read as _;
    let mut f = open_no_follow(file).ok()?;
    let meta = f.metadata().ok().filter(|m| m.is_file() && m.len() == 32)?;
    let mut secret = [0u8; 32];
    f.read_exact(&mut secret).ok()?;
    Some((secret, meta))
}

/// Writes a new key file with a fresh secret, replacing whatever was at `file` (a link is
/// replaced, never followed).
fn make(file: &Path) -> Option<()> {
    use std::io::Write as _;
    let mut secret = [0u8; 32];
    getrandom::fill(&mut secret).ok()?;
    let draft = file.with_extension(format!("draft{}", std::process::id()));
    let _ = std::fs::remove_file(&draft);
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let written = options
        .open(&draft)
        .and_then(|mut f| f.write_all(&secret).and_then(|()| f.sync_all()))
        .and_then(|()| std::fs::rename(&draft, file));
    if written.is_err() {
        let _ = std::fs::remove_file(&draft);
    }
    written.ok()
}

/// Opens `path` for reading; a symbolic link there is an error, not followed.
pub(super) fn open_no_follow(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::custom_flags(&mut options, libc::O_NOFOLLOW);
    options.open(path)
}

/// Device, inode and change time: what a copy of the file cannot have.
fn file_identity(meta: &std::fs::Metadata) -> [u8; 32] {
    let mut id = [0u8; 32];
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        id[..8].copy_from_slice(&meta.dev().to_le_bytes());
        id[8..16].copy_from_slice(&meta.ino().to_le_bytes());
        id[16..24].copy_from_slice(&meta.ctime().to_le_bytes());
        id[24..32].copy_from_slice(&meta.ctime_nsec().to_le_bytes());
    }
    #[cfg(not(unix))]
    {
        let created = meta
            .created()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        id[..16].copy_from_slice(&created.to_le_bytes());
    }
    id
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_holds_only_for_its_own_key_file_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let (out, key_file) = (dir.path().join("public"), dir.path().join("key"));
        std::fs::create_dir(&out).unwrap();
        assert!(Key::of(&key_file, &dir.path().join("missing")).is_none());
        let key = Key::of(&key_file, &out).unwrap();
        let mut sealed = b"journal".to_vec();
        sealed.extend_from_slice(&key.seal(b"journal"));
        assert_eq!(key.open(&sealed), Some(&b"journal"[..]));
        // The same key file read again: the same key.
        assert_eq!(
            Key::of(&key_file, &out).unwrap().open(&sealed),
            Some(&b"journal"[..])
        );
        let mut changed = sealed.clone();
        changed[0] ^= 1;
        assert!(key.open(&changed).is_none());
        // A copy of the key file (same secret) beside a copy of the folder: refused.
        let (out2, key2) = (dir.path().join("copy"), dir.path().join("key2"));
        std::fs::create_dir(&out2).unwrap();
        std::fs::copy(&key_file, &key2).unwrap();
        assert!(Key::of(&key2, &out2).unwrap().open(&sealed).is_none());
        // The same key file with another folder: refused.
        assert!(Key::of(&key_file, &out2).unwrap().open(&sealed).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_link_in_place_of_the_key_file_is_replaced_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let (out, key_file) = (dir.path().join("public"), dir.path().join("key"));
        std::fs::create_dir(&out).unwrap();
        let outside = dir.path().join("outside");
        std::fs::write(&outside, [7u8; 32]).unwrap();
        std::os::unix::fs::symlink(&outside, &key_file).unwrap();
        let key = Key::of(&key_file, &out).unwrap();
        assert_ne!(key.secret, [7u8; 32]);
        assert_eq!(std::fs::read(&outside).unwrap(), [7u8; 32]);
        assert!(!std::fs::symlink_metadata(&key_file).unwrap().is_symlink());
    }
}
