//! What a one-shot build keeps of each page for the next (`pages.bin`, sealed in the cache
//! folder like the search caches): a stand-in for the page's markdown (the hash of its
//! HTML and summary, its table of contents and word count) and its search document, under
//! the page's key (`Page::key`), with every `@/` link its markdown resolved and where to.
//! While the key is the same and each link still resolves to the same address, the next
//! build neither renders the page's markdown nor makes its search document again: at
//! 11,000 cases that was most of a one-case edit's `prepare`. A page that is rendered gets
//! its markdown made whole then (`Prepared::page_md`).

use std::collections::HashMap;

use chrono::{Datelike as _, NaiveDate};

use crate::cache_file::{Reader, StampedEntries, Writer};
use crate::markdown::{Rendered, TocEntry};
use crate::search::Doc;

/// The file, in the cache folder.
pub(crate) const FILE: &str = "pages.bin";

const MAGIC: &[u8] = b"casebook-pages-1\n";

/// Each `@/` target a page's markdown resolved, and the address it resolved to.
pub(crate) type Links = Vec<(String, Option<String>)>;

/// The pages a build kept, by URL path, each under its page's key, still encoded.
#[derive(Default)]
pub(crate) struct KeptPages<'a> {
    entries: StampedEntries<'a>,
}

/// One page as kept: its markdown's stand-in and its search document, and its entry's
/// bytes as they are, for the next file.
pub(super) struct Kept<'a> {
    pub(super) markdown: Rendered,
    pub(super) doc: Doc,
    pub(super) record: &'a [u8],
}

impl<'a> KeptPages<'a> {
    /// The pages kept in `bytes`, if it is whole and was made under `key` (this casebook
    /// and the configuration: `content::saved::key`); otherwise none.
    pub(crate) fn parse(bytes: &'a [u8], key: u128) -> KeptPages<'a> {
        let entries = || {
            let mut r = Reader::open(bytes, MAGIC)?;
            (r.u128()? == key).then_some(())?;
            r.stamped_entries(16)
        };
        KeptPages {
            entries: entries().unwrap_or_default(),
        }
    }

    /// The file's size, to size the next one.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// The page at `path`, if it was kept under `key` and `resolve` gives each of its links
    /// the address it had.
    pub(super) fn get(
        &self,
        path: &str,
        key: u128,
        resolve: impl Fn(&str) -> Option<String>,
    ) -> Option<Kept<'a>> {
        let (kept_key, record) = self.entries.get(path)?;
        if *kept_key != key.to_le_bytes().as_slice() {
            return None;
        }
        let mut r = Reader::fields(record);
        for _ in 0..r.u32()? {
            let target = std::str::from_utf8(r.bytes()?).ok()?;
            if resolve(target) != optional(&mut r)? {
                return None;
            }
        }
        let markdown = Rendered {
            stand_in_for: Some([r.u64()?, r.u64()?]),
            summary: optional(&mut r)?,
            word_count: usize::try_from(r.u64()?).ok()?,
            toc: toc(&mut r, 0)?,
            ..Rendered::default()
        };
        let doc = decode_doc(&mut r)?;
        r.is_empty().then_some(Kept {
            markdown,
            doc,
            record,
        })
    }
}

/// The next file, made under `key`, of `count` entries (a page's path, its key and its
/// `entry`), with room for `room` bytes of them: tens of megabytes at archive scale are not
/// grown by doubling.
pub(super) fn file<'e>(
    key: u128,
    count: usize,
    room: usize,
    entries: impl Iterator<Item = (&'e str, u128, std::borrow::Cow<'e, [u8]>)>,
) -> Vec<u8> {
    let mut w = Writer::with_room(MAGIC, room + 24);
    w.u128(key);
    w.u64(count as u64);
    for (path, page_key, entry) in entries {
        w.stamped_entry(path, &page_key.to_le_bytes(), &entry);
    }
    w.finish()
}

/// One page's entry: the links its markdown resolved, its markdown's stand-in, its search
/// document.
pub(super) fn entry(links: &Links, markdown: &Rendered, doc: &Doc) -> Vec<u8> {
    let mut w = Writer::new(b"");
    w.u32(u32::try_from(links.len()).expect("links of one page under 4 billion"));
    for (target, to) in links {
        w.bytes(target.as_bytes());
        put_optional(&mut w, to.as_deref());
    }
    let [high, low] = markdown.key();
    w.u64(high);
    w.u64(low);
    put_optional(&mut w, markdown.summary.as_deref());
    w.u64(markdown.word_count as u64);
    put_toc(&mut w, &markdown.toc);
    encode_doc(&mut w, doc);
    Writer::fields(w)
}

fn encode_doc(w: &mut Writer, doc: &Doc) {
    let Doc {
        path,
        title,
        summary,
        title_lang,
        summary_lang,
        info,
        date,
        thumb,
        synthetic,
        identifiers,
        fields,
        names,
        text,
    } = doc;
    for field in [path, title, summary, title_lang, summary_lang, info, text] {
        w.bytes(field.as_bytes());
    }
    w.i64(date.map_or(i64::MIN, |d| i64::from(d.num_days_from_ce())));
    put_optional(w, thumb.as_deref());
    w.u32(u32::from(*synthetic));
    for list in [identifiers, fields, names] {
        w.u32(u32::try_from(list.len()).expect("fields of one page under 4 billion"));
        for item in list {
            w.bytes(item.as_bytes());
        }
    }
}

fn decode_doc(r: &mut Reader) -> Option<Doc> {
    let mut text = || r.string();
    let (path, title, summary, title_lang, summary_lang, info, body) = (
        text()?,
        text()?,
        text()?,
        text()?,
        text()?,
        text()?,
        text()?,
    );
    let date = match r.i64()? {
        i64::MIN => None,
        days => Some(NaiveDate::from_num_days_from_ce_opt(
            i32::try_from(days).ok()?,
        )?),
    };
    let thumb = optional(r)?;
    let synthetic = match r.u32()? {
        0 => false,
        1 => true,
        _ => return None,
    };
    let mut list = || -> Option<Vec<String>> {
        let count = r.u32()? as usize;
        // A count is only a hint: never a table bigger than the bytes left could hold.
        let mut items = Vec::with_capacity(count.min(r.len() / 4));
        for _ in 0..count {
            items.push(r.string()?);
        }
        Some(items)
    };
    let (identifiers, fields, names) = (list()?, list()?, list()?);
    Some(Doc {
        path,
        title,
        summary,
        title_lang,
        summary_lang,
        info,
        date,
        thumb,
        synthetic,
        identifiers,
        fields,
        names,
        text: body,
    })
}

fn put_optional(w: &mut Writer, text: Option<&str>) {
    match text {
        Some(text) => {
            w.u32(1);
            w.bytes(text.as_bytes());
        }
        None => w.u32(0),
    }
}

/// `Some(None)` for an absent text, `None` for bytes that are not an optional text.
fn optional(r: &mut Reader) -> Option<Option<String>> {
    match r.u32()? {
        0 => Some(None),
        1 => r.string().map(Some),
        _ => None,
    }
}

fn put_toc(w: &mut Writer, toc: &[TocEntry]) {
    w.u32(u32::try_from(toc.len()).expect("headings of one page under 4 billion"));
    for TocEntry {
        level,
        id,
        title,
        children,
    } in toc
    {
        w.u32(u32::from(*level));
        w.bytes(id.as_bytes());
        w.bytes(title.as_bytes());
        put_toc(w, children);
    }
}

/// Headings nest six deep at most: a deeper file is not one this casebook wrote.
fn toc(r: &mut Reader, depth: usize) -> Option<Vec<TocEntry>> {
    if depth > 6 {
        return None;
    }
    let count = r.u32()? as usize;
    let mut entries = Vec::with_capacity(count.min(r.len() / 12));
    for _ in 0..count {
        entries.push(TocEntry {
            level: u8::try_from(r.u32()?).ok()?,
            id: r.string()?,
            title: r.string()?,
            children: toc(r, depth + 1)?,
        });
    }
    Some(entries)
}

/// Records each `@/` target a page's markdown resolves, and where to.
#[derive(Default)]
pub(super) struct LinkLog(std::cell::RefCell<HashMap<String, Option<String>>>);

impl LinkLog {
    /// `resolve`, with what it answered noted.
    pub(super) fn note(&self, target: &str, to: Option<String>) -> Option<String> {
        self.0.borrow_mut().insert(target.to_string(), to.clone());
        to
    }

    /// The targets in order, so the same markdown keeps the same bytes.
    pub(super) fn into_links(self) -> Links {
        let mut links: Links = self.0.into_inner().into_iter().collect();
        links.sort();
        links
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn markdown() -> Rendered {
        let entry = |level: u8, id: &str, children| TocEntry {
            level,
            id: id.into(),
            title: format!("Heading {id}"),
            children,
        };
        Rendered {
            html: "<h2 id=\"a\">Heading a</h2><p>Text</p>".into(),
            summary: Some("<p>Sum</p>".into()),
            toc: vec![
                entry(2, "a", vec![entry(3, "b", Vec::new())]),
                entry(2, "c", Vec::new()),
            ],
            word_count: 41,
            text: "Heading a Text".into(),
            stand_in_for: None,
        }
    }

    fn doc() -> Doc {
        Doc {
            path: "/cases/syn-1/".into(),
            title: "Case syn-1".into(),
            summary: "A synthetic sample.".into(),
            title_lang: "en".into(),
            summary_lang: String::new(),
            info: "Branch 215 · 14 May 2012".into(),
            date: NaiveDate::from_ymd_opt(2012, 5, 14),
            thumb: None,
            synthetic: true,
            identifiers: vec!["syn-1".into(), "2761/215".into()],
            fields: vec!["215".into()],
            names: Vec::new(),
            text: "Heading a Text".into(),
        }
    }

    fn kept_file(links: &Links) -> Vec<u8> {
        let entry = entry(links, &markdown(), &doc()).into();
        file(9, 1, 0, [("/cases/syn-1/", 5, entry)].into_iter())
    }

    #[test]
    fn a_kept_page_comes_back_as_a_stand_in_and_its_document() {
        let links = vec![("cases/_index.md".to_string(), Some("/cases/".to_string()))];
        let bytes = kept_file(&links);
        let kept = KeptPages::parse(&bytes, 9);
        let resolve = |t: &str| (t == "cases/_index.md").then(|| "/cases/".to_string());
        let page = kept.get("/cases/syn-1/", 5, resolve).expect("kept");
        let whole = markdown();
        assert_eq!(page.markdown.key(), whole.key());
        assert!(!page.markdown.is_whole() && page.markdown.html.is_empty());
        assert_eq!(page.markdown.summary, whole.summary);
        assert_eq!(page.markdown.word_count, whole.word_count);
        assert_eq!(
            serde_json::to_value(&page.markdown.toc).unwrap(),
            serde_json::to_value(&whole.toc).unwrap()
        );
        assert_eq!(format!("{:?}", page.doc), format!("{:?}", doc()));
        // Another key, another path, a link that now resolves elsewhere or not at all.
        assert!(kept.get("/cases/syn-1/", 6, resolve).is_none());
        assert!(kept.get("/cases/syn-2/", 5, resolve).is_none());
        assert!(
            kept.get("/cases/syn-1/", 5, |_| Some("/ar/cases/".into()))
                .is_none()
        );
        assert!(kept.get("/cases/syn-1/", 5, |_| None).is_none());
    }

    #[test]
    fn a_file_of_another_configuration_or_damaged_keeps_nothing() {
        let bytes = kept_file(&Vec::new());
        assert_eq!(KeptPages::parse(&bytes, 9).len(), 1);
        assert_eq!(KeptPages::parse(&bytes, 8).len(), 0);
        for at in [0, 20, bytes.len() / 2, bytes.len() - 1] {
            let mut damaged = bytes.clone();
            damaged[at] ^= 1;
            assert_eq!(KeptPages::parse(&damaged, 9).len(), 0, "byte {at}");
        }
    }

    #[test]
    fn links_are_logged_once_each_in_order() {
        let log = LinkLog::default();
        assert_eq!(log.note("b.md", None), None);
        assert_eq!(log.note("a.md", Some("/a/".into())), Some("/a/".into()));
        log.note("b.md", None);
        assert_eq!(
            log.into_links(),
            vec![("a.md".into(), Some("/a/".into())), ("b.md".into(), None)]
        );
    }
}
