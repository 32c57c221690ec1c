//! A document's terms: read from its searchable text (`tokens`), then numbered in the
//! language's dictionary (`Tokens::numbered`), which is how they are kept and gathered.

use rustc_hash::FxHashMap;

use super::dictionary::Dictionary;
use super::normalize::{Terms, normalize};
use super::{Doc, FIELDS, IDENTIFIER, TEXT, TITLE, names};

/// Term frequencies of one document per field, each field's length in terms, the words of
/// its name fields (their keys are made once per word for the whole index), and where its
/// words as written are (for quoted phrases); every word as its number in a dictionary.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct DocTerms {
    pub(super) terms: Vec<(u32, [u16; 4])>,
    pub(super) lens: [u32; 4],
    /// Sorted by their text.
    pub(super) name_words: Vec<u32>,
    /// `(index in terms, position)` of every word as written, sorted. Positions run through
    /// the title, identifiers, fields and text in turn, with a gap after each piece, so a
    /// phrase never spans two of them.
    pub(super) positions: Vec<(u32, u32)>,
}

/// `DocTerms` as tokenizing finds them, each word as text.
pub(super) struct Tokens {
    terms: Vec<(String, [u16; 4])>,
    lens: [u32; 4],
    name_words: Vec<String>,
    positions: Vec<(u32, u32)>,
}

impl Tokens {
    /// The terms, each word numbered in `dictionary` (a new word is added).
    pub(super) fn numbered(self, dictionary: &mut Dictionary) -> DocTerms {
        let mut intern = |w: &String| dictionary.intern(w);
        DocTerms {
            terms: (self.terms.iter())
                .map(|(w, tf)| (intern(w), *tf))
                .collect(),
            lens: self.lens,
            name_words: self.name_words.iter().map(&mut intern).collect(),
            positions: self.positions,
        }
    }
}

/// The terms of `doc`, numbered in `dictionary`.
#[cfg(test)]
pub(super) fn doc_terms(doc: &Doc, dictionary: &mut Dictionary) -> DocTerms {
    tokens(doc).numbered(dictionary)
}

pub(super) fn tokens(doc: &Doc) -> Tokens {
    let mut counts = TermCounts::default();
    let mut list = Terms::read(&doc.title);
    counts.add(TITLE, &list);
    for id in &doc.identifiers {
        let whole = normalize(id.trim());
        list.reread(id);
        counts.add(IDENTIFIER, &list);
        if !whole.is_empty() && !list.iter().any(|t| t == whole) {
            counts.count(IDENTIFIER, &whole);
            counts.lens[IDENTIFIER] += 1;
        }
    }
    let mut name_words: Vec<String> = Vec::new();
    for f in &doc.fields {
        list.reread(f);
        counts.add(FIELDS, &list);
        if doc.names.contains(f) {
            name_words.extend(list.iter().map(str::to_string));
        }
    }
    list.reread(&doc.text);
    counts.add(TEXT, &list);
    for value in doc.names.iter().filter(|v| !doc.fields.contains(v)) {
        list.reread(value);
        name_words.extend(list.iter().map(str::to_string));
    }
    let joined: Vec<String> = name_words
        .iter()
        .filter_map(|w| names::latin_article_bare(w))
        .map(str::to_string)
        .collect();
    name_words.extend(joined);
    name_words.sort_unstable();
    name_words.dedup();
    counts.positions.sort_unstable();
    // In order of first appearance; the index sorts its vocabulary.
    let mut terms: Vec<(String, [u16; 4])> = vec![(String::new(), [0; 4]); counts.tfs.len()];
    for (term, slot) in counts.slots {
        terms[slot as usize] = (term, counts.tfs[slot as usize]);
    }
    Tokens {
        terms,
        lens: counts.lens,
        name_words,
        positions: counts.positions,
    }
}

/// One document's term frequencies per field, its fields' lengths and its words' positions.
struct TermCounts {
    /// Each term's index in `tfs`.
    slots: FxHashMap<String, u32>,
    tfs: Vec<[u16; 4]>,
    lens: [u32; 4],
    positions: Vec<(u32, u32)>,
    /// The position of the next piece's first word.
    at: u32,
}

impl Default for TermCounts {
    fn default() -> Self {
        TermCounts {
            // Room for a short case's terms without growing.
            slots: FxHashMap::with_capacity_and_hasher(128, Default::default()),
            tfs: Vec::with_capacity(128),
            lens: [0; 4],
            positions: Vec::with_capacity(128),
            at: 0,
        }
    }
}

impl TermCounts {
    /// The terms of one piece of text in `field`: counted, and the positions of its words.
    fn add(&mut self, field: usize, terms: &Terms) {
        self.lens[field] += terms.len() as u32;
        let mut word = 0;
        for (i, t) in terms.iter().enumerate() {
            let slot = self.count(field, t);
            if terms.words.get(word) == Some(&(i as u32)) {
                self.positions.push((slot, self.at + word as u32));
                word += 1;
            }
        }
        self.at += terms.words.len() as u32 + 1;
    }

    /// One more of `term` in `field`, without counting towards the field's length; returns
    /// the term's slot.
    fn count(&mut self, field: usize, term: &str) -> u32 {
        // Most words of a text are repeats: only a new one is copied.
        let slot = match self.slots.get(term) {
            Some(&slot) => slot,
            None => {
                let slot = self.tfs.len() as u32;
                self.slots.insert(term.to_string(), slot);
                self.tfs.push([0; 4]);
                slot
            }
        };
        let tf = &mut self.tfs[slot as usize][field];
        *tf = tf.saturating_add(1);
        slot
    }
}
