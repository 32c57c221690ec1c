//! Copying a derivative out of the image cache into the output, hashing it on the way.
//!
//! The images stage checked the cache file before the build chose to publish it; the copy
//! hashes the very bytes it writes, in the same pass, so a file changed in between fails
//! the build instead of being published (and signed into the manifest) as it is.

use std::io::{Read as _, Write as _};
use std::path::Path;

use sha2::{Digest, Sha256};

use super::record::Stamp;
use crate::error::{Diagnostic, Error, Result};
use crate::fault;
use crate::hashing::hex;

/// Copies a cache file: a copy, not a hard link, since a link would let anything that edits
/// the published file edit the cache, and through it every later build. The copy takes
/// the cache file's modification time, so it is recognised without a record. A cache file
/// whose size or SHA-256 is not the one recorded for it is refused: the cache was damaged.
/// A failed read names the cache file; a failed write (a full disk) names `target`.
pub(super) fn copy_cached(file: &Path, sha256: &str, size: u64, target: &Path) -> Result<Stamp> {
    let mut source = std::fs::File::open(file).map_err(|e| Error::io(file, e))?;
    let meta = source.metadata().map_err(|e| Error::io(file, e))?;
    if meta.len() != size {
        return Err(Error::io(
            file,
            std::io::Error::other(format!(
                "the image cache is damaged: this file has {} bytes, not the {size} recorded for it; delete the cache folder and build again",
                meta.len()
            )),
        ));
    }
    let cache_time = meta.modified().map_err(|e| Error::io(file, e))?;
    fault::point("copy a cached photograph").map_err(|e| Error::io(target, e))?;
    let (out, actual) = stream(&mut source, file, target)?;
    if actual != sha256 {
        drop(out);
        let _ = std::fs::remove_file(target);
        return Err(Error::one(
            Diagnostic::new(
                file,
                format!("this image cache file changed while the build ran: its SHA-256 is {actual}, not the {sha256} its name records, so it was not published"),
            )
            .hint("something writes to the cache folder behind casebook's back: stop it and build again (the next build derives the photograph again)"),
        ));
    }
    // Published copies are ordinary files, whatever the umask (the cache's are read-only).
    let mut perms = out
        .metadata()
        .map_err(|e| Error::io(target, e))?
        .permissions();
    #[cfg(unix)]
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    #[cfg(not(unix))]
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    out.set_permissions(perms)
        .map_err(|e| Error::io(target, e))?;
    out.set_modified(cache_time)
        .map_err(|e| Error::io(target, e))?;
    out.metadata()
        .map(|m| Stamp::of(&m))
        .map_err(|e| Error::io(target, e))
}

/// Copies `source` (read errors name `from`) into a new file at `target` (write errors
/// name it), 64 KiB at a time; returns the new file and the SHA-256 of what was written.
fn stream(
    source: &mut std::fs::File,
    from: &Path,
    target: &Path,
) -> Result<(std::fs::File, String)> {
    let mut out = std::fs::File::create(target).map_err(|e| Error::io(target, e))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match source.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(from, e)),
        };
        hasher.update(&buf[..n]);
        out.write_all(&buf[..n]).map_err(|e| Error::io(target, e))?;
    }
    Ok((out, hex(&hasher.finalize())))
}

/// Copies a static file or attachment into the output: opened beneath the site's folder
/// without following a link, streamed, and published only if its bytes are the ones the
/// build hashed (and the manifest records). A file swapped or edited meanwhile fails the
/// build with an error naming it; nothing of it is left in the output.
pub(super) fn copy_source(source: &super::Copied, target: &Path) -> Result<Stamp> {
    let (mut file, _) =
        crate::beneath::open(&source.root, &source.file).map_err(|e| Error::io(&source.file, e))?;
    fault::point("copy a file").map_err(|e| Error::io(target, e))?;
    let (out, actual) = stream(&mut file, &source.file, target)?;
    if actual != source.sha256 {
        drop(out);
        let _ = std::fs::remove_file(target);
        return Err(Error::one(
            Diagnostic::new(&source.file, "this file changed while the build was publishing it (it was edited, or replaced by another file or a link), so it was not published")
                .hint("build again once nothing is changing it"),
        ));
    }
    out.metadata()
        .map(|m| Stamp::of(&m))
        .map_err(|e| Error::io(target, e))
}

/// The SHA-256 of a file of the output, streamed.
pub(super) fn sha256_of(path: &Path) -> std::io::Result<[u8; 32]> {
    let mut file = std::fs::File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match file.read(&mut buf) {
            Ok(0) => return Ok(hasher.finalize().into()),
            Ok(n) => hasher.update(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_whose_bytes_do_not_hash_to_the_recorded_sha256_is_refused_and_removed() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cached.jpg");
        std::fs::write(&file, b"the derivative").unwrap();
        let right = hex(&Sha256::digest(b"the derivative"));
        let target = dir.path().join("published.jpg");
        let stamp = copy_cached(&file, &right, 14, &target).unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"the derivative");
        assert_eq!(stamp.size, 14);
        // Changed in place, size kept: refused, nothing left at the target.
        std::fs::write(&file, b"THE derivative").unwrap();
        let other = dir.path().join("other.jpg");
        let err = copy_cached(&file, &right, 14, &other)
            .unwrap_err()
            .to_string();
        assert!(err.contains("cached.jpg") && err.contains(&right), "{err}");
        assert!(!other.exists());
    }
}
