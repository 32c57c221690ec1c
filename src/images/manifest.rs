//! The integrity manifest (`manifest.json`) and `casebook verify`.
//!
//! The manifest lists every published file with its SHA-256 and size and, for each image,
//! the SHA-256 of the source it was derived from, the redactions applied and the operation.
//! Anyone holding a source photograph can check which published files came from it, and
//! anyone holding a copy of the site can check that no file changed since it was built.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{ImageSet, PIPELINE_VERSION, hex};
use crate::content::photos::Region;
use crate::error::{Diagnostic, Error, Result};
use crate::output::{Data, Output};
use crate::signing::merkle::Tree;

pub(crate) const MANIFEST: &str = "manifest.json";

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub(crate) generator: String,
    pub(crate) pipeline: String,
    /// The Merkle root of `files` (see `signing::merkle`).
    #[serde(default)]
    pub(crate) merkle_root: String,
    pub(crate) files: Vec<FileRecord>,
    pub(crate) images: Vec<ImageRecord>,
    /// Each case's files (its pages and its photographs'), which its proof must cover.
    #[serde(default)]
    pub(crate) cases: Vec<CaseRecord>,
    /// Withdrawn cases: a verifier tells a withdrawn record from a deleted one.
    #[serde(default)]
    pub(crate) withdrawn: Vec<WithdrawnRecord>,
}

/// A case and the paths of its files, in the order of `files`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct CaseRecord {
    pub(crate) case: String,
    pub(crate) files: Vec<String>,
}

/// A withdrawn case, as the manifest lists it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct WithdrawnRecord {
    pub(crate) case: String,
    pub(crate) date: String,
    pub(crate) reason: String,
}

impl Manifest {
    /// `manifest.json`.
    pub(crate) fn output(&self) -> Output {
        let mut bytes = serde_json::to_vec_pretty(self).expect("manifest serialises");
        bytes.push(b'\n');
        Output::bytes(MANIFEST, bytes)
    }
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
/// records in `known` and adding the new ones to it, with the Merkle tree of its files.
/// Fails if any output is byte for byte a source photograph: that would publish an original.
pub(crate) fn build_cached(
    outputs: &[&Output],
    images: &ImageSet,
    cases: Vec<CaseRecord>,
    withdrawn: Vec<WithdrawnRecord>,
    known: &mut FileHashes,
) -> Result<(Manifest, Tree)> {
    let mut files: Vec<FileRecord> = outputs
        .par_iter()
        .map(|o| {
            if let Some(record) = known.get(&o.path) {
                return Ok(record.clone());
            }
            let (sha256, size) = match &o.data {
                Data::Bytes(b) => (hex(&Sha256::digest(b)), b.len() as u64),
                Data::Cached { sha256, size, .. } | Data::Published { sha256, size, .. } => {
                    (sha256.clone(), *size)
                }
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
    // A case lists only files the manifest lists (`files` is sorted by path).
    let listed = |p: &String| files.binary_search_by(|f| f.path.cmp(p)).is_ok();
    let cases: Vec<CaseRecord> = cases
        .into_iter()
        .map(|mut c| {
            c.files.retain(listed);
            c
        })
        .collect();
    let tree = Tree::new(&files, &cases);
    let manifest = Manifest {
        generator: "casebook".into(),
        pipeline: PIPELINE_VERSION.into(),
        merkle_root: tree.root(),
        files,
        images: records,
        cases,
        withdrawn,
    };
    Ok((manifest, tree))
}
