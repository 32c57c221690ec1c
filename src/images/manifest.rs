//! The integrity manifest (`manifest.json`) and `casebook verify`.
//!
//! The manifest lists every published file with its SHA-256 and size and, for each image,
//! the SHA-256 of the source it was derived from, the redactions applied and the operation.
//! Anyone holding a source photograph can check which published files came from it, and
//! anyone holding a copy of the site can check that no file changed since it was built.

use std::collections::BTreeMap;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ImageSet, PIPELINE_VERSION, hex};
use crate::content::photos::Region;
use crate::error::{Diagnostic, Error, Result};
use crate::output::{Data, Output};

pub(crate) const MANIFEST: &str = "manifest.json";

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub(crate) generator: String,
    pub(crate) pipeline: String,
    pub(crate) files: Vec<FileRecord>,
    pub(crate) images: Vec<ImageRecord>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct FileRecord {
    pub(crate) path: String,
    pub sha256: String,
    pub(crate) size: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct ImageRecord {
    pub(crate) path: String,
    pub sha256: String,
    pub(crate) source: String,
    pub source_sha256: String,
    /// `derivative` or `placeholder`.
    pub(crate) kind: String,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) format: String,
    pub(crate) quality: u8,
    pub(crate) redactions: Vec<Region>,
}

/// File records of earlier builds by path (`casebook serve`). The caller forgets every path
/// whose bytes changed; the rest are not hashed again.
pub(crate) type FileHashes = std::collections::HashMap<String, FileRecord>;

/// The manifest of `outputs` (which must not contain the manifest itself), reusing the
/// records in `known` and adding the new ones to it. Fails if any output is byte for byte a
/// source photograph: that would publish an original.
pub(crate) fn build_cached(
    outputs: &[&Output],
    images: &ImageSet,
    known: &mut FileHashes,
) -> Result<Output> {
    let mut files: Vec<FileRecord> = outputs
        .par_iter()
        .map(|o| {
            if let Some(record) = known.get(&o.path) {
                return Ok(record.clone());
            }
            let (sha256, size) = match &o.data {
                Data::Bytes(b) => (hex(&Sha256::digest(b)), b.len() as u64),
                Data::Cached { sha256, size, .. } => (sha256.clone(), *size),
                Data::Copy(p) => {
                    let b = std::fs::read(p).map_err(|e| Error::io(p, e))?;
                    (hex(&Sha256::digest(&b)), b.len() as u64)
                }
            };
            Ok(FileRecord {
                path: o.path.clone(),
                sha256,
                size,
            })
        })
        .collect::<Result<_>>()?;
    if known.len() != files.len() {
        *known = files.iter().map(|f| (f.path.clone(), f.clone())).collect();
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    let sources = images.source_hashes();
    let leaks: Vec<Diagnostic> = files
        .iter()
        .filter(|f| sources.contains(&f.sha256))
        .map(|f| {
            Diagnostic::new(&f.path, "would publish a source photograph unchanged")
                .hint("remove the file from static/ or the page folder; photographs are published only through [[photos]]")
        })
        .collect();
    if !leaks.is_empty() {
        return Err(Error::Diagnostics(leaks));
    }
    let mut records = Vec::new();
    for photo in images.all() {
        let sizes = photo.sizes.iter().map(|s| ("derivative", s, photo.quality));
        let all = sizes.chain(std::iter::once(("placeholder", &photo.placeholder, 60)));
        for (kind, img, quality) in all {
            records.push(ImageRecord {
                path: img.path.trim_start_matches('/').to_string(),
                sha256: img.sha256.clone(),
                source: photo.source.to_string_lossy().replace('\\', "/"),
                source_sha256: photo.source_sha256.clone(),
                kind: kind.into(),
                width: img.width,
                height: img.height,
                format: "jpeg".into(),
                quality,
                redactions: photo.redactions.clone(),
            });
        }
    }
    records.sort_by(|a, b| a.path.cmp(&b.path));
    records.dedup_by(|a, b| a.path == b.path);
    let manifest = Manifest {
        generator: "casebook".into(),
        pipeline: PIPELINE_VERSION.into(),
        files,
        images: records,
    };
    let mut bytes = serde_json::to_vec_pretty(&manifest).expect("manifest serialises");
    bytes.push(b'\n');
    Ok(Output::bytes(MANIFEST, bytes))
}

/// What `casebook verify` found.
#[derive(Debug, Default)]
pub struct Verified {
    /// Files checked.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
}

/// Re-hashes every file of a built or downloaded site against its manifest. Reports every
/// missing, changed or unlisted file.
pub(crate) fn verify(dir: &Path) -> Result<Verified> {
    let path = dir.join(MANIFEST);
    let text = std::fs::read(&path).map_err(|e| {
        Error::one(
            Diagnostic::new(&path, format!("cannot read the manifest: {e}"))
                .hint("point casebook verify at the folder of a built site (the one holding manifest.json)"),
        )
    })?;
    let manifest: Manifest = serde_json::from_slice(&text).map_err(|e| {
        Error::one(Diagnostic::new(
            &path,
            format!("the manifest is not valid: {e}"),
        ))
    })?;
    let listed: BTreeMap<&str, &FileRecord> = manifest
        .files
        .iter()
        .map(|f| (f.path.as_str(), f))
        .collect();
    let mut problems: Vec<Diagnostic> = manifest
        .files
        .par_iter()
        .filter_map(|f| {
            let file = dir.join(&f.path);
            let bad = |m: String| Some(Diagnostic::new(&file, m));
            if f.path.contains("..") || Path::new(&f.path).is_absolute() {
                return bad("the manifest lists a path outside the site".into());
            }
            match std::fs::read(&file) {
                Err(_) => bad("listed in the manifest but missing".into()),
                Ok(b) if b.len() as u64 != f.size => bad(format!(
                    "size {} differs from the manifest's {}",
                    b.len(),
                    f.size
                )),
                Ok(b) => {
                    let h = hex(&Sha256::digest(&b));
                    (h != f.sha256).then(|| {
                        Diagnostic::new(
                            &file,
                            format!("SHA-256 {h} differs from the manifest's {}", f.sha256),
                        )
                    })
                }
            }
        })
        .collect();
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(|e| e.ok())
    {
        if !entry.file_type().is_file() {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(dir)
            .expect("below root")
            .to_string_lossy()
            .replace('\\', "/");
        if rel != MANIFEST && !listed.contains_key(rel.as_str()) {
            problems.push(Diagnostic::new(entry.path(), "not listed in the manifest"));
        }
    }
    if !problems.is_empty() {
        problems.sort();
        return Err(Error::Diagnostics(problems));
    }
    Ok(Verified {
        files: manifest.files.len(),
        bytes: manifest.files.iter().map(|f| f.size).sum(),
    })
}
