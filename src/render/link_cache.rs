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
    known: HashMap<u128, Vec<LinkEdit>>,
    /// What this build used, for the next one: the key, and the edits when they are new.
    used: Mutex<Vec<(u128, Option<Vec<LinkEdit>>)>>,
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
        if let Some(out) = self
            .known
            .get(&key)
            .and_then(|edits| html::apply_link_edits(page, edits))
        {
            self.remember(key, None);
            return out;
        }
        let edits = html::link_edits(page, url_path, mode);
        let out = html::apply_link_edits(page, &edits).unwrap_or_else(|| page.to_string());
        self.remember(key, Some(edits));
        out
    }

    fn remember(&self, key: u128, edits: Option<Vec<LinkEdit>>) {
        self.used
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((key, edits));
    }

    /// Reads a saved cache; anything unreadable is an empty cache.
    pub(crate) fn parse(bytes: &[u8]) -> LinkCache {
        LinkCache {
            known: parse_entries(bytes).unwrap_or_default(),
            used: Mutex::default(),
        }
    }

    /// What this build used, as the next build will read it. Entries are sorted by key, so
    /// the same build saves the same bytes.
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        let mut known = self.known;
        let used = self.used.into_inner().unwrap_or_else(|e| e.into_inner());
        let mut entries: Vec<(u128, Vec<LinkEdit>)> = used
            .into_iter()
            .filter_map(|(key, edits)| Some((key, edits.or_else(|| known.remove(&key))?)))
            .collect();
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

fn parse_entries(bytes: &[u8]) -> Option<HashMap<u128, Vec<LinkEdit>>> {
    let mut r = Reader::open(bytes, MAGIC)?;
    let mut entries = HashMap::new();
    while !r.is_empty() {
        let key = r.u128()?;
        let count = r.u32()? as usize;
        let mut edits = Vec::with_capacity(count.min(1024));
        for _ in 0..count {
            let (start, end) = (r.u32()? as usize, r.u32()? as usize);
            edits.push((start..end, r.string()?));
        }
        entries.insert(key, edits);
    }
    Some(entries)
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
        let second = LinkCache::parse(&saved);
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
        assert!(LinkCache::parse(b"not a cache").known.is_empty());
        let mut cache = LinkCache::default();
        // An entry that does not fit the page (a damaged file, a hash collision).
        let key = key(PAGE, "/a/", LinkMode::Relative);
        cache.known.insert(key, vec![(5..500, "x".into())]);
        assert_eq!(
            cache.rewrite(PAGE, "/a/", LinkMode::Relative),
            html::rewrite_links(PAGE, "/a/", LinkMode::Relative)
        );
        let one = LinkCache::default();
        one.rewrite(PAGE, "/a/", LinkMode::Relative);
        let saved = one.into_bytes();
        assert_eq!(LinkCache::parse(&saved).known.len(), 1);
        assert!(LinkCache::parse(&saved[..saved.len() - 3]).known.is_empty());
    }
}
