//! The per-case proofs of a whole copy, folder or URL alike: each case the manifest lists
//! has its proof in its shard (`integrity::shards`), leading through the chunk list to the
//! root and listing what the manifest lists. A visitor's browser and `verify --case` trust
//! one proof at a time, so the whole check holds every one.

use std::collections::BTreeSet;

use rayon::prelude::*;

use super::{Copy, Fetched, PROOF_LIMIT};
use crate::error::{Diagnostic, Error, Result};
use crate::integrity::manifest::Manifest;
use crate::integrity::merkle::{Chunks, Proof};
use crate::integrity::shards::{self, INDEX_FILE, Index, Shard};
use crate::signing::{CHUNKS_FILE, PROOFS_DIR};

/// The problems of the proofs of `manifest`'s cases and of any other file `found` under
/// `verify/proofs/` in the copy (a folder lists its own; a web copy cannot be listed), with
/// the chunk list they lead through, against `root`. An unsigned copy may have been built
/// without proofs (`signed`: whether it carries a signature, which needs them).
pub(super) fn check(
    copy: &Copy,
    manifest: &Manifest,
    root: &str,
    found: Vec<String>,
    signed: bool,
) -> Vec<Diagnostic> {
    let index_at = copy.locate(INDEX_FILE);
    let index = match copy.fetch(INDEX_FILE, PROOF_LIMIT) {
        Fetched::Bytes(bytes) => Index::parse(&bytes),
        Fetched::Missing if !signed && found.is_empty() => return Vec::new(),
        Fetched::Missing => Err("missing: the index of the per-case Merkle proofs".into()),
        Fetched::Failed(m) => Err(m),
    };
    let index = match index {
        Ok(index) => index,
        Err(m) => return vec![Diagnostic::new(index_at, m)],
    };
    let mut problems: Vec<Diagnostic> = found
        .iter()
        .filter(|path| shard_number(path, index.shards).is_none() && *path != INDEX_FILE)
        .map(|path| {
            Diagnostic::new(
                copy.locate(path),
                format!("not one of the {} proof shards of this copy", index.shards),
            )
        })
        .collect();
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
        Err(m) => {
            problems.push(Diagnostic::new(chunks_at, m));
            return problems;
        }
    };
    let checked: Vec<(Vec<Diagnostic>, Vec<String>)> = (0..index.shards)
        .into_par_iter()
        .map(|n| {
            let path = shards::path_of(n);
            let at = copy.locate(&path);
            let shard = match copy.fetch(&path, PROOF_LIMIT) {
                Fetched::Bytes(bytes) => Shard::parse(&bytes, n, index.shards),
                Fetched::Missing => Err(format!(
                    "missing: proof shard {n} of {}, which holds the proofs of the cases it is named for",
                    index.shards
                )),
                Fetched::Failed(m) => Err(m),
            };
            match shard {
                Err(m) => (vec![Diagnostic::new(at, m)], Vec::new()),
                Ok(shard) => {
                    let problems = (shard.proofs.iter())
                        .filter_map(|proof| {
                            let m = proof_problem(proof, &chunks)
                                .or_else(|| listed_differently(proof, manifest))?;
                            Some(Diagnostic::new(&at, format!("case `{}`: {m}", proof.case)))
                        })
                        .collect();
                    let cases = shard.proofs.into_iter().map(|p| p.case).collect();
                    (problems, cases)
                }
            }
        })
        .collect();
    let mut proven = BTreeSet::new();
    for (found, cases) in checked {
        problems.extend(found);
        proven.extend(cases);
    }
    for case in &manifest.cases {
        if !proven.contains(&case.case) {
            let n = shards::shard_of(&case.case, index.shards);
            problems.push(Diagnostic::new(
                copy.locate(&shards::path_of(n)),
                format!("missing: the Merkle proof of case `{}`", case.case),
            ));
        }
    }
    problems
}

/// `n` when `path` is shard `n` of `shards`.
fn shard_number(path: &str, shards: usize) -> Option<usize> {
    let n: usize = path
        .strip_prefix(PROOFS_DIR)?
        .strip_suffix(".json")?
        .parse()
        .ok()?;
    (n < shards && shards::path_of(n) == path).then_some(n)
}

/// The proof of case `id` from its shard, as a copy published it, and where the shard is;
/// the caller checks the proof.
pub(super) fn find(copy: &Copy, id: &str) -> Result<(Proof, std::path::PathBuf)> {
    let bytes = copy.required(
        INDEX_FILE,
        PROOF_LIMIT,
        "the index of the per-case Merkle proofs (a copy built without signing has none: check the whole copy instead, without --case)",
    )?;
    let index = Index::parse(&bytes)
        .map_err(|m| Error::one(Diagnostic::new(copy.locate(INDEX_FILE), m)))?;
    let n = shards::shard_of(id, index.shards);
    let path = shards::path_of(n);
    let at = copy.locate(&path);
    let bytes = copy.required(&path, PROOF_LIMIT, "the proof shard of this case")?;
    let shard =
        Shard::parse(&bytes, n, index.shards).map_err(|m| Error::one(Diagnostic::new(&at, m)))?;
    match shard.take(id) {
        Some(proof) => Ok((proof, at)),
        None => Err(Error::one(Diagnostic::new(
            &at,
            format!(
                "no Merkle proof for case `{id}` (no such case in this copy, or the copy dropped it)"
            ),
        ))),
    }
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
