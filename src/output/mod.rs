//! The last stage: the site's files, and writing them to the output folder.
//!
//! `write` makes the folder hold exactly the build's files, atomically: a failed build
//! writes nothing, and a build stopped half-way is completed by the next one. `record`
//! remembers what the last build published, so the next one neither rewrites nor re-reads
//! unchanged files, and can leave unchanged pages unrendered.

mod record;
mod stage;
mod write;

use std::path::{Path, PathBuf};

use crate::error::{Diagnostic, Error, Result};
pub(crate) use record::{FILE as RECORD_FILE, Fingerprint, Prior};
pub(crate) use stage::Stage;
pub(crate) use write::{recover, write};

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
    /// Copied from a source file as it is (attachments, never images).
    Copy(PathBuf),
    /// A derivative in the image cache, whose hash is already known. Copied into place
    /// only when the published copy is missing or differs.
    Cached {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
    /// Already in the output folder, unchanged since the last build wrote it (a page whose
    /// inputs did not change is not rendered again).
    Published {
        file: PathBuf,
        sha256: String,
        size: u64,
    },
    /// A page of a new output folder, already written into its staging folder
    /// (`stage.rs`): only its hash and size are kept.
    Staged {
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
            Data::Copy(p)
            | Data::Cached { file: p, .. }
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
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = file.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, file)
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
