//! The archive's integrity: the manifest that ties every published file to its SHA-256 and
//! every photograph to its source (`manifest`), and the Merkle tree over it whose root a
//! release signs, with the per-case proofs and chunk list that let one case be checked
//! alone (`merkle`), packed into shards of a few cases each (`shards`). Built by `site`, signed by `signing`, checked by `verify`.

pub(crate) mod manifest;
pub(crate) mod merkle;
pub(crate) mod shards;

use serde::{Deserialize, Serialize};

/// A case and the paths of its files, in the order of `files`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct CaseRecord {
    pub(crate) case: String,
    pub(crate) files: Vec<String>,
}

/// A published file as the manifest lists it and the Merkle tree hashes it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct FileRecord {
    pub(crate) path: String,
    pub sha256: String,
    pub(crate) size: u64,
}
