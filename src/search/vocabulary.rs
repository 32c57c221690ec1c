//! Every term of a language's index with its postings and positions, gathered from each
//! document's terms.
//!
//! This was one loop over 1.3 million postings at 11,000 cases, a third of a one-case edit's
//! index. The terms are now numbered (`Dictionary`) and cut into parts by their numbers, each
//! part gathered on a core of its own over every document, then joined. A term's postings
//! still come in document order, and the index sorts its vocabulary by text, so the files do
//! not depend on how many parts there were.

use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::DocTerms;
use super::dictionary::Dictionary;
use super::positions;

/// No entry yet.
const NONE: u32 = u32::MAX;

/// Every term of a language's index, numbered, with its postings and, for quoted phrases,
/// its positions in each of its documents in postings order (packed, see `positions`;
/// nothing for a name key), with the last list packed.
pub(super) struct Vocabulary<'a> {
    dictionary: &'a Dictionary,
    /// The entry of each word of `dictionary` (`NONE`: not in this language's documents).
    entry_of: Vec<u32>,
    /// Entries of words not in the dictionary (name keys).
    others: FxHashMap<&'a str, usize>,
    pub(super) words: Vec<&'a str>,
    pub(super) postings: Vec<Vec<(u32, [u16; 4])>>,
    pub(super) positions: Vec<String>,
    last: Vec<Vec<u32>>,
}

impl<'a> Vocabulary<'a> {
    fn new(dictionary: &'a Dictionary) -> Vocabulary<'a> {
        Vocabulary {
            dictionary,
            entry_of: Vec::new(),
            others: FxHashMap::default(),
            words: Vec::new(),
            postings: Vec::new(),
            positions: Vec::new(),
            last: Vec::new(),
        }
    }

    /// The terms of `per_doc`, the documents in order, their words numbered in `dictionary`,
    /// gathered in `parts` side by side.
    pub(super) fn of_documents(
        per_doc: &'a [Arc<DocTerms>],
        dictionary: &'a Dictionary,
        parts: usize,
    ) -> Vocabulary<'a> {
        let parts = parts.max(1);
        let gathered: Vec<Vocabulary<'a>> = (0..parts)
            .into_par_iter()
            .map(|part| Vocabulary::part(per_doc, dictionary, part, parts))
            .collect();
        let mut whole = Vocabulary::new(dictionary);
        whole.entry_of = vec![NONE; dictionary.len()];
        for (part, v) in gathered.into_iter().enumerate() {
            let base = whole.words.len();
            for (i, entry) in v.entry_of.iter().enumerate() {
                if *entry != NONE {
                    whole.entry_of[i * parts + part] = (base + *entry as usize) as u32;
                }
            }
            whole.words.extend(v.words);
            whole.postings.extend(v.postings);
            whole.positions.extend(v.positions);
            whole.last.extend(v.last);
        }
        whole
    }

    /// The terms of `per_doc` whose number is `part` modulo `parts`; `entry_of` is indexed
    /// by the number divided by `parts`.
    fn part(
        per_doc: &'a [Arc<DocTerms>],
        dictionary: &'a Dictionary,
        part: usize,
        parts: usize,
    ) -> Vocabulary<'a> {
        let mut vocabulary = Vocabulary::new(dictionary);
        vocabulary.entry_of = vec![NONE; dictionary.len().div_ceil(parts)];
        let mut list: Vec<u32> = Vec::new();
        for (d, dt) in per_doc.iter().enumerate() {
            // `dt.positions` is sorted by the term's index in `dt.terms`.
            let mut at = 0;
            for (slot, &(id, tf)) in dt.terms.iter().enumerate() {
                let from = at;
                while dt.positions.get(at).is_some_and(|p| p.0 as usize == slot) {
                    at += 1;
                }
                let id = id as usize;
                if id % parts != part {
                    continue;
                }
                let slot = &mut vocabulary.entry_of[id / parts];
                let entry = if *slot == NONE {
                    *slot = vocabulary.words.len() as u32;
                    vocabulary.push(dictionary.word(id as u32))
                } else {
                    *slot as usize
                };
                vocabulary.postings[entry].push((d as u32, tf));
                list.clear();
                list.extend(dt.positions[from..at].iter().map(|p| p.1));
                positions::push_positions(
                    &mut vocabulary.positions[entry],
                    &mut vocabulary.last[entry],
                    &list,
                );
            }
        }
        vocabulary
    }

    fn push(&mut self, word: &'a str) -> usize {
        self.words.push(word);
        self.postings.push(Vec::new());
        self.positions.push(String::new());
        self.last.push(Vec::new());
        self.words.len() - 1
    }

    /// The number of `term`, new or not.
    pub(super) fn id(&mut self, term: &'a str) -> usize {
        if let Some(id) = self.dictionary.id_of(term) {
            let entry = self.entry_of[id as usize];
            if entry != NONE {
                return entry as usize;
            }
            let entry = self.push(term);
            self.entry_of[id as usize] = entry as u32;
            return entry;
        }
        if let Some(&entry) = self.others.get(term) {
            return entry;
        }
        let entry = self.push(term);
        self.others.insert(term, entry);
        entry
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc_terms::doc_terms;
    use super::super::tests::doc;
    use super::*;

    type Gathered = Vec<(String, Vec<(u32, [u16; 4])>, String)>;

    /// Each term with its postings and positions, in the order of the terms' text.
    fn by_term(v: &Vocabulary) -> Gathered {
        let mut all: Gathered = (v.words.iter().enumerate())
            .map(|(i, w)| (w.to_string(), v.postings[i].clone(), v.positions[i].clone()))
            .collect();
        all.sort();
        all
    }

    #[test]
    fn the_vocabulary_is_the_same_gathered_in_any_number_of_parts() {
        let texts = [
            (
                "Case one",
                "beaten at branch 215 beaten again, moved to branch 227",
            ),
            ("Case two", "no marks seen; branch 215 named by a witness"),
            (
                "Case three",
                "moved moved moved; marks on the wrists and the ankles",
            ),
            (
                "Case four",
                "a witness named the branch twice: branch 215 and 215",
            ),
        ];
        let mut dictionary = Dictionary::default();
        let per_doc: Vec<Arc<DocTerms>> = (texts.iter())
            .map(|(title, text)| Arc::new(doc_terms(&doc(title, text), &mut dictionary)))
            .collect();
        let one = Vocabulary::of_documents(&per_doc, &dictionary, 1);
        assert!(one.words.len() > 20, "the documents give many terms");
        let branch = one.words.iter().position(|w| *w == "branch").unwrap();
        let docs: Vec<u32> = one.postings[branch].iter().map(|p| p.0).collect();
        assert_eq!(docs, [0, 1, 3], "postings in document order");
        for parts in [2, 3, 7] {
            let mut cut = Vocabulary::of_documents(&per_doc, &dictionary, parts);
            assert_eq!(by_term(&cut), by_term(&one), "{parts} parts");
            // Every term can still be looked up (name keys are added after).
            for i in 0..cut.words.len() {
                assert_eq!(cut.id(cut.words[i]), i);
            }
            let key = cut.id("~key");
            assert_eq!(
                (key, cut.id("~key")),
                (cut.words.len() - 1, key),
                "added once"
            );
        }
    }
}
