//! The archive's integrity: the manifest that ties every published file to its SHA-256 and
//! every photograph to its source (`manifest`), and the Merkle tree over it whose root a
//! release signs, with the per-case proofs and chunk list that let one case be checked
//! alone (`merkle`). Built by `site`, signed by `signing`, checked by `verify`.

pub(crate) mod manifest;
pub(crate) mod merkle;
