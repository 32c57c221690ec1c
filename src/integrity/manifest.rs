//! The integrity manifest (`manifest.json`) and `casebook verify`.
//!
//! The manifest lists every published file with its SHA-256 and size and, for each image,
//! the SHA-256 of the source it was derived from, the redactions applied and the operation.
//! Anyone holding a source photograph can check which published files came from it, and
//! anyone holding a copy of the site can check that no file changed since it was built.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::merkle::Tree;
use super::{CaseRecord, FileRecord};
use crate::content::photos::Region;
use crate::error::{Diagnostic, Error, Result};
use crate::hashing::hex;
use crate::images::{ImageSet, PIPELINE_VERSION};
use crate::output::{Data, Output};

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
        // Over a hundred megabytes at archive scale: measured first and written into a
        // buffer of its size, since a growing buffer holds up to three times that at once.
        let mut counter = ByteCount(0);
        serde_json::to_writer_pretty(&mut counter, self).expect("manifest serialises");
        let mut bytes = Vec::with_capacity(counter.0 + 1);
        serde_json::to_writer_pretty(&mut bytes, self).expect("manifest serialises");
        bytes.push(b'\n');
        Output::bytes(MANIFEST, bytes)
    }

    /// A hash of everything `output` writes, made without writing it: at archive scale the
    /// manifest is over a hundred megabytes, so a build whose manifest has the fingerprint
    /// of the published one leaves that file as it is. The Merkle root stands for the files
    /// and cases it is made from; the rest is hashed field by field.
    pub(crate) fn fingerprint(&self) -> u128 {
        use crate::hashing::{Hasher, casebook_identity};
        let mut h = Hasher::default();
        h.text(&casebook_identity());
        h.text(&self.generator);
        h.text(&self.pipeline);
        h.text(&self.merkle_root);
        h.number(self.images.len() as u64);
        for image in &self.images {
            for text in [
                &image.path,
                &image.sha256,
                &image.source,
                &image.source_sha256,
                &image.kind,
                &image.format,
            ] {
                h.text(text);
            }
            for number in [image.width, image.height, u32::from(image.quality)] {
                h.number(u64::from(number));
            }
            h.number(image.redactions.len() as u64);
            for region in &image.redactions {
                for fraction in [region.x, region.y, region.w, region.h] {
                    h.number(fraction.to_bits());
                }
                h.number(region.method as u64);
            }
            h.text(image.fill.as_deref().unwrap_or(""));
        }
        h.serialized(&self.withdrawn);
        h.digest()
    }
}

/// A writer that only counts what it is given.
struct ByteCount(usize);

impl std::io::Write for ByteCount {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0 += bytes.len();
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
    /// The colour `fill` regions were filled with (`#rrggbb`), so that `verify
    /// --redactions` can check them in the pixels; only when there is one. Manifests
    /// before it lack it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fill: Option<String>,
}

/// File records of earlier builds by path (`casebook serve`). The caller forgets every path
/// whose bytes changed; the rest are not hashed again.
pub(crate) type FileHashes = crate::output::PathMap<FileRecord>;

/// The manifest of `outputs` (which must not contain the manifest itself), reusing the
/// records in `known` and adding the new ones to it (serve; a one-shot build has no next
/// build to keep them for), with the Merkle tree of its files.
/// Fails if any output is byte for byte a source photograph: that would publish an original.
pub(crate) fn build_cached(
    outputs: &[&Output],
    images: &ImageSet,
    cases: Vec<CaseRecord>,
    withdrawn: Vec<WithdrawnRecord>,
    mut known: Option<&mut FileHashes>,
) -> Result<(Manifest, Tree)> {
    let mut files: Vec<FileRecord> = outputs
        .par_iter()
        .map(|o| {
            if let Some(record) = known.as_ref().and_then(|k| k.get(&o.path)) {
                return Ok(record.clone());
            }
            let (sha256, size) = match &o.data {
                Data::Bytes(b) => (hex(&Sha256::digest(b)), b.len() as u64),
                Data::Cached { sha256, size, .. }
                | Data::Published { sha256, size, .. }
                | Data::Staged { sha256, size, .. } => (sha256.clone(), *size),
                Data::Copy(c) => (c.sha256.clone(), c.size),
            };
            Ok(FileRecord {
                path: o.path.clone(),
                sha256,
                size,
            })
        })
        .collect::<Result<_>>()?;
    if let Some(known) = known.as_mut().filter(|k| k.len() != files.len()) {
        **known = files.iter().map(|f| (f.path.clone(), f.clone())).collect();
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
                fill: photo
                    .redactions
                    .iter()
                    .any(|r| r.method == crate::content::photos::RedactMethod::Fill)
                    .then(|| crate::images::fill::colour(photo.fill)),
            });
        }
    }
    records.sort_by(|a, b| a.path.cmp(&b.path));
    records.dedup_by(|a, b| a.path == b.path);
    // A case lists only files the manifest lists.
    let paths: rustc_hash::FxHashSet<&str> = files.iter().map(|f| f.path.as_str()).collect();
    let listed = |p: &String| paths.contains(p.as_str());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::photos::RedactMethod;

    #[test]
    fn the_fingerprint_follows_everything_the_manifest_writes() {
        let image = ImageRecord {
            path: "cases/c/a.1.400.jpg".into(),
            sha256: "1".repeat(64),
            source: "content/cases/c/a.jpg".into(),
            source_sha256: "2".repeat(64),
            kind: "derivative".into(),
            width: 400,
            height: 300,
            format: "jpeg".into(),
            quality: 82,
            redactions: vec![Region {
                x: 0.1,
                y: 0.2,
                w: 0.3,
                h: 0.4,
                method: RedactMethod::Fill,
            }],
            fill: Some("#000000".into()),
        };
        let manifest = || Manifest {
            generator: "casebook".into(),
            pipeline: PIPELINE_VERSION.into(),
            merkle_root: "3".repeat(64),
            files: Vec::new(),
            images: vec![image.clone()],
            cases: Vec::new(),
            withdrawn: Vec::new(),
        };
        let base = manifest().fingerprint();
        assert_eq!(base, manifest().fingerprint());
        let changes: [fn(&mut Manifest); 7] = [
            |m| m.merkle_root = "4".repeat(64),
            |m| m.images[0].fill = Some("#ff00ff".into()),
            |m| m.images[0].redactions[0].method = RedactMethod::Pixelate,
            |m| m.images[0].redactions[0].w = 0.31,
            |m| m.images[0].source = "content/cases/c/b.jpg".into(),
            |m| m.images[0].quality = 83,
            |m| {
                m.withdrawn.push(WithdrawnRecord {
                    case: "c".into(),
                    date: "2026-01-01".into(),
                    reason: "r".into(),
                })
            },
        ];
        for (i, change) in changes.iter().enumerate() {
            let mut changed = manifest();
            change(&mut changed);
            assert_ne!(changed.fingerprint(), base, "change {i}");
        }
    }
}
