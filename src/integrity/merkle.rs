//! The Merkle tree over the manifest's files, and per-case proofs.
//!
//! A proof lets anyone check one case page and its photographs against the signed root
//! without downloading the manifest of the whole archive. The hashing is documented in
//! `docs/verifying.md` so that other tools can check a proof:
//!
//! - file leaf = SHA-256(0x00 ‖ path ‖ 0x00 ‖ sha256 (64 lowercase hex) ‖ 0x00 ‖ size
//!   (decimal)), over the manifest's `files` in their order (sorted by path, byte order);
//! - then one case leaf per entry of the manifest's `cases` (sorted by id):
//!   SHA-256(0x02 ‖ id ‖ (0x00 ‖ path)…) over the case's file paths in the order of the
//!   files. It ties a case to exactly its files, so a proof cannot leave one out or borrow
//!   another case's;
//! - node = SHA-256(0x01 ‖ left ‖ right); the distinct first bytes keep a leaf from ever
//!   passing for a node;
//! - each level pairs neighbours left to right; an odd last node is carried up unchanged.
//!
//! The tree is cut into chunks of 64 leaves: the nodes six levels up, which
//! `verify/chunks.json` lists. A proof lists its files (with their leaf indices), its case
//! leaf's index, and the sibling hashes that lead them up to their chunks, in the order a
//! level-by-level walk from the leaves upwards uses them; the chunk list leads on to the
//! root. A proof therefore names neither the root nor other chunks: an edit elsewhere in
//! the archive leaves it byte for byte as it was, and only the proofs that share a chunk
//! with a changed file are written again.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{CaseRecord, FileRecord};

/// The format name written in every proof.
pub(crate) const PROOF_FORMAT: &str = "casebook-merkle-proof-3";
/// The format name of the chunk list.
pub(crate) const CHUNKS_FORMAT: &str = "casebook-merkle-chunks-1";
/// Leaves per chunk: the nodes `CHUNK_LEVEL` levels above the leaves.
pub(crate) const CHUNK_SIZE: usize = 1 << CHUNK_LEVEL;
const CHUNK_LEVEL: usize = 6;

type Hash = [u8; 32];

/// The leaf hash of one manifest entry.
pub(crate) fn leaf(record: &FileRecord) -> Hash {
    let mut h = Sha256::new();
    h.update([0u8]);
    h.update(record.path.as_bytes());
    h.update([0u8]);
    h.update(record.sha256.as_bytes());
    h.update([0u8]);
    h.update(record.size.to_string().as_bytes());
    h.finalize().into()
}

/// The leaf that ties a case to its files (paths in the order of the files).
pub(crate) fn case_leaf<'a>(id: &str, paths: impl IntoIterator<Item = &'a str>) -> Hash {
    let mut h = Sha256::new();
    h.update([2u8]);
    h.update(id.as_bytes());
    for path in paths {
        h.update([0u8]);
        h.update(path.as_bytes());
    }
    h.finalize().into()
}

fn node(left: &Hash, right: &Hash) -> Hash {
    let mut h = Sha256::new();
    h.update([1u8]);
    h.update(left);
    h.update(right);
    h.finalize().into()
}

/// Every level of the tree, leaves first, root last.
pub(crate) struct Tree {
    levels: Vec<Vec<Hash>>,
    /// The root in lowercase hex, encoded once: every proof names it.
    root: String,
}

impl Tree {
    pub(crate) fn new(files: &[FileRecord], cases: &[CaseRecord]) -> Tree {
        use rayon::prelude::*;
        let mut leaves: Vec<Hash> = files.par_iter().map(leaf).collect();
        leaves.extend(
            cases
                .iter()
                .map(|c| case_leaf(&c.case, c.files.iter().map(String::as_str))),
        );
        let mut levels = vec![leaves];
        while levels.last().is_some_and(|l| l.len() > 1) {
            let below = levels.last().expect("a level");
            let above = below
                .chunks(2)
                .map(|pair| match pair {
                    [l, r] => node(l, r),
                    [odd] => *odd,
                    _ => unreachable!("chunks of two"),
                })
                .collect();
            levels.push(above);
        }
        let root = match levels.last().and_then(|l| l.first()) {
            Some(root) => hex(root),
            None => empty_root(),
        };
        Tree { levels, root }
    }

    /// The root, in lowercase hex.
    pub(crate) fn root(&self) -> String {
        self.root.clone()
    }

    /// The levels from the leaves up to, not including, the chunks.
    fn below_chunks(&self) -> &[Vec<Hash>] {
        &self.levels[..CHUNK_LEVEL.min(self.levels.len() - 1)]
    }

    /// The chunks' roots, in order (the root itself when there is only one).
    pub(crate) fn chunk_roots(&self) -> &[Hash] {
        &self.levels[self.below_chunks().len()]
    }

    /// The sibling hashes that lead the leaves at `indices` (sorted, distinct) up to
    /// their chunks.
    pub(crate) fn proof_hashes(&self, indices: &[usize]) -> Vec<String> {
        let mut hashes = Vec::new();
        let mut known: Vec<usize> = indices.to_vec();
        for level in self.below_chunks() {
            let mut above = Vec::with_capacity(known.len());
            let mut i = 0;
            while i < known.len() {
                let k = known[i];
                let sibling = k ^ 1;
                if k % 2 == 0 && known.get(i + 1) == Some(&sibling) {
                    i += 1;
                } else if sibling < level.len() {
                    hashes.push(hex(&level[sibling]));
                }
                above.push(k / 2);
                i += 1;
            }
            known = above;
        }
        hashes
    }
}

/// The proof of one case: its files as the manifest lists them, and the hashes that lead
/// them up to their chunks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Proof {
    pub(crate) format: String,
    pub(crate) case: String,
    pub(crate) leaf_count: usize,
    pub(crate) chunk_size: usize,
    /// The index of the case's own leaf, after the file leaves.
    pub(crate) case_index: usize,
    pub(crate) files: Vec<ProvenFile>,
    pub(crate) hashes: Vec<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct ProvenFile {
    pub(crate) index: usize,
    pub(crate) path: String,
    pub(crate) sha256: String,
    pub(crate) size: u64,
}

/// `verify/chunks.json`: every chunk's root, and the root they lead to.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub(crate) struct Chunks {
    pub(crate) format: String,
    pub(crate) root: String,
    pub(crate) leaf_count: usize,
    pub(crate) chunk_size: usize,
    pub(crate) chunks: Vec<String>,
}

impl Chunks {
    pub(crate) fn new(tree: &Tree) -> Chunks {
        Chunks {
            format: CHUNKS_FORMAT.into(),
            root: tree.root(),
            leaf_count: tree.levels[0].len(),
            chunk_size: CHUNK_SIZE,
            chunks: tree.chunk_roots().iter().map(hex).collect(),
        }
    }

    /// The root the chunks lead to (which must also be the `root` they name), or why they
    /// lead nowhere.
    pub(crate) fn computed_root(&self) -> Result<String, String> {
        if self.format != CHUNKS_FORMAT {
            return Err(format!("unknown chunk list format `{}`", self.format));
        }
        if self.chunk_size != CHUNK_SIZE {
            return Err(format!(
                "chunks of {} leaves, not {CHUNK_SIZE}",
                self.chunk_size
            ));
        }
        if self.chunks.len() != self.leaf_count.div_ceil(CHUNK_SIZE) {
            return Err(format!(
                "{} chunks for {} leaves",
                self.chunks.len(),
                self.leaf_count
            ));
        }
        if self.chunks.is_empty() {
            return Ok(empty_root());
        }
        let mut known = BTreeMap::new();
        for (i, text) in self.chunks.iter().enumerate() {
            known.insert(i, unhex(text)?);
        }
        let top = climb(known, self.chunks.len(), usize::MAX, &mut || {
            Err("a chunk is missing".into())
        })?;
        let root = hex(&top[&0]);
        if root != self.root {
            return Err(format!(
                "the chunks lead to the Merkle root {root}, not to the {} they name",
                self.root
            ));
        }
        Ok(root)
    }
}

impl Proof {
    /// The proof for the case leaf at `case_index` and its files at `indices` of `files`
    /// (ascending, as the case record lists them).
    pub(crate) fn new(
        tree: &Tree,
        files: &[FileRecord],
        case: &str,
        case_index: usize,
        indices: &[usize],
    ) -> Proof {
        let mut leaves = indices.to_vec();
        leaves.push(case_index);
        leaves.sort_unstable();
        leaves.dedup();
        Proof {
            format: PROOF_FORMAT.into(),
            case: case.into(),
            leaf_count: tree.levels[0].len(),
            chunk_size: CHUNK_SIZE,
            case_index,
            files: indices
                .iter()
                .map(|&i| ProvenFile {
                    index: i,
                    path: files[i].path.clone(),
                    sha256: files[i].sha256.clone(),
                    size: files[i].size,
                })
                .collect(),
            hashes: tree.proof_hashes(&leaves),
        }
    }

    /// The root the proof's files and hashes lead to through `chunks`, or why they lead
    /// nowhere.
    #[cfg(test)]
    pub(crate) fn computed_root(&self, chunks: &Chunks) -> Result<String, String> {
        self.leads_into(chunks)?;
        chunks.computed_root()
    }

    /// Whether the proof's files and hashes lead to chunks that `chunks` lists. Where the
    /// chunk list itself leads is `Chunks::computed_root`: checked once for a folder of
    /// proofs, not once per proof.
    pub(crate) fn leads_into(&self, chunks: &Chunks) -> Result<(), String> {
        if self.format != PROOF_FORMAT {
            return Err(format!("unknown proof format `{}`", self.format));
        }
        if self.leaf_count != chunks.leaf_count || self.chunk_size != chunks.chunk_size {
            return Err(format!(
                "the proof counts {} leaves in chunks of {}, the chunk list {} in chunks of {}",
                self.leaf_count, self.chunk_size, chunks.leaf_count, chunks.chunk_size
            ));
        }
        for (index, hash) in self.chunk_hashes()? {
            if chunks.chunks.get(index) != Some(&hex(&hash)) {
                return Err(format!(
                    "the proof leads to a chunk {index} that the chunk list does not have: a file it lists or one of its hashes was changed"
                ));
            }
        }
        Ok(())
    }

    /// The roots of the chunks the proof's leaves are in, by chunk index.
    fn chunk_hashes(&self) -> Result<BTreeMap<usize, Hash>, String> {
        let mut known: BTreeMap<usize, Hash> = BTreeMap::new();
        let mut previous = None;
        for f in &self.files {
            if f.index >= self.leaf_count {
                return Err(format!(
                    "`{}` has index {} beyond the tree",
                    f.path, f.index
                ));
            }
            if previous.is_some_and(|p| p >= f.index) {
                return Err("the proof's files are not in the order of the manifest".into());
            }
            previous = Some(f.index);
            let record = FileRecord {
                path: f.path.clone(),
                sha256: f.sha256.clone(),
                size: f.size,
            };
            known.insert(f.index, leaf(&record));
        }
        if known.is_empty() {
            return Err("the proof lists no files".into());
        }
        if self.case_index >= self.leaf_count || known.contains_key(&self.case_index) {
            return Err(format!(
                "the case's leaf index {} is not valid",
                self.case_index
            ));
        }
        let paths = self.files.iter().map(|f| f.path.as_str());
        known.insert(self.case_index, case_leaf(&self.case, paths));
        let mut supplied = self.hashes.iter();
        let mut next_hash = || -> Result<Hash, String> {
            unhex(supplied.next().ok_or("the proof has too few hashes")?)
        };
        let known = climb(known, self.leaf_count, CHUNK_LEVEL, &mut next_hash)?;
        if supplied.next().is_some() {
            return Err("the proof has more hashes than its files need".into());
        }
        Ok(known)
    }
}

/// Walks the known nodes of a level of `width` up `levels` levels (or to the root, if it is
/// nearer), taking each missing sibling from `next_hash` in the documented order.
fn climb(
    mut known: BTreeMap<usize, Hash>,
    mut width: usize,
    levels: usize,
    next_hash: &mut dyn FnMut() -> Result<Hash, String>,
) -> Result<BTreeMap<usize, Hash>, String> {
    let mut level = 0;
    while width > 1 && level < levels {
        let mut above = BTreeMap::new();
        let entries: Vec<(usize, Hash)> = known.into_iter().collect();
        let mut i = 0;
        while i < entries.len() {
            let (k, h) = entries[i];
            let parent = if k % 2 == 0 {
                match entries.get(i + 1) {
                    Some(&(r, right)) if r == k + 1 => {
                        i += 1;
                        node(&h, &right)
                    }
                    _ if k + 1 < width => node(&h, &next_hash()?),
                    _ => h,
                }
            } else {
                node(&next_hash()?, &h)
            };
            above.insert(k / 2, parent);
            i += 1;
        }
        known = above;
        width = width.div_ceil(2);
        level += 1;
    }
    Ok(known)
}

/// An empty tree's root: SHA-256 of nothing.
fn empty_root() -> String {
    hex(&Sha256::digest(b"").into())
}

fn unhex(text: &str) -> Result<Hash, String> {
    crate::hashing::unhex(text).ok_or_else(|| format!("`{text}` is not a SHA-256 hash"))
}

fn hex(bytes: &Hash) -> String {
    crate::hashing::hex(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(n: usize) -> Vec<FileRecord> {
        (0..n)
            .map(|i| FileRecord {
                path: format!("f{i:03}.html"),
                sha256: format!("{:064x}", i * 7919),
                size: i as u64 * 10,
            })
            .collect()
    }

    #[test]
    fn every_subset_of_small_trees_proves_and_only_its_own_root() {
        for n in 1..=8 {
            let files = files(n);
            for mask in 1u32..(1 << n) {
                let indices: Vec<usize> = (0..n).filter(|i| mask & (1 << i) != 0).collect();
                let case = CaseRecord {
                    case: "c".into(),
                    files: indices.iter().map(|&i| files[i].path.clone()).collect(),
                };
                let other = CaseRecord {
                    case: "d".into(),
                    files: vec![files[0].path.clone()],
                };
                let tree = Tree::new(&files, &[case, other]);
                let proof = Proof::new(&tree, &files, "c", n, &indices);
                let chunks = Chunks::new(&tree);
                assert_eq!(
                    proof.computed_root(&chunks).unwrap(),
                    tree.root(),
                    "n={n} {indices:?}"
                );
                let mut tampered = proof.clone();
                tampered.files[0].size += 1;
                assert_ne!(tampered.computed_root(&chunks).ok(), Some(tree.root()));
                // A file left out, or the case renamed, no longer matches the case leaf.
                // Even with every sibling hash made right for the smaller set.
                if indices.len() > 1 {
                    let fewer = Proof::new(&tree, &files, "c", n, &indices[1..]);
                    assert_ne!(
                        fewer.computed_root(&chunks).ok(),
                        Some(tree.root()),
                        "{indices:?}"
                    );
                }
                let mut renamed = proof.clone();
                renamed.case = "d".into();
                assert_ne!(renamed.computed_root(&chunks).ok(), Some(tree.root()));
            }
        }
    }

    #[test]
    fn known_root_of_two_leaves() {
        // The documented hashing, spelled out: a change to it must change this test.
        let files = files(2);
        let (a, b) = (leaf(&files[0]), leaf(&files[1]));
        let mut input = vec![1u8];
        input.extend_from_slice(&a);
        input.extend_from_slice(&b);
        assert_eq!(
            Tree::new(&files, &[]).root(),
            hex(&Sha256::digest(&input).into())
        );
        let mut leaf_input = b"\0f000.html\0".to_vec();
        leaf_input.extend_from_slice(format!("{:064x}\0{}", 0, 0).as_bytes());
        assert_eq!(a, <Hash>::from(Sha256::digest(&leaf_input)));
    }

    #[test]
    fn a_missing_extra_or_changed_hash_fails() {
        let files = files(7);
        let case = CaseRecord {
            case: "c".into(),
            files: vec![files[2].path.clone(), files[5].path.clone()],
        };
        let tree = Tree::new(&files, &[case]);
        let proof = Proof::new(&tree, &files, "c", 7, &[2, 5]);
        let chunks = Chunks::new(&tree);
        let mut short = proof.clone();
        short.hashes.pop();
        assert!(
            short
                .computed_root(&chunks)
                .unwrap_err()
                .contains("too few")
        );
        let mut long = proof.clone();
        long.hashes.push(proof.hashes[0].clone());
        assert!(
            long.computed_root(&chunks)
                .unwrap_err()
                .contains("more hashes")
        );
        let mut changed = proof.clone();
        changed.hashes[0] = format!("{:064x}", 1);
        assert!(
            changed
                .computed_root(&chunks)
                .unwrap_err()
                .contains("chunk 0")
        );
        let mut moved = proof.clone();
        moved.files[0].index = 3;
        assert_ne!(moved.computed_root(&chunks).ok(), Some(tree.root()));
        let mut twice = proof;
        twice.files[1] = twice.files[0].clone();
        assert!(twice.computed_root(&chunks).unwrap_err().contains("order"));
    }

    /// A tree of several chunks: `n` files and one case over the files at `indices`.
    fn chunked(n: usize, indices: &[usize]) -> (Vec<FileRecord>, Tree, Proof) {
        let files = files(n);
        let case = CaseRecord {
            case: "c".into(),
            files: indices.iter().map(|&i| files[i].path.clone()).collect(),
        };
        let tree = Tree::new(&files, &[case]);
        let proof = Proof::new(&tree, &files, "c", n, indices);
        (files, tree, proof)
    }

    #[test]
    fn proofs_across_chunks_lead_to_the_root_and_ignore_other_chunks() {
        for n in [63, 64, 65, 127, 128, 129, 300, 1000] {
            let indices = [0, CHUNK_SIZE / 2, n - 1];
            let indices: Vec<usize> = indices.into_iter().filter(|&i| i < n).collect();
            let (mut files, tree, proof) = chunked(n, &indices);
            let chunks = Chunks::new(&tree);
            assert_eq!(chunks.chunks.len(), (n + 1).div_ceil(CHUNK_SIZE));
            assert_eq!(chunks.computed_root().unwrap(), tree.root(), "n={n}");
            assert_eq!(proof.computed_root(&chunks).unwrap(), tree.root(), "n={n}");
            // A file in a chunk the case does not touch moves the root, not the proof.
            let case_chunks: Vec<usize> =
                indices.iter().chain([&n]).map(|i| i / CHUNK_SIZE).collect();
            if let Some(other) = (0..n).find(|i| !case_chunks.contains(&(i / CHUNK_SIZE))) {
                files[other].size += 1;
                let case = CaseRecord {
                    case: "c".into(),
                    files: indices.iter().map(|&i| files[i].path.clone()).collect(),
                };
                let edited = Tree::new(&files, &[case]);
                assert_ne!(edited.root(), tree.root());
                assert_eq!(
                    Proof::new(&edited, &files, "c", n, &indices),
                    proof,
                    "n={n}"
                );
                // The old chunk list no longer leads to the new root; the new one does.
                let new_chunks = Chunks::new(&edited);
                assert_eq!(proof.computed_root(&new_chunks).unwrap(), edited.root());
            }
        }
    }

    #[test]
    fn a_changed_chunk_list_or_proof_fails() {
        let (_, tree, proof) = chunked(300, &[3, 70, 299]);
        let chunks = Chunks::new(&tree);
        // A chunk the proof covers, changed: the chunks no longer lead to their root.
        let mut changed = chunks.clone();
        changed.chunks[1] = format!("{:064x}", 1);
        assert!(changed.computed_root().unwrap_err().contains("not to the"));
        // ...and a consistent forgery (its root made again) disagrees with the proof.
        let roots = changed.chunks.iter().map(|h| unhex(h).unwrap());
        let top = climb(
            roots.enumerate().collect(),
            changed.chunks.len(),
            usize::MAX,
            &mut || unreachable!("every chunk is known"),
        )
        .unwrap();
        changed.root = hex(&top[&0]);
        assert!(
            proof
                .computed_root(&changed)
                .unwrap_err()
                .contains("chunk 1")
        );
        let mut short = chunks.clone();
        short.chunks.pop();
        assert!(short.computed_root().unwrap_err().contains("chunks for"));
        let mut counted = proof.clone();
        counted.leaf_count += 1;
        assert!(counted.computed_root(&chunks).is_err());
        let mut old = proof;
        old.format = "casebook-merkle-proof-2".into();
        assert!(old.computed_root(&chunks).unwrap_err().contains("format"));
    }
}
