//! `casebook verify`: checks a built, downloaded or mirrored copy of a site.
//!
//! In order: the signature of `manifest.json` (when a public key is given), then the
//! Merkle root of the manifest's files, then every file and every case's proof
//! (`proofs.rs`), or, with `--case`, one case's files through its Merkle proof, without
//! the manifest. A copy is read from a folder or fetched over HTTP(S), and checked the same
//! way but for what only a folder can show (files and proofs the manifest does not list).
//! Every changed, missing or unlisted file is reported.

mod http;
mod proofs;
mod redactions;
mod stamps;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use sha2::{Digest, Sha256};

pub use redactions::RedactionsVerified;
pub(crate) use redactions::verify_redactions;

use crate::error::{Diagnostic, Error, Result};
use crate::hashing::hex;
use crate::integrity::FileRecord;
use crate::integrity::manifest::{MANIFEST, Manifest};
use crate::integrity::merkle::Tree;
use crate::signing::{self, CHUNKS_FILE, PROOFS_DIR, PublicKey, Release, SIGNATURE_FILE};

/// What to check.
#[derive(Debug, Clone, Default)]
pub struct VerifyOptions {
    /// A folder, or an `http(s)://` address of a published copy.
    pub target: String,
    /// The publisher's public key: the signature is checked, and a copy without one fails.
    pub public_key: Option<PublicKey>,
    /// Check only this case, through its Merkle proof.
    pub case: Option<String>,
    /// Root certificates the time-stamp authorities' certificates must lead to
    /// (`--tsa-cert`, or `[signing] tsa_certs`); none: the tokens are checked but for that.
    pub tsa_certs: Vec<PathBuf>,
}

/// What `casebook verify` found when everything held.
#[derive(Debug, Default)]
pub struct Verified {
    /// Files checked.
    pub files: usize,
    /// Their total size.
    pub bytes: u64,
    /// The Merkle root the files lead to.
    pub merkle_root: String,
    /// What the signature vouched for, when a key was given.
    pub release: Option<ReleaseInfo>,
    /// Whether a signature was there but not checked (no key given).
    pub signature_unchecked: bool,
    /// The time-stamp tokens over the signature, each checked.
    pub stamps: Vec<crate::timestamp::Stamp>,
}

/// The signed release's label and address.
#[derive(Debug, Clone)]
pub struct ReleaseInfo {
    /// `--release-label`, if given when signing.
    pub label: Option<String>,
    /// The base URL the release was built for.
    pub base_url: String,
    /// `--timestamp`, if given when signing.
    pub timestamp: Option<String>,
}

impl From<Release> for ReleaseInfo {
    fn from(r: Release) -> Self {
        ReleaseInfo {
            label: r.label,
            base_url: r.base_url,
            timestamp: r.timestamp,
        }
    }
}

enum Fetched {
    Bytes(Vec<u8>),
    Missing,
    Failed(String),
}

/// A copy of a site: a folder or a web address.
enum Copy {
    Dir(PathBuf),
    Web(http::Site),
}

/// The largest manifest, proof and signature read.
const MANIFEST_LIMIT: u64 = 2 << 30;
const PROOF_LIMIT: u64 = 16 << 20;
const SIGNATURE_LIMIT: u64 = 16 << 10;

impl Copy {
    fn open(target: &str) -> Result<Copy> {
        if target.starts_with("http://") || target.starts_with("https://") {
            http::Site::new(target)
                .map(Copy::Web)
                .map_err(|m| Error::one(Diagnostic::new(target, m)))
        } else {
            Ok(Copy::Dir(PathBuf::from(target)))
        }
    }

    /// Where a path of the site is, for messages.
    fn locate(&self, path: &str) -> PathBuf {
        match self {
            Copy::Dir(dir) => dir.join(path),
            Copy::Web(site) => PathBuf::from(site.url(path)),
        }
    }

    fn fetch(&self, path: &str, limit: u64) -> Fetched {
        match self {
            Copy::Dir(dir) => read_regular(&dir.join(path), limit),
            Copy::Web(site) => site.fetch(path, limit),
        }
    }

    fn manifest(&self) -> Result<Vec<u8>> {
        self.required(
            MANIFEST,
            MANIFEST_LIMIT,
            "manifest.json, the list of the site's files",
        )
    }

    /// Whether the copy carries a signature (for saying that it was not checked).
    fn is_signed(&self) -> bool {
        matches!(
            self.fetch(SIGNATURE_FILE, SIGNATURE_LIMIT),
            Fetched::Bytes(_)
        )
    }

    /// A file the check cannot go on without.
    fn required(&self, path: &str, limit: u64, missing: &str) -> Result<Vec<u8>> {
        match self.fetch(path, limit) {
            Fetched::Bytes(b) => Ok(b),
            Fetched::Missing => Err(Error::one(
                Diagnostic::new(self.locate(path), format!("missing: {missing}")).hint(match self {
                    Copy::Dir(_) => "point casebook verify at the folder of a built site (the one holding manifest.json)",
                    Copy::Web(_) => "give the address of the site's top (where manifest.json is published)",
                }),
            )),
            Fetched::Failed(m) => Err(Error::one(Diagnostic::new(self.locate(path), m))),
        }
    }
}

/// Checks a copy of a site; see the module documentation for the order.
pub(crate) fn verify(options: &VerifyOptions) -> Result<Verified> {
    let copy = Copy::open(&options.target)?;
    let anchors = stamps::anchors(&options.tsa_certs)?;
    let release = match &options.public_key {
        Some(key) => Some(signature(&copy, key, options.case.is_some())?),
        None => None,
    };
    let stamps = stamps::check(&copy, &anchors)?;
    let verified = match &options.case {
        Some(case) => verify_case(&copy, case, release),
        None => verify_all(&copy, release),
    }?;
    Ok(Verified { stamps, ..verified })
}

/// The signature file, checked against `key`: over the manifest, or (for one case) only its
/// trusted comment. Returns the checked release and, for a whole copy, the manifest's bytes.
fn signature(copy: &Copy, key: &PublicKey, comment_only: bool) -> Result<Signed> {
    let located = |m: String| Error::one(Diagnostic::new(copy.locate(SIGNATURE_FILE), m));
    let text = match copy.fetch(SIGNATURE_FILE, SIGNATURE_LIMIT) {
        Fetched::Bytes(b) => {
            String::from_utf8(b).map_err(|_| located("the signature file is not text".into()))?
        }
        Fetched::Missing => {
            return Err(Error::one(
                Diagnostic::new(copy.locate(SIGNATURE_FILE), "unsigned: this copy has no signature, so nothing proves it is the publisher's")
                    .hint("a signed release carries manifest.json.minisig beside manifest.json; ask the publisher for a signed copy, or check without --pubkey to compare files with the manifest alone"),
            ));
        }
        Fetched::Failed(m) => return Err(located(m)),
    };
    if comment_only {
        let release = signing::verify_comment(key, &text).map_err(located)?;
        return Ok(Signed {
            release,
            manifest: None,
        });
    }
    let manifest = copy.manifest()?;
    let release = signing::verify(key, &text, &manifest).map_err(located)?;
    Ok(Signed {
        release,
        manifest: Some(manifest),
    })
}

struct Signed {
    release: Release,
    manifest: Option<Vec<u8>>,
}

fn verify_all(copy: &Copy, signed: Option<Signed>) -> Result<Verified> {
    let (bytes, release) = match signed {
        Some(Signed {
            release,
            manifest: Some(bytes),
        }) => (bytes, Some(release)),
        _ => (copy.manifest()?, None),
    };
    let manifest_at = copy.locate(MANIFEST);
    let manifest = parse_manifest(copy, &bytes)?;
    let root = Tree::new(&manifest.files, &manifest.cases).root();
    let mut problems = Vec::new();
    if root != manifest.merkle_root {
        problems.push(Diagnostic::new(
            &manifest_at,
            format!(
                "the manifest's merkle_root {} is not the root of its files ({root})",
                manifest.merkle_root
            ),
        ));
    }
    if let Some(r) = &release {
        if r.merkle_root != root {
            problems.push(Diagnostic::new(
                &manifest_at,
                format!(
                    "the signed Merkle root {} is not the root of the manifest's files ({root})",
                    r.merkle_root
                ),
            ));
        }
    }
    if !problems.is_empty() {
        return Err(Error::Diagnostics(problems));
    }
    let mut problems: Vec<Diagnostic> = manifest
        .files
        .par_iter()
        .filter_map(|f| check_file(copy, f))
        .collect();
    let found = match copy {
        Copy::Dir(dir) => {
            let (unlisted, proofs) = unlisted(dir, &manifest);
            problems.extend(unlisted);
            proofs
        }
        Copy::Web(_) => Vec::new(),
    };
    let signed = release.is_some() || copy.is_signed();
    problems.extend(proofs::check(copy, &manifest, &root, found, signed));
    if !problems.is_empty() {
        problems.sort();
        return Err(Error::Diagnostics(problems));
    }
    let signature_unchecked = release.is_none() && copy.is_signed();
    Ok(Verified {
        files: manifest.files.len(),
        bytes: manifest.files.iter().map(|f| f.size).sum(),
        merkle_root: root,
        release: release.map(Into::into),
        signature_unchecked,
        stamps: Vec::new(),
    })
}

/// A regular file of at most `limit` bytes: a copy's symbolic links, devices and pipes are
/// not followed (an unpacked archive could point them anywhere).
fn read_regular(path: &Path, limit: u64) -> Fetched {
    use std::io::Read;
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Fetched::Missing,
        Err(e) => Fetched::Failed(format!("cannot read: {e}")),
        Ok(m) if !m.file_type().is_file() => {
            Fetched::Failed("not a regular file (a link, folder or device)".into())
        }
        Ok(m) if m.len() > limit => Fetched::Failed(format!("larger than {limit} bytes")),
        Ok(_) => {
            let mut bytes = Vec::new();
            match std::fs::File::open(path).and_then(|f| f.take(limit).read_to_end(&mut bytes)) {
                Ok(_) => Fetched::Bytes(bytes),
                Err(e) => Fetched::Failed(format!("cannot read: {e}")),
            }
        }
    }
}

fn parse_manifest(copy: &Copy, bytes: &[u8]) -> Result<Manifest> {
    serde_json::from_slice(bytes).map_err(|e| {
        Error::one(Diagnostic::new(
            copy.locate(MANIFEST),
            format!("the manifest is not valid: {e}"),
        ))
    })
}

/// A listed file's problem, if any: missing, another size, another hash.
fn check_file(copy: &Copy, f: &FileRecord) -> Option<Diagnostic> {
    let at = copy.locate(&f.path);
    let normal = Path::new(&f.path)
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    if !normal || f.path.split('/').any(str::is_empty) || f.path.contains(['\\', ':']) {
        return Some(Diagnostic::new(
            at,
            "the manifest lists a path outside the site",
        ));
    }
    match copy.fetch(&f.path, f.size.saturating_add(1)) {
        Fetched::Missing => Some(Diagnostic::new(at, "listed in the manifest but missing")),
        Fetched::Failed(m) => Some(Diagnostic::new(at, m)),
        Fetched::Bytes(b) if b.len() as u64 != f.size => Some(Diagnostic::new(
            at,
            format!("size {} differs from the manifest's {}", b.len(), f.size),
        )),
        Fetched::Bytes(b) => {
            let h = hex(&Sha256::digest(&b));
            (h != f.sha256).then(|| {
                Diagnostic::new(
                    at,
                    format!("SHA-256 {h} differs from the manifest's {}", f.sha256),
                )
            })
        }
    }
}

/// Files in the folder the manifest does not list, and the proof files it holds (for
/// `proofs::check`).
fn unlisted(dir: &Path, manifest: &Manifest) -> (Vec<Diagnostic>, Vec<String>) {
    let listed: BTreeSet<&str> = manifest.files.iter().map(|f| f.path.as_str()).collect();
    let mut problems = Vec::new();
    let mut proofs = Vec::new();
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
        if rel.starts_with(PROOFS_DIR) {
            proofs.push(rel);
        } else if !signing::is_left_out(&rel) && !listed.contains(rel.as_str()) {
            problems.push(Diagnostic::new(entry.path(), "not listed in the manifest"));
        }
    }
    (problems, proofs)
}

fn verify_case(copy: &Copy, case: &str, signed: Option<Signed>) -> Result<Verified> {
    if !crate::config::is_url_safe(case) {
        return Err(Error::one(Diagnostic::new(
            "--case",
            format!("`{case}` is not a case id"),
        )));
    }
    let (proof, at) = proofs::find(copy, case)?;
    // The root to reach: the signed one, or else the manifest's (a weaker check).
    let root = match &signed {
        Some(s) => s.release.merkle_root.clone(),
        None => parse_manifest(copy, &copy.manifest()?)?.merkle_root,
    };
    let chunks_at = copy.locate(CHUNKS_FILE);
    let chunk_bytes = copy.required(
        CHUNKS_FILE,
        PROOF_LIMIT,
        "no Merkle chunk list, which every proof leads through",
    )?;
    let chunks = proofs::parse_chunks(&chunk_bytes, &root)
        .map_err(|m| Error::one(Diagnostic::new(&chunks_at, m)))?;
    if let Some(m) = proofs::proof_problem(&proof, &chunks) {
        return Err(Error::one(Diagnostic::new(&at, m)));
    }
    if proof.case != case {
        return Err(Error::one(Diagnostic::new(
            &at,
            format!("the proof is for case `{}`, not `{case}`", proof.case),
        )));
    }
    let mut problems: Vec<Diagnostic> = proof
        .files
        .par_iter()
        .filter_map(|f| {
            check_file(
                copy,
                &FileRecord {
                    path: f.path.clone(),
                    sha256: f.sha256.clone(),
                    size: f.size,
                },
            )
        })
        .collect();
    if !problems.is_empty() {
        problems.sort();
        return Err(Error::Diagnostics(problems));
    }
    Ok(Verified {
        files: proof.files.len(),
        bytes: proof.files.iter().map(|f| f.size).sum(),
        merkle_root: root,
        signature_unchecked: signed.is_none() && copy.is_signed(),
        release: signed.map(|s| s.release.into()),
        stamps: Vec::new(),
    })
}
