//! The per-case proofs of a whole copy, folder or URL alike: each case the manifest lists
//! has its proof at `verify/proofs/<id>.json`, naming that case, leading through the chunk
//! list to the root and listing what the manifest lists. A visitor's browser and
//! `verify --case` trust one proof at a time, so the whole check holds every one.

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::{Copy, Fetched, PROOF_LIMIT};
use crate::error::Diagnostic;
use crate::integrity::manifest::Manifest;
use crate::integrity::merkle::{Chunks, Proof};
use crate::signing::{CHUNKS_FILE, PROOFS_DIR};

/// The problems of the proofs of `manifest`'s cases and of any other proof file `found`
/// in the copy (a folder lists its own; a web copy cannot be listed), with the chunk list
/// they lead through, against `root`.
pub(super) fn check(
    copy: &Copy,
    manifest: &Manifest,
    root: &str,
    found: Vec<String>,
) -> Vec<Diagnostic> {
    let expected: BTreeSet<String> = manifest.cases.iter().map(|c| path_of(&c.case)).collect();
    let mut paths = found;
    paths.retain(|p| !expected.contains(p));
    paths.extend(expected);
    if paths.is_empty() {
        return Vec::new();
    }
    let chunks_at = copy.locate(CHUNKS_FILE);
    let chunks = match copy.fetch(CHUNKS_FILE, PROOF_LIMIT) {
        Fetched::Bytes(bytes) => parse_chunks(&bytes, root),
        Fetched::Missing => {
            Err("missing: the Merkle chunk list, which every proof leads through".into())
        }
        Fetched::Failed(m) => Err(m),
    };
    let chunks = match chunks {
        Ok(chunks) => chunks,
        Err(m) => return vec![Diagnostic::new(chunks_at, m)],
    };
    paths
        .par_iter()
        .filter_map(|path| {
            let named = path
                .strip_prefix(PROOFS_DIR)
                .and_then(|p| p.strip_suffix(".json"))
                .unwrap_or(path);
            let problem = match copy.fetch(path, PROOF_LIMIT) {
                Fetched::Bytes(bytes) => problem(&bytes, named, &chunks, manifest)?,
                Fetched::Missing => format!("missing: the Merkle proof of case `{named}`"),
                Fetched::Failed(m) => m,
            };
            Some(Diagnostic::new(copy.locate(path), problem))
        })
        .collect()
}

/// Where the proof of case `id` is published.
pub(super) fn path_of(id: &str) -> String {
    format!("{PROOFS_DIR}{id}.json")
}

/// Why the proof file published for case `named` is not that case's proof in this
/// manifest, if it is not.
fn problem(bytes: &[u8], named: &str, chunks: &Chunks, manifest: &Manifest) -> Option<String> {
    let proof = match serde_json::from_slice::<Proof>(bytes) {
        Ok(proof) => proof,
        Err(e) => return Some(format!("not a Merkle proof: {e}")),
    };
    // A visitor fetches `<id>.json` for case `<id>`: a proof of another case there (two
    // proofs swapped) would vouch for the wrong files.
    if named != proof.case {
        return Some(format!(
            "this file is the proof of case `{}`, not of case `{named}`",
            proof.case
        ));
    }
    proof_problem(&proof, chunks).or_else(|| listed_differently(&proof, manifest))
}

/// A chunk list, if it is one and leads to `root`.
pub(super) fn parse_chunks(bytes: &[u8], root: &str) -> Result<Chunks, String> {
    let chunks: Chunks =
        serde_json::from_slice(bytes).map_err(|e| format!("not a Merkle chunk list: {e}"))?;
    match chunks.computed_root() {
        Err(m) => Err(format!("the chunk list is broken: {m}")),
        Ok(r) if r != root => Err(format!(
            "the chunk list leads to the Merkle root {r}, not to {root}"
        )),
        Ok(_) => Ok(chunks),
    }
}

/// Why a proof does not lead through `chunks` (already checked to lead to the root), if it
/// does not.
pub(super) fn proof_problem(proof: &Proof, chunks: &Chunks) -> Option<String> {
    let problem = proof.leads_into(chunks).err()?;
    Some(format!("the proof is broken: {problem}"))
}

/// A proof that leads to the root lists what the manifest lists; this second look names
/// the file, and pins the proof to the tree's size and to its case's record.
fn listed_differently(proof: &Proof, manifest: &Manifest) -> Option<String> {
    let leaves = manifest.files.len() + manifest.cases.len();
    if proof.leaf_count != leaves {
        return Some(format!(
            "the proof counts {} leaves, the manifest {leaves}",
            proof.leaf_count
        ));
    }
    let record = proof
        .case_index
        .checked_sub(manifest.files.len())
        .and_then(|i| manifest.cases.get(i));
    if record.is_none_or(|r| r.case != proof.case) {
        return Some(format!(
            "the proof is not the manifest's proof of case `{}`",
            proof.case
        ));
    }
    proof.files.iter().find_map(|f| {
        let record = manifest.files.get(f.index)?;
        (record.path != f.path || record.sha256 != f.sha256 || record.size != f.size).then(|| {
            format!(
                "the proof's entry for {} differs from the manifest's",
                f.path
            )
        })
    })
}
