//! Every term of a language's index with its postings and positions, gathered from each
//! document's terms.
//!
//! This was one loop over 1.3 million postings at 11,000 cases, a third of a one-case edit's
//! index. The terms are now cut into parts by a hash of their text, each part gathered on a
//! core of its own over every document, then joined. A term's postings still come in
//! document order, and the index sorts its vocabulary by text, so the files do not depend on
//! how many parts there were.

use std::hash::BuildHasher;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::{FxBuildHasher, FxHashMap};

use super::DocTerms;
use super::positions;

/// Every term of a language's index, numbered, with its postings and, for quoted phrases,
/// its positions in each of its documents in postings order (packed, see `positions`;
/// nothing for a name key), with the last list packed.
#[derive(Default)]
pub(super) struct Vocabulary<'a> {
    ids: FxHashMap<&'a str, usize>,
    pub(super) words: Vec<&'a str>,
    pub(super) postings: Vec<Vec<(u32, [u16; 4])>>,
    pub(super) positions: Vec<String>,
    last: Vec<Vec<u32>>,
}

impl<'a> Vocabulary<'a> {
    /// The terms of `per_doc`, the documents in order, gathered in `parts` side by side.
    pub(super) fn of_documents(per_doc: &'a [Arc<DocTerms>], parts: usize) -> Vocabulary<'a> {
        let parts = parts.max(1);
        let gathered: Vec<Vocabulary<'a>> = (0..parts)
            .into_par_iter()
            .map(|part| Vocabulary::part(per_doc, part, parts))
            .collect();
        let mut whole = Vocabulary::default();
        let terms = gathered.iter().map(|v| v.words.len()).sum();
        whole.ids.reserve(terms);
        for v in gathered {
            for (i, word) in v.words.iter().enumerate() {
                whole.ids.insert(word, whole.words.len() + i);
            }
            whole.words.extend(v.words);
            whole.postings.extend(v.postings);
            whole.positions.extend(v.positions);
            whole.last.extend(v.last);
        }
        whole
    }

    /// The terms of `per_doc` whose hash falls in `part` of `parts`.
    fn part(per_doc: &'a [Arc<DocTerms>], part: usize, parts: usize) -> Vocabulary<'a> {
        let mut vocabulary = Vocabulary::default();
        let mut list: Vec<u32> = Vec::new();
        for (d, dt) in per_doc.iter().enumerate() {
            // `dt.positions` is sorted by the term's index in `dt.terms`.
            let mut at = 0;
            for (slot, (term, tf)) in dt.terms.iter().enumerate() {
                let from = at;
                while dt.positions.get(at).is_some_and(|p| p.0 as usize == slot) {
                    at += 1;
                }
                if parts > 1 && FxBuildHasher.hash_one(term.as_str()) as usize % parts != part {
                    continue;
                }
                let id = vocabulary.id(term);
                vocabulary.postings[id].push((d as u32, *tf));
                list.clear();
                list.extend(dt.positions[from..at].iter().map(|p| p.1));
                positions::push_positions(
                    &mut vocabulary.positions[id],
                    &mut vocabulary.last[id],
                    &list,
                );
            }
        }
        vocabulary
    }

    /// The number of `term`, new or not.
    pub(super) fn id(&mut self, term: &'a str) -> usize {
        *self.ids.entry(term).or_insert_with(|| {
            self.words.push(term);
            self.postings.push(Vec::new());
            self.positions.push(String::new());
            self.last.push(Vec::new());
            self.words.len() - 1
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::doc_terms;
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
        let per_doc: Vec<Arc<DocTerms>> = (texts.iter())
            .map(|(title, text)| Arc::new(doc_terms(&doc(title, text))))
            .collect();
        let one = Vocabulary::of_documents(&per_doc, 1);
        assert!(one.words.len() > 20, "the documents give many terms");
        let branch = one.words.iter().position(|w| *w == "branch").unwrap();
        let docs: Vec<u32> = one.postings[branch].iter().map(|p| p.0).collect();
        assert_eq!(docs, [0, 1, 3], "postings in document order");
        for parts in [2, 3, 7] {
            let cut = Vocabulary::of_documents(&per_doc, parts);
            assert_eq!(by_term(&cut), by_term(&one), "{parts} parts");
            // Every term can still be looked up (name keys are added after).
            for (i, w) in cut.words.iter().enumerate() {
                assert_eq!(cut.ids[w], i);
            }
        }
    }
}
