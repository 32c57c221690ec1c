//! Each document's terms kept for the next one-shot build (`terms.bin` in the cache folder),
//! by a hash of the text they were read from, so that a build after an edit tokenizes only
//! the documents whose text changed (as `TermCache` does within `serve`).
//!
//! The file is checksummed and made by one casebook (tokenizing is its code); any other is
//! not used. A document's entry is found by a 128-bit hash of everything `tokens` reads,
//! each piece with its length, so that no two texts share one. Its words are numbers into
//! the file's dictionary, which comes last: a build decodes the entries it uses without
//! making a string of any word, and gathers them by number (see `dictionary`). A few
//! documents changed since the file was written are tokenized again at each build rather
//! than the whole file written again; once more than one in 32 is, it is written anew,
//! with only the words its documents use.

use std::collections::HashMap;
use std::sync::Arc;

use super::dictionary::Dictionary;
use super::{Doc, DocTerms};
use crate::cache_file::{Reader, Writer};

/// The kept terms' file, in the cache folder.
pub(crate) const FILE: &str = "terms.bin";

const MAGIC: &[u8] = b"casebook-terms-2\n";

/// No number yet.
const NONE: u32 = u32::MAX;

/// What tokenizing depends on besides the text: this casebook.
fn key() -> u128 {
    let mut h = crate::hashing::Hasher::default();
    h.text(&crate::hashing::casebook_identity());
    h.digest()
}

/// Each document's `text_key`, per language.
pub(crate) fn text_keys(inputs: &[super::LangInput]) -> Vec<Vec<u128>> {
    use rayon::prelude::*;
    (inputs.iter())
        .map(|input| input.docs.par_iter().map(|d| text_key(d)).collect())
        .collect()
}

/// A hash of everything `tokens` reads of `doc`.
pub(super) fn text_key(doc: &Doc) -> u128 {
    let mut h = crate::hashing::Hasher::default();
    h.text(&doc.title);
    for list in [&doc.identifiers, &doc.fields, &doc.names] {
        h.number(list.len() as u64);
        for item in list {
            h.text(item);
        }
    }
    h.text(&doc.text);
    h.digest()
}

/// The terms kept by an earlier build, still encoded, by `text_key`; and the dictionary
/// their words are numbers into.
#[derive(Default)]
pub(crate) struct Kept<'a> {
    docs: HashMap<u128, &'a [u8]>,
    dictionary: Dictionary,
}

impl<'a> Kept<'a> {
    /// The terms in `bytes`, if the file is whole and this casebook's; else none.
    pub(crate) fn parse(bytes: &'a [u8]) -> Kept<'a> {
        Self::read(bytes).unwrap_or_default()
    }

    fn read(bytes: &'a [u8]) -> Option<Kept<'a>> {
        let mut r = Reader::open(bytes, MAGIC)?;
        if r.u128()? != key() {
            return None;
        }
        // An entry takes at least 20 bytes: a count beyond that is not allocated.
        let count = usize::try_from(r.u64()?).ok()?;
        if count > r.len() / 20 {
            return None;
        }
        let mut docs = HashMap::with_capacity(count);
        for _ in 0..count {
            docs.insert(r.u128()?, r.bytes()?);
        }
        let words = usize::try_from(r.u64()?).ok()?;
        if words > r.len() / 4 {
            return None;
        }
        let words: Vec<&str> = (0..words)
            .map(|_| std::str::from_utf8(r.bytes()?).ok())
            .collect::<Option<_>>()?;
        let dictionary = Dictionary::of_words(words.into_iter())?;
        r.is_empty().then_some(Kept { docs, dictionary })
    }

    fn has(&self, key: u128) -> bool {
        self.docs.contains_key(&key)
    }

    /// How many documents' terms are kept.
    pub(crate) fn len(&self) -> usize {
        self.docs.len()
    }
}

/// Whether the kept file should be written anew, when `reused` of its entries serve a
/// build of `docs` documents: a few documents changed since it was written are cheaper to
/// tokenize again at each build than the whole file is to write.
fn stale(kept: &Kept, reused: usize, docs: usize) -> bool {
    let stale = (docs - reused.min(docs)) + (kept.len() - reused.min(kept.len()));
    stale * 32 > docs
}

/// The next kept file, made as the documents' terms are: each word renumbered in the order
/// the file first uses it, so that its dictionary holds only the words its documents use.
pub(super) struct Next {
    writer: Writer,
    /// Where the count of entries goes, once known.
    count_at: usize,
    seen: std::collections::HashSet<u128>,
    /// Each word's number in the file, by its number in the build's dictionary.
    file_id: Vec<u32>,
    /// The build's numbers of the file's words, in the file's order.
    words: Vec<u32>,
}

impl Next {
    pub(super) fn new(docs: usize) -> Next {
        // About half a kilobyte a document (11,000 generated cases: 6 MB).
        let mut writer = Writer::with_room(MAGIC, docs * 600);
        writer.u128(key());
        let count_at = writer.len();
        writer.u64(0);
        Next {
            writer,
            count_at,
            seen: std::collections::HashSet::with_capacity(docs),
            file_id: Vec::new(),
            words: Vec::new(),
        }
    }

    /// The terms `t` of the text with key `text_key`.
    pub(super) fn push(&mut self, text_key: u128, t: &DocTerms) {
        // Two documents with the same text share an entry.
        if self.seen.insert(text_key) {
            let mut renumber = |id: u32| {
                let id = id as usize;
                if id >= self.file_id.len() {
                    self.file_id.resize(id + 1, NONE);
                }
                if self.file_id[id] == NONE {
                    self.file_id[id] = self.words.len() as u32;
                    self.words.push(id as u32);
                }
                self.file_id[id]
            };
            let encoded = encode(t, &mut renumber);
            self.writer.u128(text_key);
            self.writer.bytes(&encoded);
        }
    }

    /// The file, its words' text from `dictionary`, the build's.
    pub(super) fn finish(mut self, dictionary: &Dictionary) -> Vec<u8> {
        self.writer.put_u64(self.count_at, self.seen.len() as u64);
        self.writer.u64(self.words.len() as u64);
        for &id in &self.words {
            self.writer.bytes(dictionary.word(id).as_bytes());
        }
        self.writer.finish()
    }
}

/// One document's terms, small: numbers as LEB128, each word as `number_of` it, positions
/// as differences.
fn encode(t: &DocTerms, mut number_of: impl FnMut(u32) -> u32) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.terms.len() * 4 + t.positions.len() * 3);
    for len in t.lens {
        push(&mut out, u64::from(len));
    }
    push(&mut out, t.terms.len() as u64);
    for &(word, tf) in &t.terms {
        push(&mut out, u64::from(number_of(word)));
        for n in tf {
            push(&mut out, u64::from(n));
        }
    }
    push(&mut out, t.name_words.len() as u64);
    for &word in &t.name_words {
        push(&mut out, u64::from(number_of(word)));
    }
    push(&mut out, t.positions.len() as u64);
    let mut last = (0u32, 0u32);
    for &(slot, at) in &t.positions {
        // Sorted: by slot, then position within it.
        let slot_step = slot - last.0;
        push(&mut out, u64::from(slot_step));
        let base = if slot_step == 0 { last.1 } else { 0 };
        push(&mut out, u64::from(at - base));
        last = (slot, at);
    }
    out
}

/// The terms in `bytes`, if whole and every word's number is below `words`.
fn decode(bytes: &[u8], words: usize) -> Option<DocTerms> {
    let mut r = Numbers(Reader::fields(bytes));
    let mut lens = [0u32; 4];
    for len in &mut lens {
        *len = u32::try_from(r.next()?).ok()?;
    }
    let count = r.count()?;
    let mut terms = Vec::with_capacity(count);
    for _ in 0..count {
        let id = r.word(words)?;
        let mut tf = [0u16; 4];
        for n in &mut tf {
            *n = u16::try_from(r.next()?).ok()?;
        }
        terms.push((id, tf));
    }
    let count = r.count()?;
    let name_words = (0..count).map(|_| r.word(words)).collect::<Option<_>>()?;
    let count = r.count()?;
    let mut positions = Vec::with_capacity(count);
    let mut last = (0u32, 0u32);
    for _ in 0..count {
        let slot = last.0.checked_add(u32::try_from(r.next()?).ok()?)?;
        let base = if slot == last.0 { last.1 } else { 0 };
        let at = base.checked_add(u32::try_from(r.next()?).ok()?)?;
        if slot as usize >= terms.len() {
            return None;
        }
        positions.push((slot, at));
        last = (slot, at);
    }
    r.0.is_empty().then_some(DocTerms {
        terms,
        lens,
        name_words,
        positions,
    })
}

/// LEB128: seven bits a byte, low first, the high bit set on all but the last.
fn push(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

struct Numbers<'a>(Reader<'a>);

impl Numbers<'_> {
    fn next(&mut self) -> Option<u64> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.0.raw(1)?[0];
            n |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(n);
            }
        }
        None
    }

    /// A count of items, each at least a byte: never more than the bytes left.
    fn count(&mut self) -> Option<usize> {
        let count = usize::try_from(self.next()?).ok()?;
        (count <= self.0.len()).then_some(count)
    }

    /// A word's number, below `words`.
    fn word(&mut self, words: usize) -> Option<u32> {
        let id = u32::try_from(self.next()?).ok()?;
        ((id as usize) < words).then_some(id)
    }
}

/// The index of `inputs` for a one-shot build, tokenizing only the documents whose terms
/// are not `kept`; with the terms to keep for the next build, unless the kept ones will do.
/// `keys` are the documents' `text_keys`.
pub(crate) fn build(
    config: &crate::config::SearchConfig,
    inputs: &[super::LangInput],
    keys: &[Vec<u128>],
    kept: Kept,
) -> (super::SearchIndex, Option<Vec<u8>>) {
    if !config.enabled {
        return (super::SearchIndex::default(), None);
    }
    // Whether to keep the terms anew is known first, so that each language's are encoded
    // as they are made rather than all held until the last language is indexed.
    let docs = keys.iter().map(Vec::len).sum();
    let reused = keys.iter().flatten().filter(|k| kept.has(**k)).count();
    let mut next = stale(&kept, reused, docs).then(|| Next::new(docs));
    // The build's dictionary starts as the kept one, so kept numbers stand as they are.
    let Kept {
        docs: entries,
        mut dictionary,
    } = kept;
    let kept_words = dictionary.len();
    let mut keys_of = keys.iter();
    let index = super::build_with(config, inputs, &mut dictionary, |input, dictionary| {
        let keys = keys_of.next().expect("keys for each language");
        let terms = super::terms_of_docs(&input.docs, dictionary, |i| {
            decode(entries.get(&keys[i])?, kept_words).map(Arc::new)
        });
        if let Some(next) = next.as_mut() {
            for (key, t) in keys.iter().zip(&terms) {
                next.push(*key, t);
            }
        }
        terms
    });
    (index, next.map(|next| next.finish(&dictionary)))
}

#[cfg(test)]
mod tests {
    use super::super::tests::{config, doc, input, postings_of};
    use super::*;

    fn docs() -> Vec<Doc> {
        let mut named = doc("Case 1", "Bruising of the wrists; the card reads 2761/215.");
        named.identifiers = vec!["syn-0001".into(), "2761/215".into()];
        named.fields = vec!["Branch 215".into(), "Ahmad al-Halabi".into()];
        named.names = vec!["Ahmad al-Halabi".into()];
        vec![
            named,
            doc("Case 2", "كدمات على المعصمين"),
            doc(
                "Case 3",
                "𝒜 word beyond U+FFFF, and a long text ".repeat(40).as_str(),
            ),
        ]
    }

    /// The file kept for `docs`' terms, with each document's terms as numbered for it.
    fn kept_file(docs: &[Doc]) -> (Vec<u8>, Vec<DocTerms>) {
        let mut dictionary = Dictionary::default();
        let terms: Vec<DocTerms> = (docs.iter())
            .map(|d| super::super::doc_terms::doc_terms(d, &mut dictionary))
            .collect();
        let mut next = Next::new(docs.len());
        for (d, t) in docs.iter().zip(&terms) {
            next.push(text_key(d), t);
        }
        (next.finish(&dictionary), terms)
    }

    /// `t`'s words as text, with everything else as it is.
    fn as_text(t: &DocTerms, dictionary: &Dictionary) -> (Vec<(String, [u16; 4])>, Vec<String>) {
        let word = |id: u32| dictionary.word(id).to_string();
        (
            t.terms.iter().map(|&(id, tf)| (word(id), tf)).collect(),
            t.name_words.iter().map(|&id| word(id)).collect(),
        )
    }

    #[test]
    fn kept_terms_decode_to_the_terms_they_were_made_from() {
        let mut dictionary = Dictionary::default();
        for d in docs() {
            let terms = super::super::doc_terms::doc_terms(&d, &mut dictionary);
            let bytes = encode(&terms, |id| id);
            let back = decode(&bytes, dictionary.len()).expect("decodes");
            assert_eq!(back, terms);
            assert!(
                decode(&bytes[..bytes.len() - 1], dictionary.len()).is_none(),
                "cut short"
            );
            let top = terms.terms.iter().map(|t| t.0).max().unwrap() as usize;
            assert!(
                decode(&bytes, top).is_none(),
                "a word beyond the dictionary"
            );
        }
        // Through the file, each word renumbered to the file's own dictionary: the same
        // words, only those used.
        let (file, made) = kept_file(&docs()[1..]);
        let mut whole = Dictionary::default();
        let _ = kept_file(&docs()[..1]);
        for d in docs() {
            super::super::doc_terms::doc_terms(&d, &mut whole);
        }
        let kept = Kept::parse(&file);
        assert_eq!(kept.len(), 2);
        let mut made_dictionary = Dictionary::default();
        for d in &docs()[1..] {
            super::super::doc_terms::doc_terms(d, &mut made_dictionary);
        }
        assert_eq!(
            kept.dictionary.len(),
            made_dictionary.len(),
            "only the words used"
        );
        for (d, t) in docs()[1..].iter().zip(&made) {
            let back = decode(kept.docs[&text_key(d)], kept.dictionary.len()).unwrap();
            assert_eq!(
                as_text(&back, &kept.dictionary),
                as_text(t, &made_dictionary)
            );
        }
    }

    #[test]
    fn an_index_from_kept_terms_is_the_index_made_anew() {
        let inputs = vec![input(docs())];
        let fresh = super::super::build(&config(), &inputs);
        let keys = text_keys(&inputs);
        let (first, keep) = build(&config(), &inputs, &keys, Kept::default());
        let keep = keep.expect("every document tokenized: kept");
        let (second, again) = build(&config(), &inputs, &keys, Kept::parse(&keep));
        assert!(again.is_none(), "nothing to keep anew");
        // One document changed and one new, beside the kept: new words numbered after the
        // kept ones.
        let mut edited = docs();
        edited[1] = doc("Case 2", "كدمات على الكاحلين zebra");
        edited.push(doc("Case 4", "a new case: wrists, ankles"));
        let edited_inputs = vec![input(edited)];
        let edited_keys = text_keys(&edited_inputs);
        let (third, _) = build(&config(), &edited_inputs, &edited_keys, Kept::parse(&keep));
        let files = |i: &super::super::SearchIndex| {
            (i.outputs.iter())
                .map(|o| (o.path.clone(), o.read().unwrap().into_owned()))
                .collect::<Vec<_>>()
        };
        for index in [&first, &second] {
            assert_eq!(files(index), files(&fresh));
        }
        let edited_fresh = super::super::build(&config(), &edited_inputs);
        assert_eq!(files(&third), files(&edited_fresh));
        assert!(postings_of(&third, "zebra").is_some());
        // Kept terms are what the index is made of while the text's key holds: terms kept
        // under the key of another text stand for that text (which no real file can make).
        let (other, _) = kept_file(&[doc("Case 1", "zebra")]);
        let forged = {
            let mut kept = Kept::parse(&other);
            let terms = kept.docs.drain().next().unwrap().1;
            kept.docs.insert(text_key(&docs()[0]), terms);
            kept
        };
        let forged_inputs = [input(vec![docs().remove(0)])];
        let (forged_index, _) = build(
            &config(),
            &forged_inputs,
            &text_keys(&forged_inputs),
            forged,
        );
        assert!(postings_of(&forged_index, "zebra").is_some());
        assert!(postings_of(&forged_index, "bruising").is_none());
        // Written anew only once more than one document in 32 changed.
        let hundred = Kept {
            docs: (0..100u128).map(|k| (k, &[][..])).collect(),
            dictionary: Dictionary::default(),
        };
        assert!(!stale(&hundred, 99, 100) && stale(&hundred, 98, 100));
        assert!(stale(&Kept::default(), 0, 1));
        // Counts beyond the bytes there are: refused, not allocated.
        let mut huge = Writer::new(MAGIC);
        huge.u128(key());
        huge.u64(u64::MAX);
        assert_eq!(Kept::parse(&huge.finish()).len(), 0);
        let mut record = Vec::new();
        for n in [0, 0, 0, 0, u64::MAX >> 1] {
            push(&mut record, n);
        }
        assert!(decode(&record, 10).is_none());
        // Another casebook's file, or a damaged one: not used.
        let mut damaged = keep.clone();
        damaged[40] ^= 1;
        assert_eq!(Kept::parse(&damaged).len(), 0);
    }
}
