//! Static search: a sharded index built from the pages and case records, read by a small
//! browser client (`themes/default/static/casebook-search.js`).
//!
//! Per language the index is a handful of kinds of file, all JavaScript that hands its data
//! to the client (`casebook.search.add(name, data)`), so they load through `<script>`
//! elements from any static host and from `file://`:
//!
//! - `meta`: document count, shard boundaries, facet values and labels, file names;
//! - term shards (`t<n>`): the sorted vocabulary cut into ~16 KB runs, so a query (or a
//!   prefix typed so far) loads only the shards its terms fall in. Each term carries its
//!   postings: document number deltas and a one-character BM25F score;
//! - document chunks (`d<n>`): title, URL, key fields, snippet source and, for a graphic
//!   photograph, its blurred placeholder, for a fixed number of documents per chunk;
//! - `facets`: every document's facet values packed in a mixed-radix code (value -> documents
//!   for every schema facet, with live counts computed in the browser); also cut into
//!   slices of documents (`f<n>`), so a query that finds a few documents fetches theirs;
//! - `dates`: every document's date, loaded only to sort by date.
//!
//! Scores are precomputed here (BM25F: per-field weights and length normalisation), so the
//! client only adds numbers. File names carry a hash of their bytes; output is deterministic.

mod dictionary;
mod doc_terms;
pub(crate) mod encode;
mod files;
mod input;
pub(crate) mod kept_terms;
pub(crate) mod names;
pub(crate) mod normalize;
mod positions;
mod vocabulary;

pub(crate) use input::{Doc, FacetEntry, FacetTable, LangInput};

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::NaiveDate;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use serde_json::json;

use crate::config::{SearchConfig, SearchWeights};
use crate::output::Output;
use dictionary::Dictionary;
use doc_terms::{DocTerms, Tokens, tokens};
use encode::{push_fixed, push_varint, score_char};
use files::{Entry, Files, Record, Runs, facet_codes, facet_slices, shard_runs, summary};
use vocabulary::Vocabulary;

/// At most this many document chunks per language, whatever the size of the archive.
const MAX_CHUNKS: usize = 4096;
const MIN_CHUNK_DOCS: usize = 4;
const BM25_K1: f64 = 1.2;
const BM25_B: f64 = 0.75;

/// The searchable fields, in the order of `[u16; 4]` term frequencies.
const TITLE: usize = 0;
const IDENTIFIER: usize = 1;
const FIELDS: usize = 2;
const TEXT: usize = 3;

/// What was built: the files, and for each language the root-relative path of its `meta`.
#[derive(Debug, Default)]
pub(crate) struct SearchIndex {
    pub(crate) outputs: Vec<Output>,
    pub(crate) entries: BTreeMap<String, String>,
    pub(crate) stats: Stats,
}

#[derive(Debug, Clone, Default)]
pub(crate) struct Stats {
    pub(crate) files: usize,
    pub(crate) bytes: usize,
    pub(crate) terms: usize,
    pub(crate) postings: usize,
    pub(crate) time: Duration,
}

/// A hash of everything an index is made from (`maker`: which casebook), for reusing a
/// saved one. `text_keys` are the documents' `kept_terms::text_keys`: each document's text
/// is hashed once, for this key and for finding its kept terms.
pub(crate) fn inputs_key(
    config: &SearchConfig,
    inputs: &[LangInput],
    text_keys: &[Vec<u128>],
    maker: &str,
) -> u128 {
    use std::hash::Hash;
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    maker.hash(&mut h);
    // Debug text: the weights are floats, which have no `Hash`.
    format!("{config:?}").hash(&mut h);
    // Documents are hashed side by side (their text is most of the input), then in order.
    for (input, text_keys) in inputs.iter().zip(text_keys) {
        (&input.lang, &input.facets).hash(&mut h);
        let docs: Vec<u128> = (input.docs.par_iter().zip(text_keys))
            .map(|(doc, text_key)| doc_key(doc, *text_key))
            .collect();
        docs.hash(&mut h);
    }
    h.digest128()
}

/// A hash of `doc` whose searchable text hashes to `text_key`.
fn doc_key(doc: &Doc, text_key: u128) -> u128 {
    use std::hash::Hash;
    // Named one by one, so that a field added to `Doc` cannot be left out of the key.
    let Doc {
        path,
        title: _,
        summary,
        title_lang,
        summary_lang,
        info,
        date,
        thumb,
        synthetic,
        identifiers: _,
        fields: _,
        names: _,
        text: _,
    } = doc;
    let mut d = xxhash_rust::xxh3::Xxh3::new();
    text_key.hash(&mut d);
    (
        path,
        summary,
        title_lang,
        summary_lang,
        info,
        date,
        thumb,
        synthetic,
    )
        .hash(&mut d);
    d.digest128()
}

const SAVED_MAGIC: &[u8] = b"casebook-search-1\n";

impl SearchIndex {
    /// The index as saved for the next build, under `key` (see `inputs_key`).
    pub(crate) fn to_bytes(&self, key: u128) -> Vec<u8> {
        let files: Vec<_> = (self.outputs.iter())
            .map(|o| (o.path.as_bytes(), o.read().unwrap_or_default()))
            .collect();
        let room = files
            .iter()
            .map(|(p, b)| p.len() + b.len() + 16)
            .sum::<usize>()
            + 1024;
        let mut w = crate::cache_file::Writer::with_room(SAVED_MAGIC, room);
        w.u128(key);
        for n in [self.stats.terms, self.stats.postings, self.entries.len()] {
            w.u64(n as u64);
        }
        for (lang, meta) in &self.entries {
            w.bytes(lang.as_bytes());
            w.bytes(meta.as_bytes());
        }
        for (path, bytes) in &files {
            w.bytes(path);
            w.bytes(bytes);
        }
        w.finish()
    }

    /// Whether the file at `path` starts like an index saved under `key`: read before the
    /// whole file, which is megabytes and checksummed, since most builds find another key.
    pub(crate) fn saved_under(path: &std::path::Path, key: u128) -> bool {
        crate::cache_file::starts_with_key(path, SAVED_MAGIC, key)
    }

    /// A saved index, if it was saved under `key` and is whole.
    pub(crate) fn parse(bytes: &[u8], key: u128) -> Option<SearchIndex> {
        let mut r = crate::cache_file::Reader::open(bytes, SAVED_MAGIC)?;
        if r.u128()? != key {
            return None;
        }
        let mut index = SearchIndex::default();
        index.stats.terms = r.u64()? as usize;
        index.stats.postings = r.u64()? as usize;
        for _ in 0..r.u64()? {
            index.entries.insert(r.string()?, r.string()?);
        }
        while !r.is_empty() {
            let path = r.string()?;
            index.outputs.push(Output::bytes(path, r.bytes()?));
        }
        index.count_files();
        Some(index)
    }

    fn count_files(&mut self) {
        self.stats.files = self.outputs.len();
        self.stats.bytes = self
            .outputs
            .iter()
            .map(|o| o.read().map_or(0, |b| b.len()))
            .sum();
    }
}

#[cfg(test)]
pub(crate) fn build(config: &SearchConfig, inputs: &[LangInput]) -> SearchIndex {
    build_cached(config, inputs, None)
}

/// Each document's terms from earlier builds (`casebook serve`), by the key of the text
/// they were read from (`kept_terms::text_key`, as a one-shot build keeps them), so a
/// rebuild tokenizes only the documents that changed; and the dictionary their words are
/// numbered in.
#[derive(Default)]
pub(crate) struct TermCache {
    docs: HashMap<u128, Arc<DocTerms>>,
    dictionary: Dictionary,
}

/// The index of `inputs`, reusing and refreshing `cache` when there is one (`serve`).
pub(crate) fn build_cached(
    config: &SearchConfig,
    inputs: &[LangInput],
    cache: Option<&mut TermCache>,
) -> SearchIndex {
    if !config.enabled {
        return SearchIndex::default();
    }
    let Some(cache) = cache else {
        let mut dictionary = Dictionary::default();
        return build_with(config, inputs, &mut dictionary, |input, dictionary| {
            terms_of_docs(&input.docs, dictionary, |_| None)
        });
    };
    let TermCache { docs, dictionary } = cache;
    let mut seen = Vec::new();
    let index = build_with(config, inputs, dictionary, |input, dictionary| {
        let keys: Vec<u128> = input
            .docs
            .par_iter()
            .map(|d| kept_terms::text_key(d))
            .collect();
        let terms = terms_of_docs(&input.docs, dictionary, |i| docs.get(&keys[i]).cloned());
        seen.extend(keys.into_iter().zip(terms.iter().cloned()));
        terms
    });
    // Keep exactly the documents of this build, so the cache does not grow with edits; and
    // the dictionary, which only grows, while most of its words are still used.
    *docs = seen.into_iter().collect();
    let mut used = vec![false; dictionary.len()];
    for dt in docs.values() {
        for &id in dt.terms.iter().map(|(id, _)| id).chain(&dt.name_words) {
            used[id as usize] = true;
        }
    }
    if used.iter().filter(|u| **u).count() * 2 < dictionary.len() {
        *cache = TermCache::default();
    }
    index
}

/// The terms of `docs`: `found` gives a document's (by its index) if they are known; the
/// rest are tokenized side by side, then numbered in `dictionary`, in document order.
fn terms_of_docs(
    docs: &[Arc<Doc>],
    dictionary: &mut Dictionary,
    found: impl Fn(usize) -> Option<Arc<DocTerms>> + Sync,
) -> Vec<Arc<DocTerms>> {
    let read: Vec<Result<Arc<DocTerms>, Tokens>> = (docs.par_iter().enumerate())
        .map(|(i, d)| found(i).ok_or_else(|| tokens(d)))
        .collect();
    (read.into_iter())
        .map(|r| r.unwrap_or_else(|t| Arc::new(t.numbered(dictionary))))
        .collect()
}

/// The index of `inputs`, with each language's documents' terms from `terms_of`, their
/// words numbered in `dictionary`.
fn build_with(
    config: &SearchConfig,
    inputs: &[LangInput],
    dictionary: &mut Dictionary,
    mut terms_of: impl FnMut(&LangInput, &mut Dictionary) -> Vec<Arc<DocTerms>>,
) -> SearchIndex {
    let started = Instant::now();
    let mut index = SearchIndex::default();
    if !config.enabled {
        return index;
    }
    for input in inputs {
        let per_doc = terms_of(input, dictionary);
        let lang = build_language(config, input, &per_doc, dictionary, &mut index.stats);
        index
            .entries
            .insert(input.lang.clone(), format!("/{}", lang.meta_path));
        index.outputs.extend(lang.files);
    }
    index.count_files();
    index.stats.time = started.elapsed();
    index
}

struct LangFiles {
    meta_path: String,
    files: Vec<Output>,
}

/// JavaScript compares strings by UTF-16 code units; shard boundaries must agree with it.
fn js_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn build_language(
    config: &SearchConfig,
    input: &LangInput,
    per_doc: &[Arc<DocTerms>],
    dictionary: &Dictionary,
    stats: &mut Stats,
) -> LangFiles {
    let mut files = Files {
        dir: format!("search/{}/", input.lang),
        outputs: Vec::new(),
    };
    let n = input.docs.len();

    // Terms and postings, gathered on every core.
    let mut vocabulary =
        Vocabulary::of_documents(per_doc, dictionary, rayon::current_num_threads());
    // Name keys: made once for each distinct name word, then a posting for every document
    // with a word of that key. They count as field matches (whether the name is there, not
    // how often) but not towards the field's length: another way to find words already there.
    let rules = names::NameRules::new(&config.name_spellings, &config.name_equivalents);
    let name_words = per_doc.iter().map(|dt| {
        let words = dt.name_words.iter();
        words.map(|&w| dictionary.word(w))
    });
    let key_of = names::key_terms(name_words, &rules);
    let mut doc_keys: Vec<&str> = Vec::new();
    for (d, dt) in per_doc.iter().enumerate() {
        doc_keys.clear();
        doc_keys
            .extend((dt.name_words.iter()).filter_map(|&w| key_of[dictionary.word(w)].as_deref()));
        doc_keys.sort_unstable();
        doc_keys.dedup();
        for &key in &doc_keys {
            let id = vocabulary.id(key);
            let mut tf = [0u16; 4];
            tf[FIELDS] = 1;
            vocabulary.postings[id].push((d as u32, tf));
        }
    }
    let Vocabulary {
        words,
        postings,
        positions,
        ..
    } = vocabulary;
    let mut avg = [0f64; 4];
    for dt in per_doc {
        for (a, l) in avg.iter_mut().zip(dt.lens) {
            *a += f64::from(l);
        }
    }
    for a in &mut avg {
        *a /= n.max(1) as f64;
    }
    let weights = weight_array(config.weights);
    // A name key is scored by how common the name is in any spelling (the documents of every
    // key with its loose skeleton), without length normalisation: its spellings then rank
    // by the client's weights alone, not by which spelling happens to be rarer.
    let mut name_df: FxHashMap<&str, usize> = FxHashMap::default();
    for (w, list) in words.iter().zip(&postings) {
        if w.starts_with(names::KEY_MARK) {
            *name_df.entry(names::loose_part(w)).or_default() += list.len();
        }
    }
    let encoded: Vec<String> = words
        .par_iter()
        .zip(&postings)
        .map(|(w, list)| {
            let scoring = match name_df.get(names::loose_part(w)) {
                Some(&df) if w.starts_with(names::KEY_MARK) => Scoring::NameKey { df },
                _ => Scoring::Word { avg: &avg },
            };
            encode_postings(list, per_doc, scoring, &weights, n)
        })
        .collect();
    stats.terms += words.len();
    stats.postings += postings.iter().map(Vec::len).sum::<usize>();
    let mut order: Vec<usize> = (0..words.len()).collect();
    // Without characters beyond U+FFFF (four bytes in UTF-8), byte order is UTF-16 order.
    if words.iter().any(|w| w.bytes().any(|b| b >= 0xF0)) {
        order.sort_unstable_by(|&a, &b| js_order(words[a], words[b]));
    } else {
        order.sort_unstable_by(|&a, &b| words[a].cmp(words[b]));
    }

    // Shards: runs of the sorted vocabulary; the client finds a term's shard by the first
    // term of each. Name keys have smaller shards of their own (`k<n>`): every query word
    // looks its key up, most find nothing, and that should cost little.
    let (keys, plain): (Vec<usize>, Vec<usize>) = order
        .iter()
        .partition(|&&t| words[t].starts_with(names::KEY_MARK));
    let entry = |t: usize, group: &'static dyn Fn(&str) -> &str| Entry {
        term: words[t],
        group: group(words[t]),
        postings: encoded[t].as_str(),
        positions: positions[t].as_str(),
    };
    let shards = shard_runs(
        &mut files,
        Runs::Terms,
        plain.into_iter().map(|t| entry(t, &|w| w)),
    );
    let key_shards = shard_runs(
        &mut files,
        Runs::Keys,
        keys.into_iter().map(|t| entry(t, &names::loose_part)),
    );

    // The names list for typos: every name word long enough, sorted, in runs like the term
    // shards.
    let mut name_words: Vec<&str> = key_of
        .iter()
        .filter(|(w, key)| key.is_some() && w.chars().count() >= names::TYPO_MIN_CHARS)
        .map(|(w, _)| *w)
        .collect();
    name_words.sort_unstable_by(|a, b| js_order(a, b));
    let name_shards = shard_runs(
        &mut files,
        Runs::Names,
        name_words.iter().map(|w| Entry {
            term: w,
            group: w,
            postings: "",
            positions: "",
        }),
    );

    // Document chunks: a result costs about its chunk, so they are small.
    let per_chunk = n.div_ceil(MAX_CHUNKS).max(MIN_CHUNK_DOCS);
    let doc_chunks: Vec<&[Arc<Doc>]> = input.docs.chunks(per_chunk).collect();
    let chunks = files.add_set("d", doc_chunks.len(), |i| {
        let records: Vec<_> = (doc_chunks[i].iter())
            .map(|d| Record {
                doc: d,
                summary: summary(&d.summary),
            })
            .collect();
        records
    });

    // Facets: each document's values as one mixed-radix number per group of facets.
    // The whole file for a query that finds documents all over the index (or browses by
    // facet), and the same codes cut into slices of documents for one that finds a few.
    let (facet_meta, groups) = facet_codes(&input.facets, n);
    let (facets_file, facet_slices) = if input.facets.is_empty() {
        (serde_json::Value::Null, None)
    } else {
        let codes: Vec<&str> = groups.iter().map(|g| g.1.as_str()).collect();
        let slices = facet_slices(&groups, n)
            .map(|(per, slices)| (per, files.add_set("f", slices.len(), |i| &slices[i])));
        (json!(files.add("facets", &codes)), slices)
    };

    // Dates: days since 1800-01-01, plus one (0: no date), three characters each.
    let epoch = NaiveDate::from_ymd_opt(1800, 1, 1).expect("valid date");
    let mut dates = String::with_capacity(n * 3);
    for d in &input.docs {
        let days = d
            .date
            .map_or(0, |d| (d - epoch).num_days().clamp(-1, 262_142) + 1);
        push_fixed(&mut dates, days as u64, 3);
    }
    let dates_file = files.add("dates", &dates);

    let meta = json!({
        "v": 1,
        "lang": input.lang,
        "n": n,
        "perPage": config.results_per_page,
        "chunk": per_chunk,
        // Each kind of sharded file is named `<kind><n>.<hash>.js`, by volumes of files: its
        // volume's hash of ten characters is at `10 * (n / volume)`.
        "volume": files::VOLUME,
        "files": {
            "d": chunks,
            "t": shards.hash,
            "p": shards.positions,
            "k": key_shards.hash,
            "n": name_shards.hash,
            "f": facet_slices.as_ref().map(|s| &s.1),
        },
        "facetSlice": facet_slices.as_ref().map(|s| s.0),
        "shards": shards.first,
        "keys": key_shards.first,
        "names": name_shards.first,
        "nameRules": rules.to_json(),
        "facets": facet_meta,
        "groups": groups.iter().map(|g| g.0).collect::<Vec<_>>(),
        "facetsFile": facets_file,
        "datesFile": dates_file,
    });
    let meta_file = files.add("meta", &meta);
    let meta_path = format!("{}{meta_file}", files.dir);
    LangFiles {
        meta_path,
        files: files.outputs,
    }
}

fn weight_array(w: SearchWeights) -> [f64; 4] {
    let mut out = [0.0; 4];
    out[TITLE] = w.title;
    out[IDENTIFIER] = w.identifier;
    out[FIELDS] = w.fields;
    out[TEXT] = w.text;
    out
}

/// How a term's postings are scored.
#[derive(Clone, Copy)]
enum Scoring<'a> {
    /// BM25F with the fields' average lengths.
    Word { avg: &'a [f64; 4] },
    /// A name key: the IDF of every spelling together (`df`), no length normalisation.
    NameKey { df: usize },
}

/// BM25F: field-weighted, length-normalised term frequency, then BM25 saturation and IDF.
/// A name key's documents all score the same (it is in one field once, unnormalised): its
/// postings are that score once, then the document deltas.
fn encode_postings(
    list: &[(u32, [u16; 4])],
    docs: &[Arc<DocTerms>],
    scoring: Scoring,
    weights: &[f64; 4],
    n: usize,
) -> String {
    let (df, avg) = match scoring {
        Scoring::Word { avg } => (list.len() as f64, Some(avg)),
        Scoring::NameKey { df } => (df.min(n) as f64, None),
    };
    let idf = (1.0 + (n as f64 - df + 0.5) / (df + 0.5)).ln();
    let mut out = String::with_capacity(list.len() * 2);
    if avg.is_none() {
        let weighted = weights[FIELDS];
        out.push(score_char(idf * weighted / (BM25_K1 + weighted)));
        let mut last = 0u32;
        for (doc, _) in list {
            push_varint(&mut out, u64::from(doc - last));
            last = *doc;
        }
        return out;
    }
    let mut last = 0u32;
    for (i, (doc, tf)) in list.iter().enumerate() {
        let mut weighted = 0.0;
        for f in 0..4 {
            let norm = match avg {
                _ if tf[f] == 0 => continue,
                Some(avg) if avg[f] == 0.0 => continue,
                Some(avg) => {
                    1.0 - BM25_B + BM25_B * f64::from(docs[*doc as usize].lens[f]) / avg[f]
                }
                None => 1.0,
            };
            weighted += weights[f] * f64::from(tf[f]) / norm;
        }
        let score = idf * weighted / (BM25_K1 + weighted);
        let delta = if i == 0 { *doc } else { doc - last };
        last = *doc;
        push_varint(&mut out, u64::from(delta));
        out.push(score_char(score));
    }
    out
}

#[cfg(test)]
mod tests;
