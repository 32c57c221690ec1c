//! The last stage: the site's files, and writing them to the output folder.
//!
//! `write` makes the folder hold exactly the build's files, atomically: a failed build
//! writes nothing, and a build stopped half-way is completed by the next one. `record`
//! remembers what the last build published, so the next one neither rewrites nor re-reads
//! unchanged files, and can leave unchanged pages unrendered.

mod beside;
mod copy;
mod disk;
mod journal;
mod listings;
mod names;
mod record;
#[cfg(test)]
mod recovery_tests;
mod seal;
pub(crate) mod sealed;
mod stage;
pub(crate) mod stat;
pub(crate) mod up_to_date;
mod write;

use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, Error, Result};
pub(crate) use beside::{Lock, Recovery, recover};
pub(crate) use names::{WINDOWS_WHY, unportable_name, unportable_paths, unportable_sources};
pub(crate) use record::{FILE as RECORD_FILE, Fingerprint, Prior};
pub(crate) use stage::Stage;
pub(crate) use write::{Digests, write};

/// Threads for filesystem work: creating files and folders mostly waits on the disk, so
/// more threads than cores keep it busy (measured: 3 to 4 times faster than one per core).
const IO_THREADS: usize = 8;

/// Runs `f` on a pool of `IO_THREADS` threads.
fn in_io_pool<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(IO_THREADS)
        .build()
    {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// The longest name of one file or folder that common file systems accept (ext4, XFS,
/// Btrfs, APFS: 255 bytes; NTFS and exFAT: 255 UTF-16 units, never fewer than bytes).
pub(crate) const NAME_MAX: usize = 255;

/// The longest path, from the file system's root, that Linux accepts (PATH_MAX less its
/// terminating NUL).
pub(crate) const PATH_MAX: usize = 4095;

/// Why `name`, with `suffix` bytes that casebook adds to it, cannot be a file name.
pub(crate) fn name_too_long(name: &str, suffix: usize) -> Option<String> {
    (name.len() + suffix > NAME_MAX).then(|| {
        let room = NAME_MAX.saturating_sub(suffix);
        format!(
            "`{}…` is {} bytes long, and file names are limited to {NAME_MAX} bytes{}",
            name.chars().take(24).collect::<String>(),
            name.len(),
            if suffix > 0 {
                format!(" (casebook adds up to {suffix} to it: keep it to {room} bytes)")
            } else {
                String::new()
            }
        )
    })
}

/// The output paths that cannot be written below `out`: a name over [`NAME_MAX`] bytes,
/// or a whole path over [`PATH_MAX`] (also through the staging folder beside `out`).
/// Checked before the output is touched, so a build never fails half-way on a name.
pub(crate) fn unwritable_paths<'a>(
    out: &Path,
    paths: impl Iterator<Item = &'a str>,
) -> Vec<Diagnostic> {
    let abs = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let beside = beside::staging_dir(&abs);
    let base = abs.as_os_str().len().max(beside.as_os_str().len()) + 1;
    let mut problems = Vec::new();
    for path in paths {
        let long_name = path.split('/').find_map(|n| name_too_long(n, 0));
        let problem = match long_name {
            Some(m) => m,
            None if base + path.len() > PATH_MAX => format!(
                "the path is {} bytes long below {}, over the limit of {PATH_MAX} bytes",
                base + path.len(),
                abs.display()
            ),
            None => continue,
        };
        problems.push(
            Diagnostic::new(abs.join(path), problem)
                .hint("shorten the name it comes from (a case id, a slug, a file or folder name), or build into a folder with a shorter path"),
        );
    }
    problems
}

/// Maps and sets keyed by output path. Hundreds of thousands of paths at archive scale, all
/// the publisher's own: a fast hasher, not one that resists flooding.
pub(crate) type PathMap<V> = rustc_hash::FxHashMap<String, V>;
pub(crate) type PathSet = rustc_hash::FxHashSet<String>;

/// One file of the built site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Output {
    /// Path relative to the output folder, `/`-separated (`cases/syn-0001/index.html`).
    pub(crate) path: String,
    pub(crate) data: Data,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Data {
    Bytes(Vec<u8>),
    /// Copied from a source file as it is (static files and attachments, never images).
    Copy(Copied),
    /// A derivative in the image cache, whose hash is already known. Copied into place
    /// only when the published copy is missing or differs.
    Cached {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
    /// Already in the output folder, unchanged since the last build wrote it: a page whose
    /// inputs did not change (not rendered again), or a file rendered to the bytes the
    /// record says the folder holds (`stage.rs`).
    Published {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
    /// A file already written beside the output (`stage.rs`): into a new folder's staging
    /// folder at its path, or into an update's pending folder under a name of its own.
    /// Only its hash and size are kept.
    Staged {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
}

/// A file of the site published as it is: hashed when the build took it, opened only
/// beneath the site's folder and never through a link, streamed (never held whole), and
/// checked against its hash as it is copied, so that a file swapped during the build
/// publishes nothing but the bytes the manifest records.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Copied {
    /// The site's folder, which the file must lie below.
    pub(crate) root: PathBuf,
    pub(crate) file: PathBuf,
    pub(crate) sha256: String,
    pub(crate) size: u64,
}

impl Copied {
    /// `file` (below `root`) as it is now; an error names it if it cannot be read, or is
    /// a link or not a plain file.
    pub(crate) fn of(root: &Path, file: &Path) -> Result<Copied> {
        let (sha256, size) = crate::beneath::hash(root, file).map_err(|e| Error::io(file, e))?;
        Ok(Copied {
            root: root.to_path_buf(),
            file: file.to_path_buf(),
            sha256: crate::hashing::hex(&sha256),
            size,
        })
    }
}

impl Output {
    pub(crate) fn bytes(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Output {
            path: path.into(),
            data: Data::Bytes(bytes.into()),
        }
    }

    /// The file's bytes, reading copied files from disk.
    pub fn read(&self) -> std::io::Result<std::borrow::Cow<'_, [u8]>> {
        match &self.data {
            Data::Bytes(b) => Ok(b.as_slice().into()),
            Data::Copy(c) => crate::beneath::read(&c.root, &c.file, c.size).map(Into::into),
            Data::Cached { file: p, .. }
            | Data::Published { file: p, .. }
            | Data::Staged { file: p, .. } => std::fs::read(p).map(Into::into),
        }
    }
}

/// The output file for a URL path: `/cases/` -> `cases/index.html`.
pub(crate) fn file_for_url(url_path: &str) -> String {
    let trimmed = url_path.trim_start_matches('/');
    if trimmed.is_empty() || trimmed.ends_with('/') {
        format!("{trimmed}index.html")
    } else {
        trimmed.to_string()
    }
}

/// Writes `bytes` to `file` through a temporary file, so a reader never sees half of it.
pub(crate) fn save_atomically(file: &Path, bytes: &[u8]) -> std::io::Result<()> {
    save_atomically_in_parts(file, &[bytes])
}

/// `save_atomically` of the parts one after the other.
pub(crate) fn save_atomically_in_parts(file: &Path, parts: &[&[u8]]) -> std::io::Result<()> {
    use std::io::Write as _;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    let mut f = std::fs::File::create(&tmp)?;
    for part in parts {
        f.write_all(part)?;
    }
    drop(f);
    std::fs::rename(&tmp, file)
}

/// Refuses an output folder whose replacement would destroy the site's sources or its
/// cache, or that would publish the cache: the output is never the site root or a folder
/// holding it, never inside `content/`, `themes/`, `static/`, `templates/` or the cache,
/// and never holds the cache. Paths are compared as the file system resolves them, through
/// symbolic links and `..`.
pub(crate) fn check_output_dir(root: &Path, out: &Path, cache: &Path) -> Result<()> {
    use crate::paths::{is_within, resolved};
    let (root, out_real, cache) = (resolved(root), resolved(out), resolved(cache));
    let inside = |dir: &str| is_within(&out_real, &root.join(dir));
    let reason = if is_within(&root, &out_real) {
        Some("it is the site's folder or holds it".to_string())
    } else if let Some(dir) = ["content", "themes", "static", "templates"]
        .into_iter()
        .find(|d| inside(d))
    {
        Some(format!("it is inside the site's {dir}/ folder"))
    } else if is_within(&out_real, &cache) {
        Some(format!("it is inside the cache folder {}", cache.display()))
    } else if is_within(&cache, &out_real) {
        Some(format!(
            "it holds the cache folder {}, which must never be published",
            cache.display()
        ))
    } else {
        None
    };
    match reason {
        None => Ok(()),
        Some(reason) => {
            let shown = if out_real == std::path::absolute(out).unwrap_or_default() {
                String::new()
            } else {
                format!(" (resolved through links to {})", out_real.display())
            };
            Err(Error::one(
                Diagnostic::new(
                    out,
                    format!("refusing to build into this folder{shown}: {reason}, and the output is replaced on every build"),
                )
                .hint("choose a separate folder such as `public`"),
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn url_to_file() {
        assert_eq!(file_for_url("/"), "index.html");
        assert_eq!(file_for_url("/cases/page/2/"), "cases/page/2/index.html");
        assert_eq!(file_for_url("/sitemap.xml"), "sitemap.xml");
    }
}
