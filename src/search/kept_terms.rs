//! Each document's terms kept for the next one-shot build (`terms.bin` in the cache folder),
//! by a hash of the text they were read from, so that a build after an edit tokenizes only
//! the documents whose text changed (as `TermCache` does within `serve`).
//!
//! The file is checksummed and made by one casebook (tokenizing is its code); any other is
//! not used. A document's entry is found by a 128-bit hash of everything `doc_terms` reads,
//! each piece with its length, so that no two texts share one. A few documents changed
//! since the file was written are tokenized again at each build rather than the whole file
//! written again; once more than one in 32 is, it is written anew.

use std::collections::HashMap;

use super::{Doc, DocTerms};
use crate::cache_file::{Reader, Writer};

/// The kept terms' file, in the cache folder.
pub(crate) const FILE: &str = "terms.bin";

const MAGIC: &[u8] = b"casebook-terms-1\n";

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

/// A hash of everything `doc_terms` reads of `doc`.
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

/// The terms kept by an earlier build, still encoded, by `text_key`.
#[derive(Default)]
pub(crate) struct Kept<'a> {
    docs: HashMap<u128, &'a [u8]>,
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
        // A count is only a hint; an entry takes at least 20 bytes.
        let count = usize::try_from(r.u64()?).ok()?;
        let mut docs = HashMap::with_capacity(count.min(r.len() / 20));
        while !r.is_empty() {
            docs.insert(r.u128()?, r.bytes()?);
        }
        Some(Kept { docs })
    }

    fn has(&self, key: u128) -> bool {
        self.docs.contains_key(&key)
    }

    /// The kept terms of the text with key `key`, decoded.
    pub(super) fn terms(&self, key: u128) -> Option<DocTerms> {
        decode(self.docs.get(&key)?)
    }

    pub(super) fn len(&self) -> usize {
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

/// The next kept file, made as the documents' terms are.
pub(super) struct Next {
    writer: Writer,
    seen: std::collections::HashSet<u128>,
}

impl Next {
    pub(super) fn new(docs: usize) -> Next {
        // About a kilobyte a document (11,000 generated cases: 12 MB).
        let mut writer = Writer::with_room(MAGIC, docs * 1200);
        writer.u128(key());
        writer.u64(docs as u64);
        Next {
            writer,
            seen: std::collections::HashSet::with_capacity(docs),
        }
    }

    /// The terms of the text with key `text_key`, encoded (`encode`).
    pub(super) fn push(&mut self, text_key: u128, encoded: &[u8]) {
        // Two documents with the same text share an entry.
        if self.seen.insert(text_key) {
            self.writer.u128(text_key);
            self.writer.bytes(encoded);
        }
    }

    pub(super) fn finish(self) -> Vec<u8> {
        self.writer.finish()
    }
}

/// One document's terms, small: lengths and counts as LEB128 numbers, positions as
/// differences.
pub(super) fn encode(t: &DocTerms) -> Vec<u8> {
    let mut out = Vec::with_capacity(t.terms.len() * 12 + t.positions.len() * 3);
    for len in t.lens {
        push(&mut out, u64::from(len));
    }
    push(&mut out, t.terms.len() as u64);
    for (term, tf) in &t.terms {
        push(&mut out, term.len() as u64);
        out.extend_from_slice(term.as_bytes());
        for n in tf {
            push(&mut out, u64::from(*n));
        }
    }
    push(&mut out, t.name_words.len() as u64);
    for word in &t.name_words {
        push(&mut out, word.len() as u64);
        out.extend_from_slice(word.as_bytes());
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

fn decode(bytes: &[u8]) -> Option<DocTerms> {
    let mut r = Numbers(Reader::fields(bytes));
    let mut lens = [0u32; 4];
    for len in &mut lens {
        *len = u32::try_from(r.next()?).ok()?;
    }
    let count = r.count()?;
    let mut terms = Vec::with_capacity(count);
    for _ in 0..count {
        let term = r.text()?;
        let mut tf = [0u16; 4];
        for n in &mut tf {
            *n = u16::try_from(r.next()?).ok()?;
        }
        terms.push((term, tf));
    }
    let count = r.count()?;
    let mut name_words = Vec::with_capacity(count);
    for _ in 0..count {
        name_words.push(r.text()?);
    }
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

    fn text(&mut self) -> Option<String> {
        let len = usize::try_from(self.next()?).ok()?;
        String::from_utf8(self.0.raw(len)?.to_vec()).ok()
    }
}

/// The index of `inputs` for a one-shot build, tokenizing only the documents whose terms
/// are not `kept`; with the terms to keep for the next build, unless the kept ones will do.
/// `keys` are the documents' `text_keys`.
pub(crate) fn build(
    config: &crate::config::SearchConfig,
    inputs: &[super::LangInput],
    keys: &[Vec<u128>],
    kept: &Kept,
) -> (super::SearchIndex, Option<Vec<u8>>) {
    use rayon::prelude::*;
    use std::sync::Arc;
    if !config.enabled {
        return (super::SearchIndex::default(), None);
    }
    // Whether to keep the terms anew is known first, so that each language's are encoded
    // as they are made rather than all held (tens of megabytes at archive scale) until the
    // last language is indexed.
    let docs = keys.iter().map(Vec::len).sum();
    let reused = keys.iter().flatten().filter(|k| kept.has(**k)).count();
    let mut next = stale(kept, reused, docs).then(|| Next::new(docs));
    let mut keys_of = keys.iter();
    let index = super::build_with(config, inputs, |input| {
        let keys = keys_of.next().expect("keys for each language");
        let terms: Vec<Arc<DocTerms>> = (input.docs.par_iter().zip(keys))
            .map(|(d, key)| Arc::new(kept.terms(*key).unwrap_or_else(|| super::doc_terms(d))))
            .collect();
        if let Some(next) = next.as_mut() {
            for (key, t) in keys.iter().zip(&terms) {
                next.push(*key, &encode(t));
            }
        }
        terms
    });
    (index, next.map(Next::finish))
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

    #[test]
    fn kept_terms_decode_to_the_terms_they_were_made_from() {
        for d in docs() {
            let terms = super::super::doc_terms(&d);
            let back = decode(&encode(&terms)).expect("decodes");
            assert_eq!(back.terms, terms.terms);
            assert_eq!(back.lens, terms.lens);
            assert_eq!(back.name_words, terms.name_words);
            assert_eq!(back.positions, terms.positions);
            let bytes = encode(&terms);
            assert!(decode(&bytes[..bytes.len() - 1]).is_none(), "cut short");
        }
    }

    #[test]
    fn an_index_from_kept_terms_is_the_index_made_anew() {
        let inputs = vec![input(docs())];
        let fresh = super::super::build(&config(), &inputs);
        let keys = text_keys(&inputs);
        let (first, keep) = build(&config(), &inputs, &keys, &Kept::default());
        let keep = keep.expect("every document tokenized: kept");
        let kept = Kept::parse(&keep);
        let (second, again) = build(&config(), &inputs, &keys, &kept);
        assert!(again.is_none(), "nothing to keep anew");
        for index in [&first, &second] {
            let files = |i: &super::super::SearchIndex| {
                (i.outputs.iter())
                    .map(|o| (o.path.clone(), o.read().unwrap().into_owned()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(files(index), files(&fresh));
        }
        // Kept terms are what the index is made of while the text's key holds: terms kept
        // under the key of another text stand for that text (which no real file can make).
        let other = doc("Case 1", "zebra");
        let mut forged = Next::new(1);
        forged.push(
            text_key(&docs()[0]),
            &encode(&super::super::doc_terms(&other)),
        );
        let forged = forged.finish();
        let forged_inputs = [input(vec![docs().remove(0)])];
        let (forged_index, _) = build(
            &config(),
            &forged_inputs,
            &text_keys(&forged_inputs),
            &Kept::parse(&forged),
        );
        assert!(postings_of(&forged_index, "zebra").is_some());
        assert!(postings_of(&forged_index, "bruising").is_none());
        // Written anew only once more than one document in 32 changed.
        let hundred = Kept {
            docs: (0..100u128).map(|k| (k, &[][..])).collect(),
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
        assert!(decode(&record).is_none());
        // Another casebook's file, or a damaged one: not used.
        let mut damaged = keep.clone();
        damaged[40] ^= 1;
        assert_eq!(Kept::parse(&damaged).len(), 0);
    }
}
