//! The release files made after the manifest: each case's Merkle proof (packed into shards),
//! the signature, and the public key file. None of them is listed in the manifest: a proof and the signature
//! are made from it, and each carries what it is checked against.

use std::collections::BTreeMap;

use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::State;
use crate::config::Config;
use crate::error::{Diagnostic, Error, Result};
use crate::integrity::CaseRecord;
use crate::integrity::manifest::{Manifest, WithdrawnRecord};
use crate::integrity::merkle::{Chunks, Proof, Tree};
use crate::integrity::shards;
use crate::output::{self, Output};
use crate::signing::{CHUNKS_FILE, PUBLIC_KEY_FILE, Release, SIGNATURE_FILE, SigningKey};

/// How a build signs its manifest (`casebook build --sign`).
#[derive(Debug, Clone)]
pub struct Signing {
    /// The decrypted secret key.
    pub key: SigningKey,
    /// Written into the signed comment (`--release-label`).
    pub label: Option<String>,
    /// Written into the signed comment (`--timestamp`): the build is then no longer
    /// reproducible byte for byte.
    pub timestamp: Option<String>,
    /// RFC 3161 time-stamp authorities to stamp the signature (`--tsa`), in order.
    pub authorities: Vec<String>,
    /// An authority that fails is a warning, not a failed build (`--tsa-optional`).
    pub authorities_optional: bool,
}

/// Refuses a key kept in the site folder, or one whose public half is not the site's.
pub(super) fn check_key(config: &Config, signing: &Signing) -> Result<()> {
    let file = &signing.key.file;
    let abs = |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    if abs(file).starts_with(abs(&config.root)) {
        return Err(Error::one(
            Diagnostic::new(file, "refusing to sign with a secret key kept inside the site folder")
                .hint("move the key out of the site folder (and out of its repository), e.g. to ~/casebook-keys/, and give that path to --sign"),
        ));
    }
    let public = signing.key.public();
    let config_file = crate::config::CONFIG_FILE;
    match &config.public_key {
        None => Err(Error::one(
            Diagnostic::new(config_file, "the site has no public key, so a signature could not be checked by anyone")
                .field("signing.public_key")
                .hint(format!("add to casebook.toml:\n\n[signing]\npublic_key = \"{}\"", public.to_base64())),
        )),
        Some(key) if *key != public => Err(Error::one(
            Diagnostic::new(config_file, format!(
                "the signing key {} (key ID {}) is not the one casebook.toml publishes (key ID {})",
                file.display(), public.id(), key.id()
            ))
            .field("signing.public_key")
            .hint("sign with the secret key that belongs to [signing] public_key, or publish this key's public half there"),
        )),
        Some(_) => Ok(()),
    }
}

/// The manifest's record of every withdrawn case, once per case.
pub(super) fn withdrawn_records(state: &State) -> Vec<WithdrawnRecord> {
    let mut records: Vec<WithdrawnRecord> = state
        .corpus
        .withdrawn
        .iter()
        .filter_map(|p| {
            let case = p.case.as_ref()?;
            let w = case.withdrawn.as_ref()?;
            Some(WithdrawnRecord {
                case: case.id.clone(),
                date: w.date.format("%Y-%m-%d").to_string(),
                reason: w.reason.clone(),
            })
        })
        .collect();
    records.sort();
    records.dedup();
    records
}

/// Every case's files, by case id: its page in every language and every published file of
/// its photographs, sorted by path (the order of the manifest's files).
pub(super) fn case_records(state: &State) -> Vec<CaseRecord> {
    let mut cases: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let pages = state.corpus.pages.iter().chain(&state.corpus.withdrawn);
    for page in pages {
        let Some(case) = &page.case else { continue };
        let files = cases.entry(case.id.as_str()).or_default();
        files.push(output::file_for_url(&page.meta.path));
        for spec in &page.meta.photos {
            if let Some(photo) = state.images.get(spec) {
                let all = photo
                    .sizes
                    .iter()
                    .chain(std::iter::once(&photo.placeholder));
                files.extend(all.map(|img| img.path.trim_start_matches('/').to_string()));
            }
        }
    }
    cases
        .into_iter()
        .map(|(id, mut files)| {
            files.sort_unstable();
            files.dedup();
            CaseRecord {
                case: id.to_string(),
                files,
            }
        })
        .collect()
}

/// Every case's proof, packed into shards (`verify/proofs/<n>.json`, `integrity::shards`)
/// with their index, and the chunk list they lead through; nothing unless `published`
/// (a signed build, or `--proofs`): unsigned, a proof vouches only for itself.
pub(super) fn proofs(tree: &Tree, manifest: &Manifest, published: bool) -> Vec<Output> {
    if !published {
        return Vec::new();
    }
    let files = &manifest.files;
    let proofs: Vec<Proof> = manifest
        .cases
        .par_iter()
        .enumerate()
        .map(|(i, case)| {
            // The manifest keeps only the files it lists in a case, sorted like `files`.
            let indices: Vec<usize> = case
                .files
                .iter()
                .filter_map(|p| files.binary_search_by(|f| f.path.cmp(p)).ok())
                .collect();
            Proof::new(tree, files, &case.case, files.len() + i, &indices)
        })
        .collect();
    let count = shards::count(proofs.len());
    let mut made: Vec<Output> = shards::pack(proofs, count)
        .par_iter()
        .map(|shard| Output::bytes(shards::path_of(shard.shard), json(shard)))
        .collect();
    made.push(Output::bytes(
        shards::INDEX_FILE,
        json(&shards::Index::new(count)),
    ));
    made.push(Output::bytes(CHUNKS_FILE, json(&Chunks::new(tree))));
    made
}

/// A release file's bytes: its JSON and a newline.
fn json(value: &impl serde::Serialize) -> Vec<u8> {
    let mut bytes = serde_json::to_vec(value).expect("a release file serialises");
    bytes.push(b'\n');
    bytes
}

/// `manifest.json.minisig`: the signature of the manifest's bytes.
pub(super) fn signature(
    signing: &Signing,
    manifest: &Output,
    merkle_root: &str,
    base_url: &str,
) -> Result<Output> {
    // Read back from the output folder when the build left the published manifest as it is.
    let bytes = manifest
        .read()
        .map_err(|e| Error::io(std::path::Path::new(&manifest.path), e))?;
    let release = Release {
        merkle_root: merkle_root.to_string(),
        manifest_sha256: crate::hashing::hex(&Sha256::digest(&bytes)),
        base_url: base_url.to_string(),
        timestamp: signing.timestamp.clone(),
        label: signing.label.clone(),
    };
    let text = signing.key.sign(&bytes, &release.to_line());
    Ok(Output::bytes(SIGNATURE_FILE, text))
}

/// `.well-known/casebook.pub`, when the site has a public key.
pub(super) fn public_key_file(config: &crate::config::Config) -> Option<Output> {
    let key = config.public_key.as_ref()?;
    Some(Output::bytes(PUBLIC_KEY_FILE, key.file_text()))
}
