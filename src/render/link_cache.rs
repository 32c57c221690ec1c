//! The link rewriter's results from the last build, so a warm build tokenizes only pages
//! whose minified HTML changed.
//!
//! Finding links with a real HTML tokenizer reads about 95 MB/s; at 11,000 cases that is a
//! sixth of a build. A page's rewritten links depend only on its HTML, its URL, the link
//! mode and the rewriter itself, so those are the key (a 128-bit xxh3 hash, seeded with a
//! hash of the rewriter's source so a changed rewriter never reuses old results). The file
//! carries a checksum, and an entry that does not fit its page is recomputed.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use xxhash_rust::xxh3::Xxh3;

use crate::cache_file::{Reader, Writer};
use crate::html::{self, LinkEdit, LinkMode};

const MAGIC: &[u8] = b"casebook-links-1\n";

/// The file it is kept in, inside the image cache folder.
pub(crate) const FILE: &str = "links.bin";

/// Changes whenever `html.rs` (the rewriter) changes.
static SEED: LazyLock<u64> =
    LazyLock::new(|| xxhash_rust::xxh3::xxh3_64(include_str!("../html.rs").as_bytes()));

#[derive(Debug, Default)]
pub(crate) struct LinkCache {
    /// The saved file, checked whole. Its entries are decoded only for the pages rendered:
    /// a build after a first one renders a few pages, and decoding the 15,000 entries of an
    /// 11,000-case site took tens of milliseconds and 30 MB.
    saved: Vec<u8>,
    /// Where each saved entry's edits start in `saved`, by key.
    known: HashMap<u128, usize>,
    /// What this build used, for the next one: each page's key and edits.
    used: Mutex<Vec<(u128, Vec<LinkEdit>)>>,
}

fn key(page: &str, url_path: &str, mode: LinkMode) -> u128 {
    let mut h = Xxh3::with_seed(*SEED);
    h.update(page.as_bytes());
    h.update(&[0]);
    h.update(url_path.as_bytes());
    match mode {
        LinkMode::Relative => h.update(b"\0r"),
        LinkMode::Portable => h.update(b"\0p"),
        LinkMode::Absolute(base) => {
            h.update(b"\0a");
            h.update(base.as_bytes());
        }
    }
    h.digest128()
}

impl LinkCache {
    /// `html::rewrite_links`, reusing the last build's edits of the same page.
    pub(crate) fn rewrite(&self, page: &str, url_path: &str, mode: LinkMode) -> String {
        let key = key(page, url_path, mode);
        if let Some(edits) = self.saved_edits(key) {
            if let Some(out) = html::apply_link_edits(page, &edits) {
                self.remember(key, edits);
                return out;
            }
        }
        let edits = html::link_edits(page, url_path, mode);
        let out = html::apply_link_edits(page, &edits).unwrap_or_else(|| page.to_string());
        self.remember(key, edits);
        out
    }

    fn remember(&self, key: u128, edits: Vec<LinkEdit>) {
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, edits));
    }

    /// Reads a saved cache; anything unreadable is an empty cache.
    pub(crate) fn parse(saved: Vec<u8>) -> LinkCache {
        match index_entries(&saved) {
            Some(known) => LinkCache {
                saved,
                known,
                used: Mutex::default(),
            },
            None => LinkCache::default(),
        }
    }

    /// The edits saved under `key`, if there are and they read whole.
    fn saved_edits(&self, key: u128) -> Option<Vec<LinkEdit>> {
        let mut r = Reader::fields(self.saved.get(*self.known.get(&key)?..)?);
        let count = r.u32()? as usize;
        let mut edits = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let (start, end) = (r.u32()? as usize, r.u32()? as usize);
            edits.push((start..end, r.string()?));
        }
        Some(edits)
    }

    /// What this build used, as the next build will read it. Entries are sorted by key, so
    /// the same build saves the same bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        let mut entries = self.used.into_inner().unwrap_or_else(|e| e.into_inner());
        entries.sort_unstable_by_key(|(key, _)| *key);
        entries.dedup_by_key(|(key, _)| *key);
        let mut w = Writer::new(MAGIC);
        for (key, edits) in entries {
            w.u128(key);
            w.u32(edits.len() as u32);
            for (range, value) in edits {
                w.u32(range.start as u32);
                w.u32(range.end as u32);
                w.bytes(value.as_bytes());
            }
        }
        // A damaged file must not publish a wrong link: `finish` puts a checksum last.
        w.finish()
    }
}

/// Where each entry's edits start in `bytes`, by key, without decoding them; `None` if the
/// file is not a whole cache.
fn index_entries(bytes: &[u8]) -> Option<HashMap<u128, usize>> {
    let mut r = Reader::open(bytes, MAGIC)?;
    // The checksum after the fields: a field's place is counted back from it.
    let end = bytes.len() - 16;
    let mut known = HashMap::new();
    while !r.is_empty() {
        let key = r.u128()?;
        known.insert(key, end - r.len());
        for _ in 0..r.u32()? {
            r.raw(8)?;
            r.bytes()?;
        }
    }
    Some(known)
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<a href="/cases/">c</a><img src=/i.jpg alt="">"#;

    #[test]
    fn a_saved_cache_gives_the_same_pages_without_the_tokenizer() {
        let first = LinkCache::default();
        let out = first.rewrite(PAGE, "/a/", LinkMode::Relative);
        assert_eq!(out, html::rewrite_links(PAGE, "/a/", LinkMode::Relative));
        let saved = first.into_bytes();
        let second = LinkCache::parse(saved.clone());
        assert_eq!(second.known.len(), 1);
        assert_eq!(second.rewrite(PAGE, "/a/", LinkMode::Relative), out);
        // Another URL or mode is another key.
        assert_ne!(
            second.rewrite(PAGE, "/a/", LinkMode::Portable),
            second.rewrite(PAGE, "/a/b/", LinkMode::Relative)
        );
        assert!(second.into_bytes().len() > saved.len());
    }

    #[test]
    fn damaged_or_misfitting_entries_are_not_used() {
        assert!(LinkCache::parse(b"not a cache".to_vec()).known.is_empty());
        // An entry that does not fit the page (a damaged file, a hash collision).
        let key = key(PAGE, "/a/", LinkMode::Relative);
        let mut w = Writer::new(MAGIC);
        w.u128(key);
        w.u32(1);
        w.u32(5);
        w.u32(500);
        w.bytes(b"x");
        let cache = LinkCache::parse(w.finish());
        assert_eq!(cache.saved_edits(key), Some(vec![(5..500, "x".into())]));
        assert_eq!(
            cache.rewrite(PAGE, "/a/", LinkMode::Relative),
            html::rewrite_links(PAGE, "/a/", LinkMode::Relative)
        );
        let one = LinkCache::default();
        one.rewrite(PAGE, "/a/", LinkMode::Relative);
        let saved = one.into_bytes();
        assert_eq!(LinkCache::parse(saved.clone()).known.len(), 1);
        assert!(
            LinkCache::parse(saved[..saved.len() - 3].to_vec())
                .known
                .is_empty()
        );
    }
}
