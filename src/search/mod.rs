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
use encode::{push_fixed, push_varint, score_char};
use files::{Entry, Files, Record, Runs, facet_codes, facet_slices, shard_runs, summary, to_json};
use normalize::{Terms, normalize};
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
        use std::io::Read;
        let mut head = vec![0u8; SAVED_MAGIC.len() + 16];
        let read = std::fs::File::open(path).and_then(|mut f| f.read_exact(&mut head));
        read.is_ok()
            && head[..SAVED_MAGIC.len()] == *SAVED_MAGIC
            && head[SAVED_MAGIC.len()..] == key.to_le_bytes()
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

/// Each document's terms from earlier builds (`casebook serve`), keyed by a hash of the
/// document's searchable text, so a rebuild tokenizes only the documents that changed.
#[derive(Default)]
pub(crate) struct TermCache {
    docs: HashMap<u64, Arc<DocTerms>>,
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
        return build_with(config, inputs, |input| {
            input
                .docs
                .par_iter()
                .map(|d| Arc::new(doc_terms(d)))
                .collect()
        });
    };
    let mut seen = Vec::new();
    let index = build_with(config, inputs, |input| {
        let keyed: Vec<(u64, Arc<DocTerms>)> = input
            .docs
            .par_iter()
            .map(|d| {
                let key = text_hash(d);
                let terms = cache
                    .docs
                    .get(&key)
                    .cloned()
                    .unwrap_or_else(|| Arc::new(doc_terms(d)));
                (key, terms)
            })
            .collect();
        seen.extend(keyed.iter().cloned());
        keyed.into_iter().map(|(_, t)| t).collect()
    });
    // Keep exactly the documents of this build, so the cache does not grow with edits.
    cache.docs = seen.into_iter().collect();
    index
}

/// The index of `inputs`, with each language's documents' terms from `terms_of`.
fn build_with(
    config: &SearchConfig,
    inputs: &[LangInput],
    mut terms_of: impl FnMut(&LangInput) -> Vec<Arc<DocTerms>>,
) -> SearchIndex {
    let started = Instant::now();
    let mut index = SearchIndex::default();
    if !config.enabled {
        return index;
    }
    for input in inputs {
        let per_doc = terms_of(input);
        let lang = build_language(config, input, &per_doc, &mut index.stats);
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

/// Term frequencies of one document per field, each field's length in terms, the words of
/// its name fields (their keys are made once per word for the whole index), and where its
/// words as written are (for quoted phrases).
struct DocTerms {
    terms: Vec<(String, [u16; 4])>,
    lens: [u32; 4],
    name_words: Vec<String>,
    /// `(index in terms, position)` of every word as written, sorted. Positions run through
    /// the title, identifiers, fields and text in turn, with a gap after each piece, so a
    /// phrase never spans two of them.
    positions: Vec<(u32, u32)>,
}

/// A hash of everything `doc_terms` reads.
fn text_hash(doc: &Doc) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    (
        &doc.title,
        &doc.identifiers,
        &doc.fields,
        &doc.names,
        &doc.text,
    )
        .hash(&mut h);
    h.finish()
}

fn doc_terms(doc: &Doc) -> DocTerms {
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
    DocTerms {
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

/// JavaScript compares strings by UTF-16 code units; shard boundaries must agree with it.
fn js_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

fn build_language(
    config: &SearchConfig,
    input: &LangInput,
    per_doc: &[Arc<DocTerms>],
    stats: &mut Stats,
) -> LangFiles {
    let mut files = Files {
        dir: format!("search/{}/", input.lang),
        outputs: Vec::new(),
    };
    let n = input.docs.len();

    // Terms and postings, gathered on every core.
    let mut vocabulary = Vocabulary::of_documents(per_doc, rayon::current_num_threads());
    // Name keys: made once for each distinct name word, then a posting for every document
    // with a word of that key. They count as field matches (whether the name is there, not
    // how often) but not towards the field's length: another way to find words already there.
    let rules = names::NameRules::new(&config.name_spellings, &config.name_equivalents);
    let key_of = names::key_terms(per_doc.iter().map(|dt| dt.name_words.as_slice()), &rules);
    let mut doc_keys: Vec<&str> = Vec::new();
    for (d, dt) in per_doc.iter().enumerate() {
        doc_keys.clear();
        doc_keys.extend(
            dt.name_words
                .iter()
                .filter_map(|w| key_of[w.as_str()].as_deref()),
        );
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
    let chunks = files.add_set(
        "d",
        input
            .docs
            .par_chunks(per_chunk)
            .map(|docs| {
                let records: Vec<_> = docs
                    .iter()
                    .map(|d| Record {
                        doc: d,
                        summary: summary(&d.summary),
                    })
                    .collect();
                to_json(&records)
            })
            .collect(),
    );

    // Facets: each document's values as one mixed-radix number per group of facets.
    // The whole file for a query that finds documents all over the index (or browses by
    // facet), and the same codes cut into slices of documents for one that finds a few.
    let (facet_meta, groups) = facet_codes(&input.facets, n);
    let (facets_file, facet_slices) = if input.facets.is_empty() {
        (serde_json::Value::Null, None)
    } else {
        let codes: Vec<&str> = groups.iter().map(|g| g.1.as_str()).collect();
        let slices = facet_slices(&groups, n).map(|(per, slices)| {
            let json = slices.iter().map(to_json).collect();
            (per, files.add_set("f", json))
        });
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
