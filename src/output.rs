//! The last stage: the site's files, and writing them atomically.
//!
//! The build is written to a staging folder and swapped into place only when complete, so a
//! failed build never destroys the last good site.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::error::{Diagnostic, Error, Result};

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
    /// Copied from a source file as it is (attachments, never images).
    Copy(PathBuf),
    /// A derivative in the image cache, whose hash is already known. Copied into place
    /// only when the published copy is missing or differs.
    Cached {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
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
            Data::Copy(p) | Data::Cached { file: p, .. } => std::fs::read(p).map(Into::into),
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

/// Refuses output folders whose replacement would destroy the site's sources.
pub(crate) fn check_output_dir(root: &Path, out: &Path) -> Result<()> {
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let (root_abs, out_abs) = (abs(root), abs(out));
    let dangerous = out_abs == root_abs
        || root_abs.starts_with(&out_abs)
        || out_abs.starts_with(root_abs.join("content"))
        || out_abs.starts_with(root_abs.join("themes"))
        || out_abs.starts_with(root_abs.join("static"))
        || out_abs.starts_with(root_abs.join("templates"));
    if dangerous {
        return Err(Error::one(
            Diagnostic::new(out, "refusing to build into this folder: it holds the site's sources and is replaced on every build")
                .hint("choose a separate folder such as `public`"),
        ));
    }
    Ok(())
}

/// Writes every output to a staging folder beside `out`, then swaps it into place.
///
/// The staging folder is double-buffered: after a swap it holds the previous site, and the
/// next build only rewrites the files that differ from it. Creating files and folders is
/// the slowest part of a build on many disks, so an unchanged archive of 15,000 pages is
/// re-published without writing them again, yet the swap stays atomic.
pub(crate) fn write(outputs: &[&Output], out: &Path) -> Result<()> {
    let parent = out
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
    let name = out
        .file_name()
        .map_or("public".into(), |n| n.to_string_lossy().into_owned());
    let staging = parent.join(format!(".{name}.casebook-staging"));
    let swapping = parent.join(format!(".{name}.casebook-swap"));
    recover_interrupted_swap(out, &staging, &swapping)?;
    if out.exists() && !looks_like_a_build(out) {
        return Err(Error::one(
            Diagnostic::new(
                out,
                "the output folder exists and does not look like a casebook build (no index.html)",
            )
            .hint(
                "casebook replaces the whole output folder: remove it or choose another --output",
            ),
        ));
    }
    sync_tree(outputs, &staging)?;
    if out.exists() {
        std::fs::rename(out, &swapping).map_err(|e| Error::io(out, e))?;
    }
    if let Err(e) = std::fs::rename(&staging, out) {
        let _ = std::fs::rename(&swapping, out);
        return Err(Error::io(out, e));
    }
    if swapping.exists() {
        std::fs::rename(&swapping, &staging).map_err(|e| Error::io(&swapping, e))?;
    }
    Ok(())
}

fn looks_like_a_build(out: &Path) -> bool {
    out.join("index.html").is_file()
        || std::fs::read_dir(out).is_ok_and(|mut entries| entries.next().is_none())
}

/// Puts folders back in order after a build that stopped in the middle of its swap.
fn recover_interrupted_swap(out: &Path, staging: &Path, swapping: &Path) -> Result<()> {
    if !swapping.exists() {
        return Ok(());
    }
    let target = if out.exists() { staging } else { out };
    if target.exists() {
        std::fs::remove_dir_all(target).map_err(|e| Error::io(target, e))?;
    }
    std::fs::rename(swapping, target).map_err(|e| Error::io(swapping, e))
}

/// Threads for filesystem work: creating files and folders mostly waits on the disk, so
/// more threads than cores keep it busy (measured: 3 to 4 times faster than one per core).
const IO_THREADS: usize = 8;

/// Makes `dir` hold exactly `outputs`, writing only what differs.
fn sync_tree(outputs: &[&Output], dir: &Path) -> Result<()> {
    match rayon::ThreadPoolBuilder::new()
        .num_threads(IO_THREADS)
        .build()
    {
        Ok(pool) => pool.install(|| sync_tree_in_pool(outputs, dir)),
        Err(_) => sync_tree_in_pool(outputs, dir),
    }
}

fn sync_tree_in_pool(outputs: &[&Output], dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).map_err(|e| Error::io(dir, e))?;
    let mut existing: HashSet<PathBuf> = HashSet::new();
    let mut existing_dirs: Vec<PathBuf> = Vec::new();
    for entry in walkdir::WalkDir::new(dir).min_depth(1) {
        let entry = entry.map_err(|e| Error::io(dir, e.into()))?;
        let rel = entry
            .path()
            .strip_prefix(dir)
            .expect("below root")
            .to_path_buf();
        if entry.file_type().is_dir() {
            existing_dirs.push(rel);
        } else {
            existing.insert(rel);
        }
    }
    let wanted: HashSet<PathBuf> = outputs.iter().map(|o| PathBuf::from(&o.path)).collect();
    // Stale files first, so a file can become a folder of the same name.
    let stale: Vec<&PathBuf> = existing.iter().filter(|p| !wanted.contains(*p)).collect();
    stale.par_iter().try_for_each(|rel| {
        let path = dir.join(rel);
        std::fs::remove_file(&path).map_err(|e| Error::io(&path, e))
    })?;
    existing_dirs.sort_by_key(|d| std::cmp::Reverse(d.components().count()));
    for d in &existing_dirs {
        // Only empty folders go; the error for a non-empty one is expected.
        let _ = std::fs::remove_dir(dir.join(d));
    }
    // Every folder the outputs need, created level by level so parents exist first.
    let mut folders: Vec<PathBuf> = outputs
        .iter()
        .flat_map(|o| {
            Path::new(&o.path)
                .ancestors()
                .skip(1)
                .map(Path::to_path_buf)
        })
        .filter(|p| !p.as_os_str().is_empty())
        .collect();
    folders.sort_by_key(|p| (p.components().count(), p.clone()));
    folders.dedup();
    for level in folders.chunk_by(|a, b| a.components().count() == b.components().count()) {
        level.par_iter().try_for_each(|p| {
            let path = dir.join(p);
            match std::fs::create_dir(&path) {
                Err(e) if e.kind() != std::io::ErrorKind::AlreadyExists => Err(Error::io(&path, e)),
                _ => Ok(()),
            }
        })?;
    }
    outputs.par_iter().try_for_each(|o| {
        let target = dir.join(&o.path);
        let rel = Path::new(&o.path);
        if let Data::Cached { file, size, .. } = &o.data {
            return publish_cached(file, *size, &target, existing.contains(rel));
        }
        let bytes = o.read().map_err(|e| match &o.data {
            Data::Copy(src) | Data::Cached { file: src, .. } => Error::io(src, e),
            Data::Bytes(_) => Error::io(&target, e),
        })?;
        if existing.contains(rel) && same_content(&target, &bytes) {
            return Ok(());
        }
        std::fs::write(&target, &bytes).map_err(|e| Error::io(&target, e))
    })
}

/// Copies a cache file into place unless the same copy is already there.
///
/// A copy, not a hard link: a link would let anything that edits the published file edit
/// the cache, and through it every later build. The copy takes the cache file's
/// modification time, so an unchanged copy is recognised by size and time alone.
fn publish_cached(file: &Path, size: u64, target: &Path, exists: bool) -> Result<()> {
    let cache_time = std::fs::metadata(file)
        .and_then(|m| m.modified())
        .map_err(|e| Error::io(file, e))?;
    if exists {
        let unchanged = std::fs::metadata(target)
            .is_ok_and(|m| m.len() == size && m.modified().ok() == Some(cache_time));
        if unchanged {
            return Ok(());
        }
        std::fs::remove_file(target).map_err(|e| Error::io(target, e))?;
    }
    std::fs::copy(file, target).map_err(|e| Error::io(file, e))?;
    // The cache's files are read-only; published copies are ordinary files.
    let mut perms = std::fs::metadata(target)
        .map_err(|e| Error::io(target, e))?
        .permissions();
    #[cfg(unix)]
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o644);
    #[cfg(not(unix))]
    #[allow(clippy::permissions_set_readonly_false)]
    perms.set_readonly(false);
    std::fs::set_permissions(target, perms).map_err(|e| Error::io(target, e))?;
    let f = std::fs::File::options()
        .write(true)
        .open(target)
        .map_err(|e| Error::io(target, e))?;
    f.set_modified(cache_time).map_err(|e| Error::io(target, e))
}

fn same_content(path: &Path, bytes: &[u8]) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.len() == bytes.len() as u64)
        && std::fs::read(path).is_ok_and(|old| old == bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interrupted_swap_is_recovered() {
        let dir = tempfile::tempdir().unwrap();
        let (out, staging, swapping) = (
            dir.path().join("public"),
            dir.path().join(".public.casebook-staging"),
            dir.path().join(".public.casebook-swap"),
        );
        // Stopped after moving the old site away: it is put back.
        std::fs::create_dir_all(&swapping).unwrap();
        std::fs::write(swapping.join("index.html"), "old").unwrap();
        recover_interrupted_swap(&out, &staging, &swapping).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("index.html")).unwrap(),
            "old"
        );
        // Stopped after the new site went in: the old one becomes the staging copy.
        std::fs::create_dir_all(&swapping).unwrap();
        recover_interrupted_swap(&out, &staging, &swapping).unwrap();
        assert!(staging.is_dir() && !swapping.exists());
        let outputs = [Output::bytes("a/index.html", "new")];
        write(&outputs.iter().collect::<Vec<_>>(), &out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("a/index.html")).unwrap(),
            "new"
        );
        assert!(!out.join("index.html").exists());
    }

    #[test]
    fn url_to_file() {
        assert_eq!(file_for_url("/"), "index.html");
        assert_eq!(file_for_url("/cases/page/2/"), "cases/page/2/index.html");
        assert_eq!(file_for_url("/sitemap.xml"), "sitemap.xml");
    }
}
