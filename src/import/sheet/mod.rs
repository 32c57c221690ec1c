//! Reading a spreadsheet as a stream of rows, each cell knowing where it was written.
//!
//! CSV (any of `,` `;` tab `|`, UTF-8 with or without a byte-order mark, quoted newlines)
//! is read with the `csv` crate; XLSX and XLSB cell by cell with `calamine`'s cell readers;
//! ODS by our own streaming reader of `content.xml`; XLS (at most 65,536 rows) with
//! `calamine` after a scan of its cell records. All of them hand the same `Item`s to the
//! caller, one row at a time, so everything after this module is blind to the format and no
//! reader ever holds more than one row: memory is bounded by a row and the sheet's shared
//! strings, never by the sheet's largest cell reference. Parts of a workbook that are read
//! whole are limited in size before they are read (`parts`).

mod assemble;
mod csv_file;
mod ods;
mod parts;
mod workbook;
mod xls;

use std::path::Path;

use chrono::NaiveDate;

use crate::error::{Diagnostic, Error, Result};

pub(crate) use assemble::MAX_COLUMNS;

/// One cell's value as the spreadsheet typed it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Value {
    Empty,
    Text(String),
    /// Text the export escaped with `'` (`' =1+1`): taken exactly, spaces and all.
    Literal(String),
    Number(f64),
    Bool(bool),
    Date(NaiveDate),
    /// A formula: its text. Imports take values only.
    Formula(String),
    /// `#N/A`, `#REF!` and the like.
    Error(String),
}

/// Line ends as case files have them: CRLF (what spreadsheets write inside a cell) and a lone
/// CR both become LF. Done in one step, so applying it again changes nothing (replacing CRLF
/// alone would turn `\r\r\n` into a new `\r\n`).
pub(crate) fn lf_line_ends(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

impl Value {
    /// About how many bytes the value holds, for bounding what waits in memory.
    pub(crate) fn byte_size(&self) -> usize {
        match self {
            Value::Text(t) | Value::Literal(t) | Value::Formula(t) | Value::Error(t) => t.len(),
            _ => 8,
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Value::Empty => true,
            Value::Text(t) | Value::Literal(t) => t.trim().is_empty(),
            _ => false,
        }
    }

    /// The cell as a person reads it.
    pub(crate) fn text(&self) -> String {
        match self {
            Value::Empty => String::new(),
            // Spreadsheets end lines inside a cell with CRLF; case files use LF.
            Value::Text(t) => lf_line_ends(t.trim()),
            // Spaces only are no value, as in any other cell.
            Value::Literal(t) if !t.trim().is_empty() => lf_line_ends(t),
            Value::Literal(_) => String::new(),
            Value::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{}", *n as i64),
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Date(d) => d.format("%Y-%m-%d").to_string(),
            Value::Formula(f) => format!("={f}"),
            Value::Error(e) => e.clone(),
        }
    }

    /// Text a spreadsheet would run as a formula once the characters before its `=` are
    /// dropped (spaces, tabs, control characters): refused like a formula, since the case
    /// file and the site's `cases.csv` would carry it.
    pub(crate) fn text_hiding_formula(text: &str) -> Option<&str> {
        let start = text.trim_start_matches(|c: char| c.is_whitespace() || c.is_control());
        (start.len() != text.len() && start.starts_with('=')).then_some(start)
    }
}

/// Where a cell was written: `cases.csv:17:3` or `cases.xlsx:Sheet1:C17`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct At {
    /// 1-based row (for CSV, the line on which the record starts).
    pub(crate) row: usize,
    /// 1-based column.
    pub(crate) column: usize,
}

/// One row below the header that has a value.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The row's position (column 1).
    pub(crate) at: At,
    /// The cells under the header, by column (shorter when the row ends early).
    pub(crate) cells: Vec<Value>,
    /// Columns right of the header's last that hold a value in this row (0-based, at most a
    /// few: each is a problem to report, not data).
    pub(crate) stray: Vec<usize>,
}

impl Row {
    /// About how many bytes the row's cells hold, for bounding what waits in memory.
    pub(crate) fn byte_size(&self) -> usize {
        self.cells.iter().map(Value::byte_size).sum()
    }
}

/// What a reader hands on, in the sheet's order.
#[derive(Debug, Clone)]
pub(crate) enum Item {
    /// The header: always first, once.
    Header(Table),
    Row(Row),
    /// Rows with no value at all: `count` of them from `first` on.
    Empty {
        first: At,
        count: usize,
    },
}

/// One sheet: where it is and its header. The rows come as a stream of `Item`s.
#[derive(Debug, Clone)]
pub(crate) struct Table {
    /// The file as given, for messages.
    pub(crate) file: String,
    /// The sheet's name (workbooks only).
    pub(crate) sheet: Option<String>,
    pub(crate) header: Vec<String>,
    pub(crate) header_row: usize,
}

impl Table {
    /// A diagnostic located at a cell: `file:Sheet:C17` for workbooks, `file:17:3` for CSV.
    pub(crate) fn at(&self, at: At, message: impl Into<String>) -> Diagnostic {
        match &self.sheet {
            Some(sheet) => Diagnostic::new(
                format!(
                    "{}:{sheet}:{}{}",
                    self.file,
                    column_letters(at.column),
                    at.row
                ),
                message,
            ),
            None => Diagnostic::new(&self.file, message).at(at.row, at.column),
        }
    }

    /// A diagnostic about a whole column, located at its header cell.
    pub(crate) fn at_header(&self, column: usize, message: impl Into<String>) -> Diagnostic {
        self.at(
            At {
                row: self.header_row,
                column,
            },
            message,
        )
    }
}

/// `1` → `A`, `27` → `AA`.
pub(crate) fn column_letters(mut column: usize) -> String {
    let mut letters = Vec::new();
    while column > 0 {
        let rem = (column - 1) % 26;
        letters.push(b'A' + rem as u8);
        column = (column - 1) / 26;
    }
    letters.reverse();
    String::from_utf8(letters).unwrap_or_default()
}

/// Which kind of file a path names, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Csv,
    Workbook,
}

pub(crate) fn kind(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "csv" | "tsv" | "txt" => Some(Kind::Csv),
        "xlsx" | "xlsm" | "xlsb" | "xls" | "ods" => Some(Kind::Workbook),
        _ => None,
    }
}

/// Items are handed over from the reading thread in chunks of at most this many, or this
/// much cell text (whichever comes first).
const CHUNK_ITEMS: usize = 256;
const CHUNK_BYTES: usize = 2 << 20;

/// A sheet to read: the file, its name in messages, which of a workbook's sheets (default:
/// the first) and a CSV file's delimiter, when it is not to be guessed.
pub(crate) struct Source<'a> {
    pub(crate) path: &'a Path,
    pub(crate) display: &'a str,
    pub(crate) sheet: Option<&'a str>,
    pub(crate) delimiter: Option<u8>,
}

impl Source<'_> {
    /// Hands the sheet's header and then each row to `each`, which may stop the reading by
    /// returning an error. The file is read on a thread of its own, a chunk ahead of `each`,
    /// so parsing it overlaps with checking what it gave; at most two chunks wait, so memory
    /// stays bounded, and when `each` fails the reader stops at its next chunk.
    pub(crate) fn read(&self, each: &mut dyn FnMut(Item) -> Result<()>) -> Result<()> {
        let (send, receive) = std::sync::mpsc::sync_channel::<Vec<Item>>(1);
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                let (mut chunk, mut bytes) = (Vec::new(), 0);
                self.read_here(&mut |item| {
                    if let Item::Row(row) = &item {
                        bytes += row.byte_size();
                    }
                    chunk.push(item);
                    if chunk.len() >= CHUNK_ITEMS || bytes >= CHUNK_BYTES {
                        bytes = 0;
                        send.send(std::mem::take(&mut chunk)).map_err(|_| {
                            Error::one(Diagnostic::new(self.display, "stopped reading"))
                        })?;
                    }
                    Ok(())
                })?;
                if !chunk.is_empty() {
                    // The receiver is gone only when `each` failed, whose error is the one told.
                    let _ = send.send(chunk);
                }
                Ok(())
            });
            let handled = receive.iter().flatten().try_for_each(&mut *each);
            drop(receive);
            let read = reader
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            handled.and(read)
        })
    }

    /// Reads the sheet on this thread, handing on each item as it is parsed.
    fn read_here(&self, each: &mut dyn FnMut(Item) -> Result<()>) -> Result<()> {
        let Source {
            path,
            display,
            sheet,
            delimiter,
        } = *self;
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .unwrap_or("")
            .to_ascii_lowercase();
        match (kind(path), ext.as_str()) {
            (Some(Kind::Csv), _) => {
                if let Some(name) = sheet {
                    return Err(Error::one(
                        Diagnostic::new(
                            display,
                            format!("--sheet {name}: a CSV file has no sheets"),
                        )
                        .hint("leave out --sheet for CSV files"),
                    ));
                }
                let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
                csv_file::read(file, display, delimiter, each)
            }
            (Some(Kind::Workbook), "ods") => ods::read(path, display, sheet, each),
            (Some(Kind::Workbook), "xls") => xls::read(path, display, sheet, each),
            (Some(Kind::Workbook), _) => workbook::read(path, display, sheet, each),
            (None, _) => Err(Error::one(
                Diagnostic::new(display, "not a spreadsheet casebook can read")
                    .hint("save it as .csv, .xlsx or .ods"),
            )),
        }
    }
}

/// The sheet to read among `names`: `wanted`, or the first.
fn choose_sheet(display: &str, names: &[String], wanted: Option<&str>) -> Result<String> {
    match wanted {
        Some(wanted) => match names.iter().find(|n| n.as_str() == wanted) {
            Some(n) => Ok(n.clone()),
            None => {
                let hint = crate::error::did_you_mean(wanted, names.iter().map(String::as_str))
                    .unwrap_or_else(|| format!("the sheets are: {}", names.join(", ")));
                Err(Error::one(
                    Diagnostic::new(display, format!("there is no sheet named `{wanted}`"))
                        .hint(hint),
                ))
            }
        },
        None => names
            .first()
            .cloned()
            .ok_or_else(|| Error::one(Diagnostic::new(display, "the workbook has no sheets"))),
    }
}

/// The error for a workbook that its reader cannot read.
fn unreadable(display: &str, e: &dyn std::fmt::Display) -> Error {
    Error::one(
        Diagnostic::new(display, format!("cannot read the workbook: {e}"))
            .hint("open it in a spreadsheet program and save it again as .xlsx or .ods"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn column_letters_follow_spreadsheets() {
        assert_eq!(column_letters(1), "A");
        assert_eq!(column_letters(26), "Z");
        assert_eq!(column_letters(27), "AA");
        assert_eq!(column_letters(703), "AAA");
    }

    #[test]
    fn a_formula_hidden_behind_spaces_or_control_characters_is_seen() {
        assert_eq!(Value::text_hiding_formula(" =1+1"), Some("=1+1"));
        assert_eq!(
            Value::text_hiding_formula("\u{7}\t=HYPERLINK(x)"),
            Some("=HYPERLINK(x)")
        );
        assert_eq!(Value::text_hiding_formula("=1"), None);
        assert_eq!(Value::text_hiding_formula("a = b"), None);
    }
}
