//! The files of a language's index: document records, runs of sorted entries cut into
//! shards, facet codes, and the script file each one is published as.

use rayon::prelude::*;
use serde_json::json;

use super::encode::{push_fixed, width_for};
use super::input::{Doc, FacetTable};
use crate::output::Output;

/// Target size of a term shard before compression: a one-word query fetches one, so they
/// are small, and a word whose postings are larger has a file of its own.
const SHARD_BYTES: usize = 4 * 1024;
/// Target size of a name-key shard and of a run of the names list.
const KEY_SHARD_BYTES: usize = 2 * 1024;
const NAMES_SHARD_BYTES: usize = 8 * 1024;
/// Sharded files are named by volumes of this many (see `Files::add_set`).
pub(super) const VOLUME: usize = 16;
/// Snippet sources are cut to about this many characters.
pub(super) const SUMMARY_CHARS: usize = 220;

/// A document as the client reads it: path, title, summary, key fields, placeholder,
/// synthetic; then, only when one is untranslated, the languages of the title and summary.
pub(super) struct Record<'a> {
    pub(super) doc: &'a Doc,
    /// The snippet source, cut (`summary`).
    pub(super) summary: String,
}

impl serde::Serialize for Record<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let d = self.doc;
        let untranslated = !d.title_lang.is_empty() || !d.summary_lang.is_empty();
        let mut t = serializer.serialize_tuple(if untranslated { 8 } else { 6 })?;
        t.serialize_element(d.path.trim_start_matches('/'))?;
        t.serialize_element(&d.title)?;
        t.serialize_element(&self.summary)?;
        t.serialize_element(&d.info)?;
        t.serialize_element(d.thumb.as_deref().map_or("", |p| p.trim_start_matches('/')))?;
        t.serialize_element(&u8::from(d.synthetic))?;
        if untranslated {
            t.serialize_element(&d.title_lang)?;
            t.serialize_element(&d.summary_lang)?;
        }
        t.end()
    }
}

/// The runs of sorted entries an index is cut into, one kind of file each.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Runs {
    /// `t<n>`: words and their postings; one file at least, so every query has somewhere
    /// to look.
    Terms,
    /// `k<n>`: name keys and their postings.
    Keys,
    /// `n<n>`: the names list, words alone.
    Names,
}

impl Runs {
    fn prefix(self) -> &'static str {
        match self {
            Runs::Terms => "t",
            Runs::Keys => "k",
            Runs::Names => "n",
        }
    }

    fn target_bytes(self) -> usize {
        match self {
            Runs::Terms => SHARD_BYTES,
            Runs::Keys => KEY_SHARD_BYTES,
            Runs::Names => NAMES_SHARD_BYTES,
        }
    }
}

/// Where a kind of run went: the first entry (or group) of each run, and the hash that
/// names the files of the kind (and of their positions files).
pub(super) struct Shards {
    pub(super) first: Vec<String>,
    pub(super) hash: String,
    pub(super) positions: Option<String>,
}

/// One entry of a run: its term, the group it may not be cut from (a name key's loose
/// part: every spelling of a skeleton is in one shard, so a query fetches one), its postings
/// and its positions.
pub(super) struct Entry<'a> {
    pub(super) term: &'a str,
    pub(super) group: &'a str,
    pub(super) postings: &'a str,
    pub(super) positions: &'a str,
}

/// Cuts sorted entries into files of about the kind's size, never inside a group and with an
/// entry larger than that alone. The names list's postings are empty and not written. Word
/// runs also get a file of their terms' positions (`p<n>`, one string: the terms' positions
/// in the run's order), fetched for quoted phrases only.
pub(super) fn shard_runs<'a>(
    files: &mut Files,
    kind: Runs,
    items: impl Iterator<Item = Entry<'a>>,
) -> Shards {
    // Runs are cut in order, then written side by side.
    let mut runs: Vec<(&str, Vec<&str>, String)> = Vec::new();
    let mut current: (&str, Vec<&str>, String) = ("", Vec::new(), String::new());
    let mut size = 0;
    let mut last_group = None;
    for e in items {
        let bytes = e.term.len() + e.postings.len() + 6;
        if !current.1.is_empty()
            && last_group != Some(e.group)
            && size + bytes > kind.target_bytes()
        {
            runs.push(std::mem::take(&mut current));
            size = 0;
        }
        if current.1.is_empty() {
            current.0 = e.group;
        }
        last_group = Some(e.group);
        size += bytes;
        current.1.push(e.term);
        if kind != Runs::Names {
            current.1.push(e.postings);
        }
        if kind == Runs::Terms {
            current.2.push_str(e.positions);
        }
    }
    if !current.1.is_empty() || (runs.is_empty() && kind == Runs::Terms) {
        runs.push(current);
    }
    let hash = files.add_set(kind.prefix(), runs.len(), |i| &runs[i].1);
    let positions = (kind == Runs::Terms).then(|| files.add_set("p", runs.len(), |i| &runs[i].2));
    Shards {
        first: runs.iter().map(|run| run.0.to_string()).collect(),
        hash,
        positions,
    }
}

/// Facet metadata for the client and, per group of facets, `(characters per document,
/// codes of every document)`. Single-valued facets share groups as digits of a mixed-radix
/// number (radix `values + 1`, 0 meaning none), least significant first in facet order,
/// kept below 2^48 so the client's arithmetic is exact. Each list facet has a group of its
/// own: a bit set per document, six values per character.
pub(super) fn facet_codes(
    facets: &[FacetTable],
    n: usize,
) -> (Vec<serde_json::Value>, Vec<(usize, String)>) {
    const LIMIT: u128 = 1 << 48;
    struct Group {
        members: Vec<usize>,
        product: u128,
        bits: bool,
    }
    let mut meta = Vec::new();
    let mut groups: Vec<Group> = Vec::new();
    for (i, f) in facets.iter().enumerate() {
        let radix = f.values.len() as u128 + 1;
        let open = groups
            .iter()
            .rposition(|g| !g.bits && g.product * radix < LIMIT);
        let group = match (f.multi, open) {
            (false, Some(g)) => {
                groups[g].members.push(i);
                groups[g].product *= radix;
                g
            }
            (multi, _) => {
                groups.push(Group {
                    members: vec![i],
                    product: radix,
                    bits: multi,
                });
                groups.len() - 1
            }
        };
        meta.push(json!({
            "name": f.name,
            "label": f.label,
            "multi": f.multi,
            "group": group,
            "radix": if f.multi { 0 } else { radix as u64 },
            "values": f.values.iter().map(|v| json!([v.value, v.label, v.docs.len()])).collect::<Vec<_>>(),
        }));
    }
    let mut out = Vec::new();
    for g in groups {
        if g.bits {
            let f = &facets[g.members[0]];
            let width = f.values.len().div_ceil(6).max(1);
            let mut sets = vec![0u8; n * width];
            for (v, entry) in f.values.iter().enumerate() {
                for &d in entry.docs.iter().filter(|&&d| d < n) {
                    sets[d * width + v / 6] |= 1 << (v % 6);
                }
            }
            let text = sets
                .iter()
                .map(|&b| super::encode::ALPHABET[b as usize] as char)
                .collect();
            out.push((width, text));
            continue;
        }
        let mut codes = vec![0u64; n];
        let mut place: u64 = 1;
        for &i in &g.members {
            let f = &facets[i];
            for (v, entry) in f.values.iter().enumerate() {
                for &d in entry.docs.iter().filter(|&&d| d < n) {
                    codes[d] += (v as u64 + 1) * place;
                }
            }
            place *= f.values.len() as u64 + 1;
        }
        let width = width_for(g.product as u64);
        let mut text = String::with_capacity(n * width);
        for c in codes {
            push_fixed(&mut text, c, width);
        }
        out.push((width, text));
    }
    (meta, out)
}

/// At most this many facet slices per language: a query fetches the slices of the
/// documents it found, a broad one the whole file (one request, not dozens).
pub(super) const FACET_SLICES: usize = 32;
/// At least this many documents per facet slice.
const FACET_SLICE_DOCS: usize = 128;

/// Documents per facet slice for an index of `n`, and the slices of `groups` (as from
/// `facet_codes`): slice `i` holds every group's codes of documents `i * per` to
/// `(i + 1) * per`. None when one slice would hold every document.
pub(super) fn facet_slices(
    groups: &[(usize, String)],
    n: usize,
) -> Option<(usize, Vec<Vec<&str>>)> {
    let per = n.div_ceil(FACET_SLICES).max(FACET_SLICE_DOCS);
    (n > per).then(|| {
        let slices = (0..n.div_ceil(per))
            .map(|i| {
                let docs = i * per..((i + 1) * per).min(n);
                (groups.iter())
                    .map(|(width, text)| &text[docs.start * width..docs.end * width])
                    .collect()
            })
            .collect();
        (per, slices)
    })
}

/// The snippet source cut at a word boundary near `SUMMARY_CHARS` characters.
pub(super) fn summary(text: &str) -> String {
    // Words joined by single spaces, read only as far as the cut needs.
    let mut chars = 0;
    let mut joined = String::new();
    for word in text.split_whitespace() {
        if chars > SUMMARY_CHARS {
            break;
        }
        if !joined.is_empty() {
            joined.push(' ');
            chars += 1;
        }
        joined.push_str(word);
        chars += word.chars().count();
    }
    let text = joined;
    if chars <= SUMMARY_CHARS {
        return text;
    }
    let cut: String = text.chars().take(SUMMARY_CHARS).collect();
    let cut = match cut.rfind(' ') {
        Some(i) if i > SUMMARY_CHARS / 2 => &cut[..i],
        _ => &cut,
    };
    format!("{}…", cut.trim_end_matches(|c: char| !c.is_alphanumeric()))
}

/// The files of one language's index, under `dir` (`search/en/`).
pub(super) struct Files {
    pub(super) dir: String,
    pub(super) outputs: Vec<Output>,
}

impl Files {
    /// Adds a script registering `data` under `name`; returns its file name
    /// (`t3.1a2b3c4d5e.js`).
    pub(super) fn add(&mut self, name: &str, data: &(impl serde::Serialize + ?Sized)) -> String {
        let (file, output) = script_file(&self.dir, name, script(name, data));
        self.outputs.push(output);
        file
    }

    /// Adds a set of scripts, `<prefix><i>` registering `data(i)` for each `i` below
    /// `count`, named by volumes of `VOLUME` files: each file by one hash of its volume's
    /// files (`t3.1a2b3c4d5e.js`). The meta then names a thousand files with a few hashes,
    /// and a change renames the files of its volume only. Returns the volumes' hashes, one
    /// after another.
    pub(super) fn add_set<T: serde::Serialize>(
        &mut self,
        prefix: &str,
        count: usize,
        data: impl Fn(usize) -> T + Sync,
    ) -> String {
        use sha2::Digest;
        let bodies: Vec<String> = (0..count)
            .into_par_iter()
            .map(|i| script(&format!("{prefix}{i}"), &data(i)))
            .collect();
        let hashes: Vec<String> = bodies
            .par_chunks(VOLUME)
            .map(|volume| {
                let mut h = sha2::Sha256::new();
                for body in volume {
                    h.update(body.as_bytes());
                }
                crate::hashing::hex(&h.finalize())[..10].to_string()
            })
            .collect();
        // The bodies become the files' bytes, not copied: megabytes at archive scale.
        for (i, body) in bodies.into_iter().enumerate() {
            let path = format!("{}{prefix}{i}.{}.js", self.dir, hashes[i / VOLUME]);
            self.outputs.push(Output::bytes(path, body.into_bytes()));
        }
        hashes.concat()
    }
}

/// `search/en/t3.1a2b3c4d5e.js`, the script `body` registering data under `name`; returns
/// the file name (`t3.1a2b3c4d5e.js`) and the output.
pub(super) fn script_file(dir: &str, name: &str, body: String) -> (String, Output) {
    use sha2::Digest;
    let hash = crate::hashing::hex(&sha2::Sha256::digest(body.as_bytes()));
    let file = format!("{name}.{}.js", &hash[..10]);
    (
        file.clone(),
        Output::bytes(format!("{dir}{file}"), body.into_bytes()),
    )
}

/// The script registering `data` under `name`. The JSON is written straight from the Rust
/// values (tuples, strings), without a `serde_json::Value` tree in between (at archive scale
/// that tree was a tenth of the build), and in place: an index's files are megabytes, not
/// copied once more.
pub(super) fn script(name: &str, data: &(impl serde::Serialize + ?Sized)) -> String {
    let mut body = b"casebook.search.add(".to_vec();
    serde_json::to_writer(&mut body, name).expect("a string serialises");
    body.push(b',');
    serde_json::to_writer(&mut body, data).expect("index data serialises");
    body.extend_from_slice(b");\n");
    String::from_utf8(body).expect("JSON is UTF-8")
}
