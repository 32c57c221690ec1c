//! Parsed content files kept for the next build (`parsed.bin` in the cache folder), so that
//! a one-shot build after an edit reads and parses only the files that changed.
//!
//! An entry is used only while its file's stamp from the sources' walk (device, inode, size,
//! modification and change times) is the recorded one. A file copied, restored or unpacked
//! gets a new inode and change time, which no program can choose, so a cache that came with
//! a site never matches its files. A file changed too recently to tell from a change in the
//! same clock tick has no stamp (the walk's `SETTLED`) and is not kept. Nor is a page with
//! photographs: its parse also checks the photographs' files, which the page's stamp does
//! not vouch for. The cache file is checksummed and made for one casebook and one
//! configuration; any other is not used, and every file is parsed.

use std::path::PathBuf;

use chrono::{Datelike as _, FixedOffset, NaiveDate, TimeZone as _};

use super::case::{Case, FieldValue, Withdrawal};
use super::meta::{Date, Standard};
use super::{FileKind, Parsed, parse};
use crate::cache_file::{Reader, Writer};
use crate::config::Config;

/// The cache's file, in the cache folder.
pub(crate) const FILE: &str = "parsed.bin";

const MAGIC: &[u8] = b"casebook-parsed-1\n";

/// A content file's stat fields, as the sources' walk gives them: equal stamps, same bytes.
pub(crate) type SourceStamp = [u8; 56];

/// What parsing depends on besides the file: this casebook and the configuration.
pub(crate) fn key(config: &Config) -> u128 {
    let mut h = crate::hashing::Hasher::default();
    h.text(&crate::hashing::casebook_identity());
    h.text(&format!("{config:?}"));
    h.digest()
}

/// Whether the cache in `file` was made under `key` (this casebook and configuration), by
/// its first bytes alone.
pub(crate) fn made_under(file: &std::path::Path, key: u128) -> bool {
    crate::cache_file::starts_with_key(file, MAGIC, key)
}

/// The entries of a saved cache, by path relative to `content/`: each file's stamp and its
/// parse, still encoded (decoded only for files that did not change).
#[derive(Default)]
pub(crate) struct Saved<'a> {
    entries: crate::cache_file::StampedEntries<'a>,
    /// The size of the file.
    size: usize,
}

impl<'a> Saved<'a> {
    /// The cache in `bytes` if it is whole and was made under `key`; else an empty one.
    pub(crate) fn parse(bytes: &'a [u8], key: u128) -> Saved<'a> {
        Self::entries_of(bytes, key).unwrap_or_default()
    }

    fn entries_of(bytes: &'a [u8], key: u128) -> Option<Saved<'a>> {
        let mut r = Reader::open(bytes, MAGIC)?;
        if r.u128()? != key {
            return None;
        }
        let entries = r.stamped_entries(std::mem::size_of::<SourceStamp>())?;
        Some(Saved {
            entries,
            size: bytes.len(),
        })
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// How many of `files` (as the walk found them) have their parse kept here.
    pub(crate) fn kept_of(&self, files: &super::WalkedFiles) -> usize {
        (files.iter())
            .filter(|(rel, stamp)| {
                stamp
                    .as_ref()
                    .is_some_and(|s| self.record(rel, s).is_some())
            })
            .count()
    }

    /// The encoded parse of `rel` if its stamp is still `stamp`.
    pub(super) fn record(&self, rel: &str, stamp: &SourceStamp) -> Option<&'a [u8]> {
        let (saved, record) = self.entries.get(rel)?;
        (*saved == stamp.as_slice()).then_some(*record)
    }
}

/// Builds the next cache file: one entry per kept file, in the listing's order.
pub(super) struct Next {
    writer: Writer,
}

impl Next {
    /// The next file, for `files` files, with room for as much as `last` held (or about
    /// two kilobytes a file): tens of megabytes at archive scale are not grown by doubling.
    pub(super) fn new(key: u128, files: usize, last: &Saved) -> Next {
        let room = if last.size > 0 {
            last.size
        } else {
            files * 2048
        };
        let mut writer = Writer::with_room(MAGIC, room);
        writer.u128(key);
        writer.u64(files as u64);
        Next { writer }
    }

    pub(super) fn push(&mut self, rel: &str, stamp: &SourceStamp, record: &[u8]) {
        self.writer.stamped_entry(rel, stamp, record);
    }

    pub(super) fn finish(self) -> Vec<u8> {
        self.writer.finish()
    }
}

/// Whether a parse may be kept: see the module's comment.
pub(super) fn keepable(parsed: &Parsed) -> bool {
    parsed.meta.photos.is_empty()
}

/// One parse's bytes.
pub(super) fn encode(p: &Parsed) -> Vec<u8> {
    let mut w = Writer::new(b"");
    w.raw(&[match p.kind {
        FileKind::SectionIndex => 0,
        FileKind::Page => 1,
        FileKind::BundleIndex => 2,
    }]);
    for text in [
        &p.dir,
        &p.stem,
        &p.key,
        &p.lang,
        &p.meta.title,
        &p.meta.body,
    ] {
        w.bytes(text.as_bytes());
    }
    w.bytes(p.meta.source.to_string_lossy().as_bytes());
    w.u64(p.meta.body_line as u64);
    let s = &p.standard;
    for text in [&s.title, &s.description, &s.slug, &s.template] {
        optional(&mut w, text.as_deref().map(str::as_bytes));
    }
    for date in [s.date, s.updated] {
        optional(&mut w, date.map(date_bytes).as_ref().map(|d| d.as_slice()));
    }
    optional(
        &mut w,
        s.weight
            .map(i64::to_le_bytes)
            .as_ref()
            .map(|n| n.as_slice()),
    );
    let paginate_by = s.paginate_by.map(|n| (n as u64).to_le_bytes());
    optional(&mut w, paginate_by.as_ref().map(|n| n.as_slice()));
    w.raw(&[u8::from(s.draft)]);
    let extra = (!s.extra.is_empty()).then(|| s.extra.to_string());
    optional(&mut w, extra.as_deref().map(str::as_bytes));
    match &p.case {
        None => w.raw(&[0]),
        Some(case) => {
            w.raw(&[1]);
            encode_case(&mut w, case);
        }
    }
    Writer::fields(w)
}

fn encode_case(w: &mut Writer, case: &Case) {
    w.bytes(case.id.as_bytes());
    w.u64(case.id_at.0 as u64);
    w.u64(case.id_at.1 as u64);
    w.raw(&[u8::from(case.synthetic)]);
    match &case.withdrawn {
        None => w.raw(&[0]),
        Some(withdrawal) => {
            w.raw(&[1]);
            w.bytes(withdrawal.reason.as_bytes());
            w.i64(withdrawal.date.num_days_from_ce().into());
        }
    }
    w.u64(case.values.len() as u64);
    for (name, value) in &case.values {
        w.bytes(name.as_bytes());
        match value {
            FieldValue::Str(text) | FieldValue::Enum(text) => {
                w.raw(&[if matches!(value, FieldValue::Str(_)) {
                    0
                } else {
                    1
                }]);
                w.bytes(text.as_bytes());
            }
            FieldValue::Int(n) => {
                w.raw(&[2]);
                w.i64(*n);
            }
            FieldValue::Date(d) => {
                w.raw(&[3]);
                w.i64(d.num_days_from_ce().into());
            }
            FieldValue::Bool(b) => w.raw(&[4, u8::from(*b)]),
            FieldValue::List(items) => {
                w.raw(&[5]);
                w.u64(items.len() as u64);
                for item in items {
                    w.bytes(item.as_bytes());
                }
            }
        }
    }
}

/// A parse from its bytes; `None` if they do not read as one.
pub(super) fn decode(bytes: &[u8]) -> Option<Parsed> {
    let mut r = Reader::fields(bytes);
    let kind = match r.raw(1)?[0] {
        0 => FileKind::SectionIndex,
        1 => FileKind::Page,
        2 => FileKind::BundleIndex,
        _ => return None,
    };
    let [dir, stem, key, lang, title, body, source] = [(); 7].map(|()| r.string());
    let body_line = usize::try_from(r.u64()?).ok()?;
    let [s_title, description, slug, template] = [(); 4].map(|()| optional_of(&mut r, text));
    let [date, updated] = [(); 2].map(|()| optional_of(&mut r, date_of));
    let weight = optional_of(&mut r, |b| Some(i64::from_le_bytes(b.try_into().ok()?)))?;
    let paginate_by = optional_of(&mut r, |b| {
        usize::try_from(u64::from_le_bytes(b.try_into().ok()?)).ok()
    })?;
    let draft = r.raw(1)?[0] == 1;
    let extra = match read_optional(&mut r)? {
        None => toml::Table::new(),
        Some(text) => std::str::from_utf8(text).ok()?.parse().ok()?,
    };
    let case = match r.raw(1)?[0] {
        0 => None,
        _ => Some(decode_case(&mut r)?),
    };
    if !r.is_empty() {
        return None;
    }
    let standard = Standard {
        title: s_title?,
        description: description?,
        date: date?,
        updated: updated?,
        draft,
        weight,
        slug: slug?,
        template: template?,
        paginate_by,
        extra,
    };
    let lang = lang?;
    let meta = parse::meta_of(
        PathBuf::from(source?),
        lang.clone(),
        title?,
        &standard,
        body?,
        body_line,
        Vec::new(),
    );
    Some(Parsed {
        kind,
        dir: dir?,
        stem: stem?,
        key: key?,
        lang,
        meta,
        standard,
        case,
    })
}

fn decode_case(r: &mut Reader) -> Option<Case> {
    let id = r.string()?;
    let id_at = (
        usize::try_from(r.u64()?).ok()?,
        usize::try_from(r.u64()?).ok()?,
    );
    let synthetic = r.raw(1)?[0] == 1;
    let withdrawn = match r.raw(1)?[0] {
        0 => None,
        _ => Some(Withdrawal {
            reason: r.string()?,
            date: day(r.i64()?)?,
        }),
    };
    let mut values = std::collections::BTreeMap::new();
    for _ in 0..r.u64()? {
        let name = r.string()?;
        let value = match r.raw(1)?[0] {
            0 => FieldValue::Str(r.string()?),
            1 => FieldValue::Enum(r.string()?),
            2 => FieldValue::Int(r.i64()?),
            3 => FieldValue::Date(day(r.i64()?)?),
            4 => FieldValue::Bool(r.raw(1)?[0] == 1),
            5 => {
                let count = r.u64()?;
                let items = (0..count).map(|_| r.string()).collect::<Option<_>>()?;
                FieldValue::List(items)
            }
            _ => return None,
        };
        values.insert(name, value);
    }
    Some(Case {
        id,
        id_at,
        values,
        synthetic,
        withdrawn,
    })
}

fn optional(w: &mut Writer, bytes: Option<&[u8]>) {
    match bytes {
        None => w.raw(&[0]),
        Some(bytes) => {
            w.raw(&[1]);
            w.bytes(bytes);
        }
    }
}

/// `None` when the field cannot be read; `Some(None)` when it says "absent".
fn read_optional<'a>(r: &mut Reader<'a>) -> Option<Option<&'a [u8]>> {
    match r.raw(1)?[0] {
        0 => Some(None),
        _ => r.bytes().map(Some),
    }
}

/// An optional field read with `read`: `None` when it cannot be read.
fn optional_of<T>(r: &mut Reader, read: impl Fn(&[u8]) -> Option<T>) -> Option<Option<T>> {
    match read_optional(r)? {
        None => Some(None),
        Some(bytes) => read(bytes).map(Some),
    }
}

fn text(bytes: &[u8]) -> Option<String> {
    String::from_utf8(bytes.to_vec()).ok()
}

/// A date and time to the nanosecond, with its offset.
fn date_bytes(date: Date) -> [u8; 16] {
    let mut bytes = [0u8; 16];
    bytes[..8].copy_from_slice(&date.timestamp().to_le_bytes());
    bytes[8..12].copy_from_slice(&date.timestamp_subsec_nanos().to_le_bytes());
    bytes[12..].copy_from_slice(&date.offset().local_minus_utc().to_le_bytes());
    bytes
}

fn date_of(bytes: &[u8]) -> Option<Date> {
    let word = |at: usize| -> Option<[u8; 4]> { bytes.get(at..at + 4)?.try_into().ok() };
    let secs = i64::from_le_bytes(bytes.get(..8)?.try_into().ok()?);
    let nanos = u32::from_le_bytes(word(8)?);
    let offset = FixedOffset::east_opt(i32::from_le_bytes(word(12)?))?;
    (bytes.len() == 16)
        .then(|| offset.timestamp_opt(secs, nanos).single())
        .flatten()
}

fn day(days_from_ce: i64) -> Option<NaiveDate> {
    NaiveDate::from_num_days_from_ce_opt(i32::try_from(days_from_ce).ok()?)
}

#[cfg(test)]
#[path = "saved_tests.rs"]
mod tests;
