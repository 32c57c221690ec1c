//! The per-case proofs packed into shards: one file per few cases instead of one per case
//! (11,000 files at archive scale), found without any list of cases. A case's shard is the
//! first four bytes of the SHA-256 of its id, big-endian, modulo the number of shards,
//! which `verify/proofs/index.json` gives; a power of two for about `PER_SHARD` cases each.
//! Each proof is checked against the signed root on its own, so a shard vouches for nothing
//! by itself: it only saves files.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::merkle::Proof;

/// Where the shards and their index are published.
pub(crate) const DIR: &str = "verify/proofs/";
/// `verify/proofs/index.json`.
pub(crate) const INDEX_FILE: &str = "verify/proofs/index.json";
const INDEX_FORMAT: &str = "casebook-proof-shards-1";
const SHARD_FORMAT: &str = "casebook-proof-shard-1";
/// About this many cases a shard: a browser checking one case fetches some 16 KB of
/// proofs, and 11,000 cases make 1,024 files.
const PER_SHARD: usize = 16;

/// `verify/proofs/index.json`: how many shards there are.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Index {
    pub(crate) format: String,
    pub(crate) shards: usize,
}

/// `verify/proofs/<n>.json`: the proofs of the cases whose shard is `n`, by case id.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Shard {
    pub(crate) format: String,
    pub(crate) shard: usize,
    pub(crate) shards: usize,
    pub(crate) proofs: Vec<Proof>,
}

/// The number of shards for `cases` cases.
pub(crate) fn count(cases: usize) -> usize {
    cases.div_ceil(PER_SHARD).max(1).next_power_of_two()
}

/// The shard of case `id` among `shards`.
pub(crate) fn shard_of(id: &str, shards: usize) -> usize {
    let digest = Sha256::digest(id.as_bytes());
    let first = u32::from_be_bytes(digest[..4].try_into().expect("4 bytes"));
    first as usize % shards.max(1)
}

/// Where shard `n` is published.
pub(crate) fn path_of(n: usize) -> String {
    format!("{DIR}{n}.json")
}

impl Index {
    pub(crate) fn new(shards: usize) -> Index {
        Index {
            format: INDEX_FORMAT.into(),
            shards,
        }
    }

    /// Checks what a copy published: the format, and a power of two.
    pub(crate) fn parse(bytes: &[u8]) -> Result<Index, String> {
        let index: Index =
            serde_json::from_slice(bytes).map_err(|e| format!("not a proof index: {e}"))?;
        if index.format != INDEX_FORMAT {
            return Err(format!(
                "a proof index of format `{}`, not {INDEX_FORMAT}",
                index.format
            ));
        }
        if !index.shards.is_power_of_two() || index.shards > 1 << 24 {
            return Err(format!(
                "a proof index of {} shards, not a power of two",
                index.shards
            ));
        }
        Ok(index)
    }
}

/// Packs `proofs` (in any order) into `shards` shards, each by case id.
pub(crate) fn pack(proofs: Vec<Proof>, shards: usize) -> Vec<Shard> {
    let mut packed: Vec<Shard> = (0..shards)
        .map(|shard| Shard {
            format: SHARD_FORMAT.into(),
            shard,
            shards,
            proofs: Vec::new(),
        })
        .collect();
    for proof in proofs {
        let n = shard_of(&proof.case, shards);
        packed[n].proofs.push(proof);
    }
    for shard in &mut packed {
        shard.proofs.sort_by(|a, b| a.case.cmp(&b.case));
    }
    packed
}

impl Shard {
    /// Reads shard `n` of `shards` as a copy published it: the right shard, and every proof
    /// in it belonging there, each case once.
    pub(crate) fn parse(bytes: &[u8], n: usize, shards: usize) -> Result<Shard, String> {
        let shard: Shard =
            serde_json::from_slice(bytes).map_err(|e| format!("not a proof shard: {e}"))?;
        if shard.format != SHARD_FORMAT {
            return Err(format!(
                "a proof shard of format `{}`, not {SHARD_FORMAT}",
                shard.format
            ));
        }
        if (shard.shard, shard.shards) != (n, shards) {
            return Err(format!(
                "this file is shard {} of {}, not shard {n} of {shards}",
                shard.shard, shard.shards
            ));
        }
        if let Some(p) = (shard.proofs.iter()).find(|p| shard_of(&p.case, shards) != n) {
            return Err(format!(
                "holds the proof of case `{}`, which belongs in shard {}",
                p.case,
                shard_of(&p.case, shards)
            ));
        }
        if let Some(w) = shard.proofs.windows(2).find(|w| w[0].case >= w[1].case) {
            return Err(format!(
                "the proofs are not one per case in order (`{}` then `{}`)",
                w[0].case, w[1].case
            ));
        }
        Ok(shard)
    }

    /// The proof of case `id`, if this shard holds it.
    pub(crate) fn take(self, id: &str) -> Option<Proof> {
        self.proofs.into_iter().find(|p| p.case == id)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn proof(case: &str) -> Proof {
        Proof {
            format: "casebook-merkle-proof-3".into(),
            case: case.into(),
            leaf_count: 2,
            chunk_size: 64,
            case_index: 1,
            files: Vec::new(),
            hashes: Vec::new(),
        }
    }

    #[test]
    fn shards_are_powers_of_two_of_about_sixteen_cases() {
        assert_eq!(count(0), 1);
        assert_eq!(count(16), 1);
        assert_eq!(count(17), 2);
        assert_eq!(count(11_000), 1024);
        // The first four bytes of SHA-256("syn-000001"), big-endian: the browser check
        // computes the same (themes/default/static/casebook-verify.js).
        let digest = Sha256::digest(b"syn-000001");
        let first = u32::from_be_bytes(digest[..4].try_into().unwrap());
        assert_eq!(shard_of("syn-000001", 1024), first as usize % 1024);
        assert_eq!(shard_of("anything", 1), 0);
    }

    #[test]
    fn a_packed_shard_reads_back_and_a_misplaced_proof_is_refused() {
        let ids: Vec<String> = (0..100).map(|i| format!("c-{i:03}")).collect();
        let packed = pack(ids.iter().rev().map(|id| proof(id)).collect(), 8);
        assert_eq!(packed.iter().map(|s| s.proofs.len()).sum::<usize>(), 100);
        for (n, shard) in packed.iter().enumerate() {
            let bytes = serde_json::to_vec(shard).unwrap();
            let back = Shard::parse(&bytes, n, 8).unwrap();
            assert_eq!(&back, shard);
            assert!(Shard::parse(&bytes, (n + 1) % 8, 8).is_err());
        }
        let mut wrong = packed[0].clone();
        wrong.proofs.push(packed[1].proofs[0].clone());
        let bytes = serde_json::to_vec(&wrong).unwrap();
        assert!(
            Shard::parse(&bytes, 0, 8)
                .unwrap_err()
                .contains("belongs in shard 1")
        );
        let mut twice = packed[2].clone();
        twice.proofs.push(twice.proofs[0].clone());
        let bytes = serde_json::to_vec(&twice).unwrap();
        assert!(
            Shard::parse(&bytes, 2, 8)
                .unwrap_err()
                .contains("one per case")
        );
        assert!(Index::parse(br#"{"format":"casebook-proof-shards-1","shards":6}"#).is_err());
        assert_eq!(
            Index::parse(br#"{"format":"casebook-proof-shards-1","shards":8}"#).unwrap(),
            Index::new(8)
        );
    }
}
