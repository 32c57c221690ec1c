//! Every distinct term the documents' terms are written with, numbered: a document's terms
//! are kept and gathered as numbers into it.
//!
//! At 11,000 cases the documents hold about a million terms, of a few tens of thousands of
//! distinct words. Kept as text, a one-case edit decoded every one of them into a string of
//! its own and gathered the vocabulary by hashing each again: over half of its index. As
//! numbers they are decoded without allocating and gathered by indexing.

use std::hash::BuildHasher as _;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// The words, in one text, each found by its number or by itself.
#[derive(Default, Clone)]
pub(super) struct Dictionary {
    text: String,
    /// Where each word ends in `text`; it starts where the one before ends.
    ends: Vec<u32>,
    /// Each word's number, placed by the hash of its text.
    table: HashTable<u32>,
}

impl Dictionary {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The word numbered `id` (below `len`).
    pub(super) fn word(&self, id: u32) -> &str {
        word_in(&self.text, &self.ends, id)
    }

    /// The number of `word`, if it is here.
    pub(super) fn id_of(&self, word: &str) -> Option<u32> {
        let hash = FxBuildHasher.hash_one(word);
        self.table.find(hash, |&id| self.word(id) == word).copied()
    }

    /// The number of `word`, given the next one if it is new.
    pub(super) fn intern(&mut self, word: &str) -> u32 {
        match self.id_of(word) {
            Some(id) => id,
            None => self.push_new(word),
        }
    }

    fn push_new(&mut self, word: &str) -> u32 {
        let id = u32::try_from(self.ends.len()).expect("under 4 billion words");
        self.text.push_str(word);
        let end = u32::try_from(self.text.len()).expect("a dictionary under 4 GiB");
        self.ends.push(end);
        let hash = FxBuildHasher.hash_one(word);
        let Self {
            table, text, ends, ..
        } = self;
        let rehash = |&id: &u32| FxBuildHasher.hash_one(word_in(text, ends, id));
        table.insert_unique(hash, id, rehash);
        id
    }

    /// The dictionary of `words` numbered in order, if no word comes twice (a kept file that
    /// repeats one is damaged).
    pub(super) fn of_words<'w>(words: impl ExactSizeIterator<Item = &'w str>) -> Option<Self> {
        let mut dictionary = Dictionary {
            ends: Vec::with_capacity(words.len()),
            table: HashTable::with_capacity(words.len()),
            ..Dictionary::default()
        };
        for word in words {
            if dictionary.id_of(word).is_some() {
                return None;
            }
            dictionary.push_new(word);
        }
        Some(dictionary)
    }
}

/// The word numbered `id` in `text` ending at `ends`: `Dictionary::word`, with its parts
/// borrowed apart (for rehashing while the table grows).
fn word_in<'t>(text: &'t str, ends: &[u32], id: u32) -> &'t str {
    let id = id as usize;
    let start = if id == 0 { 0 } else { ends[id - 1] };
    &text[start as usize..ends[id] as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_numbered_once_in_order_and_found_by_number_and_by_text() {
        let mut d = Dictionary::default();
        let words = ["branch", "215", "كدمات", "", "𝒜", "branches"];
        let ids: Vec<u32> = words.iter().map(|w| d.intern(w)).collect();
        assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
        // Enough words to grow the table several times.
        for n in 0..5000 {
            d.intern(&format!("w{n}"));
        }
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(d.intern(w), *id, "{w} again");
            assert_eq!(d.word(*id), *w);
            assert_eq!(d.id_of(w), Some(*id));
        }
        assert_eq!(d.id_of("w4999"), Some(5005));
        assert_eq!(d.id_of("branc"), None);
        assert_eq!(d.len(), 5006);
        let again = Dictionary::of_words((0..d.len() as u32).map(|i| d.word(i))).unwrap();
        assert_eq!(again.id_of("كدمات"), Some(2));
        assert!(Dictionary::of_words(["a", "b", "a"].into_iter()).is_none());
    }
}
