//! Opening a site's files beneath its folder, never through a symbolic link.
//!
//! Listing a folder and refusing the links seen there is not enough: a file can be replaced
//! by a link between the listing and the read. So every file of the site is opened here,
//! beneath the site's folder, with no link followed on the way (Linux: `openat2` with
//! `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`; other Unix systems: one `openat` per part with
//! `O_NOFOLLOW`), and the opened handle's own metadata decides whether it is a regular
//! file. The handle is what is then read: its path is never looked up again.

use std::fs::File;
use std::io;
use std::path::{Component, Path};

/// The error for a path that is, or passes through, a symbolic link or is not a file.
pub(crate) fn not_a_plain_file() -> io::Error {
    io::Error::other(
        "not a plain file inside the site's folder (a symbolic link, or something replaced by one): casebook never follows links in a site",
    )
}

/// Opens `path`, which must lie below `root`, for reading: beneath `root`, without
/// following any symbolic link below it, and only if it is a regular file. `root` itself
/// is opened as given (the publisher chose it).
pub(crate) fn open(root: &Path, path: &Path) -> io::Result<(File, std::fs::Metadata)> {
    let rel = below(root, path);
    if rel.is_absolute()
        || rel.components().next().is_none()
        || !rel.components().all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(not_a_plain_file());
    }
    let file = open_beneath(root, rel)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_a_plain_file());
    }
    Ok((file, meta))
}

/// `path` relative to `root`, whichever form each is given in (relative, absolute, with
/// links resolved); `path` itself when it is not below `root` (then refused if absolute).
fn below<'a>(root: &Path, path: &'a Path) -> &'a Path {
    if let Ok(rel) = path.strip_prefix(root) {
        return rel;
    }
    if path.is_relative() {
        return path;
    }
    [
        std::path::absolute(root).ok(),
        std::fs::canonicalize(root).ok(),
    ]
    .into_iter()
    .flatten()
    .find_map(|r| path.strip_prefix(r).ok())
    .unwrap_or(path)
}

/// Reads a whole file opened as [`open`] does; refuses one over `limit` bytes.
pub(crate) fn read(root: &Path, path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    use std::io::Read as _;
    let (file, meta) = open(root, path)?;
    if meta.len() > limit {
        return Err(io::Error::other(format!(
            "{} bytes, more than the {limit} casebook reads of such a file",
            meta.len()
        )));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(limit.saturating_add(1)).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::other("the file grew while it was read"));
    }
    Ok(bytes)
}

/// Reads a whole text file opened as [`open`] does.
pub(crate) fn read_to_string(root: &Path, path: &Path, limit: u64) -> io::Result<String> {
    String::from_utf8(read(root, path, limit)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// What a file was when it was hashed: a file with the same identity, size and times is
/// not read again (ctime cannot be set back, so any change to the bytes is seen).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Identity {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Identity {
    fn of(meta: &std::fs::Metadata) -> Identity {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt as _;
            Identity {
                dev: meta.dev(),
                ino: meta.ino(),
                size: meta.len(),
                mtime: (meta.mtime(), meta.mtime_nsec()),
                ctime: (meta.ctime(), meta.ctime_nsec()),
            }
        }
        #[cfg(not(unix))]
        {
            let t = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos() as i64);
            Identity {
                dev: 0,
                ino: 0,
                size: meta.len(),
                mtime: (t, 0),
                ctime: (t, 0),
            }
        }
    }
}

/// Hashes already made in this process, by path: `serve` rebuilds the static folder after
/// every change to it, and an unchanged file of a gigabyte must not be read again. A memo
/// of a pure function of the file's identity, so sharing it is safe.
static HASHED: std::sync::Mutex<Option<Hashes>> = std::sync::Mutex::new(None);

type Hashes = std::collections::HashMap<std::path::PathBuf, (Identity, [u8; 32])>;

/// The SHA-256 and size of `path` below `root`, opened as [`open`] does and streamed (never
/// held whole). A file that changes while it is hashed is an error.
pub(crate) fn hash(root: &Path, path: &Path) -> io::Result<([u8; 32], u64)> {
    use sha2::{Digest, Sha256};
    use std::io::Read as _;
    let (mut file, meta) = open(root, path)?;
    let before = Identity::of(&meta);
    let known = HASHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .and_then(|m| m.get(path).filter(|(id, _)| *id == before).map(|(_, h)| *h));
    if let Some(h) = known {
        return Ok((h, before.size));
    }
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut size = 0u64;
    loop {
        let n = match file.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&buf[..n]);
        size += n as u64;
    }
    if size != before.size || Identity::of(&file.metadata()?) != before {
        return Err(changed_while_read());
    }
    let h: [u8; 32] = hasher.finalize().into();
    HASHED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get_or_insert_with(Default::default)
        .insert(path.to_path_buf(), (before, h));
    Ok((h, size))
}

/// The error for a file whose bytes changed while casebook read it.
pub(crate) fn changed_while_read() -> io::Error {
    io::Error::other(
        "the file changed while casebook read it (it was being edited or replaced): build again",
    )
}

#[cfg(target_os = "linux")]
fn open_beneath(root: &Path, rel: &Path) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let dir = File::open(root)?;
    let c_rel = std::ffi::CString::new(rel.as_os_str().as_bytes())
        .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
    // SAFETY: zeroed is a valid `open_how` (all fields are integers).
    let mut how: libc::open_how = unsafe { std::mem::zeroed() };
    how.flags = (libc::O_RDONLY | libc::O_CLOEXEC | libc::O_NOFOLLOW) as u64;
    how.resolve = libc::RESOLVE_BENEATH | libc::RESOLVE_NO_SYMLINKS | libc::RESOLVE_NO_MAGICLINKS;
    loop {
        // SAFETY: openat2(2) with a valid directory descriptor, a NUL-terminated path and
        // an `open_how` of the size passed; the returned descriptor is owned below.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir.as_raw_fd(),
                c_rel.as_ptr(),
                &how as *const libc::open_how,
                std::mem::size_of::<libc::open_how>(),
            )
        };
        if fd >= 0 {
            // SAFETY: a new descriptor that nothing else owns.
            return Ok(unsafe { File::from_raw_fd(fd as i32) });
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EINTR | libc::EAGAIN) => continue,
            // A kernel before 5.6, or a sandbox that forbids the call.
            Some(libc::ENOSYS | libc::EPERM) => return open_part_by_part(&dir, rel),
            Some(libc::ELOOP | libc::EXDEV) => return Err(not_a_plain_file()),
            _ => return Err(e),
        }
    }
}

#[cfg(all(unix, not(target_os = "linux")))]
fn open_beneath(root: &Path, rel: &Path) -> io::Result<File> {
    open_part_by_part(&File::open(root)?, rel)
}

/// One `openat` per part, each with `O_NOFOLLOW`: a link anywhere is an error.
#[cfg(unix)]
fn open_part_by_part(root: &File, rel: &Path) -> io::Result<File> {
    use std::os::fd::{AsRawFd, FromRawFd};
    use std::os::unix::ffi::OsStrExt;
    let parts: Vec<_> = rel.components().collect();
    let mut dir: Option<File> = None;
    for (i, part) in parts.iter().enumerate() {
        let last = i + 1 == parts.len();
        let name = std::ffi::CString::new(part.as_os_str().as_bytes())
            .map_err(|_| io::Error::from(io::ErrorKind::InvalidInput))?;
        let flags = libc::O_RDONLY
            | libc::O_CLOEXEC
            | libc::O_NOFOLLOW
            | if last { 0 } else { libc::O_DIRECTORY };
        let at = dir.as_ref().unwrap_or(root).as_raw_fd();
        // SAFETY: openat(2) with a valid directory descriptor and a NUL-terminated name.
        let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
        if fd < 0 {
            let e = io::Error::last_os_error();
            return Err(match e.raw_os_error() {
                Some(libc::ELOOP | libc::ENOTDIR) => not_a_plain_file(),
                _ => e,
            });
        }
        // SAFETY: a new descriptor that nothing else owns.
        let file = unsafe { File::from_raw_fd(fd) };
        if last {
            return Ok(file);
        }
        dir = Some(file);
    }
    Err(not_a_plain_file())
}

#[cfg(not(unix))]
fn open_beneath(root: &Path, rel: &Path) -> io::Result<File> {
    // Best effort where there is no *at family: refuse a link seen on the way.
    let mut at = root.to_path_buf();
    for part in rel.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at)?.file_type().is_symlink() {
            return Err(not_a_plain_file());
        }
    }
    File::open(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `to` relative to `from` (both absolute), with `..` as needed.
    fn pathdiff(to: &Path, from: &Path) -> std::path::PathBuf {
        let (to, from) = (
            std::fs::canonicalize(to).unwrap(),
            std::fs::canonicalize(from).unwrap(),
        );
        let common = to
            .components()
            .zip(from.components())
            .take_while(|(a, b)| a == b)
            .count();
        let mut out = std::path::PathBuf::new();
        for _ in from.components().skip(common) {
            out.push("..");
        }
        for c in to.components().skip(common) {
            out.push(c);
        }
        out
    }

    #[test]
    fn files_open_beneath_and_links_never() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("site");
        std::fs::create_dir_all(root.join("static/css")).unwrap();
        std::fs::write(root.join("static/css/a.css"), b"a{}").unwrap();
        std::fs::write(dir.path().join("secret"), b"outside").unwrap();
        assert_eq!(
            read(&root, &root.join("static/css/a.css"), 10).unwrap(),
            b"a{}"
        );
        assert_eq!(
            read(&root, Path::new("static/css/a.css"), 10).unwrap(),
            b"a{}"
        );
        assert!(read(&root, Path::new("static/css/a.css"), 2).is_err());
        assert!(read(&root, Path::new("../secret"), 100).is_err());
        assert!(read(&root, &dir.path().join("secret"), 100).is_err());
        // The same file named through a relative root and an absolute path.
        let here = std::env::current_dir().unwrap();
        let rel_root = pathdiff(&root, &here);
        assert_eq!(
            read(&rel_root, &root.join("static/css/a.css"), 10).unwrap(),
            b"a{}"
        );
        assert!(read(&root, Path::new("static"), 100).is_err());
        #[cfg(unix)]
        {
            use std::os::unix::fs::symlink;
            symlink(dir.path().join("secret"), root.join("static/link")).unwrap();
            symlink(root.join("static/css"), root.join("static/dirlink")).unwrap();
            assert!(read(&root, Path::new("static/link"), 100).is_err());
            assert!(read(&root, Path::new("static/dirlink/a.css"), 100).is_err());
            let d = File::open(&root).unwrap();
            assert!(open_part_by_part(&d, Path::new("static/link")).is_err());
            assert!(open_part_by_part(&d, Path::new("static/dirlink/a.css")).is_err());
            assert!(open_part_by_part(&d, Path::new("static/css/a.css")).is_ok());
        }
    }
}
