//! A workbook's zip parts, checked before anything reads them.
//!
//! A few kilobytes of zip can inflate to gigabytes. The parts a reader holds whole (shared
//! strings, styles, the workbook, relationships) are inflated once here, counting, and
//! refused above `WHOLE_PART_LIMIT`. Sheets are streamed, so their size only costs time,
//! but one XML element (a cell's text, an attribute) is buffered whole by any XML reader:
//! `Bounded` refuses a stretch between two `<` longer than `ELEMENT_LIMIT`.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use quick_xml::events::Event;

use super::MAX_COLUMNS;
use crate::error::{Diagnostic, Error, Result};

/// The most a part read whole may inflate to. Shared strings of a 100,000-row sheet take a
/// few MiB; 32 MiB of the smallest strings cost about 100 MiB once read.
pub(super) const WHOLE_PART_LIMIT: u64 = 32 << 20;
/// The longest stretch of XML between two `<` (one cell's text, one attribute).
pub(super) const ELEMENT_LIMIT: usize = 16 << 20;
/// The most formula cells noted in a sheet before the import stops: each is an error anyway.
pub(super) const FORMULA_LIMIT: usize = 10_000;

pub(super) type Zip = zip::ZipArchive<BufReader<File>>;

pub(super) fn open_zip(path: &Path, display: &str) -> Result<Zip> {
    let file = File::open(path).map_err(|e| Error::io(path, e))?;
    zip::ZipArchive::new(BufReader::new(file)).map_err(|e| super::unreadable(display, &e))
}

/// A reader that fails once a stretch between two `<` passes `ELEMENT_LIMIT` bytes.
pub(super) struct Bounded<R> {
    inner: R,
    since_open: usize,
}

impl<R: Read> Bounded<R> {
    pub(super) fn new(inner: R) -> Self {
        Bounded {
            inner,
            since_open: 0,
        }
    }
}

impl<R: Read> Read for Bounded<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut last = 0;
        for at in memchr::memchr_iter(b'<', &buf[..n]) {
            self.since_open += at - last;
            if self.since_open > ELEMENT_LIMIT {
                break;
            }
            self.since_open = 0;
            last = at + 1;
        }
        if self.since_open <= ELEMENT_LIMIT {
            self.since_open += n - last;
        }
        if self.since_open > ELEMENT_LIMIT {
            return Err(std::io::Error::other(TooLong));
        }
        Ok(n)
    }
}

#[derive(Debug)]
struct TooLong;

impl std::fmt::Display for TooLong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "one cell or element holds more than {} MiB of text",
            ELEMENT_LIMIT >> 20
        )
    }
}

impl std::error::Error for TooLong {}

/// Whether a reader holds this part whole.
fn read_whole(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.ends_with(".rels")
        || name == "[content_types].xml"
        || name.starts_with("docprops/")
        || name.starts_with("meta-inf/")
        || [
            "sharedstrings",
            "styles",
            "workbook",
            "metadata",
            "settings",
            "meta",
        ]
        .iter()
        .any(|stem| {
            let file = name.rsplit('/').next().unwrap_or(&name);
            file.strip_prefix(stem)
                .is_some_and(|rest| rest == ".xml" || rest == ".bin")
        })
}

/// Refuses a workbook whose parts read whole inflate beyond `WHOLE_PART_LIMIT`.
pub(super) fn check_whole_parts(zip: &mut Zip, display: &str) -> Result<()> {
    for i in 0..zip.len() {
        let mut part = zip
            .by_index(i)
            .map_err(|e| super::unreadable(display, &e))?;
        if !read_whole(part.name()) {
            continue;
        }
        let name = part.name().to_string();
        let inflated = std::io::copy(
            &mut (&mut part).take(WHOLE_PART_LIMIT + 1),
            &mut std::io::sink(),
        )
        .map_err(|e| super::unreadable(display, &e))?;
        if inflated > WHOLE_PART_LIMIT {
            return Err(Error::one(
                Diagnostic::new(
                    display,
                    format!(
                        "the workbook's part `{name}` unpacks to more than {} MiB, more than any sheet of cases needs",
                        WHOLE_PART_LIMIT >> 20
                    ),
                )
                .hint("save the sheet as CSV UTF-8 and import that file"),
            ));
        }
    }
    Ok(())
}

/// An XML reader over a zip part, every element bounded.
fn xml(part: impl Read) -> quick_xml::Reader<BufReader<Bounded<impl Read>>> {
    let mut reader = quick_xml::Reader::from_reader(BufReader::new(Bounded::new(part)));
    let config = reader.config_mut();
    config.check_end_names = false;
    config.expand_empty_elements = true;
    reader
}

/// The value of the attribute whose local name is `key`.
pub(super) fn attribute(e: &quick_xml::events::BytesStart<'_>, key: &[u8]) -> Option<String> {
    e.attributes().flatten().find_map(|a| {
        (a.key.local_name().as_ref() == key)
            .then(|| {
                let raw = String::from_utf8_lossy(&a.value);
                quick_xml::escape::unescape(&raw)
                    .ok()
                    .map(|v| v.into_owned())
            })
            .flatten()
    })
}

/// The zip entry named `name`, whatever the case of its letters (as Excel reads them).
fn entry_name(zip: &Zip, name: &str) -> Option<String> {
    zip.file_names()
        .find(|n| n.eq_ignore_ascii_case(name))
        .map(str::to_string)
}

/// Every sheet of an XLSX workbook in order: its name and its part.
pub(super) fn xlsx_sheets(zip: &mut Zip, display: &str) -> Result<Vec<(String, String)>> {
    let bad = |e: &dyn std::fmt::Display| super::unreadable(display, e);
    let mut targets = HashMap::new();
    if let Some(rels) = entry_name(zip, "xl/_rels/workbook.xml.rels") {
        let mut reader = xml(zip.by_name(&rels).map_err(|e| bad(&e))?);
        let mut buf = Vec::new();
        loop {
            match reader.read_event_into(&mut buf).map_err(|e| bad(&e))? {
                Event::Start(e) if e.local_name().as_ref() == b"Relationship" => {
                    if let (Some(id), Some(target)) =
                        (attribute(&e, b"Id"), attribute(&e, b"Target"))
                    {
                        let part = match target.strip_prefix('/') {
                            Some(absolute) => absolute.to_string(),
                            None => format!("xl/{target}"),
                        };
                        targets.insert(id, part);
                    }
                }
                Event::Eof => break,
                _ => {}
            }
            buf.clear();
        }
    }
    let workbook =
        entry_name(zip, "xl/workbook.xml").ok_or_else(|| bad(&"it has no xl/workbook.xml part"))?;
    let mut reader = xml(zip.by_name(&workbook).map_err(|e| bad(&e))?);
    let mut sheets = Vec::new();
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).map_err(|e| bad(&e))? {
            Event::Start(e) if e.local_name().as_ref() == b"sheet" => {
                let name = attribute(&e, b"name").unwrap_or_default();
                let part = attribute(&e, b"id").and_then(|id| targets.get(&id).cloned());
                if let Some(part) = part {
                    sheets.push((name, part));
                }
            }
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(sheets)
}

/// `C17` → (16, 2), 0-based; columns past XFD are kept past it, so they are refused later.
fn cell_reference(text: &str) -> Option<(u32, u32)> {
    let letters = text.bytes().take_while(u8::is_ascii_alphabetic).count();
    let mut column: u32 = 0;
    for b in text[..letters].bytes() {
        column = column
            .saturating_mul(26)
            .saturating_add(u32::from(b.to_ascii_uppercase() - b'A') + 1)
            .min(MAX_COLUMNS as u32 + 1);
    }
    let row: u32 = text[letters..].parse().ok()?;
    Some((row.checked_sub(1)?, column.checked_sub(1)?))
}

/// The formula cells of the sheet in `part`, by 0-based (row, column), read by streaming its
/// XML (which also proves no element of it is too long for the value reader to buffer). A
/// shared formula's followers have no text of their own and are noted by the cell only.
pub(super) fn xlsx_formulas(
    zip: &mut Zip,
    part: &str,
    display: &str,
    sheet: &str,
) -> Result<HashMap<(u32, u32), String>> {
    let bad = |e: &dyn std::fmt::Display| super::unreadable(display, e);
    let name =
        entry_name(zip, part).ok_or_else(|| bad(&format!("its sheet part {part} is missing")))?;
    let mut reader = xml(zip.by_name(&name).map_err(|e| bad(&e))?);
    let mut formulas = HashMap::new();
    let (mut row, mut column) = (0u32, 0u32);
    let mut cell = None;
    let mut formula: Option<String> = None;
    let mut buf = Vec::new();
    loop {
        match reader.read_event_into(&mut buf).map_err(|e| bad(&e))? {
            Event::Start(e) => match e.local_name().as_ref() {
                b"row" => {
                    if let Some(r) = attribute(&e, b"r").and_then(|r| r.parse::<u32>().ok()) {
                        row = r.saturating_sub(1);
                    }
                }
                b"c" => {
                    let at = attribute(&e, b"r")
                        .and_then(|r| cell_reference(&r))
                        .unwrap_or((row, column));
                    column = at.1;
                    cell = Some(at);
                }
                b"f" if cell.is_some() => formula = Some(String::new()),
                _ => {}
            },
            Event::Text(t) => {
                if let Some(f) = formula.as_mut() {
                    f.push_str(&t.decode().map_err(|e| bad(&e))?);
                }
            }
            Event::End(e) => match e.local_name().as_ref() {
                b"row" => {
                    row = row.saturating_add(1);
                    column = 0;
                }
                b"c" => {
                    cell = None;
                    column = column.saturating_add(1);
                }
                b"f" => {
                    if let (Some(at), Some(f)) = (cell, formula.take()) {
                        if formulas.len() == FORMULA_LIMIT {
                            return Err(Error::one(
                                Diagnostic::new(
                                    format!(
                                        "{display}:{sheet}:{}{}",
                                        super::column_letters(at.1 as usize + 1),
                                        at.0 as usize + 1
                                    ),
                                    format!(
                                        "the sheet holds more than {FORMULA_LIMIT} formula cells: imports take values only"
                                    ),
                                )
                                .hint("copy the sheet and paste it back as values only (Paste Special > Values)"),
                            ));
                        }
                        let f = if f.is_empty() {
                            "(a shared formula)".to_string()
                        } else {
                            f
                        };
                        formulas.insert(at, f);
                    }
                }
                b"sheetData" => break,
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
        buf.clear();
    }
    Ok(formulas)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_read_as_spreadsheets_write_them() {
        assert_eq!(cell_reference("A1"), Some((0, 0)));
        assert_eq!(cell_reference("c17"), Some((16, 2)));
        assert_eq!(cell_reference("XFD1048576"), Some((1_048_575, 16_383)));
        assert_eq!(cell_reference("ZZZZZZZZ1").map(|r| r.1), Some(16_384));
        assert_eq!(cell_reference("A0"), None);
    }

    #[test]
    fn a_long_element_is_refused_as_it_streams() {
        let long = format!("<a>{}</a>", "x".repeat(ELEMENT_LIMIT + 10));
        let mut out = Vec::new();
        let err = Bounded::new(long.as_bytes())
            .read_to_end(&mut out)
            .unwrap_err();
        assert!(err.to_string().contains("MiB of text"), "{err}");
        let fine = "<a>x</a>".repeat(ELEMENT_LIMIT / 4);
        out.clear();
        Bounded::new(fine.as_bytes()).read_to_end(&mut out).unwrap();
        assert_eq!(out.len(), fine.len());
    }

    #[test]
    fn the_parts_read_whole_are_known() {
        assert!(read_whole("xl/sharedStrings.xml"));
        assert!(read_whole("xl/_rels/workbook.xml.rels"));
        assert!(read_whole("xl/styles.bin"));
        assert!(!read_whole("xl/worksheets/sheet1.xml"));
        assert!(!read_whole("xl/media/image1.png"));
        assert!(!read_whole("content.xml"));
    }
}
